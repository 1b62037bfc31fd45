//! The AVX2 kernels (x86_64 with AVX2 and POPCNT, checked at run time by
//! the caller through `crate::cpu`): 32 input bytes per step. The 256-entry
//! table lookup is sixteen 16-entry `vpshufb` lookups, one per high nibble,
//! merged by a tree of blends; UTF-8 bytes are widened or packed with shuffle
//! masks from small constant tables, and all-ASCII steps skip that.

use std::arch::x86_64::*;
use std::mem::MaybeUninit;

/// Room past the written output a kernel may store into (then cut).
pub const SLACK: usize = 16;

/// The 16 rows of a 256-entry table, each in both 128-bit lanes.
#[target_feature(enable = "avx2,popcnt")]
fn rows(table: &[u8; 256]) -> [__m256i; 16] {
    std::array::from_fn(|k| {
        let row: [u8; 16] = std::array::from_fn(|j| table[16 * k + j]);
        _mm256_broadcastsi128_si256(_mm_set_epi8(
            row[15] as i8,
            row[14] as i8,
            row[13] as i8,
            row[12] as i8,
            row[11] as i8,
            row[10] as i8,
            row[9] as i8,
            row[8] as i8,
            row[7] as i8,
            row[6] as i8,
            row[5] as i8,
            row[4] as i8,
            row[3] as i8,
            row[2] as i8,
            row[1] as i8,
            row[0] as i8,
        ))
    })
}

/// `table[b]` for each of the 32 bytes `b` of `x`. Rows are looked up
/// by the low nibble; `vpshufb` writes zero where the index has bit 7
/// set, so with bit 4 of `b` (and its complement) moved to bit 7 the
/// even and odd rows of each pair zero each other's bytes and one OR
/// merges them. A tree of blends then picks among the 8 pairs, one
/// more bit of `b` per level (the blend tests bit 7, so each level
/// shifts its bit there; bits that 16-bit shifts carry across bytes
/// land below bit 7 and are ignored).
#[target_feature(enable = "avx2,popcnt")]
#[inline]
fn lookup(rows: &[__m256i; 16], x: __m256i) -> __m256i {
    let bit7 = _mm256_set1_epi8(0x80u8 as i8);
    let lo = _mm256_and_si256(x, _mm256_set1_epi8(0x0F));
    let even = _mm256_or_si256(lo, _mm256_and_si256(_mm256_slli_epi16(x, 3), bit7));
    let odd = _mm256_xor_si256(even, bit7);
    let w: [__m256i; 8] = std::array::from_fn(|k| {
        _mm256_or_si256(
            _mm256_shuffle_epi8(rows[2 * k], even),
            _mm256_shuffle_epi8(rows[2 * k + 1], odd),
        )
    });
    let b5 = _mm256_slli_epi16(x, 2);
    let w: [__m256i; 4] = std::array::from_fn(|k| _mm256_blendv_epi8(w[2 * k], w[2 * k + 1], b5));
    let b6 = _mm256_slli_epi16(x, 1);
    let w: [__m256i; 2] = std::array::from_fn(|k| _mm256_blendv_epi8(w[2 * k], w[2 * k + 1], b6));
    _mm256_blendv_epi8(w[0], w[1], x)
}

/// [`lookup`] for 32 bytes that are all below 0x80: rows 0 to 7 only.
#[target_feature(enable = "avx2,popcnt")]
#[inline]
fn lookup_ascii(rows: &[__m256i; 16], x: __m256i) -> __m256i {
    let bit7 = _mm256_set1_epi8(0x80u8 as i8);
    let lo = _mm256_and_si256(x, _mm256_set1_epi8(0x0F));
    let even = _mm256_or_si256(lo, _mm256_and_si256(_mm256_slli_epi16(x, 3), bit7));
    let odd = _mm256_xor_si256(even, bit7);
    let w: [__m256i; 4] = std::array::from_fn(|k| {
        _mm256_or_si256(
            _mm256_shuffle_epi8(rows[2 * k], even),
            _mm256_shuffle_epi8(rows[2 * k + 1], odd),
        )
    });
    let b5 = _mm256_slli_epi16(x, 2);
    let w: [__m256i; 2] = std::array::from_fn(|k| _mm256_blendv_epi8(w[2 * k], w[2 * k + 1], b5));
    _mm256_blendv_epi8(w[0], w[1], _mm256_slli_epi16(x, 1))
}

/// Writes `table[input[i]]` to `out[i]` for whole 32-byte steps;
/// returns how many bytes were done.
///
/// # Safety
/// The CPU must have AVX2 and POPCNT (`crate::cpu::has_avx2`).
#[target_feature(enable = "avx2,popcnt")]
pub unsafe fn map_bytes(table: &[u8; 256], input: &[u8], out: &mut [MaybeUninit<u8>]) -> usize {
    let n = input.len().min(out.len());
    let rows = rows(table);
    let mut i = 0;
    while i + 32 <= n {
        // SAFETY: i + 32 <= n <= input.len() and <= out.len(), so the
        // 32-byte unaligned load and store stay inside the slices.
        unsafe {
            let x = _mm256_loadu_si256(input.as_ptr().add(i).cast());
            _mm256_storeu_si256(out.as_mut_ptr().add(i).cast(), lookup(&rows, x));
        }
        i += 32;
    }
    i
}

/// For each 8-bit mask of non-ASCII bytes among 8 Latin-1 characters,
/// the shuffle that packs their (lead, continuation) pairs into UTF-8:
/// the lead (or the ASCII byte) always, the continuation only for
/// non-ASCII. Unused entries are 0x80 (shuffle writes zero).
const EXPAND: [[u8; 16]; 256] = {
    let mut t = [[0x80u8; 16]; 256];
    let mut m = 0;
    while m < 256 {
        let mut n = 0;
        let mut k = 0;
        while k < 8 {
            t[m][n] = 2 * k as u8;
            n += 1;
            if m & (1 << k) != 0 {
                t[m][n] = 2 * k as u8 + 1;
                n += 1;
            }
            k += 1;
        }
        m += 1;
    }
    t
};

/// For each 8-bit mask of bytes to drop, the shuffle (as a
/// little-endian u64 of 8 indices) that packs the kept bytes to the
/// front. Unused entries are 0x80.
const COMPRESS: [u64; 256] = {
    let mut t = [0u64; 256];
    let mut m = 0;
    while m < 256 {
        let mut idx = [0x80u8; 8];
        let mut n = 0;
        let mut k = 0;
        while k < 8 {
            if m & (1 << k) == 0 {
                idx[n] = k as u8;
                n += 1;
            }
            k += 1;
        }
        t[m] = u64::from_le_bytes(idx);
        m += 1;
    }
    t
};

#[target_feature(enable = "avx2,popcnt")]
#[inline]
fn expand_mask(m_low: u32, m_high: u32) -> __m256i {
    let (a, b) = (
        &EXPAND[(m_low & 0xFF) as usize],
        &EXPAND[(m_high & 0xFF) as usize],
    );
    // SAFETY: each row is 16 bytes, the size of the unaligned loads.
    unsafe { _mm256_loadu2_m128i(b.as_ptr().cast(), a.as_ptr().cast()) }
}

/// Latin-1 → UTF-8 for whole 32-byte steps of `input` (bytes mapped
/// through `to_latin1` first); returns (input bytes done, output
/// bytes written). `out` must have 2 bytes per input byte plus
/// [`SLACK`]; bytes past the written count are scratch.
///
/// # Safety
/// The CPU must have AVX2 and POPCNT (`crate::cpu::has_avx2`).
#[target_feature(enable = "avx2,popcnt")]
pub unsafe fn latin1_to_utf8(
    to_latin1: &[u8; 256],
    input: &[u8],
    out: &mut [MaybeUninit<u8>],
) -> (usize, usize) {
    let rows = rows(to_latin1);
    let (c2, minus65, not_bit6) = (
        _mm256_set1_epi8(0xC2u8 as i8),
        _mm256_set1_epi8(-65),
        _mm256_set1_epi8(0xBFu8 as i8),
    );
    let (mut i, mut o) = (0, 0);
    // Each step writes at most 64 bytes, its last 16-byte store ending
    // at most 16 bytes past them.
    while i + 32 <= input.len() && o + 64 + SLACK <= out.len() {
        // SAFETY: i + 32 <= input.len() bounds the load.
        let x = unsafe { _mm256_loadu_si256(input.as_ptr().add(i).cast()) };
        let c = lookup(&rows, x);
        let non_ascii = _mm256_movemask_epi8(c) as u32;
        if non_ascii == 0 {
            // SAFETY: o + 32 <= out.len() (room checked above).
            unsafe { _mm256_storeu_si256(out.as_mut_ptr().add(o).cast(), c) };
            o += 32;
            i += 32;
            continue;
        }
        // Lead byte: the character itself when ASCII (bit 7 clear
        // selects `c` in the blend), else 0xC2, or 0xC3 from 0xC0 up
        // (signed: c > -65 holds for 0xC0..=0xFF, then minus -1).
        let l = _mm256_sub_epi8(c2, _mm256_cmpgt_epi8(c, minus65));
        let l = _mm256_blendv_epi8(c, l, c);
        // Continuation: 0x80 | c & 0x3F, which is c & 0xBF as bit 7 of
        // c is set (for ASCII it is dropped by the packing anyway).
        let t = _mm256_and_si256(c, not_bit6);
        // Per lane: pairs of bytes 0..7 (unpacklo) and 8..15 (unpackhi).
        let p_lo = _mm256_unpacklo_epi8(l, t);
        let p_hi = _mm256_unpackhi_epi8(l, t);
        let s_lo = _mm256_shuffle_epi8(p_lo, expand_mask(non_ascii, non_ascii >> 16));
        let s_hi = _mm256_shuffle_epi8(p_hi, expand_mask(non_ascii >> 8, non_ascii >> 24));
        let parts = [
            (_mm256_castsi256_si128(s_lo), non_ascii & 0xFF),
            (_mm256_castsi256_si128(s_hi), (non_ascii >> 8) & 0xFF),
            (_mm256_extracti128_si256(s_lo, 1), (non_ascii >> 16) & 0xFF),
            (_mm256_extracti128_si256(s_hi, 1), non_ascii >> 24),
        ];
        for (v, m) in parts {
            // SAFETY: o + 16 <= out.len(): o grows by at most 16 per
            // part from a start with 64 + SLACK bytes of room.
            unsafe { _mm_storeu_si128(out.as_mut_ptr().add(o).cast(), v) };
            o += 8 + m.count_ones() as usize;
        }
        i += 32;
    }
    (i, o)
}

/// UTF-8 → Latin-1 → `from_latin1` for whole 32-byte steps of `src`
/// starting in the first `limit` bytes, while a step holds only
/// ASCII and two-byte characters up to U+00FF (leads 0xC2, 0xC3);
/// returns (input bytes done, valid UTF-8 ending on a character
/// boundary; output bytes written). `out` should have `limit` bytes
/// plus [`SLACK`] (less room only stops it earlier).
///
/// # Safety
/// The CPU must have AVX2 and POPCNT (`crate::cpu::has_avx2`).
#[target_feature(enable = "avx2,popcnt")]
pub unsafe fn utf8_to_latin1_mapped(
    from_latin1: &[u8; 256],
    src: &[u8],
    limit: usize,
    out: &mut [MaybeUninit<u8>],
) -> (usize, usize) {
    let rows = rows(from_latin1);
    let (top2, lead2, cont1, low2, low6) = (
        _mm256_set1_epi8(0xC0u8 as i8),
        _mm256_set1_epi8(0xC2u8 as i8),
        _mm256_set1_epi8(0x80u8 as i8),
        _mm256_set1_epi8(0x03),
        _mm256_set1_epi8(0x3F),
    );
    let fe = _mm256_set1_epi8(0xFEu8 as i8);
    // A continuation byte first would belong to no lead: not for here.
    if src.first().is_some_and(|&b| b & 0xC0 == 0x80) {
        return (0, 0);
    }
    let (mut i, mut o) = (0, 0);
    // A step reads 33 bytes (the byte after it completes a lead in
    // its last position) and writes at most 32.
    while i < limit && i + 33 <= src.len() && o + 32 + SLACK <= out.len() {
        // SAFETY: i + 33 <= src.len() bounds the 32-byte load.
        let c = unsafe { _mm256_loadu_si256(src.as_ptr().add(i).cast()) };
        if _mm256_movemask_epi8(c) == 0 && src[i + 32] & 0xC0 != 0x80 {
            // All ASCII (common in text), and the next byte starts a
            // character: half the table, no packing.
            // SAFETY: o + 32 <= out.len() (room checked above).
            unsafe { _mm256_storeu_si256(out.as_mut_ptr().add(o).cast(), lookup_ascii(&rows, c)) };
            o += 32;
            i += 32;
            continue;
        }
        // SAFETY: i + 33 <= src.len() bounds the 32-byte load.
        let n = unsafe { _mm256_loadu_si256(src.as_ptr().add(i + 1).cast()) };
        // Leads of two-byte characters up to U+00FF are 0xC2/0xC3;
        // any other lead (0xC0 and up) ends the fast part.
        let is_lead = _mm256_cmpeq_epi8(_mm256_and_si256(c, fe), lead2);
        let any_lead = _mm256_cmpeq_epi8(_mm256_and_si256(c, top2), top2);
        let other_lead = _mm256_andnot_si256(is_lead, any_lead);
        // Valid UTF-8 here: a lead exactly where the next byte is a
        // continuation (so no lead lacks one and no continuation,
        // after the first byte, lacks a lead). Stop at any other lead
        // (the caller converts it) or invalid UTF-8 (the caller
        // reports it).
        let next_cont = _mm256_cmpeq_epi8(_mm256_and_si256(n, top2), cont1);
        let bad = _mm256_or_si256(other_lead, _mm256_xor_si256(is_lead, next_cont));
        if _mm256_movemask_epi8(bad) != 0 {
            break;
        }
        let is_cont = _mm256_cmpeq_epi8(_mm256_and_si256(c, top2), cont1);
        let value = _mm256_or_si256(
            _mm256_slli_epi16(_mm256_and_si256(c, low2), 6),
            _mm256_and_si256(n, low6),
        );
        let latin1 = _mm256_blendv_epi8(c, value, is_lead);
        let mapped = lookup(&rows, latin1);
        let drop = _mm256_movemask_epi8(is_cont) as u32;
        let k = |m: u32, add: u64| (COMPRESS[(m & 0xFF) as usize] + add) as i64;
        let shuffle = _mm256_set_epi64x(
            k(drop >> 24, 0x0808_0808_0808_0808),
            k(drop >> 16, 0),
            k(drop >> 8, 0x0808_0808_0808_0808),
            k(drop, 0),
        );
        let s = _mm256_shuffle_epi8(mapped, shuffle);
        let (s0, s1) = (_mm256_castsi256_si128(s), _mm256_extracti128_si256(s, 1));
        let parts = [
            (s0, drop & 0xFF),
            (_mm_unpackhi_epi64(s0, s0), (drop >> 8) & 0xFF),
            (s1, (drop >> 16) & 0xFF),
            (_mm_unpackhi_epi64(s1, s1), drop >> 24),
        ];
        for (v, m) in parts {
            // SAFETY: o + 8 <= out.len() for the 8-byte store: o grows
            // by at most 8 per part from a start with 32 + SLACK bytes
            // of room.
            unsafe { _mm_storel_epi64(out.as_mut_ptr().add(o).cast(), v) };
            o += 8 - m.count_ones() as usize;
        }
        i += 32;
    }
    // A step ending on a lead has already written that character; its
    // continuation byte, the first one not done, is skipped.
    if i > 0 && src.get(i).is_some_and(|&b| b & 0xC0 == 0x80) {
        i += 1;
    }
    (i, o)
}

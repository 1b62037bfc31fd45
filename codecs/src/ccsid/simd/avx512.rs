//! The AVX-512 kernels (x86_64 with AVX-512 F, BW, VBMI and VBMI2, BMI2 and
//! POPCNT, checked at run time by the caller, `crate::cpu`): 64
//! input bytes per step. A 256-entry table is four 64-byte registers, and a
//! lookup is two `vpermi2b` (entries 0-127 and 128-255, each indexed by the
//! byte's low seven bits) and one blend on the byte's bit 7. UTF-8 is
//! widened by interleaving lead and continuation bytes with `vpermt2b` and
//! dropping the continuations ASCII characters lack with `vpcompressb`, and
//! narrowed by dropping continuation bytes the same way. `vpcompressb` is
//! used in its register form and followed by a plain store: the form that
//! stores to memory is microcoded and slow on AMD Zen 4. The last step of an
//! input is a masked load (and, for the byte table, a masked store), so the
//! kernels leave no tail to a scalar loop except where the UTF-8 side stops.

use std::arch::x86_64::*;
use std::mem::MaybeUninit;

/// Room past the written output a kernel may store into (then cut): the
/// two 64-byte stores of one widening step.
pub const SLACK: usize = 128;

/// Lanes `0..n` of a 64-lane mask (all of them from `n` = 64 up).
#[target_feature(enable = "avx512f,avx512bw,avx512vbmi,avx512vbmi2,bmi2,popcnt")]
#[inline]
fn lanes_below(n: usize) -> u64 {
    // BZHI keeps bits below n, every bit for n >= 64 (n saturates at 255).
    _bzhi_u64(u64::MAX, n.min(255) as u32)
}

/// A 256-entry table as four registers of 64 entries.
#[target_feature(enable = "avx512f,avx512bw,avx512vbmi,avx512vbmi2,bmi2,popcnt")]
#[inline]
fn quarters(table: &[u8; 256]) -> [__m512i; 4] {
    // SAFETY: the load reads table[64k..64k + 64], k < 4: inside the table.
    std::array::from_fn(|k| unsafe { _mm512_loadu_si512(table.as_ptr().add(64 * k).cast()) })
}

/// `table[b]` for each of the 64 bytes `b` of `x`: `vpermi2b` reads the
/// low seven bits of each index, so one lookup covers entries 0-127 and one
/// 128-255, and bit 7 of the index picks between them.
#[target_feature(enable = "avx512f,avx512bw,avx512vbmi,avx512vbmi2,bmi2,popcnt")]
#[inline]
fn lookup(t: &[__m512i; 4], x: __m512i) -> __m512i {
    let low = _mm512_permutex2var_epi8(t[0], x, t[1]);
    let high = _mm512_permutex2var_epi8(t[2], x, t[3]);
    _mm512_mask_blend_epi8(_mm512_movepi8_mask(x), low, high)
}

/// [`lookup`] for 64 bytes that are all below 0x80: entries 0-127 only.
#[target_feature(enable = "avx512f,avx512bw,avx512vbmi,avx512vbmi2,bmi2,popcnt")]
#[inline]
fn lookup_ascii(t: &[__m512i; 4], x: __m512i) -> __m512i {
    _mm512_permutex2var_epi8(t[0], x, t[1])
}

/// Writes `table[input[i]]` to `out[i]` for every `i` below the shorter of
/// the two lengths; returns that length.
///
/// # Safety
/// The CPU must have the features `crate::cpu::has_avx512` checks.
#[target_feature(enable = "avx512f,avx512bw,avx512vbmi,avx512vbmi2,bmi2,popcnt")]
pub unsafe fn map_bytes(table: &[u8; 256], input: &[u8], out: &mut [MaybeUninit<u8>]) -> usize {
    let n = input.len().min(out.len());
    let t = quarters(table);
    let (src, dst) = (input.as_ptr(), out.as_mut_ptr());
    let mut i = 0;
    while i + 64 <= n {
        // SAFETY: i + 64 <= n <= input.len() and <= out.len(), so the
        // 64-byte unaligned load and store stay inside the slices.
        unsafe {
            let x = _mm512_loadu_si512(src.add(i).cast());
            _mm512_storeu_si512(dst.add(i).cast(), lookup(&t, x));
        }
        i += 64;
    }
    if i < n {
        let k = lanes_below(n - i);
        // SAFETY: the masked load and store touch only lanes below n - i,
        // bytes i..n of both slices (masked-off lanes are not accessed).
        unsafe {
            let x = _mm512_maskz_loadu_epi8(k, src.add(i).cast());
            _mm512_mask_storeu_epi8(dst.add(i).cast(), k, lookup(&t, x));
        }
    }
    n
}

/// `vpermt2b` indices that interleave bytes `k` of two registers (lead,
/// continuation) for `k` in `first..first + 32`.
const fn pairs(first: u8) -> [u8; 64] {
    let mut p = [0u8; 64];
    let mut k = 0;
    while k < 32 {
        p[2 * k] = first + k as u8;
        // Bit 6 of an index selects the second register.
        p[2 * k + 1] = 64 + first + k as u8;
        k += 1;
    }
    p
}

const PAIRS_LOW: [u8; 64] = pairs(0);
const PAIRS_HIGH: [u8; 64] = pairs(32);
/// Lead bytes (and ASCII characters) of interleaved pairs.
const EVEN: u64 = 0x5555_5555_5555_5555;
/// Continuation bytes of interleaved pairs.
const ODD: u64 = !EVEN;

/// Latin-1 → UTF-8 of `input` (bytes mapped through `to_latin1` first);
/// returns (input bytes done, output bytes written). Does everything when
/// `out` has 2 bytes per input byte plus [`SLACK`] (less room only stops
/// it earlier); bytes past the written count are scratch.
///
/// # Safety
/// The CPU must have the features `crate::cpu::has_avx512` checks.
#[target_feature(enable = "avx512f,avx512bw,avx512vbmi,avx512vbmi2,bmi2,popcnt")]
pub unsafe fn latin1_to_utf8(
    to_latin1: &[u8; 256],
    input: &[u8],
    out: &mut [MaybeUninit<u8>],
) -> (usize, usize) {
    let t = quarters(to_latin1);
    // SAFETY: both constants are 64 bytes, the size of the loads.
    let (pairs_low, pairs_high) = unsafe {
        (
            _mm512_loadu_si512(PAIRS_LOW.as_ptr().cast()),
            _mm512_loadu_si512(PAIRS_HIGH.as_ptr().cast()),
        )
    };
    let (c0, c2, c3, not_bit6) = (
        _mm512_set1_epi8(0xC0u8 as i8),
        _mm512_set1_epi8(0xC2u8 as i8),
        _mm512_set1_epi8(0xC3u8 as i8),
        _mm512_set1_epi8(0xBFu8 as i8),
    );
    let dst = out.as_mut_ptr();
    let (mut i, mut o) = (0, 0);
    // A step writes at most 128 bytes, as two 64-byte stores.
    while i < input.len() && o + 128 <= out.len() {
        let len = (input.len() - i).min(64);
        let valid = lanes_below(len);
        // SAFETY: the masked load reads only lanes below len, bytes
        // i..i + len of `input`.
        let x = unsafe { _mm512_maskz_loadu_epi8(valid, input.as_ptr().add(i).cast()) };
        let c = lookup(&t, x);
        let non_ascii = _mm512_movepi8_mask(c) & valid;
        if non_ascii == 0 {
            // SAFETY: o + 64 <= out.len() (room checked above).
            unsafe { _mm512_storeu_si512(dst.add(o).cast(), c) };
            o += len;
            i += len;
            continue;
        }
        // Lead byte: the character itself when ASCII, else 0xC2, or 0xC3
        // from U+00C0 up; continuation: 0x80 | c & 0x3F, which is c & 0xBF
        // as bit 7 of c is set (ASCII characters drop it below).
        let lead = _mm512_mask_blend_epi8(non_ascii, c, c2);
        let lead = _mm512_mask_blend_epi8(_mm512_cmpge_epu8_mask(c, c0), lead, c3);
        let cont = _mm512_and_si512(c, not_bit6);
        let halves = [
            (pairs_low, valid & 0xFFFF_FFFF, non_ascii & 0xFFFF_FFFF),
            (pairs_high, valid >> 32, non_ascii >> 32),
        ];
        for (pairs, valid, non_ascii) in halves {
            // Every valid character keeps its lead; non-ASCII ones also
            // their continuation.
            let keep = _pdep_u64(valid, EVEN) | _pdep_u64(non_ascii, ODD);
            let packed =
                _mm512_maskz_compress_epi8(keep, _mm512_permutex2var_epi8(lead, pairs, cont));
            // SAFETY: o + 64 <= out.len(): o grows by at most 64 after the
            // first store, from a start with 128 bytes of room.
            unsafe { _mm512_storeu_si512(dst.add(o).cast(), packed) };
            o += keep.count_ones() as usize;
        }
        i += len;
    }
    (i, o)
}

/// UTF-8 → Latin-1 → `from_latin1` for the steps of `src` that start in
/// the first `limit` bytes, while a step holds only ASCII and two-byte
/// characters up to U+00FF (leads 0xC2, 0xC3); returns (input bytes done,
/// valid UTF-8 ending on a character boundary; output bytes written).
/// `out` should have `limit` bytes plus [`SLACK`] (less room only stops it
/// earlier).
///
/// # Safety
/// The CPU must have the features `crate::cpu::has_avx512` checks.
#[target_feature(enable = "avx512f,avx512bw,avx512vbmi,avx512vbmi2,bmi2,popcnt")]
pub unsafe fn utf8_to_latin1_mapped(
    from_latin1: &[u8; 256],
    src: &[u8],
    limit: usize,
    out: &mut [MaybeUninit<u8>],
) -> (usize, usize) {
    let t = quarters(from_latin1);
    let (top2, lead2, cont1, low2, low6, fe) = (
        _mm512_set1_epi8(0xC0u8 as i8),
        _mm512_set1_epi8(0xC2u8 as i8),
        _mm512_set1_epi8(0x80u8 as i8),
        _mm512_set1_epi8(0x03),
        _mm512_set1_epi8(0x3F),
        _mm512_set1_epi8(0xFEu8 as i8),
    );
    let is_continuation = |b: u8| b & 0xC0 == 0x80;
    // A continuation byte first would belong to no lead: not for here.
    if src.first().is_some_and(|&b| is_continuation(b)) {
        return (0, 0);
    }
    let (p, dst) = (src.as_ptr(), out.as_mut_ptr());
    let (mut i, mut o) = (0, 0);
    // A step reads 64 bytes and the byte after them (which completes a
    // lead in the last position), and writes at most 64.
    while i < limit.min(src.len()) && o + 64 <= out.len() {
        let avail = src.len() - i;
        let len = avail.min(64);
        let valid = lanes_below(len);
        // The bytes one further on, up to the end of `src`.
        let next_valid = if avail > 64 { u64::MAX } else { valid >> 1 };
        // SAFETY: the masked loads read lanes below len of src[i..] and
        // below len or len - 1 of src[i + 1..] (len when avail > 64), all
        // inside `src`.
        let (c, n) = unsafe {
            (
                _mm512_maskz_loadu_epi8(valid, p.add(i).cast()),
                _mm512_maskz_loadu_epi8(next_valid, p.add(i + 1).cast()),
            )
        };
        if _mm512_movepi8_mask(c) == 0 && !src.get(i + 64).is_some_and(|&b| is_continuation(b)) {
            // All ASCII (common in text), and the next byte starts a
            // character: half the table, no packing.
            // SAFETY: o + 64 <= out.len() (room checked above).
            unsafe { _mm512_storeu_si512(dst.add(o).cast(), lookup_ascii(&t, c)) };
            o += len;
            i += len;
            continue;
        }
        // Leads of two-byte characters up to U+00FF are 0xC2/0xC3; any
        // other lead (0xC0 and up) ends the fast part. Valid UTF-8 here: a
        // lead exactly where the next byte is a continuation (so no lead
        // lacks one and no continuation, after the first byte, lacks a
        // lead). Lanes past the input are zero: neither.
        let is_lead = _mm512_cmpeq_epi8_mask(_mm512_and_si512(c, fe), lead2);
        let any_lead = _mm512_cmpeq_epi8_mask(_mm512_and_si512(c, top2), top2);
        let next_cont = _mm512_cmpeq_epi8_mask(_mm512_and_si512(n, top2), cont1);
        if (any_lead & !is_lead) | (is_lead ^ next_cont) != 0 {
            break;
        }
        let is_cont = _mm512_cmpeq_epi8_mask(_mm512_and_si512(c, top2), cont1);
        let value = _mm512_or_si512(
            _mm512_slli_epi16(_mm512_and_si512(c, low2), 6),
            _mm512_and_si512(n, low6),
        );
        let latin1 = _mm512_mask_blend_epi8(is_lead, c, value);
        let keep = valid & !is_cont;
        let packed = _mm512_maskz_compress_epi8(keep, lookup(&t, latin1));
        // SAFETY: o + 64 <= out.len() (room checked above).
        unsafe { _mm512_storeu_si512(dst.add(o).cast(), packed) };
        o += keep.count_ones() as usize;
        i += len;
    }
    // A step ending on a lead has already written that character; its
    // continuation byte, the first one not done, is skipped.
    if i > 0 && src.get(i).is_some_and(|&b| is_continuation(b)) {
        i += 1;
    }
    (i, o)
}

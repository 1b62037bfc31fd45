//! Bulk kernels for the single-byte hot paths (docs/ccsid.md benchmark): a
//! 256-entry byte table applied to a slice, single-byte → UTF-8 for sets
//! whose every byte is a Latin-1 character, and UTF-8 → single-byte for
//! sets that hold every Latin-1 character.
//!
//! On x86_64 with AVX2 and POPCNT (checked at run time) 32 input bytes are
//! handled per step: the table lookup is sixteen 16-entry `vpshufb`
//! lookups, one per high nibble, merged by a tree of blends; UTF-8 bytes
//! are widened or packed with shuffle masks from small constant tables,
//! and all-ASCII steps skip that. Output goes straight into the vector's
//! spare capacity. Every other target, and the tails shorter than a step,
//! use the scalar loops here; the tests compare both with plain references.
//! The `unsafe` is the AVX2 calls (after the run-time check), the unaligned
//! loads and stores (each bounded by a loop condition, stated next to it)
//! and `Vec::set_len` over bytes the kernel reports written.

/// Latin-1 character `c` as UTF-8: `(bytes, length)`, length 1 or 2.
#[inline]
fn latin1_utf8(c: u8) -> ([u8; 2], usize) {
    if c < 0x80 {
        ([c, 0], 1)
    } else {
        ([0xC0 | (c >> 6), 0x80 | (c & 0x3F)], 2)
    }
}

/// Appends `table[b]` for each byte `b` of `input` to `out`.
pub(crate) fn map_bytes(table: &[u8; 256], input: &[u8], out: &mut Vec<u8>) {
    #[cfg(target_arch = "x86_64")]
    if avx2::available() {
        let start = out.len();
        out.reserve(input.len());
        let spare = &mut out.spare_capacity_mut()[..input.len()];
        // SAFETY: AVX2 and POPCNT are present (checked just above).
        let done = unsafe { avx2::map_bytes(table, input, spare) };
        for (o, &b) in spare[done..].iter_mut().zip(&input[done..]) {
            o.write(table[usize::from(b)]);
        }
        // SAFETY: all input.len() reserved bytes after `start` are written:
        // [..done] by the kernel, the rest by the loop just above.
        unsafe { out.set_len(start + input.len()) };
        return;
    }
    map_bytes_scalar(table, input, out);
}

/// Scalar form of [`map_bytes`].
fn map_bytes_scalar(table: &[u8; 256], input: &[u8], out: &mut Vec<u8>) {
    out.extend(input.iter().map(|&b| table[usize::from(b)]));
}

/// Appends the UTF-8 of `input` to `out`, where `to_latin1[b]` is the
/// Latin-1 character (U+0000..U+00FF) of byte `b`.
pub(crate) fn latin1_to_utf8(to_latin1: &[u8; 256], input: &[u8], out: &mut Vec<u8>) {
    #[cfg(target_arch = "x86_64")]
    if avx2::available() {
        // Blocks bound the spare room reserved at once (2 bytes per input
        // byte at most, plus the 16 bytes a kernel store may run over).
        for block in input.chunks(64 * 1024) {
            let start = out.len();
            out.reserve(2 * block.len() + avx2::SLACK);
            // SAFETY: AVX2 and POPCNT are present (checked just above).
            let (done, written) =
                unsafe { avx2::latin1_to_utf8(to_latin1, block, out.spare_capacity_mut()) };
            // SAFETY: the kernel wrote the first `written` spare bytes.
            unsafe { out.set_len(start + written) };
            latin1_to_utf8_scalar(to_latin1, &block[done..], out);
        }
        return;
    }
    latin1_to_utf8_scalar(to_latin1, input, out);
}

/// Scalar form of [`latin1_to_utf8`].
fn latin1_to_utf8_scalar(to_latin1: &[u8; 256], input: &[u8], out: &mut Vec<u8>) {
    out.reserve(input.len() + input.len() / 4);
    for &b in input {
        let (u, n) = latin1_utf8(to_latin1[usize::from(b)]);
        out.extend_from_slice(&u[..n]);
    }
}

/// Appends to `out` `from_latin1[c]` for each character `c` of the longest
/// prefix of `src` that is valid UTF-8 made of U+0000..U+00FF only; returns
/// the length of that prefix (0 when the first character is above U+00FF
/// or `src` does not start with valid UTF-8). The caller converts the rest
/// or reports its error.
pub(crate) fn utf8_latin1_prefix(from_latin1: &[u8; 256], src: &[u8], out: &mut Vec<u8>) -> usize {
    #[cfg(target_arch = "x86_64")]
    if avx2::available() {
        let mut done = 0;
        loop {
            // Blocks bound the spare room reserved at once.
            let limit = (src.len() - done).min(64 * 1024);
            if limit == 0 {
                return done;
            }
            // The kernel reads one byte past each step, so it gets the
            // rest of `src` and stops after `limit` bytes.
            let rest = &src[done..];
            let start = out.len();
            out.reserve(limit + avx2::SLACK);
            // SAFETY: AVX2 and POPCNT are present (checked just above).
            let (used, written) = unsafe {
                avx2::utf8_to_latin1_mapped(from_latin1, rest, limit, out.spare_capacity_mut())
            };
            // SAFETY: the kernel wrote the first `written` spare bytes.
            unsafe { out.set_len(start + written) };
            let used = used
                + utf8_latin1_prefix_scalar(
                    from_latin1,
                    &rest[used..],
                    out,
                    limit.saturating_sub(used),
                );
            done += used;
            if used < limit {
                return done;
            }
        }
    }
    utf8_latin1_prefix_scalar(from_latin1, src, out, src.len())
}

/// Scalar form of [`utf8_latin1_prefix`] that stops at the first character
/// boundary at or after `limit`.
fn utf8_latin1_prefix_scalar(
    from_latin1: &[u8; 256],
    src: &[u8],
    out: &mut Vec<u8>,
    limit: usize,
) -> usize {
    let mut i = 0;
    while i < limit {
        match src.get(i..i + 2) {
            _ if src[i] < 0x80 => {
                out.push(from_latin1[usize::from(src[i])]);
                i += 1;
            }
            Some(&[l @ 0xC2..=0xC3, c @ 0x80..=0xBF]) => {
                out.push(from_latin1[usize::from(((l & 0x03) << 6) | (c & 0x3F))]);
                i += 2;
            }
            _ => break,
        }
    }
    i
}

#[cfg(target_arch = "x86_64")]
mod avx2 {
    use std::arch::x86_64::*;
    use std::mem::MaybeUninit;

    /// Whether the CPU has what the kernels use (AVX2, POPCNT).
    pub fn available() -> bool {
        std::is_x86_feature_detected!("avx2") && std::is_x86_feature_detected!("popcnt")
    }

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
        let w: [__m256i; 4] =
            std::array::from_fn(|k| _mm256_blendv_epi8(w[2 * k], w[2 * k + 1], b5));
        let b6 = _mm256_slli_epi16(x, 1);
        let w: [__m256i; 2] =
            std::array::from_fn(|k| _mm256_blendv_epi8(w[2 * k], w[2 * k + 1], b6));
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
        let w: [__m256i; 2] =
            std::array::from_fn(|k| _mm256_blendv_epi8(w[2 * k], w[2 * k + 1], b5));
        _mm256_blendv_epi8(w[0], w[1], _mm256_slli_epi16(x, 1))
    }

    /// Writes `table[input[i]]` to `out[i]` for whole 32-byte steps;
    /// returns how many bytes were done.
    ///
    /// # Safety
    /// The CPU must have AVX2 and POPCNT ([`available`]).
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
    /// The CPU must have AVX2 and POPCNT ([`available`]).
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
    /// The CPU must have AVX2 and POPCNT ([`available`]).
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
                unsafe {
                    _mm256_storeu_si256(out.as_mut_ptr().add(o).cast(), lookup_ascii(&rows, c))
                };
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
}

/// The bulk kernels (AVX2 where the CPU has it) against plain references:
/// every byte value, every start alignment within a 32-byte step, lengths
/// around the step size, block boundaries, and random tables and inputs.
#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    /// A permutation of the bytes (odd multiplier), unlike the identity.
    fn permutation() -> [u8; 256] {
        std::array::from_fn(|b| (b as u8).wrapping_mul(167).wrapping_add(13))
    }

    fn map_reference(table: &[u8; 256], input: &[u8]) -> Vec<u8> {
        input.iter().map(|&b| table[usize::from(b)]).collect()
    }

    /// UTF-8 of each byte's Latin-1 character, by `char::encode_utf8`.
    fn utf8_reference(to_latin1: &[u8; 256], input: &[u8]) -> Vec<u8> {
        input
            .iter()
            .map(|&b| char::from(to_latin1[usize::from(b)]))
            .collect::<String>()
            .into_bytes()
    }

    /// The longest valid UTF-8 prefix of characters up to U+00FF, by std.
    fn prefix_reference(from_latin1: &[u8; 256], src: &[u8]) -> (usize, Vec<u8>) {
        let valid = match std::str::from_utf8(src) {
            Ok(s) => s,
            Err(e) => std::str::from_utf8(&src[..e.valid_up_to()]).unwrap(),
        };
        let mut len = 0;
        let mut out = Vec::new();
        for c in valid.chars().take_while(|&c| u32::from(c) <= 0xFF) {
            len += c.len_utf8();
            out.push(from_latin1[u32::from(c) as usize]);
        }
        (len, out)
    }

    fn check_all(table: &[u8; 256], input: &[u8]) {
        let mut out = vec![0xEE];
        map_bytes(table, input, &mut out);
        assert_eq!(out[0], 0xEE, "existing output kept");
        assert_eq!(out[1..], map_reference(table, input)[..]);
        let mut out = vec![0xEE];
        latin1_to_utf8(table, input, &mut out);
        assert_eq!(out[1..], utf8_reference(table, input)[..]);
        let mut out = vec![0xEE];
        let (len, expected) = prefix_reference(table, input);
        assert_eq!(utf8_latin1_prefix(table, input, &mut out), len);
        assert_eq!(out[1..], expected[..]);
        // The scalar forms alone (what other CPUs run for everything).
        let mut out = Vec::new();
        map_bytes_scalar(table, input, &mut out);
        assert_eq!(out, map_reference(table, input));
        let mut out = Vec::new();
        latin1_to_utf8_scalar(table, input, &mut out);
        assert_eq!(out, utf8_reference(table, input));
        let mut out = Vec::new();
        assert_eq!(
            utf8_latin1_prefix_scalar(table, input, &mut out, input.len()),
            len
        );
        assert_eq!(out, expected);
    }

    #[test]
    fn every_byte_value_at_every_alignment_and_length() {
        let all: Vec<u8> = (0..=255u8).chain(0..=255u8).collect();
        for table in [permutation(), std::array::from_fn(|b| b as u8)] {
            for start in 0..32 {
                for len in (0..100).chain([255, 256 + 31, all.len() - start]) {
                    check_all(&table, &all[start..(start + len).min(all.len())]);
                }
            }
        }
    }

    #[test]
    fn utf8_of_every_latin1_character_at_every_alignment() {
        // Each character U+0000..U+00FF, so every two-byte sequence falls
        // on every position of a step, including its last (lead there,
        // continuation in the next step).
        let text: String = (0..=255u8).map(char::from).cycle().take(700).collect();
        let bytes = text.as_bytes();
        for start in (0..40).filter(|&s| text.is_char_boundary(s)) {
            for len in (0..100).chain([400, bytes.len() - start]) {
                let end = (start + len).min(bytes.len());
                check_all(&permutation(), &bytes[start..end]);
            }
        }
    }

    #[test]
    fn stops_at_characters_above_latin1_and_at_malformed_utf8() {
        // "€" (U+20AC) and "ア" (U+30A2) are above U+00FF; 0xFF, a lone
        // continuation and a lead lacking its continuation are malformed
        // (RFC 3629 §3).
        let base = "Price ± 5 é".repeat(8);
        let cases: Vec<Vec<u8>> = vec![
            format!("{base}€ rest").into_bytes(),
            format!("{base}ア").into_bytes(),
            [
                base.as_bytes(),
                &[0xFF],
                b"tail of text, more than 33 bytes long",
            ]
            .concat(),
            [
                base.as_bytes(),
                &[0x80],
                b"tail of text, more than 33 bytes long",
            ]
            .concat(),
            [
                base.as_bytes(),
                &[0xC3, 0x41],
                b"tail of text, more than 33 bytes long",
            ]
            .concat(),
            [&[0xA9][..], base.as_bytes()].concat(),
        ];
        for case in &cases {
            for start in 0..33 {
                check_all(&permutation(), &case[start.min(case.len())..]);
            }
        }
        let mut out = Vec::new();
        // The prefix ends right before "€": all of `base`.
        assert_eq!(
            utf8_latin1_prefix(&permutation(), &cases[0], &mut out),
            base.len()
        );
    }

    #[test]
    fn crosses_block_boundaries_mid_character() {
        // 64 KiB blocks; an odd number of ASCII bytes first puts a lead
        // byte of "é" (two bytes) on each block's last position.
        let text = format!("x{}", "é".repeat(100_000));
        check_all(&permutation(), text.as_bytes());
        let ebcdic: Vec<u8> = (0..=255u8).cycle().take(200_003).collect();
        check_all(&permutation(), &ebcdic);
    }

    #[cfg(target_arch = "x86_64")]
    #[test]
    fn the_avx2_kernels_run_where_the_cpu_has_avx2() {
        // So the comparisons above test the kernels, not only the scalar
        // tails: a 64-byte input is two whole steps.
        if !avx2::available() {
            println!("SKIP: no AVX2 on this CPU, the scalar paths were tested");
            return;
        }
        let input = [0x41u8; 64];
        let mut out = [std::mem::MaybeUninit::new(0u8); 64 + 2 * 64 + avx2::SLACK];
        // SAFETY: AVX2 and POPCNT are present (checked above).
        unsafe {
            assert_eq!(avx2::map_bytes(&permutation(), &input, &mut out), 64);
            assert_eq!(
                avx2::latin1_to_utf8(&permutation(), &input, &mut out),
                (64, 64)
            );
            let text = [b'a'; 65];
            assert_eq!(
                avx2::utf8_to_latin1_mapped(&permutation(), &text, 64, &mut out),
                (64, 64)
            );
        }
    }

    fn text_strategy() -> impl Strategy<Value = Vec<u8>> {
        let ch = prop_oneof![
            4 => 0x20u32..0x7F,
            2 => 0x80u32..0x100,
            1 => 0u32..0x20,
            1 => prop::sample::select(vec![0x20ACu32, 0x30A2, 0x1F600, 0x0101]),
        ];
        (
            proptest::collection::vec(ch, 0..200),
            any::<Option<(prop::sample::Index, u8)>>(),
        )
            .prop_map(|(chars, corrupt)| {
                let s: String = chars.into_iter().filter_map(char::from_u32).collect();
                let mut b = s.into_bytes();
                if let Some((at, v)) = corrupt
                    && !b.is_empty()
                {
                    let i = at.index(b.len());
                    b[i] = v;
                }
                b
            })
    }

    proptest! {
        #[test]
        fn random_tables_and_bytes_match_the_references(
            table in proptest::collection::vec(any::<u8>(), 256),
            input in proptest::collection::vec(any::<u8>(), 0..300),
            start in 0usize..32,
        ) {
            let table: [u8; 256] = table.try_into().unwrap();
            check_all(&table, &input[start.min(input.len())..]);
        }

        #[test]
        fn random_text_matches_the_references(
            table in proptest::collection::vec(any::<u8>(), 256),
            text in text_strategy(),
            start in 0usize..32,
        ) {
            let table: [u8; 256] = table.try_into().unwrap();
            check_all(&table, &text[start.min(text.len())..]);
        }
    }
}

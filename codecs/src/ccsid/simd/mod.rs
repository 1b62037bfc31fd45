//! Bulk kernels for the single-byte hot paths (docs/ccsid.md benchmark): a
//! 256-entry byte table applied to a slice, single-byte → UTF-8 for sets
//! whose every byte is a Latin-1 character, and UTF-8 → single-byte for
//! sets that hold every Latin-1 character.
//!
//! Which kernels run is decided at run time by what the CPU has
//! ([`crate::cpu`]): on x86_64 with AVX-512 (F, BW, VBMI, VBMI2) 64 input
//! bytes per step, where a 256-entry table lookup is two `vpermi2b` and a
//! blend ([`avx512`]); else with AVX2 32 bytes per step, the lookup built
//! from sixteen `vpshufb` ([`avx2`]); else, and on every other target, the
//! scalar loops here. Output goes straight into the vector's spare capacity.
//! The tests compare every level the CPU has with plain references.
//! The `unsafe` is the vector calls (after the run-time check), the
//! unaligned and masked loads and stores (each bounded by a loop condition
//! or mask, stated next to it) and `Vec::set_len` over bytes the kernel
//! reports written.

use std::mem::MaybeUninit;

use crate::cpu::{Kernels, Level};

#[cfg(target_arch = "x86_64")]
mod avx2;
#[cfg(target_arch = "x86_64")]
mod avx512;
#[cfg(test)]
mod tests;

/// Room past the written output any kernel may store into (then cut).
const SLACK: usize = 128;
#[cfg(target_arch = "x86_64")]
const _: () = assert!(SLACK >= avx2::SLACK && SLACK >= avx512::SLACK);

/// Output reserved at once is bounded by cutting the input into blocks.
const BLOCK: usize = 64 * 1024;

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
    map_bytes_with(Kernels::detect(), table, input, out);
}

/// [`map_bytes`] with the given kernels.
fn map_bytes_with(k: Kernels, table: &[u8; 256], input: &[u8], out: &mut Vec<u8>) {
    let start = out.len();
    out.reserve(input.len());
    let spare = &mut out.spare_capacity_mut()[..input.len()];
    let done = match k.level() {
        // SAFETY: a Kernels at this level exists only where the CPU has
        // its features (Kernels::at_most checked them).
        #[cfg(target_arch = "x86_64")]
        Level::Avx512 => unsafe { avx512::map_bytes(table, input, spare) },
        // SAFETY: as above.
        #[cfg(target_arch = "x86_64")]
        Level::Avx2 => unsafe { avx2::map_bytes(table, input, spare) },
        _ => 0,
    };
    for (o, &b) in spare[done..].iter_mut().zip(&input[done..]) {
        o.write(table[usize::from(b)]);
    }
    // SAFETY: all input.len() reserved bytes after `start` are written:
    // [..done] by the kernel, the rest by the loop just above.
    unsafe { out.set_len(start + input.len()) };
}

/// A kernel that widens Latin-1 to UTF-8 (see `avx512::latin1_to_utf8`).
type WidenKernel = unsafe fn(&[u8; 256], &[u8], &mut [MaybeUninit<u8>]) -> (usize, usize);

/// A kernel that narrows UTF-8 to single bytes (see
/// `avx512::utf8_to_latin1_mapped`).
type NarrowKernel = unsafe fn(&[u8; 256], &[u8], usize, &mut [MaybeUninit<u8>]) -> (usize, usize);

/// Appends the UTF-8 of `input` to `out`, where `to_latin1[b]` is the
/// Latin-1 character (U+0000..U+00FF) of byte `b`.
pub(crate) fn latin1_to_utf8(to_latin1: &[u8; 256], input: &[u8], out: &mut Vec<u8>) {
    latin1_to_utf8_with(Kernels::detect(), to_latin1, input, out);
}

/// [`latin1_to_utf8`] with the given kernels.
fn latin1_to_utf8_with(k: Kernels, to_latin1: &[u8; 256], input: &[u8], out: &mut Vec<u8>) {
    let kernel: WidenKernel = match k.level() {
        #[cfg(target_arch = "x86_64")]
        Level::Avx512 => avx512::latin1_to_utf8,
        #[cfg(target_arch = "x86_64")]
        Level::Avx2 => avx2::latin1_to_utf8,
        _ => return latin1_to_utf8_scalar(to_latin1, input, out),
    };
    // Blocks bound the spare room reserved at once (2 bytes per input byte
    // at most, plus what a kernel store may run over).
    for block in input.chunks(BLOCK) {
        let start = out.len();
        out.reserve(2 * block.len() + SLACK);
        // SAFETY: `kernel` is of the level `k` holds, whose features the
        // CPU has (Kernels::at_most checked them).
        let (done, written) = unsafe { kernel(to_latin1, block, out.spare_capacity_mut()) };
        // SAFETY: the kernel wrote the first `written` spare bytes.
        unsafe { out.set_len(start + written) };
        latin1_to_utf8_scalar(to_latin1, &block[done..], out);
    }
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
    utf8_latin1_prefix_with(Kernels::detect(), from_latin1, src, out)
}

/// [`utf8_latin1_prefix`] with the given kernels.
fn utf8_latin1_prefix_with(
    k: Kernels,
    from_latin1: &[u8; 256],
    src: &[u8],
    out: &mut Vec<u8>,
) -> usize {
    let kernel: NarrowKernel = match k.level() {
        #[cfg(target_arch = "x86_64")]
        Level::Avx512 => avx512::utf8_to_latin1_mapped,
        #[cfg(target_arch = "x86_64")]
        Level::Avx2 => avx2::utf8_to_latin1_mapped,
        _ => return utf8_latin1_prefix_scalar(from_latin1, src, out, src.len()),
    };
    let mut done = 0;
    loop {
        // Blocks bound the spare room reserved at once.
        let limit = (src.len() - done).min(BLOCK);
        if limit == 0 {
            return done;
        }
        // The kernel reads one byte past each step, so it gets the rest of
        // `src` and stops after the step that reaches `limit`.
        let rest = &src[done..];
        let start = out.len();
        out.reserve(limit + SLACK);
        // SAFETY: `kernel` is of the level `k` holds, whose features the
        // CPU has (Kernels::at_most checked them).
        let (used, written) = unsafe { kernel(from_latin1, rest, limit, out.spare_capacity_mut()) };
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

//! The bulk kernels at every level this CPU has (AVX-512, AVX2, scalar)
//! against plain references built from std (`char::encode_utf8`,
//! `str::from_utf8`): every byte value at every start alignment within a
//! 64-byte step, lengths around the 32- and 64-byte step sizes, block
//! boundaries, every generated single-byte table the kernels serve, and
//! random tables and inputs.

use super::*;
use crate::ccsid::sbcs::{Composed, SbcsCodec};
use crate::ccsid::tables;
use crate::cpu::levels;
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

/// `map_bytes` at level `k` against the reference; output already in the
/// vector is kept.
fn check_map(k: Kernels, table: &[u8; 256], input: &[u8]) {
    let mut out = vec![0xEE];
    map_bytes_with(k, table, input, &mut out);
    assert_eq!(out[0], 0xEE, "existing output kept ({k:?})");
    assert_eq!(out[1..], map_reference(table, input)[..], "{k:?}");
}

/// `latin1_to_utf8` at level `k` against the reference.
fn check_widen(k: Kernels, to_latin1: &[u8; 256], input: &[u8]) {
    let mut out = vec![0xEE];
    latin1_to_utf8_with(k, to_latin1, input, &mut out);
    assert_eq!(out[0], 0xEE, "existing output kept ({k:?})");
    assert_eq!(out[1..], utf8_reference(to_latin1, input)[..], "{k:?}");
}

/// `utf8_latin1_prefix` at level `k` against the reference.
fn check_narrow(k: Kernels, from_latin1: &[u8; 256], src: &[u8]) {
    let (len, expected) = prefix_reference(from_latin1, src);
    let mut out = vec![0xEE];
    assert_eq!(
        utf8_latin1_prefix_with(k, from_latin1, src, &mut out),
        len,
        "{k:?}"
    );
    assert_eq!(out[1..], expected[..], "{k:?}");
}

/// All three kernels at every level, on `input` as bytes and as UTF-8.
fn check_all(table: &[u8; 256], input: &[u8]) {
    for k in levels() {
        check_map(k, table, input);
        check_widen(k, table, input);
        check_narrow(k, table, input);
    }
}

/// The lengths tried from each start: every length up to past two 64-byte
/// steps, around the larger multiples of 32 and 64, and the whole rest.
fn lengths(rest: usize) -> impl Iterator<Item = usize> {
    (0..=140)
        .chain([191, 192, 193, 255, 256, 257, 319, 320, 321, rest])
        .map(move |l| l.min(rest))
}

#[test]
fn every_byte_value_at_every_alignment_and_length() {
    let all: Vec<u8> = (0..=255u8).chain(0..=255u8).collect();
    for table in [permutation(), std::array::from_fn(|b| b as u8)] {
        for start in 0..64 {
            for len in lengths(all.len() - start) {
                check_all(&table, &all[start..start + len]);
            }
        }
    }
}

#[test]
fn utf8_of_every_latin1_character_at_every_alignment() {
    // Each character U+0000..U+00FF, so every two-byte sequence falls on
    // every position of a step, including its last (lead there,
    // continuation in the next step).
    let text: String = (0..=255u8).map(char::from).cycle().take(700).collect();
    let bytes = text.as_bytes();
    for start in (0..72).filter(|&s| text.is_char_boundary(s)) {
        for len in lengths(bytes.len() - start) {
            check_all(&permutation(), &bytes[start..start + len]);
        }
    }
}

/// Every byte value twice, so each one meets every lane from any start.
fn all_bytes() -> Vec<u8> {
    (0..=255u8).chain(0..=255u8).collect()
}

/// The UTF-8 of U+0000..U+00FF, twice.
fn all_latin1_utf8() -> Vec<u8> {
    (0..=255u8)
        .chain(0..=255u8)
        .map(char::from)
        .collect::<String>()
        .into_bytes()
}

#[test]
fn every_generated_table_the_kernels_serve() {
    // The tables of the CCSIDs with a Latin-1 character for every byte (the
    // bulk path to UTF-8) and a byte for every Latin-1 character (from
    // UTF-8), with and without the NL_TO_LF swap, at every level: every
    // byte value (and every Latin-1 character) at every start in a step.
    let (bytes, utf8) = (all_bytes(), all_latin1_utf8());
    let mut served = (0, 0);
    for t in tables::ALL {
        for swap in [false, true] {
            let codec = SbcsCodec::new(t, swap);
            for k in levels() {
                for start in 0..64 {
                    if let Some(to_latin1) = &codec.byte_to_latin1 {
                        check_widen(k, to_latin1, &bytes[start..]);
                    }
                    if let Some(from_latin1) = &codec.latin1_to_byte {
                        let s = (start..).find(|&s| utf8[s] & 0xC0 != 0x80).unwrap();
                        check_narrow(k, from_latin1, &utf8[s..]);
                    }
                }
            }
            served.0 += usize::from(codec.byte_to_latin1.is_some());
            served.1 += usize::from(codec.latin1_to_byte.is_some());
        }
    }
    // CCSID 037 maps its 256 bytes one to one onto U+0000..U+00FF (ICU's
    // ibm-37_P100-1995, the generated table), so both directions serve it
    // under both newline policies: neither count can be below 2.
    let c37 = SbcsCodec::new(&tables::CCSID_37, false);
    assert!(c37.byte_to_latin1.is_some() && c37.latin1_to_byte.is_some());
    assert!(served.0 >= 2 && served.1 >= 2, "{served:?}");
}

#[test]
fn every_composed_table_through_037_and_819() {
    // The direct single-byte path: each generated table to 037 and to 819
    // (ISO 8859-1), and 037 to each, at every level and start.
    let bytes = all_bytes();
    let c37 = || SbcsCodec::new(&tables::CCSID_37, false);
    let c819 = || SbcsCodec::new(&tables::CCSID_819, false);
    for t in tables::ALL {
        let maps = [
            Composed::new(SbcsCodec::new(t, false), &c37()).map,
            Composed::new(SbcsCodec::new(t, false), &c819()).map,
            Composed::new(c37(), &SbcsCodec::new(t, false)).map,
        ];
        for map in &maps {
            for k in levels() {
                for start in 0..64 {
                    check_map(k, map, &bytes[start..]);
                }
            }
        }
    }
}

#[test]
fn stops_at_characters_above_latin1_and_at_malformed_utf8() {
    // "€" (U+20AC) and "ア" (U+30A2) are above U+00FF; 0xFF, a lone
    // continuation and a lead lacking its continuation are malformed
    // (RFC 3629 §3).
    let base = "Price ± 5 é".repeat(8);
    let tail = b"tail of text, more than sixty-five bytes long so a whole step follows";
    let cases: Vec<Vec<u8>> = vec![
        format!("{base}€ rest").into_bytes(),
        format!("{base}ア").into_bytes(),
        [base.as_bytes(), &[0xFF], tail].concat(),
        [base.as_bytes(), &[0x80], tail].concat(),
        [base.as_bytes(), &[0xC3, 0x41], tail].concat(),
        [base.as_bytes(), &[0xC3]].concat(),
        [&[0xA9][..], base.as_bytes()].concat(),
    ];
    for case in &cases {
        for start in 0..65 {
            check_all(&permutation(), &case[start.min(case.len())..]);
        }
    }
    for k in levels() {
        let mut out = Vec::new();
        // The prefix ends right before "€": all of `base`.
        assert_eq!(
            utf8_latin1_prefix_with(k, &permutation(), &cases[0], &mut out),
            base.len()
        );
    }
}

#[test]
fn crosses_block_boundaries_mid_character() {
    // 64 KiB blocks; an odd number of ASCII bytes first puts a lead byte
    // of "é" (two bytes) on each block's last position.
    let text = format!("x{}", "é".repeat(100_000));
    check_all(&permutation(), text.as_bytes());
    let ebcdic: Vec<u8> = (0..=255u8).cycle().take(200_003).collect();
    check_all(&permutation(), &ebcdic);
}

#[cfg(target_arch = "x86_64")]
#[test]
fn the_vector_kernels_run_where_the_cpu_has_them() {
    // So the comparisons above test the kernels, not only the scalar
    // tails: each kernel the CPU has takes two whole steps itself; a CPU
    // without one gets the next level down.
    let input = [0x41u8; 128];
    let text = [b'a'; 129];
    let mut out = [MaybeUninit::new(0u8); 3 * 128 + SLACK];
    if crate::cpu::has_avx512() {
        assert_eq!(Kernels::detect().level(), Level::Avx512);
        // SAFETY: the CPU has the AVX-512 kernels' features (checked).
        unsafe {
            assert_eq!(avx512::map_bytes(&permutation(), &input, &mut out), 128);
            assert_eq!(
                avx512::latin1_to_utf8(&permutation(), &input, &mut out),
                (128, 128)
            );
            assert_eq!(
                avx512::utf8_to_latin1_mapped(&permutation(), &text, 128, &mut out),
                (128, 128)
            );
        }
    } else {
        assert!(Kernels::detect().level() < Level::Avx512);
    }
    if crate::cpu::has_avx2() {
        assert!(Kernels::detect().level() >= Level::Avx2);
        assert_eq!(Kernels::at_most(Level::Avx2).level(), Level::Avx2);
        // SAFETY: the CPU has AVX2 and POPCNT (checked).
        unsafe {
            assert_eq!(avx2::map_bytes(&permutation(), &input, &mut out), 128);
            assert_eq!(
                avx2::latin1_to_utf8(&permutation(), &input, &mut out),
                (128, 128)
            );
            assert_eq!(
                avx2::utf8_to_latin1_mapped(&permutation(), &text, 128, &mut out),
                (128, 128)
            );
        }
    } else {
        assert_eq!(Kernels::detect().level(), Level::Scalar);
    }
    assert_eq!(Kernels::at_most(Level::Scalar).level(), Level::Scalar);
}

fn text_strategy() -> impl Strategy<Value = Vec<u8>> {
    let ch = prop_oneof![
        4 => 0x20u32..0x7F,
        2 => 0x80u32..0x100,
        1 => 0u32..0x20,
        1 => prop::sample::select(vec![0x20ACu32, 0x30A2, 0x1F600, 0x0101]),
    ];
    (
        proptest::collection::vec(ch, 0..300),
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
        start in 0usize..64,
    ) {
        let table: [u8; 256] = table.try_into().unwrap();
        check_all(&table, &input[start.min(input.len())..]);
    }

    #[test]
    fn random_text_matches_the_references(
        table in proptest::collection::vec(any::<u8>(), 256),
        text in text_strategy(),
        start in 0usize..64,
    ) {
        let table: [u8; 256] = table.try_into().unwrap();
        check_all(&table, &text[start.min(text.len())..]);
    }
}

//! Property tests for the mixed single/double-byte EBCDIC CCSIDs: no input
//! makes them panic, errors point into the input, decoded text round-trips,
//! and encoded output is always well-formed SO/SI.

use mqgate_codecs::ccsid::{
    Ccsid, ConvertError, NewlinePolicy, OnUnmappable, Options, convert, decode, encode,
};
use proptest::prelude::*;

const MIXED: [i32; 9] = [930, 939, 1390, 1399, 935, 1388, 937, 933, 1364];

fn mixed() -> impl Strategy<Value = i32> {
    proptest::sample::select(MIXED.to_vec())
}

fn options() -> impl Strategy<Value = Options> {
    (
        prop_oneof![
            Just(NewlinePolicy::NlToLf),
            Just(NewlinePolicy::Table),
            Just(NewlinePolicy::Iso)
        ],
        prop_oneof![Just(OnUnmappable::Fail), Just(OnUnmappable::Substitute)],
    )
        .prop_map(|(newline, on_unmappable)| Options {
            newline,
            on_unmappable,
        })
}

/// Bytes that look like mixed EBCDIC: shifts are frequent, and pairs in the
/// double-byte range common.
fn ebcdic_bytes() -> impl Strategy<Value = Vec<u8>> {
    proptest::collection::vec(
        prop_oneof![
            3 => any::<u8>(),
            1 => Just(0x0Eu8),
            1 => Just(0x0Fu8),
            2 => 0x41u8..=0x7F,
        ],
        0..200,
    )
}

/// Text with ASCII, newlines, kana, kanji, hangul, hanzi, supplementary
/// characters and the combining mark of the 1390 sequences.
fn text() -> impl Strategy<Value = String> {
    proptest::collection::vec(
        prop_oneof![
            any::<char>(),
            proptest::char::range(' ', '~'),
            Just('\n'),
            Just('\u{85}'),
            proptest::char::range('\u{3041}', '\u{30FF}'),
            Just('\u{309A}'),
            proptest::char::range('\u{4E00}', '\u{9FFF}'),
            proptest::char::range('\u{AC00}', '\u{D7A3}'),
            proptest::char::range('\u{20000}', '\u{2A6DF}'),
        ],
        0..80,
    )
    .prop_map(|v| v.into_iter().collect())
}

/// True when `bytes` is well-formed mixed EBCDIC as mqgate writes it: SO
/// only outside a run, SI only inside one, every run non-empty with an even
/// length, and the output ends outside a run.
fn well_formed(bytes: &[u8]) -> bool {
    let mut i = 0;
    while i < bytes.len() {
        if bytes[i] == 0x0F {
            return false;
        }
        if bytes[i] == 0x0E {
            let Some(end) = bytes[i + 1..].iter().position(|&b| b == 0x0F) else {
                return false;
            };
            let run = &bytes[i + 1..i + 1 + end];
            if run.is_empty() || !run.len().is_multiple_of(2) || run.contains(&0x0E) {
                return false;
            }
            i += end + 2;
        } else {
            i += 1;
        }
    }
    true
}

proptest! {
    #[test]
    fn arbitrary_bytes_never_panic(
        input in ebcdic_bytes(),
        from in mixed(),
        to in prop_oneof![mixed(), Just(1208), Just(37), Just(1200), Just(943)],
        o in options(),
    ) {
        let (f, t) = (Ccsid::new(from).unwrap(), Ccsid::new(to).unwrap());
        match decode(&input, f, &o) {
            Ok(d) => {
                if o.on_unmappable == OnUnmappable::Fail {
                    prop_assert_eq!(d.substitutions, 0);
                }
            }
            Err(ConvertError::Invalid { ccsid, offset, byte }) => {
                prop_assert_eq!(i32::from(ccsid), from);
                prop_assert_eq!(input.get(offset), Some(&byte));
                prop_assert_eq!(o.on_unmappable, OnUnmappable::Fail);
            }
            Err(e) => prop_assert!(false, "unexpected {:?}", e),
        }
        match convert(&input, f, t, &o) {
            Ok(_) => {}
            Err(ConvertError::Invalid { offset, byte, .. }) => {
                prop_assert_eq!(input.get(offset), Some(&byte));
            }
            Err(ConvertError::Unmappable { offset, .. }) => prop_assert!(offset < input.len()),
            Err(e) => prop_assert!(false, "unexpected {:?}", e),
        }
    }

    #[test]
    fn decoded_text_round_trips(input in ebcdic_bytes(), ccsid in mixed(), o in options()) {
        let c = Ccsid::new(ccsid).unwrap();
        let sub = Options { on_unmappable: OnUnmappable::Substitute, ..o };
        let text = decode(&input, c, &sub).unwrap().text;
        // What the set decoded it can write back, and read to the same text
        // (U+FFFD from a substitution is written as the subchar, which is
        // not itself a character: leave those texts out).
        if !text.contains('\u{FFFD}') {
            let bytes = encode(&text, c, &o).unwrap().bytes;
            prop_assert!(well_formed(&bytes), "{:02X?}", bytes);
            prop_assert_eq!(decode(&bytes, c, &o).unwrap().text, text);
        }
    }

    #[test]
    fn encoding_any_text_is_well_formed(text in text(), ccsid in mixed(), o in options()) {
        let c = Ccsid::new(ccsid).unwrap();
        match encode(&text, c, &o) {
            Ok(e) => {
                prop_assert!(well_formed(&e.bytes), "{:02X?}", e.bytes);
                // Whatever was written decodes without error (one-way ICU
                // fallbacks may read back as another character), and that
                // text is written back the same way.
                let back = decode(&e.bytes, c, &o).unwrap().text;
                let again = encode(&back, c, &o).unwrap().bytes;
                prop_assert_eq!(decode(&again, c, &o).unwrap().text, back);
            }
            Err(ConvertError::Unmappable { ccsid: n, offset, ch }) => {
                prop_assert_eq!(i32::from(n), ccsid);
                prop_assert_eq!(text[offset..].chars().next(), Some(ch));
                prop_assert_eq!(o.on_unmappable, OnUnmappable::Fail);
            }
            Err(e) => prop_assert!(false, "unexpected {:?}", e),
        }
    }
}

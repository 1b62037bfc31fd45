//! Where a conversion error points. docs/ccsid.md: an error names "the byte
//! offset in the input" of the byte or character at fault; this file checks
//! that, for random bytes in every supported CCSID (the single-byte sets,
//! mixed EBCDIC 930/933/935/937/939/1364/1388/1390/1399, the ASCII-based CJK
//! sets 932/943/949/950/954/970/1381/1386/1392/5050/5488 and UTF-8/UTF-16),
//! the offset is inside the input and is where the offending character
//! starts:
//!
//! - `offset < input.len()`;
//! - the input before it converts without error (the error is the first in
//!   input order, and the offset does not fall inside a character);
//! - `Invalid` names the byte found there; `Truncated` is the last byte of
//!   an odd-length UTF-16 input; `UnpairedSurrogate` names the code unit
//!   found there, at an even offset;
//! - `Unmappable`: for a source without shift state (all but mixed EBCDIC)
//!   the character named is among the first two the input decodes to from
//!   that offset (two, because Big5 0x88 0x62 makes U+00CA U+0304, WHATWG
//!   Encoding Standard "index Big5").

use mqgate_codecs::ccsid::{
    Ccsid, ConvertError, NewlinePolicy, OnUnmappable, Options, StreamConverter, convert, decode,
    encode, supported,
};
use proptest::prelude::*;

const FAIL: Options = Options {
    newline: NewlinePolicy::Table,
    on_unmappable: OnUnmappable::Fail,
};

fn c(n: i32) -> Ccsid {
    Ccsid::new(n).unwrap()
}

/// Checks the error `e` of converting `input` from `from` to `to` (or of
/// decoding it, `to` = None) against the rules above.
fn check(
    e: &ConvertError,
    input: &[u8],
    from: Ccsid,
    to: Option<Ccsid>,
    o: &Options,
) -> Result<(), String> {
    let Some(at) = e.offset() else {
        return Err(format!(
            "{e}: a supported pair gave an error with no offset"
        ));
    };
    if at >= input.len() {
        return Err(format!(
            "{e}: offset {at} outside the {}-byte input",
            input.len()
        ));
    }
    let prefix = match to {
        Some(to) => convert(&input[..at], from, to, o).map(|_| ()),
        None => decode(&input[..at], from, o).map(|_| ()),
    };
    if let Err(p) = prefix {
        return Err(format!("{e}: the {at} bytes before it fail too: {p}"));
    }
    match *e {
        ConvertError::Invalid { byte, .. } if byte != input[at] => {
            Err(format!("{e}: the byte there is 0x{:02X}", input[at]))
        }
        ConvertError::Truncated { .. } if at + 1 != input.len() || at % 2 != 0 => Err(format!(
            "{e}: not the lone last byte of {} bytes",
            input.len()
        )),
        ConvertError::UnpairedSurrogate { unit, .. } => {
            let pair = [input[at], input.get(at + 1).copied().unwrap_or(0)];
            let found = if from.name() == "UTF-16LE" {
                u16::from_le_bytes(pair)
            } else {
                u16::from_be_bytes(pair)
            };
            if at % 2 != 0 || unit != found || !(0xD800..=0xDFFF).contains(&unit) {
                Err(format!("{e}: the code unit there is U+{found:04X}"))
            } else {
                Ok(())
            }
        }
        ConvertError::Unmappable { ch, .. } if from.dbcs_table().is_none() => {
            let lossy = Options {
                on_unmappable: OnUnmappable::Substitute,
                ..*o
            };
            let rest = decode(&input[at..], from, &lossy).map_err(|d| d.to_string())?;
            if rest.text.chars().take(2).any(|x| x == ch) {
                Ok(())
            } else {
                Err(format!(
                    "{e}: the input there decodes to {:?}",
                    rest.text.chars().take(2).collect::<String>()
                ))
            }
        }
        _ => Ok(()),
    }
}

/// The reported tester's case: `printf 'b\x88b' | mqgate convert --from 950
/// --to 1026` named offset 3 of a 3-byte input. Big5 0x88 0x62 is U+00CA
/// U+0304 (WHATWG "index Big5", pointer 1133); EBCDIC 1026 has Ê but no
/// U+0304 (ICU ibm-1026), so the error is at offset 1, where 0x88 starts.
#[test]
fn big5_two_character_sequence_is_named_at_its_first_byte() {
    let input = b"b\x88b";
    let e = convert(input, c(950), c(1026), &FAIL).unwrap_err();
    assert_eq!(
        e,
        ConvertError::Unmappable {
            ccsid: 1026,
            offset: 1,
            ch: '\u{304}'
        }
    );
    check(&e, input, c(950), Some(c(1026)), &FAIL).unwrap();
}

/// One malformed or unmappable character per multi-byte family, each named
/// at its first byte (expected values: WHATWG Encoding Standard decoders for
/// the CJK sets, RFC 3629 for UTF-8, RFC 2781 for UTF-16, ICU tables for
/// EBCDIC 037 and mixed EBCDIC 930).
#[test]
fn errors_name_the_first_byte_of_the_character() {
    let cases: [(&[u8], i32, i32, usize); 9] = [
        // Shift_JIS 0x82 0xA0 is not assigned: offset of the lead, 1.
        (b"a\x85\x40", 943, 1208, 1),
        // Shift_JIS 日 (0x93 0xFA) is not in 037: offset 1.
        (b"a\x93\xFAb", 932, 37, 1),
        // EUC-KR lead 0xB0 at the end: truncated sequence at offset 2.
        (b"ab\xB0", 949, 1208, 2),
        // GBK lead 0x81 followed by 0x20 (not a trail): offset 1.
        (b"a\x81 b", 1386, 1208, 1),
        // GB18030 Ⅰ (0xA2 0xF1, U+2160) is not in 037: offset 1.
        (b"a\xA2\xF1", 5488, 37, 1),
        // UTF-8 € (E2 82 AC) not in 037: offset 1; a truncated E2 82: offset 1.
        (b"a\xE2\x82\xAC", 1208, 37, 1),
        (b"a\xE2\x82", 1208, 37, 1),
        // UTF-16BE: "a" then a lone low surrogate DC00 at offset 2.
        (b"\x00a\xDC\x00", 1200, 37, 2),
        // Mixed EBCDIC 930: "A", SO, α (0x41 0x41, U+03B1 in ICU ibm-930),
        // SI; 037 has no α: offset 2, the pair's first byte.
        (b"\xC1\x0E\x41\x41\x0F", 930, 37, 2),
    ];
    for (input, from, to, at) in cases {
        let e = convert(input, c(from), c(to), &FAIL).unwrap_err();
        assert_eq!(e.offset(), Some(at), "{from} -> {to} {input:02X?}: {e}");
        check(&e, input, c(from), Some(c(to)), &FAIL)
            .unwrap_or_else(|m| panic!("{from} -> {to}: {m}"));
    }
}

/// Bytes that make multi-byte sequences likely: ASCII, SO/SI, UTF-8 leads
/// and continuations, CJK leads and trails, GB18030 digits, surrogate halves.
fn byte() -> impl Strategy<Value = u8> {
    prop_oneof![
        proptest::sample::select(vec![
            0x00, 0x0E, 0x0F, 0x20, 0x30, 0x35, 0x40, 0x41, 0x62, 0x80, 0x81, 0x82, 0x88, 0x8E,
            0x8F, 0x93, 0xA1, 0xAC, 0xB0, 0xC3, 0xD8, 0xDC, 0xE2, 0xF0, 0x9F, 0xFA, 0xFE, 0xFF
        ]),
        any::<u8>(),
    ]
}

fn any_ccsid() -> impl Strategy<Value = Ccsid> {
    let list: Vec<i32> = supported().into_iter().map(i32::from).collect();
    (proptest::sample::select(list), any::<bool>())
        .prop_map(|(n, little)| Ccsid::with_encoding(n, if little { 546 } else { 273 }).unwrap())
}

fn policy() -> impl Strategy<Value = NewlinePolicy> {
    proptest::sample::select(vec![
        NewlinePolicy::NlToLf,
        NewlinePolicy::Table,
        NewlinePolicy::Iso,
    ])
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(4000))]

    #[test]
    fn every_error_offset_is_where_a_character_starts_inside_the_input(
        input in proptest::collection::vec(byte(), 0..40),
        from in any_ccsid(),
        to in any_ccsid(),
        newline in policy(),
        cut in 0usize..40,
    ) {
        let o = Options { newline, on_unmappable: OnUnmappable::Fail };
        if let Err(e) = convert(&input, from, to, &o)
            && let Err(m) = check(&e, &input, from, Some(to), &o)
        {
            prop_assert!(false, "{} -> {}: {}", from.number(), to.number(), m);
        }
        if let Err(e) = decode(&input, from, &o)
            && let Err(m) = check(&e, &input, from, None, &o)
        {
            prop_assert!(false, "decode {}: {}", from.number(), m);
        }
        // The same in two blocks (the stream names offsets in the whole input).
        let mut s = StreamConverter::new(from, to, &o);
        let mut out = Vec::new();
        let cut = cut.min(input.len());
        let r = s
            .feed(&input[..cut], &mut out)
            .and_then(|()| s.feed(&input[cut..], &mut out))
            .and_then(|()| s.finish(&mut out));
        if let Err(e) = r
            && let Err(m) = check(&e, &input, from, Some(to), &o)
        {
            prop_assert!(false, "stream {} -> {}: {}", from.number(), to.number(), m);
        }
    }

    #[test]
    fn every_encode_error_offset_is_a_character_of_the_text(
        text in "\\PC{0,20}",
        to in any_ccsid(),
    ) {
        if let Err(e) = encode(&text, to, &FAIL) {
            let Some(at) = e.offset() else {
                return Err(TestCaseError::fail(format!("{e}: no offset")));
            };
            prop_assert!(at < text.len() && text.is_char_boundary(at), "{}", e);
            if let ConvertError::Unmappable { ch, .. } = e {
                prop_assert_eq!(text[at..].chars().next(), Some(ch));
            }
        }
    }
}

//! `StreamConverter`: a stream converted block by block gives what
//! `convert` gives on the whole input (bytes, substitution count, first
//! error), for every place a block can end, with offsets counted from the
//! start of the stream; and the one-buffer fixes this needed (the first
//! error in input order; an offset inside the input for a CJK sequence that
//! makes two characters).

use mqgate_codecs::ccsid::{
    Ccsid, ConvertError, NewlinePolicy, OnUnmappable, Options, StreamConverter, convert, encode,
    supported,
};
use proptest::prelude::*;

type Outcome = Result<(Vec<u8>, usize), ConvertError>;

const FAIL: Options = Options {
    newline: NewlinePolicy::NlToLf,
    on_unmappable: OnUnmappable::Fail,
};
const SUBSTITUTE: Options = Options {
    newline: NewlinePolicy::NlToLf,
    on_unmappable: OnUnmappable::Substitute,
};

fn c(n: i32) -> Ccsid {
    Ccsid::new(n).unwrap()
}

fn le(n: i32) -> Ccsid {
    Ccsid::with_encoding(n, 546).unwrap()
}

fn one_shot(input: &[u8], from: Ccsid, to: Ccsid, o: &Options) -> Outcome {
    convert(input, from, to, o).map(|e| (e.bytes, e.substitutions))
}

/// Feeds `input` in blocks ending at `cuts` (ascending); returns the outcome
/// and everything written to the output, also on error.
fn streamed(
    input: &[u8],
    cuts: &[usize],
    from: Ccsid,
    to: Ccsid,
    o: &Options,
) -> (Outcome, Vec<u8>) {
    let mut s = StreamConverter::new(from, to, o);
    let mut out = Vec::new();
    let mut start = 0;
    for &end in cuts.iter().chain([&input.len()]) {
        let end = end.clamp(start, input.len());
        if let Err(e) = s.feed(&input[start..end], &mut out) {
            return (Err(e), out);
        }
        start = end;
    }
    let r = s.finish(&mut out).map(|subs| (out.clone(), subs));
    (r, out)
}

/// The stream gives the one-shot outcome; on an error its output is the
/// conversion of the input before the error's offset.
fn check(input: &[u8], cuts: &[usize], from: Ccsid, to: Ccsid, o: &Options) -> Result<(), String> {
    let whole = one_shot(input, from, to, o);
    let (r, out) = streamed(input, cuts, from, to, o);
    let at = || {
        format!(
            "{} -> {} {:?} input {input:02X?} cuts {cuts:?}",
            from.number(),
            to.number(),
            o.on_unmappable
        )
    };
    if r != whole {
        return Err(format!("{}: stream {r:?} whole {whole:?}", at()));
    }
    if let Err(e) = &r {
        let offset = e.offset().ok_or_else(at)?;
        if offset >= input.len() {
            return Err(format!("{}: offset {offset} outside the input", at()));
        }
        let before = one_shot(&input[..offset], from, to, o);
        if before.as_ref().map(|b| &b.0) != Ok(&out) {
            return Err(format!(
                "{}: output {out:02X?} on error, before it {before:?}",
                at()
            ));
        }
    }
    Ok(())
}

/// Every single cut, every pair of cuts, and one-byte blocks.
fn check_all_splits(input: &[u8], from: Ccsid, to: Ccsid) {
    for o in [FAIL, SUBSTITUTE] {
        let n = input.len();
        let ones: Vec<usize> = (1..n).collect();
        check(input, &ones, from, to, &o).unwrap();
        for i in 0..=n {
            check(input, &[i], from, to, &o).unwrap();
            for j in i..=n {
                check(input, &[i, j], from, to, &o).unwrap();
            }
        }
    }
}

/// Text with 1- to 4-byte UTF-8 characters, CJK, and characters some sets
/// lack (€, 😀, Ê with a combining macron).
const TEXT: &str = "Aé€😀日本語\n가丂¥\u{CA}\u{304}xZ";

fn inputs_in(ccsid: Ccsid) -> Vec<Vec<u8>> {
    let valid = encode(TEXT, ccsid, &SUBSTITUTE).unwrap().bytes;
    let n = valid.len();
    let mut v = vec![valid.clone()];
    // Cut short (inside a sequence), a stray byte inside, a lead byte then
    // ASCII, and an unpaired UTF-16 high surrogate.
    v.push(valid[..n - 1].to_vec());
    v.push([&valid[..n / 2], &[0xFF], &valid[n / 2..]].concat());
    v.push([&valid[..3], &[0x81, 0x20], &valid[3..]].concat());
    v.push([&valid[..4], &[0xD8, 0x3D, 0x00, 0x41], &valid[4..]].concat());
    v
}

#[test]
fn utf8_split_anywhere_equals_the_whole() {
    // UTF-8 to a single-byte set (the bulk UTF-8 path), to UTF-16 and to a
    // CJK set (through text), and to itself.
    for to in [c(37), c(1140), c(819), c(1200), le(1200), c(943), c(1208)] {
        for input in inputs_in(c(1208)) {
            check_all_splits(&input, c(1208), to);
        }
    }
}

#[test]
fn utf16_split_anywhere_equals_the_whole() {
    for from in [c(1200), le(1200), le(13488), c(17584)] {
        for to in [c(1208), c(37), c(1047), le(1200), c(954)] {
            for input in inputs_in(from) {
                check_all_splits(&input, from, to);
            }
        }
    }
}

#[test]
fn cjk_split_anywhere_equals_the_whole() {
    // Shift-JIS, EUC-JP, GBK, GB18030 (four-byte sequences), Big5 (0x88 0x62
    // makes two characters), EUC-KR.
    for from in [943, 954, 1386, 5488, 950, 970] {
        for to in [c(1208), c(37), le(1200), c(1392)] {
            for input in inputs_in(c(from)) {
                check_all_splits(&input, c(from), to);
            }
        }
    }
}

#[test]
fn single_byte_sets_split_anywhere_equal_the_whole() {
    // 913 leaves 0xA5 undefined; 1140 has € at 0x9F, 037 does not.
    let input: Vec<u8> = (0..=255).collect();
    for (from, to) in [(913, 37), (1140, 37), (37, 1208), (500, 1200), (1140, 943)] {
        for o in [FAIL, SUBSTITUTE] {
            for i in (0..=256).step_by(7) {
                check(&input, &[i, i + 100], c(from), c(to), &o).unwrap();
            }
        }
    }
}

#[test]
fn errors_name_the_offset_in_the_stream() {
    // The euro (E2 82 AC) starts at stream offset 70_001 and is split over
    // three blocks; 037 lacks it (ICU ibm-37: no U+20AC).
    let input = [&vec![b'a'; 70_001][..], "€b".as_bytes()].concat();
    let mut s = StreamConverter::new(c(1208), c(37), &FAIL);
    let mut out = Vec::new();
    s.feed(&input[..65_536], &mut out).unwrap();
    s.feed(&input[65_536..70_002], &mut out).unwrap();
    s.feed(&input[70_002..70_003], &mut out).unwrap();
    let e = s.feed(&input[70_003..], &mut out).unwrap_err();
    let want = ConvertError::Unmappable {
        ccsid: 37,
        offset: 70_001,
        ch: '€',
    };
    assert_eq!(e, want);
    // Everything before the euro was written ('a' is 0x81 in 037).
    assert_eq!(out, vec![0x81; 70_001]);
    // And the converter stays failed.
    assert_eq!(s.feed(b"x", &mut out), Err(want.clone()));
    assert_eq!(s.finish(&mut out), Err(want));

    // UTF-16BE: a lone byte at the end (offset 4) after blocks of 3 + 2.
    let mut s = StreamConverter::new(c(1200), c(1208), &FAIL);
    let mut out = Vec::new();
    s.feed(&[0x00, 0x41, 0x00], &mut out).unwrap();
    s.feed(&[0x42, 0x00], &mut out).unwrap();
    assert_eq!(out, b"AB");
    assert_eq!(
        s.finish(&mut out),
        Err(ConvertError::Truncated {
            ccsid: 1200,
            offset: 4
        })
    );

    // Shift-JIS: 日 (93 FA) split between blocks at stream offset 3 has no
    // place in 037; a lead byte 0x93 then a space (below the trail range
    // 0x40-0xFC, WHATWG "Shift_JIS decoder") is malformed at 3.
    let mut s = StreamConverter::new(c(943), c(37), &FAIL);
    let mut out = Vec::new();
    s.feed(b"abc\x93", &mut out).unwrap();
    let e = s.feed(b"\xFA", &mut out).unwrap_err();
    assert_eq!(
        e,
        ConvertError::Unmappable {
            ccsid: 37,
            offset: 3,
            ch: '日'
        }
    );
    let mut s = StreamConverter::new(c(943), c(1208), &FAIL);
    s.feed(b"abc\x93", &mut out).unwrap();
    assert_eq!(
        s.feed(b" yz", &mut out).unwrap_err(),
        ConvertError::Invalid {
            ccsid: 943,
            offset: 3,
            byte: 0x93
        }
    );
}

#[test]
fn substitutions_are_counted_over_the_stream() {
    // Two malformed UTF-8 sequences, one of them split: E2 82 then 'x' is
    // one maximal subpart (Unicode §3.9, U+FFFD substitution), 0xFF another.
    let mut s = StreamConverter::new(c(1208), c(819), &SUBSTITUTE);
    let mut out = Vec::new();
    s.feed(b"a\xE2", &mut out).unwrap();
    s.feed(b"\x82x\xFF", &mut out).unwrap();
    assert_eq!(s.substitutions(), 2);
    assert_eq!(s.finish(&mut out), Ok(2));
    // 819 substitutes with 0x1A (ICU ISO-8859-1 subchar).
    assert_eq!(out, [b'a', 0x1A, b'x', 0x1A]);
}

#[test]
fn big5_sequence_of_two_characters_is_named_where_it_starts() {
    // Big5 0x88 0x62 is pointer 1133, which the WHATWG Encoding Standard's
    // Big5 decoder turns into two characters, U+00CA U+0304. EBCDIC 1026
    // has Ê but no combining macron: the error names offset 1, where the
    // sequence starts (it named 3, past the end of the 3-byte input).
    assert_eq!(
        convert(b"b\x88b", c(950), c(1026), &FAIL),
        Err(ConvertError::Unmappable {
            ccsid: 1026,
            offset: 1,
            ch: '\u{304}'
        })
    );
    check_all_splits(b"b\x88b", c(950), c(1026));
}

#[test]
fn the_first_error_in_input_order_is_reported() {
    // A character the target lacks comes before a malformed sequence: the
    // error names the character (it used to name the later malformed byte,
    // because the whole input was decoded before anything was encoded).
    // UTF-8 € then 0xFF, to 037 (the bulk UTF-8 path).
    assert_eq!(
        convert(b"\xE2\x82\xAC\xFF", c(1208), c(37), &FAIL),
        Err(ConvertError::Unmappable {
            ccsid: 37,
            offset: 0,
            ch: '€'
        })
    );
    // UTF-16BE € (20 AC) then a lone high surrogate, to 037 (through text).
    assert_eq!(
        convert(&[0x20, 0xAC, 0xD8, 0x00], c(1200), c(37), &FAIL),
        Err(ConvertError::Unmappable {
            ccsid: 37,
            offset: 0,
            ch: '€'
        })
    );
    // Shift-JIS 日 (93 FA) then a truncated lead byte, to 037.
    assert_eq!(
        convert(&[0x41, 0x93, 0xFA, 0x93], c(943), c(37), &FAIL),
        Err(ConvertError::Unmappable {
            ccsid: 37,
            offset: 1,
            ch: '日'
        })
    );
}

/// Bytes that make multi-byte sequences likely: ASCII, UTF-8 leads and
/// continuations, CJK leads and trails, GB18030 digits, surrogate halves.
fn byte() -> impl Strategy<Value = u8> {
    prop_oneof![
        proptest::sample::select(vec![
            0x00, 0x20, 0x30, 0x35, 0x41, 0x62, 0x80, 0x81, 0x82, 0x88, 0x8E, 0x8F, 0x93, 0xA1,
            0xAC, 0xB0, 0xC3, 0xD8, 0xDC, 0xE2, 0xF0, 0x9F, 0xFA, 0xFE, 0xFF
        ]),
        any::<u8>(),
    ]
}

fn any_ccsid() -> impl Strategy<Value = Ccsid> {
    let list: Vec<i32> = supported().into_iter().map(i32::from).collect();
    (proptest::sample::select(list), any::<bool>())
        .prop_map(|(n, little)| Ccsid::with_encoding(n, if little { 546 } else { 273 }).unwrap())
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(3000))]

    #[test]
    fn any_split_of_any_input_equals_the_whole(
        input in proptest::collection::vec(byte(), 0..48),
        cuts in proptest::collection::vec(0usize..48, 0..5),
        from in any_ccsid(),
        to in any_ccsid(),
        substitute in any::<bool>(),
    ) {
        let mut cuts = cuts;
        cuts.sort_unstable();
        let o = if substitute { SUBSTITUTE } else { FAIL };
        if let Err(e) = check(&input, &cuts, from, to, &o) {
            prop_assert!(false, "{}", e);
        }
    }
}

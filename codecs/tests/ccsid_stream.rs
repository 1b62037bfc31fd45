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

/// Every single cut, every pair of cuts up to 4 bytes apart (a character
/// or a run edge between two block edges), and one-byte blocks: for the
/// longer mixed EBCDIC inputs, where every pair of cuts takes too long.
fn check_near_splits(input: &[u8], from: Ccsid, to: Ccsid) {
    for o in [FAIL, SUBSTITUTE] {
        let n = input.len();
        let ones: Vec<usize> = (1..n).collect();
        check(input, &ones, from, to, &o).unwrap();
        for i in 0..=n {
            for j in i..=(i + 4).min(n) {
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

/// The mixed single/double-byte EBCDIC sets (IBM CDRA; ICU `EBCDIC_STATEFUL`).
const MIXED: [i32; 9] = [930, 939, 1390, 1399, 935, 1388, 937, 933, 1364];

/// Text with single-byte and double-byte characters of all four languages,
/// newlines between runs, the two-character texts 1390 and 1399 write as
/// one double byte (か + U+309A, ˥˩ and ˩˥; docs/ccsid.md), and characters
/// some sets lack (substituted when the test input is made).
const MIXED_TEXT: &str = "Aé日本語\nか\u{309A}ｶ˥˩˥x中文繁體\n한국어€丂Z";

/// Mixed EBCDIC inputs: the text written by `ccsid` (SO/SI runs), and the
/// text broken at run edges: cut inside a pair, a pair with SI as second
/// byte, a lone first byte at the end of a run, an undefined pair, a
/// redundant SO, an empty run, and a run that the input leaves open.
fn mixed_inputs_in(ccsid: Ccsid) -> Vec<Vec<u8>> {
    let valid = encode(MIXED_TEXT, ccsid, &SUBSTITUTE).unwrap().bytes;
    let n = valid.len();
    let so = valid.iter().position(|&b| b == 0x0E).unwrap();
    vec![
        valid.clone(),
        valid[..n - 2].to_vec(),
        [&valid[..so + 2], &[0x0F], &valid[so + 3..]].concat(),
        [
            &valid[..so + 3],
            &[0x0F, 0xC1, 0x0E, 0x0F, 0x0E, 0x0E],
            &valid[so + 3..],
        ]
        .concat(),
        [&valid[..so + 1], &[0xFF, 0xFF], &valid[so + 1..]].concat(),
        [&valid[..n - 1], &[0xC1, 0x0E, 0x45]].concat(),
    ]
}

#[test]
fn mixed_ebcdic_split_anywhere_equals_the_whole() {
    // From each mixed set to UTF-8, to a single-byte EBCDIC set (which
    // lacks the double-byte characters), and into mixed EBCDIC (1390, with
    // its two-character double bytes).
    for from in MIXED {
        for to in [c(1208), c(37), c(1390)] {
            for input in mixed_inputs_in(c(from)) {
                check_near_splits(&input, c(from), to);
            }
        }
    }
}

#[test]
fn streams_into_mixed_ebcdic_split_anywhere_equal_the_whole() {
    // UTF-8 and GB18030 (a decoder that keeps its state) into every mixed
    // set: runs stay open across blocks, SI only where the whole input has
    // it, and か + U+309A split between blocks still makes one double byte.
    let utf8 = MIXED_TEXT.as_bytes().to_vec();
    let gb = encode(MIXED_TEXT, c(1392), &FAIL).unwrap().bytes;
    for to in MIXED {
        check_near_splits(&utf8, c(1208), c(to));
        check_near_splits(&utf8[..utf8.len() - 1], c(1208), c(to));
        check_near_splits(&gb, c(1392), c(to));
    }
}

#[test]
fn runs_stay_open_across_blocks_and_sequences_are_joined() {
    // 日本 in 939 is 0E 4562 4566 0F (docs/ccsid.md, "Shift-out / shift-in",
    // from ICU ibm-939): the first block writes SO and 日, the second 本,
    // and only the end of the stream writes SI.
    let mut s = StreamConverter::new(c(1208), c(939), &FAIL);
    let mut out = Vec::new();
    s.feed("日".as_bytes(), &mut out).unwrap();
    assert_eq!(out, [0x0E, 0x45, 0x62]);
    s.feed("本".as_bytes(), &mut out).unwrap();
    assert_eq!(out, [0x0E, 0x45, 0x62, 0x45, 0x66]);
    assert_eq!(s.finish(&mut out), Ok(0));
    assert_eq!(out, [0x0E, 0x45, 0x62, 0x45, 0x66, 0x0F]);

    // か + U+309A is the one double byte 0xECB5 in 1390 (ICU ibm-1390,
    // docs/ccsid.md), also when the two characters come in two blocks; the
    // first block writes nothing, since the next character decides.
    let mut s = StreamConverter::new(c(1208), c(1390), &FAIL);
    let mut out = Vec::new();
    s.feed("か".as_bytes(), &mut out).unwrap();
    assert!(out.is_empty());
    s.feed("\u{309A}".as_bytes(), &mut out).unwrap();
    assert_eq!(s.finish(&mut out), Ok(0));
    assert_eq!(out, [0x0E, 0xEC, 0xB5, 0x0F]);

    // Reading 939: a run opened in one block goes on in the next, and the
    // pair 45 62 split between blocks is still 日.
    let mut s = StreamConverter::new(c(939), c(1208), &FAIL);
    let mut out = Vec::new();
    s.feed(&[0xC1, 0x0E, 0x45], &mut out).unwrap();
    s.feed(&[0x62], &mut out).unwrap();
    s.feed(&[0x45, 0x66, 0x0F, 0x15], &mut out).unwrap();
    assert_eq!(s.finish(&mut out), Ok(0));
    assert_eq!(out, "A日本\n".as_bytes());
}

#[test]
fn mixed_ebcdic_errors_at_block_edges_name_the_offset_in_the_stream() {
    // 939: after "AB" and SO, 日 (45 62) and then FF FF, which is no double
    // byte of 939 (ICU ibm-939 maps no pair with lead 0xFF), its first byte
    // at stream offset 5 and ending the first block.
    let t939 = c(939).dbcs_table().unwrap();
    assert_eq!(t939.decode_double(0xFF, 0xFF), None);
    let mut s = StreamConverter::new(c(939), c(1208), &FAIL);
    let mut out = Vec::new();
    s.feed(&[0xC1, 0xC2, 0x0E, 0x45, 0x62, 0xFF], &mut out)
        .unwrap();
    let want = ConvertError::Invalid {
        ccsid: 939,
        offset: 5,
        byte: 0xFF,
    };
    assert_eq!(s.feed(&[0xFF, 0x0F], &mut out), Err(want));
    assert_eq!(out, "AB日".as_bytes());

    // A first byte left alone at the end of the stream, inside a run.
    let mut s = StreamConverter::new(c(939), c(1208), &FAIL);
    let mut out = Vec::new();
    s.feed(&[0xC1, 0x0E, 0x45, 0x62], &mut out).unwrap();
    s.feed(&[0x45], &mut out).unwrap();
    assert_eq!(
        s.finish(&mut out),
        Err(ConvertError::Invalid {
            ccsid: 939,
            offset: 4,
            byte: 0x45
        })
    );
    assert_eq!(out, "A日".as_bytes());

    // 939 → 037: 日 split between blocks has no place in 037 (ICU ibm-37
    // is single-byte Latin-1): named at its first byte, offset 2.
    let mut s = StreamConverter::new(c(939), c(37), &FAIL);
    let mut out = Vec::new();
    s.feed(&[0xC1, 0x0E, 0x45], &mut out).unwrap();
    assert_eq!(
        s.feed(&[0x62, 0x0F], &mut out),
        Err(ConvertError::Unmappable {
            ccsid: 37,
            offset: 2,
            ch: '日'
        })
    );
    assert_eq!(out, [0xC1]);

    // UTF-8 → 1390: か waits for the next block; the Thai ก (U+0E01, not in
    // ICU ibm-1390) that follows is named at its offset, 3, and the output
    // is か alone, its run closed, as converting "か" at once writes it.
    let mut s = StreamConverter::new(c(1208), c(1390), &FAIL);
    let mut out = Vec::new();
    s.feed("か".as_bytes(), &mut out).unwrap();
    assert_eq!(
        s.feed("\u{E01}".as_bytes(), &mut out),
        Err(ConvertError::Unmappable {
            ccsid: 1390,
            offset: 3,
            ch: '\u{E01}'
        })
    );
    let ka = encode("か", c(1390), &FAIL).unwrap().bytes;
    assert_eq!((ka.len(), ka[0], ka[3]), (4, 0x0E, 0x0F));
    assert_eq!(out, ka);
}

/// Characters for random mixed text: ASCII, newline, Latin-1, half-width
/// katakana, kana with U+309A, ˥˩, CJK of the four languages, one above
/// U+FFFF, and characters the mixed sets lack.
fn mixed_char() -> impl Strategy<Value = char> {
    proptest::sample::select(vec![
        'A',
        'z',
        '0',
        ' ',
        '\n',
        '\u{85}',
        'é',
        'ｶ',
        'か',
        'カ',
        '\u{309A}',
        '˥',
        '˩',
        'æ',
        '\u{300}',
        '日',
        '語',
        '中',
        '體',
        '한',
        '丂',
        '€',
        '¥',
        '\u{20B9F}',
        '\u{E01}',
        '😀',
    ])
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(400))]

    #[test]
    fn random_blocks_of_mixed_text_equal_the_whole(
        text in proptest::collection::vec(mixed_char(), 0..120),
        sizes in proptest::collection::vec(1usize..20, 1..8),
        from in proptest::sample::select(vec![1208, 1200, 1392, 930, 939, 1390, 1399, 935, 1388, 937, 933, 1364]),
        to in proptest::sample::select(vec![1208, 37, 930, 939, 1390, 1399, 935, 1388, 937, 933, 1364]),
        damage in proptest::option::of((any::<prop::sample::Index>(), any::<u8>())),
        substitute in any::<bool>(),
    ) {
        // Text written in the source set (unmappable characters
        // substituted), maybe one byte changed, cut in blocks of the given
        // sizes, in turn.
        let text: String = text.into_iter().collect();
        let mut input = encode(&text, c(from), &SUBSTITUTE).unwrap().bytes;
        if let (Some((i, b)), false) = (damage, input.is_empty()) {
            let i = i.index(input.len());
            input[i] = b;
        }
        let mut cuts = Vec::new();
        let mut at = 0;
        for size in sizes.iter().cycle() {
            at += size;
            if at >= input.len() {
                break;
            }
            cuts.push(at);
        }
        let o = if substitute { SUBSTITUTE } else { FAIL };
        if let Err(e) = check(&input, &cuts, c(from), c(to), &o) {
            prop_assert!(false, "{}", e);
        }
    }
}

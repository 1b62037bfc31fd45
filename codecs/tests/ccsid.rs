//! Edge cases of the pure CCSID converters. Every expected value below comes from the ICU
//! conversion tables (ibm-37_P100-1995 and the other ibm-NNN tables), cross-checked with
//! glibc iconv, or from IBM MQ "AllQueueManagers stanza of the mqs.ini file"
//! (ConvEBCDICNewline).

use mqgate_codecs::ccsid::{
    Ccsid, ConvertError, NewlinePolicy, OnUnmappable, Options, convert, decode, decode_lossy,
    encode,
};

fn c(n: i32) -> Ccsid {
    Ccsid::new(n).unwrap()
}

fn opts(newline: NewlinePolicy, on_unmappable: OnUnmappable) -> Options {
    Options {
        newline,
        on_unmappable,
    }
}

const NL_TO_LF: Options = Options {
    newline: NewlinePolicy::NlToLf,
    on_unmappable: OnUnmappable::Fail,
};
const TABLE: Options = Options {
    newline: NewlinePolicy::Table,
    on_unmappable: OnUnmappable::Fail,
};
const ISO: Options = Options {
    newline: NewlinePolicy::Iso,
    on_unmappable: OnUnmappable::Fail,
};

const EBCDIC: [i32; 23] = [
    37, 273, 277, 278, 280, 284, 285, 297, 500, 871, 875, 1026, 1047, 1140, 1141, 1142, 1143, 1144,
    1145, 1146, 1147, 1148, 1149,
];

#[test]
fn default_newline_policy_is_nl_to_lf() {
    // IBM MQ "AllQueueManagers stanza of the mqs.ini file" (ConvEBCDICNewline): default
    // NL_TO_LF.
    assert_eq!(Options::default().newline, NewlinePolicy::NlToLf);
    assert_eq!(Options::default().on_unmappable, OnUnmappable::Fail);
}

#[test]
fn a_lf_b_with_nl_to_lf_is_c1_15_c2_and_back() {
    // `A\nB` (41 0A 42) from 819 to 037, 500 and 1047 with NL_TO_LF gives C1 15
    // C2 and back gives 0A.
    for to in [37, 500, 1047] {
        let e = convert(b"A\nB", c(819), c(to), &NL_TO_LF).unwrap();
        assert_eq!(e.bytes, [0xC1, 0x15, 0xC2], "819 -> {to}");
        let back = convert(&e.bytes, c(to), c(819), &NL_TO_LF).unwrap();
        assert_eq!(back.bytes, [0x41, 0x0A, 0x42], "{to} -> 819");
        assert_eq!(decode(&e.bytes, c(to), &NL_TO_LF).unwrap().text, "A\nB");
        assert_eq!(
            encode("A\nB", c(to), &NL_TO_LF).unwrap().bytes,
            [0xC1, 0x15, 0xC2]
        );
    }
}

#[test]
fn a_lf_b_with_table_is_c1_25_c2_and_0x15_is_nel() {
    // TABLE uses the ICU tables unchanged: C1 25 C2, and EBCDIC 0x15 becomes U+0085.
    for to in [37, 500, 1047] {
        let e = convert(b"A\nB", c(819), c(to), &TABLE).unwrap();
        assert_eq!(e.bytes, [0xC1, 0x25, 0xC2], "819 -> {to}");
        assert_eq!(
            convert(&e.bytes, c(to), c(819), &TABLE).unwrap().bytes,
            b"A\nB"
        );
        assert_eq!(decode(&[0x15], c(to), &TABLE).unwrap().text, "\u{85}");
        // 819 has NEL at 0x85 (ISO-8859-1).
        assert_eq!(
            convert(&[0x15], c(to), c(819), &TABLE).unwrap().bytes,
            [0x85]
        );
    }
}

#[test]
fn iso_policy_is_table_towards_iso8859_and_nl_to_lf_otherwise() {
    // IBM MQ "AllQueueManagers stanza of the mqs.ini file" (ConvEBCDICNewline): ISO =
    // TABLE for ISO CCSIDs, NL_TO_LF for all others.
    assert_eq!(convert(b"\n", c(819), c(37), &ISO).unwrap().bytes, [0x25]);
    assert_eq!(convert(b"\n", c(923), c(37), &ISO).unwrap().bytes, [0x25]);
    assert_eq!(convert(b"\n", c(1208), c(37), &ISO).unwrap().bytes, [0x15]);
    assert_eq!(
        convert(b"\n", c(1252), c(1047), &ISO).unwrap().bytes,
        [0x15]
    );
    assert_eq!(convert(b"\n", c(437), c(500), &ISO).unwrap().bytes, [0x15]);
    assert_eq!(decode(&[0x15], c(37), &ISO).unwrap().text, "\n");
}

#[test]
fn ascii_round_trips_through_every_ebcdic_set_under_each_policy() {
    // ASCII -> EBCDIC -> ASCII is the identity for 0x00-0x7F under any one
    // policy.
    let ascii: Vec<u8> = (0..0x80).collect();
    for policy in [
        NewlinePolicy::NlToLf,
        NewlinePolicy::Table,
        NewlinePolicy::Iso,
    ] {
        let o = opts(policy, OnUnmappable::Fail);
        for e in EBCDIC {
            for a in [819, 1252, 437, 1208] {
                let there = convert(&ascii, c(a), c(e), &o).unwrap();
                let back = convert(&there.bytes, c(e), c(a), &o).unwrap();
                assert_eq!(back.bytes, ascii, "{a} -> {e} -> {a} under {policy:?}");
            }
        }
    }
}

#[test]
fn square_brackets_in_037_and_1047() {
    // ICU ibm-37 / ibm-1047: `[]` to 037 is BA BB, to 1047 is AD BD; 037 BA BB to 1047 is
    // AD BD.
    assert_eq!(
        convert(b"[]", c(819), c(37), &NL_TO_LF).unwrap().bytes,
        [0xBA, 0xBB]
    );
    assert_eq!(
        convert(b"[]", c(819), c(1047), &NL_TO_LF).unwrap().bytes,
        [0xAD, 0xBD]
    );
    assert_eq!(
        convert(&[0xBA, 0xBB], c(37), c(1047), &NL_TO_LF)
            .unwrap()
            .bytes,
        [0xAD, 0xBD]
    );
    assert_eq!(encode("[]", c(37), &NL_TO_LF).unwrap().bytes, [0xBA, 0xBB]);
    // A[B] from 819 to 1047 is c1ad c2bd (ICU ibm-1047).
    assert_eq!(
        convert(b"A[B]", c(819), c(1047), &NL_TO_LF).unwrap().bytes,
        [0xC1, 0xAD, 0xC2, 0xBD]
    );
}

#[test]
fn byte_9f_is_currency_sign_or_euro() {
    // ICU tables: 0x9F is U+00A4 in 037, 500 and 273 and U+20AC in 1140, 1148
    // and 1141; the euro sign to 1140 is 0x9F.
    for n in [37, 500, 273] {
        assert_eq!(
            decode(&[0x9F], c(n), &NL_TO_LF).unwrap().text,
            "\u{A4}",
            "{n}"
        );
    }
    for n in [1140, 1148, 1141] {
        assert_eq!(
            decode(&[0x9F], c(n), &NL_TO_LF).unwrap().text,
            "\u{20AC}",
            "{n}"
        );
    }
    assert_eq!(
        encode("\u{20AC}", c(1140), &NL_TO_LF).unwrap().bytes,
        [0x9F]
    );
}

#[test]
fn utf16_in_both_byte_orders() {
    // UTF-16 with both byte orders. "A€😀": U+0041, U+20AC, U+1F600 = D83D DE00
    // as a surrogate pair (Unicode §3.9).
    let be = Ccsid::with_encoding(1200, 273).unwrap();
    let le = Ccsid::with_encoding(1200, 546).unwrap();
    let text = "A\u{20AC}\u{1F600}";
    let be_bytes = [0x00, 0x41, 0x20, 0xAC, 0xD8, 0x3D, 0xDE, 0x00];
    let le_bytes = [0x41, 0x00, 0xAC, 0x20, 0x3D, 0xD8, 0x00, 0xDE];
    assert_eq!(encode(text, be, &NL_TO_LF).unwrap().bytes, be_bytes);
    assert_eq!(encode(text, le, &NL_TO_LF).unwrap().bytes, le_bytes);
    assert_eq!(decode(&be_bytes, be, &NL_TO_LF).unwrap().text, text);
    assert_eq!(decode(&le_bytes, le, &NL_TO_LF).unwrap().text, text);
    assert_eq!(
        convert(&be_bytes, be, le, &NL_TO_LF).unwrap().bytes,
        le_bytes
    );
    for n in [13488, 17584] {
        let le = Ccsid::with_encoding(n, 546).unwrap();
        assert_eq!(
            convert(&[0xC1, 0x9F], c(1140), le, &NL_TO_LF)
                .unwrap()
                .bytes,
            [0x41, 0x00, 0xAC, 0x20]
        );
    }
    // An unpaired low surrogate at offset 2 and an odd trailing byte.
    assert_eq!(
        decode(&[0x00, 0x41, 0xDC, 0x00], be, &NL_TO_LF),
        Err(ConvertError::UnpairedSurrogate {
            ccsid: 1200,
            offset: 2,
            unit: 0xDC00
        })
    );
    let odd = decode(&[0x41, 0x00, 0x42], le, &NL_TO_LF).unwrap_err();
    assert_eq!(
        odd,
        ConvertError::Truncated {
            ccsid: 1200,
            offset: 2
        }
    );
    assert!(odd.to_string().contains("truncated"), "{odd}");
    let lossy = decode(
        &[0x00, 0x41, 0xDC, 0x00],
        be,
        &opts(NewlinePolicy::NlToLf, OnUnmappable::Substitute),
    )
    .unwrap();
    assert_eq!((lossy.text.as_str(), lossy.substitutions), ("A\u{FFFD}", 1));
}

#[test]
fn unmappable_character_under_each_policy() {
    // An unmappable character under each policy; the error names the offset and
    // the byte/character; substitution uses the set's substitution character (ICU
    // subchar: 0x3F in ibm-37, 0x7F in ibm-437, 0x1A in ISO-8859-1) and reports
    // the count.
    let sub = opts(NewlinePolicy::NlToLf, OnUnmappable::Substitute);
    // U+20AC is not in 037 (ICU: 1140 is 037 plus the euro).
    let err = encode("ab\u{20AC}", c(37), &NL_TO_LF).unwrap_err();
    assert_eq!(
        err,
        ConvertError::Unmappable {
            ccsid: 37,
            offset: 2,
            ch: '\u{20AC}'
        }
    );
    assert!(err.to_string().contains("offset 2") && err.to_string().contains("U+20AC"));
    assert_eq!(err.mqrc().0, 2119);
    let e = encode("ab\u{20AC}\u{20AC}", c(37), &sub).unwrap();
    assert_eq!(
        (e.bytes, e.substitutions),
        (vec![0x81, 0x82, 0x3F, 0x3F], 2)
    );

    // Direct single-byte path: 1140 0x9F (euro) has no place in 037.
    assert_eq!(
        convert(&[0xC1, 0x9F], c(1140), c(37), &NL_TO_LF),
        Err(ConvertError::Unmappable {
            ccsid: 37,
            offset: 1,
            ch: '\u{20AC}'
        })
    );
    let e = convert(&[0xC1, 0x9F], c(1140), c(37), &sub).unwrap();
    assert_eq!((e.bytes, e.substitutions), (vec![0xC1, 0x3F], 1));
    // Through text: UTF-8 "é€" to 437 (no euro in 437): offset 2 in the input.
    assert_eq!(
        convert("é€".as_bytes(), c(1208), c(437), &NL_TO_LF),
        Err(ConvertError::Unmappable {
            ccsid: 437,
            offset: 2,
            ch: '\u{20AC}'
        })
    );
    let e = convert("é€".as_bytes(), c(1208), c(437), &sub).unwrap();
    assert_eq!((e.bytes, e.substitutions), (vec![0x82, 0x7F], 1));

    // An undefined source byte: 0xA5 is unassigned in ISO-8859-3 (913).
    assert_eq!(
        decode(&[0x41, 0xA5], c(913), &NL_TO_LF),
        Err(ConvertError::Invalid {
            ccsid: 913,
            offset: 1,
            byte: 0xA5
        })
    );
    let d = decode(&[0x41, 0xA5], c(913), &sub).unwrap();
    assert_eq!((d.text.as_str(), d.substitutions), ("A\u{FFFD}", 1));
    let e = convert(&[0x41, 0xA5], c(913), c(819), &sub).unwrap();
    assert_eq!((e.bytes, e.substitutions), (vec![0x41, 0x1A], 1));
    // Malformed UTF-8: 0xFF at offset 1.
    assert_eq!(
        convert(&[0x41, 0xFF], c(1208), c(37), &NL_TO_LF),
        Err(ConvertError::Invalid {
            ccsid: 1208,
            offset: 1,
            byte: 0xFF
        })
    );
}

#[test]
fn cjk_sets_through_encoding_rs() {
    // 日本 in Shift-JIS is 93 FA 96 7B, in EUC-JP C6 FC CB DC (JIS X 0208 rows 38/43).
    assert_eq!(
        encode("日本", c(943), &NL_TO_LF).unwrap().bytes,
        [0x93, 0xFA, 0x96, 0x7B]
    );
    assert_eq!(
        convert(&[0x93, 0xFA, 0x96, 0x7B], c(943), c(954), &NL_TO_LF)
            .unwrap()
            .bytes,
        [0xC6, 0xFC, 0xCB, 0xDC]
    );
    // Hangul 가 is B0 A1 in EUC-KR (KS X 1001).
    assert_eq!(encode("가", c(970), &NL_TO_LF).unwrap().bytes, [0xB0, 0xA1]);
    // A truncated double-byte character at offset 1.
    assert_eq!(
        decode(&[0x41, 0x93], c(943), &NL_TO_LF),
        Err(ConvertError::Invalid {
            ccsid: 943,
            offset: 1,
            byte: 0x93
        })
    );
    // 日 (from Shift-JIS, offset 0) has no place in EBCDIC 037.
    assert_eq!(
        convert(&[0x41, 0x93, 0xFA], c(943), c(37), &NL_TO_LF),
        Err(ConvertError::Unmappable {
            ccsid: 37,
            offset: 1,
            ch: '日'
        })
    );
}

#[test]
fn decode_lossy_for_display() {
    // 037: C8 85 93 93 96 = "Hello" (ibm-37 table); 0x15 shown as LF (NL_TO_LF).
    assert_eq!(
        decode_lossy(&[0xC8, 0x85, 0x93, 0x93, 0x96, 0x15], 37, 273).unwrap(),
        "Hello\n"
    );
    assert_eq!(decode_lossy(&[0x41, 0x00], 1200, 546).unwrap(), "A");
    assert_eq!(decode_lossy(&[0x41, 0xFF], 1208, 546).unwrap(), "A\u{FFFD}");
    assert_eq!(
        decode_lossy(b"x", 4711, 546),
        Err(ConvertError::UnknownCcsid { ccsid: 4711 })
    );
}

#[test]
fn errors_past_a_bulk_step_keep_their_input_offsets() {
    // Long enough inputs that the 32-byte bulk paths run before the bad
    // spot. EBCDIC 037 bytes (IBM CCSID 37 table): 'A' C1, 'B' C2, 'é' 51,
    // 'x' A7; 037 lacks '€' (U+20AC); its substitution byte is 3F (as in
    // the unmappable test above).
    let sub = opts(NewlinePolicy::NlToLf, OnUnmappable::Substitute);
    let bad_utf8 = [&[b'A'; 70][..], &[0xFF], &[b'B'; 40]].concat();
    assert_eq!(
        convert(&bad_utf8, c(1208), c(37), &NL_TO_LF),
        Err(ConvertError::Invalid {
            ccsid: 1208,
            offset: 70,
            byte: 0xFF
        })
    );
    let e = convert(&bad_utf8, c(1208), c(37), &sub).unwrap();
    let expected = [&[0xC1; 70][..], &[0x3F], &[0xC2; 40]].concat();
    // One place substituted, counted once (the malformed byte becomes
    // U+FFFD, which 037 lacks in turn: still one substitution).
    assert_eq!((e.bytes, e.substitutions), (expected, 1));

    let euro = format!("{}€x", "é".repeat(40));
    assert_eq!(
        convert(euro.as_bytes(), c(1208), c(37), &NL_TO_LF),
        Err(ConvertError::Unmappable {
            ccsid: 37,
            offset: 80,
            ch: '€'
        })
    );
    let e = convert(euro.as_bytes(), c(1208), c(37), &sub).unwrap();
    let expected = [&[0x51; 40][..], &[0x3F, 0xA7]].concat();
    assert_eq!((e.bytes, e.substitutions), (expected, 1));
}

#[test]
fn each_substituted_place_counts_once() {
    // Substitution policy (mqgate's rule: the result reports how many
    // substitutions were made): one malformed UTF-8 sequence is one
    // substitution, even when its U+FFFD has no place in the target either. 819
    // substitutes with 0x1A, 1047 with 0x3F (ICU tables, see the unmappable
    // tests above).
    let sub = opts(NewlinePolicy::NlToLf, OnUnmappable::Substitute);
    let e = convert(&[0xFF], c(1208), c(819), &sub).unwrap();
    assert_eq!((e.bytes, e.substitutions), (vec![0x1A], 1));
    let e = convert(b"a\xFF\xFEb", c(1208), c(1047), &sub).unwrap();
    assert_eq!(
        (e.bytes, e.substitutions),
        (vec![0x81, 0x3F, 0x3F, 0x82], 2)
    );
    // Through text (1208 -> 1200): U+FFFD exists in UTF-16, so only the
    // decode substitution counts.
    let e = convert(b"a\xFF", c(1208), c(1200), &sub).unwrap();
    assert_eq!(e.substitutions, 1);
}

//! Mixed single/double-byte EBCDIC (930, 939, 1390, 1399, 935, 1388, 937,
//! 933, 1364): shift-out/shift-in state, errors with exact offsets,
//! substitution, and conversion between the CCSIDs of one language.
//!
//! Expected bytes and texts were produced with ICU 72 `uconv` (Debian 12,
//! package icu-devtools) and its `ibm-NNN` converters named in
//! docs/ccsid.md; the command is given beside each. The full-repertoire
//! comparison with uconv is tools/ccsid-gen/tests/dbcs_oracles.rs.

use mqgate_codecs::ccsid::{
    Ccsid, ConvertError, DbcsCode, DbcsText, Family, NewlinePolicy, OnUnmappable, Options, convert,
    decode, encode, supported,
};

const MIXED: [i32; 9] = [930, 939, 1390, 1399, 935, 1388, 937, 933, 1364];

fn c(n: i32) -> Ccsid {
    Ccsid::new(n).unwrap()
}

fn opts(newline: NewlinePolicy, on_unmappable: OnUnmappable) -> Options {
    Options {
        newline,
        on_unmappable,
    }
}

const TABLE: Options = Options {
    newline: NewlinePolicy::Table,
    on_unmappable: OnUnmappable::Fail,
};

fn enc(n: i32, text: &str, o: &Options) -> Vec<u8> {
    encode(text, c(n), o).unwrap().bytes
}

fn dec(n: i32, bytes: &[u8], o: &Options) -> String {
    decode(bytes, c(n), o).unwrap().text
}

fn hex(s: &str) -> Vec<u8> {
    hex::decode(s).unwrap()
}

#[test]
fn the_nine_ccsids_are_registered_as_ebcdic() {
    for n in MIXED {
        let ccsid = c(n);
        assert_eq!(i32::from(ccsid.number()), n);
        assert_eq!(ccsid.family(), Family::Ebcdic, "{n}");
        let t = ccsid.dbcs_table().unwrap();
        assert_eq!(i32::from(t.ccsid), n);
        assert!(ccsid.sbcs_table().is_none());
        assert!(ccsid.name().starts_with("EBCDIC "), "{}", ccsid.name());
        assert!(supported().contains(&ccsid.number()));
    }
    // The ICU converters of docs/ccsid.md (checked with `uconv -l`).
    assert_eq!(c(930).dbcs_table().unwrap().icu, "ibm-930_P120-1999");
    assert_eq!(c(1390).dbcs_table().unwrap().icu, "ibm-1390_P110-2003");
    assert_eq!(c(1364).dbcs_table().unwrap().icu, "ibm-1364_P110-2007");
}

#[test]
fn a_dbcs_run_is_opened_only_when_needed_and_closed_before_single_bytes() {
    // printf 'ABC日本語abc' | uconv -f utf-8 -t ibm-939
    assert_eq!(
        enc(939, "ABC日本語abc", &TABLE),
        hex("c1c2c30e4562456648e70f818283")
    );
    // ... -t ibm-930 (Katakana set: lowercase Latin at 0x62-0x64)
    assert_eq!(
        enc(930, "ABC日本語abc", &TABLE),
        hex("c1c2c30e4562456648e70f626364")
    );
    // Text ending in DBCS gets SI: printf 'A日' | uconv -t ibm-939
    assert_eq!(enc(939, "A日", &TABLE), hex("c10e45620f"));
    assert_eq!(enc(939, "日", &TABLE), hex("0e45620f"));
    assert_eq!(enc(939, "", &TABLE), b"");
    assert_eq!(enc(939, "ABC", &TABLE), hex("c1c2c3"));
}

#[test]
fn a_newline_inside_mixed_text_closes_the_run_first() {
    // printf '日本\n語' | uconv -t ibm-939 (TABLE: LF = 0x25)
    assert_eq!(enc(939, "日本\n語", &TABLE), hex("0e456245660f250e48e70f"));
    // ... -t ibm-939,swaplfnl (NL_TO_LF: LF = 0x15)
    let nl = Options::default();
    assert_eq!(enc(939, "日本\n語", &nl), hex("0e456245660f150e48e70f"));
    // printf 'A\u0085B\nC' | uconv -t ibm-939,swaplfnl
    assert_eq!(enc(939, "A\u{85}B\nC", &nl), hex("c125c215c3"));
    // printf '\xc1\x0e\x45\x62\x0f\x15\xc2' | uconv -f ibm-939,swaplfnl
    assert_eq!(dec(939, &hex("c10e45620f15c2"), &nl), "A日\nB");
    assert_eq!(dec(939, &hex("c10e45620f15c2"), &TABLE), "A日\u{85}B");
    // A newline byte inside a run is not a character there: the pair 0x15
    // 0xC2 is invalid at offset 1.
    assert_eq!(
        decode(&hex("0e15c20f"), c(939), &nl).unwrap_err(),
        ConvertError::Invalid {
            ccsid: 939,
            offset: 1,
            byte: 0x15
        }
    );
}

#[test]
fn shifts_decode_as_icu_reads_them() {
    // Empty run: printf '\xc1\x0e\x0f\xc2' | uconv -f ibm-939 → "AB".
    assert_eq!(dec(939, &hex("c10e0fc2"), &TABLE), "AB");
    // SO inside a run is accepted (ICU: "A日田B").
    assert_eq!(dec(939, &hex("c10e45620e45630fc2"), &TABLE), "A日田B");
    // SI outside a run, too.
    assert_eq!(dec(939, &hex("c10f0fc2"), &TABLE), "AB");
    // Input may end inside a run (ICU decodes "日" without an error).
    assert_eq!(dec(939, &hex("0e4562"), &TABLE), "日");
}

#[test]
fn invalid_bytes_are_errors_at_their_exact_offset() {
    let fail = |n: i32, bytes: &str| decode(&hex(bytes), c(n), &TABLE).unwrap_err();
    let invalid = |ccsid, offset, byte| ConvertError::Invalid {
        ccsid,
        offset,
        byte,
    };
    // Truncated pair: uconv -f ibm-939 says "failed at input byte
    // position 2. Bytes: 45 Error: Truncated character found".
    assert_eq!(fail(939, "c10e45"), invalid(939, 2, 0x45));
    // Illegal pair: "position 4. Bytes: 41 30 Error: Illegal character".
    assert_eq!(fail(939, "c10e456241300f"), invalid(939, 4, 0x41));
    // A valid-looking pair with no character (0x4159, unassigned in 939).
    assert_eq!(fail(939, "0e456241590f"), invalid(939, 3, 0x41));
    // A lone first byte before SI.
    assert_eq!(fail(939, "c10e450fc1"), invalid(939, 2, 0x45));
    // An undefined single byte: uconv -f ibm-930 "position 1. Bytes: 57".
    assert_eq!(fail(930, "f057"), invalid(930, 1, 0x57));
    // The MQ reason is MQRC_NOT_CONVERTED, as for every conversion error.
    assert_eq!(fail(939, "c10e45").mqrc().0, 2119);
}

#[test]
fn invalid_bytes_are_substituted_when_asked() {
    let sub = opts(NewlinePolicy::Table, OnUnmappable::Substitute);
    // uconv --from-callback substitute gives "A日\uFFFD" for the illegal
    // pair; the pair is one substitution.
    let d = decode(&hex("c10e456241300f"), c(939), &sub).unwrap();
    assert_eq!((d.text.as_str(), d.substitutions), ("A日\u{FFFD}", 1));
    // A lone first byte is one U+FFFD and the SI still takes effect (ICU
    // writes U+001A for a one-byte sequence; mqgate always writes U+FFFD,
    // docs/ccsid.md).
    let d = decode(&hex("c10e450fc1"), c(939), &sub).unwrap();
    assert_eq!((d.text.as_str(), d.substitutions), ("A\u{FFFD}A", 1));
    let d = decode(&hex("f00e450ff0"), c(939), &sub).unwrap();
    assert_eq!((d.text.as_str(), d.substitutions), ("0\u{FFFD}0", 1));
    // Truncated at the end.
    let d = decode(&hex("f00e4562f0"), c(939), &sub).unwrap();
    assert_eq!((d.text.as_str(), d.substitutions), ("0日\u{FFFD}", 1));
}

#[test]
fn unmappable_characters_fail_at_their_offset_or_take_icus_substitution() {
    // 935 (Simplified) has no 語: byte offset 6 in the UTF-8 text.
    let e = encode("日本語", c(935), &TABLE).unwrap_err();
    assert_eq!(
        e,
        ConvertError::Unmappable {
            ccsid: 935,
            offset: 6,
            ch: '語'
        }
    );
    // Converting 930 bytes, the offset is the one of 語 in the 930 input.
    let from930 = hex("0e4562456648e70f");
    let e = convert(&from930, c(930), c(935), &TABLE).unwrap_err();
    assert_eq!(
        e,
        ConvertError::Unmappable {
            ccsid: 935,
            offset: 5,
            ch: '語'
        }
    );
    // From UTF-16BE: offset 4.
    let utf16: Vec<u8> = "日本語".encode_utf16().flat_map(u16::to_be_bytes).collect();
    let e = convert(&utf16, c(1200), c(935), &TABLE).unwrap_err();
    assert!(
        matches!(e, ConvertError::Unmappable { offset: 4, .. }),
        "{e:?}"
    );

    let sub = opts(NewlinePolicy::Table, OnUnmappable::Substitute);
    let s = |n: i32, t: &str| {
        let e = encode(t, c(n), &sub).unwrap();
        assert!(e.substitutions > 0);
        e.bytes
    };
    // printf 'A\u0E01B' | uconv -t ibm-930 --to-callback substitute
    assert_eq!(s(930, "A\u{E01}B"), hex("c10efefe0fc2"));
    // U+00C0 is not in 930: single-byte subchar1 0x3F.
    assert_eq!(s(930, "A\u{C0}B"), hex("c13fc2"));
    // U+2195 takes subchar1 in 930 (an ICU |2 mapping).
    assert_eq!(s(930, "A\u{2195}B"), hex("c13fc2"));
    // 1364 uses the double-byte subchar for U+00A0.
    assert_eq!(s(1364, "A\u{A0}B"), hex("c10efefe0fc2"));
    // printf '日本語' | uconv -t ibm-935 --to-callback substitute
    assert_eq!(s(935, "日本語"), hex("0e54d4495efefe0f"));
    // 1390 has U+00C0 as a double byte (no substitution).
    assert_eq!(enc(1390, "A\u{C0}B", &TABLE), hex("c10ed6560fc2"));
}

#[test]
fn sequences_and_supplementary_characters_of_1390() {
    // printf '\u304B\u309A\u304B' | uconv -t ibm-1390 → one code for か゚.
    assert_eq!(
        enc(1390, "\u{304B}\u{309A}\u{304B}", &TABLE),
        hex("0eecb544860f")
    );
    assert_eq!(
        dec(1390, &hex("0eecb544860f"), &TABLE),
        "\u{304B}\u{309A}\u{304B}"
    );
    // printf '\U0002000B' | uconv -t ibm-1390
    assert_eq!(enc(1399, "\u{2000B}", &TABLE), hex("0eb3420f"));
    assert_eq!(dec(1399, &hex("0eb3420f"), &TABLE), "\u{2000B}");
    let t = c(1390).dbcs_table().unwrap();
    assert_eq!(
        t.decode_double(0xB3, 0x42),
        Some(DbcsText::Str("\u{2000B}"))
    );
    assert_eq!(
        t.encode_char('\u{2000B}'),
        Some(DbcsCode::Double([0xB3, 0x42]))
    );
    assert_eq!(t.decode_double(0x45, 0x62), Some(DbcsText::Char('日')));
    assert_eq!(t.encode_char('A'), Some(DbcsCode::Single(0xC1)));
    assert_eq!(t.encode_char('\u{E01}'), None);
    // An error offset after a sequence counts it as the characters it is.
    let bytes = hex("0eecb544860f");
    let e = convert(&bytes, c(1390), c(930), &TABLE).unwrap_err();
    // U+309A is not in 930: it is the second character, at offset 1.
    assert_eq!(
        e,
        ConvertError::Unmappable {
            ccsid: 930,
            offset: 1,
            ch: '\u{309A}'
        }
    );
}

/// CDRA's invariant character set (the syntactic character set, CS 640):
/// letters, digits, space and `+<=>%&*"'(),_-./:;?`; plus LF, which the
/// newline policy maps.
const INVARIANT: &str =
    "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789 +<=>%&*\"'(),_-./:;?\n";

#[test]
fn conversions_within_a_language_never_fail_on_invariant_characters() {
    let groups: [&[i32]; 4] = [&[930, 939, 1390, 1399], &[935, 1388], &[937], &[933, 1364]];
    for group in groups {
        // With the single-byte EBCDIC 037 and 500, whose invariant
        // characters every EBCDIC page shares.
        let members: Vec<i32> = group.iter().copied().chain([37, 500]).collect();
        for policy in [
            NewlinePolicy::NlToLf,
            NewlinePolicy::Table,
            NewlinePolicy::Iso,
        ] {
            let o = opts(policy, OnUnmappable::Fail);
            for &from in &members {
                let src = enc(from, INVARIANT, &o);
                for &to in &members {
                    let out = convert(&src, c(from), c(to), &o)
                        .unwrap_or_else(|e| panic!("{from} -> {to}: {e}"));
                    assert_eq!(out.substitutions, 0);
                    assert_eq!(dec(to, &out.bytes, &o), INVARIANT, "{from} -> {to}");
                    assert_eq!(out.bytes, enc(to, INVARIANT, &o), "{from} -> {to}");
                }
            }
        }
    }
}

#[test]
fn conversions_within_a_language_keep_shared_double_bytes() {
    // Every double byte of the first CCSID that the second also has comes
    // through unchanged in meaning, with SO/SI placed for the target.
    let pairs = [
        (930, 939),
        (939, 930),
        (1390, 1399),
        (1399, 1390),
        (935, 1388),
        (933, 1364),
    ];
    for (from, to) in pairs {
        let (f, t) = (c(from).dbcs_table().unwrap(), c(to).dbcs_table().unwrap());
        let mut text = String::new();
        for lead in 0x40..=0xFEu8 {
            for trail in 0x40..=0xFEu8 {
                if let Some(DbcsText::Char(ch)) = f.decode_double(lead, trail)
                    && t.encode_char(ch).is_some()
                {
                    text.push(ch);
                    text.push_str("A\n");
                }
            }
        }
        assert!(text.len() > 7000 * 3, "{from}: {}", text.len());
        let src = enc(from, &text, &TABLE);
        let out = convert(&src, c(from), c(to), &TABLE).unwrap();
        assert_eq!(dec(to, &out.bytes, &TABLE), text, "{from} -> {to}");
    }
}

#[test]
fn mixed_to_utf8_and_back_through_the_converter() {
    let text = "受注番号 4711、東京都千代田区。Total: 42\n";
    for n in [930, 939, 1390, 1399] {
        let bytes = enc(n, text, &Options::default());
        let utf8 = convert(&bytes, c(n), c(1208), &Options::default()).unwrap();
        assert_eq!(utf8.bytes, text.as_bytes(), "{n}");
        let back = convert(text.as_bytes(), c(1208), c(n), &Options::default()).unwrap();
        assert_eq!(back.bytes, bytes, "{n}");
    }
}

//! Conversion of the MQ headers mqgate knows by their documented layout (MQIIH, MQCIH,
//! MQWIH, MQRMH, MQDH) and of the trigger messages MQTM / MQTMC2 (Format MQTRIG), as MQGET
//! with MQGMO_CONVERT does (IBM MQ "Conversion processing"; the built-in formats of
//! "Processing conventions").
//!
//! Every structure is built here field by field at the offsets of its IBM MQ page's C
//! declaration ("MQIIH - IMS information header", "MQCIH - CICS bridge header", "MQWIH -
//! Work information header", "MQRMH - Reference message header", "MQDH - Distribution
//! header", "MQTM - Trigger message", "MQTMC2 - Trigger message 2 (character format)"), not with mqgate's
//! writers. The expected bytes are the same layout with integers in the target byte
//! order, binary fields unchanged, and every character field converted by glibc iconv
//! (the oracle, run by the test: ISO-8859-1 to IBM500). Each test then converts back
//! and gets the input byte for byte.

use mqgate_codecs::ccsid::{NewlinePolicy, OnUnmappable, Options, convert_for_get};
use mqgate_codecs::mq::chain::Descriptor;
use mqgate_codecs::mq::{CharField, Charset};
use std::io::Write;
use std::process::{Command, Stdio};

const FAIL: Options = Options {
    newline: NewlinePolicy::NlToLf,
    on_unmappable: OnUnmappable::Fail,
};

/// A prerequisite is missing: outside CI the test says SKIP and passes; in
/// CI (`CI` set, as `.ci/run` runs) it fails, since CI must have everything.
fn missing(what: &str) {
    assert!(
        std::env::var_os("CI").is_none(),
        "{what}, and CI is set: .ci/run installs every tool"
    );
    println!("SKIP: {what}");
}

/// `text` from ISO-8859-1 (819) to IBM500 by glibc iconv; `None` without iconv.
fn to_500(text: &[u8]) -> Option<Vec<u8>> {
    let Ok(mut child) = Command::new("iconv")
        .args(["-f", "ISO-8859-1", "-t", "IBM500"])
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .spawn()
    else {
        missing("iconv is not installed");
        return None;
    };
    if let Some(mut stdin) = child.stdin.take() {
        // A closed pipe would show up as a wrong answer below.
        let _ = stdin.write_all(text);
    }
    let out = child.wait_with_output().unwrap();
    assert!(out.status.success(), "iconv -f ISO-8859-1 -t IBM500");
    Some(out.stdout)
}

/// One field of a hand-built structure.
enum Part {
    /// MQCHARn, ASCII (819), blank padded.
    Chars(Vec<u8>),
    /// MQLONG.
    Int(i32),
    /// MQBYTEn.
    Bytes(Vec<u8>),
}

fn ch(s: &str, n: usize) -> Part {
    let mut v = s.as_bytes().to_vec();
    assert!(v.len() <= n, "{s:?} is longer than {n}");
    v.resize(n, b' ');
    Part::Chars(v)
}

/// The structure in 819 with little-endian integers (Encoding 546).
fn ascii_le(parts: &[Part]) -> Vec<u8> {
    let mut out = Vec::new();
    for p in parts {
        match p {
            Part::Chars(c) | Part::Bytes(c) => out.extend_from_slice(c),
            Part::Int(i) => out.extend_from_slice(&i.to_le_bytes()),
        }
    }
    out
}

/// The structure in 500 with big-endian integers (Encoding 785): the character fields
/// converted together by iconv (a single-byte pair, so each keeps its length).
fn ebcdic_be(parts: &[Part]) -> Option<Vec<u8>> {
    let text: Vec<u8> = parts
        .iter()
        .filter_map(|p| match p {
            Part::Chars(c) => Some(c.clone()),
            _ => None,
        })
        .flatten()
        .collect();
    let converted = to_500(&text)?;
    assert_eq!(converted.len(), text.len());
    let mut at = 0;
    let mut out = Vec::new();
    for p in parts {
        match p {
            Part::Chars(c) => {
                out.extend_from_slice(&converted[at..at + c.len()]);
                at += c.len();
            }
            Part::Bytes(b) => out.extend_from_slice(b),
            Part::Int(i) => out.extend_from_slice(&i.to_be_bytes()),
        }
    }
    Some(out)
}

fn described(format: &str, ccsid: i32, encoding: i32) -> Descriptor {
    Descriptor {
        encoding,
        coded_char_set_id: ccsid,
        format: CharField::new(format, Charset::Ascii).unwrap(),
        charset: Charset::Ascii,
    }
}

/// Converts `input` (described by `format`, 819 / 546) to 500 / 785 and checks it
/// against `want`, then converts that back and checks it against `input`.
fn round_trip(format: &str, input: &[u8], want: &[u8]) {
    let r = convert_for_get(input, &described(format, 819, 546), 500, 785, &FAIL);
    assert_eq!(r.reason, None, "{format}: {:?}", r.detail);
    assert_eq!((r.coded_char_set_id, r.encoding), (500, 785), "{format}");
    assert_eq!(hex(&r.data), hex(want), "{format}: 819/546 -> 500/785");
    let back = convert_for_get(&r.data, &described(format, 500, 785), 819, 546, &FAIL);
    assert_eq!(back.reason, None, "{format}: {:?}", back.detail);
    assert_eq!(hex(&back.data), hex(input), "{format}: 500/785 -> 819/546");
}

fn hex(b: &[u8]) -> String {
    b.iter().map(|x| format!("{x:02X}")).collect()
}

/// The 32-byte prefix: StrucId, Version, StrucLength, Encoding, CodedCharSetId,
/// Format, Flags (the first fields of each header's C declaration).
fn prefix(id: &str, version: i32, length: i32, enc: i32, ccsid: i32, format: &str) -> Vec<Part> {
    vec![
        ch(id, 4),
        Part::Int(version),
        Part::Int(length),
        Part::Int(enc),
        Part::Int(ccsid),
        ch(format, 8),
        Part::Int(0),
    ]
}

#[test]
fn mqiih_and_its_mqstr_body() {
    // MQIIH: Encoding and CodedCharSetId reserved (0) and left so; the body after it
    // is in its CCSID and Encoding ("Encoding (MQLONG) for MQIIH"), converted with it.
    let mut iih = prefix("IIH ", 1, 84, 0, 0, "MQSTR");
    iih.extend([
        ch("LTERM01", 8),
        ch("MFSMAP1", 8),
        ch("MQIMSVS", 8),
        ch("", 8),
        Part::Bytes((1..=16).collect()),
        ch("C", 1),
        ch("0", 1),
        ch("C", 1),
        ch("", 1),
    ]);
    let body = [ch("IMS transaction text", 20)];
    let mut input = ascii_le(&iih);
    input.extend(ascii_le(&body));
    assert_eq!(input.len(), 84 + 20);
    let (Some(mut want), Some(b)) = (ebcdic_be(&iih), ebcdic_be(&body)) else {
        return;
    };
    want.extend(b);
    round_trip("MQIMS", &input, &want);
}

#[test]
fn mqcih_version_2() {
    let mut cih = prefix("CIH ", 2, 180, 0, 0, "MQSTR");
    // ReturnCode ... TaskEndStatus: eleven MQLONGs.
    for v in [1, 2, 2080, 273, -1, 1, 100, 3600, 0, 1, 2] {
        cih.push(Part::Int(v));
    }
    cih.extend([
        Part::Bytes(vec![0xC1, 0x00, 0xFF, 0x25, 0x15, 0x40, 0x20, 0x0A]), // Facility
        ch("BACK", 4),
        ch("", 4),
        ch("PASSW0RD", 8),
        ch("", 8),
        ch("MQSTR", 8),
        ch("SYS1", 4),
        ch("", 4),
        ch("TX01", 4),
        ch("", 4),
        ch("", 4),
        ch("TD", 4),
        ch("", 4),
        ch("", 4),
        ch("", 8),
        ch("", 8),
        Part::Int(7),
        Part::Int(0),
        Part::Int(3),
        Part::Int(0),
    ]);
    let body = [ch("commarea", 8)];
    let mut input = ascii_le(&cih);
    assert_eq!(input.len(), 180);
    input.extend(ascii_le(&body));
    let (Some(mut want), Some(b)) = (ebcdic_be(&cih), ebcdic_be(&body)) else {
        return;
    };
    want.extend(b);
    round_trip("MQCICS", &input, &want);
}

#[test]
fn mqwih_describes_its_body() {
    // MQWIH: Encoding / CodedCharSetId describe the next item, so they become 785 / 500
    // with the body.
    let fields = |enc, ccsid| {
        let mut w = prefix("WIH ", 1, 120, enc, ccsid, "MQSTR");
        w.extend([
            ch("SERVICE.A", 32),
            ch("STEP1", 8),
            Part::Bytes(vec![0x5A; 16]),
            ch("", 32),
        ]);
        w
    };
    let body = [ch("work", 4)];
    let mut input = ascii_le(&fields(546, 819));
    assert_eq!(input.len(), 120);
    input.extend(ascii_le(&body));
    let (Some(mut want), Some(b)) = (ebcdic_be(&fields(785, 500)), ebcdic_be(&body)) else {
        return;
    };
    want.extend(b);
    round_trip("MQHWIH", &input, &want);
}

#[test]
fn mqrmh_with_its_strings() {
    // MQRMH: fixed part 108 bytes, then SrcEnv at 108 (8), SrcName at 116 (8), no
    // DestEnv, DestName at 124 (8): StrucLength 132. No bulk data follows (Format
    // MQFMT_NONE), so its Encoding / CodedCharSetId keep describing that (546 / 819).
    let mut rmh = prefix("RMH ", 1, 132, 546, 819, "");
    rmh.extend([
        ch("FLATFILE", 8),
        Part::Bytes((0..24).collect()),
        Part::Int(8),
        Part::Int(108),
        Part::Int(8),
        Part::Int(116),
        Part::Int(0),
        Part::Int(0),
        Part::Int(8),
        Part::Int(124),
        Part::Int(0),
        Part::Int(0),
        Part::Int(0),
        ch("/src/dir", 8),
        ch("file.txt", 8),
        ch("out.txt", 8),
    ]);
    let input = ascii_le(&rmh);
    assert_eq!(input.len(), 132);
    let Some(want) = ebcdic_be(&rmh) else { return };
    round_trip("MQHREF", &input, &want);
    // A string whose length would change (U+00E9 to UTF-8) is refused with 2119; the
    // data comes back as it was.
    let mut grows = input.clone();
    grows[116] = 0xE9;
    let r = convert_for_get(&grows, &described("MQHREF", 819, 546), 1208, 546, &FAIL);
    assert_eq!(r.reason.map(|m| m.0), Some(2119), "{:?}", r.detail);
    assert_eq!(r.data, grows);
    // A string outside StrucLength (DestNameOffset, at 92, moved to 130: 130 + 8 >
    // 132): the header is invalid, 2110.
    let mut outside = input;
    outside[92..96].copy_from_slice(&130i32.to_le_bytes());
    let r = convert_for_get(&outside, &described("MQHREF", 819, 546), 500, 785, &FAIL);
    assert_eq!(r.reason.map(|m| m.0), Some(2110), "{:?}", r.detail);
}

#[test]
fn mqtm_and_mqtmc2_trigger_messages() {
    let tm = [
        ch("TM", 4),
        Part::Int(1),
        ch("APP.IN", 48),
        ch("PROC1", 48),
        ch("trigger data", 64),
        Part::Int(6),
        ch("/opt/app/bin/run", 256),
        ch("", 128),
        ch("user data", 128),
    ];
    let input = ascii_le(&tm);
    assert_eq!(input.len(), 684);
    let Some(want) = ebcdic_be(&tm) else { return };
    round_trip("MQTRIG", &input, &want);
    let tmc2 = [
        ch("TMC", 4),
        ch("   2", 4),
        ch("APP.IN", 48),
        ch("PROC1", 48),
        ch("trigger data", 64),
        ch("   6", 4),
        ch("/opt/app/bin/run", 256),
        ch("", 128),
        ch("user data", 128),
        ch("QM1", 48),
    ];
    let input = ascii_le(&tmc2);
    assert_eq!(input.len(), 732);
    let Some(want) = ebcdic_be(&tmc2) else { return };
    round_trip("MQTRIG", &input, &want);
}

#[test]
fn what_the_layouts_cannot_say_is_refused_with_2110() {
    // The data after an MQIIH is in its CCSID; an MQFMT_NONE body after it cannot be
    // converted with it, so the whole message comes back unconverted (2110).
    let mut iih = prefix("IIH ", 1, 84, 0, 0, "");
    iih.extend([
        ch("", 8),
        ch("", 8),
        ch("", 8),
        ch("", 8),
        Part::Bytes(vec![0; 16]),
        ch("", 4),
    ]);
    let mut input = ascii_le(&iih);
    input.extend_from_slice(&[0xFF, 0x00]);
    let r = convert_for_get(&input, &described("MQIMS", 819, 546), 500, 785, &FAIL);
    assert_eq!(r.reason.map(|m| m.0), Some(2110), "{:?}", r.detail);
    assert_eq!((r.data.as_ref(), r.coded_char_set_id), (&input[..], 819));
    // Format MQTRIG data that is no MQTM: 2110.
    let r = convert_for_get(
        b"not a trigger",
        &described("MQTRIG", 819, 546),
        500,
        785,
        &FAIL,
    );
    assert_eq!(r.reason.map(|m| m.0), Some(2110), "{:?}", r.detail);
    // MQSAPH (Format MQHSAP): its layout is not in the IBM MQ reference, so mqgate
    // does not convert it (docs/ccsid.md): 2110.
    let r = convert_for_get(b"SAPH....", &described("MQHSAP", 819, 546), 500, 785, &FAIL);
    assert_eq!(r.reason.map(|m| m.0), Some(2110), "{:?}", r.detail);
}

#[test]
fn mqdh_with_its_object_and_put_message_records() {
    // MQDH (IBM MQ "MQDH - Distribution header"): 48 bytes, then two MQOR records
    // (ObjectName, ObjectQMgrName: MQCHAR48 each; "MQOR - Object record") at 48 and two
    // MQPMR records at 240 with MsgId (24 bytes) and Feedback (MQLONG): PutMsgRecFields
    // MQPMRF_MSG_ID 0x01 | MQPMRF_FEEDBACK 0x08 ("MQPMR - Put-message record": present
    // fields in order, absent ones take no room). StrucLength 48 + 192 + 56 = 296.
    let dh = |enc, ccsid| {
        let mut d = prefix("DH  ", 1, 296, enc, ccsid, "MQSTR");
        d.extend([
            Part::Int(0x01 | 0x08),
            Part::Int(2),
            Part::Int(48),
            Part::Int(240),
            ch("APP.A", 48),
            ch("QM1", 48),
            ch("APP.B", 48),
            ch("QM2", 48),
            Part::Bytes(vec![0xA1; 24]),
            Part::Int(0),
            Part::Bytes(vec![0xB2; 24]),
            Part::Int(2085),
        ]);
        d
    };
    let body = [ch("to both", 7)];
    let mut input = ascii_le(&dh(546, 819));
    assert_eq!(input.len(), 296);
    input.extend(ascii_le(&body));
    let (Some(mut want), Some(b)) = (ebcdic_be(&dh(785, 500)), ebcdic_be(&body)) else {
        return;
    };
    want.extend(b);
    round_trip("MQHDIST", &input, &want);
    // Records that run past StrucLength (RecsPresent 3): the header is invalid, 2110.
    let mut bad = input;
    bad[36..40].copy_from_slice(&3i32.to_le_bytes());
    let r = convert_for_get(&bad, &described("MQHDIST", 819, 546), 500, 785, &FAIL);
    assert_eq!(r.reason.map(|m| m.0), Some(2110), "{:?}", r.detail);
    assert_eq!(r.data, bad);
}

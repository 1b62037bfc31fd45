//! Chain walking (IBM MQ "MQRFH2 - Rules and formatting header 2": each header's
//! Encoding/CodedCharSetId/Format describe the next item) and the error kinds with their
//! MQRC (IBM MQ "API reason codes").

use std::borrow::Cow;

use mqgate_codecs::mq::md::write_md;
use mqgate_codecs::mq::mde::write_mde;
use mqgate_codecs::mq::opaque::write_opaque;
use mqgate_codecs::mq::rfh::{name_value_string, write_rfh};
use mqgate_codecs::mq::rfh2::write_rfh2;
use mqgate_codecs::mq::xqh::write_xqh;
use mqgate_codecs::mq::{
    ByteOrder, ChainOptions, CharField, Charset, DecodeErrorKind, Descriptor, Header, Mqmd, Mqmde,
    Mqrfh, Mqrfh2, Mqxqh, OpaqueHeader, Structure, parse_chain, write_chain,
};

fn fmt(s: &str, cs: Charset) -> CharField<8> {
    CharField::new(s, cs).unwrap()
}

fn next(encoding: i32, ccsid: i32, format: &str, cs: Charset) -> Descriptor {
    Descriptor {
        encoding,
        coded_char_set_id: ccsid,
        format: fmt(format, cs),
        charset: cs,
    }
}

/// A transmission-queue message as it sits on the transmission queue:
/// outer MD (Format MQXMIT) + XQH (embedded MD v1, Format MQHMDE) + MDE
/// (Format MQHRF2) + RFH2 (Format MQSTR) + body, all in `order` and `cs`.
fn xmit_message(order: ByteOrder, cs: Charset) -> Vec<u8> {
    let enc = order.encoding();
    let outer = Mqmd {
        encoding: enc,
        coded_char_set_id: 819,
        format: fmt("MQXMIT", cs),
        ..Mqmd::default()
    };
    let inner = Mqmd {
        version: 1,
        encoding: enc,
        coded_char_set_id: 819,
        format: fmt("MQHMDE", cs),
        ..Mqmd::default()
    };
    let xqh = Mqxqh {
        version: 1,
        remote_q_name: CharField::new("APP.IN", cs).unwrap(),
        remote_q_mgr_name: CharField::new("QM2", cs).unwrap(),
        msg_desc: inner,
    };
    let mde = Mqmde {
        msg_seq_number: 2,
        ..Mqmde::from_md(&Mqmd::default(), &next(enc, -2, "MQHRF2", cs))
    };
    let mut rfh2 = Mqrfh2::new(&next(enc, 1208, "MQSTR", cs), 1208);
    rfh2.push_folder("<mcd><Msd>jms_text</Msd></mcd>", order)
        .unwrap();
    let mut out = Vec::new();
    write_md(&outer, order, cs, &mut out);
    write_xqh(&xqh, order, cs, &mut out);
    write_mde(&mde, order, cs, &mut out);
    write_rfh2(&rfh2, order, cs, &mut out);
    out.extend_from_slice(b"payload");
    out
}

#[test]
fn transmission_message_chain_in_both_orders_and_charsets() {
    for order in [ByteOrder::Little, ByteOrder::Big] {
        for cs in [Charset::Ascii, Charset::Ebcdic] {
            let msg = xmit_message(order, cs);
            let chain = parse_chain(&msg, &ChainOptions::default()).unwrap();
            let shape: Vec<(Structure, usize, usize)> = chain
                .links
                .iter()
                .map(|l| (l.structure, l.offset, l.length))
                .collect();
            // IBM MQ structure lengths: MD v2 364, XQH 428, MDE 72, RFH2 36 + 4 + 32 =
            // 72.
            assert_eq!(
                shape,
                [
                    (Structure::Md, 0, 364),
                    (Structure::Xqh, 364, 428),
                    (Structure::Mde, 792, 72),
                    (Structure::Rfh2, 864, 72)
                ]
            );
            assert!(
                chain
                    .links
                    .iter()
                    .all(|l| l.charset == cs && l.order() == order)
            );
            // The MDE says MQCCSI_INHERIT (-2): the RFH2 is in the MDE's CCSID (819).
            assert_eq!(chain.links[3].coded_char_set_id, 819);
            assert_eq!(chain.body_offset, 936);
            assert_eq!(chain.body(), b"payload");
            assert_eq!(chain.body_descriptor.format_name(), "MQSTR");
            let decoded = chain.decode().unwrap();
            let Header::Xqh(x) = &decoded.headers[1].header else {
                panic!()
            };
            assert_eq!(x.remote_q_name.text(cs), "APP.IN");
            let Header::Mde(m) = &decoded.headers[2].header else {
                panic!()
            };
            assert_eq!(m.msg_seq_number, 2);
            let mut out = Vec::new();
            write_chain(&decoded, &mut out);
            assert_eq!(out, msg);
        }
    }
}

#[test]
fn bare_xqh_as_a_channel_sends_it() {
    // A message on a channel starts with the XQH (no outer MD).
    let msg = xmit_message(ByteOrder::Little, Charset::Ascii);
    let chain = parse_chain(&msg[364..], &ChainOptions::default()).unwrap();
    assert_eq!(chain.links[0].structure, Structure::Xqh);
    assert_eq!(chain.links[0].encoding, 546); // detected from Version 01 00 00 00
    assert_eq!(chain.links.len(), 3);
    // Told the wrong encoding, the Version reads 0x01000000: unsupported.
    let opts = ChainOptions {
        encoding: Some(273),
        ..ChainOptions::default()
    };
    let err = parse_chain(&msg[364..], &opts).unwrap_err();
    assert_eq!(
        err.error.kind,
        DecodeErrorKind::UnsupportedVersion {
            version: 0x0100_0000
        }
    );
    assert_eq!((err.error.offset, err.error.mqrc().0), (4, 2142));
    assert!(err.partial.links.is_empty());
}

#[test]
fn mixed_byte_orders_follow_the_encoding_of_the_structure_before() {
    // Each header is in the encoding the structure before it names: a
    // little-endian MD saying Encoding 273 is followed by a big-endian MQRFH2.
    let md = Mqmd {
        encoding: 273,
        format: fmt("MQHRF2", Charset::Ascii),
        ..Mqmd::default()
    };
    let mut r = Mqrfh2::new(&next(546, 1208, "MQHRF", Charset::Ascii), 1208);
    r.push_folder("<usr/>", ByteOrder::Big).unwrap();
    let v1 = Mqrfh::from_pairs(
        &next(546, 1208, "MQSTR", Charset::Ascii),
        &[("a", "b c")],
        Charset::Ascii,
    )
    .unwrap();
    let mut msg = Vec::new();
    write_md(&md, ByteOrder::Little, Charset::Ascii, &mut msg);
    write_rfh2(&r, ByteOrder::Big, Charset::Ascii, &mut msg);
    write_rfh(&v1, ByteOrder::Little, Charset::Ascii, &mut msg);
    let chain = parse_chain(&msg, &ChainOptions::default()).unwrap();
    let orders: Vec<ByteOrder> = chain.links.iter().map(|l| l.order()).collect();
    assert_eq!(
        orders,
        [ByteOrder::Little, ByteOrder::Big, ByteOrder::Little]
    );
    let Header::Rfh(h) = chain.links[2].decode(&msg).unwrap() else {
        panic!()
    };
    let pairs = h.pairs(Charset::Ascii).unwrap();
    assert_eq!(
        pairs,
        [(Cow::Borrowed(&b"a"[..]), Cow::Borrowed(&b"b c"[..]))]
    );
    assert!(chain.body().is_empty());
}

#[test]
fn options_override_the_start() {
    // Format given: the input has no MD; the format says what it starts with.
    let mut r = Mqrfh2::new(&next(273, 1208, "MQSTR", Charset::Ascii), 1208);
    r.push_folder("<a/>", ByteOrder::Big).unwrap();
    let mut msg = Vec::new();
    write_rfh2(&r, ByteOrder::Big, Charset::Ascii, &mut msg);
    msg.extend_from_slice(b"xyz");
    let opts = ChainOptions {
        encoding: Some(273),
        ccsid: Some(1208),
        format: Some(CharField(*b"MQHRF2  ")),
    };
    let chain = parse_chain(&msg, &opts).unwrap();
    assert_eq!(
        (chain.links[0].structure, chain.links[0].coded_char_set_id),
        (Structure::Rfh2, 1208)
    );
    assert_eq!(chain.body(), b"xyz");
    // A format that names no header: all body, described by the options.
    let opts = ChainOptions {
        format: Some(CharField(*b"MQSTR   ")),
        ..opts
    };
    let chain = parse_chain(&msg, &opts).unwrap();
    assert!(chain.links.is_empty());
    assert_eq!(
        (chain.body_offset, chain.body_descriptor.encoding),
        (0, 273)
    );
    // Nothing recognisable and no options: all body, Format blank.
    let chain = parse_chain(b"just text", &ChainOptions::default()).unwrap();
    assert_eq!((chain.links.len(), chain.body()), (0, &b"just text"[..]));
    assert_eq!(chain.body_descriptor.format_name(), "");
}

#[test]
fn unknown_format_ends_the_chain() {
    // MQHSAP (the MQSAPH of the IBM MQ Link for R/3) is no header mqgate reads
    // (docs/ccsid.md: its layout is not in the IBM MQ reference): the body.
    let md = Mqmd {
        format: fmt("MQHSAP", Charset::Ascii),
        ..Mqmd::default()
    };
    let mut msg = Vec::new();
    write_md(&md, ByteOrder::Little, Charset::Ascii, &mut msg);
    msg.extend_from_slice(b"SAPH\x01\0\0\0");
    let chain = parse_chain(&msg, &ChainOptions::default()).unwrap();
    assert_eq!(chain.links.len(), 1);
    assert_eq!(chain.body_offset, 364);
    assert_eq!(chain.body_descriptor.format_name(), "MQHSAP");
}

#[test]
fn work_info_and_reference_headers_are_chained_and_iih_passes_on_its_descriptor() {
    // IBM MQ "MQWIH - Work information header" (120 bytes, Format MQHWIH, its
    // Encoding / CodedCharSetId describe the next item) and "Encoding (MQLONG) for
    // MQIIH" (reserved: what follows an MQIIH is in its own encoding and CCSID).
    let md = Mqmd {
        format: fmt("MQHWIH", Charset::Ascii),
        encoding: 546,
        coded_char_set_id: 819,
        ..Mqmd::default()
    };
    let wih = OpaqueHeader {
        structure: Structure::Wih,
        version: 1,
        encoding: 546,
        coded_char_set_id: 850,
        format: fmt("MQIMS", Charset::Ascii),
        flags: 0,
        rest: Cow::Owned(vec![b' '; 88]),
    };
    let iih = OpaqueHeader {
        structure: Structure::Iih,
        version: 1,
        encoding: 0,
        coded_char_set_id: 0,
        format: fmt("MQSTR", Charset::Ascii),
        flags: 0,
        rest: Cow::Owned(vec![b' '; 52]),
    };
    let mut msg = Vec::new();
    write_md(&md, ByteOrder::Little, Charset::Ascii, &mut msg);
    write_opaque(&wih, ByteOrder::Little, Charset::Ascii, &mut msg);
    write_opaque(&iih, ByteOrder::Little, Charset::Ascii, &mut msg);
    msg.extend_from_slice(b"body");
    let chain = parse_chain(&msg, &ChainOptions::default()).unwrap();
    let shape: Vec<(Structure, usize, i32)> = chain
        .links
        .iter()
        .map(|l| (l.structure, l.length, l.coded_char_set_id))
        .collect();
    assert_eq!(
        shape,
        [
            (Structure::Md, 364, 0),
            (Structure::Wih, 120, 819),
            (Structure::Iih, 84, 850)
        ]
    );
    // The body is in the MQIIH's own CCSID / encoding (850 / 546), not its 0 / 0.
    assert_eq!(
        (
            chain.body_descriptor.coded_char_set_id,
            chain.body_descriptor.encoding
        ),
        (850, 546)
    );
    assert_eq!(chain.body(), b"body");
    let mut out = Vec::new();
    write_chain(&chain.decode().unwrap(), &mut out);
    assert_eq!(out, msg);
}

#[test]
fn struc_id_must_match_the_format() {
    // MD says MQHRF2 but an MDE follows: bad StrucId for the RFH2, 2334.
    let md = Mqmd {
        format: fmt("MQHRF2", Charset::Ascii),
        ..Mqmd::default()
    };
    let mut msg = Vec::new();
    write_md(&md, ByteOrder::Little, Charset::Ascii, &mut msg);
    write_mde(
        &Mqmde::default(),
        ByteOrder::Little,
        Charset::Ascii,
        &mut msg,
    );
    let err = parse_chain(&msg, &ChainOptions::default()).unwrap_err();
    assert_eq!(err.error.structure, Structure::Rfh2);
    assert_eq!(
        err.error.kind,
        DecodeErrorKind::BadStrucId { found: *b"MDE " }
    );
    assert_eq!((err.error.offset, err.error.mqrc().0), (364, 2334));
    assert_eq!(
        err.to_string(),
        "MQRFH2 at offset 364: bad StrucId 4D444520 (2334 MQRC_RFH_ERROR)"
    );
    // The partial result: the MD, and the rest as body.
    assert_eq!(err.partial.links.len(), 1);
    assert_eq!(err.partial.body().len(), 72);
}

#[test]
fn truncated_chain_keeps_what_was_decoded() {
    let msg = xmit_message(ByteOrder::Little, Charset::Ascii);
    let cut = &msg[..900];
    let err = parse_chain(cut, &ChainOptions::default()).unwrap_err();
    assert_eq!(err.partial.links.len(), 3);
    assert_eq!(err.error.structure, Structure::Rfh2);
    // RFH2 at 864: StrucLength 72 runs past the 36 bytes left.
    assert_eq!(err.error.offset, 864 + 8);
    assert_eq!(
        err.error.kind,
        DecodeErrorKind::StrucLengthOutOfRange {
            struc_length: 72,
            min: 36,
            max: 36
        }
    );
    let err = parse_chain(&msg[..500], &ChainOptions::default()).unwrap_err();
    assert_eq!(
        err.error.kind,
        DecodeErrorKind::Truncated {
            needed: 428,
            available: 136
        }
    );
    assert_eq!((err.error.offset, err.error.mqrc().0), (364, 2142));
    let err = parse_chain(&msg[..100], &ChainOptions::default()).unwrap_err();
    assert_eq!(
        (err.error.structure, err.error.mqrc().0),
        (Structure::Md, 2026)
    );
}

/// Bytes to overwrite at offsets from the RFH2's start.
type Patch<'a> = &'a [(usize, &'a [u8])];

/// An RFH2 (LE) after an MD, with the given bytes patched in.
fn rfh2_message(patch: Patch<'_>) -> Vec<u8> {
    let md = Mqmd {
        format: fmt("MQHRF2", Charset::Ascii),
        ..Mqmd::default()
    };
    let mut r = Mqrfh2::new(&next(546, 1208, "MQSTR", Charset::Ascii), 1208);
    r.push_folder("<usr><a>1</a></usr>", ByteOrder::Little)
        .unwrap(); // 19 → 20 bytes
    let mut msg = Vec::new();
    write_md(&md, ByteOrder::Little, Charset::Ascii, &mut msg);
    write_rfh2(&r, ByteOrder::Little, Charset::Ascii, &mut msg);
    for (off, bytes) in patch {
        msg[364 + off..364 + off + bytes.len()].copy_from_slice(bytes);
    }
    msg
}

#[test]
fn rfh2_error_kinds() {
    // The unpatched message is fine: StrucLength 60 = 36 + 4 + 20.
    let ok = rfh2_message(&[]);
    assert_eq!(
        parse_chain(&ok, &ChainOptions::default()).unwrap().links[1].length,
        60
    );
    let cases: [(Patch, usize, DecodeErrorKind, i32); 6] = [
        (
            &[(8, &[58, 0, 0, 0])],
            8,
            DecodeErrorKind::StrucLengthNotMultipleOf4 { struc_length: 58 },
            2334,
        ),
        (
            &[(8, &[32, 0, 0, 0])],
            8,
            DecodeErrorKind::StrucLengthOutOfRange {
                struc_length: 32,
                min: 36,
                max: 60,
            },
            2334,
        ),
        (
            &[(36, &[0xFC, 0xFF, 0xFF, 0xFF])],
            36,
            DecodeErrorKind::NameValueLengthOutOfRange {
                name_value_length: -4,
                max: 20,
            },
            2334,
        ),
        (
            &[(36, &[24, 0, 0, 0])],
            36,
            DecodeErrorKind::NameValueLengthOutOfRange {
                name_value_length: 24,
                max: 20,
            },
            2334,
        ),
        (
            &[(32, &[0x33, 0x03, 0, 0])],
            32,
            DecodeErrorKind::BadNameValueCcsid { ccsid: 819 },
            2334,
        ),
        (
            &[(4, &[3, 0, 0, 0])],
            4,
            DecodeErrorKind::UnsupportedVersion { version: 3 },
            2334,
        ),
    ];
    for (patch, off, kind, rc) in cases {
        let msg = rfh2_message(patch);
        let err = parse_chain(&msg, &ChainOptions::default()).unwrap_err();
        assert_eq!(err.error.kind, kind);
        assert_eq!(err.error.offset, 364 + off);
        assert_eq!(err.error.mqrc().0, rc);
    }
    // NameValueLength 12 in StrucLength 60 leaves 8 bytes: the next
    // NameValueLength is read from folder text (`></u`) and is out of range.
    let msg = rfh2_message(&[(36, &[12, 0, 0, 0])]);
    let err = parse_chain(&msg, &ChainOptions::default()).unwrap_err();
    assert_eq!(err.error.offset, 364 + 52);
    // Invalid UTF-8 folder text is found when the folder is decoded: 2335.
    let msg = rfh2_message(&[(40, &[0xFF])]);
    let chain = parse_chain(&msg, &ChainOptions::default()).unwrap();
    let Header::Rfh2(r) = chain.links[1].decode(&msg).unwrap() else {
        panic!()
    };
    let e = r.folders[0].text(1208, ByteOrder::Little).unwrap_err();
    assert_eq!(
        (e.mqrc().0, e.kind),
        (2335, DecodeErrorKind::BadFolderText { ccsid: 1208 })
    );
}

#[test]
fn rfh_v1_malformed_string_is_2335() {
    let md = Mqmd {
        format: fmt("MQHRF", Charset::Ascii),
        ..Mqmd::default()
    };
    let r = Mqrfh {
        version: 1,
        encoding: 546,
        coded_char_set_id: 819,
        format: fmt("MQSTR", Charset::Ascii),
        flags: 0,
        name_value_string: Cow::Borrowed(b"name \"unterminated  "),
    };
    let mut msg = Vec::new();
    write_md(&md, ByteOrder::Little, Charset::Ascii, &mut msg);
    write_rfh(&r, ByteOrder::Little, Charset::Ascii, &mut msg);
    let err = parse_chain(&msg, &ChainOptions::default()).unwrap_err();
    assert_eq!(
        err.error.kind,
        DecodeErrorKind::MalformedNameValueString {
            what: "a quote that is never closed"
        }
    );
    // The quote is at byte 5 of the string, 32 + 5 into the RFH.
    assert_eq!((err.error.offset, err.error.mqrc().0), (364 + 37, 2335));
    // EBCDIC name/value string: blank 0x40, quote 0x7F.
    let s = name_value_string(&[("A", "B C")], Charset::Ebcdic).unwrap();
    assert_eq!(s, [0xC1, 0x40, 0x7F, 0xC2, 0x40, 0xC3, 0x7F, 0x40]);
}

#[test]
fn cics_and_ims_headers_pass_through() {
    let md = Mqmd {
        format: fmt("MQCICS", Charset::Ascii),
        ..Mqmd::default()
    };
    let cih = OpaqueHeader {
        structure: Structure::Cih,
        version: 1,
        encoding: 546,
        coded_char_set_id: 1208,
        format: fmt("MQIMS", Charset::Ascii),
        flags: 0,
        rest: Cow::Owned(vec![7; 132]),
    };
    let iih = OpaqueHeader {
        structure: Structure::Iih,
        version: 1,
        format: fmt("MQSTR", Charset::Ascii),
        rest: Cow::Owned(vec![9; 52]),
        ..cih.clone()
    };
    let mut msg = Vec::new();
    write_md(&md, ByteOrder::Little, Charset::Ascii, &mut msg);
    write_opaque(&cih, ByteOrder::Little, Charset::Ascii, &mut msg);
    write_opaque(&iih, ByteOrder::Little, Charset::Ascii, &mut msg);
    msg.extend_from_slice(b"tx");
    let chain = parse_chain(&msg, &ChainOptions::default()).unwrap();
    let shape: Vec<(Structure, usize)> = chain
        .links
        .iter()
        .map(|l| (l.structure, l.length))
        .collect();
    // IBM MQ "MQCIH - CICS bridge header" v1 164, "MQIIH - IMS information header" 84.
    assert_eq!(
        shape,
        [
            (Structure::Md, 364),
            (Structure::Cih, 164),
            (Structure::Iih, 84)
        ]
    );
    assert_eq!(chain.body(), b"tx");
}

//! Seven edge cases of the MQ header codecs, one test each, with the exact bytes.
//! Expected values follow from IBM MQ "MQRFH2 - Rules and formatting header 2", "MQMD -
//! Message descriptor" and "MQDLH - Dead-letter header".

use mqgate_codecs::mq::dlh::{DeadLetter, write_dlh};
use mqgate_codecs::mq::md::{parse_md, write_md};
use mqgate_codecs::mq::rfh2::{Folder, parse_rfh2, write_rfh2};
use mqgate_codecs::mq::{
    ByteOrder, ChainOptions, CharField, Charset, DecodeErrorKind, Descriptor, Header, Mqdlh, Mqmd,
    Mqrfh2, PutTimestamp, Structure, parse_chain, write_chain,
};
use std::borrow::Cow;

/// An MQMD v2, little-endian (Encoding 546 describes what follows it).
fn md_le(format: [u8; 8], encoding: i32, ccsid: i32) -> Vec<u8> {
    let md = Mqmd {
        encoding,
        coded_char_set_id: ccsid,
        format: CharField(format),
        ..Mqmd::default()
    };
    let mut out = Vec::new();
    write_md(&md, ByteOrder::Little, Charset::Ascii, &mut out);
    out
}

/// An RFH2 written by hand, little-endian, with one folder.
fn rfh2_le_by_hand(name_value_ccsid: u32, nvl: u32, folder: &[u8]) -> Vec<u8> {
    let struc_length = 36 + 4 + folder.len() as u32;
    let mut r = Vec::new();
    r.extend_from_slice(&[0x52, 0x46, 0x48, 0x20]); // "RFH "
    r.extend_from_slice(&2u32.to_le_bytes()); // Version
    r.extend_from_slice(&struc_length.to_le_bytes());
    r.extend_from_slice(&546u32.to_le_bytes()); // Encoding of the body
    r.extend_from_slice(&1208u32.to_le_bytes()); // CCSID of the body
    r.extend_from_slice(b"MQSTR   ");
    r.extend_from_slice(&0u32.to_le_bytes()); // Flags
    r.extend_from_slice(&name_value_ccsid.to_le_bytes());
    r.extend_from_slice(&nvl.to_le_bytes());
    r.extend_from_slice(folder);
    r
}

#[test]
fn rfh2_after_md_546_folder_length_20_00_00_00_is_32() {
    // Case 1: folder length bytes `20 00 00 00` after an MD with Encoding 546 →
    // NameValueLength 32 (4-byte little-endian MQLONG), StrucLength 72, body
    // `hello` at offset 72 of the RFH2.
    let folder = b"<usr><a>1</a></usr>             "; // 19 + 13 blanks = 32
    assert_eq!(folder.len(), 32);
    let mut msg = md_le(*b"MQHRF2  ", 546, 1208);
    let rfh2 = rfh2_le_by_hand(1208, 32, folder);
    assert_eq!(&rfh2[36..40], &[0x20, 0x00, 0x00, 0x00]);
    msg.extend_from_slice(&rfh2);
    msg.extend_from_slice(b"hello");

    let chain = parse_chain(&msg, &ChainOptions::default()).unwrap();
    assert_eq!(chain.links.len(), 2);
    let l = chain.links[1];
    assert_eq!(
        (l.structure, l.offset, l.length, l.encoding),
        (Structure::Rfh2, 364, 72, 546)
    );
    assert_eq!(chain.body_offset, 364 + 72);
    assert_eq!(chain.body(), b"hello");
    let Header::Rfh2(r) = l.decode(&msg).unwrap() else {
        panic!("not an RFH2")
    };
    assert_eq!(r.struc_length(), 72);
    assert_eq!(r.folders.len(), 1);
    assert_eq!(r.folders[0].name_value_length(), 32);
    assert_eq!(r.folders[0].offset, 40);
    assert_eq!(
        r.folders[0].text(1208, ByteOrder::Little).unwrap(),
        "<usr><a>1</a></usr>"
    );
    // The same RFH2 on its own: body at offset 72.
    let (alone, _) = parse_rfh2(&rfh2, ByteOrder::Little).unwrap();
    assert_eq!(alone.struc_length(), 72);
}

#[test]
fn building_an_rfh2_gives_the_issue_bytes() {
    // Case 2: an RFH2 with one `<usr>` folder, built byte for byte.
    let folder = "<usr><SomeExtraHeader>abc123</SomeExtraHeader></usr>";
    assert_eq!(folder.len(), 52);
    let next = Descriptor {
        encoding: 546,
        coded_char_set_id: 1208,
        format: CharField(*b"MQSTR   "),
        charset: Charset::Ascii,
    };
    let mut r = Mqrfh2::new(&next, 1208);
    r.push_folder(folder, ByteOrder::Little).unwrap();
    let mut out = Vec::new();
    write_rfh2(&r, ByteOrder::Little, Charset::Ascii, &mut out);
    out.extend_from_slice(b"SOME BODY");
    assert_eq!(&out[0..4], &[0x52, 0x46, 0x48, 0x20]); // StrucId "RFH "
    assert_eq!(&out[4..8], &[2, 0, 0, 0]); // Version 2
    assert_eq!(&out[8..12], &[92, 0, 0, 0]); // StrucLength 92
    assert_eq!(&out[12..16], &[0x22, 0x02, 0, 0]); // Encoding 546
    assert_eq!(&out[16..20], &[0xB8, 0x04, 0, 0]); // CCSID 1208
    assert_eq!(&out[20..28], b"MQSTR   ");
    assert_eq!(&out[32..36], &[0xB8, 0x04, 0, 0]); // NameValueCCSID 1208
    assert_eq!(&out[36..40], &[52, 0, 0, 0]); // NameValueLength 52
    assert_eq!(&out[40..92], folder.as_bytes());
    assert_eq!(&out[92..], b"SOME BODY");
    assert_eq!(out.len(), 101);
}

#[test]
fn name_value_length_26_is_rejected_and_writer_pads_to_4() {
    // Case 3 (NameValueLength must be a multiple of 4): NameValueLength 26 with 28 bytes
    // of folder data.
    let data = b"<usr><a>12345678</a></usr>  ";
    assert_eq!(data.len(), 28);
    let rfh2 = rfh2_le_by_hand(1208, 26, data);
    let e = parse_rfh2(&rfh2, ByteOrder::Little).unwrap_err();
    assert_eq!(e.structure, Structure::Rfh2);
    assert_eq!(e.offset, 36);
    assert_eq!(
        e.kind,
        DecodeErrorKind::NameValueLengthNotMultipleOf4 {
            name_value_length: 26
        }
    );
    assert_eq!(e.mqrc().0, 2334);
    assert_eq!(
        e.to_string(),
        "MQRFH2 at offset 36: NameValueLength 26 is not a multiple of 4 (2334 MQRC_RFH_ERROR)"
    );
    // In a chain after an MD the offset counts from the message start.
    let mut msg = md_le(*b"MQHRF2  ", 546, 1208);
    msg.extend_from_slice(&rfh2);
    let err = parse_chain(&msg, &ChainOptions::default()).unwrap_err();
    assert_eq!(err.error.offset, 364 + 36);
    assert_eq!(err.partial.links.len(), 1);
    assert_eq!(err.partial.body_offset, 364);

    // The writer: 26 bytes of folder data come out as NameValueLength 28, 2 blanks.
    let mut r = Mqrfh2::new(
        &Descriptor {
            encoding: 546,
            coded_char_set_id: 1208,
            format: CharField(*b"MQSTR   "),
            charset: Charset::Ascii,
        },
        1208,
    );
    r.folders.push(Folder {
        offset: 0,
        data: Cow::Borrowed(&data[..26]),
    });
    let mut out = Vec::new();
    write_rfh2(&r, ByteOrder::Little, Charset::Ascii, &mut out);
    assert_eq!(&out[8..12], &[68, 0, 0, 0]);
    assert_eq!(&out[36..40], &[28, 0, 0, 0]);
    assert_eq!(&out[40 + 26..], b"  ");
}

#[test]
fn name_value_ccsid_1200_with_encoding_546_is_utf16_le() {
    // Case 4 (IBM MQ "NameValueCCSID (MQLONG)"): folder data UTF-16 little-endian, the
    // RFH2's own byte order.
    let text = "<usr><Name>Zoë ✓</Name></usr>";
    let mut data: Vec<u8> = text.encode_utf16().flat_map(u16::to_le_bytes).collect();
    while !data.len().is_multiple_of(4) {
        data.extend_from_slice(&[0x20, 0x00]);
    }
    assert_eq!(&data[0..4], &[b'<', 0, b'u', 0]);
    let mut msg = md_le(*b"MQHRF2  ", 546, 1208);
    msg.extend_from_slice(&rfh2_le_by_hand(1200, data.len() as u32, &data));
    let chain = parse_chain(&msg, &ChainOptions::default()).unwrap();
    let Header::Rfh2(r) = chain.links[1].decode(&msg).unwrap() else {
        panic!("not an RFH2")
    };
    assert_eq!(r.name_value_ccsid, 1200);
    assert_eq!(r.folders[0].text(1200, ByteOrder::Little).unwrap(), text);
    // Read big-endian, the same bytes are other (CJK) characters, not the text.
    assert_ne!(
        r.folders[0].text(1200, ByteOrder::Big).ok().as_deref(),
        Some(text)
    );
}

#[test]
fn md_format_with_nuls_continues_the_chain_and_round_trips() {
    // Case 5 (a NUL ends the Format name): MQMD Format bytes 4D 51 48 52 46 32 00 00.
    let fmt = [0x4D, 0x51, 0x48, 0x52, 0x46, 0x32, 0x00, 0x00];
    let mut msg = md_le(fmt, 546, 1208);
    msg.extend_from_slice(&rfh2_le_by_hand(1208, 4, b"<a/>"));
    msg.extend_from_slice(b"body");
    let chain = parse_chain(&msg, &ChainOptions::default()).unwrap();
    assert_eq!(chain.links.len(), 2);
    assert_eq!(chain.links[0].next.format_name(), "MQHRF2");
    assert_eq!(chain.links[1].structure, Structure::Rfh2);
    assert_eq!(chain.body(), b"body");
    // Written back byte-exact, NULs kept.
    let mut decoded = chain.decode().unwrap();
    let mut out = Vec::new();
    write_chain(&decoded, &mut out);
    assert_eq!(out, msg);
    assert_eq!(&out[32..40], &fmt);
    // Rebuilt field: blanks.
    let Header::Md(md) = &mut decoded.headers[0].header else {
        panic!("not an MD")
    };
    md.format = md.format.normalized(Charset::Ascii);
    let mut rebuilt = Vec::new();
    write_chain(&decoded, &mut rebuilt);
    assert_eq!(&rebuilt[32..40], b"MQHRF2  ");
    assert_eq!(rebuilt[..32], msg[..32]);
    assert_eq!(rebuilt[40..], msg[40..]);
}

#[test]
fn msg_id_with_nul_bytes_survives_whole() {
    // Case 6: MsgId is binary (MQBYTE24), never trimmed or converted.
    let hex_id = "414D5120514D544553543030312020205F5500962E17AF43";
    let id: [u8; 24] = hex::decode(hex_id).unwrap().try_into().unwrap();
    assert!(id.contains(&0x00));
    let md = Mqmd {
        msg_id: id,
        correl_id: id,
        ..Mqmd::default()
    };
    for order in [ByteOrder::Little, ByteOrder::Big] {
        let mut out = Vec::new();
        write_md(&md, order, Charset::Ascii, &mut out);
        assert_eq!(&out[48..72], &id); // IBM MQ "MQMD - Message descriptor": MsgId @48
        let (back, _) = parse_md(&out, order).unwrap();
        assert_eq!(hex::encode_upper(back.msg_id), hex_id);
        assert_eq!(hex::encode_upper(back.correl_id), hex_id);
        let mut again = Vec::new();
        write_md(&back, order, Charset::Ascii, &mut again);
        assert_eq!(again, out);
    }
}

#[test]
fn dlh_for_a_message_put_at_2020_12_31_01_02_03_44() {
    // Case 7 (IBM MQ "PutDate (MQCHAR8)", "PutTime (MQCHAR8)"): PutDate `20201231`,
    // PutTime `01020344`.
    let dl = DeadLetter {
        reason: 2085,
        dest_q_name: "APP.IN",
        dest_q_mgr_name: "QM2",
        put_appl_type: 29,
        put_appl_name: "mqgate",
        put_at: PutTimestamp::new(2020, 12, 31, 1, 2, 3, 44).unwrap(),
    };
    for cs in [Charset::Ascii, Charset::Ebcdic] {
        let original = Mqmd {
            format: CharField::new("MQSTR", cs).unwrap(),
            ..Mqmd::default()
        };
        let (dlh, md) = Mqdlh::for_message(&original, &dl, cs).unwrap();
        assert_eq!(dlh.put_date.text(cs), "20201231");
        assert_eq!(dlh.put_time.text(cs), "01020344");
        let mut out = Vec::new();
        write_md(&md, ByteOrder::Little, cs, &mut out);
        write_dlh(&dlh, ByteOrder::Little, cs, &mut out);
        out.extend_from_slice(b"data");
        // IBM MQ "MQDLH - Dead-letter header": PutDate @156, PutTime @164 of the DLH.
        let date = if cs == Charset::Ascii {
            b"2020123101020344".to_vec()
        } else {
            b"2020123101020344"
                .iter()
                .map(|d| d - b'0' + 0xF0)
                .collect()
        };
        assert_eq!(&out[364 + 156..364 + 172], &date[..]);
        let chain = parse_chain(&out, &ChainOptions::default()).unwrap();
        assert_eq!(chain.links[1].structure, Structure::Dlh);
        assert_eq!(chain.links[1].charset, cs);
        assert_eq!(chain.body(), b"data");
        assert_eq!(chain.body_descriptor.format_name(), "MQSTR");
    }
}

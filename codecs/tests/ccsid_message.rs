//! MQ message data conversion (MQGMO_CONVERT; IBM MQ "Application data conversion", the
//! reason code pages 2110 and 2119; layouts: "MQMD - Message descriptor", "MQRFH2 - Rules
//! and formatting header 2").

use mqgate_codecs::ccsid::{NewlinePolicy, OnUnmappable, Options, convert_message};
use mqgate_codecs::mq::chain::{ChainOptions, Descriptor, Header, parse_chain};
use mqgate_codecs::mq::dlh::write_dlh;
use mqgate_codecs::mq::md::write_md;
use mqgate_codecs::mq::rfh::write_rfh;
use mqgate_codecs::mq::rfh2::write_rfh2;
use mqgate_codecs::mq::xqh::write_xqh;
use mqgate_codecs::mq::{ByteOrder, CharField, Charset, Mqdlh, Mqmd, Mqrfh, Mqrfh2, Mqxqh};
use std::borrow::Cow;

const FAIL: Options = Options {
    newline: NewlinePolicy::NlToLf,
    on_unmappable: OnUnmappable::Fail,
};

/// A gzip member header (RFC 1952: 1F 8B, method 08) and some binary bytes.
const GZIP: &[u8] = &[
    0x1F, 0x8B, 0x08, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x03, 0x0A, 0x25, 0x15, 0xFF, 0x00,
];

fn field<const N: usize>(s: &str) -> CharField<N> {
    CharField::new(s, Charset::Ascii).unwrap()
}

fn md(format: &str, ccsid: i32, encoding: i32) -> Mqmd {
    Mqmd {
        format: field(format),
        coded_char_set_id: ccsid,
        encoding,
        msg_id: *b"AMQ QM1         \x01\x02\x03\x04\x05\x06\x07\x08",
        correl_id: [0x25; 24],
        accounting_token: [0x15; 32],
        reply_to_q: field("REPLY.Q"),
        reply_to_q_mgr: field("QM1"),
        user_identifier: field("mqm"),
        put_appl_name: field("app"),
        put_date: field("20261129"),
        put_time: field("17000000"),
        ..Mqmd::default()
    }
}

fn first_md(data: &[u8], opts: &ChainOptions) -> (Mqmd, ByteOrder, Charset) {
    let chain = parse_chain(data, opts).unwrap();
    let d = chain.decode().unwrap();
    match &d.headers[0].header {
        Header::Md(m) => (
            (**m).clone(),
            d.headers[0].link.order(),
            d.headers[0].link.charset,
        ),
        other => panic!("{other:?}"),
    }
}

#[test]
fn format_none_gzip_body_is_returned_unchanged_with_2110() {
    // IBM MQ "Application data conversion": Format MQFMT_NONE (blanks) and a gzip body
    // asked for CCSID 819: body unchanged, warning 2110, CodedCharSetId stays as it was.
    let mut msg = Vec::new();
    write_md(
        &md("", 1208, 546),
        ByteOrder::Little,
        Charset::Ascii,
        &mut msg,
    );
    msg.extend_from_slice(GZIP);
    let r = convert_message(&msg, &ChainOptions::default(), 819, 546, &FAIL);
    assert_eq!(r.reason.map(|m| m.0), Some(2110));
    assert_eq!(r.data, msg);
    assert_eq!(
        first_md(&r.data, &ChainOptions::default())
            .0
            .coded_char_set_id,
        1208
    );
    assert!(r.detail.unwrap().contains("MQFMT_NONE"));
}

fn md_rfh2_gzip() -> Vec<u8> {
    let mut msg = Vec::new();
    write_md(
        &md("MQHRF2", 1208, 546),
        ByteOrder::Little,
        Charset::Ascii,
        &mut msg,
    );
    let body = Descriptor {
        encoding: 546,
        coded_char_set_id: 1208,
        format: CharField::BLANK_ASCII,
        charset: Charset::Ascii,
    };
    let mut rfh2 = Mqrfh2::new(&body, 1208);
    rfh2.push_folder("<mcd><Msd>none</Msd></mcd>", ByteOrder::Little)
        .unwrap();
    write_rfh2(&rfh2, ByteOrder::Little, Charset::Ascii, &mut msg);
    msg.extend_from_slice(GZIP);
    msg
}

#[test]
fn the_same_gzip_body_behind_an_rfh2_converts_the_rfh2_and_succeeds() {
    // The same data behind an RFH2 (a built-in format) converts the RFH2 and succeeds.
    let msg = md_rfh2_gzip();
    let r = convert_message(&msg, &ChainOptions::default(), 819, 546, &FAIL);
    assert_eq!((r.reason, r.substitutions), (None, 0));
    // MD now says the data (the RFH2) is in 819; the RFH2 still describes the
    // untouched body (1208, Format blank); the body is byte for byte the same.
    let chain = parse_chain(&r.data, &ChainOptions::default()).unwrap();
    assert_eq!(chain.links[0].next.coded_char_set_id, 819);
    assert_eq!(chain.body_descriptor.coded_char_set_id, 1208);
    assert_eq!(chain.body(), GZIP);
}

#[test]
fn rfh2_to_ebcdic_big_endian_keeps_folders_and_body() {
    // Target 500 / Encoding 273 (big-endian, IBM MQ "MQENC_* (Encoding)"):
    // StrucIds and Formats in EBCDIC ("RFH " = D9 C6 C8 40), integers big-endian,
    // NameValueData left in its NameValueCCSID 1208.
    let msg = md_rfh2_gzip();
    let r = convert_message(&msg, &ChainOptions::default(), 500, 273, &FAIL);
    assert_eq!(r.reason, None);
    let (m, order, cs) = first_md(&r.data, &ChainOptions::default());
    assert_eq!((order, cs), (ByteOrder::Big, Charset::Ebcdic));
    assert_eq!((m.coded_char_set_id, m.encoding), (500, 273));
    assert_eq!(m.format.0, [0xD4, 0xD8, 0xC8, 0xD9, 0xC6, 0xF2, 0x40, 0x40]); // "MQHRF2  "
    assert_eq!(m.reply_to_q.text(Charset::Ebcdic), "REPLY.Q");
    // Binary fields never change.
    let orig = first_md(&msg, &ChainOptions::default()).0;
    assert_eq!(
        (m.msg_id, m.correl_id, m.accounting_token),
        (orig.msg_id, orig.correl_id, orig.accounting_token)
    );
    let chain = parse_chain(&r.data, &ChainOptions::default()).unwrap();
    let rfh2_at = chain.links[1].offset;
    assert_eq!(&r.data[rfh2_at..rfh2_at + 4], [0xD9, 0xC6, 0xC8, 0x40]);
    let d = chain.decode().unwrap();
    match &d.headers[1].header {
        Header::Rfh2(h) => {
            assert_eq!(
                h.folders[0].text(1208, ByteOrder::Big).unwrap(),
                "<mcd><Msd>none</Msd></mcd>"
            );
            assert_eq!((h.encoding, h.coded_char_set_id), (546, 1208));
            assert_eq!(h.format.0, [0x40; 8]);
        }
        other => panic!("{other:?}"),
    }
    assert_eq!(chain.body(), GZIP);
}

#[test]
fn mqstr_body_and_md_fields_are_converted() {
    // 819 "Hi [x]\n" to 037 with NL_TO_LF: C8 89 40 BA A7 BB 15 (ibm-37 table;
    // [ ] = BA BB and LF = 15 under NL_TO_LF).
    let mut msg = Vec::new();
    write_md(
        &md("MQSTR", 819, 546),
        ByteOrder::Little,
        Charset::Ascii,
        &mut msg,
    );
    let header_len = msg.len();
    msg.extend_from_slice(b"Hi [x]\n");
    let r = convert_message(&msg, &ChainOptions::default(), 37, 273, &FAIL);
    assert_eq!(r.reason, None);
    assert_eq!(
        &r.data[header_len..],
        [0xC8, 0x89, 0x40, 0xBA, 0xA7, 0xBB, 0x15]
    );
    let (m, _, _) = first_md(&r.data, &ChainOptions::default());
    assert_eq!((m.coded_char_set_id, m.encoding), (37, 273));
    assert_eq!(m.put_date.text(Charset::Ebcdic), "20261129");
    // And back to UTF-16LE (1200, Encoding 546): header fields in ASCII.
    let back = convert_message(&r.data, &ChainOptions::default(), 1200, 546, &FAIL);
    assert_eq!(back.reason, None);
    assert_eq!(&back.data[header_len..], b"H\0i\0 \0[\0x\0]\0\n\0");
}

#[test]
fn unsupported_ccsids_return_the_data_unconverted_with_2111_and_2115() {
    // A source CCSID without a table returns the data unconverted with 2111 (IBM MQ
    // "2111 (083F) (RC2111): MQRC_SOURCE_CCSID_ERROR": the CCSID from which data is
    // to be converted is not valid or not supported), a target one with 2115 (IBM MQ
    // "2115 (0843) (RC2115): MQRC_TARGET_CCSID_ERROR").
    let mut msg = Vec::new();
    write_md(
        &md("MQSTR", 4711, 546),
        ByteOrder::Little,
        Charset::Ascii,
        &mut msg,
    );
    msg.extend_from_slice(b"text");
    let r = convert_message(&msg, &ChainOptions::default(), 819, 546, &FAIL);
    assert_eq!((r.reason.map(|m| m.0), r.data == msg), (Some(2111), true));
    assert!(r.detail.unwrap().contains("4711"));
    let mut ok = Vec::new();
    write_md(
        &md("MQSTR", 819, 546),
        ByteOrder::Little,
        Charset::Ascii,
        &mut ok,
    );
    let r = convert_message(&ok, &ChainOptions::default(), 4711, 546, &FAIL);
    assert_eq!((r.reason.map(|m| m.0), r.data == ok), (Some(2115), true));
}

#[test]
fn unmappable_body_character_under_each_policy() {
    // 1140 0x9F is the euro (ICU ibm-1140), which 037 lacks: fail -> 2119 and
    // the data unconverted; substitute -> 0x3F (ibm-37 subchar) and a count of
    // 1.
    let mut msg = Vec::new();
    write_md(
        &md("MQSTR", 1140, 273),
        ByteOrder::Big,
        Charset::Ascii,
        &mut msg,
    );
    let header_len = msg.len();
    msg.extend_from_slice(&[0xC1, 0x9F]);
    let r = convert_message(&msg, &ChainOptions::default(), 37, 273, &FAIL);
    assert_eq!((r.reason.map(|m| m.0), r.data == msg), (Some(2119), true));
    assert!(r.detail.unwrap().contains("offset 1"));
    let sub = Options {
        on_unmappable: OnUnmappable::Substitute,
        ..FAIL
    };
    let r = convert_message(&msg, &ChainOptions::default(), 37, 273, &sub);
    assert_eq!((r.reason, r.substitutions), (None, 1));
    assert_eq!(&r.data[header_len..], [0xC1, 0x3F]);
}

#[test]
fn xqh_dlh_and_rfh_v1_fields_are_converted() {
    // XQH (RemoteQName, RemoteQMgrName, its MD) -> DLH (DestQName ...) -> RFH v1
    // (NameValueString) -> MQSTR, ASCII 819 little-endian to EBCDIC 500 big-endian.
    let mut msg = Vec::new();
    let x = Mqxqh {
        version: 1,
        remote_q_name: field("APP.IN"),
        remote_q_mgr_name: field("QM2"),
        msg_desc: Mqmd {
            version: 1,
            ..md("MQDEAD", 819, 546)
        },
    };
    write_xqh(&x, ByteOrder::Little, Charset::Ascii, &mut msg);
    let dlh = Mqdlh {
        version: 1,
        reason: 2085,
        dest_q_name: field("GONE.Q"),
        dest_q_mgr_name: field("QM2"),
        encoding: 546,
        coded_char_set_id: 819,
        format: field("MQHRF"),
        put_appl_type: 6,
        put_appl_name: field("mqgate"),
        put_date: field("20261129"),
        put_time: field("17000000"),
    };
    write_dlh(&dlh, ByteOrder::Little, Charset::Ascii, &mut msg);
    let rfh = Mqrfh {
        version: 1,
        encoding: 546,
        coded_char_set_id: 819,
        format: field("MQSTR"),
        flags: 0,
        name_value_string: Cow::Borrowed(b"OPT_APP_GRP ABC "),
    };
    write_rfh(&rfh, ByteOrder::Little, Charset::Ascii, &mut msg);
    msg.extend_from_slice(b"ok");
    let r = convert_message(&msg, &ChainOptions::default(), 500, 273, &FAIL);
    assert_eq!(r.reason, None, "{:?}", r.detail);
    let d = parse_chain(&r.data, &ChainOptions::default()).unwrap();
    let d = d.decode().unwrap();
    match &d.headers[0].header {
        Header::Xqh(x) => {
            assert_eq!(x.remote_q_name.text(Charset::Ebcdic), "APP.IN");
            assert_eq!(
                (x.msg_desc.coded_char_set_id, x.msg_desc.encoding),
                (500, 273)
            );
        }
        other => panic!("{other:?}"),
    }
    match &d.headers[1].header {
        Header::Dlh(h) => {
            assert_eq!(
                (h.reason, h.dest_q_name.text(Charset::Ebcdic).as_str()),
                (2085, "GONE.Q")
            );
        }
        other => panic!("{other:?}"),
    }
    match &d.headers[2].header {
        Header::Rfh(h) => {
            // "OPT_APP_GRP ABC " in EBCDIC 500: O=D6 P=D7 T=E3 _=6D ... blank 40.
            assert_eq!(&h.name_value_string[..4], [0xD6, 0xD7, 0xE3, 0x6D]);
            assert_eq!(h.name_value_string[15], 0x40);
        }
        other => panic!("{other:?}"),
    }
    assert_eq!(d.body, [0x96, 0x92]); // "ok" in 500
}

#[test]
fn utf16_rfh2_folders_follow_the_new_byte_order() {
    // IBM MQ "NameValueCCSID (MQLONG)": UTF-16 NameValueData is in the RFH2's
    // byte order, so little-endian 546 -> big-endian 273 swaps each unit; the
    // text stays the same. Body MQSTR "ab" in 819 -> 81 82 in 500.
    let mut msg = Vec::new();
    write_md(
        &md("MQHRF2", 819, 546),
        ByteOrder::Little,
        Charset::Ascii,
        &mut msg,
    );
    let body = Descriptor {
        encoding: 546,
        coded_char_set_id: 819,
        format: field("MQSTR"),
        charset: Charset::Ascii,
    };
    let mut rfh2 = Mqrfh2::new(&body, 1200);
    rfh2.push_folder("<usr><a>é</a></usr>", ByteOrder::Little)
        .unwrap();
    write_rfh2(&rfh2, ByteOrder::Little, Charset::Ascii, &mut msg);
    msg.extend_from_slice(b"ab");
    let r = convert_message(&msg, &ChainOptions::default(), 500, 273, &FAIL);
    assert_eq!(r.reason, None, "{:?}", r.detail);
    let chain = parse_chain(&r.data, &ChainOptions::default()).unwrap();
    let d = chain.decode().unwrap();
    match &d.headers[1].header {
        Header::Rfh2(h) => {
            assert_eq!(
                h.folders[0].text(1200, ByteOrder::Big).unwrap(),
                "<usr><a>é</a></usr>"
            );
            assert_eq!((h.encoding, h.coded_char_set_id), (273, 500));
        }
        other => panic!("{other:?}"),
    }
    assert_eq!(d.body, [0x81, 0x82]);
    // MQ headers cannot be UTF-16: that target is refused with 2115, data untouched
    // (IBM MQ "2115 (0843) (RC2115): MQRC_TARGET_CCSID_ERROR": a message with MQ
    // headers and a target character set without single-byte characters for the
    // characters valid in queue names, UTF-16 being the example).
    let r = convert_message(&msg, &ChainOptions::default(), 1200, 546, &FAIL);
    assert_eq!((r.reason.map(|m| m.0), r.data == msg), (Some(2115), true));
}

//! The `convert` built-in exit (docs/exits.md built-in exits; conversion by the
//! codecs' ccsid module, docs/ccsid.md).

use bytes::BytesMut;
use mqgate_codecs::mq::chain::{ChainOptions, Header, parse_chain};
use mqgate_codecs::mq::xqh::{Mqxqh, write_xqh};
use mqgate_codecs::mq::{ByteOrder, CharField, Charset, Mqmd, Mqrc, Structure};
use mqgate_exits::builtin::Convert;
use mqgate_exits::{ExitPoint, ExitRegistry, ExitsConfig, Verdict};

fn md(format: &str) -> Mqmd {
    Mqmd {
        encoding: 546,
        coded_char_set_id: 819,
        format: CharField::new(format, Charset::Ascii).unwrap(),
        msg_id: [0x41; 24],
        ..Mqmd::default()
    }
}

fn chain(data: &str, point: ExitPoint, object: &str) -> mqgate_exits::ExitChain {
    let section = if point.is_channel_point() {
        "channels"
    } else {
        "queues"
    };
    let yaml = format!(
        "{section}:\n  {object}:\n    {point}:\n      - exit: convert\n        data: \"{data}\"\n"
    );
    let cfg = ExitsConfig::from_yaml_str(&yaml).unwrap();
    ExitRegistry::with_builtins()
        .build_chain(&cfg, point, object, "GW")
        .unwrap()
}

// EBCDIC CCSID 500 code points of "Hello, World" (IBM code page 500:
// H=C8 e=85 l=93 o=96 ,=6B blank=40 W=E6 r=99 d=84).
const HELLO_500: [u8; 12] = [
    0xC8, 0x85, 0x93, 0x93, 0x96, 0x6B, 0x40, 0xE6, 0x96, 0x99, 0x93, 0x84,
];

#[test]
fn after_get_converts_the_body_and_updates_the_mqmd() {
    let mut c = chain("ccsid=500 encoding=785", ExitPoint::AfterGet, "APP.OUT");
    let mut m = md("MQSTR");
    let mut data = BytesMut::from(&b"Hello, World"[..]);
    assert_eq!(
        c.run_after_get(&mut m, Charset::Ascii, &mut data),
        Verdict::Continue
    );
    assert_eq!(&data[..], &HELLO_500);
    // MD now describes the data: Encoding 785 (MQENC_S390), CCSID 500.
    assert_eq!((m.encoding, m.coded_char_set_id), (785, 500));
    // Binary fields are never converted.
    assert_eq!(m.msg_id, [0x41; 24]);
    assert_eq!(m.format.text(Charset::Ascii), "MQSTR");
}

#[test]
fn transmission_message_is_converted_headers_and_body() {
    let x = Mqxqh {
        version: 1,
        remote_q_name: CharField::new("INBOX", Charset::Ascii).unwrap(),
        remote_q_mgr_name: CharField::new("DEV0001", Charset::Ascii).unwrap(),
        msg_desc: Mqmd {
            version: 1,
            ..md("MQSTR")
        },
    };
    let mut v = Vec::new();
    write_xqh(&x, ByteOrder::Little, Charset::Ascii, &mut v);
    v.extend_from_slice(b"Hello, World");
    let mut c = chain("ccsid=500 encoding=785", ExitPoint::Message, "TO.GW");
    let mut buf = BytesMut::from(&v[..]);
    assert_eq!(c.run_buffer(&mut buf), Verdict::Continue);
    // IBM MQ "StrucId (MQCHAR4)": XQH in EBCDIC is E7 D8 C8 40.
    assert_eq!(&buf[..4], &[0xE7, 0xD8, 0xC8, 0x40]);
    let parsed = parse_chain(&buf, &ChainOptions::default()).unwrap();
    assert_eq!(parsed.links[0].structure, Structure::Xqh);
    assert_eq!(parsed.body(), &HELLO_500);
    let d = parsed.decode().unwrap();
    let Header::Xqh(x) = &d.headers[0].header else {
        panic!()
    };
    assert_eq!(x.remote_q_name.text(Charset::Ebcdic), "INBOX");
    assert_eq!(x.remote_q_mgr_name.text(Charset::Ebcdic), "DEV0001");
    assert_eq!(x.msg_desc.encoding, 785);
    assert_eq!(x.msg_desc.coded_char_set_id, 500);
}

#[test]
fn unconvertible_format_passes_or_is_suppressed_with_2110() {
    // MQFMT_NONE data cannot be converted: 2110 MQRC_FORMAT_ERROR (docs/ccsid.md).
    for (data, want) in [
        ("ccsid=500", None),
        ("ccsid=500 on_error=suppress", Some(Mqrc(2110))),
    ] {
        let mut c = chain(data, ExitPoint::AfterGet, "APP.OUT");
        let mut m = md("");
        let mut body = BytesMut::from(&b"\x00\x01binary"[..]);
        let v = c.run_after_get(&mut m, Charset::Ascii, &mut body);
        match want {
            None => assert_eq!(v, Verdict::Continue, "{data}"),
            Some(rc) => assert!(
                matches!(v, Verdict::Suppress { reason, .. } if reason == rc),
                "{data}: {v:?}"
            ),
        }
        assert_eq!(&body[..], b"\x00\x01binary");
        assert_eq!((m.encoding, m.coded_char_set_id), (546, 819));
    }
}

#[test]
fn exit_data_is_checked() {
    assert!(Convert::from_exit_data("ccsid=1208").is_ok());
    for (data, needle) in [
        ("", "ccsid=N"),
        ("ccsid=abc", "number"),
        ("ccsid=99999", "99999"),
        ("ccsid=500 unmappable=drop", "unmappable"),
        ("ccsid=500 on_error=ignore", "on_error"),
        ("ccsid=500 colour=red", "unknown key"),
    ] {
        let e = Convert::from_exit_data(data).unwrap_err().to_string();
        assert!(e.contains(needle), "{data}: {e}");
    }
}

#[test]
fn a_conversion_warning_is_the_calls_warning_not_only_a_log_line() {
    // on_error=pass: the message goes on as MQGET with MQGMO_CONVERT hands it back
    // (IBM MQ "Conversion processing": MQFMT_NONE is returned unconverted with
    // MQCC_WARNING and 2110 MQRC_FORMAT_ERROR), and the chain reports 2110 to the
    // caller; a converted message reports none.
    let mut c = chain("ccsid=500", ExitPoint::AfterGet, "APP.OUT");
    let mut m = md("");
    let mut body = BytesMut::from(&b"\x00\x01binary"[..]);
    let (v, w) = c.run_after_get_reporting(&mut m, Charset::Ascii, &mut body, None);
    assert_eq!(v, Verdict::Continue);
    let w = w.expect("a warning");
    assert_eq!(w.reason, Mqrc::FORMAT_ERROR);
    assert!(w.detail.contains("MQFMT_NONE"), "{}", w.detail);
    assert_eq!((m.encoding, m.coded_char_set_id), (546, 819));
    let mut m = md("MQSTR");
    let mut data = BytesMut::from(&b"Hello, World"[..]);
    let (v, w) = c.run_after_get_reporting(&mut m, Charset::Ascii, &mut data, None);
    assert_eq!((v, w), (Verdict::Continue, None));
    assert_eq!(&data[..], &HELLO_500);
}

#[test]
fn a_message_with_ccsid_0_is_in_the_queue_managers_ccsid() {
    // IBM MQ "MQMD - CodedCharSetId": MQCCSI_Q_MGR (0) is the queue manager's CCSID,
    // 1208 for mqgate (docs/ccsid.md); "Hello, World" is the same bytes in UTF-8 and
    // 819, so the result is HELLO_500 and the MD says 500 / 785.
    let mut c = chain("ccsid=500 encoding=785", ExitPoint::BeforePut, "APP.IN");
    let mut m = Mqmd {
        coded_char_set_id: 0,
        ..md("MQSTR")
    };
    let mut data = BytesMut::from(&b"Hello, World"[..]);
    let mut pmo = mqgate_exits::PutOptions::default();
    assert_eq!(
        c.run_before_put(&mut m, Charset::Ascii, &mut data, &mut pmo),
        Verdict::Continue
    );
    assert_eq!(&data[..], &HELLO_500);
    assert_eq!((m.encoding, m.coded_char_set_id), (785, 500));
}

//! rfh-properties: add, override and remove MQRFH v1 pairs and MQRFH2 <usr>
//! properties (docs/exits.md built-in exits; IBM MQ "MQRFH - Rules and formatting header").

use bytes::BytesMut;
use mqgate_codecs::mq::chain::{ChainOptions, Descriptor, Header, parse_chain};
use mqgate_codecs::mq::rfh::{Mqrfh, write_rfh};
use mqgate_codecs::mq::rfh2::{Mqrfh2, write_rfh2};
use mqgate_codecs::mq::xqh::{Mqxqh, write_xqh};
use mqgate_codecs::mq::{ByteOrder, CharField, Charset, Mqmd, Structure};
use mqgate_exits::builtin::RfhProperties;
use mqgate_exits::{ExitPoint, ExitRegistry, ExitsConfig, PutOptions, Verdict};

fn fmt(s: &str) -> CharField<8> {
    CharField::new(s, Charset::Ascii).unwrap()
}

fn desc(format: &str) -> Descriptor {
    Descriptor {
        encoding: 546,
        coded_char_set_id: 1208,
        format: fmt(format),
        charset: Charset::Ascii,
    }
}

fn md(format: &str) -> Mqmd {
    Mqmd {
        encoding: 546,
        coded_char_set_id: 1208,
        format: fmt(format),
        ..Mqmd::default()
    }
}

fn chain_of(md: &Mqmd, data: &[u8]) -> Vec<(Structure, Header<'static>)> {
    let opts = ChainOptions {
        encoding: Some(md.encoding),
        ccsid: Some(md.coded_char_set_id),
        format: Some(md.format),
    };
    let c = parse_chain(data, &opts).unwrap();
    let d = c.decode().unwrap();
    d.headers
        .into_iter()
        .map(|h| {
            let owned = match h.header {
                Header::Rfh(r) => Header::Rfh(Mqrfh {
                    name_value_string: r.name_value_string.into_owned().into(),
                    ..r
                }),
                Header::Rfh2(r) => Header::Rfh2(Mqrfh2 {
                    folders: r
                        .folders
                        .into_iter()
                        .map(|f| mqgate_codecs::mq::rfh2::Folder {
                            offset: f.offset,
                            data: f.data.into_owned().into(),
                        })
                        .collect(),
                    ..r
                }),
                _ => panic!("unexpected header"),
            };
            (h.link.structure, owned)
        })
        .collect()
}

fn usr_text(r: &Mqrfh2<'_>, index: usize) -> String {
    r.folders[index].text(1208, ByteOrder::Little).unwrap()
}

#[test]
fn headers_are_added_before_the_body_when_missing() {
    let exit = RfhProperties::from_exit_data("rfh.App=GW usr.Region=EU").unwrap();
    let mut m = md("MQSTR");
    let out = exit.edit_message(&mut m, Charset::Ascii, b"hello").unwrap();
    // MD -> MQRFH (v1) -> MQRFH2 -> body, Formats chained (IBM MQ "Format (MQCHAR8)").
    assert_eq!(m.format.text(Charset::Ascii), "MQHRF");
    let c = chain_of(&m, &out);
    assert_eq!(c.len(), 2);
    let Header::Rfh(r) = &c[0].1 else { panic!() };
    assert_eq!(r.format.text(Charset::Ascii), "MQHRF2");
    let pairs = r.pairs(Charset::Ascii).unwrap();
    assert_eq!(pairs.len(), 1);
    assert_eq!(
        (&pairs[0].0[..], &pairs[0].1[..]),
        (&b"App"[..], &b"GW"[..])
    );
    let Header::Rfh2(r2) = &c[1].1 else { panic!() };
    assert_eq!(r2.format.text(Charset::Ascii), "MQSTR");
    assert_eq!(r2.coded_char_set_id, 1208);
    assert_eq!(usr_text(r2, 0), "<usr><Region>EU</Region></usr>");
    assert!(out.ends_with(b"hello"));
}

#[test]
fn usr_properties_are_overridden_added_and_removed() {
    let mut r2 = Mqrfh2::new(&desc("MQSTR"), 1208);
    r2.push_folder("<mcd><Msd>jms_text</Msd></mcd>", ByteOrder::Little)
        .unwrap();
    r2.push_folder(
        "<usr><Region>US</Region><Tier dt='i4'>3</Tier><Keep>x</Keep><Empty/></usr>",
        ByteOrder::Little,
    )
    .unwrap();
    let mut data = Vec::new();
    write_rfh2(&r2, ByteOrder::Little, Charset::Ascii, &mut data);
    let mcd_bytes = r2.folders[0].data.to_vec();
    data.extend_from_slice(b"body");
    let mut m = md("MQHRF2");
    let exit =
        RfhProperties::from_exit_data("usr.Region=EU, remove=usr.Tier, usr.New=a&b").unwrap();
    let out = exit.edit_message(&mut m, Charset::Ascii, &data).unwrap();
    assert_eq!(m, md("MQHRF2"));
    let c = chain_of(&m, &out);
    let Header::Rfh2(r) = &c[0].1 else { panic!() };
    // The other folder is kept byte for byte.
    assert_eq!(&r.folders[0].data[..], &mcd_bytes[..]);
    assert_eq!(
        usr_text(r, 1),
        "<usr><Region>EU</Region><Keep>x</Keep><Empty></Empty><New>a&amp;b</New></usr>"
    );
    assert!(out.ends_with(b"body"));
    // NameValueLength multiple of 4 (IBM MQ "MQRFH2 - Rules and formatting header 2").
    assert_eq!(r.folders[1].data.len() % 4, 0);
}

#[test]
fn rfh_v1_pairs_are_overridden_and_removed() {
    let r = Mqrfh::from_pairs(
        &desc("MQSTR"),
        &[("OPT", "old"), ("DROP", "me"), ("KEEP", "x")],
        Charset::Ascii,
    )
    .unwrap();
    let mut data = Vec::new();
    write_rfh(&r, ByteOrder::Little, Charset::Ascii, &mut data);
    data.extend_from_slice(b"body");
    let mut m = md("MQHRF");
    let exit = RfhProperties::from_exit_data("rfh.OPT=new remove=rfh.DROP").unwrap();
    let out = exit.edit_message(&mut m, Charset::Ascii, &data).unwrap();
    let c = chain_of(&m, &out);
    let Header::Rfh(r) = &c[0].1 else { panic!() };
    let pairs: Vec<(String, String)> = r
        .pairs(Charset::Ascii)
        .unwrap()
        .iter()
        .map(|(n, v)| {
            (
                String::from_utf8(n.to_vec()).unwrap(),
                String::from_utf8(v.to_vec()).unwrap(),
            )
        })
        .collect();
    assert_eq!(
        pairs,
        [
            ("OPT".to_string(), "new".to_string()),
            ("KEEP".to_string(), "x".to_string())
        ]
    );
    // StrucLength a multiple of 4 (IBM MQ "MQRFH2 - Rules and formatting header 2").
    assert_eq!((out.len() - 4) % 4, 0);
}

#[test]
fn removing_from_a_message_without_headers_changes_nothing() {
    let exit = RfhProperties::from_exit_data("remove=usr.Region").unwrap();
    let mut m = md("MQSTR");
    let out = exit.edit_message(&mut m, Charset::Ascii, b"hello").unwrap();
    assert_eq!(out, b"hello");
    assert_eq!(m, md("MQSTR"));
}

#[test]
fn transmission_message_gets_the_rfh2_after_the_xqh() {
    let x = Mqxqh {
        version: 1,
        remote_q_name: CharField::new("INBOX", Charset::Ascii).unwrap(),
        remote_q_mgr_name: CharField::new("DEV1", Charset::Ascii).unwrap(),
        msg_desc: Mqmd {
            version: 1,
            ..md("MQSTR")
        },
    };
    let mut v = Vec::new();
    write_xqh(&x, ByteOrder::Little, Charset::Ascii, &mut v);
    v.extend_from_slice(b"payload");
    let cfg = ExitsConfig::from_yaml_str(
        "channels:\n  TO.GW:\n    message:\n      - exit: rfh-properties\n        data: \"usr.Via=mqgate\"\n",
    )
    .unwrap();
    let mut chain = ExitRegistry::with_builtins()
        .build_chain(&cfg, ExitPoint::Message, "TO.GW", "GW")
        .unwrap();
    let mut buf = BytesMut::from(&v[..]);
    assert_eq!(chain.run_buffer(&mut buf), Verdict::Continue);
    let c = parse_chain(&buf, &ChainOptions::default()).unwrap();
    let kinds: Vec<Structure> = c.links.iter().map(|l| l.structure).collect();
    assert_eq!(kinds, [Structure::Xqh, Structure::Rfh2]);
    assert_eq!(c.body(), b"payload");
    let d = c.decode().unwrap();
    let Header::Rfh2(r) = &d.headers[1].header else {
        panic!()
    };
    assert_eq!(usr_text(r, 0), "<usr><Via>mqgate</Via></usr>");
    // The XQH's routing fields are unchanged; only the embedded MD's Format
    // (offset 104 + 32: IBM MQ "MQXQH - Transmission-queue header", MsgDesc @104;
    // "MQMD - Message descriptor", Format @32) now names the RFH2.
    assert_eq!(&buf[..136], &v[..136]);
    assert_eq!(&buf[136..144], b"MQHRF2  ");
    assert_eq!(&buf[144..428], &v[144..428]);
}

#[test]
fn before_put_through_the_registry_and_unreadable_headers_fail_cleanly() {
    let cfg = ExitsConfig::from_yaml_str(
        "queues:\n  APP.IN:\n    before_put:\n      - exit: rfh-properties\n        data: \"usr.Region=EU\"\n        on_failure: dead-letter\n",
    )
    .unwrap();
    let mut chain = ExitRegistry::with_builtins()
        .build_chain(&cfg, ExitPoint::BeforePut, "APP.IN", "GW")
        .unwrap();
    let mut m = md("MQSTR");
    let mut data = BytesMut::from(&b"hi"[..]);
    let mut pmo = PutOptions::default();
    assert_eq!(
        chain.run_before_put(&mut m, Charset::Ascii, &mut data, &mut pmo),
        Verdict::Continue
    );
    assert_eq!(m.format.text(Charset::Ascii), "MQHRF2");
    // The Format says MQHRF2 but the data is not one: MQXCC_FAILED, policy
    // dead-letter (2374), message unchanged.
    let mut m = md("MQHRF2");
    let mut data = BytesMut::from(&b"not an rfh2 header at all"[..]);
    let v = chain.run_before_put(&mut m, Charset::Ascii, &mut data, &mut pmo);
    assert!(
        matches!(v, Verdict::Suppress { reason, .. } if reason.0 == 2374),
        "{v:?}"
    );
    assert_eq!(&data[..], b"not an rfh2 header at all");
    assert_eq!(m, md("MQHRF2"));
}

#[test]
fn bad_exit_data_is_refused() {
    for data in [
        "",
        "colour=red",
        "usr.1bad=x",
        "remove=jms.Dst",
        "rfh.a\"b=1",
    ] {
        assert!(RfhProperties::from_exit_data(data).is_err(), "{data}");
    }
}

#[test]
fn an_ebcdic_mqmd_gets_its_format_in_ebcdic() {
    // MQMD character fields in EBCDIC (qmgr keeps the MD's charset): Format
    // `MQSTR` read in EBCDIC, and the new Format `MQHRF2  ` written in EBCDIC:
    // M=D4 Q=D8 H=C8 R=D9 F=C6 2=F2 blank=40 (IBM MQ "StrucId (MQCHAR4)" code points).
    let mut m = Mqmd {
        format: CharField::new("MQSTR", Charset::Ebcdic).unwrap(),
        ..md("MQSTR")
    };
    let exit = RfhProperties::from_exit_data("usr.Region=EU").unwrap();
    let out = exit
        .edit_message(&mut m, Charset::Ebcdic, b"hello")
        .unwrap();
    assert_eq!(m.format.0, [0xD4, 0xD8, 0xC8, 0xD9, 0xC6, 0xF2, 0x40, 0x40]);
    // The new RFH2 is in the CCSID the MD declares for the data (1208, ASCII
    // family; IBM MQ "Format (MQCHAR8)"), its StrucId `RFH ` in ASCII, and it
    // takes over the MD's old Format, re-encoded in ASCII.
    assert_eq!(&out[..4], b"RFH ");
    let c = chain_of(&md("MQHRF2"), &out);
    let Header::Rfh2(r2) = &c[0].1 else { panic!() };
    assert_eq!(&r2.format.0, b"MQSTR   ");
    assert!(out.ends_with(b"hello"));
}

#[test]
fn a_header_inserted_for_a_q_mgr_ccsid_message_takes_the_queue_managers_ccsid() {
    // An MQMD with CodedCharSetId 0 (MQCCSI_Q_MGR): the queue manager reads
    // it as its own CCSID, 1208 for mqgate (IBM MQ "MQMD - CodedCharSetId").
    // The MQRFH inserted for the body takes that CCSID over, never the 0,
    // which names no character set once it has left the MQMD.
    let exit = RfhProperties::from_exit_data("rfh.Origin=mqgate").unwrap();
    let mut m = Mqmd {
        coded_char_set_id: 0,
        ..md("MQSTR")
    };
    let out = exit.edit_message(&mut m, Charset::Ascii, b"hello").unwrap();
    assert_eq!(m.format.text(Charset::Ascii), "MQHRF");
    // IBM MQ "MQRFH2 - Rules and formatting header 2": the MQRFH's CodedCharSetId at offset 16,
    // Encoding at 12, Format at 20 (integers little-endian, Encoding 546).
    assert_eq!(&out[..4], b"RFH ");
    assert_eq!(i32::from_le_bytes(out[16..20].try_into().unwrap()), 1208);
    assert_eq!(i32::from_le_bytes(out[12..16].try_into().unwrap()), 546);
    assert_eq!(&out[20..28], b"MQSTR   ");
    // A CCSID the MD gives is taken over as it is.
    let mut m = Mqmd {
        coded_char_set_id: 819,
        ..md("MQSTR")
    };
    let out = exit.edit_message(&mut m, Charset::Ascii, b"hello").unwrap();
    assert_eq!(i32::from_le_bytes(out[16..20].try_into().unwrap()), 819);
    // On a transmission message too: the embedded MQMD's 0 becomes 1208 in the
    // inserted header.
    let x = Mqxqh {
        version: 1,
        remote_q_name: CharField::new("INBOX", Charset::Ascii).unwrap(),
        remote_q_mgr_name: CharField::new("DEV1", Charset::Ascii).unwrap(),
        msg_desc: Mqmd {
            version: 1,
            coded_char_set_id: 0,
            ..md("MQSTR")
        },
    };
    let mut v = Vec::new();
    write_xqh(&x, ByteOrder::Little, Charset::Ascii, &mut v);
    v.extend_from_slice(b"payload");
    let out = exit.edit_buffer(&v).unwrap();
    assert_eq!(&out[428..432], b"RFH ");
    assert_eq!(
        i32::from_le_bytes(out[428 + 16..428 + 20].try_into().unwrap()),
        1208
    );
}

#[test]
fn rfh_properties_then_convert_gives_ebcdic_1047_for_a_q_mgr_ccsid_message() {
    // fixtures/exits.yaml's chain in one place: the global before_put adds
    // the Origin pair, the after_get convert makes it EBCDIC 1047.
    let exit = RfhProperties::from_exit_data("rfh.Origin=mqgate").unwrap();
    let mut m = Mqmd {
        coded_char_set_id: 0,
        ..md("MQSTR")
    };
    let out = exit.edit_message(&mut m, Charset::Ascii, b"Hi").unwrap();
    // The queue manager's put replaces the MQMD's 0 by 1208 (IBM MQ "MQMD -
    // CodedCharSetId"); the convert exit sees the stored message.
    m.coded_char_set_id = 1208;
    let convert = mqgate_exits::builtin::Convert::from_exit_data("ccsid=1047").unwrap();
    let (converted, warning) = convert.convert_with_md(&mut m, Charset::Ascii, &out);
    assert_eq!(warning, None);
    assert_eq!(m.coded_char_set_id, 1047);
    // `iconv -f UTF-8 -t IBM1047`: "RFH " = D9 C6 C8 40, "Origin" = D6 99 89
    // 87 89 95, "Hi" = C8 89.
    assert_eq!(&converted[..4], [0xD9, 0xC6, 0xC8, 0x40]);
    assert_eq!(
        i32::from_le_bytes(converted[16..20].try_into().unwrap()),
        1047
    );
    assert_eq!(&converted[32..38], [0xD6, 0x99, 0x89, 0x87, 0x89, 0x95]);
    assert!(converted.ends_with(&[0xC8, 0x89]));
}

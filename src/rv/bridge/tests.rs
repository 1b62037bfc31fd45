//! The MQ form of a Rendezvous message, byte for byte, and the config
//! checks of the bridges.

use mqgate_codecs::mq::Mqrc;
use mqgate_codecs::rv::msg::{Envelope, Field, Message, Value as RvValue};

use super::config::BodyForm;
use super::mq_form::{from_mq, persistence, to_mq};
use crate::mqi::GetResult;

fn le(v: i32) -> [u8; 4] {
    v.to_le_bytes()
}

fn envelope(fields: Vec<Field>) -> Envelope {
    Envelope {
        subject: "QUOTE.IBM".into(),
        reply_subject: None,
        cm: None,
        message: Message::new(fields),
    }
}

#[test]
fn the_rfh2_form_is_the_mqrfh2_layout_with_usr_properties_then_the_data() {
    let env = envelope(vec![
        Field::new("price", RvValue::F64(101.25)),
        Field::new("Data", RvValue::String("hello".into())),
    ]);
    let m = to_mq(&env, "", BodyForm::Rfh2, persistence(Some(true))).unwrap();
    // MQMD: Format MQHRF2 (MQFMT_RF_HEADER_2), Encoding 546, CCSID 1208,
    // Persistence 1 MQPER_PERSISTENT.
    assert_eq!(&m.md.format.0, b"MQHRF2  ");
    assert_eq!(
        (m.md.encoding, m.md.coded_char_set_id, m.md.persistence),
        (546, 1208, 1)
    );
    // IBM MQ "MQRFH2 - Rules and formatting header 2": StrucId, Version 2,
    // StrucLength, Encoding, CodedCharSetId, Format of what follows, Flags,
    // NameValueCCSID, then NameValueLength + NameValueData pairs padded with
    // blanks to a multiple of 4 (integers little-endian: Encoding 546).
    let rv = b"<rv><Subject>QUOTE.IBM</Subject></rv>"; // 37 bytes
    let usr = b"<usr><price dt='r8'>1.0125E2</price></usr>"; // 42 bytes
    assert_eq!((rv.len(), usr.len()), (37, 42));
    let mut want = Vec::new();
    want.extend_from_slice(b"RFH ");
    want.extend_from_slice(&le(2));
    want.extend_from_slice(&le(36 + 4 + 40 + 4 + 44));
    want.extend_from_slice(&le(546));
    want.extend_from_slice(&le(1208));
    want.extend_from_slice(b"MQSTR   ");
    want.extend_from_slice(&le(0));
    want.extend_from_slice(&le(1208));
    want.extend_from_slice(&le(40));
    want.extend_from_slice(rv);
    want.extend_from_slice(b"   ");
    want.extend_from_slice(&le(44));
    want.extend_from_slice(usr);
    want.extend_from_slice(b"  ");
    want.extend_from_slice(b"hello");
    assert_eq!(&m.data[..], &want[..]);
}

#[test]
fn the_json_form_is_an_mqstr_body_in_utf8() {
    let env = envelope(vec![]);
    let json = crate::rv::json::envelope_to_json(&env).to_string();
    let m = to_mq(&env, &json, BodyForm::Json, persistence(None)).unwrap();
    // MQFMT_STRING, CCSID 1208, MQPER_PERSISTENCE_AS_Q_DEF (2).
    assert_eq!(&m.md.format.0, b"MQSTR   ");
    assert_eq!((m.md.coded_char_set_id, m.md.persistence), (1208, 2));
    assert_eq!(&m.data[..], br#"{"subject":"QUOTE.IBM","fields":[]}"#);
}

#[test]
fn fields_a_usr_folder_cannot_hold_are_refused_with_their_mqrc() {
    // IBM MQ "MQRFH2 folder restrictions": names beginning with JMS are
    // reserved (2442 MQRC_PROPERTY_NAME_ERROR); a property occurs once.
    let e = to_mq(
        &envelope(vec![Field::new("JMSType", RvValue::I32(1))]),
        "",
        BodyForm::Rfh2,
        1,
    )
    .unwrap_err();
    assert_eq!(e.mqrc, Mqrc::PROPERTY_NAME_ERROR);
    let e = to_mq(
        &envelope(vec![
            Field::new("a", RvValue::I32(1)),
            Field::new("a", RvValue::I32(2)),
        ]),
        "",
        BodyForm::Rfh2,
        1,
    )
    .unwrap_err();
    assert_eq!(e.mqrc, Mqrc::RFH_STRING_ERROR);
    let nameless = Field {
        name: None,
        id: 0,
        value: RvValue::Bool(true),
    };
    let e = to_mq(&envelope(vec![nameless]), "", BodyForm::Rfh2, 1).unwrap_err();
    assert_eq!(
        e.message,
        "field 1 has no name, and an MQRFH2 property needs one"
    );
}

#[test]
fn an_rfh2_message_reads_back_with_its_mqmd_fields_and_typed_properties() {
    let env = Envelope {
        reply_subject: Some("QUOTE.ANSWERS".into()),
        ..envelope(vec![
            Field::new("n", RvValue::U16(7)),
            Field::new("ok", RvValue::Bool(true)),
            Field::new("raw", RvValue::Opaque(vec![1, 2])),
            Field::new("Data", RvValue::Opaque(vec![0, 255])),
        ])
    };
    let m = to_mq(&env, "", BodyForm::Rfh2, 1).unwrap();
    let got = GetResult {
        md: m.md,
        charset: m.charset,
        data: m.data,
        position: Default::default(),
        queue: "Q".into(),
        warning: None,
    };
    let back = from_mq(&got, BodyForm::Rfh2, "OUT.X").unwrap();
    assert_eq!(back.subject, "OUT.X");
    assert_eq!(back.reply_subject.as_deref(), Some("QUOTE.ANSWERS"));
    let f = &back.message.fields;
    assert_eq!(f[0].name.as_deref(), Some("MQMD"));
    let RvValue::Msg(md) = &f[0].value else {
        panic!("MQMD is a nested message")
    };
    assert_eq!(
        md.get("Format").map(|f| &f.value),
        Some(&RvValue::String("MQHRF2".into()))
    );
    assert_eq!(
        md.get("Persistence").map(|f| &f.value),
        Some(&RvValue::I32(1))
    );
    // u16 travels as dt='i4' and comes back an i32 (docs/rendezvous.md
    // "Bridge to MQ queues", table of types).
    assert_eq!(
        &f[1..],
        &[
            Field::new("n", RvValue::I32(7)),
            Field::new("ok", RvValue::Bool(true)),
            Field::new("raw", RvValue::Opaque(vec![1, 2])),
            Field::new("Data", RvValue::Opaque(vec![0, 255])),
        ]
    );
}

#[test]
fn bridge_rules_are_checked_for_check_config() {
    let c = crate::config::Config::from_yaml(
        "rv:\n  bridges:\n    to_queues:\n      - subject: A..B\n        queue: Q\n    from_queues:\n      - queue: Q\n        subject: ORDERS.*\n      - queue: Q\n        subject: X\n        certified: PRICER\n",
        "b.yaml",
    )
    .unwrap_err();
    let text = c.to_string();
    // docs/rendezvous.md "Refusals" texts; listen mode for patterns, send
    // mode for targets.
    assert!(
        text.contains(
            "4:18: rv.bridges.to_queues[0].subject: invalid subject \"A..B\": element 2 is empty"
        ),
        "{text}"
    );
    assert!(
        text.contains("8:18: rv.bridges.from_queues[0].subject: invalid subject \"ORDERS.*\": element 2 is the wildcard '*': sending to a wildcard subject is refused unless wildcard sends are allowed"),
        "{text}"
    );
    // A valid reusable name is no problem now that certified bridges exist.
    assert!(!text.contains("certified"), "{text}");
}

#[test]
fn certified_names_are_reusable_names_each_used_once_and_rules_cannot_loop() {
    let c = crate::config::Config::from_yaml(
        "rv:\n  bridges:\n    to_queues:\n      - subject: ORDERS.>\n        queue: Q\n        certified: _RV.X\n        persistent: false\n      - subject: QUOTE.>\n        queue: Q\n        certified: DESK\n      - subject: \">\"\n        queue: Q\n    from_queues:\n      - queue: Q\n        subject: ORDERS.NEW\n      - queue: Q\n        subject: TRADES.NEW\n        certified: DESK\n      - queue: Q\n        subject: LONG.NAME\n        certified: NNNNNNNNNNNNNNNNNNNNNNNNNNNNNNNNNNNNNNNNNNNNNNNNNNN\n",
        "c.yaml",
    )
    .unwrap_err();
    let text = c.to_string();
    // "Reusable Names": no reserved first element, at most 50 bytes; the
    // refusal texts are docs/rendezvous.md "Refusals".
    assert!(
        text.contains("6:20: rv.bridges.to_queues[0].certified: invalid correspondent name \"_RV.X\": element 1: a reusable name may not begin with a reserved element"),
        "{text}"
    );
    assert!(
        text.contains("rv.bridges.from_queues[2].certified: invalid correspondent name \"NNNNNNNNNNNNNNNNNNNNNNNNNNNNNNNNNNNNNNNNNNNNNNNNNNN\": the name is 51 bytes long, over the 50-character limit of reusable names"),
        "{text}"
    );
    assert!(
        text.contains(
            "7:21: rv.bridges.to_queues[0].persistent: a certified rule puts persistent messages"
        ),
        "{text}"
    );
    // One correspondent per rule (docs/rendezvous.md "Certified bridges").
    assert!(
        text.contains("rv.bridges.from_queues[1].certified: correspondent name \"DESK\" is used by bridges.to_queues[1].certified already"),
        "{text}"
    );
    // ORDERS.> receives ORDERS.NEW and rule 0 is certified: a loop from
    // queue to queue; `>` receives TRADES.NEW, sent by a certified rule.
    assert!(
        text.contains("rv.bridges.to_queues[0].subject: \"ORDERS.>\" receives \"ORDERS.NEW\", the subject of bridges.from_queues[0]"),
        "{text}"
    );
    assert!(
        text.contains("rv.bridges.to_queues[2].subject: \">\" receives \"TRADES.NEW\", the subject of bridges.from_queues[1]"),
        "{text}"
    );
    // Plain rules on both sides are kept apart by the bus's link: `>` and
    // ORDERS.NEW (neither certified) are no problem, nor QUOTE.> (no
    // from_queues subject under it).
    assert!(!text.contains("\">\" receives \"ORDERS.NEW\""), "{text}");
    assert!(!text.contains("to_queues[1].subject"), "{text}");
    // The third: `>` receives LONG.NAME, sent by a certified rule too.
    assert_eq!(text.matches(" receives ").count(), 3, "{text}");
}

#[test]
fn nats_subjects_are_checked_for_what_nats_and_the_bridge_refuse() {
    let c = crate::config::Config::from_yaml(
        "rv:\n  nats:\n    url: nats://127.0.0.1:4222\n    subjects: [\"A B.>\", \"_RV.>\", ORDERS.>]\n",
        "n.yaml",
    )
    .unwrap_err();
    let text = c.to_string();
    assert!(
        text.contains("rv.nats.subjects[0]: subject \"A B.>\": element 1 contains whitespace (' '): NATS subjects cannot contain whitespace"),
        "{text}"
    );
    assert!(
        text.contains(
            "rv.nats.subjects[1]: subject \"_RV.>\": '_RV.' advisories stay on the gateway"
        ),
        "{text}"
    );
    assert!(!text.contains("subjects[2]"), "{text}");
}

#[cfg(feature = "nats")]
#[test]
fn a_nats_url_the_client_would_refuse_is_placed_by_check_config() {
    // The NATS client takes the schemes nats, tls, ws and wss
    // (async-nats, "ServerAddr"); an http URL would leave the bridge
    // unstarted at run time, so check-config says so at the value.
    let c = crate::config::Config::from_yaml(
        "rv:\n  nats:\n    url: 'http://127.0.0.1:4222'\n    subjects: [ORDERS.>]\n",
        "n.yaml",
    )
    .unwrap_err();
    let text = c.to_string();
    assert!(
        text.contains("n.yaml:3:10: rv.nats.url: \"http://127.0.0.1:4222\": invalid scheme for NATS server URL: http (nats://HOST:PORT)"),
        "{text}"
    );
    let c = crate::config::Config::from_yaml(
        "rv:\n  nats:\n    url: 'nats://127.0.0.1:4222,'\n    subjects: [ORDERS.>]\n",
        "n.yaml",
    )
    .unwrap_err();
    assert!(
        c.to_string()
            .contains("rv.nats.url: \"nats://127.0.0.1:4222,\": an empty server in the list"),
        "{c}"
    );
    // A list separated by commas is what the docs allow.
    let c = crate::config::Config::from_yaml(
        "rv:\n  nats:\n    url: 'nats://127.0.0.1:4222, tls://10.0.0.2:4222'\n    subjects: [ORDERS.>]\n",
        "n.yaml",
    )
    .unwrap();
    assert_eq!(
        c.rv.nats.unwrap().servers(),
        ["nats://127.0.0.1:4222", "tls://10.0.0.2:4222"]
    );
}

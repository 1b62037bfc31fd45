//! The bridges between subjects and MQ queues (docs/rendezvous.md "Bridge
//! to MQ queues") in a gateway started in this process: subject to queue in
//! both body forms, through a transmission queue to a remote queue manager,
//! dead-lettering; queue to subject with the MQMD fields, an MQRFH2 from a
//! public fixture and the JSON form.
//!
//! Layouts: IBM MQ "MQRFH2 - Rules and formatting header 2" (StrucId,
//! Version, StrucLength, Encoding, CodedCharSetId, Format, Flags,
//! NameValueCCSID at 0-32, then NameValueLength + NameValueData padded to
//! a multiple of 4), "MQDLH - Dead-letter header" (Reason at 8, DestQName
//! at 12, Format at 116, 172 bytes), "MQXQH - Transmission-queue header"
//! (RemoteQName at 8, RemoteQMgrName at 56, 428 bytes with its MQMD);
//! property types IBM MQ "NameValueData (MQCHARn)". Reason codes are IBM's
//! (2051 MQRC_PUT_INHIBITED, 2442 MQRC_PROPERTY_NAME_ERROR, 2110
//! MQRC_FORMAT_ERROR).

use base64::Engine;
use mqgate::config::Config;
use mqgate::gateway::{Gateway, Handle};
use mqgate::rv::{Delivery, Listener, ListenerOptions, Origin};
use mqgate_codecs::rv::msg::{Envelope, Field, Message, Value as RvValue};
use serde_json::Value;
use std::path::{Path, PathBuf};
use std::time::{Duration, Instant};

const WAIT: Duration = Duration::from_secs(10);

async fn start(dir: &Path, yaml: &str) -> Handle {
    let text = format!(
        "http:\n  listen: 127.0.0.1:0\n  max_wait_ms: 20000\nlistener:\n  listen: 127.0.0.1:0\nmqtt:\n  listen: 127.0.0.1:0\n{yaml}"
    );
    let mut c = Config::from_yaml(&text, "test.yaml").unwrap();
    c.storage.data_dir = dir.join("data");
    Gateway::start(c).await.unwrap()
}

/// An HTTP call from a blocking thread: (status, JSON body or Null).
async fn call(method: &str, url: String, body: Option<Vec<u8>>) -> (u16, Value) {
    let method = method.to_string();
    tokio::task::spawn_blocking(move || {
        let req = ureq::request(&method, &url).set("Connection", "close");
        let res = match body {
            Some(b) => req
                .set("Content-Type", "application/octet-stream")
                .send_bytes(&b),
            None => req.call(),
        };
        let r = match res {
            Ok(r) => r,
            Err(ureq::Error::Status(_, r)) => r,
            Err(e) => panic!("{method} {url}: {e}"),
        };
        let status = r.status();
        (status, r.into_json().unwrap_or(Value::Null))
    })
    .await
    .unwrap()
}

/// Browses the first message of `q`, waiting up to 10 s: (md, data).
async fn browse(h: &Handle, q: &str) -> (Value, Vec<u8>) {
    let url = format!(
        "http://{}/v1/queues/{q}/messages/next?browse=true&wait_ms=10000",
        h.http_addr()
    );
    let (status, v) = call("GET", url, None).await;
    assert_eq!(status, 200, "browse {q}: {v}");
    let data = base64::engine::general_purpose::STANDARD
        .decode(v["data_base64"].as_str().unwrap())
        .unwrap();
    (v["md"].clone(), data)
}

/// Puts `data` to `q` with the MQMD query parameters `query`; the answer.
async fn put(h: &Handle, q: &str, query: &str, data: &[u8]) -> Value {
    let url = format!("http://{}/v1/queues/{q}/messages?{query}", h.http_addr());
    let (status, v) = call("POST", url, Some(data.to_vec())).await;
    assert_eq!(status, 201, "put {q}: {v}");
    v
}

/// CURDEPTH of `q` (`GET /v1/queues`).
async fn depth(h: &Handle, q: &str) -> u64 {
    let (_, v) = call("GET", format!("http://{}/v1/queues", h.http_addr()), None).await;
    v.as_array()
        .or_else(|| v["queues"].as_array())
        .unwrap()
        .iter()
        .find(|e| e["name"] == q)
        .and_then(|e| e["depth"].as_u64())
        .unwrap()
}

/// Waits until `q` is empty (the bridge committed its get).
async fn until_empty(h: &Handle, q: &str) {
    let t = Instant::now();
    while depth(h, q).await != 0 {
        assert!(t.elapsed() < WAIT, "{q} was not emptied");
        tokio::time::sleep(Duration::from_millis(20)).await;
    }
}

async fn recv(l: &mut Listener) -> Delivery {
    tokio::time::timeout(WAIT, l.recv())
        .await
        .expect("a message in time")
        .expect("the bus is open")
}

fn le(v: i32) -> [u8; 4] {
    v.to_le_bytes()
}

fn i32_at(b: &[u8], off: usize) -> i32 {
    i32::from_le_bytes(b[off..off + 4].try_into().unwrap())
}

fn text_at(b: &[u8], off: usize, len: usize) -> String {
    String::from_utf8_lossy(&b[off..off + len])
        .trim_end()
        .to_string()
}

fn quote() -> Envelope {
    Envelope {
        subject: "QUOTE.IBM".into(),
        reply_subject: Some("QUOTE.ANSWERS".into()),
        cm: None,
        message: Message::new(vec![
            Field::new("price", RvValue::F64(101.25)),
            Field::new("Data", RvValue::String("hello".into())),
        ]),
    }
}

#[tokio::test]
async fn subject_to_queue_in_both_body_forms() {
    let dir = tempfile::tempdir().unwrap();
    let h = start(
        dir.path(),
        "queues:\n  - type: local\n    name: RFH2.OUT\n  - type: local\n    name: JSON.OUT\n\
         rv:\n  bridges:\n    to_queues:\n      - subject: QUOTE.>\n        queue: RFH2.OUT\n        persistent: true\n\
         \x20     - subject: QUOTE.>\n        queue: JSON.OUT\n        body: json\n",
    )
    .await;
    let bus = h.rv_bus().unwrap();
    assert_eq!(bus.publish(quote(), Origin::Client).unwrap(), 2);

    let (md, data) = browse(&h, "RFH2.OUT").await;
    // MQFMT_RF_HEADER_2, MQENC_REVERSED 546, UTF-8 1208, MQPER_PERSISTENT.
    assert_eq!(md["Format"], "MQHRF2");
    assert_eq!(md["Encoding"], 546);
    assert_eq!(md["CodedCharSetId"], 1208);
    assert_eq!(md["Persistence"], 1);
    let rv = b"<rv><Subject>QUOTE.IBM</Subject><ReplySubject>QUOTE.ANSWERS</ReplySubject></rv>";
    let usr = b"<usr><price dt='r8'>1.0125E2</price></usr>";
    assert_eq!((rv.len(), usr.len()), (79, 42));
    let mut want = Vec::new();
    want.extend_from_slice(b"RFH "); // MQRFH_STRUC_ID
    want.extend_from_slice(&le(2)); // MQRFH_VERSION_2
    want.extend_from_slice(&le(36 + 4 + 80 + 4 + 44)); // StrucLength
    want.extend_from_slice(&le(546)); // Encoding of the data
    want.extend_from_slice(&le(1208)); // CodedCharSetId of the data
    want.extend_from_slice(b"MQSTR   "); // Format of the data: a string field
    want.extend_from_slice(&le(0)); // Flags MQRFH_NONE
    want.extend_from_slice(&le(1208)); // NameValueCCSID
    want.extend_from_slice(&le(80));
    want.extend_from_slice(rv);
    want.extend_from_slice(b" ");
    want.extend_from_slice(&le(44));
    want.extend_from_slice(usr);
    want.extend_from_slice(b"  "); // blank padding to a multiple of 4
    want.extend_from_slice(b"hello"); // the `Data` field
    assert_eq!(data, want);

    let (md, data) = browse(&h, "JSON.OUT").await;
    // MQFMT_STRING in CCSID 1208; no `persistent`: the queue's DEFPSIST
    // (not_persistent, docs/config.md).
    assert_eq!(md["Format"], "MQSTR");
    assert_eq!(md["CodedCharSetId"], 1208);
    assert_eq!(md["Persistence"], 0);
    // The JSON form of docs/rendezvous.md "JSON form".
    assert_eq!(
        String::from_utf8(data).unwrap(),
        r#"{"subject":"QUOTE.IBM","reply_subject":"QUOTE.ANSWERS","fields":[{"name":"price","type":"f64","value":101.25},{"name":"Data","type":"string","value":"hello"}]}"#
    );
    h.stop(Duration::from_secs(5)).await;
}

#[tokio::test]
async fn a_remote_queue_is_reached_through_its_transmission_queue() {
    let dir = tempfile::tempdir().unwrap();
    let h = start(
        dir.path(),
        "queues:\n  - type: local\n    name: QM2\n    usage: xmitq\n\
         rv:\n  bridges:\n    to_queues:\n      - subject: ORDERS.NEW\n        queue: ORDERS\n        q_mgr: QM2\n",
    )
    .await;
    let bus = h.rv_bus().unwrap();
    let env = Envelope {
        subject: "ORDERS.NEW".into(),
        ..quote()
    };
    assert_eq!(bus.publish(env, Origin::Client).unwrap(), 1);
    // IBM MQ "Name resolution": the transmission queue named like the queue
    // manager; the message carries an MQXQH naming the destination.
    let (md, data) = browse(&h, "QM2").await;
    assert_eq!(md["Format"], "MQXMIT");
    assert_eq!(&data[0..4], b"XQH ");
    assert_eq!(text_at(&data, 8, 48), "ORDERS");
    assert_eq!(text_at(&data, 56, 48), "QM2");
    assert_eq!(&data[428..432], b"RFH ");
    h.stop(Duration::from_secs(5)).await;
}

#[tokio::test]
async fn a_message_that_cannot_be_put_is_dead_lettered_with_the_reason() {
    let dir = tempfile::tempdir().unwrap();
    let h = start(
        dir.path(),
        "queues:\n  - type: local\n    name: LOCKED\n    put_inhibited: true\n  - type: local\n    name: OPEN\n\
         rv:\n  bridges:\n    to_queues:\n      - subject: TO.LOCKED\n        queue: LOCKED\n      - subject: TO.OPEN\n        queue: OPEN\n",
    )
    .await;
    let bus = h.rv_bus().unwrap();
    let env = Envelope {
        subject: "TO.LOCKED".into(),
        ..quote()
    };
    bus.publish(env, Origin::Client).unwrap();
    let (md, data) = browse(&h, "SYSTEM.DEAD.LETTER.QUEUE").await;
    assert_eq!(md["Format"], "MQDEAD");
    assert_eq!(&data[0..4], b"DLH ");
    assert_eq!(i32_at(&data, 8), 2051); // MQRC_PUT_INHIBITED
    assert_eq!(text_at(&data, 12, 48), "LOCKED");
    assert_eq!(text_at(&data, 116, 8), "MQHRF2");
    assert_eq!(&data[172..176], b"RFH ");

    // A field name MQ refuses as a property: the JSON form is dead-lettered
    // with 2442, and nothing reaches the queue.
    let env = Envelope {
        subject: "TO.OPEN".into(),
        reply_subject: None,
        cm: None,
        message: Message::new(vec![Field::new("JMSType", RvValue::I32(1))]),
    };
    bus.publish(env, Origin::Client).unwrap();
    let url = format!(
        "http://{}/v1/queues/SYSTEM.DEAD.LETTER.QUEUE/messages/next?wait_ms=10000",
        h.http_addr()
    );
    // Take the first dead letter away to see the second.
    let (status, first) = call("GET", url.clone(), None).await;
    assert_eq!(status, 200);
    let ack = format!(
        "http://{}/v1/queues/SYSTEM.DEAD.LETTER.QUEUE/messages/ack/{}",
        h.http_addr(),
        first["lease"].as_str().unwrap()
    );
    assert_eq!(call("POST", ack, None).await.0, 200);
    let (_, data) = browse(&h, "SYSTEM.DEAD.LETTER.QUEUE").await;
    assert_eq!(i32_at(&data, 8), 2442); // MQRC_PROPERTY_NAME_ERROR
    assert_eq!(text_at(&data, 12, 48), "OPEN");
    assert_eq!(text_at(&data, 116, 8), "MQSTR");
    assert_eq!(
        String::from_utf8_lossy(&data[172..]),
        r#"{"subject":"TO.OPEN","fields":[{"name":"JMSType","type":"i32","value":1}]}"#
    );
    assert_eq!(depth(&h, "OPEN").await, 0);
    h.stop(Duration::from_secs(5)).await;
}

fn mqmd(d: &Delivery) -> Message {
    let f = &d.envelope().message.fields[0];
    assert_eq!(f.name.as_deref(), Some("MQMD"));
    match &f.value {
        RvValue::Msg(m) => m.clone(),
        other => panic!("MQMD is {other:?}"),
    }
}

fn field<'m>(m: &'m Message, name: &str) -> &'m RvValue {
    &m.get(name)
        .unwrap_or_else(|| panic!("no field {name}"))
        .value
}

/// ../shared/fixtures/... when present; in CI its absence fails the test.
fn shared(rel: &str) -> Option<PathBuf> {
    let p = Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("../shared")
        .join(rel);
    if p.exists() {
        return Some(p);
    }
    assert!(
        std::env::var_os("CI").is_none(),
        "{} is absent, and CI is set",
        p.display()
    );
    println!("SKIP: {} is absent", p.display());
    None
}

#[tokio::test]
async fn queue_to_subject_with_the_mqmd_fields() {
    let dir = tempfile::tempdir().unwrap();
    let h = start(
        dir.path(),
        "queues:\n  - type: local\n    name: IN.STR\n  - type: local\n    name: IN.RFH2\n  - type: local\n    name: IN.JSON\n\
         rv:\n  bridges:\n    from_queues:\n      - queue: IN.STR\n        subject: FROM.STR\n\
         \x20     - queue: IN.RFH2\n        subject: FROM.RFH2\n\
         \x20     - queue: IN.JSON\n        subject: FROM.JSON\n        body: json\n",
    )
    .await;
    let bus = h.rv_bus().unwrap();
    let correl = "C0".repeat(24);
    let answer = put(
        &h,
        "IN.STR",
        &format!("format=MQSTR&persistent=true&priority=5&reply_to_q=REPLY.Q&correl_id={correl}"),
        b"hello world",
    )
    .await;
    // Nobody listens to FROM.STR yet: the message stays on its queue.
    tokio::time::sleep(Duration::from_millis(300)).await;
    assert_eq!(depth(&h, "IN.STR").await, 1);

    let mut l = bus.listen(&["FROM.>"], ListenerOptions::default()).unwrap();
    let d = recv(&mut l).await;
    assert_eq!(d.subject(), "FROM.STR");
    let md = mqmd(&d);
    let msg_id = hex::decode(answer["msg_id"].as_str().unwrap()).unwrap();
    assert_eq!(field(&md, "MsgId"), &RvValue::Opaque(msg_id));
    assert_eq!(field(&md, "CorrelId"), &RvValue::Opaque(vec![0xC0; 24]));
    assert_eq!(field(&md, "Format"), &RvValue::String("MQSTR".into()));
    assert_eq!(field(&md, "CodedCharSetId"), &RvValue::I32(1208));
    assert_eq!(field(&md, "Persistence"), &RvValue::I32(1));
    assert_eq!(field(&md, "Priority"), &RvValue::I32(5));
    assert_eq!(field(&md, "ReplyToQ"), &RvValue::String("REPLY.Q".into()));
    assert_eq!(field(&md, "BackoutCount"), &RvValue::I32(0));
    assert_eq!(
        field(&d.envelope().message, "Data"),
        &RvValue::String("hello world".into())
    );
    until_empty(&h, "IN.STR").await;

    // pymqi's single_rfh2.dat (big-endian, Encoding 273): no <usr> folder,
    // so the fields are the MQMD and the 49-byte MQSTR body after the RFH2.
    if let Some(p) = shared("fixtures/mq/pymqi/single_rfh2.dat") {
        let bytes = std::fs::read(p).unwrap();
        assert_eq!(bytes.len(), 333);
        put(&h, "IN.RFH2", "format=MQHRF2&encoding=273", &bytes).await;
        let d = recv(&mut l).await;
        assert_eq!(d.subject(), "FROM.RFH2");
        let fields = &d.envelope().message.fields;
        assert_eq!(fields.len(), 2);
        assert_eq!(
            fields[1],
            Field::new(
                "Data",
                RvValue::String("<testData><testVar>testValue</testVar></testData>".into())
            )
        );
        until_empty(&h, "IN.RFH2").await;
    }

    // The JSON form: its reply subject and fields after the MQMD.
    put(
        &h,
        "IN.JSON",
        "format=MQSTR",
        br#"{"reply_subject":"R.S","fields":[{"name":"n","type":"i32","value":7}]}"#,
    )
    .await;
    let d = recv(&mut l).await;
    assert_eq!(d.subject(), "FROM.JSON");
    assert_eq!(d.reply_subject(), Some("R.S"));
    assert_eq!(
        d.envelope().message.fields[1],
        Field::new("n", RvValue::I32(7))
    );
    // A body that is not the JSON form is dead-lettered: 2110.
    put(&h, "IN.JSON", "format=MQSTR", b"not json").await;
    let (_, data) = browse(&h, "SYSTEM.DEAD.LETTER.QUEUE").await;
    assert_eq!(i32_at(&data, 8), 2110); // MQRC_FORMAT_ERROR
    assert_eq!(text_at(&data, 12, 48), "IN.JSON");
    assert_eq!(&data[172..], b"not json");
    until_empty(&h, "IN.JSON").await;
    assert!(l.try_recv().is_none());
    h.stop(Duration::from_secs(5)).await;
}

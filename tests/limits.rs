//! Limits against abuse (docs/security.md "Limits") against the built
//! binary: connections per peer address on each listener, and the memory
//! MQ client sockets may hold in calls still arriving. Expected answers:
//! HTTP 429 Too Many Requests (RFC 6585 §4); CLOSE and STATUS_DATA with
//! 2537 MQRC_CHANNEL_NOT_AVAILABLE, as IBM MQ answers a channel past its
//! MAXINST ("2537 (09E9) (RC2537): MQRC_CHANNEL_NOT_AVAILABLE"), and
//! MQ_STATUS_ERR_CHANNEL_UNAVAILABLE 0x16 of the Wireshark MQ dissector;
//! 2102 MQRC_RESOURCE_PROBLEM; MQTT 5.0 3.2.2.2 CONNACK 0x89 Server busy.

mod common;
mod svrconn_client;

use common::Gateway;
use common::channel::hello;
use mqgate::mqtt::client::{Client as MqttClient, Options};
use mqgate_codecs::fap::{SegmentType, StatusCode, StatusData, tcf, write_segment};
use mqgate_codecs::mqtt::{Level, ReasonCode};
use std::io::{Read, Write};
use std::net::{SocketAddr, TcpStream};
use std::time::Duration;
use svrconn_client::{Client, Refused, tshm};

const CONFIG: &str = r#"
queue_manager:
  name: QMLIMIT
channels:
  - { type: receiver, name: TO.QMLIMIT }
svrconn:
  listen: 127.0.0.1:0
  channels:
    - name: APP.SVRCONN
security:
  limits:
    connections_per_peer: 2
    svrconn_held_bytes: 30000
"#;

fn connect(addr: &str) -> TcpStream {
    let s = TcpStream::connect(addr).unwrap();
    s.set_read_timeout(Some(Duration::from_secs(10))).unwrap();
    s
}

/// An HTTP connection the server keeps (answers nothing within 300 ms).
fn held_open(addr: &str) -> TcpStream {
    for _ in 0..50 {
        let mut s = connect(addr);
        s.set_read_timeout(Some(Duration::from_millis(300)))
            .unwrap();
        let mut b = [0u8; 1];
        match s.read(&mut b) {
            Err(e)
                if matches!(
                    e.kind(),
                    std::io::ErrorKind::WouldBlock | std::io::ErrorKind::TimedOut
                ) =>
            {
                s.set_read_timeout(Some(Duration::from_secs(10))).unwrap();
                return s;
            }
            _ => std::thread::sleep(Duration::from_millis(100)),
        }
    }
    panic!("no HTTP connection kept open");
}

/// Everything the server sends until it closes.
fn read_all(s: &mut TcpStream) -> Vec<u8> {
    let mut out = Vec::new();
    let _ = s.read_to_end(&mut out);
    out
}

#[test]
fn a_peer_past_its_connections_is_refused_on_each_listener() {
    let dir = tempfile::tempdir().unwrap();
    let g = Gateway::start(dir.path(), CONFIG);
    let http = g.base.trim_start_matches("http://").to_string();

    // HTTP: two connections held open; the third gets 429 naming the limit.
    // The start's own requests may still be counted for a moment: a held
    // connection refused then is opened again. The gateway may take a
    // moment to accept the two: the third asks again (closing each answer)
    // until they are counted.
    let held: Vec<TcpStream> = (0..2).map(|_| held_open(&http)).collect();
    let mut answer = String::new();
    for _ in 0..50 {
        std::thread::sleep(Duration::from_millis(100));
        let mut third = connect(&http);
        third
            .write_all(
                format!("GET /v1/status HTTP/1.1\r\nHost: {http}\r\nConnection: close\r\n\r\n")
                    .as_bytes(),
            )
            .unwrap();
        answer = String::from_utf8(read_all(&mut third)).unwrap();
        if !answer.starts_with("HTTP/1.1 200") {
            break;
        }
    }
    assert!(
        answer.starts_with("HTTP/1.1 429 Too Many Requests\r\n"),
        "{answer}"
    );
    let body: serde_json::Value =
        serde_json::from_str(answer.split("\r\n\r\n").nth(1).unwrap()).unwrap();
    assert_eq!(body["mqrc"], 2537);
    assert_eq!(body["limit"], "security.limits.connections_per_peer");
    assert_eq!(
        body["message"],
        "127.0.0.1 has 2 connections open to the http listener: the limit security.limits.connections_per_peer = 2 is reached"
    );
    drop(held);
    // Closed connections no longer count.
    std::thread::sleep(Duration::from_millis(300));
    let (st, v) = g.call("GET", "/v1/status", None);
    assert_eq!(st, 200, "{v}");

    // Message channels: the third connection's HELLO is answered CLOSE 2537.
    let held: Vec<TcpStream> = (0..2).map(|_| connect(&g.listen_addr())).collect();
    std::thread::sleep(Duration::from_millis(200));
    let mut third = connect(&g.listen_addr());
    third.write_all(&hello("TO.QMLIMIT", "")).unwrap();
    let b = read_all(&mut third);
    assert_eq!(b[4], 0x07, "a CLOSE frame: {b:?}");
    assert_eq!(u32::from_be_bytes(b[5..9].try_into().unwrap()), 2537);
    assert!(
        String::from_utf8_lossy(&b[11..]).contains("security.limits.connections_per_peer = 2"),
        "{b:?}"
    );
    drop(held);

    // MQ clients: STATUS_DATA CHANNEL_UNAVAILABLE (0x16) with 2537.
    let addr = g.svrconn_addr_from_log();
    let rt = tokio::runtime::Runtime::new().unwrap();
    rt.block_on(async {
        let _a = Client::connect(addr, "APP.SVRCONN", "u", None)
            .await
            .unwrap();
        let _b = Client::connect(addr, "APP.SVRCONN", "u", None)
            .await
            .unwrap();
        match Client::connect(addr, "APP.SVRCONN", "u", None).await {
            Err(Refused::Status(StatusData::Status { code, value })) => {
                assert_eq!((code, value), (StatusCode(0x16), Some(2537)));
            }
            other => panic!("{:?}", other.err()),
        }
    });

    // MQTT: CONNACK 0x89 Server busy.
    let mqtt: SocketAddr = format!("127.0.0.1:{}", g.mqtt_port).parse().unwrap();
    rt.block_on(async {
        let o = |id: &str| Options {
            clean_start: true,
            ..Options::persistent(id, Level::V5)
        };
        let (_a, ack) = MqttClient::connect(mqtt, &o("DEV0001")).await.unwrap();
        assert_eq!(ack.code, ReasonCode::SUCCESS);
        let (_b, ack) = MqttClient::connect(mqtt, &o("DEV0002")).await.unwrap();
        assert_eq!(ack.code, ReasonCode::SUCCESS);
        let (_c, ack) = MqttClient::connect(mqtt, &o("DEV0003")).await.unwrap();
        assert_eq!(ack.code, ReasonCode::SERVER_BUSY);
    });

    // Each refusal is logged at WARN (once a minute per limit) and counted.
    let log = std::fs::read_to_string(g.log_path()).unwrap();
    for what in [
        "HTTP connection refused",
        "channel connection refused",
        "MQ client connection refused",
        "MQTT connection refused",
    ] {
        assert!(
            log.lines().any(|l| l.contains("WARN")
                && l.contains(what)
                && l.contains("limit=\"security.limits.connections_per_peer\"")),
            "{what} not in\n{log}"
        );
    }
    let (_, metrics) = {
        let r = ureq::get(&format!("{}/metrics", g.base)).call().unwrap();
        (r.status(), r.into_string().unwrap())
    };
    // One refusal per listener above; a held HTTP connection opened again
    // at the start counts too.
    let refused: u64 = metrics
        .lines()
        .find_map(|l| l.strip_prefix("mqgate_connections_refused_total{reason=\"limit\"} "))
        .and_then(|v| v.trim().parse().ok())
        .unwrap_or_else(|| panic!("{metrics}"));
    assert!(refused >= 4, "{metrics}");
}

#[test]
fn mq_client_calls_still_arriving_hold_no_more_than_the_budget() {
    let dir = tempfile::tempdir().unwrap();
    let g = Gateway::start(dir.path(), CONFIG);
    let addr = g.svrconn_addr_from_log();
    let rt = tokio::runtime::Runtime::new().unwrap();
    rt.block_on(async {
        let mut c = Client::connect(addr, "APP.SVRCONN", "u", None)
            .await
            .unwrap();
        // An MQPUT in segments of 20,000 bytes: the first (FIRST, not LAST)
        // is held; the second would take the held bytes past 30,000.
        let mut first = tshm(1, SegmentType::MQPUT);
        first.control_flags1 = tcf::FIRST;
        let mut seg = Vec::new();
        write_segment(&first, &vec![0u8; 20_000], &mut seg);
        c.wire.send(&seg).await;
        let mut middle = tshm(1, SegmentType::MQPUT);
        middle.control_flags1 = 0;
        let mut seg = Vec::new();
        write_segment(&middle, &vec![0u8; 20_000], &mut seg);
        c.wire.send(&seg).await;
        let m = c.wire.message().await.unwrap();
        assert_eq!(m.tsh.segment_type, SegmentType::STATUS_DATA);
        let s = mqgate_codecs::fap::status::parse_status(&m.body, 36, m.tsh.byte_order).unwrap();
        assert_eq!(
            s,
            StatusData::Status {
                code: StatusCode(0x16),
                value: Some(2102)
            }
        );
        // Given back when the socket closed: another client's whole put fits.
        let mut d = Client::connect(addr, "APP.SVRCONN", "u", None)
            .await
            .unwrap();
        let (h, _) = d.open(None, svrconn_client::open_options::INQUIRE).await;
        assert_eq!(h.reason, 0);
    });
    let log = std::fs::read_to_string(g.log_path()).unwrap();
    assert!(
        log.contains("limit=\"security.limits.svrconn_held_bytes\""),
        "{log}"
    );
}

#[test]
fn a_late_request_head_is_answered_408_naming_the_limit() {
    let dir = tempfile::tempdir().unwrap();
    let g = Gateway::start(dir.path(), "http:\n  header_read_timeout_ms: 300\n");
    let http = g.base.trim_start_matches("http://").to_string();
    let mut s = connect(&http);
    s.write_all(format!("GET /v1/status HTTP/1.1\r\nHost: {http}\r\nX-Slow: a").as_bytes())
        .unwrap();
    // RFC 9110 §15.5.9 408 Request Timeout, then the close.
    let answer = String::from_utf8(read_all(&mut s)).unwrap();
    assert!(
        answer.starts_with("HTTP/1.1 408 Request Timeout\r\n"),
        "{answer}"
    );
    let body: serde_json::Value =
        serde_json::from_str(answer.split("\r\n\r\n").nth(1).unwrap()).unwrap();
    assert_eq!(body["mqrc"], 2009);
    assert_eq!(body["limit"], "http.header_read_timeout_ms");
    assert_eq!(
        body["message"],
        "the request head did not end within http.header_read_timeout_ms 300"
    );
}

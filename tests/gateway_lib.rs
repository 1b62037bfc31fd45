//! `mqgate` as a library: gateways started in this process with
//! `Gateway::start` on port 0, and what `Handle::stop` guarantees (no task of
//! the gateway outlives it, the listeners refuse connections, the store is
//! released). HTTP statuses and MQRC values come from docs/http-api.md and
//! IBM MQ "API reason codes"; MsgId layout from docs/http-api.md (`AMQ ` + queue
//! manager name padded to 12 + 8 unique bytes).

mod common;

use common::call;
use mqgate::config::Config;
use mqgate::gateway::{Gateway, Handle, TaskMonitor};
use serde_json::Value;
use std::io::{Read, Write};
use std::net::{SocketAddr, TcpStream};
use std::path::Path;
use std::time::{Duration, Instant};

/// A gateway named `qm` on port 0 (HTTP and channels) with data under `dir`.
fn config(dir: &Path, qm: &str) -> Config {
    let text = format!(
        "queue_manager:
  name: {qm}
http:
  listen: 127.0.0.1:0
  max_wait_ms: 30000
listener:
  listen: 127.0.0.1:0
mqtt:
  listen: 127.0.0.1:0
queues:
  - type: local
    name: APP.Q
"
    );
    let mut c = Config::from_yaml(&text, "test.yaml").unwrap();
    c.storage.data_dir = dir.join("data");
    c
}

fn url(h: &Handle, path: &str) -> String {
    format!("http://{}{path}", h.http_addr())
}

fn data(v: &Value) -> Vec<u8> {
    use base64::Engine;
    base64::engine::general_purpose::STANDARD
        .decode(v["data_base64"].as_str().unwrap())
        .unwrap()
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn two_gateways_in_one_process_on_port_zero() {
    let (da, db) = (tempfile::tempdir().unwrap(), tempfile::tempdir().unwrap());
    let a = Gateway::start(config(da.path(), "QMA")).await.unwrap();
    let b = Gateway::start(config(db.path(), "QMB")).await.unwrap();
    let ports = [
        a.http_addr().port(),
        a.channel_addr().port(),
        b.http_addr().port(),
        b.channel_addr().port(),
    ];
    assert!(ports.iter().all(|&p| p != 0), "{ports:?}");
    let mut unique = ports.to_vec();
    unique.sort_unstable();
    unique.dedup();
    assert_eq!(unique.len(), 4, "{ports:?}");
    // /v1/status reports the bound addresses, not port 0.
    let (st, status) = call("GET", url(&a, "/v1/status"), None).await;
    assert_eq!(st, 200);
    assert_eq!(status["queue_manager"], "QMA");
    assert_eq!(status["http"], a.http_addr().to_string());
    assert_eq!(status["listener"], a.channel_addr().to_string());

    for (g, text) in [(&a, b"to A" as &'static [u8]), (&b, b"to B")] {
        let (st, put) = call(
            "POST",
            url(g, "/v1/queues/APP.Q/messages?persistent=true&format=MQSTR"),
            Some(text),
        )
        .await;
        assert_eq!(st, 201, "{put}");
    }
    for (g, qm, text) in [(&a, "QMA", b"to A"), (&b, "QMB", b"to B")] {
        let (st, got) = call("GET", url(g, "/v1/queues/APP.Q/messages/next"), None).await;
        assert_eq!(st, 200, "{got}");
        assert_eq!(data(&got), text);
        // IBM MQ "MQMD - Message descriptor": MsgId = "AMQ " + the queue manager name
        // padded to 12: each gateway generated its own message's MsgId.
        let prefix = hex::encode_upper(format!("AMQ {qm:<12}"));
        let msg_id = got["md"]["MsgId"].as_str().unwrap();
        assert!(msg_id.starts_with(&prefix), "{msg_id}");
        // docs/http-api.md "Leases": a string of 32 hex digits.
        let lease = got["lease"].as_str().unwrap_or_else(|| panic!("{got}"));
        assert_eq!(lease.len(), 32, "{got}");
        let (st, ack) = call(
            "POST",
            url(g, &format!("/v1/queues/APP.Q/messages/ack/{lease}")),
            Some(b""),
        )
        .await;
        assert_eq!(st, 200, "{ack}");
    }
    let (sa, sb) = (
        a.stop(Duration::from_secs(5)).await,
        b.stop(Duration::from_secs(5)).await,
    );
    assert!(sa.drained && sb.drained, "{sa:?} {sb:?}");
}

/// Whether the peer closed `s` (EOF or a reset), reading for at most 2 s.
fn closed_by_peer(s: &mut TcpStream) -> bool {
    s.set_read_timeout(Some(Duration::from_secs(2))).unwrap();
    let mut buf = [0u8; 512];
    loop {
        match s.read(&mut buf) {
            Ok(0) => return true,
            Ok(_) => continue,
            Err(e) => {
                return !matches!(
                    e.kind(),
                    std::io::ErrorKind::WouldBlock | std::io::ErrorKind::TimedOut
                );
            }
        }
    }
}

fn refused(addr: SocketAddr) -> bool {
    TcpStream::connect_timeout(&addr, Duration::from_secs(1)).is_err()
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn stop_ends_every_task_closes_the_listeners_and_releases_the_store() {
    let dir = tempfile::tempdir().unwrap();
    let g = Gateway::start(config(dir.path(), "QMSTOP")).await.unwrap();
    let monitor = g.tasks();
    let (http, channel, mqtt) = (g.http_addr(), g.channel_addr(), g.mqtt_addr());

    // A leased message (a unit of work with its expiry timer, 30 s).
    let (st, _) = call(
        "POST",
        url(&g, "/v1/queues/APP.Q/messages?persistent=true"),
        Some(b"leased"),
    )
    .await;
    assert_eq!(st, 201);
    let (st, got) = call("GET", url(&g, "/v1/queues/APP.Q/messages/next"), None).await;
    assert_eq!(st, 200, "{got}");
    // Each connection below is waited for until the gateway has accepted it
    // (its tasks counted), not slept on: a connection still in the listen
    // backlog when the gateway stops would be refused, not drained. An
    // accepted HTTP connection counts twice (its stream and the task serving
    // it, src/gateway/http.rs), a receiver channel connection once.
    let reached = |what: &'static str, count: fn(&TaskMonitor) -> usize, want: usize| {
        let monitor = monitor.clone();
        async move {
            let until = Instant::now() + Duration::from_secs(20);
            while count(&monitor) < want {
                assert!(
                    Instant::now() < until,
                    "{what}: {} tasks after 20 s, not {want}",
                    count(&monitor)
                );
                tokio::time::sleep(Duration::from_millis(10)).await;
            }
        }
    };
    // The calls above closed their connections: only the HTTP server and
    // the MQTT listener (docs/mqtt.md) are left of the request tasks.
    let until = Instant::now() + Duration::from_secs(20);
    while monitor.requests() != 2 {
        assert!(
            Instant::now() < until,
            "{} request tasks",
            monitor.requests()
        );
        tokio::time::sleep(Duration::from_millis(10)).await;
    }
    // A device pull waiting 20 s for a message that never comes.
    let pull = tokio::spawn(call(
        "GET",
        url(
            &g,
            "/v1/devices/DEV1/queues/INBOX/messages/next?wait_ms=20000",
        ),
        None,
    ));
    reached("the pull's connection", TaskMonitor::requests, 4).await;
    // A channel connection that never sends its HELLO (the receiver waits
    // 10 s for it), and an HTTP request whose headers never end.
    let channels = monitor.channels();
    let mut silent_channel = TcpStream::connect(channel).unwrap();
    reached("the silent channel", TaskMonitor::channels, channels + 1).await;
    let mut half_request = TcpStream::connect(http).unwrap();
    half_request
        .write_all(b"GET /v1/status HTTP/1.1\r\nHost: x\r\n")
        .unwrap();
    reached("the half request's connection", TaskMonitor::requests, 6).await;

    let drain = Duration::from_millis(800);
    let t = Instant::now();
    let stopped = g.stop(drain).await;
    let took = t.elapsed();
    // The silent channel connection holds on until the drain bound, not
    // until its own 10 s: after the bound only the ending, MQXR_TERM and the
    // lease's backout (a store write) remain; 3 s allows for a loaded machine.
    // The half request holds on too when the server had read its bytes
    // before the stop; a connection with nothing read yet is idle and closed
    // at once (hyper's graceful shutdown), so it is not counted on.
    assert!(took >= drain, "{took:?}");
    assert!(took < drain + Duration::from_secs(3), "{took:?}");
    assert!(!stopped.drained, "{stopped:?}");
    assert!(stopped.ended >= 1, "{stopped:?}");
    assert_eq!(monitor.running(), 0, "a task outlived Handle::stop");
    assert!(refused(http), "the HTTP listener still accepts");
    assert!(refused(channel), "the channel listener still accepts");
    assert!(refused(mqtt), "the MQTT listener still accepts");
    assert!(closed_by_peer(&mut silent_channel));
    assert!(closed_by_peer(&mut half_request));
    // The waiting pull was answered 503 / 2161 MQRC_Q_MGR_QUIESCING when the
    // queue manager quiesced, before the drain bound.
    let (st, v) = pull.await.unwrap();
    assert_eq!((st, v["mqrc"].as_i64()), (503, Some(2161)), "{v}");

    // The store is released: a gateway starts again on the same directory,
    // and the leased message was backed out onto its queue (persistent, so
    // it survived the restart).
    let again = Gateway::start(config(dir.path(), "QMSTOP")).await.unwrap();
    let (st, got) = call("GET", url(&again, "/v1/queues/APP.Q/messages/next"), None).await;
    assert_eq!(st, 200, "{got}");
    assert_eq!(data(&got), b"leased");
    let stopped = again.stop(Duration::from_secs(5)).await;
    assert!(stopped.drained, "{stopped:?}");
}

/// Reads from `s` until `end` has been read; what was read.
fn read_through(s: &mut TcpStream, end: &[u8]) -> Vec<u8> {
    let mut got = Vec::new();
    let mut byte = [0u8; 1];
    while !got.ends_with(end) {
        match s.read(&mut byte) {
            Ok(1) => got.push(byte[0]),
            other => panic!("{other:?} after {:?}", String::from_utf8_lossy(&got)),
        }
    }
    got
}

/// An upload still being sent at the drain bound (a client slower than the
/// drain, as `curl --limit-rate 200k` with 3 MB) is answered 503 / 2162
/// MQRC_Q_MGR_STOPPING (docs/http-api.md "Stopping", docs/config.md
/// "Stopping" step 4; IBM MQ "API reason codes" 2162), and the stop returns
/// soon after the bound (src/gateway/http.rs `ANSWER_GRACE`, 1 s, at most).
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn an_upload_still_running_at_the_drain_bound_is_answered_2162() {
    let dir = tempfile::tempdir().unwrap();
    let g = Gateway::start(config(dir.path(), "QMSLOW")).await.unwrap();
    let addr = g.http_addr();
    let (sent, sent_rx) = tokio::sync::oneshot::channel::<()>();
    let client = tokio::task::spawn_blocking(move || {
        let mut s = TcpStream::connect(addr).unwrap();
        s.set_read_timeout(Some(Duration::from_secs(20))).unwrap();
        // As curl sends a 3 MB body: with Expect: 100-continue.
        let head = format!(
            "POST /v1/queues/APP.Q/messages HTTP/1.1\r\nHost: {addr}\r\n\
             Content-Type: application/octet-stream\r\nContent-Length: 3000000\r\n\
             Expect: 100-continue\r\n\r\n"
        );
        s.write_all(head.as_bytes()).unwrap();
        let cont = read_through(&mut s, b"\r\n\r\n");
        assert!(cont.starts_with(b"HTTP/1.1 100"), "{cont:?}");
        // The first 64 KiB of the body, then nothing more before the bound.
        s.write_all(&[0u8; 65536]).unwrap();
        sent.send(()).unwrap();
        let head = read_through(&mut s, b"\r\n\r\n");
        let mut body = Vec::new();
        let _ = s.read_to_end(&mut body);
        (String::from_utf8_lossy(&head).into_owned(), body)
    });
    sent_rx.await.unwrap();
    // The handler is reading the body now.
    tokio::time::sleep(Duration::from_millis(200)).await;
    let drain = Duration::from_millis(800);
    let stopped = g.stop(drain).await;
    assert!(!stopped.drained, "{stopped:?}");
    assert!(stopped.took >= drain, "{stopped:?}");
    // The answer's grace (1 s) and the ending; 3 s allows for a loaded machine.
    assert!(stopped.took < drain + Duration::from_secs(3), "{stopped:?}");
    let (head, body) = client.await.unwrap();
    assert!(head.starts_with("HTTP/1.1 503 "), "{head}");
    let v: Value = serde_json::from_slice(&body)
        .unwrap_or_else(|e| panic!("{e}: {:?}", String::from_utf8_lossy(&body)));
    assert_eq!(v["mqrc"], 2162, "{v}");
    assert_eq!(v["reason"], "MQRC_Q_MGR_STOPPING", "{v}");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_stop_with_nothing_in_flight_returns_at_once() {
    let dir = tempfile::tempdir().unwrap();
    let g = Gateway::start(config(dir.path(), "QMIDLE")).await.unwrap();
    let monitor = g.tasks();
    let (st, _) = call("GET", url(&g, "/v1/status"), None).await;
    assert_eq!(st, 200);
    let stopped = g.stop(Duration::from_secs(10)).await;
    assert!(stopped.drained, "{stopped:?}");
    assert_eq!(stopped.ended, 0);
    assert!(stopped.took < Duration::from_secs(2), "{stopped:?}");
    assert_eq!(monitor.running(), 0);
}

/// `Duration::MAX` as the drain bound means "no bound" (src/gateway/stop.rs:
/// `Instant + Duration::MAX` would overflow and panic).
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_stop_without_a_drain_bound_does_not_overflow() {
    let dir = tempfile::tempdir().unwrap();
    let g = Gateway::start(config(dir.path(), "QMNOBOUND"))
        .await
        .unwrap();
    let monitor = g.tasks();
    let stopped = g.stop(Duration::MAX).await;
    assert!(stopped.drained, "{stopped:?}");
    assert_eq!(stopped.ended, 0);
    assert_eq!(monitor.running(), 0);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn start_refuses_a_listener_clash_and_a_taken_port() {
    let dir = tempfile::tempdir().unwrap();
    let mut c = config(dir.path(), "QMCLASH");
    c.http.listen = "127.0.0.1:1414".parse().unwrap();
    c.listener.listen = "127.0.0.1:1414".parse().unwrap();
    let e = Gateway::start(c).await.err().unwrap();
    assert!(e.is_config());
    // Set by the program, after the file's port-0 values: no place cited.
    assert_eq!(
        e.to_string(),
        "configuration: http.listen and listener.listen are both 127.0.0.1:1414"
    );
    let taken = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
    let mut c = config(dir.path(), "QMCLASH");
    c.listener.listen = taken.local_addr().unwrap();
    let e = Gateway::start(c).await.err().unwrap();
    assert!(!e.is_config());
    assert!(
        e.to_string().starts_with(&format!(
            "cannot listen for channels on {}: ",
            taken.local_addr().unwrap()
        )),
        "{e}"
    );
    // Nothing was left running: the store opens again at once.
    let g = Gateway::start(config(dir.path(), "QMCLASH")).await.unwrap();
    g.stop(Duration::from_secs(1)).await;
}

//! Reloading the configuration of a running `mqgate run` with SIGHUP
//! (docs/operations.md "Reloading the configuration") while messages flow.
//!
//! Expected values: reason codes from IBM MQ "API reason codes" (2053
//! MQRC_Q_FULL, 2055 MQRC_Q_NOT_EMPTY, 2085 MQRC_UNKNOWN_OBJECT_NAME); a
//! non-empty local queue is not deleted (IBM MQ "DELETE queues": "A queue
//! cannot be deleted if it contains uncommitted messages", and DELETE
//! QLOCAL without PURGE refuses committed ones with 2055); ALTER QLOCAL
//! changes MAXDEPTH for later puts (IBM MQ "ALTER queues"); the HTTP
//! statuses of docs/http-api.md (201 put, 404 for 2085, 503 for 2053) and
//! RFC 6750 §3 (401 for a token nobody issued); an invalid file's errors
//! are those `mqgate check-config` prints for it, the reload's oracle.

mod common;

use common::{BIN, Gateway};
use serde_json::Value;
use sha2::{Digest, Sha256};
use std::process::Command;
use std::sync::Arc;
use std::sync::atomic::{AtomicBool, Ordering};
use std::time::{Duration, Instant};

const FLOW: &str = "flow-token-kept-across-reloads";
const OLD: &str = "old-token-removed-by-the-reload";
const NEW: &str = "new-token-added-by-the-reload";

fn sha(t: &str) -> String {
    hex::encode(Sha256::digest(t.as_bytes()))
}

/// The configuration before the reload: Q.GONE (empty) and Q.BUSY (will
/// hold messages) are taken out by the reload, Q.ALT's MAXDEPTH goes from
/// 2 to 4, token OLD is replaced by NEW.
fn before() -> String {
    format!(
        r#"queue_manager:
  name: QMRELOAD
queues:
  - {{ type: local, name: Q.FLOW, max_depth: 100000 }}
  - {{ type: local, name: Q.GONE }}
  - {{ type: local, name: Q.BUSY }}
  - {{ type: local, name: Q.ALT, max_depth: 2 }}
security:
  tokens:
    - {{ principal: flow, sha256: "{}" }}
    - {{ principal: app, sha256: "{}" }}
  authorities:
    - {{ principal: flow, profile: "**", authorities: [all] }}
    - {{ principal: flow, profile: "QMRELOAD", type: qmgr, authorities: [all] }}
    - {{ principal: app, profile: "**", authorities: [put, get, browse] }}
"#,
        sha(FLOW),
        sha(OLD)
    )
}

fn after() -> String {
    format!(
        r#"queue_manager:
  name: QMRELOAD
queues:
  - {{ type: local, name: Q.FLOW, max_depth: 100000 }}
  - {{ type: local, name: Q.ALT, max_depth: 4 }}
  - {{ type: local, name: Q.NEW }}
security:
  tokens:
    - {{ principal: flow, sha256: "{}" }}
    - {{ principal: app, sha256: "{}" }}
  authorities:
    - {{ principal: flow, profile: "**", authorities: [all] }}
    - {{ principal: flow, profile: "QMRELOAD", type: qmgr, authorities: [all] }}
    - {{ principal: app, profile: "**", authorities: [put, get, browse] }}
"#,
        sha(FLOW),
        sha(NEW)
    )
}

/// A put of `data` to `q` with bearer token `token`: (status, body).
fn put_as(g: &Gateway, token: &str, q: &str, data: &[u8]) -> (u16, Value) {
    let r = ureq::post(&format!("{}/v1/queues/{q}/messages", g.base))
        .set("Authorization", &format!("Bearer {token}"))
        .set("Content-Type", "application/octet-stream")
        .send_bytes(data);
    let r = match r {
        Ok(r) => r,
        Err(ureq::Error::Status(_, r)) => r,
        Err(e) => panic!("put to {q}: {e}"),
    };
    let st = r.status();
    (st, r.into_json().unwrap_or(Value::Null))
}

/// Waits until the gateway's log holds `n` lines with `marker`; returns
/// the log.
fn wait_log(g: &Gateway, marker: &str, n: usize) -> String {
    let deadline = Instant::now() + Duration::from_secs(30);
    loop {
        let log = std::fs::read_to_string(g.log_path()).unwrap_or_default();
        if log.matches(marker).count() >= n {
            return log;
        }
        assert!(
            Instant::now() < deadline,
            "no {n} x {marker:?} in the log:\n{log}"
        );
        std::thread::sleep(Duration::from_millis(20));
    }
}

/// What `mqgate check-config` prints on stderr for `file` (the errors, the
/// count line left out).
fn check_config_errors(file: &std::path::Path) -> Vec<String> {
    let out = Command::new(BIN)
        .arg("check-config")
        .arg(file)
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(1), "check-config accepted it");
    String::from_utf8(out.stderr)
        .unwrap()
        .lines()
        .filter(|l| !l.ends_with("error(s)"))
        .map(str::to_string)
        .collect()
}

/// The queue names `GET /v1/queues` lists.
fn queue_names(g: &Gateway) -> Vec<String> {
    let (st, v) = g.call("GET", "/v1/queues", None);
    assert_eq!(st, 200, "{v}");
    v.as_array()
        .unwrap()
        .iter()
        .map(|q| q["name"].as_str().unwrap().to_string())
        .collect()
}

#[test]
fn sighup_applies_a_valid_file_and_keeps_everything_on_an_invalid_one() {
    let dir = tempfile::tempdir().unwrap();
    let g = Gateway::start_with_token(dir.path(), &before(), FLOW);

    // Q.BUSY holds two messages; Q.ALT is full at MAXDEPTH 2.
    for i in 0..2 {
        assert_eq!(g.put("Q.BUSY", "", format!("busy {i}").as_bytes()).0, 201);
        assert_eq!(g.put("Q.ALT", "", format!("alt {i}").as_bytes()).0, 201);
    }
    let (st, v) = g.put("Q.ALT", "", b"third");
    assert_eq!((st, v["mqrc"].as_i64()), (503, Some(2053)), "{v}");
    assert_eq!(put_as(&g, OLD, "Q.FLOW", b"old token").0, 201);

    // Messages flow onto Q.FLOW through every reload; each put answered
    // 201 is counted.
    let stop = Arc::new(AtomicBool::new(false));
    let flow = {
        let stop = Arc::clone(&stop);
        let base = g.base.clone();
        std::thread::spawn(move || {
            let mut sent = Vec::new();
            let mut n = 0u32;
            while !stop.load(Ordering::Relaxed) {
                let body = format!("flow {n}");
                let r = ureq::post(&format!("{base}/v1/queues/Q.FLOW/messages"))
                    .set("Authorization", &format!("Bearer {FLOW}"))
                    .set("Content-Type", "application/octet-stream")
                    .send_bytes(body.as_bytes());
                match r {
                    Ok(r) if r.status() == 201 => sent.push(body),
                    Ok(r) => panic!("put {n}: {}", r.status()),
                    Err(e) => panic!("put {n}: {e}"),
                }
                n += 1;
            }
            sent
        })
    };
    std::thread::sleep(Duration::from_millis(200));

    // A valid file.
    std::fs::write(g.config_path(), after()).unwrap();
    g.hangup();
    let log = wait_log(&g, "configuration reloaded", 1);
    // One INFO summary; Q.BUSY kept with 2055 and its depth.
    assert!(
        log.contains(
            "configuration reloaded: queues defined Q.NEW, altered Q.ALT, deleted Q.GONE, kept Q.BUSY"
        ),
        "{log}"
    );
    assert!(log.contains("queue Q.BUSY holds 2 message(s)"), "{log}");
    assert!(log.contains("2055 MQRC_Q_NOT_EMPTY"), "{log}");

    let names = queue_names(&g);
    assert!(names.contains(&"Q.NEW".to_string()), "{names:?}");
    assert!(!names.contains(&"Q.GONE".to_string()), "{names:?}");
    assert!(names.contains(&"Q.BUSY".to_string()), "{names:?}");
    assert_eq!(g.depth("Q.BUSY"), 2);
    assert_eq!(g.put("Q.NEW", "", b"new queue").0, 201);
    let (st, v) = g.put("Q.GONE", "", b"gone");
    assert_eq!((st, v["mqrc"].as_i64()), (404, Some(2085)), "{v}");
    // MAXDEPTH 4 now: two more fit, the fifth is refused.
    assert_eq!(g.put("Q.ALT", "", b"third").0, 201);
    assert_eq!(g.put("Q.ALT", "", b"fourth").0, 201);
    let (st, v) = g.put("Q.ALT", "", b"fifth");
    assert_eq!((st, v["mqrc"].as_i64()), (503, Some(2053)), "{v}");
    // The removed token is refused, the new one accepted.
    assert_eq!(put_as(&g, OLD, "Q.NEW", b"old").0, 401);
    assert_eq!(put_as(&g, NEW, "Q.NEW", b"new").0, 201);

    // Bad YAML: nothing changes, the error is logged with line and column
    // exactly as check-config prints it.
    let bad_yaml = "queues:\n  - { type: local, name: Q.BROKEN\nsecurity: [\n";
    std::fs::write(g.config_path(), bad_yaml).unwrap();
    let expected = check_config_errors(g.config_path());
    assert_eq!(expected.len(), 1, "{expected:?}");
    let path = g.config_path().display().to_string();
    assert!(expected[0].starts_with(&format!("{path}:")), "{expected:?}");
    g.hangup();
    let log = wait_log(&g, "the running configuration stays", 1);
    assert!(
        log.contains(&format!("configuration not reloaded: {}", expected[0])),
        "{expected:?}\n{log}"
    );

    // A validation error (MAXDEPTH 0, IBM MQ's range is 1 to 999999999):
    // the same.
    let invalid = after().replace("name: Q.NEW }", "name: Q.NEW, max_depth: 0 }");
    std::fs::write(g.config_path(), &invalid).unwrap();
    let expected = check_config_errors(g.config_path());
    assert_eq!(expected.len(), 1, "{expected:?}");
    assert!(
        expected[0].starts_with(&format!("{path}:6:")) && expected[0].contains("max_depth"),
        "{expected:?}"
    );
    g.hangup();
    let log = wait_log(&g, "the running configuration stays", 2);
    assert!(
        log.contains(&format!("configuration not reloaded: {}", expected[0])),
        "{expected:?}\n{log}"
    );
    assert_eq!(log.matches("configuration reloaded:").count(), 1, "{log}");

    // Everything as after the valid reload.
    let names = queue_names(&g);
    assert!(names.contains(&"Q.NEW".to_string()), "{names:?}");
    assert!(!names.contains(&"Q.BROKEN".to_string()), "{names:?}");
    assert_eq!(put_as(&g, NEW, "Q.NEW", b"still").0, 201);
    assert_eq!(put_as(&g, OLD, "Q.NEW", b"still not").0, 401);
    let (st, v) = g.put("Q.ALT", "", b"still full");
    assert_eq!((st, v["mqrc"].as_i64()), (503, Some(2053)), "{v}");

    // POST /v1/admin/reload needs +ctrl on the queue manager: app has
    // none (403 with 2035 MQRC_NOT_AUTHORIZED, docs/security.md).
    let r = ureq::post(&format!("{}/v1/admin/reload", g.base))
        .set("Authorization", &format!("Bearer {NEW}"))
        .call();
    let Err(ureq::Error::Status(403, r)) = r else {
        panic!("not refused: {r:?}")
    };
    let v: Value = r.into_json().unwrap();
    assert_eq!(v["mqrc"], 2035, "{v}");
    // flow holds it: the invalid file answers 400 with check-config's errors.
    let (st, v) = g.call("POST", "/v1/admin/reload", None);
    assert_eq!(st, 400, "{v}");
    assert_eq!(v["errors"], serde_json::json!(expected), "{v}");
    // The valid file again: nothing left to change but Q.BUSY, still kept.
    std::fs::write(g.config_path(), after()).unwrap();
    let (st, v) = g.call("POST", "/v1/admin/reload", None);
    assert_eq!(st, 200, "{v}");
    assert_eq!(v["queues"]["defined"], serde_json::json!([]), "{v}");
    assert_eq!(v["queues"]["deleted"], serde_json::json!([]), "{v}");
    assert_eq!(v["queues"]["kept"][0]["name"], "Q.BUSY", "{v}");
    assert_eq!(v["queues"]["kept"][0]["mqrc"], 2055, "{v}");
    assert_eq!(v["needs_restart"], serde_json::json!([]), "{v}");

    // Every message put while reloading is on Q.FLOW once: the one put
    // with the old token first, then the flow in order.
    stop.store(true, Ordering::Relaxed);
    let sent = flow.join().unwrap();
    assert!(
        sent.len() > 10,
        "only {} puts during the reloads",
        sent.len()
    );
    let mut got = Vec::new();
    loop {
        let (st, v) = g.get_ack("Q.FLOW", "");
        if st == 404 {
            assert_eq!(v["mqrc"].as_i64(), Some(2033), "{v}");
            break;
        }
        assert_eq!(st, 200, "{v}");
        got.push(String::from_utf8(common::data(&v)).unwrap());
    }
    assert_eq!(got.first().map(String::as_str), Some("old token"));
    assert_eq!(&got[1..], &sent[..], "lost, duplicated or reordered");
}

/// GWA's configuration: a remote queue TO.B for Q.IN on GWB through
/// transmission queue TO.GWB, and `channels` (YAML list items).
fn sender_side(channels: &str) -> String {
    format!(
        "queue_manager:
  name: GWA
  default_xmit_queue: ''
queues:
  - {{ type: local, name: TO.GWB, usage: xmitq }}
  - {{ type: remote, name: TO.B, remote_q_name: Q.IN, remote_q_mgr_name: GWB, xmit_q: TO.GWB }}
channels: {channels}
"
    )
}

fn sender_channel(b: &Gateway, heartbeat_ms: u32) -> String {
    format!(
        "
  - type: sender
    name: A.TO.B
    xmit_queue: TO.GWB
    connect: {}
    batch_size: 2
    heartbeat_ms: {heartbeat_ms}
    reconnect: {{ first_ms: 20, max_ms: 200 }}",
        b.listen_addr()
    )
}

/// Polls until `q` on `g` has `depth` messages.
fn wait_depth(g: &Gateway, q: &str, depth: u64) {
    let deadline = Instant::now() + Duration::from_secs(30);
    while g.depth(q) != depth {
        assert!(
            Instant::now() < deadline,
            "{q} stays at {} messages, not {depth}",
            g.depth(q)
        );
        std::thread::sleep(Duration::from_millis(20));
    }
}

/// A reload that adds a sender channel starts it, one that removes it
/// stops it (messages put meanwhile wait on the transmission queue), and
/// one that changes it restarts it; every message reaches GWB once, in
/// order (IBM MQ "Channel states": a stopped sender leaves its messages on
/// the transmission queue).
#[test]
fn sighup_starts_stops_and_restarts_a_sender_channel() {
    let dir_b = tempfile::tempdir().unwrap();
    let b = Gateway::start(
        dir_b.path(),
        "queue_manager:\n  name: GWB\nqueues:\n  - { type: local, name: Q.IN }\nchannels:\n  - type: receiver\n    name: A.TO.B\n",
    );
    let dir_a = tempfile::tempdir().unwrap();
    let a = Gateway::start(dir_a.path(), &sender_side("[]"));
    let mut n = 0;
    let mut put = |count: usize| {
        for _ in 0..count {
            let (st, v) = a.put("TO.B", "persistent=true", format!("m{n}").as_bytes());
            assert_eq!(st, 201, "{v}");
            n += 1;
        }
    };
    put(4);
    assert_eq!(a.depth("TO.GWB"), 4);

    // Added: started, the four waiting messages delivered.
    std::fs::write(a.config_path(), sender_side(&sender_channel(&b, 200))).unwrap();
    a.hangup();
    let log = wait_log(&a, "configuration reloaded:", 1);
    assert!(
        log.contains("channels started A.TO.B, stopped none"),
        "{log}"
    );
    wait_depth(&b, "Q.IN", 4);
    wait_depth(&a, "TO.GWB", 0);

    // Removed: stopped; what is put now waits on TO.GWB.
    std::fs::write(a.config_path(), sender_side("[]")).unwrap();
    a.hangup();
    let log = wait_log(&a, "configuration reloaded:", 2);
    assert!(
        log.contains("channels started none, stopped A.TO.B"),
        "{log}"
    );
    std::thread::sleep(Duration::from_millis(300));
    put(3);
    std::thread::sleep(Duration::from_millis(500));
    assert_eq!(a.depth("TO.GWB"), 3);
    assert_eq!(b.depth("Q.IN"), 4);

    // Added again, then changed (heartbeat): restarted; all delivered.
    std::fs::write(a.config_path(), sender_side(&sender_channel(&b, 200))).unwrap();
    a.hangup();
    wait_log(&a, "configuration reloaded:", 3);
    wait_depth(&b, "Q.IN", 7);
    std::fs::write(a.config_path(), sender_side(&sender_channel(&b, 300))).unwrap();
    a.hangup();
    let log = wait_log(&a, "configuration reloaded:", 4);
    assert!(log.contains("restarted A.TO.B"), "{log}");
    put(2);
    wait_depth(&b, "Q.IN", 9);
    wait_depth(&a, "TO.GWB", 0);

    let mut got = Vec::new();
    loop {
        let (st, v) = b.get_ack("Q.IN", "");
        if st == 404 {
            break;
        }
        assert_eq!(st, 200, "{v}");
        got.push(String::from_utf8(common::data(&v)).unwrap());
    }
    let want: Vec<String> = (0..9).map(|i| format!("m{i}")).collect();
    assert_eq!(got, want, "lost, duplicated or reordered");
}

/// Messages put onto queue `q` of a gateway at `base` without a token, one
/// after the other from a thread of their own, until [`Flow::stop`]: the
/// flow a reload must not disturb.
struct Flow {
    stop: Arc<AtomicBool>,
    /// Puts answered 201 so far.
    count: Arc<std::sync::atomic::AtomicUsize>,
    thread: std::thread::JoinHandle<Vec<String>>,
}

impl Flow {
    /// Starts the flow and returns once its first puts are in.
    fn start(base: &str, q: &str) -> Flow {
        let stop = Arc::new(AtomicBool::new(false));
        let count = Arc::new(std::sync::atomic::AtomicUsize::new(0));
        let url = format!("{base}/v1/queues/{q}/messages");
        let thread = {
            let stop = Arc::clone(&stop);
            let count = Arc::clone(&count);
            std::thread::spawn(move || {
                let mut sent = Vec::new();
                let mut n = 0u32;
                while !stop.load(Ordering::Relaxed) {
                    let body = format!("flow {n}");
                    let r = ureq::post(&url)
                        .set("Content-Type", "application/octet-stream")
                        .send_bytes(body.as_bytes());
                    match r {
                        Ok(r) if r.status() == 201 => sent.push(body),
                        Ok(r) => panic!("put {n}: {}", r.status()),
                        Err(e) => panic!("put {n}: {e}"),
                    }
                    count.fetch_add(1, Ordering::Relaxed);
                    n += 1;
                }
                sent
            })
        };
        let flow = Flow {
            stop,
            count,
            thread,
        };
        flow.wait_for(3);
        flow
    }

    /// Waits until `n` puts are in.
    fn wait_for(&self, n: usize) {
        let deadline = Instant::now() + Duration::from_secs(30);
        while self.count.load(Ordering::Relaxed) < n {
            assert!(Instant::now() < deadline, "the flow is stuck");
            std::thread::sleep(Duration::from_millis(5));
        }
    }

    /// Stops the flow; the messages put, in order.
    fn stop(self) -> Vec<String> {
        let before = self.count.load(Ordering::Relaxed);
        // Some puts after whatever the test did last.
        self.wait_for(before + 3);
        self.stop.store(true, Ordering::Relaxed);
        self.thread.join().unwrap()
    }
}

/// Every message on `q` of `g`, got and acknowledged in order.
fn drain(g: &Gateway, q: &str) -> Vec<String> {
    let mut got = Vec::new();
    loop {
        let (st, v) = g.get_ack(q, "");
        if st == 404 {
            assert_eq!(v["mqrc"].as_i64(), Some(2033), "{v}");
            return got;
        }
        assert_eq!(st, 200, "{v}");
        got.push(String::from_utf8(common::data(&v)).unwrap());
    }
}

/// Stops `flow` and checks every message it put is on `q` once, in order.
fn check_flow(g: &Gateway, q: &str, flow: Flow) {
    let sent = flow.stop();
    assert_eq!(drain(g, q), sent, "lost, duplicated or reordered");
}

/// Writes `config` as `g`'s configuration file, sends SIGHUP and returns
/// the `n`th "configuration reloaded" line.
fn reload_to(g: &Gateway, config: &str, n: usize) -> String {
    std::fs::write(g.config_path(), config).unwrap();
    g.hangup();
    reloaded(g, n)
}

/// Waits for the `n`th reload summary in `g`'s log and returns it.
fn reloaded(g: &Gateway, n: usize) -> String {
    let log = wait_log(g, "configuration reloaded:", n);
    log.lines()
        .filter(|l| l.contains("configuration reloaded:"))
        .nth(n - 1)
        .unwrap_or_default()
        .to_string()
}

/// A gateway with device queue managers `patterns` of MAXDEPTH
/// `max_depth`, no default transmission queue (a name that is no device
/// is 2087) and Q.FLOW for the flow.
fn devices_config(patterns: &str, max_depth: u32) -> String {
    format!(
        "queue_manager:
  name: QMDEV
  default_xmit_queue: ''
queues:
  - {{ type: local, name: Q.FLOW, max_depth: 100000 }}
devices:
  queue_managers: {patterns}
  max_depth: {max_depth}
"
    )
}

/// A device pull (`GET /v1/devices/{device}/queues/INBOX/messages/next`).
fn pull(g: &Gateway, device: &str) -> (u16, Value) {
    g.call(
        "GET",
        &format!("/v1/devices/{device}/queues/INBOX/messages/next?wait_ms=0"),
        None,
    )
}

/// Acknowledges a device pull's lease.
fn ack_pull(g: &Gateway, device: &str, v: &Value) -> u16 {
    let lease = common::token(&v["lease"]);
    g.call(
        "POST",
        &format!("/v1/devices/{device}/queues/INBOX/messages/ack/{lease}"),
        Some(("application/octet-stream", b"")),
    )
    .0
}

/// A put for queue INBOX of queue manager `device`: (status, MQRC).
fn put_device(g: &Gateway, device: &str, body: &str) -> (u16, Option<i64>) {
    let (st, v) = g.put("INBOX", &format!("q_mgr={device}"), body.as_bytes());
    (st, v["mqrc"].as_i64())
}

/// A reload that changes `devices:` (a second pattern, a higher MAXDEPTH)
/// puts it in force for new work while a device's queued messages and an
/// open lease stay: the lease taken before is acknowledged after, the
/// queue takes the new MAXDEPTH, the new pattern's device gets messages;
/// a reload that drops the pattern again refuses its devices. Expected
/// values: docs/config.md `devices` (MAXDEPTH, 2053 MQRC_Q_FULL above it;
/// a queue manager matching no pattern, with no transmission queue, is
/// 2087 MQRC_UNKNOWN_REMOTE_Q_MGR, IBM MQ "API reason codes") and the
/// statuses of docs/http-api.md (201, 503 for 2053, 404 for 2087, 200 for
/// an acknowledged lease).
#[test]
fn sighup_changes_devices_and_keeps_queued_messages_and_leases() {
    let dir = tempfile::tempdir().unwrap();
    let g = Gateway::start(dir.path(), &devices_config("['DEVA*']", 4));
    for i in 0..4 {
        assert_eq!(put_device(&g, "DEVA1", &format!("a{i}")), (201, None));
    }
    assert_eq!(put_device(&g, "DEVA1", "a4"), (503, Some(2053)));
    assert_eq!(put_device(&g, "DEVB1", "b0"), (404, Some(2087)));
    // An open lease across the reload.
    let (st, leased) = pull(&g, "DEVA1");
    assert_eq!(st, 200, "{leased}");
    assert_eq!(common::data(&leased), b"a0");

    let flow = Flow::start(&g.base, "Q.FLOW");
    let line = reload_to(&g, &devices_config("['DEVA*', 'DEVB*']", 6), 1);
    assert!(line.contains("; devices reloaded;"), "{line}");
    // No `tls:` setting: nothing to read again (docs/operations.md
    // "Reloading the configuration").
    assert!(line.contains("; certificates none;"), "{line}");
    assert!(line.contains("needs a restart none"), "{line}");

    // MAXDEPTH 6 on the queue that exists: the leased message still
    // counts (IBM MQ counts uncommitted gets in CURDEPTH), so two more fit.
    assert_eq!(put_device(&g, "DEVA1", "a4"), (201, None));
    assert_eq!(put_device(&g, "DEVA1", "a5"), (201, None));
    assert_eq!(put_device(&g, "DEVA1", "a6"), (503, Some(2053)));
    assert_eq!(put_device(&g, "DEVB1", "b0"), (201, None));
    assert_eq!(ack_pull(&g, "DEVA1", &leased), 200);
    let mut got = Vec::new();
    for device in ["DEVA1", "DEVB1"] {
        loop {
            let (st, v) = pull(&g, device);
            if st == 204 {
                break;
            }
            assert_eq!(st, 200, "{v}");
            assert_eq!(ack_pull(&g, device, &v), 200);
            got.push(String::from_utf8(common::data(&v)).unwrap());
        }
    }
    assert_eq!(
        got,
        ["a1", "a2", "a3", "a4", "a5", "b0"],
        "lost or duplicated"
    );

    // DEVB* gone again: its devices are refused from the next put.
    let line = reload_to(&g, &devices_config("['DEVA*']", 6), 2);
    assert!(line.contains("; devices reloaded;"), "{line}");
    assert_eq!(put_device(&g, "DEVB1", "b1"), (404, Some(2087)));
    assert_eq!(put_device(&g, "DEVA1", "a7"), (201, None));
    check_flow(&g, "Q.FLOW", flow);
}

/// A nats-server with TLS that asks every client for a certificate from
/// `ca` (nats-server "TLS" configuration, `verify: true`); killed when
/// dropped.
struct TlsNats {
    child: std::process::Child,
    port: u16,
    monitor: String,
    log: std::path::PathBuf,
}

impl TlsNats {
    fn start(dir: &std::path::Path, cert: &str, key: &str, ca: &str) -> Option<TlsNats> {
        let program = common::nats::binary()?;
        let (port, mport) = (common::nats::free_port(), common::nats::free_port());
        let log = dir.join("nats.log");
        let config = dir.join("nats.conf");
        std::fs::write(
            &config,
            format!(
                "listen: 127.0.0.1:{port}\nhttp: 127.0.0.1:{mport}\nlog_file: {log:?}\n\
                 tls {{ cert_file: {cert:?}, key_file: {key:?}, ca_file: {ca:?}, verify: true }}\n"
            ),
        )
        .unwrap();
        let child = Command::new(program)
            .arg("-c")
            .arg(&config)
            .stdout(std::process::Stdio::null())
            .stderr(std::process::Stdio::null())
            .spawn()
            .unwrap();
        let s = TlsNats {
            child,
            port,
            monitor: format!("http://127.0.0.1:{mport}"),
            log,
        };
        let deadline = Instant::now() + Duration::from_secs(20);
        while ureq::get(&format!("{}/healthz", s.monitor)).call().is_err() {
            assert!(Instant::now() < deadline, "nats-server did not start");
            std::thread::sleep(Duration::from_millis(25));
        }
        Some(s)
    }

    /// The connection named `mqgate` (nats-server monitoring `/connz`),
    /// once it has `subs` subscriptions and `in_msgs` messages in.
    fn wait_mqgate(&self, subs: u64, in_msgs: u64) -> Value {
        let deadline = Instant::now() + Duration::from_secs(30);
        loop {
            let v: Value = ureq::get(&format!("{}/connz", self.monitor))
                .call()
                .unwrap()
                .into_json()
                .unwrap();
            let found = v["connections"]
                .as_array()
                .into_iter()
                .flatten()
                .find(|c| c["name"] == "mqgate")
                .cloned();
            if let Some(c) = &found
                && c["subscriptions"].as_u64() == Some(subs)
                && c["in_msgs"].as_u64() == Some(in_msgs)
            {
                return c.clone();
            }
            assert!(
                Instant::now() < deadline,
                "no mqgate connection with {subs} subscriptions and {in_msgs} messages in: {v}"
            );
            std::thread::sleep(Duration::from_millis(25));
        }
    }
}

impl Drop for TlsNats {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

/// The NATS bridge's `rv.nats.tls` files are read again by a reload like
/// every other `tls:` setting (docs/security.md "Reloading certificates"):
/// started with a client certificate from a CA nats-server does not trust,
/// the bridge is refused (nats-server logs the failed TLS handshake); once
/// a certificate from the trusted CA is in the same files, a SIGHUP makes
/// the bridge connect with it. Its two subscriptions (`ORDERS.>` and this
/// gateway's inboxes, docs/rendezvous.md "Bridge to NATS") and the three
/// messages published on the bus then (nats-server's `in_msgs`) show it.
#[test]
fn sighup_rereads_the_nats_bridge_certificates() {
    let dir = tempfile::tempdir().unwrap();
    let pki = common::pki::Pki::new(dir.path());
    let (server_cert, server_key) = pki.leaf("nats", "/O=Example/CN=nats", "ca", 10, 30);
    let (good_cert, good_key) = pki.leaf("good", "/O=Example/CN=gw", "ca", 11, 30);
    let (bad_cert, bad_key) = pki.leaf("bad", "/O=Example/CN=gw", "other-ca", 12, 30);
    let (cert, key) = (pki.path("client.pem"), pki.path("client.key"));
    std::fs::copy(&bad_cert, &cert).unwrap();
    std::fs::copy(&bad_key, &key).unwrap();
    let Some(nats) = TlsNats::start(dir.path(), &server_cert, &server_key, &pki.path("ca.pem"))
    else {
        return;
    };
    let config = format!(
        "rv:\n  nats:\n    url: tls://127.0.0.1:{}\n    subjects: [ORDERS.>]\n    tls: {{ ca: {:?}, cert: {cert:?}, key: {key:?} }}\n",
        nats.port,
        pki.path("ca.pem")
    );
    let gw_dir = dir.path().join("gw");
    std::fs::create_dir(&gw_dir).unwrap();
    let g = Gateway::start(&gw_dir, &config);
    let deadline = Instant::now() + Duration::from_secs(30);
    while !std::fs::read_to_string(&nats.log)
        .unwrap_or_default()
        .contains("TLS handshake error")
    {
        assert!(
            Instant::now() < deadline,
            "nats-server never refused the untrusted client certificate"
        );
        std::thread::sleep(Duration::from_millis(25));
    }

    std::fs::copy(&good_cert, &cert).unwrap();
    std::fs::copy(&good_key, &key).unwrap();
    g.hangup();
    let line = reloaded(&g, 1);
    assert!(line.contains("certificates reloaded"), "{line}");
    nats.wait_mqgate(2, 0);
    for i in 0..3 {
        let (st, v) = g.call(
            "POST",
            "/v1/rv/messages/ORDERS.NEW",
            Some((
                "application/json",
                format!(r#"{{"fields": [{{"name": "n", "type": "i32", "value": {i}}}]}}"#)
                    .as_bytes(),
            )),
        );
        assert_eq!(st, 200, "{v}");
    }
    nats.wait_mqgate(2, 3);
}

/// A queue manager QMR with Q.IN (messages from the receiver channels),
/// Q.FLOW and APP.IN, then `extra` (more top-level YAML).
fn receiving(extra: &str) -> String {
    format!(
        "queue_manager:
  name: QMR
queues:
  - {{ type: local, name: Q.IN, max_depth: 100000 }}
  - {{ type: local, name: Q.FLOW, max_depth: 100000 }}
  - {{ type: local, name: APP.IN }}
{extra}"
    )
}

/// `mqgate send` of plain messages `bodies` for Q.IN at QMR through
/// receiver channel `channel` of `g`, persistent, one batch each.
fn send(g: &Gateway, channel: &str, bodies: &[String]) -> std::process::Output {
    let dir = tempfile::tempdir().unwrap();
    let files: Vec<_> = bodies
        .iter()
        .enumerate()
        .map(|(i, b)| {
            let p = dir.path().join(format!("{i:04}.msg"));
            std::fs::write(&p, b).unwrap();
            p
        })
        .collect();
    Command::new(BIN)
        .args(["send", "--to", &g.listen_addr(), "--channel", channel])
        .args(["--rqmname", "QMR", "--rname", "Q.IN", "--persistent"])
        .args(&files)
        .output()
        .unwrap()
}

/// Sends `bodies` through `channel`, which must be refused: `mqgate send`
/// exits 1 naming `mqrc` (README.md "Message channels and devices": a CLOSE ends it
/// with status 1).
fn send_refused(g: &Gateway, channel: &str, bodies: &[String], mqrc: u32) {
    let out = send(g, channel, bodies);
    assert_eq!(out.status.code(), Some(1), "{out:?}");
    assert!(
        String::from_utf8_lossy(&out.stderr).contains(&mqrc.to_string()),
        "{out:?}"
    );
}

/// Sends `bodies` through `channel`, which must confirm them all.
fn send_ok(g: &Gateway, channel: &str, bodies: &[String]) {
    let out = send(g, channel, bodies);
    assert!(out.status.success(), "{out:?}");
}

/// The CLOSE a HELLO for `channel` on `g`'s channel listener is answered
/// with (docs/channel-protocol.md "Frames": length, type 0x07, MQRC as a
/// big-endian u32, text after a 2-byte length): (MQRC, text).
fn refused_hello(g: &Gateway, channel: &str) -> (u32, String) {
    use std::io::{Read, Write};
    let mut s = std::net::TcpStream::connect(g.listen_addr()).unwrap();
    s.set_read_timeout(Some(Duration::from_secs(10))).unwrap();
    s.write_all(&common::channel::hello(channel, "")).unwrap();
    let mut b = Vec::new();
    let _ = s.read_to_end(&mut b);
    assert!(b.len() > 11 && b[4] == 0x07, "not a CLOSE frame: {b:?}");
    (
        u32::from_be_bytes(b[5..9].try_into().unwrap()),
        String::from_utf8_lossy(&b[11..]).into_owned(),
    )
}

fn bodies(from: usize, to: usize) -> Vec<String> {
    (from..to).map(|i| format!("m{i}")).collect()
}

/// A reload that changes `exits:` gives a queue opened from then on the
/// new chain (docs/operations.md "Reloading the configuration"): messages
/// put on APP.IN before it keep CCSID 819, those put after go through the
/// new before_put `convert` exit to CCSID 500 (docs/exits.md "convert";
/// docs/ccsid.md: "ABC" is C1 C2 C3 in EBCDIC CCSID 500).
#[test]
fn sighup_gives_queues_opened_afterwards_a_new_exit_chain() {
    let dir = tempfile::tempdir().unwrap();
    let g = Gateway::start(dir.path(), &receiving(""));
    for _ in 0..2 {
        assert_eq!(g.put("APP.IN", "format=MQSTR&ccsid=819", b"ABC").0, 201);
    }
    let flow = Flow::start(&g.base, "Q.FLOW");
    let exits = "exits:\n  queues:\n    APP.IN:\n      before_put:\n        - exit: convert\n          data: \"ccsid=500\"\n";
    let line = reload_to(&g, &receiving(exits), 1);
    assert!(line.contains("; exits reloaded;"), "{line}");
    for _ in 0..2 {
        assert_eq!(g.put("APP.IN", "format=MQSTR&ccsid=819", b"ABC").0, 201);
    }
    let mut got = Vec::new();
    loop {
        let (st, v) = g.get_ack("APP.IN", "");
        if st == 404 {
            break;
        }
        assert_eq!(st, 200, "{v}");
        got.push((
            v["md"]["CodedCharSetId"].as_i64().unwrap(),
            common::data(&v),
        ));
    }
    let ascii = b"ABC".to_vec();
    let ebcdic = vec![0xC1, 0xC2, 0xC3];
    assert_eq!(
        got,
        [
            (819, ascii.clone()),
            (819, ascii),
            (500, ebcdic.clone()),
            (500, ebcdic)
        ]
    );
    check_flow(&g, "Q.FLOW", flow);
}

/// A reload that adds receiver channel RCV.B and removes RCV.A: a sender
/// to RCV.B is taken at once, one to RCV.A is refused with CLOSE 2540
/// MQRC_UNKNOWN_CHANNEL_NAME (docs/channel-protocol.md "Handshake": no
/// receiver channel of that name; IBM MQ "API reason codes"). Every
/// message confirmed reaches Q.IN once, in order.
#[test]
fn sighup_adds_and_removes_receiver_channels() {
    let dir = tempfile::tempdir().unwrap();
    let g = Gateway::start(
        dir.path(),
        &receiving("channels:\n  - { type: receiver, name: RCV.A }\n"),
    );
    send_ok(&g, "RCV.A", &bodies(0, 3));
    assert_eq!(refused_hello(&g, "RCV.B").0, 2540);
    let flow = Flow::start(&g.base, "Q.FLOW");
    std::fs::write(
        g.config_path(),
        receiving("channels:\n  - { type: receiver, name: RCV.B }\n"),
    )
    .unwrap();
    g.hangup();
    let line = reloaded(&g, 1);
    assert!(
        line.contains("channels started RCV.B, stopped RCV.A"),
        "{line}"
    );
    send_ok(&g, "RCV.B", &bodies(3, 6));
    let (mqrc, text) = refused_hello(&g, "RCV.A");
    assert_eq!(mqrc, 2540, "{text}");
    send_refused(&g, "RCV.A", &bodies(6, 7), 2540);
    assert_eq!(drain(&g, "Q.IN"), bodies(0, 6));
    check_flow(&g, "Q.FLOW", flow);
}

/// A reload that adds a channel authentication rule blocking the address
/// senders come from (as MQSC SET CHLAUTH('*') TYPE(BLOCKADDR) imports,
/// docs/security.md "SET CHLAUTH") refuses the next connection with CLOSE
/// 2035 MQRC_NOT_AUTHORIZED naming the rule (docs/security.md
/// "Refusals"); one that takes it away lets senders in again. HTTP puts,
/// which the rules do not cover, flow throughout.
#[test]
fn sighup_puts_a_new_blocking_chlauth_rule_in_force() {
    let dir = tempfile::tempdir().unwrap();
    let channels = "channels:\n  - { type: receiver, name: RCV.A }\n";
    let g = Gateway::start(dir.path(), &receiving(channels));
    send_ok(&g, "RCV.A", &bodies(0, 2));
    let flow = Flow::start(&g.base, "Q.FLOW");
    let blocked = format!(
        "{channels}security:\n  chlauth:\n    - {{ channel: '*', address: 127.0.0.1, action: block }}\n"
    );
    let line = reload_to(&g, &receiving(&blocked), 1);
    assert!(line.contains("chlauth rules 1"), "{line}");
    let (mqrc, text) = refused_hello(&g, "RCV.A");
    assert_eq!(mqrc, 2035, "{text}");
    assert!(
        text.contains("security.chlauth[0] (channel=* address=\"127.0.0.1\" action=block)"),
        "{text}"
    );
    send_refused(&g, "RCV.A", &bodies(2, 3), 2035);

    let line = reload_to(&g, &receiving(channels), 2);
    assert!(line.contains("chlauth rules 0"), "{line}");
    send_ok(&g, "RCV.A", &bodies(3, 5));
    assert_eq!(drain(&g, "Q.IN"), ["m0", "m1", "m3", "m4"]);
    check_flow(&g, "Q.FLOW", flow);
}

/// A reload that lowers `security.limits.connections` refuses the next
/// channel connection past it with CLOSE 2537 MQRC_CHANNEL_NOT_AVAILABLE
/// naming the limit (docs/security.md "Limits"), the connections already
/// open staying counted; once they close, senders get in again. The HTTP
/// listener has the same limit, so no HTTP call is made while it is low.
#[test]
fn sighup_puts_a_lowered_connection_limit_in_force() {
    use std::net::TcpStream;
    let dir = tempfile::tempdir().unwrap();
    let channels = "channels:\n  - { type: receiver, name: RCV.A }\n";
    let g = Gateway::start(dir.path(), &receiving(channels));
    send_ok(&g, "RCV.A", &bodies(0, 2));
    // Three connections to the channel listener, held open.
    let held: Vec<TcpStream> = (0..3)
        .map(|_| TcpStream::connect(g.listen_addr()).unwrap())
        .collect();
    let low = format!("{channels}security:\n  limits:\n    connections: 3\n");
    let line = reload_to(&g, &receiving(&low), 1);
    assert!(line.contains("limits"), "{line}");
    let (mqrc, text) = refused_hello(&g, "RCV.A");
    assert_eq!(mqrc, 2537, "{text}");
    assert!(text.contains("security.limits.connections = 3"), "{text}");
    send_refused(&g, "RCV.A", &bodies(2, 3), 2537);
    // Closed, they no longer count: a sender gets in (the gateway notices
    // the closes in its own time).
    drop(held);
    let deadline = Instant::now() + Duration::from_secs(30);
    loop {
        let out = send(&g, "RCV.A", &bodies(3, 5));
        if out.status.success() {
            break;
        }
        assert!(
            String::from_utf8_lossy(&out.stderr).contains("2537"),
            "{out:?}"
        );
        assert!(Instant::now() < deadline, "still refused: {out:?}");
        std::thread::sleep(Duration::from_millis(50));
    }
    assert_eq!(drain(&g, "Q.IN"), ["m0", "m1", "m3", "m4"]);
}

/// GWB's configuration: Q.IN, and `channels` (YAML list items).
fn pulling_side(channels: &str) -> String {
    format!(
        "queue_manager:\n  name: GWB\nqueues:\n  - {{ type: local, name: Q.IN }}\n  - {{ type: local, name: Q.FLOW, max_depth: 100000 }}\nchannels: {channels}\n"
    )
}

/// An mq-client channel FROM.QMA on GWB pulling transmission queue GWB of
/// gateway QMA through its server-connection channel (docs/config.md
/// `mq-client`).
fn mq_client_channel(port: u16, wait_ms: u32) -> String {
    format!(
        "
  - type: mq-client
    name: FROM.QMA
    host: 127.0.0.1
    port: {port}
    channel: MQGATE.SVRCONN
    q_mgr_name: QMA
    xmit_queue: GWB
    batch_size: 2
    wait_ms: {wait_ms}
    reconnect: {{ first_ms: 20, max_ms: 200 }}"
    )
}

/// A reload that adds an mq-client channel starts it (the messages waiting
/// on QMA's transmission queue come over), one that removes it stops it
/// (what is put meanwhile waits on QMA), and one that adds it again, then
/// changes it, starts and restarts it; every message reaches GWB's Q.IN
/// once, in order (IBM MQ "Channel states": a stopped channel leaves its
/// messages on the transmission queue).
#[test]
fn sighup_starts_stops_and_restarts_an_mq_client_channel() {
    let port = common::nats::free_port();
    let dir_a = tempfile::tempdir().unwrap();
    // Its SVRCONN connections logged (at DEBUG) as they open and close.
    let a = Gateway::start_with_env(
        dir_a.path(),
        &format!(
            "queue_manager:\n  name: QMA\n  default_xmit_queue: ''\nchannels: []\nsvrconn:\n  listen: 127.0.0.1:{port}\n  channels:\n    - name: MQGATE.SVRCONN\nqueues:\n  - {{ type: local, name: GWB, usage: xmitq }}\n  - {{ type: remote, name: TO.B, remote_q_name: Q.IN, remote_q_mgr_name: GWB, xmit_q: GWB }}\n"
        ),
        &[],
        &[("RUST_LOG", "info,mqgate::svrconn=debug")],
    );
    let dir_b = tempfile::tempdir().unwrap();
    let b = Gateway::start(dir_b.path(), &pulling_side("[]"));
    let mut n = 0;
    let mut put = |count: usize| {
        for _ in 0..count {
            let (st, v) = a.put("TO.B", "persistent=true", format!("m{n}").as_bytes());
            assert_eq!(st, 201, "{v}");
            n += 1;
        }
    };
    put(3);
    let flow = Flow::start(&b.base, "Q.FLOW");

    std::fs::write(b.config_path(), pulling_side(&mq_client_channel(port, 200))).unwrap();
    b.hangup();
    let line = reloaded(&b, 1);
    assert!(
        line.contains("channels started FROM.QMA, stopped none"),
        "{line}"
    );
    wait_depth(&b, "Q.IN", 3);
    wait_depth(&a, "GWB", 0);

    std::fs::write(b.config_path(), pulling_side("[]")).unwrap();
    b.hangup();
    let line = reloaded(&b, 2);
    assert!(
        line.contains("channels started none, stopped FROM.QMA"),
        "{line}"
    );
    // The stopped channel ends after its current batch: once QMA shows no
    // SVRCONN connection left, what is put stays on GWB.
    let deadline = Instant::now() + Duration::from_secs(30);
    loop {
        let log = std::fs::read_to_string(a.log_path()).unwrap_or_default();
        let opened = log.matches("connection: MQ client connected").count();
        let closed = log.matches("connection: MQ client disconnected").count();
        if opened > 0 && opened == closed {
            break;
        }
        assert!(
            Instant::now() < deadline,
            "the channel did not stop:\n{log}"
        );
        std::thread::sleep(Duration::from_millis(20));
    }
    put(2);
    assert_eq!(a.depth("GWB"), 2);
    assert_eq!(b.depth("Q.IN"), 3);

    std::fs::write(b.config_path(), pulling_side(&mq_client_channel(port, 200))).unwrap();
    b.hangup();
    reloaded(&b, 3);
    wait_depth(&b, "Q.IN", 5);
    std::fs::write(b.config_path(), pulling_side(&mq_client_channel(port, 300))).unwrap();
    b.hangup();
    let line = reloaded(&b, 4);
    assert!(line.contains("restarted FROM.QMA"), "{line}");
    put(2);
    wait_depth(&b, "Q.IN", 7);
    wait_depth(&a, "GWB", 0);
    assert_eq!(drain(&b, "Q.IN"), bodies(0, 7));
    check_flow(&b, "Q.FLOW", flow);
}

/// QMA serving `svrconn:` on `port` with server-connection `channels` (a
/// YAML list), transmission queue GWB and remote queue TO.B for Q.IN at
/// GWB.
fn serving_side(port: u16, channels: &str) -> String {
    format!(
        "queue_manager:\n  name: QMA\n  default_xmit_queue: ''\nchannels: []\nsvrconn:\n  listen: 127.0.0.1:{port}\n  channels: {channels}\nqueues:\n  - {{ type: local, name: GWB, usage: xmitq }}\n  - {{ type: remote, name: TO.B, remote_q_name: Q.IN, remote_q_mgr_name: GWB, xmit_q: GWB }}\n  - {{ type: local, name: Q.FLOW, max_depth: 100000 }}\n"
    )
}

/// A reload that adds server-connection channel MQGATE.SVRCONN lets the MQ
/// client that named it in vain connect: until then QMA refuses it with
/// 2540 MQRC_UNKNOWN_CHANNEL_NAME (IBM MQ "API reason codes": no channel
/// of that name; docs/mq-client-protocol.md "Handshake") and the messages
/// wait on QMA's transmission queue; after it they all reach GWB, once.
#[test]
fn sighup_adds_a_server_connection_channel() {
    let port = common::nats::free_port();
    let dir_a = tempfile::tempdir().unwrap();
    let a = Gateway::start(
        dir_a.path(),
        &serving_side(port, "[{ name: OTHER.SVRCONN }]"),
    );
    for i in 0..3 {
        let (st, v) = a.put("TO.B", "persistent=true", format!("m{i}").as_bytes());
        assert_eq!(st, 201, "{v}");
    }
    let dir_b = tempfile::tempdir().unwrap();
    let b = Gateway::start(dir_b.path(), &pulling_side(&mq_client_channel(port, 200)));
    let log = wait_log(&b, "mq-client channel retrying", 1);
    assert!(log.contains("reason=2540"), "{log}");
    assert_eq!(a.depth("GWB"), 3);

    let flow = Flow::start(&a.base, "Q.FLOW");
    std::fs::write(
        a.config_path(),
        serving_side(port, "[{ name: OTHER.SVRCONN }, { name: MQGATE.SVRCONN }]"),
    )
    .unwrap();
    a.hangup();
    let line = reloaded(&a, 1);
    assert!(line.contains("; svrconn reloaded;"), "{line}");
    assert!(line.contains("needs a restart none"), "{line}");
    wait_depth(&b, "Q.IN", 3);
    wait_depth(&a, "GWB", 0);
    assert_eq!(drain(&b, "Q.IN"), bodies(0, 3));
    check_flow(&a, "Q.FLOW", flow);
}

//! Stopping `mqgate run` with SIGTERM while everything is busy
//! (docs/architecture.md "Rules every part keeps": a confirmed batch survives
//! kill -9, and a batch is never applied twice after a reconnect; docs/config.md
//! "Stopping"): a receiver channel streaming
//! persistent messages from `mqgate send`, a sender channel delivering to
//! another gateway, HTTP puts, device pulls waiting and an RPC get waiting.
//! The gateway exits 0 within the drain bound; after a restart every
//! confirmed message is there exactly once, in order, and the senders finish.
//! HTTP statuses and MQRC values come from docs/http-api.md and
//! IBM MQ "API reason codes" (2161 MQRC_Q_MGR_QUIESCING).

mod common;

use common::{BIN, Gateway, data};
use serde_json::{Value, json};
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

const IDL: &str = concat!(env!("CARGO_MANIFEST_DIR"), "/fixtures/rpc/demo.idl");
/// Messages streamed by `mqgate send` to the receiver channel.
const STREAMED: usize = 3000;
/// The drain bound given to `mqgate run --drain-ms`.
const DRAIN: Duration = Duration::from_secs(5);

/// The receiving gateway B: its own INBOX, fed by A's sender channel.
const CONFIG_B: &str = "queue_manager:
  name: GWB
queues:
  - type: local
    name: INBOX
channels:
  - type: receiver
    name: A.TO.B
";

/// The gateway under test, A: a receiver channel `TO.MQGATE` (messages for
/// device queue managers `DEV*`), a sender channel to B for puts addressed
/// to queue manager GWB, and the RPC bridge of fixtures/rpc.
fn config_a(b_listen: &str) -> String {
    format!(
        "queue_manager:
  name: GWA
  default_xmit_queue: TO.GWB
queues:
  - type: local
    name: TO.GWB
    usage: xmitq
  - type: local
    name: RPC.REQUEST
  - type: local
    name: RPC.REPLY
  - type: local
    name: APP.QUEUE
channels:
  - type: receiver
    name: TO.MQGATE
    batch_size: 5
  - type: sender
    name: A.TO.B
    xmit_queue: TO.GWB
    connect: {b_listen}
    batch_size: 5
    heartbeat_ms: 200
    reconnect:
      first_ms: 20
      max_ms: 100
rpc:
  idl_files:
    - {IDL}
  output_queue: RPC.REQUEST
  input_queue: RPC.REPLY
"
    )
}

/// An HTTP call that may fail: `None` when no answer came (refused, reset).
/// `body` is (Content-Type, bytes).
fn try_call(method: &str, url: &str, body: Option<(&str, &[u8])>) -> Option<(u16, Value)> {
    let req = ureq::request(method, url).timeout(Duration::from_secs(60));
    let res = match body {
        Some((ctype, b)) => req.set("Content-Type", ctype).send_bytes(b),
        None => req.call(),
    };
    let r = match res {
        Ok(r) => r,
        Err(ureq::Error::Status(_, r)) => r,
        Err(ureq::Error::Transport(_)) => return None,
    };
    let status = r.status();
    Some((status, r.into_json().unwrap_or(Value::Null)))
}

/// CURDEPTH of queue `q` of `g`; 0 while it does not exist yet (a device
/// queue is created by its first message).
fn depth(g: &Gateway, q: &str) -> usize {
    let (_, v) = g.call("GET", "/v1/queues", None);
    v.as_array()
        .and_then(|qs| qs.iter().find(|e| e["name"] == q))
        .and_then(|e| e["depth"].as_u64())
        .map_or(0, |d| d as usize)
}

/// Pulls (get + ack) every message of queue `q` of `g`, in order.
fn drain_queue(g: &Gateway, q: &str) -> Vec<Vec<u8>> {
    let mut out = Vec::new();
    loop {
        let (st, v) = g.next(q, "");
        if st != 200 {
            assert_eq!(st, 404, "{v}");
            return out;
        }
        let (st, a) = g.ack(q, &v["lease"]);
        assert_eq!(st, 200, "{a}");
        out.push(data(&v));
    }
}

#[test]
fn sigterm_with_everything_in_flight_drains_loses_nothing_and_applies_nothing_twice() {
    let dir_b = tempfile::tempdir().unwrap();
    let b = Gateway::start(dir_b.path(), CONFIG_B);
    let dir_a = tempfile::tempdir().unwrap();
    let drain_ms = DRAIN.as_millis().to_string();
    let mut a = Gateway::start_with(
        dir_a.path(),
        &config_a(&b.listen_addr()),
        &["--drain-ms", &drain_ms],
    );

    // 1. A receiver channel: `mqgate send` streams persistent messages for
    //    device queue DEV0001/INBOX, reconnecting for up to 2 minutes.
    let files_dir = dir_a.path().join("msgs");
    std::fs::create_dir_all(&files_dir).unwrap();
    let files: Vec<_> = (0..STREAMED)
        .map(|i| {
            let p = files_dir.join(format!("{i:05}"));
            std::fs::write(&p, format!("s{i:05}")).unwrap();
            p
        })
        .collect();
    let sender = Command::new(BIN)
        .args(["send", "--to", &a.listen_addr(), "--channel", "TO.MQGATE"])
        .args(["--rqmname", "DEV0001", "--rname", "INBOX", "--persistent"])
        .args(["--batch", "5", "--retry-ms", "120000"])
        .args(&files)
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();

    // 2. HTTP puts for queue manager GWB: they go to the transmission queue
    //    TO.GWB, which A's sender channel delivers to B. The putter stops at
    //    the first put that is not confirmed (201).
    let base = a.base.clone();
    let put_count = std::sync::Arc::new(std::sync::atomic::AtomicUsize::new(0));
    let puts = std::sync::Arc::clone(&put_count);
    let putter = std::thread::spawn(move || {
        let mut confirmed = Vec::new();
        for i in 0.. {
            let body = format!("p{i:05}");
            let url = format!("{base}/v1/queues/INBOX/messages?q_mgr=GWB&persistent=true");
            let raw = ("application/octet-stream", body.as_bytes());
            match try_call("POST", &url, Some(raw)) {
                Some((201, _)) => {
                    confirmed.push(body.into_bytes());
                    puts.fetch_add(1, std::sync::atomic::Ordering::SeqCst);
                }
                other => return (confirmed, other),
            }
        }
        unreachable!()
    });

    // 3. Device pulls waiting for messages that never come.
    let pulls: Vec<_> = (0..2)
        .map(|k| {
            let url = format!(
                "{}/v1/devices/DEV9{k}/queues/WAITING/messages/next?wait_ms=30000",
                a.base
            );
            std::thread::spawn(move || try_call("GET", &url, None))
        })
        .collect();

    // 4. An RPC get (the EntireX WebSphere MQ RPC Server documentation RECEIVE) waiting 30 s on an empty queue.
    let rpc_url = format!("{}/v1/rpc/DEMO/RECEIVE", a.base);
    let rpc = std::thread::spawn(move || {
        let params = json!({"MQ_QUEUE_NAME": "APP.QUEUE", "MQ_WAIT_INTERVAL": 30000});
        let params = params.to_string();
        try_call(
            "POST",
            &rpc_url,
            Some(("application/json", params.as_bytes())),
        )
    });

    // SIGTERM once the stream is well under way (and far from done) and the
    // putter has had some puts confirmed: readiness by counts, not by time.
    let deadline = Instant::now() + Duration::from_secs(60);
    loop {
        let streamed = depth(&a, "DEV0001/INBOX");
        if streamed >= 300 && put_count.load(std::sync::atomic::Ordering::SeqCst) >= 10 {
            assert!(streamed < STREAMED, "the stream ended before SIGTERM");
            break;
        }
        assert!(Instant::now() < deadline, "the stream did not start");
        std::thread::sleep(Duration::from_millis(20));
    }
    let t = Instant::now();
    let status = a.terminate();
    let took = t.elapsed();
    assert!(status.success(), "{status:?}");
    assert!(
        took < DRAIN,
        "SIGTERM took {took:?}, more than the drain bound"
    );
    let log = std::fs::read_to_string(a.log_path()).unwrap();
    assert!(
        log.contains("stop requested; finishing requests in flight"),
        "{log}"
    );
    assert!(log.contains("queue manager stopped"), "{log}");
    // Everything finished in time: nothing had to be cut off.
    assert!(!log.contains("drain bound reached"), "{log}");

    // The waiting calls were answered 503 / 2161 when the queue manager
    // quiesced, not cut off.
    for p in pulls {
        let (st, v) = p.join().unwrap().expect("the device pull got no answer");
        assert_eq!((st, v["mqrc"].as_i64()), (503, Some(2161)), "{v}");
    }
    let (st, v) = rpc.join().unwrap().expect("the RPC call got no answer");
    assert_eq!((st, v["mqrc"].as_i64()), (503, Some(2161)), "{v}");
    let (confirmed, last) = putter.join().unwrap();
    assert!(
        confirmed.len() >= 10,
        "only {} puts before SIGTERM, then {last:?}",
        confirmed.len()
    );
    // The put that ended the loop was refused (503 / 2161) or found the
    // listener closed; in neither case was it stored.
    if let Some((st, v)) = &last {
        assert_eq!((*st, v["mqrc"].as_i64()), (503, Some(2161)), "{v}");
    }

    // Restart A on the same data directory and ports: the stream resumes
    // (resynchronised, docs/channel-protocol.md) and the sender channel
    // delivers the rest of TO.GWB.
    a.restart();
    let out = sender.wait_with_output().unwrap();
    let summary = String::from_utf8_lossy(&out.stdout).into_owned();
    assert!(
        out.status.success(),
        "{}{summary}",
        String::from_utf8_lossy(&out.stderr)
    );
    assert!(
        summary.starts_with(&format!(
            "sent {STREAMED} messages on channel TO.MQGATE: {STREAMED} persistent in "
        )),
        "{summary}"
    );
    let reconnects: u64 = summary
        .trim_end()
        .strip_suffix(" reconnects")
        .and_then(|s| s.rsplit(' ').next())
        .and_then(|n| n.parse().ok())
        .unwrap_or(0);
    assert!(
        reconnects > 0,
        "SIGTERM did not interrupt the stream: {summary}"
    );

    // Receiver side: every streamed message exactly once, in order.
    assert_eq!(depth(&a, "DEV0001/INBOX"), STREAMED);
    let mut cursor = String::new();
    for i in 0..STREAMED {
        let (st, m) = a.next("DEV0001%2FINBOX", &format!("browse=true{cursor}"));
        assert_eq!(st, 200, "{m}");
        assert_eq!(data(&m), format!("s{i:05}").into_bytes(), "message {i}");
        cursor = format!("&cursor={}", m["cursor"].as_str().unwrap());
    }

    // Sender side: every confirmed put reaches B exactly once, in order.
    let wait = Instant::now() + Duration::from_secs(60);
    while depth(&a, "TO.GWB") > 0 {
        assert!(Instant::now() < wait, "TO.GWB does not empty");
        std::thread::sleep(Duration::from_millis(50));
    }
    // Late duplicates would show up here.
    std::thread::sleep(Duration::from_millis(300));
    let got = drain_queue(&b, "INBOX");
    assert_eq!(got.len(), confirmed.len(), "exactly once");
    assert_eq!(got, confirmed, "in order");
}

//! `GET /metrics`, `/healthz` and `/readyz` of the built binary
//! (docs/operations.md): puts, gets and a channel batch through the real
//! gateway, then the metrics parsed by the Prometheus Python client's own
//! parser of the text format (`prometheus_client.parser`, PyPI
//! `prometheus-client`) and checked against what the test did.

mod common;

use common::{BIN, Gateway, xmit};
use serde_json::Value;
use std::collections::BTreeMap;
use std::process::{Command, Stdio};
use std::time::{SystemTime, UNIX_EPOCH};

/// A missing prerequisite: a failure when `CI` is set (.ci/run installs
/// every tool), otherwise a skip that says what is missing.
fn missing(what: &str) -> bool {
    assert!(
        std::env::var_os("CI").is_none(),
        "{what}, and CI is set: .ci/run installs every tool"
    );
    println!("SKIP: {what}");
    true
}

fn have_prometheus_client() -> bool {
    let found = Command::new("python3")
        .args(["-c", "import prometheus_client.parser"])
        .output()
        .is_ok_and(|o| o.status.success());
    found || !missing("the Python package prometheus-client is not installed")
}

/// Parses Prometheus text with `prometheus_client.parser` (which raises on
/// any line the format does not allow) and prints every sample as JSON:
/// `[family, type, sample name, labels, value]`.
const PARSE: &str = r#"
import json, math, sys
from prometheus_client.parser import text_string_to_metric_families
out = []
for f in text_string_to_metric_families(sys.stdin.read()):
    for s in f.samples:
        v = s.value
        out.append([f.name, f.type, s.name, s.labels, "+Inf" if math.isinf(v) else v])
print(json.dumps(out))
"#;

/// One parsed sample.
#[derive(Debug, Clone)]
struct Sample {
    family: String,
    kind: String,
    labels: BTreeMap<String, String>,
    value: f64,
}

/// The samples of `text`, by sample name, as the Python parser read them.
fn parse(text: &str) -> BTreeMap<String, Vec<Sample>> {
    let mut child = Command::new("python3")
        .args(["-c", PARSE])
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    common::feed_stdin(child.stdin.take(), text.as_bytes());
    let out = child.wait_with_output().unwrap();
    assert!(
        out.status.success(),
        "prometheus_client.parser refused the metrics: {}\n{text}",
        String::from_utf8_lossy(&out.stderr)
    );
    let rows: Vec<Value> = serde_json::from_slice(&out.stdout).unwrap();
    let mut by_name: BTreeMap<String, Vec<Sample>> = BTreeMap::new();
    for r in rows {
        let labels = r[3]
            .as_object()
            .unwrap()
            .iter()
            .map(|(k, v)| (k.clone(), v.as_str().unwrap().to_string()))
            .collect();
        let value = match &r[4] {
            Value::String(s) if s == "+Inf" => f64::INFINITY,
            v => v.as_f64().unwrap(),
        };
        by_name
            .entry(r[2].as_str().unwrap().to_string())
            .or_default()
            .push(Sample {
                family: r[0].as_str().unwrap().to_string(),
                kind: r[1].as_str().unwrap().to_string(),
                labels,
                value,
            });
    }
    by_name
}

/// The value of sample `name` whose labels include every pair of `want`.
fn value(m: &BTreeMap<String, Vec<Sample>>, name: &str, want: &[(&str, &str)]) -> f64 {
    find(m, name, want).unwrap_or_else(|| panic!("no {name} with {want:?}: {:?}", m.get(name)))
}

fn find(m: &BTreeMap<String, Vec<Sample>>, name: &str, want: &[(&str, &str)]) -> Option<f64> {
    m.get(name)?
        .iter()
        .find(|s| {
            want.iter()
                .all(|(k, v)| s.labels.get(*k).map(String::as_str) == Some(*v))
        })
        .map(|s| s.value)
}

fn kind(m: &BTreeMap<String, Vec<Sample>>, name: &str) -> String {
    m[name][0].kind.clone()
}

fn fetch_metrics(g: &Gateway) -> String {
    let r = ureq::get(&format!("{}/metrics", g.base)).call().unwrap();
    // Prometheus "Exposition formats": the text format's content type.
    assert_eq!(
        r.header("Content-Type"),
        Some("text/plain; version=0.0.4; charset=utf-8")
    );
    r.into_string().unwrap()
}

const CONFIG: &str = "
queue_manager:
  name: MQGATE
queues:
  - type: local
    name: APP.IN
    default_persistence: persistent
channels:
  - type: receiver
    name: PLAIN.CHL
";

#[test]
fn metrics_match_what_the_gateway_did() {
    if !have_prometheus_client() {
        return;
    }
    let started = SystemTime::now()
        .duration_since(UNIX_EPOCH)
        .unwrap()
        .as_secs_f64();
    let dir = tempfile::tempdir().unwrap();
    let g = Gateway::start(dir.path(), CONFIG);

    // Three puts over HTTP (persistent: APP.IN's DEFPSIST), one get.
    for body in [b"one".as_slice(), b"two", b"three"] {
        let (st, v) = g.put("APP.IN", "", body);
        assert_eq!(st, 201, "{v}");
    }
    let (st, v) = g.get_ack("APP.IN", "");
    assert_eq!(st, 200, "{v}");
    assert_eq!(common::data(&v), b"one");

    // One channel batch of two persistent transmission messages: one for
    // APP.IN, one for device DEV0001 (the default device queue managers
    // DEV*, docs/config.md `devices`), whose queue is created on first use.
    let msgs = [
        xmit("APP.IN", "MQGATE", true, "MQSTR", b"by channel"),
        xmit("INBOX", "DEV0001", true, "MQSTR", b"to the device"),
    ];
    let files: Vec<_> = msgs
        .iter()
        .enumerate()
        .map(|(i, m)| {
            let p = dir.path().join(format!("{i}.xmit"));
            std::fs::write(&p, m).unwrap();
            p
        })
        .collect();
    let out = Command::new(BIN)
        .args(["send", "--to", &g.listen_addr(), "--channel", "PLAIN.CHL"])
        .args(["--batch", "2"])
        .args(&files)
        .output()
        .unwrap();
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );

    let text = fetch_metrics(&g);
    let m = parse(&text);

    // Queues: what the test did to APP.IN. Puts: 3 over HTTP + 1 by the
    // channel; gets: 1; CURDEPTH 3 (IBM MQ "DISPLAY QSTATUS": CURDEPTH).
    let app = [("queue", "APP.IN"), ("type", "local")];
    assert_eq!(value(&m, "mqgate_queue_depth", &app), 3.0);
    assert_eq!(value(&m, "mqgate_queue_puts_total", &app), 4.0);
    assert_eq!(value(&m, "mqgate_queue_gets_total", &app), 1.0);
    assert_eq!(kind(&m, "mqgate_queue_puts_total"), "counter");
    assert_eq!(kind(&m, "mqgate_queue_depth"), "gauge");
    // The oldest message ("two") was put during this test.
    let age = value(&m, "mqgate_queue_oldest_message_age_seconds", &app);
    assert!((0.0..120.0).contains(&age), "{age}");
    // The dead-letter queue exists and is empty: no age series for it.
    let dlq = [("queue", "SYSTEM.DEAD.LETTER.QUEUE")];
    assert_eq!(value(&m, "mqgate_queue_depth", &dlq), 0.0);
    assert_eq!(
        find(&m, "mqgate_queue_oldest_message_age_seconds", &dlq),
        None
    );

    // The device queue has no series of its own; the device group counts it.
    assert!(
        !text.contains("DEV0001"),
        "a device queue has a series of its own:\n{text}"
    );
    let device = [("group", "device")];
    assert_eq!(value(&m, "mqgate_queue_group_queues", &device), 1.0);
    assert_eq!(value(&m, "mqgate_queue_group_depth", &device), 1.0);
    assert_eq!(value(&m, "mqgate_queue_group_puts_total", &device), 1.0);
    assert_eq!(value(&m, "mqgate_queue_group_gets_total", &device), 0.0);
    let dynamic = [("group", "dynamic")];
    assert_eq!(value(&m, "mqgate_queue_group_queues", &dynamic), 0.0);

    // The channel: 2 messages in 1 batch, their bytes as sent (the
    // transmission messages the test wrote), no failure, inactive again
    // once `mqgate send` closed it.
    let chl = [("channel", "PLAIN.CHL"), ("type", "receiver")];
    assert_eq!(value(&m, "mqgate_channel_messages_total", &chl), 2.0);
    assert_eq!(value(&m, "mqgate_channel_batches_total", &chl), 1.0);
    let sent: usize = msgs.iter().map(Vec::len).sum();
    assert_eq!(value(&m, "mqgate_channel_bytes_total", &chl), sent as f64);
    assert_eq!(value(&m, "mqgate_channel_last_error_reason", &chl), 0.0);
    let states: f64 = m["mqgate_channel_state"]
        .iter()
        .filter(|s| s.labels["channel"] == "PLAIN.CHL")
        .map(|s| s.value)
        .sum();
    assert_eq!(states, 1.0, "exactly one state is 1");

    // Listeners: `mqgate send` made the channel listener's one connection;
    // every HTTP call of the test (harness status check, 3 puts, a get and
    // its ack, this fetch) came over HTTP.
    let channel = [("listener", "channel")];
    assert_eq!(
        value(&m, "mqgate_listener_connections_accepted_total", &channel),
        1.0
    );
    assert!(
        value(
            &m,
            "mqgate_listener_connections_accepted_total",
            &[("listener", "http")]
        ) >= 1.0
    );
    assert!(value(&m, "mqgate_listener_connections", &[("listener", "http")]) >= 1.0);
    assert_eq!(kind(&m, "mqgate_listener_connections"), "gauge");

    // Store commits: a histogram whose +Inf bucket is its count, at least
    // one commit per persistent put outside a unit of work (3) and the
    // channel's batch (1).
    let count = value(&m, "mqgate_store_commit_seconds_count", &[]);
    assert!(count >= 4.0, "{count}");
    assert_eq!(
        value(&m, "mqgate_store_commit_seconds_bucket", &[("le", "+Inf")]),
        count
    );
    assert_eq!(kind(&m, "mqgate_store_commit_seconds_count"), "histogram");
    let buckets: Vec<f64> = m["mqgate_store_commit_seconds_bucket"]
        .iter()
        .map(|s| s.value)
        .collect();
    assert!(buckets.windows(2).all(|w| w[0] <= w[1]), "{buckets:?}");

    // Exits: none configured, none called.
    assert_eq!(
        value(&m, "mqgate_exit_calls_total", &[("point", "before_put")]),
        0.0
    );
    assert_eq!(
        value(&m, "mqgate_exit_failures_total", &[("point", "receive")]),
        0.0
    );

    // Process and build.
    let start = value(&m, "process_start_time_seconds", &[]);
    assert!(
        start >= started - 5.0 && start <= started + 60.0,
        "{start} vs {started}"
    );
    assert!(value(&m, "process_resident_memory_bytes", &[]) > 0.0);
    assert!(value(&m, "process_open_fds", &[]) >= 3.0);
    assert_eq!(
        value(
            &m,
            "mqgate_build_info",
            &[("version", env!("CARGO_PKG_VERSION"))]
        ),
        1.0
    );
    // Every family is typed (no untyped families).
    for (name, samples) in &m {
        assert_ne!(samples[0].kind, "unknown", "{name} ({})", samples[0].family);
    }
}

#[test]
fn healthz_and_readyz_after_start() {
    let dir = tempfile::tempdir().unwrap();
    let g = Gateway::start(dir.path(), CONFIG);
    let (st, v) = g.call("GET", "/healthz", None);
    assert_eq!((st, v["status"].as_str()), (200, Some("alive")), "{v}");
    assert_eq!(v["version"], env!("CARGO_PKG_VERSION"));
    let (st, v) = g.call("GET", "/readyz", None);
    assert_eq!(st, 200, "{v}");
    assert_eq!(v["status"], "ready");
    assert_eq!(v["not_ready"], serde_json::json!([]));
    assert_eq!(v["store"], "ok");
    assert_eq!(v["stopping"], false);
    // The three listeners the harness binds, each serving on its port.
    let listeners: Vec<(String, String, bool)> = v["listeners"]
        .as_array()
        .unwrap()
        .iter()
        .map(|l| {
            (
                l["listener"].as_str().unwrap().to_string(),
                l["address"].as_str().unwrap().to_string(),
                l["serving"].as_bool().unwrap(),
            )
        })
        .collect();
    assert_eq!(
        listeners,
        vec![
            (
                "http".to_string(),
                g.base.trim_start_matches("http://").to_string(),
                true
            ),
            ("channel".to_string(), g.listen_addr(), true),
            (
                "mqtt".to_string(),
                format!("127.0.0.1:{}", g.mqtt_port),
                true
            ),
        ]
    );
}

//! The gateway on the NATS JetStream store (`storage: type: nats`,
//! docs/cluster.md): persistent messages in the stream survive a kill -9 of
//! the gateway, a second gateway on the same stream prefix and an
//! unreachable server are refused at start with their reason.

mod common;

use common::nats::{Server, binary, free_port};
use common::{BIN, Gateway, data};
use std::process::Command;

const QUEUES: &str = "
queue_manager:
  name: QMJS
queues:
  - type: local
    name: APP.IN
";

#[test]
fn persistent_messages_live_in_the_stream_across_a_kill_9() {
    let Some(program) = binary() else { return };
    let server = Server::start(&program);
    let dir = tempfile::tempdir().unwrap();
    let config = format!("{QUEUES}{}", server.storage("GWA"));
    let mut g = Gateway::start(dir.path(), &config);
    assert_eq!(g.put("APP.IN", "persistent=true", b"first").0, 201);
    assert_eq!(
        g.put("APP.IN", "persistent=false", b"not persistent").0,
        201
    );
    assert_eq!(g.put("APP.IN", "persistent=true", b"second").0, 201);
    g.kill9_and_restart();
    // Persistent messages in put order; the non-persistent one is gone
    // (docs/config.md "storage": non-persistent messages live in memory).
    assert_eq!(g.depth("APP.IN"), 2);
    let (st, m) = g.get_ack("APP.IN", "");
    assert_eq!((st, data(&m)), (200, b"first".to_vec()));
    let (st, m) = g.get_ack("APP.IN", "");
    assert_eq!((st, data(&m)), (200, b"second".to_vec()));
    // The data directory has no embedded store: the messages were in the
    // stream.
    assert!(!dir.path().join("data/messages.redb").exists());
    let status = g.call("GET", "/v1/status", None).1;
    assert_eq!(status["store"]["state"], "ok", "{status}");
}

#[test]
fn a_second_gateway_on_the_same_stream_prefix_is_refused() {
    let Some(program) = binary() else { return };
    let server = Server::start(&program);
    let dir = tempfile::tempdir().unwrap();
    let config = format!("{QUEUES}{}", server.storage("GWB"));
    let _first = Gateway::start(dir.path(), &config);
    let other = tempfile::tempdir().unwrap();
    let path = other.path().join("gateway.yaml");
    std::fs::write(&path, &config).unwrap();
    let out = Command::new(BIN)
        .args(["run", "--config", path.to_str().unwrap()])
        .args(["--data-dir", other.path().join("data").to_str().unwrap()])
        .args([
            "--http",
            "127.0.0.1:0",
            "--listen",
            "127.0.0.1:0",
            "--mqtt",
            "127.0.0.1:0",
        ])
        .output()
        .unwrap();
    let err = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(1), "{err}");
    assert!(
        err.contains("storage: stream GWB_STORE is in use by another gateway"),
        "{err}"
    );
}

#[test]
fn an_unreachable_server_is_named_and_the_start_refused() {
    let dir = tempfile::tempdir().unwrap();
    let url = format!("nats://127.0.0.1:{}", free_port());
    let config = format!(
        "{QUEUES}storage:\n  type: nats\n  servers: [\"{url}\"]\n  require_sync_always: false\n"
    );
    let path = dir.path().join("gateway.yaml");
    std::fs::write(&path, config).unwrap();
    let out = Command::new(BIN)
        .args(["run", "--config", path.to_str().unwrap()])
        .args(["--data-dir", dir.path().join("data").to_str().unwrap()])
        .args([
            "--http",
            "127.0.0.1:0",
            "--listen",
            "127.0.0.1:0",
            "--mqtt",
            "127.0.0.1:0",
        ])
        .output()
        .unwrap();
    let err = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(1), "{err}");
    assert!(
        err.contains(&format!("storage: cannot reach any NATS server of {url}")),
        "{err}"
    );
}

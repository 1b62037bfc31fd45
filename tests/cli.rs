//! The CLI against a running gateway, and `check-config` (issue 5).

mod common;

use common::{BIN, Gateway};
use std::io::Write;
use std::process::{Command, Output, Stdio};

fn mqgate(args: &[&str], stdin: Option<&[u8]>) -> Output {
    let mut child = Command::new(BIN)
        .args(args)
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    let mut input = child.stdin.take().unwrap();
    if let Some(d) = stdin {
        input.write_all(d).unwrap();
    }
    drop(input);
    child.wait_with_output().unwrap()
}

#[test]
fn put_browse_and_get_with_the_cli() {
    let dir = tempfile::tempdir().unwrap();
    let g = Gateway::start(dir.path(), "queues:\n  - type: local\n    name: CLI.Q\n");
    let gw = g.base.as_str();
    let file = dir.path().join("msg.txt");
    std::fs::write(&file, b"from a file").unwrap();
    let correl = "0A".repeat(24);
    let out = mqgate(
        &[
            "put",
            "--queue",
            "CLI.Q",
            "--gateway",
            gw,
            "--persistent",
            "--format",
            "MQSTR",
            "--ccsid",
            "819",
            "--correl-id",
            &correl,
            file.to_str().unwrap(),
        ],
        None,
    );
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let put: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!(put["correl_id"], correl);
    let out = mqgate(
        &["put", "--queue", "CLI.Q", "--gateway", gw, "-"],
        Some(b"from stdin"),
    );
    assert!(out.status.success());

    let out = mqgate(&["browse", "--queue", "CLI.Q", "--gateway", gw], None);
    let listing = String::from_utf8(out.stdout).unwrap();
    assert_eq!(listing.lines().count(), 2, "{listing}");
    assert!(listing.contains(&format!("CorrelId={correl}")));
    assert!(listing.contains("Length=11"));

    let out = mqgate(
        &["get", "--queue", "CLI.Q", "--gateway", gw, "--json"],
        None,
    );
    assert!(out.status.success());
    let v: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    // Field names as MQ names them (MQMD), ids in uppercase hex, text trimmed.
    assert_eq!(v["md"]["CorrelId"], correl);
    assert_eq!(v["md"]["Format"], "MQSTR");
    assert_eq!(v["md"]["CodedCharSetId"], 819);
    assert_eq!(v["md"]["Persistence"], 1);
    assert_eq!(v["data_base64"], "ZnJvbSBhIGZpbGU="); // base64("from a file")
    assert_eq!(v.as_object().unwrap().len(), 2);

    let out = mqgate(&["get", "--queue", "CLI.Q", "--gateway", gw], None);
    assert_eq!(out.stdout, b"from stdin");
    // Nothing left: exit status 3 after the wait (issue 5).
    let out = mqgate(
        &["get", "--queue", "CLI.Q", "--gateway", gw, "--wait", "200"],
        None,
    );
    assert_eq!(out.status.code(), Some(3));
    assert!(String::from_utf8_lossy(&out.stderr).contains("2033"));
    // Unknown queue: the MQRC on stderr, exit 1.
    let out = mqgate(
        &["put", "--queue", "NOPE", "--gateway", gw, "-"],
        Some(b"x"),
    );
    assert_eq!(out.status.code(), Some(1));
    assert!(String::from_utf8_lossy(&out.stderr).contains("2085 MQRC_UNKNOWN_OBJECT_NAME"));
}

#[test]
fn check_config_reports_line_and_column() {
    let example = concat!(env!("CARGO_MANIFEST_DIR"), "/fixtures/gateway.yaml");
    let out = mqgate(&["check-config", example], None);
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    assert!(String::from_utf8_lossy(&out.stdout).contains("OK"));

    let dir = tempfile::tempdir().unwrap();
    let bad = dir.path().join("bad.yaml");
    std::fs::write(
        &bad,
        "queues:\n  - type: alias\n    name: A\n    target: MISSING\n  - type: local\n    name: Q\n    default_priority: 12\n",
    )
    .unwrap();
    let out = mqgate(&["check-config", bad.to_str().unwrap()], None);
    assert_eq!(out.status.code(), Some(1));
    let err = String::from_utf8(out.stderr).unwrap();
    let path = bad.display().to_string();
    assert!(
        err.contains(&format!("{path}:4:13: queues[0].target")),
        "{err}"
    );
    assert!(
        err.contains(&format!("{path}:7:23: queues[1].default_priority")),
        "{err}"
    );
    assert!(err.contains("2 error(s)"), "{err}");

    std::fs::write(&bad, "http:\n  listen: [1, 2\n").unwrap();
    let out = mqgate(&["check-config", bad.to_str().unwrap()], None);
    assert_eq!(out.status.code(), Some(1));
    let err = String::from_utf8(out.stderr).unwrap();
    assert!(err.starts_with(&format!("{path}:")), "{err}");
    // `run` refuses a bad file the same way (exit 2, nothing started).
    let out = mqgate(&["run", "--config", bad.to_str().unwrap()], None);
    assert_eq!(out.status.code(), Some(2));
}

#[test]
fn json_logs_carry_queue_msg_id_and_correl_id() {
    let dir = tempfile::tempdir().unwrap();
    let mut g = Gateway::start_with(
        dir.path(),
        "queues:\n  - type: local\n    name: LOG.Q\n",
        &["--log-format", "json"],
    );
    let correl = "AB".repeat(24);
    let (st, put) = g.put("LOG.Q", &format!("correl_id={correl}"), b"logged");
    assert_eq!(st, 201);
    assert!(g.terminate().success());
    let log = std::fs::read_to_string(g.log_path()).unwrap();
    let lines: Vec<serde_json::Value> = log
        .lines()
        .map(|l| serde_json::from_str(l).unwrap_or_else(|e| panic!("not JSON: {l}: {e}")))
        .collect();
    let put_line = lines
        .iter()
        .find(|v| v["fields"]["message"] == "put")
        .unwrap_or_else(|| panic!("no put line in {log}"));
    assert_eq!(put_line["fields"]["queue"], "LOG.Q");
    assert_eq!(put_line["fields"]["msg_id"], put["msg_id"]);
    assert_eq!(put_line["fields"]["correl_id"], correl);
    assert!(
        lines
            .iter()
            .any(|v| v["fields"]["message"] == "queue manager stopped")
    );
}

/// Runs `mqgate args` with stdout a pipe whose reader is closed, as in
/// `mqgate browse ... | head -1` once `head` has exited. The reader is closed
/// right after the spawn, before stdin is written, and the commands first
/// read stdin or make an HTTP call, so nothing is written before.
fn mqgate_closed_stdout(args: &[&str], stdin: &[u8]) -> Output {
    let mut child = Command::new(BIN)
        .args(args)
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    drop(child.stdout.take());
    let mut input = child.stdin.take().unwrap();
    // The child may not read stdin at all; a failed write is fine here.
    let _ = input.write_all(stdin);
    drop(input);
    child.wait_with_output().unwrap()
}

#[test]
fn commands_end_cleanly_when_stdout_is_closed() {
    let dir = tempfile::tempdir().unwrap();
    let g = Gateway::start(dir.path(), "queues:\n  - type: local\n    name: PIPE.Q\n");
    let gw = g.base.as_str();
    for _ in 0..3 {
        let out = mqgate(
            &["put", "--queue", "PIPE.Q", "--gateway", gw, "-"],
            Some(b"x"),
        );
        assert!(out.status.success());
    }
    // Before the fix `println!` panicked: "failed printing to stdout: Broken
    // pipe", exit 101. A reader that went away is a clean end: exit 0.
    let runs: [&[&str]; 5] = [
        &["browse", "--queue", "PIPE.Q", "--gateway", gw],
        &["browse", "--queue", "PIPE.Q", "--gateway", gw, "--json"],
        &["put", "--queue", "PIPE.Q", "--gateway", gw, "-"],
        &["get", "--queue", "PIPE.Q", "--gateway", gw, "--json"],
        &["decode", "--input", "hex", "-"],
    ];
    for args in runs {
        let out = mqgate_closed_stdout(args, b"414243");
        let err = String::from_utf8_lossy(&out.stderr);
        assert!(!err.contains("panicked"), "{args:?}: {err}");
        assert_ne!(out.status.code(), Some(101), "{args:?}: {err}");
        // decode of 3 bytes with no MQ header is not an error of the input.
        assert_eq!(out.status.code(), Some(0), "{args:?}: {err}");
    }
    let out = mqgate_closed_stdout(&["version"], b"");
    assert_eq!(out.status.code(), Some(0));
}

#[test]
fn client_commands_exit_2_when_the_gateway_is_unreachable() {
    // A port nobody listens on: bind, read the port, close.
    let port = std::net::TcpListener::bind("127.0.0.1:0")
        .unwrap()
        .local_addr()
        .unwrap()
        .port();
    let gw = format!("http://127.0.0.1:{port}");
    // Same status as `tpenqueue` (2: the gateway could not be asked); before
    // the fix put/get/browse exited 1 like an MQ error.
    let runs: [&[&str]; 4] = [
        &["put", "--queue", "Q", "--gateway", &gw, "-"],
        &["get", "--queue", "Q", "--gateway", &gw],
        &["browse", "--queue", "Q", "--gateway", &gw],
        &[
            "tpenqueue",
            "--qspace",
            "S",
            "--qname",
            "Q",
            "--gateway",
            &gw,
            "-",
        ],
    ];
    for args in runs {
        // No stdin data: get and browse exit without reading it.
        let out = mqgate(args, None);
        assert_eq!(
            out.status.code(),
            Some(2),
            "{args:?}: {}",
            String::from_utf8_lossy(&out.stderr)
        );
    }
}

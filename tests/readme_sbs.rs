//! The README's MessageQ walk-through, command by command, against the built
//! binary started on fixtures/messageq/gateway.yaml (the stock price example
//! of the BEA MessageQ 5.0 Programmer's Guide, "Broadcasting Messages": MOT
//! 5110 to many receivers; Listing 3-1's `%GNT` names `Alarm_events 0.5110
//! G` and `Operator_events 0.4810 L`).
//!
//! Expected values: the SBS statuses of `p_symbol.h` 5.0 (PSYM_SBS_SUCCESS
//! 1), the return codes of `p_return.h` V4.0-09 (PAMS__SUCCESS 1,
//! PAMS__ENQUEUED 33 for the default PDEL_MODE_NN_MEM, PAMS__NOOBJECT -166),
//! the delivered copy's addresses of "Reading Broadcast Messages" (source =
//! the MOT, original source = the publisher); reg_ids from 1 and the output
//! lines are mqgate's (docs/messageq.md).

mod common;

use common::{BIN, Gateway, feed_stdin};
use serde_json::Value;
use std::process::{Command, Stdio};

const ROOT: &str = env!("CARGO_MANIFEST_DIR");

/// `mqgate ARGS --gateway BASE` with `stdin`: (exit status, stdout).
fn mqgate(g: &Gateway, args: &[&str], stdin: &[u8]) -> (i32, String) {
    let mut child = Command::new(BIN)
        .args(args)
        .args(["--gateway", &g.base])
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    feed_stdin(child.stdin.take(), stdin);
    let out = child.wait_with_output().unwrap();
    let err = String::from_utf8_lossy(&out.stderr);
    let code = out.status.code().unwrap();
    assert!(
        code == 0 || !err.is_empty(),
        "{args:?}: exit {code} without a reason"
    );
    (code, String::from_utf8(out.stdout).unwrap())
}

#[test]
fn the_readme_walk_through_runs_as_written() {
    let dir = tempfile::tempdir().unwrap();
    // The fixture as a newcomer runs it, with the init file's path made
    // absolute (the test does not run from the repository root).
    let yaml = std::fs::read_to_string(format!("{ROOT}/fixtures/messageq/gateway.yaml"))
        .unwrap()
        .replace(
            "fixtures/messageq/group10.init",
            &format!("{ROOT}/fixtures/messageq/group10.init"),
        );
    let g = Gateway::start(dir.path(), &yaml);
    let ok = |args: &[&str], stdin: &[u8], want: &str| {
        let (code, out) = mqgate(&g, args, stdin);
        assert_eq!((code, out.as_str()), (0, want), "{args:?}");
    };
    ok(
        &["pams", "locate", "Alarm_events"],
        b"",
        "Alarm_events 10.5110 G\n",
    );
    ok(
        &["pams", "locate", "Operator_events"],
        b"",
        "Operator_events 10.4810 L\n",
    );
    // A group-scope name is not found in the bus scope.
    assert_eq!(
        mqgate(
            &g,
            &["pams", "locate", "Operator_events", "--scope", "bus"],
            b""
        )
        .0,
        1
    );
    for (q, id) in [("10.30", 1), ("10.31", 2)] {
        ok(
            &["sbs", "register", "--mot", "5110", "--queue", q, "--ack"],
            b"",
            &format!("status 1 PSYM_SBS_SUCCESS reg_id {id} number_reg 1\n"),
        );
    }
    ok(
        &[
            "sbs",
            "register",
            "--mot",
            "5110",
            "--queue",
            "10.32",
            "--ack",
            "--rule",
            "0 EQ 1 73",
        ],
        b"",
        "status 1 PSYM_SBS_SUCCESS reg_id 3 number_reg 1\n",
    );
    let put = [
        "pams",
        "put",
        "--target",
        "Stock_prices",
        "--resp-q",
        "10.2",
        "-",
    ];
    ok(
        &put,
        b"IBM 101.25",
        "1 PAMS__SUCCESS: 10 bytes put to 10.5110 (PDEL_MODE_NN_MEM: PAMS__ENQUEUED)\n",
    );
    ok(
        &put,
        b"HPQ 33.10",
        "1 PAMS__SUCCESS: 9 bytes put to 10.5110 (PDEL_MODE_NN_MEM: PAMS__ENQUEUED)\n",
    );
    let get = |q: &str| mqgate(&g, &["pams", "get", "--queue", q, "--wait", "5000"], b"");
    for q in ["10.30", "10.31"] {
        assert_eq!(get(q), (0, "IBM 101.25".into()), "{q}");
        assert_eq!(get(q), (0, "HPQ 33.10".into()), "{q}");
    }
    // Queue 32's rule: byte 0 equal to 'I' (73).
    assert_eq!(get("10.32"), (0, "IBM 101.25".into()));
    assert_eq!(
        mqgate(
            &g,
            &["pams", "get", "--queue", "10.32", "--wait", "300"],
            b""
        )
        .0,
        3,
        "HPQ does not match queue 32's rule"
    );
    ok(
        &["sbs", "status", "--mot", "5110"],
        b"",
        "mot 5110 num_reg 3 complete_rcvd 2 complete_bytes 19 seq_gaps 0\n",
    );
    // The private MOT 4810 of Operator_events.
    ok(
        &[
            "sbs", "register", "--mot", "4810", "--queue", "10.32", "--ack",
        ],
        b"",
        "status 1 PSYM_SBS_SUCCESS reg_id 4 number_reg 1\n",
    );
    ok(
        &[
            "pams",
            "put",
            "--target",
            "Operator_events",
            "--resp-q",
            "10.2",
            "-",
        ],
        b"disk full on node 7",
        "1 PAMS__SUCCESS: 19 bytes put to 10.4810 (PDEL_MODE_NN_MEM: PAMS__ENQUEUED)\n",
    );
    let (code, out) = mqgate(
        &g,
        &[
            "pams", "get", "--queue", "10.32", "--wait", "5000", "--json",
        ],
        b"",
    );
    assert_eq!(code, 0);
    let v: Value = serde_json::from_str(&out).unwrap();
    assert_eq!(
        (
            &v["target"],
            &v["source"],
            &v["original_target"],
            &v["original_source"]
        ),
        (
            &Value::from("10.32"),
            &Value::from("10.4810"),
            &Value::from("10.4810"),
            &Value::from("10.2")
        ),
        "{v}"
    );
}

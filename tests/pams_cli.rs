//! `mqgate pams` and `mqgate sbs` against a gateway acting as MessageQ group
//! 10: the stock price walk-through of docs/messageq.md "PAMS API" (MOT
//! 5110, the universal MOT of the Programmer's Guide's %GNT example
//! `Alarm_events 0.5110 G`, Listing 3-1).
//!
//! Sources of the expected values: SBS_REGISTER_RESP / SBS_DEREGISTER_RESP
//! statuses PSYM_SBS_SUCCESS 1 and PSYM_SBS_NOMATCH 1012 (DECmessageQ
//! `p_symbol.h`, docs/messageq.md "Registration ids": the first reg_id of a
//! run is 1); the SBS_STATUS_RESP_MOT counters (`p_msg.h` V4.0-08:
//! num_reg, complete_rcvd, complete_bytes, seq_gaps); PAMS__BADPRIORITY -58
//! and PAMS__NOOBJECT -166 (`p_return.h` V4.0-09); exit statuses of each
//! command's --help (src/cli/pams.rs, src/cli/sbs.rs).

#[path = "sbs_util/mod.rs"]
mod sbs_util;

use sbs_util::*;
use std::io::Write;
use std::process::{Command, Stdio};

fn group() -> Group {
    group_with("YES")
}

/// Group 10 with `ENABLE_SBS` `sbs`; FULL (10.31) takes one message.
fn group_with(sbs: &str) -> Group {
    let init = format!(
        "%PROFILE\nENABLE_SBS {sbs}\n%EOS\n%QCT\n{}{}{}%EOS\n%GNT\nStock_prices 0.5110 G\nTrader 0.30 L\n%EOS\n",
        qct_line("CTL", CTL, ".", "."),
        qct_line("TRADER", 30, ".", "."),
        qct_line("FULL", 31, ".", "1"),
    );
    Group::start(10, &init)
}

/// Runs `mqgate ARGS --gateway BASE` with `stdin`: (exit status, stdout, stderr).
fn mqgate(g: &Group, args: &[&str], stdin: &[u8]) -> (i32, String, String) {
    let mut child = Command::new(env!("CARGO_BIN_EXE_mqgate"))
        .args(args)
        .args(["--gateway", &g.base])
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    child.stdin.take().unwrap().write_all(stdin).unwrap();
    let out = child.wait_with_output().unwrap();
    (
        out.status.code().unwrap(),
        String::from_utf8_lossy(&out.stdout).into_owned(),
        String::from_utf8_lossy(&out.stderr).into_owned(),
    )
}

#[test]
fn stock_prices_walk_through() {
    let g = group();
    let (rc, out, err) = mqgate(&g, &["pams", "locate", "Stock_prices"], b"");
    assert_eq!((rc, out.as_str()), (0, "Stock_prices 10.5110 G\n"), "{err}");
    let (rc, _, err) = mqgate(&g, &["pams", "locate", "Trader", "--scope", "bus"], b"");
    assert_eq!(rc, 1, "scope L is not in the bus table");
    assert!(err.contains("-166 PAMS__NOOBJECT"), "{err}");

    let (rc, out, err) = mqgate(
        &g,
        &[
            "sbs",
            "register",
            "--mot",
            "5110",
            "--queue",
            "10.30",
            "--ack",
            "--rule",
            "0 EQ 1 73", // first byte 'I' (73)
        ],
        b"",
    );
    assert_eq!(rc, 0, "{out}{err}");
    assert_eq!(out, "status 1 PSYM_SBS_SUCCESS reg_id 1 number_reg 1\n");

    for price in ["IBM 101.25", "HPQ 020.50"] {
        let (rc, out, err) = mqgate(
            &g,
            &[
                "pams",
                "put",
                "--target",
                "Stock_prices",
                "--class",
                "1",
                "--type",
                "2",
                "--resp-q",
                "10.2",
                "-",
            ],
            price.as_bytes(),
        );
        assert_eq!(rc, 0, "{out}{err}");
        assert!(
            out.starts_with("1 PAMS__SUCCESS: 10 bytes put to 10.5110"),
            "{out}"
        );
    }
    // Only the message whose first byte is 'I' matches the rule.
    let (rc, out, err) = mqgate(
        &g,
        &["pams", "get", "--queue", "10.30", "--wait", "5000"],
        b"",
    );
    assert_eq!((rc, out.as_str()), (0, "IBM 101.25"), "{err}");
    let (rc, _, err) = mqgate(
        &g,
        &["pams", "get", "--queue", "10.30", "--wait", "300"],
        b"",
    );
    assert_eq!(rc, 3, "nothing more: {err}");

    let (rc, out, err) = mqgate(
        &g,
        &["sbs", "status", "--mot", "5110", "--resp-q", "10.2"],
        b"",
    );
    assert_eq!(rc, 0, "{err}");
    assert_eq!(
        out,
        "mot 5110 num_reg 1 complete_rcvd 2 complete_bytes 20 seq_gaps 0\n"
    );
    // Without --resp-q the answer comes on a temporary queue attached for
    // the call (docs/messageq.md "Attachments"), deleted afterwards.
    let (rc, out2, err) = mqgate(&g, &["sbs", "status", "--mot", "5110"], b"");
    assert_eq!((rc, out2.as_str()), (0, out.as_str()), "{err}");
    let (st, queues) = g.call("GET", "/v1/queues", None);
    assert_eq!(st, 200);
    assert!(
        !queues.to_string().contains("PAMS.10.1000"),
        "the temporary queue is gone: {queues}"
    );

    let (rc, out, err) = mqgate(
        &g,
        &[
            "sbs",
            "deregister",
            "--mot",
            "5110",
            "--queue",
            "10.30",
            "--reg-id",
            "7",
        ],
        b"",
    );
    assert_eq!(
        (rc, out.as_str()),
        (1, "status 1012 PSYM_SBS_NOMATCH number_reg 1\n"),
        "{err}"
    );
    let (rc, out, err) = mqgate(
        &g,
        &["sbs", "deregister", "--mot", "5110", "--queue", "10.30"],
        b"",
    );
    assert_eq!(
        (rc, out.as_str()),
        (0, "status 1 PSYM_SBS_SUCCESS number_reg 0\n"),
        "{err}"
    );
}

#[test]
fn refusals_and_usage_errors() {
    let g = group();
    let (rc, _, err) = mqgate(
        &g,
        &["pams", "put", "--target", "10.30", "--priority", "100", "-"],
        b"x",
    );
    assert_eq!(rc, 1);
    assert!(
        err.contains("-58 PAMS__BADPRIORITY: priority: 100 is not 0 to 99"),
        "{err}"
    );
    // A MOT outside 4000-6000 and a bad rule are usage errors (clap: 2).
    let (rc, _, err) = mqgate(
        &g,
        &["sbs", "register", "--mot", "3999", "--queue", "10.30"],
        b"",
    );
    assert_eq!(rc, 2, "{err}");
    let (rc, _, err) = mqgate(
        &g,
        &[
            "sbs",
            "register",
            "--mot",
            "4001",
            "--queue",
            "10.30",
            "--rule",
            "CLASS XX 4 1",
        ],
        b"",
    );
    assert_eq!(rc, 2);
    assert!(
        err.contains("rule \"CLASS XX 4 1\": OPER \"XX\" is ANY"),
        "{err}"
    );
    // Without --ack the server answers only a refusal: none comes.
    let (rc, out, err) = mqgate(
        &g,
        &[
            "sbs", "register", "--mot", "4001", "--queue", "10.30", "--wait", "500",
        ],
        b"",
    );
    assert_eq!(rc, 0, "{err}");
    assert!(out.starts_with("sent; no SBS_REGISTER_RESP"), "{out}");
    // A registration for the SBS server's own queue is refused with
    // PSYM_SBS_BADPARAM 20 (docs/messageq.md "SBS server"), answered to --resp-q.
    let (rc, out, err) = mqgate(
        &g,
        &[
            "sbs", "register", "--mot", "4001", "--queue", "10.99", "--resp-q", "10.2",
        ],
        b"",
    );
    assert_eq!(
        (rc, out.as_str()),
        (1, "status 20 PSYM_SBS_BADPARAM reg_id 0 number_reg 0\n"),
        "{err}"
    );
    // Nothing reachable: exit 2.
    let out = Command::new(env!("CARGO_BIN_EXE_mqgate"))
        .args([
            "pams",
            "get",
            "--queue",
            "10.30",
            "--gateway",
            "http://127.0.0.1:9",
        ])
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(2));
}

#[test]
fn register_and_deregister_read_their_answer_on_a_temporary_queue() {
    // Without --resp-q the answer comes on a temporary queue attached for
    // the call (docs/messageq.md "CLI"), not on --queue: a full queue, one
    // the group does not define and the SBS server's own queue 99 still get
    // the right status. PSYM_SBS_SUCCESS 1 and PSYM_SBS_BADPARAM 20 of
    // p_symbol.h 5.0; reg_id from 1 (docs/messageq.md "Registration ids").
    let g = group();
    let (st, _) = g.call(
        "POST",
        "/v1/pams/messages",
        Some(serde_json::json!({"target": "10.31", "data_base64": "eA=="})),
    );
    assert_eq!(st, 201, "FULL holds its one message");
    for (queue, id) in [("10.31", 1), ("10.77", 2)] {
        let (rc, out, err) = mqgate(
            &g,
            &[
                "sbs", "register", "--mot", "4001", "--queue", queue, "--ack",
            ],
            b"",
        );
        assert_eq!(
            (rc, out.as_str()),
            (
                0,
                format!("status 1 PSYM_SBS_SUCCESS reg_id {id} number_reg 1\n").as_str()
            ),
            "{queue}: {err}"
        );
    }
    let (rc, out, err) = mqgate(
        &g,
        &[
            "sbs", "register", "--mot", "4001", "--queue", "10.99", "--ack",
        ],
        b"",
    );
    assert_eq!(
        (rc, out.as_str()),
        (1, "status 20 PSYM_SBS_BADPARAM reg_id 0 number_reg 0\n"),
        "{err}"
    );
    let (rc, out, err) = mqgate(
        &g,
        &["sbs", "deregister", "--mot", "4001", "--queue", "10.31"],
        b"",
    );
    assert_eq!(
        (rc, out.as_str()),
        (0, "status 1 PSYM_SBS_SUCCESS number_reg 0\n"),
        "{err}"
    );
    // Every temporary queue ended with its call; FULL still holds only its
    // own message.
    let (_, queues) = g.call("GET", "/v1/queues", None);
    assert!(!queues.to_string().contains("PAMS.10.10"), "{queues}");
    assert_eq!(g.depth("FULL"), 1);
}

#[test]
fn a_request_queue_99_did_not_take_fails_at_once() {
    // ENABLE_SBS NO: no queue 99, so the request's put answers 11
    // PAMS__DISC_SUCCESS (the default UMA discarded it, p_return.h
    // V4.0-09) with 2085 MQRC_UNKNOWN_OBJECT_NAME: no answer can come, and
    // the command says so at once instead of waiting --wait.
    let g = group_with("NO");
    for args in [
        &[
            "sbs", "register", "--mot", "4001", "--queue", "10.30", "--ack",
        ][..],
        &["sbs", "deregister", "--mot", "4001", "--queue", "10.30"][..],
        &["sbs", "status", "--resp-q", "10.2"][..],
    ] {
        let started = std::time::Instant::now();
        let (rc, out, err) = mqgate(&g, &[args, &["--wait", "30000"]].concat(), b"");
        assert_eq!((rc, out.as_str()), (1, ""), "{args:?}: {err}");
        assert!(
            err.contains(": 11 PAMS__DISC_SUCCESS: 10.99 cannot take the message: "),
            "{err}"
        );
        assert!(err.contains("(2085 MQRC_UNKNOWN_OBJECT_NAME)"), "{err}");
        assert!(
            started.elapsed() < std::time::Duration::from_secs(15),
            "{args:?} waited"
        );
    }
}

#[test]
fn arguments_are_checked_before_anything_is_sent() {
    let g = group();
    // Addresses, the locate scope and rules are usage errors (clap, exit
    // 2), refused by the CLI itself with clap's "invalid value".
    for args in [
        &["pams", "get", "--queue", "ten.30"][..],
        &["pams", "put", "--target", "10.30", "--resp-q", "10", "-"][..],
        &["pams", "locate", "Trader", "--scope", "world"][..],
        &[
            "sbs",
            "register",
            "--mot",
            "4001",
            "--queue",
            "10.30",
            "--rule",
            "CLASS EQ 1 300",
        ][..],
        &[
            "sbs",
            "register",
            "--mot",
            "4001",
            "--queue",
            "10.30",
            "--rule",
            "0 EQ 2 -32769",
        ][..],
        &[
            "sbs",
            "register",
            "--mot",
            "4001",
            "--queue",
            "10.30",
            "--rule",
            "-4 EQ 4 1",
        ][..],
    ] {
        let (rc, _, err) = mqgate(&g, args, b"");
        assert_eq!(rc, 2, "{args:?}: {err}");
        assert!(err.starts_with("error: invalid value"), "{args:?}: {err}");
    }
    // The operand must fit LENGTH bytes, signed or not (docs/messageq.md
    // "Comparisons"); the error names the rule.
    let (_, _, err) = mqgate(
        &g,
        &[
            "sbs",
            "register",
            "--mot",
            "4001",
            "--queue",
            "10.30",
            "--rule",
            "CLASS EQ 1 300",
        ],
        b"",
    );
    assert!(
        err.contains("rule \"CLASS EQ 1 300\": OPERAND 300 does not fit LENGTH 1 (-128 to 255)"),
        "{err}"
    );
    // Negative values where they are legal, without `=`: a reg_id the
    // server does not know (PSYM_SBS_NOMATCH 1012), a rule whose selector
    // is PSEL_SOURCE -1 (Table 3-2), operands at the edges of LENGTH 1 and 2.
    let (rc, out, err) = mqgate(
        &g,
        &[
            "sbs",
            "deregister",
            "--mot",
            "4001",
            "--queue",
            "10.30",
            "--reg-id",
            "-1",
        ],
        b"",
    );
    assert_eq!(
        (rc, out.as_str()),
        (1, "status 1012 PSYM_SBS_NOMATCH number_reg 0\n"),
        "{err}"
    );
    let (rc, out, err) = mqgate(
        &g,
        &[
            "sbs",
            "register",
            "--mot",
            "4001",
            "--queue",
            "10.30",
            "--ack",
            "--rule",
            "-1 EQ 4 5",
            "--rule",
            "0 GTRE 1 -128",
            "--rule",
            "0 LTE 2 65535",
        ],
        b"",
    );
    assert_eq!(
        (rc, out.as_str()),
        (0, "status 1 PSYM_SBS_SUCCESS reg_id 1 number_reg 1\n"),
        "{err}"
    );
    // Each --help lists the exit statuses, the usage error included.
    for cmd in [
        &["pams", "put"][..],
        &["pams", "get"][..],
        &["pams", "locate"][..],
        &["sbs", "register"][..],
        &["sbs", "deregister"][..],
        &["sbs", "status"][..],
    ] {
        let (rc, out, _) = mqgate(&g, &[cmd, &["--help"]].concat(), b"");
        assert_eq!(rc, 0);
        assert!(out.contains("Exit status: 0 "), "{cmd:?}: {out}");
        assert!(out.contains("2 gateway unreachable"), "{cmd:?}: {out}");
        assert!(out.contains("a usage error"), "{cmd:?}: {out}");
    }
    let (_, out, _) = mqgate(&g, &["pams", "get", "--help"], b"");
    assert!(out.contains("3 no message within --wait"), "{out}");
    let (_, out, _) = mqgate(&g, &["sbs", "status", "--help"], b"");
    assert!(out.contains("3 no response within --wait"), "{out}");
}

//! `mqgate rv check-subject` and `mqgate rv match`, run as built.
//!
//! Expected verdicts come from TIBCO Rendezvous Concepts: "Subject Name
//! Syntax" (examples, limits), "Using Wildcards to Receive Related Subjects"
//! (the wildcard table and invalid wildcards), "Distinguished Subject Names
//! with Special Meaning" (`_RV.` and the other reserved prefixes); the refusal
//! texts and exit statuses are mqgate's (docs/rendezvous.md "Command line",
//! each command's --help).
//!
//! `mqgate rv publish|listen|request` run against a gateway started from
//! the built binary (tests/common): the line form, exit statuses and
//! refusal texts of docs/rendezvous.md "Command line" and "Errors".

mod common;

use std::io::{BufRead, BufReader, Read};
use std::process::{Child, Command, Stdio};
use std::sync::mpsc;
use std::time::Duration;

/// Runs `mqgate ARGS`: (exit status, stdout, stderr).
fn mqgate(args: &[&str]) -> (i32, String, String) {
    let out = Command::new(env!("CARGO_BIN_EXE_mqgate"))
        .args(args)
        .output()
        .unwrap();
    (
        out.status.code().unwrap(),
        String::from_utf8_lossy(&out.stdout).into_owned(),
        String::from_utf8_lossy(&out.stderr).into_owned(),
    )
}

fn check(subject: &str, extra: &[&str]) -> (i32, String, String) {
    let mut args = vec!["rv", "check-subject", subject];
    args.extend_from_slice(extra);
    mqgate(&args)
}

#[test]
fn valid_subjects_exit_0_with_a_summary() {
    for (subject, extra, out) in [
        (
            "NEWS.LOCAL.POLITICS.CITY_COUNCIL",
            &[][..],
            "valid listen subject: 4 elements\n",
        ),
        (
            "finance",
            &["--mode", "send"][..],
            "valid send subject: 1 element\n",
        ),
        (
            "_RV.*.SYSTEM.>",
            &[][..],
            "valid listen subject: 4 elements, wildcards, advisory (advisories)\n",
        ),
        (
            "_INBOX.C0A80001.1",
            &["--mode", "cm"][..],
            "valid cm subject: 3 elements, inbox (point-to-point inboxes)\n",
        ),
        (
            "ORDERS.*",
            &["--mode", "send", "--allow-wildcards"][..],
            "valid send subject: 2 elements, wildcards\n",
        ),
    ] {
        let (rc, stdout, stderr) = check(subject, extra);
        assert_eq!(
            (rc, stdout.as_str(), stderr.as_str()),
            (0, out, ""),
            "{subject}"
        );
    }
}

#[test]
fn invalid_subjects_exit_2_with_the_rule_and_the_element() {
    for (subject, extra, says) in [
        ("A.B..C", &[][..], "element 3 is empty"),
        ("WRONG.", &[][..], "element 2 is empty"),
        ("", &[][..], "the subject is empty"),
        (
            "Foo.>.baz",
            &[][..],
            "element 2 is '>': '>' must be the last element",
        ),
        (
            "abc*xyz",
            &[][..],
            "element 1 has '*' among other characters: '*' must be a whole element",
        ),
        (
            "_RV.INFO.X",
            &["--mode", "send"][..],
            "element 1: '_RV.' is reserved for advisories; programs must not send to it",
        ),
        (
            "_RVFT.X",
            &["--mode", "cm"][..],
            "element 1: '_RVFT.' is reserved for fault tolerance; programs must not send to it",
        ),
        (
            "ORDERS.*",
            &["--mode", "send"][..],
            "element 2 is the wildcard '*': sending to a wildcard subject is refused unless wildcard sends are allowed",
        ),
        (
            "ORDERS.>",
            &["--mode", "cm", "--allow-wildcards"][..],
            "element 2 is the wildcard '>': certified delivery and distributed queues cannot send to wildcard subjects",
        ),
        (
            "_INBOX.>",
            &[][..],
            "element 2 is the wildcard '>': '_INBOX.' subjects cannot be combined with wildcards",
        ),
    ] {
        let (rc, stdout, stderr) = check(subject, extra);
        assert_eq!((rc, stdout.as_str()), (2, ""), "{subject}: {stderr}");
        assert!(
            stderr.starts_with(&format!(
                "mqgate rv check-subject: invalid subject {subject:?}: {says}"
            )),
            "{stderr}"
        );
        assert!(stderr.contains("TIBRV_INVALID_SUBJECT 20"), "{stderr}");
    }
    // The source of the rule is named: the 196-byte receive limit of
    // "Subject Name Syntax".
    let long = format!("{}.{}", "x".repeat(100), "y".repeat(96));
    let (rc, _, stderr) = check(&long, &[]);
    assert_eq!(rc, 2);
    assert!(
        stderr.contains("197 bytes long, over the 196 bytes programs can receive")
            && stderr.contains("see TIBCO Rendezvous Concepts, \"Subject Name Syntax\""),
        "{stderr}"
    );
    assert_eq!(check(&long[..196], &[]).0, 0);
}

#[test]
fn match_exit_statuses() {
    // "Semantics of Listening to Wildcard Subjects".
    for (pattern, subject, rc, out) in [
        ("RUN.*", "RUN.away", 0, "match\n"),
        ("RUN.>", "RUN.SWIM.BIKE.SKATE", 0, "match\n"),
        ("*.your.*", "Amaze.your.friends", 0, "match\n"),
        ("RUN.>", "RUN", 1, "no match\n"),
        ("RUN.*", "Run.away", 1, "no match\n"),
        ("Yankees.vs.*", "Giants.vs.Yankees", 1, "no match\n"),
        (
            "_RV.*.SYSTEM.>",
            "_RV.ERROR.SYSTEM.CLIENT.ILLEGAL_PUBLISH",
            0,
            "match\n",
        ),
    ] {
        let (code, stdout, stderr) = mqgate(&["rv", "match", pattern, subject]);
        assert_eq!(
            (code, stdout.as_str(), stderr.as_str()),
            (rc, out, ""),
            "{pattern} {subject}"
        );
    }
    for (pattern, subject, says) in [
        (
            "Foo.>.baz",
            "Foo.x.baz",
            "invalid pattern \"Foo.>.baz\": element 2 is '>': '>' must be the last element",
        ),
        (
            "RUN..*",
            "RUN.a",
            "invalid pattern \"RUN..*\": element 2 is empty",
        ),
        (
            "RUN.*",
            "RUN.*",
            "invalid subject \"RUN.*\": element 2 is the wildcard '*': the subject of a message has no wildcards",
        ),
        (
            "RUN.*",
            "RUN.",
            "invalid subject \"RUN.\": element 2 is empty",
        ),
    ] {
        let (code, stdout, stderr) = mqgate(&["rv", "match", pattern, subject]);
        assert_eq!((code, stdout.as_str()), (2, ""), "{stderr}");
        assert!(
            stderr.starts_with(&format!("mqgate rv match: {says}")),
            "{stderr}"
        );
    }
}

#[test]
fn help_lists_the_exit_statuses() {
    let (rc, out, _) = mqgate(&["rv", "check-subject", "--help"]);
    assert_eq!(rc, 0);
    assert!(out.contains("Exit status: 0 valid"), "{out}");
    assert!(out.contains("2 invalid"), "{out}");
    assert!(
        out.contains("listen") && out.contains("send") && out.contains("cm"),
        "{out}"
    );
    let (rc, out, _) = mqgate(&["rv", "match", "--help"]);
    assert_eq!(rc, 0);
    assert!(
        out.contains("Exit status: 0 the pattern matches; 1 it does not; 2 the pattern"),
        "{out}"
    );
    // An unknown mode is a usage error: 2, like an invalid subject.
    let (rc, _, err) = check("A", &["--mode", "publish"]);
    assert_eq!(rc, 2);
    assert!(err.contains("--mode"), "{err}");
}

/// A gateway for the bus commands, in `dir`.
fn gateway(dir: &std::path::Path) -> common::Gateway {
    common::Gateway::start(dir, "")
}

/// `mqgate ARGS --gateway URL`.
fn on(g: &common::Gateway, args: &[&str]) -> (i32, String, String) {
    let mut all = args.to_vec();
    all.extend_from_slice(&["--gateway", &g.base]);
    mqgate(&all)
}

/// A command left running: its stdout lines and its stderr lines as they
/// come.
struct Running {
    child: Child,
    out: mpsc::Receiver<String>,
    err: mpsc::Receiver<String>,
}

fn lines_of(r: impl Read + Send + 'static) -> mpsc::Receiver<String> {
    let (tx, rx) = mpsc::channel();
    std::thread::spawn(move || {
        for line in BufReader::new(r).lines() {
            let Ok(line) = line else { return };
            if tx.send(line).is_err() {
                return;
            }
        }
    });
    rx
}

impl Running {
    fn start(g: &common::Gateway, args: &[&str]) -> Running {
        let mut child = Command::new(env!("CARGO_BIN_EXE_mqgate"))
            .args(args)
            .args(["--gateway", &g.base])
            .stdout(Stdio::piped())
            .stderr(Stdio::piped())
            .spawn()
            .unwrap();
        let out = lines_of(child.stdout.take().unwrap());
        let err = lines_of(child.stderr.take().unwrap());
        Running { child, out, err }
    }

    /// The next stderr line (within 20 s).
    fn err_line(&self) -> String {
        self.err
            .recv_timeout(Duration::from_secs(20))
            .expect("no stderr line")
    }

    /// The next stdout line (within 20 s).
    fn out_line(&self) -> String {
        self.out
            .recv_timeout(Duration::from_secs(20))
            .expect("no stdout line")
    }

    /// Waits for the exit (within 20 s): (status, the stderr lines left).
    fn exit(mut self) -> (i32, Vec<String>) {
        for _ in 0..2000 {
            if let Some(st) = self.child.try_wait().unwrap() {
                let rest: Vec<String> =
                    std::iter::from_fn(|| self.err.recv_timeout(Duration::from_secs(5)).ok())
                        .collect();
                return (st.code().unwrap(), rest);
            }
            std::thread::sleep(Duration::from_millis(10));
        }
        let _ = self.child.kill();
        panic!("the command did not exit within 20 s");
    }
}

#[test]
fn publish_and_listen_end_to_end_in_the_line_and_json_forms() {
    let dir = tempfile::tempdir().unwrap();
    let g = gateway(dir.path());
    let lines = Running::start(
        &g,
        &["rv", "listen", "--subject", "QUOTE.>", "--count", "2"],
    );
    let json = Running::start(
        &g,
        &[
            "rv",
            "listen",
            "--subject",
            "QUOTE.IBM",
            "--subject",
            "NEWS.*",
            "--count",
            "1",
            "--json",
        ],
    );
    assert_eq!(lines.err_line(), "mqgate rv listen: listening to QUOTE.>");
    assert_eq!(
        json.err_line(),
        "mqgate rv listen: listening to QUOTE.IBM, NEWS.*"
    );
    let (rc, out, err) = on(
        &g,
        &[
            "rv",
            "publish",
            "--subject",
            "QUOTE.IBM",
            "--field",
            "price:f64=101.25",
            "--field",
            "name:string=IBM Corp",
            "--field",
            "vol:u64=18446744073709551615",
            "--reply",
            "ANSWERS.HERE",
        ],
    );
    assert_eq!(
        (rc, out.as_str(), err.as_str()),
        (0, "published QUOTE.IBM to 2 listeners\n", "")
    );
    let (rc, out, _) = on(
        &g,
        &[
            "rv",
            "publish",
            "--subject",
            "QUOTE.MSFT",
            "--field",
            "bids:f64array=[1.5, 2]",
            "--field",
            ":bool=true",
        ],
    );
    assert_eq!(
        (rc, out.as_str()),
        (0, "published QUOTE.MSFT to 1 listener\n")
    );
    // No one listens: published to 0 listeners, no error.
    let (rc, out, _) = on(&g, &["rv", "publish", "--subject", "ELSEWHERE"]);
    assert_eq!(
        (rc, out.as_str()),
        (0, "published ELSEWHERE to 0 listeners\n")
    );
    // docs/rendezvous.md "Command line": SUBJECT [reply=R] NAME:TYPE=VALUE,
    // values in their JSON form (u64 as a string, "JSON form").
    assert_eq!(
        lines.out_line(),
        r#"QUOTE.IBM reply=ANSWERS.HERE price:f64=101.25 name:string="IBM Corp" vol:u64="18446744073709551615""#
    );
    assert_eq!(
        lines.out_line(),
        "QUOTE.MSFT bids:f64array=[1.5,2.0] :bool=true"
    );
    assert_eq!(lines.exit().0, 0);
    let v: serde_json::Value = serde_json::from_str(&json.out_line()).unwrap();
    assert_eq!(
        v,
        serde_json::json!({
            "subject": "QUOTE.IBM",
            "reply_subject": "ANSWERS.HERE",
            "fields": [
                {"name": "price", "type": "f64", "value": 101.25},
                {"name": "name", "type": "string", "value": "IBM Corp"},
                {"name": "vol", "type": "u64", "value": "18446744073709551615"}
            ]
        })
    );
    assert_eq!(json.exit().0, 0);
}

#[test]
fn request_gets_the_reply_a_listener_sends_to_its_inbox() {
    let dir = tempfile::tempdir().unwrap();
    let g = gateway(dir.path());
    let server = Running::start(
        &g,
        &[
            "rv",
            "listen",
            "--subject",
            "TIME.NOW",
            "--count",
            "1",
            "--json",
        ],
    );
    assert_eq!(server.err_line(), "mqgate rv listen: listening to TIME.NOW");
    let request = Running::start(
        &g,
        &[
            "rv",
            "request",
            "--subject",
            "TIME.NOW",
            "--field",
            "tz:string=UTC",
            "--timeout",
            "20000",
        ],
    );
    let asked: serde_json::Value = serde_json::from_str(&server.out_line()).unwrap();
    assert_eq!(
        asked["fields"],
        serde_json::json!([{"name": "tz", "type": "string", "value": "UTC"}])
    );
    // docs/rendezvous.md "Inboxes": _INBOX.<16 hex digits>.<n>.
    let inbox = asked["reply_subject"].as_str().unwrap().to_string();
    assert!(
        inbox.starts_with("_INBOX.") && inbox.split('.').count() == 3,
        "{inbox}"
    );
    let (rc, out, _) = on(
        &g,
        &[
            "rv",
            "publish",
            "--subject",
            &inbox,
            "--field",
            "now:string=noon",
        ],
    );
    assert_eq!((rc, out), (0, format!("published {inbox} to 1 listener\n")));
    assert_eq!(request.out_line(), format!("{inbox} now:string=\"noon\""));
    assert_eq!(request.exit().0, 0);
    assert_eq!(server.exit().0, 0);
}

#[test]
fn timeouts_refusals_and_unreachable_gateways_have_their_exit_statuses() {
    let dir = tempfile::tempdir().unwrap();
    let g = gateway(dir.path());
    // 3: the time passed first (each command's --help).
    let (rc, out, err) = on(
        &g,
        &[
            "rv",
            "listen",
            "--subject",
            "QUIET",
            "--count",
            "1",
            "--timeout",
            "300",
        ],
    );
    assert_eq!((rc, out.as_str()), (3, ""));
    assert_eq!(
        err,
        "mqgate rv listen: listening to QUIET\nmqgate rv listen: 0 of 1 messages within 300 ms\n"
    );
    let (rc, _, _) = on(
        &g,
        &["rv", "listen", "--subject", "QUIET", "--timeout", "200"],
    );
    assert_eq!(rc, 0);
    let (rc, out, err) = on(
        &g,
        &[
            "rv",
            "request",
            "--subject",
            "NO.SERVER",
            "--timeout",
            "200",
        ],
    );
    assert_eq!((rc, out.as_str()), (3, ""));
    assert_eq!(
        err,
        "mqgate rv request: no reply to \"NO.SERVER\" within 200 ms (TIBRV_TIMEOUT 50)\n"
    );
    // 1: refused by the gateway, with the rule and the tibrv_status.
    for (args, says) in [
        (
            &["rv", "publish", "--subject", "A..B"][..],
            "mqgate rv publish: invalid subject \"A..B\": element 2 is empty (TIBRV_INVALID_SUBJECT 20)\n",
        ),
        (
            &["rv", "publish", "--subject", "_RV.INFO.X"][..],
            "mqgate rv publish: invalid subject \"_RV.INFO.X\": element 1: '_RV.' is reserved for advisories; programs must not send to it (TIBRV_INVALID_SUBJECT 20)\n",
        ),
        (
            &["rv", "publish", "--subject", "A", "--reply", "B.>"][..],
            "mqgate rv publish: invalid reply subject \"B.>\": element 2 is the wildcard '>': sending to a wildcard subject is refused unless wildcard sends are allowed (TIBRV_INVALID_SUBJECT 20)\n",
        ),
        (
            &["rv", "listen", "--subject", "A.>.B"][..],
            "mqgate rv listen: invalid listen subject \"A.>.B\": element 2 is '>': '>' must be the last element (TIBRV_INVALID_SUBJECT 20)\n",
        ),
        (
            &["rv", "listen", "--subject", "_INBOX.X.1"][..],
            "mqgate rv listen: listen subject \"_INBOX.X.1\": element 1: '_INBOX.' subjects are made by the gateway for one listener (GET /v1/rv/listen?inbox=true), not listened to by name (TIBRV_NOT_PERMITTED 27)\n",
        ),
        (
            &["rv", "request", "--subject", "WILD.*"][..],
            "mqgate rv request: invalid subject \"WILD.*\": element 2 is the wildcard '*': sending to a wildcard subject is refused unless wildcard sends are allowed (TIBRV_INVALID_SUBJECT 20)\n",
        ),
    ] {
        let (rc, out, err) = on(&g, args);
        assert_eq!((rc, out.as_str(), err.as_str()), (1, "", says), "{args:?}");
    }
    // 2: an invalid --field never reaches the gateway (docs/rendezvous.md
    // "Command-line fields"), and is named with the status the gateway
    // gives the same field ("Errors": 3 for the syntax, 38 for the value).
    for (field, says) in [
        (
            "price=1",
            "mqgate rv publish: 'price=1': is not NAME:TYPE=VALUE (TIBRV_INVALID_ARG 3)\n",
        ),
        (
            "price:f64=abc",
            "mqgate rv publish: field 'price': 'abc' is not an f64 (TIBRV_CONVERSION_FAILED 38)\n",
        ),
    ] {
        let (rc, out, err) = on(&g, &["rv", "publish", "--subject", "A", "--field", field]);
        assert_eq!((rc, out.as_str(), err.as_str()), (2, "", says));
    }
    let (rc, _, err) = on(
        &g,
        &["rv", "publish", "--subject", "A", "--field", "p:f65=1"],
    );
    assert_eq!(rc, 2);
    assert!(
        err.starts_with("mqgate rv publish: field 'p': unknown type 'f65' (types: msg,"),
        "{err}"
    );
    // 2: unreachable.
    let (_hold, addr) = common::refused_addr();
    let url = format!("http://{addr}");
    for args in [
        &["rv", "publish", "--subject", "A"][..],
        &["rv", "listen", "--subject", "A", "--timeout", "5000"][..],
        &["rv", "request", "--subject", "A"][..],
    ] {
        let mut all = args.to_vec();
        all.extend_from_slice(&["--gateway", &url]);
        let (rc, out, err) = mqgate(&all);
        assert_eq!((rc, out.as_str()), (2, ""), "{args:?}: {err}");
        assert!(err.contains("Connection refused"), "{err}");
    }
    // 2: usage errors (clap).
    let (rc, _, err) = on(&g, &["rv", "listen"]);
    assert_eq!(rc, 2);
    assert!(err.contains("--subject"), "{err}");
    let (rc, _, _) = on(&g, &["rv", "listen", "--subject", "A", "--count", "0"]);
    assert_eq!(rc, 2);
}

#[test]
fn a_listener_ends_with_exit_2_when_the_gateway_stops() {
    let dir = tempfile::tempdir().unwrap();
    let mut g = gateway(dir.path());
    let l = Running::start(&g, &["rv", "listen", "--subject", "A", "--inbox"]);
    let listening = l.err_line();
    let inbox_line = l.err_line();
    let inbox = inbox_line
        .strip_prefix("mqgate rv listen: inbox _INBOX.")
        .unwrap_or_else(|| panic!("{inbox_line}"));
    assert_eq!(
        listening,
        format!("mqgate rv listen: listening to A, _INBOX.{inbox}")
    );
    assert!(g.terminate().success());
    let (rc, rest) = l.exit();
    assert_eq!(rc, 2);
    assert_eq!(
        rest,
        ["mqgate rv listen: the gateway ended the stream (it is stopping) after 0 messages"]
    );
}

#[test]
fn help_of_the_bus_commands_lists_the_exit_statuses() {
    for (cmd, says) in [
        (
            "publish",
            "Exit status: 0 published; 1 refused by the gateway",
        ),
        ("listen", "Exit status: 0 --count messages received"),
        (
            "request",
            "Exit status: 0 a reply came; 1 refused by the gateway",
        ),
    ] {
        let (rc, out, _) = mqgate(&["rv", cmd, "--help"]);
        assert_eq!(rc, 0);
        assert!(out.contains(says), "{out}");
        assert!(out.contains("2 gateway unreachable"), "{out}");
        assert_eq!(cmd != "publish", out.contains("; 3 "), "{out}");
    }
}

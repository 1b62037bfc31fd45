//! The CLI against a running gateway, and `check-config` (docs/config.md).

mod common;

use common::{BIN, Gateway};
use std::process::{Command, Output, Stdio};

fn mqgate(args: &[&str], stdin: Option<&[u8]>) -> Output {
    let mut child = Command::new(BIN)
        .args(args)
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    // The child may exit before reading stdin: a closed pipe is no failure.
    common::feed_stdin(child.stdin.take(), stdin.unwrap_or_default());
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
    // Nothing left: exit status 3 after the wait (docs/config.md).
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

/// The JSON log lines of a gateway run with `RUST_LOG=filter` that put one
/// message with CorrelId `correl` on a device queue (created by the put)
/// and stopped; and the put's answer.
fn json_log_of_one_put(filter: &str, correl: &str) -> (Vec<serde_json::Value>, serde_json::Value) {
    let dir = tempfile::tempdir().unwrap();
    let mut g = Gateway::start_with_env(
        dir.path(),
        "",
        &["--log-format", "json"],
        &[("RUST_LOG", filter)],
    );
    let (st, put) = g.put(
        "INBOX",
        &format!("q_mgr=DEV0001&correl_id={correl}"),
        b"logged",
    );
    assert_eq!(st, 201);
    assert!(g.terminate().success());
    let log = std::fs::read_to_string(g.log_path()).unwrap();
    let lines = log
        .lines()
        .map(|l| serde_json::from_str(l).unwrap_or_else(|e| panic!("not JSON: {l}: {e}")))
        .collect();
    (lines, put)
}

fn line<'a>(lines: &'a [serde_json::Value], message: &str) -> Option<&'a serde_json::Value> {
    lines.iter().find(|v| v["fields"]["message"] == message)
}

#[test]
fn json_logs_carry_queue_msg_id_and_correl_id() {
    // docs/config.md "Logging": per-message events are DEBUG lines with the
    // queue, MsgId and CorrelId as fields.
    let correl = "AB".repeat(24);
    let (lines, put) = json_log_of_one_put("info,mqgate::qmgr=debug", &correl);
    let put_line = line(&lines, "put").unwrap_or_else(|| panic!("no put line in {lines:?}"));
    assert_eq!(put_line["level"], "DEBUG");
    assert_eq!(put_line["fields"]["queue"], "DEV0001/INBOX");
    assert_eq!(put_line["fields"]["msg_id"], put["msg_id"]);
    assert_eq!(put_line["fields"]["correl_id"], correl);
    let created = line(&lines, "device queue created").expect("a device queue creation line");
    assert_eq!(created["level"], "DEBUG");
    assert!(line(&lines, "queue manager stopped").is_some());
}

#[test]
fn the_default_level_logs_lifecycle_not_each_message() {
    // docs/config.md "Logging": at the default level (`info`) a put and the
    // device queue it creates write nothing; the queue manager's start and
    // stop do.
    let (lines, _) = json_log_of_one_put("info", &"CD".repeat(24));
    assert!(line(&lines, "put").is_none(), "{lines:?}");
    assert!(line(&lines, "device queue created").is_none(), "{lines:?}");
    for lifecycle in [
        "queue manager started",
        "mqgate running",
        "queue manager stopped",
    ] {
        let l = line(&lines, lifecycle).unwrap_or_else(|| panic!("no {lifecycle:?} in {lines:?}"));
        assert_eq!(l["level"], "INFO");
    }
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
    // The child may not read stdin at all; a closed pipe is fine here.
    common::feed_stdin(child.stdin.take(), stdin);
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
    // A port nobody listens on, held (bound, not listening) for the whole
    // test so that no other test's gateway can take it meanwhile.
    let (_held, addr) = common::refused_addr();
    let gw = format!("http://{addr}");
    // Same status as `tpenqueue` (2: the gateway could not be asked); before
    // the fix put/get/browse exited 1 like an MQ error.
    let runs: [&[&str]; 5] = [
        &["put", "--queue", "Q", "--gateway", &gw, "-"],
        &["get", "--queue", "Q", "--gateway", &gw],
        &["browse", "--queue", "Q", "--gateway", &gw],
        &["channel", "start", "TO.MQGATE", "--gateway", &gw],
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

/// A transmission message to `INBOX%DEV0001` at the embedded default's
/// gateway MQGATE (README "Message channels and devices"; layout: IBM MQ
/// "MQXQH - Transmission-queue header", MQXQH then the data).
fn xmit_to_device(persistent: bool, body: &[u8]) -> Vec<u8> {
    use mqgate_codecs::mq::xqh::write_xqh;
    use mqgate_codecs::mq::{ByteOrder, CharField, Charset, Mqmd, Mqxqh};
    let cs = Charset::Ascii;
    let xqh = Mqxqh {
        version: 1,
        remote_q_name: CharField::new("INBOX%DEV0001", cs).unwrap(),
        remote_q_mgr_name: CharField::new("MQGATE", cs).unwrap(),
        msg_desc: Mqmd {
            version: 1,
            persistence: i32::from(persistent),
            format: CharField::new("MQSTR", cs).unwrap(),
            ..Mqmd::default()
        },
    };
    let mut out = Vec::new();
    write_xqh(&xqh, ByteOrder::Little, cs, &mut out);
    out.extend_from_slice(body);
    out
}

/// Pulls and acknowledges every message of device DEV0001's INBOX over the
/// HTTP API (docs/http-api.md "Devices"); their data, in order.
fn drain_inbox(g: &Gateway) -> Vec<Vec<u8>> {
    let mut out = Vec::new();
    loop {
        let (st, v) = g.call(
            "GET",
            "/v1/devices/DEV0001/queues/INBOX/messages/next?wait_ms=0",
            None,
        );
        if st == 204 {
            return out;
        }
        assert_eq!(st, 200, "{v}");
        let (st, a) = g.call(
            "POST",
            &format!(
                "/v1/devices/DEV0001/queues/INBOX/messages/ack/{}",
                common::token(&v["lease"])
            ),
            Some(("application/octet-stream", b"")),
        );
        assert_eq!(st, 200, "{a}");
        out.push(common::data(&v));
    }
}

#[test]
fn device_pull_out_never_overwrites_files_of_an_earlier_run() {
    // Defect report: a second `device-pull --out DIR` wrote 000001.dat again
    // over the first run's message, which the gateway had already removed.
    let dir = tempfile::tempdir().unwrap();
    let g = Gateway::start(dir.path(), "");
    let out_dir = dir.path().join("pulled");
    let pull = || {
        Command::new(BIN)
            .args(["device-pull", "--gateway", &g.base, "--qmgr", "DEV0001"])
            .args(["--queue", "INBOX", "--out"])
            .arg(&out_dir)
            .output()
            .unwrap()
    };
    let put = |body: &str| {
        let (st, v) = g.put("INBOX", "q_mgr=DEV0001&persistent=true", body.as_bytes());
        assert_eq!(st, 201, "{v}");
    };
    put("first");
    put("second");
    let o = pull();
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    put("third");
    put("fourth");
    let o = pull();
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    for (n, body) in [(1, "first"), (2, "second"), (3, "third"), (4, "fourth")] {
        let dat = std::fs::read(out_dir.join(format!("{n:06}.dat"))).unwrap();
        assert_eq!(String::from_utf8_lossy(&dat), body, "{n:06}.dat");
        let md: serde_json::Value =
            serde_json::from_slice(&std::fs::read(out_dir.join(format!("{n:06}.json"))).unwrap())
                .unwrap();
        assert_eq!(md["Persistence"], 1, "{n:06}.json: {md}");
    }
    let said = String::from_utf8_lossy(&o.stdout);
    assert!(
        said.contains("2 messages written") && said.contains("000003.dat to 000004.dat"),
        "{said}"
    );
    // Only the eight message files: no temporary file is left.
    assert_eq!(std::fs::read_dir(&out_dir).unwrap().count(), 8);
    // All acknowledged: nothing left on the gateway (exit 3).
    let o = Command::new(BIN)
        .args([
            "device-pull",
            "--gateway",
            &g.base,
            "--qmgr",
            "DEV0001",
            "--queue",
            "INBOX",
        ])
        .output()
        .unwrap();
    assert_eq!(o.status.code(), Some(3));
    // An unusable DIR (a file): exit 1 and nothing is taken off the gateway.
    put("fifth");
    let file = dir.path().join("a-file");
    std::fs::write(&file, b"").unwrap();
    let o = Command::new(BIN)
        .args([
            "device-pull",
            "--gateway",
            &g.base,
            "--qmgr",
            "DEV0001",
            "--queue",
            "INBOX",
            "--out",
        ])
        .arg(&file)
        .output()
        .unwrap();
    assert_eq!(
        o.status.code(),
        Some(1),
        "{}",
        String::from_utf8_lossy(&o.stderr)
    );
    assert_eq!(drain_inbox(&g), vec![b"fifth".to_vec()]);
}

/// Writes `n` transmission messages for INBOX%DEV0001 with bodies
/// `m000000`, `m000001`, ...; every tenth one is non-persistent.
fn journal_files(dir: &std::path::Path, n: usize) -> Vec<std::path::PathBuf> {
    std::fs::create_dir_all(dir).unwrap();
    (0..n)
        .map(|i| {
            let p = dir.join(format!("{i:06}.xmit"));
            std::fs::write(
                &p,
                xmit_to_device(i % 10 != 9, format!("m{i:06}").as_bytes()),
            )
            .unwrap();
            p
        })
        .collect()
}

fn send_cmd(g: &Gateway, journal: &std::path::Path, files: &[std::path::PathBuf]) -> Command {
    let mut c = Command::new(BIN);
    c.args(["send", "--to", &g.listen_addr(), "--channel", "TO.MQGATE"])
        .args(["--batch", "5", "--retry-ms", "20000", "--journal"])
        .arg(journal)
        .args(files)
        .stdout(Stdio::piped())
        .stderr(Stdio::piped());
    c
}

/// Waits until the journal records at least one confirmed batch; panics
/// when `child` ends first (then nothing would be interrupted).
fn wait_for_progress(journal: &std::path::Path, child: &mut std::process::Child) {
    let deadline = std::time::Instant::now() + std::time::Duration::from_secs(60);
    while std::time::Instant::now() < deadline {
        assert!(
            child.try_wait().unwrap().is_none(),
            "send ended before it was interrupted"
        );
        if let Ok(text) = std::fs::read(journal)
            && let Ok(v) = serde_json::from_slice::<serde_json::Value>(&text)
            && v["last_confirmed_seq"].as_u64().unwrap_or(0) > 0
        {
            return;
        }
        std::thread::sleep(std::time::Duration::from_millis(2));
    }
    panic!("no confirmed batch in the journal within 60 s");
}

/// Every persistent message exactly once, every non-persistent at most once
/// (docs/architecture.md "Rules every part keeps"); returns how many
/// non-persistent ones arrived.
fn check_exactly_once(got: &[Vec<u8>], n: usize) -> usize {
    let mut seen = vec![0u32; n];
    for body in got {
        let text = String::from_utf8_lossy(body);
        let i: usize = text[1..].parse().unwrap_or_else(|_| panic!("{text}"));
        seen[i] += 1;
    }
    let mut fast = 0;
    for (i, c) in seen.iter().enumerate() {
        if i % 10 == 9 {
            assert!(*c <= 1, "non-persistent m{i:06} arrived {c} times");
            fast += *c as usize;
        } else {
            assert_eq!(*c, 1, "persistent m{i:06} arrived {c} times");
        }
    }
    fast
}

#[test]
fn send_with_a_journal_resumes_after_kill_9_without_duplicates() {
    // Defect report: a `send` that was killed left no record of what was
    // confirmed, so sending again duplicated every committed batch.
    const N: usize = 3000;
    let dir = tempfile::tempdir().unwrap();
    let g = Gateway::start(dir.path(), "");
    let files = journal_files(&dir.path().join("msgs"), N);
    let journal = dir.path().join("send.journal");
    let mut first = send_cmd(&g, &journal, &files).spawn().unwrap();
    wait_for_progress(&journal, &mut first);
    first.kill().unwrap(); // SIGKILL
    first.wait().unwrap();
    let record: serde_json::Value =
        serde_json::from_slice(&std::fs::read(&journal).unwrap()).unwrap();
    assert_eq!(record["messages"], N, "{record}");
    let again = send_cmd(&g, &journal, &files).output().unwrap();
    let said = String::from_utf8_lossy(&again.stdout);
    assert!(
        again.status.success(),
        "{said}{}",
        String::from_utf8_lossy(&again.stderr)
    );
    assert!(said.contains("were done by an earlier run"), "{said}");
    let got = drain_inbox(&g);
    check_exactly_once(&got, N);
    // A third run has nothing left to send and sends nothing.
    let third = send_cmd(&g, &journal, &files).output().unwrap();
    assert!(third.status.success());
    assert!(String::from_utf8_lossy(&third.stdout).contains("nothing to send"));
    assert!(drain_inbox(&g).is_empty());
    // The same journal with other files (one changed) is refused, exit 2.
    std::fs::write(&files[0], xmit_to_device(true, b"changed")).unwrap();
    let other = send_cmd(&g, &journal, &files).output().unwrap();
    let err = String::from_utf8_lossy(&other.stderr);
    assert_eq!(other.status.code(), Some(2), "{err}");
    assert!(
        err.contains("was written for another send") && err.contains("fingerprint"),
        "{err}"
    );
    assert!(drain_inbox(&g).is_empty());
}

#[test]
fn send_that_fails_reports_its_progress_and_resumes_from_the_journal() {
    // Defect report: the user could not tell which files were confirmed.
    // The receiving gateway is killed during the send (no --retry-ms here).
    const N: usize = 3000;
    let dir = tempfile::tempdir().unwrap();
    let mut g = Gateway::start(dir.path(), "");
    let files = journal_files(&dir.path().join("msgs"), N);
    let journal = dir.path().join("send.journal");
    let mut cmd = Command::new(BIN);
    cmd.args([
        "send",
        "--to",
        &g.listen_addr(),
        "--channel",
        "TO.MQGATE",
        "--batch",
        "5",
    ])
    .arg("--journal")
    .arg(&journal)
    .args(&files)
    .stdout(Stdio::piped())
    .stderr(Stdio::piped());
    let mut sender = cmd.spawn().unwrap();
    wait_for_progress(&journal, &mut sender);
    g.kill9();
    let out = sender.wait_with_output().unwrap();
    let err = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(1), "{err}");
    // README "Exit codes of `send`": what this run confirmed, then how many
    // of all are done and which files.
    assert!(
        err.contains(" messages confirmed") || err.contains(" message confirmed"),
        "{err}"
    );
    assert!(
        err.contains(&format!(" of {N} messages done: the files at positions 1-")),
        "{err}"
    );
    assert!(err.contains("run the same command again"), "{err}");
    g.restart();
    let again = send_cmd(&g, &journal, &files).output().unwrap();
    assert!(
        again.status.success(),
        "{}",
        String::from_utf8_lossy(&again.stderr)
    );
    check_exactly_once(&drain_inbox(&g), N);
}

#[test]
fn exit_codes_are_in_the_help_of_send_and_device_pull() {
    for cmd in ["send", "device-pull", "tpenqueue", "rpc"] {
        let out = mqgate(&[cmd, "--help"], None);
        let help = String::from_utf8_lossy(&out.stdout);
        assert!(help.contains("Exit codes: 0 "), "{cmd}: {help}");
    }
    let out = mqgate(&["send", "--help"], None);
    assert!(String::from_utf8_lossy(&out.stdout).contains("--journal <FILE>"));
}

#[test]
fn numeric_options_out_of_range_are_usage_errors() {
    // Defect report: `send --batch 0` was accepted (docs/channel-protocol.md
    // "Batches": a batch is 1 to batch_size messages), and `get --wait` with
    // a value near u64::MAX overflowed. A refused value is a usage error:
    // clap's exit status 2, the message naming the option.
    let (_held, addr) = common::refused_addr();
    let dir = tempfile::tempdir().unwrap();
    let file = dir.path().join("m.xmit");
    std::fs::write(&file, xmit_to_device(true, b"x")).unwrap();
    let (to, gw) = (addr.to_string(), format!("http://{addr}"));
    let file = file.to_str().unwrap();
    let send = |opt: &'static str, value: &'static str| -> Vec<String> {
        [
            "send",
            "--to",
            &to,
            "--channel",
            "TO.MQGATE",
            opt,
            value,
            file,
        ]
        .map(String::from)
        .to_vec()
    };
    let runs: Vec<(Vec<String>, &str)> = vec![
        (send("--batch", "0"), "--batch"),
        // 2147483648 = the largest MQLONG + 1 (IBM MQ "WaitInterval (MQLONG)").
        (send("--retry-ms", "2147483648"), "--retry-ms"),
        (
            [
                "get",
                "--queue",
                "Q",
                "--gateway",
                &gw,
                "--wait",
                "18446744073709551615",
            ]
            .map(String::from)
            .to_vec(),
            "--wait",
        ),
        (
            [
                "device-pull",
                "--qmgr",
                "DEV1",
                "--queue",
                "Q",
                "--gateway",
                &gw,
            ]
            .into_iter()
            .chain(["--wait", "2147483648"])
            .map(String::from)
            .collect(),
            "--wait",
        ),
        (
            [
                "rtq",
                "get",
                "--group",
                "G",
                "--queue",
                "Q",
                "--gateway",
                &gw,
            ]
            .into_iter()
            .chain(["--wait", "18446744073709551615"])
            .map(String::from)
            .collect(),
            "--wait",
        ),
        (
            ["bench", "queue", "--messages", "0"]
                .map(String::from)
                .to_vec(),
            "--messages",
        ),
    ];
    for (args, named) in runs {
        let args: Vec<&str> = args.iter().map(String::as_str).collect();
        let out = mqgate(&args, None);
        let err = String::from_utf8_lossy(&out.stderr);
        assert_eq!(out.status.code(), Some(2), "{args:?}: {err}");
        assert!(
            err.contains("invalid value") && err.contains(named),
            "{args:?}: {err}"
        );
    }
}

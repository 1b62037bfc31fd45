//! The Tuxedo gateway with the built binary: DMCONFIG errors at start-up and
//! in check-config, `mqgate tpenqueue` and `mqgate rtq get`, and requests
//! surviving kill -9 (docs/tuxedo.md). Expected values: the TOP END Domain
//! Gateway guide's tables, the tperrno and QME diagnostic values of Oracle
//! Tuxedo `atmi.h` ("tperrno(5)", "tpenqueue(3c)"), and the line numbers each
//! fixture's first comment gives.

mod common;

use common::{BIN, Gateway};
use serde_json::Value;
use std::process::{Command, Output, Stdio};

const FIX: &str = concat!(env!("CARGO_MANIFEST_DIR"), "/fixtures/tuxedo");

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

fn config() -> String {
    format!("dmconfig: {FIX}/tedg_valid.dmconfig\ntedg:\n  field_tables: [{FIX}/tedg_fields.fml]\n")
}

#[test]
fn check_config_reports_dmconfig_errors_with_line_numbers() {
    let dir = tempfile::tempdir().unwrap();
    // (fixture, line named in its first comment)
    for (file, line) in [
        ("tedg_err_rtqname_long.dmconfig", 17),
        ("tedg_err_unterminated.dmconfig", 4),
        ("tedg_err_unknown_section.dmconfig", 12),
    ] {
        let yaml = dir.path().join("g.yaml");
        std::fs::write(&yaml, format!("dmconfig: {FIX}/{file}\n")).unwrap();
        let out = mqgate(&["check-config", yaml.to_str().unwrap()], None);
        let err = String::from_utf8_lossy(&out.stderr);
        assert_eq!(out.status.code(), Some(1), "{file}: {err}");
        assert!(err.contains(file), "{err}");
        assert!(err.contains(&format!("line {line},")), "{file}: {err}");
    }
    let yaml = dir.path().join("ok.yaml");
    std::fs::write(&yaml, config()).unwrap();
    let out = mqgate(&["check-config", yaml.to_str().unwrap()], None);
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
}

#[test]
fn run_refuses_a_bad_dmconfig_naming_the_line() {
    let dir = tempfile::tempdir().unwrap();
    let bad = format!("{FIX}/tedg_err_no_function.dmconfig");
    let out = Command::new(BIN)
        .args(["run", "--dmconfig", &bad, "--data-dir"])
        .arg(dir.path().join("data"))
        .args(["--http", "127.0.0.1:0"])
        .output()
        .unwrap();
    let err = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(2), "{err}");
    // The fixture's comment: the QNAME entry on line 15 lacks TE_FUNCTION.
    assert!(
        err.contains("line 15,") && err.contains("TE_FUNCTION"),
        "{err}"
    );
}

#[test]
fn tpenqueue_and_rtq_get_with_the_cli() {
    let dir = tempfile::tempdir().unwrap();
    let g = Gateway::start(dir.path(), &config());
    let gw = g.base.as_str();
    let common = ["--gateway", gw, "--qspace", "BILLING", "--qname", "RAWDATA"];

    let out = mqgate(
        &[
            &["tpenqueue"],
            &common[..],
            &["--flags", "TPQMSGID,TPNOTRAN", "-"],
        ]
        .concat(),
        Some(b"raw bytes"),
    );
    assert_eq!(out.status.code(), Some(0));
    let v: Value = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!(v["tperrno"], Value::Null);
    let msgid = v["msgid"].as_str().unwrap().to_string();
    assert_eq!(msgid.len(), 64);

    // the TOP END Domain Gateway guide error table: an unsupported flag → TPEDIAGNOSTIC (24) / QMEINVAL (-1); exit 1.
    let out = mqgate(
        &[&["tpenqueue"], &common[..], &["--flags", "TPQPRIORITY"]].concat(),
        Some(b"x"),
    );
    assert_eq!(out.status.code(), Some(1));
    let v: Value = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!(
        (
            &v["tperrno"],
            &v["tperrno_value"],
            &v["diagnostic"],
            &v["diagnostic_value"]
        ),
        (
            &Value::from("TPEDIAGNOSTIC"),
            &Value::from(24),
            &Value::from("QMEINVAL"),
            &Value::from(-1)
        )
    );
    // No QSPACE → TPENOENT (6).
    let out = mqgate(
        &[
            "tpenqueue",
            "--gateway",
            gw,
            "--qspace",
            "NOQS",
            "--qname",
            "RAWDATA",
        ],
        Some(b"x"),
    );
    assert_eq!(out.status.code(), Some(1));
    let v: Value = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!(
        (&v["tperrno"], &v["tperrno_value"]),
        (&Value::from("TPENOENT"), &Value::from(6))
    );

    let get = [
        "rtq",
        "get",
        "--gateway",
        gw,
        "--group",
        "BILLING_GROUP",
        "--queue",
        "BILLQ",
    ];
    let out = mqgate(&[&get[..], &["--json"]].concat(), None);
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let r: Value = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!(r["request"]["function"], "RAWIN");
    assert_eq!(r["request"]["buftype"], "CARRAY");
    assert_eq!(
        r["request"]["request_id"].as_str().unwrap().to_uppercase(),
        msgid[..32]
    );
    // Taken and acknowledged: nothing left (exit 3, as `mqgate get`).
    let out = mqgate(&get, None);
    assert_eq!(out.status.code(), Some(3));

    // FML32 from JSON, read back as JSON on the server side.
    let out = mqgate(
        &[
            "tpenqueue",
            "--gateway",
            gw,
            "--qspace",
            "ORDERS",
            "--qname",
            "NEWORDER",
            "--buftype",
            "FML32",
            "--fml32-json",
            "-",
        ],
        Some(br#"{"ORDER_ID": [7], "CUSTOMER": ["Jones"]}"#),
    );
    assert_eq!(
        out.status.code(),
        Some(0),
        "{}",
        String::from_utf8_lossy(&out.stdout)
    );
    let out = mqgate(
        &[
            "rtq",
            "get",
            "--gateway",
            gw,
            "--group",
            "ORDGRP",
            "--queue",
            "ORDQ",
            "--json",
        ],
        None,
    );
    let r: Value = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!(
        r["fml32"],
        serde_json::json!({"ORDER_ID": [7], "CUSTOMER": ["Jones"]})
    );
}

#[test]
fn scheduled_requests_survive_kill_9() {
    let dir = tempfile::tempdir().unwrap();
    let mut g = Gateway::start(dir.path(), &config());
    let body = br#"{"qspace":"BILLING","qname":"INVOICE","flags":["TPQTIME_REL"],"deq_time":3600,"buftype":"X_OCTET","data_base64":"aGk="}"#;
    let (st, v) = g.call(
        "POST",
        "/v1/tux/tpenqueue",
        Some(("application/json", body)),
    );
    assert_eq!(st, 200);
    assert_eq!(v["schedule_time"], "R:01:00");
    g.kill9_and_restart();
    let (_, list) = g.call("GET", "/v1/rtq", None);
    let q = list
        .as_array()
        .unwrap()
        .iter()
        .find(|q| q["group"] == "BILLING_GROUP")
        .unwrap()
        .clone();
    assert_eq!(q["depth"], 1, "{list}");
    // Not due for an hour: the server gets nothing.
    let (st, e) = g.call("GET", "/v1/rtq/BILLING_GROUP/BILLQ/next", None);
    assert_eq!((st, e["mqrc"].as_i64()), (404, Some(2033)));
}

#[test]
fn fml32_json_implies_buftype_fml32_and_flag_messages_are_clear() {
    let dir = tempfile::tempdir().unwrap();
    let g = Gateway::start(dir.path(), &config());
    let gw = g.base.as_str();
    let orders = ["--gateway", gw, "--qspace", "ORDERS", "--qname", "NEWORDER"];
    // The tester's command (docs/tuxedo.md): --fml32-json alone is FML32, the
    // INBUFTYPE of QNAME NEWORDER (fixtures/tuxedo/tedg_valid.dmconfig).
    let out = mqgate(
        &[&["tpenqueue"], &orders[..], &["--fml32-json", "-"]].concat(),
        Some(br#"{"ORDER_ID":[42]}"#),
    );
    assert_eq!(
        out.status.code(),
        Some(0),
        "{}{}",
        String::from_utf8_lossy(&out.stdout),
        String::from_utf8_lossy(&out.stderr)
    );
    // Another --buftype contradicts --fml32-json: usage error, exit 2, nothing sent.
    let out = mqgate(
        &[
            &["tpenqueue"],
            &orders[..],
            &["--fml32-json", "--buftype", "CARRAY", "-"],
        ]
        .concat(),
        Some(br#"{"ORDER_ID":[43]}"#),
    );
    assert_eq!(out.status.code(), Some(2));
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(err.contains("--buftype CARRAY"), "{err}");
    let out = mqgate(
        &[
            "rtq",
            "get",
            "--gateway",
            gw,
            "--group",
            "ORDGRP",
            "--queue",
            "ORDQ",
            "--json",
        ],
        None,
    );
    let r: Value = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!(r["fml32"], serde_json::json!({"ORDER_ID": [42]}));
    assert_eq!(
        mqgate(
            &[
                "rtq",
                "get",
                "--gateway",
                gw,
                "--group",
                "ORDGRP",
                "--queue",
                "ORDQ"
            ],
            None
        )
        .status
        .code(),
        Some(3),
        "the contradicting call enqueued nothing"
    );

    // `--flags ""`: TPEINVAL (4, docs/tuxedo.md), saying the name is empty.
    let raw = ["--gateway", gw, "--qspace", "BILLING", "--qname", "RAWDATA"];
    let out = mqgate(
        &[&["tpenqueue"], &raw[..], &["--flags", "", "-"]].concat(),
        Some(b"x"),
    );
    assert_eq!(out.status.code(), Some(1));
    let v: Value = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!(v["tperrno"], "TPEINVAL");
    assert!(
        v["message"]
            .as_str()
            .unwrap()
            .contains("empty tpenqueue flag name"),
        "{v}"
    );
}

#[test]
fn unreachable_gateway_and_unreadable_file_exit_2_naming_what_failed() {
    // Port 9 on 127.0.0.1 (discard) has no listener here: connection refused.
    let gw = "http://127.0.0.1:9";
    let out = mqgate(
        &[
            "tpenqueue",
            "--gateway",
            gw,
            "--qspace",
            "BILLING",
            "--qname",
            "RAWDATA",
            "-",
        ],
        Some(b"x"),
    );
    assert_eq!(out.status.code(), Some(2));
    let out = mqgate(
        &[
            "rtq",
            "get",
            "--gateway",
            gw,
            "--group",
            "BILLING_GROUP",
            "--queue",
            "BILLQ",
        ],
        None,
    );
    assert_eq!(
        out.status.code(),
        Some(2),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let out = mqgate(
        &[
            "tpenqueue",
            "--gateway",
            gw,
            "--qspace",
            "BILLING",
            "--qname",
            "RAWDATA",
            "/nonexistent/buffer.bin",
        ],
        None,
    );
    assert_eq!(out.status.code(), Some(2));
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(err.contains("/nonexistent/buffer.bin"), "{err}");
    // The exit codes are in --help.
    for cmd in [&["tpenqueue", "--help"][..], &["rtq", "get", "--help"][..]] {
        let out = mqgate(cmd, None);
        let help = String::from_utf8_lossy(&out.stdout);
        assert!(help.contains("Exit codes") && help.contains("2 "), "{help}");
    }
}

#[test]
fn tpenqueue_exits_1_on_an_error_answer_without_a_tperrno() {
    // Defect report: a gateway without a DMCONFIG has no /v1/tux/tpenqueue;
    // it answers 404 with {"mqrc": 2298, "reason":
    // "MQRC_FUNCTION_NOT_SUPPORTED"} (docs/http-api.md, unknown route) and no
    // tperrno, and the CLI exited 0 as if the request had been enqueued.
    let dir = tempfile::tempdir().unwrap();
    let g = Gateway::start(dir.path(), "queues:\n  - type: local\n    name: SOME.Q\n");
    let out = mqgate(
        &[
            "tpenqueue",
            "--gateway",
            &g.base,
            "--qspace",
            "BILLING",
            "--qname",
            "RAWDATA",
            "-",
        ],
        Some(b"raw bytes"),
    );
    let err = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(1), "{err}");
    let v: Value = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!(v["mqrc"], 2298, "{v}");
    assert!(
        err.contains("HTTP 404: 2298 MQRC_FUNCTION_NOT_SUPPORTED") && err.contains("DMCONFIG"),
        "{err}"
    );
}

#[test]
fn queue_api_puts_onto_an_rtq_queue_must_be_rtq_requests() {
    // Defect report: a raw put onto an RTQ queue counted toward its depth and
    // capacity but was never handed out by the RTQ API. docs/tuxedo.md "How
    // it works": an RTQ request is Format MQGRTQ with the request envelope;
    // anything else is refused with 2110 MQRC_FORMAT_ERROR (IBM MQ "API
    // reason codes"), HTTP 400 (docs/http-api.md: any reason not listed).
    use base64::Engine;
    use mqgate_codecs::mq::ByteOrder;
    use mqgate_codecs::mq::dlh::parse_dlh;
    let dir = tempfile::tempdir().unwrap();
    let cfg = format!(
        "{}channels:\n  - type: receiver\n    name: TO.MQGATE\n    undelivered: dead-letter\n",
        config()
    );
    let g = Gateway::start(dir.path(), &cfg);
    let gw = g.base.as_str();
    let q = "RTQ.BILLING_GROUP.BILLQ";
    let refused = |v: &Value, what: &str| {
        assert_eq!(v["mqrc"], 2110, "{what}: {v}");
        assert_eq!(v["reason"], "MQRC_FORMAT_ERROR", "{what}: {v}");
        let m = v["message"].as_str().unwrap();
        assert!(m.contains(q) && m.contains("MQGRTQ"), "{what}: {m}");
    };
    // mqgate put: exit 1 (an MQ error from the gateway), the reason on stderr.
    let out = mqgate(&["put", "--queue", q, "--gateway", gw, "-"], Some(b"raw"));
    let err = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(1), "{err}");
    assert!(err.contains("2110 MQRC_FORMAT_ERROR"), "{err}");
    // HTTP put, raw data and a JSON body with Format MQGRTQ but no envelope.
    let (st, v) = g.put(q, "format=MQSTR", b"raw");
    assert_eq!(st, 400, "{v}");
    refused(&v, "raw put");
    let body = br#"{"md": {"Format": "MQGRTQ"}, "data": "no envelope"}"#;
    let (st, v) = g.call(
        "POST",
        &format!("/v1/queues/{q}/messages"),
        Some(("application/json", body)),
    );
    assert_eq!(st, 400, "{v}");
    refused(&v, "MQGRTQ without an envelope");
    assert!(v["message"].as_str().unwrap().contains("envelope"), "{v}");
    // A distribution list naming the RTQ queue stores no copy anywhere.
    let body = br#"{"destinations": [{"queue": "SYSTEM.DEAD.LETTER.QUEUE"}, {"queue": "RTQ.BILLING_GROUP.BILLQ"}], "data": "x"}"#;
    let (st, v) = g.call("POST", "/v1/messages", Some(("application/json", body)));
    assert_eq!(st, 400, "{v}");
    refused(&v, "list put");
    assert_eq!(g.depth(q), 0);
    assert_eq!(g.depth("SYSTEM.DEAD.LETTER.QUEUE"), 0);

    // A message channel's message for the RTQ queue: the channel's
    // undelivered rule (dead-letter here) puts it on the dead-letter queue
    // with MQDLH Reason 2110 (IBM MQ "MQDLH - Dead-letter header").
    let file = dir.path().join("raw.dat");
    std::fs::write(&file, b"raw over a channel").unwrap();
    let out = Command::new(BIN)
        .args(["send", "--to", &g.listen_addr(), "--channel", "TO.MQGATE"])
        .args(["--rqmname", "MQGATE", "--rname", q, "--persistent"])
        .arg(&file)
        .output()
        .unwrap();
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    assert_eq!(g.depth(q), 0);
    let (st, m) = g.get_ack("SYSTEM.DEAD.LETTER.QUEUE", "");
    assert_eq!(st, 200, "{m}");
    let d = common::data(&m);
    let (dlh, cs) = parse_dlh(&d, ByteOrder::Little).unwrap();
    assert_eq!(dlh.reason, 2110);
    assert_eq!(dlh.dest_q_name.text(cs), q);

    // An RTQ request in its stored form (docs/tuxedo.md: 4-byte big-endian
    // header length, the JSON header, the buffer; Format MQGRTQ) is an RTQ
    // request whichever way it arrives: accepted, and handed out by
    // `rtq get` with its header and buffer.
    let header = serde_json::json!({
        "request_id": "00112233445566778899aabbccddeeff",
        "qspace": "BILLING", "qname": "RAWDATA",
        "product": "BILLAPP", "function": "RAWIN", "target": null,
        "qualifier": 0, "queue_target": null, "schedule_time": "",
        "due_at": 0, "put_time": 0, "buftype": "CARRAY", "client_id": "TEDG1"
    });
    let json = serde_json::to_vec(&header).unwrap();
    let mut stored = (json.len() as u32).to_be_bytes().to_vec();
    stored.extend_from_slice(&json);
    stored.extend_from_slice(b"requeued");
    let b64 = base64::engine::general_purpose::STANDARD.encode(&stored);
    let body = serde_json::json!({"md": {"Format": "MQGRTQ"}, "data_base64": b64});
    let (st, v) = g.call(
        "POST",
        &format!("/v1/queues/{q}/messages"),
        Some(("application/json", &serde_json::to_vec(&body).unwrap())),
    );
    assert_eq!(st, 201, "{v}");
    let out = mqgate(
        &["rtq", "get", "--gateway", gw, "--group", "BILLING_GROUP"]
            .into_iter()
            .chain(["--queue", "BILLQ", "--json"])
            .collect::<Vec<_>>(),
        None,
    );
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let r: Value = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!(
        r["request"]["request_id"],
        "00112233445566778899aabbccddeeff"
    );
    assert_eq!(r["data_base64"], "cmVxdWV1ZWQ="); // base64 of "requeued"
}

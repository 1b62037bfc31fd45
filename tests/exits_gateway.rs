//! The gateway's `exits:` section (docs/exits.md "Registering exits (YAML)")
//! against the built binary: `check-config` validates it, the HTTP queue
//! API runs the queue points (before_put, before_get, after_get), and
//! receiver channels run before_put on each message they put.
//! MQRC values: IBM MQ "API reason codes"; MQMD/MQRFH layouts: IBM MQ "MQMD -
//! Message descriptor", "MQRFH - Rules and formatting header".
#![cfg(unix)]

mod common;

use common::{BIN, Gateway, data};
use std::path::{Path, PathBuf};
use std::process::{Command, Output};
use std::sync::OnceLock;

fn check_config(file: &Path) -> Output {
    Command::new(BIN)
        .arg("check-config")
        .arg(file)
        .output()
        .unwrap()
}

fn write(dir: &Path, name: &str, text: &str) -> PathBuf {
    let p = dir.join(name);
    std::fs::write(&p, text).unwrap();
    p
}

/// tests/c/queue_exits.c compiled once per test process with the system `cc`
/// (.ci/run installs gcc when it is missing).
fn c_exits() -> &'static Path {
    static CELL: OnceLock<PathBuf> = OnceLock::new();
    CELL.get_or_init(|| {
        let manifest = env!("CARGO_MANIFEST_DIR");
        let dir = Path::new(env!("CARGO_TARGET_TMPDIR")).join("gateway-c-exits");
        std::fs::create_dir_all(&dir).unwrap();
        let out = dir.join(format!("libqueue_exits-{}.so", std::process::id()));
        let status = Command::new("cc")
            .args([
                "-shared", "-fPIC", "-O2", "-Wall", "-Wextra", "-Werror", "-I",
            ])
            .arg(format!("{manifest}/exits/include"))
            .arg("-o")
            .arg(&out)
            .arg(format!("{manifest}/tests/c/queue_exits.c"))
            .status()
            .expect("the system C compiler `cc` must be installed");
        assert!(status.success(), "cc failed");
        out
    })
}

#[test]
fn readme_example_is_the_fixture_and_is_accepted() {
    let root = env!("CARGO_MANIFEST_DIR");
    let section = common::readme::section("User exits");
    let example = common::readme::code_blocks(&section, "yaml");
    let fixture = format!("{root}/fixtures/exits.yaml");
    assert_eq!(
        example.first().expect("a YAML example"),
        &std::fs::read_to_string(&fixture).unwrap(),
        "README \"User exits\" example and fixtures/exits.yaml differ"
    );
    let out = check_config(Path::new(&fixture));
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    assert!(String::from_utf8_lossy(&out.stdout).contains(": OK"));
}

#[test]
fn check_config_accepts_global_and_queue_exits() {
    let dir = tempfile::tempdir().unwrap();
    let f = write(
        dir.path(),
        "ok.yaml",
        "queues:\n  - type: local\n    name: APP.IN\nexits:\n  global:\n    before_put:\n      - exit: rfh-properties\n        data: \"rfh.Region=EU\"\n  queues:\n    APP.IN:\n      after_get:\n        - exit: convert\n          data: \"ccsid=500\"\n",
    );
    let out = check_config(&f);
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
}

#[test]
fn check_config_names_the_path_of_a_bad_exit() {
    let dir = tempfile::tempdir().unwrap();
    let f = write(
        dir.path(),
        "bad.yaml",
        // APP.IN is defined (after `exits:`, so the positions below stay):
        // an exit entry for an undefined queue is an error of its own.
        "exits:\n  queues:\n    APP.IN:\n      before_put:\n        - exit: no-such-exit\n        - exit: convert\n          data: \"ccsid=4711\"\n        - exit: \"/nonexistent/libnope.so(Nope)\"\n      receive:\n        - exit: destination-rewrite\nqueues:\n  - type: local\n    name: APP.IN\n",
    );
    let out = check_config(&f);
    assert_eq!(out.status.code(), Some(1));
    let err = String::from_utf8(out.stderr).unwrap();
    let path = f.display().to_string();
    // Positions (line:column of the value): 5:17 `no-such-exit`, 7:17 the
    // convert exit data, 8:17 the library text, 10:9 the `receive` list.
    for expected in [
        format!(
            "{path}:5:17: exits.queues.APP.IN.before_put[0].exit: exit \"no-such-exit\" at before_put: no built-in exit named \"no-such-exit\""
        ),
        format!(
            "{path}:7:17: exits.queues.APP.IN.before_put[1].data: exit \"convert\" at before_put: ccsid=\"4711\" is not valid: CCSID 4711 is not supported"
        ),
        format!(
            "{path}:8:17: exits.queues.APP.IN.before_put[2].exit: exit \"/nonexistent/libnope.so(Nope)\" at before_put: cannot load library"
        ),
        format!(
            "{path}:10:9: exits.queues.APP.IN.receive: a queue has only before_put, before_get and after_get exits"
        ),
    ] {
        assert!(err.contains(&expected), "missing {expected:?} in:\n{err}");
    }
    // `run` refuses it the same way and starts nothing (exit 2).
    let out = Command::new(BIN)
        .args(["run", "--config"])
        .arg(&f)
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&out.stderr).contains("before_put[0].exit"));
    assert!(err.contains("4 error(s)"), "{err}");
}

#[test]
fn before_put_rfh_properties_adds_a_pair_seen_on_get() {
    let dir = tempfile::tempdir().unwrap();
    let g = Gateway::start(
        dir.path(),
        "queues:\n  - type: local\n    name: APP.IN\n  - type: local\n    name: PLAIN\nexits:\n  queues:\n    APP.IN:\n      before_put:\n        - exit: rfh-properties\n          data: \"rfh.Region=EU\"\n",
    );
    let (st, put) = g.put("APP.IN", "format=MQSTR", b"hello");
    assert_eq!(st, 201, "{put}");
    let (st, m) = g.next("APP.IN", "browse=true");
    assert_eq!(st, 200, "{m}");
    // IBM MQ "MQRFH - Rules and formatting header": the MQRFH v1 goes before the body, the MQMD
    // Format becomes MQFMT_RF_HEADER "MQHRF" and the MQRFH's Format the body's.
    assert_eq!(m["md"]["Format"], "MQHRF");
    let body = data(&m);
    assert_eq!(&body[..4], b"RFH ", "StrucId of MQRFH");
    let text = String::from_utf8_lossy(&body);
    assert!(text.contains("Region EU"), "{text}");
    assert!(body.ends_with(b"hello"));
    // A queue without exits is untouched.
    g.put("PLAIN", "format=MQSTR", b"hello");
    let (_, m) = g.next("PLAIN", "browse=true");
    assert_eq!(m["md"]["Format"], "MQSTR");
    assert_eq!(data(&m), b"hello");
}

#[test]
fn global_before_put_convert_changes_the_stored_ccsid() {
    let dir = tempfile::tempdir().unwrap();
    let g = Gateway::start(
        dir.path(),
        "queues:\n  - type: local\n    name: APP.IN\nexits:\n  global:\n    before_put:\n      - exit: convert\n        data: \"ccsid=500\"\n",
    );
    let (st, put) = g.put("APP.IN", "format=MQSTR&ccsid=819", b"ABC");
    assert_eq!(st, 201, "{put}");
    let (_, m) = g.next("APP.IN", "");
    // docs/ccsid.md: 'A' 'B' 'C' are 0xC1 0xC2 0xC3 in EBCDIC CCSID 500.
    assert_eq!(m["md"]["CodedCharSetId"], 500);
    assert_eq!(data(&m), [0xC1, 0xC2, 0xC3]);
}

#[test]
fn after_get_changes_what_is_returned_not_what_is_stored() {
    let dir = tempfile::tempdir().unwrap();
    // Exits are chosen by the name the application uses: VIEW (an alias of
    // APP.Q) has an after_get convert, APP.Q itself has none.
    let g = Gateway::start(
        dir.path(),
        "queues:\n  - type: local\n    name: APP.Q\n  - type: alias\n    name: VIEW\n    target: APP.Q\nexits:\n  queues:\n    VIEW:\n      after_get:\n        - exit: convert\n          data: \"ccsid=1047\"\n",
    );
    let (st, put) = g.put("VIEW", "format=MQSTR&ccsid=819", b"ABC");
    assert_eq!(st, 201, "{put}");
    let (st, m) = g.next("VIEW", "browse=true");
    assert_eq!(st, 200, "{m}");
    // docs/ccsid.md: "ABC" in CCSID 1047 is C1 C2 C3.
    assert_eq!(m["md"]["CodedCharSetId"], 1047);
    assert_eq!(data(&m), [0xC1, 0xC2, 0xC3]);
    let (_, stored) = g.next("APP.Q", "browse=true");
    assert_eq!(stored["md"]["CodedCharSetId"], 819);
    assert_eq!(data(&stored), b"ABC");
    // A destructive get through VIEW is converted too.
    let (_, got) = g.next("VIEW", "");
    assert_eq!(got["md"]["CodedCharSetId"], 1047);
    common::token(&got["lease"]);
}

#[test]
fn before_get_changes_the_get_options() {
    let lib = c_exits().display().to_string();
    let dir = tempfile::tempdir().unwrap();
    let g = Gateway::start(
        dir.path(),
        &format!(
            "queues:\n  - type: local\n    name: ANY\n  - type: local\n    name: EXACT\nexits:\n  queues:\n    ANY:\n      before_get:\n        - exit: \"{lib}(MatchAnyExit)\"\n"
        ),
    );
    let a = "41".repeat(24);
    let b = "42".repeat(24);
    for q in ["ANY", "EXACT"] {
        let (st, r) = g.put(q, &format!("correl_id={a}"), b"first");
        assert_eq!(st, 201, "{r}");
    }
    // Without the exit, MQMO_MATCH_CORREL_ID finds nothing: 2033
    // MQRC_NO_MSG_AVAILABLE (IBM MQ "Constants").
    let (_, r) = g.next("EXACT", &format!("correl_id={b}"));
    assert_eq!(r["mqrc"], 2033, "{r}");
    // The exit cleared the match options: the get takes the message anyway.
    let (st, r) = g.next("ANY", &format!("correl_id={b}"));
    assert_eq!(st, 200, "{r}");
    assert_eq!(r["md"]["CorrelId"], a.to_uppercase());
    assert_eq!(data(&r), b"first");
}

#[test]
fn a_suppressing_before_put_fails_the_put_and_stores_nothing() {
    let lib = c_exits().display().to_string();
    let dir = tempfile::tempdir().unwrap();
    let g = Gateway::start(
        dir.path(),
        &format!(
            "queues:\n  - type: local\n    name: LOCKED\n  - type: local\n    name: NOREASON\nexits:\n  queues:\n    LOCKED:\n      before_put:\n        - exit: \"{lib}(RefusePutExit)\"\n          data: \"2035\"\n    NOREASON:\n      before_put:\n        - exit: \"{lib}(RefusePutExit)\"\n          data: \"0\"\n"
        ),
    );
    let (st, r) = g.put("LOCKED", "", b"secret");
    // The exit's feedback is the reason: 2035 MQRC_NOT_AUTHORIZED (IBM MQ "Constants").
    assert_eq!(r["mqrc"], 2035, "{r}");
    assert!(st >= 400, "{st}");
    assert!(
        r["message"].as_str().unwrap().contains("before_put exit"),
        "{r}"
    );
    assert_eq!(g.depth("LOCKED"), 0);
    // Feedback 0 means 2374 MQRC_API_EXIT_ERROR (exits/include/mqgate_exit.h).
    let (_, r) = g.put("NOREASON", "", b"secret");
    assert_eq!(r["mqrc"], 2374, "{r}");
    assert_eq!(g.depth("NOREASON"), 0);
}

#[test]
fn a_convert_that_cannot_convert_refuses_the_put_and_chains_end_at_shutdown() {
    let lib = c_exits().display().to_string();
    let dir = tempfile::tempdir().unwrap();
    let marks = dir.path().join("term.log");
    let mut g = Gateway::start(
        dir.path(),
        &format!(
            "queues:\n  - type: local\n    name: APP.IN\nexits:\n  queues:\n    APP.IN:\n      before_get:\n        - exit: \"{lib}(TermMarkExit)\"\n          data: \"{}\"\n      before_put:\n        - exit: \"{lib}(TermMarkExit)\"\n          data: \"{}\"\n        - exit: convert\n          data: \"ccsid=500 unmappable=fail on_error=suppress\"\n",
            marks.display(),
            marks.display()
        ),
    );
    // Bytes that are not UTF-8 in a message that says 1208: convert cannot
    // convert it and suppresses it (2119 MQRC_NOT_CONVERTED, docs/ccsid.md).
    let (_, r) = g.put("APP.IN", "format=MQSTR&ccsid=1208", &[0xFF, 0xFE]);
    assert_eq!(r["mqrc"], 2119, "{r}");
    assert_eq!(g.depth("APP.IN"), 0);
    assert!(!marks.exists(), "no MQXR_TERM before shutdown");
    assert!(g.terminate().success());
    // One MQXR_TERM per started exit of APP.IN: before_put and before_get.
    let text = std::fs::read_to_string(&marks).unwrap();
    assert_eq!(text, "TERM APP.IN\nTERM APP.IN\n");
}

/// The calls CountExit logged: (exit_point, exit_reason, object name).
fn counted(log: &Path) -> Vec<(i32, i32, String)> {
    std::fs::read_to_string(log)
        .unwrap_or_default()
        .lines()
        .map(|l| {
            let mut f = l.splitn(3, ' ');
            let point = f.next().unwrap().parse().unwrap();
            let reason = f.next().unwrap().parse().unwrap();
            (point, reason, f.next().unwrap_or("").to_string())
        })
        .collect()
}

/// MQGATE_POINT_* and MQXR_MSG (exits/include/mqgate_exit.h; IBM MQ
/// "MQCXP - Channel exit parameter": ExitReason MQXR_MSG = 13).
const BEFORE_PUT: i32 = 4;
const BEFORE_GET: i32 = 5;
const AFTER_GET: i32 = 6;
const MQXR_MSG: i32 = 13;

fn calls(log: &Path, point: i32, object: &str) -> usize {
    counted(log)
        .iter()
        .filter(|(p, r, o)| *p == point && *r == MQXR_MSG && o == object)
        .count()
}

#[test]
fn queue_points_run_exactly_once_per_message_on_the_queue_api_and_device_pulls() {
    let lib = c_exits().display().to_string();
    let dir = tempfile::tempdir().unwrap();
    let log = dir.path().join("calls.log");
    let count = |q: &str| {
        format!(
            "    {q}:\n      before_put:\n        - exit: \"{lib}(CountExit)\"\n          data: \"{log}\"\n        - exit: rfh-properties\n          data: \"rfh.Seen=yes\"\n      before_get:\n        - exit: \"{lib}(CountExit)\"\n          data: \"{log}\"\n      after_get:\n        - exit: \"{lib}(CountExit)\"\n          data: \"{log}\"\n",
            log = log.display()
        )
    };
    let g = Gateway::start(
        dir.path(),
        &format!(
            "queues:\n  - type: local\n    name: APP.IN\nexits:\n  queues:\n{}{}",
            count("APP.IN"),
            count("DEV0001/INBOX")
        ),
    );
    // The HTTP queue API: one put, one destructive get, one browse.
    let (st, r) = g.put("APP.IN", "", b"one");
    assert_eq!(st, 201, "{r}");
    assert_eq!(calls(&log, BEFORE_PUT, "APP.IN"), 1);
    let (st, r) = g.next("APP.IN", "browse=true");
    assert_eq!(st, 200, "{r}");
    let (st, r) = g.get_ack("APP.IN", "");
    assert_eq!(st, 200, "{r}");
    // The before_put exit's MQRFH v1 pair is in what the consumer got
    // (Format MQHRF, the IBM MQ structure reference (IBM MQ "MQI data types") MQRFH).
    assert_eq!(r["md"]["Format"], "MQHRF");
    let got = data(&r);
    assert_eq!(&got[..4], b"RFH ", "{r}");
    assert!(got.windows(8).any(|w| w == b"Seen yes"), "{r}");
    assert!(got.ends_with(b"one"), "{r}");
    assert_eq!(calls(&log, BEFORE_GET, "APP.IN"), 2, "browse + get");
    assert_eq!(calls(&log, AFTER_GET, "APP.IN"), 2, "browse + get");
    assert_eq!(
        calls(&log, BEFORE_PUT, "APP.IN"),
        1,
        "a get runs no put exit"
    );
    // A device pull: the message reaches DEV0001's queue INBOX by a put
    // naming the device queue manager (the WebSphere MQ Everyplace gateway article resolution), then is pulled.
    let (st, r) = g.put("INBOX", "q_mgr=DEV0001", b"two");
    assert_eq!(st, 201, "{r}");
    let (st, r) = g.call(
        "GET",
        "/v1/devices/DEV0001/queues/INBOX/messages/next",
        None,
    );
    assert_eq!(st, 200, "{r}");
    let lease = common::token(&r["lease"]);
    let (st, a) = g.call(
        "POST",
        &format!("/v1/devices/DEV0001/queues/INBOX/messages/ack/{lease}"),
        Some(("application/octet-stream", b"")),
    );
    assert_eq!(st, 200, "{a}");
    assert_eq!(data(&r), b"two");
    // The put named INBOX at DEV0001: the chains of the queue the
    // application named run (none here); the device queue's own run on pulls.
    assert_eq!(calls(&log, BEFORE_PUT, "DEV0001/INBOX"), 0);
    assert_eq!(calls(&log, BEFORE_GET, "DEV0001/INBOX"), 1);
    assert_eq!(calls(&log, AFTER_GET, "DEV0001/INBOX"), 1);
}

#[test]
fn the_readme_example_gives_the_consumer_ebcdic_1047_with_the_origin_pair() {
    // Exactly fixtures/exits.yaml, which readme_example_is_the_fixture_and_is_accepted
    // shows to be the README's "User exits" example.
    let fixture =
        std::fs::read_to_string(concat!(env!("CARGO_MANIFEST_DIR"), "/fixtures/exits.yaml"))
            .unwrap();
    let dir = tempfile::tempdir().unwrap();
    let g = Gateway::start(dir.path(), &fixture);
    // A plain put as the README describes: no ccsid given, so the MQMD says
    // CodedCharSetId 0, MQCCSI_Q_MGR (IBM MQ "MQMD - CodedCharSetId").
    let (st, r) = g.put("APP.OUT", "format=MQSTR", b"Hello, mqgate!");
    assert_eq!(st, 201, "{r}");
    let (st, m) = g.get_ack("APP.OUT", "");
    assert_eq!(st, 200, "{m}");
    // The after_get convert: the MQMD now says 1047 and describes the
    // MQRFH the global before_put inserted (Format MQHRF).
    assert_eq!(m["md"]["CodedCharSetId"], 1047, "{m}");
    assert_eq!(m["md"]["Format"], "MQHRF", "{m}");
    let got = data(&m);
    // IBM MQ "MQRFH2 - Rules and formatting header 2": StrucId "RFH " at 0, Version 1, StrucLength
    // at 8, Encoding at 12, CodedCharSetId at 16, Format at 20, Flags at 28,
    // NameValueString from 32. Integers in Encoding 546 (little-endian), the
    // convert exit's default. Expected EBCDIC bytes are what
    // `iconv -f UTF-8 -t IBM1047` gives: "RFH " = D9 C6 C8 40, "MQSTR   " =
    // D4 D8 E2 E3 D9 40 40 40, "Origin mqgate" = D6 99 89 87 89 95 40 94 98
    // 87 81 A3 85, "Hello, mqgate!" = C8 85 93 93 96 6B 40 94 98 87 81 A3 85 5A.
    assert_eq!(&got[..4], [0xD9, 0xC6, 0xC8, 0x40], "{m}");
    assert_eq!(&got[4..8], [1, 0, 0, 0]);
    let struc_length = u32::from_le_bytes(got[8..12].try_into().unwrap()) as usize;
    assert_eq!(
        i32::from_le_bytes(got[16..20].try_into().unwrap()),
        1047,
        "the MQRFH's CodedCharSetId describes the converted body"
    );
    assert_eq!(
        &got[20..28],
        [0xD4, 0xD8, 0xE2, 0xE3, 0xD9, 0x40, 0x40, 0x40]
    );
    let nvs = &got[32..struc_length];
    let origin = [
        0xD6, 0x99, 0x89, 0x87, 0x89, 0x95, 0x40, 0x94, 0x98, 0x87, 0x81, 0xA3, 0x85,
    ];
    assert_eq!(&nvs[..origin.len()], origin, "{nvs:02X?}");
    assert!(
        nvs[origin.len()..].iter().all(|&b| b == 0x40),
        "NameValueString padded with EBCDIC blanks: {nvs:02X?}"
    );
    assert_eq!(
        &got[struc_length..],
        [
            0xC8, 0x85, 0x93, 0x93, 0x96, 0x6B, 0x40, 0x94, 0x98, 0x87, 0x81, 0xA3, 0x85, 0x5A
        ]
    );
}

#[test]
fn check_config_refuses_exits_for_channels_and_queues_that_do_not_exist() {
    let dir = tempfile::tempdir().unwrap();
    let f = write(
        dir.path(),
        "undefined.yaml",
        "queues:\n  - type: local\n    name: APP.IN\nexits:\n  channels:\n    TO.NOWHERE:\n      receive:\n        - exit: destination-rewrite\n  queues:\n    APP.IN:\n      before_put:\n        - exit: rfh-properties\n          data: \"rfh.A=1\"\n    NOPE:\n      before_put:\n        - exit: rfh-properties\n          data: \"rfh.A=1\"\n",
    );
    let out = check_config(&f);
    assert_eq!(out.status.code(), Some(1));
    let err = String::from_utf8(out.stderr).unwrap();
    let path = f.display().to_string();
    // At the keys: `    TO.NOWHERE:` line 6, `    NOPE:` line 14, column 5.
    for expected in [
        format!(
            "{path}:6:5: exits.channels.TO.NOWHERE: \"TO.NOWHERE\" is not a channel of this configuration (defined: TO.MQGATE)"
        ),
        format!("{path}:14:5: exits.queues.NOPE: \"NOPE\" is not a queue of this configuration"),
    ] {
        assert!(err.contains(&expected), "missing {expected:?} in:\n{err}");
    }
    // 2085 MQRC_UNKNOWN_OBJECT_NAME (IBM MQ "Constants").
    assert!(err.contains("MQRC 2085"), "{err}");
    assert!(err.contains("2 error(s)"), "{err}");
}

/// A transmission message with Format MQSTR ([`common::xmit`]).
fn xmit(rq: &str, rqm: &str, persistent: bool, body: &[u8]) -> Vec<u8> {
    common::xmit(rq, rqm, persistent, "MQSTR", body)
}

/// `mqgate send` of `msgs` (one file each, in order) to channel `channel`
/// of `g`: persistent messages in confirmed batches, the others on the fast
/// path; it returns once the receiver confirmed the batches and answered
/// its CLOSE, i.e. once every message was applied (docs/channel-protocol.md
/// "Non-persistent fast path").
fn send(g: &Gateway, channel: &str, name: &str, msgs: &[Vec<u8>]) -> Output {
    let dir = g.dir.join(name);
    std::fs::create_dir_all(&dir).unwrap();
    let files: Vec<PathBuf> = msgs
        .iter()
        .enumerate()
        .map(|(i, m)| {
            let f = dir.join(format!("{i:03}.xmit"));
            std::fs::write(&f, m).unwrap();
            f
        })
        .collect();
    Command::new(BIN)
        .arg("send")
        .arg("--to")
        .arg(g.listen_addr())
        .arg("--channel")
        .arg(channel)
        .args(&files)
        .output()
        .unwrap()
}

/// MQGATE_POINT_MESSAGE (exits/include/mqgate_exit.h).
const MESSAGE: i32 = 3;

#[test]
fn before_put_runs_once_per_message_on_a_receiver_channel_after_the_message_exit() {
    let lib = c_exits().display().to_string();
    let dir = tempfile::tempdir().unwrap();
    let log = dir.path().join("calls.log");
    let log = log.display();
    // The message exits log, then turn RemoteQName `APP.IN/MQGATE` into
    // `APP.IN` at `MQGATE` (destination-rewrite, docs/exits.md); APP.IN's
    // before_put chain logs, then adds the MQRFH pair Seen=yes.
    let g = Gateway::start(
        dir.path(),
        &format!(
            "queue_manager:\n  name: MQGATE\nqueues:\n  - type: local\n    name: APP.IN\nchannels:\n  - type: receiver\n    name: EXIT.CHL\n    undelivered: retry\n    retry:\n      first_interval_ms: 20\n      attempts: 1\nexits:\n  channels:\n    EXIT.CHL:\n      message:\n        - exit: \"{lib}(CountExit)\"\n          data: \"{log}\"\n        - exit: destination-rewrite\n          data: separator=/\n  queues:\n    APP.IN:\n      before_put:\n        - exit: \"{lib}(CountExit)\"\n          data: \"{log}\"\n        - exit: rfh-properties\n          data: \"rfh.Seen=yes\"\n"
        ),
    );
    // Three persistent messages (one batch) and two non-persistent ones
    // (the fast path, outside any unit of work).
    let msgs: Vec<Vec<u8>> = [
        ("p1", true),
        ("p2", true),
        ("p3", true),
        ("n1", false),
        ("n2", false),
    ]
    .iter()
    .map(|(body, persistent)| xmit("APP.IN/MQGATE", "ELSEWHERE", *persistent, body.as_bytes()))
    .collect();
    let out = send(&g, "EXIT.CHL", "msgs", &msgs);
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let log = dir.path().join("calls.log");
    // Exactly once per message: 5 messages sent, 5 before_put calls on
    // APP.IN (the chain of the name the message exit left, so before_put
    // ran after it; `APP.IN/MQGATE` has no chain).
    assert_eq!(calls(&log, MESSAGE, "EXIT.CHL"), 5);
    assert_eq!(calls(&log, BEFORE_PUT, "APP.IN"), 5);
    // And in that order for each message: the message exit, then before_put
    // (the applier handles one message at a time).
    let order: Vec<i32> = counted(&log)
        .into_iter()
        .filter(|(_, r, _)| *r == MQXR_MSG)
        .map(|(p, _, _)| p)
        .collect();
    assert_eq!(order, [MESSAGE, BEFORE_PUT].repeat(5), "{order:?}");
    // The consumer sees what before_put left: the MQRFH v1 with Seen=yes in
    // front of the data (Format MQHRF; IBM MQ "MQRFH - Rules and formatting
    // header"), and the context the sender put (PutApplName of the MQMD in
    // the MQXQH above), passed with MQPMO_PASS_ALL_CONTEXT.
    let mut bodies = Vec::new();
    for _ in 0..5 {
        let (st, r) = g.get_ack("APP.IN", "");
        assert_eq!(st, 200, "{r}");
        assert_eq!(r["md"]["Format"], "MQHRF", "{r}");
        assert_eq!(r["md"]["PutApplName"], "test.sender", "{r}");
        let got = data(&r);
        assert_eq!(&got[..4], b"RFH ", "{r}");
        assert!(got.windows(8).any(|w| w == b"Seen yes"), "{r}");
        bodies.push(String::from_utf8_lossy(&got[got.len() - 2..]).into_owned());
    }
    bodies.sort();
    assert_eq!(bodies, ["n1", "n2", "p1", "p2", "p3"]);
    assert_eq!(
        g.depth("SYSTEM.DEAD.LETTER.QUEUE"),
        0,
        "nothing dead-lettered"
    );
    assert_eq!(
        calls(&log, BEFORE_PUT, "APP.IN"),
        5,
        "the consumer's gets ran no put exit"
    );
}

#[test]
fn a_before_put_refusal_on_a_receiver_channel_dead_letters_the_message_and_the_channel_goes_on() {
    use mqgate_codecs::mq::ByteOrder;
    use mqgate_codecs::mq::dlh::parse_dlh;
    let lib = c_exits().display().to_string();
    let dir = tempfile::tempdir().unwrap();
    let log = dir.path().join("calls.log");
    // RefusePutExit answers MQXCC_SUPPRESS_FUNCTION with its exit data as
    // the reason (tests/c/queue_exits.c): 2035 MQRC_NOT_AUTHORIZED. The
    // channel's rule is `retry`: were the refusal treated as an undelivered
    // message, the batch would be retried once and the channel stopped.
    let g = Gateway::start(
        dir.path(),
        &format!(
            "queue_manager:\n  name: MQGATE\nqueues:\n  - type: local\n    name: LOCKED\n  - type: local\n    name: APP.OK\nchannels:\n  - type: receiver\n    name: EXIT.CHL\n    undelivered: retry\n    retry:\n      first_interval_ms: 20\n      attempts: 1\nexits:\n  queues:\n    LOCKED:\n      before_put:\n        - exit: \"{lib}(CountExit)\"\n          data: \"{}\"\n        - exit: \"{lib}(RefusePutExit)\"\n          data: \"2035\"\n",
            log.display()
        ),
    );
    // One batch: the refused message first, one behind it.
    let out = send(
        &g,
        "EXIT.CHL",
        "first",
        &[
            xmit("LOCKED", "MQGATE", true, b"refused"),
            xmit("APP.OK", "MQGATE", true, b"behind-1"),
        ],
    );
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    // The channel was not stopped: a second connection is accepted (a
    // stopped channel refuses it with 2279, docs/channel-protocol.md
    // "Handshake"). Its fast-path message to LOCKED is refused too.
    assert_ne!(status_of(&g, "EXIT.CHL")["state"], "stopped");
    let out = send(
        &g,
        "EXIT.CHL",
        "second",
        &[
            xmit("LOCKED", "MQGATE", false, b"refused-fast"),
            xmit("APP.OK", "MQGATE", true, b"behind-2"),
        ],
    );
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    // Both refused messages are on the dead-letter queue, unchanged, behind
    // an MQDLH (IBM MQ "MQDLH - Dead-letter header": 172 bytes, integers in
    // the MQMD's Encoding 546, little-endian) with the exit's reason 2035,
    // the MQXQH's destination, PutApplType 7 MQAT_QMGR and the channel name
    // as PutApplName (docs/channel-protocol.md "Applying one message").
    for body in [&b"refused"[..], b"refused-fast"] {
        let (st, v) = g.get_ack("SYSTEM.DEAD.LETTER.QUEUE", "");
        assert_eq!(st, 200, "{v}");
        assert_eq!(v["md"]["Format"], "MQDEAD", "{v}");
        let d = data(&v);
        let (dlh, cs) = parse_dlh(&d, ByteOrder::Little).unwrap();
        assert_eq!(dlh.reason, 2035);
        assert_eq!(dlh.dest_q_name.text(cs), "LOCKED");
        assert_eq!(dlh.dest_q_mgr_name.text(cs), "MQGATE");
        assert_eq!(dlh.put_appl_name.text(cs), "EXIT.CHL");
        assert_eq!(dlh.put_appl_type, 7);
        assert_eq!(dlh.format.0, *b"MQSTR   ");
        assert_eq!(&d[172..], body);
    }
    assert_eq!(g.depth("SYSTEM.DEAD.LETTER.QUEUE"), 0);
    assert_eq!(g.depth("LOCKED"), 0, "a refused put stores nothing");
    // The messages behind the refused ones were delivered.
    for body in ["behind-1", "behind-2"] {
        let (st, r) = g.get_ack("APP.OK", "");
        assert_eq!(st, 200, "{r}");
        assert_eq!(data(&r), body.as_bytes());
    }
    // before_put ran once for each refused message: not again for a retry.
    assert_eq!(calls(&log, BEFORE_PUT, "LOCKED"), 2);
}

/// The channel `name` in `GET /v1/status`.
fn status_of(g: &Gateway, name: &str) -> serde_json::Value {
    let (_, v) = g.call("GET", "/v1/status", None);
    v["channels"]
        .as_array()
        .unwrap()
        .iter()
        .find(|c| c["name"] == name)
        .cloned()
        .unwrap_or_else(|| panic!("channel {name} not in status: {v}"))
}

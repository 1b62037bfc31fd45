//! Conversion on get (MQGMO_CONVERT) over HTTP against the built binary: the
//! queue get and the device pull with `convert=true&ccsid=N&encoding=N`
//! (docs/http-api.md), and the `convert` after_get exit reporting its warning
//! the same way. Expected bytes come from glibc iconv run by the test; the
//! completion codes and reasons from IBM MQ "Conversion processing" and the
//! reason code pages named at each assertion.

mod common;

use common::{BIN, Gateway, data, token};
use serde_json::Value;
use std::io::Write;
use std::process::{Command, Stdio};

const CONFIG: &str = "
queue_manager:
  name: QMTEST
queues:
  - type: local
    name: APP.IN
  - type: local
    name: APP.EXIT
devices:
  queue_managers: [\"DEV*\"]
exits:
  queues:
    APP.EXIT:
      after_get:
        - exit: convert
          data: \"ccsid=500 encoding=785\"
";

/// A prerequisite is missing: outside CI the test says SKIP and passes; in
/// CI (`CI` set, as `.ci/run` runs) it fails, since CI must have everything.
fn missing(what: &str) {
    assert!(
        std::env::var_os("CI").is_none(),
        "{what}, and CI is set: .ci/run installs every tool"
    );
    println!("SKIP: {what}");
}

/// `text` converted by glibc iconv (the oracle), or `None` without iconv.
/// `mqgate get --queue APP.IN --ccsid 500 [extra]` against `base`; the run
/// must succeed (exit 0), its stderr shown otherwise.
fn get_ccsid_500(base: &str, extra: &[&str]) -> std::process::Output {
    let mut args = vec![
        "get",
        "--queue",
        "APP.IN",
        "--gateway",
        base,
        "--ccsid",
        "500",
    ];
    args.extend_from_slice(extra);
    let out = Command::new(BIN).args(&args).output().unwrap();
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    out
}

fn iconv(text: &[u8], from: &str, to: &str) -> Option<Vec<u8>> {
    let Ok(mut child) = Command::new("iconv")
        .args(["-f", from, "-t", to])
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .spawn()
    else {
        missing("iconv is not installed");
        return None;
    };
    if let Some(mut stdin) = child.stdin.take() {
        // A closed pipe would show up as a wrong answer below.
        let _ = stdin.write_all(text);
    }
    let out = child.wait_with_output().unwrap();
    assert!(out.status.success(), "iconv -f {from} -t {to}");
    Some(out.stdout)
}

fn start() -> (tempfile::TempDir, Gateway) {
    let dir = tempfile::tempdir().unwrap();
    let g = Gateway::start(dir.path(), CONFIG);
    (dir, g)
}

/// The completion of a get's answer: (comp_code, reason_code, warning's mqrc).
fn completion(v: &Value) -> (i64, i64, Option<i64>) {
    (
        v["comp_code"].as_i64().unwrap_or(-1),
        v["reason_code"].as_i64().unwrap_or(-1),
        v["warning"]["mqrc"].as_i64(),
    )
}

#[test]
fn a_queue_get_converts_to_the_ccsid_and_encoding_asked_for() {
    let Some(want) = iconv(b"Hello, World", "ISO-8859-1", "IBM500") else {
        return;
    };
    let (_d, g) = start();
    let (st, p) = g.put("APP.IN", "format=MQSTR&ccsid=819", b"Hello, World");
    assert_eq!(st, 201, "{p}");
    // Browse with conversion: the copy is converted, the stored message is not.
    let (st, b) = g.next("APP.IN", "browse=true&convert=true&ccsid=500&encoding=785");
    assert_eq!(st, 200, "{b}");
    assert_eq!(data(&b), want);
    // IBM MQ "Conversion processing": the MsgDesc shows the converted data's
    // CodedCharSetId and Encoding; the call completes with MQCC_OK, MQRC_NONE.
    assert_eq!(
        (
            b["md"]["CodedCharSetId"].as_i64(),
            b["md"]["Encoding"].as_i64()
        ),
        (Some(500), Some(785))
    );
    assert_eq!(completion(&b), (0, 0, None));
    // Without convert the same message comes as it was put.
    let (_, plain) = g.next("APP.IN", "browse=true");
    assert_eq!(data(&plain), b"Hello, World");
    assert_eq!(plain["md"]["CodedCharSetId"], 819);
    assert_eq!(completion(&plain), (0, 0, None));
    // A destructive get under a lease, converted to UTF-16BE (1200, Encoding 273).
    let Some(want16) = iconv(b"Hello, World", "ISO-8859-1", "UTF-16BE") else {
        return;
    };
    let (st, m) = g.get_ack("APP.IN", "convert=true&ccsid=1200&encoding=273");
    assert_eq!(st, 200, "{m}");
    assert_eq!(data(&m), want16);
    assert_eq!(m["md"]["CodedCharSetId"], 1200);
    assert_eq!(g.depth("APP.IN"), 0);
}

#[test]
fn what_cannot_be_converted_comes_back_unchanged_with_a_warning() {
    let (_d, g) = start();
    // Format MQFMT_NONE (no format given): IBM MQ "Conversion processing" returns it
    // unconverted with MQCC_WARNING and 2110 MQRC_FORMAT_ERROR, the MsgDesc keeping
    // the message's CodedCharSetId and Encoding.
    let binary = [0x1F, 0x8B, 0x08, 0x00, 0xFF];
    assert_eq!(g.put("APP.IN", "ccsid=819", &binary).0, 201);
    let (st, m) = g.next("APP.IN", "browse=true&convert=true&ccsid=500");
    assert_eq!(st, 200, "{m}");
    assert_eq!(data(&m), binary);
    assert_eq!(completion(&m), (1, 2110, Some(2110)));
    assert_eq!(m["warning"]["reason"], "MQRC_FORMAT_ERROR");
    assert_eq!(
        (
            m["md"]["CodedCharSetId"].as_i64(),
            m["md"]["Encoding"].as_i64()
        ),
        (Some(819), Some(546))
    );
    let (_, m) = g.get_ack("APP.IN", "");
    assert_eq!(data(&m), binary);
    // A target CCSID mqgate has no table for: 2115 MQRC_TARGET_CCSID_ERROR (IBM MQ
    // "2115 (0843) (RC2115)": data returned unconverted, MQCC_WARNING).
    assert_eq!(g.put("APP.IN", "format=MQSTR&ccsid=819", b"abc").0, 201);
    let (st, m) = g.next("APP.IN", "browse=true&convert=true&ccsid=4711");
    assert_eq!(st, 200, "{m}");
    assert_eq!(
        (data(&m), completion(&m)),
        (b"abc".to_vec(), (1, 2115, Some(2115)))
    );
    assert_eq!(m["md"]["CodedCharSetId"], 819);
    // An unrecognised target integer encoding (3): 2116 MQRC_TARGET_INTEGER_ENC_ERROR.
    let (_, m) = g.next("APP.IN", "browse=true&convert=true&ccsid=500&encoding=547");
    assert_eq!(completion(&m), (1, 2116, Some(2116)));
    // ccsid without convert=true is a request error (docs/http-api.md): 400 / 2046.
    let (st, e) = g.next("APP.IN", "browse=true&ccsid=500");
    assert_eq!((st, e["mqrc"].as_i64()), (400, Some(2046)), "{e}");
}

#[test]
fn a_device_pull_converts_as_the_queue_get_does() {
    let Some(want) = iconv(b"to the device", "ISO-8859-1", "IBM037") else {
        return;
    };
    let (_d, g) = start();
    let (st, p) = g.put(
        "INBOX",
        "q_mgr=DEV1&format=MQSTR&ccsid=819",
        b"to the device",
    );
    assert_eq!(st, 201, "{p}");
    let (st, m) = g.call(
        "GET",
        "/v1/devices/DEV1/queues/INBOX/messages/next?convert=true&ccsid=37&encoding=273",
        None,
    );
    assert_eq!(st, 200, "{m}");
    assert_eq!(data(&m), want);
    assert_eq!(
        (
            m["md"]["CodedCharSetId"].as_i64(),
            m["md"]["Encoding"].as_i64()
        ),
        (Some(37), Some(273))
    );
    assert_eq!(completion(&m), (0, 0, None));
    let lease = token(&m["lease"]).to_string();
    let (st, a) = g.call(
        "POST",
        &format!("/v1/devices/DEV1/queues/INBOX/messages/ack/{lease}"),
        Some(("application/octet-stream", b"")),
    );
    assert_eq!(st, 200, "{a}");
    // encoding without convert=true: 400 / 2046, nothing taken.
    let (st, e) = g.call(
        "GET",
        "/v1/devices/DEV1/queues/INBOX/messages/next?encoding=273",
        None,
    );
    assert_eq!((st, e["mqrc"].as_i64()), (400, Some(2046)), "{e}");
}

#[test]
fn the_convert_exit_reports_its_warning_in_the_answer() {
    let Some(want) = iconv(b"Hello, World", "ISO-8859-1", "IBM500") else {
        return;
    };
    let (_d, g) = start();
    // The after_get exit `convert` (ccsid=500 encoding=785) converts an MQSTR message:
    // MQCC_OK, the MD shows 500 / 785.
    assert_eq!(
        g.put("APP.EXIT", "format=MQSTR&ccsid=819", b"Hello, World")
            .0,
        201
    );
    let (st, m) = g.get_ack("APP.EXIT", "");
    assert_eq!(st, 200, "{m}");
    assert_eq!(data(&m), want);
    assert_eq!(
        (
            m["md"]["CodedCharSetId"].as_i64(),
            m["md"]["Encoding"].as_i64()
        ),
        (Some(500), Some(785))
    );
    assert_eq!(completion(&m), (0, 0, None));
    // A message it cannot convert (MQFMT_NONE): with on_error=pass the consumer gets
    // the message as it was, MQCC_WARNING and 2110, as MQGET with MQGMO_CONVERT
    // answers (IBM MQ "Conversion processing"), not only a line in the log.
    assert_eq!(g.put("APP.EXIT", "ccsid=819", b"\x00\x01bin").0, 201);
    let (st, m) = g.get_ack("APP.EXIT", "");
    assert_eq!(st, 200, "{m}");
    assert_eq!(data(&m), b"\x00\x01bin");
    assert_eq!(completion(&m), (1, 2110, Some(2110)));
    assert_eq!(m["md"]["CodedCharSetId"], 819);
}

#[test]
fn mqgate_get_asks_for_conversion_and_shows_the_warning() {
    let Some(want) = iconv(b"Hello, World", "ISO-8859-1", "IBM500") else {
        return;
    };
    let (_d, g) = start();
    assert_eq!(
        g.put("APP.IN", "format=MQSTR&ccsid=819", b"Hello, World").0,
        201
    );
    let out = get_ccsid_500(&g.base, &[]);
    assert_eq!(out.stdout, want);
    // MQFMT_NONE: the data as it was, exit 0 (MQCC_WARNING is a got message), the
    // warning on stderr and in the JSON.
    assert_eq!(g.put("APP.IN", "ccsid=819", b"\x00raw").0, 201);
    let out = get_ccsid_500(&g.base, &["--json"]);
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(err.contains("2110 MQRC_FORMAT_ERROR"), "{err}");
    let v: Value = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!(data(&v), b"\x00raw");
    assert_eq!(v["warning"]["mqrc"], 2110);
}

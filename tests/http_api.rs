//! End-to-end tests of the HTTP API against the built binary. Expected MQRC values come
//! from IBM MQ "API reason codes"; HTTP statuses from docs/http-api.md.

mod common;

use common::{Gateway, data};
use std::time::{Duration, Instant};

const CONFIG: &str = "
queue_manager:
  name: QMTEST
  max_msg_length: 4096
http:
  lease_ms: 1000
  max_wait_ms: 10000
queues:
  - type: local
    name: APP.IN
  - type: local
    name: SMALL
    max_depth: 2
    max_msg_length: 10
  - type: local
    name: CLOSED
    put_inhibited: true
  - type: local
    name: DEV/1%A
";

fn start() -> (tempfile::TempDir, Gateway) {
    let dir = tempfile::tempdir().unwrap();
    let g = Gateway::start(dir.path(), CONFIG);
    (dir, g)
}

#[test]
fn put_browse_get_and_ack() {
    let (_d, g) = start();
    let (st, put1) = g.put("APP.IN", "format=MQSTR&persistent=true", b"first");
    assert_eq!(st, 201, "{put1}");
    // Queue-manager generated MsgId = "AMQ " + qmgr name padded to 12 + 8 bytes (the form
    // real queue managers use).
    let msg_id = put1["msg_id"].as_str().unwrap();
    assert!(
        msg_id.starts_with(&hex::encode_upper(b"AMQ QMTEST      ")),
        "{msg_id}"
    );
    assert_eq!(put1["persistent"], true);
    g.put("APP.IN", "", b"second");

    let (st, b1) = g.next("APP.IN", "browse=true");
    assert_eq!(st, 200);
    assert_eq!(data(&b1), b"first");
    assert_eq!(b1["md"]["MsgId"], msg_id);
    assert_eq!(b1["md"]["Format"], "MQSTR");
    assert_eq!(b1["md"]["Persistence"], 1);
    assert!(b1.get("lease").is_none());
    let cursor = b1["cursor"].as_str().unwrap();
    let (_, b2) = g.next("APP.IN", &format!("browse=true&cursor={cursor}"));
    assert_eq!(data(&b2), b"second");
    let (st, end) = g.next(
        "APP.IN",
        &format!("browse=true&cursor={}", b2["cursor"].as_str().unwrap()),
    );
    assert_eq!((st, end["mqrc"].as_i64()), (404, Some(2033)));
    assert_eq!(g.depth("APP.IN"), 2);

    let (st, m) = g.get_ack("APP.IN", "");
    assert_eq!((st, data(&m)), (200, b"first".to_vec()));
    assert_eq!(g.depth("APP.IN"), 1);
    // An acknowledged lease cannot be acknowledged again (2003 MQRC_BACKED_OUT, 409).
    let (st, e) = g.ack("APP.IN", &m["lease"]);
    assert_eq!((st, e["mqrc"].as_i64()), (409, Some(2003)));
    assert_eq!(e["reason"], "MQRC_BACKED_OUT");
    // MQPMO_NEW_CORREL_ID: a queue-manager generated id as CorrelId.
    let (_, p) = g.put("APP.IN", "new_correl_id=true", b"x");
    assert!(
        p["correl_id"].as_str().unwrap().starts_with("414D5120"),
        "{p}"
    );
    // Names with `/` and `%` (valid MQ name characters) travel percent-encoded.
    assert_eq!(g.put("DEV%2F1%25A", "", b"slash").0, 201);
    assert_eq!(data(&g.get_ack("DEV%2F1%25A", "").1), b"slash");
}

#[test]
fn priority_order_then_fifo() {
    let (_d, g) = start();
    for (p, d) in [
        (2, "p2-a"),
        (8, "p8-a"),
        (2, "p2-b"),
        (8, "p8-b"),
        (5, "p5"),
    ] {
        assert_eq!(
            g.put("APP.IN", &format!("priority={p}"), d.as_bytes()).0,
            201
        );
    }
    let got: Vec<String> = (0..5)
        .map(|_| String::from_utf8(data(&g.get_ack("APP.IN", "").1)).unwrap())
        .collect();
    assert_eq!(got, ["p8-a", "p8-b", "p5", "p2-a", "p2-b"]);
}

#[test]
fn match_by_correl_id() {
    let (_d, g) = start();
    let c1 = "C1".repeat(24);
    let c2 = "C2".repeat(24);
    g.put("APP.IN", &format!("correl_id={c1}"), b"one");
    g.put("APP.IN", &format!("correl_id={c2}"), b"two");
    let (st, m) = g.get_ack("APP.IN", &format!("correl_id={c2}"));
    assert_eq!((st, data(&m)), (200, b"two".to_vec()));
    assert_eq!(m["md"]["CorrelId"], c2);
    let (st, e) = g.next("APP.IN", &format!("correl_id={c2}"));
    assert_eq!((st, e["mqrc"].as_i64()), (404, Some(2033)));
    assert_eq!(data(&g.get_ack("APP.IN", "").1), b"one");
}

#[test]
fn a_waiting_get_wakes_on_put_and_times_out_with_2033() {
    let (_d, g) = start();
    let base = g.base.clone();
    let waiter = std::thread::spawn(move || {
        let t = Instant::now();
        let r = ureq::get(&format!(
            "{base}/v1/queues/APP.IN/messages/next?wait_ms=8000"
        ))
        .call()
        .unwrap();
        let v: serde_json::Value = r.into_json().unwrap();
        (v, t.elapsed())
    });
    std::thread::sleep(Duration::from_millis(300));
    g.put("APP.IN", "", b"wake up");
    let (v, waited) = waiter.join().unwrap();
    assert_eq!(data(&v), b"wake up");
    // The message only exists after the put, so getting it proves the get waited;
    // returning well before wait_ms=8000 proves the put woke it (no polling timeout).
    assert!(waited < Duration::from_secs(5), "{waited:?}");
    g.ack("APP.IN", &v["lease"]);

    let t = Instant::now();
    let (st, e) = g.next("APP.IN", "wait_ms=300");
    assert!(t.elapsed() >= Duration::from_millis(300));
    assert_eq!((st, e["mqrc"].as_i64()), (404, Some(2033)));
    assert_eq!(e["reason"], "MQRC_NO_MSG_AVAILABLE");
    // Above http.max_wait_ms: 2090 MQRC_WAIT_INTERVAL_ERROR.
    let (st, e) = g.next("APP.IN", "wait_ms=20000");
    assert_eq!((st, e["mqrc"].as_i64()), (400, Some(2090)));
}

#[test]
fn unit_of_work_commit_and_backout() {
    let (_d, g) = start();
    let (st, u) = g.call("POST", "/v1/uow", None);
    assert_eq!(st, 201);
    let uow = common::token(&u["uow"]).to_string();
    g.put("APP.IN", &format!("uow={uow}&persistent=true"), b"a");
    g.put("APP.IN", &format!("uow={uow}"), b"b");
    // Not visible before commit.
    assert_eq!(g.next("APP.IN", "").1["mqrc"], 2033);
    assert_eq!(
        g.call("POST", &format!("/v1/uow/{uow}/commit"), None).0,
        200
    );
    assert_eq!(g.depth("APP.IN"), 2);

    let (_, u) = g.call("POST", "/v1/uow", None);
    let uow = common::token(&u["uow"]).to_string();
    let (st, m) = g.next("APP.IN", &format!("uow={uow}"));
    assert_eq!((st, data(&m)), (200, b"a".to_vec()));
    g.put("APP.IN", &format!("uow={uow}"), b"discarded");
    assert_eq!(
        g.call("POST", &format!("/v1/uow/{uow}/backout"), None).0,
        200
    );
    // The got message is back first, BackoutCount 1; the put is gone.
    let (_, m) = g.get_ack("APP.IN", "");
    assert_eq!(
        (data(&m), m["md"]["BackoutCount"].as_i64()),
        (b"a".to_vec(), Some(1))
    );
    assert_eq!(data(&g.get_ack("APP.IN", "").1), b"b");
    assert_eq!(g.depth("APP.IN"), 0);
    let (st, e) = g.call("POST", &format!("/v1/uow/{uow}/commit"), None);
    assert_eq!((st, e["mqrc"].as_i64()), (409, Some(2003)));
}

#[test]
fn maxdepth_maxmsgl_and_put_inhibited() {
    let (_d, g) = start();
    // IBM MQ "API reason codes": 2030 MSG_TOO_BIG_FOR_Q, 2053 Q_FULL, 2051 PUT_INHIBITED.
    let (st, e) = g.put("SMALL", "", b"01234567890");
    assert_eq!((st, e["mqrc"].as_i64()), (413, Some(2030)));
    assert_eq!(e["reason"], "MQRC_MSG_TOO_BIG_FOR_Q");
    assert_eq!(g.put("SMALL", "", b"0123456789").0, 201);
    assert_eq!(g.put("SMALL", "", b"x").0, 201);
    let (st, e) = g.put("SMALL", "", b"y");
    assert_eq!((st, e["mqrc"].as_i64()), (503, Some(2053)));
    assert_eq!(e["reason"], "MQRC_Q_FULL");
    let (st, e) = g.put("CLOSED", "", b"y");
    assert_eq!((st, e["mqrc"].as_i64()), (403, Some(2051)));
    assert_eq!(g.depth("SMALL"), 2);
    assert_eq!(g.depth("CLOSED"), 0);
}

#[test]
fn an_unacknowledged_lease_expires_and_the_message_returns() {
    let (_d, g) = start();
    g.put("APP.IN", "persistent=true", b"leased");
    let (st, m) = g.next("APP.IN", "");
    assert_eq!(st, 200);
    assert_eq!(m["lease_expires_in_ms"], 1000);
    assert_eq!(m["md"]["BackoutCount"], 0);
    // While leased, nobody else sees it.
    assert_eq!(g.next("APP.IN", "").1["mqrc"], 2033);
    // After http.lease_ms (1000) it is back, BackoutCount + 1.
    let (st, again) = g.next("APP.IN", "wait_ms=5000");
    assert_eq!(st, 200);
    assert_eq!(data(&again), b"leased");
    assert_eq!(again["md"]["BackoutCount"], 1);
    assert_eq!(again["md"]["MsgId"], m["md"]["MsgId"]);
    // The expired lease cannot be acknowledged.
    let (st, e) = g.ack("APP.IN", &m["lease"]);
    assert_eq!((st, e["mqrc"].as_i64()), (409, Some(2003)));
    assert_eq!(g.ack("APP.IN", &again["lease"]).0, 200);
    assert_eq!(g.depth("APP.IN"), 0);
}

#[test]
fn bad_requests_get_the_documented_error_and_store_nothing() {
    let (_d, g) = start();
    let (st, e) = g.put("NO.SUCH.Q", "", b"x");
    assert_eq!((st, e["mqrc"].as_i64()), (404, Some(2085)));
    assert_eq!(e["reason"], "MQRC_UNKNOWN_OBJECT_NAME");
    assert!(e["message"].as_str().unwrap().contains("NO.SUCH.Q"));
    // Bad hex ids: 2207 MQRC_CORREL_ID_ERROR / 2206 MQRC_MSG_ID_ERROR.
    let (st, e) = g.put("APP.IN", "correl_id=XYZ", b"x");
    assert_eq!((st, e["mqrc"].as_i64()), (400, Some(2207)));
    let (st, e) = g.next("APP.IN", &format!("msg_id={}", "G".repeat(48)));
    assert_eq!((st, e["mqrc"].as_i64()), (400, Some(2206)));
    // A priority or expiry that is no MQLONG is 2050 MQRC_PRIORITY_ERROR /
    // 2013 MQRC_EXPIRY_ERROR (IBM MQ "API reason codes"; docs/http-api.md
    // "Errors"), not a query syntax error (2046 "number too large").
    let (st, e) = g.put("APP.IN", "priority=99999999999", b"x");
    assert_mq_error(st, &e, 400, 2050, "MQRC_PRIORITY_ERROR");
    assert!(
        e["message"].as_str().unwrap().contains("\"99999999999\""),
        "{e}"
    );
    let (st, e) = g.put("APP.IN", "priority=high", b"x");
    assert_mq_error(st, &e, 400, 2050, "MQRC_PRIORITY_ERROR");
    let (st, e) = g.put("APP.IN", "expiry=99999999999", b"x");
    assert_mq_error(st, &e, 400, 2013, "MQRC_EXPIRY_ERROR");
    assert_eq!(g.depth("APP.IN"), 0);
    // Larger than the queue manager's MAXMSGL 4096: 2031 MQRC_MSG_TOO_BIG_FOR_Q_MGR.
    let (st, e) = g.put("APP.IN", "", &vec![b'x'; 4097]);
    assert_eq!((st, e["mqrc"].as_i64()), (413, Some(2031)));
    let (st, e) = g.put("APP.IN", "", &vec![b'x'; 100_000]);
    assert_eq!((st, e["mqrc"].as_i64()), (413, Some(2031)));
    // Bad JSON: 2004 MQRC_BUFFER_ERROR; bad MD field: 2026 MQRC_MD_ERROR.
    let json = |b: &str| {
        g.call(
            "POST",
            "/v1/queues/APP.IN/messages",
            Some(("application/json", b.as_bytes())),
        )
    };
    let (st, e) = json(r#"{"md": {"Priority": 1}, "data": "x""#);
    assert_eq!((st, e["mqrc"].as_i64()), (400, Some(2004)));
    let (st, e) = json(r#"{"md": {"Priority": "high"}, "data": "x"}"#);
    assert_eq!((st, e["mqrc"].as_i64()), (400, Some(2026)));
    assert!(e["message"].as_str().unwrap().contains("md.Priority"));
    // Unknown query parameter: 2046 MQRC_OPTIONS_ERROR.
    let (st, e) = g.put("APP.IN", "colour=blue", b"x");
    assert_eq!((st, e["mqrc"].as_i64()), (400, Some(2046)));
    // Report bits no MQRO_* option has: 2061 MQRC_REPORT_OPTIONS_ERROR (IBM
    // MQ "MQMD - Report"; IBM MQ "Constants" MQRO). -1 has them all,
    // 0x10000000 (268435456) is in MQRO_REJECT_UNSUP_MASK 0x101C0000,
    // 0x80000000 is bit 31 alone.
    for report in ["-1", "268435456", "-2147483648"] {
        let (st, e) = g.put("APP.IN", &format!("report={report}"), b"x");
        assert_eq!((st, e["mqrc"].as_i64()), (400, Some(2061)), "{report}: {e}");
        assert_eq!(e["reason"], "MQRC_REPORT_OPTIONS_ERROR");
        let m = e["message"].as_str().unwrap();
        assert!(m.starts_with(&format!("report {report}: ")), "{e}");
    }
    // In a JSON body the field is named by its path, md.Report.
    let (st, e) = json(r#"{"md": {"Report": -1}, "data": "x"}"#);
    assert_eq!((st, e["mqrc"].as_i64()), (400, Some(2061)), "{e}");
    let m = e["message"].as_str().unwrap();
    assert!(m.starts_with("md.Report -1: "), "{e}");
    assert_eq!(g.depth("APP.IN"), 0);
    // Every defined option together is accepted: MQRO_EXCEPTION_WITH_FULL_DATA
    // 0x07000000 | MQRO_EXPIRATION_WITH_FULL_DATA 0x00E00000 | MQRO_DISCARD_MSG
    // 0x08000000 | MQRO_COD_WITH_FULL_DATA 0x3800 | MQRO_COA_WITH_FULL_DATA
    // 0x700 | MQRO_PASS_DISCARD_AND_EXPIRY 0x4000 | PASS_MSG_ID 0x80 |
    // PASS_CORREL_ID 0x40 | ACTIVITY 0x4 | NAN 0x2 | PAN 0x1 = 0x0FE07FC7.
    let (st, e) = g.put("APP.IN", &format!("report={}", 0x0FE0_7FC7), b"x");
    assert_eq!(st, 201, "{e}");
    let (_, m) = g.get_ack("APP.IN", "");
    assert_eq!(m["md"]["Report"], 0x0FE0_7FC7);
    // A good JSON put works and keeps the MD fields it names.
    let (st, _) =
        json(r#"{"md": {"Priority": 7, "Format": "MQSTR", "ReplyToQ": "REPLY.Q"}, "data": "hi"}"#);
    assert_eq!(st, 201);
    let (_, m) = g.get_ack("APP.IN", "");
    assert_eq!(m["md"]["Priority"], 7);
    assert_eq!(m["md"]["ReplyToQ"], "REPLY.Q");
    assert_eq!(data(&m), b"hi");
}

#[test]
fn queues_status_and_clean_stop() {
    let (_d, mut g) = start();
    let (st, s) = g.call("GET", "/v1/status", None);
    assert_eq!(st, 200);
    assert_eq!(s["queue_manager"], "QMTEST");
    assert_eq!(s["dead_letter_queue"], "SYSTEM.DEAD.LETTER.QUEUE");
    let (_, q) = g.call("GET", "/v1/queues", None);
    let kinds: Vec<(String, String)> = q
        .as_array()
        .unwrap()
        .iter()
        .map(|e| {
            (
                e["name"].as_str().unwrap().into(),
                e["type"].as_str().unwrap().into(),
            )
        })
        .collect();
    assert!(kinds.contains(&("SYSTEM.DEAD.LETTER.QUEUE".into(), "local".into())));
    assert!(kinds.contains(&("MQGATE.DEFAULT.XMITQ".into(), "xmitq".into())));
    // A waiting getter does not hold up SIGTERM; the exit status is 0.
    let base = g.base.clone();
    let waiter = std::thread::spawn(move || {
        match ureq::get(&format!(
            "{base}/v1/queues/APP.IN/messages/next?wait_ms=9000"
        ))
        .call()
        {
            Err(ureq::Error::Status(code, r)) => {
                Some((code, r.into_json::<serde_json::Value>().unwrap()))
            }
            Err(ureq::Error::Transport(_)) => None,
            Ok(r) => panic!("got a message: {:?}", r.into_string()),
        }
    });
    std::thread::sleep(Duration::from_millis(200));
    let t = Instant::now();
    let status = g.terminate();
    assert!(status.success(), "{status:?}");
    assert!(t.elapsed() < Duration::from_secs(5));
    // 2161 MQRC_Q_MGR_QUIESCING (503), or the connection closed by the stop.
    if let Some((code, v)) = waiter.join().unwrap() {
        assert_eq!((code, v["mqrc"].as_i64()), (503, Some(2161)));
    }
}

#[test]
fn expired_message_report_that_cannot_be_delivered_is_dead_lettered_with_an_mqdlh() {
    use mqgate_codecs::mq::dlh::parse_dlh;
    use mqgate_codecs::mq::{ByteOrder, Charset};
    let (_d, g) = start();
    // Expiry 1 tenth of a second; Report MQRO_EXPIRATION (0x00200000 = 2097152,
    // IBM MQ "Report (MQLONG)") to a reply queue that does not exist.
    let (st, put) = g.put(
        "APP.IN",
        "expiry=1&report=2097152&reply_to_q=NO.SUCH.Q",
        b"late",
    );
    assert_eq!(st, 201, "{put}");
    std::thread::sleep(Duration::from_millis(250));
    let (st, e) = g.next("APP.IN", "");
    assert_eq!((st, e["mqrc"].as_i64()), (404, Some(2033)));
    assert_eq!(g.depth("APP.IN"), 0);

    let (st, dl) = g.next("SYSTEM.DEAD.LETTER.QUEUE", "browse=true");
    assert_eq!(st, 200, "{dl}");
    // IBM MQ "MQDLH - Dead-letter header": Format MQDEAD, a 172-byte MQDLH
    // whose Reason is why the report could not be put (2085
    // UNKNOWN_OBJECT_NAME) and whose DestQName/DestQMgrName are the report's
    // destination.
    assert_eq!(dl["md"]["Format"], "MQDEAD");
    assert_eq!(dl["md"]["MsgType"], 4); // MQMT_REPORT
    assert_eq!(dl["md"]["Feedback"], 258); // MQFB_EXPIRATION
    assert_eq!(dl["md"]["CorrelId"], put["msg_id"]);
    let bytes = data(&dl);
    let (dlh, _) = parse_dlh(&bytes, ByteOrder::Little).unwrap();
    assert_eq!(dlh.reason, 2085);
    assert_eq!(dlh.dest_q_name.text(Charset::Ascii), "NO.SUCH.Q");
    assert_eq!(dlh.dest_q_mgr_name.text(Charset::Ascii), "QMTEST");
    assert_eq!(bytes.len(), 172);
}

/// An error answer: JSON with mqrc, reason and message (docs/http-api.md).
fn assert_mq_error(st: u16, v: &serde_json::Value, status: u16, mqrc: i64, reason: &str) {
    assert_eq!(st, status, "{v}");
    assert_eq!(v["mqrc"], mqrc, "{v}");
    assert_eq!(v["reason"], reason, "{v}");
    assert!(v["message"].as_str().is_some_and(|m| !m.is_empty()), "{v}");
}

/// POSTs `length` blanks as a JSON body over a plain socket; (status, JSON body).
fn raw_post(g: &Gateway, path: &str, length: usize) -> (u16, serde_json::Value) {
    use std::io::{Read, Write};
    let addr = g.base.trim_start_matches("http://");
    let mut s = std::net::TcpStream::connect(addr).unwrap();
    s.set_read_timeout(Some(Duration::from_secs(10))).unwrap();
    write!(
        s,
        "POST {path} HTTP/1.1\r\nHost: {addr}\r\nContent-Type: application/json\r\nContent-Length: {length}\r\nConnection: close\r\n\r\n"
    )
    .unwrap();
    // The server may answer before reading everything; the answer is what counts.
    let _ = s.write_all(&vec![b' '; length]);
    let mut buf = Vec::new();
    let mut chunk = [0u8; 4096];
    // Read until the server closes or the whole body (by its length) is in.
    loop {
        match s.read(&mut chunk) {
            Ok(0) | Err(_) => break,
            Ok(n) => buf.extend_from_slice(&chunk[..n]),
        }
        let text = String::from_utf8_lossy(&buf);
        if let Some((head, body)) = text.split_once("\r\n\r\n") {
            let len = head.lines().find_map(|l| {
                l.to_ascii_lowercase()
                    .strip_prefix("content-length: ")
                    .map(|v| v.trim().parse::<usize>().unwrap_or(0))
            });
            if len.is_some_and(|n| body.len() >= n) {
                break;
            }
        }
    }
    let text = String::from_utf8_lossy(&buf).into_owned();
    let (head, body) = text.split_once("\r\n\r\n").unwrap_or((&text, ""));
    let status = head
        .split(' ')
        .nth(1)
        .and_then(|c| c.parse().ok())
        .unwrap_or(0);
    (
        status,
        serde_json::from_str(body).unwrap_or(serde_json::Value::Null),
    )
}

#[test]
fn every_error_answer_is_json_even_axum_s_own() {
    let (_dir, g) = start();
    // Before the fix: 404 with an empty body. 2298 MQRC_FUNCTION_NOT_SUPPORTED
    // (IBM value, added to codecs rc.rs): there is no such function.
    let (st, v) = g.call("GET", "/v1/nothing/here", None);
    assert_mq_error(st, &v, 404, 2298, "MQRC_FUNCTION_NOT_SUPPORTED");
    assert!(v["message"].as_str().unwrap().contains("/v1/nothing/here"));
    // Wrong method: 405, was empty.
    let (st, v) = g.call("GET", "/v1/uow", None);
    assert_mq_error(st, &v, 405, 2298, "MQRC_FUNCTION_NOT_SUPPORTED");
    // A path segment that is not UTF-8: axum's Path rejection, plain text
    // before; now a JSON body with a reason and the same status.
    let (st, v) = g.call("POST", "/v1/rpc/%FF/P", Some(("application/json", b"{}")));
    assert_eq!(st, 400, "{v}");
    assert!(v["mqrc"].as_i64().is_some(), "{v}");
    assert!(v["message"].as_str().is_some_and(|m| !m.is_empty()), "{v}");
    // A body over axum's default 2 MiB limit on a route without its own limit
    // (plain text 413 before): 2031 MQRC_MSG_TOO_BIG_FOR_Q_MGR.
    // Exactly one byte over: the server reads all of it before answering, so
    // closing the connection does not reset it under the client's feet.
    let (st, v) = raw_post(&g, "/v1/rpc/L/P", 2 * 1024 * 1024 + 1);
    assert_mq_error(st, &v, 413, 2031, "MQRC_MSG_TOO_BIG_FOR_Q_MGR");
}

#[test]
fn queue_and_queue_manager_names_are_checked() {
    let (_dir, g) = start();
    // IBM MQ "Rules for naming IBM MQ objects" (48 characters; A-Z a-z 0-9 . /
    // _ %); reason codes 2152 OBJECT_NAME_ERROR, 2058 Q_MGR_NAME_ERROR. Before
    // the fix these were 404/2085 "not defined".
    let long = "Q".repeat(49);
    let (st, v) = g.put(&long, "", b"x");
    assert_mq_error(st, &v, 400, 2152, "MQRC_OBJECT_NAME_ERROR");
    assert!(
        v["message"].as_str().unwrap().contains("49 characters"),
        "{v}"
    );
    let (st, v) = g.put("DEV.a%20b", "", b"x");
    assert_mq_error(st, &v, 400, 2152, "MQRC_OBJECT_NAME_ERROR");
    let (st, v) = g.put("DEV.%C3%A9", "", b"x");
    assert_mq_error(st, &v, 400, 2152, "MQRC_OBJECT_NAME_ERROR");
    let (st, v) = g.next(&long, "");
    assert_mq_error(st, &v, 400, 2152, "MQRC_OBJECT_NAME_ERROR");
    let (st, v) = g.next("DEV.a%20b", "browse=true");
    assert_mq_error(st, &v, 400, 2152, "MQRC_OBJECT_NAME_ERROR");
    // A bad escape was taken literally ("DEV.%ZZ", a valid MQ name).
    let (st, v) = g.put("DEV.%ZZ", "", b"x");
    assert_mq_error(st, &v, 400, 2152, "MQRC_OBJECT_NAME_ERROR");
    assert!(v["message"].as_str().unwrap().contains("%ZZ"), "{v}");
    // A bad queue manager name went to the default transmission queue.
    let (st, v) = g.put("APP.IN", "q_mgr=bad%20name", b"x");
    assert_mq_error(st, &v, 400, 2058, "MQRC_Q_MGR_NAME_ERROR");
    assert_eq!(g.depth("MQGATE.DEFAULT.XMITQ"), 0);
    // A name of 48 is fine (just not defined).
    let (st, v) = g.put(&"Q".repeat(48), "", b"x");
    assert_mq_error(st, &v, 404, 2085, "MQRC_UNKNOWN_OBJECT_NAME");
}

/// A path whose percent-escapes decode to bytes that are not UTF-8
/// (`INBOX%DEV0001`: `%DE` is byte 0xDE) names no object: 400 / 2152
/// MQRC_OBJECT_NAME_ERROR quoting the name and the hint to write `%` as
/// `%25` on every route with a name in its path (2058 MQRC_Q_MGR_NAME_ERROR
/// for a device queue manager), 2046 MQRC_OPTIONS_ERROR for a token
/// (docs/http-api.md "Errors"; IBM MQ "API reason codes" 2152, 2058, 2046) — not axum's own "Invalid URL" text.
#[test]
fn path_names_that_are_not_utf8_are_2152_on_every_route() {
    let (_dir, g) = start();
    let hint = |v: &serde_json::Value, name: &str| {
        let m = v["message"].as_str().unwrap();
        assert!(m.contains(&format!("\"{name}\"")), "{v}");
        assert!(
            m.contains("not UTF-8") && m.contains("write % as %25"),
            "{v}"
        );
        assert!(!m.contains("Invalid URL"), "{v}");
    };
    let (st, v) = g.put("INBOX%DEV0001", "", b"x");
    assert_mq_error(st, &v, 400, 2152, "MQRC_OBJECT_NAME_ERROR");
    hint(&v, "INBOX%DEV0001");
    assert!(
        v["message"].as_str().unwrap().starts_with("queue name "),
        "{v}"
    );
    let (st, v) = g.next("INBOX%DEV0001", "browse=true");
    assert_mq_error(st, &v, 400, 2152, "MQRC_OBJECT_NAME_ERROR");
    hint(&v, "INBOX%DEV0001");
    let (st, v) = g.call("GET", "/v1/devices/DEV%FF/queues/INBOX/messages/next", None);
    // A device queue manager name: 2058, as for any malformed one.
    assert_mq_error(st, &v, 400, 2058, "MQRC_Q_MGR_NAME_ERROR");
    hint(&v, "DEV%FF");
    let (st, v) = g.call(
        "POST",
        "/v1/rpc/LIB%DE/PROG",
        Some(("application/json", b"{}")),
    );
    assert_mq_error(st, &v, 400, 2152, "MQRC_OBJECT_NAME_ERROR");
    hint(&v, "LIB%DE");
    let (st, v) = g.call(
        "POST",
        "/v1/channels/CH%DE/start",
        Some(("application/json", b"{}")),
    );
    assert_mq_error(st, &v, 400, 2152, "MQRC_OBJECT_NAME_ERROR");
    hint(&v, "CH%DE");
    // A token in the path is no name: 2046, as any malformed token.
    let (st, v) = g.call(
        "POST",
        "/v1/uow/%FF%FE/commit",
        Some(("application/json", b"")),
    );
    assert_mq_error(st, &v, 400, 2046, "MQRC_OPTIONS_ERROR");
    hint(&v, "%FF%FE");
    let (st, v) = g.call(
        "POST",
        "/v1/queues/APP.IN/messages/ack/%FF%FE",
        Some(("application/octet-stream", b"")),
    );
    assert_mq_error(st, &v, 400, 2046, "MQRC_OPTIONS_ERROR");
    // Nothing was stored.
    assert_eq!(g.depth("APP.IN"), 0);
}

#[test]
fn cursor_wait_and_ids_are_checked_before_anything_is_taken() {
    let (_dir, g) = start();
    let (st, _) = g.put("APP.IN", "", b"keep me");
    assert_eq!(st, 201);
    // A cursor without browse=true made a destructive get before the fix. IBM
    // MQ "2046 (07FE) (RC2046): MQRC_OPTIONS_ERROR".
    let (st, v) = g.next("APP.IN", "cursor=0-1");
    assert_mq_error(st, &v, 400, 2046, "MQRC_OPTIONS_ERROR");
    assert_eq!(g.depth("APP.IN"), 1);
    // A browse with `uow`: a malformed token is 400 / 2046 like any other
    // (it was ignored), and so is a good one — MQGMO_BROWSE_* with
    // MQGMO_SYNCPOINT is MQRC_OPTIONS_ERROR (IBM MQ "MQGMO - Options";
    // docs/http-api.md "GET /v1/queues/{q}/messages/next").
    let (st, v) = g.next("APP.IN", "browse=true&uow=zzz");
    assert_mq_error(st, &v, 400, 2046, "MQRC_OPTIONS_ERROR");
    assert!(
        v["message"]
            .as_str()
            .unwrap()
            .contains("\"zzz\" is not a unit of work id"),
        "{v}"
    );
    let (st, u) = g.call("POST", "/v1/uow", Some(("application/json", b"")));
    assert_eq!(st, 201, "{u}");
    let uow = u["uow"].as_str().unwrap();
    let (st, v) = g.next("APP.IN", &format!("browse=true&uow={uow}"));
    assert_mq_error(st, &v, 400, 2046, "MQRC_OPTIONS_ERROR");
    assert!(
        v["message"]
            .as_str()
            .unwrap()
            .contains("uow is not valid with browse=true"),
        "{v}"
    );
    assert_eq!(g.depth("APP.IN"), 1);
    // IBM MQ "WaitInterval (MQLONG)": negatives other than -1 → 2090; was 2046
    // "invalid digit".
    for bad in ["-1", "-5", "soon"] {
        let (st, v) = g.next("APP.IN", &format!("wait_ms={bad}"));
        assert_mq_error(st, &v, 400, 2090, "MQRC_WAIT_INTERVAL_ERROR");
        assert!(v["message"].as_str().unwrap().contains("wait_ms"), "{v}");
    }
    assert_eq!(g.depth("APP.IN"), 1);
    // Malformed lease and uow ids: 400 (was 409/2003 like an expired lease).
    // A number, as earlier versions handed out, is malformed too: ids are
    // 32 hex digits (docs/http-api.md).
    for path in [
        "/v1/queues/APP.IN/messages/ack/abc",
        "/v1/queues/APP.IN/messages/ack/-1",
        "/v1/queues/APP.IN/messages/ack/17",
        "/v1/queues/APP.IN/messages/backout/abc",
        "/v1/uow/abc/commit",
        "/v1/uow/abc/backout",
        "/v1/uow/5/commit",
    ] {
        let (st, v) = g.call("POST", path, Some(("application/octet-stream", b"")));
        assert_mq_error(st, &v, 400, 2046, "MQRC_OPTIONS_ERROR");
    }
    // A token that is well formed but not open stays 409/2003 (docs/http-api.md).
    let (st, v) = g.call(
        "POST",
        &format!("/v1/queues/APP.IN/messages/ack/{}", "0".repeat(32)),
        Some(("application/octet-stream", b"")),
    );
    assert_mq_error(st, &v, 409, 2003, "MQRC_BACKED_OUT");
    // ack on a queue that is not defined: 2085 (was 409/2003).
    let (st, v) = g.call(
        "POST",
        &format!("/v1/queues/NOT.DEFINED/messages/ack/{}", "0".repeat(32)),
        Some(("application/octet-stream", b"")),
    );
    assert_mq_error(st, &v, 404, 2085, "MQRC_UNKNOWN_OBJECT_NAME");
}

#[test]
fn a_put_under_a_unit_of_work_that_is_not_open_is_2003_even_on_a_full_queue() {
    let (_dir, g) = start();
    // SMALL has max_depth 2: fill it.
    for _ in 0..2 {
        assert_eq!(g.put("SMALL", "", b"x").0, 201);
    }
    // Before the fix: 503/2053 Q_FULL. The unit of work is checked first:
    // 409/2003 (docs/http-api.md: a unit of work that is not open).
    let (st, v) = g.put("SMALL", &format!("uow={}", "9".repeat(32)), b"x");
    assert_mq_error(st, &v, 409, 2003, "MQRC_BACKED_OUT");
}

#[test]
fn priority_msg_type_ccsid_and_correl_options_are_checked_on_put() {
    let (_dir, g) = start();
    // MQ docs (MQMD Priority): above 9 the put works with MQCC_WARNING 2049
    // MQRC_PRIORITY_EXCEEDS_MAXIMUM, the message is queued at 9 and the MD
    // keeps the value. Before the fix: no warning.
    let (st, v) = g.put("APP.IN", "priority=12", b"high");
    assert_eq!(st, 201, "{v}");
    assert_eq!(v["warning"]["mqrc"], 2049, "{v}");
    assert_eq!(v["warning"]["reason"], "MQRC_PRIORITY_EXCEEDS_MAXIMUM");
    let (st, v) = g.put("APP.IN", "priority=9", b"nine");
    assert_eq!(st, 201);
    assert!(v.get("warning").is_none(), "{v}");
    // Same priority 9: FIFO, so the priority-12 message comes first and keeps 12.
    let (_, v) = g.get_ack("APP.IN", "");
    assert_eq!(data(&v), b"high");
    assert_eq!(v["md"]["Priority"], 12);
    let (_, v) = g.get_ack("APP.IN", "");
    assert_eq!(data(&v), b"nine");
    // IBM MQ "MsgType (MQLONG)": 1, 2, 4, 8, 65536-999999999; 2029 MSG_TYPE_ERROR.
    for bad in [0, 3, 65535, 1_000_000_000] {
        let (st, v) = g.put("APP.IN", &format!("msg_type={bad}"), b"x");
        assert_mq_error(st, &v, 400, 2029, "MQRC_MSG_TYPE_ERROR");
    }
    assert_eq!(g.put("APP.IN", "msg_type=65536", b"x").0, 201);
    // IBM MQ "CodedCharSetId (MQLONG)": -1..-4 are special, below is 2026 MD_ERROR.
    let (st, v) = g.put("APP.IN", "ccsid=-5", b"x");
    assert_mq_error(st, &v, 400, 2026, "MQRC_MD_ERROR");
    // A value that is no MQLONG at all (IBM MQ "MQMD - Message descriptor":
    // these fields are 32-bit signed integers) gets the field's own reason,
    // as a value out of its range does, not 2046 for the query's syntax.
    // Before the fix all four answered 2046 MQRC_OPTIONS_ERROR.
    for (query, mqrc, reason) in [
        ("msg_type=99999999999", 2029, "MQRC_MSG_TYPE_ERROR"),
        ("ccsid=2147483648", 2026, "MQRC_MD_ERROR"),
        ("encoding=546.0", 2026, "MQRC_MD_ERROR"),
        ("report=coa", 2061, "MQRC_REPORT_OPTIONS_ERROR"),
    ] {
        let (st, v) = g.put("APP.IN", query, b"x");
        assert_mq_error(st, &v, 400, mqrc, reason);
        let field = query.split('=').next().unwrap_or_default();
        assert!(
            v["message"].as_str().unwrap_or_default().contains(field),
            "{v}"
        );
    }
    // Contradictory options: 2046.
    let correl = "0A".repeat(24);
    let (st, v) = g.put(
        "APP.IN",
        &format!("new_correl_id=true&correl_id={correl}"),
        b"x",
    );
    assert_mq_error(st, &v, 400, 2046, "MQRC_OPTIONS_ERROR");
    // Only the msg_type=65536 message was stored.
    assert_eq!(g.depth("APP.IN"), 1);
}

#[test]
fn a_list_put_body_above_the_limit_is_413_2031_like_a_single_put() {
    // The body limit is MAXMSGL 4096 (CONFIG) / 3 * 4 + 64 KiB = 70996 bytes
    // (src/http/mod.rs); docs/http-api.md "Errors": 413 / 2031
    // MQRC_MSG_TOO_BIG_FOR_Q_MGR "also for a body larger than the queue
    // manager's MAXMSGL".
    let (_d, g) = start();
    let body = serde_json::json!({
        "destinations": [{"queue": "APP.IN"}],
        "data": "x".repeat(80_000),
    });
    let (st, e) = g.call(
        "POST",
        "/v1/messages",
        Some(("application/json", body.to_string().as_bytes())),
    );
    assert_eq!((st, e["mqrc"].as_i64()), (413, Some(2031)), "{e}");
    assert_eq!(e["reason"], "MQRC_MSG_TOO_BIG_FOR_Q_MGR");
    assert!(
        e["message"].as_str().unwrap().contains("MAXMSGL 4096"),
        "{e}"
    );
    // The single put answers alike.
    let (st, e) = g.put("APP.IN", "", &[b'x'; 80_000]);
    assert_eq!((st, e["mqrc"].as_i64()), (413, Some(2031)), "{e}");
    assert_eq!(g.depth("APP.IN"), 0);
}

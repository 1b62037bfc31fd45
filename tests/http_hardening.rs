//! End-to-end tests of the HTTP API's defences and error answers against the
//! built binary. Expected statuses and bodies come from docs/http-api.md,
//! MQRC values from IBM MQ "API reason codes", the rest from the RFC or IBM
//! MQ page named at each assertion.

mod common;

use common::Gateway;
use serde_json::Value;

const CONFIG: &str = "
queue_manager:
  name: QMHARD
queues:
  - type: local
    name: APP.IN
devices:
  queue_managers: [\"DEV*\"]
";

fn start() -> (tempfile::TempDir, Gateway) {
    let dir = tempfile::tempdir().unwrap();
    let g = Gateway::start(dir.path(), CONFIG);
    (dir, g)
}

/// An error answer: JSON `{"mqrc", "reason", "message"}` with `status`
/// (docs/http-api.md "Errors").
fn assert_mq_error(st: u16, v: &Value, status: u16, mqrc: i64, reason: &str) {
    assert_eq!(st, status, "{v}");
    assert_eq!(v["mqrc"], mqrc, "{v}");
    assert_eq!(v["reason"], reason, "{v}");
    assert!(v["message"].as_str().is_some_and(|m| !m.is_empty()), "{v}");
}

#[test]
fn a_malformed_device_queue_name_is_2152_on_every_route() {
    let (_d, g) = start();
    // IBM MQ "Rules for naming IBM MQ objects": a blank is no MQ name
    // character; 2152 MQRC_OBJECT_NAME_ERROR with 400 (docs/http-api.md
    // "Errors"), as the queue API answers. Before the fix the device routes
    // answered 404 / 2085 MQRC_UNKNOWN_OBJECT_NAME.
    let (st, v) = g.call(
        "GET",
        "/v1/devices/DEV0001/queues/BAD%20NAME/messages/next",
        None,
    );
    assert_mq_error(st, &v, 400, 2152, "MQRC_OBJECT_NAME_ERROR");
    assert!(v["message"].as_str().unwrap().contains("BAD NAME"), "{v}");
    let (st, v) = g.call(
        "POST",
        "/v1/devices/DEV0001/queues/Q-1/messages/ack/1",
        Some(("application/octet-stream", b"")),
    );
    assert_mq_error(st, &v, 400, 2152, "MQRC_OBJECT_NAME_ERROR");
    // The same name through the queue API: the same answer.
    let (st, v) = g.put("BAD%20NAME", "q_mgr=DEV0001", b"x");
    assert_mq_error(st, &v, 400, 2152, "MQRC_OBJECT_NAME_ERROR");
    let (st, v) = g.next("DEV0001%2FBAD%20NAME", "");
    assert_mq_error(st, &v, 400, 2152, "MQRC_OBJECT_NAME_ERROR");
}

/// The names of every queue object (`GET /v1/queues`, docs/http-api.md).
fn queue_names(g: &Gateway) -> Vec<String> {
    let (st, v) = g.call("GET", "/v1/queues", None);
    assert_eq!(st, 200, "{v}");
    v.as_array()
        .unwrap()
        .iter()
        .map(|q| q["name"].as_str().unwrap().to_string())
        .collect()
}

#[test]
fn gets_and_acks_on_unknown_device_queues_create_nothing() {
    let (_d, g) = start();
    let before = queue_names(&g);
    for i in 0..300 {
        let base = format!("/v1/devices/DEV{i:04}/queues/INBOX/messages");
        let (st, v) = match i % 3 {
            // docs/http-api.md "Devices": 204, no body, when no message
            // arrived within wait_ms — a queue no message reached yet
            // answers as an empty queue would.
            0 => g.call("GET", &format!("{base}/next"), None),
            // IBM MQ "WaitInterval (MQLONG)": a negative wait is 2090
            // MQRC_WAIT_INTERVAL_ERROR, 400 (docs/http-api.md "Errors").
            1 => g.call("GET", &format!("{base}/next?wait_ms=-5"), None),
            // No lease can be open on a queue that never had a message: 409
            // / 2003 MQRC_BACKED_OUT (docs/http-api.md "Devices"), for a
            // well-formed token (32 hex digits, "Leases").
            _ => g.call(
                "POST",
                &format!("{base}/ack/{}", "7".repeat(32)),
                Some(("application/octet-stream", b"")),
            ),
        };
        match i % 3 {
            0 => assert_eq!((st, &v), (204, &Value::Null)),
            1 => assert_mq_error(st, &v, 400, 2090, "MQRC_WAIT_INTERVAL_ERROR"),
            _ => {
                assert_mq_error(st, &v, 409, 2003, "MQRC_BACKED_OUT");
                // docs/http-api.md "Tokens": every token that is no open
                // lease answers with the same message, here the one an
                // existing queue gives (src/mqi/get.rs), whether or not the
                // queue exists (a retired one, src/qmgr/idle.rs, too).
                assert_eq!(
                    v["message"],
                    format!(
                        "lease {} is not open on queue DEV{i:04}/INBOX: it was acknowledged or backed out, it expired and the message was backed out, or it is not a lease of this queue issued since the gateway started",
                        "7".repeat(32)
                    )
                );
            }
        }
    }
    // docs/http-api.md "Errors": a failed request changes nothing; and gets
    // never create queues: the list is what it was.
    let after = queue_names(&g);
    assert_eq!(after, before);
    assert!(after.iter().all(|q| !q.starts_with("DEV")), "{after:?}");
}

#[test]
fn a_pull_waiting_on_a_device_queue_not_yet_created_gets_the_first_message() {
    let (_d, g) = start();
    let url = format!(
        "{}/v1/devices/DEV0042/queues/INBOX/messages/next?wait_ms=8000",
        g.base
    );
    let waiter = std::thread::spawn(move || {
        let r = ureq::get(&url).call().unwrap();
        (r.status(), r.into_json::<Value>().unwrap())
    });
    std::thread::sleep(std::time::Duration::from_millis(300));
    assert!(!queue_names(&g).contains(&"DEV0042/INBOX".to_string()));
    // A put to queue INBOX at queue manager DEV0042 resolves to the device
    // queue DEV0042/INBOX and creates it (docs/config.md `devices`).
    let (st, v) = g.put("INBOX", "q_mgr=DEV0042", b"for the device");
    assert_eq!(st, 201, "{v}");
    assert_eq!(v["queue"], "DEV0042/INBOX");
    // The message exists only after the put: getting it proves the pull
    // waited and woke (docs/http-api.md "Devices": 200 with a lease).
    let (st, m) = waiter.join().unwrap();
    assert_eq!(st, 200, "{m}");
    assert_eq!(common::data(&m), b"for the device");
    common::token(&m["lease"]);
}

/// Sends `request` as is over a new connection and reads the answer until
/// the server closes it (send `Connection: close`): (status, headers, body).
fn raw(g: &Gateway, request: &[u8]) -> (u16, String, Vec<u8>) {
    use std::io::{Read, Write};
    let addr = g.base.trim_start_matches("http://");
    let mut s = std::net::TcpStream::connect(addr).unwrap();
    s.set_read_timeout(Some(std::time::Duration::from_secs(20)))
        .unwrap();
    // Written on another thread while this one reads: the server may answer
    // and close before reading all of it, and a close with unread data
    // sends a reset that can discard an answer not yet read (RFC 9293
    // §3.6.1; Linux). Reading from the start takes the answer as it comes.
    let mut w = s.try_clone().unwrap();
    let request = request.to_vec();
    let writer = std::thread::spawn(move || {
        let _ = w.write_all(&request);
    });
    let mut buf = Vec::new();
    // An error after the answer (the reset) keeps what was read.
    let _ = s.read_to_end(&mut buf);
    let _ = s.shutdown(std::net::Shutdown::Both);
    writer.join().unwrap();
    let at = buf
        .windows(4)
        .position(|w| w == b"\r\n\r\n")
        .unwrap_or_else(|| panic!("no answer head in {:?}", String::from_utf8_lossy(&buf)));
    let head = String::from_utf8_lossy(&buf[..at]).into_owned();
    let status = head
        .split(' ')
        .nth(1)
        .and_then(|c| c.parse().ok())
        .unwrap_or(0);
    (status, head, buf[at + 4..].to_vec())
}

/// `raw`'s answer as an error: the status, and the body as JSON with a
/// JSON Content-Type.
fn raw_error(g: &Gateway, request: &[u8]) -> (u16, Value) {
    let (st, head, body) = raw(g, request);
    assert!(
        head.to_ascii_lowercase()
            .contains("\r\ncontent-type: application/json"),
        "{head}"
    );
    let v = serde_json::from_slice(&body)
        .unwrap_or_else(|e| panic!("{e}: {:?}", String::from_utf8_lossy(&body)));
    (st, v)
}

#[test]
fn a_json_put_is_recognised_whatever_the_case_of_its_media_type() {
    let (_d, g) = start();
    // RFC 9110 §8.3.1 "Media Type": type and subtype compare without regard
    // to case, and parameters may follow. docs/http-api.md "put": with
    // application/json the body is {"md", "data"}.
    for ctype in [
        "APPLICATION/JSON",
        "Application/Json; charset=utf-8",
        "application/json;charset=UTF-8",
    ] {
        let body = br#"{"md": {"Priority": 3, "Format": "MQSTR"}, "data": "hello"}"#;
        let (st, v) = g.call(
            "POST",
            "/v1/queues/APP.IN/messages",
            Some((ctype, &body[..])),
        );
        assert_eq!(st, 201, "{ctype}: {v}");
        let (st, m) = g.get_ack("APP.IN", "");
        assert_eq!(st, 200, "{m}");
        // Before the fix the whole JSON text was stored as the data.
        assert_eq!(common::data(&m), b"hello", "{ctype}");
        assert_eq!(m["md"]["Priority"], 3, "{ctype}");
        assert_eq!(m["md"]["Format"], "MQSTR", "{ctype}");
    }
    // A type that only starts like it is data, not a JSON put.
    let (st, _) = g.call(
        "POST",
        "/v1/queues/APP.IN/messages",
        Some(("application/jsonx", b"{\"data\": \"x\"}")),
    );
    assert_eq!(st, 201);
    assert_eq!(
        common::data(&g.get_ack("APP.IN", "").1),
        b"{\"data\": \"x\"}"
    );
}

#[test]
fn requests_the_server_cannot_parse_get_a_json_error() {
    let (_d, g) = start();
    let host = g.base.trim_start_matches("http://").to_string();
    // docs/http-api.md: every answer is JSON; a request the server could not
    // read is 400 / 2004 MQRC_BUFFER_ERROR. Before the fix these answers
    // (written by hyper itself) had an empty body.
    let bad_header = format!("GET /v1/status HTTP/1.1\r\nHost: {host}\r\nno colon here\r\n\r\n");
    let (st, v) = raw_error(&g, bad_header.as_bytes());
    assert_mq_error(st, &v, 400, 2004, "MQRC_BUFFER_ERROR");
    let (st, v) = raw_error(&g, b"NOT A REQUEST LINE\r\n\r\n");
    assert_mq_error(st, &v, 400, 2004, "MQRC_BUFFER_ERROR");
    // RFC 9110 §15.5.15 414 URI Too Long and RFC 6585 §5 431 Request Header
    // Fields Too Large keep their status, with the same JSON body.
    let long_uri = format!(
        "GET /{} HTTP/1.1\r\nHost: {host}\r\n\r\n",
        "a".repeat(70_000)
    );
    let (st, v) = raw_error(&g, long_uri.as_bytes());
    assert_mq_error(st, &v, 414, 2004, "MQRC_BUFFER_ERROR");
    let big_header = format!(
        "GET /v1/status HTTP/1.1\r\nHost: {host}\r\nX-Big: {}\r\n\r\n",
        "a".repeat(500_000)
    );
    let (st, v) = raw_error(&g, big_header.as_bytes());
    assert_mq_error(st, &v, 431, 2004, "MQRC_BUFFER_ERROR");
    // A well-formed request on the same server still works.
    let ok = format!("GET /v1/status HTTP/1.1\r\nHost: {host}\r\nConnection: close\r\n\r\n");
    let (st, _, body) = raw(&g, ok.as_bytes());
    assert_eq!(st, 200);
    let v: Value = serde_json::from_slice(&body).unwrap();
    assert_eq!(v["queue_manager"], "QMHARD");
}

#[test]
fn overlong_names_and_ids_are_cut_in_error_messages() {
    let (_d, g) = start();
    let long = "Q".repeat(5000);
    // IBM MQ "Rules for naming IBM MQ objects": 48 characters at most,
    // 2152 MQRC_OBJECT_NAME_ERROR; the message quotes the first 64
    // characters and the length, not all 5000.
    for (st, v) in [g.next(&long, ""), g.put(&long, "", b"x")] {
        assert_mq_error(st, &v, 400, 2152, "MQRC_OBJECT_NAME_ERROR");
        let m = v["message"].as_str().unwrap();
        assert!(
            m.contains(&format!("\"{}\"… (5000 bytes)", "Q".repeat(64))),
            "{m}"
        );
        assert!(m.len() < 300, "{} bytes: {m}", m.len());
    }
    // docs/http-api.md "Errors": a lease id that is not 32 hex digits is 400 /
    // 2046 MQRC_OPTIONS_ERROR; an unknown route 404 / 2298.
    let (st, v) = g.call(
        "POST",
        &format!("/v1/queues/APP.IN/messages/ack/{}", "9x".repeat(3000)),
        Some(("application/octet-stream", b"")),
    );
    assert_mq_error(st, &v, 400, 2046, "MQRC_OPTIONS_ERROR");
    assert!(v["message"].as_str().unwrap().len() < 300, "{v}");
    let (st, v) = g.call("GET", &format!("/v1/{}", "z".repeat(5000)), None);
    assert_mq_error(st, &v, 404, 2298, "MQRC_FUNCTION_NOT_SUPPORTED");
    let m = v["message"].as_str().unwrap();
    assert!(m.contains("… (5004 bytes)"), "{m}");
    assert!(m.len() < 300, "{m}");
    // An unknown query parameter's name is cut too (the message as a whole
    // is at most 1024 bytes and then says how long it was).
    let (st, v) = g.next("APP.IN", &format!("{}=1", "p".repeat(5000)));
    assert_mq_error(st, &v, 400, 2046, "MQRC_OPTIONS_ERROR");
    assert!(v["message"].as_str().unwrap().len() < 1100, "{v}");
}

/// A raw HTTP/1.1 request to `path` with `headers` (each `Name: value`),
/// `Connection: close` and `body` as text/plain.
fn request(method: &str, path: &str, headers: &[&str], body: &str) -> Vec<u8> {
    let mut r = format!("{method} {path} HTTP/1.1\r\n");
    for h in headers {
        r.push_str(h);
        r.push_str("\r\n");
    }
    r.push_str(&format!(
        "Connection: close\r\nContent-Type: text/plain\r\nContent-Length: {}\r\n\r\n{body}",
        body.len()
    ));
    r.into_bytes()
}

#[test]
fn cross_origin_and_foreign_host_requests_are_refused() {
    let (_d, g) = start();
    let host = g.base.trim_start_matches("http://").to_string();
    let port = host.rsplit_once(':').unwrap().1.to_string();
    let own = format!("Host: {host}");
    let put = "/v1/queues/APP.IN/messages";
    // A web page's "simple" cross-origin POST (text/plain, no preflight):
    // 201 before the fix. Now 403 with 2035 MQRC_NOT_AUTHORIZED (IBM MQ
    // "API reason codes"; status from docs/http-api.md "Errors"), naming
    // the origin. RFC 6454 §7: browsers send Origin, `null` for opaque ones.
    for origin in ["http://evil.example", "null", &format!("http://{host}")] {
        let req = request("POST", put, &[&own, &format!("Origin: {origin}")], "x");
        let (st, v) = raw_error(&g, &req);
        assert_mq_error(st, &v, 403, 2035, "MQRC_NOT_AUTHORIZED");
        assert!(v["message"].as_str().unwrap().contains(origin), "{v}");
    }
    // DNS rebinding: evil.example resolved to 127.0.0.1; the browser sends
    // its own name as Host (RFC 9110 §7.2). Refused, naming the Host.
    for foreign in [
        format!("evil.example:{port}"),
        "127.0.0.1".to_string(),
        format!("127.0.0.2:{port}"),
    ] {
        let req = request("POST", put, &[&format!("Host: {foreign}")], "x");
        let (st, v) = raw_error(&g, &req);
        assert_mq_error(st, &v, 403, 2035, "MQRC_NOT_AUTHORIZED");
        assert!(v["message"].as_str().unwrap().contains(&foreign), "{v}");
    }
    // RFC 9112 §3.2: an HTTP/1.1 request without Host, or with two, is 400.
    let (st, v) = raw_error(&g, &request("GET", "/v1/status", &[], ""));
    assert_mq_error(st, &v, 400, 2004, "MQRC_BUFFER_ERROR");
    let (st, v) = raw_error(&g, &request("GET", "/v1/status", &[&own, &own], ""));
    assert_mq_error(st, &v, 400, 2004, "MQRC_BUFFER_ERROR");
    // Nothing of the above was stored.
    assert_eq!(g.depth("APP.IN"), 0);
    // The listen address and, on loopback, localhost with the port are this
    // gateway's names; HTTP/1.0 needs no Host (RFC 9112 §3.2).
    for name in [
        host.clone(),
        format!("localhost:{port}"),
        format!("LOCALHOST:{port}"),
    ] {
        let (st, _, body) = raw(&g, &request("POST", put, &[&format!("Host: {name}")], "ok"));
        assert_eq!(st, 201, "{name}: {}", String::from_utf8_lossy(&body));
    }
    let (st, _, _) = raw(&g, b"GET /v1/status HTTP/1.0\r\n\r\n");
    assert_eq!(st, 200);
    assert_eq!(g.depth("APP.IN"), 3);
}

#[test]
fn allowed_origins_and_hosts_are_accepted_with_cors_headers() {
    let dir = tempfile::tempdir().unwrap();
    let config = format!(
        "{CONFIG}http:\n  allowed_origins: [\"http://app.example:3000\"]\n  allowed_hosts: [gw.example]\n"
    );
    let g = Gateway::start(dir.path(), &config);
    let put = "/v1/queues/APP.IN/messages";
    // RFC 6454 §5: scheme and host compare without case, so this is the
    // configured origin; docs/http-api.md "Origins and hosts": its answers
    // carry Access-Control-Allow-Origin (WHATWG Fetch Standard "CORS
    // protocol") with the configured value.
    let req = request(
        "POST",
        put,
        &["Host: gw.example:9999", "Origin: HTTP://App.Example:3000"],
        "from the app",
    );
    let (st, head, body) = raw(&g, &req);
    assert_eq!(st, 201, "{}", String::from_utf8_lossy(&body));
    let head = head.to_ascii_lowercase();
    assert!(
        head.contains("\r\naccess-control-allow-origin: http://app.example:3000"),
        "{head}"
    );
    assert!(head.contains("\r\nvary: origin"), "{head}");
    // Same host, another port of the origin: another origin (RFC 6454 §5).
    let req = request(
        "POST",
        put,
        &["Host: gw.example", "Origin: http://app.example:3001"],
        "x",
    );
    let (st, v) = raw_error(&g, &req);
    assert_mq_error(st, &v, 403, 2035, "MQRC_NOT_AUTHORIZED");
    // A preflight from the allowed origin: 204 allowing GET and POST.
    let req = request(
        "OPTIONS",
        put,
        &[
            "Host: gw.example",
            "Origin: http://app.example:3000",
            "Access-Control-Request-Method: POST",
            "Access-Control-Request-Headers: content-type",
        ],
        "",
    );
    let (st, head, _) = raw(&g, &req);
    assert_eq!(st, 204, "{head}");
    let head = head.to_ascii_lowercase();
    assert!(
        head.contains("\r\naccess-control-allow-methods: get, post, delete\r\n"),
        "{head}"
    );
    assert!(
        head.contains("\r\naccess-control-allow-headers: content-type"),
        "{head}"
    );
    assert_eq!(g.depth("APP.IN"), 1);
}

/// Whether the server closes `s` (end of stream or reset) before the read
/// timeout set on it; false when the read only timed out.
fn closed_by_server(s: &mut std::net::TcpStream) -> bool {
    use std::io::Read;
    let mut buf = [0u8; 1024];
    loop {
        match s.read(&mut buf) {
            Ok(0) => return true,
            // An answer before closing is fine; what counts is the close.
            Ok(_) => continue,
            Err(e) => {
                return !matches!(
                    e.kind(),
                    std::io::ErrorKind::WouldBlock | std::io::ErrorKind::TimedOut
                );
            }
        }
    }
}

#[test]
fn connections_with_an_unfinished_or_no_request_are_closed() {
    use std::io::Write;
    use std::time::Duration;
    let dir = tempfile::tempdir().unwrap();
    // docs/config.md `http`: header_read_timeout_ms from a head's first byte
    // to its end, idle_timeout_ms from waiting for a request to its head
    // being complete. Small here; the bound below is generous: this checks
    // that the connection is closed at all, not how fast.
    let config = format!("{CONFIG}http:\n  header_read_timeout_ms: 300\n  idle_timeout_ms: 4000\n");
    let g = Gateway::start(dir.path(), &config);
    let addr = g.base.trim_start_matches("http://").to_string();
    let connect = || {
        let s = std::net::TcpStream::connect(&addr).unwrap();
        s.set_read_timeout(Some(Duration::from_secs(30))).unwrap();
        s
    };
    // Slowloris: half a request line, half the headers. Before the fix
    // these stayed open for ever (the read below timed out).
    for partial in [
        "GET /v1/sta".to_string(),
        format!("GET /v1/status HTTP/1.1\r\nHost: {addr}\r\nX-Slow: a"),
    ] {
        let mut s = connect();
        s.write_all(partial.as_bytes()).unwrap();
        assert!(closed_by_server(&mut s), "{partial:?} kept open");
    }
    // A connection that never sends anything: closed at the idle timeout.
    let mut s = connect();
    assert!(closed_by_server(&mut s), "an idle connection kept open");
    // The header read clock starts at a head's first byte: a keep-alive
    // connection silent for longer than header_read_timeout_ms (and well
    // under idle_timeout_ms) between two requests still serves the second.
    let mut s = connect();
    let status = format!("GET /v1/status HTTP/1.1\r\nHost: {addr}\r\n\r\n");
    for _ in 0..2 {
        s.write_all(status.as_bytes()).unwrap();
        let answer = read_answer(&mut s);
        assert!(answer.starts_with("HTTP/1.1 200 "), "{answer}");
        std::thread::sleep(Duration::from_millis(1000));
    }
    // And a request being handled is not a head being read: a get waiting
    // longer than header_read_timeout_ms gets its answer (404 / 2033
    // MQRC_NO_MSG_AVAILABLE, docs/http-api.md).
    let mut s = connect();
    let wait = format!(
        "GET /v1/queues/APP.IN/messages/next?wait_ms=1000 HTTP/1.1\r\nHost: {addr}\r\n\r\n"
    );
    s.write_all(wait.as_bytes()).unwrap();
    let answer = read_answer(&mut s);
    assert!(answer.starts_with("HTTP/1.1 404 "), "{answer}");
    assert!(answer.contains("\"mqrc\":2033"), "{answer}");
}

/// Reads one answer (head and a body of its Content-Length) from a
/// keep-alive connection.
fn read_answer(s: &mut std::net::TcpStream) -> String {
    use std::io::Read;
    let mut buf = Vec::new();
    let mut chunk = [0u8; 4096];
    loop {
        let n = s.read(&mut chunk).expect("the answer");
        assert!(
            n > 0,
            "closed before the answer: {:?}",
            String::from_utf8_lossy(&buf)
        );
        buf.extend_from_slice(&chunk[..n]);
        let text = String::from_utf8_lossy(&buf).into_owned();
        if let Some((head, body)) = text.split_once("\r\n\r\n") {
            let len = head
                .lines()
                .find_map(|l| {
                    l.to_ascii_lowercase()
                        .strip_prefix("content-length: ")
                        .and_then(|v| v.trim().parse::<usize>().ok())
                })
                .unwrap_or(0);
            if body.len() >= len {
                return text;
            }
        }
    }
}

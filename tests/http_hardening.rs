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
            // / 2003 MQRC_BACKED_OUT (docs/http-api.md "Devices").
            _ => g.call(
                "POST",
                &format!("{base}/ack/7"),
                Some(("application/octet-stream", b"")),
            ),
        };
        match i % 3 {
            0 => assert_eq!((st, &v), (204, &Value::Null)),
            1 => assert_mq_error(st, &v, 400, 2090, "MQRC_WAIT_INTERVAL_ERROR"),
            _ => assert_mq_error(st, &v, 409, 2003, "MQRC_BACKED_OUT"),
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
    assert!(m["lease"].as_u64().is_some(), "{m}");
}

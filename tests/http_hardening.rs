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

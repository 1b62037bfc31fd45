//! Subject authorities on the Rendezvous routes (docs/security.md "Subject
//! authorities"), against the built binary: a `type: subject` grant in
//! Rendezvous wildcard syntax (TIBCO Rendezvous Concepts, "Using Wildcards
//! to Receive Related Subjects") gives +pub (IBM MQ topic security's
//! publish authority) or +sub (subscribe). Each route is called by a
//! principal that holds the authority and by one that does not; a refusal
//! is 403 with TIBRV_NOT_PERMITTED (27, `tibrv/status.h`) and 2035
//! MQRC_NOT_AUTHORIZED (IBM MQ "API reason codes").

mod common;

use common::Gateway;
use serde_json::{Value, json};
use sha2::{Digest, Sha256};
use std::io::{BufRead, BufReader};
use std::time::Duration;

const PUBLISHER: &str = "publisher-secret-token";
const LISTENER: &str = "listener-secret-token";

fn sha(t: &str) -> String {
    hex::encode(Sha256::digest(t.as_bytes()))
}

/// `publisher` may publish on ORDERS.> (and inquire, for the start probe's
/// `GET /v1/status`), `listener` may listen on ORDERS.>
/// but not on ORDERS.SECRET.> (a more specific profile holding +pub only).
fn config() -> String {
    format!(
        r#"
queue_manager:
  name: QMSUBJ
security:
  tokens:
    - {{ principal: publisher, sha256: "{}" }}
    - {{ principal: listener, sha256: "{}" }}
  authorities:
    - {{ principal: publisher, profile: QMSUBJ, type: qmgr, authorities: [inq] }}
    - {{ principal: publisher, profile: "ORDERS.>", type: subject, authorities: [pub] }}
    - {{ principal: listener, profile: "ORDERS.>", type: subject, authorities: [sub] }}
    - {{ principal: listener, profile: "ORDERS.SECRET.>", type: subject, authorities: [pub] }}
"#,
        sha(PUBLISHER),
        sha(LISTENER)
    )
}

/// `method path` as the holder of `token`, with a JSON body.
fn call(g: &Gateway, token: &str, method: &str, path: &str, body: Option<&Value>) -> (u16, Value) {
    let req = ureq::request(method, &format!("{}{path}", g.base))
        .set("Authorization", &format!("Bearer {token}"));
    let res = match body {
        Some(b) => req
            .set("Content-Type", "application/json")
            .send_string(&b.to_string()),
        None => req.call(),
    };
    let r = match res {
        Ok(r) => r,
        Err(ureq::Error::Status(_, r)) => r,
        Err(e) => panic!("{method} {path}: {e}"),
    };
    (r.status(), r.into_json().unwrap_or(Value::Null))
}

/// The refusal of docs/security.md "Subject authorities".
fn assert_refused(st: u16, v: &Value, principal: &str, authority: &str, subject: &str) {
    assert_eq!(st, 403, "{v}");
    assert_eq!(
        v["tibrv_status"],
        json!({"number": 27, "name": "TIBRV_NOT_PERMITTED"})
    );
    assert_eq!(v["mqrc"], 2035, "{v}");
    assert_eq!(
        v["message"],
        format!("principal \"{principal}\" has no +{authority} authority on subject \"{subject}\"")
    );
}

/// Opens an event stream as `token` and returns its `ready` event's data.
fn ready(g: &Gateway, token: &str, path: &str) -> Value {
    let r = ureq::AgentBuilder::new()
        .timeout_read(Duration::from_secs(30))
        .build()
        .get(&format!("{}{path}", g.base))
        .set("Authorization", &format!("Bearer {token}"))
        .call()
        .unwrap_or_else(|e| panic!("GET {path}: {e}"));
    assert_eq!(r.status(), 200);
    let mut lines = BufReader::new(r.into_reader()).lines();
    let mut event = String::new();
    while let Some(Ok(l)) = lines.next() {
        if let Some(e) = l.strip_prefix("event:") {
            event = e.trim().to_string();
        } else if let Some(d) = l.strip_prefix("data:")
            && event == "ready"
        {
            return serde_json::from_str(d.trim()).unwrap();
        }
    }
    panic!("GET {path}: the stream ended before its ready event");
}

#[test]
fn every_rendezvous_route_checks_the_subject() {
    let dir = tempfile::tempdir().unwrap();
    let g = Gateway::start_with_token(dir.path(), &config(), PUBLISHER);

    // POST /v1/rv/messages/{subject}: +pub.
    let (st, v) = call(&g, PUBLISHER, "POST", "/v1/rv/messages/ORDERS.NEW", None);
    assert_eq!(st, 200, "{v}");
    let (st, v) = call(&g, LISTENER, "POST", "/v1/rv/messages/ORDERS.NEW", None);
    assert_refused(st, &v, "listener", "pub", "ORDERS.NEW");
    let (st, v) = call(&g, PUBLISHER, "POST", "/v1/rv/messages/PRICES.NEW", None);
    assert_refused(st, &v, "publisher", "pub", "PRICES.NEW");

    // POST /v1/rv/requests/{subject}: +pub (the reply comes on the
    // request's own inbox). No one answers: 504 TIBRV_TIMEOUT, after the
    // check.
    let (st, v) = call(
        &g,
        PUBLISHER,
        "POST",
        "/v1/rv/requests/ORDERS.ASK?timeout_ms=10",
        None,
    );
    assert_eq!(st, 504, "{v}");
    let (st, v) = call(&g, LISTENER, "POST", "/v1/rv/requests/ORDERS.ASK", None);
    assert_refused(st, &v, "listener", "pub", "ORDERS.ASK");

    // GET /v1/rv/listen?subject=...: +sub on each pattern; ORDERS.> reaches
    // into ORDERS.SECRET.>, whose more specific profile withholds +sub.
    let r = ready(&g, LISTENER, "/v1/rv/listen?subject=ORDERS.*");
    assert_eq!(r["subjects"], json!(["ORDERS.*"]));
    let (st, v) = call(&g, PUBLISHER, "GET", "/v1/rv/listen?subject=ORDERS.*", None);
    assert_refused(st, &v, "publisher", "sub", "ORDERS.*");
    let (st, v) = call(&g, LISTENER, "GET", "/v1/rv/listen?subject=ORDERS.>", None);
    assert_refused(st, &v, "listener", "sub", "ORDERS.>");
    let (st, v) = call(
        &g,
        LISTENER,
        "GET",
        "/v1/rv/listen?subject=ORDERS.NEW&subject=PRICES.NEW",
        None,
    );
    assert_refused(st, &v, "listener", "sub", "PRICES.NEW");
    // An inbox is the listener's own: no subject authority.
    let r = ready(&g, PUBLISHER, "/v1/rv/listen?inbox=true");
    assert!(r["inbox"].as_str().unwrap().starts_with("_INBOX."), "{r}");

    // Certified delivery: send needs +pub, listen +sub.
    let (st, v) = call(
        &g,
        PUBLISHER,
        "POST",
        "/v1/rv/cm/transports",
        Some(&json!({"name": "CM.A"})),
    );
    assert_eq!(st, 201, "{v}");
    let (st, v) = call(
        &g,
        PUBLISHER,
        "POST",
        "/v1/rv/cm/transports/CM.A/messages/ORDERS.CM",
        None,
    );
    assert_eq!(st, 200, "{v}");
    let (st, v) = call(
        &g,
        LISTENER,
        "POST",
        "/v1/rv/cm/transports/CM.A/messages/ORDERS.CM",
        None,
    );
    assert_refused(st, &v, "listener", "pub", "ORDERS.CM");
    let (st, v) = call(
        &g,
        LISTENER,
        "POST",
        "/v1/rv/cm/transports",
        Some(&json!({"name": "CM.B"})),
    );
    assert_eq!(st, 201, "{v}");
    let r = ready(
        &g,
        LISTENER,
        "/v1/rv/cm/transports/CM.B/listen?subject=ORDERS.CM",
    );
    assert_eq!(r["subjects"], json!(["ORDERS.CM"]));
    let (st, v) = call(
        &g,
        PUBLISHER,
        "GET",
        "/v1/rv/cm/transports/CM.A/listen?subject=ORDERS.CM",
        None,
    );
    assert_refused(st, &v, "publisher", "sub", "ORDERS.CM");

    // A distributed queue member is given the tasks of its subjects: +sub.
    let (st, v) = call(
        &g,
        LISTENER,
        "POST",
        "/v1/rv/dq/WORKERS/members",
        Some(&json!({"subjects": ["ORDERS.WORK"]})),
    );
    assert_eq!(st, 201, "{v}");
    let (st, v) = call(
        &g,
        PUBLISHER,
        "POST",
        "/v1/rv/dq/WORKERS2/members",
        Some(&json!({"subjects": ["ORDERS.WORK2"]})),
    );
    assert_refused(st, &v, "publisher", "sub", "ORDERS.WORK2");
    assert_eq!(v["field"], "subjects");
}

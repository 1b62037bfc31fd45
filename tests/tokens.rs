//! Lease and unit-of-work tokens end to end, against the built binary: what a
//! client is handed is 128 random bits as 32 hex digits (docs/http-api.md
//! "Leases", "Units of work"), never reused by a later run of the gateway on
//! the same store, and a token the gateway does not know — from before a
//! restart, guessed, a unit-of-work token given as a lease, another queue's
//! lease — answers 409 with 2003 MQRC_BACKED_OUT and changes nothing. MQRC
//! values and names: IBM MQ "API reason codes" (2003 MQRC_BACKED_OUT, 2033
//! MQRC_NO_MSG_AVAILABLE); statuses and answer shapes: docs/http-api.md.

mod common;

use common::{Gateway, data, token};
use serde_json::Value;

/// Leases and units of work that outlast every test (60 s idle).
const CONFIG: &str = "
queue_manager:
  name: QMTOKEN
http:
  lease_ms: 60000
  uow_timeout_ms: 60000
queues:
  - type: local
    name: APP.IN
  - type: local
    name: APP.OTHER
  - type: local
    name: APP.UOW
devices:
  queue_managers: [\"DEV*\"]
";

/// The answer docs/http-api.md "Errors" gives for a lease or unit of work
/// that is not open: 409, 2003 MQRC_BACKED_OUT, with a message.
fn assert_not_open(st: u16, v: &Value, what: &str) {
    assert_eq!(st, 409, "{what}: {v}");
    assert_eq!(v["mqrc"], 2003, "{what}: {v}");
    assert_eq!(v["reason"], "MQRC_BACKED_OUT", "{what}: {v}");
    assert!(
        v["message"].as_str().is_some_and(|m| !m.is_empty()),
        "{what}: {v}"
    );
}

fn post(g: &Gateway, path: &str) -> (u16, Value) {
    g.call("POST", path, Some(("application/octet-stream", b"")))
}

/// A destructive get of `q` under a lease: (data, lease token).
fn lease(g: &Gateway, q: &str) -> (Vec<u8>, String) {
    let (st, m) = g.next(q, "");
    assert_eq!(st, 200, "{m}");
    (data(&m), token(&m["lease"]).to_string())
}

/// `POST /v1/uow`: the unit's token.
fn begin(g: &Gateway) -> String {
    let (st, u) = g.call("POST", "/v1/uow", None);
    assert_eq!(st, 201, "{u}");
    token(&u["uow"]).to_string()
}

/// No message of `q` is available to a getter (all held, or none).
fn nothing_available(g: &Gateway, q: &str) {
    let (st, v) = g.next(q, "browse=true");
    assert_eq!((st, &v["mqrc"]), (404, &Value::from(2033)), "{q}: {v}");
}

#[test]
fn tokens_are_32_hex_digits_and_differ_between_runs_on_one_store() {
    let dir = tempfile::tempdir().unwrap();
    let mut g = Gateway::start(dir.path(), CONFIG);
    let mut leases = Vec::new();
    let mut uows = Vec::new();
    for run in 0..2 {
        if run == 1 {
            // The same store directory: a second gateway after the first one
            // stopped (SIGTERM backs out its lease and unit of work).
            assert!(g.terminate().success());
            g.restart();
        }
        assert_eq!(g.put("APP.IN", "persistent=true", b"m").0, 201);
        // `token` checks each is a JSON string of 32 lowercase hex digits.
        leases.push(lease(&g, "APP.IN").1);
        uows.push(begin(&g));
    }
    // Earlier versions counted from 1 in every run: the first lease and the
    // first unit of work of each run had the same number. 128 random bits
    // repeat with probability 2^-128.
    assert_ne!(leases[0], leases[1]);
    assert_ne!(uows[0], uows[1]);
    assert!(
        !leases.iter().any(|l| uows.contains(l)),
        "{leases:?} {uows:?}"
    );
}

/// After a restart — a SIGTERM stop or a kill -9 — the tokens of the
/// earlier run name nothing: an acknowledge, backout or commit with them is
/// 409 / 2003 and leaves the message another client now holds, and the
/// unit of work another client now has, as they were.
#[test]
fn tokens_from_before_a_restart_are_unknown_and_touch_nothing() {
    let dir = tempfile::tempdir().unwrap();
    let mut g = Gateway::start(dir.path(), CONFIG);
    for (run, how) in ["SIGTERM", "kill -9"].iter().enumerate() {
        assert_eq!(g.put("APP.IN", "persistent=true", b"held").0, 201);
        // Before the restart: client 1 holds the message under a lease and
        // has a unit of work with an uncommitted put.
        let (got, old_lease) = lease(&g, "APP.IN");
        assert_eq!(got, b"held");
        let old_uow = begin(&g);
        let put = g.put("APP.UOW", &format!("uow={old_uow}&persistent=true"), b"old");
        assert_eq!(put.0, 201, "{}", put.1);
        if run == 0 {
            assert!(g.terminate().success());
            g.restart();
        } else {
            g.kill9_and_restart();
        }
        // The lease did not survive the restart, its message did (the store
        // conformance suite's leases_and_backouts_survive_a_restart); the
        // uncommitted put is gone. Client 2 now holds the message under a
        // new lease and has a new unit of work with a put.
        assert_eq!(g.depth("APP.UOW"), 0, "{how}: the uncommitted put is gone");
        let (got, new_lease) = lease(&g, "APP.IN");
        assert_eq!(got, b"held", "{how}");
        assert_ne!(new_lease, old_lease, "{how}");
        let new_uow = begin(&g);
        assert_ne!(new_uow, old_uow, "{how}");
        let put = g.put("APP.UOW", &format!("uow={new_uow}&persistent=true"), b"new");
        assert_eq!(put.0, 201, "{}", put.1);

        // Every call with the old tokens: 409 / 2003.
        for path in [
            format!("/v1/queues/APP.IN/messages/ack/{old_lease}"),
            format!("/v1/queues/APP.IN/messages/backout/{old_lease}"),
            format!("/v1/uow/{old_uow}/commit"),
            format!("/v1/uow/{old_uow}/backout"),
        ] {
            let (st, v) = post(&g, &path);
            assert_not_open(st, &v, &format!("{how}: {path}"));
        }
        let (st, v) = g.put("APP.UOW", &format!("uow={old_uow}"), b"x");
        assert_not_open(st, &v, &format!("{how}: a put under the old unit of work"));
        let (st, v) = g.next("APP.UOW", &format!("uow={old_uow}"));
        assert_not_open(st, &v, &format!("{how}: a get under the old unit of work"));

        // Nothing changed: the message is still held (depth 1, none
        // available), the new unit's put still invisible.
        assert_eq!(g.depth("APP.IN"), 1, "{how}");
        nothing_available(&g, "APP.IN");
        assert_eq!(g.depth("APP.UOW"), 1, "{how}");
        nothing_available(&g, "APP.UOW");
        // Client 2's tokens work: the acknowledge removes the message, the
        // commit makes its put visible (docs/http-api.md shapes).
        let (st, v) = post(&g, &format!("/v1/queues/APP.IN/messages/ack/{new_lease}"));
        assert_eq!(st, 200, "{how}: {v}");
        assert_eq!(
            v,
            serde_json::json!({"lease": new_lease, "acknowledged": true})
        );
        assert_eq!(g.depth("APP.IN"), 0, "{how}");
        let (st, v) = post(&g, &format!("/v1/uow/{new_uow}/commit"));
        assert_eq!(st, 200, "{how}: {v}");
        assert_eq!(v, serde_json::json!({"uow": new_uow, "committed": true}));
        let (st, m) = g.get_ack("APP.UOW", "");
        assert_eq!((st, data(&m)), (200, b"new".to_vec()), "{how}");
    }
}

/// Guessing gets nothing: a well-formed token no lease has, a unit-of-work
/// token given as a lease, and a lease token given on another queue (or as
/// a unit of work) are each 409 / 2003, and no message is removed or
/// released.
#[test]
fn guessed_and_mismatched_tokens_are_unknown_and_remove_nothing() {
    let dir = tempfile::tempdir().unwrap();
    let g = Gateway::start(dir.path(), CONFIG);
    assert_eq!(g.put("APP.IN", "persistent=true", b"in").0, 201);
    assert_eq!(g.put("APP.OTHER", "persistent=true", b"other").0, 201);
    assert_eq!(g.put("DEVQ", "q_mgr=DEV1&persistent=true", b"dev").0, 201);
    let (_, in_lease) = lease(&g, "APP.IN");
    let (_, other_lease) = lease(&g, "APP.OTHER");
    let (st, d) = g.call("GET", "/v1/devices/DEV1/queues/DEVQ/messages/next", None);
    assert_eq!(st, 200, "{d}");
    let dev_lease = token(&d["lease"]).to_string();
    let uow = begin(&g);
    // Guesses: the numbers earlier versions handed out, as 32 hex digits,
    // and an arbitrary pattern.
    let guesses = [
        format!("{:032x}", 1),
        format!("{:032x}", 2),
        "0123456789abcdef".repeat(2),
    ];
    let mut attempts: Vec<(String, String)> = Vec::new();
    for guess in &guesses {
        for q in ["APP.IN", "APP.OTHER"] {
            for verb in ["ack", "backout"] {
                attempts.push((
                    format!("a guess on {q}"),
                    format!("/v1/queues/{q}/messages/{verb}/{guess}"),
                ));
            }
        }
        attempts.push((
            "a guess on a device queue".into(),
            format!("/v1/devices/DEV1/queues/DEVQ/messages/ack/{guess}"),
        ));
        attempts.push((
            "a guessed unit of work".into(),
            format!("/v1/uow/{guess}/commit"),
        ));
    }
    for verb in ["ack", "backout"] {
        attempts.push((
            "a unit-of-work token as a lease".into(),
            format!("/v1/queues/APP.IN/messages/{verb}/{uow}"),
        ));
        attempts.push((
            "another queue's lease".into(),
            format!("/v1/queues/APP.OTHER/messages/{verb}/{in_lease}"),
        ));
        attempts.push((
            "another queue's lease".into(),
            format!("/v1/queues/APP.IN/messages/{verb}/{other_lease}"),
        ));
        attempts.push((
            "a device lease on a queue".into(),
            format!("/v1/queues/APP.IN/messages/{verb}/{dev_lease}"),
        ));
    }
    attempts.push((
        "a queue's lease on a device queue".into(),
        format!("/v1/devices/DEV1/queues/DEVQ/messages/ack/{in_lease}"),
    ));
    for verb in ["commit", "backout"] {
        attempts.push((
            "a lease token as a unit of work".into(),
            format!("/v1/uow/{in_lease}/{verb}"),
        ));
    }
    for (what, path) in &attempts {
        let (st, v) = post(&g, path);
        assert_not_open(st, &v, &format!("{what}: {path}"));
    }
    // A lease token is no unit of work to put or get under either.
    let (st, v) = g.put("APP.UOW", &format!("uow={in_lease}"), b"x");
    assert_not_open(st, &v, "a put under a lease token");
    let (st, v) = g.next("APP.OTHER", &format!("uow={in_lease}"));
    assert_not_open(st, &v, "a get under a lease token");

    // Nothing was removed or released: every message is still held.
    for q in ["APP.IN", "APP.OTHER", "DEV1/DEVQ"] {
        assert_eq!(g.depth(q), 1, "{q}");
    }
    nothing_available(&g, "APP.IN");
    nothing_available(&g, "APP.OTHER");
    assert_eq!(g.depth("APP.UOW"), 0);
    // The right tokens still work, on their own queues.
    let (st, v) = post(&g, &format!("/v1/queues/APP.IN/messages/ack/{in_lease}"));
    assert_eq!(st, 200, "{v}");
    let (st, v) = post(
        &g,
        &format!("/v1/queues/APP.OTHER/messages/backout/{other_lease}"),
    );
    assert_eq!((st, &v["backed_out"]), (200, &Value::Bool(true)), "{v}");
    let (st, v) = post(
        &g,
        &format!("/v1/devices/DEV1/queues/DEVQ/messages/ack/{dev_lease}"),
    );
    assert_eq!(st, 200, "{v}");
    let (st, v) = post(&g, &format!("/v1/uow/{uow}/commit"));
    assert_eq!(st, 200, "{v}");
    assert_eq!(g.depth("APP.IN"), 0);
    assert_eq!(g.depth("DEV1/DEVQ"), 0);
    // The backed-out message is back, BackoutCount 1 (IBM MQ "MQBACK").
    let (st, m) = g.get_ack("APP.OTHER", "");
    assert_eq!((st, data(&m)), (200, b"other".to_vec()));
    assert_eq!(m["md"]["BackoutCount"], 1);
}

/// Each kind of token is taken only by its own routes (docs/http-api.md
/// "Tokens"): an RPC conversation id on `/v1/uow` (and as `uow=`), a
/// `/v1/uow` token or a lease token on the RPC conversation routes, and a
/// lease token as a unit of work each answer 409 / 2003 exactly as a token
/// nobody issued — the same message but for the token, naming nothing else
/// (not the lease's queue) — and change nothing. 409 on the RPC routes too,
/// as on the queue API (IBM MQ "API reason codes" 2003 MQRC_BACKED_OUT).
#[test]
fn a_token_of_another_kind_answers_as_an_unknown_one() {
    let dir = tempfile::tempdir().unwrap();
    let g = Gateway::start(dir.path(), CONFIG);
    assert_eq!(g.put("APP.IN", "persistent=true", b"in").0, 201);
    let (_, in_lease) = lease(&g, "APP.IN");
    let uow = begin(&g);
    let (st, c) = g.call("POST", "/v1/rpc/conversations", None);
    assert_eq!(st, 201, "{c}");
    let conv = token(&c["conversation"]).to_string();
    let unknown = "0123456789abcdef".repeat(2);
    let text = |v: &Value, key: &str, t: &str| v[key].as_str().unwrap().replace(t, "TOKEN");

    // The unit-of-work routes.
    let (st, u) = post(&g, &format!("/v1/uow/{unknown}/commit"));
    assert_not_open(st, &u, "an unknown unit of work");
    let want = text(&u, "message", &unknown);
    for (what, t) in [("a conversation id", &conv), ("a lease token", &in_lease)] {
        for verb in ["commit", "backout"] {
            let (st, v) = post(&g, &format!("/v1/uow/{t}/{verb}"));
            assert_not_open(st, &v, what);
            assert_eq!(text(&v, "message", t), want, "{what}: {v}");
            assert!(!v["message"].as_str().unwrap().contains("APP.IN"), "{v}");
        }
        let (st, v) = g.put("APP.UOW", &format!("uow={t}"), b"x");
        assert_not_open(st, &v, what);
        assert_eq!(text(&v, "message", t), want, "{what}: {v}");
    }

    // The RPC conversation routes: CONVERSATION_ENDED, 409 / 2003.
    let (st, r) = post(&g, &format!("/v1/rpc/conversations/{unknown}/commit"));
    assert_eq!(st, 409, "{r}");
    assert_eq!(
        (&r["code"], &r["mqrc"]),
        (&Value::from("CONVERSATION_ENDED"), &Value::from(2003)),
        "{r}"
    );
    let want_rpc = text(&r, "error", &unknown);
    for (what, t) in [("a unit-of-work token", &uow), ("a lease token", &in_lease)] {
        for verb in ["commit", "backout"] {
            let (st, v) = post(&g, &format!("/v1/rpc/conversations/{t}/{verb}"));
            assert_eq!(st, 409, "{what}: {v}");
            assert_eq!(v["code"], "CONVERSATION_ENDED", "{what}: {v}");
            assert_eq!(v["mqrc"], 2003, "{what}: {v}");
            assert_eq!(text(&v, "error", t), want_rpc, "{what}: {v}");
        }
    }

    // Nothing changed: each token still works on its own routes.
    assert_eq!(g.depth("APP.UOW"), 0);
    let (st, v) = post(&g, &format!("/v1/rpc/conversations/{conv}/commit"));
    assert_eq!(st, 200, "{v}");
    let (st, v) = post(&g, &format!("/v1/uow/{uow}/commit"));
    assert_eq!(st, 200, "{v}");
    let (st, v) = post(&g, &format!("/v1/queues/APP.IN/messages/ack/{in_lease}"));
    assert_eq!(st, 200, "{v}");
    assert_eq!(g.depth("APP.IN"), 0);
}

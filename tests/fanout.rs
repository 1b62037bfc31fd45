//! A put to a distribution list (`POST /v1/messages`, IBM MQ "Distribution
//! lists") is one unit of work: one persistent message to 1,000 destination
//! queues is stored on all of them or on none, even when the gateway is
//! killed with SIGKILL while it stores them.
#![cfg(unix)]

mod common;

use common::Gateway;
use serde_json::{Value, json};
use std::collections::HashMap;
use std::time::Duration;

const QUEUES: usize = 1000;

fn config() -> String {
    let mut c = String::from("queues:\n");
    for i in 0..QUEUES {
        c.push_str(&format!("  - type: local\n    name: FAN.{i:04}\n"));
    }
    c
}

fn list_body(round: usize) -> Vec<u8> {
    let destinations: Vec<Value> = (0..QUEUES)
        .map(|i| json!({"queue": format!("FAN.{i:04}")}))
        .collect();
    serde_json::to_vec(&json!({
        "destinations": destinations,
        "md": {"Persistence": 1, "Format": "MQSTR"},
        "data": format!("round {round}"),
    }))
    .unwrap()
}

/// CURDEPTH of every FAN.* queue, from `GET /v1/queues`.
fn depths(g: &Gateway) -> HashMap<String, u64> {
    let (st, v) = g.call("GET", "/v1/queues", None);
    assert_eq!(st, 200, "{v}");
    v.as_array()
        .unwrap()
        .iter()
        .filter(|q| q["name"].as_str().unwrap().starts_with("FAN."))
        .map(|q| {
            (
                q["name"].as_str().unwrap().to_string(),
                q["depth"].as_u64().unwrap(),
            )
        })
        .collect()
}

#[test]
fn a_list_put_to_1000_queues_is_all_or_nothing_across_sigkill() {
    let dir = tempfile::tempdir().unwrap();
    let mut g = Gateway::start(dir.path(), &config());
    // One list put that completes: 1,000 copies, one MsgId each.
    let (st, v) = g.call(
        "POST",
        "/v1/messages",
        Some(("application/json", &list_body(0))),
    );
    assert_eq!(st, 201, "{v}");
    let results = v["results"].as_array().unwrap();
    assert_eq!(results.len(), QUEUES);
    assert_eq!(results[7]["queue"], "FAN.0007");
    assert!(results.iter().all(|r| r["persistent"] == true));
    let ids: std::collections::HashSet<_> = results.iter().map(|r| r["msg_id"].clone()).collect();
    assert_eq!(
        ids.len(),
        QUEUES,
        "MQPMO_NEW_MSG_ID: one MsgId per destination"
    );
    let mut confirmed = 1u64;
    // Rounds killed at different moments of the put.
    for round in 1..=8u64 {
        let base = g.base.clone();
        let body = list_body(round as usize);
        let put = std::thread::spawn(move || {
            ureq::post(&format!("{base}/v1/messages"))
                .set("Content-Type", "application/json")
                .send_bytes(&body)
                .map(|r| r.status())
                .unwrap_or(0)
        });
        std::thread::sleep(Duration::from_millis(5 * round));
        g.kill9();
        let status = put.join().unwrap();
        g.restart();
        let d = depths(&g);
        assert_eq!(d.len(), QUEUES);
        let counts: std::collections::BTreeSet<u64> = d.values().copied().collect();
        assert_eq!(
            counts.len(),
            1,
            "round {round}: every queue holds the same number of messages: {counts:?}"
        );
        let n = *counts.iter().next().unwrap();
        if status == 201 {
            confirmed = round + 1;
        }
        // A confirmed put is never lost; an unconfirmed one is there whole or not at all.
        assert!(
            n >= confirmed && n <= round + 1,
            "round {round}: depth {n}, confirmed {confirmed}"
        );
        confirmed = n;
    }
}

#[test]
fn a_list_put_with_one_bad_destination_stores_nothing() {
    let dir = tempfile::tempdir().unwrap();
    let g = Gateway::start(
        dir.path(),
        "queues:\n  - type: local\n    name: A\n  - type: local\n    name: B\n    max_depth: 1\n",
    );
    let (st, v) = g.put("B", "", b"fills B");
    assert_eq!(st, 201, "{v}");
    let body = json!({
        "destinations": [{"queue": "A"}, {"queue": "B"}],
        "data": "x",
    });
    let (st, v) = g.call(
        "POST",
        "/v1/messages",
        Some(("application/json", &serde_json::to_vec(&body).unwrap())),
    );
    // B is full: 2053 MQRC_Q_FULL (IBM MQ "API reason codes"), naming destination 1.
    assert_eq!(v["mqrc"], 2053, "{v}");
    assert_eq!(st, 503, "{v}");
    assert!(
        v["message"].as_str().unwrap().contains("destination 1 (B)"),
        "{v}"
    );
    assert_eq!(g.depth("A"), 0, "nothing stored");
    // An unknown destination: 2085 MQRC_UNKNOWN_OBJECT_NAME.
    let body = json!({"destinations": [{"queue": "A"}, {"queue": "NOPE"}], "data": "x"});
    let (_, v) = g.call(
        "POST",
        "/v1/messages",
        Some(("application/json", &serde_json::to_vec(&body).unwrap())),
    );
    assert_eq!(v["mqrc"], 2085, "{v}");
    assert_eq!(g.depth("A"), 0);
    // No destinations: 2154 MQRC_RECS_PRESENT_ERROR (IBM MQ "RecsPresent
    // (MQLONG) for MQDH": a list has at least one destination).
    let (st, v) = g.call(
        "POST",
        "/v1/messages",
        Some(("application/json", br#"{"destinations": [], "data": "x"}"#)),
    );
    assert_eq!((st, v["mqrc"].clone()), (400, json!(2154)), "{v}");
    // A body that is no JSON: 400 / 2004 MQRC_BUFFER_ERROR (docs/http-api.md
    // "Errors"), its place named once: serde_json's text for a body cut
    // after `[` ends with " at line 1 column 18", which the message does
    // not repeat (src/http/error.rs `json_error_text`).
    let (st, v) = g.call(
        "POST",
        "/v1/messages",
        Some(("application/json", br#"{"destinations": ["#)),
    );
    assert_eq!((st, v["mqrc"].clone()), (400, json!(2004)), "{v}");
    assert_eq!(
        v["message"],
        "the JSON body is not valid at line 1, column 18: EOF while parsing a list"
    );
    assert_eq!(g.depth("A"), 0);
}

#[test]
fn a_list_put_with_report_bits_no_option_has_is_refused() {
    // Defect report: `"md": {"Report": -1}` in a list put was accepted.
    // IBM MQ "MQMD - Report": a bit no MQRO_* option has is 2061
    // MQRC_REPORT_OPTIONS_ERROR (IBM MQ "API reason codes"); -1 has them
    // all, 0x10000000 (268435456) is in MQRO_REJECT_UNSUP_MASK 0x101C0000,
    // -2147483648 is bit 31 alone. HTTP 400 as docs/http-api.md says.
    let dir = tempfile::tempdir().unwrap();
    let g = Gateway::start(
        dir.path(),
        "queues:\n  - type: local\n    name: A\n  - type: local\n    name: B\n",
    );
    let post = |body: &Value| {
        g.call(
            "POST",
            "/v1/messages",
            Some(("application/json", &serde_json::to_vec(body).unwrap())),
        )
    };
    let dests = json!([{"queue": "A"}, {"queue": "B"}]);
    for report in [-1i64, 268_435_456, -2_147_483_648] {
        let (st, v) = post(&json!({"destinations": dests, "md": {"Report": report}, "data": "x"}));
        assert_eq!((st, v["mqrc"].clone()), (400, json!(2061)), "{report}: {v}");
        assert_eq!(v["reason"], "MQRC_REPORT_OPTIONS_ERROR", "{v}");
        let m = v["message"].as_str().unwrap();
        assert!(m.starts_with(&format!("md.Report {report}: ")), "{m}");
    }
    // The query parameter of the list put names itself.
    let (st, v) = g.call(
        "POST",
        "/v1/messages?report=-1",
        Some((
            "application/json",
            &serde_json::to_vec(&json!({"destinations": dests, "data": "x"})).unwrap(),
        )),
    );
    assert_eq!((st, v["mqrc"].clone()), (400, json!(2061)), "{v}");
    assert!(
        v["message"].as_str().unwrap().starts_with("report -1: "),
        "{v}"
    );
    assert_eq!((g.depth("A"), g.depth("B")), (0, 0), "nothing stored");
    // Every defined MQRO_* bit together, 0x0FE07FC7 (the sum of the
    // options listed in IBM MQ "MQMD - Report"), is accepted on both copies.
    let (st, v) = post(&json!({"destinations": dests, "md": {"Report": 0x0FE0_7FC7}, "data": "x"}));
    assert_eq!(st, 201, "{v}");
    assert_eq!((g.depth("A"), g.depth("B")), (1, 1));
}

#[test]
fn a_list_put_takes_only_a_json_content_type() {
    // Defect report: `POST /v1/messages` read the body as JSON whatever its
    // Content-Type said. docs/http-api.md "`POST /v1/messages`": the body
    // is JSON, sent as `application/json` in any case and with parameters
    // (RFC 9110 §8.3.1 "Media Type"); any other type, or none, is 415 (RFC
    // 9110 §15.5.16) with 2004 MQRC_BUFFER_ERROR naming it, and nothing is
    // stored.
    let dir = tempfile::tempdir().unwrap();
    let g = Gateway::start(dir.path(), "queues:\n  - type: local\n    name: A\n");
    let body = serde_json::to_vec(&json!({"destinations": [{"queue": "A"}], "data": "x"})).unwrap();
    for ctype in [
        "text/plain",
        "application/x-www-form-urlencoded",
        "application/octet-stream",
    ] {
        let (st, v) = g.call("POST", "/v1/messages", Some((ctype, &body)));
        assert_eq!((st, v["mqrc"].clone()), (415, json!(2004)), "{ctype}: {v}");
        assert_eq!(v["reason"], "MQRC_BUFFER_ERROR", "{v}");
        assert_eq!(
            v["message"],
            format!(
                "Content-Type \"{ctype}\" is not supported by POST /v1/messages: its body is JSON; send Content-Type: application/json"
            ),
            "{v}"
        );
    }
    // No Content-Type at all (ureq sends none for a body without one).
    let r = ureq::post(&format!("{}/v1/messages", g.base)).send_bytes(&body);
    let Err(ureq::Error::Status(415, r)) = r else {
        panic!("expected 415, got {r:?}");
    };
    let v: Value = r.into_json().unwrap();
    assert_eq!(v["mqrc"], 2004, "{v}");
    assert!(
        v["message"]
            .as_str()
            .unwrap()
            .contains("the request has no Content-Type"),
        "{v}"
    );
    assert_eq!(g.depth("A"), 0, "nothing stored");
    // The JSON type in another case and with a parameter is a list put.
    let (st, v) = g.call(
        "POST",
        "/v1/messages",
        Some(("Application/JSON; charset=utf-8", &body)),
    );
    assert_eq!(st, 201, "{v}");
    assert_eq!(g.depth("A"), 1);
}

#[test]
fn a_list_put_names_each_destination_one_way_in_every_error() {
    // Defect report: a name the queue manager refused was `destinations[1]`,
    // a failed put `destination 1 (B)` without its queue manager.
    // docs/http-api.md "`POST /v1/messages`": `destination N (QUEUE)` or
    // `destination N (QUEUE%QMGR)`, N from 0, a name that is no MQ name
    // quoted; the reasons are IBM MQ's ("API reason codes").
    let dir = tempfile::tempdir().unwrap();
    let g = Gateway::start(
        dir.path(),
        "queue_manager:\n  name: MQGATE\nqueues:\n  - type: local\n    name: A\n",
    );
    let post = |destinations: Value| {
        let body = json!({"destinations": destinations, "data": "x"});
        g.call(
            "POST",
            "/v1/messages",
            Some(("application/json", &serde_json::to_vec(&body).unwrap())),
        )
    };
    let cases = [
        // A name MQ's rules refuse (IBM MQ "Rules for naming IBM MQ
        // objects"): 2152 MQRC_OBJECT_NAME_ERROR, 2058 MQRC_Q_MGR_NAME_ERROR.
        (
            json!([{"queue": "A"}, {"queue": "BAD NAME"}]),
            2152,
            "destination 1 (\"BAD NAME\"): ",
        ),
        (
            json!([{"queue": "A"}, {"queue": "A", "q_mgr": "bad qm"}]),
            2058,
            "destination 1 (\"A%bad qm\"): ",
        ),
        // Not defined at this queue manager: 2085 MQRC_UNKNOWN_OBJECT_NAME.
        (
            json!([{"queue": "A"}, {"queue": "NOPE", "q_mgr": "MQGATE"}]),
            2085,
            "destination 1 (NOPE%MQGATE): ",
        ),
        (
            json!([{"queue": "NOPE"}, {"queue": "A"}]),
            2085,
            "destination 0 (NOPE): ",
        ),
    ];
    for (destinations, mqrc, start) in cases {
        let (_, v) = post(destinations.clone());
        assert_eq!(v["mqrc"], mqrc, "{destinations}: {v}");
        let m = v["message"].as_str().unwrap();
        assert!(m.starts_with(start), "{destinations}: {m}");
        assert!(m.ends_with("; nothing was put"), "{destinations}: {m}");
    }
    assert_eq!(g.depth("A"), 0, "nothing stored");
}

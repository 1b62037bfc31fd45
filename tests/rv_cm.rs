//! Certified delivery (RVCM) end to end through a gateway run as a child
//! process: registration (discovery, AddListener, DisallowListener),
//! automatic and explicit confirmation, time limits, a listener that goes
//! away and comes back with requestOld, idle transports, refusals, and a
//! kill -9 of the gateway that holds a sender's ledger.
//!
//! Expected behaviour: TIBCO Rendezvous Concepts, "Certified Message
//! Delivery" (discovery and registration, confirmation, requestOld), the
//! RVCM advisory pages ("DELIVERY.CONFIRM", "DELIVERY.COMPLETE",
//! "DELIVERY.FAILED", "DELIVERY.NO_RESPONSE", "REGISTRATION.REQUEST",
//! "REGISTRATION.CERTIFIED", "REGISTRATION.DISCOVERY",
//! "REGISTRATION.NOT_CERTIFIED", "REGISTRATION.CLOSED") for subjects and
//! fields; the C Reference pages "tibrvMsg_GetCMSequence()" (0 = not
//! certified), "tibrvcmTransport_AddListener()" and
//! "tibrvcmEvent_ConfirmMsg()" (TIBRV_NOT_PERMITTED); mqgate's choices
//! (per-subject numbering, routes, statuses) are docs/rendezvous.md
//! "Certified delivery"; the status numbers are those of `tibrv/status.h`.

mod common;

use common::sse::Sse;

use serde_json::{Value, json};
use std::io::{BufRead, BufReader};
use std::time::{Duration, Instant};

/// The value of the first field named `name` of a message's JSON form.
fn field<'a>(m: &'a Value, name: &str) -> &'a Value {
    m["fields"]
        .as_array()
        .and_then(|f| f.iter().find(|f| f["name"] == name))
        .map(|f| &f["value"])
        .unwrap_or_else(|| panic!("no field {name} in {m}"))
}

/// Every value of the fields named `name`.
fn fields<'a>(m: &'a Value, name: &str) -> Vec<&'a Value> {
    m["fields"]
        .as_array()
        .map(|f| {
            f.iter()
                .filter(|f| f["name"] == name)
                .map(|f| &f["value"])
                .collect()
        })
        .unwrap_or_default()
}

/// Percent-encodes everything but letters, digits, `.`, `_` and `-`.
fn pct(s: &str) -> String {
    s.bytes()
        .map(|b| {
            if b.is_ascii_alphanumeric() || matches!(b, b'.' | b'_' | b'-') {
                (b as char).to_string()
            } else {
                format!("%{b:02X}")
            }
        })
        .collect()
}

fn post(g: &common::Gateway, path: &str, body: &Value) -> (u16, Value) {
    g.call(
        "POST",
        path,
        Some(("application/json", body.to_string().as_bytes())),
    )
}

/// Opens transport `body` and asserts it was created.
fn create(g: &common::Gateway, body: Value) -> Value {
    let (st, v) = post(g, "/v1/rv/cm/transports", &body);
    assert_eq!(st, 201, "{v}");
    v
}

/// A certified send; returns the answer.
fn send(g: &common::Gateway, cm: &str, subject: &str, query: &str, n: i32) -> Value {
    let (st, v) = post(
        g,
        &format!("/v1/rv/cm/transports/{cm}/messages/{subject}{query}"),
        &json!({"fields": [{"name": "n", "type": "i32", "value": n}]}),
    );
    assert_eq!(st, 200, "{v}");
    v
}

fn confirm(g: &common::Gateway, cm: &str, sender: &str, subject: &str, seq: u64) -> (u16, Value) {
    post(
        g,
        &format!("/v1/rv/cm/transports/{cm}/confirm"),
        &json!({"sender": sender, "subject": subject, "sequence": seq}),
    )
}

fn listen(g: &common::Gateway, cm: &str, subject: &str, confirm: &str) -> Sse {
    let s = Sse::open(format!(
        "{}/v1/rv/cm/transports/{cm}/listen?subject={}&confirm={confirm}",
        g.base,
        pct(subject)
    ));
    let r = s.ready();
    assert_eq!(r["transport"], cm, "{r}");
    s
}

/// A listener on every advisory of the gateway (`_RV.>`).
fn advisories(g: &common::Gateway) -> Sse {
    let s = Sse::open(format!("{}/v1/rv/listen?subject={}", g.base, pct("_RV.>")));
    s.ready();
    s
}

/// The CM labels of a message: (sender, sequence).
fn labels(m: &Value) -> (String, u64) {
    (
        m["cm"]["sender"].as_str().unwrap().to_string(),
        m["cm"]["sequence"].as_str().unwrap().parse().unwrap(),
    )
}

fn n_of(m: &Value) -> i64 {
    field(m, "n").as_i64().unwrap()
}

/// `GET /v1/rv/cm/transports/{name}`.
fn inspect(g: &common::Gateway, cm: &str) -> Value {
    let (st, v) = g.call("GET", &format!("/v1/rv/cm/transports/{cm}"), None);
    assert_eq!(st, 200, "{v}");
    v
}

/// The sequence numbers the sender keeps (`sender.pending`).
fn pending(g: &common::Gateway, cm: &str) -> Vec<u64> {
    inspect(g, cm)["sender"]["pending"]
        .as_array()
        .unwrap()
        .iter()
        .map(|p| p["sequence"].as_str().unwrap().parse().unwrap())
        .collect()
}

/// Waits until listener `cm`'s first agreement is certified: its sender's
/// acceptance was read ("Certified Message Delivery": until then labeled
/// messages arrive uncertified).
fn wait_certified(g: &common::Gateway, cm: &str) {
    wait_for("the agreement to be certified", || {
        inspect(g, cm)["listener"]["agreements"][0]["state"] == "certified"
    });
}

fn wait_for(what: &str, mut ok: impl FnMut() -> bool) {
    let deadline = Instant::now() + Duration::from_secs(20);
    while Instant::now() < deadline {
        if ok() {
            return;
        }
        std::thread::sleep(Duration::from_millis(50));
    }
    panic!("timed out waiting for {what}");
}

#[test]
fn discovery_registration_and_automatic_confirmation() {
    let dir = tempfile::tempdir().unwrap();
    let g = common::Gateway::start(dir.path(), "");
    let adv = advisories(&g);
    create(&g, json!({"name": "PRICER"}));
    create(&g, json!({"name": "DESK"}));
    let l = listen(&g, "DESK", "ORDERS.NEW", "auto");

    // The first labeled message from an unknown sender is delivered
    // uncertified: sequence 0 ("tibrvMsg_GetCMSequence()").
    let v = send(&g, "PRICER", "ORDERS.NEW", "", 1);
    assert_eq!(v["sequence"], "1", "per-subject numbering starts at 1");
    let m = l.message();
    assert_eq!(labels(&m), ("PRICER".into(), 0));
    assert_eq!(n_of(&m), 1);

    // Discovery: the listener presents DISCOVERY, the sender accepts and
    // presents REQUEST, the listener presents CERTIFIED from the next
    // number (2).
    let a = adv.until("_RV.INFO.RVCM.REGISTRATION.DISCOVERY.ORDERS.NEW");
    assert_eq!(field(&a, "subject"), "ORDERS.NEW");
    assert_eq!(field(&a, "sender"), "PRICER");
    assert_eq!(field(&a, "cm_name"), "DESK");
    let a = adv.until("_RV.INFO.RVCM.REGISTRATION.REQUEST.ORDERS.NEW");
    assert_eq!(field(&a, "listener"), "DESK");
    assert_eq!(field(&a, "cm_name"), "PRICER");
    let a = adv.until("_RV.INFO.RVCM.REGISTRATION.CERTIFIED.ORDERS.NEW");
    assert_eq!(field(&a, "sender"), "PRICER");
    assert_eq!(field(&a, "seqno_begin"), "2", "u64 in its JSON form");

    // Now certified: the number as sent, confirmed automatically, and the
    // sender presents CONFIRM then COMPLETE and keeps nothing.
    send(&g, "PRICER", "ORDERS.NEW", "", 2);
    let m = l.message();
    assert_eq!(labels(&m), ("PRICER".into(), 2));
    let a = adv.until("_RV.INFO.RVCM.DELIVERY.CONFIRM.ORDERS.NEW");
    assert_eq!(
        (field(&a, "listener"), field(&a, "seqno")),
        (&json!("DESK"), &json!("2"))
    );
    let a = adv.until("_RV.INFO.RVCM.DELIVERY.COMPLETE.ORDERS.NEW");
    assert_eq!(field(&a, "seqno"), "2");
    assert_eq!(pending(&g, "PRICER"), Vec::<u64>::new());
    let d = inspect(&g, "DESK");
    assert_eq!(d["listener"]["agreements"][0]["state"], "certified", "{d}");
    assert_eq!(d["listener"]["agreements"][0]["confirmed_through"], "2");

    // Another subject is numbered on its own.
    assert_eq!(send(&g, "PRICER", "ORDERS.OLD", "", 9)["sequence"], "1");
}

#[test]
fn explicit_confirmation_time_limits_and_no_response() {
    let dir = tempfile::tempdir().unwrap();
    let g = common::Gateway::start(dir.path(), "");
    let adv = advisories(&g);
    create(&g, json!({"name": "PRICER", "no_response_s": 0.5}));
    // AddListener before the listener exists: messages are kept for it.
    let (st, v) = post(
        &g,
        "/v1/rv/cm/transports/PRICER/listeners/DESK",
        &json!({"action": "add", "subject": "Q.A"}),
    );
    assert_eq!((st, &v["changed"]), (200, &json!(true)), "{v}");
    create(&g, json!({"name": "DESK", "request_old": true}));
    let l = listen(&g, "DESK", "Q.A", "explicit");
    let a = adv.until("_RV.INFO.RVCM.REGISTRATION.CERTIFIED.Q.A");
    assert_eq!(
        field(&a, "seqno_begin"),
        "1",
        "pre-registered before any send"
    );

    send(&g, "PRICER", "Q.A", "", 1);
    send(&g, "PRICER", "Q.A", "?time_limit_s=1", 2);
    send(&g, "PRICER", "Q.A", "", 3);
    let got: Vec<(String, u64)> = (0..3).map(|_| labels(&l.message())).collect();
    assert_eq!(
        got,
        [
            ("PRICER".into(), 1),
            ("PRICER".into(), 2),
            ("PRICER".into(), 3)
        ]
    );
    assert_eq!(pending(&g, "PRICER"), [1, 2, 3], "nothing confirmed yet");

    // Explicit confirmation of 1: CONFIRM and COMPLETE.
    let (st, v) = confirm(&g, "DESK", "PRICER", "Q.A", 1);
    assert_eq!((st, &v["confirmed"]), (200, &json!(true)), "{v}");
    let a = adv.until("_RV.INFO.RVCM.DELIVERY.COMPLETE.Q.A");
    assert_eq!(field(&a, "seqno"), "1");

    // 2's time limit (1 s) passes unconfirmed: DELIVERY.FAILED with the
    // message's data and the listener, and it leaves the ledger.
    let a = adv.until("_RV.ERROR.RVCM.DELIVERY.FAILED.Q.A");
    assert_eq!(field(&a, "seqno"), "2");
    assert_eq!(fields(&a, "listener"), [&json!("DESK")]);
    assert_eq!(
        field(&a, "data")[0]["value"],
        2,
        "the failed message's field n"
    );
    assert_eq!(pending(&g, "PRICER"), [3]);

    // 3 stays unconfirmed past no_response_s: DELIVERY.NO_RESPONSE.DESK.
    let a = adv.until("_RV.WARN.RVCM.DELIVERY.NO_RESPONSE.DESK");
    assert_eq!(field(&a, "listener"), "DESK");

    // Refusals of "tibrvcmEvent_ConfirmMsg()": a sender without a
    // certified agreement (TIBRV_NOT_PERMITTED 27); a message never
    // delivered (TIBRV_INVALID_ARG 3).
    let (st, v) = confirm(&g, "DESK", "NOBODY", "Q.A", 1);
    assert_eq!((st, &v["tibrv_status"]["number"]), (403, &json!(27)), "{v}");
    let (st, v) = confirm(&g, "DESK", "PRICER", "Q.A", 99);
    assert_eq!((st, &v["tibrv_status"]["number"]), (400, &json!(3)), "{v}");
    assert_eq!(v["field"], "sequence");
}

#[test]
fn disallowed_listeners_get_uncertified_delivery() {
    let dir = tempfile::tempdir().unwrap();
    let g = common::Gateway::start(dir.path(), "");
    let adv = advisories(&g);
    create(&g, json!({"name": "PRICER"}));
    create(&g, json!({"name": "DESK"}));
    let l = listen(&g, "DESK", "T.X", "auto");
    send(&g, "PRICER", "T.X", "", 1);
    assert_eq!(labels(&l.message()).1, 0);
    adv.until("_RV.INFO.RVCM.REGISTRATION.CERTIFIED.T.X");
    send(&g, "PRICER", "T.X", "", 2);
    assert_eq!(labels(&l.message()).1, 2);

    // DisallowListener: the sender closes the agreement (CLOSED), the
    // listener is told (NOT_CERTIFIED) and keeps receiving, uncertified.
    let (st, v) = post(
        &g,
        "/v1/rv/cm/transports/PRICER/listeners/DESK",
        &json!({"action": "disallow"}),
    );
    assert_eq!((st, &v["changed"]), (200, &json!(true)), "{v}");
    let a = adv.until("_RV.INFO.RVCM.REGISTRATION.CLOSED.T.X");
    assert_eq!(field(&a, "listener"), "DESK");
    let a = adv.until("_RV.WARN.RVCM.REGISTRATION.NOT_CERTIFIED.T.X");
    assert_eq!(field(&a, "sender"), "PRICER");
    send(&g, "PRICER", "T.X", "", 3);
    let m = l.message();
    assert_eq!((labels(&m).1, n_of(&m)), (0, 3));
    assert_eq!(pending(&g, "PRICER"), Vec::<u64>::new(), "kept for nobody");

    // AddListener of a disallowed listener: TIBRV_NOT_PERMITTED
    // ("tibrvcmTransport_AddListener()"); allowed again, it may be added.
    let add = json!({"action": "add", "subject": "T.X"});
    let (st, v) = post(&g, "/v1/rv/cm/transports/PRICER/listeners/DESK", &add);
    assert_eq!((st, &v["tibrv_status"]["number"]), (403, &json!(27)), "{v}");
    let (st, _) = post(
        &g,
        "/v1/rv/cm/transports/PRICER/listeners/DESK",
        &json!({"action": "allow"}),
    );
    assert_eq!(st, 200);
    let (st, v) = post(&g, "/v1/rv/cm/transports/PRICER/listeners/DESK", &add);
    assert_eq!((st, &v["changed"]), (200, &json!(true)), "{v}");
}

#[test]
fn a_listener_that_comes_back_gets_exactly_what_it_did_not_confirm() {
    let dir = tempfile::tempdir().unwrap();
    let g = common::Gateway::start(dir.path(), "");
    let adv = advisories(&g);
    create(&g, json!({"name": "PRICER"}));
    post(
        &g,
        "/v1/rv/cm/transports/PRICER/listeners/DESK",
        &json!({"action": "add", "subject": "Q.B"}),
    );
    create(&g, json!({"name": "DESK", "request_old": true}));
    let l = listen(&g, "DESK", "Q.B", "explicit");
    wait_certified(&g, "DESK");
    for n in 1..=5 {
        send(&g, "PRICER", "Q.B", "", n);
    }
    for n in 1..=5 {
        assert_eq!(labels(&l.message()).1, n);
    }
    for n in [1, 2] {
        assert_eq!(confirm(&g, "DESK", "PRICER", "Q.B", n).0, 200);
        let a = adv.until("_RV.INFO.RVCM.DELIVERY.COMPLETE.Q.B");
        assert_eq!(field(&a, "seqno"), &json!(n.to_string()));
    }

    // The listener goes away (its transport closes; its stream ends) ...
    let (st, _) = g.call("DELETE", "/v1/rv/cm/transports/DESK", None);
    assert_eq!(st, 200);
    let (event, data) = l.next(Duration::from_secs(20)).unwrap();
    assert_eq!(event, "end");
    assert_eq!(data, r#"{"reason":"the transport closed"}"#);
    // ... a message is sent meanwhile, kept for it ...
    send(&g, "PRICER", "Q.B", "", 6);
    assert_eq!(pending(&g, "PRICER"), [3, 4, 5, 6]);

    // ... and it comes back under the same name with requestOld: the
    // sender sends what it did not confirm, and only that.
    create(&g, json!({"name": "DESK", "request_old": true}));
    let l = listen(&g, "DESK", "Q.B", "explicit");
    let got: Vec<(u64, i64)> = (0..4)
        .map(|_| {
            let m = l.message();
            (labels(&m).1, n_of(&m))
        })
        .collect();
    assert_eq!(got, [(3, 3), (4, 4), (5, 5), (6, 6)]);
    send(&g, "PRICER", "Q.B", "", 7);
    assert_eq!(labels(&l.message()).1, 7, "nothing else came before it");
    assert!(l.quiet(Duration::from_millis(300)).is_none());
}

#[test]
fn transports_without_a_client_close_and_refusals_are_json() {
    let dir = tempfile::tempdir().unwrap();
    let g = common::Gateway::start(dir.path(), "");
    // A generated name: unique, not reusable; it closes when idle.
    let v = create(&g, json!({"idle_timeout_ms": 1000}));
    let name = v["name"].as_str().unwrap().to_string();
    assert!(name.starts_with("cm."), "{v}");
    assert_eq!(
        (&v["reusable"], &v["persistent"]),
        (&json!(false), &json!(false))
    );
    // Every call keeps a transport (GET included), so look once, after
    // the timeout and a sweep (1 s) have passed.
    std::thread::sleep(Duration::from_millis(2500));
    let (st, v) = g.call("GET", &format!("/v1/rv/cm/transports/{name}"), None);
    assert_eq!(
        (st, &v["tibrv_status"]["name"]),
        (404, &json!("TIBRV_NOT_FOUND"))
    );

    // Names are reusable names ("Reusable Names"): no reserved first
    // element, at most 50 bytes.
    let (st, v) = post(&g, "/v1/rv/cm/transports", &json!({"name": "_RV.X"}));
    assert_eq!((st, &v["tibrv_status"]["number"]), (400, &json!(20)), "{v}");
    assert_eq!(v["field"], "name");
    let long = "N".repeat(51);
    let (st, v) = post(&g, "/v1/rv/cm/transports", &json!({"name": long}));
    assert_eq!(st, 400, "{v}");
    assert!(
        v["message"]
            .as_str()
            .unwrap()
            .contains("over the 50-character limit of reusable names"),
        "{v}"
    );
    // A store ledger needs a reusable name.
    let (st, v) = post(&g, "/v1/rv/cm/transports", &json!({"ledger": "store"}));
    assert_eq!((st, &v["field"]), (400, &json!("ledger")), "{v}");
    // The same name with another ledger: TIBRV_ALREADY_EXISTS (91).
    create(&g, json!({"name": "ONE"}));
    let (st, v) = post(
        &g,
        "/v1/rv/cm/transports",
        &json!({"name": "ONE", "ledger": "store"}),
    );
    assert_eq!((st, &v["tibrv_status"]["number"]), (409, &json!(91)), "{v}");
    // The same settings: the open transport, 200.
    let (st, v) = post(&g, "/v1/rv/cm/transports", &json!({"name": "ONE"}));
    assert_eq!((st, &v["created"]), (200, &json!(false)), "{v}");
    // Certified sends never go to wildcard subjects ("Subject Name
    // Syntax": CM transports cannot send to wildcards).
    let (st, v) = post(&g, "/v1/rv/cm/transports/ONE/messages/A.*", &json!({}));
    assert_eq!((st, &v["tibrv_status"]["number"]), (400, &json!(20)), "{v}");
    assert!(
        v["message"]
            .as_str()
            .unwrap()
            .contains("certified delivery and distributed queues cannot send to wildcard subjects"),
        "{v}"
    );
    let (st, v) = post(
        &g,
        "/v1/rv/cm/transports/ONE/messages/A?time_limit_s=-1",
        &json!({}),
    );
    assert_eq!((st, &v["field"]), (400, &json!("time_limit_s")), "{v}");
    let (st, v) = post(
        &g,
        "/v1/rv/cm/transports/ONE/listeners/X",
        &json!({"action": "dance"}),
    );
    assert_eq!((st, &v["field"]), (400, &json!("action")), "{v}");
    let (st, _) = g.call("DELETE", "/v1/rv/cm/transports/ONE", None);
    assert_eq!(st, 200);
}

#[test]
fn kill9_of_the_gateway_loses_no_unconfirmed_message_and_repeats_no_confirmed_one() {
    const N: u64 = 40;
    let dir = tempfile::tempdir().unwrap();
    let mut g = common::Gateway::start(dir.path(), "");
    create(&g, json!({"name": "PRICER", "ledger": "store"}));
    post(
        &g,
        "/v1/rv/cm/transports/PRICER/listeners/DESK",
        &json!({"action": "add", "subject": "K.X"}),
    );
    create(
        &g,
        json!({"name": "DESK", "ledger": "store", "request_old": true}),
    );
    let l = listen(&g, "DESK", "K.X", "explicit");
    wait_certified(&g, "DESK");
    for n in 1..=N {
        send(&g, "PRICER", "K.X", "", n as i32);
    }
    for n in 1..=N {
        assert_eq!(labels(&l.message()).1, n);
    }
    // The odd ones are confirmed; the sender has read every confirmation
    // before the kill.
    for n in (1..=N).step_by(2) {
        assert_eq!(confirm(&g, "DESK", "PRICER", "K.X", n).0, 200);
    }
    let evens: Vec<u64> = (2..=N).step_by(2).collect();
    wait_for("the sender to read the confirmations", || {
        pending(&g, "PRICER") == evens
    });
    drop(l);

    g.kill9_and_restart();

    // Both persistent transports are back with their ledgers.
    assert_eq!(pending(&g, "PRICER"), evens, "no unconfirmed message lost");
    let (st, v) = post(
        &g,
        "/v1/rv/cm/transports",
        &json!({"name": "DESK", "ledger": "store", "request_old": true}),
    );
    assert_eq!((st, &v["created"]), (200, &json!(false)), "{v}");
    let l = listen(&g, "DESK", "K.X", "explicit");
    let mut got: Vec<u64> = (0..evens.len()).map(|_| labels(&l.message()).1).collect();
    got.sort_unstable();
    assert_eq!(got, evens, "exactly the unconfirmed ones");
    // Numbering goes on after the restart, and nothing confirmed came
    // before the next message.
    assert_eq!(
        send(&g, "PRICER", "K.X", "", 0)["sequence"],
        (N + 1).to_string()
    );
    assert_eq!(labels(&l.message()).1, N + 1);
    for n in evens.iter().copied().chain([N + 1]) {
        assert_eq!(confirm(&g, "DESK", "PRICER", "K.X", n).0, 200);
    }
    wait_for("the sender's ledger to empty", || {
        pending(&g, "PRICER").is_empty()
    });
}

/// `mqgate ARGS --gateway URL`: (exit status, stdout, stderr).
fn mqgate(g: &common::Gateway, args: &[&str]) -> (i32, String, String) {
    let out = std::process::Command::new(common::BIN)
        .args(args)
        .args(["--gateway", &g.base])
        .output()
        .unwrap();
    (
        out.status.code().unwrap_or(-1),
        String::from_utf8_lossy(&out.stdout).into_owned(),
        String::from_utf8_lossy(&out.stderr).into_owned(),
    )
}

#[test]
fn the_command_line_sends_listens_and_confirms_certified() {
    use std::io::Read;
    let dir = tempfile::tempdir().unwrap();
    let g = common::Gateway::start(dir.path(), "");
    let mut listen = std::process::Command::new(common::BIN)
        .args([
            "rv",
            "listen",
            "--cm-name",
            "DESK",
            "--subject",
            "C.X",
            "--count",
            "2",
            "--timeout",
            "20000",
            "--gateway",
            &g.base,
        ])
        .stdout(std::process::Stdio::piped())
        .stderr(std::process::Stdio::piped())
        .spawn()
        .unwrap();
    let mut err = BufReader::new(listen.stderr.take().unwrap());
    let mut line = String::new();
    err.read_line(&mut line).unwrap();
    assert_eq!(line, "mqgate rv listen: listening to C.X\n");

    // docs/rendezvous.md "Command line": `published SUBJECT as
    // SENDER/SEQUENCE to N listeners`; the first message is uncertified.
    let (code, out, e) = mqgate(
        &g,
        &[
            "rv",
            "publish",
            "--cm-name",
            "PRICER",
            "--subject",
            "C.X",
            "--field",
            "n:i32=1",
        ],
    );
    assert_eq!(
        (code, out.as_str()),
        (0, "published C.X as PRICER/1 to 1 listener\n"),
        "{e}"
    );
    wait_certified(&g, "DESK");
    let (code, out, _) = mqgate(
        &g,
        &[
            "rv",
            "publish",
            "--cm-name",
            "PRICER",
            "--subject",
            "C.X",
            "--field",
            "n:i32=2",
            "--time-limit",
            "30",
        ],
    );
    assert_eq!(
        (code, out.as_str()),
        (0, "published C.X as PRICER/2 to 1 listener\n")
    );
    let status = listen.wait().unwrap();
    let mut out = String::new();
    listen
        .stdout
        .take()
        .unwrap()
        .read_to_string(&mut out)
        .unwrap();
    assert!(status.success());
    // The line form: cm=SENDER/SEQUENCE, 0 when not certified.
    assert_eq!(out, "C.X cm=PRICER/0 n:i32=1\nC.X cm=PRICER/2 n:i32=2\n");

    // Confirming again is allowed (the confirmation is sent again); a
    // sender without an agreement is refused with TIBRV_NOT_PERMITTED.
    let (code, out, _) = mqgate(
        &g,
        &[
            "rv",
            "confirm",
            "--cm-name",
            "DESK",
            "--sender",
            "PRICER",
            "--subject",
            "C.X",
            "--sequence",
            "2",
        ],
    );
    assert_eq!((code, out.as_str()), (0, "confirmed C.X PRICER/2\n"));
    let (code, _, e) = mqgate(
        &g,
        &[
            "rv",
            "confirm",
            "--cm-name",
            "DESK",
            "--sender",
            "NOBODY",
            "--subject",
            "C.X",
            "--sequence",
            "2",
        ],
    );
    assert_eq!(code, 1);
    assert!(e.ends_with("(TIBRV_NOT_PERMITTED 27)\n"), "{e}");
    let (code, out, _) = mqgate(
        &g,
        &[
            "rv",
            "cm-listener",
            "--cm-name",
            "PRICER",
            "--listener",
            "DESK",
            "--disallow",
        ],
    );
    assert_eq!((code, out.as_str()), (0, "disallow DESK done\n"));
    // --time-limit needs --cm-name (a usage error, exit 2).
    let (code, _, _) = mqgate(
        &g,
        &["rv", "publish", "--subject", "C.X", "--time-limit", "1"],
    );
    assert_eq!(code, 2);
}

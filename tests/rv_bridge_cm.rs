//! Certified bridges between queues and subjects (docs/rendezvous.md
//! "Certified bridges") in a gateway run as a child process, so that it
//! can be killed with SIGKILL: persistent messages from a queue reach a
//! certified listener exactly once, and certified messages on a subject
//! reach a queue as persistent messages exactly once, across a kill -9.
//!
//! Expected behaviour: TIBCO Rendezvous Concepts, "Certified Message
//! Delivery" (discovery, registration, confirmation, requestOld; a message
//! is kept for the listeners registered when it was sent); C Reference
//! "tibrvMsg_GetCMSequence()" (0 = not certified) and
//! "tibrvcmTransport_AddListener()"; IBM MQ "Units of work" (a unit's
//! gets and puts are durable together at commit, undone by a crash before
//! it) and "Persistence" (MQMD Persistence 1 MQPER_PERSISTENT); mqgate's
//! choices (per-subject numbering from 1, the routes, the JSON body form)
//! are docs/rendezvous.md "Certified delivery", "Bridge to MQ queues" and
//! "Certified bridges".

mod common;

use serde_json::{Value, json};
use std::collections::{BTreeMap, BTreeSet};
use std::io::{BufRead, BufReader};
use std::sync::mpsc;
use std::time::{Duration, Instant};

/// A Server-Sent Events stream (WHATWG HTML, "Server-sent events") read
/// by a thread: (event, data) pairs, `("eof", "")` at its end.
struct Sse {
    rx: mpsc::Receiver<(String, String)>,
}

impl Sse {
    fn open(url: String) -> Sse {
        let (tx, rx) = mpsc::channel();
        std::thread::spawn(move || {
            let agent = ureq::AgentBuilder::new()
                .timeout_read(Duration::from_secs(60))
                .build();
            let res = match agent.get(&url).call() {
                Ok(r) => r,
                Err(e) => {
                    let _ = tx.send(("error".into(), e.to_string()));
                    return;
                }
            };
            let mut reader = BufReader::new(res.into_reader());
            let (mut event, mut data, mut line) = (String::new(), String::new(), String::new());
            loop {
                line.clear();
                if !matches!(reader.read_line(&mut line), Ok(n) if n > 0) {
                    let _ = tx.send(("eof".into(), String::new()));
                    return;
                }
                let l = line.trim_end_matches(['\r', '\n']);
                if l.is_empty() {
                    if !event.is_empty() && tx.send((event.clone(), data.clone())).is_err() {
                        return;
                    }
                    event.clear();
                    data.clear();
                } else if let Some(v) = l.strip_prefix("event:") {
                    event = v.trim_start().to_string();
                } else if let Some(v) = l.strip_prefix("data:") {
                    data = v.trim_start().to_string();
                }
            }
        });
        Sse { rx }
    }

    /// The next `message` event's JSON, waiting up to 30 s.
    fn message(&self) -> Value {
        self.try_message().expect("a message within 30 s")
    }

    /// The next `message` event's JSON; `None` when none came in 30 s.
    fn try_message(&self) -> Option<Value> {
        let (event, data) = self.rx.recv_timeout(Duration::from_secs(30)).ok()?;
        assert_eq!(event, "message", "{data}");
        Some(serde_json::from_str(&data).unwrap())
    }

    /// Nothing more within `wait`.
    fn quiet(&self, wait: Duration) -> bool {
        self.rx.recv_timeout(wait).is_err()
    }
}

fn post(g: &common::Gateway, path: &str, body: &Value) -> (u16, Value) {
    g.call(
        "POST",
        path,
        Some(("application/json", body.to_string().as_bytes())),
    )
}

/// A certified listener of transport `cm` on `subject` with explicit
/// confirmation (`GET /v1/rv/cm/transports/{name}/listen`), once ready.
fn listen(g: &common::Gateway, cm: &str, subject: &str) -> Sse {
    let s = Sse::open(format!(
        "{}/v1/rv/cm/transports/{cm}/listen?subject={subject}&confirm=explicit",
        g.base
    ));
    let (event, data) = s.rx.recv_timeout(Duration::from_secs(20)).unwrap();
    assert_eq!(event, "ready", "{data}");
    s
}

fn confirm(g: &common::Gateway, cm: &str, m: &Value) {
    let (sender, seq) = labels(m);
    let (st, v) = post(
        g,
        &format!("/v1/rv/cm/transports/{cm}/confirm"),
        &json!({"sender": sender, "subject": m["subject"], "sequence": seq}),
    );
    assert_eq!(st, 200, "{v}");
}

/// The CM labels of a message's JSON form: (sender, sequence as the
/// listener sees it).
fn labels(m: &Value) -> (String, u64) {
    (
        m["cm"]["sender"].as_str().unwrap().to_string(),
        m["cm"]["sequence"].as_str().unwrap().parse().unwrap(),
    )
}

/// The i32 field `n` of a message's JSON form.
fn n_of(m: &Value) -> i64 {
    m["fields"]
        .as_array()
        .and_then(|f| f.iter().find(|f| f["name"] == "n"))
        .and_then(|f| f["value"].as_i64())
        .unwrap_or_else(|| panic!("no field n in {m}"))
}

fn inspect(g: &common::Gateway, cm: &str) -> Value {
    let (st, v) = g.call("GET", &format!("/v1/rv/cm/transports/{cm}"), None);
    assert_eq!(st, 200, "{v}");
    v
}

/// The sequence numbers sender `cm` keeps (`sender.pending`).
fn pending(g: &common::Gateway, cm: &str) -> Vec<u64> {
    inspect(g, cm)["sender"]["pending"]
        .as_array()
        .unwrap()
        .iter()
        .map(|p| p["sequence"].as_str().unwrap().parse().unwrap())
        .collect()
}

fn wait_for(what: &str, mut ok: impl FnMut() -> bool) {
    let deadline = Instant::now() + Duration::from_secs(30);
    while Instant::now() < deadline {
        if ok() {
            return;
        }
        std::thread::sleep(Duration::from_millis(50));
    }
    panic!("timed out waiting for {what}");
}

/// Waits until listener `cm`'s agreement with `sender` is certified (the
/// sender's acceptance was read: until then labeled messages arrive
/// uncertified, "Certified Message Delivery").
fn wait_certified(g: &common::Gateway, cm: &str, sender: &str) {
    wait_for("the agreement to be certified", || {
        inspect(g, cm)["listener"]["agreements"]
            .as_array()
            .unwrap()
            .iter()
            .any(|a| a["sender"] == sender && a["state"] == "certified")
    });
}

/// Puts `{"fields": [n]}` (the JSON body form) to `q` as a persistent
/// MQSTR message, with the query parameters `more` besides.
fn put_n(g: &common::Gateway, q: &str, n: i64, more: &str) {
    let body = json!({"fields": [{"name": "n", "type": "i32", "value": n}]});
    let (st, v) = g.put(
        q,
        &format!("format=MQSTR&persistent=true{more}"),
        body.to_string().as_bytes(),
    );
    assert_eq!(st, 201, "{v}");
}

/// A certified send of `{n}` by transport `cm` on `subject`.
fn send_n(g: &common::Gateway, cm: &str, subject: &str, n: i64) -> Value {
    let (st, v) = post(
        g,
        &format!("/v1/rv/cm/transports/{cm}/messages/{subject}"),
        &json!({"fields": [{"name": "n", "type": "i32", "value": n}]}),
    );
    assert_eq!(st, 200, "{v}");
    v
}

const FROM_QUEUE: &str = "queues:\n  - type: local\n    name: ORDERS.IN\n\
    rv:\n  bridges:\n    from_queues:\n      - queue: ORDERS.IN\n        subject: ORDERS.NEW\n        body: json\n        certified: BRIDGE.OUT\n";

#[test]
fn persistent_messages_from_a_queue_reach_a_certified_listener_exactly_once_across_kill9() {
    let dir = tempfile::tempdir().unwrap();
    let mut g = common::Gateway::start(dir.path(), FROM_QUEUE);
    // The rule's transport is a persistent correspondent with requestOld
    // (docs/rendezvous.md "Certified bridges").
    let t = inspect(&g, "BRIDGE.OUT");
    assert_eq!(
        (&t["ledger"], &t["persistent"], &t["request_old"]),
        (&json!("store"), &json!(true), &json!(true)),
        "{t}"
    );
    // DESK is pre-registered ("tibrvcmTransport_AddListener()") and
    // listens with requestOld: every message is certified from number 1.
    let (st, v) = post(
        &g,
        "/v1/rv/cm/transports/BRIDGE.OUT/listeners/DESK",
        &json!({"action": "add", "subject": "ORDERS.NEW"}),
    );
    assert_eq!((st, &v["changed"]), (200, &json!(true)), "{v}");
    let desk = json!({"name": "DESK", "ledger": "store", "request_old": true});
    let (st, v) = post(&g, "/v1/rv/cm/transports", &desk);
    assert_eq!(st, 201, "{v}");
    let l = listen(&g, "DESK", "ORDERS.NEW");
    wait_certified(&g, "DESK", "BRIDGE.OUT");

    // 1..=30 cross; the queue is FIFO and each subject is numbered from 1,
    // so message n is sequence n.
    for n in 1..=30 {
        put_n(&g, "ORDERS.IN", n, "");
    }
    let mut seq_of: BTreeMap<i64, u64> = BTreeMap::new();
    for n in 1..=30 {
        let m = l.message();
        assert_eq!(labels(&m), ("BRIDGE.OUT".to_string(), n as u64), "{m}");
        assert_eq!(n_of(&m), n);
        // The MQMD travels as a nested message; Persistence 1 as put.
        let md = m["fields"][0]["value"].as_array().unwrap();
        let persistence = md.iter().find(|f| f["name"] == "Persistence").unwrap();
        assert_eq!(persistence["value"], 1, "{m}");
        seq_of.insert(n, n as u64);
        if n <= 20 {
            confirm(&g, "DESK", &m);
        }
    }
    // 21..=30 were got, committed with the ledger and delivered, not
    // confirmed: the sender keeps them.
    let kept: Vec<u64> = (21..=30).collect();
    wait_for("the sender to read the confirmations", || {
        pending(&g, "BRIDGE.OUT") == kept
    });
    assert_eq!(g.depth("ORDERS.IN"), 0);

    // 31..=60 go on the queue together (one unit of work), and the gateway
    // is killed while the rule gets, sends and commits them.
    let (st, v) = g.call("POST", "/v1/uow", None);
    assert_eq!(st, 201, "{v}");
    let uow = common::token(&v["uow"]).to_string();
    for n in 31..=60 {
        put_n(&g, "ORDERS.IN", n, &format!("&uow={uow}"));
    }
    let (st, v) = g.call("POST", &format!("/v1/uow/{uow}/commit"), None);
    assert_eq!(st, 200, "{v}");
    wait_for("the rule to take some", || g.depth("ORDERS.IN") < 25);
    drop(l);
    g.kill9_and_restart();

    // DESK comes back under its name (reopened with its ledger) and asks
    // for what it did not confirm (requestOld).
    let (st, v) = post(&g, "/v1/rv/cm/transports", &desk);
    assert_eq!((st, &v["created"]), (200, &json!(false)), "{v}");
    let l = listen(&g, "DESK", "ORDERS.NEW");
    let mut confirmed: BTreeSet<i64> = (1..=20).collect();
    let mut again: BTreeSet<i64> = BTreeSet::new();
    while confirmed.len() < 60 {
        let Some(m) = l.try_message() else {
            let lost: Vec<i64> = (1..=60).filter(|n| !confirmed.contains(n)).collect();
            panic!(
                "messages lost: {lost:?}; on the queue: {}",
                g.depth("ORDERS.IN")
            );
        };
        let n = n_of(&m);
        let (sender, seq) = labels(&m);
        assert_eq!(sender, "BRIDGE.OUT");
        assert!(
            !confirmed.contains(&n),
            "message {n} came again after it was confirmed: {m}"
        );
        // One number per message: a message got again after the kill was
        // never sent before it (its get and its send commit together).
        if let Some(before) = seq_of.insert(n, seq) {
            assert_eq!(before, seq, "message {n} was sent twice: {m}");
            again.insert(n);
        }
        confirm(&g, "DESK", &m);
        confirmed.insert(n);
    }
    assert!(
        (21..=30).all(|n| again.contains(&n)),
        "every unconfirmed message came again: {again:?}"
    );
    // Sixty messages, sixty sequence numbers: 1..=60, none skipped, none
    // used twice.
    let mut seqs: Vec<u64> = seq_of.values().copied().collect();
    seqs.sort_unstable();
    assert_eq!(seqs, (1..=60).collect::<Vec<u64>>());
    wait_for("the sender's ledger to empty", || {
        pending(&g, "BRIDGE.OUT").is_empty()
    });
    assert_eq!(g.depth("ORDERS.IN"), 0);
    assert!(l.quiet(Duration::from_millis(300)), "nothing else comes");
}

#[test]
fn a_queue_message_waits_for_a_listener_and_the_first_one_discovers_the_bridge() {
    let dir = tempfile::tempdir().unwrap();
    let g = common::Gateway::start(dir.path(), FROM_QUEUE);
    // Nobody listens and no one is registered: the message stays on its
    // queue (docs/rendezvous.md "Certified bridges").
    put_n(&g, "ORDERS.IN", 1, "");
    std::thread::sleep(Duration::from_millis(500));
    assert_eq!(g.depth("ORDERS.IN"), 1);

    // A certified listener the bridge does not know: the first message
    // comes uncertified (sequence 0, "tibrvMsg_GetCMSequence()") and is
    // committed once a listener has it; the listener registers, and the
    // next message is certified with the sender's next number, 2.
    let (st, v) = post(&g, "/v1/rv/cm/transports", &json!({"name": "DESK"}));
    assert_eq!(st, 201, "{v}");
    let l = listen(&g, "DESK", "ORDERS.NEW");
    let m = l.message();
    assert_eq!((labels(&m), n_of(&m)), (("BRIDGE.OUT".into(), 0), 1));
    wait_for("the queue to empty", || g.depth("ORDERS.IN") == 0);
    wait_certified(&g, "DESK", "BRIDGE.OUT");
    put_n(&g, "ORDERS.IN", 2, "");
    let m = l.message();
    assert_eq!((labels(&m), n_of(&m)), (("BRIDGE.OUT".into(), 2), 2));
    assert_eq!(pending(&g, "BRIDGE.OUT"), [2], "kept until DESK confirms");
    confirm(&g, "DESK", &m);
    wait_for("the sender's ledger to empty", || {
        pending(&g, "BRIDGE.OUT").is_empty()
    });
}

/// Every message on `q`, got and acknowledged one by one, as (MQMD,
/// data).
fn drain(g: &common::Gateway, q: &str) -> Vec<(Value, Vec<u8>)> {
    let mut out = Vec::new();
    loop {
        let (st, v) = g.get_ack(q, "wait_ms=0");
        if st != 200 {
            assert_eq!(st, 404, "{v}");
            return out;
        }
        out.push((v["md"].clone(), common::data(&v)));
    }
}

fn json_of(data: &[u8]) -> Value {
    serde_json::from_slice(data)
        .unwrap_or_else(|e| panic!("{e}: {}", String::from_utf8_lossy(data)))
}

const TO_QUEUE: &str = "queues:\n  - type: local\n    name: ORDERS.OUT\n  - type: local\n    name: LOCKED\n    put_inhibited: true\n\
    rv:\n  bridges:\n    to_queues:\n      - subject: ORDERS.>\n        queue: ORDERS.OUT\n        body: json\n        certified: BRIDGE.IN\n\
    \x20     - subject: LOCKED.X\n        queue: LOCKED\n        body: json\n        certified: BRIDGE.LOCKED\n";

#[test]
fn certified_messages_on_a_subject_reach_a_queue_as_persistent_messages_exactly_once_across_kill9()
{
    let dir = tempfile::tempdir().unwrap();
    let mut g = common::Gateway::start(dir.path(), TO_QUEUE);
    let (st, v) = post(
        &g,
        "/v1/rv/cm/transports",
        &json!({"name": "PRICER", "ledger": "store"}),
    );
    assert_eq!(st, 201, "{v}");
    // Message 0 is the first the bridge gets from PRICER: uncertified
    // (discovery), put once; the bridge registers and PRICER keeps every
    // later message for it from number 2 on.
    assert_eq!(send_n(&g, "PRICER", "ORDERS.NEW", 0)["sequence"], "1");
    wait_certified(&g, "BRIDGE.IN", "PRICER");
    for n in 1..=30 {
        let v = send_n(&g, "PRICER", "ORDERS.NEW", n);
        assert_eq!(v["sequence"], (n + 1).to_string());
    }
    // Killed while the bridge puts and confirms them.
    g.kill9_and_restart();
    // PRICER is back with its ledger; the bridge's listener asked it for
    // what it did not confirm when it started (requestOld).
    for n in 31..=40 {
        send_n(&g, "PRICER", "ORDERS.NEW", n);
    }
    wait_for("PRICER's ledger to empty", || {
        pending(&g, "PRICER").is_empty()
    });
    let got = drain(&g, "ORDERS.OUT");
    let mut ns: Vec<i64> = got.iter().map(|(_, data)| n_of(&json_of(data))).collect();
    ns.sort_unstable();
    assert_eq!(ns, (0..=40).collect::<Vec<i64>>(), "each message once");
    for (md, data) in &got {
        let body = &json_of(data);
        // MQPER_PERSISTENT: a certified rule puts persistent messages.
        assert_eq!(md["Persistence"], 1, "{md}");
        // The JSON form keeps the labels as the listener saw them: 0 for
        // the uncertified first message, n + 1 for the others.
        let n = n_of(body);
        let want = if n == 0 { 0 } else { n as u64 + 1 };
        assert_eq!(labels(body), ("PRICER".to_string(), want), "{body}");
    }
}

#[test]
fn a_certified_message_the_queue_refuses_is_dead_lettered_and_confirmed_together() {
    let dir = tempfile::tempdir().unwrap();
    let g = common::Gateway::start(dir.path(), TO_QUEUE);
    let (st, v) = post(&g, "/v1/rv/cm/transports", &json!({"name": "PRICER"}));
    assert_eq!(st, 201, "{v}");
    send_n(&g, "PRICER", "LOCKED.X", 1);
    wait_certified(&g, "BRIDGE.LOCKED", "PRICER");
    send_n(&g, "PRICER", "LOCKED.X", 2);
    // The dead letter goes in the put's unit of work with the
    // confirmation: PRICER keeps nothing once it is there.
    wait_for("PRICER's ledger to empty", || {
        pending(&g, "PRICER").is_empty()
    });
    // IBM MQ "MQDLH - Dead-letter header": Reason at offset 8 (2051
    // MQRC_PUT_INHIBITED; integers in the MQMD's Encoding 546, little
    // endian), DestQName at 12 (48 bytes), 172 bytes, then the message.
    let dead = drain(&g, "SYSTEM.DEAD.LETTER.QUEUE");
    let mut ns = Vec::new();
    for (md, data) in &dead {
        assert_eq!(md["Format"], "MQDEAD", "{md}");
        assert_eq!(&data[0..4], b"DLH ");
        assert_eq!(i32::from_le_bytes(data[8..12].try_into().unwrap()), 2051);
        assert_eq!(String::from_utf8_lossy(&data[12..60]).trim_end(), "LOCKED");
        let body = json_of(&data[172..]);
        ns.push((n_of(&body), labels(&body).1));
    }
    // The uncertified first message is dead-lettered on its own, the
    // certified second one with its confirmation; each once.
    ns.sort_unstable();
    assert_eq!(ns, [(1, 0), (2, 2)]);
}

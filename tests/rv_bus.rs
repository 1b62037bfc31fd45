//! The Rendezvous subject bus in a gateway started in this process: the
//! HTTP API (publish, Server-Sent Event listeners, request/reply), 1,000
//! listeners in Rust with overlapping wildcards, slow listeners, bad input
//! on every route, and the graceful stop ending event streams.
//!
//! Which listener gets which message follows TIBCO Rendezvous Concepts,
//! "Using Wildcards to Receive Related Subjects", computed here with the
//! codec's `matches` (tested against that page's table); statuses and
//! refusal texts are docs/rendezvous.md ("HTTP API", "Errors",
//! "Refusals"), the `tibrv_status` numbers those of `tibrv/status.h`.

mod common;

use common::sse::Sse;
use mqgate::config::Config;
use mqgate::gateway::{Gateway, Handle};
use mqgate::rv::{Listener, ListenerOptions, Origin};
use mqgate_codecs::rv::msg::{Envelope, Field, Message, Value as RvValue};
use mqgate_codecs::rv::{Mode, Subject, matches};
use serde_json::{Value, json};
use std::time::{Duration, Instant};

/// A gateway on port 0 with data under `dir` and `rv_yaml` as its `rv:`
/// section (empty: none).
async fn start(dir: &std::path::Path, rv_yaml: &str) -> Handle {
    let text = format!(
        "http:\n  listen: 127.0.0.1:0\n  max_wait_ms: 20000\nlistener:\n  listen: 127.0.0.1:0\nmqtt:\n  listen: 127.0.0.1:0\n{rv_yaml}"
    );
    let mut c = Config::from_yaml(&text, "test.yaml").unwrap();
    c.storage.data_dir = dir.join("data");
    Gateway::start(c).await.unwrap()
}

/// An HTTP call from a blocking thread: (status, JSON body or Null).
async fn call(
    method: &str,
    url: String,
    content_type: Option<&'static str>,
    body: Option<Vec<u8>>,
) -> (u16, Value) {
    let method = method.to_string();
    tokio::task::spawn_blocking(move || {
        let mut req = ureq::request(&method, &url).set("Connection", "close");
        if let Some(ct) = content_type {
            req = req.set("Content-Type", ct);
        }
        let res = match body {
            Some(b) => req.send_bytes(&b),
            None => req.call(),
        };
        let r = match res {
            Ok(r) => r,
            Err(ureq::Error::Status(_, r)) => r,
            Err(e) => panic!("{method} {url}: {e}"),
        };
        let status = r.status();
        (status, r.into_json().unwrap_or(Value::Null))
    })
    .await
    .unwrap()
}

/// `POST` of a JSON body.
async fn post_json(url: String, body: &Value) -> (u16, Value) {
    call(
        "POST",
        url,
        Some("application/json"),
        Some(body.to_string().into_bytes()),
    )
    .await
}

fn url(h: &Handle, path: &str) -> String {
    format!("http://{}{path}", h.http_addr())
}

/// The listen URL for `subjects` (form-encoded: `>` is `%3E`).
fn listen_url(h: &Handle, subjects: &[&str]) -> String {
    let q: String = form_urlencoded_pairs(subjects);
    url(h, &format!("/v1/rv/listen?{q}"))
}

fn form_urlencoded_pairs(subjects: &[&str]) -> String {
    subjects
        .iter()
        .map(|s| format!("subject={}", pct(s)))
        .collect::<Vec<_>>()
        .join("&")
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

fn envelope(subject: &str, n: i32) -> Envelope {
    Envelope {
        subject: subject.into(),
        reply_subject: None,
        cm: None,
        message: Message::new(vec![Field::new("n", RvValue::I32(n))]),
    }
}

/// The `n` field of a received message.
fn n_of(env: &Envelope) -> i32 {
    match env.message.get("n").map(|f| &f.value) {
        Some(RvValue::I32(n)) => *n,
        other => panic!("no n: {other:?}"),
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_thousand_listeners_with_overlapping_wildcards_get_each_matching_message_once() {
    let dir = tempfile::tempdir().unwrap();
    let g = start(dir.path(), "").await;
    let bus = g.rv_bus().unwrap();
    // Subjects MKT.<region>.<symbol>: 3 regions × 10 symbols.
    let regions = ["EU", "US", "AS"];
    let symbols: Vec<String> = (0..10).map(|i| format!("S{i}")).collect();
    // Each listener holds 1 to 5 overlapping patterns, chosen by its number.
    let mut listeners: Vec<(Vec<String>, Listener)> = Vec::new();
    for i in 0..1000usize {
        let r = regions[i % 3];
        let s = &symbols[(i / 3) % 10];
        let candidates = [
            "MKT.>".to_string(),
            format!("MKT.{r}.*"),
            format!("MKT.*.{s}"),
            format!("MKT.{r}.{s}"),
            format!("*.{r}.>"),
        ];
        let chosen: Vec<String> = candidates
            .iter()
            .enumerate()
            .filter(|(k, _)| (i >> k) & 1 == 1 || *k == i % 5)
            .map(|(_, p)| p.clone())
            .collect();
        let refs: Vec<&str> = chosen.iter().map(String::as_str).collect();
        let l = bus.listen(&refs, ListenerOptions::default()).unwrap();
        listeners.push((chosen, l));
    }
    // A few listeners over HTTP as well.
    let sse_patterns: [&[&str]; 3] = [
        &["MKT.>", "MKT.EU.*"],
        &["*.US.S3", "MKT.US.>"],
        &["MKT.AS.S9"],
    ];
    let sse: Vec<Sse> = sse_patterns
        .iter()
        .map(|p| Sse::open(listen_url(&g, p)))
        .collect();
    for (s, p) in sse.iter().zip(sse_patterns) {
        let ready = s.ready();
        assert_eq!(ready["subjects"], json!(p), "{ready}");
    }
    let oracle = |patterns: &[String], subject: &str| {
        let subject = Subject::parse_delivered(subject).unwrap();
        patterns
            .iter()
            .any(|p| matches(&Subject::parse(p, Mode::Listen).unwrap(), &subject))
    };
    let mut published = Vec::new();
    for (k, (r, s)) in regions
        .iter()
        .flat_map(|r| symbols.iter().map(move |s| (r, s)))
        .enumerate()
    {
        let subject = format!("MKT.{r}.{s}");
        let (st, ans) = post_json(
            url(&g, &format!("/v1/rv/messages/{subject}")),
            &json!({"fields": [{"name": "n", "type": "i32", "value": k}]}),
        )
        .await;
        assert_eq!(st, 200, "{ans}");
        // Every listener whose patterns match, once, HTTP ones included.
        let expected = listeners
            .iter()
            .filter(|(p, _)| oracle(p, &subject))
            .count()
            + sse_patterns
                .iter()
                .filter(|p| {
                    let owned: Vec<String> = p.iter().map(|s| s.to_string()).collect();
                    oracle(&owned, &subject)
                })
                .count();
        assert_eq!(ans, json!({"subject": subject, "listeners": expected}));
        published.push((subject, k as i32));
    }
    for (patterns, l) in &mut listeners {
        let mut got = Vec::new();
        while let Some(d) = l.try_recv() {
            got.push((d.subject().to_string(), n_of(d.envelope())));
        }
        let want: Vec<_> = published
            .iter()
            .filter(|(s, _)| oracle(patterns, s))
            .cloned()
            .collect();
        assert_eq!(got, want, "{patterns:?}");
    }
    for (s, p) in sse.iter().zip(sse_patterns) {
        let owned: Vec<String> = p.iter().map(|s| s.to_string()).collect();
        for (subject, n) in published.iter().filter(|(s, _)| oracle(&owned, s)) {
            let m = s.message();
            assert_eq!(m["subject"], json!(subject));
            assert_eq!(
                m["fields"],
                json!([{"name": "n", "type": "i32", "value": n}])
            );
        }
        // Nothing more.
        assert!(s.next(Duration::from_millis(100)).is_none());
    }
    drop(listeners);
    let stopped = g.stop(Duration::from_secs(10)).await;
    assert!(stopped.drained, "{stopped:?}");
    for s in &sse {
        assert_eq!(s.next(Duration::from_secs(5)).unwrap().0, "end");
        assert_eq!(s.next(Duration::from_secs(5)).unwrap().0, "eof");
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_stop_ends_event_streams_and_waiting_requests_at_once() {
    let dir = tempfile::tempdir().unwrap();
    let g = start(dir.path(), "").await;
    let sse = Sse::open(listen_url(&g, &["A.>"]));
    sse.ready();
    let inbox = Sse::open(url(&g, "/v1/rv/listen?inbox=true"));
    assert!(
        inbox.ready()["inbox"]
            .as_str()
            .unwrap()
            .starts_with("_INBOX.")
    );
    // A request that would wait 20 s for a reply no one sends.
    let req_url = url(&g, "/v1/rv/requests/NOBODY?timeout_ms=20000");
    let request = tokio::spawn(call("POST", req_url, None, None));
    let bus = g.rv_bus().unwrap();
    let until = Instant::now() + Duration::from_secs(20);
    // Two event streams and the request's inbox.
    while bus.listeners() < 3 {
        assert!(Instant::now() < until);
        tokio::time::sleep(Duration::from_millis(10)).await;
    }
    let begun = Instant::now();
    // docs/config.md "Stopping": a 10 s drain bound that must not be needed.
    let stopped = g.stop(Duration::from_secs(10)).await;
    assert!(stopped.drained, "{stopped:?}");
    assert!(begun.elapsed() < Duration::from_secs(3), "{stopped:?}");
    for s in [&sse, &inbox] {
        let (event, data) = s.next(Duration::from_secs(5)).unwrap();
        assert_eq!(event, "end");
        assert_eq!(data, r#"{"reason":"the gateway is stopping"}"#);
        assert_eq!(s.next(Duration::from_secs(5)).unwrap().0, "eof");
    }
    // TIBRV_DAEMON_NOT_CONNECTED 21, 503 (docs/rendezvous.md "Errors").
    let (st, body) = request.await.unwrap();
    assert_eq!(st, 503, "{body}");
    assert_eq!(
        body,
        json!({
            "tibrv_status": {"number": 21, "name": "TIBRV_DAEMON_NOT_CONNECTED"},
            "message": "the gateway is stopping: its subject bus is closed",
        })
    );
    assert!(bus.is_closed());
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn request_and_reply_through_an_inbox() {
    let dir = tempfile::tempdir().unwrap();
    let g = start(dir.path(), "").await;
    let bus = g.rv_bus().unwrap();
    // A server in Rust answering on the request's reply subject.
    let mut server = bus
        .listen(&["TIME.NOW"], ListenerOptions::default())
        .unwrap();
    let replier = bus.clone();
    tokio::spawn(async move {
        while let Some(req) = server.recv().await {
            let mut reply = envelope(req.reply_subject().unwrap(), 42);
            reply
                .message
                .fields
                .push(Field::new("asked", RvValue::String(req.subject().into())));
            replier.publish(reply, Origin::Client).unwrap();
        }
    });
    let (st, reply) = post_json(
        url(&g, "/v1/rv/requests/TIME.NOW?timeout_ms=5000"),
        &json!({"fields": [{"name": "tz", "type": "string", "value": "UTC"}]}),
    )
    .await;
    assert_eq!(st, 200, "{reply}");
    let inbox = reply["subject"].as_str().unwrap();
    // docs/rendezvous.md "Inboxes": _INBOX.<16 hex digits>.<n>.
    assert!(inbox.starts_with(bus.inbox_prefix()), "{inbox}");
    assert_eq!(
        reply["fields"],
        json!([
            {"name": "n", "type": "i32", "value": 42},
            {"name": "asked", "type": "string", "value": "TIME.NOW"}
        ])
    );
    // No reply within 200 ms: 504, TIBRV_TIMEOUT 50.
    let begun = Instant::now();
    let (st, body) = call(
        "POST",
        url(&g, "/v1/rv/requests/NO.SERVER?timeout_ms=200"),
        None,
        None,
    )
    .await;
    assert!(begun.elapsed() >= Duration::from_millis(200));
    assert_eq!(st, 504, "{body}");
    assert_eq!(
        body,
        json!({
            "tibrv_status": {"number": 50, "name": "TIBRV_TIMEOUT"},
            "field": "timeout_ms",
            "message": "no reply to \"NO.SERVER\" within 200 ms",
        })
    );
    // An inbox listener over HTTP receives what is sent to its inbox.
    let sse = Sse::open(url(&g, "/v1/rv/listen?inbox=true"));
    let ready = sse.ready();
    let inbox = ready["inbox"].as_str().unwrap().to_string();
    assert_eq!(ready["subjects"], json!([inbox]));
    let (st, ans) = post_json(
        url(&g, &format!("/v1/rv/messages/{inbox}")),
        &json!({"reply_subject": "BACK.HERE"}),
    )
    .await;
    assert_eq!(st, 200, "{ans}");
    assert_eq!(ans["listeners"], 1);
    assert_eq!(
        sse.message(),
        json!({"subject": inbox, "reply_subject": "BACK.HERE", "fields": []})
    );
    g.stop(Duration::from_secs(10)).await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_slow_event_stream_loses_its_oldest_messages_and_no_one_else_waits() {
    // "CLIENT.SLOWCONSUMER": the oldest messages are discarded, the
    // advisory comes next; rv.listener_queue 8 (docs/config.md `rv`).
    let dir = tempfile::tempdir().unwrap();
    let g = start(dir.path(), "rv:\n  listener_queue: 8\n").await;
    let bus = g.rv_bus().unwrap();
    let mut slow = Sse::open_held(listen_url(&g, &["FEED.>"]));
    let mut fast = bus
        .listen(
            &["FEED.>"],
            ListenerOptions {
                queue_len: Some(100_000),
                ..ListenerOptions::default()
            },
        )
        .unwrap();
    let until = Instant::now() + Duration::from_secs(20);
    while bus.listeners() < 2 {
        assert!(Instant::now() < until);
        tokio::time::sleep(Duration::from_millis(10)).await;
    }
    // 20,000 messages of about 1 KiB: far more than the socket buffers
    // and the 8-message queue hold while the slow client reads nothing.
    let total = 20_000;
    let begun = Instant::now();
    for n in 0..total {
        let mut e = envelope("FEED.X", n);
        e.message
            .fields
            .push(Field::new("pad", RvValue::Opaque(vec![7; 1000])));
        assert_eq!(bus.publish(e, Origin::Client), Ok(2));
    }
    // The publisher never waited for the slow listener.
    assert!(begun.elapsed() < Duration::from_secs(20));
    for n in 0..total {
        assert_eq!(n_of(fast.try_recv().unwrap().envelope()), n);
    }
    slow.release();
    assert!(slow.ready()["listener"].is_u64());
    let (mut received, mut dropped, mut last) = (0u64, 0u64, -1i64);
    let mut advisories = 0;
    while received + dropped < total as u64 {
        let m = slow.message();
        if m["subject"] == "_RV.ERROR.SYSTEM.CLIENT.SLOWCONSUMER" {
            advisories += 1;
            let f = &m["fields"];
            assert_eq!(
                f[0],
                json!({"name": "ADV_CLASS", "type": "string", "value": "ERROR"})
            );
            assert_eq!(f[6]["name"], "reason");
            assert_eq!(f[6]["value"], "size limit");
            dropped += f[4]["value"].as_u64().unwrap();
        } else {
            let n = m["fields"][0]["value"].as_i64().unwrap();
            // In order; what is missing was reported dropped.
            assert!(n > last, "{n} after {last}");
            last = n;
            received += 1;
        }
    }
    assert!(advisories >= 1 && dropped > 0, "{advisories} {dropped}");
    assert_eq!(received + dropped, total as u64);
    // The newest message always arrives.
    assert_eq!(last, i64::from(total - 1));
    g.stop(Duration::from_secs(10)).await;
}

/// The error body of docs/rendezvous.md "Errors".
fn refusal(number: i32, name: &str, field: &str, message: &str) -> Value {
    json!({
        "tibrv_status": {"number": number, "name": name},
        "field": field,
        "message": message,
    })
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn bad_input_on_every_route_is_refused_clearly_and_disturbs_nothing() {
    let dir = tempfile::tempdir().unwrap();
    let g = start(dir.path(), "rv:\n  max_message_bytes: 1024\n").await;
    // A listener that must see only the one good message at the end.
    let watcher = Sse::open(listen_url(&g, &["A.>", "_LOCAL.>"]));
    watcher.ready();
    let publish = |subject: &str| url(&g, &format!("/v1/rv/messages/{}", pct(subject)));

    // Subjects in each position ("Subject Name Syntax", "Using Wildcards to
    // Receive Related Subjects", "Distinguished Subject Names with Special
    // Meaning"; texts: docs/rendezvous.md "Refusals").
    let (st, b) = post_json(publish("A..B"), &json!({})).await;
    assert_eq!(st, 400);
    let mut want = refusal(
        20,
        "TIBRV_INVALID_SUBJECT",
        "subject",
        "invalid subject \"A..B\": element 2 is empty",
    );
    want["element"] = json!(2);
    assert_eq!(b, want);
    let (st, b) = post_json(publish("A.*"), &json!({})).await;
    assert_eq!(st, 400);
    assert_eq!(
        b["message"],
        "invalid subject \"A.*\": element 2 is the wildcard '*': sending to a wildcard subject is refused unless wildcard sends are allowed"
    );
    let (st, b) = post_json(publish("_RVCM.X"), &json!({})).await;
    assert_eq!(st, 400);
    assert_eq!(
        b["message"],
        "invalid subject \"_RVCM.X\": element 1: '_RVCM.' is reserved for certified delivery; programs must not send to it"
    );
    let (st, b) = post_json(publish("A.B"), &json!({"reply_subject": "R.>"})).await;
    assert_eq!(st, 400);
    let mut want = refusal(
        20,
        "TIBRV_INVALID_SUBJECT",
        "reply_subject",
        "invalid reply subject \"R.>\": element 2 is the wildcard '>': sending to a wildcard subject is refused unless wildcard sends are allowed",
    );
    want["element"] = json!(2);
    assert_eq!(b, want);
    let (st, b) = post_json(
        url(&g, "/v1/rv/requests/Foo.%3E.baz?timeout_ms=100"),
        &json!({}),
    )
    .await;
    assert_eq!(st, 400);
    assert_eq!(
        b["message"],
        "invalid subject \"Foo.>.baz\": element 2 is '>': '>' must be the last element"
    );
    // A listen subject: the codec's rule, then the inbox rule (27, 403).
    let bad = Sse::open(listen_url(&g, &["OK", "abc*xyz"]));
    let (event, data) = bad.next(Duration::from_secs(20)).unwrap();
    assert_eq!(event, "status");
    assert!(data.starts_with("400 "), "{data}");
    let body: Value = serde_json::from_str(&data[4..]).unwrap();
    let mut want = refusal(
        20,
        "TIBRV_INVALID_SUBJECT",
        "subject",
        "invalid listen subject \"abc*xyz\": element 1 has '*' among other characters: '*' must be a whole element",
    );
    want["element"] = json!(1);
    assert_eq!(body, want);
    let bad = Sse::open(listen_url(&g, &["_INBOX.X.1"]));
    let (_, data) = bad.next(Duration::from_secs(20)).unwrap();
    assert!(data.starts_with("403 "), "{data}");
    let body: Value = serde_json::from_str(&data[4..]).unwrap();
    assert_eq!(body["tibrv_status"]["number"], 27);
    assert_eq!(body["tibrv_status"]["name"], "TIBRV_NOT_PERMITTED");
    let bad = Sse::open(url(&g, "/v1/rv/listen"));
    let (_, data) = bad.next(Duration::from_secs(20)).unwrap();
    assert!(data.starts_with("400 "), "{data}");
    let body: Value = serde_json::from_str(&data[4..]).unwrap();
    assert_eq!(
        body,
        refusal(
            3,
            "TIBRV_INVALID_ARG",
            "subject",
            "GET /v1/rv/listen needs subject=PATTERN (one or more) or inbox=true"
        )
    );

    // Oversize messages: TIBRV_INVALID_SIZE 32, 413.
    let big =
        json!({"fields": [{"name": "blob", "type": "opaque", "value": base64_of(&[0u8; 2000])}]});
    let (st, b) = post_json(publish("A.BIG"), &big).await;
    assert_eq!(st, 413);
    assert_eq!(
        b["tibrv_status"],
        json!({"number": 32, "name": "TIBRV_INVALID_SIZE"})
    );
    assert_eq!(b["field"], "fields");
    // The size is that of mqgate's binary form (docs/rendezvous.md
    // "Binary form"): 10 + 1 + 5 (subject) + 8 + 4 (field, name) + 2000.
    let mut env = envelope("A.BIG", 0);
    env.message.fields = vec![Field::new("blob", RvValue::Opaque(vec![0; 2000]))];
    assert_eq!(env.encoded_len(), 2028);
    assert_eq!(
        b["message"],
        "message of 2028 bytes is larger than the 1024-byte limit"
    );
    let huge = vec![b' '; 4 * 1024 + 64 * 1024 + 1];
    let (st, b) = call("POST", publish("A.B"), Some("application/json"), Some(huge)).await;
    assert_eq!(st, 413);
    assert_eq!(
        b,
        refusal(
            32,
            "TIBRV_INVALID_SIZE",
            "body",
            "the request body is larger than 69632 bytes (4 × rv.max_message_bytes + 64 KiB)"
        )
    );

    // Malformed fields and bodies (docs/rendezvous.md "JSON form").
    let (st, b) = post_json(
        publish("A.B"),
        &json!({"fields": [{"name": "p", "type": "f65", "value": 1}]}),
    )
    .await;
    assert_eq!(st, 400);
    assert_eq!(
        b["tibrv_status"],
        json!({"number": 31, "name": "TIBRV_INVALID_TYPE"})
    );
    assert_eq!(b["field"], "fields");
    assert!(
        b["message"]
            .as_str()
            .unwrap()
            .starts_with("field 'p': unknown type 'f65' (types: msg, datetime,"),
        "{b}"
    );
    let (st, b) = post_json(
        publish("A.B"),
        &json!({"fields": [{"name": "price", "type": "f64", "value": "abc"}]}),
    )
    .await;
    assert_eq!(st, 400);
    assert_eq!(
        b,
        refusal(
            38,
            "TIBRV_CONVERSION_FAILED",
            "fields",
            "field 'price': 'abc' is not an f64"
        )
    );
    let (st, b) = post_json(
        publish("A.B"),
        &json!({"fields": [{"name": "a", "id": 1, "type": "i8", "value": 1}, {"name": "b", "id": 1, "type": "i8", "value": 2}]}),
    )
    .await;
    assert_eq!(st, 400);
    assert_eq!(
        b["tibrv_status"],
        json!({"number": 36, "name": "TIBRV_ID_IN_USE"})
    );
    assert_eq!(
        b["message"],
        "field 'b': field identifier 1 used twice in one message"
    );
    let (st, b) = call(
        "POST",
        publish("A.B"),
        Some("application/json"),
        Some(b"{\"fields\": [".to_vec()),
    )
    .await;
    assert_eq!(st, 400);
    assert_eq!(b["tibrv_status"]["number"], 3);
    assert_eq!(b["field"], "body");
    assert!(
        b["message"]
            .as_str()
            .unwrap()
            .starts_with("the body is not JSON: "),
        "{b}"
    );
    let (st, b) = post_json(publish("A.B"), &json!({"colour": "red"})).await;
    assert_eq!(st, 400);
    assert_eq!(
        b,
        refusal(
            3,
            "TIBRV_INVALID_ARG",
            "body",
            "message: unknown key 'colour'"
        )
    );
    let (st, b) = post_json(publish("A.B"), &json!({"subject": "A.C"})).await;
    assert_eq!(st, 400);
    assert_eq!(
        b,
        refusal(
            3,
            "TIBRV_INVALID_ARG",
            "subject",
            "the body's subject \"A.C\" is not the path's \"A.B\""
        )
    );
    let (st, b) = post_json(
        publish("A.B"),
        &json!({"cm": {"sender": "X", "sequence": 1}}),
    )
    .await;
    assert_eq!(st, 403);
    assert_eq!(
        b,
        refusal(
            27,
            "TIBRV_NOT_PERMITTED",
            "cm",
            "certified delivery labels are set by certified delivery, not by a publish"
        )
    );
    let (st, b) = call(
        "POST",
        publish("A.B"),
        Some("text/plain"),
        Some(b"{}".to_vec()),
    )
    .await;
    assert_eq!(st, 415);
    assert_eq!(
        b,
        refusal(
            3,
            "TIBRV_INVALID_ARG",
            "body",
            "POST /v1/rv/messages/{subject} takes a JSON body (Content-Type: application/json); the request has Content-Type \"text/plain\""
        )
    );
    let (st, b) = call("POST", format!("{}?colour=red", publish("A.B")), None, None).await;
    assert_eq!(st, 400);
    assert_eq!(
        b,
        refusal(
            3,
            "TIBRV_INVALID_ARG",
            "query",
            "unknown query parameter \"colour\": this route takes none"
        )
    );
    for t in ["0", "20001", "soon"] {
        let (st, b) = call(
            "POST",
            url(&g, &format!("/v1/rv/requests/A.B?timeout_ms={t}")),
            None,
            None,
        )
        .await;
        assert_eq!(st, 400);
        assert_eq!(
            b,
            refusal(
                3,
                "TIBRV_INVALID_ARG",
                "timeout_ms",
                &format!("timeout_ms \"{t}\" is not 1 to 20000 (http.max_wait_ms)")
            )
        );
    }
    // A path that is not UTF-8 (docs/http-api.md "Errors": 2152).
    let (st, b) = call("POST", url(&g, "/v1/rv/messages/A.%FF"), None, None).await;
    assert_eq!(st, 400);
    assert_eq!(b["mqrc"], 2152);
    // Nor a listen subject in the query (docs/rendezvous.md "HTTP API"): it
    // is refused, not read as U+FFFD and listened to.
    let bad = Sse::open(url(&g, "/v1/rv/listen?subject=A.%FF"));
    let (event, data) = bad.next(Duration::from_secs(20)).unwrap();
    assert_eq!(event, "status");
    assert!(data.starts_with("400 "), "{data}");
    let body: Value = serde_json::from_str(&data[4..]).unwrap();
    assert_eq!(
        body,
        refusal(
            20,
            "TIBRV_INVALID_SUBJECT",
            "subject",
            "query parameter \"subject\": its percent-escapes decode to bytes that are not UTF-8 (write % as %25)"
        )
    );

    // Nothing was published by any of it; a good message still goes through.
    let (st, b) = post_json(
        publish("_LOCAL.OK"),
        &json!({"fields": [{"name": "n", "type": "i32", "value": 1}]}),
    )
    .await;
    assert_eq!(st, 200, "{b}");
    assert_eq!(b, json!({"subject": "_LOCAL.OK", "listeners": 1}));
    assert_eq!(watcher.message()["subject"], "_LOCAL.OK");
    assert!(watcher.next(Duration::from_millis(200)).is_none());
    g.stop(Duration::from_secs(10)).await;
}

fn base64_of(b: &[u8]) -> String {
    use base64::Engine;
    base64::engine::general_purpose::STANDARD.encode(b)
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn an_event_stream_outlives_the_idle_timeout() {
    // docs/rendezvous.md "HTTP API": a stream is an answer being sent, not
    // an idle connection; http.idle_timeout_ms 200 here.
    let dir = tempfile::tempdir().unwrap();
    let text = "http:\n  listen: 127.0.0.1:0\n  idle_timeout_ms: 200\n  header_read_timeout_ms: 200\nlistener:\n  listen: 127.0.0.1:0\nmqtt:\n  listen: 127.0.0.1:0\n";
    let mut c = Config::from_yaml(text, "test.yaml").unwrap();
    c.storage.data_dir = dir.path().join("data");
    let g = Gateway::start(c).await.unwrap();
    let sse = Sse::open(listen_url(&g, &["LATE"]));
    sse.ready();
    tokio::time::sleep(Duration::from_millis(1000)).await;
    let bus = g.rv_bus().unwrap();
    assert_eq!(bus.publish(envelope("LATE", 1), Origin::Client), Ok(1));
    assert_eq!(sse.message()["fields"][0]["value"], 1);
    g.stop(Duration::from_secs(10)).await;
}

//! The subject bus's rules (docs/rendezvous.md "Subject bus"): matching
//! from "Using Wildcards to Receive Related Subjects" (TIBCO Rendezvous
//! Concepts), each message once per listener, slow listeners
//! ("CLIENT.SLOWCONSUMER"), inboxes and `_LOCAL.` ("Distinguished Subject
//! Names with Special Meaning"), and mqgate's own choices as
//! docs/rendezvous.md states them.

use std::time::Duration;

use mqgate_codecs::rv::msg::{CmLabels, Envelope, Field, Message, Value};
use mqgate_codecs::rv::status::TibrvStatus;
use mqgate_codecs::rv::{Mode, Subject};

use super::advisory::{Advisory, AdvisoryClass, SOURCE_SYSTEM};
use super::bus::Bus;
use super::bus_error::BusError;
use super::config::RvConfig;
use super::delivery::{Delivery, Origin};
use super::listener::{Listener, ListenerOptions};
use super::watch::InterestChange;

fn bus() -> Bus {
    Bus::new(&RvConfig::default())
}

fn env(subject: &str, n: i32) -> Envelope {
    Envelope {
        subject: subject.into(),
        reply_subject: None,
        cm: None,
        message: Message::new(vec![Field::new("n", Value::I32(n))]),
    }
}

fn listen(bus: &Bus, subjects: &[&str]) -> Listener {
    bus.listen(subjects, ListenerOptions::default()).unwrap()
}

/// Everything queued for `l` now, as (subject, field n or -1).
fn drain(l: &mut Listener) -> Vec<(String, i32)> {
    let mut out = Vec::new();
    while let Some(d) = l.try_recv() {
        out.push((d.subject().to_string(), n_of(&d)));
    }
    out
}

fn n_of(d: &Delivery) -> i32 {
    match d.envelope().message.get("n").map(|f| &f.value) {
        Some(Value::I32(n)) => *n,
        _ => -1,
    }
}

#[test]
fn overlapping_subjects_deliver_each_message_once_per_listener() {
    // "Using Wildcards to Receive Related Subjects": RUN.* and RUN.> match
    // RUN.AWAY; *.AWAY matches it too; HOME.> does not.
    let bus = bus();
    let mut all = listen(&bus, &["RUN.*", "RUN.>", "RUN.AWAY", "*.AWAY", ">"]);
    let mut one = listen(&bus, &["*.AWAY"]);
    let mut none = listen(&bus, &["HOME.>"]);
    assert_eq!(bus.publish(env("RUN.AWAY", 1), Origin::Client), Ok(2));
    assert_eq!(drain(&mut all), [("RUN.AWAY".to_string(), 1)]);
    assert_eq!(drain(&mut one), [("RUN.AWAY".to_string(), 1)]);
    assert!(drain(&mut none).is_empty());
    // RUN.> does not match RUN, > does.
    assert_eq!(bus.publish(env("RUN", 2), Origin::Client), Ok(1));
    assert_eq!(drain(&mut all), [("RUN".to_string(), 2)]);
    // The same subject added twice is held once.
    assert_eq!(all.add("RUN.AWAY"), Ok(false));
    assert_eq!(all.add("NEW.*"), Ok(true));
    assert_eq!(
        all.subjects(),
        ["RUN.*", "RUN.>", "RUN.AWAY", "*.AWAY", ">", "NEW.*"]
    );
}

#[test]
fn messages_come_in_publish_order() {
    let bus = bus();
    let mut l = listen(&bus, &["Q.>"]);
    for n in 0..10 {
        bus.publish(env("Q.A", n), Origin::Client).unwrap();
    }
    let got: Vec<i32> = drain(&mut l).into_iter().map(|(_, n)| n).collect();
    assert_eq!(got, (0..10).collect::<Vec<_>>());
}

#[test]
fn a_slow_listener_loses_its_oldest_messages_and_is_told_first() {
    // "CLIENT.SLOWCONSUMER": the oldest messages are discarded to make
    // room for new ones; the advisory is the next message the listener
    // receives, ahead of the others, with waiting, dropped, bytes_dropped
    // and reason "size limit".
    let bus = bus();
    let mut slow = bus
        .listen(
            &["TICK"],
            ListenerOptions {
                queue_len: Some(2),
                ..ListenerOptions::default()
            },
        )
        .unwrap();
    let mut fast = listen(&bus, &["TICK"]);
    let size = env("TICK", 0).encode(bus.limits()).unwrap().len() as u64;
    for n in 0..5 {
        // Never waits, whatever the slow listener does.
        assert_eq!(bus.publish(env("TICK", n), Origin::Client), Ok(2));
    }
    assert_eq!(
        drain(&mut fast)
            .into_iter()
            .map(|(_, n)| n)
            .collect::<Vec<_>>(),
        [0, 1, 2, 3, 4]
    );
    let adv = slow.try_recv().unwrap();
    assert_eq!(adv.subject(), "_RV.ERROR.SYSTEM.CLIENT.SLOWCONSUMER");
    let m = &adv.envelope().message;
    assert_eq!(m.get("waiting").unwrap().value, Value::U32(2));
    assert_eq!(m.get("dropped").unwrap().value, Value::U32(3));
    assert_eq!(m.get("bytes_dropped").unwrap().value, Value::U64(3 * size));
    assert_eq!(
        m.get("reason").unwrap().value,
        Value::String("size limit".into())
    );
    assert_eq!(adv.origin(), Origin::Gateway);
    // Then the newest two; one advisory per loss.
    assert_eq!(
        drain(&mut slow),
        [("TICK".to_string(), 3), ("TICK".to_string(), 4)]
    );
}

#[test]
fn inboxes_are_made_for_one_listener_and_not_listened_to_by_name() {
    // "Distinguished Subject Names with Special Meaning": inboxes are made
    // by the inbox calls; mqgate: `_INBOX.<16 hex digits>.<n>`, and a
    // leading wildcard does not reach them.
    let bus = bus();
    let prefix = bus.inbox_prefix().to_string();
    assert_eq!(prefix.len(), "_INBOX.".len() + 16 + 1);
    assert!(prefix[7..23].chars().all(|c| c.is_ascii_hexdigit()));
    let mut holder = bus.listen_inbox(ListenerOptions::default()).unwrap();
    let inbox = holder.inbox().unwrap().to_string();
    assert_eq!(inbox, format!("{prefix}1"));
    let mut other = bus.listen_inbox(ListenerOptions::default()).unwrap();
    assert_eq!(other.inbox().unwrap(), format!("{prefix}2"));
    let mut everything = listen(&bus, &[">", "*.*.*"]);
    assert_eq!(bus.publish(env(&inbox, 7), Origin::Client), Ok(1));
    assert_eq!(drain(&mut holder), [(inbox.clone(), 7)]);
    assert!(drain(&mut other).is_empty());
    assert!(drain(&mut everything).is_empty());
    // An inbox nobody holds: not delivered, not an error.
    assert_eq!(
        bus.publish(env(&format!("{prefix}99"), 8), Origin::Client),
        Ok(0)
    );
    assert_eq!(
        bus.publish(env("_INBOX.0123456789ABCDEF.1", 9), Origin::Client),
        Ok(0)
    );
    // Listening by name is refused, TIBRV_NOT_PERMITTED 27.
    let e = bus
        .listen(&[inbox.as_str()], ListenerOptions::default())
        .unwrap_err();
    assert_eq!(
        e,
        BusError::InboxByName {
            text: inbox.clone()
        }
    );
    assert_eq!(e.status(), TibrvStatus::NOT_PERMITTED);
    assert_eq!(e.field(), Some("subject"));
    assert_eq!(
        e.to_string(),
        format!(
            "listen subject \"{inbox}\": element 1: '_INBOX.' subjects are made by the gateway for one listener (GET /v1/rv/listen?inbox=true), not listened to by name"
        )
    );
    assert_eq!(
        everything.add("_INBOX.X.1"),
        Err(BusError::InboxByName {
            text: "_INBOX.X.1".into()
        })
    );
    // The codec's rule comes first: "Programs cannot combine inbox names
    // with wildcards".
    assert_eq!(
        everything.add("_INBOX.>").unwrap_err().to_string(),
        "invalid listen subject \"_INBOX.>\": element 2 is the wildcard '>': '_INBOX.' subjects cannot be combined with wildcards"
    );
    // A link's listener listens to another gateway's inbox by name.
    let link = bus.new_link();
    let mut remote = bus
        .listen(
            &["_INBOX.0123456789ABCDEF.1"],
            ListenerOptions {
                link: Some(link),
                ..ListenerOptions::default()
            },
        )
        .unwrap();
    assert_eq!(
        bus.publish(env("_INBOX.0123456789ABCDEF.1", 10), Origin::Client),
        Ok(1)
    );
    assert_eq!(
        drain(&mut remote),
        [("_INBOX.0123456789ABCDEF.1".to_string(), 10)]
    );
}

#[test]
fn local_subjects_never_reach_a_link() {
    // "Distinguished Subject Names with Special Meaning": _LOCAL. subjects
    // stay in the daemon; programs may send to them.
    let bus = bus();
    let link = bus.new_link();
    let mut local = listen(&bus, &["_LOCAL.>"]);
    let mut wide = listen(&bus, &[">"]);
    let mut out = bus
        .listen(
            &["_LOCAL.>", ">"],
            ListenerOptions {
                link: Some(link),
                ..ListenerOptions::default()
            },
        )
        .unwrap();
    assert_eq!(bus.publish(env("_LOCAL.CACHE.X", 1), Origin::Client), Ok(1));
    assert_eq!(drain(&mut local), [("_LOCAL.CACHE.X".to_string(), 1)]);
    // mqgate: a leading wildcard does not reach reserved subjects.
    assert!(drain(&mut wide).is_empty());
    assert!(drain(&mut out).is_empty());
    // Nor may a link bring one in.
    let e = bus
        .publish(env("_LOCAL.CACHE.X", 2), Origin::Link(link))
        .unwrap_err();
    assert_eq!(e.status(), TibrvStatus::NOT_PERMITTED);
    assert_eq!(
        e.to_string(),
        "subject \"_LOCAL.CACHE.X\": _LOCAL. subjects never cross a link"
    );
}

#[test]
fn a_message_from_a_link_does_not_go_back_over_it() {
    let bus = bus();
    let (a, b) = (bus.new_link(), bus.new_link());
    let on = |link| ListenerOptions {
        link: Some(link),
        ..ListenerOptions::default()
    };
    let mut to_a = bus.listen(&["ORDERS.>"], on(a)).unwrap();
    let mut to_b = bus.listen(&["ORDERS.>"], on(b)).unwrap();
    let mut here = listen(&bus, &["ORDERS.*"]);
    assert_eq!(bus.publish(env("ORDERS.NEW", 1), Origin::Link(a)), Ok(2));
    assert!(drain(&mut to_a).is_empty());
    assert_eq!(drain(&mut to_b), [("ORDERS.NEW".to_string(), 1)]);
    assert_eq!(drain(&mut here), [("ORDERS.NEW".to_string(), 1)]);
}

#[test]
fn advisories_reach_listeners_that_name_rv_and_no_link() {
    // "System Advisory Subject Names": _RV.class.SYSTEM.name; listening to
    // _RV.*.SYSTEM.> receives them. mqgate: `>` does not.
    let bus = bus();
    let mut system = listen(&bus, &["_RV.*.SYSTEM.>"]);
    let mut errors = listen(&bus, &["_RV.ERROR.>"]);
    let mut wide = listen(&bus, &[">", "*.ERROR.>"]);
    let link = bus.new_link();
    let mut out = bus
        .listen(
            &["_RV.>"],
            ListenerOptions {
                link: Some(link),
                ..ListenerOptions::default()
            },
        )
        .unwrap();
    let adv = Advisory::new(AdvisoryClass::Warn, SOURCE_SYSTEM, "TEST.ONE");
    assert_eq!(bus.publish_advisory(adv), Ok(1));
    assert_eq!(
        system.try_recv().unwrap().subject(),
        "_RV.WARN.SYSTEM.TEST.ONE"
    );
    assert!(errors.try_recv().is_none());
    assert!(wide.try_recv().is_none());
    assert!(out.try_recv().is_none());
    // A program may not send to _RV. ("Programs must not send ...").
    let e = bus
        .publish(env("_RV.WARN.SYSTEM.TEST", 1), Origin::Client)
        .unwrap_err();
    assert_eq!(e.status(), TibrvStatus::INVALID_SUBJECT);
    assert_eq!(e.field(), Some("subject"));
    assert_eq!(
        e.to_string(),
        "invalid subject \"_RV.WARN.SYSTEM.TEST\": element 1: '_RV.' is reserved for advisories; programs must not send to it"
    );
}

#[test]
fn the_gateway_sends_to_reserved_subjects_and_long_advisory_subjects() {
    // "RVCM Advisory Subject Names": the subject ends with the message's
    // subject, so it may pass the 196-byte receive limit (not 255).
    let bus = bus();
    let mut cm = listen(&bus, &["_RVCM.>", "_RV.INFO.RVCM.DELIVERY.COMPLETE.>"]);
    assert_eq!(bus.publish(env("_RVCM.REG.X", 1), Origin::Gateway), Ok(1));
    let long = format!("A.{}.{}", "B".repeat(90), "C".repeat(90));
    let adv = Advisory::new(
        AdvisoryClass::Info,
        "RVCM",
        format!("DELIVERY.COMPLETE.{long}"),
    );
    assert!(adv.subject().len() > 196);
    assert_eq!(bus.publish_advisory(adv), Ok(1));
    assert_eq!(drain(&mut cm).len(), 2);
    assert!(bus.publish(env("_RVCM.REG.X", 1), Origin::Client).is_err());
}

#[test]
fn wildcard_publishes_are_refused_unless_allowed() {
    // docs/rendezvous.md "Modes": refused by default; `rv.wildcard_publish`
    // allows them; a wildcard element is matched as text.
    let e = bus()
        .publish(env("ORDERS.*", 1), Origin::Client)
        .unwrap_err();
    assert_eq!(
        e.to_string(),
        "invalid subject \"ORDERS.*\": element 2 is the wildcard '*': sending to a wildcard subject is refused unless wildcard sends are allowed"
    );
    assert_eq!(e.element(), Some(2));
    let bus = Bus::new(&RvConfig {
        wildcard_publish: true,
        ..RvConfig::default()
    });
    let mut star = listen(&bus, &["ORDERS.*"]);
    let mut lit = listen(&bus, &["ORDERS.NEW"]);
    assert_eq!(bus.publish(env("ORDERS.*", 1), Origin::Client), Ok(1));
    assert_eq!(drain(&mut star).len(), 1);
    assert!(drain(&mut lit).is_empty());
    // Never in a reply subject.
    let mut with_reply = env("ORDERS.NEW", 2);
    with_reply.reply_subject = Some("REPLY.*".into());
    let e = bus.publish(with_reply, Origin::Client).unwrap_err();
    assert_eq!(e.field(), Some("reply_subject"));
    assert!(
        e.to_string()
            .starts_with("invalid reply subject \"REPLY.*\": element 2 is the wildcard '*'"),
        "{e}"
    );
}

#[test]
fn messages_over_the_size_limit_are_refused_with_invalid_size() {
    // TIBRV_INVALID_SIZE 32 (docs/rendezvous.md "Binary form" limits).
    let bus = Bus::new(&RvConfig {
        max_message_bytes: 100,
        ..RvConfig::default()
    });
    let mut l = listen(&bus, &["BIG"]);
    let mut big = env("BIG", 1);
    big.message
        .fields
        .push(Field::new("data", Value::Opaque(vec![0; 100])));
    let size = big.encoded_len();
    let e = bus.publish(big, Origin::Client).unwrap_err();
    assert!(e.is_too_large());
    assert_eq!(e.status(), TibrvStatus::INVALID_SIZE);
    assert_eq!(
        e.to_string(),
        format!("message of {size} bytes is larger than the 100-byte limit")
    );
    assert!(l.try_recv().is_none());
    // Nothing else disturbed: a small message still goes through.
    assert_eq!(bus.publish(env("BIG", 2), Origin::Client), Ok(1));
}

#[test]
fn bad_listen_subjects_register_nothing() {
    let bus = bus();
    let e = bus
        .listen(&["GOOD.>", "BAD..X"], ListenerOptions::default())
        .unwrap_err();
    // "Subject Name Syntax": an empty element is illegal.
    assert_eq!(
        e.to_string(),
        "invalid listen subject \"BAD..X\": element 2 is empty"
    );
    assert_eq!(e.status(), TibrvStatus::INVALID_SUBJECT);
    assert_eq!(bus.listeners(), 0);
    assert!(!bus.has_interest(&Subject::parse("GOOD.X", Mode::Send).unwrap()));
    assert_eq!(
        bus.listen(&[], ListenerOptions::default()).unwrap_err(),
        BusError::NoSubjects
    );
}

#[test]
fn interest_and_its_changes() {
    let bus = bus();
    let s = |t: &str| Subject::parse(t, Mode::Listen).unwrap().into_owned();
    let a = listen(&bus, &["A.>"]);
    let mut watch = bus.watch_interest(None);
    // The present interest first.
    assert_eq!(
        watch.try_next(),
        Some(InterestChange {
            subject: s("A.>"),
            listening: true
        })
    );
    assert_eq!(watch.try_next(), None);
    // A second listener on the same subject changes nothing.
    let a2 = listen(&bus, &["A.>"]);
    assert_eq!(watch.try_next(), None);
    drop(a);
    assert_eq!(watch.try_next(), None);
    drop(a2);
    assert_eq!(
        watch.try_next(),
        Some(InterestChange {
            subject: s("A.>"),
            listening: false
        })
    );
    // Came and went between two reads: nothing to report.
    drop(listen(&bus, &["B"]));
    assert_eq!(watch.try_next(), None);
    // has_interest follows the listeners and the reserved-subject rule.
    let b = listen(&bus, &[">"]);
    assert!(bus.has_interest(&s("X.Y")));
    assert!(!bus.has_interest(&s("_LOCAL.X")));
    assert_eq!(watch.try_next().map(|c| c.listening), Some(true));
    // A link's own listeners are not counted by its watch.
    let link = bus.new_link();
    let mut except = bus.watch_interest(Some(link));
    assert_eq!(except.try_next().map(|c| c.subject), Some(s(">")));
    let _l = bus
        .listen(
            &["L.*"],
            ListenerOptions {
                link: Some(link),
                ..ListenerOptions::default()
            },
        )
        .unwrap();
    assert_eq!(except.try_next(), None);
    assert_eq!(watch.try_next().map(|c| c.subject), Some(s("L.*")));
    b.remove(">");
    assert_eq!(except.try_next().map(|c| c.listening), Some(false));
}

#[tokio::test]
async fn closing_ends_listeners_after_what_was_queued_and_refuses_more() {
    let bus = bus();
    let mut l = listen(&bus, &["X"]);
    let mut watch = bus.watch_interest(None);
    bus.publish(env("X", 1), Origin::Client).unwrap();
    bus.close();
    assert_eq!(l.recv().await.map(|d| n_of(&d)), Some(1));
    assert!(l.recv().await.is_none());
    assert_eq!(watch.next().await.map(|c| c.listening), Some(true));
    assert!(watch.next().await.is_none());
    assert_eq!(
        bus.publish(env("X", 2), Origin::Client),
        Err(BusError::Closed)
    );
    let e = bus.listen(&["X"], ListenerOptions::default()).unwrap_err();
    assert_eq!(e.status(), TibrvStatus::DAEMON_NOT_CONNECTED);
}

#[tokio::test]
async fn recv_waits_for_a_publish() {
    let bus = bus();
    let mut l = listen(&bus, &["W"]);
    let publisher = bus.clone();
    tokio::spawn(async move {
        tokio::time::sleep(Duration::from_millis(20)).await;
        publisher.publish(env("W", 5), Origin::Client).unwrap();
    });
    let got = tokio::time::timeout(Duration::from_secs(5), l.recv())
        .await
        .unwrap();
    assert_eq!(got.map(|d| n_of(&d)), Some(5));
}

#[tokio::test]
async fn a_request_gets_the_first_reply_or_none_in_time() {
    // C Reference, "tibrvTransport_SendRequest()": an inbox as reply
    // subject, the first message on it is the reply.
    let bus = bus();
    let mut server = listen(&bus, &["TIME.NOW"]);
    let replier = bus.clone();
    tokio::spawn(async move {
        while let Some(req) = server.recv().await {
            let reply_to = req.reply_subject().unwrap().to_string();
            replier.publish(env(&reply_to, 42), Origin::Client).unwrap();
        }
    });
    let reply = bus
        .request(env("TIME.NOW", 0), Origin::Client, Duration::from_secs(5))
        .await
        .unwrap()
        .unwrap();
    assert!(reply.subject().starts_with(bus.inbox_prefix()));
    assert_eq!(n_of(&reply), 42);
    // The inbox went with the request.
    assert_eq!(bus.listeners(), 1);
    let none = bus
        .request(env("NOBODY", 0), Origin::Client, Duration::from_millis(30))
        .await
        .unwrap();
    assert!(none.is_none());
}

#[test]
fn cm_labels_pass_through_the_bus() {
    // Certified delivery publishes labeled messages as mqgate.
    let bus = bus();
    let mut l = listen(&bus, &["CM.X"]);
    let mut e = env("CM.X", 1);
    e.cm = Some(CmLabels {
        sender: "PRICER".into(),
        sequence: 7,
        time_limit: 0.0,
    });
    bus.publish(e.clone(), Origin::Gateway).unwrap();
    let d = l.try_recv().unwrap();
    assert_eq!(d.envelope(), &e);
    assert_eq!(d.encoded(), &e.encode(bus.limits()).unwrap()[..]);
    assert_eq!(
        d.json(),
        r#"{"subject":"CM.X","cm":{"sender":"PRICER","sequence":"7","time_limit_s":0.0},"fields":[{"name":"n","type":"i32","value":1}]}"#
    );
}

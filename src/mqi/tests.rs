//! The calls message channels make (docs/channel-protocol.md "Applying one
//! message", "Sender channels"): MQPUT1 with before_put, no-wait gets under
//! a unit of work with and without exits, sealed units of work with their
//! state record.

use super::*;
use bytes::Bytes;
use mqgate_codecs::mq::constants::per;
use mqgate_codecs::mq::{Charset, Mqmd};
use mqgate_exits::{Exit, ExitContext, ExitReason, ExitRegistry, ExitResponse, Payload};
use std::time::Duration;

/// Three local queues of queue manager QM1.
const CONFIG: &str = "
queue_manager:
  name: QM1
queues:
  - type: local
    name: APP.IN
  - type: local
    name: LOCKED
  - type: local
    name: PLAIN
";

/// APP.IN: before_put appends `+put`, after_get appends `+got` (exit
/// `mark`). LOCKED: before_put refuses with 2035 MQRC_NOT_AUTHORIZED (exit
/// `refuse`). PLAIN: no exits. The test's own exits, so the section is read
/// apart from the configuration (whose check knows only the built-ins).
const EXITS: &str = "
queues:
    APP.IN:
      before_put:
        - exit: mark
      after_get:
        - exit: mark
    LOCKED:
      before_put:
        - exit: refuse
";

/// Appends `+put` (before_put) or `+got` (after_get) to the data.
struct Mark;

impl Exit for Mark {
    fn call(&mut self, ctx: &mut ExitContext<'_>, payload: Payload<'_>) -> ExitResponse {
        if ctx.exit_reason != ExitReason::Msg {
            return ExitResponse::Ok;
        }
        match payload {
            Payload::Put { data, .. } => data.extend_from_slice(b"+put"),
            Payload::Got { data, .. } => data.extend_from_slice(b"+got"),
            _ => {}
        }
        ExitResponse::Ok
    }
}

/// Refuses every put with 2035 MQRC_NOT_AUTHORIZED.
struct Refuse;

impl Exit for Refuse {
    fn call(&mut self, ctx: &mut ExitContext<'_>, _payload: Payload<'_>) -> ExitResponse {
        if ctx.exit_reason != ExitReason::Msg {
            return ExitResponse::Ok;
        }
        ExitResponse::SuppressFunction(Mqrc::NOT_AUTHORIZED)
    }
}

fn mqi() -> (tempfile::TempDir, Mqi) {
    let dir = tempfile::tempdir().unwrap();
    let config = crate::config::Config::from_yaml(CONFIG, "test").unwrap();
    let store = Arc::new(crate::store::redb::RedbStore::open(dir.path()).unwrap());
    let qm = Arc::new(QueueManager::open(&config, store).unwrap());
    let mut registry = ExitRegistry::with_builtins();
    registry.register("mark", Arc::new(|_, _| Ok(Box::new(Mark) as Box<dyn Exit>)));
    registry.register(
        "refuse",
        Arc::new(|_, _| Ok(Box::new(Refuse) as Box<dyn Exit>)),
    );
    let exits: mqgate_exits::ExitsConfig = serde_yaml::from_str(EXITS).unwrap();
    let exits = QueueExits::with_registry(&exits, registry, "QM1");
    (dir, Mqi::new(qm, Arc::new(exits)))
}

fn msg(data: &'static [u8]) -> Outgoing {
    Outgoing {
        md: Mqmd {
            persistence: per::PERSISTENT,
            ..Mqmd::default()
        },
        charset: Charset::Ascii,
        data: Bytes::from_static(data),
    }
}

fn in_uow(uow: u64) -> PutOptions {
    PutOptions {
        uow: Some(uow),
        pass_all_context: true,
        ..PutOptions::default()
    }
}

#[test]
fn put1_runs_before_put_of_the_name_given_and_get_now_takes_it_under_the_unit() {
    let (_dir, mqi) = mqi();
    let uow = mqi.begin(None).unwrap();
    mqi.put1_now("APP.IN", msg(b"m"), in_uow(uow)).unwrap();
    mqi.commit_seal(mqi.seal(uow, Vec::new()).unwrap()).unwrap();
    // No queue-point exits on an object opened as a transmission queue:
    // the message as stored, with before_put's `+put`.
    let raw = mqi.open_xmit_queue("APP.IN").unwrap();
    let uow = mqi.begin(None).unwrap();
    let got = mqi
        .get_now_detailed(&raw, &Selector::default(), uow)
        .unwrap();
    assert_eq!(&got.data[..], b"m+put");
    // Held by the unit: nothing else to take, until it is backed out
    // (BackoutCount + 1; IBM MQ "MQBACK").
    let again = mqi.get_now_detailed(&raw, &Selector::default(), uow);
    assert!(
        matches!(&again, Err(CallError::Queue(e)) if e.mqrc == Mqrc::NO_MSG_AVAILABLE),
        "{again:?}"
    );
    mqi.backout_now(uow).unwrap();
    let uow = mqi.begin(None).unwrap();
    let got = mqi
        .get_now_detailed(&raw, &Selector::default(), uow)
        .unwrap();
    assert_eq!(got.md.backout_count, 1);
    mqi.backout_now(uow).unwrap();
}

#[test]
fn get_now_with_exits_runs_after_get_on_the_copy_only() {
    let (_dir, mqi) = mqi();
    let uow = mqi.begin(None).unwrap();
    mqi.put1_now("APP.IN", msg(b"m"), in_uow(uow)).unwrap();
    mqi.commit_with_meta_now(uow, Vec::new()).unwrap();
    let obj = mqi.open("APP.IN", "").unwrap();
    let uow = mqi.begin(None).unwrap();
    let got = mqi
        .get_now_detailed(&obj, &Selector::default(), uow)
        .unwrap();
    assert_eq!(&got.data[..], b"m+put+got");
    mqi.backout_now(uow).unwrap();
    // The stored message is as before_put left it.
    let raw = mqi.open_xmit_queue("APP.IN").unwrap();
    let uow = mqi.begin(None).unwrap();
    let got = mqi
        .get_now_detailed(&raw, &Selector::default(), uow)
        .unwrap();
    assert_eq!(&got.data[..], b"m+put");
    mqi.backout_now(uow).unwrap();
}

#[test]
fn a_refused_put1_is_an_exit_stop_and_stores_nothing() {
    let (_dir, mqi) = mqi();
    let uow = mqi.begin(None).unwrap();
    let r = mqi.put1_now("LOCKED", msg(b"m"), in_uow(uow));
    match r {
        Err(CallError::Exit { stop, stored }) => {
            assert_eq!(stop.reason, Mqrc::NOT_AUTHORIZED);
            assert_eq!(stop.point, mqgate_exits::ExitPoint::BeforePut);
            assert!(stored.is_none());
        }
        other => panic!("expected an exit stop, got {other:?}"),
    }
    mqi.commit_with_meta_now(uow, Vec::new()).unwrap();
    assert_eq!(mqi.depth("LOCKED"), Some(0));
    // A name that is not an MQ name is the queue manager's refusal: 2152
    // MQRC_OBJECT_NAME_ERROR (IBM MQ "Rules for naming IBM MQ objects").
    let r = mqi.put1_now("BAD NAME", msg(b"m"), PutOptions::default());
    assert!(
        matches!(&r, Err(CallError::Queue(e)) if e.mqrc == Mqrc::OBJECT_NAME_ERROR),
        "{r:?}"
    );
}

#[tokio::test]
async fn a_sealed_unit_and_its_state_record_are_committed_together() {
    let (_dir, mqi) = mqi();
    let key = "channel/TEST/last_committed_seq".to_string();
    let uow = mqi.begin(None).unwrap();
    mqi.put1_now("PLAIN", msg(b"one"), in_uow(uow)).unwrap();
    let sealed = mqi
        .seal(uow, vec![(key.clone(), 7u64.to_be_bytes().to_vec())])
        .unwrap();
    // Sealed, not committed: neither the message nor the record is there.
    assert_eq!(mqi.meta(&key).await.unwrap(), None);
    // A sealed unit takes no more calls: 2003 MQRC_BACKED_OUT.
    let r = mqi.put1_now("PLAIN", msg(b"late"), in_uow(uow));
    assert!(
        matches!(&r, Err(CallError::Queue(e)) if e.mqrc == Mqrc::BACKED_OUT),
        "{r:?}"
    );
    mqi.commit_seal(sealed).unwrap();
    assert_eq!(
        mqi.meta(&key).await.unwrap(),
        Some(7u64.to_be_bytes().to_vec())
    );
    assert_eq!(mqi.depth("PLAIN"), Some(1));
    // Backed out when sealed: its put is gone, the record unchanged.
    let uow = mqi.begin(None).unwrap();
    mqi.put1_now("PLAIN", msg(b"two"), in_uow(uow)).unwrap();
    let sealed = mqi
        .seal(uow, vec![(key.clone(), 8u64.to_be_bytes().to_vec())])
        .unwrap();
    mqi.backout_seal(sealed);
    assert_eq!(mqi.depth("PLAIN"), Some(1));
    assert_eq!(
        mqi.meta(&key).await.unwrap(),
        Some(7u64.to_be_bytes().to_vec())
    );
    // A record written on its own.
    mqi.put_meta(vec![(key.clone(), vec![1, 2])]).await.unwrap();
    assert_eq!(mqi.meta(&key).await.unwrap(), Some(vec![1, 2]));
}

/// A lease is acknowledged only with its own token on its own queue: a
/// random token, a unit-of-work token and the lease's token on another queue
/// are each 2003 MQRC_BACKED_OUT (IBM MQ "API reason codes": 2003 "The
/// current unit of work ... was backed out", here: the unit named is not
/// open) and leave the message held; a lease token is no unit of work
/// either. Then the right acknowledge removes the message.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn only_a_leases_own_token_on_its_queue_acknowledges_it() {
    let (_dir, mqi) = mqi();
    let plain = mqi.open("PLAIN", "").unwrap();
    let other = mqi.open("LOCKED", "").unwrap();
    mqi.put(&plain, msg(b"held"), PutOptions::default())
        .await
        .unwrap();
    let req = GetRequest::default();
    let leased = mqi
        .get_leased(&plain, req, Duration::from_secs(600))
        .await
        .unwrap();
    assert_eq!(&leased.got.message.data[..], b"held");
    assert_eq!(leased.lease.to_string().len(), 32);
    let uow = mqi.begin_token(None).unwrap();
    let guess = Token::random().unwrap();
    for (what, obj, token) in [
        ("a random token", &plain, guess),
        ("a unit-of-work token", &plain, uow),
        ("the lease's token on another queue", &other, leased.lease),
    ] {
        let e = mqi.ack(obj, token).await.unwrap_err();
        assert_eq!(e.mqrc, Mqrc::BACKED_OUT, "ack with {what}: {e}");
        let e = mqi.backout_lease(obj, token).await.unwrap_err();
        assert_eq!(e.mqrc, Mqrc::BACKED_OUT, "backout with {what}: {e}");
        assert!(!mqi.lease_is_open(obj, token), "{what}");
    }
    // Nothing was touched: the lease still holds the message (depth 1, and
    // nothing available to another getter), and the unit of work is open.
    assert_eq!(mqi.depth("PLAIN"), Some(1));
    let none = mqi
        .get(
            &plain,
            GetRequest::default(),
            GetMode::Browse { after: None },
        )
        .await
        .unwrap_err();
    assert_eq!(none.mqrc, Mqrc::NO_MSG_AVAILABLE);
    assert!(mqi.lease_is_open(&plain, leased.lease));
    // A lease token is no unit of work; a unit-of-work token is one.
    let e = mqi.uow_for_token(leased.lease).unwrap_err();
    assert_eq!(e.mqrc, Mqrc::BACKED_OUT, "{e}");
    assert_eq!(mqi.uow_for_token(guess).unwrap_err().mqrc, Mqrc::BACKED_OUT);
    let id = mqi.uow_for_token(uow).unwrap();
    mqi.commit(id).await.unwrap();
    assert_eq!(mqi.uow_for_token(uow).unwrap_err().mqrc, Mqrc::BACKED_OUT);
    // The lease's own token on its queue.
    mqi.ack(&plain, leased.lease).await.unwrap();
    assert_eq!(mqi.depth("PLAIN"), Some(0));
    let e = mqi.ack(&plain, leased.lease).await.unwrap_err();
    assert_eq!(e.mqrc, Mqrc::BACKED_OUT, "acknowledged already: {e}");
}

#[test]
fn a_list_put_names_every_destination_as_queue_percent_qmgr() {
    // docs/http-api.md "`POST /v1/messages`": an error names the destination
    // that failed by its index in the list and its `QUEUE%QMGR` name, the
    // same way whether it failed to resolve or to be put.
    let (_dir, mqi) = mqi();
    let plain = mqi.open("PLAIN", "").unwrap();
    // Resolution: NOPE is no queue of QM1, 2085 MQRC_UNKNOWN_OBJECT_NAME
    // (IBM MQ "API reason codes").
    let nope = mqi.open("NOPE", "QM1").unwrap();
    let e = mqi
        .put_many_now(&[plain.clone(), nope], msg(b"m"), PutOptions::default())
        .unwrap_err();
    assert_eq!(e.mqrc, Mqrc::UNKNOWN_OBJECT_NAME);
    assert!(
        e.message.starts_with("destination 1 (NOPE%QM1): "),
        "{}",
        e.message
    );
    assert!(e.message.ends_with("; nothing was put"), "{}", e.message);
    // The put: LOCKED's before_put refuses with 2035 MQRC_NOT_AUTHORIZED
    // (the `refuse` exit above); the copy already put to PLAIN is backed out.
    let locked = mqi.open("LOCKED", "QM1").unwrap();
    let e = mqi
        .put_many_now(&[plain.clone(), locked], msg(b"m"), PutOptions::default())
        .unwrap_err();
    assert_eq!(e.mqrc, Mqrc::NOT_AUTHORIZED);
    assert!(
        e.message.starts_with("destination 1 (LOCKED%QM1): "),
        "{}",
        e.message
    );
    assert!(e.message.ends_with("; nothing was put"), "{}", e.message);
    // Without a queue manager, the queue alone.
    let locked = mqi.open("LOCKED", "").unwrap();
    let e = mqi
        .put_many_now(&[locked, plain], msg(b"m"), PutOptions::default())
        .unwrap_err();
    assert!(
        e.message.starts_with("destination 0 (LOCKED): "),
        "{}",
        e.message
    );
    assert_eq!(
        (mqi.depth("PLAIN"), mqi.depth("LOCKED")),
        (Some(0), Some(0))
    );
}

#[test]
fn destination_labels_quote_names_that_are_no_mq_names() {
    // IBM MQ "Rules for naming IBM MQ objects": A-Z a-z 0-9 . / _ %, at
    // most 48 characters; anything else is quoted as error messages quote
    // values (src/qmgr/names.rs `shown`: at most 64 characters).
    assert_eq!(destination_label(0, "A", ""), "destination 0 (A)");
    assert_eq!(
        destination_label(2, "INBOX", "DEV0001"),
        "destination 2 (INBOX%DEV0001)"
    );
    assert_eq!(
        destination_label(1, "BAD NAME", ""),
        "destination 1 (\"BAD NAME\")"
    );
    assert_eq!(
        destination_label(1, "A", "bad qm"),
        "destination 1 (\"A%bad qm\")"
    );
    let long = destination_label(3, &"Q".repeat(5000), "");
    assert_eq!(
        long,
        format!("destination 3 (\"{}\"… (5000 bytes))", "Q".repeat(64))
    );
}

/// MQGMO_CONVERT through the queue interface (IBM MQ "Conversion
/// processing"): the copy handed back is converted and its MD shows the
/// target; the stored message is not; what cannot be converted comes back as
/// it was with the warning, which the after_get exits see and pass on.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_get_with_convert_converts_the_copy_and_reports_its_warning() {
    let (_dir, mqi) = mqi();
    let plain = mqi.open("PLAIN", "").unwrap();
    let text = Outgoing {
        md: Mqmd {
            format: mqgate_codecs::mq::CharField(*b"MQSTR   "),
            coded_char_set_id: 819,
            ..Mqmd::default()
        },
        charset: Charset::Ascii,
        data: Bytes::from_static(b"ok"),
    };
    mqi.put(&plain, text, PutOptions::default()).await.unwrap();
    let browse = GetMode::Browse { after: None };
    let target = Some(ConvertRequest::new(Some(500), Some(785)));
    let got = mqi
        .get_with_convert(&plain, GetRequest::default(), browse, target)
        .await
        .unwrap();
    // "ok" in EBCDIC 500 is 96 92 (`printf ok | iconv -f ISO-8859-1 -t IBM500`).
    assert_eq!(&got.message.data[..], [0x96, 0x92]);
    assert_eq!(
        (got.message.md.coded_char_set_id, got.message.md.encoding),
        (500, 785)
    );
    assert!(got.message.warning.is_none());
    assert_eq!(&got.stored.data[..], b"ok");
    assert_eq!(got.stored.md.coded_char_set_id, 819);
    // APP.IN (after_get appends `+got`) with MQFMT_NONE data: unconverted, 2110
    // MQRC_FORMAT_ERROR, the exit's change on top; the MD keeps the message's CCSID
    // (MQCCSI_Q_MGR on put became the queue manager's 1208).
    let app = mqi.open("APP.IN", "").unwrap();
    mqi.put(&app, msg(b"\x00bin"), PutOptions::default())
        .await
        .unwrap();
    let got = mqi
        .get_with_convert(&app, GetRequest::default(), browse, target)
        .await
        .unwrap();
    assert_eq!(&got.message.data[..], b"\x00bin+put+got");
    assert_eq!(got.message.md.coded_char_set_id, 1208);
    let w = got.message.warning.expect("a warning");
    assert_eq!(w.mqrc, Mqrc::FORMAT_ERROR, "{}", w.message);
}

#[test]
fn authorities_are_checked_only_when_configured() {
    use crate::security::credentials::{Credentials, CurrentCredentials};
    use crate::security::{Authority, ObjectType, Principal, SecurityConfig};
    let (_d, m) = mqi();
    // No security configured: every call is allowed, with or without a
    // principal (docs/security.md "Defaults").
    assert!(!m.checks_authorities());
    assert!(
        m.authorize(None, ObjectType::Queue, "Q1", Authority::Get)
            .is_ok()
    );
    let c: SecurityConfig = serde_yaml::from_str(
        "tokens: [{ principal: app1, sha256: ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad }]\nauthorities: [{ principal: app1, profile: Q1, authorities: [put] }]",
    )
    .unwrap();
    let m = m.with_authorities(Arc::new(CurrentCredentials::new(
        Credentials::from_config(&c).unwrap(),
    )));
    let app1 = Principal::new("app1").unwrap();
    assert!(
        m.authorize(Some(&app1), ObjectType::Queue, "Q1", Authority::Put)
            .is_ok()
    );
    // IBM MQ "API reason codes": 2035 MQRC_NOT_AUTHORIZED.
    let e = m
        .authorize(Some(&app1), ObjectType::Queue, "Q1", Authority::Get)
        .unwrap_err();
    assert_eq!(e.mqrc, Mqrc::NOT_AUTHORIZED);
    assert_eq!(
        e.message,
        "principal \"app1\" has no +get authority on queue \"Q1\""
    );
    // A call without a principal is refused once authorities are checked.
    let e = m
        .authorize(None, ObjectType::Queue, "Q1", Authority::Put)
        .unwrap_err();
    assert_eq!(e.mqrc, Mqrc::NOT_AUTHORIZED);
    // The device form joins the names as given.
    let d = Principal::new("device:DEV0001").unwrap();
    assert!(
        m.authorize_device(Some(&d), "DEV0001", "ORDERS", Authority::Get)
            .is_ok()
    );
    assert!(
        m.authorize_device(Some(&d), "DEV0001", "../DEV0002/ORDERS", Authority::Get)
            .is_err()
    );
}

/// A principal authenticated by a token before a reload is checked against
/// the grants in force with that token, not those the reload put in force
/// meanwhile (docs/operations.md "Reloading the configuration": never a
/// mix); one authenticated after it, against the new ones. Grants: app1
/// +put on Q1, then on Q2 only (docs/security.md "Authorities": no matching
/// profile is refused with 2035 MQRC_NOT_AUTHORIZED).
#[test]
fn authorize_uses_the_grants_that_went_with_the_principals_token() {
    use crate::security::credentials::{Credentials, CurrentCredentials};
    use crate::security::{Authority, ObjectType, SecurityConfig};
    let (_d, m) = mqi();
    let set = |q: &str| {
        let c: SecurityConfig = serde_yaml::from_str(&format!(
            "tokens: [{{ principal: app1, sha256: {} }}]\nauthorities: [{{ principal: app1, profile: {q}, authorities: [put] }}]",
            crate::security::tokens::digest_hex("app1-token")
        ))
        .unwrap();
        Credentials::from_config(&c).unwrap()
    };
    let cell = Arc::new(CurrentCredentials::new(set("Q1")));
    let m = m.with_authorities(Arc::clone(&cell));
    let before = cell.get().authenticate("app1-token").unwrap();
    cell.set(set("Q2"));
    let put = |p, q| m.authorize(Some(p), ObjectType::Queue, q, Authority::Put);
    assert!(put(&before, "Q1").is_ok());
    assert_eq!(put(&before, "Q2").unwrap_err().mqrc, Mqrc::NOT_AUTHORIZED);
    let after = cell.get().authenticate("app1-token").unwrap();
    assert!(put(&after, "Q2").is_ok());
    assert_eq!(put(&after, "Q1").unwrap_err().mqrc, Mqrc::NOT_AUTHORIZED);
    // A principal that no token authenticated (an MQTT or SVRCONN user)
    // meets the grants in force.
    let plain = crate::security::Principal::new("app1").unwrap();
    assert!(put(&plain, "Q2").is_ok());
}

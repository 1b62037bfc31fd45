//! Unit tests of the queue logic against a real redb store in a temp directory.

use super::*;
use crate::store::redb::RedbStore;
use mqgate_codecs::mq::ByteOrder;
use mqgate_codecs::mq::constants::{mt, ro};
use mqgate_codecs::mq::xqh::parse_xqh;

const CONFIG: &str = "
queue_manager:
  name: QM1
queues:
  - type: local
    name: Q
  - type: local
    name: SMALL
    max_depth: 2
    max_msg_length: 10
  - type: local
    name: PERSIST
    default_persistence: persistent
  - type: local
    name: INHIBITED
    put_inhibited: true
    get_inhibited: true
  - type: local
    name: QM2
    usage: xmitq
  - type: remote
    name: REMOTE.Q
    remote_q_name: APP.IN
    remote_q_mgr_name: QM2
  - type: remote
    name: QM.OLD
    remote_q_mgr_name: QM2
  - type: alias
    name: ALIAS.Q
    target: Q
  - type: model
    name: DEVICE.MODEL
    dynamic_q_name: DEVICE.*
    max_depth: 3
  - type: local
    name: RETRY
    backout_threshold: 2
    backout_requeue_q: RETRY.BACKOUT
  - type: local
    name: RETRY.BACKOUT
";

fn open(dir: &std::path::Path) -> Arc<QueueManager> {
    let config = Config::from_yaml(CONFIG, "test").unwrap();
    let store = Arc::new(RedbStore::open(dir).unwrap());
    Arc::new(QueueManager::open(&config, store).unwrap())
}

fn md(priority: i32, correl: u8, persistence: i32) -> Mqmd {
    Mqmd {
        priority,
        correl_id: [correl; 24],
        persistence,
        ..Mqmd::default()
    }
}

fn put(qm: &QueueManager, q: &str, m: Mqmd, data: &'static [u8]) -> Result<PutResult, QmError> {
    qm.put(
        q,
        m,
        Charset::Ascii,
        Bytes::from_static(data),
        &PutOptions::default(),
    )
}

fn get(qm: &QueueManager, q: &str) -> Result<GetResult, QmError> {
    qm.get(q, &Selector::default(), GetMode::Destructive { uow: None })
}

fn rc(r: Result<impl std::fmt::Debug, QmError>) -> i32 {
    r.unwrap_err().mqrc.0
}

#[test]
fn priority_order_then_fifo_and_generated_ids() {
    let dir = tempfile::tempdir().unwrap();
    let qm = open(dir.path());
    put(&qm, "Q", md(1, 1, 0), b"low-1").unwrap();
    put(&qm, "Q", md(7, 2, 0), b"high-1").unwrap();
    let r = put(&qm, "Q", md(1, 3, 0), b"low-2").unwrap();
    put(&qm, "Q", md(7, 4, 0), b"high-2").unwrap();
    // Queue-manager generated MsgId = "AMQ " + qmgr name padded to 12 + 8 bytes (the form
    // real queue managers use).
    assert_eq!(&r.msg_id[..16], b"AMQ QM1         ");
    let order: Vec<_> = (0..4).map(|_| get(&qm, "Q").unwrap().data).collect();
    assert_eq!(order, [&b"high-1"[..], b"high-2", b"low-1", b"low-2"]);
    // 2033 MQRC_NO_MSG_AVAILABLE (IBM MQ "API reason codes") when empty.
    assert_eq!(rc(get(&qm, "Q")), 2033);
}

#[test]
fn put_fills_context_and_resolves_queue_defaults() {
    let dir = tempfile::tempdir().unwrap();
    let qm = open(dir.path());
    put(&qm, "PERSIST", Mqmd::default(), b"x").unwrap();
    let got = get(&qm, "PERSIST").unwrap();
    // DEFPSIST(YES) on PERSIST, DEFPRTY 0, PutApplName "mqgate", PutDate YYYYMMDD.
    assert_eq!(got.md.persistence, per::PERSISTENT);
    assert_eq!(got.md.priority, 0);
    assert_eq!(got.md.put_appl_name.text(Charset::Ascii), "mqgate");
    let date = got.md.put_date.text(Charset::Ascii);
    assert_eq!(date.len(), 8);
    assert!(date.starts_with("20"), "{date}");
}

#[test]
fn match_by_correl_id_and_msg_id() {
    let dir = tempfile::tempdir().unwrap();
    let qm = open(dir.path());
    put(&qm, "Q", md(0, 1, 0), b"a").unwrap();
    let b = put(&qm, "Q", md(0, 2, 0), b"b").unwrap();
    put(&qm, "Q", md(0, 2, 0), b"c").unwrap();
    let by_correl = Selector {
        correl_id: Some([2; 24]),
        msg_id: None,
        group_id: None,
        filter: None,
        put_before: None,
    };
    let mode = GetMode::Destructive { uow: None };
    assert_eq!(qm.get("Q", &by_correl, mode).unwrap().data, &b"b"[..]);
    assert_eq!(qm.get("Q", &by_correl, mode).unwrap().data, &b"c"[..]);
    assert_eq!(rc(qm.get("Q", &by_correl, mode)), 2033);
    let by_msg_id = Selector {
        msg_id: Some(b.msg_id),
        correl_id: None,
        group_id: None,
        filter: None,
        put_before: None,
    };
    assert_eq!(rc(qm.get("Q", &by_msg_id, mode)), 2033);
    assert_eq!(get(&qm, "Q").unwrap().data, &b"a"[..]);
}

#[test]
fn browse_first_next_leaves_messages() {
    let dir = tempfile::tempdir().unwrap();
    let qm = open(dir.path());
    put(&qm, "Q", md(0, 1, 0), b"a").unwrap();
    put(&qm, "Q", md(0, 2, 0), b"b").unwrap();
    let sel = Selector::default();
    let first = qm.get("Q", &sel, GetMode::Browse { after: None }).unwrap();
    let next = qm
        .get(
            "Q",
            &sel,
            GetMode::Browse {
                after: Some(first.position),
            },
        )
        .unwrap();
    assert_eq!(
        (first.data, next.data.clone()),
        (Bytes::from("a"), Bytes::from("b"))
    );
    let end = qm.get(
        "Q",
        &sel,
        GetMode::Browse {
            after: Some(next.position),
        },
    );
    assert_eq!(rc(end), 2033);
    assert_eq!(get(&qm, "Q").unwrap().data, &b"a"[..]);
}

#[test]
fn limits_and_attributes_give_mq_reasons() {
    let dir = tempfile::tempdir().unwrap();
    let qm = open(dir.path());
    // IBM MQ "API reason codes": 2030 MSG_TOO_BIG_FOR_Q, 2053 Q_FULL, 2051
    // PUT_INHIBITED, 2016 GET_INHIBITED, 2085 UNKNOWN_OBJECT_NAME, 2050
    // PRIORITY_ERROR.
    assert_eq!(rc(put(&qm, "SMALL", Mqmd::default(), b"12345678901")), 2030);
    put(&qm, "SMALL", Mqmd::default(), b"1234567890").unwrap();
    put(&qm, "SMALL", Mqmd::default(), b"2").unwrap();
    assert_eq!(rc(put(&qm, "SMALL", Mqmd::default(), b"3")), 2053);
    assert_eq!(rc(put(&qm, "INHIBITED", Mqmd::default(), b"x")), 2051);
    assert_eq!(rc(get(&qm, "INHIBITED")), 2016);
    assert_eq!(rc(put(&qm, "NOPE", Mqmd::default(), b"x")), 2085);
    assert_eq!(rc(get(&qm, "NOPE")), 2085);
    assert_eq!(rc(put(&qm, "Q", md(-2, 0, 0), b"x")), 2050);
    let big = vec![0u8; crate::config::DEFAULT_MAX_MSG_LENGTH + 1];
    let r = qm.put(
        "Q",
        Mqmd::default(),
        Charset::Ascii,
        big.into(),
        &PutOptions::default(),
    );
    assert_eq!(rc(r), 2031);
    // Nothing half-stored: SMALL still holds exactly its two messages.
    assert_eq!(
        qm.queues()
            .iter()
            .find(|q| q.name == "SMALL")
            .unwrap()
            .depth,
        Some(2)
    );
}

#[test]
fn unit_of_work_commit_and_backout() {
    let dir = tempfile::tempdir().unwrap();
    let qm = open(dir.path());
    let rt = tokio::runtime::Runtime::new().unwrap();
    let _guard = rt.enter();
    let uow = qm.begin_uow(None, None).unwrap();
    let opts = PutOptions {
        uow: Some(uow),
        ..PutOptions::default()
    };
    qm.put("Q", md(0, 1, 1), Charset::Ascii, Bytes::from("one"), &opts)
        .unwrap();
    qm.put("Q", md(0, 2, 1), Charset::Ascii, Bytes::from("two"), &opts)
        .unwrap();
    // Uncommitted puts are invisible but count towards the depth (MQ CURDEPTH).
    assert_eq!(rc(get(&qm, "Q")), 2033);
    assert_eq!(
        qm.queues().iter().find(|q| q.name == "Q").unwrap().depth,
        Some(2)
    );
    qm.commit(uow).unwrap();
    // Committing twice: the unit is gone (2003 MQRC_BACKED_OUT).
    assert_eq!(rc(qm.commit(uow)), 2003);

    let uow = qm.begin_uow(None, None).unwrap();
    let got = qm
        .get(
            "Q",
            &Selector::default(),
            GetMode::Destructive { uow: Some(uow) },
        )
        .unwrap();
    assert_eq!(got.data, &b"one"[..]);
    assert_eq!(got.md.backout_count, 0);
    qm.put(
        "Q",
        md(0, 3, 1),
        Charset::Ascii,
        Bytes::from("three"),
        &PutOptions {
            uow: Some(uow),
            ..PutOptions::default()
        },
    )
    .unwrap();
    qm.backout(uow).unwrap();
    // The got message is back in its place with BackoutCount 1; the put is gone.
    let again = get(&qm, "Q").unwrap();
    assert_eq!(
        (again.data, again.md.backout_count),
        (Bytes::from("one"), 1)
    );
    assert_eq!(get(&qm, "Q").unwrap().data, &b"two"[..]);
    assert_eq!(rc(get(&qm, "Q")), 2033);
}

#[test]
fn persistent_messages_survive_a_restart_and_the_rest_do_not() {
    let dir = tempfile::tempdir().unwrap();
    {
        let qm = open(dir.path());
        let rt = tokio::runtime::Runtime::new().unwrap();
        let _guard = rt.enter();
        put(&qm, "Q", md(0, 1, per::PERSISTENT), b"persistent").unwrap();
        put(&qm, "Q", md(0, 2, per::NOT_PERSISTENT), b"gone").unwrap();
        put(&qm, "DEVICE.A1", md(3, 3, per::PERSISTENT), b"device").unwrap();
        let uow = qm.begin_uow(None, None).unwrap();
        let opts = PutOptions {
            uow: Some(uow),
            ..PutOptions::default()
        };
        qm.put(
            "Q",
            md(0, 4, 1),
            Charset::Ascii,
            Bytes::from("uncommitted"),
            &opts,
        )
        .unwrap();
        // A backed-out get hardens BackoutCount for persistent messages.
        let uow2 = qm.begin_uow(None, None).unwrap();
        qm.get(
            "Q",
            &Selector::default(),
            GetMode::Destructive { uow: Some(uow2) },
        )
        .unwrap();
        qm.backout(uow2).unwrap();
    }
    let qm = open(dir.path());
    let got = get(&qm, "Q").unwrap();
    assert_eq!(
        (got.data, got.md.backout_count),
        (Bytes::from("persistent"), 1)
    );
    assert_eq!(rc(get(&qm, "Q")), 2033);
    // The dynamic queue is recreated from its model on load.
    let dev = get(&qm, "DEVICE.A1").unwrap();
    assert_eq!((dev.data, dev.md.priority), (Bytes::from("device"), 3));
    let listed = qm.queues();
    assert_eq!(
        listed.iter().find(|q| q.name == "DEVICE.A1").unwrap().kind,
        "local"
    );
}

#[test]
fn remote_definitions_put_to_the_transmission_queue_with_an_xqh() {
    let dir = tempfile::tempdir().unwrap();
    let qm = open(dir.path());
    let r = put(&qm, "REMOTE.Q", md(0, 1, 0), b"payload").unwrap();
    assert_eq!(r.queue, "QM2");
    let got = get(&qm, "QM2").unwrap();
    // IBM MQ "MQXQH - Transmission-queue header": XQH 428 bytes, RemoteQName at 8,
    // RemoteQMgrName at 56.
    assert_eq!(got.md.format.0, *b"MQXMIT  ");
    assert_eq!(got.data.len(), 428 + 7);
    let (xqh, _) = parse_xqh(&got.data, ByteOrder::Little).unwrap();
    assert_eq!(xqh.remote_q_name.text(Charset::Ascii), "APP.IN");
    assert_eq!(xqh.remote_q_mgr_name.text(Charset::Ascii), "QM2");
    assert_eq!(xqh.msg_desc.msg_id, r.msg_id);
    assert_eq!(&got.data[428..], b"payload");

    // Queue manager alias QM.OLD -> QM2 (IBM MQ "Queue manager alias definitions"): XQH
    // names QM2.
    let opts = PutOptions {
        q_mgr_name: "QM.OLD".into(),
        ..PutOptions::default()
    };
    qm.put("X", md(0, 0, 0), Charset::Ascii, Bytes::from("a"), &opts)
        .unwrap();
    let (xqh, _) = parse_xqh(&get(&qm, "QM2").unwrap().data, ByteOrder::Little).unwrap();
    assert_eq!(xqh.remote_q_mgr_name.text(Charset::Ascii), "QM2");
    assert_eq!(xqh.remote_q_name.text(Charset::Ascii), "X");

    // An unknown queue manager goes to the default transmission queue (IBM MQ "Name
    // resolution").
    let opts = PutOptions {
        q_mgr_name: "FAR.AWAY".into(),
        ..PutOptions::default()
    };
    let r = qm
        .put("Y", md(0, 0, 0), Charset::Ascii, Bytes::from("b"), &opts)
        .unwrap();
    assert_eq!(r.queue, "MQGATE.DEFAULT.XMITQ");
    // Reading a remote definition: 2045 MQRC_OPTION_NOT_VALID_FOR_TYPE.
    assert_eq!(rc(get(&qm, "REMOTE.Q")), 2045);
}

#[test]
fn alias_and_dynamic_queues() {
    let dir = tempfile::tempdir().unwrap();
    let qm = open(dir.path());
    let r = put(&qm, "ALIAS.Q", md(0, 0, 0), b"via alias").unwrap();
    assert_eq!(r.queue, "Q");
    assert_eq!(get(&qm, "ALIAS.Q").unwrap().data, &b"via alias"[..]);
    // DEVICE.* from the model, with its MAXDEPTH 3.
    for _ in 0..3 {
        put(&qm, "DEVICE.X9", Mqmd::default(), b"d").unwrap();
    }
    assert_eq!(rc(put(&qm, "DEVICE.X9", Mqmd::default(), b"d")), 2053);
    assert_eq!(rc(get(&qm, "DEVICES.X9")), 2085);
}

#[test]
fn expired_messages_are_discarded_with_a_report() {
    let dir = tempfile::tempdir().unwrap();
    let qm = open(dir.path());
    let m = Mqmd {
        expiry: 1, // tenths of a second (MQMD Expiry)
        report: ro::EXPIRATION | ro::PASS_CORREL_ID,
        reply_to_q: CharField::new("PERSIST", Charset::Ascii).unwrap(),
        correl_id: [5; 24],
        ..Mqmd::default()
    };
    let r = put(&qm, "Q", m, b"short-lived").unwrap();
    std::thread::sleep(Duration::from_millis(150));
    assert_eq!(rc(get(&qm, "Q")), 2033);
    let report = get(&qm, "PERSIST").unwrap();
    // MQ docs MQMD: MsgType MQMT_REPORT (4), Feedback MQFB_EXPIRATION (258).
    assert_eq!(report.md.msg_type, mt::REPORT);
    assert_eq!(report.md.feedback, 258);
    assert_eq!(report.md.correl_id, [5; 24]);
    assert_ne!(report.md.msg_id, r.msg_id);
    assert!(report.data.is_empty());
}

#[test]
fn backout_threshold_moves_the_message_to_the_backout_queue() {
    let dir = tempfile::tempdir().unwrap();
    let qm = open(dir.path());
    let rt = tokio::runtime::Runtime::new().unwrap();
    let _guard = rt.enter();
    put(&qm, "RETRY", md(0, 0, 1), b"poison").unwrap();
    for _ in 0..2 {
        let uow = qm.begin_uow(None, None).unwrap();
        qm.get(
            "RETRY",
            &Selector::default(),
            GetMode::Destructive { uow: Some(uow) },
        )
        .unwrap();
        qm.backout(uow).unwrap();
    }
    assert_eq!(rc(get(&qm, "RETRY")), 2033);
    let moved = get(&qm, "RETRY.BACKOUT").unwrap();
    assert_eq!(
        (moved.data, moved.md.backout_count),
        (Bytes::from("poison"), 2)
    );
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_waiting_getter_wakes_on_commit_and_times_out_with_2033() {
    let dir = tempfile::tempdir().unwrap();
    let qm = open(dir.path());
    let waiter = {
        let qm = Arc::clone(&qm);
        tokio::spawn(async move {
            let sel = Selector {
                correl_id: Some([8; 24]),
                msg_id: None,
                group_id: None,
                filter: None,
                put_before: None,
            };
            let mode = GetMode::Destructive { uow: None };
            qm.get_wait("Q", sel, mode, Duration::from_secs(10)).await
        })
    };
    tokio::time::sleep(Duration::from_millis(50)).await;
    let uow = qm.begin_uow(None, None).unwrap();
    let opts = PutOptions {
        uow: Some(uow),
        ..PutOptions::default()
    };
    qm.put("Q", md(0, 8, 0), Charset::Ascii, Bytes::from("wake"), &opts)
        .unwrap();
    tokio::time::sleep(Duration::from_millis(50)).await;
    assert!(
        !waiter.is_finished(),
        "an uncommitted put must not satisfy the getter"
    );
    let started = std::time::Instant::now();
    qm.commit(uow).unwrap();
    let got = waiter.await.unwrap().unwrap();
    assert_eq!(got.data, &b"wake"[..]);
    assert!(started.elapsed() < Duration::from_secs(5));

    let sel = Selector::default();
    let mode = GetMode::Destructive { uow: None };
    let r = qm
        .get_wait("Q", sel, mode, Duration::from_millis(100))
        .await;
    assert_eq!(r.unwrap_err().mqrc, Mqrc::NO_MSG_AVAILABLE);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn an_expired_lease_returns_the_message_with_backout_count_plus_one() {
    let dir = tempfile::tempdir().unwrap();
    let qm = open(dir.path());
    put(&qm, "Q", md(0, 0, 1), b"leased").unwrap();
    let lease = qm
        .begin_uow(Some(Duration::from_millis(100)), Some("Q".into()))
        .unwrap();
    assert_eq!(qm.lease_queue(lease).as_deref(), Some("Q"));
    qm.get(
        "Q",
        &Selector::default(),
        GetMode::Destructive { uow: Some(lease) },
    )
    .unwrap();
    let sel = Selector::default();
    let mode = GetMode::Destructive { uow: None };
    let back = qm
        .get_wait("Q", sel, mode, Duration::from_secs(5))
        .await
        .unwrap();
    assert_eq!(
        (back.data, back.md.backout_count),
        (Bytes::from("leased"), 1)
    );
    assert_eq!(qm.commit(lease).unwrap_err().mqrc, Mqrc::BACKED_OUT);
}

/// A token names its open unit of work (src/qmgr/token.rs): the id and, for a
/// lease, its queue; once the unit is committed, backed out or expired the
/// token is unknown, and a token never issued is unknown from the start.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn tokens_name_open_units_only() {
    let dir = tempfile::tempdir().unwrap();
    let qm = open(dir.path());
    let (uow, uow_token) = qm.begin_uow_token(None, None).unwrap();
    let (lease, lease_token) = qm.begin_uow_token(None, Some("Q".into())).unwrap();
    assert_ne!(uow_token, lease_token);
    assert_eq!(qm.token_uow(&uow_token), Some((uow, None)));
    assert_eq!(qm.token_uow(&lease_token), Some((lease, Some("Q".into()))));
    assert_eq!(qm.token_uow(&Token::random().unwrap()), None, "a guess");
    qm.commit(uow).unwrap();
    assert_eq!(qm.token_uow(&uow_token), None, "committed");
    qm.backout(lease).unwrap();
    assert_eq!(qm.token_uow(&lease_token), None, "backed out");
    // Sealed: closed to further calls, so its token is gone too.
    let (sealed, sealed_token) = qm.begin_uow_token(None, None).unwrap();
    let s = qm.seal(sealed, Vec::new()).unwrap();
    assert_eq!(qm.token_uow(&sealed_token), None, "sealed");
    qm.backout_sealed(s);
    // Expired: backed out by its timer.
    let (_, expiring) = qm
        .begin_uow_token(Some(Duration::from_millis(50)), Some("Q".into()))
        .unwrap();
    let deadline = std::time::Instant::now() + Duration::from_secs(5);
    while qm.token_uow(&expiring).is_some() {
        assert!(
            std::time::Instant::now() < deadline,
            "the unit never expired"
        );
        tokio::time::sleep(Duration::from_millis(10)).await;
    }
    // Nothing is left behind in the token map.
    assert!(qm.uows().tokens.is_empty());
}

/// A store whose every write fails, as a broken disk would (EIO).
struct FailingStore;

impl Store for FailingStore {
    fn apply(&self, _batch: &Batch) -> Result<(), crate::store::StoreError> {
        let eio = std::io::Error::from_raw_os_error(libc::EIO);
        Err(crate::store::StoreError::from_io("commit", eio))
    }
    fn load(&self) -> Result<Vec<(u64, Vec<u8>)>, crate::store::StoreError> {
        Ok(Vec::new())
    }
    fn load_index(&self) -> Result<crate::store::Summaries, crate::store::StoreError> {
        Ok(crate::store::Summaries::default())
    }
    fn read(&self, _key: u64) -> Result<Option<Vec<u8>>, crate::store::StoreError> {
        Ok(None)
    }
    fn load_meta(&self) -> Result<Vec<(String, Vec<u8>)>, crate::store::StoreError> {
        Ok(Vec::new())
    }
}

#[test]
fn a_store_failure_fails_the_call_and_reports_no_success() {
    let config = Config::from_yaml(CONFIG, "test").unwrap();
    let qm = Arc::new(QueueManager::open(&config, Arc::new(FailingStore)).unwrap());
    let rt = tokio::runtime::Runtime::new().unwrap();
    let _guard = rt.enter();
    // 2102 MQRC_RESOURCE_PROBLEM (IBM MQ "API reason codes") and nothing on the queue.
    let e = put(&qm, "Q", md(0, 1, per::PERSISTENT), b"p").unwrap_err();
    assert_eq!(e.mqrc.0, 2102);
    assert!(e.message.contains("Input/output error"), "{e}");
    let depth = |qm: &QueueManager| qm.queues().iter().find(|q| q.name == "Q").unwrap().depth;
    assert_eq!(depth(&qm), Some(0));
    // Non-persistent messages never touch the store.
    put(&qm, "Q", md(0, 2, per::NOT_PERSISTENT), b"n").unwrap();
    // A commit that cannot be stored is backed out: 2003 MQRC_BACKED_OUT.
    let uow = qm.begin_uow(None, None).unwrap();
    let opts = PutOptions {
        uow: Some(uow),
        ..PutOptions::default()
    };
    qm.put("Q", md(0, 3, 1), Charset::Ascii, Bytes::from("u"), &opts)
        .unwrap();
    assert_eq!(qm.commit(uow).unwrap_err().mqrc.0, 2003);
    assert_eq!(depth(&qm), Some(1));
    assert_eq!(get(&qm, "Q").unwrap().data, &b"n"[..]);
}

#[test]
fn concurrent_getters_never_receive_the_same_message() {
    // mqgate's rule: messages may never be duplicated; each get takes a distinct one.
    let dir = tempfile::tempdir().unwrap();
    let qm = open(dir.path());
    for i in 0..400u32 {
        let m = Mqmd {
            correl_id: {
                let mut c = [0u8; 24];
                c[..4].copy_from_slice(&i.to_be_bytes());
                c
            },
            persistence: (i % 2) as i32,
            ..Mqmd::default()
        };
        qm.put("Q", m, Charset::Ascii, Bytes::new(), &PutOptions::default())
            .unwrap();
    }
    let workers: Vec<_> = (0..4)
        .map(|_| {
            let qm = Arc::clone(&qm);
            std::thread::spawn(move || {
                let mut seen = Vec::new();
                while let Ok(r) = get(&qm, "Q") {
                    seen.push(u32::from_be_bytes(r.md.correl_id[..4].try_into().unwrap()));
                }
                seen
            })
        })
        .collect();
    let mut all: Vec<u32> = workers
        .into_iter()
        .flat_map(|w| w.join().unwrap())
        .collect();
    all.sort();
    assert_eq!(all, (0..400).collect::<Vec<_>>());
}

#[test]
fn device_names_cannot_reach_another_device() {
    // Device queues are stored as `QMGR/QUEUE` (split at the first `/`), and `/`
    // is a valid MQ name character (IBM MQ "Rules for naming IBM MQ objects"):
    // device `DEV1/A` queue `B` and device `DEV1` queue `A/B` would share
    // `DEV1/A/B`, so a queue manager name with `/` is never a device (2087).
    let dir = tempfile::tempdir().unwrap();
    let qm = open(dir.path());
    assert!(qm.is_device("DEV1"));
    assert!(!qm.is_device("DEV1/A"));
    assert_eq!(qm.device_queue_name("DEV1", "A/B").unwrap(), "DEV1/A/B");
    assert_eq!(
        qm.device_queue_name("DEV1/A", "B").unwrap_err().mqrc,
        Mqrc::UNKNOWN_REMOTE_Q_MGR
    );
    // A malformed device queue manager name is 2058, naming the queue manager.
    let e = qm.device_queue_name("DEV bad!", "INBOX").unwrap_err();
    assert_eq!(e.mqrc, Mqrc::Q_MGR_NAME_ERROR, "{e:?}");
    assert_eq!(
        qm.device_queue_name("", "INBOX").unwrap_err().mqrc,
        Mqrc::Q_MGR_NAME_ERROR
    );
}

#[test]
fn device_queues_are_routed_created_and_reloaded_with_the_devices_max_depth() {
    // docs/config.md `devices`: queue Q of a device queue manager is the local
    // queue QMGR/Q, created on first use with `devices.max_depth`; a stored
    // message's device queue is recreated at start-up the same way.
    const DEVICES: &str = "
queue_manager:
  name: QM1
devices:
  queue_managers: [\"DEV*\"]
  max_depth: 2
";
    let dir = tempfile::tempdir().unwrap();
    let open_devices = || {
        let config = Config::from_yaml(DEVICES, "test").unwrap();
        let store = Arc::new(RedbStore::open(dir.path()).unwrap());
        QueueManager::open(&config, store).unwrap()
    };
    let to = |q_mgr: &str| PutOptions {
        q_mgr_name: q_mgr.into(),
        ..PutOptions::default()
    };
    let put_to = |qm: &QueueManager, q: &str, q_mgr: &str| {
        let m = md(0, 1, per::PERSISTENT);
        qm.put(q, m, Charset::Ascii, Bytes::from_static(b"d"), &to(q_mgr))
    };
    {
        let qm = open_devices();
        assert_eq!(
            put_to(&qm, "INBOX", "DEV0001").unwrap().queue,
            "DEV0001/INBOX"
        );
        put_to(&qm, "INBOX", "DEV0001").unwrap();
        // IBM MQ 2053 MQRC_Q_FULL at the devices' MAXDEPTH 2.
        assert_eq!(rc(put_to(&qm, "INBOX", "DEV0001")), 2053);
        // A local name longer than 48 characters (IBM MQ "Rules for naming IBM MQ
        // objects") is refused with 2152 and no queue is created for it.
        let long_q = "Q".repeat(40);
        let e = put_to(&qm, &long_q, "DEV00001").unwrap_err();
        assert_eq!(e.mqrc, Mqrc::OBJECT_NAME_ERROR, "{e:?}");
        assert_eq!(
            qm.device_queue_name("DEV00001", &long_q).unwrap_err().mqrc,
            Mqrc::OBJECT_NAME_ERROR
        );
        assert!(qm.queues().iter().all(|q| !q.name.starts_with("DEV00001/")));
    }
    let qm = open_devices();
    assert_eq!(qm.depth("DEV0001/INBOX"), Some(2));
    assert_eq!(rc(put_to(&qm, "INBOX", "DEV0001")), 2053);
    let got = get(&qm, "DEV0001/INBOX").unwrap();
    assert_eq!(got.data, Bytes::from_static(b"d"));
}

/// What the acknowledgement of a lease (a token looked up, then its unit of
/// work committed), its backout and the pull that took it touch on a queue
/// manager with `queues` device queues of one non-persistent message each,
/// the pulled message being a persistent one on one more device queue.
fn lease_costs(queues: usize) -> [probe::Touched; 3] {
    const DEVICES: &str = "
queue_manager:
  name: QM1
devices:
  queue_managers: [\"DEV*\"]
";
    let dir = tempfile::tempdir().unwrap();
    let config = Config::from_yaml(DEVICES, "test").unwrap();
    let store = Arc::new(RedbStore::open(dir.path()).unwrap());
    let qm = Arc::new(QueueManager::open(&config, store).unwrap());
    let to = |q_mgr: String| PutOptions {
        q_mgr_name: q_mgr,
        ..PutOptions::default()
    };
    for n in 0..queues {
        let m = md(0, 1, per::NOT_PERSISTENT);
        qm.put(
            "INBOX",
            m,
            Charset::Ascii,
            Bytes::new(),
            &to(format!("DEV{n:06}")),
        )
        .unwrap();
    }
    let m = md(0, 1, per::PERSISTENT);
    let data = Bytes::from_static(b"d");
    for _ in 0..2 {
        qm.put(
            "INBOX",
            m.clone(),
            Charset::Ascii,
            data.clone(),
            &to("DEVX".into()),
        )
        .unwrap();
    }
    let lease = |qm: &Arc<QueueManager>| {
        let (id, token) = qm.begin_uow_token(None, Some("DEVX/INBOX".into())).unwrap();
        let mode = GetMode::Destructive { uow: Some(id) };
        qm.get("DEVX/INBOX", &Selector::default(), mode).unwrap();
        token
    };
    probe::take();
    let token = lease(&qm);
    let pull = probe::take();
    let (id, _) = qm.token_uow(&token).unwrap();
    qm.commit(id).unwrap();
    let ack = probe::take();
    let token = lease(&qm);
    probe::take();
    let (id, _) = qm.token_uow(&token).unwrap();
    qm.backout(id).unwrap();
    let backout = probe::take();
    assert_eq!(qm.depth("DEVX/INBOX"), Some(1));
    [pull, ack, backout]
}

#[test]
fn an_ack_touches_one_queue_whatever_the_number_of_queues() {
    // A lease names its queue and message directly: acknowledging it locks
    // that queue's messages twice (read the message for the store batch,
    // then remove it) and looks nothing up in the object table; a backout
    // locks it twice too (count the backout, then make the message ready
    // once the count is stored); the pull looks the queue up once and locks
    // it once. None of them goes over the queues, with 1 queue or 100,000.
    let pull = probe::Touched {
        queue_locks: 1,
        table_looks: 1,
        queues_listed: 0,
    };
    let ack = probe::Touched {
        queue_locks: 2,
        table_looks: 0,
        queues_listed: 0,
    };
    let backout = ack;
    assert_eq!(lease_costs(1), [pull, ack, backout]);
    assert_eq!(lease_costs(100_000), [pull, ack, backout]);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_closed_lease_ends_its_timer() {
    // Each lease has a timer task that backs it out when idle too long; an
    // acknowledged or backed-out lease ends it at once rather than leaving
    // it asleep until its deadline (30 s by default, docs/config.md `http`).
    let dir = tempfile::tempdir().unwrap();
    let qm = open(dir.path());
    let timers = |qm: &QueueManager| qm.tasks().running_in(&[crate::tasks::TaskGroup::Timers]);
    for _ in 0..2 {
        put(&qm, "Q", md(0, 1, per::NOT_PERSISTENT), b"m").unwrap();
    }
    let lease = || {
        let (id, _) = qm.begin_uow_token(None, Some("Q".into())).unwrap();
        qm.get(
            "Q",
            &Selector::default(),
            GetMode::Destructive { uow: Some(id) },
        )
        .unwrap();
        qm.set_timeout(id, Duration::from_secs(30)).unwrap();
        id
    };
    let wait_for_no_timer = |qm: &QueueManager| {
        let until = std::time::Instant::now() + Duration::from_secs(10);
        while timers(qm) > 0 && std::time::Instant::now() < until {
            std::thread::sleep(Duration::from_millis(5));
        }
        timers(qm)
    };
    let id = lease();
    assert_eq!(timers(&qm), 1);
    qm.commit(id).unwrap();
    assert_eq!(wait_for_no_timer(&qm), 0);
    let id = lease();
    assert_eq!(timers(&qm), 1);
    qm.backout(id).unwrap();
    assert_eq!(wait_for_no_timer(&qm), 0);
    assert_eq!(qm.depth("Q"), Some(1));
}

/// Many getters waiting on one queue while as many persistent puts arrive
/// from other tasks: every get is satisfied, each message got once.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn waiting_getters_on_one_queue_each_get_one_of_the_concurrent_puts() {
    const TASKS: usize = 200;
    const EACH: usize = 5;
    let dir = tempfile::tempdir().unwrap();
    let qm = open(dir.path());
    let tasks: Vec<_> = (0..TASKS)
        .map(|t| {
            let qm = Arc::clone(&qm);
            tokio::spawn(async move {
                for n in 0..EACH {
                    let qm2 = Arc::clone(&qm);
                    tokio::task::spawn_blocking(move || {
                        qm2.put(
                            "Q",
                            md(0, 0, 1),
                            Charset::Ascii,
                            Bytes::from(format!("{t}.{n}")),
                            &PutOptions::default(),
                        )
                    })
                    .await
                    .unwrap()
                    .unwrap();
                }
                let mut got = Vec::new();
                for n in 0..EACH {
                    let mode = GetMode::Destructive { uow: None };
                    let r = qm
                        .get_wait("Q", Selector::default(), mode, Duration::from_secs(15))
                        .await;
                    match r {
                        Ok(g) => got.push(g.data),
                        Err(e) => panic!("task {t} get {n}: {e:?}"),
                    }
                }
                got
            })
        })
        .collect();
    let mut all = std::collections::HashSet::new();
    for t in tasks {
        for d in t.await.unwrap() {
            assert!(all.insert(d), "a message got twice");
        }
    }
    assert_eq!(all.len(), TASKS * EACH);
}

/// A reload's queue changes as IBM MQ's ALTER and DELETE of a local queue
/// ("ALTER queues": new attributes apply to later calls; "DELETE queues": a
/// queue holding uncommitted or committed messages is not deleted, 2055
/// MQRC_Q_NOT_EMPTY): a put under a unit of work begun before an ALTER
/// commits onto the altered queue, whose new MAXDEPTH applies; a queue
/// holding an uncommitted message is kept, and deleted once empty (2085
/// MQRC_UNKNOWN_OBJECT_NAME after).
#[test]
fn redefine_alters_keeps_a_queue_with_messages_and_deletes_an_empty_one() {
    let dir = tempfile::tempdir().unwrap();
    let qm = open(dir.path());
    let rt = tokio::runtime::Runtime::new().unwrap();
    let _guard = rt.enter();
    let old = Config::from_yaml(CONFIG, "test")
        .unwrap()
        .effective_queues();
    let uow = qm.begin_uow(None, None).unwrap();
    let opts = PutOptions {
        uow: Some(uow),
        ..PutOptions::default()
    };
    qm.put(
        "SMALL",
        md(0, 1, 0),
        Charset::Ascii,
        Bytes::from("one"),
        &opts,
    )
    .unwrap();
    qm.put(
        "PERSIST",
        md(0, 2, 0),
        Charset::Ascii,
        Bytes::from("two"),
        &opts,
    )
    .unwrap();
    let text = CONFIG
        .replace(
            "    name: SMALL\n    max_depth: 2",
            "    name: SMALL\n    max_depth: 3",
        )
        .replace(
            "  - type: local\n    name: PERSIST\n    default_persistence: persistent\n",
            "",
        );
    let new = Config::from_yaml(&text, "test").unwrap().effective_queues();
    let r = qm.redefine(&old, &new);
    assert_eq!(r.altered, vec!["SMALL".to_string()]);
    assert!(r.defined.is_empty() && r.deleted.is_empty(), "{r:?}");
    assert_eq!(r.kept.len(), 1, "{r:?}");
    assert_eq!(r.kept[0].0, "PERSIST");
    assert_eq!(r.kept[0].1.mqrc.0, 2055);
    qm.commit(uow).unwrap();
    assert_eq!(qm.depth("SMALL"), Some(1));
    put(&qm, "SMALL", md(0, 3, 0), b"two").unwrap();
    put(&qm, "SMALL", md(0, 4, 0), b"three").unwrap();
    assert_eq!(rc(put(&qm, "SMALL", md(0, 5, 0), b"four")), 2053);
    assert_eq!(&get(&qm, "SMALL").unwrap().data[..], b"one");

    assert_eq!(&get(&qm, "PERSIST").unwrap().data[..], b"two");
    // In force now: the new definitions and the one kept.
    let in_force: Vec<QueueDef> = new
        .iter()
        .chain(old.iter().filter(|d| d.name() == "PERSIST"))
        .cloned()
        .collect();
    let r = qm.redefine(&in_force, &new);
    assert_eq!(r.deleted, vec!["PERSIST".to_string()], "{r:?}");
    assert!(r.kept.is_empty() && r.altered.is_empty(), "{r:?}");
    assert_eq!(rc(put(&qm, "PERSIST", md(0, 6, 0), b"gone")), 2085);
}

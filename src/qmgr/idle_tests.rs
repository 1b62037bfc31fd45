//! Device queues retired once empty and unused (src/qmgr/idle.rs), with a
//! real redb store in a temporary directory.

use super::*;
use crate::store::redb::RedbStore;
use std::future::Future;
use std::task::Poll;

const DEVICES: &str = "
queue_manager:
  name: QM1
devices:
  queue_managers: [\"DEV*\"]
";

fn open(dir: &std::path::Path) -> Arc<QueueManager> {
    let config = Config::from_yaml(DEVICES, "test").unwrap();
    let store = Arc::new(RedbStore::open(dir).unwrap());
    Arc::new(QueueManager::open(&config, store).unwrap())
}

/// Puts `data` to queue INBOX of device queue manager `device` (docs/config.md
/// `devices`: the local queue `DEVICE/INBOX`).
fn to_device(qm: &QueueManager, device: &str, data: &str, persistence: i32) -> PutResult {
    let md = Mqmd {
        persistence,
        ..Mqmd::default()
    };
    let opts = PutOptions {
        q_mgr_name: device.into(),
        ..PutOptions::default()
    };
    qm.put(
        "INBOX",
        md,
        Charset::Ascii,
        Bytes::from(data.to_string()),
        &opts,
    )
    .unwrap()
}

/// A lease on the next message of `q`: its unit of work and the message.
fn lease(qm: &Arc<QueueManager>, q: &str) -> (u64, GetResult) {
    let (id, _) = qm.begin_uow_token(None, Some(q.into())).unwrap();
    let got = qm
        .get(
            q,
            &Selector::default(),
            GetMode::Destructive { uow: Some(id) },
        )
        .unwrap();
    (id, got)
}

fn get(qm: &QueueManager, q: &str, mode: GetMode) -> Result<GetResult, QmError> {
    qm.get(q, &Selector::default(), mode)
}

const NOW: GetMode = GetMode::Destructive { uow: None };

/// Polls `f` once: whether it finished.
async fn poll_once<F: Future + Unpin>(f: &mut F) -> bool {
    std::future::poll_fn(|cx| Poll::Ready(std::pin::Pin::new(&mut *f).poll(cx).is_ready())).await
}

#[test]
fn an_emptied_device_queue_is_retired_and_the_next_message_creates_it_again() {
    let dir = tempfile::tempdir().unwrap();
    let qm = open(dir.path());
    to_device(&qm, "DEV1", "one", per::PERSISTENT);
    assert!(qm.has_object("DEV1/INBOX"));
    assert_eq!(qm.device_queues("DEV1"), ["INBOX"]);
    // On the list from its creation (empty until the put's message was
    // in); the sweep finds a message on it and takes it off the list.
    assert_eq!(qm.idle_queues(), 1);
    assert_eq!(qm.retire_idle_queues(), 0);
    assert_eq!(qm.idle_queues(), 0);
    assert!(qm.has_object("DEV1/INBOX"));

    // The acknowledgement that empties it locks its queue twice and looks
    // nothing up in the object table, as any acknowledgement
    // (tests::an_ack_touches_one_queue_whatever_the_number_of_queues).
    let (id, got) = lease(&qm, "DEV1/INBOX");
    assert_eq!(&got.data[..], b"one");
    probe::take();
    qm.commit(id).unwrap();
    assert_eq!(
        probe::take(),
        probe::Touched {
            queue_locks: 2,
            table_looks: 0,
            queues_listed: 0
        }
    );
    assert_eq!(qm.idle_queues(), 1);
    assert!(qm.has_object("DEV1/INBOX"), "retired by the sweep only");

    assert_eq!(qm.retire_idle_queues(), 1);
    assert_eq!(qm.idle_queues(), 0);
    assert!(!qm.has_object("DEV1/INBOX"));
    assert!(qm.device_queues("DEV1").is_empty());
    assert!(!qm.queues().iter().any(|q| q.name.starts_with("DEV1")));
    // A device queue that does not exist is an empty queue: CURDEPTH 0,
    // 2033 MQRC_NO_MSG_AVAILABLE for a get or a browse (IBM MQ "API
    // reason codes"), and no lease can be open on it (2003).
    assert_eq!(qm.depth("DEV1/INBOX"), Some(0));
    assert_eq!(get(&qm, "DEV1/INBOX", NOW).unwrap_err().mqrc.0, 2033);
    let browse = GetMode::Browse { after: None };
    assert_eq!(get(&qm, "DEV1/INBOX", browse).unwrap_err().mqrc.0, 2033);
    assert!(!qm.has_object("DEV1/INBOX"), "a get creates nothing");
    // The device group keeps its counts: 1 put, 1 get, no queue left.
    let device = &qm.queue_samples().groups[0];
    assert_eq!(
        (device.queues, device.depth, device.puts, device.gets),
        (0, 0, 1, 1)
    );

    // The next message for the device creates the queue again.
    to_device(&qm, "DEV1", "two", per::NOT_PERSISTENT);
    assert_eq!(qm.device_queues("DEV1"), ["INBOX"]);
    assert_eq!(qm.depth("DEV1/INBOX"), Some(1));
    assert_eq!(&get(&qm, "DEV1/INBOX", NOW).unwrap().data[..], b"two");
    assert_eq!(qm.retire_idle_queues(), 1);
    assert!(!qm.has_object("DEV1/INBOX"));
}

#[test]
fn a_put_by_the_local_name_of_a_retired_device_queue_creates_it_again() {
    // docs/config.md `devices`: queue Q of device QMGR is the local queue
    // QMGR/Q, which exists only while it holds something. A put naming
    // QMGR/Q at this queue manager reaches it whether or not the sweep has
    // retired it, as a put to Q at QMGR does (before, it answered 2085
    // MQRC_UNKNOWN_OBJECT_NAME once the queue was retired).
    let dir = tempfile::tempdir().unwrap();
    let qm = open(dir.path());
    let by_name = |data: &'static str| {
        qm.put(
            "DEV1/INBOX",
            Mqmd::default(),
            Charset::Ascii,
            Bytes::from_static(data.as_bytes()),
            &PutOptions::default(),
        )
    };
    assert_eq!(by_name("one").unwrap().queue, "DEV1/INBOX");
    assert_eq!(&get(&qm, "DEV1/INBOX", NOW).unwrap().data[..], b"one");
    assert_eq!(qm.retire_idle_queues(), 1);
    assert!(!qm.has_object("DEV1/INBOX"));
    assert_eq!(by_name("two").unwrap().queue, "DEV1/INBOX");
    assert_eq!(qm.device_queues("DEV1"), ["INBOX"]);
    assert_eq!(&get(&qm, "DEV1/INBOX", NOW).unwrap().data[..], b"two");
    // A name whose queue part is empty is no device queue's (a device
    // queue name has 1 to 48 characters, IBM MQ "Rules for naming IBM MQ
    // objects"): a put or a get of it is 2085 MQRC_UNKNOWN_OBJECT_NAME, as
    // for any name no object has.
    let put = qm.put(
        "DEV1/",
        Mqmd::default(),
        Charset::Ascii,
        Bytes::new(),
        &PutOptions::default(),
    );
    assert_eq!(put.unwrap_err().mqrc, Mqrc::UNKNOWN_OBJECT_NAME);
    assert_eq!(get(&qm, "DEV1/", NOW).unwrap_err().mqrc.0, 2085);
    assert!(!qm.has_object("DEV1/"));
}

/// A [`PutCheck`] that refuses every put, as one refuses a message that is
/// no RTQ request (docs/tuxedo.md).
struct RefuseAll;

impl PutCheck for RefuseAll {
    fn check(&self, _: &str, _: &Mqmd, _: Charset, _: &[u8]) -> Result<(), QmError> {
        Err(QmError::new(Mqrc::FORMAT_ERROR, "refused by the test"))
    }
}

#[test]
fn a_put_that_fails_after_creating_a_device_queue_leaves_nothing() {
    let dir = tempfile::tempdir().unwrap();
    let qm = open(dir.path());
    assert!(qm.set_put_check(Arc::new(RefuseAll)));
    let opts = PutOptions {
        q_mgr_name: "DEV9".into(),
        ..PutOptions::default()
    };
    let refused = qm.put(
        "INBOX",
        Mqmd::default(),
        Charset::Ascii,
        Bytes::new(),
        &opts,
    );
    assert_eq!(refused.unwrap_err().mqrc, Mqrc::FORMAT_ERROR);
    // Name resolution created the queue before the check refused the put;
    // it is on the idle list from its creation, and the sweep retires it.
    assert!(qm.has_object("DEV9/INBOX"));
    assert_eq!(qm.idle_queues(), 1);
    assert_eq!(qm.retire_idle_queues(), 1);
    assert!(!qm.has_object("DEV9/INBOX"));
    assert!(qm.device_queues("DEV9").is_empty());
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_device_queue_something_holds_stays_until_it_is_let_go() {
    let dir = tempfile::tempdir().unwrap();
    let qm = open(dir.path());
    // A lease holds the queue of its message through its unit of work.
    to_device(&qm, "DEV1", "a", per::NOT_PERSISTENT);
    let (id, _) = lease(&qm, "DEV1/INBOX");
    assert_eq!(qm.depth("DEV1/INBOX"), Some(1), "held by the lease");
    assert_eq!(qm.retire_idle_queues(), 0);
    qm.backout(id).unwrap();
    // Back on its queue (BackoutCount 1): nothing to retire.
    assert_eq!(qm.retire_idle_queues(), 0);
    let got = get(&qm, "DEV1/INBOX", NOW).unwrap();
    assert_eq!((&got.data[..], got.md.backout_count), (&b"a"[..], 1));
    assert_eq!(qm.retire_idle_queues(), 1);

    // A waiting get holds the queue it waits on: the empty queue stays,
    // on the list, and the waiter gets the next message.
    to_device(&qm, "DEV2", "b", per::NOT_PERSISTENT);
    get(&qm, "DEV2/INBOX", NOW).unwrap();
    let wait = Duration::from_secs(20);
    let mut waiting = Box::pin(qm.get_wait("DEV2/INBOX", Selector::default(), NOW, wait));
    assert!(!poll_once(&mut waiting).await);
    assert_eq!(qm.retire_idle_queues(), 0);
    assert!(qm.has_object("DEV2/INBOX"));
    assert_eq!(qm.idle_queues(), 1, "kept for the next sweep");
    to_device(&qm, "DEV2", "c", per::PERSISTENT);
    assert_eq!(&waiting.await.unwrap().data[..], b"c");
    assert_eq!(qm.retire_idle_queues(), 1);

    // A get waiting on a device queue that does not exist waits for the
    // message that creates it.
    let mut waiting = Box::pin(qm.get_wait("DEV2/INBOX", Selector::default(), NOW, wait));
    assert!(!poll_once(&mut waiting).await);
    tokio::time::sleep(Duration::from_millis(200)).await;
    assert!(
        !qm.has_object("DEV2/INBOX"),
        "a waiting get creates nothing"
    );
    to_device(&qm, "DEV2", "d", per::PERSISTENT);
    assert_eq!(&waiting.await.unwrap().data[..], b"d");
    // And one that times out on it answers 2033, creating nothing.
    let short = Duration::from_millis(50);
    let r = qm
        .get_wait("DEV3/INBOX", Selector::default(), NOW, short)
        .await;
    assert_eq!(r.unwrap_err().mqrc.0, 2033);
    assert!(!qm.has_object("DEV3/INBOX"));
}

/// Devices and messages per device of the race below.
const RACING_DEVICES: usize = 6;
const RACING_EACH: usize = 40;

#[tokio::test(flavor = "multi_thread", worker_threads = 4)]
async fn puts_pulls_and_acks_racing_the_sweep_lose_no_message() {
    let dir = tempfile::tempdir().unwrap();
    let qm = open(dir.path());
    let stop = Arc::new(std::sync::atomic::AtomicBool::new(false));
    // The sweep, as often as it can.
    let sweeper = {
        let (qm, stop) = (Arc::clone(&qm), Arc::clone(&stop));
        std::thread::spawn(move || {
            let mut retired = 0;
            while !stop.load(Ordering::SeqCst) {
                retired += qm.retire_idle_queues();
                std::thread::yield_now();
            }
            retired
        })
    };
    let mut tasks = Vec::new();
    for d in 0..RACING_DEVICES {
        let device = format!("DEV{d}");
        let queue = format!("{device}/INBOX");
        // The producer: persistent and non-persistent messages, with
        // pauses that let the queue empty between them.
        let (pqm, pdevice) = (Arc::clone(&qm), device.clone());
        tasks.push(tokio::task::spawn_blocking(move || {
            for n in 0..RACING_EACH {
                let persistence = if n % 2 == 0 {
                    per::PERSISTENT
                } else {
                    per::NOT_PERSISTENT
                };
                to_device(&pqm, &pdevice, &format!("{pdevice}.{n}"), persistence);
                std::thread::sleep(Duration::from_millis(n as u64 % 3));
            }
            Vec::new()
        }));
        // The consumer: leases, every fifth backed out and pulled again;
        // waiting pulls and pulls that do not wait, in turn.
        let cqm = Arc::clone(&qm);
        tasks.push(tokio::spawn(async move {
            let mut got = Vec::new();
            let mut pulls = 0u64;
            let until = tokio::time::Instant::now() + Duration::from_secs(60);
            while got.len() < RACING_EACH && tokio::time::Instant::now() < until {
                pulls += 1;
                let (id, _) = cqm.begin_uow_token(None, Some(queue.clone())).unwrap();
                let mode = GetMode::Destructive { uow: Some(id) };
                let r = if pulls.is_multiple_of(2) {
                    let wait = Duration::from_millis(20);
                    cqm.get_wait(&queue, Selector::default(), mode, wait).await
                } else {
                    cqm.get(&queue, &Selector::default(), mode)
                };
                match r {
                    Ok(m) if pulls.is_multiple_of(5) => {
                        assert!(!m.data.is_empty());
                        cqm.backout(id).unwrap();
                    }
                    Ok(m) => {
                        cqm.commit(id).unwrap();
                        got.push(String::from_utf8(m.data.to_vec()).unwrap());
                    }
                    Err(e) => {
                        assert_eq!(e.mqrc.0, 2033, "{e:?}");
                        cqm.backout(id).unwrap();
                        tokio::time::sleep(Duration::from_millis(1)).await;
                    }
                }
            }
            got
        }));
    }
    let mut all = Vec::new();
    for t in tasks {
        all.extend(t.await.unwrap());
    }
    stop.store(true, Ordering::SeqCst);
    let retired = sweeper.join().unwrap();
    // Every message got once and acknowledged, none lost, none twice.
    let mut want: Vec<String> = (0..RACING_DEVICES)
        .flat_map(|d| (0..RACING_EACH).map(move |n| format!("DEV{d}.{n}")))
        .collect();
    want.sort();
    all.sort();
    assert_eq!(all, want);
    assert!(retired > 0, "the sweep retired no queue during the race");
    // Whatever is left is retired by one more sweep: nothing holds it now.
    qm.retire_idle_queues();
    for d in 0..RACING_DEVICES {
        assert!(!qm.has_object(&format!("DEV{d}/INBOX")));
        assert!(qm.device_queues(&format!("DEV{d}")).is_empty());
    }
    assert_eq!(qm.idle_queues(), 0);
    // Nothing is left in the store either: a start finds no message.
    drop(qm);
    let qm = open(dir.path());
    assert_eq!(qm.queue_samples().groups[0].depth, 0);
}

#[test]
fn a_start_leaves_the_device_index_to_its_first_use() {
    let dir = tempfile::tempdir().unwrap();
    {
        let qm = open(dir.path());
        for (device, queue) in [("DEV1", "OUTBOX"), ("DEV1", "INBOX"), ("DEV2", "INBOX")] {
            let opts = PutOptions {
                q_mgr_name: device.into(),
                ..PutOptions::default()
            };
            let md = md_persistent();
            qm.put(queue, md, Charset::Ascii, Bytes::from_static(b"m"), &opts)
                .unwrap();
        }
    }
    let qm = open(dir.path());
    // Before the index is built: a queue created and one retired.
    to_device(&qm, "DEV3", "new", per::NOT_PERSISTENT);
    get(&qm, "DEV2/INBOX", NOW).unwrap();
    assert_eq!(qm.retire_idle_queues(), 1);
    // Built at the first look, from the object table: the queues a start
    // found in name order, the one created since, not the one retired.
    assert_eq!(qm.device_queues("DEV1"), ["INBOX", "OUTBOX"]);
    assert!(qm.device_queues("DEV2").is_empty());
    assert_eq!(qm.device_queues("DEV3"), ["INBOX"]);
    // Kept up to date from then on.
    to_device(&qm, "DEV2", "again", per::NOT_PERSISTENT);
    assert_eq!(qm.device_queues("DEV2"), ["INBOX"]);
    get(&qm, "DEV3/INBOX", NOW).unwrap();
    assert_eq!(qm.retire_idle_queues(), 1);
    assert!(qm.device_queues("DEV3").is_empty());
}

fn md_persistent() -> Mqmd {
    Mqmd {
        persistence: per::PERSISTENT,
        ..Mqmd::default()
    }
}

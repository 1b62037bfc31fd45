//! Gets with a message filter ([`Selector::filter`]): skipped messages, due
//! times and the waits they end, against a real redb store.

use super::*;
use crate::store::redb::RedbStore;
use std::sync::atomic::{AtomicBool, AtomicUsize};
use std::time::Instant;
use tokio::sync::Notify;

fn open(dir: &std::path::Path) -> Arc<QueueManager> {
    let config = Config::from_yaml("queues:\n  - type: local\n    name: Q\n", "test").unwrap();
    let store = Arc::new(RedbStore::open(dir).unwrap());
    Arc::new(QueueManager::open(&config, store).unwrap())
}

fn put(qm: &QueueManager, data: &'static [u8]) {
    qm.put(
        "Q",
        Mqmd::default(),
        Charset::Ascii,
        Bytes::from_static(data),
        &PutOptions::default(),
    )
    .unwrap();
}

/// Wants messages whose data is `want`, from `ready_at` on (a due time);
/// `open` lets a test switch it off and on, notifying `changes`. Counts the
/// messages it is asked about: the number of scans when one message waits.
struct Filter {
    want: &'static [u8],
    ready_at: Instant,
    open: AtomicBool,
    changes: Option<Arc<Notify>>,
    checks: AtomicUsize,
}

impl Filter {
    fn new(want: &'static [u8], ready_in: Duration) -> Filter {
        Filter {
            want,
            ready_at: Instant::now() + ready_in,
            open: AtomicBool::new(true),
            changes: None,
            checks: AtomicUsize::new(0),
        }
    }

    fn checks(&self) -> usize {
        self.checks.load(Ordering::SeqCst)
    }
}

impl MessageFilter for Filter {
    fn check(&self, _md: &Mqmd, data: &[u8]) -> Match {
        self.checks.fetch_add(1, Ordering::SeqCst);
        if data != self.want || !self.open.load(Ordering::SeqCst) {
            return Match::No;
        }
        match self.ready_at.checked_duration_since(Instant::now()) {
            Some(d) if !d.is_zero() => Match::NotBefore(d),
            _ => Match::Yes,
        }
    }

    fn changes(&self) -> Option<Arc<Notify>> {
        self.changes.clone()
    }
}

fn selector(f: &Arc<Filter>) -> Selector {
    Selector {
        filter: Some(Arc::clone(f) as Arc<dyn MessageFilter>),
        ..Selector::default()
    }
}

const TAKE: GetMode = GetMode::Destructive { uow: None };

#[test]
fn a_get_takes_the_first_message_the_filter_wants_now() {
    let dir = tempfile::tempdir().unwrap();
    let qm = open(dir.path());
    put(&qm, b"other");
    put(&qm, b"wanted");
    let f = Arc::new(Filter::new(b"wanted", Duration::ZERO));
    let got = qm.get("Q", &selector(&f), TAKE).unwrap();
    assert_eq!(got.data, &b"wanted"[..]);
    // The other message stays; the filter never wants it: 2033.
    assert_eq!(qm.depth("Q"), Some(1));
    let e = qm.get("Q", &selector(&f), TAKE).unwrap_err();
    assert_eq!(e.mqrc, Mqrc::NO_MSG_AVAILABLE);
    // A get without the filter takes it.
    let got = qm.get("Q", &Selector::default(), TAKE).unwrap();
    assert_eq!(got.data, &b"other"[..]);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_waiting_get_wakes_when_the_message_falls_due_without_polling() {
    let dir = tempfile::tempdir().unwrap();
    let qm = open(dir.path());
    put(&qm, b"later");
    let f = Arc::new(Filter::new(b"later", Duration::from_millis(600)));
    // Not due: a get without waiting finds nothing.
    let e = qm.get("Q", &selector(&f), TAKE).unwrap_err();
    assert_eq!(e.mqrc, Mqrc::NO_MSG_AVAILABLE);
    let got = qm
        .get_wait("Q", selector(&f), TAKE, Duration::from_secs(10))
        .await
        .unwrap();
    let woke = Instant::now();
    assert_eq!(got.data, &b"later"[..]);
    assert!(woke >= f.ready_at, "taken before it was due");
    assert!(
        woke < f.ready_at + Duration::from_millis(300),
        "{:?} late",
        woke - f.ready_at
    );
    // The get above (1), the waiting get's first scan (2) and its scan at
    // the due time (3): no scans in between.
    assert_eq!(f.checks(), 3);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_filter_that_never_matches_waits_out_the_interval_without_polling() {
    let dir = tempfile::tempdir().unwrap();
    let qm = open(dir.path());
    put(&qm, b"other");
    let f = Arc::new(Filter::new(b"wanted", Duration::ZERO));
    let started = Instant::now();
    let e = qm
        .get_wait("Q", selector(&f), TAKE, Duration::from_millis(400))
        .await
        .unwrap_err();
    assert_eq!(e.mqrc, Mqrc::NO_MSG_AVAILABLE);
    assert!(started.elapsed() >= Duration::from_millis(400));
    // One scan at the start, one at the end of the wait.
    assert_eq!(f.checks(), 2);
    assert_eq!(qm.depth("Q"), Some(1), "the other message stays");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_waiting_get_looks_again_when_the_filter_says_it_changed() {
    let dir = tempfile::tempdir().unwrap();
    let qm = open(dir.path());
    put(&qm, b"held");
    let changes = Arc::new(Notify::new());
    let f = Arc::new(Filter {
        changes: Some(Arc::clone(&changes)),
        ..Filter::new(b"held", Duration::ZERO)
    });
    f.open.store(false, Ordering::SeqCst);
    let waiter = {
        let (qm, sel) = (Arc::clone(&qm), selector(&f));
        tokio::spawn(async move { qm.get_wait("Q", sel, TAKE, Duration::from_secs(10)).await })
    };
    tokio::time::sleep(Duration::from_millis(300)).await;
    assert!(!waiter.is_finished());
    assert_eq!(f.checks(), 1, "no scans while nothing changed");
    f.open.store(true, Ordering::SeqCst);
    changes.notify_waiters();
    let got = tokio::time::timeout(Duration::from_secs(3), waiter)
        .await
        .unwrap()
        .unwrap()
        .unwrap();
    assert_eq!(got.data, &b"held"[..]);
    assert_eq!(f.checks(), 2);
}

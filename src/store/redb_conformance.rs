//! The embedded backend against the conformance suite (src/store/conformance),
//! and the redb-specific failure mapping: I/O errors injected under redb by a
//! storage backend that fails one chosen write or fsync.

use super::conformance::{crash, queue_manager, records};
use super::redb::{FILE_NAME, RESERVE_NAME, RedbStore};
use super::{Batch, Store, StoreError};
use mqgate_codecs::mq::Mqrc;
use redb::StorageBackend;
use redb::backends::FileBackend;
use std::path::Path;
use std::sync::Arc;
use std::sync::atomic::{AtomicI32, AtomicUsize, Ordering};

fn open(dir: &Path) -> Arc<dyn Store> {
    Arc::new(RedbStore::open(dir).unwrap_or_else(|e| panic!("{e}")))
}

#[test]
fn batch_and_meta_survive_reopen_together() {
    records::batch_and_meta_survive_reopen_together(open);
}

#[test]
fn load_is_in_key_order_with_overwrite_and_delete_rules() {
    records::load_is_in_key_order_with_overwrite_and_delete_rules(open);
}

#[test]
fn grouped_records_survive_partial_deletes_across_reopen() {
    records::grouped_records_survive_partial_deletes_across_reopen(open);
}

#[test]
fn random_histories_match_a_plain_map() {
    records::random_histories_match_a_plain_map(open);
}

#[test]
fn concurrent_applies_are_each_kept() {
    records::concurrent_applies_are_each_kept(open);
}

#[test]
fn queue_manager_crash_at_every_store_write() {
    crash::queue_manager_crash_at_every_store_write(open);
}

#[test]
fn kill_9_leaves_every_batch_whole_or_absent() {
    // The test runs itself again as the writer child (see the function).
    let this = concat!(
        module_path!(),
        "::kill_9_leaves_every_batch_whole_or_absent"
    );
    crash::kill_9_leaves_every_batch_whole_or_absent(open, this);
}

#[test]
fn leases_and_backouts_survive_a_restart() {
    queue_manager::leases_and_backouts_survive_a_restart(open);
}

/// Which backend call a [`FaultyBackend`] fails.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Target {
    Write,
    Sync,
}

/// redb's file backend, failing the `countdown`-th call of `target` (counting
/// from when it is armed) with `errno` and doing nothing for that call.
#[derive(Debug)]
struct FaultyBackend {
    file: FileBackend,
    target: Target,
    errno: i32,
    /// Calls of `target` since armed.
    calls: Arc<AtomicUsize>,
    /// 0: not armed; n: fail call n.
    countdown: Arc<AtomicUsize>,
}

impl FaultyBackend {
    fn hit(&self, call: Target) -> Result<(), std::io::Error> {
        let armed = self.countdown.load(Ordering::SeqCst);
        if call != self.target || armed == 0 {
            return Ok(());
        }
        let n = self.calls.fetch_add(1, Ordering::SeqCst) + 1;
        if n == armed {
            Err(std::io::Error::from_raw_os_error(self.errno))
        } else {
            Ok(())
        }
    }
}

impl StorageBackend for FaultyBackend {
    fn len(&self) -> Result<u64, std::io::Error> {
        self.file.len()
    }
    fn read(&self, offset: u64, len: usize) -> Result<Vec<u8>, std::io::Error> {
        self.file.read(offset, len)
    }
    fn set_len(&self, len: u64) -> Result<(), std::io::Error> {
        self.file.set_len(len)
    }
    fn sync_data(&self, eventual: bool) -> Result<(), std::io::Error> {
        self.hit(Target::Sync)?;
        self.file.sync_data(eventual)
    }
    fn write(&self, offset: u64, data: &[u8]) -> Result<(), std::io::Error> {
        self.hit(Target::Write)?;
        self.file.write(offset, data)
    }
}

/// A store over a [`FaultyBackend`] in `dir`, with its arming counters; a
/// reopen after a failure opens the file over a new backend sharing them.
fn faulty_store(
    dir: &Path,
    target: Target,
    errno: i32,
) -> (RedbStore, Arc<AtomicUsize>, Arc<AtomicUsize>) {
    faulty_store_gated(dir, target, errno, Arc::new(AtomicI32::new(0)))
}

/// [`faulty_store`] whose (re)opens fail with the errno in `refuse_open`
/// while it is not 0.
fn faulty_store_gated(
    dir: &Path,
    target: Target,
    errno: i32,
    refuse_open: Arc<AtomicI32>,
) -> (RedbStore, Arc<AtomicUsize>, Arc<AtomicUsize>) {
    let path = dir.join(FILE_NAME);
    let calls = Arc::new(AtomicUsize::new(0));
    let countdown = Arc::new(AtomicUsize::new(0));
    let (file, c, n) = (path.clone(), Arc::clone(&calls), Arc::clone(&countdown));
    let opener = Box::new(move || -> Result<redb::Database, Box<redb::Error>> {
        let boxed = |e: redb::Error| Box::new(e);
        let refused = refuse_open.load(Ordering::SeqCst);
        if refused != 0 {
            return Err(boxed(std::io::Error::from_raw_os_error(refused).into()));
        }
        let f = std::fs::OpenOptions::new()
            .read(true)
            .write(true)
            .create(true)
            .truncate(false)
            .open(&file)
            .map_err(|e| boxed(e.into()))?;
        let backend = FaultyBackend {
            file: FileBackend::new(f).map_err(|e| boxed(e.into()))?,
            target,
            errno,
            calls: Arc::clone(&c),
            countdown: Arc::clone(&n),
        };
        redb::Database::builder()
            .create_with_backend(backend)
            .map_err(|e| boxed(e.into()))
    });
    let store = RedbStore::with_opener(path, dir.join(RESERVE_NAME), opener)
        .expect("open the database and create the tables");
    (store, calls, countdown)
}

fn first_batch() -> Batch {
    Batch {
        puts: (1..=6)
            .map(|k| (k, format!("first {k}").into_bytes()))
            .collect(),
        meta: vec![("last".into(), b"first".to_vec())],
        ..Batch::default()
    }
}

fn second_batch() -> Batch {
    Batch {
        puts: (7..=12)
            .map(|k| (k, vec![k as u8; 3000]))
            .chain([(2, b"second 2".to_vec())])
            .collect(),
        deletes: vec![1, 3],
        meta: vec![("last".into(), b"second".to_vec())],
        summaries: vec![(7, b"seven".to_vec()), (2, b"two".to_vec())],
    }
}

/// Fails each write (ENOSPC) or each fsync (EIO) redb makes while committing
/// one batch, one per run. The store closes and reopens the file by itself
/// (redb: after an I/O error "close and re-open the database"), so the failing
/// apply answers for what the file holds then: an error —
/// [`StoreError::Full`] (2056) or [`StoreError::Io`] (2102) naming the file —
/// when the batch is absent, `Ok` when it was stored whole (an fsync that
/// failed after redb wrote its commit record). Never a part: the same
/// instance and a later open load the batch entirely or not at all, the
/// failed writes never leave it (redb writes its commit record last), and
/// the store takes the next batch at once.
#[test]
fn an_io_failure_inside_a_commit_is_typed_the_store_reopens_and_the_batch_is_whole() {
    for (target, errno) in [(Target::Write, libc::ENOSPC), (Target::Sync, libc::EIO)] {
        // A dry run counts the calls one commit of the second batch makes.
        let dir = tempfile::tempdir().expect("temporary directory");
        let calls = {
            let (store, calls, countdown) = faulty_store(dir.path(), target, errno);
            store.apply(&first_batch()).expect("first batch");
            countdown.store(usize::MAX, Ordering::SeqCst);
            store.apply(&second_batch()).expect("second batch");
            calls.load(Ordering::SeqCst)
        };
        assert!(calls >= 1, "{target:?}: the commit made no call");
        let as_loaded = |m: &super::conformance::Model| {
            (
                m.records.clone().into_iter().collect::<Vec<_>>(),
                m.meta.clone().into_iter().collect::<Vec<_>>(),
            )
        };
        let next = Batch {
            puts: vec![(98, b"at once".to_vec())],
            ..Batch::default()
        };
        let mut present_after = Vec::new();
        for k in 1..=calls {
            let dir = tempfile::tempdir().expect("temporary directory");
            let file = dir.path().join(FILE_NAME);
            let mut before = super::conformance::Model::default();
            before.apply(&first_batch());
            let mut after = before.clone();
            after.apply(&second_batch());
            let mut want = {
                let (store, _, countdown) = faulty_store(dir.path(), target, errno);
                store.apply(&first_batch()).expect("first batch");
                countdown.store(k, Ordering::SeqCst);
                let answered = store.apply(&second_batch());
                if let Err(e) = &answered {
                    let op = format!("store: {}: ", file.display());
                    assert!(e.to_string().starts_with(&op), "{e}");
                    match target {
                        Target::Write => {
                            assert!(matches!(e, StoreError::Full { .. }), "write {k}: {e:?}");
                            assert_eq!(e.mqrc(), Mqrc::Q_SPACE_NOT_AVAILABLE);
                        }
                        Target::Sync => {
                            assert!(matches!(e, StoreError::Io { .. }), "fsync {k}: {e:?}");
                            assert_eq!(e.mqrc(), Mqrc::RESOURCE_PROBLEM);
                        }
                    }
                } else {
                    present_after.push(k);
                }
                // The answer is what the same instance holds; it reopened
                // the file once and takes the next batch at once.
                let mut want = if answered.is_ok() { after } else { before };
                assert_eq!(
                    (
                        store.load().expect("load"),
                        store.load_meta().expect("meta")
                    ),
                    as_loaded(&want),
                    "{target:?} {k}: answered {answered:?}"
                );
                assert_eq!(store.health().reopens, 1, "{target:?} {k}");
                store.apply(&next).expect("the next batch after the fault");
                want.apply(&next);
                want
            };
            // A later open loads the same.
            let store = RedbStore::open(dir.path()).unwrap_or_else(|e| panic!("reopen: {e}"));
            assert_eq!(
                (
                    store.load().expect("load"),
                    store.load_meta().expect("meta")
                ),
                as_loaded(&want),
                "{target:?} {k}: after a later open"
            );
            let after_open = Batch {
                puts: vec![(99, b"after".to_vec())],
                ..Batch::default()
            };
            store.apply(&after_open).expect("apply after reopening");
            want.apply(&after_open);
            assert_eq!(store.load().expect("load"), as_loaded(&want).0);
        }
        if target == Target::Write {
            assert_eq!(
                present_after,
                Vec::<usize>::new(),
                "failed writes left the batch"
            );
        }
        println!("{target:?}: {calls} calls; batch present after failing call {present_after:?}");
    }
}

/// A failed commit whose reopen fails too leaves the store `failed`
/// (`Store::health`): every call fails with the reason of the reopen's
/// failure — 2102 MQRC_RESOURCE_PROBLEM for EIO, 2056
/// MQRC_Q_SPACE_NOT_AVAILABLE for ENOSPC (IBM MQ "Reason codes") — without
/// touching the file until [`super::redb::RETRY`] has passed; then the next
/// call reopens it and works, and the failed batch is absent.
#[test]
fn a_store_whose_reopen_fails_is_failed_until_a_later_call_reopens_it() {
    use super::StoreState;
    for (errno, reason) in [(libc::EIO, 2102), (libc::ENOSPC, 2056)] {
        let dir = tempfile::tempdir().expect("temporary directory");
        let refuse = Arc::new(AtomicI32::new(0));
        let (store, _, countdown) =
            faulty_store_gated(dir.path(), Target::Write, errno, Arc::clone(&refuse));
        store.apply(&first_batch()).expect("first batch");
        refuse.store(errno, Ordering::SeqCst);
        countdown.store(1, Ordering::SeqCst);
        let e = store
            .apply(&second_batch())
            .expect_err("the faulted commit");
        assert_eq!(e.mqrc().0, reason, "{errno}: {e}");
        let h = store.health();
        assert_eq!((h.state, h.reason), (StoreState::Failed, reason), "{h:?}");
        assert!(h.message.contains(": reopen: "), "{h:?}");
        // At once again: refused with the same reason, the file untouched.
        let next = Batch {
            puts: vec![(50, b"next".to_vec())],
            ..Batch::default()
        };
        let again = store.apply(&next).expect_err("while failed");
        assert_eq!(again.mqrc().0, reason, "{again}");
        assert_eq!(
            store.load_meta().expect_err("meta while failed").mqrc().0,
            reason
        );
        // The device works again: after RETRY the next call reopens.
        refuse.store(0, Ordering::SeqCst);
        std::thread::sleep(super::redb::RETRY + std::time::Duration::from_millis(50));
        store.apply(&next).expect("after the reopen");
        let h = store.health();
        assert_eq!((h.state, h.reopens), (StoreState::Ok, 1), "{h:?}");
        let mut want = super::conformance::Model::default();
        want.apply(&first_batch());
        want.apply(&next);
        assert_eq!(
            store.load().expect("load"),
            want.records.into_iter().collect::<Vec<_>>()
        );
    }
}

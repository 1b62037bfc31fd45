//! The embedded backend against the conformance suite (src/store/conformance),
//! and the redb-specific failure mapping: I/O errors injected under redb by a
//! storage backend that fails one chosen write or fsync.

use super::conformance::{crash, queue_manager, records};
use super::redb::{FILE_NAME, RedbStore};
use super::{Batch, Store, StoreError};
use mqgate_codecs::mq::Mqrc;
use redb::StorageBackend;
use redb::backends::FileBackend;
use std::path::Path;
use std::sync::Arc;
use std::sync::atomic::{AtomicUsize, Ordering};

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

/// A store over a [`FaultyBackend`] in `dir`, with its arming counters.
fn faulty_store(
    dir: &Path,
    target: Target,
    errno: i32,
) -> (RedbStore, Arc<AtomicUsize>, Arc<AtomicUsize>) {
    let path = dir.join(FILE_NAME);
    let file = std::fs::OpenOptions::new()
        .read(true)
        .write(true)
        .create(true)
        .truncate(false)
        .open(&path)
        .expect("the store file");
    let calls = Arc::new(AtomicUsize::new(0));
    let countdown = Arc::new(AtomicUsize::new(0));
    let backend = FaultyBackend {
        file: FileBackend::new(file).expect("lock the store file"),
        target,
        errno,
        calls: Arc::clone(&calls),
        countdown: Arc::clone(&countdown),
    };
    let db = redb::Database::builder()
        .create_with_backend(backend)
        .expect("open the database");
    let store = RedbStore::with_database(db, path).expect("create the tables");
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
    }
}

/// Fails each write (ENOSPC) or each fsync (EIO) redb makes while committing
/// one batch, one per run. The failing apply is [`StoreError::Full`] (2056)
/// or [`StoreError::Io`] (2102) naming the file; the next call is
/// [`StoreError::Closed`] (redb refuses every call after an I/O error); and
/// after reopening the batch is entirely present or entirely absent — absent
/// for every failed write (redb writes its commit record last); an fsync that
/// fails after that record was written may leave it present, the case the
/// `Store` contract allows.
#[test]
fn an_io_failure_inside_a_commit_is_typed_closes_the_store_and_leaves_the_batch_whole() {
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
        let mut present_after = Vec::new();
        for k in 1..=calls {
            let dir = tempfile::tempdir().expect("temporary directory");
            let file = dir.path().join(FILE_NAME);
            {
                let (store, _, countdown) = faulty_store(dir.path(), target, errno);
                store.apply(&first_batch()).expect("first batch");
                countdown.store(k, Ordering::SeqCst);
                let e = store
                    .apply(&second_batch())
                    .expect_err("the faulted commit");
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
                let again = store.apply(&Batch::default()).expect_err("after the fault");
                assert!(matches!(again, StoreError::Closed { .. }), "{again:?}");
                assert_eq!(again.mqrc(), Mqrc::RESOURCE_PROBLEM);
            }
            let store = RedbStore::open(dir.path()).unwrap_or_else(|e| panic!("reopen: {e}"));
            let mut before = super::conformance::Model::default();
            before.apply(&first_batch());
            let mut after = before.clone();
            after.apply(&second_batch());
            let loaded = (
                store.load().expect("load"),
                store.load_meta().expect("meta"),
            );
            let as_loaded = |m: &super::conformance::Model| {
                (
                    m.records.clone().into_iter().collect::<Vec<_>>(),
                    m.meta.clone().into_iter().collect::<Vec<_>>(),
                )
            };
            if loaded == as_loaded(&after) {
                present_after.push(k);
            } else {
                assert!(
                    loaded == as_loaded(&before),
                    "{target:?} {k}: a part of the batch"
                );
            }
            // The reopened store works.
            store
                .apply(&Batch {
                    puts: vec![(99, b"after".to_vec())],
                    ..Batch::default()
                })
                .expect("apply after reopening");
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

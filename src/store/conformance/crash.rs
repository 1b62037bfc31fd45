//! Crash points: a fault injected at every store write of a queue-manager
//! workload, and a real kill -9 of a process applying batches.

use super::queue_manager::{contents, get, put, queue_manager};
use super::{Model, Rng, record};
use crate::qmgr::{QmError, QueueManager};
use crate::store::{Batch, Store, StoreError};
use mqgate_codecs::mq::Mqrc;
use std::io::{BufRead, BufReader, Write};
use std::os::unix::process::ExitStatusExt;
use std::path::Path;
use std::process::{Command, Stdio};
use std::sync::Arc;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::time::{Duration, Instant};

/// The error [`FaultyStore`] injects.
#[derive(Clone, Copy, Debug)]
pub enum Fault {
    /// ENOSPC: [`StoreError::Full`].
    Full,
    /// EIO: [`StoreError::Io`].
    Io,
}

impl Fault {
    fn error(self, n: usize) -> StoreError {
        let errno = match self {
            Fault::Full => libc::ENOSPC,
            Fault::Io => libc::EIO,
        };
        let op = format!("apply {n} (injected fault)");
        StoreError::from_io(op, std::io::Error::from_raw_os_error(errno))
    }
}

/// A store that passes every call to `inner` until apply number `fail_at`
/// (counting from 1), which fails with the injected fault without reaching
/// `inner`; every later apply fails the same way, as a crashed process writes
/// nothing more. Loads always reach `inner`.
pub struct FaultyStore {
    inner: Arc<dyn Store>,
    fail_at: usize,
    fault: Fault,
    applies: AtomicUsize,
}

impl FaultyStore {
    /// Wraps `inner`, failing from apply number `fail_at` on.
    pub fn new(inner: Arc<dyn Store>, fail_at: usize, fault: Fault) -> FaultyStore {
        FaultyStore {
            inner,
            fail_at,
            fault,
            applies: AtomicUsize::new(0),
        }
    }

    /// True once the fault was injected.
    pub fn crashed(&self) -> bool {
        self.applies.load(Ordering::SeqCst) >= self.fail_at
    }
}

impl Store for FaultyStore {
    fn apply(&self, batch: &Batch) -> Result<(), StoreError> {
        let n = self.applies.fetch_add(1, Ordering::SeqCst) + 1;
        if n >= self.fail_at {
            return Err(self.fault.error(n));
        }
        self.inner.apply(batch)
    }

    fn load(&self) -> Result<Vec<(u64, Vec<u8>)>, StoreError> {
        self.inner.load()
    }

    fn load_meta(&self) -> Result<Vec<(String, Vec<u8>)>, StoreError> {
        self.inner.load_meta()
    }

    fn load_index(&self) -> Result<crate::store::Summaries, StoreError> {
        self.inner.load_index()
    }

    fn load_index_parts(
        &self,
        each: &mut dyn FnMut(crate::store::IndexPart),
    ) -> Result<(), StoreError> {
        self.inner.load_index_parts(each)
    }

    fn read(&self, key: u64) -> Result<Option<Vec<u8>>, StoreError> {
        self.inner.read(key)
    }
}

/// What the step of the workload during which the fault hits must answer.
#[derive(Clone, Copy, Debug)]
enum OnFault {
    /// The injected error's own reason (2056 for ENOSPC, 2102 for EIO).
    StoreReason,
    /// This reason (2003 MQRC_BACKED_OUT for a commit).
    Reason(Mqrc),
    /// Success: a backout reports success and only logs that it could not
    /// store BackoutCount (src/qmgr/uow.rs).
    Success,
}

type Step = fn(&Arc<QueueManager>) -> Result<(), QmError>;

/// The workload: each step but the non-persistent put makes exactly one
/// store apply when nothing fails.
const STEPS: [(&str, Step, OnFault); 8] = [
    (
        "put P1",
        |qm| put(qm, "Q", "P1", true, None).map(drop),
        OnFault::StoreReason,
    ),
    (
        "put P2",
        |qm| put(qm, "Q", "P2", true, None).map(drop),
        OnFault::StoreReason,
    ),
    (
        "put NP (not persistent)",
        |qm| put(qm, "Q", "NP", false, None).map(drop),
        OnFault::Success,
    ),
    (
        "commit puts of U1 and U2 to R with a get of P1",
        |qm| {
            let uow = qm.begin_uow(None, None)?;
            put(qm, "R", "U1", true, Some(uow))?;
            put(qm, "R", "U2", true, Some(uow))?;
            assert_eq!(get(qm, "Q", Some(uow))?.data, "P1");
            qm.commit(uow)
        },
        OnFault::Reason(Mqrc::BACKED_OUT),
    ),
    (
        "get P2 outside a unit of work",
        |qm| get(qm, "Q", None).map(|m| assert_eq!(m.data, "P2")),
        OnFault::Reason(Mqrc::BACKED_OUT),
    ),
    (
        "back out a get of U1",
        |qm| {
            let uow = qm.begin_uow(None, None)?;
            assert_eq!(get(qm, "R", Some(uow))?.data, "U1");
            qm.backout(uow)
        },
        OnFault::Success,
    ),
    (
        "put_meta conf/x = 1",
        |qm| qm.put_meta(vec![("conf/x".into(), b"1".to_vec())]),
        OnFault::StoreReason,
    ),
    (
        "commit a get of U1 with meta conf/x = 2",
        |qm| {
            let uow = qm.begin_uow(None, None)?;
            let m = get(qm, "R", Some(uow))?;
            assert_eq!((m.data.as_ref(), m.md.backout_count), (&b"U1"[..], 1));
            qm.commit_with_meta(uow, vec![("conf/x".into(), b"2".to_vec())])
        },
        OnFault::Reason(Mqrc::BACKED_OUT),
    ),
];

/// What a restart finds after the first `k` store applies of the workload
/// succeeded: (Q, R, meta conf/x), messages as (data, BackoutCount).
type Durable = (
    &'static [(&'static str, i32)],
    &'static [(&'static str, i32)],
    Option<&'static str>,
);
const AFTER: [Durable; 8] = [
    (&[], &[], None),
    (&[("P1", 0)], &[], None),
    (&[("P1", 0), ("P2", 0)], &[], None),
    (&[("P2", 0)], &[("U1", 0), ("U2", 0)], None),
    (&[], &[("U1", 0), ("U2", 0)], None),
    (&[], &[("U1", 1), ("U2", 0)], None),
    (&[], &[("U1", 1), ("U2", 0)], Some("1")),
    (&[], &[("U2", 0)], Some("2")),
];

/// For every store write of a queue-manager workload (puts, a commit with
/// puts and a get, a get outside a unit of work, a backout, put_meta, a
/// commit with meta): a [`FaultyStore`] fails that write and every later
/// one, as a crash would. The call during which the fault hits answers the
/// right reason (2056 for ENOSPC, 2102 for EIO, 2003 for a commit), and a
/// restart on the real store finds exactly the work acknowledged before it:
/// [`AFTER`] spells out each state.
pub fn queue_manager_crash_at_every_store_write<F: Fn(&Path) -> Arc<dyn Store>>(open: F) {
    // fail_at = AFTER.len() is past the last write: the run without a fault.
    for fail_at in 1..=AFTER.len() {
        let fault = if fail_at % 2 == 1 {
            Fault::Full
        } else {
            Fault::Io
        };
        let dir = tempfile::tempdir().expect("temporary directory");
        {
            let faulty = Arc::new(FaultyStore::new(open(dir.path()), fail_at, fault));
            let qm = queue_manager(Arc::clone(&faulty) as Arc<dyn Store>);
            for (name, step, on_fault) in STEPS {
                let result = step(&qm);
                if !faulty.crashed() {
                    result.unwrap_or_else(|e| panic!("fault at {fail_at}: {name}: {e}"));
                    continue;
                }
                let want = match on_fault {
                    OnFault::StoreReason => Some(fault.error(fail_at).mqrc()),
                    OnFault::Reason(r) => Some(r),
                    OnFault::Success => None,
                };
                let got = result.as_ref().err().map(|e| e.mqrc);
                assert_eq!(
                    got, want,
                    "fault at {fail_at} ({fault:?}): {name}: {result:?}"
                );
                break;
            }
        }
        let qm = queue_manager(open(dir.path()));
        let (q, r, meta) = AFTER[fail_at - 1];
        let when = format!("restart after a fault at store write {fail_at} ({fault:?})");
        let own = |v: &[(&str, i32)]| -> Vec<(String, i32)> {
            v.iter().map(|(d, bc)| (d.to_string(), *bc)).collect()
        };
        assert_eq!(contents(&qm, "Q"), own(q), "{when}: Q");
        assert_eq!(contents(&qm, "R"), own(r), "{when}: R");
        let got_meta = qm.meta("conf/x").expect("meta");
        assert_eq!(
            got_meta,
            meta.map(|m| m.as_bytes().to_vec()),
            "{when}: meta"
        );
    }
}

/// The environment variable that makes [`kill_9_writer`] write batches into
/// the directory it names.
pub const WRITER_DIR: &str = "MQGATE_STORE_CONFORMANCE_WRITER_DIR";

/// The meta name holding the number of the last batch the writer applied.
const LAST_BATCH: &str = "conformance/batch";

/// Batch number `i` (from 1) of the writer: 1 to 9 new records (groups from
/// 4 on), an overwrite of a record three batches back, a delete of a record
/// two batches back, deletes of half a group five batches back, a delete of a
/// key never written, and the batch number as meta. A function of `i` only,
/// so the parent can rebuild the state after any number of batches.
fn writer_batch(i: u64) -> Batch {
    let key = |batch: u64, j: u64| batch * 16 + j;
    let n = 1 + (i * 7) % 9;
    let mut puts: Vec<(u64, Vec<u8>)> = (0..n)
        .map(|j| {
            (
                key(i, j),
                record(key(i, j), i, ((i * 131 + j * 977) % 2500) as usize),
            )
        })
        .collect();
    let mut deletes = vec![key(i, 15)];
    if i > 3 {
        puts.push((key(i - 3, 1), record(key(i - 3, 1), i, 30)));
    }
    if i > 2 {
        deletes.push(key(i - 2, 0));
    }
    if i > 5 {
        deletes.extend((1..9).step_by(2).map(|j| key(i - 5, j)));
    }
    // A summary per record, so that a batch's summaries are whole or
    // absent with it.
    let summaries = puts
        .iter()
        .map(|(k, _)| (*k, k.to_le_bytes().to_vec()))
        .collect();
    Batch {
        puts,
        deletes,
        meta: vec![(LAST_BATCH.into(), i.to_be_bytes().to_vec())],
        summaries,
    }
}

fn last_batch(store: &dyn Store) -> u64 {
    let meta = store
        .load_meta()
        .unwrap_or_else(|e| panic!("load_meta: {e}"));
    meta.iter()
        .find(|(n, _)| n == LAST_BATCH)
        .and_then(|(_, v)| <[u8; 8]>::try_from(v.as_slice()).ok())
        .map_or(0, u64::from_be_bytes)
}

/// The child of [`kill_9_leaves_every_batch_whole_or_absent`]: opens the
/// store in `dir` and applies [`writer_batch`]es after the last one stored,
/// printing `durable N` on stdout once batch N's apply returned `Ok`, until
/// it is killed (or after 60 s, or when stdout is closed).
fn kill_9_writer<F: Fn(&Path) -> Arc<dyn Store>>(open: F, dir: &std::ffi::OsStr) {
    let store = open(Path::new(&dir));
    let mut out = std::io::stdout();
    let started = Instant::now();
    let mut i = last_batch(&*store) + 1;
    while started.elapsed() < Duration::from_secs(60) {
        store
            .apply(&writer_batch(i))
            .unwrap_or_else(|e| panic!("writer batch {i}: {e}"));
        if writeln!(out, "durable {i}")
            .and_then(|()| out.flush())
            .is_err()
        {
            return;
        }
        i += 1;
    }
}

/// Kill rounds: the child is SIGKILLed this many times.
const ROUNDS: usize = 12;

/// Runs [`kill_9_writer`] in a child process and SIGKILLs it at random points: half the rounds
/// 0-100 ms after its first durable batch, half 0-200 ms after it started
/// (during start-up, open and recovery too). After each kill the store is
/// reopened: its last batch number N is the last the child reported durable
/// or the one after (applied, not yet reported), and the records and meta
/// are exactly those of batches 1 to N — no batch in part, none reported
/// durable missing. The kill points are random (seed printed), the
/// assertions do not depend on them.
///
/// The child is this test binary again, running the same `#[test]` (named by
/// `this_test`, a full path from `module_path!()`) with [`WRITER_DIR`] set:
/// in that process this function is the writer instead, so no test is
/// ignored or needs a flag to run.
pub fn kill_9_leaves_every_batch_whole_or_absent<F: Fn(&Path) -> Arc<dyn Store>>(
    open: F,
    this_test: &str,
) {
    if let Some(dir) = std::env::var_os(WRITER_DIR) {
        kill_9_writer(open, &dir);
        return;
    }
    let exe = std::env::current_exe().expect("the test binary");
    // Test names leave out the crate name module_path!() starts with.
    let name = this_test
        .split_once("::")
        .map_or(this_test, |(_, rest)| rest);
    let mut rng = Rng::from_clock();
    println!("kill-point seed {}", rng.0);
    let dir = tempfile::tempdir().expect("temporary directory");
    let mut model = Model::default();
    let mut applied = 0u64;
    for round in 0..ROUNDS {
        let mut child = Command::new(&exe)
            .args([name, "--exact", "--nocapture", "--test-threads=1"])
            .env(WRITER_DIR, dir.path())
            .stdout(Stdio::piped())
            .stderr(Stdio::null())
            .spawn()
            .expect("spawn the writer");
        let stdout = child.stdout.take().expect("the writer's stdout");
        let (tx, rx) = std::sync::mpsc::channel();
        let reader = std::thread::spawn(move || {
            let mut other = Vec::new();
            for line in BufReader::new(stdout).lines().map_while(Result::ok) {
                // libtest may print "test NAME ... " before the first line.
                let report = line.rsplit_once("durable ").map(|(_, n)| n);
                match report.and_then(|n| n.parse::<u64>().ok()) {
                    Some(n) => {
                        let _ = tx.send(n);
                    }
                    None => other.push(line),
                }
            }
            other
        });
        let mut reported = Vec::new();
        let delay_ms = if round % 2 == 0 {
            let first = rx.recv_timeout(Duration::from_secs(60));
            reported.push(first.unwrap_or_else(|e| panic!("round {round}: no durable batch: {e}")));
            rng.below(100)
        } else {
            rng.below(200)
        };
        std::thread::sleep(Duration::from_millis(delay_ms));
        child.kill().expect("SIGKILL the writer");
        let status = child.wait().expect("wait for the writer");
        let other = reader.join().expect("the reader thread");
        assert_eq!(
            status.signal(),
            Some(libc::SIGKILL),
            "round {round}: the writer ended by itself ({status}): {other:?}"
        );
        reported.extend(rx.try_iter());
        let expected_first = applied + 1;
        for (at, n) in reported.iter().enumerate() {
            assert_eq!(
                *n,
                expected_first + at as u64,
                "round {round}: reports {reported:?}"
            );
        }
        let last_reported = reported.last().copied().unwrap_or(applied);
        let store = open(dir.path());
        let found = last_batch(&*store);
        assert!(
            found == last_reported || found == last_reported + 1,
            "round {round}: the store's last batch is {found}, the writer reported {last_reported} durable"
        );
        for i in applied + 1..=found {
            model.apply(&writer_batch(i));
        }
        applied = found;
        model.assert_loaded(&*store, &format!("round {round}, after batch {found}"));
        println!(
            "round {round}: killed after batch {found} ({} reported)",
            reported.len()
        );
    }
    assert!(
        applied >= (ROUNDS / 2) as u64,
        "the writer applied only {applied} batches in {ROUNDS} rounds"
    );
}

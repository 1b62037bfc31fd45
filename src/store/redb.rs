//! The embedded default store: one redb file.
//!
//! Tables: `messages` (u64 key -> one record), `segments` (u64 segment id ->
//! many records, src/store/segment.rs), `gone` ((segment id, key) -> (): a
//! segment's record that was deleted or overwritten), `meta` (name ->
//! state record), and the summaries ([`Batch::summaries`]): `index` (u64 key
//! -> the summary of a record in `messages`) and `index_segments` (segment
//! id -> the summaries of that segment's records, in the segment layout).
//! Start-up reads the summaries, `gone` and the last key of `messages`,
//! never a record: [`Store::load_index`] and the segment index both come
//! from them.
//!
//! Why segments: redb spends about 10 µs per B-tree insert of a 1.4 KiB
//! record on the reference machine, which capped group commits at about
//! 65,000 records/s; one value holding the whole group is written at memory
//! and disk speed (docs/performance.md "Message channels"). A batch with at
//! least [`SEGMENT_MIN`] new keys (higher than every key stored) writes them
//! as segments; everything else is a single record. Deleting a segmented
//! record adds a `gone` entry; the segment and its `gone` entries are removed
//! in the transaction that deletes its last live record.
//!
//! redb commits with fsync by default (Durability::Immediate), so a committed
//! write transaction survives kill -9.
//!
//! Errors: redb's are sorted into [`StoreError`] by `from_redb`: an I/O error
//! is `Full` for ENOSPC/EDQUOT and `Io` otherwise; `Corrupted` is `Corrupt`;
//! the rest (file locked by another process, value too large, another
//! layout) is `Refused`.
//!
//! Recovery (docs/config.md "When the store's disk fills up"): after any
//! I/O error redb refuses every later call ("Previous I/O error occurred.
//! Please close and re-open the database", redb `StorageError::PreviousIo`)
//! and marks the file as needing repair. The store therefore closes the
//! database and opens the file again at once; redb's open repairs it back to
//! the last committed transaction and commits that state (with fsync). The
//! failed batch is then looked up: a batch found whole (an fsync that failed
//! after redb wrote its commit record) is answered `Ok`, one found absent is
//! answered with the error. When the reopen fails too, every call fails with
//! that reason and the next call after [`RETRY`] tries again.
//!
//! A full device: the store keeps a reserve file of [`RESERVE_BYTES`] beside
//! its file. On the first ENOSPC it deletes the reserve, so redb's repair and
//! the transactions that only remove records (gets, acknowledgements, expiry)
//! have room, and enters the `full` condition: a batch that puts records is
//! refused with [`StoreError::Full`] (MQRC 2056) without touching the file,
//! unless gets have freed more than its size plus the reserve inside the
//! file. The condition ends once the device has room for the reserve and as
//! much again and the reserve is written back (looked at, at most every
//! [`RETRY`], when a batch puts records).

use super::segment;
#[path = "redb_layout.rs"]
mod layout;
use super::{Batch, IndexPart, Store, StoreError, StoreHealth, StoreState, Summaries};
use mqgate_codecs::mq::Mqrc;
use redb::{Database, ReadableTable, ReadableTableMetadata, TableDefinition};
use std::collections::{HashMap, HashSet};
use std::io::{self, Write};
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Mutex, MutexGuard, RwLock, RwLockReadGuard};
use std::time::{Duration, Instant};

const MESSAGES: TableDefinition<u64, &[u8]> = TableDefinition::new("messages");
const SEGMENTS: TableDefinition<u64, &[u8]> = TableDefinition::new("segments");
const GONE: TableDefinition<(u64, u64), ()> = TableDefinition::new("gone");
const META: TableDefinition<&str, &[u8]> = TableDefinition::new("meta");
/// Summary of each single record (`messages`), empty when it has none.
const INDEX: TableDefinition<u64, &[u8]> = TableDefinition::new("index");
/// Per segment (same id): the summary of each of its records, in the
/// segment layout (src/store/segment.rs), gone ones included.
const INDEX_SEGMENTS: TableDefinition<u64, &[u8]> = TableDefinition::new("index_segments");
/// The store's own layout version ([`LAYOUT_VERSION`] under "version").
const LAYOUT: TableDefinition<&str, u64> = TableDefinition::new("layout");
/// Version 2: every record has its summary in `index` or `index_segments`.
/// A file without it (written before summaries existed) gets empty
/// summaries for its records when it is first opened (src/store/redb_layout.rs).
const LAYOUT_VERSION: u64 = 2;

/// File name of the store inside the data directory.
pub const FILE_NAME: &str = "messages.redb";

/// File name of the space reserve inside the data directory (module
/// documentation, "A full device").
pub const RESERVE_NAME: &str = "messages.reserve";

/// Bytes the space reserve holds: room for redb's repair after a failed
/// commit and for many transactions that only remove records.
pub const RESERVE_BYTES: u64 = 1024 * 1024;

/// Shortest time between two attempts to reopen a store whose reopen failed,
/// or to write the reserve again while the device is full.
pub const RETRY: Duration = Duration::from_millis(500);

/// redb's page cache, in bytes. The queue manager keeps its own cache of
/// message bodies (src/qmgr/body_cache.rs); this one holds the B-tree pages
/// on the way.
const CACHE_BYTES: usize = 16 * 1024 * 1024;

/// Where a scan hands each live key with its summary.
type SummarySink<'a> = &'a mut dyn FnMut(u64, &[u8]);

/// Keys in each part [`Store::load_index_parts`] hands over (about 4 MiB
/// of summaries); in tests a few, so that every start takes many parts.
const PART_KEYS: usize = if cfg!(test) { 3 } else { 65_536 };

/// Fewest new records a batch needs before they are written as a segment.
pub const SEGMENT_MIN: usize = 4;
/// Largest segment value, in bytes; a larger group is split. A get reads a
/// record's whole segment ([`Store::read`]), so segments stay small enough
/// for that to cost little more than the record's own page.
const SEGMENT_MAX_BYTES: usize = 64 * 1024;

/// Where the records kept in segments are, rebuilt by [`Store::load`].
/// Its maps hash with foldhash (randomly seeded), a fraction of SipHash's
/// cost on a key of 8 bytes, a million of them at a start.
#[derive(Default)]
struct SegmentIndex {
    /// Key of each live segmented record -> its segment id.
    located: foldhash::HashMap<u64, u64>,
    /// Segment id -> live records in it.
    live: foldhash::HashMap<u64, usize>,
    /// Highest key stored so far; a higher key is new everywhere.
    max_key: Option<u64>,
    /// False until the file was scanned (by [`Store::load`] or the first write).
    scanned: bool,
}

/// Opens the database file (again): the same settings every time.
/// (The error is boxed: redb's is large.)
pub(super) type Opener = Box<dyn Fn() -> Result<Database, Box<redb::Error>> + Send + Sync>;

/// What went wrong and what the store does about it (module documentation).
#[derive(Default)]
struct Condition {
    /// The device was full: batches that put records wait for room.
    full: bool,
    /// While `full`: bytes gets freed inside the file, less what puts used
    /// since (record bytes, an estimate of redb's pages).
    headroom: u64,
    /// The reason and text of the failure that left the database closed
    /// (its reopen failed); `None` while it is open.
    closed: Option<(Mqrc, String)>,
    /// When a reopen was last tried.
    last_reopen: Option<Instant>,
    /// When the reserve was last tried while `full`.
    last_probe: Option<Instant>,
    /// Reopens after a failure since the store was opened.
    reopens: u64,
    /// The last failure met, for the status.
    last_failure: String,
    /// A failed batch whose outcome could not be looked up (the reopen
    /// failed): looked up at the next reopen.
    unresolved: Option<Batch>,
}

/// A redb database holding the persistent messages.
pub struct RedbStore {
    /// The open database; `None` while a failure keeps it closed.
    db: RwLock<Option<Database>>,
    open_db: Opener,
    /// The file, named in every error.
    path: PathBuf,
    /// The space reserve.
    reserve: PathBuf,
    /// Held for the whole of a write (and of a reopen) so the index matches
    /// the file.
    index: Mutex<SegmentIndex>,
    condition: Mutex<Condition>,
    /// Values holding records read so far, and their bytes ([`Store::read_counts`]).
    read_values: AtomicU64,
    read_bytes: AtomicU64,
}

/// Sorts a redb error into the store's kinds (redb 2 `Error`; every redb
/// error type converts into it). `op` names the file and the operation.
fn from_redb(op: String, e: redb::Error) -> StoreError {
    match e {
        redb::Error::Io(source) => StoreError::from_io(op, source),
        redb::Error::PreviousIo => StoreError::Closed {
            op,
            detail: "an earlier I/O error left the database unusable (redb PreviousIo)".into(),
        },
        redb::Error::LockPoisoned(at) => StoreError::Closed {
            op,
            detail: format!("a panic at {at} poisoned an internal lock of the database"),
        },
        redb::Error::Corrupted(detail) => StoreError::Corrupt {
            op,
            key: None,
            detail,
        },
        redb::Error::DatabaseAlreadyOpen => StoreError::Refused {
            op,
            detail: "the file is already open (is another mqgate using this data directory?)"
                .into(),
        },
        other => StoreError::Refused {
            op,
            detail: other.to_string(),
        },
    }
}

/// True for the failures after which redb refuses every call until the
/// database is reopened (an I/O error, a poisoned lock).
fn needs_reopen(e: &StoreError) -> bool {
    matches!(
        e,
        StoreError::Full { .. } | StoreError::Io { .. } | StoreError::Closed { .. }
    )
}

/// The bytes `batch` adds to the file, as far as the store can tell: its
/// records and meta records with their keys.
fn put_bytes(batch: &Batch) -> u64 {
    let puts: usize = batch
        .puts
        .iter()
        .map(|(_, r)| segment::entry_len(r.len()))
        .sum();
    let meta: usize = batch.meta.iter().map(|(n, r)| n.len() + r.len()).sum();
    (puts + meta) as u64
}

/// Bytes an unprivileged process may still write on the file system that
/// holds `dir` (statvfs(3): `f_bavail` blocks of `f_frsize` bytes).
fn available(dir: &Path) -> io::Result<u64> {
    use std::os::unix::ffi::OsStrExt;
    let path = std::ffi::CString::new(dir.as_os_str().as_bytes())
        .map_err(|e| io::Error::new(io::ErrorKind::InvalidInput, e))?;
    let mut st = std::mem::MaybeUninit::<libc::statvfs>::uninit();
    // SAFETY: `path` is a NUL-terminated string that outlives the call and
    // `st` points to writable memory of the size statvfs fills.
    let rc = unsafe { libc::statvfs(path.as_ptr(), st.as_mut_ptr()) };
    if rc != 0 {
        return Err(io::Error::last_os_error());
    }
    // SAFETY: statvfs returned 0, so it filled `st` (POSIX statvfs).
    let st = unsafe { st.assume_init() };
    // The field types differ by target (u32 on some 32-bit ones).
    #[allow(clippy::unnecessary_cast)]
    Ok((st.f_bavail as u64).saturating_mul(st.f_frsize as u64))
}

/// Writes the reserve file `path` to [`RESERVE_BYTES`] (real blocks, not a
/// sparse file) and syncs it; a reserve already whole is left as it is. On
/// failure the partial file is removed, so its blocks are free again.
fn restore_reserve(path: &Path) -> io::Result<()> {
    if std::fs::metadata(path).is_ok_and(|m| m.len() == RESERVE_BYTES) {
        return Ok(());
    }
    let written = (|| {
        let mut f = std::fs::File::create(path)?;
        let block = vec![0u8; 64 * 1024];
        let mut left = RESERVE_BYTES;
        while left > 0 {
            let n = left.min(block.len() as u64) as usize;
            f.write_all(&block[..n])?;
            left -= n as u64;
        }
        f.sync_all()
    })();
    if written.is_err() {
        let _ = std::fs::remove_file(path);
    }
    written
}

impl RedbStore {
    /// Opens (or creates) `data_dir/messages.redb`, creating the directory,
    /// and writes the space reserve `data_dir/messages.reserve` when it is
    /// missing (without room for it the store starts in the `full`
    /// condition). Errors: the directory or file cannot be created, opened
    /// or locked (a second gateway on the same data directory fails here,
    /// with [`StoreError::Refused`]).
    pub fn open(data_dir: &Path) -> Result<RedbStore, StoreError> {
        std::fs::create_dir_all(data_dir)
            .map_err(|e| StoreError::from_io(format!("cannot create {}", data_dir.display()), e))?;
        let path = data_dir.join(FILE_NAME);
        let file = path.clone();
        // The queue manager caches the messages it reads back itself
        // (src/qmgr/body_cache.rs), so redb's page cache (1 GiB by default)
        // would mostly hold copies; a small one lets written pages be freed
        // and reused.
        let opener: Opener = Box::new(move || {
            Database::builder()
                .set_cache_size(CACHE_BYTES)
                .create(&file)
                .map_err(|e| Box::new(redb::Error::from(e)))
        });
        RedbStore::with_opener(path, data_dir.join(RESERVE_NAME), opener)
    }

    /// The store over the database `open_db` opens (now, and again after
    /// each failure), named `path`, with its reserve at `reserve`; its
    /// tables are created.
    pub(super) fn with_opener(
        path: PathBuf,
        reserve: PathBuf,
        open_db: Opener,
    ) -> Result<RedbStore, StoreError> {
        let db = open_db().map_err(|e| from_redb(format!("{}: open", path.display()), *e))?;
        let store = RedbStore {
            db: RwLock::new(None),
            open_db,
            path,
            reserve,
            index: Mutex::new(SegmentIndex::default()),
            condition: Mutex::new(Condition::default()),
            read_values: AtomicU64::new(0),
            read_bytes: AtomicU64::new(0),
        };
        let tx = db.begin_write().map_err(store.fail("begin"))?;
        tx.open_table(MESSAGES).map_err(store.fail("open table"))?;
        tx.open_table(SEGMENTS).map_err(store.fail("open table"))?;
        tx.open_table(GONE).map_err(store.fail("open table"))?;
        tx.open_table(META).map_err(store.fail("open table"))?;
        tx.open_table(INDEX).map_err(store.fail("open table"))?;
        tx.open_table(INDEX_SEGMENTS)
            .map_err(store.fail("open table"))?;
        store.upgrade_layout(&tx)?;
        tx.commit().map_err(store.fail("commit"))?;
        *store.db.write().unwrap_or_else(|p| p.into_inner()) = Some(db);
        if let Err(e) = restore_reserve(&store.reserve) {
            let e = StoreError::from_io(format!("{}: write", store.reserve.display()), e);
            tracing::warn!(error = %e, "no room for the store's space reserve");
            if matches!(e, StoreError::Full { .. }) {
                store.enter_full(&e);
            }
        }
        Ok(store)
    }

    /// The error mapping for operation `op` on this file.
    fn fail<E: Into<redb::Error>>(&self, op: &str) -> impl FnOnce(E) -> StoreError + '_ {
        let op = format!("{}: {op}", self.path.display());
        move |e| from_redb(op, e.into())
    }

    /// [`StoreError::Refused`] for operation `op` on this file.
    fn refused(&self, op: &str, detail: String) -> StoreError {
        StoreError::Refused {
            op: format!("{}: {op}", self.path.display()),
            detail,
        }
    }

    fn condition(&self) -> MutexGuard<'_, Condition> {
        // Plain field stores: a panic cannot leave the condition half changed.
        self.condition.lock().unwrap_or_else(|p| p.into_inner())
    }

    fn db(&self) -> RwLockReadGuard<'_, Option<Database>> {
        self.db.read().unwrap_or_else(|p| p.into_inner())
    }

    /// The error of a call while the database is closed: the reason of the
    /// failure that keeps it closed.
    fn closed_error(&self, op: &str, c: &Condition) -> StoreError {
        let op = format!("{}: {op}", self.path.display());
        match &c.closed {
            Some((reason, text)) if *reason == Mqrc::Q_SPACE_NOT_AVAILABLE => StoreError::Full {
                op,
                source: io::Error::new(io::ErrorKind::StorageFull, text.clone()),
            },
            Some((_, text)) => StoreError::Closed {
                op,
                detail: format!("reopening it failed ({text}); it is tried again"),
            },
            None => StoreError::Closed {
                op,
                detail: "the database is being reopened".into(),
            },
        }
    }

    /// Enters the `full` condition after `e` and deletes the reserve, giving
    /// its room to redb's repair and to the removals that free space.
    fn enter_full(&self, e: &StoreError) {
        {
            let mut c = self.condition();
            if !c.full {
                tracing::warn!(error = %e, "the store's device is full: puts are refused with 2056 until there is room; gets and acknowledgements go on");
            }
            c.full = true;
            c.headroom = 0;
            c.last_failure = e.to_string();
        }
        match std::fs::remove_file(&self.reserve) {
            Ok(()) => tracing::info!(reserve = %self.reserve.display(), "space reserve released"),
            Err(e) if e.kind() == io::ErrorKind::NotFound => {}
            Err(e) => {
                tracing::warn!(reserve = %self.reserve.display(), error = %e, "cannot release the space reserve")
            }
        }
    }

    /// While `full`: lets a batch adding `bytes` go on when gets freed
    /// enough room inside the file, or when the reserve can be written again
    /// (the condition ends); [`StoreError::Full`] otherwise, nothing written.
    fn admit(&self, bytes: u64) -> Result<(), StoreError> {
        let mut c = self.condition();
        if !c.full {
            return Ok(());
        }
        if c.last_probe.is_none_or(|t| t.elapsed() >= RETRY) {
            c.last_probe = Some(Instant::now());
            // Room for the reserve and as much again: the reserve's own
            // room, released when the device filled, does not end it.
            let whole = std::fs::metadata(&self.reserve).is_ok_and(|m| m.len() == RESERVE_BYTES);
            let need = if whole {
                RESERVE_BYTES
            } else {
                2 * RESERVE_BYTES
            };
            let dir = self.reserve.parent().unwrap_or(Path::new("."));
            if available(dir).is_ok_and(|room| room >= need)
                && restore_reserve(&self.reserve).is_ok()
            {
                c.full = false;
                c.headroom = 0;
                tracing::info!("the store's device has room again: puts are accepted");
                return Ok(());
            }
        }
        if c.headroom >= bytes.saturating_add(RESERVE_BYTES) {
            return Ok(());
        }
        Err(StoreError::Full {
            op: format!("{}: put", self.path.display()),
            source: io::Error::new(
                io::ErrorKind::StorageFull,
                format!(
                    "the device is full; records are stored again once it has {} bytes free or gets have freed room in the store",
                    2 * RESERVE_BYTES
                ),
            ),
        })
    }

    /// Runs `f` on the open database, reopening it first when a failure
    /// left it closed (at most every [`RETRY`]). The outer error is the
    /// reopen's; `f`'s result comes back as it is.
    fn with_db<T>(
        &self,
        index: &mut SegmentIndex,
        op: &str,
        f: impl FnOnce(&Database, &mut SegmentIndex) -> T,
    ) -> Result<T, StoreError> {
        {
            let db = self.db();
            if let Some(db) = db.as_ref() {
                return Ok(f(db, index));
            }
        }
        self.reopen(index, false)?;
        let db = self.db();
        match db.as_ref() {
            Some(db) => Ok(f(db, index)),
            None => Err(self.closed_error(op, &self.condition())),
        }
    }

    /// Closes the database and opens its file again (redb repairs it to the
    /// last committed transaction), then rebuilds `index` from the file.
    /// Unless `force`, a closed database is tried at most every [`RETRY`].
    /// A reopen failing for want of space releases the reserve and tries
    /// once more.
    fn reopen(&self, index: &mut SegmentIndex, force: bool) -> Result<(), StoreError> {
        let mut slot = self.db.write().unwrap_or_else(|p| p.into_inner());
        {
            let mut c = self.condition();
            if !force && slot.is_none() && c.last_reopen.is_some_and(|t| t.elapsed() < RETRY) {
                return Err(self.closed_error("reopen", &c));
            }
            c.last_reopen = Some(Instant::now());
        }
        // The old instance holds the file's lock: it goes first.
        *slot = None;
        let mut opened = self.open_and_scan();
        if let Err(e @ StoreError::Full { .. }) = &opened {
            self.enter_full(e);
            opened = self.open_and_scan();
        }
        let (db, fresh) = match opened {
            Ok(v) => v,
            Err(e) => {
                let mut c = self.condition();
                c.closed = Some((e.mqrc(), e.to_string()));
                c.last_failure = e.to_string();
                tracing::error!(error = %e, "the store cannot be reopened; every call fails until it can");
                return Err(e);
            }
        };
        *index = fresh;
        let unresolved = {
            let mut c = self.condition();
            c.closed = None;
            c.reopens += 1;
            c.unresolved.take()
        };
        if let Some(batch) = unresolved
            && let Ok(true) = self.is_stored(&db, index, &batch)
        {
            let text = "a batch answered as failed was found stored when the store was reopened: its changes show after the gateway restarts";
            tracing::error!(store = %self.path.display(), "{text}");
            self.condition().last_failure = text.to_string();
        }
        *slot = Some(db);
        tracing::info!(store = %self.path.display(), "store reopened");
        Ok(())
    }

    fn open_and_scan(&self) -> Result<(Database, SegmentIndex), StoreError> {
        let db = (self.open_db)()
            .map_err(|e| from_redb(format!("{}: reopen", self.path.display()), *e))?;
        let index = self.scan(&db, None)?;
        Ok((db, index))
    }

    /// After `e` from a write: closes and reopens the database and looks
    /// `batch` up (module documentation, "Recovery").
    fn recover(
        &self,
        index: &mut SegmentIndex,
        batch: &Batch,
        e: StoreError,
    ) -> Result<(), StoreError> {
        if matches!(e, StoreError::Full { .. }) {
            self.enter_full(&e);
        } else {
            self.condition().last_failure = e.to_string();
        }
        tracing::warn!(error = %e, "the store failed; reopening it");
        let found = self
            .reopen(index, true)
            .and_then(|()| self.with_db(index, "look up", |db, ix| self.is_stored(db, ix, batch)));
        match found {
            Ok(Ok(true)) => {
                tracing::warn!(error = %e, "the failed batch was stored whole before the failure");
                self.written(batch, 0);
                Ok(())
            }
            Ok(Ok(false)) => Err(e),
            Ok(Err(_)) | Err(_) => {
                self.condition().unresolved = Some(batch.clone());
                Err(e)
            }
        }
    }

    /// Accounts a batch written while `full`.
    fn written(&self, batch: &Batch, freed: u64) {
        let mut c = self.condition();
        if c.full {
            c.headroom = c
                .headroom
                .saturating_add(freed)
                .saturating_sub(put_bytes(batch));
        }
    }

    /// True when the file holds what `batch` leaves: each record it puts
    /// (the last put of a key), none it deletes, each meta record.
    fn is_stored(
        &self,
        db: &Database,
        index: &SegmentIndex,
        batch: &Batch,
    ) -> Result<bool, StoreError> {
        let mut want: HashMap<u64, Option<&[u8]>> = HashMap::new();
        for (k, r) in &batch.puts {
            want.insert(*k, Some(r.as_slice()));
        }
        for k in &batch.deletes {
            want.insert(*k, None);
        }
        let tx = db.begin_read().map_err(self.fail("begin read"))?;
        let messages = tx.open_table(MESSAGES).map_err(self.fail("open table"))?;
        let segments = tx.open_table(SEGMENTS).map_err(self.fail("open table"))?;
        for (key, want) in want {
            let have = match index.located.get(&key) {
                Some(&seg) => segments.get(seg).map_err(self.fail("read"))?.and_then(|v| {
                    let entries = segment::entries(v.value()).ok()?;
                    entries
                        .into_iter()
                        .find(|(k, _)| *k == key)
                        .map(|(_, r)| r.to_vec())
                }),
                None => messages
                    .get(key)
                    .map_err(self.fail("read"))?
                    .map(|v| v.value().to_vec()),
            };
            if have.as_deref() != want {
                return Ok(false);
            }
        }
        let meta = tx.open_table(META).map_err(self.fail("open table"))?;
        let mut last: HashMap<&str, &[u8]> = HashMap::new();
        for (name, r) in &batch.meta {
            last.insert(name, r);
        }
        for (name, want) in last {
            let have = meta.get(name).map_err(self.fail("read"))?;
            if have.as_ref().map(|v| v.value()) != Some(want) {
                return Ok(false);
            }
        }
        Ok(true)
    }

    /// Runs the read `f`, reopening the database and running it once more
    /// when it fails as redb does after an I/O error.
    fn read_retrying<T>(
        &self,
        index: &mut SegmentIndex,
        op: &str,
        mut f: impl FnMut(&Database, &mut SegmentIndex) -> Result<T, StoreError>,
    ) -> Result<T, StoreError> {
        match self.with_db(index, op, &mut f)? {
            Err(e) if needs_reopen(&e) => {
                self.condition().last_failure = e.to_string();
                tracing::warn!(error = %e, "a read of the store failed; reopening it");
                self.reopen(index, true)?;
                self.with_db(index, op, f)?
            }
            other => other,
        }
    }

    /// Reads the whole file: the segment index and, when `records` is
    /// given, every live record into it (unsorted).
    /// The segment index rebuilt from the summaries (`index_segments`,
    /// `gone`, the last key of `index`), reading no record; with
    /// `summaries`, every live key's summary is pushed there too (unsorted).
    fn scan(
        &self,
        db: &Database,
        mut summaries: Option<SummarySink<'_>>,
    ) -> Result<SegmentIndex, StoreError> {
        let tx = db.begin_read().map_err(self.fail("begin read"))?;
        let mut index = SegmentIndex {
            scanned: true,
            ..SegmentIndex::default()
        };
        let single = tx.open_table(INDEX).map_err(self.fail("open table"))?;
        match summaries.as_deref_mut() {
            Some(out) => {
                // In key order: the last is the highest.
                for row in single.iter().map_err(self.fail("scan"))? {
                    let (k, v) = row.map_err(self.fail("read"))?;
                    index.max_key = Some(k.value());
                    out(k.value(), v.value());
                }
            }
            None => {
                index.max_key = single
                    .last()
                    .map_err(self.fail("read"))?
                    .map(|(k, _)| k.value());
            }
        }
        let mut gone: HashSet<(u64, u64)> = HashSet::new();
        let gone_table = tx.open_table(GONE).map_err(self.fail("open table"))?;
        for row in gone_table.iter().map_err(self.fail("scan"))? {
            let (k, _) = row.map_err(self.fail("read"))?;
            gone.insert(k.value());
        }
        let segments = tx
            .open_table(INDEX_SEGMENTS)
            .map_err(self.fail("open table"))?;
        // Gathered first, so that the map is built at its final size (a
        // million keys at a start, without a rehash on the way).
        let mut located = Vec::new();
        for row in segments.iter().map_err(self.fail("scan"))? {
            let (k, v) = row.map_err(self.fail("read"))?;
            let seg = k.value();
            let entries = segment::entries(v.value()).map_err(|e| StoreError::Corrupt {
                op: format!("{}: load", self.path.display()),
                key: Some(seg),
                detail: format!("summaries of segment {seg}, {e}"),
            })?;
            let mut live = 0;
            for (key, summary) in entries {
                index.max_key = Some(index.max_key.map_or(key, |m| m.max(key)));
                if gone.contains(&(seg, key)) {
                    continue;
                }
                located.push((key, seg));
                live += 1;
                if let Some(out) = summaries.as_deref_mut() {
                    out(key, summary);
                }
            }
            if live > 0 {
                index.live.insert(seg, live);
            }
        }
        index.located = located.into_iter().collect();
        Ok(index)
    }

    /// How many live keys the file holds, from the summaries' tables
    /// (their entries' headers only): the single records' summaries, plus
    /// the segments' summaries, less the `gone` entries (each names one
    /// of them).
    fn count_index(&self, db: &Database) -> Result<usize, StoreError> {
        let tx = db.begin_read().map_err(self.fail("begin read"))?;
        let single = tx.open_table(INDEX).map_err(self.fail("open table"))?;
        let mut keys = single.len().map_err(self.fail("read"))?;
        let segments = tx
            .open_table(INDEX_SEGMENTS)
            .map_err(self.fail("open table"))?;
        for row in segments.iter().map_err(self.fail("scan"))? {
            let (k, v) = row.map_err(self.fail("read"))?;
            let seg = k.value();
            let n = segment::count(v.value()).map_err(|e| StoreError::Corrupt {
                op: format!("{}: load", self.path.display()),
                key: Some(seg),
                detail: format!("summaries of segment {seg}, {e}"),
            })?;
            keys += n as u64;
        }
        let gone = tx.open_table(GONE).map_err(self.fail("open table"))?;
        keys = keys.saturating_sub(gone.len().map_err(self.fail("read"))?);
        Ok(usize::try_from(keys).unwrap_or(usize::MAX))
    }

    /// Every live record (unsorted) and the segment index: the summaries'
    /// scan, then every record value.
    fn scan_records(
        &self,
        db: &Database,
        out: &mut Vec<(u64, Vec<u8>)>,
    ) -> Result<SegmentIndex, StoreError> {
        let index = self.scan(db, None)?;
        let tx = db.begin_read().map_err(self.fail("begin read"))?;
        let table = tx.open_table(MESSAGES).map_err(self.fail("open table"))?;
        for row in table.iter().map_err(self.fail("scan"))? {
            let (k, v) = row.map_err(self.fail("read"))?;
            self.count_read(v.value().len());
            out.push((k.value(), v.value().to_vec()));
        }
        let segments = tx.open_table(SEGMENTS).map_err(self.fail("open table"))?;
        for row in segments.iter().map_err(self.fail("scan"))? {
            let (k, v) = row.map_err(self.fail("read"))?;
            let seg = k.value();
            let value = v.value();
            self.count_read(value.len());
            let entries = segment::entries(value).map_err(|e| StoreError::Corrupt {
                op: format!("{}: load", self.path.display()),
                key: Some(seg),
                detail: format!("segment {seg}, {e}"),
            })?;
            for (key, record) in entries {
                if index.located.get(&key) == Some(&seg) {
                    out.push((key, record.to_vec()));
                }
            }
        }
        Ok(index)
    }

    /// Counts one value of `len` bytes read ([`Store::read_counts`]).
    fn count_read(&self, len: usize) {
        self.read_values.fetch_add(1, Ordering::Relaxed);
        self.read_bytes.fetch_add(len as u64, Ordering::Relaxed);
    }

    /// The record under `key` in one read transaction: a single record, or
    /// the key's entry in the segment with the greatest id at or below it
    /// (segments hold disjoint, increasing ranges of keys, each named by
    /// its lowest) unless it left that segment. `Ok(None)` also when that
    /// segment does not hold the key (a file written before segments were
    /// sorted): the caller then asks the segment index.
    fn read_in(
        &self,
        db: &Database,
        key: u64,
        segment_of: Option<u64>,
    ) -> Result<Option<Vec<u8>>, StoreError> {
        let tx = db.begin_read().map_err(self.fail("begin read"))?;
        let single = tx.open_table(MESSAGES).map_err(self.fail("open table"))?;
        if let Some(v) = single.get(key).map_err(self.fail("read"))? {
            self.count_read(v.value().len());
            return Ok(Some(v.value().to_vec()));
        }
        let segments = tx.open_table(SEGMENTS).map_err(self.fail("open table"))?;
        let found = match segment_of {
            Some(seg) => segments
                .get(seg)
                .map_err(self.fail("read"))?
                .map(|v| (seg, v)),
            None => segments
                .range(..=key)
                .map_err(self.fail("read"))?
                .next_back()
                .transpose()
                .map_err(self.fail("read"))?
                .map(|(k, v)| (k.value(), v)),
        };
        let Some((seg, value)) = found else {
            return Ok(None);
        };
        let gone = tx.open_table(GONE).map_err(self.fail("open table"))?;
        if gone.get((seg, key)).map_err(self.fail("read"))?.is_some() {
            return Ok(None);
        }
        self.count_read(value.value().len());
        let entries = segment::entries(value.value()).map_err(|e| StoreError::Corrupt {
            op: format!("{}: read", self.path.display()),
            key: Some(seg),
            detail: format!("segment {seg}, {e}"),
        })?;
        Ok(entries
            .into_iter()
            .find(|(k, _)| *k == key)
            .map(|(_, r)| r.to_vec()))
    }

    fn index(&self) -> MutexGuard<'_, SegmentIndex> {
        // A panic while holding the lock cannot leave the index half changed:
        // it is changed only after a successful commit, in plain inserts.
        self.index.lock().unwrap_or_else(|p| p.into_inner())
    }
}

/// The changes one batch makes to the segment index, applied after commit.
#[derive(Default)]
struct IndexChange {
    added: Vec<(u64, u64)>,
    added_live: Vec<(u64, usize)>,
    /// Segmented keys deleted or overwritten, with their segment.
    left: Vec<(u64, u64)>,
}

impl Store for RedbStore {
    fn apply(&self, batch: &Batch) -> Result<(), StoreError> {
        let mut index = self.index();
        if !batch.puts.is_empty() {
            self.admit(put_bytes(batch))?;
        }
        let written = self.with_db(&mut index, "begin", |db, ix| self.write(db, ix, batch))?;
        match written {
            Ok(freed) => {
                self.written(batch, freed);
                Ok(())
            }
            Err(e) if needs_reopen(&e) => self.recover(&mut index, batch, e),
            Err(e) => Err(e),
        }
    }

    fn load(&self) -> Result<Vec<(u64, Vec<u8>)>, StoreError> {
        let mut index = self.index();
        let mut out = Vec::new();
        let fresh = self.read_retrying(&mut index, "begin read", |db, _| {
            out.clear();
            self.scan_records(db, &mut out)
        })?;
        *index = fresh;
        out.sort_by_key(|(k, _)| *k);
        Ok(out)
    }

    fn load_index(&self) -> Result<Summaries, StoreError> {
        let mut index = self.index();
        let mut out = Summaries::default();
        let fresh = self.read_retrying(&mut index, "begin read", |db, _| {
            out = Summaries::default();
            self.scan(db, Some(&mut |k, s| out.push(k, s)))
        })?;
        *index = fresh;
        out.sort();
        Ok(out)
    }

    fn load_index_parts(&self, each: &mut dyn FnMut(IndexPart)) -> Result<(), StoreError> {
        let mut index = self.index();
        let fresh = self.read_retrying(&mut index, "begin read", |db, _| {
            each(IndexPart::Expect(self.count_index(db)?));
            let mut part = Summaries::with_capacity(PART_KEYS, PART_KEYS * 64);
            let ix = self.scan(
                db,
                Some(&mut |k, s| {
                    part.push(k, s);
                    if part.len() >= PART_KEYS {
                        let next = Summaries::with_capacity(PART_KEYS, PART_KEYS * 64);
                        each(IndexPart::Summaries(std::mem::replace(&mut part, next)));
                    }
                }),
            )?;
            if !part.is_empty() {
                each(IndexPart::Summaries(part));
            }
            Ok(ix)
        })?;
        *index = fresh;
        Ok(())
    }

    fn read(&self, key: u64) -> Result<Option<Vec<u8>>, StoreError> {
        // Without the segment index's lock, held through every write's
        // fsync: a get does not wait for other messages' commits.
        let first = self.db().as_ref().map(|db| self.read_in(db, key, None));
        match first {
            Some(Ok(Some(record))) => return Ok(Some(record)),
            Some(Err(e)) if !needs_reopen(&e) => return Err(e),
            _ => {}
        }
        let mut index = self.index();
        if !index.scanned {
            let fresh =
                self.read_retrying(&mut index, "begin read", |db, _| self.scan(db, None))?;
            *index = fresh;
        }
        let seg = index.located.get(&key).copied();
        self.read_retrying(&mut index, "begin read", |db, _| match seg {
            Some(seg) => self.read_in(db, key, Some(seg)),
            None => Ok(None),
        })
    }

    fn read_counts(&self) -> super::ReadCounts {
        super::ReadCounts {
            values: self.read_values.load(Ordering::Relaxed),
            bytes: self.read_bytes.load(Ordering::Relaxed),
        }
    }

    fn load_meta(&self) -> Result<Vec<(String, Vec<u8>)>, StoreError> {
        // Without the index lock while the database is open and reads work,
        // so a channel's handshake does not wait for a commit.
        let first = self.db().as_ref().map(|db| self.read_meta(db));
        match first {
            Some(Ok(v)) => Ok(v),
            Some(Err(e)) if !needs_reopen(&e) => Err(e),
            _ => {
                let mut index = self.index();
                self.read_retrying(&mut index, "begin read", |db, _| self.read_meta(db))
            }
        }
    }

    fn health(&self) -> StoreHealth {
        let c = self.condition();
        let (state, reason, message) = match (&c.closed, c.full) {
            (Some((reason, text)), _) => (StoreState::Failed, reason.0, text.clone()),
            (None, true) => (
                StoreState::Full,
                Mqrc::Q_SPACE_NOT_AVAILABLE.0,
                format!(
                    "the store's device is full: puts are refused with 2056 until it has {} bytes free again or gets have freed room in the store; gets and acknowledgements go on",
                    2 * RESERVE_BYTES
                ),
            ),
            (None, false) => (StoreState::Ok, 0, String::new()),
        };
        StoreHealth {
            state,
            reason,
            message,
            reopens: c.reopens,
            last_failure: c.last_failure.clone(),
        }
    }
}

impl RedbStore {
    fn read_meta(&self, db: &Database) -> Result<Vec<(String, Vec<u8>)>, StoreError> {
        let tx = db.begin_read().map_err(self.fail("begin read"))?;
        let table = tx.open_table(META).map_err(self.fail("open table"))?;
        let mut out = Vec::new();
        for row in table.iter().map_err(self.fail("scan"))? {
            let (k, v) = row.map_err(self.fail("read"))?;
            out.push((k.value().to_string(), v.value().to_vec()));
        }
        Ok(out)
    }

    /// Writes `batch` in one transaction of `db`, keeping `index` in step;
    /// returns the bytes of stored values it removed or replaced.
    fn write(
        &self,
        db: &Database,
        index: &mut SegmentIndex,
        batch: &Batch,
    ) -> Result<u64, StoreError> {
        if !index.scanned {
            *index = self.scan(db, None)?;
        }
        let tx = db.begin_write().map_err(self.fail("begin"))?;
        let mut freed = 0u64;
        let mut change = IndexChange::default();
        let mut left_keys: HashSet<u64> = HashSet::new();
        {
            let mut table = tx.open_table(MESSAGES).map_err(self.fail("open table"))?;
            let mut segments = tx.open_table(SEGMENTS).map_err(self.fail("open table"))?;
            let mut gone = tx.open_table(GONE).map_err(self.fail("open table"))?;
            let mut single_index = tx.open_table(INDEX).map_err(self.fail("open table"))?;
            let mut index_segments = tx
                .open_table(INDEX_SEGMENTS)
                .map_err(self.fail("open table"))?;
            let summary_of: HashMap<u64, &[u8]> = batch
                .summaries
                .iter()
                .map(|(k, v)| (*k, v.as_slice()))
                .collect();
            let summary = |key: &u64| summary_of.get(key).copied().unwrap_or(&[]);
            // Segment candidates: new keys put once and not also deleted
            // by this batch (anything else takes the single-record path,
            // where the last write wins as in one B-tree).
            let mut seen: HashMap<u64, usize> = HashMap::new();
            for (k, _) in &batch.puts {
                *seen.entry(*k).or_default() += 1;
            }
            for k in &batch.deletes {
                *seen.entry(*k).or_default() += 2;
            }
            let is_new = |key: u64| index.max_key.is_none_or(|m| key > m);
            let mut fresh: Vec<&(u64, Vec<u8>)> = batch
                .puts
                .iter()
                .filter(|(k, r)| {
                    is_new(*k) && seen.get(k) == Some(&1) && r.len() <= u32::MAX as usize
                })
                .collect();
            // In key order, so that segments hold disjoint ranges named by
            // their lowest key (what a read relies on).
            fresh.sort_unstable_by_key(|(k, _)| *k);
            let segmented: HashSet<u64> = if fresh.len() >= SEGMENT_MIN {
                fresh.iter().map(|(k, _)| *k).collect()
            } else {
                HashSet::new()
            };
            if !segmented.is_empty() {
                // Chunks of at most SEGMENT_MAX_BYTES, each written straight
                // into the space redb reserves for it.
                let mut start = 0;
                while start < fresh.len() {
                    let mut end = start;
                    let mut len = 0;
                    while end < fresh.len() {
                        let next = segment::entry_len(fresh[end].1.len());
                        if end > start && len + next > SEGMENT_MAX_BYTES {
                            break;
                        }
                        len += next;
                        end += 1;
                    }
                    let chunk = &fresh[start..end];
                    let id = chunk[0].0;
                    let size = u32::try_from(len).map_err(|_| {
                        self.refused(
                            "insert segment",
                            format!("a segment of {len} bytes exceeds the u32 size limit"),
                        )
                    })?;
                    let mut guard = segments
                        .insert_reserve(id, size)
                        .map_err(self.fail("insert segment"))?;
                    let mut rest: &mut [u8] = guard.as_mut();
                    for (key, record) in chunk {
                        rest = segment::write_entry(rest, *key, record).ok_or_else(|| {
                            self.refused(
                                "insert segment",
                                "entries exceed the reserved size".into(),
                            )
                        })?;
                        change.added.push((*key, id));
                    }
                    change.added_live.push((id, chunk.len()));
                    let summaries_len: usize = chunk
                        .iter()
                        .map(|(k, _)| segment::entry_len(summary(k).len()))
                        .sum();
                    let size = u32::try_from(summaries_len).map_err(|_| {
                        self.refused(
                            "insert summaries",
                            format!("summaries of {summaries_len} bytes exceed the u32 size limit"),
                        )
                    })?;
                    let mut guard = index_segments
                        .insert_reserve(id, size)
                        .map_err(self.fail("insert summaries"))?;
                    let mut rest: &mut [u8] = guard.as_mut();
                    for (key, _) in chunk {
                        rest = segment::write_entry(rest, *key, summary(key)).ok_or_else(|| {
                            self.refused(
                                "insert summaries",
                                "entries exceed the reserved size".into(),
                            )
                        })?;
                    }
                    start = end;
                }
            }
            // A segmented key leaves its segment when it is overwritten or deleted.
            let mut leave = |key: u64, change: &mut IndexChange| -> Result<bool, StoreError> {
                match index.located.get(&key) {
                    Some(&seg) if left_keys.insert(key) => {
                        gone.insert((seg, key), ())
                            .map_err(self.fail("insert gone"))?;
                        change.left.push((key, seg));
                        Ok(true)
                    }
                    _ => Ok(false),
                }
            };
            for (key, record) in &batch.puts {
                if segmented.contains(key) {
                    continue;
                }
                leave(*key, &mut change)?;
                let old = table
                    .insert(*key, record.as_slice())
                    .map_err(self.fail("insert"))?;
                freed += old.map_or(0, |v| v.value().len() as u64);
                single_index
                    .insert(*key, summary(key))
                    .map_err(self.fail("insert summary"))?;
            }
            for key in &batch.deletes {
                if !leave(*key, &mut change)? {
                    let old = table.remove(*key).map_err(self.fail("remove"))?;
                    freed += old.map_or(0, |v| v.value().len() as u64);
                    single_index
                        .remove(*key)
                        .map_err(self.fail("remove summary"))?;
                }
            }
            // Segments whose last live record left are removed whole.
            let mut leaving: HashMap<u64, usize> = HashMap::new();
            for &(_, seg) in &change.left {
                *leaving.entry(seg).or_default() += 1;
            }
            for (seg, n) in leaving {
                if index.live.get(&seg).copied().unwrap_or(0) <= n {
                    let old = segments.remove(seg).map_err(self.fail("remove segment"))?;
                    freed += old.map_or(0, |v| v.value().len() as u64);
                    index_segments
                        .remove(seg)
                        .map_err(self.fail("remove summaries"))?;
                    gone.retain_in((seg, 0)..=(seg, u64::MAX), |_, _| false)
                        .map_err(self.fail("remove gone"))?;
                }
            }
            if !batch.meta.is_empty() {
                let mut meta = tx.open_table(META).map_err(self.fail("open table"))?;
                for (name, record) in &batch.meta {
                    meta.insert(name.as_str(), record.as_slice())
                        .map_err(self.fail("insert"))?;
                }
            }
        }
        tx.commit().map_err(self.fail("commit"))?;
        for (key, seg) in change.added {
            index.located.insert(key, seg);
        }
        for (seg, n) in change.added_live {
            index.live.insert(seg, n);
        }
        for (key, seg) in change.left {
            index.located.remove(&key);
            if let Some(n) = index.live.get_mut(&seg) {
                *n = n.saturating_sub(1);
                if *n == 0 {
                    index.live.remove(&seg);
                }
            }
        }
        if let Some(top) = batch.puts.iter().map(|(k, _)| *k).max() {
            index.max_key = Some(index.max_key.map_or(top, |m| m.max(top)));
        }
        Ok(freed)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_second_open_of_the_same_directory_fails() {
        let dir = tempfile::tempdir().unwrap();
        let _first = RedbStore::open(dir.path()).unwrap();
        let Err(second) = RedbStore::open(dir.path()) else {
            panic!("a second open of the same directory succeeded");
        };
        assert!(matches!(second, StoreError::Refused { .. }), "{second:?}");
        assert!(
            second.to_string().ends_with(
                ": open: the file is already open (is another mqgate using this data directory?)"
            ),
            "{second}"
        );
    }

    fn rows<K: redb::Key + 'static, V: redb::Value + 'static>(
        s: &RedbStore,
        t: TableDefinition<K, V>,
    ) -> u64 {
        let tx = s.db().as_ref().unwrap().begin_read().unwrap();
        tx.open_table(t).unwrap().len().unwrap()
    }

    fn puts(keys: std::ops::RangeInclusive<u64>) -> Vec<(u64, Vec<u8>)> {
        keys.map(|k| (k, format!("record {k}").into_bytes()))
            .collect()
    }

    #[test]
    fn a_group_of_new_records_is_one_segment_until_its_last_record_leaves() {
        let dir = tempfile::tempdir().unwrap();
        let s = RedbStore::open(dir.path()).unwrap();
        s.apply(&Batch {
            puts: puts(1..=5),
            ..Batch::default()
        })
        .unwrap();
        assert_eq!((rows(&s, SEGMENTS), rows(&s, MESSAGES)), (1, 0));
        s.apply(&Batch {
            deletes: vec![1, 2],
            ..Batch::default()
        })
        .unwrap();
        assert_eq!(rows(&s, GONE), 2);
        // Overwriting a segmented record (e.g. a new BackoutCount) moves it
        // to a single record.
        s.apply(&Batch {
            puts: vec![(3, b"THREE".to_vec())],
            ..Batch::default()
        })
        .unwrap();
        assert_eq!((rows(&s, MESSAGES), rows(&s, GONE)), (1, 3));
        drop(s);
        let s = RedbStore::open(dir.path()).unwrap();
        let mut want = vec![(3, b"THREE".to_vec())];
        want.extend(puts(4..=5));
        assert_eq!(s.load().unwrap(), want);
        s.apply(&Batch {
            deletes: vec![3, 4, 5],
            ..Batch::default()
        })
        .unwrap();
        // The segment and its gone entries went with its last live record.
        assert_eq!(
            (rows(&s, SEGMENTS), rows(&s, GONE), rows(&s, MESSAGES)),
            (0, 0, 0)
        );
        assert_eq!(s.load().unwrap(), vec![]);
    }

    #[test]
    fn load_index_reads_no_record_and_read_reads_one_value() {
        let dir = tempfile::tempdir().unwrap();
        let s = RedbStore::open(dir.path()).unwrap();
        // A group of 5 (one segment) and a single record, with summaries.
        s.apply(&Batch {
            puts: puts(1..=5),
            summaries: (1..=5).map(|k| (k, vec![k as u8])).collect(),
            ..Batch::default()
        })
        .unwrap();
        s.apply(&Batch {
            puts: vec![(6, b"six".to_vec())],
            summaries: vec![(6, b"S6".to_vec())],
            ..Batch::default()
        })
        .unwrap();
        drop(s);
        let s = RedbStore::open(dir.path()).unwrap();
        let mut want: Vec<(u64, Vec<u8>)> = (1..=5).map(|k| (k, vec![k as u8])).collect();
        want.push((6, b"S6".to_vec()));
        assert_eq!(s.load_index().unwrap().to_vec(), want);
        // A write after the start (it needs the segment index) reads no
        // record either.
        s.apply(&Batch {
            deletes: vec![2],
            ..Batch::default()
        })
        .unwrap();
        assert_eq!(s.read_counts(), crate::store::ReadCounts::default());
        assert_eq!(s.read(6).unwrap(), Some(b"six".to_vec()));
        // "six": one value of 3 bytes.
        assert_eq!(s.read_counts().values, 1);
        assert_eq!(s.read_counts().bytes, 3);
        assert_eq!(s.read(4).unwrap(), Some(b"record 4".to_vec()));
        // The segment's 4 other entries are read with it: 12-byte headers
        // and the 8 bytes of "record k" each (src/store/segment.rs).
        assert_eq!(s.read_counts().values, 2);
        assert_eq!(s.read_counts().bytes, 3 + 5 * (12 + 8));
        assert_eq!(s.read(2).unwrap(), None);
    }

    #[test]
    fn a_file_without_summaries_gets_empty_ones_when_opened() {
        let dir = tempfile::tempdir().unwrap();
        {
            // The layout before summaries: records and segments alone.
            let db = Database::create(dir.path().join(FILE_NAME)).unwrap();
            let tx = db.begin_write().unwrap();
            tx.open_table(MESSAGES)
                .unwrap()
                .insert(9, &b"nine"[..])
                .unwrap();
            let mut seg = vec![0u8; 2 * segment::entry_len(3)];
            let rest = segment::write_entry(&mut seg, 3, b"abc").unwrap();
            segment::write_entry(rest, 1, b"def").unwrap();
            tx.open_table(SEGMENTS)
                .unwrap()
                .insert(3, seg.as_slice())
                .unwrap();
            tx.commit().unwrap();
        }
        let s = RedbStore::open(dir.path()).unwrap();
        assert_eq!(
            s.load_index().unwrap().to_vec(),
            vec![(1, vec![]), (3, vec![]), (9, vec![])]
        );
        // Key 1 lies below its unsorted segment's id: found by the index.
        assert_eq!(s.read(1).unwrap(), Some(b"def".to_vec()));
        assert_eq!(s.read(3).unwrap(), Some(b"abc".to_vec()));
        assert_eq!(s.read(9).unwrap(), Some(b"nine".to_vec()));
        s.apply(&Batch {
            deletes: vec![1, 3],
            ..Batch::default()
        })
        .unwrap();
        assert_eq!((rows(&s, SEGMENTS), rows(&s, INDEX_SEGMENTS)), (0, 0));
        drop(s);
        let s = RedbStore::open(dir.path()).unwrap();
        assert_eq!(s.load_index().unwrap().to_vec(), vec![(9, vec![])]);
    }

    #[test]
    fn fewer_new_records_than_segment_min_stay_single() {
        let dir = tempfile::tempdir().unwrap();
        let s = RedbStore::open(dir.path()).unwrap();
        s.apply(&Batch {
            puts: puts(1..=(SEGMENT_MIN as u64 - 1)),
            ..Batch::default()
        })
        .unwrap();
        assert_eq!((rows(&s, SEGMENTS), rows(&s, MESSAGES)), (0, 3));
        // Keys at or below the highest stored are never segmented, even many.
        s.apply(&Batch {
            puts: puts(1..=3),
            ..Batch::default()
        })
        .unwrap();
        assert_eq!((rows(&s, SEGMENTS), rows(&s, MESSAGES)), (0, 3));
    }

    #[test]
    fn a_damaged_segment_is_a_store_error_naming_it() {
        let dir = tempfile::tempdir().unwrap();
        let s = RedbStore::open(dir.path()).unwrap();
        let tx = s.db().as_ref().unwrap().begin_write().unwrap();
        // An entry header claiming 1000 record bytes with 3 present.
        let mut bad = 9u64.to_be_bytes().to_vec();
        bad.extend_from_slice(&1000u32.to_be_bytes());
        bad.extend_from_slice(b"abc");
        tx.open_table(SEGMENTS)
            .unwrap()
            .insert(9, bad.as_slice())
            .unwrap();
        tx.commit().unwrap();
        let e = s.load().unwrap_err();
        assert!(
            matches!(e, StoreError::Corrupt { key: Some(9), .. }),
            "{e:?}"
        );
        assert_eq!(e.mqrc(), mqgate_codecs::mq::Mqrc::RESOURCE_PROBLEM);
        assert_eq!(
            e.to_string(),
            format!(
                "store: {}: load: record 9 is corrupt: segment 9, entry at byte 0: record length 1000 exceeds the 3 bytes left",
                dir.path().join(FILE_NAME).display()
            )
        );
    }
}

//! The embedded default store: one redb file.
//!
//! Tables: `messages` (u64 key -> one record), `segments` (u64 segment id ->
//! many records, src/store/segment.rs), `gone` ((segment id, key) -> (): a
//! segment's record that was deleted or overwritten) and `meta` (name ->
//! state record).
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
//! is `Full` for ENOSPC/EDQUOT and `Io` otherwise; after any I/O error redb
//! refuses every call (`PreviousIo`), which is `Closed` until the file is
//! reopened; `Corrupted` is `Corrupt`; the rest (file locked by another
//! process, value too large, another layout) is `Refused`.

use super::segment;
use super::{Batch, Store, StoreError};
use redb::{Database, ReadableTable, TableDefinition};
use std::collections::{HashMap, HashSet};
use std::path::{Path, PathBuf};
use std::sync::{Mutex, MutexGuard};

const MESSAGES: TableDefinition<u64, &[u8]> = TableDefinition::new("messages");
const SEGMENTS: TableDefinition<u64, &[u8]> = TableDefinition::new("segments");
const GONE: TableDefinition<(u64, u64), ()> = TableDefinition::new("gone");
const META: TableDefinition<&str, &[u8]> = TableDefinition::new("meta");

/// File name of the store inside the data directory.
pub const FILE_NAME: &str = "messages.redb";

/// redb's page cache, in bytes.
const CACHE_BYTES: usize = 16 * 1024 * 1024;

/// Fewest new records a batch needs before they are written as a segment.
pub const SEGMENT_MIN: usize = 4;
/// Largest segment value, in bytes; a larger group is split.
const SEGMENT_MAX_BYTES: usize = 16 * 1024 * 1024;

/// Where the records kept in segments are, rebuilt by [`Store::load`].
#[derive(Default)]
struct SegmentIndex {
    /// Key of each live segmented record -> its segment id.
    located: HashMap<u64, u64>,
    /// Segment id -> live records in it.
    live: HashMap<u64, usize>,
    /// Highest key stored so far; a higher key is new everywhere.
    max_key: Option<u64>,
    /// False until the file was scanned (by [`Store::load`] or the first write).
    scanned: bool,
}

/// A redb database holding the persistent messages.
pub struct RedbStore {
    db: Database,
    /// The file, named in every error.
    path: PathBuf,
    /// Held for the whole of a write so the index matches the file.
    index: Mutex<SegmentIndex>,
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

impl RedbStore {
    /// Opens (or creates) `data_dir/messages.redb`, creating the directory.
    /// Errors: the directory or file cannot be created, opened or locked (a
    /// second gateway on the same data directory fails here, with
    /// [`StoreError::Refused`]).
    pub fn open(data_dir: &Path) -> Result<RedbStore, StoreError> {
        std::fs::create_dir_all(data_dir)
            .map_err(|e| StoreError::from_io(format!("cannot create {}", data_dir.display()), e))?;
        let path = data_dir.join(FILE_NAME);
        // The queue manager keeps every message in memory and reads the file
        // only at start-up, so redb's page cache (1 GiB by default) would
        // only hold copies; a small one lets written pages be freed and reused.
        let db = Database::builder()
            .set_cache_size(CACHE_BYTES)
            .create(&path)
            .map_err(|e| from_redb(format!("{}: open", path.display()), e.into()))?;
        RedbStore::with_database(db, path)
    }

    /// The store over an opened database, its tables created.
    pub(super) fn with_database(db: Database, path: PathBuf) -> Result<RedbStore, StoreError> {
        let store = RedbStore {
            db,
            path,
            index: Mutex::new(SegmentIndex::default()),
        };
        let tx = store.db.begin_write().map_err(store.fail("begin"))?;
        tx.open_table(MESSAGES).map_err(store.fail("open table"))?;
        tx.open_table(SEGMENTS).map_err(store.fail("open table"))?;
        tx.open_table(GONE).map_err(store.fail("open table"))?;
        tx.open_table(META).map_err(store.fail("open table"))?;
        tx.commit().map_err(store.fail("commit"))?;
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

    /// Reads the whole file: the segment index and, when `records` is
    /// given, every live record into it (unsorted).
    fn scan(
        &self,
        mut records: Option<&mut Vec<(u64, Vec<u8>)>>,
    ) -> Result<SegmentIndex, StoreError> {
        let tx = self.db.begin_read().map_err(self.fail("begin read"))?;
        let mut index = SegmentIndex {
            scanned: true,
            ..SegmentIndex::default()
        };
        let table = tx.open_table(MESSAGES).map_err(self.fail("open table"))?;
        for row in table.iter().map_err(self.fail("scan"))? {
            let (k, v) = row.map_err(self.fail("read"))?;
            let key = k.value();
            index.max_key = Some(index.max_key.map_or(key, |m| m.max(key)));
            if let Some(out) = records.as_deref_mut() {
                out.push((key, v.value().to_vec()));
            }
        }
        let mut gone: HashSet<(u64, u64)> = HashSet::new();
        let gone_table = tx.open_table(GONE).map_err(self.fail("open table"))?;
        for row in gone_table.iter().map_err(self.fail("scan"))? {
            let (k, _) = row.map_err(self.fail("read"))?;
            gone.insert(k.value());
        }
        let segments = tx.open_table(SEGMENTS).map_err(self.fail("open table"))?;
        for row in segments.iter().map_err(self.fail("scan"))? {
            let (k, v) = row.map_err(self.fail("read"))?;
            let seg = k.value();
            let value = v.value();
            // A segment's id is its first record's key: that record is named.
            let entries = segment::entries(value).map_err(|e| StoreError::Corrupt {
                op: format!("{}: load", self.path.display()),
                key: Some(seg),
                detail: format!("segment {seg}, {e}"),
            })?;
            for (key, record) in entries {
                index.max_key = Some(index.max_key.map_or(key, |m| m.max(key)));
                if gone.contains(&(seg, key)) {
                    continue;
                }
                index.located.insert(key, seg);
                *index.live.entry(seg).or_default() += 1;
                if let Some(out) = records.as_deref_mut() {
                    out.push((key, record.to_vec()));
                }
            }
        }
        Ok(index)
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
        if !index.scanned {
            *index = self.scan(None)?;
        }
        let tx = self.db.begin_write().map_err(self.fail("begin"))?;
        let mut change = IndexChange::default();
        let mut left_keys: HashSet<u64> = HashSet::new();
        {
            let mut table = tx.open_table(MESSAGES).map_err(self.fail("open table"))?;
            let mut segments = tx.open_table(SEGMENTS).map_err(self.fail("open table"))?;
            let mut gone = tx.open_table(GONE).map_err(self.fail("open table"))?;
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
            let fresh: Vec<&(u64, Vec<u8>)> = batch
                .puts
                .iter()
                .filter(|(k, r)| {
                    is_new(*k) && seen.get(k) == Some(&1) && r.len() <= u32::MAX as usize
                })
                .collect();
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
                table
                    .insert(*key, record.as_slice())
                    .map_err(self.fail("insert"))?;
            }
            for key in &batch.deletes {
                if !leave(*key, &mut change)? {
                    table.remove(*key).map_err(self.fail("remove"))?;
                }
            }
            // Segments whose last live record left are removed whole.
            let mut leaving: HashMap<u64, usize> = HashMap::new();
            for &(_, seg) in &change.left {
                *leaving.entry(seg).or_default() += 1;
            }
            for (seg, n) in leaving {
                if index.live.get(&seg).copied().unwrap_or(0) <= n {
                    segments.remove(seg).map_err(self.fail("remove segment"))?;
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
        Ok(())
    }

    fn load(&self) -> Result<Vec<(u64, Vec<u8>)>, StoreError> {
        let mut index = self.index();
        let mut out = Vec::new();
        *index = self.scan(Some(&mut out))?;
        out.sort_by_key(|(k, _)| *k);
        Ok(out)
    }

    fn load_meta(&self) -> Result<Vec<(String, Vec<u8>)>, StoreError> {
        let tx = self.db.begin_read().map_err(self.fail("begin read"))?;
        let table = tx.open_table(META).map_err(self.fail("open table"))?;
        let mut out = Vec::new();
        for row in table.iter().map_err(self.fail("scan"))? {
            let (k, v) = row.map_err(self.fail("read"))?;
            out.push((k.value().to_string(), v.value().to_vec()));
        }
        Ok(out)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use redb::ReadableTableMetadata;

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
        let tx = s.db.begin_read().unwrap();
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
        let tx = s.db.begin_write().unwrap();
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

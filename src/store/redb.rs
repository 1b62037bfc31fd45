//! The embedded default store: one redb file, one table `messages` (u64 -> bytes).
//!
//! redb commits with fsync by default (Durability::Immediate), so a committed
//! write transaction survives kill -9.

use super::{Batch, Store, StoreError};
use redb::{Database, ReadableTable, TableDefinition};
use std::path::Path;

const MESSAGES: TableDefinition<u64, &[u8]> = TableDefinition::new("messages");
const META: TableDefinition<&str, &[u8]> = TableDefinition::new("meta");

/// File name of the store inside the data directory.
pub const FILE_NAME: &str = "messages.redb";

/// A redb database holding the persistent messages.
pub struct RedbStore {
    db: Database,
}

fn err(what: &str, e: impl std::fmt::Display) -> StoreError {
    StoreError(format!("{what}: {e}"))
}

impl RedbStore {
    /// Opens (or creates) `data_dir/messages.redb`, creating the directory.
    /// Errors: the directory or file cannot be created, opened or locked (a
    /// second gateway on the same data directory fails here).
    pub fn open(data_dir: &Path) -> Result<RedbStore, StoreError> {
        std::fs::create_dir_all(data_dir)
            .map_err(|e| err(&format!("cannot create {}", data_dir.display()), e))?;
        let path = data_dir.join(FILE_NAME);
        let db = Database::create(&path)
            .map_err(|e| err(&format!("cannot open {}", path.display()), e))?;
        let tx = db.begin_write().map_err(|e| err("begin", e))?;
        tx.open_table(MESSAGES).map_err(|e| err("open table", e))?;
        tx.open_table(META).map_err(|e| err("open table", e))?;
        tx.commit().map_err(|e| err("commit", e))?;
        Ok(RedbStore { db })
    }
}

impl Store for RedbStore {
    fn apply(&self, batch: &Batch) -> Result<(), StoreError> {
        let tx = self.db.begin_write().map_err(|e| err("begin", e))?;
        {
            let mut table = tx.open_table(MESSAGES).map_err(|e| err("open table", e))?;
            for (key, record) in &batch.puts {
                table
                    .insert(*key, record.as_slice())
                    .map_err(|e| err("insert", e))?;
            }
            for key in &batch.deletes {
                table.remove(*key).map_err(|e| err("remove", e))?;
            }
            if !batch.meta.is_empty() {
                let mut meta = tx.open_table(META).map_err(|e| err("open table", e))?;
                for (name, record) in &batch.meta {
                    meta.insert(name.as_str(), record.as_slice())
                        .map_err(|e| err("insert", e))?;
                }
            }
        }
        tx.commit().map_err(|e| err("commit", e))
    }

    fn load(&self) -> Result<Vec<(u64, Vec<u8>)>, StoreError> {
        let tx = self.db.begin_read().map_err(|e| err("begin read", e))?;
        let table = tx.open_table(MESSAGES).map_err(|e| err("open table", e))?;
        let mut out = Vec::new();
        for row in table.iter().map_err(|e| err("scan", e))? {
            let (k, v) = row.map_err(|e| err("read", e))?;
            out.push((k.value(), v.value().to_vec()));
        }
        Ok(out)
    }

    fn load_meta(&self) -> Result<Vec<(String, Vec<u8>)>, StoreError> {
        let tx = self.db.begin_read().map_err(|e| err("begin read", e))?;
        let table = tx.open_table(META).map_err(|e| err("open table", e))?;
        let mut out = Vec::new();
        for row in table.iter().map_err(|e| err("scan", e))? {
            let (k, v) = row.map_err(|e| err("read", e))?;
            out.push((k.value().to_string(), v.value().to_vec()));
        }
        Ok(out)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_batch_is_applied_whole_and_survives_reopening() {
        let dir = tempfile::tempdir().unwrap();
        {
            let s = RedbStore::open(dir.path()).unwrap();
            s.apply(&Batch {
                puts: vec![
                    (1, b"one".to_vec()),
                    (2, b"two".to_vec()),
                    (3, b"three".to_vec()),
                ],
                deletes: vec![],
                meta: vec![],
            })
            .unwrap();
            s.apply(&Batch {
                puts: vec![(2, b"TWO".to_vec())],
                deletes: vec![1, 99],
                meta: vec![("channel/A".into(), b"7".to_vec())],
            })
            .unwrap();
        }
        let s = RedbStore::open(dir.path()).unwrap();
        assert_eq!(
            s.load().unwrap(),
            vec![(2, b"TWO".to_vec()), (3, b"three".to_vec())]
        );
        assert_eq!(
            s.load_meta().unwrap(),
            vec![("channel/A".to_string(), b"7".to_vec())]
        );
    }

    #[test]
    fn a_second_open_of_the_same_directory_fails() {
        let dir = tempfile::tempdir().unwrap();
        let _first = RedbStore::open(dir.path()).unwrap();
        let second = RedbStore::open(dir.path());
        assert!(second.is_err());
    }
}

//! Messages whose MQMD and data are in the store: reading one back for a
//! get (through the body cache, src/qmgr/body_cache.rs), and the start-up
//! that rebuilds every queue's index from the store's summaries without
//! reading a message (src/qmgr/index.rs).

use super::index::{self, MsgIndex};
use super::queue::{Entry, Position};
use super::{Message, QmError, QueueManager, record, store_error};
use crate::store::Store;
use mqgate_codecs::mq::Mqrc;
use std::sync::Arc;

/// 2102 MQRC_RESOURCE_PROBLEM for a stored message that cannot be read back.
fn unreadable(key: u64, what: String) -> QmError {
    QmError::new(
        Mqrc::RESOURCE_PROBLEM,
        format!("stored message {key} cannot be read: {what}"),
    )
}

/// One message as a start finds it in the store: its queue, the priority it
/// was queued at (0-9) and its index entry.
pub(super) struct Found<'a> {
    pub queue: std::borrow::Cow<'a, str>,
    pub priority: u8,
    pub index: MsgIndex,
}

/// The message stored under `key` from its summary; a summary that is
/// empty (the message was stored before summaries existed) costs a read of
/// its record. `Err` names what is wrong with either.
pub(super) fn found<'a>(
    store: &dyn Store,
    key: u64,
    summary: &'a [u8],
) -> Result<Found<'a>, String> {
    if !summary.is_empty() {
        let s = index::decode(summary).map_err(|e| e.to_string())?;
        return Ok(Found {
            queue: s.queue.into(),
            priority: s.priority,
            index: s.index,
        });
    }
    let rec = store
        .read(key)
        .map_err(|e| e.to_string())?
        .ok_or_else(|| "its record is missing".to_string())?;
    let (queue, msg) = record::decode(&rec)?;
    Ok(Found {
        queue: queue.into(),
        priority: msg.md.priority.clamp(0, 9) as u8,
        index: MsgIndex::of(&msg),
    })
}

impl QueueManager {
    /// The MQMD and data of the message `entry` at `pos`: kept in memory,
    /// in the body cache, or read from the store (then cached when `keep`).
    /// Errors: the store cannot be read, or does not hold the message (2102).
    pub(super) fn message_of(
        &self,
        pos: Position,
        entry: &Entry,
        keep: bool,
    ) -> Result<Arc<Message>, QmError> {
        match &entry.resident {
            Some(m) => Ok(Arc::new((**m).clone())),
            None => self.read_stored(pos.1, keep),
        }
    }

    /// The message stored under `key`, from the body cache or the store
    /// (then cached when `keep`).
    pub(super) fn read_stored(&self, key: u64, keep: bool) -> Result<Arc<Message>, QmError> {
        if let Some(m) = self.cache.get(key) {
            return Ok(m);
        }
        let rec = self
            .store
            .read(key)
            .map_err(store_error)?
            .ok_or_else(|| unreadable(key, "the store does not hold it".into()))?;
        let (_, msg) = record::decode(&rec).map_err(|e| unreadable(key, e))?;
        let msg = Arc::new(msg);
        if keep {
            self.cache.insert(key, Arc::clone(&msg));
        }
        Ok(msg)
    }

    /// The body cache's counts (src/qmgr/body_cache.rs).
    pub fn body_cache_stats(&self) -> super::body_cache::CacheStats {
        self.cache.stats()
    }

    /// Records the store read since it was opened (all of them at start-up
    /// when nothing else ran): [`crate::store::Store::read_counts`].
    pub fn store_read_counts(&self) -> crate::store::ReadCounts {
        self.store.read_counts()
    }
}

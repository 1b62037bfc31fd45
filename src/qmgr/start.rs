//! A start: every queue rebuilt from the store's summaries, without reading
//! a message (src/qmgr/stored.rs). The store is read on a thread of its own
//! and hands its summaries over in parts ([`Store::load_index_parts`]), so
//! that the queues are built while the rest is still being read
//! (docs/performance.md "Devices at scale").

use super::object::{Object, Table};
use super::queue::{self, Entry, EntryState, LocalQueue};
use super::{QmError, idle, stats, store_error, stored};
use crate::config::{LocalQueueDef, Usage};
use crate::route::{self, Router};
use crate::store::{IndexPart, Store, Summaries};
use std::sync::Arc;

/// Parts read but not yet built, at most: what the reading thread may run
/// ahead of the building one.
const PARTS_AHEAD: usize = 4;

/// What a start builds the queues with, and what it found.
pub(super) struct Loader<'a> {
    pub table: &'a mut Table,
    pub router: &'a Router,
    pub store: &'a dyn Store,
    /// The definition every device queue shares.
    pub device_def: &'a Arc<LocalQueueDef>,
    pub group_stats: &'a stats::GroupStats,
    pub idle: &'a Arc<idle::IdleList>,
    /// The highest key (sequence number) met.
    pub max_seq: u64,
    /// Messages met.
    pub messages: usize,
    /// Device queues created.
    pub device_queues: usize,
    /// Keys stored without a summary (a file written before summaries
    /// existed): their records are read once the store's reading thread
    /// is done, since a read may wait for the lock that thread holds.
    pub unsummarised: Vec<u64>,
}

impl Loader<'_> {
    /// Reads every summary of the store and builds the queues of their
    /// messages: on a second thread the store's read, on this one the
    /// queues (on this one both when no thread can be started).
    /// Errors: the store cannot be read (2102).
    pub fn load(&mut self) -> Result<(), QmError> {
        let store = self.store;
        let read = std::thread::scope(|scope| {
            let (tx, rx) = std::sync::mpsc::sync_channel::<IndexPart>(PARTS_AHEAD);
            let reader = std::thread::Builder::new()
                .name("mqgate-start".into())
                .spawn_scoped(scope, move || {
                    store.load_index_parts(&mut |part| {
                        // The receiver goes only once this thread ended.
                        let _ = tx.send(part);
                    })
                });
            let Ok(reader) = reader else {
                drop(rx);
                return None;
            };
            for part in rx {
                self.take(part);
            }
            Some(reader.join().unwrap_or_else(|_| {
                Err(crate::store::StoreError::Corrupt {
                    op: "start: read the summaries".into(),
                    key: None,
                    detail: "the reading thread ended in a panic".into(),
                })
            }))
        });
        let read = match read {
            Some(r) => r,
            None => store.load_index_parts(&mut |part| self.take(part)),
        };
        read.map_err(store_error)?;
        for seq in std::mem::take(&mut self.unsummarised) {
            self.place(seq, &[]);
        }
        Ok(())
    }

    /// One part from the store.
    fn take(&mut self, part: IndexPart) {
        match part {
            // Room for a queue per message (a device queue each, at most):
            // no rehash while a million device queues are created; what
            // is not used is given back once the start is done.
            IndexPart::Expect(keys) => self.table.objects.reserve(keys),
            IndexPart::Summaries(s) => self.add(&s),
        }
    }

    /// Places the messages of `part` on their queues, creating the queues.
    fn add(&mut self, part: &Summaries) {
        for (seq, summary) in part.iter() {
            self.max_seq = self.max_seq.max(seq);
            self.messages += 1;
            if summary.is_empty() {
                self.unsummarised.push(seq);
            } else {
                self.place(seq, summary);
            }
        }
    }

    /// Places the message stored under `seq` with `summary` (empty: read
    /// its record) on its queue, creating the queue.
    fn place(&mut self, seq: u64, summary: &[u8]) {
        let found = match stored::found(self.store, seq, summary) {
            Ok(v) => v,
            Err(e) => {
                tracing::error!(key = seq, error = %e, "stored message cannot be read; left in the store");
                return;
            }
        };
        let queue = &*found.queue;
        let pos = queue::position(i32::from(found.priority), seq);
        let entry = Entry::stored(found.index, EntryState::Ready);
        if let Some(Object::Local(lq)) = self.table.objects.get(queue) {
            lq.lock().insert(pos, entry);
            return;
        }
        let mut lq = match self.router.devices().owner(queue) {
            Some(_) => {
                self.device_queues += 1;
                LocalQueue::device(
                    queue.into(),
                    Arc::clone(self.device_def),
                    self.group_stats.of(stats::QueueGroup::Device),
                    Arc::clone(self.idle),
                )
            }
            None => {
                let def = route::model_for(&self.table.models, queue).cloned().unwrap_or_else(|| {
                    tracing::warn!(queue = %queue, "stored messages for a queue no longer defined; recreated as a local queue");
                    LocalQueueDef::with_defaults(queue, Usage::Normal)
                });
                let def = LocalQueueDef {
                    name: queue.to_string(),
                    dynamic_q_name: None,
                    ..def
                };
                LocalQueue::with_stats(def, self.group_stats.of(stats::QueueGroup::Dynamic))
            }
        };
        // Not shared yet: its first message goes in without a lock.
        lq.with_contents_mut(|c| c.insert(pos, entry));
        // The table's key and the queue's name are one allocation.
        let name = Arc::clone(&lq.name);
        self.table.objects.insert(name, Object::Local(Arc::new(lq)));
    }
}

//! Several gateways on one shared store (docs/cluster.md "Several gateways
//! on one stream"): keys no other member allocates, the other gateways'
//! puts, gets and claims applied to this gateway's queues as the store's
//! tail reports them, and a wait until this gateway has seen every change
//! made so far.
//!
//! A key is `(counter << MEMBER_BITS) | member`; the counter is the larger
//! of the last one plus one and the time in microseconds, and is raised
//! past every counter the tail shows, so that a message put through one
//! gateway after another gateway's message was seen sorts after it (FIFO
//! within a priority is key order, src/qmgr/queue.rs).

use super::queue::{self, Entry, EntryState, LocalQueue};
use super::{QueueManager, clock, index};
use crate::log_limit::Repeats;
use crate::store::{Change, MEMBER_BITS};
use std::sync::atomic::Ordering;
use std::sync::{Arc, Condvar, Mutex};
use std::time::Duration;

/// "a message for a queue this gateway does not define", once a minute
/// per queue (src/log_limit.rs): gateways of one stream with other queue
/// definitions would log it for every message.
static UNKNOWN_QUEUE: Repeats = Repeats::per_minute();

/// How long [`QueueManager::catch_up`] waits at most for the tail.
const CATCH_UP: Duration = Duration::from_secs(2);

/// The queue manager's side of a shared store.
pub(super) struct SharedIndex {
    /// This gateway's member number.
    pub member: u64,
    /// The last stream sequence the tail handed over and this gateway
    /// applied.
    seen: Mutex<u64>,
    advanced: Condvar,
}

impl SharedIndex {
    pub fn new(member: u16) -> SharedIndex {
        SharedIndex {
            member: u64::from(member),
            seen: Mutex::new(0),
            advanced: Condvar::new(),
        }
    }

    fn mask() -> u64 {
        (1 << MEMBER_BITS) - 1
    }

    /// True when `key` is one this gateway allocated.
    fn own(&self, key: u64) -> bool {
        key & Self::mask() == self.member
    }
}

impl QueueManager {
    /// The key (and FIFO number) of the next message put: the next
    /// sequence number, or on a shared store a key of this member's.
    pub(super) fn next_key(&self) -> u64 {
        let Some(sh) = &self.shared else {
            return self.next_seq.fetch_add(1, Ordering::SeqCst);
        };
        let now = clock::now_us();
        let previous = self
            .next_seq
            .fetch_update(Ordering::SeqCst, Ordering::SeqCst, |c| Some(c.max(now) + 1))
            .unwrap_or(now);
        (previous.max(now) << MEMBER_BITS) | sh.member
    }

    /// [`QueueManager::next_put_sequence`] on a shared store: the key the
    /// next put takes at the earliest.
    pub(super) fn next_shared_key(&self, sh: &SharedIndex) -> u64 {
        let c = self.next_seq.load(Ordering::SeqCst).max(clock::now_us());
        (c << MEMBER_BITS) | sh.member
    }

    /// Starts applying the other gateways' changes of a shared store to
    /// this gateway's queues, on a thread of its own; nothing for a store
    /// of one gateway. Call once, when the queue manager is shared.
    pub fn follow_shared(self: &Arc<Self>) -> Result<(), super::QmError> {
        let Some(store) = self.store.shared() else {
            return Ok(());
        };
        let rx = store.follow().map_err(super::store_error)?;
        let qm = Arc::downgrade(self);
        std::thread::Builder::new()
            .name("mqgate-shared-index".into())
            .spawn(move || {
                for (seq, change) in rx {
                    let Some(qm) = qm.upgrade() else { return };
                    if let Some(change) = change {
                        qm.apply_change(change);
                    }
                    if let Some(sh) = &qm.shared {
                        let mut seen = sh.seen.lock().unwrap_or_else(|p| p.into_inner());
                        *seen = (*seen).max(seq);
                        sh.advanced.notify_all();
                    }
                }
            })
            .map_err(|e| {
                super::QmError::new(
                    mqgate_codecs::mq::Mqrc::RESOURCE_PROBLEM,
                    format!("cannot start the shared index's thread: {e}"),
                )
            })?;
        Ok(())
    }

    /// Waits (at most 2 s) until this gateway has applied every change the
    /// shared store held when called, so that what it reads next (a
    /// channel's last committed sequence number) and the keys it allocates
    /// next follow the other gateways' last changes. Nothing on a store of
    /// one gateway.
    pub(super) fn catch_up(&self) {
        let (Some(sh), Some(store)) = (&self.shared, self.store.shared()) else {
            return;
        };
        let Ok(target) = store.last_sequence() else {
            return;
        };
        let seen = sh.seen.lock().unwrap_or_else(|p| p.into_inner());
        // A deletion marker that expired leaves the stream's last sequence
        // above the last message the tail can read: bounded wait.
        let _ = sh
            .advanced
            .wait_timeout_while(seen, CATCH_UP, |s| *s < target);
    }

    /// The local queue named `name` for a message another gateway put:
    /// defined, or a device queue created as a put creates it. `None` for a
    /// name this gateway does not know (logged).
    fn queue_for_change(&self, name: &str) -> Option<Arc<LocalQueue>> {
        if let Some(lq) = self.table().local(name) {
            return Some(lq);
        }
        let table = self.table();
        let (q_mgr, q) = table.router.devices().split(name)?;
        let dest = table.router.resolve_one(&*table, q, q_mgr).ok()?;
        self.place(table, dest).queue
    }

    /// Applies one change of the shared store to the queues.
    pub(super) fn apply_change(&self, change: Change) {
        let Some(sh) = &self.shared else { return };
        let (key, summary) = match &change {
            Change::Put { key, summary }
            | Change::Delete { key, summary }
            | Change::Claimed { key, summary, .. }
            | Change::Released { key, summary } => (*key, summary),
        };
        let s = match index::decode(summary) {
            Ok(s) => s,
            Err(e) => {
                tracing::warn!(key, error = %e, "shared store: a message's summary cannot be read; not shown here");
                return;
            }
        };
        let pos = queue::position(i32::from(s.priority), key);
        let own = sh.own(key);
        if !own {
            self.next_seq
                .fetch_max((key >> MEMBER_BITS) + 1, Ordering::SeqCst);
        }
        let lq = match &change {
            Change::Put { .. } if !own => self.queue_for_change(s.queue),
            _ => self.table().local(s.queue),
        };
        let Some(lq) = lq else {
            if !own
                && matches!(change, Change::Put { .. })
                && let Some(suppressed) = UNKNOWN_QUEUE.admit(s.queue)
            {
                tracing::warn!(
                    queue = s.queue,
                    key,
                    suppressed,
                    "shared store: a message for a queue this gateway does not define; not shown here"
                );
            }
            return;
        };
        let mut contents = lq.lock();
        let mut wake = false;
        match change {
            Change::Put { .. } => match contents.get_mut(&pos) {
                // Written again (a backout elsewhere): its new BackoutCount.
                Some(e) if e.index.backout_count != s.index.backout_count => {
                    e.index.backout_count = s.index.backout_count;
                    self.cache.remove(key);
                }
                Some(_) => {}
                None if !own => {
                    contents.insert(pos, Entry::stored(s.index, EntryState::Ready));
                    wake = true;
                }
                // This gateway's own put, already removed again.
                None => {}
            },
            Change::Delete { .. } => {
                let mine = contents.get(&pos).is_some_and(|e| {
                    matches!(e.state, EntryState::Getting(_) | EntryState::Putting(_))
                });
                if !mine {
                    contents.remove(&pos);
                }
                self.cache.remove(key);
            }
            Change::Claimed { ttl_ms, .. } => {
                if let Some(e) = contents.get_mut(&pos)
                    && matches!(e.state, EntryState::Ready | EntryState::Elsewhere(_))
                {
                    e.state = EntryState::Elsewhere(clock::now_ms() + ttl_ms);
                }
            }
            Change::Released { .. } => {
                if let Some(e) = contents.get_mut(&pos)
                    && matches!(e.state, EntryState::Elsewhere(_))
                {
                    e.state = EntryState::Ready;
                    wake = true;
                }
            }
        }
        drop(contents);
        if wake {
            lq.notify().notify_waiters();
        }
    }
}

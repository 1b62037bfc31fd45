//! Device queues exist only while they are needed: while they hold a
//! message, a unit of work or a call in progress holds them, or a getter
//! waits on them (docs/performance.md "Devices at scale"). A million devices
//! that were each sent a message and have taken it cost nothing afterwards
//! beyond the spare room of the object table's hash map.
//!
//! A device queue left without a message — by an acknowledgement, a
//! backout of the put that created it, an expiry, a put that failed after
//! creating it — joins the idle list when its lock is let go
//! ([`crate::qmgr::queue::LocalQueue::lock`]); an acknowledgement touches
//! no object table for it. The gateway's trim task (src/gateway/trim.rs)
//! sweeps the list ([`QueueManager::retire_idle_queues`]): under the object
//! table's write lock, a queue still empty that nothing but the table holds
//! is removed from the table and from its device's queues. A queue held
//! (a waiting pull, a lease, a put in progress) stays on the list for the
//! next sweep; one that received a message leaves the list and joins it
//! again when next emptied.
//!
//! Nothing an operator reads is lost: puts and gets of device queues are
//! counted per group, not per queue (src/qmgr/stats.rs); an empty queue has
//! no message age; sequence numbers are the queue manager's. A get or
//! browse of a device queue that does not exist answers as an empty queue
//! (2033) and a waiting get waits for the queue to be created; the next
//! message for the device creates the queue again.

use super::QueueManager;
use super::object::Object;
use super::queue::LocalQueue;
use std::sync::{Arc, Mutex, MutexGuard, Weak};

/// Device queues left without a message since the last sweep (or kept by
/// it because something held them), each once.
#[derive(Default)]
pub struct IdleList {
    queues: Mutex<Vec<Weak<LocalQueue>>>,
}

impl IdleList {
    /// Adds `queue` (its caller holds its lock and has marked it listed).
    pub fn push(&self, queue: Weak<LocalQueue>) {
        self.lock().push(queue);
    }

    /// How many queues are on the list.
    pub fn len(&self) -> usize {
        self.lock().len()
    }

    fn lock(&self) -> MutexGuard<'_, Vec<Weak<LocalQueue>>> {
        self.queues.lock().unwrap_or_else(|p| p.into_inner())
    }
}

/// Queues looked at under one hold of the object table's write lock, so
/// that a sweep of many queues lets puts and gets through between chunks.
const CHUNK: usize = 1024;

impl QueueManager {
    /// Retires every device queue on the idle list that is still empty and
    /// held by nothing but the object table (module documentation); keeps
    /// on the list the empty ones something holds. Returns how many queues
    /// were retired. O(queues on the list); the object table is write-locked
    /// for at most [`CHUNK`] of them at a time.
    pub fn retire_idle_queues(&self) -> usize {
        let candidates = std::mem::take(&mut *self.idle.lock());
        let mut kept = Vec::new();
        let mut retired = 0;
        for chunk in candidates.chunks(CHUNK) {
            let mut table = self.table_mut();
            let mut devices = self.devices();
            for weak in chunk {
                let Some(lq) = weak.upgrade() else {
                    continue;
                };
                let mut contents = lq.lock();
                if contents.depth() > 0 {
                    // Joins the list again when next emptied.
                    contents.idle_listed = false;
                    continue;
                }
                // The table's reference and this one: nothing else holds
                // the queue, and nothing can take it from the table while
                // the table is locked for writing.
                if Arc::strong_count(&lq) > 2 {
                    kept.push(weak.clone());
                    continue;
                }
                let name = &*lq.name;
                let in_table = matches!(
                    table.objects.get(name),
                    Some(Object::Local(q)) if Arc::ptr_eq(q, &lq)
                );
                if !in_table {
                    continue;
                }
                table.objects.remove(name);
                if let Some(device) = table.router.devices().owner(name) {
                    devices.remove(device, name.get(device.len() + 1..).unwrap_or_default());
                }
                retired += 1;
                tracing::debug!(queue = %name, "device queue retired");
            }
            // The maps give back their room once they are mostly empty
            // (not before: a steady flow of devices reuses it).
            let len = table.objects.len();
            if table.objects.capacity() > 4 * len + 64 {
                table.objects.shrink_to(2 * len);
            }
            devices.shrink();
        }
        if !kept.is_empty() {
            self.idle.lock().extend(kept);
        }
        retired
    }

    /// Device queues waiting on the idle list for the next sweep.
    pub fn idle_queues(&self) -> usize {
        self.idle.len()
    }
}

//! The queues of each device queue manager, and a notification per device
//! that fires when one of its queues is created: what a transport that
//! serves all of a device's queues at once (an MQTT wildcard subscription,
//! docs/mqtt.md) waits on, and what a wait for one device queue sleeps on,
//! so that the first message for one device wakes only that device's
//! waiters, however many devices wait (no scan of every queue, no
//! wake-up of every waiter).
//!
//! A start that finds device queues in the store does not build the index:
//! the first call that needs it (a device watch, a device's queue list)
//! builds it from the object table, once, so that a start with a million
//! device queues does not pay for an index no transport may ask for
//! (docs/performance.md "Devices at scale").

use super::QueueManager;
use super::object::Object;
use std::sync::{Arc, MutexGuard};
use tokio::sync::watch;

/// Device queue manager -> its queues (the part after `QMGR/`, in creation
/// order) and, while someone watches the device, a counter of them that
/// the watchers follow (a `watch` channel: a watcher never misses a
/// creation between two looks). An entry lives while the device has a
/// queue or someone watches it; the channel only while someone watches,
/// so a device nobody waits for costs its name and its queues' names.
/// Device names come from outside (HTTP paths, channels): the map's hasher
/// is foldhash, seeded at random per process and per map.
#[derive(Default)]
pub(super) struct DeviceIndex {
    map: foldhash::HashMap<Box<str>, DeviceQueues>,
    /// False after a start that created device queues, until the index is
    /// built from the object table ([`QueueManager::device_index`]); while
    /// false, additions and removals are left to that build.
    built: bool,
}

#[derive(Default)]
struct DeviceQueues {
    queues: Vec<Box<str>>,
    created: Option<watch::Sender<usize>>,
}

impl DeviceIndex {
    /// An index that is complete (`built`), or one to be built from the
    /// object table when first needed.
    pub fn new(built: bool) -> Self {
        DeviceIndex {
            map: foldhash::HashMap::default(),
            built,
        }
    }

    /// Records queue `queue` of `device` (once) and wakes the device's watchers.
    pub fn add(&mut self, device: &str, queue: &str) {
        if !self.built {
            return;
        }
        let entry = match self.map.get_mut(device) {
            Some(e) => e,
            None => self.map.entry(device.into()).or_default(),
        };
        if !entry.queues.iter().any(|q| &**q == queue) {
            // Most devices have one queue: a vector of exactly one.
            entry.queues.reserve_exact(1);
            entry.queues.push(queue.into());
            if let Some(created) = &entry.created {
                created.send_modify(|n| *n += 1);
            }
        }
    }

    /// Forgets queue `queue` of `device` (retired, src/qmgr/idle.rs); the
    /// device's entry goes with its last queue unless someone watches it.
    pub fn remove(&mut self, device: &str, queue: &str) {
        if !self.built {
            return;
        }
        let Some(d) = self.map.get_mut(device) else {
            return;
        };
        d.queues.retain(|q| &**q != queue);
        if d.queues.is_empty() && d.created.is_none() {
            self.map.remove(device);
        }
    }

    /// Forgets the queues of every device `is_device` no longer accepts
    /// (a reload changed the device patterns); a watched one keeps its
    /// entry, empty, until its last watcher goes.
    pub fn retain_devices(&mut self, is_device: impl Fn(&str) -> bool) {
        self.map.retain(|device, d| {
            if is_device(device) {
                return true;
            }
            d.queues.clear();
            d.created.is_some()
        });
    }

    /// Gives back the map's room once it is mostly empty.
    pub fn shrink(&mut self) {
        let len = self.map.len();
        if self.map.capacity() > 4 * len + 64 {
            self.map.shrink_to(2 * len);
        }
    }

    fn queues(&self, device: &str) -> Vec<String> {
        self.map
            .get(device)
            .map(|d| d.queues.iter().map(|q| q.to_string()).collect())
            .unwrap_or_default()
    }

    fn watch(&mut self, device: &str) -> watch::Receiver<usize> {
        let entry = self.map.entry(device.into()).or_default();
        let count = entry.queues.len();
        entry
            .created
            .get_or_insert_with(|| watch::channel(count).0)
            .subscribe()
    }

    /// When the watcher being dropped is the last of `device`, drops the
    /// device's channel, and its entry too when it has no queue.
    fn unwatch(&mut self, device: &str) {
        let Some(d) = self.map.get_mut(device) else {
            return;
        };
        if d.created.as_ref().is_some_and(|c| c.receiver_count() <= 1) {
            d.created = None;
        }
        if d.queues.is_empty() && d.created.is_none() {
            self.map.remove(device);
        }
    }
}

/// A watch on the queues of one device ([`QueueManager::watch_device`]):
/// [`DeviceWatch::changed`] resolves when a queue of the device was created
/// since the watch began or since it last resolved.
pub struct DeviceWatch {
    qm: Arc<QueueManager>,
    device: String,
    rx: watch::Receiver<usize>,
}

impl DeviceWatch {
    /// Resolves once a queue of the device has been created since the last
    /// call (or since the watch began).
    pub async fn changed(&mut self) {
        if self.rx.changed().await.is_err() {
            std::future::pending::<()>().await;
        }
    }
}

impl Drop for DeviceWatch {
    fn drop(&mut self) {
        self.qm.devices().unwatch(&self.device);
    }
}

/// [`DeviceWatch`] borrowing the queue manager, for a wait inside it.
pub(super) struct BorrowedWatch<'a> {
    qm: &'a QueueManager,
    device: String,
    pub rx: watch::Receiver<usize>,
}

impl Drop for BorrowedWatch<'_> {
    fn drop(&mut self) {
        self.qm.devices().unwatch(&self.device);
    }
}

impl QueueManager {
    /// The queues device queue manager `device` has (the names after
    /// `QMGR/`, in the order they were created; none before its first
    /// message). O(queues of the device).
    pub fn device_queues(&self, device: &str) -> Vec<String> {
        self.device_index().queues(device)
    }

    /// The device index, built first from the object table when a start
    /// left it to be built (module documentation): O(objects) once, under
    /// the table's read lock (taken before the index's, as everywhere).
    /// The device queues a start found come in name order per device.
    fn device_index(&self) -> MutexGuard<'_, DeviceIndex> {
        {
            let index = self.devices();
            if index.built {
                return index;
            }
        }
        let table = self.table();
        let mut index = self.devices();
        if !index.built {
            let mut found: Vec<(&str, &str)> = table
                .objects
                .iter()
                .filter(|(_, o)| matches!(o, Object::Local(q) if q.is_device()))
                .filter_map(|(name, _)| {
                    let device = table.router.devices().owner(name)?;
                    Some((device, name.get(device.len() + 1..)?))
                })
                .collect();
            found.sort_unstable();
            index.built = true;
            for (device, queue) in found {
                index.add(device, queue);
            }
        }
        index
    }

    /// Watches for new queues of `device` (the caller checked that it is a
    /// device queue manager).
    pub fn watch_device(self: &Arc<Self>, device: &str) -> DeviceWatch {
        let rx = self.device_index().watch(device);
        DeviceWatch {
            qm: Arc::clone(self),
            device: device.to_string(),
            rx,
        }
    }

    pub(super) fn watch_device_borrowed(&self, device: &str) -> BorrowedWatch<'_> {
        let rx = self.device_index().watch(device);
        BorrowedWatch {
            qm: self,
            device: device.to_string(),
            rx,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_device_has_a_channel_only_while_watched_and_watchers_see_each_new_queue() {
        let mut index = DeviceIndex::new(true);
        index.add("DEV1", "INBOX");
        assert!(index.map["DEV1"].created.is_none());
        let mut first = index.watch("DEV1");
        let second = index.watch("DEV1");
        // The count starts at the queues the device has.
        assert_eq!(*first.borrow_and_update(), 1);
        index.add("DEV1", "INBOX");
        assert!(
            !first.has_changed().unwrap(),
            "a queue recorded twice is one queue"
        );
        index.add("DEV1", "OUTBOX");
        assert!(first.has_changed().unwrap());
        assert_eq!(*first.borrow_and_update(), 2);
        assert_eq!(index.queues("DEV1"), ["INBOX", "OUTBOX"]);
        // Dropping a watcher: unwatch runs before its receiver goes.
        index.unwatch("DEV1");
        drop(second);
        assert!(index.map["DEV1"].created.is_some(), "one watcher is left");
        index.unwatch("DEV1");
        drop(first);
        assert!(index.map["DEV1"].created.is_none());
        // A device watched before it has a queue loses its entry with its
        // last watcher.
        let w = index.watch("DEV2");
        index.unwatch("DEV2");
        drop(w);
        assert!(!index.map.contains_key("DEV2"));
    }

    #[test]
    fn a_retired_queue_leaves_its_device_and_the_last_one_takes_the_device_along() {
        let mut index = DeviceIndex::new(true);
        index.add("DEV1", "INBOX");
        index.add("DEV1", "OUTBOX");
        index.add("DEV2", "INBOX");
        index.remove("DEV1", "INBOX");
        assert_eq!(index.queues("DEV1"), ["OUTBOX"]);
        index.remove("DEV1", "OUTBOX");
        assert!(!index.map.contains_key("DEV1"));
        // A watched device keeps its entry (and its channel) without a
        // queue; a watcher sees the queue created again.
        let mut w = index.watch("DEV2");
        w.borrow_and_update();
        index.remove("DEV2", "INBOX");
        assert!(index.map.contains_key("DEV2"));
        index.add("DEV2", "INBOX");
        assert!(w.has_changed().unwrap());
        assert_eq!(index.queues("DEV2"), ["INBOX"]);
        index.unwatch("DEV2");
        drop(w);
        index.remove("DEV2", "INBOX");
        assert!(index.map.is_empty());
    }
}

//! The queues of each device queue manager, and a notification per device
//! that fires when one of its queues is created: what a transport that
//! serves all of a device's queues at once (an MQTT wildcard subscription,
//! docs/mqtt.md) waits on, and what a wait for one device queue sleeps on,
//! so that the first message for one device wakes only that device's
//! waiters, however many devices wait (no scan of every queue, no
//! wake-up of every waiter).

use super::QueueManager;
use std::collections::HashMap;
use std::sync::Arc;
use tokio::sync::watch;

/// Device queue manager -> its queues (the part after `QMGR/`, in creation
/// order) and a counter of them that watchers follow (a `watch` channel:
/// a watcher never misses a creation between two looks). An entry lives
/// while the device has a queue or someone watches it.
#[derive(Default)]
pub(super) struct DeviceIndex {
    map: HashMap<String, DeviceQueues>,
}

struct DeviceQueues {
    queues: Vec<String>,
    created: watch::Sender<usize>,
}

impl Default for DeviceQueues {
    fn default() -> Self {
        DeviceQueues {
            queues: Vec::new(),
            created: watch::channel(0).0,
        }
    }
}

impl DeviceIndex {
    /// Records queue `queue` of `device` (once) and wakes the device's watchers.
    pub fn add(&mut self, device: &str, queue: &str) {
        let entry = self.map.entry(device.to_string()).or_default();
        if !entry.queues.iter().any(|q| q == queue) {
            entry.queues.push(queue.to_string());
            entry.created.send_modify(|n| *n += 1);
        }
    }

    fn queues(&self, device: &str) -> Vec<String> {
        self.map
            .get(device)
            .map(|d| d.queues.clone())
            .unwrap_or_default()
    }

    fn watch(&mut self, device: &str) -> watch::Receiver<usize> {
        self.map
            .entry(device.to_string())
            .or_default()
            .created
            .subscribe()
    }

    /// Drops the entry of `device` when it has no queue and the watcher
    /// being dropped is its last.
    fn unwatch(&mut self, device: &str) {
        if let Some(d) = self.map.get(device)
            && d.queues.is_empty()
            && d.created.receiver_count() <= 1
        {
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
        self.devices().queues(device)
    }

    /// Watches for new queues of `device` (the caller checked that it is a
    /// device queue manager).
    pub fn watch_device(self: &Arc<Self>, device: &str) -> DeviceWatch {
        let rx = self.devices().watch(device);
        DeviceWatch {
            qm: Arc::clone(self),
            device: device.to_string(),
            rx,
        }
    }

    pub(super) fn watch_device_borrowed(&self, device: &str) -> BorrowedWatch<'_> {
        let rx = self.devices().watch(device);
        BorrowedWatch {
            qm: self,
            device: device.to_string(),
            rx,
        }
    }
}

//! Routing: where a message for (ObjectName, ObjectQMgrName) goes.
//!
//! Pure logic over a view of the object definitions ([`Objects`]): MQ's name
//! resolution order ([`mq`]), device queue managers and their `QMGR/QUEUE`
//! queues ([`devices`]), and destination lists resolved one record at a time
//! ([`list`]). Nothing here reads queue contents, locks, stores or waits; a
//! queue that must be created first (a dynamic queue from a model, a device
//! queue) is a [`Destination::Create`] decision the queue manager carries out.
//!
//! Sources: IBM MQ documentation "Name resolution", "Opening remote queues",
//! "Queue manager alias definitions", IBM MQ documentation "Distribution
//! lists", docs/config.md `devices`.

pub mod devices;
pub mod list;
mod mq;
pub mod view;

#[cfg(test)]
mod tests;

pub use devices::DeviceQueueManagers;
pub use list::{DestinationList, ObjectRecord};
pub use view::{ObjectDef, Objects, model_for};

use crate::config::{Config, LocalQueueDef};

/// RemoteQName and RemoteQMgrName of the MQXQH a message travels behind on a
/// transmission queue (IBM MQ "Queue manager alias definitions": a queue
/// manager alias's rename shows here).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct RemoteName {
    /// RemoteQName: the queue at the destination queue manager.
    pub remote_q_name: String,
    /// RemoteQMgrName: the destination queue manager.
    pub remote_q_mgr_name: String,
}

impl RemoteName {
    fn new(remote_q_name: &str, remote_q_mgr_name: &str) -> Self {
        RemoteName {
            remote_q_name: remote_q_name.to_string(),
            remote_q_mgr_name: remote_q_mgr_name.to_string(),
        }
    }
}

/// Why a queue is created on first use.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Origin {
    /// A dynamic queue from the model queue named `model`, whose DynamicQName
    /// matched (IBM MQ "ObjectName (MQCHAR48) for MQOD": a model queue creates
    /// a dynamic queue).
    Model { model: String },
    /// The queue of device queue manager `q_mgr` (docs/config.md `devices`).
    Device { q_mgr: String },
}

/// A local queue the queue manager creates before it is used: `def` carries
/// the name and every attribute.
#[derive(Clone, Debug)]
pub struct NewQueue {
    pub def: LocalQueueDef,
    pub origin: Origin,
}

/// Where one resolved name goes.
#[derive(Clone, Debug)]
pub enum Destination {
    /// The object named `queue`, which exists: a local queue (named directly
    /// or the base queue of an alias), or for a device queue name already
    /// taken by a definition, that definition as it is.
    Local { queue: String },
    /// A local queue that does not exist yet: the queue manager creates it
    /// (unless it appeared in the meantime), then uses it.
    Create(NewQueue),
    /// The transmission queue `xmit_q`: the message is put there behind an
    /// MQXQH naming `remote`.
    Transmit { xmit_q: String, remote: RemoteName },
}

/// The router: this queue manager's name, its default transmission queue
/// (DEFXMITQ) and its device queue managers. Holds no queue objects; each
/// call reads them through an [`Objects`] view.
#[derive(Clone, Debug)]
pub struct Router {
    q_mgr_name: String,
    default_xmit_queue: String,
    devices: DeviceQueueManagers,
}

impl Router {
    /// The router of `config`: `queue_manager.name`,
    /// `queue_manager.default_xmit_queue` (empty = none) and `devices`.
    pub fn from_config(config: &Config) -> Self {
        let qm = &config.queue_manager;
        Router {
            q_mgr_name: qm.name.clone(),
            default_xmit_queue: qm.default_xmit_queue.clone(),
            devices: DeviceQueueManagers::new(&qm.name, &config.devices),
        }
    }

    /// `router` with the device queue managers of `devices` instead of its
    /// own (a configuration reload, docs/operations.md "Reloading the
    /// configuration"); `q_mgr_name` is this queue manager's name.
    pub fn with_devices(
        router: &Router,
        q_mgr_name: &str,
        devices: &crate::config::DevicesConfig,
    ) -> Router {
        Router {
            devices: DeviceQueueManagers::new(q_mgr_name, devices),
            ..router.clone()
        }
    }

    /// The device queue managers.
    pub fn devices(&self) -> &DeviceQueueManagers {
        &self.devices
    }
}

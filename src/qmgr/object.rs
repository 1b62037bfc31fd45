//! Queue objects as the queue manager holds them, the router's view of them
//! (crate::route::Objects), and carrying out a routing decision.

use super::QueueManager;
use super::queue::LocalQueue;
use crate::config::{AliasQueueDef, LocalQueueDef, RemoteQueueDef, Usage};
use crate::route::{Destination, NewQueue, ObjectDef, Objects, Origin, RemoteName};
use std::sync::{Arc, RwLockReadGuard};

/// A queue object. A local queue is shared: a unit of work holds the
/// queues of its messages directly, so its commit or backout never looks
/// a name up again. Definitions are boxed so that every entry of the
/// object table is two words, however many device queues it holds.
#[derive(Debug)]
pub(super) enum Object {
    Local(Arc<LocalQueue>),
    Model,
    Remote(Box<RemoteQueueDef>),
    Alias(Box<AliasQueueDef>),
}

impl Object {
    /// The type as `GET /v1/queues` names it.
    pub fn kind(&self) -> &'static str {
        match self {
            Object::Local(q) if q.def.usage == Usage::Xmitq => "xmitq",
            Object::Local(_) => "local",
            Object::Model => "model",
            Object::Remote(r) if r.remote_q_name.is_none() => "qmgr_alias",
            Object::Remote(_) => "remote",
            Object::Alias(_) => "alias",
        }
    }
}

/// The object table: every object by name, and the model queues. Read
/// (shared) for every lookup, written only to create or delete a queue.
/// Names come from outside (HTTP paths, channels, MQ clients): the map's
/// hasher is foldhash, seeded at random per process and per map, so names
/// chosen to collide cannot be prepared in advance; it hashes a queue name
/// in a fraction of SipHash's time (docs/performance.md "Devices at scale").
pub(super) struct Table {
    pub objects: foldhash::HashMap<Arc<str>, Object>,
    /// Model queues in definition order: the first whose pattern matches wins.
    pub models: Vec<LocalQueueDef>,
    /// Notified whenever a queue other than a device queue is created on
    /// first use (a dynamic queue): what [`QueueManager::wait_for_object`]
    /// sleeps on.
    pub created: Arc<tokio::sync::Notify>,
    /// Name resolution, with the device queue managers, replaced by a
    /// configuration reload ([`QueueManager::redefine_devices`]) under the
    /// table's write lock, so a resolution sees the patterns of one
    /// configuration and the objects of one moment.
    pub router: crate::route::Router,
}

impl Table {
    /// The local queue named `name`, if there is one.
    pub fn local(&self, name: &str) -> Option<Arc<LocalQueue>> {
        match self.objects.get(name) {
            Some(Object::Local(q)) => Some(Arc::clone(q)),
            _ => None,
        }
    }
}

impl Objects for Table {
    fn object(&self, name: &str) -> Option<ObjectDef<'_>> {
        self.objects.get(name).map(|o| match o {
            Object::Local(q) => ObjectDef::Local(&q.def),
            Object::Model => ObjectDef::Model,
            Object::Remote(r) => ObjectDef::Remote(r.as_ref()),
            Object::Alias(a) => ObjectDef::Alias(a.as_ref()),
        })
    }

    fn models(&self) -> &[LocalQueueDef] {
        &self.models
    }
}

/// Where a routing decision leads: the local queue (`None` when the name
/// is no local queue), its name, and the MQXQH names when it is a
/// transmission queue.
pub(super) struct Placed {
    pub queue: Option<Arc<LocalQueue>>,
    pub name: String,
    pub remote: Option<RemoteName>,
}

impl QueueManager {
    /// Carries out routing decision `dest`, made under `table`: creates the
    /// queue a [`Destination::Create`] asks for (once; the table is written
    /// only then), and returns the local queue the message goes to.
    pub(super) fn place(&self, table: RwLockReadGuard<'_, Table>, dest: Destination) -> Placed {
        match dest {
            Destination::Local { queue } => Placed {
                queue: table.local(&queue),
                name: queue,
                remote: None,
            },
            Destination::Transmit { xmit_q, remote } => Placed {
                queue: table.local(&xmit_q),
                name: xmit_q,
                remote: Some(remote),
            },
            Destination::Create(NewQueue { def, origin }) => {
                let name = def.name.clone();
                if let Some(q) = table.local(&name) {
                    return Placed {
                        queue: Some(q),
                        name,
                        remote: None,
                    };
                }
                drop(table);
                let group = match origin {
                    Origin::Device { .. } => super::stats::QueueGroup::Device,
                    Origin::Model { .. } => super::stats::QueueGroup::Dynamic,
                };
                let stats = self.group_stats.of(group);
                let queue = create(&mut self.table_mut(), self, def, &origin, stats);
                Placed {
                    queue,
                    name,
                    remote: None,
                }
            }
        }
    }
}

/// Creates queue `def` from `origin` in `table` unless another call did
/// meanwhile; the local queue of that name.
fn create(
    table: &mut Table,
    qm: &QueueManager,
    def: LocalQueueDef,
    origin: &Origin,
    stats: Arc<super::stats::QueueStats>,
) -> Option<Arc<LocalQueue>> {
    if let Some(obj) = table.objects.get(def.name.as_str()) {
        return match obj {
            Object::Local(q) => Some(Arc::clone(q)),
            _ => None,
        };
    }
    let q = match origin {
        Origin::Model { .. } => Arc::new(LocalQueue::with_stats(def, stats)),
        Origin::Device { .. } => {
            // The devices' definition, shared (the router's differs in
            // its name only, src/route/devices.rs).
            let q = Arc::new(LocalQueue::device(
                def.name.into(),
                Arc::clone(&qm.device_def),
                stats,
                Arc::clone(&qm.idle),
            ));
            // Empty until its first message: on the idle list from the
            // start, so a put that fails after creating it leaves nothing.
            drop(q.lock());
            q
        }
    };
    // The table's key and the queue's name are one allocation.
    let name = Arc::clone(&q.name);
    table
        .objects
        .insert(Arc::clone(&name), Object::Local(Arc::clone(&q)));
    match origin {
        Origin::Model { model } => {
            tracing::debug!(queue = %name, model = %model, "dynamic queue created");
            table.created.notify_waiters();
        }
        Origin::Device { q_mgr } => {
            // Device queues wake their device's waiters only.
            tracing::debug!(queue = %name, device = %q_mgr, "device queue created");
            let tail = name.get(q_mgr.len() + 1..).unwrap_or_default();
            qm.devices().add(q_mgr, tail);
        }
    }
    Some(q)
}

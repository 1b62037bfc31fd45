//! Queue definitions changed while the queue manager runs (a configuration
//! reload, docs/operations.md "Reloading the configuration"), as IBM MQ's
//! DEFINE, ALTER and DELETE of queue objects do: a new definition is
//! defined, a changed one altered (the messages stay), and one that is
//! gone deleted only when its queue is empty (IBM MQ "DELETE queues": a
//! local queue holding messages is not deleted, 2055 MQRC_Q_NOT_EMPTY).

use super::object::Object;
use super::queue::LocalQueue;
use super::{QmError, QueueManager};
use crate::config::QueueDef;
use mqgate_codecs::mq::Mqrc;
use std::sync::Arc;

/// What [`QueueManager::redefine`] did, each list by queue name in the
/// order of the definitions.
#[derive(Debug, Default, Clone, PartialEq, Eq)]
pub struct Redefined {
    /// Objects that did not exist and were defined.
    pub defined: Vec<String>,
    /// Objects whose definition changed (attributes or type).
    pub altered: Vec<String>,
    /// Objects deleted: their definition is gone and, for a local queue,
    /// it was empty.
    pub deleted: Vec<String>,
    /// Changes not made, with the reason: a local queue that still holds
    /// messages is neither deleted nor changed into another type (2055
    /// MQRC_Q_NOT_EMPTY); it stays as it was.
    pub kept: Vec<(String, QmError)>,
}

impl Redefined {
    /// True when nothing changed and nothing was refused.
    pub fn is_empty(&self) -> bool {
        self.defined.is_empty()
            && self.altered.is_empty()
            && self.deleted.is_empty()
            && self.kept.is_empty()
    }
}

/// 2055 for local queue `name` holding `depth` messages (committed or
/// not, as IBM MQ counts them for DELETE QLOCAL).
fn not_empty(name: &str, depth: usize, what: &str) -> QmError {
    QmError::new(
        Mqrc::Q_NOT_EMPTY,
        format!("queue {name} holds {depth} message(s) (committed or not): {what}"),
    )
}

impl QueueManager {
    /// Moves the defined queues from `old` (the definitions in force, from
    /// [`crate::config::Config::effective_queues`]) to `new`. Queues
    /// created at run time (device, dynamic, temporary queues) are not
    /// touched unless `new` defines their name. The object table is held
    /// for the whole change, so a call sees the old definitions or the new
    /// ones; a call that found a local queue before keeps it (a put to a
    /// queue deleted meanwhile fails with 2052 MQRC_Q_DELETED).
    pub fn redefine(&self, old: &[QueueDef], new: &[QueueDef]) -> Redefined {
        let mut out = Redefined::default();
        let mut table = self.table_mut();
        table.models = new
            .iter()
            .filter_map(|d| match d {
                QueueDef::Model(m) => Some(m.clone()),
                _ => None,
            })
            .collect();
        for def in new {
            let name = def.name();
            if old.iter().any(|o| o == def) && table.objects.contains_key(name) {
                continue;
            }
            let existing = table.objects.get(name);
            let object = match (existing, def) {
                (Some(Object::Local(q)), QueueDef::Local(d)) => {
                    Object::Local(Arc::new(q.altered(d.clone())))
                }
                (Some(Object::Local(q)), _) => {
                    let depth = q.lock().depth();
                    if depth > 0 {
                        out.kept.push((
                            name.to_string(),
                            not_empty(name, depth, "it stays a local queue"),
                        ));
                        continue;
                    }
                    q.lock().deleted = true;
                    q.notify().notify_waiters();
                    new_object(def)
                }
                _ => new_object(def),
            };
            if existing.is_some() {
                out.altered.push(name.to_string());
            } else {
                out.defined.push(name.to_string());
            }
            // A local queue's name and the table's key are one allocation.
            let key: Arc<str> = match &object {
                Object::Local(q) => Arc::clone(&q.name),
                _ => Arc::from(name),
            };
            table.objects.insert(key, object);
            if let Some(Object::Local(q)) = table.objects.get(name) {
                // A lifted GET(DISABLED) or a new queue: waiting getters look again.
                q.notify().notify_waiters();
            }
        }
        table.created.notify_waiters();
        for def in old {
            let name = def.name();
            if new.iter().any(|n| n.name() == name) {
                continue;
            }
            if let Some(Object::Local(q)) = table.objects.get(name) {
                let mut contents = q.lock();
                let depth = contents.depth();
                if depth > 0 {
                    drop(contents);
                    out.kept.push((
                        name.to_string(),
                        not_empty(name, depth, "its definition stays until it is empty"),
                    ));
                    continue;
                }
                contents.deleted = true;
                drop(contents);
                q.notify().notify_waiters();
            }
            if table.objects.remove(name).is_some() {
                out.deleted.push(name.to_string());
            }
        }
        out
    }
}

/// The object of definition `def`, a local queue empty.
fn new_object(def: &QueueDef) -> Object {
    match def {
        QueueDef::Local(d) => Object::Local(Arc::new(LocalQueue::new(d.clone()))),
        QueueDef::Model(_) => Object::Model,
        QueueDef::Remote(d) => Object::Remote(Box::new(d.clone())),
        QueueDef::Alias(d) => Object::Alias(Box::new(d.clone())),
    }
}

impl QueueManager {
    /// Puts the `devices` section `config` in force (a configuration
    /// reload): the device queue manager name patterns for every name
    /// resolved from now on, and MAXDEPTH for every later put onto a
    /// device queue, those that exist included (as IBM MQ "ALTER queues":
    /// messages already queued stay, even above a lower MAXDEPTH). A
    /// device queue whose queue manager no longer matches a pattern keeps
    /// its messages as a local queue of its name `QMGR/QUEUE`, as a start
    /// with the new patterns would load it; a new pattern's devices get
    /// queues from their first message. Returns true when anything
    /// changed.
    pub fn redefine_devices(&self, config: &crate::config::DevicesConfig) -> bool {
        let depth = self
            .device_max_depth
            .swap(config.max_depth, std::sync::atomic::Ordering::Relaxed);
        let mut table = self.table_mut();
        let router = crate::route::Router::with_devices(&table.router, &self.name, config);
        let patterns_changed =
            format!("{:?}", router.devices()) != format!("{:?}", table.router.devices());
        if patterns_changed {
            table.router = router;
            // Devices gone leave the index (their watchers keep their
            // channel until they let it go).
            let mut index = self.devices();
            let devices = table.router.devices();
            index.retain_devices(|device| devices.is_device(device));
        }
        patterns_changed || depth != config.max_depth
    }
}

//! Temporary dynamic queues created and deleted at run time by their owner
//! (IBM MQ "Dynamic queues", "Properties of temporary dynamic queues"): they
//! hold non-persistent messages only, so nothing of them is in the store,
//! and deleting one discards what is on it. The MessageQ temporary queues of
//! `pams_attach_q` (src/sbs/attach.rs) are such queues.

use super::object::Object;
use super::queue::LocalQueue;
use super::{QmError, QueueManager, names};
use crate::config::LocalQueueDef;
use mqgate_codecs::mq::Mqrc;
use std::sync::Arc;

impl QueueManager {
    /// Creates the temporary dynamic queue `def.name` with the attributes of
    /// `def` (its `temporary` set whatever `def` says).
    ///
    /// Errors: 2161/2162 while stopping; 2152 MQRC_OBJECT_NAME_ERROR for a
    /// name that is no MQ queue name; 2100 MQRC_OBJECT_ALREADY_EXISTS when an
    /// object of that name is defined or was created.
    pub fn create_temporary(&self, def: LocalQueueDef) -> Result<(), QmError> {
        self.check_running()?;
        names::check_q_name(&def.name)?;
        let mut table = self.table_mut();
        if table.objects.contains_key(def.name.as_str()) {
            return Err(QmError::new(
                Mqrc::OBJECT_ALREADY_EXISTS,
                format!("an object named {} exists", def.name),
            ));
        }
        let def = LocalQueueDef {
            temporary: true,
            dynamic_q_name: None,
            ..def
        };
        let stats = self.group_stats.of(super::stats::QueueGroup::Dynamic);
        let queue = LocalQueue::with_stats(def, stats);
        let name = Arc::clone(&queue.name);
        table
            .objects
            .insert(Arc::clone(&name), Object::Local(Arc::new(queue)));
        table.created.notify_waiters();
        drop(table);
        tracing::debug!(queue = %name, "temporary dynamic queue created");
        Ok(())
    }

    /// Deletes temporary dynamic queue `name` with every message on it,
    /// ready or held by a unit of work (a unit that later commits or backs
    /// out finds the queue gone and skips it); getters waiting on it wake and
    /// fail. Returns how many messages were discarded.
    ///
    /// Errors: 2085 MQRC_UNKNOWN_OBJECT_NAME when no queue has the name;
    /// 2043 MQRC_OBJECT_TYPE_ERROR when it is not a temporary dynamic queue
    /// (a defined queue is never deleted here).
    pub fn delete_temporary(&self, name: &str) -> Result<usize, QmError> {
        let mut table = self.table_mut();
        match table.objects.get(name) {
            Some(Object::Local(q)) if q.def.temporary => {}
            Some(_) => {
                return Err(QmError::new(
                    Mqrc::OBJECT_TYPE_ERROR,
                    format!("queue {name} is not a temporary dynamic queue"),
                ));
            }
            None => {
                return Err(QmError::new(
                    Mqrc::UNKNOWN_OBJECT_NAME,
                    format!("queue {name} is not defined"),
                ));
            }
        }
        let Some(Object::Local(q)) = table.objects.remove(name) else {
            return Ok(0);
        };
        drop(table);
        let discarded = q.lock().clear();
        q.notify().notify_waiters();
        tracing::debug!(queue = %name, discarded, "temporary dynamic queue deleted");
        Ok(discarded)
    }
}

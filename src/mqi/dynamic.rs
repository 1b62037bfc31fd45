//! Temporary dynamic queues through the queue interface (IBM MQ "Dynamic
//! queues": MQOPEN of a model creates one, MQCLOSE by its creator deletes
//! it). mqgate's front ends create them on behalf of a client that owns them
//! (a MessageQ temporary queue of `pams_attach_q`, src/sbs/attach.rs) and
//! delete them when that owner ends.

use super::{Mqi, Object, QmError};
use crate::config::LocalQueueDef;

impl Mqi {
    /// Creates temporary dynamic queue `def.name` and opens it. The queue
    /// holds non-persistent messages only (a persistent put fails with 2048
    /// MQRC_PERSISTENT_NOT_ALLOWED).
    ///
    /// Errors: 2100 MQRC_OBJECT_ALREADY_EXISTS, 2152 for a bad name,
    /// 2161/2162 while stopping, and those of [`Mqi::open`].
    pub fn create_temporary(&self, def: LocalQueueDef) -> Result<Object, QmError> {
        let name = def.name.clone();
        self.qm.create_temporary(def)?;
        self.open(&name, "")
    }

    /// Deletes temporary dynamic queue `name` and the messages on it (MQCLOSE
    /// with MQCO_DELETE_PURGE); returns how many were discarded.
    ///
    /// Errors: 2085 when there is no such queue, 2043
    /// MQRC_OBJECT_TYPE_ERROR when it is not a temporary dynamic queue.
    pub fn delete_temporary(&self, name: &str) -> Result<usize, QmError> {
        self.qm.delete_temporary(name)
    }
}

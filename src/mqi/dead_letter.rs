//! Putting a message the front end cannot deliver on the dead-letter queue,
//! behind an MQDLH (IBM MQ "MQDLH - Dead-letter header"; src/qmgr/dlq.rs).

use super::{Mqi, Outgoing};
use crate::qmgr::{PutResult, QmError};
use mqgate_codecs::mq::Mqrc;
use std::sync::Arc;

/// A message for [`Mqi::dead_letter`]: the message as it was, the reason it
/// could not be delivered, and where it was meant to go (or came from).
#[derive(Clone, Debug)]
pub struct DeadLetterPut {
    /// The message: its MQMD (kept, with Format MQDEAD), charset and data.
    pub message: Outgoing,
    /// The MQRC the MQDLH's Reason carries.
    pub reason: Mqrc,
    /// DestQName of the MQDLH.
    pub dest_q: String,
    /// DestQMgrName of the MQDLH (may be empty).
    pub dest_q_mgr: String,
}

impl Mqi {
    /// Puts `dl` on the dead-letter queue on its own (not in a unit of work),
    /// on the blocking pool; no exits run (the queue manager puts it, not the
    /// application). MQDLH PutApplName is `mqgate`.
    ///
    /// Errors: no dead-letter queue is configured (2085), a name does not fit
    /// the MQDLH (2152), or the put to the dead-letter queue fails.
    pub async fn dead_letter(&self, dl: DeadLetterPut) -> Result<PutResult, QmError> {
        let qm = Arc::clone(&self.qm);
        Mqi::blocking(move || {
            let m = &dl.message;
            qm.dead_letter(
                &m.md,
                m.charset,
                &m.data,
                dl.reason,
                &dl.dest_q,
                &dl.dest_q_mgr,
            )
        })
        .await
    }
}

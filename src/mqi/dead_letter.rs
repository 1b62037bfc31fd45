//! Putting a message the front end cannot deliver on the dead-letter queue,
//! behind an MQDLH (IBM MQ "MQDLH - Dead-letter header"; src/qmgr/dlq.rs).

use super::{DeadLetter, Mqi, Outgoing, PutResult, QmError};
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

    /// Puts `msg` on the dead-letter queue on the caller's thread, with the
    /// MQDLH PutApplName `put_appl_name` and under unit of work `uow`: a
    /// channel puts its channel name there, as IBM MQ's channel agents do,
    /// and dead-letters a message of a batch in the batch's unit of work, so
    /// it is committed with the batch or not at all (IBM MQ "MQDLH -
    /// Dead-letter header"; docs/channel-protocol.md "Applying one
    /// message"). The MQDLH carries `msg.reason` (any MQRC: the reason the
    /// put failed, or the one an exit gave), DestQName / DestQMgrName, the
    /// original Encoding, CodedCharSetId and Format, PutApplType 7
    /// MQAT_QMGR; the MQMD keeps its MsgId, CorrelId and context with Format
    /// MQDEAD. No exits run. Borrowed, so a channel copies nothing to
    /// dead-letter a message it holds.
    ///
    /// Errors: no dead-letter queue is configured (2085
    /// MQRC_UNKNOWN_OBJECT_NAME), a name does not fit the MQDLH (2152
    /// MQRC_OBJECT_NAME_ERROR), `uow` is not open (2003 MQRC_BACKED_OUT), or
    /// the put to the dead-letter queue fails (2053 MQRC_Q_FULL, ...).
    pub fn dead_letter_as(
        &self,
        msg: &DeadLetter<'_>,
        put_appl_name: &str,
        uow: Option<u64>,
    ) -> Result<PutResult, QmError> {
        self.qm.dead_letter_as(msg, put_appl_name, uow)
    }
}

//! Units of work (MQBEGIN / MQCMIT / MQBACK): the puts and gets made under
//! one are stored in one transaction at commit, or undone at backout.

use super::Mqi;
use crate::qmgr::QmError;
use mqgate_codecs::mq::Mqrc;
use std::sync::Arc;
use std::time::Duration;

impl Mqi {
    /// Opens a unit of work; with `timeout`, it is backed out when idle that
    /// long. Errors: 2161 MQRC_Q_MGR_QUIESCING while the gateway stops.
    pub fn begin(&self, timeout: Option<Duration>) -> Result<u64, QmError> {
        self.qm.begin_uow(timeout, None)
    }

    /// Checks that unit of work `uow` is open without touching it. Errors:
    /// 2003 MQRC_BACKED_OUT when it was committed, backed out, expired or
    /// never begun.
    pub fn check_uow_open(&self, uow: u64) -> Result<(), QmError> {
        self.qm.check_uow_open(uow)
    }

    /// MQCMIT: the unit's persistent puts and gets go to the store in one
    /// transaction, durable when this returns. A lease is not a unit of work
    /// an application may commit (acknowledge it on its queue).
    ///
    /// Errors: 2003 MQRC_BACKED_OUT when `uow` is not open (or is a lease),
    /// or when the store failed and the unit was backed out.
    pub async fn commit(&self, uow: u64) -> Result<(), QmError> {
        self.check_not_lease(uow)?;
        let qm = Arc::clone(&self.qm);
        Mqi::blocking(move || qm.commit(uow)).await
    }

    /// MQBACK: puts discarded, gets returned with BackoutCount + 1.
    /// Errors: 2003 when `uow` is not open (or is a lease).
    pub async fn backout(&self, uow: u64) -> Result<(), QmError> {
        self.check_not_lease(uow)?;
        let qm = Arc::clone(&self.qm);
        Mqi::blocking(move || qm.backout(uow)).await
    }

    fn check_not_lease(&self, uow: u64) -> Result<(), QmError> {
        match self.qm.lease_queue(uow) {
            None => Ok(()),
            Some(q) => Err(QmError::new(
                Mqrc::BACKED_OUT,
                format!(
                    "{uow} is a lease on queue {q}, not a unit of work: acknowledge or back it out on its queue"
                ),
            )),
        }
    }
}

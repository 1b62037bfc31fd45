//! Devices (the store-and-forward of the IBM developerWorks article
//! "Configuring WebSphere MQ for large-scale deployment of WebSphere MQ
//! Everyplace devices"): remote devices whose queue manager names match
//! `devices.queue_managers` have no definitions; their messages wait on local
//! queues `DEVICE/QUEUE` until the device connects and pulls them, each under a
//! lease that the device acknowledges once the message is safely its own. A
//! device that goes away without acknowledging gets the message again
//! (BackoutCount + 1). Transports (HTTP today) are thin translations of this
//! protocol.

use crate::mqi::{GetRequest, Leased, Mqi, Object};
use crate::qmgr::{QmError, Selector};
use std::time::Duration;

/// The device protocol of one gateway.
#[derive(Clone)]
pub struct Devices {
    mqi: Mqi,
    /// How long a pulled message stays leased when the device is silent.
    lease: Duration,
    /// The longest wait a pull may ask for.
    max_wait: Duration,
}

impl Devices {
    /// The device protocol over `mqi`, with leases of `lease` and pulls
    /// waiting at most `max_wait`.
    pub fn new(mqi: Mqi, lease: Duration, max_wait: Duration) -> Devices {
        Devices {
            mqi,
            lease,
            max_wait,
        }
    }

    /// The device queue `queue` of device queue manager `device`, opened.
    /// Errors: 2087 MQRC_UNKNOWN_REMOTE_Q_MGR when `device` is not a device
    /// queue manager; 2152 MQRC_OBJECT_NAME_ERROR when `queue` is not a valid
    /// queue name.
    pub fn open(&self, device: &str, queue: &str) -> Result<Object, QmError> {
        self.mqi.open_device(device, queue)
    }

    /// Pulls the next message for `device`'s `queue`, waiting up to `wait`
    /// (capped at the maximum), under a lease. `Ok(None)` when nothing
    /// arrived in time.
    pub async fn pull(
        &self,
        obj: &Object,
        selector: Selector,
        wait: Duration,
    ) -> Result<Option<Leased>, QmError> {
        let req = GetRequest {
            selector,
            wait: wait.min(self.max_wait),
            max_wait: self.max_wait,
        };
        match self.mqi.get_leased(obj, req, self.lease).await {
            Ok(l) => Ok(Some(l)),
            Err(e) if e.mqrc == mqgate_codecs::mq::Mqrc::NO_MSG_AVAILABLE => Ok(None),
            Err(e) => Err(e),
        }
    }

    /// Acknowledges a pulled message: it is removed, durably, when this
    /// returns. Errors: 2003 MQRC_BACKED_OUT when the lease is not open on
    /// that device queue (acknowledged already or expired).
    pub async fn ack(&self, obj: &Object, lease: u64) -> Result<(), QmError> {
        self.mqi.ack(obj, lease).await
    }
}

//! Devices (the store-and-forward of the IBM developerWorks article
//! "Configuring WebSphere MQ for large-scale deployment of WebSphere MQ
//! Everyplace devices"): remote devices whose queue manager names match
//! `devices.queue_managers` have no definitions; their messages wait on local
//! queues `DEVICE/QUEUE` until the device connects and pulls them, each under a
//! lease that the device acknowledges once the message is safely its own. A
//! device that goes away without acknowledging gets the message again
//! (BackoutCount + 1). Transports (HTTP, src/http/devices.rs; MQTT,
//! src/mqtt/) are thin translations of this protocol.

mod ack_group;

pub use ack_group::AckGroup;

use crate::mqi::{ConvertRequest, DeviceWatch, GetRequest, Leased, Mqi, Object};
use crate::mqi::{QmError, Selector, Token};
use std::sync::{Arc, OnceLock};
use std::time::Duration;

/// The device protocol of one gateway.
#[derive(Clone)]
pub struct Devices {
    mqi: Mqi,
    /// The committer of acknowledgements, shared by the clones, started
    /// by the first acknowledgement (inside the runtime that serves it).
    acks: Arc<OnceLock<AckGroup>>,
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
            acks: Arc::default(),
            lease,
            max_wait,
        }
    }

    /// The same protocol with leases of `lease` and pulls waiting at most
    /// `max_wait` (a transport whose leases end with its connection, MQTT).
    pub fn with_times(&self, lease: Duration, max_wait: Duration) -> Devices {
        Devices {
            mqi: self.mqi.clone(),
            acks: Arc::clone(&self.acks),
            lease,
            max_wait,
        }
    }

    /// The queue interface the protocol works through.
    pub fn mqi(&self) -> &Mqi {
        &self.mqi
    }

    /// Checks that `device` is a device queue manager ([`Mqi::check_device`]:
    /// 2058 malformed, 2087 no device).
    pub fn check(&self, device: &str) -> Result<(), QmError> {
        self.mqi.check_device(device)
    }

    /// The queues of `device` that hold or held a message, in creation
    /// order ([`Mqi::device_queues`]).
    pub fn queues(&self, device: &str) -> Result<Vec<String>, QmError> {
        self.mqi.device_queues(device)
    }

    /// A watch on new queues of `device` ([`Mqi::watch_device`]).
    pub fn watch(&self, device: &str) -> Result<DeviceWatch, QmError> {
        self.mqi.watch_device(device)
    }

    /// The device queue `queue` of `device` opened for pulls, waiting up to
    /// `wait` for it to exist (the first message for it creates it);
    /// `Ok(None)` when it does not by then. Errors: as [`Devices::find`];
    /// 2161 when the queue manager stops meanwhile.
    pub async fn open(
        &self,
        device: &str,
        queue: &str,
        wait: Duration,
    ) -> Result<Option<Object>, QmError> {
        self.mqi.open_device_for_get(device, queue, wait).await
    }

    /// Pulls the next message of device queue `obj` (from [`Devices::open`])
    /// under a lease, waiting up to `wait` (capped at the maximum);
    /// `Ok(None)` when none came. Errors: as [`Devices::pull`].
    pub async fn pull_from(&self, obj: &Object, wait: Duration) -> Result<Option<Leased>, QmError> {
        let req = GetRequest {
            selector: Selector::default(),
            wait: wait.min(self.max_wait),
            max_wait: self.max_wait,
        };
        match self.mqi.get_leased(obj, req, self.lease).await {
            Ok(l) => Ok(Some(l)),
            Err(e) if e.mqrc == mqgate_codecs::mq::Mqrc::NO_MSG_AVAILABLE => Ok(None),
            Err(e) => Err(e),
        }
    }

    /// Backs out lease `lease` on device queue `obj` now (BackoutCount + 1).
    /// Errors: as [`Mqi::backout_lease`].
    pub async fn backout_on(&self, obj: &Object, lease: Token) -> Result<(), QmError> {
        self.mqi.backout_lease(obj, lease).await
    }

    /// The device queue `queue` of device queue manager `device`, opened,
    /// when it exists: a pull or acknowledge never creates it (the first
    /// message for the device does; docs/http-api.md "Devices"). Errors:
    /// 2058 MQRC_Q_MGR_NAME_ERROR for a malformed `device`, 2087
    /// MQRC_UNKNOWN_REMOTE_Q_MGR when it is not a device queue manager, 2152
    /// MQRC_OBJECT_NAME_ERROR when `queue` is not a valid queue name.
    pub async fn find(&self, device: &str, queue: &str) -> Result<Option<Object>, QmError> {
        self.mqi
            .open_device_for_get(device, queue, Duration::ZERO)
            .await
    }

    /// Pulls the next message for `device`'s `queue`, waiting up to `wait`
    /// (capped at the maximum), under a lease. A device queue that does not
    /// exist yet is an empty queue: the pull waits for the first message for
    /// it without creating it. `Ok(None)` when nothing arrived in time.
    /// With `convert` the message handed out is converted as MQGET with
    /// MQGMO_CONVERT does ([`Mqi::get_leased_with_convert`]); the lease holds
    /// the stored message. Errors: as [`Devices::find`]; 2161 when the queue
    /// manager stops while waiting; the get's errors.
    pub async fn pull(
        &self,
        device: &str,
        queue: &str,
        selector: Selector,
        wait: Duration,
        convert: Option<ConvertRequest>,
    ) -> Result<Option<Leased>, QmError> {
        let wait = wait.min(self.max_wait);
        let started = tokio::time::Instant::now();
        let Some(obj) = self.mqi.open_device_for_get(device, queue, wait).await? else {
            return Ok(None);
        };
        let req = GetRequest {
            selector,
            wait: wait.saturating_sub(started.elapsed()),
            max_wait: self.max_wait,
        };
        match self
            .mqi
            .get_leased_with_convert(&obj, req, self.lease, convert)
            .await
        {
            Ok(l) => Ok(Some(l)),
            Err(e) if e.mqrc == mqgate_codecs::mq::Mqrc::NO_MSG_AVAILABLE => Ok(None),
            Err(e) => Err(e),
        }
    }

    /// Acknowledges a pulled message: it is removed, durably, when this
    /// returns. Acknowledgements of many devices at once are committed
    /// together, one store transaction per group ([`AckGroup`]), so that
    /// devices acknowledging in parallel share the durable write. Errors:
    /// as [`Devices::find`]; 2161 MQRC_Q_MGR_QUIESCING when the gateway is
    /// stopping (nothing changed); 2003 MQRC_BACKED_OUT when the
    /// lease is not open on that device queue (acknowledged already,
    /// expired, another queue's or not issued since the gateway started —
    /// e.g. from before a restart; nothing changes then), also when the
    /// queue does not exist (none reached it yet, or it was retired once
    /// empty, src/qmgr/idle.rs) — with the same message, so that the answer
    /// to a stale lease does not depend on whether the sweep has run.
    pub async fn ack(&self, device: &str, queue: &str, lease: Token) -> Result<(), QmError> {
        let obj = match self.find(device, queue).await? {
            Some(obj) => obj,
            None => self.mqi.open(
                &crate::route::DeviceQueueManagers::local_name(device, queue)?,
                "",
            )?,
        };
        let acks = self.acks.get_or_init(|| AckGroup::start(self.mqi.clone()));
        acks.ack(&obj, lease).await
    }
}

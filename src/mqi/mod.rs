//! The one queue interface (an MQI of mqgate's own). Every front end — the
//! HTTP queue API, device pulls, the RPC bridge, the Tuxedo gateway, message
//! channels, and later MQTT, MQ clients, SBS and subjects — reaches queues
//! only through [`Mqi`]:
//!
//! - [`Mqi::open`] names an object (queue, queue manager) as MQOPEN does and
//!   picks up the queue exit chains that run for it;
//! - puts ([`Mqi::put`], [`Mqi::put_many`]) run before_put once, then the
//!   queue manager's put, inside the caller's unit of work or on their own;
//! - gets ([`Mqi::get`], [`Mqi::get_leased`]) run before_get, wait without
//!   polling, then after_get on the copy handed back; with MQGMO_CONVERT
//!   ([`Mqi::get_with_convert`], [`Mqi::get_leased_with_convert`],
//!   [`ConvertRequest`]) that copy is converted first and the get's warning
//!   (MQCC_WARNING, reason) travels in [`GetResult::warning`];
//! - leases ([`Mqi::ack`], [`Mqi::backout_lease`]) are units of work that
//!   expire when idle, so a consumer that goes away never loses a message;
//!   the holder names its lease by a random [`Token`], never by the unit's
//!   number;
//! - units of work ([`Mqi::begin`], [`Mqi::commit`], [`Mqi::backout`]);
//!   one handed to a client is named by a [`Token`] too
//!   ([`Mqi::begin_token`], [`Mqi::uow_for_token`]);
//! - the dead-letter queue ([`Mqi::dead_letter`], [`Mqi::dead_letter_as`])
//!   for a message a front end took but cannot deliver;
//! - what message channels need besides (IBM MQ "Channel exit programs for
//!   messaging channels", "Units of work"): a put to each message's own
//!   destination ([`Mqi::put1_now`]), units of work sealed with the
//!   channel's sequence number and committed later ([`Mqi::seal`],
//!   [`Mqi::commit_seal`]), the channels' state records ([`Mqi::meta`],
//!   [`Mqi::put_meta`], [`Mqi::commit_with_meta_now`]), and no-wait gets
//!   from a transmission queue ([`Mqi::open_xmit_queue`],
//!   [`Mqi::get_now_detailed`]);
//! - inquiries ([`Mqi::queues`], [`Mqi::depth`], ...).
//!
//! Calls that may touch the store or run exits (which have time budgets) are
//! moved off the async threads here, so front ends never do it themselves.
//! The names follow the IBM MQ documentation ("MQOPEN", "MQPUT", "MQGET",
//! "MQCMIT", "MQBACK", "MQPMO - Put-message options", "MQGMO - Get-message
//! options").

mod authority;
pub mod convert;
mod dead_letter;
mod dynamic;
mod error;
pub mod exits;
mod get;
mod put;
mod put_each;
mod state;
#[cfg(test)]
mod tests;
mod uow;

/// The queue manager's value types the calls of this module take and give
/// (options, results, selectors, errors, a sealed unit of work), so a front
/// end needs nothing from `crate::qmgr`.
// The queue manager's value types and name rules, as front ends see them.
pub use crate::qmgr::names;
pub use crate::qmgr::{
    DeadLetter, DeviceWatch, GetMode, GetResult, Match, MessageFilter, Position, PutCheck,
    PutOptions, PutResult, QmError, SealedUow, Selector, Token,
};
pub use authority::ClientAccess;
pub use convert::ConvertRequest;
pub use dead_letter::DeadLetterPut;
pub use error::CallError;
pub use exits::{ExitStop, QueueExits, QueuePointChains};
pub use get::{GetRequest, Got, Leased};
pub use put::{Outgoing, destination_label, set_origin_context};

use crate::qmgr::{QueueInfo, QueueManager};
use mqgate_codecs::mq::Mqrc;
use std::sync::Arc;

/// Which exit chains run for the objects an [`Mqi`] opens.
#[derive(Clone)]
enum ExitSource {
    /// The chains of the `exits:` section, per queue name as the application
    /// named it (global chains first).
    PerQueue(Arc<QueueExits>),
    /// One set of chains for every object (the RPC bridge's `rpc.exits`).
    Fixed(Arc<QueuePointChains>),
}

/// The queue interface of one gateway: cheap to clone, shared by every front
/// end.
#[derive(Clone)]
pub struct Mqi {
    qm: Arc<QueueManager>,
    exits: ExitSource,
    /// The grants [`Mqi::authorize`] checks a principal that carries none
    /// against (with the tokens, src/security/credentials.rs); `None`: no
    /// security configured.
    authorities: Option<Arc<crate::security::credentials::CurrentCredentials>>,
    /// Checked by [`Mqi::channel_access`]; `None`: no rules configured.
    channel_rules: Option<Arc<crate::security::chlauth::ChannelRules>>,
    /// The connection and memory limits the front ends count against
    /// ([`Mqi::limits`]).
    limits: Arc<crate::security::limits::Limits>,
}

/// An object opened with [`Mqi::open`]: the names as the application gave
/// them and the exit chains that run for it (an MQ object handle).
#[derive(Clone)]
pub struct Object {
    /// ObjectName as given (a queue, alias, remote definition, model, or a
    /// device's local queue `QMGR/QUEUE`).
    name: String,
    /// ObjectQMgrName; empty = this queue manager.
    q_mgr: String,
    chains: Option<Arc<QueuePointChains>>,
}

impl Mqi {
    /// The queue interface over `qm`, running the queue exits of `exits`
    /// (the `exits:` section) per queue name.
    pub fn new(qm: Arc<QueueManager>, exits: Arc<QueueExits>) -> Mqi {
        Mqi {
            qm,
            exits: ExitSource::PerQueue(exits),
            authorities: None,
            channel_rules: None,
            limits: Arc::default(),
        }
    }

    /// The same queue interface, running `chains` for every object it opens
    /// instead of the per-queue chains (the RPC bridge's own `rpc.exits`).
    pub fn with_chains(&self, chains: Arc<QueuePointChains>) -> Mqi {
        Mqi {
            qm: Arc::clone(&self.qm),
            exits: ExitSource::Fixed(chains),
            authorities: self.authorities.clone(),
            channel_rules: self.channel_rules.clone(),
            limits: Arc::clone(&self.limits),
        }
    }

    /// MQOPEN: checks the names (2085 MQRC_UNKNOWN_OBJECT_NAME style errors
    /// come from the put or get that uses them, as MQ resolves again at each
    /// MQPUT1) and starts the exit chains of `name` on first use.
    ///
    /// Errors: a name that is not a valid MQ name (2152 MQRC_OBJECT_NAME_ERROR,
    /// 2058 MQRC_Q_MGR_NAME_ERROR); exits that cannot start (2374
    /// MQRC_API_EXIT_ERROR).
    pub fn open(&self, name: &str, q_mgr: &str) -> Result<Object, QmError> {
        crate::qmgr::names::check_q_name(name)?;
        crate::qmgr::names::check_q_mgr_name(q_mgr)?;
        let chains = self.chains_for(name)?;
        Ok(Object {
            name: name.to_string(),
            q_mgr: q_mgr.to_string(),
            chains,
        })
    }

    /// The queue-point chains that run for objects named `name` (started on
    /// first use); `None` when no exit runs for it. Errors: exits that cannot
    /// start (2374 MQRC_API_EXIT_ERROR).
    fn chains_for(&self, name: &str) -> Result<Option<Arc<QueuePointChains>>, QmError> {
        match &self.exits {
            ExitSource::PerQueue(e) => e
                .for_queue(name)
                .map_err(|e| QmError::new(Mqrc::API_EXIT_ERROR, e.to_string())),
            ExitSource::Fixed(c) => Ok(Some(Arc::clone(c))),
        }
    }

    /// MQOPEN of transmission queue `name` by a sender channel, for its
    /// destructive gets ([`Mqi::get_now_detailed`], [`Mqi::get`]). No
    /// queue-point exits run for it: the point where an administrator's
    /// code sees each message a sending channel takes from its transmission
    /// queue is the channel's message exit (IBM MQ "Channel exit programs
    /// for messaging channels": the sending MCA calls it after it got the
    /// message from the transmission queue; docs/exits.md "Where each point
    /// runs"). Errors: a name that is not a valid queue name (2152
    /// MQRC_OBJECT_NAME_ERROR); a queue that is not defined fails the get
    /// (2085 MQRC_UNKNOWN_OBJECT_NAME).
    pub fn open_xmit_queue(&self, name: &str) -> Result<Object, QmError> {
        crate::qmgr::names::check_q_name(name)?;
        Ok(Object {
            name: name.to_string(),
            q_mgr: String::new(),
            chains: None,
        })
    }

    /// MQOPEN of queue `queue` of device queue manager `device` (the WebSphere
    /// MQ Everyplace gateway article's store-and-forward) for a get: the
    /// device's local queue `DEVICE/QUEUE`, never created here (the first
    /// message for the device creates it). Waits up to `wait` for it to
    /// exist; `Ok(None)` when it does not by then. Errors: 2058 when `device`
    /// is malformed, 2087 when it is not a device queue manager, 2152 when
    /// `queue` is not a valid queue name; 2161 when the queue manager stops
    /// meanwhile.
    pub async fn open_device_for_get(
        &self,
        device: &str,
        queue: &str,
        wait: std::time::Duration,
    ) -> Result<Option<Object>, QmError> {
        let local = self.qm.device_queue_name(device, queue)?;
        if !self.qm.wait_for_object(&local, wait).await? {
            return Ok(None);
        }
        self.open(&local, "").map(Some)
    }

    /// Checks that `device` names a device queue manager (docs/config.md
    /// `devices`). Errors: 2058 MQRC_Q_MGR_NAME_ERROR when it is empty or
    /// malformed, 2087 MQRC_UNKNOWN_REMOTE_Q_MGR when it is no device.
    pub fn check_device(&self, device: &str) -> Result<(), QmError> {
        crate::route::DeviceQueueManagers::check_name(device)?;
        if self.qm.is_device(device) {
            Ok(())
        } else {
            Err(crate::route::DeviceQueueManagers::not_a_device(device))
        }
    }

    /// The queues of device `device` that exist (created by the first
    /// message for each), by their names on the device, in creation order.
    /// Errors: as [`Mqi::check_device`].
    pub fn device_queues(&self, device: &str) -> Result<Vec<String>, QmError> {
        self.check_device(device)?;
        Ok(self.qm.device_queues(device))
    }

    /// A watch that fires when a queue of `device` is created (see
    /// [`DeviceWatch`]). Errors: as [`Mqi::check_device`].
    pub fn watch_device(&self, device: &str) -> Result<DeviceWatch, QmError> {
        self.check_device(device)?;
        Ok(self.qm.watch_device(device))
    }

    /// The queue manager's name.
    pub fn q_mgr_name(&self) -> &str {
        self.qm.name()
    }

    /// The dead-letter queue's name (empty when none).
    pub fn dead_letter_queue(&self) -> &str {
        self.qm.dead_letter_queue()
    }

    /// The default transmission queue's name (empty when none).
    pub fn default_xmit_queue(&self) -> &str {
        self.qm.default_xmit_queue()
    }

    /// The condition of the queue manager's store (ok, full, failed; docs/http-api.md
    /// "Status").
    pub fn store_health(&self) -> crate::store::StoreHealth {
        self.qm.store_health()
    }

    /// The sequence number the next put takes (see
    /// [`crate::qmgr::QueueManager::next_put_sequence`]): a get or browse
    /// with this as [`Selector::put_before`] sees only messages put before.
    pub fn next_put_sequence(&self) -> u64 {
        self.qm.next_put_sequence()
    }

    /// MAXMSGL of the queue manager, in bytes.
    pub fn max_msg_length(&self) -> usize {
        self.qm.max_msg_length()
    }

    /// MQINQ CurrentQDepth of local queue `q` (committed messages and those
    /// held by units of work); `None` when `q` is not a local queue. O(1) in
    /// the number of queues.
    pub fn depth(&self, q: &str) -> Option<usize> {
        self.qm.depth(q)
    }

    /// Every queue object with its type and, for local queues, CURDEPTH, in
    /// name order (the HTTP queue list, status).
    pub fn queues(&self) -> Vec<QueueInfo> {
        self.qm.queues()
    }

    /// The definition of model queue `name` in force (a reload may have
    /// defined or altered it); `None` when no model queue has that name.
    pub fn model_def(&self, name: &str) -> Option<crate::config::LocalQueueDef> {
        self.qm.model_def(name)
    }

    /// Runs `f` — a sequence of synchronous queue calls, e.g. a channel's
    /// batch — on the blocking pool and returns its result. Errors: the task
    /// panicked or was cancelled (2195 MQRC_UNEXPECTED_ERROR).
    pub async fn blocking<T: Send + 'static>(
        f: impl FnOnce() -> Result<T, QmError> + Send + 'static,
    ) -> Result<T, QmError> {
        tokio::task::spawn_blocking(f).await.map_err(|e| {
            QmError::new(
                Mqrc::UNEXPECTED_ERROR,
                format!("queue call task failed: {e}"),
            )
        })?
    }

    /// The gateway's task groups: a front end spawns the tasks it starts
    /// (a call, a connection) there, so stopping the gateway waits for them.
    pub(crate) fn tasks(&self) -> crate::tasks::Tasks {
        self.qm.tasks()
    }
}

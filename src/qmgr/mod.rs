//! The queue manager: queue objects, put/get/browse, units of work, get-wait,
//! expiry, and the durable store of persistent messages.
//!
//! State is split so that calls on different queues do not wait for each
//! other: the object table (name -> object) is read-shared and written only
//! to create or delete a queue; each local queue's messages have a lock of
//! their own; units of work and their tokens have one more. A unit of work
//! holds the queues of its messages directly, so a get, commit, backout,
//! acknowledgement or lease expiry touches only the queues of its own
//! messages, whatever the number of queues. No lock is held during a store
//! write: messages a unit of work holds stay invisible to others until its
//! write is done. Persistent messages are written before a put or commit
//! returns; non-persistent ones live in memory only.
//!
//! A persistent message lives in the store once written: its queue keeps a
//! small index entry (src/qmgr/index.rs: the ids a get matches on, expiry,
//! size, BackoutCount) and reads the MQMD and data back when a get needs
//! them, through a byte-bounded cache (src/qmgr/body_cache.rs). The store
//! keeps a summary of each message beside it, written in the same
//! transaction, from which a start rebuilds every queue without reading a
//! message (src/qmgr/stored.rs).

mod body_cache;
pub mod clock;
mod device_index;
mod dlq;
pub mod error;
mod expiry;
mod idle;
mod index;
pub mod message;
pub mod msgid;
pub mod names;
mod object;
mod probe;
pub mod queue;
mod redefine;
pub use redefine::Redefined;
mod record;
mod shared;
mod slots;
mod start;
pub mod stats;
mod stored;
mod temporary;
pub mod token;
mod uow;
mod xmit;

pub use device_index::DeviceWatch;
pub use dlq::DeadLetter;
pub use error::QmError;
pub use message::Message;
pub use queue::{Match, MessageFilter, Position, Selector, removed_messages};
pub use token::{Token, TokenKind};
pub use uow::SealedUow;

use crate::config::{Config, DefaultPersistence, LocalQueueDef, QueueDef, Usage};
use crate::route::{self, DeviceQueueManagers, Router};
use crate::store::{Batch, Store};
use bytes::Bytes;
use mqgate_codecs::mq::constants::{at, ccsi, md as mdc, mt, per};
use mqgate_codecs::mq::md::ID_NONE;
use mqgate_codecs::mq::{CharField, Charset, Mqmd, Mqrc};
use msgid::MsgIdGenerator;
use object::{Object, Table};
use queue::{Entry, EntryState, LocalQueue};
use std::sync::atomic::{AtomicU64, AtomicUsize, Ordering};
use std::sync::{Arc, Mutex, MutexGuard, RwLock, RwLockReadGuard, RwLockWriteGuard};
use std::time::Duration;
use tokio::sync::watch;
use uow::Uow;

/// Put options (the parts of MQPMO mqgate uses).
#[derive(Clone, Debug, Default)]
pub struct PutOptions {
    /// Put under this unit of work (MQPMO_SYNCPOINT); `None` = MQPMO_NO_SYNCPOINT.
    pub uow: Option<u64>,
    /// MQPMO_NEW_MSG_ID. A MsgId of MQMI_NONE gets a new one too.
    pub new_msg_id: bool,
    /// MQPMO_NEW_CORREL_ID.
    pub new_correl_id: bool,
    /// MQPMO_PASS_ALL_CONTEXT: keep the MD's context fields (dead-lettering,
    /// relaying); otherwise the queue manager sets them (MQPMO_DEFAULT_CONTEXT).
    pub pass_all_context: bool,
    /// ObjectQMgrName; empty = this queue manager.
    pub q_mgr_name: String,
}

/// What a successful put did.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct PutResult {
    pub msg_id: [u8; 24],
    pub correl_id: [u8; 24],
    /// The local queue the message went to (a transmission queue for a remote one).
    pub queue: String,
    pub persistent: bool,
    /// A warning the put completed with (MQCC_WARNING): 2049
    /// MQRC_PRIORITY_EXCEEDS_MAXIMUM when Priority was above 9 (MQ docs:
    /// MQMD Priority: accepted, queued at the maximum, the MD keeps the value).
    pub warning: Option<QmError>,
}

/// Destructive or browse, and with which unit of work.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum GetMode {
    /// Remove the message; under `uow` (MQGMO_SYNCPOINT) or at once.
    Destructive { uow: Option<u64> },
    /// MQGMO_BROWSE_FIRST (`after: None`) or BROWSE_NEXT after a position.
    Browse { after: Option<Position> },
}

/// A message returned by a get or browse.
#[derive(Clone, Debug)]
pub struct GetResult {
    /// The MD as MQ returns it (BackoutCount, remaining Expiry).
    pub md: Mqmd,
    pub charset: Charset,
    pub data: Bytes,
    /// Its place, for BROWSE_NEXT.
    pub position: Position,
    /// The local queue it came from.
    pub queue: String,
    /// The warning the get completes with (MQCC_WARNING), as MQGET returns
    /// CompCode and Reason with the message: set by the queue interface
    /// (`crate::mqi`) for a conversion that did not fully succeed (IBM MQ
    /// "MQGMO_CONVERT"; 2110, 2111 ... 2119, 2190) or by an after_get exit
    /// (docs/exits.md); `None` = MQCC_OK. Always `None` as the queue manager
    /// returns it.
    pub warning: Option<QmError>,
}

/// One queue as `GET /v1/queues` lists it.
#[derive(Clone, Debug, serde::Serialize)]
pub struct QueueInfo {
    pub name: String,
    /// `local`, `xmitq`, `model`, `remote`, `qmgr_alias` or `alias`.
    #[serde(rename = "type")]
    pub kind: &'static str,
    /// CURDEPTH, local queues only.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub depth: Option<usize>,
}

/// What a get met besides its answer.
#[derive(Default)]
struct GetNotes {
    /// Expired messages taken off the queue: (store key, entry).
    expired: Vec<(u64, Entry)>,
    /// The unit of work of a destructive get outside syncpoint, committed
    /// before the get returns.
    implicit_uow: Option<u64>,
    /// The soonest a message the filter skipped falls due.
    not_before: Option<Duration>,
}

/// A rule on what a local queue may hold, beyond MQ's own put checks: a
/// front end that keeps its own records on queue-manager queues (the Tuxedo
/// gateway's RTQ requests, docs/tuxedo.md) installs one with
/// [`QueueManager::set_put_check`], so that every put — whichever front end
/// and whatever name resolved to the queue — meets it.
pub trait PutCheck: Send + Sync {
    /// `Ok` lets the put of `md` and `data` (as the before_put exits left
    /// them; `md`'s character fields in `charset`) onto local queue `queue`
    /// go on; an error refuses it with its reason, and nothing is put.
    fn check(&self, queue: &str, md: &Mqmd, charset: Charset, data: &[u8]) -> Result<(), QmError>;
}

/// The queue manager.
pub struct QueueManager {
    name: String,
    max_msg_length: usize,
    dead_letter_queue: String,
    /// The default transmission queue (DEFXMITQ; empty when none), as the
    /// router in the object table has it.
    default_xmit_queue: String,
    /// MAXDEPTH of every device queue (docs/config.md `devices`), read by
    /// each put onto one rather than the definition the device queues
    /// share, so that a configuration reload changes it for the device
    /// queues that exist as well as for those created later.
    device_max_depth: AtomicUsize,
    store: Arc<dyn Store>,
    /// The object table (src/qmgr/object.rs).
    table: RwLock<Table>,
    /// The queues of each device and the notification of new ones
    /// (src/qmgr/device_index.rs).
    devices: Mutex<device_index::DeviceIndex>,
    /// Device queues left empty, for the sweep that retires them
    /// (src/qmgr/idle.rs).
    idle: Arc<idle::IdleList>,
    /// The definition every device queue shares (docs/config.md
    /// `devices`; its name is empty). Its MAXDEPTH is the one at the
    /// start: puts read [`QueueManager::device_max_depth`]'s.
    device_def: Arc<LocalQueueDef>,
    /// Open units of work and the tokens of those handed to clients.
    uows: Mutex<Uows>,
    next_seq: AtomicU64,
    /// The next unit-of-work id. It starts again at 1 in every run, so an id
    /// is never handed to a client: clients get a [`Token`].
    next_uow: AtomicU64,
    ids: MsgIdGenerator,
    quiescing: watch::Sender<bool>,
    tasks: crate::tasks::Tasks,
    /// The [`PutCheck`] every put onto a local queue passes, if one is set.
    put_check: std::sync::OnceLock<Arc<dyn PutCheck>>,
    /// Stored messages read or put lately (src/qmgr/body_cache.rs).
    cache: body_cache::BodyCache,
    /// The counters queues created at run time share (src/qmgr/stats.rs).
    group_stats: stats::GroupStats,
    /// Several gateways on the store (src/qmgr/shared.rs); `None` alone.
    shared: Option<shared::SharedIndex>,
}

/// Open units of work.
#[derive(Default)]
struct Uows {
    map: foldhash::HashMap<u64, Uow>,
    /// The token of each unit of work handed to a client (src/qmgr/token.rs)
    /// -> its id; an entry lives exactly as long as its unit is open.
    tokens: foldhash::HashMap<Token, u64>,
}

impl Uows {
    /// Removes open unit of work `id` and its token, if it has one.
    fn take(&mut self, id: u64) -> Option<Uow> {
        let mut uow = self.map.remove(&id)?;
        if let Some(token) = &uow.token {
            self.tokens.remove(token);
        }
        if let Some(timer) = uow.timer.take() {
            timer.abort();
        }
        Some(uow)
    }
}

/// A store failure as the queue manager answers it: the reason the error
/// names ([`crate::store::StoreError::mqrc`]: 2056 for a full disk, else 2102).
fn store_error(e: crate::store::StoreError) -> QmError {
    QmError::new(e.mqrc(), format!("the store failed: {e}"))
}

impl QueueManager {
    /// Builds the queue manager from `config` and loads every persistent
    /// message from `store`. A record that cannot be decoded is left in the
    /// store and reported in the log, never deleted.
    ///
    /// Errors: the store cannot be read (2102).
    pub fn open(config: &Config, store: Arc<dyn Store>) -> Result<QueueManager, QmError> {
        let qm = &config.queue_manager;
        let router = Router::from_config(config);
        let mut objects = foldhash::HashMap::default();
        let mut models = Vec::new();
        for def in config.effective_queues() {
            let name: Arc<str> = def.name().into();
            let obj = match def {
                QueueDef::Local(d) => Object::Local(Arc::new(LocalQueue::new(d))),
                QueueDef::Model(d) => {
                    models.push(d);
                    Object::Model
                }
                QueueDef::Remote(d) => Object::Remote(Box::new(d)),
                QueueDef::Alias(d) => Object::Alias(Box::new(d)),
            };
            objects.insert(name, obj);
        }
        let mut table = Table {
            objects,
            models,
            created: Arc::new(tokio::sync::Notify::new()),
            router: router.clone(),
        };
        let idle = Arc::new(idle::IdleList::default());
        let group_stats = stats::GroupStats::default();
        let device_def = Arc::new(router.devices().queue_def(""));
        // Summaries only: the messages' MQMDs and data stay in the store
        // until a get needs them (src/qmgr/stored.rs).
        let mut loader = start::Loader {
            table: &mut table,
            router: &router,
            store: &*store,
            device_def: &device_def,
            group_stats: &group_stats,
            idle: &idle,
            max_seq: 0,
            messages: 0,
            device_queues: 0,
            unsummarised: Vec::new(),
        };
        loader.load()?;
        let (max_seq, count, device_queues) =
            (loader.max_seq, loader.messages, loader.device_queues);
        table.objects.shrink_to_fit();
        // Built when first needed if the start created device queues
        // (src/qmgr/device_index.rs).
        let devices = device_index::DeviceIndex::new(device_queues == 0);
        let shared = store.shared().map(|s| shared::SharedIndex::new(s.member()));
        // On a shared store the number is a key's counter (src/qmgr/shared.rs).
        let next_seq = match &shared {
            Some(_) => (max_seq >> crate::store::MEMBER_BITS) + 1,
            None => max_seq + 1,
        };
        tracing::info!(
            queue_manager = %qm.name,
            messages = count,
            "queue manager started"
        );
        Ok(QueueManager {
            name: qm.name.clone(),
            max_msg_length: qm.max_msg_length,
            dead_letter_queue: qm.dead_letter_queue.clone(),
            default_xmit_queue: qm.default_xmit_queue.clone(),
            device_max_depth: AtomicUsize::new(config.devices.max_depth),
            store,
            table: RwLock::new(table),
            devices: Mutex::new(devices),
            idle,
            device_def,
            uows: Mutex::new(Uows::default()),
            next_seq: AtomicU64::new(next_seq),
            next_uow: AtomicU64::new(1),
            ids: MsgIdGenerator::new(&qm.name),
            quiescing: watch::channel(false).0,
            tasks: crate::tasks::Tasks::default(),
            put_check: std::sync::OnceLock::new(),
            cache: body_cache::BodyCache::new(qm.body_cache_bytes),
            group_stats,
            shared,
        })
    }

    /// Installs `check`, run by every later [`QueueManager::put`] onto a
    /// local queue (not onto a transmission queue for a remote destination)
    /// after name resolution and before MAXMSGL and MAXDEPTH. One check per
    /// queue manager: `false` when one was set already (it stays).
    pub fn set_put_check(&self, check: Arc<dyn PutCheck>) -> bool {
        self.put_check.set(check).is_ok()
    }

    /// The tasks of the gateway this queue manager serves (src/tasks.rs):
    /// every task spawned for it is registered there, so stopping the
    /// gateway can wait for them.
    pub(crate) fn tasks(&self) -> crate::tasks::Tasks {
        self.tasks.clone()
    }

    /// The queue manager's name.
    pub fn name(&self) -> &str {
        &self.name
    }

    /// The dead-letter queue's name (empty when none).
    pub fn dead_letter_queue(&self) -> &str {
        &self.dead_letter_queue
    }

    /// The definition of model queue `name` now (the object table's, which
    /// a reload redefines); `None` when no model queue has that name.
    pub fn model_def(&self, name: &str) -> Option<LocalQueueDef> {
        self.table().models.iter().find(|m| m.name == name).cloned()
    }

    /// The default transmission queue's name (empty when none).
    pub fn default_xmit_queue(&self) -> &str {
        &self.default_xmit_queue
    }

    /// True when `q_mgr` is a device queue manager: it matches a pattern of
    /// `devices.queue_managers`, is not this queue manager and has no `/`
    /// ([`crate::route::DeviceQueueManagers::is_device`]).
    pub fn is_device(&self, q_mgr: &str) -> bool {
        self.table().router.devices().is_device(q_mgr)
    }

    /// The local queue name `QMGR/QUEUE` of queue `q` of device queue
    /// manager `q_mgr`, without creating the queue (gets never create one;
    /// the first message for the device does, through the router). 2058 when
    /// `q_mgr` is empty or malformed, 2087 when it is not a device queue
    /// manager, 2152 when `q` is not a valid queue name or the local name
    /// would be longer than 48 characters ([`crate::route::DeviceQueueManagers`]).
    pub fn device_queue_name(&self, q_mgr: &str, q: &str) -> Result<String, QmError> {
        DeviceQueueManagers::check_name(q_mgr)?;
        if !self.is_device(q_mgr) {
            return Err(DeviceQueueManagers::not_a_device(q_mgr));
        }
        DeviceQueueManagers::local_name(q_mgr, q)
    }

    /// Waits up to `wait` for an object named `name` to exist, without
    /// creating it (a device queue is created by the first message for it).
    /// True when it exists. Sleeps until a queue is created or the wait
    /// ends — no polling; `Duration::ZERO` only looks. Errors: 2161
    /// MQRC_Q_MGR_QUIESCING when the queue manager starts to stop meanwhile.
    pub async fn wait_for_object(&self, name: &str, wait: Duration) -> Result<bool, QmError> {
        let deadline = tokio::time::Instant::now() + wait;
        let mut quiescing = self.quiescing.subscribe();
        if self.has_object(name) {
            return Ok(true);
        }
        // A device's queue is announced to its device's watchers only
        // (src/qmgr/device_index.rs); any other queue to every waiter.
        let owner = self.table().router.devices().owner(name);
        if let Some(device) = owner {
            let mut watch = self.watch_device_borrowed(device);
            loop {
                if self.has_object(name) {
                    return Ok(true);
                }
                if tokio::time::Instant::now() >= deadline {
                    return Ok(false);
                }
                tokio::select! {
                    _ = watch.rx.changed() => {}
                    _ = tokio::time::sleep_until(deadline) => {}
                    _ = quiescing.wait_for(|q| *q) => {
                        return Err(QmError::new(Mqrc::Q_MGR_QUIESCING, "the queue manager is stopping"));
                    }
                }
            }
        }
        let created = Arc::clone(&self.table().created);
        loop {
            let notified = created.notified();
            tokio::pin!(notified);
            // Enabled before looking, so a creation in between is not missed.
            notified.as_mut().enable();
            if self.has_object(name) {
                return Ok(true);
            }
            if tokio::time::Instant::now() >= deadline {
                return Ok(false);
            }
            tokio::select! {
                _ = &mut notified => {}
                _ = tokio::time::sleep_until(deadline) => {}
                _ = quiescing.wait_for(|q| *q) => {
                    return Err(QmError::new(Mqrc::Q_MGR_QUIESCING, "the queue manager is stopping"));
                }
            }
        }
    }

    /// A named state record written by [`QueueManager::commit_with_meta`].
    /// Errors: the store cannot be read (2102).
    pub fn meta(&self, name: &str) -> Result<Option<Vec<u8>>, QmError> {
        // On a shared store: after every change made so far (another
        // gateway may have committed a channel's batch a moment ago).
        self.catch_up();
        let all = self.store.load_meta().map_err(store_error)?;
        Ok(all.into_iter().find(|(n, _)| n == name).map(|(_, v)| v))
    }

    /// Every named state record whose name begins with `prefix`, in name
    /// order. Errors: the store cannot be read (2102).
    pub fn meta_prefixed(&self, prefix: &str) -> Result<Vec<(String, Vec<u8>)>, QmError> {
        let mut all: Vec<_> = self
            .store
            .load_meta()
            .map_err(store_error)?
            .into_iter()
            .filter(|(n, _)| n.starts_with(prefix))
            .collect();
        all.sort_by(|a, b| a.0.cmp(&b.0));
        Ok(all)
    }

    /// Writes named state records on their own, durably (a sender channel's
    /// in-flight batch). Errors: the store failed (2102; 2056 when its disk is full).
    pub fn put_meta(&self, meta: Vec<(String, Vec<u8>)>) -> Result<(), QmError> {
        self.store
            .apply(&Batch {
                meta,
                ..Batch::default()
            })
            .map_err(store_error)
    }

    /// The condition of the store behind the queue manager
    /// ([`crate::store::Store::health`]), for `GET /v1/status`.
    pub fn store_health(&self) -> crate::store::StoreHealth {
        self.store.health()
    }

    /// CURDEPTH of local queue `q` (committed and in-flight messages); `None`
    /// when it is not a local queue. A device queue name without a queue
    /// (none created yet, or retired once empty, src/qmgr/idle.rs) is an
    /// empty queue: 0.
    pub fn depth(&self, q: &str) -> Option<usize> {
        // One read of the table: a second read lock taken while this one
        // is held could wait behind a writer for ever.
        let table = self.table();
        match table.local(q) {
            Some(lq) => Some(lq.lock().depth()),
            None => table.router.devices().split(q).is_some().then_some(0),
        }
    }

    /// True when `name` is a device queue's name `QMGR/QUEUE` (its queue
    /// manager part a device queue manager, its queue part not empty),
    /// whether or not the queue exists now.
    pub fn is_device_queue_name(&self, name: &str) -> bool {
        self.table().router.devices().split(name).is_some()
    }

    /// 2033 for a get from device queue `q` that does not exist: it
    /// answers as an empty queue (src/qmgr/idle.rs).
    fn no_device_queue(q: &str) -> QmError {
        QmError::new(
            Mqrc::NO_MSG_AVAILABLE,
            format!("no message available on queue {q}"),
        )
    }

    /// True when an object (queue of any type, queue manager alias) named
    /// `name` is defined or was created; O(1) in the number of objects.
    pub fn has_object(&self, name: &str) -> bool {
        self.table().objects.contains_key(name)
    }

    /// The sequence number the next put takes. Every put takes the next
    /// number (it is also the message's key in the store, and survives a
    /// restart), so a message with a smaller one was put before this call.
    pub fn next_put_sequence(&self) -> u64 {
        match &self.shared {
            Some(sh) => self.next_shared_key(sh),
            None => self.next_seq.load(Ordering::SeqCst),
        }
    }

    /// The queue manager's MAXMSGL in bytes.
    pub fn max_msg_length(&self) -> usize {
        self.max_msg_length
    }

    // A panic while holding one of these locks leaves consistent-enough
    // state (every change is a single map operation): keep serving rather
    // than fail every later call.

    /// The object table, for a lookup.
    fn table(&self) -> RwLockReadGuard<'_, Table> {
        probe::table_looked();
        self.table.read().unwrap_or_else(|p| p.into_inner())
    }

    /// The object table, to create or delete a queue.
    fn table_mut(&self) -> RwLockWriteGuard<'_, Table> {
        probe::table_looked();
        self.table.write().unwrap_or_else(|p| p.into_inner())
    }

    /// The open units of work.
    fn uows(&self) -> MutexGuard<'_, Uows> {
        self.uows.lock().unwrap_or_else(|p| p.into_inner())
    }

    /// The device index.
    fn devices(&self) -> MutexGuard<'_, device_index::DeviceIndex> {
        self.devices.lock().unwrap_or_else(|p| p.into_inner())
    }

    fn check_running(&self) -> Result<(), QmError> {
        if *self.quiescing.borrow() {
            Err(QmError::new(
                Mqrc::Q_MGR_QUIESCING,
                format!("queue manager {} is stopping", self.name),
            ))
        } else {
            Ok(())
        }
    }

    /// Resolves every record of `list` as a put would now (IBM MQ "Opening
    /// distribution lists": MQOPEN resolves each object record and answers
    /// one response record per record): one result per record, in order,
    /// creating nothing. Queues a put would create (device and dynamic
    /// queues) come back as [`route::Destination::Create`] decisions.
    pub fn resolve_list(&self, list: &route::DestinationList) -> Vec<route::list::Resolved> {
        let table = self.table();
        table.router.resolve(&*table, list)
    }

    /// Puts a message on queue `q` (MQPUT1). Resolves `q` as MQ does (local,
    /// alias, remote definition, queue manager alias, transmission queue,
    /// device queue manager, default transmission queue; IBM MQ "Name
    /// resolution", [`crate::route`]), fills MsgId and context, and enforces
    /// MAXMSGL (2030/2031), MAXDEPTH (2053), PUT(DISABLED) (2051), unknown
    /// names (2085/2087), device queue names that do not fit (2152), data
    /// without a valid MQXQH put straight onto a transmission queue (2142), and
    /// the [`PutCheck`] if one is set (e.g. 2110 for a message that is no RTQ
    /// request on an RTQ queue); a store failure is 2056 when the store's
    /// disk is full, 2102 otherwise.
    ///
    /// A persistent message put outside a unit of work is in the store when
    /// this returns `Ok`; under a unit of work it is stored at commit.
    pub fn put(
        &self,
        q: &str,
        md: Mqmd,
        charset: Charset,
        data: Bytes,
        opts: &PutOptions,
    ) -> Result<PutResult, QmError> {
        self.check_running()?;
        names::check_q_name(q)?;
        names::check_q_mgr_name(&opts.q_mgr_name)?;
        check_md(&md)?;
        if data.len() > self.max_msg_length {
            return Err(QmError::new(
                Mqrc::MSG_TOO_BIG_FOR_Q_MGR,
                format!(
                    "message of {} bytes is longer than the queue manager's MAXMSGL {}",
                    data.len(),
                    self.max_msg_length
                ),
            ));
        }
        let mut md = md;
        let now = clock::now_ms();
        if opts.new_msg_id || md.msg_id == ID_NONE {
            md.msg_id = self.ids.next();
        }
        if opts.new_correl_id {
            md.correl_id = self.ids.next();
        }
        md.backout_count = 0;
        if md.coded_char_set_id == ccsi::Q_MGR {
            // MQCCSI_Q_MGR is replaced by the queue manager's CCSID (MQ docs: MQMD CodedCharSetId).
            md.coded_char_set_id = xmit::Q_MGR_CCSID;
        }
        if !opts.pass_all_context {
            // MQPMO_DEFAULT_CONTEXT: the queue manager fills the origin context.
            if let Some(ts) = clock::put_timestamp(now) {
                md.put_date = ts.put_date(charset);
                md.put_time = ts.put_time(charset);
            }
            md.put_appl_type = at::UNIX;
            md.put_appl_name = CharField::new("mqgate", charset).unwrap_or_default();
        }
        if !md.reply_to_q.is_blank(charset) && md.reply_to_q_mgr.is_blank(charset) {
            // MQ docs (MQMD ReplyToQMgr): a blank name is filled with the local queue manager's.
            md.reply_to_q_mgr = CharField::new(&self.name, charset).unwrap_or_default();
        }

        // The unit of work first: a put under one that is not open fails with
        // 2003 whatever the queue's state (not 2053 on a full queue).
        if let Some(id) = opts.uow {
            self.check_uow(id)?;
        }
        // A put is a destination list of one (route::list), resolved
        // without building the list.
        let placed = {
            let table = self.table();
            let dest = table.router.resolve_one(&*table, q, &opts.q_mgr_name)?;
            self.place(table, dest)
        };
        let remote = placed.remote;
        let lq = placed.queue.ok_or_else(|| {
            QmError::new(
                Mqrc::UNKNOWN_OBJECT_NAME,
                format!("queue {q} is not defined"),
            )
        })?;
        let msg = {
            let def = &lq.def;
            if def.put_inhibited {
                return Err(QmError::new(
                    Mqrc::PUT_INHIBITED,
                    format!("puts to queue {} are inhibited", lq.name),
                ));
            }
            if remote.is_none() && def.usage == Usage::Xmitq {
                xmit::check_xqh(&lq.name, &data)?;
            }
            if remote.is_none()
                && let Some(check) = self.put_check.get()
            {
                check.check(&lq.name, &md, charset, &data)?;
            }
            if md.priority == -1 {
                md.priority = def.default_priority;
            }
            if md.persistence == per::PERSISTENCE_AS_Q_DEF {
                md.persistence = match def.default_persistence {
                    DefaultPersistence::Persistent => per::PERSISTENT,
                    DefaultPersistence::NotPersistent => per::NOT_PERSISTENT,
                };
            }
            if def.temporary && md.persistence == per::PERSISTENT {
                return Err(QmError::new(
                    Mqrc::PERSISTENT_NOT_ALLOWED,
                    format!(
                        "queue {} is a temporary dynamic queue: it holds non-persistent messages only",
                        lq.name
                    ),
                ));
            }
            let expires_at_ms = (md.expiry > 0).then(|| now + md.expiry as u64 * 100);
            let msg = match &remote {
                None => Message {
                    md,
                    charset,
                    data,
                    expires_at_ms,
                },
                Some(remote) => xmit::wrap(remote, md, charset, &data, expires_at_ms)?,
            };
            if msg.data.len() > def.max_msg_length {
                return Err(QmError::new(
                    Mqrc::MSG_TOO_BIG_FOR_Q,
                    format!(
                        "message of {} bytes is longer than MAXMSGL {} of queue {}",
                        msg.data.len(),
                        def.max_msg_length,
                        lq.name
                    ),
                ));
            }
            msg
        };
        let def = &lq.def;
        let queue_name = lq.name.to_string();
        let mut contents = lq.lock();
        {
            if contents.deleted {
                return Err(QmError::new(
                    Mqrc::Q_DELETED,
                    format!("queue {} was deleted", def.name),
                ));
            }
            let max_depth = if lq.is_device() {
                self.device_max_depth.load(Ordering::Relaxed)
            } else {
                def.max_depth
            };
            if contents.depth() >= max_depth {
                return Err(QmError::new(
                    Mqrc::Q_FULL,
                    format!("queue {} is full (MAXDEPTH {max_depth})", lq.name),
                ));
            }
            if let Some(quota) = def.max_queue_bytes {
                // A MessageQ byte quota (docs/messageq.md "Configuration"):
                // the data of every message on the queue, committed or not.
                // Counted only for queues that have one; a persistent put
                // outside a unit of work that is still being written is not
                // counted yet (as MAXDEPTH counts it by `reserved`), so two
                // such puts at once may pass a byte quota by one message.
                let used: usize = contents.entries().map(|e| e.index.data_len as usize).sum();
                if used.saturating_add(msg.data.len()) > quota {
                    return Err(QmError::new(
                        Mqrc::Q_FULL,
                        format!(
                            "queue {} is full (byte quota {quota}: {used} bytes held, {} more)",
                            lq.name,
                            msg.data.len()
                        ),
                    ));
                }
            }
        }
        // Numbered under the queue's lock: FIFO within a priority is the
        // order of the numbers.
        let seq = self.next_key();
        let pos = queue::position(msg.md.priority, seq);
        let result = PutResult {
            msg_id: msg.md.msg_id,
            correl_id: msg.md.correl_id,
            queue: queue_name.clone(),
            persistent: msg.is_persistent(),
            warning: priority_warning(msg.md.priority),
        };
        if let Some(uow_id) = opts.uow {
            contents.insert(pos, Entry::resident(msg, EntryState::Putting(uow_id)));
            drop(contents);
            self.join_uow(uow_id, &lq, pos, uow::Held::Put)?;
        } else if msg.is_persistent() {
            contents.reserved += 1;
            drop(contents);
            let mut batch = Batch::default();
            index::stage_put(&mut batch, pos, &queue_name, &msg);
            let written = self.store.apply(&batch);
            let mut contents = lq.lock();
            contents.reserved -= 1;
            written.map_err(store_error)?;
            let index = index::MsgIndex::of(&msg);
            contents.insert(pos, Entry::stored(index, EntryState::Ready));
            drop(contents);
            // Kept for a get soon after (a queue read behind its writer).
            self.cache.insert(seq, Arc::new(msg));
            lq.notify().notify_waiters();
        } else {
            contents.insert(pos, Entry::resident(msg, EntryState::Ready));
            lq.notify().notify_waiters();
        }
        lq.stats.put();
        tracing::debug!(
            queue = %result.queue,
            msg_id = %hex::encode_upper(result.msg_id),
            correl_id = %hex::encode_upper(result.correl_id),
            persistent = result.persistent,
            uow = opts.uow,
            "put"
        );
        Ok(result)
    }

    /// Gets (or browses) the first matching message of queue `q` in priority
    /// then FIFO order, without waiting (2033 when there is none; a message
    /// the selector's filter wants only later is skipped). Expired messages
    /// met on the way are discarded, with an expiry report when the message
    /// asked for one (MQRO_EXPIRATION*). A destructive get outside a unit of
    /// work is committed (removed from the store) before it returns.
    pub fn get(&self, q: &str, sel: &Selector, mode: GetMode) -> Result<GetResult, QmError> {
        self.try_get(q, sel, mode).0
    }

    /// [`QueueManager::get`], also telling the soonest a message skipped by
    /// the selector's filter falls due (for a waiting get).
    fn try_get(
        &self,
        q: &str,
        sel: &Selector,
        mode: GetMode,
    ) -> (Result<GetResult, QmError>, Option<Duration>) {
        if let Err(e) = self.check_running().and_then(|()| names::check_q_name(q)) {
            return (Err(e), None);
        }
        let now = clock::now_ms();
        let mut notes = GetNotes::default();
        let result = self.get_locked(q, sel, mode, now, &mut notes);
        self.discard_expired(notes.expired);
        let result = match (result, notes.implicit_uow) {
            (Ok(r), Some(id)) => self.commit(id).map(|()| r),
            (result, _) => result,
        };
        if let Ok(result) = &result {
            tracing::debug!(
                queue = %result.queue,
                msg_id = %hex::encode_upper(result.md.msg_id),
                correl_id = %hex::encode_upper(result.md.correl_id),
                browse = matches!(mode, GetMode::Browse { .. }),
                "get"
            );
        }
        (result, notes.not_before)
    }

    fn get_locked(
        &self,
        q: &str,
        sel: &Selector,
        mode: GetMode,
        now: u64,
        notes: &mut GetNotes,
    ) -> Result<GetResult, QmError> {
        let placed = {
            let table = self.table();
            let dest = match table.router.resolve_get(&*table, q) {
                Err(e)
                    if e.mqrc == Mqrc::UNKNOWN_OBJECT_NAME
                        && table.router.devices().split(q).is_some() =>
                {
                    return Err(Self::no_device_queue(q));
                }
                other => other?,
            };
            self.place(table, dest)
        };
        let (destructive, uow_id, after) = match mode {
            GetMode::Destructive { uow: Some(id) } => {
                self.check_uow(id)?;
                (true, Some(id), None)
            }
            GetMode::Destructive { uow: None } => (true, None, None),
            GetMode::Browse { after } => (false, None, after),
        };
        let lq = placed.queue.ok_or_else(|| {
            QmError::new(
                Mqrc::UNKNOWN_OBJECT_NAME,
                format!("queue {q} is not defined"),
            )
        })?;
        let queue_name = placed.name;
        if lq.def.get_inhibited {
            return Err(QmError::new(
                Mqrc::GET_INHIBITED,
                format!("gets from queue {} are inhibited", lq.name),
            ));
        }
        // Again after a message another gateway of a shared store got
        // first (its claim won) or removed meanwhile.
        loop {
            let mut contents = lq.lock();
            let mut found_notes = queue::FindNotes::default();
            let found = {
                // A filter reads the messages it is asked about (under the
                // queue's lock, as MQ's selectors read the message).
                let mut load = |p: Position, e: &Entry| self.message_of(p, e, true).ok();
                contents.find(sel, after, now, &mut found_notes, &mut load)
            };
            notes.not_before = found_notes.not_before;
            if destructive {
                for pos in found_notes.expired {
                    if let Some(e) = contents.remove(&pos) {
                        notes.expired.push((pos.1, e));
                    }
                }
            }
            let Some(pos) = found else {
                if let Some(id) = notes.implicit_uow.take() {
                    self.uows().take(id);
                }
                return Err(QmError::new(
                    Mqrc::NO_MSG_AVAILABLE,
                    format!("no message available on queue {queue_name}"),
                ));
            };
            let entry = contents
                .get_mut(&pos)
                .ok_or_else(|| QmError::new(Mqrc::UNEXPECTED_ERROR, "message vanished"))?;
            if destructive && matches!(entry.state, EntryState::Elsewhere(_)) {
                // The claim of the gateway that got it expired: that
                // gateway is gone, and its get counts as backed out.
                entry.index.backout_count = entry.index.backout_count.saturating_add(1);
            }
            let backout_count = entry.index.backout_count;
            let result = |msg: Arc<Message>| GetResult {
                md: Mqmd {
                    backout_count,
                    ..msg.md_at(now)
                },
                charset: msg.charset,
                data: msg.data.clone(),
                position: pos,
                queue: queue_name.clone(),
                warning: None,
            };
            if !destructive {
                return Ok(result(self.message_of(pos, entry, true)?));
            }
            let id = match (uow_id, notes.implicit_uow) {
                (Some(id), _) | (None, Some(id)) => id,
                (None, None) => {
                    let id = self.next_uow.fetch_add(1, Ordering::SeqCst);
                    self.uows().map.insert(id, Uow::new(None, None));
                    notes.implicit_uow = Some(id);
                    id
                }
            };
            // Invisible to others from here: the store read below runs
            // without the queue's lock.
            entry.state = EntryState::Getting(id);
            let resident = entry.resident.as_deref().map(|m| Arc::new(m.clone()));
            let shared = self
                .store
                .shared()
                .filter(|_| entry.index.is_persistent() && resident.is_none());
            drop(contents);
            let read = match shared {
                None => resident.map_or_else(|| self.read_stored(pos.1, false), Ok),
                Some(sh) => match self.claim_and_read(sh, &lq, pos, id) {
                    Ok(Some(m)) => Ok(m),
                    Ok(None) => continue,
                    Err(e) => Err(e),
                },
            };
            let msg = match read {
                Ok(m) => m,
                Err(e) => {
                    if let Some(entry) = lq.lock().get_mut(&pos) {
                        entry.state = EntryState::Ready;
                    }
                    lq.notify().notify_waiters();
                    if let Some(id) = notes.implicit_uow.take() {
                        self.uows().take(id);
                    }
                    return Err(e);
                }
            };
            lq.stats.got();
            self.join_uow(id, &lq, pos, uow::Held::Get)?;
            return Ok(result(msg));
        }
    }

    /// On a shared store: claims the stored message at `pos` of `lq`,
    /// which unit of work `id` is getting, and reads it from the store
    /// (never from the body cache: another gateway may have removed it).
    /// `Ok(None)` when another gateway holds it (then marked so until its
    /// claim ends) or removed it (then gone from `lq`): the get looks for
    /// the next message.
    fn claim_and_read(
        &self,
        sh: &dyn crate::store::SharedStore,
        lq: &Arc<LocalQueue>,
        pos: Position,
        id: u64,
    ) -> Result<Option<Arc<Message>>, QmError> {
        let leave = |state: Option<EntryState>| {
            let mut contents = lq.lock();
            match state {
                Some(state) => {
                    if let Some(e) = contents.get_mut(&pos)
                        && e.state == EntryState::Getting(id)
                    {
                        e.state = state;
                    }
                }
                None => {
                    contents.remove(&pos);
                }
            }
        };
        match sh.claim(pos.1).map_err(store_error)? {
            crate::store::Claim::Held => {}
            crate::store::Claim::Taken { remaining_ms } => {
                leave(Some(EntryState::Elsewhere(clock::now_ms() + remaining_ms)));
                return Ok(None);
            }
        }
        let read = self.store.read(pos.1);
        match read {
            Ok(Some(rec)) => match record::decode(&rec) {
                Ok((_, msg)) => Ok(Some(Arc::new(msg))),
                Err(e) => {
                    let _ = sh.release(pos.1);
                    Err(QmError::new(
                        Mqrc::RESOURCE_PROBLEM,
                        format!("stored message {} cannot be read: {e}", pos.1),
                    ))
                }
            },
            Ok(None) => {
                let _ = sh.release(pos.1);
                self.cache.remove(pos.1);
                leave(None);
                Ok(None)
            }
            Err(e) => {
                let _ = sh.release(pos.1);
                Err(store_error(e))
            }
        }
    }

    /// Like [`QueueManager::get`], waiting up to `wait` for a matching message
    /// (MQGMO_WAIT). The waiter sleeps until a message on the queue becomes
    /// ready (put, commit or backout), a message the selector's filter
    /// skipped falls due ([`Match::NotBefore`]), the filter's answers change
    /// ([`MessageFilter::changes`]) or the wait ends — no polling. 2033 on
    /// timeout, 2161 when the queue manager starts to stop.
    pub async fn get_wait(
        self: &Arc<Self>,
        q: &str,
        sel: Selector,
        mode: GetMode,
        wait: Duration,
    ) -> Result<GetResult, QmError> {
        names::check_q_name(q)?;
        let deadline = tokio::time::Instant::now() + wait;
        let mut quiescing = self.quiescing.subscribe();
        let changes = sel.filter.as_ref().and_then(|f| f.changes());
        loop {
            // The queue itself, held while waiting: a device queue is not
            // retired under a waiting getter. A device queue that does not
            // exist is waited for through its device's watch instead.
            let (queue, mut device_watch) = self.waiter_of(q)?;
            let notified = queue.as_ref().map(|lq| lq.notify().notified());
            tokio::pin!(notified);
            if let Some(n) = notified.as_mut().as_pin_mut() {
                // Enabled before looking, so a put in between is not missed.
                n.enable();
            }
            let mut changed = changes.as_ref().map(|n| Box::pin(n.notified()));
            if let Some(c) = changed.as_mut() {
                c.as_mut().enable();
            }
            let (qm, name, attempt_sel) = (Arc::clone(self), q.to_string(), sel.clone());
            let (attempt, not_before) =
                tokio::task::spawn_blocking(move || qm.try_get(&name, &attempt_sel, mode))
                    .await
                    .map_err(|e| {
                        QmError::new(Mqrc::UNEXPECTED_ERROR, format!("get task failed: {e}"))
                    })?;
            match attempt {
                Err(e) if e.mqrc == Mqrc::NO_MSG_AVAILABLE => {}
                other => return other,
            }
            let now = tokio::time::Instant::now();
            if now >= deadline {
                return Err(QmError::new(
                    Mqrc::NO_MSG_AVAILABLE,
                    format!(
                        "no message arrived on queue {q} within {} ms",
                        wait.as_millis()
                    ),
                ));
            }
            // At least 1 ms, so a filter answering "due in 0 ms" cannot spin.
            let wake = not_before.map_or(deadline, |d| {
                deadline.min(now + d.max(Duration::from_millis(1)))
            });
            let changed = async {
                match changed.as_mut() {
                    Some(c) => c.await,
                    None => std::future::pending().await,
                }
            };
            let ready = async {
                match (notified.as_mut().as_pin_mut(), device_watch.as_mut()) {
                    (Some(n), _) => n.await,
                    (None, Some(w)) => {
                        if w.rx.changed().await.is_err() {
                            std::future::pending::<()>().await;
                        }
                    }
                    (None, None) => std::future::pending().await,
                }
            };
            tokio::select! {
                _ = ready => {}
                _ = changed => {}
                _ = tokio::time::sleep_until(wake) => {}
                _ = quiescing.wait_for(|q| *q) => {
                    return Err(QmError::new(Mqrc::Q_MGR_QUIESCING, "the queue manager is stopping"));
                }
            }
        }
    }

    /// What a waiting get on `q` sleeps on: the local queue it resolves
    /// to, or for a device queue that does not exist, a watch on its
    /// device taken before the last look (so its creation is not missed).
    /// Errors: as the name's resolution (2085 for an unknown name that is
    /// no device queue's).
    fn waiter_of(
        &self,
        q: &str,
    ) -> Result<
        (
            Option<Arc<LocalQueue>>,
            Option<device_index::BorrowedWatch<'_>>,
        ),
        QmError,
    > {
        let look = || -> Result<Option<Arc<LocalQueue>>, QmError> {
            let table = self.table();
            match table.router.resolve_get(&*table, q) {
                Ok(dest) => Ok(self.place(table, dest).queue),
                Err(e)
                    if e.mqrc == Mqrc::UNKNOWN_OBJECT_NAME
                        && table.router.devices().split(q).is_some() =>
                {
                    Ok(None)
                }
                Err(e) => Err(e),
            }
        };
        if let Some(lq) = look()? {
            return Ok((Some(lq), None));
        }
        let owner = self.table().router.devices().owner(q);
        let Some(device) = owner else {
            return Err(QmError::new(
                Mqrc::UNKNOWN_OBJECT_NAME,
                format!("queue {q} is not defined"),
            ));
        };
        let watch = self.watch_device_borrowed(device);
        match look()? {
            Some(lq) => Ok((Some(lq), None)),
            None => Ok((None, Some(watch))),
        }
    }

    /// Every queue object with its type and, for local queues, CURDEPTH.
    pub fn queues(&self) -> Vec<QueueInfo> {
        let table = self.table();
        let mut out: Vec<QueueInfo> = table
            .objects
            .iter()
            .map(|(name, obj)| {
                probe::queue_listed();
                QueueInfo {
                    name: name.to_string(),
                    kind: obj.kind(),
                    depth: match obj {
                        Object::Local(q) => Some(q.lock().depth()),
                        _ => None,
                    },
                }
            })
            .collect();
        drop(table);
        out.sort_by(|a, b| a.name.cmp(&b.name));
        out
    }

    /// Stops accepting work: new puts and gets fail with 2161 and waiting
    /// getters return 2161.
    pub fn quiesce(&self) {
        self.quiescing.send_replace(true);
    }

    /// True once [`QueueManager::quiesce`] was called.
    pub fn is_quiescing(&self) -> bool {
        *self.quiescing.borrow()
    }

    /// Quiesces, then backs out every open unit of work (leases included).
    pub fn shutdown(&self) {
        self.quiesce();
        let ids: Vec<u64> = self.uows().map.keys().copied().collect();
        for id in ids {
            if let Err(e) = self.backout(id) {
                tracing::warn!(uow = id, error = %e, "backout at shutdown failed");
            }
        }
        tracing::info!(queue_manager = %self.name, "queue manager stopped");
    }
}

/// Checks the MD fields a put relies on (MQ's MQPUT checks).
/// MQ's highest priority (MQPRI: 0-9); above it a put is queued at 9.
const MAX_PRIORITY: i32 = 9;
/// MQMT_APPL_FIRST / MQMT_APPL_LAST (IBM MQ "MsgType (MQLONG)").
const MT_APPL: std::ops::RangeInclusive<i32> = 65_536..=999_999_999;

/// 2049 for a Priority above [`MAX_PRIORITY`] (the message is queued at 9;
/// `queue::position` clamps).
fn priority_warning(priority: i32) -> Option<QmError> {
    (priority > MAX_PRIORITY).then(|| {
        QmError::new(
            Mqrc::PRIORITY_EXCEEDS_MAXIMUM,
            format!(
                "Priority {priority} is above the maximum {MAX_PRIORITY}; the message is queued at priority {MAX_PRIORITY} and its MD keeps {priority}"
            ),
        )
    })
}

fn check_md(md: &Mqmd) -> Result<(), QmError> {
    // IBM MQ "MsgType (MQLONG)": MQ's types 1, 2, 4, 8 and the application
    // range; 0 and the rest of the system range are 2029.
    if !(matches!(
        md.msg_type,
        mt::REQUEST | mt::REPLY | mt::REPORT | mt::DATAGRAM
    ) || MT_APPL.contains(&md.msg_type))
    {
        return Err(QmError::new(
            Mqrc::MSG_TYPE_ERROR,
            format!(
                "MsgType {} is not 1 (request), 2 (reply), 4 (report), 8 (datagram) or an application type 65536-999999999",
                md.msg_type
            ),
        ));
    }
    // IBM MQ "CodedCharSetId (MQLONG)" (MQCCSI_*): the negative values with a
    // meaning are -1 to -4; a CodedCharSetId below that names no character set.
    if md.coded_char_set_id < ccsi::AS_PUBLISHED {
        return Err(QmError::new(
            Mqrc::MD_ERROR,
            format!(
                "CodedCharSetId {} is negative and not one of the MQCCSI values -1 to -4",
                md.coded_char_set_id
            ),
        ));
    }
    if md.priority < -1 {
        return Err(QmError::new(
            Mqrc::PRIORITY_ERROR,
            format!(
                "Priority {} is not 0-9 or -1 (as queue definition)",
                md.priority
            ),
        ));
    }
    if !matches!(
        md.persistence,
        per::NOT_PERSISTENT | per::PERSISTENT | per::PERSISTENCE_AS_Q_DEF
    ) {
        return Err(QmError::new(
            Mqrc::PERSISTENCE_ERROR,
            format!("Persistence {} is not 0, 1 or 2", md.persistence),
        ));
    }
    if md.expiry <= 0 && md.expiry != mdc::EI_UNLIMITED {
        return Err(QmError::new(
            Mqrc::EXPIRY_ERROR,
            format!(
                "Expiry {} is neither positive nor -1 (unlimited)",
                md.expiry
            ),
        ));
    }
    Ok(())
}

#[cfg(test)]
mod filter_tests;
#[cfg(test)]
mod idle_tests;
#[cfg(all(test, feature = "nats"))]
mod shared_tests;
#[cfg(test)]
mod stored_tests;
#[cfg(test)]
mod tests;

//! The Tuxedo gateway (the TOP END Domain Gateway; BEA Tuxedo "Using the BEA Tuxedo TOP END
//! Domain Gateway"): tpenqueue onto RTQ queues, and RTQ servers taking their due requests.
//!
//! RTQ queues are queue-manager local queues named `RTQ.<group>.<name>`
//! (TE_RTQGROUP, TE_RTQNAME), so requests live in the same store, with the
//! same units of work and leases, as every other message. This module is a
//! thin layer on top of the queue interface ([`Mqi`], so the queue exits of
//! the `exits:` section run for RTQ queues as for every queue): it checks a
//! request with `plan_enqueue` (the codecs' tables), keeps the schedule and
//! the TOP END service in a request header ([`envelope`]), and hands out only
//! requests whose schedule time has come (a get with a filter, see
//! [`RtqRequestFilter`]). docs/tuxedo.md describes the behaviour.

pub mod clock;
pub mod config;
pub mod envelope;
pub mod fmljson;
mod guard;
pub mod http;
mod load;

pub use guard::RtqQueues;
pub use load::{Loaded, load, queue_defs};

use crate::mqi::{GetRequest, Mqi, Outgoing};
use crate::mqi::{Match, MessageFilter, PutOptions, QmError, Selector, Token};
use bytes::Bytes;
use clock::Clock;
use config::RtqState;
use envelope::RequestHeader;
use mqgate_codecs::mq::constants::per;
use mqgate_codecs::mq::{CharField, Charset, Mqmd, Mqrc};
use mqgate_codecs::tux::codes::{TpError, Tperrno};
use mqgate_codecs::tux::dmconfig::DmConfig;
use mqgate_codecs::tux::enqueue::{EnqueueRequest, plan_enqueue};
use mqgate_codecs::tux::fieldtbl::FieldTable;
use mqgate_codecs::tux::rtq::{RequestId, RtqStatus};
use mqgate_codecs::tux::tedg::TedgFailure;
use mqgate_codecs::tux::tpqctl::parse_flag_names;
use std::collections::HashMap;
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Arc, Mutex};
use std::time::Duration;
use tokio::sync::Notify;

/// Loads the DMCONFIG named by `config.dmconfig` (if any) and adds its RTQ
/// queues to `config.queues` (a queue already defined there is kept as
/// defined). Errors: one line per problem, with file and line.
pub fn load_from_config(config: &mut crate::config::Config) -> Result<Option<Loaded>, Vec<String>> {
    let Some(path) = config.dmconfig.clone() else {
        return Ok(None);
    };
    let loaded = load(&path, &config.tedg)?;
    for def in queue_defs(&loaded) {
        if !config.queues.iter().any(|q| q.name() == def.name()) {
            config.queues.push(def);
        }
    }
    Ok(Some(loaded))
}

/// The queue-manager queue that holds RTQ queue `group`/`name`.
pub fn qm_queue_name(group: &str, name: &str) -> String {
    format!("RTQ.{group}.{name}")
}

/// Room for the request header on top of a queue's `max_request_bytes`.
pub const HEADER_ALLOWANCE: usize = envelope::MAX_HEADER + 4;

/// A tpenqueue call as the front ends give it.
#[derive(Clone, Debug, Default)]
pub struct Tpenqueue {
    /// The qspace argument.
    pub qspace: String,
    /// The qname argument.
    pub qname: String,
    /// TPQCTL flags, tpenqueue call flags and QOS value names.
    pub flags: Vec<String>,
    /// TPQCTL deq_time (seconds).
    pub deq_time: i64,
    /// The buffer type.
    pub buftype: String,
    /// The buffer (FML32: encoded).
    pub data: Vec<u8>,
    /// The caller's unit of work, if it is in one: its token as the caller
    /// wrote it (32 hex digits from `POST /v1/uow`, src/qmgr/token.rs).
    pub uow: Option<String>,
    /// The client buffer is encrypted (mqgate holds no keys to decrypt it).
    pub encrypted: bool,
    /// The client buffer carries a digital signature (mqgate cannot remove it).
    pub signed: bool,
}

/// A successful tpenqueue.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Enqueued {
    /// The RTQ request id.
    pub request_id: RequestId,
    /// TPQMSGID was set: the id goes into TPQCTL msgid.
    pub return_request_id: bool,
    /// The request header as stored.
    pub header: RequestHeader,
}

/// A failed tpenqueue: the tperrno/diagnostic and what was wrong.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct TpFailure {
    /// tperrno and TPQCTL diagnostic.
    pub error: TpError,
    /// A sentence naming what was wrong.
    pub message: String,
}

impl From<TedgFailure> for TpFailure {
    fn from(f: TedgFailure) -> Self {
        TpFailure {
            error: f.tp_error(),
            message: f.to_string(),
        }
    }
}

/// The RTQ status for a queue-manager failure of an RTQ put (mqgate's
/// definitions, docs/tuxedo.md "RTQ codes"): 2053 Q_FULL → TP_RTQ_NO_SPACE;
/// 2030/2031 (too big) → TP_RTQ_EOF; 2051 PUT_INHIBITED → TP_RTQ_QDISABLED;
/// 2071 STORAGE_NOT_AVAILABLE → TP_RTQ_MEMERR; 2161/2162 (stopping) →
/// TP_RESET; 2085 (queue missing) → none (an on-demand connection failure);
/// anything else (2102 store failure...) → TP_RTQ_ERROR.
pub fn rtq_status_for(mqrc: Mqrc) -> Option<RtqStatus> {
    match mqrc {
        Mqrc::Q_FULL => Some(RtqStatus::RtqNoSpace),
        Mqrc::MSG_TOO_BIG_FOR_Q | Mqrc::MSG_TOO_BIG_FOR_Q_MGR => Some(RtqStatus::RtqEof),
        Mqrc::PUT_INHIBITED => Some(RtqStatus::RtqQDisabled),
        Mqrc::STORAGE_NOT_AVAILABLE => Some(RtqStatus::RtqMemErr),
        Mqrc::Q_MGR_QUIESCING | Mqrc::Q_MGR_STOPPING => Some(RtqStatus::Reset),
        Mqrc::UNKNOWN_OBJECT_NAME => None,
        _ => Some(RtqStatus::RtqError),
    }
}

/// An RTQ queue's runtime attributes.
#[derive(Clone, Copy, Debug)]
struct QueueAttrs {
    state: RtqState,
    max_request_bytes: usize,
}

/// Which requests an RTQ server takes (empty = any).
#[derive(Clone, Debug, Default)]
pub struct ServiceFilter {
    /// Only requests for this TE_PRODUCT.
    pub product: Option<String>,
    /// Only requests for this TE_FUNCTION.
    pub function: Option<String>,
}

impl ServiceFilter {
    fn matches(&self, h: &RequestHeader) -> bool {
        self.product.as_deref().is_none_or(|p| p == h.product)
            && self.function.as_deref().is_none_or(|f| f == h.function)
    }
}

/// The message filter of an RTQ server's get: a message is wanted when it is
/// an RTQ request (its data reads as an [`envelope`]; puts of anything else
/// are refused by [`RtqQueues`], and such a message stored before that
/// check existed is skipped), is for the server's service
/// ([`ServiceFilter`]), and its schedule time has come on the gateway's
/// clock; a request scheduled later is [`Match::NotBefore`] its due time, so
/// a waiting server wakes when it falls due.
pub struct RtqRequestFilter {
    service: ServiceFilter,
    clock: Arc<dyn Clock>,
}

impl RtqRequestFilter {
    /// The filter for `service`, reading the time from `clock`.
    pub fn new(service: ServiceFilter, clock: Arc<dyn Clock>) -> RtqRequestFilter {
        RtqRequestFilter { service, clock }
    }
}

impl MessageFilter for RtqRequestFilter {
    fn check(&self, md: &Mqmd, data: &[u8]) -> Match {
        let header = match envelope::decode(data) {
            Ok((h, _)) => h,
            Err(e) => {
                tracing::debug!(msg_id = %hex::encode_upper(md.msg_id), error = %e, "not an RTQ request; skipped");
                return Match::No;
            }
        };
        if !self.service.matches(&header) {
            return Match::No;
        }
        let now_ms = self.clock.now_ms();
        if clock::is_due(header.due_at, now_ms.div_euclid(1000)) {
            Match::Yes
        } else {
            let due_ms = header.due_at.saturating_mul(1000);
            Match::NotBefore(Duration::from_millis(
                u64::try_from(due_ms.saturating_sub(now_ms)).unwrap_or(0),
            ))
        }
    }

    fn changes(&self) -> Option<Arc<Notify>> {
        self.clock.changes()
    }
}

/// A due request handed to an RTQ server under a lease.
#[derive(Clone, Debug)]
pub struct Taken {
    /// Its header.
    pub header: RequestHeader,
    /// The client's buffer.
    pub data: Bytes,
    /// The lease's token (128 random bits, src/qmgr/token.rs) to
    /// acknowledge or back out with.
    pub lease: Token,
    /// How many times it was handed out and backed out before.
    pub backout_count: i32,
}

/// The gateway.
pub struct Tedg {
    dm: DmConfig,
    fields: Option<FieldTable>,
    mqi: Mqi,
    clock: Arc<dyn Clock>,
    queues: Mutex<HashMap<(String, String), QueueAttrs>>,
    id_prefix: u64,
    id_seq: AtomicU64,
    client_id: String,
    lease_ms: u64,
    /// The queue spaces served only while the gateway is the active member
    /// of its fault tolerance group, if any.
    role: Option<Arc<QspaceRole>>,
}

/// Queue spaces that are a fault tolerance role (docs/rendezvous.md
/// "mqgate's own roles"): the TEDG serves them only while the gateway is
/// the active member of its group. Clones of the `Arc` share the switch.
#[derive(Debug)]
pub struct QspaceRole {
    qspaces: Vec<String>,
    held: std::sync::atomic::AtomicBool,
}

impl QspaceRole {
    /// The role of queue spaces `qspaces` (QSPACE names), not held.
    pub fn new(qspaces: Vec<String>) -> QspaceRole {
        QspaceRole {
            qspaces,
            held: std::sync::atomic::AtomicBool::new(false),
        }
    }

    /// The queue spaces of the role.
    pub fn qspaces(&self) -> &[String] {
        &self.qspaces
    }

    /// Serves the queue spaces (`true`) or stops serving them.
    pub fn set_held(&self, held: bool) {
        self.held.store(held, Ordering::SeqCst);
    }

    /// Whether the gateway serves them now.
    pub fn held(&self) -> bool {
        self.held.load(Ordering::SeqCst)
    }

    /// Whether queue space `qspace` is of the role and not served now.
    fn refuses(&self, qspace: &str) -> bool {
        !self.held() && self.qspaces.iter().any(|q| q == qspace)
    }
}

impl Tedg {
    /// The gateway for a loaded DMCONFIG over the queue interface `mqi`
    /// (whose queue manager's RTQ queues were created from [`queue_defs`]),
    /// reading time from `clock`; requests are leased for `lease_ms` ms.
    pub fn new(loaded: Loaded, mqi: Mqi, clock: Arc<dyn Clock>, lease_ms: u64) -> Tedg {
        let mut queues = HashMap::new();
        for q in &loaded.dm.remote_services.qspaces {
            let key = (q.rtq_group.clone(), q.rtq_name.clone());
            let cfg = loaded
                .queue_config
                .iter()
                .find(|c| c.group == key.0 && c.name == key.1);
            queues.insert(
                key,
                QueueAttrs {
                    state: cfg.map_or(RtqState::Enabled, |c| c.state),
                    max_request_bytes: cfg
                        .map_or(config::DEFAULT_MAX_REQUEST_BYTES, |c| c.max_request_bytes),
                },
            );
        }
        let client_id = loaded
            .dm
            .local_domains
            .first()
            .map(|d| d.domainid.clone())
            .unwrap_or_default();
        // Request ids: start time in ns then a counter, so ids are unique
        // across restarts of one gateway (mqgate's request_id, docs/tuxedo.md).
        let id_prefix = std::time::SystemTime::now()
            .duration_since(std::time::UNIX_EPOCH)
            .map_or(0, |d| d.as_nanos() as u64);
        Tedg {
            dm: loaded.dm,
            fields: loaded.fields,
            mqi,
            clock,
            queues: Mutex::new(queues),
            id_prefix,
            id_seq: AtomicU64::new(1),
            client_id,
            lease_ms,
            role: None,
        }
    }

    /// Serves the queue spaces of `role` only while it is held: a
    /// tpenqueue to one of them fails with TPENOENT otherwise, and `next`
    /// on an RTQ queue that only such queue spaces name fails with 2016
    /// MQRC_GET_INHIBITED (docs/tuxedo.md "Fault tolerance").
    pub fn with_role(mut self, role: Arc<QspaceRole>) -> Tedg {
        self.role = Some(role);
        self
    }

    /// Whether RTQ queue `group`/`name` is named only by queue spaces of
    /// the role that are not served now.
    fn queue_refused(&self, group: &str, name: &str) -> bool {
        let Some(role) = &self.role else {
            return false;
        };
        let mut naming = self
            .dm
            .remote_services
            .qspaces
            .iter()
            .filter(|q| q.rtq_group == group && q.rtq_name == name)
            .peekable();
        naming.peek().is_some() && naming.all(|q| role.refuses(&q.name))
    }

    /// The field table for FML32 JSON, if configured.
    pub fn field_table(&self) -> Option<&FieldTable> {
        self.fields.as_ref()
    }

    /// The lease length of `next`, in ms.
    pub fn lease_ms(&self) -> u64 {
        self.lease_ms
    }

    fn next_request_id(&self) -> RequestId {
        let mut id = [0u8; 16];
        id[..8].copy_from_slice(&self.id_prefix.to_be_bytes());
        id[8..].copy_from_slice(&self.id_seq.fetch_add(1, Ordering::SeqCst).to_be_bytes());
        RequestId(id)
    }

    fn attrs(&self, group: &str, name: &str) -> Option<QueueAttrs> {
        let q = self.queues.lock().unwrap_or_else(|p| p.into_inner());
        q.get(&(group.to_string(), name.to_string())).copied()
    }

    /// Every RTQ queue: (group, name, state, depth).
    pub fn list(&self) -> Vec<(String, String, RtqState, Option<usize>)> {
        let depths: HashMap<String, Option<usize>> = self
            .mqi
            .queues()
            .into_iter()
            .map(|q| (q.name, q.depth))
            .collect();
        let q = self.queues.lock().unwrap_or_else(|p| p.into_inner());
        let mut out: Vec<_> = q
            .iter()
            .map(|((g, n), a)| {
                let depth = depths.get(&qm_queue_name(g, n)).copied().flatten();
                (g.clone(), n.clone(), a.state, depth)
            })
            .collect();
        out.sort_by(|a, b| (&a.0, &a.1).cmp(&(&b.0, &b.1)));
        out
    }

    /// Sets an RTQ queue's state (admin); `false` when no QSPACE names it.
    pub fn set_state(&self, group: &str, name: &str, state: RtqState) -> bool {
        let mut q = self.queues.lock().unwrap_or_else(|p| p.into_inner());
        match q.get_mut(&(group.to_string(), name.to_string())) {
            Some(a) => {
                a.state = state;
                tracing::info!(
                    group,
                    queue = name,
                    state = state.name(),
                    "RTQ queue state set"
                );
                true
            }
            None => false,
        }
    }

    /// Whether `principal` may enqueue to queue space `qspace`: +put on the
    /// queue-manager queue of its RTQ queue (`RTQ.GROUP.NAME`,
    /// docs/security.md "Authorities"); allowed when authorities are not
    /// checked or the queue space is unknown (tpenqueue refuses it then).
    /// Errors: 2035 MQRC_NOT_AUTHORIZED.
    pub fn authorize_enqueue(
        &self,
        principal: Option<&crate::security::Principal>,
        qspace: &str,
    ) -> Result<(), QmError> {
        if !self.mqi.checks_authorities() {
            return Ok(());
        }
        let Some(q) = self.dm.qspace(qspace) else {
            return Ok(());
        };
        self.mqi.authorize(
            principal,
            crate::security::ObjectType::Queue,
            &qm_queue_name(&q.rtq_group, &q.rtq_name),
            crate::security::Authority::Put,
        )
    }

    /// tpenqueue as the TEDG performs it (the TEDG guide): `plan_enqueue` checks
    /// the request against DMCONFIG and the flag and error tables, then the
    /// RTQ put goes to the queue-manager queue through [`Mqi::put`] (the
    /// queue's before_put exits run once), inside the caller's unit of work
    /// unless TPNOTRAN.
    pub async fn tpenqueue(&self, req: &Tpenqueue) -> Result<Enqueued, TpFailure> {
        let named =
            parse_flag_names(req.flags.iter().map(String::as_str)).map_err(|e| TpFailure {
                error: TpError::tperrno(Tperrno::TPEINVAL),
                message: e.to_string(),
            })?;
        let plan = plan_enqueue(
            &self.dm,
            &EnqueueRequest {
                qspace: &req.qspace,
                qname: &req.qname,
                flags: &named,
                deq_time: req.deq_time,
                buftype: &req.buftype,
                data: &req.data,
            },
        )?;
        if self.role.as_ref().is_some_and(|r| r.refuses(&req.qspace)) {
            // tpenqueue(3c): TPENOENT, "the qspace is not available".
            return Err(TpFailure {
                error: TpError::tperrno(Tperrno::TPENOENT),
                message: format!(
                    "queue space {} is served by the active gateway of this gateway's fault tolerance group; this gateway is not active",
                    req.qspace
                ),
            });
        }
        if req.encrypted {
            return Err(TedgFailure::Decryption.into());
        }
        if req.signed {
            return Err(TedgFailure::Signature.into());
        }
        let (group, name) = (&plan.queue.group, &plan.queue.name);
        let attrs = self.attrs(group, name).ok_or_else(|| {
            TpFailure::from(TedgFailure::OnDemandConnection {
                reason: format!("RTQ queue {group}/{name} is not served"),
            })
        })?;
        let request_id = self.next_request_id();
        let uow = if plan.params.in_caller_transaction {
            req.uow.as_deref().map(|t| self.open_uow(t)).transpose()?
        } else {
            None
        };
        let rtq = |status: RtqStatus, why: String| TpFailure {
            error: TedgFailure::Rtq(status).tp_error(),
            message: format!("RTQ returned {status}: {why}"),
        };
        match attrs.state {
            RtqState::Stopped => {
                return Err(rtq(
                    RtqStatus::Service,
                    format!("the RTQ service of {group}/{name} is stopped"),
                ));
            }
            RtqState::Disabled => {
                return Err(rtq(
                    RtqStatus::RtqQDisabled,
                    format!("RTQ queue {group}/{name} is disabled"),
                ));
            }
            RtqState::Enabled => {}
        }
        if req.data.len() > attrs.max_request_bytes {
            return Err(rtq(
                RtqStatus::RtqEof,
                format!(
                    "a request of {} bytes does not fit RTQ queue {group}/{name} (max_request_bytes {})",
                    req.data.len(),
                    attrs.max_request_bytes
                ),
            ));
        }
        let now = self.clock.now_secs();
        let header = RequestHeader {
            request_id: request_id.to_string(),
            qspace: req.qspace.clone(),
            qname: req.qname.clone(),
            product: plan.service.product.clone(),
            function: plan.service.function.clone(),
            target: plan.service.target.clone(),
            qualifier: plan.service.qualifier,
            queue_target: plan.queue.target.clone(),
            schedule_time: plan.params.schedule.to_string(),
            due_at: plan.params.schedule.due_at(now),
            put_time: now,
            buftype: plan.buftype.name().to_string(),
            client_id: self.client_id.clone(),
        };
        let md = Mqmd {
            msg_id: msg_id_of(request_id),
            persistence: per::PERSISTENT,
            format: CharField::new(envelope::FORMAT, Charset::Ascii).unwrap_or_default(),
            ..Mqmd::default()
        };
        let opts = PutOptions {
            uow,
            ..PutOptions::default()
        };
        let msg = Outgoing {
            md,
            charset: Charset::Ascii,
            data: Bytes::from(envelope::encode(&header, &req.data)),
        };
        let qname = qm_queue_name(group, name);
        let transactional = req.uow.is_some() && opts.uow.is_some();
        let obj = self
            .mqi
            .open(&qname, "")
            .map_err(|e| self.put_failure(e, transactional))?;
        let uow = opts.uow;
        self.mqi
            .put(&obj, msg, opts)
            .await
            .map_err(|e| self.put_failure(e, transactional))?;
        tracing::debug!(
            request_id = %header.request_id,
            qspace = %header.qspace,
            qname = %header.qname,
            queue = %qname,
            schedule_time = %header.schedule_time,
            due_at = header.due_at,
            uow,
            "tpenqueue"
        );
        Ok(Enqueued {
            request_id,
            return_request_id: plan.params.return_request_id,
            header,
        })
    }

    /// The caller's open unit of work named by token `text`, or TPETRAN
    /// when there is none (tpenqueue(3c): the call cannot join the caller's
    /// transaction): not a token, committed, backed out, expired, begun
    /// before a restart, or a lease's token. Checked before the queue's
    /// state and room so a closed unit of work is never reported as
    /// QMENOSPACE.
    fn open_uow(&self, text: &str) -> Result<u64, TpFailure> {
        Token::parse(text)
            .and_then(|t| self.mqi.uow_for_token(t).ok())
            .ok_or_else(|| TpFailure {
                error: TpError::tperrno(Tperrno::TPETRAN),
                message: format!(
                    "unit of work {} is not open (committed, backed out, expired or not begun since the gateway started): the tpenqueue cannot join it",
                    crate::mqi::names::shown(text)
                ),
            })
    }

    fn put_failure(&self, e: QmError, transactional: bool) -> TpFailure {
        if transactional && e.mqrc == Mqrc::BACKED_OUT {
            // The caller's unit of work is not open: it cannot join it
            // (tpenqueue(3c) TPETRAN; mqgate's choice, the TEDG guide is silent).
            return TpFailure {
                error: TpError::tperrno(Tperrno::TPETRAN),
                message: e.message,
            };
        }
        match rtq_status_for(e.mqrc) {
            Some(status) => TpFailure {
                error: TedgFailure::Rtq(status).tp_error(),
                message: format!("RTQ returned {status}: {}", e.message),
            },
            None => TedgFailure::OnDemandConnection { reason: e.message }.into(),
        }
    }

    /// Takes the first due request of RTQ queue `group`/`name` matching
    /// `filter`, waiting up to `wait` (an exit may lengthen it to
    /// `max_wait`), under a lease of `lease_ms()`: one [`Mqi::get_leased`]
    /// with an [`RtqRequestFilter`], so the queue's before_get and after_get
    /// exits run once and the server sees what after_get left. Acknowledge
    /// with [`Tedg::ack`], back out with [`Tedg::backout`].
    ///
    /// Errors: 2085 for a queue no QSPACE names; 2016 when only queue
    /// spaces of a fault tolerance role not held now name it
    /// ([`Tedg::with_role`]); 2033 when nothing became due; 2195 when
    /// after_get left data that is no RTQ request (the lease is backed
    /// out); the queue interface's get errors.
    pub async fn next(
        &self,
        group: &str,
        name: &str,
        filter: &ServiceFilter,
        wait: Duration,
        max_wait: Duration,
    ) -> Result<Taken, QmError> {
        if self.attrs(group, name).is_none() {
            return Err(QmError::new(
                Mqrc::UNKNOWN_OBJECT_NAME,
                format!("no QSPACE names RTQ queue {group}/{name}"),
            ));
        }
        if self.queue_refused(group, name) {
            return Err(QmError::new(
                Mqrc::GET_INHIBITED,
                format!(
                    "RTQ queue {group}/{name} belongs to queue spaces served by the active gateway of this gateway's fault tolerance group; this gateway is not active"
                ),
            ));
        }
        let obj = self.mqi.open(&qm_queue_name(group, name), "")?;
        let filter = RtqRequestFilter::new(filter.clone(), Arc::clone(&self.clock));
        let req = GetRequest {
            selector: Selector {
                filter: Some(Arc::new(filter)),
                ..Selector::default()
            },
            wait,
            max_wait,
        };
        let lease = Duration::from_millis(self.lease_ms);
        let leased = match self.mqi.get_leased(&obj, req, lease).await {
            Err(e) if e.mqrc == Mqrc::NO_MSG_AVAILABLE => {
                return Err(QmError::new(
                    Mqrc::NO_MSG_AVAILABLE,
                    format!("no due request on RTQ queue {group}/{name}"),
                ));
            }
            other => other?,
        };
        let got = &leased.got.message;
        match envelope::decode(&got.data) {
            Ok((header, data)) => Ok(Taken {
                header,
                data: got.data.slice_ref(data),
                lease: leased.lease,
                backout_count: got.md.backout_count,
            }),
            Err(e) => {
                // The stored request decoded (the filter took it), so an
                // after_get exit changed it: hand nothing out.
                if let Err(b) = self.mqi.backout_lease(&obj, leased.lease).await {
                    tracing::warn!(lease = %leased.lease, error = %b, "backout of an unreadable RTQ request failed; it returns when its lease expires");
                }
                Err(QmError::new(
                    Mqrc::UNEXPECTED_ERROR,
                    format!("RTQ request changed by an after_get exit: {e}"),
                ))
            }
        }
    }

    /// Acknowledges lease `lease` of RTQ queue `group`/`name`: the request
    /// is done and removed (durable when this returns). Errors: 2003
    /// MQRC_BACKED_OUT when the lease is not open on that queue; the store's
    /// errors.
    pub async fn ack(&self, group: &str, name: &str, lease: Token) -> Result<(), QmError> {
        let obj = self.open_lease(group, name, lease)?;
        self.mqi.ack(&obj, lease).await
    }

    /// Backs out lease `lease` of RTQ queue `group`/`name`: the request
    /// returns now with its backout count + 1. Errors: as [`Tedg::ack`].
    pub async fn backout(&self, group: &str, name: &str, lease: Token) -> Result<(), QmError> {
        let obj = self.open_lease(group, name, lease)?;
        self.mqi.backout_lease(&obj, lease).await
    }

    fn open_lease(
        &self,
        group: &str,
        name: &str,
        lease: Token,
    ) -> Result<crate::mqi::Object, QmError> {
        self.mqi
            .open(&qm_queue_name(group, name), "")
            .ok()
            .filter(|obj| self.mqi.lease_is_open(obj, lease))
            .ok_or_else(|| lease_not_open(group, name, &lease.to_string()))
    }
}

/// 2003 MQRC_BACKED_OUT for a lease that is not open on RTQ queue
/// `group`/`name` (`lease` as the caller wrote it).
pub fn lease_not_open(group: &str, name: &str, lease: &str) -> QmError {
    QmError::new(
        Mqrc::BACKED_OUT,
        format!(
            "lease {lease} on RTQ queue {group}/{name} is not open: it was acknowledged, or it expired and the request was backed out"
        ),
    )
}

/// The MsgId of a request: the 16-byte request id, then 8 zero bytes.
pub fn msg_id_of(id: RequestId) -> [u8; 24] {
    let mut m = [0u8; 24];
    m[..16].copy_from_slice(&id.0);
    m
}

#[cfg(test)]
mod tests;

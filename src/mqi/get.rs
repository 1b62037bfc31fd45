//! MQGET: before_get over the get options, a wait that sleeps until a message
//! is ready (no polling), after_get over the copy handed back; and gets under
//! a lease, a unit of work that is backed out when its holder stays silent.

use super::convert::ConvertRequest;
use super::{CallError, Mqi, Object, QueuePointChains};
use crate::qmgr::{GetMode, GetResult, QmError, QueueManager, Selector, Token};
use bytes::BytesMut;
use mqgate_codecs::mq::Mqrc;
use mqgate_codecs::mq::constants::{gmo, mo};
use mqgate_exits::ExitWarning;
use std::sync::Arc;
use std::time::Duration;

/// What a get asks for: which messages (MQMO_MATCH_* as a selector) and how
/// long to wait (MQGMO_WAIT with WaitInterval; zero = no wait).
#[derive(Clone, Debug, Default)]
pub struct GetRequest {
    pub selector: Selector,
    /// WaitInterval; `Duration::ZERO` = MQGMO_NO_WAIT.
    pub wait: Duration,
    /// The longest wait this front end allows: an exit that sets
    /// MQWI_UNLIMITED or a longer WaitInterval gets this (HTTP:
    /// `http.max_wait_ms`).
    pub max_wait: Duration,
}

/// A message got: what the caller receives (converted when the get asked for
/// it, then as the after_get exits left it; its `warning` is the MQCC_WARNING
/// reason the get completes with, if any) and the message as it is stored
/// (for dead-lettering it unchanged).
#[derive(Clone, Debug)]
pub struct Got {
    /// The message handed to the caller, as after_get left it.
    pub message: GetResult,
    /// The message as the queue holds it.
    pub stored: GetResult,
}

/// A message got under a lease: acknowledge it with [`Mqi::ack`] (it is
/// removed) or back it out with [`Mqi::backout_lease`]; when neither comes
/// within the lease time it returns to the queue with BackoutCount + 1.
#[derive(Clone, Debug)]
pub struct Leased {
    pub got: Got,
    /// The lease's token (src/qmgr/token.rs): 128 random bits naming the
    /// unit of work that holds the message, for this run of the gateway
    /// only; what the holder gives back to acknowledge or back out.
    pub lease: Token,
    /// How long the lease lasts when idle.
    pub expires_in: Duration,
}

/// Backs out a lease (a unit of work opened for a destructive get) when it is
/// dropped before a message was handed out under it: no message, an error
/// (a failing after_get: the message got returns with BackoutCount + 1), or
/// a caller that went away while waiting. Set `armed` once a message is
/// handed out; from then on the lease's own expiry, acknowledge or backout
/// ends it.
struct LeaseGuard {
    qm: Arc<QueueManager>,
    id: u64,
    armed: bool,
}

impl Drop for LeaseGuard {
    fn drop(&mut self) {
        if !self.armed {
            // Nothing was handed out under it: no caller holds a message.
            let _ = self.qm.backout(self.id);
        }
    }
}

impl Mqi {
    /// MQGET from `obj`: destructive (in `uow`, or committed at once) or a
    /// browse, per `mode`, of the first message matching `req`, waiting up
    /// to `req.wait`. Exits: before_get sees the MQGMO (browse/syncpoint
    /// option, MQGMO_WAIT, WaitInterval) and MQMO match options and may
    /// change the wait and drop match options; after_get runs over the copy
    /// handed back.
    ///
    /// Errors: 2033 MQRC_NO_MSG_AVAILABLE when nothing came in time; 2161
    /// when the queue manager stops while waiting; an exit's reason (or
    /// 2374); 2090 MQRC_WAIT_INTERVAL_ERROR for a negative WaitInterval other
    /// than MQWI_UNLIMITED set by an exit; the queue manager's get errors.
    pub async fn get(&self, obj: &Object, req: GetRequest, mode: GetMode) -> Result<Got, QmError> {
        self.get_with_convert(obj, req, mode, None).await
    }

    /// [`Mqi::get`] with MQGMO_CONVERT when `convert` is given: the message
    /// handed back is converted to its CodedCharSetId and Encoding before
    /// after_get runs (src/mqi/convert.rs; IBM MQ "Conversion processing");
    /// a conversion that did not fully succeed is not an error but the
    /// message's `warning` (MQCC_WARNING with 2110, 2111 ... 2119 or 2190).
    pub async fn get_with_convert(
        &self,
        obj: &Object,
        req: GetRequest,
        mode: GetMode,
        convert: Option<ConvertRequest>,
    ) -> Result<Got, QmError> {
        self.get_detailed_with_convert(obj, req, mode, convert)
            .await
            .map_err(QmError::from)
    }

    /// [`Mqi::get`], with the error telling an exit's stop apart from the
    /// queue manager's refusal; when after_get stopped the call, the error
    /// carries the message as stored (see [`CallError::Exit`]).
    pub async fn get_detailed(
        &self,
        obj: &Object,
        req: GetRequest,
        mode: GetMode,
    ) -> Result<Got, CallError> {
        self.get_detailed_with_convert(obj, req, mode, None).await
    }

    /// [`Mqi::get_detailed`] with MQGMO_CONVERT when `convert` is given (as
    /// [`Mqi::get_with_convert`]).
    pub async fn get_detailed_with_convert(
        &self,
        obj: &Object,
        req: GetRequest,
        mode: GetMode,
        convert: Option<ConvertRequest>,
    ) -> Result<Got, CallError> {
        let options = match mode {
            GetMode::Browse { after: None } => gmo::BROWSE_FIRST,
            GetMode::Browse { after: Some(_) } => gmo::BROWSE_NEXT,
            GetMode::Destructive { uow: Some(_) } => gmo::SYNCPOINT,
            GetMode::Destructive { uow: None } => gmo::NO_SYNCPOINT,
        };
        let req = self.before_get(obj, req, options).await?;
        if mode == (GetMode::Destructive { uow: None }) && obj.chains.is_some() {
            // MQGMO_NO_SYNCPOINT with after_get exits: take the message under
            // a private unit of work, committed once after_get accepted it,
            // so an exit's refusal leaves the message on its queue.
            let uow = self.qm.begin_uow(None, None)?;
            let private = GetMode::Destructive { uow: Some(uow) };
            let got = match self
                .qm
                .get_wait(&obj.name, req.selector, private, req.wait)
                .await
            {
                Ok(g) => g,
                Err(e) => {
                    let _ = self.qm.backout(uow);
                    return Err(e.into());
                }
            };
            let qm = Arc::clone(&self.qm);
            return match self.after_get(obj, got, convert).await {
                Ok(g) => {
                    Mqi::blocking(move || qm.commit(uow)).await?;
                    Ok(g)
                }
                Err(e) => {
                    let _ = Mqi::blocking(move || qm.backout(uow)).await;
                    Err(e)
                }
            };
        }
        let got = self
            .qm
            .get_wait(&obj.name, req.selector, mode, req.wait)
            .await?;
        self.after_get(obj, got, convert).await
    }

    /// A destructive get from `obj` under a lease of `lease` idle time (the
    /// clock starts when the message is handed out, not while waiting). If
    /// nothing comes, the caller goes away while waiting, or after_get fails,
    /// no message stays held. Errors: as [`Mqi::get`]; 2195 when no random
    /// token could be drawn.
    pub async fn get_leased(
        &self,
        obj: &Object,
        req: GetRequest,
        lease: Duration,
    ) -> Result<Leased, QmError> {
        self.get_leased_with_convert(obj, req, lease, None).await
    }

    /// [`Mqi::get_leased`] with MQGMO_CONVERT when `convert` is given (as
    /// [`Mqi::get_with_convert`]): the lease holds the stored message; the
    /// copy handed out is converted.
    pub async fn get_leased_with_convert(
        &self,
        obj: &Object,
        req: GetRequest,
        lease: Duration,
        convert: Option<ConvertRequest>,
    ) -> Result<Leased, QmError> {
        let req = self.before_get(obj, req, gmo::SYNCPOINT).await?;
        let (id, token) = self.qm.begin_uow_token(None, Some(obj.name.clone()))?;
        let mut guard = LeaseGuard {
            qm: Arc::clone(&self.qm),
            id,
            armed: false,
        };
        let mode = GetMode::Destructive {
            uow: Some(guard.id),
        };
        let got = self
            .qm
            .get_wait(&obj.name, req.selector, mode, req.wait)
            .await?;
        // A failing after_get drops the guard unarmed: the lease is backed out.
        let got = self
            .after_get(obj, got, convert)
            .await
            .map_err(QmError::from)?;
        self.qm.set_timeout(guard.id, lease)?;
        guard.armed = true;
        Ok(Leased {
            got,
            lease: token,
            expires_in: lease,
        })
    }

    /// Acknowledges lease `lease` on `obj`: the message is removed (durable
    /// when this returns). Errors: 2085 when `obj` names no object; 2003
    /// MQRC_BACKED_OUT, with nothing changed, when `lease` is no open lease
    /// on that queue: acknowledged or backed out already, expired, another
    /// queue's lease, a unit-of-work token, or a token this run of the
    /// gateway never issued (from before a restart, or a guess).
    pub async fn ack(&self, obj: &Object, lease: Token) -> Result<(), QmError> {
        let id = self.lease_id(obj, lease)?;
        let qm = Arc::clone(&self.qm);
        Mqi::blocking(move || qm.commit(id)).await
    }

    /// Acknowledges several leases in one store transaction (a group
    /// commit, [`crate::devices::AckGroup`]): one result per lease, in
    /// order, each as [`Mqi::ack`] answers it; a store failure fails (and
    /// backs out) every lease of the group.
    pub async fn ack_many(&self, leases: Vec<(Object, Token)>) -> Vec<Result<(), QmError>> {
        let mut results: Vec<Option<Result<(), QmError>>> = Vec::with_capacity(leases.len());
        let mut ids = Vec::new();
        for (obj, lease) in &leases {
            match self.lease_id(obj, *lease) {
                Ok(id) => {
                    ids.push((results.len(), id));
                    results.push(None);
                }
                Err(e) => results.push(Some(Err(e))),
            }
        }
        let qm = Arc::clone(&self.qm);
        let only: Vec<u64> = ids.iter().map(|(_, id)| *id).collect();
        let done = Mqi::blocking(move || Ok(qm.commit_group(&only))).await;
        match done {
            Ok(group) => {
                for ((i, _), r) in ids.iter().zip(group) {
                    results[*i] = Some(r);
                }
            }
            Err(e) => {
                for (i, _) in &ids {
                    results[*i] = Some(Err(e.clone()));
                }
            }
        }
        results
            .into_iter()
            .map(|r| r.unwrap_or_else(|| Err(QmError::new(Mqrc::UNEXPECTED_ERROR, "no result"))))
            .collect()
    }

    /// Backs out lease `lease` on `obj` now: the message returns with
    /// BackoutCount + 1. Errors: as [`Mqi::ack`].
    pub async fn backout_lease(&self, obj: &Object, lease: Token) -> Result<(), QmError> {
        let id = self.lease_id(obj, lease)?;
        let qm = Arc::clone(&self.qm);
        Mqi::blocking(move || qm.backout(id)).await
    }

    /// True when `lease` is an open lease on `obj` (not yet acknowledged,
    /// backed out or expired, and issued by this run of the gateway): for a
    /// front end that answers a closed lease in its own words before
    /// calling [`Mqi::ack`] or [`Mqi::backout_lease`].
    pub fn lease_is_open(&self, obj: &Object, lease: Token) -> bool {
        self.open_lease(obj, lease).is_some()
    }

    /// The unit of work of `lease` when it is an open lease on `obj`.
    fn open_lease(&self, obj: &Object, lease: Token) -> Option<u64> {
        match self.qm.token_uow(&lease) {
            Some((id, Some(q))) if q == obj.name => Some(id),
            _ => None,
        }
    }

    /// [`Mqi::open_lease`], or the error [`Mqi::ack`] documents.
    fn lease_id(&self, obj: &Object, lease: Token) -> Result<u64, QmError> {
        // A device queue that does not exist (retired once empty) has no
        // open lease: 2003 below, as for any empty queue.
        if !self.qm.has_object(&obj.name) && !self.qm.is_device_queue_name(&obj.name) {
            return Err(QmError::new(
                Mqrc::UNKNOWN_OBJECT_NAME,
                format!("queue {} is not defined", obj.name),
            ));
        }
        self.open_lease(obj, lease).ok_or_else(|| {
            QmError::new(
                Mqrc::BACKED_OUT,
                format!(
                    "lease {lease} is not open on queue {}: it was acknowledged or backed out, it expired and the message was backed out, or it is not a lease of this queue issued since the gateway started",
                    obj.name
                ),
            )
        })
    }

    /// A destructive MQGET from `obj` under unit of work `uow`, without
    /// waiting (MQGMO_SYNCPOINT, MQGMO_NO_WAIT), on the caller's thread: a
    /// sender channel filling a batch from its transmission queue
    /// ([`Mqi::open_xmit_queue`]), or a sequence of calls inside
    /// [`Mqi::blocking`]. The first message matching `selector` (priority,
    /// then FIFO; IBM MQ "MQGET") is held by `uow` until it is committed
    /// or backed out. When `obj` has exits, before_get and after_get run
    /// here too (as in [`Mqi::get`]), so call it from a blocking thread
    /// then. Without exits the message is not copied and the call is
    /// short: under a unit of work nothing is written until commit, except
    /// that expired messages met on the way are removed from the store
    /// (IBM MQ "MQMD - Expiry"), as a sender channel's gets have always
    /// done on its own task.
    ///
    /// Returns the message as after_get left it (without exits, as stored).
    ///
    /// Errors: [`CallError::Queue`] with 2033 MQRC_NO_MSG_AVAILABLE when no
    /// message matches now, 2003 MQRC_BACKED_OUT when `uow` is not open,
    /// 2085 MQRC_UNKNOWN_OBJECT_NAME, 2016 MQRC_GET_INHIBITED, 2161
    /// MQRC_Q_MGR_QUIESCING; [`CallError::Exit`] when an exit stopped the
    /// call (before_get: nothing taken; after_get: the message as stored is
    /// in the error and stays in `uow` for the caller to back out or
    /// dead-letter).
    pub fn get_now_detailed(
        &self,
        obj: &Object,
        selector: &Selector,
        uow: u64,
    ) -> Result<GetResult, CallError> {
        let mode = GetMode::Destructive { uow: Some(uow) };
        let Some(chains) = obj.chains.as_deref() else {
            return Ok(self.qm.get(&obj.name, selector, mode)?);
        };
        let req = GetRequest {
            selector: selector.clone(),
            wait: Duration::ZERO,
            max_wait: Duration::ZERO,
        };
        let mut gmo_exit = gmo_for(&req, gmo::SYNCPOINT);
        chains.before_get(&mut gmo_exit).map_err(CallError::exit)?;
        // A wait an exit asks for is not applied: this get never waits.
        let req = apply_gmo(req, &gmo_exit)?;
        let got = self.qm.get(&obj.name, &req.selector, mode)?;
        finish_get(Some(chains), got, None).map(|g| g.message)
    }

    /// Runs before_get (when `obj` has exits) and applies what the exits
    /// left: MQGMO_WAIT and WaitInterval (MQWI_UNLIMITED and longer waits are
    /// capped at `max_wait`), MQMO_MATCH_MSG_ID / MATCH_CORREL_ID /
    /// MATCH_GROUP_ID (a cleared match option drops that selector; a
    /// message filter has no MQMO option and is kept). Browse
    /// and syncpoint options are shown to the exits; changes to them are not
    /// applied (the front end chose the get's kind).
    async fn before_get(
        &self,
        obj: &Object,
        req: GetRequest,
        options: i32,
    ) -> Result<GetRequest, CallError> {
        let Some(chains) = obj.chains.clone() else {
            return Ok(req);
        };
        let mut gmo_exit = gmo_for(&req, options);
        let gmo_exit =
            Mqi::blocking(move || Ok(chains.before_get(&mut gmo_exit).map(|()| gmo_exit)))
                .await?
                .map_err(CallError::exit)?;
        apply_gmo(req, &gmo_exit)
    }

    /// Converts a copy of `got` (when `convert` asks for it) and runs
    /// after_get over it (when `obj` has exits), off the async threads.
    async fn after_get(
        &self,
        obj: &Object,
        got: GetResult,
        convert: Option<ConvertRequest>,
    ) -> Result<Got, CallError> {
        let chains = obj.chains.clone();
        if chains.is_none() && convert.is_none() {
            return Ok(Got {
                message: got.clone(),
                stored: got,
            });
        }
        Mqi::blocking(move || Ok(finish_get(chains.as_deref(), got, convert))).await?
    }
}

/// The MQGMO and MatchOptions before_get sees for `req` with the get's kind
/// `options` (browse / syncpoint): MQGMO_WAIT when it waits, WaitInterval,
/// MQMO_MATCH_MSG_ID / MATCH_CORREL_ID for the selectors given.
fn gmo_for(req: &GetRequest, mut options: i32) -> mqgate_exits::GetOptions {
    if !req.wait.is_zero() {
        options |= gmo::WAIT;
    }
    let sel = &req.selector;
    let mut match_options = mo::NONE;
    if sel.msg_id.is_some() {
        match_options |= mo::MATCH_MSG_ID;
    }
    if sel.correl_id.is_some() {
        match_options |= mo::MATCH_CORREL_ID;
    }
    mqgate_exits::GetOptions {
        options,
        // A wait longer than WaitInterval can hold (about 24.8 days) is
        // shown as MQWI_UNLIMITED, which comes back as `max_wait`.
        wait_interval: i32::try_from(req.wait.as_millis()).unwrap_or(gmo::WI_UNLIMITED),
        match_options,
    }
}

/// `req` as the before_get exits left `gmo_exit` (see [`Mqi::get`]).
/// Errors: 2090 MQRC_WAIT_INTERVAL_ERROR for a negative WaitInterval other
/// than MQWI_UNLIMITED.
fn apply_gmo(
    req: GetRequest,
    gmo_exit: &mqgate_exits::GetOptions,
) -> Result<GetRequest, CallError> {
    let wait = if gmo_exit.options & gmo::WAIT == 0 {
        Duration::ZERO
    } else {
        match gmo_exit.wait_interval {
            gmo::WI_UNLIMITED => req.max_wait,
            ms if ms >= 0 => Duration::from_millis(ms as u64).min(req.max_wait),
            ms => {
                return Err(CallError::Queue(QmError::new(
                    Mqrc::WAIT_INTERVAL_ERROR,
                    format!(
                        "a before_get exit set WaitInterval {ms} ms: expected 0 or more, or -1 (MQWI_UNLIMITED)"
                    ),
                )));
            }
        }
    };
    let mut selector = req.selector;
    if gmo_exit.match_options & mo::MATCH_MSG_ID == 0 {
        selector.msg_id = None;
    }
    if gmo_exit.match_options & mo::MATCH_CORREL_ID == 0 {
        selector.correl_id = None;
    }
    Ok(GetRequest {
        selector,
        wait,
        max_wait: req.max_wait,
    })
}

/// Converts a copy of `got` (MQGMO_CONVERT, when `convert` is given), then
/// runs the after_get chain over it (when there is one), on the caller's
/// thread. The exits see the get's warning and may change it
/// ([`mqgate_exits::ExitContext::warning`]); what they leave is the copy's
/// `warning`.
fn finish_get(
    chains: Option<&QueuePointChains>,
    got: GetResult,
    convert: Option<ConvertRequest>,
) -> Result<Got, CallError> {
    let mut message = got.clone();
    if let Some(c) = convert {
        c.apply(&mut message);
    }
    let Some(chains) = chains else {
        return Ok(Got {
            message,
            stored: got,
        });
    };
    let mut buf = BytesMut::from(&message.data[..]);
    let warning = message.warning.take().map(|w| ExitWarning {
        reason: w.mqrc,
        detail: w.message,
    });
    match chains.after_get(&mut message.md, message.charset, &mut buf, warning) {
        Ok(warning) => {
            message.data = buf.freeze();
            message.warning = warning.map(|w| QmError::new(w.reason, w.detail));
            Ok(Got {
                message,
                stored: got,
            })
        }
        Err(stop) => Err(CallError::Exit {
            stop,
            stored: Some(Box::new(got)),
        }),
    }
}

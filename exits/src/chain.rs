//! Exit chains: the exits configured at one exit point for one channel or
//! queue, run in order, with INIT once at the start and TERM once at the end.
//!
//! What the caller gets back is a [`Verdict`]. The rules (docs/exits.md):
//! - every exit answers Ok → [`Verdict::Continue`] with the data as the last exit left it;
//! - an exit answers anything else, or fails → that exit's change is undone,
//!   the exits after it do not run, and the verdict says what happens to the
//!   message; changes by earlier exits in the chain stay;
//! - a failure (panic, overrun, MQXCC_FAILED) follows the exit's
//!   [`FailurePolicy`] and is logged through `tracing` with the exit's name.

use crate::api::{
    EXIT_USER_AREA_LENGTH, Exit, ExitPoint, ExitReason, ExitResponse, ExitUserArea, ExitWarning,
    GetOptions, Payload, PutOptions,
};
use crate::config::{FailurePolicy, Isolation, MAX_BUFFER_HEADROOM};
use crate::isolation::{CallSite, ExitFailure, ExitState, Runner, Worker};
use bytes::BytesMut;
use mqgate_codecs::mq::{Charset, Mqmd, Mqrc};
use std::sync::Arc;
use std::time::Duration;

/// What the gateway does with the message after a chain ran.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Verdict {
    /// Carry on with the (possibly changed) message.
    Continue,
    /// Do not process the message further: put it on the dead-letter queue
    /// with an MQDLH carrying `reason` (an exit answered SuppressFunction, or
    /// failed with policy `dead-letter`, reason 2374).
    Suppress {
        reason: Mqrc,
        exit: Arc<str>,
        failure: Option<ExitFailure>,
    },
    /// Channel points: close the channel without confirming the batch; the
    /// message stays on the sender's transmission queue.
    CloseChannel {
        exit: Arc<str>,
        failure: Option<ExitFailure>,
    },
    /// Queue points: fail the put or get with `reason` (2374
    /// MQRC_API_EXIT_ERROR); the message stays with the caller.
    FailCall {
        reason: Mqrc,
        exit: Arc<str>,
        failure: Option<ExitFailure>,
    },
}

/// One exit ready to be placed in a chain.
pub struct ChainEntry {
    /// Name used in logs and verdicts.
    pub name: String,
    /// The exit user data string.
    pub exit_data: String,
    /// Longest time one call may take.
    pub time_budget: Duration,
    pub on_failure: FailurePolicy,
    pub isolation: Isolation,
    pub exit: Box<dyn Exit>,
}

impl ChainEntry {
    /// An entry with the documented defaults: 1000 ms budget, policy `close`,
    /// isolation `inline`.
    pub fn new(name: impl Into<String>, exit_data: impl Into<String>, exit: Box<dyn Exit>) -> Self {
        ChainEntry {
            name: name.into(),
            exit_data: exit_data.into(),
            time_budget: Duration::from_millis(crate::config::DEFAULT_TIME_BUDGET_MS),
            on_failure: FailurePolicy::Close,
            isolation: Isolation::Inline,
            exit,
        }
    }
}

/// Why a chain could not start.
#[derive(Debug, thiserror::Error)]
pub enum StartError {
    /// The exit's MQXR_INIT call failed or answered other than Ok; the exits
    /// initialised before it were terminated again.
    #[error("exit {exit:?} refused MQXR_INIT at {point} for {object_name}: {detail}")]
    InitRefused {
        exit: String,
        point: ExitPoint,
        object_name: String,
        detail: String,
    },
    /// The worker thread for a `thread` exit could not be created.
    #[error("exit {exit:?}: cannot start its worker thread: {source}")]
    Thread {
        exit: String,
        #[source]
        source: std::io::Error,
    },
}

struct Link {
    name: Arc<str>,
    site: CallSite,
    budget: Duration,
    on_failure: FailurePolicy,
    user_area: ExitUserArea,
    /// Send exits: the ExitSpace the exit asked for at MQXR_INIT.
    exit_space: u32,
    runner: Runner,
    failed: Option<ExitFailure>,
}

impl Link {
    /// Calls the exit with its user area, ExitSpace and the call's warning so
    /// far (`warning`, changed only when the exit answered Ok); what it leaves
    /// in ExitSpace is returned (the chain keeps it only from MQXR_INIT).
    fn call(
        &mut self,
        reason: ExitReason,
        payload: Payload<'_>,
        warning: &mut Option<ExitWarning>,
    ) -> (Result<ExitResponse, ExitFailure>, u32) {
        let mut exit_space = self.exit_space;
        let state = ExitState {
            user_area: &mut self.user_area,
            exit_space: &mut exit_space,
            warning,
        };
        let r = self
            .runner
            .call(&self.site, reason, state, payload, self.budget);
        (r, exit_space)
    }
}

/// Copies of what an inline exit may change, reused across calls so that a
/// chain in steady state does not allocate.
#[derive(Default)]
struct Snapshot {
    bytes: BytesMut,
    md: Option<Mqmd>,
    pmo: PutOptions,
    gmo: GetOptions,
}

impl Snapshot {
    fn take(&mut self, p: &Payload<'_>) {
        self.bytes.clear();
        match p {
            Payload::None => {}
            Payload::Buffer(b) => self.bytes.extend_from_slice(b),
            Payload::Put { md, data, pmo, .. } => {
                self.md = Some((**md).clone());
                self.bytes.extend_from_slice(data);
                self.pmo = **pmo;
            }
            Payload::Get { gmo } => self.gmo = **gmo,
            Payload::Got { md, data, .. } => {
                self.md = Some((**md).clone());
                self.bytes.extend_from_slice(data);
            }
        }
    }

    fn restore(&self, p: &mut Payload<'_>) {
        let put_back = |target: &mut BytesMut| {
            target.clear();
            target.extend_from_slice(&self.bytes);
        };
        match p {
            Payload::None => {}
            Payload::Buffer(b) => put_back(b),
            Payload::Put { md, data, pmo, .. } => {
                if let Some(m) = &self.md {
                    (**md).clone_from(m);
                }
                put_back(data);
                **pmo = self.pmo;
            }
            Payload::Get { gmo } => **gmo = self.gmo,
            Payload::Got { md, data, .. } => {
                if let Some(m) = &self.md {
                    (**md).clone_from(m);
                }
                put_back(data);
            }
        }
    }
}

/// The running exits at one point for one channel or queue.
pub struct ExitChain {
    point: ExitPoint,
    object_name: Arc<str>,
    links: Vec<Link>,
    snapshot: Snapshot,
    terminated: bool,
}

impl ExitChain {
    /// Starts a chain: calls MQXR_INIT on each exit in order. If one refuses,
    /// those already started get MQXR_TERM and the chain does not start.
    pub fn start(
        point: ExitPoint,
        object_name: &str,
        q_mgr_name: &str,
        entries: Vec<ChainEntry>,
    ) -> Result<ExitChain, StartError> {
        let object: Arc<str> = Arc::from(object_name);
        let q_mgr: Arc<str> = Arc::from(q_mgr_name);
        let mut chain = ExitChain {
            point,
            object_name: object.clone(),
            links: Vec::with_capacity(entries.len()),
            snapshot: Snapshot::default(),
            terminated: false,
        };
        for e in entries {
            let runner = match e.isolation {
                Isolation::Inline => Runner::Inline(e.exit),
                Isolation::Thread => {
                    Runner::Thread(Worker::spawn(&e.name, e.exit).map_err(|source| {
                        StartError::Thread {
                            exit: e.name.clone(),
                            source,
                        }
                    })?)
                }
            };
            let mut link = Link {
                name: Arc::from(e.name.as_str()),
                site: CallSite {
                    exit_point: point,
                    object_name: object.clone(),
                    q_mgr_name: q_mgr.clone(),
                    exit_data: Arc::from(e.exit_data.as_str()),
                },
                budget: e.time_budget,
                on_failure: e.on_failure,
                user_area: [0; EXIT_USER_AREA_LENGTH],
                exit_space: 0,
                runner,
                failed: None,
            };
            let (init, exit_space) = link.call(ExitReason::Init, Payload::None, &mut None);
            let detail = match init {
                // MQCXP ExitSpace: set at MQXR_INIT, by send exits only.
                Ok(ExitResponse::Ok) if point != ExitPoint::Send => None,
                Ok(ExitResponse::Ok) if exit_space as usize > MAX_BUFFER_HEADROOM => Some(format!(
                    "asked for an ExitSpace of {exit_space} bytes, at most {MAX_BUFFER_HEADROOM} are allowed"
                )),
                Ok(ExitResponse::Ok) => {
                    link.exit_space = exit_space;
                    None
                }
                Ok(other) => Some(format!("answered {other:?}")),
                Err(f) => Some(f.to_string()),
            };
            if let Some(detail) = detail {
                tracing::error!(exit = %e.name, point = %point, object = object_name, %detail,
                    "exit refused MQXR_INIT; chain not started");
                // Drop runs MQXR_TERM for the exits started so far.
                drop(chain);
                return Err(StartError::InitRefused {
                    exit: e.name,
                    point,
                    object_name: object_name.to_string(),
                    detail,
                });
            }
            chain.links.push(link);
        }
        Ok(chain)
    }

    /// The exit point of this chain.
    pub fn point(&self) -> ExitPoint {
        self.point
    }

    /// Number of exits in the chain.
    pub fn len(&self) -> usize {
        self.links.len()
    }

    /// True when no exit is configured (running it is a no-op).
    pub fn is_empty(&self) -> bool {
        self.links.is_empty()
    }

    /// Send exits: the bytes of every transmission buffer the chain's exits
    /// reserved at MQXR_INIT (MQ: the sum of their MQCXP ExitSpace); 0 at
    /// the other points.
    pub fn exit_space(&self) -> usize {
        self.links.iter().map(|l| l.exit_space as usize).sum()
    }

    /// Receive, send and message exits: runs the chain over the transmission
    /// buffer (MQXQH at offset 0). For send exits the buffer first gets room
    /// for [`ExitChain::exit_space`] more bytes after the data.
    pub fn run_buffer(&mut self, buffer: &mut BytesMut) -> Verdict {
        let room = self.exit_space();
        if room > 0 {
            buffer.reserve(room);
        }
        self.run(Payload::Buffer(buffer))
    }

    /// Before put: runs the chain over the MQMD (character fields in
    /// `charset`), data and put options.
    pub fn run_before_put(
        &mut self,
        md: &mut Mqmd,
        charset: Charset,
        data: &mut BytesMut,
        pmo: &mut PutOptions,
    ) -> Verdict {
        self.run(Payload::Put {
            md,
            charset,
            data,
            pmo,
        })
    }

    /// Before get: runs the chain over the get options.
    pub fn run_before_get(&mut self, gmo: &mut GetOptions) -> Verdict {
        self.run(Payload::Get { gmo })
    }

    /// After get: runs the chain over the MQMD (character fields in
    /// `charset`) and data got.
    pub fn run_after_get(
        &mut self,
        md: &mut Mqmd,
        charset: Charset,
        data: &mut BytesMut,
    ) -> Verdict {
        self.run(Payload::Got { md, charset, data })
    }

    /// After get, with the get's completion: runs the chain as
    /// [`ExitChain::run_after_get`] does, each exit seeing `warning` (the
    /// get's own warning, then what the exits before it left;
    /// [`crate::ExitWarning`]), and returns the verdict and the warning the
    /// get completes with.
    pub fn run_after_get_reporting(
        &mut self,
        md: &mut Mqmd,
        charset: Charset,
        data: &mut BytesMut,
        warning: Option<ExitWarning>,
    ) -> (Verdict, Option<ExitWarning>) {
        self.run_reporting(Payload::Got { md, charset, data }, warning)
    }

    /// Runs every exit in order on `payload` (see the module rules).
    pub fn run(&mut self, payload: Payload<'_>) -> Verdict {
        self.run_reporting(payload, None).0
    }

    /// [`ExitChain::run`], with the call's warning: each exit gets it in
    /// [`crate::ExitContext::warning`] and may change it when it answers Ok;
    /// the change of an exit that answers anything else is discarded.
    /// Returns the verdict and the warning as the last exit left it. A
    /// warning left at a channel point has no caller to reach: it is logged.
    pub fn run_reporting(
        &mut self,
        mut payload: Payload<'_>,
        mut warning: Option<ExitWarning>,
    ) -> (Verdict, Option<ExitWarning>) {
        let verdict = self.run_inner(&mut payload, &mut warning);
        if let (Some(w), true) = (&warning, self.point.is_channel_point()) {
            tracing::warn!(point = %self.point, object = %self.object_name, reason = %w.reason,
                detail = %w.detail, "an exit reported a warning for the message");
        }
        (verdict, warning)
    }

    fn run_inner(
        &mut self,
        payload: &mut Payload<'_>,
        warning: &mut Option<ExitWarning>,
    ) -> Verdict {
        let point = self.point;
        if !payload.fits(point) {
            let failure = ExitFailure::WrongPayload {
                point,
                payload: payload.kind(),
            };
            return self.failure_verdict("mqgate", FailurePolicy::Close, failure);
        }
        for i in 0..self.links.len() {
            let link = &mut self.links[i];
            let result = match &link.failed {
                Some(earlier) => Outcome::Fail(ExitFailure::Disabled {
                    earlier: earlier.to_string(),
                }),
                None => {
                    let snap = link.runner.needs_snapshot();
                    if snap {
                        self.snapshot.take(payload);
                    }
                    let mut w = warning.clone();
                    let (r, _) = link.call(point.data_reason(), payload.reborrow(), &mut w);
                    let r = Outcome::from(r);
                    if snap && !matches!(r, Outcome::Ok) {
                        self.snapshot.restore(payload);
                    }
                    if matches!(r, Outcome::Ok) {
                        *warning = w;
                    }
                    r
                }
            };
            crate::stats::count(point, matches!(result, Outcome::Fail(_)));
            let link = &mut self.links[i];
            match result {
                Outcome::Ok => {}
                Outcome::Suppress(reason) => {
                    tracing::info!(exit = %link.name, point = %point, object = %self.object_name,
                        reason = %reason, "exit suppressed the message; it goes to the dead-letter queue");
                    return Verdict::Suppress {
                        reason,
                        exit: link.name.clone(),
                        failure: None,
                    };
                }
                Outcome::Close => {
                    tracing::warn!(exit = %link.name, point = %point, object = %self.object_name,
                        "exit asked to close the channel");
                    let name = link.name.clone();
                    return self.close_verdict(name, None);
                }
                Outcome::Fail(failure) => {
                    let first_time = link.failed.is_none();
                    if first_time {
                        link.failed = Some(failure.clone());
                    }
                    let name = link.name.clone();
                    let policy = link.on_failure;
                    if first_time {
                        tracing::error!(exit = %name, point = %point, object = %self.object_name,
                            error = %failure, policy = ?policy, "exit failed; applying its failure policy");
                    } else {
                        tracing::debug!(exit = %name, point = %point, object = %self.object_name,
                            error = %failure, policy = ?policy, "disabled exit; applying its failure policy");
                    }
                    if policy == FailurePolicy::Skip {
                        continue;
                    }
                    return self.failure_verdict(&name, policy, failure);
                }
            }
        }
        Verdict::Continue
    }

    fn close_verdict(&self, exit: Arc<str>, failure: Option<ExitFailure>) -> Verdict {
        if self.point.is_channel_point() {
            Verdict::CloseChannel { exit, failure }
        } else {
            Verdict::FailCall {
                reason: Mqrc::API_EXIT_ERROR,
                exit,
                failure,
            }
        }
    }

    fn failure_verdict(&self, exit: &str, policy: FailurePolicy, failure: ExitFailure) -> Verdict {
        let exit: Arc<str> = Arc::from(exit);
        match policy {
            FailurePolicy::DeadLetter => Verdict::Suppress {
                reason: Mqrc::API_EXIT_ERROR,
                exit,
                failure: Some(failure),
            },
            FailurePolicy::Close | FailurePolicy::Skip => self.close_verdict(exit, Some(failure)),
        }
    }

    /// Ends the chain: MQXR_TERM once for each exit that has not failed, in
    /// order. Returns the TERM failures (they are also logged). Calling it
    /// again does nothing; dropping the chain calls it.
    pub fn terminate(&mut self) -> Vec<(Arc<str>, ExitFailure)> {
        let mut failures = Vec::new();
        if self.terminated {
            return failures;
        }
        self.terminated = true;
        for link in &mut self.links {
            if link.failed.is_some() {
                continue;
            }
            let (r, _) = link.call(ExitReason::Term, Payload::None, &mut None);
            let failure = match r {
                Ok(ExitResponse::Ok) => None,
                Ok(other) => Some(ExitFailure::Reported {
                    detail: format!("answered {other:?} to MQXR_TERM"),
                }),
                Err(f) => Some(f),
            };
            if let Some(f) = failure {
                tracing::warn!(exit = %link.name, point = %self.point, object = %self.object_name,
                    error = %f, "exit failed at MQXR_TERM");
                link.failed = Some(f.clone());
                failures.push((link.name.clone(), f));
            }
        }
        failures
    }
}

/// One exit call's result, with MQXCC_FAILED folded into the failures.
enum Outcome {
    Ok,
    Suppress(Mqrc),
    Close,
    Fail(ExitFailure),
}

impl From<Result<ExitResponse, ExitFailure>> for Outcome {
    fn from(r: Result<ExitResponse, ExitFailure>) -> Outcome {
        match r {
            Ok(ExitResponse::Ok) => Outcome::Ok,
            Ok(ExitResponse::SuppressFunction(reason)) => Outcome::Suppress(reason),
            Ok(ExitResponse::CloseChannel) => Outcome::Close,
            Ok(ExitResponse::Failed) => Outcome::Fail(ExitFailure::Reported {
                detail: "MQXCC_FAILED".to_string(),
            }),
            Err(f) => Outcome::Fail(f),
        }
    }
}

impl Drop for ExitChain {
    fn drop(&mut self) {
        self.terminate();
    }
}

//! Running one exit call safely: panics caught, time budget enforced.
//!
//! Two ways (config `isolation`):
//! - inline: on the caller's thread inside `catch_unwind`; the time is measured
//!   when the call returns and an overrun counts as a failure. A call that
//!   never returns cannot be stopped this way.
//! - thread: the exit lives on its own worker thread and gets a copy of the
//!   data; the caller waits at most the budget. On overrun the worker is
//!   abandoned (a thread cannot be killed safely), its late result is dropped,
//!   and the caller's data is exactly as it was.

use crate::api::{
    Exit, ExitContext, ExitPoint, ExitReason, ExitResponse, ExitUserArea, ExitWarning, GetOptions,
    Payload, PutOptions,
};
use bytes::BytesMut;
use mqgate_codecs::mq::{Charset, Mqmd};
use std::any::Any;
use std::panic::{AssertUnwindSafe, catch_unwind};
use std::sync::Arc;
use std::sync::mpsc::{self, RecvTimeoutError};
use std::thread;
use std::time::{Duration, Instant};

/// Why an exit call counts as failed (the failure policy then applies).
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
pub enum ExitFailure {
    /// The exit panicked; the panic message is kept.
    #[error("exit panicked: {message}")]
    Panicked { message: String },
    /// The call took longer than the budget (ms).
    #[error("exit overran its time budget of {budget_ms} ms (waited {elapsed_ms} ms)")]
    TimedOut { budget_ms: u64, elapsed_ms: u64 },
    /// The exit answered MQXCC_FAILED, or an external exit answered something
    /// mqgate does not accept (the detail is logged by the exit loader).
    #[error("exit reported failure: {detail}")]
    Reported { detail: String },
    /// This exit instance failed before and is not called again until its
    /// chain is rebuilt (after a panic its state is unknown; after an overrun
    /// it may still be running).
    #[error("exit is disabled after an earlier failure: {earlier}")]
    Disabled { earlier: String },
    /// The gateway handed a payload that does not belong to this exit point.
    #[error("payload {payload} does not belong to exit point {point}")]
    WrongPayload {
        point: ExitPoint,
        payload: &'static str,
    },
}

/// The text of a caught panic.
pub(crate) fn panic_message(p: &(dyn Any + Send)) -> String {
    if let Some(s) = p.downcast_ref::<&str>() {
        (*s).to_string()
    } else if let Some(s) = p.downcast_ref::<String>() {
        s.clone()
    } else {
        "non-string panic payload".to_string()
    }
}

/// The fixed parts of a call's context, shared by all calls of one exit instance.
#[derive(Clone, Debug)]
pub(crate) struct CallSite {
    pub exit_point: ExitPoint,
    pub object_name: Arc<str>,
    pub q_mgr_name: Arc<str>,
    pub exit_data: Arc<str>,
}

/// What one exit instance keeps between calls and may change in a call:
/// its exit user area and its MQCXP ExitSpace; and the call's warning
/// ([`ExitContext::warning`]), written back only when the exit answered Ok.
pub(crate) struct ExitState<'a> {
    pub user_area: &'a mut ExitUserArea,
    pub exit_space: &'a mut u32,
    pub warning: &'a mut Option<ExitWarning>,
}

/// One exit instance and how it is run.
pub(crate) enum Runner {
    Inline(Box<dyn Exit>),
    Thread(Worker),
}

impl Runner {
    /// Runs one call within `budget`. `state` is handed to the exit; on
    /// `Ok` it holds what the exit left there. On `Err`, inline
    /// calls may have changed the payload (the chain restores it); thread
    /// calls never have.
    pub fn call(
        &mut self,
        site: &CallSite,
        reason: ExitReason,
        state: ExitState<'_>,
        payload: Payload<'_>,
        budget: Duration,
    ) -> Result<ExitResponse, ExitFailure> {
        match self {
            Runner::Inline(exit) => {
                let start = Instant::now();
                let mut ctx = ExitContext {
                    exit_point: site.exit_point,
                    exit_reason: reason,
                    object_name: &site.object_name,
                    q_mgr_name: &site.q_mgr_name,
                    exit_data: &site.exit_data,
                    exit_user_area: state.user_area,
                    exit_space: *state.exit_space,
                    warning: state.warning.clone(),
                };
                let result = catch_unwind(AssertUnwindSafe(|| exit.call(&mut ctx, payload)));
                *state.exit_space = ctx.exit_space;
                if matches!(result, Ok(ExitResponse::Ok)) {
                    *state.warning = ctx.warning;
                }
                let elapsed = start.elapsed();
                let response = result.map_err(|p| ExitFailure::Panicked {
                    message: panic_message(&*p),
                })?;
                if elapsed > budget {
                    return Err(ExitFailure::TimedOut {
                        budget_ms: budget.as_millis() as u64,
                        elapsed_ms: elapsed.as_millis() as u64,
                    });
                }
                Ok(response)
            }
            Runner::Thread(w) => w.call(site, reason, state, payload, budget),
        }
    }

    /// True when the chain must copy the data first to undo a failed call.
    pub fn needs_snapshot(&self) -> bool {
        match self {
            Runner::Inline(exit) => !exit.edits_atomically(),
            Runner::Thread(_) => false,
        }
    }
}

/// An owned copy of a payload, sent to a worker thread and back.
enum OwnedPayload {
    None,
    Buffer(BytesMut),
    Put {
        md: Box<Mqmd>,
        charset: Charset,
        data: BytesMut,
        pmo: PutOptions,
    },
    Get {
        gmo: GetOptions,
    },
    Got {
        md: Box<Mqmd>,
        charset: Charset,
        data: BytesMut,
    },
}

impl OwnedPayload {
    fn copy_of(p: &Payload<'_>) -> OwnedPayload {
        match p {
            Payload::None => OwnedPayload::None,
            Payload::Buffer(b) => OwnedPayload::Buffer(BytesMut::from(&b[..])),
            Payload::Put {
                md,
                charset,
                data,
                pmo,
            } => OwnedPayload::Put {
                md: Box::new((**md).clone()),
                charset: *charset,
                data: BytesMut::from(&data[..]),
                pmo: **pmo,
            },
            Payload::Get { gmo } => OwnedPayload::Get { gmo: **gmo },
            Payload::Got { md, charset, data } => OwnedPayload::Got {
                md: Box::new((**md).clone()),
                charset: *charset,
                data: BytesMut::from(&data[..]),
            },
        }
    }

    fn as_payload(&mut self) -> Payload<'_> {
        match self {
            OwnedPayload::None => Payload::None,
            OwnedPayload::Buffer(b) => Payload::Buffer(b),
            OwnedPayload::Put {
                md,
                charset,
                data,
                pmo,
            } => Payload::Put {
                md,
                charset: *charset,
                data,
                pmo,
            },
            OwnedPayload::Get { gmo } => Payload::Get { gmo },
            OwnedPayload::Got { md, charset, data } => Payload::Got {
                md,
                charset: *charset,
                data,
            },
        }
    }

    /// Moves the worker's result into the caller's payload (no copy of data).
    fn write_back(self, target: Payload<'_>) {
        match (self, target) {
            (OwnedPayload::Buffer(b), Payload::Buffer(t)) => *t = b,
            (
                OwnedPayload::Put { md, data, pmo, .. },
                Payload::Put {
                    md: m,
                    data: d,
                    pmo: p,
                    ..
                },
            ) => {
                *m = *md;
                *d = data;
                *p = pmo;
            }
            (OwnedPayload::Get { gmo }, Payload::Get { gmo: g }) => *g = gmo,
            (OwnedPayload::Got { md, data, .. }, Payload::Got { md: m, data: d, .. }) => {
                *m = *md;
                *d = data;
            }
            _ => {}
        }
    }
}

struct Job {
    site: CallSite,
    reason: ExitReason,
    user_area: ExitUserArea,
    exit_space: u32,
    warning: Option<ExitWarning>,
    payload: OwnedPayload,
}

struct Reply {
    result: Result<ExitResponse, String>,
    user_area: ExitUserArea,
    exit_space: u32,
    warning: Option<ExitWarning>,
    payload: OwnedPayload,
}

/// An exit on its own worker thread (isolation `thread`).
pub(crate) struct Worker {
    jobs: Option<mpsc::Sender<Job>>,
    replies: mpsc::Receiver<Reply>,
    thread: Option<thread::JoinHandle<()>>,
    /// Set once a call overran: the worker may still be inside the exit.
    abandoned: bool,
}

impl Worker {
    /// Moves `exit` onto a new thread named after it.
    pub fn spawn(name: &str, mut exit: Box<dyn Exit>) -> std::io::Result<Worker> {
        let (job_tx, job_rx) = mpsc::channel::<Job>();
        let (reply_tx, reply_rx) = mpsc::channel::<Reply>();
        let thread = thread::Builder::new()
            .name(format!("exit {name}"))
            .spawn(move || {
                for mut job in job_rx {
                    let mut ctx = ExitContext {
                        exit_point: job.site.exit_point,
                        exit_reason: job.reason,
                        object_name: &job.site.object_name,
                        q_mgr_name: &job.site.q_mgr_name,
                        exit_data: &job.site.exit_data,
                        exit_user_area: &mut job.user_area,
                        exit_space: job.exit_space,
                        warning: job.warning.take(),
                    };
                    let payload = job.payload.as_payload();
                    let result = catch_unwind(AssertUnwindSafe(|| exit.call(&mut ctx, payload)))
                        .map_err(|p| panic_message(&*p));
                    let exit_space = ctx.exit_space;
                    let warning = ctx.warning;
                    let reply = Reply {
                        result,
                        user_area: job.user_area,
                        exit_space,
                        warning,
                        payload: job.payload,
                    };
                    if reply_tx.send(reply).is_err() {
                        break;
                    }
                }
            })?;
        Ok(Worker {
            jobs: Some(job_tx),
            replies: reply_rx,
            thread: Some(thread),
            abandoned: false,
        })
    }

    fn call(
        &mut self,
        site: &CallSite,
        reason: ExitReason,
        state: ExitState<'_>,
        payload: Payload<'_>,
        budget: Duration,
    ) -> Result<ExitResponse, ExitFailure> {
        let job = Job {
            site: site.clone(),
            reason,
            user_area: *state.user_area,
            exit_space: *state.exit_space,
            warning: state.warning.clone(),
            payload: OwnedPayload::copy_of(&payload),
        };
        let dead = || ExitFailure::Panicked {
            message: "exit worker thread has ended".to_string(),
        };
        let sender = self.jobs.as_ref().ok_or_else(dead)?;
        sender.send(job).map_err(|_| dead())?;
        let start = Instant::now();
        match self.replies.recv_timeout(budget) {
            Ok(reply) => {
                let response = reply
                    .result
                    .map_err(|message| ExitFailure::Panicked { message })?;
                *state.user_area = reply.user_area;
                *state.exit_space = reply.exit_space;
                if response == ExitResponse::Ok {
                    reply.payload.write_back(payload);
                    *state.warning = reply.warning;
                }
                Ok(response)
            }
            Err(RecvTimeoutError::Timeout) => {
                self.abandoned = true;
                Err(ExitFailure::TimedOut {
                    budget_ms: budget.as_millis() as u64,
                    elapsed_ms: start.elapsed().as_millis() as u64,
                })
            }
            Err(RecvTimeoutError::Disconnected) => Err(dead()),
        }
    }
}

impl Drop for Worker {
    fn drop(&mut self) {
        // Closing the job channel ends the worker's loop.
        self.jobs = None;
        if let Some(t) = self.thread.take()
            && !self.abandoned
        {
            // A worker that is not inside an exit finishes at once.
            let _ = t.join();
        }
        // An abandoned worker is left detached: it may never return, and it
        // owns the exit (and an external exit's library), so neither is freed
        // under it.
    }
}

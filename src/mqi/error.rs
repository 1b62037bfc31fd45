//! [`CallError`]: why a put or get failed, for front ends that answer an
//! exit's stop apart from the queue manager's refusal.

use super::ExitStop;
use crate::qmgr::{GetResult, QmError};

/// Why [`super::Mqi::put_detailed`] or [`super::Mqi::get_detailed`] failed.
/// Front ends that need no more than the reason use [`super::Mqi::put`] and
/// [`super::Mqi::get`], whose [`QmError`] is this error converted.
#[derive(Clone, Debug)]
pub enum CallError {
    /// The queue manager (or the queue interface's own checks) refused the
    /// call: its MQRC and sentence.
    Queue(QmError),
    /// A before_put, before_get or after_get exit stopped the call.
    Exit {
        /// Where, which exit, and the reason the call fails with.
        stop: ExitStop,
        /// after_get only: the message got, as the queue holds it. It is in
        /// the get's unit of work (the caller may back it out, or
        /// dead-letter it and commit); a get outside syncpoint left it on
        /// its queue (it was taken under a private unit of work that was
        /// backed out). `None` for before_put and before_get,
        /// which stop the call before anything is stored or taken.
        stored: Option<Box<GetResult>>,
    },
}

impl CallError {
    /// A stop at before_put or before_get (nothing was stored or taken).
    pub(super) fn exit(stop: ExitStop) -> CallError {
        CallError::Exit { stop, stored: None }
    }
}

impl From<QmError> for CallError {
    fn from(e: QmError) -> Self {
        CallError::Queue(e)
    }
}

impl From<CallError> for QmError {
    fn from(e: CallError) -> Self {
        match e {
            CallError::Queue(e) => e,
            CallError::Exit { stop, .. } => stop.into(),
        }
    }
}

impl std::fmt::Display for CallError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            CallError::Queue(e) => e.fmt(f),
            CallError::Exit { stop, .. } => stop.fmt(f),
        }
    }
}

impl std::error::Error for CallError {}

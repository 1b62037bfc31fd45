//! The errors an RPC call answers with (docs/rpc.md "Errors"): a stable code,
//! the MQRC reason where MQ has one, and a message naming what was wrong.

use crate::mqi::QmError;
use crate::mqi::{CallError, ExitStop};
use mqgate_codecs::mq::Mqrc;
use std::fmt;

/// Which documented error a call failed with.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum RpcErrorKind {
    /// No such library or program in the configured IDL files (HTTP 404).
    UnknownProgram,
    /// A parameter is unknown, has the wrong type or does not fit its IDL
    /// format, or a dynamic parameter value is unusable (HTTP 400).
    BadParameters,
    /// Request/reply: no reply with the request's CorrelId arrived within the
    /// wait interval; MQRC 2033 MQRC_NO_MSG_AVAILABLE (HTTP 504).
    NoReply,
    /// Get: no (matching) message arrived within the wait interval; MQRC 2033
    /// (HTTP 404).
    NoMessage,
    /// The queue manager refused the put or get; carries its MQRC.
    Mq,
    /// A before_put, before_get or after_get exit stopped the call; carries
    /// the exit's reason (2374 MQRC_API_EXIT_ERROR when it failed) (HTTP 502).
    ExitRefused,
    /// The message got cannot be read as the program's reply (headers,
    /// CCSID, layout); carries 2110, 2119, 2334 or 2335. Outside a
    /// conversation the message went to the dead-letter queue (HTTP 502).
    PayloadError,
    /// The conversation is not open: unknown, ended, or backed out after its
    /// timeout; MQRC 2003 MQRC_BACKED_OUT (HTTP 404).
    ConversationEnded,
    /// The call cannot run as configured (no queue, request/reply in a
    /// conversation) (HTTP 400).
    NotPossible,
}

impl RpcErrorKind {
    /// The code in the JSON answer (`"code"`).
    pub fn code(self) -> &'static str {
        match self {
            RpcErrorKind::UnknownProgram => "UNKNOWN_PROGRAM",
            RpcErrorKind::BadParameters => "BAD_PARAMETERS",
            RpcErrorKind::NoReply => "NO_REPLY",
            RpcErrorKind::NoMessage => "NO_MESSAGE",
            RpcErrorKind::Mq => "MQ_ERROR",
            RpcErrorKind::ExitRefused => "EXIT_REFUSED",
            RpcErrorKind::PayloadError => "PAYLOAD_ERROR",
            RpcErrorKind::ConversationEnded => "CONVERSATION_ENDED",
            RpcErrorKind::NotPossible => "NOT_POSSIBLE",
        }
    }
}

/// A failed RPC call.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct RpcError {
    /// Which error.
    pub kind: RpcErrorKind,
    /// The MQRC reason, where MQ has one.
    pub mqrc: Option<Mqrc>,
    /// What was wrong, naming the parameter, queue or CorrelId involved.
    pub message: String,
}

impl RpcError {
    /// An error without an MQRC.
    pub fn new(kind: RpcErrorKind, message: impl Into<String>) -> Self {
        RpcError {
            kind,
            mqrc: None,
            message: message.into(),
        }
    }

    /// An error with MQRC `mqrc`.
    pub fn with_mqrc(kind: RpcErrorKind, mqrc: Mqrc, message: impl Into<String>) -> Self {
        RpcError {
            kind,
            mqrc: Some(mqrc),
            message: message.into(),
        }
    }

    /// Bad parameters.
    pub fn bad(message: impl Into<String>) -> Self {
        RpcError::new(RpcErrorKind::BadParameters, message)
    }

    /// The JSON answer: `{"error", "code", "mqrc", "reason"}` (`mqrc` and
    /// `reason` are null when MQ has no reason for the error).
    pub fn to_json(&self) -> serde_json::Value {
        serde_json::json!({
            "error": self.message,
            "code": self.kind.code(),
            "mqrc": self.mqrc.map(|r| r.0),
            "reason": self.mqrc.map(|r| r.name()),
        })
    }
}

impl From<QmError> for RpcError {
    fn from(e: QmError) -> Self {
        let kind = if e.mqrc == Mqrc::BACKED_OUT {
            RpcErrorKind::ConversationEnded
        } else {
            RpcErrorKind::Mq
        };
        RpcError::with_mqrc(kind, e.mqrc, e.message)
    }
}

/// An exit stopped the call: EXIT_REFUSED with the exit's reason.
impl From<ExitStop> for RpcError {
    fn from(stop: ExitStop) -> Self {
        RpcError::with_mqrc(RpcErrorKind::ExitRefused, stop.reason, stop.to_string())
    }
}

impl From<CallError> for RpcError {
    fn from(e: CallError) -> Self {
        match e {
            CallError::Queue(e) => e.into(),
            CallError::Exit { stop, .. } => stop.into(),
        }
    }
}

impl fmt::Display for RpcError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}: {}", self.kind.code(), self.message)?;
        if let Some(rc) = self.mqrc {
            write!(f, " (MQRC {})", rc.0)?;
        }
        Ok(())
    }
}

impl std::error::Error for RpcError {}

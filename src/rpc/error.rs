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

    /// The MQRC an error of this kind carries when its maker gives none
    /// (docs/rpc.md "Errors"; the queue API's choices in docs/http-api.md
    /// "Errors"):
    /// - UNKNOWN_PROGRAM: 2298 MQRC_FUNCTION_NOT_SUPPORTED, as the queue API
    ///   answers a route it does not have (no such function);
    /// - BAD_PARAMETERS: 2004 MQRC_BUFFER_ERROR, as the queue API answers a
    ///   body it cannot read (the IN parameters are the call's message data);
    /// - NOT_POSSIBLE: 2298 MQRC_FUNCTION_NOT_SUPPORTED (IBM MQ "2298
    ///   (08FA) (RC2298): MQRC_FUNCTION_NOT_SUPPORTED": the function is not
    ///   available in the current environment, here the bridge's
    ///   configuration or a conversation);
    /// - NO_REPLY, NO_MESSAGE: 2033 MQRC_NO_MSG_AVAILABLE;
    /// - CONVERSATION_ENDED: 2003 MQRC_BACKED_OUT;
    /// - MQ_ERROR, EXIT_REFUSED, PAYLOAD_ERROR are always made with the
    ///   reason of the queue manager, the exit or the payload; 2195
    ///   MQRC_UNEXPECTED_ERROR otherwise.
    pub fn default_mqrc(self) -> Mqrc {
        match self {
            RpcErrorKind::UnknownProgram | RpcErrorKind::NotPossible => {
                Mqrc::FUNCTION_NOT_SUPPORTED
            }
            RpcErrorKind::BadParameters => Mqrc::BUFFER_ERROR,
            RpcErrorKind::NoReply | RpcErrorKind::NoMessage => Mqrc::NO_MSG_AVAILABLE,
            RpcErrorKind::ConversationEnded => Mqrc::BACKED_OUT,
            RpcErrorKind::Mq | RpcErrorKind::ExitRefused | RpcErrorKind::PayloadError => {
                Mqrc::UNEXPECTED_ERROR
            }
        }
    }
}

/// A failed RPC call.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct RpcError {
    /// Which error.
    pub kind: RpcErrorKind,
    /// The MQRC reason: the queue manager's, the exit's or the payload's,
    /// or the one docs/rpc.md "Errors" gives for the error
    /// ([`RpcErrorKind::default_mqrc`]). Every error has one.
    pub mqrc: Mqrc,
    /// What was wrong, naming the parameter, queue or CorrelId involved.
    pub message: String,
}

impl RpcError {
    /// An error with the MQRC of its kind ([`RpcErrorKind::default_mqrc`]).
    pub fn new(kind: RpcErrorKind, message: impl Into<String>) -> Self {
        RpcError {
            kind,
            mqrc: kind.default_mqrc(),
            message: message.into(),
        }
    }

    /// An error with MQRC `mqrc`.
    pub fn with_mqrc(kind: RpcErrorKind, mqrc: Mqrc, message: impl Into<String>) -> Self {
        RpcError {
            kind,
            mqrc,
            message: message.into(),
        }
    }

    /// Bad parameters in the body: 2004 MQRC_BUFFER_ERROR.
    pub fn bad(message: impl Into<String>) -> Self {
        RpcError::new(RpcErrorKind::BadParameters, message)
    }

    /// Bad parameters with reason `mqrc` (2046 for the query or a
    /// conversation id, 2090, 2119, 2152, 2207, 2335, ...).
    pub fn bad_with(mqrc: Mqrc, message: impl Into<String>) -> Self {
        RpcError::with_mqrc(RpcErrorKind::BadParameters, mqrc, message)
    }

    /// The JSON answer: `{"error", "code", "mqrc", "reason"}`, `mqrc` the
    /// reason's number and `reason` its name (`MQRC_...`), as in the queue
    /// API's errors (docs/http-api.md "Errors"); never null.
    pub fn to_json(&self) -> serde_json::Value {
        serde_json::json!({
            "error": self.message,
            "code": self.kind.code(),
            "mqrc": self.mqrc.0,
            "reason": self.mqrc.name(),
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
        write!(
            f,
            "{}: {} (MQRC {})",
            self.kind.code(),
            self.message,
            self.mqrc.0
        )
    }
}

impl std::error::Error for RpcError {}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_error_answers_an_mqrc_number_and_its_name() {
        // docs/rpc.md "Errors": the mqrc column, the reasons numbered as in
        // IBM MQ "API reason codes"; never null.
        let kinds = [
            (
                RpcErrorKind::UnknownProgram,
                2298,
                "MQRC_FUNCTION_NOT_SUPPORTED",
            ),
            (RpcErrorKind::BadParameters, 2004, "MQRC_BUFFER_ERROR"),
            (
                RpcErrorKind::NotPossible,
                2298,
                "MQRC_FUNCTION_NOT_SUPPORTED",
            ),
            (RpcErrorKind::NoReply, 2033, "MQRC_NO_MSG_AVAILABLE"),
            (RpcErrorKind::NoMessage, 2033, "MQRC_NO_MSG_AVAILABLE"),
            (RpcErrorKind::ConversationEnded, 2003, "MQRC_BACKED_OUT"),
            (RpcErrorKind::Mq, 2195, "MQRC_UNEXPECTED_ERROR"),
            (RpcErrorKind::ExitRefused, 2195, "MQRC_UNEXPECTED_ERROR"),
            (RpcErrorKind::PayloadError, 2195, "MQRC_UNEXPECTED_ERROR"),
        ];
        for (kind, mqrc, reason) in kinds {
            let v = RpcError::new(kind, "what was wrong").to_json();
            assert_eq!(v["mqrc"], mqrc, "{kind:?}: {v}");
            assert_eq!(v["reason"], reason, "{kind:?}: {v}");
            assert_eq!(v["code"], kind.code());
            assert_eq!(v["error"], "what was wrong");
        }
        // A reason given is kept, and shown in the text the CLI prints.
        let e = RpcError::bad_with(Mqrc::CORREL_ID_ERROR, "MQ_CORREL_ID: odd");
        assert_eq!(e.to_json()["mqrc"], 2207);
        assert_eq!(e.to_json()["reason"], "MQRC_CORREL_ID_ERROR");
        assert_eq!(
            e.to_string(),
            "BAD_PARAMETERS: MQ_CORREL_ID: odd (MQRC 2207)"
        );
    }
}

//! The queue manager's error: an MQRC reason and a sentence saying what was wrong.

use mqgate_codecs::mq::Mqrc;
use std::fmt;

/// MQRC_EXPIRY_ERROR: Expiry is neither positive nor MQEI_UNLIMITED.
pub const EXPIRY_ERROR: Mqrc = Mqrc::EXPIRY_ERROR;
/// MQRC_OPTION_NOT_VALID_FOR_TYPE: e.g. a get from a remote queue definition.
pub const OPTION_NOT_VALID_FOR_TYPE: Mqrc = Mqrc::OPTION_NOT_VALID_FOR_TYPE;

/// The symbolic name of a reason, `MQRC_...` (all of them are in
/// `mqgate_codecs::mq::rc` now).
pub fn reason_name(rc: Mqrc) -> String {
    rc.name()
}

/// A failed queue manager call.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct QmError {
    /// The MQ reason code.
    pub mqrc: Mqrc,
    /// What was wrong, naming the queue or field.
    pub message: String,
}

impl QmError {
    /// An error with reason `mqrc`.
    pub fn new(mqrc: Mqrc, message: impl Into<String>) -> Self {
        QmError {
            mqrc,
            message: message.into(),
        }
    }
}

impl fmt::Display for QmError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(
            f,
            "{} ({} {})",
            self.message,
            self.mqrc.0,
            reason_name(self.mqrc)
        )
    }
}

impl std::error::Error for QmError {}

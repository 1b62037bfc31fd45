//! The queue manager's error: an MQRC reason and a sentence saying what was wrong.

use mqgate_codecs::mq::Mqrc;
use std::fmt;

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
        write!(f, "{} ({} {})", self.message, self.mqrc.0, self.mqrc.name())
    }
}

impl std::error::Error for QmError {}

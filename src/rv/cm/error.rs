//! Why a certified delivery call was refused: what, where, and the
//! `tibrv_status` that applies (docs/rendezvous.md "Certified delivery",
//! "Errors").

use std::fmt;

use mqgate_codecs::rv::SubjectError;
use mqgate_codecs::rv::status::TibrvStatus;

use super::record::RecordError;
use crate::mqi::QmError;
use crate::mqi::names::shown;
use crate::rv::BusError;

/// A refusal of certified delivery.
#[derive(Debug)]
pub enum CmError {
    /// A correspondent name that is not a reusable name ("Reusable
    /// Names"; TIBRV_INVALID_SUBJECT). `field` is the request item.
    Name {
        /// `name` (a transport's) or `listener`.
        field: &'static str,
        /// The name as given.
        name: String,
        /// The rule broken.
        error: SubjectError,
    },
    /// The bus refused a subject or message.
    Bus(BusError),
    /// A transport of this name is open already, with other settings
    /// (TIBRV_ALREADY_EXISTS).
    NameInUse {
        /// The name.
        name: String,
        /// Which setting differs.
        setting: &'static str,
    },
    /// No CM transport of this name (TIBRV_NOT_FOUND).
    UnknownTransport {
        /// The name.
        name: String,
    },
    /// A store ledger without a reusable name (TIBRV_INVALID_ARG): a
    /// generated name is never used again, so its ledger could never be
    /// read back ("tibrvcmTransport_Create()").
    StoreNeedsName,
    /// A setting out of its range (TIBRV_INVALID_ARG).
    Setting {
        /// Which.
        field: &'static str,
        /// What is wrong.
        message: String,
    },
    /// AddListener of a disallowed listener
    /// ("tibrvcmTransport_AddListener()": TIBRV_NOT_PERMITTED).
    Disallowed {
        /// The listener.
        listener: String,
    },
    /// A confirmation of a message no certified agreement covers
    /// ("tibrvcmEvent_ConfirmMsg()": TIBRV_NOT_PERMITTED).
    NotCertified {
        /// The sender.
        sender: String,
        /// The subject.
        subject: String,
        /// The sequence number.
        seqno: u64,
    },
    /// A confirmation of a message this listener was never given
    /// (TIBRV_INVALID_ARG).
    NotDelivered {
        /// The sender.
        sender: String,
        /// The subject.
        subject: String,
        /// The sequence number.
        seqno: u64,
    },
    /// The durable ledger could not be written or read (TIBRV_IO_FAILED).
    Store(QmError),
    /// A ledger record could not be read when the gateway started
    /// (TIBRV_IO_FAILED).
    Record(RecordError),
}

impl CmError {
    /// The `tibrv_status` of the refusal.
    pub fn status(&self) -> TibrvStatus {
        match self {
            CmError::Name { .. } => TibrvStatus::INVALID_SUBJECT,
            CmError::Bus(e) => e.status(),
            CmError::NameInUse { .. } => TibrvStatus::ALREADY_EXISTS,
            CmError::UnknownTransport { .. } => TibrvStatus::NOT_FOUND,
            CmError::StoreNeedsName | CmError::Setting { .. } | CmError::NotDelivered { .. } => {
                TibrvStatus::INVALID_ARG
            }
            CmError::Disallowed { .. } | CmError::NotCertified { .. } => TibrvStatus::NOT_PERMITTED,
            CmError::Store(_) | CmError::Record(_) => TibrvStatus::IO_FAILED,
        }
    }

    /// The request item at fault, when one is.
    pub fn field(&self) -> Option<&'static str> {
        match self {
            CmError::Name { field, .. } => Some(field),
            CmError::Bus(e) => e.field(),
            CmError::NameInUse { .. } | CmError::UnknownTransport { .. } => Some("name"),
            CmError::StoreNeedsName => Some("ledger"),
            CmError::Setting { field, .. } => Some(field),
            CmError::Disallowed { .. } => Some("listener"),
            CmError::NotCertified { .. } | CmError::NotDelivered { .. } => Some("sequence"),
            CmError::Store(_) | CmError::Record(_) => None,
        }
    }

    /// The element of a subject or name at fault, from 1.
    pub fn element(&self) -> Option<usize> {
        match self {
            CmError::Name { error, .. } => error.element(),
            CmError::Bus(e) => e.element(),
            _ => None,
        }
    }
}

impl fmt::Display for CmError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            CmError::Name { field, name, error } => {
                write!(f, "invalid {field} {}: {error}", shown(name))
            }
            CmError::Bus(e) => write!(f, "{e}"),
            CmError::NameInUse { name, setting } => write!(
                f,
                "a CM transport named {} is open already with another {setting}",
                shown(name)
            ),
            CmError::UnknownTransport { name } => {
                write!(f, "no CM transport named {}", shown(name))
            }
            CmError::StoreNeedsName => f.write_str(
                "a store ledger needs a reusable name: a generated name is never used again",
            ),
            CmError::Setting { message, .. } => f.write_str(message),
            CmError::Disallowed { listener } => write!(
                f,
                "listener {} is disallowed: allow it before adding it",
                shown(listener)
            ),
            CmError::NotCertified {
                sender,
                subject,
                seqno,
            } => write!(
                f,
                "message {seqno} of {} from {} is not certified for this listener",
                shown(subject),
                shown(sender)
            ),
            CmError::NotDelivered {
                sender,
                subject,
                seqno,
            } => write!(
                f,
                "message {seqno} of {} from {} was not delivered to this listener",
                shown(subject),
                shown(sender)
            ),
            CmError::Store(e) => write!(f, "the ledger could not be written or read: {e}"),
            CmError::Record(e) => write!(f, "{e}"),
        }
    }
}

impl std::error::Error for CmError {}

impl From<BusError> for CmError {
    fn from(e: BusError) -> CmError {
        CmError::Bus(e)
    }
}

impl From<QmError> for CmError {
    fn from(e: QmError) -> CmError {
        CmError::Store(e)
    }
}

//! Why a distributed queue call was refused: what, where, and the
//! `tibrv_status` that applies (docs/rendezvous.md "Distributed queues").

use std::fmt;

use mqgate_codecs::rv::SubjectError;
use mqgate_codecs::rv::status::TibrvStatus;

use crate::mqi::names::shown;
use crate::rv::BusError;
use crate::rv::cm::CmError;

/// A refusal of a distributed queue call.
#[derive(Debug)]
pub enum DqError {
    /// A distributed queue name that is not a reusable name ("Reusable
    /// Names": subject syntax, no wildcard, no reserved first element, at
    /// most 50 bytes; TIBRV_INVALID_SUBJECT).
    Name {
        /// The name as given.
        name: String,
        /// The rule broken.
        error: SubjectError,
    },
    /// A task subject that breaks a rule: distributed queues listen to
    /// subjects that could be sent to with certified delivery, never to a
    /// wildcard ("Distributed Queue Members": sending to a wildcard
    /// subject is illegal; TIBRV_INVALID_SUBJECT).
    Subject {
        /// The subject as given.
        subject: String,
        /// The rule broken.
        error: SubjectError,
    },
    /// No task subject (TIBRV_INVALID_ARG).
    NoSubjects,
    /// A parameter out of its range (TIBRV_INVALID_ARG).
    Setting {
        /// Which (`worker_weight`, `scheduler_activation_s`, ...).
        field: &'static str,
        /// What is wrong.
        message: String,
    },
    /// No member of that id in this gateway (TIBRV_NOT_FOUND).
    UnknownMember {
        /// The id.
        member: String,
    },
    /// The member holds no task of that number: never given, completed
    /// or released already, or withdrawn by the scheduler (TIBRV_NOT_FOUND).
    UnknownTask {
        /// The member.
        member: String,
        /// The task number.
        task: u64,
    },
    /// The member's tasks are read by another stream already
    /// (TIBRV_ALREADY_EXISTS).
    StreamOpen {
        /// The member.
        member: String,
    },
    /// The bus refused (the gateway is stopping: TIBRV_DAEMON_NOT_CONNECTED).
    Bus(BusError),
    /// The queue's CM transport could not be opened (a CM transport of
    /// that name is open with other settings).
    Cm(CmError),
}

impl DqError {
    /// The `tibrv_status` of the refusal.
    pub fn status(&self) -> TibrvStatus {
        match self {
            DqError::Name { .. } | DqError::Subject { .. } => TibrvStatus::INVALID_SUBJECT,
            DqError::NoSubjects | DqError::Setting { .. } => TibrvStatus::INVALID_ARG,
            DqError::UnknownMember { .. } | DqError::UnknownTask { .. } => TibrvStatus::NOT_FOUND,
            DqError::StreamOpen { .. } => TibrvStatus::ALREADY_EXISTS,
            DqError::Bus(e) => e.status(),
            DqError::Cm(e) => e.status(),
        }
    }

    /// The request item at fault, when one is.
    pub fn field(&self) -> Option<&'static str> {
        match self {
            DqError::Name { .. } => Some("name"),
            DqError::Subject { .. } | DqError::NoSubjects => Some("subjects"),
            DqError::Setting { field, .. } => Some(field),
            DqError::UnknownMember { .. } | DqError::StreamOpen { .. } => Some("member"),
            DqError::UnknownTask { .. } => Some("task"),
            DqError::Bus(e) => e.field(),
            DqError::Cm(e) => e.field(),
        }
    }

    /// The element of a name or subject at fault, from 1.
    pub fn element(&self) -> Option<usize> {
        match self {
            DqError::Name { error, .. } | DqError::Subject { error, .. } => error.element(),
            DqError::Bus(e) => e.element(),
            DqError::Cm(e) => e.element(),
            _ => None,
        }
    }
}

impl fmt::Display for DqError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            DqError::Name { name, error } => {
                write!(f, "invalid distributed queue name {}: {error}", shown(name))
            }
            DqError::Subject { subject, error } => {
                write!(f, "invalid task subject {}: {error}", shown(subject))
            }
            DqError::NoSubjects => {
                f.write_str("a distributed queue member needs at least one subject")
            }
            DqError::Setting { message, .. } => f.write_str(message),
            DqError::UnknownMember { member } => {
                write!(f, "no distributed queue member {}", shown(member))
            }
            DqError::UnknownTask { member, task } => write!(
                f,
                "member {} holds no task {task} (completed, released or withdrawn already, or never given)",
                shown(member)
            ),
            DqError::StreamOpen { member } => write!(
                f,
                "the tasks of member {} are read by another stream already",
                shown(member)
            ),
            DqError::Bus(e) => write!(f, "{e}"),
            DqError::Cm(e) => write!(f, "{e}"),
        }
    }
}

impl std::error::Error for DqError {}

impl From<BusError> for DqError {
    fn from(e: BusError) -> DqError {
        DqError::Bus(e)
    }
}

impl From<CmError> for DqError {
    fn from(e: CmError) -> DqError {
        DqError::Cm(e)
    }
}

//! Why the subject bus refused a publish or a listener: what, where (the
//! subject's role, the element) and the `tibrv_status` that applies
//! (docs/rendezvous.md "Refusals of the bus").

use std::fmt;

use mqgate_codecs::rv::msg_error::{RvMsgError, RvMsgErrorKind};
use mqgate_codecs::rv::status::TibrvStatus;
use mqgate_codecs::rv::{SubjectClass, SubjectError};

use crate::mqi::names::shown;

/// The part a refused subject plays.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum SubjectRole {
    /// A message's send subject.
    Subject,
    /// A message's reply subject.
    ReplySubject,
    /// A listener's subject (pattern).
    Listen,
}

impl SubjectRole {
    /// The request field it comes from: `subject` (a send subject, and a
    /// listener's `subject` query parameter) or `reply_subject`.
    pub fn field(self) -> &'static str {
        match self {
            SubjectRole::Subject | SubjectRole::Listen => "subject",
            SubjectRole::ReplySubject => "reply_subject",
        }
    }

    fn what(self) -> &'static str {
        match self {
            SubjectRole::Subject => "subject",
            SubjectRole::ReplySubject => "reply subject",
            SubjectRole::Listen => "listen subject",
        }
    }
}

/// A refusal of the bus.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum BusError {
    /// A subject that breaks a rule of its use (TIBRV_INVALID_SUBJECT).
    Subject {
        /// Send subject, reply subject or listen subject.
        role: SubjectRole,
        /// The subject as given.
        text: String,
        /// The rule and the element.
        error: SubjectError,
    },
    /// A listen subject whose first element is `_INBOX`: inboxes are made
    /// by the gateway for one listener, never listened to by name
    /// (TIBRV_NOT_PERMITTED).
    InboxByName {
        /// The subject as given.
        text: String,
    },
    /// A message from a link on a subject that never crosses one: `_LOCAL.`
    /// or `_RV.` (TIBRV_NOT_PERMITTED).
    NotFromLink {
        /// The subject.
        text: String,
        /// Its class.
        class: SubjectClass,
    },
    /// The message breaks a rule of the message model or a limit of the
    /// bus (its size: TIBRV_INVALID_SIZE; others: the status of the rule).
    Message(RvMsgError),
    /// A listener without any subject (TIBRV_INVALID_ARG).
    NoSubjects,
    /// The bus is closed: the gateway is stopping
    /// (TIBRV_DAEMON_NOT_CONNECTED).
    Closed,
}

impl BusError {
    /// The `tibrv_status` of the refusal.
    pub fn status(&self) -> TibrvStatus {
        match self {
            BusError::Subject { .. } => TibrvStatus::INVALID_SUBJECT,
            BusError::InboxByName { .. } | BusError::NotFromLink { .. } => {
                TibrvStatus::NOT_PERMITTED
            }
            BusError::Message(e) => e.status(),
            BusError::NoSubjects => TibrvStatus::INVALID_ARG,
            BusError::Closed => TibrvStatus::DAEMON_NOT_CONNECTED,
        }
    }

    /// The request field at fault: `subject`, `reply_subject`, `fields`
    /// (the message, its path in the text), or none for a closed bus.
    pub fn field(&self) -> Option<&'static str> {
        match self {
            BusError::Subject { role, .. } => Some(role.field()),
            BusError::InboxByName { .. } | BusError::NotFromLink { .. } | BusError::NoSubjects => {
                Some("subject")
            }
            BusError::Message(e) => Some(match &e.kind {
                RvMsgErrorKind::BadEnvelopeText(item, _) => match item {
                    mqgate_codecs::rv::msg_error::EnvelopeItem::Subject => "subject",
                    mqgate_codecs::rv::msg_error::EnvelopeItem::ReplySubject => "reply_subject",
                    mqgate_codecs::rv::msg_error::EnvelopeItem::CmSender => "cm",
                },
                RvMsgErrorKind::BadTimeLimit(_) => "cm",
                _ => "fields",
            }),
            BusError::Closed => None,
        }
    }

    /// The element of the subject at fault, counted from 1, when one is.
    pub fn element(&self) -> Option<usize> {
        match self {
            BusError::Subject { error, .. } => error.element(),
            BusError::InboxByName { .. } | BusError::NotFromLink { .. } => Some(1),
            _ => None,
        }
    }

    /// True when the message is larger than `rv.max_message_bytes`.
    pub fn is_too_large(&self) -> bool {
        matches!(
            self,
            BusError::Message(RvMsgError {
                kind: RvMsgErrorKind::TooLarge { .. },
                ..
            })
        )
    }
}

impl fmt::Display for BusError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            BusError::Subject { role, text, error } => {
                write!(f, "invalid {} {}: {error}", role.what(), shown(text))
            }
            BusError::InboxByName { text } => write!(
                f,
                "listen subject {}: element 1: '_INBOX.' subjects are made by the gateway for one listener (GET /v1/rv/listen?inbox=true), not listened to by name",
                shown(text)
            ),
            BusError::NotFromLink { text, class } => write!(
                f,
                "subject {}: {} subjects never cross a link",
                shown(text),
                class.prefix().unwrap_or("reserved")
            ),
            BusError::Message(e) => {
                if e.path.is_empty() {
                    write!(f, "{}", e.kind)
                } else {
                    write!(f, "field '{}': {}", e.path, e.kind)
                }
            }
            BusError::NoSubjects => f.write_str("a listener needs at least one subject"),
            BusError::Closed => f.write_str("the gateway is stopping: its subject bus is closed"),
        }
    }
}

impl std::error::Error for BusError {}

//! Why a fault tolerance call was refused: what, where (the request item)
//! and the `tibrv_status` that applies (docs/rendezvous.md "Fault
//! tolerance", "Refusals").

use std::fmt;

use mqgate_codecs::rv::SubjectError;
use mqgate_codecs::rv::status::TibrvStatus;

use crate::mqi::names::shown;

/// One of the three intervals of a member (TIBCO Rendezvous C Reference,
/// "tibrvftMember_Create()"), or a monitor's lost interval
/// ("tibrvftMonitor_Create()").
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum IntervalName {
    /// `heartbeatInterval`.
    Heartbeat,
    /// `preparationInterval` (0 = no prepare hint).
    Preparation,
    /// `activationInterval`.
    Activation,
    /// A monitor's `lostInterval`.
    Lost,
}

impl IntervalName {
    /// The request item: `heartbeat_interval`, `preparation_interval`,
    /// `activation_interval` or `lost_interval`.
    pub fn field(self) -> &'static str {
        match self {
            IntervalName::Heartbeat => "heartbeat_interval",
            IntervalName::Preparation => "preparation_interval",
            IntervalName::Activation => "activation_interval",
            IntervalName::Lost => "lost_interval",
        }
    }

    fn what(self) -> &'static str {
        match self {
            IntervalName::Heartbeat => "heartbeat interval",
            IntervalName::Preparation => "preparation interval",
            IntervalName::Activation => "activation interval",
            IntervalName::Lost => "lost interval",
        }
    }
}

/// A refusal of a fault tolerance call.
#[derive(Clone, Debug, PartialEq)]
pub enum FtError {
    /// A group name that breaks the rules of reusable names
    /// (TIBRV_INVALID_SUBJECT).
    Group {
        /// The name as given.
        name: String,
        /// The rule and the element.
        error: SubjectError,
    },
    /// A group name too long for its protocol subject `_RVFT.<group>` to
    /// stay within the 196 bytes programs can receive
    /// (TIBRV_INVALID_SUBJECT).
    GroupTooLong {
        /// Its length in bytes.
        len: usize,
    },
    /// Weight 0, which Rendezvous reserves for members it disables
    /// (TIBRV_INVALID_ARG).
    WeightZero,
    /// Active goal 0 (TIBRV_INVALID_ARG).
    ActiveGoalZero,
    /// An interval that is no number of seconds mqgate takes
    /// (TIBRV_INVALID_ARG): negative, not finite, above the maximum, or a
    /// heartbeat below the minimum.
    Interval {
        /// Which.
        which: IntervalName,
        /// The value given, seconds.
        seconds: f64,
        /// Why it is refused.
        why: &'static str,
    },
    /// The heartbeat interval is not less than the activation interval
    /// (TIBRV_INVALID_ARG).
    HeartbeatNotBelowActivation {
        /// Seconds.
        heartbeat: f64,
        /// Seconds.
        activation: f64,
    },
    /// A preparation interval other than 0 that is not between the
    /// heartbeat and the activation interval (TIBRV_INVALID_ARG).
    PreparationOutOfRange {
        /// Seconds.
        heartbeat: f64,
        /// Seconds.
        preparation: f64,
        /// Seconds.
        activation: f64,
    },
    /// No member of that id on this gateway (it left, or never was)
    /// (TIBRV_NOT_FOUND).
    UnknownMember(String),
    /// The member's actions stream is open already; a member has one
    /// (TIBRV_NOT_PERMITTED).
    StreamOpen(String),
    /// The gateway is stopping (TIBRV_DAEMON_NOT_CONNECTED).
    Closed,
}

impl FtError {
    /// The `tibrv_status` of the refusal.
    pub fn status(&self) -> TibrvStatus {
        match self {
            FtError::Group { .. } | FtError::GroupTooLong { .. } => TibrvStatus::INVALID_SUBJECT,
            FtError::UnknownMember(_) => TibrvStatus::NOT_FOUND,
            FtError::StreamOpen(_) => TibrvStatus::NOT_PERMITTED,
            FtError::Closed => TibrvStatus::DAEMON_NOT_CONNECTED,
            _ => TibrvStatus::INVALID_ARG,
        }
    }

    /// The request item at fault (`group`, `weight`, `active_goal`, an
    /// interval, `member`), or none for a stopping gateway.
    pub fn field(&self) -> Option<&'static str> {
        Some(match self {
            FtError::Group { .. } | FtError::GroupTooLong { .. } => "group",
            FtError::WeightZero => "weight",
            FtError::ActiveGoalZero => "active_goal",
            FtError::Interval { which, .. } => which.field(),
            FtError::HeartbeatNotBelowActivation { .. } => "heartbeat_interval",
            FtError::PreparationOutOfRange { .. } => "preparation_interval",
            FtError::UnknownMember(_) | FtError::StreamOpen(_) => "member",
            FtError::Closed => return None,
        })
    }

    /// The element of the group name at fault, from 1, when one is.
    pub fn element(&self) -> Option<usize> {
        match self {
            FtError::Group { error, .. } => error.element(),
            _ => None,
        }
    }
}

impl fmt::Display for FtError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            FtError::Group { name, error } => {
                write!(f, "invalid group name {}: {error}", shown(name))
            }
            FtError::GroupTooLong { len } => write!(
                f,
                "the group name is {len} bytes long, over the {} bytes that keep its subject _RVFT.<group> within the 196 bytes programs can receive",
                super::params::MAX_GROUP_BYTES
            ),
            FtError::WeightZero => f.write_str(
                "weight 0 is reserved for members Rendezvous disables (DISABLING_MEMBER); a member's weight is 1 to 65535",
            ),
            FtError::ActiveGoalZero => f.write_str("the active goal must be at least 1"),
            FtError::Interval {
                which,
                seconds,
                why,
            } => write!(f, "the {} {seconds} s {why}", which.what()),
            FtError::HeartbeatNotBelowActivation {
                heartbeat,
                activation,
            } => write!(
                f,
                "the heartbeat interval ({heartbeat} s) must be less than the activation interval ({activation} s)"
            ),
            FtError::PreparationOutOfRange {
                heartbeat,
                preparation,
                activation,
            } => write!(
                f,
                "the preparation interval ({preparation} s) must be 0 (no prepare hint) or greater than the heartbeat interval ({heartbeat} s) and less than the activation interval ({activation} s)"
            ),
            FtError::UnknownMember(id) => write!(
                f,
                "no fault tolerance member {} on this gateway (it left the group, or never joined)",
                shown(id)
            ),
            FtError::StreamOpen(id) => write!(
                f,
                "member {} has its actions stream open already",
                shown(id)
            ),
            FtError::Closed => f.write_str("the gateway is stopping: its subject bus is closed"),
        }
    }
}

impl std::error::Error for FtError {}

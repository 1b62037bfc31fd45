//! What can go wrong talking to a queue manager, with the MQRC reason each
//! maps to (IBM MQ "API reason codes").

use mqgate_codecs::fap::{FapError, SegmentType, StatusCode, StatusData};
use mqgate_codecs::mq::Mqrc;
use std::fmt;

/// Why a client call failed. `during` names the step (`connect`,
/// `INITIAL_DATA`, `MQGET`, ...).
#[allow(missing_docs)]
#[derive(Debug)]
pub enum ClientError {
    /// Connecting, reading or writing the socket failed (2009
    /// MQRC_CONNECTION_BROKEN; 2059 MQRC_Q_MGR_NOT_AVAILABLE when connecting).
    Io {
        during: &'static str,
        error: std::io::Error,
    },
    /// The queue manager closed the socket (2009).
    Closed { during: &'static str },
    /// No reply within the allowed time, in ms (2009).
    Timeout { during: &'static str, ms: u64 },
    /// The queue manager sent bytes the codec refuses (the codec's reason).
    Protocol(FapError),
    /// A reply of another segment type than the request's.
    Unexpected {
        expected: SegmentType,
        got: SegmentType,
    },
    /// The queue manager refused the connection with STATUS_DATA: 2540
    /// MQRC_UNKNOWN_CHANNEL_NAME for NO_CHANNEL, 2035 MQRC_NOT_AUTHORIZED
    /// for a security failure or a refused CONAUTH_INFO, else 2059.
    Refused {
        during: &'static str,
        status: StatusData,
    },
    /// The queue manager's TLS certificate does not pass the channel's
    /// SSLPEER filter (2035 MQRC_NOT_AUTHORIZED); the text says why.
    PeerRefused(String),
    /// An MQI verb completed with CompCode `comp_code` and `reason`.
    Verb {
        verb: &'static str,
        comp_code: i32,
        reason: Mqrc,
    },
}

impl ClientError {
    /// The MQRC reason of the failure.
    pub fn mqrc(&self) -> Mqrc {
        match self {
            ClientError::Io {
                during: "connect", ..
            } => Mqrc::Q_MGR_NOT_AVAILABLE,
            ClientError::Io { .. } | ClientError::Closed { .. } | ClientError::Timeout { .. } => {
                Mqrc::CONNECTION_BROKEN
            }
            ClientError::Protocol(e) => e.mqrc(),
            ClientError::Unexpected { .. } => Mqrc::CONNECTION_BROKEN,
            ClientError::Refused { during, status } => match status {
                // What mqgate's server sends for a channel it does not have
                // (docs/mq-client-protocol.md "Handshake").
                StatusData::Status { code, .. } if *code == StatusCode::NO_CHANNEL => {
                    Mqrc::UNKNOWN_CHANNEL_NAME
                }
                StatusData::Status { code, .. } if *code == StatusCode::SECURITY_FAILURE => {
                    Mqrc::NOT_AUTHORIZED
                }
                _ if *during == "CONAUTH_INFO" => Mqrc::NOT_AUTHORIZED,
                _ => Mqrc::Q_MGR_NOT_AVAILABLE,
            },
            ClientError::PeerRefused(_) => Mqrc::NOT_AUTHORIZED,
            ClientError::Verb { reason, .. } => *reason,
        }
    }
}

impl fmt::Display for ClientError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            ClientError::Io { during, error } => write!(f, "{during}: {error}"),
            ClientError::Closed { during } => {
                write!(f, "{during}: the queue manager closed the connection")
            }
            ClientError::Timeout { during, ms } => write!(f, "{during}: no reply within {ms} ms"),
            ClientError::PeerRefused(text) => write!(f, "{text} (2035 MQRC_NOT_AUTHORIZED)"),
            ClientError::Protocol(e) => write!(f, "bad segment from the queue manager: {e}"),
            ClientError::Unexpected { expected, got } => write!(
                f,
                "expected a {} reply, got segment type {:#04x}",
                expected.name().unwrap_or("?"),
                got.0
            ),
            ClientError::Refused { during, status } => match status {
                StatusData::Status { code, value } => {
                    write!(
                        f,
                        "{during}: refused by the queue manager with STATUS_DATA code 0x{:02X}",
                        code.0
                    )?;
                    match value {
                        Some(v) => write!(f, ", value {v}"),
                        None => Ok(()),
                    }
                }
                StatusData::Empty => write!(f, "{during}: refused by the queue manager"),
            },
            ClientError::Verb {
                verb,
                comp_code,
                reason,
            } => write!(f, "{verb}: CompCode {comp_code}, Reason {reason}"),
        }
    }
}

impl std::error::Error for ClientError {}

impl From<FapError> for ClientError {
    fn from(e: FapError) -> Self {
        ClientError::Protocol(e)
    }
}

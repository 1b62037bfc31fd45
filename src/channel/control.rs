//! Channel control for administrators (IBM MQ "START CHANNEL"): starts a
//! receiver channel that the undelivered rule stopped, without restarting
//! the gateway (docs/channel-protocol.md "Starting a stopped channel"). The
//! HTTP API (`POST /v1/channels/{name}/start`, src/http/channels.rs) and
//! `mqgate channel start NAME` are thin over it.

use super::StatusBoard;
use super::status::ChannelStatus;
use crate::mqi::QmError;
use crate::mqi::names::shown;
use mqgate_codecs::mq::Mqrc;
use serde::Serialize;
use std::sync::Arc;

/// What a start did.
#[derive(Clone, Debug, Serialize)]
pub struct Started {
    /// True when the channel was stopped and now accepts senders again
    /// (state `inactive`); false when it was not stopped (nothing changed).
    pub started: bool,
    /// The channel's status after the call (as in `GET /v1/status`).
    pub status: ChannelStatus,
}

/// Starts and inspects the channels of one gateway; cheap to clone.
#[derive(Clone, Debug)]
pub struct ChannelControl {
    board: Arc<StatusBoard>,
}

impl ChannelControl {
    /// Control over the channels registered on `board`.
    pub fn new(board: Arc<StatusBoard>) -> Self {
        ChannelControl { board }
    }

    /// Starts channel `name`: a receiver channel stopped by the undelivered
    /// rule accepts the next sender again (its messages stayed with the
    /// sender, which sends them again); a channel that is not stopped is
    /// left as it is. Errors: no channel of that name (2540
    /// MQRC_UNKNOWN_CHANNEL_NAME).
    pub fn start(&self, name: &str) -> Result<Started, QmError> {
        let (started, status) = self.board.start(name).ok_or_else(|| {
            QmError::new(
                Mqrc::UNKNOWN_CHANNEL_NAME,
                format!("channel {} is not defined", shown(name)),
            )
        })?;
        if started {
            tracing::info!(channel = %name, "channel started by an administrator");
        }
        Ok(Started { started, status })
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::channel::ChannelState;

    #[test]
    fn start_turns_a_stopped_channel_inactive_and_leaves_others_alone() {
        let board = Arc::new(StatusBoard::default());
        board.add("RCV", "receiver");
        board.add("SDR", "sender");
        board.update("RCV", |s| {
            s.state = ChannelState::Stopped;
            s.reason = 2087;
            s.message = "undelivered".into();
        });
        board.update("SDR", |s| s.state = ChannelState::Running);
        let control = ChannelControl::new(Arc::clone(&board));
        let s = control.start("RCV").unwrap();
        // Stopped -> inactive; the last failure stays visible.
        assert!(s.started);
        assert_eq!(s.status.state, ChannelState::Inactive);
        assert_eq!(
            (s.status.reason, s.status.message.as_str()),
            (2087, "undelivered")
        );
        assert_eq!(board.state("RCV"), Some(ChannelState::Inactive));
        // Again: nothing to start.
        assert!(!control.start("RCV").unwrap().started);
        // A running channel is left running.
        let s = control.start("SDR").unwrap();
        assert!(!s.started);
        assert_eq!(s.status.state, ChannelState::Running);
        // IBM MQ "2540 (09EC) (RC2540): MQRC_UNKNOWN_CHANNEL_NAME".
        let e = control.start("NOPE").unwrap_err();
        assert_eq!(e.mqrc, Mqrc(2540));
        assert_eq!(e.message, "channel \"NOPE\" is not defined");
    }
}

//! What each channel is doing, for `GET /v1/status` (the WebSphere MQ Everyplace gateway article: a channel
//! stopped by the undelivered rule must be visible).

use serde::Serialize;
use std::collections::BTreeMap;
use std::sync::Mutex;

/// A channel's state (MQ channel status names).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum ChannelState {
    /// No connection.
    Inactive,
    /// Connected and moving messages.
    Running,
    /// Waiting to retry (undelivered rule `retry`, or a sender's reconnect backoff).
    Retrying,
    /// Stopped: the undelivered rule's threshold was reached; it refuses
    /// senders (2279) until an administrator starts it
    /// ([`StatusBoard::start`]) or the gateway restarts.
    Stopped,
}

/// One channel's status.
#[derive(Clone, Debug, Serialize)]
pub struct ChannelStatus {
    pub name: String,
    /// `receiver` or `sender`.
    #[serde(rename = "type")]
    pub kind: &'static str,
    pub state: ChannelState,
    /// The peer address while connected (or last connected).
    pub peer: Option<String>,
    /// Last batch sequence number committed (receiver) or confirmed (sender).
    pub last_seq: u64,
    /// Messages moved since the gateway started.
    pub messages: u64,
    /// Sender channels: messages waiting on the transmission queue.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub xmit_queue_depth: Option<usize>,
    /// The MQRC reason of the last failure (0 = none).
    pub reason: i32,
    /// What went wrong last, in words.
    pub message: String,
    /// Batches committed (receiver) or confirmed (sender) since the gateway
    /// started (`GET /metrics`, docs/operations.md).
    #[serde(skip)]
    pub batches: u64,
    /// Bytes of the transmission messages (MQXQH, MQMD and data) in those
    /// batches.
    #[serde(skip)]
    pub bytes: u64,
    /// When the channel last met a failure: its reason became non-zero, or
    /// its state changed while a reason was set ([`StatusBoard::update`]).
    #[serde(skip)]
    pub last_error_at: Option<std::time::SystemTime>,
}

impl ChannelStatus {
    /// Counts a committed or confirmed batch of `messages` messages and
    /// `bytes` bytes; `batches` is 0 for a message outside any batch (a
    /// non-persistent message on a receiver's fast path).
    pub fn moved(&mut self, messages: u64, batches: u64, bytes: u64) {
        self.messages += messages;
        self.batches += batches;
        self.bytes += bytes;
    }
}

/// Every channel's status, shared by the channel tasks and the HTTP API.
#[derive(Debug, Default)]
pub struct StatusBoard {
    channels: Mutex<BTreeMap<String, ChannelStatus>>,
}

impl StatusBoard {
    /// Registers a channel as inactive.
    pub fn add(&self, name: &str, kind: &'static str) {
        self.lock().insert(
            name.to_string(),
            ChannelStatus {
                name: name.to_string(),
                kind,
                state: ChannelState::Inactive,
                peer: None,
                last_seq: 0,
                messages: 0,
                xmit_queue_depth: None,
                reason: 0,
                message: String::new(),
                batches: 0,
                bytes: 0,
                last_error_at: None,
            },
        );
    }

    fn lock(&self) -> std::sync::MutexGuard<'_, BTreeMap<String, ChannelStatus>> {
        self.channels.lock().unwrap_or_else(|p| p.into_inner())
    }

    /// Changes channel `name`'s status with `f` (no-op for an unknown name).
    /// A change that sets a non-zero reason, or changes the state while a
    /// reason is set, stamps `last_error_at`.
    pub fn update(&self, name: &str, f: impl FnOnce(&mut ChannelStatus)) {
        if let Some(s) = self.lock().get_mut(name) {
            let before = (s.reason, s.state);
            f(s);
            if s.reason != 0 && (s.reason, s.state) != before {
                s.last_error_at = Some(std::time::SystemTime::now());
            }
        }
    }

    /// Starts channel `name` if it is stopped: its state becomes inactive,
    /// so the next sender is accepted; its last `reason` and `message` stay
    /// as they were. Returns whether it was stopped and its status after
    /// the call; `None` for a channel not on the board (IBM MQ "START
    /// CHANNEL").
    pub fn start(&self, name: &str) -> Option<(bool, ChannelStatus)> {
        let mut channels = self.lock();
        let s = channels.get_mut(name)?;
        let was_stopped = s.state == ChannelState::Stopped;
        if was_stopped {
            s.state = ChannelState::Inactive;
        }
        Some((was_stopped, s.clone()))
    }

    /// The state of channel `name`.
    pub fn state(&self, name: &str) -> Option<ChannelState> {
        self.lock().get(name).map(|s| s.state)
    }

    /// Every channel, by name.
    pub fn all(&self) -> Vec<ChannelStatus> {
        self.lock().values().cloned().collect()
    }
}

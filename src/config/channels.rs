//! Message channels and device queue managers (docs/config.md "channels",
//! "devices"; docs/channel-protocol.md; the WebSphere MQ Everyplace gateway article).

use mqgate_exits::{ExitDef, ExitRef, FailurePolicy};
use serde::Deserialize;
use std::net::{IpAddr, SocketAddr};

/// Name of the receiver channel of the embedded default (the WebSphere MQ Everyplace gateway article: the MQ
/// network sends to the gateway queue manager over this channel).
pub const DEFAULT_RECEIVER_CHANNEL: &str = "TO.MQGATE";

/// One channel definition, chosen by its `type:` key.
///
/// Read through [`super::raw_channel::RawChannelDef`], a flat struct, as
/// queue entries are: an internally tagged enum would lose the line and
/// column of errors inside the entry.
#[derive(Clone, Debug, Deserialize)]
#[serde(try_from = "super::raw_channel::RawChannelDef")]
pub enum ChannelDef {
    /// A receiver channel: accepts a sender's connection on the listener and
    /// puts what it receives (MQ CHLTYPE(RCVR)).
    Receiver(ReceiverChannelDef),
    /// A sender channel: serves a transmission queue and delivers its
    /// messages to another mqgate (MQ CHLTYPE(SDR)).
    Sender(SenderChannelDef),
    /// An MQ client channel: connects to a queue manager's server-connection
    /// channel and MQGETs from one of its transmission queues
    /// (docs/mq-client-protocol.md "Client side").
    MqClient(MqClientChannelDef),
}

impl ChannelDef {
    /// The channel name (20 characters at most, MQ name characters).
    pub fn name(&self) -> &str {
        match self {
            ChannelDef::Receiver(r) => &r.name,
            ChannelDef::Sender(s) => &s.name,
            ChannelDef::MqClient(c) => &c.name,
        }
    }

    /// The batch size, message length and heartbeat the channel offers.
    pub fn limits(&self) -> &ChannelLimits {
        match self {
            ChannelDef::Receiver(r) => &r.limits,
            ChannelDef::Sender(s) => &s.limits,
            ChannelDef::MqClient(c) => &c.limits,
        }
    }
}

/// What a receiver channel does with a message whose destination cannot be
/// resolved (the WebSphere MQ Everyplace gateway article "Unhandled Messages": the undelivered rule).
#[derive(Clone, Copy, Debug, Default, Deserialize, PartialEq, Eq)]
#[serde(rename_all = "kebab-case")]
pub enum UndeliveredRule {
    /// Retry the batch at growing intervals; after `retry.attempts` tries stop
    /// the channel. Nothing of the batch is committed, so the message and those
    /// after it stay on the sender's transmission queue.
    #[default]
    Retry,
    /// Put the message on the dead-letter queue behind an MQDLH (the MQRC
    /// reason, the original destination, PutApplName = the channel name) and go on.
    DeadLetter,
}

/// Growing retry intervals of the `retry` undelivered rule.
#[derive(Clone, Debug, Deserialize)]
#[serde(default, deny_unknown_fields)]
pub struct RetryConfig {
    /// First wait before retrying, in ms; each further wait doubles.
    pub first_interval_ms: u64,
    /// Longest single wait, in ms.
    pub max_interval_ms: u64,
    /// Retries before the channel stops (the threshold).
    pub attempts: u32,
}

impl Default for RetryConfig {
    fn default() -> Self {
        RetryConfig {
            first_interval_ms: 1000,
            max_interval_ms: 60_000,
            attempts: 5,
        }
    }
}

/// MQ's default BATCHSZ.
pub const DEFAULT_BATCH_SIZE: u32 = 50;
/// MQ's default channel MAXMSGL: 4 MiB.
pub const DEFAULT_CHANNEL_MAX_MSG_LENGTH: u32 = 4 * 1024 * 1024;
/// Default heartbeat interval: 30 s.
pub const DEFAULT_HEARTBEAT_MS: u32 = 30_000;

/// What both ends of a message channel offer in the handshake and then
/// agree on (docs/channel-protocol.md "Handshake"): MQ's BATCHSZ, MAXMSGL
/// and HBINT. The same values appear in a receiver or sender channel
/// definition (YAML keys `batch_size`, `max_msg_length`, `heartbeat_ms` of
/// the channel entry) and in the HELLO and HELLO_ACK frames.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct ChannelLimits {
    /// Most MESSAGE frames per batch (MQ BATCHSZ); default 50.
    pub batch_size: u32,
    /// Longest transmission message (MQXQH + data) in bytes (MQ MAXMSGL);
    /// default 4 MiB.
    pub max_msg_length: u32,
    /// Heartbeat interval in ms, 0 = none (MQ HBINT, in seconds there);
    /// default 30000.
    pub heartbeat_ms: u32,
}

impl Default for ChannelLimits {
    fn default() -> Self {
        ChannelLimits {
            batch_size: DEFAULT_BATCH_SIZE,
            max_msg_length: DEFAULT_CHANNEL_MAX_MSG_LENGTH,
            heartbeat_ms: DEFAULT_HEARTBEAT_MS,
        }
    }
}

impl ChannelLimits {
    /// The values both sides use after the handshake: the lower of each
    /// offer, the batch size at least 1 (docs/channel-protocol.md
    /// "Handshake", step 3).
    pub fn agree(&self, other: &ChannelLimits) -> ChannelLimits {
        ChannelLimits {
            batch_size: self.batch_size.min(other.batch_size).max(1),
            max_msg_length: self.max_msg_length.min(other.max_msg_length),
            heartbeat_ms: self.heartbeat_ms.min(other.heartbeat_ms),
        }
    }
}

/// A receiver channel (YAML: a `channels` entry with `type: receiver`).
#[derive(Clone, Debug)]
pub struct ReceiverChannelDef {
    /// Channel name; the sender names it in its handshake.
    pub name: String,
    /// Peer IP addresses allowed to start this channel; empty = any.
    pub allowed_peers: Vec<IpAddr>,
    /// The sending queue manager's name the sender must announce; empty = any.
    pub sending_q_mgr: String,
    /// Receive exits run on each transmission message before it is parsed
    /// (after the `exits:` section's global and per-channel receive exits; docs/exits.md).
    pub receive_exits: Vec<ExitDef>,
    /// The undelivered rule.
    pub undelivered: UndeliveredRule,
    /// Intervals of the `retry` rule.
    pub retry: RetryConfig,
    /// Offered batch size, message length and heartbeat.
    pub limits: ChannelLimits,
    /// The SSLPEER filter the sender's certificate subject DN must pass
    /// (IBM MQ "SSLPEER (SSL Peer)"); a mismatch refuses the channel with
    /// 2035 MQRC_NOT_AUTHORIZED. Needs `listener.tls` with `client_auth`.
    pub sslpeer: Option<crate::security::tls::SslPeer>,
}

/// Reconnection backoff of a sender channel.
#[derive(Clone, Debug, Deserialize)]
#[serde(default, deny_unknown_fields)]
pub struct BackoffConfig {
    /// First wait after a failed connection, in ms; doubles up to `max_ms`.
    pub first_ms: u64,
    /// Longest wait, in ms.
    pub max_ms: u64,
}

impl Default for BackoffConfig {
    fn default() -> Self {
        BackoffConfig {
            first_ms: 500,
            max_ms: 30_000,
        }
    }
}

/// A sender channel (YAML: a `channels` entry with `type: sender`).
#[derive(Clone, Debug)]
pub struct SenderChannelDef {
    /// Channel name; the receiving gateway must define a receiver channel of this name.
    pub name: String,
    /// The transmission queue it serves (a local queue with `usage: xmitq`).
    pub xmit_queue: String,
    /// The receiving gateway's channel listener, `HOST:PORT`.
    pub connect: SocketAddr,
    /// Reconnection backoff.
    pub reconnect: BackoffConfig,
    /// Offered batch size, message length and heartbeat.
    pub limits: ChannelLimits,
    /// TLS to the receiver: its CA certificates, an optional client
    /// certificate (docs/security.md "TLS"); default none.
    pub tls: Option<crate::security::tls::TlsConfig>,
    /// The SSLPEER filter the receiver's certificate subject DN must pass;
    /// a mismatch stops the connection with 2035 MQRC_NOT_AUTHORIZED.
    /// Needs `tls`.
    pub sslpeer: Option<crate::security::tls::SslPeer>,
}

/// IBM MQ's default listener port (IBM MQ "Defining a TCP connection").
pub const DEFAULT_MQ_PORT: u16 = 1414;
/// Default MQGET wait interval of an mq-client channel: 5000 ms.
pub const DEFAULT_GET_WAIT_MS: u32 = 5000;

/// Which buffer an mq-client channel's receive exits see
/// (docs/exits.md "The agent buffer").
#[derive(Clone, Copy, Debug, Default, Deserialize, PartialEq, Eq)]
#[serde(rename_all = "kebab-case")]
pub enum ExitBuffer {
    /// The transmission message: MQXQH at offset 0, as on a receiver channel.
    #[default]
    Transmission,
    /// The whole MQGET reply segment, as an IBM MQ client's exits see the
    /// agent buffer: TSHM (36 bytes), API header (16), MQMD v1 (324), MQGMO
    /// v4 (112), data length (4), so the MQXQH starts at offset 492.
    Agent,
}

/// An MQ client channel (YAML: a `channels` entry with `type: mq-client`):
/// mqgate connects as an IBM MQ client to a queue manager's server-connection
/// channel, MQGETs each message of a transmission queue under syncpoint,
/// runs its receive exits, resolves and stores it, then MQCMITs
/// (docs/mq-client-protocol.md "Client side").
#[derive(Clone, Debug)]
pub struct MqClientChannelDef {
    /// mqgate's name for the channel (status, exits, logs); 20 characters.
    pub name: String,
    /// The queue manager's host name or address.
    pub host: String,
    /// The queue manager's listener port; default 1414.
    pub port: u16,
    /// The server-connection channel to connect to (MQ CHANNEL), 20 characters.
    pub channel: String,
    /// The queue manager name sent in MQCONN; empty = whichever answers.
    pub q_mgr_name: String,
    /// User id for USERID_DATA and, with `password`, CONAUTH_INFO; empty = none.
    pub user: String,
    /// Password checked by the queue manager (CONAUTH_INFO); `None` = none sent.
    pub password: Option<String>,
    /// The transmission queue on the queue manager to MQGET from.
    pub xmit_queue: String,
    /// MQGET wait interval for the first message of a batch, in ms; default 5000.
    pub wait_ms: u32,
    /// Receive exits (after the `exits:` section's global and per-channel ones).
    pub receive_exits: Vec<ExitDef>,
    /// Which buffer the receive exits see.
    pub exit_buffer: ExitBuffer,
    /// The undelivered rule.
    pub undelivered: UndeliveredRule,
    /// Intervals of the `retry` rule.
    pub retry: RetryConfig,
    /// Reconnection backoff (with jitter).
    pub reconnect: BackoffConfig,
    /// Batch size (messages per MQCMIT), longest message, heartbeat offered.
    pub limits: ChannelLimits,
    /// TLS to the queue manager's listener: its CA certificates, an
    /// optional client certificate (docs/security.md "TLS"); default none.
    pub tls: Option<crate::security::tls::TlsConfig>,
    /// The SSLPEER filter the queue manager's certificate subject DN must
    /// pass; a mismatch fails the connection with 2035. Needs `tls`.
    pub sslpeer: Option<crate::security::tls::SslPeer>,
}

/// Device queue managers (the WebSphere MQ Everyplace gateway article): names matching a pattern are devices
/// whose queues are created on first use; none is configured one by one.
#[derive(Clone, Debug, Deserialize)]
#[serde(default, deny_unknown_fields)]
pub struct DevicesConfig {
    /// Queue manager name patterns, `*` matching any tail (`DEV*`).
    pub queue_managers: Vec<String>,
    /// MAXDEPTH of each device queue.
    pub max_depth: usize,
}

impl Default for DevicesConfig {
    fn default() -> Self {
        DevicesConfig {
            queue_managers: vec!["DEV*".into()],
            max_depth: super::DEFAULT_MAX_DEPTH,
        }
    }
}

/// The channels of the embedded default: receiver `TO.MQGATE` running the
/// `destination-rewrite` exit with separator `%` (the WebSphere MQ Everyplace gateway article).
pub fn default_channels() -> Vec<ChannelDef> {
    vec![ChannelDef::Receiver(ReceiverChannelDef {
        name: DEFAULT_RECEIVER_CHANNEL.into(),
        allowed_peers: Vec::new(),
        sending_q_mgr: String::new(),
        receive_exits: vec![ExitDef {
            name: None,
            exit: ExitRef::Builtin("destination-rewrite".into()),
            data: "separator=%".into(),
            time_budget_ms: mqgate_exits::config::DEFAULT_TIME_BUDGET_MS,
            on_failure: FailurePolicy::default(),
            buffer_headroom: 0,
            isolation: None,
        }],
        undelivered: UndeliveredRule::default(),
        retry: RetryConfig::default(),
        limits: ChannelLimits::default(),
        sslpeer: None,
    })]
}

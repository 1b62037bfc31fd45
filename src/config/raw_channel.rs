//! A channel entry as written: every key of both channel types, so serde
//! reads it as a plain struct and keeps each error's line and column (an
//! internally tagged enum buffers the entry first, and an error inside it,
//! e.g. a bad `connect`, is then placed at the list item instead of
//! `channels[0].connect`).

use super::{
    BackoffConfig, ChannelDef, ChannelLimits, DEFAULT_BATCH_SIZE, DEFAULT_CHANNEL_MAX_MSG_LENGTH,
    DEFAULT_GET_WAIT_MS, DEFAULT_HEARTBEAT_MS, DEFAULT_MQ_PORT, ExitBuffer, MqClientChannelDef,
    ReceiverChannelDef, RetryConfig, SenderChannelDef, UndeliveredRule,
};
use mqgate_exits::ExitDef;
use serde::Deserialize;
use std::net::{IpAddr, SocketAddr};

/// The `type:` of a channel entry (MQ CHLTYPE).
#[derive(Clone, Copy, Debug, Deserialize, PartialEq, Eq)]
#[serde(rename_all = "snake_case")]
pub enum ChannelType {
    Receiver,
    Sender,
    #[serde(rename = "mq-client")]
    MqClient,
}

impl ChannelType {
    /// Whether `key` is a key of this type (`type`, `name` and the limits
    /// are common to both; docs/config.md `channels`).
    fn allows(self, key: &str) -> bool {
        let own: &[&str] = match self {
            ChannelType::Receiver => &[
                "allowed_peers",
                "sending_q_mgr",
                "receive_exits",
                "undelivered",
                "retry",
                "sslpeer",
            ],
            ChannelType::Sender => &["xmit_queue", "connect", "reconnect", "tls", "sslpeer"],
            ChannelType::MqClient => &[
                "host",
                "port",
                "channel",
                "q_mgr_name",
                "user",
                "password",
                "xmit_queue",
                "wait_ms",
                "receive_exits",
                "exit_buffer",
                "undelivered",
                "retry",
                "reconnect",
                "tls",
                "sslpeer",
            ],
        };
        matches!(
            key,
            "type" | "name" | "batch_size" | "max_msg_length" | "heartbeat_ms"
        ) || own.contains(&key)
    }

    fn name(self) -> &'static str {
        match self {
            ChannelType::Receiver => "receiver",
            ChannelType::Sender => "sender",
            ChannelType::MqClient => "mq-client",
        }
    }

    /// The keys an entry of this type must have.
    fn required(self) -> &'static [&'static str] {
        match self {
            ChannelType::Receiver => &[],
            ChannelType::Sender => &["xmit_queue", "connect"],
            ChannelType::MqClient => &["host", "channel", "xmit_queue"],
        }
    }
}

/// Every key a channel entry may have; which ones fit is checked per type.
#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct RawChannelDef {
    #[serde(rename = "type")]
    kind: ChannelType,
    name: String,
    allowed_peers: Option<Vec<IpAddr>>,
    sending_q_mgr: Option<String>,
    receive_exits: Option<Vec<ExitDef>>,
    undelivered: Option<UndeliveredRule>,
    retry: Option<RetryConfig>,
    xmit_queue: Option<String>,
    connect: Option<SocketAddr>,
    reconnect: Option<BackoffConfig>,
    host: Option<String>,
    port: Option<u16>,
    channel: Option<String>,
    q_mgr_name: Option<String>,
    user: Option<String>,
    password: Option<String>,
    wait_ms: Option<u32>,
    exit_buffer: Option<ExitBuffer>,
    batch_size: Option<u32>,
    max_msg_length: Option<u32>,
    heartbeat_ms: Option<u32>,
    tls: Option<crate::security::tls::TlsConfig>,
    sslpeer: Option<crate::security::tls::SslPeer>,
}

/// Start of the message of a key that does not belong to the entry's type;
/// `Config::from_yaml` finds the key's position by it.
pub const MISPLACED: &str = "key not valid for this channel type: ";
/// Start and end of the message of an entry without a key its type requires.
const MISSING: &str = "missing field `";
const MISSING_OF_TYPE: &str = "` (type ";

impl TryFrom<RawChannelDef> for ChannelDef {
    type Error = String;

    fn try_from(r: RawChannelDef) -> Result<Self, String> {
        let present = [
            ("allowed_peers", r.allowed_peers.is_some()),
            ("sending_q_mgr", r.sending_q_mgr.is_some()),
            ("receive_exits", r.receive_exits.is_some()),
            ("undelivered", r.undelivered.is_some()),
            ("retry", r.retry.is_some()),
            ("xmit_queue", r.xmit_queue.is_some()),
            ("connect", r.connect.is_some()),
            ("reconnect", r.reconnect.is_some()),
            ("host", r.host.is_some()),
            ("port", r.port.is_some()),
            ("channel", r.channel.is_some()),
            ("q_mgr_name", r.q_mgr_name.is_some()),
            ("user", r.user.is_some()),
            ("password", r.password.is_some()),
            ("wait_ms", r.wait_ms.is_some()),
            ("exit_buffer", r.exit_buffer.is_some()),
            ("tls", r.tls.is_some()),
            ("sslpeer", r.sslpeer.is_some()),
        ];
        if let Some((key, _)) = present.iter().find(|(k, p)| *p && !r.kind.allows(k)) {
            return Err(format!(
                "{MISPLACED}{key} (type {}; see docs/config.md)",
                r.kind.name()
            ));
        }
        let limits = ChannelLimits {
            batch_size: r.batch_size.unwrap_or(DEFAULT_BATCH_SIZE),
            max_msg_length: r.max_msg_length.unwrap_or(DEFAULT_CHANNEL_MAX_MSG_LENGTH),
            heartbeat_ms: r.heartbeat_ms.unwrap_or(DEFAULT_HEARTBEAT_MS),
        };
        let kind = r.kind.name();
        let missing = |key: &str| format!("{MISSING}{key}{MISSING_OF_TYPE}{kind})");
        Ok(match r.kind {
            ChannelType::Receiver => ChannelDef::Receiver(ReceiverChannelDef {
                name: r.name,
                allowed_peers: r.allowed_peers.unwrap_or_default(),
                sending_q_mgr: r.sending_q_mgr.unwrap_or_default(),
                receive_exits: r.receive_exits.unwrap_or_default(),
                undelivered: r.undelivered.unwrap_or_default(),
                retry: r.retry.unwrap_or_default(),
                limits,
                sslpeer: r.sslpeer,
            }),
            ChannelType::Sender => ChannelDef::Sender(SenderChannelDef {
                name: r.name,
                xmit_queue: r.xmit_queue.ok_or_else(|| missing("xmit_queue"))?,
                connect: r.connect.ok_or_else(|| missing("connect"))?,
                reconnect: r.reconnect.unwrap_or_default(),
                limits,
                tls: r.tls,
                sslpeer: r.sslpeer,
            }),
            ChannelType::MqClient => ChannelDef::MqClient(MqClientChannelDef {
                name: r.name,
                host: r.host.ok_or_else(|| missing("host"))?,
                port: r.port.unwrap_or(DEFAULT_MQ_PORT),
                channel: r.channel.ok_or_else(|| missing("channel"))?,
                q_mgr_name: r.q_mgr_name.unwrap_or_default(),
                user: r.user.unwrap_or_default(),
                password: r.password,
                xmit_queue: r.xmit_queue.ok_or_else(|| missing("xmit_queue"))?,
                wait_ms: r.wait_ms.unwrap_or(DEFAULT_GET_WAIT_MS),
                receive_exits: r.receive_exits.unwrap_or_default(),
                exit_buffer: r.exit_buffer.unwrap_or_default(),
                undelivered: r.undelivered.unwrap_or_default(),
                retry: r.retry.unwrap_or_default(),
                reconnect: r.reconnect.unwrap_or_default(),
                limits,
                tls: r.tls,
                sslpeer: r.sslpeer,
            }),
        })
    }
}

/// True when `message` is one of [`RawChannelDef`]'s own errors (a key of
/// another type, an entry without a key its type requires), which serde
/// places at the `channels:` list only.
pub fn is_entry_error(message: &str) -> bool {
    message.contains(MISPLACED) || (message.contains(MISSING) && message.contains(MISSING_OF_TYPE))
}

/// Where the [`is_entry_error`] error of `text` is: (path for the message,
/// path whose position to report) of the first channel entry's key that its
/// type does not have, or of an entry without a key its type requires
/// (sender: `xmit_queue`, `connect`; mq-client: `host`, `channel`,
/// `xmit_queue`), placed at its `type:` value.
pub fn first_entry_error(text: &str) -> Option<(String, String)> {
    let doc: serde_yaml::Value = serde_yaml::from_str(text).ok()?;
    let channels = doc.get("channels")?.as_sequence()?;
    for (i, entry) in channels.iter().enumerate() {
        let kind: ChannelType = match entry.get("type").cloned() {
            Some(t) => serde_yaml::from_value(t).ok()?,
            None => continue,
        };
        let map = entry.as_mapping()?;
        for key in map.keys().filter_map(|k| k.as_str()) {
            if !kind.allows(key) {
                let path = format!("channels[{i}].{key}");
                return Some((path.clone(), path));
            }
        }
        if kind.required().iter().any(|k| entry.get(k).is_none()) {
            return Some((format!("channels[{i}]"), format!("channels[{i}].type")));
        }
    }
    None
}

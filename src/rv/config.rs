//! The `rv:` section of the YAML configuration: the limits of the subject
//! bus (docs/config.md `rv`, docs/rendezvous.md "Subject bus"). Absent =
//! these defaults; the bus is always there.

use serde::Deserialize;

/// The subject bus's settings.
#[derive(Clone, Debug, Deserialize, PartialEq, Eq)]
#[serde(default, deny_unknown_fields)]
pub struct RvConfig {
    /// Largest message the bus takes, in bytes of mqgate's binary form of
    /// its envelope (docs/rendezvous.md "Binary form"), 1 to 104857600.
    /// Default 4194304 (4 MiB, as the queue manager's `max_msg_length`).
    pub max_message_bytes: usize,
    /// Messages a listener's queue holds before the oldest is discarded for
    /// it (and the listener told with a `CLIENT.SLOWCONSUMER` advisory),
    /// 1 to 1048576. Default 1024.
    pub listener_queue: usize,
    /// Take publishes to subjects with wildcard elements (legal in
    /// Rendezvous on an ordinary transport, discouraged: "Wildcard
    /// Sending"). Default false: refused with TIBRV_INVALID_SUBJECT.
    pub wildcard_publish: bool,
    /// The gateway as a routing daemon (docs/rendezvous.md "Routing
    /// between gateways"); absent: none.
    pub routing: Option<super::route::config::RoutingConfig>,
    /// Rules between subjects and MQ queues (docs/rendezvous.md "Bridge to
    /// MQ queues"). Default none.
    pub bridges: super::bridge::BridgesConfig,
    /// The bridge to a nats-server (docs/rendezvous.md "Bridge to NATS").
    /// Default none.
    pub nats: Option<super::bridge::NatsConfig>,
}

/// Default [`RvConfig::max_message_bytes`].
pub const DEFAULT_MAX_MESSAGE_BYTES: usize = 4 * 1024 * 1024;
/// Largest [`RvConfig::max_message_bytes`]: 100 MiB, as the queue
/// manager's `max_msg_length`.
pub const LIMIT_MAX_MESSAGE_BYTES: usize = 100 * 1024 * 1024;
/// Default [`RvConfig::listener_queue`].
pub const DEFAULT_LISTENER_QUEUE: usize = 1024;
/// Largest [`RvConfig::listener_queue`].
pub const LIMIT_LISTENER_QUEUE: usize = 1 << 20;

impl Default for RvConfig {
    fn default() -> Self {
        RvConfig {
            max_message_bytes: DEFAULT_MAX_MESSAGE_BYTES,
            listener_queue: DEFAULT_LISTENER_QUEUE,
            wildcard_publish: false,
            routing: None,
            bridges: Default::default(),
            nats: None,
        }
    }
}

impl RvConfig {
    /// Every setting out of its range, as (key under `rv.`, message), for
    /// `check-config` to place.
    pub fn problems(&self) -> Vec<(&'static str, String)> {
        let mut out = Vec::new();
        if !(1..=LIMIT_MAX_MESSAGE_BYTES).contains(&self.max_message_bytes) {
            out.push((
                "max_message_bytes",
                format!("must be 1 to {LIMIT_MAX_MESSAGE_BYTES} bytes"),
            ));
        }
        if !(1..=LIMIT_LISTENER_QUEUE).contains(&self.listener_queue) {
            out.push((
                "listener_queue",
                format!("must be 1 to {LIMIT_LISTENER_QUEUE} messages"),
            ));
        }
        out
    }

    /// The problems of `bridges` and `nats`, as (path under `rv.`, message).
    pub fn bridge_problems(&self) -> Vec<(String, String)> {
        let mut out = self.bridges.problems();
        if let Some(n) = &self.nats {
            out.extend(n.problems());
        }
        out
    }
}

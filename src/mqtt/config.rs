//! The `mqtt:` section of the configuration (docs/config.md `mqtt`): the
//! MQTT listener for devices (docs/mqtt.md) and its limits.

use serde::Deserialize;
use std::net::SocketAddr;
use std::path::PathBuf;

/// MQTT's registered port for unencrypted connections (IANA "mqtt", 1883).
pub const DEFAULT_PORT: u16 = 1883;

/// The `mqtt:` section.
#[derive(Clone, Debug, Deserialize)]
#[serde(default, deny_unknown_fields)]
pub struct MqttConfig {
    /// Address and port the MQTT listener binds (`mqgate run --mqtt`).
    pub listen: SocketAddr,
    /// The largest packet the gateway takes or sends, in bytes, fixed
    /// header included (MQTT 5.0 3.2.2.3.6 Maximum Packet Size, told to
    /// 5.0 clients in CONNACK); a larger one from a device ends its
    /// connection with 0x95 Packet too large (4.13). 64 to 268435460.
    pub max_packet_size: u32,
    /// How many QoS 1 messages may wait for their PUBACK at once on one
    /// connection (the lower of this and the client's Receive Maximum,
    /// 5.0 3.1.2.11.3, 4.9). 1 to 65535.
    pub inflight: u16,
    /// Most Topic Filters one session may hold; a SUBSCRIBE past it gets
    /// 0x97 Quota exceeded for the filters over (5.0 3.9.3). At least 1.
    pub max_subscriptions: usize,
    /// Longest Keep Alive accepted, in seconds: a 5.0 client asking for
    /// more (or 0, none) is told this one in CONNACK's Server Keep Alive
    /// (5.0 3.2.2.3.14). 0 = any Keep Alive, none included.
    pub max_keep_alive_s: u16,
    /// How long a new connection may take to send its CONNECT, in ms
    /// (5.0 4.13; the connection is closed then). At least 1.
    pub connect_timeout_ms: u64,
    /// Longest time a session (its subscriptions) is kept after its
    /// connection ended, in seconds: a 5.0 client's Session Expiry
    /// Interval is capped to it (told in CONNACK, 5.0 3.2.2.3.2); an MQTT
    /// 3.1.1 persistent session (Clean Session 0) is kept this long.
    pub max_session_expiry_s: u32,
    /// A password file in mosquitto_passwd's format (`NAME:$7$...`, one
    /// per device; docs/mqtt.md "Authentication"): when set, a device
    /// must connect with User Name equal to its client identifier and the
    /// password recorded for it. `None`: no authentication.
    pub password_file: Option<PathBuf>,
    /// The queue every Will Message is put to; empty (the default): the
    /// queue its Will Topic names, as a PUBLISH topic does
    /// (docs/mqtt.md "Will messages").
    pub will_queue: String,
    /// TLS for devices (MQTT over TLS, IANA port 8883); default none
    /// (docs/security.md "TLS").
    pub tls: Option<crate::security::tls::TlsConfig>,
}

impl Default for MqttConfig {
    fn default() -> Self {
        MqttConfig {
            listen: SocketAddr::from(([127, 0, 0, 1], DEFAULT_PORT)),
            max_packet_size: 4 * 1024 * 1024 + 64 * 1024,
            inflight: 32,
            max_subscriptions: 16,
            max_keep_alive_s: 3600,
            connect_timeout_ms: 10_000,
            max_session_expiry_s: 7 * 24 * 3600,
            password_file: None,
            will_queue: String::new(),
            tls: None,
        }
    }
}

/// The smallest `max_packet_size`: a CONNACK or SUBACK always fits.
pub const MIN_PACKET_SIZE: u32 = 64;
/// The largest: a Remaining Length of 268,435,455 (5.0 1.5.5) plus a
/// 5-byte fixed header.
pub const MAX_PACKET_SIZE: u32 = 268_435_460;

impl MqttConfig {
    /// The problems of the section: (setting path, message).
    pub fn problems(&self) -> Vec<(String, String)> {
        let mut out = Vec::new();
        let mut bad = |path: &str, m: String| out.push((format!("mqtt.{path}"), m));
        if !(MIN_PACKET_SIZE..=MAX_PACKET_SIZE).contains(&self.max_packet_size) {
            bad(
                "max_packet_size",
                format!("must be {MIN_PACKET_SIZE} to {MAX_PACKET_SIZE} bytes"),
            );
        }
        if self.inflight == 0 {
            bad("inflight", "must be 1 to 65535".into());
        }
        if self.max_subscriptions == 0 {
            bad("max_subscriptions", "must be at least 1".into());
        }
        if self.connect_timeout_ms == 0 {
            bad("connect_timeout_ms", "must be at least 1 ms".into());
        }
        if !self.will_queue.is_empty()
            && let Err(e) = crate::qmgr::names::check_object_name(
                &self.will_queue,
                mqgate_codecs::mq::constants::len::Q_NAME,
            )
        {
            bad("will_queue", e);
        }
        out
    }
}

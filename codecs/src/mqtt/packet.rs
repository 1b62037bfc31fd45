//! The MQTT control packets as values (MQTT Version 5.0, chapter 3; MQTT
//! Version 3.1.1, chapter 3). One model serves both protocol levels: the
//! fields MQTT 3.1.1 lacks (properties, most reason codes) are empty there.

use super::props::Properties;
use super::reason::ReasonCode;
use bytes::Bytes;
use std::fmt;

/// The protocol level of a connection (CONNECT's Protocol Level byte; 5.0
/// 3.1.2.2, 3.1.1 3.1.2.2).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Level {
    /// MQTT 3.1.1: Protocol Level 4.
    V311,
    /// MQTT 5.0: Protocol Level 5.
    V5,
}

impl Level {
    /// The Protocol Level byte.
    pub fn byte(self) -> u8 {
        match self {
            Level::V311 => 4,
            Level::V5 => 5,
        }
    }
}

/// The packet type of a fixed header (5.0 2.1.2 Table 2-1), open: reserved
/// values keep their number.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct PacketType(pub u8);

impl PacketType {
    pub const CONNECT: PacketType = PacketType(1);
    pub const CONNACK: PacketType = PacketType(2);
    pub const PUBLISH: PacketType = PacketType(3);
    pub const PUBACK: PacketType = PacketType(4);
    pub const PUBREC: PacketType = PacketType(5);
    pub const PUBREL: PacketType = PacketType(6);
    pub const PUBCOMP: PacketType = PacketType(7);
    pub const SUBSCRIBE: PacketType = PacketType(8);
    pub const SUBACK: PacketType = PacketType(9);
    pub const UNSUBSCRIBE: PacketType = PacketType(10);
    pub const UNSUBACK: PacketType = PacketType(11);
    pub const PINGREQ: PacketType = PacketType(12);
    pub const PINGRESP: PacketType = PacketType(13);
    pub const DISCONNECT: PacketType = PacketType(14);
    pub const AUTH: PacketType = PacketType(15);

    /// The name the specification uses (`CONNECT`, ...), `reserved` for 0.
    pub fn name(self) -> &'static str {
        const NAMES: [&str; 16] = [
            "reserved",
            "CONNECT",
            "CONNACK",
            "PUBLISH",
            "PUBACK",
            "PUBREC",
            "PUBREL",
            "PUBCOMP",
            "SUBSCRIBE",
            "SUBACK",
            "UNSUBSCRIBE",
            "UNSUBACK",
            "PINGREQ",
            "PINGRESP",
            "DISCONNECT",
            "AUTH",
        ];
        NAMES.get(self.0 as usize).copied().unwrap_or("reserved")
    }
}

impl fmt::Display for PacketType {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name())
    }
}

/// Quality of service (5.0 4.3; 3.1.1 4.3).
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum QoS {
    AtMostOnce = 0,
    AtLeastOnce = 1,
    ExactlyOnce = 2,
}

impl QoS {
    /// QoS from its two bits; `None` for 3.
    pub fn from_bits(b: u8) -> Option<QoS> {
        match b {
            0 => Some(QoS::AtMostOnce),
            1 => Some(QoS::AtLeastOnce),
            2 => Some(QoS::ExactlyOnce),
            _ => None,
        }
    }
}

/// One control packet.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Packet {
    Connect(Connect),
    Connack(Connack),
    Publish(Publish),
    Puback(Ack),
    Pubrec(Ack),
    Pubrel(Ack),
    Pubcomp(Ack),
    Subscribe(Subscribe),
    Suback(Suback),
    Unsubscribe(Unsubscribe),
    Unsuback(Suback),
    Pingreq,
    Pingresp,
    Disconnect(Disconnect),
    Auth(Disconnect),
}

impl Packet {
    /// The packet's type.
    pub fn packet_type(&self) -> PacketType {
        match self {
            Packet::Connect(_) => PacketType::CONNECT,
            Packet::Connack(_) => PacketType::CONNACK,
            Packet::Publish(_) => PacketType::PUBLISH,
            Packet::Puback(_) => PacketType::PUBACK,
            Packet::Pubrec(_) => PacketType::PUBREC,
            Packet::Pubrel(_) => PacketType::PUBREL,
            Packet::Pubcomp(_) => PacketType::PUBCOMP,
            Packet::Subscribe(_) => PacketType::SUBSCRIBE,
            Packet::Suback(_) => PacketType::SUBACK,
            Packet::Unsubscribe(_) => PacketType::UNSUBSCRIBE,
            Packet::Unsuback(_) => PacketType::UNSUBACK,
            Packet::Pingreq => PacketType::PINGREQ,
            Packet::Pingresp => PacketType::PINGRESP,
            Packet::Disconnect(_) => PacketType::DISCONNECT,
            Packet::Auth(_) => PacketType::AUTH,
        }
    }
}

/// CONNECT (5.0 3.1; 3.1.1 3.1).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Connect {
    pub level: Level,
    /// Clean Start (5.0 3.1.2.4) / Clean Session (3.1.1 3.1.2.4).
    pub clean_start: bool,
    /// Keep Alive in seconds; 0 = off (3.1.2.10).
    pub keep_alive: u16,
    /// CONNECT properties (5.0 3.1.2.11); empty in 3.1.1.
    pub properties: Properties,
    /// Client Identifier (3.1.3.1).
    pub client_id: String,
    pub will: Option<Will>,
    pub user_name: Option<String>,
    pub password: Option<Bytes>,
}

/// The Will Message of a CONNECT (5.0 3.1.2.5, 3.1.3.2-3.1.3.4).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Will {
    pub qos: QoS,
    pub retain: bool,
    /// Will properties (5.0 3.1.3.2); empty in 3.1.1.
    pub properties: Properties,
    pub topic: String,
    pub payload: Bytes,
}

/// CONNACK (5.0 3.2; 3.1.1 3.2).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Connack {
    /// Session Present (3.2.2.1.1; 3.1.1 3.2.2.2).
    pub session_present: bool,
    /// Connect Reason Code (5.0 3.2.2.2); in 3.1.1 the return code
    /// (3.2.2.3), written as it is.
    pub code: ReasonCode,
    /// CONNACK properties (5.0 3.2.2.3); empty in 3.1.1.
    pub properties: Properties,
}

/// PUBLISH (5.0 3.3; 3.1.1 3.3).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Publish {
    pub dup: bool,
    pub qos: QoS,
    pub retain: bool,
    pub topic: String,
    /// Present exactly when QoS > 0 (3.3.2.2).
    pub packet_id: Option<u16>,
    /// PUBLISH properties (5.0 3.3.2.3); empty in 3.1.1.
    pub properties: Properties,
    /// The Application Message, byte for byte.
    pub payload: Bytes,
}

/// PUBACK, PUBREC, PUBREL, PUBCOMP (5.0 3.4-3.7; 3.1.1 3.4-3.7).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Ack {
    pub packet_id: u16,
    /// The Reason Code; `None` when the packet ends after the Packet
    /// Identifier (always in 3.1.1; in 5.0 it then means 0x00 Success,
    /// 3.4.2.1).
    pub reason: Option<ReasonCode>,
    /// Properties; `None` when the packet has no Property Length (5.0
    /// 3.4.2.2: may be omitted when there are none).
    pub properties: Option<Properties>,
}

impl Ack {
    /// An acknowledgement of `packet_id` with `reason`, in the shortest
    /// form (5.0 3.4.2.1: Success with no properties is just the id).
    pub fn new(packet_id: u16, reason: ReasonCode, properties: Properties) -> Ack {
        match (reason, properties.is_empty()) {
            (ReasonCode::SUCCESS, true) => Ack {
                packet_id,
                reason: None,
                properties: None,
            },
            (r, true) => Ack {
                packet_id,
                reason: Some(r),
                properties: None,
            },
            (r, false) => Ack {
                packet_id,
                reason: Some(r),
                properties: Some(properties),
            },
        }
    }

    /// The Reason Code, 0x00 Success when the packet omits it.
    pub fn reason_code(&self) -> ReasonCode {
        self.reason.unwrap_or(ReasonCode::SUCCESS)
    }
}

/// Subscription Options (5.0 3.8.3.1; in 3.1.1 the Requested QoS byte).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct SubscriptionOptions {
    pub qos: QoS,
    pub no_local: bool,
    pub retain_as_published: bool,
    /// 0, 1 or 2.
    pub retain_handling: u8,
}

impl SubscriptionOptions {
    /// Options asking for `qos` only.
    pub fn qos(qos: QoS) -> SubscriptionOptions {
        SubscriptionOptions {
            qos,
            no_local: false,
            retain_as_published: false,
            retain_handling: 0,
        }
    }

    /// The options byte.
    pub fn byte(self) -> u8 {
        self.qos as u8
            | (self.no_local as u8) << 2
            | (self.retain_as_published as u8) << 3
            | self.retain_handling << 4
    }
}

/// SUBSCRIBE (5.0 3.8; 3.1.1 3.8).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Subscribe {
    pub packet_id: u16,
    pub properties: Properties,
    pub filters: Vec<(String, SubscriptionOptions)>,
}

/// SUBACK and UNSUBACK (5.0 3.9, 3.11; 3.1.1 3.9, 3.11: UNSUBACK has no
/// payload there).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Suback {
    pub packet_id: u16,
    pub properties: Properties,
    /// One code per Topic Filter, in order (5.0 3.9.3, 3.11.3; 3.1.1 3.9.3).
    pub codes: Vec<ReasonCode>,
}

/// UNSUBSCRIBE (5.0 3.10; 3.1.1 3.10).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Unsubscribe {
    pub packet_id: u16,
    pub properties: Properties,
    pub filters: Vec<String>,
}

/// DISCONNECT and AUTH (5.0 3.14, 3.15; 3.1.1 DISCONNECT has no variable
/// header).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Disconnect {
    /// `None` when the Remaining Length is 0 (5.0 3.14.2.1: Normal
    /// disconnection / Success).
    pub reason: Option<ReasonCode>,
    /// `None` when the packet ends after the reason code (5.0 3.14.2.2).
    pub properties: Option<Properties>,
}

impl Disconnect {
    /// A DISCONNECT (or AUTH) with `reason` and `properties`, in the
    /// shortest form.
    pub fn new(reason: ReasonCode, properties: Properties) -> Disconnect {
        match (reason, properties.is_empty()) {
            (ReasonCode::SUCCESS, true) => Disconnect {
                reason: None,
                properties: None,
            },
            (r, true) => Disconnect {
                reason: Some(r),
                properties: None,
            },
            (r, false) => Disconnect {
                reason: Some(r),
                properties: Some(properties),
            },
        }
    }

    /// The reason code, 0x00 when the packet omits it.
    pub fn reason_code(&self) -> ReasonCode {
        self.reason.unwrap_or(ReasonCode::SUCCESS)
    }
}

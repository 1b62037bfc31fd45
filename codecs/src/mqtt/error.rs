//! The one error type of the MQTT codec: which packet, at which byte offset
//! (from the first byte of the fixed header), what was wrong, and the reason
//! code a server answers it with (MQTT Version 5.0, 4.13 "Handling errors":
//! 0x81 Malformed Packet for what cannot be parsed, 0x82 Protocol Error for
//! what parses but the protocol does not allow; MQTT Version 3.1.1, 4.8: the
//! network connection is closed).

use super::packet::PacketType;
use super::reason::ReasonCode;
use std::fmt;

/// A packet that could not be read.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct MqttError {
    /// The packet's type, from its fixed header.
    pub packet: PacketType,
    /// Byte offset of the fault from the start of the packet.
    pub offset: usize,
    /// What was wrong.
    pub kind: ErrorKind,
}

/// What was wrong with a packet. Each variant names the rule it breaks.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum ErrorKind {
    /// A field runs past the end of the packet (its Remaining Length).
    Truncated { needed: usize, available: usize },
    /// Bytes left after the last field the packet defines.
    TrailingBytes { count: usize },
    /// A Variable Byte Integer longer than 4 bytes (5.0 1.5.5; 3.1.1 2.2.3).
    VarintTooLong,
    /// A Variable Byte Integer not in the fewest bytes (5.0 1.5.5 [MQTT-1.5.5-1]).
    VarintNotMinimal,
    /// The packet is longer than the receiver's Maximum Packet Size (5.0
    /// 3.1.2.11.4, 3.2.2.3.6; 4.13): `size` bytes in all.
    TooLarge { size: usize, max: usize },
    /// Packet type 0, or 15 (AUTH) in MQTT 3.1.1 (5.0 2.1.2; 3.1.1 2.2.1).
    ReservedPacketType,
    /// The fixed header's flags are not those the packet type defines
    /// (5.0 2.1.3 [MQTT-2.1.3-1]; 3.1.1 2.2.2 [MQTT-2.2.2-2]).
    Flags { got: u8, expected: u8 },
    /// A UTF-8 Encoded String that is not well-formed UTF-8 (5.0 1.5.4
    /// [MQTT-1.5.4-1]; 3.1.1 1.5.3 [MQTT-1.5.3-1]).
    InvalidUtf8,
    /// A UTF-8 Encoded String holding U+0000 (5.0 1.5.4 [MQTT-1.5.4-2];
    /// 3.1.1 1.5.3 [MQTT-1.5.3-2]).
    NullCharacter,
    /// A CONNECT of a protocol this server does not speak: Protocol Name
    /// not `MQTT`, or Protocol Level other than 4 (3.1.1) or 5 (5.0)
    /// (5.0 3.1.2.1, 3.1.2.2; 3.1.1 3.1.2.1, 3.1.2.2 [MQTT-3.1.2-2]).
    UnsupportedProtocol { name: String, level: u8 },
    /// The first packet of a connection is not CONNECT, or a second
    /// CONNECT came (5.0 3.1 [MQTT-3.1.0-1], [MQTT-3.1.0-2]).
    NotConnect,
    /// CONNECT's reserved flag is set (5.0 3.1.2.3 [MQTT-3.1.2-3]).
    ConnectReservedFlag,
    /// Will QoS or Will Retain set without the Will Flag, or Will QoS 3
    /// (5.0 3.1.2.6 [MQTT-3.1.2-11], [MQTT-3.1.2-12], 3.1.2.7 [MQTT-3.1.2-13]).
    WillFlags { flags: u8 },
    /// MQTT 3.1.1: the Password Flag without the User Name Flag
    /// (3.1.1 3.1.2.9 [MQTT-3.1.2-22]).
    PasswordWithoutUserName,
    /// QoS 3 (5.0 3.3.1.2 [MQTT-3.3.1-4]; 3.8.3.1 [MQTT-3.8.3-4]).
    InvalidQos(u8),
    /// DUP set on a QoS 0 PUBLISH (5.0 3.3.1.1 [MQTT-3.3.1-2]).
    DupWithQos0,
    /// A Packet Identifier of 0 (5.0 2.2.1 [MQTT-2.2.1-3]).
    PacketIdZero,
    /// SUBSCRIBE or UNSUBSCRIBE without a Topic Filter (5.0 3.8.3
    /// [MQTT-3.8.3-2], 3.10.3 [MQTT-3.10.3-2]).
    NoTopicFilter,
    /// Subscription Options with reserved bits set (5.0 3.8.3.1
    /// [MQTT-3.8.3-5]; 3.1.1 3.8.3.1 [MQTT-3-8.3-4]).
    SubscriptionOptions { byte: u8 },
    /// Retain Handling 3 (5.0 3.8.3.1: "It is a Protocol Error to send a
    /// Retain Handling value of 3").
    RetainHandling3,
    /// An MQTT 3.1.1 SUBACK return code other than 0x00, 0x01, 0x02 and
    /// 0x80 (3.1.1 3.9.3 [MQTT-3.9.3-2]: the others are reserved).
    ReservedReturnCode { code: u8 },
    /// A Property Identifier MQTT 5.0 does not define (2.2.2.2).
    UnknownProperty { id: u8 },
    /// A property not allowed in this packet (2.2.2.2: "A Control Packet
    /// which contains an Identifier which is not valid for its packet type
    /// ... is a Malformed Packet").
    PropertyNotAllowed { id: u8 },
    /// A property given twice that may appear once (2.2.2.2; e.g. 3.1.2.11.2
    /// "It is a Protocol Error to include the Session Expiry Interval more
    /// than once").
    DuplicateProperty { id: u8 },
    /// A property value the specification does not allow (e.g. Receive
    /// Maximum 0, 3.1.2.11.3; a Payload Format Indicator other than 0 or 1,
    /// 3.3.2.3.2; a Subscription Identifier of 0, 3.3.2.3.8).
    PropertyValue { id: u8, value: u32 },
}

impl ErrorKind {
    /// The reason code MQTT 5.0 gives this fault (2.4 Table 2-6; 4.13).
    pub fn reason_code(&self) -> ReasonCode {
        use ErrorKind::*;
        match self {
            TooLarge { .. } => ReasonCode::PACKET_TOO_LARGE,
            UnsupportedProtocol { .. } => ReasonCode::UNSUPPORTED_PROTOCOL_VERSION,
            NotConnect
            | PasswordWithoutUserName
            | DupWithQos0
            | PacketIdZero
            | NoTopicFilter
            | RetainHandling3
            | DuplicateProperty { .. }
            | PropertyValue { .. } => ReasonCode::PROTOCOL_ERROR,
            Truncated { .. }
            | TrailingBytes { .. }
            | VarintTooLong
            | VarintNotMinimal
            | ReservedPacketType
            | Flags { .. }
            | InvalidUtf8
            | NullCharacter
            | ConnectReservedFlag
            | WillFlags { .. }
            | InvalidQos(_)
            | SubscriptionOptions { .. }
            | ReservedReturnCode { .. }
            | UnknownProperty { .. }
            | PropertyNotAllowed { .. } => ReasonCode::MALFORMED_PACKET,
        }
    }
}

impl MqttError {
    /// The reason code a server answers this error with ([`ErrorKind::reason_code`]).
    pub fn reason_code(&self) -> ReasonCode {
        self.kind.reason_code()
    }
}

impl fmt::Display for ErrorKind {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        use ErrorKind::*;
        match self {
            Truncated { needed, available } => {
                write!(f, "needs {needed} bytes, {available} left in the packet")
            }
            TrailingBytes { count } => write!(f, "{count} bytes after the last field"),
            VarintTooLong => f.write_str("Variable Byte Integer longer than 4 bytes"),
            VarintNotMinimal => f.write_str("Variable Byte Integer not in the fewest bytes"),
            TooLarge { size, max } => {
                write!(
                    f,
                    "packet of {size} bytes is above the maximum packet size {max}"
                )
            }
            ReservedPacketType => f.write_str("reserved packet type"),
            Flags { got, expected } => {
                write!(f, "fixed header flags 0x{got:X}, expected 0x{expected:X}")
            }
            InvalidUtf8 => f.write_str("string is not well-formed UTF-8"),
            NullCharacter => f.write_str("string holds U+0000"),
            UnsupportedProtocol { name, level } => write!(
                f,
                "protocol {name:?} level {level} is not MQTT 3.1.1 (4) or 5.0 (5)"
            ),
            NotConnect => f.write_str("CONNECT must be the first packet, and only the first"),
            ConnectReservedFlag => f.write_str("CONNECT reserved flag is set"),
            WillFlags { flags } => write!(
                f,
                "Will QoS/Retain flags invalid (connect flags 0x{flags:02X})"
            ),
            PasswordWithoutUserName => f.write_str("Password Flag set without the User Name Flag"),
            InvalidQos(q) => write!(f, "QoS {q} is not 0, 1 or 2"),
            DupWithQos0 => f.write_str("DUP set on a QoS 0 PUBLISH"),
            PacketIdZero => f.write_str("Packet Identifier 0"),
            NoTopicFilter => f.write_str("no Topic Filter"),
            SubscriptionOptions { byte } => {
                write!(f, "Subscription Options 0x{byte:02X} has reserved bits set")
            }
            RetainHandling3 => f.write_str("Retain Handling 3"),
            ReservedReturnCode { code } => write!(f, "reserved return code 0x{code:02X}"),
            UnknownProperty { id } => write!(f, "unknown Property Identifier 0x{id:02X}"),
            PropertyNotAllowed { id } => {
                write!(f, "property 0x{id:02X} is not allowed in this packet")
            }
            DuplicateProperty { id } => write!(f, "property 0x{id:02X} given more than once"),
            PropertyValue { id, value } => {
                write!(
                    f,
                    "property 0x{id:02X} has the value {value}, which is not allowed"
                )
            }
        }
    }
}

impl fmt::Display for MqttError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(
            f,
            "{} at offset {}: {} ({})",
            self.packet,
            self.offset,
            self.kind,
            self.reason_code()
        )
    }
}

impl std::error::Error for MqttError {}

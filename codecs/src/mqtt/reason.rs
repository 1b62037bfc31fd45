//! MQTT reason codes (MQTT Version 5.0, 2.4 "Reason Code", Table 2-6) and
//! the CONNACK return codes of MQTT Version 3.1.1 (3.2.2.3, Table 3.1).
//!
//! [`ReasonCode`] is open: a code this table does not name survives a round
//! trip and prints as its number.

use std::fmt;

/// An MQTT 5.0 reason code (one byte; below 0x80 success, from 0x80 failure).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct ReasonCode(pub u8);

macro_rules! reasons {
    ($($name:ident = $value:literal, $text:literal;)*) => {
        impl ReasonCode {
            $(
                #[doc = concat!("`", stringify!($value), "` ", $text, " (MQTT 5.0, Table 2-6).")]
                pub const $name: ReasonCode = ReasonCode($value);
            )*

            /// The name MQTT 5.0 Table 2-6 gives the code (the first one
            /// when several share a value: 0x00 is "Success"), or `None`.
            pub fn name(self) -> Option<&'static str> {
                match self.0 {
                    $($value => Some($text),)*
                    _ => None,
                }
            }
        }
    };
}

reasons! {
    SUCCESS = 0x00, "Success";
    GRANTED_QOS_1 = 0x01, "Granted QoS 1";
    GRANTED_QOS_2 = 0x02, "Granted QoS 2";
    DISCONNECT_WITH_WILL = 0x04, "Disconnect with Will Message";
    NO_MATCHING_SUBSCRIBERS = 0x10, "No matching subscribers";
    NO_SUBSCRIPTION_EXISTED = 0x11, "No subscription existed";
    CONTINUE_AUTHENTICATION = 0x18, "Continue authentication";
    RE_AUTHENTICATE = 0x19, "Re-authenticate";
    UNSPECIFIED_ERROR = 0x80, "Unspecified error";
    MALFORMED_PACKET = 0x81, "Malformed Packet";
    PROTOCOL_ERROR = 0x82, "Protocol Error";
    IMPLEMENTATION_SPECIFIC_ERROR = 0x83, "Implementation specific error";
    UNSUPPORTED_PROTOCOL_VERSION = 0x84, "Unsupported Protocol Version";
    CLIENT_IDENTIFIER_NOT_VALID = 0x85, "Client Identifier not valid";
    BAD_USER_NAME_OR_PASSWORD = 0x86, "Bad User Name or Password";
    NOT_AUTHORIZED = 0x87, "Not authorized";
    SERVER_UNAVAILABLE = 0x88, "Server unavailable";
    SERVER_BUSY = 0x89, "Server busy";
    BANNED = 0x8A, "Banned";
    SERVER_SHUTTING_DOWN = 0x8B, "Server shutting down";
    BAD_AUTHENTICATION_METHOD = 0x8C, "Bad authentication method";
    KEEP_ALIVE_TIMEOUT = 0x8D, "Keep Alive timeout";
    SESSION_TAKEN_OVER = 0x8E, "Session taken over";
    TOPIC_FILTER_INVALID = 0x8F, "Topic Filter invalid";
    TOPIC_NAME_INVALID = 0x90, "Topic Name invalid";
    PACKET_IDENTIFIER_IN_USE = 0x91, "Packet Identifier in use";
    PACKET_IDENTIFIER_NOT_FOUND = 0x92, "Packet Identifier not found";
    RECEIVE_MAXIMUM_EXCEEDED = 0x93, "Receive Maximum exceeded";
    TOPIC_ALIAS_INVALID = 0x94, "Topic Alias invalid";
    PACKET_TOO_LARGE = 0x95, "Packet too large";
    MESSAGE_RATE_TOO_HIGH = 0x96, "Message rate too high";
    QUOTA_EXCEEDED = 0x97, "Quota exceeded";
    ADMINISTRATIVE_ACTION = 0x98, "Administrative action";
    PAYLOAD_FORMAT_INVALID = 0x99, "Payload format invalid";
    RETAIN_NOT_SUPPORTED = 0x9A, "Retain not supported";
    QOS_NOT_SUPPORTED = 0x9B, "QoS not supported";
    USE_ANOTHER_SERVER = 0x9C, "Use another server";
    SERVER_MOVED = 0x9D, "Server moved";
    SHARED_SUBSCRIPTIONS_NOT_SUPPORTED = 0x9E, "Shared Subscriptions not supported";
    CONNECTION_RATE_EXCEEDED = 0x9F, "Connection rate exceeded";
    MAXIMUM_CONNECT_TIME = 0xA0, "Maximum connect time";
    SUBSCRIPTION_IDENTIFIERS_NOT_SUPPORTED = 0xA1, "Subscription Identifiers not supported";
    WILDCARD_SUBSCRIPTIONS_NOT_SUPPORTED = 0xA2, "Wildcard Subscriptions not supported";
}

impl ReasonCode {
    /// True for the failure codes (0x80 and above; MQTT 5.0, 2.4).
    pub fn is_failure(self) -> bool {
        self.0 >= 0x80
    }

    /// The CONNACK return code an MQTT 3.1.1 server answers where an MQTT
    /// 5.0 server answers `self` (MQTT 3.1.1, 3.2.2.3, Table 3.1: 0x01
    /// unacceptable protocol version, 0x02 identifier rejected, 0x03 server
    /// unavailable, 0x04 bad user name or password, 0x05 not authorized).
    /// The codes 3.1.1 has no word for become 0x03 when the server cannot
    /// serve now and 0x05 otherwise.
    pub fn connack_v3(self) -> u8 {
        match self {
            ReasonCode::SUCCESS => 0x00,
            ReasonCode::UNSUPPORTED_PROTOCOL_VERSION => 0x01,
            ReasonCode::CLIENT_IDENTIFIER_NOT_VALID => 0x02,
            ReasonCode::SERVER_UNAVAILABLE
            | ReasonCode::SERVER_BUSY
            | ReasonCode::SERVER_SHUTTING_DOWN
            | ReasonCode::CONNECTION_RATE_EXCEEDED => 0x03,
            ReasonCode::BAD_USER_NAME_OR_PASSWORD => 0x04,
            _ => 0x05,
        }
    }

    /// The SUBACK return code of MQTT 3.1.1 (3.9.3: 0x00, 0x01, 0x02
    /// granted, 0x80 Failure).
    pub fn suback_v3(self) -> u8 {
        if self.is_failure() { 0x80 } else { self.0 }
    }
}

impl fmt::Display for ReasonCode {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self.name() {
            Some(n) => write!(f, "0x{:02X} {n}", self.0),
            None => write!(f, "0x{:02X}", self.0),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn names_and_3_1_1_codes_follow_the_specifications() {
        // MQTT 5.0 Table 2-6.
        assert_eq!(
            ReasonCode(0x85).to_string(),
            "0x85 Client Identifier not valid"
        );
        assert_eq!(ReasonCode(0x95).to_string(), "0x95 Packet too large");
        assert_eq!(ReasonCode(0x7F).to_string(), "0x7F");
        assert!(ReasonCode::MALFORMED_PACKET.is_failure());
        assert!(!ReasonCode::GRANTED_QOS_1.is_failure());
        // MQTT 3.1.1 Table 3.1.
        assert_eq!(ReasonCode::UNSUPPORTED_PROTOCOL_VERSION.connack_v3(), 1);
        assert_eq!(ReasonCode::CLIENT_IDENTIFIER_NOT_VALID.connack_v3(), 2);
        assert_eq!(ReasonCode::SERVER_SHUTTING_DOWN.connack_v3(), 3);
        assert_eq!(ReasonCode::BAD_USER_NAME_OR_PASSWORD.connack_v3(), 4);
        assert_eq!(ReasonCode::NOT_AUTHORIZED.connack_v3(), 5);
        // MQTT 3.1.1, 3.9.3.
        assert_eq!(ReasonCode::IMPLEMENTATION_SPECIFIC_ERROR.suback_v3(), 0x80);
        assert_eq!(ReasonCode::GRANTED_QOS_1.suback_v3(), 0x01);
    }
}

//! MQTT control packets, MQTT Version 3.1.1 and MQTT Version 5.0 (OASIS
//! Standards), as the gateway's MQTT listener reads and writes them
//! (docs/mqtt.md): the fixed header and its Remaining Length, every
//! packet type with its variable header and payload, the MQTT 5.0
//! properties and reason codes, and topic rules.
//!
//! Bad input is a [`MqttError`] naming the packet, the byte offset and the
//! rule broken, with the reason code a server answers it with
//! ([`MqttError::reason_code`]); a packet's size is checked from its fixed
//! header before its body is buffered ([`frame_len`]). `encode(decode(b))`
//! gives back `b` for every packet accepted.

mod decode;
mod encode;
mod error;
mod packet;
mod props;
mod read;
mod reason;
#[cfg(test)]
mod tests;
pub mod topic;
mod write;

pub use decode::{decode, frame_len};
pub use encode::{encode, encoded_len};
pub use error::{ErrorKind, MqttError};
pub use packet::*;
pub use props::{Properties, Property};
pub use read::VARINT_MAX;
pub use reason::ReasonCode;

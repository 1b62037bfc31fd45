//! An IBM MQ client on mqgate's own client-protocol codec
//! (`mqgate_codecs::fap`): one socket, one conversation, the MQI verbs an
//! mq-client channel needs (docs/mq-client-protocol.md "Client side").
//!
//! [`wire`] moves whole segments (sizes checked before buffering, FIRST/LAST
//! segments joined, heartbeats answered); [`handshake`] negotiates
//! INITIAL_DATA, sends USERID_DATA and CONAUTH_INFO and MQCONNs; [`verbs`]
//! MQOPEN, MQGET, MQCMIT, MQBACK, MQCLOSE and MQDISC. Nothing here knows
//! about queues or stores: the channel (src/channel/mq_client.rs) hands what
//! it gets to the queue interface.

mod error;
pub mod handshake;
pub mod verbs;
pub mod wire;

pub use error::ClientError;
pub use handshake::{ConnectOptions, connect};
pub use verbs::{GetReply, Session};

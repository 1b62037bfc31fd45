//! The IBM MQ client protocol ("FAP", formats and protocols) as MQ clients
//! speak it to a queue manager's server-connection channel over TCP: the
//! transmission segment headers, the handshake structures and the MQI
//! verbs' parameters. Pure formats: bytes in, typed values out, and back
//! byte for byte.
//!
//! IBM publishes no specification of this protocol. Layouts follow the
//! Wireshark MQ dissector (packet-mq.c, packet-mq.h) and the IBM MQ
//! documentation of the MQI structures ("MQOD - Object descriptor", "MQMD -
//! Message descriptor", "MQPMO - Put-message options", "MQGMO - Get-message
//! options", "MQINQ - Inquire object attributes"), checked against a real
//! capture of IBM's JMS client; docs/mq-client-protocol.md describes what
//! each part carries and what is inferred.
//!
//! Every parser borrows its input and checks each length or count before
//! it reads or allocates; every error is a [`FapError`] naming the
//! structure, the field, its offset in the segment, the MQRC reason
//! ([`FapError::mqrc`]) and the STATUS_DATA code a queue manager closes the
//! conversation with ([`FapError::status_code`]).
//!
//! Reading a connection: [`segment_len`] on the first 8 bytes (with the
//! negotiated maximum), [`parse_segment`] once the segment is in,
//! [`Reassembler::push`] to join FIRST/LAST segments, [`decode_body`] on
//! the message. Writing: [`encode_body`] then [`write_segment`].

pub mod api;
pub mod body;
pub mod caut;
pub mod conn;
pub mod error;
pub mod gmo;
pub mod id;
pub mod inq;
pub mod message;
pub mod object;
pub mod od;
pub mod pmo;
mod read;
pub mod reassembly;
pub mod segment;
pub mod socket;
pub mod spi;
pub mod status;
pub mod tsh;
pub mod uid;

pub use api::{API_LEN, ApiHeader, HOBJ_UNUSABLE, parse_api, write_api};
pub use body::{Body, Verb, decode_body, encode_body};
pub use error::{FapError, FapErrorKind, FapStructure};
pub use reassembly::{Reassembled, Reassembler};
pub use segment::{Segment, parse_segment, segment_len, write_segment};
pub use status::{StatusCode, StatusData};
pub use tsh::{SegmentType, TSH_LEN, TSHM_LEN, Tsh, TshKind, parse_tsh, tcf, tcf2, write_tsh};

//! IBM MQ message structures and constants (IBM MQ documentation; each module names the
//! page it follows).
//!
//! Every structure is read with the integer encoding and character set of the
//! structure before it (MQ docs: MQRFH2, "chaining"), never of the platform.
//! One module per structure, each with `parse_*` (borrowing the input) and
//! `write_*` (appending to a `Vec<u8>`) such that `write(parse(b)) == b`.

pub mod chain;
pub mod constants;
pub mod destination;
pub mod dlh;
pub mod edit;
pub mod enc;
pub mod error;
pub mod field;
pub mod layout;
pub mod md;
pub mod mde;
pub mod opaque;
pub mod prefix;
pub mod properties;
pub mod puttime;
mod quick;
pub mod rc;
pub mod rfh;
pub mod rfh2;
pub mod strucid;
pub mod xqh;

pub use chain::{
    Chain, ChainError, ChainOptions, DecodedChain, DecodedHeader, Descriptor, Header, Link,
    parse_chain, write_chain,
};
pub use dlh::Mqdlh;
pub use enc::ByteOrder;
pub use error::{DecodeError, DecodeErrorKind};
pub use field::{CharField, Charset, FieldError};
pub use md::Mqmd;
pub use mde::Mqmde;
pub use opaque::OpaqueHeader;
pub use puttime::PutTimestamp;
pub use rc::Mqrc;
pub use rfh::Mqrfh;
pub use rfh2::Mqrfh2;
pub use strucid::Structure;
pub use xqh::Mqxqh;

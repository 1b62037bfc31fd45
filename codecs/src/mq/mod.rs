//! IBM MQ message structures (spec: mq-structures.md, mq-constants.md).
//!
//! Every structure is read with the integer encoding and character set of the
//! structure before it (MQ docs: MQRFH2, "chaining"), never of the platform.
//! One module per structure, each with `parse_*` (borrowing the input) and
//! `write_*` (appending to a `Vec<u8>`) such that `write(parse(b)) == b`.

pub mod chain;
pub mod constants;
pub mod edit;
pub mod enc;
pub mod error;
pub mod field;
pub mod md;
pub mod rc;
pub mod strucid;
pub mod xqh;

pub use enc::ByteOrder;
pub use error::{DecodeError, DecodeErrorKind};
pub use field::{CharField, Charset, FieldError};
pub use md::Mqmd;
pub use rc::Mqrc;
pub use strucid::Structure;
pub use xqh::Mqxqh;

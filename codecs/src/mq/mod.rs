//! IBM MQ message structures (spec: mq-structures.md, mq-constants.md).
//!
//! Every structure is read with the integer encoding and character set of the
//! structure before it (MQ docs: MQRFH2, "chaining"), never of the platform.

pub mod constants;
pub mod field;
pub mod md;
pub mod rc;

pub use field::{CharField, Charset};
pub use md::Mqmd;
pub use rc::Mqrc;

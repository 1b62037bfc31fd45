//! Software AG IDL and the pure half of the MQ RPC bridge (docs/rpc.md;
//! the EntireX WebSphere MQ RPC Server documentation).
//!
//! - [`parse`] / [`parse_with`]: IDL text → [`IdlFile`], or every fault with line
//!   and column ([`IdlErrors`]).
//! - [`call_kind`]: only IN → put, only OUT → get, both → request/reply.
//! - [`DynamicParams`]: MQ_QUEUE_NAME, MQ_REPLY_QUEUE, MQ_CORREL_ID,
//!   MQ_WAIT_INTERVAL, MQ_RFH_<name>, checked and read from a call's values.
//! - [`correl_id_from_hex`] / [`correl_id_to_hex`]: the A48 ↔ 24-byte CorrelId rules.
//! - [`TextLayout`]: parameters ↔ fixed-position text; CCSID conversion is the
//!   caller's.
//! - [`BridgeProgram::bind`]: all of the above for one program, checked once.
//!
//! The IDL text, format words and values written as text are read with nom
//! parsers; line and column come from the byte offset where a parser stands.
//!
//! Everything here is pure: no I/O, no global state, no panic on any input.

pub mod ast;
pub mod bridge;
pub mod call;
pub mod correl;
pub mod dynamic;
pub mod error;
pub mod format;
pub mod layout;
mod levels;
mod lexer;
pub mod marshal;
mod names;
mod param;
pub mod parser;
mod position;
mod text;
mod unmarshal;
pub mod value;

pub use ast::{
    ArraySpec, Dimension, Direction, Format, IdlFile, Length, Library, NumericSpec, ParamKind,
    Parameter, Position, Program, StructDef,
};
pub use bridge::{BindError, BridgeProgram};
pub use call::{CallKind, call_kind};
pub use correl::{CORREL_ID_LENGTH, CorrelIdError, correl_id_from_hex, correl_id_to_hex};
pub use dynamic::{
    CallInputs, DynamicKind, DynamicParam, DynamicParams, DynamicValueError, ReceivedMessage,
    WaitInterval,
};
pub use error::{IdlError, IdlErrorKind, IdlErrors};
pub use layout::{LayoutError, PayloadDirection, TextLayout};
pub use marshal::{MarshalError, MarshalErrorKind};
pub use parser::{ParseOptions, parse, parse_with};
pub use value::{Date, Decimal, Record, Timestamp, Value, ValueTextError};

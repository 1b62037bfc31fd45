//! mqgate's binary form of a Rendezvous message (an [`Envelope`]), version 1:
//! how mqgate keeps Rendezvous messages on its queues, in ledgers and on
//! links between gateways. It is mqgate's own layout, not TIBCO's wire
//! format (which is not public). Big-endian, every variable part
//! length-prefixed, one encoding per message, so that
//! `encode(decode(b)) == b` byte for byte (docs/rendezvous.md "Messages"):
//!
//! ```text
//! envelope: "RVM " | version u8 (1) | flags u8 | length u32 (whole envelope)
//!           | subject (u8 length 1-255, bytes)
//!           | [reply subject (u8 length 1-255, bytes)]          flag 0x01
//!           | [CM sender (u8 length 1-255, bytes) | sequence u64
//!              | time limit f64]                                 flag 0x02
//!           | fields up to the envelope's length
//! field:    type u8 | id u16 | name length u8 (0-127; 255 = NULL name)
//!           | name bytes | value length u32 | value
//! ```
//!
//! Values: integers and floats in their size (IEEE 754 bits as they are);
//! bool one byte 0 or 1; datetime i64 seconds then u32 nanoseconds;
//! ipport16 2 bytes, ipaddr32 4 bytes (network order); string, opaque, xml
//! and program-defined types their bytes (strings UTF-8 without NUL);
//! numeric arrays their elements back to back; msg the nested message's
//! fields; string and message arrays each element as u32 length then its
//! bytes or fields.
//!
//! Reading checks the envelope's length against [`Limits::max_bytes`] and
//! the input before anything else, so no allocation exceeds it; nesting and
//! field counts are checked as they are met. Errors name the byte offset,
//! the field path and what was wrong ([`RvMsgError`]).

mod read;
mod write;

use super::msg::{Envelope, Limits};
use super::msg_error::{FieldPath, PathSegment, RvMsgError, RvMsgErrorKind, TextProblem};

/// The first four bytes of an envelope.
pub const STRUC_ID: [u8; 4] = *b"RVM ";
/// The layout version this module reads and writes.
pub const VERSION: u8 = 1;
/// Flag: a reply subject follows the subject.
pub const FLAG_REPLY_SUBJECT: u8 = 0x01;
/// Flag: CM labels follow the subjects.
pub const FLAG_CM: u8 = 0x02;
/// Bytes before the subject: StrucId, version, flags, length.
pub const HEADER_LEN: usize = 10;
/// Name length byte of a field with a NULL name.
pub const NULL_NAME: u8 = 0xFF;
/// Longest subject, reply subject or CM sender name in bytes
/// (TIBRV_SUBJECT_MAX).
pub const TEXT_MAX: usize = 255;
/// Bytes of a field before its value, without the name: type, id, name
/// length, value length.
pub const FIELD_OVERHEAD: usize = 8;

impl Envelope {
    /// Reads an envelope that fills `input` exactly, within `limits`.
    ///
    /// Errors: [`RvMsgError`] with the offset in `input` of the item at
    /// fault (inside the input; 0 for an empty one) and its field path.
    pub fn decode(input: &[u8], limits: &Limits) -> Result<Envelope, RvMsgError> {
        read::decode_envelope(input, limits)
    }

    /// Writes the envelope, checking every rule of the model and `limits`.
    ///
    /// Errors: [`RvMsgError`] with the offset the item would have in the
    /// output: too deep or too many fields (found first), too large, then
    /// bad names, identifiers, texts or values in message order.
    pub fn encode(&self, limits: &Limits) -> Result<Vec<u8>, RvMsgError> {
        let size = write::measure_envelope(self, limits)?;
        let max = max_bytes(limits);
        if size > max {
            return Err(error(0, &[], RvMsgErrorKind::TooLarge { size, max }));
        }
        let mut w = write::Writer {
            out: Vec::with_capacity(size),
            path: Vec::new(),
        };
        w.envelope(self)?;
        Ok(w.out)
    }

    /// The encoded length in bytes, without checking anything (saturates
    /// at `usize::MAX`).
    pub fn encoded_len(&self) -> usize {
        let unlimited = Limits {
            max_bytes: usize::MAX,
            max_depth: usize::MAX,
            max_fields: usize::MAX,
        };
        write::measure_envelope(self, &unlimited).unwrap_or(usize::MAX)
    }
}

fn max_bytes(limits: &Limits) -> usize {
    limits.max_bytes.min(u32::MAX as usize)
}

fn error(offset: usize, path: &[PathSegment], kind: RvMsgErrorKind) -> RvMsgError {
    RvMsgError {
        offset,
        path: FieldPath(path.to_vec()),
        kind,
    }
}

/// The path segment of field `index` of a message.
fn segment(name: Option<&str>, index: usize) -> PathSegment {
    match name {
        Some(n) if !n.is_empty() => PathSegment::Name(n.to_string()),
        _ => PathSegment::Position(index),
    }
}

fn text_problem(bytes: &[u8]) -> Option<TextProblem> {
    match std::str::from_utf8(bytes) {
        Err(e) => Some(TextProblem::NotUtf8 {
            valid_up_to: e.valid_up_to(),
        }),
        Ok(_) => bytes
            .iter()
            .position(|&b| b == 0)
            .map(|at| TextProblem::Nul { at }),
    }
}

/// The offset a text problem points at, from the text's first byte.
fn problem_offset(start: usize, p: TextProblem) -> usize {
    match p {
        TextProblem::NotUtf8 { valid_up_to } => start + valid_up_to,
        TextProblem::Nul { at } => start + at,
        TextProblem::Empty | TextProblem::TooLong { .. } => start,
    }
}

/// A CM time limit mqgate carries: finite and not negative.
fn time_limit_ok(t: f64) -> bool {
    t.is_finite() && t >= 0.0
}

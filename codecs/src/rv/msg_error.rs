//! Errors of mqgate's binary form of a Rendezvous message: where (byte
//! offset, field path) and what, with the `tibrv_status` that applies
//! (docs/rendezvous.md "Messages").

use std::fmt;

use super::field::{FieldType, TypeCodeError};
use super::status::TibrvStatus;

/// One step of a [`FieldPath`].
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum PathSegment {
    /// A field by its name.
    Name(String),
    /// A field without a name (NULL or `""`), by its position in its
    /// message (from 0).
    Position(usize),
    /// An element of a string or message array (from 0).
    Index(usize),
}

/// Where a field sits in a message: `quote.bids[2].price` is field `price`
/// of element 2 of the message array `bids` in the nested message `quote`;
/// a field without a name shows as `#` and its position (`quote.#3`).
/// Empty for the envelope's own items (subject, CM labels).
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct FieldPath(pub Vec<PathSegment>);

impl FieldPath {
    /// True for the envelope itself (no field).
    pub fn is_empty(&self) -> bool {
        self.0.is_empty()
    }
}

impl fmt::Display for FieldPath {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        for (i, seg) in self.0.iter().enumerate() {
            match seg {
                PathSegment::Index(n) => write!(f, "[{n}]")?,
                PathSegment::Name(n) if i == 0 => f.write_str(n)?,
                PathSegment::Name(n) => write!(f, ".{n}")?,
                PathSegment::Position(n) if i == 0 => write!(f, "#{n}")?,
                PathSegment::Position(n) => write!(f, ".#{n}")?,
            }
        }
        Ok(())
    }
}

/// What is wrong with a piece of text (a name, a string, a subject).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum TextProblem {
    /// Empty where text is required.
    Empty,
    /// Longer than allowed, in bytes.
    TooLong {
        /// Its length in bytes.
        len: usize,
        /// The most allowed.
        max: usize,
    },
    /// Not UTF-8; valid up to this many bytes.
    NotUtf8 {
        /// Bytes of valid UTF-8 before the bad sequence.
        valid_up_to: usize,
    },
    /// Contains a NUL at this byte of the text (Rendezvous text is
    /// NUL-terminated).
    Nul {
        /// Byte index of the NUL in the text.
        at: usize,
    },
}

impl fmt::Display for TextProblem {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            TextProblem::Empty => f.write_str("is empty"),
            TextProblem::TooLong { len, max } => {
                write!(f, "is {len} bytes long, more than {max}")
            }
            TextProblem::NotUtf8 { valid_up_to } => {
                write!(f, "is not UTF-8 (valid up to byte {valid_up_to})")
            }
            TextProblem::Nul { at } => write!(f, "contains a NUL at byte {at}"),
        }
    }
}

/// The envelope's text items.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum EnvelopeItem {
    /// The send subject.
    Subject,
    /// The reply subject.
    ReplySubject,
    /// The CM sender's correspondent name.
    CmSender,
}

impl fmt::Display for EnvelopeItem {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(match self {
            EnvelopeItem::Subject => "subject",
            EnvelopeItem::ReplySubject => "reply subject",
            EnvelopeItem::CmSender => "CM sender name",
        })
    }
}

/// What was wrong.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum RvMsgErrorKind {
    /// An item needs more bytes than remain before the end of what encloses
    /// it (the input, the envelope's length, or the value it is part of).
    /// The offset is where the item starts.
    Truncated {
        /// Bytes the item needs from its offset.
        needed: usize,
        /// Bytes there are from its offset to the end of what encloses it.
        available: usize,
    },
    /// Bytes after the end the envelope's length gives.
    TrailingBytes {
        /// The envelope's length.
        length: usize,
        /// The input's length.
        input: usize,
    },
    /// The first four bytes are not `RVM `.
    BadStrucId([u8; 4]),
    /// A version this mqgate does not read.
    UnsupportedVersion(u8),
    /// Flag bits that are not defined.
    ReservedFlags(u8),
    /// The envelope is longer than the limit.
    TooLarge {
        /// Its length in bytes (saturating when writing).
        size: usize,
        /// The limit.
        max: usize,
    },
    /// Messages nested deeper than the limit.
    TooDeep {
        /// The limit (levels of messages, the top one included).
        max: usize,
    },
    /// More fields than the limit (nested fields included).
    TooManyFields {
        /// The limit.
        max: usize,
    },
    /// A type number that is not carried.
    BadType(TypeCodeError),
    /// A program-defined value whose type number is below 128.
    UserTypeOutOfRange(u8),
    /// A bad field name.
    BadName(TextProblem),
    /// A non-zero identifier with a NULL name (C Reference, "Field Names
    /// and Field Identifiers": illegal).
    IdWithoutName(u16),
    /// A non-zero identifier already used in the same message.
    DuplicateId(u16),
    /// A value length that does not fit its type (a 3-byte f64, a 5-byte
    /// i16 array).
    BadSize {
        /// The field type.
        field_type: FieldType,
        /// The value's length in bytes.
        size: usize,
    },
    /// A bad string or string-array element.
    BadString(TextProblem),
    /// A bool byte other than 0 and 1.
    BadBool(u8),
    /// Nanoseconds above 999,999,999.
    BadNanoseconds(u32),
    /// A bad envelope text item.
    BadEnvelopeText(EnvelopeItem, TextProblem),
    /// A CM time limit that is negative, infinite or NaN (its text).
    BadTimeLimit(String),
}

impl fmt::Display for RvMsgErrorKind {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        use RvMsgErrorKind::*;
        match self {
            Truncated { needed, available } => {
                write!(f, "truncated: needs {needed} bytes, {available} remain")
            }
            TrailingBytes { length, input } => write!(
                f,
                "{} bytes after the end of the {length}-byte envelope",
                input.saturating_sub(*length)
            ),
            BadStrucId(id) => write!(f, "StrucId {id:02X?} is not \"RVM \""),
            UnsupportedVersion(v) => write!(f, "version {v} is not 1"),
            ReservedFlags(b) => write!(f, "flags {b:#04x} set undefined bits"),
            TooLarge { size, max } => {
                write!(
                    f,
                    "message of {size} bytes is larger than the {max}-byte limit"
                )
            }
            TooDeep { max } => write!(f, "messages nested deeper than {max} levels"),
            TooManyFields { max } => write!(f, "more than {max} fields"),
            BadType(e) => write!(f, "{e}"),
            UserTypeOutOfRange(c) => {
                write!(
                    f,
                    "program-defined type {c} is below TIBRVMSG_USER_FIRST (128)"
                )
            }
            BadName(p) => write!(f, "field name {p}"),
            IdWithoutName(id) => write!(f, "field identifier {id} with a NULL name"),
            DuplicateId(id) => write!(f, "field identifier {id} used twice in one message"),
            BadSize { field_type, size } => {
                write!(f, "{size} bytes cannot be a {field_type} value")
            }
            BadString(p) => write!(f, "string {p}"),
            BadBool(b) => write!(f, "bool byte {b} is neither 0 nor 1"),
            BadNanoseconds(n) => write!(f, "datetime nanoseconds {n} above 999999999"),
            BadEnvelopeText(item, p) => write!(f, "{item} {p}"),
            BadTimeLimit(t) => write!(f, "CM time limit {t} is not a non-negative number"),
        }
    }
}

/// An error reading or writing mqgate's binary form of a Rendezvous
/// message: the byte offset of the item at fault (in the input when
/// reading, in the output when writing), the field it belongs to, and what
/// was wrong.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct RvMsgError {
    /// Byte offset of the item at fault.
    pub offset: usize,
    /// The field, or empty for the envelope's own items.
    pub path: FieldPath,
    /// What was wrong.
    pub kind: RvMsgErrorKind,
}

impl fmt::Display for RvMsgError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "Rendezvous message at offset {}", self.offset)?;
        if !self.path.is_empty() {
            write!(f, ", field {}", self.path)?;
        }
        write!(f, ": {} ({})", self.kind, self.status())
    }
}

impl std::error::Error for RvMsgError {}

impl RvMsgError {
    /// The `tibrv_status` for this error (docs/rendezvous.md "Messages").
    pub fn status(&self) -> TibrvStatus {
        use RvMsgErrorKind::*;
        match &self.kind {
            Truncated { .. } | TrailingBytes { .. } | BadStrucId(_) | ReservedFlags(_) => {
                TibrvStatus::CORRUPT_MSG
            }
            UnsupportedVersion(_) => TibrvStatus::VERSION_MISMATCH,
            TooLarge { .. } | BadSize { .. } => TibrvStatus::INVALID_SIZE,
            TooDeep { .. } | TooManyFields { .. } => TibrvStatus::INVALID_MSG,
            BadType(_) | UserTypeOutOfRange(_) => TibrvStatus::INVALID_TYPE,
            BadName(_) | IdWithoutName(_) => TibrvStatus::INVALID_NAME,
            DuplicateId(_) => TibrvStatus::ID_IN_USE,
            BadString(_) => TibrvStatus::CONVERSION_FAILED,
            BadBool(_) | BadNanoseconds(_) => TibrvStatus::INVALID_FIELD,
            BadEnvelopeText(EnvelopeItem::CmSender, _) => TibrvStatus::INVALID_NAME,
            BadEnvelopeText(_, _) => TibrvStatus::INVALID_SUBJECT,
            BadTimeLimit(_) => TibrvStatus::INVALID_ARG,
        }
    }
}

//! Errors of the dmpmqmsg/qload reader, with line and column.

use crate::mq::Mqrc;

/// What was wrong with a dmpmqmsg/qload file, and where (1-based line and column).
///
/// The MQRC follows the qload tool (the qload source, ibm-messaging/mq-q-qload
/// `qloadfnc.c`): a badly formed file is 2208 MQRC_FILE_SYSTEM_ERROR; a value
/// that cannot be an MQMD field (`A` line) is 2026 MQRC_MD_ERROR.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
#[error("dmpmqmsg line {line}, column {column}: {kind} ({})", self.mqrc())]
pub struct DumpError {
    /// 1-based line number.
    pub line: usize,
    /// 1-based column (byte position in the line).
    pub column: usize,
    /// What was wrong.
    pub kind: DumpErrorKind,
}

/// The kinds of [`DumpError`].
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
pub enum DumpErrorKind {
    /// The input has no non-blank line.
    #[error("empty file: a dmpmqmsg file starts with `* DMPMQMSG` or `* QLOAD`")]
    Empty,
    /// The first line is not `* QLOAD …` or `* DMPMQMSG …`.
    #[error("not a dmpmqmsg/qload file: the first line must start with `* DMPMQMSG` or `* QLOAD`")]
    NotADumpFile,
    /// amqsbcg browse output (`AMQSBCG0`), which qload also loads, is not read here.
    #[error("amqsbcg browse output is not a dmpmqmsg file (use --input hex with its hex lines)")]
    AmqsbcgNotSupported,
    /// A message must start with an `A` or `N` line.
    #[error("expected an `A` (MQMD field) or `N` (no MQMD) line, found a line starting {0:?}")]
    ExpectedAttribute(char),
    /// After the `A`/`N` lines of a message there must be at least one `X`, `S` or `T` line.
    #[error("expected a message data line (`X`, `S` or `T`), found {0}")]
    ExpectedData(String),
    /// An `A` line after `N`: a message either has no MQMD or has one.
    #[error("an `A` line cannot follow `N` (no MQMD) in the same message")]
    AttributeAfterNoMd,
    /// An `A` line shorter than `A CODE` (a three-letter code), or without the blanks at
    /// columns 2 and 6.
    #[error("malformed attribute line: the form is `A <CODE> <value>`")]
    BadAttributeLine,
    /// The three-letter code is not one of dmpmqmsg's MQMD codes.
    #[error("unknown MQMD field code {0:?}")]
    UnknownCode(String),
    /// An int field whose value is not a decimal 32-bit integer.
    #[error("{field} ({code}) value {value:?} is not a 32-bit decimal integer")]
    BadInteger {
        code: &'static str,
        field: &'static str,
        value: String,
    },
    /// An int field whose value is a number the MQMD cannot hold (Version
    /// other than 1 or 2, CodedCharSetId below -4).
    #[error("{field} ({code}) value {value} is out of range: allowed is {allowed}")]
    OutOfRange {
        code: &'static str,
        field: &'static str,
        value: i32,
        allowed: &'static str,
    },
    /// A byte field value longer than the field.
    #[error("{field} ({code}) has {len} bytes; the field holds {max}")]
    ValueTooLong {
        code: &'static str,
        field: &'static str,
        len: usize,
        max: usize,
    },
    /// A hex digit was expected (second digit of a pair, or any digit of an `A` hex value).
    #[error("badly formed hex: {0:?} is not a hex digit")]
    BadHex(char),
    /// A hex value with an odd number of digits.
    #[error("badly formed hex: odd number of hex digits")]
    OddHex,
    /// An `X` line with something other than blanks and an ASCII column after its hex.
    #[error("unexpected {0:?} after the hex data")]
    TextAfterHex(char),
    /// An `S` line whose quoted string has no closing `"`.
    #[error("string has no closing '\"'")]
    UnterminatedString,
    /// `~` followed by something other than `"` or `~` in an `S` string.
    #[error("unexpected escape sequence '~{0}' (only ~\" and ~~ are allowed)")]
    BadEscape(char),
    /// Non-blank text after the closing quote of an `S` string.
    #[error("unexpected {0:?} after the closing '\"'")]
    TextAfterString(char),
}

impl DumpError {
    /// The MQ reason code that applies (see the type's documentation).
    pub fn mqrc(&self) -> Mqrc {
        match self.kind {
            DumpErrorKind::BadInteger { .. }
            | DumpErrorKind::OutOfRange { .. }
            | DumpErrorKind::ValueTooLong { .. } => Mqrc::MD_ERROR,
            _ => Mqrc::FILE_SYSTEM_ERROR,
        }
    }
}

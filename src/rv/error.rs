//! Errors in a Rendezvous message given as JSON or as `NAME:TYPE=VALUE`
//! command-line fields: where (an envelope key, a field path, an argument)
//! and what (docs/rendezvous.md "Messages").

use std::fmt;

use mqgate_codecs::rv::field::FieldType;
use mqgate_codecs::rv::msg_error::FieldPath;
use mqgate_codecs::rv::status::TibrvStatus;

/// Where the input is wrong.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Where {
    /// The JSON document itself (it is no envelope object).
    Document,
    /// An envelope key: `subject`, `reply_subject`, `cm`, `cm.sender`,
    /// `cm.sequence`, `cm.time_limit_s`, `fields`.
    Envelope(&'static str),
    /// A field, by its path (`quote.bids[2].px`; `#3` for a field without a
    /// name).
    Field(FieldPath),
    /// A command-line field argument as given.
    Argument(String),
}

impl fmt::Display for Where {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Where::Document => f.write_str("message"),
            Where::Envelope(key) => f.write_str(key),
            Where::Field(p) => write!(f, "field '{p}'"),
            Where::Argument(a) => write!(f, "'{a}'"),
        }
    }
}

/// What is wrong.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum RvInputErrorKind {
    /// A JSON object was expected.
    NotAnObject,
    /// A JSON array was expected.
    NotAnArray,
    /// A JSON string was expected.
    NotAString,
    /// A required key is missing.
    Missing(&'static str),
    /// A key that the JSON form does not have (a typo is an error, not
    /// ignored).
    UnknownKey(String),
    /// A type name that is not one of docs/rendezvous.md "Messages".
    UnknownType(String),
    /// A field identifier outside 0-65535.
    BadId(String),
    /// A value that is not of the field's type (or not in its range).
    BadValue {
        /// The type it should have.
        field_type: FieldType,
        /// The value as given (JSON text, or the string's text).
        value: String,
        /// Why, when more can be said (a datetime's bad month).
        detail: Option<String>,
    },
    /// A CM time limit that is not a non-negative number of seconds.
    BadTimeLimit(String),
    /// A command-line field that is not `NAME:TYPE=VALUE`.
    Syntax,
    /// A command-line value of a composite type that is not JSON.
    BadJson(String),
}

/// "an f64", "a string": the article TYPE names take when read aloud.
fn article(t: &FieldType) -> &'static str {
    match t.to_string().bytes().next() {
        Some(b'a' | b'e' | b'i' | b'o' | b'f' | b'x') => "an",
        _ => "a",
    }
}

impl fmt::Display for RvInputErrorKind {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        use RvInputErrorKind::*;
        match self {
            NotAnObject => f.write_str("is not a JSON object"),
            NotAnArray => f.write_str("is not a JSON array"),
            NotAString => f.write_str("is not a JSON string"),
            Missing(key) => write!(f, "'{key}' is missing"),
            UnknownKey(key) => write!(f, "unknown key '{key}'"),
            UnknownType(t) => write!(
                f,
                "unknown type '{t}' (types: {}, user128 to user255)",
                FieldType::defined()
                    .map(|t| t.to_string())
                    .collect::<Vec<_>>()
                    .join(", ")
            ),
            BadId(v) => write!(f, "identifier {v} is not 0 to 65535"),
            BadValue {
                field_type,
                value,
                detail,
            } => {
                write!(f, "'{value}' is not {} {field_type}", article(field_type))?;
                match detail {
                    Some(d) => write!(f, " ({d})"),
                    None => Ok(()),
                }
            }
            BadTimeLimit(v) => write!(f, "'{v}' is not a time limit (seconds, 0 or more)"),
            Syntax => f.write_str("is not NAME:TYPE=VALUE"),
            BadJson(e) => write!(f, "value is not JSON: {e}"),
        }
    }
}

/// A Rendezvous message input error: `field 'price': 'abc' is not an f64`.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct RvInputError {
    /// Where.
    pub at: Where,
    /// What.
    pub kind: RvInputErrorKind,
}

impl fmt::Display for RvInputError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}: {}", self.at, self.kind)
    }
}

impl std::error::Error for RvInputError {}

impl RvInputError {
    /// The `tibrv_status` the HTTP API answers with (docs/rendezvous.md
    /// "Errors"): TIBRV_INVALID_TYPE (31) for a type name the JSON form
    /// does not have, TIBRV_CONVERSION_FAILED (38) for a value that is not
    /// of its field's type ("'abc' is not an f64"), TIBRV_INVALID_ARG (3)
    /// for the rest (shapes, keys, identifiers, time limits, syntax).
    pub fn status(&self) -> TibrvStatus {
        match self.kind {
            RvInputErrorKind::UnknownType(_) => TibrvStatus::INVALID_TYPE,
            RvInputErrorKind::BadValue { .. } | RvInputErrorKind::BadJson(_) => {
                TibrvStatus::CONVERSION_FAILED
            }
            _ => TibrvStatus::INVALID_ARG,
        }
    }

    /// The request key at fault: the envelope key (`reply_subject`,
    /// `cm.sequence`, ...), `fields` for a field (its path is in the
    /// message), `body` for the document itself, `field` for a
    /// command-line argument.
    pub fn key(&self) -> &'static str {
        match &self.at {
            Where::Document => "body",
            Where::Envelope(k) => k,
            Where::Field(_) => "fields",
            Where::Argument(_) => "field",
        }
    }
}

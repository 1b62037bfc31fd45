//! Rendezvous field types: the `TIBRVMSG_*` type numbers and mqgate's short
//! names for them.
//!
//! Names and meanings: TIBCO Rendezvous C Reference, "Wire Format Datatypes"
//! and "tibrvMsgField" (the type is a `tibrv_u8`). TIBCO's pages give the
//! constants by name only; the numbers are those of the public C header
//! `tibrv/msg.h`, as three independent public copies of it agree:
//! arienchen/pytibrv `pytibrv/types.py`, the Perl module Tibco::Rv
//! (`lib/Tibco/Rv/Msg.pm`, which predates the string and message arrays) and
//! raitechnology/sassrv `include/sassrv/rv7api.h`. Every number below was
//! checked against those copies; none is a guess.

use std::fmt;

/// TIBRVMSG_MSG (1): a nested message.
pub const TIBRVMSG_MSG: u8 = 1;
/// TIBRVMSG_DATETIME (3): a Rendezvous datetime (seconds and nanoseconds).
pub const TIBRVMSG_DATETIME: u8 = 3;
/// TIBRVMSG_OPAQUE (7): an opaque byte sequence.
pub const TIBRVMSG_OPAQUE: u8 = 7;
/// TIBRVMSG_STRING (8): a NUL-terminated character string.
pub const TIBRVMSG_STRING: u8 = 8;
/// TIBRVMSG_BOOL (9): TIBRV_FALSE or TIBRV_TRUE.
pub const TIBRVMSG_BOOL: u8 = 9;
/// TIBRVMSG_I8 (14): 8-bit integer.
pub const TIBRVMSG_I8: u8 = 14;
/// TIBRVMSG_U8 (15): 8-bit unsigned integer.
pub const TIBRVMSG_U8: u8 = 15;
/// TIBRVMSG_I16 (16): 16-bit integer.
pub const TIBRVMSG_I16: u8 = 16;
/// TIBRVMSG_U16 (17): 16-bit unsigned integer.
pub const TIBRVMSG_U16: u8 = 17;
/// TIBRVMSG_I32 (18): 32-bit integer.
pub const TIBRVMSG_I32: u8 = 18;
/// TIBRVMSG_U32 (19): 32-bit unsigned integer.
pub const TIBRVMSG_U32: u8 = 19;
/// TIBRVMSG_I64 (20): 64-bit integer.
pub const TIBRVMSG_I64: u8 = 20;
/// TIBRVMSG_U64 (21): 64-bit unsigned integer.
pub const TIBRVMSG_U64: u8 = 21;
/// TIBRVMSG_NONE (22): "no type"; never the type of a field in a message.
pub const TIBRVMSG_NONE: u8 = 22;
/// TIBRVMSG_F32 (24): 32-bit floating point.
pub const TIBRVMSG_F32: u8 = 24;
/// TIBRVMSG_F64 (25): 64-bit floating point.
pub const TIBRVMSG_F64: u8 = 25;
/// TIBRVMSG_IPPORT16 (26): 2-byte IP port, network byte order.
pub const TIBRVMSG_IPPORT16: u8 = 26;
/// TIBRVMSG_IPADDR32 (27): 4-byte IPv4 address, network byte order.
pub const TIBRVMSG_IPADDR32: u8 = 27;
/// TIBRVMSG_ENCRYPTED (32): obsolete since Rendezvous 7 (IBM "Binary Datum
/// item types": such fields produce an error when extracted).
pub const TIBRVMSG_ENCRYPTED: u8 = 32;
/// TIBRVMSG_I8ARRAY (34).
pub const TIBRVMSG_I8ARRAY: u8 = 34;
/// TIBRVMSG_U8ARRAY (35).
pub const TIBRVMSG_U8ARRAY: u8 = 35;
/// TIBRVMSG_I16ARRAY (36).
pub const TIBRVMSG_I16ARRAY: u8 = 36;
/// TIBRVMSG_U16ARRAY (37).
pub const TIBRVMSG_U16ARRAY: u8 = 37;
/// TIBRVMSG_I32ARRAY (38).
pub const TIBRVMSG_I32ARRAY: u8 = 38;
/// TIBRVMSG_U32ARRAY (39).
pub const TIBRVMSG_U32ARRAY: u8 = 39;
/// TIBRVMSG_I64ARRAY (40).
pub const TIBRVMSG_I64ARRAY: u8 = 40;
/// TIBRVMSG_U64ARRAY (41).
pub const TIBRVMSG_U64ARRAY: u8 = 41;
/// TIBRVMSG_F32ARRAY (44).
pub const TIBRVMSG_F32ARRAY: u8 = 44;
/// TIBRVMSG_F64ARRAY (45).
pub const TIBRVMSG_F64ARRAY: u8 = 45;
/// TIBRVMSG_XML (47): XML data, a byte sequence.
pub const TIBRVMSG_XML: u8 = 47;
/// TIBRVMSG_STRINGARRAY (48).
pub const TIBRVMSG_STRINGARRAY: u8 = 48;
/// TIBRVMSG_MSGARRAY (49).
pub const TIBRVMSG_MSGARRAY: u8 = 49;
/// TIBRVMSG_USER_FIRST (128): the first number a program may give its own
/// datatype (C Reference, "tibrvMsg_SetHandlers": "all other identifiers are
/// reserved").
pub const TIBRVMSG_USER_FIRST: u8 = 128;
/// TIBRVMSG_USER_LAST (255): the last program-defined type number.
pub const TIBRVMSG_USER_LAST: u8 = 255;
/// TIBRVMSG_FIELDNAME_MAX (127): the longest field name in bytes (Java
/// Reference, "TibrvMsg.addField()": "The longest possible field name is
/// 127 bytes"; `tibrv/msg.h` as copied by pytibrv).
pub const TIBRVMSG_FIELDNAME_MAX: usize = 127;

/// The type of a field's value. Every type of "Wire Format Datatypes" plus
/// program-defined types (128-255), whose data mqgate carries as bytes
/// without interpreting them.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum FieldType {
    /// TIBRVMSG_MSG
    Msg,
    /// TIBRVMSG_DATETIME
    DateTime,
    /// TIBRVMSG_OPAQUE
    Opaque,
    /// TIBRVMSG_STRING
    String,
    /// TIBRVMSG_BOOL
    Bool,
    /// TIBRVMSG_I8
    I8,
    /// TIBRVMSG_U8
    U8,
    /// TIBRVMSG_I16
    I16,
    /// TIBRVMSG_U16
    U16,
    /// TIBRVMSG_I32
    I32,
    /// TIBRVMSG_U32
    U32,
    /// TIBRVMSG_I64
    I64,
    /// TIBRVMSG_U64
    U64,
    /// TIBRVMSG_F32
    F32,
    /// TIBRVMSG_F64
    F64,
    /// TIBRVMSG_IPPORT16
    IpPort16,
    /// TIBRVMSG_IPADDR32
    IpAddr32,
    /// TIBRVMSG_I8ARRAY
    I8Array,
    /// TIBRVMSG_U8ARRAY
    U8Array,
    /// TIBRVMSG_I16ARRAY
    I16Array,
    /// TIBRVMSG_U16ARRAY
    U16Array,
    /// TIBRVMSG_I32ARRAY
    I32Array,
    /// TIBRVMSG_U32ARRAY
    U32Array,
    /// TIBRVMSG_I64ARRAY
    I64Array,
    /// TIBRVMSG_U64ARRAY
    U64Array,
    /// TIBRVMSG_F32ARRAY
    F32Array,
    /// TIBRVMSG_F64ARRAY
    F64Array,
    /// TIBRVMSG_XML
    Xml,
    /// TIBRVMSG_STRINGARRAY
    StringArray,
    /// TIBRVMSG_MSGARRAY
    MsgArray,
    /// A program-defined type, TIBRVMSG_USER_FIRST..=TIBRVMSG_USER_LAST.
    User(u8),
}

/// (type, number, C name, mqgate name) for every type TIBCO defines.
const TABLE: [(FieldType, u8, &str, &str); 30] = [
    (FieldType::Msg, TIBRVMSG_MSG, "TIBRVMSG_MSG", "msg"),
    (
        FieldType::DateTime,
        TIBRVMSG_DATETIME,
        "TIBRVMSG_DATETIME",
        "datetime",
    ),
    (
        FieldType::Opaque,
        TIBRVMSG_OPAQUE,
        "TIBRVMSG_OPAQUE",
        "opaque",
    ),
    (
        FieldType::String,
        TIBRVMSG_STRING,
        "TIBRVMSG_STRING",
        "string",
    ),
    (FieldType::Bool, TIBRVMSG_BOOL, "TIBRVMSG_BOOL", "bool"),
    (FieldType::I8, TIBRVMSG_I8, "TIBRVMSG_I8", "i8"),
    (FieldType::U8, TIBRVMSG_U8, "TIBRVMSG_U8", "u8"),
    (FieldType::I16, TIBRVMSG_I16, "TIBRVMSG_I16", "i16"),
    (FieldType::U16, TIBRVMSG_U16, "TIBRVMSG_U16", "u16"),
    (FieldType::I32, TIBRVMSG_I32, "TIBRVMSG_I32", "i32"),
    (FieldType::U32, TIBRVMSG_U32, "TIBRVMSG_U32", "u32"),
    (FieldType::I64, TIBRVMSG_I64, "TIBRVMSG_I64", "i64"),
    (FieldType::U64, TIBRVMSG_U64, "TIBRVMSG_U64", "u64"),
    (FieldType::F32, TIBRVMSG_F32, "TIBRVMSG_F32", "f32"),
    (FieldType::F64, TIBRVMSG_F64, "TIBRVMSG_F64", "f64"),
    (
        FieldType::IpPort16,
        TIBRVMSG_IPPORT16,
        "TIBRVMSG_IPPORT16",
        "ipport16",
    ),
    (
        FieldType::IpAddr32,
        TIBRVMSG_IPADDR32,
        "TIBRVMSG_IPADDR32",
        "ipaddr32",
    ),
    (
        FieldType::I8Array,
        TIBRVMSG_I8ARRAY,
        "TIBRVMSG_I8ARRAY",
        "i8array",
    ),
    (
        FieldType::U8Array,
        TIBRVMSG_U8ARRAY,
        "TIBRVMSG_U8ARRAY",
        "u8array",
    ),
    (
        FieldType::I16Array,
        TIBRVMSG_I16ARRAY,
        "TIBRVMSG_I16ARRAY",
        "i16array",
    ),
    (
        FieldType::U16Array,
        TIBRVMSG_U16ARRAY,
        "TIBRVMSG_U16ARRAY",
        "u16array",
    ),
    (
        FieldType::I32Array,
        TIBRVMSG_I32ARRAY,
        "TIBRVMSG_I32ARRAY",
        "i32array",
    ),
    (
        FieldType::U32Array,
        TIBRVMSG_U32ARRAY,
        "TIBRVMSG_U32ARRAY",
        "u32array",
    ),
    (
        FieldType::I64Array,
        TIBRVMSG_I64ARRAY,
        "TIBRVMSG_I64ARRAY",
        "i64array",
    ),
    (
        FieldType::U64Array,
        TIBRVMSG_U64ARRAY,
        "TIBRVMSG_U64ARRAY",
        "u64array",
    ),
    (
        FieldType::F32Array,
        TIBRVMSG_F32ARRAY,
        "TIBRVMSG_F32ARRAY",
        "f32array",
    ),
    (
        FieldType::F64Array,
        TIBRVMSG_F64ARRAY,
        "TIBRVMSG_F64ARRAY",
        "f64array",
    ),
    (FieldType::Xml, TIBRVMSG_XML, "TIBRVMSG_XML", "xml"),
    (
        FieldType::StringArray,
        TIBRVMSG_STRINGARRAY,
        "TIBRVMSG_STRINGARRAY",
        "stringarray",
    ),
    (
        FieldType::MsgArray,
        TIBRVMSG_MSGARRAY,
        "TIBRVMSG_MSGARRAY",
        "msgarray",
    ),
];

/// Why a type number is not a field type mqgate carries.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum TypeCodeError {
    /// TIBRVMSG_NONE (22) or TIBRVMSG_ENCRYPTED (32): defined by TIBCO but
    /// never carried (no value, or obsolete since Rendezvous 7).
    NotCarried(u8),
    /// A number TIBCO reserves and does not define (for example 2 or 50).
    Unknown(u8),
}

impl fmt::Display for TypeCodeError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            TypeCodeError::NotCarried(TIBRVMSG_NONE) => {
                f.write_str("type 22 (TIBRVMSG_NONE) is no field type")
            }
            TypeCodeError::NotCarried(c) => {
                write!(
                    f,
                    "type {c} (TIBRVMSG_ENCRYPTED) is obsolete and not carried"
                )
            }
            TypeCodeError::Unknown(c) => write!(f, "unknown field type {c}"),
        }
    }
}

impl FieldType {
    /// Every type TIBCO defines (without program-defined types), in number order.
    pub fn defined() -> impl Iterator<Item = FieldType> {
        TABLE.iter().map(|t| t.0)
    }

    /// The `TIBRVMSG_*` number (program-defined types: their own number).
    pub fn code(self) -> u8 {
        match self {
            FieldType::User(c) => c,
            t => TABLE
                .iter()
                .find(|e| e.0 == t)
                .map(|e| e.1)
                .unwrap_or_default(),
        }
    }

    /// The type of a number: the numbers TIBCO defines for field types and
    /// 128-255; NONE, ENCRYPTED and undefined numbers are errors.
    pub fn from_code(code: u8) -> Result<FieldType, TypeCodeError> {
        if code >= TIBRVMSG_USER_FIRST {
            return Ok(FieldType::User(code));
        }
        if let Some(e) = TABLE.iter().find(|e| e.1 == code) {
            return Ok(e.0);
        }
        if code == TIBRVMSG_NONE || code == TIBRVMSG_ENCRYPTED {
            Err(TypeCodeError::NotCarried(code))
        } else {
            Err(TypeCodeError::Unknown(code))
        }
    }

    /// The C constant's name, e.g. `TIBRVMSG_F64`; `None` for a
    /// program-defined type.
    pub fn c_name(self) -> Option<&'static str> {
        TABLE.iter().find(|e| e.0 == self).map(|e| e.2)
    }

    /// mqgate's name (docs/rendezvous.md "Messages"): the C name without
    /// `TIBRVMSG_`, lower case (`f64`, `msgarray`); `user130` for
    /// program-defined type 130. [`FieldType::from_name`] reads it back.
    pub fn name(self) -> String {
        match self {
            FieldType::User(c) => format!("user{c}"),
            t => TABLE
                .iter()
                .find(|e| e.0 == t)
                .map(|e| e.3.to_string())
                .unwrap_or_default(),
        }
    }

    /// The type named `name` (as [`FieldType::name`] writes it; exact, lower
    /// case); `None` for anything else.
    pub fn from_name(name: &str) -> Option<FieldType> {
        if let Some(e) = TABLE.iter().find(|e| e.3 == name) {
            return Some(e.0);
        }
        let digits = name.strip_prefix("user")?;
        // Exactly the digits `name()` writes: no sign, no leading zero.
        if digits.starts_with('0') || !digits.bytes().all(|b| b.is_ascii_digit()) {
            return None;
        }
        digits
            .parse::<u8>()
            .ok()
            .filter(|c| *c >= TIBRVMSG_USER_FIRST)
            .map(FieldType::User)
    }
}

impl fmt::Display for FieldType {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.name())
    }
}

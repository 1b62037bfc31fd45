//! The Rendezvous message data model: fields with a name, an identifier and
//! a typed value; messages as ordered lists of fields; and the envelope that
//! carries a message on mqgate's queues with its send subject, reply subject
//! and certified-delivery labels.
//!
//! Rules (TIBCO Rendezvous C Reference, "Field Names and Field Identifiers",
//! "tibrvMsgField"; Java Reference, "TibrvMsg.addField()"):
//!
//! - a field name is a string of at most 127 bytes
//!   ([`TIBRVMSG_FIELDNAME_MAX`](super::field::TIBRVMSG_FIELDNAME_MAX)); NULL
//!   (no name) and `""` are different names; several fields may share a name;
//! - a field identifier is a 16-bit unsigned integer, 0 meaning "none"; a
//!   non-zero identifier must be unique within its message (a nested message
//!   is a separate identifier space) and needs a non-NULL name;
//! - a string (TIBRVMSG_STRING) is NUL-terminated, so it holds no NUL.
//!
//! mqgate keeps names and strings as UTF-8 text (TIBCO's are in the
//! program's code page, ISO 8859-1 by default; text that is no UTF-8 belongs
//! in an opaque field). How these values are written is in
//! [`super::binary`] and docs/rendezvous.md "Messages".

use std::net::Ipv4Addr;

use super::datetime::DateTime;
use super::field::FieldType;

/// A field value, one variant per [`FieldType`].
#[derive(Clone, Debug, PartialEq)]
pub enum Value {
    /// TIBRVMSG_MSG: a nested message.
    Msg(Message),
    /// TIBRVMSG_DATETIME.
    DateTime(DateTime),
    /// TIBRVMSG_OPAQUE: bytes.
    Opaque(Vec<u8>),
    /// TIBRVMSG_STRING: text without NUL.
    String(String),
    /// TIBRVMSG_BOOL.
    Bool(bool),
    /// TIBRVMSG_I8.
    I8(i8),
    /// TIBRVMSG_U8.
    U8(u8),
    /// TIBRVMSG_I16.
    I16(i16),
    /// TIBRVMSG_U16.
    U16(u16),
    /// TIBRVMSG_I32.
    I32(i32),
    /// TIBRVMSG_U32.
    U32(u32),
    /// TIBRVMSG_I64.
    I64(i64),
    /// TIBRVMSG_U64.
    U64(u64),
    /// TIBRVMSG_F32 (every bit pattern is kept, NaN payloads included).
    F32(f32),
    /// TIBRVMSG_F64 (every bit pattern is kept, NaN payloads included).
    F64(f64),
    /// TIBRVMSG_IPPORT16: a port number.
    IpPort16(u16),
    /// TIBRVMSG_IPADDR32: an IPv4 address.
    IpAddr32(Ipv4Addr),
    /// TIBRVMSG_I8ARRAY.
    I8Array(Vec<i8>),
    /// TIBRVMSG_U8ARRAY.
    U8Array(Vec<u8>),
    /// TIBRVMSG_I16ARRAY.
    I16Array(Vec<i16>),
    /// TIBRVMSG_U16ARRAY.
    U16Array(Vec<u16>),
    /// TIBRVMSG_I32ARRAY.
    I32Array(Vec<i32>),
    /// TIBRVMSG_U32ARRAY.
    U32Array(Vec<u32>),
    /// TIBRVMSG_I64ARRAY.
    I64Array(Vec<i64>),
    /// TIBRVMSG_U64ARRAY.
    U64Array(Vec<u64>),
    /// TIBRVMSG_F32ARRAY.
    F32Array(Vec<f32>),
    /// TIBRVMSG_F64ARRAY.
    F64Array(Vec<f64>),
    /// TIBRVMSG_XML: XML data as bytes.
    Xml(Vec<u8>),
    /// TIBRVMSG_STRINGARRAY: strings without NUL.
    StringArray(Vec<String>),
    /// TIBRVMSG_MSGARRAY: nested messages.
    MsgArray(Vec<Message>),
    /// A program-defined type (128-255) and its data, carried as bytes.
    User {
        /// The type number, 128 to 255.
        type_code: u8,
        /// The field's data.
        data: Vec<u8>,
    },
}

impl Value {
    /// The field type of this value.
    pub fn field_type(&self) -> FieldType {
        match self {
            Value::Msg(_) => FieldType::Msg,
            Value::DateTime(_) => FieldType::DateTime,
            Value::Opaque(_) => FieldType::Opaque,
            Value::String(_) => FieldType::String,
            Value::Bool(_) => FieldType::Bool,
            Value::I8(_) => FieldType::I8,
            Value::U8(_) => FieldType::U8,
            Value::I16(_) => FieldType::I16,
            Value::U16(_) => FieldType::U16,
            Value::I32(_) => FieldType::I32,
            Value::U32(_) => FieldType::U32,
            Value::I64(_) => FieldType::I64,
            Value::U64(_) => FieldType::U64,
            Value::F32(_) => FieldType::F32,
            Value::F64(_) => FieldType::F64,
            Value::IpPort16(_) => FieldType::IpPort16,
            Value::IpAddr32(_) => FieldType::IpAddr32,
            Value::I8Array(_) => FieldType::I8Array,
            Value::U8Array(_) => FieldType::U8Array,
            Value::I16Array(_) => FieldType::I16Array,
            Value::U16Array(_) => FieldType::U16Array,
            Value::I32Array(_) => FieldType::I32Array,
            Value::U32Array(_) => FieldType::U32Array,
            Value::I64Array(_) => FieldType::I64Array,
            Value::U64Array(_) => FieldType::U64Array,
            Value::F32Array(_) => FieldType::F32Array,
            Value::F64Array(_) => FieldType::F64Array,
            Value::Xml(_) => FieldType::Xml,
            Value::StringArray(_) => FieldType::StringArray,
            Value::MsgArray(_) => FieldType::MsgArray,
            Value::User { type_code, .. } => FieldType::User(*type_code),
        }
    }
}

/// One field: name, identifier and value (`tibrvMsgField` without the
/// derived size and count).
#[derive(Clone, Debug, PartialEq)]
pub struct Field {
    /// The field name; `None` is NULL (no name), which TIBCO allows only
    /// with identifier 0. At most 127 bytes, no NUL.
    pub name: Option<String>,
    /// The field identifier; 0 = none.
    pub id: u16,
    /// The value (its variant gives the field type).
    pub value: Value,
}

impl Field {
    /// A field named `name` without identifier.
    pub fn new(name: impl Into<String>, value: Value) -> Field {
        Field {
            name: Some(name.into()),
            id: 0,
            value,
        }
    }

    /// The field type of the value.
    pub fn field_type(&self) -> FieldType {
        self.value.field_type()
    }
}

/// A Rendezvous message: fields in order (the order a program added them).
#[derive(Clone, Debug, Default, PartialEq)]
pub struct Message {
    /// The fields, in message order.
    pub fields: Vec<Field>,
}

impl Message {
    /// A message of these fields.
    pub fn new(fields: Vec<Field>) -> Message {
        Message { fields }
    }

    /// The first field named `name` (C Reference, "Field Search Algorithm":
    /// a name search returns the first match).
    pub fn get(&self, name: &str) -> Option<&Field> {
        self.fields.iter().find(|f| f.name.as_deref() == Some(name))
    }

    /// The field with identifier `id` (not 0).
    pub fn get_by_id(&self, id: u16) -> Option<&Field> {
        if id == 0 {
            return None;
        }
        self.fields.iter().find(|f| f.id == id)
    }
}

/// Certified-delivery labels of a labeled message (C Reference,
/// "tibrvcmTransport_Send", "tibrvMsg_GetCMSender",
/// "tibrvMsg_GetCMSequence", "tibrvMsg_SetCMTimeLimit").
#[derive(Clone, Debug, PartialEq)]
pub struct CmLabels {
    /// The correspondent name of the CM transport that sent the message
    /// (1-255 bytes, no NUL).
    pub sender: String,
    /// The sequence number the sending CM transport gave the message; 0 on
    /// receipt means "not certified" (the listener is not registered yet).
    pub sequence: u64,
    /// Time limit in seconds after which the sender no longer certifies
    /// delivery; 0 = no limit. Must be finite and not negative.
    pub time_limit: f64,
}

/// A message with its addressing, as mqgate carries it on queues, in
/// ledgers and between gateways.
#[derive(Clone, Debug, PartialEq)]
pub struct Envelope {
    /// The send subject (1-255 bytes, TIBRV_SUBJECT_MAX; its syntax is the
    /// subject validator's business, not this codec's).
    pub subject: String,
    /// The reply subject, if the sender gave one (1-255 bytes).
    pub reply_subject: Option<String>,
    /// The certified-delivery labels of a labeled message.
    pub cm: Option<CmLabels>,
    /// The message.
    pub message: Message,
}

/// Limits a message must keep, checked by [`super::binary`] when it reads
/// (before anything is allocated) and when it writes.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Limits {
    /// Largest encoded envelope in bytes (also capped at `u32::MAX`, the
    /// length field's range).
    pub max_bytes: usize,
    /// Deepest nesting of messages: 1 allows no nested message, 2 allows
    /// messages in the top-level message's fields, and so on. Reading and
    /// writing recurse once per level, so this also bounds stack use: keep
    /// it in the tens.
    pub max_depth: usize,
    /// Most fields in the whole message, nested ones included.
    pub max_fields: usize,
}

impl Limits {
    /// 4 MiB, the IBM MQ default MAXMSGL (mqgate's default `max_msg_length`,
    /// docs/config.md).
    pub const DEFAULT_MAX_BYTES: usize = 4_194_304;
    /// 16 levels, as for embedded FML32 buffers (`tux::fml32::MAX_NESTING`).
    pub const DEFAULT_MAX_DEPTH: usize = 16;
    /// 65,536 fields.
    pub const DEFAULT_MAX_FIELDS: usize = 65_536;
}

impl Default for Limits {
    fn default() -> Self {
        Limits {
            max_bytes: Limits::DEFAULT_MAX_BYTES,
            max_depth: Limits::DEFAULT_MAX_DEPTH,
            max_fields: Limits::DEFAULT_MAX_FIELDS,
        }
    }
}

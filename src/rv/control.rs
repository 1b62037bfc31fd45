//! Reading and building the control messages of mqgate's own Rendezvous
//! protocols — certified delivery (`_RVCM.`, src/rv/cm/protocol.rs) and
//! distributed queues (`_RVCMQ.`, src/rv/dq/protocol.rs): Rendezvous
//! messages with a string field `op` and typed fields after it
//! (docs/rendezvous.md "Protocol"). Reading never panics: a field that is
//! missing or of another type is a [`ProtocolError`] naming the `op` and
//! the field.

use std::fmt;

use mqgate_codecs::rv::msg::{Envelope, Field, Message, Value};

/// A protocol message that cannot be read: its `op` (when it has one), the
/// field at fault and what was wrong with it.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ProtocolError {
    /// The `op` value, when there was one.
    pub op: Option<String>,
    /// The field at fault.
    pub field: &'static str,
    /// What was wrong.
    pub problem: &'static str,
}

impl fmt::Display for ProtocolError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match &self.op {
            Some(op) => write!(f, "op {op:?}: field '{}' {}", self.field, self.problem),
            None => write!(f, "field '{}' {}", self.field, self.problem),
        }
    }
}

impl std::error::Error for ProtocolError {}

/// A string field's value.
pub(crate) fn string(v: &str) -> Value {
    Value::String(v.to_string())
}

/// A control message on `subject` with `fields` (no reply subject, no
/// certified labels).
pub(crate) fn envelope(subject: String, fields: Vec<Field>) -> Envelope {
    Envelope {
        subject,
        reply_subject: None,
        cm: None,
        message: Message::new(fields),
    }
}

/// The fields of one control message, each read with an error that names
/// the message's `op` and the field.
pub(crate) struct Reader<'m> {
    m: &'m Message,
    op: Option<String>,
}

impl<'m> Reader<'m> {
    /// A reader of `m`, whose string field `op` must be there.
    pub(crate) fn new(m: &'m Message) -> Result<Reader<'m>, ProtocolError> {
        let mut r = Reader { m, op: None };
        r.op = Some(r.string("op")?);
        Ok(r)
    }

    /// A reader of the nested message `m`, its errors naming this `op`.
    pub(crate) fn nested<'n>(&self, m: &'n Message) -> Reader<'n> {
        Reader {
            m,
            op: self.op.clone(),
        }
    }

    /// The message's `op`.
    pub(crate) fn op(&self) -> &str {
        self.op.as_deref().unwrap_or("")
    }

    /// An error at `field` of this message.
    pub(crate) fn error(&self, field: &'static str, problem: &'static str) -> ProtocolError {
        ProtocolError {
            op: self.op.clone(),
            field,
            problem,
        }
    }

    /// Field `name`, of any type.
    pub(crate) fn get(&self, name: &'static str) -> Result<&'m Value, ProtocolError> {
        self.m
            .get(name)
            .map(|f| &f.value)
            .ok_or_else(|| self.error(name, "is missing"))
    }

    /// Field `name` as `pick` reads it, refused as "is not a `what`".
    fn typed<T>(
        &self,
        name: &'static str,
        what: &'static str,
        pick: impl FnOnce(&'m Value) -> Option<T>,
    ) -> Result<T, ProtocolError> {
        pick(self.get(name)?).ok_or_else(|| self.error(name, what))
    }

    /// A string field (empty allowed).
    pub(crate) fn string(&self, name: &'static str) -> Result<String, ProtocolError> {
        self.typed(name, "is not a string", |v| match v {
            Value::String(s) => Some(s.clone()),
            _ => None,
        })
    }

    /// A string field that must not be empty (a name).
    pub(crate) fn name(&self, name: &'static str) -> Result<String, ProtocolError> {
        let s = self.string(name)?;
        if s.is_empty() {
            return Err(self.error(name, "is empty"));
        }
        Ok(s)
    }

    /// A u64 field.
    pub(crate) fn u64(&self, name: &'static str) -> Result<u64, ProtocolError> {
        self.typed(name, "is not a u64", |v| match v {
            Value::U64(n) => Some(*n),
            _ => None,
        })
    }

    /// A u32 field.
    pub(crate) fn u32(&self, name: &'static str) -> Result<u32, ProtocolError> {
        self.typed(name, "is not a u32", |v| match v {
            Value::U32(n) => Some(*n),
            _ => None,
        })
    }

    /// A u16 field.
    pub(crate) fn u16(&self, name: &'static str) -> Result<u16, ProtocolError> {
        self.typed(name, "is not a u16", |v| match v {
            Value::U16(n) => Some(*n),
            _ => None,
        })
    }

    /// A bool field.
    pub(crate) fn bool(&self, name: &'static str) -> Result<bool, ProtocolError> {
        self.typed(name, "is not a bool", |v| match v {
            Value::Bool(b) => Some(*b),
            _ => None,
        })
    }

    /// A stringarray field.
    pub(crate) fn strings(&self, name: &'static str) -> Result<Vec<String>, ProtocolError> {
        self.typed(name, "is not a stringarray", |v| match v {
            Value::StringArray(s) => Some(s.clone()),
            _ => None,
        })
    }

    /// A nested message field.
    pub(crate) fn msg(&self, name: &'static str) -> Result<&'m Message, ProtocolError> {
        self.typed(name, "is not a msg", |v| match v {
            Value::Msg(m) => Some(m),
            _ => None,
        })
    }

    /// A msgarray field.
    pub(crate) fn msgs(&self, name: &'static str) -> Result<&'m [Message], ProtocolError> {
        self.typed(name, "is not a msgarray", |v| match v {
            Value::MsgArray(m) => Some(m.as_slice()),
            _ => None,
        })
    }
}

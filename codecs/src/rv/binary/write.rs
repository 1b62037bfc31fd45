//! Writing mqgate's binary form of a Rendezvous message, in two passes:
//! the first measures and checks nesting and the field count, the second
//! writes and checks names, identifiers and values.

use std::collections::HashSet;

use super::super::datetime::MAX_NSEC;
use super::super::field::{FieldType, TIBRVMSG_FIELDNAME_MAX, TIBRVMSG_USER_FIRST};
use super::super::msg::{Envelope, Field, Limits, Message, Value};
use super::super::msg_error::{EnvelopeItem, PathSegment, RvMsgError, RvMsgErrorKind, TextProblem};
use super::{
    FIELD_OVERHEAD, FLAG_CM, FLAG_REPLY_SUBJECT, HEADER_LEN, NULL_NAME, STRUC_ID, TEXT_MAX,
    VERSION, error, problem_offset, segment, text_problem, time_limit_ok,
};

/// Counts for the first writing pass.
struct Measure<'a> {
    limits: &'a Limits,
    path: Vec<PathSegment>,
    fields: usize,
}

/// The encoded length, checking nesting and the field count (with the
/// offsets the items will have).
pub(super) fn measure_envelope(env: &Envelope, limits: &Limits) -> Result<usize, RvMsgError> {
    let mut off = HEADER_LEN
        .saturating_add(1)
        .saturating_add(env.subject.len());
    if let Some(r) = &env.reply_subject {
        off = off.saturating_add(1).saturating_add(r.len());
    }
    if let Some(cm) = &env.cm {
        off = off.saturating_add(17).saturating_add(cm.sender.len());
    }
    let mut m = Measure {
        limits,
        path: Vec::new(),
        fields: 0,
    };
    m.message(&env.message, off, 1)
}

impl Measure<'_> {
    /// The offset after a message written at `off`, at level `depth`.
    fn message(
        &mut self,
        msg: &Message,
        mut off: usize,
        depth: usize,
    ) -> Result<usize, RvMsgError> {
        for (index, f) in msg.fields.iter().enumerate() {
            self.path.push(segment(f.name.as_deref(), index));
            self.fields += 1;
            if self.fields > self.limits.max_fields {
                return Err(error(
                    off,
                    &self.path,
                    RvMsgErrorKind::TooManyFields {
                        max: self.limits.max_fields,
                    },
                ));
            }
            let name_len = f.name.as_ref().map_or(0, String::len);
            let value_at = off.saturating_add(FIELD_OVERHEAD).saturating_add(name_len);
            off = self.value(&f.value, value_at, depth, off)?;
            self.path.pop();
        }
        Ok(off)
    }

    /// The offset after a value written at `off`.
    fn value(
        &mut self,
        v: &Value,
        off: usize,
        depth: usize,
        field_start: usize,
    ) -> Result<usize, RvMsgError> {
        let deeper = |m: &Self| {
            if depth >= m.limits.max_depth {
                Err(error(
                    field_start,
                    &m.path,
                    RvMsgErrorKind::TooDeep {
                        max: m.limits.max_depth,
                    },
                ))
            } else {
                Ok(())
            }
        };
        let n = |count: usize, size: usize| off.saturating_add(count.saturating_mul(size));
        Ok(match v {
            Value::Msg(m) => {
                deeper(self)?;
                self.message(m, off, depth + 1)?
            }
            Value::MsgArray(msgs) => {
                deeper(self)?;
                let mut o = off;
                for (i, m) in msgs.iter().enumerate() {
                    self.path.push(PathSegment::Index(i));
                    o = self.message(m, o.saturating_add(4), depth + 1)?;
                    self.path.pop();
                }
                o
            }
            Value::StringArray(s) => s
                .iter()
                .fold(off, |o, s| o.saturating_add(4).saturating_add(s.len())),
            Value::String(s) => n(s.len(), 1),
            Value::Opaque(b) | Value::Xml(b) | Value::U8Array(b) => n(b.len(), 1),
            Value::User { data, .. } => n(data.len(), 1),
            Value::I8Array(a) => n(a.len(), 1),
            Value::I16Array(a) => n(a.len(), 2),
            Value::U16Array(a) => n(a.len(), 2),
            Value::I32Array(a) => n(a.len(), 4),
            Value::U32Array(a) => n(a.len(), 4),
            Value::F32Array(a) => n(a.len(), 4),
            Value::I64Array(a) => n(a.len(), 8),
            Value::U64Array(a) => n(a.len(), 8),
            Value::F64Array(a) => n(a.len(), 8),
            Value::DateTime(_) => n(1, 12),
            Value::Bool(_) | Value::I8(_) | Value::U8(_) => n(1, 1),
            Value::I16(_) | Value::U16(_) | Value::IpPort16(_) => n(1, 2),
            Value::I32(_) | Value::U32(_) | Value::F32(_) | Value::IpAddr32(_) => n(1, 4),
            Value::I64(_) | Value::U64(_) | Value::F64(_) => n(1, 8),
        })
    }
}

/// The second writing pass; the first made sure every length fits u32.
pub(super) struct Writer {
    pub(super) out: Vec<u8>,
    pub(super) path: Vec<PathSegment>,
}

/// A length known to fit u32 (the whole envelope does).
fn u32_len(n: usize) -> [u8; 4] {
    u32::try_from(n).unwrap_or(u32::MAX).to_be_bytes()
}

impl Writer {
    fn err(&self, offset: usize, kind: RvMsgErrorKind) -> RvMsgError {
        error(offset, &self.path, kind)
    }

    pub(super) fn envelope(&mut self, env: &Envelope) -> Result<(), RvMsgError> {
        let mut flags = 0;
        if env.reply_subject.is_some() {
            flags |= FLAG_REPLY_SUBJECT;
        }
        if env.cm.is_some() {
            flags |= FLAG_CM;
        }
        self.out.extend_from_slice(&STRUC_ID);
        self.out.extend_from_slice(&[VERSION, flags, 0, 0, 0, 0]);
        self.envelope_text(&env.subject, EnvelopeItem::Subject)?;
        if let Some(r) = &env.reply_subject {
            self.envelope_text(r, EnvelopeItem::ReplySubject)?;
        }
        if let Some(cm) = &env.cm {
            self.envelope_text(&cm.sender, EnvelopeItem::CmSender)?;
            self.out.extend_from_slice(&cm.sequence.to_be_bytes());
            if !time_limit_ok(cm.time_limit) {
                return Err(self.err(
                    self.out.len(),
                    RvMsgErrorKind::BadTimeLimit(format!("{}", cm.time_limit)),
                ));
            }
            self.out
                .extend_from_slice(&cm.time_limit.to_bits().to_be_bytes());
        }
        self.message(&env.message)?;
        let len = u32_len(self.out.len());
        self.out[6..HEADER_LEN].copy_from_slice(&len);
        Ok(())
    }

    fn envelope_text(&mut self, s: &str, what: EnvelopeItem) -> Result<(), RvMsgError> {
        let at = self.out.len();
        let problem = if s.is_empty() {
            Some(TextProblem::Empty)
        } else if s.len() > TEXT_MAX {
            Some(TextProblem::TooLong {
                len: s.len(),
                max: TEXT_MAX,
            })
        } else {
            text_problem(s.as_bytes())
        };
        if let Some(p) = problem {
            return Err(self.err(
                problem_offset(at + 1, p),
                RvMsgErrorKind::BadEnvelopeText(what, p),
            ));
        }
        self.out.push(s.len() as u8);
        self.out.extend_from_slice(s.as_bytes());
        Ok(())
    }

    fn message(&mut self, msg: &Message) -> Result<(), RvMsgError> {
        let mut ids = HashSet::new();
        for (index, f) in msg.fields.iter().enumerate() {
            self.path.push(segment(f.name.as_deref(), index));
            self.field(f, &mut ids)?;
            self.path.pop();
        }
        Ok(())
    }

    fn field(&mut self, f: &Field, ids: &mut HashSet<u16>) -> Result<(), RvMsgError> {
        let start = self.out.len();
        let field_type = f.value.field_type();
        if let FieldType::User(c) = field_type
            && c < TIBRVMSG_USER_FIRST
        {
            return Err(self.err(start, RvMsgErrorKind::UserTypeOutOfRange(c)));
        }
        match &f.name {
            Some(name) => {
                let problem = if name.len() > TIBRVMSG_FIELDNAME_MAX {
                    Some(TextProblem::TooLong {
                        len: name.len(),
                        max: TIBRVMSG_FIELDNAME_MAX,
                    })
                } else {
                    text_problem(name.as_bytes())
                };
                if let Some(p) = problem {
                    let at = if matches!(p, TextProblem::TooLong { .. }) {
                        start + 3
                    } else {
                        problem_offset(start + 4, p)
                    };
                    return Err(self.err(at, RvMsgErrorKind::BadName(p)));
                }
            }
            None if f.id != 0 => {
                return Err(self.err(start, RvMsgErrorKind::IdWithoutName(f.id)));
            }
            None => {}
        }
        if f.id != 0 && !ids.insert(f.id) {
            return Err(self.err(start, RvMsgErrorKind::DuplicateId(f.id)));
        }
        self.out.push(field_type.code());
        self.out.extend_from_slice(&f.id.to_be_bytes());
        match &f.name {
            Some(name) => {
                self.out.push(name.len() as u8);
                self.out.extend_from_slice(name.as_bytes());
            }
            None => self.out.push(NULL_NAME),
        }
        let len_at = self.out.len();
        self.out.extend_from_slice(&[0; 4]);
        self.value(&f.value)?;
        let len = u32_len(self.out.len() - len_at - 4);
        self.out[len_at..len_at + 4].copy_from_slice(&len);
        Ok(())
    }

    fn string(&mut self, s: &str) -> Result<(), RvMsgError> {
        let at = self.out.len();
        if let Some(p) = text_problem(s.as_bytes()) {
            return Err(self.err(problem_offset(at, p), RvMsgErrorKind::BadString(p)));
        }
        self.out.extend_from_slice(s.as_bytes());
        Ok(())
    }

    fn value(&mut self, v: &Value) -> Result<(), RvMsgError> {
        let out = &mut self.out;
        match v {
            Value::Msg(m) => self.message(m)?,
            Value::MsgArray(msgs) => {
                for (i, m) in msgs.iter().enumerate() {
                    self.path.push(PathSegment::Index(i));
                    let len_at = self.out.len();
                    self.out.extend_from_slice(&[0; 4]);
                    self.message(m)?;
                    let len = u32_len(self.out.len() - len_at - 4);
                    self.out[len_at..len_at + 4].copy_from_slice(&len);
                    self.path.pop();
                }
            }
            Value::StringArray(strings) => {
                for (i, s) in strings.iter().enumerate() {
                    self.path.push(PathSegment::Index(i));
                    self.out.extend_from_slice(&u32_len(s.len()));
                    self.string(s)?;
                    self.path.pop();
                }
            }
            Value::String(s) => self.string(s)?,
            Value::Opaque(b) | Value::Xml(b) | Value::U8Array(b) => out.extend_from_slice(b),
            Value::User { data, .. } => out.extend_from_slice(data),
            Value::DateTime(d) => {
                if d.nsec > MAX_NSEC {
                    let at = out.len() + 8;
                    return Err(self.err(at, RvMsgErrorKind::BadNanoseconds(d.nsec)));
                }
                out.extend_from_slice(&d.sec.to_be_bytes());
                out.extend_from_slice(&d.nsec.to_be_bytes());
            }
            Value::Bool(b) => out.push(u8::from(*b)),
            Value::I8(x) => out.extend_from_slice(&x.to_be_bytes()),
            Value::U8(x) => out.push(*x),
            Value::I16(x) => out.extend_from_slice(&x.to_be_bytes()),
            Value::U16(x) | Value::IpPort16(x) => out.extend_from_slice(&x.to_be_bytes()),
            Value::I32(x) => out.extend_from_slice(&x.to_be_bytes()),
            Value::U32(x) => out.extend_from_slice(&x.to_be_bytes()),
            Value::F32(x) => out.extend_from_slice(&x.to_bits().to_be_bytes()),
            Value::IpAddr32(a) => out.extend_from_slice(&a.octets()),
            Value::I64(x) => out.extend_from_slice(&x.to_be_bytes()),
            Value::U64(x) => out.extend_from_slice(&x.to_be_bytes()),
            Value::F64(x) => out.extend_from_slice(&x.to_bits().to_be_bytes()),
            Value::I8Array(a) => out.extend(a.iter().flat_map(|x| x.to_be_bytes())),
            Value::I16Array(a) => out.extend(a.iter().flat_map(|x| x.to_be_bytes())),
            Value::U16Array(a) => out.extend(a.iter().flat_map(|x| x.to_be_bytes())),
            Value::I32Array(a) => out.extend(a.iter().flat_map(|x| x.to_be_bytes())),
            Value::U32Array(a) => out.extend(a.iter().flat_map(|x| x.to_be_bytes())),
            Value::F32Array(a) => out.extend(a.iter().flat_map(|x| x.to_bits().to_be_bytes())),
            Value::I64Array(a) => out.extend(a.iter().flat_map(|x| x.to_be_bytes())),
            Value::U64Array(a) => out.extend(a.iter().flat_map(|x| x.to_be_bytes())),
            Value::F64Array(a) => out.extend(a.iter().flat_map(|x| x.to_bits().to_be_bytes())),
        }
        Ok(())
    }
}

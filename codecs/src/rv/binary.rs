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

use std::collections::HashSet;
use std::net::Ipv4Addr;

use nom::Parser;
use nom::bytes::complete::take;
use nom::number::complete::{be_i64, be_u8, be_u16, be_u32, be_u64};

use super::datetime::{DateTime, MAX_NSEC};
use super::error::{EnvelopeItem, FieldPath, PathSegment, RvMsgError, RvMsgErrorKind, TextProblem};
use super::field::{FieldType, TIBRVMSG_FIELDNAME_MAX, TIBRVMSG_USER_FIRST};
use super::msg::{CmLabels, Envelope, Field, Limits, Message, Value};

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

type NomErr<'a> = nom::error::Error<&'a [u8]>;
type NomResult<'a, T> = nom::IResult<&'a [u8], T, NomErr<'a>>;

impl Envelope {
    /// Reads an envelope that fills `input` exactly, within `limits`.
    ///
    /// Errors: [`RvMsgError`] with the offset in `input` of the item at
    /// fault (inside the input; 0 for an empty one) and its field path.
    pub fn decode(input: &[u8], limits: &Limits) -> Result<Envelope, RvMsgError> {
        decode_envelope(input, limits)
    }

    /// Writes the envelope, checking every rule of the model and `limits`.
    ///
    /// Errors: [`RvMsgError`] with the offset the item would have in the
    /// output: too deep or too many fields (found first), too large, then
    /// bad names, identifiers, texts or values in message order.
    pub fn encode(&self, limits: &Limits) -> Result<Vec<u8>, RvMsgError> {
        let size = measure_envelope(self, limits)?;
        let max = max_bytes(limits);
        if size > max {
            return Err(error(0, &[], RvMsgErrorKind::TooLarge { size, max }));
        }
        let mut w = Writer {
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
        measure_envelope(self, &unlimited).unwrap_or(usize::MAX)
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

// ---------------------------------------------------------------- reading

/// A region of the envelope being read: the next byte and the end.
struct Cursor {
    pos: usize,
    end: usize,
}

struct Reader<'a> {
    data: &'a [u8],
    limits: &'a Limits,
    path: Vec<PathSegment>,
    fields: usize,
}

fn decode_envelope(input: &[u8], limits: &Limits) -> Result<Envelope, RvMsgError> {
    let header: NomResult<'_, (&[u8], u8, u8, u32)> =
        (take(4usize), be_u8, be_u8, be_u32).parse(input);
    let Ok((_, (id, version, flags, length))) = header else {
        return Err(error(
            0,
            &[],
            RvMsgErrorKind::Truncated {
                needed: HEADER_LEN,
                available: input.len(),
            },
        ));
    };
    if id != STRUC_ID {
        let mut got = [0u8; 4];
        got.copy_from_slice(id);
        return Err(error(0, &[], RvMsgErrorKind::BadStrucId(got)));
    }
    if version != VERSION {
        return Err(error(4, &[], RvMsgErrorKind::UnsupportedVersion(version)));
    }
    if flags & !(FLAG_REPLY_SUBJECT | FLAG_CM) != 0 {
        return Err(error(5, &[], RvMsgErrorKind::ReservedFlags(flags)));
    }
    let length = length as usize;
    let max = max_bytes(limits);
    if length > max {
        return Err(error(
            0,
            &[],
            RvMsgErrorKind::TooLarge { size: length, max },
        ));
    }
    if length < HEADER_LEN || length > input.len() {
        return Err(error(
            0,
            &[],
            RvMsgErrorKind::Truncated {
                needed: length.max(HEADER_LEN),
                available: length.min(input.len()),
            },
        ));
    }
    if length < input.len() {
        return Err(error(
            length,
            &[],
            RvMsgErrorKind::TrailingBytes {
                length,
                input: input.len(),
            },
        ));
    }
    let mut r = Reader {
        data: input,
        limits,
        path: Vec::new(),
        fields: 0,
    };
    let mut cur = Cursor {
        pos: HEADER_LEN,
        end: length,
    };
    let subject = r.envelope_text(&mut cur, EnvelopeItem::Subject)?;
    let reply_subject = if flags & FLAG_REPLY_SUBJECT != 0 {
        Some(r.envelope_text(&mut cur, EnvelopeItem::ReplySubject)?)
    } else {
        None
    };
    let cm = if flags & FLAG_CM != 0 {
        let sender = r.envelope_text(&mut cur, EnvelopeItem::CmSender)?;
        let sequence = r.read(&mut cur, 0, 8, be_u64)?;
        let at = cur.pos;
        let time_limit = f64::from_bits(r.read(&mut cur, 0, 8, be_u64)?);
        if !time_limit_ok(time_limit) {
            return Err(error(
                at,
                &[],
                RvMsgErrorKind::BadTimeLimit(format!("{time_limit}")),
            ));
        }
        Some(CmLabels {
            sender,
            sequence,
            time_limit,
        })
    } else {
        None
    };
    let message = r.message(cur, 1)?;
    Ok(Envelope {
        subject,
        reply_subject,
        cm,
        message,
    })
}

fn time_limit_ok(t: f64) -> bool {
    t.is_finite() && t >= 0.0
}

impl<'a> Reader<'a> {
    fn err(&self, offset: usize, kind: RvMsgErrorKind) -> RvMsgError {
        error(offset, &self.path, kind)
    }

    /// Runs `p` on the cursor's region for the item starting at `item`,
    /// which needs `n` bytes from the cursor; too few is `Truncated` at
    /// `item`.
    fn read<T>(
        &self,
        cur: &mut Cursor,
        item: usize,
        n: usize,
        mut p: impl FnMut(&'a [u8]) -> NomResult<'a, T>,
    ) -> Result<T, RvMsgError> {
        let data: &'a [u8] = self.data;
        match p(&data[cur.pos..cur.end]) {
            Ok((rest, v)) => {
                cur.pos = cur.end - rest.len();
                Ok(v)
            }
            Err(_) => Err(self.err(
                item,
                RvMsgErrorKind::Truncated {
                    needed: (cur.pos - item).saturating_add(n),
                    available: cur.end - item,
                },
            )),
        }
    }

    fn bytes(&self, cur: &mut Cursor, item: usize, n: usize) -> Result<&'a [u8], RvMsgError> {
        self.read(cur, item, n, |i| take(n).parse(i))
    }

    /// An envelope text item. Its bytes missing is `Truncated` at offset 0:
    /// the envelope's length is too short for it.
    fn envelope_text(&self, cur: &mut Cursor, what: EnvelopeItem) -> Result<String, RvMsgError> {
        let at = cur.pos;
        let len = usize::from(self.read(cur, 0, 1, be_u8)?);
        if len == 0 {
            return Err(self.err(
                at,
                RvMsgErrorKind::BadEnvelopeText(what, TextProblem::Empty),
            ));
        }
        let bytes = self.bytes(cur, 0, len)?;
        text(bytes).map_err(|p| {
            self.err(
                problem_offset(at + 1, p),
                RvMsgErrorKind::BadEnvelopeText(what, p),
            )
        })
    }

    /// The fields of the region, a message at nesting level `depth`.
    fn message(&mut self, mut cur: Cursor, depth: usize) -> Result<Message, RvMsgError> {
        let mut fields = Vec::new();
        let mut ids = HashSet::new();
        while cur.pos < cur.end {
            let index = fields.len();
            self.path.push(PathSegment::Position(index));
            let field = self.field(&mut cur, depth, index, &mut ids)?;
            self.path.pop();
            fields.push(field);
        }
        Ok(Message { fields })
    }

    fn field(
        &mut self,
        cur: &mut Cursor,
        depth: usize,
        index: usize,
        ids: &mut HashSet<u16>,
    ) -> Result<Field, RvMsgError> {
        let start = cur.pos;
        let available = cur.end - start;
        let short =
            |r: &Self, needed: usize| r.err(start, RvMsgErrorKind::Truncated { needed, available });
        if available < FIELD_OVERHEAD {
            return Err(short(self, FIELD_OVERHEAD));
        }
        let type_code = self.read(cur, start, 1, be_u8)?;
        let id = self.read(cur, start, 2, be_u16)?;
        let name_len = self.read(cur, start, 1, be_u8)?;
        let name =
            if name_len == NULL_NAME {
                None
            } else {
                let len = usize::from(name_len);
                if len > TIBRVMSG_FIELDNAME_MAX {
                    return Err(self.err(
                        start + 3,
                        RvMsgErrorKind::BadName(TextProblem::TooLong {
                            len,
                            max: TIBRVMSG_FIELDNAME_MAX,
                        }),
                    ));
                }
                if available < FIELD_OVERHEAD + len {
                    return Err(short(self, FIELD_OVERHEAD + len));
                }
                let bytes = self.bytes(cur, start, len)?;
                Some(text(bytes).map_err(|p| {
                    self.err(problem_offset(start + 4, p), RvMsgErrorKind::BadName(p))
                })?)
            };
        if let Some(last) = self.path.last_mut() {
            *last = segment(name.as_deref(), index);
        }
        self.fields += 1;
        if self.fields > self.limits.max_fields {
            return Err(self.err(
                start,
                RvMsgErrorKind::TooManyFields {
                    max: self.limits.max_fields,
                },
            ));
        }
        let field_type = FieldType::from_code(type_code)
            .map_err(|e| self.err(start, RvMsgErrorKind::BadType(e)))?;
        if id != 0 {
            if name.is_none() {
                return Err(self.err(start, RvMsgErrorKind::IdWithoutName(id)));
            }
            if !ids.insert(id) {
                return Err(self.err(start, RvMsgErrorKind::DuplicateId(id)));
            }
        }
        let value_len = self.read(cur, start, 4, be_u32)? as usize;
        let value_start = cur.pos;
        let available = cur.end - value_start;
        if value_len > available {
            return Err(self.err(
                start,
                RvMsgErrorKind::Truncated {
                    needed: value_start - start + value_len,
                    available: cur.end - start,
                },
            ));
        }
        cur.pos += value_len;
        let region = Cursor {
            pos: value_start,
            end: value_start + value_len,
        };
        let value = self.value(field_type, region, depth, start)?;
        Ok(Field { name, id, value })
    }

    fn value(
        &mut self,
        field_type: FieldType,
        mut cur: Cursor,
        depth: usize,
        field_start: usize,
    ) -> Result<Value, RvMsgError> {
        let at = cur.pos;
        let data: &'a [u8] = self.data;
        let bytes = &data[cur.pos..cur.end];
        let size = bytes.len();
        let bad_size = |r: &Self| r.err(field_start, RvMsgErrorKind::BadSize { field_type, size });
        let fixed = |r: &Self, n: usize| if size == n { Ok(()) } else { Err(bad_size(r)) };
        let elements = |r: &Self, n: usize| {
            if size.is_multiple_of(n) {
                Ok(bytes.chunks_exact(n))
            } else {
                Err(bad_size(r))
            }
        };
        Ok(match field_type {
            FieldType::Msg => {
                self.nested(depth, field_start)?;
                Value::Msg(self.message(cur, depth + 1)?)
            }
            FieldType::MsgArray => {
                self.nested(depth, field_start)?;
                let mut msgs = Vec::new();
                while cur.pos < cur.end {
                    let elem = cur.pos;
                    self.path.push(PathSegment::Index(msgs.len()));
                    let len = self.read(&mut cur, elem, 4, be_u32)? as usize;
                    self.bytes(&mut cur, elem, len)?;
                    let body = Cursor {
                        pos: elem + 4,
                        end: cur.pos,
                    };
                    msgs.push(self.message(body, depth + 1)?);
                    self.path.pop();
                }
                Value::MsgArray(msgs)
            }
            FieldType::StringArray => {
                let mut strings = Vec::new();
                while cur.pos < cur.end {
                    let elem = cur.pos;
                    self.path.push(PathSegment::Index(strings.len()));
                    let len = self.read(&mut cur, elem, 4, be_u32)? as usize;
                    let s = self.bytes(&mut cur, elem, len)?;
                    strings.push(self.string(s, elem + 4)?);
                    self.path.pop();
                }
                Value::StringArray(strings)
            }
            FieldType::String => Value::String(self.string(bytes, at)?),
            FieldType::Opaque => Value::Opaque(bytes.to_vec()),
            FieldType::Xml => Value::Xml(bytes.to_vec()),
            FieldType::User(type_code) => Value::User {
                type_code,
                data: bytes.to_vec(),
            },
            FieldType::DateTime => {
                fixed(self, 12)?;
                let sec = self.read(&mut cur, at, 12, be_i64)?;
                let nsec = self.read(&mut cur, at, 12, be_u32)?;
                if nsec > MAX_NSEC {
                    return Err(self.err(at + 8, RvMsgErrorKind::BadNanoseconds(nsec)));
                }
                Value::DateTime(DateTime { sec, nsec })
            }
            FieldType::Bool => {
                fixed(self, 1)?;
                match bytes[0] {
                    0 => Value::Bool(false),
                    1 => Value::Bool(true),
                    b => return Err(self.err(at, RvMsgErrorKind::BadBool(b))),
                }
            }
            FieldType::I8 => {
                fixed(self, 1)?;
                Value::I8(bytes[0] as i8)
            }
            FieldType::U8 => {
                fixed(self, 1)?;
                Value::U8(bytes[0])
            }
            FieldType::I16 => {
                fixed(self, 2)?;
                Value::I16(self.read(&mut cur, at, 2, be_u16)? as i16)
            }
            FieldType::U16 => {
                fixed(self, 2)?;
                Value::U16(self.read(&mut cur, at, 2, be_u16)?)
            }
            FieldType::IpPort16 => {
                fixed(self, 2)?;
                Value::IpPort16(self.read(&mut cur, at, 2, be_u16)?)
            }
            FieldType::I32 => {
                fixed(self, 4)?;
                Value::I32(self.read(&mut cur, at, 4, be_u32)? as i32)
            }
            FieldType::U32 => {
                fixed(self, 4)?;
                Value::U32(self.read(&mut cur, at, 4, be_u32)?)
            }
            FieldType::F32 => {
                fixed(self, 4)?;
                Value::F32(f32::from_bits(self.read(&mut cur, at, 4, be_u32)?))
            }
            FieldType::IpAddr32 => {
                fixed(self, 4)?;
                Value::IpAddr32(Ipv4Addr::from(self.read(&mut cur, at, 4, be_u32)?))
            }
            FieldType::I64 => {
                fixed(self, 8)?;
                Value::I64(self.read(&mut cur, at, 8, be_i64)?)
            }
            FieldType::U64 => {
                fixed(self, 8)?;
                Value::U64(self.read(&mut cur, at, 8, be_u64)?)
            }
            FieldType::F64 => {
                fixed(self, 8)?;
                Value::F64(f64::from_bits(self.read(&mut cur, at, 8, be_u64)?))
            }
            FieldType::I8Array => Value::I8Array(bytes.iter().map(|&b| b as i8).collect()),
            FieldType::U8Array => Value::U8Array(bytes.to_vec()),
            FieldType::I16Array => Value::I16Array(
                elements(self, 2)?
                    .map(|c| i16::from_be_bytes([c[0], c[1]]))
                    .collect(),
            ),
            FieldType::U16Array => Value::U16Array(
                elements(self, 2)?
                    .map(|c| u16::from_be_bytes([c[0], c[1]]))
                    .collect(),
            ),
            FieldType::I32Array => Value::I32Array(
                elements(self, 4)?
                    .map(|c| i32::from_be_bytes([c[0], c[1], c[2], c[3]]))
                    .collect(),
            ),
            FieldType::U32Array => Value::U32Array(
                elements(self, 4)?
                    .map(|c| u32::from_be_bytes([c[0], c[1], c[2], c[3]]))
                    .collect(),
            ),
            FieldType::F32Array => Value::F32Array(
                elements(self, 4)?
                    .map(|c| f32::from_bits(u32::from_be_bytes([c[0], c[1], c[2], c[3]])))
                    .collect(),
            ),
            FieldType::I64Array => Value::I64Array(
                elements(self, 8)?
                    .map(|c| i64::from_be_bytes(eight(c)))
                    .collect(),
            ),
            FieldType::U64Array => Value::U64Array(
                elements(self, 8)?
                    .map(|c| u64::from_be_bytes(eight(c)))
                    .collect(),
            ),
            FieldType::F64Array => Value::F64Array(
                elements(self, 8)?
                    .map(|c| f64::from_bits(u64::from_be_bytes(eight(c))))
                    .collect(),
            ),
        })
    }

    /// A message field at nesting level `depth` holds level `depth + 1`.
    fn nested(&self, depth: usize, field_start: usize) -> Result<(), RvMsgError> {
        if depth >= self.limits.max_depth {
            return Err(self.err(
                field_start,
                RvMsgErrorKind::TooDeep {
                    max: self.limits.max_depth,
                },
            ));
        }
        Ok(())
    }

    fn string(&self, bytes: &[u8], at: usize) -> Result<String, RvMsgError> {
        text(bytes).map_err(|p| self.err(problem_offset(at, p), RvMsgErrorKind::BadString(p)))
    }
}

/// Eight bytes of a chunk of eight.
fn eight(c: &[u8]) -> [u8; 8] {
    let mut a = [0u8; 8];
    a.copy_from_slice(c);
    a
}

fn text(bytes: &[u8]) -> Result<String, TextProblem> {
    match text_problem(bytes) {
        Some(p) => Err(p),
        None => Ok(String::from_utf8_lossy(bytes).into_owned()),
    }
}

// ---------------------------------------------------------------- writing

/// Counts for the first writing pass.
struct Measure<'a> {
    limits: &'a Limits,
    path: Vec<PathSegment>,
    fields: usize,
}

/// The encoded length, checking nesting and the field count (with the
/// offsets the items will have).
fn measure_envelope(env: &Envelope, limits: &Limits) -> Result<usize, RvMsgError> {
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
struct Writer {
    out: Vec<u8>,
    path: Vec<PathSegment>,
}

/// A length known to fit u32 (the whole envelope does).
fn u32_len(n: usize) -> [u8; 4] {
    u32::try_from(n).unwrap_or(u32::MAX).to_be_bytes()
}

impl Writer {
    fn err(&self, offset: usize, kind: RvMsgErrorKind) -> RvMsgError {
        error(offset, &self.path, kind)
    }

    fn envelope(&mut self, env: &Envelope) -> Result<(), RvMsgError> {
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

//! Reading mqgate's binary form of a Rendezvous message (the layout is in
//! the parent module's documentation).

use std::collections::HashSet;
use std::net::Ipv4Addr;

use nom::Parser;
use nom::bytes::complete::take;
use nom::number::complete::{be_i64, be_u8, be_u16, be_u32, be_u64};

use super::super::datetime::{DateTime, MAX_NSEC};
use super::super::field::{FieldType, TIBRVMSG_FIELDNAME_MAX};
use super::super::msg::{CmLabels, Envelope, Field, Limits, Message, Value};
use super::super::msg_error::{EnvelopeItem, PathSegment, RvMsgError, RvMsgErrorKind, TextProblem};
use super::{
    FIELD_OVERHEAD, FLAG_CM, FLAG_REPLY_SUBJECT, HEADER_LEN, NULL_NAME, STRUC_ID, VERSION, error,
    max_bytes, problem_offset, segment, text_problem, time_limit_ok,
};

type NomErr<'a> = nom::error::Error<&'a [u8]>;
type NomResult<'a, T> = nom::IResult<&'a [u8], T, NomErr<'a>>;

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

pub(super) fn decode_envelope(input: &[u8], limits: &Limits) -> Result<Envelope, RvMsgError> {
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

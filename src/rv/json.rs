//! The JSON form of a Rendezvous message (docs/rendezvous.md "Messages"):
//!
//! ```json
//! {"subject": "QUOTE.IBM", "reply_subject": "_INBOX.1",
//!  "cm": {"sender": "PRICER", "sequence": "7", "time_limit_s": 60.0},
//!  "fields": [{"name": "price", "id": 1, "type": "f64", "value": 101.25}]}
//! ```
//!
//! Every value reads back exactly as it was written: 64-bit integers are
//! strings (beyond 2^53 a JSON number loses digits), non-finite floats and
//! NaN payloads are named strings, bytes are base64, datetimes RFC 3339 with
//! nine fraction digits. Reading also takes the looser forms the page lists
//! (an integer as a string, a float as text). Names, identifiers, NULs and
//! size limits are the binary form's rules: [`Envelope::encode`] checks them.

use mqgate_codecs::rv::datetime::DateTime;
use mqgate_codecs::rv::field::FieldType;
use mqgate_codecs::rv::msg::{CmLabels, Envelope, Field, Message, Value as RvValue};
use mqgate_codecs::rv::msg_error::{FieldPath, PathSegment};
use serde_json::{Map, Value, json};

use super::error::{RvInputError, RvInputErrorKind, Where};
use super::text;

// ---------------------------------------------------------------- writing

/// The JSON object of an envelope; `reply_subject` and `cm` only when the
/// envelope has them.
pub fn envelope_to_json(env: &Envelope) -> Value {
    let mut o = Map::new();
    o.insert("subject".into(), json!(env.subject));
    if let Some(r) = &env.reply_subject {
        o.insert("reply_subject".into(), json!(r));
    }
    if let Some(cm) = &env.cm {
        o.insert(
            "cm".into(),
            json!({
                "sender": cm.sender,
                "sequence": cm.sequence.to_string(),
                "time_limit_s": cm.time_limit,
            }),
        );
    }
    o.insert("fields".into(), message_to_json(&env.message));
    Value::Object(o)
}

/// The JSON array of a message's fields, each
/// `{"name", "id" (when not 0), "type", "value"}`; `name` is left out for a
/// NULL name.
pub fn message_to_json(msg: &Message) -> Value {
    Value::Array(
        msg.fields
            .iter()
            .map(|f| {
                let mut o = Map::new();
                if let Some(n) = &f.name {
                    o.insert("name".into(), json!(n));
                }
                if f.id != 0 {
                    o.insert("id".into(), json!(f.id));
                }
                o.insert("type".into(), json!(f.field_type().to_string()));
                o.insert("value".into(), value_to_json(&f.value));
                Value::Object(o)
            })
            .collect(),
    )
}

fn f64_json(x: f64) -> Value {
    match text::f64_special(x) {
        Some(s) => json!(s),
        None => json!(x),
    }
}

fn f32_json(x: f32) -> Value {
    match text::f32_special(x) {
        Some(s) => json!(s),
        None => json!(text::f32_as_f64(x)),
    }
}

fn datetime_json(d: &DateTime) -> Value {
    match d.to_rfc3339() {
        Some(s) => json!(s),
        None => json!({"sec": d.sec.to_string(), "nsec": d.nsec}),
    }
}

/// The JSON form of a value (docs/rendezvous.md "Messages", table of types).
pub fn value_to_json(v: &RvValue) -> Value {
    match v {
        RvValue::Msg(m) => message_to_json(m),
        RvValue::MsgArray(ms) => Value::Array(ms.iter().map(message_to_json).collect()),
        RvValue::DateTime(d) => datetime_json(d),
        RvValue::Opaque(b) | RvValue::Xml(b) => json!(text::to_base64(b)),
        RvValue::User { data, .. } => json!(text::to_base64(data)),
        RvValue::String(s) => json!(s),
        RvValue::StringArray(a) => json!(a),
        RvValue::Bool(b) => json!(b),
        RvValue::I8(x) => json!(x),
        RvValue::U8(x) => json!(x),
        RvValue::I16(x) => json!(x),
        RvValue::U16(x) | RvValue::IpPort16(x) => json!(x),
        RvValue::I32(x) => json!(x),
        RvValue::U32(x) => json!(x),
        RvValue::I64(x) => json!(x.to_string()),
        RvValue::U64(x) => json!(x.to_string()),
        RvValue::F32(x) => f32_json(*x),
        RvValue::F64(x) => f64_json(*x),
        RvValue::IpAddr32(a) => json!(a.to_string()),
        RvValue::I8Array(a) => json!(a),
        RvValue::U8Array(a) => json!(a),
        RvValue::I16Array(a) => json!(a),
        RvValue::U16Array(a) => json!(a),
        RvValue::I32Array(a) => json!(a),
        RvValue::U32Array(a) => json!(a),
        RvValue::I64Array(a) => Value::Array(a.iter().map(|x| json!(x.to_string())).collect()),
        RvValue::U64Array(a) => Value::Array(a.iter().map(|x| json!(x.to_string())).collect()),
        RvValue::F32Array(a) => Value::Array(a.iter().map(|x| f32_json(*x)).collect()),
        RvValue::F64Array(a) => Value::Array(a.iter().map(|x| f64_json(*x)).collect()),
    }
}

// ---------------------------------------------------------------- reading

fn fail(at: Where, kind: RvInputErrorKind) -> RvInputError {
    RvInputError { at, kind }
}

/// Keys of `o` that are not in `known`: the first one is an error.
fn no_other_keys(o: &Map<String, Value>, known: &[&str], at: &Where) -> Result<(), RvInputError> {
    match o.keys().find(|k| !known.contains(&k.as_str())) {
        Some(k) => Err(fail(at.clone(), RvInputErrorKind::UnknownKey(k.clone()))),
        None => Ok(()),
    }
}

/// An envelope from its JSON object. `fields` may be left out (no fields);
/// `reply_subject` and `cm` may be left out or `null`.
///
/// Errors name the key or field path and what was wrong; the model's rules
/// and the limits are [`Envelope::encode`]'s.
pub fn envelope_from_json(v: &Value) -> Result<Envelope, RvInputError> {
    let o = v
        .as_object()
        .ok_or_else(|| fail(Where::Document, RvInputErrorKind::NotAnObject))?;
    no_other_keys(
        o,
        &["subject", "reply_subject", "cm", "fields"],
        &Where::Document,
    )?;
    let text_key = |key: &'static str, v: &Value| {
        v.as_str()
            .map(str::to_string)
            .ok_or_else(|| fail(Where::Envelope(key), RvInputErrorKind::NotAString))
    };
    let subject = match o.get("subject") {
        Some(s) => text_key("subject", s)?,
        None => {
            return Err(fail(Where::Document, RvInputErrorKind::Missing("subject")));
        }
    };
    let reply_subject = match o.get("reply_subject") {
        None | Some(Value::Null) => None,
        Some(r) => Some(text_key("reply_subject", r)?),
    };
    let cm = match o.get("cm") {
        None | Some(Value::Null) => None,
        Some(c) => Some(cm_from_json(c)?),
    };
    let message = match o.get("fields") {
        None => Message::default(),
        Some(f) => message_from_json(f, &mut Vec::new()).map_err(|e| relocate_top(e, "fields"))?,
    };
    Ok(Envelope {
        subject,
        reply_subject,
        cm,
        message,
    })
}

/// A top-level "is not an array" belongs to the `fields` key.
fn relocate_top(e: RvInputError, key: &'static str) -> RvInputError {
    match &e.at {
        Where::Field(p) if p.is_empty() => fail(Where::Envelope(key), e.kind),
        _ => e,
    }
}

fn cm_from_json(v: &Value) -> Result<CmLabels, RvInputError> {
    let o = v
        .as_object()
        .ok_or_else(|| fail(Where::Envelope("cm"), RvInputErrorKind::NotAnObject))?;
    no_other_keys(
        o,
        &["sender", "sequence", "time_limit_s"],
        &Where::Envelope("cm"),
    )?;
    let sender = o
        .get("sender")
        .ok_or_else(|| fail(Where::Envelope("cm"), RvInputErrorKind::Missing("sender")))?
        .as_str()
        .ok_or_else(|| fail(Where::Envelope("cm.sender"), RvInputErrorKind::NotAString))?
        .to_string();
    let sequence = match o.get("sequence") {
        None => 0,
        Some(s) => integer::<u64>(s).ok_or_else(|| {
            fail(
                Where::Envelope("cm.sequence"),
                bad_value(FieldType::U64, s, None),
            )
        })?,
    };
    let time_limit = match o.get("time_limit_s") {
        None => 0.0,
        Some(t) => t
            .as_f64()
            .filter(|x| x.is_finite() && *x >= 0.0)
            .ok_or_else(|| {
                fail(
                    Where::Envelope("cm.time_limit_s"),
                    RvInputErrorKind::BadTimeLimit(shown(t)),
                )
            })?,
    };
    Ok(CmLabels {
        sender,
        sequence,
        time_limit,
    })
}

/// A JSON value as an error shows it: a string's text, else compact JSON;
/// at most 64 characters.
fn shown(v: &Value) -> String {
    let s = match v {
        Value::String(s) => s.clone(),
        v => v.to_string(),
    };
    if s.chars().count() > 64 {
        format!("{}...", s.chars().take(61).collect::<String>())
    } else {
        s
    }
}

fn bad_value(field_type: FieldType, v: &Value, detail: Option<String>) -> RvInputErrorKind {
    RvInputErrorKind::BadValue {
        field_type,
        value: shown(v),
        detail,
    }
}

/// An integer: a JSON integer, or a string of decimal digits.
fn integer<T>(v: &Value) -> Option<T>
where
    T: TryFrom<i64> + TryFrom<u64> + std::str::FromStr,
{
    match v {
        Value::Number(n) => {
            if let Some(u) = n.as_u64() {
                T::try_from(u).ok()
            } else {
                n.as_i64().and_then(|i| T::try_from(i).ok())
            }
        }
        Value::String(s) => text::int(s),
        _ => None,
    }
}

/// A message from its JSON array of field objects; `path` is where the
/// message sits (empty for the top level).
pub fn message_from_json(v: &Value, path: &mut Vec<PathSegment>) -> Result<Message, RvInputError> {
    let here = |path: &Vec<PathSegment>| Where::Field(FieldPath(path.clone()));
    let items = v
        .as_array()
        .ok_or_else(|| fail(here(path), RvInputErrorKind::NotAnArray))?;
    let mut fields = Vec::with_capacity(items.len());
    for (index, item) in items.iter().enumerate() {
        path.push(PathSegment::Position(index));
        let o = item
            .as_object()
            .ok_or_else(|| fail(here(path), RvInputErrorKind::NotAnObject))?;
        let name = match o.get("name") {
            None | Some(Value::Null) => None,
            Some(Value::String(s)) => Some(s.clone()),
            Some(_) => {
                return Err(fail(here(path), RvInputErrorKind::NotAString));
            }
        };
        if let (Some(n), Some(last)) = (&name, path.last_mut())
            && !n.is_empty()
        {
            *last = PathSegment::Name(n.clone());
        }
        no_other_keys(o, &["name", "id", "type", "value"], &here(path))?;
        let id = match o.get("id") {
            None => 0,
            Some(i) => integer::<u16>(i)
                .ok_or_else(|| fail(here(path), RvInputErrorKind::BadId(shown(i))))?,
        };
        let type_name = o
            .get("type")
            .ok_or_else(|| fail(here(path), RvInputErrorKind::Missing("type")))?
            .as_str()
            .ok_or_else(|| fail(here(path), RvInputErrorKind::NotAString))?;
        let field_type = FieldType::from_name(type_name).ok_or_else(|| {
            fail(
                here(path),
                RvInputErrorKind::UnknownType(type_name.to_string()),
            )
        })?;
        let value = o
            .get("value")
            .ok_or_else(|| fail(here(path), RvInputErrorKind::Missing("value")))?;
        let value = value_from_json(field_type, value, path)?;
        fields.push(Field { name, id, value });
        path.pop();
    }
    Ok(Message { fields })
}

/// The elements of a JSON array, each read by `one` (with its index in
/// the path for errors).
fn array<T>(
    v: &Value,
    path: &mut Vec<PathSegment>,
    mut one: impl FnMut(&Value, &mut Vec<PathSegment>) -> Result<T, RvInputError>,
) -> Result<Vec<T>, RvInputError> {
    let items = v.as_array().ok_or_else(|| {
        fail(
            Where::Field(FieldPath(path.clone())),
            RvInputErrorKind::NotAnArray,
        )
    })?;
    let mut out = Vec::with_capacity(items.len());
    for (i, item) in items.iter().enumerate() {
        path.push(PathSegment::Index(i));
        out.push(one(item, path)?);
        path.pop();
    }
    Ok(out)
}

/// One scalar of type `t` from JSON (also an array element).
fn scalar(t: FieldType, v: &Value, path: &[PathSegment]) -> Result<RvValue, RvInputError> {
    let bad = |detail: Option<String>| {
        fail(
            Where::Field(FieldPath(path.to_vec())),
            bad_value(t, v, detail),
        )
    };
    let string = || v.as_str().ok_or_else(|| bad(None));
    Ok(match t {
        FieldType::Bool => RvValue::Bool(v.as_bool().ok_or_else(|| bad(None))?),
        FieldType::I8 => RvValue::I8(integer(v).ok_or_else(|| bad(None))?),
        FieldType::U8 => RvValue::U8(integer(v).ok_or_else(|| bad(None))?),
        FieldType::I16 => RvValue::I16(integer(v).ok_or_else(|| bad(None))?),
        FieldType::U16 => RvValue::U16(integer(v).ok_or_else(|| bad(None))?),
        FieldType::I32 => RvValue::I32(integer(v).ok_or_else(|| bad(None))?),
        FieldType::U32 => RvValue::U32(integer(v).ok_or_else(|| bad(None))?),
        FieldType::I64 => RvValue::I64(integer(v).ok_or_else(|| bad(None))?),
        FieldType::U64 => RvValue::U64(integer(v).ok_or_else(|| bad(None))?),
        FieldType::IpPort16 => RvValue::IpPort16(integer(v).ok_or_else(|| bad(None))?),
        FieldType::F64 => RvValue::F64(match v {
            Value::Number(n) => n.as_f64().ok_or_else(|| bad(None))?,
            Value::String(s) => text::f64_from_text(s).ok_or_else(|| bad(None))?,
            _ => return Err(bad(None)),
        }),
        FieldType::F32 => RvValue::F32(match v {
            Value::Number(n) => {
                let x = n.as_f64().ok_or_else(|| bad(None))?;
                let y = x as f32;
                if !y.is_finite() {
                    return Err(bad(Some("beyond the f32 range".into())));
                }
                y
            }
            Value::String(s) => text::f32_from_text(s).ok_or_else(|| bad(None))?,
            _ => return Err(bad(None)),
        }),
        FieldType::IpAddr32 => RvValue::IpAddr32(
            text::ipaddr(string()?).ok_or_else(|| bad(Some("not a dotted quad".into())))?,
        ),
        FieldType::DateTime => RvValue::DateTime(match v {
            Value::String(s) => text::datetime(s).map_err(|e| bad(Some(e)))?,
            Value::Object(o) => datetime_object(o).ok_or_else(|| bad(None))?,
            _ => return Err(bad(None)),
        }),
        FieldType::String => RvValue::String(string()?.to_string()),
        FieldType::Opaque => RvValue::Opaque(text::base64(string()?).map_err(|e| bad(Some(e)))?),
        FieldType::Xml => RvValue::Xml(text::base64(string()?).map_err(|e| bad(Some(e)))?),
        FieldType::User(type_code) => RvValue::User {
            type_code,
            data: text::base64(string()?).map_err(|e| bad(Some(e)))?,
        },
        _ => return Err(bad(None)),
    })
}

/// `{"sec": "<i64>", "nsec": <u32>}`, the form of datetimes RFC 3339
/// cannot spell.
fn datetime_object(o: &Map<String, Value>) -> Option<DateTime> {
    if o.keys().any(|k| k != "sec" && k != "nsec") {
        return None;
    }
    let sec = integer::<i64>(o.get("sec")?)?;
    let nsec = match o.get("nsec") {
        None => 0,
        Some(n) => integer::<u32>(n)?,
    };
    DateTime::new(sec, nsec)
}

/// A value of type `t` from its JSON form; `path` names the field for
/// errors.
pub fn value_from_json(
    t: FieldType,
    v: &Value,
    path: &mut Vec<PathSegment>,
) -> Result<RvValue, RvInputError> {
    // An array element is its array's element type.
    fn each<T>(
        v: &Value,
        path: &mut Vec<PathSegment>,
        element: FieldType,
        pick: fn(RvValue) -> Option<T>,
    ) -> Result<Vec<T>, RvInputError> {
        array(v, path, |item, path| {
            let x = scalar(element, item, path)?;
            pick(x).ok_or_else(|| {
                fail(
                    Where::Field(FieldPath(path.clone())),
                    bad_value(element, item, None),
                )
            })
        })
    }
    Ok(match t {
        FieldType::Msg => RvValue::Msg(message_from_json(v, path)?),
        FieldType::MsgArray => RvValue::MsgArray(array(v, path, message_from_json)?),
        FieldType::StringArray => RvValue::StringArray(array(v, path, |item, path| {
            item.as_str().map(str::to_string).ok_or_else(|| {
                fail(
                    Where::Field(FieldPath(path.clone())),
                    bad_value(FieldType::String, item, None),
                )
            })
        })?),
        FieldType::I8Array => RvValue::I8Array(each(v, path, FieldType::I8, |x| match x {
            RvValue::I8(x) => Some(x),
            _ => None,
        })?),
        FieldType::U8Array => RvValue::U8Array(each(v, path, FieldType::U8, |x| match x {
            RvValue::U8(x) => Some(x),
            _ => None,
        })?),
        FieldType::I16Array => RvValue::I16Array(each(v, path, FieldType::I16, |x| match x {
            RvValue::I16(x) => Some(x),
            _ => None,
        })?),
        FieldType::U16Array => RvValue::U16Array(each(v, path, FieldType::U16, |x| match x {
            RvValue::U16(x) => Some(x),
            _ => None,
        })?),
        FieldType::I32Array => RvValue::I32Array(each(v, path, FieldType::I32, |x| match x {
            RvValue::I32(x) => Some(x),
            _ => None,
        })?),
        FieldType::U32Array => RvValue::U32Array(each(v, path, FieldType::U32, |x| match x {
            RvValue::U32(x) => Some(x),
            _ => None,
        })?),
        FieldType::I64Array => RvValue::I64Array(each(v, path, FieldType::I64, |x| match x {
            RvValue::I64(x) => Some(x),
            _ => None,
        })?),
        FieldType::U64Array => RvValue::U64Array(each(v, path, FieldType::U64, |x| match x {
            RvValue::U64(x) => Some(x),
            _ => None,
        })?),
        FieldType::F32Array => RvValue::F32Array(each(v, path, FieldType::F32, |x| match x {
            RvValue::F32(x) => Some(x),
            _ => None,
        })?),
        FieldType::F64Array => RvValue::F64Array(each(v, path, FieldType::F64, |x| match x {
            RvValue::F64(x) => Some(x),
            _ => None,
        })?),
        scalar_type => scalar(scalar_type, v, path)?,
    })
}

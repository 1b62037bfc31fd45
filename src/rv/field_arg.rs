//! The command-line field syntax of `mqgate rv publish`:
//! `--field NAME:TYPE=VALUE` (docs/rendezvous.md "Messages").
//!
//! TYPE is a type name of the JSON form (`f64`, `string`, `u64array`, ...).
//! The first `=` ends NAME:TYPE and the last `:` before it starts TYPE, so a
//! name may hold `:` and a value anything. An empty NAME is a field without
//! a name. VALUE is the scalar's text form (`101.25`, `true`, `10.0.0.1`,
//! `2024-05-01T12:00:00Z`, base64 for opaque and program-defined types,
//! plain text for string and xml) or, for msg, msgarray, stringarray and the
//! numeric arrays, the value's JSON form (`[1.5, 2.5]`).

use mqgate_codecs::rv::field::FieldType;
use mqgate_codecs::rv::msg::{Field, Value};
use mqgate_codecs::rv::msg_error::{FieldPath, PathSegment};

use super::error::{RvInputError, RvInputErrorKind, Where};
use super::json::value_from_json;
use super::text;

/// One `NAME:TYPE=VALUE` argument as a field (identifier 0).
///
/// Errors: `'price=1': is not NAME:TYPE=VALUE`, `field 'price': unknown
/// type 'f65' (...)`, `field 'price': 'abc' is not an f64`.
pub fn parse_field_arg(arg: &str) -> Result<Field, RvInputError> {
    let syntax = || RvInputError {
        at: Where::Argument(arg.to_string()),
        kind: RvInputErrorKind::Syntax,
    };
    let (head, value) = arg.split_once('=').ok_or_else(syntax)?;
    let (name, type_name) = head.rsplit_once(':').ok_or_else(syntax)?;
    let name = (!name.is_empty()).then(|| name.to_string());
    let at = || match &name {
        Some(n) => Where::Field(FieldPath(vec![PathSegment::Name(n.clone())])),
        None => Where::Argument(arg.to_string()),
    };
    let field_type = FieldType::from_name(type_name).ok_or_else(|| RvInputError {
        at: at(),
        kind: RvInputErrorKind::UnknownType(type_name.to_string()),
    })?;
    let bad = |detail: Option<String>| RvInputError {
        at: at(),
        kind: RvInputErrorKind::BadValue {
            field_type,
            value: value.to_string(),
            detail,
        },
    };
    let value = match field_type {
        FieldType::Msg
        | FieldType::MsgArray
        | FieldType::StringArray
        | FieldType::I8Array
        | FieldType::U8Array
        | FieldType::I16Array
        | FieldType::U16Array
        | FieldType::I32Array
        | FieldType::U32Array
        | FieldType::I64Array
        | FieldType::U64Array
        | FieldType::F32Array
        | FieldType::F64Array => {
            let json: serde_json::Value =
                serde_json::from_str(value).map_err(|e| RvInputError {
                    at: at(),
                    kind: RvInputErrorKind::BadJson(e.to_string()),
                })?;
            let mut path = match &name {
                Some(n) => vec![PathSegment::Name(n.clone())],
                None => vec![PathSegment::Position(0)],
            };
            value_from_json(field_type, &json, &mut path)?
        }
        FieldType::Bool => match value {
            "true" => Value::Bool(true),
            "false" => Value::Bool(false),
            _ => return Err(bad(None)),
        },
        FieldType::I8 => Value::I8(text::int(value).ok_or_else(|| bad(None))?),
        FieldType::U8 => Value::U8(text::int(value).ok_or_else(|| bad(None))?),
        FieldType::I16 => Value::I16(text::int(value).ok_or_else(|| bad(None))?),
        FieldType::U16 => Value::U16(text::int(value).ok_or_else(|| bad(None))?),
        FieldType::I32 => Value::I32(text::int(value).ok_or_else(|| bad(None))?),
        FieldType::U32 => Value::U32(text::int(value).ok_or_else(|| bad(None))?),
        FieldType::I64 => Value::I64(text::int(value).ok_or_else(|| bad(None))?),
        FieldType::U64 => Value::U64(text::int(value).ok_or_else(|| bad(None))?),
        FieldType::IpPort16 => Value::IpPort16(text::int(value).ok_or_else(|| bad(None))?),
        FieldType::F32 => Value::F32(text::f32_from_text(value).ok_or_else(|| bad(None))?),
        FieldType::F64 => Value::F64(text::f64_from_text(value).ok_or_else(|| bad(None))?),
        FieldType::IpAddr32 => Value::IpAddr32(
            text::ipaddr(value).ok_or_else(|| bad(Some("not a dotted quad".into())))?,
        ),
        FieldType::DateTime => Value::DateTime(text::datetime(value).map_err(|e| bad(Some(e)))?),
        FieldType::String => Value::String(value.to_string()),
        FieldType::Xml => Value::Xml(value.as_bytes().to_vec()),
        FieldType::Opaque => Value::Opaque(text::base64(value).map_err(|e| bad(Some(e)))?),
        FieldType::User(type_code) => Value::User {
            type_code,
            data: text::base64(value).map_err(|e| bad(Some(e)))?,
        },
    };
    Ok(Field { name, id: 0, value })
}

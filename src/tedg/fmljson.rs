//! FML32 buffers as JSON, by the names of a field table:
//! `{"NAME": ["Smith"], "AGE": [42]}` (each field an array of occurrences).

use base64::Engine;
use base64::engine::general_purpose::STANDARD as BASE64;
use mqgate_codecs::tux::fieldtbl::FieldTable;
use mqgate_codecs::tux::fml32::{FieldType, FieldValue, Fml32Buffer};
use serde_json::{Map, Value, json};

/// Builds an FML32 buffer from JSON. Values by field type: short/long →
/// integer; char → a one-character string or an integer 0..=255; float/double
/// → number; string/mbstring → string; carray → string (its UTF-8 bytes) or
/// `{"base64": "..."}`; fml32 → a nested object. Errors name the field.
pub fn from_json(table: &FieldTable, obj: &Map<String, Value>) -> Result<Fml32Buffer, String> {
    let mut buf = Fml32Buffer::new();
    for (name, values) in obj {
        let def = table
            .by_name(name)
            .ok_or_else(|| format!("fml32: field {name:?} is not in the field table (FBADNAME)"))?;
        let list: Vec<&Value> = match values {
            Value::Array(a) => a.iter().collect(),
            v => vec![v],
        };
        for (occ, v) in list.into_iter().enumerate() {
            let bad = || {
                format!(
                    "fml32: {name}[{occ}]: {v} is not a {} value",
                    def.field_type.table_name()
                )
            };
            let value = match def.field_type {
                FieldType::Short => FieldValue::Short(
                    v.as_i64()
                        .and_then(|n| i16::try_from(n).ok())
                        .ok_or_else(bad)?,
                ),
                FieldType::Long => FieldValue::Long(
                    v.as_i64()
                        .filter(|n| i32::try_from(*n).is_ok())
                        .ok_or_else(bad)?,
                ),
                FieldType::Char => match v {
                    Value::String(s) if s.len() == 1 => FieldValue::Char(s.as_bytes()[0]),
                    _ => FieldValue::Char(
                        v.as_u64()
                            .and_then(|n| u8::try_from(n).ok())
                            .ok_or_else(bad)?,
                    ),
                },
                FieldType::Float => FieldValue::Float(v.as_f64().ok_or_else(bad)? as f32),
                FieldType::Double => FieldValue::Double(v.as_f64().ok_or_else(bad)?),
                FieldType::String => {
                    FieldValue::String(v.as_str().ok_or_else(bad)?.as_bytes().to_vec())
                }
                FieldType::Mbstring => {
                    FieldValue::Mbstring(v.as_str().ok_or_else(bad)?.as_bytes().to_vec())
                }
                FieldType::Carray => match v {
                    Value::String(s) => FieldValue::Carray(s.as_bytes().to_vec()),
                    Value::Object(o) => {
                        let b64 = o.get("base64").and_then(Value::as_str).ok_or_else(bad)?;
                        FieldValue::Carray(
                            BASE64.decode(b64).map_err(|e| format!("{}: {e}", bad()))?,
                        )
                    }
                    _ => return Err(bad()),
                },
                FieldType::Fml32 => match v {
                    Value::Object(o) => FieldValue::Fml32(from_json(table, o)?),
                    _ => return Err(bad()),
                },
                _ => {
                    return Err(format!(
                        "fml32: {name}: type {} cannot be given as JSON",
                        def.field_type.table_name()
                    ));
                }
            };
            buf.add(def.id, value)
                .map_err(|e| format!("fml32: {name}[{occ}]: {e}"))?;
        }
    }
    Ok(buf)
}

/// The JSON form of a buffer (inverse of [`from_json`]); a field missing
/// from the table appears under its numeric id.
pub fn to_json(table: &FieldTable, buf: &Fml32Buffer) -> Value {
    let mut out = Map::new();
    for (id, v) in buf.fields() {
        let name = table
            .by_id(*id)
            .map_or_else(|| id.0.to_string(), |d| d.name.clone());
        let jv = match v {
            FieldValue::Short(n) => json!(n),
            FieldValue::Long(n) => json!(n),
            FieldValue::Char(c) => json!((*c as char).to_string()),
            FieldValue::Float(f) => json!(f),
            FieldValue::Double(f) => json!(f),
            FieldValue::String(s) | FieldValue::Mbstring(s) => {
                json!(String::from_utf8_lossy(s))
            }
            FieldValue::Carray(b) => match std::str::from_utf8(b) {
                Ok(s) => json!(s),
                Err(_) => json!({"base64": BASE64.encode(b)}),
            },
            FieldValue::Fml32(inner) => to_json(table, inner),
            FieldValue::View32 { name, data } => {
                json!({"view": String::from_utf8_lossy(name), "base64": BASE64.encode(data)})
            }
        };
        if let Value::Array(a) = out.entry(name).or_insert_with(|| json!([])) {
            a.push(jv);
        }
    }
    Value::Object(out)
}

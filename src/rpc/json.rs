//! JSON parameters ↔ IDL values (the HTTP front end, docs/rpc.md "HTTP"): parameters by IDL
//! name, groups and structs as objects, arrays as lists (a list of lists for
//! two or three dimensions). Scalars may be given as JSON strings in the text
//! forms of `Value::from_text` (`-12.50`, `2026-11-29`, `true`) or as JSON
//! numbers and booleans.

use super::error::RpcError;
#[cfg(test)]
use super::error::RpcErrorKind;
use mqgate_codecs::idl::layout::{Element, LayoutNode, Shape};
use mqgate_codecs::idl::{BridgeProgram, DynamicKind, Format, Length, Record, Value};
use serde_json::{Map, Value as Json};

/// A JSON object of parameters read so that a name given twice (JSON keys
/// that are equal ignoring ASCII case, as parameter names are) is an error
/// instead of the last one silently winning (serde_json's `Map` keeps one).
#[derive(Debug, Default)]
pub struct Params(pub Map<String, Json>);

impl<'de> serde::Deserialize<'de> for Params {
    fn deserialize<D: serde::Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        struct Visit;
        impl<'de> serde::de::Visitor<'de> for Visit {
            type Value = Params;
            fn expecting(&self, f: &mut std::fmt::Formatter) -> std::fmt::Result {
                f.write_str("a JSON object of parameters")
            }
            fn visit_map<A: serde::de::MapAccess<'de>>(self, mut a: A) -> Result<Params, A::Error> {
                let mut map = Map::new();
                while let Some((name, value)) = a.next_entry::<String, Json>()? {
                    if map.keys().any(|k| k.eq_ignore_ascii_case(&name)) {
                        return Err(serde::de::Error::custom(format!(
                            "{name} given twice (parameter names are case-insensitive)"
                        )));
                    }
                    map.insert(name, value);
                }
                Ok(Params(map))
            }
        }
        d.deserialize_map(Visit)
    }
}

/// Reads the IN parameters of a call of `program` from a JSON object.
///
/// Errors ([`RpcError`] BAD_PARAMETERS): a name that is no IN parameter of
/// the program, or a value of the wrong shape or text, naming its path.
pub fn params_from_json(
    program: &BridgeProgram,
    params: &Map<String, Json>,
) -> Result<Record, RpcError> {
    let mut out = Record::new();
    for (name, value) in params {
        if value.is_null() {
            continue;
        }
        if let Some(d) = program
            .dynamic
            .params
            .iter()
            .find(|d| d.name.eq_ignore_ascii_case(name))
        {
            if !d.direction.is_in() {
                return Err(RpcError::bad(format!(
                    "{name} is an OUT parameter of {}/{}; it cannot be passed",
                    program.library, program.program
                )));
            }
            let v = match (value, &d.kind) {
                (Json::Number(n), DynamicKind::WaitInterval) if n.is_i64() => {
                    Value::Integer(n.as_i64().unwrap_or(0))
                }
                (Json::String(s), _) => Value::Text(s.clone()),
                (Json::Number(n), _) => Value::Text(n.to_string()),
                _ => {
                    return Err(RpcError::bad(format!(
                        "{name}: expected a string, found {value}"
                    )));
                }
            };
            if let (DynamicKind::Rfh(_), Value::Text(t)) = (&d.kind, &v) {
                check_rfh_length(&d.name, &d.format, t)?;
            }
            out.set(d.name.clone(), v);
            continue;
        }
        let Some(node) = program
            .request
            .nodes
            .iter()
            .find(|n| n.name.eq_ignore_ascii_case(name))
        else {
            let why = if program
                .reply
                .nodes
                .iter()
                .any(|n| n.name.eq_ignore_ascii_case(name))
            {
                "; it cannot be passed"
            } else {
                ""
            };
            let what = if why.is_empty() {
                "is no parameter"
            } else {
                "is an OUT parameter"
            };
            return Err(RpcError::bad(format!(
                "{name} {what} of {}/{}{why}",
                program.library, program.program
            )));
        };
        out.set(node.name.clone(), node_value(node, value, &node.name)?);
    }
    Ok(out)
}

/// An MQ_RFH_<name> value is held to its IDL length like any data field
/// (trailing blanks do not count, as they are trimmed before the MQRFH is built).
fn check_rfh_length(name: &str, format: &Format, text: &str) -> Result<(), RpcError> {
    let max = match format {
        Format::Alpha(Length::Fixed(n)) | Format::Alpha(Length::Variable(Some(n))) => *n as usize,
        _ => return Ok(()),
    };
    let found = text.trim_end_matches(' ').chars().count();
    if found > max {
        return Err(RpcError::bad(format!(
            "{name}: {found} characters, at most {max} allowed"
        )));
    }
    Ok(())
}

fn node_value(node: &LayoutNode, value: &Json, path: &str) -> Result<Value, RpcError> {
    match &node.shape {
        Shape::Scalar => element_value(&node.element, value, path),
        Shape::Tail { .. } => list(value, path, |v, p| element_value(&node.element, v, p)),
        Shape::Fixed(dims) => dims_value(&node.element, dims.len(), value, path),
    }
}

fn dims_value(element: &Element, dims: usize, value: &Json, path: &str) -> Result<Value, RpcError> {
    if dims == 0 {
        return element_value(element, value, path);
    }
    list(value, path, |v, p| dims_value(element, dims - 1, v, p))
}

fn list(
    value: &Json,
    path: &str,
    mut each: impl FnMut(&Json, &str) -> Result<Value, RpcError>,
) -> Result<Value, RpcError> {
    let Json::Array(items) = value else {
        return Err(RpcError::bad(format!(
            "{path}: an array needs a JSON list, found {value}"
        )));
    };
    items
        .iter()
        .enumerate()
        .map(|(i, v)| each(v, &format!("{path}[{i}]")))
        .collect::<Result<Vec<_>, _>>()
        .map(Value::List)
}

fn element_value(element: &Element, value: &Json, path: &str) -> Result<Value, RpcError> {
    match element {
        Element::Field(format, _) => scalar(format, value, path),
        Element::Record(members) => {
            let Json::Object(obj) = value else {
                return Err(RpcError::bad(format!(
                    "{path}: a group needs a JSON object, found {value}"
                )));
            };
            let mut rec = Record::new();
            for (name, v) in obj {
                let Some(m) = members.iter().find(|m| m.name.eq_ignore_ascii_case(name)) else {
                    return Err(RpcError::bad(format!(
                        "{path}.{name} is no member of group {path}"
                    )));
                };
                if v.is_null() {
                    continue;
                }
                rec.set(m.name.clone(), node_value(m, v, &format!("{path}.{name}"))?);
            }
            Ok(Value::Record(rec))
        }
    }
}

fn scalar(format: &Format, value: &Json, path: &str) -> Result<Value, RpcError> {
    let text = match value {
        Json::String(s) => s.clone(),
        Json::Number(n) => {
            if let (Format::Integer(_), Some(i)) = (format, n.as_i64()) {
                return Ok(Value::Integer(i));
            }
            n.to_string()
        }
        Json::Bool(b) => {
            if matches!(format, Format::Logical) {
                return Ok(Value::Logical(*b));
            }
            b.to_string()
        }
        other => {
            return Err(RpcError::bad(format!(
                "{path}: format {format} needs a string, number or boolean, found {other}"
            )));
        }
    };
    Value::from_text(format, &text).map_err(|e| RpcError::bad(format!("{path}: {e}")))
}

/// The JSON form of values: text as strings, integers as numbers, decimals,
/// dates and timestamps as strings (`"12.50"`, `"2026-11-29"`,
/// `"2026-11-29T17:05:09.3"`, exact), logicals as booleans.
pub fn record_to_json(record: &Record) -> Json {
    Json::Object(
        record
            .0
            .iter()
            .map(|(n, v)| (n.clone(), value_to_json(v)))
            .collect(),
    )
}

fn value_to_json(v: &Value) -> Json {
    match v {
        Value::Text(t) => Json::String(t.clone()),
        Value::Integer(i) => Json::from(*i),
        Value::Decimal(d) => Json::String(d.to_string()),
        Value::Logical(b) => Json::Bool(*b),
        Value::Date(d) => Json::String(d.to_string()),
        Value::Time(t) => Json::String(t.to_string()),
        Value::Record(r) => record_to_json(r),
        Value::List(items) => Json::Array(items.iter().map(value_to_json).collect()),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use mqgate_codecs::idl::parse;
    use serde_json::json;

    const IDL: &str = "LIBRARY 'L' IS
PROGRAM 'P' IS
  DEFINE DATA PARAMETER
  1 MQ_WAIT_INTERVAL (A10) IN
  1 MQ_CORREL_ID (A48) OUT
  1 PERSON IN
    2 NAME (A10)
    2 BORN (D)
  1 GRID (I2/2,3) IN
  1 OK (L) IN
  1 AMOUNT (N5.2) IN
  1 RESULT (A5) OUT
  END-DEFINE
";

    fn program() -> BridgeProgram {
        BridgeProgram::bind(&parse(IDL).unwrap(), "L", "P").unwrap()
    }

    fn obj(v: Json) -> Map<String, Json> {
        v.as_object().unwrap().clone()
    }

    #[test]
    fn groups_arrays_and_scalars() {
        let p = program();
        let r = params_from_json(
            &p,
            &obj(json!({
                "mq_wait_interval": 250,
                "PERSON": {"name": "Ann", "BORN": "2026-11-29"},
                "GRID": [[1, 2, 3], [4, 5, "-6"]],
                "OK": true,
                "AMOUNT": "-12.50"
            })),
        )
        .unwrap();
        // docs/rpc.md "HTTP": groups as objects, arrays as lists; names by IDL
        // name without case.
        assert_eq!(r.get("MQ_WAIT_INTERVAL"), Some(&Value::Integer(250)));
        let Some(Value::Record(person)) = r.get("PERSON") else {
            panic!("{r:?}")
        };
        assert_eq!(person.get("NAME"), Some(&Value::Text("Ann".into())));
        assert_eq!(
            person.get("BORN").unwrap().to_owned(),
            Value::from_text(&Format::Date, "20261129").unwrap()
        );
        let Some(Value::List(rows)) = r.get("GRID") else {
            panic!("{r:?}")
        };
        assert_eq!(rows.len(), 2);
        assert_eq!(
            rows[1],
            Value::List(vec![
                Value::Integer(4),
                Value::Integer(5),
                Value::Integer(-6)
            ])
        );
        assert_eq!(r.get("OK"), Some(&Value::Logical(true)));
        assert_eq!(record_to_json(&r)["AMOUNT"], "-12.50");
        assert_eq!(record_to_json(&r)["PERSON"]["BORN"], "2026-11-29");
    }

    #[test]
    fn wrong_names_and_shapes_are_bad_parameters() {
        let p = program();
        let cases = [
            (json!({"RESULT": "x"}), "RESULT is an OUT parameter"),
            (
                json!({"MQ_CORREL_ID": "00"}),
                "MQ_CORREL_ID is an OUT parameter",
            ),
            (json!({"NOPE": 1}), "NOPE is no parameter of L/P"),
            (
                json!({"PERSON": "Ann"}),
                "PERSON: a group needs a JSON object",
            ),
            (json!({"PERSON": {"AGE": 3}}), "PERSON.AGE is no member"),
            (
                json!({"GRID": [1, 2]}),
                "GRID[0]: an array needs a JSON list",
            ),
            (json!({"AMOUNT": "12,5"}), "AMOUNT: "),
            (json!({"OK": [true]}), "OK: format L needs"),
        ];
        for (input, want) in cases {
            let e = params_from_json(&p, &obj(input.clone())).unwrap_err();
            assert_eq!(e.kind, RpcErrorKind::BadParameters);
            assert!(e.message.contains(want), "{input}: {}", e.message);
        }
    }

    #[test]
    fn a_name_given_twice_is_refused() {
        // Defect report (a tester of the RPC bridge): names are case-insensitive, so
        // LEFT and left are the same parameter; duplicate JSON keys too.
        for body in [r#"{"LEFT":1,"left":5}"#, r#"{"TEXT":"a","TEXT":"b"}"#] {
            let e = serde_json::from_str::<Params>(body).unwrap_err();
            assert!(e.is_data(), "{e}");
            assert!(e.to_string().contains("given twice"), "{e}");
        }
        let e = serde_json::from_str::<Params>(r#"{"LEFT":1,"left":5}"#).unwrap_err();
        assert!(e.to_string().starts_with("left given twice"), "{e}");
        let ok = serde_json::from_str::<Params>(r#"{"LEFT":1,"RIGHT":5}"#).unwrap();
        assert_eq!(ok.0.len(), 2);
    }

    #[test]
    fn mq_rfh_values_are_held_to_their_idl_length() {
        // Defect report (a tester of the RPC bridge): fixtures/rpc/demo.idl declares
        // MQ_RFH_H1 (A20) in SEND; 20 characters fit, 21 do not.
        let idl = std::fs::read_to_string(concat!(
            env!("CARGO_MANIFEST_DIR"),
            "/fixtures/rpc/demo.idl"
        ))
        .unwrap();
        let file = mqgate_codecs::idl::parse(&idl).unwrap();
        let send = BridgeProgram::bind(&file, "DEMO", "SEND").unwrap();
        let ok = obj(json!({"TEXT": "a", "MQ_RFH_H1": "x".repeat(20)}));
        assert!(params_from_json(&send, &ok).is_ok());
        let long = obj(json!({"TEXT": "a", "MQ_RFH_H1": "x".repeat(21)}));
        let e = params_from_json(&send, &long).unwrap_err();
        assert_eq!(e.kind, RpcErrorKind::BadParameters);
        assert_eq!(e.message, "MQ_RFH_H1: 21 characters, at most 20 allowed");
        let huge = obj(json!({"TEXT": "a", "MQ_RFH_H1": "x".repeat(5000)}));
        assert!(params_from_json(&send, &huge).is_err());
    }
}

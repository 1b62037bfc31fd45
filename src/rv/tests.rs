//! The JSON form and the command-line field syntax of Rendezvous messages.
//! Expected JSON and error texts are those of docs/rendezvous.md
//! "Messages"; the binary bytes of the example are the ones
//! codecs/tests/rv_message.rs builds byte by byte from the same page.

use std::net::Ipv4Addr;

use mqgate_codecs::rv::datetime::DateTime;
use mqgate_codecs::rv::field::FieldType;
use mqgate_codecs::rv::msg::{CmLabels, Envelope, Field, Limits, Message, Value};
use mqgate_codecs::rv::msg_error::RvMsgErrorKind;
use serde_json::json;

use super::error::{RvInputErrorKind, Where};
use super::field_arg::parse_field_arg;
use super::json::{envelope_from_json, envelope_to_json, message_from_json, value_to_json};

/// The example of docs/rendezvous.md "Messages".
fn example_json() -> serde_json::Value {
    json!({
        "subject": "QUOTE.IBM",
        "reply_subject": "_INBOX.1",
        "cm": {"sender": "PRICER", "sequence": "7", "time_limit_s": 60.0},
        "fields": [
            {"name": "price", "id": 1, "type": "f64", "value": 101.25},
            {"type": "string", "value": "ok"},
            {"name": "quote", "type": "msg", "value": [
                {"name": "firm", "type": "bool", "value": true}
            ]}
        ]
    })
}

#[test]
fn the_documented_example() {
    let env = envelope_from_json(&example_json()).unwrap();
    assert_eq!(
        env,
        Envelope {
            subject: "QUOTE.IBM".into(),
            reply_subject: Some("_INBOX.1".into()),
            cm: Some(CmLabels {
                sender: "PRICER".into(),
                sequence: 7,
                time_limit: 60.0
            }),
            message: Message::new(vec![
                Field {
                    name: Some("price".into()),
                    id: 1,
                    value: Value::F64(101.25)
                },
                Field {
                    name: None,
                    id: 0,
                    value: Value::String("ok".into())
                },
                Field::new(
                    "quote",
                    Value::Msg(Message::new(vec![Field::new("firm", Value::Bool(true))]))
                ),
            ]),
        }
    );
    assert_eq!(envelope_to_json(&env), example_json());
    // The 109 bytes of the binary example: header, subjects, labels, fields.
    let bytes = env.encode(&Limits::default()).unwrap();
    assert_eq!(bytes.len(), 109);
    assert_eq!(&bytes[..10], b"RVM \x01\x03\0\0\0\x6d");
    // The text the page shows, key order included.
    assert_eq!(
        serde_json::to_string(&envelope_to_json(&env)).unwrap(),
        r#"{"subject":"QUOTE.IBM","reply_subject":"_INBOX.1","cm":{"sender":"PRICER","sequence":"7","time_limit_s":60.0},"fields":[{"name":"price","id":1,"type":"f64","value":101.25},{"type":"string","value":"ok"},{"name":"quote","type":"msg","value":[{"name":"firm","type":"bool","value":true}]}]}"#
    );
}

#[test]
fn value_forms() {
    // docs/rendezvous.md "Messages", the table of value forms.
    let cases: Vec<(Value, serde_json::Value)> = vec![
        (Value::I8(-128), json!(-128)),
        (Value::U32(u32::MAX), json!(4294967295u32)),
        (Value::I64(i64::MIN), json!("-9223372036854775808")),
        (Value::U64(u64::MAX), json!("18446744073709551615")),
        (Value::F64(101.25), json!(101.25)),
        (Value::F64(-0.0), json!(-0.0)),
        (Value::F64(f64::INFINITY), json!("Infinity")),
        (Value::F64(f64::NEG_INFINITY), json!("-Infinity")),
        (Value::F64(f64::NAN), json!("NaN")),
        (
            Value::F64(f64::from_bits(0xFFF8_0000_0000_0000)),
            json!("NaN(0xfff8000000000000)"),
        ),
        // 0.1f32 is 0.100000001490116...; its shortest text is 0.1.
        (Value::F32(0.1), json!(0.1)),
        (
            Value::F32(f32::from_bits(0x7FC0_0001)),
            json!("NaN(0x7fc00001)"),
        ),
        (Value::Bool(true), json!(true)),
        (Value::IpPort16(7500), json!(7500)),
        (
            Value::IpAddr32(Ipv4Addr::new(10, 0, 0, 1)),
            json!("10.0.0.1"),
        ),
        (
            Value::DateTime(DateTime {
                sec: 1_714_566_600,
                nsec: 250_000_000,
            }),
            json!("2024-05-01T12:30:00.250000000Z"),
        ),
        (
            Value::DateTime(DateTime {
                sec: -100_000_000_000,
                nsec: 5,
            }),
            json!({"sec": "-100000000000", "nsec": 5}),
        ),
        // RFC 4648 section 10 test vector: "foobar" is "Zm9vYmFy".
        (Value::Opaque(b"foobar".to_vec()), json!("Zm9vYmFy")),
        (Value::Xml(b"<a/>".to_vec()), json!("PGEvPg==")),
        (
            Value::User {
                type_code: 130,
                data: b"fo".to_vec(),
            },
            json!("Zm8="),
        ),
        (Value::String("Grüße".into()), json!("Grüße")),
        (
            Value::U64Array(vec![1, u64::MAX]),
            json!(["1", "18446744073709551615"]),
        ),
        (Value::F64Array(vec![1.5, f64::NAN]), json!([1.5, "NaN"])),
        (
            Value::StringArray(vec!["a".into(), "".into()]),
            json!(["a", ""]),
        ),
        (
            Value::MsgArray(vec![
                Message::default(),
                Message::new(vec![Field::new("x", Value::I8(1))]),
            ]),
            json!([[], [{"name": "x", "type": "i8", "value": 1}]]),
        ),
    ];
    for (value, want) in cases {
        let t = value.field_type();
        assert_eq!(value_to_json(&value), want, "{t}");
        let field = json!([{"name": "v", "type": t.to_string(), "value": want}]);
        let back = message_from_json(&field, &mut Vec::new()).unwrap();
        // Compare as bytes: NaN is not equal to itself.
        let bytes = |m: Message| {
            Envelope {
                subject: "S".into(),
                reply_subject: None,
                cm: None,
                message: m,
            }
            .encode(&Limits::default())
            .unwrap()
        };
        assert_eq!(
            bytes(back),
            bytes(Message::new(vec![Field::new("v", value)])),
            "{t}"
        );
    }
}

#[test]
fn looser_input_forms() {
    let one = |t: &str, v: serde_json::Value| {
        message_from_json(
            &json!([{"name": "v", "type": t, "value": v}]),
            &mut Vec::new(),
        )
        .map(|m| m.fields[0].value.clone())
    };
    assert_eq!(one("i32", json!("-5")), Ok(Value::I32(-5)));
    assert_eq!(one("u64", json!(42)), Ok(Value::U64(42)));
    assert_eq!(one("f64", json!("1e3")), Ok(Value::F64(1000.0)));
    assert_eq!(one("f64", json!(7)), Ok(Value::F64(7.0)));
    assert_eq!(
        one("datetime", json!("2024-05-01T14:30:00+02:00")),
        Ok(Value::DateTime(DateTime {
            sec: 1_714_566_600,
            nsec: 0
        }))
    );
    assert_eq!(
        one("datetime", json!({"sec": 5})),
        Ok(Value::DateTime(DateTime { sec: 5, nsec: 0 }))
    );
}

fn input_error(v: serde_json::Value) -> String {
    envelope_from_json(&v).unwrap_err().to_string()
}

#[test]
fn json_errors_say_where_and_what() {
    let with = |fields: serde_json::Value| json!({"subject": "S", "fields": fields});
    assert_eq!(
        input_error(with(
            json!([{"name": "price", "type": "f64", "value": "abc"}])
        )),
        "field 'price': 'abc' is not an f64"
    );
    assert_eq!(
        input_error(with(json!([{"name": "n", "type": "u8", "value": 256}]))),
        "field 'n': '256' is not a u8"
    );
    assert_eq!(
        input_error(with(json!([{"name": "n", "type": "i32", "value": 1.5}]))),
        "field 'n': '1.5' is not an i32"
    );
    assert_eq!(
        input_error(with(json!([{"name": "x", "type": "f32", "value": 1e39}]))),
        "field 'x': '1e+39' is not an f32 (beyond the f32 range)"
    );
    assert_eq!(
        input_error(with(
            json!([{"name": "ts", "type": "datetime", "value": "2024-13-01T00:00:00Z"}])
        )),
        "field 'ts': '2024-13-01T00:00:00Z' is not a datetime (month out of range at offset 5)"
    );
    assert_eq!(
        input_error(with(
            json!([{"name": "b", "type": "opaque", "value": "@@"}])
        )),
        "field 'b': '@@' is not an opaque (not base64: Invalid symbol 64, offset 0.)"
    );
    let unknown = input_error(with(json!([{"name": "price", "type": "f65", "value": 1}])));
    assert!(
        unknown.starts_with(
            "field 'price': unknown type 'f65' (types: msg, datetime, opaque, string, bool, i8,"
        ),
        "{unknown}"
    );
    assert!(
        unknown.ends_with("msgarray, user128 to user255)"),
        "{unknown}"
    );
    assert_eq!(
        input_error(with(json!([{"name": "p", "type": "f64", "valeu": 1}]))),
        "field 'p': unknown key 'valeu'"
    );
    assert_eq!(
        input_error(with(
            json!([{"name": "p", "id": 70000, "type": "u8", "value": 1}])
        )),
        "field 'p': identifier 70000 is not 0 to 65535"
    );
    assert_eq!(
        input_error(with(json!([{"type": "u8"}]))),
        "field '#0': 'value' is missing"
    );
    assert_eq!(
        input_error(json!({"fields": []})),
        "message: 'subject' is missing"
    );
    assert_eq!(input_error(json!([])), "message: is not a JSON object");
    assert_eq!(
        input_error(json!({"subject": 5})),
        "subject: is not a JSON string"
    );
    assert_eq!(
        input_error(json!({"subject": "S", "topic": 1})),
        "message: unknown key 'topic'"
    );
    assert_eq!(
        input_error(json!({"subject": "S", "fields": {}})),
        "fields: is not a JSON array"
    );
    assert_eq!(
        input_error(json!({"subject": "S", "cm": {"sender": "A", "time_limit_s": -1}})),
        "cm.time_limit_s: '-1' is not a time limit (seconds, 0 or more)"
    );
    assert_eq!(
        input_error(json!({"subject": "S", "cm": {"sender": "A", "sequence": "x"}})),
        "cm.sequence: 'x' is not a u64"
    );
    // Nested: element 2 of message array "bids" inside message "quote".
    let bids = json!([[], [], [{"name": "px", "type": "f64", "value": [1]}]]);
    assert_eq!(
        input_error(with(json!([{"name": "quote", "type": "msg", "value": [
            {"name": "bids", "type": "msgarray", "value": bids}
        ]}]))),
        "field 'quote.bids[2].px': '[1]' is not an f64"
    );
    // An array element names its index.
    assert_eq!(
        input_error(with(
            json!([{"name": "a", "type": "u16array", "value": [1, -1]}])
        )),
        "field 'a[1]': '-1' is not a u16"
    );
}

#[test]
fn model_rules_and_limits_come_from_encode() {
    // A JSON envelope that reads but breaks the binary form's rules: the
    // value of field "s" starts at 21 (12 bytes of envelope, 8 + 1 of
    // field), its NUL is the next byte.
    let env = envelope_from_json(&json!({"subject": "S", "fields": [
        {"name": "s", "type": "string", "value": "a\u{0}b"}
    ]}))
    .unwrap();
    let e = env.encode(&Limits::default()).unwrap_err();
    assert_eq!(
        e.to_string(),
        "Rendezvous message at offset 22, field s: string contains a NUL at byte 1 (38 TIBRV_CONVERSION_FAILED)"
    );
    let big = envelope_from_json(&json!({"subject": "S", "fields": [
        {"name": "o", "type": "opaque", "value": "A".repeat(1400)}
    ]}))
    .unwrap();
    let limits = Limits {
        max_bytes: 1000,
        ..Limits::default()
    };
    let e = big.encode(&limits).unwrap_err();
    // 12 bytes of envelope, 8 + 1 of field, 1050 bytes of opaque.
    assert_eq!(
        e.kind,
        RvMsgErrorKind::TooLarge {
            size: 1071,
            max: 1000
        }
    );
}

#[test]
fn command_line_fields() {
    let f = |arg: &str| parse_field_arg(arg).map(|f| (f.name, f.value));
    let named = |n: &str, v: Value| Ok((Some(n.to_string()), v));
    assert_eq!(f("price:f64=101.25"), named("price", Value::F64(101.25)));
    assert_eq!(
        f("qty:u64=18446744073709551615"),
        named("qty", Value::U64(u64::MAX))
    );
    assert_eq!(f("firm:bool=true"), named("firm", Value::Bool(true)));
    assert_eq!(
        f("note:string=a=b:c"),
        named("note", Value::String("a=b:c".into()))
    );
    assert_eq!(f("a:b:i8=-1"), named("a:b", Value::I8(-1)));
    assert_eq!(f(":string=x"), Ok((None, Value::String("x".into()))));
    assert_eq!(f("e:string="), named("e", Value::String(String::new())));
    assert_eq!(
        f("x:f32=NaN(0x7fc00001)").map(|(_, v)| match v {
            Value::F32(x) => x.to_bits(),
            _ => 0,
        }),
        Ok(0x7FC0_0001)
    );
    assert_eq!(
        f("host:ipaddr32=192.168.1.10"),
        named("host", Value::IpAddr32(Ipv4Addr::new(192, 168, 1, 10)))
    );
    assert_eq!(
        f("port:ipport16=7500"),
        named("port", Value::IpPort16(7500))
    );
    assert_eq!(
        f("ts:datetime=1970-01-01T00:00:01.5Z"),
        named(
            "ts",
            Value::DateTime(DateTime {
                sec: 1,
                nsec: 500_000_000
            })
        )
    );
    assert_eq!(
        f("b:opaque=Zm9vYmFy"),
        named("b", Value::Opaque(b"foobar".to_vec()))
    );
    assert_eq!(
        f("doc:xml=<a/>"),
        named("doc", Value::Xml(b"<a/>".to_vec()))
    );
    assert_eq!(
        f("u:user200=Zm8="),
        named(
            "u",
            Value::User {
                type_code: 200,
                data: b"fo".to_vec()
            }
        )
    );
    assert_eq!(
        f("bids:f64array=[1.5, 2.5]"),
        named("bids", Value::F64Array(vec![1.5, 2.5]))
    );
    assert_eq!(
        f(r#"q:msg=[{"name":"px","type":"f64","value":1}]"#),
        named(
            "q",
            Value::Msg(Message::new(vec![Field::new("px", Value::F64(1.0))]))
        )
    );
    assert_eq!(f("v:u8array=[]"), named("v", Value::U8Array(vec![])));
}

#[test]
fn command_line_errors() {
    let e = |arg: &str| parse_field_arg(arg).unwrap_err().to_string();
    assert_eq!(e("price:f64=abc"), "field 'price': 'abc' is not an f64");
    assert_eq!(e("price=1"), "'price=1': is not NAME:TYPE=VALUE");
    assert_eq!(e("price:f64"), "'price:f64': is not NAME:TYPE=VALUE");
    assert_eq!(e("n:i16=40000"), "field 'n': '40000' is not an i16");
    assert_eq!(e("n:u32=-1"), "field 'n': '-1' is not a u32");
    assert_eq!(e("n:u32=+1"), "field 'n': '+1' is not a u32");
    assert_eq!(e("x:f64=inf"), "field 'x': 'inf' is not an f64");
    assert_eq!(e("x:f32=1e39"), "field 'x': '1e39' is not an f32");
    assert_eq!(e("b:bool=yes"), "field 'b': 'yes' is not a bool");
    assert_eq!(
        e("h:ipaddr32=10.0.0"),
        "field 'h': '10.0.0' is not an ipaddr32 (not a dotted quad)"
    );
    assert_eq!(
        e("t:datetime=2024-02-30T00:00:00Z"),
        "field 't': '2024-02-30T00:00:00Z' is not a datetime (day of month out of range at offset 8)"
    );
    assert_eq!(
        e("a:f64array=1,2"),
        "field 'a': value is not JSON: trailing characters at line 1 column 2"
    );
    assert_eq!(e("a:i8array=[1,300]"), "field 'a[1]': '300' is not an i8");
    let unknown = parse_field_arg("price:f65=1").unwrap_err();
    assert_eq!(unknown.kind, RvInputErrorKind::UnknownType("f65".into()));
    assert_eq!(
        unknown.at,
        Where::Field(mqgate_codecs::rv::msg_error::FieldPath(vec![
            mqgate_codecs::rv::msg_error::PathSegment::Name("price".into())
        ]))
    );
    assert_eq!(
        FieldType::from_name("user127"),
        None,
        "program-defined types start at 128"
    );
}

mod props {
    use super::*;
    use proptest::prelude::*;

    fn text() -> impl Strategy<Value = String> {
        "[a-zA-Z0-9 ._é€-]{0,12}"
    }

    fn scalar() -> impl Strategy<Value = Value> {
        prop_oneof![
            (any::<i64>(), 0..=999_999_999u32)
                .prop_map(|(sec, nsec)| Value::DateTime(DateTime { sec, nsec })),
            proptest::collection::vec(any::<u8>(), 0..12).prop_map(Value::Opaque),
            proptest::collection::vec(any::<u8>(), 0..12).prop_map(Value::Xml),
            text().prop_map(Value::String),
            any::<bool>().prop_map(Value::Bool),
            any::<i8>().prop_map(Value::I8),
            any::<u16>().prop_map(Value::U16),
            any::<i32>().prop_map(Value::I32),
            any::<i64>().prop_map(Value::I64),
            any::<u64>().prop_map(Value::U64),
            any::<u32>().prop_map(|b| Value::F32(f32::from_bits(b))),
            any::<u64>().prop_map(|b| Value::F64(f64::from_bits(b))),
            any::<u32>().prop_map(|a| Value::IpAddr32(Ipv4Addr::from(a))),
            proptest::collection::vec(any::<u64>(), 0..4).prop_map(Value::U64Array),
            proptest::collection::vec(any::<i16>(), 0..4).prop_map(Value::I16Array),
            proptest::collection::vec(any::<u32>(), 0..4)
                .prop_map(|v| Value::F32Array(v.into_iter().map(f32::from_bits).collect())),
            proptest::collection::vec(any::<u64>(), 0..4)
                .prop_map(|v| Value::F64Array(v.into_iter().map(f64::from_bits).collect())),
            proptest::collection::vec(text(), 0..3).prop_map(Value::StringArray),
            (128..=255u8, proptest::collection::vec(any::<u8>(), 0..6))
                .prop_map(|(type_code, data)| Value::User { type_code, data }),
        ]
    }

    fn message() -> impl Strategy<Value = Message> {
        let fields = |v: BoxedStrategy<Value>| {
            proptest::collection::vec((proptest::option::of(text()), v), 0..4).prop_map(|fs| {
                Message::new(
                    fs.into_iter()
                        .enumerate()
                        .map(|(i, (name, value))| Field {
                            id: if name.is_some() { i as u16 } else { 0 },
                            name,
                            value,
                        })
                        .collect(),
                )
            })
        };
        fields(scalar().boxed()).prop_recursive(3, 24, 4, move |inner| {
            fields(
                prop_oneof![
                    3 => scalar(),
                    1 => inner.clone().prop_map(Value::Msg),
                    1 => proptest::collection::vec(inner, 0..3).prop_map(Value::MsgArray),
                ]
                .boxed(),
            )
        })
    }

    proptest! {
        #![proptest_config(ProptestConfig::with_cases(256))]

        /// Envelope → JSON text → envelope writes the same binary bytes.
        #[test]
        fn json_round_trip(
            message in message(),
            reply in proptest::option::of("[A-Z.]{1,10}"),
            cm in proptest::option::of(("[A-Z]{1,8}", any::<u64>(), 0.0..1e6f64)),
        ) {
            let env = Envelope {
                subject: "A.B".into(),
                reply_subject: reply,
                cm: cm.map(|(sender, sequence, time_limit)| CmLabels { sender, sequence, time_limit }),
                message,
            };
            let l = Limits::default();
            let bytes = env.encode(&l).unwrap();
            let text = serde_json::to_string(&envelope_to_json(&env)).unwrap();
            let parsed: serde_json::Value = serde_json::from_str(&text).unwrap();
            let back = envelope_from_json(&parsed).unwrap();
            prop_assert_eq!(back.encode(&l).unwrap(), bytes);
        }

        /// Every f32 and f64 bit pattern survives its JSON text.
        #[test]
        fn float_bits(b32 in any::<u32>(), b64 in any::<u64>()) {
            let v = json!([
                {"name": "a", "type": "f32", "value": value_to_json(&Value::F32(f32::from_bits(b32)))},
                {"name": "b", "type": "f64", "value": value_to_json(&Value::F64(f64::from_bits(b64)))}
            ]);
            let text = serde_json::to_string(&v).unwrap();
            let m = message_from_json(&serde_json::from_str(&text).unwrap(), &mut Vec::new()).unwrap();
            match (&m.fields[0].value, &m.fields[1].value) {
                (Value::F32(x), Value::F64(y)) => {
                    prop_assert_eq!(x.to_bits(), b32);
                    prop_assert_eq!(y.to_bits(), b64);
                }
                other => prop_assert!(false, "{:?}", other),
            }
        }
    }
}

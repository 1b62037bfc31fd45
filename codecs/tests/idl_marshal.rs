//! Parameters ↔ fixed-position text. Every expected string follows the table of EntireX
//! "Mapping RPC Data to the MQ Message Buffer": An is n characters blank padded; AV is
//! the rest of the buffer; I1/I2/I4 are a sign and 3/5/10 digits; Nn.m and Pn.m are a
//! sign and n plus m digits without a decimal point; NU/PU have no sign position
//! (mqgate's choice, docs/rpc.md "Text payload"); L is `X` or not; D is YYYYMMDD; T is
//! YYYYMMDDhhmmssS; arrays are row-major.

use mqgate_codecs::idl::{
    Date, Decimal, IdlFile, LayoutError, MarshalErrorKind, PayloadDirection, Record, TextLayout,
    Timestamp, Value, parse,
};

fn bridge_text() -> IdlFile {
    let path = format!(
        "{}/../fixtures/idl/valid/bridge-text.idl",
        env!("CARGO_MANIFEST_DIR")
    );
    parse(&std::fs::read_to_string(path).unwrap()).unwrap()
}

fn layout_of(file: &IdlFile, program: &str, dir: PayloadDirection) -> TextLayout {
    let lib = &file.libraries[0];
    TextLayout::for_program(lib.program(program).unwrap(), lib, dir)
        .unwrap_or_else(|e| panic!("{program}: {e}"))
}

fn layout_error(idl: &str, dir: PayloadDirection) -> LayoutError {
    let file = parse(idl).unwrap_or_else(|e| panic!("{e}"));
    let lib = &file.libraries[0];
    TextLayout::for_program(&lib.programs[0], lib, dir).unwrap_err()
}

fn text(s: &str) -> Value {
    Value::Text(s.to_string())
}

fn dec(s: &str) -> Value {
    Value::Decimal(s.parse::<Decimal>().unwrap())
}

fn record(pairs: &[(&str, Value)]) -> Record {
    Record(
        pairs
            .iter()
            .map(|(n, v)| (n.to_string(), v.clone()))
            .collect(),
    )
}

#[test]
fn calc_request_and_reply() {
    let file = bridge_text();
    let req = layout_of(&file, "CALC", PayloadDirection::Request);
    // A1 + I4 + I4 = 1 + 11 + 11
    assert_eq!(req.fixed_length, 23);
    let values = record(&[
        ("OPERATION", text("+")),
        ("LEFT", Value::Integer(42)),
        ("RIGHT", Value::Integer(-7)),
    ]);
    let payload = req.marshal(&values).unwrap();
    assert_eq!(payload, "++0000000042-0000000007");
    assert_eq!(req.unmarshal(&payload).unwrap(), values);

    let reply = layout_of(&file, "CALC", PayloadDirection::Reply);
    // N7.2 = sign + 7 + 2 digits; L = X
    let back = reply.unmarshal("+000003500X").unwrap();
    assert_eq!(
        back,
        record(&[("RESULT", dec("35.00")), ("VALID", Value::Logical(true))])
    );
    assert_eq!(back.get("RESULT").unwrap(), &dec("35.00"));
    // anything but X is false
    assert_eq!(
        reply.unmarshal("-000000001N").unwrap(),
        record(&[("RESULT", dec("-0.01")), ("VALID", Value::Logical(false))])
    );
    assert_eq!(
        reply
            .marshal(&record(&[
                ("RESULT", dec("-12.5")),
                ("VALID", Value::Logical(false))
            ]))
            .unwrap(),
        "-000001250 "
    );
}

#[test]
fn order_with_struct_times_arrays_and_unbounded_tail() {
    let file = bridge_text();
    let req = layout_of(&file, "ORDER", PayloadDirection::Request);
    let values = record(&[
        // MQ_WAIT_INTERVAL is dynamic: never in the payload.
        ("MQ_WAIT_INTERVAL", Value::Integer(100)),
        ("ORDER-NO", Value::Integer(123)),
        (
            "CUSTOMER",
            Value::Record(record(&[("CUST-ID", dec("4711")), ("NAME", text("Smith"))])),
        ),
        (
            "PLACED",
            Value::Time(Timestamp {
                date: Date {
                    year: 2026,
                    month: 11,
                    day: 29,
                },
                hour: 17,
                minute: 5,
                second: 9,
                tenths: 3,
            }),
        ),
        ("AMOUNTS", Value::List(vec![dec("1.5"), dec("-0.25")])),
        (
            "ITEMS",
            Value::List(vec![
                Value::Record(record(&[("SKU", text("AB12")), ("QTY", Value::Integer(3))])),
                Value::Record(record(&[("SKU", text("X")), ("QTY", Value::Integer(-12))])),
            ]),
        ),
    ]);
    let payload = req.marshal(&values).unwrap();
    let expected = concat!(
        "+00123",          // ORDER-NO N5
        "004711",          // CUSTOMER.CUST-ID NU6: no sign position
        "Smith       ",    // CUSTOMER.NAME A12
        "202611291705093", // PLACED T
        "+00150",          // AMOUNTS[1] P3.2
        "-00025",          // AMOUNTS[2]
        "AB12+00003",      // ITEMS[1]: SKU A4, QTY I2
        "X   -00012",      // ITEMS[2]
    );
    assert_eq!(payload, expected);
    assert_eq!(req.fixed_length, 6 + 6 + 12 + 15 + 12);
    assert!(req.variable_tail);

    let back = req.unmarshal(expected).unwrap();
    // N5 comes back as a decimal with no fraction digits
    assert_eq!(
        back.get("ORDER-NO"),
        Some(&Value::Decimal(Decimal {
            unscaled: 123,
            scale: 0
        }))
    );
    let Value::List(items) = back.get("ITEMS").unwrap() else {
        panic!("ITEMS is a list")
    };
    assert_eq!(items.len(), 2);
    assert_eq!(
        items[1],
        Value::Record(record(&[("SKU", text("X")), ("QTY", Value::Integer(-12))]))
    );
}

#[test]
fn fixed_multi_dimensional_arrays_are_row_major() {
    let file = bridge_text();
    let reply = layout_of(&file, "ORDER", PayloadDirection::Reply);
    // ORDER-NO N5, DELIVERY D, GRID I1/1:2,0:1 (2 × 2), ITEMS (/V3)
    let payload = concat!("+00007", "20261201", "+001+002-003+004", "SKU1+00001");
    let back = reply.unmarshal(payload).unwrap();
    assert_eq!(
        back.get("GRID"),
        Some(&Value::List(vec![
            Value::List(vec![Value::Integer(1), Value::Integer(2)]),
            Value::List(vec![Value::Integer(-3), Value::Integer(4)]),
        ]))
    );
    assert_eq!(
        back.get("DELIVERY"),
        Some(&Value::Date(Date {
            year: 2026,
            month: 12,
            day: 1
        }))
    );
    assert_eq!(reply.marshal(&back).unwrap(), payload);
    // Absent values are written empty: zeros, blanks; missing elements too.
    let empty = reply.marshal(&Record::new()).unwrap();
    assert_eq!(empty, "+0000000000000+000+000+000+000");
}

#[test]
fn variable_text_is_the_rest_of_the_buffer() {
    let file = bridge_text();
    let put = layout_of(&file, "SENDNOTE", PayloadDirection::Request);
    // Only TEXT (AV) is payload; the MQ_* parameters are not.
    let payload = put
        .marshal(&record(&[
            ("MQ_QUEUE_NAME", text("Q")),
            ("TEXT", text("Grüße, 'quoted'  ")),
        ]))
        .unwrap();
    assert_eq!(payload, "Grüße, 'quoted'  ");
    let get = layout_of(&file, "RECVNOTE", PayloadDirection::Reply);
    assert_eq!(
        get.unmarshal("any text  ").unwrap(),
        record(&[("TEXT", text("any text  "))])
    );
    // AV200: at most 200 characters
    let err = get.unmarshal(&"x".repeat(201)).unwrap_err();
    assert_eq!(
        err.kind,
        MarshalErrorKind::TooLong {
            max: 200,
            found: 201
        }
    );
    assert_eq!(err.path, "TEXT");
}

#[test]
fn in_out_parameter_is_in_both_payloads() {
    // ECHO: no direction = IN OUT (Software AG "Software AG IDL Grammar"), so MESSAGE A10
    // is in request and reply.
    let file = bridge_text();
    let req = layout_of(&file, "ECHO", PayloadDirection::Request);
    let rep = layout_of(&file, "ECHO", PayloadDirection::Reply);
    assert_eq!(
        req.marshal(&record(&[("MESSAGE", text("hi"))])).unwrap(),
        "hi        "
    );
    // A fields come back with trailing blanks trimmed.
    assert_eq!(
        rep.unmarshal("hi        ").unwrap(),
        record(&[("MESSAGE", text("hi"))])
    );
}

#[test]
fn marshal_errors_name_the_field_and_offset() {
    let file = bridge_text();
    let req = layout_of(&file, "CALC", PayloadDirection::Request);
    let err = req
        .marshal(&record(&[("OPERATION", text("ADD"))]))
        .unwrap_err();
    assert_eq!((err.path.as_str(), err.offset), ("OPERATION", 0));
    assert_eq!(err.kind, MarshalErrorKind::TooLong { max: 1, found: 3 });
    // I4 holds a 32-bit integer
    let err = req
        .marshal(&record(&[("RIGHT", Value::Integer(1 << 31))]))
        .unwrap_err();
    assert_eq!((err.path.as_str(), err.offset), ("RIGHT", 12));
    assert!(matches!(err.kind, MarshalErrorKind::OutOfRange { .. }));
    assert_eq!(
        err.to_string(),
        "RIGHT at offset 12: 2147483648 does not fit format I4"
    );
    let err = req.marshal(&record(&[("LEFT", text("12"))])).unwrap_err();
    assert_eq!(
        err.kind,
        MarshalErrorKind::WrongType {
            expected: "an integer"
        }
    );

    let reply = layout_of(&file, "CALC", PayloadDirection::Reply);
    // N7.2: a third non-zero decimal or an eighth integer digit does not fit
    for bad in ["1.234", "12345678"] {
        let err = reply.marshal(&record(&[("RESULT", dec(bad))])).unwrap_err();
        assert!(
            matches!(err.kind, MarshalErrorKind::OutOfRange { .. }),
            "{bad}"
        );
    }
    // trailing zeros beyond the scale are fine
    assert_eq!(
        reply
            .marshal(&record(&[("RESULT", dec("1.2300"))]))
            .unwrap(),
        "+000000123 "
    );

    let order = layout_of(&file, "ORDER", PayloadDirection::Request);
    // NU6 is unsigned
    let err = order
        .marshal(&record(&[(
            "CUSTOMER",
            Value::Record(record(&[("CUST-ID", dec("-1"))])),
        )]))
        .unwrap_err();
    assert_eq!((err.path.as_str(), err.offset), ("CUSTOMER.CUST-ID", 6));
    // P3.2/2 holds two elements; ITEMS (/V3) at most three
    let err = order
        .marshal(&record(&[("AMOUNTS", Value::List(vec![dec("1"); 3]))]))
        .unwrap_err();
    assert_eq!(
        err.kind,
        MarshalErrorKind::TooManyElements { max: 2, found: 3 }
    );
    let item = Value::Record(record(&[("SKU", text("A"))]));
    let err = order
        .marshal(&record(&[("ITEMS", Value::List(vec![item; 4]))]))
        .unwrap_err();
    assert_eq!(
        err.kind,
        MarshalErrorKind::TooManyElements { max: 3, found: 4 }
    );
    // invalid date
    let err = order
        .marshal(&record(&[(
            "PLACED",
            Value::Time(Timestamp {
                date: Date {
                    year: 2023,
                    month: 2,
                    day: 30,
                },
                hour: 0,
                minute: 0,
                second: 0,
                tenths: 0,
            }),
        )]))
        .unwrap_err();
    assert_eq!((err.path.as_str(), err.offset), ("PLACED", 24));
}

#[test]
fn unmarshal_errors_name_the_field_and_offset() {
    let file = bridge_text();
    let reply = layout_of(&file, "CALC", PayloadDirection::Reply);
    // payload ends inside RESULT
    let err = reply.unmarshal("+0000").unwrap_err();
    assert_eq!(
        (err.path.as_str(), err.offset, err.kind),
        (
            "RESULT",
            0,
            MarshalErrorKind::ShortPayload {
                needed: 10,
                left: 5
            }
        )
    );
    // characters after the last fixed value
    let err = reply.unmarshal("+000003500XYZ").unwrap_err();
    assert_eq!(err.kind, MarshalErrorKind::TrailingData { left: 2 });
    assert_eq!(err.offset, 11);
    // a letter in a number; a missing sign
    let err = reply.unmarshal("+00000A500X").unwrap_err();
    assert_eq!(err.path, "RESULT");
    assert!(matches!(err.kind, MarshalErrorKind::BadText { .. }));
    assert!(reply.unmarshal(" 000003500X").is_err());
    // I1 holds -128..127 even though its text has room for 999 (sign + 3 digits)
    let grid = layout_of(&file, "ORDER", PayloadDirection::Reply);
    let err = grid
        .unmarshal("+0000720261201+001+200-003+004")
        .unwrap_err();
    assert_eq!((err.path.as_str(), err.offset), ("GRID[1][2]", 18));
    assert_eq!(
        err.kind,
        MarshalErrorKind::OutOfRange {
            value: "200".into(),
            format: "I1".into()
        }
    );
    // unbounded tail: whole elements only (10 characters each)
    let order = layout_of(&file, "ORDER", PayloadDirection::Reply);
    let err = order
        .unmarshal("+0000720261201+001+002-003+004SKU1+0000")
        .unwrap_err();
    assert_eq!(
        (err.path.as_str(), err.offset, err.kind),
        (
            "ITEMS",
            30,
            MarshalErrorKind::PartialElement {
                element_length: 10,
                left: 9
            }
        )
    );
    // invalid month in D
    let err = order
        .unmarshal("+0000720261301+001+002-003+004")
        .unwrap_err();
    assert_eq!((err.path.as_str(), err.offset), ("DELIVERY", 6));
}

#[test]
fn payloads_without_a_text_layout_are_refused() {
    const HEAD: &str = "Library 'L' Is Program 'P' Is Define Data Parameter\n";
    // B/F types have no confirmed text mapping (docs/rpc.md "Text payload").
    let err = layout_error(
        &format!("{HEAD}1 A (A1) In\n1 X (F8) In\nEnd-Define"),
        PayloadDirection::Request,
    );
    assert_eq!(err.path, "X");
    assert_eq!(err.position.line, 3);
    assert!(
        err.reason
            .contains("format F8 has no confirmed text layout"),
        "{err}"
    );
    // EntireX "Mapping RPC Data to the MQ Message Buffer": AV only as the last value
    let err = layout_error(
        &format!("{HEAD}1 A (AV) In\n1 B (A1) In\nEnd-Define"),
        PayloadDirection::Request,
    );
    assert_eq!(err.path, "A");
    assert!(err.reason.contains("must be the last value"), "{err}");
    // ... but an OUT parameter after it does not count for the request
    let file = parse(&format!("{HEAD}1 A (AV) In\n1 B (A1) Out\nEnd-Define")).unwrap();
    let lib = &file.libraries[0];
    assert!(TextLayout::for_program(&lib.programs[0], lib, PayloadDirection::Request).is_ok());
    // AV inside a struct that is not last
    let err = layout_error(
        "Library 'L' Is Struct 'S' Is Define Data Parameter 1 V (AV) End-Define\n\
         Program 'P' Is Define Data Parameter\n1 R ('S') In\n1 B (A1) In\nEnd-Define",
        PayloadDirection::Request,
    );
    assert_eq!(err.path, "R.V");
    // unbounded arrays: one dimension, at the end
    let err = layout_error(
        &format!("{HEAD}1 A (A5/V,V) In\nEnd-Define"),
        PayloadDirection::Request,
    );
    assert!(err.reason.contains("more than one dimension"), "{err}");
    let err = layout_error(
        &format!("{HEAD}1 A (A5/V) In\n1 B (A1) In\nEnd-Define"),
        PayloadDirection::Request,
    );
    assert!(
        err.reason.contains("unbounded array must be the last"),
        "{err}"
    );
    // AV elements in a fixed array
    let err = layout_error(
        &format!("{HEAD}1 A (AV10/2) In\nEnd-Define"),
        PayloadDirection::Request,
    );
    assert!(err.reason.contains("must be the last value"), "{err}");
    // a payload above MQ's 100 MiB message length
    let err = layout_error(
        &format!("{HEAD}1 A (A1000000/200) In\nEnd-Define"),
        PayloadDirection::Request,
    );
    assert!(
        err.reason.contains("payload longer than 104857600"),
        "{err}"
    );
}

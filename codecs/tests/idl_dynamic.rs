//! Dynamic parameters (Software AG EntireX "EntireX WebSphere MQ RPC Server", "Dynamic
//! IDL/RPC Parameters") and the MQ_CORREL_ID hex rules (mqgate's, docs/rpc.md "Dynamic
//! parameters").

use mqgate_codecs::idl::{
    CorrelIdError, DynamicKind, DynamicParams, IdlFile, ReceivedMessage, Record, Value,
    WaitInterval, correl_id_from_hex, correl_id_to_hex, dynamic::classify, parse,
};
use mqgate_codecs::mq::Mqrc;

fn bridge_text() -> IdlFile {
    let path = format!(
        "{}/../fixtures/idl/valid/bridge-text.idl",
        env!("CARGO_MANIFEST_DIR")
    );
    parse(&std::fs::read_to_string(path).unwrap()).unwrap()
}

fn dynamic_of(file: &IdlFile, program: &str) -> DynamicParams {
    let lib = &file.libraries[0];
    DynamicParams::of_program(lib.program(program).unwrap(), lib).unwrap()
}

fn text(s: &str) -> Value {
    Value::Text(s.to_string())
}

#[test]
fn short_correl_id_is_zero_padded_to_24_bytes() {
    // docs/rpc.md: `0102030405` sets CorrelId 0102030405 followed by 19 zero bytes.
    let id = correl_id_from_hex("0102030405").unwrap().unwrap();
    let mut expected = [0u8; 24];
    expected[..5].copy_from_slice(&[1, 2, 3, 4, 5]);
    assert_eq!(id, expected);
    // The same value in an A48 field: trailing blanks are trimmed (docs/rpc.md).
    let a48 = format!("{:<48}", "0102030405");
    assert_eq!(correl_id_from_hex(&a48).unwrap(), Some(expected));
}

#[test]
fn upper_and_lower_case_hex_give_the_same_bytes() {
    // `ABCDEF…` and `abcdef…` set the same bytes (docs/rpc.md: input in either case).
    let upper = "ABCDEF0123456789ABCDEF0123456789ABCDEF0123456789";
    let lower = "abcdef0123456789abcdef0123456789abcdef0123456789";
    let a = correl_id_from_hex(upper).unwrap().unwrap();
    let b = correl_id_from_hex(lower).unwrap().unwrap();
    assert_eq!(a, b);
    assert_eq!(&a[..4], &[0xAB, 0xCD, 0xEF, 0x01]);
    assert_eq!(a[23], 0x89);
}

#[test]
fn ids_with_zero_bytes_come_back_as_the_same_48_upper_case_hex() {
    // A MsgId/CorrelId with 0x00 bytes inside comes back as the same 48 hex characters;
    // docs/rpc.md: output is upper case.
    let mut id = [0u8; 24];
    id[1] = 0xab;
    id[5] = 0x7f;
    id[23] = 0x01;
    let hex = correl_id_to_hex(&id);
    assert_eq!(hex, "00AB0000007F000000000000000000000000000000000001");
    assert_eq!(hex.len(), 48);
    assert_eq!(correl_id_from_hex(&hex).unwrap(), Some(id));
    let lower = hex.to_lowercase();
    assert_eq!(
        correl_id_to_hex(&correl_id_from_hex(&lower).unwrap().unwrap()),
        hex
    );
}

#[test]
fn correl_id_input_errors() {
    // docs/rpc.md: odd digit count or non-hex → RPC error (no put); all blanks → absent.
    assert_eq!(correl_id_from_hex(&" ".repeat(48)), Ok(None));
    assert_eq!(correl_id_from_hex(""), Ok(None));
    assert_eq!(
        correl_id_from_hex("012"),
        Err(CorrelIdError::OddDigits { digits: 3 })
    );
    assert_eq!(
        correl_id_from_hex("01G2"),
        Err(CorrelIdError::NotHex {
            offset: 2,
            found: 'G'
        })
    );
    assert_eq!(
        correl_id_from_hex(" 0102"),
        Err(CorrelIdError::NotHex {
            offset: 0,
            found: ' '
        })
    );
    assert_eq!(
        correl_id_from_hex(&"0".repeat(50)),
        Err(CorrelIdError::TooLong { digits: 50 })
    );
}

#[test]
fn classify_names() {
    // EntireX "Dynamic IDL/RPC Parameters": fixed names; MQ_RFH_<name> keeps the pair
    // name.
    assert_eq!(classify("MQ_QUEUE_NAME"), Some(DynamicKind::QueueName));
    assert_eq!(classify("mq_correl_id"), Some(DynamicKind::CorrelId));
    assert_eq!(classify("MQ_REPLY_QUEUE"), Some(DynamicKind::ReplyQueue));
    assert_eq!(
        classify("MQ_WAIT_INTERVAL"),
        Some(DynamicKind::WaitInterval)
    );
    assert_eq!(
        classify("MQ_RFH_Region"),
        Some(DynamicKind::Rfh("Region".into()))
    );
    assert_eq!(classify("MQ_QUEUE"), None);
    assert_eq!(classify("ORDER-ID"), None);
}

#[test]
fn inputs_of_a_put() {
    let file = bridge_text();
    let d = dynamic_of(&file, "SENDNOTE");
    assert!(d.has_rfh());
    let mut values = Record::new();
    values.set("MQ_QUEUE_NAME", text(&format!("{:<48}", "ORDERS.IN")));
    values.set("MQ_REPLY_QUEUE", text("REPLIES"));
    // EntireX "Support for the MQRFH Header": MQ_RFH_H1 = v1, MQ_RFH_H2 = v2 → pairs `H1
    // v1` and `H2 v2`.
    values.set("MQ_RFH_H1", text("v1      "));
    values.set("MQ_RFH_H2", text("v2"));
    values.set("TEXT", text("hello"));
    let inputs = d.inputs(&values).unwrap();
    assert_eq!(inputs.queue_name.as_deref(), Some("ORDERS.IN"));
    assert_eq!(inputs.reply_queue.as_deref(), Some("REPLIES"));
    // MQ_CORREL_ID is OUT in SENDNOTE: not an input, MQ generates one.
    assert_eq!(inputs.correl_id, None);
    assert_eq!(
        inputs.rfh_pairs,
        [
            ("H1".to_string(), "v1".to_string()),
            ("H2".to_string(), "v2".to_string())
        ]
    );
    // A blank queue name is absent: the default queue applies.
    values.set("MQ_QUEUE_NAME", text(&" ".repeat(48)));
    assert_eq!(d.inputs(&values).unwrap().queue_name, None);
    // 49 characters do not fit MQ's 48.
    values.set("MQ_QUEUE_NAME", text(&"Q".repeat(49)));
    let err = d.inputs(&values).unwrap_err();
    assert_eq!(err.name, "MQ_QUEUE_NAME");
    // 2152 MQRC_OBJECT_NAME_ERROR, as MQ answers a name its rules refuse
    // (IBM MQ "Rules for naming IBM MQ objects"; docs/rpc.md "Errors").
    assert_eq!(err.mqrc, Some(Mqrc::OBJECT_NAME_ERROR));
    assert_eq!(
        err.to_string(),
        "dynamic parameter MQ_QUEUE_NAME: queue name longer than 48 characters (MQRC 2152)"
    );
}

#[test]
fn inputs_of_a_get_by_correl_id_and_wait_interval() {
    let file = bridge_text();
    let d = dynamic_of(&file, "RECVNOTE");
    let mut values = Record::new();
    values.set("MQ_CORREL_ID", text("0102030405"));
    values.set("MQ_WAIT_INTERVAL", text("5000      "));
    let inputs = d.inputs(&values).unwrap();
    let mut expected = [0u8; 24];
    expected[..5].copy_from_slice(&[1, 2, 3, 4, 5]);
    assert_eq!(inputs.correl_id, Some(expected));
    // Milliseconds (EntireX); -1 unlimited (MQWI_UNLIMITED), other negatives → 2090 (IBM
    // MQ "WaitInterval (MQLONG)").
    assert_eq!(inputs.wait_interval, Some(WaitInterval::Millis(5000)));
    values.set("MQ_WAIT_INTERVAL", text("-1"));
    assert_eq!(
        d.inputs(&values).unwrap().wait_interval,
        Some(WaitInterval::Unlimited)
    );
    assert_eq!(WaitInterval::Unlimited.to_mq(), -1);
    values.set("MQ_WAIT_INTERVAL", text("-2"));
    assert_eq!(
        d.inputs(&values).unwrap_err().mqrc,
        Some(Mqrc::WAIT_INTERVAL_ERROR)
    );
    values.set("MQ_WAIT_INTERVAL", text("soon"));
    assert_eq!(d.inputs(&values).unwrap_err().mqrc, Some(Mqrc(2090)));
    // Above MQLONG (IBM MQ "WaitInterval (MQLONG)": at most 2147483647 ms):
    // 2090, and the message says the real range.
    values.set("MQ_WAIT_INTERVAL", text("99999999999"));
    let err = d.inputs(&values).unwrap_err();
    assert_eq!(err.mqrc, Some(Mqrc(2090)));
    assert!(
        err.to_string()
            .contains("99999999999 ms: expected 0 to 2147483647 ms (MQLONG), or -1 for unlimited"),
        "{err}"
    );
    values.set("MQ_WAIT_INTERVAL", text("100"));
    values.set("MQ_CORREL_ID", text("XYZ"));
    let err = d.inputs(&values).unwrap_err();
    // 2207 MQRC_CORREL_ID_ERROR (IBM MQ "API reason codes"; docs/rpc.md "Errors").
    assert_eq!(err.mqrc, Some(Mqrc::CORREL_ID_ERROR));
    assert_eq!(
        err.to_string(),
        "dynamic parameter MQ_CORREL_ID: MQ_CORREL_ID character 'X' at offset 0 is not a hex digit (MQRC 2207)"
    );
}

#[test]
fn wait_interval_as_i4() {
    // mqgate also accepts MQ_WAIT_INTERVAL as I4 (docs/rpc.md; ORDER in bridge-text.idl).
    let file = bridge_text();
    let d = dynamic_of(&file, "ORDER");
    let mut values = Record::new();
    values.set("MQ_WAIT_INTERVAL", Value::Integer(250));
    assert_eq!(
        d.inputs(&values).unwrap().wait_interval,
        Some(WaitInterval::Millis(250))
    );
}

#[test]
fn outputs_from_a_received_message() {
    let file = bridge_text();
    // EntireX "Support for the MQRFH Header": received MQRFH with `H1 v11` and `H3 v22` →
    // MQ_RFH_H1 = v11, MQ_RFH_H2 gets no value, H3 is ignored.
    let d = dynamic_of(&file, "RECVNOTE");
    let received = ReceivedMessage {
        correl_id: [0; 24],
        reply_to_q: "REPLIES".into(),
        rfh_pairs: vec![("H1".into(), "v11".into()), ("H3".into(), "v22".into())],
    };
    let out = d.outputs(&received);
    assert_eq!(out.0, vec![("MQ_RFH_H1".to_string(), text("v11"))]);
    // SENDNOTE returns the CorrelId of the put as 48 hex digits (docs/rpc.md).
    let d = dynamic_of(&file, "SENDNOTE");
    let mut id = [0u8; 24];
    id[0] = 0x41;
    id[2] = 0xfe;
    let out = d.outputs(&ReceivedMessage {
        correl_id: id,
        ..Default::default()
    });
    assert_eq!(
        out.get("MQ_CORREL_ID"),
        Some(&text("4100FE000000000000000000000000000000000000000000"))
    );
}

#[test]
fn dynamic_rule_errors_carry_line_and_column() {
    // EntireX "Dynamic IDL/RPC Parameters": level 1 only, before any variable-length
    // parameter, fixed formats; MQ_QUEUE_NAME and MQ_WAIT_INTERVAL are IN only.
    let text = "Library 'L' Is\n\
                Struct 'S' Is Define Data Parameter 1 V (AV) End-Define\n\
                Program 'P' Is Define Data Parameter\n\
                1 MQ_WAIT_INTERVAL (A8) Out\n\
                1 MQ_RFH_ (A8) In\n\
                1 MQ_RFH_X (A8/2) In\n\
                1 MQ_REPLY_QUEUE (AV48) In\n\
                1 R ('S') In\n\
                1 MQ_QUEUE_NAME (A48) In\n\
                End-Define\n";
    let errors = parse(text).unwrap_err();
    let got: Vec<String> = errors.0.iter().map(|e| e.to_string()).collect();
    assert_eq!(
        got,
        [
            "line 4, column 1: dynamic parameter MQ_WAIT_INTERVAL: is an IN parameter only, found OUT",
            "line 5, column 1: dynamic parameter MQ_RFH_: expected a pair name after MQ_RFH_",
            "line 6, column 1: dynamic parameter MQ_RFH_X: must not be an array",
            "line 7, column 1: dynamic parameter MQ_REPLY_QUEUE: expected format A48, found AV48",
            // R is a struct holding AV: it is variable-length itself.
            "line 9, column 1: dynamic parameter MQ_QUEUE_NAME: must come before any variable-length parameter, but follows 'R' (line 8)",
        ]
    );
    // Switched off, the same file parses (the rules are the bridge's, not IDL's).
    let options = mqgate_codecs::idl::ParseOptions {
        dynamic_parameters: false,
        ..Default::default()
    };
    assert!(mqgate_codecs::idl::parse_with(text, &options).is_ok());
}

//! Rendezvous messages: the type numbers, mqgate's binary form (a hand-built
//! envelope, round trips, every kind of bad input with its exact error) and
//! the datetime text.
//!
//! Type numbers come from TIBCO's public C header `tibrv/msg.h` as its public
//! copies give them (arienchen/pytibrv `pytibrv/types.py`, Perl Tibco::Rv
//! `Msg.pm`, raitechnology/sassrv `rv7api.h`); status numbers from
//! `tibrv/status.h` (pytibrv `pytibrv/status.py`). The binary layout and the
//! status of each error are mqgate's, from docs/rendezvous.md "Messages".

use std::net::Ipv4Addr;

use mqgate_codecs::rv::datetime::{DateTime, DateTimeTextErrorKind};
use mqgate_codecs::rv::field::*;
use mqgate_codecs::rv::msg::{CmLabels, Envelope, Field, Limits, Message, Value};
use mqgate_codecs::rv::msg_error::{
    EnvelopeItem, FieldPath, PathSegment, RvMsgError, RvMsgErrorKind, TextProblem,
};
use mqgate_codecs::rv::status::TibrvStatus;

#[test]
fn type_numbers_of_tibrv_msg_h() {
    // pytibrv/types.py, Tibco::Rv Msg.pm and sassrv rv7api.h all give these.
    let expected: [(u8, u8, &str); 34] = [
        (TIBRVMSG_MSG, 1, "TIBRVMSG_MSG"),
        (TIBRVMSG_DATETIME, 3, "TIBRVMSG_DATETIME"),
        (TIBRVMSG_OPAQUE, 7, "TIBRVMSG_OPAQUE"),
        (TIBRVMSG_STRING, 8, "TIBRVMSG_STRING"),
        (TIBRVMSG_BOOL, 9, "TIBRVMSG_BOOL"),
        (TIBRVMSG_I8, 14, "TIBRVMSG_I8"),
        (TIBRVMSG_U8, 15, "TIBRVMSG_U8"),
        (TIBRVMSG_I16, 16, "TIBRVMSG_I16"),
        (TIBRVMSG_U16, 17, "TIBRVMSG_U16"),
        (TIBRVMSG_I32, 18, "TIBRVMSG_I32"),
        (TIBRVMSG_U32, 19, "TIBRVMSG_U32"),
        (TIBRVMSG_I64, 20, "TIBRVMSG_I64"),
        (TIBRVMSG_U64, 21, "TIBRVMSG_U64"),
        (TIBRVMSG_NONE, 22, "TIBRVMSG_NONE"),
        (TIBRVMSG_F32, 24, "TIBRVMSG_F32"),
        (TIBRVMSG_F64, 25, "TIBRVMSG_F64"),
        (TIBRVMSG_IPPORT16, 26, "TIBRVMSG_IPPORT16"),
        (TIBRVMSG_IPADDR32, 27, "TIBRVMSG_IPADDR32"),
        (TIBRVMSG_ENCRYPTED, 32, "TIBRVMSG_ENCRYPTED"),
        (TIBRVMSG_I8ARRAY, 34, "TIBRVMSG_I8ARRAY"),
        (TIBRVMSG_U8ARRAY, 35, "TIBRVMSG_U8ARRAY"),
        (TIBRVMSG_I16ARRAY, 36, "TIBRVMSG_I16ARRAY"),
        (TIBRVMSG_U16ARRAY, 37, "TIBRVMSG_U16ARRAY"),
        (TIBRVMSG_I32ARRAY, 38, "TIBRVMSG_I32ARRAY"),
        (TIBRVMSG_U32ARRAY, 39, "TIBRVMSG_U32ARRAY"),
        (TIBRVMSG_I64ARRAY, 40, "TIBRVMSG_I64ARRAY"),
        (TIBRVMSG_U64ARRAY, 41, "TIBRVMSG_U64ARRAY"),
        (TIBRVMSG_F32ARRAY, 44, "TIBRVMSG_F32ARRAY"),
        (TIBRVMSG_F64ARRAY, 45, "TIBRVMSG_F64ARRAY"),
        (TIBRVMSG_XML, 47, "TIBRVMSG_XML"),
        (TIBRVMSG_STRINGARRAY, 48, "TIBRVMSG_STRINGARRAY"),
        (TIBRVMSG_MSGARRAY, 49, "TIBRVMSG_MSGARRAY"),
        (TIBRVMSG_USER_FIRST, 128, "TIBRVMSG_USER_FIRST"),
        (TIBRVMSG_USER_LAST, 255, "TIBRVMSG_USER_LAST"),
    ];
    for (constant, number, name) in expected {
        assert_eq!(constant, number, "{name}");
        match FieldType::from_code(number) {
            Ok(FieldType::User(c)) => assert_eq!(c, number, "{name}"),
            Ok(t) => {
                assert_eq!(t.c_name(), Some(name));
                assert_eq!(t.code(), number);
            }
            Err(e) => assert_eq!(e, TypeCodeError::NotCarried(number), "{name}"),
        }
    }
    // TIBRVMSG_FIELDNAME_MAX 127 (pytibrv/types.py; Java Reference
    // "TibrvMsg.addField()": the longest field name is 127 bytes).
    assert_eq!(TIBRVMSG_FIELDNAME_MAX, 127);
    // "Wire Format Datatypes" lists 30 types: 5 special (msg, datetime,
    // opaque, string, xml), 13 scalar and 12 array types. Each reads back
    // from its short name.
    assert_eq!(FieldType::defined().count(), 30);
    for t in FieldType::defined() {
        assert_eq!(FieldType::from_name(&t.name()), Some(t));
        assert_eq!(
            t.name(),
            t.c_name()
                .unwrap()
                .trim_start_matches("TIBRVMSG_")
                .to_lowercase()
        );
    }
}

#[test]
fn every_type_number_is_classified() {
    // Undefined numbers below 128 are unknown; 128-255 are program-defined
    // (C Reference "tibrvMsg_SetHandlers").
    let defined: Vec<u8> = FieldType::defined().map(FieldType::code).collect();
    for code in 0..=255u8 {
        let got = FieldType::from_code(code);
        if code >= 128 {
            assert_eq!(got, Ok(FieldType::User(code)));
            assert_eq!(FieldType::from_name(&format!("user{code}")), got.ok());
        } else if defined.contains(&code) {
            assert_eq!(got.map(FieldType::code), Ok(code));
        } else if code == 22 || code == 32 {
            assert_eq!(got, Err(TypeCodeError::NotCarried(code)));
        } else {
            assert_eq!(got, Err(TypeCodeError::Unknown(code)));
        }
    }
    for bad in [
        "user127", "user256", "user0128", "user+130", "F64", "f64 ", "",
    ] {
        assert_eq!(FieldType::from_name(bad), None, "{bad:?}");
    }
}

#[test]
fn status_numbers_of_tibrv_status_h() {
    // pytibrv/status.py (a copy of tibrv/status.h).
    for (s, n, name) in [
        (TibrvStatus::INVALID_ARG, 3, "TIBRV_INVALID_ARG"),
        (TibrvStatus::INVALID_SUBJECT, 20, "TIBRV_INVALID_SUBJECT"),
        (TibrvStatus::VERSION_MISMATCH, 22, "TIBRV_VERSION_MISMATCH"),
        (TibrvStatus::INVALID_NAME, 30, "TIBRV_INVALID_NAME"),
        (TibrvStatus::INVALID_TYPE, 31, "TIBRV_INVALID_TYPE"),
        (TibrvStatus::INVALID_SIZE, 32, "TIBRV_INVALID_SIZE"),
        (TibrvStatus::OK, 0, "TIBRV_OK"),
        (TibrvStatus::ID_IN_USE, 36, "TIBRV_ID_IN_USE"),
        (
            TibrvStatus::CONVERSION_FAILED,
            38,
            "TIBRV_CONVERSION_FAILED",
        ),
        (TibrvStatus::INVALID_MSG, 42, "TIBRV_INVALID_MSG"),
        (TibrvStatus::INVALID_FIELD, 43, "TIBRV_INVALID_FIELD"),
        (TibrvStatus::CORRUPT_MSG, 45, "TIBRV_CORRUPT_MSG"),
    ] {
        assert_eq!(s.0, n);
        assert_eq!(s.name(), Some(name));
    }
}

/// The envelope of docs/rendezvous.md "Messages", byte by byte.
#[rustfmt::skip]
const EXAMPLE: [u8; 109] = [
    b'R', b'V', b'M', b' ',          //   0 StrucId
    0x01,                            //   4 version 1
    0x03,                            //   5 flags: reply subject, CM labels
    0x00, 0x00, 0x00, 0x6D,          //   6 length 109
    0x09, b'Q', b'U', b'O', b'T', b'E', b'.', b'I', b'B', b'M', // 10 subject
    0x08, b'_', b'I', b'N', b'B', b'O', b'X', b'.', b'1',       // 20 reply subject
    0x06, b'P', b'R', b'I', b'C', b'E', b'R',                   // 29 CM sender
    0, 0, 0, 0, 0, 0, 0, 7,          //  36 sequence 7
    0x40, 0x4E, 0, 0, 0, 0, 0, 0,    //  44 time limit 60.0
    25, 0x00, 0x01,                  //  52 field 0: TIBRVMSG_F64, id 1
    0x05, b'p', b'r', b'i', b'c', b'e', // 55 name "price"
    0x00, 0x00, 0x00, 0x08,          //  61 value length 8
    0x40, 0x59, 0x50, 0, 0, 0, 0, 0, //  65 101.25
    8, 0x00, 0x00,                   //  73 field 1: TIBRVMSG_STRING, no id
    0xFF,                            //  76 NULL name
    0x00, 0x00, 0x00, 0x02,          //  77 value length 2
    b'o', b'k',                      //  81 "ok"
    1, 0x00, 0x00,                   //  83 field 2: TIBRVMSG_MSG
    0x05, b'q', b'u', b'o', b't', b'e', // 86 name "quote"
    0x00, 0x00, 0x00, 0x0D,          //  92 value length 13
    9, 0x00, 0x00,                   //  96 nested field: TIBRVMSG_BOOL
    0x04, b'f', b'i', b'r', b'm',    //  99 name "firm"
    0x00, 0x00, 0x00, 0x01,          // 104 value length 1
    0x01,                            // 108 true
];

fn example() -> Envelope {
    Envelope {
        subject: "QUOTE.IBM".into(),
        reply_subject: Some("_INBOX.1".into()),
        cm: Some(CmLabels {
            sender: "PRICER".into(),
            sequence: 7,
            time_limit: 60.0,
        }),
        message: Message::new(vec![
            Field {
                name: Some("price".into()),
                id: 1,
                value: Value::F64(101.25),
            },
            Field {
                name: None,
                id: 0,
                value: Value::String("ok".into()),
            },
            Field::new(
                "quote",
                Value::Msg(Message::new(vec![Field::new("firm", Value::Bool(true))])),
            ),
        ]),
    }
}

fn decode(b: &[u8]) -> Result<Envelope, RvMsgError> {
    Envelope::decode(b, &Limits::default())
}

fn path(s: &[PathSegment]) -> FieldPath {
    FieldPath(s.to_vec())
}

fn name(s: &str) -> PathSegment {
    PathSegment::Name(s.into())
}

#[test]
fn hand_built_envelope_reads_and_writes_back() {
    let env = decode(&EXAMPLE).unwrap();
    assert_eq!(env, example());
    assert_eq!(env.encode(&Limits::default()).unwrap(), EXAMPLE);
    assert_eq!(env.encoded_len(), 109);
    assert_eq!(env.message.get("quote").map(|f| f.id), Some(0));
    assert_eq!(
        env.message.get_by_id(1).map(|f| f.field_type()),
        Some(FieldType::F64)
    );
}

fn err(offset: usize, p: &[PathSegment], kind: RvMsgErrorKind) -> RvMsgError {
    RvMsgError {
        offset,
        path: path(p),
        kind,
    }
}

/// EXAMPLE with `patch` applied at `at` (same length).
fn patched(at: usize, patch: &[u8]) -> Vec<u8> {
    let mut b = EXAMPLE.to_vec();
    b[at..at + patch.len()].copy_from_slice(patch);
    b
}

#[test]
fn header_errors() {
    use RvMsgErrorKind::*;
    assert_eq!(
        decode(&[]),
        Err(err(
            0,
            &[],
            Truncated {
                needed: 10,
                available: 0
            }
        ))
    );
    assert_eq!(
        decode(&EXAMPLE[..9]),
        Err(err(
            0,
            &[],
            Truncated {
                needed: 10,
                available: 9
            }
        ))
    );
    // Cut anywhere after the header: the length says 109.
    assert_eq!(
        decode(&EXAMPLE[..100]),
        Err(err(
            0,
            &[],
            Truncated {
                needed: 109,
                available: 100
            }
        ))
    );
    let mut long = EXAMPLE.to_vec();
    long.push(0);
    assert_eq!(
        decode(&long),
        Err(err(
            109,
            &[],
            TrailingBytes {
                length: 109,
                input: 110
            }
        ))
    );
    assert_eq!(
        decode(&patched(0, b"RVX ")),
        Err(err(0, &[], BadStrucId(*b"RVX ")))
    );
    let e = decode(&patched(4, &[2])).unwrap_err();
    assert_eq!(e, err(4, &[], UnsupportedVersion(2)));
    assert_eq!(e.status(), TibrvStatus::VERSION_MISMATCH);
    assert_eq!(
        decode(&patched(5, &[0x07])),
        Err(err(5, &[], ReservedFlags(7)))
    );
    // The length ends the envelope inside the CM labels (at 40 of 52): the
    // envelope is too short from its start.
    let mut cut = EXAMPLE[..40].to_vec();
    cut[9] = 40;
    assert_eq!(
        decode(&cut),
        Err(err(
            0,
            &[],
            Truncated {
                needed: 44,
                available: 40
            }
        ))
    );
    // A length below the header's own ten bytes.
    assert_eq!(
        decode(&patched(6, &[0, 0, 0, 4])),
        Err(err(
            0,
            &[],
            Truncated {
                needed: 10,
                available: 4
            }
        ))
    );
}

#[test]
fn oversize_is_refused_before_reading_on() {
    let limits = Limits {
        max_bytes: 108,
        ..Limits::default()
    };
    let want = err(
        0,
        &[],
        RvMsgErrorKind::TooLarge {
            size: 109,
            max: 108,
        },
    );
    assert_eq!(Envelope::decode(&EXAMPLE, &limits), Err(want.clone()));
    assert_eq!(example().encode(&limits), Err(want.clone()));
    assert_eq!(want.status(), TibrvStatus::INVALID_SIZE);
    // A 4 GiB length in ten bytes is refused by the limit, not read.
    let mut huge = EXAMPLE[..10].to_vec();
    huge[6..10].copy_from_slice(&[0xFF; 4]);
    assert_eq!(
        decode(&huge),
        Err(err(
            0,
            &[],
            RvMsgErrorKind::TooLarge {
                size: 0xFFFF_FFFF,
                max: Limits::DEFAULT_MAX_BYTES
            }
        ))
    );
}

#[test]
fn nesting_and_field_count_limits() {
    let shallow = Limits {
        max_depth: 1,
        ..Limits::default()
    };
    // Field 2 ("quote", offset 83) holds a nested message: level 2.
    let want = err(83, &[name("quote")], RvMsgErrorKind::TooDeep { max: 1 });
    assert_eq!(Envelope::decode(&EXAMPLE, &shallow), Err(want.clone()));
    assert_eq!(example().encode(&shallow), Err(want.clone()));
    assert_eq!(want.status(), TibrvStatus::INVALID_MSG);
    assert_eq!(
        want.to_string(),
        "Rendezvous message at offset 83, field quote: messages nested deeper than 1 levels (42 TIBRV_INVALID_MSG)"
    );

    let few = Limits {
        max_fields: 3,
        ..Limits::default()
    };
    // The fourth field is "firm" inside "quote", at offset 96.
    let want = err(
        96,
        &[name("quote"), name("firm")],
        RvMsgErrorKind::TooManyFields { max: 3 },
    );
    assert_eq!(Envelope::decode(&EXAMPLE, &few), Err(want.clone()));
    assert_eq!(example().encode(&few), Err(want));
}

#[test]
fn deep_nesting_from_outside_stops_at_the_limit() {
    // 1000 nested TIBRVMSG_MSG fields, each with a NULL name: only the
    // limit's levels are read (no stack exhaustion).
    let levels = 1000usize;
    let mut body: Vec<u8> = Vec::new();
    for _ in 0..levels {
        let mut f = vec![TIBRVMSG_MSG, 0, 0, 0xFF];
        f.extend_from_slice(&(body.len() as u32).to_be_bytes());
        f.extend_from_slice(&body);
        body = f;
    }
    let mut b = b"RVM \x01\x00\0\0\0\0\x01S".to_vec();
    b.extend_from_slice(&body);
    let len = b.len() as u32;
    b[6..10].copy_from_slice(&len.to_be_bytes());
    let e = decode(&b).unwrap_err();
    // Level 16's field is the 16th; each field header is 8 bytes.
    assert_eq!(e.kind, RvMsgErrorKind::TooDeep { max: 16 });
    assert_eq!(e.offset, 12 + 15 * 8);
    assert_eq!(e.path.0.len(), 16);
    assert_eq!(e.path.to_string(), ["#0"; 16].join("."));
}

#[test]
fn field_errors_name_the_field() {
    use RvMsgErrorKind::*;
    // Type 50 is not defined; 22 and 32 are not carried.
    let e = decode(&patched(83, &[50])).unwrap_err();
    assert_eq!(
        e,
        err(83, &[name("quote")], BadType(TypeCodeError::Unknown(50)))
    );
    assert_eq!(e.status(), TibrvStatus::INVALID_TYPE);
    assert_eq!(
        decode(&patched(52, &[32])),
        Err(err(
            52,
            &[name("price")],
            BadType(TypeCodeError::NotCarried(32))
        ))
    );
    // A 3-byte value cannot be an f64: change "price" to TIBRVMSG_I16 (2
    // bytes expected, 8 given).
    assert_eq!(
        decode(&patched(52, &[TIBRVMSG_I16])),
        Err(err(
            52,
            &[name("price")],
            BadSize {
                field_type: FieldType::I16,
                size: 8
            }
        ))
    );
    // 8 bytes are no u16 array of... they are: 4 elements. 2 bytes ("ok")
    // are no i32 array.
    assert_eq!(
        decode(&patched(73, &[TIBRVMSG_I32ARRAY])),
        Err(err(
            73,
            &[PathSegment::Position(1)],
            BadSize {
                field_type: FieldType::I32Array,
                size: 2
            }
        ))
    );
    // Bool byte 2.
    let e = decode(&patched(108, &[2])).unwrap_err();
    assert_eq!(e, err(108, &[name("quote"), name("firm")], BadBool(2)));
    assert_eq!(e.status(), TibrvStatus::INVALID_FIELD);
    // Invalid UTF-8 and a NUL in the string "ok".
    let e = decode(&patched(82, &[0xC3])).unwrap_err();
    assert_eq!(
        e,
        err(
            82,
            &[PathSegment::Position(1)],
            BadString(TextProblem::NotUtf8 { valid_up_to: 1 })
        )
    );
    assert_eq!(e.status(), TibrvStatus::CONVERSION_FAILED);
    assert_eq!(
        decode(&patched(81, &[0])),
        Err(err(
            81,
            &[PathSegment::Position(1)],
            BadString(TextProblem::Nul { at: 0 })
        ))
    );
    // Field name with a NUL, and a name length of 128.
    assert_eq!(
        decode(&patched(57, &[0])),
        Err(err(
            57,
            &[PathSegment::Position(0)],
            BadName(TextProblem::Nul { at: 1 })
        ))
    );
    let e = decode(&patched(55, &[128])).unwrap_err();
    assert_eq!(
        e,
        err(
            55,
            &[PathSegment::Position(0)],
            BadName(TextProblem::TooLong { len: 128, max: 127 })
        )
    );
    assert_eq!(e.status(), TibrvStatus::INVALID_NAME);
    // Identifier 5 on the field with a NULL name.
    assert_eq!(
        decode(&patched(74, &[0, 5])),
        Err(err(73, &[PathSegment::Position(1)], IdWithoutName(5)))
    );
    // The value length of "ok" pointing past the envelope: the field needs
    // its 8 bytes of type, id, name length and value length, and 256.
    assert_eq!(
        decode(&patched(77, &[0, 0, 1, 0])),
        Err(err(
            73,
            &[PathSegment::Position(1)],
            Truncated {
                needed: 8 + 256,
                available: 109 - 73
            }
        ))
    );
}

#[test]
fn envelope_item_errors() {
    use RvMsgErrorKind::*;
    let e = decode(&patched(10, &[0])).unwrap_err();
    assert_eq!(
        e,
        err(
            10,
            &[],
            BadEnvelopeText(EnvelopeItem::Subject, TextProblem::Empty)
        )
    );
    assert_eq!(e.status(), TibrvStatus::INVALID_SUBJECT);
    assert_eq!(
        decode(&patched(23, &[0xFF])),
        Err(err(
            23,
            &[],
            BadEnvelopeText(
                EnvelopeItem::ReplySubject,
                TextProblem::NotUtf8 { valid_up_to: 2 }
            )
        ))
    );
    // Time limit -1.0.
    let e = decode(&patched(44, &[0xBF, 0xF0])).unwrap_err();
    assert_eq!(e, err(44, &[], BadTimeLimit("-1".into())));
    assert_eq!(e.status(), TibrvStatus::INVALID_ARG);
    // Time limit NaN.
    assert_eq!(
        decode(&patched(44, &[0x7F, 0xF8])),
        Err(err(44, &[], BadTimeLimit("NaN".into())))
    );
}

/// Element 2 of message array `bids` in nested message `quote` has a bad
/// string `venue`: the error names `quote.bids[2].venue`.
#[test]
fn errors_in_nested_arrays_give_the_path() {
    let bid = |venue: &str| {
        Message::new(vec![
            Field::new("px", Value::F64(1.5)),
            Field::new("venue", Value::String(venue.into())),
        ])
    };
    let env = Envelope {
        subject: "Q".into(),
        reply_subject: None,
        cm: None,
        message: Message::new(vec![Field::new(
            "quote",
            Value::Msg(Message::new(vec![Field::new(
                "bids",
                Value::MsgArray(vec![bid("XLON"), bid("XPAR"), bid("XNYS")]),
            )])),
        )]),
    };
    let mut b = env.encode(&Limits::default()).unwrap();
    let at = b.windows(4).position(|w| w == b"XNYS").unwrap();
    b[at + 1] = 0xFF;
    let e = decode(&b).unwrap_err();
    assert_eq!(e.path.to_string(), "quote.bids[2].venue");
    assert_eq!(e.offset, at + 1);
    assert_eq!(
        e.kind,
        RvMsgErrorKind::BadString(TextProblem::NotUtf8 { valid_up_to: 1 })
    );
    // The same string written: a NUL where the 0xFF was.
    let mut bad = env.clone();
    if let Value::Msg(q) = &mut bad.message.fields[0].value
        && let Value::MsgArray(bids) = &mut q.fields[0].value
    {
        bids[2].fields[1].value = Value::String("X\0YS".into());
    }
    let e = bad.encode(&Limits::default()).unwrap_err();
    assert_eq!(e.path.to_string(), "quote.bids[2].venue");
    assert_eq!(e.offset, at + 1);
    assert_eq!(
        e.kind,
        RvMsgErrorKind::BadString(TextProblem::Nul { at: 1 })
    );
}

#[test]
fn write_side_rules() {
    use RvMsgErrorKind::*;
    let one = |f: Field| Envelope {
        subject: "S".into(),
        reply_subject: None,
        cm: None,
        message: Message::new(vec![f]),
    };
    let l = Limits::default();
    // Fields start at offset 12 (10-byte header, 1 + 1 subject).
    let long = "n".repeat(128);
    assert_eq!(
        one(Field::new(long.as_str(), Value::Bool(true))).encode(&l),
        Err(err(
            15,
            &[name(&long)],
            BadName(TextProblem::TooLong { len: 128, max: 127 })
        ))
    );
    let ok127 = one(Field::new("n".repeat(127), Value::Bool(true)));
    assert_eq!(decode(&ok127.encode(&l).unwrap()), Ok(ok127));
    assert_eq!(
        one(Field {
            name: None,
            id: 9,
            value: Value::I8(1)
        })
        .encode(&l),
        Err(err(12, &[PathSegment::Position(0)], IdWithoutName(9)))
    );
    assert_eq!(
        one(Field::new(
            "t",
            Value::User {
                type_code: 127,
                data: vec![]
            }
        ))
        .encode(&l),
        Err(err(12, &[name("t")], UserTypeOutOfRange(127)))
    );
    // nsec at value offset + 8: 12 + 8 + 1 (name "t") + 8.
    assert_eq!(
        one(Field::new(
            "t",
            Value::DateTime(DateTime {
                sec: 0,
                nsec: 1_000_000_000
            })
        ))
        .encode(&l),
        Err(err(29, &[name("t")], BadNanoseconds(1_000_000_000)))
    );
    let dup = Envelope {
        message: Message::new(vec![
            Field {
                name: Some("a".into()),
                id: 4,
                value: Value::U8(1),
            },
            Field {
                name: Some("b".into()),
                id: 4,
                value: Value::U8(2),
            },
        ]),
        ..one(Field::new("x", Value::U8(0)))
    };
    let e = dup.encode(&l).unwrap_err();
    // Second field at 12 + (8 + 1 + 1).
    assert_eq!(e, err(22, &[name("b")], DuplicateId(4)));
    assert_eq!(e.status(), TibrvStatus::ID_IN_USE);
    // The same identifier in a nested message is another identifier space.
    let nested = Envelope {
        message: Message::new(vec![Field {
            name: Some("a".into()),
            id: 4,
            value: Value::Msg(Message::new(vec![Field {
                name: Some("b".into()),
                id: 4,
                value: Value::U8(2),
            }])),
        }]),
        ..one(Field::new("x", Value::U8(0)))
    };
    assert_eq!(decode(&nested.encode(&l).unwrap()), Ok(nested));
    let subject = Envelope {
        subject: "S".repeat(256),
        ..one(Field::new("x", Value::U8(0)))
    };
    assert_eq!(
        subject.encode(&l),
        Err(err(
            11,
            &[],
            BadEnvelopeText(
                EnvelopeItem::Subject,
                TextProblem::TooLong { len: 256, max: 255 }
            )
        ))
    );
}

#[test]
fn every_type_round_trips() {
    let dt = DateTime::parse_rfc3339("2024-05-01T12:30:00.123456789Z").unwrap();
    let values = vec![
        Value::Msg(Message::default()),
        Value::DateTime(dt),
        Value::Opaque(vec![0, 1, 0xFF]),
        Value::String("Grüße".into()),
        Value::Bool(false),
        Value::I8(-128),
        Value::U8(255),
        Value::I16(-32768),
        Value::U16(65535),
        Value::I32(i32::MIN),
        Value::U32(u32::MAX),
        Value::I64(i64::MIN),
        Value::U64(u64::MAX),
        Value::F32(-0.0),
        Value::F64(f64::from_bits(0xFFF8_0000_0000_0001)),
        Value::IpPort16(7500),
        Value::IpAddr32(Ipv4Addr::new(192, 168, 1, 10)),
        Value::I8Array(vec![-1, 0, 1]),
        Value::U8Array(vec![]),
        Value::I16Array(vec![-2, 2]),
        Value::U16Array(vec![1, 65535]),
        Value::I32Array(vec![i32::MAX]),
        Value::U32Array(vec![7, 8]),
        Value::I64Array(vec![i64::MAX, -1]),
        Value::U64Array(vec![u64::MAX]),
        Value::F32Array(vec![f32::INFINITY, 1.5]),
        Value::F64Array(vec![f64::NEG_INFINITY, 0.1]),
        Value::Xml(b"<a/>".to_vec()),
        Value::StringArray(vec!["".into(), "b".into()]),
        Value::MsgArray(vec![
            Message::default(),
            Message::new(vec![Field::new("x", Value::I8(1))]),
        ]),
        Value::User {
            type_code: 200,
            data: vec![9, 9],
        },
    ];
    let fields: Vec<Field> = values
        .into_iter()
        .enumerate()
        .map(|(i, v)| Field {
            name: Some(format!("f{i}")),
            id: i as u16 + 1,
            value: v,
        })
        .collect();
    assert_eq!(fields.len(), 31, "every field type and a user type");
    let env = Envelope {
        subject: "ALL.TYPES".into(),
        reply_subject: None,
        cm: None,
        message: Message::new(fields),
    };
    let bytes = env.encode(&Limits::default()).unwrap();
    assert_eq!(bytes.len(), env.encoded_len());
    let back = decode(&bytes).unwrap();
    assert_eq!(back.encode(&Limits::default()).unwrap(), bytes);
    // f64 NaN with a payload keeps its bits.
    match &back.message.fields[14].value {
        Value::F64(x) => assert_eq!(x.to_bits(), 0xFFF8_0000_0000_0001),
        v => panic!("{v:?}"),
    }
    match &back.message.fields[13].value {
        Value::F32(x) => assert_eq!(x.to_bits(), 0x8000_0000),
        v => panic!("{v:?}"),
    }
}

#[test]
fn datetime_text() {
    // RFC 3339 section 5.8 examples; their seconds from the epoch were
    // computed with Python's datetime module (an independent oracle).
    let t = DateTime::parse_rfc3339("1985-04-12T23:20:50.52Z").unwrap();
    assert_eq!((t.sec, t.nsec), (482_196_050, 520_000_000));
    assert_eq!(t.to_rfc3339().unwrap(), "1985-04-12T23:20:50.520000000Z");
    let t2 = DateTime::parse_rfc3339("1996-12-19T16:39:57-08:00").unwrap();
    assert_eq!(
        DateTime::parse_rfc3339("1996-12-20T00:39:57Z").unwrap(),
        t2,
        "RFC 3339: the same instant"
    );
    assert_eq!(t2.sec, 851_042_397);
    // The section 5.8 leap second cannot be a Rendezvous datetime.
    let e = DateTime::parse_rfc3339("1990-12-31T23:59:60Z").unwrap_err();
    assert_eq!((e.offset, e.kind), (17, DateTimeTextErrorKind::LeapSecond));
    for (text, offset, kind) in [
        (
            "2024-02-30T00:00:00Z",
            8,
            DateTimeTextErrorKind::OutOfRange("day of month"),
        ),
        (
            "2023-13-01T00:00:00Z",
            5,
            DateTimeTextErrorKind::OutOfRange("month"),
        ),
        (
            "2024-01-01 00:00:00Z",
            10,
            DateTimeTextErrorKind::Expected("'T' between date and time"),
        ),
        (
            "2024-01-01T00:00:00",
            19,
            DateTimeTextErrorKind::Expected("'Z', '+HH:MM' or '-HH:MM'"),
        ),
        (
            "2024-01-01T00:00:00.1234567891Z",
            29,
            DateTimeTextErrorKind::TooManyDigits,
        ),
        ("2024-01-01T00:00:00Zx", 20, DateTimeTextErrorKind::Trailing),
        (
            "2024-01-01T24:00:00Z",
            11,
            DateTimeTextErrorKind::OutOfRange("hour"),
        ),
    ] {
        let e = DateTime::parse_rfc3339(text).unwrap_err();
        assert_eq!((e.offset, e.kind), (offset, kind), "{text}");
    }
    // 2000 is a leap year, 1900 is not (proleptic Gregorian).
    assert!(DateTime::parse_rfc3339("2000-02-29T00:00:00Z").is_ok());
    assert_eq!(
        DateTime::parse_rfc3339("1900-02-29T00:00:00Z")
            .unwrap_err()
            .kind,
        DateTimeTextErrorKind::OutOfRange("day of month")
    );
}

mod props {
    use super::*;
    use proptest::prelude::*;

    fn text(max: usize) -> impl Strategy<Value = String> {
        proptest::collection::vec(any::<char>().prop_filter("no NUL", |c| *c != '\0'), 0..8)
            .prop_map(move |cs| {
                let mut s = String::new();
                for c in cs {
                    if s.len() + c.len_utf8() <= max {
                        s.push(c);
                    }
                }
                s
            })
    }

    fn scalar() -> impl Strategy<Value = Value> {
        prop_oneof![
            (any::<i64>(), 0..=999_999_999u32)
                .prop_map(|(sec, nsec)| Value::DateTime(DateTime { sec, nsec })),
            proptest::collection::vec(any::<u8>(), 0..16).prop_map(Value::Opaque),
            text(40).prop_map(Value::String),
            any::<bool>().prop_map(Value::Bool),
            any::<i8>().prop_map(Value::I8),
            any::<u8>().prop_map(Value::U8),
            any::<i16>().prop_map(Value::I16),
            any::<u16>().prop_map(Value::U16),
            any::<i32>().prop_map(Value::I32),
            any::<u32>().prop_map(Value::U32),
            any::<i64>().prop_map(Value::I64),
            any::<u64>().prop_map(Value::U64),
            any::<u32>().prop_map(|b| Value::F32(f32::from_bits(b))),
            any::<u64>().prop_map(|b| Value::F64(f64::from_bits(b))),
            any::<u16>().prop_map(Value::IpPort16),
            any::<u32>().prop_map(|a| Value::IpAddr32(Ipv4Addr::from(a))),
            proptest::collection::vec(any::<i8>(), 0..6).prop_map(Value::I8Array),
            proptest::collection::vec(any::<u8>(), 0..6).prop_map(Value::U8Array),
            proptest::collection::vec(any::<i16>(), 0..6).prop_map(Value::I16Array),
            proptest::collection::vec(any::<u16>(), 0..6).prop_map(Value::U16Array),
            proptest::collection::vec(any::<i32>(), 0..6).prop_map(Value::I32Array),
            proptest::collection::vec(any::<u32>(), 0..6).prop_map(Value::U32Array),
            proptest::collection::vec(any::<i64>(), 0..6).prop_map(Value::I64Array),
            proptest::collection::vec(any::<u64>(), 0..6).prop_map(Value::U64Array),
            proptest::collection::vec(any::<u32>(), 0..6)
                .prop_map(|v| Value::F32Array(v.into_iter().map(f32::from_bits).collect())),
            proptest::collection::vec(any::<u64>(), 0..6)
                .prop_map(|v| Value::F64Array(v.into_iter().map(f64::from_bits).collect())),
            proptest::collection::vec(any::<u8>(), 0..16).prop_map(Value::Xml),
            proptest::collection::vec(text(12), 0..4).prop_map(Value::StringArray),
            (128..=255u8, proptest::collection::vec(any::<u8>(), 0..8))
                .prop_map(|(type_code, data)| Value::User { type_code, data }),
        ]
    }

    /// Fields with identifiers made legal: a NULL name or a repeated
    /// identifier gets 0.
    fn fix_ids(fields: Vec<(Option<String>, u16, Value)>) -> Message {
        let mut seen = std::collections::HashSet::new();
        Message::new(
            fields
                .into_iter()
                .map(|(name, id, value)| {
                    let id = if name.is_some() && id != 0 && seen.insert(id) {
                        id
                    } else {
                        0
                    };
                    Field { name, id, value }
                })
                .collect(),
        )
    }

    fn message() -> impl Strategy<Value = Message> {
        let field = |v: BoxedStrategy<Value>| {
            (
                proptest::option::of(text(TIBRVMSG_FIELDNAME_MAX)),
                0..6u16,
                v,
            )
        };
        let leaf = proptest::collection::vec(field(scalar().boxed()), 0..5).prop_map(fix_ids);
        leaf.prop_recursive(4, 48, 5, move |inner| {
            let value = prop_oneof![
                3 => scalar(),
                1 => inner.clone().prop_map(Value::Msg),
                1 => proptest::collection::vec(inner.clone(), 0..3).prop_map(Value::MsgArray),
            ]
            .boxed();
            proptest::collection::vec(field(value), 0..5).prop_map(fix_ids)
        })
    }

    fn subject() -> impl Strategy<Value = String> {
        text(255).prop_map(|s| if s.is_empty() { "S".into() } else { s })
    }

    fn envelope() -> impl Strategy<Value = Envelope> {
        (
            subject(),
            proptest::option::of(subject()),
            proptest::option::of((subject(), any::<u64>(), 0.0..1e9f64)),
            message(),
        )
            .prop_map(|(subject, reply_subject, cm, message)| Envelope {
                subject,
                reply_subject,
                cm: cm.map(|(sender, sequence, time_limit)| CmLabels {
                    sender,
                    sequence,
                    time_limit,
                }),
                message,
            })
    }

    proptest! {
        #![proptest_config(ProptestConfig::with_cases(256))]

        /// encode → decode → encode gives the same bytes, and the decoded
        /// envelope's length is what `encoded_len` says.
        #[test]
        fn round_trip(env in envelope()) {
            let l = Limits::default();
            let bytes = env.encode(&l).unwrap();
            prop_assert_eq!(bytes.len(), env.encoded_len());
            let back = Envelope::decode(&bytes, &l).unwrap();
            prop_assert_eq!(back.encode(&l).unwrap(), bytes);
        }

        /// Any byte changed in a valid envelope: an error inside the input,
        /// or an envelope that writes back to exactly the changed bytes.
        #[test]
        fn mutations(env in envelope(), at in any::<prop::sample::Index>(), byte in any::<u8>()) {
            let l = Limits::default();
            let mut bytes = env.encode(&l).unwrap();
            let i = at.index(bytes.len());
            bytes[i] = byte;
            match Envelope::decode(&bytes, &l) {
                Ok(e) => prop_assert_eq!(e.encode(&l).unwrap(), bytes),
                Err(e) => prop_assert!(e.offset < bytes.len(), "{}", e),
            }
        }

        /// Arbitrary bytes behind a valid header never panic; an error
        /// names an offset inside the input.
        #[test]
        fn arbitrary_bodies(body in proptest::collection::vec(any::<u8>(), 0..200)) {
            let mut b = b"RVM \x01\x00\0\0\0\0".to_vec();
            b.extend_from_slice(&body);
            let len = b.len() as u32;
            b[6..10].copy_from_slice(&len.to_be_bytes());
            match Envelope::decode(&b, &Limits::default()) {
                Ok(e) => prop_assert_eq!(e.encode(&Limits::default()).unwrap(), b),
                Err(e) => prop_assert!(e.offset < b.len(), "{}", e),
            }
        }

        /// Every datetime RFC 3339 can spell reads back from its text.
        #[test]
        fn datetime_text_round_trip(sec in -62_167_219_200i64..=253_402_300_799, nsec in 0..=999_999_999u32) {
            let d = DateTime { sec, nsec };
            let s = d.to_rfc3339().unwrap();
            prop_assert_eq!(DateTime::parse_rfc3339(&s), Ok(d));
        }
    }
}

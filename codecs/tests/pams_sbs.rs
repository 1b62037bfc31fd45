//! SBS message bodies: hand-built byte vectors, round trips in both byte
//! orders, and malformed requests.
//!
//! Every hand-built vector below is written byte by byte from the structure
//! layouts of BEA MessageQ `p_msg.h` V4.0-08 (offsets in the comments; the
//! obsolete messages packed, as that header compiles them), with the values
//! of the BEA sample `x_sbstat.c` where it sends the message (version 40,
//! user_tag 5155, MOT 5100, a PSEL_TYPE EQ 25 and a PSEL_CLASS GTR 50 rule).
//! Error statuses are mqgate's mapping (docs/messageq.md, "Choices mqgate made").

use mqgate_codecs::pams::rules::{
    BodyOffset, Conjunction, HeaderGeneration, OperandLength, Operator, SelectionRule, Selector,
};
use mqgate_codecs::pams::sbs::register::{MAX_RULES_SENT, REGISTER_REQ_FULL_SIZE};
use mqgate_codecs::pams::sbs::status_msg::STATUS_RESP_MAX_SIZE;
use mqgate_codecs::pams::sbs::{
    DeregisterReq, DeregisterResp, RegisterReq, RegisterResp, SbsBsSeqgap, SbsDereg, SbsDeregAck,
    SbsDeregById, SbsMessage, SbsReg, SbsRegEz, SbsRegEzReply, SbsRegReply, SbsType, SequenceGap,
    StatusReq, StatusResp, StatusRespGroup, StatusRespMot, detect_endian,
};
use mqgate_codecs::pams::{
    Endian, Field, Mot, PamsStatus, QAddress, SbsStatus, Structure, WireError, WireErrorKind,
};

/// Reverses every 4-byte word of a body made only of `int32` fields, except
/// the `q_address` words at `addresses` (queue and group swapped as 16-bit
/// halves, which is what the other byte order does to them).
fn other_order(be: &[u8], addresses: &[usize]) -> Vec<u8> {
    let mut out = be.to_vec();
    for (i, w) in out.chunks_mut(4).enumerate() {
        if addresses.contains(&(i * 4)) {
            w.swap(0, 1);
            w.swap(2, 3);
        } else {
            w.reverse();
        }
    }
    out
}

/// SBS_REGISTER_REQ head and two rules, big-endian, as `x_sbstat.c` fills them.
#[rustfmt::skip]
const REGISTER_REQ_BE: [u8; 68] = [
    0x00, 0x00, 0x00, 0x28, //  0 version 40
    0x00, 0x00, 0x14, 0x23, //  4 user_tag 5155
    0x00, 0x00, 0x13, 0xEC, //  8 mot 5100
    0x00, 0x01, 0x00, 0x07, // 12 distribution_q: queue 1, group 7
    0x00, 0x00, 0x00, 0x01, // 16 req_ack 1
    0x00, 0x00, 0x00, 0x01, // 20 seq_gap_notify 1
    0x00, 0x00, 0x00, 0x00, // 24 auto_dereg 0
    0x00, 0x00, 0x00, 0x02, // 28 rule_count 2
    0x00, 0x00, 0x00, 0x01, // 32 rule_conjunct PSEL_ALL_RULES
    0xFF, 0xFF, 0xFF, 0xFD, // 36 rule[0].offset PSEL_TYPE -3
    0xFF, 0xFF, 0xFF, 0xFF, // 40 rule[0].data_operator PSEL_OPER_EQ -1
    0x00, 0x00, 0x00, 0x04, // 44 rule[0].length 4
    0x00, 0x00, 0x00, 0x19, // 48 rule[0].operand 25
    0xFF, 0xFF, 0xFF, 0xFE, // 52 rule[1].offset PSEL_CLASS -2
    0xFF, 0xFF, 0xFF, 0xFD, // 56 rule[1].data_operator PSEL_OPER_GTR -3
    0x00, 0x00, 0x00, 0x04, // 60 rule[1].length 4
    0x00, 0x00, 0x00, 0x32, // 64 rule[1].operand 50
];

/// The same request little-endian, written out by hand.
#[rustfmt::skip]
const REGISTER_REQ_LE: [u8; 68] = [
    0x28, 0x00, 0x00, 0x00,
    0x23, 0x14, 0x00, 0x00,
    0xEC, 0x13, 0x00, 0x00,
    0x01, 0x00, 0x07, 0x00, // queue 1 then group 7, each little-endian
    0x01, 0x00, 0x00, 0x00,
    0x01, 0x00, 0x00, 0x00,
    0x00, 0x00, 0x00, 0x00,
    0x02, 0x00, 0x00, 0x00,
    0x01, 0x00, 0x00, 0x00,
    0xFD, 0xFF, 0xFF, 0xFF,
    0xFF, 0xFF, 0xFF, 0xFF,
    0x04, 0x00, 0x00, 0x00,
    0x19, 0x00, 0x00, 0x00,
    0xFE, 0xFF, 0xFF, 0xFF,
    0xFD, 0xFF, 0xFF, 0xFF,
    0x04, 0x00, 0x00, 0x00,
    0x32, 0x00, 0x00, 0x00,
];

fn sample_request() -> RegisterReq {
    let mut r = RegisterReq::new(Mot::new(5100).unwrap(), QAddress::new(7, 1));
    r.user_tag = 5155;
    r.req_ack = 1;
    r.seq_gap_notify = 1;
    r.rules = vec![
        SelectionRule::new(Selector::Type, Operator::Eq, OperandLength::Four, 25),
        SelectionRule::new(Selector::Class, Operator::Gtr, OperandLength::Four, 50),
    ];
    r
}

/// The full 4132-byte message the sample sends: head, two rules, 254 unused
/// slots (the sample leaves them uninitialised; here a pattern stands for that).
fn full_size(head_and_rules: &[u8]) -> Vec<u8> {
    let mut b = head_and_rules.to_vec();
    b.extend((0..REGISTER_REQ_FULL_SIZE - b.len()).map(|i| (i * 7 + 3) as u8));
    b
}

#[test]
fn register_req_hand_built_both_orders() {
    assert_eq!(other_order(&REGISTER_REQ_BE, &[12]), REGISTER_REQ_LE);
    for (bytes, endian) in [
        (&REGISTER_REQ_BE, Endian::Big),
        (&REGISTER_REQ_LE, Endian::Little),
    ] {
        let r = RegisterReq::decode(bytes, endian).unwrap();
        assert_eq!(r, sample_request());
        assert_eq!(r.as_mot(), Mot::new(5100).ok());
        assert!(r.wants_ack() && r.wants_gap_notices() && !r.wants_auto_dereg());
        assert_eq!(r.conjunction(), Conjunction::All);
        assert_eq!(r.encode(endian).unwrap(), bytes.to_vec());
        assert_eq!(sample_request().encode(endian).unwrap(), bytes.to_vec());

        // Whole-size message with garbage in the unused slots: kept as is.
        let full = full_size(bytes);
        let r = RegisterReq::decode(&full, endian).unwrap();
        assert_eq!(r.rules.len(), 2);
        assert_eq!(r.unused_rule_area.len(), REGISTER_REQ_FULL_SIZE - 68);
        assert_eq!(r.encode(endian).unwrap(), full);
        // Sent as the samples send it: 4132 bytes, unused slots zero.
        let sent = sample_request().encode_full_size(endian).unwrap();
        assert_eq!(sent.len(), 4132);
        assert_eq!(&sent[..68], bytes);
        assert!(sent[68..].iter().all(|&b| b == 0));
    }
    assert_eq!(detect_endian(-1196, &REGISTER_REQ_BE), Some(Endian::Big));
    assert_eq!(detect_endian(-1196, &REGISTER_REQ_LE), Some(Endian::Little));
}

#[test]
fn dmq_operator_values_are_read_and_written_back() {
    // DECmessageQ V1.0 operator values (EQ 1, GTR 3) in the same request.
    let mut bytes = REGISTER_REQ_BE;
    bytes[40..44].copy_from_slice(&1i32.to_be_bytes());
    bytes[56..60].copy_from_slice(&3i32.to_be_bytes());
    let r = RegisterReq::decode(&bytes, Endian::Big).unwrap();
    assert_eq!(r.rules[0].operator, Operator::Eq);
    assert_eq!(r.rules[0].generation, HeaderGeneration::DmqV10);
    assert_eq!(r.rules[1].operator, Operator::Gtr);
    assert_eq!(r.encode(Endian::Big).unwrap(), bytes.to_vec());
}

fn register_with(count: usize) -> RegisterReq {
    let mut r = sample_request();
    r.rules = (0..count)
        .map(|i| {
            SelectionRule::new(
                Selector::Body(BodyOffset::new(i as u32).unwrap()),
                Operator::ALL[i % 8],
                [OperandLength::One, OperandLength::Two, OperandLength::Four][i % 3],
                i as i32 - 100,
            )
        })
        .collect();
    r.rule_conjunct = 2;
    r
}

#[test]
fn zero_and_255_rules_round_trip() {
    for endian in Endian::BOTH {
        for count in [0, 1, 255] {
            let r = register_with(count);
            let bytes = r.encode(endian).unwrap();
            assert_eq!(bytes.len(), 36 + 16 * count);
            let back = RegisterReq::decode(&bytes, endian).unwrap();
            assert_eq!(back, r);
            assert_eq!(back.encode(endian).unwrap(), bytes);
            let full = r.encode_full_size(endian).unwrap();
            assert_eq!(RegisterReq::decode(&full, endian).unwrap().rules, r.rules);
        }
    }
}

#[test]
fn rule_count_256_is_read_but_never_sent() {
    // p_msg.h MAX_SEL_RULES 256 on input; "up to 255 selection rules" (Programmer's Guide) on output.
    let mut bytes = register_with(255).encode_full_size(Endian::Big).unwrap();
    bytes[28..32].copy_from_slice(&256i32.to_be_bytes());
    let last = 36 + 255 * 16;
    bytes[last + 8..last + 12].copy_from_slice(&4i32.to_be_bytes());
    let r = RegisterReq::decode(&bytes, Endian::Big).unwrap();
    assert_eq!(r.rules.len(), 256);
    assert!(r.unused_rule_area.is_empty());
    let e = r.encode(Endian::Big).unwrap_err();
    assert_eq!(
        e.kind,
        WireErrorKind::RuleCountOutOfRange {
            rule_count: 256,
            max: MAX_RULES_SENT
        }
    );
}

fn expect_err(body: &[u8], endian: Endian) -> WireError {
    RegisterReq::decode(body, endian).expect_err("must be refused")
}

#[test]
fn truncated_and_oversize_requests() {
    // Shorter than the 36-byte head.
    let e = expect_err(&REGISTER_REQ_BE[..35], Endian::Big);
    assert_eq!(
        e.kind,
        WireErrorKind::Truncated {
            needed: 36,
            available: 35
        }
    );
    // Named where the structure starts (offset 0), 36 bytes needed from there:
    // an offset inside the body (it named 35, the end of the 35-byte body).
    assert_eq!((e.field, e.offset), (Field::Whole, 0));
    assert_eq!(e.user_tag, Some(5155));
    assert_eq!(e.sbs_status(), SbsStatus::BADPARAM);
    assert_eq!(e.pams_status(), PamsStatus::BADPARAM);
    // Head present, second rule cut: needs 36 + 2 * 16.
    let e = expect_err(&REGISTER_REQ_BE[..60], Endian::Big);
    assert_eq!(
        e.kind,
        WireErrorKind::Truncated {
            needed: 68,
            available: 60
        }
    );
    // One byte over the 4132-byte message.
    let mut big = full_size(&REGISTER_REQ_BE);
    big.push(0);
    let e = expect_err(&big, Endian::Big);
    assert_eq!(
        e.kind,
        WireErrorKind::TooLong {
            max: 4132,
            available: 4133
        }
    );
    assert_eq!(e.offset, 4132);
    assert_eq!(e.pams_status(), PamsStatus::MSGTOBIG);
    assert_eq!(e.sbs_status(), SbsStatus(20));
    assert!(
        e.to_string()
            .starts_with("SBS_REGISTER_REQ length at offset 4132: too long")
    );
}

fn with_word(offset: usize, v: i32) -> Vec<u8> {
    let mut b = full_size(&REGISTER_REQ_BE);
    b[offset..offset + 4].copy_from_slice(&v.to_be_bytes());
    b
}

#[test]
fn malformed_fields_name_field_offset_and_status() {
    let cases: Vec<(Vec<u8>, Field, usize, WireErrorKind)> = vec![
        (
            with_word(28, -1),
            Field::Named("rule_count"),
            28,
            WireErrorKind::RuleCountOutOfRange {
                rule_count: -1,
                max: 256,
            },
        ),
        (
            with_word(28, 257),
            Field::Named("rule_count"),
            28,
            WireErrorKind::RuleCountOutOfRange {
                rule_count: 257,
                max: 256,
            },
        ),
        (
            with_word(8, 3999),
            Field::Named("mot"),
            8,
            WireErrorKind::NotAMot { value: 3999 },
        ),
        (
            with_word(32, 0),
            Field::Named("rule_conjunct"),
            32,
            WireErrorKind::BadConjunct { value: 0 },
        ),
        (
            with_word(60, 3),
            Field::Rule {
                index: 1,
                field: "length",
            },
            60,
            WireErrorKind::BadOperandLength { length: 3 },
        ),
        (
            with_word(44, 0),
            Field::Rule {
                index: 0,
                field: "length",
            },
            44,
            WireErrorKind::BadOperandLength { length: 0 },
        ),
        (
            with_word(40, 8),
            Field::Rule {
                index: 0,
                field: "data_operator",
            },
            40,
            WireErrorKind::BadOperator { operator: 8 },
        ),
        // PSEL_CORRELATION_ID -4 and a priority selector (PSEL_PRI_P0 -6): not SBS selectors.
        (
            with_word(52, -4),
            Field::Rule {
                index: 1,
                field: "offset",
            },
            52,
            WireErrorKind::UnsupportedSelector { offset: -4 },
        ),
        (
            with_word(36, -6),
            Field::Rule {
                index: 0,
                field: "offset",
            },
            36,
            WireErrorKind::UnsupportedSelector { offset: -6 },
        ),
    ];
    for (bytes, field, offset, kind) in cases {
        let e = expect_err(&bytes, Endian::Big);
        assert_eq!((e.field, e.offset, &e.kind), (field, offset, &kind), "{e}");
        assert_eq!(e.structure, Structure::RegisterReq);
        assert_eq!(e.user_tag, Some(5155));
        assert_eq!(e.sbs_status(), SbsStatus::BADPARAM);
        assert_eq!(e.pams_status(), PamsStatus::BADPARAM);
    }
    // Zero rules: any rule_conjunct is accepted and kept.
    let mut b = with_word(28, 0);
    b[32..36].copy_from_slice(&0i32.to_be_bytes());
    let r = RegisterReq::decode(&b, Endian::Big).unwrap();
    assert_eq!((r.rules.len(), r.rule_conjunct), (0, 0));
    assert_eq!(r.encode(Endian::Big).unwrap(), b);
    // A reserved MOT (the sample's 5100) is a MOT: accepted.
    assert!(RegisterReq::decode(&REGISTER_REQ_BE, Endian::Big).is_ok());
    // The error text names everything.
    let e = expect_err(&with_word(60, 3), Endian::Big);
    assert_eq!(
        e.to_string(),
        "SBS_REGISTER_REQ rule[1].length at offset 60: operand length 3 is not 1, 2 or 4 \
         (answer 20 PSYM_SBS_BADPARAM, -186 PAMS__BADPARAM)"
    );
}

/// Decodes `bytes` in `endian`, checks the fields and that both orders round-trip.
fn check_fixed<T, const N: usize>(
    bytes: [u8; N],
    endian: Endian,
    decode: fn(&[u8], Endian) -> Result<T, WireError>,
    encode: fn(&T, Endian) -> [u8; N],
    expected: T,
) where
    T: PartialEq + std::fmt::Debug,
{
    let v = decode(&bytes, endian).unwrap();
    assert_eq!(v, expected);
    assert_eq!(encode(&v, endian), bytes);
    let other = endian.swapped();
    let swapped = encode(&v, other);
    assert_eq!(decode(&swapped, other).unwrap(), v);
    assert_eq!(encode(&decode(&swapped, other).unwrap(), other), swapped);
    // One byte short and one byte long are refused.
    let e = decode(&bytes[..N - 1], endian).unwrap_err();
    assert!(matches!(e.kind, WireErrorKind::Truncated { .. }), "{e}");
    let mut long = bytes.to_vec();
    long.push(0);
    let e = decode(&long, endian).unwrap_err();
    assert_eq!(
        e.kind,
        WireErrorKind::TooLong {
            max: N,
            available: N + 1
        }
    );
}

#[test]
fn register_resp_hand_built() {
    #[rustfmt::skip]
    let be = [
        0, 0, 0, 0x28,       //  0 version 40
        0, 0, 0x14, 0x23,    //  4 user_tag 5155
        0, 0, 0, 1,          //  8 status PSYM_SBS_SUCCESS
        0, 0, 0, 9,          // 12 reg_id 9
        0, 0, 0, 2,          // 16 number_reg 2
    ];
    let expected = RegisterResp {
        version: 40,
        user_tag: 5155,
        status: SbsStatus::SUCCESS,
        reg_id: 9,
        number_reg: 2,
    };
    check_fixed(
        be,
        Endian::Big,
        RegisterResp::decode,
        RegisterResp::encode,
        expected,
    );
    let le: [u8; 20] = other_order(&be, &[]).try_into().unwrap();
    check_fixed(
        le,
        Endian::Little,
        RegisterResp::decode,
        RegisterResp::encode,
        expected,
    );
}

#[test]
fn deregister_req_and_resp_hand_built() {
    #[rustfmt::skip]
    let be = [
        0, 0, 0, 0x28,       //  0 version 40
        0, 0, 0x14, 0x23,    //  4 user_tag 5155
        0, 0, 0x13, 0xEC,    //  8 mot 5100
        0, 1, 0, 7,          // 12 distribution_q 7.1 (queue first)
        0, 0, 0, 1,          // 16 reg_id 1 (before req_ack)
        0, 0, 0, 1,          // 20 req_ack 1
    ];
    let expected = DeregisterReq {
        version: 40,
        user_tag: 5155,
        mot: 5100,
        distribution_q: QAddress::new(7, 1),
        reg_id: 1,
        req_ack: 1,
    };
    check_fixed(
        be,
        Endian::Big,
        DeregisterReq::decode,
        DeregisterReq::encode,
        expected,
    );
    let le: [u8; 24] = other_order(&be, &[12]).try_into().unwrap();
    assert_eq!(&le[12..16], &[1, 0, 7, 0]);
    check_fixed(
        le,
        Endian::Little,
        DeregisterReq::decode,
        DeregisterReq::encode,
        expected,
    );
    let mut bad = be;
    bad[8..12].copy_from_slice(&6001i32.to_be_bytes());
    let e = DeregisterReq::decode(&bad, Endian::Big).unwrap_err();
    assert_eq!((e.field, e.offset), (Field::Named("mot"), 8));
    assert_eq!(e.kind, WireErrorKind::NotAMot { value: 6001 });
    assert_eq!(e.user_tag, Some(5155));

    #[rustfmt::skip]
    let resp = [
        0, 0, 0, 0x28,       //  0 version
        0, 0, 0x03, 0xF4,    //  4 status PSYM_SBS_NOMATCH 1012 (status before user_tag)
        0, 0, 0x14, 0x23,    //  8 user_tag 5155
        0, 0, 0, 0,          // 12 number_reg 0
    ];
    let expected = DeregisterResp {
        version: 40,
        status: SbsStatus::NOMATCH,
        user_tag: 5155,
        number_reg: 0,
    };
    check_fixed(
        resp,
        Endian::Big,
        DeregisterResp::decode,
        DeregisterResp::encode,
        expected,
    );
    let e = DeregisterResp::decode(&resp[..12], Endian::Big).unwrap_err();
    assert_eq!(e.user_tag, Some(5155));
}

#[test]
fn status_req_resp_and_records_hand_built() {
    #[rustfmt::skip]
    let req = [
        0, 0, 0, 0x28,       //  0 version 40
        0, 0, 0x15, 0x90,    //  4 user_tag 5520
        0, 0, 0x13, 0x88,    //  8 start_mot 5000
        0, 0, 0x14, 0x50,    // 12 end_mot 5200
        0, 0, 0, 0,          // 16 reset 0
    ];
    let expected = StatusReq {
        version: 40,
        user_tag: 5520,
        start_mot: 5000,
        end_mot: 5200,
        reset: 0,
    };
    check_fixed(
        req,
        Endian::Big,
        StatusReq::decode,
        StatusReq::encode,
        expected,
    );

    // One MOT record, little-endian, Ethernet transport.
    let mut mot = Vec::new();
    mot.extend(5101i32.to_le_bytes()); //   0 mot
    mot.extend(b"AB1234567890"); //         4 transport.eth.mca_addr[12]
    mot.extend(b"81F1"); //                16 transport.eth.protocol[4]
    mot.extend([0u8; 4]); //               20 rest of the 20-byte union
    for v in 1..=10i32 {
        mot.extend(v.to_le_bytes()); //   24..64 heartbeat_timer … whole_silo_gap
    }
    for rail in 0..2u32 {
        let mut name = [0u8; 16];
        name[..5].copy_from_slice(b"ESA0:");
        mot.extend(name); //               device_name[16]
        mot.extend((1000 + rail).to_le_bytes()); // fail_tod.tv_sec
        mot.extend(7u32.to_le_bytes()); //  fail_tod.tv_usec
        for v in 0..5i32 {
            mot.extend((v + 100).to_le_bytes()); // msgs_sent … dupl_pkts_disc
        }
    }
    assert_eq!(mot.len(), 152);
    let record = StatusRespMot::decode(&mot, Endian::Little).unwrap();
    assert_eq!(record.mot, 5101);
    assert_eq!(record.ethernet(), (*b"AB1234567890", *b"81F1"));
    assert_eq!(
        (
            record.heartbeat_timer,
            record.num_reg,
            record.whole_silo_gap
        ),
        (1, 5, 10)
    );
    assert_eq!(&record.rail_b.device_name[..5], b"ESA0:");
    assert_eq!(
        (record.rail_b.fail_tod_sec, record.rail_b.dupl_pkts_disc),
        (1001, 104)
    );
    assert_eq!(record.encode(Endian::Little).to_vec(), mot);

    let mut body = Vec::new();
    for v in [40i32, 5520, 1, 1, 1] {
        body.extend(v.to_le_bytes()); // version, user_tag, status, num_rec, last_block
    }
    body.extend(&mot);
    let group = [3i32, 1, 2, 3, 4, 5]
        .iter()
        .flat_map(|v| v.to_le_bytes())
        .collect::<Vec<u8>>();
    body.extend(&group);
    let resp = StatusResp::decode(&body, Endian::Little).unwrap();
    assert_eq!(
        (resp.user_tag, resp.status, resp.num_rec),
        (5520, SbsStatus::SUCCESS, 1)
    );
    assert_eq!(resp.mot_record(0, Endian::Little).unwrap(), record);
    let g: StatusRespGroup = resp
        .record_at(152, Structure::StatusRespGroup, Endian::Little)
        .unwrap();
    assert_eq!((g.group, g.rexmit_sat_by_local), (3, 5));
    let e = resp.mot_record(1, Endian::Little).unwrap_err();
    assert_eq!(e.offset, 20 + 152);
    assert_eq!(resp.encode(Endian::Little).unwrap(), body);
    let be = resp.encode(Endian::Big).unwrap();
    assert_eq!(StatusResp::decode(&be, Endian::Big).unwrap().num_rec, 1);

    // num_rec beyond what data holds, negative, and an oversize body.
    let mut bad = body.clone();
    bad[12..16].copy_from_slice(&2i32.to_le_bytes());
    let e = StatusResp::decode(&bad, Endian::Little).unwrap_err();
    assert_eq!(
        e.kind,
        WireErrorKind::NumRecOutOfRange { num_rec: 2, max: 1 }
    );
    assert_eq!(
        (e.field, e.offset, e.user_tag),
        (Field::Named("num_rec"), 12, Some(5520))
    );
    bad[12..16].copy_from_slice(&(-1i32).to_le_bytes());
    assert!(StatusResp::decode(&bad, Endian::Little).is_err());
    let mut huge = body.clone();
    huge.resize(STATUS_RESP_MAX_SIZE + 1, 0);
    let e = StatusResp::decode(&huge, Endian::Little).unwrap_err();
    assert_eq!(e.pams_status(), PamsStatus::MSGTOBIG);
    huge.truncate(STATUS_RESP_MAX_SIZE);
    assert_eq!(
        StatusResp::decode(&huge, Endian::Little)
            .unwrap()
            .data
            .len(),
        31988
    );
}

#[test]
fn sequence_gap_hand_built() {
    #[rustfmt::skip]
    let le = [
        3, 0, 0, 0,          //  0 num_msgs_missing 3
        7, 0, 0, 0,          //  4 sender_group 7
        0xF6, 0x13, 0, 0,    //  8 mot 5110
        0x63, 0, 0, 0,       // 12 channel 99 (the SBS server)
    ];
    let expected = SequenceGap {
        num_msgs_missing: 3,
        sender_group: 7,
        mot: 5110,
        channel: 99,
    };
    check_fixed(
        le,
        Endian::Little,
        SequenceGap::decode,
        SequenceGap::encode,
        expected,
    );
    assert_eq!(detect_endian(-1199, &le), Some(Endian::Little));
    assert_eq!(
        detect_endian(-1199, &expected.encode(Endian::Big)),
        Some(Endian::Big)
    );
}

#[test]
fn obsolete_messages_hand_built_packed() {
    #[rustfmt::skip]
    let reg = [
        0x00, 0x14,              //  0 version 20 (int16)
        0x13, 0xF6,              //  2 mot 5110 (uint16)
        0x00, 0x02, 0x00, 0x07,  //  4 distribution_q 7.2
        0xFF, 0xFE,              //  8 offset PSEL_CLASS -2 (int16)
        0x01,                    // 10 data_operator 1 (char; DECmessageQ EQ)
        0x00, 0x02,              // 11 length 2 (int16, unaligned)
        0x00, 0x00, 0x00, 0x1D,  // 13 operand 29 (uint32, unaligned)
        0x01, 0x00, 0x01,        // 17 req_ack, req_seqgap, req_autodereg
    ];
    let expected = SbsReg {
        version: 20,
        mot: 5110,
        distribution_q: QAddress::new(7, 2),
        offset: -2,
        data_operator: 1,
        length: 2,
        operand: 29,
        req_ack: 1,
        req_seqgap: 0,
        req_autodereg: 1,
    };
    check_fixed(reg, Endian::Big, SbsReg::decode, SbsReg::encode, expected);
    assert_eq!(detect_endian(-1150, &reg), Some(Endian::Big));
    let mut bad = reg;
    bad[2..4].copy_from_slice(&100u16.to_be_bytes());
    let e = SbsReg::decode(&bad, Endian::Big).unwrap_err();
    assert_eq!(
        (e.field, e.offset, e.kind),
        (
            Field::Named("mot"),
            2,
            WireErrorKind::NotAMot { value: 100 }
        )
    );

    let reply = [0x01, 0x00, 0x05, 0x00, 0x01, 0x00]; // status 1, reg_id 5, number_reg 1 (LE)
    let expected = SbsRegReply {
        status: 1,
        reg_id: 5,
        number_reg: 1,
    };
    check_fixed(
        reply,
        Endian::Little,
        SbsRegReply::decode,
        SbsRegReply::encode,
        expected,
    );
    let expected = SbsRegEzReply {
        status: 1,
        reg_id: 5,
        number_reg: 1,
    };
    check_fixed(
        reply,
        Endian::Little,
        SbsRegEzReply::decode,
        SbsRegEzReply::encode,
        expected,
    );

    let ez = [0x14, 0x00, 0xA0, 0x0F, 0x03, 0x00, 0x07, 0x00]; // version 20, mot 4000, 7.3 (LE)
    let expected = SbsRegEz {
        version: 20,
        mot: 4000,
        distribution_q: QAddress::new(7, 3),
    };
    check_fixed(
        ez,
        Endian::Little,
        SbsRegEz::decode,
        SbsRegEz::encode,
        expected,
    );
    assert_eq!(detect_endian(-1173, &ez), Some(Endian::Little));

    let dereg = [0x00, 0x14, 0x13, 0xF6, 0x00, 0x02, 0x00, 0x07, 0x01]; // 20, 5110, 7.2, req_ack 1
    let expected = SbsDereg {
        version: 20,
        mot: 5110,
        distribution_q: QAddress::new(7, 2),
        req_ack: 1,
    };
    check_fixed(
        dereg,
        Endian::Big,
        SbsDereg::decode,
        SbsDereg::encode,
        expected,
    );

    let ack = [0x00, 0x01, 0x00, 0x00]; // status 1, number_reg 0
    let expected = SbsDeregAck {
        status: 1,
        number_reg: 0,
    };
    check_fixed(
        ack,
        Endian::Big,
        SbsDeregAck::decode,
        SbsDeregAck::encode,
        expected,
    );

    let by_id = [0x00, 0x0A, 0x00, 0x05, 0x01]; // version 10, reg_id 5, req_ack 1
    let expected = SbsDeregById {
        version: 10,
        reg_id: 5,
        req_ack: 1,
    };
    check_fixed(
        by_id,
        Endian::Big,
        SbsDeregById::decode,
        SbsDeregById::encode,
        expected,
    );
    assert_eq!(detect_endian(-1154, &by_id), Some(Endian::Big));

    #[rustfmt::skip]
    let gap = [
        0x00, 0x00, 0x00, 0x02,  // 0 num_msgs_missing 2 (int32)
        0x00, 0x07,              // 4 sender_group 7
        0x13, 0xF6,              // 6 mot 5110
        0x00, 0x01,              // 8 channel 1
    ];
    let expected = SbsBsSeqgap {
        num_msgs_missing: 2,
        sender_group: 7,
        mot: 5110,
        channel: 1,
    };
    check_fixed(
        gap,
        Endian::Big,
        SbsBsSeqgap::decode,
        SbsBsSeqgap::encode,
        expected,
    );
    assert_eq!(detect_endian(-1166, &gap), Some(Endian::Big));
}

#[test]
fn dispatch_by_message_type() {
    let m = SbsMessage::decode(-1196, &REGISTER_REQ_BE, Endian::Big).unwrap();
    assert_eq!(m.sbs_type(), SbsType::RegisterReq);
    assert_eq!(m.encode(Endian::Big).unwrap(), REGISTER_REQ_BE.to_vec());
    for t in SbsType::ALL {
        let m = SbsMessage::decode(t.code(), &[], Endian::Big).unwrap_err();
        assert!(
            matches!(m.kind, WireErrorKind::Truncated { .. }),
            "{t}: {m}"
        );
        assert_eq!(m.structure, t.structure());
    }
    // Found by fuzzing (codecs/fuzz pams_sbs): a 5-byte SBS_REGISTER_REQ
    // named "length at offset 5", the end of the body. Whatever a 5-byte
    // body is to each message type, an error names an offset inside it.
    let five = [0x00, 0x01, 0x00, 0x0A, 0x00];
    for t in SbsType::ALL {
        if let Err(m) = SbsMessage::decode(t.code(), &five, Endian::Big) {
            assert!(m.offset < five.len(), "{t}: {m}");
        }
    }
    let e = SbsMessage::decode(SbsType::RegisterReq.code(), &five, Endian::Big).unwrap_err();
    assert_eq!(
        (e.offset, e.kind),
        (
            0,
            WireErrorKind::Truncated {
                needed: 36,
                available: 5
            }
        )
    );
    let e = SbsMessage::decode(-1157, &[0, 10, 1], Endian::Big).unwrap_err();
    assert_eq!(
        e.kind,
        WireErrorKind::UnsupportedMessageType {
            msg_type: -1157,
            name: "SBS_PURGE"
        }
    );
    assert_eq!(e.pams_status(), PamsStatus::NOTSUPPORTED);
    let e = SbsMessage::decode(25, &[], Endian::Big).unwrap_err();
    assert_eq!(e.kind, WireErrorKind::UnknownMessageType { msg_type: 25 });
    // The obsolete replies carry nothing that tells the byte order.
    assert_eq!(detect_endian(-1152, &[0, 1, 0, 5, 0, 1]), None);
    assert_eq!(detect_endian(-1196, &[0, 0, 0, 0]), None);
    assert_eq!(detect_endian(99, &REGISTER_REQ_BE), None);
}

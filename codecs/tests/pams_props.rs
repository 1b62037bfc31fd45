//! Properties of the PAMS codecs over arbitrary input: no decoder panics, and
//! every body a decoder accepts encodes back to the same bytes (the project's
//! byte-fidelity rule, docs/architecture.md "Crates": every codec round-trips).

use mqgate_codecs::pams::init_file::InitFile;
use mqgate_codecs::pams::rules::{
    BodyOffset, Broadcast, Conjunction, OperandLength, Operator, RuleSet, SelectionRule, Selector,
};
use mqgate_codecs::pams::sbs::{
    DeregisterReq, DeregisterResp, RegisterResp, SbsBsSeqgap, SbsDereg, SbsDeregAck, SbsDeregById,
    SbsMessage, SbsReg, SbsRegEz, SbsRegEzReply, SbsRegReply, SbsType, SequenceGap, StatusReq,
    detect_endian,
};
use mqgate_codecs::pams::{Endian, QAddress, ShowBuffer, WireErrorKind};
use proptest::prelude::*;

fn endian() -> impl Strategy<Value = Endian> {
    prop_oneof![Just(Endian::Little), Just(Endian::Big)]
}

/// Mostly SBS type codes, sometimes anything.
fn msg_type() -> impl Strategy<Value = i16> {
    prop_oneof![
        4 => proptest::sample::select(SbsType::ALL.map(|t| t.code()).to_vec()),
        1 => any::<i16>(),
        1 => Just(-1157i16),
    ]
}

/// A body of the structure's own size or near it, or any length.
fn body_for(t: i16) -> BoxedStrategy<Vec<u8>> {
    let size = match SbsType::from_code(t) {
        Some(SbsType::RegisterReq) => 36 + 16 * 3,
        Some(SbsType::StatusResp) => 20 + 152,
        Some(st) => size_of(st),
        None => 8,
    };
    prop_oneof![
        proptest::collection::vec(any::<u8>(), size..=size),
        proptest::collection::vec(any::<u8>(), size.saturating_sub(2)..=size + 2),
        proptest::collection::vec(any::<u8>(), 0..600),
    ]
    .boxed()
}

/// The fixed size of each structure (the head for the two variable ones).
fn size_of(t: SbsType) -> usize {
    match t {
        SbsType::RegisterReq => 36,
        SbsType::RegisterResp => RegisterResp::SIZE,
        SbsType::DeregisterReq => DeregisterReq::SIZE,
        SbsType::DeregisterResp => DeregisterResp::SIZE,
        SbsType::StatusReq => StatusReq::SIZE,
        SbsType::StatusResp => 20,
        SbsType::SequenceGap => SequenceGap::SIZE,
        SbsType::Reg => SbsReg::SIZE,
        SbsType::RegReply => SbsRegReply::SIZE,
        SbsType::RegEz => SbsRegEz::SIZE,
        SbsType::RegEzReply => SbsRegEzReply::SIZE,
        SbsType::Dereg => SbsDereg::SIZE,
        SbsType::DeregAck => SbsDeregAck::SIZE,
        SbsType::DeregById => SbsDeregById::SIZE,
        SbsType::BsSeqgap => SbsBsSeqgap::SIZE,
    }
}

/// Decodes; if accepted, the encoding is the input (or, for more than 255
/// rules, the encoder refuses as documented).
fn round_trip(t: i16, body: &[u8], e: Endian) {
    let _ = detect_endian(t, body);
    let Ok(m) = SbsMessage::decode(t, body, e) else {
        return;
    };
    match m.encode(e) {
        Ok(bytes) => assert_eq!(bytes, body, "{:?}", m.sbs_type()),
        Err(err) => assert!(
            matches!(
                err.kind,
                WireErrorKind::RuleCountOutOfRange {
                    rule_count: 256,
                    ..
                }
            ),
            "{err}"
        ),
    }
}

/// A register request with a valid head and `count` in the rule_count field,
/// then random rule words — so decoding reaches the rule checks.
fn register_body() -> impl Strategy<Value = (Vec<u8>, Endian)> {
    (
        endian(),
        prop_oneof![0i32..=6, 250i32..=258, Just(-1)],
        3999i32..=6001,
        0i32..=3,
        proptest::collection::vec(
            (
                prop_oneof![-6i32..=40, any::<i32>()],
                prop_oneof![-7i32..=8, any::<i32>()],
                prop_oneof![0i32..=5, any::<i32>()],
                any::<i32>(),
            ),
            0..8,
        ),
        proptest::collection::vec(any::<u8>(), 0..64),
    )
        .prop_map(|(e, count, mot, conj, rules, tail)| {
            let mut b = Vec::new();
            for v in [40, 1, mot, 0x0001_0007, 1, 0, 0, count, conj] {
                b.extend(e.i32_to(v));
            }
            for (o, op, len, operand) in rules {
                for v in [o, op, len, operand] {
                    b.extend(e.i32_to(v));
                }
            }
            b.extend(tail);
            (b, e)
        })
}

proptest! {
    #[test]
    fn sbs_decode_never_panics_and_round_trips(
        (t, body) in msg_type().prop_flat_map(|t| (Just(t), body_for(t))),
        e in endian(),
    ) {
        round_trip(t, &body, e);
    }

    #[test]
    fn register_request_checks_never_panic((body, e) in register_body()) {
        round_trip(SbsType::RegisterReq.code(), &body, e);
    }

    #[test]
    fn full_size_register_requests(
        e in endian(),
        count in 0i32..=256,
        fill in any::<u8>(),
    ) {
        let mut b = vec![fill; 4132];
        for (i, v) in [40, 9, 5110, 0x0001_0007, 1, 1, 0, count, 2].into_iter().enumerate() {
            b[i * 4..i * 4 + 4].copy_from_slice(&e.i32_to(v));
        }
        for r in 0..count as usize {
            let base = 36 + r * 16;
            for (k, v) in [r as i32, -1, 4, 7].into_iter().enumerate() {
                b[base + k * 4..base + k * 4 + 4].copy_from_slice(&e.i32_to(v));
            }
        }
        let m = SbsMessage::decode(SbsType::RegisterReq.code(), &b, e).unwrap();
        let SbsMessage::RegisterReq(r) = &m else { unreachable!() };
        prop_assert_eq!(r.rules.len(), count as usize);
        round_trip(SbsType::RegisterReq.code(), &b, e);
    }

    #[test]
    fn show_buffer_any_bytes(bytes in proptest::collection::vec(any::<u8>(), 0..120), e in endian()) {
        let _ = ShowBuffer::detect_endian(&bytes);
        if let Ok(sb) = ShowBuffer::decode(&bytes, e) {
            prop_assert_eq!(sb.encode(e).to_vec(), bytes.clone());
        }
        if let Ok(sb) = ShowBuffer::decode_prefix(&bytes, e) {
            prop_assert_eq!(sb.encode_prefix(e, bytes.len()).unwrap(), bytes);
        }
    }

    #[test]
    fn addresses_parse_or_fail_cleanly(text in "\\PC{0,12}|[0-9.]{0,12}", group: u16, queue: u16) {
        let _ = QAddress::parse(&text);
        let a = QAddress::new(group, queue);
        prop_assert_eq!(QAddress::parse(&a.to_string()).unwrap(), a);
    }

    #[test]
    fn init_file_never_panics(text in "\\PC{0,200}") {
        let _ = InitFile::parse(&text);
    }

    #[test]
    fn init_file_token_soup_never_panics(tokens in proptest::collection::vec(prop_oneof![
        Just("%PROFILE"), Just("%QCT"), Just("%GNT"), Just("%XGROUP"), Just("%SBS"),
        Just("%EOS"), Just("%MRS"), Just("%"), Just("!"), Just("*"), Just("."), Just("-"),
        Just("\n"), Just("\r\n"), Just("\t"), Just(" "), Just("ENABLE_SBS"), Just("YES"),
        Just("0.5110"), Just("G"), Just("L"), Just("COMM_SERVICE"), Just("DG/DMQ"),
        Just("DG/ETH"), Just("GROUPS"), Just("REGISTER"), Just("END_COMM_SERVICE"),
        Just("HEARTBEAT"), Just("1000"), Just("99999999999999999999"), Just("ü"),
    ], 0..60)) {
        let text: String = tokens.concat();
        let _ = InitFile::parse(&text);
    }

    #[test]
    fn rule_evaluation_never_panics(
        offset in prop_oneof![0u32..64, Just(i32::MAX as u32)],
        op in proptest::sample::select(Operator::ALL.to_vec()),
        len in prop_oneof![Just(OperandLength::One), Just(OperandLength::Two), Just(OperandLength::Four)],
        operand: i32,
        sel in 0u8..4,
        body in proptest::collection::vec(any::<u8>(), 0..64),
        class: i16, msg_type: i16, group: u16, queue: u16,
        e in endian(),
        any_rule: bool,
    ) {
        let selector = match sel {
            0 => Selector::Source,
            1 => Selector::Class,
            2 => Selector::Type,
            _ => Selector::Body(BodyOffset::new(offset).unwrap()),
        };
        let rule = SelectionRule::new(selector, op, len, operand);
        let rules = [rule, rule];
        let set = RuleSet {
            conjunction: if any_rule { Conjunction::Any } else { Conjunction::All },
            rules: &rules,
            registration_order: e,
        };
        let msg = Broadcast { class, msg_type, original_source: QAddress::new(group, queue), body: &body, endian: e };
        // Two copies of one rule: all and any agree with the rule itself.
        prop_assert_eq!(set.matches(&msg), rule.matches(&msg, e));
    }
}

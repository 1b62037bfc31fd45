//! SBS selection rule evaluation.
//!
//! Expected values: the operator meanings of the Programmer's Guide Table 3-3
//! (EQ equal, GTR greater than, AND "operand field AND data not equal to
//! zero", ANY always), the selectors of Table 3-2 (PSEL_SOURCE is the original
//! source), and mqgate's comparison rules (docs/messageq.md, "Choices mqgate
//! made"): signed integers of the rule's width in the message's byte order,
//! class and type as 16 bits, source as the 32-bit `q_address`, a rule beyond
//! the body false.

use mqgate_codecs::pams::rules::{
    BodyOffset, Broadcast, Conjunction, HeaderGeneration, OperandLength, Operator, RuleSet,
    SelectionRule, Selector,
};
use mqgate_codecs::pams::sbs::RegisterReq;
use mqgate_codecs::pams::{Endian, QAddress};

const PUBLISHER: QAddress = QAddress::new(7, 1);

fn message<'a>(body: &'a [u8], endian: Endian) -> Broadcast<'a> {
    Broadcast {
        class: 29,
        msg_type: -1196,
        original_source: PUBLISHER,
        body,
        endian,
    }
}

fn body_rule(op: Operator, length: OperandLength, operand: i32) -> SelectionRule {
    SelectionRule::new(
        Selector::Body(BodyOffset::new(3).unwrap()),
        op,
        length,
        operand,
    )
}

/// A 12-byte body with `value` of `length` bytes at offset 3 in `endian`.
fn body_with(value: i32, length: OperandLength, endian: Endian) -> Vec<u8> {
    let mut b = vec![0xEEu8; 12];
    let bytes = endian.i32_to(value);
    let field: Vec<u8> = match (length, endian) {
        (OperandLength::One, _) => vec![value as u8],
        (OperandLength::Two, Endian::Little) => bytes[..2].to_vec(),
        (OperandLength::Two, Endian::Big) => bytes[2..].to_vec(),
        (OperandLength::Four, _) => bytes.to_vec(),
    };
    b[3..3 + field.len()].copy_from_slice(&field);
    b
}

/// The truth table for data `d` against operands d-1, d, d+1.
fn expected(op: Operator) -> [bool; 3] {
    match op {
        Operator::Any => [true, true, true],
        Operator::Eq => [false, true, false],
        Operator::Neq => [true, false, true],
        Operator::Gtr => [true, false, false],
        Operator::Lt => [false, false, true],
        Operator::Gtre => [true, true, false],
        Operator::Lte => [false, true, true],
        Operator::And => unreachable!("tested on its own"),
    }
}

#[test]
fn every_comparison_at_every_length_at_a_body_offset() {
    // Negative data values, so the comparison must be signed to hold.
    for (length, d) in [
        (OperandLength::One, -123),
        (OperandLength::Two, -300),
        (OperandLength::Four, -70000),
    ] {
        for endian in Endian::BOTH {
            let body = body_with(d, length, endian);
            let msg = message(&body, endian);
            for op in Operator::ALL.into_iter().filter(|&o| o != Operator::And) {
                let got: Vec<bool> = [d - 1, d, d + 1]
                    .iter()
                    .map(|&operand| body_rule(op, length, operand).matches(&msg, Endian::Big))
                    .collect();
                assert_eq!(got, expected(op), "{op} length {length:?} {endian:?}");
            }
            // AND: a bit set in the data, a bit clear in it.
            let set = d & d.wrapping_neg(); // lowest set bit of d
            let clear = !d & (!d).wrapping_neg(); // lowest clear bit of d
            assert!(body_rule(Operator::And, length, set).matches(&msg, Endian::Big));
            assert!(!body_rule(Operator::And, length, clear).matches(&msg, Endian::Big));
        }
    }
}

#[test]
fn width_and_sign() {
    for endian in Endian::BOTH {
        // 0x85 is -123 as a signed byte: not greater than 5.
        let body = body_with(0x85, OperandLength::One, endian);
        let msg = message(&body, endian);
        assert!(!body_rule(Operator::Gtr, OperandLength::One, 5).matches(&msg, endian));
        // Only the operand's low byte counts at length 1: 0x185 equals 0x85.
        assert!(body_rule(Operator::Eq, OperandLength::One, 0x185).matches(&msg, endian));
        assert!(body_rule(Operator::Eq, OperandLength::One, -123).matches(&msg, endian));
        // Two bytes in the message's own order.
        let body = body_with(0x1234, OperandLength::Two, endian);
        let msg = message(&body, endian);
        assert!(body_rule(Operator::Eq, OperandLength::Two, 0x1234).matches(&msg, endian));
        assert!(body_rule(Operator::Eq, OperandLength::Two, 0x7_1234).matches(&msg, endian));
        let swapped = message(&body, endian.swapped());
        assert!(!body_rule(Operator::Eq, OperandLength::Two, 0x1234).matches(&swapped, endian));
    }
}

#[test]
fn a_rule_beyond_the_body_is_false_except_any() {
    let body = [1u8, 2, 3, 4];
    let msg = message(&body, Endian::Big);
    let at = |offset: u32, op, length| {
        SelectionRule::new(
            Selector::Body(BodyOffset::new(offset).unwrap()),
            op,
            length,
            0,
        )
        .matches(&msg, Endian::Big)
    };
    assert!(at(3, Operator::Neq, OperandLength::One)); // last byte, inside
    assert!(!at(3, Operator::Neq, OperandLength::Two)); // runs one byte past
    assert!(!at(4, Operator::Neq, OperandLength::One)); // starts at the end
    assert!(at(0, Operator::Neq, OperandLength::Four)); // the whole body
    assert!(!at(i32::MAX as u32, Operator::Eq, OperandLength::Four));
    assert!(!at(i32::MAX as u32, Operator::Neq, OperandLength::Four));
    assert!(at(i32::MAX as u32, Operator::Any, OperandLength::Four));
}

#[test]
fn class_and_type_compare_as_16_bits() {
    let msg = message(&[], Endian::Little);
    let rule = |sel, op, operand| {
        SelectionRule::new(sel, op, OperandLength::Four, operand).matches(&msg, Endian::Little)
    };
    // The sample's registration uses length 4 for class and type.
    assert!(rule(Selector::Class, Operator::Eq, 29));
    assert!(rule(Selector::Class, Operator::Eq, 0x1_001D)); // high bits ignored
    assert!(rule(Selector::Class, Operator::Gtr, 28));
    assert!(!rule(Selector::Class, Operator::Gtr, 29));
    assert!(rule(Selector::Class, Operator::Lte, 29));
    assert!(rule(Selector::Class, Operator::And, 1)); // 29 is odd
    assert!(!rule(Selector::Class, Operator::And, 2));
    assert!(rule(Selector::Type, Operator::Eq, -1196));
    assert!(rule(Selector::Type, Operator::Lt, -1195));
    assert!(rule(Selector::Type, Operator::Neq, 1196));
    assert!(rule(Selector::Type, Operator::Gtre, -1196));
    // Other lengths compare the same 16 bits.
    for length in [OperandLength::One, OperandLength::Two] {
        assert!(
            SelectionRule::new(Selector::Type, Operator::Eq, length, -1196)
                .matches(&msg, Endian::Little)
        );
    }
}

#[test]
fn source_is_the_original_source_as_a_q_address() {
    let msg = message(&[], Endian::Big);
    for order in Endian::BOTH {
        let all = PUBLISHER.to_all(order);
        let rule = |op, operand| {
            SelectionRule::new(Selector::Source, op, OperandLength::Four, operand)
                .matches(&msg, order)
        };
        assert!(rule(Operator::Eq, all), "{order:?}");
        assert!(!rule(Operator::Eq, QAddress::new(7, 2).to_all(order)));
        assert!(rule(Operator::Neq, QAddress::new(5110, 0).to_all(order)));
        assert!(rule(Operator::Gtre, all) && rule(Operator::Lte, all));
        assert!(rule(Operator::And, all));
    }
    // Little-endian all = group << 16 | queue: 7.1 is 0x0007_0001.
    let rule = SelectionRule::new(
        Selector::Source,
        Operator::Eq,
        OperandLength::Four,
        0x0007_0001,
    );
    assert!(rule.matches(&msg, Endian::Little));
    assert!(!rule.matches(&msg, Endian::Big));
}

fn set(conjunction: Conjunction, rules: &[SelectionRule]) -> RuleSet<'_> {
    RuleSet {
        conjunction,
        rules,
        registration_order: Endian::Big,
    }
}

#[test]
fn all_versus_any_and_no_rules() {
    let msg = message(&[], Endian::Big);
    let t = SelectionRule::new(Selector::Class, Operator::Eq, OperandLength::Four, 29);
    let f = SelectionRule::new(Selector::Class, Operator::Eq, OperandLength::Four, 30);
    for (rules, all, any) in [
        (vec![], true, true),
        (vec![t], true, true),
        (vec![f], false, false),
        (vec![t, f], false, true),
        (vec![f, t], false, true),
        (vec![t, t], true, true),
        (vec![f, f], false, false),
    ] {
        assert_eq!(
            set(Conjunction::All, &rules).matches(&msg),
            all,
            "{rules:?}"
        );
        assert_eq!(
            set(Conjunction::Any, &rules).matches(&msg),
            any,
            "{rules:?}"
        );
    }
    let mut many = vec![t; 255];
    assert!(set(Conjunction::All, &many).matches(&msg));
    many[254] = f;
    assert!(!set(Conjunction::All, &many).matches(&msg));
    assert!(set(Conjunction::Any, &many).matches(&msg));
    let mut many = vec![f; 255];
    assert!(!set(Conjunction::Any, &many).matches(&msg));
    many[0] = t;
    assert!(set(Conjunction::Any, &many).matches(&msg));
}

#[test]
fn generation_does_not_change_evaluation() {
    let msg = message(&[], Endian::Big);
    for op in Operator::ALL.into_iter().filter(|&o| o != Operator::And) {
        let mut r = SelectionRule::new(Selector::Class, op, OperandLength::Four, 29);
        let bea = r.matches(&msg, Endian::Big);
        r.generation = HeaderGeneration::DmqV10;
        assert_eq!(r.matches(&msg, Endian::Big), bea);
        let w = r.to_wire().unwrap();
        let back = SelectionRule::from_wire(w[0], w[1], w[2], w[3]).unwrap();
        // Written back with the values it was read with (ANY is 0 in both).
        assert_eq!(back.to_wire().unwrap(), w);
        assert_eq!(back.operator, op);
    }
}

#[test]
fn a_decoded_registration_selects_broadcasts() {
    // The sample's registration: PSEL_TYPE EQ 25 and PSEL_CLASS GTR 50, all rules.
    let mut body = Vec::new();
    for v in [
        40,
        5155,
        5100,
        0x0001_0007,
        1,
        1,
        0,
        2,
        1,
        -3,
        -1,
        4,
        25,
        -2,
        -3,
        4,
        50,
    ] {
        body.extend(i32::to_le_bytes(v));
    }
    let reg = RegisterReq::decode(&body, Endian::Little).unwrap();
    assert_eq!(reg.distribution_q, QAddress::new(1, 7));
    let rules = reg.rule_set(Endian::Little);
    let b = |class, msg_type| Broadcast {
        class,
        msg_type,
        original_source: PUBLISHER,
        body: &[],
        endian: Endian::Big,
    };
    assert!(rules.matches(&b(51, 25)));
    assert!(!rules.matches(&b(50, 25)));
    assert!(!rules.matches(&b(51, 26)));
    let mut any = reg.clone();
    any.rule_conjunct = 2;
    assert!(any.rule_set(Endian::Little).matches(&b(50, 25)));
    assert!(!any.rule_set(Endian::Little).matches(&b(50, 24)));
}

//! Distribution of broadcasts by the SBS server: every operator at operand
//! lengths 1, 2 and 4 at a body offset and on PSEL_CLASS, PSEL_TYPE and
//! PSEL_SOURCE; match all vs any; 0 and 255 rules; one copy per queue.
//!
//! Expected values: the operator meanings of BEA MessageQ 5.0 Programmer's
//! Guide, "Broadcasting Messages", Table 3-3, with the 5.0 operator values
//! of `p_symbol.h` 5.0; the selectors of Table 3-2 (PSEL_SOURCE compares
//! "the original source field, not the MOT address"); "The operand length
//! can be 1, 2, or 4 bytes only"; "Message distribution can be made if any
//! or all of the selection rules are found to be true"; "The SBS Server
//! delivers only one copy of each message ... to each target queue,
//! regardless of how many selection matches are made"; delivered copies
//! have "the source field ... the MOT address" and the publisher in
//! `original_source`. Signed comparison in the message's byte order, and
//! PSEL_CLASS/PSEL_TYPE as 16-bit fields whatever the length, are mqgate's
//! choices (docs/messageq.md "Comparisons").

#[path = "sbs_util/mod.rs"]
mod sbs_util;

use mqgate_codecs::pams::{Endian, QAddress};
use sbs_util::*;

const LENGTHS: [i32; 3] = [1, 2, 4];

/// `v` as `len` bytes in `order`.
fn bytes_of(v: i64, len: i32, order: Endian) -> Vec<u8> {
    match (len, order) {
        (1, _) => vec![v as i8 as u8],
        (2, o) => i16_bytes(v as i16, o).to_vec(),
        (_, o) => i32_bytes(v as i32, o).to_vec(),
    }
}

#[test]
fn every_operator_at_every_length_on_a_body_offset() {
    // One queue per (operator, length): queue 200 + 3 * operator index + length index.
    let mut qct = String::new();
    let mut queues = Vec::new();
    for (oi, (op, _)) in OPERATORS.iter().enumerate() {
        for (li, len) in LENGTHS.iter().enumerate() {
            let n = 200 + (3 * oi + li) as u16;
            qct.push_str(&qct_line(&format!("B_{op}_{len}"), n, ".", "."));
            queues.push((n, *op, *len));
        }
    }
    let g = Group::start(10, &init_file(&qct));
    const OFFSET: i32 = 3;
    const OPERAND: i64 = 0x12;
    // Each length has its own MOT, so a rule reads only values of its width.
    let mot = |len: i32| 4100 + len;
    for &(n, op, len) in &queues {
        let value = OPERATORS.iter().find(|o| o.0 == op).unwrap().1;
        register(
            &g,
            mot(len),
            n,
            ALL,
            &[Rule(OFFSET, value, len, OPERAND as i32)],
            false,
        );
    }
    // Values around the operand, one with no bit in common (AND false), a
    // negative one (signed comparison); each in both byte orders.
    let values: [i64; 5] = [OPERAND - 1, OPERAND, OPERAND + 1, 0x01, -5];
    let publisher = QAddress::new(10, 30);
    for len in LENGTHS {
        for (vi, v) in values.iter().enumerate() {
            for (oi, order) in Endian::BOTH.into_iter().enumerate() {
                let mut area = vec![(vi * 2 + oi) as u8, 0xEE, 0xEE];
                area.extend(bytes_of(*v, len, order));
                area.extend_from_slice(b"tail");
                g.publish(mot(len) as u16, publisher, 1, 1, &area, order);
            }
        }
    }
    g.sync();
    for &(n, op, len) in &queues {
        let got = g.drain(&format!("B_{op}_{len}"));
        let ids: Vec<u8> = got.iter().map(|(_, a)| a[0]).collect();
        let expected: Vec<u8> = values
            .iter()
            .enumerate()
            .flat_map(|(vi, v)| {
                let hit = holds(op, *v, OPERAND);
                [0u8, 1]
                    .into_iter()
                    .filter(move |_| hit)
                    .map(move |o| (vi * 2) as u8 + o)
            })
            .collect();
        assert_eq!(ids, expected, "queue {n}: PSEL_OPER_{op}, length {len}");
        for (h, area) in &got {
            // Source = the MOT, original source = the publisher, the area byte for byte.
            assert_eq!(h.source, QAddress::new(10, mot(len) as u16));
            assert_eq!(h.original_target, QAddress::new(10, mot(len) as u16));
            assert_eq!(h.original_source, publisher);
            assert_eq!(&area[area.len() - 4..], b"tail");
        }
    }
}

#[test]
fn every_operator_on_class_type_and_source_at_every_length() {
    let selectors = [
        ("CLASS", PSEL_CLASS),
        ("TYPE", PSEL_TYPE),
        ("SOURCE", PSEL_SOURCE),
    ];
    let mut qct = String::new();
    let mut queues = Vec::new();
    let mut n = 300u16;
    for (sel, _) in selectors {
        for (op, _) in OPERATORS {
            for len in LENGTHS {
                qct.push_str(&qct_line(&format!("H_{sel}_{op}_{len}"), n, ".", "."));
                queues.push((n, sel, op, len));
                n += 1;
            }
        }
    }
    let g = Group::start(10, &init_file(&qct));
    const MOT: i32 = 4200;
    // Registrations are sent big-endian, so a PSEL_SOURCE operand is the
    // q_address `all` member as a big-endian program sees it.
    let operand_source = addr_all(QAddress::new(10, 41), Endian::Big);
    let operand = |sel: &str| match sel {
        "CLASS" => 50,
        "TYPE" => 10,
        _ => operand_source,
    };
    for &(n, sel, op, len) in &queues {
        let offset = selectors.iter().find(|s| s.0 == sel).unwrap().1;
        let value = OPERATORS.iter().find(|o| o.0 == op).unwrap().1;
        register(
            &g,
            MOT,
            n,
            ALL,
            &[Rule(offset, value, len, operand(sel))],
            false,
        );
    }
    // (class, type, source queue) of each message.
    let messages: [(i16, i16, u16); 5] = [
        (49, 9, 40),
        (50, 10, 41),
        (51, 11, 42),
        (1, 5, 1),
        (-1, -1196, 50),
    ];
    for (i, (class, msg_type, src)) in messages.iter().enumerate() {
        let order = if i % 2 == 0 {
            Endian::Little
        } else {
            Endian::Big
        };
        g.publish(
            MOT as u16,
            QAddress::new(10, *src),
            *class,
            *msg_type,
            &[i as u8],
            order,
        );
    }
    g.sync();
    for &(n, sel, op, len) in &queues {
        let ids: Vec<u8> = g
            .drain(&format!("H_{sel}_{op}_{len}"))
            .iter()
            .map(|(_, a)| a[0])
            .collect();
        let expected: Vec<u8> = messages
            .iter()
            .enumerate()
            .filter(|(_, (class, msg_type, src))| {
                let data = match sel {
                    "CLASS" => i64::from(*class),
                    "TYPE" => i64::from(*msg_type),
                    _ => i64::from(addr_all(QAddress::new(10, *src), Endian::Big)),
                };
                holds(op, data, i64::from(operand(sel)))
            })
            .map(|(i, _)| i as u8)
            .collect();
        assert_eq!(
            ids, expected,
            "queue {n}: PSEL_{sel} PSEL_OPER_{op} length {len}"
        );
    }
}

#[test]
fn match_all_and_match_any() {
    let qct = qct_line("ALLQ", 10, ".", ".") + &qct_line("ANYQ", 11, ".", ".");
    let g = Group::start(10, &init_file(&qct));
    let rules = [Rule(PSEL_CLASS, -1, 4, 50), Rule(PSEL_TYPE, -1, 4, 10)];
    register(&g, 4300, 10, ALL, &rules, false);
    register(&g, 4300, 11, ANY, &rules, false);
    let src = QAddress::new(10, 30);
    for (i, (class, t)) in [(50, 10), (50, 11), (49, 10), (49, 11)].iter().enumerate() {
        g.publish(4300, src, *class, *t, &[i as u8], Endian::Big);
    }
    g.sync();
    let ids = |q: &str| g.drain(q).iter().map(|(_, a)| a[0]).collect::<Vec<_>>();
    assert_eq!(ids("ALLQ"), [0], "PSEL_ALL_RULES: both rules true");
    assert_eq!(ids("ANYQ"), [0, 1, 2], "PSEL_ANY_RULE: one rule true");
}

#[test]
fn no_rules_take_everything_and_255_rules_are_evaluated() {
    let qct = qct_line("EVERY", 10, ".", ".")
        + &qct_line("R255ALL", 11, ".", ".")
        + &qct_line("R255ANY", 12, ".", ".");
    let g = Group::start(10, &init_file(&qct));
    register(&g, 4400, 10, ALL, &[], false);
    // 255 rules, "up to 255 selection rules" (Programmer's Guide): byte i == i.
    let all: Vec<Rule> = (0..255).map(|i| Rule(i, -1, 1, i)).collect();
    register(&g, 4400, 11, ALL, &all, false);
    // 255 rules OR-ed: byte i == 0xFF (as a signed byte, -1).
    let any: Vec<Rule> = (0..255).map(|i| Rule(i, -1, 1, 0xFF)).collect();
    register(&g, 4400, 12, ANY, &any, false);
    let src = QAddress::new(10, 30);
    let counting: Vec<u8> = (0..=254).collect();
    let mut one_off = counting.clone();
    one_off[200] = 7;
    let mut ff_at_end = vec![0u8; 255];
    ff_at_end[254] = 0xFF;
    for area in [&counting, &one_off, &ff_at_end, &vec![0u8; 255]] {
        g.publish(4400, src, 1, 1, area, Endian::Big);
    }
    g.sync();
    assert_eq!(g.drain("EVERY").len(), 4, "rule_count 0 matches everything");
    let r = g.drain("R255ALL");
    assert_eq!(r.len(), 1);
    assert_eq!(r[0].1, counting);
    let r = g.drain("R255ANY");
    assert_eq!(r.len(), 1);
    assert_eq!(r[0].1, ff_at_end);
}

#[test]
fn one_copy_per_queue_however_many_registrations_match() {
    let qct = qct_line("ONCE", 10, ".", ".") + &qct_line("OTHER", 11, ".", ".");
    let g = Group::start(10, &init_file(&qct));
    register(&g, 4500, 10, ALL, &[], false);
    register(&g, 4500, 10, ALL, &[Rule(PSEL_CLASS, -1, 4, 1)], false);
    register(
        &g,
        4500,
        10,
        ANY,
        &[Rule(0, 0, 1, 0), Rule(PSEL_TYPE, -5, 2, 0)],
        false,
    );
    // The obsolete SBS_REG_EZ of the same queue too (packed, `p_msg.h`
    // V4.0-08: int16 version 20, int16 mot, q_address), big-endian.
    let mut ez = 20i16.to_be_bytes().to_vec();
    ez.extend_from_slice(&4500i16.to_be_bytes());
    ez.extend_from_slice(&addr_bytes(g.addr(10), Endian::Big));
    let (h, _) = g.ask(types::REG_EZ, &ez, Endian::Big);
    assert_eq!(h.msg_type, types::REG_EZ_REPLY);
    register(&g, 4500, 11, ALL, &[], false);
    for i in 0..3u8 {
        g.publish(4500, QAddress::new(10, 30), 1, 1, &[i], Endian::Big);
    }
    g.sync();
    let ids = |q: &str| g.drain(q).iter().map(|(_, a)| a[0]).collect::<Vec<_>>();
    assert_eq!(
        ids("ONCE"),
        [0, 1, 2],
        "one copy each, four registrations matching"
    );
    assert_eq!(ids("OTHER"), [0, 1, 2]);
}

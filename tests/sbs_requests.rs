//! SBS requests on queue 99 answered byte for byte in the request's byte
//! order — SBS_REGISTER_REQ, SBS_DEREGISTER_REQ, SBS_STATUS_REQ and the V3.2
//! SBS_REG, SBS_REG_EZ, SBS_DEREG, SBS_DEREG_BY_ID — and bad requests
//! answered with the failure status without disturbing anything else.
//!
//! Expected bytes are written here from the layouts of BEA MessageQ
//! `p_msg.h` V4.0-08 (SBS_REGISTER_RESP: version, user_tag, status, reg_id,
//! number_reg; SBS_DEREGISTER_RESP: version, status, user_tag, number_reg;
//! SBS_STATUS_RESP: version, user_tag, status, num_rec, last_block, data;
//! the packed V3.2 replies), the types of `p_typecl.h` V5.0-01, the statuses
//! of `p_symbol.h` 5.0 (PSYM_SBS_SUCCESS 1, PSYM_SBS_BADPARAM 20,
//! PSYM_SBS_NOMATCH 1012) and the deregistration rules of the BEA MessageQ
//! 5.0 Programmer's Guide, "Deregistering from Receiving Broadcast Messages".
//! mqgate's choices (reg_id from 1, `number_reg` per MOT and queue, the
//! response queue, PAMS__BADPARAM -186 in the V3.2 replies, dead-lettering
//! what is no request) are in docs/messageq.md.

#[path = "sbs_util/mod.rs"]
mod sbs_util;

use mqgate_codecs::pams::{Endian, PamsHeader, QAddress};
use sbs_util::*;

fn ints(vs: &[i32], order: Endian) -> Vec<u8> {
    vs.iter().flat_map(|v| i32_bytes(*v, order)).collect()
}

fn deregister_req(tag: i32, mot: i32, q: QAddress, reg_id: i32, order: Endian) -> Vec<u8> {
    let mut b = ints(&[40, tag, mot], order);
    b.extend_from_slice(&addr_bytes(q, order));
    b.extend(ints(&[reg_id, 1], order));
    b
}

fn qct() -> String {
    qct_line("RESPQ", 3, ".", ".") + &qct_line("DEST", 10, ".", ".")
}

#[test]
fn extended_requests_are_answered_byte_for_byte_in_either_order() {
    let g = Group::start(10, &init_file(&qct()));
    let dest = g.addr(10);
    let mut next_id = 1;
    for (mot, order) in [(4700, Endian::Big), (4701, Endian::Little)] {
        let rule = [Rule(PSEL_TYPE, -1, 4, 7)];
        let req = register_req(0x0102_0304, mot, dest, true, false, ALL, &rule, order);
        let (h, resp) = g.ask(types::REGISTER_REQ, &req, order);
        assert_eq!((h.class, h.msg_type), (CLASS_PAMS, types::REGISTER_RESP));
        assert_eq!(h.source, QAddress::new(10, 99));
        assert_eq!(
            resp,
            ints(&[40, 0x0102_0304, 1, next_id, 1], order),
            "{order:?}"
        );
        let first = next_id;
        next_id += 1;
        // The same queue again: number_reg counts the MOT's registrations of the queue.
        let (_, resp) = g.ask(types::REGISTER_REQ, &req, order);
        assert_eq!(resp, ints(&[40, 0x0102_0304, 1, next_id, 2], order));
        next_id += 1;
        // SBS_STATUS_REQ for this MOT only.
        let (h, resp) = g.ask(
            types::STATUS_REQ,
            &ints(&[40, 66, mot, mot, 0], order),
            order,
        );
        assert_eq!(h.msg_type, types::STATUS_RESP);
        assert_eq!(&resp[..20], &ints(&[40, 66, 1, 1, 1], order)[..]);
        assert_eq!(
            &resp[20..24],
            &i32_bytes(mot, order),
            "SBS_STATUS_RESP_MOT mot"
        );
        assert_eq!(
            &resp[60..64],
            &i32_bytes(2, order),
            "SBS_STATUS_RESP_MOT num_reg"
        );
        // Deregister by reg_id: that entry only.
        let (h, resp) = g.ask(
            types::DEREGISTER_REQ,
            &deregister_req(5, mot, dest, first, order),
            order,
        );
        assert_eq!(h.msg_type, types::DEREGISTER_RESP);
        assert_eq!(resp, ints(&[40, 1, 5, 1], order));
        // Again: nothing has that id now.
        let (_, resp) = g.ask(
            types::DEREGISTER_REQ,
            &deregister_req(6, mot, dest, first, order),
            order,
        );
        assert_eq!(resp, ints(&[40, 1012, 6, 1], order), "PSYM_SBS_NOMATCH");
        // Without reg_id: every entry of the MOT and queue.
        let (_, resp) = g.ask(
            types::DEREGISTER_REQ,
            &deregister_req(7, mot, dest, 0, order),
            order,
        );
        assert_eq!(resp, ints(&[40, 1, 7, 0], order));
    }
    // The reply goes to the response queue when the request names one.
    let req = register_req(8, 4702, dest, true, false, ALL, &[], Endian::Big);
    let mut h = PamsHeader::new(
        CLASS_PAMS,
        types::REGISTER_REQ,
        g.addr(CTL),
        g.addr(99),
        Endian::Big,
    );
    h.resp_q = QAddress::new(0, 3);
    h.correlation_id = [0x5A; 32];
    g.put(&g.sbs_queue(), &h, &req);
    let (rh, resp) = g.get("RESPQ", 10_000).expect("reply on the response queue");
    assert_eq!(resp, ints(&[40, 8, 1, next_id, 1], Endian::Big));
    assert_eq!(
        rh.correlation_id, [0x5A; 32],
        "the request's correlation id"
    );
    g.sync();
    assert!(g.drain("CTL").is_empty(), "nothing on the source queue");
}

#[test]
fn v32_requests_get_their_old_replies() {
    let g = Group::start(10, &init_file(&qct()));
    let le = Endian::Little;
    let dest = g.addr(10);
    // SBS_REG: int16 version 20, uint16 mot, q_address, int16 offset (1-based:
    // 1 = the first byte), char data_operator (DECmessageQ V1.0 PSEL_OPER_EQ
    // 1), int16 length 1, uint32 operand 'A', req_ack 1, req_seqgap 0, req_autodereg 0.
    let mut reg = 20i16.to_le_bytes().to_vec();
    reg.extend_from_slice(&4800u16.to_le_bytes());
    reg.extend_from_slice(&addr_bytes(dest, le));
    reg.extend_from_slice(&1i16.to_le_bytes());
    reg.push(1);
    reg.extend_from_slice(&1i16.to_le_bytes());
    reg.extend_from_slice(&u32::from(b'A').to_le_bytes());
    reg.extend_from_slice(&[1, 0, 0]);
    let (h, reply) = g.ask(types::REG, &reg, le);
    assert_eq!(h.msg_type, types::REG_REPLY);
    // SBS_REG_REPLY: int16 status 1, uint16 reg_id 1, int16 number_reg 1.
    assert_eq!(reply, [1, 0, 1, 0, 1, 0]);
    for area in [b"A-one", b"B-two"] {
        g.publish(4800, QAddress::new(10, 30), 1, 1, area, le);
    }
    g.sync();
    let got: Vec<Vec<u8>> = g.drain("DEST").into_iter().map(|(_, a)| a).collect();
    assert_eq!(got, [b"A-one".to_vec()], "the one rule of SBS_REG");
    // SBS_DEREG: version 20, mot, q_address, req_ack 1 → SBS_DEREG_ACK: status 1, number_reg 0.
    let mut dereg = 20i16.to_be_bytes().to_vec();
    dereg.extend_from_slice(&4800u16.to_be_bytes());
    dereg.extend_from_slice(&addr_bytes(dest, Endian::Big));
    dereg.push(1);
    let (h, ack) = g.ask(types::DEREG, &dereg, Endian::Big);
    assert_eq!(h.msg_type, types::DEREG_ACK);
    assert_eq!(ack, [0, 1, 0, 0]);
    // SBS_REG_EZ: version 20, mot, q_address → SBS_REG_EZ_REPLY: status 1, reg_id 2, number_reg 1.
    let mut ez = 20i16.to_be_bytes().to_vec();
    ez.extend_from_slice(&4801i16.to_be_bytes());
    ez.extend_from_slice(&addr_bytes(dest, Endian::Big));
    let (h, reply) = g.ask(types::REG_EZ, &ez, Endian::Big);
    assert_eq!(h.msg_type, types::REG_EZ_REPLY);
    assert_eq!(reply, [0, 1, 0, 2, 0, 1]);
    // SBS_DEREG_BY_ID: int16 version 10, uint16 reg_id 2, req_ack 1 → SBS_DEREG_ACK.
    let (h, ack) = g.ask(types::DEREG_BY_ID, &[0, 10, 0, 2, 1], Endian::Big);
    assert_eq!(h.msg_type, types::DEREG_ACK);
    assert_eq!(ack, [0, 1, 0, 0]);
    // Again: no such id → PAMS__BADPARAM -186.
    let (_, ack) = g.ask(types::DEREG_BY_ID, &[0, 10, 0, 2, 1], Endian::Big);
    assert_eq!(ack, [0xFF, 0x46, 0, 0]);
}

#[test]
fn bad_requests_are_answered_and_disturb_nothing() {
    let g = Group::start(10, &init_file(&qct()));
    let dest = g.addr(10);
    let be = Endian::Big;
    // A good registration first: it must survive everything below.
    register(&g, 4900 - 1, 10, ALL, &[], false);
    let badparam = |tag: i32| ints(&[40, tag, 20, 0, 0], be);
    // Truncated: 10 bytes of a 36-byte head (the user_tag is there).
    let mut short = ints(&[40, 51], be);
    short.extend_from_slice(&[0, 0]);
    assert_eq!(g.ask(types::REGISTER_REQ, &short, be).1, badparam(51));
    // Oversize: 4133 bytes.
    let mut long = register_req(52, 4100, dest, true, false, ALL, &[], be);
    long.push(0);
    assert_eq!(g.ask(types::REGISTER_REQ, &long, be).1, badparam(52));
    // rule_count 300.
    let mut many = register_req(53, 4100, dest, true, false, ALL, &[], be);
    many[28..32].copy_from_slice(&300i32.to_be_bytes());
    assert_eq!(g.ask(types::REGISTER_REQ, &many, be).1, badparam(53));
    // Operand length 3.
    let req = register_req(54, 4100, dest, true, false, ALL, &[Rule(0, -1, 3, 1)], be);
    assert_eq!(g.ask(types::REGISTER_REQ, &req, be).1, badparam(54));
    // Matching on priority is not supported: no selector below PSEL_TYPE -3.
    let req = register_req(55, 4100, dest, true, false, ALL, &[Rule(-6, -1, 4, 1)], be);
    assert_eq!(g.ask(types::REGISTER_REQ, &req, be).1, badparam(55));
    // Not a MOT.
    let req = register_req(56, 3999, dest, true, false, ALL, &[], be);
    assert_eq!(g.ask(types::REGISTER_REQ, &req, be).1, badparam(56));
    // Wrong class: class 30 with the SBS_REGISTER_REQ type and a good body.
    let req = register_req(57, 4100, dest, true, false, ALL, &[], be);
    let mut h = PamsHeader::new(30, types::REGISTER_REQ, g.addr(CTL), g.addr(99), be);
    h.resp_q = g.addr(CTL);
    g.put(&g.sbs_queue(), &h, &req);
    assert_eq!(g.get("CTL", 10_000).unwrap().1, badparam(57));
    // Truncated SBS_DEREGISTER_REQ and oversize SBS_STATUS_REQ.
    let (h, resp) = g.ask(types::DEREGISTER_REQ, &ints(&[40, 58, 4100], be), be);
    assert_eq!(h.msg_type, types::DEREGISTER_RESP);
    assert_eq!(resp, ints(&[40, 20, 58, 0], be));
    let (h, resp) = g.ask(
        types::STATUS_REQ,
        &ints(&[40, 59, 4000, 6000, 0, 0], be),
        be,
    );
    assert_eq!(h.msg_type, types::STATUS_RESP);
    assert_eq!(resp, ints(&[40, 59, 20, 0, 1], be));
    // Truncated V3.2 SBS_REG: SBS_REG_REPLY with PAMS__BADPARAM -186.
    let (h, resp) = g.ask(types::REG, &[0, 20, 0x12], be);
    assert_eq!(h.msg_type, types::REG_REPLY);
    assert_eq!(resp, [0xFF, 0x46, 0, 0, 0, 0]);

    // What is no request goes to the dead-letter queue, unanswered: a
    // response type, an unknown type, a message without the PAMS header,
    // a broadcast to a reserved MOT (4900-5100, Table 3-1), and headers
    // with a priority outside 0-99 or an endian neither
    // PSYM_LITTLE_ENDIAN 0 nor PSYM_BIG_ENDIAN 1 (2142 MQRC_HEADER_ERROR).
    let dlq = "SYSTEM.DEAD.LETTER.QUEUE";
    let before = g.depth(dlq);
    g.send_request(types::REGISTER_RESP, &ints(&[40, 0, 1, 1, 1], be), be);
    g.send_request(-9, b"?", be);
    g.put_raw(&g.sbs_queue(), "MQSTR", b"hello");
    g.put_raw(&g.sbs_queue(), "MQGPAMS", b"short");
    register(&g, 4950, 10, ALL, &[], false);
    g.publish(4950, QAddress::new(10, 30), 1, 1, b"reserved", be);
    let status_req = ints(&[40, 61, 4000, 6000, 0], be);
    let h = PamsHeader::new(CLASS_PAMS, types::STATUS_REQ, g.addr(CTL), g.addr(99), be);
    g.put(
        &g.sbs_queue(),
        &PamsHeader { priority: 100, ..h },
        &status_req,
    );
    g.put(&g.sbs_queue(), &PamsHeader { endian: 2, ..h }, &status_req);
    g.sync();
    assert_eq!(g.depth(dlq), before + 7);
    assert!(g.drain("CTL").is_empty(), "no answers to them");
    assert!(g.drain("DEST").is_empty(), "no copy from the reserved MOT");

    // The first registration still distributes, and nothing above registered anything.
    g.publish(4899, QAddress::new(10, 30), 1, 1, b"still here", be);
    g.sync();
    let got: Vec<Vec<u8>> = g.drain("DEST").into_iter().map(|(_, a)| a).collect();
    assert_eq!(got, [b"still here".to_vec()]);
    let (_, resp) = g.ask(types::STATUS_REQ, &ints(&[40, 60, 4000, 6000, 0], be), be);
    // Two MOTs with registrations: 4899 (1 registration), 4950 (1).
    assert_eq!(&resp[..20], &ints(&[40, 60, 1, 2, 1], be)[..]);
    assert_eq!(&resp[20..24], &4899i32.to_be_bytes());
    assert_eq!(&resp[60..64], &1i32.to_be_bytes());
    assert_eq!(&resp[172..176], &4950i32.to_be_bytes());
}

#[test]
fn an_answer_takes_the_persistence_of_its_request() {
    // IBM MQ "Persistence (MQLONG)": a reply uses the persistence of the
    // request (MQPER_PERSISTENT 1, MQPER_NOT_PERSISTENT 0). CTL, a %QCT
    // queue, is non-persistent by default, so the persistent answer is the
    // request's, not the queue's.
    use base64::Engine;
    let g = Group::start(10, &init_file(""));
    let be = Endian::Big;
    for (tag, persistence) in [(71, 1), (72, 0)] {
        let h = PamsHeader::new(CLASS_PAMS, types::STATUS_REQ, g.addr(CTL), g.addr(99), be);
        let body = serde_json::json!({
            "md": {"Format": "MQGPAMS", "Encoding": 273, "Persistence": persistence},
            "data_base64": base64::engine::general_purpose::STANDARD
                .encode(h.with_area(&ints(&[40, tag, 1, 0, 0], be))),
        });
        let (st, v) = g.call(
            "POST",
            &format!("/v1/queues/{}/messages", g.sbs_queue()),
            Some(body),
        );
        assert_eq!(st, 201, "{v}");
        let (st, v) = g.call("GET", "/v1/queues/CTL/messages/next?wait_ms=5000", None);
        assert_eq!(st, 200, "{v}");
        assert_eq!(
            v["md"]["Persistence"], persistence,
            "answer to tag {tag}: {v}"
        );
        let lease = v["lease"].as_str().unwrap();
        let (st, _) = g.call(
            "POST",
            &format!("/v1/queues/CTL/messages/ack/{lease}"),
            None,
        );
        assert_eq!(st, 200);
    }
}

//! A target queue over its %QCT quota loses its copy of a broadcast while the
//! other registered queues get theirs, and a registration that asked for
//! sequence-gap notices receives one with the number of copies lost before
//! its next copy.
//!
//! Sources of the expected values: BEA MessageQ 5.0 Programmer's Guide,
//! "Broadcasting Messages" ("There is no queuing on a broadcast stream, nor
//! is the stream subject to flow control"; "the SBS Server sends a message
//! of type SBS_SEQUENCE_GAP to the target queue whenever a sequence gap is
//! detected"; "receiver queues must be configured with a sufficient message
//! receive quota"); the layouts of `p_msg.h` V4.0-08 (SBS_SEQUENCE_GAP:
//! num_msgs_missing, sender_group, mot, channel; the packed SBS_BS_SEQGAP;
//! SBS_STATUS_RESP and its 152-byte SBS_STATUS_RESP_MOT records); the types
//! of `p_typecl.h` V5.0-01. The gap notice coming just before the next copy
//! that fits, the channel 0, and the store size of a copy (the 96-byte PAMS
//! message header + the message area) are mqgate's (docs/messageq.md).

#[path = "sbs_util/mod.rs"]
mod sbs_util;

use mqgate_codecs::pams::{Endian, QAddress};
use sbs_util::*;

const MOT: u16 = 4600;

fn be(b: &[u8], at: usize) -> i32 {
    i32::from_be_bytes(b[at..at + 4].try_into().unwrap())
}

#[test]
fn a_full_queue_loses_its_copies_and_is_told_how_many() {
    // SMALL: message quota 2; BYTES: byte quota 400 (two copies of a
    // 100-byte area, 196 bytes each as stored); BIG: no quota; OLDQ:
    // message quota 2, registered with the V3.2 SBS_REG.
    let qct = qct_line("SMALL", 20, ".", "2")
        + &qct_line("BYTES", 21, "400", ".")
        + &qct_line("BIG", 22, ".", ".")
        + &qct_line("OLDQ", 23, ".", "2");
    let g = Group::start(10, &init_file(&qct));
    register(&g, i32::from(MOT), 20, ALL, &[], true);
    register(&g, i32::from(MOT), 21, ALL, &[], true);
    register(&g, i32::from(MOT), 22, ALL, &[], false);
    // SBS_REG (packed, 20 bytes, little-endian): version 20, mot, q_address,
    // offset 0 (no matching), operator 0, length 0, operand 0, req_ack 1,
    // req_seqgap 1, req_autodereg 0.
    let mut reg = 20i16.to_le_bytes().to_vec();
    reg.extend_from_slice(&MOT.to_le_bytes());
    reg.extend_from_slice(&addr_bytes(g.addr(23), Endian::Little));
    reg.extend_from_slice(&[0, 0, 0, 0, 0, 0, 0, 0, 0, 1, 1, 0]);
    assert_eq!(reg.len(), 20);
    let (h, reply) = g.ask(types::REG, &reg, Endian::Little);
    assert_eq!(h.msg_type, types::REG_REPLY);
    // SBS_REG_REPLY: int16 status 1, uint16 reg_id, int16 number_reg 1.
    assert_eq!(reply.len(), 6);
    assert_eq!(&reply[0..2], &1i16.to_le_bytes());
    assert_eq!(&reply[4..6], &1i16.to_le_bytes());

    let publisher = QAddress::new(10, 30);
    for i in 0..5u8 {
        let mut area = vec![i];
        area.resize(100, 0xAA);
        g.publish(MOT, publisher, 1, 1, &area, Endian::Big);
    }
    g.sync();
    assert_eq!(g.depth("SMALL"), 2, "message quota 2");
    assert_eq!(g.depth("BYTES"), 2, "byte quota 400: 2 × 196 bytes");
    assert_eq!(g.depth("OLDQ"), 2, "message quota 2");
    let ids = |q: &str| g.drain(q).iter().map(|(_, a)| a[0]).collect::<Vec<_>>();
    assert_eq!(ids("BIG"), [0, 1, 2, 3, 4], "the others lose nothing");

    // SBS_STATUS_REQ for the MOT: version, user_tag, start_mot, end_mot, reset.
    let mut st = Vec::new();
    for v in [40, 9, i32::from(MOT), i32::from(MOT), 0] {
        st.extend_from_slice(&v.to_be_bytes());
    }
    let (h, resp) = g.ask(types::STATUS_REQ, &st, Endian::Big);
    assert_eq!(h.msg_type, types::STATUS_RESP);
    // Head: version 40, user_tag 9, status PSYM_SBS_SUCCESS 1, num_rec 1, last_block 1.
    assert_eq!(
        [
            be(&resp, 0),
            be(&resp, 4),
            be(&resp, 8),
            be(&resp, 12),
            be(&resp, 16)
        ],
        [40, 9, 1, 1, 1]
    );
    assert_eq!(resp.len(), 20 + 152);
    let rec = &resp[20..];
    // SBS_STATUS_RESP_MOT: mot 0, num_reg 40, complete_rcvd 44, complete_bytes 48, seq_gaps 52.
    assert_eq!(be(rec, 0), i32::from(MOT));
    assert_eq!(be(rec, 40), 4, "four registrations");
    assert_eq!(be(rec, 44), 5, "five broadcasts received");
    assert_eq!(be(rec, 48), 500, "their bytes");
    assert_eq!(be(rec, 52), 3 + 3 + 3, "copies lost");

    assert_eq!(ids("SMALL"), [0, 1]);
    assert_eq!(ids("BYTES"), [0, 1]);
    assert_eq!(ids("OLDQ"), [0, 1]);
    let mut area = vec![5];
    area.resize(100, 0xAA);
    g.publish(MOT, publisher, 1, 1, &area, Endian::Big);
    g.sync();
    for (q, lost) in [("SMALL", 3), ("BYTES", 3)] {
        let got = g.drain(q);
        assert_eq!(got.len(), 2, "{q}: the gap notice, then the copy");
        let (h, gap) = &got[0];
        assert_eq!(
            (h.class, h.msg_type),
            (CLASS_PAMS, types::SEQUENCE_GAP),
            "{q}"
        );
        assert_eq!(h.source, QAddress::new(10, 99), "from the SBS server");
        // num_msgs_missing, sender_group, mot, channel (registration big-endian).
        assert_eq!(gap.len(), 16);
        assert_eq!(
            [be(gap, 0), be(gap, 4), be(gap, 8), be(gap, 12)],
            [lost, 10, i32::from(MOT), 0],
            "{q}"
        );
        assert_eq!(got[1].1[0], 5, "{q}: the copy that fits");
    }
    let got = g.drain("OLDQ");
    assert_eq!(got.len(), 2);
    assert_eq!(got[0].0.msg_type, types::BS_SEQGAP);
    // SBS_BS_SEQGAP packed, little-endian: int32 3, uint16 sender_group 10, uint16 mot, uint16 channel 0.
    let mut expected = 3i32.to_le_bytes().to_vec();
    expected.extend_from_slice(&10u16.to_le_bytes());
    expected.extend_from_slice(&MOT.to_le_bytes());
    expected.extend_from_slice(&0u16.to_le_bytes());
    assert_eq!(got[0].1, expected);
    assert_eq!(got[1].1[0], 5);
    assert_eq!(
        ids("BIG"),
        [5],
        "no gap notice for a queue that lost nothing"
    );
}

//! Every MessageQ constant mqgate takes from the BEA headers, asserted with its
//! source, and the show buffer against a hand-built vector.

use mqgate_codecs::pams::address::{
    MOT_RANGE, PRIVATE_MOTS, RESERVED_MOTS, UNIVERSAL_MOTS, queues,
};
use mqgate_codecs::pams::rules::{
    PSEL_ALL_RULES, PSEL_ANY_RULE, PSEL_CLASS, PSEL_CORRELATION_ID, PSEL_SEQUENCE_NUMBER,
    PSEL_SOURCE, PSEL_TYPE, RULE_SIZE,
};
use mqgate_codecs::pams::sbs::register::{REGISTER_HEAD_SIZE, REGISTER_REQ_FULL_SIZE};
use mqgate_codecs::pams::sbs::types::{self, MSG_CLAS_PAMS, is_reserved_class, is_reserved_type};
use mqgate_codecs::pams::sbs::{
    DeregisterReq, DeregisterResp, RegisterResp, SbsBsSeqgap, SbsDereg, SbsReg, SbsType,
    SequenceGap, StatusReq, StatusRespMot,
};
use mqgate_codecs::pams::show_buffer::{SHOW_BUFFER_MIN_LEN, SHOW_BUFFER_VERSIONS, flags};
use mqgate_codecs::pams::status::{
    PAMS_LAST_FAIL, PSEL_SBS_MAX_SEL_RULES, PSEL_SBSE_MAX_RULES, PSYM_SBS_RAIL_A, PSYM_SBS_RAIL_B,
};
use mqgate_codecs::pams::symbols::{
    HeaderGeneration, MAX_PRIORITY, MAX_STATIC_MSG_SIZE, PDEL_MODES, PDEL_UMAS, PSEL_BY_QUEUE,
    PSEL_ORDER, PSEL_PRI, PSYM_MSG_LARGE,
};
use mqgate_codecs::pams::{Endian, Operator, PamsStatus, QAddress, SbsStatus, ShowBuffer};

#[test]
fn sbs_class_and_types_of_p_typecl_h() {
    // p_typecl.h V5.0-01: MSG_CLAS_PAMS 29; the SBS MSG_TYPE_* values.
    assert_eq!(MSG_CLAS_PAMS, 29);
    let expected: [(&str, i16); 15] = [
        ("SBS_REGISTER_REQ", -1196),
        ("SBS_REGISTER_RESP", -1197),
        ("SBS_DEREGISTER_REQ", -1170),
        ("SBS_DEREGISTER_RESP", -1172),
        ("SBS_STATUS_REQ", -1177),
        ("SBS_STATUS_RESP", -1178),
        ("SBS_SEQUENCE_GAP", -1199),
        ("SBS_REG", -1150),
        ("SBS_REG_REPLY", -1152),
        ("SBS_REG_EZ", -1173),
        ("SBS_REG_EZ_REPLY", -1153),
        ("SBS_DEREG", -1174),
        ("SBS_DEREG_ACK", -1155),
        ("SBS_DEREG_BY_ID", -1154),
        ("SBS_BS_SEQGAP", -1166),
    ];
    for (t, (name, code)) in SbsType::ALL.iter().zip(expected) {
        assert_eq!((t.name(), t.code()), (name, code));
        assert_eq!(SbsType::from_code(code), Some(*t));
        assert!(is_reserved_type(i32::from(code)));
    }
    // DECmessageQ 2.x/3.x only.
    assert_eq!(types::dmq::SBS_PURGE, -1157);
    assert_eq!(types::dmq::SBS_PURGE_ACK, -1158);
    assert_eq!(types::dmq::SBS_DUMP_TABLES, -1162);
    assert_eq!(types::dmq::MOT_DEREG, SbsType::DeregById.code());
    // p_typecl.h: reserved classes 28, 29, 62, 30000-32767; types -1 to -5000.
    for c in [28, 29, 62, 30000, 32767] {
        assert!(is_reserved_class(c), "{c}");
    }
    for c in [1, 27, 30, 63, 29999] {
        assert!(!is_reserved_class(c), "{c}");
    }
    assert!(is_reserved_type(-1) && is_reserved_type(-5000));
    assert!(!is_reserved_type(0) && !is_reserved_type(-5001));
}

#[test]
fn obsolete_to_extended_per_table_3_4() {
    // Programmer's Guide, "Running Existing SBS Applications", Table 3-4.
    let table = [
        (SbsType::BsSeqgap, SbsType::SequenceGap),
        (SbsType::Dereg, SbsType::DeregisterReq),
        (SbsType::DeregAck, SbsType::DeregisterResp),
        (SbsType::DeregById, SbsType::DeregisterReq),
        (SbsType::Reg, SbsType::RegisterReq),
        (SbsType::RegEz, SbsType::RegisterReq),
        (SbsType::RegReply, SbsType::RegisterResp),
        (SbsType::RegEzReply, SbsType::RegisterResp),
    ];
    for (old, new) in table {
        assert!(old.is_obsolete());
        assert_eq!(old.replacement(), new);
        assert!(!new.is_obsolete());
    }
}

#[test]
fn layouts_of_p_msg_h() {
    // p_msg.h V4.0-08: SBS_REGISTER_HEAD nine int32, SBS_REGISTER_RULE four,
    // MAX_SEL_RULES 256; the other extended messages all-int32; the obsolete
    // ones packed (pragma pack(1)).
    assert_eq!(REGISTER_HEAD_SIZE, 36);
    assert_eq!(RULE_SIZE, 16);
    assert_eq!(PSEL_SBS_MAX_SEL_RULES, 256);
    assert_eq!(REGISTER_REQ_FULL_SIZE, 4132);
    assert_eq!(RegisterResp::SIZE, 20);
    assert_eq!(DeregisterReq::SIZE, 24);
    assert_eq!(DeregisterResp::SIZE, 16);
    assert_eq!(StatusReq::SIZE, 20);
    assert_eq!(SequenceGap::SIZE, 16);
    assert_eq!(StatusRespMot::SIZE, 152);
    assert_eq!(SbsReg::SIZE, 20);
    assert_eq!(SbsDereg::SIZE, 9);
    assert_eq!(SbsBsSeqgap::SIZE, 10);
    let reg: Vec<(&str, usize)> = SbsReg::LAYOUT.iter().map(|f| (f.0, f.1)).collect();
    assert_eq!(
        reg,
        [
            ("version", 0),
            ("mot", 2),
            ("distribution_q", 4),
            ("offset", 8),
            ("data_operator", 10),
            ("length", 11),
            ("operand", 13),
            ("req_ack", 17),
            ("req_seqgap", 18),
            ("req_autodereg", 19),
        ]
    );
    // SBS_DEREGISTER_REQ has reg_id before req_ack; SBS_DEREGISTER_RESP status before user_tag.
    fn names(l: &[(&'static str, usize, usize)]) -> Vec<&'static str> {
        l.iter().map(|f| f.0).collect()
    }
    assert_eq!(
        names(DeregisterReq::LAYOUT),
        [
            "version",
            "user_tag",
            "mot",
            "distribution_q",
            "reg_id",
            "req_ack"
        ]
    );
    assert_eq!(
        names(DeregisterResp::LAYOUT),
        ["version", "status", "user_tag", "number_reg"]
    );
}

#[test]
fn selection_symbols_of_p_symbol_h() {
    // p_symbol.h 5.0.
    assert_eq!((PSEL_SOURCE, PSEL_CLASS, PSEL_TYPE), (-1, -2, -3));
    assert_eq!((PSEL_CORRELATION_ID, PSEL_SEQUENCE_NUMBER), (-4, -5));
    assert_eq!((PSEL_ALL_RULES, PSEL_ANY_RULE), (1, 2));
    let bea = |o: Operator| o.value(HeaderGeneration::Bea50);
    let dmq = |o: Operator| o.value(HeaderGeneration::DmqV10);
    assert_eq!(bea(Operator::Any), Some(0));
    assert_eq!(bea(Operator::Eq), Some(-1));
    assert_eq!(bea(Operator::Neq), Some(-2));
    assert_eq!(bea(Operator::Gtr), Some(-3));
    assert_eq!(bea(Operator::Lt), Some(-4));
    assert_eq!(bea(Operator::Gtre), Some(-5));
    assert_eq!(bea(Operator::Lte), Some(-6));
    assert_eq!(bea(Operator::And), Some(7));
    // DECmessageQ V1.0 p_symbol.h.
    assert_eq!(dmq(Operator::Any), Some(0));
    assert_eq!(dmq(Operator::Eq), Some(1));
    assert_eq!(dmq(Operator::Neq), Some(2));
    assert_eq!(dmq(Operator::Gtr), Some(3));
    assert_eq!(dmq(Operator::Lt), Some(4));
    assert_eq!(dmq(Operator::Gtre), Some(5));
    assert_eq!(dmq(Operator::Lte), Some(6));
    assert_eq!(dmq(Operator::And), None);
    let pairs = |s: &[mqgate_codecs::pams::symbols::GenerationSymbol]| {
        s.iter()
            .map(|g| (g.name, g.dmq_v10, g.bea50))
            .collect::<Vec<_>>()
    };
    assert_eq!(
        pairs(&PSEL_PRI),
        [
            ("PSEL_PRI_P0", 1, -6),
            ("PSEL_PRI_P1", 2, -7),
            ("PSEL_PRI_ANY", 3, -8)
        ]
    );
    assert_eq!(
        pairs(&PSEL_ORDER),
        [
            ("PSEL_ORDER_FIFO", 0, 0),
            ("PSEL_ORDER_MIN", 11, -1),
            ("PSEL_ORDER_MAX", 12, -2)
        ]
    );
    let by_queue = pairs(&PSEL_BY_QUEUE);
    assert_eq!(by_queue.first(), Some(&("PSEL_BY_MASK", -1, -1)));
    assert_eq!(by_queue.last(), Some(&("PSEL_TQ_PQ_AQ", -11, -11)));
    assert!(by_queue.contains(&("PSEL_PQ_PRI", -8, -12)));
    // SBS symbols.
    assert_eq!(SbsStatus::SUCCESS.0, 1);
    assert_eq!(SbsStatus::BADPARAM.0, 20);
    assert_eq!(SbsStatus::RESRCFAIL.0, 292);
    assert_eq!(SbsStatus::NOMATCH.0, 1012);
    assert_eq!(PSEL_SBSE_MAX_RULES, 10);
    assert_eq!((PSYM_SBS_RAIL_A, PSYM_SBS_RAIL_B), (0, 1));
}

#[test]
fn delivery_symbols_and_limits() {
    // p_symbol.h 5.0: PDEL_MODE_WF_SAF 25 … WF_MEM 29, AK_SAF 30 … AK_MEM 34,
    // NN_SAF 35 … NN_MEM 39, WF_DEQ 40 … AK_ACK 45; UMA RTS 1 … DISCL 6.
    let values: Vec<i32> = PDEL_MODES.iter().map(|m| m.1).collect();
    assert_eq!(values, (25..=45).collect::<Vec<_>>());
    assert_eq!(PDEL_MODES[0].0, "PDEL_MODE_WF_SAF");
    assert_eq!(PDEL_MODES[14], ("PDEL_MODE_NN_MEM", 39));
    assert_eq!(PDEL_MODES[20], ("PDEL_MODE_AK_ACK", 45));
    assert_eq!(
        PDEL_UMAS,
        [
            ("PDEL_UMA_RTS", 1),
            ("PDEL_UMA_DLJ", 2),
            ("PDEL_UMA_DLQ", 3),
            ("PDEL_UMA_SAF", 4),
            ("PDEL_UMA_DISC", 5),
            ("PDEL_UMA_DISCL", 6)
        ]
    );
    // Priority 0..99; static buffers up to 32767 bytes; PSYM_MSG_LARGE -2.
    assert_eq!(MAX_PRIORITY, 99);
    assert_eq!(MAX_STATIC_MSG_SIZE, 32767);
    assert_eq!(PSYM_MSG_LARGE, -2);
}

#[test]
fn return_codes_of_p_return_h() {
    // p_return.h V4.0-09, every code mqgate names.
    let expected: [(&str, i32); 47] = [
        ("SUCCESS", 1),
        ("LINK_UP", 3),
        ("JOURNAL_ON", 5),
        ("NOMOREMSG", 7),
        ("DISC_SUCCESS", 11),
        ("DISCL_SUCCESS", 13),
        ("DLJ_SUCCESS", 15),
        ("DLQ_SUCCESS", 17),
        ("RTS_SUCCESS", 19),
        ("SAF_SUCCESS", 21),
        ("RECOVERMODE", 23),
        ("NO_UMA", 25),
        ("UMA_NA", 27),
        ("TRACEBACK", 29),
        ("STORED", 31),
        ("ENQUEUED", 33),
        ("UNATTACHEDQ", 35),
        ("CONFIRMREQ", 37),
        ("PROPAGATE", 39),
        ("DETACHED", 41),
        ("SAF_FORCED", 43),
        ("TRUNCATED", 45),
        ("TIMEOUT", -14),
        ("MSGTOBIG", -22),
        ("NOTACTIVE", -54),
        ("BADPROCNUM", -62),
        ("NOTDCL", -70),
        ("DECLARED", -106),
        ("DCLTMPFAIL", -136),
        ("NOLINK", -76),
        ("EXCEEDQUOTA", -56),
        ("BADPRIORITY", -58),
        ("BADDELIVERY", -60),
        ("AREATOSMALL", -124),
        ("PAMSDOWN", -138),
        ("NOOBJECT", -166),
        ("BUFFEROVF", -174),
        ("BADSELIDX", -182),
        ("BADPARAM", -186),
        ("LINK_DOWN", -206),
        ("RESRCFAIL", -246),
        ("BADUMA", -222),
        ("BADRESPQ", -224),
        ("NOTSUPPORTED", -268),
        ("NETLINKLOST", -280),
        ("BADINITFILE", -282),
        ("FAILED", -320),
    ];
    assert_eq!(PamsStatus::ALL.len(), expected.len());
    for (name, value) in expected {
        let s = PamsStatus::from_name(name).unwrap_or_else(|| panic!("{name}"));
        assert_eq!(s.0, value, "{name}");
        assert_eq!(s.name(), format!("PAMS__{name}"));
        assert_eq!(s.is_success(), value > 0, "{name}");
    }
    assert_eq!(PAMS_LAST_FAIL, -382);
    assert_eq!(PamsStatus::SUCCESS.to_string(), "1 PAMS__SUCCESS");
    assert_eq!(PamsStatus::EXCEEDQUOTA.to_string(), "-56 PAMS__EXCEEDQUOTA");
}

#[test]
fn addresses_mots_and_queues() {
    // Programmer's Guide Table 3-1 and "How Message Broadcasting Works".
    assert_eq!(MOT_RANGE, 4000..=6000);
    assert_eq!(PRIVATE_MOTS, 4000..=4999);
    assert_eq!(UNIVERSAL_MOTS, 5000..=6000);
    assert_eq!(RESERVED_MOTS, 4900..=5100);
    // "The queue address for the SBS Server in a message queuing group is queue number 99."
    assert_eq!(queues::PAMS_SBS_SERVER, 99);
    assert_eq!(QAddress::sbs_server(10).to_string(), "10.99");
    assert_eq!(queues::PAMS_DEAD_LETTER_QUEUE, 96);
    assert_eq!(queues::PAMS_NAME_SERVER, 97);
    assert_eq!(queues::PAMS_MRS_SERVER, 98);
    assert_eq!(queues::PAMS_QTRANSFER_SERVER, 95);
    assert_eq!(queues::PAMS_TIMER_QUEUE, 92);
    assert_eq!(queues::PAMS_QUEUE_SERVER, 100);
    assert_eq!(queues::PAMS_TRANSPORT, 100);
}

#[test]
fn show_buffer_constants_of_p_entry_h() {
    // p_entry.h 5.0: PSYM_SHOW_* bits, versions 10/20/50, minimum length 40.
    let bits: Vec<(&str, i32)> = flags::ALL.to_vec();
    assert_eq!(
        bits,
        [
            ("PSYM_SHOW_VERSION", 1),
            ("PSYM_SHOW_STATUS", 2),
            ("PSYM_SHOW_SIZE", 4),
            ("PSYM_SHOW_FLAGS", 8),
            ("PSYM_SHOW_URCODE", 32),
            ("PSYM_SHOW_TARGET", 1024),
            ("PSYM_SHOW_ORIGINAL_TARGET", 2048),
            ("PSYM_SHOW_SOURCE", 4096),
            ("PSYM_SHOW_ORIGINAL_SOURCE", 8192),
            ("PSYM_SHOW_DELIVERY", 16384),
            ("PSYM_SHOW_PRIORITY", 32768),
            ("PSYM_SHOW_ENDIAN", 65536),
            ("PSYM_SHOW_CORRELATION_ID", 131072),
        ]
    );
    assert_eq!(SHOW_BUFFER_VERSIONS, [10, 20, 50]);
    assert_eq!(SHOW_BUFFER_MIN_LEN, 40);
    assert_eq!(ShowBuffer::SIZE, 100);
    assert_eq!((Endian::Little.psym(), Endian::Big.psym()), (0, 1));
}

/// A show buffer written byte by byte from the `p_entry.h` 5.0 layout,
/// little-endian: an SBS delivery of MOT 0.5110 from publisher 7.1 to 7.2.
fn show_buffer_le() -> Vec<u8> {
    let mut b = Vec::new();
    b.extend([50, 0, 0, 0]); //            0 version 50
    b.extend([1, 0, 0, 0]); //             4 transfer_status PAMS__SUCCESS
    b.extend([12, 0, 0, 0]); //            8 transfer_size 12
    b.extend([0x09, 0x3C, 0x01, 0x00]); // 12 flags VERSION|FLAGS|TARGET|ORIG_TARGET|SOURCE|ORIG_SOURCE|ENDIAN
    b.extend([0, 0, 0, 0]); //            16 urcode
    b.extend([0u8; 20]); //               20 reserved[20]
    b.extend([2, 0, 7, 0]); //            40 target 7.2 (queue first)
    b.extend([0xF6, 0x13, 0, 0]); //      44 original_target 0.5110
    b.extend([0xF6, 0x13, 0, 0]); //      48 source 0.5110 (the MOT)
    b.extend([1, 0, 7, 0]); //            52 original_source 7.1 (the publisher)
    b.extend([39, 0, 0, 0]); //           56 delivery PDEL_MODE_NN_MEM
    b.extend([0, 0, 0, 0]); //            60 priority 0
    b.extend([0, 0, 0, 0]); //            64 endian PSYM_LITTLE_ENDIAN
    b.extend([0u8; 32]); //               68 correlation_id[32]
    b
}

#[test]
fn show_buffer_hand_built_both_orders() {
    let bytes = show_buffer_le();
    assert_eq!(bytes.len(), 100);
    let sb = ShowBuffer::decode(&bytes, Endian::Little).unwrap();
    let mut expected = ShowBuffer::sbs_delivery(
        QAddress::new(0, 5110),
        QAddress::new(7, 1),
        QAddress::new(7, 2),
        Endian::Little,
    );
    expected.transfer_status = PamsStatus::SUCCESS.0;
    expected.transfer_size = 12;
    expected.delivery = 39;
    assert_eq!(sb, expected);
    assert_eq!(sb.encode(Endian::Little).to_vec(), bytes);
    assert_eq!(sb.message_endian(), Some(Endian::Little));
    assert_eq!(ShowBuffer::detect_endian(&bytes), Some(Endian::Little));
    let be = sb.encode(Endian::Big);
    assert_eq!(&be[..4], &[0, 0, 0, 50]);
    assert_eq!(&be[40..44], &[0, 2, 0, 7]);
    assert_eq!(ShowBuffer::decode(&be, Endian::Big).unwrap(), sb);
    assert_eq!(ShowBuffer::detect_endian(&be), Some(Endian::Big));
    // A caller buffer of 40..100 bytes gets the first bytes.
    for len in [40, 56, 99, 100] {
        let prefix = sb.encode_prefix(Endian::Little, len).unwrap();
        assert_eq!(prefix, bytes[..len]);
        let back = ShowBuffer::decode_prefix(&prefix, Endian::Little).unwrap();
        assert_eq!(back.encode_prefix(Endian::Little, len).unwrap(), prefix);
    }
    assert!(ShowBuffer::decode(&bytes[..99], Endian::Little).is_err());
    let e = ShowBuffer::decode_prefix(&bytes[..39], Endian::Little).unwrap_err();
    assert_eq!(e.pams_status(), PamsStatus::AREATOSMALL);
    // The older layout's reserved[7] words at 12..40 survive as flags/urcode/reserved.
    let mut old = bytes.clone();
    old[..4].copy_from_slice(&[20, 0, 0, 0]);
    for (i, b) in old[12..40].iter_mut().enumerate() {
        *b = i as u8 + 1;
    }
    let sb = ShowBuffer::decode(&old, Endian::Little).unwrap();
    assert_eq!(sb.encode(Endian::Little).to_vec(), old);
}

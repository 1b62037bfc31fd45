//! MQMD, the message descriptor (spec: mq-structures.md §4).
//!
//! This module holds the data model; parsing and writing live beside it.

use super::constants::{ccsi, enc, md, mt, per};
use super::field::CharField;

/// MsgId, CorrelId, GroupId: 24 binary bytes, never converted (MQBYTE24).
pub type Id24 = [u8; 24];

/// MQMI_NONE / MQCI_NONE / MQGI_NONE: 24 × 0x00.
pub const ID_NONE: Id24 = [0; 24];

/// An MQMD, version 1 (324 bytes) or 2 (364 bytes).
///
/// Character fields keep their raw bytes (see [`CharField`]); the charset they
/// are in is the one of the structure that carried the MD. The v2 fields hold
/// their defaults when `version` is 1. Field names are MQ's own.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Mqmd {
    /// 1 or 2.
    pub version: i32,
    /// MQRO_* flags.
    pub report: i32,
    /// MQMT_*.
    pub msg_type: i32,
    /// Tenths of a second; -1 = unlimited.
    pub expiry: i32,
    /// MQFB_* or MQRC_*.
    pub feedback: i32,
    /// MQENC_* of the body (the first structure after the MD).
    pub encoding: i32,
    /// CCSID of the body.
    pub coded_char_set_id: i32,
    /// MQFMT_* of the body.
    pub format: CharField<8>,
    /// 0-9, -1 = as queue definition.
    pub priority: i32,
    /// MQPER_*.
    pub persistence: i32,
    pub msg_id: Id24,
    pub correl_id: Id24,
    pub backout_count: i32,
    pub reply_to_q: CharField<48>,
    pub reply_to_q_mgr: CharField<48>,
    pub user_identifier: CharField<12>,
    /// 32 binary bytes.
    pub accounting_token: [u8; 32],
    pub appl_identity_data: CharField<32>,
    /// MQAT_*.
    pub put_appl_type: i32,
    pub put_appl_name: CharField<28>,
    /// YYYYMMDD, GMT.
    pub put_date: CharField<8>,
    /// HHMMSSTH, GMT, hundredths of a second.
    pub put_time: CharField<8>,
    pub appl_origin_data: CharField<4>,
    /// v2 only.
    pub group_id: Id24,
    /// v2 only; default 1.
    pub msg_seq_number: i32,
    /// v2 only; default 0.
    pub offset: i32,
    /// v2 only; MQMF_*.
    pub msg_flags: i32,
    /// v2 only; -1 = MQOL_UNDEFINED.
    pub original_length: i32,
}

impl Default for Mqmd {
    /// MQMD_DEFAULT as IBM defines it, version 2: Datagram, no expiry,
    /// Encoding 546 (MQENC_REVERSED; mqgate's default, not the platform's),
    /// CodedCharSetId 0 (queue manager's), Format blank, priority and
    /// persistence as queue definition.
    fn default() -> Self {
        Mqmd {
            version: 2,
            report: 0,
            msg_type: mt::DATAGRAM,
            expiry: md::EI_UNLIMITED,
            feedback: 0,
            encoding: enc::REVERSED,
            coded_char_set_id: ccsi::Q_MGR,
            format: CharField::BLANK_ASCII,
            priority: -1,
            persistence: per::PERSISTENCE_AS_Q_DEF,
            msg_id: ID_NONE,
            correl_id: ID_NONE,
            backout_count: 0,
            reply_to_q: CharField::BLANK_ASCII,
            reply_to_q_mgr: CharField::BLANK_ASCII,
            user_identifier: CharField::BLANK_ASCII,
            accounting_token: [0; 32],
            appl_identity_data: CharField::BLANK_ASCII,
            put_appl_type: 0,
            put_appl_name: CharField::BLANK_ASCII,
            put_date: CharField::BLANK_ASCII,
            put_time: CharField::BLANK_ASCII,
            appl_origin_data: CharField::BLANK_ASCII,
            group_id: ID_NONE,
            msg_seq_number: 1,
            offset: 0,
            msg_flags: 0,
            original_length: md::OL_UNDEFINED,
        }
    }
}

impl Mqmd {
    /// Length of this MD on the wire in bytes: 324 (v1) or 364 (v2).
    pub fn wire_len(&self) -> usize {
        if self.version >= 2 {
            md::LENGTH_2
        } else {
            md::LENGTH_1
        }
    }

    /// True when any v2-only field differs from its default, i.e. a v1 MD
    /// (inside an MQXQH) needs an MQMDE to carry it (spec: mq-structures.md §6).
    pub fn needs_mde(&self) -> bool {
        self.group_id != ID_NONE
            || self.msg_seq_number != 1
            || self.offset != 0
            || self.msg_flags != 0
            || self.original_length != md::OL_UNDEFINED
    }
}

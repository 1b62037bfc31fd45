//! The obsolete (V3.2 and earlier) SBS messages, packed without padding
//! (BEA MessageQ `p_msg.h` V4.0-08 "Obsolete DmQ Message API", compiled with
//! `#pragma pack(1)` / `nomember_alignment`; SBS_DEREG_BY_ID from the
//! DECmessageQ `sbsmsgde.h` MOT_DEREG message, the same type value, since the
//! BEA header gives it no structure).
//!
//! The Programmer's Guide ("Running Existing SBS Applications") keeps these for
//! OpenVMS applications; the extended messages replace them elsewhere
//! ([`super::SbsType::replacement`]). mqgate reads and writes them byte for
//! byte; the fields are kept as written (DECmessageQ documents the SBS_REG
//! `offset` as 1-based with 0 meaning "no matching", and `length` 0 likewise;
//! the operator may hold either generation's value).

use super::mot_check::check_mot;
use crate::pams::address::QAddress;
use crate::pams::error::{Structure, WireError};
use crate::pams::wire::wire_struct;

/// The `version` the obsolete registration messages always carry: 20.
pub const OBSOLETE_VERSION: i16 = 20;
/// The `version` of SBS_DEREG_BY_ID (MOT_DEREG): 10.
pub const DEREG_BY_ID_VERSION: i16 = 10;

wire_struct! {
    /// SBS_REG: 20 bytes packed. Decoding checks `mot` (4000-6000).
    pub struct SbsReg: Structure::SbsReg, size 20, check SbsReg::check {
        /// `version` (always 20).
        version: i16 = 0,
        /// `mot`.
        mot: u16 = 2,
        /// `distribution_q`.
        distribution_q: QAddress = 4,
        /// `offset`: the data offset or selector.
        offset: i16 = 8,
        /// `data_operator` (a `char`).
        data_operator: i8 = 10,
        /// `length`: operand length.
        length: i16 = 11,
        /// `operand`.
        operand: u32 = 13,
        /// `req_ack`: 1 asks for SBS_REG_REPLY.
        req_ack: u8 = 17,
        /// `req_seqgap`: 1 asks for SBS_BS_SEQGAP notices.
        req_seqgap: u8 = 18,
        /// `req_autodereg`: 1 asks for automatic deregistration.
        req_autodereg: u8 = 19,
    }
}

impl SbsReg {
    fn check(&self) -> Result<(), WireError> {
        check_mot(Structure::SbsReg, "mot", 2, i64::from(self.mot), None)
    }
}

wire_struct! {
    /// SBS_REG_REPLY: 6 bytes packed.
    pub struct SbsRegReply: Structure::SbsRegReply, size 6 {
        /// `status` (1 = success, negative = failure).
        status: i16 = 0,
        /// `reg_id`.
        reg_id: u16 = 2,
        /// `number_reg`.
        number_reg: i16 = 4,
    }
}

wire_struct! {
    /// SBS_REG_EZ: 8 bytes packed — every message of a MOT. Decoding checks `mot`.
    pub struct SbsRegEz: Structure::SbsRegEz, size 8, check SbsRegEz::check {
        /// `version` (always 20).
        version: i16 = 0,
        /// `mot` (signed in this structure).
        mot: i16 = 2,
        /// `distribution_q`.
        distribution_q: QAddress = 4,
    }
}

impl SbsRegEz {
    fn check(&self) -> Result<(), WireError> {
        check_mot(Structure::SbsRegEz, "mot", 2, i64::from(self.mot), None)
    }
}

wire_struct! {
    /// SBS_REG_EZ_REPLY: 6 bytes packed.
    pub struct SbsRegEzReply: Structure::SbsRegEzReply, size 6 {
        /// `status`.
        status: i16 = 0,
        /// `reg_id`.
        reg_id: u16 = 2,
        /// `number_reg`.
        number_reg: i16 = 4,
    }
}

wire_struct! {
    /// SBS_DEREG: 9 bytes packed — every registration of the queue for the MOT.
    /// Decoding checks `mot`.
    pub struct SbsDereg: Structure::SbsDereg, size 9, check SbsDereg::check {
        /// `version` (always 20).
        version: i16 = 0,
        /// `mot`.
        mot: u16 = 2,
        /// `distribution_q`.
        distribution_q: QAddress = 4,
        /// `req_ack`: 1 asks for SBS_DEREG_ACK.
        req_ack: u8 = 8,
    }
}

impl SbsDereg {
    fn check(&self) -> Result<(), WireError> {
        check_mot(Structure::SbsDereg, "mot", 2, i64::from(self.mot), None)
    }
}

wire_struct! {
    /// SBS_DEREG_ACK: 4 bytes packed.
    pub struct SbsDeregAck: Structure::SbsDeregAck, size 4 {
        /// `status`.
        status: i16 = 0,
        /// `number_reg`: registrations left.
        number_reg: i16 = 2,
    }
}

wire_struct! {
    /// SBS_DEREG_BY_ID (MOT_DEREG): 5 bytes packed — one registration by its id.
    pub struct SbsDeregById: Structure::SbsDeregById, size 5 {
        /// `version` (10).
        version: i16 = 0,
        /// `reg_id` from SBS_REG_REPLY.
        reg_id: u16 = 2,
        /// `req_ack`: 1 asks for SBS_DEREG_ACK.
        req_ack: u8 = 4,
    }
}

wire_struct! {
    /// SBS_BS_SEQGAP: 10 bytes packed.
    pub struct SbsBsSeqgap: Structure::SbsBsSeqgap, size 10 {
        /// `num_msgs_missing`.
        num_msgs_missing: i32 = 0,
        /// `sender_group`.
        sender_group: u16 = 4,
        /// `mot`.
        mot: u16 = 6,
        /// `channel`.
        channel: u16 = 8,
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::pams::wire::assert_contiguous;

    #[test]
    fn packed_sizes() {
        assert_contiguous(SbsReg::LAYOUT, 20);
        assert_contiguous(SbsRegReply::LAYOUT, 6);
        assert_contiguous(SbsRegEz::LAYOUT, 8);
        assert_contiguous(SbsRegEzReply::LAYOUT, 6);
        assert_contiguous(SbsDereg::LAYOUT, 9);
        assert_contiguous(SbsDeregAck::LAYOUT, 4);
        assert_contiguous(SbsDeregById::LAYOUT, 5);
        assert_contiguous(SbsBsSeqgap::LAYOUT, 10);
    }
}

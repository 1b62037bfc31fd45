//! SBS messages: the class and types, every message body mqgate reads and
//! writes, and a decoder that picks the structure from the message type.
//!
//! - [`types`]: MSG_CLAS_PAMS 29, the SBS message types, obsolete → extended.
//! - [`register`]: SBS_REGISTER_REQ (rules included), SBS_REGISTER_RESP.
//! - [`deregister`]: SBS_DEREGISTER_REQ, SBS_DEREGISTER_RESP.
//! - [`status_msg`]: SBS_STATUS_REQ, SBS_STATUS_RESP and its records.
//! - [`gap`]: the SBS_SEQUENCE_GAP notice.
//! - [`obsolete`]: SBS_REG, SBS_REG_REPLY, SBS_REG_EZ, SBS_REG_EZ_REPLY,
//!   SBS_DEREG, SBS_DEREG_ACK, SBS_DEREG_BY_ID, SBS_BS_SEQGAP (packed).
//!
//! Bodies are in the sender's byte order; every codec takes it as a parameter.
//! [`detect_endian`] guesses it from the fields whose values only make sense
//! in one order (mqgate's choice, docs/messageq.md).

pub mod deregister;
pub mod gap;
mod mot_check;
pub mod obsolete;
pub mod register;
pub mod status_msg;
pub mod types;

pub use deregister::{DeregisterReq, DeregisterResp};
pub use gap::SequenceGap;
pub use obsolete::{
    SbsBsSeqgap, SbsDereg, SbsDeregAck, SbsDeregById, SbsReg, SbsRegEz, SbsRegEzReply, SbsRegReply,
};
pub use register::{RegisterReq, RegisterResp};
pub use status_msg::{RailStats, StatusReq, StatusResp, StatusRespGroup, StatusRespMot};
pub use types::{MSG_CLAS_PAMS, SbsType};

use crate::pams::address::MOT_RANGE;
use crate::pams::endian::Endian;
use crate::pams::error::{Field, Structure, WireError, WireErrorKind};

/// Any SBS message body, by type.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum SbsMessage {
    /// SBS_REGISTER_REQ.
    RegisterReq(RegisterReq),
    /// SBS_REGISTER_RESP.
    RegisterResp(RegisterResp),
    /// SBS_DEREGISTER_REQ.
    DeregisterReq(DeregisterReq),
    /// SBS_DEREGISTER_RESP.
    DeregisterResp(DeregisterResp),
    /// SBS_STATUS_REQ.
    StatusReq(StatusReq),
    /// SBS_STATUS_RESP.
    StatusResp(StatusResp),
    /// SBS_SEQUENCE_GAP.
    SequenceGap(SequenceGap),
    /// SBS_REG.
    Reg(SbsReg),
    /// SBS_REG_REPLY.
    RegReply(SbsRegReply),
    /// SBS_REG_EZ.
    RegEz(SbsRegEz),
    /// SBS_REG_EZ_REPLY.
    RegEzReply(SbsRegEzReply),
    /// SBS_DEREG.
    Dereg(SbsDereg),
    /// SBS_DEREG_ACK.
    DeregAck(SbsDeregAck),
    /// SBS_DEREG_BY_ID.
    DeregById(SbsDeregById),
    /// SBS_BS_SEQGAP.
    BsSeqgap(SbsBsSeqgap),
}

impl SbsMessage {
    /// Decodes the body of a message of type `msg_type` (class MSG_CLAS_PAMS) in `endian`.
    ///
    /// Errors: `UnknownMessageType` for a type that is no SBS message,
    /// `UnsupportedMessageType` for the DECmessageQ-only SBS_PURGE,
    /// SBS_PURGE_ACK and SBS_DUMP_TABLES, and each structure's own errors.
    pub fn decode(msg_type: i16, body: &[u8], endian: Endian) -> Result<SbsMessage, WireError> {
        let Some(t) = SbsType::from_code(msg_type) else {
            let kind = match types::dmq::unsupported_name(msg_type) {
                Some(name) => WireErrorKind::UnsupportedMessageType { msg_type, name },
                None => WireErrorKind::UnknownMessageType { msg_type },
            };
            return Err(WireError::new(Structure::Message, Field::Whole, 0, kind));
        };
        Ok(match t {
            SbsType::RegisterReq => SbsMessage::RegisterReq(RegisterReq::decode(body, endian)?),
            SbsType::RegisterResp => SbsMessage::RegisterResp(RegisterResp::decode(body, endian)?),
            SbsType::DeregisterReq => {
                SbsMessage::DeregisterReq(DeregisterReq::decode(body, endian)?)
            }
            SbsType::DeregisterResp => {
                SbsMessage::DeregisterResp(DeregisterResp::decode(body, endian)?)
            }
            SbsType::StatusReq => SbsMessage::StatusReq(StatusReq::decode(body, endian)?),
            SbsType::StatusResp => SbsMessage::StatusResp(StatusResp::decode(body, endian)?),
            SbsType::SequenceGap => SbsMessage::SequenceGap(SequenceGap::decode(body, endian)?),
            SbsType::Reg => SbsMessage::Reg(SbsReg::decode(body, endian)?),
            SbsType::RegReply => SbsMessage::RegReply(SbsRegReply::decode(body, endian)?),
            SbsType::RegEz => SbsMessage::RegEz(SbsRegEz::decode(body, endian)?),
            SbsType::RegEzReply => SbsMessage::RegEzReply(SbsRegEzReply::decode(body, endian)?),
            SbsType::Dereg => SbsMessage::Dereg(SbsDereg::decode(body, endian)?),
            SbsType::DeregAck => SbsMessage::DeregAck(SbsDeregAck::decode(body, endian)?),
            SbsType::DeregById => SbsMessage::DeregById(SbsDeregById::decode(body, endian)?),
            SbsType::BsSeqgap => SbsMessage::BsSeqgap(SbsBsSeqgap::decode(body, endian)?),
        })
    }

    /// The message's type.
    pub fn sbs_type(&self) -> SbsType {
        match self {
            SbsMessage::RegisterReq(_) => SbsType::RegisterReq,
            SbsMessage::RegisterResp(_) => SbsType::RegisterResp,
            SbsMessage::DeregisterReq(_) => SbsType::DeregisterReq,
            SbsMessage::DeregisterResp(_) => SbsType::DeregisterResp,
            SbsMessage::StatusReq(_) => SbsType::StatusReq,
            SbsMessage::StatusResp(_) => SbsType::StatusResp,
            SbsMessage::SequenceGap(_) => SbsType::SequenceGap,
            SbsMessage::Reg(_) => SbsType::Reg,
            SbsMessage::RegReply(_) => SbsType::RegReply,
            SbsMessage::RegEz(_) => SbsType::RegEz,
            SbsMessage::RegEzReply(_) => SbsType::RegEzReply,
            SbsMessage::Dereg(_) => SbsType::Dereg,
            SbsMessage::DeregAck(_) => SbsType::DeregAck,
            SbsMessage::DeregById(_) => SbsType::DeregById,
            SbsMessage::BsSeqgap(_) => SbsType::BsSeqgap,
        }
    }

    /// Encodes the body in `endian` (the same bytes as were decoded).
    ///
    /// Errors: those of [`RegisterReq::encode`] and [`StatusResp::encode`];
    /// the fixed-size messages always encode.
    pub fn encode(&self, endian: Endian) -> Result<Vec<u8>, WireError> {
        Ok(match self {
            SbsMessage::RegisterReq(m) => m.encode(endian)?,
            SbsMessage::RegisterResp(m) => m.encode(endian).to_vec(),
            SbsMessage::DeregisterReq(m) => m.encode(endian).to_vec(),
            SbsMessage::DeregisterResp(m) => m.encode(endian).to_vec(),
            SbsMessage::StatusReq(m) => m.encode(endian).to_vec(),
            SbsMessage::StatusResp(m) => m.encode(endian)?,
            SbsMessage::SequenceGap(m) => m.encode(endian).to_vec(),
            SbsMessage::Reg(m) => m.encode(endian).to_vec(),
            SbsMessage::RegReply(m) => m.encode(endian).to_vec(),
            SbsMessage::RegEz(m) => m.encode(endian).to_vec(),
            SbsMessage::RegEzReply(m) => m.encode(endian).to_vec(),
            SbsMessage::Dereg(m) => m.encode(endian).to_vec(),
            SbsMessage::DeregAck(m) => m.encode(endian).to_vec(),
            SbsMessage::DeregById(m) => m.encode(endian).to_vec(),
            SbsMessage::BsSeqgap(m) => m.encode(endian).to_vec(),
        })
    }
}

/// The byte order of an SBS body, when one field tells it: the `int32`
/// `version` of the extended messages (a value 1..=65535, e.g. 40, in exactly
/// one order — 40 written big-endian reads 0x28000000 little-endian), the
/// `int16` `version` 20 (or 10 for SBS_DEREG_BY_ID) of the obsolete requests,
/// or the MOT (4000-6000 in exactly one order) of SBS_SEQUENCE_GAP and
/// SBS_BS_SEQGAP. `None` when the field is ambiguous or absent (the obsolete
/// replies).
pub fn detect_endian(msg_type: i16, body: &[u8]) -> Option<Endian> {
    let t = SbsType::from_code(msg_type)?;
    let u16_at = |e: Endian, off: usize| -> Option<u16> {
        let b = body.get(off..off + 2)?;
        Some(e.u16_from([b[0], b[1]]))
    };
    let only = |ok: &dyn Fn(Endian) -> bool| -> Option<Endian> {
        match (ok(Endian::Little), ok(Endian::Big)) {
            (true, false) => Some(Endian::Little),
            (false, true) => Some(Endian::Big),
            _ => None,
        }
    };
    match t {
        SbsType::RegisterReq
        | SbsType::RegisterResp
        | SbsType::DeregisterReq
        | SbsType::DeregisterResp
        | SbsType::StatusReq
        | SbsType::StatusResp => only(&|e| {
            e.read_i32(body, 0)
                .is_some_and(|v| (1..=0xFFFF).contains(&v))
        }),
        SbsType::SequenceGap => only(&|e| {
            e.read_i32(body, 8)
                .and_then(|v| u16::try_from(v).ok())
                .is_some_and(|m| MOT_RANGE.contains(&m))
        }),
        SbsType::BsSeqgap => only(&|e| u16_at(e, 6).is_some_and(|m| MOT_RANGE.contains(&m))),
        SbsType::Reg | SbsType::RegEz | SbsType::Dereg => {
            only(&|e| u16_at(e, 0) == Some(obsolete::OBSOLETE_VERSION as u16))
        }
        SbsType::DeregById => only(&|e| u16_at(e, 0) == Some(obsolete::DEREG_BY_ID_VERSION as u16)),
        SbsType::RegReply | SbsType::RegEzReply | SbsType::DeregAck => None,
    }
}

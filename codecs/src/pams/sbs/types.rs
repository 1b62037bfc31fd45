//! SBS message class and types (BEA MessageQ `p_typecl.h` V5.0-01).
//!
//! Every SBS message has class MSG_CLAS_PAMS 29. BEA reserves the classes 28,
//! 29, 62 and 30000-32767 and the types -1 to -5000. The V3.2 ("obsolete")
//! messages map to the extended ones as the Programmer's Guide's Table 3-4
//! says ([`SbsType::replacement`]).
//!
//! Two values are shared: -1154 is SBS_DEREG_BY_ID and the DECmessageQ 2.x/3.x
//! MOT_DEREG (the same 5-byte layout, DECmessageQ `sbsmsgde.h`); -1196/-1197
//! are NAME_INQ_ID / NAME_INQ_ID_REP in an older DECmessageQ list — those go
//! to the name server (queue 97), SBS messages to queue 99, so the target queue
//! tells them apart.

use std::fmt;

use crate::pams::error::Structure;

/// MSG_CLAS_PAMS (29): the class of every SBS message.
pub const MSG_CLAS_PAMS: i16 = 29;
/// MSG_CLAS_MRS (28): the message recovery class (reserved to BEA).
pub const MSG_CLAS_MRS: i16 = 28;
/// MSG_CLAS_APPC (62): the LU6.2 class (reserved to BEA).
pub const MSG_CLAS_APPC: i16 = 62;

/// True for a class BEA reserves: 28, 29, 62 and 30000-32767.
pub fn is_reserved_class(class: i32) -> bool {
    matches!(class, 28 | 29 | 62 | 30000..=32767)
}

/// True for a type BEA reserves: -1 to -5000.
pub fn is_reserved_type(msg_type: i32) -> bool {
    (-5000..=-1).contains(&msg_type)
}

/// DECmessageQ 2.x/3.x SBS types mqgate names but does not read (no layout
/// in the V4.0+ headers).
pub mod dmq {
    /// SBS_PURGE (-1157).
    pub const SBS_PURGE: i16 = -1157;
    /// SBS_PURGE_ACK (-1158).
    pub const SBS_PURGE_ACK: i16 = -1158;
    /// SBS_DUMP_TABLES (-1162).
    pub const SBS_DUMP_TABLES: i16 = -1162;
    /// MOT_DEREG (-1154): the same value and layout as SBS_DEREG_BY_ID.
    pub const MOT_DEREG: i16 = -1154;
    /// NAME_INQ_ID (-1196 in an older DECmessageQ list; same value as SBS_REGISTER_REQ).
    pub const NAME_INQ_ID: i16 = -1196;
    /// NAME_INQ_ID_REP (-1197; same value as SBS_REGISTER_RESP).
    pub const NAME_INQ_ID_REP: i16 = -1197;

    /// The name of a DECmessageQ-only SBS type mqgate does not read.
    pub fn unsupported_name(msg_type: i16) -> Option<&'static str> {
        Some(match msg_type {
            SBS_PURGE => "SBS_PURGE",
            SBS_PURGE_ACK => "SBS_PURGE_ACK",
            SBS_DUMP_TABLES => "SBS_DUMP_TABLES",
            _ => return None,
        })
    }
}

/// An SBS message type mqgate reads and writes.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum SbsType {
    /// SBS_REGISTER_REQ (-1196): application → SBS server.
    RegisterReq,
    /// SBS_REGISTER_RESP (-1197): server → application, if `req_ack`.
    RegisterResp,
    /// SBS_DEREGISTER_REQ (-1170).
    DeregisterReq,
    /// SBS_DEREGISTER_RESP (-1172).
    DeregisterResp,
    /// SBS_STATUS_REQ (-1177).
    StatusReq,
    /// SBS_STATUS_RESP (-1178).
    StatusResp,
    /// SBS_SEQUENCE_GAP (-1199): server → registered queue.
    SequenceGap,
    /// Obsolete SBS_REG (-1150).
    Reg,
    /// Obsolete SBS_REG_REPLY (-1152).
    RegReply,
    /// Obsolete SBS_REG_EZ (-1173).
    RegEz,
    /// Obsolete SBS_REG_EZ_REPLY (-1153).
    RegEzReply,
    /// Obsolete SBS_DEREG (-1174).
    Dereg,
    /// Obsolete SBS_DEREG_ACK (-1155).
    DeregAck,
    /// Obsolete SBS_DEREG_BY_ID (-1154).
    DeregById,
    /// Obsolete SBS_BS_SEQGAP (-1166).
    BsSeqgap,
}

impl SbsType {
    /// Every type, extended API first.
    pub const ALL: [SbsType; 15] = [
        SbsType::RegisterReq,
        SbsType::RegisterResp,
        SbsType::DeregisterReq,
        SbsType::DeregisterResp,
        SbsType::StatusReq,
        SbsType::StatusResp,
        SbsType::SequenceGap,
        SbsType::Reg,
        SbsType::RegReply,
        SbsType::RegEz,
        SbsType::RegEzReply,
        SbsType::Dereg,
        SbsType::DeregAck,
        SbsType::DeregById,
        SbsType::BsSeqgap,
    ];

    /// The MSG_TYPE_* value.
    pub fn code(self) -> i16 {
        match self {
            SbsType::RegisterReq => -1196,
            SbsType::RegisterResp => -1197,
            SbsType::DeregisterReq => -1170,
            SbsType::DeregisterResp => -1172,
            SbsType::StatusReq => -1177,
            SbsType::StatusResp => -1178,
            SbsType::SequenceGap => -1199,
            SbsType::Reg => -1150,
            SbsType::RegReply => -1152,
            SbsType::RegEz => -1173,
            SbsType::RegEzReply => -1153,
            SbsType::Dereg => -1174,
            SbsType::DeregAck => -1155,
            SbsType::DeregById => -1154,
            SbsType::BsSeqgap => -1166,
        }
    }

    /// The type for a MSG_TYPE_* value, if it is one of these.
    pub fn from_code(code: i16) -> Option<SbsType> {
        SbsType::ALL.into_iter().find(|t| t.code() == code)
    }

    /// The structure the body holds.
    pub fn structure(self) -> Structure {
        match self {
            SbsType::RegisterReq => Structure::RegisterReq,
            SbsType::RegisterResp => Structure::RegisterResp,
            SbsType::DeregisterReq => Structure::DeregisterReq,
            SbsType::DeregisterResp => Structure::DeregisterResp,
            SbsType::StatusReq => Structure::StatusReq,
            SbsType::StatusResp => Structure::StatusResp,
            SbsType::SequenceGap => Structure::SequenceGap,
            SbsType::Reg => Structure::SbsReg,
            SbsType::RegReply => Structure::SbsRegReply,
            SbsType::RegEz => Structure::SbsRegEz,
            SbsType::RegEzReply => Structure::SbsRegEzReply,
            SbsType::Dereg => Structure::SbsDereg,
            SbsType::DeregAck => Structure::SbsDeregAck,
            SbsType::DeregById => Structure::SbsDeregById,
            SbsType::BsSeqgap => Structure::SbsBsSeqgap,
        }
    }

    /// The symbol without `MSG_TYPE_`, e.g. `SBS_REGISTER_REQ`.
    pub fn name(self) -> &'static str {
        self.structure().name()
    }

    /// True for the V3.2-and-earlier messages.
    pub fn is_obsolete(self) -> bool {
        self.replacement() != self
    }

    /// The extended message that replaces an obsolete one (Table 3-4); the
    /// type itself for the extended messages.
    pub fn replacement(self) -> SbsType {
        match self {
            SbsType::BsSeqgap => SbsType::SequenceGap,
            SbsType::Dereg | SbsType::DeregById => SbsType::DeregisterReq,
            SbsType::DeregAck => SbsType::DeregisterResp,
            SbsType::Reg | SbsType::RegEz => SbsType::RegisterReq,
            SbsType::RegReply | SbsType::RegEzReply => SbsType::RegisterResp,
            other => other,
        }
    }
}

impl fmt::Display for SbsType {
    /// `SBS_REGISTER_REQ (-1196)`.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{} ({})", self.name(), self.code())
    }
}

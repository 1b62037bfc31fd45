//! Field layouts of the MQ structures mqgate converts field by field without
//! a typed model of its own: MQIIH, MQCIH, MQWIH, MQRMH, MQDH (after their
//! common 32-byte prefix; the MQDH's MQOR and MQPMR records) and the trigger
//! messages MQTM and MQTMC2 (whole). Offsets and lengths are IBM's, from the
//! C declarations on the IBM MQ pages "MQIIH - IMS information header",
//! "MQCIH - CICS bridge header", "MQWIH - Work information header", "MQRMH -
//! Reference message header", "MQDH - Distribution header", "MQOR - Object
//! record", "MQPMR - Put-message record", "MQTM - Trigger message" and
//! "MQTMC2 - Trigger message 2 (character format)":
//! MQCHARn fields are character data, MQLONG 4-byte integers in the
//! structure's integer encoding, MQBYTEn binary (never converted).

use super::strucid::Structure;

/// What a field holds.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum FieldKind {
    /// MQCHARn: character data in the structure's CCSID, converted.
    Char,
    /// MQLONG: a 4-byte integer in the structure's integer encoding.
    Int,
    /// MQBYTEn: binary, never converted.
    Bytes,
}

/// One field: its MQ name, offset from the start of the structure and length, bytes.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct FieldSpec {
    /// The field's name on its IBM MQ page.
    pub name: &'static str,
    /// Offset from the start of the structure, bytes.
    pub offset: usize,
    /// Length, bytes.
    pub length: usize,
    /// What it holds.
    pub kind: FieldKind,
}

const fn c(name: &'static str, offset: usize, length: usize) -> FieldSpec {
    FieldSpec {
        name,
        offset,
        length,
        kind: FieldKind::Char,
    }
}

const fn i(name: &'static str, offset: usize) -> FieldSpec {
    FieldSpec {
        name,
        offset,
        length: 4,
        kind: FieldKind::Int,
    }
}

const fn b(name: &'static str, offset: usize, length: usize) -> FieldSpec {
    FieldSpec {
        name,
        offset,
        length,
        kind: FieldKind::Bytes,
    }
}

/// MQIIH version 1 after the prefix; MQIIH_LENGTH_1 = 84. Its Encoding and
/// CodedCharSetId are reserved: the data after it is in its own CCSID and
/// Encoding (IBM MQ "Encoding (MQLONG) for MQIIH").
pub const IIH_1: &[FieldSpec] = &[
    c("LTermOverride", 32, 8),
    c("MFSMapName", 40, 8),
    c("ReplyToFormat", 48, 8),
    c("Authenticator", 56, 8),
    b("TranInstanceId", 64, 16),
    c("TranState", 80, 1),
    c("CommitMode", 81, 1),
    c("SecurityScope", 82, 1),
    c("Reserved", 83, 1),
];

/// MQCIH version 1 after the prefix; MQCIH_LENGTH_1 = 164. Encoding and
/// CodedCharSetId reserved, as for the MQIIH.
pub const CIH_1: &[FieldSpec] = &[
    i("ReturnCode", 32),
    i("CompCode", 36),
    i("Reason", 40),
    i("UOWControl", 44),
    i("GetWaitInterval", 48),
    i("LinkType", 52),
    i("OutputDataLength", 56),
    i("FacilityKeepTime", 60),
    i("ADSDescriptor", 64),
    i("ConversationalTask", 68),
    i("TaskEndStatus", 72),
    b("Facility", 76, 8),
    c("Function", 84, 4),
    c("AbendCode", 88, 4),
    c("Authenticator", 92, 8),
    c("Reserved1", 100, 8),
    c("ReplyToFormat", 108, 8),
    c("RemoteSysId", 116, 4),
    c("RemoteTransId", 120, 4),
    c("TransactionId", 124, 4),
    c("FacilityLike", 128, 4),
    c("AttentionId", 132, 4),
    c("StartCode", 136, 4),
    c("CancelCode", 140, 4),
    c("NextTransactionId", 144, 4),
    c("Reserved2", 148, 8),
    c("Reserved3", 156, 8),
];

/// The fields MQCIH version 2 adds after version 1's; MQCIH_LENGTH_2 = 180.
pub const CIH_2_EXTRA: &[FieldSpec] = &[
    i("CursorPosition", 164),
    i("ErrorOffset", 168),
    i("InputItem", 172),
    i("Reserved4", 176),
];

/// MQWIH version 1 after the prefix; MQWIH_LENGTH_1 = 120.
pub const WIH_1: &[FieldSpec] = &[
    c("ServiceName", 32, 32),
    c("ServiceStep", 64, 8),
    b("MsgToken", 72, 16),
    c("Reserved", 88, 32),
];

/// MQRMH version 1, fixed part after the prefix; MQRMH_LENGTH_1 = 108. The
/// strings the four (length, offset) pairs address lie within StrucLength
/// and are character data in the MQRMH's CCSID ([`RMH_STRINGS`]).
pub const RMH_1: &[FieldSpec] = &[
    c("ObjectType", 32, 8),
    b("ObjectInstanceId", 40, 24),
    i("SrcEnvLength", 64),
    i("SrcEnvOffset", 68),
    i("SrcNameLength", 72),
    i("SrcNameOffset", 76),
    i("DestEnvLength", 80),
    i("DestEnvOffset", 84),
    i("DestNameLength", 88),
    i("DestNameOffset", 92),
    i("DataLogicalLength", 96),
    i("DataLogicalOffset", 100),
    i("DataLogicalOffset2", 104),
];

/// The MQRMH strings: (name, offset of its length field, offset of its
/// offset field), from the start of the MQRMH.
pub const RMH_STRINGS: [(&str, usize, usize); 4] = [
    ("SrcEnv", 64, 68),
    ("SrcName", 72, 76),
    ("DestEnv", 80, 84),
    ("DestName", 88, 92),
];

/// The fixed length of MQRMH version 1 (MQRMH_LENGTH_1).
pub const RMH_LENGTH_1: usize = 108;

/// MQDH version 1 after the prefix; 48 bytes, then RecsPresent MQOR records
/// at ObjectRecOffset and RecsPresent MQPMR records at PutMsgRecOffset, all
/// within StrucLength.
pub const DH_1: &[FieldSpec] = &[
    i("PutMsgRecFields", 32),
    i("RecsPresent", 36),
    i("ObjectRecOffset", 40),
    i("PutMsgRecOffset", 44),
];

/// The fixed length of MQDH version 1.
pub const DH_LENGTH_1: usize = 48;

/// An MQOR record: ObjectName and ObjectQMgrName, MQCHAR48 each.
pub const OR: &[FieldSpec] = &[c("ObjectName", 0, 48), c("ObjectQMgrName", 48, 48)];

/// Length of an MQOR record, bytes.
pub const OR_LENGTH: usize = 96;

/// The MQPMR fields in their order, each with the MQPMRF_* flag that says it
/// is present (IBM MQ "MQPMR - Put-message record": absent fields take no
/// room; "PutMsgRecFields (MQLONG)").
pub const PMR: [(u32, FieldSpec); 5] = [
    (0x01, b("MsgId", 0, 24)),
    (0x02, b("CorrelId", 0, 24)),
    (0x04, b("GroupId", 0, 24)),
    (0x08, i("Feedback", 0)),
    (0x10, b("AccountingToken", 0, 32)),
];

/// The fields of one MQPMR record under `put_msg_rec_fields` (offsets from
/// the record's start) and the record's length; `None` when a flag no MQPMRF_*
/// value has is set.
pub fn pmr_layout(put_msg_rec_fields: i32) -> Option<(Vec<FieldSpec>, usize)> {
    let flags = put_msg_rec_fields as u32;
    if flags & !0x1F != 0 {
        return None;
    }
    let mut at = 0;
    let mut fields = Vec::new();
    for (flag, f) in PMR {
        if flags & flag != 0 {
            fields.push(FieldSpec { offset: at, ..f });
            at += f.length;
        }
    }
    Some((fields, at))
}

/// MQTM version 1, the whole structure (StrucId `TM  `, MQTM_VERSION_1);
/// 684 bytes.
pub const TM_1: &[FieldSpec] = &[
    c("StrucId", 0, 4),
    i("Version", 4),
    c("QName", 8, 48),
    c("ProcessName", 56, 48),
    c("TriggerData", 104, 64),
    i("ApplType", 168),
    c("ApplId", 172, 256),
    c("EnvData", 428, 128),
    c("UserData", 556, 128),
];

/// Length of an MQTM (version 1), bytes.
pub const TM_LENGTH: usize = 684;

/// MQTMC2, the whole structure (StrucId `TMC `, Version `   2`): every field
/// is character data, the queue manager name added at the end; 732 bytes.
pub const TMC2: &[FieldSpec] = &[
    c("StrucId", 0, 4),
    c("Version", 4, 4),
    c("QName", 8, 48),
    c("ProcessName", 56, 48),
    c("TriggerData", 104, 64),
    c("ApplType", 168, 4),
    c("ApplId", 172, 256),
    c("EnvData", 428, 128),
    c("UserData", 556, 128),
    c("QMgrName", 684, 48),
];

/// Length of an MQTMC2, bytes.
pub const TMC2_LENGTH: usize = 732;

/// The fields after the 32-byte prefix of `structure` at `version`, and the
/// structure's fixed length; `None` for a structure or version without a
/// layout here (the typed ones: MQMD, MQXQH, MQDLH, MQMDE, MQRFH, MQRFH2).
pub fn prefixed_layout(structure: Structure, version: i32) -> Option<(Vec<FieldSpec>, usize)> {
    Some(match (structure, version) {
        (Structure::Iih, 1) => (IIH_1.to_vec(), 84),
        (Structure::Cih, 1) => (CIH_1.to_vec(), 164),
        (Structure::Cih, 2) => ([CIH_1, CIH_2_EXTRA].concat(), 180),
        (Structure::Wih, 1) => (WIH_1.to_vec(), 120),
        (Structure::Rmh, 1) => (RMH_1.to_vec(), RMH_LENGTH_1),
        (Structure::Dh, 1) => (DH_1.to_vec(), DH_LENGTH_1),
        _ => return None,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Fields follow each other without gaps or overlaps from `start` to `end`.
    fn contiguous(fields: &[FieldSpec], start: usize, end: usize) {
        let mut at = start;
        for f in fields {
            assert_eq!(f.offset, at, "{}", f.name);
            at += f.length;
        }
        assert_eq!(at, end);
    }

    #[test]
    fn layouts_cover_each_structure_to_its_documented_length() {
        // MQIIH_LENGTH_1 84, MQCIH_LENGTH_1 164 / _2 180, MQWIH_LENGTH_1 120,
        // MQRMH_LENGTH_1 108, MQTM 684, MQTMC2 732 (the IBM MQ constants pages
        // "MQIIH_*", "MQCIH_*", "MQWIH_*", and the C declarations).
        contiguous(IIH_1, 32, 84);
        contiguous(CIH_1, 32, 164);
        contiguous(CIH_2_EXTRA, 164, 180);
        contiguous(WIH_1, 32, 120);
        contiguous(RMH_1, 32, RMH_LENGTH_1);
        contiguous(DH_1, 32, DH_LENGTH_1);
        contiguous(OR, 0, OR_LENGTH);
        contiguous(TM_1, 0, TM_LENGTH);
        contiguous(TMC2, 0, TMC2_LENGTH);
        assert_eq!(prefixed_layout(Structure::Cih, 2).unwrap().1, 180);
        assert_eq!(prefixed_layout(Structure::Iih, 2), None);
        // MQPMR: MsgId 24, CorrelId 24, GroupId 24, Feedback 4, AccountingToken 32,
        // each only when its MQPMRF_* flag is set.
        let (f, len) = pmr_layout(0x01 | 0x08).unwrap();
        assert_eq!((f.len(), f[1].offset, len), (2, 24, 28));
        assert_eq!(pmr_layout(0x1F).unwrap().1, 108);
        assert_eq!(pmr_layout(0x20), None);
    }
}

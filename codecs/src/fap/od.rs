//! MQOD, the object descriptor (IBM MQ "MQOD - Object descriptor"), as
//! MQOPEN, MQPUT1 and SPI carry it: version 1 is 168 bytes, 2 200, 3 336,
//! 4 400 (the Wireshark MQ dissector sizes MQCHARV as 20 bytes on the wire).
//!
//! | off | len | field | version |
//! |---:|---:|---|---|
//! | 0 | 4 | StrucId `OD  ` | 1 |
//! | 4 | 4 | Version | 1 |
//! | 8 | 4 | ObjectType (MQOT_*) | 1 |
//! | 12 | 48 | ObjectName | 1 |
//! | 60 | 48 | ObjectQMgrName | 1 |
//! | 108 | 48 | DynamicQName | 1 |
//! | 156 | 12 | AlternateUserId | 1 |
//! | 168 | 4×8 | RecsPresent, KnownDestCount, UnknownDestCount, InvalidDestCount, ObjectRecOffset, ResponseRecOffset, ObjectRecPtr, ResponseRecPtr | 2 |
//! | 200 | 40 | AlternateSecurityId | 3 |
//! | 240 | 48 | ResolvedQName | 3 |
//! | 288 | 48 | ResolvedQMgrName | 3 |
//! | 336 | 64 | ObjectString, SelectionString, ResObjectString, ResolvedType | 4 |

use crate::mq::ByteOrder;

use super::error::{FapError, FapErrorKind, FapStructure};
use super::read::{Reader, Writer, struc_id_bytes};

const ASCII: &[u8; 4] = b"OD  ";
const EBCDIC: &[u8; 4] = &[0xD6, 0xC4, 0x40, 0x40];

/// MQOT_* object types.
pub mod ot {
    pub const Q: i32 = 1;
    pub const NAMELIST: i32 = 2;
    pub const PROCESS: i32 = 3;
    pub const STORAGE_CLASS: i32 = 4;
    pub const Q_MGR: i32 = 5;
    pub const TOPIC: i32 = 8;
}

/// The length of MQOD `version` in bytes; `None` for an unknown version.
pub fn od_len(version: i32) -> Option<usize> {
    match version {
        1 => Some(168),
        2 => Some(200),
        3 => Some(336),
        4 => Some(400),
        _ => None,
    }
}

/// An MQOD. Fields of versions above `version` hold zeros / blanks and are
/// not written.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Mqod {
    pub ebcdic: bool,
    pub version: i32,
    pub object_type: i32,
    pub object_name: [u8; 48],
    pub object_q_mgr_name: [u8; 48],
    pub dynamic_q_name: [u8; 48],
    pub alternate_user_id: [u8; 12],
    /// Version 2: RecsPresent .. ResponseRecPtr.
    pub v2: [i32; 8],
    pub alternate_security_id: [u8; 40],
    pub resolved_q_name: [u8; 48],
    pub resolved_q_mgr_name: [u8; 48],
    /// Version 4: the three MQCHARV and ResolvedType, as bytes.
    pub v4: [u8; 64],
}

impl Default for Mqod {
    /// MQOD_DEFAULT, version 1: a queue, blank names, DynamicQName `AMQ.*`.
    fn default() -> Self {
        let mut dynamic = [b' '; 48];
        dynamic[..5].copy_from_slice(b"AMQ.*");
        Mqod {
            ebcdic: false,
            version: 1,
            object_type: ot::Q,
            object_name: [b' '; 48],
            object_q_mgr_name: [b' '; 48],
            dynamic_q_name: dynamic,
            alternate_user_id: [b' '; 12],
            v2: [0; 8],
            alternate_security_id: [0; 40],
            resolved_q_name: [b' '; 48],
            resolved_q_mgr_name: [b' '; 48],
            v4: [0; 64],
        }
    }
}

impl Mqod {
    /// Length on the wire, bytes.
    pub fn wire_len(&self) -> usize {
        od_len(self.version).unwrap_or(168)
    }

    /// RecsPresent (version 2 and later): the number of object records of
    /// a distribution list.
    pub fn recs_present(&self) -> i32 {
        if self.version >= 2 { self.v2[0] } else { 0 }
    }
}

/// Parses an MQOD at the start of `input` (`base` = its offset in the
/// segment), integers in `order`; returns it and its length. Errors (2044
/// MQRC_OD_ERROR): bad StrucId, unknown Version, truncated.
pub fn parse_od(input: &[u8], base: usize, order: ByteOrder) -> Result<(Mqod, usize), FapError> {
    let mut r = Reader::new(input, base, FapStructure::Od, order);
    let ebcdic = r.struc_id(ASCII, EBCDIC)?;
    let version = r.i32("Version")?;
    let Some(len) = od_len(version) else {
        return Err(r.error_at(4, "Version", FapErrorKind::UnsupportedVersion { version }));
    };
    r.need("ObjectType", len - 8)?;
    let mut od = Mqod {
        ebcdic,
        version,
        object_type: r.i32("ObjectType")?,
        object_name: r.array("ObjectName")?,
        object_q_mgr_name: r.array("ObjectQMgrName")?,
        dynamic_q_name: r.array("DynamicQName")?,
        alternate_user_id: r.array("AlternateUserId")?,
        ..Mqod::default()
    };
    if version >= 2 {
        for v in od.v2.iter_mut() {
            *v = r.i32("RecsPresent")?;
        }
    }
    if version >= 3 {
        od.alternate_security_id = r.array("AlternateSecurityId")?;
        od.resolved_q_name = r.array("ResolvedQName")?;
        od.resolved_q_mgr_name = r.array("ResolvedQMgrName")?;
    }
    if version >= 4 {
        od.v4 = r.array("ObjectString")?;
    }
    Ok((od, len))
}

/// Appends `od` to `out` (its version's length), integers in `order`.
pub fn write_od(od: &Mqod, order: ByteOrder, out: &mut Vec<u8>) {
    let mut w = Writer { out, order };
    w.bytes(&struc_id_bytes(ASCII, EBCDIC, od.ebcdic));
    w.i32(od.version);
    w.i32(od.object_type);
    w.bytes(&od.object_name);
    w.bytes(&od.object_q_mgr_name);
    w.bytes(&od.dynamic_q_name);
    w.bytes(&od.alternate_user_id);
    if od.version >= 2 {
        for v in od.v2 {
            w.i32(v);
        }
    }
    if od.version >= 3 {
        w.bytes(&od.alternate_security_id);
        w.bytes(&od.resolved_q_name);
        w.bytes(&od.resolved_q_mgr_name);
    }
    if od.version >= 4 {
        w.bytes(&od.v4);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn versions_and_lengths() {
        // MQOD_LENGTH_1..4 = 168, 200, 336, 400 (IBM MQ "MQOD - Object
        // descriptor"; the Wireshark MQ dissector's MQCHARV of 20 bytes).
        for (v, n) in [(1, 168), (2, 200), (3, 336), (4, 400)] {
            let od = Mqod {
                version: v,
                object_type: ot::Q_MGR,
                ..Mqod::default()
            };
            let mut b = Vec::new();
            write_od(&od, ByteOrder::Little, &mut b);
            assert_eq!(b.len(), n);
            assert_eq!(parse_od(&b, 52, ByteOrder::Little).unwrap(), (od, n));
        }
        let mut b = Vec::new();
        write_od(&Mqod::default(), ByteOrder::Big, &mut b);
        b[7] = 9;
        let e = parse_od(&b, 52, ByteOrder::Big).unwrap_err();
        assert_eq!((e.offset, e.field), (56, "Version"));
        assert_eq!(e.mqrc().0, 2044);
    }
}

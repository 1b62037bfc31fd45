//! MQPMO, the put-message options (IBM MQ "MQPMO - Put-message options"):
//! version 1 is 128 bytes, 2 152, 3 176.
//!
//! | off | len | field | version |
//! |---:|---:|---|---|
//! | 0 | 4 | StrucId `PMO ` | 1 |
//! | 4 | 4 | Version | 1 |
//! | 8 | 4 | Options (MQPMO_*) | 1 |
//! | 12 | 4 | Timeout | 1 |
//! | 16 | 4 | Context | 1 |
//! | 20 | 4 | KnownDestCount | 1 |
//! | 24 | 4 | UnknownDestCount | 1 |
//! | 28 | 4 | InvalidDestCount | 1 |
//! | 32 | 48 | ResolvedQName | 1 |
//! | 80 | 48 | ResolvedQMgrName | 1 |
//! | 128 | 4×6 | RecsPresent, PutMsgRecFields, PutMsgRecOffset, ResponseRecOffset, PutMsgRecPtr, ResponseRecPtr | 2 |
//! | 152 | 24 | OriginalMsgHandle, NewMsgHandle, Action, PubLevel | 3 |

use crate::mq::ByteOrder;

use super::error::{FapError, FapErrorKind, FapStructure};
use super::read::{Reader, Writer, struc_id_bytes};

const ASCII: &[u8; 4] = b"PMO ";
const EBCDIC: &[u8; 4] = &[0xD7, 0xD4, 0xD6, 0x40];

/// The length of MQPMO `version`, bytes.
pub fn pmo_len(version: i32) -> Option<usize> {
    match version {
        1 => Some(128),
        2 => Some(152),
        3 => Some(176),
        _ => None,
    }
}

/// An MQPMO.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Mqpmo {
    pub ebcdic: bool,
    pub version: i32,
    pub options: i32,
    pub timeout: i32,
    pub context: i32,
    pub known_dest_count: i32,
    pub unknown_dest_count: i32,
    pub invalid_dest_count: i32,
    pub resolved_q_name: [u8; 48],
    pub resolved_q_mgr_name: [u8; 48],
    /// Version 2: RecsPresent .. ResponseRecPtr.
    pub v2: [i32; 6],
    /// Version 3: message handles, Action, PubLevel, as bytes.
    pub v3: [u8; 24],
}

impl Default for Mqpmo {
    /// MQPMO_DEFAULT, version 1.
    fn default() -> Self {
        Mqpmo {
            ebcdic: false,
            version: 1,
            options: 0,
            timeout: -1,
            context: 0,
            known_dest_count: 0,
            unknown_dest_count: 0,
            invalid_dest_count: 0,
            resolved_q_name: [b' '; 48],
            resolved_q_mgr_name: [b' '; 48],
            v2: [0; 6],
            v3: [0; 24],
        }
    }
}

impl Mqpmo {
    /// Length on the wire, bytes.
    pub fn wire_len(&self) -> usize {
        pmo_len(self.version).unwrap_or(128)
    }
}

/// Parses an MQPMO at the start of `input` (`base` = its offset in the
/// segment); returns it and its length. Errors (2173 MQRC_PMO_ERROR): bad
/// StrucId, unknown Version, truncated.
pub fn parse_pmo(input: &[u8], base: usize, order: ByteOrder) -> Result<(Mqpmo, usize), FapError> {
    let mut r = Reader::new(input, base, FapStructure::Pmo, order);
    let ebcdic = r.struc_id(ASCII, EBCDIC)?;
    let version = r.i32("Version")?;
    let Some(len) = pmo_len(version) else {
        return Err(r.error_at(4, "Version", FapErrorKind::UnsupportedVersion { version }));
    };
    r.need("Options", len - 8)?;
    let mut p = Mqpmo {
        ebcdic,
        version,
        options: r.i32("Options")?,
        timeout: r.i32("Timeout")?,
        context: r.i32("Context")?,
        known_dest_count: r.i32("KnownDestCount")?,
        unknown_dest_count: r.i32("UnknownDestCount")?,
        invalid_dest_count: r.i32("InvalidDestCount")?,
        resolved_q_name: r.array("ResolvedQName")?,
        resolved_q_mgr_name: r.array("ResolvedQMgrName")?,
        ..Mqpmo::default()
    };
    if version >= 2 {
        for v in p.v2.iter_mut() {
            *v = r.i32("RecsPresent")?;
        }
    }
    if version >= 3 {
        p.v3 = r.array("OriginalMsgHandle")?;
    }
    Ok((p, len))
}

/// Appends `p` to `out` (its version's length), integers in `order`.
pub fn write_pmo(p: &Mqpmo, order: ByteOrder, out: &mut Vec<u8>) {
    let mut w = Writer { out, order };
    w.bytes(&struc_id_bytes(ASCII, EBCDIC, p.ebcdic));
    for v in [
        p.version,
        p.options,
        p.timeout,
        p.context,
        p.known_dest_count,
        p.unknown_dest_count,
        p.invalid_dest_count,
    ] {
        w.i32(v);
    }
    w.bytes(&p.resolved_q_name);
    w.bytes(&p.resolved_q_mgr_name);
    if p.version >= 2 {
        for v in p.v2 {
            w.i32(v);
        }
    }
    if p.version >= 3 {
        w.bytes(&p.v3);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn versions_and_the_jms_options() {
        // MQPMO_LENGTH_1..3 = 128, 152, 176 (IBM MQ "MQPMO - Put-message
        // options"); a JMS client's Options 0x00022044 = SYNC_RESPONSE |
        // FAIL_IF_QUIESCING | NEW_MSG_ID | NO_SYNCPOINT.
        for (v, n) in [(1, 128), (2, 152), (3, 176)] {
            let p = Mqpmo {
                version: v,
                options: 0x0002_2044,
                ..Mqpmo::default()
            };
            let mut b = Vec::new();
            write_pmo(&p, ByteOrder::Little, &mut b);
            assert_eq!(b.len(), n);
            assert_eq!(&b[8..12], &[0x44, 0x20, 0x02, 0x00]);
            assert_eq!(parse_pmo(&b, 376, ByteOrder::Little).unwrap(), (p, n));
        }
        let mut b = Vec::new();
        write_pmo(&Mqpmo::default(), ByteOrder::Little, &mut b);
        let e = parse_pmo(&b[..100], 376, ByteOrder::Little).unwrap_err();
        assert_eq!((e.offset, e.mqrc().0), (384, 2173));
    }
}

//! MQGMO, the get-message options (IBM MQ "MQGMO - Get-message options"):
//! version 1 is 72 bytes, 2 80, 3 100, 4 112.
//!
//! | off | len | field | version |
//! |---:|---:|---|---|
//! | 0 | 4 | StrucId `GMO ` | 1 |
//! | 4 | 4 | Version | 1 |
//! | 8 | 4 | Options (MQGMO_*) | 1 |
//! | 12 | 4 | WaitInterval (milliseconds, -1 unlimited) | 1 |
//! | 16 | 4 | Signal1 | 1 |
//! | 20 | 4 | Signal2 | 1 |
//! | 24 | 48 | ResolvedQName | 1 |
//! | 72 | 4 | MatchOptions (MQMO_*) | 2 |
//! | 76 | 1+1+1+1 | GroupStatus, SegmentStatus, Segmentation, Reserved1 | 2 |
//! | 80 | 16 | MsgToken | 3 |
//! | 96 | 4 | ReturnedLength | 3 |
//! | 100 | 4 | Reserved2 | 4 |
//! | 104 | 8 | MsgHandle | 4 |

use crate::mq::ByteOrder;

use super::error::{FapError, FapErrorKind, FapStructure};
use super::read::{Reader, Writer, struc_id_bytes};

const ASCII: &[u8; 4] = b"GMO ";
const EBCDIC: &[u8; 4] = &[0xC7, 0xD4, 0xD6, 0x40];

/// The length of MQGMO `version`, bytes.
pub fn gmo_len(version: i32) -> Option<usize> {
    match version {
        1 => Some(72),
        2 => Some(80),
        3 => Some(100),
        4 => Some(112),
        _ => None,
    }
}

/// MQGMO ReturnedLength when not set: MQRL_UNDEFINED.
pub const RL_UNDEFINED: i32 = -1;

/// An MQGMO.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Mqgmo {
    pub ebcdic: bool,
    pub version: i32,
    pub options: i32,
    /// Milliseconds; -1 = MQWI_UNLIMITED.
    pub wait_interval: i32,
    pub signal1: i32,
    pub signal2: i32,
    pub resolved_q_name: [u8; 48],
    /// Version 2.
    pub match_options: i32,
    /// Version 2: GroupStatus, SegmentStatus, Segmentation, Reserved1.
    pub status: [u8; 4],
    /// Version 3.
    pub msg_token: [u8; 16],
    /// Version 3: bytes of the message returned, -1 undefined.
    pub returned_length: i32,
    /// Version 4: Reserved2 and MsgHandle, as bytes.
    pub v4: [u8; 12],
}

impl Default for Mqgmo {
    /// MQGMO_DEFAULT, version 1: no wait, match MsgId and CorrelId.
    fn default() -> Self {
        Mqgmo {
            ebcdic: false,
            version: 1,
            options: 0,
            wait_interval: 0,
            signal1: 0,
            signal2: 0,
            resolved_q_name: [b' '; 48],
            match_options: 3,
            status: [b' ', b' ', b' ', 0],
            msg_token: [0; 16],
            returned_length: RL_UNDEFINED,
            v4: [0; 12],
        }
    }
}

impl Mqgmo {
    /// Length on the wire, bytes.
    pub fn wire_len(&self) -> usize {
        gmo_len(self.version).unwrap_or(72)
    }

    /// MatchOptions as MQ reads them: version 1 has no field and matches
    /// MsgId and CorrelId (IBM MQ "MatchOptions (MQLONG)").
    pub fn effective_match_options(&self) -> i32 {
        if self.version >= 2 {
            self.match_options
        } else {
            3
        }
    }
}

/// Parses an MQGMO at the start of `input` (`base` = its offset in the
/// segment); returns it and its length. Errors (2186 MQRC_GMO_ERROR): bad
/// StrucId, unknown Version, truncated.
pub fn parse_gmo(input: &[u8], base: usize, order: ByteOrder) -> Result<(Mqgmo, usize), FapError> {
    let mut r = Reader::new(input, base, FapStructure::Gmo, order);
    let ebcdic = r.struc_id(ASCII, EBCDIC)?;
    let version = r.i32("Version")?;
    let Some(len) = gmo_len(version) else {
        return Err(r.error_at(4, "Version", FapErrorKind::UnsupportedVersion { version }));
    };
    r.need("Options", len - 8)?;
    let mut g = Mqgmo {
        ebcdic,
        version,
        options: r.i32("Options")?,
        wait_interval: r.i32("WaitInterval")?,
        signal1: r.i32("Signal1")?,
        signal2: r.i32("Signal2")?,
        resolved_q_name: r.array("ResolvedQName")?,
        ..Mqgmo::default()
    };
    if version >= 2 {
        g.match_options = r.i32("MatchOptions")?;
        g.status = r.array("GroupStatus")?;
    }
    if version >= 3 {
        g.msg_token = r.array("MsgToken")?;
        g.returned_length = r.i32("ReturnedLength")?;
    }
    if version >= 4 {
        g.v4 = r.array("Reserved2")?;
    }
    Ok((g, len))
}

/// Appends `g` to `out` (its version's length), integers in `order`.
pub fn write_gmo(g: &Mqgmo, order: ByteOrder, out: &mut Vec<u8>) {
    let mut w = Writer { out, order };
    w.bytes(&struc_id_bytes(ASCII, EBCDIC, g.ebcdic));
    for v in [g.version, g.options, g.wait_interval, g.signal1, g.signal2] {
        w.i32(v);
    }
    w.bytes(&g.resolved_q_name);
    if g.version >= 2 {
        w.i32(g.match_options);
        w.bytes(&g.status);
    }
    if g.version >= 3 {
        w.bytes(&g.msg_token);
        w.i32(g.returned_length);
    }
    if g.version >= 4 {
        w.bytes(&g.v4);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn versions_and_lengths() {
        // MQGMO_LENGTH_1..4 = 72, 80, 100, 112 (IBM MQ "MQGMO - Get-message
        // options"); version 4 is the 112 bytes before the data length in
        // the agent buffer of an MQGET reply.
        for (v, n) in [(1, 72), (2, 80), (3, 100), (4, 112)] {
            let g = Mqgmo {
                version: v,
                options: 0x4001,
                wait_interval: -1,
                ..Mqgmo::default()
            };
            let mut b = Vec::new();
            write_gmo(&g, ByteOrder::Big, &mut b);
            assert_eq!(b.len(), n);
            assert_eq!(parse_gmo(&b, 376, ByteOrder::Big).unwrap(), (g, n));
        }
        assert_eq!(Mqgmo::default().effective_match_options(), 3);
        let e = parse_gmo(b"GMX ", 376, ByteOrder::Big).unwrap_err();
        assert_eq!((e.field, e.mqrc().0), ("StrucId", 2186));
    }
}

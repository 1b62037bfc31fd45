//! MQMDE, the message descriptor extension (IBM MQ "MQMDE - Message descriptor
//! extension"): StrucId `MDE `, Version 2, 72 bytes, Format `MQHMDE  `. It
//! carries the MQMD v2 fields when only a v1 MD is available (inside an MQXQH).

use super::chain::Descriptor;
use super::constants::md;
use super::enc::{ByteOrder, Fixed};
use super::error::DecodeError;
use super::field::{CharField, Charset};
use super::md::{Id24, Mqmd};
use super::prefix::{PrefixFields, scan_prefix, write_prefix};
use super::strucid::Structure;

/// Length of an MQMDE in bytes (MQMDE_LENGTH_2).
pub const MDE_LENGTH: usize = 72;

/// An MQMDE. Encoding/CodedCharSetId/Format describe the item after it.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Mqmde {
    /// Always 2.
    pub version: i32,
    /// MQENC_* of the next item.
    pub encoding: i32,
    /// CCSID of the next item.
    pub coded_char_set_id: i32,
    /// MQFMT_* of the next item.
    pub format: CharField<8>,
    /// MQMDEF_* flags.
    pub flags: i32,
    /// GroupId (24 binary bytes).
    pub group_id: Id24,
    /// MsgSeqNumber.
    pub msg_seq_number: i32,
    /// Offset of this segment in the logical message, bytes.
    pub offset: i32,
    /// MQMF_* flags.
    pub msg_flags: i32,
    /// OriginalLength in bytes; -1 MQOL_UNDEFINED.
    pub original_length: i32,
}

impl Mqmde {
    /// The MQMDE that carries `md`'s v2 fields, describing the item `next`
    /// (the application format that the MD's Format named before the MDE
    /// was put in front of it).
    pub fn from_md(m: &Mqmd, next: &Descriptor) -> Mqmde {
        Mqmde {
            version: 2,
            encoding: next.encoding,
            coded_char_set_id: next.coded_char_set_id,
            format: next.format,
            flags: 0,
            group_id: m.group_id,
            msg_seq_number: m.msg_seq_number,
            offset: m.offset,
            msg_flags: m.msg_flags,
            original_length: m.original_length,
        }
    }
}

impl Default for Mqmde {
    /// MQMDE_DEFAULT: MsgSeqNumber 1, OriginalLength -1, Format blank.
    fn default() -> Self {
        Mqmde {
            version: 2,
            encoding: 0,
            coded_char_set_id: 0,
            format: CharField::BLANK_ASCII,
            flags: 0,
            group_id: [0; 24],
            msg_seq_number: 1,
            offset: 0,
            msg_flags: 0,
            original_length: md::OL_UNDEFINED,
        }
    }
}

#[inline]
pub(crate) fn scan_mde(
    input: &[u8],
    order: ByteOrder,
) -> Result<(usize, Charset, Descriptor), DecodeError> {
    let p = scan_prefix(
        Structure::Mde,
        input,
        order,
        |v| (v == 2).then_some(MDE_LENGTH),
        true,
    )?;
    Ok((p.struc_length, p.charset, p.next))
}

/// Parses an MQMDE (Version 2, StrucLength exactly 72) from the start of
/// `input`. Errors (2142 MQRC_HEADER_ERROR): truncated, bad StrucId, Version
/// not 2, StrucLength not 72.
pub fn parse_mde(input: &[u8], order: ByteOrder) -> Result<(Mqmde, Charset), DecodeError> {
    let (_, cs, next) = scan_mde(input, order)?;
    let f = Fixed { b: input, order };
    Ok((
        Mqmde {
            version: 2,
            encoding: next.encoding,
            coded_char_set_id: next.coded_char_set_id,
            format: next.format,
            flags: f.i32(28),
            group_id: f.array(32),
            msg_seq_number: f.i32(56),
            offset: f.i32(60),
            msg_flags: f.i32(64),
            original_length: f.i32(68),
        },
        cs,
    ))
}

/// Appends `m` (72 bytes) to `out`, integers in `order`, StrucId in `cs`.
pub fn write_mde(m: &Mqmde, order: ByteOrder, cs: Charset, out: &mut Vec<u8>) {
    write_prefix(
        out,
        &PrefixFields {
            structure: Structure::Mde,
            version: m.version,
            struc_length: MDE_LENGTH,
            encoding: m.encoding,
            coded_char_set_id: m.coded_char_set_id,
            format: &m.format,
            flags: m.flags,
        },
        cs,
        order,
    );
    out.extend_from_slice(&m.group_id);
    for v in [m.msg_seq_number, m.offset, m.msg_flags, m.original_length] {
        order.put_i32(out, v);
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::mq::DecodeErrorKind;

    #[test]
    fn mde_layout() {
        // IBM MQ "MQMDE - Message descriptor extension": StrucLength 72 @8, GroupId @32,
        // MsgSeqNumber @56, OriginalLength @68.
        let m = Mqmde {
            msg_seq_number: 3,
            format: CharField(*b"MQSTR   "),
            ..Mqmde::default()
        };
        let mut out = Vec::new();
        write_mde(&m, ByteOrder::Big, Charset::Ascii, &mut out);
        assert_eq!(out.len(), 72);
        assert_eq!(&out[0..12], b"MDE \0\0\0\x02\0\0\0\x48");
        assert_eq!(&out[20..28], b"MQSTR   ");
        assert_eq!(&out[56..60], &[0, 0, 0, 3]);
        assert_eq!(&out[68..72], &[0xFF; 4]);
        assert_eq!(
            parse_mde(&out, ByteOrder::Big).unwrap(),
            (m, Charset::Ascii)
        );
        out[11] = 76;
        let e = parse_mde(&out, ByteOrder::Big).unwrap_err();
        assert_eq!(
            (e.offset, e.kind),
            (
                8,
                DecodeErrorKind::StrucLengthOutOfRange {
                    struc_length: 76,
                    min: 72,
                    max: 72
                }
            )
        );
    }
}

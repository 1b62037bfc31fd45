//! Chained headers known by their common 32-byte prefix, the rest kept as
//! bytes: MQIIH (IMS bridge, 84 bytes, Format `MQIMS   `), MQCIH (CICS
//! bridge, 164 bytes v1 / 180 bytes v2, Format `MQCICS  `), MQWIH (work
//! information, 120 bytes, Format `MQHWIH  `), MQRMH (reference message,
//! 108 bytes plus its strings, Format `MQHREF  `) and MQDH (distribution
//! header, 48 bytes plus its MQOR / MQPMR records, Format `MQHDIST `) (IBM MQ
//! "MQIIH - IMS information header", "MQCIH - CICS bridge header", "MQWIH -
//! Work information header", "MQRMH - Reference message header", "MQDH -
//! Distribution header"). Their fields
//! past the prefix are described in [`super::layout`], which the data
//! conversion uses.

use std::borrow::Cow;

use super::chain::Descriptor;
use super::enc::ByteOrder;
use super::error::DecodeError;
use super::field::{CharField, Charset};
use super::prefix::{PREFIX_LENGTH, PrefixFields, scan_prefix, write_prefix};
use super::strucid::Structure;

/// MQIIH_LENGTH_1 in bytes.
pub const IIH_LENGTH: usize = 84;
/// MQCIH_LENGTH_1 in bytes.
pub const CIH_LENGTH_1: usize = 164;
/// MQCIH_LENGTH_2 in bytes.
pub const CIH_LENGTH_2: usize = 180;
/// MQWIH_LENGTH_1 in bytes.
pub const WIH_LENGTH: usize = 120;
/// MQRMH_LENGTH_1 in bytes: the fixed part; StrucLength includes the strings.
pub const RMH_LENGTH_1: usize = 108;
/// MQDH version 1 in bytes: the fixed part; StrucLength includes its records.
pub const DH_LENGTH_1: usize = 48;

/// A header known by its prefix only.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct OpaqueHeader<'a> {
    /// [`Structure::Iih`], [`Structure::Cih`], [`Structure::Wih`],
    /// [`Structure::Rmh`] or [`Structure::Dh`].
    pub structure: Structure,
    /// Version (MQIIH, MQWIH, MQRMH 1; MQCIH 1 or 2).
    pub version: i32,
    /// MQENC_* of the next item.
    pub encoding: i32,
    /// CCSID of the next item.
    pub coded_char_set_id: i32,
    /// MQFMT_* of the next item.
    pub format: CharField<8>,
    /// Flags (MQIIH_*, MQCIH_*, MQWIH_*, MQRMHF_*).
    pub flags: i32,
    /// Bytes 32..StrucLength, unchanged.
    pub rest: Cow<'a, [u8]>,
}

impl OpaqueHeader<'_> {
    /// StrucLength as written: 32 + the rest.
    pub fn struc_length(&self) -> usize {
        PREFIX_LENGTH + self.rest.len()
    }
}

fn min_length(structure: Structure, version: i32) -> Option<usize> {
    match (structure, version) {
        (Structure::Iih, 1) => Some(IIH_LENGTH),
        (Structure::Cih, 1) => Some(CIH_LENGTH_1),
        (Structure::Cih, 2) => Some(CIH_LENGTH_2),
        (Structure::Wih, 1) => Some(WIH_LENGTH),
        (Structure::Rmh, 1) => Some(RMH_LENGTH_1),
        (Structure::Dh, 1) => Some(DH_LENGTH_1),
        _ => None,
    }
}

#[inline]
pub(crate) fn scan_opaque(
    structure: Structure,
    input: &[u8],
    order: ByteOrder,
) -> Result<(usize, Charset, Descriptor), DecodeError> {
    let p = scan_prefix(structure, input, order, |v| min_length(structure, v), false)?;
    Ok((p.struc_length, p.charset, p.next))
}

/// Parses an MQIIH, MQCIH, MQWIH, MQRMH or MQDH (`structure`) from the start of `input`,
/// advancing by its StrucLength (at least the version's fixed length, a
/// multiple of 4, inside the input). Errors: 2142 MQRC_HEADER_ERROR.
pub fn parse_opaque(
    structure: Structure,
    input: &[u8],
    order: ByteOrder,
) -> Result<(OpaqueHeader<'_>, Charset), DecodeError> {
    let (len, cs, next) = scan_opaque(structure, input, order)?;
    Ok((
        OpaqueHeader {
            structure,
            version: order.read_i32(input, 4).unwrap_or(0),
            encoding: next.encoding,
            coded_char_set_id: next.coded_char_set_id,
            format: next.format,
            flags: order.read_i32(input, 28).unwrap_or(0),
            rest: Cow::Borrowed(&input[PREFIX_LENGTH..len]),
        },
        cs,
    ))
}

/// Appends `h` to `out`, integers in `order`, StrucId in `cs`.
pub fn write_opaque(h: &OpaqueHeader<'_>, order: ByteOrder, cs: Charset, out: &mut Vec<u8>) {
    write_prefix(
        out,
        &PrefixFields {
            structure: h.structure,
            version: h.version,
            struc_length: h.struc_length(),
            encoding: h.encoding,
            coded_char_set_id: h.coded_char_set_id,
            format: &h.format,
            flags: h.flags,
        },
        cs,
        order,
    );
    out.extend_from_slice(&h.rest);
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::mq::DecodeErrorKind;

    #[test]
    fn cih_v2_is_passed_through_by_struc_length() {
        // IBM MQ "MQCIH - CICS bridge header": MQCIH v2 is 180 bytes.
        let rest = [0x5Au8; 148];
        let h = OpaqueHeader {
            structure: Structure::Cih,
            version: 2,
            encoding: 785,
            coded_char_set_id: 500,
            format: CharField(*b"MQSTR   "),
            flags: 4,
            rest: Cow::Borrowed(&rest),
        };
        let mut out = Vec::new();
        write_opaque(&h, ByteOrder::Big, Charset::Ebcdic, &mut out);
        assert_eq!(out.len(), 180);
        assert_eq!(
            &out[0..12],
            &[0xC3, 0xC9, 0xC8, 0x40, 0, 0, 0, 2, 0, 0, 0, 180]
        );
        assert_eq!(
            parse_opaque(Structure::Cih, &out, ByteOrder::Big).unwrap(),
            (h, Charset::Ebcdic)
        );
        // A v2 CIH claiming 164 bytes is too short for its version.
        out[11] = 164;
        let e = parse_opaque(Structure::Cih, &out, ByteOrder::Big).unwrap_err();
        assert_eq!(
            e.kind,
            DecodeErrorKind::StrucLengthOutOfRange {
                struc_length: 164,
                min: 180,
                max: 180
            }
        );
    }
}

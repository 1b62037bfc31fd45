//! The 32-byte prefix shared by MQMDE, MQRFH, MQRFH2, MQIIH, MQCIH, ... (IBM MQ
//! "MQRFH2 - Rules and formatting header 2", the Wireshark MQ dissector
//! packet-mq.c): StrucId, Version, StrucLength, then the Encoding,
//! CodedCharSetId and Format of the next item, and Flags.

use super::chain::Descriptor;
use super::enc::{ByteOrder, Fixed};
use super::error::{DecodeError, DecodeErrorKind, need};
use super::field::{CharField, Charset};
use super::strucid::Structure;

/// Length of the common prefix in bytes.
pub const PREFIX_LENGTH: usize = 32;

/// The decoded common prefix.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) struct Prefix {
    pub(crate) charset: Charset,
    pub(crate) version: i32,
    /// StrucLength, checked: at least the structure's minimum, at most the
    /// input, and (where MQ asks for it) a multiple of 4.
    pub(crate) struc_length: usize,
    pub(crate) next: Descriptor,
    pub(crate) flags: i32,
}

/// Checks and reads the prefix of `structure` at the start of `input`.
/// `min_len(version)` gives the smallest StrucLength for an accepted version
/// (`None` = version not supported); `exact` requires StrucLength == minimum.
#[inline]
pub(crate) fn scan_prefix(
    structure: Structure,
    input: &[u8],
    order: ByteOrder,
    min_len: impl Fn(i32) -> Option<usize>,
    exact: bool,
) -> Result<Prefix, DecodeError> {
    need(structure, input, 8)?;
    let charset = structure.match_struc_id(input).ok_or_else(|| {
        let mut found = [0u8; 4];
        found.copy_from_slice(&input[..4]);
        DecodeError::new(structure, 0, DecodeErrorKind::BadStrucId { found })
    })?;
    let f = Fixed { b: input, order };
    let version = f.i32(4);
    let min = min_len(version).ok_or_else(|| {
        DecodeError::new(
            structure,
            4,
            DecodeErrorKind::UnsupportedVersion { version },
        )
    })?;
    need(structure, input, PREFIX_LENGTH)?;
    let raw = f.i32(8);
    let max = if exact { min } else { input.len() };
    let struc_length = usize::try_from(raw)
        .ok()
        .filter(|&l| l >= min && l <= max)
        .ok_or_else(|| {
            DecodeError::new(
                structure,
                8,
                DecodeErrorKind::StrucLengthOutOfRange {
                    struc_length: raw,
                    min,
                    max,
                },
            )
        })?;
    if struc_length % 4 != 0 {
        return Err(DecodeError::new(
            structure,
            8,
            DecodeErrorKind::StrucLengthNotMultipleOf4 { struc_length: raw },
        ));
    }
    need(structure, input, struc_length)?;
    Ok(Prefix {
        charset,
        version,
        struc_length,
        next: Descriptor {
            encoding: f.i32(12),
            coded_char_set_id: f.i32(16),
            format: CharField(f.array(20)),
            charset,
        },
        flags: f.i32(28),
    })
}

/// The values a structure writes into its common prefix (the fields listed above);
/// StrucId comes from `structure` in the output charset.
pub(crate) struct PrefixFields<'a> {
    pub(crate) structure: Structure,
    pub(crate) version: i32,
    /// StrucLength in bytes (written as `i32::MAX` if it could not fit).
    pub(crate) struc_length: usize,
    /// Encoding of the next item.
    pub(crate) encoding: i32,
    /// CodedCharSetId of the next item.
    pub(crate) coded_char_set_id: i32,
    /// Format of the next item.
    pub(crate) format: &'a CharField<8>,
    pub(crate) flags: i32,
}

/// Appends a common prefix: StrucId in `cs`, integers in `order`.
pub(crate) fn write_prefix(out: &mut Vec<u8>, p: &PrefixFields<'_>, cs: Charset, order: ByteOrder) {
    out.extend_from_slice(&p.structure.struc_id(cs));
    order.put_i32(out, p.version);
    order.put_i32(out, i32::try_from(p.struc_length).unwrap_or(i32::MAX));
    order.put_i32(out, p.encoding);
    order.put_i32(out, p.coded_char_set_id);
    out.extend_from_slice(&p.format.0);
    order.put_i32(out, p.flags);
}

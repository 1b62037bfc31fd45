//! The one error type of the MQ header codecs: which structure, at which byte
//! offset, what was wrong, and the MQRC reason that applies (IBM MQ "API reason
//! codes").

use std::fmt;

use super::rc::Mqrc;
use super::strucid::Structure;

/// A structure that could not be decoded.
///
/// `offset` is the byte offset of the offending field (or of the structure when
/// the whole structure is at fault) from the start of the input given to the
/// parser: a single-structure parser counts from the structure's start, the
/// chain parser from the start of the message.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
#[error("{structure} at offset {offset}: {kind} ({mqrc})", mqrc = self.mqrc())]
pub struct DecodeError {
    /// The structure being decoded.
    pub structure: Structure,
    /// Byte offset of the offending field.
    pub offset: usize,
    /// What was wrong.
    pub kind: DecodeErrorKind,
}

/// What was wrong with a structure.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum DecodeErrorKind {
    /// The input ends before the structure does: `needed` bytes from the
    /// structure's start, `available` present.
    Truncated { needed: usize, available: usize },
    /// The StrucId is not the expected one in ASCII or EBCDIC.
    BadStrucId { found: [u8; 4] },
    /// The Version is not one mqgate reads for this structure (for a bare first
    /// structure: not valid in either byte order).
    UnsupportedVersion { version: i32 },
    /// StrucLength is smaller than the fixed part or runs past the input.
    StrucLengthOutOfRange {
        struc_length: i32,
        min: usize,
        max: usize,
    },
    /// StrucLength is not a multiple of 4 (IBM docs: MQRFH, MQRFH2).
    StrucLengthNotMultipleOf4 { struc_length: i32 },
    /// A NameValueLength is negative or runs past StrucLength.
    NameValueLengthOutOfRange { name_value_length: i32, max: usize },
    /// A NameValueLength is not a multiple of 4 (IBM docs: MQRFH2 NameValueLength).
    NameValueLengthNotMultipleOf4 { name_value_length: i32 },
    /// Bytes left between the last folder and StrucLength, too few for a NameValueLength.
    TrailingBytes { count: usize },
    /// NameValueCCSID is not 1208, 1200, 13488 or 17584 (IBM docs: NameValueCCSID).
    BadNameValueCcsid { ccsid: i32 },
    /// The MQRFH NameValueString breaks MQ's token rules.
    MalformedNameValueString { what: &'static str },
    /// Folder data is not valid text in its NameValueCCSID.
    BadFolderText { ccsid: i32 },
}

impl fmt::Display for DecodeErrorKind {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            DecodeErrorKind::Truncated { needed, available } => {
                write!(f, "truncated: needs {needed} bytes, {available} available")
            }
            DecodeErrorKind::BadStrucId { found } => {
                write!(f, "bad StrucId {}", hex::encode_upper(found))
            }
            DecodeErrorKind::UnsupportedVersion { version } => {
                write!(f, "unsupported Version {version}")
            }
            DecodeErrorKind::StrucLengthOutOfRange {
                struc_length,
                min,
                max,
            } => write!(f, "StrucLength {struc_length} out of range {min}..={max}"),
            DecodeErrorKind::StrucLengthNotMultipleOf4 { struc_length } => {
                write!(f, "StrucLength {struc_length} is not a multiple of 4")
            }
            DecodeErrorKind::NameValueLengthOutOfRange {
                name_value_length,
                max,
            } => write!(
                f,
                "NameValueLength {name_value_length} out of range 0..={max}"
            ),
            DecodeErrorKind::NameValueLengthNotMultipleOf4 { name_value_length } => write!(
                f,
                "NameValueLength {name_value_length} is not a multiple of 4"
            ),
            DecodeErrorKind::TrailingBytes { count } => write!(
                f,
                "{count} bytes after the last folder, too few for a NameValueLength"
            ),
            DecodeErrorKind::BadNameValueCcsid { ccsid } => write!(
                f,
                "NameValueCCSID {ccsid} is not 1208, 1200, 13488 or 17584"
            ),
            DecodeErrorKind::MalformedNameValueString { what } => {
                write!(f, "malformed NameValueString: {what}")
            }
            DecodeErrorKind::BadFolderText { ccsid } => {
                write!(f, "folder data is not valid text in CCSID {ccsid}")
            }
        }
    }
}

impl DecodeError {
    /// An error in `structure` at `offset`.
    #[cold]
    pub fn new(structure: Structure, offset: usize, kind: DecodeErrorKind) -> Self {
        DecodeError {
            structure,
            offset,
            kind,
        }
    }

    /// The same error with its offset moved by `base` bytes (a structure parsed
    /// at `base` inside a larger message).
    pub fn shifted(mut self, base: usize) -> Self {
        self.offset = self.offset.saturating_add(base);
        self
    }

    /// The MQRC reason MQ gives for this fault: 2026 MQRC_MD_ERROR for the
    /// MQMD; for MQRFH/MQRFH2 2335 MQRC_RFH_STRING_ERROR when the name/value
    /// text is malformed, else 2334 MQRC_RFH_ERROR; 2142 MQRC_HEADER_ERROR for
    /// every other header (IBM MQ "2334 (091E) (RC2334): MQRC_RFH_ERROR", "2335
    /// (091F) (RC2335): MQRC_RFH_STRING_ERROR", "2142 (085E) (RC2142):
    /// MQRC_HEADER_ERROR").
    pub fn mqrc(&self) -> Mqrc {
        match self.structure {
            Structure::Md => Mqrc::MD_ERROR,
            Structure::Rfh | Structure::Rfh2 => match self.kind {
                DecodeErrorKind::MalformedNameValueString { .. }
                | DecodeErrorKind::BadFolderText { .. } => Mqrc::RFH_STRING_ERROR,
                _ => Mqrc::RFH_ERROR,
            },
            _ => Mqrc::HEADER_ERROR,
        }
    }
}

/// Returns a `Truncated` error unless `input` holds `needed` bytes.
#[inline]
pub(crate) fn need(structure: Structure, input: &[u8], needed: usize) -> Result<(), DecodeError> {
    if input.len() < needed {
        Err(DecodeError::new(
            structure,
            0,
            DecodeErrorKind::Truncated {
                needed,
                available: input.len(),
            },
        ))
    } else {
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn display_names_structure_offset_what_and_mqrc() {
        let e = DecodeError::new(
            Structure::Rfh2,
            36,
            DecodeErrorKind::NameValueLengthNotMultipleOf4 {
                name_value_length: 26,
            },
        );
        assert_eq!(
            e.to_string(),
            "MQRFH2 at offset 36: NameValueLength 26 is not a multiple of 4 (2334 MQRC_RFH_ERROR)"
        );
        let md = DecodeError::new(
            Structure::Md,
            0,
            DecodeErrorKind::Truncated {
                needed: 324,
                available: 10,
            },
        )
        .shifted(428);
        assert_eq!(
            md.to_string(),
            "MQMD at offset 428: truncated: needs 324 bytes, 10 available (2026 MQRC_MD_ERROR)"
        );
    }

    #[test]
    fn mqrc_per_structure_and_kind() {
        // IBM MQ "API reason codes": 2334/2335 (MQRFH), 2026 MD_ERROR, 2142 HEADER_ERROR.
        let bad = |s, k| DecodeError::new(s, 0, k).mqrc();
        let trunc = DecodeErrorKind::Truncated {
            needed: 1,
            available: 0,
        };
        let string = DecodeErrorKind::MalformedNameValueString { what: "x" };
        assert_eq!(bad(Structure::Md, trunc.clone()), Mqrc(2026));
        assert_eq!(bad(Structure::Xqh, trunc.clone()), Mqrc(2142));
        assert_eq!(bad(Structure::Dlh, trunc.clone()), Mqrc(2142));
        assert_eq!(bad(Structure::Rfh2, trunc), Mqrc(2334));
        assert_eq!(bad(Structure::Rfh, string), Mqrc(2335));
    }
}

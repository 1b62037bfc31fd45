//! The one error type of the client-protocol codec: which structure, at which
//! byte offset, which field, what was wrong, the MQRC reason that applies and
//! the STATUS_DATA code a queue manager answers a broken segment with.
//!
//! Offsets count from the first byte of the segment (its TSH) when a whole
//! segment is parsed, else from the start of the input given to the parser.

use std::fmt;

use crate::mq::{DecodeError, DecodeErrorKind, Mqrc};

use super::status::StatusCode;

/// The structures of the client protocol (names as the Wireshark MQ
/// dissector shows them: "Transmission Segment Header", "Initial Data", ...).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum FapStructure {
    /// TSH, TSHM or TSHC: the segment header.
    Tsh,
    /// A segment's whole body (its length against the negotiated maximum,
    /// reassembly of FIRST/LAST segments).
    Segment,
    /// The 16-byte API header of MQI verbs.
    Api,
    /// INITIAL_DATA, StrucId `ID  `.
    InitialData,
    /// USERID_DATA, StrucId `UID `.
    UserIdData,
    /// CONAUTH_INFO, StrucId `CAUT`.
    ConAuthInfo,
    /// STATUS_DATA.
    StatusData,
    /// SOCKET_ACTION.
    SocketAction,
    /// The MQCONN parameters.
    Conn,
    /// The FCNO structure after the MQCONN parameters.
    Fcno,
    /// MQOD, StrucId `OD  `.
    Od,
    /// MQOPEN / MQCLOSE options and the FOPA structure.
    Open,
    /// MQMD, StrucId `MD  `.
    Md,
    /// MQPMO, StrucId `PMO `.
    Pmo,
    /// MQGMO, StrucId `GMO `.
    Gmo,
    /// The data length and message data of MQPUT, MQPUT1 and MQGET.
    MessageData,
    /// MQINQ selectors and values.
    Inq,
    /// SPI header and its `SP..` structures.
    Spi,
    /// LPOO inside an SPI open.
    Lpoo,
}

impl FapStructure {
    /// The structure's name, e.g. `TSH`, `INITIAL_DATA`, `MQOD`.
    pub fn name(self) -> &'static str {
        match self {
            FapStructure::Tsh => "TSH",
            FapStructure::Segment => "segment",
            FapStructure::Api => "API header",
            FapStructure::InitialData => "INITIAL_DATA",
            FapStructure::UserIdData => "USERID_DATA",
            FapStructure::ConAuthInfo => "CONAUTH_INFO",
            FapStructure::StatusData => "STATUS_DATA",
            FapStructure::SocketAction => "SOCKET_ACTION",
            FapStructure::Conn => "MQCONN",
            FapStructure::Fcno => "FCNO",
            FapStructure::Od => "MQOD",
            FapStructure::Open => "MQOPEN",
            FapStructure::Md => "MQMD",
            FapStructure::Pmo => "MQPMO",
            FapStructure::Gmo => "MQGMO",
            FapStructure::MessageData => "message data",
            FapStructure::Inq => "MQINQ",
            FapStructure::Spi => "SPI",
            FapStructure::Lpoo => "LPOO",
        }
    }
}

impl fmt::Display for FapStructure {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name())
    }
}

/// A segment or structure that could not be decoded.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
#[error("{structure} {field} at offset {offset}: {kind} ({mqrc})", mqrc = self.mqrc())]
pub struct FapError {
    /// The structure being decoded.
    pub structure: FapStructure,
    /// Byte offset of the offending field.
    pub offset: usize,
    /// The field's name (MQ's, or the Wireshark MQ dissector's for
    /// undocumented structures).
    pub field: &'static str,
    /// What was wrong.
    pub kind: FapErrorKind,
}

/// What was wrong.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum FapErrorKind {
    /// The input ends before the field does: `needed` bytes from the
    /// structure's start, `available` present.
    Truncated { needed: usize, available: usize },
    /// The StrucId is not the expected one in ASCII or EBCDIC.
    BadStrucId { found: [u8; 4] },
    /// A Version this codec does not read.
    UnsupportedVersion { version: i32 },
    /// ByteOrder is neither 1 (big-endian) nor 2 (little-endian).
    BadByteOrder { value: u8 },
    /// SegmentLength smaller than the header (`min`) or larger than the
    /// negotiated maximum transmission size (`max`), bytes.
    SegmentLength { length: u32, min: usize, max: usize },
    /// A length or count field out of range: `value` not in `min..=max`.
    OutOfRange { value: i64, min: i64, max: i64 },
    /// Bytes left after the last field the structure defines.
    TrailingBytes { count: usize },
    /// A segment type the receiver does not serve at this point.
    UnexpectedSegmentType { segment_type: u8 },
    /// A middle or last segment without a first one, or a first segment
    /// while another message of the conversation is being reassembled.
    OutOfSequence { control_flags1: u8 },
    /// A reassembled message larger than the maximum, bytes.
    MessageTooLong { length: usize, max: usize },
    /// The embedded MQMD failed to decode (see the MQ header codec).
    Md(DecodeErrorKind),
}

impl fmt::Display for FapErrorKind {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            FapErrorKind::Truncated { needed, available } => {
                write!(f, "truncated: needs {needed} bytes, {available} available")
            }
            FapErrorKind::BadStrucId { found } => {
                write!(f, "bad StrucId {}", hex::encode_upper(found))
            }
            FapErrorKind::UnsupportedVersion { version } => {
                write!(f, "unsupported Version {version}")
            }
            FapErrorKind::BadByteOrder { value } => {
                write!(f, "ByteOrder {value} is neither 1 nor 2")
            }
            FapErrorKind::SegmentLength { length, min, max } => {
                write!(f, "SegmentLength {length} out of range {min}..={max}")
            }
            FapErrorKind::OutOfRange { value, min, max } => {
                write!(f, "value {value} out of range {min}..={max}")
            }
            FapErrorKind::TrailingBytes { count } => write!(f, "{count} bytes after the end"),
            FapErrorKind::UnexpectedSegmentType { segment_type } => {
                write!(f, "unexpected segment type 0x{segment_type:02X}")
            }
            FapErrorKind::OutOfSequence { control_flags1 } => write!(
                f,
                "segment with ControlFlags1 0x{control_flags1:02X} out of sequence"
            ),
            FapErrorKind::MessageTooLong { length, max } => {
                write!(f, "reassembled length {length} exceeds {max}")
            }
            FapErrorKind::Md(k) => write!(f, "{k}"),
        }
    }
}

impl FapError {
    /// An error in `structure` at `offset`, field `field`.
    #[cold]
    pub fn new(
        structure: FapStructure,
        offset: usize,
        field: &'static str,
        kind: FapErrorKind,
    ) -> Self {
        FapError {
            structure,
            offset,
            field,
            kind,
        }
    }

    /// The same error with its offset moved by `base` bytes (a structure
    /// parsed at `base` inside a segment).
    pub fn shifted(mut self, base: usize) -> Self {
        self.offset = self.offset.saturating_add(base);
        self
    }

    /// An MQMD error of the MQ header codec as an error of this codec, at
    /// `base` bytes into the segment.
    pub fn from_md(e: DecodeError, base: usize) -> Self {
        FapError::new(
            FapStructure::Md,
            e.offset.saturating_add(base),
            "MQMD",
            FapErrorKind::Md(e.kind),
        )
    }

    /// The MQRC reason an application sees for this fault (IBM MQ "API
    /// reason codes"): 2026 MQRC_MD_ERROR, 2044 MQRC_OD_ERROR, 2173
    /// MQRC_PMO_ERROR, 2186 MQRC_GMO_ERROR for those structures; 2005
    /// MQRC_BUFFER_LENGTH_ERROR for MQGET's BufferLength, 2010
    /// MQRC_DATA_LENGTH_ERROR for the rest of the message data; 2021
    /// MQRC_INT_ATTR_COUNT_ERROR and 2006 MQRC_CHAR_ATTR_LENGTH_ERROR for
    /// MQINQ's IntAttrCount and CharAttrLength, 2065
    /// MQRC_SELECTOR_COUNT_ERROR for the rest of MQINQ; 2063 MQRC_SECURITY_ERROR for
    /// USERID_DATA and CONAUTH_INFO; 2031 MQRC_MSG_TOO_BIG_FOR_Q_MGR for a
    /// reassembled message over the maximum; 2009 MQRC_CONNECTION_BROKEN
    /// for everything that breaks the conversation itself (segment header,
    /// INITIAL_DATA, sequence), since the queue manager closes it.
    pub fn mqrc(&self) -> Mqrc {
        match (self.structure, &self.kind) {
            (_, FapErrorKind::MessageTooLong { .. }) => Mqrc::MSG_TOO_BIG_FOR_Q_MGR,
            (FapStructure::Md, _) => Mqrc::MD_ERROR,
            (FapStructure::Od, _) => Mqrc::OD_ERROR,
            (FapStructure::Pmo, _) => Mqrc::PMO_ERROR,
            (FapStructure::Gmo, _) => Mqrc::GMO_ERROR,
            (FapStructure::MessageData, _) if self.field == "BufferLength" => {
                Mqrc::BUFFER_LENGTH_ERROR
            }
            (FapStructure::MessageData, _) => Mqrc::DATA_LENGTH_ERROR,
            (FapStructure::Inq, _) if self.field == "IntAttrCount" => Mqrc::INT_ATTR_COUNT_ERROR,
            (FapStructure::Inq, _) if self.field == "CharAttrLength" => {
                Mqrc::CHAR_ATTR_LENGTH_ERROR
            }
            (FapStructure::Inq, _) => Mqrc::SELECTOR_COUNT_ERROR,
            (FapStructure::Open, _) => Mqrc::OPTIONS_ERROR,
            (FapStructure::UserIdData | FapStructure::ConAuthInfo, _) => Mqrc::SECURITY_ERROR,
            _ => Mqrc::CONNECTION_BROKEN,
        }
    }

    /// The STATUS_DATA code a queue manager sends before it closes a
    /// conversation over this fault (the Wireshark MQ dissector's
    /// MQ_STATUS_ERR_* values): a bad segment header or sequence is a
    /// protocol segment error (0x0D), a bad length a length error (0x0B), an
    /// unexpected segment type 0x0A, INITIAL_DATA 0x0E, the security
    /// structures 0x14, anything else invalid data (0x0C).
    pub fn status_code(&self) -> StatusCode {
        match (self.structure, &self.kind) {
            (_, FapErrorKind::UnexpectedSegmentType { .. }) => StatusCode::PROTOCOL_SEGMENT_TYPE,
            (_, FapErrorKind::SegmentLength { .. } | FapErrorKind::MessageTooLong { .. }) => {
                StatusCode::PROTOCOL_LENGTH_ERROR
            }
            (FapStructure::Tsh | FapStructure::Segment, _) => StatusCode::PROTOCOL_SEGMENT_ERROR,
            (FapStructure::InitialData, _) => StatusCode::PROTOCOL_ID_ERROR,
            (FapStructure::UserIdData | FapStructure::ConAuthInfo, _) => {
                StatusCode::SECURITY_FAILURE
            }
            _ => StatusCode::PROTOCOL_INVALID_DATA,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn display_names_structure_field_offset_and_mqrc() {
        let e = FapError::new(
            FapStructure::Tsh,
            4,
            "SegmentLength",
            FapErrorKind::SegmentLength {
                length: 10,
                min: 28,
                max: 32768,
            },
        );
        assert_eq!(
            e.to_string(),
            "TSH SegmentLength at offset 4: SegmentLength 10 out of range 28..=32768 \
             (2009 MQRC_CONNECTION_BROKEN)"
        );
        // STATUS_DATA code 0x0B (MQ_STATUS_ERR_PROTOCOL_LENGTH_ERROR, the
        // Wireshark MQ dissector).
        assert_eq!(e.status_code().0, 0x0B);
    }

    #[test]
    fn mqrc_per_structure() {
        // IBM MQ "API reason codes": 2026 MD, 2044 OD, 2173 PMO, 2186 GMO,
        // 2010 DATA_LENGTH, 2065 SELECTOR_COUNT, 2063 SECURITY.
        let t = FapErrorKind::Truncated {
            needed: 4,
            available: 0,
        };
        let rc = |s| FapError::new(s, 0, "x", t.clone()).mqrc().0;
        assert_eq!(rc(FapStructure::Md), 2026);
        assert_eq!(rc(FapStructure::Od), 2044);
        assert_eq!(rc(FapStructure::Pmo), 2173);
        assert_eq!(rc(FapStructure::Gmo), 2186);
        assert_eq!(rc(FapStructure::MessageData), 2010);
        assert_eq!(rc(FapStructure::Inq), 2065);
        assert_eq!(rc(FapStructure::ConAuthInfo), 2063);
        assert_eq!(rc(FapStructure::InitialData), 2009);
        // STATUS_DATA codes: 0x0E ID error, 0x14 security failure.
        let st = |s| FapError::new(s, 0, "x", t.clone()).status_code().0;
        assert_eq!(st(FapStructure::InitialData), 0x0E);
        assert_eq!(st(FapStructure::UserIdData), 0x14);
        assert_eq!(st(FapStructure::Tsh), 0x0D);
    }
}

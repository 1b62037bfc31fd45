//! The one error type of the PAMS structure codecs: which structure, which
//! field, at which byte offset, what was wrong, and the status a server
//! answers with.
//!
//! Offsets count bytes from the start of the message body (or of the show
//! buffer) given to the decoder. The status mapping is mqgate's (docs/messageq.md,
//! "Choices mqgate made"): every malformed SBS request is answered with
//! PSYM_SBS_BADPARAM in its response's `status`; the PAMS return code a
//! `pams_*` call would give is PAMS__BADPARAM, PAMS__MSGTOBIG for a body
//! longer than the structure, PAMS__AREATOSMALL for a show buffer shorter than
//! its minimum, and PAMS__NOTSUPPORTED for a message type mqgate does not read.

use std::fmt;

use super::endian::Endian;
use super::rules::Operator;
use super::status::{PamsStatus, SbsStatus};
use super::symbols::HeaderGeneration;

/// A PAMS structure mqgate reads or writes.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Structure {
    /// `struct show_buffer` (`p_entry.h` 5.0).
    ShowBuffer,
    /// SBS_REGISTER_REQ (`p_msg.h` V4.0-08).
    RegisterReq,
    /// SBS_REGISTER_RESP.
    RegisterResp,
    /// SBS_DEREGISTER_REQ.
    DeregisterReq,
    /// SBS_DEREGISTER_RESP.
    DeregisterResp,
    /// SBS_STATUS_REQ.
    StatusReq,
    /// SBS_STATUS_RESP.
    StatusResp,
    /// SBS_STATUS_RESP_MOT, one MOT record inside SBS_STATUS_RESP `data`.
    StatusRespMot,
    /// SBS_STATUS_RESP_GROUP, one group record inside SBS_STATUS_RESP `data`.
    StatusRespGroup,
    /// SBS_SEQUENCE_GAP.
    SequenceGap,
    /// Obsolete SBS_REG (packed).
    SbsReg,
    /// Obsolete SBS_REG_REPLY (packed).
    SbsRegReply,
    /// Obsolete SBS_REG_EZ (packed).
    SbsRegEz,
    /// Obsolete SBS_REG_EZ_REPLY (packed).
    SbsRegEzReply,
    /// Obsolete SBS_DEREG (packed).
    SbsDereg,
    /// Obsolete SBS_DEREG_ACK (packed).
    SbsDeregAck,
    /// Obsolete SBS_DEREG_BY_ID (packed; DECmessageQ `sbsmsgde.h` MOT_DEREG layout).
    SbsDeregById,
    /// Obsolete SBS_BS_SEQGAP (packed).
    SbsBsSeqgap,
    /// The PAMS message header mqgate stores before a message area (MQMD
    /// Format `MQGPAMS`, docs/messageq.md).
    PamsHeader,
    /// A message whose type is not one of the structures above.
    Message,
}

impl Structure {
    /// The name of the structure as the headers spell it.
    pub fn name(self) -> &'static str {
        match self {
            Structure::ShowBuffer => "show_buffer",
            Structure::RegisterReq => "SBS_REGISTER_REQ",
            Structure::RegisterResp => "SBS_REGISTER_RESP",
            Structure::DeregisterReq => "SBS_DEREGISTER_REQ",
            Structure::DeregisterResp => "SBS_DEREGISTER_RESP",
            Structure::StatusReq => "SBS_STATUS_REQ",
            Structure::StatusResp => "SBS_STATUS_RESP",
            Structure::StatusRespMot => "SBS_STATUS_RESP_MOT",
            Structure::StatusRespGroup => "SBS_STATUS_RESP_GROUP",
            Structure::SequenceGap => "SBS_SEQUENCE_GAP",
            Structure::SbsReg => "SBS_REG",
            Structure::SbsRegReply => "SBS_REG_REPLY",
            Structure::SbsRegEz => "SBS_REG_EZ",
            Structure::SbsRegEzReply => "SBS_REG_EZ_REPLY",
            Structure::SbsDereg => "SBS_DEREG",
            Structure::SbsDeregAck => "SBS_DEREG_ACK",
            Structure::SbsDeregById => "SBS_DEREG_BY_ID",
            Structure::SbsBsSeqgap => "SBS_BS_SEQGAP",
            Structure::PamsHeader => "PAMS message header",
            Structure::Message => "message",
        }
    }

    /// Byte offset of the `user_tag` a response echoes, for the structures that
    /// have one (SBS_DEREGISTER_RESP has it third, the others second).
    pub fn user_tag_offset(self) -> Option<usize> {
        match self {
            Structure::RegisterReq
            | Structure::RegisterResp
            | Structure::DeregisterReq
            | Structure::StatusReq
            | Structure::StatusResp => Some(4),
            Structure::DeregisterResp => Some(8),
            _ => None,
        }
    }
}

impl fmt::Display for Structure {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name())
    }
}

/// The field at fault.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Field {
    /// The structure as a whole (its length).
    Whole,
    /// A named field, e.g. `rule_count`.
    Named(&'static str),
    /// A field of one selection rule, e.g. `rule[3].length`.
    Rule {
        /// Zero-based rule index.
        index: usize,
        /// Field name inside SBS_REGISTER_RULE.
        field: &'static str,
    },
}

impl fmt::Display for Field {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Field::Whole => f.write_str("length"),
            Field::Named(n) => f.write_str(n),
            Field::Rule { index, field } => write!(f, "rule[{index}].{field}"),
        }
    }
}

/// What was wrong.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum WireErrorKind {
    /// The input ends before the structure: `needed` bytes, `available` present.
    Truncated {
        /// Bytes the structure needs (for SBS_REGISTER_REQ: the head and `rule_count` rules).
        needed: usize,
        /// Bytes given.
        available: usize,
    },
    /// The input is longer than the structure can be.
    TooLong {
        /// The largest size in bytes.
        max: usize,
        /// Bytes given.
        available: usize,
    },
    /// `rule_count` outside 0..=256 (`MAX_SEL_RULES`), or above 255 when
    /// encoding (the Programmer's Guide allows "up to 255 selection rules").
    RuleCountOutOfRange {
        /// The value read (or the number of rules given).
        rule_count: i64,
        /// The largest accepted value.
        max: usize,
    },
    /// A rule's operand length is not 1, 2 or 4 ("The operand length can be 1,
    /// 2, or 4 bytes only").
    BadOperandLength {
        /// The value read.
        length: i32,
    },
    /// A rule's offset is negative but not PSEL_SOURCE, PSEL_CLASS or
    /// PSEL_TYPE (matching on priority or any other header field is not
    /// supported).
    UnsupportedSelector {
        /// The value read.
        offset: i32,
    },
    /// A rule's operator is none of the PSEL_OPER_* values of either header generation.
    BadOperator {
        /// The value read.
        operator: i32,
    },
    /// The operator has no value in the header generation asked for
    /// (PSEL_OPER_AND exists in BEA MessageQ 5.0 only).
    OperatorNotInGeneration {
        /// The operator.
        operator: Operator,
        /// The generation asked for.
        generation: HeaderGeneration,
    },
    /// `rule_conjunct` is not PSEL_ALL_RULES 1 or PSEL_ANY_RULE 2 while rules are given.
    BadConjunct {
        /// The value read.
        value: i32,
    },
    /// A MOT field outside 4000-6000.
    NotAMot {
        /// The value read.
        value: i64,
    },
    /// SBS_STATUS_RESP `num_rec` is negative or more MOT records than `data` can hold.
    NumRecOutOfRange {
        /// The value read.
        num_rec: i32,
        /// The most records of 152 bytes the data holds.
        max: usize,
    },
    /// A message type that is no SBS message mqgate reads.
    UnknownMessageType {
        /// The type.
        msg_type: i16,
    },
    /// A StrucId that is not the structure's.
    BadStrucId {
        /// The 4 bytes found.
        found: [u8; 4],
        /// The StrucId expected.
        expected: [u8; 4],
    },
    /// A structure version mqgate does not read.
    BadVersion {
        /// The version found.
        found: i32,
        /// The version expected.
        expected: i32,
    },
    /// A priority outside 0-99, the priorities of BEA MessageQ 5.0
    /// (`pams_put_msg`: "0 to 99").
    BadPriority {
        /// The value read.
        found: i32,
    },
    /// A byte order that is neither PSYM_LITTLE_ENDIAN 0 nor
    /// PSYM_BIG_ENDIAN 1 (`p_symbol.h` 5.0).
    BadEndian {
        /// The value read.
        found: i32,
    },
    /// An SBS message type of DECmessageQ 2.x/3.x whose layout mqgate does not implement.
    UnsupportedMessageType {
        /// The type.
        msg_type: i16,
        /// Its name, e.g. `SBS_PURGE`.
        name: &'static str,
    },
}

impl fmt::Display for WireErrorKind {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            WireErrorKind::Truncated { needed, available } => {
                write!(f, "truncated: needs {needed} bytes, {available} available")
            }
            WireErrorKind::TooLong { max, available } => {
                write!(f, "too long: at most {max} bytes, {available} given")
            }
            WireErrorKind::RuleCountOutOfRange { rule_count, max } => {
                write!(f, "rule_count {rule_count} out of range 0..={max}")
            }
            WireErrorKind::BadOperandLength { length } => {
                write!(f, "operand length {length} is not 1, 2 or 4")
            }
            WireErrorKind::UnsupportedSelector { offset } => write!(
                f,
                "offset {offset} selects no supported field (PSEL_SOURCE -1, PSEL_CLASS -2, \
                 PSEL_TYPE -3 or a body offset >= 0; matching on priority is not supported)"
            ),
            WireErrorKind::BadOperator { operator } => {
                write!(f, "data_operator {operator} is no PSEL_OPER_* value")
            }
            WireErrorKind::OperatorNotInGeneration {
                operator,
                generation,
            } => write!(f, "{operator} has no value in {generation}"),
            WireErrorKind::BadConjunct { value } => write!(
                f,
                "rule_conjunct {value} is not PSEL_ALL_RULES 1 or PSEL_ANY_RULE 2"
            ),
            WireErrorKind::NotAMot { value } => {
                write!(f, "{value} is not a MOT: MOT numbers are 4000 to 6000")
            }
            WireErrorKind::NumRecOutOfRange { num_rec, max } => {
                write!(f, "num_rec {num_rec} out of range 0..={max}")
            }
            WireErrorKind::BadStrucId { found, expected } => write!(
                f,
                "StrucId {:?} is not {:?}",
                String::from_utf8_lossy(found),
                String::from_utf8_lossy(expected)
            ),
            WireErrorKind::BadVersion { found, expected } => {
                write!(f, "version {found} is not {expected}")
            }
            WireErrorKind::BadPriority { found } => {
                write!(f, "priority {found} is not 0 to 99")
            }
            WireErrorKind::BadEndian { found } => write!(
                f,
                "endian {found} is neither PSYM_LITTLE_ENDIAN 0 nor PSYM_BIG_ENDIAN 1"
            ),
            WireErrorKind::UnknownMessageType { msg_type } => {
                write!(f, "message type {msg_type} is no SBS message")
            }
            WireErrorKind::UnsupportedMessageType { msg_type, name } => write!(
                f,
                "message type {msg_type} ({name}) is a DECmessageQ 2.x/3.x message mqgate does not implement"
            ),
        }
    }
}

/// A PAMS structure that could not be decoded or encoded.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
#[error(
    "{structure} {field} at offset {offset}: {kind} (answer {sbs}, {pams})",
    sbs = self.sbs_status(),
    pams = self.pams_status()
)]
pub struct WireError {
    /// The structure.
    pub structure: Structure,
    /// The field at fault.
    pub field: Field,
    /// Byte offset of the field from the start of the body.
    pub offset: usize,
    /// What was wrong.
    pub kind: WireErrorKind,
    /// The request's `user_tag`, when the body was long enough to hold it, so a
    /// response can echo it.
    pub user_tag: Option<i32>,
}

impl WireError {
    /// An error in `structure`'s `field` at `offset`.
    #[cold]
    pub fn new(structure: Structure, field: Field, offset: usize, kind: WireErrorKind) -> Self {
        WireError {
            structure,
            field,
            offset,
            kind,
            user_tag: None,
        }
    }

    /// The same error with the `user_tag` read from `body`, if the structure has
    /// one and the body holds it.
    pub fn with_user_tag_from(mut self, body: &[u8], endian: Endian) -> Self {
        self.user_tag = self
            .structure
            .user_tag_offset()
            .and_then(|off| endian.read_i32(body, off));
        self
    }

    /// The SBS status a response to the request carries: PSYM_SBS_BADPARAM.
    pub fn sbs_status(&self) -> SbsStatus {
        SbsStatus::BADPARAM
    }

    /// The PAMS return code for the fault (see the module documentation).
    pub fn pams_status(&self) -> PamsStatus {
        match self.kind {
            WireErrorKind::TooLong { .. } => PamsStatus::MSGTOBIG,
            WireErrorKind::Truncated { .. } if self.structure == Structure::ShowBuffer => {
                PamsStatus::AREATOSMALL
            }
            WireErrorKind::UnknownMessageType { .. }
            | WireErrorKind::UnsupportedMessageType { .. } => PamsStatus::NOTSUPPORTED,
            WireErrorKind::BadPriority { .. } => PamsStatus::BADPRIORITY,
            _ => PamsStatus::BADPARAM,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn display_names_structure_field_offset_and_statuses() {
        let e = WireError::new(
            Structure::RegisterReq,
            Field::Rule {
                index: 3,
                field: "length",
            },
            92,
            WireErrorKind::BadOperandLength { length: 3 },
        );
        assert_eq!(
            e.to_string(),
            "SBS_REGISTER_REQ rule[3].length at offset 92: operand length 3 is not 1, 2 or 4 \
             (answer 20 PSYM_SBS_BADPARAM, -186 PAMS__BADPARAM)"
        );
        let long = WireError::new(
            Structure::DeregisterReq,
            Field::Whole,
            24,
            WireErrorKind::TooLong {
                max: 24,
                available: 30,
            },
        );
        assert_eq!(long.pams_status(), PamsStatus(-22));
        assert_eq!(long.sbs_status(), SbsStatus(20));
    }

    #[test]
    fn user_tag_is_read_where_the_structure_has_it() {
        let body = [0, 0, 0, 40, 0, 0, 0x14, 0x23, 0, 0, 0, 7];
        let tagged = |s| {
            WireError::new(s, Field::Whole, 0, WireErrorKind::BadConjunct { value: 0 })
                .with_user_tag_from(&body, Endian::Big)
                .user_tag
        };
        assert_eq!(tagged(Structure::RegisterReq), Some(5155));
        assert_eq!(tagged(Structure::DeregisterResp), Some(7));
        assert_eq!(tagged(Structure::SequenceGap), None);
        let short = WireError::new(
            Structure::StatusReq,
            Field::Whole,
            0,
            WireErrorKind::BadConjunct { value: 0 },
        )
        .with_user_tag_from(&body[..6], Endian::Big);
        assert_eq!(short.user_tag, None);
    }
}

//! Conversion errors: each names the CCSID, the byte offset in the input and
//! the byte or character at fault.

use crate::mq::Mqrc;

/// Why a conversion failed.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
pub enum ConvertError {
    /// The CCSID is not one mqgate supports (docs/ccsid.md).
    #[error("CCSID {ccsid} is not supported")]
    UnknownCcsid {
        /// The number asked for.
        ccsid: i32,
    },
    /// The input byte at `offset` is not a character of `ccsid`: a byte the
    /// set leaves undefined, or the first byte of a malformed or truncated
    /// multi-byte sequence.
    #[error("byte 0x{byte:02X} at offset {offset} is not a valid character in CCSID {ccsid}")]
    Invalid {
        /// The source CCSID.
        ccsid: u16,
        /// Byte offset in the input.
        offset: usize,
        /// The byte found there.
        byte: u8,
    },
    /// UTF-16 input (`ccsid` 1200, 13488, 17584) ends inside a 2-byte code
    /// unit: one byte is left at `offset`.
    #[error(
        "UTF-16 input in CCSID {ccsid} is truncated: a lone byte is left at offset {offset} (UTF-16 needs an even number of bytes)"
    )]
    Truncated {
        /// The source CCSID.
        ccsid: u16,
        /// Byte offset of the lone final byte.
        offset: usize,
    },
    /// UTF-16 input holds a surrogate code unit without its pair at `offset`.
    #[error(
        "UTF-16 input in CCSID {ccsid} has an unpaired surrogate U+{unit:04X} at offset {offset}"
    )]
    UnpairedSurrogate {
        /// The source CCSID.
        ccsid: u16,
        /// Byte offset of the code unit.
        offset: usize,
        /// The surrogate code unit.
        unit: u16,
    },
    /// The character that starts at input `offset` has no mapping in the target.
    #[error("character U+{:04X} at offset {offset} has no mapping in CCSID {ccsid}", u32::from(*.ch))]
    Unmappable {
        /// The target CCSID.
        ccsid: u16,
        /// Byte offset in the input of the character.
        offset: usize,
        /// The character.
        ch: char,
    },
}

impl ConvertError {
    /// The MQ reason for a message whose data cannot be converted:
    /// MQRC_NOT_CONVERTED (2119) (docs/ccsid.md).
    pub fn mqrc(&self) -> Mqrc {
        Mqrc::NOT_CONVERTED
    }
}

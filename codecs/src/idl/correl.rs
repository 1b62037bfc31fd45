//! MQ_CORREL_ID: 48 hex characters in an A48 field ↔ the 24-byte CorrelId
//! (docs/rpc.md; the EntireX WebSphere MQ RPC Server documentation "hexadecimal encoded binary array").

use std::fmt;

/// Bytes in an MQMD CorrelId (MQBYTE24).
pub const CORREL_ID_LENGTH: usize = 24;

/// Why an MQ_CORREL_ID value cannot become a CorrelId. The call fails before
/// anything is put.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum CorrelIdError {
    /// More than 48 hex digits after trailing blanks are trimmed.
    TooLong {
        /// Digits found.
        digits: usize,
    },
    /// An odd number of hex digits (half a byte).
    OddDigits {
        /// Digits found.
        digits: usize,
    },
    /// A character that is no hex digit.
    NotHex {
        /// Character offset in the value (0-based).
        offset: usize,
        /// The character.
        found: char,
    },
}

impl fmt::Display for CorrelIdError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            CorrelIdError::TooLong { digits } => write!(
                f,
                "MQ_CORREL_ID has {digits} hex digits, at most 48 (24 bytes) allowed"
            ),
            CorrelIdError::OddDigits { digits } => {
                write!(f, "MQ_CORREL_ID has an odd number of hex digits ({digits})")
            }
            CorrelIdError::NotHex { offset, found } => write!(
                f,
                "MQ_CORREL_ID character {found:?} at offset {offset} is not a hex digit"
            ),
        }
    }
}

impl std::error::Error for CorrelIdError {}

/// Reads an MQ_CORREL_ID value: hex digits in either case, trailing blanks
/// trimmed, fewer than 48 digits padded on the right with 0x00 to 24 bytes.
/// All blanks (or empty) gives `None`: MQ generates the CorrelId
/// (MQPMO_NEW_CORREL_ID). docs/rpc.md
///
/// Errors: [`CorrelIdError`] for more than 48 digits, an odd count, or a non-hex
/// character.
pub fn correl_id_from_hex(text: &str) -> Result<Option<[u8; CORREL_ID_LENGTH]>, CorrelIdError> {
    let digits = text.trim_end_matches(' ');
    if digits.is_empty() {
        return Ok(None);
    }
    if let Some((offset, found)) = digits
        .chars()
        .enumerate()
        .find(|(_, c)| !c.is_ascii_hexdigit())
    {
        return Err(CorrelIdError::NotHex { offset, found });
    }
    // Only ASCII hex digits remain, so bytes == characters.
    let n = digits.len();
    if n > 2 * CORREL_ID_LENGTH {
        return Err(CorrelIdError::TooLong { digits: n });
    }
    if !n.is_multiple_of(2) {
        return Err(CorrelIdError::OddDigits { digits: n });
    }
    let mut id = [0u8; CORREL_ID_LENGTH];
    hex::decode_to_slice(digits, &mut id[..n / 2]).map_err(|_| CorrelIdError::NotHex {
        offset: 0,
        found: digits.chars().next().unwrap_or(' '),
    })?;
    Ok(Some(id))
}

/// Writes a CorrelId (or MsgId) as 48 upper-case hex digits (docs/rpc.md
/// "Dynamic parameters", the JMS convention). Every byte, 0x00 included, is written.
pub fn correl_id_to_hex(id: &[u8; CORREL_ID_LENGTH]) -> String {
    hex::encode_upper(id)
}

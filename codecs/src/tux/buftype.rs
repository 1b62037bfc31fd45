//! Buffer types the TEDG accepts and the RTQ size limit (BEA Tuxedo "Using the BEA Tuxedo
//! TOP END Domain Gateway", "How BEA Tuxedo Clients Enqueue Messages to RTQ" and its
//! error table).

use std::fmt;

use super::rtq::RTQ_MAX_MESSAGE;
use super::tedg::TedgFailure;

/// A typed-buffer type the TEDG carries: FML32 (marshalled), CARRAY and X_OCTET
/// (raw bytes) (the TEDG guide: "FML32, CARRAY, and X_OCTET buffer types are
/// supported").
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum BufferType {
    /// FML32 fielded buffer.
    Fml32,
    /// CARRAY: raw bytes.
    Carray,
    /// X_OCTET: raw bytes.
    XOctet,
}

impl BufferType {
    /// The Tuxedo type name (`FML32`, `CARRAY`, `X_OCTET`).
    pub fn name(self) -> &'static str {
        match self {
            BufferType::Fml32 => "FML32",
            BufferType::Carray => "CARRAY",
            BufferType::XOctet => "X_OCTET",
        }
    }

    /// The type for an exact Tuxedo type name; `None` for any other type.
    pub fn from_name(name: &str) -> Option<BufferType> {
        match name {
            "FML32" => Some(BufferType::Fml32),
            "CARRAY" => Some(BufferType::Carray),
            "X_OCTET" => Some(BufferType::XOctet),
            _ => None,
        }
    }
}

impl fmt::Display for BufferType {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name())
    }
}

/// Checks a client's buffer type against the TEDG's list and the QNAME entry's
/// INBUFTYPE (`type[:subtype]`, compared whole). Any other type, or a type
/// different from INBUFTYPE → TPEDIAGNOSTIC/QMEINVAL (the TEDG guide's error
/// table).
pub fn check_buffer_type(
    buftype: &str,
    inbuftype: Option<&str>,
) -> Result<BufferType, TedgFailure> {
    let fail = || TedgFailure::BufferType {
        buftype: buftype.chars().take(64).collect(),
        inbuftype: inbuftype.map(str::to_owned),
    };
    let t = BufferType::from_name(buftype).ok_or_else(fail)?;
    match inbuftype {
        Some(want) if want != buftype => Err(fail()),
        _ => Ok(t),
    }
}

/// Checks a message size in bytes (FML32: index stripped) against the
/// 30,000-byte RTQ limit; above it → TPEDIAGNOSTIC/QMEINVAL (the TEDG guide's
/// error table).
pub fn check_message_size(size: usize) -> Result<(), TedgFailure> {
    if size > RTQ_MAX_MESSAGE {
        Err(TedgFailure::TooLarge { size })
    } else {
        Ok(())
    }
}

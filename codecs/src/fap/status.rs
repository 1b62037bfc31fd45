//! STATUS_DATA (segment type 0x05). A queue manager answers a CONAUTH_INFO
//! with an empty STATUS_DATA whose ControlFlags1 is REQUEST_ACCEPTED (seen in
//! real traffic); a refusal carries Length, Code and an optional Value (the
//! Wireshark MQ dissector's "STATUS"):
//!
//! | off | len | field |
//! |---:|---:|---|
//! | 0 | 4 | Length of this part, bytes (8 or 12) |
//! | 4 | 4 | Code (MQ_STATUS_ERR_*) |
//! | 8 | 4 | Value (when Length is 12) |

use crate::mq::ByteOrder;

use super::error::{FapError, FapErrorKind, FapStructure};
use super::read::{Reader, Writer};

/// A STATUS_DATA code (MQ_STATUS_ERR_* of the Wireshark MQ dissector), an
/// open set.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct StatusCode(pub i32);

impl StatusCode {
    pub const NO_CHANNEL: StatusCode = StatusCode(0x01);
    pub const CHANNEL_WRONG_TYPE: StatusCode = StatusCode(0x02);
    pub const QM_UNAVAILABLE: StatusCode = StatusCode(0x03);
    pub const QM_TERMINATING: StatusCode = StatusCode(0x05);
    pub const USER_CLOSED: StatusCode = StatusCode(0x07);
    pub const PROTOCOL_SEGMENT_TYPE: StatusCode = StatusCode(0x0A);
    pub const PROTOCOL_LENGTH_ERROR: StatusCode = StatusCode(0x0B);
    pub const PROTOCOL_INVALID_DATA: StatusCode = StatusCode(0x0C);
    pub const PROTOCOL_SEGMENT_ERROR: StatusCode = StatusCode(0x0D);
    pub const PROTOCOL_ID_ERROR: StatusCode = StatusCode(0x0E);
    pub const PROTOCOL_GENERAL: StatusCode = StatusCode(0x10);
    pub const MESSAGE_LENGTH_ERROR: StatusCode = StatusCode(0x12);
    pub const SECURITY_FAILURE: StatusCode = StatusCode(0x14);
    pub const CHANNEL_UNAVAILABLE: StatusCode = StatusCode(0x16);
    pub const CONV_ID_ERROR: StatusCode = StatusCode(0x1E);
    pub const SOCKET_ACTION_TYPE: StatusCode = StatusCode(0x1F);
    pub const CCSID_NOT_SUPPORTED: StatusCode = StatusCode(0xF0);
    pub const ENCODING_INVALID: StatusCode = StatusCode(0xF1);
    pub const FAP_LEVEL: StatusCode = StatusCode(0xF2);
    pub const NEGOTIATION_FAILED: StatusCode = StatusCode(0xF3);
}

/// The body of a STATUS_DATA segment.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum StatusData {
    /// No body: an acknowledgement (ControlFlags1 REQUEST_ACCEPTED).
    Empty,
    /// A status: Code and, when present, Value (mqgate puts the MQRC reason
    /// there).
    Status {
        code: StatusCode,
        value: Option<i32>,
    },
}

/// Parses a STATUS_DATA body (`base` = its offset in the segment).
/// Errors: a Length other than 8 or 12, or one that does not match the body.
pub fn parse_status(body: &[u8], base: usize, order: ByteOrder) -> Result<StatusData, FapError> {
    if body.is_empty() {
        return Ok(StatusData::Empty);
    }
    let mut r = Reader::new(body, base, FapStructure::StatusData, order);
    let len = r.i32("Length")?;
    if (len != 8 && len != 12) || len as usize != body.len() {
        return Err(r.error_at(
            0,
            "Length",
            FapErrorKind::OutOfRange {
                value: i64::from(len),
                min: 8,
                max: body.len().min(12) as i64,
            },
        ));
    }
    let code = StatusCode(r.i32("Code")?);
    let value = if len == 12 {
        Some(r.i32("Value")?)
    } else {
        None
    };
    Ok(StatusData::Status { code, value })
}

/// Appends the body of `s` to `out`, integers in `order`.
pub fn write_status(s: &StatusData, order: ByteOrder, out: &mut Vec<u8>) {
    if let StatusData::Status { code, value } = s {
        let mut w = Writer { out, order };
        w.i32(if value.is_some() { 12 } else { 8 });
        w.i32(code.0);
        if let Some(v) = value {
            w.i32(*v);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn empty_and_coded_status() {
        assert_eq!(
            parse_status(&[], 36, ByteOrder::Little).unwrap(),
            StatusData::Empty
        );
        let s = StatusData::Status {
            code: StatusCode::SECURITY_FAILURE,
            value: Some(2035),
        };
        let mut b = Vec::new();
        write_status(&s, ByteOrder::Little, &mut b);
        assert_eq!(hex::encode(&b), "0c00000014000000f3070000");
        assert_eq!(parse_status(&b, 36, ByteOrder::Little).unwrap(), s);
        let e = parse_status(&b[..8], 36, ByteOrder::Little).unwrap_err();
        assert_eq!((e.offset, e.field), (36, "Length"));
    }
}

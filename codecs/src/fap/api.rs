//! The API header that starts the body of every MQI verb and reply
//! (segment types 0x81-0x9F), 16 bytes (the Wireshark MQ dissector's "API
//! Header"):
//!
//! | off | len | field |
//! |---:|---:|---|
//! | 0 | 4 | ReplyLength, always big-endian |
//! | 4 | 4 | CompCode (in ByteOrder) |
//! | 8 | 4 | Reason (in ByteOrder) |
//! | 12 | 4 | ObjectHandle (in ByteOrder) |
//!
//! In a request ReplyLength is the longest reply the client takes; in a
//! reply, the reply's length. A queue manager's replies in real traffic give
//! the reply's SegmentLength minus 8 there (the TSHM's 36 bytes counted as
//! a TSH's 28): docs/mq-client-protocol.md.

use crate::mq::ByteOrder;

use super::error::{FapError, FapStructure};
use super::read::{Reader, Writer};

/// Length of the API header, bytes.
pub const API_LEN: usize = 16;

/// MQHO_UNUSABLE_HOBJ: the handle MQCLOSE leaves.
pub const HOBJ_UNUSABLE: i32 = -1;

/// The API header.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Default)]
pub struct ApiHeader {
    /// Bytes (see the module documentation).
    pub reply_length: u32,
    /// MQCC_OK 0, MQCC_WARNING 1, MQCC_FAILED 2.
    pub comp_code: i32,
    /// MQRC_*.
    pub reason: i32,
    /// The object handle the verb works on (0 for none).
    pub hobj: i32,
}

/// Parses the API header at the start of a verb's body (`base` = its offset
/// in the segment, for errors), integers in `order`; returns it and the
/// rest of the body. Errors: fewer than 16 bytes.
pub fn parse_api(
    body: &[u8],
    base: usize,
    order: ByteOrder,
) -> Result<(ApiHeader, &[u8]), FapError> {
    let mut r = Reader::new(body, base, FapStructure::Api, order);
    r.need("ReplyLength", API_LEN)?;
    let h = ApiHeader {
        reply_length: r.be_u32("ReplyLength")?,
        comp_code: r.i32("CompCode")?,
        reason: r.i32("Reason")?,
        hobj: r.i32("ObjectHandle")?,
    };
    Ok((h, r.rest()))
}

/// Appends `h` to `out`, integers in `order` (ReplyLength big-endian).
pub fn write_api(h: &ApiHeader, order: ByteOrder, out: &mut Vec<u8>) {
    out.extend_from_slice(&h.reply_length.to_be_bytes());
    let mut w = Writer { out, order };
    w.i32(h.comp_code);
    w.i32(h.reason);
    w.i32(h.hobj);
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn reply_length_is_big_endian_the_rest_in_byte_order() {
        // The MQCONN reply of a refused real connection: ReplyLength 516
        // (00 00 02 04), CompCode 2, Reason 2035 (F3 07 00 00), little-endian.
        let b = hex::decode("0000020402000000f307000000000000").unwrap();
        let (h, rest) = parse_api(&b, 36, ByteOrder::Little).unwrap();
        assert_eq!(
            h,
            ApiHeader {
                reply_length: 516,
                comp_code: 2,
                reason: 2035,
                hobj: 0
            }
        );
        assert!(rest.is_empty());
        let mut out = Vec::new();
        write_api(&h, ByteOrder::Little, &mut out);
        assert_eq!(out, b);
        let e = parse_api(&b[..15], 36, ByteOrder::Little).unwrap_err();
        assert_eq!((e.offset, e.field), (36, "ReplyLength"));
    }
}

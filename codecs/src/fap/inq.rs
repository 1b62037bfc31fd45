//! MQINQ and its reply (after the API header; the Wireshark MQ dissector's
//! "MQINQ/MQSET"). Request: SelectorCount, IntAttrCount, CharAttrLength,
//! then SelectorCount selectors. Reply: the same, then IntAttrCount
//! integers and CharAttrLength bytes of character attributes, in selector
//! order (IBM MQ "MQINQ - Inquire object attributes").

use crate::mq::ByteOrder;

use super::error::{FapError, FapErrorKind, FapStructure};
use super::read::{Reader, Writer};

/// The most selectors MQINQ takes (MQ's limit is 256).
pub const MAX_SELECTORS: usize = 256;

/// MQIA_* / MQCA_* selectors mqgate answers (IBM MQ "MQINQ - Inquire object
/// attributes" and the constants pages).
pub mod sel {
    pub const MQIA_CODED_CHAR_SET_ID: i32 = 2;
    pub const MQIA_CURRENT_Q_DEPTH: i32 = 3;
    pub const MQIA_DEF_PERSISTENCE: i32 = 5;
    pub const MQIA_DEF_PRIORITY: i32 = 6;
    pub const MQIA_DEFINITION_TYPE: i32 = 7;
    pub const MQIA_INHIBIT_GET: i32 = 9;
    pub const MQIA_INHIBIT_PUT: i32 = 10;
    pub const MQIA_USAGE: i32 = 12;
    pub const MQIA_MAX_MSG_LENGTH: i32 = 13;
    pub const MQIA_MAX_PRIORITY: i32 = 14;
    pub const MQIA_MAX_Q_DEPTH: i32 = 15;
    pub const MQIA_OPEN_INPUT_COUNT: i32 = 17;
    pub const MQIA_OPEN_OUTPUT_COUNT: i32 = 18;
    pub const MQIA_Q_TYPE: i32 = 20;
    pub const MQIA_BACKOUT_THRESHOLD: i32 = 22;
    pub const MQIA_SHAREABILITY: i32 = 23;
    pub const MQIA_SYNCPOINT: i32 = 30;
    pub const MQIA_COMMAND_LEVEL: i32 = 31;
    pub const MQIA_PLATFORM: i32 = 32;
    pub const MQIA_MAX_UNCOMMITTED_MSGS: i32 = 33;
    pub const MQIA_DIST_LISTS: i32 = 34;
    pub const MQIA_ADVANCED_CAPABILITY: i32 = 273;
    pub const MQIA_FIRST: i32 = 1;
    pub const MQIA_LAST: i32 = 2000;
    pub const MQCA_BACKOUT_REQ_Q_NAME: i32 = 2019;
    pub const MQCA_BASE_Q_NAME: i32 = 2002;
    pub const MQCA_DEAD_LETTER_Q_NAME: i32 = 2006;
    pub const MQCA_Q_DESC: i32 = 2013;
    pub const MQCA_Q_MGR_DESC: i32 = 2014;
    pub const MQCA_Q_MGR_NAME: i32 = 2015;
    pub const MQCA_Q_NAME: i32 = 2016;
    pub const MQCA_XMIT_Q_NAME: i32 = 2024;
    pub const MQCA_Q_MGR_IDENTIFIER: i32 = 2032;
    pub const MQCA_FIRST: i32 = 2001;
    pub const MQCA_LAST: i32 = 4000;
}

/// MQINQ parameters; a request has no values.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct InqData<'a> {
    pub selectors: Vec<i32>,
    /// IntAttrCount.
    pub int_attr_count: i32,
    /// CharAttrLength, bytes.
    pub char_attr_length: i32,
    /// Reply: the integer attributes.
    pub int_attrs: Vec<i32>,
    /// Reply: the character attributes.
    pub char_attrs: &'a [u8],
}

/// Parses MQINQ parameters (`base` = the body's offset in the segment);
/// `reply` reads the values too. Counts are checked against
/// [`MAX_SELECTORS`] and the body before anything is allocated. Errors:
/// an IntAttrCount below 0 or above [`MAX_SELECTORS`] (2021
/// MQRC_INT_ATTR_COUNT_ERROR), a negative CharAttrLength (2006
/// MQRC_CHAR_ATTR_LENGTH_ERROR); otherwise (2065 MQRC_SELECTOR_COUNT_ERROR)
/// a SelectorCount out of range, a body too short for the counts, bytes
/// after them.
pub fn parse_inq(
    body: &[u8],
    base: usize,
    order: ByteOrder,
    reply: bool,
) -> Result<InqData<'_>, FapError> {
    let mut r = Reader::new(body, base, FapStructure::Inq, order);
    let n = r.count("SelectorCount", MAX_SELECTORS)?;
    let at = r.pos();
    let int_attr_count = r.i32("IntAttrCount")?;
    let char_attr_length = r.i32("CharAttrLength")?;
    let range = |v: i32, max: usize| FapErrorKind::OutOfRange {
        value: i64::from(v),
        min: 0,
        max: max as i64,
    };
    if !(0..=MAX_SELECTORS as i32).contains(&int_attr_count) {
        return Err(r.error_at(at, "IntAttrCount", range(int_attr_count, MAX_SELECTORS)));
    }
    if char_attr_length < 0 {
        return Err(r.error_at(
            at + 4,
            "CharAttrLength",
            range(char_attr_length, body.len()),
        ));
    }
    r.need("Selectors", n * 4)?;
    let mut selectors = Vec::with_capacity(n);
    for _ in 0..n {
        selectors.push(r.i32("Selectors")?);
    }
    let (int_attrs, char_attrs) = if reply {
        let ni = int_attr_count as usize;
        r.need("IntAttrs", ni * 4)?;
        let mut ints = Vec::with_capacity(ni);
        for _ in 0..ni {
            ints.push(r.i32("IntAttrs")?);
        }
        (ints, r.bytes("CharAttrs", char_attr_length as usize)?)
    } else {
        (Vec::new(), &[][..])
    };
    r.end()?;
    Ok(InqData {
        selectors,
        int_attr_count,
        char_attr_length,
        int_attrs,
        char_attrs,
    })
}

/// Appends MQINQ parameters (and, when present, values) to `out`.
pub fn write_inq(q: &InqData<'_>, order: ByteOrder, out: &mut Vec<u8>) {
    let mut w = Writer { out, order };
    w.i32(q.selectors.len() as i32);
    w.i32(q.int_attr_count);
    w.i32(q.char_attr_length);
    for s in &q.selectors {
        w.i32(*s);
    }
    for v in &q.int_attrs {
        w.i32(*v);
    }
    w.bytes(q.char_attrs);
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_real_inquiry_of_the_queue_manager() {
        // A JMS client's MQINQ: 6 selectors (31, 32, 2, 2015, 2032, 273),
        // 4 integers, 100 character bytes asked; the reply gives 96.
        let req =
            hex::decode("0600000004000000640000001f0000002000000002000000df070000f007000011010000")
                .unwrap();
        let q = parse_inq(&req, 52, ByteOrder::Little, false).unwrap();
        assert_eq!(q.selectors, vec![31, 32, 2, 2015, 2032, 273]);
        assert_eq!((q.int_attr_count, q.char_attr_length), (4, 100));
        let mut out = Vec::new();
        write_inq(&q, ByteOrder::Little, &mut out);
        assert_eq!(out, req);
        let mut big = req.clone();
        big[0..4].copy_from_slice(&1000i32.to_le_bytes());
        let e = parse_inq(&big, 52, ByteOrder::Little, false).unwrap_err();
        assert_eq!((e.offset, e.field, e.mqrc().0), (52, "SelectorCount", 2065));
        let e = parse_inq(&req[..30], 52, ByteOrder::Little, false).unwrap_err();
        assert_eq!(e.field, "Selectors");
        assert!(parse_inq(&req, 52, ByteOrder::Little, true).is_err());
    }
}

//! The header chain (spec: mq-structures.md §2).

use super::field::{CharField, Charset};

/// What a structure says about the item after it: its Encoding,
/// CodedCharSetId and Format (the Format in `charset`, the charset of the
/// structure that holds the field).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Descriptor {
    /// MQENC_* of the next item.
    pub encoding: i32,
    /// CCSID of the next item (MQCCSI_INHERIT -2 = same as the structure holding it).
    pub coded_char_set_id: i32,
    /// MQFMT_* of the next item, raw bytes.
    pub format: CharField<8>,
    /// Charset of `format`.
    pub charset: Charset,
}

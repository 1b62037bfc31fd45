//! MQGET with MQGMO_CONVERT for every front end (IBM MQ "MQGMO_CONVERT",
//! "Conversion processing"; docs/ccsid.md "Conversion on get"): the
//! application names the CodedCharSetId and Encoding it wants (in MQ, the
//! values it sets in the MQMD before the call); the message handed back is
//! converted to them as the queue manager's data-conversion service does —
//! the MQMD and every MQ header of a built-in format, an MQSTR body — and
//! its MQMD shows what the data now is. What cannot be converted comes back
//! as it was, its MQMD unchanged, and the get completes with MQCC_WARNING and
//! the reason (2110 MQRC_FORMAT_ERROR, 2111 MQRC_SOURCE_CCSID_ERROR ... 2119
//! MQRC_NOT_CONVERTED, 2190 MQRC_CONVERTED_STRING_TOO_BIG; the reason code
//! pages of IBM MQ). The stored message never changes: the conversion works
//! on the copy handed back, before the after_get exits see it.

use crate::qmgr::{GetResult, QmError};
use bytes::Bytes;
use mqgate_codecs::ccsid::{Options, convert_for_get};
use mqgate_codecs::mq::chain::Descriptor;
use mqgate_codecs::mq::constants::{ccsi, enc};
use std::borrow::Cow;

/// The CodedCharSetId MQCCSI_Q_MGR (0) stands for: the gateway's queue
/// manager CCSID, 1208 (IBM MQ "CodedCharSetId (MQLONG)": MQCCSI_Q_MGR on an
/// MQGET with MQGMO_CONVERT is the queue manager's CodedCharSetId).
pub const Q_MGR_CCSID: i32 = mqgate_exits::Q_MGR_CCSID;

/// MQGMO_CONVERT with the CodedCharSetId and Encoding the application asks for.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct ConvertRequest {
    /// The CodedCharSetId wanted; 0 (MQCCSI_Q_MGR) = [`Q_MGR_CCSID`].
    pub coded_char_set_id: i32,
    /// The Encoding wanted (MQENC_*: 546 MQENC_REVERSED, 273 MQENC_NORMAL,
    /// 785 MQENC_S390, ...).
    pub encoding: i32,
    /// EBCDIC newline handling and what an unmappable character does (default:
    /// NL_TO_LF, and such a message is returned unconverted with 2119).
    pub options: Options,
}

impl ConvertRequest {
    /// A request for `ccsid` (default and 0: the queue manager's,
    /// [`Q_MGR_CCSID`]) and `encoding` (default 546 MQENC_REVERSED, mqgate's
    /// MQENC_NATIVE: IBM MQ "MQENC_* (Encoding)", x86 and ARM Linux), with the
    /// default conversion options.
    pub fn new(ccsid: Option<i32>, encoding: Option<i32>) -> ConvertRequest {
        ConvertRequest {
            coded_char_set_id: ccsid.unwrap_or(ccsi::Q_MGR),
            encoding: encoding.unwrap_or(enc::REVERSED),
            options: Options::default(),
        }
    }

    /// The CodedCharSetId converted to, MQCCSI_Q_MGR resolved.
    pub fn target_ccsid(&self) -> i32 {
        resolve(self.coded_char_set_id)
    }

    /// Converts `got` (the copy handed to the caller) in place: data, MQMD
    /// Encoding and CodedCharSetId, and `got.warning` when the conversion
    /// did not fully succeed (see the module docs).
    pub(crate) fn apply(&self, got: &mut GetResult) {
        let described = Descriptor {
            encoding: got.md.encoding,
            coded_char_set_id: resolve(got.md.coded_char_set_id),
            format: got.md.format,
            charset: got.charset,
        };
        let r = convert_for_get(
            &got.data,
            &described,
            self.target_ccsid(),
            self.encoding,
            &self.options,
        );
        let (encoding, ccsid, reason, detail) =
            (r.encoding, r.coded_char_set_id, r.reason, r.detail);
        let converted = match r.data {
            Cow::Owned(v) => Some(Bytes::from(v)),
            Cow::Borrowed(_) => None,
        };
        if let Some(data) = converted {
            got.data = data;
        }
        got.md.encoding = encoding;
        got.md.coded_char_set_id = ccsid;
        if let Some(reason) = reason {
            let detail = detail.unwrap_or_default();
            tracing::debug!(queue = %got.queue, msg_id = %hex::encode_upper(got.md.msg_id),
                reason = %reason, %detail, "MQGMO_CONVERT: message not (fully) converted");
            got.warning = Some(QmError::new(
                reason,
                format!(
                    "the message was not (fully) converted to CCSID {} Encoding {}: {detail}",
                    self.target_ccsid(),
                    self.encoding
                ),
            ));
        }
    }
}

/// MQCCSI_Q_MGR (0) is the queue manager's CCSID; any other value is itself.
fn resolve(ccsid: i32) -> i32 {
    if ccsid == ccsi::Q_MGR {
        Q_MGR_CCSID
    } else {
        ccsid
    }
}

//! A message as the queue manager keeps it: its MQMD, the body, and when it expires.

use bytes::Bytes;
use mqgate_codecs::mq::constants::per;
use mqgate_codecs::mq::{Charset, Mqmd};

/// One message on a queue.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Message {
    /// The descriptor, with Priority and Persistence resolved (never "as queue def").
    pub md: Mqmd,
    /// Charset of the MD's character fields (ASCII unless it arrived in EBCDIC).
    pub charset: Charset,
    /// The message data (for a transmission queue: MQXQH + MQMD + data).
    pub data: Bytes,
    /// When it expires, ms since the epoch; `None` for MQEI_UNLIMITED.
    pub expires_at_ms: Option<u64>,
}

impl Message {
    /// True for MQPER_PERSISTENT: kept in the durable store.
    pub fn is_persistent(&self) -> bool {
        self.md.persistence == per::PERSISTENT
    }

    /// True when the message has expired at `now_ms`.
    pub fn is_expired(&self, now_ms: u64) -> bool {
        self.expires_at_ms.is_some_and(|at| now_ms >= at)
    }

    /// The MD as a getter sees it at `now_ms`: Expiry counts down the tenths of
    /// a second left (MQ docs: MQMD Expiry, "the value is decremented").
    pub fn md_at(&self, now_ms: u64) -> Mqmd {
        let mut md = self.md.clone();
        if let Some(at) = self.expires_at_ms {
            let left_tenths = at.saturating_sub(now_ms).div_ceil(100);
            md.expiry = i32::try_from(left_tenths.max(1)).unwrap_or(i32::MAX);
        }
        md
    }
}

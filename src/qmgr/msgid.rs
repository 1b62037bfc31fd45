//! Queue-manager generated MsgIds and CorrelIds.
//!
//! Layout (the form IBM MQ queue managers generate, as seen in captured client
//! traffic; IBM MQ "MsgId (MQBYTE24)"): `AMQ `, the queue manager name blank
//! padded to 12, then 8 unique bytes. mqgate's 8 bytes are a big-endian counter
//! seeded from the clock in microseconds, so ids stay unique across restarts
//! and sort in put order.

use super::clock::now_us;
use mqgate_codecs::mq::md::Id24;
use std::sync::atomic::{AtomicU64, Ordering};

/// Generates unique 24-byte ids for one queue manager.
pub struct MsgIdGenerator {
    prefix: [u8; 16],
    last: AtomicU64,
}

impl MsgIdGenerator {
    /// A generator for queue manager `q_mgr_name` (first 12 characters used).
    pub fn new(q_mgr_name: &str) -> Self {
        let mut prefix = [b' '; 16];
        prefix[..4].copy_from_slice(b"AMQ ");
        for (i, b) in q_mgr_name.bytes().take(12).enumerate() {
            prefix[4 + i] = b;
        }
        MsgIdGenerator {
            prefix,
            last: AtomicU64::new(0),
        }
    }

    /// The next id: never equal to an earlier one of this generator, and
    /// greater than any made by an earlier process whose clock was not ahead.
    pub fn next(&self) -> Id24 {
        let now = now_us();
        let prev = self
            .last
            .fetch_update(Ordering::SeqCst, Ordering::SeqCst, |last| {
                Some(now.max(last + 1))
            })
            .unwrap_or(0);
        let unique = now.max(prev + 1);
        let mut id = [0u8; 24];
        id[..16].copy_from_slice(&self.prefix);
        id[16..].copy_from_slice(&unique.to_be_bytes());
        id
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn ids_have_the_amq_prefix_and_are_unique() {
        // Queue-manager MsgIds: "AMQ " + qmgr name blank-padded to 12 + 8 unique bytes.
        let g = MsgIdGenerator::new("MQGATE");
        let a = g.next();
        let b = g.next();
        assert_eq!(&a[..16], b"AMQ MQGATE      ");
        assert_ne!(a, b);
        assert!(b[16..] > a[16..]);
        let long = MsgIdGenerator::new("A_VERY_LONG_QUEUE_MANAGER");
        assert_eq!(&long.next()[..16], b"AMQ A_VERY_LONG_");
    }
}

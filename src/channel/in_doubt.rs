//! The record an mq-client channel stores with each batch, in the same
//! store transaction as the batch's messages (docs/mq-client-protocol.md
//! "Client side"): one entry per message got, its MsgId and the SHA-256
//! digest of its data. When the MQCMIT of that batch may not have reached
//! the queue manager (a crash, a lost connection), the queue manager gives
//! the same messages again, backed out; a message whose MsgId *and* data
//! match an entry is committed there without being stored twice.
//!
//! The digest makes an application that reuses MsgIds (MQ does not forbid
//! it; IBM MQ "MsgId (MQBYTE24)") safe: a new message with an old MsgId is
//! stored. Entries are counted, so a batch that held the same message
//! twice skips it twice, not more; a message with MsgId MQMI_NONE is
//! matched by its digest like any other.
//!
//! Layout: `b"MQCB"`, then per message 24 bytes of MsgId and 32 bytes of
//! digest. An empty record (no batch stored yet) holds nothing.

use sha2::{Digest, Sha256};
use std::collections::HashMap;

/// Leading bytes of the record.
const MAGIC: &[u8; 4] = b"MQCB";
/// Bytes of one entry: MsgId (24) and SHA-256 digest (32).
const ENTRY: usize = 24 + 32;

/// One message's key: its MsgId and the digest of its data.
type Key = ([u8; 24], [u8; 32]);

fn key(msg_id: [u8; 24], data: &[u8]) -> Key {
    (msg_id, Sha256::digest(data).into())
}

/// The record of a batch of messages, each `(MsgId, data)`.
pub fn encode<'a>(messages: impl IntoIterator<Item = ([u8; 24], &'a [u8])>) -> Vec<u8> {
    let mut out = MAGIC.to_vec();
    for (id, data) in messages {
        let (id, digest) = key(id, data);
        out.extend_from_slice(&id);
        out.extend_from_slice(&digest);
    }
    out
}

/// The messages of the last stored batch whose MQCMIT may be lost.
#[derive(Debug, Default)]
pub struct InDoubt(HashMap<Key, usize>);

impl InDoubt {
    /// Reads a record written by [`encode`]; empty when `record` is.
    ///
    /// Errors: a record that does not start with `MQCB` or whose length is
    /// not 4 + 56 × n bytes, described with its length.
    pub fn decode(record: &[u8]) -> Result<InDoubt, String> {
        if record.is_empty() {
            return Ok(InDoubt::default());
        }
        let body = record
            .strip_prefix(MAGIC)
            .filter(|b| b.len() % ENTRY == 0)
            .ok_or_else(|| {
                format!(
                    "the last batch record ({} bytes) is not MQCB followed by 56-byte entries",
                    record.len()
                )
            })?;
        let mut map = HashMap::new();
        for e in body.chunks_exact(ENTRY) {
            let (id, digest) = e.split_at(24);
            if let (Ok(id), Ok(digest)) = (<[u8; 24]>::try_from(id), <[u8; 32]>::try_from(digest)) {
                *map.entry((id, digest)).or_insert(0) += 1;
            }
        }
        Ok(InDoubt(map))
    }

    /// How many messages are in doubt.
    pub fn len(&self) -> usize {
        self.0.values().sum()
    }

    /// True (and counted off) when the message `(msg_id, data)` was stored
    /// by the batch in doubt: commit it without storing it again.
    pub fn take(&mut self, msg_id: [u8; 24], data: &[u8]) -> bool {
        let k = key(msg_id, data);
        match self.0.get_mut(&k) {
            Some(n) if *n > 1 => {
                *n -= 1;
                true
            }
            Some(_) => {
                self.0.remove(&k);
                true
            }
            None => false,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_reused_msg_id_with_other_data_is_not_in_doubt() {
        let id = [7u8; 24];
        let rec = encode([(id, &b"first"[..])]);
        let mut d = InDoubt::decode(&rec).unwrap();
        assert!(!d.take(id, b"second"), "same MsgId, new data: store it");
        assert!(d.take(id, b"first"));
        assert!(!d.take(id, b"first"), "taken once");
    }

    #[test]
    fn a_message_twice_in_the_batch_is_skipped_twice_and_msgid_none_counts() {
        let none = [0u8; 24];
        let rec = encode([(none, &b"x"[..]), (none, &b"x"[..])]);
        assert_eq!(rec.len(), 4 + 2 * 56);
        let mut d = InDoubt::decode(&rec).unwrap();
        assert_eq!(d.len(), 2);
        assert!(d.take(none, b"x"));
        assert!(d.take(none, b"x"));
        assert!(!d.take(none, b"x"));
        assert_eq!(d.len(), 0);
    }

    #[test]
    fn the_digest_is_sha256_of_the_data() {
        // FIPS 180-2 appendix B.1: SHA-256("abc") begins BA7816BF 8F01CFEA.
        let rec = encode([([1; 24], &b"abc"[..])]);
        assert_eq!(&rec[..4], b"MQCB");
        assert_eq!(
            &rec[28..36],
            &[0xBA, 0x78, 0x16, 0xBF, 0x8F, 0x01, 0xCF, 0xEA]
        );
    }

    #[test]
    fn a_broken_record_is_refused_with_its_length() {
        let e = InDoubt::decode(&[1; 24]).unwrap_err();
        assert!(e.contains("24 bytes"), "{e}");
        let mut rec = encode([([1; 24], &b"abc"[..])]);
        rec.pop();
        assert!(InDoubt::decode(&rec).is_err());
        assert_eq!(InDoubt::decode(&[]).unwrap().len(), 0);
    }
}

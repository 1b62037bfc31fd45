//! The cache of stored messages' MQMDs and data (docs/config.md
//! `queue_manager.body_cache_bytes`): persistent messages live in the store,
//! and the queue manager reads one back when a get, browse, backout or
//! expiry report needs it; the messages just put or read are kept here, up to
//! a byte bound, so that a queue read right behind its writer does not go to
//! the store. The least recently used message goes first when a new one does
//! not fit. Removed when the message leaves its queue.

use super::message::Message;
use std::collections::{BTreeMap, HashMap};
use std::sync::{Arc, Mutex, MutexGuard};

/// Bytes one cached message is counted for: its data, its decoded MQMD
/// and the cache's own bookkeeping (two map entries).
pub fn cost(msg: &Message) -> usize {
    msg.data.len() + std::mem::size_of::<Message>() + 64
}

/// What the cache did since the queue manager started, and holds now.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct CacheStats {
    /// Messages found in the cache.
    pub hits: u64,
    /// Messages looked for and not found (then read from the store).
    pub misses: u64,
    /// Messages pushed out to make room.
    pub evictions: u64,
    /// Messages held now.
    pub entries: usize,
    /// Bytes held now, by [`cost`].
    pub bytes: usize,
}

#[derive(Default)]
struct Inner {
    /// Store key -> (message, its use number).
    map: HashMap<u64, (Arc<Message>, u64)>,
    /// Use number -> store key: the oldest use first.
    order: BTreeMap<u64, u64>,
    next_use: u64,
    stats: CacheStats,
}

/// A byte-bounded cache of messages by store key, least recently used out
/// first. A bound of 0 caches nothing.
pub struct BodyCache {
    limit: usize,
    inner: Mutex<Inner>,
}

impl BodyCache {
    /// An empty cache holding at most `limit` bytes ([`cost`]).
    pub fn new(limit: usize) -> BodyCache {
        BodyCache {
            limit,
            inner: Mutex::new(Inner::default()),
        }
    }

    fn inner(&self) -> MutexGuard<'_, Inner> {
        // Every change below leaves the maps consistent before the next.
        self.inner.lock().unwrap_or_else(|p| p.into_inner())
    }

    /// The message stored under `key`, if cached (it becomes the most
    /// recently used).
    pub fn get(&self, key: u64) -> Option<Arc<Message>> {
        let mut inner = self.inner();
        let use_no = inner.next_use;
        let Some((msg, used)) = inner.map.get_mut(&key) else {
            inner.stats.misses += 1;
            return None;
        };
        let (msg, old) = (Arc::clone(msg), std::mem::replace(used, use_no));
        inner.next_use += 1;
        inner.order.remove(&old);
        inner.order.insert(use_no, key);
        inner.stats.hits += 1;
        Some(msg)
    }

    /// Keeps `msg` under `key`, pushing out the least recently used until
    /// it fits; a message larger than the whole bound is not kept.
    pub fn insert(&self, key: u64, msg: Arc<Message>) {
        let size = cost(&msg);
        if size > self.limit {
            return;
        }
        let mut inner = self.inner();
        inner.remove(key);
        while inner.stats.bytes + size > self.limit {
            let Some((_, oldest)) = inner.order.pop_first() else {
                break;
            };
            if let Some((gone, _)) = inner.map.remove(&oldest) {
                inner.stats.bytes -= cost(&gone);
                inner.stats.entries -= 1;
                inner.stats.evictions += 1;
            }
        }
        let use_no = inner.next_use;
        inner.next_use += 1;
        inner.order.insert(use_no, key);
        inner.map.insert(key, (msg, use_no));
        inner.stats.bytes += size;
        inner.stats.entries += 1;
    }

    /// Forgets the message under `key` (it left its queue).
    pub fn remove(&self, key: u64) {
        self.inner().remove(key);
    }

    /// The counts so far.
    pub fn stats(&self) -> CacheStats {
        self.inner().stats
    }
}

impl Inner {
    fn remove(&mut self, key: u64) {
        if let Some((msg, used)) = self.map.remove(&key) {
            self.order.remove(&used);
            self.stats.bytes -= cost(&msg);
            self.stats.entries -= 1;
            if self.map.is_empty() {
                // Maps keep their room when emptied: give it back.
                self.map = HashMap::new();
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use bytes::Bytes;
    use mqgate_codecs::mq::{Charset, Mqmd};

    fn msg(len: usize) -> Arc<Message> {
        Arc::new(Message {
            md: Mqmd::default(),
            charset: Charset::Ascii,
            data: Bytes::from(vec![0u8; len]),
            expires_at_ms: None,
        })
    }

    #[test]
    fn the_byte_bound_holds_and_the_least_recently_used_goes_first() {
        let one = cost(&msg(100));
        // Room for three messages of 100 bytes, not four.
        let cache = BodyCache::new(3 * one + one / 2);
        for key in 1..=3 {
            cache.insert(key, msg(100));
        }
        assert!(cache.get(1).is_some());
        cache.insert(4, msg(100));
        // 2 was the least recently used (1 was read after it).
        assert!(cache.get(2).is_none());
        let s = cache.stats();
        assert_eq!((s.entries, s.bytes, s.evictions), (3, 3 * one, 1));
        for key in 5..=1000 {
            cache.insert(key, msg(100));
            assert!(cache.stats().bytes <= 3 * one + one / 2);
        }
        let s = cache.stats();
        assert_eq!((s.entries, s.evictions, s.hits, s.misses), (3, 997, 1, 1));
        // Larger than the whole bound: not kept, nothing pushed out.
        cache.insert(2000, msg(4 * one));
        assert_eq!(cache.stats().entries, 3);
        for key in 998..=1000 {
            cache.remove(key);
        }
        assert_eq!((cache.stats().entries, cache.stats().bytes), (0, 0));
    }

    #[test]
    fn a_zero_bound_caches_nothing() {
        let cache = BodyCache::new(0);
        cache.insert(1, msg(0));
        assert!(cache.get(1).is_none());
        assert_eq!(cache.stats().entries, 0);
    }
}

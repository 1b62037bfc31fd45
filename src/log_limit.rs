//! Rate limits for log lines that repeat: a channel whose sender retries
//! against a stopped channel, a listener whose accepts fail, leases that
//! keep expiring. The first line of a kind (per key, e.g. per channel) is
//! written at once; later ones within the limiter's interval are counted,
//! not written, and the next line written after the interval says how many
//! were left out (a `suppressed` field), so an operator sees every kind of
//! trouble at least once a minute without the log growing with each
//! repeat (docs/config.md "Logging").

use std::collections::BTreeMap;
use std::sync::Mutex;
use std::time::{Duration, Instant};

/// The most keys one limiter remembers; past it, keys not seen for an
/// interval are forgotten (a forgotten key's next line is written at once).
const MAX_KEYS: usize = 4096;

/// A rate limit on one kind of log line, per key. Made `const`, so each
/// kind is a `static` beside the line it limits.
pub struct Repeats {
    interval: Duration,
    seen: Mutex<BTreeMap<String, Seen>>,
}

#[derive(Clone, Copy)]
struct Seen {
    /// When a line for the key was last written.
    written: Instant,
    /// Lines left out since.
    suppressed: u64,
}

impl Repeats {
    /// At most one line per key every `interval`.
    pub const fn new(interval: Duration) -> Repeats {
        Repeats {
            interval,
            seen: Mutex::new(BTreeMap::new()),
        }
    }

    /// At most one line per key a minute.
    pub const fn per_minute() -> Repeats {
        Repeats::new(Duration::from_secs(60))
    }

    /// Whether a line for `key` is written now: `Some(n)`, `n` being the
    /// lines of this key left out since the last one written, or `None`
    /// (the line is left out and counted).
    pub fn admit(&self, key: &str) -> Option<u64> {
        self.admit_at(key, Instant::now())
    }

    fn admit_at(&self, key: &str, now: Instant) -> Option<u64> {
        let mut seen = self.seen.lock().unwrap_or_else(|p| p.into_inner());
        if let Some(s) = seen.get_mut(key) {
            if now.duration_since(s.written) < self.interval {
                s.suppressed += 1;
                return None;
            }
            let suppressed = s.suppressed;
            *s = Seen {
                written: now,
                suppressed: 0,
            };
            return Some(suppressed);
        }
        if seen.len() >= MAX_KEYS {
            let interval = self.interval;
            seen.retain(|_, s| now.duration_since(s.written) < interval);
        }
        seen.insert(
            key.to_string(),
            Seen {
                written: now,
                suppressed: 0,
            },
        );
        Some(0)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_first_line_is_written_then_one_per_interval_with_the_count_left_out() {
        let r = Repeats::new(Duration::from_secs(60));
        let t0 = Instant::now();
        assert_eq!(r.admit_at("TO.MQGATE", t0), Some(0));
        // 99 more within the minute: all left out.
        for s in 1..100 {
            assert_eq!(
                r.admit_at("TO.MQGATE", t0 + Duration::from_millis(s * 500)),
                None
            );
        }
        // Another key is limited on its own.
        assert_eq!(r.admit_at("OTHER", t0 + Duration::from_secs(1)), Some(0));
        // A minute after the last written line: written, naming the 99.
        assert_eq!(
            r.admit_at("TO.MQGATE", t0 + Duration::from_secs(60)),
            Some(99)
        );
        assert_eq!(r.admit_at("TO.MQGATE", t0 + Duration::from_secs(61)), None);
        assert_eq!(
            r.admit_at("TO.MQGATE", t0 + Duration::from_secs(120)),
            Some(1)
        );
    }

    #[test]
    fn keys_are_bounded() {
        let r = Repeats::new(Duration::from_secs(60));
        let t0 = Instant::now();
        for k in 0..MAX_KEYS {
            assert_eq!(r.admit_at(&k.to_string(), t0), Some(0));
        }
        // Full: keys older than the interval are forgotten to make room.
        let later = t0 + Duration::from_secs(61);
        assert_eq!(r.admit_at("new", later), Some(0));
        assert_eq!(r.seen.lock().unwrap().len(), 1);
    }
}

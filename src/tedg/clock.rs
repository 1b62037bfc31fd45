//! The clock the RTQ scheduling logic reads, injectable so scheduled delivery
//! can be tested without sleeping.

use std::sync::Arc;
#[cfg(test)]
use std::sync::atomic::{AtomicI64, Ordering};
use std::time::{SystemTime, UNIX_EPOCH};
use tokio::sync::Notify;

/// A source of UNIX time in seconds (the unit of RTQ schedule times;
/// mqgate's definition, docs/tuxedo.md).
pub trait Clock: Send + Sync {
    /// Seconds since 1970-01-01T00:00:00Z.
    fn now_secs(&self) -> i64;

    /// Milliseconds since 1970-01-01T00:00:00Z, so a server waiting for a
    /// scheduled request wakes at its second, not up to a second late.
    /// Default: [`Clock::now_secs`] × 1000.
    fn now_ms(&self) -> i64 {
        self.now_secs().saturating_mul(1000)
    }

    /// Notified when the clock is set rather than running (a waiting RTQ
    /// server then looks at the schedule again); `None` (the default) for a
    /// clock that only runs.
    fn changes(&self) -> Option<Arc<Notify>> {
        None
    }
}

/// The system clock.
#[derive(Clone, Copy, Debug, Default)]
pub struct SystemClock;

impl Clock for SystemClock {
    fn now_secs(&self) -> i64 {
        SystemTime::now()
            .duration_since(UNIX_EPOCH)
            .map_or(0, |d| d.as_secs() as i64)
    }

    fn now_ms(&self) -> i64 {
        SystemTime::now()
            .duration_since(UNIX_EPOCH)
            .map_or(0, |d| i64::try_from(d.as_millis()).unwrap_or(i64::MAX))
    }
}

/// A clock that only moves when told to (tests); moving it notifies
/// [`Clock::changes`].
#[cfg(test)]
#[derive(Debug, Default)]
pub struct ManualClock {
    secs: AtomicI64,
    moved: Arc<Notify>,
}

#[cfg(test)]
impl ManualClock {
    /// A clock showing `secs`.
    pub fn new(secs: i64) -> Self {
        ManualClock {
            secs: AtomicI64::new(secs),
            moved: Arc::new(Notify::new()),
        }
    }

    /// Moves the clock forward by `secs`.
    pub fn advance(&self, secs: i64) {
        self.secs.fetch_add(secs, Ordering::SeqCst);
        self.moved.notify_waiters();
    }
}

#[cfg(test)]
impl Clock for ManualClock {
    fn now_secs(&self) -> i64 {
        self.secs.load(Ordering::SeqCst)
    }

    fn changes(&self) -> Option<Arc<Notify>> {
        Some(Arc::clone(&self.moved))
    }
}

/// True when a request due at `due_at` may be taken at `now` (both UNIX seconds): RTQ makes a
/// request available at its schedule time (BEA Tuxedo "Using the BEA Tuxedo TOP END Domain
/// Gateway": "the message enqueued to the RTQ queue is scheduled by RTQ").
pub fn is_due(due_at: i64, now: i64) -> bool {
    due_at <= now
}

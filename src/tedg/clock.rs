//! The clock the RTQ scheduling logic reads, injectable so scheduled delivery
//! can be tested without sleeping.

#[cfg(test)]
use std::sync::atomic::{AtomicI64, Ordering};
use std::time::{SystemTime, UNIX_EPOCH};

/// A source of UNIX time in seconds (the unit of RTQ schedule times; spec:
/// tuxedo.md §3 "schedule_time, absolute").
pub trait Clock: Send + Sync {
    /// Seconds since 1970-01-01T00:00:00Z.
    fn now_secs(&self) -> i64;
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
}

/// A clock that only moves when told to (tests).
#[cfg(test)]
#[derive(Debug, Default)]
pub struct ManualClock(AtomicI64);

#[cfg(test)]
impl ManualClock {
    /// A clock showing `secs`.
    pub fn new(secs: i64) -> Self {
        ManualClock(AtomicI64::new(secs))
    }

    /// Moves the clock forward by `secs`.
    pub fn advance(&self, secs: i64) {
        self.0.fetch_add(secs, Ordering::SeqCst);
    }
}

#[cfg(test)]
impl Clock for ManualClock {
    fn now_secs(&self) -> i64 {
        self.0.load(Ordering::SeqCst)
    }
}

/// True when a request due at `due_at` may be taken at `now` (both UNIX
/// seconds): RTQ makes a request available at its schedule time (seed 003:
/// "the message enqueued to the RTQ queue is scheduled by RTQ").
pub fn is_due(due_at: i64, now: i64) -> bool {
    due_at <= now
}

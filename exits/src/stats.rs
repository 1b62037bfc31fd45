//! Exit calls and failures per exit point, for the gateway's `GET
//! /metrics` (docs/operations.md "Exits"). Process-wide counters (one
//! gateway runs per `mqgate run` process): a chain bumps two atomics per
//! exit it calls, nothing else.

use crate::api::ExitPoint;
use std::sync::atomic::{AtomicU64, Ordering};

/// Data calls (MQXR_MSG, MQXR_XMIT) per point, in [`ExitPoint::ALL`] order.
static CALLS: [AtomicU64; 6] = [const { AtomicU64::new(0) }; 6];
/// Of those, the calls that failed (MQXCC_FAILED, a panic, a time budget
/// overrun, a disabled exit), whatever the failure policy did next.
static FAILURES: [AtomicU64; 6] = [const { AtomicU64::new(0) }; 6];

fn index(point: ExitPoint) -> usize {
    ExitPoint::ALL
        .iter()
        .position(|p| *p == point)
        .unwrap_or_default()
}

/// Counts one data call of an exit at `point`, `failed` or not.
pub(crate) fn count(point: ExitPoint, failed: bool) {
    let i = index(point);
    CALLS[i].fetch_add(1, Ordering::Relaxed);
    if failed {
        FAILURES[i].fetch_add(1, Ordering::Relaxed);
    }
}

/// Data calls and failures so far at each point, in [`ExitPoint::ALL`]
/// order: `(point, calls, failures)`.
pub fn snapshot() -> [(ExitPoint, u64, u64); 6] {
    let mut out = [(ExitPoint::Receive, 0, 0); 6];
    for (i, (o, p)) in out.iter_mut().zip(ExitPoint::ALL).enumerate() {
        *o = (
            p,
            CALLS[i].load(Ordering::Relaxed),
            FAILURES[i].load(Ordering::Relaxed),
        );
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn counts_land_on_their_point() {
        let before = snapshot();
        count(ExitPoint::BeforePut, false);
        count(ExitPoint::BeforePut, true);
        let after = snapshot();
        // BeforePut is the fourth point of ExitPoint::ALL; other tests of
        // this binary may count too, so only growth is checked.
        assert_eq!(after[3].0, ExitPoint::BeforePut);
        assert!(after[3].1 >= before[3].1 + 2);
        assert!(after[3].2 > before[3].2);
    }
}

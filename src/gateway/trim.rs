//! Gives memory back to the operating system after many messages left the
//! queues. glibc keeps freed heap for reuse (and `mqgate run` asks it to
//! keep up to 256 MiB, src/alloc_tuning.rs, so that the store's commit
//! buffers are not faulted in anew each time); after a drain of many
//! device queues that memory would stay resident until the next restart.
//! Every [`PERIOD`] the gateway looks at how many messages were taken off
//! queues, and calls glibc's `malloc_trim` (malloc_trim(3)), which returns
//! the free pages of every arena, when at least [`MIN_REMOVED`] were taken
//! since the last trim, or when some were and none in the last period (a
//! drain has ended). A steady flow of messages through the gateway costs
//! one trim per period; an idle gateway none.
//!
//! Each period begins with the sweep of emptied device queues
//! ([`crate::qmgr::QueueManager::retire_idle_queues`], src/qmgr/idle.rs),
//! so that what they held is free when the trim runs; a sweep that retired
//! queues is followed by a trim too.

use crate::qmgr::QueueManager;
use std::sync::Arc;
use std::time::Duration;

/// How often the messages removed are looked at.
pub const PERIOD: Duration = Duration::from_secs(10);

/// The fewest messages removed within a period that lead to a trim.
pub const MIN_REMOVED: u64 = 10_000;

/// Whether to trim now: `removed` messages have left the queues since the
/// gateway started, `previous` had at the last look (a period ago) and
/// `trimmed` at the last trim.
pub fn due(removed: u64, previous: u64, trimmed: u64) -> bool {
    let since_trim = removed.saturating_sub(trimmed);
    since_trim >= MIN_REMOVED || (since_trim > 0 && removed == previous)
}

/// Every [`PERIOD`], retires the idle device queues of `qm`, then trims
/// when [`due`] or when queues were retired; runs until its task is ended
/// (it runs with the gateway's timers).
pub async fn run(qm: Arc<QueueManager>) {
    let mut previous = crate::qmgr::removed_messages();
    let mut trimmed = previous;
    loop {
        tokio::time::sleep(PERIOD).await;
        let sweeper = Arc::clone(&qm);
        let retired = tokio::task::spawn_blocking(move || sweeper.retire_idle_queues())
            .await
            .unwrap_or(0);
        if retired > 0 {
            tracing::debug!(retired, "idle device queues retired");
        }
        let removed = crate::qmgr::removed_messages();
        if due(removed, previous, trimmed) || retired > 0 {
            trimmed = removed;
            let _ = tokio::task::spawn_blocking(release_free_memory).await;
        }
        previous = removed;
    }
}

/// Returns the allocator's free pages to the system.
#[cfg(all(target_os = "linux", target_env = "gnu"))]
fn release_free_memory() {
    // SAFETY: malloc_trim only releases free memory of glibc's arenas; it
    // may be called from any thread at any time.
    unsafe {
        libc::malloc_trim(0);
    }
}

/// Other allocators return memory by their own rules.
#[cfg(not(all(target_os = "linux", target_env = "gnu")))]
fn release_free_memory() {}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_trim_follows_ten_thousand_removed_messages_or_the_end_of_a_drain() {
        // Nothing removed: no trim.
        assert!(!due(0, 0, 0));
        // 10,000 removed since the last trim, still going: trim.
        assert!(due(MIN_REMOVED, 0, 0));
        assert!(due(30_000, 25_000, 20_000));
        // Fewer, still going: wait.
        assert!(!due(MIN_REMOVED - 1, 0, 0));
        assert!(!due(25_000, 22_000, 20_000));
        // Fewer, and none in the last period: the drain ended, trim.
        assert!(due(25_000, 25_000, 20_000));
        // Trimmed already at that count: no second trim.
        assert!(!due(25_000, 25_000, 25_000));
    }
}

//! Counts of the shared state a queue manager call touches, for tests that
//! check that a call's cost does not grow with the number of queues (a
//! count, which a loaded machine cannot blur as it does a timer). Counted
//! per thread, so tests running at once do not see each other's calls; in
//! builds other than tests the counting functions do nothing.

/// What the calls on this thread touched since the last [`take`].
#[cfg(test)]
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Touched {
    /// Locks of one queue's messages ([`super::queue::LocalQueue::lock`]).
    pub queue_locks: u64,
    /// Looks at the object table (name -> queue object), read or write.
    pub table_looks: u64,
    /// Queues visited by a call that goes over every queue
    /// ([`super::QueueManager::queues`]).
    pub queues_listed: u64,
}

#[cfg(test)]
thread_local! {
    static TOUCHED: std::cell::Cell<Touched> = const {
        std::cell::Cell::new(Touched { queue_locks: 0, table_looks: 0, queues_listed: 0 })
    };
}

#[cfg(test)]
fn count(f: impl FnOnce(&mut Touched)) {
    TOUCHED.with(|t| {
        let mut v = t.get();
        f(&mut v);
        t.set(v);
    });
}

/// What this thread touched since the last call, and starts counting anew.
#[cfg(test)]
pub fn take() -> Touched {
    TOUCHED.with(|t| t.replace(Touched::default()))
}

/// One queue's messages were locked.
pub(super) fn queue_locked() {
    #[cfg(test)]
    count(|t| t.queue_locks += 1);
}

/// The object table was looked at.
pub(super) fn table_looked() {
    #[cfg(test)]
    count(|t| t.table_looks += 1);
}

/// A call going over every queue visited one.
pub(super) fn queue_listed() {
    #[cfg(test)]
    count(|t| t.queues_listed += 1);
}

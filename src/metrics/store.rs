//! The store commit latency histogram (`mqgate_store_commit_seconds`,
//! docs/operations.md "Store"): every [`Store::apply`] of the queue
//! manager, timed around the call, successful or not.

use crate::store::{Batch, ReadCounts, Store, StoreError, StoreHealth};
use prometheus_client::metrics::histogram::{Histogram, exponential_buckets};
use std::sync::Arc;
use std::time::Instant;

/// Bucket bounds: 0.5 ms doubling to about 8 s (15 buckets), from a write
/// that only reached the page cache to an fsync on a busy disk.
pub fn commit_histogram() -> Histogram {
    Histogram::new(exponential_buckets(0.0005, 2.0, 15))
}

/// A store that times each [`Store::apply`] into a histogram; every other
/// call goes straight through.
pub struct TimedStore<S> {
    inner: Arc<S>,
    commits: Histogram,
}

impl<S> TimedStore<S> {
    /// `inner`, timed into `commits`.
    pub fn new(inner: Arc<S>, commits: Histogram) -> Self {
        TimedStore { inner, commits }
    }
}

impl<S: Store> Store for TimedStore<S> {
    fn apply(&self, batch: &Batch) -> Result<(), StoreError> {
        let started = Instant::now();
        let r = self.inner.apply(batch);
        self.commits.observe(started.elapsed().as_secs_f64());
        r
    }

    fn load(&self) -> Result<Vec<(u64, Vec<u8>)>, StoreError> {
        self.inner.load()
    }

    fn load_index(&self) -> Result<crate::store::Summaries, StoreError> {
        self.inner.load_index()
    }

    fn load_index_parts(
        &self,
        each: &mut dyn FnMut(crate::store::IndexPart),
    ) -> Result<(), StoreError> {
        self.inner.load_index_parts(each)
    }

    fn read(&self, key: u64) -> Result<Option<Vec<u8>>, StoreError> {
        self.inner.read(key)
    }

    fn read_counts(&self) -> ReadCounts {
        self.inner.read_counts()
    }

    fn load_meta(&self) -> Result<Vec<(String, Vec<u8>)>, StoreError> {
        self.inner.load_meta()
    }

    fn health(&self) -> StoreHealth {
        self.inner.health()
    }

    fn shared(&self) -> Option<&dyn crate::store::SharedStore> {
        self.inner.shared()
    }
}

//! The durable store behind one trait, so the queue manager does not depend on
//! the engine. The embedded default is redb ([`redb::RedbStore`]).
//!
//! A store keeps opaque records under a 64-bit key (the queue manager's message
//! sequence number). Every change goes through [`Store::apply`]: one batch is
//! one transaction, durable when `apply` returns `Ok`; this is how the puts and
//! gets of a unit of work become one group commit.

pub mod redb;
pub mod segment;

/// One atomic change: records to insert or overwrite and keys to remove.
#[derive(Debug, Default)]
pub struct Batch {
    /// (key, record) pairs; an existing key is overwritten.
    pub puts: Vec<(u64, Vec<u8>)>,
    /// Keys to remove; a missing key is not an error.
    pub deletes: Vec<u64>,
    /// Named state records written in the same transaction (e.g. a channel's
    /// last committed batch sequence number, docs/channel-protocol.md); an
    /// existing name is overwritten.
    pub meta: Vec<(String, Vec<u8>)>,
}

impl Batch {
    /// True when the batch changes nothing.
    pub fn is_empty(&self) -> bool {
        self.puts.is_empty() && self.deletes.is_empty() && self.meta.is_empty()
    }
}

/// A store failure; the queue manager maps it to MQRC_RESOURCE_PROBLEM (2102).
#[derive(Debug, thiserror::Error)]
#[error("store: {0}")]
pub struct StoreError(pub String);

/// A durable key/record store.
pub trait Store: Send + Sync {
    /// Applies `batch` in one transaction. `Ok` means every change is on disk
    /// (survives kill -9 and power loss as far as the engine's fsync allows);
    /// `Err` means none of it is.
    fn apply(&self, batch: &Batch) -> Result<(), StoreError>;

    /// Every record, in key order (used once, at start-up).
    fn load(&self) -> Result<Vec<(u64, Vec<u8>)>, StoreError>;

    /// Every named state record (see [`Batch::meta`]), in name order.
    fn load_meta(&self) -> Result<Vec<(String, Vec<u8>)>, StoreError>;
}

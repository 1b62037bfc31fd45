//! Named state records kept in the store beside the messages: a receiver
//! channel's last committed batch sequence number, a sender channel's batch
//! in flight (docs/channel-protocol.md "Resynchronisation", "Sender
//! channels"). They are written with a unit of work
//! ([`Mqi::seal`], [`Mqi::commit_with_meta_now`]) or on their own
//! ([`Mqi::put_meta`]), and read back after a restart ([`Mqi::meta`]).

use super::{Mqi, QmError};
use std::sync::Arc;

impl Mqi {
    /// The state record `name` (its bytes as last written), or `None` when
    /// it was never written; read from the store on the blocking pool.
    /// Errors: the store cannot be read (2102 MQRC_RESOURCE_PROBLEM); the
    /// task failed (2195 MQRC_UNEXPECTED_ERROR).
    pub async fn meta(&self, name: &str) -> Result<Option<Vec<u8>>, QmError> {
        let (qm, name) = (Arc::clone(&self.qm), name.to_string());
        Mqi::blocking(move || qm.meta(&name)).await
    }

    /// Every state record whose name begins with `prefix` (name, bytes as
    /// last written), in name order, read on the blocking pool: what a
    /// part that keeps many records (a certified delivery ledger) reads
    /// back after a restart. Errors: as [`Mqi::meta`].
    pub async fn meta_prefixed(&self, prefix: &str) -> Result<Vec<(String, Vec<u8>)>, QmError> {
        let (qm, prefix) = (Arc::clone(&self.qm), prefix.to_string());
        Mqi::blocking(move || qm.meta_prefixed(&prefix)).await
    }

    /// Writes the state records `meta` (name, bytes; each replaces the
    /// record of its name) on their own, durably when this returns, on the
    /// blocking pool: a sender channel records its batch before END_BATCH so
    /// that a crash of its own gateway neither loses nor duplicates it.
    /// Errors: the store failed (2102 MQRC_RESOURCE_PROBLEM; 2056
    /// MQRC_Q_SPACE_NOT_AVAILABLE when its disk is full); the task failed
    /// (2195).
    pub async fn put_meta(&self, meta: Vec<(String, Vec<u8>)>) -> Result<(), QmError> {
        let qm = Arc::clone(&self.qm);
        Mqi::blocking(move || qm.put_meta(meta)).await
    }
}

//! The durable store behind one trait, so the queue manager does not depend on
//! the engine. The embedded default is redb ([`redb::RedbStore`]); the
//! second backend keeps the records in a NATS JetStream stream
//! (`jetstream::JetStreamStore`, docs/cluster.md). Every backend must pass
//! the conformance suite (src/store/conformance/).
//!
//! A store keeps opaque records under a 64-bit key (the queue manager's message
//! sequence number). Every change goes through [`Store::apply`]: one batch is
//! one transaction, durable when `apply` returns `Ok`; this is how the puts and
//! gets of a unit of work become one group commit.

#[cfg(test)]
pub mod conformance;
mod error;
#[cfg(feature = "nats")]
pub mod jetstream;
pub mod nats_config;
pub mod redb;
#[cfg(test)]
mod redb_conformance;
pub mod segment;
mod summaries;

pub use error::StoreError;
pub use summaries::{IndexPart, Summaries};

/// One atomic change: records to insert or overwrite and keys to remove.
#[derive(Clone, Debug, Default)]
pub struct Batch {
    /// (key, record) pairs, applied in order; an existing key is overwritten
    /// (a key put twice in one batch keeps the last record).
    pub puts: Vec<(u64, Vec<u8>)>,
    /// Keys to remove, after the puts (a key both put and deleted by one batch
    /// is gone); a missing key is not an error.
    pub deletes: Vec<u64>,
    /// Named state records written in the same transaction (e.g. a channel's
    /// last committed batch sequence number, docs/channel-protocol.md); an
    /// existing name is overwritten.
    pub meta: Vec<(String, Vec<u8>)>,
    /// The summary of keys this batch puts: a short record kept beside the
    /// key's record and loaded without it by [`Store::load_index`] (the
    /// queue manager's index entry of a message, src/qmgr/index.rs). A key
    /// put without one here has an empty summary; a summary for a key the
    /// batch does not put is ignored. Deleting a key deletes its summary.
    pub summaries: Vec<(u64, Vec<u8>)>,
}

impl Batch {
    /// True when the batch changes nothing.
    pub fn is_empty(&self) -> bool {
        self.puts.is_empty() && self.deletes.is_empty() && self.meta.is_empty()
    }
}

/// Records a store read since it was opened, whole: what
/// [`Store::read_counts`] reports, so that a test can check that a start
/// reads summaries only.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct ReadCounts {
    /// Values read that hold records (a single record, or a group of them).
    pub values: u64,
    /// Their bytes.
    pub bytes: u64,
}

/// A durable key/record store: the contract every backend keeps (checked by
/// the conformance suite, src/store/conformance.rs).
///
/// **Records.** Opaque bytes (empty allowed) under a `u64` key, the whole range
/// of keys allowed; named state records ("meta") beside them under a UTF-8
/// name. The store never interprets either.
///
/// **Atomicity.** [`Store::apply`] applies one [`Batch`] — its puts, then its
/// deletes, then its meta — as one transaction: after any crash (kill -9,
/// power loss as far as the device honours fsync) a later open sees all of
/// the batch or none of it, never a part.
///
/// **Durability.** `Ok` means the whole batch is on stable storage: every
/// later open, after any crash, loads it (until a later batch changes it).
///
/// **Failure.** `Err` means the batch was not applied: a load from the same
/// instance does not show it and the caller must report failure. One case
/// cannot be told apart by any engine: a failure while making the batch
/// durable (an fsync error) may leave it on disk, so the outcome is only
/// known after the engine reopens its file — whole or absent, as above. A
/// backend that reopens by itself after such a failure (the embedded one
/// does, src/store/redb.rs) looks at the batch then and answers `Ok` when it
/// is stored. A full disk is [`StoreError::Full`] (MQRC 2056);
/// [`StoreError::mqrc`] gives the reason the queue manager answers for any
/// failure, and [`Store::health`] the condition the store is in.
///
/// **Order.** Batches take effect in the order their `apply` calls return;
/// concurrent calls (the queue manager applies from several threads) are each
/// atomic and none is lost. Overwriting a key replaces its record; deleting a
/// missing key is not an error; an empty batch is allowed and changes nothing.
///
/// **Loading.** [`Store::load`] returns every live record exactly once, in
/// ascending key order, with the bytes of its last put; [`Store::load_meta`]
/// every named record in name order; [`Store::load_index`] every live key
/// with its summary, in key order, and [`Store::read`] one record, both
/// agreeing with `load`. All may be called at any time.
///
/// **Opening.** A backend is opened on a data directory (the JetStream
/// backend: a stream prefix) by its own constructor; one open instance per
/// directory at a time (a second open is refused), except on a JetStream
/// stream several gateways share, where each gateway opens one
/// ([`SharedStore`]). Dropping an instance is a clean close.
pub trait Store: Send + Sync {
    /// Applies `batch` in one transaction (see the trait's contract): `Ok`
    /// when all of it is durable, `Err` when it was not applied.
    fn apply(&self, batch: &Batch) -> Result<(), StoreError>;

    /// Every record, in key order (used once, at start-up).
    fn load(&self) -> Result<Vec<(u64, Vec<u8>)>, StoreError>;

    /// Every live key with its summary ([`Batch::summaries`]; empty when it
    /// was put without one), in ascending key order, without reading the
    /// records themselves (used at start-up), in one block of bytes
    /// ([`Summaries`]).
    fn load_index(&self) -> Result<Summaries, StoreError>;

    /// [`Store::load_index`] handed over in parts as it is read, so that a
    /// start builds its queues while the store is still being read (on
    /// another thread): first [`IndexPart::Expect`], how many keys the
    /// parts hold in all, then each part. Across parts the keys come in no
    /// particular order, and a store that reads again after a failure may
    /// hand a key twice (with the same summary). The default hands
    /// [`Store::load_index`] as one part.
    fn load_index_parts(&self, each: &mut dyn FnMut(IndexPart)) -> Result<(), StoreError> {
        let all = self.load_index()?;
        each(IndexPart::Expect(all.len()));
        each(IndexPart::Summaries(all));
        Ok(())
    }

    /// The record stored under `key`, `None` when there is none (a get
    /// reading a message's MQMD and data).
    fn read(&self, key: u64) -> Result<Option<Vec<u8>>, StoreError>;

    /// The records read since the store was opened (by [`Store::load`],
    /// [`Store::read`] and the store's own upkeep). A backend that does not
    /// count keeps the default: nothing.
    fn read_counts(&self) -> ReadCounts {
        ReadCounts::default()
    }

    /// Every named state record (see [`Batch::meta`]), in name order.
    fn load_meta(&self) -> Result<Vec<(String, Vec<u8>)>, StoreError>;

    /// The store's condition now, as `GET /v1/status` shows it
    /// (docs/http-api.md "Status"). A backend that cannot fail this way
    /// keeps the default: always [`StoreState::Ok`].
    fn health(&self) -> StoreHealth {
        StoreHealth::default()
    }

    /// The store's side of several gateways serving one queue set
    /// (docs/cluster.md "Several gateways on one stream"); `None` (the
    /// default) for a store one gateway holds alone.
    fn shared(&self) -> Option<&dyn SharedStore> {
        None
    }
}

/// Bits of a key below the member number: a gateway of a shared store
/// makes its keys `(counter << MEMBER_BITS) | member`, so that no two
/// members ever allocate the same key.
pub const MEMBER_BITS: u32 = 10;

/// The most members a shared store has at once (`1 << MEMBER_BITS`).
#[cfg(feature = "nats")]
pub const MAX_MEMBERS: u16 = 1 << MEMBER_BITS;

/// A change another gateway (or this one) made to a shared store, as the
/// store's tail reads it ([`SharedStore::follow`]). Summaries are those of
/// [`Batch::summaries`].
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Change {
    /// Record `key` was put (or written again) with `summary`.
    Put { key: u64, summary: Vec<u8> },
    /// Record `key`, whose summary was `summary`, was deleted.
    Delete { key: u64, summary: Vec<u8> },
    /// Another gateway claimed record `key` (it got the message) for
    /// `ttl_ms` from now, or renewed its claim.
    Claimed {
        key: u64,
        summary: Vec<u8>,
        ttl_ms: u64,
    },
    /// The claim on record `key` was given up without deleting the record
    /// (a backout): the message is available again.
    Released { key: u64, summary: Vec<u8> },
}

/// How a claim on a record ended ([`SharedStore::claim`]).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Claim {
    /// This gateway holds the record until it deletes or writes it again
    /// (the claim's release goes into that batch) or the claim expires.
    Held,
    /// Another gateway holds it, for at most `remaining_ms` more.
    Taken { remaining_ms: u64 },
}

/// What several gateways on one store need beyond [`Store`]: disjoint keys
/// ([`SharedStore::member`]), each other's changes
/// ([`SharedStore::follow`]), and a compare-and-set claim on a record
/// before a destructive get hands it out ([`SharedStore::claim`]). A
/// batch that deletes or writes again a record this gateway holds a claim
/// on releases the claim in the same transaction, and fails as a whole
/// when the claim was lost meanwhile; a batch writing a named state record
/// fails as a whole when another gateway wrote that record since this one
/// last read or wrote it ([`StoreError::Conflict`]).
pub trait SharedStore: Send + Sync {
    /// This gateway's member number (below [`MAX_MEMBERS`]): the low
    /// [`MEMBER_BITS`] bits of every key it allocates.
    fn member(&self) -> u16;

    /// Starts reading the store's changes from where the store's opening
    /// read it, and hands each over with the stream sequence number it came
    /// with (`None` for a message that changes nothing a queue shows), the
    /// first time with the sequence the opening read reached. The
    /// same change may come twice (the start overlaps the open); the
    /// receiver ends when the store closes. Errors: called twice, or the
    /// tail cannot be started.
    fn follow(&self) -> Result<std::sync::mpsc::Receiver<(u64, Option<Change>)>, StoreError>;

    /// The store's last sequence number now (what [`SharedStore::follow`]
    /// must reach to have seen every change made so far).
    fn last_sequence(&self) -> Result<u64, StoreError>;

    /// Claims record `key` for this gateway (compare-and-set: nobody
    /// holds it), for the store's claim time, renewed while the gateway
    /// lives. Errors: the store failed.
    fn claim(&self, key: u64) -> Result<Claim, StoreError>;

    /// True while this gateway holds a claim on record `key`: a backout
    /// writes a message back only then (a claim lost meanwhile may have
    /// let another gateway get and remove it).
    fn holds(&self, key: u64) -> bool;

    /// Gives a claim up without changing the record (a get that could not
    /// read the message); nothing when this gateway holds none on `key`.
    fn release(&self, key: u64) -> Result<(), StoreError>;
}

/// What condition a store is in ([`StoreHealth::state`]).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, serde::Serialize)]
#[serde(rename_all = "snake_case")]
pub enum StoreState {
    /// Every call is accepted.
    #[default]
    Ok,
    /// The store's device is full: batches that add records are refused
    /// with 2056 MQRC_Q_SPACE_NOT_AVAILABLE until there is room again;
    /// batches that only remove records (gets, acknowledgements, expiry)
    /// go on, so that space can be freed.
    Full,
    /// The store's file could not be reopened after a failure: every call
    /// fails (2102 MQRC_RESOURCE_PROBLEM, or 2056 when the reopen failed for
    /// want of space) and the reopen is tried again on the next calls.
    Failed,
}

/// A store's condition, for `GET /v1/status` (docs/http-api.md "Status").
#[derive(Clone, Debug, Default, PartialEq, Eq, serde::Serialize)]
pub struct StoreHealth {
    /// `ok`, `full` or `failed`.
    pub state: StoreState,
    /// The MQRC reason a put that needs the store answers in this state: 0
    /// when `ok`, 2056 MQRC_Q_SPACE_NOT_AVAILABLE when `full`, the failure's
    /// reason when `failed` (IBM MQ "Reason codes").
    pub reason: i32,
    /// What the condition is (empty when `ok`).
    pub message: String,
    /// How often the store's file was closed and reopened after a failure
    /// since the gateway started.
    pub reopens: u64,
    /// The last failure the store met, even when it has recovered since
    /// (empty when none).
    pub last_failure: String,
}

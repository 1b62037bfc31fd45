//! The subjects, stream name and headers of the store's stream
//! (docs/cluster.md "Subjects").
//!
//! With the stream prefix `P` every subject of the store is under
//! `P.store.`; the stream keeps one message per subject (the last), so a
//! subject is one slot:
//!
//! | subject | holds |
//! |---|---|
//! | `P.store.rec.<key>` | a record's first chunk, its summary and chunk count in headers; a deletion marker when the key was deleted |
//! | `P.store.part.<key>.<i>` | chunk `i` (from 1) of a record longer than one message |
//! | `P.store.meta.n<hex>` | a named state record; the name's UTF-8 bytes in hex |
//! | `P.store.lock` | the owner record of the gateway holding the stream; every batch ends with it |
//! | `P.store.member.<n>` | with several gateways on the stream: member `n`'s record; every batch of that member ends with it |
//! | `P.store.lease.<key>` | with several gateways: the claim of the gateway that got record `<key>`, expiring by itself (`Nats-TTL`) |
//!
//! The owner (a member) answers liveness requests on `P.owner.<id>`,
//! outside the stream; every member also answers on `P.owner.shared`.

/// Marks a deleted record or chunk: present (`1`) on a deletion marker.
pub const DELETED: &str = "Mqgate-Deleted";
/// A record's summary (`Batch::summaries`), base64; absent when empty.
pub const SUMMARY: &str = "Mqgate-Summary";
/// A record's number of chunks; absent when the record is one message.
pub const CHUNKS: &str = "Mqgate-Chunks";
/// The batch a lock message ended (the owner's batch identifier).
pub const BATCH: &str = "Mqgate-Batch";

/// The member a claim (lease record) belongs to.
pub const MEMBER: &str = "Mqgate-Member";

/// Seconds a deletion marker stays in the stream before the server removes
/// it (`Nats-TTL`); the subject is empty afterwards, which means the same.
pub const DELETED_TTL: &str = "1s";

/// The lifetime of a record's deletion marker on a shared stream
/// (docs/cluster.md "The shared index"): the other gateways' tails remove
/// the record from their indexes when they read the marker, so it stays
/// long enough for a tail that lags behind under load.
pub const SHARED_DELETED_TTL: &str = "60s";

/// The subjects of one stream prefix.
#[derive(Clone, Debug)]
pub struct Subjects {
    prefix: String,
}

impl Subjects {
    /// The subjects under `prefix` (checked by the configuration: letters,
    /// digits, `_` and `-`).
    pub fn new(prefix: &str) -> Subjects {
        Subjects {
            prefix: prefix.to_string(),
        }
    }

    /// The stream's name: `<prefix>_STORE`.
    pub fn stream(&self) -> String {
        format!("{}_STORE", self.prefix)
    }

    /// The stream's subject filter: `<prefix>.store.>`.
    pub fn all(&self) -> String {
        format!("{}.store.>", self.prefix)
    }

    /// The first chunk of record `key`.
    pub fn record(&self, key: u64) -> String {
        format!("{}.store.rec.{key}", self.prefix)
    }

    /// Every record's first chunk: `<prefix>.store.rec.*`.
    pub fn records(&self) -> String {
        format!("{}.store.rec.*", self.prefix)
    }

    /// Chunk `i` (from 1) of record `key`.
    pub fn part(&self, key: u64, i: u32) -> String {
        format!("{}.store.part.{key}.{i}", self.prefix)
    }

    /// Every continuation chunk: `<prefix>.store.part.*.*`.
    pub fn parts(&self) -> String {
        format!("{}.store.part.*.*", self.prefix)
    }

    /// The named state record `name`.
    pub fn meta(&self, name: &str) -> String {
        format!("{}.store.meta.n{}", self.prefix, hex::encode(name))
    }

    /// Every named state record.
    pub fn metas(&self) -> String {
        format!("{}.store.meta.*", self.prefix)
    }

    /// The owner record.
    pub fn lock(&self) -> String {
        format!("{}.store.lock", self.prefix)
    }

    /// The liveness subject of the owner `id`.
    pub fn owner(&self, id: &str) -> String {
        format!("{}.owner.{id}", self.prefix)
    }

    /// The record of member `n` (several gateways on the stream).
    pub fn member(&self, n: u16) -> String {
        format!("{}.store.member.{n}", self.prefix)
    }

    /// The claim on record `key` (its lease record).
    pub fn lease(&self, key: u64) -> String {
        format!("{}.store.lease.{key}", self.prefix)
    }

    /// The liveness subject every member of a shared stream answers on.
    pub fn shared_owner(&self) -> String {
        format!("{}.owner.shared", self.prefix)
    }

    /// The key of a lease subject, `None` for any other subject.
    pub fn key_of_lease(&self, subject: &str) -> Option<u64> {
        let rest = subject.strip_prefix(&self.prefix)?;
        rest.strip_prefix(".store.lease.")?.parse().ok()
    }

    /// The key of a record subject, `None` for any other subject.
    pub fn key_of_record(&self, subject: &str) -> Option<u64> {
        let rest = subject.strip_prefix(&self.prefix)?;
        rest.strip_prefix(".store.rec.")?.parse().ok()
    }

    /// (key, chunk) of a continuation subject.
    pub fn key_of_part(&self, subject: &str) -> Option<(u64, u32)> {
        let rest = subject.strip_prefix(&self.prefix)?;
        let (key, i) = rest.strip_prefix(".store.part.")?.split_once('.')?;
        Some((key.parse().ok()?, i.parse().ok()?))
    }

    /// The name of a meta subject; `None` when it is not one or its name
    /// is not hex of UTF-8.
    pub fn name_of_meta(&self, subject: &str) -> Option<String> {
        let rest = subject.strip_prefix(&self.prefix)?;
        let hex_name = rest.strip_prefix(".store.meta.n")?;
        String::from_utf8(hex::decode(hex_name).ok()?).ok()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn subjects_round_trip_keys_chunks_and_names() {
        let s = Subjects::new("GW1");
        assert_eq!(s.stream(), "GW1_STORE");
        assert_eq!(s.record(u64::MAX), "GW1.store.rec.18446744073709551615");
        assert_eq!(s.key_of_record(&s.record(u64::MAX)), Some(u64::MAX));
        assert_eq!(s.key_of_record(&s.record(0)), Some(0));
        assert_eq!(s.key_of_part(&s.part(7, 3)), Some((7, 3)));
        // "channel/A" in UTF-8 hex; an empty name is a valid token too.
        assert_eq!(s.meta("channel/A"), "GW1.store.meta.n6368616e6e656c2f41");
        assert_eq!(
            s.name_of_meta(&s.meta("channel/A")).as_deref(),
            Some("channel/A")
        );
        assert_eq!(s.name_of_meta(&s.meta("")).as_deref(), Some(""));
        assert_eq!(s.key_of_record("GW1.store.meta.n41"), None);
        assert_eq!(s.key_of_record("GW10.store.rec.1"), None);
        assert_eq!(s.member(3), "GW1.store.member.3");
        assert_eq!(s.lease(42), "GW1.store.lease.42");
        assert_eq!(s.key_of_lease(&s.lease(u64::MAX)), Some(u64::MAX));
        assert_eq!(s.key_of_lease(&s.record(5)), None);
        assert_eq!(s.shared_owner(), "GW1.owner.shared");
    }
}

//! The store conformance suite: the [`Store`] contract (src/store/mod.rs) as
//! tests that every backend must pass. Compiled for tests only.
//!
//! Every function takes `open`, the backend's factory: it opens (or reopens)
//! the backend's store in a data directory and panics when it cannot. A
//! function "reopens" by dropping every handle it holds and calling `open`
//! again on the same directory, so a backend must release the directory when
//! its last handle is dropped. A backend runs each function from one
//! `#[test]` (src/store/redb_conformance.rs,
//! src/store/jetstream/conformance_tests.rs).
//!
//! | function | proves |
//! |---|---|
//! | [`records::batch_and_meta_survive_reopen_together`] | a batch's puts, deletes and meta are all there after reopening; meta-only and empty batches |
//! | [`records::load_is_in_key_order_with_overwrite_and_delete_rules`] | key and name order, the whole `u64` range, last put wins, put then delete in one batch, missing deletes, empty records |
//! | [`records::grouped_records_survive_partial_deletes_across_reopen`] | large groups of new records (redb segments, split above 16 MiB) deleted and overwritten piecemeal across reopenings |
//! | [`records::random_histories_match_a_plain_map`] | any mix of groups, overwrites, deletes and reopenings loads exactly what a `BTreeMap` holds |
//! | [`records::concurrent_applies_are_each_kept`] | batches applied from several threads at once are all kept, none mixed |
//! | [`crash::queue_manager_crash_at_every_store_write`] | a fault injected at the Nth apply (then nothing more written, as in a crash): the failing call reports 2056 / 2102 / 2003, and after a restart exactly the acknowledged work is there |
//! | [`crash::kill_9_leaves_every_batch_whole_or_absent`] | a child process applying batches is SIGKILLed at random points: after reopening every batch is entirely present or absent, and every batch it reported durable is present |
//! | [`queue_manager::leases_and_backouts_survive_a_restart`] | an uncommitted lease's message is back in its place after a restart (the lease and its token are not), committed gets stay gone, BackoutCount stored by backout survives |

pub mod crash;
pub mod queue_manager;
pub mod records;

use super::{Batch, Store};
use std::collections::BTreeMap;

/// What a store must hold: the records and meta of every batch applied, by
/// the contract's rules (puts in order, then deletes, then meta).
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Model {
    /// Key -> record.
    pub records: BTreeMap<u64, Vec<u8>>,
    /// Name -> meta record.
    pub meta: BTreeMap<String, Vec<u8>>,
    /// Key -> summary (empty for a record put without one).
    pub summaries: BTreeMap<u64, Vec<u8>>,
}

impl Model {
    /// Applies `batch` as the contract says a store does.
    pub fn apply(&mut self, batch: &Batch) {
        let summary_of: BTreeMap<u64, &Vec<u8>> =
            batch.summaries.iter().map(|(k, v)| (*k, v)).collect();
        for (k, v) in &batch.puts {
            self.records.insert(*k, v.clone());
            let summary = summary_of.get(k).map(|v| v.to_vec()).unwrap_or_default();
            self.summaries.insert(*k, summary);
        }
        for k in &batch.deletes {
            self.records.remove(k);
            self.summaries.remove(k);
        }
        for (n, v) in &batch.meta {
            self.meta.insert(n.clone(), v.clone());
        }
    }

    /// Panics unless `store` loads exactly this model, in order; `when` says
    /// at which point of the test.
    pub fn assert_loaded(&self, store: &dyn Store, when: &str) {
        let records = store
            .load()
            .unwrap_or_else(|e| panic!("{when}: load failed: {e}"));
        let want: Vec<(u64, Vec<u8>)> = self.records.clone().into_iter().collect();
        if records != want {
            let keys = |v: &[(u64, Vec<u8>)]| v.iter().map(|(k, _)| *k).collect::<Vec<_>>();
            panic!(
                "{when}: load returned keys {:?}, the model holds {:?} (or a record differs)",
                keys(&records),
                keys(&want)
            );
        }
        let meta = store
            .load_meta()
            .unwrap_or_else(|e| panic!("{when}: load_meta failed: {e}"));
        let want: Vec<(String, Vec<u8>)> = self.meta.clone().into_iter().collect();
        assert_eq!(meta, want, "{when}: load_meta");
        if let Err(e) = self.check_index(store) {
            panic!("{when}: {e}");
        }
    }

    /// `Err` naming the first difference unless `store`'s summaries
    /// ([`Store::load_index`], and [`Store::load_index_parts`] once its
    /// parts are put in key order) are this model's and [`Store::read`] returns
    /// each record of the model, and nothing for a key next to them that it
    /// does not hold.
    pub fn check_index(&self, store: &dyn Store) -> Result<(), String> {
        let index = store
            .load_index()
            .map_err(|e| format!("load_index failed: {e}"))?
            .to_vec();
        let want: Vec<(u64, Vec<u8>)> = self.summaries.clone().into_iter().collect();
        if index != want {
            return Err(format!(
                "load_index returned {index:?}, the model holds {want:?}"
            ));
        }
        let mut expected = Vec::new();
        let mut parts = Vec::new();
        store
            .load_index_parts(&mut |part| match part {
                crate::store::IndexPart::Expect(n) => expected.push(n),
                crate::store::IndexPart::Summaries(s) => parts.extend(s.to_vec()),
            })
            .map_err(|e| format!("load_index_parts failed: {e}"))?;
        parts.sort();
        if expected != [want.len()] || parts != want {
            return Err(format!(
                "load_index_parts expected {expected:?} keys and returned {parts:?}, the model holds {want:?}"
            ));
        }
        for (k, v) in &self.records {
            let got = store
                .read(*k)
                .map_err(|e| format!("read {k} failed: {e}"))?;
            if got.as_ref() != Some(v) {
                return Err(format!("read {k} returned {got:?}, the model holds {v:?}"));
            }
            for near in [k.wrapping_sub(1), k.wrapping_add(1)] {
                if self.records.contains_key(&near) {
                    continue;
                }
                let got = store
                    .read(near)
                    .map_err(|e| format!("read {near} failed: {e}"))?;
                if got.is_some() {
                    return Err(format!(
                        "read {near} returned {got:?}; the model holds no such key"
                    ));
                }
            }
        }
        Ok(())
    }
}

/// A deterministic record for `key` in version `version`, `len` bytes long
/// (at least the text naming both, so a misplaced record is recognisable).
pub fn record(key: u64, version: u64, len: usize) -> Vec<u8> {
    let mut r = format!("key {key} version {version};").into_bytes();
    let fill = (key.wrapping_mul(31) ^ version) as u8;
    r.resize(len.max(r.len()), fill);
    r
}

/// xorshift64: random choices that a printed seed reproduces.
pub struct Rng(pub u64);

impl Rng {
    /// Seeded from the clock (never zero).
    pub fn from_clock() -> Rng {
        let nanos = std::time::SystemTime::now()
            .duration_since(std::time::UNIX_EPOCH)
            .map_or(1, |d| d.as_nanos() as u64);
        Rng(nanos | 1)
    }

    /// A number in `0..n` (`n` > 0).
    pub fn below(&mut self, n: u64) -> u64 {
        self.0 ^= self.0 << 13;
        self.0 ^= self.0 >> 7;
        self.0 ^= self.0 << 17;
        self.0 % n
    }
}

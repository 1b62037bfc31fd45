//! Records and meta: atomic batches, order, overwrite and delete rules,
//! grouped records, random histories and concurrent writers.

use super::{Model, record};
use crate::store::{Batch, Store};
use proptest::prelude::*;
use std::path::Path;
use std::sync::Arc;

fn batch(puts: Vec<(u64, Vec<u8>)>, deletes: Vec<u64>, meta: Vec<(&str, &[u8])>) -> Batch {
    Batch {
        puts,
        deletes,
        meta: meta
            .into_iter()
            .map(|(n, v)| (n.to_string(), v.to_vec()))
            .collect(),
        summaries: Vec::new(),
    }
}

fn apply(store: &dyn Store, model: &mut Model, b: &Batch, what: &str) {
    store
        .apply(b)
        .unwrap_or_else(|e| panic!("{what}: apply failed: {e}"));
    model.apply(b);
}

/// A batch's puts, deletes and meta are all there after reopening; a batch of
/// meta alone (a sender channel's in-flight batch) and an empty batch are
/// allowed. The expected values are the model's (the contract's rules).
pub fn batch_and_meta_survive_reopen_together<F: Fn(&Path) -> Arc<dyn Store>>(open: F) {
    let dir = tempfile::tempdir().expect("temporary directory");
    let mut model = Model::default();
    {
        let s = open(dir.path());
        let first = batch(
            vec![
                (1, b"one".to_vec()),
                (2, b"two".to_vec()),
                (3, b"three".to_vec()),
            ],
            vec![],
            vec![("channel/A", b"6")],
        );
        apply(&*s, &mut model, &first, "first batch");
        let second = batch(
            vec![(2, b"TWO".to_vec())],
            vec![1, 99],
            vec![("channel/A", b"7"), ("channel/B", b"1")],
        );
        apply(&*s, &mut model, &second, "second batch");
        model.assert_loaded(&*s, "before reopening");
    }
    // The expected state spelled out, so a wrong model cannot hide a bug.
    assert_eq!(
        model.records.clone().into_iter().collect::<Vec<_>>(),
        vec![(2, b"TWO".to_vec()), (3, b"three".to_vec())]
    );
    let s = open(dir.path());
    model.assert_loaded(&*s, "after reopening");
    let meta_only = batch(vec![], vec![], vec![("channel/B", b"2")]);
    apply(&*s, &mut model, &meta_only, "meta-only batch");
    apply(&*s, &mut model, &Batch::default(), "empty batch");
    drop(s);
    let s = open(dir.path());
    model.assert_loaded(&*s, "after the meta-only and empty batches");
    assert_eq!(
        s.load_meta().expect("load_meta"),
        vec![
            ("channel/A".to_string(), b"7".to_vec()),
            ("channel/B".to_string(), b"2".to_vec())
        ]
    );
}

/// `load` returns keys in ascending order and `load_meta` names in order,
/// whatever the order of the puts; keys 0 and `u64::MAX` are ordinary; the
/// last put of a key wins (in one batch or across batches); a key put and
/// deleted by one batch is gone; deleting a missing key is fine; an empty
/// record stays empty.
pub fn load_is_in_key_order_with_overwrite_and_delete_rules<F: Fn(&Path) -> Arc<dyn Store>>(
    open: F,
) {
    let dir = tempfile::tempdir().expect("temporary directory");
    let mut model = Model::default();
    {
        let s = open(dir.path());
        // Enough new keys for a group (redb: a segment), out of order.
        let keys = [5, 0, u64::MAX, 3, 13, 11, 12, 10];
        let mut puts: Vec<(u64, Vec<u8>)> = keys.iter().map(|&k| (k, record(k, 1, 40))).collect();
        puts.push((5, b"5, put twice".to_vec()));
        let first = batch(puts, vec![], vec![("b", b"2"), ("a", b"1"), ("c", b"3")]);
        apply(&*s, &mut model, &first, "out-of-order batch");
        let second = batch(
            vec![
                (7, b"put and deleted".to_vec()),
                (3, b"3, second version".to_vec()),
                (8, Vec::new()),
                (u64::MAX, b"max, second version".to_vec()),
            ],
            vec![7, 42, 11],
            vec![("a", b"one")],
        );
        apply(&*s, &mut model, &second, "overwrite and delete batch");
        model.assert_loaded(&*s, "before reopening");
    }
    let want_keys = vec![0, 3, 5, 8, 10, 12, 13, u64::MAX];
    assert_eq!(model.records.keys().copied().collect::<Vec<_>>(), want_keys);
    let s = open(dir.path());
    model.assert_loaded(&*s, "after reopening");
    let loaded = s.load().expect("load");
    assert_eq!(loaded[2], (5, b"5, put twice".to_vec()));
    assert_eq!(loaded[3], (8, Vec::new()));
    let names: Vec<String> = s
        .load_meta()
        .expect("load_meta")
        .into_iter()
        .map(|(n, _)| n)
        .collect();
    assert_eq!(names, ["a", "b", "c"]);
}

/// Large groups of new records (written by redb as segments, split above
/// 16 MiB) survive partial deletes, overwrites and reopenings between them,
/// until the last record goes.
pub fn grouped_records_survive_partial_deletes_across_reopen<F: Fn(&Path) -> Arc<dyn Store>>(
    open: F,
) {
    let dir = tempfile::tempdir().expect("temporary directory");
    let mut model = Model::default();
    let reopen_check = |model: &Model, when: &str| {
        let s = open(dir.path());
        model.assert_loaded(&*s, when);
        s
    };
    {
        let s = open(dir.path());
        let small: Vec<_> = (1..=40)
            .map(|k| (k, record(k, 1, (k as usize * 97) % 3000)))
            .collect();
        apply(
            &*s,
            &mut model,
            &batch(small, vec![], vec![]),
            "40 small records",
        );
        // 17 records of 1 MiB: more than one 16 MiB segment.
        let large: Vec<_> = (41..=57).map(|k| (k, record(k, 1, 1 << 20))).collect();
        apply(
            &*s,
            &mut model,
            &batch(large, vec![], vec![]),
            "17 MiB of records",
        );
    }
    {
        let s = reopen_check(&model, "after the groups");
        let every_third: Vec<u64> = (1..=57).filter(|k| k % 3 == 0).collect();
        let mut puts = vec![(2, record(2, 2, 10)), (50, record(50, 2, 10))];
        puts.extend((58..=62).map(|k| (k, record(k, 1, 200))));
        let b = batch(puts, every_third, vec![("progress", b"partial")]);
        apply(
            &*s,
            &mut model,
            &b,
            "partial delete with overwrites and new records",
        );
    }
    {
        let s = reopen_check(&model, "after the partial delete");
        let rest_of_first: Vec<u64> = (2..=40).collect();
        apply(
            &*s,
            &mut model,
            &batch(vec![], rest_of_first, vec![]),
            "delete the first group but key 1",
        );
    }
    {
        let s = reopen_check(&model, "after deleting most of the first group");
        let all: Vec<u64> = model.records.keys().copied().collect();
        apply(
            &*s,
            &mut model,
            &batch(vec![], all, vec![]),
            "delete everything",
        );
    }
    {
        let s = reopen_check(&model, "after deleting everything");
        assert!(s.load().expect("load").is_empty());
        let again: Vec<_> = (63..=70).map(|k| (k, record(k, 1, 500))).collect();
        apply(
            &*s,
            &mut model,
            &batch(again, vec![], vec![]),
            "a new group after an empty store",
        );
    }
    reopen_check(&model, "at the end");
}

/// One step of a random history.
#[derive(Debug, Clone)]
enum Op {
    /// `n` new records in one batch, `size` bytes each.
    Put(usize, usize),
    /// Overwrite the record at this position of the live keys.
    Overwrite(usize),
    /// Delete `n` live records from this position.
    Delete(usize, usize),
    /// New records and a delete in one batch.
    Mixed(usize, usize),
    Reopen,
}

fn op() -> impl Strategy<Value = Op> {
    prop_oneof![
        (0usize..12, 1usize..3000).prop_map(|(n, s)| Op::Put(n, s)),
        any::<usize>().prop_map(Op::Overwrite),
        (any::<usize>(), 0usize..8).prop_map(|(i, n)| Op::Delete(i, n)),
        (0usize..8, any::<usize>()).prop_map(|(n, i)| Op::Mixed(n, i)),
        Just(Op::Reopen),
    ]
}

/// Whatever mix of grouped and single records, overwrites, deletes and
/// reopenings (24 random histories of up to 24 steps): `load` returns exactly
/// what a plain map holds.
pub fn random_histories_match_a_plain_map<F: Fn(&Path) -> Arc<dyn Store>>(open: F) {
    let config = ProptestConfig {
        cases: 24,
        // The suite runs for any backend: no regression file of its own.
        failure_persistence: None,
        ..ProptestConfig::default()
    };
    let mut runner = proptest::test_runner::TestRunner::new(config);
    let histories = proptest::collection::vec(op(), 1..24);
    let result = runner.run(&histories, |ops| {
        let dir = tempfile::tempdir().expect("temporary directory");
        let mut s = open(dir.path());
        let mut model = Model::default();
        let mut next = 1u64;
        let mut version = 0u8;
        for op in ops {
            let live: Vec<u64> = model.records.keys().copied().collect();
            let mut b = Batch::default();
            // Every other new key has a summary; groups of an even size
            // are put in descending key order.
            let mut fresh = |n: usize, size: usize, b: &mut Batch| {
                for _ in 0..n {
                    b.puts.push((next, vec![next as u8; size]));
                    if next % 2 == 1 {
                        b.summaries
                            .push((next, format!("summary {next}").into_bytes()));
                    }
                    next += 1;
                }
                if n.is_multiple_of(2) {
                    b.puts.reverse();
                }
            };
            match op {
                Op::Put(n, size) => fresh(n, size, &mut b),
                Op::Overwrite(i) if !live.is_empty() => {
                    version = version.wrapping_add(1);
                    b.puts.push((live[i % live.len()], vec![version; 7]));
                }
                Op::Delete(i, n) if !live.is_empty() => {
                    b.deletes.extend(live.iter().skip(i % live.len()).take(n));
                }
                Op::Mixed(n, i) => {
                    fresh(n, 100, &mut b);
                    if !live.is_empty() {
                        b.deletes.push(live[i % live.len()]);
                    }
                }
                Op::Reopen => {
                    drop(s);
                    s = open(dir.path());
                    let want: Vec<_> = model.records.clone().into_iter().collect();
                    prop_assert_eq!(s.load().expect("load"), want);
                    prop_assert_eq!(model.check_index(&*s), Ok(()));
                    continue;
                }
                _ => continue,
            }
            s.apply(&b).expect("apply");
            model.apply(&b);
        }
        prop_assert_eq!(model.check_index(&*s), Ok(()));
        drop(s);
        let s = open(dir.path());
        prop_assert_eq!(model.check_index(&*s), Ok(()));
        let want: Vec<_> = model.records.into_iter().collect();
        prop_assert_eq!(s.load().expect("load"), want);
        Ok(())
    });
    if let Err(e) = result {
        panic!("{e}");
    }
}

/// Batches applied from four threads at once (20 each, every one a group
/// with a delete of the thread's previous group's first key) are all kept:
/// after reopening the store holds exactly the union.
pub fn concurrent_applies_are_each_kept<F: Fn(&Path) -> Arc<dyn Store>>(open: F) {
    const THREADS: u64 = 4;
    const BATCHES: u64 = 20;
    let dir = tempfile::tempdir().expect("temporary directory");
    let key = |t: u64, i: u64, j: u64| t * 10_000 + i * 10 + j;
    let thread_batch = |t: u64, i: u64| Batch {
        puts: (0..5)
            .map(|j| (key(t, i, j), record(key(t, i, j), t, 64)))
            .collect(),
        deletes: if i > 0 {
            vec![key(t, i - 1, 0)]
        } else {
            vec![]
        },
        meta: vec![(format!("thread/{t}"), i.to_be_bytes().to_vec())],
        summaries: vec![(key(t, i, 0), vec![t as u8])],
    };
    {
        let s = open(dir.path());
        std::thread::scope(|scope| {
            for t in 0..THREADS {
                let s = Arc::clone(&s);
                scope.spawn(move || {
                    for i in 0..BATCHES {
                        s.apply(&thread_batch(t, i))
                            .unwrap_or_else(|e| panic!("thread {t} batch {i}: {e}"));
                    }
                });
            }
        });
    }
    // Each thread's batches in its own order; threads touch disjoint keys.
    let mut model = Model::default();
    for t in 0..THREADS {
        for i in 0..BATCHES {
            model.apply(&thread_batch(t, i));
        }
    }
    assert_eq!(
        model.records.len() as u64,
        THREADS * (BATCHES * 5 - (BATCHES - 1))
    );
    let s = open(dir.path());
    model.assert_loaded(&*s, "after the concurrent writers");
}

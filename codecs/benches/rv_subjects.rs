//! Rendezvous interest index at 1,000,000 subscriptions (docs/performance.md
//! "Rendezvous subjects"): subscriber lookups per second, and the heap bytes
//! the index holds per subscription, counted by this benchmark's allocator.
//! Also the subject check (send mode) of the looked-up subjects, per
//! subject.
//!
//! Run: cargo bench -p mqgate-codecs --bench rv_subjects -- --warm-up-time 1 --measurement-time 3
//!
//! The subscriptions, each from its own subscriber, are the market-data mix
//! of `mqgate_codecs::rv::workload` (the one `mqgate bench rv --matching`
//! uses): `MD.<region>.<venue>.<symbol>.<field>`, 80 % literal, 10 % with
//! `*`, 10 % with `>`.
//!
//! Lookups are 1,000 literal subjects per iteration: half are subjects of
//! literal subscriptions, half drawn from the whole space. Each finds the
//! literal, `*` and `>` subscribers of its symbol (mostly none or one each)
//! and the about ten whole-feed subscribers of its region and venue.

use std::hint::black_box;
use std::time::Instant;

use criterion::{Criterion, Throughput, criterion_group, criterion_main};
use mqgate_codecs::rv::{InterestIndex, MarketDataMix, Mode, Subject};

#[path = "common/counting_alloc.rs"]
mod counting_alloc;

const SUBSCRIPTIONS: u64 = 1_000_000;
const LOOKUPS: usize = 1_000;

fn benches(c: &mut Criterion) {
    let mut mix = MarketDataMix::new();
    let patterns = mix.patterns(SUBSCRIPTIONS as usize);
    let before = counting_alloc::live();
    let started = Instant::now();
    let mut index = InterestIndex::new();
    for (id, p) in patterns.iter().enumerate() {
        let p = Subject::parse(p, Mode::Listen).expect("generated patterns are valid");
        index.insert(&p, id as u64);
    }
    let built = started.elapsed();
    let bytes = counting_alloc::live() - before;
    assert_eq!(index.len(), SUBSCRIPTIONS as usize);
    eprintln!(
        "rv_subjects: {} subscriptions inserted in {:.2} s; index heap {} bytes, {:.1} bytes/subscription",
        index.len(),
        built.as_secs_f64(),
        bytes,
        bytes as f64 / SUBSCRIPTIONS as f64
    );

    let subjects = mix.lookup_subjects(&patterns, LOOKUPS);
    drop(patterns);
    let checked: Vec<Subject<'_>> = subjects
        .iter()
        .map(|s| Subject::parse(s, Mode::Send).expect("generated subjects are valid"))
        .collect();
    let found: usize = checked.iter().map(|s| index.lookup(s).len()).sum();
    eprintln!(
        "rv_subjects: {:.1} subscribers per lookup on average",
        found as f64 / LOOKUPS as f64
    );

    let mut group = c.benchmark_group("rv_interest_1M");
    group.throughput(Throughput::Elements(LOOKUPS as u64));
    let mut out = Vec::new();
    group.bench_function("lookup", |b| {
        b.iter(|| {
            let mut n = 0;
            for s in &checked {
                index.lookup_into(black_box(s), &mut out);
                n += out.len();
            }
            n
        })
    });
    group.bench_function("has_interest", |b| {
        b.iter(|| {
            checked
                .iter()
                .filter(|s| index.has_interest(black_box(s)))
                .count()
        })
    });
    group.bench_function("check_send_subject", |b| {
        b.iter(|| {
            subjects
                .iter()
                .filter(|s| Subject::parse(black_box(s), Mode::Send).is_ok())
                .count()
        })
    });
    group.finish();
}

criterion_group!(rv, benches);
criterion_main!(rv);

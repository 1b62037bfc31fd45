//! Rendezvous interest index at 1,000,000 subscriptions (docs/performance.md
//! "Rendezvous subjects"): subscriber lookups per second, and the heap bytes
//! the index holds per subscription, counted by this benchmark's allocator.
//! Also the subject check (send mode) of the looked-up subjects, per
//! subject.
//!
//! Run: cargo bench -p mqgate-codecs --bench rv_subjects -- --warm-up-time 1 --measurement-time 3
//!
//! The subscriptions, each from its own subscriber, in a market-data subject
//! space `MD.<region>.<venue>.<symbol>.<field>` of 10 regions x 100 venues x
//! 10,000 symbols x 10 fields, chosen with a fixed-seed generator:
//! - 80 % literal: `MD.R3.V41.S5077.F2`;
//! - 5 % `MD.R3.*.S5077.F2` and 5 % `MD.R3.V41.S5077.*`;
//! - 9 % `MD.R3.V41.S5077.>` and 1 % `MD.R3.V41.>` (a venue's whole feed).
//!
//! Lookups are 1,000 literal subjects per iteration: half are subjects of
//! literal subscriptions, half drawn from the whole space. Each finds the
//! literal, `*` and `>` subscribers of its symbol (mostly none or one each)
//! and the about ten whole-feed subscribers of its region and venue.

use std::alloc::{GlobalAlloc, Layout, System};
use std::hint::black_box;
use std::sync::atomic::{AtomicIsize, Ordering};
use std::time::Instant;

use criterion::{Criterion, Throughput, criterion_group, criterion_main};
use mqgate_codecs::rv::{InterestIndex, Mode, Subject};

/// The system allocator, counting the bytes live.
struct Counting;

static LIVE: AtomicIsize = AtomicIsize::new(0);

// SAFETY: every call is passed to `System` unchanged; only a counter is added.
unsafe impl GlobalAlloc for Counting {
    unsafe fn alloc(&self, layout: Layout) -> *mut u8 {
        LIVE.fetch_add(layout.size() as isize, Ordering::Relaxed);
        // SAFETY: the caller's contract for `alloc` is `System::alloc`'s.
        unsafe { System.alloc(layout) }
    }
    unsafe fn dealloc(&self, ptr: *mut u8, layout: Layout) {
        LIVE.fetch_sub(layout.size() as isize, Ordering::Relaxed);
        // SAFETY: `ptr` came from `alloc` with this layout.
        unsafe { System.dealloc(ptr, layout) }
    }
    unsafe fn realloc(&self, ptr: *mut u8, layout: Layout, new_size: usize) -> *mut u8 {
        LIVE.fetch_add(
            new_size as isize - layout.size() as isize,
            Ordering::Relaxed,
        );
        // SAFETY: the caller's contract for `realloc` is `System::realloc`'s.
        unsafe { System.realloc(ptr, layout, new_size) }
    }
}

#[global_allocator]
static ALLOCATOR: Counting = Counting;

const SUBSCRIPTIONS: u64 = 1_000_000;
const LOOKUPS: usize = 1_000;

/// xorshift64: a fixed sequence, the same in every run.
struct Rng(u64);

impl Rng {
    fn below(&mut self, n: u64) -> u64 {
        self.0 ^= self.0 << 13;
        self.0 ^= self.0 >> 7;
        self.0 ^= self.0 << 17;
        self.0 % n
    }
}

/// Region, venue, symbol and field of a subject.
fn coordinates(rng: &mut Rng) -> (u64, u64, u64, u64) {
    (
        rng.below(10),
        rng.below(100),
        rng.below(10_000),
        rng.below(10),
    )
}

fn pattern(rng: &mut Rng) -> String {
    let (r, v, s, f) = coordinates(rng);
    match rng.below(100) {
        0..5 => format!("MD.R{r}.*.S{s}.F{f}"),
        5..10 => format!("MD.R{r}.V{v}.S{s}.*"),
        10..19 => format!("MD.R{r}.V{v}.S{s}.>"),
        19 => format!("MD.R{r}.V{v}.>"),
        _ => format!("MD.R{r}.V{v}.S{s}.F{f}"),
    }
}

fn benches(c: &mut Criterion) {
    let mut rng = Rng(0x9E37_79B9_7F4A_7C15);
    let patterns: Vec<String> = (0..SUBSCRIPTIONS).map(|_| pattern(&mut rng)).collect();
    let before = LIVE.load(Ordering::Relaxed);
    let started = Instant::now();
    let mut index = InterestIndex::new();
    for (id, p) in patterns.iter().enumerate() {
        let p = Subject::parse(p, Mode::Listen).expect("generated patterns are valid");
        index.insert(&p, id as u64);
    }
    let built = started.elapsed();
    let bytes = LIVE.load(Ordering::Relaxed) - before;
    assert_eq!(index.len(), SUBSCRIPTIONS as usize);
    eprintln!(
        "rv_subjects: {} subscriptions inserted in {:.2} s; index heap {} bytes, {:.1} bytes/subscription",
        index.len(),
        built.as_secs_f64(),
        bytes,
        bytes as f64 / SUBSCRIPTIONS as f64
    );

    let literal: Vec<&String> = patterns
        .iter()
        .filter(|p| !p.contains(['*', '>']))
        .collect();
    let subjects: Vec<String> = (0..LOOKUPS)
        .map(|i| {
            if i % 2 == 0 {
                literal[rng.below(literal.len() as u64) as usize].clone()
            } else {
                let (r, v, s, f) = coordinates(&mut rng);
                format!("MD.R{r}.V{v}.S{s}.F{f}")
            }
        })
        .collect();
    drop(literal);
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

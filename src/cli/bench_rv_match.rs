//! `mqgate bench rv --matching`: subject matching — the subject bus's
//! interest index (docs/rendezvous.md "Interest index") holding
//! `--subscriptions` subscriptions of the market-data mix of
//! `mqgate_codecs::rv::workload` (literal, `*`, `>`; the mix of the
//! criterion benchmark `rv_subjects`), next to nats-server holding the first
//! `--reference-subscriptions` of them on one connection and publishing
//! lookup subjects with core NATS, and mqgate's index holding the same
//! subscriptions, in the same run. Results: docs/performance.md "Rendezvous
//! subjects".
//!
//! A lookup is what the bus does with a published subject: the send-mode
//! subject check and `InterestIndex::lookup_into` into a reused buffer.
//! Memory per subscription is given two ways: the heap the index holds
//! counted from its structure (`InterestIndex::heap_bytes`, bytes asked of
//! the allocator), and this process's resident memory growth while the
//! index was built (Linux VmRSS, so the allocator's overhead included), the
//! measure nats-server's figure is taken with.

use std::hint::black_box;
use std::time::{Duration, Instant};

use mqgate_codecs::rv::{InterestIndex, MarketDataMix, Mode, Subject};

use super::bench::vm_rss;
use super::bench_rv::RvBenchArgs;

/// One index's figures.
pub(super) struct IndexResult {
    subscriptions: usize,
    /// Time to check and insert every subscription.
    build: Duration,
    /// Lookups per second.
    rate: f64,
    /// Heap bytes per subscription, counted from the structure.
    heap: f64,
    /// Resident memory growth per subscription while building, in bytes.
    rss: f64,
    /// Subscribers found over all lookups.
    pub(super) found: usize,
}

/// nats-server's figures with the reference subscriptions.
pub(super) struct NatsMatching {
    /// Time to subscribe every pattern on one connection, to the flush.
    pub(super) subscribe: Duration,
    /// Core NATS publishes per second, from the first publish to the flush,
    /// with the subscriptions held.
    pub(super) rate: f64,
    /// The same publishes with no subscription on the server.
    pub(super) rate_idle: f64,
    /// nats-server's resident memory growth per subscription, in bytes.
    pub(super) rss: f64,
}

/// An index of `patterns` (subscriber `i` holds pattern `i`) and its
/// build time and resident memory growth in bytes.
fn build(patterns: &[String]) -> Result<(InterestIndex<u64>, Duration, i64), String> {
    let before = vm_rss("self")?;
    let started = Instant::now();
    let mut index = InterestIndex::new();
    for (id, p) in patterns.iter().enumerate() {
        let p = Subject::parse(p, Mode::Listen).map_err(|e| format!("subscription {p}: {e}"))?;
        index.insert(&p, id as u64);
    }
    let took = started.elapsed();
    let grown = vm_rss("self")? as i64 - before as i64;
    Ok((index, took, grown))
}

/// Checks and looks up every subject of `subjects` once: the lookups per
/// second and the subscribers found.
fn lookups(index: &InterestIndex<u64>, subjects: &[String]) -> Result<(f64, usize), String> {
    let mut out = Vec::new();
    let mut found = 0;
    let started = Instant::now();
    for s in subjects {
        let s = Subject::parse(black_box(s), Mode::Send).map_err(|e| format!("{s}: {e}"))?;
        index.lookup_into(&s, &mut out);
        found += out.len();
    }
    let secs = started.elapsed().as_secs_f64();
    Ok((subjects.len() as f64 / secs, black_box(found)))
}

fn result(
    index: &InterestIndex<u64>,
    build: Duration,
    grown: i64,
    subjects: &[String],
) -> Result<IndexResult, String> {
    let (rate, found) = lookups(index, subjects)?;
    let n = index.len().max(1) as f64;
    Ok(IndexResult {
        subscriptions: index.len(),
        build,
        rate,
        heap: index.heap_bytes() as f64 / n,
        rss: grown as f64 / n,
        found,
    })
}

/// Runs the measures and prints a Markdown table.
pub(super) async fn bench(args: &RvBenchArgs) -> Result<(), String> {
    let (n, r, l) = (
        args.subscriptions,
        args.reference_subscriptions,
        args.lookups,
    );
    println!(
        "mqgate bench rv --matching: {n} subscriptions of the market-data mix (80 % literal, 10 % `*`, 10 % `>`), {l} lookups of literal subjects (half of them subjects of literal subscriptions); reference: nats-server with the first {r} on one connection, {l} core NATS publishes (empty payloads) of subjects chosen the same way among those {r}, and mqgate's index with the same {r} and the same subjects"
    );
    let mut mix = MarketDataMix::new();
    let patterns = mix.patterns(n.max(r));
    // The smaller index first, so that its memory comes from pages no other
    // index used before; both are held until the lookups are done.
    let (small_index, small_build, small_grown) = build(&patterns[..r])?;
    let (large_index, large_build, large_grown) = build(&patterns[..n])?;
    let large_subjects = mix.lookup_subjects(&patterns[..n], l);
    let small_subjects = mix.lookup_subjects(&patterns[..r], l);
    let large = result(&large_index, large_build, large_grown, &large_subjects)?;
    let small = result(&small_index, small_build, small_grown, &small_subjects)?;
    drop((large_index, small_index, large_subjects));

    println!();
    println!(
        "| system | subscriptions | insert / subscribe s | lookups/s (NATS: publishes/s) | subscribers found per lookup | heap bytes/subscription | RSS growth bytes/subscription |"
    );
    println!("|---|---:|---:|---:|---:|---:|---:|");
    for m in [&large, &small] {
        println!(
            "| mqgate InterestIndex (check + lookup) | {} | {:.2} | {:.0} | {:.2} | {:.1} | {:.1} |",
            m.subscriptions,
            m.build.as_secs_f64(),
            m.rate,
            m.found as f64 / l as f64,
            m.heap,
            m.rss
        );
    }
    #[cfg(feature = "nats")]
    use super::bench_nats_match::matching_reference;
    match matching_reference(
        &args.nats_server,
        &patterns[..r],
        &small_subjects,
        small.found,
    )
    .await
    {
        Ok(Some(nats)) => {
            println!(
                "| nats-server core publish | {r} | {:.2} | {:.0} | {:.2} | | {:.1} |",
                nats.subscribe.as_secs_f64(),
                nats.rate,
                small.found as f64 / l as f64,
                nats.rss
            );
            println!(
                "| nats-server core publish | 0 | | {:.0} | 0 | | |",
                nats.rate_idle
            );
            println!();
            println!(
                "ratio mqgate / nats-server at {r} subscriptions: lookups/s ÷ publishes/s {:.2}x; RSS growth per subscription {:.2}x",
                small.rate / nats.rate,
                small.rss / nats.rss
            );
        }
        Ok(None) => println!(
            "\nSKIP: reference: {} is not installed (Debian package nats-server)",
            args.nats_server
        ),
        Err(e) => println!("\nSKIP: reference: {e}"),
    }
    Ok(())
}

/// The reference needs the NATS client, built only with the `nats` feature.
#[cfg(not(feature = "nats"))]
async fn matching_reference(
    _nats_server: &str,
    _patterns: &[String],
    _subjects: &[String],
    _deliveries: usize,
) -> Result<Option<NatsMatching>, String> {
    Err("mqgate was built without the `nats` feature; measure the NATS reference with `cargo run --release --features nats -- bench rv --matching`".into())
}

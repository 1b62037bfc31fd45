//! `mqgate bench rv`: the subject bus over HTTP — messages published with
//! `POST /v1/rv/messages/{subject}` to listeners reading `GET
//! /v1/rv/listen` as Server-Sent Events, each on its own connection — next
//! to core NATS with as many subscribers, each on its own connection, in
//! the same run (the `nats` feature, on by default). Results:
//! docs/performance.md "Rendezvous subject bus". `--certified` and
//! `--matching` run the other measures of the subject bus
//! (src/cli/bench_rv_cm.rs, src/cli/bench_rv_match.rs).
//!
//! A gateway runs in this process with its HTTP API on a loopback port;
//! the listeners are threads reading their event streams line by line (as
//! `mqgate rv listen` does); the publisher is one HTTP client with a
//! keep-alive connection. Each message has a u32 field `n` (its number)
//! and an opaque field of `--size` bytes. Two scenarios: one message in
//! flight (the next is published once every listener has the previous
//! one), and back to back (each publish waits only for its HTTP answer).
//! A message's latency runs from the start of its publish to its delivery
//! to the last listener.

use std::io::BufReader;
use std::path::{Path, PathBuf};
use std::process::ExitCode;
use std::sync::atomic::{AtomicBool, AtomicU64, AtomicUsize, Ordering};
use std::sync::{Arc, Condvar, Mutex};
use std::time::{Duration, Instant};

use clap::Args;
use clap::builder::RangedU64ValueParser;

use super::bench::{ms, p99, run_async};
use super::sse::EventReader;
use crate::config::Config;
use crate::gateway::Gateway;
use crate::rv::config::LIMIT_LISTENER_QUEUE;

/// The subject published to.
const SUBJECT: &str = "BENCH.RV";
/// How long the run waits for deliveries before it fails.
const WAIT: Duration = Duration::from_secs(60);

/// Options of `mqgate bench rv`.
#[derive(Args, Debug)]
pub struct RvBenchArgs {
    /// Messages per scenario (at least 1).
    #[arg(long, default_value_t = 2000, allow_negative_numbers = true, value_parser = RangedU64ValueParser::<usize>::new().range(1..=1_000_000))]
    pub messages: usize,
    /// Listeners (NATS: subscribers), 1 to 1000, each on its own connection.
    #[arg(long, default_value_t = 100, allow_negative_numbers = true, value_parser = RangedU64ValueParser::<usize>::new().range(1..=1000))]
    pub listeners: usize,
    /// Bytes of the opaque field of each message (NATS: of the payload), 4 to 65536.
    #[arg(long, default_value_t = 256, allow_negative_numbers = true, value_parser = RangedU64ValueParser::<usize>::new().range(4..=65536))]
    pub size: usize,
    /// The nats-server program of the reference.
    #[arg(long, default_value = "nats-server")]
    pub nats_server: String,
    /// Directory for the gateway's store (a fresh subdirectory is created and removed).
    #[arg(long)]
    pub dir: Option<PathBuf>,
    /// Measure certified delivery round trips (send, delivery, confirmation) with memory and store ledgers next to JetStream acknowledged publishes, instead of fan-out (--listeners is not used).
    #[arg(long)]
    pub certified: bool,
    /// Measure subject matching instead of fan-out: mqgate's interest index holding --subscriptions subscriptions of a market-data mix (literal, `*`, `>`), then nats-server holding --reference-subscriptions of them on one connection next to mqgate's index holding the same (--messages, --listeners and --size are not used).
    #[arg(long, conflicts_with = "certified")]
    pub matching: bool,
    /// Subscriptions of mqgate's index with --matching, 1 to 10,000,000.
    #[arg(long, default_value_t = 1_000_000, allow_negative_numbers = true, value_parser = RangedU64ValueParser::<usize>::new().range(1..=10_000_000))]
    pub subscriptions: usize,
    /// Subscriptions of the reference with --matching (nats-server, and mqgate's index beside it), 1 to 1,000,000.
    #[arg(long, default_value_t = 100_000, allow_negative_numbers = true, value_parser = RangedU64ValueParser::<usize>::new().range(1..=1_000_000))]
    pub reference_subscriptions: usize,
    /// Lookups per index with --matching (nats-server: publishes), 1 to 10,000,000.
    #[arg(long, default_value_t = 1_000_000, allow_negative_numbers = true, value_parser = RangedU64ValueParser::<usize>::new().range(1..=10_000_000))]
    pub lookups: usize,
}

/// Deliveries of numbered messages to many listeners: when each message
/// reached its last listener, and how many deliveries there were.
pub(super) struct Tally {
    t0: Instant,
    /// Per message: ns after `t0` of its latest delivery.
    last: Vec<AtomicU64>,
    delivered: AtomicUsize,
    /// Deliveries a waiter waits for.
    target: AtomicUsize,
    lock: Mutex<()>,
    cond: Condvar,
    notify: tokio::sync::Notify,
    /// A listener reported lost messages (a slow consumer advisory).
    pub(super) lost: AtomicBool,
}

impl Tally {
    /// A tally of `messages` numbered messages.
    pub(super) fn new(messages: usize) -> Arc<Tally> {
        Arc::new(Tally {
            t0: Instant::now(),
            last: (0..messages).map(|_| AtomicU64::new(0)).collect(),
            delivered: AtomicUsize::new(0),
            target: AtomicUsize::new(usize::MAX),
            lock: Mutex::new(()),
            cond: Condvar::new(),
            notify: tokio::sync::Notify::new(),
            lost: AtomicBool::new(false),
        })
    }

    /// ns after the tally's start.
    pub(super) fn now(&self) -> u64 {
        self.t0.elapsed().as_nanos() as u64
    }

    /// One delivery of message `k`.
    pub(super) fn record(&self, k: usize) {
        if let Some(slot) = self.last.get(k) {
            slot.fetch_max(self.now(), Ordering::AcqRel);
        }
        let n = self.delivered.fetch_add(1, Ordering::AcqRel) + 1;
        if n >= self.target.load(Ordering::Acquire) {
            let _guard = self.lock.lock().unwrap_or_else(|p| p.into_inner());
            self.cond.notify_all();
            self.notify.notify_one();
        }
    }

    /// Waits on this thread until `count` deliveries were made.
    pub(super) fn wait_blocking(&self, count: usize) -> Result<(), String> {
        self.target.store(count, Ordering::Release);
        let deadline = Instant::now() + WAIT;
        let mut guard = self.lock.lock().unwrap_or_else(|p| p.into_inner());
        while self.delivered.load(Ordering::Acquire) < count {
            let left = deadline.saturating_duration_since(Instant::now());
            if left.is_zero() || self.lost.load(Ordering::Acquire) {
                return Err(self.shortfall(count));
            }
            guard = self
                .cond
                .wait_timeout(guard, left.min(Duration::from_millis(100)))
                .unwrap_or_else(|p| p.into_inner())
                .0;
        }
        Ok(())
    }

    /// Waits in a task until `count` deliveries were made.
    #[cfg(feature = "nats")]
    pub(super) async fn wait_async(&self, count: usize) -> Result<(), String> {
        self.target.store(count, Ordering::Release);
        let deadline = tokio::time::Instant::now() + WAIT;
        while self.delivered.load(Ordering::Acquire) < count {
            if tokio::time::timeout_at(deadline, self.notify.notified())
                .await
                .is_err()
            {
                return Err(self.shortfall(count));
            }
        }
        Ok(())
    }

    fn shortfall(&self, count: usize) -> String {
        let lost = if self.lost.load(Ordering::Acquire) {
            " (a listener lost messages: slow consumer)"
        } else {
            ""
        };
        format!(
            "{} of {count} deliveries after {} s{lost}",
            self.delivered.load(Ordering::Acquire),
            WAIT.as_secs()
        )
    }

    /// ns after the start of the latest delivery of messages `range`.
    pub(super) fn last_of(&self, range: std::ops::Range<usize>) -> Option<u64> {
        range.map(|k| self.last[k].load(Ordering::Acquire)).max()
    }

    /// The latency of messages `range`, each published at `published[i]`
    /// (ns after the start, in the order of `range`).
    pub(super) fn latencies(
        &self,
        range: std::ops::Range<usize>,
        published: &[u64],
    ) -> Vec<Duration> {
        range
            .zip(published)
            .map(|(k, &p)| {
                Duration::from_nanos(self.last[k].load(Ordering::Acquire).saturating_sub(p))
            })
            .collect()
    }
}

/// One scenario's figures.
pub(super) struct FanoutResult {
    /// Messages per second, from the first publish to the last delivery.
    pub(super) rate: f64,
    /// Deliveries per second over the same time.
    pub(super) deliveries: f64,
    /// p99 of publish to last delivery.
    pub(super) p99: Duration,
}

/// Runs the benchmark and prints a Markdown table.
pub fn run(args: RvBenchArgs) -> ExitCode {
    let base = args.dir.clone().unwrap_or_else(std::env::temp_dir);
    let dir = base.join(format!("mqgate-bench-rv-{}", std::process::id()));
    if args.certified {
        return run_async(&dir, super::bench_rv_cm::bench(&args, &dir));
    }
    if args.matching {
        return run_async(&dir, super::bench_rv_match::bench(&args));
    }
    run_async(&dir, bench(&args, &dir))
}

async fn bench(args: &RvBenchArgs, dir: &Path) -> Result<(), String> {
    let (n, l) = (args.messages, args.listeners);
    println!(
        "mqgate bench rv: {n} messages per scenario (a u32 field and a {}-byte opaque field; NATS: {}-byte payloads) to {l} listeners, each on its own connection; latency from publish to the last listener",
        args.size, args.size
    );
    println!();
    println!("| system | scenario | msgs/s | deliveries/s | p99 publish-to-last-delivery ms |");
    println!("|---|---|---:|---:|---:|");
    let results = mqgate_scenarios(args, dir).await?;
    for (scenario, r) in ["one in flight", "back to back"].iter().zip(&results) {
        println!(
            "| mqgate HTTP + SSE | {scenario}, {l} listeners | {:.0} | {:.0} | {:.3} |",
            r.rate,
            r.deliveries,
            ms(r.p99)
        );
    }
    #[cfg(feature = "nats")]
    use super::bench_nats::rv_reference;
    match rv_reference(&args.nats_server, n, l, args.size).await {
        Ok(Some(core)) => {
            for (scenario, r) in ["one in flight", "back to back"].iter().zip(&core) {
                println!(
                    "| nats-server core | {scenario}, {l} subscribers | {:.0} | {:.0} | {:.3} |",
                    r.rate,
                    r.deliveries,
                    ms(r.p99)
                );
            }
            println!();
            println!(
                "ratio mqgate / reference (msgs/s): one in flight {:.2}x, back to back {:.2}x",
                results[0].rate / core[0].rate,
                results[1].rate / core[1].rate
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
async fn rv_reference(
    _nats_server: &str,
    _n: usize,
    _subscribers: usize,
    _size: usize,
) -> Result<Option<Vec<FanoutResult>>, String> {
    Err("mqgate was built without the `nats` feature; measure the NATS reference with `cargo run --release --features nats -- bench rv`".into())
}

/// The number `n` of a message event's data (`..."fields":[{"name":"n",
/// "type":"u32","value":N}...`): the digits after the first `"value":`.
fn number_of(data: &str) -> Option<usize> {
    let at = data.find("\"value\":")? + "\"value\":".len();
    let digits: String = data[at..]
        .chars()
        .take_while(char::is_ascii_digit)
        .collect();
    digits.parse().ok()
}

/// Starts a gateway, `args.listeners` event-stream listeners and the two
/// scenarios.
async fn mqgate_scenarios(args: &RvBenchArgs, dir: &Path) -> Result<Vec<FanoutResult>, String> {
    let (n, l) = (args.messages, args.listeners);
    // Queues long enough that back-to-back publishing loses nothing.
    let queue = n.clamp(1024, LIMIT_LISTENER_QUEUE);
    let yaml = format!(
        "http:\n  listen: 127.0.0.1:0\nlistener:\n  listen: 127.0.0.1:0\nmqtt:\n  listen: 127.0.0.1:0\nrv:\n  listener_queue: {queue}\n"
    );
    let mut config = Config::from_yaml(&yaml, "bench").map_err(|e| e.to_string())?;
    config.storage.data_dir = dir.join("data");
    let gateway = Gateway::start(config).await.map_err(|e| e.to_string())?;
    let base = format!("http://{}", gateway.http_addr());
    let bus = gateway
        .rv_bus()
        .ok_or_else(|| "the gateway has no subject bus".to_string())?;
    let tally = Tally::new(2 * n);
    let ready = Arc::new(AtomicUsize::new(0));
    let mut threads = Vec::with_capacity(l);
    for _ in 0..l {
        let (url, tally, ready) = (
            format!("{base}/v1/rv/listen?subject={SUBJECT}"),
            Arc::clone(&tally),
            Arc::clone(&ready),
        );
        threads.push(std::thread::spawn(move || listener(&url, &tally, &ready)));
    }
    let until = Instant::now() + WAIT;
    while ready.load(Ordering::Acquire) < l {
        if Instant::now() > until || threads.iter().any(|t| t.is_finished()) {
            return Err(format!(
                "{} of {l} listeners ready",
                ready.load(Ordering::Acquire)
            ));
        }
        tokio::time::sleep(Duration::from_millis(10)).await;
    }
    if bus.listeners() != l {
        return Err(format!("{} listeners on the bus, not {l}", bus.listeners()));
    }
    let size = args.size;
    let publisher_tally = Arc::clone(&tally);
    let results = tokio::task::spawn_blocking(move || {
        let one = publish(&base, &publisher_tally, 0..n, l, size, true)?;
        let stream = publish(&base, &publisher_tally, n..2 * n, l, size, false)?;
        Ok::<_, String>(vec![one, stream])
    })
    .await
    .map_err(|e| e.to_string())??;
    gateway.stop(Duration::from_secs(10)).await;
    for t in threads {
        let _ = t.join();
    }
    Ok(results)
}

/// One listener: reads its event stream until it ends, recording each
/// message's number.
fn listener(url: &str, tally: &Tally, ready: &AtomicUsize) {
    let agent = ureq::AgentBuilder::new()
        .timeout_read(Duration::from_secs(120))
        .build();
    let Ok(res) = agent.get(url).call() else {
        return;
    };
    let mut events = EventReader::new(BufReader::new(res.into_reader()));
    while let Ok(Some(e)) = events.next_event() {
        match e.event.as_str() {
            "ready" => {
                ready.fetch_add(1, Ordering::AcqRel);
            }
            "message" => match number_of(&e.data) {
                Some(k) if !e.data.contains("SLOWCONSUMER") => tally.record(k),
                _ => {
                    tally.lost.store(true, Ordering::Release);
                }
            },
            _ => return,
        }
    }
}

/// Publishes messages `range` over one keep-alive connection; with
/// `one_in_flight`, each after the previous reached every listener.
fn publish(
    base: &str,
    tally: &Tally,
    range: std::ops::Range<usize>,
    listeners: usize,
    size: usize,
    one_in_flight: bool,
) -> Result<FanoutResult, String> {
    use base64::Engine;
    let agent = ureq::AgentBuilder::new()
        .timeout_read(Duration::from_secs(60))
        .build();
    let url = format!("{base}/v1/rv/messages/{SUBJECT}");
    let data = base64::engine::general_purpose::STANDARD.encode(vec![b'x'; size]);
    let before = tally.delivered.load(Ordering::Acquire);
    let count = range.len();
    let mut published = Vec::with_capacity(count);
    let start = tally.now();
    for (i, k) in range.clone().enumerate() {
        let body = format!(
            r#"{{"fields":[{{"name":"n","type":"u32","value":{k}}},{{"name":"data","type":"opaque","value":"{data}"}}]}}"#
        );
        published.push(tally.now());
        agent
            .post(&url)
            .set("Content-Type", "application/json")
            .send_string(&body)
            .map_err(|e| format!("publish {k}: {e}"))?;
        if one_in_flight {
            tally.wait_blocking(before + (i + 1) * listeners)?;
        }
    }
    tally.wait_blocking(before + count * listeners)?;
    let last = tally.last_of(range.clone()).unwrap_or(start);
    let secs = Duration::from_nanos(last.saturating_sub(start)).as_secs_f64();
    Ok(FanoutResult {
        rate: count as f64 / secs,
        deliveries: (count * listeners) as f64 / secs,
        p99: p99(&tally.latencies(range, &published)),
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_number_is_the_first_value_of_the_event() {
        // The JSON form writes `n` first (docs/rendezvous.md "JSON form").
        assert_eq!(
            number_of(
                r#"{"subject":"BENCH.RV","fields":[{"name":"n","type":"u32","value":1234},{"name":"data","type":"opaque","value":"eHh4"}]}"#
            ),
            Some(1234)
        );
        assert_eq!(number_of(r#"{"subject":"X","fields":[]}"#), None);
    }

    #[test]
    fn latencies_run_to_the_last_delivery() {
        let t = Tally::new(2);
        t.record(0);
        t.record(1);
        t.record(0);
        let lat = t.latencies(0..2, &[0, 0]);
        assert!(lat[0] >= lat[1]);
        assert_eq!(t.delivered.load(Ordering::Acquire), 3);
    }
}

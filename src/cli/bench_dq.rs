//! `mqgate bench dq`: Rendezvous distributed queue dispatch in one gateway
//! (docs/rendezvous.md "Distributed queues"; docs/performance.md
//! "Rendezvous distributed queues" gives the command and figures).
//!
//! A certified sender sends no-op tasks to a queue of one dedicated
//! scheduler and 8 workers, which complete each task as it comes, with at
//! most `--window` tasks sent and not yet at a worker: tasks per second
//! (first send to last receipt) and p99 dispatch latency (send to the
//! worker's receipt). Then the failover time over `--trials` trials: a
//! heavier dedicated scheduler takes over, is killed (no goodbye), a task
//! is sent at once, and the time runs to a worker's receipt of it; min,
//! median, max. The reference in the same run: a nats-server JetStream
//! work-queue stream with one durable pull consumer shared by 8 pulling
//! clients that acknowledge each task, the same tasks and window (built
//! with the `nats` feature).

use std::path::{Path, PathBuf};
use std::process::ExitCode;
use std::sync::Arc;
use std::sync::atomic::{AtomicU64, AtomicUsize, Ordering};
use std::time::{Duration, Instant};

use clap::Args;
use clap::builder::RangedU64ValueParser;
use mqgate_codecs::rv::msg::{Envelope, Field, Message, Value};
use tokio::sync::Notify;

use super::bench::{ms, p99};
use crate::config::Config;
use crate::gateway::{Gateway, Handle};
use crate::rv::cm::{CmTransport, CreateOptions, LedgerKind};
use crate::rv::dq::{DqMember, DqParams, MemberEvent};

/// Workers of the queue (and pulling clients of the reference).
pub(super) const WORKERS: usize = 8;

/// How long the bench waits for what must come before it gives up.
const PATIENCE: Duration = Duration::from_secs(120);

/// Options of `mqgate bench dq`.
#[derive(Args, Debug)]
pub struct DqBenchArgs {
    /// No-op tasks to dispatch.
    #[arg(long, default_value_t = 20_000, value_parser = RangedU64ValueParser::<usize>::new().range(1..=1_000_000))]
    pub tasks: usize,
    /// Most tasks sent and not yet received by a worker, for both systems.
    #[arg(long, default_value_t = 256, value_parser = RangedU64ValueParser::<usize>::new().range(1..=100_000))]
    pub window: usize,
    /// Task capacity of each worker.
    #[arg(long, default_value_t = 4, value_parser = RangedU64ValueParser::<u32>::new().range(1..=1024))]
    pub worker_tasks: u32,
    /// Failover trials.
    #[arg(long, default_value_t = 20, value_parser = RangedU64ValueParser::<usize>::new().range(1..=1000))]
    pub trials: usize,
    /// Scheduler heartbeat interval of every member, seconds.
    #[arg(long, default_value_t = 0.1)]
    pub heartbeat: f64,
    /// Scheduler activation interval of every member, seconds (longer than
    /// the heartbeat).
    #[arg(long, default_value_t = 0.35)]
    pub activation: f64,
    /// The nats-server program of the reference.
    #[arg(long, default_value = "nats-server")]
    pub nats_server: String,
    /// Directory for the gateway's store and the reference's (a fresh
    /// subdirectory is created and removed).
    #[arg(long)]
    pub dir: Option<PathBuf>,
}

/// Dispatch figures of one system.
pub(super) struct Dispatch {
    /// Tasks per second.
    pub(super) rate: f64,
    /// p99 from send to the worker's receipt.
    pub(super) p99: Duration,
}

/// When each task reached a worker (first receipt only), shared by the
/// sender and the workers of one system.
pub(super) struct Receipts {
    origin: Instant,
    sent: Vec<AtomicU64>,
    received: Vec<AtomicU64>,
    count: AtomicUsize,
    arrived: Notify,
}

impl Receipts {
    /// Room for tasks `0..n`.
    pub(super) fn new(n: usize) -> Arc<Receipts> {
        Arc::new(Receipts {
            origin: Instant::now(),
            sent: (0..n).map(|_| AtomicU64::new(0)).collect(),
            received: (0..n).map(|_| AtomicU64::new(0)).collect(),
            count: AtomicUsize::new(0),
            arrived: Notify::new(),
        })
    }

    /// Nanoseconds since the origin (at least 1: 0 means "not yet").
    fn now(&self) -> u64 {
        (self.origin.elapsed().as_nanos() as u64).max(1)
    }

    /// Tasks received so far.
    pub(super) fn count(&self) -> usize {
        self.count.load(Ordering::Acquire)
    }

    /// Task `k` is about to be sent.
    pub(super) fn sending(&self, k: usize) {
        if let Some(s) = self.sent.get(k) {
            s.store(self.now(), Ordering::Release);
        }
    }

    /// A worker received task `k`; a second receipt does not count.
    pub(super) fn received(&self, k: usize) {
        if let Some(slot) = self.received.get(k)
            && slot
                .compare_exchange(0, self.now(), Ordering::AcqRel, Ordering::Acquire)
                .is_ok()
        {
            self.count.fetch_add(1, Ordering::AcqRel);
            self.arrived.notify_waiters();
        }
    }

    /// Waits until at least `n` tasks were received.
    pub(super) async fn wait_for(&self, n: usize) -> Result<(), String> {
        let until = tokio::time::Instant::now() + PATIENCE;
        loop {
            let arrived = self.arrived.notified();
            tokio::pin!(arrived);
            arrived.as_mut().enable();
            if self.count() >= n {
                return Ok(());
            }
            if tokio::time::timeout_at(until, arrived).await.is_err() {
                return Err(format!(
                    "{} of {n} tasks reached a worker within {PATIENCE:?}",
                    self.count()
                ));
            }
        }
    }

    /// Rate and p99 of tasks `0..n`.
    pub(super) fn dispatch(&self, n: usize) -> Dispatch {
        let at = |v: &AtomicU64| v.load(Ordering::Acquire);
        let start = self.sent.first().map_or(0, at);
        let end = self.received[..n].iter().map(at).max().unwrap_or(start);
        let lat: Vec<Duration> = (0..n)
            .map(|k| Duration::from_nanos(at(&self.received[k]).saturating_sub(at(&self.sent[k]))))
            .collect();
        Dispatch {
            rate: n as f64 / Duration::from_nanos(end.saturating_sub(start).max(1)).as_secs_f64(),
            p99: p99(&lat),
        }
    }

    /// Nanoseconds from `from_ns` to the receipt of task `k`.
    fn since(&self, k: usize, from_ns: u64) -> Duration {
        Duration::from_nanos(
            self.received[k]
                .load(Ordering::Acquire)
                .saturating_sub(from_ns),
        )
    }
}

/// Runs the benchmark; prints a Markdown table.
pub fn run(args: DqBenchArgs) -> ExitCode {
    let base = args.dir.clone().unwrap_or_else(std::env::temp_dir);
    let dir = base.join(format!("mqgate-bench-dq-{}", std::process::id()));
    super::bench::run_async(&dir, bench(&args, &dir))
}

/// Task `n`: one u64 field.
fn task(n: usize) -> Envelope {
    Envelope {
        subject: "BENCH.DQ".into(),
        reply_subject: None,
        cm: None,
        message: Message::new(vec![Field::new("n", Value::U64(n as u64))]),
    }
}

fn n_of(env: &Envelope) -> Option<usize> {
    match env.message.get("n").map(|f| &f.value) {
        Some(Value::U64(n)) => usize::try_from(*n).ok(),
        _ => None,
    }
}

/// The members' parameters: every member shares the intervals.
fn params(args: &DqBenchArgs, worker_tasks: u32, scheduler_weight: u16) -> DqParams {
    DqParams {
        worker_weight: 1,
        worker_tasks,
        scheduler_weight,
        heartbeat_s: args.heartbeat,
        activation_s: args.activation,
        ..DqParams::default()
    }
}

async fn bench(args: &DqBenchArgs, dir: &Path) -> Result<(), String> {
    params(args, 1, 1).check().map_err(|e| e.to_string())?;
    println!(
        "mqgate bench dq: {} no-op certified tasks, at most {} in flight, through one dedicated scheduler to {WORKERS} workers of capacity {} (heartbeat {} s, activation {} s); JetStream: a work-queue stream (file), one durable pull consumer, {WORKERS} pulling clients acknowledging each task",
        args.tasks, args.window, args.worker_tasks, args.heartbeat, args.activation
    );
    println!();
    let mut config = Config::from_yaml(
        "http:\n  listen: 127.0.0.1:0\nlistener:\n  listen: 127.0.0.1:0\nmqtt:\n  listen: 127.0.0.1:0\n",
        "bench",
    )
    .map_err(|e| e.to_string())?;
    config.storage.data_dir = dir.join("data");
    let gw = Gateway::start(config).await.map_err(|e| e.to_string())?;
    let result = mqgate_run(args, &gw).await;
    gw.stop(Duration::from_secs(10)).await;
    let (dispatch, mut failover) = result?;
    println!("| system | tasks/s | p99 dispatch ms |");
    println!("|---|---:|---:|");
    println!(
        "| mqgate distributed queue (certified tasks) | {:.0} | {:.3} |",
        dispatch.rate,
        ms(dispatch.p99)
    );
    #[cfg(feature = "nats")]
    use super::bench_nats::jetstream_work_queue;
    match jetstream_work_queue(
        &args.nats_server,
        &dir.join("nats"),
        args.tasks,
        args.window,
    )
    .await
    {
        Ok(Some(js)) => {
            println!(
                "| nats-server JetStream work queue (file) | {:.0} | {:.3} |",
                js.rate,
                ms(js.p99)
            );
            println!();
            println!(
                "ratio mqgate / reference: tasks/s {:.2}x, p99 {:.2}x",
                dispatch.rate / js.rate,
                dispatch.p99.as_secs_f64() / js.p99.as_secs_f64().max(1e-9)
            );
        }
        Ok(None) => println!(
            "\nSKIP: reference: {} is not installed (Debian package nats-server)",
            args.nats_server
        ),
        Err(e) => println!("\nSKIP: reference: {e}"),
    }
    failover.sort();
    println!();
    println!(
        "failover (scheduler killed -> next task at a worker), {} trials: min {:.1} ms, median {:.1} ms, max {:.1} ms",
        failover.len(),
        ms(failover[0]),
        ms(failover[failover.len() / 2]),
        ms(failover[failover.len() - 1])
    );
    Ok(())
}

/// A worker that completes each task as it comes.
fn worker(mut m: DqMember, seen: Arc<Receipts>) {
    tokio::spawn(async move {
        while let Some(e) = m.next().await {
            let MemberEvent::Task(t) = e else { continue };
            if let Some(n) = n_of(&t.envelope) {
                seen.received(n);
            }
            let _ = m.complete(t.id).await;
        }
    });
}

async fn wait_active(m: &mut DqMember) -> Result<(), String> {
    let until = tokio::time::Instant::now() + PATIENCE;
    loop {
        match tokio::time::timeout_at(until, m.next()).await {
            Ok(Some(MemberEvent::Scheduler(true))) => return Ok(()),
            Ok(Some(_)) => {}
            Ok(None) => return Err("the scheduler ended".into()),
            Err(_) => return Err("no scheduler took over in time".into()),
        }
    }
}

/// Waits until the queue's CM transport holds a certified agreement: the
/// scheduler listens, and every task is certified from the first.
async fn certified(h: &Handle, queue: &str) -> Result<(), String> {
    let cm = h.rv_cm().ok_or("the gateway stopped")?;
    let until = Instant::now() + PATIENCE;
    loop {
        if let Ok(t) = cm.get(queue)
            && t.snapshot().await.agreements.iter().any(|a| {
                matches!(
                    a.state,
                    crate::rv::cm::listener::AgreementState::Certified { .. }
                )
            })
        {
            return Ok(());
        }
        if Instant::now() > until {
            return Err("the queue was not certified in time".into());
        }
        tokio::time::sleep(Duration::from_millis(5)).await;
    }
}

async fn mqgate_run(args: &DqBenchArgs, h: &Handle) -> Result<(Dispatch, Vec<Duration>), String> {
    let dq = h.rv_dq().ok_or("the gateway stopped")?;
    let cm = h.rv_cm().ok_or("the gateway stopped")?;
    let subjects = vec!["BENCH.DQ".to_string()];
    let (src, _) = cm
        .create(CreateOptions {
            name: Some("BENCH.DQ.SENDER".into()),
            ledger: LedgerKind::Memory,
            ..CreateOptions::default()
        })
        .await
        .map_err(|e| e.to_string())?;
    src.add_listener("BENCHQ", "BENCH.DQ")
        .await
        .map_err(|e| e.to_string())?;
    let n = args.tasks;
    let seen = Receipts::new(n + args.trials);
    let mut sched = dq
        .join("BENCHQ", &subjects, params(args, 0, 100))
        .map_err(|e| e.to_string())?;
    for i in 0..WORKERS {
        let m = dq
            .join(
                "BENCHQ",
                &subjects,
                params(args, args.worker_tasks, i as u16 + 1),
            )
            .map_err(|e| e.to_string())?;
        worker(m, Arc::clone(&seen));
    }
    wait_active(&mut sched).await?;
    certified(h, "BENCHQ").await?;
    for k in 0..n {
        if k >= args.window {
            seen.wait_for(k + 1 - args.window).await?;
        }
        seen.sending(k);
        src.send(task(k), None).await.map_err(|e| e.to_string())?;
    }
    seen.wait_for(n).await?;
    let dispatch = seen.dispatch(n);
    drain(&src).await?;
    // Each trial: a heavier dedicated scheduler takes over, is killed, and
    // the first one (weight 100) takes over again.
    let mut failover = Vec::with_capacity(args.trials);
    for t in 0..args.trials {
        let k = n + t;
        let weight = u16::try_from(200 + t).unwrap_or(u16::MAX);
        let mut s = dq
            .join("BENCHQ", &subjects, params(args, 0, weight))
            .map_err(|e| e.to_string())?;
        wait_active(&mut s).await?;
        // Let it finish taking over (the members' reports, its listener).
        tokio::time::sleep(Duration::from_millis(50)).await;
        let killed = seen.now();
        s.kill();
        seen.sending(k);
        src.send(task(k), None).await.map_err(|e| e.to_string())?;
        seen.wait_for(k + 1).await?;
        failover.push(seen.since(k, killed));
    }
    drain(&src).await?;
    Ok((dispatch, failover))
}

/// Waits until the sender keeps nothing: every task was completed and
/// confirmed.
async fn drain(src: &CmTransport) -> Result<(), String> {
    let until = Instant::now() + PATIENCE;
    while !src.snapshot().await.pending.is_empty() {
        if Instant::now() > until {
            return Err("tasks were never confirmed".into());
        }
        tokio::time::sleep(Duration::from_millis(5)).await;
    }
    Ok(())
}

/// The reference needs the NATS client, built only with the `nats` feature.
#[cfg(not(feature = "nats"))]
async fn jetstream_work_queue(
    _nats_server: &str,
    _dir: &Path,
    _n: usize,
    _window: usize,
) -> Result<Option<Dispatch>, String> {
    Err("mqgate was built without the `nats` feature; measure the JetStream reference with `cargo run --release --features nats -- bench dq`".into())
}

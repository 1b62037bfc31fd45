//! `mqgate bench queue`: put+get throughput and latency of the queue manager,
//! with the same workload on the raw store (and on a bare in-memory queue) as
//! the reference, in the same run. Results: docs/performance.md.

use crate::config::DEFAULT_MAX_MSG_LENGTH;
use crate::config::{Config, LocalQueueDef, QueueDef, Usage};
use crate::qmgr::{GetMode, PutOptions, QueueManager, Selector};
use crate::store::redb::RedbStore;
use crate::store::{Batch, Store};
use bytes::Bytes;
use clap::builder::RangedU64ValueParser;
use clap::{Args, Subcommand};
use mqgate_codecs::mq::constants::per;
use mqgate_codecs::mq::{Charset, Mqmd};
use std::collections::VecDeque;
use std::path::{Path, PathBuf};
use std::process::ExitCode;
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

/// What to benchmark.
#[derive(Subcommand, Debug)]
pub enum BenchKind {
    /// Queue manager put+get of 1 KiB messages, units of work of 1 and 50.
    Queue(QueueBenchArgs),
    /// Sender → channel → receiver → device queue, with nats-server as the reference.
    Channel(super::bench_channel::ChannelBenchArgs),
    /// One publisher to a MOT with many registered queues (SBS), with core NATS fan-out as the reference.
    Sbs(super::bench_sbs::SbsBenchArgs),
    /// Devices over MQTT: idle memory per device and delivery of queued messages, with mosquitto as the reference.
    Mqtt(super::bench_mqtt::MqttBenchArgs),
    /// Rendezvous subject bus: HTTP publishes to many SSE listeners, with core NATS subscribers as the reference; --certified: certified delivery round trips next to JetStream; --matching: subject matching at 1,000,000 subscriptions next to nats-server.
    Rv(super::bench_rv::RvBenchArgs),
    /// Many device queues: fill one message per device over a channel, restart, drain over HTTP with 1, 4 and 16 clients.
    Devices(super::bench_devices::DevicesBenchArgs),
    /// Rendezvous distributed queue: tasks dispatched through one scheduler to 8 workers, and failover, with a JetStream work queue as the reference.
    Dq(super::bench_dq::DqBenchArgs),
    /// MQPUT+MQGET round trips through the IBM MQ client protocol (SVRCONN), 1 and 16 connections, next to the HTTP API and the message channel.
    Mqi(super::bench_mqi::MqiBenchArgs),
}

/// Options of `mqgate bench queue`.
#[derive(Args, Debug)]
pub struct QueueBenchArgs {
    /// Messages per scenario (at least 1).
    #[arg(long, default_value_t = 2000, allow_negative_numbers = true, value_parser = RangedU64ValueParser::<usize>::new().range(1..))]
    pub messages: usize,
    /// Message size in bytes: 0 to 4194304, the default MAXMSGL of the
    /// benchmark's queues (docs/config.md).
    #[arg(long, default_value_t = 1024, allow_negative_numbers = true, value_parser = RangedU64ValueParser::<usize>::new().range(0..=DEFAULT_MAX_MSG_LENGTH as u64))]
    pub size: usize,
    /// Directory for the store files (a fresh subdirectory is created and removed).
    #[arg(long)]
    pub dir: Option<PathBuf>,
}

/// Runs the chosen benchmark and prints a Markdown table.
pub fn run(kind: BenchKind) -> ExitCode {
    let args = match kind {
        BenchKind::Queue(args) => args,
        BenchKind::Channel(args) => return super::bench_channel::run(args),
        BenchKind::Sbs(args) => return super::bench_sbs::run(args),
        BenchKind::Mqtt(args) => return super::bench_mqtt::run(args),
        BenchKind::Rv(args) => return super::bench_rv::run(args),
        BenchKind::Devices(args) => return super::bench_devices::run(args),
        BenchKind::Dq(args) => return super::bench_dq::run(args),
        BenchKind::Mqi(args) => return super::bench_mqi::run(args),
    };
    let base = args.dir.clone().unwrap_or_else(std::env::temp_dir);
    let dir = base.join(format!("mqgate-bench-{}", std::process::id()));
    finish(queue_bench(&args, &dir), &dir)
}

/// Timings of one scenario: one latency per unit of work, put side and get side.
struct Timings {
    put: Vec<Duration>,
    get: Vec<Duration>,
}

/// The 99th percentile of `v` (nearest rank); zero when `v` is empty.
pub(super) fn p99(v: &[Duration]) -> Duration {
    let mut s = v.to_vec();
    s.sort();
    s.get((s.len() * 99).div_ceil(100).saturating_sub(1))
        .copied()
        .unwrap_or_default()
}

/// Resident memory of process `pid` (`"self"` for this one), in bytes
/// (Linux /proc/PID/status VmRSS).
pub(super) fn vm_rss(pid: &str) -> Result<u64, String> {
    let status = std::fs::read_to_string(format!("/proc/{pid}/status"))
        .map_err(|e| format!("cannot read the memory of process {pid}: {e}"))?;
    status
        .lines()
        .find_map(|l| l.strip_prefix("VmRSS:"))
        .and_then(|v| v.trim().trim_end_matches("kB").trim().parse::<u64>().ok())
        .map(|kb| kb * 1024)
        .ok_or_else(|| format!("no VmRSS in /proc/{pid}/status"))
}

/// A duration in milliseconds, for the tables.
pub(super) fn ms(d: Duration) -> f64 {
    d.as_secs_f64() * 1000.0
}

/// Runs an async benchmark on a new multi-threaded runtime, then [`finish`]es
/// with its scratch directory `dir`.
pub(super) fn run_async(
    dir: &Path,
    bench: impl std::future::Future<Output = Result<(), String>>,
) -> ExitCode {
    let rt = match tokio::runtime::Builder::new_multi_thread()
        .enable_all()
        .build()
    {
        Ok(r) => r,
        Err(e) => {
            eprintln!("mqgate bench: {e}");
            return ExitCode::FAILURE;
        }
    };
    finish(rt.block_on(bench), dir)
}

/// Removes the benchmark's scratch directory and turns its result into the
/// exit status (the error on stderr).
pub(super) fn finish(result: Result<(), String>, dir: &std::path::Path) -> ExitCode {
    let _ = std::fs::remove_dir_all(dir);
    match result {
        Ok(()) => ExitCode::SUCCESS,
        Err(e) => {
            eprintln!("mqgate bench: {e}");
            ExitCode::FAILURE
        }
    }
}

fn row(name: &str, uow: usize, messages: usize, t: &Timings) {
    let total: Duration = t.put.iter().chain(&t.get).sum();
    let rate = messages as f64 / total.as_secs_f64();
    println!(
        "| {name} | {uow} | {rate:.0} | {:.3} | {:.3} |",
        p99(&t.put).as_secs_f64() * 1000.0,
        p99(&t.get).as_secs_f64() * 1000.0
    );
}

fn queue_bench(args: &QueueBenchArgs, dir: &Path) -> Result<(), String> {
    let n = args.messages;
    let data = Bytes::from(vec![b'x'; args.size]);
    println!(
        "{} messages of {} bytes per scenario; msgs/s = messages put and got / (put + get time); p99 per unit of work in ms",
        n, args.size
    );
    println!();
    println!("| scenario | UOW size | msgs/s (put+get) | p99 put+commit ms | p99 get+commit ms |");
    println!("|---|---:|---:|---:|---:|");
    for persistent in [true, false] {
        for uow in [1, 50] {
            let sub = dir.join(format!("qm-{persistent}-{uow}"));
            let t = qmgr_scenario(&sub, n, uow, persistent, &data)?;
            let kind = if persistent {
                "persistent"
            } else {
                "non-persistent"
            };
            row(&format!("queue manager, {kind}"), uow, n, &t);
            let t = if persistent {
                let sub = dir.join(format!("raw-{uow}"));
                raw_store_scenario(&sub, n, uow, &data)?
            } else {
                memory_scenario(n, uow, &data)
            };
            let reference = if persistent {
                "reference: raw redb store"
            } else {
                "reference: Mutex<VecDeque>"
            };
            row(reference, uow, n, &t);
        }
    }
    Ok(())
}

fn qmgr_scenario(
    dir: &Path,
    n: usize,
    uow: usize,
    persistent: bool,
    data: &Bytes,
) -> Result<Timings, String> {
    let mut config = Config::default();
    let mut def = LocalQueueDef::with_defaults("BENCH", Usage::Normal);
    def.max_depth = n + 1;
    config.queues.push(QueueDef::Local(def));
    let store = RedbStore::open(dir).map_err(|e| e.to_string())?;
    let qm = Arc::new(QueueManager::open(&config, Arc::new(store)).map_err(|e| e.to_string())?);
    let md = Mqmd {
        persistence: if persistent {
            per::PERSISTENT
        } else {
            per::NOT_PERSISTENT
        },
        ..Mqmd::default()
    };
    let mut t = Timings {
        put: Vec::new(),
        get: Vec::new(),
    };
    let err = |e: crate::qmgr::QmError| e.to_string();
    for _ in 0..n / uow {
        let start = Instant::now();
        let id = qm.begin_uow(None, None).map_err(err)?;
        let opts = PutOptions {
            uow: Some(id),
            ..PutOptions::default()
        };
        for _ in 0..uow {
            qm.put("BENCH", md.clone(), Charset::Ascii, data.clone(), &opts)
                .map_err(err)?;
        }
        qm.commit(id).map_err(err)?;
        t.put.push(start.elapsed());
    }
    for _ in 0..n / uow {
        let start = Instant::now();
        let id = qm.begin_uow(None, None).map_err(err)?;
        for _ in 0..uow {
            qm.get(
                "BENCH",
                &Selector::default(),
                GetMode::Destructive { uow: Some(id) },
            )
            .map_err(err)?;
        }
        qm.commit(id).map_err(err)?;
        t.get.push(start.elapsed());
    }
    Ok(t)
}

/// The same units against the store alone: one transaction of `uow` inserts
/// (records of the message size plus the 380-byte header and MQMD the queue
/// manager adds), then one transaction of `uow` deletes.
fn raw_store_scenario(dir: &Path, n: usize, uow: usize, data: &Bytes) -> Result<Timings, String> {
    let store = RedbStore::open(dir).map_err(|e| e.to_string())?;
    let record = vec![b'x'; data.len() + 380];
    let mut t = Timings {
        put: Vec::new(),
        get: Vec::new(),
    };
    let units = n / uow;
    for u in 0..units {
        let start = Instant::now();
        let batch = Batch {
            puts: (0..uow)
                .map(|i| ((u * uow + i) as u64, record.clone()))
                .collect(),
            deletes: Vec::new(),
            meta: Vec::new(),
            summaries: Vec::new(),
        };
        store.apply(&batch).map_err(|e| e.to_string())?;
        t.put.push(start.elapsed());
    }
    for u in 0..units {
        let start = Instant::now();
        let batch = Batch {
            puts: Vec::new(),
            deletes: (0..uow).map(|i| (u * uow + i) as u64).collect(),
            meta: Vec::new(),
            summaries: Vec::new(),
        };
        store.apply(&batch).map_err(|e| e.to_string())?;
        t.get.push(start.elapsed());
    }
    Ok(t)
}

/// The same units against a bare in-memory FIFO.
fn memory_scenario(n: usize, uow: usize, data: &Bytes) -> Timings {
    let q = Mutex::new(VecDeque::new());
    let mut t = Timings {
        put: Vec::new(),
        get: Vec::new(),
    };
    for _ in 0..n / uow {
        let start = Instant::now();
        for _ in 0..uow {
            q.lock()
                .unwrap_or_else(|p| p.into_inner())
                .push_back(data.clone());
        }
        t.put.push(start.elapsed());
    }
    for _ in 0..n / uow {
        let start = Instant::now();
        for _ in 0..uow {
            q.lock().unwrap_or_else(|p| p.into_inner()).pop_front();
        }
        t.get.push(start.elapsed());
    }
    t
}

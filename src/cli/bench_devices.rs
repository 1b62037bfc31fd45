//! `mqgate bench devices`: many device queue managers on one gateway
//! (docs/performance.md "Devices at scale"). The gateway (`mqgate run`,
//! the embedded default, its log at the default level in a file) runs as a
//! child process so that its resident memory is its own:
//!
//! 1. fill: one persistent message of `--size` bytes for each of
//!    `--devices` devices `DEV000000`..., sent as transmission messages
//!    `INBOX%DEVnnnnnn` over the main job's channel (pipelined batches of
//!    50, as `mqgate send`), so each creates the device queue
//!    `DEVnnnnnn/INBOX`;
//! 2. restart: the gateway is stopped (SIGTERM) and started again on the
//!    same data directory; the startup time is from the spawn to the
//!    gateway's "mqgate running" log line;
//! 3. drain: the devices are split in three equal parts, each pulled and
//!    acknowledged through the HTTP device API (`GET
//!    /v1/devices/{qmgr}/queues/INBOX/messages/next`, then `POST
//!    .../ack/{lease}`) by 1, 4 and 16 clients in turn.
//!
//! Memory is the gateway's VmRSS (Linux `/proc/PID/status`).

use super::bench::{ms, p99, run_async};
use crate::channel::sender::{Offer, PIPELINE_BATCHES, SenderConn};
use crate::channel::xmit;
use crate::config::ChannelLimits;
use bytes::Bytes;
use clap::Args;
use clap::builder::RangedU64ValueParser;
use mqgate_codecs::mq::constants::per;
use mqgate_codecs::mq::{CharField, Charset, Mqmd};
use std::net::SocketAddr;
use std::path::{Path, PathBuf};
use std::process::{Child, Command, ExitCode, Stdio};
use std::time::{Duration, Instant};

/// The client counts of the drain, in order.
const CLIENTS: [usize; 3] = [1, 4, 16];

/// Messages per channel batch (the default receiver channel agrees up to 50).
const BATCH: usize = 50;

/// Options of `mqgate bench devices`.
#[derive(Args, Debug)]
pub struct DevicesBenchArgs {
    /// Devices, one queued message each (48 to 1000000: at least one per
    /// drain client, at most six digits in the device names).
    #[arg(long, default_value_t = 20_000, allow_negative_numbers = true, value_parser = RangedU64ValueParser::<usize>::new().range(48..=1_000_000))]
    pub devices: usize,
    /// Messages queued for each device (1 to 5000, the default MAXDEPTH of
    /// a device queue): with more than one, the figures per message show
    /// what a message costs beyond its queue (the drain still takes one
    /// message from each device it pulls).
    #[arg(long, default_value_t = 1, value_parser = RangedU64ValueParser::<usize>::new().range(1..=5000))]
    pub per_device: usize,
    /// Message data size in bytes (0 to 65536).
    #[arg(long, default_value_t = 256, allow_negative_numbers = true, value_parser = RangedU64ValueParser::<usize>::new().range(0..=65_536))]
    pub size: usize,
    /// At most this many devices pulled and acknowledged at each client
    /// count (default: a third of the devices each, so that all are drained).
    #[arg(long, value_parser = RangedU64ValueParser::<usize>::new().range(16..))]
    pub drain: Option<usize>,
    /// Directory for the gateway's files (a fresh subdirectory is created and removed).
    #[arg(long)]
    pub dir: Option<PathBuf>,
}

/// Runs the benchmark and prints its figures as Markdown.
pub fn run(args: DevicesBenchArgs) -> ExitCode {
    let base = args.dir.clone().unwrap_or_else(std::env::temp_dir);
    let dir = base.join(format!("mqgate-bench-devices-{}", std::process::id()));
    run_async(&dir, bench(&args, &dir))
}

/// The gateway this benchmark started; killed when dropped.
struct Gateway {
    child: Child,
    http: SocketAddr,
    channel: SocketAddr,
    /// From the spawn to the "mqgate running" line.
    startup: Duration,
    /// CPU time (user + system, all threads) the gateway had used when
    /// its "mqgate running" line was seen; `None` where /proc cannot tell.
    startup_cpu: Option<Duration>,
    log: PathBuf,
}

impl Drop for Gateway {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

impl Gateway {
    /// Starts `mqgate run` (this program) on free ports with its data in
    /// `dir/data` and its log in `dir/<log>`, at the default level.
    fn start(dir: &Path, log: &str) -> Result<Gateway, String> {
        std::fs::create_dir_all(dir).map_err(|e| e.to_string())?;
        let log_path = dir.join(log);
        let log_file = std::fs::File::create(&log_path).map_err(|e| e.to_string())?;
        let exe = std::env::current_exe().map_err(|e| e.to_string())?;
        let spawned = Instant::now();
        let child = Command::new(exe)
            .args(["run", "--log-format", "human", "--data-dir"])
            .arg(dir.join("data"))
            .args([
                "--http",
                "127.0.0.1:0",
                "--listen",
                "127.0.0.1:0",
                "--mqtt",
                "127.0.0.1:0",
            ])
            .env_remove("RUST_LOG")
            .stdout(Stdio::null())
            .stderr(log_file)
            .spawn()
            .map_err(|e| format!("cannot start mqgate run: {e}"))?;
        let mut child = Some(child);
        let until = spawned + Duration::from_secs(600);
        while Instant::now() < until {
            if let Some(line) = running_line(&log_path) {
                let startup = spawned.elapsed();
                let startup_cpu = child.as_ref().and_then(|c| cpu_time(c.id()));
                let addr = |key: &str| -> Result<SocketAddr, String> {
                    let at = line
                        .find(&format!(" {key}="))
                        .ok_or_else(|| format!("no {key} address in the log"))?
                        + key.len()
                        + 2;
                    line[at..]
                        .split_whitespace()
                        .next()
                        .and_then(|a| a.parse().ok())
                        .ok_or_else(|| format!("no {key} address in the log"))
                };
                let (http, channel) = (addr("http")?, addr("listener")?);
                return Ok(Gateway {
                    child: child.take().ok_or("no child")?,
                    http,
                    channel,
                    startup,
                    startup_cpu,
                    log: log_path,
                });
            }
            if let Some(c) = child.as_mut()
                && let Ok(Some(status)) = c.try_wait()
            {
                return Err(format!(
                    "mqgate run ended ({status}); see {}",
                    log_path.display()
                ));
            }
            std::thread::sleep(Duration::from_millis(2));
        }
        if let Some(mut c) = child {
            let _ = c.kill();
            let _ = c.wait();
        }
        Err(format!("mqgate did not start; see {}", log_path.display()))
    }

    /// Resident memory in bytes (`/proc/PID/status` VmRSS).
    fn rss(&self) -> Result<u64, String> {
        let status = std::fs::read_to_string(format!("/proc/{}/status", self.child.id()))
            .map_err(|e| format!("cannot read the gateway's memory: {e}"))?;
        status
            .lines()
            .find_map(|l| l.strip_prefix("VmRSS:"))
            .and_then(|v| v.trim().trim_end_matches("kB").trim().parse::<u64>().ok())
            .map(|kb| kb * 1024)
            .ok_or_else(|| "no VmRSS in /proc/PID/status".into())
    }

    /// Stops the gateway with SIGTERM and waits for it to end.
    fn stop(mut self) -> Result<(), String> {
        let pid = libc::pid_t::try_from(self.child.id()).map_err(|e| e.to_string())?;
        // SAFETY: kill(2) on the pid of our own child, which has not been
        // waited for yet (so the pid is still ours).
        unsafe {
            libc::kill(pid, libc::SIGTERM);
        }
        let until = Instant::now() + Duration::from_secs(120);
        while Instant::now() < until {
            if self.child.try_wait().map_err(|e| e.to_string())?.is_some() {
                return Ok(());
            }
            std::thread::sleep(Duration::from_millis(20));
        }
        Err("the gateway did not stop within 120 s of SIGTERM".into())
    }

    /// The base URL of the HTTP API.
    fn base(&self) -> String {
        format!("http://{}", self.http)
    }
}

/// CPU time (utime + stime) of process `pid` so far, from
/// `/proc/PID/stat` (proc(5): fields 14 and 15, in clock ticks).
fn cpu_time(pid: u32) -> Option<Duration> {
    let stat = std::fs::read_to_string(format!("/proc/{pid}/stat")).ok()?;
    // The command name (field 2) is in parentheses and may hold spaces.
    let rest = &stat[stat.rfind(')')? + 1..];
    let fields: Vec<&str> = rest.split_whitespace().collect();
    // `rest` starts at field 3: utime is field 14, stime field 15.
    let utime: u64 = fields.get(11)?.parse().ok()?;
    let stime: u64 = fields.get(12)?.parse().ok()?;
    // SAFETY: sysconf only reads a configuration value.
    let ticks = unsafe { libc::sysconf(libc::_SC_CLK_TCK) };
    let ticks = u64::try_from(ticks).ok().filter(|t| *t > 0)?;
    Some(Duration::from_millis((utime + stime) * 1000 / ticks))
}

/// The "mqgate running" line of the log at `path`, once it is there.
fn running_line(path: &Path) -> Option<String> {
    let text = std::fs::read_to_string(path).ok()?;
    text.lines()
        .find(|l| l.contains("mqgate running"))
        .map(str::to_string)
}

/// Bytes in the files under `dir`.
fn dir_size(dir: &Path) -> u64 {
    let Ok(entries) = std::fs::read_dir(dir) else {
        return 0;
    };
    entries
        .flatten()
        .map(|e| match e.metadata() {
            Ok(m) if m.is_dir() => dir_size(&e.path()),
            Ok(m) => m.len(),
            Err(_) => 0,
        })
        .sum()
}

fn device_name(n: usize) -> String {
    format!("DEV{n:06}")
}

async fn bench(args: &DevicesBenchArgs, dir: &Path) -> Result<(), String> {
    let n = args.devices;
    let messages = n * args.per_device;
    let each = match args.per_device {
        1 => "one persistent message".to_string(),
        m => format!("{m} persistent messages"),
    };
    println!(
        "mqgate bench devices: {n} devices, {each} of {} bytes each",
        args.size
    );
    println!();
    let gw = Gateway::start(dir, "gateway-1.log")?;
    tokio::time::sleep(Duration::from_millis(500)).await;
    let rss_empty = gw.rss()?;
    let log_size = || std::fs::metadata(&gw.log).map(|m| m.len()).unwrap_or(0);
    let log_before = log_size();
    let started = Instant::now();
    fill(gw.channel, n, args.per_device, args.size).await?;
    let fill_time = started.elapsed();
    tokio::time::sleep(Duration::from_secs(1)).await;
    let rss_filled = gw.rss()?;
    let fill_log = log_size().saturating_sub(log_before);
    gw.stop()?;
    let data_size = dir_size(&dir.join("data"));
    let gw = Gateway::start(dir, "gateway-2.log")?;
    tokio::time::sleep(Duration::from_secs(1)).await;
    let rss_restarted = gw.rss()?;
    let share = n / CLIENTS.len();
    let mut drains = Vec::new();
    let mut drained = 0;
    for (i, clients) in CLIENTS.into_iter().enumerate() {
        // The last part takes the devices the division left over.
        let end = if i + 1 == CLIENTS.len() {
            n
        } else {
            (i + 1) * share
        };
        let take = args.drain.unwrap_or(n).min(end - i * share);
        let devices: Vec<usize> = (i * share..i * share + take).collect();
        drained += take;
        drains.push((clients, drain(&gw.base(), devices, clients).await?));
    }
    tokio::time::sleep(Duration::from_secs(1)).await;
    let rss_drained_at_once = gw.rss()?;
    // The gateway gives freed memory back once per trim period
    // (src/gateway/trim.rs).
    tokio::time::sleep(crate::gateway::TRIM_PERIOD + Duration::from_secs(2)).await;
    let rss_drained = gw.rss()?;
    let base = gw.base();
    let left = tokio::task::spawn_blocking(move || device_queues_listed(&base))
        .await
        .map_err(|e| e.to_string())??;
    let per = |bytes: u64, count: usize| bytes as f64 / count.max(1) as f64;
    println!("| figure | value |");
    println!("|---|---:|");
    println!(
        "| fill, msgs/s (channel, batches of {BATCH}, {PIPELINE_BATCHES} in flight) | {:.0} |",
        messages as f64 / fill_time.as_secs_f64()
    );
    println!(
        "| startup with {messages} queued messages, ms (spawn to \"mqgate running\") | {:.0} |",
        ms(gw.startup)
    );
    if let Some(cpu) = gw.startup_cpu {
        println!(
            "| startup CPU time, ms (user + system of the gateway at \"mqgate running\"; load-independent) | {:.0} |",
            ms(cpu)
        );
    }
    for (clients, d) in &drains {
        println!(
            "| pulls+acks/s, {clients} client(s), {} devices | {:.0} |",
            d.count,
            d.rate()
        );
        println!(
            "| p99 ack latency ms, {clients} client(s) (p99 pull ms: {:.3}) | {:.3} |",
            ms(p99(&d.pulls)),
            ms(p99(&d.acks))
        );
    }
    println!("| RSS of a fresh gateway, MiB | {:.1} |", mib(rss_empty));
    println!("| RSS after the fill, MiB | {:.1} |", mib(rss_filled));
    println!(
        "| RSS after the restart ({n} queued), MiB | {:.1} |",
        mib(rss_restarted)
    );
    println!(
        "| RSS 1 s after {drained} of {n} drained, MiB | {:.1} |",
        mib(rss_drained_at_once)
    );
    println!(
        "| RSS {} s after {drained} of {n} drained, MiB | {:.1} |",
        crate::gateway::TRIM_PERIOD.as_secs() + 2,
        mib(rss_drained)
    );
    println!(
        "| device queues listed (`GET /v1/queues`) {} s after the drain (emptied ones are retired, src/qmgr/idle.rs) | {left} |",
        crate::gateway::TRIM_PERIOD.as_secs() + 2
    );
    if args.per_device > 1 {
        println!(
            "| bytes per queued message on {n} queues, after the fill ((RSS after fill - fresh) / messages) | {:.0} |",
            per(rss_filled.saturating_sub(rss_empty), messages)
        );
        println!(
            "| bytes per queued message on {n} queues, after the restart | {:.0} |",
            per(rss_restarted.saturating_sub(rss_empty), messages)
        );
        println!(
            "| data directory after the fill, bytes per message | {:.0} ({:.1} MiB) |",
            per(data_size, messages),
            mib(data_size)
        );
        return gw.stop();
    }
    println!(
        "| bytes per queued message with its device queue, after the fill ((RSS after fill - fresh) / devices) | {:.0} |",
        per(rss_filled.saturating_sub(rss_empty), n)
    );
    println!(
        "| bytes per queued message with its device queue, after the restart | {:.0} |",
        per(rss_restarted.saturating_sub(rss_empty), n)
    );
    if drained == n {
        let idle = per(rss_drained.saturating_sub(rss_empty), n);
        println!(
            "| bytes per idle (drained) device queue ((RSS after drain - fresh) / devices) | {idle:.0} |"
        );
        let beyond = per(rss_restarted.saturating_sub(rss_empty), n) - idle;
        // Negative when the drain left more memory held than the messages
        // took: the figure then says nothing.
        if beyond >= 0.0 {
            println!(
                "| bytes per queued message beyond its device queue (after restart - after drain, per message; the {} byte body included) | {beyond:.0} |",
                args.size
            );
        }
    }
    println!(
        "| data directory after the fill, bytes per message | {:.0} ({:.1} MiB) |",
        per(data_size, n),
        mib(data_size)
    );
    println!(
        "| gateway log written during the fill, bytes per message | {:.0} |",
        per(fill_log, n)
    );
    gw.stop()
}

fn mib(bytes: u64) -> f64 {
    bytes as f64 / (1024.0 * 1024.0)
}

/// Sends `per_device` persistent messages of `size` bytes to each of `n`
/// devices over the gateway's channel at `addr` (in turn: message `i` to
/// device `i % n`).
async fn fill(addr: SocketAddr, n: usize, per_device: usize, size: usize) -> Result<(), String> {
    let total = n * per_device;
    let md = Mqmd {
        format: CharField::new("MQSTR", Charset::Ascii).unwrap_or_default(),
        persistence: per::PERSISTENT,
        ..Mqmd::default()
    };
    let data = vec![b'x'; size];
    let offer = Offer {
        channel: "TO.MQGATE".into(),
        sending_q_mgr: "BENCH".into(),
        receiving_q_mgr: String::new(),
        limits: ChannelLimits {
            batch_size: BATCH as u32,
            max_msg_length: 4 * 1024 * 1024,
            heartbeat_ms: 0,
        },
        last_confirmed_seq: 0,
    };
    let mut conn = SenderConn::connect(addr, &offer)
        .await
        .map_err(|e| e.to_string())?;
    let mut next = 0;
    while next < total || conn.unconfirmed() > 0 {
        if next < total && conn.unconfirmed() < PIPELINE_BATCHES {
            let end = (next + BATCH).min(total);
            let batch: Vec<Bytes> = (next..end)
                .map(|i| {
                    let q = format!("INBOX%{}", device_name(i % n));
                    xmit::wrap(&q, "MQGATE", md.clone(), &data).map(Bytes::from)
                })
                .collect::<Result<_, _>>()?;
            conn.start_batch(&batch).await.map_err(|e| e.to_string())?;
            next = end;
            continue;
        }
        conn.wait_confirm().await.map_err(|e| e.to_string())?;
    }
    conn.close("bench filled").await.map_err(|e| e.to_string())
}

/// What one drain did.
struct Drain {
    count: usize,
    took: Duration,
    pulls: Vec<Duration>,
    acks: Vec<Duration>,
}

impl Drain {
    fn rate(&self) -> f64 {
        self.count as f64 / self.took.as_secs_f64()
    }
}

/// Pulls and acknowledges the message of each of `devices` through the
/// HTTP device API at `base`, with `clients` clients (threads with a
/// keep-alive connection each) taking the devices in turn.
async fn drain(base: &str, devices: Vec<usize>, clients: usize) -> Result<Drain, String> {
    let count = devices.len();
    let started = Instant::now();
    let mut workers = Vec::new();
    for c in 0..clients {
        let mine: Vec<usize> = devices.iter().copied().skip(c).step_by(clients).collect();
        let base = base.to_string();
        workers.push(tokio::task::spawn_blocking(move || {
            pull_and_ack(&base, &mine)
        }));
    }
    let (mut pulls, mut acks) = (Vec::with_capacity(count), Vec::with_capacity(count));
    for w in workers {
        let (p, a) = w.await.map_err(|e| e.to_string())??;
        pulls.extend(p);
        acks.extend(a);
    }
    Ok(Drain {
        count,
        took: started.elapsed(),
        pulls,
        acks,
    })
}

/// How many device queues (`DEVnnnnnn/INBOX`) `GET /v1/queues` lists.
fn device_queues_listed(base: &str) -> Result<usize, String> {
    let v: serde_json::Value = ureq::get(&format!("{base}/v1/queues"))
        .timeout(Duration::from_secs(120))
        .call()
        .map_err(|e| format!("queue list: {e}"))?
        .into_json()
        .map_err(|e| format!("queue list: {e}"))?;
    let queues = v.as_array().ok_or("the queue list is no array")?;
    Ok(queues
        .iter()
        .filter(|q| {
            q["name"]
                .as_str()
                .is_some_and(|n| n.starts_with("DEV") && n.ends_with("/INBOX"))
        })
        .count())
}

/// One client: pull then acknowledge the message of each device in
/// `devices`; (pull latencies, ack latencies).
fn pull_and_ack(base: &str, devices: &[usize]) -> Result<(Vec<Duration>, Vec<Duration>), String> {
    let agent = ureq::AgentBuilder::new()
        .timeout(Duration::from_secs(60))
        .max_idle_connections_per_host(1)
        .build();
    let (mut pulls, mut acks) = (Vec::new(), Vec::new());
    for &d in devices {
        let path = format!("{base}/v1/devices/{}/queues/INBOX/messages", device_name(d));
        let t = Instant::now();
        let answer = agent
            .get(&format!("{path}/next"))
            .call()
            .map_err(|e| format!("pull from {}: {e}", device_name(d)))?;
        if answer.status() != 200 {
            return Err(format!(
                "pull from {}: HTTP {} (no message)",
                device_name(d),
                answer.status()
            ));
        }
        let v: serde_json::Value = answer
            .into_json()
            .map_err(|e| format!("pull from {}: {e}", device_name(d)))?;
        pulls.push(t.elapsed());
        let lease = v["lease"]
            .as_str()
            .ok_or_else(|| format!("pull from {}: no lease in {v}", device_name(d)))?;
        let t = Instant::now();
        agent
            .post(&format!("{path}/ack/{lease}"))
            .call()
            .map_err(|e| format!("ack at {}: {e}", device_name(d)))?
            .into_string()
            .map_err(|e| e.to_string())?;
        acks.push(t.elapsed());
    }
    Ok((pulls, acks))
}

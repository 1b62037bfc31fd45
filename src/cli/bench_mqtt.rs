//! `mqgate bench mqtt`: devices over MQTT (docs/mqtt.md), with the mosquitto
//! broker (Debian `mosquitto`; persistent sessions, QoS 1) doing the same in
//! the same run as the reference. Both servers run as child processes so
//! that their resident memory is their own:
//!
//! 1. idle devices: `--devices` clients connect with persistent sessions and
//!    a QoS 1 subscription each; the server's RSS growth per device;
//! 2. delivery: `--messages` messages of `--size` bytes are queued for
//!    `--receivers` devices while they are offline (mqgate: over the main
//!    job's channel into the device queues; mosquitto: a QoS 1 publisher to
//!    the devices' persistent sessions), then the devices connect and take
//!    them, acknowledging each at once; msgs/s from the first connect to the
//!    last message, and the p99 of the gap between two messages at one
//!    device.
//!
//! Results: docs/performance.md "MQTT".

use super::bench::{ms, p99, run_async};
use crate::channel::sender::{Offer, PIPELINE_BATCHES, SenderConn};
use crate::channel::xmit;
use crate::config::ChannelLimits;
use crate::mqtt::client::{Client, Options};
use bytes::Bytes;
use clap::Args;
use clap::builder::RangedU64ValueParser;
use mqgate_codecs::mq::constants::per;
use mqgate_codecs::mq::{CharField, Charset, Mqmd};
use mqgate_codecs::mqtt::{Level, Packet, QoS, ReasonCode};
use std::net::SocketAddr;
use std::path::{Path, PathBuf};
use std::process::{Child, Command, ExitCode, Stdio};
use std::sync::Arc;
use std::time::{Duration, Instant};

/// Options of `mqgate bench mqtt`.
#[derive(Args, Debug)]
pub struct MqttBenchArgs {
    /// Idle devices connected at once (at least 1).
    #[arg(long, default_value_t = 10_000, allow_negative_numbers = true, value_parser = RangedU64ValueParser::<usize>::new().range(1..))]
    pub devices: usize,
    /// Messages queued and then delivered (at least 1).
    #[arg(long, default_value_t = 100_000, allow_negative_numbers = true, value_parser = RangedU64ValueParser::<usize>::new().range(1..))]
    pub messages: usize,
    /// Devices the messages are queued for, evenly (1 to 10000).
    #[arg(long, default_value_t = 100, allow_negative_numbers = true, value_parser = RangedU64ValueParser::<usize>::new().range(1..=10_000))]
    pub receivers: usize,
    /// Message size in bytes (0 to 65536).
    #[arg(long, default_value_t = 256, allow_negative_numbers = true, value_parser = RangedU64ValueParser::<usize>::new().range(0..=65_536))]
    pub size: usize,
    /// The mosquitto broker program of the reference.
    #[arg(long, default_value = "/usr/sbin/mosquitto")]
    pub mosquitto: String,
    /// Directory for the servers' files (a fresh subdirectory is created and removed).
    #[arg(long)]
    pub dir: Option<PathBuf>,
}

/// Runs the benchmark and prints a Markdown table.
pub fn run(args: MqttBenchArgs) -> ExitCode {
    let base = args.dir.clone().unwrap_or_else(std::env::temp_dir);
    let dir = base.join(format!("mqgate-bench-mqtt-{}", std::process::id()));
    run_async(&dir, bench(&args, &dir))
}

/// A server this benchmark started; killed when dropped.
struct Server {
    child: Child,
    mqtt: SocketAddr,
    channel: Option<SocketAddr>,
}

impl Drop for Server {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

impl Server {
    /// Resident memory of the server process, in bytes (Linux
    /// /proc/PID/status VmRSS).
    fn rss(&self) -> Result<u64, String> {
        super::bench::vm_rss(&self.child.id().to_string())
    }
}

/// What one system did.
struct Row {
    rss_per_device: f64,
    rate: f64,
    p99: Duration,
}

async fn bench(args: &MqttBenchArgs, dir: &Path) -> Result<(), String> {
    let per_device = args.messages.div_ceil(args.receivers);
    let total = per_device * args.receivers;
    println!(
        "mqgate bench mqtt: {} idle devices; {total} messages of {} bytes queued for {} devices, QoS 1",
        args.devices, args.size, args.receivers
    );
    println!();
    println!(
        "| system | RSS per idle device, bytes | delivery msgs/s | p99 gap between messages at a device, ms |"
    );
    println!("|---|---:|---:|---:|");
    let mq = {
        let server = start_mqgate(&dir.join("mqgate"), per_device)?;
        let rss = idle(&server, args.devices).await?;
        load_mqgate(&server, args.receivers, per_device, args.size).await?;
        let (rate, gap) = drain(&server, args.receivers, per_device, false).await?;
        Row {
            rss_per_device: rss,
            rate,
            p99: gap,
        }
    };
    print_row("mqgate (device queues, durable)", &mq);
    match start_mosquitto(&args.mosquitto, &dir.join("mosquitto")) {
        Ok(server) => {
            let rss = idle(&server, args.devices).await?;
            load_mosquitto(&server, args.receivers, per_device, args.size).await?;
            let (rate, gap) = drain(&server, args.receivers, per_device, true).await?;
            let reference = Row {
                rss_per_device: rss,
                rate,
                p99: gap,
            };
            print_row("mosquitto (persistent sessions, QoS 1)", &reference);
            println!();
            println!(
                "ratio mqgate / mosquitto: RSS per device {:.2}x, delivery {:.2}x",
                mq.rss_per_device / reference.rss_per_device.max(1.0),
                mq.rate / reference.rate
            );
        }
        Err(e) => println!("\nSKIP: reference: {e}"),
    }
    Ok(())
}

fn print_row(name: &str, r: &Row) {
    println!(
        "| {name} | {:.0} | {:.0} | {:.3} |",
        r.rss_per_device,
        r.rate,
        ms(r.p99)
    );
}

/// Starts `mqgate run` (this program) on free ports with data in `dir`,
/// its log on `dir/gateway.log` at `warn` (a log line per put and get
/// would be measured too otherwise).
fn start_mqgate(dir: &Path, per_device: usize) -> Result<Server, String> {
    std::fs::create_dir_all(dir).map_err(|e| e.to_string())?;
    let config = dir.join("gateway.yaml");
    std::fs::write(
        &config,
        format!("devices:\n  max_depth: {}\n", per_device + 1),
    )
    .map_err(|e| e.to_string())?;
    let log_path = dir.join("gateway.log");
    let log = std::fs::File::create(&log_path).map_err(|e| e.to_string())?;
    let exe = std::env::current_exe().map_err(|e| e.to_string())?;
    let child = Command::new(exe)
        .args(["run", "--log-format", "human", "--config"])
        .arg(&config)
        .arg("--data-dir")
        .arg(dir.join("data"))
        .args([
            "--http",
            "127.0.0.1:0",
            "--listen",
            "127.0.0.1:0",
            "--mqtt",
            "127.0.0.1:0",
        ])
        .env("RUST_LOG", "warn,mqgate::gateway=info")
        .stdout(Stdio::null())
        .stderr(log)
        .spawn()
        .map_err(|e| format!("cannot start mqgate run: {e}"))?;
    let mut server = Server {
        child,
        mqtt: "127.0.0.1:0".parse().map_err(|_| "address")?,
        channel: None,
    };
    let until = Instant::now() + Duration::from_secs(30);
    while Instant::now() < until {
        let text = std::fs::read_to_string(&log_path).unwrap_or_default();
        if let Some(line) = text.lines().find(|l| l.contains("mqgate running")) {
            let addr = |key: &str| -> Option<SocketAddr> {
                let at = line.find(&format!(" {key}="))? + key.len() + 2;
                line[at..].split_whitespace().next()?.parse().ok()
            };
            server.mqtt = addr("mqtt").ok_or("no mqtt address in the log")?;
            server.channel = addr("listener");
            return Ok(server);
        }
        std::thread::sleep(Duration::from_millis(20));
    }
    Err(format!("mqgate did not start; see {}", log_path.display()))
}

/// Starts mosquitto with persistence in `dir` on a free port.
fn start_mosquitto(program: &str, dir: &Path) -> Result<Server, String> {
    if !Path::new(program).exists() && which(program).is_none() {
        return Err(format!(
            "{program} is not installed (Debian package mosquitto)"
        ));
    }
    std::fs::create_dir_all(dir).map_err(|e| e.to_string())?;
    let port = {
        let l = std::net::TcpListener::bind("127.0.0.1:0").map_err(|e| e.to_string())?;
        l.local_addr().map_err(|e| e.to_string())?.port()
    };
    let conf = dir.join("mosquitto.conf");
    // Persistent sessions and their queued messages on disk; no limit on
    // queued messages (its default is 1000 per client); mqgate's window of
    // 32 messages in flight per device.
    std::fs::write(
        &conf,
        format!(
            "listener {port} 127.0.0.1\nallow_anonymous true\npersistence true\npersistence_location {}/\nmax_queued_messages 0\nmax_inflight_messages 32\nset_tcp_nodelay true\nmax_connections -1\nlog_dest none\n",
            dir.display()
        ),
    )
    .map_err(|e| e.to_string())?;
    let child = Command::new(program)
        .arg("-c")
        .arg(&conf)
        .stdout(Stdio::null())
        .stderr(Stdio::null())
        .spawn()
        .map_err(|e| format!("cannot start {program}: {e}"))?;
    let addr: SocketAddr = format!("127.0.0.1:{port}").parse().map_err(|_| "address")?;
    let server = Server {
        child,
        mqtt: addr,
        channel: None,
    };
    let until = Instant::now() + Duration::from_secs(10);
    while Instant::now() < until {
        if std::net::TcpStream::connect(addr).is_ok() {
            return Ok(server);
        }
        std::thread::sleep(Duration::from_millis(20));
    }
    Err(format!("{program} did not start on {addr}"))
}

fn which(program: &str) -> Option<PathBuf> {
    std::env::var_os("PATH").and_then(|p| {
        std::env::split_paths(&p)
            .map(|d| d.join(program))
            .find(|f| f.exists())
    })
}

/// A device connected with a persistent session, subscribed to INBOX at
/// QoS 1 (mqgate: its device queue INBOX; mosquitto: topic
/// `DEVICE/INBOX`), retrying while the server's listen queue is full.
async fn device(addr: SocketAddr, id: &str, broker: bool) -> Result<Client, String> {
    let o = Options::persistent(id, Level::V311);
    let mut tries = 0;
    let mut c = loop {
        match Client::connect(addr, &o).await {
            Ok((c, a)) if a.code == ReasonCode::SUCCESS => break c,
            Ok((_, a)) => return Err(format!("{id}: CONNACK {}", a.code)),
            Err(e) if tries >= 100 => return Err(format!("{id}: {e}")),
            Err(_) => {
                tries += 1;
                tokio::time::sleep(Duration::from_millis(50)).await;
            }
        }
    };
    let topic = if broker {
        format!("{id}/INBOX")
    } else {
        "INBOX".into()
    };
    let s = c
        .subscribe(1, &topic, QoS::AtLeastOnce)
        .await
        .map_err(|e| e.to_string())?;
    if s.codes != [ReasonCode::GRANTED_QOS_1] {
        return Err(format!("{id}: SUBACK {:?}", s.codes));
    }
    Ok(c)
}

/// Connects `n` devices named `prefix` + number, 256 at a time.
async fn connect_all(
    addr: SocketAddr,
    prefix: &str,
    n: usize,
    broker: bool,
) -> Result<Vec<Client>, String> {
    let gate = Arc::new(tokio::sync::Semaphore::new(256));
    let tasks: Vec<_> = (0..n)
        .map(|i| {
            let gate = Arc::clone(&gate);
            let id = format!("{prefix}{i:05}");
            tokio::spawn(async move {
                let _permit = gate.acquire().await.map_err(|e| e.to_string())?;
                device(addr, &id, broker).await
            })
        })
        .collect();
    let mut out = Vec::with_capacity(n);
    for t in tasks {
        out.push(t.await.map_err(|e| e.to_string())??);
    }
    Ok(out)
}

/// RSS growth per device for `n` idle connected devices.
async fn idle(server: &Server, n: usize) -> Result<f64, String> {
    tokio::time::sleep(Duration::from_millis(500)).await;
    let before = server.rss()?;
    let clients = connect_all(server.mqtt, "DEVI", n, server.channel.is_none()).await?;
    tokio::time::sleep(Duration::from_secs(1)).await;
    let after = server.rss()?;
    drop(clients);
    Ok(after.saturating_sub(before) as f64 / n as f64)
}

/// Queues `per_device` messages of `size` bytes for each of `receivers`
/// devices `DEVR00000`... over the gateway's channel (pipelined persistent
/// batches of 50, as `mqgate send`).
async fn load_mqgate(
    server: &Server,
    receivers: usize,
    per_device: usize,
    size: usize,
) -> Result<(), String> {
    let addr = server.channel.ok_or("no channel listener")?;
    let md = Mqmd {
        format: CharField::new("MQSTR", Charset::Ascii).unwrap_or_default(),
        persistence: per::PERSISTENT,
        ..Mqmd::default()
    };
    let data = vec![b'x'; size];
    let msgs: Vec<Bytes> = (0..receivers)
        .map(|r| {
            xmit::wrap(&format!("INBOX%DEVR{r:05}"), "MQGATE", md.clone(), &data).map(Bytes::from)
        })
        .collect::<Result<_, _>>()?;
    // The default receiver channel agrees batches of up to 50.
    let batch = 50usize;
    let offer = Offer {
        channel: "TO.MQGATE".into(),
        sending_q_mgr: "BENCH".into(),
        receiving_q_mgr: String::new(),
        limits: ChannelLimits {
            batch_size: batch as u32,
            max_msg_length: 4 * 1024 * 1024,
            heartbeat_ms: 0,
        },
        last_confirmed_seq: 0,
    };
    let mut conn = SenderConn::connect(addr, &offer)
        .await
        .map_err(|e| e.to_string())?;
    // Round robin over the devices, so each device's messages interleave.
    let all: Vec<Bytes> = (0..per_device * receivers)
        .map(|i| msgs[i % receivers].clone())
        .collect();
    let mut next = 0;
    while next < all.len() || conn.unconfirmed() > 0 {
        if next < all.len() && conn.unconfirmed() < PIPELINE_BATCHES {
            let end = (next + batch).min(all.len());
            conn.start_batch(&all[next..end])
                .await
                .map_err(|e| e.to_string())?;
            next = end;
            continue;
        }
        conn.wait_confirm().await.map_err(|e| e.to_string())?;
    }
    conn.close("bench loaded").await.map_err(|e| e.to_string())
}

/// The same for mosquitto: the devices' persistent sessions exist first
/// (subscribed, then gone), then one client publishes every message at
/// QoS 1, up to 1000 unacknowledged.
async fn load_mosquitto(
    server: &Server,
    receivers: usize,
    per_device: usize,
    size: usize,
) -> Result<(), String> {
    drop(connect_all(server.mqtt, "DEVR", receivers, true).await?);
    let o = Options {
        clean_start: true,
        ..Options::persistent("LOADER", Level::V311)
    };
    let (mut c, _) = Client::connect(server.mqtt, &o)
        .await
        .map_err(|e| e.to_string())?;
    let data = vec![b'x'; size];
    let total = receivers * per_device;
    let (mut sent, mut acked, mut id) = (0usize, 0usize, 0u16);
    while acked < total {
        if sent < total && sent - acked < 1000 {
            id = if id == u16::MAX { 1 } else { id + 1 };
            c.publish(
                &format!("DEVR{:05}/INBOX", sent % receivers),
                QoS::AtLeastOnce,
                id,
                &data,
            )
            .await
            .map_err(|e| e.to_string())?;
            sent += 1;
            continue;
        }
        match c.recv().await.map_err(|e| e.to_string())? {
            Some(Packet::Puback(_)) => acked += 1,
            Some(_) => {}
            None => return Err("mosquitto closed the loader's connection".into()),
        }
    }
    Ok(())
}

/// The `receivers` devices connect and take `per_device` messages each,
/// acknowledging each at once: (msgs/s, p99 gap between two messages at a
/// device).
async fn drain(
    server: &Server,
    receivers: usize,
    per_device: usize,
    broker: bool,
) -> Result<(f64, Duration), String> {
    let started = Instant::now();
    let clients = connect_all(server.mqtt, "DEVR", receivers, broker).await?;
    let tasks: Vec<_> = clients
        .into_iter()
        .map(|mut c| {
            tokio::spawn(async move {
                let mut gaps = Vec::with_capacity(per_device);
                let mut last = Instant::now();
                let mut got = 0;
                while got < per_device {
                    match tokio::time::timeout(Duration::from_secs(60), c.recv()).await {
                        Ok(Ok(Some(Packet::Publish(p)))) => {
                            let now = Instant::now();
                            gaps.push(now - last);
                            last = now;
                            got += 1;
                            if let Some(id) = p.packet_id {
                                c.puback(id).await.map_err(|e| e.to_string())?;
                            }
                        }
                        Ok(Ok(Some(_))) => {}
                        Ok(Ok(None)) => {
                            return Err("the server closed a device's connection".to_string());
                        }
                        Ok(Err(e)) => return Err(e.to_string()),
                        Err(_) => {
                            return Err(format!(
                                "a device got {got} of {per_device} messages, then nothing for 60 s"
                            ));
                        }
                    }
                }
                Ok::<_, String>(gaps)
            })
        })
        .collect();
    let mut gaps = Vec::new();
    for t in tasks {
        gaps.extend(t.await.map_err(|e| e.to_string())??);
    }
    let took = started.elapsed();
    Ok((
        (receivers * per_device) as f64 / took.as_secs_f64(),
        p99(&gaps),
    ))
}

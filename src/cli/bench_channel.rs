//! `mqgate bench channel`: sender → channel → receiver → device queue, in
//! one process over loopback TCP, with nats-server (JetStream, file storage)
//! doing the same message count and size as the reference in the same run.
//! Results: docs/performance.md "Message channels".

use super::bench::{ms, p99, run_async};
use crate::channel::StatusBoard;
use crate::channel::receiver::Receivers;
use crate::channel::sender::{Offer, PIPELINE_BATCHES, SenderConn};
use crate::channel::xmit;
use crate::config::DEFAULT_CHANNEL_MAX_MSG_LENGTH;
use crate::config::{ChannelDef, ChannelLimits, Config, default_channels};
use crate::mqi::{Mqi, QueueExits};
use crate::qmgr::QueueManager;
use crate::store::redb::RedbStore;
use bytes::Bytes;
use clap::Args;
use clap::builder::RangedU64ValueParser;
use mqgate_codecs::mq::constants::per;
use mqgate_codecs::mq::xqh::XQH_LENGTH;
use mqgate_codecs::mq::{CharField, Charset, Mqmd};
use std::collections::VecDeque;
use std::net::SocketAddr;
use std::path::{Path, PathBuf};
use std::process::ExitCode;
use std::sync::Arc;
use std::time::{Duration, Instant};

/// The largest `--size`: the channel's default max_msg_length less the
/// MQXQH (IBM MQ "MQXQH - Transmission-queue header": 428 bytes).
const MAX_DATA: u64 = DEFAULT_CHANNEL_MAX_MSG_LENGTH as u64 - XQH_LENGTH as u64;

/// The largest `--batch`: IBM MQ's BATCHSZ range is 1 through 9999 (IBM MQ
/// "Batch size (BATCHSZ)").
const MAX_BATCH: u64 = 9999;

/// Options of `mqgate bench channel`.
#[derive(Args, Debug)]
pub struct ChannelBenchArgs {
    /// Messages per scenario (at least 1; fewer than 100 are raised to 100).
    #[arg(long, default_value_t = 5000, allow_negative_numbers = true, value_parser = RangedU64ValueParser::<usize>::new().range(1..))]
    pub messages: usize,
    /// Message data size in bytes (the MQXQH's 428 bytes come on top): 0 to
    /// the channel's default max_msg_length 4194304 less those 428.
    #[arg(long, default_value_t = 1024, allow_negative_numbers = true, value_parser = RangedU64ValueParser::<usize>::new().range(0..=MAX_DATA))]
    pub size: usize,
    /// Batch size of the persistent scenario, 1 to 9999; NATS keeps this many
    /// times PIPELINE_BATCHES publishes in flight, as many as mqgate may have
    /// unconfirmed.
    #[arg(long, default_value_t = 50, allow_negative_numbers = true, value_parser = RangedU64ValueParser::<usize>::new().range(1..=MAX_BATCH))]
    pub batch: usize,
    /// The nats-server program of the reference.
    #[arg(long, default_value = "nats-server")]
    pub nats_server: String,
    /// Directory for store files (a fresh subdirectory is created and removed).
    #[arg(long)]
    pub dir: Option<PathBuf>,
}

/// One scenario's result.
pub(super) struct Result1 {
    pub(super) rate: f64,
    pub(super) p99: Duration,
}

/// Runs the benchmark and prints a Markdown table.
pub fn run(args: ChannelBenchArgs) -> ExitCode {
    let base = args.dir.clone().unwrap_or_else(std::env::temp_dir);
    let dir = base.join(format!("mqgate-bench-channel-{}", std::process::id()));
    run_async(&dir, bench(&args, &dir))
}

async fn bench(args: &ChannelBenchArgs, dir: &Path) -> Result<(), String> {
    let n = args.messages.max(100);
    let data = vec![b'x'; args.size];
    println!(
        "mqgate bench channel: {n} messages of {} bytes, persistent batch {}",
        args.size, args.batch
    );
    println!();
    println!("| system | scenario | msgs/s | p99 latency ms |");
    println!("|---|---|---:|---:|");
    let mq_p = mqgate_scenario(&dir.join("p"), n, &data, args.batch, true).await?;
    println!(
        "| mqgate | persistent, batch {}, {} batches in flight (p99 of a batch's first frame to its confirm) | {:.0} | {:.3} |",
        args.batch,
        PIPELINE_BATCHES,
        mq_p.rate,
        ms(mq_p.p99)
    );
    let mq_np = mqgate_scenario(&dir.join("np"), n, &data, args.batch, false).await?;
    println!(
        "| mqgate | non-persistent, fast path (p99 of message + heartbeat round trip, 1 in 50) | {:.0} | {:.3} |",
        mq_np.rate,
        ms(mq_np.p99)
    );
    #[cfg(feature = "nats")]
    use super::bench_nats::nats_reference;
    match nats_reference(args, &dir.join("nats"), n, &data).await {
        Ok(Some((js, core))) => {
            println!(
                "| nats-server JetStream (file) | acknowledged publishes, {} in flight (p99 of publish to ack) | {:.0} | {:.3} |",
                PIPELINE_BATCHES * args.batch.max(1),
                js.rate,
                ms(js.p99)
            );
            println!(
                "| nats-server core | publishes (p99 of publish + flush, 1 in 50) | {:.0} | {:.3} |",
                core.rate,
                ms(core.p99)
            );
            println!();
            println!(
                "ratio mqgate / reference: persistent {:.2}x, non-persistent {:.2}x",
                mq_p.rate / js.rate,
                mq_np.rate / core.rate
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

async fn mqgate_scenario(
    dir: &Path,
    n: usize,
    data: &[u8],
    batch: usize,
    persistent: bool,
) -> Result<Result1, String> {
    let mut config = Config::default();
    config.storage.data_dir = dir.to_path_buf();
    config.devices.max_depth = n + 1;
    let store = RedbStore::open(dir).map_err(|e| e.to_string())?;
    let qm = Arc::new(QueueManager::open(&config, Arc::new(store)).map_err(|e| e.to_string())?);
    // As `mqgate run` wires it: the receiver puts through the queue
    // interface (no queue exits are configured here).
    let mqi = Mqi::new(
        Arc::clone(&qm),
        Arc::new(QueueExits::new(&config.exits, qm.name())),
    );
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0")
        .await
        .map_err(|e| e.to_string())?;
    let addr: SocketAddr = listener.local_addr().map_err(|e| e.to_string())?;
    let defs: Vec<_> = default_channels()
        .into_iter()
        .filter_map(|c| match c {
            ChannelDef::Receiver(r) => Some(r),
            ChannelDef::Sender(_) | ChannelDef::MqClient(_) => None,
        })
        .collect();
    let receivers = Arc::new(Receivers::new(
        mqi.clone(),
        Arc::new(StatusBoard::default()),
        &defs,
    ));
    let (stop_tx, stop_rx) = tokio::sync::watch::channel(false);
    tokio::spawn(receivers.serve(listener, stop_rx));
    let md = Mqmd {
        format: CharField::new("MQSTR", Charset::Ascii).unwrap_or_default(),
        persistence: if persistent {
            per::PERSISTENT
        } else {
            per::NOT_PERSISTENT
        },
        ..Mqmd::default()
    };
    let msg = Bytes::from(xmit::wrap("INBOX%DEV0001", "MQGATE", md, data)?);
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
    let mut lat = Vec::new();
    let start = Instant::now();
    if persistent {
        // Pipelined as `mqgate send` does: up to PIPELINE_BATCHES batches
        // unconfirmed; a batch's latency runs from its first frame to the
        // (cumulative) CONFIRM that covers it.
        let batch_msgs: Vec<Bytes> = vec![msg.clone(); batch];
        let mut started: VecDeque<(u64, Instant)> = VecDeque::new();
        let mut left = n;
        while left > 0 || conn.unconfirmed() > 0 {
            if left > 0 && conn.unconfirmed() < PIPELINE_BATCHES {
                let k = left.min(batch);
                let t = Instant::now();
                let seq = conn
                    .start_batch(&batch_msgs[..k])
                    .await
                    .map_err(|e| e.to_string())?;
                started.push_back((seq, t));
                left -= k;
                continue;
            }
            let seq = conn.wait_confirm().await.map_err(|e| e.to_string())?;
            while let Some(&(s, t)) = started.front()
                && s <= seq
            {
                lat.push(t.elapsed());
                started.pop_front();
            }
        }
        conn.close("bench done").await.map_err(|e| e.to_string())?;
    } else {
        for i in 0..n {
            let t = Instant::now();
            conn.send_fast(msg.clone())
                .await
                .map_err(|e| e.to_string())?;
            if i % 50 == 0 {
                conn.heartbeat().await.map_err(|e| e.to_string())?;
                lat.push(t.elapsed());
            }
        }
        conn.close("bench done").await.map_err(|e| e.to_string())?;
    }
    let total = start.elapsed();
    let depth = mqi.depth("DEV0001/INBOX").unwrap_or(0);
    let _ = stop_tx.send(true);
    if depth != n {
        return Err(format!("{depth} messages on the device queue, {n} sent"));
    }
    Ok(Result1 {
        rate: n as f64 / total.as_secs_f64(),
        p99: p99(&lat),
    })
}

/// The references need the NATS client, built only with the `nats` feature.
#[cfg(not(feature = "nats"))]
async fn nats_reference(
    _args: &ChannelBenchArgs,
    _dir: &Path,
    _n: usize,
    _data: &[u8],
) -> Result<Option<(Result1, Result1)>, String> {
    Err("mqgate was built without the `nats` feature; measure the NATS references with `cargo run --release --features nats -- bench channel`".into())
}

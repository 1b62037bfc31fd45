//! The NATS references of `mqgate bench channel`, `mqgate bench sbs`,
//! `mqgate bench rv` and `mqgate bench dq` (the `nats` feature, on by
//! default): nats-server JetStream acknowledged publishes and core NATS
//! publishes of the same messages, core NATS fan-out to many subscribers of
//! one subject, and a JetStream work queue with pull consumers, in the same
//! run. The reference of `mqgate bench rv --matching` is
//! src/cli/bench_nats_match.rs.

use super::bench::p99;
use super::bench_channel::{ChannelBenchArgs, Result1};
use super::bench_rv::{FanoutResult, Tally};
use super::bench_sbs::SbsResult;
use crate::channel::sender::PIPELINE_BATCHES;
use bytes::Bytes;
use futures_util::StreamExt;
use std::collections::VecDeque;
use std::path::Path;
use std::process::{Child, Command, Stdio};
use std::sync::Arc;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::time::{Duration, Instant};

/// Stops the nats-server this benchmark started.
pub(super) struct NatsServer(Child);

impl NatsServer {
    /// The server's process id.
    pub(super) fn pid(&self) -> u32 {
        self.0.id()
    }
}

impl Drop for NatsServer {
    fn drop(&mut self) {
        let _ = self.0.kill();
        let _ = self.0.wait();
    }
}

/// Starts `program` on a free loopback port — with JetStream storing in
/// `js_dir` when given — and connects to it: the guard that stops the
/// server when dropped, the client and the server's URL; `Ok(None)` when
/// the program is not installed.
pub(super) async fn start_nats(
    program: &str,
    js_dir: Option<&Path>,
) -> Result<Option<(NatsServer, async_nats::Client, String)>, String> {
    let port = std::net::TcpListener::bind("127.0.0.1:0")
        .and_then(|l| l.local_addr())
        .map_err(|e| e.to_string())?
        .port();
    let mut cmd = Command::new(program);
    cmd.args(["-a", "127.0.0.1", "-p", &port.to_string()]);
    if let Some(dir) = js_dir {
        std::fs::create_dir_all(dir).map_err(|e| e.to_string())?;
        cmd.args(["-js", "-sd"]).arg(dir);
    }
    let server = match cmd.stdout(Stdio::null()).stderr(Stdio::null()).spawn() {
        Ok(c) => NatsServer(c),
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => return Ok(None),
        Err(e) => return Err(format!("cannot start {program}: {e}")),
    };
    let url = format!("nats://127.0.0.1:{port}");
    for _ in 0..100 {
        if let Ok(c) = async_nats::connect(&url).await {
            return Ok(Some((server, c, url)));
        }
        tokio::time::sleep(Duration::from_millis(50)).await;
    }
    Err(format!("nats-server did not start on {url}"))
}

pub async fn nats_reference(
    args: &ChannelBenchArgs,
    dir: &Path,
    n: usize,
    data: &[u8],
) -> Result<Option<(Result1, Result1)>, String> {
    let Some((_server, client, _)) = start_nats(&args.nats_server, Some(dir)).await? else {
        return Ok(None);
    };
    let js = async_nats::jetstream::new(client.clone());
    js.create_stream(async_nats::jetstream::stream::Config {
        name: "BENCH".into(),
        subjects: vec!["bench.>".into()],
        storage: async_nats::jetstream::stream::StorageType::File,
        ..Default::default()
    })
    .await
    .map_err(|e| format!("JetStream stream: {e}"))?;
    let payload = Bytes::from(data.to_vec());
    // As many acknowledged publishes in flight as mqgate may have messages
    // unconfirmed (PIPELINE_BATCHES batches); a publish's latency runs from
    // the publish to its ack.
    let window = PIPELINE_BATCHES * args.batch.max(1);
    let mut lat = Vec::new();
    let start = Instant::now();
    let mut acks = VecDeque::with_capacity(window);
    for _ in 0..n {
        if acks.len() >= window
            && let Some((t, ack)) = acks.pop_front()
        {
            let ack: async_nats::jetstream::context::PublishAckFuture = ack;
            ack.await.map_err(|e| format!("JetStream ack: {e}"))?;
            lat.push(Instant::elapsed(&t));
        }
        let t = Instant::now();
        let ack = js
            .publish("bench.dev0001", payload.clone())
            .await
            .map_err(|e| format!("JetStream publish: {e}"))?;
        acks.push_back((t, ack));
    }
    for (t, ack) in acks {
        ack.await.map_err(|e| format!("JetStream ack: {e}"))?;
        lat.push(t.elapsed());
    }
    let js_result = Result1 {
        rate: n as f64 / start.elapsed().as_secs_f64(),
        p99: p99(&lat),
    };
    let mut lat = Vec::new();
    let start = Instant::now();
    for i in 0..n {
        let t = Instant::now();
        client
            .publish("core.dev0001", payload.clone())
            .await
            .map_err(|e| format!("publish: {e}"))?;
        if i % 50 == 0 {
            client.flush().await.map_err(|e| format!("flush: {e}"))?;
            lat.push(t.elapsed());
        }
    }
    client.flush().await.map_err(|e| format!("flush: {e}"))?;
    let core = Result1 {
        rate: n as f64 / start.elapsed().as_secs_f64(),
        p99: p99(&lat),
    };
    Ok(Some((js_result, core)))
}

/// Core NATS fan-out as `mqgate bench sbs` measures it: `subscribers`
/// subscriptions to one subject on one connection, one publisher on another,
/// `n` publishes of `data`, one in flight: a publish's latency runs from the
/// publish to its delivery to the last subscriber. `Ok(None)` when
/// `nats_server` is not installed.
pub async fn sbs_reference(
    nats_server: &str,
    n: usize,
    subscribers: usize,
    data: &[u8],
) -> Result<Option<SbsResult>, String> {
    let Some((_server, receiver, url)) = start_nats(nats_server, None).await? else {
        return Ok(None);
    };
    let delivered = Arc::new(AtomicUsize::new(0));
    let arrived = Arc::new(tokio::sync::Notify::new());
    let mut tasks = Vec::with_capacity(subscribers);
    for _ in 0..subscribers {
        let mut sub = receiver
            .subscribe("sbs.bench")
            .await
            .map_err(|e| format!("subscribe: {e}"))?;
        let (delivered, arrived) = (Arc::clone(&delivered), Arc::clone(&arrived));
        tasks.push(tokio::spawn(async move {
            while sub.next().await.is_some() {
                delivered.fetch_add(1, Ordering::AcqRel);
                arrived.notify_one();
            }
        }));
    }
    // The subscriptions are on the server once a flush has come back.
    receiver.flush().await.map_err(|e| format!("flush: {e}"))?;
    let publisher = async_nats::connect(&url)
        .await
        .map_err(|e| format!("connect: {e}"))?;
    let payload = Bytes::from(data.to_vec());
    let mut lat = Vec::with_capacity(n);
    let start = Instant::now();
    for k in 0..n {
        let t = Instant::now();
        publisher
            .publish("sbs.bench", payload.clone())
            .await
            .map_err(|e| format!("publish: {e}"))?;
        publisher.flush().await.map_err(|e| format!("flush: {e}"))?;
        let target = subscribers * (k + 1);
        while delivered.load(Ordering::Acquire) < target {
            if tokio::time::timeout(Duration::from_secs(60), arrived.notified())
                .await
                .is_err()
            {
                return Err(format!(
                    "{} of {target} deliveries after 60 s",
                    delivered.load(Ordering::Acquire)
                ));
            }
        }
        lat.push(t.elapsed());
    }
    let total = start.elapsed();
    for t in tasks {
        t.abort();
    }
    Ok(Some(SbsResult {
        published: n as f64 / total.as_secs_f64(),
        copies: (n * subscribers) as f64 / total.as_secs_f64(),
        p99: p99(&lat),
    }))
}

/// Core NATS fan-out as `mqgate bench rv` measures it: `subscribers`
/// clients, each on its own connection with one subscription, one
/// publisher on another; `n` payloads of `size` bytes (the message number
/// in the first 4) one in flight, then `n` back to back. `Ok(None)` when
/// `nats_server` is not installed.
pub async fn rv_reference(
    nats_server: &str,
    n: usize,
    subscribers: usize,
    size: usize,
) -> Result<Option<Vec<FanoutResult>>, String> {
    let Some((_server, first, url)) = start_nats(nats_server, None).await? else {
        return Ok(None);
    };
    let tally = Tally::new(2 * n);
    let mut tasks = Vec::with_capacity(subscribers);
    let mut clients = vec![first];
    while clients.len() < subscribers {
        clients.push(
            async_nats::connect(&url)
                .await
                .map_err(|e| format!("connect: {e}"))?,
        );
    }
    for client in &clients {
        let mut sub = client
            .subscribe("rv.bench")
            .await
            .map_err(|e| format!("subscribe: {e}"))?;
        client.flush().await.map_err(|e| format!("flush: {e}"))?;
        let tally = Arc::clone(&tally);
        tasks.push(tokio::spawn(async move {
            while let Some(m) = sub.next().await {
                if let Some(k) = m.payload.get(..4) {
                    let k = u32::from_be_bytes([k[0], k[1], k[2], k[3]]);
                    tally.record(k as usize);
                }
            }
        }));
    }
    let publisher = async_nats::connect(&url)
        .await
        .map_err(|e| format!("connect: {e}"))?;
    let mut results = Vec::with_capacity(2);
    for (range, one_in_flight) in [(0..n, true), (n..2 * n, false)] {
        let count = range.len();
        let mut published = Vec::with_capacity(count);
        let start = tally.now();
        for (i, k) in range.clone().enumerate() {
            let mut payload = vec![b'x'; size.max(4)];
            payload[..4].copy_from_slice(&(k as u32).to_be_bytes());
            published.push(tally.now());
            publisher
                .publish("rv.bench", Bytes::from(payload))
                .await
                .map_err(|e| format!("publish: {e}"))?;
            if one_in_flight {
                publisher.flush().await.map_err(|e| format!("flush: {e}"))?;
                tally
                    .wait_async(range.start * subscribers + (i + 1) * subscribers)
                    .await?;
            }
        }
        publisher.flush().await.map_err(|e| format!("flush: {e}"))?;
        tally.wait_async(range.end * subscribers).await?;
        let last = tally.last_of(range.clone()).unwrap_or(start);
        let secs = Duration::from_nanos(last.saturating_sub(start)).as_secs_f64();
        results.push(FanoutResult {
            rate: count as f64 / secs,
            deliveries: (count * subscribers) as f64 / secs,
            p99: p99(&tally.latencies(range, &published)),
        });
    }
    for t in tasks {
        t.abort();
    }
    Ok(Some(results))
}

/// JetStream acknowledged publishes as `mqgate bench rv --certified`
/// measures its round trips: a file stream in `dir`, `n` publishes of
/// `size` bytes, one in flight (the next after the previous one's ack); a
/// round trip runs from the publish to its ack. `Ok(None)` when the
/// program is not installed.
pub async fn jetstream_round_trips(
    program: &str,
    dir: &Path,
    n: usize,
    size: usize,
) -> Result<Option<super::bench_rv_cm::RoundTrips>, String> {
    let Some((_server, client, _)) = start_nats(program, Some(dir)).await? else {
        return Ok(None);
    };
    let js = async_nats::jetstream::new(client);
    js.create_stream(async_nats::jetstream::stream::Config {
        name: "BENCHCM".into(),
        subjects: vec!["bench.cm".into()],
        storage: async_nats::jetstream::stream::StorageType::File,
        ..Default::default()
    })
    .await
    .map_err(|e| format!("JetStream stream: {e}"))?;
    let payload = Bytes::from(vec![b'x'; size]);
    let mut lat = Vec::with_capacity(n);
    let start = Instant::now();
    for _ in 0..n {
        let t = Instant::now();
        js.publish("bench.cm", payload.clone())
            .await
            .map_err(|e| format!("JetStream publish: {e}"))?
            .await
            .map_err(|e| format!("JetStream ack: {e}"))?;
        lat.push(t.elapsed());
    }
    Ok(Some(super::bench_rv_cm::RoundTrips {
        rate: n as f64 / start.elapsed().as_secs_f64(),
        p99: p99(&lat),
    }))
}

/// The reference of `mqgate bench dq`: a JetStream work-queue stream (file
/// storage in `dir`) with one durable pull consumer shared by
/// [`WORKERS`](super::bench_dq::WORKERS) pulling clients, each on its own
/// connection and acknowledging every task as it comes; `n` tasks
/// published with at most `window` sent and not yet at a client (and their
/// publish acks pipelined). Dispatch latency runs from the publish to a
/// client's receipt. `Ok(None)` when the program is not installed.
pub async fn jetstream_work_queue(
    program: &str,
    dir: &Path,
    n: usize,
    window: usize,
) -> Result<Option<super::bench_dq::Dispatch>, String> {
    use super::bench_dq::{Receipts, WORKERS};
    use async_nats::jetstream::consumer::{AckPolicy, pull};
    use async_nats::jetstream::stream::{RetentionPolicy, StorageType};
    let Some((_server, client, url)) = start_nats(program, Some(dir)).await? else {
        return Ok(None);
    };
    let js = async_nats::jetstream::new(client);
    let stream = js
        .create_stream(async_nats::jetstream::stream::Config {
            name: "BENCHDQ".into(),
            subjects: vec!["bench.dq".into()],
            storage: StorageType::File,
            retention: RetentionPolicy::WorkQueue,
            ..Default::default()
        })
        .await
        .map_err(|e| format!("JetStream stream: {e}"))?;
    stream
        .create_consumer(pull::Config {
            durable_name: Some("workers".into()),
            ack_policy: AckPolicy::Explicit,
            max_ack_pending: 8 * 1024,
            ..Default::default()
        })
        .await
        .map_err(|e| format!("JetStream consumer: {e}"))?;
    let seen = Receipts::new(n);
    let mut pullers = Vec::new();
    for _ in 0..WORKERS {
        // Each puller on its own connection, as separate worker processes.
        let c = async_nats::connect(&url)
            .await
            .map_err(|e| format!("connect: {e}"))?;
        let consumer: async_nats::jetstream::consumer::PullConsumer = async_nats::jetstream::new(c)
            .get_stream("BENCHDQ")
            .await
            .map_err(|e| format!("JetStream stream: {e}"))?
            .get_consumer("workers")
            .await
            .map_err(|e| format!("JetStream consumer: {e}"))?;
        let seen = Arc::clone(&seen);
        pullers.push(tokio::spawn(async move {
            let Ok(mut messages) = consumer.messages().await else {
                return;
            };
            while let Some(Ok(m)) = messages.next().await {
                if let Some(k) = std::str::from_utf8(&m.payload)
                    .ok()
                    .and_then(|s| s.parse::<usize>().ok())
                {
                    seen.received(k);
                }
                let _ = m.ack().await;
            }
        }));
    }
    let mut acks = VecDeque::new();
    for k in 0..n {
        if k >= window {
            seen.wait_for(k + 1 - window).await?;
        }
        seen.sending(k);
        let ack = js
            .publish("bench.dq", Bytes::from(k.to_string()))
            .await
            .map_err(|e| format!("JetStream publish: {e}"))?;
        acks.push_back(ack);
        if acks.len() >= 256
            && let Some(a) = acks.pop_front()
        {
            a.await.map_err(|e| format!("JetStream ack: {e}"))?;
        }
    }
    for a in acks {
        a.await.map_err(|e| format!("JetStream ack: {e}"))?;
    }
    seen.wait_for(n).await?;
    for p in pullers {
        p.abort();
    }
    Ok(Some(seen.dispatch(n)))
}

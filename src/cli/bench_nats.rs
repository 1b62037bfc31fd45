//! The NATS references of `mqgate bench channel`, `mqgate bench sbs` and
//! `mqgate bench rv` (the `nats` feature, on by default): nats-server
//! JetStream acknowledged publishes and core NATS publishes of the same
//! messages, core NATS fan-out to many subscribers of one subject, and core
//! NATS publishes to many subscriptions on one connection, in the same run.

use super::bench::{p99, vm_rss};
use super::bench_channel::{ChannelBenchArgs, Result1};
use super::bench_rv::{FanoutResult, Tally};
use super::bench_rv_match::NatsMatching;
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
struct NatsServer(Child);

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
async fn start_nats(
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

/// How long the server is left before its memory is read, so that what a
/// burst of requests left behind is collected as it would be at rest.
const SETTLE: Duration = Duration::from_secs(1);

/// Core NATS publishes of `subjects` (empty payloads) as fast as the
/// client takes them, then a flush: publishes per second from the first
/// publish to the flush's answer, by when the server has matched every
/// one.
async fn publish_all(client: &async_nats::Client, subjects: &[String]) -> Result<f64, String> {
    let started = Instant::now();
    for s in subjects {
        client
            .publish(s.clone(), Bytes::new())
            .await
            .map_err(|e| format!("publish {s}: {e}"))?;
    }
    client.flush().await.map_err(|e| format!("flush: {e}"))?;
    Ok(subjects.len() as f64 / started.elapsed().as_secs_f64())
}

/// The reference of `mqgate bench rv --matching`: `subjects` published
/// to a nats-server with no subscription; then, on another nats-server,
/// `patterns` subscribed on one connection (one subscription each) and the
/// same `subjects` published from another. The subscriptions' messages
/// are read and counted; the run fails unless they are `deliveries`, the
/// subscribers mqgate's index found for the same subjects (both then
/// matched the same subscriptions). `Ok(None)` when `program` is not
/// installed.
pub async fn matching_reference(
    program: &str,
    patterns: &[String],
    subjects: &[String],
    deliveries: usize,
) -> Result<Option<NatsMatching>, String> {
    // The publishes without subscriptions go to a server of their own: on
    // nats-server 2.9.10, subjects published before the subscriptions
    // existed were later missing some of their deliveries, in seven runs
    // of ten (docs/performance.md "Rendezvous subjects").
    let rate_idle = match start_nats(program, None).await? {
        Some((_idle_server, idle, _)) => publish_all(&idle, subjects).await?,
        None => return Ok(None),
    };
    let Some((server, publisher, url)) = start_nats(program, None).await? else {
        return Ok(None);
    };
    // What happened to the subscribing connection (a slow consumer, a
    // reconnection), for the error when deliveries are missing.
    let events = Arc::new(std::sync::Mutex::new(Vec::<String>::new()));
    let seen = Arc::clone(&events);
    let subscriber = async_nats::ConnectOptions::new()
        .event_callback(move |event| {
            let seen = Arc::clone(&seen);
            async move {
                if let Ok(mut seen) = seen.lock() {
                    seen.push(event.to_string());
                }
            }
        })
        .connect(&url)
        .await
        .map_err(|e| format!("connect: {e}"))?;
    subscriber
        .flush()
        .await
        .map_err(|e| format!("flush: {e}"))?;
    tokio::time::sleep(SETTLE).await;
    let pid = server.0.id().to_string();
    let before = vm_rss(&pid)?;
    let started = Instant::now();
    let mut subs = Vec::with_capacity(patterns.len());
    for p in patterns {
        subs.push(
            subscriber
                .subscribe(p.clone())
                .await
                .map_err(|e| format!("subscribe {p}: {e}"))?,
        );
    }
    subscriber
        .flush()
        .await
        .map_err(|e| format!("flush: {e}"))?;
    let subscribe = started.elapsed();
    tokio::time::sleep(SETTLE).await;
    let grown = vm_rss(&pid)? as f64 - before as f64;

    let delivered = Arc::new(AtomicUsize::new(0));
    let arrived = Arc::new(tokio::sync::Notify::new());
    // A task per subscription: a stream merging 100,000 subscriptions
    // fell far behind the connection under load.
    let mut drain = tokio::task::JoinSet::new();
    for mut sub in subs {
        let (delivered, arrived) = (Arc::clone(&delivered), Arc::clone(&arrived));
        drain.spawn(async move {
            while sub.next().await.is_some() {
                delivered.fetch_add(1, Ordering::AcqRel);
                arrived.notify_one();
            }
        });
    }
    let rate = publish_all(&publisher, subjects).await?;
    let published = Instant::now();
    let deadline = tokio::time::Instant::now() + Duration::from_secs(60);
    while delivered.load(Ordering::Acquire) < deliveries {
        if tokio::time::timeout_at(deadline, arrived.notified())
            .await
            .is_err()
        {
            break;
        }
    }
    drain.abort_all();
    let got = delivered.load(Ordering::Acquire);
    if got != deliveries {
        let events = events.lock().map(|e| e.join(", ")).unwrap_or_default();
        return Err(format!(
            "nats-server delivered {got} messages where mqgate's index found {deliveries} subscribers for the same subjects ({:.1} s after the last publish; the subscribing connection received {} messages, its events: {events})",
            published.elapsed().as_secs_f64(),
            subscriber.statistics().in_messages.load(Ordering::Relaxed)
        ));
    }
    Ok(Some(NatsMatching {
        subscribe,
        rate,
        rate_idle,
        rss: grown / patterns.len().max(1) as f64,
    }))
}

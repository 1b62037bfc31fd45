//! The NATS reference of `mqgate bench rv --matching` (the `nats` feature,
//! on by default): nats-server holding many subscriptions on one
//! connection, core NATS publishes of the lookup subjects from another,
//! the server's memory per subscription, in the same run
//! (docs/performance.md "Rendezvous subjects").

use super::bench::vm_rss;
use super::bench_nats::start_nats;
use super::bench_rv_match::NatsMatching;
use bytes::Bytes;
use futures_util::StreamExt;
use std::sync::Arc;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::time::{Duration, Instant};

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
    let pid = server.pid().to_string();
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

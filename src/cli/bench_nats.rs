//! The NATS references of `mqgate bench channel` (built with the `nats`
//! feature): nats-server JetStream acknowledged publishes and core NATS
//! publishes of the same messages, in the same run.

use super::bench::p99;
use super::bench_channel::{ChannelBenchArgs, Result1};
use crate::channel::sender::PIPELINE_BATCHES;
use bytes::Bytes;
use std::collections::VecDeque;
use std::path::Path;
use std::process::{Child, Command, Stdio};
use std::time::{Duration, Instant};

/// Stops the nats-server this benchmark started.
struct NatsServer(Child);

impl Drop for NatsServer {
    fn drop(&mut self) {
        let _ = self.0.kill();
        let _ = self.0.wait();
    }
}

pub async fn nats_reference(
    args: &ChannelBenchArgs,
    dir: &Path,
    n: usize,
    data: &[u8],
) -> Result<Option<(Result1, Result1)>, String> {
    let port = std::net::TcpListener::bind("127.0.0.1:0")
        .and_then(|l| l.local_addr())
        .map_err(|e| e.to_string())?
        .port();
    std::fs::create_dir_all(dir).map_err(|e| e.to_string())?;
    let _server = match Command::new(&args.nats_server)
        .args(["-js", "-a", "127.0.0.1", "-p", &port.to_string(), "-sd"])
        .arg(dir)
        .stdout(Stdio::null())
        .stderr(Stdio::null())
        .spawn()
    {
        Ok(c) => NatsServer(c),
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => return Ok(None),
        Err(e) => return Err(format!("cannot start {}: {e}", args.nats_server)),
    };
    let url = format!("nats://127.0.0.1:{port}");
    let mut client = None;
    for _ in 0..100 {
        if let Ok(c) = async_nats::connect(&url).await {
            client = Some(c);
            break;
        }
        tokio::time::sleep(Duration::from_millis(50)).await;
    }
    let client = client.ok_or_else(|| format!("nats-server did not start on {url}"))?;
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

//! `mqgate bench rv --certified`: certified delivery round trips over
//! HTTP — a certified send (`POST /v1/rv/cm/transports/{name}/messages/{subject}`),
//! its delivery to a certified listener reading `GET
//! /v1/rv/cm/transports/{name}/listen` with automatic confirmation, the
//! confirmation back to the sender, seen as its `DELIVERY.COMPLETE`
//! advisory — once with memory ledgers and once with store ledgers
//! (written to disk before each send and confirmation returns), next to
//! nats-server JetStream acknowledged publishes with file storage in the
//! same run (built with the `nats` feature). docs/performance.md
//! "Certified delivery" describes the command.
//!
//! One message in flight: the next send starts once the previous one's
//! DELIVERY.COMPLETE arrived; a round trip's time runs from the start of
//! its send to that advisory (JetStream: from the publish to its ack).

use std::io::BufReader;
use std::path::Path;
use std::sync::Arc;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::time::{Duration, Instant};

use serde_json::{Value, json};

use super::bench::{ms, p99};
use super::bench_rv::{RvBenchArgs, Tally};
use super::sse::EventReader;
use crate::config::Config;
use crate::gateway::Gateway;

/// One system's figures.
pub(super) struct RoundTrips {
    /// Round trips per second.
    pub(super) rate: f64,
    /// p99 of one round trip.
    pub(super) p99: Duration,
}

/// Runs the certified scenarios and the reference; prints a Markdown table.
pub(super) async fn bench(args: &RvBenchArgs, dir: &Path) -> Result<(), String> {
    let n = args.messages;
    println!(
        "mqgate bench rv --certified: {n} certified messages per ledger (a u32 field and a {}-byte opaque field; JetStream: {}-byte payloads), one in flight: send over HTTP, delivery to a certified listener (Server-Sent Events, automatic confirmation), confirmation back to the sender (DELIVERY.COMPLETE); JetStream: acknowledged publishes to a file stream",
        args.size, args.size
    );
    println!();
    println!("| system | ledger | round trips/s | p99 round trip ms |");
    println!("|---|---|---:|---:|");
    let mut config = Config::from_yaml(
        "http:\n  listen: 127.0.0.1:0\nlistener:\n  listen: 127.0.0.1:0\nmqtt:\n  listen: 127.0.0.1:0\n",
        "bench",
    )
    .map_err(|e| e.to_string())?;
    config.storage.data_dir = dir.join("data");
    let gateway = Gateway::start(config).await.map_err(|e| e.to_string())?;
    let base = format!("http://{}", gateway.http_addr());
    let mut mqgate = Vec::new();
    for ledger in ["memory", "store"] {
        let (base, size) = (base.clone(), args.size);
        let r = tokio::task::spawn_blocking(move || round_trips(&base, ledger, n, size))
            .await
            .map_err(|e| e.to_string())??;
        let label = if ledger == "store" {
            "store (synchronous)"
        } else {
            ledger
        };
        println!(
            "| mqgate RVCM over HTTP | {label} | {:.0} | {:.3} |",
            r.rate,
            ms(r.p99)
        );
        mqgate.push(r);
    }
    gateway.stop(Duration::from_secs(10)).await;
    #[cfg(feature = "nats")]
    use super::bench_nats::jetstream_round_trips;
    match jetstream_round_trips(&args.nats_server, &dir.join("nats"), n, args.size).await {
        Ok(Some(js)) => {
            println!(
                "| nats-server JetStream | file | {:.0} | {:.3} |",
                js.rate,
                ms(js.p99)
            );
            println!();
            println!(
                "ratio mqgate / reference (round trips/s): memory {:.2}x, store {:.2}x",
                mqgate[0].rate / js.rate,
                mqgate[1].rate / js.rate
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
async fn jetstream_round_trips(
    _nats_server: &str,
    _dir: &Path,
    _n: usize,
    _size: usize,
) -> Result<Option<RoundTrips>, String> {
    Err("mqgate was built without the `nats` feature; measure the JetStream reference with `cargo run --release --features nats -- bench rv --certified`".into())
}

fn call(agent: &ureq::Agent, method: &str, url: &str, body: &Value) -> Result<Value, String> {
    agent
        .request(method, url)
        .set("Content-Type", "application/json")
        .send_string(&body.to_string())
        .map_err(|e| format!("{method} {url}: {e}"))?
        .into_json()
        .map_err(|e| format!("{method} {url}: {e}"))
}

/// Reads an event stream on its own thread; `on_message` gets each
/// message's data; counts `ready` in `ready`.
fn stream(
    url: String,
    ready: Arc<AtomicUsize>,
    on_message: impl Fn(&str) + Send + 'static,
) -> std::thread::JoinHandle<()> {
    std::thread::spawn(move || {
        let agent = ureq::AgentBuilder::new()
            .timeout_read(Duration::from_secs(120))
            .build();
        let Ok(res) = agent.get(&url).call() else {
            return;
        };
        let mut events = EventReader::new(BufReader::new(res.into_reader()));
        while let Ok(Some(e)) = events.next_event() {
            match e.event.as_str() {
                "ready" => {
                    ready.fetch_add(1, Ordering::AcqRel);
                }
                "message" => on_message(&e.data),
                _ => return,
            }
        }
    })
}

/// The u64 `seqno` field of an advisory's JSON form.
fn seqno_of(data: &str) -> Option<usize> {
    let v: Value = serde_json::from_str(data).ok()?;
    v["fields"]
        .as_array()?
        .iter()
        .find(|f| f["name"] == "seqno")?["value"]
        .as_str()?
        .parse()
        .ok()
}

/// `n` round trips with `ledger` ledgers, on this thread.
fn round_trips(base: &str, ledger: &str, n: usize, size: usize) -> Result<RoundTrips, String> {
    use base64::Engine;
    let agent = ureq::AgentBuilder::new()
        .timeout_read(Duration::from_secs(60))
        .build();
    let upper = ledger.to_ascii_uppercase();
    let (sender, listener, subject) = (
        format!("BENCH.SENDER.{upper}"),
        format!("BENCH.DESK.{upper}"),
        format!("BENCH.CM.{upper}"),
    );
    let transports = format!("{base}/v1/rv/cm/transports");
    call(
        &agent,
        "POST",
        &transports,
        &json!({"name": sender, "ledger": ledger}),
    )?;
    // Pre-registered, so that every message is certified from the first.
    call(
        &agent,
        "POST",
        &format!("{transports}/{sender}/listeners/{listener}"),
        &json!({"action": "add", "subject": subject}),
    )?;
    call(
        &agent,
        "POST",
        &transports,
        &json!({"name": listener, "ledger": ledger, "request_old": true}),
    )?;
    let tally = Tally::new(n);
    let ready = Arc::new(AtomicUsize::new(0));
    let completes = {
        let tally = Arc::clone(&tally);
        stream(
            format!("{base}/v1/rv/listen?subject=_RV.INFO.RVCM.DELIVERY.COMPLETE.{subject}"),
            Arc::clone(&ready),
            move |data| {
                if let Some(k) = seqno_of(data) {
                    tally.record(k.saturating_sub(1));
                }
            },
        )
    };
    let deliveries = stream(
        format!("{transports}/{listener}/listen?subject={subject}&confirm=auto"),
        Arc::clone(&ready),
        |_| {},
    );
    let until = Instant::now() + Duration::from_secs(60);
    loop {
        let certified = ready.load(Ordering::Acquire) == 2
            && agent
                .get(&format!("{transports}/{listener}"))
                .call()
                .ok()
                .and_then(|r| r.into_json::<Value>().ok())
                .is_some_and(|v| v["listener"]["agreements"][0]["state"] == "certified");
        if certified {
            break;
        }
        if Instant::now() > until || completes.is_finished() || deliveries.is_finished() {
            return Err(format!(
                "the {ledger} listener was not certified within 60 s"
            ));
        }
        std::thread::sleep(Duration::from_millis(10));
    }
    let data = base64::engine::general_purpose::STANDARD.encode(vec![b'x'; size]);
    let url = format!("{transports}/{sender}/messages/{subject}");
    let mut published = Vec::with_capacity(n);
    let start = tally.now();
    for k in 0..n {
        let body = format!(
            r#"{{"fields":[{{"name":"n","type":"u32","value":{k}}},{{"name":"data","type":"opaque","value":"{data}"}}]}}"#
        );
        published.push(tally.now());
        agent
            .post(&url)
            .set("Content-Type", "application/json")
            .send_string(&body)
            .map_err(|e| format!("certified send {k}: {e}"))?;
        tally.wait_blocking(k + 1)?;
    }
    let last = tally.last_of(0..n).unwrap_or(start);
    let secs = Duration::from_nanos(last.saturating_sub(start)).as_secs_f64();
    // Closing the transports ends their streams (the advisory stream ends
    // with the gateway).
    for name in [&listener, &sender] {
        agent
            .delete(&format!("{transports}/{name}"))
            .call()
            .map_err(|e| format!("close {name}: {e}"))?;
    }
    let _ = deliveries.join();
    Ok(RoundTrips {
        rate: n as f64 / secs,
        p99: p99(&tally.latencies(0..n, &published)),
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_sequence_number_comes_from_the_advisory_field() {
        // "DELIVERY.COMPLETE": seqno, a u64 (a decimal string in the JSON
        // form, docs/rendezvous.md "JSON form").
        let d = r#"{"subject":"_RV.INFO.RVCM.DELIVERY.COMPLETE.A","fields":[{"name":"ADV_CLASS","type":"string","value":"INFO"},{"name":"subject","type":"string","value":"A"},{"name":"seqno","type":"u64","value":"17"}]}"#;
        assert_eq!(seqno_of(d), Some(17));
        assert_eq!(seqno_of("{}"), None);
    }
}

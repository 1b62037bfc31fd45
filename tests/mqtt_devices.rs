//! Many devices over MQTT at once, and kill -9 of the gateway in the middle
//! of deliveries (docs/mqtt.md "Delivery", "Tests"). Each device is the
//! crate's own MQTT client (`mqgate::mqtt::client`); messages reach the
//! device queues over the main job's channel (`mqgate send`, transmission
//! messages for `INBOX%DEVnnnnn`).
//!
//! The fence used below: the listener handles a connection's packets in
//! order and answers a PINGREQ only after every earlier PUBACK's
//! acknowledgement is durable (docs/mqtt.md "Delivery"), so a device that
//! got PINGRESP after its PUBACK knows the message is gone from the store.

mod common;

use common::{BIN, Gateway};
use mqgate::mqtt::client::{Client, Options};
use mqgate_codecs::mqtt::{Level, Packet, QoS, ReasonCode};
use std::collections::{HashMap, HashSet};
use std::net::SocketAddr;
use std::path::Path;
use std::process::Command;
use std::sync::Arc;
use std::time::{Duration, Instant};

/// Writes one transmission message per (device, payload) for
/// `INBOX%DEVICE` (resolved by the default channel's destination-rewrite
/// exit, as the main job's) and sends them all with `mqgate send`.
fn send(g: &Gateway, dir: &Path, messages: &[(String, Vec<u8>)]) {
    std::fs::create_dir_all(dir).unwrap();
    let mut files = Vec::new();
    for (i, (device, body)) in messages.iter().enumerate() {
        let f = dir.join(format!("{i:06}.xmit"));
        std::fs::write(
            &f,
            common::xmit(&format!("INBOX%{device}"), "MQGATE", true, "MQSTR", body),
        )
        .unwrap();
        files.push(f);
    }
    let out = Command::new(BIN)
        .args([
            "send",
            "--to",
            &g.listen_addr(),
            "--channel",
            "TO.MQGATE",
            "--batch",
            "500",
        ])
        .args(&files)
        .output()
        .unwrap();
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
}

fn mqtt_addr(g: &Gateway) -> SocketAddr {
    format!("127.0.0.1:{}", g.mqtt_port).parse().unwrap()
}

/// A device connected with a persistent session and subscribed to INBOX
/// at QoS 1 (retrying the connect while the listen queue is full).
async fn device(addr: SocketAddr, id: &str, level: Level) -> Client {
    let o = Options::persistent(id, level);
    let mut tries = 0;
    let (mut c, ack) = loop {
        match Client::connect(addr, &o).await {
            Ok(x) => break x,
            Err(e) if tries < 50 => {
                tries += 1;
                let _ = e;
                tokio::time::sleep(Duration::from_millis(100)).await;
            }
            Err(e) => panic!("{id}: {e}"),
        }
    };
    assert_eq!(ack.code, ReasonCode::SUCCESS, "{id}");
    let s = c.subscribe(1, "INBOX", QoS::AtLeastOnce).await.unwrap();
    assert_eq!(s.codes, vec![ReasonCode::GRANTED_QOS_1], "{id}");
    c
}

/// A device's side of delivery: the messages that came while it waited
/// for a PINGRESP (the gateway sends up to its window ahead).
#[derive(Default)]
struct Inbox(std::collections::VecDeque<mqgate_codecs::mqtt::Publish>);

/// Receives one QoS 1 message (waiting at most `idle` for it to start),
/// acknowledges it and waits for the fence (PINGREQ answered: the
/// acknowledgement is durable). Returns the payload; `None` when the
/// connection ended or nothing came within `idle`.
/// `acking` hears of each payload just before its PUBACK goes.
async fn take_one(
    c: &mut Client,
    inbox: &mut Inbox,
    idle: Duration,
    acking: impl FnOnce(&[u8]),
) -> Option<Vec<u8>> {
    let p = match inbox.0.pop_front() {
        Some(p) => p,
        None => match tokio::time::timeout(idle, c.recv()).await.ok()?.ok()?? {
            Packet::Publish(p) => p,
            // The gateway closing the connection (stopping, Keep Alive).
            Packet::Disconnect(_) => return None,
            other => panic!("expected PUBLISH, got {other:?}"),
        },
    };
    assert_eq!(p.qos, QoS::AtLeastOnce);
    assert_eq!(p.topic, "INBOX");
    acking(&p.payload);
    c.puback(p.packet_id.unwrap()).await.ok()?;
    c.send(&Packet::Pingreq).await.ok()?;
    loop {
        match c.recv().await.ok()?? {
            Packet::Pingresp => return Some(p.payload.to_vec()),
            Packet::Publish(q) => inbox.0.push_back(q),
            other => panic!("expected PINGRESP, got {other:?}"),
        }
    }
}

fn runtime() -> tokio::runtime::Runtime {
    tokio::runtime::Builder::new_multi_thread()
        .worker_threads(2)
        .enable_all()
        .build()
        .unwrap()
}

/// How many devices the test connects at once: 10,000 (docs/mqtt.md
/// "Tests": the same number `mqgate bench mqtt` holds idle).
const DEVICES: usize = 10_000;

#[test]
fn ten_thousand_devices_connected_at_once_each_get_their_message_exactly_once() {
    let dir = tempfile::tempdir().unwrap();
    let g = Gateway::start(dir.path(), "");
    let addr = mqtt_addr(&g);
    let rt = runtime();
    let started = Instant::now();
    let names: Vec<String> = (0..DEVICES).map(|i| format!("DEV{i:05}")).collect();
    // Half the devices speak MQTT 3.1.1, half 5.0.
    let clients: Vec<Client> = rt.block_on(async {
        let gate = Arc::new(tokio::sync::Semaphore::new(256));
        let tasks: Vec<_> = names
            .iter()
            .enumerate()
            .map(|(i, n)| {
                let (n, gate) = (n.clone(), Arc::clone(&gate));
                let level = if i % 2 == 0 { Level::V311 } else { Level::V5 };
                tokio::spawn(async move {
                    let _p = gate.acquire().await.unwrap();
                    device(addr, &n, level).await
                })
            })
            .collect();
        let mut out = Vec::new();
        for t in tasks {
            out.push(t.await.unwrap());
        }
        out
    });
    let connected = started.elapsed();
    // One message each, its payload the device's name.
    let messages: Vec<(String, Vec<u8>)> = names
        .iter()
        .map(|n| (n.clone(), n.as_bytes().to_vec()))
        .collect();
    send(&g, &dir.path().join("out"), &messages);
    let got: Vec<(String, Vec<u8>)> = rt.block_on(async {
        let tasks: Vec<_> = clients
            .into_iter()
            .zip(names.clone())
            .map(|(mut c, n)| {
                tokio::spawn(async move {
                    let mut inbox = Inbox::default();
                    let p = take_one(&mut c, &mut inbox, Duration::from_secs(120), |_| {})
                        .await
                        .unwrap_or_else(|| panic!("{n}: no message in 120 s"));
                    assert!(inbox.0.is_empty(), "{n}: a second message");
                    // Exactly once: nothing more comes for this device.
                    let more = tokio::time::timeout(Duration::from_millis(300), c.recv()).await;
                    assert!(more.is_err(), "{n}: a second packet: {more:?}");
                    (n, p)
                })
            })
            .collect();
        let mut out = Vec::new();
        for t in tasks {
            out.push(t.await.unwrap());
        }
        out
    });
    for (n, p) in &got {
        assert_eq!(p, n.as_bytes(), "device {n} got another device's message");
    }
    // Every device queue is empty: each message was acknowledged once.
    let (_, queues) = g.call("GET", "/v1/queues", None);
    let held: u64 = queues
        .as_array()
        .unwrap()
        .iter()
        .filter_map(|q| q["depth"].as_u64())
        .sum();
    assert_eq!(held, 0, "messages left after every PUBACK");
    println!(
        "{DEVICES} devices connected in {:.1} s; all delivered and acknowledged after {:.1} s",
        connected.as_secs_f64(),
        started.elapsed().as_secs_f64()
    );
}

#[test]
fn kill_9_in_the_middle_of_deliveries_loses_nothing_and_brings_back_nothing_acknowledged() {
    const N: usize = 200;
    const EACH: usize = 10;
    let dir = tempfile::tempdir().unwrap();
    let mut g = Gateway::start(dir.path(), "");
    let names: Vec<String> = (0..N).map(|i| format!("DEV{i:04}")).collect();
    let mut messages = Vec::new();
    for k in 0..EACH {
        for n in &names {
            messages.push((n.clone(), format!("{n}-{k}").into_bytes()));
        }
    }
    send(&g, &dir.path().join("out"), &messages);
    let rt = runtime();
    // Round 1: devices take messages; a quarter of the way through the
    // gateway is killed.
    let confirmed: Arc<std::sync::Mutex<HashMap<String, Vec<Vec<u8>>>>> = Default::default();
    // The last PUBACK of each device, sent but maybe not durable at the
    // kill: it may come back or not.
    let acking: Arc<std::sync::Mutex<HashMap<String, Vec<u8>>>> = Default::default();
    let taken = Arc::new(std::sync::atomic::AtomicUsize::new(0));
    let connected = Arc::new(std::sync::atomic::AtomicUsize::new(0));
    let addr = mqtt_addr(&g);
    let handles: Vec<_> = names
        .iter()
        .enumerate()
        .map(|(i, n)| {
            let (n, confirmed, taken) = (n.clone(), Arc::clone(&confirmed), Arc::clone(&taken));
            let (acking, connected) = (Arc::clone(&acking), Arc::clone(&connected));
            let level = if i % 2 == 0 { Level::V311 } else { Level::V5 };
            rt.spawn(async move {
                let mut c = device(addr, &n, level).await;
                connected.fetch_add(1, std::sync::atomic::Ordering::SeqCst);
                let mut inbox = Inbox::default();
                let note = |p: &[u8]| {
                    acking.lock().unwrap().insert(n.clone(), p.to_vec());
                };
                while let Some(p) =
                    take_one(&mut c, &mut inbox, Duration::from_secs(300), note).await
                {
                    confirmed
                        .lock()
                        .unwrap()
                        .entry(n.clone())
                        .or_default()
                        .push(p);
                    taken.fetch_add(1, std::sync::atomic::Ordering::SeqCst);
                }
            })
        })
        .collect();
    // Every device of round 1 is connected to the gateway that is killed
    // (none reconnects to the next one in this round).
    let until = Instant::now() + Duration::from_secs(120);
    while connected.load(std::sync::atomic::Ordering::SeqCst) < N
        || taken.load(std::sync::atomic::Ordering::SeqCst) < N * EACH / 4
    {
        assert!(
            Instant::now() < until,
            "devices not connected or deliveries not at a quarter in 120 s"
        );
        std::thread::sleep(Duration::from_millis(5));
    }
    g.kill9_and_restart();
    for h in handles {
        rt.block_on(h).unwrap();
    }
    let confirmed = std::mem::take(&mut *confirmed.lock().unwrap());
    let acking = std::mem::take(&mut *acking.lock().unwrap());
    let before: usize = confirmed.values().map(Vec::len).sum();
    assert!(before >= N * EACH / 4, "{before} confirmed before the kill");
    // Round 2: the same devices come back and take the rest.
    let addr = mqtt_addr(&g);
    let after: Vec<(String, Vec<Vec<u8>>)> = rt.block_on(async {
        let tasks: Vec<_> = names
            .iter()
            .map(|n| {
                let n = n.clone();
                tokio::spawn(async move {
                    let mut c = device(addr, &n, Level::V5).await;
                    let (mut got, mut inbox) = (Vec::new(), Inbox::default());
                    while let Some(p) =
                        take_one(&mut c, &mut inbox, Duration::from_secs(3), |_| {}).await
                    {
                        got.push(p);
                    }
                    (n, got)
                })
            })
            .collect();
        let mut out = Vec::new();
        for t in tasks {
            out.push(t.await.unwrap());
        }
        out
    });
    for (n, got) in after {
        let before: HashSet<&Vec<u8>> = confirmed
            .get(&n)
            .map(|v| v.iter().collect())
            .unwrap_or_default();
        for p in &got {
            assert!(
                !before.contains(p),
                "{n}: {} came back after it was acknowledged",
                String::from_utf8_lossy(p)
            );
        }
        // Acknowledged at the kill without the fence: gone, or back once.
        let uncertain = acking.get(&n).filter(|p| !before.contains(p));
        let mut all: Vec<Vec<u8>> = before
            .iter()
            .map(|p| (*p).clone())
            .chain(got.iter().cloned())
            .collect();
        if let Some(u) = uncertain
            && !got.contains(u)
        {
            all.push(u.clone());
        }
        all.sort();
        let mut want: Vec<Vec<u8>> = (0..EACH).map(|k| format!("{n}-{k}").into_bytes()).collect();
        want.sort();
        assert_eq!(all, want, "{n}: a message was lost or came twice");
    }
}

//! Queue managers of two gateways on one shared JetStream stream
//! (docs/cluster.md "Several gateways on one stream"), in one process,
//! against a real nats-server: a message put through one is got through
//! the other, concurrent getters on both get every message exactly once,
//! and a message got by a gateway that disappears comes back on the other
//! once its claim expired, with BackoutCount 1.

use super::*;
use crate::store::jetstream::JetStreamStore;
use crate::store::jetstream::test_server::{Server, binary};
use crate::store::nats_config::NatsStorage;
use std::collections::HashSet;

const CONFIG: &str = "
queue_manager:
  name: QMS
queues:
  - type: local
    name: WORK
";

fn options(server: &Server, prefix: &str, claim_ttl_ms: u64) -> NatsStorage {
    NatsStorage {
        servers: vec![server.url.clone()],
        credentials: None,
        tls: None,
        stream_prefix: prefix.into(),
        replicas: 1,
        require_sync_always: true,
        monitor_urls: vec![server.monitor.clone()],
        shared: true,
        claim_ttl_ms,
    }
}

fn gateway(o: &NatsStorage) -> Arc<QueueManager> {
    let config = Config::from_yaml(CONFIG, "test").unwrap();
    let store = Arc::new(JetStreamStore::open(o).unwrap_or_else(|e| panic!("{e}")));
    let qm = Arc::new(QueueManager::open(&config, store).unwrap());
    qm.follow_shared().unwrap();
    qm
}

fn persistent() -> Mqmd {
    Mqmd {
        persistence: per::PERSISTENT,
        ..Mqmd::default()
    }
}

fn put(qm: &QueueManager, body: &str) {
    qm.put(
        "WORK",
        persistent(),
        Charset::Ascii,
        Bytes::from(body.to_string()),
        &PutOptions::default(),
    )
    .unwrap();
}

fn runtime() -> tokio::runtime::Runtime {
    tokio::runtime::Builder::new_multi_thread()
        .worker_threads(2)
        .enable_all()
        .build()
        .unwrap()
}

/// A destructive get outside syncpoint waiting up to `ms`.
fn get(
    rt: &tokio::runtime::Runtime,
    qm: &Arc<QueueManager>,
    ms: u64,
) -> Result<GetResult, QmError> {
    rt.block_on(qm.get_wait(
        "WORK",
        Selector::default(),
        GetMode::Destructive { uow: None },
        Duration::from_millis(ms),
    ))
}

#[test]
fn a_message_put_on_one_gateway_is_got_on_the_other_once() {
    let Some(program) = binary() else { return };
    let server = Server::start(&program);
    let o = options(&server, "QA", 30_000);
    let (a, b) = (gateway(&o), gateway(&o));
    let rt = runtime();
    put(&a, "one");
    put(&a, "two");
    // FIFO across gateways (docs/cluster.md: key order is put order).
    let m = get(&rt, &b, 10_000).unwrap();
    assert_eq!(&m.data[..], b"one");
    assert_eq!(m.md.backout_count, 0);
    assert_eq!(&get(&rt, &b, 10_000).unwrap().data[..], b"two");
    // Gone on A too once its tail saw B's gets.
    let t = std::time::Instant::now();
    while a.depth("WORK") != Some(0) {
        assert!(t.elapsed() < Duration::from_secs(10), "A still shows them");
        std::thread::sleep(Duration::from_millis(20));
    }
    let e = get(&rt, &a, 100).unwrap_err();
    assert_eq!(e.mqrc, Mqrc::NO_MSG_AVAILABLE);
    // A named record is read after the tail caught up, which a quiet
    // stream does at once (the wait is bounded by 2 s, src/qmgr/shared.rs).
    let t = std::time::Instant::now();
    assert_eq!(a.meta("channel/NONE/last_committed_seq").unwrap(), None);
    let quiet = gateway(&o);
    assert_eq!(quiet.meta("channel/NONE/last_committed_seq").unwrap(), None);
    assert!(
        t.elapsed() < Duration::from_millis(1500),
        "{:?}",
        t.elapsed()
    );
}

#[test]
fn concurrent_getters_on_two_gateways_get_every_message_exactly_once() {
    let Some(program) = binary() else { return };
    let server = Server::start(&program);
    let o = options(&server, "QC", 30_000);
    let (a, b) = (gateway(&o), gateway(&o));
    const N: usize = 300;
    for i in 0..N {
        put(if i % 2 == 0 { &a } else { &b }, &format!("m{i}"));
    }
    let got = Arc::new(Mutex::new(Vec::new()));
    let mut getters = Vec::new();
    for qm in [&a, &b, &a, &b] {
        let (qm, got) = (Arc::clone(qm), Arc::clone(&got));
        getters.push(std::thread::spawn(move || {
            let rt = runtime();
            while let Ok(m) = get(&rt, &qm, 3000) {
                got.lock()
                    .unwrap()
                    .push(String::from_utf8(m.data.to_vec()).unwrap());
            }
        }));
    }
    for g in getters {
        g.join().unwrap();
    }
    let got = got.lock().unwrap();
    let distinct: HashSet<&String> = got.iter().collect();
    assert_eq!(distinct.len(), N, "a message was lost");
    assert_eq!(got.len(), N, "a message was delivered twice");
}

#[test]
fn a_message_got_by_a_vanished_gateway_comes_back_once_with_backout_count_1() {
    let Some(program) = binary() else { return };
    let server = Server::start(&program);
    // Claims of 2 s: the shortest NATS message TTLs allow is 1 s.
    let o = options(&server, "QK", 2000);
    let (a, b) = (gateway(&o), gateway(&o));
    let rt = runtime();
    put(&b, "leased");
    // A gets it under a unit of work and vanishes with it: its store's
    // connection, tail and claim renewal end, nothing is backed out.
    let uow = a.begin_uow(None, Some("WORK".into())).unwrap();
    let t = std::time::Instant::now();
    let m = loop {
        match a.get(
            "WORK",
            &Selector::default(),
            GetMode::Destructive { uow: Some(uow) },
        ) {
            Ok(m) => break m,
            Err(e) if e.mqrc == Mqrc::NO_MSG_AVAILABLE && t.elapsed() < Duration::from_secs(10) => {
                std::thread::sleep(Duration::from_millis(20));
            }
            Err(e) => panic!("{e}"),
        }
    };
    assert_eq!(m.md.backout_count, 0);
    // B sees A's claim: nothing to get while it lasts.
    std::thread::sleep(Duration::from_millis(300));
    assert_eq!(get(&rt, &b, 200).unwrap_err().mqrc, Mqrc::NO_MSG_AVAILABLE);
    let store = Arc::clone(&a.store);
    drop(a);
    drop(store);
    // After the claim's TTL (2 s) B gets it, counted as backed out once
    // (IBM MQ "BackoutCount (MQLONG)": times the message was previously
    // returned by MQGET as part of a unit of work that was backed out).
    let m = get(&rt, &b, 10_000).unwrap();
    assert_eq!(&m.data[..], b"leased");
    assert_eq!(m.md.backout_count, 1);
    assert_eq!(get(&rt, &b, 3000).unwrap_err().mqrc, Mqrc::NO_MSG_AVAILABLE);
}

/// Devices of the pull test: 2,000 (one message each), or
/// `MQGATE_SHARED_DEVICES` (a multiple of 500; 10000 is docs/cluster.md's
/// soak, several minutes on a loaded machine).
fn devices() -> usize {
    std::env::var("MQGATE_SHARED_DEVICES")
        .ok()
        .and_then(|v| v.parse::<usize>().ok())
        .filter(|n| *n >= 1000 && n % 1000 == 0)
        .unwrap_or(2000)
}
/// Every this many devices, the first pull of the message is abandoned:
/// its lease expires (1 s) instead of being acknowledged.
const ABANDON_EVERY: usize = 100;

/// The device queue manager of device `d` (the default pattern `DEV*`,
/// docs/config.md `devices`).
fn device(d: usize) -> String {
    format!("DEV{d:05}")
}

#[test]
fn devices_pulled_through_two_gateways_get_each_message_once_and_an_expired_lease_again_once() {
    let Some(program) = binary() else { return };
    let server = Server::start(&program);
    let o = options(&server, "QD", 30_000);
    let (a, b) = (gateway(&o), gateway(&o));
    let devices = devices();
    // One message per device, put through both gateways in units of work
    // of 500 (one atomic batch each).
    for (half, qm) in [&a, &b].into_iter().enumerate() {
        for chunk in (half * devices / 2..(half + 1) * devices / 2)
            .collect::<Vec<_>>()
            .chunks(500)
        {
            let uow = qm.begin_uow(None, None).unwrap();
            for &d in chunk {
                let opts = PutOptions {
                    uow: Some(uow),
                    q_mgr_name: device(d),
                    ..PutOptions::default()
                };
                qm.put(
                    "INBOX",
                    persistent(),
                    Charset::Ascii,
                    Bytes::from(format!("for {d}")),
                    &opts,
                )
                .unwrap();
            }
            qm.commit(uow).unwrap();
        }
    }
    let rt = Arc::new(runtime());
    // (device, BackoutCount, acknowledged) of every message a puller got.
    let pulls = Arc::new(Mutex::new(Vec::<(usize, i32, bool)>::new()));
    let acked = Arc::new(std::sync::atomic::AtomicUsize::new(0));
    let mut pullers = Vec::new();
    for p in 0..8 {
        let qm = Arc::clone(if p % 2 == 0 { &a } else { &b });
        let (rt, pulls, acked) = (Arc::clone(&rt), Arc::clone(&pulls), Arc::clone(&acked));
        pullers.push(std::thread::spawn(move || {
            let _enter = rt.enter();
            let started = std::time::Instant::now();
            // Each puller walks the devices from its own offset.
            let mut d = p * devices / 8;
            while acked.load(Ordering::SeqCst) < devices {
                assert!(
                    started.elapsed() < Duration::from_secs(150 * devices as u64 / 2000),
                    "pulls too slow"
                );
                d = (d + 1) % devices;
                let name = qm.device_queue_name(&device(d), "INBOX").unwrap();
                let uow = qm.begin_uow(None, Some(name.clone())).unwrap();
                let got = qm.get(
                    &name,
                    &Selector::default(),
                    GetMode::Destructive { uow: Some(uow) },
                );
                let m = match got {
                    Ok(m) => m,
                    Err(e) => {
                        assert_eq!(e.mqrc, Mqrc::NO_MSG_AVAILABLE, "{e}");
                        qm.backout(uow).unwrap();
                        continue;
                    }
                };
                assert_eq!(&m.data[..], format!("for {d}").as_bytes());
                let abandon = d.is_multiple_of(ABANDON_EVERY) && m.md.backout_count == 0;
                if abandon {
                    // The device went away: its lease expires and is backed out.
                    qm.set_timeout(uow, Duration::from_secs(1)).unwrap();
                } else {
                    qm.commit(uow).unwrap();
                    acked.fetch_add(1, Ordering::SeqCst);
                }
                pulls
                    .lock()
                    .unwrap()
                    .push((d, m.md.backout_count, !abandon));
            }
        }));
    }
    for p in pullers {
        p.join().unwrap();
    }
    let mut pulls = pulls.lock().unwrap().clone();
    pulls.sort();
    // Each device's message acknowledged by exactly one puller; the
    // abandoned ones pulled twice: first with BackoutCount 0, then once
    // more with BackoutCount 1 after their lease expired.
    let mut want = Vec::new();
    for d in 0..devices {
        if d.is_multiple_of(ABANDON_EVERY) {
            want.push((d, 0, false));
            want.push((d, 1, true));
        } else {
            want.push((d, 0, true));
        }
    }
    assert_eq!(pulls.len(), want.len());
    assert!(pulls == want, "a message went to two pullers or was lost");
    for qm in [&a, &b] {
        let t = std::time::Instant::now();
        while (0..devices).any(|d| qm.depth(&format!("{}/INBOX", device(d))).unwrap_or(0) != 0) {
            assert!(t.elapsed() < Duration::from_secs(10), "messages left");
            std::thread::sleep(Duration::from_millis(50));
        }
    }
}

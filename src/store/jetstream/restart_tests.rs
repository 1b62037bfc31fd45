//! nats-server killed (SIGKILL) and restarted on its file store while a
//! store applies batches: the client reconnects by itself, and every batch
//! acknowledged before, during or after the outage is there afterwards.

use super::JetStreamStore;
use super::conformance_tests::options;
use super::test_server::{Server, binary};
use crate::store::{Batch, Store, StoreState};
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

/// Batch `i`: record `i` and meta `last` = `i`.
fn batch(i: u64) -> Batch {
    Batch {
        puts: vec![(i, format!("record {i}").into_bytes())],
        meta: vec![("last".into(), i.to_be_bytes().to_vec())],
        summaries: vec![(i, vec![i as u8])],
        ..Batch::default()
    }
}

fn acknowledged(results: &Mutex<Vec<(u64, bool)>>) -> Vec<u64> {
    let r = results.lock().expect("results");
    r.iter().filter(|(_, ok)| *ok).map(|(i, _)| *i).collect()
}

fn wait_for(results: &Mutex<Vec<(u64, bool)>>, n: usize, what: &str) {
    let t = Instant::now();
    while acknowledged(results).len() < n {
        assert!(t.elapsed() < Duration::from_secs(60), "{what}: too slow");
        std::thread::sleep(Duration::from_millis(20));
    }
}

#[test]
fn a_server_restart_loses_no_acknowledged_batch() {
    let Some(program) = binary() else { return };
    let mut server = Server::start(&program);
    let o = options(&server.url, &server.monitor, "R");
    let store = Arc::new(JetStreamStore::open(&o).unwrap_or_else(|e| panic!("{e}")));
    let results = Arc::new(Mutex::new(Vec::new()));
    let stop = Arc::new(AtomicBool::new(false));
    let writer = {
        let (store, results, stop) = (Arc::clone(&store), Arc::clone(&results), Arc::clone(&stop));
        std::thread::spawn(move || {
            let mut i = 1;
            while !stop.load(Ordering::SeqCst) {
                let ok = store.apply(&batch(i)).is_ok();
                results.lock().expect("results").push((i, ok));
                i += 1;
                if !ok {
                    std::thread::sleep(Duration::from_millis(50));
                }
            }
        })
    };
    wait_for(&results, 20, "before the restart");
    server.kill();
    // While the client is disconnected the store says so (docs/cluster.md
    // "Reconnecting"): failed, 2102 MQRC_RESOURCE_PROBLEM.
    let t = Instant::now();
    loop {
        let h = store.health();
        if h.state == StoreState::Failed {
            assert_eq!(
                (h.reason, h.message.as_str()),
                (2102, "disconnected from NATS; reconnecting")
            );
            break;
        }
        assert!(t.elapsed() < Duration::from_secs(10), "{h:?}");
        std::thread::sleep(Duration::from_millis(10));
    }
    let during = results.lock().expect("results").len();
    std::thread::sleep(Duration::from_millis(500));
    server.run();
    wait_for(&results, 40, "after the restart");
    stop.store(true, Ordering::SeqCst);
    writer.join().expect("writer");
    let attempted: Vec<u64> = results
        .lock()
        .expect("results")
        .iter()
        .map(|(i, _)| *i)
        .collect();
    let acked = acknowledged(&results);
    assert!(
        acked.iter().any(|&i| i as usize > during),
        "no batch was acknowledged after the restart"
    );
    let check = |s: &dyn Store, when: &str| {
        let loaded: Vec<u64> = s
            .load()
            .expect("load")
            .into_iter()
            .map(|(k, _)| k)
            .collect();
        for i in &acked {
            assert!(
                loaded.contains(i),
                "{when}: acknowledged batch {i} is missing"
            );
        }
        for k in &loaded {
            assert!(attempted.contains(k), "{when}: key {k} was never written");
        }
        assert_eq!(
            s.load_index()
                .expect("index")
                .iter()
                .map(|(k, _)| k)
                .collect::<Vec<_>>(),
            loaded,
            "{when}: index"
        );
    };
    check(&*store, "the same instance");
    let h = store.health();
    assert_eq!(h.state, StoreState::Ok, "{h:?}");
    assert!(h.reopens >= 1, "the client reconnected: {h:?}");
    drop(store);
    let again = JetStreamStore::open(&o).unwrap_or_else(|e| panic!("{e}"));
    check(&again, "after reopening");
    println!(
        "{} batches, {} acknowledged, {} refused during the outage",
        attempted.len(),
        acked.len(),
        attempted.len() - acked.len()
    );
}

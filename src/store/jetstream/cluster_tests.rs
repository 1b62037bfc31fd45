//! A three-node nats-server cluster on loopback with a stream of three
//! replicas: the stream leader is killed (SIGKILL) while the store applies
//! batches; the service goes on with the two others and no acknowledged
//! batch is lost (docs/cluster.md "Sync policy and what each configuration
//! survives").

use super::JetStreamStore;
use super::test_server::{Server, binary, jetstream};
use crate::store::nats_config::NatsStorage;
use crate::store::{Batch, Store, StoreState};
use std::time::{Duration, Instant};

fn free_port() -> u16 {
    std::net::TcpListener::bind("127.0.0.1:0")
        .and_then(|l| l.local_addr())
        .map(|a| a.port())
        .expect("a free port")
}

fn batch(i: u64) -> Batch {
    Batch {
        puts: vec![(i, format!("record {i}").into_bytes())],
        meta: vec![("last".into(), i.to_be_bytes().to_vec())],
        ..Batch::default()
    }
}

/// The name of the server leading stream `stream` (`$JS.API.STREAM.INFO`,
/// `cluster.leader`).
fn leader(url: &str, stream: &str) -> Option<String> {
    let rt = tokio::runtime::Runtime::new().expect("runtime");
    rt.block_on(async {
        let c = async_nats::connect(url).await.ok()?;
        let r = c
            .request(format!("$JS.API.STREAM.INFO.{stream}"), bytes::Bytes::new())
            .await
            .ok()?;
        let v: serde_json::Value = serde_json::from_slice(&r.payload).ok()?;
        v.pointer("/cluster/leader")?.as_str().map(str::to_string)
    })
}

#[test]
fn the_stream_leader_killed_loses_no_acknowledged_batch() {
    let Some(program) = binary() else { return };
    let routes: Vec<u16> = (0..3).map(|_| free_port()).collect();
    let route_list = routes
        .iter()
        .map(|p| format!("nats-route://127.0.0.1:{p}"))
        .collect::<Vec<_>>()
        .join(", ");
    let mut nodes: Vec<Server> = (0..3)
        .map(|i| {
            let body = format!(
                "server_name: n{i}\n{}\ncluster {{ name: mqgate, listen: 127.0.0.1:{}, routes: [{route_list}] }}",
                jetstream("always"),
                routes[i]
            );
            let mut node = Server::prepare(&program, &body);
            node.spawn();
            node
        })
        .collect();
    for node in &nodes {
        node.wait_healthy();
    }
    let o = NatsStorage {
        servers: nodes.iter().map(|n| n.url.clone()).collect(),
        credentials: None,
        tls: None,
        stream_prefix: "C".into(),
        replicas: 3,
        require_sync_always: true,
        monitor_urls: nodes.iter().map(|n| n.monitor.clone()).collect(),
        shared: false,
        claim_ttl_ms: crate::store::nats_config::DEFAULT_CLAIM_TTL_MS,
    };
    // The cluster elects its JetStream meta leader after the servers start.
    let t = Instant::now();
    let store = loop {
        match JetStreamStore::open(&o) {
            Ok(s) => break s,
            Err(e) if t.elapsed() < Duration::from_secs(30) => {
                let _ = e;
                std::thread::sleep(Duration::from_millis(250));
            }
            Err(e) => panic!("the cluster did not take the stream: {e}"),
        }
    };
    let mut acked = Vec::new();
    for i in 1..=20 {
        store
            .apply(&batch(i))
            .unwrap_or_else(|e| panic!("batch {i}: {e}"));
        acked.push(i);
    }
    let name = leader(&nodes[0].url, "C_STORE").expect("the stream's leader");
    let at: usize = name
        .trim_start_matches('n')
        .parse()
        .expect("a server named n<i>");
    nodes[at].kill();
    // Batches go on with two of three; some fail while a new leader is
    // elected.
    let t = Instant::now();
    let mut i = 21;
    let mut refused = 0;
    while acked.len() < 40 {
        assert!(
            t.elapsed() < Duration::from_secs(90),
            "no new leader took the batches"
        );
        if store.apply(&batch(i)).is_ok() {
            acked.push(i);
        } else {
            refused += 1;
            std::thread::sleep(Duration::from_millis(200));
        }
        i += 1;
    }
    let loaded: Vec<u64> = store
        .load()
        .expect("load")
        .into_iter()
        .map(|(k, _)| k)
        .collect();
    for k in &acked {
        assert!(loaded.contains(k), "acknowledged batch {k} is missing");
    }
    assert!(loaded.iter().all(|k| *k < i), "{loaded:?}");
    assert_eq!(store.health().state, StoreState::Ok);
    drop(store);
    let again = JetStreamStore::open(&o).unwrap_or_else(|e| panic!("reopen: {e}"));
    let reloaded: Vec<u64> = again
        .load()
        .expect("load")
        .into_iter()
        .map(|(k, _)| k)
        .collect();
    assert_eq!(reloaded, loaded);
    println!(
        "leader n{at} killed; {} acknowledged, {refused} refused meanwhile",
        acked.len()
    );
}

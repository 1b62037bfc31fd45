//! Many IBM MQ clients at once against one gateway's server-connection
//! channel (docs/mq-client-protocol.md): 200 connections, each putting
//! persistent 1 KiB messages to a queue of its own and to one shared queue,
//! then getting them back. Every message put is got exactly once (counted by
//! MsgId and body) and every verb ends MQCC_OK / MQRC_NONE (0, 0). MQRC
//! values are IBM MQ's ("API reason codes").

mod svrconn_client;

use mqgate::config::Config;
use mqgate_codecs::mq::constants::{gmo, pmo};
use std::collections::HashMap;
use std::fmt::Write as _;
use std::net::SocketAddr;
use std::time::Duration;
use svrconn_client::{Client, gmo, md, open_options as oo};

const CHANNEL: &str = "LOAD.SVRCONN";
/// Concurrent client connections.
const CLIENTS: usize = 200;
/// Messages each client puts to its own queue.
const OWN: usize = 20;
/// Messages each client puts to the shared queue, and takes from it.
const SHARED: usize = 5;
/// Message size, bytes.
const SIZE: usize = 1024;
/// MQPER_PERSISTENT (IBM MQ "Persistence (MQLONG)").
const PERSISTENT: i32 = 1;
/// MQRC_NO_MSG_AVAILABLE (IBM MQ "API reason codes").
const NO_MSG_AVAILABLE: i32 = 2033;

fn own_queue(i: usize) -> String {
    format!("LOAD.Q.{i:03}")
}

/// A 1 KiB body that names its sender, queue and sequence number.
fn body(client: usize, kind: &str, seq: usize) -> Vec<u8> {
    let mut s = format!("{kind} client {client:03} seq {seq:02} ");
    while s.len() < SIZE {
        let _ = write!(s, "{}", (s.len() % 10));
    }
    s.truncate(SIZE);
    s.into_bytes()
}

async fn start(dir: &std::path::Path) -> (mqgate::gateway::Handle, SocketAddr) {
    let mut queues = String::from("  - type: local\n    name: LOAD.SHARED\n");
    for i in 0..CLIENTS {
        let _ = write!(queues, "  - type: local\n    name: {}\n", own_queue(i));
    }
    let text = format!(
        "queue_manager:
  name: QMLOAD
http:
  listen: 127.0.0.1:0
listener:
  listen: 127.0.0.1:0
mqtt:
  listen: 127.0.0.1:0
svrconn:
  listen: 127.0.0.1:0
  channels:
    - name: {CHANNEL}
queues:
{queues}"
    );
    let mut c = Config::from_yaml(&text, "load.yaml").unwrap();
    c.storage.data_dir = dir.join("data");
    let h = mqgate::gateway::Gateway::start(c).await.unwrap();
    let a = h.svrconn_addr().unwrap();
    (h, a)
}

/// What one client put to and got from the shared queue: (MsgId, body).
struct Outcome {
    shared_put: Vec<([u8; 24], Vec<u8>)>,
    shared_got: Vec<([u8; 24], Vec<u8>)>,
}

/// One client: puts to its own queue and the shared one, gets its own back
/// (each exactly once, in order) and takes `SHARED` from the shared queue.
async fn run_client(addr: SocketAddr, i: usize) -> Outcome {
    let mut c = Client::connect(addr, CHANNEL, &format!("load{i:03}"), None)
        .await
        .unwrap_or_else(|e| panic!("client {i} connect: {e:?}"));
    let own = own_queue(i);
    let out = c.open_ok(&own, oo::OUTPUT).await;
    let shared_out = c.open_ok("LOAD.SHARED", oo::OUTPUT).await;
    let mut persistent = md();
    persistent.persistence = PERSISTENT;
    let mut own_put = Vec::new();
    let mut shared_put = Vec::new();
    for seq in 0..OWN {
        let data = body(i, "own", seq);
        let (h, pmd, _) = c
            .put(
                out,
                persistent.clone(),
                pmo::NEW_MSG_ID | pmo::NO_SYNCPOINT,
                &data,
            )
            .await;
        assert_eq!((h.comp_code, h.reason), (0, 0), "client {i} MQPUT {seq}");
        own_put.push((pmd.msg_id, data));
        if seq < SHARED {
            let data = body(i, "shared", seq);
            let (h, pmd, _) = c
                .put(
                    shared_out,
                    persistent.clone(),
                    pmo::NEW_MSG_ID | pmo::NO_SYNCPOINT,
                    &data,
                )
                .await;
            assert_eq!((h.comp_code, h.reason), (0, 0), "client {i} shared MQPUT");
            shared_put.push((pmd.msg_id, data));
        }
    }
    let inp = c.open_ok(&own, oo::INPUT_SHARED).await;
    // The own queue has one writer and one reader: FIFO, each once.
    for (seq, (id, data)) in own_put.iter().enumerate() {
        let (h, gmd, _, len, got) = c
            .get(inp, md(), gmo(gmo::NO_SYNCPOINT, 0), SIZE as i32)
            .await;
        assert_eq!((h.comp_code, h.reason), (0, 0), "client {i} MQGET {seq}");
        assert_eq!(len as usize, SIZE);
        assert_eq!(&gmd.msg_id, id, "client {i} MsgId {seq}");
        assert_eq!(&got, data, "client {i} body {seq}");
        assert_eq!(gmd.persistence, PERSISTENT);
    }
    let (h, ..) = c
        .get(inp, md(), gmo(gmo::NO_SYNCPOINT, 0), SIZE as i32)
        .await;
    assert_eq!(
        (h.comp_code, h.reason),
        (2, NO_MSG_AVAILABLE),
        "client {i} own empty"
    );
    // The shared queue has as many gets as puts; a get waits for a put still
    // to come from a slower client.
    let shared_in = c.open_ok("LOAD.SHARED", oo::INPUT_SHARED).await;
    let mut shared_got = Vec::new();
    for n in 0..SHARED {
        let (h, gmd, _, _, got) = c
            .get(
                shared_in,
                md(),
                gmo(gmo::WAIT | gmo::NO_SYNCPOINT, 15_000),
                SIZE as i32,
            )
            .await;
        assert_eq!(
            (h.comp_code, h.reason),
            (0, 0),
            "client {i} shared MQGET {n}"
        );
        shared_got.push((gmd.msg_id, got));
    }
    for hobj in [out, shared_out, inp, shared_in] {
        let h = c.close(hobj).await;
        assert_eq!((h.comp_code, h.reason), (0, 0), "client {i} MQCLOSE");
    }
    let h = c.simple(mqgate_codecs::fap::SegmentType::MQDISC).await;
    assert_eq!((h.comp_code, h.reason), (0, 0), "client {i} MQDISC");
    Outcome {
        shared_put,
        shared_got,
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn two_hundred_clients_lose_and_duplicate_nothing() {
    let dir = tempfile::tempdir().unwrap();
    let (g, addr) = start(dir.path()).await;
    let tasks: Vec<_> = (0..CLIENTS)
        .map(|i| tokio::spawn(run_client(addr, i)))
        .collect();
    let mut put: HashMap<[u8; 24], Vec<u8>> = HashMap::new();
    let mut got: HashMap<[u8; 24], Vec<u8>> = HashMap::new();
    for t in tasks {
        let o = t.await.unwrap();
        for (id, data) in o.shared_put {
            assert!(put.insert(id, data).is_none(), "MsgId given twice");
        }
        for (id, data) in o.shared_got {
            assert!(got.insert(id, data).is_none(), "message got twice");
        }
    }
    assert_eq!(put.len(), CLIENTS * SHARED);
    // Every shared message got exactly once, with the body it was put with.
    assert_eq!(got, put);
    let mut c = Client::connect(addr, CHANNEL, "checker", None)
        .await
        .unwrap();
    let inp = c.open_ok("LOAD.SHARED", oo::INPUT_SHARED).await;
    let (h, ..) = c
        .get(inp, md(), gmo(gmo::NO_SYNCPOINT, 0), SIZE as i32)
        .await;
    assert_eq!((h.comp_code, h.reason), (2, NO_MSG_AVAILABLE));
    g.stop(Duration::from_secs(10)).await;
}

//! Several gateways on one JetStream stream (`storage: shared: true`,
//! docs/cluster.md "Several gateways on one stream"), as separate `mqgate
//! run` processes on one nats-server: a message put through one gateway is
//! got through another; a message leased by a gateway killed with SIGKILL
//! comes back on another once its claim expired, with BackoutCount 1; a
//! channel batch sent again to another gateway is confirmed, not applied
//! again; and a sender channel that reconnects to another gateway after
//! each of 20 kills delivers every message exactly once, in order.

mod common;

use common::channel::{frame, hello};
use common::nats::{Server, binary};
use common::{BIN, Gateway, data, xmit};
use std::io::{Read, Write};
use std::net::{TcpListener, TcpStream};
use std::process::{Command, Stdio};
use std::sync::Arc;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::time::{Duration, Instant, SystemTime};

const QUEUES: &str = "
queue_manager:
  name: QMSH
queues:
  - type: local
    name: APP.IN
";

/// The storage section of a shared stream on `server` under `prefix`,
/// claims lasting 2 s (docs/config.md `claim_ttl_ms`).
fn shared(server: &Server, prefix: &str) -> String {
    format!(
        "{}  shared: true\n  claim_ttl_ms: 2000\n",
        server.storage(prefix)
    )
}

/// `n` gateways on one stream, each with a directory of its own.
fn gateways(config: &str, n: usize) -> (Vec<tempfile::TempDir>, Vec<Gateway>) {
    let dirs: Vec<tempfile::TempDir> = (0..n).map(|_| tempfile::tempdir().unwrap()).collect();
    let gs = dirs
        .iter()
        .map(|d| Gateway::start(d.path(), config))
        .collect();
    (dirs, gs)
}

/// A get (under a lease) from `q` on `g`, waiting up to 10 s.
fn next(g: &Gateway, q: &str) -> serde_json::Value {
    let (st, m) = g.next(q, "wait_ms=10000");
    assert_eq!(st, 200, "{m}");
    m
}

#[test]
fn two_gateways_serve_one_queue_and_a_killed_leaseholder_s_message_comes_back_once() {
    let Some(program) = binary() else { return };
    let server = Server::start(&program);
    let config = format!("{QUEUES}{}", shared(&server, "SQ"));
    let (_dirs, mut gs) = gateways(&config, 2);
    assert_eq!(gs[0].put("APP.IN", "persistent=true", b"first").0, 201);
    assert_eq!(gs[0].put("APP.IN", "persistent=true", b"second").0, 201);
    // Put on A, got on B, in put order.
    let m = next(&gs[1], "APP.IN");
    assert_eq!(data(&m), b"first");
    assert_eq!(m["md"]["BackoutCount"], 0, "{m}");
    assert_eq!(gs[1].ack("APP.IN", &m["lease"]).0, 200);
    // B leases the second and is killed holding it: A cannot get it while
    // B's claim lasts, and gets it once the claim expired (2 s), counted
    // as backed out once (IBM MQ "BackoutCount (MQLONG)").
    let m = next(&gs[1], "APP.IN");
    assert_eq!(data(&m), b"second");
    gs[1].kill9();
    let (st, _) = gs[0].next("APP.IN", "wait_ms=0");
    assert_eq!(st, 404, "the message was free while B's claim lasted");
    let t = Instant::now();
    let m = next(&gs[0], "APP.IN");
    assert!(
        t.elapsed() >= Duration::from_millis(500),
        "{:?}",
        t.elapsed()
    );
    assert_eq!(data(&m), b"second");
    assert_eq!(m["md"]["BackoutCount"], 1, "{m}");
    assert_eq!(gs[0].ack("APP.IN", &m["lease"]).0, 200);
    // Once: nothing more, on A or on B restarted.
    gs[1].restart();
    assert_eq!(gs[0].next("APP.IN", "wait_ms=500").0, 404);
    assert_eq!(gs[1].next("APP.IN", "wait_ms=500").0, 404);
}

fn read_frame(s: &mut TcpStream) -> (u8, Vec<u8>) {
    s.set_read_timeout(Some(Duration::from_secs(20))).unwrap();
    let mut len = [0u8; 4];
    s.read_exact(&mut len).unwrap();
    let mut body = vec![0u8; u32::from_be_bytes(len) as usize];
    s.read_exact(&mut body).unwrap();
    let kind = body.remove(0);
    (kind, body)
}

/// Connects, says HELLO and returns the stream with HELLO_ACK's
/// last_committed_seq (bytes 14..22 of its payload: version u16,
/// batch_size u32, max_msg_length u32, heartbeat_ms u32, then the u64).
fn connect(g: &Gateway) -> (TcpStream, u64) {
    let mut s = TcpStream::connect(g.listen_addr()).unwrap();
    s.write_all(&hello("TO.MQGATE", "")).unwrap();
    let (kind, p) = read_frame(&mut s);
    assert_eq!(
        kind,
        0x02,
        "HELLO_ACK expected: {}",
        String::from_utf8_lossy(&p)
    );
    (s, u64::from_be_bytes(p[14..22].try_into().unwrap()))
}

/// Sends batch `seq` of `msgs` and returns the CONFIRM's sequence number.
fn send_batch(s: &mut TcpStream, seq: u64, msgs: &[Vec<u8>]) -> u64 {
    let mut out = Vec::new();
    for m in msgs {
        let mut p = vec![0u8];
        p.extend_from_slice(m);
        out.extend_from_slice(&frame(0x03, &p));
    }
    let mut end = seq.to_be_bytes().to_vec();
    end.extend_from_slice(&(msgs.len() as u32).to_be_bytes());
    out.extend_from_slice(&frame(0x04, &end));
    s.write_all(&out).unwrap();
    let (kind, p) = read_frame(s);
    assert_eq!(
        kind,
        0x05,
        "CONFIRM expected: {}",
        String::from_utf8_lossy(&p)
    );
    u64::from_be_bytes(p[..8].try_into().unwrap())
}

#[test]
fn a_batch_sent_again_to_another_gateway_is_confirmed_not_applied_again() {
    let Some(program) = binary() else { return };
    let server = Server::start(&program);
    let config = format!("{QUEUES}{}", shared(&server, "SB"));
    let (_dirs, gs) = gateways(&config, 2);
    let batch: Vec<Vec<u8>> = ["a", "b", "c"]
        .iter()
        .map(|b| xmit("APP.IN", "QMSH", true, "MQSTR", b.as_bytes()))
        .collect();
    let (mut a, last) = connect(&gs[0]);
    assert_eq!(last, 0);
    assert_eq!(send_batch(&mut a, 1, &batch), 1);
    drop(a);
    // The sender lost the CONFIRM and reconnects to B: B knows batch 1 is
    // in (docs/channel-protocol.md "Resynchronisation"), and the same
    // batch sent again anyway is confirmed without being applied.
    let (mut b, last) = connect(&gs[1]);
    assert_eq!(last, 1);
    assert_eq!(send_batch(&mut b, 1, &batch), 1);
    // Then the next batch goes on from 2.
    let next = vec![xmit("APP.IN", "QMSH", true, "MQSTR", b"d")];
    assert_eq!(send_batch(&mut b, 2, &next), 2);
    drop(b);
    for want in ["a", "b", "c", "d"] {
        let (st, m) = gs[0].get_ack("APP.IN", "wait_ms=10000");
        assert_eq!((st, data(&m)), (200, want.as_bytes().to_vec()), "{m}");
    }
    assert_eq!(gs[1].next("APP.IN", "wait_ms=1000").0, 404);
}

/// Forwards each connection to the gateway `target` names now: what a
/// sender reconnecting to another gateway of the group sees (a load
/// balancer in front of them).
fn proxy(addrs: Vec<String>, target: Arc<AtomicUsize>) -> String {
    let listener = TcpListener::bind("127.0.0.1:0").unwrap();
    let addr = listener.local_addr().unwrap().to_string();
    std::thread::spawn(move || {
        for client in listener.incoming() {
            let Ok(client) = client else { continue };
            let to = &addrs[target.load(Ordering::SeqCst) % addrs.len()];
            let Ok(upstream) = TcpStream::connect(to) else {
                continue;
            };
            for (mut from, mut into) in [
                (client.try_clone().unwrap(), upstream.try_clone().unwrap()),
                (upstream, client),
            ] {
                std::thread::spawn(move || {
                    let _ = std::io::copy(&mut from, &mut into);
                    let _ = into.shutdown(std::net::Shutdown::Both);
                    let _ = from.shutdown(std::net::Shutdown::Both);
                });
            }
        }
    });
    addr
}

/// xorshift64: the kill points vary from run to run (seeded from the clock,
/// printed), the assertions do not depend on them.
struct Rng(u64);
impl Rng {
    fn below(&mut self, n: u64) -> u64 {
        self.0 ^= self.0 << 13;
        self.0 ^= self.0 >> 7;
        self.0 ^= self.0 << 17;
        self.0 % n
    }
}

const ROUNDS: usize = 21;
// 21 × 480 = 10,080 messages: the 10,000; a round long enough that
// a kill 20-120 ms after the sender started meets it mid-transfer even on
// a quiet machine (at 100 a round was over before the kill).
const PER_ROUND: usize = 480;
const DEVICES: usize = 5;

#[test]
fn a_sender_channel_moving_between_three_gateways_through_21_kills_delivers_exactly_once() {
    let Some(program) = binary() else { return };
    let server = Server::start(&program);
    let config = shared(&server, "S3");
    let (dirs, mut gs) = gateways(&config, 3);
    let seed = SystemTime::now()
        .duration_since(SystemTime::UNIX_EPOCH)
        .unwrap()
        .as_nanos() as u64
        | 1;
    println!("kill-point seed {seed}");
    let mut rng = Rng(seed);
    let target = Arc::new(AtomicUsize::new(0));
    let front = proxy(
        gs.iter().map(|g| g.listen_addr()).collect(),
        Arc::clone(&target),
    );
    let files_dir = dirs[0].path().join("msgs");
    let started = Instant::now();
    let mut reconnects = 0u64;
    for round in 0..ROUNDS {
        std::fs::create_dir_all(&files_dir).unwrap();
        let mut files = Vec::with_capacity(PER_ROUND);
        for i in 0..PER_ROUND {
            let n = round * PER_ROUND + i;
            let body = format!("{:06}", n / DEVICES);
            let p = files_dir.join(format!("{n:06}.xmit"));
            let rq = format!("INBOX%DEV{:04}", n % DEVICES);
            std::fs::write(&p, xmit(&rq, "MQGATE", true, "MQSTR", body.as_bytes())).unwrap();
            files.push(p);
        }
        let victim = round % 3;
        target.store(victim, Ordering::SeqCst);
        let sender = Command::new(BIN)
            .args(["send", "--to", &front, "--channel", "TO.MQGATE"])
            .args(["--batch", "10", "--retry-ms", "120000"])
            .args(&files)
            .stdout(Stdio::piped())
            .stderr(Stdio::piped())
            .spawn()
            .unwrap();
        // A random point in the round: before, between or inside batches.
        std::thread::sleep(Duration::from_millis(20 + rng.below(100)));
        gs[victim].kill9();
        // The sender's reconnects reach the next gateway, which is running.
        target.store(victim + 1, Ordering::SeqCst);
        let out = sender.wait_with_output().unwrap();
        let summary = String::from_utf8_lossy(&out.stdout).into_owned();
        assert!(
            out.status.success(),
            "round {round}: {}{summary}",
            String::from_utf8_lossy(&out.stderr)
        );
        reconnects += summary
            .split(", ")
            .find_map(|p| p.strip_suffix(" reconnects\n"))
            .and_then(|n| n.parse::<u64>().ok())
            .unwrap_or(0);
        gs[victim].restart();
        std::fs::remove_dir_all(&files_dir).unwrap();
    }
    println!(
        "{ROUNDS} kills, {reconnects} sender reconnects, sending took {:?}",
        started.elapsed()
    );
    assert!(reconnects > 0, "no kill interrupted a transfer");
    // Every gateway shows every message exactly once, in order per queue.
    let per_device = ROUNDS * PER_ROUND / DEVICES;
    for g in &gs {
        for d in 0..DEVICES {
            let q = format!("DEV{d:04}/INBOX");
            let t = Instant::now();
            while g.depth(&q) as usize != per_device {
                assert!(
                    t.elapsed() < Duration::from_secs(20),
                    "{q} depth {} on {}",
                    g.depth(&q),
                    g.base
                );
                std::thread::sleep(Duration::from_millis(100));
            }
        }
    }
    // Each device's queue pulled from the gateways in turn (the devices at
    // once): each message once, in order.
    std::thread::scope(|scope| {
        for d in 0..DEVICES {
            let gs = &gs;
            scope.spawn(move || {
                let q = format!("DEV{d:04}%2FINBOX");
                for i in 0..per_device {
                    let (st, m) = gs[i % 3].get_ack(&q, "wait_ms=10000");
                    assert_eq!(st, 200, "{m}");
                    assert_eq!(
                        data(&m),
                        format!("{i:06}").into_bytes(),
                        "DEV{d:04} message {i}"
                    );
                }
                for g in gs {
                    assert_eq!(g.next(&q, "wait_ms=0").0, 404);
                }
            });
        }
    });
}

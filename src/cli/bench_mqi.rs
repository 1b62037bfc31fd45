//! `mqgate bench mqi`: MQPUT+MQGET round trips through the IBM MQ client
//! protocol (the SVRCONN listener, docs/mq-client-protocol.md) on loopback,
//! with 1 and 16 client connections, persistent and non-persistent; in the
//! same run the same messages through the HTTP API (put, get, acknowledge)
//! and through mqgate's own message channel (one-way delivery, drained
//! afterwards). Results: docs/performance.md "IBM MQ client protocol".

use super::bench::{ms, p99, run_async};
use crate::channel::sender::{Offer, SenderConn};
use crate::channel::xmit;
use crate::config::{ChannelLimits, Config};
use crate::gateway::Gateway;
use crate::mqclient::{ClientError, ConnectOptions, Session, connect};
use bytes::Bytes;
use clap::Args;
use clap::builder::RangedU64ValueParser;
use mqgate_codecs::fap::SegmentType;
use mqgate_codecs::fap::gmo::Mqgmo;
use mqgate_codecs::fap::message::{GetData, PutData, parse_get, write_get, write_put};
use mqgate_codecs::fap::object::oo;
use mqgate_codecs::fap::pmo::Mqpmo;
use mqgate_codecs::mq::constants::{gmo, per, pmo};
use mqgate_codecs::mq::{CharField, Charset, Mqmd};
use std::fmt::Write as _;
use std::net::SocketAddr;
use std::path::PathBuf;
use std::process::ExitCode;
use std::time::{Duration, Instant};

/// The connection counts of each scenario.
const CONNECTIONS: [usize; 2] = [1, 16];
/// The SVRCONN channel the benchmark defines.
const CHANNEL: &str = "BENCH.SVRCONN";
/// The gateway's queue manager name.
const QMGR: &str = "QMBENCH";
/// How long any one reply may take.
const TIMEOUT: Duration = Duration::from_secs(30);

/// Options of `mqgate bench mqi`.
#[derive(Args, Debug)]
pub struct MqiBenchArgs {
    /// Round trips per scenario, shared among its connections (at least 16).
    #[arg(long, default_value_t = 2000, allow_negative_numbers = true, value_parser = RangedU64ValueParser::<usize>::new().range(16..))]
    pub messages: usize,
    /// Message data size in bytes, 0 to 1048576.
    #[arg(long, default_value_t = 1024, allow_negative_numbers = true, value_parser = RangedU64ValueParser::<usize>::new().range(0..=1_048_576))]
    pub size: usize,
    /// Directory for store files (a fresh subdirectory is created and removed).
    #[arg(long)]
    pub dir: Option<PathBuf>,
}

/// Runs the benchmark and prints a Markdown table.
pub fn run(args: MqiBenchArgs) -> ExitCode {
    let base = args.dir.clone().unwrap_or_else(std::env::temp_dir);
    let dir = base.join(format!("mqgate-bench-mqi-{}", std::process::id()));
    run_async(&dir, bench(args, dir.clone()))
}

/// One scenario's result: round trips per second (wall time, all
/// connections) and the 99th percentile of one round trip.
struct Outcome {
    rate: f64,
    p99: Duration,
}

fn queue(c: usize) -> String {
    format!("BENCH.Q.{c:02}")
}

async fn bench(args: MqiBenchArgs, dir: PathBuf) -> Result<(), String> {
    let n = args.messages;
    let data = vec![b'x'; args.size];
    let mut queues = String::from("  - type: local\n    name: BENCH.CH\n");
    for c in 0..CONNECTIONS[1] {
        let _ = write!(
            queues,
            "  - type: local\n    name: {}\n    max_depth: {}\n",
            queue(c),
            n + 1
        );
    }
    let yaml = format!(
        "queue_manager:\n  name: {QMGR}\nhttp:\n  listen: 127.0.0.1:0\nlistener:\n  listen: 127.0.0.1:0\nmqtt:\n  listen: 127.0.0.1:0\nsvrconn:\n  listen: 127.0.0.1:0\n  channels:\n    - name: {CHANNEL}\nqueues:\n{queues}"
    );
    let mut config = Config::from_yaml(&yaml, "bench").map_err(|e| e.to_string())?;
    config.storage.data_dir = dir.join("data");
    let gateway = Gateway::start(config).await.map_err(|e| e.to_string())?;
    let svrconn = gateway
        .svrconn_addr()
        .ok_or_else(|| "the gateway has no SVRCONN listener".to_string())?;
    println!(
        "mqgate bench mqi: {n} round trips of {} bytes per scenario, shared among the connections",
        args.size
    );
    println!();
    println!("| path | persistence | connections | round trips/s | p99 round trip ms |");
    println!("|---|---|---:|---:|---:|");
    for persistent in [true, false] {
        let kind = if persistent {
            "persistent"
        } else {
            "non-persistent"
        };
        for conns in CONNECTIONS {
            let o = svrconn_scenario(svrconn, n, conns, persistent, &data).await?;
            println!(
                "| SVRCONN (MQPUT + MQGET, no syncpoint) | {kind} | {conns} | {:.0} | {:.3} |",
                o.rate,
                ms(o.p99)
            );
            let o = http_scenario(gateway.http_addr(), n, conns, persistent, &data).await?;
            println!(
                "| HTTP API (POST put, GET next, POST ack) | {kind} | {conns} | {:.0} | {:.3} |",
                o.rate,
                ms(o.p99)
            );
        }
        let o = channel_scenario(gateway.channel_addr(), svrconn, n, persistent, &data).await?;
        let how = if persistent {
            "batch of 1 to its CONFIRM"
        } else {
            "fast message + heartbeat"
        };
        println!(
            "| message channel ({how}, one-way) | {kind} | 1 | {:.0} | {:.3} |",
            o.rate,
            ms(o.p99)
        );
    }
    gateway.stop(Duration::from_secs(10)).await;
    Ok(())
}

/// A client conversation with its queue open for output and input.
struct MqiConn {
    session: Session,
    out: i32,
    inp: i32,
}

async fn mqi_connect(addr: SocketAddr, q: &str) -> Result<MqiConn, ClientError> {
    let mut session = connect(&ConnectOptions {
        host: addr.ip().to_string(),
        port: addr.port(),
        channel: CHANNEL.into(),
        q_mgr_name: String::new(),
        user: "bench".into(),
        password: None,
        heartbeat_s: 300,
        max_msg_size: 4 * 1024 * 1024,
        timeout: TIMEOUT,
        appl_name: "mqgate-bench".into(),
        tls: None,
    })
    .await?;
    let out = session.open(q, oo::OUTPUT).await?;
    let inp = session.open(q, oo::INPUT_SHARED).await?;
    Ok(MqiConn { session, out, inp })
}

fn md(persistent: bool) -> Mqmd {
    Mqmd {
        format: CharField::new("MQSTR", Charset::Ascii).unwrap_or_default(),
        persistence: if persistent {
            per::PERSISTENT
        } else {
            per::NOT_PERSISTENT
        },
        ..Mqmd::default()
    }
}

/// MQPUT outside syncpoint with a new MsgId.
async fn mqput(c: &mut MqiConn, md: &Mqmd, data: &[u8]) -> Result<(), ClientError> {
    let p = PutData {
        od: None,
        md: md.clone(),
        md_charset: Charset::Ascii,
        pmo: Mqpmo {
            version: 2,
            options: pmo::NO_SYNCPOINT | pmo::NEW_MSG_ID,
            ..Mqpmo::default()
        },
        data_length: i32::try_from(data.len()).unwrap_or(i32::MAX),
        data,
    };
    let mut b = Vec::new();
    write_put(&p, crate::mqclient::handshake::ORDER, &mut b);
    c.session
        .call("MQPUT", SegmentType::MQPUT, c.out, &b, Duration::ZERO)
        .await
        .map(|_| ())
}

/// MQGET outside syncpoint, waiting up to `wait_ms` (0: no wait); the
/// data's length.
async fn mqget(
    session: &mut Session,
    hobj: i32,
    buffer: usize,
    wait_ms: i32,
) -> Result<usize, String> {
    let g = GetData {
        md: Mqmd::default(),
        md_charset: Charset::Ascii,
        gmo: Mqgmo {
            version: 4,
            options: gmo::NO_SYNCPOINT | if wait_ms > 0 { gmo::WAIT } else { gmo::NO_WAIT },
            wait_interval: wait_ms,
            ..Mqgmo::default()
        },
        length: i32::try_from(buffer).unwrap_or(i32::MAX),
        data: &[],
    };
    let mut b = Vec::new();
    write_get(&g, crate::mqclient::handshake::ORDER, &mut b);
    let (_, m) = session
        .call(
            "MQGET",
            SegmentType::MQGET,
            hobj,
            &b,
            Duration::from_millis(u64::try_from(wait_ms).unwrap_or(0)),
        )
        .await
        .map_err(|e| e.to_string())?;
    let header = m.tsh.header_len();
    let params = m
        .body
        .get(mqgate_codecs::fap::API_LEN..)
        .unwrap_or_default();
    let r = parse_get(
        params,
        header + mqgate_codecs::fap::API_LEN,
        m.tsh.byte_order,
    )
    .map_err(|e| e.to_string())?;
    Ok(r.data.len())
}

/// `conns` client connections, each putting to and getting from a queue of
/// its own, one message at a time.
async fn svrconn_scenario(
    addr: SocketAddr,
    n: usize,
    conns: usize,
    persistent: bool,
    data: &[u8],
) -> Result<Outcome, String> {
    let per_conn = n / conns;
    let mut clients = Vec::with_capacity(conns);
    for c in 0..conns {
        clients.push(
            mqi_connect(addr, &queue(c))
                .await
                .map_err(|e| e.to_string())?,
        );
    }
    let start = Instant::now();
    let tasks: Vec<_> = clients
        .into_iter()
        .map(|mut c| {
            let data = data.to_vec();
            let md = md(persistent);
            tokio::spawn(async move {
                let mut lat = Vec::with_capacity(per_conn);
                for _ in 0..per_conn {
                    let t = Instant::now();
                    mqput(&mut c, &md, &data).await.map_err(|e| e.to_string())?;
                    let got = mqget(&mut c.session, c.inp, data.len(), 0).await?;
                    if got != data.len() {
                        return Err(format!("MQGET returned {got} bytes, {} put", data.len()));
                    }
                    lat.push(t.elapsed());
                }
                c.session.disconnect().await.map_err(|e| e.to_string())?;
                Ok::<_, String>(lat)
            })
        })
        .collect();
    let mut lat = Vec::with_capacity(n);
    for t in tasks {
        lat.extend(t.await.map_err(|e| e.to_string())??);
    }
    Ok(Outcome {
        rate: lat.len() as f64 / start.elapsed().as_secs_f64(),
        p99: p99(&lat),
    })
}

/// The same round trips over the HTTP API: a put, a get (which leases the
/// message) and its acknowledgement, one client thread per connection.
async fn http_scenario(
    addr: SocketAddr,
    n: usize,
    conns: usize,
    persistent: bool,
    data: &[u8],
) -> Result<Outcome, String> {
    let per_conn = n / conns;
    let data = data.to_vec();
    tokio::task::spawn_blocking(move || {
        let start = Instant::now();
        let threads: Vec<_> = (0..conns)
            .map(|c| {
                let base = format!("http://{addr}/v1/queues/{}/messages", queue(c));
                let data = data.clone();
                std::thread::spawn(move || http_client(&base, per_conn, persistent, &data))
            })
            .collect();
        let mut lat = Vec::with_capacity(n);
        for t in threads {
            lat.extend(
                t.join()
                    .map_err(|_| "an HTTP client thread panicked".to_string())??,
            );
        }
        Ok(Outcome {
            rate: lat.len() as f64 / start.elapsed().as_secs_f64(),
            p99: p99(&lat),
        })
    })
    .await
    .map_err(|e| e.to_string())?
}

fn http_client(
    base: &str,
    n: usize,
    persistent: bool,
    data: &[u8],
) -> Result<Vec<Duration>, String> {
    let agent = ureq::AgentBuilder::new().timeout(TIMEOUT).build();
    let put = format!("{base}?persistent={persistent}&format=MQSTR");
    let next = format!("{base}/next");
    let mut lat = Vec::with_capacity(n);
    for _ in 0..n {
        let t = Instant::now();
        agent
            .post(&put)
            .set("content-type", "application/octet-stream")
            .send_bytes(data)
            .map_err(|e| format!("HTTP put: {e}"))?;
        let got: serde_json::Value = agent
            .get(&next)
            .call()
            .map_err(|e| format!("HTTP get: {e}"))?
            .into_json()
            .map_err(|e| format!("HTTP get answer: {e}"))?;
        let lease = got
            .get("lease")
            .and_then(|l| l.as_str())
            .ok_or_else(|| format!("HTTP get answer without a lease: {got}"))?;
        agent
            .post(&format!("{base}/ack/{lease}"))
            .send_bytes(&[])
            .map_err(|e| format!("HTTP ack: {e}"))?;
        lat.push(t.elapsed());
    }
    Ok(lat)
}

/// The same messages through a sender connection to the channel listener
/// (channel TO.MQGATE, docs/channel-protocol.md), each to queue BENCH.CH: a
/// persistent message is a batch of one, timed to its CONFIRM; a
/// non-persistent one goes on the fast path, timed with a heartbeat round
/// trip after it. Afterwards the queue is drained over SVRCONN (not timed)
/// to check that every message arrived.
async fn channel_scenario(
    listener: SocketAddr,
    svrconn: SocketAddr,
    n: usize,
    persistent: bool,
    data: &[u8],
) -> Result<Outcome, String> {
    let msg = Bytes::from(xmit::wrap("BENCH.CH", QMGR, md(persistent), data)?);
    let offer = Offer {
        channel: "TO.MQGATE".into(),
        sending_q_mgr: "BENCH".into(),
        receiving_q_mgr: String::new(),
        limits: ChannelLimits {
            batch_size: 1,
            max_msg_length: 4 * 1024 * 1024,
            heartbeat_ms: 0,
        },
        last_confirmed_seq: 0,
    };
    let err = |e: crate::channel::sender::SendError| e.to_string();
    let mut conn = SenderConn::connect(listener, &offer).await.map_err(err)?;
    let mut lat = Vec::with_capacity(n);
    let start = Instant::now();
    for _ in 0..n {
        let t = Instant::now();
        if persistent {
            conn.start_batch(std::slice::from_ref(&msg))
                .await
                .map_err(err)?;
            conn.wait_confirm().await.map_err(err)?;
        } else {
            conn.send_fast(msg.clone()).await.map_err(err)?;
            conn.heartbeat().await.map_err(err)?;
        }
        lat.push(t.elapsed());
    }
    let total = start.elapsed();
    conn.close("bench done").await.map_err(err)?;
    let mut c = mqi_connect(svrconn, "BENCH.CH")
        .await
        .map_err(|e| e.to_string())?;
    let mut arrived = 0;
    while arrived < n {
        mqget(&mut c.session, c.inp, data.len(), 5000)
            .await
            .map_err(|e| format!("after {arrived} of {n} channel messages: {e}"))?;
        arrived += 1;
    }
    c.session.disconnect().await.map_err(|e| e.to_string())?;
    Ok(Outcome {
        rate: n as f64 / total.as_secs_f64(),
        p99: p99(&lat),
    })
}

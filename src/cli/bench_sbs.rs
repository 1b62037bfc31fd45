//! `mqgate bench sbs`: one publisher broadcasting to a MOT that many queues
//! are registered for, through the SBS server of a group in this process
//! (the queue manager, the queue interface and the SBS server task, as
//! `mqgate run` wires them, without HTTP), for persistent and non-persistent
//! target queues; core NATS with as many subscribers to one subject is the
//! reference in the same run (built with the `nats` feature). Results:
//! docs/performance.md "Selective broadcast (SBS)".
//!
//! The registrations are real SBS_REGISTER_REQ messages put on queue 99
//! (BEA MessageQ Programmer's Guide, "Broadcasting Messages"): queue `i`
//! has no rules when `i % 3 == 0`, one rule (PSEL_TYPE EQ 0) when
//! `i % 3 == 1`, and ten rules that every message meets (body offsets 0, 4,
//! … 36, PSEL_OPER_GTRE 0, all of them) when `i % 3 == 2`; broadcast `k`
//! has type `k % 2`, so the one-rule queues take every other broadcast.
//! One broadcast is in flight at a time: its latency runs from the put on
//! queue 99 to its copy on the first registered queue (a queue without
//! rules, so it gets every broadcast). The SBS server puts all copies of a
//! broadcast in one unit of work, so that copy is there when the last one
//! is.

use super::bench::{ms, p99, run_async};
use crate::config::{Config, DefaultPersistence, QueueDef};
use crate::mqi::{GetMode, GetRequest, Mqi, Object, Outgoing, PutOptions, QueueExits};
use crate::qmgr::QueueManager;
use crate::sbs::config::MessageqConfig;
use crate::sbs::server::{SbsServer, pams_md};
use crate::store::redb::RedbStore;
use bytes::Bytes;
use clap::Args;
use clap::builder::RangedU64ValueParser;
use mqgate_codecs::mq::constants::per;
use mqgate_codecs::mq::{Charset, Mqmd};
use mqgate_codecs::pams::rules::{BodyOffset, OperandLength, Operator, SelectionRule, Selector};
use mqgate_codecs::pams::sbs::{MSG_CLAS_PAMS, RegisterReq, SbsType, StatusReq};
use mqgate_codecs::pams::symbols::MAX_STATIC_MSG_SIZE;
use mqgate_codecs::pams::{Endian, Mot, PamsHeader, QAddress};
use std::path::{Path, PathBuf};
use std::process::ExitCode;
use std::sync::Arc;
use std::time::{Duration, Instant};

/// The group of the benchmark.
const GROUP: u16 = 10;
/// The MOT broadcast to: a private MOT outside the reserved 4900-5100.
const MOT: u16 = 4100;
/// The control queue the SBS server answers to.
const CTL: u16 = 2;
/// The queue number of the first registered queue; the others follow.
const FIRST_QUEUE: u16 = 101;
/// The most registered queues: their numbers stay below the MOTs (4000).
const MAX_QUEUES: u64 = 3000;
/// The bytes the ten-rule registrations read: ten 4-byte fields.
const MIN_SIZE: u64 = 40;
/// How long a get for an answer or a copy waits before the run fails.
const WAIT: Duration = Duration::from_secs(60);

/// Options of `mqgate bench sbs`.
#[derive(Args, Debug)]
pub struct SbsBenchArgs {
    /// Broadcasts per scenario (at least 1).
    #[arg(long, default_value_t = 1000, allow_negative_numbers = true, value_parser = RangedU64ValueParser::<usize>::new().range(1..))]
    pub messages: usize,
    /// Registered queues (NATS: subscribers), 1 to 3000.
    #[arg(long, default_value_t = 1000, allow_negative_numbers = true, value_parser = RangedU64ValueParser::<usize>::new().range(1..=MAX_QUEUES))]
    pub queues: usize,
    /// Message area size in bytes, 40 (what the ten-rule registrations
    /// read) to 32767 (a static `pams_put_msg` buffer).
    #[arg(long, default_value_t = 256, allow_negative_numbers = true, value_parser = RangedU64ValueParser::<usize>::new().range(MIN_SIZE..=MAX_STATIC_MSG_SIZE as u64))]
    pub size: usize,
    /// The nats-server program of the reference.
    #[arg(long, default_value = "nats-server")]
    pub nats_server: String,
    /// Directory for store files (a fresh subdirectory is created and removed).
    #[arg(long)]
    pub dir: Option<PathBuf>,
}

/// One scenario's result.
pub(super) struct SbsResult {
    /// Broadcasts per second.
    pub(super) published: f64,
    /// Copies delivered per second.
    pub(super) copies: f64,
    /// p99 of publish to last copy.
    pub(super) p99: Duration,
}

/// How many registrations of `queues` have no rules, one rule and ten rules.
fn rule_mix(queues: usize) -> (usize, usize, usize) {
    let none = queues.div_ceil(3);
    let one = (queues + 1) / 3;
    (none, one, queues - none - one)
}

/// The copies `messages` broadcasts make: every queue without rules or with
/// ten rules gets each; a one-rule queue gets those of type 0 (even `k`).
fn expected_copies(messages: usize, queues: usize) -> usize {
    let (none, one, ten) = rule_mix(queues);
    messages * (none + ten) + messages.div_ceil(2) * one
}

/// Runs the benchmark and prints a Markdown table.
pub fn run(args: SbsBenchArgs) -> ExitCode {
    let base = args.dir.clone().unwrap_or_else(std::env::temp_dir);
    let dir = base.join(format!("mqgate-bench-sbs-{}", std::process::id()));
    run_async(&dir, bench(&args, &dir))
}

async fn bench(args: &SbsBenchArgs, dir: &Path) -> Result<(), String> {
    let (n, q) = (args.messages, args.queues);
    let (none, one, ten) = rule_mix(q);
    let expected = expected_copies(n, q);
    println!(
        "mqgate bench sbs: {n} broadcasts of {} bytes to MOT {MOT}, {q} registered queues ({none} without rules, {one} with 1 rule, {ten} with 10 rules); {expected} copies per scenario; one broadcast in flight",
        args.size
    );
    println!();
    println!("| system | scenario | published msgs/s | copies/s | p99 publish-to-last-copy ms |");
    println!("|---|---|---:|---:|---:|");
    let area = vec![b'x'; args.size];
    let np = mqgate_scenario(&dir.join("np"), n, q, &area, false).await?;
    println!(
        "| mqgate | non-persistent target queues, {expected} copies | {:.0} | {:.0} | {:.3} |",
        np.published,
        np.copies,
        ms(np.p99)
    );
    let p = mqgate_scenario(&dir.join("p"), n, q, &area, true).await?;
    println!(
        "| mqgate | persistent target queues, {expected} copies | {:.0} | {:.0} | {:.3} |",
        p.published,
        p.copies,
        ms(p.p99)
    );
    #[cfg(feature = "nats")]
    use super::bench_nats::sbs_reference;
    match sbs_reference(&args.nats_server, n, q, &area).await {
        Ok(Some(core)) => {
            println!(
                "| nats-server core | {q} subscribers to one subject, {} deliveries | {:.0} | {:.0} | {:.3} |",
                n * q,
                core.published,
                core.copies,
                ms(core.p99)
            );
            println!();
            println!(
                "ratio mqgate / reference (copies/s): non-persistent {:.2}x, persistent {:.2}x",
                np.copies / core.copies,
                p.copies / core.copies
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

/// A group initialization file for the benchmark: CTL (queue 2) and the
/// registered queues `T0000` … at FIRST_QUEUE onwards.
fn init_file(queues: usize) -> String {
    let mut s = String::from("%PROFILE\nENABLE_SBS YES\n%EOS\n%QCT\n");
    s.push_str(&format!("CTL {CTL} . . . . . . . Y L N\n"));
    for i in 0..queues {
        s.push_str(&format!(
            "T{i:04} {} . . . . . . . Y L N\n",
            usize::from(FIRST_QUEUE) + i
        ));
    }
    s.push_str("%EOS\n");
    s
}

/// The registration of queue `i` (see the module documentation).
fn registration(mot: Mot, i: usize) -> Result<Vec<u8>, String> {
    let queue = QAddress::new(GROUP, FIRST_QUEUE + i as u16);
    let mut req = RegisterReq::new(mot, queue);
    req.rule_conjunct = 1;
    req.rules = match i % 3 {
        0 => Vec::new(),
        1 => vec![SelectionRule::new(
            Selector::Type,
            Operator::Eq,
            OperandLength::Four,
            0,
        )],
        _ => (0..10u32)
            .map(|j| {
                BodyOffset::new(4 * j)
                    .map(|o| {
                        SelectionRule::new(
                            Selector::Body(o),
                            Operator::Gtre,
                            OperandLength::Four,
                            0,
                        )
                    })
                    .ok_or_else(|| format!("body offset {} out of range", 4 * j))
            })
            .collect::<Result<_, _>>()?,
    };
    req.encode_full_size(Endian::Big).map_err(|e| e.to_string())
}

/// A non-persistent PAMS message (MessageQ NN_MEM: broadcasts are not
/// recoverable).
fn message(header: &PamsHeader, area: &[u8]) -> Outgoing {
    Outgoing {
        md: Mqmd {
            persistence: per::NOT_PERSISTENT,
            ..pams_md(header)
        },
        charset: Charset::Ascii,
        data: Bytes::from(header.with_area(area)),
    }
}

async fn take(mqi: &Mqi, obj: &Object, name: &str) -> Result<crate::mqi::GetResult, String> {
    let req = GetRequest {
        wait: WAIT,
        max_wait: WAIT,
        ..GetRequest::default()
    };
    mqi.get(obj, req, GetMode::Destructive { uow: None })
        .await
        .map(|g| g.message)
        .map_err(|e| format!("get from {name}: {} ({})", e.message, e.mqrc.0))
}

async fn mqgate_scenario(
    dir: &Path,
    n: usize,
    queues: usize,
    area: &[u8],
    persistent: bool,
) -> Result<SbsResult, String> {
    std::fs::create_dir_all(dir).map_err(|e| e.to_string())?;
    let init_path = dir.join("group.init");
    std::fs::write(&init_path, init_file(queues)).map_err(|e| e.to_string())?;
    let mut config = Config::default();
    config.storage.data_dir = dir.join("data");
    config.messageq = Some(MessageqConfig::new(u32::from(GROUP), Some(init_path)));
    let loaded = crate::sbs::load_from_config(&mut config)
        .map_err(|e| e.join("; "))?
        .ok_or("no messageq section")?;
    let sbs_queue = loaded.queues.sbs_queue();
    for def in &mut config.queues {
        if let QueueDef::Local(l) = def
            && (l.name.starts_with('T') || l.name == sbs_queue)
        {
            l.max_depth = n + 1;
            if l.name.starts_with('T') && persistent {
                l.default_persistence = DefaultPersistence::Persistent;
            }
        }
    }
    let store = RedbStore::open(&config.storage.data_dir).map_err(|e| e.to_string())?;
    let qm = Arc::new(QueueManager::open(&config, Arc::new(store)).map_err(|e| e.to_string())?);
    let mqi = Mqi::new(
        Arc::clone(&qm),
        Arc::new(QueueExits::new(&config.exits, qm.name())),
    );
    let attachments = Arc::new(crate::sbs::attach::Attachments::new(
        loaded.attach.clone(),
        Arc::clone(&loaded.queues),
        mqi.clone(),
    ));
    let server = SbsServer::new(mqi.clone(), Arc::clone(&loaded.queues), attachments, false);
    let server = tokio::spawn(server.run());
    let result = drive(&mqi, n, queues, area).await;
    server.abort();
    let _ = server.await;
    result
}

async fn drive(mqi: &Mqi, n: usize, queues: usize, area: &[u8]) -> Result<SbsResult, String> {
    let err = |e: crate::mqi::QmError| format!("{} ({})", e.message, e.mqrc.0);
    let mot = Mot::new(i64::from(MOT)).map_err(|e| e.to_string())?;
    let server = QAddress::new(GROUP, 99);
    let ctl = QAddress::new(GROUP, CTL);
    let q99 = mqi.open(&format!("PAMS.{GROUP}.99"), "").map_err(err)?;
    let ctl_obj = mqi.open("CTL", "").map_err(err)?;
    let name = |i: usize| format!("T{i:04}");
    // Register every queue, then an SBS_STATUS_REQ: the server serves its
    // queue in order, so its answer comes after every registration.
    for i in 0..queues {
        let body = registration(mot, i)?;
        let h = PamsHeader::new(
            MSG_CLAS_PAMS,
            SbsType::RegisterReq.code(),
            ctl,
            server,
            Endian::Big,
        );
        mqi.put(&q99, message(&h, &body), PutOptions::default())
            .await
            .map_err(err)?;
    }
    let status = StatusReq {
        version: 40,
        user_tag: 1,
        start_mot: i32::from(MOT),
        end_mot: i32::from(MOT),
        reset: 0,
    };
    let h = PamsHeader::new(
        MSG_CLAS_PAMS,
        SbsType::StatusReq.code(),
        ctl,
        server,
        Endian::Big,
    );
    mqi.put(
        &q99,
        message(&h, &status.encode(Endian::Big)),
        PutOptions::default(),
    )
    .await
    .map_err(err)?;
    let answer = take(mqi, &ctl_obj, "CTL").await?;
    let (h, _) = PamsHeader::split(&answer.data).map_err(|e| e.to_string())?;
    if h.msg_type != SbsType::StatusResp.code() {
        return Err(format!(
            "a registration was refused: type {} came before SBS_STATUS_RESP",
            h.msg_type
        ));
    }
    // Publish, one broadcast in flight.
    let probe_name = name(0);
    let probe = mqi.open(&probe_name, "").map_err(err)?;
    let publisher = QAddress::new(GROUP, CTL);
    let mut lat = Vec::with_capacity(n);
    let start = Instant::now();
    for k in 0..n {
        let h = PamsHeader::new(
            1,
            (k % 2) as i16,
            publisher,
            QAddress::new(GROUP, MOT),
            Endian::Big,
        );
        let t = Instant::now();
        mqi.put(&q99, message(&h, area), PutOptions::default())
            .await
            .map_err(err)?;
        take(mqi, &probe, &probe_name).await?;
        lat.push(t.elapsed());
    }
    let total = start.elapsed();
    let copies = n
        + (1..queues)
            .map(|i| mqi.depth(&name(i)).unwrap_or(0))
            .sum::<usize>();
    let expected = expected_copies(n, queues);
    if copies != expected {
        return Err(format!(
            "{copies} copies on the registered queues, {expected} expected"
        ));
    }
    Ok(SbsResult {
        published: n as f64 / total.as_secs_f64(),
        copies: copies as f64 / total.as_secs_f64(),
        p99: p99(&lat),
    })
}

/// The reference needs the NATS client, built only with the `nats` feature.
#[cfg(not(feature = "nats"))]
async fn sbs_reference(
    _nats_server: &str,
    _n: usize,
    _subscribers: usize,
    _data: &[u8],
) -> Result<Option<SbsResult>, String> {
    Err("mqgate was built without the `nats` feature; measure the NATS reference with `cargo run --release --features nats -- bench sbs`".into())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn rule_mix_and_copies() {
        // 10 queues: 0, 3, 6, 9 without rules; 1, 4, 7 with one; 2, 5, 8 with ten.
        assert_eq!(rule_mix(10), (4, 3, 3));
        assert_eq!(rule_mix(1000), (334, 333, 333));
        assert_eq!(rule_mix(1), (1, 0, 0));
        assert_eq!(rule_mix(2), (1, 1, 0));
        // 20 broadcasts, 10 of type 0: 20 × 7 + 10 × 3.
        assert_eq!(expected_copies(20, 10), 170);
        assert_eq!(expected_copies(3, 2), 3 + 2);
    }
}

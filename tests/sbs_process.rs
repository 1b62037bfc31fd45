//! The SBS server of a gateway run as a process: what it logs, and durable
//! registrations across kill -9.
//!
//! Durable registrations (docs/messageq.md "Durable registrations"): with `messageq.durable_registrations: true` every
//! SBS_REGISTER_REQ whose put was acknowledged — a recoverable WF_SAF put to
//! queue 99, a persistent message in the store before the answer — is
//! registered exactly once, however the gateway is killed while queue 99
//! still holds requests: the server takes each request, puts its answer and
//! writes the registrations in one unit of work (IBM MQ "Units of work").
//!
//! Sources of the expected values: SBS_REGISTER_REQ (`p_msg.h` V4.0-08,
//! 4132 bytes, class MSG_CLAS_PAMS 29, type -1196 of `p_typecl.h`
//! V5.0-01); PDEL_MODE_WF_SAF "Stored in the store and forward file" (BEA
//! MessageQ Programmer's Guide, appendix "Delivery Modes and UMAs"); the
//! SBS_STATUS_RESP_MOT `num_reg` counter as `mqgate sbs status` prints it
//! (one registration per MOT here, so 1 for every MOT registered).

mod common;
mod sbs_util;

use base64::Engine;
use common::{BIN, Gateway};
use mqgate_codecs::pams::{Endian, QAddress};
use serde_json::json;
use std::collections::BTreeMap;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

/// SBS_REGISTER_REQ (`p_typecl.h` V5.0-01).
const REGISTER_REQ: i16 = -1196;
/// Requests sent per round, each for its own MOT.
const PER_ROUND: u16 = 400;
/// Rounds of send, kill -9 and restart.
const ROUNDS: u16 = 3;
/// Senders at once, so that queue 99 fills faster than the server empties it.
const SENDERS: u16 = 4;

fn config(dir: &std::path::Path) -> String {
    std::fs::write(
        dir.join("group.init"),
        "%PROFILE\nENABLE_SBS YES\n%EOS\n%QCT\nCTL 2 . . . . . . . Y L N\nDEST 10 . . . . . . . Y L N\n%EOS\n",
    )
    .unwrap();
    format!(
        "queue_manager:\n  name: GW10\nhttp:\n  max_wait_ms: 10000\nmessageq:\n  group: 10\n  init_file: {}\n  durable_registrations: true\n",
        dir.join("group.init").display()
    )
}

/// `POST /v1/pams/messages` of an SBS_REGISTER_REQ for `mot` and queue
/// 10.10 (DEST), WF_SAF to the SBS server 10.99: true when the gateway
/// acknowledged it (201).
fn send(base: &str, mot: u16) -> bool {
    let req = sbs_util::register_req(
        i32::from(mot),
        i32::from(mot),
        QAddress::new(10, 10),
        false,
        false,
        sbs_util::ALL,
        &[],
        Endian::Big,
    );
    let body = json!({
        "target": "10.99",
        "class": 29,
        "type": REGISTER_REQ,
        "delivery": "PDEL_MODE_WF_SAF",
        "resp_q": "10.2",
        "data_base64": base64::engine::general_purpose::STANDARD.encode(&req),
    });
    match ureq::post(&format!("{base}/v1/pams/messages"))
        .timeout(Duration::from_secs(10))
        .send_json(body)
    {
        Ok(r) => r.status() == 201,
        Err(_) => false,
    }
}

/// `mqgate sbs status` through `g`: num_reg per MOT.
fn num_reg(g: &Gateway) -> BTreeMap<u16, i64> {
    let out = std::process::Command::new(BIN)
        .args(["sbs", "status", "--gateway", &g.base])
        .output()
        .unwrap();
    let text = String::from_utf8_lossy(&out.stdout).into_owned();
    assert_eq!(
        out.status.code(),
        Some(0),
        "{text}{}",
        String::from_utf8_lossy(&out.stderr)
    );
    text.lines()
        .filter_map(|l| {
            // mot N num_reg K complete_rcvd ...
            let w: Vec<&str> = l.split_whitespace().collect();
            match w.as_slice() {
                ["mot", m, "num_reg", n, ..] => Some((m.parse().ok()?, n.parse().ok()?)),
                _ => None,
            }
        })
        .collect()
}

/// Waits until the SBS server has taken every message of queue 99.
fn drained(g: &Gateway) {
    let deadline = Instant::now() + Duration::from_secs(120);
    while g.depth("PAMS.10.99") > 0 {
        assert!(Instant::now() < deadline, "queue 99 not served in 120 s");
        std::thread::sleep(Duration::from_millis(50));
    }
}

#[test]
fn acknowledged_registrations_survive_kill_9_exactly_once() {
    let dir = tempfile::tempdir().unwrap();
    let mut g = Gateway::start(dir.path(), &config(dir.path()));
    let mut acked: Vec<u16> = Vec::new();
    for round in 0..ROUNDS {
        let first = 4000 + round * PER_ROUND;
        let done = Arc::new(Mutex::new(Vec::new()));
        let stop = Arc::new(AtomicBool::new(false));
        let senders: Vec<_> = (0..SENDERS)
            .map(|s| {
                let (base, done, stop) = (g.base.clone(), Arc::clone(&done), Arc::clone(&stop));
                std::thread::spawn(move || {
                    let mut mot = first + s;
                    while mot < first + PER_ROUND && !stop.load(Ordering::Relaxed) {
                        if !send(&base, mot) {
                            break;
                        }
                        done.lock().unwrap().push(mot);
                        mot += SENDERS;
                    }
                })
            })
            .collect();
        // Kill while queue 99 holds requests and the server has served some.
        let deadline = Instant::now() + Duration::from_secs(60);
        let depth_at_kill = loop {
            let depth = g.depth("PAMS.10.99");
            let sent = done.lock().unwrap().len() as u64;
            if depth >= 20 && sent > depth {
                break depth;
            }
            assert!(
                Instant::now() < deadline && !senders.iter().all(|s| s.is_finished()),
                "round {round}: queue 99 never held 20 requests while the server served ({depth} now, {sent} sent)"
            );
            std::thread::sleep(Duration::from_millis(5));
        };
        g.kill9();
        stop.store(true, Ordering::Relaxed);
        for s in senders {
            s.join().unwrap();
        }
        acked.extend(done.lock().unwrap().iter());
        g.restart();
        drained(&g);
        let regs = num_reg(&g);
        for mot in &acked {
            assert_eq!(
                regs.get(mot),
                Some(&1),
                "round {round} (killed with {depth_at_kill} on queue 99): the acknowledged SBS_REGISTER_REQ for MOT {mot} is registered exactly once"
            );
        }
        for (mot, n) in &regs {
            assert_eq!(*n, 1, "MOT {mot}: one request, one registration");
        }
    }
}

/// The last `broadcast` summary line of the gateway's log.
fn broadcast_line(g: &Gateway) -> Option<String> {
    let log = std::fs::read_to_string(g.log_path()).unwrap_or_default();
    log.lines()
        .rev()
        .filter(|l| l.contains(" broadcast ") || l.ends_with(" broadcast"))
        .find(|l| l.contains("targets="))
        .map(str::to_string)
}

#[test]
fn the_broadcast_summary_counts_every_lost_copy() {
    let dir = tempfile::tempdir().unwrap();
    let g = Gateway::start(dir.path(), &config(dir.path()));
    // Three registrations for MOT 4100: DEST (10.10, defined), 10.44 (a
    // queue of the group that is not defined: 2085) and 30.5 (group 30 is
    // not on the bus: 2087, docs/messageq.md "SBS server").
    for queue in ["10.10", "10.44", "30.5"] {
        let out = std::process::Command::new(BIN)
            .args(["sbs", "register", "--gateway", &g.base, "--ack"])
            .args(["--mot", "4100", "--queue", queue, "--resp-q", "10.2"])
            .output()
            .unwrap();
        assert_eq!(
            out.status.code(),
            Some(0),
            "{}",
            String::from_utf8_lossy(&out.stderr)
        );
    }
    let body = json!({"target": "10.4100", "data_base64": "SUJN"});
    let r = ureq::post(&format!("{}/v1/pams/messages", g.base))
        .send_json(body)
        .unwrap();
    assert_eq!(r.status(), 201);
    let deadline = Instant::now() + Duration::from_secs(10);
    let line = loop {
        if let Some(l) = broadcast_line(&g) {
            break l;
        }
        assert!(Instant::now() < deadline, "no broadcast summary logged");
        std::thread::sleep(Duration::from_millis(20));
    };
    // Three targets, two of them lost: 10.44 and 30.5.
    assert!(line.contains("targets=3 lost=2"), "{line}");
}

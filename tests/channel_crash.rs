//! Crash safety of message channels (docs/channel-protocol.md; docs/architecture.md
//! "Rules every part keeps": "a confirmed batch survives kill -9, and a batch is never
//! applied twice after a reconnect"):
//! 10,000 persistent messages sent in batches while the receiving gateway is
//! killed with SIGKILL at random points and restarted; at the end every
//! message is on its device queue exactly once, in order per queue.

mod common;

use common::{BIN, Gateway, data};
use mqgate_codecs::mq::xqh::write_xqh;
use mqgate_codecs::mq::{ByteOrder, CharField, Charset, Mqmd, Mqxqh};
use std::process::{Command, Stdio};
use std::time::{Duration, Instant, SystemTime};

const ROUNDS: usize = 20;
const PER_ROUND: usize = 500;
const DEVICES: usize = 10;

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

fn xmit(rq: &str, body: &[u8]) -> Vec<u8> {
    let cs = Charset::Ascii;
    let xqh = Mqxqh {
        version: 1,
        remote_q_name: CharField::new(rq, cs).unwrap(),
        remote_q_mgr_name: CharField::new("MQGATE", cs).unwrap(),
        msg_desc: Mqmd {
            version: 1,
            persistence: 1,
            format: CharField::new("MQSTR", cs).unwrap(),
            ..Mqmd::default()
        },
    };
    let mut out = Vec::new();
    write_xqh(&xqh, ByteOrder::Little, cs, &mut out);
    out.extend_from_slice(body);
    out
}

#[test]
fn ten_thousand_persistent_messages_survive_twenty_kills_exactly_once() {
    let seed = SystemTime::now()
        .duration_since(SystemTime::UNIX_EPOCH)
        .unwrap()
        .as_nanos() as u64
        | 1;
    println!("kill-point seed {seed}");
    let mut rng = Rng(seed);
    let dir = tempfile::tempdir().unwrap();
    let mut g = Gateway::start(dir.path(), "");
    let files_dir = dir.path().join("msgs");
    std::fs::create_dir_all(&files_dir).unwrap();
    let started = Instant::now();
    let mut kills = 0;
    let mut reconnects = 0u64;
    for round in 0..ROUNDS {
        let mut files = Vec::with_capacity(PER_ROUND);
        for i in 0..PER_ROUND {
            let n = round * PER_ROUND + i;
            let device = n % DEVICES;
            let body = format!("{:06}", n / DEVICES);
            let p = files_dir.join(format!("{n:06}.xmit"));
            std::fs::write(&p, xmit(&format!("INBOX%DEV{device:04}"), body.as_bytes())).unwrap();
            files.push(p);
        }
        let sender = Command::new(BIN)
            .args(["send", "--to", &g.listen_addr(), "--channel", "TO.MQGATE"])
            .args(["--batch", "10", "--retry-ms", "120000"])
            .args(&files)
            .stdout(Stdio::piped())
            .stderr(Stdio::piped())
            .spawn()
            .unwrap();
        // A random point in the round: before, between or inside batches.
        std::thread::sleep(Duration::from_millis(rng.below(80)));
        g.kill9();
        kills += 1;
        std::thread::sleep(Duration::from_millis(rng.below(100)));
        g.restart();
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
        std::fs::remove_dir_all(&files_dir).unwrap();
        std::fs::create_dir_all(&files_dir).unwrap();
    }
    println!(
        "{kills} kills, {reconnects} sender reconnects, sending took {:?}",
        started.elapsed()
    );
    assert!(kills >= 20);
    // At least one kill hit a sender mid-transfer (otherwise nothing was tested).
    assert!(reconnects > 0, "no kill interrupted a transfer");
    // One last kill after the final confirms: what was confirmed is durable.
    g.kill9();
    g.restart();
    let per_device = ROUNDS * PER_ROUND / DEVICES;
    for d in 0..DEVICES {
        let qm = format!("DEV{d:04}");
        let (st, v) = g.call("GET", "/v1/queues", None);
        assert_eq!(st, 200);
        let depth = v
            .as_array()
            .unwrap()
            .iter()
            .find(|q| q["name"] == format!("{qm}/INBOX"))
            .and_then(|q| q["depth"].as_u64())
            .unwrap_or(0);
        // Exactly once: no loss, no duplicate.
        assert_eq!(depth as usize, per_device, "{qm}/INBOX depth");
        // In order: browse the whole queue.
        let mut cursor = String::new();
        for i in 0..per_device {
            let q = format!("{qm}%2FINBOX");
            let (st, m) = g.next(&q, &format!("browse=true{cursor}"));
            assert_eq!(st, 200, "{m}");
            assert_eq!(data(&m), format!("{i:06}").into_bytes(), "{qm} message {i}");
            cursor = format!("&cursor={}", m["cursor"].as_str().unwrap());
        }
    }
}

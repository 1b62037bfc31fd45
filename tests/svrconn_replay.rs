//! Replays the client side of each conversation of a real capture of IBM's
//! JMS client (../shared/fixtures/mq/capture/jms_client_qm.pcap, five TCP
//! connections to three queue managers) against mqgate's server-connection
//! channel — the same bytes, in order, each reply awaited — and checks that
//! mqgate's replies have the queue managers' shape: segment type, header
//! kind, ControlFlags1, SegmentLength, ReplyLength, CompCode and Reason, the
//! versions and lengths of the structures inside. Handles, times, ids and
//! names may differ (they are not compared); each other difference allowed
//! is listed in [`ALLOWED`]. Then tshark's MQ dissector (the oracle)
//! dissects a capture of mqgate's replies written by this test: no
//! malformed packet, no expert error, and its `mq.*` fields agree with the
//! codec's reading of what mqgate sent.

#[path = "../codecs/tests/pcap/mod.rs"]
mod pcap;

use mqgate::config::Config;
use mqgate::gateway::Gateway;
use mqgate_codecs::fap::{
    Body, SegmentType, Tsh, TshKind, Verb, decode_body, parse_segment, segment_len,
};
use std::collections::HashMap;
use std::path::PathBuf;
use std::process::Command;
use std::time::Duration;
use tokio::io::{AsyncReadExt, AsyncWriteExt};
use tokio::net::TcpStream;

/// The differences from the queue managers' replies this test allows, each
/// with its reason (docs/mq-client-protocol.md "Differences from a queue
/// manager").
const ALLOWED: &[&str] = &[
    // mqgate offers SPI verbs QUERY and OPEN only; the queue managers
    // listed 12 verbs. The SPQO part, the SPI reply's SegmentLength and
    // ReplyLength are shorter.
    "SPI QUERY reply: SPQO verb count and the lengths that follow from it",
    // The capture lost client segments of connection 3 (MQDISC of
    // conversations 7 and 9, a SOCKET_ACTION): what the queue manager
    // answered to them is not replayed.
    "replies whose request the capture lost",
];

fn capture() -> Option<Vec<u8>> {
    let p = PathBuf::from(concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/../shared/fixtures/mq/capture/jms_client_qm.pcap"
    ));
    match std::fs::read(&p) {
        Ok(b) => Some(b),
        Err(e) => {
            missing(&format!("{}: {e}", p.display()));
            None
        }
    }
}

fn missing(what: &str) {
    assert!(
        std::env::var_os("CI").is_none(),
        "{what}, and CI is set: .ci/run installs tshark and clones ../shared beside the repository"
    );
    println!("SKIP: {what}");
}

/// A segment of the capture in capture order.
struct Event {
    frame: u32,
    from_client: bool,
    bytes: Vec<u8>,
}

fn split(d: &pcap::Direction, from_client: bool, out: &mut Vec<Event>) {
    let mut at = 0;
    while at < d.data.len() {
        let n = segment_len(&d.data[at..], usize::MAX).unwrap().unwrap();
        out.push(Event {
            frame: d.frame_of(at + n - 1),
            from_client,
            bytes: d.data[at..at + n].to_vec(),
        });
        at += n;
    }
}

/// What is compared of a reply: named values.
fn shape(bytes: &[u8]) -> Vec<(&'static str, i64)> {
    let s = parse_segment(bytes).unwrap();
    let t = &s.tsh;
    let mut v = vec![
        ("kind", t.kind as i64),
        ("SegmentType", i64::from(t.segment_type.0)),
        ("ControlFlags1", i64::from(t.control_flags1)),
        ("SegmentLength", i64::from(t.segment_length)),
        (
            "ByteOrder",
            matches!(t.byte_order, mqgate_codecs::mq::ByteOrder::Little) as i64,
        ),
    ];
    match decode_body(t, s.body).unwrap() {
        Body::InitialData(id) => {
            v.push(("ID length", id.length as i64));
            v.push(("FapLevel", i64::from(id.fap_level)));
            v.push(("IniErrorFlags1", i64::from(id.ini_error_flags1)));
            v.push(("CapabilityFlags1", i64::from(id.capability_flags1)));
            v.push(("CapabilityFlags2", i64::from(id.capability_flags2)));
            v.push(("CapabilityFlags3", i64::from(id.capability_flags3)));
            v.push(("ECapabilityFlags3", i64::from(id.e_capability_flags3)));
            v.push(("MaxTransmissionSize", i64::from(id.max_transmission_size)));
            v.push(("MaxMsgSize", i64::from(id.max_msg_size)));
            v.push(("HeartbeatInterval", i64::from(id.heartbeat_interval)));
            v.push(("ConvPerSocket", i64::from(id.conv_per_socket)));
        }
        Body::StatusData(st) => v.push((
            "STATUS_DATA empty",
            (st == mqgate_codecs::fap::StatusData::Empty) as i64,
        )),
        Body::SocketAction(a) => {
            v.push(("Type", i64::from(a.action_type)));
            v.push(("Parm1", i64::from(a.parm1)));
            v.push(("Parm2", i64::from(a.parm2)));
        }
        Body::Api(h, verb) => {
            v.push(("ReplyLength", i64::from(h.reply_length)));
            v.push(("CompCode", i64::from(h.comp_code)));
            v.push(("Reason", i64::from(h.reason)));
            match verb {
                Verb::Conn(c) => {
                    v.push((
                        "FCNO Version",
                        c.fcno.as_ref().map_or(-1, |f| i64::from(f.version)),
                    ));
                }
                Verb::Open(o) => {
                    v.push(("MQOD Version", i64::from(o.od.version)));
                    v.push((
                        "FOPA Version",
                        o.fopa.as_ref().map_or(-1, |f| i64::from(f.version)),
                    ));
                }
                Verb::Put(p) => {
                    v.push(("MQMD Version", i64::from(p.md.version)));
                    v.push(("MQPMO Version", i64::from(p.pmo.version)));
                    v.push(("DataLength", i64::from(p.data_length)));
                }
                Verb::Inq(q) => {
                    v.push(("SelectorCount", q.selectors.len() as i64));
                    v.push(("IntAttrCount", i64::from(q.int_attr_count)));
                    v.push(("CharAttrLength", i64::from(q.char_attr_length)));
                }
                Verb::Spi(sp) => {
                    v.push(("SPI Verb", i64::from(sp.verb)));
                    v.push(("SPI Version", i64::from(sp.version)));
                    for p in &sp.parts {
                        v.push(("SPI part", i64::from(u32::from_be_bytes(p.name()))));
                        v.push(("SPI part Version", i64::from(p.version)));
                        v.push(("SPI part Length", 12 + p.data.len() as i64));
                    }
                }
                _ => {}
            }
        }
        _ => {}
    }
    v
}

/// The names compared for one reply, less those [`ALLOWED`] lets differ.
fn comparable(shape: Vec<(&'static str, i64)>, spi_query: bool) -> Vec<(&'static str, i64)> {
    if !spi_query {
        return shape;
    }
    let mut seen_spqo = false;
    shape
        .into_iter()
        .filter(|(k, v)| {
            if *k == "SPI part" && *v == i64::from(u32::from_be_bytes(*b"SPQO")) {
                seen_spqo = true;
            }
            let length = matches!(*k, "SegmentLength" | "ReplyLength");
            let spqo_length = seen_spqo && *k == "SPI part Length";
            !(length || spqo_length)
        })
        .collect()
}

/// The reply a client segment waits for: (conversation, reply type).
fn expects(t: &Tsh, body: &[u8]) -> Option<(u32, u8)> {
    let conv = match t.kind {
        TshKind::Tshm if t.conversation_id != 0 => t.conversation_id,
        _ => 1,
    };
    let st = t.segment_type;
    match st {
        SegmentType::INITIAL_DATA => Some((conv, st.0)),
        SegmentType::CONAUTH_INFO => Some((conv, SegmentType::STATUS_DATA.0)),
        SegmentType::SOCKET_ACTION => {
            let a =
                mqgate_codecs::fap::socket::parse_socket_action(body, t.header_len(), t.byte_order)
                    .ok()?;
            (a.action_type == 1).then_some((a.conversation_id as u32, st.0))
        }
        t if t.is_api() => Some((conv, t.reply().0)),
        _ => None,
    }
}

/// The conversation and type of a server segment.
fn answers(t: &Tsh) -> (u32, u8) {
    let conv = match t.kind {
        TshKind::Tshm if t.conversation_id != 0 => t.conversation_id,
        _ => 1,
    };
    (conv, t.segment_type.0)
}

struct Reader {
    stream: TcpStream,
    buf: Vec<u8>,
}

impl Reader {
    async fn next(&mut self) -> Option<Vec<u8>> {
        loop {
            if let Some(n) = segment_len(&self.buf, usize::MAX).unwrap()
                && self.buf.len() >= n
            {
                return Some(self.buf.drain(..n).collect());
            }
            let mut chunk = vec![0u8; 65536];
            let n = tokio::time::timeout(Duration::from_secs(10), self.stream.read(&mut chunk))
                .await
                .expect("mqgate answers within 10 s")
                .ok()?;
            if n == 0 {
                return None;
            }
            self.buf.extend_from_slice(&chunk[..n]);
        }
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn replies_have_the_queue_managers_shape() {
    let Some(file) = capture() else { return };
    let dir = tempfile::tempdir().unwrap();
    let mut compared = 0;
    let mut skipped = 0;
    let mut exchanges: Vec<(Vec<u8>, Vec<u8>)> = Vec::new();
    for (ci, conn) in pcap::connections(&file).iter().enumerate() {
        let mut events = Vec::new();
        split(&conn.to_server, true, &mut events);
        split(&conn.to_client, false, &mut events);
        events.sort_by_key(|e| (e.frame, !e.from_client));
        // A gateway named as the queue manager of this connection (its
        // INITIAL_DATA reply's QMgrName: the client names it in MQCONN).
        let first_reply = events.iter().find(|e| !e.from_client).unwrap();
        let s = parse_segment(&first_reply.bytes).unwrap();
        let Body::InitialData(id) = decode_body(&s.tsh, s.body).unwrap() else {
            panic!("connection {ci}: no INITIAL_DATA reply first");
        };
        let qm = String::from_utf8_lossy(&id.q_mgr_name)
            .trim_end()
            .to_string();
        // The queue the JMS client puts to, and its channel; the user "app"
        // of its CONAUTH_INFO admitted by user id (its password is
        // protected by the client and unreadable), "root" of the
        // connections that send no CONAUTH_INFO refused with 2035 as the
        // queue managers did.
        let text = format!(
            "queue_manager:\n  name: {qm}\nhttp:\n  listen: 127.0.0.1:0\nlistener:\n  listen: 127.0.0.1:0\nmqtt:\n  listen: 127.0.0.1:0\nsvrconn:\n  listen: 127.0.0.1:0\n  channels:\n    - name: APP.SVRCONN\n      users: [{{name: app}}]\nqueues:\n  - type: local\n    name: UNIFORM.QUEUE\n"
        );
        let mut c = Config::from_yaml(&text, "t.yaml").unwrap();
        c.storage.data_dir = dir.path().join(format!("data{ci}"));
        let g = Gateway::start(c).await.unwrap();
        let addr = g.svrconn_addr().unwrap();
        let mut r = Reader {
            stream: TcpStream::connect(addr).await.unwrap(),
            buf: Vec::new(),
        };
        let mut outstanding: Vec<(u32, u8)> = Vec::new();
        let mut sent = Vec::new();
        let mut got = Vec::new();
        let mut last_request_type = HashMap::new();
        for e in &events {
            let s = parse_segment(&e.bytes).unwrap();
            if e.from_client {
                r.stream.write_all(&e.bytes).await.unwrap();
                sent.extend_from_slice(&e.bytes);
                if let Some(x) = expects(&s.tsh, s.body) {
                    outstanding.push(x);
                    if s.tsh.segment_type == SegmentType::SPI {
                        let verb = mqgate_codecs::mq::ByteOrder::Little
                            .read_i32(s.body, 16)
                            .unwrap_or(0);
                        last_request_type.insert(x.0, verb);
                    }
                }
                continue;
            }
            let key = answers(&s.tsh);
            let Some(i) = outstanding.iter().position(|o| *o == key) else {
                // ALLOWED[1]: the request this answers was lost.
                skipped += 1;
                continue;
            };
            outstanding.remove(i);
            let mine = r.next().await.unwrap_or_else(|| {
                panic!(
                    "connection {ci} frame {}: mqgate closed instead of answering",
                    e.frame
                )
            });
            got.extend_from_slice(&mine);
            let spi_query = s.tsh.segment_type == SegmentType::SPI_REPLY
                && last_request_type.get(&key.0) == Some(&1);
            let theirs = comparable(shape(&e.bytes), spi_query);
            let ours = comparable(shape(&mine), spi_query);
            assert_eq!(
                ours, theirs,
                "connection {ci}, frame {}: mqgate's reply (left) against the queue manager's",
                e.frame
            );
            compared += 1;
        }
        exchanges.push((sent, got));
        drop(g);
    }
    // Every reply of the capture but the one whose request was lost
    // (118 server segments, MQDISC_REPLY of conversation 9).
    assert_eq!((compared, skipped), (117, 1), "allowed: {ALLOWED:?}");
    tshark_on_mqgates_replies(&exchanges);
}

/// Writes the replayed exchanges as a pcap (Ethernet, IPv4, TCP to port
/// 1414) and has tshark dissect it.
fn tshark_on_mqgates_replies(exchanges: &[(Vec<u8>, Vec<u8>)]) {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("mqgate.pcap");
    std::fs::write(&path, pcap_of(exchanges)).unwrap();
    let run = |args: &[&str]| {
        Command::new("tshark")
            .arg("-r")
            .arg(&path)
            .args(args)
            .output()
    };
    let out = match run(&[
        "-T",
        "fields",
        "-e",
        "_ws.malformed",
        "-e",
        "_ws.expert.severity",
    ]) {
        Ok(o) if o.status.success() => o,
        Ok(o) => panic!("tshark failed: {}", String::from_utf8_lossy(&o.stderr)),
        Err(e) => return missing(&format!("tshark cannot run ({e}); Debian package tshark")),
    };
    for line in String::from_utf8(out.stdout).unwrap().lines() {
        let mut cols = line.split('\t');
        assert_eq!(cols.next().unwrap_or(""), "", "malformed packet: {line}");
        // PI_ERROR is 0x00800000 (epan/proto.h).
        for sev in cols
            .next()
            .unwrap_or("")
            .split(',')
            .filter(|s| !s.is_empty())
        {
            assert!(
                sev.parse::<u32>().unwrap() < 0x0080_0000,
                "expert error: {line}"
            );
        }
    }
    // mq.* fields of mqgate's replies (server port 1414 as source) agree with
    // what the codec reads from the same bytes.
    let fields = [
        "mq.tsh.type",
        "mq.tsh.seglength",
        "mq.tsh.cflags1",
        "mq.api.completioncode",
        "mq.api.reasoncode",
    ];
    let mut args = vec!["-Y", "mq && tcp.srcport == 1414", "-T", "fields"];
    for f in &fields {
        args.extend(["-e", f]);
    }
    let out = run(&args).unwrap();
    let rows: Vec<Vec<String>> = String::from_utf8(out.stdout)
        .unwrap()
        .lines()
        .map(|l| l.split('\t').map(str::to_string).collect())
        .collect();
    let mut ours = Vec::new();
    for (_, got) in exchanges {
        let mut at = 0;
        while at < got.len() {
            let s = parse_segment(&got[at..]).unwrap();
            at += s.tsh.segment_length as usize;
            let api = match decode_body(&s.tsh, s.body).unwrap() {
                Body::Api(h, _) => Some(h),
                _ => None,
            };
            ours.push(vec![
                format!("0x{:02x}", s.tsh.segment_type.0),
                s.tsh.segment_length.to_string(),
                format!("0x{:02x}", s.tsh.control_flags1),
                api.map(|h| h.comp_code.to_string()).unwrap_or_default(),
                api.map(|h| h.reason.to_string()).unwrap_or_default(),
            ]);
        }
    }
    // One row per reply of mqgate: the 117 compared above.
    assert_eq!(ours.len(), 117);
    assert_eq!(rows, ours, "tshark's mq.* fields of mqgate's replies");
}

/// A pcap of `exchanges`, one TCP connection each (10.0.0.1:40000+i to
/// 10.0.0.2:1414), each segment in a packet of its own.
fn pcap_of(exchanges: &[(Vec<u8>, Vec<u8>)]) -> Vec<u8> {
    let mut f = Vec::new();
    for v in [0xA1B2_C3D4u32, 0x0004_0002, 0, 0, 262_144, 1] {
        if v == 0x0004_0002 {
            f.extend_from_slice(&2u16.to_le_bytes());
            f.extend_from_slice(&4u16.to_le_bytes());
        } else {
            f.extend_from_slice(&v.to_le_bytes());
        }
    }
    let mut t = 0u32;
    for (i, (sent, got)) in exchanges.iter().enumerate() {
        let cport = 40000 + i as u16;
        let mut seqs = [1u32, 1u32];
        for (from_client, data) in [(true, sent), (false, got)] {
            let mut at = 0;
            while at < data.len() {
                let n = segment_len(&data[at..], usize::MAX).unwrap().unwrap();
                let payload = &data[at..at + n];
                at += n;
                let (sp, dp, si) = if from_client {
                    (cport, 1414, 0)
                } else {
                    (1414, cport, 1)
                };
                let pkt = frame(from_client, sp, dp, seqs[si], payload);
                seqs[si] = seqs[si].wrapping_add(payload.len() as u32);
                t += 1;
                f.extend_from_slice(&t.to_le_bytes());
                f.extend_from_slice(&0u32.to_le_bytes());
                f.extend_from_slice(&(pkt.len() as u32).to_le_bytes());
                f.extend_from_slice(&(pkt.len() as u32).to_le_bytes());
                f.extend_from_slice(&pkt);
            }
        }
    }
    f
}

fn frame(from_client: bool, sp: u16, dp: u16, seq: u32, payload: &[u8]) -> Vec<u8> {
    let (src, dst) = if from_client {
        ([10, 0, 0, 1], [10, 0, 0, 2])
    } else {
        ([10, 0, 0, 2], [10, 0, 0, 1])
    };
    let mut p = vec![0, 0, 0, 0, 0, 2, 0, 0, 0, 0, 0, 1, 0x08, 0x00];
    let total = 20 + 20 + payload.len();
    let mut ip = vec![
        0x45,
        0,
        (total >> 8) as u8,
        total as u8,
        0,
        0,
        0x40,
        0,
        64,
        6,
        0,
        0,
    ];
    ip.extend_from_slice(&src);
    ip.extend_from_slice(&dst);
    let sum = checksum(&ip);
    ip[10..12].copy_from_slice(&sum.to_be_bytes());
    p.extend_from_slice(&ip);
    p.extend_from_slice(&sp.to_be_bytes());
    p.extend_from_slice(&dp.to_be_bytes());
    p.extend_from_slice(&seq.to_be_bytes());
    p.extend_from_slice(&1u32.to_be_bytes());
    p.extend_from_slice(&[0x50, 0x18, 0xFF, 0xFF, 0, 0, 0, 0]);
    p.extend_from_slice(payload);
    p
}

fn checksum(b: &[u8]) -> u16 {
    let mut s: u32 = b
        .chunks(2)
        .map(|c| u32::from(u16::from_be_bytes([c[0], *c.get(1).unwrap_or(&0)])))
        .sum();
    while s > 0xFFFF {
        s = (s & 0xFFFF) + (s >> 16);
    }
    !(s as u16)
}

//! SBS between MessageQ groups (docs/messageq.md "Between groups"): three
//! gateways on loopback acting as groups 10, 20 and 30, each with sender
//! channels to the other two. BEA MessageQ 5.0 Programmer's Guide,
//! "Broadcasting Messages", Table 3-1: a private MOT (4000-4999) is
//! distributed by the local SBS server only, to the queues registered with
//! it, which may be remote; a universal MOT (5000-6000) is "available to all
//! SBS servers". Registrations are volatile: after a group's gateway starts
//! again its applications register again.
//!
//! Every wait is a bounded poll. "Exactly once" is checked with a marker: a
//! second broadcast published after the first, so that a duplicate of the
//! first, which would travel the same way (the same SBS server, transmission
//! queue and channel, each first in first out), is on the queue before the
//! marker.

mod common;
mod sbs_util;

use base64::Engine;
use common::{BIN, Gateway, data};
use mqgate_codecs::pams::{Endian, PamsHeader, QAddress};
use serde_json::{Value, json};
use std::path::Path;
use std::process::Command;

const GROUPS: [u16; 3] = [10, 20, 30];

/// The group initialization file of `group`: CTL (queue 2, the response
/// queue of publishers), the queues of `qct` (`NAME NUMBER`), and an
/// `%XGROUP` table naming the three groups' gateways (GW10, GW20, GW30; the
/// line of the group itself is skipped).
fn init_file(qct: &[(&str, u16)]) -> String {
    let mut s = String::from("%PROFILE\nENABLE_SBS YES\n%EOS\n%QCT\nCTL 2 . . . . . . . Y L N\n");
    for (name, n) in qct {
        s.push_str(&format!("{name} {n} . . . . . . . Y L N\n"));
    }
    s.push_str("%EOS\n%XGROUP\n! Name Group\nGW10 10\nGW20 20\nGW30 30\n%EOS\n");
    s
}

/// The configuration of `group`'s gateway (queue manager GW<group>): a
/// persistent transmission queue GW<peer> and a receiver channel
/// G<peer>.TO.G<group> per other group (dead-letter: a message for a queue
/// the group does not have must not stop the link for the broadcasts behind
/// it), and when `ports` has the peers' channel listeners, a sender channel
/// G<group>.TO.G<peer> serving GW<peer>.
fn config(group: u16, dir: &Path, ports: &[(u16, u16)]) -> String {
    let mut s = format!(
        "queue_manager:\n  name: GW{group}\n  default_xmit_queue: ''\ndevices:\n  queue_managers: []\nhttp:\n  max_wait_ms: 10000\nmessageq:\n  group: {group}\n  init_file: {}\nqueues:\n",
        dir.join("group.init").display()
    );
    let peers: Vec<u16> = GROUPS.iter().copied().filter(|g| *g != group).collect();
    for p in &peers {
        s.push_str(&format!(
            "  - type: local\n    name: GW{p}\n    usage: xmitq\n    default_persistence: persistent\n"
        ));
    }
    s.push_str("channels:\n");
    for p in &peers {
        s.push_str(&format!(
            "  - type: receiver\n    name: G{p}.TO.G{group}\n    undelivered: dead-letter\n"
        ));
    }
    for (p, port) in ports.iter().filter(|(p, _)| *p != group) {
        s.push_str(&format!(
            "  - type: sender\n    name: G{group}.TO.G{p}\n    xmit_queue: GW{p}\n    connect: 127.0.0.1:{port}\n    heartbeat_ms: 200\n    reconnect:\n      first_ms: 50\n      max_ms: 200\n"
        ));
    }
    s
}

/// `mqgate sbs register --ack` through `g`; `extra` adds `--server`,
/// `--seq-gap`, ... Asserts PSYM_SBS_SUCCESS (the printed SBS_REGISTER_RESP).
fn register(g: &Gateway, mot: u16, queue: &str, extra: &[&str]) {
    let out = Command::new(BIN)
        .args(["sbs", "register", "--gateway", &g.base, "--ack"])
        .args(["--mot", &mot.to_string(), "--queue", queue])
        .args(extra)
        .output()
        .unwrap();
    let stdout = String::from_utf8_lossy(&out.stdout);
    assert!(
        out.status.success() && stdout.starts_with("status 1 PSYM_SBS_SUCCESS"),
        "register {queue} for {mot} {extra:?}: {stdout}{}",
        String::from_utf8_lossy(&out.stderr)
    );
}

/// `pams_put_msg` of `text` to MOT `mot` of this group (`0.<mot>`) through
/// `g`'s PAMS API.
fn publish(g: &Gateway, group: u16, mot: u16, text: &str) {
    let body = json!({
        "target": format!("0.{mot}"),
        "class": 1,
        "type": 2,
        "resp_q": format!("{group}.2"),
        "data_base64": base64::engine::general_purpose::STANDARD.encode(text),
    });
    let (st, v) = g.call(
        "POST",
        "/v1/pams/messages",
        Some(("application/json", body.to_string().as_bytes())),
    );
    assert_eq!(st, 201, "publish {text} to {mot}: {v}");
}

/// `pams_get_msg` from `queue` through `g` until the message whose area is
/// `last` came (at most 30 gets of up to 2 s each): every message got, in
/// order.
fn until(g: &Gateway, queue: &str, last: &str) -> Vec<Value> {
    let mut got = Vec::new();
    for _ in 0..30 {
        let (st, v) = g.call(
            "GET",
            &format!("/v1/pams/queues/{queue}/messages/next?wait_ms=2000"),
            None,
        );
        match st {
            200 => {
                let done = data(&v) == last.as_bytes();
                got.push(v);
                if done {
                    return got;
                }
            }
            204 => {}
            other => panic!("get from {queue}: {other} {v}"),
        }
    }
    panic!(
        "{queue}: {last} did not come; got {:?}",
        got.iter().map(text).collect::<Vec<_>>()
    );
}

fn text(v: &Value) -> String {
    String::from_utf8_lossy(&data(v)).into_owned()
}

/// The areas of [`until`].
fn areas(g: &Gateway, queue: &str, last: &str) -> Vec<String> {
    until(g, queue, last).iter().map(text).collect()
}

/// Waits (bounded) until local queue `q` of `g` has `depth` messages.
fn wait_depth(g: &Gateway, q: &str, depth: u64) {
    for _ in 0..300 {
        if g.depth(q) == depth {
            return;
        }
        std::thread::sleep(std::time::Duration::from_millis(50));
    }
    assert_eq!(g.depth(q), depth, "{q}");
}

#[test]
fn broadcasts_between_three_groups_and_one_of_them_down() {
    let dirs: Vec<tempfile::TempDir> = GROUPS
        .iter()
        .map(|_| tempfile::tempdir().unwrap())
        .collect();
    let qct: [&[(&str, u16)]; 3] = [
        &[("STOCKS", 30), ("OPS", 31)],
        &[("TICKER", 7), ("ALARMS", 8)],
        &[("DESK", 5)],
    ];
    for (d, q) in dirs.iter().zip(qct) {
        std::fs::write(d.path().join("group.init"), init_file(q)).unwrap();
    }
    // First start on port 0 to learn the channel listeners, then again with
    // the sender channels to them (tests/common: same ports on a restart).
    let mut gws: Vec<Gateway> = GROUPS
        .iter()
        .zip(&dirs)
        .map(|(g, d)| Gateway::start(d.path(), &config(*g, d.path(), &[])))
        .collect();
    let ports: Vec<(u16, u16)> = GROUPS
        .iter()
        .copied()
        .zip(gws.iter().map(|g| g.listen_port))
        .collect();
    for ((gw, g), d) in gws.iter_mut().zip(GROUPS).zip(&dirs) {
        gw.restart_with_config(&config(g, d.path(), &ports));
    }
    let [g10, g20, g30] = &mut gws[..] else {
        unreachable!()
    };

    // Registrations: MOT 5110 (the Programmer's Guide's stock prices,
    // universal) with each group's own server; MOT 4810 (private) with
    // group 10's server for 10.31 and, by an application of group 20 whose
    // request and answer cross the channels, for the remote queue 20.8;
    // group 30 registers 30.5 for both MOTs with its own server.
    register(g10, 5110, "10.30", &[]);
    register(g10, 4810, "10.31", &[]);
    register(g20, 5110, "20.7", &[]);
    register(g20, 4810, "20.8", &["--server", "10.99"]);
    register(g30, 5110, "30.5", &[]);
    register(g30, 4810, "30.5", &[]);

    // A universal MOT published at group 10: one copy on each group's
    // registrant, distributed there by that group's server.
    publish(g10, 10, 5110, "IBM 101.25");
    publish(g10, 10, 5110, "IBM 101.50");
    let both = vec!["IBM 101.25".to_string(), "IBM 101.50".to_string()];
    assert_eq!(areas(g10, "10.30", "IBM 101.50"), both);
    let at20 = until(g20, "20.7", "IBM 101.50");
    assert_eq!(at20.iter().map(text).collect::<Vec<_>>(), both);
    assert_eq!(areas(g30, "30.5", "IBM 101.50"), both);
    // At group 20 the copy is its own server's (Programmer's Guide,
    // "Reading Broadcast Messages": source = the MOT, original source = the
    // publisher, here queue 2 of group 10, the publisher's resp_q).
    assert_eq!(at20[0]["source"], "20.5110", "{}", at20[0]);
    assert_eq!(at20[0]["original_source"], "10.2", "{}", at20[0]);
    assert_eq!(at20[0]["target"], "20.7", "{}", at20[0]);

    // A private MOT at group 10: its registrants only, the remote 20.8
    // included; group 30's registrant of 4810 gets nothing — the universal
    // marker after it, which 10 forwards to 30 the same way, comes alone.
    publish(g10, 10, 4810, "console: disk 91%");
    publish(g10, 10, 4810, "console: disk 92%");
    let ops = vec![
        "console: disk 91%".to_string(),
        "console: disk 92%".to_string(),
    ];
    assert_eq!(areas(g10, "10.31", "console: disk 92%"), ops);
    let remote = until(g20, "20.8", "console: disk 92%");
    assert_eq!(remote.iter().map(text).collect::<Vec<_>>(), ops);
    // Group 10's server made the copy: its MOT address is the source.
    assert_eq!(remote[0]["source"], "10.4810", "{}", remote[0]);
    publish(g10, 10, 5110, "IBM 102.00");
    assert_eq!(areas(g30, "30.5", "IBM 102.00"), vec!["IBM 102.00"]);
    assert_eq!(areas(g10, "10.30", "IBM 102.00"), vec!["IBM 102.00"]);
    assert_eq!(areas(g20, "20.7", "IBM 102.00"), vec!["IBM 102.00"]);

    // Group 20's gateway dies: 10 and 30 still get theirs; what is for 20
    // waits on group 10's transmission queue GW20 (its sender channel
    // retries), the forwarded 5110 broadcast and the 4810 copy for 20.8.
    g20.kill9();
    publish(g10, 10, 5110, "IBM 99.00");
    assert_eq!(areas(g10, "10.30", "IBM 99.00"), vec!["IBM 99.00"]);
    assert_eq!(areas(g30, "30.5", "IBM 99.00"), vec!["IBM 99.00"]);
    publish(g10, 10, 4810, "console: disk 95%");
    assert_eq!(
        areas(g10, "10.31", "console: disk 95%"),
        vec!["console: disk 95%"]
    );
    wait_depth(g10, "GW20", 2);

    // 20 starts again with the same configuration; its registrations are
    // gone. The waiting messages arrive: the copy for 20.8 (registered with
    // group 10's server, which kept it) and the forwarded broadcast, which
    // 20's server distributes to nobody — it is on queue 99 (the
    // transmission queue is empty only once 20 committed them) before the
    // registration below.
    g20.restart();
    wait_depth(g10, "GW20", 0);
    assert_eq!(
        areas(g20, "20.8", "console: disk 95%"),
        vec!["console: disk 95%"]
    );
    register(g20, 5110, "20.7", &[]);
    publish(g10, 10, 5110, "IBM 98.75");
    assert_eq!(areas(g20, "20.7", "IBM 98.75"), vec!["IBM 98.75"]);
    assert_eq!(areas(g10, "10.30", "IBM 98.75"), vec!["IBM 98.75"]);
    assert_eq!(areas(g30, "30.5", "IBM 98.75"), vec!["IBM 98.75"]);
}

/// Bytes 76-83 of the PAMS message header as docs/messageq.md "PAMS
/// messages on mqgate queues" lays them out: `forwarded_by` (q_address,
/// queue first) and `forward_seq` (uint32), big-endian.
fn forwarded(header: &PamsHeader, area: &[u8], by: QAddress, seq: u32) -> Vec<u8> {
    let mut data = header.with_area(area);
    data[76..78].copy_from_slice(&by.queue.to_be_bytes());
    data[78..80].copy_from_slice(&by.group.to_be_bytes());
    data[80..84].copy_from_slice(&seq.to_be_bytes());
    data
}

#[test]
fn a_gap_in_a_forwarded_stream_is_reported_with_the_sending_group() {
    use sbs_util::{ALL, Group, register as reg, types};
    // Group 20 with group 10 on its bus: only an SBS server of the bus
    // forwards broadcasts (docs/messageq.md "Between groups").
    let init = format!(
        "{}%XGROUP\nGW10 10\n%EOS\n",
        sbs_util::init_file(&format!(
            "{}{}",
            sbs_util::qct_line("TICKER", 7, ".", "."),
            sbs_util::qct_line("TAPE", 8, ".", ".")
        ))
    );
    let g = Group::start(20, &init);
    reg(&g, 5110, 7, ALL, &[], true);
    // A second registrant, without notices.
    reg(&g, 5110, 8, ALL, &[], false);
    // Broadcasts on MOT 5110 forwarded by group 10's server (10.99),
    // published by 10.30, numbered 1, 2, then 5: 3 and 4 were lost on the
    // way.
    let publisher = QAddress::new(10, 30);
    let h = PamsHeader::new(
        1,
        2,
        QAddress::new(10, 5110),
        QAddress::new(10, 5110),
        Endian::Big,
    );
    let h = PamsHeader {
        original_source: publisher,
        ..h
    };
    for (seq, area) in [(1, "U1"), (2, "U2"), (5, "U5"), (1, "R1")] {
        g.put_raw(
            &g.sbs_queue(),
            "MQGPAMS",
            &forwarded(&h, area.as_bytes(), QAddress::sbs_server(10), seq),
        );
    }
    g.sync();
    let got = g.drain("TICKER");
    let kinds: Vec<(i16, Vec<u8>)> = got.iter().map(|(h, a)| (h.msg_type, a.clone())).collect();
    // SBS_SEQUENCE_GAP (p_msg.h V4.0-08: num_msgs_missing, sender_group,
    // mot, channel, int32 each, in the registration's byte order) before the
    // copy that showed the gap; sender_group is the forwarding group 10, not
    // this group. Number 1 after 5: group 10's server started again, no gap.
    let mut gap = Vec::new();
    for v in [2i32, 10, 5110, 0] {
        gap.extend_from_slice(&v.to_be_bytes());
    }
    assert_eq!(
        kinds,
        vec![
            (2, b"U1".to_vec()),
            (2, b"U2".to_vec()),
            (types::SEQUENCE_GAP, gap),
            (2, b"U5".to_vec()),
            (2, b"R1".to_vec()),
        ]
    );
    // The copies are this group's server's: source the MOT at group 20, the
    // publisher kept, the forwarding mark not passed on.
    let (copy, _) = &got[0];
    assert_eq!(
        (
            copy.source,
            copy.original_source,
            copy.forwarded_by,
            copy.forward_seq
        ),
        (QAddress::new(20, 5110), publisher, QAddress::default(), 0)
    );
    let (notice, _) = &got[2];
    assert_eq!(notice.source, QAddress::new(20, 99), "from the SBS server");
    assert_eq!(g.drain("TAPE").len(), 4, "the copies, no notice");
    // SBS_STATUS_RESP_MOT (p_msg.h V4.0-08; the record at 20 of the
    // response): num_reg 2 at 40, complete_rcvd 4 at 44, and seq_gaps at 52
    // counts the 2 broadcasts missing (numbers 3 and 4) once, not once per
    // registered queue (docs/messageq.md "SBS server").
    let mut status = Vec::new();
    for v in [40i32, 9, 5110, 5110, 0] {
        status.extend_from_slice(&v.to_be_bytes());
    }
    let (h, resp) = g.ask(types::STATUS_REQ, &status, Endian::Big);
    assert_eq!(h.msg_type, types::STATUS_RESP);
    let field = |off: usize| i32::from_be_bytes(resp[20 + off..24 + off].try_into().unwrap());
    assert_eq!((field(0), field(40), field(44), field(52)), (5110, 2, 4, 2));
}

/// Takes the next message of transmission queue `q` of `g` (get and ack
/// through the queue API): its data, the 428-byte MQXQH first (IBM MQ
/// "MQXQH - Transmission-queue header").
fn take(g: &sbs_util::Group, q: &str) -> Vec<u8> {
    let (st, v) = g.call(
        "GET",
        &format!("/v1/queues/{q}/messages/next?wait_ms=0"),
        None,
    );
    assert_eq!(st, 200, "get from {q}: {v}");
    let lease = v["lease"].as_str().unwrap().to_string();
    let (st, a) = g.call(
        "POST",
        &format!("/v1/queues/{q}/messages/ack/{lease}"),
        None,
    );
    assert_eq!(st, 200, "{a}");
    data(&v)
}

#[test]
fn forwarded_broadcasts_are_numbered_and_a_full_transmission_queue_loses_only_that_copy() {
    use sbs_util::{ALL, CTL, Group, register as reg};
    // Group 10 with group 20 on its bus (%XGROUP GW20 20); the transmission
    // queue named like GW20's queue manager holds 2 messages and has no
    // channel, so the third forwarded broadcast cannot be put.
    let init = format!(
        "{}%XGROUP\nGW20 20\n%EOS\n",
        sbs_util::init_file(&sbs_util::qct_line("STOCKS", 30, ".", "."))
    );
    let g = Group::start_with(
        10,
        &init,
        "queues:\n  - type: local\n    name: GW20\n    usage: xmitq\n    max_depth: 2\n",
    );
    reg(&g, 5110, 30, ALL, &[], false);
    let be = Endian::Big;
    for area in ["U1", "U2", "U3"] {
        g.publish(5110, g.addr(CTL), 1, 2, area.as_bytes(), be);
    }
    g.sync();
    let first = take(&g, "GW20");
    g.publish(5110, g.addr(CTL), 1, 2, b"U4", be);
    g.sync();
    let rest = [take(&g, "GW20"), take(&g, "GW20")];
    // MQXQH: RemoteQName at 8 and RemoteQMgrName at 56, 48 blank-padded
    // characters each: queue 99 of group 20 at its gateway GW20.
    assert_eq!(
        String::from_utf8_lossy(&first[8..104]),
        format!("{:<48}{:<48}", "PAMS.20.99", "GW20")
    );
    // The PAMS message header after the 428-byte MQXQH: forwarded_by 10.99
    // (queue first) and forward_seq at 76 and 80; numbers 1, 2, 4 — 3 was
    // not put, and group 20's server would see that gap.
    let mark = |d: &[u8]| {
        let h = &d[428..];
        assert_eq!(&h[..4], b"PMH ");
        (
            h[76..80].to_vec(),
            u32::from_be_bytes(h[80..84].try_into().unwrap()),
            d[428 + PamsHeader::SIZE..].to_vec(),
        )
    };
    let server = vec![0, 99, 0, 10];
    assert_eq!(mark(&first), (server.clone(), 1, b"U1".to_vec()));
    assert_eq!(mark(&rest[0]), (server.clone(), 2, b"U2".to_vec()));
    assert_eq!(mark(&rest[1]), (server, 4, b"U4".to_vec()));
    // The local registrant got all four meanwhile.
    let local: Vec<Vec<u8>> = g.drain("STOCKS").into_iter().map(|(_, a)| a).collect();
    assert_eq!(local, [b"U1", b"U2", b"U3", b"U4"].map(|a| a.to_vec()));
    // A broadcast another group's server forwarded is distributed here and
    // never sent on, not even back: nothing new on GW20.
    let h = PamsHeader::new(1, 2, QAddress::new(20, 5110), QAddress::new(20, 5110), be);
    g.put_raw(
        &g.sbs_queue(),
        "MQGPAMS",
        &forwarded(&h, b"from 20", QAddress::sbs_server(20), 1),
    );
    g.sync();
    assert_eq!(g.drain("STOCKS").len(), 1);
    assert_eq!(g.depth("GW20"), 0);
}

/// The next message of the dead-letter queue of `g`: the MQDLH Reason
/// (offset 8, in the big-endian Encoding 273 of the PAMS message it holds;
/// IBM MQ "MQDLH - Dead-letter header") and the data after the 172-byte
/// MQDLH.
fn dead_letter(g: &sbs_util::Group) -> (i32, Vec<u8>) {
    let d = take(g, "SYSTEM.DEAD.LETTER.QUEUE");
    (
        i32::from_be_bytes(d[8..12].try_into().unwrap()),
        d[172..].to_vec(),
    )
}

#[test]
fn broadcasts_the_bus_does_not_explain_are_refused_and_other_groups_private_mots_passed_on() {
    use sbs_util::{ALL, CTL, Group, register as reg};
    // Group 10 with group 20 on its bus, whose transmission queue has no
    // channel, so what goes to group 20 stays there to be looked at.
    let init = format!(
        "{}%XGROUP\nGW20 20\n%EOS\n",
        sbs_util::init_file(&sbs_util::qct_line("STOCKS", 30, ".", "."))
    );
    let g = Group::start_with(
        10,
        &init,
        "queues:\n  - type: local\n    name: GW20\n    usage: xmitq\n",
    );
    reg(&g, 5110, 30, ALL, &[], false);
    reg(&g, 4100, 30, ALL, &[], false);
    let be = Endian::Big;
    let at =
        |group: u16, mot: u16| PamsHeader::new(1, 2, g.addr(CTL), QAddress::new(group, mot), be);
    // forwarded_by that is no SBS server of another group of the bus: this
    // group's own, group 30's (not on the bus), queue 5 of group 20. Each is
    // dead-lettered with 2142 MQRC_HEADER_ERROR (docs/messageq.md "Between
    // groups"), never distributed.
    for by in [
        QAddress::sbs_server(10),
        QAddress::sbs_server(30),
        QAddress::new(20, 5),
    ] {
        let h = PamsHeader::new(1, 2, QAddress::new(20, 5110), QAddress::new(20, 5110), be);
        g.put_raw(
            &g.sbs_queue(),
            "MQGPAMS",
            &forwarded(&h, b"bad mark", by, 1),
        );
    }
    // A private MOT of group 30, which is not on the bus: 2087
    // MQRC_UNKNOWN_REMOTE_Q_MGR (the PAMS API's PAMS__NOLINK -76).
    let nolink = at(30, 4100).with_area(b"to 30");
    g.put_raw(&g.sbs_queue(), "MQGPAMS", &nolink);
    // A private MOT of group 20: passed unchanged to group 20's SBS server,
    // which distributes its private MOTs itself (Programmer's Guide, Table
    // 3-1: "distributed by the local SBS server only").
    let private = at(20, 4100).with_area(b"to 20");
    g.put_raw(&g.sbs_queue(), "MQGPAMS", &private);
    // A universal MOT of group 20: distributed here and forwarded.
    g.put_raw(&g.sbs_queue(), "MQGPAMS", &at(20, 5110).with_area(b"U"));
    g.sync();

    for _ in 0..3 {
        let (reason, data) = dead_letter(&g);
        assert_eq!(reason, 2142, "MQRC_HEADER_ERROR");
        assert_eq!(&data[PamsHeader::SIZE..], b"bad mark");
    }
    assert_eq!(dead_letter(&g), (2087, nolink));
    assert_eq!(g.depth("SYSTEM.DEAD.LETTER.QUEUE"), 0);
    // MQXQH (428 bytes): RemoteQName PAMS.20.99 at 8, RemoteQMgrName GW20 at
    // 56; then the message as it was put here, byte for byte.
    let passed = take(&g, "GW20");
    assert_eq!(
        String::from_utf8_lossy(&passed[8..104]),
        format!("{:<48}{:<48}", "PAMS.20.99", "GW20")
    );
    assert_eq!(&passed[428..], &private[..]);
    // The universal broadcast: one copy here, one forwarded (mark 10.99, 1).
    let forwarded_copy = take(&g, "GW20");
    assert_eq!(
        &forwarded_copy[428 + 76..428 + 84],
        &[0, 99, 0, 10, 0, 0, 0, 1]
    );
    assert_eq!(g.depth("GW20"), 0);
    let local: Vec<Vec<u8>> = g.drain("STOCKS").into_iter().map(|(_, a)| a).collect();
    assert_eq!(local, [b"U".to_vec()]);
}

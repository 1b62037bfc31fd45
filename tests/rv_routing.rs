//! Routing between gateways (docs/rendezvous.md "Routing between
//! gateways"): gateways started in this process on loopback, joined by
//! routing links, with listeners and publishers on their buses.
//!
//! Expected routes come from TIBCO Rendezvous Administration: "Load
//! Balancing" (the topology of routers E, F, G and H, path costs 1 on the
//! outer links and 5 on the crossover links, import weights splitting foo.>
//! and bar.>), "Redundant Routing Daemons for Fault Tolerance" (each
//! message forwarded once; failover), "Subject Gating" (import, export,
//! inboxes) and "rvrd" (messages only to networks with a listener); and
//! from the spec sheet's interest rule (a listener on > behind import FOO.>
//! gets nothing until someone listens on a subset). Link counters are those
//! of `GET /v1/rv/routing` (docs/rendezvous.md "Routing status").

mod common;

use common::rv::{listen, message, publish};
use mqgate::config::Config;
use mqgate::gateway::{Gateway, Handle};
use mqgate::rv::{Listener, Origin};
use mqgate_codecs::rv::msg::Value as RvValue;
use serde_json::Value;
use std::collections::BTreeMap;
use std::net::SocketAddr;
use std::time::{Duration, Instant};

/// A gateway on port 0 with data under `dir` and `routing` as its
/// `rv.routing` section (YAML, indented four spaces).
async fn start(dir: &std::path::Path, name: &str, routing: &str) -> Handle {
    let text = format!(
        "queue_manager:\n  name: {name}\nhttp:\n  listen: 127.0.0.1:0\nlistener:\n  listen: 127.0.0.1:0\nmqtt:\n  listen: 127.0.0.1:0\nrv:\n  routing:\n    router: {name}\n    listen: 127.0.0.1:0\n    heartbeat_ms: 500\n    reconnect_min_ms: 50\n    reconnect_max_ms: 400\n{routing}"
    );
    let mut c = Config::from_yaml(&text, "test.yaml").unwrap();
    c.storage.data_dir = dir.join(name);
    Gateway::start(c).await.unwrap()
}

/// Where `h`'s router accepts links.
fn addr(h: &Handle) -> SocketAddr {
    h.rv_routing().unwrap().listen_addr().unwrap()
}

async fn status(h: &Handle) -> Value {
    h.rv_routing().unwrap().status().await.unwrap()
}

/// Waits (up to 10 s) until `ok` holds for `h`'s routing status.
async fn wait_for(h: &Handle, what: &str, ok: impl Fn(&Value) -> bool) {
    let deadline = Instant::now() + Duration::from_secs(10);
    loop {
        let s = status(h).await;
        if ok(&s) {
            return;
        }
        if Instant::now() > deadline {
            panic!("{what}: not within 10 s; status {s:#}");
        }
        tokio::time::sleep(Duration::from_millis(20)).await;
    }
}

/// The global routing table as `s` shows it, without the viewer's own path
/// costs: what every router must agree on before it can take the same
/// decision for a message (docs/rendezvous.md "Routing between gateways").
fn table_view(s: &Value) -> Value {
    let mut routers = s["routers"].clone();
    if let Some(rs) = routers.as_array_mut() {
        for r in rs {
            if let Some(o) = r.as_object_mut() {
                o.remove("cost");
            }
        }
    }
    routers
}

/// Waits (up to 10 s) until every gateway of `hs` holds the same global
/// routing table and `ok` holds for each one's status. Until the tables
/// agree, two routers of one network can each leave a message to the other
/// (each thinks the other is the cheaper source) and it reaches no one, so
/// a test publishes only after this.
async fn wait_converged(hs: &[&Handle], what: &str, ok: impl Fn(&Value) -> bool) {
    let deadline = Instant::now() + Duration::from_secs(10);
    loop {
        let mut all = Vec::new();
        for h in hs {
            all.push(status(h).await);
        }
        let same = all
            .windows(2)
            .all(|w| table_view(&w[0]) == table_view(&w[1]));
        if same && all.iter().all(&ok) {
            return;
        }
        if Instant::now() > deadline {
            panic!("{what}: not within 10 s; statuses {all:#?}");
        }
        tokio::time::sleep(Duration::from_millis(20)).await;
    }
}

/// The router listens locally to `subject` (some other network wants it).
fn listens(s: &Value, subject: &str) -> bool {
    s["listening"]
        .as_array()
        .is_some_and(|l| l.iter().any(|x| x == subject))
}

/// Whether `router` is reachable in the status's table.
fn reachable(s: &Value, router: &str) -> bool {
    s["routers"].as_array().is_some_and(|r| {
        r.iter()
            .any(|x| x["name"] == router && x["reachable"] == true)
    })
}

/// Messages sent to `neighbor` over the link, by the status.
fn sent(s: &Value, neighbor: &str) -> u64 {
    s["neighbors"]
        .as_array()
        .and_then(|n| n.iter().find(|x| x["name"] == neighbor))
        .and_then(|x| x["messages_out"].as_u64())
        .unwrap_or(u64::MAX)
}

fn all_up(s: &Value) -> bool {
    s["neighbors"]
        .as_array()
        .is_some_and(|n| n.iter().all(|x| x["state"] == "up"))
}

/// What arrived at `listeners`: once `expect` deliveries came (or after 30 s,
/// so that a wrong route shows in the assertion, not as a hang), and then
/// `ms` without another (for duplicates or strays): count per (subject, n).
/// Waiting for the count rather than a quiet spell alone keeps the test
/// right on a loaded machine, where a routed message can take longer than
/// the quiet spell.
async fn drain(
    listeners: &mut [&mut Listener],
    expect: u32,
    ms: u64,
) -> BTreeMap<(String, i32), u32> {
    let mut got = BTreeMap::new();
    let mut total = 0u32;
    let deadline = Instant::now() + Duration::from_secs(30);
    let mut quiet_since = Instant::now();
    while (total < expect && Instant::now() < deadline)
        || quiet_since.elapsed() < Duration::from_millis(ms)
    {
        let mut any = false;
        for l in listeners.iter_mut() {
            while let Some(d) = l.try_recv() {
                any = true;
                total += 1;
                let n = match d.envelope().message.get("n").map(|f| &f.value) {
                    Some(RvValue::I32(n)) => *n,
                    _ => -1,
                };
                *got.entry((d.subject().to_string(), n)).or_insert(0) += 1;
            }
        }
        if any {
            quiet_since = Instant::now();
        }
        tokio::time::sleep(Duration::from_millis(10)).await;
    }
    got
}

fn each_once(subject: &str, ns: std::ops::Range<i32>) -> BTreeMap<(String, i32), u32> {
    ns.map(|n| ((subject.to_string(), n), 1)).collect()
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn load_balancing_example_with_four_gateways_and_failover() {
    // "Load Balancing", figure "Path Cost and Subject Import Weight": E and
    // F serve Anet, G and H serve Bnet; outer links E-G, F-H cost 1,
    // crossover links E-H, F-G cost 5; G imports foo.> with weight 1 and
    // bar.> with 10, H the reverse. mqgate has no multicast: a program of
    // a network several gateways serve publishes to each and listens at
    // each (docs/rendezvous.md "Networks served by several gateways").
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    let g = start(
        d,
        "G",
        "    network: Bnet\n    neighbors: [{name: E, cost: 1}, {name: F, cost: 5}]\n    import: [{subject: 'foo.>', weight: 1}, {subject: 'bar.>', weight: 10}]\n",
    )
    .await;
    let h = start(
        d,
        "H",
        "    network: Bnet\n    neighbors: [{name: E, cost: 5}, {name: F, cost: 1}]\n    import: [{subject: 'foo.>', weight: 10}, {subject: 'bar.>', weight: 1}]\n",
    )
    .await;
    let anet = |gc: u32, hc: u32| {
        format!(
            "    network: Anet\n    neighbors: [{{name: G, connect: '{}', cost: {gc}}}, {{name: H, connect: '{}', cost: {hc}}}]\n    export: ['foo.>', 'bar.>']\n",
            addr(&g),
            addr(&h)
        )
    };
    let e = start(d, "E", &anet(1, 5)).await;
    let f = start(d, "F", &anet(5, 1)).await;
    // The Bnet listener, at both of its gateways.
    let mut at_g = listen(&g, &["foo.>", "bar.>"]);
    let mut at_h = listen(&h, &["foo.>", "bar.>"]);
    let mut g_advisories = listen(&g, &["_RV.WARN.RVRD.>"]);
    wait_converged(
        &[&e, &f, &g, &h],
        "links up and Bnet's interest known",
        |s| {
            all_up(s)
                && ["E", "F", "G", "H"].iter().all(|n| reachable(s, n))
                && (s["network"] == "Bnet" || (listens(s, "foo.>") && listens(s, "bar.>")))
        },
    )
    .await;
    for i in 0..5 {
        for r in [&e, &f] {
            publish(r, "foo.x", i);
            publish(r, "bar.x", i);
        }
    }
    let mut got_g = drain(&mut [&mut at_g], 5, 300).await;
    let got_h = drain(&mut [&mut at_h], 5, 50).await;
    // bar.> enters Bnet through G, foo.> through H, once each.
    assert_eq!(got_g, each_once("bar.x", 0..5));
    assert_eq!(got_h, each_once("foo.x", 0..5));
    let (se, sf) = (status(&e).await, status(&f).await);
    assert_eq!((sent(&se, "G"), sent(&se, "H")), (5, 0), "{se:#}");
    assert_eq!((sent(&sf, "G"), sent(&sf, "H")), (0, 5), "{sf:#}");

    // E fails: "all messages would travel through F and H (because that
    // route has the lowest path cost)".
    drop(e);
    wait_converged(&[&f, &g, &h], "E unreachable", |s| !reachable(s, "E")).await;
    for i in 5..10 {
        publish(&f, "foo.x", i);
        publish(&f, "bar.x", i);
    }
    let got_h = drain(&mut [&mut at_h], 10, 50).await;
    got_g = drain(&mut [&mut at_g], 0, 300).await;
    assert!(got_g.is_empty(), "{got_g:?}");
    let mut want = each_once("foo.x", 5..10);
    want.extend(each_once("bar.x", 5..10));
    assert_eq!(got_h, want);
    let sf = status(&f).await;
    assert_eq!((sent(&sf, "G"), sent(&sf, "H")), (0, 15), "{sf:#}");
    // G was told its link to E went down (mqgate's advisory).
    let adv = g_advisories.try_recv().expect("a link-down advisory");
    assert_eq!(adv.subject(), "_RV.WARN.RVRD.NEIGHBOR.DISCONNECTED.E");
    for x in [f, g, h] {
        x.stop(Duration::from_secs(5)).await;
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn interest_gating_and_replies_across_three_gateways() {
    // A line A - B - C, each gateway its own network. A exports PUB.> and
    // imports SVC.>; B imports >; C imports PUB.ONLY.> and exports SVC.>.
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    let a = start(
        d,
        "A",
        "    neighbors: [{name: B}]\n    export: ['PUB.>']\n    import: [{subject: 'SVC.>'}]\n",
    )
    .await;
    let b = start(
        d,
        "B",
        &format!(
            "    neighbors: [{{name: A, connect: '{}'}}, {{name: C}}]\n    import: [{{subject: '>'}}]\n",
            addr(&a)
        ),
    )
    .await;
    let c = start(
        d,
        "C",
        &format!(
            "    neighbors: [{{name: B, connect: '{}'}}]\n    export: ['SVC.>']\n    import: [{{subject: 'PUB.ONLY.>'}}]\n",
            addr(&b)
        ),
    )
    .await;
    wait_for(&a, "A knows C", |s| all_up(s) && reachable(s, "C")).await;
    wait_for(&c, "C knows A", |s| all_up(s) && reachable(s, "A")).await;

    // No listener anywhere: nothing crosses a link ("rvrd").
    publish(&a, "PUB.ONLY.X", 0);
    tokio::time::sleep(Duration::from_millis(100)).await;
    assert_eq!(sent(&status(&a).await, "B"), 0);

    // A listener on > behind import PUB.ONLY.> is no interest.
    let mut wide = listen(&c, &[">"]);
    tokio::time::sleep(Duration::from_millis(100)).await;
    publish(&a, "PUB.ONLY.X", 1);
    assert!(drain(&mut [&mut wide], 0, 150).await.is_empty());
    assert_eq!(sent(&status(&a).await, "B"), 0);

    // Someone listens on a subset: then both receive it, through B.
    let mut narrow = listen(&c, &["PUB.ONLY.X"]);
    wait_for(&a, "C's interest reached A", |s| listens(s, "PUB.ONLY.X")).await;
    publish(&a, "PUB.ONLY.X", 2);
    let got = drain(&mut [&mut wide, &mut narrow], 2, 200).await;
    assert_eq!(got, [(("PUB.ONLY.X".to_string(), 2), 2)].into());
    assert_eq!(sent(&status(&a).await, "B"), 1);
    assert_eq!(sent(&status(&b).await, "C"), 1);

    // Export gating: B imports everything and has a listener on PRIV.X,
    // but A does not export PRIV.>.
    let mut at_b = listen(&b, &["PRIV.X", "PUB.Y"]);
    wait_for(&a, "B's interest reached A", |s| listens(s, "PUB.Y")).await;
    assert!(!listens(&status(&a).await, "PRIV.X"));
    publish(&a, "PRIV.X", 3);
    publish(&a, "PUB.Y", 4);
    let got = drain(&mut [&mut at_b], 1, 200).await;
    assert_eq!(got, [(("PUB.Y".to_string(), 4), 1)].into());

    // _LOCAL. subjects never leave a gateway, whatever listens elsewhere.
    let mut local_c = listen(&c, &["_LOCAL.X"]);
    tokio::time::sleep(Duration::from_millis(100)).await;
    h_publish_local(&a);
    assert!(drain(&mut [&mut local_c], 0, 150).await.is_empty());

    // Request and reply ("Inbox Names"): a program at C asks SVC.TIME,
    // served at A; the reply goes back to C's inbox without any import or
    // export of _INBOX.
    let mut server = listen(&a, &["SVC.TIME"]);
    wait_for(&c, "A's interest reached C", |s| listens(s, "SVC.TIME")).await;
    let bus_a = a.rv_bus().unwrap();
    let responder = tokio::spawn(async move {
        let req = server.recv().await.unwrap();
        let reply = req.reply_subject().unwrap().to_string();
        assert!(reply.starts_with("_INBOX."), "{reply}");
        bus_a.publish(message(&reply, 42), Origin::Client).unwrap();
    });
    let answer = c
        .rv_bus()
        .unwrap()
        .request(
            message("SVC.TIME", 7),
            Origin::Client,
            Duration::from_secs(5),
        )
        .await
        .unwrap()
        .expect("a reply within 5 s");
    responder.await.unwrap();
    assert_eq!(
        answer.envelope().message.get("n").map(|f| &f.value),
        Some(&RvValue::I32(42))
    );
    for x in [a, b, c] {
        x.stop(Duration::from_secs(5)).await;
    }
}

/// A program at `a` publishes on `_LOCAL.X`.
fn h_publish_local(a: &Handle) {
    publish(a, "_LOCAL.X", 5);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_ring_never_loops_or_duplicates_and_survives_a_failure() {
    // A ring A - B - C - D - A, path costs 1, each gateway its own network
    // exporting and importing R.>, a listener on R.> at each.
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    let common = "    export: ['R.>']\n    import: [{subject: 'R.>'}]\n";
    let a = start(
        d,
        "A",
        &format!("    neighbors: [{{name: B}}, {{name: D}}]\n{common}"),
    )
    .await;
    let b = start(
        d,
        "B",
        &format!(
            "    neighbors: [{{name: A, connect: '{}'}}, {{name: C}}]\n{common}",
            addr(&a)
        ),
    )
    .await;
    let c = start(
        d,
        "C",
        &format!(
            "    neighbors: [{{name: B, connect: '{}'}}, {{name: D}}]\n{common}",
            addr(&b)
        ),
    )
    .await;
    let dd = start(
        d,
        "D",
        &format!(
            "    neighbors: [{{name: C, connect: '{}'}}, {{name: A, connect: '{}'}}]\n{common}",
            addr(&c),
            addr(&a)
        ),
    )
    .await;
    let mut lb = listen(&b, &["R.>"]);
    let mut lc = listen(&c, &["R.>"]);
    let mut ld = listen(&dd, &["R.>"]);
    let _la = listen(&a, &["R.>"]);
    wait_converged(&[&a, &b, &c, &dd], "ring up and interest known", |s| {
        all_up(s) && listens(s, "R.>") && ["A", "B", "C", "D"].iter().all(|n| reachable(s, n))
    })
    .await;
    for i in 0..10 {
        publish(&a, "R.x", i);
    }
    for l in [&mut lb, &mut lc, &mut ld] {
        assert_eq!(drain(&mut [l], 10, 200).await, each_once("R.x", 0..10));
    }
    // Three networks, three link crossings per message: A-B, B-C (the
    // lower-named of the two cheapest paths to C), A-D.
    let (sa, sb, sd) = (status(&a).await, status(&b).await, status(&dd).await);
    assert_eq!((sent(&sa, "B"), sent(&sa, "D")), (10, 10));
    assert_eq!((sent(&sb, "C"), sent(&sb, "A")), (10, 0));
    assert_eq!((sent(&sd, "C"), sent(&sd, "A")), (0, 0));
    for s in [&sa, &sb, &sd] {
        assert_eq!(s["messages"]["duplicates"], 0);
        assert_eq!(s["messages"]["loops"], 0);
    }

    // B fails: C is reached the other way round, through D.
    drop(b);
    wait_converged(&[&a, &c, &dd], "B unreachable", |s| {
        !reachable(s, "B") && reachable(s, "C")
    })
    .await;
    for i in 10..15 {
        publish(&a, "R.x", i);
    }
    assert_eq!(
        drain(&mut [&mut lc], 5, 200).await,
        each_once("R.x", 10..15)
    );
    assert_eq!(drain(&mut [&mut ld], 5, 50).await, each_once("R.x", 10..15));
    let sd = status(&dd).await;
    assert_eq!(sent(&sd, "C"), 5);
    for x in [a, c, dd] {
        x.stop(Duration::from_secs(5)).await;
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_gateway_without_routing_answers_404_and_strangers_are_refused() {
    let dir = tempfile::tempdir().unwrap();
    let text = "http:\n  listen: 127.0.0.1:0\nlistener:\n  listen: 127.0.0.1:0\nmqtt:\n  listen: 127.0.0.1:0\n";
    let mut cfg = Config::from_yaml(text, "t.yaml").unwrap();
    cfg.storage.data_dir = dir.path().join("plain");
    let plain = Gateway::start(cfg).await.unwrap();
    assert!(plain.rv_routing().is_none());
    let url = format!("http://{}/v1/rv/routing", plain.http_addr());
    let (code, body) = tokio::task::spawn_blocking(move || match ureq::get(&url).call() {
        Ok(r) => (r.status(), r.into_json::<Value>().unwrap()),
        Err(ureq::Error::Status(c, r)) => (c, r.into_json::<Value>().unwrap()),
        Err(e) => panic!("{e}"),
    })
    .await
    .unwrap();
    // docs/rendezvous.md "Routing status": 404 without rv.routing.
    assert_eq!(code, 404);
    assert_eq!(body["tibrv_status"]["number"], 3);
    plain.stop(Duration::from_secs(5)).await;

    // X dials G, which does not name X as a neighbor: refused, never up.
    let g = start(dir.path(), "G", "    neighbors: [{name: E}]\n").await;
    let x = start(
        dir.path(),
        "X",
        &format!("    neighbors: [{{name: G, connect: '{}'}}]\n", addr(&g)),
    )
    .await;
    tokio::time::sleep(Duration::from_millis(300)).await;
    let sx = status(&x).await;
    assert_eq!(sx["neighbors"][0]["state"], "down");
    assert_eq!(sx["neighbors"][0]["connects"], 0);
    let url = format!("http://{}/v1/rv/routing", g.http_addr());
    let body: Value =
        tokio::task::spawn_blocking(move || ureq::get(&url).call().unwrap().into_json().unwrap())
            .await
            .unwrap();
    assert_eq!(body["router"], "G");
    assert_eq!(body["neighbors"][0]["name"], "E");
    assert_eq!(body["neighbors"][0]["state"], "down");
    for y in [g, x] {
        y.stop(Duration::from_secs(5)).await;
    }
}

/// A frame as docs/rendezvous.md "Routing links" lays it out: u32 length,
/// type byte, payload.
fn frame(kind: u8, payload: &[u8]) -> Vec<u8> {
    let mut f = ((payload.len() + 1) as u32).to_be_bytes().to_vec();
    f.push(kind);
    f.extend_from_slice(payload);
    f
}

fn string(s: &str) -> Vec<u8> {
    let mut v = (s.len() as u16).to_be_bytes().to_vec();
    v.extend_from_slice(s.as_bytes());
    v
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_silent_neighbor_is_declared_down_after_three_heartbeats() {
    // docs/rendezvous.md "Routing links": HELLO 0x21 (version, router,
    // network, expected router, max frame, heartbeat), HELLO_ACK 0x22; a
    // link that received nothing for three heartbeat intervals is down.
    use tokio::io::{AsyncReadExt, AsyncWriteExt};
    let dir = tempfile::tempdir().unwrap();
    let g = start(dir.path(), "G", "    neighbors: [{name: E}]\n").await;
    let mut s = tokio::net::TcpStream::connect(addr(&g)).await.unwrap();
    let mut hello = 1u16.to_be_bytes().to_vec();
    for x in ["E", "E", "G"] {
        hello.extend(string(x));
    }
    hello.extend(65_536u32.to_be_bytes());
    hello.extend(200u32.to_be_bytes());
    s.write_all(&frame(0x21, &hello)).await.unwrap();
    let mut head = [0u8; 5];
    s.read_exact(&mut head).await.unwrap();
    assert_eq!(head[4], 0x22, "HELLO_ACK");
    let len = u32::from_be_bytes([head[0], head[1], head[2], head[3]]) as usize;
    let mut ack = vec![0u8; len - 1];
    s.read_exact(&mut ack).await.unwrap();
    // version 1, router "G", network "G".
    assert_eq!(&ack[..8], &[0, 1, 0, 1, b'G', 0, 1, b'G']);
    wait_for(&g, "E up", |s| s["neighbors"][0]["state"] == "up").await;
    // Silent from now on: G's heartbeat interval is 500 ms (the longer of
    // the two), so down after 1500 ms without a frame.
    let started = Instant::now();
    wait_for(&g, "E down", |s| s["neighbors"][0]["state"] == "down").await;
    let took = started.elapsed();
    assert!(took >= Duration::from_millis(1000), "{took:?}");
    let st = status(&g).await;
    assert_eq!(
        st["neighbors"][0]["last_error"],
        "nothing received for 1500 ms"
    );
    drop(s);
    g.stop(Duration::from_secs(5)).await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn routing_links_count_against_the_connection_limits() {
    // docs/security.md "Limits": `rv.routing.listen` counts its connections
    // per peer as the other listeners do; one over the limit has its HELLO
    // answered with a CLOSE naming the limit and 2537
    // MQRC_CHANNEL_NOT_AVAILABLE (IBM MQ "API reason codes"), as a message
    // channel's is.
    use futures_util::{SinkExt, StreamExt};
    use mqgate::rv::route::frame::{Hello, LINK_VERSION, LinkCodec, LinkFrame};
    use tokio_util::codec::Framed;
    let dir = tempfile::tempdir().unwrap();
    let a = start(
        dir.path(),
        "A",
        "    neighbors: [{name: B}]\nsecurity:\n  limits:\n    connections_per_peer: 1\n",
    )
    .await;
    let at = addr(&a);
    /// Dials `at` as neighbor B: the link and the answer to its HELLO.
    async fn dial(at: SocketAddr) -> (Framed<tokio::net::TcpStream, LinkCodec>, LinkFrame) {
        let mut framed = Framed::new(
            tokio::net::TcpStream::connect(at).await.unwrap(),
            LinkCodec::default(),
        );
        framed
            .send(LinkFrame::Hello(Hello {
                version: LINK_VERSION,
                router: "B".into(),
                network: "B".into(),
                expected: "A".into(),
                max_frame: 65_536,
                heartbeat_ms: 500,
            }))
            .await
            .unwrap();
        let answer = tokio::time::timeout(Duration::from_secs(10), framed.next())
            .await
            .expect("an answer to the HELLO")
            .expect("a frame")
            .expect("a valid frame");
        (framed, answer)
    }
    let (first, ack) = dial(at).await;
    assert!(matches!(ack, LinkFrame::HelloAck(_)), "{ack:?}");
    match dial(at).await.1 {
        LinkFrame::Close(text) => assert_eq!(
            text,
            "127.0.0.1 has 1 connections open to the rv_routing listener: the limit security.limits.connections_per_peer = 1 is reached (2537 MQRC_CHANNEL_NOT_AVAILABLE)"
        ),
        other => panic!("expected CLOSE, got {other:?}"),
    }
    // The first link gone, its place is free again.
    drop(first);
    let deadline = Instant::now() + Duration::from_secs(10);
    loop {
        match dial(at).await.1 {
            LinkFrame::HelloAck(_) => break,
            other => assert!(Instant::now() < deadline, "still refused: {other:?}"),
        }
        tokio::time::sleep(Duration::from_millis(50)).await;
    }
    a.stop(Duration::from_secs(5)).await;
}

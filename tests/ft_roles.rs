//! mqgate's own single-owner roles in a fault tolerance group, with real
//! processes (docs/rendezvous.md "mqgate's own roles"): two `mqgate run`
//! gateways GWA (weight 200) and GWB (weight 100) joined by a routing link
//! that carries `_RVFT.>`, both members of MQGATE.FT.ROLES with a sender
//! channel and the SBS server as roles, and a receiving gateway GWR with a
//! receiver channel for each sender.
//!
//! Expected behaviour, and where it comes from:
//! - the heaviest member alive is the active one (TIBCO Rendezvous
//!   Concepts, "Rank and Weight"), so GWA runs the roles and GWB does not;
//! - a lost active member is replaced within the activation interval
//!   ("Activation Interval"): GWB's roles start within the activation
//!   interval plus one heartbeat of GWA's kill -9 (with slack for a loaded
//!   machine, [`SLACK`]);
//! - a member of greater weight that joins outranks the active one, which
//!   deactivates ("Rank and Weight"): GWA takes the roles back;
//! - with the embedded store each gateway serves only its own data: what
//!   GWA stored stays on GWA while it is dead, what GWB stored while
//!   inactive waits on GWB (docs/rendezvous.md "mqgate's own roles");
//! - no persistent message is lost or delivered twice (docs/architecture.md
//!   "Rules every part keeps"): GWR holds each message exactly once, by
//!   MsgId and by body;
//! - SBS: an SBS_REGISTER_REQ (class 29, type -1196, `p_typecl.h` V5.0-01)
//!   on queue 99 is served (taken, its SBS_REGISTER_RESP put to the
//!   response queue) only by the gateway whose SBS server runs.

mod common;
mod sbs_util;

use base64::Engine;
use common::{BIN, Gateway};
use mqgate_codecs::pams::{Endian, QAddress};
use serde_json::{Value, json};
use std::collections::BTreeMap;
use std::path::Path;
use std::time::{Duration, Instant, SystemTime, UNIX_EPOCH};

const GROUP: &str = "MQGATE.FT.ROLES";
const HEARTBEAT_MS: u64 = 200;
const ACTIVATION_MS: u64 = 1000;
/// What a loaded 2-core machine may add to the activation interval and a
/// heartbeat before the standby's roles run.
const SLACK: Duration = Duration::from_secs(2);
/// How long any one wait of the test lasts at most.
const PATIENCE: Duration = Duration::from_secs(30);
/// SBS_REGISTER_REQ (`p_typecl.h` V5.0-01).
const REGISTER_REQ: i16 = -1196;

fn now_ms() -> u64 {
    SystemTime::now()
        .duration_since(UNIX_EPOCH)
        .unwrap()
        .as_millis() as u64
}

/// Waits until `ok` holds (up to [`PATIENCE`]), naming `what` otherwise.
fn until(what: &str, mut ok: impl FnMut() -> bool) {
    let deadline = Instant::now() + PATIENCE;
    while !ok() {
        assert!(Instant::now() < deadline, "{what}: not within {PATIENCE:?}");
        std::thread::sleep(Duration::from_millis(50));
    }
}

fn ft(g: &Gateway) -> Value {
    let (st, v) = g.call("GET", "/v1/fault-tolerance", None);
    assert_eq!(st, 200, "{v}");
    v
}

fn channel_state(g: &Gateway, name: &str) -> String {
    let (_, v) = g.call("GET", "/v1/status", None);
    v["channels"]
        .as_array()
        .unwrap()
        .iter()
        .find(|c| c["name"] == name)
        .and_then(|c| c["state"].as_str())
        .unwrap_or_else(|| panic!("channel {name} not in status: {v}"))
        .to_string()
}

/// The group initialization file of group 10: CTL (queue 2) takes the SBS
/// server's answers.
fn init_file(dir: &Path) -> String {
    let path = dir.join("group.init");
    std::fs::write(
        &path,
        "%PROFILE\nENABLE_SBS YES\n%EOS\n%QCT\nCTL 2 . . . . . . . Y L N\nDEST 10 . . . . . . . Y L N\n%EOS\n",
    )
    .unwrap();
    path.display().to_string()
}

/// A member gateway: queue manager `name`, sender channel `NAME.TO.R`
/// serving transmission queue GWR toward `receiver`, the routing section
/// `routing` (its neighbors and listen address), weight `weight`.
fn member_config(name: &str, weight: u16, receiver: &str, routing: &str, init: &str) -> String {
    format!(
        "queue_manager:
  name: {name}
  default_xmit_queue: ''
queues:
  - {{type: local, name: GWR, usage: xmitq}}
devices:
  queue_managers: []
channels:
  - type: sender
    name: {short}.TO.R
    xmit_queue: GWR
    connect: {receiver}
    batch_size: 4
    heartbeat_ms: 200
    reconnect: {{first_ms: 50, max_ms: 200}}
messageq:
  group: 10
  init_file: {init}
rv:
  routing:
    router: {name}
{routing}    heartbeat_ms: 200
    reconnect_min_ms: 50
    reconnect_max_ms: 400
    export: ['_RVFT.>']
    import: [{{subject: '_RVFT.>'}}]
fault_tolerance:
  group: {GROUP}
  weight: {weight}
  heartbeat_ms: {HEARTBEAT_MS}
  activation_ms: {ACTIVATION_MS}
  roles:
    sbs_server: true
    sender_channels: [{short}.TO.R]
",
        short = &name[2..],
    )
}

/// `POST /v1/pams/messages` of an SBS_REGISTER_REQ for MOT `mot` and queue
/// 10.10, recoverable (WF_SAF) to the SBS server 10.99, answers to CTL.
fn register(g: &Gateway, mot: i32) {
    let req = sbs_util::register_req(
        mot,
        mot,
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
    let (st, v) = g.call(
        "POST",
        "/v1/pams/messages",
        Some(("application/json", body.to_string().as_bytes())),
    );
    assert_eq!(st, 201, "{v}");
}

/// Puts `n` persistent messages `TAG-i` for queue IN at GWR through `g`'s
/// transmission queue GWR; returns their MsgIds by body.
fn put(g: &Gateway, tag: &str, n: usize, sent: &mut BTreeMap<String, String>) {
    for i in 0..n {
        let body = format!("{tag}-{i:02}");
        let (st, v) = g.put("IN", "q_mgr=GWR&persistent=true", body.as_bytes());
        assert_eq!(st, 201, "{v}");
        assert_eq!(v["queue"], "GWR", "{v}");
        sent.insert(body, v["msg_id"].as_str().unwrap().to_string());
    }
}

/// Every message on GWR's queue IN, browsed: (body, MsgId) in queue order.
fn received(r: &Gateway) -> Vec<(String, String)> {
    let mut out = Vec::new();
    let mut cursor = String::new();
    loop {
        let (st, m) = r.next("IN", &format!("browse=true{cursor}"));
        if st == 404 {
            return out;
        }
        assert_eq!(st, 200, "{m}");
        out.push((
            String::from_utf8(common::data(&m)).unwrap(),
            m["md"]["MsgId"].as_str().unwrap().to_string(),
        ));
        cursor = format!("&cursor={}", m["cursor"].as_str().unwrap());
    }
}

/// The bodies of `r`'s IN that start with `tag`.
fn bodies_with(r: &Gateway, tag: &str) -> usize {
    received(r)
        .iter()
        .filter(|(b, _)| b.starts_with(tag))
        .count()
}

/// The routing listen port in the `routing daemon started` line of `g`'s log.
fn routing_port(g: &Gateway) -> u16 {
    let mut port = None;
    until("GWA's routing daemon logs its listen address", || {
        let log = std::fs::read_to_string(g.log_path()).unwrap_or_default();
        port = log
            .lines()
            .filter(|l| l.contains("routing daemon started"))
            .find_map(|l| {
                let at = l.find("listen=Some(")? + "listen=Some(".len();
                let addr: String = l[at..].chars().take_while(|c| *c != ')').collect();
                addr.parse::<std::net::SocketAddr>().ok().map(|a| a.port())
            });
        port.is_some()
    });
    port.unwrap()
}

#[test]
fn the_active_gateway_runs_the_roles_and_a_standby_takes_over_without_loss_or_duplicates() {
    let root = tempfile::tempdir().unwrap();
    let dir = |n: &str| {
        let d = root.path().join(n);
        std::fs::create_dir_all(&d).unwrap();
        d
    };
    let (dir_r, dir_a, dir_b) = (dir("r"), dir("a"), dir("b"));
    let mut r = Gateway::start(
        &dir_r,
        "queue_manager:\n  name: GWR\nqueues:\n  - {type: local, name: IN, default_persistence: persistent}\ndevices:\n  queue_managers: []\nchannels:\n  - {type: receiver, name: A.TO.R}\n  - {type: receiver, name: B.TO.R}\n",
    );
    let receiver = r.listen_addr();

    // GWA listens for the routing link; once it has a port, it keeps it
    // (its restarts below must be reachable where GWB dials).
    let init_a = init_file(&dir_a);
    let mut a = Gateway::start(
        &dir_a,
        &member_config(
            "GWA",
            200,
            &receiver,
            "    listen: 127.0.0.1:0\n    neighbors: [{name: GWB}]\n",
            &init_a,
        ),
    );
    let port = routing_port(&a);
    a.restart_with_config(&member_config(
        "GWA",
        200,
        &receiver,
        &format!("    listen: 127.0.0.1:{port}\n    neighbors: [{{name: GWB}}]\n"),
        &init_a,
    ));
    let init_b = init_file(&dir_b);
    let b = Gateway::start(
        &dir_b,
        &member_config(
            "GWB",
            100,
            &receiver,
            &format!("    neighbors: [{{name: GWA, connect: '127.0.0.1:{port}'}}]\n"),
            &init_b,
        ),
    );

    // GWA, the heavier, is active and holds the roles; GWB hears it and
    // stands by ("Rank and Weight").
    until("GWA active, GWB its standby", || {
        let (fa, fb) = (ft(&a), ft(&b));
        fa["held"] == true
            && fa["rank"] == 1
            && fb["members"] == 2
            && fb["rank"] == 2
            && fb["held"] == false
    });
    let fa = ft(&a);
    assert_eq!(fa["group"], GROUP);
    assert_eq!(fa["weight"], 200);
    assert_eq!(fa["active_goal"], 1);
    assert_eq!(
        (fa["heartbeat_ms"].as_u64(), fa["activation_ms"].as_u64()),
        (Some(200), Some(1000))
    );
    assert_eq!(
        fa["roles"],
        json!({"sbs_server": true, "sender_channels": ["A.TO.R"], "tedg": []})
    );
    assert_eq!(fa["ranks"][1]["weight"], 100);
    until("GWB's sender channel stopped", || {
        channel_state(&b, "B.TO.R") == "inactive"
    });

    let mut sent = BTreeMap::new();
    // GWA's sender channel delivers.
    put(&a, "a1", 10, &mut sent);
    until("a1 at GWR", || bodies_with(&r, "a1") == 10);
    // GWB's waits: its transmission queue keeps what is put there.
    put(&b, "b1", 5, &mut sent);
    // The SBS servers: GWA's serves queue 99, GWB's does not run.
    register(&a, 3001);
    register(&b, 3002);
    until("GWA's SBS server served queue 99", || {
        a.depth("PAMS.10.99") == 0 && a.depth("CTL") == 1
    });
    std::thread::sleep(Duration::from_millis(3 * ACTIVATION_MS));
    assert_eq!(b.depth("GWR"), 5, "the standby sent nothing");
    assert_eq!(bodies_with(&r, "b1"), 0);
    assert_eq!(
        b.depth("PAMS.10.99"),
        1,
        "the standby's SBS server does not run"
    );
    assert_eq!(b.depth("CTL"), 0);

    // Messages stored on GWA that it cannot send now (GWR is down) ...
    r.terminate();
    put(&a, "a2", 6, &mut sent);
    until("a2 waiting on GWA", || a.depth("GWR") == 6);
    // ... stay there when it is killed.
    let before = ft(&b);
    let killed = now_ms();
    a.kill9();
    r.restart();
    until("GWB activated", || ft(&b)["held"] == true);
    let fb = ft(&b);
    let took = fb["changed"].as_u64().unwrap().saturating_sub(killed);
    let bound = HEARTBEAT_MS + ACTIVATION_MS + SLACK.as_millis() as u64;
    println!("GWB activated {took} ms after GWA's kill -9");
    assert!(
        took <= bound,
        "GWB took {took} ms to activate (bound {bound} ms): {fb}"
    );
    assert_eq!(
        (fb["rank"].as_u64(), fb["members"].as_u64()),
        (Some(1), Some(1))
    );
    // (GWB may have held the roles for a moment at its start, before the
    // routing link brought it GWA's heartbeats: counted from before the kill.)
    assert_eq!(
        fb["activations"].as_u64(),
        before["activations"].as_u64().map(|n| n + 1)
    );
    // GWB's sender channel delivers its own transmission queue ...
    until("b1 at GWR", || bodies_with(&r, "b1") == 5);
    put(&b, "b2", 8, &mut sent);
    until("b2 at GWR", || {
        bodies_with(&r, "b2") == 8 && b.depth("GWR") == 0
    });
    // ... and its SBS server serves its queue 99.
    until("GWB's SBS server served queue 99", || {
        b.depth("PAMS.10.99") == 0 && b.depth("CTL") == 1
    });
    // GWA's messages are in GWA's store, which no one serves while it is dead.
    std::thread::sleep(Duration::from_millis(2 * ACTIVATION_MS));
    assert_eq!(
        bodies_with(&r, "a2"),
        0,
        "GWA's stored messages stay on GWA"
    );

    // GWA comes back: it outranks GWB and takes the roles back; GWB stops them.
    a.restart();
    until("GWA active again, GWB standing by", || {
        let (fa, fb) = (ft(&a), ft(&b));
        fa["held"] == true && fb["held"] == false && fb["rank"] == 2
    });
    assert_eq!(
        ft(&b)["deactivations"].as_u64(),
        before["deactivations"].as_u64().map(|n| n + 1)
    );
    until("GWB's sender channel stopped again", || {
        channel_state(&b, "B.TO.R") == "inactive"
    });
    // What GWA kept while dead is delivered now, once.
    until("a2 at GWR", || {
        bodies_with(&r, "a2") == 6 && a.depth("GWR") == 0
    });
    put(&a, "a3", 5, &mut sent);
    put(&b, "b3", 4, &mut sent);
    until("a3 at GWR", || bodies_with(&r, "a3") == 5);
    register(&b, 3003);
    std::thread::sleep(Duration::from_millis(3 * ACTIVATION_MS));
    assert_eq!(
        b.depth("GWR"),
        4,
        "the standby again keeps what is put on it"
    );
    assert_eq!(bodies_with(&r, "b3"), 0);
    assert_eq!(b.depth("PAMS.10.99"), 1);

    // Exactly once: every message sent through an active gateway is at
    // GWR once, under the MsgId its put gave it; GWB's last ones wait on
    // GWB, none lost.
    let got = received(&r);
    let mut by_body: BTreeMap<String, Vec<String>> = BTreeMap::new();
    for (body, msg_id) in &got {
        by_body
            .entry(body.clone())
            .or_default()
            .push(msg_id.clone());
    }
    let delivered: BTreeMap<String, String> = sent
        .iter()
        .filter(|(body, _)| !body.starts_with("b3"))
        .map(|(b, m)| (b.clone(), m.clone()))
        .collect();
    assert_eq!(got.len(), delivered.len(), "{got:?}");
    for (body, msg_id) in &delivered {
        assert_eq!(by_body.get(body), Some(&vec![msg_id.clone()]), "{body}");
    }
    let mut ids: Vec<&String> = got.iter().map(|(_, m)| m).collect();
    ids.sort();
    ids.dedup();
    assert_eq!(ids.len(), got.len(), "no MsgId twice");
    assert_eq!(a.depth("GWR"), 0);
}

/// `mqgate ARGS`: (exit status, stderr).
fn mqgate(args: &[&str]) -> (i32, String) {
    let out = std::process::Command::new(BIN).args(args).output().unwrap();
    (
        out.status.code().unwrap_or(-1),
        String::from_utf8_lossy(&out.stderr).into_owned(),
    )
}

#[test]
fn check_config_places_fault_tolerance_errors() {
    let dir = tempfile::tempdir().unwrap();
    let file = dir.path().join("ft.yaml");
    let name = file.display().to_string();
    // Intervals against "tibrvftMember_Create()", a group name against
    // "Reusable Names", roles that name nothing this gateway has.
    std::fs::write(
        &file,
        "rv:
  routing:
    router: GWA
    listen: 127.0.0.1:0
    export: ['_RVFT.>']
    import: [{subject: '_RVFT.>'}]
channels:
  - {type: receiver, name: R.TO.A}
fault_tolerance:
  group: A.>
  heartbeat_ms: 2000
  activation_ms: 1000
  roles:
    sbs_server: true
    sender_channels: [R.TO.A]
",
    )
    .unwrap();
    let (rc, err) = mqgate(&["check-config", &name]);
    assert_eq!(rc, 1, "{err}");
    let lines: Vec<&str> = err.lines().collect();
    assert_eq!(
        lines,
        [
            format!("{name}:10:10: fault_tolerance.group: invalid group name \"A.>\": element 2 is the wildcard '>': reusable names cannot contain wildcards (TIBRV_INVALID_SUBJECT 20)").as_str(),
            &format!("{name}:11:17: fault_tolerance.heartbeat_ms: the heartbeat interval (2000 ms) must be less than the activation interval (1000 ms) (\"tibrvftMember_Create()\")"),
            &format!("{name}:14:17: fault_tolerance.roles.sbs_server: there is no SBS server without a messageq: section"),
            &format!("{name}:15:23: fault_tolerance.roles.sender_channels[0]: channels[0] \"R.TO.A\" is a receiver channel: only sender channels are roles (a receiver serves whichever sender connects)"),
            &format!("{name}: 4 error(s)"),
        ]
    );

    // What only the loaded files tell: ENABLE_SBS NO leaves no SBS server
    // (BEA MessageQ "%PROFILE" ENABLE_SBS), and a queue space needs a
    // DMCONFIG that has it.
    let init = dir.path().join("nosbs.init");
    std::fs::write(
        &init,
        "%PROFILE\nENABLE_SBS NO\n%EOS\n%QCT\nCTL 2 . . . . . . . Y L N\n%EOS\n",
    )
    .unwrap();
    std::fs::write(
        &file,
        format!(
            "rv:
  routing:
    router: GWA
    listen: 127.0.0.1:0
    export: ['_RVFT.>']
    import: [{{subject: '_RVFT.>'}}]
messageq:
  group: 10
  init_file: {}
fault_tolerance:
  group: MQGATE.FT
  roles:
    sbs_server: true
    tedg: [BILLING]
",
            init.display()
        ),
    )
    .unwrap();
    let (rc, err) = mqgate(&["check-config", &name]);
    assert_eq!(rc, 1, "{err}");
    let lines: Vec<&str> = err.lines().collect();
    assert_eq!(
        lines,
        [
            format!("{name}:13:17: fault_tolerance.roles.sbs_server: the group initialization file says ENABLE_SBS NO: the group has no SBS server").as_str(),
            &format!("{name}:14:12: fault_tolerance.roles.tedg[0]: \"BILLING\": no DMCONFIG is loaded (dmconfig: or mqgate run --dmconfig), so there is no queue space to serve"),
            &format!("{name}: 2 error(s)"),
        ]
    );
    // `mqgate run` refuses the same at start, as a configuration error (exit 2).
    let data = dir.path().join("data").display().to_string();
    let (rc, err) = mqgate(&[
        "run",
        "--config",
        &name,
        "--data-dir",
        &data,
        "--http",
        "127.0.0.1:0",
        "--listen",
        "127.0.0.1:0",
        "--mqtt",
        "127.0.0.1:0",
    ]);
    assert_eq!(rc, 2, "{err}");
    assert!(
        err.contains("fault_tolerance.roles.sbs_server: the group initialization file says ENABLE_SBS NO: the group has no SBS server"),
        "{err}"
    );
}

#[test]
fn a_gateway_in_no_group_says_so() {
    let dir = tempfile::tempdir().unwrap();
    let g = Gateway::start(dir.path(), "");
    // docs/http-api.md "Fault tolerance": 404 / 2298 MQRC_FUNCTION_NOT_SUPPORTED.
    let (st, v) = g.call("GET", "/v1/fault-tolerance", None);
    assert_eq!(st, 404, "{v}");
    assert_eq!(v["mqrc"], 2298);
    assert_eq!(v["reason"], "MQRC_FUNCTION_NOT_SUPPORTED");
    assert_eq!(
        v["message"],
        "this gateway is in no fault tolerance group: its configuration has no fault_tolerance section"
    );
}

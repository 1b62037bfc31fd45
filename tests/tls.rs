//! TLS (docs/security.md "TLS") against real tools: the `openssl` command
//! makes a CA, server and client certificates, an expired one and one of
//! another CA in a temporary directory; `curl` and `openssl s_client` talk
//! to the HTTPS API; two gateways in this process run a TLS channel.
//!
//! Expected values: HTTP statuses and 2035 MQRC_NOT_AUTHORIZED from
//! docs/security.md and IBM MQ "API reason codes"; 2009
//! MQRC_CONNECTION_BROKEN for a connection that fails (docs/channel-protocol.md);
//! certificate serial numbers are the ones the test gives `openssl x509
//! -set_serial` (100 = 0x64, 200 = 0xC8), as `openssl x509 -serial` prints
//! them. openssl and curl must be installed (.ci/run installs them): a
//! missing tool fails the test.

mod common;

use common::call;
use common::pki::{Pki, run, s_client};
use mqgate::config::Config;
use mqgate::gateway::{Gateway, Handle};
use serde_json::Value;
use std::path::Path;
use std::process::Command;
use std::time::{Duration, Instant};

/// A gateway configuration with every listener on port 0 and `more` YAML
/// sections after them.
fn config(dir: &Path, qm: &str, http_more: &str, listener_more: &str, more: &str) -> Config {
    let text = format!(
        "queue_manager:
  name: {qm}
  default_xmit_queue: ''
http:
  listen: 127.0.0.1:0
{http_more}listener:
  listen: 127.0.0.1:0
{listener_more}mqtt:
  listen: 127.0.0.1:0
devices:
  queue_managers: []
{more}"
    );
    let mut c = Config::from_yaml(&text, "test.yaml").unwrap_or_else(|e| panic!("{e}\n{text}"));
    c.storage.data_dir = dir.join(format!("data-{qm}"));
    c
}

/// curl against the HTTPS API: (HTTP status as curl prints it, `000`
/// when no answer came; body; curl's exit status).
async fn curl(dir: &Path, args: Vec<String>) -> (String, String, i32) {
    let dir = dir.to_path_buf();
    tokio::task::spawn_blocking(move || {
        let body = dir.join(format!("body-{}", rand_suffix()));
        let mut all = vec![
            "-sS".to_string(),
            "--max-time".into(),
            "10".into(),
            "-o".into(),
            body.display().to_string(),
            "-w".into(),
            "%{http_code}".into(),
        ];
        all.extend(args);
        let refs: Vec<&str> = all.iter().map(String::as_str).collect();
        let out = run(&dir, "curl", &refs);
        let text = std::fs::read_to_string(&body).unwrap_or_default();
        (
            String::from_utf8_lossy(&out.stdout).into_owned(),
            text,
            out.status.code().unwrap_or(-1),
        )
    })
    .await
    .unwrap()
}

fn rand_suffix() -> u64 {
    use std::sync::atomic::{AtomicU64, Ordering};
    static N: AtomicU64 = AtomicU64::new(0);
    N.fetch_add(1, Ordering::SeqCst)
}

/// The serial number of the certificate the server at `addr` presents,
/// as `openssl s_client | openssl x509 -noout -serial` prints it.
async fn served_serial(dir: &Path, addr: String, ca: &str) -> String {
    let dir = dir.to_path_buf();
    let ca = ca.to_string();
    tokio::task::spawn_blocking(move || {
        let script = format!(
            "openssl s_client -connect {addr} -CAfile {ca} </dev/null 2>/dev/null | openssl x509 -noout -serial"
        );
        let out = run(&dir, "sh", &["-c", &script]);
        String::from_utf8_lossy(&out.stdout).trim().to_string()
    })
    .await
    .unwrap()
}

/// The status of channel `name` in `GET /v1/status`.
async fn channel_status(h: &Handle, name: &str) -> Value {
    let (_, v) = call("GET", format!("http://{}/v1/status", h.http_addr()), None).await;
    v["channels"]
        .as_array()
        .unwrap()
        .iter()
        .find(|c| c["name"] == name)
        .cloned()
        .unwrap_or_else(|| panic!("channel {name} not in status: {v}"))
}

/// Waits (at most 20 s) until channel `name` shows MQRC reason `reason`;
/// returns its status.
async fn wait_reason(h: &Handle, name: &str, reason: i64) -> Value {
    let deadline = Instant::now() + Duration::from_secs(20);
    loop {
        let c = channel_status(h, name).await;
        if c["reason"] == reason || Instant::now() > deadline {
            return c;
        }
        tokio::time::sleep(Duration::from_millis(100)).await;
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn https_api_with_and_without_client_certificates() {
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    let pki = Pki::new(d);
    let (cert, key) = pki.leaf("server", "/O=Example/CN=gw.example", "ca", 100, 30);
    let (app1, app1_key) = pki.leaf("app1", "/O=Example/CN=app1", "ca", 101, 30);
    let (app2, app2_key) = pki.leaf("app2", "/O=Example/CN=app2", "ca", 102, 30);
    let (stranger, stranger_key) = pki.leaf("stranger", "/O=Example/CN=app1", "other-ca", 103, 30);
    let (expired, expired_key) = pki.leaf("expired", "/O=Example/CN=app1", "ca", 104, -1);
    let ca = pki.path("ca.pem");
    let c = config(
        d,
        "QMTLS",
        &format!("  tls: {{cert: {cert}, key: {key}, ca: {ca}, client_auth: optional}}\n"),
        "",
        "queues:
  - {type: local, name: APP.Q}
security:
  certificates:
    - {dn: 'CN=app1,O=Example', principal: app1}
  authorities:
    - {principal: app1, profile: 'APP.*', authorities: [put, browse]}
",
    );
    let h = Gateway::start(c).await.unwrap();
    let base = format!("https://127.0.0.1:{}", h.http_addr().port());
    let with = |extra: &[&str], method: &str, path: &str| {
        let mut a: Vec<String> = vec!["--cacert".into(), ca.clone(), "-X".into(), method.into()];
        a.extend(extra.iter().map(|s| s.to_string()));
        if method == "POST" {
            a.extend(["--data-binary".into(), "over https".into()]);
        }
        a.push(format!("{base}{path}"));
        a
    };
    let put = "/v1/queues/APP.Q/messages";
    let next = "/v1/queues/APP.Q/messages/next";

    // The probe is open; the server's certificate chains to the CA.
    let (status, body, _) = curl(d, with(&[], "GET", "/healthz")).await;
    assert_eq!(status, "200", "{body}");
    // No client certificate and no token: 401 with 2035.
    let (status, body, _) = curl(d, with(&[], "POST", put)).await;
    assert_eq!(status, "401", "{body}");
    assert!(body.contains("2035"), "{body}");
    // app1's certificate authenticates principal app1: +put on APP.*.
    let app1_args = ["--cert", app1.as_str(), "--key", app1_key.as_str()];
    let (status, body, _) = curl(d, with(&app1_args, "POST", put)).await;
    assert_eq!(status, "201", "{body}");
    // ... but no +get: 403 with 2035, exactly as for a token's principal.
    let (status, body, _) = curl(d, with(&app1_args, "GET", next)).await;
    assert_eq!(status, "403", "{body}");
    assert!(body.contains("no +get authority"), "{body}");
    // +browse it has.
    let (status, body, _) = curl(d, with(&app1_args, "GET", &format!("{next}?browse=true"))).await;
    assert_eq!(status, "200", "{body}");
    assert!(body.contains("data_base64"), "{body}");
    // A trusted certificate that no entry maps: no principal, 401.
    let app2_args = ["--cert", app2.as_str(), "--key", app2_key.as_str()];
    let (status, body, _) = curl(d, with(&app2_args, "POST", put)).await;
    assert_eq!(status, "401", "{body}");
    // The text of docs/security.md "Client certificates", the DN as
    // `openssl x509 -subject -nameopt RFC2253` writes app2's subject.
    assert!(
        body.contains(
            "the client certificate's subject DN \\\"CN=app2,O=Example\\\" maps to no principal (security.certificates) and the request has no Authorization: Bearer token"
        ),
        "{body}"
    );
    // Certificates of another CA, or expired: the handshake fails, no answer.
    for (c, k) in [(&stranger, &stranger_key), (&expired, &expired_key)] {
        let (status, _, code) = curl(d, with(&["--cert", c, "--key", k], "POST", put)).await;
        assert_eq!(status, "000", "{c} was accepted");
        assert_ne!(code, 0);
    }
    // Without the CA, curl does not trust the server.
    let (status, _, code) = curl(d, vec![format!("{base}/healthz")]).await;
    assert_eq!(
        (status.as_str(), code),
        ("000", 60),
        "curl exit 60: peer certificate cannot be authenticated"
    );
    // Plain HTTP to the HTTPS port gets no HTTP answer.
    let (status, _, _) = curl(
        d,
        vec![format!("http://127.0.0.1:{}/healthz", h.http_addr().port())],
    )
    .await;
    assert_eq!(status, "000");
    // The command-line client over HTTPS (docs/security.md "Command-line
    // clients"): the CA and app1's certificate from the environment.
    let mqgate_put = |env: Vec<(&'static str, String)>| {
        let base = base.clone();
        let dir = d.to_path_buf();
        tokio::task::spawn_blocking(move || {
            let mut cmd = Command::new(env!("CARGO_BIN_EXE_mqgate"));
            cmd.args(["put", "--queue", "APP.Q", "--gateway", &base, "-"])
                .current_dir(&dir)
                .env_remove("MQGATE_TOKEN")
                .env_remove("MQGATE_CACERT")
                .env_remove("MQGATE_CERT")
                .env_remove("MQGATE_KEY")
                .stdin(std::process::Stdio::piped())
                .stdout(std::process::Stdio::piped())
                .stderr(std::process::Stdio::piped());
            for (k, v) in env {
                cmd.env(k, v);
            }
            let mut child = cmd.spawn().unwrap();
            use std::io::Write;
            child
                .stdin
                .take()
                .unwrap()
                .write_all(b"from the cli")
                .unwrap();
            child.wait_with_output().unwrap()
        })
    };
    let out = mqgate_put(vec![
        ("MQGATE_CACERT", ca.clone()),
        ("MQGATE_CERT", app1.clone()),
        ("MQGATE_KEY", app1_key.clone()),
    ])
    .await
    .unwrap();
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    // Without the CA the gateway's certificate is not trusted: exit 2
    // (the gateway could not be asked).
    let out = mqgate_put(vec![]).await.unwrap();
    assert_eq!(
        out.status.code(),
        Some(2),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    // With the CA but no client certificate: 401 / 2035, exit 1.
    let out = mqgate_put(vec![("MQGATE_CACERT", ca.clone())])
        .await
        .unwrap();
    assert_eq!(out.status.code(), Some(1));
    assert!(
        String::from_utf8_lossy(&out.stderr).contains("2035"),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );

    // openssl s_client: TLS 1.2 and 1.3 are served, 1.1 is not (the client
    // allowed to try it at security level 0).
    let addr = h.http_addr().to_string();
    for (version, shown) in [("-tls1_2", "TLSv1.2"), ("-tls1_3", "TLSv1.3")] {
        let (ok, text) = s_client(
            d,
            addr.clone(),
            vec![version.into(), "-CAfile".into(), ca.clone()],
        )
        .await;
        assert!(ok, "{text}");
        assert!(text.contains(shown), "{text}");
        assert!(text.contains("Verify return code: 0 (ok)"), "{text}");
    }
    let (ok, text) = s_client(
        d,
        addr.clone(),
        vec![
            "-tls1_1".into(),
            "-cipher".into(),
            "DEFAULT@SECLEVEL=0".into(),
            "-CAfile".into(),
            ca.clone(),
        ],
    )
    .await;
    assert!(!ok, "TLS 1.1 was accepted: {text}");
    // rustls answers a ClientHello without TLS 1.2 or 1.3 with a
    // handshake_failure alert (40, RFC 8446 section 6.2).
    assert!(
        text.contains("alert handshake failure") || text.contains("alert protocol version"),
        "{text}"
    );
    h.stop(Duration::from_secs(5)).await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_tls_channel_carries_a_message_and_refuses_wrong_peers() {
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    let pki = Pki::new(d);
    let (gw2, gw2_key) = pki.leaf("gw2", "/O=Example/CN=gw2", "ca", 200, 30);
    let (gw1, gw1_key) = pki.leaf("gw1", "/O=Example/CN=gw1", "ca", 201, 30);
    let (gw3, gw3_key) = pki.leaf("gw3", "/O=Example/CN=gw3", "ca", 202, 30);
    let (old, old_key) = pki.leaf("gw1-expired", "/O=Example/CN=gw1", "ca", 203, -1);
    let ca = pki.path("ca.pem");
    let other = pki.path("other-ca.pem");
    let receivers: String = ["A.TO.B", "A3.TO.B", "A4.TO.B", "A5.TO.B"]
        .iter()
        .map(|n| format!("  - {{type: receiver, name: {n}, sslpeer: 'CN=gw1, O=Example'}}\n"))
        .collect();
    let b = Gateway::start(config(
        d,
        "GWB",
        "",
        &format!("  tls: {{cert: {gw2}, key: {gw2_key}, ca: {ca}, client_auth: required}}\n"),
        &format!("queues:\n  - {{type: local, name: APP.IN}}\nchannels:\n{receivers}"),
    ))
    .await
    .unwrap();
    let to = b.channel_addr();
    let sender = |name: &str, xmitq: &str, tls: String, sslpeer: &str| {
        format!(
            "  - type: sender
    name: {name}
    xmit_queue: {xmitq}
    connect: {to}
    heartbeat_ms: 200
    reconnect: {{first_ms: 50, max_ms: 200}}
    tls: {tls}
{sslpeer}"
        )
    };
    let channels = [
        // Trusted both ways, each certificate passing the other's SSLPEER.
        sender(
            "A.TO.B",
            "GWB",
            format!("{{ca: {ca}, cert: {gw1}, key: {gw1_key}}}"),
            "    sslpeer: 'CN=gw2*'\n",
        ),
        // The receiver's certificate does not pass this side's SSLPEER.
        sender(
            "A2.TO.B",
            "GWB2",
            format!("{{ca: {ca}, cert: {gw1}, key: {gw1_key}}}"),
            "    sslpeer: 'CN=other,O=Example'\n",
        ),
        // gw3 does not pass the receiver's SSLPEER CN=gw1.
        sender(
            "A3.TO.B",
            "GWB3",
            format!("{{ca: {ca}, cert: {gw3}, key: {gw3_key}}}"),
            "",
        ),
        // The receiver's certificate is not of a CA this side trusts.
        sender(
            "A4.TO.B",
            "GWB4",
            format!("{{ca: {other}, cert: {gw1}, key: {gw1_key}}}"),
            "",
        ),
        // An expired client certificate.
        sender(
            "A5.TO.B",
            "GWB5",
            format!("{{ca: {ca}, cert: {old}, key: {old_key}}}"),
            "",
        ),
    ];
    let xmitqs: String = ["GWB", "GWB2", "GWB3", "GWB4", "GWB5"]
        .iter()
        .map(|q| format!("  - {{type: local, name: {q}, usage: xmitq}}\n"))
        .collect();
    let a = Gateway::start(config(
        d,
        "GWA",
        "",
        "",
        &format!("queues:\n{xmitqs}channels:\n{}", channels.concat()),
    ))
    .await
    .unwrap();
    let (st, v) = call(
        "POST",
        format!(
            "http://{}/v1/queues/APP.IN/messages?q_mgr=GWB&persistent=true",
            a.http_addr()
        ),
        Some(b"over tls"),
    )
    .await;
    assert_eq!(st, 201, "{v}");
    assert_eq!(v["queue"], "GWB");
    let deadline = Instant::now() + Duration::from_secs(20);
    let got = loop {
        let (st, v) = call(
            "GET",
            format!("http://{}/v1/queues/APP.IN/messages/next", b.http_addr()),
            None,
        )
        .await;
        if st == 200 || Instant::now() > deadline {
            break v;
        }
        tokio::time::sleep(Duration::from_millis(100)).await;
    };
    use base64::Engine;
    let data = base64::engine::general_purpose::STANDARD
        .decode(got["data_base64"].as_str().unwrap_or_default())
        .unwrap();
    assert_eq!(data, b"over tls", "{got}");
    let c = channel_status(&a, "A.TO.B").await;
    assert_eq!(c["state"], "running", "{c}");

    // This side's SSLPEER refuses the receiver: 2035 in the status.
    let c = wait_reason(&a, "A2.TO.B", 2035).await;
    assert_eq!(c["reason"], 2035, "{c}");
    let m = c["message"].as_str().unwrap();
    assert!(
        m.contains("subject DN \"CN=gw2,O=Example\" does not match SSLPEER \"CN=other,O=Example\""),
        "{m}"
    );
    // The receiver's SSLPEER refuses gw3: 2035 at both ends.
    let c = wait_reason(&a, "A3.TO.B", 2035).await;
    assert_eq!(c["reason"], 2035, "{c}");
    let rc = wait_reason(&b, "A3.TO.B", 2035).await;
    assert_eq!(rc["reason"], 2035, "{rc}");
    assert!(
        rc["message"]
            .as_str()
            .unwrap()
            .contains("certificate subject DN \"CN=gw3,O=Example\", which does not match SSLPEER \"CN=gw1, O=Example\""),
        "{rc}"
    );
    // Untrusted and expired certificates: the connection fails (2009).
    let c = wait_reason(&a, "A4.TO.B", 2009).await;
    assert_eq!(c["reason"], 2009, "{c}");
    assert!(
        c["message"]
            .as_str()
            .unwrap()
            .contains("invalid peer certificate: UnknownIssuer"),
        "{c}"
    );
    let c = wait_reason(&a, "A5.TO.B", 2009).await;
    assert_eq!(c["reason"], 2009, "{c}");
    assert_ne!(c["state"], "running", "{c}");
    a.stop(Duration::from_secs(5)).await;
    b.stop(Duration::from_secs(5)).await;
}

/// One HTTPS request on an open rustls connection: the status line.
async fn get_on(
    conn: &mut tokio_rustls::client::TlsStream<tokio::net::TcpStream>,
    path: &str,
) -> String {
    use tokio::io::{AsyncReadExt, AsyncWriteExt};
    // The Host the gateway answers to: its listen address (docs/http-api.md).
    let host = conn.get_ref().0.peer_addr().unwrap();
    conn.write_all(format!("GET {path} HTTP/1.1\r\nHost: {host}\r\n\r\n").as_bytes())
        .await
        .unwrap();
    let mut buf = Vec::new();
    let mut chunk = [0u8; 4096];
    // The answer is small and JSON: read until its body is complete.
    loop {
        let n = tokio::time::timeout(Duration::from_secs(5), conn.read(&mut chunk))
            .await
            .expect("answer within 5 s")
            .unwrap();
        assert!(
            n > 0,
            "connection closed: {}",
            String::from_utf8_lossy(&buf)
        );
        buf.extend_from_slice(&chunk[..n]);
        let text = String::from_utf8_lossy(&buf).into_owned();
        if let Some((head, body)) = text.split_once("\r\n\r\n") {
            let len = head
                .lines()
                .find_map(|l| {
                    l.to_ascii_lowercase()
                        .strip_prefix("content-length: ")
                        .map(|v| v.trim().parse::<usize>().unwrap())
                })
                .unwrap_or(0);
            if body.len() >= len {
                return head.lines().next().unwrap_or_default().to_string();
            }
        }
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn certificates_reload_for_new_connections_while_open_ones_keep_working() {
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    let pki = Pki::new(d);
    let (cert, key) = pki.leaf("server", "/O=Example/CN=gw2", "ca", 100, 30);
    let ca = pki.path("ca.pem");
    let h = Gateway::start(config(
        d,
        "QMRELOAD",
        &format!("  tls: {{cert: {cert}, key: {key}}}\n"),
        "",
        "",
    ))
    .await
    .unwrap();
    let addr = h.http_addr().to_string();
    assert_eq!(served_serial(d, addr.clone(), &ca).await, "serial=64");

    // A connection opened before the reload (rustls, trusting the CA).
    let mut roots = rustls::RootCertStore::empty();
    for c in mqgate::security::tls::files::certificates(Path::new(&ca)).unwrap() {
        roots.add(c).unwrap();
    }
    let client = rustls::ClientConfig::builder_with_provider(mqgate::security::tls::provider())
        .with_safe_default_protocol_versions()
        .unwrap()
        .with_root_certificates(roots)
        .with_no_client_auth();
    let tcp = tokio::net::TcpStream::connect(h.http_addr()).await.unwrap();
    let name = rustls::pki_types::ServerName::try_from("127.0.0.1").unwrap();
    let mut open = tokio_rustls::TlsConnector::from(std::sync::Arc::new(client))
        .connect(name, tcp)
        .await
        .unwrap();
    assert_eq!(get_on(&mut open, "/healthz").await, "HTTP/1.1 200 OK");

    // A new certificate and key in the same files, then the reload.
    pki.leaf("server", "/O=Example/CN=gw2", "ca", 200, 30);
    assert!(h.reload_tls().is_empty());
    assert_eq!(served_serial(d, addr.clone(), &ca).await, "serial=C8");
    // The open connection goes on with its session.
    assert_eq!(get_on(&mut open, "/healthz").await, "HTTP/1.1 200 OK");

    // A broken file: the error names the setting and the file, and the
    // certificate of the last good reload stays.
    std::fs::write(&cert, "not a certificate\n").unwrap();
    let failed = h.reload_tls();
    assert_eq!(failed.len(), 1, "{failed:?}");
    assert_eq!(failed[0].0, "http.tls");
    assert_eq!(
        failed[0].1.to_string(),
        format!("{cert}: holds no CERTIFICATE section")
    );
    assert_eq!(served_serial(d, addr, &ca).await, "serial=C8");
    assert_eq!(get_on(&mut open, "/healthz").await, "HTTP/1.1 200 OK");
    drop(open);
    h.stop(Duration::from_secs(5)).await;
}

#[test]
fn check_config_reads_the_files_and_places_errors_at_the_setting() {
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    let pki = Pki::new(d);
    let (cert, _) = pki.leaf("server", "/O=Example/CN=gw2", "ca", 100, 30);
    let (_, other_key) = pki.leaf("other", "/O=Example/CN=gw3", "ca", 101, 30);
    let missing = d.join("missing.pem").display().to_string();
    let file = d.join("gw.yaml");
    // Line 3 column 10 is http.tls.key's value; line 6 column 15
    // listener.tls.cert's (counted in the text below).
    std::fs::write(
        &file,
        format!(
            "http:\n  tls:\n    key: {other_key}\n    cert: {cert}\nlistener:\n  tls: {{cert: {missing}, key: {other_key}}}\n"
        ),
    )
    .unwrap();
    let out = run(
        d,
        env!("CARGO_BIN_EXE_mqgate"),
        &["check-config", &file.display().to_string()],
    );
    assert!(!out.status.success());
    let err = String::from_utf8_lossy(&out.stderr);
    let f = file.display();
    assert!(
        err.contains(&format!(
            "{f}:3:10: http.tls.key: {other_key}: the private key does not match the certificate of {cert}"
        )),
        "{err}"
    );
    assert!(
        err.contains(&format!(
            "{f}:6:15: listener.tls.cert: {missing}: cannot read: No such file or directory (os error 2)"
        )),
        "{err}"
    );
    // docs/security.md "TLS": `mqgate run` refuses to start on the same
    // errors, exit status 2, each placed as check-config places it.
    let data = d.join("run-data").display().to_string();
    let out = run(
        d,
        env!("CARGO_BIN_EXE_mqgate"),
        &[
            "run",
            "--config",
            &file.display().to_string(),
            "--data-dir",
            &data,
        ],
    );
    assert_eq!(out.status.code(), Some(2));
    let run_err = String::from_utf8_lossy(&out.stderr);
    for line in err.lines().filter(|l| l.contains(".tls.")) {
        assert!(run_err.contains(line), "{line}\nnot in\n{run_err}");
    }
    // Settings checked without reading files: an SSLPEER without TLS, an
    // SSLPEER with an attribute IBM MQ does not know.
    std::fs::write(
        &file,
        "channels:\n  - type: sender\n    name: A.TO.B\n    xmit_queue: X\n    connect: 127.0.0.1:1414\n    sslpeer: 'CN=gw2'\n",
    )
    .unwrap();
    let out = run(
        d,
        env!("CARGO_BIN_EXE_mqgate"),
        &["check-config", &file.display().to_string()],
    );
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(
        err.contains(&format!(
            "{f}:6:14: channels[0].sslpeer: needs tls: without it the receiver presents no certificate"
        )),
        "{err}"
    );
    std::fs::write(
        &file,
        "channels:\n  - type: receiver\n    name: A.TO.B\n    sslpeer: 'CN=gw2,XX=1'\n",
    )
    .unwrap();
    let out = run(
        d,
        env!("CARGO_BIN_EXE_mqgate"),
        &["check-config", &file.display().to_string()],
    );
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(
        err.contains("unknown attribute type \\\"XX\\\"")
            || err.contains("unknown attribute type \"XX\""),
        "{err}"
    );
}

/// docs/security.md "CipherSpecs": "An ECDSA CipherSpec needs an EC
/// certificate, an RSA one an RSA certificate". A listener whose only
/// CipherSpecs are RSA ones with an EC certificate (the Pki makes EC keys)
/// could complete no handshake, so check-config refuses it at `ciphers`;
/// a list with one suite the certificate can serve passes.
#[test]
fn check_config_refuses_ciphers_the_listener_certificate_cannot_serve() {
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    let pki = Pki::new(d);
    let (cert, key) = pki.leaf("server", "/O=Example/CN=gw1", "ca", 100, 30);
    let file = d.join("gw.yaml");
    let check = |ciphers: &str| {
        std::fs::write(
            &file,
            format!("http:\n  tls:\n    cert: {cert}\n    key: {key}\n    ciphers: {ciphers}\n"),
        )
        .unwrap();
        run(
            d,
            env!("CARGO_BIN_EXE_mqgate"),
            &["check-config", &file.display().to_string()],
        )
    };
    let out = check("[ECDHE_RSA_AES_128_GCM_SHA256]");
    assert!(!out.status.success());
    let err = String::from_utf8_lossy(&out.stderr);
    // Line 5 column 14: the value of http.tls.ciphers.
    assert!(
        err.contains(&format!(
            "{}:5:14: http.tls.ciphers: {cert}: every CipherSpec of the list needs an RSA certificate, and this certificate's key is ECDSA",
            file.display()
        )),
        "{err}"
    );
    for fine in [
        "[ECDHE_ECDSA_AES_128_GCM_SHA256]",
        "[ECDHE_RSA_AES_128_GCM_SHA256, TLS_AES_128_GCM_SHA256]",
        "[ANY_TLS12]",
    ] {
        let out = check(fine);
        assert!(
            out.status.success(),
            "{fine}: {}",
            String::from_utf8_lossy(&out.stderr)
        );
    }
}

/// The serial number the server at `addr` presents, from a blocking test.
fn served_serial_now(dir: &Path, addr: &str, ca: &str) -> String {
    let script = format!(
        "openssl s_client -connect {addr} -CAfile {ca} </dev/null 2>/dev/null | openssl x509 -noout -serial"
    );
    let out = run(dir, "sh", &["-c", &script]);
    String::from_utf8_lossy(&out.stdout).trim().to_string()
}

#[test]
fn sighup_reloads_the_channel_listeners_certificate() {
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    let pki = Pki::new(d);
    let (cert, key) = pki.leaf("listener", "/O=Example/CN=gw2", "ca", 100, 30);
    let ca = pki.path("ca.pem");
    let g = common::Gateway::start(
        d,
        &format!("listener:\n  tls: {{cert: {cert}, key: {key}}}\n"),
    );
    let addr = g.listen_addr();
    assert_eq!(served_serial_now(d, &addr, &ca), "serial=64");
    pki.leaf("listener", "/O=Example/CN=gw2", "ca", 200, 30);
    let st = Command::new("kill")
        .args(["-HUP", &g.pid().to_string()])
        .status()
        .unwrap();
    assert!(st.success());
    // The reload is logged (src/security/tls/mod.rs); then new
    // connections see the new certificate, and the gateway still runs.
    let deadline = Instant::now() + Duration::from_secs(10);
    loop {
        let log = std::fs::read_to_string(g.log_path()).unwrap_or_default();
        if log.contains("TLS certificates reloaded") {
            break;
        }
        assert!(Instant::now() < deadline, "no reload logged:\n{log}");
        std::thread::sleep(Duration::from_millis(50));
    }
    assert_eq!(served_serial_now(d, &addr, &ca), "serial=C8");
    let (st, v) = g.call("GET", "/healthz", None);
    assert_eq!(st, 200, "{v}");
}

#[test]
fn the_subject_dn_is_written_as_openssl_writes_rfc_2253() {
    // The oracle: `openssl x509 -subject -nameopt RFC2253` (RFC 2253/4514
    // string, most specific RDN first); CN, OU, O and C are also IBM MQ's
    // attribute names ("Distinguished Names").
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    let pki = Pki::new(d);
    let (cert, _) = pki.leaf(
        "odd",
        "/C=GB/O=Example, Ltd/OU=Ops/OU=EU/CN=gw\\+2 #1",
        "ca",
        600,
        30,
    );
    let out = run(
        d,
        "openssl",
        &[
            "x509", "-in", &cert, "-noout", "-subject", "-nameopt", "RFC2253",
        ],
    );
    let want = String::from_utf8_lossy(&out.stdout)
        .trim()
        .trim_start_matches("subject=")
        .to_string();
    let der = mqgate::security::tls::files::certificates(Path::new(&cert)).unwrap();
    let dn = mqgate::security::tls::dn::subject_dn(&der[0]).unwrap();
    assert_eq!(dn, want);
    assert_eq!(dn, "CN=gw\\+2 #1,OU=EU,OU=Ops,O=Example\\, Ltd,C=GB");
    // SSLPEER filters read it back: quoted values, OUs in order; `+`
    // separates items (RFC 4514 multi-valued RDNs), so an unquoted `gw+2*`
    // is a syntax error.
    let f =
        mqgate::security::tls::SslPeer::parse("O=\"Example, Ltd\", OU=EU, CN=gw+2*").unwrap_err();
    assert!(f.contains("syntax error"), "{f}");
    let f =
        mqgate::security::tls::SslPeer::parse("O=\"Example, Ltd\", OU=EU, OU=Ops, CN=\"gw+2 #1\"")
            .unwrap();
    assert!(f.matches(&dn));
    let f = mqgate::security::tls::SslPeer::parse("OU=Ops").unwrap();
    assert!(!f.matches(&dn), "the first OU is EU");
}

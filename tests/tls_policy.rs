//! TLS policy settings (docs/security.md "CipherSpecs" and "Revocation
//! lists") against real tools: `openssl s_client` offering one cipher suite
//! at a time, `curl` presenting client certificates that an `openssl ca
//! -gencrl` revocation list revokes or not, and the gateway's own TLS
//! client checking a server certificate against a revocation list.
//!
//! Expected values: the OpenSSL names of the suites are those of IBM MQ
//! "CipherSpec order in TLS handshake" (same hexadecimal codes, e.g.
//! ECDHE_ECDSA_AES_256_GCM_SHA384 = C02C = OpenSSL
//! ECDHE-ECDSA-AES256-GCM-SHA384); a refused handshake is the
//! handshake_failure alert (RFC 8446 section 6.2); a revoked certificate is
//! the certificate_revoked alert (44, RFC 5246 section 7.2.2). openssl and
//! curl must be installed (.ci/run installs them): a missing tool fails the
//! test.

mod common;

use common::pki::{Pki, run, s_client};
use mqgate::config::Config;
use mqgate::gateway::Gateway;
use mqgate::security::tls::{TlsClient, TlsConfig, TlsEndpoints};
use std::path::{Path, PathBuf};
use std::process::Command;
use std::time::Duration;

/// A gateway configuration with every listener on port 0, `http_tls` and
/// `listener_tls` the `tls:` of the HTTP and channel listeners (`null`:
/// none), `more` YAML sections after them.
fn config(dir: &Path, http_tls: &str, listener_tls: &str, more: &str) -> Result<Config, String> {
    let text = format!(
        "queue_manager:
  name: QMPOL
  default_xmit_queue: ''
http:
  listen: 127.0.0.1:0
  tls: {http_tls}
listener:
  listen: 127.0.0.1:0
  tls: {listener_tls}
mqtt:
  listen: 127.0.0.1:0
devices:
  queue_managers: []
{more}"
    );
    let mut c = Config::from_yaml(&text, "test.yaml").map_err(|e| e.to_string())?;
    c.storage.data_dir = dir.join("data");
    Ok(c)
}

/// `curl` GET of `url` with `args`: (HTTP status as curl prints it, `000`
/// without an answer; curl's stderr).
async fn curl(dir: &Path, url: String, args: Vec<String>) -> (String, String) {
    let dir = dir.to_path_buf();
    tokio::task::spawn_blocking(move || {
        let mut all: Vec<String> = vec![
            "-sS".into(),
            "--max-time".into(),
            "10".into(),
            "-o".into(),
            "/dev/null".into(),
            "-w".into(),
            "%{http_code}".into(),
        ];
        all.extend(args);
        all.push(url);
        let refs: Vec<&str> = all.iter().map(String::as_str).collect();
        let out = run(&dir, "curl", &refs);
        (
            String::from_utf8_lossy(&out.stdout).into_owned(),
            String::from_utf8_lossy(&out.stderr).into_owned(),
        )
    })
    .await
    .unwrap()
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn ciphers_restrict_the_suites_a_listener_accepts() {
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    let pki = Pki::new(d);
    let (cert, key) = pki.leaf("server", "/O=Example/CN=gw.example", "ca", 100, 30);
    let ca = pki.path("ca.pem");
    let c = config(
        d,
        &format!(
            "{{cert: {cert}, key: {key}, ciphers: [ECDHE_ECDSA_AES_256_GCM_SHA384, TLS_AES_128_GCM_SHA256]}}"
        ),
        &format!("{{cert: {cert}, key: {key}, ciphers: [ANY_TLS13]}}"),
        "",
    )
    .unwrap();
    let h = Gateway::start(c).await.unwrap();
    let http = h.http_addr().to_string();
    // (version option, suite option, suite, accepted)
    for (version, option, suite, accepted) in [
        ("-tls1_2", "-cipher", "ECDHE-ECDSA-AES256-GCM-SHA384", true),
        ("-tls1_2", "-cipher", "ECDHE-ECDSA-AES128-GCM-SHA256", false),
        ("-tls1_2", "-cipher", "ECDHE-ECDSA-CHACHA20-POLY1305", false),
        ("-tls1_3", "-ciphersuites", "TLS_AES_128_GCM_SHA256", true),
        ("-tls1_3", "-ciphersuites", "TLS_AES_256_GCM_SHA384", false),
    ] {
        let (ok, text) = s_client(
            d,
            http.clone(),
            vec![
                version.into(),
                option.into(),
                suite.into(),
                "-CAfile".into(),
                ca.clone(),
            ],
        )
        .await;
        assert_eq!(ok, accepted, "{suite}: {text}");
        if accepted {
            assert!(text.contains(&format!("Cipher is {suite}")), "{text}");
        } else {
            assert!(text.contains("alert handshake failure"), "{suite}: {text}");
        }
    }
    // ANY_TLS13 ("Alias CipherSpecs") fixes the protocol: TLS 1.2 is
    // refused whatever its suite, every TLS 1.3 suite is taken.
    let listener = h.channel_addr().to_string();
    let (ok, text) = s_client(
        d,
        listener.clone(),
        vec!["-tls1_2".into(), "-CAfile".into(), ca.clone()],
    )
    .await;
    assert!(!ok, "TLS 1.2 accepted under ANY_TLS13: {text}");
    for suite in ["TLS_AES_256_GCM_SHA384", "TLS_CHACHA20_POLY1305_SHA256"] {
        let (ok, text) = s_client(
            d,
            listener.clone(),
            vec![
                "-tls1_3".into(),
                "-ciphersuites".into(),
                suite.into(),
                "-CAfile".into(),
                ca.clone(),
            ],
        )
        .await;
        assert!(ok, "{text}");
        assert!(text.contains(&format!("Cipher is {suite}")), "{text}");
    }
    h.stop(Duration::from_secs(5)).await;

    // check-config names the setting and what it takes.
    let e = config(
        d,
        &format!("{{cert: {cert}, key: {key}, ciphers: [TLS_RSA_WITH_AES_256_GCM_SHA384]}}"),
        &format!("{{cert: {cert}, key: {key}, ciphers: [ECDHE_RSA_AES_256_CBC_SHA384, FAST]}}"),
        "",
    )
    .unwrap_err();
    for expected in [
        "http.tls.ciphers[0]: CipherSpec TLS_RSA_WITH_AES_256_GCM_SHA384 uses RSA key exchange (no forward secrecy), which rustls does not offer; expected one of TLS_AES_128_GCM_SHA256, TLS_AES_256_GCM_SHA384,",
        "listener.tls.ciphers[0]: CipherSpec ECDHE_RSA_AES_256_CBC_SHA384 uses CBC mode",
        "listener.tls.ciphers[1]: unknown CipherSpec \"FAST\"; expected one of ",
        "ANY_TLS12, ANY_TLS12_OR_HIGHER, ANY_TLS13, ANY_TLS13_OR_HIGHER",
    ] {
        assert!(e.contains(expected), "{expected} not in {e}");
    }
}

/// A TLS client of the gateway's own (what sender channels use) trusting
/// `ca` and checking the server's certificate against `crl`.
fn client(ca: &str, crl: &str) -> std::sync::Arc<TlsClient> {
    let config = TlsConfig {
        ca: Some(PathBuf::from(ca)),
        crl: vec![PathBuf::from(crl)],
        ..TlsConfig::default()
    };
    TlsClient::new("test", &config, &TlsEndpoints::default()).unwrap()
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn revoked_certificates_are_refused_on_both_sides_and_lists_reload() {
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    let pki = Pki::new(d);
    let (cert, key) = pki.leaf("server", "/O=Example/CN=gw.example", "ca", 100, 30);
    let (good, good_key) = pki.leaf("good", "/O=Example/CN=app1", "ca", 101, 30);
    let (bad, bad_key) = pki.leaf("revoked", "/O=Example/CN=app2", "ca", 102, 30);
    let ca = pki.path("ca.pem");
    let crl = pki.crl("clients", "ca", &["revoked"]);
    let c = config(
        d,
        &format!("{{cert: {cert}, key: {key}, ca: {ca}, client_auth: required, crl: {crl}}}"),
        &format!("{{cert: {cert}, key: {key}}}"),
        "",
    )
    .unwrap();
    let h = Gateway::start(c).await.unwrap();
    let url = format!("https://127.0.0.1:{}/healthz", h.http_addr().port());
    let with = |cert: &str, key: &str| -> Vec<String> {
        ["--cacert", &ca, "--cert", cert, "--key", key]
            .iter()
            .map(|s| s.to_string())
            .collect()
    };
    let (status, err) = curl(d, url.clone(), with(&good, &good_key)).await;
    assert_eq!(status, "200", "{err}");
    let (status, err) = curl(d, url.clone(), with(&bad, &bad_key)).await;
    assert_eq!(status, "000", "a revoked certificate was accepted");
    assert!(err.contains("certificate revoked"), "{err}");

    // A new list that revokes app1 too, then a reload: app1 is refused.
    std::fs::copy(pki.crl("both", "ca", &["revoked", "good"]), &crl).unwrap();
    assert!(h.reload_tls().is_empty());
    let (status, err) = curl(d, url.clone(), with(&good, &good_key)).await;
    assert_eq!(
        status, "000",
        "a certificate revoked by the reloaded list was accepted"
    );
    assert!(err.contains("certificate revoked"), "{err}");
    // A file that is no revocation list keeps the old one, with the file
    // named; check-config places the same error at the setting.
    std::fs::write(&crl, "not a list").unwrap();
    let checked = config(
        d,
        &format!("{{cert: {cert}, key: {key}, ca: {ca}, client_auth: required, crl: [{crl}]}}"),
        "null",
        "",
    )
    .unwrap()
    .tls_file_problems();
    assert_eq!(
        checked,
        [(
            "http.tls.crl".to_string(),
            format!("{crl}: holds no X509 CRL section")
        )]
    );
    let failed = h.reload_tls();
    assert_eq!(failed.len(), 1, "{failed:?}");
    assert_eq!(failed[0].0, "http.tls");
    assert_eq!(
        failed[0].1.to_string(),
        format!("{crl}: holds no X509 CRL section")
    );

    // Outbound: the gateway's TLS client refuses a server certificate its
    // list revokes (serial 100), and takes it with a list that does not.
    let addr = h.channel_addr();
    let server_crl = pki.crl("server", "ca", &["server"]);
    let tcp = tokio::net::TcpStream::connect(addr).await.unwrap();
    let e = client(&ca, &server_crl)
        .connect(tcp, "127.0.0.1", addr)
        .await
        .unwrap_err();
    assert!(e.to_string().contains("Revoked"), "{e}");
    let clients_crl = pki.crl("clients2", "ca", &["revoked"]);
    let tcp = tokio::net::TcpStream::connect(addr).await.unwrap();
    let (_, peer) = client(&ca, &clients_crl)
        .connect(tcp, "127.0.0.1", addr)
        .await
        .unwrap();
    assert_eq!(peer.dn.as_deref(), Some("CN=gw.example,O=Example"));
    h.stop(Duration::from_secs(5)).await;
}

/// `mqgate send` of `file` to channel `channel` at `to` with `args` and
/// the environment `env`: (exit code, stdout and stderr together).
async fn send(
    to: String,
    channel: &str,
    args: Vec<String>,
    env: Vec<(&'static str, String)>,
    file: PathBuf,
) -> (Option<i32>, String) {
    let channel = channel.to_string();
    tokio::task::spawn_blocking(move || {
        let out = Command::new(common::BIN)
            .args([
                "send",
                "--to",
                &to,
                "--channel",
                &channel,
                "--rqmname",
                "QMPOL",
                "--rname",
                "APP.IN",
            ])
            .args(&args)
            .arg(&file)
            .env_remove("MQGATE_CACERT")
            .env_remove("MQGATE_CERT")
            .env_remove("MQGATE_KEY")
            .envs(env)
            .output()
            .unwrap();
        let mut text = String::from_utf8_lossy(&out.stdout).into_owned();
        text.push_str(&String::from_utf8_lossy(&out.stderr));
        (out.status.code(), text)
    })
    .await
    .unwrap()
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn mqgate_send_over_tls_with_client_certificates_and_sslpeer() {
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    let pki = Pki::new(d);
    let (cert, key) = pki.leaf("server", "/O=Example/CN=gw.example", "ca", 100, 30);
    let (client, client_key) = pki.leaf("client", "/O=Example/CN=sender1", "ca", 101, 30);
    let ca = pki.path("ca.pem");
    let c = config(
        d,
        "null",
        &format!("{{cert: {cert}, key: {key}, ca: {ca}, client_auth: required}}"),
        "queues:
  - {type: local, name: APP.IN}
channels:
  - {type: receiver, name: TO.QMPOL, sslpeer: 'CN=sender1,O=Example'}
",
    )
    .unwrap();
    let h = Gateway::start(c).await.unwrap();
    let to = h.channel_addr().to_string();
    let file = d.join("msg.txt");
    std::fs::write(&file, "over tls").unwrap();
    let env = vec![
        ("MQGATE_CACERT", ca.clone()),
        ("MQGATE_CERT", client.clone()),
        ("MQGATE_KEY", client_key.clone()),
    ];

    // The files from the environment, as the HTTP client commands take them.
    let (code, text) = send(
        to.clone(),
        "TO.QMPOL",
        vec!["--tls".into()],
        env.clone(),
        file.clone(),
    )
    .await;
    assert_eq!(code, Some(0), "{text}");
    let url = format!("http://{}/v1/queues/APP.IN/messages/next", h.http_addr());
    let (st, got) = common::call("GET", url.clone(), None).await;
    assert_eq!(st, 200, "{got}");
    // "over tls" in base64 (RFC 4648).
    assert_eq!(got["data_base64"].as_str(), Some("b3ZlciB0bHM="), "{got}");

    // The same from options; the receiver's DN passes --sslpeer.
    let (code, text) = send(
        to.clone(),
        "TO.QMPOL",
        vec![
            "--cacert".into(),
            ca.clone(),
            "--cert".into(),
            client.clone(),
            "--key".into(),
            client_key.clone(),
            "--sslpeer".into(),
            "CN=gw.*".into(),
        ],
        vec![],
        file.clone(),
    )
    .await;
    assert_eq!(code, Some(0), "{text}");

    // A receiver's DN that does not pass --sslpeer: 2035, exit 1.
    let mut args = vec!["--tls".into(), "--sslpeer".into(), "CN=other".into()];
    let (code, text) = send(
        to.clone(),
        "TO.QMPOL",
        args.clone(),
        env.clone(),
        file.clone(),
    )
    .await;
    assert_eq!(code, Some(1), "{text}");
    assert!(text.contains("2035"), "{text}");

    // No client certificate: the listener (client_auth: required) refuses.
    args.truncate(1);
    let (code, text) = send(
        to.clone(),
        "TO.QMPOL",
        args.clone(),
        vec![("MQGATE_CACERT", ca.clone())],
        file.clone(),
    )
    .await;
    assert_eq!(code, Some(1), "{text}");
    // Plain TCP to a TLS listener fails; --tls without CA certificates,
    // or with a file that holds none, is a usage error (exit 2).
    let (code, text) = send(to.clone(), "TO.QMPOL", vec![], vec![], file.clone()).await;
    assert_eq!(code, Some(1), "{text}");
    let (code, text) = send(to.clone(), "TO.QMPOL", args.clone(), vec![], file.clone()).await;
    assert_eq!(code, Some(2), "{text}");
    assert!(text.contains("--tls needs the CA certificates the receiver's certificate must chain to: --cacert FILE or MQGATE_CACERT"), "{text}");
    let (code, text) = send(
        to.clone(),
        "TO.QMPOL",
        args,
        vec![("MQGATE_CACERT", client_key.clone())],
        file.clone(),
    )
    .await;
    assert_eq!(code, Some(2), "{text}");
    assert!(
        text.contains(&format!("{client_key}: holds no CERTIFICATE section")),
        "{text}"
    );
    // Only one message arrived besides the first: the one with --sslpeer.
    let (st, got) = common::call("GET", url.clone(), None).await;
    assert_eq!(st, 200, "{got}");
    let (st, got) = common::call("GET", format!("{url}?wait_ms=0"), None).await;
    assert_eq!(st, 404, "{got}");
    h.stop(Duration::from_secs(5)).await;
}

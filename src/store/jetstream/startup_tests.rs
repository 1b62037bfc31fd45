//! The start-up checks (docs/cluster.md "Start-up checks") against real
//! nats-servers: each failure is refused with a message naming what is
//! wrong, and a second gateway on one stream prefix is refused while the
//! first lives.

use super::conformance_tests::options;
use super::test_server::{Server, binary, jetstream};
use super::{JetStreamStore, OpenError};
use crate::store::{Batch, Store};

fn refused(o: &crate::store::nats_config::NatsStorage) -> OpenError {
    match JetStreamStore::open(o) {
        Ok(_) => panic!("opened; a refusal was expected"),
        Err(e) => e,
    }
}

fn free_port() -> u16 {
    std::net::TcpListener::bind("127.0.0.1:0")
        .and_then(|l| l.local_addr())
        .map(|a| a.port())
        .expect("a free port")
}

#[test]
fn an_unreachable_server_is_named() {
    // Nothing listens on a port just freed: connection refused.
    let url = format!("nats://127.0.0.1:{}", free_port());
    let e = refused(&options(&url, "http://127.0.0.1:1", "U"));
    assert!(matches!(e, OpenError::Unreachable { .. }), "{e:?}");
    let text = e.to_string();
    assert!(
        text.starts_with(&format!("storage: cannot reach any NATS server of {url}: ")),
        "{text}"
    );
}

#[test]
fn an_account_without_jetstream_and_wrong_credentials_are_refused() {
    let Some(program) = binary() else { return };
    // Account JS has JetStream, account NOJS has not (nats-server
    // configuration, "accounts" and "jetstream: enabled").
    let body = format!(
        "{}\naccounts {{\n  JS: {{ jetstream: enabled, users: [{{user: js, password: js}}] }}\n  \
         NOJS: {{ users: [{{user: nojs, password: nojs-pw}}] }}\n}}",
        jetstream("always")
    );
    let server = Server::with(&program, &body);
    let with_user = |user: &str, password: &str| {
        server
            .url
            .replace("nats://", &format!("nats://{user}:{password}@"))
    };
    let e = refused(&options(
        &with_user("nojs", "nojs-pw"),
        &server.monitor,
        "A",
    ));
    assert!(matches!(e, OpenError::NoJetStream { .. }), "{e:?}");
    assert!(
        e.to_string()
            .starts_with("storage: the NATS account has no JetStream: "),
        "{e}"
    );
    let e = refused(&options(&with_user("js", "wrong"), &server.monitor, "A"));
    assert!(matches!(e, OpenError::Credentials { .. }), "{e:?}");
    // async-nats reports the server's -ERR 'Authorization Violation'.
    assert!(
        e.to_string()
            .starts_with("storage: the NATS server refused the credentials: "),
        "{e}"
    );
    assert!(e.to_string().contains("authorization violation"), "{e}");
    // The right user opens.
    JetStreamStore::open(&options(&with_user("js", "js"), &server.monitor, "A"))
        .unwrap_or_else(|e| panic!("{e}"));
}

#[test]
fn a_server_without_sync_always_is_refused_unless_told_otherwise() {
    let Some(program) = binary() else { return };
    // nats-server's default sync_interval is 2 minutes ("JetStream
    // configuration", sync_interval); 120000 ms as /varz reports it.
    let server = Server::with(&program, &jetstream("\"2m\""));
    let o = options(&server.url, &server.monitor, "S");
    let e = refused(&o);
    assert!(matches!(e, OpenError::SyncPolicy { .. }), "{e:?}");
    assert_eq!(
        e.to_string(),
        format!(
            "storage: {}: the server syncs to disk every 120000 ms, not always: an acknowledged batch can be lost on a power failure (set jetstream {{ sync_interval: always }}) (require_sync_always is true)",
            server.monitor
        )
    );
    let mut unseen = o.clone();
    unseen.monitor_urls.clear();
    assert!(
        refused(&unseen)
            .to_string()
            .contains("the servers' sync policy cannot be seen: no monitor_urls"),
    );
    let mut told = o;
    told.require_sync_always = false;
    let store = JetStreamStore::open(&told).unwrap_or_else(|e| panic!("{e}"));
    store
        .apply(&Batch {
            puts: vec![(1, b"one".to_vec())],
            ..Batch::default()
        })
        .expect("apply");
}

#[test]
fn an_incompatible_stream_is_named_with_each_setting() {
    let Some(program) = binary() else { return };
    let server = Server::start(&program);
    // A stream of that name kept for another purpose: every message, no
    // atomic batches.
    let rt = tokio::runtime::Runtime::new().expect("runtime");
    rt.block_on(async {
        let c = async_nats::connect(&server.url).await.expect("connect");
        let config = serde_json::json!({
            "name": "X_STORE", "subjects": ["X.store.>"], "storage": "file",
            "num_replicas": 1, "max_msgs_per_subject": -1,
        });
        let r = c
            .request("$JS.API.STREAM.CREATE.X_STORE", config.to_string().into())
            .await
            .expect("create");
        assert!(!String::from_utf8_lossy(&r.payload).contains("\"error\""));
    });
    let e = refused(&options(&server.url, &server.monitor, "X"));
    assert_eq!(
        e.to_string(),
        "storage: stream X_STORE exists with incompatible settings: max_msgs_per_subject is -1, needs 1; allow_atomic is false, needs true; allow_msg_ttl is false, needs true"
    );
}

#[test]
fn a_server_older_than_2_12_is_refused() {
    // Debian's nats-server (2.9.10 in bookworm) has no atomic batches;
    // .ci/run installs it for the Rendezvous bridge tests.
    let debian = std::path::Path::new("/usr/sbin/nats-server");
    if !debian.exists() {
        assert!(
            std::env::var_os("CI").is_none(),
            "/usr/sbin/nats-server is missing, and CI is set"
        );
        println!("SKIP: /usr/sbin/nats-server is missing");
        return;
    }
    let server = Server::with(debian, "jetstream { store_dir: {store} }");
    let e = refused(&options(&server.url, &server.monitor, "O"));
    assert!(matches!(e, OpenError::ServerTooOld { .. }), "{e:?}");
    assert!(e.to_string().starts_with("storage: nats-server 2."), "{e}");
    assert!(
        e.to_string().ends_with(
            "is too old: the JetStream store needs 2.12 or later (atomic batch publish)"
        ),
        "{e}"
    );
}

#[test]
fn a_second_gateway_on_one_prefix_is_refused_until_the_first_closes() {
    let Some(program) = binary() else { return };
    let server = Server::start(&program);
    let o = options(&server.url, &server.monitor, "L");
    let first = JetStreamStore::open(&o).unwrap_or_else(|e| panic!("{e}"));
    let e = refused(&o);
    assert!(matches!(e, OpenError::Locked { .. }), "{e:?}");
    let text = e.to_string();
    assert!(
        text.starts_with("storage: stream L_STORE is in use by another gateway ("),
        "{text}"
    );
    // The holder names its process.
    assert!(
        text.contains(&format!("\"pid\":{}", std::process::id())),
        "{text}"
    );
    first
        .apply(&Batch {
            puts: vec![(7, b"seven".to_vec())],
            ..Batch::default()
        })
        .expect("the holder still writes");
    drop(first);
    let second = JetStreamStore::open(&o).unwrap_or_else(|e| panic!("{e}"));
    assert_eq!(second.load().expect("load"), vec![(7, b"seven".to_vec())]);
}

/// Runs openssl with `args` in `dir`.
fn openssl(dir: &std::path::Path, args: &[&str]) {
    let out = std::process::Command::new("openssl")
        .args(args)
        .current_dir(dir)
        .output()
        .expect("run openssl");
    assert!(
        out.status.success(),
        "openssl {args:?}: {}",
        String::from_utf8_lossy(&out.stderr)
    );
}

/// A CA named `name` (`<name>.pem`, `<name>.key`) in `dir`.
fn ca(dir: &std::path::Path, name: &str) {
    let (pem, key, subj) = (
        format!("{name}.pem"),
        format!("{name}.key"),
        format!("/CN={name}"),
    );
    openssl(
        dir,
        &[
            "req",
            "-x509",
            "-newkey",
            "ec",
            "-pkeyopt",
            "ec_paramgen_curve:P-256",
            "-nodes",
            "-keyout",
            &key,
            "-out",
            &pem,
            "-days",
            "1",
            "-subj",
            &subj,
        ],
    );
}

#[test]
fn tls_with_the_servers_ca_opens_and_another_ca_is_refused() {
    let Some(program) = binary() else { return };
    if std::process::Command::new("openssl")
        .arg("version")
        .output()
        .is_err()
    {
        assert!(
            std::env::var_os("CI").is_none(),
            "openssl is missing, and CI is set"
        );
        println!("SKIP: openssl is missing");
        return;
    }
    let certs = tempfile::tempdir().expect("temporary directory");
    let d = certs.path();
    ca(d, "ca");
    ca(d, "other");
    // The server's certificate for 127.0.0.1 (RFC 5280 subjectAltName
    // iPAddress: rustls checks the address it connects to).
    std::fs::write(d.join("san.ext"), "subjectAltName=IP:127.0.0.1\n").expect("write");
    openssl(
        d,
        &[
            "req",
            "-newkey",
            "ec",
            "-pkeyopt",
            "ec_paramgen_curve:P-256",
            "-nodes",
            "-keyout",
            "server.key",
            "-out",
            "server.csr",
            "-subj",
            "/CN=127.0.0.1",
        ],
    );
    openssl(
        d,
        &[
            "x509",
            "-req",
            "-in",
            "server.csr",
            "-CA",
            "ca.pem",
            "-CAkey",
            "ca.key",
            "-CAcreateserial",
            "-out",
            "server.pem",
            "-days",
            "1",
            "-extfile",
            "san.ext",
        ],
    );
    let body = format!(
        "{}\ntls {{ cert_file: {:?}, key_file: {:?} }}",
        jetstream("always"),
        d.join("server.pem"),
        d.join("server.key")
    );
    let server = Server::with(&program, &body);
    let url = server.url.replace("nats://", "tls://");
    let mut o = options(&url, &server.monitor, "T");
    o.tls = Some(crate::store::nats_config::NatsTls {
        ca: Some(d.join("ca.pem")),
        cert: None,
        key: None,
    });
    let store = JetStreamStore::open(&o).unwrap_or_else(|e| panic!("{e}"));
    store
        .apply(&Batch {
            puts: vec![(1, b"over TLS".to_vec())],
            ..Batch::default()
        })
        .expect("apply over TLS");
    drop(store);
    o.tls = Some(crate::store::nats_config::NatsTls {
        ca: Some(d.join("other.pem")),
        cert: None,
        key: None,
    });
    let e = refused(&o);
    assert!(matches!(e, OpenError::Tls { .. }), "{e:?}");
    assert!(
        e.to_string()
            .starts_with("storage: TLS to the NATS server failed: "),
        "{e}"
    );
}

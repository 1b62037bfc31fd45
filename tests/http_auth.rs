//! HTTP authentication and authorities against the built binary
//! (docs/security.md). Statuses and headers come from RFC 6750 "The OAuth
//! 2.0 Authorization Framework: Bearer Token Usage" §3 (401 with
//! `WWW-Authenticate: Bearer`), the reason from IBM MQ "API reason codes"
//! (2035 MQRC_NOT_AUTHORIZED), the refusals from IBM MQ "setmqaut (grant or
//! revoke authority)" and "Generic profiles" as docs/security.md adopts them.

mod common;

use common::{BIN, Gateway};
use serde_json::Value;
use sha2::{Digest, Sha256};
use std::process::Command;

const APP: &str = "app1-secret-token";
const READER: &str = "reader-secret-token";
const DEV1: &str = "dev0001-secret-token";
const DEV2: &str = "dev0002-secret-token";
const FORWARDER: &str = "forwarder-secret-token";

fn sha(t: &str) -> String {
    hex::encode(Sha256::digest(t.as_bytes()))
}

/// app1 may put to APP.** and get APP.IN, address device queue managers;
/// reader may only browse APP.IN; two devices have tokens of their own.
fn config() -> String {
    format!(
        r#"
queue_manager:
  name: QMAUTH
queues:
  - {{ type: local, name: APP.IN }}
  - {{ type: local, name: OTHER.Q }}
devices:
  queue_managers: ["DEV*"]
security:
  tokens:
    - {{ principal: app1, sha256: "{}" }}
    - {{ principal: reader, sha256: "{}" }}
    - {{ principal: "device:DEV0001", sha256: "{}" }}
    - {{ principal: "device:DEV0002", sha256: "{}" }}
    - {{ principal: forwarder, sha256: "{}" }}
  authorities:
    - {{ principal: app1, profile: "APP.**", authorities: [put, get, browse] }}
    - {{ principal: app1, profile: "QMAUTH", type: qmgr, authorities: [inq] }}
    - {{ principal: app1, profile: "DEV*", type: rqmname, authorities: [put] }}
    - {{ principal: app1, profile: "**", authorities: [put] }}
    - {{ principal: reader, profile: "APP.IN", authorities: [browse] }}
    - {{ principal: forwarder, profile: "DEV*", type: rqmname, authorities: [put] }}
"#,
        sha(APP),
        sha(READER),
        sha(DEV1),
        sha(DEV2),
        sha(FORWARDER)
    )
}

fn start() -> (tempfile::TempDir, Gateway) {
    let dir = tempfile::tempdir().unwrap();
    let g = Gateway::start_with_token(dir.path(), &config(), APP);
    (dir, g)
}

/// `g` calling as the holder of `token` (`None`: no Authorization header).
fn call_as(
    g: &Gateway,
    token: Option<&str>,
    method: &str,
    path: &str,
    body: Option<&[u8]>,
) -> (u16, Value, Option<String>) {
    let mut req = ureq::request(method, &format!("{}{path}", g.base));
    if let Some(t) = token {
        req = req.set("Authorization", &format!("Bearer {t}"));
    }
    let res = match body {
        Some(b) => req
            .set("Content-Type", "application/octet-stream")
            .send_bytes(b),
        None => req.call(),
    };
    let r = match res {
        Ok(r) => r,
        Err(ureq::Error::Status(_, r)) => r,
        Err(e) => panic!("{method} {path}: {e}"),
    };
    let challenge = r.header("WWW-Authenticate").map(str::to_string);
    (r.status(), r.into_json().unwrap_or(Value::Null), challenge)
}

fn assert_2035(st: u16, v: &Value, status: u16) {
    // IBM MQ "API reason codes": 2035 MQRC_NOT_AUTHORIZED.
    assert_eq!(st, status, "{v}");
    assert_eq!(v["mqrc"], 2035, "{v}");
    assert_eq!(v["reason"], "MQRC_NOT_AUTHORIZED", "{v}");
}

/// curl's status code and body for `path` sent as written (`--path-as-is`:
/// no dot-segment removal, no re-encoding), with bearer `token`.
fn curl(g: &Gateway, token: &str, path: &str) -> (u16, String) {
    let out = Command::new("curl")
        .args(["-s", "--path-as-is", "-o", "-", "-w", "\n%{http_code}"])
        .arg("-H")
        .arg(format!("Authorization: Bearer {token}"))
        .arg(format!("{}{path}", g.base))
        .output()
        .expect("curl must be installed (CI has it)");
    let text = String::from_utf8_lossy(&out.stdout).into_owned();
    let (body, code) = text.rsplit_once('\n').unwrap();
    (code.trim().parse().unwrap(), body.to_string())
}

#[test]
fn a_request_without_a_known_bearer_token_is_401_with_2035() {
    let (_d, g) = start();
    // RFC 6750 §3: no credentials → 401 and a `Bearer` challenge without
    // an error code; an unknown token → error="invalid_token".
    let (st, v, ch) = call_as(&g, None, "GET", "/v1/queues/APP.IN/messages/next", None);
    assert_2035(st, &v, 401);
    assert_eq!(ch.as_deref(), Some("Bearer realm=\"mqgate\""));
    let (st, v, ch) = call_as(
        &g,
        Some("wrong-token"),
        "POST",
        "/v1/queues/APP.IN/messages",
        Some(b"x"),
    );
    assert_2035(st, &v, 401);
    assert_eq!(
        ch.as_deref(),
        Some("Bearer realm=\"mqgate\", error=\"invalid_token\"")
    );
    // Another scheme is no bearer token (RFC 6750 §2.1).
    let out = Command::new("curl")
        .args([
            "-s",
            "-o",
            "/dev/null",
            "-w",
            "%{http_code}",
            "-u",
            "app1:pw",
        ])
        .arg(format!("{}/v1/status", g.base))
        .output()
        .expect("curl must be installed (CI has it)");
    assert_eq!(String::from_utf8_lossy(&out.stdout), "401");
    // Every route needs it, /metrics included; the probes do not
    // (docs/security.md "Open routes").
    assert_eq!(call_as(&g, None, "GET", "/metrics", None).0, 401);
    assert_eq!(call_as(&g, Some(APP), "GET", "/metrics", None).0, 200);
    assert_eq!(call_as(&g, None, "GET", "/healthz", None).0, 200);
    assert_eq!(call_as(&g, None, "GET", "/readyz", None).0, 200);
    assert_eq!(g.depth("APP.IN"), 0, "the refused put stored nothing");
}

#[test]
fn authorities_allow_and_refuse_per_principal_and_profile() {
    let (_d, g) = start();
    // app1: +put +get on APP.** — put, browse as reader, get and ack.
    let (st, v) = g.put("APP.IN", "", b"hello");
    assert_eq!(st, 201, "{v}");
    let (st, v, _) = call_as(
        &g,
        Some(READER),
        "GET",
        "/v1/queues/APP.IN/messages/next?browse=true",
        None,
    );
    assert_eq!(st, 200, "{v}");
    assert_eq!(common::data(&v), b"hello");
    // reader holds +browse only: a destructive get and a put are 403.
    let (st, v, _) = call_as(
        &g,
        Some(READER),
        "GET",
        "/v1/queues/APP.IN/messages/next",
        None,
    );
    assert_2035(st, &v, 403);
    assert_eq!(
        v["message"],
        "principal \"reader\" has no +get authority on queue \"APP.IN\""
    );
    let (st, v, _) = call_as(
        &g,
        Some(READER),
        "POST",
        "/v1/queues/APP.IN/messages",
        Some(b"x"),
    );
    assert_2035(st, &v, 403);
    // app1's most specific profile for OTHER.Q is `**` (+put only).
    assert_eq!(g.put("OTHER.Q", "", b"o").0, 201);
    let (st, v) = g.next("OTHER.Q", "");
    assert_2035(st, &v, 403);
    // Queue list and status need +inq on the queue manager.
    assert_eq!(g.call("GET", "/v1/queues", None).0, 200);
    let (st, v, _) = call_as(&g, Some(READER), "GET", "/v1/status", None);
    assert_2035(st, &v, 403);
    // A list put is checked per destination: nothing is put when one is
    // refused.
    let (st, v, _) = {
        let r = ureq::post(&format!("{}/v1/messages", g.base))
            .set("Authorization", &format!("Bearer {READER}"))
            .set("Content-Type", "application/json")
            .send_string(r#"{"destinations":[{"queue":"APP.IN"}],"data":"x"}"#);
        let r = match r {
            Ok(r) => r,
            Err(ureq::Error::Status(_, r)) => r,
            Err(e) => panic!("{e}"),
        };
        (r.status(), r.into_json::<Value>().unwrap(), ())
    };
    assert_2035(st, &v, 403);
    let (st, v) = g.get_ack("APP.IN", "");
    assert_eq!(st, 200, "{v}");
    assert_eq!(common::data(&v), b"hello");
    assert_eq!(g.depth("APP.IN"), 0);
}

/// A put addressed to another queue manager is checked on that queue
/// manager alone (`type: rqmname`), never on the queue's name there; a put
/// to this queue manager's queue on the queue (IBM MQ "Authorizations for
/// MQI calls": MQOPEN of a remote queue).
#[test]
fn a_put_to_another_queue_manager_needs_rqmname_put_only() {
    let (_d, g) = start();
    let put = |path: &str| call_as(&g, Some(FORWARDER), "POST", path, Some(b"f"));
    // forwarder holds +put on rqmname DEV* and nothing on any queue.
    let (st, v, _) = put("/v1/queues/INBOX/messages?q_mgr=DEV0002");
    assert_eq!(st, 201, "{v}");
    let (st, v, _) = put("/v1/queues/INBOX/messages?q_mgr=OTHERQM");
    assert_2035(st, &v, 403);
    assert_eq!(
        v["message"],
        "principal \"forwarder\" has no +put authority on remote queue manager \"OTHERQM\""
    );
    // This queue manager's own queue, by its name or with none: +put on it.
    for path in [
        "/v1/queues/APP.IN/messages?q_mgr=QMAUTH",
        "/v1/queues/APP.IN/messages",
    ] {
        let (st, v, _) = put(path);
        assert_2035(st, &v, 403);
    }
    // The device got exactly the one message.
    let (st, v, _) = call_as(
        &g,
        Some(DEV2),
        "GET",
        "/v1/devices/DEV0002/queues/INBOX/messages/next",
        None,
    );
    assert_eq!(st, 200, "{v}");
    assert_eq!(common::data(&v), b"f");
}

#[test]
fn a_device_cannot_read_another_devices_queue_by_any_name() {
    let (_d, g) = start();
    assert_eq!(g.put("ORDERS", "q_mgr=DEV0001", b"for-1").0, 201);
    assert_eq!(g.put("ORDERS", "q_mgr=DEV0002", b"for-2").0, 201);
    // Every way of naming DEV0002's queue ORDERS (local name
    // `DEV0002/ORDERS`) as DEV0001: the device route with another device,
    // another case, `/` and `..` percent-encoded in either segment, double
    // encoding, and the queue route with the local name. curl sends each
    // path exactly as written.
    let tricks = [
        ("/v1/devices/DEV0002/queues/ORDERS/messages/next", 403),
        ("/v1/devices/dev0002/queues/ORDERS/messages/next", 403),
        (
            "/v1/devices/DEV0001/queues/..%2FDEV0002%2FORDERS/messages/next",
            403,
        ),
        (
            "/v1/devices/DEV0001/queues/%2E%2E%2FDEV0002%2FORDERS/messages/next",
            403,
        ),
        (
            "/v1/devices/DEV0001%2F..%2FDEV0002/queues/ORDERS/messages/next",
            403,
        ),
        (
            "/v1/devices/DEV0001%2FDEV0002/queues/ORDERS/messages/next",
            403,
        ),
        (
            "/v1/devices/DEV0001/queues/%2E%2E/%2E%2E/DEV0002/queues/ORDERS/messages/next",
            404,
        ),
        (
            "/v1/devices/DEV0001/../DEV0002/queues/ORDERS/messages/next",
            404,
        ),
        (
            "/v1/devices/DEV0001/queues/ORDERS%2F..%2F..%2FDEV0002%2FORDERS/messages/next",
            403,
        ),
        (
            "/v1/devices/DEV0001/queues/ORDERS/../../DEV0002/queues/ORDERS/messages/next",
            404,
        ),
        ("/v1/queues/DEV0002%2FORDERS/messages/next", 403),
        ("/v1/queues/DEV0002%2forders/messages/next", 403),
        ("/v1/queues/DEV0002%2FORDERS/messages/next?browse=true", 403),
        (
            "/v1/queues/DEV0001%2F..%2FDEV0002%2FORDERS/messages/next",
            403,
        ),
        ("/v1/queues/DEV0002%252FORDERS/messages/next", 403),
    ];
    for (path, want) in tricks {
        let (code, body) = curl(&g, DEV1, path);
        assert_eq!(code, want, "{path}: {body}");
        assert!(
            !body.contains("for-2") && !body.contains("Zm9yLTI"),
            "{path}: {body}"
        );
        if want == 403 {
            let v: Value = serde_json::from_str(&body).unwrap();
            assert_2035(code, &v, 403);
        }
    }
    // Nor may a device put, or read a gateway queue.
    let (st, v, _) = call_as(
        &g,
        Some(DEV1),
        "GET",
        "/v1/queues/APP.IN/messages/next",
        None,
    );
    assert_2035(st, &v, 403);
    // Its own queue it reads.
    let (code, body) = curl(
        &g,
        DEV1,
        "/v1/devices/DEV0001/queues/ORDERS/messages/next?wait_ms=0",
    );
    assert_eq!(code, 200, "{body}");
    let v: Value = serde_json::from_str(&body).unwrap();
    assert_eq!(common::data(&v), b"for-1");
    // DEV0002's message is still there for DEV0002.
    let (code, body) = curl(
        &g,
        DEV2,
        "/v1/devices/DEV0002/queues/ORDERS/messages/next?wait_ms=0",
    );
    assert_eq!(code, 200, "{body}");
    let v: Value = serde_json::from_str(&body).unwrap();
    assert_eq!(common::data(&v), b"for-2");
}

fn write_config(dir: &std::path::Path, security: &str) -> std::path::PathBuf {
    let f = dir.join("gateway.yaml");
    std::fs::write(&f, format!("queue_manager:\n  name: QMBIND\n{security}")).unwrap();
    f
}

fn run_on_every_address(dir: &std::path::Path, config: &std::path::Path) -> std::process::Child {
    Command::new(BIN)
        .arg("run")
        .arg("--config")
        .arg(config)
        .arg("--data-dir")
        .arg(dir.join("data"))
        .args([
            "--http",
            "0.0.0.0:0",
            "--listen",
            "127.0.0.1:0",
            "--mqtt",
            "127.0.0.1:0",
        ])
        .stdout(std::process::Stdio::null())
        .stderr(std::process::Stdio::piped())
        .spawn()
        .unwrap()
}

#[test]
fn a_non_loopback_listener_needs_tokens_or_insecure() {
    let dir = tempfile::tempdir().unwrap();
    let f = write_config(dir.path(), "");
    // docs/security.md "Defaults": refused at start, exit status 2 (a
    // configuration error, as docs/operations.md gives for `run`).
    let out = run_on_every_address(dir.path(), &f)
        .wait_with_output()
        .unwrap();
    assert_eq!(out.status.code(), Some(2));
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(
        err.contains("http.listen 0.0.0.0:0 is not a loopback address and no HTTP authentication is configured"),
        "{err}"
    );
    // With `insecure: true` it starts, and warns.
    let f = write_config(dir.path(), "security:\n  insecure: true\n");
    let mut child = run_on_every_address(dir.path(), &f);
    let mut stderr = child.stderr.take().unwrap();
    let reader = std::thread::spawn(move || {
        use std::io::Read;
        let mut text = String::new();
        let mut buf = [0u8; 4096];
        while let Ok(n) = stderr.read(&mut buf) {
            if n == 0 {
                break;
            }
            text.push_str(&String::from_utf8_lossy(&buf[..n]));
            if text.contains("mqgate running") {
                break;
            }
        }
        text
    });
    let text = reader.join().unwrap();
    let _ = child.kill();
    let _ = child.wait();
    assert!(text.contains("mqgate running"), "{text}");
    assert!(text.contains("security.insecure is true"), "{text}");
}

/// `mqgate run` with `addresses` (flags and values) and `config`.
fn run_with(
    dir: &std::path::Path,
    config: &std::path::Path,
    addresses: &[&str],
) -> std::process::Child {
    Command::new(BIN)
        .arg("run")
        .arg("--config")
        .arg(config)
        .arg("--data-dir")
        .arg(dir.join("data"))
        .args(addresses)
        .stdout(std::process::Stdio::null())
        .stderr(std::process::Stdio::piped())
        .spawn()
        .unwrap()
}

/// Reads `child`'s stderr until `mqgate running` or its end, then stops it.
fn stderr_until_running(mut child: std::process::Child) -> String {
    use std::io::Read;
    let mut stderr = child.stderr.take().unwrap();
    let mut text = String::new();
    let mut buf = [0u8; 4096];
    while let Ok(n) = stderr.read(&mut buf) {
        if n == 0 || {
            text.push_str(&String::from_utf8_lossy(&buf[..n]));
            text.contains("mqgate running")
        } {
            break;
        }
    }
    let _ = child.kill();
    let _ = child.wait();
    text
}

/// docs/security.md "Defaults": the message channel and MQTT listeners on
/// every address, with nothing that authenticates a peer, refuse the start
/// (exit 2) naming each; a channel authentication rule authenticates the
/// channel listener.
#[test]
fn other_non_loopback_listeners_need_authentication_or_insecure() {
    let dir = tempfile::tempdir().unwrap();
    let f = write_config(dir.path(), "");
    let every = [
        "--http",
        "127.0.0.1:0",
        "--listen",
        "0.0.0.0:0",
        "--mqtt",
        "0.0.0.0:0",
    ];
    let out = run_with(dir.path(), &f, &every).wait_with_output().unwrap();
    assert_eq!(out.status.code(), Some(2));
    let err = String::from_utf8_lossy(&out.stderr);
    for want in [
        "listener.listen 0.0.0.0:0 is not a loopback address and authenticates nobody",
        "mqtt.listen 0.0.0.0:0 is not a loopback address and authenticates nobody",
        "security.insecure: true",
    ] {
        assert!(err.contains(want), "{want}: {err}");
    }
    // A chlauth rule authenticates the channel listener; MQTT on loopback.
    let f = write_config(
        dir.path(),
        "security:\n  chlauth:\n    - { channel: \"*\", address: \"10.0.0.0/8\", action: block }\n",
    );
    let text = stderr_until_running(run_with(
        dir.path(),
        &f,
        &[
            "--http",
            "127.0.0.1:0",
            "--listen",
            "0.0.0.0:0",
            "--mqtt",
            "127.0.0.1:0",
        ],
    ));
    assert!(text.contains("mqgate running"), "{text}");
    // With `insecure: true` all of them start, each warned about.
    let f = write_config(dir.path(), "security:\n  insecure: true\n");
    let text = stderr_until_running(run_with(dir.path(), &f, &every));
    assert!(text.contains("mqgate running"), "{text}");
    assert!(
        text.contains("mqtt.listen 0.0.0.0:0 is not a loopback address and authenticates nobody: add mqtt.password_file, security.tokens (authorities) or mqtt.tls client_auth: required; security.insecure is true: starting anyway"),
        "{text}"
    );
}

#[test]
fn a_gateway_without_tokens_says_it_listens_on_loopback_only() {
    let dir = tempfile::tempdir().unwrap();
    let g = Gateway::start(dir.path(), "queue_manager:\n  name: QMLOOP\n");
    let log = std::fs::read_to_string(g.log_path()).unwrap();
    assert!(
        log.contains("the HTTP API listens on loopback only"),
        "{log}"
    );
    // Without security every route answers without a token, as before.
    assert_eq!(g.call("GET", "/v1/status", None).0, 200);
}

#[test]
fn check_config_places_security_errors() {
    let dir = tempfile::tempdir().unwrap();
    let f = dir.path().join("bad.yaml");
    std::fs::write(
        &f,
        "security:\n  tokens:\n    - { principal: app1, sha256: \"00\" }\n  authorities:\n    - principal: app1\n      profile: \"A.**.**\"\n      authorities: [pet]\n",
    )
    .unwrap();
    let out = Command::new(BIN)
        .arg("check-config")
        .arg(&f)
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(1));
    let err = String::from_utf8_lossy(&out.stderr);
    let name = f.display();
    // Lines and columns of the settings in the file above.
    for want in [
        format!("{name}:3:"),
        "security.tokens[0].sha256: a SHA-256 digest is 64 hex digits, not 2 characters"
            .to_string(),
        format!("{name}:6:"),
        "security.authorities[0].profile: `**` may appear only once in a profile".to_string(),
        "security.authorities[0].authorities[0]: unknown authority \"pet\"".to_string(),
    ] {
        assert!(err.contains(&want), "{want}\n{err}");
    }
}

#[test]
fn cli_commands_send_the_token() {
    let (_d, g) = start();
    // `mqgate put --token`, then `mqgate get` with MQGATE_TOKEN.
    let mut put = Command::new(BIN)
        .args([
            "put",
            "--queue",
            "APP.IN",
            "--gateway",
            &g.base,
            "--token",
            APP,
        ])
        .stdin(std::process::Stdio::piped())
        .spawn()
        .unwrap();
    common::feed_stdin(put.stdin.take(), b"via-cli");
    assert!(put.wait().unwrap().success());
    let out = Command::new(BIN)
        .args(["get", "--queue", "APP.IN", "--gateway", &g.base])
        .env("MQGATE_TOKEN", APP)
        .output()
        .unwrap();
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    assert!(String::from_utf8_lossy(&out.stdout).contains("via-cli"));
    // Without a token the gateway's 2035 is the error (exit status 1).
    let out = Command::new(BIN)
        .args(["get", "--queue", "APP.IN", "--gateway", &g.base])
        .env_remove("MQGATE_TOKEN")
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(1));
    assert!(String::from_utf8_lossy(&out.stderr).contains("2035"));
}

//! TLS on the other listeners and outbound connections (docs/security.md
//! "TLS"): MQ clients on the SVRCONN listener (mqgate's own MQ client and an
//! mq-client channel), devices on the MQTT listener (`mosquitto_pub
//! --cafile`), and Rendezvous routing links. Certificates are made with the
//! `openssl` command (tests/common/pki.rs).
//!
//! Expected values: 2035 MQRC_NOT_AUTHORIZED for a certificate an SSLPEER
//! filter refuses (IBM MQ "SSLPEER (SSL Peer)", "API reason codes"); the
//! bodies are the ones each test sends.

mod common;

use common::call;
use common::pki::{Pki, run};
use mqgate::config::Config;
use mqgate::gateway::{Gateway, Handle};
use mqgate::mqclient::{ConnectOptions, connect};
use mqgate::security::tls::{ClientTls, SslPeer, TlsClient, TlsConfig, TlsEndpoints};
use mqgate_codecs::fap::object::oo;
use std::path::{Path, PathBuf};
use std::time::{Duration, Instant};

/// A gateway named `qm` with every listener on port 0 and `more` YAML.
async fn start(dir: &Path, qm: &str, more: &str) -> Handle {
    start_with_mqtt(dir, qm, "", more).await
}

/// [`start`] with `mqtt_more` in the `mqtt:` section.
async fn start_with_mqtt(dir: &Path, qm: &str, mqtt_more: &str, more: &str) -> Handle {
    let text = format!(
        "queue_manager:
  name: {qm}
http:
  listen: 127.0.0.1:0
listener:
  listen: 127.0.0.1:0
mqtt:
  listen: 127.0.0.1:0
{mqtt_more}{more}"
    );
    let mut c = Config::from_yaml(&text, "test.yaml").unwrap_or_else(|e| panic!("{e}\n{text}"));
    c.storage.data_dir = dir.join(format!("data-{qm}"));
    Gateway::start(c).await.unwrap()
}

/// The next message of queue `q` on `h` within 20 s: its data.
async fn next_data(h: &Handle, q: &str) -> Vec<u8> {
    let deadline = Instant::now() + Duration::from_secs(20);
    loop {
        let (st, v) = call(
            "GET",
            format!("http://{}/v1/queues/{q}/messages/next", h.http_addr()),
            None,
        )
        .await;
        if st == 200 {
            use base64::Engine;
            return base64::engine::general_purpose::STANDARD
                .decode(v["data_base64"].as_str().unwrap())
                .unwrap();
        }
        assert!(Instant::now() < deadline, "nothing on {q}: {st} {v}");
        tokio::time::sleep(Duration::from_millis(100)).await;
    }
}

/// A TLS client trusting `ca`, with the client certificate `cert`/`key`
/// when given, checking the server against `sslpeer`.
fn client_tls(ca: &str, cert: Option<(&str, &str)>, sslpeer: Option<&str>) -> ClientTls {
    let config = TlsConfig {
        ca: Some(PathBuf::from(ca)),
        cert: cert.map(|(c, _)| PathBuf::from(c)),
        key: cert.map(|(_, k)| PathBuf::from(k)),
        ..TlsConfig::default()
    };
    ClientTls {
        client: TlsClient::new("test", &config, &TlsEndpoints::default()).unwrap(),
        sslpeer: sslpeer.map(|s| SslPeer::parse(s).unwrap()),
    }
}

fn options(port: u16, channel: &str, tls: Option<ClientTls>) -> ConnectOptions {
    ConnectOptions {
        host: "127.0.0.1".into(),
        port,
        channel: channel.into(),
        q_mgr_name: String::new(),
        user: "mqgate".into(),
        password: None,
        heartbeat_s: 30,
        max_msg_size: 4 << 20,
        timeout: Duration::from_secs(10),
        appl_name: "tls test".into(),
        tls,
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn mq_clients_over_tls_and_an_mq_client_channel() {
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    let pki = Pki::new(d);
    let (server, server_key) = pki.leaf("qma", "/O=Example/CN=qma", "ca", 300, 30);
    let (app1, app1_key) = pki.leaf("app1", "/O=Example/CN=app1", "ca", 301, 30);
    let (app2, app2_key) = pki.leaf("app2", "/O=Example/CN=app2", "ca", 302, 30);
    let ca = pki.path("ca.pem");
    let a = start(
        d,
        "QMA",
        &format!(
            "svrconn:
  listen: 127.0.0.1:0
  tls: {{cert: {server}, key: {server_key}, ca: {ca}, client_auth: optional}}
  channels:
    - name: APP.SVRCONN
      sslpeer: 'CN=app1'
queues:
  - {{type: local, name: APP.Q}}
  - {{type: local, name: GWB, usage: xmitq}}
"
        ),
    )
    .await;
    let port = a.svrconn_addr().unwrap().port();
    let (st, v) = call(
        "POST",
        format!("http://{}/v1/queues/APP.Q/messages", a.http_addr()),
        Some(b"to an MQ client"),
    )
    .await;
    assert_eq!(st, 201, "{v}");

    // app1's certificate passes SSLPEER CN=app1, and the queue manager's
    // passes the client's CN=qma.
    let tls = client_tls(&ca, Some((&app1, &app1_key)), Some("CN=qma,O=Example"));
    let mut s = connect(&options(port, "APP.SVRCONN", Some(tls)))
        .await
        .unwrap();
    let h = s.open("APP.Q", oo::INPUT_SHARED).await.unwrap();
    let m = s.get(h, 1000, 1 << 20).await.unwrap().unwrap();
    assert_eq!(&m.data[..], b"to an MQ client");
    s.commit().await.unwrap();
    s.disconnect().await.unwrap();

    // app2 does not pass the channel's SSLPEER: refused with 2035.
    let tls = client_tls(&ca, Some((&app2, &app2_key)), None);
    let e = connect(&options(port, "APP.SVRCONN", Some(tls)))
        .await
        .err()
        .expect("app2 refused");
    assert_eq!(e.mqrc().0, 2035, "{e}");
    // No client certificate at all: refused the same way.
    let tls = client_tls(&ca, None, None);
    let e = connect(&options(port, "APP.SVRCONN", Some(tls)))
        .await
        .err()
        .expect("no certificate refused");
    assert_eq!(e.mqrc().0, 2035, "{e}");
    // The client's own SSLPEER refuses the queue manager's certificate.
    let tls = client_tls(&ca, Some((&app1, &app1_key)), Some("CN=qmb"));
    let e = connect(&options(port, "APP.SVRCONN", Some(tls)))
        .await
        .err()
        .expect("server refused");
    assert_eq!(e.mqrc().0, 2035, "{e}");
    assert_eq!(
        e.to_string(),
        format!(
            "the certificate subject DN \"CN=qma,O=Example\" of 127.0.0.1:{port} does not match SSLPEER \"CN=qmb\" (2035 MQRC_NOT_AUTHORIZED)"
        )
    );
    // Plain TCP to the TLS listener gets no MQ answer.
    assert!(
        connect(&options(port, "APP.SVRCONN", None)).await.is_err(),
        "a plain client was served"
    );

    // An mq-client channel of gateway GWB pulls A's transmission queue GWB
    // over TLS with app1's certificate.
    let (st, v) = call(
        "POST",
        format!(
            "http://{}/v1/queues/APP.IN/messages?q_mgr=GWB&persistent=true",
            a.http_addr()
        ),
        Some(b"pulled over tls"),
    )
    .await;
    assert_eq!(st, 201, "{v}");
    let b = start(
        d,
        "GWB",
        &format!(
            "queues:
  - {{type: local, name: APP.IN}}
channels:
  - type: mq-client
    name: FROM.QMA
    host: 127.0.0.1
    port: {port}
    channel: APP.SVRCONN
    xmit_queue: GWB
    wait_ms: 200
    reconnect: {{first_ms: 50, max_ms: 400}}
    tls: {{ca: {ca}, cert: {app1}, key: {app1_key}}}
    sslpeer: 'CN=qma'
"
        ),
    )
    .await;
    assert_eq!(next_data(&b, "APP.IN").await, b"pulled over tls");
    b.stop(Duration::from_secs(5)).await;
    a.stop(Duration::from_secs(5)).await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn mosquitto_pub_over_tls() {
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    let pki = Pki::new(d);
    let (server, server_key) = pki.leaf("mqtt", "/O=Example/CN=mqtt", "ca", 400, 30);
    let ca = pki.path("ca.pem");
    let h = start_with_mqtt(
        d,
        "QMMQTT",
        &format!("  tls: {{cert: {server}, key: {server_key}}}\n"),
        "queues:\n  - {type: local, name: APP.IN}\n",
    )
    .await;
    let port = h.mqtt_addr().port().to_string();
    let ca2 = ca.clone();
    let dir2 = d.to_path_buf();
    let out = tokio::task::spawn_blocking(move || {
        run(
            &dir2,
            "mosquitto_pub",
            &[
                "-h",
                "127.0.0.1",
                "-p",
                &port,
                "--cafile",
                &ca2,
                "-i",
                "DEV0001",
                "-t",
                "APP.IN",
                "-q",
                "1",
                "-m",
                "over mqtts",
            ],
        )
    })
    .await
    .unwrap();
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    assert_eq!(next_data(&h, "APP.IN").await, b"over mqtts");
    // Without TLS the client gets no CONNACK.
    let port = h.mqtt_addr().port().to_string();
    let dir2 = d.to_path_buf();
    let out = tokio::task::spawn_blocking(move || {
        run(
            &dir2,
            "mosquitto_pub",
            &[
                "-h",
                "127.0.0.1",
                "-p",
                &port,
                "-i",
                "DEV0001",
                "-t",
                "APP.IN",
                "-m",
                "plain",
            ],
        )
    })
    .await
    .unwrap();
    assert!(!out.status.success(), "a plain MQTT client was served");
    h.stop(Duration::from_secs(5)).await;
}

/// The routing status of `h`'s neighbor `name`: its state.
async fn neighbor_state(h: &Handle, name: &str) -> String {
    let s = h.rv_routing().unwrap().status().await.unwrap();
    s["neighbors"]
        .as_array()
        .and_then(|n| n.iter().find(|x| x["name"] == name))
        .map(|x| x["state"].as_str().unwrap_or_default().to_string())
        .unwrap_or_default()
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn routing_links_over_tls_with_sslpeer() {
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    let pki = Pki::new(d);
    let (ra, ra_key) = pki.leaf("ra", "/O=Example/CN=router-a", "ca", 500, 30);
    let (rb, rb_key) = pki.leaf("rb", "/O=Example/CN=router-b", "ca", 501, 30);
    let (rx, rx_key) = pki.leaf("rx", "/O=Example/CN=router-x", "ca", 502, 30);
    let ca = pki.path("ca.pem");
    let routing = |name: &str, more: &str| {
        format!(
            "rv:\n  routing:\n    router: {name}\n    listen: 127.0.0.1:0\n    heartbeat_ms: 500\n    reconnect_min_ms: 50\n    reconnect_max_ms: 400\n{more}"
        )
    };
    let a = start(
        d,
        "A",
        &routing(
            "A",
            &format!(
                "    tls: {{cert: {ra}, key: {ra_key}, ca: {ca}, client_auth: required}}\n    neighbors: [{{name: B, sslpeer: 'CN=router-b'}}, {{name: C, sslpeer: 'CN=router-c'}}]\n"
            ),
        ),
    )
    .await;
    let at = a.rv_routing().unwrap().listen_addr().unwrap();
    let b = start(
        d,
        "B",
        &routing(
            "B",
            &format!(
                "    neighbors: [{{name: A, connect: '{at}', sslpeer: 'CN=router-a', tls: {{ca: {ca}, cert: {rb}, key: {rb_key}}}}}]\n"
            ),
        ),
    )
    .await;
    // C presents router-x's certificate: A's SSLPEER for C refuses it.
    let c = start(
        d,
        "C",
        &routing(
            "C",
            &format!(
                "    neighbors: [{{name: A, connect: '{at}', tls: {{ca: {ca}, cert: {rx}, key: {rx_key}}}}}]\n"
            ),
        ),
    )
    .await;
    let deadline = Instant::now() + Duration::from_secs(10);
    while neighbor_state(&a, "B").await != "up" {
        assert!(
            Instant::now() < deadline,
            "the TLS link A-B did not come up"
        );
        tokio::time::sleep(Duration::from_millis(50)).await;
    }
    assert_eq!(neighbor_state(&b, "A").await, "up");
    // C has dialled for over a second by now, and is refused every time.
    tokio::time::sleep(Duration::from_millis(1000)).await;
    assert_ne!(neighbor_state(&a, "C").await, "up");
    assert_ne!(neighbor_state(&c, "A").await, "up");
    c.stop(Duration::from_secs(5)).await;
    b.stop(Duration::from_secs(5)).await;
    a.stop(Duration::from_secs(5)).await;
}

/// mosquitto_pub in `dir` with `args`: (exit success, stderr and stdout).
async fn mosquitto_pub(dir: &Path, args: Vec<String>) -> (bool, String) {
    let dir = dir.to_path_buf();
    let out = tokio::task::spawn_blocking(move || {
        let args: Vec<&str> = args.iter().map(String::as_str).collect();
        run(&dir, "mosquitto_pub", &args)
    })
    .await
    .unwrap();
    (
        out.status.success(),
        format!(
            "{}{}",
            String::from_utf8_lossy(&out.stderr),
            String::from_utf8_lossy(&out.stdout)
        ),
    )
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn mqtt_client_certificates_prove_the_device() {
    // docs/security.md "MQTT devices": with mqtt.tls client_auth, a
    // certificate that security.certificates maps to `device:X` proves
    // client identifier X; any other client identifier, or a certificate
    // mapped to a principal that is no device, is refused with CONNACK
    // 0x87 Not authorized (MQTT 5.0 3.2.2.2) or return code 0x05 (MQTT
    // 3.1.1 3.2.2.3), which mosquitto_pub reports as "not authorised" /
    // "Not authorized".
    use sha2::{Digest, Sha256};
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    let pki = Pki::new(d);
    let (server, server_key) = pki.leaf("mqtt", "/O=Example/CN=mqtt", "ca", 500, 30);
    let (dev, dev_key) = pki.leaf("dev1", "/O=Example/CN=DEV0001", "ca", 501, 30);
    let (app, app_key) = pki.leaf("app1", "/O=Example/CN=app1", "ca", 502, 30);
    let ca = pki.path("ca.pem");
    let h = start_with_mqtt(
        d,
        "QMCERT",
        &format!("  tls: {{cert: {server}, key: {server_key}, ca: {ca}, client_auth: optional}}\n"),
        &format!(
            r#"queues:
  - {{type: local, name: APP.IN}}
security:
  tokens:
    - {{ principal: admin, sha256: "{}" }}
  certificates:
    - {{ dn: "CN=DEV0001,O=Example", principal: "device:DEV0001" }}
    - {{ dn: "CN=app1,O=Example", principal: app1 }}
  authorities:
    - {{ principal: admin, profile: "**", authorities: [all] }}
    - {{ principal: "device:DEV0001", profile: APP.IN, authorities: [put] }}
    - {{ principal: app1, profile: APP.IN, authorities: [put] }}
"#,
            hex::encode(Sha256::digest(b"admin-token"))
        ),
    )
    .await;
    let port = h.mqtt_addr().port().to_string();
    let publish = |version: &str, id: &str, cert: Option<(&str, &str)>, body: &str| {
        let mut a: Vec<String> = [
            "-h",
            "127.0.0.1",
            "-p",
            &port,
            "--cafile",
            &ca,
            "-V",
            version,
            "-i",
            id,
            "-t",
            "APP.IN",
            "-q",
            "1",
            "-m",
            body,
        ]
        .iter()
        .map(|s| s.to_string())
        .collect();
        if let Some((c, k)) = cert {
            a.extend(["--cert", c, "--key", k].map(String::from));
        }
        mosquitto_pub(d, a)
    };
    let (ok, text) = publish("mqttv5", "DEV0001", Some((&dev, &dev_key)), "certified").await;
    assert!(ok, "{text}");
    let (ok, text) = publish(
        "mqttv311",
        "DEV0001",
        Some((&dev, &dev_key)),
        "certified 3.1.1",
    )
    .await;
    assert!(ok, "{text}");
    // The certificate is DEV0001's: another client identifier is refused.
    let (ok, text) = publish("mqttv5", "DEV0002", Some((&dev, &dev_key)), "x").await;
    assert!(!ok && text.contains("Not authorized"), "{text}");
    let (ok, text) = publish("mqttv311", "DEV0002", Some((&dev, &dev_key)), "x").await;
    assert!(!ok && text.contains("not authorised"), "{text}");
    // A certificate mapped to a principal that is no device.
    let (ok, text) = publish("mqttv5", "DEV0001", Some((&app, &app_key)), "x").await;
    assert!(!ok && text.contains("Not authorized"), "{text}");
    // No certificate and no password file: nothing proves DEV0001.
    let (ok, text) = publish("mqttv311", "DEV0001", None, "x").await;
    assert!(!ok && text.contains("not authorised"), "{text}");
    // Exactly the two certified messages arrived.
    let base = format!("http://{}", h.http_addr());
    let got = tokio::task::spawn_blocking(move || {
        let mut got = Vec::new();
        loop {
            let r = ureq::get(&format!("{base}/v1/queues/APP.IN/messages/next?wait_ms=0"))
                .set("Authorization", "Bearer admin-token")
                .call();
            match r {
                Ok(r) => {
                    use base64::Engine;
                    let v: serde_json::Value = r.into_json().unwrap();
                    let data = base64::engine::general_purpose::STANDARD
                        .decode(v["data_base64"].as_str().unwrap())
                        .unwrap();
                    got.push(String::from_utf8(data).unwrap());
                }
                Err(ureq::Error::Status(404, _)) => return got,
                Err(e) => panic!("{e}"),
            }
        }
    })
    .await
    .unwrap();
    assert_eq!(got, ["certified", "certified 3.1.1"]);
    h.stop(Duration::from_secs(5)).await;
}

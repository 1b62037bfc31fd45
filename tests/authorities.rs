//! Authorities on the front ends other than the HTTP API's queue routes
//! (docs/security.md "Principals of each front end"), against the built
//! binary: a receiver channel puts as `channel:NAME`, an MQ client as its
//! user id (or the principal a channel authentication rule maps), an MQTT
//! device as `device:CLIENTID`. Reason 2035 MQRC_NOT_AUTHORIZED is IBM MQ's
//! ("API reason codes"; "Authorizations for MQI calls" for which authority
//! MQOPEN asks); MQTT codes are those of OASIS MQTT Version 5.0 (3.2.2.2
//! CONNACK 0x87, 3.4.2.1 PUBACK 0x87, 3.9.3 SUBACK 0x87) and 3.1.1 (3.2.2.3
//! Table 3.1: return code 0x05 not authorized).

mod common;
#[path = "sbs_util/mod.rs"]
mod sbs_util;
mod svrconn_client;

use common::{BIN, Gateway, data, xmit};
use mqgate::mqtt::client::{Client as MqttClient, Options};
use mqgate_codecs::mq::ByteOrder;
use mqgate_codecs::mq::constants::pmo;
use mqgate_codecs::mq::dlh::parse_dlh;
use mqgate_codecs::mqtt::{Level, Packet, QoS, ReasonCode};
use sha2::{Digest, Sha256};
use std::net::SocketAddr;
use std::process::Command;
use svrconn_client::{Client, md, open_options as oo};

const ADMIN: &str = "admin-secret-token";

/// mosquitto_passwd's line for DEV0001 with password `secret`
/// (PBKDF2-HMAC-SHA512, 101 iterations; the same line tests/mqtt.rs uses).
const PASSWORD_FILE: &str = "DEV0001:$7$101$zwZVRvE/uLehT0A+$ogOhyoGIb/tCIlSlz9GiHld1HiwpO8PU3KAj/4klZLZt5BE32pwN9bb84qlZ4Xh+efatGuRGISVQc+6HP29KFA==\n";

fn config(mqtt: &str) -> String {
    format!(
        r#"
queue_manager:
  name: QMAUTH
queues:
  - {{ type: local, name: APP.OK }}
  - {{ type: local, name: APP.NO }}
  - {{ type: local, name: APP.OTHER }}
channels:
  - {{ type: receiver, name: TO.QMAUTH }}
svrconn:
  listen: 127.0.0.1:0
  channels:
    - name: APP.SVRCONN
    - name: MAPPED.SVRCONN
{mqtt}
security:
  tokens:
    - {{ principal: admin, sha256: "{}" }}
  chlauth:
    - {{ channel: MAPPED.SVRCONN, action: allow, mcauser: mapped }}
  authorities:
    - {{ principal: admin, profile: "**", authorities: [all] }}
    - {{ principal: admin, profile: QMAUTH, type: qmgr, authorities: [all] }}
    - {{ principal: admin, profile: "DEV*", type: rqmname, authorities: [put] }}
    - {{ principal: "channel:TO.QMAUTH", profile: APP.OK, authorities: [put, setall] }}
    - {{ principal: "channel:TO.QMAUTH", profile: APP.NO, authorities: [put] }}
    - {{ principal: tester, profile: APP.OK, authorities: [put, get, browse] }}
    - {{ principal: mapped, profile: APP.NO, authorities: [put] }}
    - {{ principal: "device:DEV0001", profile: APP.OK, authorities: [put] }}
"#,
        hex::encode(Sha256::digest(ADMIN.as_bytes()))
    )
}

fn start(dir: &std::path::Path, mqtt: &str) -> Gateway {
    Gateway::start_with_token(dir, &config(mqtt), ADMIN)
}

/// Every message on the dead-letter queue: (MQDLH reason, DestQName, data
/// after the MQDLH).
fn dead_letters(g: &Gateway) -> Vec<(i32, String, Vec<u8>)> {
    let mut out = Vec::new();
    loop {
        let (st, v) = g.get_ack("SYSTEM.DEAD.LETTER.QUEUE", "wait_ms=0");
        if st != 200 {
            return out;
        }
        let d = data(&v);
        let (dlh, cs) = parse_dlh(&d, ByteOrder::Little).unwrap();
        out.push((dlh.reason, dlh.dest_q_name.text(cs), d[172..].to_vec()));
    }
}

#[test]
fn a_receiver_channel_puts_as_its_principal_and_dead_letters_what_it_may_not_put() {
    let dir = tempfile::tempdir().unwrap();
    let g = start(dir.path(), "");
    let files: Vec<_> = [
        ("APP.OK", "granted"),
        ("APP.NO", "put but no setall"),
        ("APP.OTHER", "nothing granted"),
    ]
    .iter()
    .enumerate()
    .map(|(i, (q, body))| {
        let p = dir.path().join(format!("{i}.xmit"));
        std::fs::write(&p, xmit(q, "QMAUTH", true, "MQSTR", body.as_bytes())).unwrap();
        p
    })
    .collect();
    let out = Command::new(BIN)
        .args(["send", "--to", &g.listen_addr(), "--channel", "TO.QMAUTH"])
        .args(&files)
        .output()
        .unwrap();
    // The channel goes on: every message is confirmed.
    assert!(out.status.success(), "{out:?}");
    let (st, v) = g.get_ack("APP.OK", "wait_ms=0");
    assert_eq!(st, 200, "{v}");
    assert_eq!(data(&v), b"granted");
    // The two others are dead-lettered with 2035 MQRC_NOT_AUTHORIZED and
    // their destination (docs/channel-protocol.md "Applying one message").
    let mut dead = dead_letters(&g);
    dead.sort();
    assert_eq!(
        dead,
        vec![
            (2035, "APP.NO".into(), b"put but no setall".to_vec()),
            (2035, "APP.OTHER".into(), b"nothing granted".to_vec()),
        ]
    );
    let log = std::fs::read_to_string(g.log_path()).unwrap();
    for want in [
        "the put to APP.NO at QMAUTH was refused: principal \"channel:TO.QMAUTH\" has no +setall authority on queue \"APP.NO\"",
        "the put to APP.OTHER at QMAUTH was refused: principal \"channel:TO.QMAUTH\" has no +put authority on queue \"APP.OTHER\"",
    ] {
        assert!(log.contains(want), "{want} not in:\n{log}");
    }
}

#[test]
fn mq_clients_need_authority_at_mqopen_and_mqput1() {
    let dir = tempfile::tempdir().unwrap();
    let g = start(dir.path(), "");
    let addr = g.svrconn_addr_from_log();
    let rt = tokio::runtime::Runtime::new().unwrap();
    rt.block_on(async {
        let mut c = Client::connect(addr, "APP.SVRCONN", "tester", None)
            .await
            .unwrap();
        // tester: +put +get +browse on APP.OK.
        let out = c.open_ok("APP.OK", oo::OUTPUT).await;
        let (h, _, _) = c.put(out, md(), pmo::NO_SYNCPOINT, b"from tester").await;
        assert_eq!((h.comp_code, h.reason), (0, 0));
        // MQPMO_SET_ALL_CONTEXT needs +setall: MQCC_FAILED, 2035.
        let (h, _, _) = c.put(out, md(), pmo::SET_ALL_CONTEXT, b"x").await;
        assert_eq!((h.comp_code, h.reason), (2, 2035));
        assert_eq!(c.open_ok("APP.OK", oo::INPUT_SHARED | oo::BROWSE).await, 3);
        // Nothing on APP.NO: MQOPEN for output or input, MQPUT1: 2035.
        for options in [oo::OUTPUT, oo::INPUT_SHARED, oo::BROWSE, oo::INQUIRE] {
            let (h, _) = c.open(Some("APP.NO"), options).await;
            assert_eq!((h.comp_code, h.reason), (2, 2035), "options {options:#x}");
        }
        let (h, _) = c.put1("APP.NO", md(), pmo::NO_SYNCPOINT, b"x").await;
        assert_eq!((h.comp_code, h.reason), (2, 2035));
        // The queue manager object for inquire needs +inq on the queue
        // manager, which tester does not hold.
        let (h, _) = c.open(None, oo::INQUIRE).await;
        assert_eq!((h.comp_code, h.reason), (2, 2035));
        // On MAPPED.SVRCONN a channel authentication rule maps every
        // connection to principal `mapped` (MCAUSER): +put on APP.NO only.
        let mut m = Client::connect(addr, "MAPPED.SVRCONN", "tester", None)
            .await
            .unwrap();
        let (h, _) = m.put1("APP.NO", md(), pmo::NO_SYNCPOINT, b"mapped").await;
        assert_eq!((h.comp_code, h.reason), (0, 0));
        let (h, _) = m.open(Some("APP.OK"), oo::OUTPUT).await;
        assert_eq!((h.comp_code, h.reason), (2, 2035));
        // A user id that is no principal name holds nothing.
        let mut r = Client::connect(addr, "APP.SVRCONN", "no body", None)
            .await
            .unwrap();
        let (h, _) = r.open(Some("APP.OK"), oo::OUTPUT).await;
        assert_eq!((h.comp_code, h.reason), (2, 2035));
        // MQCONN itself is not refused: connecting is not an authority
        // mqgate checks (the channel's `users` decide who connects).
        assert!(
            Client::connect(addr, "APP.SVRCONN", "x", None)
                .await
                .is_ok()
        );
    });
    assert_eq!(g.depth("APP.OK"), 1);
    assert_eq!(g.depth("APP.NO"), 1);
}

fn have_mosquitto() -> bool {
    let found = Command::new("sh")
        .args(["-c", "command -v mosquitto_sub"])
        .output()
        .is_ok_and(|o| o.status.success());
    assert!(
        found || std::env::var_os("CI").is_none(),
        "mosquitto_sub is not installed (Debian mosquitto-clients), and CI is set"
    );
    found
}

/// The reason code of the next PUBACK.
async fn puback(c: &mut MqttClient) -> ReasonCode {
    loop {
        let p = tokio::time::timeout(std::time::Duration::from_secs(10), c.recv())
            .await
            .unwrap()
            .unwrap()
            .unwrap();
        if let Packet::Puback(a) = p {
            return a.reason.unwrap_or(ReasonCode::SUCCESS);
        }
    }
}

#[test]
fn mqtt_devices_are_refused_what_their_principal_does_not_hold() {
    if !have_mosquitto() {
        println!("SKIP: mosquitto_sub is not installed (Debian mosquitto-clients)");
        return;
    }
    // Without a password file nothing proves a device's client identifier:
    // CONNACK 0x87 (5.0) / return code 0x05 (3.1.1).
    let dir = tempfile::tempdir().unwrap();
    let g = start(dir.path(), "");
    let sub = |g: &Gateway, version: &str, password: Option<&str>| {
        let mut c = Command::new("mosquitto_sub");
        c.args(["-h", "127.0.0.1", "-p", &g.mqtt_port.to_string()])
            .args(["-V", version, "-i", "DEV0001", "-u", "DEV0001"])
            .args(["-t", "INBOX", "-q", "1", "-C", "1", "-W", "5"]);
        if let Some(p) = password {
            c.args(["-P", p]);
        }
        c.output().unwrap()
    };
    let out = sub(&g, "mqttv311", None);
    assert!(!out.status.success());
    // mosquitto's text for 3.1.1 return code 5.
    assert!(
        String::from_utf8_lossy(&out.stderr).contains("not authorised"),
        "{out:?}"
    );
    let out = sub(&g, "mqttv5", None);
    assert!(!out.status.success());
    // mosquitto's text for reason code 0x87.
    assert!(
        String::from_utf8_lossy(&out.stderr).contains("Not authorized"),
        "{out:?}"
    );
    drop(g);

    let dir = tempfile::tempdir().unwrap();
    let file = dir.path().join("passwords");
    std::fs::write(&file, PASSWORD_FILE).unwrap();
    let g = start(
        dir.path(),
        &format!("mqtt:\n  password_file: {}", file.display()),
    );
    let addr: SocketAddr = format!("127.0.0.1:{}", g.mqtt_port).parse().unwrap();
    let rt = tokio::runtime::Runtime::new().unwrap();
    rt.block_on(async {
        let o = Options {
            clean_start: true,
            user_name: Some("DEV0001".into()),
            password: Some(b"secret".to_vec()),
            ..Options::persistent("DEV0001", Level::V5)
        };
        let (mut c, ack) = MqttClient::connect(addr, &o).await.unwrap();
        assert_eq!(ack.code, ReasonCode::SUCCESS);
        // +put on APP.OK: PUBACK 0x00; none on APP.NO: PUBACK 0x87.
        c.publish("APP.OK", QoS::AtLeastOnce, 1, b"ok")
            .await
            .unwrap();
        assert_eq!(puback(&mut c).await, ReasonCode::SUCCESS);
        c.publish("APP.NO", QoS::AtLeastOnce, 2, b"no")
            .await
            .unwrap();
        assert_eq!(puback(&mut c).await, ReasonCode::NOT_AUTHORIZED);
        // Its own queue: granted; another device's: SUBACK 0x87.
        let s = c.subscribe(3, "INBOX", QoS::AtLeastOnce).await.unwrap();
        assert_eq!(s.codes, vec![ReasonCode::GRANTED_QOS_1]);
        let s = c
            .subscribe(4, "INBOX@DEV0002", QoS::AtLeastOnce)
            .await
            .unwrap();
        assert_eq!(s.codes, vec![ReasonCode::NOT_AUTHORIZED]);
    });
    assert_eq!(g.depth("APP.OK"), 1);
    assert_eq!(g.depth("APP.NO"), 0);
    // The same device over 3.1.1 with mosquitto_sub and its password gets
    // what is on its own queue.
    let (st, v) = g.put("INBOX", "q_mgr=DEV0001", b"for DEV0001");
    assert_eq!(st, 201, "{v}");
    let out = sub(&g, "mqttv311", Some("secret"));
    assert!(out.status.success(), "{out:?}");
    assert_eq!(out.stdout, b"for DEV0001\n");
}

const READER: &str = "reader-secret-token";

/// `path` called with bearer token `token` (`None`: no Authorization):
/// (status, JSON body).
fn call_as(
    g: &Gateway,
    token: Option<&str>,
    method: &str,
    path: &str,
    body: Option<(&str, &[u8])>,
) -> (u16, serde_json::Value) {
    let mut req = ureq::request(method, &format!("{}{path}", g.base));
    if let Some(t) = token {
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
    (status, r.into_json().unwrap_or(serde_json::Value::Null))
}

#[test]
fn http_routes_beyond_the_queue_api_check_authorities() {
    let dir = tempfile::tempdir().unwrap();
    let fix = concat!(env!("CARGO_MANIFEST_DIR"), "/fixtures/tuxedo");
    // reader holds +put on APP.OK and nothing else.
    let config = config("")
        .replace(
            "  chlauth:\n",
            &format!(
                "    - {{ principal: reader, sha256: \"{}\" }}\n  chlauth:\n",
                hex::encode(Sha256::digest(READER.as_bytes()))
            ),
        )
        .replace(
            "  authorities:\n",
            "  authorities:\n    - { principal: reader, profile: APP.OK, authorities: [put] }\n",
        )
        + &format!(
            "dmconfig: {fix}/tedg_valid.dmconfig\ntedg:\n  field_tables: [{fix}/tedg_fields.fml]\n"
        );
    let g = Gateway::start_with_token(dir.path(), &config, ADMIN);
    // An unknown path: 404 to a caller with a valid token, 401 without
    // (RFC 6750 §3), so the path tells nothing before authentication.
    let (st, v) = call_as(&g, Some(READER), "GET", "/v1/no/such/route", None);
    assert_eq!(st, 404, "{v}");
    let (st, v) = call_as(&g, None, "GET", "/v1/no/such/route", None);
    assert_eq!((st, &v["mqrc"]), (401, &serde_json::json!(2035)), "{v}");
    // mqmd_base64 gives the whole MQMD, context included: +setall
    // (MQPMO_SET_ALL_CONTEXT); reader has +put only: 403 with 2035.
    use base64::Engine;
    let md = mqgate_codecs::mq::Mqmd {
        version: 2,
        ..mqgate_codecs::mq::Mqmd::default()
    };
    let mut raw = Vec::new();
    mqgate_codecs::mq::md::write_md(
        &md,
        ByteOrder::Little,
        mqgate_codecs::mq::Charset::Ascii,
        &mut raw,
    );
    let body = serde_json::json!({
        "mqmd_base64": base64::engine::general_purpose::STANDARD.encode(&raw),
        "data": "context from the caller",
    })
    .to_string();
    let put = |token| {
        call_as(
            &g,
            Some(token),
            "POST",
            "/v1/queues/APP.OK/messages",
            Some(("application/json", body.as_bytes())),
        )
    };
    let (st, v) = put(READER);
    assert_eq!((st, &v["mqrc"]), (403, &serde_json::json!(2035)), "{v}");
    assert_eq!(
        v["message"],
        "principal \"reader\" has no +setall authority on queue \"APP.OK\""
    );
    let (st, v) = put(ADMIN);
    assert_eq!(st, 201, "{v}");
    // The Tuxedo RTQ routes: +dsp on the queue manager to list, +get on
    // RTQ.GROUP.QUEUE to take a request, +chg to change its state.
    for (method, path) in [
        ("GET", "/v1/rtq"),
        ("GET", "/v1/rtq/ORDGRP/ORDQ/next?wait_ms=0"),
        ("POST", "/v1/rtq/ORDGRP/ORDQ/state"),
    ] {
        let (st, v) = call_as(
            &g,
            Some(READER),
            method,
            path,
            Some(("application/json", b"{\"state\":\"stopped\"}")),
        );
        assert_eq!(
            (st, &v["mqrc"]),
            (403, &serde_json::json!(2035)),
            "{path}: {v}"
        );
    }
    let (st, v) = call_as(&g, Some(READER), "GET", "/v1/rtq", None);
    assert_eq!(
        v["message"], "principal \"reader\" has no +dsp authority on queue manager \"QMAUTH\"",
        "{st}"
    );
    let (st, v) = call_as(&g, Some(ADMIN), "GET", "/v1/rtq", None);
    assert_eq!(st, 200, "{v}");
    let (st, v) = call_as(
        &g,
        Some(READER),
        "GET",
        "/v1/rtq/ORDGRP/ORDQ/next?wait_ms=0",
        None,
    );
    assert_eq!(
        v["message"], "principal \"reader\" has no +get authority on queue \"RTQ.ORDGRP.ORDQ\"",
        "{st}"
    );
    // tpenqueue to queue space BILLING puts to RTQ.BILLING_GROUP.BILLQ:
    // +put there. Refused: 403, Tuxedo's TPEPERM (tperrno 8, atmi.h) and
    // 2035; nothing is enqueued.
    let tp = br#"{"qspace":"BILLING","qname":"RAWDATA","buftype":"CARRAY","data_base64":"aGk="}"#;
    let (st, v) = call_as(
        &g,
        Some(READER),
        "POST",
        "/v1/tux/tpenqueue",
        Some(("application/json", tp)),
    );
    assert_eq!(st, 403, "{v}");
    assert_eq!(
        (&v["tperrno"], &v["tperrno_value"], &v["mqrc"]),
        (
            &serde_json::json!("TPEPERM"),
            &serde_json::json!(8),
            &serde_json::json!(2035)
        ),
        "{v}"
    );
    assert_eq!(
        v["message"],
        "principal \"reader\" has no +put authority on queue \"RTQ.BILLING_GROUP.BILLQ\""
    );
    let (st, v) = call_as(
        &g,
        Some(ADMIN),
        "POST",
        "/v1/tux/tpenqueue",
        Some(("application/json", tp)),
    );
    assert_eq!((st, &v["tperrno"]), (200, &serde_json::Value::Null), "{v}");
    // The RPC program list displays definitions: +dsp.
    let (st, v) = call_as(&g, Some(READER), "GET", "/v1/rpc/programs", None);
    assert_eq!((st, &v["mqrc"]), (403, &serde_json::json!(2035)), "{v}");
}

/// `method` `path` on `base` as bearer `token`, with a JSON `body`: (HTTP
/// status, JSON answer; null when there is none).
fn call_json(
    base: &str,
    token: &str,
    method: &str,
    path: &str,
    body: Option<serde_json::Value>,
) -> (u16, serde_json::Value) {
    let req = ureq::request(method, &format!("{base}{path}"))
        .set("Authorization", &format!("Bearer {token}"));
    let res = match body {
        Some(b) => req.send_json(b),
        None => req.call(),
    };
    let r = match res {
        Ok(r) => r,
        Err(ureq::Error::Status(_, r)) => r,
        Err(e) => panic!("{path}: {e}"),
    };
    (
        r.status(),
        r.into_json::<serde_json::Value>().unwrap_or_default(),
    )
}

#[test]
fn pams_puts_and_gets_need_the_authorities_of_their_queue() {
    // Group 10, queue READER is 10.30 (docs/messageq.md "PAMS API").
    let init = format!(
        "%PROFILE\nENABLE_SBS YES\n%EOS\n%QCT\n{}{}%EOS\n",
        sbs_util::qct_line("CTL", sbs_util::CTL, ".", "."),
        sbs_util::qct_line("READER", 30, ".", "."),
    );
    let security = format!(
        "security:\n  tokens:\n    - {{ principal: admin, sha256: \"{}\" }}\n    - {{ principal: reader, sha256: \"{}\" }}\n  authorities:\n    - {{ principal: admin, profile: \"**\", authorities: [all] }}\n",
        hex::encode(Sha256::digest(ADMIN.as_bytes())),
        hex::encode(Sha256::digest(READER.as_bytes()))
    );
    let g = sbs_util::Group::start_with(10, &init, &security);
    let call = |token: &str, method: &str, path: &str, body: Option<serde_json::Value>| {
        call_json(&g.base, token, method, path, body)
    };
    let msg = serde_json::json!({"target": "10.30", "class": 1, "type": 1, "data_base64": "aGk="});
    // reader holds nothing on READER: 403, 2035, the PAMS status of a
    // queue interface refusal (PAMS__FAILED).
    let (st, v) = call(READER, "POST", "/v1/pams/messages", Some(msg.clone()));
    assert_eq!((st, &v["mqrc"]), (403, &serde_json::json!(2035)), "{v}");
    assert_eq!(
        v["message"],
        "principal \"reader\" has no +put authority on queue \"READER\""
    );
    let (st, v) = call(ADMIN, "POST", "/v1/pams/messages", Some(msg));
    assert_eq!(st, 201, "{v}");
    let (st, v) = call(
        READER,
        "GET",
        "/v1/pams/queues/10.30/messages/next?wait_ms=0",
        None,
    );
    assert_eq!((st, &v["mqrc"]), (403, &serde_json::json!(2035)), "{v}");
    let (st, v) = call(
        ADMIN,
        "GET",
        "/v1/pams/queues/10.30/messages/next?wait_ms=0",
        None,
    );
    assert_eq!(st, 200, "{v}");
}

#[test]
fn pams_attachments_need_get_on_the_attached_queue() {
    // docs/security.md "Authorities": pams_attach_q takes a queue's
    // messages, so it needs +get on the queue, as pams_get_msg does; the
    // temporary queue of group 10 is PAMS.10.1000 (docs/messageq.md
    // "Attachments": the lowest free number of 1000-3999). A refusal is the
    // PAMS routes' (PAMS__FAILED -320, p_return.h V4.0-09) with 2035.
    const NOBODY: &str = "nobody-secret-token";
    let init = format!(
        "%PROFILE\nENABLE_SBS YES\n%EOS\n%QCT\n{}{}%EOS\n",
        sbs_util::qct_line("CTL", sbs_util::CTL, ".", "."),
        sbs_util::qct_line("READER", 30, ".", "."),
    );
    let security = format!(
        "security:\n  tokens:\n    - {{ principal: admin, sha256: \"{}\" }}\n    - {{ principal: reader, sha256: \"{}\" }}\n    - {{ principal: nobody, sha256: \"{}\" }}\n  authorities:\n    - {{ principal: admin, profile: \"**\", authorities: [all] }}\n    - {{ principal: admin, profile: MQGATE, type: qmgr, authorities: [inq] }}\n    - {{ principal: reader, profile: \"PAMS.10.*\", authorities: [get] }}\n",
        hex::encode(Sha256::digest(ADMIN.as_bytes())),
        hex::encode(Sha256::digest(READER.as_bytes())),
        hex::encode(Sha256::digest(NOBODY.as_bytes()))
    );
    let g = sbs_util::Group::start_with(10, &init, &security);
    let call = |token: &str, method: &str, path: &str, body: Option<serde_json::Value>| {
        call_json(&g.base, token, method, path, body)
    };
    let refused = |(st, v): (u16, serde_json::Value), queue: &str, who: &str| {
        assert_eq!(st, 403, "{v}");
        assert_eq!(v["mqrc"], 2035, "{v}");
        assert_eq!(
            v["status"],
            serde_json::json!({"number": -320, "name": "PAMS__FAILED"})
        );
        assert_eq!(
            v["message"],
            format!("principal \"{who}\" has no +get authority on queue \"{queue}\"")
        );
    };
    let permanent = serde_json::json!({"queue": "10.30"});
    refused(
        call(
            READER,
            "POST",
            "/v1/pams/attachments",
            Some(permanent.clone()),
        ),
        "READER",
        "reader",
    );
    let (st, v) = call(ADMIN, "POST", "/v1/pams/attachments", Some(permanent));
    assert_eq!(st, 201, "{v}");
    let id = v["attachment"].as_str().unwrap().to_string();
    // The attachment's other routes need the same authority as its attach.
    let at = format!("/v1/pams/attachments/{id}");
    refused(call(READER, "GET", &at, None), "READER", "reader");
    refused(
        call(READER, "POST", &format!("{at}/keepalive"), None),
        "READER",
        "reader",
    );
    refused(call(READER, "DELETE", &at, None), "READER", "reader");
    let (st, v) = call(ADMIN, "POST", &format!("{at}/keepalive"), None);
    assert_eq!(st, 200, "{v}");
    let (st, v) = call(ADMIN, "DELETE", &at, None);
    assert_eq!(st, 200, "{v}");

    // A temporary queue: reader holds +get on PAMS.10.*, nobody nothing;
    // nobody's refused attachment leaves no queue behind.
    let temporary = serde_json::json!({"queue": "temporary"});
    refused(
        call(
            NOBODY,
            "POST",
            "/v1/pams/attachments",
            Some(temporary.clone()),
        ),
        "PAMS.10.1000",
        "nobody",
    );
    let (st, v) = call(ADMIN, "GET", "/v1/queues", None);
    assert_eq!(st, 200, "{v}");
    assert!(
        !v.as_array()
            .unwrap()
            .iter()
            .any(|q| q["name"] == "PAMS.10.1000"),
        "{v}"
    );
    let (st, v) = call(READER, "POST", "/v1/pams/attachments", Some(temporary));
    assert_eq!(st, 201, "{v}");
    assert_eq!(v["mq_queue"], "PAMS.10.1000");
    let (st, v) = call(
        READER,
        "DELETE",
        &format!("/v1/pams/attachments/{}", v["attachment"].as_str().unwrap()),
        None,
    );
    assert_eq!(st, 200, "{v}");
}

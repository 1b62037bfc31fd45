//! Channel authentication rules (docs/security.md "Channel authentication
//! rules") against the built binary: message channels and MQ client
//! (SVRCONN) connections blocked by peer address and by sending queue
//! manager name, the first matching rule deciding. The refusal reason is
//! IBM MQ's 2035 MQRC_NOT_AUTHORIZED ("API reason codes"); the SVRCONN
//! STATUS_DATA code is MQ_STATUS_ERR_SECURITY_FAILURE 0x14 of the Wireshark
//! MQ dissector; the address forms are those of IBM MQ "Generic IP addresses
//! for channel authentication records".

mod common;
mod svrconn_client;

use common::Gateway;
use common::channel::hello;
use mqgate_codecs::fap::{StatusCode, StatusData};
use std::io::{Read, Write};
use std::net::TcpStream;
use std::time::Duration;
use svrconn_client::{Client, Refused};

const CONFIG: &str = r#"
queue_manager:
  name: MQGATE
channels:
  - { type: receiver, name: TO.MQGATE }
  - { type: receiver, name: FROM.QM2 }
  - { type: receiver, name: OPEN.CHL }
svrconn:
  listen: 127.0.0.1:0
  channels:
    - name: APP.SVRCONN
    - name: BLOCKED.SVRCONN
security:
  chlauth:
    - { channel: "FROM.QM*", qmgr: "QM2", action: allow }
    - { channel: "FROM.QM*", action: block }
    - { channel: "TO.MQGATE", address: "127.0.0.*", action: block }
    - { channel: "BLOCKED.SVRCONN", address: "127.0.0.0/8", action: block }
    - { channel: "*", address: "10.*", action: block }
"#;

/// The first frame the receiver answers a HELLO with: its type, and for a
/// CLOSE (0x07) its reason and text.
fn answer(g: &Gateway, channel: &str, sending_q_mgr: &str) -> (u8, u32, String) {
    let mut s = TcpStream::connect(g.listen_addr()).unwrap();
    s.set_read_timeout(Some(Duration::from_secs(10))).unwrap();
    s.write_all(&hello(channel, sending_q_mgr)).unwrap();
    let mut len = [0u8; 4];
    s.read_exact(&mut len).unwrap();
    let mut body = vec![0u8; u32::from_be_bytes(len) as usize];
    s.read_exact(&mut body).unwrap();
    if body[0] != 0x07 {
        return (body[0], 0, String::new());
    }
    let reason = u32::from_be_bytes(body[1..5].try_into().unwrap());
    (
        0x07,
        reason,
        String::from_utf8_lossy(&body[7..]).into_owned(),
    )
}

#[test]
fn message_channels_are_blocked_by_address_and_queue_manager_first_match_deciding() {
    let dir = tempfile::tempdir().unwrap();
    let g = Gateway::start(dir.path(), CONFIG);
    // Rule 2 blocks TO.MQGATE from 127.0.0.* (IBM MQ generic IPv4 form):
    // CLOSE 2035 MQRC_NOT_AUTHORIZED naming the rule.
    let (t, reason, text) = answer(&g, "TO.MQGATE", "QM1");
    assert_eq!((t, reason), (0x07, 2035), "{text}");
    assert_eq!(
        text,
        "channel authentication rule security.chlauth[2] (channel=TO.MQGATE address=\"127.0.0.*\" action=block) blocks this connection"
    );
    // FROM.QM2 from QM2: rule 0 allows it before rule 1 would block it
    // (first match wins): HELLO_ACK (0x02).
    assert_eq!(answer(&g, "FROM.QM2", "QM2").0, 0x02);
    // From QM3, or without a queue manager name: rule 0 does not match,
    // rule 1 blocks.
    for qm in ["QM3", ""] {
        let (t, reason, text) = answer(&g, "FROM.QM2", qm);
        assert_eq!((t, reason), (0x07, 2035), "{qm}: {text}");
        assert!(text.contains("security.chlauth[1]"), "{text}");
    }
    // No rule matches OPEN.CHL from 127.0.0.1 (rule 4 wants 10.*): the
    // channel's own checks let it in.
    assert_eq!(answer(&g, "OPEN.CHL", "QM1").0, 0x02);
    // Each block is logged at WARN with the rule's index and text and the
    // peer.
    let log = std::fs::read_to_string(g.log_path()).unwrap();
    let blocked: Vec<&str> = log
        .lines()
        .filter(|l| l.contains("channel authentication rule blocked the connection"))
        .collect();
    assert!(
        blocked.iter().any(|l| l.contains("WARN")
            && l.contains("rule=2")
            && l.contains("address=\"127.0.0.*\"")
            && l.contains("peer=127.0.0.1")),
        "{log}"
    );
    assert!(
        blocked
            .iter()
            .any(|l| l.contains("rule=1") && l.contains("qmgr=\"QM3\"")),
        "{log}"
    );
    // The counter of refusals (GET /metrics).
    let body = ureq::get(&format!("{}/metrics", g.base))
        .call()
        .unwrap()
        .into_string()
        .unwrap();
    assert!(
        body.contains("mqgate_connections_refused_total{reason=\"chlauth\"} 3"),
        "{body}"
    );
}

#[test]
fn svrconn_connections_are_blocked_at_initial_data() {
    let dir = tempfile::tempdir().unwrap();
    let g = Gateway::start(dir.path(), CONFIG);
    let addr = g.svrconn_addr_from_log();
    let rt = tokio::runtime::Runtime::new().unwrap();
    rt.block_on(async {
        // Rule 3 (127.0.0.0/8) blocks BLOCKED.SVRCONN: STATUS_DATA
        // SECURITY_FAILURE (0x14) with 2035, then the socket closes.
        match Client::connect(addr, "BLOCKED.SVRCONN", "tester", None).await {
            Err(Refused::Status(StatusData::Status { code, value })) => {
                assert_eq!((code, value), (StatusCode(0x14), Some(2035)));
            }
            other => panic!("{:?}", other.err()),
        }
        // APP.SVRCONN matches no rule: connected, and served.
        let mut c = Client::connect(addr, "APP.SVRCONN", "tester", None)
            .await
            .unwrap();
        let (h, _) = c.open(None, svrconn_client::open_options::INQUIRE).await;
        assert_eq!((h.comp_code, h.reason), (0, 0));
    });
    let log = std::fs::read_to_string(g.log_path()).unwrap();
    assert!(
        log.lines().any(|l| l.contains("WARN")
            && l.contains("channel authentication rule blocked the connection")
            && l.contains("rule=3")
            && l.contains("channel=BLOCKED.SVRCONN")),
        "{log}"
    );
}

#[test]
fn check_config_names_a_bad_rule() {
    let dir = tempfile::tempdir().unwrap();
    let f = dir.path().join("gw.yaml");
    std::fs::write(
        &f,
        "security:\n  chlauth:\n    - { channel: \"A.*\", address: \"192.0.*.*\", action: block }\n",
    )
    .unwrap();
    let out = std::process::Command::new(common::BIN)
        .arg("check-config")
        .arg(&f)
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(1));
    let err = String::from_utf8_lossy(&out.stderr);
    // IBM MQ "Generic IP addresses for channel authentication records":
    // `192.0.*.*` is not valid (an asterisk next to the trailing one).
    assert!(
        err.contains("security.chlauth[0].address: address \"192.0.*.*\": `*` next to another `*`"),
        "{err}"
    );
}

#[test]
fn svrconn_client_user_ids_are_mapped_and_blocked_at_mqconn() {
    // IBM MQ "SET CHLAUTH": TYPE(BLOCKUSER) USERLIST(mallory) and
    // TYPE(USERMAP) CLNTUSER(alice) USERSRC(MAP) MCAUSER(reader), then
    // USERSRC(NOACCESS) for every other user id, as rules with
    // `client_user` (docs/security.md "Channel authentication rules"). The
    // user id is the USERID_DATA's; a block is MQCONN's 2035
    // MQRC_NOT_AUTHORIZED (IBM MQ "API reason codes").
    use sha2::{Digest, Sha256};
    let config = format!(
        r#"
queue_manager:
  name: MQGATE
queues:
  - {{ type: local, name: APP.Q }}
svrconn:
  listen: 127.0.0.1:0
  channels:
    - name: USER.SVRCONN
security:
  tokens:
    - {{ principal: admin, sha256: "{}" }}
  authorities:
    - {{ principal: admin, profile: MQGATE, type: qmgr, authorities: [inq] }}
    - {{ principal: reader, profile: APP.Q, authorities: [browse] }}
  chlauth:
    - {{ channel: USER.SVRCONN, client_user: mallory, action: block }}
    - {{ channel: USER.SVRCONN, client_user: alice, action: allow, mcauser: reader }}
    - {{ channel: "USER.*", client_user: "*", action: block }}
"#,
        hex::encode(Sha256::digest(b"admin-token"))
    );
    let dir = tempfile::tempdir().unwrap();
    let g = Gateway::start_with_token(dir.path(), &config, "admin-token");
    let addr = g.svrconn_addr_from_log();
    let rt = tokio::runtime::Runtime::new().unwrap();
    rt.block_on(async {
        for user in ["mallory", "bob"] {
            match Client::connect(addr, "USER.SVRCONN", user, None).await {
                Err(Refused::Conn(cc, rc)) => assert_eq!((cc, rc), (2, 2035), "{user}"),
                other => panic!("{user}: {:?}", other.err()),
            }
        }
        // alice runs as reader: +browse on APP.Q, nothing else.
        let mut c = Client::connect(addr, "USER.SVRCONN", "alice", None)
            .await
            .unwrap();
        let (h, _) = c
            .open(Some("APP.Q"), svrconn_client::open_options::BROWSE)
            .await;
        assert_eq!((h.comp_code, h.reason), (0, 0));
        let (h, _) = c
            .open(Some("APP.Q"), svrconn_client::open_options::OUTPUT)
            .await;
        assert_eq!((h.comp_code, h.reason), (2, 2035));
    });
    let log = std::fs::read_to_string(g.log_path()).unwrap();
    assert!(
        log.lines().any(|l| l.contains("WARN")
            && l.contains("channel authentication rule blocked the connection")
            && l.contains("rule=0")
            && l.contains("user=\"mallory\"")),
        "{log}"
    );
}

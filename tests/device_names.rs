//! A message for a device queue whose local name `QMGR/QUEUE` would be
//! longer than a queue name may be (48 characters, IBM MQ "Rules for naming
//! IBM MQ objects") is refused with 2152 MQRC_OBJECT_NAME_ERROR (IBM MQ
//! "Reason codes") — dead-lettered with that reason when it came on a
//! channel, answered with it on the HTTP API — and never stored on a queue
//! that no API could address (docs/config.md `devices`).

mod common;

use common::{BIN, Gateway, data, xmit};
use mqgate_codecs::mq::ByteOrder;
use mqgate_codecs::mq::dlh::parse_dlh;
use serde_json::json;
use std::path::PathBuf;
use std::process::Command;

/// The undelivered rule is `retry`: a name that can never fit is
/// dead-lettered whatever the rule (docs/channel-protocol.md "Applying one
/// message" step 5), so the message behind it is delivered.
const CONFIG: &str = "
queue_manager:
  name: MQGATE
  default_xmit_queue: ''
channels:
  - type: receiver
    name: NAMES.CHL
    retry:
      first_interval_ms: 20
      attempts: 2
";

/// A device queue manager of 8 characters (matches the default pattern
/// `DEV*`, docs/config.md `devices.queue_managers`): its local names are
/// 8 + 1 + the queue name's length.
const DEVICE: &str = "DEV00001";

/// Every local queue whose name starts with `DEV00001/`, with its depth.
fn device_queues(g: &Gateway) -> Vec<(String, u64)> {
    let (st, v) = g.call("GET", "/v1/queues", None);
    assert_eq!(st, 200, "{v}");
    v.as_array()
        .unwrap()
        .iter()
        .filter(|q| {
            q["name"]
                .as_str()
                .is_some_and(|n| n.starts_with(&format!("{DEVICE}/")))
        })
        .map(|q| {
            (
                q["name"].as_str().unwrap().to_string(),
                q["depth"].as_u64().unwrap(),
            )
        })
        .collect()
}

#[test]
fn a_device_queue_name_over_48_characters_is_dead_lettered_and_nothing_is_stored() {
    let dir = tempfile::tempdir().unwrap();
    let g = Gateway::start(dir.path(), CONFIG);
    // 8 + 1 + 40 = 49 characters: one too many; 8 + 1 + 39 = 48 fit.
    let too_long = "Q".repeat(40);
    let fits = "Q".repeat(39);
    let files: Vec<PathBuf> = [
        xmit(&too_long, DEVICE, true, "MQSTR", b"too long"),
        xmit(&fits, DEVICE, true, "MQSTR", b"fits"),
    ]
    .iter()
    .enumerate()
    .map(|(i, m)| {
        let p = dir.path().join(format!("{i:06}.xmit"));
        std::fs::write(&p, m).unwrap();
        p
    })
    .collect();
    let out = Command::new(BIN)
        .args(["send", "--to", &g.listen_addr(), "--channel", "NAMES.CHL"])
        .args(&files)
        .output()
        .unwrap();
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );

    // The one that fits is on its 48-character queue; no other device queue
    // exists, so nothing was stored out of reach.
    assert_eq!(
        device_queues(&g),
        vec![(format!("{DEVICE}/{fits}"), 1)],
        "device queues"
    );
    let (st, v) = g.call(
        "GET",
        &format!("/v1/devices/{DEVICE}/queues/{fits}/messages/next?wait_ms=0"),
        None,
    );
    assert_eq!((st, data(&v)), (200, b"fits".to_vec()), "{v}");

    // The other one is on the dead-letter queue with reason 2152 (IBM MQ
    // "MQDLH - Dead-letter header": 172 bytes, then the transmission message
    // whole as it arrived, Format MQXMIT). Names the put refused are not
    // copied into DestQName / DestQMgrName (docs/channel-protocol.md
    // "Applying one message"): the MQXQH behind the MQDLH names them.
    let (st, v) = g.get_ack("SYSTEM.DEAD.LETTER.QUEUE", "");
    assert_eq!(st, 200, "{v}");
    let d = data(&v);
    let (dlh, cs) = parse_dlh(&d, ByteOrder::Little).unwrap();
    assert_eq!(dlh.reason, 2152);
    assert_eq!(
        (dlh.dest_q_name.text(cs), dlh.dest_q_mgr_name.text(cs)),
        (String::new(), String::new())
    );
    assert_eq!(dlh.format.0, *b"MQXMIT  ");
    assert_eq!(
        &d[172..],
        xmit(&too_long, DEVICE, true, "MQSTR", b"too long")
    );
    let (st, e) = g.next("SYSTEM.DEAD.LETTER.QUEUE", "");
    assert_eq!((st, e["mqrc"].as_i64()), (404, Some(2033)), "{e}");
    // The reason is in the log, naming the length.
    let log = std::fs::read_to_string(g.log_path()).unwrap();
    assert!(log.contains("of 49 characters"), "{log}");

    // The device API answers the same name with the same reason, and
    // creates nothing (docs/http-api.md "Errors": 400 for 2152).
    let (st, e) = g.call(
        "GET",
        &format!("/v1/devices/{DEVICE}/queues/{too_long}/messages/next?wait_ms=0"),
        None,
    );
    assert_eq!((st, e["mqrc"].as_i64()), (400, Some(2152)), "{e}");
    // (The 48-character queue's message is still leased: depth 1.)
    assert_eq!(device_queues(&g), vec![(format!("{DEVICE}/{fits}"), 1)]);
}

#[test]
fn an_http_put_for_a_device_queue_name_over_48_characters_is_2152_and_stores_nothing() {
    let dir = tempfile::tempdir().unwrap();
    let g = Gateway::start(dir.path(), CONFIG);
    let too_long = "Q".repeat(40);
    // One put to the queue API with the device as ObjectQMgrName
    // (docs/http-api.md `q_mgr`).
    let (st, e) = g.put(
        &too_long,
        &format!("q_mgr={DEVICE}&persistent=true"),
        b"too long",
    );
    assert_eq!((st, e["mqrc"].as_i64()), (400, Some(2152)), "{e}");
    assert!(
        e["message"]
            .as_str()
            .is_some_and(|t| t.contains("49 characters")),
        "{e}"
    );
    // And a destination list naming it after a queue that exists: any
    // destination failing fails the call and nothing is stored
    // (docs/http-api.md "POST /v1/messages").
    let body = json!({
        "destinations": [
            {"queue": "SYSTEM.DEAD.LETTER.QUEUE"},
            {"queue": too_long, "q_mgr": DEVICE},
        ],
        "data": "list",
    });
    let (st, e) = g.call(
        "POST",
        "/v1/messages?persistent=true",
        Some(("application/json", body.to_string().as_bytes())),
    );
    assert_eq!((st, e["mqrc"].as_i64()), (400, Some(2152)), "{e}");
    assert!(
        e["message"]
            .as_str()
            .is_some_and(|t| t.starts_with("destination 1 ")),
        "{e}"
    );
    // Nothing for the device was stored or created.
    assert_eq!(device_queues(&g), vec![]);
    let (_, s) = g.call("GET", "/v1/status", None);
    assert_eq!(s["messages"], 0, "{s}");
}

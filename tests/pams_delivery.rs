//! Delivery modes and undeliverable-message actions (UMAs) of `POST
//! /v1/pams/messages` and `mqgate pams put` (docs/messageq.md "Delivery
//! modes and UMAs"), against a gateway acting as MessageQ group 10.
//!
//! Sources of the expected values: the delivery mode and UMA values of BEA
//! MessageQ `p_symbol.h` 5.0 (PDEL_MODE_WF_SAF 25 … WF_MEM 29, AK_SAF 30 …
//! AK_MEM 34, NN_SAF 35 … NN_MEM 39, WF_DEQ 40, AK_DEQ 41, WF_CONF 42,
//! AK_CONF 43, WF_ACK 44, AK_ACK 45; PDEL_UMA_RTS 1, DLJ 2, DLQ 3, SAF 4,
//! DISC 5, DISCL 6); the return codes of `p_return.h` V4.0-09 (PAMS__SUCCESS
//! 1, DISC_SUCCESS 11, DISCL_SUCCESS 13, DLQ_SUCCESS 17, RTS_SUCCESS 19,
//! STORED 31, ENQUEUED 33, EXCEEDQUOTA -56, BADDELIVERY -60, NOOBJECT -166,
//! BADUMA -222, NOTSUPPORTED -268); the meaning of the modes and UMAs in the
//! BEA MessageQ Programmer's Guide (appendix "Delivery Modes and UMAs":
//! SAF and DQF recoverable, MEM "Stored in the target queue"; "Broadcasting
//! Messages": "Broadcast messages cannot be stored for automatic recovery",
//! "There is no queuing on a broadcast stream"); MQMD Persistence
//! MQPER_NOT_PERSISTENT 0 / MQPER_PERSISTENT 1 and the MQDLH layout (Reason
//! at 8, DestQName at 12, 172 bytes; integers in the MQMD's Encoding, 273
//! big-endian here) from the IBM MQ documentation ("Persistence (MQLONG)",
//! "MQDLH - Dead-letter header"). Which PAMS status each case gets where the
//! manuals name none (STORED for a persistent message on the target queue,
//! ENQUEUED for a non-persistent one, NOTSUPPORTED for modes mqgate cannot
//! give) is mqgate's choice, docs/messageq.md.

#[path = "sbs_util/mod.rs"]
mod sbs_util;

use base64::Engine;
use base64::engine::general_purpose::STANDARD as B64;
use mqgate_codecs::pams::{PamsHeader, QAddress};
use sbs_util::*;
use serde_json::{Value, json};
use std::process::{Command, Stdio};

const DLQ: &str = "SYSTEM.DEAD.LETTER.QUEUE";

/// Group 10: READER 30 (no quota), SMALL 31 (message quota 1), BACK 32 (the
/// senders' response queue), TINY 33 (message quota 1).
fn group() -> Group {
    let lines = [
        qct_line("READER", 30, ".", "."),
        qct_line("SMALL", 31, ".", "1"),
        qct_line("BACK", 32, ".", "."),
        qct_line("TINY", 33, ".", "1"),
    ]
    .concat();
    Group::start(10, &init_file(&lines))
}

fn put(g: &Group, body: Value) -> (u16, Value) {
    g.call("POST", "/v1/pams/messages", Some(body))
}

/// The next message of mqgate queue `queue` through the queue API (no
/// wait), acknowledged: its MQMD as JSON and its data.
fn take(g: &Group, queue: &str) -> (Value, Vec<u8>) {
    let (st, v) = g.call(
        "GET",
        &format!("/v1/queues/{queue}/messages/next?wait_ms=0"),
        None,
    );
    assert_eq!(st, 200, "get from {queue}: {v}");
    let lease = v["lease"].as_str().unwrap();
    let (st, a) = g.call(
        "POST",
        &format!("/v1/queues/{queue}/messages/ack/{lease}"),
        None,
    );
    assert_eq!(st, 200, "{a}");
    let data = B64.decode(v["data_base64"].as_str().unwrap()).unwrap();
    (v["md"].clone(), data)
}

fn status(number: i32, name: &str) -> Value {
    json!({"number": number, "name": name})
}

#[test]
fn recoverable_modes_put_persistent_messages() {
    let g = group();
    // SAF and DQF are recoverable: MQPER_PERSISTENT, delivery status
    // PAMS__STORED; MEM and NET are not: MQPER_NOT_PERSISTENT,
    // PAMS__ENQUEUED. No `delivery` = PDEL_MODE_NN_MEM 39.
    let cases: [(Option<&str>, i32, i64, Value); 9] = [
        (Some("PDEL_MODE_WF_SAF"), 25, 1, status(31, "PAMS__STORED")),
        (Some("WF_DQF"), 26, 1, status(31, "PAMS__STORED")),
        (Some("NN_SAF"), 35, 1, status(31, "PAMS__STORED")),
        (Some("PDEL_MODE_NN_DQF"), 36, 1, status(31, "PAMS__STORED")),
        (Some("WF_NET"), 27, 0, status(33, "PAMS__ENQUEUED")),
        (
            Some("PDEL_MODE_WF_MEM"),
            29,
            0,
            status(33, "PAMS__ENQUEUED"),
        ),
        (Some("NN_NET"), 37, 0, status(33, "PAMS__ENQUEUED")),
        (Some("NN_MEM"), 39, 0, status(33, "PAMS__ENQUEUED")),
        (None, 39, 0, status(33, "PAMS__ENQUEUED")),
    ];
    for (mode, value, persistence, delivery_status) in cases {
        let mut body = json!({"target": "10.30", "data_base64": B64.encode(b"abc")});
        if let Some(m) = mode {
            body["delivery"] = json!(m);
        }
        let (st, v) = put(&g, body);
        assert_eq!(st, 201, "{mode:?}: {v}");
        assert_eq!(v["status"], status(1, "PAMS__SUCCESS"), "{mode:?}");
        assert_eq!(v["delivery_status"], delivery_status, "{mode:?}");
        assert_eq!(v["queue"], "READER");
        assert_eq!(v["persistent"], persistence == 1, "{mode:?}");
        let (md, data) = take(&g, "READER");
        assert_eq!(md["Persistence"], persistence, "{mode:?}: {md}");
        let (h, area) = PamsHeader::split(&data).unwrap();
        assert_eq!(h.delivery, value, "{mode:?}: the header keeps the mode");
        assert_eq!(area, b"abc");
    }
}

#[test]
fn modes_and_actions_mqgate_cannot_give_are_refused() {
    let g = group();
    // AK (asynchronous acknowledgement message), DEQ (waits for the
    // reader), CONF and ACK (pams_confirm_msg), RCM (no documented point).
    for (mode, value) in [
        ("PDEL_MODE_WF_RCM", 28),
        ("PDEL_MODE_AK_SAF", 30),
        ("PDEL_MODE_AK_DQF", 31),
        ("PDEL_MODE_AK_NET", 32),
        ("PDEL_MODE_AK_RCM", 33),
        ("PDEL_MODE_AK_MEM", 34),
        ("PDEL_MODE_NN_RCM", 38),
        ("PDEL_MODE_WF_DEQ", 40),
        ("PDEL_MODE_AK_DEQ", 41),
        ("PDEL_MODE_WF_CONF", 42),
        ("PDEL_MODE_AK_CONF", 43),
        ("PDEL_MODE_WF_ACK", 44),
        ("PDEL_MODE_AK_ACK", 45),
    ] {
        let (st, v) = put(&g, json!({"target": "10.30", "delivery": mode}));
        assert_eq!(st, 400, "{mode} ({value}): {v}");
        assert_eq!(v["status"], status(-268, "PAMS__NOTSUPPORTED"), "{mode}");
        assert_eq!(v["field"], "delivery");
        let m = v["message"].as_str().unwrap();
        assert!(m.starts_with(&format!("delivery: {mode}: ")), "{m}");
    }
    // UMA SAF and DLJ: PAMS__BADUMA; RTS needs a response queue.
    for (uma, resp_q) in [
        ("PDEL_UMA_SAF", Some("10.32")),
        ("DLJ", Some("10.32")),
        ("RTS", None),
    ] {
        let mut body = json!({"target": "10.30", "uma": uma});
        if let Some(r) = resp_q {
            body["resp_q"] = json!(r);
        }
        let (st, v) = put(&g, body);
        assert_eq!(st, 400, "{uma}: {v}");
        assert_eq!(v["status"], status(-222, "PAMS__BADUMA"), "{uma}");
        assert_eq!(v["field"], "uma");
    }
    // A recoverable mode to a MOT: PAMS__BADDELIVERY.
    for mode in ["WF_SAF", "NN_DQF"] {
        let (st, v) = put(&g, json!({"target": "10.5110", "delivery": mode}));
        assert_eq!(st, 400, "{mode}: {v}");
        assert_eq!(v["status"], status(-60, "PAMS__BADDELIVERY"), "{mode}");
    }
    assert_eq!(g.depth("READER"), 0, "nothing was put");
}

#[test]
fn uma_runs_when_the_target_cannot_take_the_message() {
    let g = group();
    // SMALL 10.31 has message quota 1: one message fills it.
    let (st, v) = put(&g, json!({"target": "10.31"}));
    assert_eq!(st, 201, "{v}");
    let full = status(-56, "PAMS__EXCEEDQUOTA");

    for (uma, done) in [
        ("DISC", status(11, "PAMS__DISC_SUCCESS")),
        ("PDEL_UMA_DISCL", status(13, "PAMS__DISCL_SUCCESS")),
    ] {
        let (st, v) = put(&g, json!({"target": "10.31", "uma": uma}));
        assert_eq!(st, 200, "{uma}: {v}");
        assert_eq!(v["status"], done, "{uma}");
        assert_eq!(v["uma_status"], done, "{uma}");
        assert_eq!(v["delivery_status"], full, "{uma}");
        assert_eq!(v["mqrc"], 2053, "MQRC_Q_FULL");
        assert_eq!(v["queue"], Value::Null, "discarded: on no queue");
    }
    assert_eq!(g.depth("SMALL"), 1);

    // DLQ: the dead-letter queue, behind an MQDLH with reason 2053 and the
    // target queue; persistent as WF_DQF asks.
    let before = g.depth(DLQ);
    let (st, v) = put(
        &g,
        json!({"target": "10.31", "delivery": "WF_DQF", "uma": "DLQ",
               "data_base64": B64.encode(b"dead")}),
    );
    assert_eq!(st, 200, "{v}");
    assert_eq!(v["status"], status(17, "PAMS__DLQ_SUCCESS"));
    assert_eq!(v["delivery_status"], full);
    assert_eq!(
        (v["queue"].as_str(), v["persistent"].as_bool()),
        (Some(DLQ), Some(true))
    );
    assert_eq!(g.depth(DLQ), before + 1);
    let (md, d) = take(&g, DLQ);
    assert_eq!(
        (md["Format"].as_str(), md["Persistence"].as_i64()),
        (Some("MQDEAD"), Some(1))
    );
    assert_eq!(&d[..4], b"DLH ");
    assert_eq!(&d[8..12], &2053i32.to_be_bytes());
    assert_eq!(&d[12..18], b"SMALL ");
    let (h, area) = PamsHeader::split(&d[172..]).unwrap();
    assert_eq!(
        (h.original_target, area),
        (QAddress::new(10, 31), &b"dead"[..])
    );

    // RTS: back to the sender's response queue BACK 10.32, as it was sent
    // (original_target the queue it could not reach).
    let (st, v) = put(
        &g,
        json!({"target": "10.31", "uma": "RTS", "resp_q": "10.32",
               "data_base64": B64.encode(b"back")}),
    );
    assert_eq!(st, 200, "{v}");
    assert_eq!(v["status"], status(19, "PAMS__RTS_SUCCESS"));
    assert_eq!(v["delivery_status"], full);
    assert_eq!(v["queue"], "BACK");
    let (md, data) = take(&g, "BACK");
    assert_eq!(md["Persistence"], 0, "NN_MEM: not persistent");
    let (h, area) = PamsHeader::split(&data).unwrap();
    assert_eq!(h.original_target, QAddress::new(10, 31));
    assert_eq!(h.source, QAddress::new(10, 32));
    assert_eq!(area, b"back");

    // RTS to a response queue that is full too: the UMA fails and the put
    // answers the delivery failure, PAMS__EXCEEDQUOTA (503).
    let (st, _) = put(&g, json!({"target": "10.33"}));
    assert_eq!(st, 201);
    let (st, v) = put(
        &g,
        json!({"target": "10.31", "uma": "RTS", "resp_q": "10.33"}),
    );
    assert_eq!(st, 503, "{v}");
    assert_eq!(v["status"], full);
    assert_eq!(v["mqrc"], 2053);
    assert!(
        v["message"]
            .as_str()
            .unwrap()
            .contains("PDEL_UMA_RTS could not run"),
        "{v}"
    );

    // A queue of the group that is not defined (2085): PAMS__NOOBJECT, and
    // the UMA runs as well.
    let (st, v) = put(&g, json!({"target": "10.77", "uma": "DLQ"}));
    assert_eq!(st, 200, "{v}");
    assert_eq!(v["status"], status(17, "PAMS__DLQ_SUCCESS"));
    assert_eq!(v["delivery_status"], status(-166, "PAMS__NOOBJECT"));
    let (md, d) = take(&g, DLQ);
    assert_eq!(md["Persistence"], 0, "NN_MEM: not persistent");
    assert_eq!(&d[8..12], &2085i32.to_be_bytes());
}

#[test]
fn broadcast_copies_keep_nn_mem_semantics() {
    let g = group();
    // READER and SMALL registered for MOT 5110; SMALL is full.
    register(&g, 5110, 30, ALL, &[], false);
    register(&g, 5110, 31, ALL, &[], false);
    let (st, _) = put(&g, json!({"target": "10.31"}));
    assert_eq!(st, 201);
    // The publisher asks WF_MEM and RTS: its answer is about the message on
    // the SBS server's queue 99 only.
    let (st, v) = put(
        &g,
        json!({"target": "10.5110", "delivery": "WF_MEM", "uma": "RTS",
               "resp_q": "10.32", "data_base64": B64.encode(b"tick")}),
    );
    assert_eq!(st, 201, "{v}");
    assert_eq!(v["delivery_status"], status(33, "PAMS__ENQUEUED"));
    assert_eq!(v["queue"], "PAMS.10.99");
    g.sync();
    // READER's copy: not persistent (the %QCT queue's default), the
    // publisher's header fields kept.
    let (md, data) = take(&g, "READER");
    assert_eq!(md["Persistence"], 0, "{md}");
    let (h, area) = PamsHeader::split(&data).unwrap();
    assert_eq!((h.delivery, h.uma, area), (29, 1, &b"tick"[..]));
    // SMALL lost its copy ("no queuing on a broadcast stream"): no UMA for a
    // copy, nothing returned to the publisher's response queue.
    assert_eq!(g.depth("SMALL"), 1);
    assert_eq!(g.depth("BACK"), 0);
}

/// Runs `mqgate pams put ARGS --gateway BASE -` with `stdin`: (exit status,
/// stdout, stderr).
fn pams_put(g: &Group, args: &[&str], stdin: &[u8]) -> (i32, String, String) {
    let mut child = Command::new(env!("CARGO_BIN_EXE_mqgate"))
        .args(["pams", "put"])
        .args(args)
        .args(["--gateway", &g.base, "-"])
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    std::io::Write::write_all(&mut child.stdin.take().unwrap(), stdin).unwrap();
    let out = child.wait_with_output().unwrap();
    (
        out.status.code().unwrap(),
        String::from_utf8_lossy(&out.stdout).into_owned(),
        String::from_utf8_lossy(&out.stderr).into_owned(),
    )
}

#[test]
fn cli_put_with_delivery_and_uma() {
    let g = group();
    let (rc, out, err) = pams_put(&g, &["--target", "10.30", "--delivery", "WF_SAF"], b"abc");
    assert_eq!(rc, 0, "{err}");
    assert_eq!(
        out,
        "1 PAMS__SUCCESS: 3 bytes put to 10.30 (PDEL_MODE_WF_SAF: PAMS__STORED)\n"
    );
    let (md, _) = take(&g, "READER");
    assert_eq!(md["Persistence"], 1);
    // Exit 1 with the status for a mode mqgate refuses.
    let (rc, _, err) = pams_put(&g, &["--target", "10.30", "--delivery", "AK_MEM"], b"x");
    assert_eq!(rc, 1);
    assert!(
        err.contains("-268 PAMS__NOTSUPPORTED: delivery: PDEL_MODE_AK_MEM"),
        "{err}"
    );
    // Exit 0 when the UMA ran; the line names it.
    pams_put(&g, &["--target", "10.31"], b"");
    let (rc, out, err) = pams_put(&g, &["--target", "10.31", "--uma", "DISCL"], b"x");
    assert_eq!(rc, 0, "{err}");
    assert!(
        out.starts_with("13 PAMS__DISCL_SUCCESS: 10.31 cannot take the message"),
        "{out}"
    );
}

//! Attachments of PAMS API clients (docs/messageq.md "Attachments"): `POST
//! /v1/pams/attachments` (`pams_attach_q`), its keep-alive, `DELETE
//! /v1/pams/attachments/{id}` (`pams_exit`); temporary queues deleted when
//! their attachment ends; registrations made with `auto_dereg`, and every
//! registration of a temporary queue, removed with it; durable
//! registrations across a restart.
//!
//! Sources of the expected values: BEA MessageQ 5.0 Programmer's Guide,
//! "Broadcasting Messages" ("An application can withdraw from the broadcast
//! stream ... by exiting the BEA MessageQ message queuing bus when the
//! automatic deregistration was previously set in the subscription entry";
//! "Temporary queues are automatically deregistered when the application
//! exits"; registrations are "volatile"); the return codes of `p_return.h`
//! V4.0-09 (PAMS__SUCCESS 1, PAMS__DISC_SUCCESS 11, PAMS__BADDELIVERY -60,
//! PAMS__BADPROCNUM -62, PAMS__NOTDCL -70, PAMS__DECLARED -106,
//! PAMS__DCLTMPFAIL -136, PAMS__NOOBJECT -166, PAMS__BADPARAM -186); IBM MQ
//! "Properties of temporary dynamic queues" (non-persistent messages only:
//! 2048 MQRC_PERSISTENT_NOT_ALLOWED). The temporary queue numbers
//! (`messageq.temporary_queues`, default 1000-3999), the keep-alive and the
//! HTTP statuses are mqgate's (docs/messageq.md "Attachments").

#[path = "sbs_util/mod.rs"]
mod sbs_util;

use base64::Engine;
use base64::engine::general_purpose::STANDARD as B64;
use mqgate_codecs::pams::Endian;
use sbs_util::*;
use serde_json::{Value, json};
use std::time::Duration;

const MOT: i32 = 4100;

fn group_with(extra: &str) -> Group {
    let init = init_file(&format!(
        "{}{}",
        qct_line("READER", 30, ".", "."),
        qct_line("OTHER", 31, ".", ".")
    ));
    Group::start_with(10, &init, extra)
}

fn attach(g: &Group, body: Value) -> (u16, Value) {
    g.call("POST", "/v1/pams/attachments", Some(body))
}

fn status(v: &Value) -> (i64, &str) {
    (
        v["status"]["number"].as_i64().unwrap_or(0),
        v["status"]["name"].as_str().unwrap_or(""),
    )
}

fn queue_listed(g: &Group, name: &str) -> bool {
    let (st, v) = g.call("GET", "/v1/queues", None);
    assert_eq!(st, 200, "{v}");
    v.as_array().unwrap().iter().any(|q| q["name"] == name)
}

/// Registers `queue` for MOT 4100 with `auto_dereg` as given (acknowledged).
fn register_auto(g: &Group, queue: u16, auto_dereg: bool) -> i32 {
    let order = Endian::Big;
    let mut req = register_req(7, MOT, g.addr(queue), true, false, ALL, &[], order);
    // auto_dereg is the int32 at offset 24 of SBS_REGISTER_REQ (p_msg.h).
    req[24..28].copy_from_slice(&i32_bytes(i32::from(auto_dereg), order));
    let (h, body) = g.ask(types::REGISTER_REQ, &req, order);
    assert_eq!(h.msg_type, types::REGISTER_RESP);
    assert_eq!(&body[8..12], &1i32.to_be_bytes(), "PSYM_SBS_SUCCESS");
    i32::from_be_bytes(body[12..16].try_into().unwrap())
}

/// `num_reg` of MOT 4100 in SBS_STATUS_RESP (0 when the MOT is not listed).
fn num_reg(g: &Group) -> i32 {
    let mut area = Vec::new();
    for v in [40, 5, MOT, MOT, 0] {
        area.extend_from_slice(&v.to_be_bytes());
    }
    let (h, body) = g.ask(types::STATUS_REQ, &area, Endian::Big);
    assert_eq!(h.msg_type, types::STATUS_RESP);
    // SBS_STATUS_RESP: version 0, user_tag 4, status 8, num_rec 12,
    // last_block 16 (p_msg.h), then 152-byte SBS_STATUS_RESP_MOT records:
    // mot at 0, num_reg at 40.
    let num_rec = i32::from_be_bytes(body[12..16].try_into().unwrap());
    if num_rec == 0 {
        return 0;
    }
    let rec = STATUS_RESP_HEAD;
    assert_eq!(&body[rec..rec + 4], &MOT.to_be_bytes());
    i32::from_be_bytes(body[rec + 40..rec + 44].try_into().unwrap())
}

/// SBS_STATUS_RESP's head before the first record (`p_msg.h` V4.0-08).
const STATUS_RESP_HEAD: usize = 20;

#[test]
fn attach_a_queue_and_a_temporary_queue_then_exit() {
    let g = group_with("");
    let (st, a) = attach(&g, json!({"queue": "10.30"}));
    assert_eq!(st, 201, "{a}");
    assert_eq!(status(&a), (1, "PAMS__SUCCESS"));
    assert_eq!(
        (&a["queue"], &a["mq_queue"], &a["temporary"]),
        (&json!("10.30"), &json!("READER"), &json!(false))
    );
    assert_eq!(
        a["timeout_ms"], 30_000,
        "messageq.attachment_timeout_ms default"
    );
    // A queue is attached by one client at a time (PAMS__DECLARED -106).
    let (st, v) = attach(&g, json!({"queue": "0.30"}));
    assert_eq!((st, status(&v)), (409, (-106, "PAMS__DECLARED")), "{v}");

    // Temporary queues: the lowest free numbers of 1000-3999.
    let (st, t) = attach(&g, json!({"queue": "temporary", "timeout_ms": 60000}));
    assert_eq!(st, 201, "{t}");
    assert_eq!(
        (
            &t["queue"],
            &t["mq_queue"],
            &t["temporary"],
            &t["timeout_ms"]
        ),
        (
            &json!("10.1000"),
            &json!("PAMS.10.1000"),
            &json!(true),
            &json!(60000)
        )
    );
    let (_, t2) = attach(&g, json!({"queue": "temporary"}));
    assert_eq!(t2["queue"], "10.1001");
    assert!(queue_listed(&g, "PAMS.10.1000"));

    // A temporary queue takes non-persistent messages (NN_MEM) and refuses
    // recoverable ones (IBM MQ: 2048 on a temporary dynamic queue).
    let put = |delivery: &str| {
        g.call(
            "POST",
            "/v1/pams/messages",
            Some(
                json!({"target": "10.1000", "delivery": delivery, "resp_q": "10.2",
                        "data_base64": B64.encode(b"to the temporary queue")}),
            ),
        )
    };
    let (st, v) = put("NN_MEM");
    assert_eq!((st, status(&v)), (201, (1, "PAMS__SUCCESS")), "{v}");
    assert_eq!(v["queue"], "PAMS.10.1000");
    let (st, v) = put("WF_SAF");
    assert_eq!(status(&v), (-60, "PAMS__BADDELIVERY"), "{st} {v}");
    assert_eq!(v["mqrc"], 2048, "{v}");

    let (st, shown) = g.call(
        "GET",
        &format!("/v1/pams/attachments/{}", t["attachment"].as_str().unwrap()),
        None,
    );
    assert_eq!(st, 200, "{shown}");
    assert!(shown["expires_in_ms"].as_u64().unwrap() <= 60_000);

    // pams_exit: the temporary queue goes, with the message on it.
    let id = t["attachment"].as_str().unwrap();
    let (st, e) = g.call("DELETE", &format!("/v1/pams/attachments/{id}"), None);
    assert_eq!(st, 200, "{e}");
    assert_eq!(status(&e), (1, "PAMS__SUCCESS"));
    assert_eq!(e["messages_discarded"], 1);
    assert!(!queue_listed(&g, "PAMS.10.1000"));
    // A put to it now finds no queue: the default UMA discards it.
    let (st, v) = put("NN_MEM");
    assert_eq!((st, status(&v)), (200, (11, "PAMS__DISC_SUCCESS")), "{v}");
    // The attachment is gone (PAMS__NOTDCL -70), also for its keep-alive.
    let (st, v) = g.call("DELETE", &format!("/v1/pams/attachments/{id}"), None);
    assert_eq!((st, status(&v)), (404, (-70, "PAMS__NOTDCL")), "{v}");
    let (st, v) = g.call(
        "POST",
        &format!("/v1/pams/attachments/{id}/keepalive"),
        None,
    );
    assert_eq!((st, status(&v)), (404, (-70, "PAMS__NOTDCL")), "{v}");
    // The freed number is handed out again.
    let (_, t3) = attach(&g, json!({"queue": "temporary"}));
    assert_eq!(t3["queue"], "10.1000");

    // Exiting the permanent attachment keeps its queue.
    let id = a["attachment"].as_str().unwrap();
    let (st, e) = g.call("DELETE", &format!("/v1/pams/attachments/{id}"), None);
    assert_eq!((st, &e["messages_discarded"]), (200, &json!(0)), "{e}");
    assert!(queue_listed(&g, "READER"));
    let (st, _) = attach(&g, json!({"queue": "10.30"}));
    assert_eq!(st, 201, "attachable again after pams_exit");
}

#[test]
fn bad_attachments_are_refused_with_their_status() {
    let g = group_with("");
    for (body, http, number, name) in [
        (json!({"queue": "20.5"}), 400, -186, "PAMS__BADPARAM"),
        (json!({"queue": "10.0"}), 400, -62, "PAMS__BADPROCNUM"),
        (json!({"queue": "10.5110"}), 400, -62, "PAMS__BADPROCNUM"),
        (json!({"queue": "10.99"}), 409, -106, "PAMS__DECLARED"),
        (json!({"queue": "10.77"}), 404, -166, "PAMS__NOOBJECT"),
        (json!({"queue": "queue 30"}), 400, -186, "PAMS__BADPARAM"),
        (
            json!({"queue": "10.30", "timeout_ms": 5}),
            400,
            -186,
            "PAMS__BADPARAM",
        ),
        (
            json!({"queue": "10.30", "timeout_ms": 3_600_001u64}),
            400,
            -186,
            "PAMS__BADPARAM",
        ),
        (
            json!({"queue": "10.30", "colour": 1}),
            400,
            -186,
            "PAMS__BADPARAM",
        ),
        (json!({}), 400, -186, "PAMS__BADPARAM"),
    ] {
        let (st, v) = attach(&g, body.clone());
        assert_eq!((st, status(&v)), (http, (number, name)), "{body}: {v}");
        assert!(!v["message"].as_str().unwrap_or("").is_empty(), "{v}");
    }
    for id in [
        "junk",
        "0123456789abcdef0123456789abcdef",
        &"x".repeat(5000),
    ] {
        let (st, v) = g.call("DELETE", &format!("/v1/pams/attachments/{id}"), None);
        assert_eq!((st, status(&v)), (404, (-70, "PAMS__NOTDCL")), "{v}");
    }
    // Nothing above attached anything.
    let (st, _) = attach(&g, json!({"queue": "10.30"}));
    assert_eq!(st, 201);
}

#[test]
fn temporary_queue_numbers_run_out() {
    let g = group_with("  temporary_queues: {first: 2000, last: 2001}\n");
    assert_eq!(
        attach(&g, json!({"queue": "temporary"})).1["queue"],
        "10.2000"
    );
    assert_eq!(
        attach(&g, json!({"queue": "temporary"})).1["queue"],
        "10.2001"
    );
    let (st, v) = attach(&g, json!({"queue": "temporary"}));
    assert_eq!((st, status(&v)), (503, (-136, "PAMS__DCLTMPFAIL")), "{v}");
}

#[test]
fn auto_dereg_registrations_end_with_the_attachment() {
    let g = group_with("");
    let (_, a) = attach(&g, json!({"queue": "10.30"}));
    let (_, t) = attach(&g, json!({"queue": "temporary"}));
    register_auto(&g, 30, true); // ends with the attachment of 10.30
    register_auto(&g, 30, false); // stays
    register_auto(&g, 1000, false); // a temporary queue's: ends with it
    register_auto(&g, 31, true); // 10.31 is not attached: stays
    assert_eq!(num_reg(&g), 4);

    let id = a["attachment"].as_str().unwrap();
    assert_eq!(
        g.call("DELETE", &format!("/v1/pams/attachments/{id}"), None)
            .0,
        200
    );
    assert_eq!(
        num_reg(&g),
        3,
        "the auto_dereg registration of 10.30 is removed"
    );
    let id = t["attachment"].as_str().unwrap();
    assert_eq!(
        g.call("DELETE", &format!("/v1/pams/attachments/{id}"), None)
            .0,
        200
    );
    assert_eq!(
        num_reg(&g),
        2,
        "the temporary queue's registration is removed"
    );

    // A broadcast reaches the two left: 10.30 (once, by its registration
    // without auto_dereg) and 10.31.
    g.publish(MOT as u16, g.addr(CTL), 1, 1, b"tick", Endian::Big);
    g.sync();
    assert_eq!(g.drain("READER").len(), 1);
    assert_eq!(g.drain("OTHER").len(), 1);
}

#[test]
fn a_missed_keepalive_ends_the_attachment() {
    let g = group_with("");
    let (_, kept) = attach(&g, json!({"queue": "10.30", "timeout_ms": 1000}));
    let (_, lost) = attach(&g, json!({"queue": "temporary", "timeout_ms": 1000}));
    register_auto(&g, 1000, false);
    assert_eq!(num_reg(&g), 1);
    let kept_id = kept["attachment"].as_str().unwrap();
    // Keep one alive for 3 s; the other misses its 1 s keep-alive.
    for _ in 0..6 {
        std::thread::sleep(Duration::from_millis(500));
        let (st, v) = g.call(
            "POST",
            &format!("/v1/pams/attachments/{kept_id}/keepalive"),
            None,
        );
        assert_eq!(st, 200, "{v}");
    }
    let lost_id = lost["attachment"].as_str().unwrap();
    let (st, v) = g.call("GET", &format!("/v1/pams/attachments/{lost_id}"), None);
    assert_eq!((st, status(&v)), (404, (-70, "PAMS__NOTDCL")), "{v}");
    assert!(!queue_listed(&g, "PAMS.10.1000"));
    assert_eq!(
        num_reg(&g),
        0,
        "the temporary queue's registration ended with it"
    );
    let (st, _) = g.call("GET", &format!("/v1/pams/attachments/{kept_id}"), None);
    assert_eq!(st, 200, "kept alive");
}

#[test]
fn durable_registrations_survive_a_restart_volatile_ones_do_not() {
    let mut g = group_with("  durable_registrations: true\n");
    let (_, _a) = attach(&g, json!({"queue": "10.30"}));
    register_auto(&g, 30, true); // owned by the attachment: never kept
    let kept = register_auto(&g, 31, false);
    assert_eq!(num_reg(&g), 2);
    g.restart();
    assert_eq!(num_reg(&g), 1);
    g.publish(MOT as u16, g.addr(CTL), 1, 1, b"after restart", Endian::Big);
    g.sync();
    assert_eq!(g.drain("OTHER").len(), 1);
    assert_eq!(g.drain("READER").len(), 0);
    // New registrations take ids after the restored one.
    assert_eq!(register_auto(&g, 30, false), kept + 1);

    // Without the option, registrations are volatile (MessageQ's behaviour).
    let mut v = group_with("");
    register_auto(&v, 31, false);
    v.restart();
    assert_eq!(num_reg(&v), 0);
}

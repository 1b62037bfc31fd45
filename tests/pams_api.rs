//! The PAMS API over HTTP (docs/messageq.md "PAMS API"): `POST
//! /v1/pams/messages` (`pams_put_msg`), `GET
//! /v1/pams/queues/{address}/messages/next` (`pams_get_msg` with its show
//! buffer), `GET /v1/pams/locate/{name}` (`pams_locate_q` on `%GNT`).
//!
//! Sources of the expected values: the return codes of BEA MessageQ
//! `p_return.h` V4.0-09 (PAMS__SUCCESS 1, PAMS__DISC_SUCCESS 11, PAMS__MSGTOBIG -22, PAMS__EXCEEDQUOTA
//! -56, PAMS__BADPRIORITY -58, PAMS__BADDELIVERY -60, PAMS__NOOBJECT -166,
//! PAMS__BADPARAM -186, PAMS__BADRESPQ -224); the show buffer offsets of
//! `p_entry.h` 5.0 (version 0, transfer_size 8, target 40, original_target
//! 44, source 48, original_source 52, delivery 56, priority 60, endian 64,
//! correlation_id 68); the MOT ranges of the Programmer's Guide Table 3-1
//! (reserved 4900-5100); "Reading Broadcast Messages" (source = the MOT,
//! original source = the publisher); `%GNT` of Listing 3-1. The mapping
//! of MQRCs to PAMS codes, the source 10.0 of an HTTP put without resp_q and
//! the queue names `PAMS.<group>.<queue>` are mqgate's (docs/messageq.md).

#[path = "sbs_util/mod.rs"]
mod sbs_util;

use base64::Engine;
use base64::engine::general_purpose::STANDARD as B64;
use sbs_util::*;
use serde_json::{Value, json};

fn gnt_group() -> Group {
    let init = format!(
        "%PROFILE\nENABLE_SBS YES\n%EOS\n%QCT\n{}{}{}%EOS\n%GNT\nStock_prices 0.5110 G\nLocal_events 0.4810 L\nReader 10.30 G\n%EOS\n",
        qct_line("CTL", CTL, ".", "."),
        qct_line("READER", 30, ".", "."),
        qct_line("SMALL", 31, ".", "1"),
    );
    Group::start(10, &init)
}

fn put(g: &Group, body: Value) -> (u16, Value) {
    g.call("POST", "/v1/pams/messages", Some(body))
}

fn hex_i32(hex: &str, at: usize) -> i32 {
    let b = hex::decode(hex).unwrap();
    i32::from_be_bytes(b[at..at + 4].try_into().unwrap())
}

#[test]
fn put_then_get_with_show_buffer() {
    let g = gnt_group();
    let corr = "AB".repeat(32);
    let (st, v) = put(
        &g,
        json!({"target": "10.30", "class": 100, "type": -7, "priority": 42,
               "delivery": "PDEL_MODE_NN_MEM", "uma": "DISC", "resp_q": "10.2",
               "correlation_id": corr, "data_base64": B64.encode(b"hello")}),
    );
    assert_eq!(st, 201, "{v}");
    assert_eq!(v["status"], json!({"number": 1, "name": "PAMS__SUCCESS"}));
    assert_eq!(v["queue"], "READER");
    let (st, m) = g.call("GET", "/v1/pams/queues/10.30/messages/next?wait_ms=0", None);
    assert_eq!(st, 200, "{m}");
    assert_eq!(m["target"], "10.30");
    assert_eq!(m["original_target"], "10.30");
    // No attached queue over HTTP: the source is the resp_q.
    assert_eq!(m["source"], "10.2");
    assert_eq!(m["original_source"], "10.2");
    assert_eq!(
        (m["class"].as_i64(), m["type"].as_i64()),
        (Some(100), Some(-7))
    );
    assert_eq!(m["priority"], 42);
    // PDEL_MODE_NN_MEM 39, PDEL_UMA_DISC 5 (p_symbol.h 5.0); big-endian 1.
    assert_eq!(
        (m["delivery"].as_i64(), m["uma"].as_i64()),
        (Some(39), Some(5))
    );
    assert_eq!(m["endian"], 1);
    assert_eq!(m["correlation_id"], corr);
    assert_eq!(m["size"], 5);
    assert_eq!(m["data_base64"], B64.encode(b"hello"));
    let sb = m["show_buffer_hex"].as_str().unwrap();
    assert_eq!(sb.len(), 200, "100 bytes");
    assert_eq!(hex_i32(sb, 0), 50, "version 5.0");
    assert_eq!(hex_i32(sb, 8), 5, "transfer_size");
    // q_address queue first: 10.30 = 0x001E000A.
    assert_eq!(hex_i32(sb, 40), 0x001E_000A, "target");
    assert_eq!(hex_i32(sb, 48), 0x0002_000A, "source");
    assert_eq!(hex_i32(sb, 56), 39, "delivery");
    assert_eq!(hex_i32(sb, 60), 42, "priority");
    assert_eq!(hex_i32(sb, 64), 1, "endian PSYM_BIG_ENDIAN");
    assert_eq!(&sb[136..200], corr, "correlation_id at 68");
    // Nothing more: 204.
    let (st, _) = g.call(
        "GET",
        "/v1/pams/queues/10.30/messages/next?wait_ms=50",
        None,
    );
    assert_eq!(st, 204);
}

#[test]
fn gnt_names_and_locate() {
    let g = gnt_group();
    let (st, v) = g.call("GET", "/v1/pams/locate/Reader", None);
    assert_eq!(st, 200, "{v}");
    assert_eq!(v["address"], "10.30");
    assert_eq!(v["scope"], "G");
    let (st, v) = g.call("GET", "/v1/pams/locate/Stock_prices", None);
    assert_eq!(
        (st, v["address"].as_str(), v["mot"].as_bool()),
        (200, Some("10.5110"), Some(true))
    );
    // Scope L is group-wide only: not found in the bus table.
    let (st, v) = g.call("GET", "/v1/pams/locate/Local_events?scope=bus", None);
    assert_eq!(st, 404, "{v}");
    assert_eq!(
        v["status"],
        json!({"number": -166, "name": "PAMS__NOOBJECT"})
    );
    let (st, v) = g.call("GET", "/v1/pams/locate/Local_events?scope=group", None);
    assert_eq!((st, v["address"].as_str()), (200, Some("10.4810")));
    let (st, v) = g.call("GET", "/v1/pams/locate/Nobody", None);
    assert_eq!((st, v["status"]["number"].as_i64()), (404, Some(-166)));
    // A put to a name.
    let (st, v) = put(&g, json!({"target": "Reader", "data_base64": ""}));
    assert_eq!((st, v["target"].as_str()), (201, Some("10.30")), "{v}");
    let (st, v) = put(&g, json!({"target": "Nobody"}));
    assert_eq!(st, 404);
    assert_eq!(v["status"]["number"], -166);
    assert_eq!(v["field"], "target");
}

#[test]
fn a_put_to_a_mot_is_broadcast_by_the_sbs_server() {
    let g = gnt_group();
    // READER registers for MOT 5110 (the stock price example of the
    // Programmer's Guide), then a put to the MOT's %GNT name.
    register(&g, 5110, 30, ALL, &[], false);
    let (st, v) = put(
        &g,
        json!({"target": "Stock_prices", "class": 1, "type": 2, "resp_q": "10.2",
               "data_base64": B64.encode(b"IBM 101.25")}),
    );
    assert_eq!(st, 201, "{v}");
    assert_eq!(v["queue"], "PAMS.10.99", "the SBS server's queue");
    let (st, m) = g.call(
        "GET",
        "/v1/pams/queues/10.30/messages/next?wait_ms=5000",
        None,
    );
    assert_eq!(st, 200, "{m}");
    assert_eq!(m["source"], "10.5110", "source = the MOT");
    assert_eq!(m["original_target"], "10.5110");
    assert_eq!(m["original_source"], "10.2", "the publisher");
    assert_eq!(m["target"], "10.30");
    assert_eq!(m["data_base64"], B64.encode(b"IBM 101.25"));
}

#[test]
fn lease_then_ack_or_backout_with_the_queue_api() {
    let g = gnt_group();
    let (st, _) = put(
        &g,
        json!({"target": "10.30", "data_base64": B64.encode(b"one")}),
    );
    assert_eq!(st, 201);
    let (st, m) = g.call(
        "GET",
        "/v1/pams/queues/10.30/messages/next?wait_ms=0&lease=true",
        None,
    );
    assert_eq!(st, 200, "{m}");
    assert_eq!(m["queue"], "READER");
    let lease = m["lease"].as_str().unwrap().to_string();
    assert_eq!(lease.len(), 32, "the queue API's lease token");
    let (st, v) = g.call(
        "POST",
        &format!("/v1/queues/READER/messages/backout/{lease}"),
        None,
    );
    assert_eq!(st, 200, "{v}");
    let (st, m) = g.call(
        "GET",
        "/v1/pams/queues/10.30/messages/next?wait_ms=0&lease=true",
        None,
    );
    assert_eq!(
        (st, m["data_base64"].as_str()),
        (200, Some(B64.encode(b"one").as_str()))
    );
    let lease = m["lease"].as_str().unwrap().to_string();
    let (st, v) = g.call(
        "POST",
        &format!("/v1/queues/READER/messages/ack/{lease}"),
        None,
    );
    assert_eq!(st, 200, "{v}");
    assert_eq!(g.depth("READER"), 0);
}

#[test]
fn bad_input_is_named_with_its_pams_status() {
    let g = gnt_group();
    let cases: [(Value, u16, i64, &str, &str); 15] = [
        (
            json!({"target": "10.x"}),
            400,
            -186,
            "PAMS__BADPARAM",
            "target",
        ),
        (
            json!({"target": "10.5000"}),
            400,
            -186,
            "PAMS__BADPARAM",
            "target",
        ),
        (
            json!({"target": "10.0"}),
            400,
            -186,
            "PAMS__BADPARAM",
            "target",
        ),
        (
            json!({"target": "10.30", "priority": 100}),
            400,
            -58,
            "PAMS__BADPRIORITY",
            "priority",
        ),
        (
            json!({"target": "10.30", "priority": -1}),
            400,
            -58,
            "PAMS__BADPRIORITY",
            "priority",
        ),
        (
            json!({"target": "10.30", "delivery": "FAST"}),
            400,
            -60,
            "PAMS__BADDELIVERY",
            "delivery",
        ),
        (
            json!({"target": "10.30", "resp_q": "x"}),
            400,
            -224,
            "PAMS__BADRESPQ",
            "resp_q",
        ),
        (
            json!({"target": "10.30", "correlation_id": "zz"}),
            400,
            -186,
            "PAMS__BADPARAM",
            "correlation_id",
        ),
        (
            json!({"target": "10.30", "correlation_id": "AB"}),
            400,
            -186,
            "PAMS__BADPARAM",
            "correlation_id",
        ),
        (
            json!({"target": "10.30", "class": 40000}),
            400,
            -186,
            "PAMS__BADPARAM",
            "class",
        ),
        // Digits, dots, signs and blanks only: an address, never a %GNT
        // name (which would be -166 PAMS__NOOBJECT).
        (
            json!({"target": "-1.5"}),
            400,
            -186,
            "PAMS__BADPARAM",
            "target",
        ),
        (
            json!({"target": " 10.30"}),
            400,
            -186,
            "PAMS__BADPARAM",
            "target",
        ),
        (
            json!({"target": "10."}),
            400,
            -186,
            "PAMS__BADPARAM",
            "target",
        ),
        // Replies go to a queue: queue 0 and a MOT are no response queue.
        (
            json!({"target": "10.30", "resp_q": "10.0"}),
            400,
            -224,
            "PAMS__BADRESPQ",
            "resp_q",
        ),
        (
            json!({"target": "10.30", "resp_q": "0.5110"}),
            400,
            -224,
            "PAMS__BADRESPQ",
            "resp_q",
        ),
    ];
    for (body, http, number, name, field) in cases {
        let (st, v) = put(&g, body.clone());
        assert_eq!(st, http, "{body}: {v}");
        assert_eq!(
            v["status"],
            json!({"number": number, "name": name}),
            "{body}: {v}"
        );
        assert_eq!(v["field"], field, "{body}: {v}");
        assert!(v["message"].as_str().unwrap().starts_with(field), "{v}");
    }
    // A queue of the group that is not defined (2085): delivery status
    // PAMS__NOOBJECT -166, and the default UMA PDEL_UMA_DISC discards it
    // (PAMS__DISC_SUCCESS 11; tests/pams_delivery.rs has every UMA).
    let (st, v) = put(&g, json!({"target": "10.77"}));
    assert_eq!(
        (
            st,
            v["status"]["number"].as_i64(),
            v["delivery_status"]["number"].as_i64(),
            v["mqrc"].as_i64()
        ),
        (200, Some(11), Some(-166), Some(2085)),
        "{v}"
    );
    // Bad address on get, and queue 0, which names no queue.
    for bad in ["ten.30", "10.0"] {
        let (st, v) = g.call("GET", &format!("/v1/pams/queues/{bad}/messages/next"), None);
        assert_eq!(
            (st, v["field"].as_str(), v["status"]["number"].as_i64()),
            (400, Some("address"), Some(-186)),
            "{bad}: {v}"
        );
    }
}

/// A POST with the body as given and, when `ctype` is given, that
/// Content-Type: (HTTP status, JSON answer).
fn raw(g: &Group, path: &str, ctype: Option<&str>, body: &[u8]) -> (u16, Value) {
    let mut req = ureq::post(&format!("{}{path}", g.base));
    if let Some(t) = ctype {
        req = req.set("Content-Type", t);
    }
    let r = match req.send_bytes(body) {
        Ok(r) => r,
        Err(ureq::Error::Status(_, r)) => r,
        Err(e) => panic!("POST {path}: {e}"),
    };
    (r.status(), r.into_json().unwrap_or(Value::Null))
}

#[test]
fn bodies_are_json_objects_and_errors_are_cut() {
    let g = gnt_group();
    const JSON: Option<&str> = Some("application/json");
    for route in ["/v1/pams/messages", "/v1/pams/attachments"] {
        // An array, a string: -186 PAMS__BADPARAM naming what the body is
        // (no serde type names).
        let (st, v) = raw(&g, route, JSON, b"[1, 2]");
        assert_eq!(
            (st, v["status"]["number"].as_i64()),
            (400, Some(-186)),
            "{v}"
        );
        assert_eq!(
            v["message"],
            format!(
                "the body is a JSON array: POST {route} takes a JSON object {{...}} (docs/messageq.md \"PAMS API\")"
            )
        );
        let (_, v) = raw(&g, route, JSON, b" \"10.30\"");
        assert!(
            v["message"]
                .as_str()
                .unwrap()
                .starts_with("the body is a JSON string: "),
            "{v}"
        );
        // Bad JSON: the place once (serde_json: "key must be a string at
        // line 1 column 2").
        let (st, v) = raw(&g, route, JSON, b"{1: 2}");
        assert_eq!(st, 400);
        assert_eq!(
            v["message"],
            "the JSON body is not valid at line 1, column 2: key must be a string"
        );
        // Content-Type application/json is required, as on the other JSON
        // routes: 415 with 2004 MQRC_BUFFER_ERROR (docs/http-api.md "Errors").
        let (st, v) = raw(&g, route, None, b"{}");
        assert_eq!(
            (st, v["status"]["number"].as_i64(), v["mqrc"].as_i64()),
            (415, Some(-186), Some(2004)),
            "{v}"
        );
        assert_eq!(
            v["message"],
            format!(
                "POST {route} needs Content-Type: application/json (its body is JSON); the request has no Content-Type"
            )
        );
        let (st, _) = raw(&g, route, Some("text/plain"), b"{}");
        assert_eq!(st, 415);
    }
    // An error message is at most 1024 bytes, then `… (N bytes)`; a value
    // it repeats is quoted up to 64 characters (docs/http-api.md "Errors").
    let long = "Q".repeat(5000);
    let (st, v) = put(&g, json!({ long.clone(): 1, "target": "10.30" }));
    assert_eq!(st, 400);
    let m = v["message"].as_str().unwrap();
    assert!(
        m.len() <= 1024 + 20 && m.ends_with(" bytes)"),
        "{} bytes: {m}",
        m.len()
    );
    let (st, v) = put(&g, json!({ "target": long }));
    assert_eq!((st, v["status"]["number"].as_i64()), (404, Some(-166)));
    assert_eq!(
        v["message"],
        format!(
            "target: \"{}\"… (5000 bytes) is no %GNT name of group 10 (pams_locate_q: PAMS__NOOBJECT)",
            "Q".repeat(64)
        )
    );
}

#[test]
fn quota_and_size_limits() {
    let g = gnt_group();
    // SMALL (10.31) has message quota 1 (%QCT): the second put is over it.
    let (st, _) = put(&g, json!({"target": "10.31", "data_base64": ""}));
    assert_eq!(st, 201);
    // The default UMA PDEL_UMA_DISC discards it: PAMS__DISC_SUCCESS 11,
    // delivery status PAMS__EXCEEDQUOTA -56.
    let (st, v) = put(&g, json!({"target": "10.31", "data_base64": ""}));
    assert_eq!(st, 200, "{v}");
    assert_eq!(
        v["status"],
        json!({"number": 11, "name": "PAMS__DISC_SUCCESS"})
    );
    assert_eq!(
        v["delivery_status"],
        json!({"number": -56, "name": "PAMS__EXCEEDQUOTA"})
    );
    assert_eq!(v["mqrc"], 2053, "MQRC_Q_FULL");
    // MAXMSGL 4 MiB (mqgate's default, IBM MQ's) less the 96-byte header.
    let area = vec![0u8; 4 * 1024 * 1024 - 96 + 1];
    let (st, v) = put(
        &g,
        json!({"target": "10.30", "data_base64": B64.encode(&area)}),
    );
    assert_eq!(st, 413, "{}", v["message"]);
    assert_eq!(
        v["status"],
        json!({"number": -22, "name": "PAMS__MSGTOBIG"})
    );
    assert_eq!(v["field"], "data_base64");
    // The largest area, its base64 written with every `/` escaped as `\/`
    // (JSON allows it, RFC 8259 §7): twice as long, and still taken.
    let area = vec![0xFFu8; 4 * 1024 * 1024 - 96];
    let escaped = B64.encode(&area).replace('/', "\\/");
    let body = format!("{{\"target\": \"10.30\", \"data_base64\": \"{escaped}\"}}");
    let (st, v) = raw(
        &g,
        "/v1/pams/messages",
        Some("application/json"),
        body.as_bytes(),
    );
    assert_eq!(st, 201, "{}", v["message"]);
    // A body beyond the limit — 2 × the base64 of MAXMSGL (4 × 1398102)
    // + 64 KiB = 11250352 bytes — is 413 with -22 PAMS__MSGTOBIG and 2031
    // MQRC_MSG_TOO_BIG_FOR_Q_MGR, in mqgate's words.
    let body = format!(
        "{{\"target\": \"10.30\", \"x\": \"{}\"}}",
        "A".repeat(11_250_352)
    );
    let (st, v) = raw(
        &g,
        "/v1/pams/messages",
        Some("application/json"),
        body.as_bytes(),
    );
    assert_eq!(
        (st, v["status"]["number"].as_i64(), v["mqrc"].as_i64()),
        (413, Some(-22), Some(2031)),
        "{v}"
    );
    assert_eq!(
        v["message"],
        "the body of POST /v1/pams/messages is longer than its limit of 11250352 bytes (twice the base64 of the queue manager's MAXMSGL, plus 64 KiB)"
    );
}

#[test]
fn selective_receive_by_correlation_id() {
    let g = gnt_group();
    let (a, b) = ("01".repeat(32), "02".repeat(32));
    for (corr, data) in [(&a, "first"), (&b, "second")] {
        let (st, v) = put(
            &g,
            json!({"target": "10.30", "correlation_id": corr, "data_base64": B64.encode(data)}),
        );
        assert_eq!(st, 201, "{v}");
    }
    // The second message is taken first when its correlation id is asked for.
    let (st, m) = g.call(
        "GET",
        &format!("/v1/pams/queues/10.30/messages/next?correlation_id={b}"),
        None,
    );
    assert_eq!(
        (st, m["data_base64"].as_str()),
        (200, Some(B64.encode("second").as_str()))
    );
    let (st, _) = g.call(
        "GET",
        &format!("/v1/pams/queues/10.30/messages/next?correlation_id={b}&wait_ms=50"),
        None,
    );
    assert_eq!(st, 204);
    let (st, v) = g.call(
        "GET",
        "/v1/pams/queues/10.30/messages/next?correlation_id=XYZ",
        None,
    );
    assert_eq!(
        (st, v["field"].as_str(), v["status"]["number"].as_i64()),
        (400, Some("correlation_id"), Some(-186))
    );
    assert_eq!(g.depth("READER"), 1, "the first is still there");
}

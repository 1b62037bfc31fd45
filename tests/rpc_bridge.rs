//! End-to-end tests of the RPC bridge (docs/rpc.md; the EntireX WebSphere MQ RPC
//! Server documentation) against the built binary, with fixtures/rpc/demo.idl.

mod common;

use common::{Gateway, data};
use mqgate_codecs::mq::chain::Descriptor;
use mqgate_codecs::mq::rfh::{Mqrfh, parse_rfh, write_rfh};
use mqgate_codecs::mq::{ByteOrder, CharField, Charset};
use serde_json::{Value, json};
use std::time::{Duration, Instant};

const IDL: &str = concat!(env!("CARGO_MANIFEST_DIR"), "/fixtures/rpc/demo.idl");

/// The walk-through gateway (fixtures/rpc/gateway.yaml) with the IDL path
/// made absolute and `extra` appended to the `rpc:` section.
fn config(extra: &str) -> String {
    format!(
        "queue_manager:
  name: QM1
queues:
  - type: local
    name: RPC.REQUEST
  - type: local
    name: RPC.REPLY
  - type: local
    name: APP.QUEUE
rpc:
  idl_files:
    - {IDL}
  output_queue: RPC.REQUEST
  input_queue: RPC.REPLY
  wait_interval_ms: 5000
{extra}"
    )
}

fn start(extra: &str) -> (tempfile::TempDir, Gateway) {
    let dir = tempfile::tempdir().unwrap();
    let g = Gateway::start(dir.path(), &config(extra));
    (dir, g)
}

fn rpc(g: &Gateway, program: &str, query: &str, params: Value) -> (u16, Value) {
    g.call(
        "POST",
        &format!("/v1/rpc/DEMO/{program}{query}"),
        Some(("application/json", params.to_string().as_bytes())),
    )
}

/// Browses the first message of `q` (status 404 when there is none).
fn browse(g: &Gateway, q: &str) -> (u16, Value) {
    g.next(q, "browse=true")
}

/// A test responder: gets `n` requests from RPC.REQUEST, answers each with
/// `reply(request data)` on its ReplyToQ, carrying the request's CorrelId
/// (docs/rpc.md "Mapping rules": replies carry the request's CorrelId).
fn responder(
    base: String,
    n: usize,
    reply: fn(&[u8]) -> Vec<u8>,
) -> std::thread::JoinHandle<Vec<Value>> {
    std::thread::spawn(move || {
        let mut seen = Vec::new();
        for _ in 0..n {
            let r = ureq::get(&format!(
                "{base}/v1/queues/RPC.REQUEST/messages/next?wait_ms=10000"
            ))
            .call()
            .unwrap();
            let v: Value = r.into_json().unwrap();
            let answer = reply(&data(&v));
            let correl = v["md"]["CorrelId"].as_str().unwrap();
            let reply_q = v["md"]["ReplyToQ"].as_str().unwrap();
            ureq::post(&format!(
                "{base}/v1/queues/{reply_q}/messages?correl_id={correl}&format=MQSTR&ccsid=1208&msg_type=2"
            ))
            .send_bytes(&answer)
            .unwrap();
            ureq::post(&format!(
                "{base}/v1/queues/RPC.REQUEST/messages/ack/{}",
                common::token(&v["lease"])
            ))
            .send_bytes(b"")
            .unwrap();
            seen.push(v);
        }
        seen
    })
}

/// CALC's request text: OPERATOR (A1), LEFT (I4), RIGHT (I4) → the result (I4)
/// (docs/rpc.md: I4 = sign + 10 digits).
fn calc(req: &[u8]) -> Vec<u8> {
    let text = std::str::from_utf8(req).unwrap();
    let left: i64 = text[1..12].parse().unwrap();
    let right: i64 = text[12..23].parse().unwrap();
    let result = match &text[..1] {
        "+" => left + right,
        "*" => left * right,
        _ => 0,
    };
    format!("{result:+011}").into_bytes()
}

#[test]
fn correl_id_hex_rules_end_to_end() {
    let (_d, g) = start("");
    // docs/rpc.md: `0102030405` sets CorrelId 01 02 03 04 05 and 19 zero bytes.
    let (st, v) = rpc(
        &g,
        "SEND",
        "",
        json!({"MQ_QUEUE_NAME": "APP.QUEUE", "MQ_CORREL_ID": "0102030405", "TEXT": "a"}),
    );
    assert_eq!(st, 200, "{v}");
    let expected = format!("0102030405{}", "00".repeat(19));
    assert_eq!(v["MQ_CORREL_ID"], expected.as_str());
    let (_, m) = g.get_ack("APP.QUEUE", "");
    assert_eq!(m["md"]["CorrelId"], expected.as_str());

    // Upper and lower case give the same bytes (docs/rpc.md).
    let upper = "ABCDEF0123456789ABCDEF0123456789ABCDEF0123456789";
    for id in [upper, &upper.to_lowercase()] {
        let (st, v) = rpc(
            &g,
            "SEND",
            "",
            json!({"MQ_QUEUE_NAME": "APP.QUEUE", "MQ_CORREL_ID": id, "TEXT": "b"}),
        );
        assert_eq!(st, 200, "{v}");
        let (_, m) = g.get_ack("APP.QUEUE", "");
        assert_eq!(m["md"]["CorrelId"], upper);
    }

    // A CorrelId with 0x00 bytes inside comes back as the same 48 hex digits:
    // put raw, then RECEIVE by that CorrelId, which returns MQ_CORREL_ID OUT.
    let zeros = "00AB0000CD000000000000000000000000000000000000EF";
    let (st, _) = g.put(
        "APP.QUEUE",
        &format!("correl_id={zeros}&format=MQSTR"),
        b"zero",
    );
    assert_eq!(st, 201);
    let (st, v) = rpc(
        &g,
        "RECEIVE",
        "",
        json!({"MQ_QUEUE_NAME": "APP.QUEUE", "MQ_CORREL_ID": zeros.to_lowercase(), "MQ_WAIT_INTERVAL": "0"}),
    );
    assert_eq!(st, 200, "{v}");
    assert_eq!(v["MQ_CORREL_ID"], zeros);
    assert_eq!(v["TEXT"], "zero");

    // An odd number of digits is refused before anything is put.
    let (st, v) = rpc(
        &g,
        "SEND",
        "",
        json!({"MQ_QUEUE_NAME": "APP.QUEUE", "MQ_CORREL_ID": "123", "TEXT": "c"}),
    );
    assert_eq!(st, 400, "{v}");
    assert_eq!(v["code"], "BAD_PARAMETERS");
    assert_eq!(browse(&g, "APP.QUEUE").0, 404);
}

#[test]
fn request_reply_takes_only_its_reply() {
    let (_d, g) = start("");
    // A reply for someone else sits on the reply queue first.
    let decoy = "DEC0DE0000000000000000000000000000000000000000FF";
    let (st, _) = g.put(
        "RPC.REPLY",
        &format!("correl_id={decoy}&format=MQSTR&ccsid=1208"),
        b"+0000000999",
    );
    assert_eq!(st, 201);
    let resp = responder(g.base.clone(), 1, calc);
    let (st, v) = rpc(
        &g,
        "CALC",
        "",
        json!({"OPERATOR": "+", "LEFT": 12, "RIGHT": "30"}),
    );
    assert_eq!(st, 200, "{v}");
    // OUT parameters from the reply: RESULT = 12 + 30, and the CorrelId MQ
    // generated for the request (MQPMO_NEW_CORREL_ID), which the reply carried.
    assert_eq!(v["RESULT"], 42);
    let correl = v["MQ_CORREL_ID"].as_str().unwrap().to_string();
    assert_eq!(correl.len(), 48);
    assert_ne!(correl, "0".repeat(48));
    let requests = resp.join().unwrap();
    let md = &requests[0]["md"];
    // docs/rpc.md — MsgType REQUEST (1), ReplyToQ = the input queue.
    assert_eq!(md["MsgType"], 1);
    assert_eq!(md["ReplyToQ"], "RPC.REPLY");
    assert_eq!(md["Format"], "MQSTR");
    assert_eq!(md["CorrelId"], correl.as_str());
    assert_eq!(data(&requests[0]), b"++0000000012+0000000030");
    // The decoy was not taken.
    let (st, m) = browse(&g, "RPC.REPLY");
    assert_eq!(st, 200);
    assert_eq!(m["md"]["CorrelId"], decoy);

    // With MQ_CORREL_ID given, the request carries exactly that CorrelId.
    let resp = responder(g.base.clone(), 1, calc);
    let given = format!("CAFE{}", "00".repeat(22));
    let (st, v) = rpc(
        &g,
        "CALC",
        "",
        json!({"MQ_CORREL_ID": "cafe", "OPERATOR": "*", "LEFT": -6, "RIGHT": 7}),
    );
    assert_eq!(st, 200, "{v}");
    assert_eq!(v["RESULT"], -42);
    assert_eq!(v["MQ_CORREL_ID"], given.as_str());
    assert_eq!(resp.join().unwrap()[0]["md"]["CorrelId"], given.as_str());
}

#[test]
fn no_reply_within_wait_interval_is_2033() {
    let (_d, g) = start("");
    let started = Instant::now();
    let (st, v) = rpc(
        &g,
        "CALC",
        "",
        json!({"MQ_WAIT_INTERVAL": "300", "OPERATOR": "+", "LEFT": 1, "RIGHT": 2}),
    );
    // docs/rpc.md "Errors": NO_REPLY carries MQRC 2033 MQRC_NO_MSG_AVAILABLE.
    assert_eq!(st, 504, "{v}");
    assert_eq!(v["code"], "NO_REPLY");
    assert_eq!(v["mqrc"], 2033);
    assert_eq!(v["reason"], "MQRC_NO_MSG_AVAILABLE");
    assert!(
        v["error"].as_str().unwrap().contains("within 300 ms"),
        "{v}"
    );
    assert!(started.elapsed() >= Duration::from_millis(300));
    // The request itself was put (non-transactional, the EntireX WebSphere MQ RPC Server documentation).
    let (st, m) = browse(&g, "RPC.REQUEST");
    assert_eq!(st, 200);
    assert_eq!(m["md"]["MsgType"], 1);
}

#[test]
fn mq_rfh_parameters_build_one_mqrfh_v1() {
    let (_d, g) = start("");
    let (st, v) = rpc(
        &g,
        "SEND",
        "",
        json!({"MQ_QUEUE_NAME": "APP.QUEUE", "MQ_RFH_H1": "v1", "MQ_RFH_H2": "v2", "TEXT": "hello"}),
    );
    assert_eq!(st, 200, "{v}");
    let (_, m) = g.get_ack("APP.QUEUE", "");
    // docs/rpc.md "MQRFH name/value pairs" — MQMD Format MQHRF, the RFH's Format MQSTR.
    assert_eq!(m["md"]["Format"], "MQHRF");
    let bytes = data(&m);
    let (rfh, cs) = parse_rfh(&bytes, ByteOrder::Little).unwrap();
    assert_eq!(rfh.version, 1);
    assert_eq!(&rfh.format.0, b"MQSTR   ");
    // the EntireX WebSphere MQ RPC Server documentation: "the resulting MQRFH header will have two name value pairs,
    // H1 v1 and H2 v2" — 11 characters, blank padded to 12.
    assert_eq!(&rfh.name_value_string[..], b"H1 v1 H2 v2 ");
    let pairs: Vec<(String, String)> = rfh
        .pairs(cs)
        .unwrap()
        .into_iter()
        .map(|(n, v)| {
            (
                String::from_utf8(n.into_owned()).unwrap(),
                String::from_utf8(v.into_owned()).unwrap(),
            )
        })
        .collect();
    assert_eq!(
        pairs,
        [("H1".into(), "v1".into()), ("H2".into(), "v2".into())]
    );
    assert_eq!(&bytes[rfh.struc_length()..], b"hello               ");

    // Blanks and quotes follow MQRFH quoting (docs/rpc.md).
    let (st, _) = rpc(
        &g,
        "SEND",
        "",
        json!({"MQ_QUEUE_NAME": "APP.QUEUE", "MQ_RFH_H1": "a b", "MQ_RFH_H2": "say \"hi\"", "TEXT": "x"}),
    );
    assert_eq!(st, 200);
    let (_, m) = g.get_ack("APP.QUEUE", "");
    let bytes = data(&m);
    let (rfh, _) = parse_rfh(&bytes, ByteOrder::Little).unwrap();
    assert_eq!(
        &rfh.name_value_string[..],
        b"H1 \"a b\" H2 \"say \"\"hi\"\"\""
    );
}

/// A message with one MQRFH v1 holding `pairs` and a text body.
fn rfh_message(pairs: &[(&str, &str)], body: &[u8]) -> Vec<u8> {
    let next = Descriptor {
        encoding: 546,
        coded_char_set_id: 1208,
        format: CharField(*b"MQSTR   "),
        charset: Charset::Ascii,
    };
    let rfh = Mqrfh::from_pairs(&next, pairs, Charset::Ascii).unwrap();
    let mut out = Vec::new();
    write_rfh(&rfh, ByteOrder::Little, Charset::Ascii, &mut out);
    out.extend_from_slice(body);
    out
}

#[test]
fn received_mqrfh_fills_matching_out_parameters() {
    let (_d, g) = start("");
    // the EntireX WebSphere MQ RPC Server documentation's example: pairs H1 v11 and H3 v22.
    let msg = rfh_message(&[("H1", "v11"), ("H3", "v22")], b"body");
    let (st, _) = g.put(
        "APP.QUEUE",
        "format=MQHRF&ccsid=1208&reply_to_q=SOME.Q",
        &msg,
    );
    assert_eq!(st, 201);
    let (st, v) = rpc(
        &g,
        "RECEIVE",
        "",
        json!({"MQ_QUEUE_NAME": "APP.QUEUE", "MQ_WAIT_INTERVAL": 0}),
    );
    assert_eq!(st, 200, "{v}");
    // "v11 will be assigned to MQ_RFH_H1, MQ_RFH_H2 gets no value assigned,
    // and the entry for H3 will be ignored."
    assert_eq!(v["MQ_RFH_H1"], "v11");
    assert_eq!(v["MQ_RFH_H2"], "");
    assert!(v.get("MQ_RFH_H3").is_none() && v.get("H3").is_none(), "{v}");
    assert_eq!(v["MQ_REPLY_QUEUE"], "SOME.Q");
    assert_eq!(v["TEXT"], "body");
    // Outside a conversation the get removed the message at once (the EntireX WebSphere MQ RPC Server documentation).
    assert_eq!(browse(&g, "APP.QUEUE").0, 404);

    // Quoted values come back unquoted.
    let msg = rfh_message(&[("H2", "a \"b\" c")], b"q");
    g.put("APP.QUEUE", "format=MQHRF&ccsid=1208", &msg);
    let (_, v) = rpc(&g, "RECEIVE", "", json!({"MQ_QUEUE_NAME": "APP.QUEUE"}));
    assert_eq!(v["MQ_RFH_H2"], "a \"b\" c");
    assert_eq!(v["MQ_RFH_H1"], "");
}

#[test]
fn conversations_commit_and_back_out() {
    let (_d, g) = start("  conversation_timeout_ms: 600\n");
    let send = |conv: &str, text: &str| {
        rpc(
            &g,
            "NOTE",
            &format!("?conversation={conv}"),
            json!({"MQ_QUEUE_NAME": "APP.QUEUE", "TEXT": text}),
        )
    };
    let open = || {
        let (st, v) = g.call(
            "POST",
            "/v1/rpc/conversations",
            Some(("application/json", b"")),
        );
        assert_eq!(st, 201, "{v}");
        // docs/rpc.md "HTTP": a token of 32 hex digits.
        common::token(&v["conversation"]).to_string()
    };
    // Backed-out puts leave nothing.
    let c = open();
    assert_eq!(send(&c, "one").0, 200);
    assert_eq!(send(&c, "two").0, 200);
    assert_eq!(
        browse(&g, "APP.QUEUE").0,
        404,
        "uncommitted puts are not visible"
    );
    let (st, v) = g.call("POST", &format!("/v1/rpc/conversations/{c}/backout"), None);
    assert_eq!(st, 200, "{v}");
    assert_eq!(browse(&g, "APP.QUEUE").0, 404);

    // Committed, the messages appear.
    let c = open();
    send(&c, "three");
    send(&c, "four");
    let (st, _) = g.call("POST", &format!("/v1/rpc/conversations/{c}/commit"), None);
    assert_eq!(st, 200);
    assert_eq!(g.depth("APP.QUEUE"), 2);

    // A get backed out returns the message (BackoutCount + 1).
    let c = open();
    let (st, v) = rpc(
        &g,
        "RECEIVE",
        &format!("?conversation={c}"),
        json!({"MQ_QUEUE_NAME": "APP.QUEUE"}),
    );
    assert_eq!(st, 200, "{v}");
    assert_eq!(v["TEXT"], "three");
    let (_, first) = browse(&g, "APP.QUEUE");
    assert_eq!(
        data(&first),
        b"four                ",
        "three is held by the conversation"
    );
    g.call("POST", &format!("/v1/rpc/conversations/{c}/backout"), None);
    let (_, first) = browse(&g, "APP.QUEUE");
    assert_eq!(data(&first), b"three               ");
    assert_eq!(first["md"]["BackoutCount"], 1);

    // An abandoned conversation is backed out after its timeout (600 ms).
    let c = open();
    send(&c, "five");
    std::thread::sleep(Duration::from_millis(1500));
    let (st, v) = send(&c, "six");
    assert_eq!(
        (st, v["code"].as_str()),
        (409, Some("CONVERSATION_ENDED")),
        "{v}"
    );
    // 2003 is 409 on every route (docs/http-api.md "Tokens").
    let (st, v) = g.call("POST", &format!("/v1/rpc/conversations/{c}/commit"), None);
    assert_eq!(st, 409, "{v}");
    assert_eq!(v["code"], "CONVERSATION_ENDED");
    assert_eq!(v["mqrc"], 2003);
    assert_eq!(g.depth("APP.QUEUE"), 2, "five was backed out");

    // A request/reply cannot run inside a conversation.
    let c = open();
    let (st, v) = rpc(
        &g,
        "CALC",
        &format!("?conversation={c}"),
        json!({"OPERATOR": "+", "LEFT": 1, "RIGHT": 1}),
    );
    assert_eq!(st, 400, "{v}");
    assert_eq!(v["code"], "NOT_POSSIBLE");
}

#[test]
fn exits_run_around_the_calls_and_after_get_is_seen() {
    // before_put sets pair H2 on every put; after_get rewrites pair H1 of
    // every message got (built-in rfh-properties, docs/exits.md).
    let (_d, g) = start(
        "  exits:
    before_put:
      - exit: rfh-properties
        data: \"rfh.H2=from-before-put\"
    after_get:
      - exit: rfh-properties
        data: \"rfh.H1=from-after-get\"
",
    );
    let (st, v) = rpc(
        &g,
        "SEND",
        "",
        json!({"MQ_QUEUE_NAME": "APP.QUEUE", "MQ_RFH_H1": "v1", "MQ_RFH_H2": "v2", "TEXT": "t"}),
    );
    assert_eq!(st, 200, "{v}");
    let (st, v) = rpc(&g, "RECEIVE", "", json!({"MQ_QUEUE_NAME": "APP.QUEUE"}));
    assert_eq!(st, 200, "{v}");
    assert_eq!(v["MQ_RFH_H1"], "from-after-get");
    assert_eq!(v["MQ_RFH_H2"], "from-before-put");
    assert_eq!(v["TEXT"], "t");
    // A message without an MQRFH gets one from the after_get exit.
    g.put("APP.QUEUE", "format=MQSTR&ccsid=1208", b"plain");
    let (_, v) = rpc(&g, "RECEIVE", "", json!({"MQ_QUEUE_NAME": "APP.QUEUE"}));
    assert_eq!(v["MQ_RFH_H1"], "from-after-get");
    assert_eq!(v["TEXT"], "plain");
}

#[test]
fn groups_as_objects_arrays_as_lists() {
    let (_d, g) = start("");
    fn order(req: &[u8]) -> Vec<u8> {
        // CUSTOMER (A10 + A10), ITEMS (A5/3) → TOTAL (N7.2), STATUS (A10).
        assert_eq!(req, b"Alice     Berlin    A1   B2   C3   ");
        b"+000001250OK        ".to_vec()
    }
    let resp = responder(g.base.clone(), 1, order);
    let (st, v) = rpc(
        &g,
        "ORDER",
        "",
        json!({"CUSTOMER": {"NAME": "Alice", "CITY": "Berlin"}, "ITEMS": ["A1", "B2", "C3"]}),
    );
    resp.join().unwrap();
    assert_eq!(st, 200, "{v}");
    assert_eq!(v, json!({"TOTAL": "12.50", "STATUS": "OK"}));
    let (st, v) = rpc(
        &g,
        "ORDER",
        "",
        json!({"CUSTOMER": {"NAME": "x", "ZIP": "1"}}),
    );
    assert_eq!(st, 400);
    assert!(v["error"].as_str().unwrap().contains("ZIP"), "{v}");
    let (st, v) = rpc(&g, "NOPE", "", json!({}));
    assert_eq!((st, v["code"].as_str()), (404, Some("UNKNOWN_PROGRAM")));
}

#[test]
fn xml_payload_mode() {
    let (_d, g) = start("  payload: xml\n");
    let (st, _) = rpc(
        &g,
        "NOTE",
        "",
        json!({"MQ_QUEUE_NAME": "APP.QUEUE", "TEXT": "a<b"}),
    );
    assert_eq!(st, 200);
    let (_, m) = browse(&g, "APP.QUEUE");
    // docs/rpc.md "XML payload": root named after the program, one element
    // per parameter, UTF-8 (CCSID 1208).
    assert_eq!(
        data(&m),
        b"<?xml version=\"1.0\" encoding=\"UTF-8\"?><NOTE><TEXT>a&lt;b</TEXT></NOTE>"
    );
    assert_eq!(m["md"]["CodedCharSetId"], 1208);
    let (st, v) = rpc(&g, "RECEIVE", "", json!({"MQ_QUEUE_NAME": "APP.QUEUE"}));
    assert_eq!(st, 200, "{v}");
    assert_eq!(v["TEXT"], "a<b");
}

#[test]
fn unreadable_reply_goes_to_the_dead_letter_queue() {
    let (_d, g) = start("");
    g.put("APP.QUEUE", "format=MQSTR&ccsid=1208", b"not a number");
    let (st, v) = rpc(
        &g,
        "RECEIVE",
        "",
        json!({"MQ_QUEUE_NAME": "APP.QUEUE", "MQ_WAIT_INTERVAL": 0}),
    );
    // TEXT is A20: any 12 characters are fine (read blank padded).
    assert_eq!(st, 200, "{v}");
    assert_eq!(v["TEXT"], "not a number");
    // A Format that is no text is refused with 2110.
    g.put("APP.QUEUE", "format=MQADMIN", b"admin");
    let (st, v) = rpc(&g, "RECEIVE", "", json!({"MQ_QUEUE_NAME": "APP.QUEUE"}));
    assert_eq!(st, 502, "{v}");
    assert_eq!(v["code"], "PAYLOAD_ERROR");
    assert_eq!(v["mqrc"], 2110);
    assert_eq!(browse(&g, "APP.QUEUE").0, 404);
    let (st, dl) = browse(&g, "SYSTEM.DEAD.LETTER.QUEUE");
    assert_eq!(st, 200, "never lost: dead-lettered");
    assert_eq!(dl["md"]["Format"], "MQDEAD");
}

#[test]
fn check_config_refuses_equal_queues_for_request_reply() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("g.yaml");
    std::fs::write(
        &path,
        config("").replace("input_queue: RPC.REPLY", "input_queue: RPC.REQUEST"),
    )
    .unwrap();
    let out = std::process::Command::new(common::BIN)
        .arg("check-config")
        .arg(&path)
        .output()
        .unwrap();
    assert!(!out.status.success());
    let err = String::from_utf8_lossy(&out.stderr);
    // the EntireX WebSphere MQ RPC Server documentation: "the input queue must be different from the output queue".
    assert!(
        err.contains("rpc.input_queue: must differ from rpc.output_queue")
            && err.contains("DEMO/CALC"),
        "{err}"
    );
}

#[test]
fn cli_calls_through_the_gateway() {
    let (_d, g) = start("");
    let run = |args: &[&str]| {
        std::process::Command::new(common::BIN)
            .arg("rpc")
            .args(["--idl", IDL, "--gateway", &g.base])
            .args(args)
            .output()
            .unwrap()
    };
    let out = run(&[
        "--program",
        "SEND",
        "--param",
        "MQ_QUEUE_NAME=APP.QUEUE",
        "--param",
        "MQ_CORREL_ID=0a0b",
        "--param",
        "TEXT=from the CLI",
    ]);
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let v: Value = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!(
        v["MQ_CORREL_ID"],
        format!("0A0B{}", "00".repeat(22)).as_str()
    );
    let out = run(&["--program", "RECEIVE", "--param", "MQ_QUEUE_NAME=APP.QUEUE"]);
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let v: Value = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!(v["TEXT"], "from the CLI");
    // Nothing left: exit status 1 and the error JSON.
    let out = run(&[
        "--program",
        "RECEIVE",
        "--param",
        "MQ_QUEUE_NAME=APP.QUEUE",
        "--param",
        "MQ_WAIT_INTERVAL=0",
    ]);
    assert_eq!(out.status.code(), Some(1));
    let v: Value = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!(v["code"], "NO_MESSAGE");
    assert_eq!(v["mqrc"], 2033);
    // stderr names the code and the MQRC once (defect report, the EntireX WebSphere MQ RPC Server documentation).
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert_eq!(stderr.matches("2033").count(), 1, "{stderr}");
    assert!(stderr.starts_with("mqgate rpc: NO_MESSAGE: "), "{stderr}");
    // An unknown parameter is refused locally (exit 2).
    let out = run(&["--program", "SEND", "--param", "NOPE=1"]);
    assert_eq!(out.status.code(), Some(2));
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(
        stderr.contains("NOPE is no parameter of DEMO/SEND"),
        "{stderr}"
    );
    let out = run(&["--program", "CALC", "--param", "RESULT=1"]);
    assert_eq!(out.status.code(), Some(2));
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(
        stderr.contains("RESULT is an OUT parameter of DEMO/CALC; it cannot be passed"),
        "{stderr}"
    );
    // No gateway listening: exit 3 (docs/rpc.md "CLI").
    let out = std::process::Command::new(common::BIN)
        .args(["rpc", "--idl", IDL, "--program", "SEND", "--gateway"])
        .arg("http://127.0.0.1:9")
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(3));
}

#[test]
fn decoupled_request_reply_in_two_calls() {
    let (_d, g) = start("");
    // Call 1: a put with MQ_REPLY_QUEUE becomes a Request (docs/rpc.md
    // "Dynamic parameters") and returns the CorrelId MQ generated.
    let (st, v) = rpc(
        &g,
        "SEND",
        "",
        json!({"MQ_QUEUE_NAME": "RPC.REQUEST", "MQ_REPLY_QUEUE": "RPC.REPLY", "TEXT": "ping"}),
    );
    assert_eq!(st, 200, "{v}");
    let correl = v["MQ_CORREL_ID"].as_str().unwrap().to_string();
    assert_ne!(correl, "0".repeat(48));
    fn pong(_: &[u8]) -> Vec<u8> {
        b"pong".to_vec()
    }
    let seen = responder(g.base.clone(), 1, pong).join().unwrap();
    assert_eq!(seen[0]["md"]["MsgType"], 1);
    assert_eq!(seen[0]["md"]["ReplyToQ"], "RPC.REPLY");
    // Another reply that is not ours.
    g.put(
        "RPC.REPLY",
        &format!("correl_id={}&format=MQSTR", "11".repeat(24)),
        b"not ours",
    );
    // Call 2: a get by MQ_CORREL_ID from the input queue.
    let (st, v) = rpc(&g, "RECEIVE", "", json!({"MQ_CORREL_ID": correl}));
    assert_eq!(st, 200, "{v}");
    assert_eq!(v["TEXT"], "pong");
    assert_eq!(v["MQ_CORREL_ID"], correl.as_str());
    assert_eq!(g.depth("RPC.REPLY"), 1, "the other reply stays");
}

#[test]
fn requests_carry_the_configured_expiry() {
    let (_d, g) = start("  request_expiry_ms: 60000\n");
    let (st, v) = rpc(
        &g,
        "CALC",
        "",
        json!({"MQ_WAIT_INTERVAL": "0", "OPERATOR": "+", "LEFT": 1, "RIGHT": 2}),
    );
    assert_eq!((st, v["mqrc"].as_i64()), (504, Some(2033)), "{v}");
    let (_, m) = browse(&g, "RPC.REQUEST");
    // MQMD Expiry is in tenths of a second: 60000 ms = 600, minus the little
    // time the request has waited (browse returns the remaining Expiry).
    let expiry = m["md"]["Expiry"].as_i64().unwrap();
    assert!((590..=600).contains(&expiry), "{m}");
    // Datagrams are not given an Expiry.
    rpc(
        &g,
        "NOTE",
        "",
        json!({"MQ_QUEUE_NAME": "APP.QUEUE", "TEXT": "d"}),
    );
    let (_, m) = browse(&g, "APP.QUEUE");
    assert_eq!(m["md"]["Expiry"], -1);
}

#[test]
fn before_put_exit_changes_the_message_or_stops_the_call() {
    // The built-in convert exit (docs/exits.md) at before_put converts the
    // payload to EBCDIC CCSID 500 and refuses (on_error=suppress) what CCSID
    // 500 cannot hold.
    let (_d, g) = start(
        "  exits:
    before_put:
      - exit: convert
        data: \"ccsid=500 on_error=suppress\"
",
    );
    let (st, v) = rpc(
        &g,
        "NOTE",
        "",
        json!({"MQ_QUEUE_NAME": "APP.QUEUE", "TEXT": "AB"}),
    );
    assert_eq!(st, 200, "{v}");
    let (_, m) = browse(&g, "APP.QUEUE");
    // What the exit left is what was put: CCSID 500, A = 0xC1, B = 0xC2,
    // blank = 0x40 (docs/ccsid.md).
    assert_eq!(m["md"]["CodedCharSetId"], 500);
    let mut want = vec![0xC1, 0xC2];
    want.resize(20, 0x40);
    assert_eq!(data(&m), want);
    // The bridge reads it back from its own CodedCharSetId.
    let (st, v) = rpc(&g, "RECEIVE", "", json!({"MQ_QUEUE_NAME": "APP.QUEUE"}));
    assert_eq!((st, &v["TEXT"]), (200, &json!("AB")), "{v}");
    // CCSID 500 has no euro sign: the exit suppresses with 2119
    // MQRC_NOT_CONVERTED and nothing is put.
    let (st, v) = rpc(
        &g,
        "NOTE",
        "",
        json!({"MQ_QUEUE_NAME": "APP.QUEUE", "TEXT": "5 €"}),
    );
    assert_eq!(st, 502, "{v}");
    assert_eq!(v["code"], "EXIT_REFUSED");
    assert_eq!(v["mqrc"], 2119);
    assert_eq!(browse(&g, "APP.QUEUE").0, 404);
}

#[test]
fn client_gone_during_a_get_loses_no_message() {
    // Defect report (the EntireX WebSphere MQ RPC Server documentation, tester): a client that gave up during a waiting
    // get must not take the next message off the queue. Its wait is 3000 ms.
    let (_d, g) = start("");
    let started = Instant::now();
    let gave_up = ureq::AgentBuilder::new()
        .timeout(Duration::from_millis(500))
        .build()
        .post(&format!("{}/v1/rpc/DEMO/RECEIVE", g.base))
        .set("Content-Type", "application/json")
        .send_string(
            &json!({"MQ_QUEUE_NAME": "RPC.REQUEST", "MQ_WAIT_INTERVAL": "3000"}).to_string(),
        );
    assert!(gave_up.is_err(), "the client should time out");
    let (st, v) = g.put("RPC.REQUEST", "format=MQSTR", b"kept");
    assert!(st == 200 || st == 201, "{st} {v}");
    // Past the get's wait interval, the message must still be on its queue.
    std::thread::sleep(Duration::from_millis(3500).saturating_sub(started.elapsed()));
    std::thread::sleep(Duration::from_millis(300));
    assert_eq!(g.depth("RPC.REQUEST"), 1);
    let (st, m) = browse(&g, "RPC.REQUEST");
    assert_eq!(st, 200);
    assert_eq!(data(&m), b"kept");
}

#[test]
fn repeated_parameters_are_bad_parameters() {
    // Defect report (the EntireX WebSphere MQ RPC Server documentation, tester): a repeated name (case-insensitive) is
    // BAD_PARAMETERS (docs/rpc.md "Errors"), not "last wins".
    let (_d, g) = start("");
    let (st, v) = g.call(
        "POST",
        "/v1/rpc/DEMO/CALC",
        Some((
            "application/json",
            br#"{"OPERATOR":"+","LEFT":1,"left":5,"RIGHT":2}"#,
        )),
    );
    assert_eq!(st, 400, "{v}");
    assert_eq!(v["code"], "BAD_PARAMETERS");
    assert!(
        v["error"].as_str().unwrap().contains("left given twice"),
        "{v}"
    );
    assert_eq!(g.depth("RPC.REQUEST"), 0);
    let out = std::process::Command::new(common::BIN)
        .args([
            "rpc",
            "--idl",
            IDL,
            "--program",
            "SEND",
            "--gateway",
            &g.base,
        ])
        .args(["--param", "TEXT=a", "--param", "TEXT=b"])
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(2));
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(stderr.contains("TEXT given twice"), "{stderr}");
}

#[test]
fn bad_bodies_and_conversation_ids_are_bad_parameters() {
    // Defect report (the EntireX WebSphere MQ RPC Server documentation, tester); docs/rpc.md "Errors" and "HTTP".
    let (_d, g) = start("");
    // An empty body for a program with IN parameters (CALC) is refused...
    let (st, v) = g.call("POST", "/v1/rpc/DEMO/CALC", Some(("application/json", b"")));
    assert_eq!(st, 400, "{v}");
    assert_eq!(v["code"], "BAD_PARAMETERS");
    assert!(v["error"].as_str().unwrap().contains("empty body"), "{v}");
    assert_eq!(g.depth("RPC.REQUEST"), 0);
    // The body is JSON: a form-encoded one (or any other type) is refused
    // with 415 / 2004 MQRC_BUFFER_ERROR naming the type, as `POST
    // /v1/messages` (RFC 9110 §15.5.16; docs/http-api.md "Errors"; docs/rpc.md
    // "HTTP"), and nothing is put.
    let (st, v) = g.call(
        "POST",
        "/v1/rpc/DEMO/SEND",
        Some((
            "application/x-www-form-urlencoded",
            br#"{"MQ_QUEUE_NAME":"APP.QUEUE"}"#,
        )),
    );
    assert_eq!(st, 415, "{v}");
    assert_eq!(
        (&v["mqrc"], &v["reason"]),
        (&json!(2004), &json!("MQRC_BUFFER_ERROR")),
        "{v}"
    );
    assert!(
        v["message"]
            .as_str()
            .unwrap()
            .contains("Content-Type \"application/x-www-form-urlencoded\" is not supported"),
        "{v}"
    );
    assert_eq!(g.depth("APP.QUEUE"), 0);
    // ...while an object naming only some IN parameters is a call (TEXT empty).
    let (st, v) = g.call(
        "POST",
        "/v1/rpc/DEMO/SEND",
        Some(("application/json", br#"{"MQ_QUEUE_NAME":"APP.QUEUE"}"#)),
    );
    assert_eq!(st, 200, "{v}");
    // A conversation id that is not 32 hex digits: 400 BAD_PARAMETERS in the
    // path and the query (docs/rpc.md "Errors").
    for (path, body) in [
        ("/v1/rpc/conversations/abc/commit", &b""[..]),
        ("/v1/rpc/conversations/abc/backout", &b""[..]),
        (
            "/v1/rpc/DEMO/SEND?conversation=abc",
            &br#"{"TEXT":"a"}"#[..],
        ),
    ] {
        let (st, v) = g.call("POST", path, Some(("application/json", body)));
        assert_eq!(st, 400, "{path}: {v}");
        assert_eq!(v["code"], "BAD_PARAMETERS", "{path}");
        assert!(
            v["error"]
                .as_str()
                .unwrap()
                .contains("conversation id \"abc\" is not 32 hex digits"),
            "{path}: {v}"
        );
    }
    // A token that is no open conversation stays CONVERSATION_ENDED (2003).
    let (st, v) = g.call(
        "POST",
        &format!("/v1/rpc/conversations/{}/commit", "9".repeat(32)),
        None,
    );
    assert_eq!(st, 409, "{v}");
    assert_eq!(v["code"], "CONVERSATION_ENDED");
    assert_eq!(v["mqrc"], 2003);
    // Over the 2 MiB body limit: 413 in the RPC error shape.
    let big = vec![b' '; 2 * 1024 * 1024 + 1];
    let (st, v) = g.call(
        "POST",
        "/v1/rpc/DEMO/SEND",
        Some(("application/json", &big)),
    );
    assert_eq!(st, 413, "{v}");
    assert_eq!(v["code"], "BAD_PARAMETERS");
    // IBM MQ "API reason codes": 2031 MQRC_MSG_TOO_BIG_FOR_Q_MGR, as the queue API answers.
    assert_eq!(v["mqrc"], 2031);
    assert!(v["error"].as_str().unwrap().contains("2 MiB"), "{v}");
}

#[test]
fn cli_refuses_values_that_do_not_fit_their_idl_type_before_sending() {
    // Defect report: `mqgate rpc` sent these and exited 1 after the round
    // trip; docs/rpc.md "CLI" says a value that does not fit is refused
    // before anything is sent, exit 2. fixtures/rpc/demo.idl: TEXT (A20) in
    // SEND, LEFT (I4) in CALC; docs/rpc.md (I4 = sign + 10
    // digits, so 2147483648 = 2^31 is outside a 4-byte integer).
    let (_d, g) = start("");
    let run = |args: &[&str]| {
        std::process::Command::new(common::BIN)
            .args(["rpc", "--idl", IDL, "--gateway", &g.base])
            .args(args)
            .output()
            .unwrap()
    };
    let long = format!("TEXT={}", "x".repeat(5000));
    let cases: [(&[&str], &str); 3] = [
        (
            &[
                "--program",
                "SEND",
                "--param",
                "MQ_QUEUE_NAME=APP.QUEUE",
                "--param",
                &long,
            ],
            "TEXT at offset 0: 5000 characters, at most 20 allowed",
        ),
        (
            &[
                "--program",
                "CALC",
                "--param",
                "OPERATOR=+",
                "--param",
                "LEFT=2147483648",
                "--param",
                "RIGHT=1",
            ],
            "LEFT at offset 1: 2147483648 does not fit format I4",
        ),
        // A dynamic parameter is checked too: an odd count of hex digits
        // (docs/rpc.md "Errors": bad MQ_CORREL_ID).
        (
            &[
                "--program",
                "SEND",
                "--param",
                "MQ_QUEUE_NAME=APP.QUEUE",
                "--param",
                "MQ_CORREL_ID=abc",
            ],
            "MQ_CORREL_ID",
        ),
    ];
    for (args, want) in cases {
        let out = run(args);
        let stderr = String::from_utf8_lossy(&out.stderr);
        assert_eq!(out.status.code(), Some(2), "{want}: {stderr:.300}");
        assert!(stderr.contains(want), "{want}: {stderr:.300}");
        assert!(out.stdout.is_empty(), "{want}");
    }
    // Nothing was sent: no request, no put.
    assert_eq!(g.depth("RPC.REQUEST"), 0);
    assert_eq!(g.depth("APP.QUEUE"), 0);
    // The largest I4 and 20 characters still go through (SEND puts).
    let ok = format!("TEXT={}", "y".repeat(20));
    let out = run(&[
        "--program",
        "SEND",
        "--param",
        "MQ_QUEUE_NAME=APP.QUEUE",
        "--param",
        &ok,
    ]);
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    assert_eq!(g.depth("APP.QUEUE"), 1);
}

#[test]
fn every_error_answer_carries_its_mqrc_number_and_name() {
    // Defect report: errors without an MQ reason answered `"mqrc": null`.
    // docs/rpc.md "Errors": every error carries the MQRC that applies, as a
    // number with its name, as the queue API's errors do (docs/http-api.md
    // "Errors"); the reason codes are IBM MQ's ("API reason codes").
    let (_d, g) = start("");
    let open = || {
        let (st, v) = g.call("POST", "/v1/rpc/conversations", None);
        assert_eq!(st, 201, "{v}");
        common::token(&v["conversation"]).to_string()
    };
    let conversation = open();
    // (path, body, HTTP status, code, mqrc, reason)
    type Case = (String, Vec<u8>, u16, &'static str, i64, &'static str);
    let cases: Vec<Case> = vec![
        // No such program: 2298, as the queue API answers a route it lacks.
        (
            "/v1/rpc/DEMO/NOPE".into(),
            b"{}".to_vec(),
            404,
            "UNKNOWN_PROGRAM",
            2298,
            "MQRC_FUNCTION_NOT_SUPPORTED",
        ),
        // A body that is no JSON, and an unknown parameter: 2004, as the
        // queue API answers a body it cannot read.
        (
            "/v1/rpc/DEMO/SEND".into(),
            b"{not json".to_vec(),
            400,
            "BAD_PARAMETERS",
            2004,
            "MQRC_BUFFER_ERROR",
        ),
        (
            "/v1/rpc/DEMO/SEND".into(),
            br#"{"NOPE": "x"}"#.to_vec(),
            400,
            "BAD_PARAMETERS",
            2004,
            "MQRC_BUFFER_ERROR",
        ),
        // An odd count of CorrelId digits: 2207 MQRC_CORREL_ID_ERROR.
        (
            "/v1/rpc/DEMO/SEND".into(),
            br#"{"MQ_QUEUE_NAME": "APP.QUEUE", "MQ_CORREL_ID": "123"}"#.to_vec(),
            400,
            "BAD_PARAMETERS",
            2207,
            "MQRC_CORREL_ID_ERROR",
        ),
        // A queue name of 49 characters: 2152 MQRC_OBJECT_NAME_ERROR (IBM MQ
        // "Rules for naming IBM MQ objects": at most 48).
        (
            "/v1/rpc/DEMO/SEND".into(),
            json!({"MQ_QUEUE_NAME": "Q".repeat(49)})
                .to_string()
                .into_bytes(),
            400,
            "BAD_PARAMETERS",
            2152,
            "MQRC_OBJECT_NAME_ERROR",
        ),
        // An unknown query parameter and a conversation id that is no token:
        // 2046 MQRC_OPTIONS_ERROR, as on the queue API.
        (
            "/v1/rpc/DEMO/SEND?nope=1".into(),
            b"{}".to_vec(),
            400,
            "BAD_PARAMETERS",
            2046,
            "MQRC_OPTIONS_ERROR",
        ),
        (
            "/v1/rpc/conversations/abc/commit".into(),
            Vec::new(),
            400,
            "BAD_PARAMETERS",
            2046,
            "MQRC_OPTIONS_ERROR",
        ),
        // A request/reply in a conversation: 2298 (not available there).
        (
            format!("/v1/rpc/DEMO/CALC?conversation={conversation}"),
            json!({"OPERATOR": "+", "LEFT": 1, "RIGHT": 1})
                .to_string()
                .into_bytes(),
            400,
            "NOT_POSSIBLE",
            2298,
            "MQRC_FUNCTION_NOT_SUPPORTED",
        ),
        // An unknown queue: the queue manager's 2085.
        (
            "/v1/rpc/DEMO/SEND".into(),
            br#"{"MQ_QUEUE_NAME": "NO.SUCH.QUEUE"}"#.to_vec(),
            404,
            "MQ_ERROR",
            2085,
            "MQRC_UNKNOWN_OBJECT_NAME",
        ),
    ];
    for (path, body, status, code, mqrc, reason) in cases {
        let (st, v) = g.call("POST", &path, Some(("application/json", &body)));
        assert_eq!(
            (
                st,
                v["code"].as_str(),
                v["mqrc"].as_i64(),
                v["reason"].as_str()
            ),
            (status, Some(code), Some(mqrc), Some(reason)),
            "{path}: {v}"
        );
    }
}

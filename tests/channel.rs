//! Message channels end to end with the built binary (docs/channel-protocol.md, the WebSphere MQ Everyplace gateway article):
//! the main job, routing, destination rewrite, the undelivered rules, many
//! devices, bad input on the channel and sender channels between gateways.

mod common;

use common::{BIN, Gateway, data, xmit};
use mqgate_codecs::mq::ByteOrder;
use mqgate_codecs::mq::dlh::parse_dlh;
use serde_json::Value;
use std::io::{Read, Write};
use std::net::TcpStream;
use std::path::{Path, PathBuf};
use std::process::{Command, Output};
use std::time::Duration;

fn write_files(dir: &Path, msgs: &[Vec<u8>]) -> Vec<PathBuf> {
    std::fs::create_dir_all(dir).unwrap();
    msgs.iter()
        .enumerate()
        .map(|(i, m)| {
            let p = dir.join(format!("{i:06}.xmit"));
            std::fs::write(&p, m).unwrap();
            p
        })
        .collect()
}

fn send(g: &Gateway, channel: &str, extra: &[&str], files: &[PathBuf]) -> Output {
    Command::new(BIN)
        .arg("send")
        .arg("--to")
        .arg(g.listen_addr())
        .arg("--channel")
        .arg(channel)
        .args(extra)
        .args(files)
        .output()
        .unwrap()
}

fn text(b: &[u8]) -> String {
    String::from_utf8_lossy(b).into_owned()
}

/// `GET` the next message of a device queue; `None` on 204.
fn device_next(g: &Gateway, qm: &str, q: &str) -> Option<Value> {
    let (st, v) = g.call(
        "GET",
        &format!("/v1/devices/{qm}/queues/{q}/messages/next?wait_ms=0"),
        None,
    );
    match st {
        200 => Some(v),
        204 => None,
        other => panic!("device get {qm}/{q}: {other} {v}"),
    }
}

/// Pull + ack every message of a device queue, in order.
fn drain_device(g: &Gateway, qm: &str, q: &str) -> Vec<Vec<u8>> {
    let mut out = Vec::new();
    while let Some(v) = device_next(g, qm, q) {
        let (st, a) = g.call(
            "POST",
            &format!(
                "/v1/devices/{qm}/queues/{q}/messages/ack/{}",
                common::token(&v["lease"])
            ),
            Some(("application/octet-stream", b"")),
        );
        assert_eq!(st, 200, "{a}");
        out.push(data(&v));
    }
    out
}

fn status_channel(g: &Gateway, name: &str) -> Value {
    let (_, v) = g.call("GET", "/v1/status", None);
    v["channels"]
        .as_array()
        .unwrap()
        .iter()
        .find(|c| c["name"] == name)
        .cloned()
        .unwrap_or_else(|| panic!("channel {name} not in status: {v}"))
}

#[test]
fn main_job_on_real_input() {
    // The project's own device message (fixtures/mq/README.md; made by
    // tests/mq_fixtures.rs): one MQRFH2 and a text body, no MQMD. It is in
    // the repository, so a missing file is a failure.
    let fixture = concat!(env!("CARGO_MANIFEST_DIR"), "/fixtures/mq/device_rfh2.dat");
    let original = std::fs::read(fixture).unwrap_or_else(|e| panic!("{fixture}: {e}"));
    // fixtures/mq/README.md: 251 bytes, the body at offset 188.
    assert_eq!(original.len(), 251);
    let body = "Meter reading 2026-12-01T20:00:00Z: 1234.5 kWh (device DEV0001)";
    let dir = tempfile::tempdir().unwrap();
    // Step 1: the embedded default (empty config file).
    let g = Gateway::start(dir.path(), "");
    // Step 2: the command line of README "Message channels and devices: the
    // main job": `mqgate send` wraps the file in an MQXQH with RemoteQName
    // `INBOX%DEV0001`, RemoteQMgrName MQGATE and an MQMD saying Format
    // MQHRF2, Encoding 273, persistent; the default channel's
    // destination-rewrite exit turns it into INBOX at DEV0001.
    let out = send(
        &g,
        "TO.MQGATE",
        &[
            "--rqmname",
            "MQGATE",
            "--rname",
            "INBOX%DEV0001",
            "--persistent",
            "--format",
            "MQHRF2",
            "--encoding",
            "273",
        ],
        &[PathBuf::from(fixture)],
    );
    assert!(out.status.success(), "{}", text(&out.stderr));
    // Step 3: device-pull from DEV0001 queue INBOX (where the rewrite put
    // it), into files: the data and its MQMD as JSON.
    let pull = |args: &[&str]| {
        Command::new(BIN)
            .args(["device-pull", "--gateway", &g.base, "--qmgr", "DEV0001"])
            .args(["--queue", "INBOX"])
            .args(args)
            .output()
            .unwrap()
    };
    let out_dir = dir.path().join("pulled");
    let o = pull(&["--out", out_dir.to_str().unwrap()]);
    assert!(o.status.success(), "{}", text(&o.stderr));
    let received = std::fs::read(out_dir.join("000001.dat")).unwrap();
    let md: Value =
        serde_json::from_slice(&std::fs::read(out_dir.join("000001.json")).unwrap()).unwrap();
    // The RFH2 header (folders) and the body arrive byte for byte.
    assert_eq!(received, original);
    // The fields at their offsets (IBM MQ "MQRFH2 - Rules and formatting
    // header 2": StrucId 0, Version 4, StrucLength 8, Encoding 12,
    // CodedCharSetId 16, Format 20, Flags 28, NameValueCCSID 32, then
    // NameValueLength/NameValueData pairs from 36), big-endian as the MQMD's
    // Encoding 273 says; the values are those of fixtures/mq/README.md.
    let long = |o: usize| i32::from_be_bytes(received[o..o + 4].try_into().unwrap());
    assert_eq!(&received[..4], b"RFH ");
    assert_eq!(long(4), 2);
    assert_eq!(long(8), 188);
    assert_eq!(long(12), 273);
    assert_eq!(long(16), 1208);
    assert_eq!(&received[20..28], b"MQSTR   ");
    assert_eq!(long(28), 0);
    assert_eq!(long(32), 1208);
    // Folder lengths 32, 48 and 60 at 36, 72 and 124 (README: `<mcd>` and
    // `<usr>` padded with two blanks to a multiple of four).
    assert_eq!((long(36), long(72), long(124)), (32, 48, 60));
    assert_eq!(&received[40..72], b"<mcd><Msd>jms_text</Msd></mcd>  ");
    assert_eq!(&received[188..], body.as_bytes());
    // `mqgate decode` of what the device received, with the Format and
    // Encoding of its MQMD, shows the same RFH2 (docs/decode-json.md).
    let decode = |file: &Path, json: bool| {
        let o = Command::new(BIN)
            .args(["decode", "--format", "MQHRF2", "--encoding", "273"])
            .args(if json { &["--json"][..] } else { &[][..] })
            .arg(file)
            .output()
            .unwrap();
        assert!(o.status.success(), "{}", text(&o.stderr));
        text(&o.stdout)
    };
    let pulled = out_dir.join("000001.dat");
    assert_eq!(decode(&pulled, false), decode(Path::new(fixture), false));
    let shown: Value = serde_json::from_str(&decode(&pulled, true)).unwrap();
    let rfh2 = &shown["structures"][0];
    assert_eq!(
        shown["structures"].as_array().map(Vec::len),
        Some(1),
        "{shown}"
    );
    assert_eq!(rfh2["type"], "MQRFH2", "{shown}");
    assert_eq!(rfh2["offset"], 0, "{shown}");
    assert_eq!(rfh2["length"], 188, "{shown}");
    assert_eq!(
        rfh2["fields"],
        serde_json::json!({
            "StrucId": "RFH", "Version": 2, "StrucLength": 188, "Encoding": 273,
            "CodedCharSetId": 1208, "Format": "MQSTR", "Flags": 0, "NameValueCCSID": 1208
        }),
        "{shown}"
    );
    assert_eq!(
        rfh2["folders"],
        serde_json::json!([
            "<mcd><Msd>jms_text</Msd></mcd>",
            "<jms><Dst>queue:///INBOX</Dst><Pri>4</Pri></jms>",
            "<usr><Device>DEV0001</Device><Sequence>42</Sequence></usr>"
        ]),
        "{shown}"
    );
    assert_eq!(
        shown["body"],
        serde_json::json!({
            "offset": 188, "length": 63, "format": "MQSTR", "ccsid": 1208, "encoding": 273,
            "hex": hex::encode_upper(body)
        }),
        "{shown}"
    );
    // The MQMD as sent: Format MQHRF2, Encoding 273, persistent (the send
    // command line above; README: `mqgate send` wraps plain files in an MQXQH
    // built from `--persistent`, `--format` and `--encoding`).
    assert_eq!(md["Format"], "MQHRF2", "{md}");
    assert_eq!(md["Encoding"], 273, "{md}");
    assert_eq!(md["Persistence"], 1, "{md}");
    // Nothing more: exit status 3, "no message within `--wait`" (README,
    // the exit codes of `device-pull`).
    let o = pull(&["--wait", "50"]);
    assert_eq!(o.status.code(), Some(3), "{}", text(&o.stderr));
}

const ROUTING: &str = "
queue_manager:
  name: MQGATE
queues:
  - type: local
    name: APP.IN
  - type: local
    name: QM2
    usage: xmitq
  - type: remote
    name: REMOTE.DEF
    remote_q_name: TARGET.Q
    remote_q_mgr_name: QM2
  - type: remote
    name: ALIAS.QM
    remote_q_mgr_name: DEV0500
channels:
  - type: receiver
    name: TO.MQGATE
    receive_exits:
      - exit: destination-rewrite
        data: separator=%
  - type: receiver
    name: SLASH.CHL
    receive_exits:
      - exit: destination-rewrite
        data: separator=/
  - type: receiver
    name: PLAIN.CHL
";

/// RemoteQName and RemoteQMgrName of a transmission-queue message's MQXQH
/// (IBM MQ "MQXQH - Transmission-queue header": offsets 8 and 56, 48 bytes each).
fn xqh_names(d: &[u8]) -> (String, String) {
    let f = |o: usize| text(&d[o..o + 48]).trim_end().to_string();
    (f(8), f(56))
}

#[test]
fn routing_to_each_kind_of_target() {
    let dir = tempfile::tempdir().unwrap();
    let g = Gateway::start(dir.path(), ROUTING);
    let msgs = vec![
        // 1. RemoteQMgrName is this queue manager: local queue.
        xmit("APP.IN", "MQGATE", true, "MQSTR", b"local"),
        // 2. A remote queue definition: RNAME TARGET.Q at QM2 via xmitq QM2.
        xmit("REMOTE.DEF", "MQGATE", true, "MQSTR", b"remote-def"),
        // 3. A queue manager alias for a device queue manager.
        xmit("INBOX", "ALIAS.QM", true, "MQSTR", b"qmgr-alias"),
        // 4. A transmission queue named like the queue manager.
        xmit("OTHER.Q", "QM2", true, "MQSTR", b"xmitq"),
        // 5. A device queue manager (matches DEV*), queue created on first use.
        xmit("INBOX", "DEV0001", true, "MQSTR", b"device"),
        // 6. Anything else: the default transmission queue.
        xmit("SOME.Q", "FAR.AWAY", true, "MQSTR", b"default-xmitq"),
    ];
    let files = write_files(&dir.path().join("routing"), &msgs);
    let out = send(&g, "PLAIN.CHL", &[], &files);
    assert!(out.status.success(), "{}", text(&out.stderr));

    let (_, v) = g.get_ack("APP.IN", "");
    assert_eq!(data(&v), b"local");
    let (_, v) = g.get_ack("QM2", "");
    let d = data(&v);
    assert_eq!(xqh_names(&d), ("TARGET.Q".into(), "QM2".into()));
    assert_eq!(&d[428..], b"remote-def");
    let (_, v) = g.get_ack("QM2", "");
    let d = data(&v);
    assert_eq!(xqh_names(&d), ("OTHER.Q".into(), "QM2".into()));
    assert_eq!(&d[428..], b"xmitq");
    assert_eq!(
        drain_device(&g, "DEV0500", "INBOX"),
        vec![b"qmgr-alias".to_vec()]
    );
    assert_eq!(
        drain_device(&g, "DEV0001", "INBOX"),
        vec![b"device".to_vec()]
    );
    let (_, v) = g.get_ack("MQGATE.DEFAULT.XMITQ", "");
    let d = data(&v);
    assert_eq!(xqh_names(&d), ("SOME.Q".into(), "FAR.AWAY".into()));
    assert_eq!(&d[428..], b"default-xmitq");
}

#[test]
fn destination_rewrite_with_percent_and_slash() {
    let dir = tempfile::tempdir().unwrap();
    let g = Gateway::start(dir.path(), ROUTING);
    // the WebSphere MQ Everyplace gateway article: RemoteQName "QUEUE%QMGR" (prose) and "QMGR/QUEUE"-style
    // separator "/" (its sample code), addressed to the gateway queue manager.
    let pct = write_files(
        &dir.path().join("pct"),
        &[xmit("INBOX%DEV0002", "MQGATE", true, "MQSTR", b"percent")],
    );
    let out = send(&g, "TO.MQGATE", &[], &pct);
    assert!(out.status.success(), "{}", text(&out.stderr));
    let slash = write_files(
        &dir.path().join("slash"),
        &[xmit("ORDERS/DEV0003", "MQGATE", true, "MQSTR", b"slash")],
    );
    let out = send(&g, "SLASH.CHL", &[], &slash);
    assert!(out.status.success(), "{}", text(&out.stderr));
    let v = device_next(&g, "DEV0002", "INBOX").expect("percent message");
    assert_eq!(data(&v), b"percent");
    // The MQMD travels intact (the XQH's embedded MD).
    assert_eq!(v["md"]["PutApplName"], "test.sender", "{v}");
    assert_eq!(
        drain_device(&g, "DEV0003", "ORDERS"),
        vec![b"slash".to_vec()]
    );
}

const DEAD_LETTER: &str = "
queue_manager:
  name: MQGATE
  default_xmit_queue: ''
channels:
  - type: receiver
    name: DLQ.CHL
    undelivered: dead-letter
";

#[test]
fn dead_letter_rule_puts_an_mqdlh_and_goes_on() {
    let dir = tempfile::tempdir().unwrap();
    let g = Gateway::start(dir.path(), DEAD_LETTER);
    let files = write_files(
        &dir.path().join("dlq"),
        &[
            xmit("Q1", "NOWHERE", true, "MQSTR", b"undeliverable"),
            xmit("INBOX", "DEV0009", true, "MQSTR", b"after"),
        ],
    );
    let out = send(&g, "DLQ.CHL", &[], &files);
    assert!(out.status.success(), "{}", text(&out.stderr));
    let (st, v) = g.get_ack("SYSTEM.DEAD.LETTER.QUEUE", "");
    assert_eq!(st, 200, "{v}");
    let d = data(&v);
    // IBM MQ "MQDLH - Dead-letter header": MQDLH 172 bytes; the MD gets Format MQDEAD.
    assert_eq!(v["md"]["Format"], "MQDEAD", "{v}");
    let (dlh, cs) = parse_dlh(&d, ByteOrder::Little).unwrap();
    // docs/channel-protocol.md: 2087 MQRC_UNKNOWN_REMOTE_Q_MGR, the original destination, the
    // channel name as PutApplName (PutApplType 7 MQAT_QMGR, IBM MQ "MQDLH - Dead-letter
    // header" and "Constants").
    assert_eq!(dlh.reason, 2087);
    assert_eq!(dlh.dest_q_name.text(cs), "Q1");
    assert_eq!(dlh.dest_q_mgr_name.text(cs), "NOWHERE");
    assert_eq!(dlh.put_appl_name.text(cs), "DLQ.CHL");
    assert_eq!(dlh.put_appl_type, 7);
    assert_eq!(dlh.format.0, *b"MQSTR   ");
    assert_eq!(&d[172..], b"undeliverable");
    // The message after it was delivered: the channel went on.
    assert_eq!(
        drain_device(&g, "DEV0009", "INBOX"),
        vec![b"after".to_vec()]
    );
}

const RETRY: &str = "
queue_manager:
  name: MQGATE
  default_xmit_queue: ''
channels:
  - type: receiver
    name: RETRY.CHL
    retry:
      first_interval_ms: 20
      attempts: 2
";

#[test]
fn retry_rule_stops_the_channel_and_commits_nothing() {
    let dir = tempfile::tempdir().unwrap();
    let g = Gateway::start(dir.path(), RETRY);
    let files = write_files(
        &dir.path().join("retry"),
        &[
            xmit("INBOX", "DEV0001", true, "MQSTR", b"before"),
            xmit("Q1", "NOWHERE", true, "MQSTR", b"undeliverable"),
            xmit("INBOX", "DEV0001", true, "MQSTR", b"after"),
        ],
    );
    let out = send(&g, "RETRY.CHL", &[], &files);
    let err = text(&out.stderr);
    assert!(!out.status.success());
    assert!(err.contains("2087"), "{err}");
    // Nothing of the batch is committed: the messages stay with the sender.
    assert!(device_next(&g, "DEV0001", "INBOX").is_none());
    let c = status_channel(&g, "RETRY.CHL");
    assert_eq!(c["state"], "stopped", "{c}");
    assert_eq!(c["reason"], 2087, "{c}");
    // A stopped channel refuses the sender: 2279 MQRC_CHANNEL_STOPPED_BY_USER.
    let out = send(&g, "RETRY.CHL", &[], &files[..1]);
    assert!(!out.status.success());
    assert!(text(&out.stderr).contains("2279"), "{}", text(&out.stderr));
    let log = std::fs::read_to_string(g.log_path()).unwrap();
    assert!(
        log.contains("channel stopped by the undelivered rule"),
        "{log}"
    );
}

/// A receiver whose undelivered rule `retry` would wait 10 minutes before
/// its first retry: longer than any test runs.
const SLOW_RETRY: &str = "
queue_manager:
  name: MQGATE
  default_xmit_queue: ''
queues:
  - type: local
    name: APP.IN
channels:
  - type: receiver
    name: SLOW.RETRY
    retry:
      first_interval_ms: 600000
      attempts: 5
";

#[test]
fn send_to_an_unknown_queue_under_the_retry_rule_ends_within_its_confirm_wait() {
    // Defect report: `mqgate send` to an unknown queue under the `retry`
    // rule waited as long as the receiver kept retrying, then said
    // "positions none". README (`--confirm-wait-ms`) and
    // docs/channel-protocol.md "Close": past the wait send closes the
    // channel, the receiver answers with the message's reason, 2085
    // MQRC_UNKNOWN_OBJECT_NAME (IBM MQ "API reason codes"), within 5 s, and
    // send exits 1 saying plainly what was confirmed.
    let dir = tempfile::tempdir().unwrap();
    let g = Gateway::start(dir.path(), SLOW_RETRY);
    let files = write_files(
        &dir.path().join("nope"),
        &[xmit("NOPE", "MQGATE", true, "MQSTR", b"for no queue")],
    );
    let started = std::time::Instant::now();
    let out = send(&g, "SLOW.RETRY", &["--confirm-wait-ms", "500"], &files);
    let took = started.elapsed();
    let err = text(&out.stderr);
    assert_eq!(out.status.code(), Some(1), "{err}");
    // 500 ms of waiting plus at most 5 s for the answer (and the handshake).
    assert!(took < Duration::from_secs(8), "{took:?}: {err}");
    assert!(
        err.contains("no CONFIRM of batch 1 within 500 ms (--confirm-wait-ms), so send closed the channel; the receiver closed the channel: 2085 MQRC_UNKNOWN_OBJECT_NAME: message 1 of batch 1 undelivered (waiting for retry 1 of 5): "),
        "{err}"
    );
    assert!(
        err.contains("\nmqgate send: 0 messages confirmed by this run; 0 of 1 message done; a rerun sends the message again\n"),
        "{err}"
    );
    assert!(!err.contains("positions none"), "{err}");
    // The channel is not stopped (the sender ended the retries, not the
    // rule), and shows why it closed (its status is updated just after the
    // CLOSE went out).
    let mut c = status_channel(&g, "SLOW.RETRY");
    for _ in 0..100 {
        if c["state"] != "retrying" {
            break;
        }
        std::thread::sleep(Duration::from_millis(20));
        c = status_channel(&g, "SLOW.RETRY");
    }
    assert_eq!(c["state"], "inactive", "{c}");
    assert_eq!(c["reason"], 2085, "{c}");
    assert_eq!(g.depth("APP.IN"), 0);

    // With a batch confirmed before the undeliverable one (--batch 1), the
    // count and the file position say so.
    let files = write_files(
        &dir.path().join("some"),
        &[
            xmit("APP.IN", "MQGATE", true, "MQSTR", b"lands"),
            xmit("NOPE", "MQGATE", true, "MQSTR", b"for no queue"),
        ],
    );
    let out = send(
        &g,
        "SLOW.RETRY",
        &["--confirm-wait-ms", "500", "--batch", "1"],
        &files,
    );
    let err = text(&out.stderr);
    assert_eq!(out.status.code(), Some(1), "{err}");
    assert!(err.contains("2085 MQRC_UNKNOWN_OBJECT_NAME"), "{err}");
    assert!(
        err.contains("mqgate send: 1 message confirmed in 1 batch by this run; 1 of 2 messages done: the files at positions 1 on the command line; without --journal a rerun sends all 2 again; send only the files not listed\n"),
        "{err}"
    );
    assert_eq!(g.depth("APP.IN"), 1);
}

#[test]
fn a_message_that_can_never_be_delivered_is_dead_lettered_at_once_whatever_the_rule() {
    // RETRY.CHL has the undelivered rule `retry`; none of these three can
    // ever be delivered, so retrying would only stop the channel for the
    // message behind them (docs/channel-protocol.md "Applying one message"
    // step 5).
    let dir = tempfile::tempdir().unwrap();
    let g = Gateway::start(dir.path(), RETRY);
    let junk = b"this frame's data does not start with an MQXQH".to_vec();
    // IBM MQ "MQXQH - Transmission-queue header": the embedded MQMD starts
    // at offset 104 with StrucId "MD  "; "MQMD - Message descriptor":
    // MsgType at MD offset 12 (little-endian here, Encoding 546).
    let mut bad_md = xmit("INBOX", "DEV0001", true, "MQSTR", b"bad md");
    bad_md[104..108].copy_from_slice(b"BAD ");
    let mut type_0 = xmit("INBOX", "DEV0001", true, "MQSTR", b"type 0");
    type_0[104 + 12..104 + 16].copy_from_slice(&0i32.to_le_bytes());
    let after = xmit("INBOX", "DEV0001", true, "MQSTR", b"after");
    let mut bytes = hello("RETRY.CHL", 100_000);
    bytes.extend_from_slice(&raw_batch(
        1,
        &[junk.clone(), bad_md.clone(), type_0.clone(), after],
    ));
    let mut s = TcpStream::connect(g.listen_addr()).unwrap();
    s.write_all(&bytes).unwrap();
    // The batch is committed and confirmed: nothing stopped the channel.
    let (seen, close) = confirms_until(&mut s, 1);
    assert_eq!((seen, close), (vec![1], None));
    s.write_all(&frame(0x07, &[0, 0, 0, 0, 0, 0])).unwrap();
    assert_eq!(read_close(&mut s).0, 0);
    assert_eq!(
        drain_device(&g, "DEV0001", "INBOX"),
        vec![b"after".to_vec()]
    );
    // IBM MQ "MQDLH - Dead-letter header": 172 bytes, then the data; its
    // Format says what the data is. Each goes whole, as it arrived: what does
    // not parse as an MQXQH with 2142 MQRC_HEADER_ERROR (Format blank: not
    // known), the one whose MsgType the put refuses with the put's reason,
    // 2029 MQRC_MSG_TYPE_ERROR (IBM MQ "MsgType (MQLONG)": 0 is no type),
    // Format MQXMIT (the data starts with its MQXQH) and its destination.
    let mut dead = Vec::new();
    loop {
        let (st, v) = g.get_ack("SYSTEM.DEAD.LETTER.QUEUE", "");
        if st != 200 {
            break;
        }
        let d = data(&v);
        let (dlh, cs) = parse_dlh(&d, ByteOrder::Little).unwrap();
        assert_eq!(dlh.put_appl_name.text(cs), "RETRY.CHL");
        let dest = (dlh.dest_q_name.text(cs), dlh.dest_q_mgr_name.text(cs));
        dead.push((dlh.reason, dlh.format.0, dest, d[172..].to_vec()));
    }
    let none = (String::new(), String::new());
    assert_eq!(
        dead,
        vec![
            (2142, *b"        ", none.clone(), junk),
            (2142, *b"        ", none, bad_md),
            (
                2029,
                *b"MQXMIT  ",
                ("INBOX".into(), "DEV0001".into()),
                type_0
            ),
        ]
    );
    let c = status_channel(&g, "RETRY.CHL");
    assert_ne!(c["state"], "stopped", "{c}");
    assert_eq!(c["last_seq"], 1, "{c}");
    // Each one is in the log with its reason and what was wrong.
    let log = std::fs::read_to_string(g.log_path()).unwrap();
    assert!(log.contains("not a transmission message"), "{log}");
    assert!(log.contains("MsgType 0"), "{log}");
}

#[test]
fn a_stopped_channel_is_started_again_without_restarting_the_gateway() {
    let dir = tempfile::tempdir().unwrap();
    let g = Gateway::start(dir.path(), RETRY);
    let stuck = write_files(
        &dir.path().join("stuck"),
        &[xmit("Q1", "NOWHERE", true, "MQSTR", b"undeliverable")],
    );
    let good = write_files(
        &dir.path().join("good"),
        &[xmit("INBOX", "DEV0001", true, "MQSTR", b"deliverable")],
    );
    let stop_it = || {
        let out = send(&g, "RETRY.CHL", &[], &stuck);
        assert!(!out.status.success());
        assert!(text(&out.stderr).contains("2087"), "{}", text(&out.stderr));
        assert_eq!(status_channel(&g, "RETRY.CHL")["state"], "stopped");
    };
    stop_it();
    // Stopped: 2279, and the refusal says how to start it.
    let out = send(&g, "RETRY.CHL", &[], &good);
    let err = text(&out.stderr);
    assert!(!out.status.success());
    assert!(
        err.contains("2279") && err.contains("POST /v1/channels/RETRY.CHL/start"),
        "{err}"
    );
    // docs/http-api.md "Channels": the channel becomes inactive.
    let (st, v) = g.call(
        "POST",
        "/v1/channels/RETRY.CHL/start",
        Some(("application/octet-stream", b"")),
    );
    assert_eq!(st, 200, "{v}");
    assert_eq!(v["started"], true, "{v}");
    assert_eq!(v["status"]["state"], "inactive", "{v}");
    assert_eq!(
        v["status"]["reason"], 2087,
        "the last failure stays shown: {v}"
    );
    // Starting it again changes nothing.
    let (st, v) = g.call(
        "POST",
        "/v1/channels/RETRY.CHL/start",
        Some(("application/octet-stream", b"")),
    );
    assert_eq!((st, &v["started"]), (200, &Value::Bool(false)), "{v}");
    // A sender is accepted again.
    let out = send(&g, "RETRY.CHL", &[], &good);
    assert!(out.status.success(), "{}", text(&out.stderr));
    assert_eq!(
        drain_device(&g, "DEV0001", "INBOX"),
        vec![b"deliverable".to_vec()]
    );
    // The same with the command line.
    stop_it();
    let cli = |name: &str| {
        Command::new(BIN)
            .args(["channel", "start", name, "--gateway", &g.base])
            .output()
            .unwrap()
    };
    let o = cli("RETRY.CHL");
    assert!(o.status.success(), "{}", text(&o.stderr));
    assert_eq!(
        text(&o.stdout),
        "channel RETRY.CHL started: state inactive, senders are accepted again\n"
    );
    let out = send(&g, "RETRY.CHL", &[], &good);
    assert!(out.status.success(), "{}", text(&out.stderr));
    // No such channel: 404 / 2540 MQRC_UNKNOWN_CHANNEL_NAME; the command
    // exits 1 with the reason (an MQ error from the gateway).
    let (st, v) = g.call(
        "POST",
        "/v1/channels/NO.SUCH.CHL/start",
        Some(("application/octet-stream", b"")),
    );
    assert_eq!((st, &v["mqrc"]), (404, &Value::from(2540)), "{v}");
    let o = cli("NO.SUCH.CHL");
    assert_eq!(o.status.code(), Some(1));
    assert!(
        text(&o.stderr).contains("2540 MQRC_UNKNOWN_CHANNEL_NAME"),
        "{}",
        text(&o.stderr)
    );
}

#[test]
fn fifty_back_to_back_sends_on_one_channel_all_succeed() {
    // Each `mqgate send` closes the channel (CLOSE 0) and exits; the next
    // connects while the receiver may still be ending the previous instance.
    // It waits for it (docs/channel-protocol.md "Adopting a channel
    // instance") instead of being refused with 2537.
    let dir = tempfile::tempdir().unwrap();
    let g = Gateway::start(dir.path(), "");
    for i in 0..50 {
        let files = write_files(
            &dir.path().join(format!("b2b{i}")),
            &[xmit(
                "INBOX%DEV0102",
                "MQGATE",
                true,
                "MQSTR",
                format!("m{i:02}").as_bytes(),
            )],
        );
        let out = send(&g, "TO.MQGATE", &[], &files);
        assert!(out.status.success(), "send {i}: {}", text(&out.stderr));
    }
    let want: Vec<Vec<u8>> = (0..50).map(|i| format!("m{i:02}").into_bytes()).collect();
    assert_eq!(drain_device(&g, "DEV0102", "INBOX"), want);
    assert_eq!(status_channel(&g, "TO.MQGATE")["last_seq"], 50);
    // The same without a process start in between, which widens the race:
    // each sender connects the moment the previous one had its CLOSE
    // answered, while the receiver may still be ending that instance
    // (ending its exits, letting go of the channel). Batch numbers go on
    // from 50 (docs/channel-protocol.md "Batches": last committed + 1).
    for i in 0..50u64 {
        let seq = 51 + i;
        let mut s = TcpStream::connect(g.listen_addr()).unwrap();
        s.write_all(&hello("TO.MQGATE", 100_000)).unwrap();
        let m = xmit(
            "INBOX%DEV0102",
            "MQGATE",
            true,
            "MQSTR",
            format!("r{i:02}").as_bytes(),
        );
        s.write_all(&raw_batch(seq, &[m])).unwrap();
        let (seen, close) = confirms_until(&mut s, seq);
        assert_eq!((seen, close), (vec![seq], None), "session {i}");
        s.write_all(&frame(0x07, &[0, 0, 0, 0, 0, 0])).unwrap();
        assert_eq!(read_close(&mut s).0, 0);
    }
    let want: Vec<Vec<u8>> = (0..50).map(|i| format!("r{i:02}").into_bytes()).collect();
    assert_eq!(drain_device(&g, "DEV0102", "INBOX"), want);
    assert_eq!(status_channel(&g, "TO.MQGATE")["last_seq"], 100);
}

#[test]
fn a_silent_sender_is_adopted_by_its_reconnect_and_nothing_is_applied_twice() {
    let dir = tempfile::tempdir().unwrap();
    let g = Gateway::start(dir.path(), "");
    let m = |body: &str| xmit("INBOX%DEV0103", "MQGATE", true, "MQSTR", body.as_bytes());
    // Sending queue manager QM1 agrees heartbeat 0 (no heartbeats: the
    // receiver never times it out), sends batch 1 and the first message of
    // batch 2, and goes silent without reading batch 1's CONFIRM.
    let mut old = TcpStream::connect(g.listen_addr()).unwrap();
    old.write_all(&hello_from("TO.MQGATE", "QM1", 0)).unwrap();
    assert_eq!(read_frame(&mut old).0, 0x02, "HELLO_ACK");
    old.write_all(&raw_batch(1, &[m("one")])).unwrap();
    old.write_all(&frame(0x03, &[&[0u8][..], &m("two")].concat()))
        .unwrap();
    // Batch 1 is committed; for QM1 it is in doubt.
    for _ in 0..200 {
        if status_channel(&g, "TO.MQGATE")["last_seq"] == 1 {
            break;
        }
        std::thread::sleep(Duration::from_millis(20));
    }
    assert_eq!(status_channel(&g, "TO.MQGATE")["last_seq"], 1);
    // Another sending queue manager is refused while QM1's instance runs:
    // 2537 MQRC_CHANNEL_NOT_AVAILABLE (IBM MQ ADOPTCHK(ALL): the queue
    // manager name must match).
    let (r, t) = raw(&g, &hello_from("TO.MQGATE", "QM2", 0));
    assert_eq!(r, 2537, "{t}");
    assert!(
        t.contains("sending queue manager \"QM1\" from 127.0.0.1"),
        "{t}"
    );
    // QM1 reconnects from the same address: it adopts the channel.
    let mut new = TcpStream::connect(g.listen_addr()).unwrap();
    new.write_all(&hello_from("TO.MQGATE", "QM1", 0)).unwrap();
    let (kind, ack) = read_frame(&mut new);
    assert_eq!(kind, 0x02, "HELLO_ACK");
    // HELLO_ACK: version u16, batch_size u32, max_msg_length u32,
    // heartbeat_ms u32, then last_committed_seq u64 at payload offset 14.
    assert_eq!(u64::from_be_bytes(ack[14..22].try_into().unwrap()), 1);
    // The old instance was ended with CLOSE 2009 saying it was adopted, its
    // open batch discarded.
    let (r, t) = read_close(&mut old);
    assert_eq!(r, 2009, "{t}");
    assert!(
        t.contains("adopted by a new connection of sending queue manager \"QM1\""),
        "{t}"
    );
    // The sender resolves its in-doubt batch by the normal resync; here it
    // even sends batch 1 again: it is confirmed, not applied again
    // (docs/channel-protocol.md "Batches" step 1). Then batch 2, whole.
    new.write_all(&raw_batch(1, &[m("one")])).unwrap();
    new.write_all(&raw_batch(2, &[m("two")])).unwrap();
    let (seen, close) = confirms_until(&mut new, 2);
    assert_eq!((seen, close), (vec![1, 2], None));
    new.write_all(&frame(0x07, &[0, 0, 0, 0, 0, 0])).unwrap();
    assert_eq!(read_close(&mut new).0, 0);
    let got: Vec<String> = drain_device(&g, "DEV0103", "INBOX")
        .iter()
        .map(|d| text(d))
        .collect();
    assert_eq!(got, ["one", "two"], "exactly once");
    let log = std::fs::read_to_string(g.log_path()).unwrap();
    assert!(
        log.contains("adopting the running channel instance"),
        "{log}"
    );
}

#[test]
fn a_thousand_device_queue_managers_need_no_definitions() {
    let dir = tempfile::tempdir().unwrap();
    let g = Gateway::start(dir.path(), "");
    let msgs: Vec<Vec<u8>> = (0..1000)
        .map(|i| {
            xmit(
                &format!("INBOX%DEV{i:04}"),
                "MQGATE",
                true,
                "MQSTR",
                format!("for DEV{i:04}").as_bytes(),
            )
        })
        .collect();
    let files = write_files(&dir.path().join("many"), &msgs);
    let out = send(&g, "TO.MQGATE", &[], &files);
    assert!(out.status.success(), "{}", text(&out.stderr));
    for i in 0..1000 {
        let qm = format!("DEV{i:04}");
        assert_eq!(
            drain_device(&g, &qm, "INBOX"),
            vec![format!("for {qm}").into_bytes()]
        );
    }
}

/// A raw frame: u32 BE length, type, payload (docs/channel-protocol.md).
fn frame(kind: u8, payload: &[u8]) -> Vec<u8> {
    let mut f = ((payload.len() + 1) as u32).to_be_bytes().to_vec();
    f.push(kind);
    f.extend_from_slice(payload);
    f
}

fn hello(channel: &str, max_msg_length: u32) -> Vec<u8> {
    hello_hb(channel, max_msg_length, 0)
}

fn hello_hb(channel: &str, max_msg_length: u32, heartbeat_ms: u32) -> Vec<u8> {
    let mut p = Vec::new();
    p.extend_from_slice(&1u16.to_be_bytes());
    p.extend_from_slice(&50u32.to_be_bytes());
    p.extend_from_slice(&max_msg_length.to_be_bytes());
    p.extend_from_slice(&heartbeat_ms.to_be_bytes());
    p.extend_from_slice(&0u64.to_be_bytes());
    for s in [channel, "", ""] {
        p.extend_from_slice(&(s.len() as u16).to_be_bytes());
        p.extend_from_slice(s.as_bytes());
    }
    frame(0x01, &p)
}

/// A HELLO of protocol version 1 for `channel` from sending queue manager
/// `sending_q_mgr` (docs/channel-protocol.md "Frames": version u16,
/// batch_size u32, max_msg_length u32, heartbeat_ms u32, last_confirmed_seq
/// u64, then the channel, sending and receiving queue manager strings).
fn hello_from(channel: &str, sending_q_mgr: &str, heartbeat_ms: u32) -> Vec<u8> {
    let mut p = Vec::new();
    p.extend_from_slice(&1u16.to_be_bytes());
    p.extend_from_slice(&50u32.to_be_bytes());
    p.extend_from_slice(&100_000u32.to_be_bytes());
    p.extend_from_slice(&heartbeat_ms.to_be_bytes());
    p.extend_from_slice(&0u64.to_be_bytes());
    for s in [channel, sending_q_mgr, ""] {
        p.extend_from_slice(&(s.len() as u16).to_be_bytes());
        p.extend_from_slice(s.as_bytes());
    }
    frame(0x01, &p)
}

/// Reads frames until a CLOSE; returns its (reason, text).
fn read_close(s: &mut TcpStream) -> (u32, String) {
    s.set_read_timeout(Some(Duration::from_secs(10))).unwrap();
    loop {
        let mut len = [0u8; 4];
        s.read_exact(&mut len).unwrap();
        let mut body = vec![0u8; u32::from_be_bytes(len) as usize];
        s.read_exact(&mut body).unwrap();
        if body[0] == 0x07 {
            let reason = u32::from_be_bytes(body[1..5].try_into().unwrap());
            return (reason, text(&body[7..]));
        }
    }
}

fn raw(g: &Gateway, bytes: &[u8]) -> (u32, String) {
    let mut s = TcpStream::connect(g.listen_addr()).unwrap();
    s.write_all(bytes).unwrap();
    s.shutdown(std::net::Shutdown::Write).unwrap();
    read_close(&mut s)
}

#[test]
fn bad_input_is_refused_with_a_reason_and_nothing_half_stored() {
    let dir = tempfile::tempdir().unwrap();
    let g = Gateway::start(dir.path(), "");
    // Garbage: "GET " read as a length of 1195725856 bytes (2218 MQRC_MSG_TOO_BIG_FOR_CHANNEL).
    let (r, t) = raw(&g, b"GET / HTTP/1.1\r\n\r\n");
    assert_eq!(r, 2218, "{t}");
    assert!(t.contains("1195725856"), "{t}");
    // Wrong handshake: a CONFIRM first (2142 MQRC_HEADER_ERROR).
    let (r, t) = raw(&g, &frame(0x05, &7u64.to_be_bytes()));
    assert_eq!(r, 2142, "{t}");
    assert!(
        t.contains("expected a HELLO frame first, got CONFIRM"),
        "{t}"
    );
    // Unknown channel (2540 MQRC_UNKNOWN_CHANNEL_NAME).
    let (r, t) = raw(&g, &hello("NO.SUCH.CHL", 1000));
    assert_eq!(r, 2540, "{t}");
    // Truncated handshake: the connection ends inside a frame (2009).
    let h = hello("TO.MQGATE", 1000);
    let (r, t) = raw(&g, &h[..h.len() - 3]);
    assert_eq!(r, 2009, "{t}");
    assert!(t.contains("inside a frame"), "{t}");
    // Oversize message frame after agreeing 1000 bytes (2218).
    let mut bytes = hello("TO.MQGATE", 1000);
    bytes.extend_from_slice(&frame(0x03, &vec![0u8; 5000]));
    let (r, t) = raw(&g, &bytes);
    assert_eq!(r, 2218, "{t}");
    // A batch cut off by a truncated frame: nothing of it is stored.
    let mut bytes = hello("TO.MQGATE", 100_000);
    let m = xmit("INBOX%DEV0042", "MQGATE", true, "MQSTR", b"half");
    let mut payload = vec![0u8];
    payload.extend_from_slice(&m);
    bytes.extend_from_slice(&frame(0x03, &payload));
    let second = frame(0x03, &payload);
    bytes.extend_from_slice(&second[..second.len() / 2]);
    let mut s = TcpStream::connect(g.listen_addr()).unwrap();
    s.write_all(&bytes).unwrap();
    drop(s);
    std::thread::sleep(Duration::from_millis(300));
    assert!(device_next(&g, "DEV0042", "INBOX").is_none());
    // Every refusal is in the log with its reason.
    let log = std::fs::read_to_string(g.log_path()).unwrap();
    for needle in ["reason=2218", "reason=2142", "reason=2540", "reason=2009"] {
        assert!(log.contains(needle), "{needle} not in the log:\n{log}");
    }
    // The gateway still serves channels.
    let files = write_files(
        &dir.path().join("ok"),
        &[xmit("INBOX%DEV0042", "MQGATE", true, "MQSTR", b"whole")],
    );
    let out = send(&g, "TO.MQGATE", &[], &files);
    assert!(out.status.success(), "{}", text(&out.stderr));
    assert_eq!(
        drain_device(&g, "DEV0042", "INBOX"),
        vec![b"whole".to_vec()]
    );
}

#[test]
fn non_persistent_messages_take_the_fast_path() {
    let dir = tempfile::tempdir().unwrap();
    let g = Gateway::start(dir.path(), "");
    let files = write_files(
        &dir.path().join("np"),
        &[
            xmit("INBOX%DEV0100", "MQGATE", false, "MQSTR", b"np1"),
            xmit("INBOX%DEV0100", "MQGATE", true, "MQSTR", b"p1"),
            xmit("INBOX%DEV0100", "MQGATE", false, "MQSTR", b"np2"),
        ],
    );
    let out = send(&g, "TO.MQGATE", &[], &files);
    assert!(out.status.success(), "{}", text(&out.stderr));
    let summary = text(&out.stdout);
    assert!(
        summary.contains("1 persistent in 1 confirmed batches, 2 on the fast path"),
        "{summary}"
    );
    assert_eq!(
        drain_device(&g, "DEV0100", "INBOX"),
        vec![b"np1".to_vec(), b"p1".to_vec(), b"np2".to_vec()]
    );
}

#[test]
fn a_sender_channel_delivers_a_transmission_queue_to_another_gateway() {
    let dir_b = tempfile::tempdir().unwrap();
    let b = Gateway::start(
        dir_b.path(),
        "queue_manager:\n  name: GWB\nchannels:\n  - type: receiver\n    name: A.TO.B\n",
    );
    let dir_a = tempfile::tempdir().unwrap();
    let config_a = format!(
        "queue_manager:
  name: GWA
  default_xmit_queue: TO.GWB
queues:
  - type: local
    name: TO.GWB
    usage: xmitq
devices:
  queue_managers: []
channels:
  - type: sender
    name: A.TO.B
    xmit_queue: TO.GWB
    connect: {}
    batch_size: 3
    heartbeat_ms: 200
    reconnect:
      first_ms: 50
      max_ms: 200
",
        b.listen_addr()
    );
    let a = Gateway::start(dir_a.path(), &config_a);
    for i in 0..7 {
        let (st, v) = a.put(
            "INBOX",
            "q_mgr=DEV0777&persistent=true",
            format!("m{i}").as_bytes(),
        );
        assert_eq!(st, 201, "{v}");
        assert_eq!(v["queue"], "TO.GWB");
    }
    let mut got = Vec::new();
    for _ in 0..100 {
        got.extend(drain_device(&b, "DEV0777", "INBOX"));
        if got.len() == 7 {
            break;
        }
        std::thread::sleep(Duration::from_millis(50));
    }
    let want: Vec<Vec<u8>> = (0..7).map(|i| format!("m{i}").into_bytes()).collect();
    assert_eq!(got, want);
    // Removed from A's transmission queue only after B confirmed.
    for _ in 0..100 {
        if a.depth("TO.GWB") == 0 {
            break;
        }
        std::thread::sleep(Duration::from_millis(20));
    }
    assert_eq!(a.depth("TO.GWB"), 0);
    let c = status_channel(&a, "A.TO.B");
    assert_eq!(c["type"], "sender");
    assert_eq!(c["messages"], 7, "{c}");
}

#[test]
fn a_killed_sending_gateway_neither_loses_nor_duplicates() {
    let dir_b = tempfile::tempdir().unwrap();
    let b = Gateway::start(
        dir_b.path(),
        "queue_manager:\n  name: GWB\nchannels:\n  - type: receiver\n    name: A.TO.B\n",
    );
    let dir_a = tempfile::tempdir().unwrap();
    let config_a = format!(
        "queue_manager:
  name: GWA
  default_xmit_queue: TO.GWB
queues:
  - type: local
    name: TO.GWB
    usage: xmitq
devices:
  queue_managers: []
channels:
  - type: sender
    name: A.TO.B
    xmit_queue: TO.GWB
    connect: {}
    batch_size: 5
    heartbeat_ms: 200
    reconnect:
      first_ms: 20
      max_ms: 100
",
        b.listen_addr()
    );
    let mut a = Gateway::start(dir_a.path(), &config_a);
    const N: usize = 200;
    for i in 0..N {
        let (st, v) = a.put(
            "INBOX",
            "q_mgr=DEV0778&persistent=true",
            format!("m{i:03}").as_bytes(),
        );
        assert_eq!(st, 201, "{v}");
    }
    // SIGKILL the sending gateway 5 times while its channel delivers.
    for k in 0..5u64 {
        std::thread::sleep(Duration::from_millis(30 + 37 * k));
        a.kill9_and_restart();
    }
    let mut got = Vec::new();
    for _ in 0..400 {
        got.extend(drain_device(&b, "DEV0778", "INBOX"));
        if got.len() >= N && a.depth("TO.GWB") == 0 {
            break;
        }
        std::thread::sleep(Duration::from_millis(50));
    }
    // Late duplicates would show up here.
    std::thread::sleep(Duration::from_millis(500));
    got.extend(drain_device(&b, "DEV0778", "INBOX"));
    let want: Vec<Vec<u8>> = (0..N).map(|i| format!("m{i:03}").into_bytes()).collect();
    assert_eq!(got.len(), N, "exactly once");
    assert_eq!(got, want, "in order");
    assert_eq!(a.depth("TO.GWB"), 0);
}

#[test]
fn heartbeats_are_answered_and_silence_closes_the_channel() {
    let dir = tempfile::tempdir().unwrap();
    let g = Gateway::start(dir.path(), "");
    let mut s = TcpStream::connect(g.listen_addr()).unwrap();
    s.write_all(&hello_hb("TO.MQGATE", 1000, 100)).unwrap();
    // HELLO_ACK: agreed heartbeat = the lower of 100 and the default 30000.
    let mut ack = [0u8; 4 + 1 + 2 + 12 + 8 + 2 + 6];
    s.read_exact(&mut ack).unwrap();
    assert_eq!(ack[4], 0x02);
    assert_eq!(u32::from_be_bytes(ack[15..19].try_into().unwrap()), 100);
    s.write_all(&frame(0x06, b"")).unwrap();
    let mut hb = [0u8; 5];
    s.read_exact(&mut hb).unwrap();
    assert_eq!(hb, [0, 0, 0, 1, 0x06]);
    // Then silence: closed after 3 heartbeat intervals with 2009.
    let (r, t) = read_close(&mut s);
    assert_eq!(r, 2009, "{t}");
    assert!(t.contains("no frame for 300 ms"), "{t}");
}

#[test]
fn an_expired_device_lease_returns_the_message() {
    let dir = tempfile::tempdir().unwrap();
    let g = Gateway::start(dir.path(), "http:\n  lease_ms: 200\n");
    let files = write_files(
        &dir.path().join("lease"),
        &[xmit("INBOX%DEV0200", "MQGATE", true, "MQSTR", b"leased")],
    );
    let out = send(&g, "TO.MQGATE", &[], &files);
    assert!(out.status.success(), "{}", text(&out.stderr));
    let first = device_next(&g, "DEV0200", "INBOX").expect("message");
    assert_eq!(first["md"]["BackoutCount"], 0);
    // Not acknowledged: nothing else to get while leased.
    assert!(device_next(&g, "DEV0200", "INBOX").is_none());
    std::thread::sleep(Duration::from_millis(600));
    // The lease expired: the message is back, BackoutCount + 1 (MQ backout).
    let again = device_next(&g, "DEV0200", "INBOX").expect("message back");
    assert_eq!(data(&again), b"leased");
    assert_eq!(again["md"]["BackoutCount"], 1);
    let (st, v) = g.call(
        "POST",
        &format!(
            "/v1/devices/DEV0200/queues/INBOX/messages/ack/{}",
            common::token(&first["lease"])
        ),
        Some(("application/octet-stream", b"")),
    );
    assert_eq!(st, 409, "the expired lease cannot be acknowledged: {v}");
}

#[test]
fn retry_rule_keeps_the_messages_on_the_sending_gateway_and_shows_it() {
    let dir_b = tempfile::tempdir().unwrap();
    let b = Gateway::start(
        dir_b.path(),
        "queue_manager:
  name: GWB
  default_xmit_queue: ''
channels:
  - type: receiver
    name: A.TO.B
    retry:
      first_interval_ms: 20
      attempts: 1
",
    );
    let dir_a = tempfile::tempdir().unwrap();
    let config_a = format!(
        "queue_manager:
  name: GWA
  default_xmit_queue: TO.GWB
queues:
  - type: local
    name: TO.GWB
    usage: xmitq
devices:
  queue_managers: []
channels:
  - type: sender
    name: A.TO.B
    xmit_queue: TO.GWB
    connect: {}
    reconnect:
      first_ms: 50
      max_ms: 100
",
        b.listen_addr()
    );
    let a = Gateway::start(dir_a.path(), &config_a);
    // GWB knows no queue manager NOWHERE and has no default transmission queue.
    for body in [&b"undeliverable"[..], b"after it"] {
        let (st, v) = a.put("Q1", "q_mgr=NOWHERE&persistent=true", body);
        assert_eq!(st, 201, "{v}");
    }
    let mut receiver = Value::Null;
    for _ in 0..100 {
        receiver = status_channel(&b, "A.TO.B");
        if receiver["state"] == "stopped" {
            break;
        }
        std::thread::sleep(Duration::from_millis(50));
    }
    // the WebSphere MQ Everyplace gateway article "Unhandled Messages": after the retries the channel stops.
    assert_eq!(receiver["state"], "stopped", "{receiver}");
    assert_eq!(receiver["reason"], 2087, "{receiver}");
    // Both messages stay on the sender's transmission queue, visible in its status.
    let mut sender = Value::Null;
    for _ in 0..100 {
        sender = status_channel(&a, "A.TO.B");
        if sender["state"] == "retrying" && sender["xmit_queue_depth"] == 2 {
            break;
        }
        std::thread::sleep(Duration::from_millis(50));
    }
    assert_eq!(sender["state"], "retrying", "{sender}");
    assert_eq!(sender["xmit_queue_depth"], 2, "{sender}");
    assert!(
        sender["message"].as_str().unwrap().contains("2087")
            || sender["message"].as_str().unwrap().contains("2279"),
        "{sender}"
    );
    assert_eq!(a.depth("TO.GWB"), 2);
}

/// The gateway's `exits:` section on receiver channels (docs/exits.md "Where
/// each point runs"): `global.receive` first, then `channels.NAME.receive`,
/// then the channel's own `receive_exits`.
const EXITS_SECTION: &str = "
queue_manager:
  name: MQGATE
channels:
  - type: receiver
    name: EXITS.CHL
  - type: receiver
    name: OWN.CHL
    receive_exits:
      - exit: destination-rewrite
        data: separator=/
exits:
  global:
    receive:
      - exit: rfh-properties
        data: rfh.Via=gateway
  channels:
    EXITS.CHL:
      receive:
        - exit: destination-rewrite
          data: separator=%
";

#[test]
fn exits_section_receive_chains_run_before_the_channels_own() {
    let dir = tempfile::tempdir().unwrap();
    let g = Gateway::start(dir.path(), EXITS_SECTION);
    let pct = write_files(
        &dir.path().join("pct"),
        &[xmit("INBOX%DEV0002", "MQGATE", true, "MQSTR", b"percent")],
    );
    let out = send(&g, "EXITS.CHL", &[], &pct);
    assert!(out.status.success(), "{}", text(&out.stderr));
    let slash = write_files(
        &dir.path().join("slash"),
        &[xmit("ORDERS/DEV0003", "MQGATE", true, "MQSTR", b"slash")],
    );
    let out = send(&g, "OWN.CHL", &[], &slash);
    assert!(out.status.success(), "{}", text(&out.stderr));
    // the WebSphere MQ Everyplace gateway article destination rewrite from exits.channels (EXITS.CHL) and from the
    // channel's own receive_exits (OWN.CHL); both after the global
    // rfh-properties, which put an MQRFH v1 (IBM MQ "MQRFH - Rules and formatting header",
    // StrucId "RFH ", MQMD Format "MQHRF") with the pair "Via gateway" first.
    for (qm, q, body) in [
        ("DEV0002", "INBOX", &b"percent"[..]),
        ("DEV0003", "ORDERS", &b"slash"[..]),
    ] {
        let v = device_next(&g, qm, q).unwrap_or_else(|| panic!("{qm}/{q} is empty"));
        let d = data(&v);
        assert_eq!(v["md"]["Format"], "MQHRF", "{v}");
        assert_eq!(&d[..4], b"RFH ");
        assert!(text(&d).contains("Via gateway"), "{}", text(&d));
        assert!(d.ends_with(body));
    }
}

/// Reads one raw frame: (type byte, payload).
fn read_frame(s: &mut TcpStream) -> (u8, Vec<u8>) {
    s.set_read_timeout(Some(Duration::from_secs(10))).unwrap();
    let mut len = [0u8; 4];
    s.read_exact(&mut len).unwrap();
    let mut body = vec![0u8; u32::from_be_bytes(len) as usize];
    s.read_exact(&mut body).unwrap();
    let kind = body.remove(0);
    (kind, body)
}

/// Raw frames of one batch: MESSAGE frames (flags 0) then END_BATCH seq, count
/// (docs/channel-protocol.md "Frames").
fn raw_batch(seq: u64, msgs: &[Vec<u8>]) -> Vec<u8> {
    let mut out = Vec::new();
    for m in msgs {
        let mut p = vec![0u8];
        p.extend_from_slice(m);
        out.extend_from_slice(&frame(0x03, &p));
    }
    let mut p = seq.to_be_bytes().to_vec();
    p.extend_from_slice(&(msgs.len() as u32).to_be_bytes());
    out.extend_from_slice(&frame(0x04, &p));
    out
}

/// Reads CONFIRMs (0x05) until one confirms `upto` or a CLOSE (0x07) comes;
/// returns the confirmed sequence numbers and the CLOSE reason, if any.
fn confirms_until(s: &mut TcpStream, upto: u64) -> (Vec<u64>, Option<u32>) {
    let mut seen = Vec::new();
    loop {
        match read_frame(s) {
            (0x05, p) => {
                let seq = u64::from_be_bytes(p[..8].try_into().unwrap());
                seen.push(seq);
                if seq >= upto {
                    return (seen, None);
                }
            }
            (0x07, p) => {
                return (seen, Some(u32::from_be_bytes(p[..4].try_into().unwrap())));
            }
            (0x02, _) => {}
            (k, _) => panic!("unexpected frame type {k:#04x}"),
        }
    }
}

#[test]
fn pipelined_batches_are_committed_in_order_and_confirmed_cumulatively() {
    let dir = tempfile::tempdir().unwrap();
    let g = Gateway::start(dir.path(), "");
    // Three batches written back to back, no CONFIRM awaited in between
    // (docs/channel-protocol.md "Pipelining and group commit").
    let m = |body: &str| xmit("INBOX%DEV0100", "MQGATE", true, "MQSTR", body.as_bytes());
    let mut bytes = hello("TO.MQGATE", 100_000);
    bytes.extend_from_slice(&raw_batch(1, &[m("1a"), m("1b")]));
    bytes.extend_from_slice(&raw_batch(2, &[m("2a")]));
    bytes.extend_from_slice(&raw_batch(3, &[m("3a"), m("3b")]));
    let mut s = TcpStream::connect(g.listen_addr()).unwrap();
    s.write_all(&bytes).unwrap();
    let (seen, close) = confirms_until(&mut s, 3);
    assert_eq!(close, None, "closed after CONFIRMs {seen:?}");
    // Cumulative and in order: each CONFIRM is higher than the one before,
    // the last covers batch 3 (some may be skipped when batches were
    // committed together).
    assert!(seen.windows(2).all(|w| w[0] < w[1]), "{seen:?}");
    assert_eq!(seen.last(), Some(&3));
    s.write_all(&frame(0x07, &[0, 0, 0, 0, 0, 0])).unwrap();
    assert_eq!(read_close(&mut s).0, 0);
    let got: Vec<String> = drain_device(&g, "DEV0100", "INBOX")
        .iter()
        .map(|d| text(d))
        .collect();
    assert_eq!(got, ["1a", "1b", "2a", "3a", "3b"]);
    // The channel's last committed sequence number is 3.
    assert_eq!(status_channel(&g, "TO.MQGATE")["last_seq"], 3);
}

#[test]
fn after_a_restart_the_status_shows_the_stored_last_sequence_number() {
    let dir = tempfile::tempdir().unwrap();
    let mut g = Gateway::start(dir.path(), "");
    let m = |body: &str| xmit("INBOX%DEV0101", "MQGATE", true, "MQSTR", body.as_bytes());
    let files = write_files(&dir.path().join("seq"), &[m("a"), m("b"), m("c")]);
    // --batch 1: three batches, sequence numbers 1, 2, 3
    // (docs/channel-protocol.md "Batches").
    let out = send(&g, "TO.MQGATE", &["--batch", "1"], &files);
    assert!(out.status.success(), "{}", text(&out.stderr));
    assert_eq!(status_channel(&g, "TO.MQGATE")["last_seq"], 3);
    g.kill9_and_restart();
    // Before any sender connects, the status shows the sequence number kept
    // in the store with the batches (the one HELLO_ACK would announce).
    let c = status_channel(&g, "TO.MQGATE");
    assert_eq!(c["state"], "inactive", "{c}");
    assert_eq!(c["last_seq"], 3, "{c}");
    // And the next sender continues from it.
    let out = send(&g, "TO.MQGATE", &["--batch", "1"], &files[..1]);
    assert!(out.status.success(), "{}", text(&out.stderr));
    assert_eq!(status_channel(&g, "TO.MQGATE")["last_seq"], 4);
}

#[test]
fn an_undeliverable_message_in_a_pipelined_group_keeps_the_batches_before_it() {
    let dir = tempfile::tempdir().unwrap();
    let g = Gateway::start(dir.path(), RETRY);
    let ok = |body: &str| xmit("INBOX", "DEV0001", true, "MQSTR", body.as_bytes());
    let mut bytes = hello("RETRY.CHL", 100_000);
    bytes.extend_from_slice(&raw_batch(1, &[ok("one")]));
    bytes.extend_from_slice(&raw_batch(2, &[ok("two")]));
    bytes.extend_from_slice(&raw_batch(
        3,
        &[
            ok("three"),
            xmit("Q1", "NOWHERE", true, "MQSTR", b"undeliverable"),
        ],
    ));
    bytes.extend_from_slice(&raw_batch(4, &[ok("four")]));
    let mut s = TcpStream::connect(g.listen_addr()).unwrap();
    s.write_all(&bytes).unwrap();
    let (seen, close) = confirms_until(&mut s, 4);
    // Batches 1 and 2 are committed and confirmed; batch 3 holds a message
    // for an unknown queue manager: retry rule, 2 attempts, then the channel
    // stops with 2087 MQRC_UNKNOWN_REMOTE_Q_MGR (the WebSphere MQ Everyplace gateway article "Unhandled
    // Messages"); batch 3 and 4 stay with the sender.
    assert_eq!(seen.last(), Some(&2), "{seen:?}");
    assert_eq!(close, Some(2087));
    let got: Vec<String> = drain_device(&g, "DEV0001", "INBOX")
        .iter()
        .map(|d| text(d))
        .collect();
    assert_eq!(got, ["one", "two"]);
    let c = status_channel(&g, "RETRY.CHL");
    assert_eq!(c["state"], "stopped", "{c}");
    assert_eq!(c["last_seq"], 2, "{c}");
}

#[test]
fn batches_that_break_the_sequence_rules_close_the_channel_with_2142() {
    let dir = tempfile::tempdir().unwrap();
    let g = Gateway::start(dir.path(), "");
    let m = |body: &str| xmit("INBOX%DEV0200", "MQGATE", true, "MQSTR", body.as_bytes());
    let end = |seq: u64, count: u32| {
        let mut p = seq.to_be_bytes().to_vec();
        p.extend_from_slice(&count.to_be_bytes());
        frame(0x04, &p)
    };
    // docs/channel-protocol.md "Batches": 1 to batch_size messages, sequence
    // numbers from 1, each once per connection; HEARTBEAT between batches
    // only. Each breach is CLOSE 2142 MQRC_HEADER_ERROR.
    let cases: Vec<(Vec<u8>, &str)> = vec![
        (end(1, 0), "END_BATCH 1 with 0 messages"),
        (
            [raw_batch(0, &[m("zero")])].concat(),
            "END_BATCH 0 with 1 messages",
        ),
        (
            [raw_batch(1, &[m("one")]), raw_batch(1, &[m("again")])].concat(),
            "END_BATCH 1 was already received or confirmed on this connection",
        ),
        (
            [
                frame(0x03, &[&[0u8][..], &m("open")].concat()),
                frame(0x06, &[]),
            ]
            .concat(),
            "HEARTBEAT inside an open batch of 1 messages",
        ),
        // Batch 1 is committed now: a resend of it after batch 2 would make
        // the CONFIRMs go backwards.
        (
            [raw_batch(2, &[m("two")]), raw_batch(1, &[m("old")])].concat(),
            "END_BATCH 1 was already received or confirmed on this connection (next expected: 3)",
        ),
    ];
    for (frames, want) in cases {
        let mut bytes = hello("TO.MQGATE", 100_000);
        bytes.extend_from_slice(&frames);
        // The previous connection may still be ending: 2537 means "busy", retry.
        let mut close = None;
        for _ in 0..100 {
            let mut s = TcpStream::connect(g.listen_addr()).unwrap();
            s.write_all(&bytes).unwrap();
            close = confirms_until(&mut s, u64::MAX).1;
            if close != Some(2537) {
                break;
            }
            std::thread::sleep(Duration::from_millis(50));
        }
        assert_eq!(close, Some(2142), "{want}");
        let log = std::fs::read_to_string(g.log_path()).unwrap();
        assert!(log.contains(want), "{want} not in the log");
    }
    // Only the first batch 1 and batch 2 were committed.
    let got: Vec<String> = drain_device(&g, "DEV0200", "INBOX")
        .iter()
        .map(|d| text(d))
        .collect();
    assert_eq!(got, ["one", "two"]);
}

/// Sender channel A.TO.B of gateway GWA to `b`, transmission queue TO.GWB,
/// with `extra` appended (an `exits:` section).
fn sender_gateway_config(b: &Gateway, sender_extra: &str, extra: &str) -> String {
    format!(
        "queue_manager:
  name: GWA
  default_xmit_queue: TO.GWB
queues:
  - type: local
    name: TO.GWB
    usage: xmitq
devices:
  queue_managers: []
channels:
  - type: sender
    name: A.TO.B
    xmit_queue: TO.GWB
    connect: {}
    batch_size: 10
    heartbeat_ms: 200
    reconnect:
      first_ms: 50
      max_ms: 200
{sender_extra}{extra}",
        b.listen_addr()
    )
}

/// Waits until `want` device messages arrived at `b` (or 10 s passed).
fn collect_device(b: &Gateway, qm: &str, q: &str, want: usize) -> Vec<Vec<u8>> {
    let mut got = Vec::new();
    for _ in 0..200 {
        got.extend(drain_device(b, qm, q));
        if got.len() >= want {
            break;
        }
        std::thread::sleep(Duration::from_millis(50));
    }
    got
}

fn wait_depth(g: &Gateway, q: &str, depth: u64) {
    for _ in 0..200 {
        if g.depth(q) == depth {
            return;
        }
        std::thread::sleep(Duration::from_millis(50));
    }
    assert_eq!(g.depth(q), depth, "{q}");
}

#[test]
fn a_sender_channels_message_exit_changes_the_message_and_a_suppressed_one_stays_with_the_sender() {
    // B has no exits: it routes what arrives by the MQXQH as it is.
    let dir_b = tempfile::tempdir().unwrap();
    let b = Gateway::start(
        dir_b.path(),
        "queue_manager:\n  name: GWB\nchannels:\n  - type: receiver\n    name: A.TO.B\n",
    );
    let dir_a = tempfile::tempdir().unwrap();
    let a = Gateway::start(
        dir_a.path(),
        &sender_gateway_config(
            &b,
            "",
            "exits:
  channels:
    A.TO.B:
      message:
        - exit: destination-rewrite
          data: separator=%
",
        ),
    );
    // RemoteQName QUEUE%QMGR at GWB: the message exit on A's sender channel
    // rewrites it (docs/exits.md `destination-rewrite`) before it is sent. "BAD%"
    // has an empty queue manager part: destination-rewrite suppresses it
    // with 2058 MQRC_Q_MGR_NAME_ERROR (docs/exits.md).
    for (q, body) in [
        ("INBOX%25DEV0001", &b"one"[..]),
        ("BAD%25", b"bad"),
        ("INBOX%25DEV0002", b"two"),
    ] {
        let (st, v) = a.put(q, "q_mgr=GWB&persistent=true", body);
        assert_eq!(st, 201, "{v}");
        assert_eq!(v["queue"], "TO.GWB");
    }
    // Without the rewrite B would look for a local queue "INBOX%DEV0001".
    assert_eq!(
        collect_device(&b, "DEV0001", "INBOX", 1),
        vec![b"one".to_vec()]
    );
    assert_eq!(
        collect_device(&b, "DEV0002", "INBOX", 1),
        vec![b"two".to_vec()]
    );
    // The suppressed message went to A's dead-letter queue, not to B.
    let (st, v) = a.get_ack("SYSTEM.DEAD.LETTER.QUEUE", "");
    assert_eq!(st, 200, "{v}");
    let d = data(&v);
    let (dlh, cs) = parse_dlh(&d, ByteOrder::Little).unwrap();
    // IBM MQ "MQDLH - Dead-letter header": MQDLH Reason, DestQName/DestQMgrName = the
    // MQXQH's RemoteQName/RemoteQMgrName, PutApplName = the channel name.
    assert_eq!(dlh.reason, 2058);
    assert_eq!(dlh.dest_q_name.text(cs), "BAD%");
    assert_eq!(dlh.dest_q_mgr_name.text(cs), "GWB");
    assert_eq!(dlh.put_appl_name.text(cs), "A.TO.B");
    assert_eq!(&d[172..], b"bad");
    wait_depth(&a, "TO.GWB", 0);
    // The channel keeps sending what comes after.
    let (st, v) = a.put("INBOX%25DEV0003", "q_mgr=GWB&persistent=true", b"three");
    assert_eq!(st, 201, "{v}");
    assert_eq!(
        collect_device(&b, "DEV0003", "INBOX", 1),
        vec![b"three".to_vec()]
    );
    let c = status_channel(&a, "A.TO.B");
    assert_eq!(c["state"], "running", "{c}");
    assert_eq!(c["messages"], 3, "{c}");
}

#[test]
fn a_put_straight_to_a_transmission_queue_must_carry_an_mqxqh() {
    let dir_b = tempfile::tempdir().unwrap();
    let b = Gateway::start(
        dir_b.path(),
        "queue_manager:\n  name: GWB\nchannels:\n  - type: receiver\n    name: A.TO.B\n",
    );
    let dir_a = tempfile::tempdir().unwrap();
    let a = Gateway::start(dir_a.path(), &sender_gateway_config(&b, "", ""));
    // Data without an MQXQH (IBM MQ "MQXQH - Transmission-queue header": a
    // message on a transmission queue starts with one) is refused with 400 /
    // 2142 MQRC_HEADER_ERROR and never reaches the sender channel; so is an
    // MQXQH whose embedded MQMD (offset 104, StrucId "MD  ") is damaged.
    let mut bad_md = xmit("INBOX", "DEV0779", true, "MQSTR", b"bad md");
    bad_md[104..108].copy_from_slice(b"BAD ");
    for junk in [&b"junk"[..], &bad_md] {
        let (st, v) = a.put("TO.GWB", "persistent=true", junk);
        assert_eq!((st, &v["mqrc"]), (400, &Value::from(2142)), "{v}");
        assert!(
            v["message"]
                .as_str()
                .unwrap()
                .starts_with("queue TO.GWB is a transmission queue"),
            "{v}"
        );
    }
    assert_eq!(a.depth("TO.GWB"), 0);
    // A transmission message put straight on it is sent as it is and
    // delivered by its MQXQH (RemoteQMgrName DEV0779: a device at GWB).
    let m = xmit("INBOX", "DEV0779", true, "MQSTR", b"direct");
    let (st, v) = a.put("TO.GWB", "persistent=true", &m);
    assert_eq!(st, 201, "{v}");
    assert_eq!(
        collect_device(&b, "DEV0779", "INBOX", 1),
        vec![b"direct".to_vec()]
    );
    wait_depth(&a, "TO.GWB", 0);
    let c = status_channel(&a, "A.TO.B");
    assert_eq!(c["messages"], 1, "{c}");
}

/// exits/examples/rewrite_exit.c compiled once per test process with the
/// system `cc` (.ci/run installs gcc when it is missing).
#[cfg(unix)]
fn example_c_exits() -> &'static Path {
    static CELL: std::sync::OnceLock<PathBuf> = std::sync::OnceLock::new();
    CELL.get_or_init(|| {
        let manifest = env!("CARGO_MANIFEST_DIR");
        let dir = Path::new(env!("CARGO_TARGET_TMPDIR")).join("channel-c-exits");
        std::fs::create_dir_all(&dir).unwrap();
        let out = dir.join(format!("librewrite_exit-{}.so", std::process::id()));
        let status = Command::new("cc")
            .args([
                "-shared", "-fPIC", "-O2", "-Wall", "-Wextra", "-Werror", "-I",
            ])
            .arg(format!("{manifest}/exits/include"))
            .arg("-o")
            .arg(&out)
            .arg(format!("{manifest}/exits/examples/rewrite_exit.c"))
            .status()
            .expect("the system C compiler `cc` must be installed");
        assert!(status.success(), "cc failed");
        out
    })
}

#[cfg(unix)]
#[test]
fn a_send_exit_adds_data_in_its_exit_space_once_per_buffer() {
    let dir_b = tempfile::tempdir().unwrap();
    let b = Gateway::start(
        dir_b.path(),
        "queue_manager:\n  name: GWB\nchannels:\n  - type: receiver\n    name: A.TO.B\n",
    );
    let dir_a = tempfile::tempdir().unwrap();
    // TrailerExit reserves ExitSpace = the length of its exit data (8) at
    // MQXR_INIT (MQ: MQCXP ExitSpace) and appends the data to every
    // transmission buffer in that room; no buffer_headroom is configured.
    // The channel offers a maximum message length of 2000 bytes.
    let a = Gateway::start(
        dir_a.path(),
        &sender_gateway_config(
            &b,
            "    max_msg_length: 2000\n",
            &format!(
                "exits:
  channels:
    A.TO.B:
      send:
        - exit: \"{}(TrailerExit)\"
          data: \"-trailer\"
",
                example_c_exits().display()
            ),
        ),
    );
    // A transmission message is the 428-byte MQXQH and the data
    // (IBM MQ "MQXQH - Transmission-queue header"). 428 + 1564 + 8 = 2000 fits exactly;
    // 428 + 1565 + 8 does not: the exit space is kept free, so that one is
    // dead-lettered by the sender with 2218 MQRC_MSG_TOO_BIG_FOR_CHANNEL.
    let fits = vec![b'f'; 1564];
    let too_long = vec![b't'; 1565];
    for body in [&b"small"[..], &too_long, &fits] {
        let (st, v) = a.put("INBOX", "q_mgr=DEV0010&persistent=true", body);
        assert_eq!(st, 201, "{v}");
    }
    let got = collect_device(&b, "DEV0010", "INBOX", 2);
    // Each buffer passed the send exit exactly once: one trailer each.
    assert_eq!(
        got,
        vec![b"small-trailer".to_vec(), [&fits[..], b"-trailer"].concat()]
    );
    let (st, v) = a.get_ack("SYSTEM.DEAD.LETTER.QUEUE", "");
    assert_eq!(st, 200, "{v}");
    let d = data(&v);
    let (dlh, _) = parse_dlh(&d, ByteOrder::Little).unwrap();
    assert_eq!(dlh.reason, 2218);
    assert_eq!(&d[172..], &too_long[..]);
    wait_depth(&a, "TO.GWB", 0);
}

#[test]
fn a_receiver_channels_message_exit_runs_after_the_mqxqh_is_parsed() {
    let dir = tempfile::tempdir().unwrap();
    let g = Gateway::start(
        dir.path(),
        "queue_manager:
  name: MQGATE
channels:
  - type: receiver
    name: MSG.CHL
exits:
  channels:
    MSG.CHL:
      message:
        - exit: destination-rewrite
          data: separator=/
",
    );
    let files = write_files(
        &dir.path().join("msg"),
        &[xmit(
            "ORDERS/DEV0004",
            "MQGATE",
            true,
            "MQSTR",
            b"via message exit",
        )],
    );
    let out = send(&g, "MSG.CHL", &[], &files);
    assert!(out.status.success(), "{}", text(&out.stderr));
    assert_eq!(
        drain_device(&g, "DEV0004", "ORDERS"),
        vec![b"via message exit".to_vec()]
    );
}

#[test]
fn check_config_refuses_a_send_exit_on_a_receiver_channel_with_its_place() {
    let dir = tempfile::tempdir().unwrap();
    let file = dir.path().join("gw.yaml");
    std::fs::write(
        &file,
        "channels:
  - type: receiver
    name: TO.GW
exits:
  channels:
    TO.GW:
      send:
        - exit: destination-rewrite
",
    )
    .unwrap();
    let out = Command::new(BIN)
        .arg("check-config")
        .arg(&file)
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(1));
    let err = text(&out.stderr) + &text(&out.stdout);
    // docs/config.md: FILE:LINE:COLUMN: path: message.
    assert!(
        err.contains(&format!("{}:8:", file.display()))
            && err.contains("exits.channels.TO.GW.send[0]: TO.GW is a receiver channel"),
        "{err}"
    );
}

#[test]
fn a_stopped_channel_does_not_flood_the_log() {
    let dir = tempfile::tempdir().unwrap();
    let g = Gateway::start(dir.path(), RETRY);
    // The retry rule stops RETRY.CHL (2 attempts, then 2087
    // MQRC_UNKNOWN_REMOTE_Q_MGR; docs/channel-protocol.md).
    let mut bytes = hello("RETRY.CHL", 100_000);
    bytes.extend_from_slice(&raw_batch(
        1,
        &[xmit("Q1", "NOWHERE", true, "MQSTR", b"undeliverable")],
    ));
    let mut s = TcpStream::connect(g.listen_addr()).unwrap();
    s.write_all(&bytes).unwrap();
    assert_eq!(confirms_until(&mut s, 1).1, Some(2087));
    // A sender that keeps retrying is refused at each connection, the same
    // way each time.
    let mut refusals = std::collections::HashSet::new();
    for _ in 0..10 {
        let (reason, text) = raw(&g, &hello("RETRY.CHL", 100_000));
        refusals.insert((reason, text));
    }
    assert_eq!(refusals.len(), 1, "{refusals:?}");
    let (reason, _) = refusals.into_iter().next().unwrap();
    // docs/config.md "Logging": the same trouble of one channel is written
    // once a minute at most: one refusal line, not ten.
    let log = std::fs::read_to_string(g.log_path()).unwrap();
    let refused: Vec<&str> = log
        .lines()
        .filter(|l| l.contains("channel closed with a reason"))
        .filter(|l| l.contains("RETRY.CHL") && l.contains(&format!("reason={reason}")))
        .collect();
    assert_eq!(refused.len(), 1, "{log}");
    assert_eq!(
        log.lines()
            .filter(|l| l.contains("channel stopped by the undelivered rule"))
            .count(),
        1,
        "{log}"
    );
}

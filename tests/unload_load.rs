//! `mqgate unload` and `mqgate load` against a running gateway: dmpmqmsg
//! files (IBM MQ "dmpmqmsg (queue load and unload)"), every MQMD field kept,
//! `--remove` taking only what was written, bad files named by line.

mod common;

use bytes::Bytes;
use common::{BIN, Gateway};
use mqgate_codecs::dump::{DumpHeader, DumpMessage, WriteOptions, parse_dump, write_dump};
use mqgate_codecs::mq::{CharField, Mqmd};
use serde_json::Value;
use std::path::Path;
use std::process::{Command, Output};

const CONFIG: &str = "queues:
  - {type: local, name: SRC, max_depth: 20000}
  - {type: local, name: DST, max_depth: 20000}
  - {type: local, name: SMALL, max_msg_length: 100}
";

fn mqgate(args: &[&str]) -> Output {
    Command::new(BIN).args(args).output().unwrap()
}

fn ok(out: &Output) -> String {
    let err = String::from_utf8_lossy(&out.stderr).into_owned();
    assert!(out.status.success(), "{err}");
    err
}

/// A blank-padded ASCII character field (MQ character fields are blank
/// padded, IBM MQ "MQMD - Message descriptor").
fn chars<const N: usize>(s: &str) -> CharField<N> {
    let mut f = [b' '; N];
    f[..s.len()].copy_from_slice(s.as_bytes());
    CharField(f)
}

/// Message `k` of the set: every MQMD field takes values other than its
/// default across the set, and MsgId is unique. The values stay inside what
/// MQPUT keeps as given with MQPMO_SET_ALL_CONTEXT (IBM MQ "MQMD -
/// Message descriptor", "MQPMO options"): Priority 0-9, Persistence 0 or 1,
/// a ReplyToQMgr with every ReplyToQ, a CodedCharSetId other than 0.
fn message(k: u32) -> DumpMessage {
    let b = k.to_be_bytes();
    let mut msg_id = [0u8; 24];
    msg_id[..4].copy_from_slice(b"LOAD");
    msg_id[20..].copy_from_slice(&b);
    let mut correl_id = [0u8; 24];
    correl_id[0] = (k % 7) as u8;
    correl_id[23] = 0xFF;
    let mut accounting_token = [0u8; 32];
    accounting_token[0] = 0x16; // MQACTT_NT_SECURITY_ID
    accounting_token[31] = b[3];
    let mut group_id = [0u8; 24];
    group_id[..3].copy_from_slice(&b[1..]);
    // Binary identity data: dmpmqmsg writes it as hex (AIX), so any byte survives.
    let mut aid = [b' '; 32];
    aid[..4].copy_from_slice(&[0x00, 0x7F, 0x80, 0xFF]);
    aid[4] = b[3];
    let md = Mqmd {
        version: if k.is_multiple_of(3) { 1 } else { 2 },
        report: if k.is_multiple_of(5) { 0xC0 } else { 0 }, // MQRO_PASS_MSG_ID | PASS_CORREL_ID
        msg_type: [8, 1, 2, 4][k as usize % 4],             // datagram, request, reply, report
        expiry: -1,
        feedback: if k % 4 == 3 { 259 } else { 0 }, // MQFB_COA on reports
        encoding: [546, 273, 785][k as usize % 3],
        coded_char_set_id: [1208, 819, 500, 37][k as usize % 4],
        format: chars(["MQSTR", "", "MQHRF2", "MYFMT"][k as usize % 4]),
        priority: (k % 10) as i32,
        persistence: (k % 2) as i32,
        msg_id,
        correl_id,
        // MQPUT sets BackoutCount to 0 whatever is given (IBM MQ "BackoutCount").
        backout_count: 0,
        reply_to_q: chars(if k.is_multiple_of(2) { "REPLY.Q" } else { "" }),
        reply_to_q_mgr: chars(if k.is_multiple_of(2) { "QM.REPLY" } else { "" }),
        user_identifier: chars(&format!("user{}", k % 13)),
        accounting_token,
        appl_identity_data: CharField(aid),
        put_appl_type: [6, 11, 28][k as usize % 3], // UNIX, WINDOWS_NT, JAVA
        put_appl_name: chars(&format!("app/{k}.exe")),
        put_date: chars(&format!("2025{:02}{:02}", k % 12 + 1, k % 28 + 1)),
        put_time: chars(&format!(
            "{:02}{:02}{:02}{:02}",
            k % 24,
            k % 60,
            k % 59,
            k % 100
        )),
        appl_origin_data: chars(["", "ORG1", "x", "9999"][k as usize % 4]),
        group_id,
        msg_seq_number: (k % 50 + 1) as i32,
        offset: (k % 3 * 100) as i32,
        msg_flags: if k % 6 == 1 { 0x10 } else { 0 }, // MQMF_LAST_MSG_IN_GROUP
        original_length: if k % 6 == 1 { 300 } else { -1 },
    };
    // A v1 MD has no v2 fields (IBM MQ "MQMD - Version"): keep their defaults.
    let md = if md.version == 1 {
        Mqmd {
            group_id: [0; 24],
            msg_seq_number: 1,
            offset: 0,
            msg_flags: 0,
            original_length: -1,
            ..md
        }
    } else {
        md
    };
    // Bodies of 0 to 2,000 bytes, every byte value.
    let len = (k as usize * 37) % 2001;
    let data: Vec<u8> = (0..len).map(|i| (i as u32 * 31 + k) as u8).collect();
    DumpMessage {
        line: 0,
        index: None,
        md: Some(md),
        data: Bytes::from(data),
    }
}

fn write_file(path: &Path, msgs: &[DumpMessage]) {
    let header = DumpHeader::dmpmqmsg("test");
    std::fs::write(path, write_dump(&header, msgs, &WriteOptions::default())).unwrap();
}

/// The messages of a dmpmqmsg file, `line` cleared to compare with built ones.
fn read_file(path: &Path) -> Vec<DumpMessage> {
    let bytes = std::fs::read(path).unwrap();
    parse_dump(&bytes)
        .unwrap()
        .messages
        .into_iter()
        .map(|m| DumpMessage { line: 0, ..m })
        .collect()
}

/// Delivery order (IBM MQ "Message priority": highest Priority first, FIFO within one).
fn queue_order(msgs: &[DumpMessage]) -> Vec<DumpMessage> {
    let mut v = msgs.to_vec();
    v.sort_by_key(|m| std::cmp::Reverse(m.md.as_ref().map_or(0, |md| md.priority)));
    v
}

/// Every message of `q` by browsing: (md JSON, data).
fn browse_all(g: &Gateway, q: &str) -> Vec<(Value, Vec<u8>)> {
    let mut out = Vec::new();
    let mut query = "browse=true".to_string();
    loop {
        let (st, v) = g.next(q, &query);
        if st == 404 {
            assert_eq!(v["mqrc"], 2033, "{v}");
            return out;
        }
        assert_eq!(st, 200, "{v}");
        out.push((v["md"].clone(), common::data(&v)));
        query = format!("browse=true&cursor={}", v["cursor"].as_str().unwrap());
    }
}

#[test]
fn unload_then_load_of_10000_messages_keeps_every_mqmd_field_and_body_byte() {
    let dir = tempfile::tempdir().unwrap();
    let g = Gateway::start(dir.path(), CONFIG);
    let gw = g.base.as_str();
    let originals: Vec<DumpMessage> = (0..10_000).map(message).collect();
    let f0 = dir.path().join("in.dmp");
    write_file(&f0, &originals);
    let f0s = f0.to_str().unwrap();
    let err = ok(&mqgate(&[
        "load",
        "--queue",
        "SRC",
        "--file",
        f0s,
        "--gateway",
        gw,
    ]));
    assert!(err.contains("10000 messages"), "{err}");
    assert_eq!(g.depth("SRC"), 10_000);

    // The queue's own view (its JSON MD, not the unload's path) holds the
    // fields as built.
    let src = browse_all(&g, "SRC");
    let expected = queue_order(&originals);
    assert_eq!(src.len(), 10_000);
    for ((md, data), m) in src.iter().zip(&expected) {
        let want = m.md.as_ref().unwrap();
        assert_eq!(md["MsgId"], hex::encode_upper(want.msg_id));
        assert_eq!(
            md["PutApplName"],
            format!(
                "app/{}.exe",
                u32::from_be_bytes(want.msg_id[20..].try_into().unwrap())
            )
        );
        assert_eq!(
            md["AccountingToken"],
            hex::encode_upper(want.accounting_token)
        );
        assert_eq!(md["Version"], want.version);
        assert_eq!(&data[..], &m.data[..]);
    }

    let f1 = dir.path().join("out.dmp");
    let f1s = f1.to_str().unwrap();
    let err = ok(&mqgate(&[
        "unload",
        "--queue",
        "SRC",
        "--file",
        f1s,
        "--gateway",
        gw,
    ]));
    assert!(err.contains("10000 messages from SRC"), "{err}");
    // Without --remove the queue is untouched.
    assert_eq!(g.depth("SRC"), 10_000);
    // The file holds every field of every message exactly as built, in
    // delivery order: the MD structs compare whole, the data byte for byte.
    let unloaded = read_file(&f1);
    assert_eq!(unloaded.len(), 10_000);
    for (got, want) in unloaded.iter().zip(&expected) {
        assert_eq!(got, want);
    }
    let text = std::fs::read_to_string(&f1).unwrap();
    assert!(
        text.starts_with("* DMPMQMSG Version:9.0 Created:"),
        "{}",
        &text[..80]
    );
    assert!(text.contains("\n* Queue = SRC\n"));

    ok(&mqgate(&[
        "load",
        "--queue",
        "DST",
        "--file",
        f1s,
        "--gateway",
        gw,
    ]));
    // DST, unloaded again, is the same file body: every field and byte kept
    // through unload -> load -> unload.
    let f2 = dir.path().join("again.dmp");
    ok(&mqgate(&[
        "unload",
        "--queue",
        "DST",
        "--file",
        f2.to_str().unwrap(),
        "--gateway",
        gw,
    ]));
    let again = read_file(&f2);
    assert_eq!(again.len(), 10_000);
    for (got, want) in again.iter().zip(&expected) {
        assert_eq!(got, want);
    }
}

#[test]
fn expiry_is_what_is_left_and_backout_count_restarts() {
    let dir = tempfile::tempdir().unwrap();
    let g = Gateway::start(dir.path(), CONFIG);
    let gw = g.base.as_str();
    let mut m = message(1);
    // 10^9 tenths of a second: about 3.2 years.
    m.md.as_mut().unwrap().expiry = 1_000_000_000;
    m.md.as_mut().unwrap().backout_count = 4;
    let f0 = dir.path().join("in.dmp");
    write_file(&f0, &[m]);
    ok(&mqgate(&[
        "load",
        "--queue",
        "SRC",
        "--file",
        f0.to_str().unwrap(),
        "--gateway",
        gw,
    ]));
    let f1 = dir.path().join("out.dmp");
    ok(&mqgate(&[
        "unload",
        "--queue",
        "SRC",
        "--file",
        f1.to_str().unwrap(),
        "--gateway",
        gw,
    ]));
    let got = read_file(&f1);
    let md = got[0].md.as_ref().unwrap();
    // IBM MQ "Expiry (MQLONG)": an MQGET returns the time left; at most the
    // 600 tenths of a minute can have passed.
    assert!(
        (1_000_000_000 - 600..=1_000_000_000).contains(&md.expiry),
        "{}",
        md.expiry
    );
    // IBM MQ "BackoutCount (MQLONG)": an output field, set to 0 by MQPUT.
    assert_eq!(md.backout_count, 0);
}

#[test]
fn remove_takes_only_what_was_written() {
    let dir = tempfile::tempdir().unwrap();
    let g = Gateway::start(dir.path(), CONFIG);
    let gw = g.base.as_str();
    let originals: Vec<DumpMessage> = (0..5_000).map(message).collect();
    let f0 = dir.path().join("in.dmp");
    write_file(&f0, &originals);
    ok(&mqgate(&[
        "load",
        "--queue",
        "SRC",
        "--file",
        f0.to_str().unwrap(),
        "--gateway",
        gw,
    ]));

    let f1 = dir.path().join("out.dmp");
    let mut child = Command::new(BIN)
        .args([
            "unload",
            "--queue",
            "SRC",
            "--remove",
            "--file",
            f1.to_str().unwrap(),
            "--gateway",
            gw,
        ])
        .stderr(std::process::Stdio::piped())
        .spawn()
        .unwrap();
    // Once messages are in the file the unload has begun; what is put from
    // now on arrived after it started.
    let header_len = 200;
    let started = std::time::Instant::now();
    while std::fs::metadata(&f1).map_or(0, |m| m.len()) < header_len + 8192 {
        assert!(started.elapsed().as_secs() < 60, "the unload wrote nothing");
        std::thread::sleep(std::time::Duration::from_millis(5));
    }
    assert!(
        child.try_wait().unwrap().is_none(),
        "the unload ended before the late puts"
    );
    let mut late = Vec::new();
    for k in 0u32..50 {
        // Priority 9 goes before every message still to unload, 0 after.
        let prio = if k.is_multiple_of(2) { 9 } else { 0 };
        let (st, v) = g.put("SRC", &format!("priority={prio}&persistent=true"), b"late");
        assert_eq!(st, 201, "{v}");
        late.push(v["msg_id"].as_str().unwrap().to_string());
    }
    let out = child.wait_with_output().unwrap();
    let err = ok(&out);
    assert!(
        err.contains("5000 messages from SRC") && err.contains("removed"),
        "{err}"
    );
    let written = read_file(&f1);
    assert_eq!(written.len(), 5_000);
    for (got, want) in written.iter().zip(queue_order(&originals)) {
        assert_eq!(got, &want);
    }
    // The queue holds exactly the late messages.
    let left: Vec<String> = browse_all(&g, "SRC")
        .into_iter()
        .map(|(md, _)| md["MsgId"].as_str().unwrap().to_string())
        .collect();
    let mut want = late.clone();
    want.sort();
    let mut have = left.clone();
    have.sort();
    assert_eq!(have, want);
}

#[test]
fn bad_files_are_named_by_line_and_load_nothing() {
    let dir = tempfile::tempdir().unwrap();
    let g = Gateway::start(dir.path(), CONFIG);
    let gw = g.base.as_str();
    let f = dir.path().join("bad.dmp");
    let load = |q: &str| {
        mqgate(&[
            "load",
            "--queue",
            q,
            "--file",
            f.to_str().unwrap(),
            "--gateway",
            gw,
        ])
    };

    // A good message, then `A PRI high` on line 8: the reader's error names
    // the line and column, and the good message is not loaded either.
    std::fs::write(
        &f,
        "* DMPMQMSG Version:9.0 Created:test\n\nA VER 2\nA FMT MQSTR\nX 4F4B\n\nA VER 2\nA PRI high\nX 4F4B\n",
    )
    .unwrap();
    let out = load("SRC");
    assert_eq!(out.status.code(), Some(1));
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(err.contains("line 8, column 7"), "{err}");
    assert!(err.contains("Priority (PRI) value \"high\""), "{err}");
    assert!(err.contains("nothing was loaded"), "{err}");
    assert_eq!(g.depth("SRC"), 0);

    // Not a dmpmqmsg file at all.
    std::fs::write(&f, "hello\n").unwrap();
    let err = String::from_utf8_lossy(&load("SRC").stderr).into_owned();
    assert!(
        err.contains("line 1, column 1") && err.contains("not a dmpmqmsg"),
        "{err}"
    );

    // A file that reads but whose second message the queue refuses (MAXMSGL
    // 100, 2030 MQRC_MSG_TOO_BIG_FOR_Q): named by its line, nothing loaded.
    let small = message(2);
    let mut big = message(4);
    big.data = Bytes::from(vec![b'x'; 101]);
    let text = write_dump(
        &DumpHeader::dmpmqmsg("t"),
        &[
            DumpMessage {
                data: Bytes::from_static(b"ok"),
                ..small
            },
            big,
        ],
        &WriteOptions::default(),
    );
    std::fs::write(&f, &text).unwrap();
    let second = String::from_utf8_lossy(&text)
        .lines()
        .enumerate()
        .filter(|(_, l)| l.starts_with("A VER"))
        .nth(1)
        .unwrap()
        .0
        + 1;
    let out = load("SMALL");
    assert_eq!(out.status.code(), Some(1));
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(
        err.contains(&format!("line {second}: message 2 of 2: 2030")),
        "{err}"
    );
    assert!(err.contains("nothing was loaded"), "{err}");
    assert_eq!(g.depth("SMALL"), 0);

    // Unloading a queue that does not exist: 2085 MQRC_UNKNOWN_OBJECT_NAME
    // (IBM MQ "Reason codes"), and no file is left behind: a header-only
    // file would load as a queue of 0 messages.
    let nope = dir.path().join("nope.dmp");
    let out = mqgate(&[
        "unload",
        "--queue",
        "NOPE",
        "--file",
        nope.to_str().unwrap(),
        "--gateway",
        gw,
    ]);
    assert_eq!(out.status.code(), Some(1));
    assert!(String::from_utf8_lossy(&out.stderr).contains("2085"));
    assert!(!nope.exists(), "a failed unload left {}", nope.display());
    // --remove needs a file on disk.
    let out = mqgate(&["unload", "--queue", "SRC", "--remove", "--gateway", gw]);
    assert_eq!(out.status.code(), Some(2));
}

#[test]
fn the_http_api_carries_the_whole_mqmd_and_bounds_reads_by_put_sequence() {
    use base64::Engine;
    use base64::engine::general_purpose::STANDARD as B64;
    use mqgate_codecs::mq::md::write_md;
    use mqgate_codecs::mq::{ByteOrder, Charset};
    let dir = tempfile::tempdir().unwrap();
    let g = Gateway::start(dir.path(), CONFIG);
    let md = message(2).md.unwrap();
    // The MQMD as IBM MQ "MQMD - Message descriptor" lays it out: 364 bytes
    // for version 2, little-endian integers.
    let mut raw = Vec::new();
    write_md(&md, ByteOrder::Little, Charset::Ascii, &mut raw);
    assert_eq!(raw.len(), 364);
    let body = |extra: &str| {
        format!(
            r#"{{"mqmd_base64": "{}", "data": "x"{extra}}}"#,
            B64.encode(&raw)
        )
    };
    let put = |query: &str, body: String| {
        g.call(
            "POST",
            &format!("/v1/queues/SRC/messages{query}"),
            Some(("application/json", body.as_bytes())),
        )
    };
    // With an MD field from elsewhere: 400 / 2046 MQRC_OPTIONS_ERROR naming it.
    let (st, v) = put("?priority=3", body(""));
    assert_eq!((st, v["mqrc"].as_i64()), (400, Some(2046)), "{v}");
    assert!(v["message"].as_str().unwrap().contains("priority"), "{v}");
    let (st, v) = put("", body(r#", "md": {"Priority": 3}"#));
    assert_eq!((st, v["mqrc"].as_i64()), (400, Some(2046)), "{v}");
    // 363 bytes: 2026 MQRC_MD_ERROR.
    let short = format!(r#"{{"mqmd_base64": "{}"}}"#, B64.encode(&raw[..363]));
    let (st, v) = put("", short);
    assert_eq!((st, v["mqrc"].as_i64()), (400, Some(2026)), "{v}");

    let (_, status) = g.call("GET", "/v1/status", None);
    let before = status["next_put_sequence"].as_u64().unwrap();
    let (st, v) = put("", body(""));
    assert_eq!(st, 201, "{v}");
    // Every field as given (context included: MQPMO_SET_ALL_CONTEXT).
    let (st, got) = g.next("SRC", "browse=true&mqmd=true");
    assert_eq!(st, 200, "{got}");
    assert_eq!(
        B64.decode(got["mqmd_base64"].as_str().unwrap()).unwrap(),
        raw
    );
    assert_eq!(got["md"]["PutApplName"], "app/2.exe");
    assert_eq!(
        got["md"]["PutDate"],
        md.put_date.0.iter().map(|&b| b as char).collect::<String>()
    );
    // Put after the mark: a read bounded by it does not see the message.
    let (st, v) = g.next("SRC", &format!("browse=true&put_before={before}"));
    assert_eq!((st, v["mqrc"].as_i64()), (404, Some(2033)), "{v}");
    let (st, _) = g.next("SRC", &format!("browse=true&put_before={}", before + 1));
    assert_eq!(st, 200);

    // An MQMD in EBCDIC (StrucId "MD  " as D4 C4 40 40 in CCSID 500) is kept
    // as it is; unload writes its character fields in ASCII.
    // Priority, Persistence and CodedCharSetId given, not left to the queue
    // and queue manager to fill (MQPRI_PRIORITY_AS_Q_DEF, MQPER_PERSISTENCE_AS_Q_DEF,
    // MQCCSI_Q_MGR are replaced on MQPUT).
    let mut e = Mqmd {
        msg_id: [7; 24],
        priority: 3,
        persistence: 1,
        coded_char_set_id: 500,
        ..Mqmd::default()
    };
    for f in [
        &mut e.format.0[..],
        &mut e.put_date.0[..],
        &mut e.put_time.0[..],
        &mut e.appl_origin_data.0[..],
    ] {
        f.fill(0x40);
    }
    for f in [
        &mut e.reply_to_q.0[..],
        &mut e.reply_to_q_mgr.0[..],
        &mut e.appl_identity_data.0[..],
    ] {
        f.fill(0x40);
    }
    e.user_identifier.0.fill(0x40);
    e.put_appl_name.0.fill(0x40);
    e.put_appl_name.0[..4].copy_from_slice(&[0xC3, 0xC9, 0xC3, 0xE2]); // "CICS"
    let mut raw = Vec::new();
    write_md(&e, ByteOrder::Little, Charset::Ebcdic, &mut raw);
    assert_eq!(&raw[..4], &[0xD4, 0xC4, 0x40, 0x40]);
    let (st, v) = g.call(
        "POST",
        "/v1/queues/DST/messages",
        Some((
            "application/json",
            format!(r#"{{"mqmd_base64": "{}"}}"#, B64.encode(&raw)).as_bytes(),
        )),
    );
    assert_eq!(st, 201, "{v}");
    let (_, got) = g.next("DST", "browse=true&mqmd=true");
    assert_eq!(
        B64.decode(got["mqmd_base64"].as_str().unwrap()).unwrap(),
        raw
    );
    let f = dir.path().join("ebcdic.dmp");
    ok(&mqgate(&[
        "unload",
        "--queue",
        "DST",
        "--file",
        f.to_str().unwrap(),
        "--gateway",
        g.base.as_str(),
    ]));
    let text = std::fs::read_to_string(&f).unwrap();
    assert!(text.contains("\nA PAN CICS"), "{text}");
}

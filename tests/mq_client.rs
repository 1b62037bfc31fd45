//! mq-client channels (docs/mq-client-protocol.md "Client side"): gateway B
//! pulls gateway A's transmission queue through A's server-connection
//! channel, as it would a queue manager's. Values checked: the device queue
//! names the destination-rewrite exit makes of `INBOX%DEVnnnn` (the
//! WebSphere MQ Everyplace gateway article), the MQXQH at offset 492 of an
//! MQGET reply with MQMD v1 and MQGMO v4 (TSHM 36 + API header 16 + MQMD v1
//! 324 + MQGMO v4 112 + data length 4), and each MsgId A handed out
//! arriving once.

mod common;

use common::Gateway;
use mqgate::mqclient::{ConnectOptions, connect};
use mqgate_codecs::fap::object::oo;
use std::collections::HashMap;
use std::time::{Duration, Instant, SystemTime};

const SVRCONN: &str = "MQGATE.SVRCONN";

/// A free TCP port on loopback (bound, then released).
fn free_port() -> u16 {
    std::net::TcpListener::bind("127.0.0.1:0")
        .unwrap()
        .local_addr()
        .unwrap()
        .port()
}

/// Gateway A: queue manager QMA serving `svrconn:` on `port`, with a
/// transmission queue GWB (messages for queue manager GWB go there, by MQ's
/// name resolution: the transmission queue named like the queue manager).
fn config_a(port: u16) -> String {
    format!(
        "queue_manager:
  name: QMA
channels: []
svrconn:
  listen: 127.0.0.1:{port}
  channels:
    - name: {SVRCONN}
queues:
  - type: local
    name: GWB
    usage: xmitq
"
    )
}

/// Gateway B: queue manager GWB with an mq-client channel pulling A's GWB.
fn config_b(port: u16, exit_buffer: &str, offset: u32, batch: u32) -> String {
    format!(
        "queue_manager:
  name: GWB
channels:
  - type: mq-client
    name: FROM.QMA
    host: 127.0.0.1
    port: {port}
    channel: {SVRCONN}
    q_mgr_name: QMA
    user: mqgate
    xmit_queue: GWB
    batch_size: {batch}
    wait_ms: 200
    exit_buffer: {exit_buffer}
    reconnect: {{ first_ms: 50, max_ms: 400 }}
    receive_exits:
      - exit: destination-rewrite
        data: 'separator=% offset={offset}'
"
    )
}

/// Puts `n` persistent messages on A for `INBOX%DEVnnnn` at GWB (five
/// devices); returns each MsgId with its device and body.
fn put_on_a(a: &Gateway, n: usize) -> HashMap<String, (String, String)> {
    let mut sent = HashMap::new();
    for i in 0..n {
        let device = format!("DEV{:04}", i % 5);
        let body = format!("message {i:05}");
        let q = format!("INBOX%25{device}");
        let (st, v) = a.put(&q, "q_mgr=GWB&persistent=true", body.as_bytes());
        assert_eq!(st, 201, "{v}");
        let id = v["msg_id"].as_str().unwrap().to_string();
        sent.insert(id, (device, body));
    }
    sent
}

/// Every message on B's device queues, browsed: MsgId -> (device, body),
/// with the number of times each MsgId was seen.
fn on_b(b: &Gateway) -> (HashMap<String, (String, String)>, usize) {
    let mut seen = HashMap::new();
    let mut total = 0;
    for d in 0..5 {
        let device = format!("DEV{d:04}");
        let q = format!("{device}%2FINBOX");
        let mut cursor = String::new();
        loop {
            let (st, m) = b.next(&q, &format!("browse=true{cursor}"));
            if st != 200 {
                break;
            }
            total += 1;
            let id = m["md"]["MsgId"].as_str().unwrap().to_string();
            let body = String::from_utf8(common::data(&m)).unwrap();
            seen.insert(id, (device.clone(), body));
            cursor = format!("&cursor={}", m["cursor"].as_str().unwrap());
        }
    }
    (seen, total)
}

fn device_depths(b: &Gateway) -> u64 {
    let (_, v) = b.call("GET", "/v1/queues", None);
    v.as_array()
        .unwrap()
        .iter()
        .filter(|q| q["name"].as_str().is_some_and(|n| n.ends_with("/INBOX")))
        .filter_map(|q| q["depth"].as_u64())
        .sum()
}

/// Waits until A's transmission queue is empty and B holds `n` messages.
fn wait_drained(a: &Gateway, b: &Gateway, n: u64, within: Duration) {
    let deadline = Instant::now() + within;
    loop {
        let (xq, got) = (a.depth("GWB"), device_depths(b));
        if xq == 0 && got >= n {
            return;
        }
        assert!(
            Instant::now() < deadline,
            "A's GWB depth {xq}, B's device queues {got} of {n}; see {} and {}",
            a.log_path().display(),
            b.log_path().display()
        );
        std::thread::sleep(Duration::from_millis(100));
    }
}

#[test]
fn messages_arrive_rewritten_from_the_transmission_buffer() {
    let root = tempfile::tempdir().unwrap();
    let (da, db) = (root.path().join("a"), root.path().join("b"));
    std::fs::create_dir_all(&da).unwrap();
    std::fs::create_dir_all(&db).unwrap();
    let port = free_port();
    let a = Gateway::start(&da, &config_a(port));
    let sent = put_on_a(&a, 40);
    let b = Gateway::start(&db, &config_b(port, "transmission", 0, 7));
    wait_drained(&a, &b, 40, Duration::from_secs(60));
    let (seen, total) = on_b(&b);
    assert_eq!(total, 40);
    assert_eq!(seen, sent);
}

#[test]
fn kill_9_of_either_gateway_loses_nothing_and_stores_nothing_twice() {
    let seed = SystemTime::now()
        .duration_since(SystemTime::UNIX_EPOCH)
        .unwrap()
        .as_nanos() as u64
        | 1;
    println!("kill-point seed {seed}");
    let mut rng = seed;
    let mut below = |n: u64| {
        rng ^= rng << 13;
        rng ^= rng >> 7;
        rng ^= rng << 17;
        rng % n
    };
    let root = tempfile::tempdir().unwrap();
    let (da, db) = (root.path().join("a"), root.path().join("b"));
    std::fs::create_dir_all(&da).unwrap();
    std::fs::create_dir_all(&db).unwrap();
    let port = free_port();
    let mut a = Gateway::start(&da, &config_a(port));
    const N: usize = 1500;
    let sent = put_on_a(&a, N);
    // The agent buffer: the exit finds the MQXQH at offset 492 of the
    // MQGET reply segment, as the article's Java exit did.
    let mut b = Gateway::start(&db, &config_b(port, "agent", 492, 10));
    let mut kills = 0;
    let mut mid_transfer = 0;
    for round in 0..6 {
        std::thread::sleep(Duration::from_millis(20 + below(120)));
        let left = a.depth("GWB");
        if left > 0 && (left as usize) < N {
            mid_transfer += 1;
        }
        if round == 3 {
            a.kill9();
            std::thread::sleep(Duration::from_millis(below(200)));
            a.restart();
        } else {
            b.kill9();
            std::thread::sleep(Duration::from_millis(below(200)));
            b.restart();
        }
        kills += 1;
    }
    assert_eq!(kills, 6);
    println!("{mid_transfer} of {kills} kills while the transmission queue was part done");
    // At least one kill came while B was pulling (otherwise nothing was tested).
    assert!(mid_transfer > 0, "no kill interrupted the transfer");
    wait_drained(&a, &b, N as u64, Duration::from_secs(120));
    // One more kill of B after the last commit: what is stored stays.
    b.kill9();
    b.restart();
    let (seen, total) = on_b(&b);
    // Nothing twice: as many messages as distinct MsgIds; nothing lost:
    // every MsgId A handed out, with its device and body.
    assert_eq!(total, seen.len(), "a MsgId arrived twice");
    assert_eq!(seen.len(), N);
    assert_eq!(seen, sent);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn an_mqget_reply_has_the_xqh_at_offset_492() {
    let root = tempfile::tempdir().unwrap();
    let port = free_port();
    let a = tokio::task::spawn_blocking({
        let dir = root.path().to_path_buf();
        move || {
            let a = Gateway::start(&dir, &config_a(port));
            let (st, v) = a.put("INBOX%25DEV0001", "q_mgr=GWB", b"payload");
            assert_eq!(st, 201, "{v}");
            a
        }
    })
    .await
    .unwrap();
    let o = ConnectOptions {
        host: "127.0.0.1".into(),
        port,
        channel: SVRCONN.into(),
        q_mgr_name: "QMA".into(),
        user: "mqgate".into(),
        password: None,
        heartbeat_s: 30,
        max_msg_size: 4 << 20,
        timeout: Duration::from_secs(20),
        appl_name: "mq_client test".into(),
        tls: None,
    };
    let mut s = connect(&o).await.unwrap();
    let h = s.open("GWB", oo::INPUT_SHARED).await.unwrap();
    let r = s.get(h, 1000, 1 << 20).await.unwrap().unwrap();
    // TSHM 36 + API header 16 + MQMD v1 324 + MQGMO v4 112 + DataLength 4.
    assert_eq!(r.data_offset, 36 + 16 + 324 + 112 + 4);
    assert_eq!(r.data_offset, 492);
    assert_eq!(&r.segment[..4], b"TSHM");
    assert_eq!(&r.segment[492..496], b"XQH ");
    // RemoteQName at 8 and RemoteQMgrName at 56 of the MQXQH (IBM MQ
    // "MQXQH - Transmission-queue header").
    assert_eq!(&r.segment[492 + 8..492 + 8 + 13], b"INBOX%DEV0001");
    assert_eq!(&r.segment[492 + 56..492 + 56 + 3], b"GWB");
    assert_eq!(&r.segment[r.segment.len() - 7..], b"payload");
    assert_eq!(&r.data[..], &r.segment[492..]);
    // Backed out, it is there again; committed, it is gone.
    s.backout().await.unwrap();
    let again = s.get(h, 1000, 1 << 20).await.unwrap().unwrap();
    assert_eq!(again.md.msg_id, r.md.msg_id);
    s.commit().await.unwrap();
    assert!(s.get(h, 0, 1 << 20).await.unwrap().is_none());
    s.disconnect().await.unwrap();
    drop(a);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_message_longer_than_the_buffer_is_an_error_and_stays_on_the_queue() {
    let root = tempfile::tempdir().unwrap();
    let port = free_port();
    let a = tokio::task::spawn_blocking({
        let dir = root.path().to_path_buf();
        move || {
            let a = Gateway::start(&dir, &config_a(port));
            let (st, v) = a.put("INBOX%25DEV0001", "q_mgr=GWB", &[b'x'; 1000]);
            assert_eq!(st, 201, "{v}");
            a
        }
    })
    .await
    .unwrap();
    let o = ConnectOptions {
        host: "127.0.0.1".into(),
        port,
        channel: SVRCONN.into(),
        q_mgr_name: "QMA".into(),
        user: "mqgate".into(),
        password: None,
        heartbeat_s: 30,
        max_msg_size: 4 << 20,
        timeout: Duration::from_secs(20),
        appl_name: "mq_client test".into(),
        tls: None,
    };
    let mut s = connect(&o).await.unwrap();
    let h = s.open("GWB", oo::INPUT_SHARED).await.unwrap();
    // A 100-byte buffer for a 428-byte MQXQH + 1000 bytes: the queue manager
    // answers MQCC_WARNING 2080 MQRC_TRUNCATED_MSG_FAILED and leaves the
    // message on the queue (IBM MQ "2080 (0820) (RC2080):
    // MQRC_TRUNCATED_MSG_FAILED"), so the cut data is no message to store.
    match s.get(h, 1000, 100).await {
        Err(e) => {
            assert_eq!(e.mqrc().0, 2080, "{e}");
            // The reason's name too (IBM MQ "API reason codes"), as the
            // channel's status shows it.
            assert_eq!(
                e.to_string(),
                "MQGET: CompCode 1, Reason 2080 MQRC_TRUNCATED_MSG_FAILED"
            );
        }
        Ok(r) => panic!(
            "a truncated message was returned as got: {:?}",
            r.map(|r| r.data.len())
        ),
    }
    // It is still there, whole, for a buffer that holds it.
    let r = s.get(h, 1000, 1 << 20).await.unwrap().unwrap();
    assert_eq!(r.data.len(), 428 + 1000);
    s.commit().await.unwrap();
    s.disconnect().await.unwrap();
    drop(a);
}

#[test]
fn a_channel_whose_buffer_is_too_short_stores_nothing_and_keeps_the_message() {
    let root = tempfile::tempdir().unwrap();
    let (da, db) = (root.path().join("a"), root.path().join("b"));
    std::fs::create_dir_all(&da).unwrap();
    std::fs::create_dir_all(&db).unwrap();
    let port = free_port();
    let a = Gateway::start(&da, &config_a(port));
    let (st, v) = a.put(
        "INBOX%25DEV0001",
        "q_mgr=GWB&persistent=true",
        &[b'x'; 1000],
    );
    assert_eq!(st, 201, "{v}");
    let config = config_b(port, "transmission", 0, 5).replace(
        "    batch_size: 5\n",
        "    batch_size: 5\n    max_msg_length: 600\n",
    );
    let b = Gateway::start(&db, &config);
    std::thread::sleep(Duration::from_secs(3));
    // Nothing stored on B, not on a device queue and not on its dead-letter
    // queue; the message stays on A's transmission queue (2080 leaves it
    // there: IBM MQ "2080 (0820) (RC2080): MQRC_TRUNCATED_MSG_FAILED").
    assert_eq!(device_depths(&b), 0);
    assert_eq!(b.depth("SYSTEM.DEAD.LETTER.QUEUE"), 0);
    assert_eq!(a.depth("GWB"), 1);
}

/// A stand-in queue manager on `listener` for one connection: INITIAL_DATA
/// agreed as sent, MQCONN echoed, MQOPEN answered with handle 2, each MQGET
/// answered with `get_params` after the API header, MQCMIT, MQBACK and
/// MQDISC with MQCC_OK.
async fn fake_queue_manager(listener: tokio::net::TcpListener, get_params: Vec<u8>) {
    use mqgate_codecs::fap::{ApiHeader, SegmentType, parse_segment, segment_len, write_api};
    use mqgate_codecs::fap::{tcf, write_segment};
    use tokio::io::{AsyncReadExt, AsyncWriteExt};
    let Ok((mut s, _)) = listener.accept().await else {
        return;
    };
    let mut buf = Vec::new();
    loop {
        while let Ok(Some(n)) = segment_len(&buf, 1 << 20) {
            if buf.len() < n {
                break;
            }
            let seg: Vec<u8> = buf.drain(..n).collect();
            let Ok(seg) = parse_segment(&seg) else { return };
            let t = seg.tsh.segment_type;
            let mut h = seg.tsh.clone();
            h.segment_type = if t == SegmentType::INITIAL_DATA {
                t
            } else {
                t.reply()
            };
            h.control_flags1 = if t == SegmentType::INITIAL_DATA {
                0
            } else {
                tcf::FIRST | tcf::LAST
            };
            let api = |hobj: i32| {
                let mut b = Vec::new();
                let a = ApiHeader {
                    reply_length: 0,
                    comp_code: 0,
                    reason: 0,
                    hobj,
                };
                write_api(&a, seg.tsh.byte_order, &mut b);
                b
            };
            let body = match t {
                SegmentType::INITIAL_DATA => seg.body.to_vec(),
                SegmentType::MQCONN => seg.body.to_vec(),
                SegmentType::MQOPEN => [api(2), seg.body[16..].to_vec()].concat(),
                SegmentType::MQGET => [api(2), get_params.clone()].concat(),
                SegmentType::MQCMIT | SegmentType::MQBACK | SegmentType::MQDISC => api(0),
                _ => continue,
            };
            let mut out = Vec::new();
            write_segment(&h, &body, &mut out);
            if s.write_all(&out).await.is_err() {
                return;
            }
        }
        let mut chunk = [0u8; 4096];
        match s.read(&mut chunk).await {
            Ok(0) | Err(_) => return,
            Ok(n) => buf.extend_from_slice(&chunk[..n]),
        }
    }
}

fn options(port: u16, channel: &str) -> ConnectOptions {
    ConnectOptions {
        host: "127.0.0.1".into(),
        port,
        channel: channel.into(),
        q_mgr_name: String::new(),
        user: "mqgate".into(),
        password: None,
        heartbeat_s: 30,
        max_msg_size: 4 << 20,
        timeout: Duration::from_secs(20),
        appl_name: "mq_client test".into(),
        tls: None,
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_reply_whose_data_length_is_not_its_data_is_refused() {
    use mqgate_codecs::fap::gmo::Mqgmo;
    use mqgate_codecs::fap::message::{GetData, write_get};
    use mqgate_codecs::mq::{Charset, Mqmd};
    // MQCC_OK with DataLength 5000 but 8 bytes of data: a message cut on the
    // way. Stored, it would be a cut copy and MQCMIT would remove the whole
    // one; refused, it is backed out. 2010 MQRC_DATA_LENGTH_ERROR (IBM MQ
    // "2010 (07DA) (RC2010): MQRC_DATA_LENGTH_ERROR").
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
    let port = listener.local_addr().unwrap().port();
    let g = GetData {
        md: Mqmd {
            version: 1,
            ..Mqmd::default()
        },
        md_charset: Charset::Ascii,
        gmo: Mqgmo {
            version: 4,
            ..Mqgmo::default()
        },
        length: 5000,
        data: b"XQH cut.",
    };
    let mut params = Vec::new();
    write_get(&g, mqgate::mqclient::handshake::ORDER, &mut params);
    let qm = tokio::spawn(fake_queue_manager(listener, params));
    let mut s = connect(&options(port, SVRCONN)).await.unwrap();
    let h = s.open("GWB", oo::INPUT_SHARED).await.unwrap();
    assert_eq!(h, 2);
    match s.get(h, 0, 1 << 20).await {
        Err(e) => assert_eq!(e.mqrc().0, 2010, "{e}"),
        Ok(r) => panic!("a cut message was returned: {:?}", r.map(|r| r.data.len())),
    }
    qm.abort();
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn an_unknown_channel_is_2540_and_says_so() {
    let root = tempfile::tempdir().unwrap();
    let port = free_port();
    let a = tokio::task::spawn_blocking({
        let dir = root.path().to_path_buf();
        move || Gateway::start(&dir, &config_a(port))
    })
    .await
    .unwrap();
    // The queue manager refuses INITIAL_DATA naming no channel it has with
    // STATUS_DATA NO_CHANNEL (0x01, the Wireshark MQ dissector's
    // MQ_STATUS_ERR_NO_CHANNEL); the application's reason is 2540
    // MQRC_UNKNOWN_CHANNEL_NAME, as mqgate's server tells
    // (docs/mq-client-protocol.md "Handshake"), not 2059.
    let e = match connect(&options(port, "NO.SUCH.CHL")).await {
        Err(e) => e,
        Ok(_) => panic!("connected to a channel that does not exist"),
    };
    assert_eq!(e.mqrc().0, 2540, "{e}");
    let text = e.to_string();
    assert!(
        text.contains("STATUS_DATA code 0x01") && text.contains("2540"),
        "{text}"
    );
    drop(a);
}

#[test]
fn puts_are_checked_as_the_channels_principal_and_refusals_dead_lettered() {
    // docs/security.md "Message channels": an mq-client channel puts as
    // `channel:NAME`, needing +put and +setall on a local queue (it keeps
    // the sender's context), as a receiver channel does; what it may not
    // put goes to the dead-letter queue with 2035 MQRC_NOT_AUTHORIZED
    // (IBM MQ "API reason codes") and the channel goes on.
    use mqgate_codecs::mq::ByteOrder;
    use mqgate_codecs::mq::dlh::parse_dlh;
    use sha2::{Digest, Sha256};
    const ADMIN: &str = "admin-secret-token";
    let root = tempfile::tempdir().unwrap();
    let (da, db) = (root.path().join("a"), root.path().join("b"));
    std::fs::create_dir_all(&da).unwrap();
    std::fs::create_dir_all(&db).unwrap();
    let port = free_port();
    let a = Gateway::start(&da, &config_a(port));
    for (q, body) in [
        ("APP.OK", "granted"),
        ("APP.NO", "put but no setall"),
        ("APP.OTHER", "nothing granted"),
    ] {
        let (st, v) = a.put(q, "q_mgr=GWB&persistent=true", body.as_bytes());
        assert_eq!(st, 201, "{v}");
    }
    let b_config = format!(
        "queue_manager:
  name: GWB
queues:
  - {{ type: local, name: APP.OK }}
  - {{ type: local, name: APP.NO }}
  - {{ type: local, name: APP.OTHER }}
channels:
  - type: mq-client
    name: FROM.QMA
    host: 127.0.0.1
    port: {port}
    channel: {SVRCONN}
    q_mgr_name: QMA
    user: mqgate
    xmit_queue: GWB
    wait_ms: 200
    reconnect: {{ first_ms: 50, max_ms: 400 }}
security:
  tokens:
    - {{ principal: admin, sha256: \"{}\" }}
  authorities:
    - {{ principal: admin, profile: \"**\", authorities: [all] }}
    - {{ principal: admin, profile: GWB, type: qmgr, authorities: [all] }}
    - {{ principal: \"channel:FROM.QMA\", profile: APP.OK, authorities: [put, setall] }}
    - {{ principal: \"channel:FROM.QMA\", profile: APP.NO, authorities: [put] }}
",
        hex::encode(Sha256::digest(ADMIN.as_bytes()))
    );
    let b = Gateway::start_with_token(&db, &b_config, ADMIN);
    let deadline = Instant::now() + Duration::from_secs(60);
    while a.depth("GWB") > 0 || b.depth("SYSTEM.DEAD.LETTER.QUEUE") < 2 {
        assert!(
            Instant::now() < deadline,
            "A's GWB depth {}; see {}",
            a.depth("GWB"),
            b.log_path().display()
        );
        std::thread::sleep(Duration::from_millis(100));
    }
    let (st, v) = b.get_ack("APP.OK", "wait_ms=0");
    assert_eq!(st, 200, "{v}");
    assert_eq!(common::data(&v), b"granted");
    let mut dead = Vec::new();
    while let (200, v) = b.get_ack("SYSTEM.DEAD.LETTER.QUEUE", "wait_ms=0") {
        let d = common::data(&v);
        let (dlh, cs) = parse_dlh(&d, ByteOrder::Little).unwrap();
        dead.push((dlh.reason, dlh.dest_q_name.text(cs)));
    }
    dead.sort();
    assert_eq!(
        dead,
        vec![
            (2035, "APP.NO".to_string()),
            (2035, "APP.OTHER".to_string())
        ]
    );
    let log = std::fs::read_to_string(b.log_path()).unwrap();
    let want = "principal \"channel:FROM.QMA\" has no +setall authority on queue \"APP.NO\"";
    assert!(log.contains(want), "{want} not in:\n{log}");
}

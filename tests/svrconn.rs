//! IBM MQ clients against mqgate's server-connection channel
//! (docs/mq-client-protocol.md), with a client built on mqgate's own codec
//! (tests/svrconn_client): each MQI verb and option, and bad input. MQRC and
//! MQCC values are IBM MQ's ("API reason codes"); STATUS_DATA codes are the
//! Wireshark MQ dissector's MQ_STATUS_ERR_* values.

mod svrconn_client;

use mqgate::config::Config;
use mqgate::gateway::{Gateway, Handle};
use mqgate_codecs::fap::{SegmentType, StatusCode, StatusData, Tsh, TshKind, tcf, write_segment};
use mqgate_codecs::mq::constants::{gmo, pmo};
use std::net::SocketAddr;
use std::path::Path;
use std::time::Duration;
use svrconn_client::{Client, Refused, Wire, gmo, md, open_options as oo, tshm};

const CHANNEL: &str = "APP.SVRCONN";

async fn start(dir: &Path, channel_extra: &str) -> (Handle, SocketAddr) {
    let text = format!(
        "queue_manager:
  name: QMGATE
http:
  listen: 127.0.0.1:0
listener:
  listen: 127.0.0.1:0
mqtt:
  listen: 127.0.0.1:0
svrconn:
  listen: 127.0.0.1:0
  channels:
    - name: {CHANNEL}
      {channel_extra}
queues:
  - type: local
    name: APP.Q
  - type: local
    name: APP.OTHER
  - type: model
    name: APP.MODEL
    dynamic_q_name: 'APP.DYN.*'
"
    );
    let mut c = Config::from_yaml(&text, "t.yaml").unwrap();
    c.storage.data_dir = dir.join("data");
    let h = Gateway::start(c).await.unwrap();
    let a = h.svrconn_addr().unwrap();
    (h, a)
}

async fn client(addr: SocketAddr) -> Client {
    Client::connect(addr, CHANNEL, "tester", None)
        .await
        .unwrap()
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn put_then_get_with_context_and_ids() {
    let dir = tempfile::tempdir().unwrap();
    let (g, addr) = start(dir.path(), "").await;
    let mut c = client(addr).await;
    let out = c.open_ok("APP.Q", oo::OUTPUT).await;
    // The first handle is 2, as a queue manager's (capture of real traffic).
    assert_eq!(out, 2);
    let (h, pmd, ppmo) = c.put(out, md(), pmo::NEW_MSG_ID, b"hello").await;
    assert_eq!((h.comp_code, h.reason), (0, 0));
    // MsgId: `AMQ ` + queue manager name padded to 12 + 8 bytes
    // (docs/http-api.md, as IBM MQ's).
    assert_eq!(&pmd.msg_id[..16], b"AMQ QMGATE      ");
    assert_eq!(&ppmo.resolved_q_name[..5], b"APP.Q");
    assert_eq!(ppmo.known_dest_count, 1);
    // MQPMO_DEFAULT_CONTEXT: the connection's user and application.
    assert_eq!(&pmd.user_identifier.0[..6], b"tester");
    assert_eq!(pmd.put_appl_type, 28);
    assert_eq!(&pmd.put_appl_name.0[..11], b"mqgate-test");
    assert_eq!(c.close(out).await.hobj, -1);
    let inp = c.open_ok("APP.Q", oo::INPUT_SHARED).await;
    let (h, gmd, ggmo, len, data) = c.get(inp, md(), gmo(gmo::NO_SYNCPOINT, 0), 100).await;
    assert_eq!((h.comp_code, h.reason), (0, 0));
    assert_eq!((len, data.as_slice()), (5, &b"hello"[..]));
    assert_eq!(gmd.msg_id, pmd.msg_id);
    assert_eq!(&ggmo.resolved_q_name[..5], b"APP.Q");
    assert_eq!(ggmo.returned_length, 5);
    // Nothing left: 2033 MQRC_NO_MSG_AVAILABLE, MQCC_FAILED.
    let (h, ..) = c.get(inp, md(), gmo(0, 0), 100).await;
    assert_eq!((h.comp_code, h.reason), (2, 2033));
    assert_eq!(c.simple(SegmentType::MQDISC).await.reason, 0);
    // A graceful stop closes the MQ client connections too.
    let stopped = g.stop(Duration::from_secs(5)).await;
    assert_eq!(stopped.ended, 0);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn waits_browses_and_matches_ids() {
    let dir = tempfile::tempdir().unwrap();
    let (g, addr) = start(dir.path(), "").await;
    let mut a = client(addr).await;
    let mut b = client(addr).await;
    let inp = a.open_ok("APP.Q", oo::INPUT_SHARED | oo::BROWSE).await;
    let out = b.open_ok("APP.Q", oo::OUTPUT).await;
    // A waiting get is answered by a put from another connection.
    let waiter = tokio::spawn(async move {
        let r = a.get(inp, md(), gmo(gmo::WAIT, 10_000), 100).await;
        (a, r)
    });
    tokio::time::sleep(Duration::from_millis(200)).await;
    let mut m1 = md();
    m1.correl_id = [1; 24];
    b.put(out, m1.clone(), 0, b"first").await;
    let (mut a, (h, _, _, _, data)) = waiter.await.unwrap();
    assert_eq!((h.reason, data.as_slice()), (0, &b"first"[..]));
    // A wait that times out: 2033.
    let (h, ..) = a.get(inp, md(), gmo(gmo::WAIT, 100), 100).await;
    assert_eq!(h.reason, 2033);
    // Three messages, CorrelIds 1, 2, 1.
    for (c, d) in [(1u8, "one"), (2, "two"), (1, "three")] {
        let mut m = md();
        m.correl_id = [c; 24];
        b.put(out, m, 0, d.as_bytes()).await;
    }
    // Browse first / next walk the queue without removing anything.
    let (_, _, _, _, d) = a.get(inp, md(), gmo(gmo::BROWSE_FIRST, 0), 100).await;
    assert_eq!(d, b"one");
    let (_, _, _, _, d) = a.get(inp, md(), gmo(gmo::BROWSE_NEXT, 0), 100).await;
    assert_eq!(d, b"two");
    let (_, _, _, _, d) = a.get(inp, md(), gmo(gmo::BROWSE_NEXT, 0), 100).await;
    assert_eq!(d, b"three");
    let (h, ..) = a.get(inp, md(), gmo(gmo::BROWSE_NEXT, 0), 100).await;
    assert_eq!(h.reason, 2033);
    // MQMO_MATCH_CORREL_ID (0x2) with CorrelId 2 takes "two" first.
    let mut want = md();
    want.correl_id = [2; 24];
    let mut g2 = gmo(0, 0);
    g2.match_options = 2;
    let (h, gm, _, _, d) = a.get(inp, want, g2, 100).await;
    assert_eq!((h.reason, d.as_slice()), (0, &b"two"[..]));
    // MQMO_MATCH_MSG_ID with that MsgId again: it is gone.
    let mut by_id = md();
    by_id.msg_id = gm.msg_id;
    let mut g1 = gmo(0, 0);
    g1.match_options = 1;
    let (h, ..) = a.get(inp, by_id, g1, 100).await;
    assert_eq!(h.reason, 2033);
    drop(g);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn syncpoint_commit_and_backout() {
    let dir = tempfile::tempdir().unwrap();
    let (g, addr) = start(dir.path(), "").await;
    let mut a = client(addr).await;
    let mut b = client(addr).await;
    let out = a.open_ok("APP.Q", oo::OUTPUT).await;
    let inp = b.open_ok("APP.Q", oo::INPUT_SHARED).await;
    a.put(out, md(), pmo::SYNCPOINT, b"uncommitted").await;
    let (h, ..) = b.get(inp, md(), gmo(0, 0), 100).await;
    assert_eq!(h.reason, 2033, "not visible before MQCMIT");
    assert_eq!(a.simple(SegmentType::MQBACK).await.reason, 0);
    a.put(out, md(), pmo::SYNCPOINT, b"kept").await;
    assert_eq!(a.simple(SegmentType::MQCMIT).await.reason, 0);
    // A get under syncpoint backed out: the message returns with
    // BackoutCount 1 (IBM MQ "BackoutCount (MQLONG)").
    let (h, _, _, _, d) = b.get(inp, md(), gmo(gmo::SYNCPOINT, 0), 100).await;
    assert_eq!((h.reason, d.as_slice()), (0, &b"kept"[..]));
    assert_eq!(b.simple(SegmentType::MQBACK).await.reason, 0);
    let (h, m, _, _, d) = b.get(inp, md(), gmo(gmo::SYNCPOINT, 0), 100).await;
    assert_eq!(
        (h.reason, d.as_slice(), m.backout_count),
        (0, &b"kept"[..], 1)
    );
    // A conversation that ends without MQDISC backs out.
    drop(b);
    tokio::time::sleep(Duration::from_millis(300)).await;
    let mut c = client(addr).await;
    let inp = c.open_ok("APP.Q", oo::INPUT_SHARED).await;
    let (h, m, ..) = c.get(inp, md(), gmo(0, 0), 100).await;
    assert_eq!((h.reason, m.backout_count), (0, 2));
    drop(g);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn truncation_2080_leaves_the_message_2079_takes_it() {
    let dir = tempfile::tempdir().unwrap();
    let (g, addr) = start(dir.path(), "").await;
    let mut c = client(addr).await;
    let out = c.open_ok("APP.Q", oo::OUTPUT).await;
    c.put(out, md(), 0, b"0123456789").await;
    let inp = c.open_ok("APP.Q", oo::INPUT_SHARED).await;
    // 2080 MQRC_TRUNCATED_MSG_FAILED is MQCC_WARNING; DataLength is the
    // message's length, and the message stays.
    let (h, _, _, len, d) = c.get(inp, md(), gmo(0, 0), 4).await;
    assert_eq!(
        (h.comp_code, h.reason, len, d.as_slice()),
        (1, 2080, 10, &b"0123"[..])
    );
    let (h, _, _, len, d) = c.get(inp, md(), gmo(gmo::ACCEPT_TRUNCATED_MSG, 0), 4).await;
    assert_eq!(
        (h.comp_code, h.reason, len, d.as_slice()),
        (1, 2079, 10, &b"0123"[..])
    );
    let (h, ..) = c.get(inp, md(), gmo(0, 0), 4).await;
    assert_eq!(h.reason, 2033);
    drop(g);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn inquire_put1_dynamic_queues_and_handle_errors() {
    let dir = tempfile::tempdir().unwrap();
    let (g, addr) = start(dir.path(), "").await;
    let mut c = client(addr).await;
    let (h, _) = c.open(None, oo::INQUIRE).await;
    assert_eq!(h.reason, 0);
    // MQCA_Q_MGR_NAME 2015, MQIA_PLATFORM 32 (MQPL_UNIX 3), MQIA_SYNCPOINT 30.
    let (r, ints, chars) = c.inq(h.hobj, &[2015, 32, 30], 2, 48).await;
    assert_eq!(r.reason, 0);
    assert_eq!(ints, [3, 1]);
    assert_eq!(&chars[..7], b"QMGATE ");
    // A selector not answered: 2067 MQRC_SELECTOR_ERROR.
    let (r, ..) = c.inq(h.hobj, &[9999], 0, 0).await;
    assert_eq!((r.comp_code, r.reason), (2, 2067));
    // Too small an IntAttrCount: 2022 MQRC_INT_ATTR_COUNT_TOO_SMALL, warning.
    let (r, ints, _) = c.inq(h.hobj, &[32, 30], 1, 0).await;
    assert_eq!((r.comp_code, r.reason, ints.len()), (1, 2022, 1));
    // MQPUT1, then the depth by MQINQ (MQIA_CURRENT_Q_DEPTH 3).
    let (r, m) = c.put1("APP.OTHER", md(), 0, b"one-shot").await;
    assert_eq!((r.reason, &m.msg_id[..4]), (0, &b"AMQ "[..]));
    let q = c.open_ok("APP.OTHER", oo::INQUIRE).await;
    let (r, ints, _) = c.inq(q, &[3], 1, 0).await;
    assert_eq!((r.reason, ints), (0, vec![1]));
    // Unknown queue: 2085; a put on a handle not open for output: 2039;
    // a handle never opened: 2019.
    let (r, _) = c.open(Some("NO.SUCH.Q"), oo::OUTPUT).await;
    assert_eq!((r.comp_code, r.reason), (2, 2085));
    let (r, ..) = c.put(q, md(), 0, b"x").await;
    assert_eq!(r.reason, 2039);
    let (r, ..) = c.put(77, md(), 0, b"x").await;
    assert_eq!(r.reason, 2019);
    // A model queue: MQOPEN creates a temporary dynamic queue named from
    // DynamicQName; MQCLOSE deletes it.
    let (r, o) = c
        .open(Some("APP.MODEL"), oo::INPUT_EXCLUSIVE | oo::OUTPUT)
        .await;
    assert_eq!(r.reason, 0);
    let name = String::from_utf8_lossy(&o.od.object_name)
        .trim_end()
        .to_string();
    assert!(name.starts_with("AMQ."), "{name}");
    c.put(r.hobj, md(), 0, b"dyn").await;
    let (x, _, _, _, d) = c.get(r.hobj, md(), gmo(0, 0), 10).await;
    assert_eq!((x.reason, d.as_slice()), (0, &b"dyn"[..]));
    c.close(r.hobj).await;
    let (r, _) = c.open(Some(&name), oo::OUTPUT).await;
    assert_eq!(r.reason, 2085);
    drop(g);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn shared_conversations_and_long_messages() {
    let dir = tempfile::tempdir().unwrap();
    let (g, addr) = start(dir.path(), "").await;
    let mut c = client(addr).await;
    // SOCKET_ACTION start of conversation 3: the reply as a queue manager
    // gave it in real traffic (Type 8, Parm1 4, Parm2 3).
    let a = c.start_conversation(3).await;
    assert_eq!(
        (a.conversation_id, a.action_type, a.parm1, a.parm2),
        (3, 8, 4, 3)
    );
    c.conv = 3;
    c.conn(None).await.unwrap();
    let out = c.open_ok("APP.Q", oo::OUTPUT).await;
    // 100 000 bytes: over three times the 32748-byte segments agreed, so
    // both directions split into FIRST / middle / LAST segments.
    let big: Vec<u8> = (0..100_000u32).map(|i| (i % 251) as u8).collect();
    let (h, ..) = c.put(out, md(), 0, &big).await;
    assert_eq!(h.reason, 0);
    c.conv = 1;
    let inp = c.open_ok("APP.Q", oo::INPUT_SHARED).await;
    let (h, _, _, len, d) = c.get(inp, md(), gmo(0, 0), 200_000).await;
    assert_eq!((h.reason, len as usize), (0, big.len()));
    assert!(d == big);
    drop(g);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn authentication_and_refusals() {
    let dir = tempfile::tempdir().unwrap();
    let (g, addr) = start(
        dir.path(),
        "users: [{name: app, password: secret}, {name: trusted}]",
    )
    .await;
    assert!(
        Client::connect(addr, CHANNEL, "x", Some(("app", "secret")))
            .await
            .is_ok()
    );
    assert!(
        Client::connect(addr, CHANNEL, "x", Some(("trusted", "any")))
            .await
            .is_ok()
    );
    // A wrong password, or none: MQCONN fails with MQCC_FAILED, 2035
    // MQRC_NOT_AUTHORIZED, as a queue manager with connection
    // authentication answers.
    for auth in [Some(("app", "wrong")), None] {
        match Client::connect(addr, CHANNEL, "root", auth).await {
            Err(Refused::Conn(2, 2035)) => {}
            other => panic!("{:?}", other.err()),
        }
    }
    // A channel that is not defined: STATUS_DATA NO_CHANNEL (0x01) with
    // 2540 MQRC_UNKNOWN_CHANNEL_NAME, then the socket closes.
    match Client::connect(addr, "NO.SUCH.CHL", "x", None).await {
        Err(Refused::Status(StatusData::Status { code, value })) => {
            assert_eq!((code, value), (StatusCode::NO_CHANNEL, Some(2540)));
        }
        other => panic!("{:?}", other.err()),
    }
    drop(g);
}

/// Sends `bytes` on a fresh, negotiated socket (conversation 1, not yet
/// connected) and returns what came back before it closed.
async fn after(addr: SocketAddr, bytes: &[u8]) -> (Vec<Tsh>, Vec<Vec<u8>>, bool) {
    let mut w = Wire::connect(addr).await;
    let id = svrconn_client::initial_data(CHANNEL);
    let (t, _) = svrconn_client::exchange_id(&mut w, &id, TshKind::Tsh)
        .await
        .unwrap();
    assert_eq!(t.control_flags1, 0);
    w.send(bytes).await;
    let mut heads = Vec::new();
    let mut bodies = Vec::new();
    while let Some(m) = w.message().await {
        heads.push(m.tsh);
        bodies.push(m.body);
    }
    (heads, bodies, true)
}

fn status_of(t: &Tsh, body: &[u8]) -> (i32, Option<i32>) {
    assert_eq!(t.segment_type, SegmentType::STATUS_DATA);
    assert_eq!(t.control_flags1, tcf::ERROR | tcf::CLOSE_CHANNEL);
    match mqgate_codecs::fap::status::parse_status(body, 36, t.byte_order).unwrap() {
        StatusData::Status { code, value } => (code.0, value),
        StatusData::Empty => panic!("empty status"),
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn bad_input_is_refused_and_others_keep_being_served() {
    let dir = tempfile::tempdir().unwrap();
    let (g, addr) = start(dir.path(), "").await;
    let mut keeper = client(addr).await;
    let out = keeper.open_ok("APP.Q", oo::OUTPUT).await;

    // A SegmentLength larger than the agreed 32748: STATUS_DATA
    // PROTOCOL_LENGTH_ERROR (0x0B), 2009 MQRC_CONNECTION_BROKEN.
    let mut big = Vec::new();
    write_segment(&tshm(1, SegmentType::MQPUT), &[0; 16], &mut big);
    big[4..8].copy_from_slice(&40000u32.to_be_bytes());
    let (h, b, _) = after(addr, &big[..8]).await;
    assert_eq!(status_of(&h[0], &b[0]), (0x0B, Some(2009)));

    // An unknown segment type (0x55): STATUS_DATA PROTOCOL_SEGMENT_TYPE (0x0A).
    let mut seg = Vec::new();
    write_segment(&tshm(1, SegmentType(0x55)), &[], &mut seg);
    let (h, b, _) = after(addr, &seg).await;
    assert_eq!(status_of(&h[0], &b[0]), (0x0A, Some(2009)));

    // A wrong TSH StrucId: PROTOCOL_SEGMENT_ERROR (0x0D).
    let mut bad = seg.clone();
    bad[3] = b'X';
    let (h, b, _) = after(addr, &bad).await;
    assert_eq!(status_of(&h[0], &b[0]), (0x0D, Some(2009)));

    // A truncated structure: USERID_DATA of 20 bytes, SECURITY_FAILURE (0x14).
    let mut uid = Vec::new();
    write_segment(
        &tshm(1, SegmentType::USERID_DATA),
        b"UID 12345678901234567",
        &mut uid,
    );
    let (h, b, _) = after(addr, &uid).await;
    assert_eq!(status_of(&h[0], &b[0]), (0x14, Some(2063)));

    // A client that stops mid-segment and goes away: nothing is answered,
    // the socket just ends.
    let mut half = Vec::new();
    write_segment(&tshm(1, SegmentType::MQCONN), &[0; 200], &mut half);
    let mut w = Wire::connect(addr).await;
    let id = svrconn_client::initial_data(CHANNEL);
    svrconn_client::exchange_id(&mut w, &id, TshKind::Tsh)
        .await
        .unwrap();
    w.send(&half[..100]).await;
    drop(w);

    // A wrong StrucId inside an MQI call is that call's reason: MQOPEN of
    // an MQOD with StrucId "OX  " fails with 2044 MQRC_OD_ERROR, and the
    // conversation goes on.
    let mut c = client(addr).await;
    let mut od = Vec::new();
    mqgate_codecs::fap::od::write_od(
        &mqgate_codecs::fap::od::Mqod::default(),
        svrconn_client::ORDER,
        &mut od,
    );
    od[1] = b'X';
    od.extend_from_slice(&0x10i32.to_le_bytes());
    let (h, _) = c.call(SegmentType::MQOPEN, 0, &od).await.unwrap();
    assert_eq!((h.comp_code, h.reason), (2, 2044));
    // A verb before MQCONN: 2018 MQRC_HCONN_ERROR.
    let mut fresh = Wire::connect(addr).await;
    svrconn_client::exchange_id(&mut fresh, &id, TshKind::Tsh)
        .await
        .unwrap();
    let mut nc = Client {
        wire: fresh,
        conv: 1,
    };
    let (h, _) = nc.call(SegmentType::MQCMIT, 0, &[]).await.unwrap();
    assert_eq!(h.reason, 2018);

    // The gateway kept serving the first client throughout.
    let (h, ..) = keeper.put(out, md(), 0, b"still here").await;
    assert_eq!(h.reason, 0);
    drop(g);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn heartbeats_conversion_and_queue_manager_names() {
    let dir = tempfile::tempdir().unwrap();
    let (g, addr) = start(dir.path(), "").await;
    let mut c = client(addr).await;
    // A HEARTBEAT with CONFIRM_REQUEST is answered by a HEARTBEAT without it.
    let mut h = tshm(1, SegmentType::HEARTBEAT);
    h.control_flags1 = tcf::CONFIRM_REQUEST | tcf::FIRST | tcf::LAST;
    let mut seg = Vec::new();
    write_segment(&h, &[], &mut seg);
    c.wire.send(&seg).await;
    let m = c.wire.message().await.unwrap();
    assert_eq!(m.tsh.segment_type, SegmentType::HEARTBEAT);
    assert_eq!(m.tsh.control_flags1, tcf::FIRST | tcf::LAST);
    // MQGMO_CONVERT to CodedCharSetId 819: UTF-8 "é" (C3 A9) becomes E9 in
    // ISO 8859-1; "€" has no ISO 8859-1 character, so that message comes
    // back as it was with MQCC_WARNING 2119 MQRC_NOT_CONVERTED (IBM MQ
    // "MQGMO_CONVERT", docs/ccsid.md).
    let out = c.open_ok("APP.Q", oo::OUTPUT).await;
    c.put(out, md(), 0, "é".as_bytes()).await;
    c.put(out, md(), 0, "€".as_bytes()).await;
    let inp = c.open_ok("APP.Q", oo::INPUT_SHARED).await;
    let mut want = md();
    want.coded_char_set_id = 819;
    want.encoding = 546;
    let (r, m, _, _, d) = c.get(inp, want.clone(), gmo(gmo::CONVERT, 0), 100).await;
    assert_eq!(
        (r.reason, m.coded_char_set_id, d.as_slice()),
        (0, 819, &[0xE9][..])
    );
    let (r, m, _, _, d) = c.get(inp, want, gmo(gmo::CONVERT, 0), 100).await;
    assert_eq!((r.comp_code, r.reason), (1, 2119));
    assert_eq!((m.coded_char_set_id, d.as_slice()), (1208, "€".as_bytes()));
    drop(c);
    // MQCONN naming another queue manager: 2058 MQRC_Q_MGR_NAME_ERROR.
    let mut w = Wire::connect(addr).await;
    let id = svrconn_client::initial_data(CHANNEL);
    svrconn_client::exchange_id(&mut w, &id, TshKind::Tsh)
        .await
        .unwrap();
    let mut other = Client { wire: w, conv: 1 };
    let mut conn = Vec::new();
    let mut q = [b' '; 48];
    q[..5].copy_from_slice(b"OTHER");
    mqgate_codecs::fap::conn::write_conn(
        &mqgate_codecs::fap::conn::ConnData {
            q_mgr_name: q,
            appl_name: [b' '; 28],
            appl_type: 28,
            accounting_token: [0; 32],
            options: 0,
            x_options: 0,
            fcno: None,
            rest: &[],
        },
        svrconn_client::ORDER,
        &mut conn,
    );
    let (r, _) = other.call(SegmentType::MQCONN, 0, &conn).await.unwrap();
    assert_eq!((r.comp_code, r.reason), (2, 2058));
    drop(g);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn verbs_before_mqconn_a_second_mqconn_and_a_negative_buffer_length() {
    let dir = tempfile::tempdir().unwrap();
    let (g, addr) = start(dir.path(), "").await;
    // Before MQCONN every verb is 2018 MQRC_HCONN_ERROR, whatever its
    // parameters (docs/mq-client-protocol.md "Handshake"): an MQOPEN whose
    // MQOD is all zeros and an MQGET without an MQMD do not get 2044 or 2026.
    let mut w = Wire::connect(addr).await;
    let id = svrconn_client::initial_data(CHANNEL);
    svrconn_client::exchange_id(&mut w, &id, TshKind::Tsh)
        .await
        .unwrap();
    let mut nc = Client { wire: w, conv: 1 };
    let (h, _) = nc.call(SegmentType::MQOPEN, 0, &[0; 200]).await.unwrap();
    assert_eq!((h.comp_code, h.reason), (2, 2018));
    let (h, _) = nc.call(SegmentType::MQGET, 2, &[0; 100]).await.unwrap();
    assert_eq!((h.comp_code, h.reason, h.hobj), (2, 2018, 2));

    // A second MQCONN: 2002 MQRC_ALREADY_CONNECTED is MQCC_WARNING (IBM MQ
    // "2002 (07D2) (RC2002): MQRC_ALREADY_CONNECTED", Completion code).
    let mut c = client(addr).await;
    let tags = [0u8; 84];
    let conn = mqgate::mqclient::handshake::conn_data("*", "mqgate-test", &tags);
    let mut p = Vec::new();
    mqgate_codecs::fap::conn::write_conn(&conn, svrconn_client::ORDER, &mut p);
    let (h, _) = c.call(SegmentType::MQCONN, 0, &p).await.unwrap();
    assert_eq!((h.comp_code, h.reason), (1, 2002));

    // MQGET with BufferLength -1: 2005 MQRC_BUFFER_LENGTH_ERROR (IBM MQ
    // "2005 (07D5) (RC2005): MQRC_BUFFER_LENGTH_ERROR": "Specify a value
    // that is zero or greater"); the conversation goes on.
    let inp = c.open_ok("APP.Q", oo::INPUT_SHARED).await;
    let get = mqgate_codecs::fap::message::GetData {
        md: md(),
        md_charset: mqgate_codecs::mq::Charset::Ascii,
        gmo: gmo(0, 0),
        length: -1,
        data: &[],
    };
    let mut p = Vec::new();
    mqgate_codecs::fap::message::write_get(&get, svrconn_client::ORDER, &mut p);
    let (h, _) = c.call(SegmentType::MQGET, inp, &p).await.unwrap();
    assert_eq!((h.comp_code, h.reason), (2, 2005));
    let (h, ..) = c.get(inp, md(), gmo(0, 0), 100).await;
    assert_eq!(h.reason, 2033);
    drop(g);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn types_that_are_no_request_and_ending_an_unknown_conversation_are_refused() {
    let dir = tempfile::tempdir().unwrap();
    let (g, addr) = start(dir.path(), "").await;
    let mut keeper = client(addr).await;
    // Segment types no client sends: 0x80 (no verb), 0x91 (MQCONN_REPLY),
    // 0xAB and 0xBF (past the XA calls 0xA1-0xAA). STATUS_DATA
    // PROTOCOL_SEGMENT_TYPE (0x0A, the Wireshark MQ dissector's
    // MQ_STATUS_ERR_PROTOCOL_SEGMENT_TYPE), 2009, as docs/mq-client-protocol.md
    // "Bad input" says for unknown types.
    for t in [0x80u8, 0x91, 0xAB, 0xBF] {
        let mut seg = Vec::new();
        write_segment(&tshm(1, SegmentType(t)), &[0; 16], &mut seg);
        let (h, b, _) = after(addr, &seg).await;
        assert_eq!(h.len(), 1, "type 0x{t:02X}: {h:?}");
        assert_eq!(status_of(&h[0], &b[0]), (0x0A, Some(2009)), "0x{t:02X}");
    }
    // SOCKET_ACTION ending conversation 5, never started: CONV_ID_ERROR
    // (0x1E), as for any conversation id never started.
    let mut h = Tsh::new(TshKind::Tshc, SegmentType::SOCKET_ACTION);
    h.control_flags1 = tcf::FIRST | tcf::LAST;
    let a = mqgate_codecs::fap::socket::SocketAction {
        conversation_id: 5,
        request_id: 0,
        action_type: 2,
        parm1: 0,
        parm2: 0,
    };
    let mut body = Vec::new();
    mqgate_codecs::fap::socket::write_socket_action(&a, svrconn_client::ORDER, &mut body);
    let mut seg = Vec::new();
    write_segment(&h, &body, &mut seg);
    let (h, b, _) = after(addr, &seg).await;
    assert_eq!(h.len(), 1, "{h:?}");
    assert_eq!(status_of(&h[0], &b[0]), (0x1E, Some(2009)));
    // The other client is still served.
    assert_eq!(keeper.simple(SegmentType::MQCMIT).await.reason, 0);
    drop(g);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_tiny_maximum_transmission_size_is_raised_to_4096() {
    let dir = tempfile::tempdir().unwrap();
    let (g, addr) = start(dir.path(), "").await;
    // A client asking for 40-byte segments would have every reply cut into
    // 4 bytes of data per 36-byte header. mqgate offers its smallest
    // maximum transmission size instead, 4096 bytes (docs/config.md
    // `svrconn.max_transmission_size`), flagged with IniErrorFlags1
    // MAX_TRANSMISSION_SIZE (0x04, the Wireshark MQ dissector's
    // MQ_IEF1_MAX_TRANSMISSION_SIZE) and ControlFlags1 ERROR.
    let mut id = svrconn_client::initial_data(CHANNEL);
    id.capability_flags3 = 0x20;
    id.max_transmission_size = 40;
    let mut w = Wire::connect(addr).await;
    let (t, body) = svrconn_client::exchange_id(&mut w, &id, TshKind::Tsh)
        .await
        .unwrap();
    assert_eq!(t.control_flags1, tcf::ERROR);
    let r = mqgate_codecs::fap::id::parse_id(&body, 28, t.byte_order).unwrap();
    assert_eq!((r.max_transmission_size, r.ini_error_flags1), (4096, 0x04));
    drop(g);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn negative_inquire_counts_have_their_own_reasons() {
    let dir = tempfile::tempdir().unwrap();
    let (g, addr) = start(dir.path(), "").await;
    let mut c = client(addr).await;
    let q = c.open_ok("APP.Q", oo::INQUIRE).await;
    // IBM MQ "2021 (07E5) (RC2021): MQRC_INT_ATTR_COUNT_ERROR" (IntAttrCount
    // negative), "2006 (07D6) (RC2006): MQRC_CHAR_ATTR_LENGTH_ERROR"
    // (CharAttrLength negative), "2065 (0811) (RC2065):
    // MQRC_SELECTOR_COUNT_ERROR" (SelectorCount out of range).
    let (r, ..) = c.inq(q, &[3], -1, 0).await;
    assert_eq!((r.comp_code, r.reason), (2, 2021));
    let (r, ..) = c.inq(q, &[3], 1, -1).await;
    assert_eq!((r.comp_code, r.reason), (2, 2006));
    let mut p = Vec::new();
    for v in [-1i32, 0, 0] {
        p.extend_from_slice(&v.to_le_bytes());
    }
    let (r, _) = c.call(SegmentType::MQINQ, q, &p).await.unwrap();
    assert_eq!((r.comp_code, r.reason), (2, 2065));
    let (r, ints, _) = c.inq(q, &[3], 1, 0).await;
    assert_eq!((r.reason, ints), (0, vec![0]));
    drop(g);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_priority_above_nine_is_put_with_a_warning() {
    let dir = tempfile::tempdir().unwrap();
    let (g, addr) = start(dir.path(), "").await;
    let mut c = client(addr).await;
    let out = c.open_ok("APP.Q", oo::OUTPUT).await;
    // IBM MQ "2049 (0801) (RC2049): MQRC_PRIORITY_EXCEEDS_MAXIMUM":
    // MQCC_WARNING, the message is put (at the highest priority, its MQMD
    // keeping the value given). A client told MQCC_FAILED would put it again.
    let mut m = md();
    m.priority = 12;
    let (h, pmd, _) = c.put(out, m, pmo::NEW_MSG_ID, b"urgent").await;
    assert_eq!((h.comp_code, h.reason), (1, 2049));
    let inp = c.open_ok("APP.Q", oo::INPUT_SHARED).await;
    let (h, gmd, _, _, d) = c.get(inp, md(), gmo(0, 0), 100).await;
    assert_eq!((h.reason, d.as_slice()), (0, &b"urgent"[..]));
    assert_eq!((gmd.msg_id, gmd.priority), (pmd.msg_id, 12));
    drop(g);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_first_segment_of_a_conversation_never_started_is_refused_at_once() {
    let dir = tempfile::tempdir().unwrap();
    let (g, addr) = start(dir.path(), "").await;
    // Half a message on conversation 7, which no SOCKET_ACTION started: it
    // is refused at its first segment, before anything is kept for it
    // (otherwise one socket could hold a partial message for each of 2^32
    // conversation ids). STATUS_DATA CONV_ID_ERROR (0x1E), as for any
    // conversation id never started (docs/mq-client-protocol.md "Bad input").
    let mut h = tshm(7, SegmentType::MQPUT);
    h.control_flags1 = tcf::FIRST;
    let mut seg = Vec::new();
    write_segment(&h, &[0; 1000], &mut seg);
    let (h, b, _) = after(addr, &seg).await;
    assert_eq!(h.len(), 1, "{h:?}");
    assert_eq!(status_of(&h[0], &b[0]), (0x1E, Some(2009)));
    drop(g);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_first_segment_before_initial_data_is_refused_at_once() {
    let dir = tempfile::tempdir().unwrap();
    let (g, addr) = start(dir.path(), "").await;
    // Before INITIAL_DATA is agreed only INITIAL_DATA is served: half an
    // MQPUT is refused at its first segment with STATUS_DATA
    // PROTOCOL_SEGMENT_TYPE (0x0A, the Wireshark MQ dissector's
    // MQ_STATUS_ERR_PROTOCOL_SEGMENT_TYPE) and 2009
    // (docs/mq-client-protocol.md "Bad input"), not kept until the
    // connect timeout.
    let mut h = tshm(5, SegmentType::MQPUT);
    h.control_flags1 = tcf::FIRST;
    let mut seg = Vec::new();
    write_segment(&h, &[0; 1000], &mut seg);
    let mut w = Wire::connect(addr).await;
    w.send(&seg).await;
    let m = w.message().await.expect("a STATUS_DATA");
    assert_eq!(status_of(&m.tsh, &m.body), (0x0A, Some(2009)));
    assert!(w.message().await.is_none(), "the socket closes");
    drop(g);
}

//! The gateway through its HTTP routes, in process (the router answers requests directly), with a
//! controllable clock. One test per row of the flag mapping table and of the error table of BEA
//! Tuxedo "Using the BEA Tuxedo TOP END Domain Gateway"; expected tperrno and diagnostic values are
//! that guide's, numbers from Tuxedo's `atmi.h` (Oracle Tuxedo "tperrno(5)", "tpenqueue(3c)").

use super::clock::{ManualClock, is_due};
use super::config::RtqQueueConfig;
use super::http::{TedgState, routes};
use super::*;
use crate::config::Config;
use crate::http::{AppState, router};
use crate::qmgr::QueueManager;
use crate::store::redb::RedbStore;
use crate::store::{Batch, Store, StoreError};
use axum::body::Body;
use axum::http::Request;
use base64::Engine;
use base64::engine::general_purpose::STANDARD as B64;
use mqgate_codecs::tux::fml32::{FieldId, FieldValue, Fml32Buffer};
use serde_json::{Value, json};
use std::path::Path;
use tower::ServiceExt;

const DM: &str = concat!(
    env!("CARGO_MANIFEST_DIR"),
    "/fixtures/tuxedo/tedg_valid.dmconfig"
);
const FIELDS: &str = concat!(
    env!("CARGO_MANIFEST_DIR"),
    "/fixtures/tuxedo/tedg_fields.fml"
);
/// The controllable clock's start: 2023-11-14T22:13:20Z.
const T0: i64 = 1_700_000_000;

// fixtures/tuxedo/tedg_valid.dmconfig: QSPACE BILLING = BILLING_GROUP/BILLQ;
// QSPACE ORDERS = ORDGRP/ORDQ target T1; QNAME INVOICE (BILLAPP/INVOICE, any
// type), RAWDATA (BILLAPP/RAWIN, CARRAY only), NEWORDER (ORDERAPP/NEWORD,
// target T1, qualifier 7, FML32 only).
const BG: &str = "BILLING_GROUP";
const BQ: &str = "BILLQ";

struct H {
    app: axum::Router,
    qm: Arc<QueueManager>,
    clock: Arc<ManualClock>,
    _dir: tempfile::TempDir,
}

struct FailingStore;

impl Store for FailingStore {
    fn apply(&self, _: &Batch) -> Result<(), StoreError> {
        let eio = std::io::Error::from_raw_os_error(libc::EIO);
        Err(StoreError::from_io("commit (test)", eio))
    }
    fn load(&self) -> Result<Vec<(u64, Vec<u8>)>, StoreError> {
        Ok(vec![])
    }
    fn load_index(&self) -> Result<crate::store::Summaries, StoreError> {
        Ok(crate::store::Summaries::default())
    }
    fn read(&self, _key: u64) -> Result<Option<Vec<u8>>, StoreError> {
        Ok(None)
    }
    fn load_meta(&self) -> Result<Vec<(String, Vec<u8>)>, StoreError> {
        Ok(vec![])
    }
}

fn build(queues: Vec<RtqQueueConfig>, store: Option<Arc<dyn Store>>, create: bool) -> H {
    build_with(Setup {
        queues,
        store,
        create,
        ..Setup::default()
    })
}

/// How a harness is built beyond the defaults.
#[derive(Default)]
struct Setup {
    queues: Vec<RtqQueueConfig>,
    store: Option<Arc<dyn Store>>,
    /// Add the DMCONFIG's RTQ queues to the queue manager.
    create: bool,
    /// The `exits:` section and the registry its built-in names come from.
    exits: Option<(mqgate_exits::ExitsConfig, mqgate_exits::ExitRegistry)>,
    /// The gateway's clock; `None` = the harness's [`ManualClock`].
    clock: Option<Arc<dyn Clock>>,
    /// Queue spaces that are a fault tolerance role.
    role: Option<Arc<QspaceRole>>,
}

fn build_with(setup: Setup) -> H {
    let dir = tempfile::tempdir().unwrap();
    let (exits_config, registry) = setup.exits.unwrap_or_else(|| {
        (
            Default::default(),
            mqgate_exits::ExitRegistry::with_builtins(),
        )
    });
    let mut config = Config {
        dmconfig: Some(DM.into()),
        tedg: super::config::TedgConfig {
            field_tables: vec![FIELDS.into()],
            queues: setup.queues,
        },
        exits: exits_config,
        ..Config::default()
    };
    let loaded = if setup.create {
        load_from_config(&mut config).unwrap().unwrap()
    } else {
        load(Path::new(DM), &config.tedg).unwrap()
    };
    let store = setup
        .store
        .unwrap_or_else(|| Arc::new(RedbStore::open(dir.path()).unwrap()));
    let qm = Arc::new(QueueManager::open(&config, store).unwrap());
    // As the gateway does (src/gateway/mod.rs).
    assert!(qm.set_put_check(Arc::new(super::RtqQueues::new(&loaded))));
    let clock = Arc::new(ManualClock::new(T0));
    let exits = Arc::new(crate::mqi::QueueExits::with_registry(
        &config.exits,
        registry,
        qm.name(),
    ));
    let mqi = crate::mqi::Mqi::new(qm.clone(), exits);
    let tedg_clock = setup.clock.unwrap_or_else(|| clock.clone());
    let mut tedg = Tedg::new(loaded, mqi.clone(), tedg_clock, 30_000);
    if let Some(role) = setup.role {
        tedg = tedg.with_role(role);
    }
    let tedg = Arc::new(tedg);
    let app =
        router(AppState::new(mqi, Arc::new(config), Default::default())).merge(routes(TedgState {
            tedg,
            max_wait_ms: 60_000,
        }));
    H {
        app,
        qm,
        clock,
        _dir: dir,
    }
}

fn harness() -> H {
    build(vec![], None, true)
}

fn queue_cfg(capacity: usize, max_request_bytes: usize) -> RtqQueueConfig {
    RtqQueueConfig {
        group: BG.into(),
        name: BQ.into(),
        capacity,
        max_request_bytes,
        state: RtqState::Enabled,
    }
}

impl H {
    async fn call(&self, method: &str, path: &str, body: Option<Value>) -> (u16, Value) {
        let req = Request::builder()
            .method(method)
            .uri(path)
            .header("content-type", "application/json")
            .body(body.map_or(Body::empty(), |b| Body::from(b.to_string())))
            .unwrap();
        let res = self.app.clone().oneshot(req).await.unwrap();
        let st = res.status().as_u16();
        let bytes = axum::body::to_bytes(res.into_body(), usize::MAX)
            .await
            .unwrap();
        (st, serde_json::from_slice(&bytes).unwrap_or(Value::Null))
    }

    async fn enq(&self, body: Value) -> Value {
        let (st, v) = self.call("POST", "/v1/tux/tpenqueue", Some(body)).await;
        assert_eq!(st, 200, "{v}");
        v
    }

    async fn next(&self, query: &str) -> (u16, Value) {
        self.call("GET", &format!("/v1/rtq/{BG}/{BQ}/next?{query}"), None)
            .await
    }

    /// Acknowledges `lease`: the `lease` of a `next` answer, a token string
    /// (docs/tuxedo.md "HTTP").
    async fn ack(&self, lease: &Value) -> (u16, Value) {
        let lease = token(lease);
        self.call("POST", &format!("/v1/rtq/{BG}/{BQ}/ack/{lease}"), None)
            .await
    }
}

/// A lease or unit-of-work token of an answer: 32 hex digits (src/qmgr/token.rs).
fn token(v: &Value) -> String {
    let t = v
        .as_str()
        .unwrap_or_else(|| panic!("{v} is not a token string"));
    assert_eq!(
        crate::mqi::Token::parse(t).map(|k| k.to_string()),
        Some(t.to_string())
    );
    t.to_string()
}

fn invoice(flags: &[&str], deq_time: i64, data: &[u8]) -> Value {
    json!({"qspace": "BILLING", "qname": "INVOICE", "flags": flags, "deq_time": deq_time,
           "buftype": "CARRAY", "data_base64": B64.encode(data)})
}

fn ok(v: &Value) {
    assert_eq!(v["tperrno"], Value::Null, "{v}");
    assert_eq!(v["tperrno_value"], 0, "{v}");
}

/// The TEDG guide's error table: TPEDIAGNOSTIC (24) with a QME diagnostic.
fn diag(v: &Value, name: &str, value: i64) {
    assert_eq!(v["tperrno"], "TPEDIAGNOSTIC", "{v}");
    assert_eq!(v["tperrno_value"], 24, "{v}");
    assert_eq!(v["diagnostic"], name, "{v}");
    assert_eq!(v["diagnostic_value"], value, "{v}");
    assert_eq!(v["msgid"], Value::Null, "{v}");
}

fn tperrno(v: &Value, name: &str, value: i64) {
    assert_eq!(v["tperrno"], name, "{v}");
    assert_eq!(v["tperrno_value"], value, "{v}");
    assert_eq!(v["diagnostic"], Value::Null, "{v}");
}

fn request_data(v: &Value) -> Vec<u8> {
    B64.decode(v["data_base64"].as_str().unwrap()).unwrap()
}

// ---- the TEDG guide's flag mapping table ----

#[tokio::test]
async fn flag_tpqtime_abs_schedules_at_the_absolute_unix_time() {
    let h = harness();
    let at = T0 + 7200;
    let v = h.enq(invoice(&["TPQTIME_ABS"], at, b"abs")).await;
    ok(&v);
    // mqgate (docs/tuxedo.md): absolute schedule text = decimal UNIX seconds.
    assert_eq!(v["schedule_time"], at.to_string());
    assert_eq!(v["due_at"], at);
    assert_eq!(h.next("").await.0, 404);
    h.clock.advance(7199);
    assert_eq!(h.next("").await.0, 404);
    h.clock.advance(1);
    let (st, r) = h.next("").await;
    assert_eq!(st, 200, "{r}");
    assert_eq!(request_data(&r), b"abs");
    // A time in the past means "now" (mqgate, docs/tuxedo.md).
    let v = h.enq(invoice(&["TPQTIME_ABS"], 5, b"past")).await;
    assert_eq!(v["due_at"], T0 + 7200);
}

#[tokio::test]
async fn flag_tpqtime_rel_maps_to_r_hh_mm() {
    let h = harness();
    // mqgate (docs/tuxedo.md): minutes = ceil(seconds / 60); max R:24:00.
    for (secs, text, due) in [
        (59, "R:00:01", 60),
        (60, "R:00:01", 60),
        (3599, "R:01:00", 3600),
        (86400, "R:24:00", 86400),
    ] {
        let v = h.enq(invoice(&["TPQTIME_REL"], secs, b"rel")).await;
        ok(&v);
        assert_eq!(v["schedule_time"], text, "{secs} s");
        assert_eq!(v["due_at"], T0 + due, "{secs} s");
    }
    // The TEDG guide's error table: TPQTIME_REL with deq_time > 86400 → QMEINVAL.
    let v = h.enq(invoice(&["TPQTIME_REL"], 86401, b"rel")).await;
    diag(&v, "QMEINVAL", -1);
}

#[tokio::test]
async fn flag_tpnotran_puts_outside_the_callers_unit_of_work() {
    let h = harness();
    let (_, u) = h.call("POST", "/v1/uow", None).await;
    let uow = token(&u["uow"]);
    let mut body = invoice(&["TPNOTRAN"], 0, b"notran");
    body["uow"] = json!(uow);
    ok(&h.enq(body).await);
    // Visible (committed) before the caller's unit of work ends...
    let (st, _) = h
        .call(
            "GET",
            "/v1/queues/RTQ.BILLING_GROUP.BILLQ/messages/next?browse=true",
            None,
        )
        .await;
    assert_eq!(st, 200, "committed at once");
    // ...and kept after its backout.
    let (st, _) = h
        .call("POST", &format!("/v1/uow/{uow}/backout"), None)
        .await;
    assert_eq!(st, 200);
    let (st, r) = h.next("").await;
    assert_eq!(st, 200, "{r}");
    assert_eq!(request_data(&r), b"notran");
}

#[tokio::test]
async fn flag_tpqmsgid_returns_the_request_id_in_msgid() {
    let h = harness();
    let v = h.enq(invoice(&["TPQMSGID"], 0, b"id")).await;
    ok(&v);
    // mqgate (docs/tuxedo.md): request id in msgid bytes 0-15, bytes 16-31 zero.
    let msgid = v["msgid"].as_str().unwrap();
    assert_eq!(msgid.len(), 64);
    assert_eq!(&msgid[32..], "0".repeat(32));
    let rid = v["request_id"].as_str().unwrap();
    assert_eq!(msgid[..32].to_lowercase(), rid);
    let (_, r) = h.next("").await;
    assert_eq!(r["request"]["request_id"], rid);
    // Without TPQMSGID msgid stays empty.
    let v = h.enq(invoice(&[], 0, b"no id")).await;
    assert_eq!(v["msgid"], Value::Null);
}

#[tokio::test]
async fn flag_every_other_tpq_flag_is_qmeinval() {
    let h = harness();
    // The TEDG guide: "All other tpenqueue() option flags ... are not supported".
    for f in [
        "TPQTOP",
        "TPQBEFOREMSGID",
        "TPQPRIORITY",
        "TPQREPLYQ",
        "TPQFAILUREQ",
        "TPQCORRID",
        "TPQDELIVERYQOS",
        "TPQREPLYQOS",
        "TPQEXPTIME_ABS",
        "TPQEXPTIME_REL",
        "TPQEXPTIME_NEVER",
        "TPQOSDEFAULTPERSIST",
        "TPQOSPERSISTENT",
        "TPQOSNONPERSISTENT",
    ] {
        let v = h.enq(invoice(&[f], 0, b"x")).await;
        diag(&v, "QMEINVAL", -1);
        // The header spells TPQEXPTIME_NEVER as TPQEXPTIME_NONE (Tuxedo's `atmi.h`).
        let named = if f == "TPQEXPTIME_NEVER" {
            "TPQEXPTIME_NONE"
        } else {
            f
        };
        assert!(v["message"].as_str().unwrap().contains(named), "{f}: {v}");
    }
    assert_eq!(h.next("").await.0, 404, "nothing was queued");
}

// ---- the TEDG guide's error table ----

#[tokio::test]
async fn error_no_qspace_is_tpenoent() {
    let h = harness();
    let mut b = invoice(&[], 0, b"x");
    b["qspace"] = json!("NOSUCHQS");
    tperrno(&h.enq(b).await, "TPENOENT", 6);
}

#[tokio::test]
async fn error_rtq_service_stopped_is_tpenoent() {
    let h = harness();
    let (st, _) = h
        .call(
            "POST",
            &format!("/v1/rtq/{BG}/{BQ}/state"),
            Some(json!({"state": "stopped"})),
        )
        .await;
    assert_eq!(st, 200);
    let v = h.enq(invoice(&[], 0, b"x")).await;
    tperrno(&v, "TPENOENT", 6);
    assert!(v["message"].as_str().unwrap().contains("TP_SERVICE"), "{v}");
    let (_, list) = h.call("GET", "/v1/rtq", None).await;
    let q = list
        .as_array()
        .unwrap()
        .iter()
        .find(|q| q["group"] == BG)
        .unwrap();
    assert_eq!(q["state"], "stopped");
}

#[tokio::test]
async fn error_on_demand_connection_failure_is_tpenoent() {
    // The RTQ queue is not in the queue manager: it cannot be reached.
    let h = build(vec![], None, false);
    let v = h.enq(invoice(&[], 0, b"x")).await;
    tperrno(&v, "TPENOENT", 6);
    assert!(v["message"].as_str().unwrap().contains("on-demand"), "{v}");
}

#[tokio::test]
async fn error_encrypted_input_is_tpesystem() {
    let h = harness();
    let mut b = invoice(&[], 0, b"x");
    b["encrypted"] = json!(true);
    tperrno(&h.enq(b).await, "TPESYSTEM", 12);
}

#[tokio::test]
async fn error_signed_input_is_tpesystem() {
    let h = harness();
    let mut b = invoice(&[], 0, b"x");
    b["signed"] = json!(true);
    tperrno(&h.enq(b).await, "TPESYSTEM", 12);
}

#[tokio::test]
async fn error_no_qname_is_qmebadqueue() {
    let h = harness();
    let mut b = invoice(&[], 0, b"x");
    b["qname"] = json!("NOSUCHQN");
    diag(&h.enq(b).await, "QMEBADQUEUE", -10);
}

#[tokio::test]
async fn error_unsupported_flag_is_qmeinval() {
    let h = harness();
    diag(
        &h.enq(invoice(&["TPQPRIORITY", "TPQMSGID"], 0, b"x")).await,
        "QMEINVAL",
        -1,
    );
}

#[tokio::test]
async fn error_buffer_type_is_qmeinval() {
    let h = harness();
    // RAWDATA has INBUFTYPE="CARRAY": X_OCTET differs.
    let mut b = invoice(&[], 0, b"x");
    b["qname"] = json!("RAWDATA");
    b["buftype"] = json!("X_OCTET");
    diag(&h.enq(b.clone()).await, "QMEINVAL", -1);
    // A type the TEDG does not carry at all.
    b["qname"] = json!("INVOICE");
    b["buftype"] = json!("STRING");
    diag(&h.enq(b.clone()).await, "QMEINVAL", -1);
    b["buftype"] = json!("X_OCTET");
    ok(&h.enq(b).await);
}

#[tokio::test]
async fn error_buffer_above_30000_bytes_is_qmeinval() {
    let h = harness();
    // The TEDG guide: RTQ messages are limited to 30,000 bytes.
    ok(&h.enq(invoice(&[], 0, &[7u8; 30_000])).await);
    diag(
        &h.enq(invoice(&[], 0, &[7u8; 30_001])).await,
        "QMEINVAL",
        -1,
    );
    // FML32: the encoded, index-stripped size counts (mqgate's FML32 encoding,
    // docs/tuxedo.md): 24-byte header + field id 4 + carray lengths 8 + data padded to 4.
    // 24 + 4 + 8 + 29964 = 30000 bytes: accepted; one more data byte pads to 30004.
    for (len, accepted) in [(29_964, true), (29_965, false)] {
        let body = json!({"qspace": "BILLING", "qname": "INVOICE",
                          "fml32": {"NOTE": ["n".repeat(len)]}});
        let v = h.enq(body).await;
        if accepted {
            ok(&v);
        } else {
            diag(&v, "QMEINVAL", -1);
        }
    }
    // An fml32 body with another buffer type is refused.
    let bad = json!({"qspace": "BILLING", "qname": "INVOICE", "buftype": "CARRAY",
                     "fml32": {"NOTE": ["n"]}});
    let (st, v) = h.call("POST", "/v1/tux/tpenqueue", Some(bad)).await;
    assert_eq!(st, 400);
    tperrno(&v, "TPEINVAL", 4);
}

#[tokio::test]
async fn error_relative_time_above_86400_is_qmeinval() {
    let h = harness();
    diag(
        &h.enq(invoice(&["TPQTIME_REL"], 86_401, b"x")).await,
        "QMEINVAL",
        -1,
    );
}

#[tokio::test]
async fn error_rtq_no_space_and_eof_are_qmenospace() {
    // TP_RTQ_NO_SPACE: capacity 1; TP_RTQ_EOF: a request longer than the
    // queue file takes (max_request_bytes 16).
    let h = build(vec![queue_cfg(1, 16)], None, true);
    ok(&h.enq(invoice(&[], 0, b"first")).await);
    let v = h.enq(invoice(&[], 0, b"second")).await;
    diag(&v, "QMENOSPACE", -13);
    assert!(
        v["message"].as_str().unwrap().contains("TP_RTQ_NO_SPACE"),
        "{v}"
    );
    let v = h.enq(invoice(&[], 0, &[1u8; 17])).await;
    diag(&v, "QMENOSPACE", -13);
    assert!(v["message"].as_str().unwrap().contains("TP_RTQ_EOF"), "{v}");
}

#[tokio::test]
async fn error_rtq_qdisabled_is_qmesystem() {
    let h = harness();
    let path = format!("/v1/rtq/{BG}/{BQ}/state");
    h.call("POST", &path, Some(json!({"state": "disabled"})))
        .await;
    let v = h.enq(invoice(&[], 0, b"x")).await;
    diag(&v, "QMESYSTEM", -6);
    assert!(
        v["message"].as_str().unwrap().contains("TP_RTQ_QDISABLED"),
        "{v}"
    );
    h.call("POST", &path, Some(json!({"state": "enabled"})))
        .await;
    ok(&h.enq(invoice(&[], 0, b"x")).await);
}

#[tokio::test]
async fn error_rtq_error_is_qmesystem() {
    // The store fails: TP_RTQ_ERROR.
    let h = build(vec![], Some(Arc::new(FailingStore)), true);
    let v = h.enq(invoice(&[], 0, b"x")).await;
    diag(&v, "QMESYSTEM", -6);
    assert!(
        v["message"].as_str().unwrap().contains("TP_RTQ_ERROR"),
        "{v}"
    );
}

#[tokio::test]
async fn error_rtq_reset_is_qmesystem() {
    // The gateway is stopping: TP_RESET.
    let h = harness();
    h.qm.quiesce();
    let v = h.enq(invoice(&[], 0, b"x")).await;
    diag(&v, "QMESYSTEM", -6);
    assert!(v["message"].as_str().unwrap().contains("TP_RESET"), "{v}");
}

#[test]
fn rtq_codes_for_queue_manager_reasons() {
    // mqgate's definitions (docs/tuxedo.md "RTQ codes"); TP_RTQ_MEMERR has no
    // queue-manager trigger except 2071.
    assert_eq!(rtq_status_for(Mqrc::Q_FULL), Some(RtqStatus::RtqNoSpace));
    assert_eq!(
        rtq_status_for(Mqrc::MSG_TOO_BIG_FOR_Q),
        Some(RtqStatus::RtqEof)
    );
    assert_eq!(
        rtq_status_for(Mqrc::PUT_INHIBITED),
        Some(RtqStatus::RtqQDisabled)
    );
    assert_eq!(
        rtq_status_for(Mqrc::STORAGE_NOT_AVAILABLE),
        Some(RtqStatus::RtqMemErr)
    );
    assert_eq!(
        rtq_status_for(Mqrc::Q_MGR_QUIESCING),
        Some(RtqStatus::Reset)
    );
    assert_eq!(
        rtq_status_for(Mqrc::RESOURCE_PROBLEM),
        Some(RtqStatus::RtqError)
    );
    assert_eq!(rtq_status_for(Mqrc::UNKNOWN_OBJECT_NAME), None);
    // The TEDG guide's error table: TP_RTQ_MEMERR → TPEDIAGNOSTIC/QMESYSTEM (-6).
    let e = TedgFailure::Rtq(RtqStatus::RtqMemErr).tp_error();
    assert_eq!((e.tperrno.0, e.diagnostic.map(|d| d.0)), (24, Some(-6)));
}

// ---- scheduling, transactions, leases, FML32 ----

#[test]
fn due_and_not_due_without_sleeping() {
    let c = ManualClock::new(T0);
    let due_at = T0 + 60;
    assert!(!is_due(due_at, c.now_secs()));
    c.advance(59);
    assert!(!is_due(due_at, c.now_secs()));
    c.advance(1);
    assert!(is_due(due_at, c.now_secs()));
}

#[tokio::test]
async fn scheduled_request_is_available_only_when_due() {
    let h = harness();
    ok(&h.enq(invoice(&["TPQTIME_REL"], 60, b"later")).await);
    ok(&h.enq(invoice(&[], 0, b"now")).await);
    // The immediate one comes first although it was put second.
    let (st, r) = h.next("").await;
    assert_eq!(st, 200);
    assert_eq!(request_data(&r), b"now");
    assert_eq!(h.ack(&r["lease"]).await.0, 200);
    let (st, e) = h.next("wait_ms=50").await;
    assert_eq!(
        (st, e["mqrc"].as_i64()),
        (404, Some(2033)),
        "future request not due"
    );
    h.clock.advance(60);
    let (st, r) = h.next("").await;
    assert_eq!(st, 200, "{r}");
    assert_eq!(request_data(&r), b"later");
    assert_eq!(r["request"]["schedule_time"], "R:00:01");
    assert_eq!(h.ack(&r["lease"]).await.0, 200);
    assert_eq!(h.next("").await.0, 404);
}

#[tokio::test]
async fn transactional_put_commits_and_aborts_with_the_callers_unit_of_work() {
    let h = harness();
    for commit in [true, false] {
        let (_, u) = h.call("POST", "/v1/uow", None).await;
        let uow = token(&u["uow"]);
        let mut body = invoice(&[], 0, b"tx");
        body["uow"] = json!(uow);
        ok(&h.enq(body).await);
        assert_eq!(
            h.next("").await.0,
            404,
            "invisible before the unit of work ends"
        );
        let action = if commit { "commit" } else { "backout" };
        let (st, _) = h
            .call("POST", &format!("/v1/uow/{uow}/{action}"), None)
            .await;
        assert_eq!(st, 200);
        let (st, r) = h.next("").await;
        if commit {
            assert_eq!(st, 200, "{r}");
            assert_eq!(request_data(&r), b"tx");
            assert_eq!(h.ack(&r["lease"]).await.0, 200);
        } else {
            assert_eq!(st, 404, "aborted put is gone: {r}");
        }
    }
    // A unit of work that is not open cannot be joined.
    let mut body = invoice(&[], 0, b"tx");
    // A token no unit of work has (32 hex digits; src/qmgr/token.rs).
    body["uow"] = json!("0".repeat(32));
    tperrno(&h.enq(body).await, "TPETRAN", 14);
}

#[tokio::test]
async fn lease_backout_returns_the_request_and_ack_removes_it() {
    let h = harness();
    ok(&h.enq(invoice(&[], 0, b"job")).await);
    let (_, r) = h.next("").await;
    assert_eq!(r["backout_count"], 0);
    let (st, _) = h
        .call(
            "POST",
            &format!("/v1/rtq/{BG}/{BQ}/backout/{}", token(&r["lease"])),
            None,
        )
        .await;
    assert_eq!(st, 200);
    let (_, r) = h.next("").await;
    assert_eq!(r["backout_count"], 1);
    assert_eq!(h.ack(&r["lease"]).await.0, 200);
    assert_eq!(
        h.ack(&r["lease"]).await.0,
        409,
        "lease already acknowledged"
    );
    assert_eq!(h.next("").await.0, 404);
}

#[tokio::test]
async fn servers_take_requests_for_their_product_and_function() {
    let h = harness();
    ok(&h.enq(invoice(&[], 0, b"inv")).await);
    let mut raw = invoice(&[], 0, b"raw");
    raw["qname"] = json!("RAWDATA");
    ok(&h.enq(raw).await);
    let (st, r) = h.next("product=BILLAPP&function=RAWIN").await;
    assert_eq!(st, 200);
    assert_eq!(request_data(&r), b"raw");
    // The QNAME entry's TE_PRODUCT/TE_FUNCTION travel with the request (the TEDG
    // guide: the QNAME entry names the TOP END service).
    assert_eq!(r["request"]["product"], "BILLAPP");
    assert_eq!(r["request"]["function"], "RAWIN");
    assert_eq!(r["request"]["client_id"], "TEDG1");
    assert_eq!(h.next("function=RAWIN").await.0, 404);
}

#[tokio::test]
async fn fml32_json_round_trip_through_the_gateway() {
    let h = harness();
    let body = json!({"qspace": "ORDERS", "qname": "NEWORDER", "flags": ["TPQMSGID"],
        "fml32": {"ORDER_ID": [42, 43], "CUSTOMER": ["Smith"], "AMOUNT": [12.5], "FLAG": ["Y"]}});
    let v = h.enq(body).await;
    ok(&v);
    let (st, r) = h.call("GET", "/v1/rtq/ORDGRP/ORDQ/next", None).await;
    assert_eq!(st, 200, "{r}");
    assert_eq!(
        r["fml32"],
        json!({"ORDER_ID": [42, 43], "CUSTOMER": ["Smith"], "AMOUNT": [12.5], "FLAG": ["Y"]})
    );
    let req = &r["request"];
    assert_eq!(
        (
            &req["product"],
            &req["function"],
            &req["target"],
            &req["qualifier"],
            &req["queue_target"],
            &req["buftype"]
        ),
        (
            &json!("ORDERAPP"),
            &json!("NEWORD"),
            &json!("T1"),
            &json!(7),
            &json!("T1"),
            &json!("FML32")
        )
    );
    // fixtures/tuxedo/tedg_fields.fml: *base 100; ORDER_ID 1 long → 1 << 25 | 101
    // = 33554533; CUSTOMER 2 string → 5 << 25 | 102 = 167772262 (`fml32.h` field ids).
    let (buf, _) = Fml32Buffer::decode(&request_data(&r)).unwrap();
    assert_eq!(buf.get(FieldId(33_554_533), 1), Some(&FieldValue::Long(43)));
    assert_eq!(
        buf.get(FieldId(167_772_262), 0),
        Some(&FieldValue::String(b"Smith".to_vec()))
    );
    // A field the table does not have is an invalid argument.
    let bad = json!({"qspace": "ORDERS", "qname": "NEWORDER", "fml32": {"NOPE": [1]}});
    let (st, v) = h.call("POST", "/v1/tux/tpenqueue", Some(bad)).await;
    assert_eq!(st, 400);
    tperrno(&v, "TPEINVAL", 4);
}

#[tokio::test]
async fn unknown_flag_names_and_bad_json_are_tpeinval() {
    let h = harness();
    let (st, v) = h
        .call(
            "POST",
            "/v1/tux/tpenqueue",
            Some(invoice(&["TPQNOPE"], 0, b"x")),
        )
        .await;
    assert_eq!(st, 200);
    tperrno(&v, "TPEINVAL", 4);
    let (st, v) = h
        .call("POST", "/v1/tux/tpenqueue", Some(json!({"qspace": 1})))
        .await;
    assert_eq!(st, 400);
    tperrno(&v, "TPEINVAL", 4);
}

#[tokio::test]
async fn rtq_requests_are_queue_manager_messages() {
    let h = harness();
    let v = h.enq(invoice(&["TPQMSGID"], 0, b"x")).await;
    let (_, qs) = h.call("GET", "/v1/queues", None).await;
    let q = qs
        .as_array()
        .unwrap()
        .iter()
        .find(|q| q["name"] == "RTQ.BILLING_GROUP.BILLQ")
        .unwrap();
    assert_eq!(q["depth"], 1);
    // MsgId = request id + 8 zero bytes; Format MQGRTQ; persistent.
    let (_, m) = h
        .call(
            "GET",
            "/v1/queues/RTQ.BILLING_GROUP.BILLQ/messages/next?browse=true",
            None,
        )
        .await;
    let rid = v["request_id"].as_str().unwrap().to_uppercase();
    assert_eq!(m["md"]["MsgId"], format!("{rid}{}", "0".repeat(16)));
    assert_eq!(m["md"]["Format"], "MQGRTQ");
    assert_eq!(m["md"]["Persistence"], 1);
}

#[test]
fn load_refuses_bad_queue_settings_and_unnamed_queues() {
    let cfg = super::config::TedgConfig {
        field_tables: vec![],
        queues: vec![
            queue_cfg(0, 10),
            RtqQueueConfig {
                group: "NOGROUP".into(),
                ..queue_cfg(1, 1)
            },
        ],
    };
    let errors = load(Path::new(DM), &cfg).unwrap_err();
    assert_eq!(errors.len(), 2, "{errors:?}");
    assert!(errors[0].contains("capacity must be 1"), "{errors:?}");
    assert!(
        errors[1].contains("NOGROUP/BILLQ is named by no QSPACE"),
        "{errors:?}"
    );
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_waiting_server_wakes_on_a_new_request_and_when_one_falls_due() {
    let h = Arc::new(harness());
    // A new immediate request wakes the waiter.
    let h2 = Arc::clone(&h);
    let waiter = tokio::spawn(async move { h2.next("wait_ms=5000").await });
    tokio::time::sleep(Duration::from_millis(100)).await;
    ok(&h.enq(invoice(&[], 0, b"arrived")).await);
    let (st, r) = tokio::time::timeout(Duration::from_secs(3), waiter)
        .await
        .unwrap()
        .unwrap();
    assert_eq!(st, 200, "{r}");
    assert_eq!(request_data(&r), b"arrived");
    assert_eq!(h.ack(&r["lease"]).await.0, 200);
    // A waiter sees a scheduled request once the clock reaches its time.
    ok(&h.enq(invoice(&["TPQTIME_REL"], 600, b"due")).await);
    let h2 = Arc::clone(&h);
    let waiter = tokio::spawn(async move { h2.next("wait_ms=5000").await });
    tokio::time::sleep(Duration::from_millis(100)).await;
    assert!(!waiter.is_finished(), "not due yet");
    h.clock.advance(600);
    let (st, r) = tokio::time::timeout(Duration::from_secs(3), waiter)
        .await
        .unwrap()
        .unwrap();
    assert_eq!(st, 200, "{r}");
    assert_eq!(request_data(&r), b"due");
}

// ---- tester report on the gateway (defects found following docs/tuxedo.md) ----

impl H {
    /// A request with a raw body and an optional Content-Type.
    async fn raw(&self, path: &str, content_type: Option<&str>, body: Vec<u8>) -> (u16, Value) {
        let mut req = Request::builder().method("POST").uri(path);
        if let Some(ct) = content_type {
            req = req.header("content-type", ct);
        }
        let res = self
            .app
            .clone()
            .oneshot(req.body(Body::from(body)).unwrap())
            .await
            .unwrap();
        let st = res.status().as_u16();
        let bytes = axum::body::to_bytes(res.into_body(), usize::MAX)
            .await
            .unwrap();
        (st, serde_json::from_slice(&bytes).unwrap_or(Value::Null))
    }
}

#[tokio::test]
async fn oversized_tpenqueue_body_is_qmeinval_json_not_plain_413() {
    let h = harness();
    // The tester's 6.7 MB body: its buffer is far above the TEDG guide's 30,000-byte
    // RTQ limit → TPEDIAGNOSTIC (24) / QMEINVAL (-1), in the tpenqueue answer shape.
    let body = invoice(&[], 0, &vec![7u8; 5_000_000])
        .to_string()
        .into_bytes();
    assert!(body.len() > 6_600_000);
    let (st, v) = h
        .raw("/v1/tux/tpenqueue", Some("application/json"), body)
        .await;
    assert_eq!(st, 400, "{v}");
    diag(&v, "QMEINVAL", -1);
    assert!(
        v["message"].as_str().unwrap().contains("30000 bytes"),
        "{v}"
    );
    // Just under the limit, the body is read and the buffer is judged: a
    // 700,000-byte buffer (933,336 base64 bytes) is also QMEINVAL (the TEDG guide),
    // answered 200 like every Tuxedo error.
    let v = h.enq(invoice(&[], 0, &vec![7u8; 700_000])).await;
    diag(&v, "QMEINVAL", -1);
}

#[tokio::test]
async fn rtq_state_with_bad_json_or_no_content_type_is_a_json_error() {
    let h = harness();
    let path = format!("/v1/rtq/{BG}/{BQ}/state");
    // docs/http-api.md error shape {"mqrc", "reason", "message"}; 2004
    // MQRC_BUFFER_ERROR for a body that cannot be read (as the message put).
    for (ct, body) in [
        (Some("application/json"), b"{bad".to_vec()),
        (None, br#"{"state": "disabled"}"#.to_vec()),
    ] {
        let (st, v) = h.raw(&path, ct, body).await;
        assert_eq!(st, 400, "{v}");
        assert_eq!(v["mqrc"], 2004, "{v}");
        assert_eq!(v["reason"], "MQRC_BUFFER_ERROR", "{v}");
        assert!(v["message"].as_str().unwrap().contains("state"), "{v}");
    }
    // The good request still works.
    let (st, v) = h
        .raw(
            &path,
            Some("application/json"),
            br#"{"state": "disabled"}"#.to_vec(),
        )
        .await;
    assert_eq!((st, &v["state"]), (200, &json!("disabled")), "{v}");
}

#[tokio::test]
async fn closed_unit_of_work_is_tpetran_before_queue_full() {
    // capacity 1, filled: the put itself would be TP_RTQ_NO_SPACE (QMENOSPACE),
    // but a unit of work that is not open is refused first: TPETRAN (14,
    // `atmi.h`; tpenqueue(3c) TPETRAN; docs/tuxedo.md).
    let h = build(vec![queue_cfg(1, 30_000)], None, true);
    ok(&h.enq(invoice(&[], 0, b"fills the queue")).await);
    let mut body = invoice(&[], 0, b"tx");
    // Not even a token (earlier versions' numbers): not open either.
    body["uow"] = json!("999");
    let v = h.enq(body).await;
    tperrno(&v, "TPETRAN", 14);
    assert!(v["message"].as_str().unwrap().contains("999"), "{v}");
    // An open unit of work on the full queue is still QMENOSPACE (the TEDG guide's
    // error table: TP_RTQ_NO_SPACE).
    let (_, u) = h.call("POST", "/v1/uow", None).await;
    let mut body = invoice(&[], 0, b"tx");
    body["uow"] = u["uow"].clone();
    diag(&h.enq(body).await, "QMENOSPACE", -13);
    // The probe took nothing: the first request is still there.
    let (st, r) = h.next("").await;
    assert_eq!(st, 200, "{r}");
    assert_eq!(request_data(&r), b"fills the queue");
}

#[tokio::test]
async fn request_without_a_buffer_is_tpeinval() {
    let h = harness();
    // tpenqueue(3c): TPEINVAL for invalid arguments (no data buffer).
    let body = json!({"qspace": "BILLING", "qname": "INVOICE", "buftype": "CARRAY"});
    let (st, v) = h.call("POST", "/v1/tux/tpenqueue", Some(body)).await;
    assert_eq!(st, 400, "{v}");
    tperrno(&v, "TPEINVAL", 4);
    let m = v["message"].as_str().unwrap();
    assert!(m.contains("data_base64") && m.contains("fml32"), "{v}");
    assert_eq!(h.next("").await.0, 404, "nothing was enqueued");
    // An empty buffer given explicitly is a buffer (len 0).
    ok(&h.enq(invoice(&[], 0, b"")).await);
}

#[tokio::test]
async fn absolute_time_outside_year_0_to_9999_is_qmeinval() {
    let h = harness();
    // mqgate's rule (docs/tuxedo.md, codecs rtq::MAX_ABSOLUTE_SECONDS):
    // 0..=253402300799 (9999-12-31T23:59:59Z); outside → TPEDIAGNOSTIC/QMEINVAL
    // like the TEDG guide's out-of-range TPQTIME_REL.
    for t in [i64::MAX, 253_402_300_800, -1, i64::MIN] {
        let v = h.enq(invoice(&["TPQTIME_ABS"], t, b"x")).await;
        diag(&v, "QMEINVAL", -1);
        assert!(
            v["message"].as_str().unwrap().contains(&t.to_string()),
            "{v}"
        );
    }
    let v = h
        .enq(invoice(&["TPQTIME_ABS"], 253_402_300_799, b"x"))
        .await;
    ok(&v);
    assert_eq!(v["due_at"], 253_402_300_799_i64);
}

#[tokio::test]
async fn flag_messages_name_the_empty_or_refused_flag() {
    let h = harness();
    // `--flags ""` sends one empty name: TPEINVAL (4) saying so.
    let v = h.enq(invoice(&[""], 0, b"x")).await;
    tperrno(&v, "TPEINVAL", 4);
    let m = v["message"].as_str().unwrap();
    assert!(m.contains("empty tpenqueue flag name"), "{v}");
    assert!(!m.ends_with(": "), "{v}");
    // TPNOREPLY (0x4, `atmi.h`) is not a tpenqueue flag (tpenqueue(3c)):
    // TPEINVAL, and the message names it.
    let v = h.enq(invoice(&["TPNOREPLY"], 0, b"x")).await;
    tperrno(&v, "TPEINVAL", 4);
    assert!(v["message"].as_str().unwrap().contains("TPNOREPLY"), "{v}");
}

// ---- the queue interface: exits and waiting for a due request ----

/// How often the probe exit ran at each queue point.
#[derive(Default)]
struct ProbeCounts {
    before_put: std::sync::atomic::AtomicUsize,
    before_get: std::sync::atomic::AtomicUsize,
    after_get: std::sync::atomic::AtomicUsize,
}

impl ProbeCounts {
    fn get(&self) -> [usize; 3] {
        use std::sync::atomic::Ordering::SeqCst;
        [
            self.before_put.load(SeqCst),
            self.before_get.load(SeqCst),
            self.after_get.load(SeqCst),
        ]
    }
}

/// A test exit: counts its calls, appends `+put` to the data at before_put
/// and `+got` at after_get. The RTQ envelope ends with the client's buffer,
/// so both land at the end of the buffer the RTQ server gets.
struct Probe(Arc<ProbeCounts>);

impl mqgate_exits::Exit for Probe {
    fn call(
        &mut self,
        _ctx: &mut mqgate_exits::ExitContext<'_>,
        payload: mqgate_exits::Payload<'_>,
    ) -> mqgate_exits::ExitResponse {
        use mqgate_exits::Payload;
        use std::sync::atomic::Ordering::SeqCst;
        match payload {
            Payload::Put { data, .. } => {
                self.0.before_put.fetch_add(1, SeqCst);
                data.extend_from_slice(b"+put");
            }
            Payload::Get { .. } => {
                self.0.before_get.fetch_add(1, SeqCst);
            }
            Payload::Got { data, .. } => {
                self.0.after_get.fetch_add(1, SeqCst);
                data.extend_from_slice(b"+got");
            }
            _ => {}
        }
        mqgate_exits::ExitResponse::Ok
    }
}

/// A harness whose `exits:` section runs the probe at before_put, before_get
/// and after_get of the BILLING RTQ queue (named as the queue manager holds it).
fn probed() -> (H, Arc<ProbeCounts>) {
    let counts = Arc::new(ProbeCounts::default());
    let mut registry = mqgate_exits::ExitRegistry::with_builtins();
    let c = Arc::clone(&counts);
    registry.register(
        "rtq-probe",
        Arc::new(move |_, _| Ok(Box::new(Probe(Arc::clone(&c))) as Box<dyn mqgate_exits::Exit>)),
    );
    let exits = mqgate_exits::ExitsConfig::from_yaml_str(
        "queues:\n  RTQ.BILLING_GROUP.BILLQ:\n    before_put: [{exit: rtq-probe}]\n    before_get: [{exit: rtq-probe}]\n    after_get: [{exit: rtq-probe}]\n",
    )
    .unwrap();
    let h = build_with(Setup {
        create: true,
        exits: Some((exits, registry)),
        ..Setup::default()
    });
    (h, counts)
}

#[tokio::test]
async fn queue_exits_run_once_per_tpenqueue_and_per_rtq_get() {
    let (h, counts) = probed();
    ok(&h.enq(invoice(&[], 0, b"job")).await);
    assert_eq!(counts.get(), [1, 0, 0], "before_put once per tpenqueue");
    let (st, r) = h.next("").await;
    assert_eq!(st, 200, "{r}");
    // The RTQ server sees both exits' changes: before_put's in the stored
    // request, after_get's in the copy handed out.
    assert_eq!(request_data(&r), b"job+put+got");
    assert_eq!(
        counts.get(),
        [1, 1, 1],
        "before_get and after_get once per get"
    );
    assert_eq!(h.ack(&r["lease"]).await.0, 200);
    // A get that finds nothing runs before_get once and no after_get.
    assert_eq!(h.next("wait_ms=50").await.0, 404);
    assert_eq!(counts.get(), [1, 2, 1]);
    // A get that waits for a scheduled request still runs each exit once.
    ok(&h.enq(invoice(&["TPQTIME_REL"], 60, b"later")).await);
    let h = Arc::new(h);
    let h2 = Arc::clone(&h);
    let waiter = tokio::spawn(async move { h2.next("wait_ms=5000").await });
    tokio::time::sleep(Duration::from_millis(100)).await;
    h.clock.advance(60);
    let (st, r) = tokio::time::timeout(Duration::from_secs(3), waiter)
        .await
        .unwrap()
        .unwrap();
    assert_eq!(st, 200, "{r}");
    assert_eq!(request_data(&r), b"later+put+got");
    assert_eq!(counts.get(), [2, 3, 2]);
}

/// A clock that counts how often it is read: the RTQ filter reads it once
/// each time it looks at a request it would hand out, so the count is the
/// number of scans.
struct CountingClock<C> {
    inner: C,
    reads: std::sync::atomic::AtomicUsize,
}

impl<C: Clock> CountingClock<C> {
    fn new(inner: C) -> Self {
        CountingClock {
            inner,
            reads: Default::default(),
        }
    }

    fn reads(&self) -> usize {
        self.reads.load(std::sync::atomic::Ordering::SeqCst)
    }
}

impl<C: Clock> Clock for CountingClock<C> {
    fn now_secs(&self) -> i64 {
        self.reads.fetch_add(1, std::sync::atomic::Ordering::SeqCst);
        self.inner.now_secs()
    }
    fn now_ms(&self) -> i64 {
        self.reads.fetch_add(1, std::sync::atomic::Ordering::SeqCst);
        self.inner.now_ms()
    }
    fn changes(&self) -> Option<Arc<tokio::sync::Notify>> {
        self.inner.changes()
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_waiting_server_scans_once_and_again_only_when_the_clock_is_set() {
    let clock = Arc::new(CountingClock::new(ManualClock::new(T0)));
    let h = Arc::new(build_with(Setup {
        create: true,
        clock: Some(clock.clone()),
        ..Setup::default()
    }));
    ok(&h.enq(invoice(&["TPQTIME_REL"], 600, b"due")).await);
    let before = clock.reads();
    let h2 = Arc::clone(&h);
    let waiter = tokio::spawn(async move { h2.next("wait_ms=10000").await });
    // Long enough for two more scans if the waiter polled every 250 ms.
    tokio::time::sleep(Duration::from_millis(700)).await;
    assert!(!waiter.is_finished(), "not due yet");
    assert_eq!(
        clock.reads() - before,
        1,
        "one scan while waiting, no polling"
    );
    clock.inner.advance(600);
    let (st, r) = tokio::time::timeout(Duration::from_secs(3), waiter)
        .await
        .unwrap()
        .unwrap();
    assert_eq!(st, 200, "{r}");
    assert_eq!(request_data(&r), b"due");
    assert_eq!(
        clock.reads() - before,
        2,
        "one more scan when the clock moved"
    );
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_waiting_server_wakes_when_a_request_falls_due_on_the_system_clock() {
    let clock = Arc::new(CountingClock::new(clock::SystemClock));
    let h = build_with(Setup {
        create: true,
        clock: Some(clock.clone()),
        ..Setup::default()
    });
    // TPQTIME_ABS two whole seconds on (mqgate, docs/tuxedo.md: absolute
    // schedule = UNIX seconds): due in one to two seconds, so that the
    // server's first scan comes before it even on a loaded machine (a scan
    // that already finds it due would be the only one).
    let due_at = clock::SystemClock.now_secs() + 2;
    let v = h.enq(invoice(&["TPQTIME_ABS"], due_at, b"soon")).await;
    ok(&v);
    assert_eq!(v["due_at"], due_at);
    let before = clock.reads();
    let (st, r) = h.next("wait_ms=5000").await;
    let now_ms = clock::SystemClock.now_ms();
    assert_eq!(st, 200, "{r}");
    assert_eq!(request_data(&r), b"soon");
    // Not before its second, and promptly after it (well below the wait).
    assert!(now_ms >= due_at * 1000, "{now_ms} < {}", due_at * 1000);
    assert!(now_ms < due_at * 1000 + 500, "{now_ms} late");
    // One scan at the start, one when it fell due (and one more at most if
    // the timer fired a millisecond before the system clock reached it).
    let scans = clock.reads() - before;
    assert!((2..=3).contains(&scans), "{scans} scans");
}

#[tokio::test]
async fn a_before_put_exit_that_leaves_no_rtq_request_fails_the_tpenqueue() {
    // docs/tuxedo.md "Queue exits": rfh-properties puts an MQRFH2 in front of
    // the data (docs/exits.md), so what would be stored is no RTQ request.
    // It is refused (2110 MQRC_FORMAT_ERROR, src/tedg/guard.rs) rather than
    // stored where no RTQ server would ever see it: TP_RTQ_ERROR, which the
    // TEDG guide's error table gives as TPEDIAGNOSTIC/QMESYSTEM (-6).
    let exits = mqgate_exits::ExitsConfig::from_yaml_str(
        "queues:\n  RTQ.BILLING_GROUP.BILLQ:\n    before_put: [{exit: rfh-properties, data: \"rfh.A=1\"}]\n",
    )
    .unwrap();
    let h = build_with(Setup {
        create: true,
        exits: Some((exits, mqgate_exits::ExitRegistry::with_builtins())),
        ..Setup::default()
    });
    let v = h.enq(invoice(&[], 0, b"job")).await;
    diag(&v, "QMESYSTEM", -6);
    let m = v["message"].as_str().unwrap();
    assert!(m.contains("TP_RTQ_ERROR") && m.contains("MQGRTQ"), "{m}");
    assert_eq!(h.qm.depth("RTQ.BILLING_GROUP.BILLQ"), Some(0));
    // A raw HTTP queue put onto the RTQ queue: 400 / 2110.
    let req = Request::builder()
        .method("POST")
        .uri("/v1/queues/RTQ.ORDGRP.ORDQ/messages")
        .body(Body::from("raw"))
        .unwrap();
    let res = h.app.clone().oneshot(req).await.unwrap();
    assert_eq!(res.status().as_u16(), 400);
    let body = axum::body::to_bytes(res.into_body(), usize::MAX)
        .await
        .unwrap();
    let e: Value = serde_json::from_slice(&body).unwrap();
    assert_eq!(e["mqrc"], 2110, "{e}");
    assert!(
        e["message"]
            .as_str()
            .unwrap()
            .contains("RTQ queue of QSPACE ORDERS"),
        "{e}"
    );
    assert_eq!(h.qm.depth("RTQ.ORDGRP.ORDQ"), Some(0));
}

/// A group or queue that is no MQ name is 400 / 2152 MQRC_OBJECT_NAME_ERROR
/// naming the part, as the queue API answers a malformed queue name
/// (docs/tuxedo.md "HTTP"; docs/http-api.md "Errors"; IBM MQ "API reason
/// codes" 2152); a well-formed one no QSPACE has stays 404 / 2085.
#[tokio::test]
async fn rtq_names_that_are_no_mq_names_are_2152_not_2085() {
    let h = harness();
    for (method, path) in [
        ("GET", "/v1/rtq/BAD%20GROUP/Q/next"),
        ("POST", "/v1/rtq/G/BAD%20Q/state"),
        (
            "POST",
            "/v1/rtq/BAD%20GROUP/Q/ack/00000000000000000000000000000000",
        ),
    ] {
        let (st, v) = h
            .call(method, path, Some(serde_json::json!({"state": "enabled"})))
            .await;
        assert_eq!(
            (st, &v["mqrc"]),
            (400, &serde_json::json!(2152)),
            "{path}: {v}"
        );
        assert_eq!(v["reason"], "MQRC_OBJECT_NAME_ERROR", "{v}");
        let m = v["message"].as_str().unwrap();
        assert!(
            m.starts_with("RTQ group: ") || m.starts_with("RTQ queue: "),
            "{m}"
        );
        assert!(m.contains("has ' ' at position 3"), "{m}");
    }
    let (st, v) = h.call("GET", "/v1/rtq/NOGROUP/Q/next", None).await;
    assert_eq!((st, &v["mqrc"]), (404, &serde_json::json!(2085)), "{v}");
}

/// tpenqueue's body is JSON: a form-encoded one (or any other type, or none)
/// is refused with 415 / 2004 MQRC_BUFFER_ERROR naming the type, as `POST
/// /v1/messages` (RFC 9110 §15.5.16; docs/http-api.md "Errors";
/// docs/tuxedo.md), and nothing is queued.
#[tokio::test]
async fn tpenqueue_refuses_a_body_that_is_not_declared_json() {
    let h = harness();
    let body = invoice(&[], 0, b"form").to_string().into_bytes();
    let (st, v) = h
        .raw(
            "/v1/tux/tpenqueue",
            Some("application/x-www-form-urlencoded"),
            body.clone(),
        )
        .await;
    assert_eq!(st, 415, "{v}");
    assert_eq!(v["mqrc"], 2004, "{v}");
    assert_eq!(v["reason"], "MQRC_BUFFER_ERROR", "{v}");
    assert!(
        v["message"]
            .as_str()
            .unwrap()
            .contains("Content-Type \"application/x-www-form-urlencoded\" is not supported by POST /v1/tux/tpenqueue"),
        "{v}"
    );
    let (st, _) = h.raw("/v1/tux/tpenqueue", None, body.clone()).await;
    assert_eq!(st, 415);
    assert_eq!(h.next("").await.0, 404, "nothing was queued");
    // Declared JSON, the same body is queued.
    let (st, v) = h
        .raw("/v1/tux/tpenqueue", Some("application/json"), body)
        .await;
    assert_eq!(st, 200, "{v}");
}

// ---- fault tolerance (docs/tuxedo.md "Fault tolerance") ----

#[tokio::test]
async fn a_queue_space_of_a_fault_tolerance_role_is_served_only_while_held() {
    let role = Arc::new(QspaceRole::new(vec!["BILLING".into()]));
    let h = build_with(Setup {
        create: true,
        role: Some(Arc::clone(&role)),
        ..Setup::default()
    });
    // Not held: tpenqueue(3c) TPENOENT, "the qspace is not available"
    // (its TMQUEUE server is not), and nothing is put.
    let v = h.enq(invoice(&[], 0, b"standby")).await;
    tperrno(&v, "TPENOENT", 6);
    assert!(
        v["message"]
            .as_str()
            .unwrap()
            .contains("queue space BILLING"),
        "{v}"
    );
    assert_eq!(h.qm.depth(&qm_queue_name(BG, BQ)), Some(0));
    // RTQ servers take nothing from its RTQ queue: 2016 MQRC_GET_INHIBITED
    // (403, docs/http-api.md "Errors").
    let (st, e) = h.next("").await;
    assert_eq!((st, e["mqrc"].as_i64()), (403, Some(2016)), "{e}");
    // A queue space that is no role is served as ever.
    let order = json!({"qspace": "ORDERS", "qname": "NEWORDER", "fml32": {"ORDER_ID": [1]}});
    ok(&h.enq(order).await);
    // Held: served.
    role.set_held(true);
    ok(&h.enq(invoice(&[], 0, b"active")).await);
    let (st, r) = h.next("").await;
    assert_eq!(st, 200, "{r}");
    assert_eq!(request_data(&r), b"active");
    // Released again: refused again; the lease handed out is still settled.
    role.set_held(false);
    tperrno(&h.enq(invoice(&[], 0, b"x")).await, "TPENOENT", 6);
    assert_eq!(h.next("").await.0, 403);
    assert_eq!(h.ack(&r["lease"]).await.0, 200);
}

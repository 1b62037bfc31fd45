//! The RPC bridge on the queue interface, in process: before_put, before_get
//! and after_get run exactly once per message on a put-only, a get-only and a
//! request/reply call, and what a before_put exit changes is what the
//! consumer sees (docs/rpc.md "Exits": "Order per call: put → before_put,
//! put; get → before_get, get, after_get").

use super::error::{RpcError, RpcErrorKind};
use super::json::{params_from_json, record_to_json};
use super::service::RpcService;
use crate::config::{Config, RpcConfig};
use crate::mqi::{GetRequest, Mqi, Outgoing, QueueExits};
use crate::qmgr::{GetMode, PutOptions, QueueManager, Selector};
use crate::store::redb::RedbStore;
use mqgate_codecs::mq::constants::mt;
use mqgate_codecs::mq::{CharField, Charset, Mqmd, Mqrc};
use mqgate_exits::{Exit, ExitContext, ExitPoint, ExitReason, ExitRegistry, ExitResponse, Payload};
use serde_json::{Value, json};
use std::sync::Arc;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::time::Duration;

const QUEUES: &str = "
queue_manager:
  name: QM1
queues:
  - type: local
    name: RPC.REQUEST
  - type: local
    name: RPC.REPLY
  - type: local
    name: APP.QUEUE
";

/// `count` (a test exit, at every point) counts the message calls; the
/// built-in rfh-properties sets MQRFH pair H2 on every put (docs/exits.md).
const EXITS: &str = "
before_put:
  - exit: count
  - exit: rfh-properties
    data: \"rfh.H2=from-before-put\"
before_get:
  - exit: count
after_get:
  - exit: count
";

/// MQXR_MSG calls per queue point.
#[derive(Default)]
struct Counts {
    before_put: AtomicUsize,
    before_get: AtomicUsize,
    after_get: AtomicUsize,
}

impl Counts {
    /// (before_put, before_get, after_get) so far.
    fn now(&self) -> (usize, usize, usize) {
        (
            self.before_put.load(Ordering::SeqCst),
            self.before_get.load(Ordering::SeqCst),
            self.after_get.load(Ordering::SeqCst),
        )
    }
}

struct CountExit(Arc<Counts>);

impl Exit for CountExit {
    fn call(&mut self, ctx: &mut ExitContext<'_>, _payload: Payload<'_>) -> ExitResponse {
        if ctx.exit_reason == ExitReason::Msg {
            let counter = match ctx.exit_point {
                ExitPoint::BeforePut => &self.0.before_put,
                ExitPoint::BeforeGet => &self.0.before_get,
                ExitPoint::AfterGet => &self.0.after_get,
                _ => return ExitResponse::Ok,
            };
            counter.fetch_add(1, Ordering::SeqCst);
        }
        ExitResponse::Ok
    }
}

struct Bridge {
    _dir: tempfile::TempDir,
    /// The queue interface without exits: the test's own responder.
    plain: Mqi,
    svc: Arc<RpcService>,
    counts: Arc<Counts>,
}

fn bridge() -> Bridge {
    let dir = tempfile::tempdir().unwrap();
    let config = Config::from_yaml(QUEUES, "test").unwrap();
    let store = Arc::new(RedbStore::open(dir.path()).unwrap());
    let qm = Arc::new(QueueManager::open(&config, store).unwrap());
    let plain = Mqi::new(qm, Arc::new(QueueExits::new(&config.exits, "QM1")));
    let rpc = RpcConfig {
        idl_files: vec![concat!(env!("CARGO_MANIFEST_DIR"), "/fixtures/rpc/demo.idl").into()],
        output_queue: "RPC.REQUEST".into(),
        input_queue: "RPC.REPLY".into(),
        wait_interval_ms: 5000,
        exits: serde_yaml::from_str(EXITS).unwrap(),
        ..RpcConfig::default()
    };
    let counts = Arc::new(Counts::default());
    let mut registry = ExitRegistry::with_builtins();
    let c = Arc::clone(&counts);
    registry.register(
        "count",
        Arc::new(move |_, _| Ok(Box::new(CountExit(Arc::clone(&c))) as Box<dyn Exit>)),
    );
    let svc = RpcService::start_with(&plain, &rpc, &registry).unwrap();
    Bridge {
        _dir: dir,
        plain,
        svc,
        counts,
    }
}

/// Calls DEMO/`program` outside a conversation; the answer as the HTTP
/// route gives it, or the error.
async fn call(b: &Bridge, program: &str, params: Value) -> Result<Value, RpcError> {
    let prog = b.svc.programs().find("DEMO", program).unwrap();
    let Value::Object(map) = params else {
        panic!("params must be an object")
    };
    let values = params_from_json(&prog, &map)?;
    let out = b.svc.call("DEMO", program, values, None, None).await?;
    Ok(record_to_json(&out))
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn queue_points_run_once_per_message_and_their_changes_reach_the_consumer() {
    let b = bridge();

    // Put only (SEND): one before_put, no get exits.
    let sent = call(
        &b,
        "SEND",
        json!({"MQ_QUEUE_NAME": "APP.QUEUE", "MQ_RFH_H1": "v1", "TEXT": "t"}),
    )
    .await
    .unwrap();
    assert_eq!(sent["MQ_CORREL_ID"].as_str().map(str::len), Some(48));
    assert_eq!(b.counts.now(), (1, 0, 0));

    // Get only (RECEIVE): one before_get, one after_get; the pair the
    // before_put exit set is in what the consumer reads.
    let got = call(
        &b,
        "RECEIVE",
        json!({"MQ_QUEUE_NAME": "APP.QUEUE", "MQ_WAIT_INTERVAL": "0"}),
    )
    .await
    .unwrap();
    assert_eq!(got["MQ_RFH_H1"], "v1");
    assert_eq!(got["MQ_RFH_H2"], "from-before-put");
    assert_eq!(got["TEXT"], "t");
    assert_eq!(b.counts.now(), (1, 1, 1));

    // A get that finds nothing ran before_get only (no message, no after_get).
    let none = call(
        &b,
        "RECEIVE",
        json!({"MQ_QUEUE_NAME": "APP.QUEUE", "MQ_WAIT_INTERVAL": "0"}),
    )
    .await
    .unwrap_err();
    assert_eq!(none.kind, RpcErrorKind::NoMessage);
    assert_eq!(none.mqrc, Mqrc::NO_MSG_AVAILABLE);
    assert_eq!(b.counts.now(), (1, 2, 1));

    // Request/reply (CALC): one before_put for the request, one before_get
    // and one after_get for the reply. The responder gets the request
    // through the queue interface without exits.
    let plain = b.plain.clone();
    let responder = tokio::spawn(async move {
        let obj = plain.open("RPC.REQUEST", "").unwrap();
        let req = GetRequest {
            selector: Selector::default(),
            wait: Duration::from_secs(10),
            max_wait: Duration::from_secs(10),
        };
        let got = plain
            .get(&obj, req, GetMode::Destructive { uow: None })
            .await
            .unwrap()
            .message;
        let reply_md = Mqmd {
            correl_id: got.md.correl_id,
            format: CharField::new("MQSTR", Charset::Ascii).unwrap(),
            coded_char_set_id: 1208,
            msg_type: mt::REPLY,
            ..Mqmd::default()
        };
        let reply_q = got.md.reply_to_q.text(Charset::Ascii);
        let out = plain.open(reply_q.trim_end(), "").unwrap();
        let reply = Outgoing {
            md: reply_md,
            charset: Charset::Ascii,
            data: b"+0000000042".to_vec().into(),
        };
        let opts = PutOptions {
            new_msg_id: true,
            ..PutOptions::default()
        };
        plain.put(&out, reply, opts).await.unwrap();
        got
    });
    let answer = call(
        &b,
        "CALC",
        json!({"OPERATOR": "+", "LEFT": 12, "RIGHT": 30}),
    )
    .await
    .unwrap();
    let request = responder.await.unwrap();
    assert_eq!(answer["RESULT"], 42);
    assert_eq!(b.counts.now(), (2, 3, 2));
    // What before_put left is what the responder got: an MQRFH (Format
    // MQHRF, IBM MQ "MQRFH - Rules and formatting header") carrying H2, before CALC's
    // request text OPERATOR (A1) LEFT (I4) RIGHT (I4) (EntireX "Mapping RPC Data to the
    // MQ Message Buffer").
    assert_eq!(request.md.format.text(Charset::Ascii).trim_end(), "MQHRF");
    assert_eq!(&request.data[..4], b"RFH ");
    assert!(
        request
            .data
            .windows(b"from-before-put".len())
            .any(|w| w == b"from-before-put")
    );
    assert!(request.data.ends_with(b"++0000000012+0000000030"));
    // The responder's own queue interface ran no RPC exit.
    assert_eq!(b.counts.now(), (2, 3, 2));
}

/// An exit chain that cannot be built fails the start, naming `rpc.exits`
/// and the exit: `count` is no built-in outside the test registry.
#[test]
fn an_exit_that_cannot_be_built_fails_the_start() {
    let dir = tempfile::tempdir().unwrap();
    let config = Config::from_yaml(QUEUES, "test").unwrap();
    let store = Arc::new(RedbStore::open(dir.path()).unwrap());
    let qm = Arc::new(QueueManager::open(&config, store).unwrap());
    let mqi = Mqi::new(qm, Arc::new(QueueExits::new(&config.exits, "QM1")));
    let rpc = RpcConfig {
        exits: serde_yaml::from_str(EXITS).unwrap(),
        ..RpcConfig::default()
    };
    let err = match RpcService::start(&mqi, &rpc) {
        Ok(_) => panic!("an unknown built-in exit must be refused"),
        Err(e) => e,
    };
    assert!(err.starts_with("rpc.exits: "), "{err}");
    assert!(err.contains("\"count\""), "{err}");
}

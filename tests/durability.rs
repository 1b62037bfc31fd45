//! kill -9 of the gateway: persistent messages whose put returned are there after a
//! restart; non-persistent ones and uncommitted units of work are not.

mod common;

use common::{Gateway, data};

const CONFIG: &str = "
queue_manager:
  name: QMDURABLE
http:
  uow_timeout_ms: 60000
queues:
  - type: local
    name: APP.IN
  - type: local
    name: APP.OUT
  - type: model
    name: DEVICE.MODEL
    dynamic_q_name: DEVICE.*
    default_persistence: persistent
";

#[test]
fn kill_9_keeps_persistent_messages_and_backs_out_open_work() {
    let dir = tempfile::tempdir().unwrap();
    let mut g = Gateway::start(dir.path(), CONFIG);
    let (st, p) = g.put("APP.IN", "persistent=true&priority=4", b"persistent");
    assert_eq!(st, 201);
    let msg_id = p["msg_id"].clone();
    assert_eq!(
        g.put("APP.IN", "persistent=false", b"not persistent").0,
        201
    );
    // A dynamic device queue, persistent by its model's DEFPSIST.
    assert_eq!(g.put("DEVICE.T100", "", b"for the device").0, 201);
    assert_eq!(
        g.put("APP.OUT", "persistent=true", b"got in an open unit")
            .0,
        201
    );

    // An open unit of work: a persistent put and a get, never committed.
    let (_, u) = g.call("POST", "/v1/uow", None);
    let uow = common::token(&u["uow"]).to_string();
    assert_eq!(
        g.put(
            "APP.IN",
            &format!("uow={uow}&persistent=true"),
            b"uncommitted"
        )
        .0,
        201
    );
    let (st, m) = g.next("APP.OUT", &format!("uow={uow}"));
    assert_eq!((st, data(&m)), (200, b"got in an open unit".to_vec()));
    // And an unacknowledged lease.
    assert_eq!(g.put("APP.OUT", "persistent=true", b"leased").0, 201);
    let (st, leased) = g.next("APP.OUT", "");
    assert_eq!((st, data(&leased)), (200, b"leased".to_vec()));

    g.kill9_and_restart();

    let (st, m) = g.get_ack("APP.IN", "");
    assert_eq!(st, 200);
    assert_eq!(data(&m), b"persistent");
    assert_eq!(m["md"]["MsgId"], msg_id);
    assert_eq!(m["md"]["Priority"], 4);
    // The non-persistent message and the uncommitted put are gone.
    let (st, e) = g.next("APP.IN", "");
    assert_eq!((st, e["mqrc"].as_i64()), (404, Some(2033)));
    // The uncommitted get was backed out: the message is back.
    assert_eq!(g.depth("APP.OUT"), 2);
    let (_, m) = g.get_ack("APP.OUT", "");
    assert_eq!(data(&m), b"got in an open unit");
    assert_eq!(data(&g.get_ack("APP.OUT", "").1), b"leased");
    // The dynamic queue came back with its message.
    assert_eq!(data(&g.get_ack("DEVICE.T100", "").1), b"for the device");

    // Acknowledged gets are durable too: nothing comes back after another kill -9.
    g.kill9_and_restart();
    assert_eq!(g.depth("APP.IN"), 0);
    assert_eq!(g.depth("APP.OUT"), 0);
}

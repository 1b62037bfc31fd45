//! Queue-manager properties on top of a store: what a restart (a crash, as
//! far as the store can tell: nothing is written when the queue manager is
//! dropped) leaves of leases, committed gets and backouts.

use crate::config::Config;
use crate::qmgr::{GetMode, GetResult, PutOptions, QmError, QueueManager, Selector};
use crate::store::Store;
use bytes::Bytes;
use mqgate_codecs::mq::constants::per;
use mqgate_codecs::mq::{Charset, Mqmd};
use std::path::Path;
use std::sync::Arc;
use std::time::Duration;

/// Two plain local queues.
const CONFIG: &str = "
queue_manager:
  name: QMCONF
queues:
  - type: local
    name: Q
  - type: local
    name: R
";

/// A queue manager over `store` with queues Q and R.
pub(super) fn queue_manager(store: Arc<dyn Store>) -> Arc<QueueManager> {
    let config = Config::from_yaml(CONFIG, "conformance").expect("the suite's configuration");
    let qm = QueueManager::open(&config, store).unwrap_or_else(|e| panic!("open: {e}"));
    Arc::new(qm)
}

/// Puts `data` on `q` (persistent or not, under `uow` or not); its MsgId.
pub(super) fn put(
    qm: &QueueManager,
    q: &str,
    data: &str,
    persistent: bool,
    uow: Option<u64>,
) -> Result<[u8; 24], QmError> {
    let md = Mqmd {
        persistence: if persistent {
            per::PERSISTENT
        } else {
            per::NOT_PERSISTENT
        },
        ..Mqmd::default()
    };
    let opts = PutOptions {
        uow,
        ..PutOptions::default()
    };
    let bytes = Bytes::copy_from_slice(data.as_bytes());
    qm.put(q, md, Charset::Ascii, bytes, &opts)
        .map(|r| r.msg_id)
}

/// A destructive get of the first message of `q`, under `uow` or not.
pub(super) fn get(qm: &QueueManager, q: &str, uow: Option<u64>) -> Result<GetResult, QmError> {
    qm.get(q, &Selector::default(), GetMode::Destructive { uow })
}

/// The available messages of `q` in get order, by browsing: (data,
/// BackoutCount, MsgId).
pub(super) fn browse_all(qm: &QueueManager, q: &str) -> Vec<(String, i32, [u8; 24])> {
    let mut out = Vec::new();
    let mut after = None;
    while let Ok(m) = qm.get(q, &Selector::default(), GetMode::Browse { after }) {
        after = Some(m.position);
        out.push((
            String::from_utf8_lossy(&m.data).into_owned(),
            m.md.backout_count,
            m.md.msg_id,
        ));
    }
    out
}

/// (data, BackoutCount) of the available messages of `q`, in get order.
pub(super) fn contents(qm: &QueueManager, q: &str) -> Vec<(String, i32)> {
    browse_all(qm, q)
        .into_iter()
        .map(|(d, bc, _)| (d, bc))
        .collect()
}

fn owned(want: &[(&str, i32)]) -> Vec<(String, i32)> {
    want.iter().map(|(d, bc)| (d.to_string(), *bc)).collect()
}

/// A lease (a destructive get under a unit of work with a timeout, never
/// acknowledged) is back on its queue after a restart, in its place, with
/// its MsgId and nothing lost; a committed get stays gone; BackoutCount
/// stored by two backouts survives; an uncommitted put and a non-persistent
/// message do not. Then a get committed after the restart stays gone after
/// another one.
///
/// BackoutCount of the lease's message is 0 after the restart: mqgate stores
/// BackoutCount when a unit of work is backed out, not at the get (IBM MQ
/// documentation, "HardenGetBackout (MQLONG)": without hardening, the count
/// may be lower after a restart).
///
/// The lease itself does not survive, only its message: the token that
/// named it (src/qmgr/token.rs) names nothing after the restart, so a client
/// of the earlier run can never reach a lease of the new one
/// (docs/http-api.md "Tokens").
pub fn leases_and_backouts_survive_a_restart<F: Fn(&Path) -> Arc<dyn Store>>(open: F) {
    let dir = tempfile::tempdir().expect("temporary directory");
    let ids: Vec<[u8; 24]>;
    let lease_token;
    {
        // The lease's timer task holds the queue manager until the runtime goes.
        let rt = tokio::runtime::Builder::new_current_thread()
            .enable_all()
            .build()
            .expect("runtime");
        let guard = rt.enter();
        let qm = queue_manager(open(dir.path()));
        ids = ["A", "B", "C", "D"]
            .iter()
            .map(|d| put(&qm, "Q", d, true, None).expect("put"))
            .collect();
        put(&qm, "Q", "not persistent", false, None).expect("put");
        let (lease, token) = qm
            .begin_uow_token(Some(Duration::from_secs(600)), Some("Q".into()))
            .expect("lease");
        lease_token = token;
        assert_eq!(get(&qm, "Q", Some(lease)).expect("lease get").data, "A");
        let uow = qm.begin_uow(None, None).expect("begin");
        assert_eq!(get(&qm, "Q", Some(uow)).expect("get").data, "B");
        qm.commit(uow).expect("commit");
        for _ in 0..2 {
            let uow = qm.begin_uow(None, None).expect("begin");
            assert_eq!(get(&qm, "Q", Some(uow)).expect("get").data, "C");
            qm.backout(uow).expect("backout");
        }
        let uow = qm.begin_uow(None, None).expect("begin");
        put(&qm, "Q", "uncommitted", true, Some(uow)).expect("put under a unit of work");
        // The lease, the uncommitted put and the non-persistent message are
        // in memory only; C shows the backouts.
        assert_eq!(
            contents(&qm, "Q"),
            owned(&[("C", 2), ("D", 0), ("not persistent", 0)])
        );
        drop(qm);
        drop(guard);
        drop(rt);
    }
    {
        let qm = queue_manager(open(dir.path()));
        let after = browse_all(&qm, "Q");
        let want = vec![
            ("A".to_string(), 0, ids[0]),
            ("C".to_string(), 2, ids[2]),
            ("D".to_string(), 0, ids[3]),
        ];
        assert_eq!(after, want, "after the restart");
        assert_eq!(qm.depth("Q"), Some(3));
        assert_eq!(qm.token_uow(&lease_token), None, "the lease's token");
        let uow = qm.begin_uow(None, None).expect("begin");
        assert_eq!(get(&qm, "Q", Some(uow)).expect("get").data, "A");
        qm.commit(uow).expect("commit");
    }
    let qm = queue_manager(open(dir.path()));
    assert_eq!(
        contents(&qm, "Q"),
        owned(&[("C", 2), ("D", 0)]),
        "after the second restart"
    );
}

//! Batch sizes at the server's atomic batch limit: the default
//! `jetstream.limits.batch.max_msgs` of nats-server is 1000 messages per
//! batch ("JetStream configuration", limits.batch), the owner record
//! included (src/store/jetstream/publish.rs).

use super::JetStreamStore;
use super::conformance_tests::options;
use super::test_server::{Server, binary};
use crate::store::{Batch, Store, StoreError};

fn puts(n: u64) -> Batch {
    Batch {
        puts: (1..=n).map(|k| (k, k.to_be_bytes().to_vec())).collect(),
        ..Batch::default()
    }
}

#[test]
fn a_batch_of_1000_messages_is_applied_and_a_larger_one_refused_before_sending() {
    let Some(program) = binary() else { return };
    let server = Server::start(&program);
    let store = JetStreamStore::open(&options(&server.url, &server.monitor, "B"))
        .unwrap_or_else(|e| panic!("{e}"));
    // 999 records and the owner record: 1000 messages, acknowledged every
    // 64 on the way.
    store.apply(&puts(999)).expect("999 records");
    let loaded = store.load().expect("load");
    assert_eq!(loaded.len(), 999);
    assert_eq!(loaded[998], (999, 999u64.to_be_bytes().to_vec()));
    let e = store.apply(&puts(1000)).expect_err("1001 messages");
    assert!(matches!(e, StoreError::Refused { .. }), "{e:?}");
    assert_eq!(
        e.to_string(),
        "store: apply: the batch needs 1001 messages; an atomic batch holds at most 1000"
    );
    // Nothing of it: record 1000 is absent, and the store goes on.
    assert_eq!(store.read(1000).expect("read"), None);
    store.apply(&puts(1)).expect("the next batch");
}

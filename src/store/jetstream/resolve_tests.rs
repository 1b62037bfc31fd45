//! Settling a commit that got no answer (docs/cluster.md "A commit without
//! an answer"): a batch that was stored is found by its owner record; one
//! that was not is fenced off, so that its commit arriving late fails.

use super::conformance_tests::options;
use super::plan::Outgoing;
use super::test_server::{Server, binary};
use super::{JetStreamStore, publish};
use crate::store::{Batch, Store};

fn put(key: u64) -> Batch {
    Batch {
        puts: vec![(key, format!("record {key}").into_bytes())],
        ..Batch::default()
    }
}

#[test]
fn a_stored_batch_is_found_and_an_unstored_one_can_never_land() {
    let Some(program) = binary() else { return };
    let server = Server::start(&program);
    let store = JetStreamStore::open(&options(&server.url, &server.monitor, "V"))
        .unwrap_or_else(|e| panic!("{e}"));
    let before = store.writer.read().expect("writer").lock_seq;
    store.apply(&put(1)).expect("apply");
    let id = format!("{}-1", store.owner_tag);
    let after = store.writer.read().expect("writer").lock_seq;
    {
        // As if batch 1's acknowledgement had been lost: it is found.
        let mut w = store.writer.write().expect("writer");
        assert!(
            store.resolve(&mut w, &id, before).expect("resolve"),
            "stored"
        );
        assert_eq!(w.lock_seq, after);
        // A batch whose commit never arrived: fenced off.
        let stale = w.lock_seq;
        let lost = format!("{}-99", store.owner_tag);
        assert!(
            !store.resolve(&mut w, &lost, stale).expect("resolve"),
            "not stored"
        );
        assert!(w.lock_seq > stale);
        // Its commit arriving now fails on the owner record's sequence
        // (JetStream err_code 10071, wrong last sequence), stores nothing.
        let (c, lock, record) = (
            store.client.clone(),
            store.subjects.lock(),
            store.owner_record.clone(),
        );
        let late = vec![Outgoing {
            subject: store.subjects.record(2),
            headers: Vec::new(),
            payload: bytes::Bytes::from_static(b"late"),
        }];
        let outcome = store
            .bridge
            .run("late commit", async move {
                publish::publish(&c, &lost, late, lock, record, stale).await
            })
            .expect("run");
        assert!(
            matches!(outcome, Err(publish::Failed::LostOwner(ref e)) if e.contains("10071")),
            "{outcome:?}"
        );
    }
    // The next apply settles an unsettled batch first: batch 2 as if its
    // acknowledgement had been lost.
    let before = store.writer.read().expect("writer").lock_seq;
    store.apply(&put(3)).expect("apply");
    let id = format!("{}-2", store.owner_tag);
    store.writer.write().expect("writer").unresolved = Some((id, before));
    store.apply(&put(4)).expect("apply after settling");
    assert_eq!(store.writer.read().expect("writer").unresolved, None);
    let keys: Vec<u64> = store
        .load()
        .expect("load")
        .into_iter()
        .map(|(k, _)| k)
        .collect();
    assert_eq!(keys, vec![1, 3, 4]);
}

//! Two gateways' stores on one shared stream (docs/cluster.md "Several
//! gateways on one stream"), against a real nats-server: member numbers,
//! each other's changes through the tail, claims by compare-and-set
//! released in the batch that removes the record, and named state records
//! written by compare-and-set.

use super::JetStreamStore;
use super::conformance_tests::options;
use super::test_server::{Server, binary};
use crate::store::nats_config::NatsStorage;
use crate::store::{Batch, Change, Claim, Store, StoreError};
use std::sync::mpsc::Receiver;
use std::time::{Duration, Instant};

fn shared(url: &str, monitor: &str, prefix: &str, ttl_ms: u64) -> NatsStorage {
    NatsStorage {
        shared: true,
        claim_ttl_ms: ttl_ms,
        ..options(url, monitor, prefix)
    }
}

fn open(o: &NatsStorage) -> JetStreamStore {
    JetStreamStore::open(o).unwrap_or_else(|e| panic!("{e}"))
}

/// The next change (not mere progress) within 10 s.
fn next_change(rx: &Receiver<(u64, Option<Change>)>) -> Change {
    let t = Instant::now();
    loop {
        let left = Duration::from_secs(10).saturating_sub(t.elapsed());
        match rx.recv_timeout(left) {
            Ok((_, Some(c))) => return c,
            Ok((_, None)) => {}
            Err(e) => panic!("no change within 10 s: {e}"),
        }
    }
}

#[test]
fn two_members_see_each_others_records_and_claim_each_record_once() {
    let Some(program) = binary() else { return };
    let server = Server::start(&program);
    let o = shared(&server.url, &server.monitor, "SH", 2000);
    let a = open(&o);
    let b = open(&o);
    let (sa, sb) = (a.shared().unwrap(), b.shared().unwrap());
    // Members take the lowest free numbers, 0 then 1.
    assert_eq!((sa.member(), sb.member()), (0, 1));
    let tail_b = sb.follow().unwrap();
    // Keys of member 0 and 1 (low bits, MEMBER_BITS = 10).
    let (ka, kb) = ((5 << 10), (5 << 10) | 1);
    a.apply(&Batch {
        puts: vec![(ka, b"from a".to_vec())],
        summaries: vec![(ka, vec![0xA])],
        ..Batch::default()
    })
    .unwrap();
    assert_eq!(
        next_change(&tail_b),
        Change::Put {
            key: ka,
            summary: vec![0xA]
        }
    );
    assert_eq!(b.read(ka).unwrap().as_deref(), Some(&b"from a"[..]));
    // One claim wins; the other gateway is told it is taken.
    assert_eq!(sa.claim(ka).unwrap(), Claim::Held);
    assert!(sa.holds(ka));
    assert_eq!(sb.claim(ka).unwrap(), Claim::Taken { remaining_ms: 2000 });
    assert_eq!(
        next_change(&tail_b),
        Change::Claimed {
            key: ka,
            summary: vec![0xA],
            ttl_ms: 2000
        }
    );
    // The delete releases the claim in the same batch.
    a.apply(&Batch {
        deletes: vec![ka],
        ..Batch::default()
    })
    .unwrap();
    assert!(!sa.holds(ka));
    // The claim's release in the same batch is no news: the message is
    // gone.
    assert_eq!(
        next_change(&tail_b),
        Change::Delete {
            key: ka,
            summary: vec![0xA]
        }
    );
    // A claim that expires (Nats-TTL 2 s) frees the record for the other.
    b.apply(&Batch {
        puts: vec![(kb, b"from b".to_vec())],
        summaries: vec![(kb, vec![0xB])],
        ..Batch::default()
    })
    .unwrap();
    assert_eq!(sa.claim(kb).unwrap(), Claim::Held);
    drop(a);
    let t = Instant::now();
    while sb.claim(kb).unwrap() != Claim::Held {
        assert!(t.elapsed() < Duration::from_secs(10), "claim never expired");
        std::thread::sleep(Duration::from_millis(200));
    }
    assert!(
        t.elapsed() >= Duration::from_millis(500),
        "the claim was free before its TTL"
    );
    // Member 0 is free again: a new gateway takes it.
    let c = open(&o);
    assert_eq!(c.shared().unwrap().member(), 0);
}

#[test]
fn a_named_record_written_by_another_member_since_it_was_read_conflicts() {
    let Some(program) = binary() else { return };
    let server = Server::start(&program);
    let o = shared(&server.url, &server.monitor, "SM", 30_000);
    let a = open(&o);
    let b = open(&o);
    let seq = |n: u64| Batch {
        meta: vec![(
            "channel/C/last_committed_seq".into(),
            n.to_be_bytes().to_vec(),
        )],
        ..Batch::default()
    };
    a.apply(&seq(1)).unwrap();
    // B reads 1, A writes 2 and 3 (its own writes need no read between),
    // B's write of 2 expects the version it read: refused, nothing applied.
    assert_eq!(b.load_meta().unwrap()[0].1, 1u64.to_be_bytes());
    a.apply(&seq(2)).unwrap();
    a.apply(&seq(3)).unwrap();
    let e = b
        .apply(&Batch {
            puts: vec![(1 << 10 | 1, b"m".to_vec())],
            ..seq(2)
        })
        .unwrap_err();
    assert!(matches!(e, StoreError::Conflict { .. }), "{e}");
    assert_eq!(b.read(1 << 10 | 1).unwrap(), None);
    // Read again, B's next write goes through.
    assert_eq!(b.load_meta().unwrap()[0].1, 3u64.to_be_bytes());
    b.apply(&seq(4)).unwrap();
    assert_eq!(a.load_meta().unwrap()[0].1, 4u64.to_be_bytes());
}

#[test]
fn a_gateway_alone_and_shared_gateways_exclude_each_other() {
    let Some(program) = binary() else { return };
    let server = Server::start(&program);
    let alone = options(&server.url, &server.monitor, "SX");
    let together = shared(&server.url, &server.monitor, "SX", 30_000);
    let first = open(&alone);
    let e = JetStreamStore::open(&together).err().expect("refused");
    assert!(e.to_string().contains("without storage.shared"), "{e}");
    drop(first);
    let member = open(&together);
    let e = JetStreamStore::open(&alone).err().expect("refused");
    assert!(e.to_string().contains("several gateways share it"), "{e}");
    drop(member);
    // With no member left, a gateway alone takes the stream again.
    open(&alone);
}

#[test]
fn an_acknowledgement_after_the_claim_was_lost_applies_nothing() {
    let Some(program) = binary() else { return };
    let server = Server::start(&program);
    let o = shared(&server.url, &server.monitor, "SL", 30_000);
    let a = open(&o);
    let sa = a.shared().unwrap();
    let key = 9 << 10;
    a.apply(&Batch {
        puts: vec![(key, b"held".to_vec())],
        summaries: vec![(key, vec![1])],
        ..Batch::default()
    })
    .unwrap();
    assert_eq!(sa.claim(key).unwrap(), Claim::Held);
    // Another gateway's claim replaces it (as after an expiry and a new
    // get): written here straight to the lease subject.
    let (c, s) = (a.client.clone(), super::subjects::Subjects::new("SL"));
    let taken = a
        .bridge
        .run("test", async move {
            let last = super::read::last_on(&c, &s.stream(), &s.lease(key))
                .await
                .unwrap()
                .unwrap()
                .0;
            super::publish::publish_one(
                &c,
                s.lease(key),
                &[
                    (super::subjects::MEMBER, "7".into()),
                    ("Nats-Expected-Last-Subject-Sequence", last.to_string()),
                ],
                bytes::Bytes::new(),
            )
            .await
        })
        .unwrap();
    assert!(taken.is_ok(), "{taken:?}");
    // The acknowledgement (delete + release expecting A's claim) fails
    // whole: the message stays, and A no longer counts the claim as its.
    let e = a
        .apply(&Batch {
            deletes: vec![key],
            ..Batch::default()
        })
        .unwrap_err();
    assert!(matches!(e, StoreError::Conflict { .. }), "{e}");
    assert_eq!(a.read(key).unwrap().as_deref(), Some(&b"held"[..]));
    assert!(!sa.holds(key));
}

//! The JetStream store's side of several gateways on one stream
//! (docs/cluster.md "Several gateways on one stream"): claims on records
//! (lease records `P.store.lease.<key>`, compare-and-set, expiring by
//! themselves and renewed while the gateway lives), the expectations a
//! batch carries (the claims it gives up, the named state records it
//! writes), and the tail that tells the queue manager what the other
//! gateways did.

use super::plan::Outgoing;
use super::publish::{self, WRONG_LAST_SEQUENCE};
use super::read;
use super::subjects::{DELETED, DELETED_TTL, MEMBER, Subjects};
use super::tail::Tail;
use super::{JetStreamStore, Writer, failed};
use crate::store::{Batch, Change, Claim, SharedStore, StoreError};
use std::collections::{BTreeSet, HashMap};
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Mutex, RwLock, Weak};
use std::time::{Duration, Instant};

/// The expectation header of a compare-and-set.
const EXPECTED: &str = "Nats-Expected-Last-Subject-Sequence";

/// What a shared store keeps besides a single gateway's state.
pub struct Shared {
    /// This gateway's member number.
    pub member: u16,
    /// How long a claim lasts without renewal.
    pub claim_ttl: Duration,
    /// The first sequence the tail reads (after the open's index read).
    pub tail_start: u64,
    /// The tail's state until [`SharedStore::follow`] starts it.
    pub tail: Mutex<Option<Tail>>,
    /// The last sequence of each named state record this gateway read,
    /// wrote or saw: what a batch writing it expects.
    pub metas: Arc<Mutex<HashMap<String, u64>>>,
    /// The tail's task, ended when the store closes.
    pub tail_task: Mutex<Option<tokio::task::JoinHandle<()>>>,
    /// Tells the renewing thread to end.
    pub stop: Arc<AtomicBool>,
}

/// A claim this gateway holds: its lease record's sequence and when it
/// was last written.
#[derive(Clone, Copy, Debug)]
pub struct Held {
    pub seq: u64,
    pub renewed: Instant,
}

/// What a batch of a shared store carries besides its records, to be
/// settled once it committed or failed.
#[derive(Default)]
pub struct Expectations {
    /// Claims the batch gives up.
    pub released: Vec<u64>,
    /// (name, index of its message in the batch).
    pub metas: Vec<(String, usize)>,
}

fn headers_ttl(ttl: Duration) -> String {
    format!("{}s", ttl.as_secs().max(1))
}

impl JetStreamStore {
    fn shared_state(&self) -> Option<&Shared> {
        self.shared.as_ref()
    }

    /// Adds to `messages` (the batch's, before the fence record) the
    /// release of every claim the batch's puts and deletes end, and the
    /// expected sequence of every named state record it writes (read from
    /// the stream when not known).
    pub(super) fn expect(
        &self,
        w: &Writer,
        batch: &Batch,
        messages: &mut Vec<Outgoing>,
    ) -> Result<Expectations, StoreError> {
        let Some(sh) = self.shared_state() else {
            return Ok(Expectations::default());
        };
        let mut out = Expectations::default();
        let names: BTreeSet<&str> = batch.meta.iter().map(|(n, _)| n.as_str()).collect();
        for name in names {
            let subject = self.subjects.meta(name);
            let Some(i) = messages.iter().position(|m| m.subject == subject) else {
                continue;
            };
            let known = sh.metas.lock().ok().and_then(|m| m.get(name).copied());
            let seq = match known {
                Some(seq) => seq,
                None => {
                    let (c, stream) = (self.client.clone(), self.subjects.stream());
                    let last = self
                        .bridge
                        .run("apply", async move {
                            read::last_on(&c, &stream, &subject).await
                        })?
                        .map_err(|e| failed("apply", e))?;
                    last.map_or(0, |(seq, _, _)| seq)
                }
            };
            messages[i].headers.push((EXPECTED, seq.to_string()));
            out.metas.push((name.to_string(), i));
        }
        let keys: BTreeSet<u64> = batch
            .puts
            .iter()
            .map(|(k, _)| *k)
            .chain(batch.deletes.iter().copied())
            .collect();
        for key in keys {
            if let Some(held) = w.claims.get(&key) {
                messages.push(Outgoing {
                    subject: self.subjects.lease(key),
                    headers: vec![
                        (DELETED, "1".into()),
                        ("Nats-TTL", DELETED_TTL.into()),
                        (EXPECTED, held.seq.to_string()),
                    ],
                    payload: bytes::Bytes::new(),
                });
                out.released.push(key);
            }
        }
        Ok(out)
    }

    /// Settles a committed batch: its released claims are gone, its named
    /// records' sequences known. Its `total` messages (the fence record
    /// last, at `commit_seq`) are stored one after the other.
    pub(super) fn committed(&self, w: &mut Writer, e: Expectations, commit_seq: u64, total: usize) {
        let Some(sh) = self.shared_state() else {
            return;
        };
        for key in e.released {
            w.claims.remove(&key);
        }
        let first = commit_seq + 1 - total as u64;
        if let Ok(mut m) = sh.metas.lock() {
            for (name, i) in e.metas {
                let seq = first + i as u64;
                let known = m.entry(name).or_insert(0);
                *known = (*known).max(seq);
            }
        }
    }

    /// After a batch failed on an expectation: forgets the named records'
    /// sequences (read again by the next batch) and the claims that are no
    /// longer this gateway's.
    pub(super) fn conflicted(&self, w: &mut Writer, e: &Expectations) {
        let Some(sh) = self.shared_state() else {
            return;
        };
        if let Ok(mut m) = sh.metas.lock() {
            for (name, _) in &e.metas {
                m.remove(name);
            }
        }
        for key in &e.released {
            let Some(held) = w.claims.get(key).copied() else {
                continue;
            };
            let (c, stream, subject) = (
                self.client.clone(),
                self.subjects.stream(),
                self.subjects.lease(*key),
            );
            let last = self.bridge.run("apply", async move {
                read::last_on(&c, &stream, &subject).await
            });
            let still = matches!(last, Ok(Ok(Some((seq, _, _)))) if seq == held.seq);
            if !still {
                w.claims.remove(key);
            }
        }
    }

    /// True when the fence record still has the sequence this gateway
    /// expects: a failed expectation was another message's.
    pub(super) fn fence_holds(&self, expected: u64) -> bool {
        let (c, stream, fence) = (
            self.client.clone(),
            self.subjects.stream(),
            self.fence.clone(),
        );
        let last = self.bridge.run(
            "apply",
            async move { read::last_on(&c, &stream, &fence).await },
        );
        matches!(last, Ok(Ok(Some((seq, _, _)))) if seq == expected)
    }

    /// Publishes the claim on `key` expecting `expected`; its sequence or
    /// the server's error.
    fn publish_claim(
        &self,
        key: u64,
        expected: u64,
    ) -> Result<Result<u64, (i64, String)>, StoreError> {
        let Some(sh) = self.shared_state() else {
            return Err(failed("claim", "the store is not shared"));
        };
        let headers = vec![
            (MEMBER, sh.member.to_string()),
            ("Nats-TTL", headers_ttl(sh.claim_ttl)),
            (EXPECTED, expected.to_string()),
        ];
        let (c, subject) = (self.client.clone(), self.subjects.lease(key));
        self.bridge.run("claim", async move {
            publish::publish_one(&c, subject, &headers, bytes::Bytes::new()).await
        })
    }

    /// Starts the thread that renews this gateway's claims every third of
    /// their time, so that they last as long as the gateway and its units
    /// of work do.
    pub(super) fn start_renewing(&self) {
        let Some(sh) = self.shared_state() else {
            return;
        };
        let renewer = Renewer {
            writer: Arc::downgrade(&self.writer),
            client: self.client.clone(),
            handle: self.bridge.handle(),
            subjects: Arc::clone(&self.subjects),
            member: sh.member,
            ttl: sh.claim_ttl,
            stop: Arc::clone(&sh.stop),
        };
        let _ = std::thread::Builder::new()
            .name("mqgate-claims".into())
            .spawn(move || renewer.run());
    }
}

/// What the renewing thread needs.
struct Renewer {
    writer: Weak<RwLock<Writer>>,
    client: async_nats::Client,
    handle: Option<tokio::runtime::Handle>,
    subjects: Arc<Subjects>,
    member: u16,
    ttl: Duration,
    stop: Arc<AtomicBool>,
}

impl Renewer {
    fn run(self) {
        let Some(handle) = self.handle.clone() else {
            return;
        };
        let every = self.ttl / 3;
        loop {
            std::thread::sleep(Duration::from_millis(200));
            if self.stop.load(Ordering::SeqCst) {
                return;
            }
            let Some(writer) = self.writer.upgrade() else {
                return;
            };
            let Ok(mut w) = writer.write() else { return };
            let due: Vec<(u64, Held)> = w
                .claims
                .iter()
                .filter(|(_, h)| h.renewed.elapsed() >= every)
                .map(|(k, h)| (*k, *h))
                .collect();
            for (key, held) in due {
                let headers = vec![
                    (MEMBER, self.member.to_string()),
                    ("Nats-TTL", headers_ttl(self.ttl)),
                    (EXPECTED, held.seq.to_string()),
                ];
                let (c, subject) = (self.client.clone(), self.subjects.lease(key));
                let (tx, rx) = std::sync::mpsc::sync_channel(1);
                handle.spawn(async move {
                    let r = publish::publish_one(&c, subject, &headers, bytes::Bytes::new()).await;
                    let _ = tx.send(r);
                });
                match rx.recv() {
                    Ok(Ok(seq)) => {
                        w.claims.insert(
                            key,
                            Held {
                                seq,
                                renewed: Instant::now(),
                            },
                        );
                    }
                    Ok(Err((code, e))) if code == WRONG_LAST_SEQUENCE => {
                        tracing::warn!(key, error = %e, "storage: a claim expired before it was renewed; another gateway may get its message");
                        w.claims.remove(&key);
                    }
                    Ok(Err((_, e))) => {
                        tracing::warn!(key, error = %e, "storage: renewing a claim failed; trying again");
                    }
                    Err(_) => return,
                }
            }
        }
    }
}

impl SharedStore for JetStreamStore {
    fn member(&self) -> u16 {
        self.shared_state().map_or(0, |s| s.member)
    }

    fn follow(&self) -> Result<std::sync::mpsc::Receiver<(u64, Option<Change>)>, StoreError> {
        let sh = self
            .shared_state()
            .ok_or_else(|| failed("follow", "the store is not shared"))?;
        let tail = sh
            .tail
            .lock()
            .ok()
            .and_then(|mut t| t.take())
            .ok_or_else(|| failed("follow", "the tail was started already"))?;
        let (tx, rx) = std::sync::mpsc::channel();
        let (stream, start) = (self.stream.clone(), sh.tail_start);
        // What the open's read covered: seen already.
        let _ = tx.send((start - 1, None));
        let task = self
            .bridge
            .spawn(async move { tail.run(stream, start, tx).await })?;
        if let Ok(mut t) = sh.tail_task.lock() {
            *t = Some(task);
        }
        Ok(rx)
    }

    fn last_sequence(&self) -> Result<u64, StoreError> {
        let mut stream = self.stream.clone();
        self.bridge
            .run("last sequence", async move {
                stream
                    .info()
                    .await
                    .map(|i| i.state.last_sequence)
                    .map_err(|e| e.to_string())
            })?
            .map_err(|e| failed("last sequence", e))
    }

    fn claim(&self, key: u64) -> Result<Claim, StoreError> {
        let sh = self
            .shared_state()
            .ok_or_else(|| failed("claim", "the store is not shared"))?;
        // Not under the write lock: a claim waits for no batch (the record's
        // batches come after it), only its bookkeeping does.
        if let Some(why) = self.writer.read().ok().and_then(|w| w.lost.clone()) {
            return Err(StoreError::Closed {
                op: "claim".into(),
                detail: why,
            });
        }
        let mut expected = 0;
        // An empty lease subject, or one whose last message is a release
        // (a deletion marker, gone by itself a second later), is free.
        for _ in 0..4 {
            match self.publish_claim(key, expected)? {
                Ok(seq) => {
                    self.writing("claim")?.claims.insert(
                        key,
                        Held {
                            seq,
                            renewed: Instant::now(),
                        },
                    );
                    return Ok(Claim::Held);
                }
                Err((code, _)) if code == WRONG_LAST_SEQUENCE => {
                    let (c, stream, subject) = (
                        self.client.clone(),
                        self.subjects.stream(),
                        self.subjects.lease(key),
                    );
                    let last = self
                        .bridge
                        .run("claim", async move {
                            read::last_on(&c, &stream, &subject).await
                        })?
                        .map_err(|e| failed("claim", e))?;
                    match last {
                        None => expected = 0,
                        Some((seq, h, _)) if read::is_deleted(h.as_ref()) => expected = seq,
                        Some(_) => {
                            return Ok(Claim::Taken {
                                remaining_ms: sh.claim_ttl.as_millis() as u64,
                            });
                        }
                    }
                }
                Err((_, e)) => return Err(failed("claim", e)),
            }
        }
        Ok(Claim::Taken {
            remaining_ms: sh.claim_ttl.as_millis() as u64,
        })
    }

    fn holds(&self, key: u64) -> bool {
        self.writer
            .read()
            .is_ok_and(|w| w.claims.contains_key(&key))
    }

    fn release(&self, key: u64) -> Result<(), StoreError> {
        let mut w = self.writing("release")?;
        let Some(held) = w.claims.remove(&key) else {
            return Ok(());
        };
        let headers = vec![
            (DELETED, "1".to_string()),
            ("Nats-TTL", DELETED_TTL.to_string()),
            (EXPECTED, held.seq.to_string()),
        ];
        let (c, subject) = (self.client.clone(), self.subjects.lease(key));
        match self.bridge.run("release", async move {
            publish::publish_one(&c, subject, &headers, bytes::Bytes::new()).await
        })? {
            // Lost meanwhile: nothing left to give up.
            Ok(_) => Ok(()),
            Err((code, _)) if code == WRONG_LAST_SEQUENCE => Ok(()),
            Err((_, e)) => Err(failed("release", e)),
        }
    }
}

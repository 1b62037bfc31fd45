//! The NATS JetStream backend of [`Store`] (docs/cluster.md): one stream per
//! stream prefix, one subject per key holding the record's last version, and
//! every [`Batch`] published as one atomic batch (nats-server 2.12 or
//! later), so that it is stored whole or not at all.
//!
//! The trait is synchronous and called from several threads: the async
//! client runs on a runtime of its own (src/store/jetstream/bridge.rs) and
//! every call blocks on its reply. Batches are applied one at a time (each
//! ends with the owner record, src/store/jetstream/lock.rs); reads wait
//! while one is being applied, so that they never see a batch in part.

mod bridge;
pub(crate) mod connect;
mod error;
mod lock;
mod members;
mod plan;
mod publish;
mod read;
mod shared;
mod stream;
mod subjects;
mod tail;

#[cfg(test)]
use connect::version as server_version;
pub use error::OpenError;

use super::nats_config::NatsStorage;
use super::{Batch, ReadCounts, Store, StoreError, StoreHealth, StoreState};
use async_nats::Client;
use async_nats::jetstream::stream::Stream;
use bridge::Bridge;
use publish::Failed;
use std::collections::HashMap;
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Arc, Mutex, RwLock};
use subjects::Subjects;

/// Room left in a message for headers: a record is cut into chunks of the
/// server's `max_payload` less this many bytes.
const HEADER_ROOM: usize = 4096;

/// What applying batches changes, under the write lock.
struct Writer {
    /// Chunk counts of the records longer than one chunk.
    multi: HashMap<u64, u32>,
    /// The owner record's sequence (the next batch's expectation).
    lock_seq: u64,
    /// A batch whose commit got no answer: (id, expected owner sequence);
    /// resolved before anything else.
    unresolved: Option<(String, u64)>,
    /// Set when another gateway took the stream: every call fails.
    lost: Option<String>,
    /// Batches applied by this instance (for batch identifiers).
    applied: u64,
    /// The claims this gateway holds on a shared stream (src/store/jetstream/shared.rs).
    claims: HashMap<u64, shared::Held>,
}

/// A store in a JetStream stream (see the module documentation).
pub struct JetStreamStore {
    bridge: Bridge,
    client: Client,
    stream: Stream,
    subjects: Arc<Subjects>,
    /// The record every batch ends with: the owner record, or on a shared
    /// stream this gateway's member record.
    fence: String,
    owner_record: bytes::Bytes,
    /// This instance's part of its batch identifiers (its liveness id).
    owner_tag: String,
    responder: Mutex<Option<tokio::task::JoinHandle<()>>>,
    max_chunk: usize,
    writer: Arc<RwLock<Writer>>,
    /// Several gateways on the stream (`storage.shared`).
    shared: Option<shared::Shared>,
    values: AtomicU64,
    bytes: AtomicU64,
    reconnects: Arc<AtomicU64>,
    last_failure: Mutex<String>,
}

fn failed(op: &str, detail: impl Into<String>) -> StoreError {
    StoreError::Io {
        op: op.to_string(),
        source: std::io::Error::other(detail.into()),
    }
}

impl JetStreamStore {
    /// Connects to `o.servers`, checks the server (2.12 or later, JetStream
    /// for the account), its sync policy (`o.monitor_urls`), creates or
    /// checks the stream `<prefix>_STORE` and takes it for this gateway.
    /// Blocks (call it off any async runtime's worker, e.g. in
    /// `spawn_blocking`). Each failure is its own [`OpenError`].
    pub fn open(o: &NatsStorage) -> Result<JetStreamStore, OpenError> {
        let bridge = Bridge::new().map_err(|e| OpenError::Request {
            op: "start the NATS client's runtime".into(),
            detail: e.to_string(),
        })?;
        let reconnects = Arc::new(AtomicU64::new(0));
        let subjects = Arc::new(Subjects::new(&o.stream_prefix));
        let lost = |e: StoreError| OpenError::Request {
            op: "open".into(),
            detail: e.to_string(),
        };
        let (opts, count) = (o.clone(), Arc::clone(&reconnects));
        let client = bridge
            .run("connect", async move {
                let client = connect::connect(&opts, count).await?;
                connect::check_server(&client).await?;
                Ok::<_, OpenError>(client)
            })
            .map_err(lost)??;
        connect::check_sync(o)?;
        let (c, s, replicas, sharing) =
            (client.clone(), Arc::clone(&subjects), o.replicas, o.shared);
        let (owner, stream, index, last) = bridge
            .run("open the stream", async move {
                stream::ensure(&c, &s, replicas).await?;
                let js = async_nats::jetstream::new(c.clone());
                let mut stream =
                    js.get_stream(s.stream())
                        .await
                        .map_err(|e| OpenError::Request {
                            op: format!("stream {}", s.stream()),
                            detail: e.to_string(),
                        })?;
                let owner = if sharing {
                    let m = members::join(&c, &s).await?;
                    Fence {
                        subject: s.member(m.n),
                        member: Some(m.n),
                        id: m.id,
                        record: m.record,
                        seq: m.seq,
                        responder: m.responder,
                    }
                } else {
                    let o = lock::acquire(&c, &s).await?;
                    Fence {
                        subject: s.lock(),
                        member: None,
                        id: o.id,
                        record: o.record,
                        seq: o.seq,
                        responder: o.responder,
                    }
                };
                // Where a shared store's tail starts: what the index read
                // below may miss comes after it.
                let last = if sharing {
                    stream
                        .info()
                        .await
                        .map(|i| i.state.last_sequence)
                        .map_err(|e| OpenError::Request {
                            op: format!("stream {}: info", s.stream()),
                            detail: e.to_string(),
                        })?
                } else {
                    0
                };
                let index = read::index(&stream, &s).await;
                Ok::<_, OpenError>((owner, stream, index, last))
            })
            .map_err(lost)??;
        let (keys, multi) = index.map_err(|(key, e)| OpenError::Request {
            op: format!("read the index (record {key:?})"),
            detail: e,
        })?;
        let max_payload = client.server_info().max_payload;
        let owner_tag = owner.id.clone();
        let shared = owner.member.map(|member| {
            let metas = Arc::default();
            shared::Shared {
                member,
                claim_ttl: std::time::Duration::from_millis(o.claim_ttl_ms),
                tail_start: last + 1,
                tail: Mutex::new(Some(tail::Tail {
                    subjects: Arc::clone(&subjects),
                    member,
                    summaries: keys.into_iter().collect(),
                    metas: Arc::clone(&metas),
                })),
                metas,
                tail_task: Mutex::new(None),
                stop: Arc::default(),
            }
        });
        let store = JetStreamStore {
            bridge,
            client,
            stream,
            subjects,
            fence: owner.subject,
            owner_record: owner.record,
            owner_tag,
            responder: Mutex::new(Some(owner.responder)),
            max_chunk: max_payload.saturating_sub(HEADER_ROOM).max(1024),
            writer: Arc::new(RwLock::new(Writer {
                multi,
                lock_seq: owner.seq,
                unresolved: None,
                lost: None,
                applied: 0,
                claims: HashMap::new(),
            })),
            shared,
            values: AtomicU64::new(0),
            bytes: AtomicU64::new(0),
            reconnects,
            last_failure: Mutex::new(String::new()),
        };
        store.start_renewing();
        Ok(store)
    }

    fn writing(&self, op: &str) -> Result<std::sync::RwLockWriteGuard<'_, Writer>, StoreError> {
        self.writer.write().map_err(|_| StoreError::Closed {
            op: op.to_string(),
            detail: "a writer panicked".into(),
        })
    }

    fn note(&self, e: &StoreError) {
        if let Ok(mut l) = self.last_failure.lock() {
            *l = e.to_string();
        }
    }

    /// Settles a batch whose commit got no answer: stored (its owner record
    /// is the last one) or, by moving the owner record past the sequence
    /// it expects, never to be stored. `Ok(true)` when it was stored.
    fn resolve(&self, w: &mut Writer, id: &str, expected: u64) -> Result<bool, StoreError> {
        let (c, stream, lock) = (
            self.client.clone(),
            self.subjects.stream(),
            self.fence.clone(),
        );
        let (id2, record) = (id.to_string(), self.owner_record.clone());
        let outcome = self
            .bridge
            .run("resolve an unanswered commit", async move {
                let committed =
                    |last: Option<(u64, Option<async_nats::HeaderMap>, bytes::Bytes)>| {
                        last.and_then(|(seq, h, _)| {
                            let ours = h
                                .as_ref()
                                .and_then(|h| h.get(subjects::BATCH))
                                .is_some_and(|b| b.as_str() == id2);
                            ours.then_some(seq)
                        })
                    };
                let last = read::last_on(&c, &stream, &lock).await?;
                if let Some(seq) = committed(last) {
                    return Ok(Ok(seq));
                }
                match publish::publish_owner(&c, lock.clone(), record, expected).await {
                    Ok(seq) => Ok(Err(seq)),
                    Err((code, e)) if code == publish::WRONG_LAST_SEQUENCE => {
                        let last = read::last_on(&c, &stream, &lock).await?;
                        match committed(last) {
                            Some(seq) => Ok(Ok(seq)),
                            None => Err(format!("lost: {e}")),
                        }
                    }
                    Err((_, e)) => Err(e),
                }
            })?;
        match outcome {
            Ok(Ok(seq)) => {
                w.lock_seq = seq;
                Ok(true)
            }
            Ok(Err(seq)) => {
                w.lock_seq = seq;
                Ok(false)
            }
            Err(e) => {
                if let Some(why) = e.strip_prefix("lost: ") {
                    w.lost = Some(format!("another gateway took the stream ({why})"));
                }
                Err(failed("resolve an unanswered commit", e))
            }
        }
    }

    /// Fails when the stream was lost or an earlier commit is still
    /// unsettled and cannot be settled now.
    fn ready(&self, w: &mut Writer, op: &str) -> Result<(), StoreError> {
        if let Some(why) = &w.lost {
            return Err(StoreError::Closed {
                op: op.to_string(),
                detail: why.clone(),
            });
        }
        if let Some((id, expected)) = w.unresolved.clone() {
            let stored = self.resolve(w, &id, expected)?;
            w.unresolved = None;
            if stored {
                // Its chunk counts were not taken when its apply failed.
                let (stream, s) = (self.stream.clone(), Arc::clone(&self.subjects));
                let index = self
                    .bridge
                    .run(op, async move { read::index(&stream, &s).await })?
                    .map_err(|(key, e)| Self::corrupt(op, key, e))?;
                w.multi = index.1;
            }
        }
        Ok(())
    }

    fn apply_locked(&self, w: &mut Writer, batch: &Batch) -> Result<(), StoreError> {
        self.ready(w, "apply")?;
        // On a shared stream the other gateways learn of a deleted record
        // from its marker on their tail: it must outlive a tail that lags.
        let ttl = match self.shared {
            Some(_) => subjects::SHARED_DELETED_TTL,
            None => subjects::DELETED_TTL,
        };
        let mut plan = plan::plan(batch, &self.subjects, &w.multi, self.max_chunk, ttl);
        let expectations = self.expect(w, batch, &mut plan.messages)?;
        if plan.messages.len() + 1 > publish::MAX_MESSAGES {
            return Err(StoreError::Refused {
                op: "apply".into(),
                detail: format!(
                    "the batch needs {} messages; an atomic batch holds at most {}",
                    plan.messages.len() + 1,
                    publish::MAX_MESSAGES
                ),
            });
        }
        w.applied += 1;
        let id = format!("{}-{}", self.owner_tag, w.applied);
        let (c, id2, lock, record, expected) = (
            self.client.clone(),
            id.clone(),
            self.fence.clone(),
            self.owner_record.clone(),
            w.lock_seq,
        );
        let messages = plan.messages;
        let total = messages.len() + 1;
        let outcome = self.bridge.run("apply", async move {
            publish::publish(&c, &id2, messages, lock, record, expected).await
        })?;
        let conflict = |w: &mut Writer, e: String| {
            self.conflicted(w, &expectations);
            Err(StoreError::Conflict {
                op: "apply".into(),
                detail: e,
            })
        };
        let committed = match outcome {
            Ok(seq) => {
                w.lock_seq = seq;
                true
            }
            Err(Failed::Rejected(e)) => return Err(failed("apply", e)),
            Err(Failed::Conflict(e)) => return conflict(w, e),
            Err(Failed::LostOwner(e)) if self.shared.is_some() && self.fence_holds(expected) => {
                return conflict(w, e);
            }
            Err(Failed::LostOwner(e)) => {
                let why = format!("another gateway took the stream ({e})");
                w.lost = Some(why.clone());
                return Err(StoreError::Closed {
                    op: "apply".into(),
                    detail: why,
                });
            }
            Err(Failed::Unknown(e)) => match self.resolve(w, &id, expected) {
                Ok(stored) => stored,
                Err(r) => {
                    w.unresolved = Some((id, expected));
                    return Err(failed("apply", format!("{e}; {r}")));
                }
            },
        };
        if !committed {
            return Err(failed(
                "apply",
                "the commit got no answer and was not stored",
            ));
        }
        for (key, n) in plan.chunks {
            match n {
                Some(n) => w.multi.insert(key, n),
                None => w.multi.remove(&key),
            };
        }
        let commit_seq = w.lock_seq;
        self.committed(w, expectations, commit_seq, total);
        Ok(())
    }

    fn reading(&self) -> Result<std::sync::RwLockReadGuard<'_, Writer>, StoreError> {
        let w = self.writer.read().map_err(|_| StoreError::Closed {
            op: "read".into(),
            detail: "a writer panicked".into(),
        })?;
        if let Some(why) = &w.lost {
            return Err(StoreError::Closed {
                op: "read".into(),
                detail: why.clone(),
            });
        }
        Ok(w)
    }

    fn count(&self, n: u64, bytes: u64) {
        self.values.fetch_add(n, Ordering::Relaxed);
        self.bytes.fetch_add(bytes, Ordering::Relaxed);
    }

    fn corrupt(op: &str, key: Option<u64>, detail: String) -> StoreError {
        StoreError::Corrupt {
            op: op.to_string(),
            key,
            detail,
        }
    }
}

impl Store for JetStreamStore {
    fn apply(&self, batch: &Batch) -> Result<(), StoreError> {
        if batch.is_empty() {
            return Ok(());
        }
        let mut w = self.writer.write().map_err(|_| StoreError::Closed {
            op: "apply".into(),
            detail: "a writer panicked".into(),
        })?;
        let r = self.apply_locked(&mut w, batch);
        if let Err(e) = &r {
            self.note(e);
        }
        r
    }

    fn load(&self) -> Result<Vec<(u64, Vec<u8>)>, StoreError> {
        let _w = self.reading()?;
        let (stream, s) = (self.stream.clone(), Arc::clone(&self.subjects));
        let (records, parts) = self
            .bridge
            .run("load", async move {
                let records = read::last_per_subject(&stream, s.records(), false).await?;
                let multi = records
                    .iter()
                    .any(|(_, h, _)| read::chunks(h.as_ref()).is_ok_and(|n| n > 1));
                let parts = if multi {
                    read::last_per_subject(&stream, s.parts(), false).await?
                } else {
                    Vec::new()
                };
                Ok::<_, String>((records, parts))
            })?
            .map_err(|e| failed("load", e))?;
        let parts: HashMap<(u64, u32), bytes::Bytes> = parts
            .into_iter()
            .filter(|(_, h, _)| !read::is_deleted(h.as_ref()))
            .filter_map(|(subject, _, p)| Some((self.subjects.key_of_part(&subject)?, p)))
            .collect();
        let mut out = Vec::new();
        for (subject, h, payload) in records {
            let Some(key) = self.subjects.key_of_record(&subject) else {
                continue;
            };
            if read::is_deleted(h.as_ref()) {
                continue;
            }
            let n = read::chunks(h.as_ref()).map_err(|e| Self::corrupt("load", Some(key), e))?;
            let mut record = payload.to_vec();
            for i in 1..n {
                let part = parts.get(&(key, i)).ok_or_else(|| {
                    Self::corrupt("load", Some(key), format!("chunk {i} of {n} is missing"))
                })?;
                record.extend_from_slice(part);
            }
            self.count(1, record.len() as u64);
            out.push((key, record));
        }
        out.sort_by_key(|(k, _)| *k);
        Ok(out)
    }

    fn load_index(&self) -> Result<super::Summaries, StoreError> {
        let _w = self.reading()?;
        let (stream, s) = (self.stream.clone(), Arc::clone(&self.subjects));
        let index = self
            .bridge
            .run("load_index", async move { read::index(&stream, &s).await })?
            .map_err(|(key, e)| Self::corrupt("load_index", key, e))?;
        Ok(index.0.iter().map(|(k, v)| (*k, v.as_slice())).collect())
    }

    fn read(&self, key: u64) -> Result<Option<Vec<u8>>, StoreError> {
        let _w = self.reading()?;
        let (c, s) = (self.client.clone(), Arc::clone(&self.subjects));
        let got = self
            .bridge
            .run("read", async move {
                let stream = s.stream();
                let Some((_, h, first)) = read::last_on(&c, &stream, &s.record(key)).await? else {
                    return Ok(None);
                };
                if read::is_deleted(h.as_ref()) {
                    return Ok(None);
                }
                let n = read::chunks(h.as_ref())?;
                let mut record = first.to_vec();
                for i in 1..n {
                    match read::last_on(&c, &stream, &s.part(key, i)).await? {
                        Some((_, h, p)) if !read::is_deleted(h.as_ref()) => {
                            record.extend_from_slice(&p)
                        }
                        _ => return Err(format!("chunk {i} of {n} is missing")),
                    }
                }
                Ok(Some(record))
            })?
            .map_err(|e| failed("read", e))?;
        if let Some(r) = &got {
            self.count(1, r.len() as u64);
        }
        Ok(got)
    }

    fn read_counts(&self) -> ReadCounts {
        ReadCounts {
            values: self.values.load(Ordering::Relaxed),
            bytes: self.bytes.load(Ordering::Relaxed),
        }
    }

    fn load_meta(&self) -> Result<Vec<(String, Vec<u8>)>, StoreError> {
        let _w = self.reading()?;
        let (stream, s) = (self.stream.clone(), Arc::clone(&self.subjects));
        let read = self
            .bridge
            .run("load_meta", async move {
                read::last_per_subject_seq(&stream, s.metas(), false).await
            })?
            .map_err(|e| failed("load_meta", e))?;
        let mut out: Vec<(String, Vec<u8>)> = Vec::with_capacity(read.len());
        for (subject, _, p, seq) in read {
            let Some(name) = self.subjects.name_of_meta(&subject) else {
                continue;
            };
            // What a shared store's next write of the record expects: the
            // version this read returned.
            if let Some(sh) = &self.shared
                && let Ok(mut m) = sh.metas.lock()
            {
                let known = m.entry(name.clone()).or_insert(0);
                *known = (*known).max(seq);
            }
            out.push((name, p.to_vec()));
        }
        out.sort();
        Ok(out)
    }

    fn health(&self) -> StoreHealth {
        let last_failure = self
            .last_failure
            .lock()
            .map(|l| l.clone())
            .unwrap_or_default();
        let reopens = self.reconnects.load(Ordering::SeqCst);
        let lost = self.writer.read().ok().and_then(|w| w.lost.clone());
        let message = match (lost, self.client.connection_state()) {
            (Some(why), _) => why,
            (None, async_nats::connection::State::Connected) => String::new(),
            (None, _) => "disconnected from NATS; reconnecting".to_string(),
        };
        StoreHealth {
            state: if message.is_empty() {
                StoreState::Ok
            } else {
                StoreState::Failed
            },
            reason: if message.is_empty() {
                0
            } else {
                mqgate_codecs::mq::Mqrc::RESOURCE_PROBLEM.0
            },
            message,
            reopens,
            last_failure,
        }
    }

    fn shared(&self) -> Option<&dyn super::SharedStore> {
        self.shared
            .is_some()
            .then_some(self as &dyn super::SharedStore)
    }
}

/// The record every batch of this gateway ends with, as opened.
struct Fence {
    subject: String,
    member: Option<u16>,
    id: String,
    record: bytes::Bytes,
    seq: u64,
    responder: tokio::task::JoinHandle<()>,
}

impl Drop for JetStreamStore {
    /// Stops answering liveness requests, so that the next gateway (or a
    /// reopen in this process) can take the stream at once.
    fn drop(&mut self) {
        let tail = self.shared.as_ref().and_then(|sh| {
            sh.stop.store(true, Ordering::SeqCst);
            sh.tail_task.lock().ok().and_then(|mut t| t.take())
        });
        if let Some(t) = tail {
            t.abort();
        }
        let responder = self.responder.lock().ok().and_then(|mut r| r.take());
        let c = self.client.clone();
        let _ = self.bridge.run("close", async move {
            if let Some(r) = responder {
                r.abort();
                let _ = r.await;
            }
            let _ = tokio::time::timeout(std::time::Duration::from_secs(2), c.flush()).await;
        });
    }
}

#[cfg(test)]
mod batch_tests;
#[cfg(test)]
mod cluster_tests;
#[cfg(test)]
mod conformance_tests;
#[cfg(test)]
mod resolve_tests;
#[cfg(test)]
mod restart_tests;
#[cfg(test)]
mod shared_tests;
#[cfg(test)]
mod startup_tests;
#[cfg(test)]
pub mod test_server;

//! Publishing one atomic batch (NATS ADR-50 "JetStream Batch Publishing",
//! nats-server 2.12): every message carries `Nats-Batch-Id` and
//! `Nats-Batch-Sequence`, the last one `Nats-Batch-Commit: 1`, and the
//! server stores all of them or none. The last message is always the owner
//! record, published with `Nats-Expected-Last-Subject-Sequence` of the
//! owner's previous message: a gateway that lost the stream to another
//! cannot commit.

use super::connect::api_error;
use super::plan::Outgoing;
use super::subjects::BATCH;
use async_nats::{Client, HeaderMap};
use serde_json::Value;

/// JetStream's error code for a failed expected-last-sequence check
/// (JSStreamWrongLastSequenceErr).
pub const WRONG_LAST_SEQUENCE: i64 = 10071;

/// Messages between two acknowledged ones inside a batch (flow control).
const ACK_EVERY: usize = 64;

/// The most messages one batch may have (the server's default
/// `jetstream.limits.batch.max_msgs`).
pub const MAX_MESSAGES: usize = 1000;

/// How a batch publish ended when it did not commit.
#[derive(Debug)]
pub enum Failed {
    /// The server did not store the batch (nothing of it).
    Rejected(String),
    /// A message of the batch other than the last expected another last
    /// sequence on its subject: nothing of it was stored.
    Conflict(String),
    /// The owner record moved: another gateway holds the stream.
    LostOwner(String),
    /// The commit was sent but no answer came: stored or not, unknown.
    Unknown(String),
}

/// A publish acknowledgement or error (`io.nats.jetstream.api.v1.pub_ack_response`).
fn pub_ack(payload: &[u8]) -> Result<u64, (i64, String)> {
    let v: Value = serde_json::from_slice(payload)
        .map_err(|e| (0, format!("publish acknowledgement is no JSON: {e}")))?;
    if let Some(err) = v.get("error") {
        let code = err.get("err_code").and_then(|c| c.as_i64()).unwrap_or(0);
        return Err((code, api_error(err)));
    }
    v.get("seq")
        .and_then(|s| s.as_u64())
        .ok_or((0, format!("publish acknowledgement without seq: {v}")))
}

/// The error of an intermediate acknowledgement (empty when fine): its
/// code and text.
fn step_error(payload: &[u8]) -> Option<(i64, String)> {
    if payload.is_empty() {
        return None;
    }
    pub_ack(payload).err()
}

fn headers(id: &str, n: usize, own: &[(&'static str, String)]) -> HeaderMap {
    let mut h = HeaderMap::new();
    h.insert("Nats-Batch-Id", id);
    h.insert("Nats-Batch-Sequence", n.to_string().as_str());
    for (k, v) in own {
        h.insert(*k, v.as_str());
    }
    h
}

/// Publishes `messages` and then the owner record `lock` (subject
/// `lock_subject`, expected last sequence `expected`) as batch `id`;
/// returns the owner record's new sequence.
pub async fn publish(
    client: &Client,
    id: &str,
    messages: Vec<Outgoing>,
    lock_subject: String,
    lock: bytes::Bytes,
    expected: u64,
) -> Result<u64, Failed> {
    let total = messages.len() + 1;
    for (i, m) in messages.into_iter().enumerate() {
        let n = i + 1;
        let h = headers(id, n, &m.headers);
        if n == 1 || n % ACK_EVERY == 0 {
            let reply = client
                .request_with_headers(m.subject, h, m.payload)
                .await
                .map_err(|e| Failed::Rejected(format!("batch message {n}: {e}")))?;
            if let Some((code, e)) = step_error(&reply.payload) {
                let e = format!("batch message {n}: {e}");
                return Err(if code == WRONG_LAST_SEQUENCE {
                    Failed::Conflict(e)
                } else {
                    Failed::Rejected(e)
                });
            }
        } else {
            client
                .publish_with_headers(m.subject, h, m.payload)
                .await
                .map_err(|e| Failed::Rejected(format!("batch message {n}: {e}")))?;
        }
    }
    let own = [
        (BATCH, id.to_string()),
        ("Nats-Expected-Last-Subject-Sequence", expected.to_string()),
        ("Nats-Batch-Commit", "1".to_string()),
    ];
    let h = headers(id, total, &own);
    let reply = client
        .request_with_headers(lock_subject, h, lock)
        .await
        .map_err(|e| Failed::Unknown(format!("commit: {e}")))?;
    pub_ack(&reply.payload).map_err(|(code, e)| {
        if code == WRONG_LAST_SEQUENCE {
            Failed::LostOwner(e)
        } else {
            Failed::Rejected(format!("commit: {e}"))
        }
    })
}

/// Publishes the owner record alone (outside any batch), expecting the
/// owner subject's last sequence `expected`; its new sequence.
pub async fn publish_owner(
    client: &Client,
    lock_subject: String,
    lock: bytes::Bytes,
    expected: u64,
) -> Result<u64, (i64, String)> {
    let mut h = HeaderMap::new();
    h.insert(
        "Nats-Expected-Last-Subject-Sequence",
        expected.to_string().as_str(),
    );
    let reply = client
        .request_with_headers(lock_subject, h, lock)
        .await
        .map_err(|e| (0, e.to_string()))?;
    pub_ack(&reply.payload)
}

/// Publishes one message outside any batch with `headers`; its sequence,
/// or the server's error code and text.
pub async fn publish_one(
    client: &Client,
    subject: String,
    headers: &[(&'static str, String)],
    payload: bytes::Bytes,
) -> Result<u64, (i64, String)> {
    let mut h = HeaderMap::new();
    for (k, v) in headers {
        h.insert(*k, v.as_str());
    }
    let reply = client
        .request_with_headers(subject, h, payload)
        .await
        .map_err(|e| (0, e.to_string()))?;
    pub_ack(&reply.payload)
}

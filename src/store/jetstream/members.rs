//! Several gateways on one stream (docs/cluster.md "Several gateways on
//! one stream"): each takes a member number instead of the stream.
//!
//! The owner record `P.store.lock` says the stream is shared (`"shared":
//! true`, liveness subject `P.owner.shared`, which every member answers),
//! so that a gateway without `shared` is refused while any member lives,
//! and a shared gateway is refused while a gateway holds the stream alone.
//! A member record `P.store.member.<n>` names each member's liveness
//! subject; a gateway takes the first number whose record is empty or
//! whose member does not answer ("no responders": it closed or its
//! connection is gone), by compare-and-set on the record's sequence
//! (`Nats-Expected-Last-Subject-Sequence`), so that of two gateways taking
//! a number at once one wins. Every batch of a member ends with its
//! record under the same expectation, as a single gateway's end with the
//! owner record: a member whose number was taken over cannot write.

use super::error::OpenError;
use super::lock::{owner_record, random_id};
use super::publish::{WRONG_LAST_SEQUENCE, publish_owner};
use super::read::last_on;
use super::subjects::Subjects;
use crate::store::MAX_MEMBERS;
use async_nats::{Client, RequestErrorKind};
use futures_util::StreamExt;
use std::time::Duration;

/// How long a live member has to answer.
const ASK_TIMEOUT: Duration = Duration::from_secs(2);

/// This gateway's membership.
pub struct Member {
    /// Its number (below [`MAX_MEMBERS`]).
    pub n: u16,
    /// The random id naming its liveness subject.
    pub id: String,
    /// Its record (JSON: liveness subject, member number, host, process
    /// id, start).
    pub record: bytes::Bytes,
    /// The record's sequence now.
    pub seq: u64,
    /// Answers liveness requests until aborted.
    pub responder: tokio::task::JoinHandle<()>,
}

/// Whether the gateway whose liveness subject is `live` answers: `Ok(true)`
/// for an answer or for silence (a subscriber that does not answer may be a
/// gateway too busy to), `Ok(false)` for "no responders".
async fn alive(client: &Client, live: &str) -> bool {
    let ask = client.request(live.to_string(), bytes::Bytes::new());
    !matches!(
        tokio::time::timeout(ASK_TIMEOUT, ask).await,
        Ok(Err(e)) if matches!(e.kind(), RequestErrorKind::NoResponders)
    )
}

/// Marks the stream shared in its owner record; refused while a gateway
/// that holds it alone lives.
async fn mark_shared(client: &Client, subjects: &Subjects) -> Result<(), OpenError> {
    let stream = subjects.stream();
    let request = |op: &str, detail: String| OpenError::Request {
        op: format!("stream {stream}: {op}"),
        detail,
    };
    let marker = serde_json::json!({ "shared": true, "owner": subjects.shared_owner() });
    for _ in 0..5 {
        let last = last_on(client, &stream, &subjects.lock())
            .await
            .map_err(|e| request("read the owner record", e))?;
        let expected = match &last {
            None => 0,
            Some((seq, _, payload)) => {
                let v: serde_json::Value = serde_json::from_slice(payload).unwrap_or_default();
                if v.get("shared").and_then(|s| s.as_bool()) == Some(true) {
                    return Ok(());
                }
                if let Some(live) = v.get("owner").and_then(|o| o.as_str())
                    && alive(client, live).await
                {
                    return Err(OpenError::Locked {
                        stream,
                        holder: format!(
                            "{} holds it alone (without storage.shared)",
                            String::from_utf8_lossy(payload)
                        ),
                    });
                }
                *seq
            }
        };
        match publish_owner(client, subjects.lock(), marker.to_string().into(), expected).await {
            Ok(_) => return Ok(()),
            Err((code, _)) if code == WRONG_LAST_SEQUENCE => continue,
            Err((_, e)) => return Err(request("mark the stream shared", e)),
        }
    }
    Err(request(
        "mark the stream shared",
        "the owner record kept changing".into(),
    ))
}

/// Joins the stream's members: marks it shared, starts answering on a
/// liveness subject of its own and on the members' one, and takes the
/// first free member number.
pub async fn join(client: &Client, subjects: &Subjects) -> Result<Member, OpenError> {
    mark_shared(client, subjects).await?;
    let stream = subjects.stream();
    let request = |op: &str, detail: String| OpenError::Request {
        op: format!("stream {stream}: {op}"),
        detail,
    };
    let id = random_id();
    let live = subjects.owner(&id);
    let own = client
        .subscribe(live.clone())
        .await
        .map_err(|e| request("subscribe", e.to_string()))?;
    let all = client
        .subscribe(subjects.shared_owner())
        .await
        .map_err(|e| request("subscribe", e.to_string()))?;
    client
        .flush()
        .await
        .map_err(|e| request("flush", e.to_string()))?;
    let (tx, rx) = tokio::sync::watch::channel(bytes::Bytes::new());
    let replier = client.clone();
    let responder = tokio::spawn(async move {
        let mut both = futures_util::stream::select(own, all);
        while let Some(m) = both.next().await {
            if let Some(reply) = m.reply {
                let answer = rx.borrow().clone();
                let _ = replier.publish(reply, answer).await;
            }
        }
    });
    for n in 0..MAX_MEMBERS {
        let subject = subjects.member(n);
        let last = last_on(client, &stream, &subject)
            .await
            .map_err(|e| request("read a member record", e))?;
        let expected = match &last {
            None => 0,
            Some((seq, _, payload)) => {
                let v: serde_json::Value = serde_json::from_slice(payload).unwrap_or_default();
                match v.get("owner").and_then(|o| o.as_str()) {
                    Some(other) if alive(client, other).await => continue,
                    _ => *seq,
                }
            }
        };
        let record = bytes::Bytes::from(owner_record(&live, Some(n)));
        let _ = tx.send(record.clone());
        match publish_owner(client, subject, record.clone(), expected).await {
            Ok(seq) => {
                return Ok(Member {
                    n,
                    id,
                    record,
                    seq,
                    responder,
                });
            }
            Err((code, _)) if code == WRONG_LAST_SEQUENCE => continue,
            Err((_, e)) => {
                responder.abort();
                return Err(request("publish the member record", e));
            }
        }
    }
    responder.abort();
    Err(OpenError::Locked {
        stream,
        holder: format!("all {MAX_MEMBERS} member numbers are held by live gateways"),
    })
}

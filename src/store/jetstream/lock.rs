//! One gateway per stream: the owner record on `<prefix>.store.lock` and
//! the owner's liveness subject (docs/cluster.md "One gateway per stream").
//!
//! The owner answers requests on a subject of its own while its connection
//! lives. A gateway opening the stream reads the owner record and asks that
//! subject: an answer means the stream is in use; "no responders" (the
//! server knows no such subscriber: the owner closed, or its process died
//! and the server dropped its connection) lets it take over by publishing
//! its own record with the last sequence it read as the expected one, so
//! that of two gateways taking over at once one wins. Every batch ends with
//! the owner record under the same expectation (src/store/jetstream/publish.rs),
//! so a gateway that was taken over cannot write any more.

use super::error::OpenError;
use super::publish::{WRONG_LAST_SEQUENCE, publish_owner};
use super::read::last_on;
use super::subjects::Subjects;
use async_nats::{Client, RequestErrorKind};
use futures_util::StreamExt;
use std::time::Duration;

/// How long a live owner has to answer.
const ASK_TIMEOUT: Duration = Duration::from_secs(2);
/// Attempts before an owner that exists but does not answer refuses the start.
const ASKS: usize = 3;

/// The owner record and liveness subject of this gateway.
pub struct Owner {
    /// The random id naming the liveness subject (16 hex digits).
    pub id: String,
    /// The record's payload (JSON: liveness subject, host, process id, start).
    pub record: bytes::Bytes,
    /// The sequence of the owner record now.
    pub seq: u64,
    /// Answers liveness requests until aborted.
    pub responder: tokio::task::JoinHandle<()>,
}

pub(super) fn random_id() -> String {
    let mut b = [0u8; 8];
    // Without randomness a clock-derived id still tells owners apart.
    if getrandom::fill(&mut b).is_err() {
        let nanos = std::time::SystemTime::now()
            .duration_since(std::time::UNIX_EPOCH)
            .map_or(0, |d| d.as_nanos() as u64);
        b = (nanos ^ u64::from(std::process::id())).to_be_bytes();
    }
    hex::encode(b)
}

/// The JSON record of an owner (or, with `member`, of a member of a shared
/// stream): its liveness subject `live`, member number, host name, process
/// id and start (seconds since the epoch), in that order.
pub(super) fn owner_record(live: &str, member: Option<u16>) -> String {
    let host = std::fs::read_to_string("/proc/sys/kernel/hostname")
        .map(|h| h.trim().to_string())
        .unwrap_or_default();
    let started = std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map_or(0, |d| d.as_secs());
    let mut r = serde_json::Map::new();
    r.insert("owner".into(), live.into());
    if let Some(n) = member {
        r.insert("member".into(), n.into());
    }
    r.insert("host".into(), host.into());
    r.insert("pid".into(), std::process::id().into());
    r.insert("started".into(), started.into());
    serde_json::Value::Object(r).to_string()
}

/// Takes the stream for this gateway, or says who holds it.
pub async fn acquire(client: &Client, subjects: &Subjects) -> Result<Owner, OpenError> {
    let stream = subjects.stream();
    let request = |op: &str, detail: String| OpenError::Request {
        op: format!("stream {stream}: {op}"),
        detail,
    };
    let last = last_on(client, &stream, &subjects.lock())
        .await
        .map_err(|e| request("read the owner record", e))?;
    let expected = last.as_ref().map_or(0, |(seq, _, _)| *seq);
    if let Some((_, _, payload)) = &last {
        let v: serde_json::Value = serde_json::from_slice(payload).unwrap_or_default();
        let holder = String::from_utf8_lossy(payload).into_owned();
        if v.get("shared").and_then(|s| s.as_bool()) == Some(true) {
            // Several gateways serve the stream (src/store/jetstream/members.rs):
            // refused while any of them answers on the members' subject.
            let ask = client.request(subjects.shared_owner(), bytes::Bytes::new());
            match tokio::time::timeout(ASK_TIMEOUT, ask).await {
                Ok(Err(e)) if matches!(e.kind(), RequestErrorKind::NoResponders) => {}
                Ok(Ok(reply)) => {
                    return Err(OpenError::Locked {
                        stream,
                        holder: format!(
                            "several gateways share it (storage.shared), one of them {}",
                            String::from_utf8_lossy(&reply.payload)
                        ),
                    });
                }
                _ => {
                    return Err(OpenError::Locked {
                        stream,
                        holder: "several gateways share it (storage.shared); none answered in time"
                            .into(),
                    });
                }
            }
        } else if let Some(live) = v.get("owner").and_then(|o| o.as_str()) {
            let mut asked = 0;
            loop {
                let ask = client.request(live.to_string(), bytes::Bytes::new());
                match tokio::time::timeout(ASK_TIMEOUT, ask).await {
                    Ok(Ok(reply)) => {
                        return Err(OpenError::Locked {
                            stream,
                            holder: String::from_utf8_lossy(&reply.payload).into_owned(),
                        });
                    }
                    Ok(Err(e)) if matches!(e.kind(), RequestErrorKind::NoResponders) => break,
                    _ if asked + 1 < ASKS => asked += 1,
                    _ => {
                        return Err(OpenError::Locked {
                            stream,
                            holder: format!("{holder}, subscribed but not answering"),
                        });
                    }
                }
            }
        }
    }
    let id = random_id();
    let live = subjects.owner(&id);
    let record = owner_record(&live, None);
    let record = bytes::Bytes::from(record);
    let mut sub = client
        .subscribe(live.clone())
        .await
        .map_err(|e| request("subscribe", e.to_string()))?;
    client
        .flush()
        .await
        .map_err(|e| request("flush", e.to_string()))?;
    let answer = record.clone();
    let replier = client.clone();
    let responder = tokio::spawn(async move {
        while let Some(m) = sub.next().await {
            if let Some(reply) = m.reply {
                let _ = replier.publish(reply, answer.clone()).await;
            }
        }
    });
    match publish_owner(client, subjects.lock(), record.clone(), expected).await {
        Ok(seq) => Ok(Owner {
            id,
            record,
            seq,
            responder,
        }),
        Err((code, e)) => {
            responder.abort();
            if code == WRONG_LAST_SEQUENCE {
                Err(OpenError::Locked {
                    stream,
                    holder: format!("another gateway took it at the same moment ({e})"),
                })
            } else {
                Err(request("publish the owner record", e))
            }
        }
    }
}

//! The tail of a shared stream (docs/cluster.md "The shared index"): an
//! ordered, headers-only consumer over every subject of the store from the
//! sequence the gateway's opening read ended at, turning each message into
//! the [`Change`] it makes to the queues: a record put or deleted, a claim
//! taken or given up by another gateway. Named state records only update
//! the sequence the next compare-and-set on them expects.

use super::read::{is_deleted, summary};
use super::subjects::{MEMBER, Subjects};
use crate::store::Change;
use async_nats::HeaderMap;
use async_nats::jetstream::consumer::{DeliverPolicy, pull::OrderedConfig};
use async_nats::jetstream::stream::Stream;
use futures_util::StreamExt;
use std::collections::HashMap;
use std::sync::mpsc::Sender;
use std::sync::{Arc, Mutex};
use std::time::Duration;

/// What the tail keeps between messages.
pub struct Tail {
    /// The store's subjects.
    pub subjects: Arc<Subjects>,
    /// This gateway's member number: its own claims are no news.
    pub member: u16,
    /// The summary of every live record, so that a deletion (which carries
    /// none) can name its message's queue.
    pub summaries: HashMap<u64, Vec<u8>>,
    /// The last sequence of each named state record seen.
    pub metas: Arc<Mutex<HashMap<String, u64>>>,
}

/// The TTL of a claim in ms from its `Nats-TTL` header (`30s`, or seconds
/// alone); `None` when absent or not understood.
pub fn ttl_ms(h: Option<&HeaderMap>) -> Option<u64> {
    // The client knows the header by its own spelling; compared as HTTP
    // header names are, without case.
    let (_, values) = h?
        .iter()
        .find(|(name, _)| AsRef::<str>::as_ref(*name).eq_ignore_ascii_case("Nats-TTL"))?;
    let v = values.first()?.as_str().to_string();
    let secs = v.strip_suffix('s').unwrap_or(&v);
    secs.parse::<u64>().ok().map(|s| s * 1000)
}

impl Tail {
    /// The change the message on `subject` with headers `h` makes (None:
    /// nothing a queue shows).
    pub fn change(&mut self, subject: &str, h: Option<&HeaderMap>, seq: u64) -> Option<Change> {
        if let Some(key) = self.subjects.key_of_record(subject) {
            if is_deleted(h) {
                let summary = self.summaries.remove(&key)?;
                return Some(Change::Delete { key, summary });
            }
            let summary = summary(h).ok()?;
            self.summaries.insert(key, summary.clone());
            return Some(Change::Put { key, summary });
        }
        if let Some(key) = self.subjects.key_of_lease(subject) {
            let summary = self.summaries.get(&key)?.clone();
            if is_deleted(h) {
                return Some(Change::Released { key, summary });
            }
            let member = h
                .and_then(|h| h.get(MEMBER))
                .and_then(|m| m.as_str().parse::<u16>().ok());
            if member == Some(self.member) {
                return None;
            }
            let ttl_ms = ttl_ms(h)?;
            return Some(Change::Claimed {
                key,
                summary,
                ttl_ms,
            });
        }
        if let Some(name) = self.subjects.name_of_meta(subject)
            && let Ok(mut m) = self.metas.lock()
        {
            let known = m.entry(name).or_insert(0);
            *known = (*known).max(seq);
        }
        None
    }

    /// Reads the stream from `start` on and hands every message's change
    /// to `tx` until the receiver is gone; a consumer that fails is made
    /// again from the sequence after the last one handed over.
    pub async fn run(mut self, stream: Stream, start: u64, tx: Sender<(u64, Option<Change>)>) {
        let mut next = start.max(1);
        loop {
            let config = OrderedConfig {
                filter_subject: self.subjects.all(),
                headers_only: true,
                deliver_policy: DeliverPolicy::ByStartSequence {
                    start_sequence: next,
                },
                ..OrderedConfig::default()
            };
            let messages = match stream.create_consumer(config).await {
                Ok(c) => c.messages().await,
                Err(e) => {
                    tracing::warn!(error = %e, "storage: the shared stream's tail cannot start; retrying");
                    tokio::time::sleep(Duration::from_millis(500)).await;
                    continue;
                }
            };
            let mut messages = match messages {
                Ok(m) => m,
                Err(e) => {
                    tracing::warn!(error = %e, "storage: the shared stream's tail cannot start; retrying");
                    tokio::time::sleep(Duration::from_millis(500)).await;
                    continue;
                }
            };
            while let Some(m) = messages.next().await {
                let m = match m {
                    Ok(m) => m,
                    Err(e) => {
                        tracing::warn!(error = %e, "storage: the shared stream's tail failed; starting it again");
                        break;
                    }
                };
                let Ok(seq) = m.info().map(|i| i.stream_sequence) else {
                    continue;
                };
                let change = self.change(m.subject.as_str(), m.headers.as_ref(), seq);
                if tx.send((seq, change)).is_err() {
                    return;
                }
                next = seq + 1;
            }
            tokio::time::sleep(Duration::from_millis(100)).await;
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::store::jetstream::subjects::{DELETED, SUMMARY};

    fn headers(pairs: &[(&'static str, &str)]) -> HeaderMap {
        let mut h = HeaderMap::new();
        for (k, v) in pairs {
            h.insert(*k, *v);
        }
        h
    }

    #[test]
    fn puts_deletes_claims_and_metas_become_changes() {
        let s = Arc::new(Subjects::new("P"));
        let metas = Arc::new(Mutex::new(HashMap::new()));
        let mut t = Tail {
            subjects: Arc::clone(&s),
            member: 1,
            summaries: HashMap::new(),
            metas: Arc::clone(&metas),
        };
        // "AQ==" is base64 of the byte 1 (RFC 4648).
        let put = headers(&[(SUMMARY, "AQ==")]);
        assert_eq!(
            t.change(&s.record(7), Some(&put), 10),
            Some(Change::Put {
                key: 7,
                summary: vec![1]
            })
        );
        let other = headers(&[(MEMBER, "2"), ("Nats-TTL", "30s")]);
        assert_eq!(
            t.change(&s.lease(7), Some(&other), 11),
            Some(Change::Claimed {
                key: 7,
                summary: vec![1],
                ttl_ms: 30_000
            })
        );
        // This gateway's own claim is no news.
        let own = headers(&[(MEMBER, "1"), ("Nats-TTL", "30s")]);
        assert_eq!(t.change(&s.lease(7), Some(&own), 12), None);
        let gone = headers(&[(DELETED, "1"), ("Nats-TTL", "1s")]);
        assert_eq!(
            t.change(&s.lease(7), Some(&gone), 13),
            Some(Change::Released {
                key: 7,
                summary: vec![1]
            })
        );
        assert_eq!(
            t.change(&s.record(7), Some(&gone), 14),
            Some(Change::Delete {
                key: 7,
                summary: vec![1]
            })
        );
        // A key deleted twice, or never seen, changes nothing.
        assert_eq!(t.change(&s.record(7), Some(&gone), 15), None);
        assert_eq!(t.change(&s.meta("channel/A"), None, 16), None);
        assert_eq!(t.change(&s.meta("channel/A"), None, 9), None);
        assert_eq!(metas.lock().unwrap().get("channel/A"), Some(&16));
        assert_eq!(t.change(&s.member(0), None, 17), None);
    }
}

//! Reading the stream: the last message of every subject under a filter
//! through an ordered consumer (headers only for the index), and one
//! record through STREAM.MSG.GET, which the stream leader answers.

use super::subjects::{CHUNKS, DELETED, SUMMARY, Subjects};
use async_nats::HeaderMap;
use async_nats::jetstream::consumer::DeliverPolicy;
use async_nats::jetstream::consumer::pull::OrderedConfig;
use async_nats::jetstream::stream::Stream;
use base64::Engine;
use futures_util::StreamExt;
use std::collections::{BTreeMap, HashMap};

/// One message as read: subject, headers, payload.
pub type Read = (String, Option<HeaderMap>, bytes::Bytes);

/// The last message of every subject matching `filter`, in stream order;
/// bodies left out when `headers_only`.
pub async fn last_per_subject(
    stream: &Stream,
    filter: String,
    headers_only: bool,
) -> Result<Vec<Read>, String> {
    let config = OrderedConfig {
        filter_subject: filter.clone(),
        deliver_policy: DeliverPolicy::LastPerSubject,
        headers_only,
        ..OrderedConfig::default()
    };
    let consumer = stream
        .create_consumer(config)
        .await
        .map_err(|e| format!("consumer on {filter}: {e}"))?;
    let mut out = Vec::new();
    if consumer.cached_info().num_pending == 0 {
        return Ok(out);
    }
    let mut messages = consumer
        .messages()
        .await
        .map_err(|e| format!("consumer on {filter}: {e}"))?;
    while let Some(m) = messages.next().await {
        let m = m.map_err(|e| format!("reading {filter}: {e}"))?;
        let pending = m
            .info()
            .map_err(|e| format!("reading {filter}: {e}"))?
            .pending;
        out.push((m.subject.to_string(), m.headers.clone(), m.payload.clone()));
        if pending == 0 {
            break;
        }
    }
    Ok(out)
}

/// True for a deletion marker.
pub fn is_deleted(h: Option<&HeaderMap>) -> bool {
    h.is_some_and(|h| h.get(DELETED).is_some())
}

/// The chunk count a record's first message announces (1 without one).
pub fn chunks(h: Option<&HeaderMap>) -> Result<u32, String> {
    match h.and_then(|h| h.get(CHUNKS)) {
        None => Ok(1),
        Some(v) => v
            .as_str()
            .parse()
            .map_err(|_| format!("{CHUNKS} {:?} is no number", v.as_str())),
    }
}

/// The summary a record's first message carries (empty without one).
pub fn summary(h: Option<&HeaderMap>) -> Result<Vec<u8>, String> {
    match h.and_then(|h| h.get(SUMMARY)) {
        None => Ok(Vec::new()),
        Some(v) => base64::engine::general_purpose::STANDARD
            .decode(v.as_str())
            .map_err(|e| format!("{SUMMARY} is not base64: {e}")),
    }
}

/// Live keys with their summaries, and the chunk counts above 1, from a
/// headers-only read of the record subjects.
pub type Index = (BTreeMap<u64, Vec<u8>>, HashMap<u64, u32>);

/// The index of the records: no record bodies are read.
pub async fn index(stream: &Stream, subjects: &Subjects) -> Result<Index, (Option<u64>, String)> {
    let read = last_per_subject(stream, subjects.records(), true)
        .await
        .map_err(|e| (None, e))?;
    let mut keys = BTreeMap::new();
    let mut multi = HashMap::new();
    for (subject, h, _) in read {
        let Some(key) = subjects.key_of_record(&subject) else {
            continue;
        };
        if is_deleted(h.as_ref()) {
            continue;
        }
        let n = chunks(h.as_ref()).map_err(|e| (Some(key), e))?;
        if n > 1 {
            multi.insert(key, n);
        }
        keys.insert(key, summary(h.as_ref()).map_err(|e| (Some(key), e))?);
    }
    Ok((keys, multi))
}

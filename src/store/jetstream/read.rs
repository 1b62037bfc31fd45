//! Reading the stream: the last message of every subject under a filter
//! through an ephemeral consumer (headers only for the index), and one
//! record through STREAM.MSG.GET, which the stream leader answers.

use super::subjects::{CHUNKS, DELETED, SUMMARY, Subjects};
use async_nats::jetstream::consumer::{AckPolicy, Consumer, DeliverPolicy, pull};
use async_nats::jetstream::stream::Stream;
use async_nats::{Client, HeaderMap};
use base64::Engine;
use futures_util::StreamExt;
use std::collections::{BTreeMap, HashMap};
use std::time::{Duration, Instant};

/// Messages asked for by one fetch.
const FETCH: u64 = 1000;
/// How long creating the consumer is retried.
const CREATE_LIMIT: Duration = Duration::from_secs(30);
/// How long reading one filter may take before it fails (a server that
/// stops answering ends the read instead of hanging it).
const READ_LIMIT: Duration = Duration::from_secs(600);

/// One message as read: subject, headers, payload.
pub type Read = (String, Option<HeaderMap>, bytes::Bytes);

/// The last message of every subject matching `filter`, in stream order;
/// bodies left out when `headers_only`.
///
/// An ephemeral pull consumer delivering the last message per subject,
/// fetched until the server counts nothing pending for it. The count is
/// asked afresh each round rather than taken from the last message's
/// metadata: a deletion marker that expires (`Nats-TTL`) after the consumer
/// was created is never delivered, and a count taken before would wait for
/// it.
pub async fn last_per_subject(
    stream: &Stream,
    filter: String,
    headers_only: bool,
) -> Result<Vec<Read>, String> {
    let read = last_per_subject_seq(stream, filter, headers_only).await?;
    Ok(read.into_iter().map(|(s, h, p, _)| (s, h, p)).collect())
}

/// [`last_per_subject`] with each message's stream sequence.
pub async fn last_per_subject_seq(
    stream: &Stream,
    filter: String,
    headers_only: bool,
) -> Result<Vec<(String, Option<HeaderMap>, bytes::Bytes, u64)>, String> {
    let config = pull::Config {
        filter_subject: filter.clone(),
        deliver_policy: DeliverPolicy::LastPerSubject,
        ack_policy: AckPolicy::None,
        headers_only,
        memory_storage: true,
        num_replicas: 1,
        inactive_threshold: Duration::from_secs(60),
        ..pull::Config::default()
    };
    // A cluster that lost a node answers consumer requests again once it
    // has elected new leaders: retried meanwhile.
    let started = Instant::now();
    let mut consumer = loop {
        match stream.create_consumer(config.clone()).await {
            Ok(c) => break c,
            Err(e) if started.elapsed() < CREATE_LIMIT => {
                tracing::warn!(error = %e, filter = %filter, "storage: creating a consumer failed; retrying");
                tokio::time::sleep(Duration::from_millis(250)).await;
            }
            Err(e) => return Err(format!("consumer on {filter}: {e}")),
        }
    };
    let result = fetch_all(&mut consumer, &filter).await;
    let name = consumer.cached_info().name.clone();
    // Removed at once; the inactivity threshold removes it otherwise.
    let _ = stream.delete_consumer(&name).await;
    result
}

async fn fetch_all(
    consumer: &mut Consumer<pull::Config>,
    filter: &str,
) -> Result<Vec<(String, Option<HeaderMap>, bytes::Bytes, u64)>, String> {
    let mut out = Vec::new();
    let started = Instant::now();
    loop {
        let pending = consumer
            .info()
            .await
            .map_err(|e| format!("reading {filter}: {e}"))?
            .num_pending;
        if pending == 0 {
            return Ok(out);
        }
        if started.elapsed() > READ_LIMIT {
            return Err(format!(
                "reading {filter}: {pending} messages still pending after {READ_LIMIT:?}"
            ));
        }
        let mut batch = consumer
            .fetch()
            .max_messages(pending.min(FETCH) as usize)
            .expires(Duration::from_secs(1))
            .messages()
            .await
            .map_err(|e| format!("reading {filter}: {e}"))?;
        while let Some(m) = batch.next().await {
            let m = m.map_err(|e| format!("reading {filter}: {e}"))?;
            let seq = m.info().map_or(0, |i| i.stream_sequence);
            out.push((
                m.subject.to_string(),
                m.headers.clone(),
                m.payload.clone(),
                seq,
            ));
        }
    }
}

/// The last message on `subject` of `stream`: (sequence, headers, payload),
/// `None` when the subject is empty (STREAM.MSG.GET, "JetStream API Reference").
pub async fn last_on(
    client: &Client,
    stream: &str,
    subject: &str,
) -> Result<Option<(u64, Option<async_nats::HeaderMap>, bytes::Bytes)>, String> {
    let js = async_nats::jetstream::new(client.clone());
    let stream = js
        .get_stream_no_info(stream)
        .await
        .map_err(|e| e.to_string())?;
    match stream.get_last_raw_message_by_subject(subject).await {
        Ok(m) => Ok(Some((m.sequence, Some(m.headers), m.payload))),
        Err(e)
            if matches!(
                e.kind(),
                async_nats::jetstream::stream::LastRawMessageErrorKind::NoMessageFound
            ) =>
        {
            Ok(None)
        }
        Err(e) => Err(e.to_string()),
    }
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

//! A [`Batch`] as the messages of one atomic batch publish (pure: no I/O).
//!
//! Each live key is one subject holding its record's first chunk; a record
//! longer than `max_chunk` bytes continues on part subjects. A put of a key
//! overwrites its slot (the stream keeps one message per subject) and marks
//! the parts a shorter record no longer uses as deleted; a delete marks the
//! record and its parts deleted. Meta names are their own subjects. The
//! owner record closes every batch (see [`super::lock`]).

use super::subjects::{CHUNKS, DELETED, SUMMARY, Subjects};
use crate::store::Batch;
use base64::Engine;
use std::collections::{BTreeMap, HashMap};

/// One message to publish.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Outgoing {
    /// Where it goes.
    pub subject: String,
    /// Headers besides the batch's own.
    pub headers: Vec<(&'static str, String)>,
    /// The payload.
    pub payload: bytes::Bytes,
}

/// The messages of a batch and the chunk counts it leaves.
#[derive(Debug, Default)]
pub struct Plan {
    /// In publishing order (the owner record is added by the publisher).
    pub messages: Vec<Outgoing>,
    /// Keys whose chunk count changes: `Some(n)` for a record of `n` > 1
    /// chunks, `None` for a key that is now one chunk or gone.
    pub chunks: Vec<(u64, Option<u32>)>,
}

fn deleted(subject: String, ttl: &str) -> Outgoing {
    Outgoing {
        subject,
        headers: vec![(DELETED, "1".into()), ("Nats-TTL", ttl.into())],
        payload: bytes::Bytes::new(),
    }
}

/// The messages that apply `batch`, given the chunk counts of the records
/// longer than one chunk now (`multi`), cutting records into chunks of at
/// most `max_chunk` bytes (> 0), deletion markers living `deleted_ttl`
/// (a `Nats-TTL` value: `DELETED_TTL`, or `SHARED_DELETED_TTL` on a shared
/// stream).
pub fn plan(
    batch: &Batch,
    subjects: &Subjects,
    multi: &HashMap<u64, u32>,
    max_chunk: usize,
    deleted_ttl: &str,
) -> Plan {
    // The contract's rules: the last put of a key wins, deletes after puts,
    // the last meta of a name wins, a summary only for a key put.
    let mut puts: BTreeMap<u64, &[u8]> = BTreeMap::new();
    for (k, v) in &batch.puts {
        puts.insert(*k, v);
    }
    let deletes: BTreeMap<u64, ()> = batch.deletes.iter().map(|k| (*k, ())).collect();
    for k in deletes.keys() {
        puts.remove(k);
    }
    let summaries: HashMap<u64, &[u8]> = batch
        .summaries
        .iter()
        .map(|(k, v)| (*k, v.as_slice()))
        .collect();
    let mut meta: BTreeMap<&str, &[u8]> = BTreeMap::new();
    for (n, v) in &batch.meta {
        meta.insert(n, v);
    }
    let mut out = Plan::default();
    for (&key, &record) in &puts {
        let mut headers = Vec::new();
        if let Some(s) = summaries.get(&key).filter(|s| !s.is_empty()) {
            headers.push((SUMMARY, base64::engine::general_purpose::STANDARD.encode(s)));
        }
        // The first chunk shares its message with the summary.
        let first = max_chunk
            .saturating_sub(headers.iter().map(|(_, v)| v.len()).sum())
            .max(1)
            .min(record.len());
        let (head, tail) = record.split_at(first);
        let pieces: Vec<&[u8]> = std::iter::once(head)
            .chain(tail.chunks(max_chunk))
            .collect();
        let n = pieces.len() as u32;
        if n > 1 {
            headers.push((CHUNKS, n.to_string()));
        }
        out.messages.push(Outgoing {
            subject: subjects.record(key),
            headers,
            payload: bytes::Bytes::copy_from_slice(pieces[0]),
        });
        for (i, piece) in pieces.iter().enumerate().skip(1) {
            out.messages.push(Outgoing {
                subject: subjects.part(key, i as u32),
                headers: Vec::new(),
                payload: bytes::Bytes::copy_from_slice(piece),
            });
        }
        let before = multi.get(&key).copied().unwrap_or(1);
        for i in n..before {
            out.messages
                .push(deleted(subjects.part(key, i), deleted_ttl));
        }
        if n != before {
            out.chunks.push((key, (n > 1).then_some(n)));
        }
    }
    for &key in deletes.keys() {
        out.messages
            .push(deleted(subjects.record(key), deleted_ttl));
        let before = multi.get(&key).copied().unwrap_or(1);
        for i in 1..before {
            out.messages
                .push(deleted(subjects.part(key, i), deleted_ttl));
        }
        if before > 1 {
            out.chunks.push((key, None));
        }
    }
    for (name, value) in meta {
        out.messages.push(Outgoing {
            subject: subjects.meta(name),
            headers: Vec::new(),
            payload: bytes::Bytes::copy_from_slice(value),
        });
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::store::jetstream::subjects::DELETED_TTL;

    fn subjects_of(p: &Plan) -> Vec<&str> {
        p.messages.iter().map(|m| m.subject.as_str()).collect()
    }

    #[test]
    fn last_put_wins_deletes_follow_and_summaries_ride_in_headers() {
        let s = Subjects::new("P");
        let batch = Batch {
            puts: vec![
                (2, b"a".to_vec()),
                (1, b"x".to_vec()),
                (2, b"b".to_vec()),
                (3, vec![]),
            ],
            deletes: vec![3, 9],
            meta: vec![("m".into(), b"1".to_vec()), ("m".into(), b"2".to_vec())],
            summaries: vec![(2, b"\x00\xff".to_vec()), (8, b"ignored".to_vec())],
        };
        let p = plan(&batch, &s, &HashMap::new(), 4, DELETED_TTL);
        assert_eq!(
            subjects_of(&p),
            [
                "P.store.rec.1",
                "P.store.rec.2",
                "P.store.rec.3",
                "P.store.rec.9",
                "P.store.meta.n6d"
            ]
        );
        assert_eq!(&p.messages[1].payload[..], b"b");
        // base64 of 00 ff (RFC 4648 section 4).
        assert_eq!(p.messages[1].headers, vec![(SUMMARY, "AP8=".to_string())]);
        assert!(p.messages[0].headers.is_empty());
        assert_eq!(p.messages[2].headers[0], (DELETED, "1".to_string()));
        assert_eq!(&p.messages[4].payload[..], b"2");
        assert!(p.chunks.is_empty());
    }

    #[test]
    fn long_records_are_cut_and_shrinking_or_deleting_marks_old_parts() {
        let s = Subjects::new("P");
        let put = Batch {
            puts: vec![(5, b"0123456789".to_vec())],
            ..Batch::default()
        };
        let p = plan(&put, &s, &HashMap::new(), 4, DELETED_TTL);
        assert_eq!(
            subjects_of(&p),
            ["P.store.rec.5", "P.store.part.5.1", "P.store.part.5.2"]
        );
        assert_eq!(p.messages[0].headers, vec![(CHUNKS, "3".to_string())]);
        assert_eq!(&p.messages[2].payload[..], b"89");
        assert_eq!(p.chunks, vec![(5, Some(3))]);
        let multi = HashMap::from([(5, 3)]);
        let shrink = Batch {
            puts: vec![(5, b"01234".to_vec())],
            ..Batch::default()
        };
        let p = plan(&shrink, &s, &multi, 4, DELETED_TTL);
        assert_eq!(
            subjects_of(&p),
            ["P.store.rec.5", "P.store.part.5.1", "P.store.part.5.2"]
        );
        assert_eq!(p.messages[2].headers[0], (DELETED, "1".to_string()));
        assert_eq!(p.chunks, vec![(5, Some(2))]);
        let delete = Batch {
            deletes: vec![5],
            ..Batch::default()
        };
        let p = plan(&delete, &s, &multi, 4, DELETED_TTL);
        assert_eq!(
            subjects_of(&p),
            ["P.store.rec.5", "P.store.part.5.1", "P.store.part.5.2"]
        );
        assert!(p.messages.iter().all(|m| m.headers[0].0 == DELETED));
        assert_eq!(p.chunks, vec![(5, None)]);
    }

    #[test]
    fn a_summary_shortens_the_first_chunk() {
        // "AAAA" is the base64 of 00 00 00 (RFC 4648 section 4): four bytes
        // of header leave 6 of 10 for the first chunk.
        let s = Subjects::new("P");
        let put = Batch {
            puts: vec![(1, b"abcdefghijklmn".to_vec())],
            summaries: vec![(1, vec![0, 0, 0])],
            ..Batch::default()
        };
        let p = plan(&put, &s, &HashMap::new(), 10, DELETED_TTL);
        let payloads: Vec<&[u8]> = p.messages.iter().map(|m| &m.payload[..]).collect();
        assert_eq!(payloads, [&b"abcdef"[..], b"ghijklmn"]);
        assert_eq!(
            p.messages[0].headers,
            vec![(SUMMARY, "AAAA".to_string()), (CHUNKS, "2".to_string())]
        );
    }
}

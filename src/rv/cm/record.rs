//! The durable ledgers' records in the gateway's store: state records of
//! the queue interface (`Mqi::meta_prefixed`, `Mqi::put_meta`), one batch
//! per change, so each change is on disk before the call that made it
//! returns (`syncLedger`, C Reference, "tibrvcmTransport_Create()";
//! docs/rendezvous.md "Ledgers").
//!
//! | record | content |
//! |---|---|
//! | `rvcm/t/<name hex>` | a persistent transport's settings (JSON); empty once closed |
//! | `rvcm/s/<name hex>` | its sender state: next sequence number per subject, registrations, disallowed listeners, slot count (JSON) |
//! | `rvcm/s/<name hex>/<slot>` | a kept message: u32 length of a JSON header (sent, deadline, listeners waiting), the header, the labeled envelope in mqgate's binary form; empty when the slot is free |
//! | `rvcm/l/<name hex>` | its listener ledger: certified agreements and confirmed numbers (JSON) |
//!
//! Names are hex-encoded so that no correspondent name's record can look
//! like another's. Records are read once, when the gateway starts; the
//! store keeps records it is given, so freed slots are reused rather than
//! left behind.

use std::collections::{BTreeMap, BTreeSet};

use mqgate_codecs::rv::msg::{Envelope, Limits};
use serde::{Deserialize, Serialize};

use super::listener::StoredAgreement;
use super::sender::{Pending, SenderState};
use super::seqset::SeqSet;

/// Prefix of the transport records.
pub const TRANSPORT_PREFIX: &str = "rvcm/t/";

/// The record name of transport `name`'s settings.
pub fn transport_key(name: &str) -> String {
    format!("{TRANSPORT_PREFIX}{}", hex::encode(name))
}

/// The record name of sender `name`'s state.
pub fn sender_key(name: &str) -> String {
    format!("rvcm/s/{}", hex::encode(name))
}

/// The record name of slot `slot` of sender `name`.
pub fn slot_key(name: &str, slot: u32) -> String {
    format!("rvcm/s/{}/{slot}", hex::encode(name))
}

/// The prefix of sender `name`'s slot records.
pub fn slot_prefix(name: &str) -> String {
    format!("rvcm/s/{}/", hex::encode(name))
}

/// The record name of listener `name`'s ledger.
pub fn listener_key(name: &str) -> String {
    format!("rvcm/l/{}", hex::encode(name))
}

/// The correspondent name of a transport record's name.
pub fn name_of_transport_key(key: &str) -> Option<String> {
    let hexed = key.strip_prefix(TRANSPORT_PREFIX)?;
    String::from_utf8(hex::decode(hexed).ok()?).ok()
}

/// A record that cannot be read: which and why.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
#[error("certified delivery ledger record {key}: {problem}")]
pub struct RecordError {
    /// The record's name.
    pub key: String,
    /// What is wrong.
    pub problem: String,
}

fn bad(key: &str, problem: impl ToString) -> RecordError {
    RecordError {
        key: key.to_string(),
        problem: problem.to_string(),
    }
}

/// A persistent transport's settings.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct TransportRecord {
    /// `requestOld`.
    pub request_old: bool,
    /// Default time limit, seconds (0 = none).
    pub default_time_limit_s: f64,
    /// Interval of DELIVERY.NO_RESPONSE, ms.
    pub no_response_ms: u64,
}

impl TransportRecord {
    /// Its bytes.
    pub fn encode(&self) -> Vec<u8> {
        serde_json::to_vec(self).unwrap_or_default()
    }

    /// Reads it; `Ok(None)` for a closed transport (an empty record).
    ///
    /// Errors: [`RecordError`].
    pub fn decode(key: &str, bytes: &[u8]) -> Result<Option<TransportRecord>, RecordError> {
        if bytes.is_empty() {
            return Ok(None);
        }
        serde_json::from_slice(bytes)
            .map(Some)
            .map_err(|e| bad(key, e))
    }
}

#[derive(Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
struct SenderStateJson {
    next: BTreeMap<String, u64>,
    registrations: BTreeMap<String, BTreeMap<String, u64>>,
    disallowed: BTreeSet<String>,
    slots: u32,
}

/// The sender state's bytes.
pub fn encode_sender_state(s: &SenderState) -> Vec<u8> {
    serde_json::to_vec(&SenderStateJson {
        next: s.next.clone(),
        registrations: s.registrations.clone(),
        disallowed: s.disallowed.clone(),
        slots: s.slots,
    })
    .unwrap_or_default()
}

/// Reads a sender state (an empty record: a new sender).
///
/// Errors: [`RecordError`].
pub fn decode_sender_state(key: &str, bytes: &[u8]) -> Result<SenderState, RecordError> {
    if bytes.is_empty() {
        return Ok(SenderState::default());
    }
    let j: SenderStateJson = serde_json::from_slice(bytes).map_err(|e| bad(key, e))?;
    Ok(SenderState {
        next: j.next,
        registrations: j.registrations,
        disallowed: j.disallowed,
        slots: j.slots,
    })
}

#[derive(Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
struct SlotHeader {
    sent_ms: u64,
    deadline_ms: Option<u64>,
    waiting: BTreeSet<String>,
}

/// A kept message's bytes; empty for a free slot.
///
/// Errors: the envelope breaks `limits` (it was checked when sent, so
/// only a lowered limit does this).
pub fn encode_slot(p: Option<&Pending>, limits: &Limits) -> Result<Vec<u8>, String> {
    let Some(p) = p else {
        return Ok(Vec::new());
    };
    let header = serde_json::to_vec(&SlotHeader {
        sent_ms: p.sent_ms,
        deadline_ms: p.deadline_ms,
        waiting: p.waiting.clone(),
    })
    .map_err(|e| e.to_string())?;
    let env = p.envelope.encode(limits).map_err(|e| e.to_string())?;
    let len = u32::try_from(header.len()).map_err(|e| e.to_string())?;
    let mut out = Vec::with_capacity(4 + header.len() + env.len());
    out.extend_from_slice(&len.to_be_bytes());
    out.extend_from_slice(&header);
    out.extend_from_slice(&env);
    Ok(out)
}

/// Reads slot `slot`; `Ok(None)` when it is free.
///
/// Errors: [`RecordError`] (cut short, a header length past the end, bad
/// JSON, an envelope that is not mqgate's binary form or has no labels).
pub fn decode_slot(
    key: &str,
    slot: u32,
    bytes: &[u8],
    limits: &Limits,
) -> Result<Option<Pending>, RecordError> {
    if bytes.is_empty() {
        return Ok(None);
    }
    let Some((len, rest)) = bytes.split_first_chunk::<4>() else {
        return Err(bad(key, "shorter than its 4-byte header length"));
    };
    let len = u32::from_be_bytes(*len) as usize;
    if len > rest.len() {
        return Err(bad(
            key,
            format!("header length {len} is past the record's end"),
        ));
    }
    let (header, env) = rest.split_at(len);
    let h: SlotHeader = serde_json::from_slice(header).map_err(|e| bad(key, e))?;
    let envelope = Envelope::decode(env, limits).map_err(|e| bad(key, e))?;
    if envelope.cm.is_none() {
        return Err(bad(
            key,
            "the kept message has no certified delivery labels",
        ));
    }
    Ok(Some(Pending {
        envelope,
        sent_ms: h.sent_ms,
        deadline_ms: h.deadline_ms,
        waiting: h.waiting,
        slot,
    }))
}

#[derive(Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
struct AgreementJson {
    sender: String,
    subject: String,
    begin: u64,
    floor: u64,
    above: Vec<u64>,
}

#[derive(Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
struct ListenerJson {
    agreements: Vec<AgreementJson>,
}

/// A listener ledger's bytes.
pub fn encode_listener(agreements: &[StoredAgreement]) -> Vec<u8> {
    serde_json::to_vec(&ListenerJson {
        agreements: agreements
            .iter()
            .map(|a| AgreementJson {
                sender: a.sender.clone(),
                subject: a.subject.clone(),
                begin: a.begin,
                floor: a.confirmed.floor(),
                above: a.confirmed.above().collect(),
            })
            .collect(),
    })
    .unwrap_or_default()
}

/// Reads a listener ledger (an empty record: a new listener).
///
/// Errors: [`RecordError`].
pub fn decode_listener(key: &str, bytes: &[u8]) -> Result<Vec<StoredAgreement>, RecordError> {
    if bytes.is_empty() {
        return Ok(Vec::new());
    }
    let j: ListenerJson = serde_json::from_slice(bytes).map_err(|e| bad(key, e))?;
    Ok(j.agreements
        .into_iter()
        .map(|a| StoredAgreement {
            sender: a.sender,
            subject: a.subject,
            begin: a.begin,
            confirmed: SeqSet::new(a.floor, a.above),
        })
        .collect())
}

#[cfg(test)]
mod tests {
    use super::*;
    use mqgate_codecs::rv::msg::{CmLabels, Field, Message, Value};

    #[test]
    fn keys_are_unambiguous_and_read_back() {
        // "X/3" would collide with slot 3 of "X" without the hex encoding.
        assert_ne!(sender_key("X/3"), slot_key("X", 3));
        assert_eq!(transport_key("A.B"), "rvcm/t/412e42");
        assert_eq!(
            name_of_transport_key(&transport_key("PRICER.1")).as_deref(),
            Some("PRICER.1")
        );
        assert_eq!(name_of_transport_key("rvcm/t/zz"), None);
    }

    #[test]
    fn records_round_trip() {
        let limits = Limits::default();
        let p = Pending {
            envelope: Envelope {
                subject: "A".into(),
                reply_subject: None,
                cm: Some(CmLabels {
                    sender: "S".into(),
                    sequence: 4,
                    time_limit: 1.5,
                }),
                message: Message::new(vec![Field::new("x", Value::U8(1))]),
            },
            sent_ms: 10,
            deadline_ms: Some(1510),
            waiting: BTreeSet::from(["L".to_string()]),
            slot: 2,
        };
        let bytes = encode_slot(Some(&p), &limits).unwrap();
        assert_eq!(decode_slot("k", 2, &bytes, &limits).unwrap(), Some(p));
        assert_eq!(decode_slot("k", 2, &[], &limits).unwrap(), None);
        let mut state = SenderState::default();
        state.next.insert("A".into(), 5);
        state.disallowed.insert("BAD".into());
        state.slots = 3;
        let back = decode_sender_state("k", &encode_sender_state(&state)).unwrap();
        assert_eq!(back, state);
        let ag = vec![StoredAgreement {
            sender: "S".into(),
            subject: "A".into(),
            begin: 2,
            confirmed: SeqSet::new(3, [5]),
        }];
        assert_eq!(decode_listener("k", &encode_listener(&ag)).unwrap(), ag);
    }

    #[test]
    fn damaged_records_are_errors_not_panics() {
        let limits = Limits::default();
        let e = decode_slot("rvcm/s/53/0", 0, &[0, 0], &limits).unwrap_err();
        assert_eq!(e.problem, "shorter than its 4-byte header length");
        let e = decode_slot("k", 0, &[0, 0, 0, 9, b'{'], &limits).unwrap_err();
        assert_eq!(e.problem, "header length 9 is past the record's end");
        assert!(decode_listener("k", b"{").is_err());
        assert!(TransportRecord::decode("k", b"[]").is_err());
        assert_eq!(TransportRecord::decode("k", b"").unwrap(), None);
    }
}

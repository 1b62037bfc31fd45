//! A message's index entry: what the queue manager keeps in memory of a
//! message whose MQMD and data are in the store (docs/performance.md
//! "Devices at scale"), and its summary record, written beside the message's
//! store record in the same transaction ([`crate::store::Batch::summaries`])
//! so that a start reads summaries, not messages.
//!
//! Summary layout (little-endian): version (u8 = 1), flags (u8: bit 0
//! persistent, bit 1 an expiry report wanted, bit 2 CorrelId or GroupId
//! present), priority (u8, 0-9 as queued), BackoutCount (i32), expiry time in
//! ms since the epoch (u64, 0 = never), data length (u32), the time it was
//! put on its queue in seconds since the epoch (u32), MsgId (24 bytes),
//! then CorrelId and GroupId (24 bytes each) when bit 2 is set, then the
//! queue-name length (u8) and name. Pure: no I/O.

use super::message::Message;
use super::queue::Position;
use crate::store::Batch;
use mqgate_codecs::mq::constants::{per, ro};
use mqgate_codecs::mq::md::{ID_NONE, Id24};

const VERSION: u8 = 1;
const PERSISTENT: u8 = 1;
const EXPIRY_REPORT: u8 = 2;
const OTHER_IDS: u8 = 4;
/// Bytes before the MsgId: version, flags, priority, BackoutCount, expiry,
/// data length, put time.
const FIXED: usize = 1 + 1 + 1 + 4 + 8 + 4 + 4;

/// CorrelId and GroupId, kept only when one of them is not MQCI_NONE /
/// MQGI_NONE (most messages carry neither: 8 bytes of pointer instead of 48).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct OtherIds {
    pub correl_id: Id24,
    pub group_id: Id24,
}

/// The in-memory index of one message: the ids MQGET matches on, expiry,
/// size, BackoutCount, and whether the message is persistent (then its MQMD
/// and data are read from the store under its position's sequence number
/// when a get needs them). 56 bytes.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct MsgIndex {
    pub msg_id: Id24,
    other_ids: Option<Box<OtherIds>>,
    /// When it expires, ms since the epoch; 0 = never (MQEI_UNLIMITED).
    expires_at_ms: u64,
    /// Bytes of message data.
    pub data_len: u32,
    /// MQMD BackoutCount.
    pub backout_count: i32,
    /// When it was put on this queue, seconds since the epoch: the age of
    /// the oldest message (IBM MQ "DISPLAY QSTATUS", MSGAGE) without a
    /// store read. Fits the entry's padding: still 56 bytes.
    pub put_s: u32,
    flags: u8,
}

impl MsgIndex {
    /// The index entry of `msg`.
    pub fn of(msg: &Message) -> MsgIndex {
        let md = &msg.md;
        let other_ids = (md.correl_id != ID_NONE || md.group_id != ID_NONE).then(|| {
            Box::new(OtherIds {
                correl_id: md.correl_id,
                group_id: md.group_id,
            })
        });
        let mut flags = 0;
        if md.persistence == per::PERSISTENT {
            flags |= PERSISTENT;
        }
        if md.report & ro::EXPIRATION != 0 {
            flags |= EXPIRY_REPORT;
        }
        MsgIndex {
            msg_id: md.msg_id,
            other_ids,
            expires_at_ms: msg.expires_at_ms.unwrap_or(0),
            data_len: u32::try_from(msg.data.len()).unwrap_or(u32::MAX),
            backout_count: md.backout_count,
            put_s: u32::try_from(super::clock::now_ms() / 1000).unwrap_or(u32::MAX),
            flags,
        }
    }

    /// MQMD CorrelId (MQCI_NONE when not kept).
    pub fn correl_id(&self) -> Id24 {
        self.other_ids.as_ref().map_or(ID_NONE, |o| o.correl_id)
    }

    /// MQMD GroupId (MQGI_NONE when not kept).
    pub fn group_id(&self) -> Id24 {
        self.other_ids.as_ref().map_or(ID_NONE, |o| o.group_id)
    }

    /// True for MQPER_PERSISTENT: the message is (or will be, once its unit
    /// of work commits) in the store.
    pub fn is_persistent(&self) -> bool {
        self.flags & PERSISTENT != 0
    }

    /// True when the message asked for an expiry report (MQRO_EXPIRATION*):
    /// its MQMD and data are needed when it expires.
    pub fn wants_expiry_report(&self) -> bool {
        self.flags & EXPIRY_REPORT != 0
    }

    /// True when the message has expired at `now_ms`.
    pub fn is_expired(&self, now_ms: u64) -> bool {
        self.expires_at_ms != 0 && now_ms >= self.expires_at_ms
    }
}

/// Why a summary cannot be read: what is wrong and at which byte.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
pub enum SummaryError {
    /// Fewer bytes than the fields need.
    #[error("summary of {len} bytes is shorter than the {need} bytes its fields need")]
    Short { len: usize, need: usize },
    /// Another layout version at byte 0.
    #[error("summary version {0} at offset 0 is not 1")]
    Version(u8),
    /// The queue name is not ASCII.
    #[error("queue name at offset {offset} is not ASCII")]
    Name { offset: usize },
}

/// Appends the store record (src/qmgr/record.rs) and the summary of `msg`
/// at `pos` of `queue` to `batch` (store key: the position's sequence
/// number).
pub fn stage_put(batch: &mut Batch, pos: Position, queue: &str, msg: &Message) {
    let (rank, key) = pos;
    batch.puts.push((key, super::record::encode(queue, msg)));
    batch
        .summaries
        .push((key, encode(queue, &MsgIndex::of(msg), 9 - rank.min(9))));
}

/// The summary of `index` on `queue`, queued at `priority` (0-9).
pub fn encode(queue: &str, index: &MsgIndex, priority: u8) -> Vec<u8> {
    let name = queue.as_bytes();
    let name_len = name.len().min(u8::MAX as usize);
    let ids = if index.other_ids.is_some() { 72 } else { 24 };
    let mut out = Vec::with_capacity(FIXED + ids + 1 + name_len);
    let flags = index.flags
        | if index.other_ids.is_some() {
            OTHER_IDS
        } else {
            0
        };
    out.push(VERSION);
    out.push(flags);
    out.push(priority);
    out.extend_from_slice(&index.backout_count.to_le_bytes());
    out.extend_from_slice(&index.expires_at_ms.to_le_bytes());
    out.extend_from_slice(&index.data_len.to_le_bytes());
    out.extend_from_slice(&index.put_s.to_le_bytes());
    out.extend_from_slice(&index.msg_id);
    if let Some(o) = &index.other_ids {
        out.extend_from_slice(&o.correl_id);
        out.extend_from_slice(&o.group_id);
    }
    out.push(name_len as u8);
    out.extend_from_slice(&name[..name_len]);
    out
}

/// A summary read back: its queue (borrowed from the summary: a start
/// copies a queue name only when it creates the queue), the priority it
/// was queued at, and the index entry.
#[derive(Debug, PartialEq, Eq)]
pub struct Summary<'a> {
    pub queue: &'a str,
    pub priority: u8,
    pub index: MsgIndex,
}

/// Reads a summary; every length is checked before it is used.
pub fn decode(s: &[u8]) -> Result<Summary<'_>, SummaryError> {
    let short = |need: usize| SummaryError::Short { len: s.len(), need };
    let fixed = s.get(..FIXED).ok_or_else(|| short(FIXED + 24 + 1))?;
    if fixed[0] != VERSION {
        return Err(SummaryError::Version(fixed[0]));
    }
    let flags = fixed[1];
    let priority = fixed[2];
    let le4 = |at: usize| [fixed[at], fixed[at + 1], fixed[at + 2], fixed[at + 3]];
    let backout_count = i32::from_le_bytes(le4(3));
    let mut expiry = [0u8; 8];
    expiry.copy_from_slice(&fixed[7..15]);
    let data_len = u32::from_le_bytes(le4(15));
    let put_s = u32::from_le_bytes(le4(19));
    let ids = if flags & OTHER_IDS != 0 { 72 } else { 24 };
    let name_at = FIXED + ids + 1;
    let id_bytes = s.get(FIXED..FIXED + ids).ok_or_else(|| short(name_at))?;
    let id = |at: usize| {
        let mut v = ID_NONE;
        v.copy_from_slice(&id_bytes[at..at + 24]);
        v
    };
    let name_len = usize::from(*s.get(name_at - 1).ok_or_else(|| short(name_at))?);
    let name = s
        .get(name_at..name_at + name_len)
        .ok_or_else(|| short(name_at + name_len))?;
    let queue = std::str::from_utf8(name)
        .ok()
        .filter(|n| n.is_ascii())
        .ok_or(SummaryError::Name { offset: name_at })?;
    let other_ids = (flags & OTHER_IDS != 0).then(|| {
        Box::new(OtherIds {
            correl_id: id(24),
            group_id: id(48),
        })
    });
    Ok(Summary {
        queue,
        priority,
        index: MsgIndex {
            msg_id: id(0),
            other_ids,
            expires_at_ms: u64::from_le_bytes(expiry),
            data_len,
            backout_count,
            put_s,
            flags: flags & (PERSISTENT | EXPIRY_REPORT),
        },
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use bytes::Bytes;
    use mqgate_codecs::mq::{Charset, Mqmd};

    fn msg(correl_id: Id24, report: i32) -> Message {
        Message {
            md: Mqmd {
                msg_id: [7; 24],
                correl_id,
                persistence: per::PERSISTENT,
                backout_count: 3,
                report,
                ..Mqmd::default()
            },
            charset: Charset::Ascii,
            data: Bytes::from_static(b"hello"),
            expires_at_ms: Some(1234),
        }
    }

    #[test]
    fn an_index_entry_is_56_bytes_and_keeps_other_ids_only_when_set() {
        assert_eq!(std::mem::size_of::<MsgIndex>(), 56);
        let plain = MsgIndex::of(&msg(ID_NONE, 0));
        assert!(plain.other_ids.is_none());
        assert_eq!(plain.correl_id(), ID_NONE);
        let correlated = MsgIndex::of(&msg([9; 24], 0));
        assert_eq!(correlated.correl_id(), [9; 24]);
        assert_eq!(correlated.group_id(), ID_NONE);
    }

    #[test]
    fn a_summary_round_trips() {
        // 23 fixed bytes, the ids, the name's length and the name (module
        // documentation).
        // MQRO_EXPIRATION (IBM MQ "Report (MQLONG)": 0x00200000).
        for (m, len) in [
            (msg(ID_NONE, 0), 23 + 24 + 1 + 6),
            (msg([9; 24], 0x0020_0000), 23 + 72 + 1 + 6),
        ] {
            let index = MsgIndex::of(&m);
            let s = encode("APP.IN", &index, 4);
            assert_eq!(s.len(), len);
            let back = decode(&s).unwrap();
            assert_eq!(back.queue, "APP.IN");
            assert_eq!(back.priority, 4);
            assert_eq!(back.index, index);
            assert!(back.index.is_persistent());
            assert_eq!(back.index.backout_count, 3);
            assert_eq!(back.index.data_len, 5);
            assert_eq!(back.index.put_s, index.put_s);
            assert!(index.put_s > 1_700_000_000, "put now: {}", index.put_s);
            assert!(back.index.is_expired(1234) && !back.index.is_expired(1233));
        }
        assert!(MsgIndex::of(&msg(ID_NONE, 0x0020_0000)).wants_expiry_report());
    }

    #[test]
    fn damaged_summaries_are_refused_with_what_and_where() {
        let s = encode("Q", &MsgIndex::of(&msg(ID_NONE, 0)), 0);
        assert_eq!(
            decode(&s[..5]),
            Err(SummaryError::Short { len: 5, need: 48 })
        );
        assert_eq!(
            decode(&s[..s.len() - 1]),
            Err(SummaryError::Short { len: 48, need: 49 })
        );
        let mut bad = s.clone();
        bad[0] = 2;
        assert_eq!(decode(&bad), Err(SummaryError::Version(2)));
        let mut bad = s;
        *bad.last_mut().unwrap() = 0xC3;
        assert_eq!(decode(&bad), Err(SummaryError::Name { offset: 48 }));
    }
}

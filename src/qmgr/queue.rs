//! A local queue's contents: messages in priority order, FIFO within a priority
//! (MQ MSGDLVSQ(PRIORITY)), each ready or held by a unit of work.

use super::message::Message;
use crate::config::LocalQueueDef;
use mqgate_codecs::mq::md::Id24;
use std::collections::BTreeMap;
use std::sync::Arc;
use tokio::sync::Notify;

/// A message's place in its queue: (9 - priority, sequence number). Iterating the
/// map in key order gives the delivery order; the sequence number is also the
/// message's key in the durable store.
pub type Position = (u8, u64);

/// The key of a message with `priority` (clamped to 0-9) put as number `seq`.
pub fn position(priority: i32, seq: u64) -> Position {
    (9 - priority.clamp(0, 9) as u8, seq)
}

/// Who may see a message.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum EntryState {
    /// Committed and available to get and browse.
    Ready,
    /// Put in this unit of work, not yet committed: invisible.
    Putting(u64),
    /// Got in this unit of work, not yet committed: invisible.
    Getting(u64),
}

/// One message with its state.
#[derive(Debug)]
pub struct Entry {
    pub msg: Message,
    pub state: EntryState,
}

/// Which messages a get or browse wants (MQMO_MATCH_MSG_ID /
/// MATCH_CORREL_ID / MATCH_GROUP_ID: every id given must match).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Selector {
    pub msg_id: Option<Id24>,
    pub correl_id: Option<Id24>,
    pub group_id: Option<Id24>,
}

impl Selector {
    /// True when `msg` matches every id given.
    pub fn matches(&self, msg: &Message) -> bool {
        self.msg_id.is_none_or(|id| msg.md.msg_id == id)
            && self.correl_id.is_none_or(|id| msg.md.correl_id == id)
            && self.group_id.is_none_or(|id| msg.md.group_id == id)
    }
}

/// A local queue: its definition and its messages.
#[derive(Debug)]
pub struct LocalQueue {
    pub def: LocalQueueDef,
    pub entries: BTreeMap<Position, Entry>,
    /// Persistent puts admitted against MAXDEPTH but still being written.
    pub reserved: usize,
    /// Woken whenever a message becomes ready (commit, backout, put).
    pub notify: Arc<Notify>,
}

impl LocalQueue {
    /// An empty queue.
    pub fn new(def: LocalQueueDef) -> Self {
        LocalQueue {
            def,
            entries: BTreeMap::new(),
            reserved: 0,
            notify: Arc::new(Notify::new()),
        }
    }

    /// CURDEPTH: every message on the queue, committed or not (as MQ counts).
    pub fn depth(&self) -> usize {
        self.entries.len() + self.reserved
    }

    /// The first ready message after `after` (or from the start) that matches
    /// `sel` and has not expired at `now_ms`. Expired ready messages met on the
    /// way are returned in `expired` so the caller can discard them.
    pub fn find(
        &self,
        sel: &Selector,
        after: Option<Position>,
        now_ms: u64,
        expired: &mut Vec<Position>,
    ) -> Option<Position> {
        let range = match after {
            Some(p) => self
                .entries
                .range((std::ops::Bound::Excluded(p), std::ops::Bound::Unbounded)),
            None => self.entries.range(..),
        };
        for (pos, e) in range {
            if e.state != EntryState::Ready {
                continue;
            }
            if e.msg.is_expired(now_ms) {
                expired.push(*pos);
                continue;
            }
            if sel.matches(&e.msg) {
                return Some(*pos);
            }
        }
        None
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use bytes::Bytes;
    use mqgate_codecs::mq::{Charset, Mqmd};

    fn msg(priority: i32, correl: u8, expires_at_ms: Option<u64>) -> Message {
        let md = Mqmd {
            priority,
            correl_id: [correl; 24],
            ..Mqmd::default()
        };
        Message {
            md,
            charset: Charset::Ascii,
            data: Bytes::new(),
            expires_at_ms,
        }
    }

    fn queue(msgs: &[(u64, Message, EntryState)]) -> LocalQueue {
        let mut q = LocalQueue::new(LocalQueueDef::with_defaults("Q", Default::default()));
        for (seq, m, state) in msgs {
            q.entries.insert(
                position(m.md.priority, *seq),
                Entry {
                    msg: m.clone(),
                    state: *state,
                },
            );
        }
        q
    }

    #[test]
    fn priority_first_then_fifo() {
        // MQ docs: MSGDLVSQ(PRIORITY): highest priority first, FIFO within a priority.
        let q = queue(&[
            (1, msg(0, 1, None), EntryState::Ready),
            (2, msg(5, 2, None), EntryState::Ready),
            (3, msg(5, 3, None), EntryState::Ready),
            (4, msg(9, 4, None), EntryState::Putting(7)),
        ]);
        let mut expired = vec![];
        let first = q.find(&Selector::default(), None, 0, &mut expired).unwrap();
        assert_eq!(first, (4, 2));
        let second = q
            .find(&Selector::default(), Some(first), 0, &mut expired)
            .unwrap();
        assert_eq!(second, (4, 3));
        let third = q
            .find(&Selector::default(), Some(second), 0, &mut expired)
            .unwrap();
        assert_eq!(third, (9, 1));
        assert_eq!(
            q.find(&Selector::default(), Some(third), 0, &mut expired),
            None
        );
        assert_eq!(q.depth(), 4);
    }

    #[test]
    fn correl_id_match_skips_others_and_expired_are_reported() {
        let q = queue(&[
            (1, msg(0, 1, Some(100)), EntryState::Ready),
            (2, msg(0, 2, None), EntryState::Ready),
            (3, msg(0, 1, None), EntryState::Ready),
        ]);
        let sel = Selector {
            correl_id: Some([1; 24]),
            msg_id: None,
            group_id: None,
        };
        let mut expired = vec![];
        assert_eq!(q.find(&sel, None, 100, &mut expired), Some((9, 3)));
        assert_eq!(expired, vec![(9, 1)]);
        let mut expired = vec![];
        assert_eq!(q.find(&sel, None, 99, &mut expired), Some((9, 1)));
        assert!(expired.is_empty());
    }

    #[test]
    fn expiry_counts_down_in_tenths() {
        let m = msg(0, 0, Some(10_000));
        assert_eq!(m.md_at(9_000).expiry, 10);
        assert_eq!(m.md_at(9_950).expiry, 1);
        assert_eq!(msg(0, 0, None).md_at(0).expiry, -1);
    }
}

//! A queue's messages by position: an ordered map that holds its only
//! message inline. Most device queues hold one message or none, and std's
//! ordered map allocates a node of eleven slots (288 bytes with its
//! allocator overhead) for its first element; here a queue of one message
//! holds its entry in place (no allocation of its own: a start creating a
//! million device queues makes a million fewer), and an emptied queue holds
//! no allocation.

use super::queue::{Entry, Position};
use std::collections::BTreeMap;
use std::ops::Bound;

/// Entries in position order.
#[derive(Debug, Default)]
pub enum Slots {
    #[default]
    Empty,
    One(Position, Entry),
    Many(BTreeMap<Position, Box<Entry>>),
}

impl Slots {
    /// How many entries.
    pub fn len(&self) -> usize {
        match self {
            Slots::Empty => 0,
            Slots::One(..) => 1,
            Slots::Many(m) => m.len(),
        }
    }

    /// Places `entry` at `pos`, replacing an entry there.
    pub fn insert(&mut self, pos: Position, entry: Entry) {
        match self {
            Slots::Empty => *self = Slots::One(pos, entry),
            Slots::One(at, e) if *at == pos => *e = entry,
            Slots::One(..) => {
                let Slots::One(at, e) = std::mem::take(self) else {
                    return;
                };
                *self = Slots::Many(BTreeMap::from([(at, Box::new(e)), (pos, Box::new(entry))]));
            }
            Slots::Many(m) => {
                m.insert(pos, Box::new(entry));
            }
        }
    }

    /// Takes the entry at `pos` out; the last one leaves no allocation.
    pub fn remove(&mut self, pos: &Position) -> Option<Entry> {
        match self {
            Slots::One(at, _) if at == pos => match std::mem::take(self) {
                Slots::One(_, e) => Some(e),
                _ => None,
            },
            Slots::Many(m) => {
                let e = m.remove(pos)?;
                if m.len() == 1
                    && let Some((at, last)) = m.pop_first()
                {
                    *self = Slots::One(at, *last);
                }
                Some(*e)
            }
            _ => None,
        }
    }

    /// The entry at `pos`.
    pub fn get(&self, pos: &Position) -> Option<&Entry> {
        match self {
            Slots::One(at, e) if at == pos => Some(e),
            Slots::Many(m) => m.get(pos).map(|e| &**e),
            _ => None,
        }
    }

    /// The entry at `pos`, to change.
    pub fn get_mut(&mut self, pos: &Position) -> Option<&mut Entry> {
        match self {
            Slots::One(at, e) if at == pos => Some(e),
            Slots::Many(m) => m.get_mut(pos).map(|e| &mut **e),
            _ => None,
        }
    }

    /// The entries after `after` (all when `None`), in position order.
    pub fn after(&self, after: Option<Position>) -> After<'_> {
        let past = |at: &Position| after.is_none_or(|a| *at > a);
        match self {
            Slots::Empty => After::One(None),
            Slots::One(at, e) => After::One(past(at).then_some((at, e))),
            Slots::Many(m) => {
                let from = after.map_or(Bound::Unbounded, Bound::Excluded);
                After::Many(m.range((from, Bound::Unbounded)))
            }
        }
    }
}

/// The iterator of [`Slots::after`].
pub enum After<'a> {
    One(Option<(&'a Position, &'a Entry)>),
    Many(std::collections::btree_map::Range<'a, Position, Box<Entry>>),
}

impl<'a> Iterator for After<'a> {
    type Item = (&'a Position, &'a Entry);

    fn next(&mut self) -> Option<Self::Item> {
        match self {
            After::One(one) => one.take(),
            After::Many(range) => range.next().map(|(p, e)| (p, &**e)),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::qmgr::Message;
    use crate::qmgr::queue::EntryState;
    use bytes::Bytes;
    use mqgate_codecs::mq::{Charset, Mqmd};

    fn entry(correl: u8) -> Entry {
        let msg = Message {
            md: Mqmd {
                correl_id: [correl; 24],
                ..Mqmd::default()
            },
            charset: Charset::Ascii,
            data: Bytes::new(),
            expires_at_ms: None,
        };
        Entry::resident(msg, EntryState::Ready)
    }

    fn order(s: &Slots, after: Option<Position>) -> Vec<Position> {
        s.after(after).map(|(p, _)| *p).collect()
    }

    #[test]
    fn one_entry_is_inline_and_more_go_to_a_map_in_order() {
        let mut s = Slots::default();
        s.insert((4, 7), entry(1));
        assert!(matches!(s, Slots::One(..)));
        assert_eq!(order(&s, None), [(4, 7)]);
        assert_eq!(order(&s, Some((4, 7))), []);
        assert_eq!(order(&s, Some((4, 6))), [(4, 7)]);
        s.insert((4, 7), entry(2));
        assert_eq!(s.len(), 1);
        assert_eq!(s.get(&(4, 7)).unwrap().index.correl_id(), [2; 24]);
        s.insert((0, 9), entry(3));
        s.insert((9, 1), entry(4));
        assert_eq!(order(&s, None), [(0, 9), (4, 7), (9, 1)]);
        assert_eq!(order(&s, Some((0, 9))), [(4, 7), (9, 1)]);
        assert!(s.remove(&(5, 5)).is_none());
        assert!(s.remove(&(0, 9)).is_some());
        assert!(s.remove(&(9, 1)).is_some());
        // Back to one: inline again.
        assert!(matches!(s, Slots::One((4, 7), _)));
        assert!(s.get_mut(&(4, 7)).is_some());
        assert!(s.remove(&(4, 7)).is_some());
        assert!(matches!(s, Slots::Empty));
        assert_eq!(s.len(), 0);
    }
}

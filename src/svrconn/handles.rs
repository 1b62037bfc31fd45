//! The object handles of one conversation (MQHOBJ): what each names, the
//! MQOO_* options it was opened with, and its browse cursor.

use crate::mqi::{Object, Position};
use std::collections::BTreeMap;

/// What a handle names.
pub(super) enum Target {
    /// The queue manager object (MQOT_Q_MGR), for MQINQ.
    QMgr,
    /// A queue.
    Queue {
        obj: Object,
        /// ObjectName as opened (a dynamic queue's name once created).
        name: String,
        /// ObjectQMgrName as given; empty = this queue manager.
        q_mgr: String,
        /// A temporary dynamic queue this handle created: deleted at
        /// MQCLOSE or when the conversation ends (IBM MQ "Dynamic queues").
        temporary: bool,
    },
}

/// One open handle.
pub(super) struct Handle {
    pub target: Target,
    /// MQOO_*.
    pub options: i32,
    /// Where BROWSE_NEXT goes on from.
    pub cursor: Option<Position>,
}

/// The handles of a conversation, numbered from 2 up, the lowest free one
/// first (a queue manager's handles in real JMS client traffic start at 2).
#[derive(Default)]
pub(super) struct Handles {
    map: BTreeMap<i32, Handle>,
}

/// The most handles one conversation may hold (IBM MQ's MAXHANDS default).
pub(super) const MAX_HANDLES: usize = 256;

impl Handles {
    /// Stores `h` and returns its number; `None` when [`MAX_HANDLES`] are open.
    pub fn insert(&mut self, h: Handle) -> Option<i32> {
        if self.map.len() >= MAX_HANDLES {
            return None;
        }
        let n = (2..).find(|n| !self.map.contains_key(n))?;
        self.map.insert(n, h);
        Some(n)
    }

    pub fn get(&self, n: i32) -> Option<&Handle> {
        self.map.get(&n)
    }

    pub fn get_mut(&mut self, n: i32) -> Option<&mut Handle> {
        self.map.get_mut(&n)
    }

    pub fn remove(&mut self, n: i32) -> Option<Handle> {
        self.map.remove(&n)
    }

    /// Every handle, emptying the table (MQDISC, the conversation's end).
    pub fn drain(&mut self) -> Vec<Handle> {
        std::mem::take(&mut self.map).into_values().collect()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn qmgr() -> Handle {
        Handle {
            target: Target::QMgr,
            options: 0x20,
            cursor: None,
        }
    }

    #[test]
    fn numbers_start_at_2_and_are_reused() {
        let mut h = Handles::default();
        assert_eq!(h.insert(qmgr()), Some(2));
        assert_eq!(h.insert(qmgr()), Some(3));
        assert!(h.remove(2).is_some());
        assert_eq!(h.insert(qmgr()), Some(2));
        assert!(h.get(3).is_some());
        assert!(h.get(4).is_none());
        assert_eq!(h.drain().len(), 2);
    }
}

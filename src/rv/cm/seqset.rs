//! Sets of sequence numbers kept compactly: every number up to a floor,
//! plus the numbers above it. A listener's confirmed messages from one
//! sender on one subject are mostly contiguous (confirmation is in order
//! unless the program confirms explicitly out of order), so the set stays
//! a number and a few exceptions.

use std::collections::BTreeSet;

/// Sequence numbers 1..=floor and a set of numbers above the floor.
/// 0 is never in the set (it means "not certified").
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct SeqSet {
    floor: u64,
    above: BTreeSet<u64>,
}

impl SeqSet {
    /// The set of 1..=floor and `above` (numbers at or below the floor in
    /// `above` are dropped).
    pub fn new(floor: u64, above: impl IntoIterator<Item = u64>) -> SeqSet {
        let mut s = SeqSet {
            floor,
            above: BTreeSet::new(),
        };
        for n in above {
            s.insert(n);
        }
        s
    }

    /// True when `n` is in the set.
    pub fn contains(&self, n: u64) -> bool {
        n != 0 && (n <= self.floor || self.above.contains(&n))
    }

    /// Adds `n`; false when it was there already (or is 0).
    pub fn insert(&mut self, n: u64) -> bool {
        if n == 0 || self.contains(n) {
            return false;
        }
        self.above.insert(n);
        self.compact();
        true
    }

    /// Adds every number up to `to`.
    pub fn raise_floor(&mut self, to: u64) {
        if to > self.floor {
            self.floor = to;
            self.above.retain(|n| *n > to);
            self.compact();
        }
    }

    fn compact(&mut self) {
        while self.above.remove(&(self.floor + 1)) {
            self.floor += 1;
        }
    }

    /// Every number up to this one is in the set.
    pub fn floor(&self) -> u64 {
        self.floor
    }

    /// The numbers above the floor, ascending.
    pub fn above(&self) -> impl Iterator<Item = u64> + '_ {
        self.above.iter().copied()
    }

    /// The highest number in the set (0 when empty).
    pub fn max(&self) -> u64 {
        self.above.last().copied().unwrap_or(self.floor)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn insert_in_order_keeps_only_a_floor() {
        let mut s = SeqSet::default();
        for n in 1..=5 {
            assert!(s.insert(n));
        }
        assert_eq!(s.floor(), 5);
        assert_eq!(s.above().count(), 0);
        assert!(!s.insert(3), "3 is there already");
        assert!(!s.insert(0), "0 is never a certified number");
        assert!(!s.contains(0));
    }

    #[test]
    fn out_of_order_numbers_join_the_floor_when_the_gap_closes() {
        let mut s = SeqSet::default();
        s.insert(1);
        s.insert(3);
        s.insert(5);
        assert_eq!((s.floor(), s.above().collect::<Vec<_>>()), (1, vec![3, 5]));
        assert!(!s.contains(2) && !s.contains(4));
        s.insert(2);
        assert_eq!((s.floor(), s.above().collect::<Vec<_>>()), (3, vec![5]));
        s.insert(4);
        assert_eq!((s.floor(), s.max()), (5, 5));
    }

    #[test]
    fn raising_the_floor_absorbs_numbers_below_and_next_to_it() {
        let mut s = SeqSet::new(0, [4, 6, 9]);
        s.raise_floor(5);
        assert_eq!((s.floor(), s.above().collect::<Vec<_>>()), (6, vec![9]));
        s.raise_floor(2);
        assert_eq!(s.floor(), 6, "a lower floor changes nothing");
        assert_eq!(s.max(), 9);
    }
}

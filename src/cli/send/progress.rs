//! What `mqgate send` has delivered so far: which messages are done, which
//! batches are in flight, and (with `--journal`) the durable record of both.
//!
//! A message is *done* when the receiver confirmed its batch (persistent) or
//! it was handed to the fast path (non-persistent: it may be lost, never sent
//! twice; docs/channel-protocol.md "Non-persistent fast path").

use super::journal::{Journal, JournalError, Record};
use std::collections::VecDeque;
use std::fmt;
use std::ops::Range;

/// A set of message indexes as sorted, disjoint, non-adjacent half-open ranges.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Ranges(Vec<Range<usize>>);

impl Ranges {
    /// The set of `ranges` (in any order, overlapping or not).
    pub fn from_ranges(ranges: impl IntoIterator<Item = Range<usize>>) -> Ranges {
        let mut r = Ranges::default();
        for x in ranges {
            r.insert(x);
        }
        r
    }

    /// Adds `r`, merging it with the ranges it touches.
    pub fn insert(&mut self, r: Range<usize>) {
        if r.is_empty() {
            return;
        }
        let (mut start, mut end) = (r.start, r.end);
        // Ranges entirely before `r` (not touching it) stay; the ones that
        // overlap or touch it are merged into it.
        let first = self.0.partition_point(|x| x.end < start);
        let mut last = first;
        while last < self.0.len() && self.0[last].start <= end {
            start = start.min(self.0[last].start);
            end = end.max(self.0[last].end);
            last += 1;
        }
        self.0.splice(first..last, std::iter::once(start..end));
    }

    /// True when `i` is in the set.
    pub fn contains(&self, i: usize) -> bool {
        let k = self.0.partition_point(|x| x.end <= i);
        self.0.get(k).is_some_and(|x| x.start <= i)
    }

    /// How many indexes the set holds.
    pub fn count(&self) -> usize {
        self.0.iter().map(|r| r.len()).sum()
    }

    /// The ranges, in order.
    pub fn ranges(&self) -> &[Range<usize>] {
        &self.0
    }
}

/// The set as 1-based file positions, as a user counts them: `1-40, 43, 45-50`.
impl fmt::Display for Ranges {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        if self.0.is_empty() {
            return f.write_str("none");
        }
        for (k, r) in self.0.iter().enumerate() {
            if k > 0 {
                f.write_str(", ")?;
            }
            if r.len() == 1 {
                write!(f, "{}", r.start + 1)?;
            } else {
                write!(f, "{}-{}", r.start + 1, r.end)?;
            }
        }
        Ok(())
    }
}

/// Delivery progress of one `mqgate send`, kept in step with its journal.
pub struct Tracker {
    journal: Option<Journal>,
    /// Messages done (see the module docs).
    pub done: Ranges,
    /// Batches sent (or about to be) and not seen confirmed, oldest first.
    in_flight: VecDeque<(u64, Range<usize>)>,
    /// Non-persistent messages recorded as done in the journal before they
    /// were sent, so that one journal write covers a run of them.
    reserved: Range<usize>,
    /// The highest batch sequence number seen confirmed.
    pub last_confirmed_seq: u64,
    /// Batches confirmed by this run.
    pub batches: u64,
    /// Persistent messages confirmed by this run.
    pub persistent: usize,
}

impl Tracker {
    /// A tracker starting from `journal`'s record (or from nothing). The
    /// journal's batches in flight stay in flight until the first handshake
    /// says whether the receiver committed them ([`Tracker::reconnected`]).
    pub fn new(journal: Option<Journal>) -> Tracker {
        let record = journal.as_ref().map(|j| j.record().clone());
        let (done, in_flight, last_confirmed_seq) = match record {
            Some(r) => (r.done, r.in_flight.into(), r.last_confirmed_seq),
            None => (Ranges::default(), VecDeque::new(), 0),
        };
        Tracker {
            journal,
            done,
            in_flight,
            reserved: 0..0,
            last_confirmed_seq,
            batches: 0,
            persistent: 0,
        }
    }

    /// The messages a fresh run skips: done, or in a batch that was in flight
    /// when the journal was last written (sent again by
    /// [`Tracker::reconnected`] when the receiver did not commit it).
    pub fn settled(&self) -> Ranges {
        Ranges::from_ranges(
            self.done
                .ranges()
                .iter()
                .cloned()
                .chain(self.in_flight.iter().map(|(_, r)| r.clone())),
        )
    }

    /// Where the journal is, if there is one.
    pub fn journal_path(&self) -> Option<&std::path::Path> {
        self.journal.as_ref().map(Journal::path)
    }

    /// Records batch `seq` holding `range` before its END_BATCH is sent.
    pub fn before_batch(&mut self, seq: u64, range: Range<usize>) -> Result<(), JournalError> {
        self.in_flight.push_back((seq, range));
        self.save()
    }

    /// Records a CONFIRM of `seq`: every batch up to it is done.
    pub fn confirmed(&mut self, seq: u64) -> Result<(), JournalError> {
        if self.settle(seq) {
            self.save()?;
        }
        Ok(())
    }

    /// After a handshake that reported `last_committed_seq`: the batches up to
    /// it are done; the others are returned, oldest first, to be sent again.
    pub fn reconnected(
        &mut self,
        last_committed_seq: u64,
    ) -> Result<Vec<Range<usize>>, JournalError> {
        self.settle(last_committed_seq);
        let resend = self.in_flight.drain(..).map(|(_, r)| r).collect();
        self.save()?;
        Ok(resend)
    }

    /// Records non-persistent message `i` as done before it is sent; the
    /// journal is written once for the whole run `i..run_end()` of such
    /// messages (after a crash the unsent rest of a run is lost, as the fast
    /// path allows, never sent twice).
    pub fn before_fast(
        &mut self,
        i: usize,
        run_end: impl FnOnce() -> usize,
    ) -> Result<(), JournalError> {
        self.done.insert(i..i + 1);
        if i >= self.reserved.end {
            self.reserved = i..run_end().max(i + 1);
            self.save()?;
        }
        Ok(())
    }

    fn settle(&mut self, seq: u64) -> bool {
        let mut any = false;
        while let Some((s, r)) = self.in_flight.front()
            && *s <= seq
        {
            self.batches += 1;
            self.persistent += r.len();
            self.last_confirmed_seq = self.last_confirmed_seq.max(*s);
            self.done.insert(r.clone());
            self.in_flight.pop_front();
            any = true;
        }
        any
    }

    fn save(&mut self) -> Result<(), JournalError> {
        let Some(j) = self.journal.as_mut() else {
            return Ok(());
        };
        let mut done = self.done.clone();
        done.insert(self.reserved.clone());
        j.save(Record {
            done,
            in_flight: self.in_flight.iter().cloned().collect(),
            last_confirmed_seq: self.last_confirmed_seq,
        })
    }
}

#[cfg(test)]
mod tests {
    use super::super::journal::{Identity, Journal, Record};
    use super::{Ranges, Tracker};
    use std::ops::Range;

    /// `a..b` (a one-range slice literal reads as a mistake to clippy).
    fn rng(a: usize, b: usize) -> Range<usize> {
        a..b
    }

    fn journal(path: &std::path::Path) -> Journal {
        let id = Identity {
            to: "127.0.0.1:1414".into(),
            channel: "TO.MQGATE".into(),
            messages: 20,
            fingerprint: "00000000000000aa".into(),
        };
        Journal::open(path, id).unwrap()
    }

    #[test]
    fn a_resumed_tracker_resolves_its_batches_at_the_handshake() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("j");
        let mut j = journal(&path);
        j.save(Record {
            done: Ranges::from_ranges(std::iter::once(0..4)),
            in_flight: vec![(3, 4..8), (4, 8..10), (5, 11..15)],
            last_confirmed_seq: 2,
        })
        .unwrap();
        let mut t = Tracker::new(Some(journal(&path)));
        // Done and in-flight messages are skipped; 10 (a fast-path message
        // never recorded) and 15.. are not.
        assert_eq!(t.settled().ranges(), &[0..10, 11..15]);
        // docs/channel-protocol.md "Resynchronisation": the receiver
        // committed up to 4, so batches 3 and 4 are done and 5 is sent again.
        assert_eq!(t.reconnected(4).unwrap(), vec![11..15]);
        assert_eq!(t.done.ranges(), &[rng(0, 10)]);
        assert_eq!((t.batches, t.persistent, t.last_confirmed_seq), (2, 6, 4));
        let r = journal(&path).record().clone();
        assert_eq!(
            (r.done, r.in_flight),
            (Ranges::from_ranges(std::iter::once(0..10)), vec![])
        );
        // Batch 5 is resent, and a run of fast-path messages 15..18 is
        // recorded as a whole before the first of them is sent.
        t.before_batch(5, 11..15).unwrap();
        assert_eq!(journal(&path).record().in_flight, vec![(5, 11..15)]);
        t.before_fast(15, || 18).unwrap();
        assert_eq!(t.done.ranges(), &[0..10, 15..16]);
        assert_eq!(journal(&path).record().done.ranges(), &[0..10, 15..18]);
        t.confirmed(5).unwrap();
        // 10 is still to send.
        assert_eq!(journal(&path).record().done.ranges(), &[0..10, 11..18]);
    }

    #[test]
    fn ranges_merge_and_print_as_file_positions() {
        let mut r = Ranges::default();
        for x in [5..6, 0..2, 2..4, 9..12, 7..8, 6..7] {
            r.insert(x);
        }
        // 0..4 and 5..8 merged (touching ranges too), 9..12 apart.
        assert_eq!(r.ranges(), &[0..4, 5..8, 9..12]);
        assert_eq!(r.count(), 10);
        assert!(r.contains(0) && r.contains(3) && r.contains(11));
        assert!(!r.contains(4) && !r.contains(8) && !r.contains(12));
        assert_eq!(r.to_string(), "1-4, 6-8, 10-12");
        r.insert(3..10);
        assert_eq!(r.ranges(), &[rng(0, 12)]);
        assert_eq!(Ranges::from_ranges(std::iter::once(2..3)).to_string(), "3");
        assert_eq!(Ranges::default().to_string(), "none");
    }
}

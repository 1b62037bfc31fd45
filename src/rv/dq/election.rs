//! Who is the scheduler: the election of a distributed queue as a state
//! machine without I/O or clocks (docs/rendezvous.md "Distributed queues",
//! "The scheduler").
//!
//! "Distributed Queue" (TIBCO Rendezvous Concepts): the scheduler is a
//! fault-tolerance component — the member with the greatest scheduler
//! weight is the scheduler, exactly one at a time, members learn of each
//! other by heartbeats, and when the scheduler's heartbeats stop for the
//! activation interval the next-ranked member takes over. Rank: greatest
//! weight first, then seniority (the member that joined first; the
//! fault-tolerance overview's tie-break, which TIBCO's "Rank and Weight"
//! leaves open), then the member id (**mqgate**, so that every member
//! ranks alike).
//!
//! Rules (**mqgate**'s reading of the above):
//! - a member that joins waits one activation interval before it may
//!   activate, so that it hears a scheduler that is there already;
//! - an inactive member activates when no live member is active and it
//!   outranks every live member (live: heard within the activation
//!   interval);
//! - an active member deactivates when it hears an active member that
//!   outranks it, or a member that outranks it and has been heard for an
//!   activation interval (which is then ready to take over: the greatest
//!   scheduler weight is the scheduler);
//! - a member unheard for the activation interval is gone ([`Tick::lost`]);
//!   one that says it leaves is gone at once.
//!
//! This is the fault-tolerance ranking with an active goal of 1
//! ("tibrvftMember_Create()"); it could share its ranking with the
//! fault-tolerance groups of `src/rv/ft/`.

use std::cmp::Ordering;
use std::collections::BTreeMap;

/// A member's place in the ranking.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Rank {
    /// Scheduler weight.
    pub weight: u16,
    /// When it joined, ms since the Unix epoch (seniority).
    pub joined_ms: u64,
    /// Its member id.
    pub member: String,
}

impl Rank {
    /// True when `self` outranks `other`: greater weight, then earlier
    /// join, then the smaller member id.
    pub fn outranks(&self, other: &Rank) -> bool {
        self.cmp_rank(other) == Ordering::Less
    }

    /// Ordering with the highest-ranked member first.
    pub fn cmp_rank(&self, other: &Rank) -> Ordering {
        other
            .weight
            .cmp(&self.weight)
            .then(self.joined_ms.cmp(&other.joined_ms))
            .then(self.member.cmp(&other.member))
    }
}

#[derive(Clone, Debug)]
struct Peer {
    rank: Rank,
    first_ms: u64,
    last_ms: u64,
    active: bool,
}

/// A change of role.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Change {
    /// Become the scheduler.
    Activate,
    /// Stop being the scheduler.
    Deactivate,
}

/// What a tick found.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Tick {
    /// A change of this member's role.
    pub change: Option<Change>,
    /// Members unheard for the activation interval, now forgotten.
    pub lost: Vec<String>,
}

/// One member's view of its queue's election.
#[derive(Debug)]
pub struct Election {
    me: Rank,
    activation_ms: u64,
    started_ms: u64,
    peers: BTreeMap<String, Peer>,
    active: bool,
}

impl Election {
    /// A member of rank `me` that joined at `now_ms`, inactive.
    pub fn new(me: Rank, activation_ms: u64, now_ms: u64) -> Election {
        Election {
            me,
            activation_ms,
            started_ms: now_ms,
            peers: BTreeMap::new(),
            active: false,
        }
    }

    /// True while this member is the scheduler.
    pub fn is_active(&self) -> bool {
        self.active
    }

    /// This member's rank.
    pub fn rank(&self) -> &Rank {
        &self.me
    }

    /// The members heard and not gone, this one excluded.
    pub fn peers(&self) -> impl Iterator<Item = &Rank> {
        self.peers.values().map(|p| &p.rank)
    }

    /// True when `member` is a live peer.
    pub fn knows(&self, member: &str) -> bool {
        self.peers.contains_key(member)
    }

    /// A heartbeat from another member, of `rank`, active or not.
    pub fn heard(&mut self, rank: Rank, active: bool, now_ms: u64) -> Option<Change> {
        if rank.member == self.me.member {
            return None;
        }
        let first_ms = self.peers.get(&rank.member).map_or(now_ms, |p| p.first_ms);
        self.peers.insert(
            rank.member.clone(),
            Peer {
                rank,
                first_ms,
                last_ms: now_ms,
                active,
            },
        );
        self.decide(now_ms)
    }

    /// `member` said it leaves.
    pub fn left(&mut self, member: &str, now_ms: u64) -> Option<Change> {
        self.peers.remove(member)?;
        self.decide(now_ms)
    }

    /// Time passes: members unheard for the activation interval are gone,
    /// then the role is decided again.
    pub fn tick(&mut self, now_ms: u64) -> Tick {
        let act = self.activation_ms;
        let lost: Vec<String> = self
            .peers
            .iter()
            .filter(|(_, p)| now_ms.saturating_sub(p.last_ms) >= act)
            .map(|(m, _)| m.clone())
            .collect();
        for m in &lost {
            self.peers.remove(m);
        }
        Tick {
            change: self.decide(now_ms),
            lost,
        }
    }

    fn decide(&mut self, now_ms: u64) -> Option<Change> {
        let act = self.activation_ms;
        if self.active {
            let yield_to = self.peers.values().any(|p| {
                p.rank.outranks(&self.me) && (p.active || now_ms.saturating_sub(p.first_ms) >= act)
            });
            if yield_to {
                self.active = false;
                return Some(Change::Deactivate);
            }
            return None;
        }
        let waited = now_ms.saturating_sub(self.started_ms) >= act;
        let other_active = self.peers.values().any(|p| p.active);
        let top = self.peers.values().all(|p| self.me.outranks(&p.rank));
        if waited && !other_active && top {
            self.active = true;
            return Some(Change::Activate);
        }
        None
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn r(member: &str, weight: u16, joined_ms: u64) -> Rank {
        Rank {
            weight,
            joined_ms,
            member: member.into(),
        }
    }

    // Activation interval 3500 ms, the default of
    // "tibrvcmTransport_CreateDistributedQueue()".
    const ACT: u64 = 3500;

    #[test]
    fn rank_is_weight_then_seniority_then_id() {
        // "Distributed Queue": the greatest scheduler weight; ties by
        // seniority as the fault-tolerance overview says.
        assert!(r("b", 2, 9).outranks(&r("a", 1, 0)));
        assert!(r("b", 1, 0).outranks(&r("a", 1, 5)));
        assert!(r("a", 1, 0).outranks(&r("b", 1, 0)));
        assert!(!r("a", 1, 0).outranks(&r("a", 1, 0)));
    }

    #[test]
    fn a_lone_member_activates_after_one_activation_interval() {
        let mut e = Election::new(r("a", 1, 0), ACT, 0);
        assert_eq!(e.tick(ACT - 1).change, None);
        assert_eq!(e.tick(ACT).change, Some(Change::Activate));
        assert!(e.is_active());
        assert_eq!(e.tick(ACT + 1).change, None);
    }

    #[test]
    fn only_the_greatest_weight_activates_and_the_next_takes_over_when_it_goes_silent() {
        let mut a = Election::new(r("a", 5, 0), ACT, 0);
        let mut b = Election::new(r("b", 3, 0), ACT, 0);
        a.heard(r("b", 3, 0), false, 10);
        b.heard(r("a", 5, 0), false, 10);
        assert_eq!(a.tick(ACT).change, Some(Change::Activate));
        assert_eq!(b.tick(ACT).change, None, "b is outranked");
        // a's heartbeats (every second) keep b inactive.
        for t in [4000, 5000, 6000] {
            assert_eq!(b.heard(r("a", 5, 0), true, t), None);
        }
        // a goes silent at 6000: b takes over once 3500 ms passed.
        assert_eq!(b.tick(9499).change, None);
        let t = b.tick(9500);
        assert_eq!(t.lost, ["a"]);
        assert_eq!(t.change, Some(Change::Activate));
    }

    #[test]
    fn a_member_that_leaves_is_replaced_at_once() {
        let mut b = Election::new(r("b", 3, 0), ACT, 0);
        b.heard(r("a", 5, 0), true, 4000);
        assert_eq!(b.left("a", 4100), Some(Change::Activate));
    }

    #[test]
    fn a_new_member_waits_to_hear_the_scheduler_there_is() {
        let mut c = Election::new(r("c", 1, 7000), ACT, 7000);
        assert_eq!(c.heard(r("a", 1, 0), true, 7100), None);
        // Waited its activation interval (10500) but a is active.
        assert_eq!(c.tick(10_500).change, None);
        // a silent since 7100: gone at 10600, and c takes over.
        let t = c.tick(10_600);
        assert_eq!(
            (t.lost.as_slice(), t.change),
            (["a".to_string()].as_slice(), Some(Change::Activate))
        );
    }

    #[test]
    fn a_heavier_member_takes_over_once_it_is_ready() {
        let mut a = Election::new(r("a", 1, 0), ACT, 0);
        assert_eq!(a.tick(ACT).change, Some(Change::Activate));
        // b (weight 9) joins at 5000; a hears it but keeps scheduling
        // until b has been there an activation interval.
        assert_eq!(a.heard(r("b", 9, 5000), false, 5000), None);
        assert_eq!(a.heard(r("b", 9, 5000), false, 8499), None);
        assert_eq!(
            a.heard(r("b", 9, 5000), false, 8500),
            Some(Change::Deactivate)
        );
        let mut b = Election::new(r("b", 9, 5000), ACT, 5000);
        b.heard(r("a", 1, 0), true, 5000);
        b.heard(r("a", 1, 0), true, 8000);
        assert_eq!(b.tick(8500).change, None, "a still says it is active");
        assert_eq!(b.heard(r("a", 1, 0), false, 8501), Some(Change::Activate));
    }

    #[test]
    fn of_two_active_members_the_lower_ranked_yields() {
        let mut b = Election::new(r("b", 1, 10), ACT, 10);
        assert_eq!(b.tick(ACT + 10).change, Some(Change::Activate));
        assert_eq!(
            b.heard(r("a", 1, 0), true, ACT + 20),
            Some(Change::Deactivate)
        );
        let mut a = Election::new(r("a", 1, 0), ACT, 0);
        a.tick(ACT);
        assert_eq!(a.heard(r("b", 1, 10), true, ACT + 20), None, "a outranks b");
        assert!(a.is_active());
    }
}

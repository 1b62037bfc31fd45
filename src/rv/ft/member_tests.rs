//! Members and monitors of one group on a simulated clock and a network
//! that delivers every protocol message at once to every other member.
//!
//! Expected behaviour: TIBCO Rendezvous Concepts, "Rank and Weight" (highest
//! weight ranks first, ranks 1..active goal active, the ranking inactive
//! member takes over), "Active Goal", "Activation Interval", "Fault
//! Tolerance Callback Actions", "PARAM_MISMATCH", "TOO_MANY_ACTIVE",
//! "TOO_FEW_ACTIVE", "Disabling a Member", "tibrvftMonitor_Create()"; the
//! Acme.FT.Group example of the TIBCO overview deck (weights 20, 10, 5, 5,
//! active goal 1: A active; when A fails B activates and C, senior to D of
//! the same weight, becomes the ranking inactive member); mqgate's
//! tie-break and timing rules of docs/rendezvous.md "Ranks and actions".

use std::collections::BTreeMap;
use std::time::{Duration, Instant};

use super::action::Action;
use super::heartbeat::{Heartbeat, Kind};
use super::member::{MemberCore, Output, Status};
use super::monitor::MonitorCore;
use super::params::FtParams;

/// What happened, at which ms of the simulation, to whom.
#[derive(Clone, Debug, PartialEq, Eq)]
enum Ev {
    Action(&'static str, Action),
    /// An advisory's subject and its description.
    Advisory(&'static str, String, Option<String>),
}

struct Sim {
    t0: Instant,
    now: Instant,
    members: Vec<(&'static str, Option<MemberCore>)>,
    monitor: Option<MonitorCore>,
    events: Vec<(u64, Ev)>,
    counts: Vec<(u64, usize)>,
    statuses: BTreeMap<&'static str, Status>,
}

/// `hb`, `prep` and `act` in ms.
fn params(weight: u16, goal: u16, hb: u64, prep: u64, act: u64) -> FtParams {
    let p = FtParams {
        weight,
        active_goal: goal,
        heartbeat: Duration::from_millis(hb),
        preparation: Duration::from_millis(prep),
        activation: Duration::from_millis(act),
    };
    p.check().unwrap();
    p
}

/// The intervals of the real-process test: heartbeat 0.2 s, activation 1 s.
fn acme(weight: u16) -> FtParams {
    params(weight, 1, 200, 0, 1000)
}

impl Sim {
    fn new() -> Sim {
        let t0 = Instant::now();
        Sim {
            t0,
            now: t0,
            members: Vec::new(),
            monitor: None,
            events: Vec::new(),
            counts: Vec::new(),
            statuses: BTreeMap::new(),
        }
    }

    fn ms(&self) -> u64 {
        self.now.duration_since(self.t0).as_millis() as u64
    }

    fn index(&self, name: &str) -> usize {
        self.members.iter().position(|(n, _)| *n == name).unwrap()
    }

    /// `name` joins now; its join time is the simulated ms.
    fn join(&mut self, name: &'static str, p: FtParams) {
        let joined = 1_700_000_000_000 + self.ms();
        let m = MemberCore::new("Acme.FT.Group", name, p, joined, self.now);
        self.members.push((name, Some(m)));
        self.timer(self.members.len() - 1);
    }

    /// `name` stops without a word (a killed process).
    fn kill(&mut self, name: &str) {
        let i = self.index(name);
        self.members[i].1 = None;
    }

    /// `name` leaves the group (its LEAVE goes out).
    fn leave(&mut self, name: &str) {
        let i = self.index(name);
        let m = self.members[i].1.take().unwrap();
        self.deliver(i, vec![Output::Publish(m.leave())]);
    }

    fn set_weight(&mut self, name: &str, w: u16) {
        let i = self.index(name);
        let now = self.now;
        let out = self.members[i]
            .1
            .as_mut()
            .unwrap()
            .set_weight(w, now)
            .unwrap();
        self.deliver(i, out);
    }

    fn disable(&mut self, name: &str) {
        let i = self.index(name);
        let now = self.now;
        let out = self.members[i].1.as_mut().unwrap().disable(now);
        self.deliver(i, out);
    }

    fn timer(&mut self, i: usize) {
        let now = self.now;
        if let Some(m) = self.members[i].1.as_mut() {
            let out = m.on_timer(now);
            self.deliver(i, out);
        }
    }

    /// Handles `out` of member `from`, and what it causes, breadth first.
    fn deliver(&mut self, from: usize, out: Vec<Output>) {
        let now = self.now;
        let ms = self.ms();
        let mut queue: Vec<(usize, Output)> = out.into_iter().map(|o| (from, o)).collect();
        while !queue.is_empty() {
            let (i, o) = queue.remove(0);
            let name = self.members[i].0;
            match o {
                Output::Publish(hb) => {
                    self.observe(&hb);
                    for j in 0..self.members.len() {
                        if j == i {
                            continue;
                        }
                        if let Some(m) = self.members[j].1.as_mut() {
                            let more = m.on_heartbeat(&hb, now);
                            queue.extend(more.into_iter().map(|o| (j, o)));
                        }
                    }
                }
                Output::Action(a) => self.events.push((ms, Ev::Action(name, a))),
                Output::Advisory(a) => self
                    .events
                    .push((ms, Ev::Advisory(name, a.subject(), a.description.clone()))),
                Output::Status(s) => {
                    self.statuses.insert(name, s);
                }
            }
        }
    }

    fn observe(&mut self, hb: &Heartbeat) {
        let now = self.now;
        let ms = self.ms();
        if let Some(n) = self.monitor.as_mut().and_then(|m| m.on_heartbeat(hb, now)) {
            self.counts.push((ms, n));
        }
    }

    /// Runs the clock to `ms`, calling each member when its deadline comes.
    fn run_to(&mut self, ms: u64) {
        let end = self.t0 + Duration::from_millis(ms);
        for _ in 0..1_000_000 {
            let mut next = end;
            for (_, m) in &self.members {
                if let Some(m) = m {
                    next = next.min(m.next_deadline(self.now));
                }
            }
            if let Some(d) = self
                .monitor
                .as_ref()
                .and_then(|m| m.next_deadline(self.now))
            {
                next = next.min(d);
            }
            assert!(
                next > self.now || next == end,
                "a deadline that is not ahead"
            );
            self.now = next;
            // Calling a member before its deadline changes nothing, so each
            // is simply called at every step.
            for i in 0..self.members.len() {
                self.timer(i);
            }
            let now = self.now;
            let at = self.ms();
            if let Some(n) = self.monitor.as_mut().and_then(|m| m.on_timer(now)) {
                self.counts.push((at, n));
            }
            if next == end {
                return;
            }
        }
        panic!("the simulation did not reach {ms} ms");
    }

    fn actions(&self) -> Vec<(u64, &'static str, Action)> {
        self.events
            .iter()
            .filter_map(|(t, e)| match e {
                Ev::Action(n, a) => Some((*t, *n, *a)),
                Ev::Advisory(..) => None,
            })
            .collect()
    }

    fn advisories(&self) -> Vec<(u64, &'static str, String, Option<String>)> {
        self.events
            .iter()
            .filter_map(|(t, e)| match e {
                Ev::Advisory(n, s, d) => Some((*t, *n, s.clone(), d.clone())),
                Ev::Action(..) => None,
            })
            .collect()
    }

    fn rank(&self, name: &str) -> usize {
        self.statuses[name].rank
    }
}

use Action::{Activate, Deactivate, PrepareToActivate};

#[test]
fn acme_ft_group_a_then_b_then_c_by_seniority() {
    // The overview deck's Acme.FT.Group: weights 20, 10, 5, 5, goal 1.
    let mut s = Sim::new();
    s.join("A", acme(20));
    s.run_to(10);
    s.join("B", acme(10));
    s.run_to(20);
    s.join("C", acme(5));
    s.run_to(30);
    s.join("D", acme(5));
    s.run_to(2050);
    // A activates once its first activation interval has passed: it has
    // heard the whole group by then.
    assert_eq!(s.actions(), [(1000, "A", Activate)]);
    assert_eq!(
        ["A", "B", "C", "D"].map(|n| s.rank(n)),
        [1, 2, 3, 4],
        "ranks by weight, then seniority"
    );
    // A's last heartbeat was at 2000 ms; it is lost one activation
    // interval later and B, the ranking inactive member, activates.
    s.kill("A");
    s.run_to(4050);
    assert_eq!(s.actions(), [(1000, "A", Activate), (3000, "B", Activate)]);
    assert_eq!(["B", "C", "D"].map(|n| s.rank(n)), [1, 2, 3]);
    assert_eq!(s.statuses["C"].members, 3);
    // B's last heartbeat at 4000: C, senior to D, takes over.
    s.kill("B");
    s.run_to(7000);
    assert_eq!(
        s.actions(),
        [
            (1000, "A", Activate),
            (3000, "B", Activate),
            (5000, "C", Activate)
        ]
    );
    assert_eq!(s.rank("D"), 2);
    assert!(s.advisories().is_empty(), "{:?}", s.advisories());
}

#[test]
fn preparation_interval_gives_the_hint_first() {
    // "Fault Tolerance Callback Actions": PREPARE_TO_ACTIVATE is a hint to
    // the ranking inactive member before ACTIVATE; preparation 0.5 s.
    let mut s = Sim::new();
    s.join("A", params(20, 1, 200, 500, 1000));
    s.run_to(10);
    s.join("B", params(10, 1, 200, 500, 1000));
    s.run_to(20);
    s.join("C", params(5, 1, 200, 500, 1000));
    s.run_to(2050);
    // At start, A (rank 1) prepares after the preparation interval and
    // activates after the activation interval; the others get nothing.
    assert_eq!(
        s.actions(),
        [(500, "A", PrepareToActivate), (1000, "A", Activate)]
    );
    s.kill("A");
    s.run_to(4000);
    // A's last heartbeat at 2000: B prepares at 2500, activates at 3000;
    // C (now the ranking inactive member) is not disturbed while B beats.
    assert_eq!(
        s.actions()[2..],
        [(2500, "B", PrepareToActivate), (3000, "B", Activate)]
    );
}

#[test]
fn preparation_zero_means_no_hint() {
    let mut s = Sim::new();
    s.join("A", acme(20));
    s.run_to(10);
    s.join("B", acme(10));
    s.run_to(2050);
    s.kill("A");
    s.run_to(4000);
    assert!(
        !s.actions().iter().any(|(_, _, a)| *a == PrepareToActivate),
        "{:?}",
        s.actions()
    );
}

#[test]
fn equal_weights_rank_by_join_time_then_member_id() {
    // mqgate's tie-break (TIBCO leaves it opaque; the overview deck: by
    // seniority).
    let mut s = Sim::new();
    s.join("X", acme(5));
    s.run_to(10);
    s.join("Y", acme(5));
    s.run_to(20);
    s.join("Z", acme(5));
    s.run_to(1500);
    assert_eq!(["X", "Y", "Z"].map(|n| s.rank(n)), [1, 2, 3]);
    s.kill("X");
    s.run_to(3000);
    assert_eq!(s.actions(), [(1000, "X", Activate), (2400, "Y", Activate)]);
    // Same weight and the same join time: the lower member id first.
    let t = Instant::now();
    let mut b = MemberCore::new("G", "b", acme(5), 7, t);
    let a = Heartbeat {
        kind: Kind::Heartbeat,
        member: "a".into(),
        weight: 5,
        active_goal: 1,
        heartbeat: Duration::from_millis(200),
        preparation: Duration::ZERO,
        activation: Duration::from_secs(1),
        joined: 7,
        active: false,
    };
    b.on_heartbeat(&a, t);
    let ranked = b.ranked();
    assert_eq!(
        ranked.iter().map(|r| r.member.as_str()).collect::<Vec<_>>(),
        ["a", "b"]
    );
}

#[test]
fn active_goal_two_keeps_two_active() {
    let mut s = Sim::new();
    s.join("A", params(20, 2, 200, 0, 1000));
    s.run_to(10);
    s.join("B", params(10, 2, 200, 0, 1000));
    s.run_to(20);
    s.join("C", params(5, 2, 200, 0, 1000));
    s.run_to(2050);
    assert_eq!(s.actions(), [(1000, "A", Activate), (1010, "B", Activate)]);
    assert_eq!(s.statuses["C"].active_members, 2);
    // B's last heartbeat at 2010 (activated at 1010, then every 200 ms).
    s.kill("B");
    s.run_to(4000);
    assert_eq!(s.actions()[2..], [(3010, "C", Activate)]);
    assert_eq!(s.statuses["A"].active_members, 2);
}

#[test]
fn join_leave_and_preemption_by_a_heavier_member() {
    let mut s = Sim::new();
    s.join("A", acme(20));
    s.run_to(1500);
    assert_eq!(s.actions(), [(1000, "A", Activate)]);
    // B outweighs A: after its own first activation interval it activates,
    // and A, outranked by an active member, deactivates at once.
    s.join("B", acme(30));
    s.run_to(3000);
    assert_eq!(
        s.actions()[1..],
        [(2500, "B", Activate), (2500, "A", Deactivate)]
    );
    // B leaves: A activates at once, without waiting for B's silence.
    s.leave("B");
    s.run_to(3500);
    assert_eq!(s.actions()[3..], [(3000, "A", Activate)]);
    assert_eq!(s.statuses["A"].members, 1);
}

#[test]
fn weight_changes_at_run_time_rerank() {
    // "Rank and Weight": weight may change at run time; ranks are
    // recomputed.
    let mut s = Sim::new();
    s.join("A", acme(20));
    s.run_to(10);
    s.join("B", acme(10));
    s.run_to(2000);
    s.set_weight("B", 30);
    s.run_to(3000);
    s.set_weight("A", 40);
    s.run_to(3500);
    assert_eq!(
        s.actions(),
        [
            (1000, "A", Activate),
            (2000, "B", Activate),
            (2000, "A", Deactivate),
            (3000, "A", Activate),
            (3000, "B", Deactivate)
        ]
    );
    assert_eq!(s.rank("B"), 2);
    let i = s.index("A");
    let now = s.now;
    assert_eq!(
        s.members[i].1.as_mut().unwrap().set_weight(0, now),
        Err(super::FtError::WeightZero)
    );
}

#[test]
fn parameter_mismatches_are_presented_once_per_member() {
    // "PARAM_MISMATCH": ERROR for active goal and activation interval, WARN
    // for the heartbeat interval and for another member that prepares
    // before this one's heartbeat; "TOO_MANY_ACTIVE": A (goal 1) and B
    // (goal 2) both active, A complains.
    let mut s = Sim::new();
    s.join("A", params(20, 1, 200, 0, 1000));
    s.run_to(10);
    s.join("B", params(10, 2, 300, 0, 1500));
    s.run_to(3000);
    let adv = s.advisories();
    let of = |who: &str| -> Vec<(String, Option<String>)> {
        adv.iter()
            .filter(|(_, n, _, _)| *n == who)
            .map(|(_, _, subject, desc)| (subject.clone(), desc.clone()))
            .collect()
    };
    let error = "_RV.ERROR.RVFT.PARAM_MISMATCH.Acme.FT.Group".to_string();
    let warn = "_RV.WARN.RVFT.PARAM_MISMATCH.Acme.FT.Group".to_string();
    let mismatches = vec![
        (error.clone(), Some("Active goal differs".to_string())),
        (
            error.clone(),
            Some("Activation interval differs".to_string()),
        ),
        (warn.clone(), Some("Heartbeat interval differs".to_string())),
    ];
    assert_eq!(of("B"), mismatches);
    let mut for_a = mismatches.clone();
    for_a.push((
        "_RV.WARN.RVFT.TOO_MANY_ACTIVE.Acme.FT.Group".to_string(),
        Some("More members are active than the active goal".to_string()),
    ));
    assert_eq!(of("A"), for_a);
    assert_eq!(
        s.actions(),
        [(1000, "A", Activate), (1510, "B", Activate)],
        "both active: B's goal is 2"
    );
    // A member whose preparation interval (150 ms) is not above A's
    // heartbeat interval (200 ms).
    let mut s = Sim::new();
    s.join("A", params(20, 1, 200, 0, 1000));
    s.join("C", params(5, 1, 100, 150, 1000));
    s.run_to(500);
    let a: Vec<_> = s
        .advisories()
        .into_iter()
        .filter(|(_, n, _, _)| *n == "A")
        .map(|(_, _, _, d)| d.unwrap_or_default())
        .collect();
    assert_eq!(
        a,
        [
            "Heartbeat interval differs",
            "Other prepares before this member's heartbeat"
        ]
    );
}

#[test]
fn too_few_active_when_the_goal_cannot_be_met() {
    // "TOO_FEW_ACTIVE": inactive, will not activate, yet fewer active than
    // the goal. A and C aim for 2, B for 1: B (rank 2) stays inactive by
    // its own goal, C (rank 3) by its goal; only A is active. C complains
    // once the situation has lasted an activation interval.
    let mut s = Sim::new();
    s.join("A", params(20, 2, 200, 0, 1000));
    s.run_to(10);
    s.join("B", params(10, 1, 200, 0, 1000));
    s.run_to(20);
    s.join("C", params(5, 2, 200, 0, 1000));
    s.run_to(3000);
    let few: Vec<_> = s
        .advisories()
        .into_iter()
        .filter(|(_, _, subject, _)| subject.contains("TOO_FEW_ACTIVE"))
        .map(|(t, n, _, _)| (t, n))
        .collect();
    assert_eq!(few, [(2020, "C")]);
}

#[test]
fn a_disabled_member_deactivates_and_waits() {
    // "Disabling a Member": weight 0, deactivated, active only as a last
    // resort.
    let mut s = Sim::new();
    s.join("A", acme(20));
    s.run_to(10);
    s.join("B", acme(10));
    s.run_to(1500);
    s.disable("A");
    s.run_to(4000);
    assert_eq!(
        s.actions(),
        [
            (1000, "A", Activate),
            (1500, "A", Deactivate),
            (1500, "B", Activate)
        ]
    );
    assert_eq!(s.rank("A"), 2);
    assert_eq!(
        s.advisories()[0].2,
        "_RV.ERROR.RVFT.DISABLING_MEMBER.Acme.FT.Group"
    );
    // Alone, a disabled member activates again an activation interval later.
    let mut s = Sim::new();
    s.join("A", acme(20));
    s.run_to(1500);
    s.disable("A");
    s.run_to(3000);
    assert_eq!(
        s.actions(),
        [
            (1000, "A", Activate),
            (1500, "A", Deactivate),
            (2500, "A", Activate)
        ]
    );
}

#[test]
fn a_passive_monitor_counts_without_taking_part() {
    // "tibrvftMonitor_Create()": the count on every change; lost interval
    // 0.5 s, shorter than the members' activation interval.
    let mut s = Sim::new();
    s.monitor = Some(MonitorCore::new(Some(Duration::from_millis(500))));
    s.join("A", acme(20));
    s.run_to(10);
    s.join("B", acme(10));
    s.run_to(2050);
    s.kill("A");
    s.run_to(4000);
    // A active at 1000; its last heartbeat at 2000, lost for the monitor
    // at 2500; B active at 3000.
    assert_eq!(s.counts, [(1000, 1), (2500, 0), (3000, 1)]);
    assert_eq!(s.actions(), [(1000, "A", Activate), (3000, "B", Activate)]);
}

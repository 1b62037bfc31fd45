//! The global routing table: one router announcement per router, the graph
//! of neighbor links they describe, and the forwarding decisions taken from
//! it (docs/rendezvous.md "Routing between gateways").
//!
//! "Combining all the routing table entries of all the routing daemons
//! produces the global routing table. Each routing daemon uses its copy of
//! the global routing table to forward messages" (TIBCO Rendezvous
//! Administration, "Routing Table Entry"). Every router floods its own
//! announcement ([`Announcement`]: its network, neighbor links with their
//! path costs, and the interest its local network has, gated by its import
//! subjects, with import weights); each router then computes the same
//! decision for a message from the same table, so a message follows one
//! path to each interested network and is never sent back or around a
//! loop.
//!
//! The decision for a message on subject S that entered at router O of
//! network M ("Load Balancing"): for each other network N, among the
//! routers R of N whose interest matches S and the routers Y of M (all of
//! them see a message of their network), the pair with the lowest path cost
//! from Y to R wins; at equal cost the greatest import weight of R for S;
//! then the lower router names (Y, then R). The message goes along the
//! cheapest path from Y to R only when Y is O. Path costs add up link by
//! link, each link's cost as its sending router gave it; a link counts only
//! when both routers announce it.

use std::cmp::Reverse;
use std::collections::{BTreeMap, BTreeSet, BinaryHeap, HashMap};

use mqgate_codecs::rv::{Subject, SubjectClass};

use super::gate::covers;

/// One router's announcement: its part of the global routing table.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Announcement {
    /// Router name.
    pub router: String,
    /// The local network it serves.
    pub network: String,
    /// The middle element of its gateway's inbox names
    /// (`_INBOX.<id>.<n>`): replies to those go to this router.
    pub inbox_id: String,
    /// When the router started (ms since 1970): a restarted router's
    /// announcements replace those of its earlier run.
    pub incarnation: u64,
    /// Announcement number within the incarnation, from 1.
    pub seq: u64,
    /// Connected neighbors and the path cost of the link to each, by name.
    pub neighbors: Vec<(String, u32)>,
    /// Listen subjects of its local network that it imports, with their
    /// import weights, in subject order.
    pub interest: Vec<(Subject<'static>, u32)>,
}

impl Announcement {
    /// True when this announcement replaces `other` (of the same router).
    pub fn is_newer_than(&self, other: &Announcement) -> bool {
        (self.incarnation, self.seq) > (other.incarnation, other.seq)
    }

    /// The greatest import weight of its interest that matches `subject`.
    fn weight_for(&self, subject: &Subject<'_>) -> Option<u32> {
        self.interest
            .iter()
            .filter(|(p, _)| covers(p, subject))
            .map(|(_, w)| *w)
            .max()
    }
}

/// What a router does with one message.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Decision {
    /// Publish it on the local network (this router imports it).
    pub deliver: bool,
    /// The neighbors to send it to, by name, each once.
    pub forward: Vec<String>,
}

/// Where a message to an inbox goes from this router.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum InboxRoute {
    /// The inbox is this gateway's.
    Local,
    /// Send it to this neighbor, the next router toward the inbox's.
    Forward(String),
    /// No reachable router made the inbox.
    Unknown,
}

/// What [`Table::insert`] did with an announcement.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Inserted {
    /// It was newer than what the table held: kept (flood it on).
    Newer,
    /// The table held the same one.
    Same,
    /// The table holds a newer one (send that back).
    Older,
    /// A router the table has no room for ([`MAX_ROUTERS`]): ignored.
    Full,
}

/// Most routers a table holds.
pub const MAX_ROUTERS: usize = 4096;

/// Cheapest paths from one router.
#[derive(Debug, Default)]
struct Paths {
    dist: HashMap<String, u64>,
    /// The router before each on its cheapest path (the lower name when
    /// two paths cost the same).
    pred: HashMap<String, String>,
}

/// Most cached decisions; the cache is emptied when full.
const DECISION_CACHE: usize = 4096;

/// One router's copy of the global routing table.
#[derive(Debug)]
pub struct Table {
    me: String,
    max_routers: usize,
    routers: BTreeMap<String, Announcement>,
    reachable: BTreeSet<String>,
    /// Since when (ms) each router has been unreachable.
    unreachable_since: HashMap<String, u64>,
    inbox_owner: HashMap<String, String>,
    paths: HashMap<String, Paths>,
    decisions: HashMap<(String, String), Decision>,
}

impl Table {
    /// A table for router `me`, holding nothing yet.
    pub fn new(me: &str) -> Table {
        Table {
            me: me.to_string(),
            max_routers: MAX_ROUTERS,
            routers: BTreeMap::new(),
            reachable: BTreeSet::new(),
            unreachable_since: HashMap::new(),
            inbox_owner: HashMap::new(),
            paths: HashMap::new(),
            decisions: HashMap::new(),
        }
    }

    /// The router this table is for.
    pub fn me(&self) -> &str {
        &self.me
    }

    /// Keeps `a` if it is newer than the table's announcement of its router.
    /// `now_ms` dates routers that became unreachable.
    pub fn insert(&mut self, a: Announcement, now_ms: u64) -> Inserted {
        match self.routers.get(&a.router) {
            Some(old) if old == &a => return Inserted::Same,
            Some(old) if !a.is_newer_than(old) => return Inserted::Older,
            None if self.routers.len() >= self.max_routers => return Inserted::Full,
            _ => {}
        }
        self.routers.insert(a.router.clone(), a);
        self.recompute(now_ms);
        Inserted::Newer
    }

    /// The announcement of `router`, if held.
    pub fn get(&self, router: &str) -> Option<&Announcement> {
        self.routers.get(router)
    }

    /// Every announcement held, by router name.
    pub fn all(&self) -> impl Iterator<Item = &Announcement> {
        self.routers.values()
    }

    /// True when `router` can be reached over announced links.
    pub fn is_reachable(&self, router: &str) -> bool {
        self.reachable.contains(router)
    }

    /// Forgets routers unreachable for `hold_ms` or longer; returns their
    /// names.
    pub fn purge(&mut self, now_ms: u64, hold_ms: u64) -> Vec<String> {
        let gone: Vec<String> = self
            .unreachable_since
            .iter()
            .filter(|(_, since)| now_ms.saturating_sub(**since) >= hold_ms)
            .map(|(r, _)| r.clone())
            .collect();
        for r in &gone {
            self.routers.remove(r);
            self.unreachable_since.remove(r);
        }
        gone
    }

    /// The link from `u` to `v` and its cost, when both announce it.
    fn cost(&self, u: &Announcement, v: &str) -> Option<u32> {
        let (_, c) = u.neighbors.iter().find(|(n, _)| n == v)?;
        let back = self.routers.get(v)?;
        back.neighbors
            .iter()
            .any(|(n, _)| *n == u.router)
            .then_some(*c)
    }

    fn recompute(&mut self, now_ms: u64) {
        self.paths.clear();
        self.decisions.clear();
        let mut reachable = BTreeSet::new();
        if self.routers.contains_key(&self.me) {
            let mut todo = vec![self.me.clone()];
            reachable.insert(self.me.clone());
            while let Some(u) = todo.pop() {
                let Some(ua) = self.routers.get(&u) else {
                    continue;
                };
                for (v, _) in &ua.neighbors {
                    if !reachable.contains(v) && self.cost(ua, v).is_some() {
                        reachable.insert(v.clone());
                        todo.push(v.clone());
                    }
                }
            }
        }
        for r in self.routers.keys() {
            if reachable.contains(r) {
                self.unreachable_since.remove(r);
            } else {
                self.unreachable_since.entry(r.clone()).or_insert(now_ms);
            }
        }
        self.inbox_owner = self
            .routers
            .values()
            .filter(|a| reachable.contains(&a.router))
            .map(|a| (a.inbox_id.clone(), a.router.clone()))
            .collect();
        self.reachable = reachable;
    }

    /// Cheapest paths from `src` over reachable routers (Dijkstra; path
    /// costs are at least 1).
    fn paths_from(&mut self, src: &str) -> &Paths {
        if !self.paths.contains_key(src) {
            let p = self.compute_paths(src);
            self.paths.insert(src.to_string(), p);
        }
        &self.paths[src]
    }

    fn compute_paths(&self, src: &str) -> Paths {
        let mut dist: HashMap<String, u64> = HashMap::new();
        let mut heap = BinaryHeap::new();
        dist.insert(src.to_string(), 0);
        heap.push(Reverse((0u64, src.to_string())));
        while let Some(Reverse((d, u))) = heap.pop() {
            if dist.get(&u).is_some_and(|&best| d > best) {
                continue;
            }
            let Some(ua) = self.routers.get(&u) else {
                continue;
            };
            for (v, _) in &ua.neighbors {
                let Some(c) = self.cost(ua, v) else { continue };
                if !self.reachable.contains(v) {
                    continue;
                }
                let nd = d + u64::from(c);
                if dist.get(v).is_none_or(|&old| nd < old) {
                    dist.insert(v.clone(), nd);
                    heap.push(Reverse((nd, v.clone())));
                }
            }
        }
        // Each router's predecessor: the lowest-named router on a cheapest
        // path, so that every router draws the same tree.
        let mut pred = HashMap::new();
        for (v, &dv) in &dist {
            if v == src {
                continue;
            }
            let best = dist
                .iter()
                .filter(|(u, du)| {
                    **du < dv
                        && self
                            .routers
                            .get(*u)
                            .and_then(|ua| self.cost(ua, v))
                            .is_some_and(|c| **du + u64::from(c) == dv)
                })
                .map(|(u, _)| u)
                .min();
            if let Some(u) = best {
                pred.insert(v.clone(), u.clone());
            }
        }
        Paths { dist, pred }
    }

    /// The routers on the cheapest path from `src` to `dst`, both included.
    fn path(&mut self, src: &str, dst: &str) -> Vec<String> {
        let p = self.paths_from(src);
        let mut path = vec![dst.to_string()];
        let mut at = dst;
        while at != src {
            match p.pred.get(at) {
                Some(u) => {
                    path.push(u.clone());
                    at = u;
                }
                None => return Vec::new(),
            }
            if path.len() > p.dist.len() {
                return Vec::new();
            }
        }
        path.reverse();
        path
    }

    /// What this router does with a message on `subject` (not an inbox)
    /// that entered the routing system at router `origin`.
    pub fn decide(&mut self, origin: &str, subject: &Subject<'_>) -> Decision {
        let key = (origin.to_string(), subject.as_str().to_string());
        if let Some(d) = self.decisions.get(&key) {
            return d.clone();
        }
        let d = self.compute_decision(origin, subject);
        if self.decisions.len() >= DECISION_CACHE {
            self.decisions.clear();
        }
        self.decisions.insert(key, d.clone());
        d
    }

    fn compute_decision(&mut self, origin: &str, subject: &Subject<'_>) -> Decision {
        let mut decision = Decision::default();
        if !self.reachable.contains(origin) || subject.class() == SubjectClass::Inbox {
            return decision;
        }
        let Some(m) = self.routers.get(origin).map(|a| a.network.clone()) else {
            return decision;
        };
        let sources: Vec<String> = self
            .routers
            .values()
            .filter(|a| a.network == m && self.reachable.contains(&a.router))
            .map(|a| a.router.clone())
            .collect();
        let importers: Vec<(String, String, u32)> = self
            .routers
            .values()
            .filter(|a| a.network != m && self.reachable.contains(&a.router))
            .filter_map(|a| {
                a.weight_for(subject)
                    .map(|w| (a.network.clone(), a.router.clone(), w))
            })
            .collect();
        // Per destination network: (cost, -weight, source, importer).
        let mut best: BTreeMap<String, (u64, Reverse<u32>, String, String)> = BTreeMap::new();
        for (net, r, w) in importers {
            for y in &sources {
                let Some(&d) = self.paths_from(y).dist.get(&r) else {
                    continue;
                };
                let cand = (d, Reverse(w), y.clone(), r.clone());
                match best.get(&net) {
                    Some(b) if *b <= cand => {}
                    _ => {
                        best.insert(net.clone(), cand);
                    }
                }
            }
        }
        let me = self.me.clone();
        for (_, (_, _, y, r)) in best {
            if y != origin {
                continue;
            }
            let path = self.path(&y, &r);
            if let Some(i) = path.iter().position(|n| *n == me) {
                if i + 1 == path.len() {
                    decision.deliver = true;
                } else if !decision.forward.contains(&path[i + 1]) {
                    decision.forward.push(path[i + 1].clone());
                }
            }
        }
        decision.forward.sort();
        decision
    }

    /// Where a message to the inbox made by the gateway whose inbox names
    /// have the middle element `inbox_id` goes from this router.
    pub fn route_inbox(&mut self, inbox_id: &str) -> InboxRoute {
        let Some(owner) = self.inbox_owner.get(inbox_id).cloned() else {
            return InboxRoute::Unknown;
        };
        if owner == self.me {
            return InboxRoute::Local;
        }
        let me = self.me.clone();
        match self.path(&me, &owner).get(1) {
            Some(next) => InboxRoute::Forward(next.clone()),
            None => InboxRoute::Unknown,
        }
    }

    /// The router that made the inbox `inbox_id`, if reachable.
    pub fn inbox_owner(&self, inbox_id: &str) -> Option<&str> {
        self.inbox_owner.get(inbox_id).map(String::as_str)
    }

    /// Listen subjects of reachable routers of other networks than `network`.
    pub fn remote_interest(&self, network: &str) -> BTreeSet<Subject<'static>> {
        self.routers
            .values()
            .filter(|a| a.network != network && self.reachable.contains(&a.router))
            .flat_map(|a| a.interest.iter().map(|(p, _)| p.clone()))
            .collect()
    }

    /// The path cost from this router to `router`, if reachable.
    pub fn cost_to(&mut self, router: &str) -> Option<u64> {
        let me = self.me.clone();
        self.paths_from(&me).dist.get(router).copied()
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use mqgate_codecs::rv::Mode;

    fn s(t: &str) -> Subject<'static> {
        Subject::parse(t, Mode::Listen).unwrap().into_owned()
    }

    fn ann(
        router: &str,
        network: &str,
        neighbors: &[(&str, u32)],
        interest: &[(&str, u32)],
    ) -> Announcement {
        Announcement {
            router: router.into(),
            network: network.into(),
            inbox_id: format!("ID{router}"),
            incarnation: 1,
            seq: 1,
            neighbors: neighbors.iter().map(|(n, c)| (n.to_string(), *c)).collect(),
            interest: interest.iter().map(|(p, w)| (s(p), *w)).collect(),
        }
    }

    /// The topology of TIBCO Rendezvous Administration, "Load Balancing"
    /// (figure "Path Cost and Subject Import Weight", from "Redundant
    /// Routing Daemons for Fault Tolerance"): E and F serve Anet, G and H
    /// serve Bnet; links E-G, E-H, F-G, F-H; the outer links E-G and F-H
    /// cost 1, the crossover links E-H and F-G cost 5; G imports foo.> with
    /// weight 1 and bar.> with weight 10, H the reverse; a listener on Bnet
    /// listens to foo.> and bar.> (its interest reaches G and H).
    fn load_balancing(me: &str, without: Option<&str>) -> Table {
        let mut t = Table::new(me);
        let all = [
            ann("E", "Anet", &[("G", 1), ("H", 5)], &[]),
            ann("F", "Anet", &[("G", 5), ("H", 1)], &[]),
            ann(
                "G",
                "Bnet",
                &[("E", 1), ("F", 5)],
                &[("bar.>", 10), ("foo.>", 1)],
            ),
            ann(
                "H",
                "Bnet",
                &[("E", 5), ("F", 1)],
                &[("bar.>", 1), ("foo.>", 10)],
            ),
        ];
        for mut a in all {
            if Some(a.router.as_str()) == without {
                continue;
            }
            if let Some(dead) = without {
                // Its neighbors announced the link down.
                a.neighbors.retain(|(n, _)| n != dead);
                a.seq = 2;
            }
            t.insert(a, 0);
        }
        t
    }

    fn decide(me: &str, origin: &str, subject: &str, without: Option<&str>) -> Decision {
        load_balancing(me, without).decide(origin, &s(subject))
    }

    fn fwd(to: &[&str]) -> Decision {
        Decision {
            deliver: false,
            forward: to.iter().map(|s| s.to_string()).collect(),
        }
    }

    const DELIVER: Decision = Decision {
        deliver: true,
        forward: Vec::new(),
    };

    #[test]
    fn load_balancing_example_splits_the_subjects() {
        // "Load Balancing": "Messages with subjects bar.> enter Bnet through
        // routing daemon G. Messages with subjects foo.> enter Bnet through
        // routing daemon H", along the outer links. A message published on
        // Anet reaches both E and F.
        assert_eq!(decide("F", "F", "foo.x", None), fwd(&["H"]));
        assert_eq!(decide("E", "E", "foo.x", None), Decision::default());
        assert_eq!(decide("E", "E", "bar.x", None), fwd(&["G"]));
        assert_eq!(decide("F", "F", "bar.x", None), Decision::default());
        assert_eq!(decide("H", "F", "foo.x", None), DELIVER);
        assert_eq!(decide("G", "E", "bar.x", None), DELIVER);
        // G never imports foo, H never bar (one copy per network).
        assert_eq!(decide("G", "F", "foo.x", None), Decision::default());
        assert_eq!(decide("H", "E", "bar.x", None), Decision::default());
    }

    #[test]
    fn when_e_fails_everything_goes_through_f_and_h() {
        // The overview of "Load Balancing" this example comes from: "If E
        // were to fail, all messages would travel through F and H (because
        // that route has the lowest path cost)" — cost before weight.
        assert_eq!(decide("F", "F", "foo.x", Some("E")), fwd(&["H"]));
        assert_eq!(decide("F", "F", "bar.x", Some("E")), fwd(&["H"]));
        assert_eq!(decide("H", "F", "bar.x", Some("E")), DELIVER);
        assert_eq!(decide("G", "F", "bar.x", Some("E")), Decision::default());
    }

    #[test]
    fn when_h_fails_the_crossover_link_carries_foo() {
        // Traffic moves to the next-cheapest path ("Redundant Routing
        // Daemons for Fault Tolerance"): foo.> now enters Bnet through G,
        // the cheapest way to it being E-G (cost 1).
        assert_eq!(decide("E", "E", "foo.x", Some("H")), fwd(&["G"]));
        assert_eq!(decide("F", "F", "foo.x", Some("H")), Decision::default());
        assert_eq!(decide("G", "E", "foo.x", Some("H")), DELIVER);
    }

    #[test]
    fn no_interest_no_traffic_and_subjects_outside_the_interest_stay() {
        // "rvrd": messages go only to networks with an active listener.
        assert_eq!(decide("E", "E", "baz.x", None), Decision::default());
        assert_eq!(decide("F", "F", "baz.x", None), Decision::default());
    }

    #[test]
    fn a_link_counts_only_when_both_ends_announce_it() {
        let mut t = Table::new("A");
        t.insert(ann("A", "A", &[("B", 1)], &[]), 0);
        t.insert(ann("B", "B", &[], &[("x", 10)]), 0);
        assert!(!t.is_reachable("B"));
        assert_eq!(t.decide("A", &s("x")), Decision::default());
        t.insert(
            Announcement {
                seq: 2,
                ..ann("B", "B", &[("A", 1)], &[("x", 10)])
            },
            0,
        );
        assert!(t.is_reachable("B"));
        assert_eq!(t.decide("A", &s("x")), fwd(&["B"]));
    }

    #[test]
    fn a_ring_forwards_each_message_once_per_network_and_never_back() {
        // Ring A-B-C-D-A, costs 1; every router has a listener on x.
        // From A: B and D directly, C by the lower-named path A-B-C.
        let ring = |me: &str| {
            let mut t = Table::new(me);
            for (r, n) in [
                ("A", ["B", "D"]),
                ("B", ["A", "C"]),
                ("C", ["B", "D"]),
                ("D", ["C", "A"]),
            ] {
                t.insert(ann(r, r, &[(n[0], 1), (n[1], 1)], &[("x", 10)]), 0);
            }
            t
        };
        assert_eq!(ring("A").decide("A", &s("x")), fwd(&["B", "D"]));
        assert_eq!(
            ring("B").decide("A", &s("x")),
            Decision {
                deliver: true,
                forward: vec!["C".into()]
            }
        );
        assert_eq!(ring("C").decide("A", &s("x")), DELIVER);
        assert_eq!(ring("D").decide("A", &s("x")), DELIVER);
    }

    #[test]
    fn newer_announcements_replace_older_ones() {
        let mut t = Table::new("A");
        let a1 = ann("B", "B", &[], &[]);
        assert_eq!(t.insert(a1.clone(), 0), Inserted::Newer);
        assert_eq!(t.insert(a1.clone(), 0), Inserted::Same);
        let restarted = Announcement {
            incarnation: 2,
            seq: 1,
            ..a1.clone()
        };
        assert_eq!(t.insert(restarted.clone(), 0), Inserted::Newer);
        assert_eq!(t.insert(Announcement { seq: 9, ..a1 }, 0), Inserted::Older);
        assert_eq!(t.get("B"), Some(&restarted));
    }

    #[test]
    fn a_full_table_ignores_new_routers() {
        // docs/rendezvous.md "Routing links": at most MAX_ROUTERS (4096)
        // routers; 8 here, to keep the test quick.
        assert_eq!(MAX_ROUTERS, 4096);
        let mut t = Table {
            max_routers: 8,
            ..Table::new("A")
        };
        for i in 0..8 {
            assert_eq!(
                t.insert(ann(&format!("R{i}"), "N", &[], &[]), 0),
                Inserted::Newer
            );
        }
        assert_eq!(t.insert(ann("ONE.MORE", "N", &[], &[]), 0), Inserted::Full);
        // A router it holds may still announce itself again.
        let again = Announcement {
            seq: 2,
            ..ann("R0", "N", &[], &[])
        };
        assert_eq!(t.insert(again, 0), Inserted::Newer);
    }

    #[test]
    fn unreachable_routers_are_forgotten_after_the_hold_time() {
        let mut t = Table::new("A");
        t.insert(ann("A", "A", &[], &[]), 0);
        t.insert(ann("B", "B", &[], &[]), 1_000);
        assert!(t.purge(30_000, 60_000).is_empty());
        assert_eq!(t.purge(61_000, 60_000), ["B"]);
        assert!(t.get("B").is_none());
        assert!(t.get("A").is_some());
    }

    #[test]
    fn inboxes_route_to_the_router_that_made_them() {
        let mut t = load_balancing("G", None);
        assert_eq!(t.route_inbox("IDG"), InboxRoute::Local);
        assert_eq!(t.route_inbox("IDE"), InboxRoute::Forward("E".into()));
        // F from G: G-F costs 5, G-E-H-F costs 7.
        assert_eq!(t.route_inbox("IDF"), InboxRoute::Forward("F".into()));
        assert_eq!(t.route_inbox("NOPE"), InboxRoute::Unknown);
        assert_eq!(t.cost_to("H"), Some(6));
    }
}

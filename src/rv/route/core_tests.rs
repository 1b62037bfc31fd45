//! The state machine of several routers joined by simulated links: what
//! each sends, publishes and listens to, without sockets or a bus.

use super::*;
use crate::rv::route::config::{ImportConfig, NeighborConfig};
use mqgate_codecs::rv::matches;
use mqgate_codecs::rv::msg::Message;
use std::collections::VecDeque;

/// Routers, the links between them, and what reached each local network.
struct Sim {
    cores: BTreeMap<String, RouterCore>,
    /// (router, link) → (peer router, its link number).
    peers: HashMap<(String, LinkNo), (String, LinkNo)>,
    next_link: LinkNo,
    frames: VecDeque<(String, LinkNo, LinkFrame)>,
    /// Messages published on each local bus by its router.
    published: Vec<(String, Envelope)>,
    /// What each router's bus listener listens to.
    listening: BTreeMap<String, BTreeSet<String>>,
    advisories: Vec<(String, String)>,
    /// Frames carrying messages, per (from, to).
    carried: BTreeMap<(String, String), u64>,
    now: u64,
}

struct Spec<'a> {
    name: &'a str,
    network: &'a str,
    neighbors: &'a [(&'a str, u32)],
    export: &'a [&'a str],
    import: &'a [(&'a str, u32)],
}

fn config(s: &Spec<'_>) -> RoutingConfig {
    RoutingConfig {
        router: s.name.into(),
        network: Some(s.network.into()),
        listen: None,
        neighbors: s
            .neighbors
            .iter()
            .map(|(n, c)| NeighborConfig {
                name: n.to_string(),
                connect: None,
                cost: *c,
                tls: None,
                sslpeer: None,
            })
            .collect(),
        export: s.export.iter().map(|e| e.to_string()).collect(),
        import: s
            .import
            .iter()
            .map(|(i, w)| ImportConfig {
                subject: i.to_string(),
                weight: *w,
            })
            .collect(),
        heartbeat_ms: 2000,
        reconnect_min_ms: 200,
        reconnect_max_ms: 10_000,
        tls: None,
    }
}

fn subj(t: &str) -> Subject<'static> {
    Subject::parse(t, Mode::Listen).unwrap().into_owned()
}

fn envelope(subject: &str, reply: Option<&str>) -> Envelope {
    Envelope {
        subject: subject.into(),
        reply_subject: reply.map(str::to_string),
        cm: None,
        message: Message::new(Vec::new()),
    }
}

impl Sim {
    fn new(specs: &[Spec<'_>]) -> Sim {
        let mut sim = Sim {
            cores: BTreeMap::new(),
            peers: HashMap::new(),
            next_link: 1,
            frames: VecDeque::new(),
            published: Vec::new(),
            listening: BTreeMap::new(),
            advisories: Vec::new(),
            carried: BTreeMap::new(),
            now: 0,
        };
        for s in specs {
            let core = RouterCore::new(&config(s), &format!("ID{}", s.name), 1, Limits::default());
            sim.cores.insert(s.name.into(), core);
            sim.listening.insert(s.name.into(), BTreeSet::new());
        }
        sim
    }

    fn run(&mut self, router: &str, actions: Vec<Action>) {
        let tagged = actions
            .into_iter()
            .map(|a| (router.to_string(), a))
            .collect();
        self.run_all(tagged);
    }

    fn run_all(&mut self, actions: Vec<(String, Action)>) {
        let mut todo: VecDeque<(String, Action)> = actions.into();
        loop {
            while let Some((r, a)) = todo.pop_front() {
                match a {
                    Action::Send { link, frame } => {
                        if let Some((peer, plink)) = self.peers.get(&(r.clone(), link)).cloned() {
                            if matches!(frame, LinkFrame::Message(_)) {
                                *self.carried.entry((r.clone(), peer.clone())).or_default() += 1;
                            }
                            self.frames.push_back((peer, plink, frame));
                        }
                    }
                    Action::Close { link, reason } => {
                        if let Some((peer, plink)) = self.peers.remove(&(r.clone(), link)) {
                            self.peers.remove(&(peer.clone(), plink));
                            let now = self.now;
                            let acts = self
                                .cores
                                .get_mut(&peer)
                                .map(|c| c.link_down(plink, &reason, now))
                                .unwrap_or_default();
                            todo.extend(acts.into_iter().map(|a| (peer.clone(), a)));
                        }
                    }
                    Action::Publish(env) => self.published.push((r.clone(), env)),
                    Action::Listen(s) => {
                        self.listening.get_mut(&r).unwrap().insert(s);
                    }
                    Action::Unlisten(s) => {
                        self.listening.get_mut(&r).unwrap().remove(&s);
                    }
                    Action::Advisory(a) => self.advisories.push((r.clone(), a.subject())),
                }
            }
            let Some((to, link, frame)) = self.frames.pop_front() else {
                break;
            };
            let now = self.now;
            if let Some(c) = self.cores.get_mut(&to) {
                let acts = c.frame(link, frame, now);
                todo.extend(acts.into_iter().map(|a| (to.clone(), a)));
            }
        }
    }

    fn connect(&mut self, a: &str, b: &str) {
        let (la, lb) = (self.next_link, self.next_link + 1);
        self.next_link += 2;
        self.peers.insert((a.into(), la), (b.into(), lb));
        self.peers.insert((b.into(), lb), (a.into(), la));
        let na = self.cores[a].network.clone();
        let nb = self.cores[b].network.clone();
        let now = self.now;
        // Both ends learn the link is up before any frame crosses it (the
        // link tasks report Up before the frames they read).
        let mut acts: Vec<(String, Action)> = Vec::new();
        let peer = |neighbor: &str, network: &str| Peer {
            neighbor: neighbor.into(),
            network: network.into(),
            dialer: a.into(),
            address: None,
            max_frame: 1 << 20,
        };
        let up = self
            .cores
            .get_mut(a)
            .unwrap()
            .link_up(la, &peer(b, &nb), now);
        acts.extend(up.into_iter().map(|x| (a.to_string(), x)));
        let up = self
            .cores
            .get_mut(b)
            .unwrap()
            .link_up(lb, &peer(a, &na), now);
        acts.extend(up.into_iter().map(|x| (b.to_string(), x)));
        self.run_all(acts);
    }

    /// `router` ends at once: every neighbor sees its link go down.
    fn kill(&mut self, router: &str) {
        self.cores.remove(router);
        let gone: Vec<_> = self
            .peers
            .iter()
            .filter(|((r, _), _)| r == router)
            .map(|(k, v)| (k.clone(), v.clone()))
            .collect();
        for (k, (peer, plink)) in gone {
            self.peers.remove(&k);
            self.peers.remove(&(peer.clone(), plink));
            let now = self.now;
            let acts =
                self.cores
                    .get_mut(&peer)
                    .unwrap()
                    .link_down(plink, "connection closed", now);
            self.run(&peer, acts);
        }
    }

    fn listen(&mut self, router: &str, subject: &str) {
        let c = self.cores.get_mut(router).unwrap();
        c.local_interest(subj(subject), true);
        let acts = c.flush(self.now);
        self.run(router, acts);
    }

    fn unlisten(&mut self, router: &str, subject: &str) {
        let c = self.cores.get_mut(router).unwrap();
        c.local_interest(subj(subject), false);
        let acts = c.flush(self.now);
        self.run(router, acts);
    }

    /// A program publishes on `router`'s bus (nothing when the router is
    /// gone): the router's listener gets it when one of its subjects
    /// matches (as the bus does).
    fn publish(&mut self, router: &str, env: Envelope) {
        if !self.cores.contains_key(router) {
            return;
        }
        let s = Subject::parse_delivered(&env.subject).unwrap();
        let heard = self.listening[router]
            .iter()
            .any(|p| matches(&Subject::parse(p, Mode::Listen).unwrap(), &s));
        if !heard {
            return;
        }
        let bytes = Bytes::from(env.encode(&Limits::default()).unwrap());
        let now = self.now;
        let acts = self
            .cores
            .get_mut(router)
            .unwrap()
            .local_message(&env.subject, bytes, now);
        self.run(router, acts);
    }

    fn delivered(&self, subject: &str) -> Vec<String> {
        let mut v: Vec<String> = self
            .published
            .iter()
            .filter(|(_, e)| e.subject == subject)
            .map(|(r, _)| r.clone())
            .collect();
        v.sort();
        v
    }

    fn carried(&self, from: &str, to: &str) -> u64 {
        self.carried
            .get(&(from.to_string(), to.to_string()))
            .copied()
            .unwrap_or(0)
    }
}

/// TIBCO Rendezvous Administration, "Load Balancing", figure "Path Cost and
/// Subject Import Weight": E and F serve Anet, G and H serve Bnet; outer
/// links E-G and F-H cost 1, crossover links E-H and F-G cost 5; G imports
/// foo.> with weight 1 and bar.> with 10, H the reverse; E and F export
/// both.
fn load_balancing() -> Sim {
    let export = &["foo.>", "bar.>"];
    let mut sim = Sim::new(&[
        Spec {
            name: "E",
            network: "Anet",
            neighbors: &[("G", 1), ("H", 5)],
            export,
            import: &[],
        },
        Spec {
            name: "F",
            network: "Anet",
            neighbors: &[("G", 5), ("H", 1)],
            export,
            import: &[],
        },
        Spec {
            name: "G",
            network: "Bnet",
            neighbors: &[("E", 1), ("F", 5)],
            export: &[],
            import: &[("foo.>", 1), ("bar.>", 10)],
        },
        Spec {
            name: "H",
            network: "Bnet",
            neighbors: &[("E", 5), ("F", 1)],
            export: &[],
            import: &[("foo.>", 10), ("bar.>", 1)],
        },
    ]);
    for (a, b) in [("E", "G"), ("E", "H"), ("F", "G"), ("F", "H")] {
        sim.connect(a, b);
    }
    // A listener on Bnet: its interest reaches both of Bnet's routers.
    for r in ["G", "H"] {
        sim.listen(r, "foo.>");
        sim.listen(r, "bar.>");
    }
    sim
}

/// A message published on Anet reaches both of Anet's routers.
fn publish_on_anet(sim: &mut Sim, subject: &str) {
    sim.publish("E", envelope(subject, None));
    sim.publish("F", envelope(subject, None));
}

#[test]
fn the_load_balancing_example_routes_by_cost_then_weight() {
    // "Load Balancing": "Messages with subjects bar.> enter Bnet through
    // routing daemon G. Messages with subjects foo.> enter Bnet through
    // routing daemon H", along the outer links.
    let mut sim = load_balancing();
    publish_on_anet(&mut sim, "foo.1");
    publish_on_anet(&mut sim, "bar.1");
    assert_eq!(sim.delivered("foo.1"), ["H"]);
    assert_eq!(sim.delivered("bar.1"), ["G"]);
    assert_eq!(sim.carried("F", "H"), 1);
    assert_eq!(sim.carried("E", "G"), 1);
    assert_eq!(sim.carried("E", "H"), 0);
    assert_eq!(sim.carried("F", "G"), 0);
}

#[test]
fn when_e_fails_all_messages_travel_through_f_and_h() {
    // The overview of this example: "If E were to fail, all messages would
    // travel through F and H (because that route has the lowest path
    // cost)".
    let mut sim = load_balancing();
    sim.kill("E");
    publish_on_anet(&mut sim, "foo.2");
    publish_on_anet(&mut sim, "bar.2");
    assert_eq!(sim.delivered("foo.2"), ["H"]);
    assert_eq!(sim.delivered("bar.2"), ["H"]);
    assert_eq!(sim.carried("F", "H"), 2);
    assert_eq!(sim.carried("F", "G"), 0);
    // G and H each told their bus the link went down (mqgate's advisory).
    assert!(
        sim.advisories
            .contains(&("G".into(), "_RV.WARN.RVRD.NEIGHBOR.DISCONNECTED.E".into()))
    );
}

#[test]
fn interest_decides_what_crosses_a_link() {
    // "rvrd": "messages go only to networks with an active listener".
    let mut sim = load_balancing();
    publish_on_anet(&mut sim, "baz.1");
    assert!(sim.delivered("baz.1").is_empty());
    assert!(sim.carried.is_empty());
    // The last listener of bar.> goes: bar stops crossing.
    sim.unlisten("G", "bar.>");
    sim.unlisten("H", "bar.>");
    publish_on_anet(&mut sim, "bar.3");
    assert!(sim.delivered("bar.3").is_empty());
    assert!(sim.carried.is_empty());
    assert!(!sim.listening["E"].contains("bar.>"));
}

#[test]
fn import_gating_needs_a_subset_of_an_import_subject() {
    // The spec sheet's [fact] from "Subject Gating": a listener on > behind
    // import FOO.> receives nothing until someone listens on a subset such
    // as FOO.BAR.
    let mut sim = Sim::new(&[
        Spec {
            name: "A",
            network: "A",
            neighbors: &[("B", 1)],
            export: &[">"],
            import: &[],
        },
        Spec {
            name: "B",
            network: "B",
            neighbors: &[("A", 1)],
            export: &[],
            import: &[("FOO.>", 10)],
        },
    ]);
    sim.connect("A", "B");
    sim.listen("B", ">");
    sim.publish("A", envelope("FOO.BAR", None));
    assert!(sim.delivered("FOO.BAR").is_empty());
    sim.listen("B", "FOO.BAR");
    sim.publish("A", envelope("FOO.BAR", None));
    assert_eq!(sim.delivered("FOO.BAR"), ["B"]);
    // FOO.BAZ: only the > listener would want it, and it is not interest.
    sim.publish("A", envelope("FOO.BAZ", None));
    assert!(sim.delivered("FOO.BAZ").is_empty());
}

#[test]
fn export_gating_keeps_unexported_subjects_home() {
    let mut sim = Sim::new(&[
        Spec {
            name: "A",
            network: "A",
            neighbors: &[("B", 1)],
            export: &["PUB.>"],
            import: &[],
        },
        Spec {
            name: "B",
            network: "B",
            neighbors: &[("A", 1)],
            export: &[],
            import: &[(">", 10)],
        },
    ]);
    sim.connect("A", "B");
    sim.listen("B", "PUB.X");
    sim.listen("B", "PRIV.X");
    // A listens only to what it may export.
    assert_eq!(sim.listening["A"], BTreeSet::from(["PUB.X".to_string()]));
    sim.publish("A", envelope("PUB.X", None));
    sim.publish("A", envelope("PRIV.X", None));
    assert_eq!(sim.delivered("PUB.X"), ["B"]);
    assert!(sim.delivered("PRIV.X").is_empty());
}

#[test]
fn a_ring_delivers_once_everywhere_and_never_loops() {
    // Four routers in a ring, each its own network with a listener on x:
    // redundant paths, one copy per network.
    let names = ["A", "B", "C", "D"];
    let nb = [
        [("B", 1), ("D", 1)],
        [("A", 1), ("C", 1)],
        [("B", 1), ("D", 1)],
        [("C", 1), ("A", 1)],
    ];
    let specs: Vec<Spec<'_>> = names
        .iter()
        .zip(nb.iter())
        .map(|(n, nb)| Spec {
            name: n,
            network: n,
            neighbors: nb,
            export: &["x"],
            import: &[("x", 10)],
        })
        .collect();
    let mut sim = Sim::new(&specs);
    for (a, b) in [("A", "B"), ("B", "C"), ("C", "D"), ("D", "A")] {
        sim.connect(a, b);
    }
    for n in names {
        sim.listen(n, "x");
    }
    for n in names {
        sim.published.clear();
        sim.carried.clear();
        sim.publish(n, envelope("x", None));
        let mut others: Vec<String> = names
            .iter()
            .filter(|m| **m != n)
            .map(|m| m.to_string())
            .collect();
        others.sort();
        assert_eq!(sim.delivered("x"), others, "from {n}");
        // Three networks reached with three link crossings: no copy
        // travels a second way round.
        assert_eq!(sim.carried.values().sum::<u64>(), 3, "from {n}");
    }
    for c in sim.cores.values_mut() {
        let st = c.status(0);
        assert_eq!(st["messages"]["loops"], 0);
        assert_eq!(st["messages"]["duplicates"], 0);
    }
}

#[test]
fn copies_seen_before_and_loops_are_dropped() {
    let mut sim = load_balancing();
    let g = sim.cores.get_mut("G").unwrap();
    let link = *g.links.iter().find(|(_, n)| *n == "E").unwrap().0;
    let env = Bytes::from(envelope("bar.9", None).encode(&Limits::default()).unwrap());
    let fwd = Forward {
        origin: "E".into(),
        incarnation: 1,
        seq: 99,
        hops: vec!["E".into()],
        envelope: env.clone(),
    };
    let first = g.frame(link, LinkFrame::Message(fwd.clone()), 0);
    assert!(matches!(first.as_slice(), [Action::Publish(e)] if e.subject == "bar.9"));
    assert!(g.frame(link, LinkFrame::Message(fwd.clone()), 0).is_empty());
    let looped = Forward {
        seq: 100,
        hops: vec!["E".into(), "G".into()],
        ..fwd
    };
    assert!(g.frame(link, LinkFrame::Message(looped), 0).is_empty());
    let st = g.status(0);
    assert_eq!(st["messages"]["duplicates"], 1);
    assert_eq!(st["messages"]["loops"], 1);
}

#[test]
fn replies_to_an_inbox_go_back_to_the_gateway_that_made_it() {
    // "Inbox Names": request/reply across networks through the routing
    // daemons in both directions. A requester on Anet (at E) asks with
    // inbox _INBOX.IDE.1; the bar.> request enters Bnet through G; the
    // reply published on G's bus returns to E.
    let mut sim = load_balancing();
    sim.publish("E", envelope("bar.req", Some("_INBOX.IDE.1")));
    assert_eq!(sim.delivered("bar.req"), ["G"]);
    assert!(sim.listening["G"].contains("_INBOX.IDE.1"));
    sim.publish("G", envelope("_INBOX.IDE.1", None));
    assert_eq!(sim.delivered("_INBOX.IDE.1"), ["E"]);
    // No import or export rule was needed; F (same network) got nothing.
    assert_eq!(sim.carried("G", "E"), 1);
}

#[test]
fn both_dialled_links_resolve_to_the_one_the_lower_name_dialled() {
    let mut core = RouterCore::new(
        &config(&Spec {
            name: "B",
            network: "B",
            neighbors: &[("A", 1)],
            export: &[],
            import: &[],
        }),
        "IDB",
        1,
        Limits::default(),
    );
    // B dialled A (link 1), then A's dial arrives (link 2): A < B, so the
    // link A dialled stays.
    let dialled_by = |dialer: &str| Peer {
        neighbor: "A".into(),
        network: "A".into(),
        dialer: dialer.into(),
        address: None,
        max_frame: 4096,
    };
    core.link_up(1, &dialled_by("B"), 0);
    let acts = core.link_up(2, &dialled_by("A"), 0);
    assert!(acts.contains(&Action::Close {
        link: 1,
        reason: "replaced by the link the lower-named router dialled".into()
    }));
    // A third (B-dialled) one is refused.
    let acts = core.link_up(3, &dialled_by("B"), 0);
    assert!(matches!(acts.as_slice(), [Action::Close { link: 3, .. }]));
    assert_eq!(core.status(0)["neighbors"][0]["state"], "up");
}

#[test]
fn hellos_from_strangers_are_refused() {
    let id = Identity::of(
        &config(&Spec {
            name: "G",
            network: "Bnet",
            neighbors: &[("E", 1)],
            export: &[],
            import: &[],
        }),
        1 << 20,
    );
    let mut h = id.hello("G");
    h.router = "E".into();
    assert_eq!(id.check_hello(&h), Ok(()));
    h.router = "X".into();
    assert_eq!(
        id.check_hello(&h).unwrap_err(),
        "\"X\" is not a neighbor of router \"G\" (rv.routing.neighbors)"
    );
    h.router = "E".into();
    h.expected = "H".into();
    assert_eq!(
        id.check_hello(&h).unwrap_err(),
        "this router is \"G\", not \"H\""
    );
    let mut ack = id.hello_ack();
    assert_eq!(
        id.check_ack("E", &ack).unwrap_err(),
        "dialled \"E\" but \"G\" answered"
    );
    ack.router = "E".into();
    assert_eq!(id.check_ack("E", &ack), Ok(()));
}

#[test]
fn link_advisories_name_the_neighbor() {
    // mqgate's names under _RV.<class>.RVRD. (docs/rendezvous.md
    // "Advisories").
    let mut sim = load_balancing();
    assert!(
        sim.advisories
            .contains(&("E".into(), "_RV.INFO.RVRD.NEIGHBOR.CONNECTED.G".into()))
    );
    sim.kill("G");
    assert!(
        sim.advisories
            .contains(&("E".into(), "_RV.WARN.RVRD.NEIGHBOR.DISCONNECTED.G".into()))
    );
}

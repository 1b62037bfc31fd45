//! The routing daemon's state machine, synchronous and without I/O: links
//! coming up and going down, frames from neighbors, the local network's
//! interest and messages go in; frames to send, messages to publish on the
//! local bus, listen subjects and advisories come out as [`Action`]s
//! (docs/rendezvous.md "Routing between gateways"). The async service
//! (src/rv/route/service.rs) only moves bytes and carries the actions out.

use std::collections::{BTreeMap, BTreeSet, HashMap, HashSet, VecDeque};
use std::net::{IpAddr, Ipv4Addr, SocketAddr};

use bytes::Bytes;
use mqgate_codecs::rv::msg::{Envelope, Limits, Value};
use mqgate_codecs::rv::{Mode, Subject, SubjectClass};
use serde_json::{Value as Json, json};

use super::config::RoutingConfig;
use super::frame::{Forward, Hello, HelloAck, LINK_VERSION, LinkFrame, MAX_HOPS};
use super::gate::Gates;
use super::table::{Announcement, InboxRoute, Inserted, Table};
use crate::rv::advisory::{Advisory, AdvisoryClass};

/// Source element of the routing daemon's advisories (mqgate's names:
/// TIBCO documents no advisory for routing daemon links).
pub const SOURCE_RVRD: &str = "RVRD";
/// How long a router stays in the table once unreachable, ms.
pub const UNREACHABLE_HOLD_MS: u64 = 60_000;
/// How long a reply inbox seen on an imported message is listened to
/// after the last message that named it, ms.
pub const INBOX_HOLD_MS: u64 = 600_000;
/// Most reply inboxes listened to at once (the oldest is dropped).
pub const MAX_INBOXES: usize = 10_000;
/// Messages remembered per router to tell copies already seen.
const SEEN_MAX: usize = 65_536;

/// A link's number in this router (given by the service).
pub type LinkNo = u64;

/// What the service does for the state machine.
#[derive(Clone, Debug, PartialEq)]
pub enum Action {
    /// Send `frame` on link `link`.
    Send {
        /// The link.
        link: LinkNo,
        /// The frame.
        frame: LinkFrame,
    },
    /// Close link `link`, telling the neighbor why.
    Close {
        /// The link.
        link: LinkNo,
        /// Why, for the neighbor's log.
        reason: String,
    },
    /// Publish a message that came over a link on the local bus.
    Publish(Envelope),
    /// The router's bus listener listens to this subject too.
    Listen(String),
    /// ... and no longer to this one.
    Unlisten(String),
    /// Publish this advisory on the local bus.
    Advisory(Advisory),
}

/// Counters of one neighbor, kept across its links.
#[derive(Clone, Debug, Default)]
struct Neighbor {
    cost: u32,
    connect: Option<String>,
    link: Option<LinkNo>,
    address: Option<SocketAddr>,
    /// Who dialled the link up now.
    dialer: Option<String>,
    network: Option<String>,
    peer_max_frame: usize,
    connects: u64,
    since_ms: u64,
    messages_out: u64,
    messages_in: u64,
    bytes_out: u64,
    bytes_in: u64,
    dropped_out: u64,
    /// Messages lost toward it not yet told in a DATALOSS advisory.
    unreported_loss: u64,
    last_error: Option<String>,
}

/// Router-wide counters.
#[derive(Clone, Debug, Default)]
struct Counters {
    /// Local messages that left the gateway on at least one link.
    exported: u64,
    /// Local messages no other network was interested in (or not exported).
    kept: u64,
    /// Messages from links published on the local bus.
    imported: u64,
    /// Messages passed from one link to another.
    transit: u64,
    /// Copies seen before (dropped).
    duplicates: u64,
    /// Messages that came back to a router they had passed (dropped).
    loops: u64,
    /// Messages that could not be routed or read (dropped).
    unroutable: u64,
    /// Messages too large for a neighbor's frames (dropped).
    too_large: u64,
}

/// A neighbor at the other end of a link, as its handshake told it.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Peer {
    /// Its router name.
    pub neighbor: String,
    /// Its local network.
    pub network: String,
    /// The router that dialled the link (it, or this one).
    pub dialer: String,
    /// Its address.
    pub address: Option<SocketAddr>,
    /// The largest frame it takes, bytes.
    pub max_frame: usize,
}

/// What a router says of itself in a handshake, and whom it accepts: the
/// part of its configuration the link tasks need.
#[derive(Clone, Debug)]
pub struct Identity {
    /// Router name.
    pub router: String,
    /// Its local network.
    pub network: String,
    /// Declared neighbors.
    pub neighbors: BTreeSet<String>,
    /// Largest frame it accepts, bytes.
    pub max_frame: usize,
    /// Heartbeat interval, ms.
    pub heartbeat_ms: u64,
}

impl Identity {
    /// The identity of the router of `config` accepting frames up to
    /// `max_frame` bytes.
    pub fn of(config: &RoutingConfig, max_frame: usize) -> Identity {
        Identity {
            router: config.router.clone(),
            network: config.network_name().to_string(),
            neighbors: config.neighbors.iter().map(|n| n.name.clone()).collect(),
            max_frame,
            heartbeat_ms: config.heartbeat_ms,
        }
    }

    /// The HELLO this router sends when it dials `neighbor`.
    pub fn hello(&self, neighbor: &str) -> Hello {
        Hello {
            version: LINK_VERSION,
            router: self.router.clone(),
            network: self.network.clone(),
            expected: neighbor.to_string(),
            max_frame: u32::try_from(self.max_frame).unwrap_or(u32::MAX),
            heartbeat_ms: u32::try_from(self.heartbeat_ms).unwrap_or(u32::MAX),
        }
    }

    /// The HELLO_ACK answering an accepted HELLO.
    pub fn hello_ack(&self) -> HelloAck {
        HelloAck {
            version: LINK_VERSION,
            router: self.router.clone(),
            network: self.network.clone(),
            max_frame: u32::try_from(self.max_frame).unwrap_or(u32::MAX),
            heartbeat_ms: u32::try_from(self.heartbeat_ms).unwrap_or(u32::MAX),
        }
    }

    /// Whether a dialling router's HELLO is accepted: it names this router
    /// and is a declared neighbor ("Neighbors": a routing daemon declares
    /// its potential neighbors). Versions above 1 are answered with 1.
    ///
    /// Errors: the reason, sent back in a CLOSE frame.
    pub fn check_hello(&self, hello: &Hello) -> Result<(), String> {
        if hello.version < LINK_VERSION {
            return Err(format!(
                "routing link version {} is not spoken here ({LINK_VERSION})",
                hello.version
            ));
        }
        if hello.expected != self.router {
            return Err(format!(
                "this router is {:?}, not {:?}",
                self.router, hello.expected
            ));
        }
        if !self.neighbors.contains(&hello.router) {
            return Err(format!(
                "{:?} is not a neighbor of router {:?} (rv.routing.neighbors)",
                hello.router, self.router
            ));
        }
        Ok(())
    }

    /// Whether a HELLO_ACK answers the HELLO sent to `neighbor`.
    ///
    /// Errors: the reason.
    pub fn check_ack(&self, neighbor: &str, ack: &HelloAck) -> Result<(), String> {
        if ack.router != neighbor {
            return Err(format!(
                "dialled {neighbor:?} but {:?} answered",
                ack.router
            ));
        }
        if ack.version != LINK_VERSION {
            return Err(format!(
                "{neighbor:?} answered with routing link version {}, not {LINK_VERSION}",
                ack.version
            ));
        }
        Ok(())
    }
}

/// The state machine of one routing daemon.
#[derive(Debug)]
pub struct RouterCore {
    router: String,
    network: String,
    inbox_id: String,
    gates: Gates,
    limits: Limits,
    incarnation: u64,
    seq: u64,
    next_message: u64,
    table: Table,
    neighbors: BTreeMap<String, Neighbor>,
    /// Links up, by number: the neighbor.
    links: HashMap<LinkNo, String>,
    /// Listen subjects of local listeners (not the router's own).
    local_interest: BTreeSet<Subject<'static>>,
    /// The announcement needs sending again.
    dirty: bool,
    /// Subjects the router's bus listener holds (besides its own).
    listening: BTreeSet<String>,
    /// Reply inboxes listened to: last use, ms.
    inboxes: HashMap<String, u64>,
    seen: HashSet<(String, u64, u64)>,
    seen_order: VecDeque<(String, u64, u64)>,
    counters: Counters,
}

/// The reply inbox's middle element: `ABC` of `_INBOX.ABC.7`.
fn inbox_id(subject: &str) -> Option<&str> {
    let mut it = subject.split('.');
    (it.next() == Some("_INBOX")).then(|| it.next()).flatten()
}

/// The subject of mqgate's binary form of an envelope, read from its header
/// only (docs/rendezvous.md "Binary form": StrucId, version, flags, length,
/// then the subject's length and bytes).
fn envelope_subject(b: &[u8]) -> Option<&str> {
    if b.len() < 11 || &b[0..4] != b"RVM " || b[4] != 1 {
        return None;
    }
    let len = u32::from_be_bytes([b[6], b[7], b[8], b[9]]) as usize;
    let n = b[10] as usize;
    if len != b.len() || n == 0 || 11 + n > b.len() {
        return None;
    }
    std::str::from_utf8(&b[11..11 + n]).ok()
}

impl RouterCore {
    /// The state machine for `config`, the local gateway's inbox id (the
    /// middle element of its inboxes), the started time `incarnation` (ms
    /// since 1970) and the bus's message limits.
    pub fn new(
        config: &RoutingConfig,
        inbox_id: &str,
        incarnation: u64,
        limits: Limits,
    ) -> RouterCore {
        let neighbors = config
            .neighbors
            .iter()
            .map(|n| {
                (
                    n.name.clone(),
                    Neighbor {
                        cost: n.cost,
                        connect: n.connect.clone(),
                        ..Neighbor::default()
                    },
                )
            })
            .collect();
        let mut core = RouterCore {
            router: config.router.clone(),
            network: config.network_name().to_string(),
            inbox_id: inbox_id.to_string(),
            gates: Gates::of(config),
            limits,
            incarnation,
            seq: 0,
            next_message: 0,
            table: Table::new(&config.router),
            neighbors,
            links: HashMap::new(),
            local_interest: BTreeSet::new(),
            dirty: true,
            listening: BTreeSet::new(),
            inboxes: HashMap::new(),
            seen: HashSet::new(),
            seen_order: VecDeque::new(),
            counters: Counters::default(),
        };
        core.announce(0);
        core
    }

    /// The router name.
    pub fn router(&self) -> &str {
        &self.router
    }

    /// Link `link` to `peer` completed its handshake.
    pub fn link_up(&mut self, link: LinkNo, peer: &Peer, now_ms: u64) -> Vec<Action> {
        let Peer {
            neighbor,
            network,
            dialer,
            address,
            max_frame: peer_max_frame,
        } = peer;
        let (neighbor, dialer, address, peer_max_frame) = (
            neighbor.as_str(),
            dialer.as_str(),
            *address,
            *peer_max_frame,
        );
        let mut out = Vec::new();
        let Some(n) = self.neighbors.get(neighbor) else {
            out.push(Action::Close {
                link,
                reason: format!("{neighbor:?} is not a neighbor"),
            });
            return out;
        };
        if let Some(old) = n.link {
            // Both routers dialled: both keep the link the lower-named
            // router dialled.
            let keeper = self.router.as_str().min(neighbor);
            if dialer != keeper {
                out.push(Action::Close {
                    link,
                    reason: format!("already linked to {:?}", self.router),
                });
                return out;
            }
            self.links.remove(&old);
            out.push(Action::Close {
                link: old,
                reason: "replaced by the link the lower-named router dialled".into(),
            });
        }
        let was_up = n.link.is_some();
        let n = self.neighbors.entry(neighbor.to_string()).or_default();
        n.link = Some(link);
        n.address = address;
        n.dialer = Some(dialer.to_string());
        n.network = Some(network.clone());
        n.peer_max_frame = peer_max_frame;
        n.connects += 1;
        n.since_ms = now_ms;
        n.last_error = None;
        let cost = n.cost;
        self.links.insert(link, neighbor.to_string());
        // The neighbor learns the whole table, then every change.
        for a in self.table.all() {
            out.push(Action::Send {
                link,
                frame: LinkFrame::Router(a.clone()),
            });
        }
        if !was_up {
            self.dirty = true;
            out.push(Action::Advisory(
                Advisory::new(
                    AdvisoryClass::Info,
                    SOURCE_RVRD,
                    format!("NEIGHBOR.CONNECTED.{neighbor}"),
                )
                .with_field("router", Value::String(self.router.clone()))
                .with_field("neighbor", Value::String(neighbor.to_string()))
                .with_field(
                    "address",
                    Value::String(address.map(|a| a.to_string()).unwrap_or_default()),
                )
                .with_field("cost", Value::U32(cost)),
            ));
            tracing::info!(router = %self.router, neighbor, address = ?address, "routing link up");
        }
        out.extend(self.flush(now_ms));
        out
    }

    /// Link `link` went down (`reason`).
    pub fn link_down(&mut self, link: LinkNo, reason: &str, now_ms: u64) -> Vec<Action> {
        let mut out = Vec::new();
        let Some(neighbor) = self.links.remove(&link) else {
            return out;
        };
        if let Some(n) = self.neighbors.get_mut(&neighbor) {
            n.link = None;
            n.dialer = None;
            n.last_error = Some(reason.to_string());
        }
        self.dirty = true;
        tracing::warn!(router = %self.router, neighbor, reason, "routing link down");
        out.push(Action::Advisory(
            Advisory::new(
                AdvisoryClass::Warn,
                SOURCE_RVRD,
                format!("NEIGHBOR.DISCONNECTED.{neighbor}"),
            )
            .with_field("router", Value::String(self.router.clone()))
            .with_field("neighbor", Value::String(neighbor.clone()))
            .with_field("description", Value::String(reason.to_string())),
        ));
        out.extend(self.flush(now_ms));
        out
    }

    /// A frame came in on link `link`.
    pub fn frame(&mut self, link: LinkNo, frame: LinkFrame, now_ms: u64) -> Vec<Action> {
        let Some(neighbor) = self.links.get(&link).cloned() else {
            return Vec::new();
        };
        match frame {
            LinkFrame::Router(a) => self.announcement(link, a, now_ms),
            LinkFrame::Message(m) => {
                let mut out = Vec::new();
                self.forwarded(&neighbor, m, now_ms, &mut out);
                out
            }
            LinkFrame::Heartbeat | LinkFrame::Close(_) => Vec::new(),
            other => vec![Action::Close {
                link,
                reason: format!("{} frame after the handshake", other.name()),
            }],
        }
    }

    fn announcement(&mut self, link: LinkNo, a: Announcement, now_ms: u64) -> Vec<Action> {
        let mut out = Vec::new();
        if a.router == self.router {
            // An announcement of ours from an earlier run came back: ours
            // must be newer.
            if a.incarnation > self.incarnation
                || (a.incarnation == self.incarnation && a.seq > self.seq)
            {
                self.incarnation = a.incarnation;
                self.seq = a.seq;
                let mine = self.announce(now_ms);
                out.extend(self.flood(mine));
            }
            return out;
        }
        match self.table.insert(a.clone(), now_ms) {
            Inserted::Newer => {
                for (&l, _) in self.links.iter().filter(|(l, _)| **l != link) {
                    out.push(Action::Send {
                        link: l,
                        frame: LinkFrame::Router(a.clone()),
                    });
                }
                out.extend(self.relisten());
            }
            Inserted::Older => {
                if let Some(newer) = self.table.get(&a.router) {
                    out.push(Action::Send {
                        link,
                        frame: LinkFrame::Router(newer.clone()),
                    });
                }
            }
            Inserted::Same => {}
            Inserted::Full => {
                tracing::warn!(router = %self.router, announced = %a.router, "routing table full: router ignored");
            }
        }
        out
    }

    /// A local listener's subject got its first listener, or lost its last.
    pub fn local_interest(&mut self, subject: Subject<'static>, listening: bool) {
        // Subjects that are never interest: inboxes (one per request) are
        // routed by their gateway, the others never cross a link.
        if matches!(
            subject.class(),
            SubjectClass::Inbox
                | SubjectClass::Local
                | SubjectClass::Advisory
                | SubjectClass::RoutingDaemon
        ) {
            return;
        }
        let changed = if listening {
            self.local_interest.insert(subject)
        } else {
            self.local_interest.remove(&subject)
        };
        self.dirty |= changed;
    }

    /// The interest this router announces: its local listeners' subjects
    /// that fall inside an import subject, with import weights.
    fn interest(&self) -> Vec<(Subject<'static>, u32)> {
        self.local_interest
            .iter()
            .filter_map(|s| self.gates.interest(s).map(|w| (s.clone(), w)))
            .collect()
    }

    /// Connected neighbors and their costs, as announced.
    fn announced_neighbors(&self) -> Vec<(String, u32)> {
        self.neighbors
            .iter()
            .filter(|(_, n)| n.link.is_some())
            .map(|(name, n)| (name.clone(), n.cost))
            .collect()
    }

    /// Makes a new announcement of this router and keeps it in the table.
    fn announce(&mut self, now_ms: u64) -> Announcement {
        self.seq += 1;
        let neighbors = self.announced_neighbors();
        let a = Announcement {
            router: self.router.clone(),
            network: self.network.clone(),
            inbox_id: self.inbox_id.clone(),
            incarnation: self.incarnation,
            seq: self.seq,
            neighbors,
            interest: self.interest(),
        };
        self.table.insert(a.clone(), now_ms);
        self.dirty = false;
        a
    }

    /// `a` to every link.
    fn flood(&self, a: Announcement) -> Vec<Action> {
        self.links
            .keys()
            .map(|&l| Action::Send {
                link: l,
                frame: LinkFrame::Router(a.clone()),
            })
            .collect()
    }

    /// Announces this router again if its links or interest changed.
    pub fn flush(&mut self, now_ms: u64) -> Vec<Action> {
        let mut out = Vec::new();
        if !self.dirty {
            return out;
        }
        self.dirty = false;
        let (neighbors, interest) = (self.announced_neighbors(), self.interest());
        let changed = self
            .table
            .get(&self.router)
            .is_none_or(|o| o.neighbors != neighbors || o.interest != interest);
        if changed {
            let a = self.announce(now_ms);
            out.extend(self.flood(a));
        }
        out.extend(self.relisten());
        out
    }

    /// Brings the bus listener's subjects to what other networks want and
    /// this one exports, and the reply inboxes in use.
    fn relisten(&mut self) -> Vec<Action> {
        let mut want: BTreeSet<String> = self
            .table
            .remote_interest(&self.network)
            .into_iter()
            .filter(|p| self.gates.exports_some(p))
            .map(|p| p.as_str().to_string())
            .collect();
        want.extend(self.inboxes.keys().cloned());
        let mut out = Vec::new();
        for gone in self.listening.difference(&want) {
            out.push(Action::Unlisten(gone.clone()));
        }
        for new in want.difference(&self.listening) {
            out.push(Action::Listen(new.clone()));
        }
        self.listening = want;
        out
    }

    fn next_seq(&mut self) -> u64 {
        self.next_message += 1;
        self.next_message
    }

    /// A message published on the local bus that the router's listener
    /// got (a subject another network wants, or a reply inbox): its
    /// subject and mqgate's binary form.
    pub fn local_message(&mut self, subject: &str, encoded: Bytes, now_ms: u64) -> Vec<Action> {
        let mut out = Vec::new();
        let Ok(s) = Subject::parse(subject, Mode::Listen) else {
            self.counters.unroutable += 1;
            return out;
        };
        let targets = if s.class() == SubjectClass::Inbox {
            match inbox_id(subject).map(|id| self.table.route_inbox(id)) {
                Some(InboxRoute::Forward(n)) => {
                    if let Some(t) = self.inboxes.get_mut(subject) {
                        *t = now_ms;
                    }
                    vec![n]
                }
                _ => Vec::new(),
            }
        } else if self.gates.exports(&s) {
            let me = self.router.clone();
            self.table.decide(&me, &s).forward
        } else {
            Vec::new()
        };
        if targets.is_empty() {
            self.counters.kept += 1;
            return out;
        }
        self.counters.exported += 1;
        let fwd = Forward {
            origin: self.router.clone(),
            incarnation: self.incarnation,
            seq: self.next_seq(),
            hops: vec![self.router.clone()],
            envelope: encoded,
        };
        for n in targets {
            self.send_message(&n, fwd.clone(), &mut out);
        }
        out
    }

    fn send_message(&mut self, neighbor: &str, fwd: Forward, out: &mut Vec<Action>) {
        let Some(n) = self.neighbors.get_mut(neighbor) else {
            return;
        };
        let Some(link) = n.link else {
            self.counters.unroutable += 1;
            return;
        };
        let size = fwd.envelope.len() + 64 * (fwd.hops.len() + 2);
        if size > n.peer_max_frame {
            self.counters.too_large += 1;
            n.dropped_out += 1;
            n.unreported_loss += 1;
            return;
        }
        n.messages_out += 1;
        n.bytes_out += fwd.envelope.len() as u64;
        out.push(Action::Send {
            link,
            frame: LinkFrame::Message(fwd),
        });
    }

    /// A message came from `from`: delivered here, passed on, or dropped.
    fn forwarded(&mut self, from: &str, m: Forward, now_ms: u64, out: &mut Vec<Action>) {
        if let Some(n) = self.neighbors.get_mut(from) {
            n.messages_in += 1;
            n.bytes_in += m.envelope.len() as u64;
        }
        if m.hops.contains(&self.router) || m.origin == self.router {
            self.counters.loops += 1;
            return;
        }
        let key = (m.origin.clone(), m.incarnation, m.seq);
        if self.seen.contains(&key) {
            self.counters.duplicates += 1;
            return;
        }
        self.seen.insert(key.clone());
        self.seen_order.push_back(key);
        if self.seen_order.len() > SEEN_MAX
            && let Some(old) = self.seen_order.pop_front()
        {
            self.seen.remove(&old);
        }
        let Some(subject) = envelope_subject(&m.envelope).map(str::to_string) else {
            self.counters.unroutable += 1;
            return;
        };
        let Ok(s) = Subject::parse(&subject, Mode::Listen) else {
            self.counters.unroutable += 1;
            return;
        };
        let (deliver, targets) = if s.class() == SubjectClass::Inbox {
            match inbox_id(&subject).map(|id| self.table.route_inbox(id)) {
                Some(InboxRoute::Local) => (true, Vec::new()),
                Some(InboxRoute::Forward(n)) => (false, vec![n]),
                _ => (false, Vec::new()),
            }
        } else {
            let d = self.table.decide(&m.origin, &s);
            // Import gating of this router's own network, whatever the
            // sender's table said.
            let deliver = d.deliver && self.gates.import_weight(&s).is_some();
            (deliver, d.forward)
        };
        if !deliver && targets.is_empty() {
            self.counters.unroutable += 1;
        }
        let targets: Vec<String> = targets
            .into_iter()
            .filter(|t| !m.hops.contains(t))
            .collect();
        if !targets.is_empty() && m.hops.len() < MAX_HOPS {
            self.counters.transit += 1;
            let mut next = m.clone();
            next.hops.push(self.router.clone());
            for t in targets {
                self.send_message(&t, next.clone(), out);
            }
        }
        if deliver {
            match Envelope::decode(&m.envelope, &self.limits) {
                Ok(env) => {
                    if let Some(reply) = env.reply_subject.clone() {
                        self.note_reply_inbox(&reply, now_ms, out);
                    }
                    self.counters.imported += 1;
                    out.push(Action::Publish(env));
                }
                Err(e) => {
                    self.counters.unroutable += 1;
                    tracing::warn!(router = %self.router, origin = %m.origin, error = %e, "routing link: message not readable");
                }
            }
        }
    }

    /// An imported message names `reply` as its reply subject: when it is
    /// another gateway's inbox, the router listens to it so that a reply
    /// published here goes back ("Inbox Names": routing daemons note reply
    /// inboxes on the way out and route replies back; mqgate's inbox names
    /// already name their gateway, so nothing is rewritten).
    fn note_reply_inbox(&mut self, reply: &str, now_ms: u64, out: &mut Vec<Action>) {
        let Some(id) = inbox_id(reply) else { return };
        if id == self.inbox_id {
            return;
        }
        if let Some(t) = self.inboxes.get_mut(reply) {
            *t = now_ms;
            return;
        }
        if self.inboxes.len() >= MAX_INBOXES
            && let Some(oldest) = self
                .inboxes
                .iter()
                .min_by_key(|(_, t)| **t)
                .map(|(k, _)| k.clone())
        {
            self.inboxes.remove(&oldest);
            self.listening.remove(&oldest);
            out.push(Action::Unlisten(oldest));
        }
        self.inboxes.insert(reply.to_string(), now_ms);
        self.listening.insert(reply.to_string());
        out.push(Action::Listen(reply.to_string()));
    }

    /// `n` messages toward link `link` were lost (its send queue was full).
    pub fn lost(&mut self, link: LinkNo, n: u64) {
        if let Some(nb) = self
            .links
            .get(&link)
            .and_then(|l| self.neighbors.get_mut(l))
        {
            nb.dropped_out += n;
            nb.unreported_loss += n;
            nb.messages_out = nb.messages_out.saturating_sub(n);
        }
    }

    /// Periodic work: forgets routers unreachable too long and reply
    /// inboxes unused too long; tells lost messages (DATALOSS advisories).
    pub fn tick(&mut self, now_ms: u64) -> Vec<Action> {
        let mut out = Vec::new();
        if !self.table.purge(now_ms, UNREACHABLE_HOLD_MS).is_empty() {
            out.extend(self.relisten());
        }
        let expired: Vec<String> = self
            .inboxes
            .iter()
            .filter(|(_, t)| now_ms.saturating_sub(**t) >= INBOX_HOLD_MS)
            .map(|(k, _)| k.clone())
            .collect();
        if !expired.is_empty() {
            for k in &expired {
                self.inboxes.remove(k);
            }
            out.extend(self.relisten());
        }
        for n in self.neighbors.values_mut() {
            if n.unreported_loss > 0 {
                let host = match n.address.map(|a| a.ip()) {
                    Some(IpAddr::V4(v4)) => v4,
                    _ => Ipv4Addr::UNSPECIFIED,
                };
                let lost = u32::try_from(n.unreported_loss).unwrap_or(u32::MAX);
                n.unreported_loss = 0;
                out.push(Action::Advisory(Advisory::data_loss(
                    false, false, host, lost,
                )));
            }
        }
        out.extend(self.flush(now_ms));
        out
    }

    /// The routing status (`GET /v1/rv/routing`, docs/rendezvous.md
    /// "Routing status").
    pub fn status(&mut self, now_ms: u64) -> Json {
        let neighbors: Vec<Json> = self
            .neighbors
            .iter()
            .map(|(name, n)| {
                json!({
                    "name": name,
                    "state": if n.link.is_some() { "up" } else { "down" },
                    "cost": n.cost,
                    "connect": n.connect,
                    "address": n.address.map(|a| a.to_string()),
                    "network": n.network,
                    "dialer": n.dialer,
                    "up_ms": n.link.map(|_| now_ms.saturating_sub(n.since_ms)),
                    "connects": n.connects,
                    "messages_out": n.messages_out,
                    "messages_in": n.messages_in,
                    "bytes_out": n.bytes_out,
                    "bytes_in": n.bytes_in,
                    "dropped_out": n.dropped_out,
                    "last_error": n.last_error,
                })
            })
            .collect();
        let names: Vec<String> = self.table.all().map(|a| a.router.clone()).collect();
        let mut routers = Vec::new();
        for r in names {
            let cost = self.table.cost_to(&r);
            let Some(a) = self.table.get(&r) else {
                continue;
            };
            routers.push(json!({
                "name": a.router,
                "network": a.network,
                "reachable": self.table.is_reachable(&a.router),
                "cost": cost,
                "neighbors": a.neighbors.iter().map(|(n, c)| json!({"name": n, "cost": c})).collect::<Vec<_>>(),
                "interest": a.interest.iter().map(|(s, w)| json!({"subject": s.as_str(), "weight": w})).collect::<Vec<_>>(),
            }));
        }
        let c = &self.counters;
        json!({
            "router": self.router,
            "network": self.network,
            "inbox_id": self.inbox_id,
            "neighbors": neighbors,
            "routers": routers,
            "listening": self.listening.iter().collect::<Vec<_>>(),
            "messages": {
                "exported": c.exported,
                "kept": c.kept,
                "imported": c.imported,
                "transit": c.transit,
                "duplicates": c.duplicates,
                "loops": c.loops,
                "unroutable": c.unroutable,
                "too_large": c.too_large,
            },
        })
    }
}

#[cfg(test)]
#[path = "core_tests.rs"]
mod tests;

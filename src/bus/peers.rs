//! The other gateways of the bus and the Rendezvous interest each
//! announced (docs/cluster.md "The bus between gateways"): which gateways
//! a message on a subject goes to, and which listen subjects this gateway's
//! bus listener must hold for them. Pure and synchronous.
//!
//! A gateway is known by its inbox element (the 16 hex digits of its
//! `_INBOX.<digits>.<n>` names, docs/rendezvous.md "Inboxes"), new for every
//! run. Its announcement replaces the listen subjects it announced before;
//! it is forgotten when it says goodbye or when three of its refresh
//! intervals pass without an announcement.

use mqgate_codecs::rv::{InterestIndex, Mode, Subject, SubjectClass, matches};
use serde::{Deserialize, Serialize};
use std::collections::{BTreeSet, HashMap};
use std::time::{Duration, Instant};

/// Most listen subjects one announcement may carry.
pub const MAX_SUBJECTS: usize = 100_000;

/// Most bytes of listen subjects one part of an announcement carries, so
/// that each part fits nats-server's default `max_payload` (1 MB) with
/// room for JSON quoting.
pub const PART_BYTES: usize = 256 * 1024;

/// One gateway's interest, or one part of it: what it publishes on
/// `<prefix>.rv.interest`.
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct Announcement {
    /// The announcing gateway's inbox element.
    pub gateway: String,
    /// Its `bus.interest_refresh_ms`.
    pub refresh_ms: u64,
    /// Its listeners' listen subjects (wildcards as given), each once; in
    /// a part, that part's share.
    pub subjects: Vec<String>,
    /// Which announcement of the gateway this part belongs to (counted
    /// from 1 per run).
    #[serde(default)]
    pub generation: u64,
    /// This part's number, from 0.
    #[serde(default)]
    pub part: u32,
    /// How many parts the announcement has (1: it is whole).
    #[serde(default = "one")]
    pub parts: u32,
}

fn one() -> u32 {
    1
}

impl Announcement {
    /// `self` (whole) cut into parts of at most [`PART_BYTES`] of subjects
    /// each, numbered for `generation`; at least one part.
    pub fn into_parts(self, generation: u64) -> Vec<Announcement> {
        let mut chunks: Vec<Vec<String>> = vec![Vec::new()];
        let mut bytes = 0;
        for s in self.subjects {
            if bytes + s.len() > PART_BYTES && chunks.last().is_some_and(|c| !c.is_empty()) {
                chunks.push(Vec::new());
                bytes = 0;
            }
            bytes += s.len();
            if let Some(c) = chunks.last_mut() {
                c.push(s);
            }
        }
        let parts = u32::try_from(chunks.len()).unwrap_or(u32::MAX);
        chunks
            .into_iter()
            .enumerate()
            .map(|(i, subjects)| Announcement {
                gateway: self.gateway.clone(),
                refresh_ms: self.refresh_ms,
                subjects,
                generation,
                part: u32::try_from(i).unwrap_or(u32::MAX),
                parts,
            })
            .collect()
    }
}

/// Most gateways whose announcements are being gathered at once.
pub const MAX_PENDING: usize = 4096;

/// Puts announcements sent in parts back together. One gateway's parts
/// come in order (NATS keeps one publisher's order on a subject); a part
/// out of place drops what was gathered for that gateway, and the next
/// refresh brings it whole again.
#[derive(Debug, Default)]
pub struct Assembler {
    pending: HashMap<String, Announcement>,
}

impl Assembler {
    /// Takes part `a`; returns the whole announcement once its last part
    /// came. At most [`MAX_PENDING`] gateways' parts are held.
    pub fn take(&mut self, a: Announcement) -> Option<Announcement> {
        if a.parts <= 1 {
            self.pending.remove(&a.gateway);
            return Some(a);
        }
        if a.part == 0 {
            if self.pending.len() < MAX_PENDING || self.pending.contains_key(&a.gateway) {
                self.pending.insert(a.gateway.clone(), a);
            }
            return None;
        }
        let mut p = self.pending.remove(&a.gateway)?;
        if a.generation != p.generation || a.parts != p.parts || a.part != p.part + 1 {
            return None;
        }
        p.subjects.extend(a.subjects);
        p.part = a.part;
        if p.part + 1 == p.parts {
            p.part = 0;
            p.parts = 1;
            return Some(p);
        }
        self.pending.insert(a.gateway, p);
        None
    }
}

/// Listen subjects the bus listener must add and remove after a change.
#[derive(Debug, Default, PartialEq, Eq)]
pub struct Changes {
    /// Subjects that some gateway listens to now and none did before.
    pub added: Vec<String>,
    /// Subjects no gateway listens to any more.
    pub removed: Vec<String>,
}

#[derive(Debug)]
struct Peer {
    number: u32,
    subjects: Vec<Subject<'static>>,
    expires: Instant,
}

/// The other gateways and their interest.
#[derive(Debug)]
pub struct Peers {
    me: String,
    peers: HashMap<String, Peer>,
    numbers: HashMap<u32, String>,
    next: u32,
    index: InterestIndex<u32>,
    /// Listen subjects of all peers, with how many peers hold each.
    union: HashMap<String, usize>,
}

/// True when a listen subject of this class is announced: not inboxes
/// (replies go to the gateway their name gives), not `_LOCAL.` or `_RV.`
/// (they never leave a gateway).
pub fn crosses(subject: &Subject<'_>) -> bool {
    !matches!(
        subject.class(),
        SubjectClass::Inbox | SubjectClass::Local | SubjectClass::Advisory
    )
}

/// The gateway an inbox name belongs to (`_INBOX.<gateway>.<n>`).
pub fn inbox_gateway(subject: &str) -> Option<&str> {
    let rest = subject.strip_prefix("_INBOX.")?;
    rest.split('.').next().filter(|g| !g.is_empty())
}

impl Peers {
    /// No peer yet; `me` is this gateway's inbox element.
    pub fn new(me: &str) -> Peers {
        Peers {
            me: me.to_string(),
            peers: HashMap::new(),
            numbers: HashMap::new(),
            next: 0,
            index: InterestIndex::new(),
            union: HashMap::new(),
        }
    }

    /// The known gateways with the number of listen subjects each
    /// announced.
    pub fn summary(&self) -> Vec<(String, usize)> {
        self.peers
            .iter()
            .map(|(g, p)| (g.clone(), p.subjects.len()))
            .collect()
    }

    /// True when `gateway` announced itself and is not forgotten.
    pub fn knows(&self, gateway: &str) -> bool {
        self.peers.contains_key(gateway)
    }

    /// Takes announcement `a` received at `now`. Subjects that are no
    /// listen subjects, or that never cross, are left out (returned as the
    /// second value, with the reason). An announcement of this gateway
    /// itself changes nothing.
    pub fn announce(&mut self, a: &Announcement, now: Instant) -> (Changes, Vec<String>) {
        let mut changes = Changes::default();
        let mut refused = Vec::new();
        if a.gateway == self.me || a.gateway.is_empty() {
            return (changes, refused);
        }
        let mut subjects: Vec<Subject<'static>> = Vec::new();
        let mut seen = BTreeSet::new();
        for s in a.subjects.iter().take(MAX_SUBJECTS) {
            match Subject::parse(s, Mode::Listen) {
                Ok(p) if crosses(&p) => {
                    if seen.insert(s.clone()) {
                        subjects.push(p.into_owned());
                    }
                }
                Ok(_) => refused.push(format!("{s:?}: this class of subject never crosses")),
                Err(e) => refused.push(format!("{s:?}: {e}")),
            }
        }
        if a.subjects.len() > MAX_SUBJECTS {
            refused.push(format!(
                "{} subjects announced, only the first {MAX_SUBJECTS} are taken",
                a.subjects.len()
            ));
        }
        let refresh = Duration::from_millis(a.refresh_ms.clamp(100, 600_000));
        let expires = now + refresh * 3;
        let old = match self.peers.remove(&a.gateway) {
            Some(p) => p,
            None => {
                self.next = self.next.wrapping_add(1);
                while self.numbers.contains_key(&self.next) {
                    self.next = self.next.wrapping_add(1);
                }
                self.numbers.insert(self.next, a.gateway.clone());
                Peer {
                    number: self.next,
                    subjects: Vec::new(),
                    expires,
                }
            }
        };
        let number = old.number;
        for p in &old.subjects {
            if !seen.contains(p.as_str()) {
                self.index.remove(p, number);
                self.uncount(p.as_str(), &mut changes);
            }
        }
        let before: BTreeSet<&str> = old.subjects.iter().map(|p| p.as_str()).collect();
        for p in &subjects {
            if !before.contains(p.as_str()) {
                self.index.insert(p, number);
                self.count(p.as_str(), &mut changes);
            }
        }
        self.peers.insert(
            a.gateway.clone(),
            Peer {
                number,
                subjects,
                expires,
            },
        );
        (changes, refused)
    }

    /// Forgets `gateway` (it said goodbye, or expired).
    pub fn forget(&mut self, gateway: &str) -> Changes {
        let mut changes = Changes::default();
        if let Some(p) = self.peers.remove(gateway) {
            self.numbers.remove(&p.number);
            for s in &p.subjects {
                self.index.remove(s, p.number);
                self.uncount(s.as_str(), &mut changes);
            }
        }
        changes
    }

    /// Forgets the gateways whose announcements are older than three of
    /// their refresh intervals at `now`; returns them and the changes.
    pub fn expire(&mut self, now: Instant) -> (Vec<String>, Changes) {
        let gone: Vec<String> = self
            .peers
            .iter()
            .filter(|(_, p)| p.expires <= now)
            .map(|(g, _)| g.clone())
            .collect();
        let mut changes = Changes::default();
        for g in &gone {
            let c = self.forget(g);
            changes.added.extend(c.added);
            changes.removed.extend(c.removed);
        }
        (gone, changes)
    }

    /// The gateways a message on `subject` goes to, in no particular order:
    /// those with a listen subject that matches it; for a reserved subject
    /// (`_RVCM.`, ...) only a listen subject that names its first element
    /// matches, as on the bus (docs/rendezvous.md "Reserved subjects on
    /// the bus"). An inbox goes to the gateway that made it, when known.
    pub fn destinations(&self, subject: &Subject<'_>) -> Vec<&str> {
        if subject.class() == SubjectClass::Inbox {
            return inbox_gateway(subject.as_str())
                .and_then(|g| self.peers.get_key_value(g))
                .map(|(g, _)| vec![g.as_str()])
                .unwrap_or_default();
        }
        if !crosses(subject) {
            return Vec::new();
        }
        let mut ids = Vec::new();
        self.index.lookup_into(subject, &mut ids);
        let reserved = subject.class().is_reserved();
        ids.into_iter()
            .filter_map(|n| self.numbers.get(&n))
            .filter(|g| {
                !reserved
                    || self.peers.get(g.as_str()).is_some_and(|p| {
                        p.subjects
                            .iter()
                            .any(|s| !matches!(s.first_element(), "*" | ">") && matches(s, subject))
                    })
            })
            .map(String::as_str)
            .collect()
    }

    fn count(&mut self, s: &str, changes: &mut Changes) {
        let n = self.union.entry(s.to_string()).or_insert(0);
        *n += 1;
        if *n == 1 {
            changes.added.push(s.to_string());
        }
    }

    fn uncount(&mut self, s: &str, changes: &mut Changes) {
        if let Some(n) = self.union.get_mut(s) {
            *n -= 1;
            if *n == 0 {
                self.union.remove(s);
                changes.removed.push(s.to_string());
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn ann(g: &str, subjects: &[&str]) -> Announcement {
        Announcement {
            gateway: g.into(),
            refresh_ms: 1000,
            subjects: subjects.iter().map(|s| s.to_string()).collect(),
            ..Announcement::default()
        }
    }

    fn dest(p: &Peers, s: &str) -> Vec<String> {
        let mut v: Vec<String> = p
            .destinations(&Subject::parse(s, Mode::Listen).unwrap())
            .into_iter()
            .map(str::to_string)
            .collect();
        v.sort();
        v
    }

    #[test]
    fn announcements_route_subjects_and_count_the_union() {
        let now = Instant::now();
        let mut p = Peers::new("ME");
        let (c, refused) = p.announce(&ann("B", &["ORDERS.>", "_INBOX.X.1", "_RV.>", "a..b"]), now);
        assert_eq!(c.added, ["ORDERS.>"]);
        assert_eq!(refused.len(), 3, "{refused:?}");
        let (c, _) = p.announce(&ann("C", &["ORDERS.>", "QUOTE.*", "_RVCM.>"]), now);
        assert_eq!(c.added, ["QUOTE.*", "_RVCM.>"], "ORDERS.> is held already");
        assert_eq!(dest(&p, "ORDERS.NEW"), ["B", "C"]);
        assert_eq!(dest(&p, "QUOTE.IBM"), ["C"]);
        assert_eq!(dest(&p, "OTHER"), Vec::<String>::new());
        // Reserved subjects: only a listen subject that names `_RVCM`.
        assert_eq!(dest(&p, "_RVCM.X"), ["C"]);
        p.announce(&ann("B", &[">"]), now);
        assert_eq!(dest(&p, "_RVCM.X"), ["C"], "'>' does not reach _RVCM.");
        assert_eq!(dest(&p, "_LOCAL.X"), Vec::<String>::new());
        // Inboxes go to the gateway named in them, when known.
        assert_eq!(dest(&p, "_INBOX.B.7"), ["B"]);
        assert_eq!(dest(&p, "_INBOX.Z.7"), Vec::<String>::new());
        // B replaced ORDERS.> with >: ORDERS.> is still C's.
        let c = p.forget("C");
        assert_eq!(
            {
                let mut r = c.removed;
                r.sort();
                r
            },
            ["ORDERS.>", "QUOTE.*", "_RVCM.>"]
        );
        assert_eq!(dest(&p, "ORDERS.NEW"), ["B"]);
        // Our own announcement changes nothing.
        assert_eq!(p.announce(&ann("ME", &["X"]), now).0, Changes::default());
    }

    #[test]
    fn long_announcements_go_in_parts_and_come_back_whole() {
        // 3000 subjects of 200 bytes: 600,000 bytes, three parts of at
        // most PART_BYTES (262,144: 1310 subjects each).
        let subjects: Vec<String> = (0..3000).map(|i| format!("{i:0>200}")).collect();
        let whole = Announcement {
            gateway: "B".into(),
            refresh_ms: 1000,
            subjects: subjects.clone(),
            ..Announcement::default()
        };
        let parts = whole.into_parts(7);
        assert_eq!(
            parts
                .iter()
                .map(|p| (p.part, p.parts, p.subjects.len()))
                .collect::<Vec<_>>(),
            [(0, 3, 1310), (1, 3, 1310), (2, 3, 380)]
        );
        let mut asm = Assembler::default();
        assert_eq!(asm.take(parts[0].clone()), None);
        assert_eq!(asm.take(parts[1].clone()), None);
        let back = asm.take(parts[2].clone()).unwrap();
        assert_eq!(
            (back.subjects, back.parts, back.generation),
            (subjects, 1, 7)
        );
        // A part out of place drops the gathering; a whole one passes.
        assert_eq!(asm.take(parts[0].clone()), None);
        assert_eq!(asm.take(parts[2].clone()), None);
        assert_eq!(asm.take(parts[1].clone()), None, "no part 0 held any more");
        let small = ann("C", &["X"]);
        assert_eq!(small.clone().into_parts(1).len(), 1);
        assert_eq!(asm.take(small.clone()), Some(small));
        // An announcement without parts (no `parts` key) is whole.
        let old: Announcement =
            serde_json::from_str(r#"{"gateway":"D","refresh_ms":5,"subjects":["A"]}"#).unwrap();
        assert_eq!((old.part, old.parts), (0, 1));
    }

    #[test]
    fn silent_gateways_expire_after_three_intervals() {
        let t0 = Instant::now();
        let mut p = Peers::new("ME");
        p.announce(&ann("B", &["A"]), t0);
        let (gone, _) = p.expire(t0 + Duration::from_millis(2999));
        assert!(gone.is_empty());
        let (gone, c) = p.expire(t0 + Duration::from_millis(3000));
        assert_eq!(
            (gone, c.removed),
            (vec!["B".to_string()], vec!["A".to_string()])
        );
        assert!(!p.knows("B"));
        assert_eq!(inbox_gateway("_INBOX.5F0C.3"), Some("5F0C"));
        assert_eq!(inbox_gateway("ORDERS"), None);
    }
}

//! The bus: the other MessageQ groups this gateway reaches, each another
//! mqgate gateway behind a message channel, and the sequence numbers of the
//! universal broadcasts the SBS servers forward to each other (BEA MessageQ
//! Programmer's Guide, "Broadcasting Messages": universal MOTs are
//! "available to all SBS servers"; docs/messageq.md "Between groups").
//!
//! - [`Bus`]: the other groups, read from `%XGROUP` (columns `NAME NUMBER`,
//!   mqgate's reading: no public source documents them) and
//!   `messageq.groups`, with the queue manager of each group's gateway and
//!   the transmission queue towards it. Queue `Q` of group `G` is the mqgate
//!   queue `PAMS.G.Q` at that queue manager; each gateway answers to
//!   `PAMS.<own group>.<n>` for its %QCT-named queue `n` (an alias queue,
//!   src/sbs/group.rs).
//! - [`Sequences`]: the number each forwarded broadcast carries per (MOT,
//!   destination group), the last number received per (sending group, MOT),
//!   and the copies lost on a sending group's stream that registrants asked
//!   to be told about (SBS_SEQUENCE_GAP). Pure and synchronous.

use super::config::{GroupLink, MAX_GROUP, MIN_GROUP};
use crate::config::{QueueDef, RemoteQueueDef};
use crate::qmgr::names::check_object_name;
use mqgate_codecs::mq::constants::len;
use mqgate_codecs::pams::init_file::InitFile;
use mqgate_codecs::pams::{Mot, PamsStatus, QAddress};
use std::collections::{BTreeMap, HashMap};

/// Another group of the bus: the gateway that is that group.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct RemoteGroup {
    /// Its group number.
    pub group: u16,
    /// The queue manager name of its gateway (the RemoteQMgrName of what is
    /// sent to it).
    pub q_mgr: String,
    /// The transmission queue towards it, when `messageq.groups` names one;
    /// else MQ's name resolution chooses (the transmission queue named like
    /// `q_mgr`, else the default transmission queue).
    pub xmit_queue: Option<String>,
}

/// The other groups of the bus, by group number.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Bus {
    groups: BTreeMap<u16, RemoteGroup>,
    /// The gateway has a bus between gateways (`bus:`): universal
    /// broadcasts come from the SBS servers of groups that need not be
    /// listed here.
    nats: bool,
}

impl Bus {
    /// The bus of group `own`: the `%XGROUP` entries of `init` (read from
    /// `file`) other than `own` itself, and the `messageq.groups` entries
    /// `links`. An `%XGROUP` entry is `NAME NUMBER [columns kept as
    /// written]`; its gateway's queue manager is `NAME` unless `links` names
    /// another.
    ///
    /// Errors, one line each: an `%XGROUP` line without a group number or
    /// with one outside 1-32000 or given twice (`FILE:LINE:COLUMN: what
    /// (-282 PAMS__BADINITFILE)`); a `messageq.groups` entry for this group,
    /// outside 1-32000, or without `queue_manager` for a group `%XGROUP`
    /// does not list; a queue manager or transmission queue name that is no
    /// MQ name.
    pub fn load(
        own: u16,
        init: Option<&InitFile>,
        file: &str,
        links: &BTreeMap<u32, GroupLink>,
    ) -> Result<Bus, Vec<String>> {
        let mut errors = Vec::new();
        let mut names: BTreeMap<u16, String> = BTreeMap::new();
        let mut seen: BTreeMap<u16, usize> = BTreeMap::new();
        for e in init.map(|f| f.xgroup.as_slice()).unwrap_or_default() {
            let Some(col) = e.columns.first() else {
                errors.push(format!(
                    "{file}:{}:{}: %XGROUP {}: no group number: mqgate reads `NAME NUMBER` (docs/messageq.md \"Between groups\") ({})",
                    e.pos.line,
                    e.pos.column,
                    e.name,
                    PamsStatus::BADINITFILE
                ));
                continue;
            };
            let at = format!("{file}:{}:{}", col.pos.line, col.pos.column);
            let Some(number) = col
                .value
                .as_deref()
                .and_then(|v| v.parse::<u32>().ok())
                .filter(|n| (MIN_GROUP..=MAX_GROUP).contains(n))
                .and_then(|n| u16::try_from(n).ok())
            else {
                errors.push(format!(
                    "{at}: %XGROUP {}: group number {:?} is not {MIN_GROUP} to {MAX_GROUP} ({})",
                    e.name,
                    col.value.as_deref().unwrap_or("."),
                    PamsStatus::BADINITFILE
                ));
                continue;
            };
            if let Some(line) = seen.insert(number, e.pos.line) {
                errors.push(format!(
                    "{at}: %XGROUP {}: group {number} is listed already (line {line}) ({})",
                    e.name,
                    PamsStatus::BADINITFILE
                ));
                continue;
            }
            // A shared table may list every group, this one too.
            if number != own {
                names.insert(number, e.name.clone());
            }
        }
        let mut groups = BTreeMap::new();
        for (n, link) in links {
            let path = format!("messageq.groups.{n}");
            let Some(g) = u16::try_from(*n)
                .ok()
                .filter(|g| (MIN_GROUP..=MAX_GROUP).contains(&u32::from(*g)))
            else {
                errors.push(format!(
                    "{path}: {n} is not a MessageQ group number: groups are {MIN_GROUP} to {MAX_GROUP}"
                ));
                continue;
            };
            if g == own {
                errors.push(format!(
                    "{path}: {g} is this gateway's own group (messageq.group)"
                ));
                continue;
            }
            let Some(q_mgr) = link
                .queue_manager
                .clone()
                .or_else(|| names.get(&g).cloned())
            else {
                errors.push(format!(
                    "{path}.queue_manager: required: group {g} is not in %XGROUP, so no name tells which queue manager serves it"
                ));
                continue;
            };
            groups.insert(
                g,
                RemoteGroup {
                    group: g,
                    q_mgr,
                    xmit_queue: link.xmit_queue.clone(),
                },
            );
        }
        for (g, name) in names {
            groups.entry(g).or_insert_with(|| RemoteGroup {
                group: g,
                q_mgr: name,
                xmit_queue: None,
            });
        }
        for r in groups.values() {
            if let Err(e) = check_object_name(&r.q_mgr, len::Q_MGR_NAME) {
                errors.push(format!(
                    "group {}: queue manager {:?} (its %XGROUP name or messageq.groups.{}.queue_manager): {e}",
                    r.group, r.q_mgr, r.group
                ));
            }
            if let Some(x) = &r.xmit_queue
                && let Err(e) = check_object_name(x, len::Q_NAME)
            {
                errors.push(format!(
                    "messageq.groups.{}.xmit_queue: {x:?}: {e}",
                    r.group
                ));
            }
        }
        if errors.is_empty() {
            Ok(Bus {
                groups,
                nats: false,
            })
        } else {
            Err(errors)
        }
    }

    /// A bus of the given groups.
    #[cfg(test)]
    pub fn of(groups: impl IntoIterator<Item = RemoteGroup>) -> Bus {
        Bus {
            groups: groups.into_iter().map(|g| (g.group, g)).collect(),
            nats: false,
        }
    }

    /// This bus with universal broadcasts also coming over the bus between
    /// gateways (`bus:`, docs/cluster.md "The bus between gateways").
    pub fn with_nats(mut self, nats: bool) -> Bus {
        self.nats = nats;
        self
    }

    /// True when the SBS server of `group` may forward universal
    /// broadcasts here: a group of this bus, or any other group when the
    /// gateway has a bus between gateways.
    pub fn forwards_from(&self, group: u16) -> bool {
        self.nats || self.groups.contains_key(&group)
    }

    /// Group `group`, when it is on the bus.
    pub fn get(&self, group: u16) -> Option<&RemoteGroup> {
        self.groups.get(&group)
    }

    /// The other groups in group-number order.
    pub fn groups(&self) -> impl Iterator<Item = &RemoteGroup> {
        self.groups.values()
    }

    /// The queue manager aliases that send to a group through the
    /// transmission queue `messageq.groups` names for it (IBM MQ "Queue
    /// manager alias definitions": a QREMOTE without RNAME, RQMNAME = the
    /// group's queue manager, XMITQ = that queue). None for a group whose
    /// transmission queue is named like its queue manager or left to name
    /// resolution.
    pub fn queue_defs(&self) -> Vec<QueueDef> {
        self.groups
            .values()
            .filter_map(|r| {
                let x = r.xmit_queue.as_ref().filter(|x| **x != r.q_mgr)?;
                Some(QueueDef::Remote(RemoteQueueDef {
                    name: r.q_mgr.clone(),
                    remote_q_name: None,
                    remote_q_mgr_name: Some(r.q_mgr.clone()),
                    xmit_q: Some(x.clone()),
                    put_inhibited: false,
                }))
            })
            .collect()
    }
}

/// How a forwarded broadcast's sequence number compares with the last one
/// received from its server for its MOT.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Arrival {
    /// The first from that server and MOT since this server started: the
    /// number is taken as it is.
    First,
    /// The next number.
    InOrder,
    /// Numbers were skipped: that many broadcasts were lost on the way.
    Gap(u32),
    /// The same or a lower number: the sending server started again (its
    /// numbers begin at 1); the count starts again from this one.
    Restarted,
}

/// Sequence numbers of forwarded universal broadcasts, and the lost copies
/// owed a notice.
#[derive(Debug, Default)]
pub struct Sequences {
    /// (MOT, destination group) → the last number sent.
    sent: HashMap<(u16, u16), u32>,
    /// (MOT, destination group) → broadcasts that could not be forwarded.
    not_forwarded: HashMap<(u16, u16), u32>,
    /// (sending group, MOT) → the last number received.
    received: HashMap<(u16, u16), u32>,
    /// (MOT, queue, sending group) → copies lost on that group's stream not
    /// yet reported to the queue.
    owed: HashMap<(u16, QAddress, u16), u32>,
}

impl Sequences {
    /// An empty state: nothing sent or received.
    pub fn new() -> Self {
        Sequences::default()
    }

    /// The number of the next broadcast on `mot` forwarded to `group`: 1,
    /// 2, …; after 4294967295 it is 1 again.
    pub fn next_sent(&mut self, mot: Mot, group: u16) -> u32 {
        let n = self.sent.entry((mot.number(), group)).or_default();
        *n = n.checked_add(1).unwrap_or(1);
        *n
    }

    /// Records that the broadcast on `mot` numbered for `group` was not
    /// forwarded; returns how many have not been on that stream so far.
    pub fn not_forwarded(&mut self, mot: Mot, group: u16) -> u32 {
        let n = self.not_forwarded.entry((mot.number(), group)).or_default();
        *n = n.saturating_add(1);
        *n
    }

    /// Records the arrival of broadcast `seq` on `mot` forwarded by the SBS
    /// server of `sender`.
    pub fn arrive(&mut self, sender: u16, mot: Mot, seq: u32) -> Arrival {
        let last = self.received.insert((sender, mot.number()), seq);
        match last {
            None => Arrival::First,
            Some(l) if seq == l.checked_add(1).unwrap_or(1) => Arrival::InOrder,
            Some(l) if seq > l => Arrival::Gap(seq - l - 1),
            Some(_) => Arrival::Restarted,
        }
    }

    /// Notes `lost` copies on `sender`'s stream of `mot` for `queue`, to be
    /// reported to it.
    pub fn owe(&mut self, mot: Mot, queue: QAddress, sender: u16, lost: u32) {
        let n = self.owed.entry((mot.number(), queue, sender)).or_default();
        *n = n.saturating_add(lost);
    }

    /// The notices owed to `queue` for `mot`: (sending group, copies lost),
    /// in group order.
    pub fn owed(&self, mot: Mot, queue: QAddress) -> Vec<(u16, u32)> {
        if self.owed.is_empty() {
            return Vec::new();
        }
        let mut v: Vec<(u16, u32)> = self
            .owed
            .iter()
            .filter(|((m, q, _), n)| *m == mot.number() && *q == queue && **n > 0)
            .map(|((_, _, g), n)| (*g, *n))
            .collect();
        v.sort_unstable();
        v
    }

    /// Records that a notice of `reported` copies lost on `sender`'s stream
    /// reached `queue`.
    pub fn paid(&mut self, mot: Mot, queue: QAddress, sender: u16, reported: u32) {
        let key = (mot.number(), queue, sender);
        if let Some(n) = self.owed.get_mut(&key) {
            *n = n.saturating_sub(reported);
            if *n == 0 {
                self.owed.remove(&key);
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn mot(n: i64) -> Mot {
        Mot::new(n).unwrap()
    }

    #[test]
    fn xgroup_and_yaml_make_the_bus() {
        let init =
            InitFile::parse("%XGROUP\nGW10 10\nGW20 20 node2 . 5020\nGW30 30\n%EOS\n").unwrap();
        let mut links = BTreeMap::new();
        links.insert(
            30,
            GroupLink {
                queue_manager: Some("QM.THIRTY".into()),
                xmit_queue: Some("TO.THIRTY".into()),
            },
        );
        links.insert(
            40,
            GroupLink {
                queue_manager: Some("GW40".into()),
                xmit_queue: None,
            },
        );
        let bus = Bus::load(10, Some(&init), "g.init", &links).unwrap();
        let got: Vec<(u16, &str, Option<&str>)> = bus
            .groups()
            .map(|r| (r.group, r.q_mgr.as_str(), r.xmit_queue.as_deref()))
            .collect();
        // Own group 10 skipped; 20 from %XGROUP; 30 renamed by YAML; 40 YAML only.
        assert_eq!(
            got,
            vec![
                (20, "GW20", None),
                (30, "QM.THIRTY", Some("TO.THIRTY")),
                (40, "GW40", None)
            ]
        );
        let defs = bus.queue_defs();
        assert_eq!(defs.len(), 1);
        let QueueDef::Remote(r) = &defs[0] else {
            panic!("a queue manager alias")
        };
        assert_eq!(
            (
                r.name.as_str(),
                r.remote_q_name.as_deref(),
                r.remote_q_mgr_name.as_deref(),
                r.xmit_q.as_deref()
            ),
            ("QM.THIRTY", None, Some("QM.THIRTY"), Some("TO.THIRTY"))
        );
    }

    #[test]
    fn bad_entries_are_named() {
        let init = InitFile::parse("%XGROUP\nLONELY\nBIG 40000\nA 20\nB 20\n%EOS\n").unwrap();
        let mut links = BTreeMap::new();
        links.insert(10, GroupLink::default());
        links.insert(50, GroupLink::default());
        let e = Bus::load(10, Some(&init), "g.init", &links).unwrap_err();
        assert_eq!(e.len(), 5, "{e:?}");
        assert!(
            e[0].starts_with("g.init:2:1: %XGROUP LONELY: no group number"),
            "{}",
            e[0]
        );
        assert!(
            e[1].starts_with("g.init:3:5: %XGROUP BIG: group number \"40000\""),
            "{}",
            e[1]
        );
        assert!(
            e[2].starts_with("g.init:5:3: %XGROUP B: group 20 is listed already (line 4)"),
            "{}",
            e[2]
        );
        assert!(
            e[3].starts_with("messageq.groups.10: 10 is this gateway's own group"),
            "{}",
            e[3]
        );
        assert!(
            e[4].starts_with("messageq.groups.50.queue_manager: required"),
            "{}",
            e[4]
        );
    }

    #[test]
    fn sequence_numbers_and_gaps() {
        let mut s = Sequences::new();
        let m = mot(5110);
        assert_eq!(
            (s.next_sent(m, 20), s.next_sent(m, 20), s.next_sent(m, 30)),
            (1, 2, 1)
        );
        assert_eq!(s.next_sent(mot(5111), 20), 1, "per MOT");
        assert_eq!(s.arrive(10, m, 7), Arrival::First);
        assert_eq!(s.arrive(10, m, 8), Arrival::InOrder);
        assert_eq!(s.arrive(10, m, 11), Arrival::Gap(2));
        assert_eq!(s.arrive(30, m, 1), Arrival::First, "per sending group");
        assert_eq!(s.arrive(10, m, 1), Arrival::Restarted);
        assert_eq!(s.arrive(10, m, 2), Arrival::InOrder);
        let q = QAddress::new(20, 7);
        s.owe(m, q, 30, 1);
        s.owe(m, q, 10, 2);
        s.owe(m, q, 10, 1);
        assert_eq!(s.owed(m, q), vec![(10, 3), (30, 1)]);
        s.paid(m, q, 10, 3);
        assert_eq!(s.owed(m, q), vec![(30, 1)]);
        assert_eq!(s.owed(mot(5111), q), vec![]);
    }
}

//! The queues of this MessageQ group as mqgate queues: a queue of the group
//! is the local queue named by its %QCT entry, or `PAMS.<group>.<queue>` when
//! %QCT has none; the %QCT message and byte quotas become the queue's MAXDEPTH
//! and byte quota (docs/messageq.md "Configuration"). A queue of another group
//! of the bus is `PAMS.<group>.<queue>` at that group's queue manager
//! ([`Bus`], docs/messageq.md "Between groups").

use super::bus::Bus;
use crate::config::{AliasQueueDef, LIMIT_MAX_DEPTH, LocalQueueDef, QueueDef, Usage};
use crate::mqi::names::{check_object_name, shown};
use mqgate_codecs::pams::address::{is_mot, queues};
use mqgate_codecs::pams::init_file::{InitFile, QuotaEnable};
use mqgate_codecs::pams::{PamsStatus, QAddress};
use std::collections::HashMap;

/// Longest MQ queue name (MQ_Q_NAME_LENGTH).
const Q_NAME_LENGTH: usize = 48;

/// Queue numbers ↔ mqgate queue names for one group.
#[derive(Clone, Debug)]
pub struct GroupQueues {
    group: u16,
    by_number: HashMap<u16, String>,
    bus: Bus,
}

/// Where a PAMS address is an mqgate queue: ObjectName and ObjectQMgrName
/// for [`crate::mqi::Mqi::open`].
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Destination {
    /// The queue: a %QCT name or `PAMS.<group>.<queue>`.
    pub queue: String,
    /// The queue manager: empty for this group, else the gateway of the
    /// address's group.
    pub q_mgr: String,
}

impl GroupQueues {
    /// The queues of `group`: the %QCT entries of `init` (if any). Names are
    /// not checked here (see [`GroupQueues::queue_defs`]).
    pub fn new(group: u16, init: Option<&InitFile>) -> Self {
        let by_number = init
            .map(|f| f.qct.as_slice())
            .unwrap_or_default()
            .iter()
            .map(|q| (q.number, q.name.clone()))
            .collect();
        GroupQueues {
            group,
            by_number,
            bus: Bus::default(),
        }
    }

    /// The same queues with `bus` as the other groups reached.
    pub fn with_bus(self, bus: Bus) -> Self {
        GroupQueues { bus, ..self }
    }

    /// The other groups of the bus.
    pub fn bus(&self) -> &Bus {
        &self.bus
    }

    /// This group's number.
    pub fn group(&self) -> u16 {
        self.group
    }

    /// `a` with group 0 ("this group") replaced by this group's number.
    pub fn normalize(&self, a: QAddress) -> QAddress {
        if a.is_local_group() {
            QAddress::new(self.group, a.queue)
        } else {
            a
        }
    }

    /// True when `a` (group 0 or this group's number) is a queue of this group.
    pub fn is_local(&self, a: QAddress) -> bool {
        a.group == 0 || a.group == self.group
    }

    /// The mqgate queue of address `a` of this group: the %QCT name, or
    /// `PAMS.<group>.<queue>`. `None` for another group's address (see
    /// [`GroupQueues::destination`]).
    pub fn queue_name(&self, a: QAddress) -> Option<String> {
        if !self.is_local(a) {
            return None;
        }
        Some(match self.by_number.get(&a.queue) {
            Some(name) => name.clone(),
            None => default_name(self.group, a.queue),
        })
    }

    /// Where a message to `a` goes: this group's queue, or for a group of
    /// the bus `PAMS.<group>.<queue>` at its gateway's queue manager (the
    /// name every gateway answers to, [`GroupQueues::queue_defs`]). `None`
    /// for a group that is not on the bus.
    pub fn destination(&self, a: QAddress) -> Option<Destination> {
        if let Some(queue) = self.queue_name(a) {
            return Some(Destination {
                queue,
                q_mgr: String::new(),
            });
        }
        self.bus.get(a.group).map(|r| Destination {
            queue: default_name(a.group, a.queue),
            q_mgr: r.q_mgr.clone(),
        })
    }

    /// True when queue number `n` of this group has a %QCT entry.
    pub fn in_qct(&self, n: u16) -> bool {
        self.by_number.contains_key(&n)
    }

    /// The SBS server's queue: queue 99 of this group.
    pub fn sbs_queue(&self) -> String {
        self.queue_name(QAddress::new(self.group, queues::PAMS_SBS_SERVER))
            .unwrap_or_else(|| default_name(self.group, queues::PAMS_SBS_SERVER))
    }

    /// The local queues of the group's %QCT entries, and of the SBS server's
    /// queue when `sbs` and %QCT does not list queue 99; for each %QCT queue
    /// not named `PAMS.<group>.<queue>`, an alias queue of that name, the
    /// name other groups' gateways send to; and the queue manager aliases of
    /// [`Bus::queue_defs`]. Errors (one line each, `FILE:LINE:COLUMN: what
    /// (-282 PAMS__BADINITFILE)`): a %QCT name that is no MQ queue name,
    /// begins `SYSTEM.` or is another queue's `PAMS.<g>.<n>`; queue number 0
    /// or one in the MOT range 4000-6000; a quota of 0 or above MAXDEPTH's
    /// limit.
    pub fn queue_defs(
        &self,
        init: Option<&InitFile>,
        file: &str,
        sbs: bool,
    ) -> Result<Vec<QueueDef>, Vec<String>> {
        let mut out = Vec::new();
        let mut errors = Vec::new();
        for q in init.map(|f| f.qct.as_slice()).unwrap_or_default() {
            let at = format!("{file}:{}:{}", q.pos.line, q.pos.column);
            let bad = PamsStatus::BADINITFILE;
            if let Err(e) = self.check_qct_name(&q.name, q.number) {
                errors.push(format!("{at}: {e} ({bad})"));
                continue;
            }
            if q.number == 0 {
                errors.push(format!(
                    "{at}: %QCT queue {} has number 0, which names no queue (the PAMS API refuses queue 0 too) ({bad})",
                    q.name
                ));
                continue;
            }
            if is_mot(q.number) {
                errors.push(format!(
                    "{at}: %QCT queue {} has number {}, a MOT (4000-6000 are broadcast streams, not queues) ({bad})",
                    q.name, q.number
                ));
                continue;
            }
            let mut def = LocalQueueDef::with_defaults(&q.name, Usage::Normal);
            let (msgs, bytes) = match q.quota_enable {
                None | Some(QuotaEnable::All) => (true, true),
                Some(QuotaEnable::Msg) => (true, false),
                Some(QuotaEnable::Byte) => (false, true),
                Some(QuotaEnable::None) => (false, false),
            };
            if let (true, Some(n)) = (msgs, q.msg_quota) {
                match usize::try_from(n) {
                    Ok(n) if (1..=LIMIT_MAX_DEPTH).contains(&n) => def.max_depth = n,
                    _ => errors.push(format!(
                        "{at}: %QCT queue {}: message quota {n} must be 1 to {LIMIT_MAX_DEPTH} ({bad})",
                        q.name
                    )),
                }
            }
            if let (true, Some(n)) = (bytes, q.byte_quota) {
                match usize::try_from(n) {
                    Ok(n) if n >= 1 => def.max_queue_bytes = Some(n),
                    _ => errors.push(format!(
                        "{at}: %QCT queue {}: byte quota {n} must be at least 1 ({bad})",
                        q.name
                    )),
                }
            }
            out.push(QueueDef::Local(def));
            let alias = default_name(self.group, q.number);
            if alias != q.name && !self.by_number.values().any(|n| *n == alias) {
                out.push(QueueDef::Alias(AliasQueueDef {
                    name: alias,
                    target: q.name.clone(),
                    put_inhibited: false,
                    get_inhibited: false,
                }));
            }
        }
        if sbs && !self.by_number.contains_key(&queues::PAMS_SBS_SERVER) {
            out.push(QueueDef::Local(LocalQueueDef::with_defaults(
                &self.sbs_queue(),
                Usage::Normal,
            )));
        }
        out.extend(self.bus.queue_defs());
        if errors.is_empty() {
            Ok(out)
        } else {
            Err(errors)
        }
    }
}

impl GroupQueues {
    /// Checks the name of `%QCT` queue `number`: an MQ queue name (IBM MQ
    /// "Rules for naming IBM MQ objects"), not beginning `SYSTEM.` (reserved
    /// there for the queue manager's own objects), and not of the form
    /// `PAMS.<g>.<n>` — mqgate's names for the queues `%QCT` does not name
    /// and for other groups' queues — unless it is this queue's own
    /// (`g` this group, `n` its number). Returns what is wrong, the name
    /// quoted and cut as errors quote values ([`shown`]).
    fn check_qct_name(&self, name: &str, number: u16) -> Result<(), String> {
        if let Err(e) = check_object_name(name, Q_NAME_LENGTH) {
            return Err(format!(
                "%QCT queue {} cannot be an mqgate queue: {e}",
                shown(name)
            ));
        }
        if name.starts_with("SYSTEM.") {
            return Err(format!(
                "%QCT queue {name}: names beginning SYSTEM. are reserved for the queue manager's own objects (IBM MQ \"Rules for naming IBM MQ objects\")"
            ));
        }
        let own = default_name(self.group, number);
        if is_pams_name(name) && name != own {
            return Err(format!(
                "%QCT queue {name} (number {number}): names PAMS.<group>.<queue> are mqgate's for the queues %QCT does not name and for other groups' queues; this entry may be named {own} or anything else"
            ));
        }
        Ok(())
    }
}

/// True for a name of the form `PAMS.<digits>.<digits>`.
fn is_pams_name(name: &str) -> bool {
    let Some(rest) = name.strip_prefix("PAMS.") else {
        return false;
    };
    let digits = |s: &str| !s.is_empty() && s.bytes().all(|b| b.is_ascii_digit());
    matches!(rest.split_once('.'), Some((g, n)) if digits(g) && digits(n))
}

/// `PAMS.<group>.<queue>`: the mqgate queue of a queue %QCT does not name.
pub fn default_name(group: u16, queue: u16) -> String {
    format!("PAMS.{group}.{queue}")
}

#[cfg(test)]
mod tests {
    use super::*;

    const INIT: &str = "%QCT
FEED_IN  1  64000 100 ALL  .   .    0     .    Y    G     N
AUDIT_Q  3  .     .   none .   .    .     .    n    l     .
%EOS
";

    #[test]
    fn names_and_addresses() {
        let f = InitFile::parse(INIT).unwrap();
        let g = GroupQueues::new(10, Some(&f));
        assert_eq!(g.queue_name(QAddress::new(10, 1)).unwrap(), "FEED_IN");
        assert_eq!(g.queue_name(QAddress::new(0, 1)).unwrap(), "FEED_IN");
        assert_eq!(g.queue_name(QAddress::new(0, 7)).unwrap(), "PAMS.10.7");
        assert_eq!(g.queue_name(QAddress::new(20, 1)), None);
        assert_eq!(g.sbs_queue(), "PAMS.10.99");
        assert_eq!(g.normalize(QAddress::new(0, 5110)), QAddress::new(10, 5110));
    }

    #[test]
    fn quotas_become_queue_limits() {
        let f = InitFile::parse(INIT).unwrap();
        let g = GroupQueues::new(10, Some(&f));
        let defs = g.queue_defs(Some(&f), "g.init", true).unwrap();
        let local = |i: usize| match &defs[i] {
            QueueDef::Local(d) => d.clone(),
            _ => panic!("not local"),
        };
        assert_eq!(
            (
                local(0).name.as_str(),
                local(0).max_depth,
                local(0).max_queue_bytes
            ),
            ("FEED_IN", 100, Some(64000))
        );
        // Each %QCT queue, then the alias other groups send to.
        assert_eq!(local(2).max_queue_bytes, None);
        assert_eq!(local(2).max_depth, crate::config::DEFAULT_MAX_DEPTH);
        assert_eq!(local(4).name, "PAMS.10.99");
        let QueueDef::Alias(a) = &defs[1] else {
            panic!("alias PAMS.10.1: {defs:?}")
        };
        assert_eq!(
            (a.name.as_str(), a.target.as_str()),
            ("PAMS.10.1", "FEED_IN")
        );
        assert!(
            matches!(&defs[3], QueueDef::Alias(a) if a.name == "PAMS.10.3" && a.target == "AUDIT_Q")
        );
        assert_eq!(defs.len(), 5);
    }

    #[test]
    fn other_groups_are_reached_through_their_queue_manager() {
        use super::super::bus::RemoteGroup;
        let g = GroupQueues::new(10, None).with_bus(Bus::of([RemoteGroup {
            group: 20,
            q_mgr: "GW20".into(),
            xmit_queue: None,
        }]));
        assert_eq!(
            g.destination(QAddress::new(20, 7)),
            Some(Destination {
                queue: "PAMS.20.7".into(),
                q_mgr: "GW20".into()
            })
        );
        assert_eq!(
            g.destination(QAddress::new(0, 7)),
            Some(Destination {
                queue: "PAMS.10.7".into(),
                q_mgr: String::new()
            })
        );
        assert_eq!(g.destination(QAddress::new(30, 7)), None, "not on the bus");
    }

    #[test]
    fn bad_entries_name_file_line_and_column() {
        // Every error ends with PAMS__BADINITFILE -282 (p_return.h V4.0-09),
        // the status of a bad group initialization file.
        let f = InitFile::parse(
            "%QCT\nBAD*NAME 1 . . . . . . . Y G N\nMOTQ 4100 . . . . . . . Y G N\nZERO 5 . 0 MSG . . . . Y G N\n%EOS\n",
        )
        .unwrap();
        let g = GroupQueues::new(10, Some(&f));
        let e = g.queue_defs(Some(&f), "g.init", true).unwrap_err();
        assert_eq!(e.len(), 3, "{e:?}");
        assert!(
            e[0].starts_with("g.init:2:1: %QCT queue \"BAD*NAME\""),
            "{}",
            e[0]
        );
        assert!(
            e[1].starts_with("g.init:3:1: %QCT queue MOTQ has number 4100"),
            "{}",
            e[1]
        );
        assert!(
            e[2].starts_with("g.init:4:1: %QCT queue ZERO: message quota 0"),
            "{}",
            e[2]
        );
        for line in &e {
            assert!(line.ends_with(" (-282 PAMS__BADINITFILE)"), "{line}");
        }
    }

    #[test]
    fn names_mqgate_or_ibm_mq_keep_for_themselves_are_refused() {
        // PAMS.<g>.<n> is mqgate's name for the queues %QCT does not name and
        // for other groups' queues (docs/messageq.md "Configuration"); IBM MQ
        // reserves names beginning SYSTEM. ("Rules for naming IBM MQ
        // objects"); queue 0 names no queue.
        let f = InitFile::parse(
            "%QCT\nPAMS.10.5 5 . . . . . . . Y G N\nPAMS.10.7 6 . . . . . . . Y G N\nPAMS.20.8 8 . . . . . . . Y G N\nPAMS.010.9 9 . . . . . . . Y G N\nSYSTEM.MINE 11 . . . . . . . Y G N\nNOQ 0 . . . . . . . Y G N\nPAMS.X.12 12 . . . . . . . Y G N\n%EOS\n",
        )
        .unwrap();
        let g = GroupQueues::new(10, Some(&f));
        let e = g.queue_defs(Some(&f), "g.init", true).unwrap_err();
        assert_eq!(
            e,
            [
                "g.init:3:1: %QCT queue PAMS.10.7 (number 6): names PAMS.<group>.<queue> are mqgate's for the queues %QCT does not name and for other groups' queues; this entry may be named PAMS.10.6 or anything else (-282 PAMS__BADINITFILE)",
                "g.init:4:1: %QCT queue PAMS.20.8 (number 8): names PAMS.<group>.<queue> are mqgate's for the queues %QCT does not name and for other groups' queues; this entry may be named PAMS.10.8 or anything else (-282 PAMS__BADINITFILE)",
                "g.init:5:1: %QCT queue PAMS.010.9 (number 9): names PAMS.<group>.<queue> are mqgate's for the queues %QCT does not name and for other groups' queues; this entry may be named PAMS.10.9 or anything else (-282 PAMS__BADINITFILE)",
                "g.init:6:1: %QCT queue SYSTEM.MINE: names beginning SYSTEM. are reserved for the queue manager's own objects (IBM MQ \"Rules for naming IBM MQ objects\") (-282 PAMS__BADINITFILE)",
                "g.init:7:1: %QCT queue NOQ has number 0, which names no queue (the PAMS API refuses queue 0 too) (-282 PAMS__BADINITFILE)",
            ]
        );
        // The line's own PAMS.<group>.<queue> is accepted, without an alias of itself.
        let f = InitFile::parse("%QCT\nPAMS.10.5 5 . . . . . . . Y G N\n%EOS\n").unwrap();
        let g = GroupQueues::new(10, Some(&f));
        let defs = g.queue_defs(Some(&f), "g.init", false).unwrap();
        let names: Vec<&str> = defs.iter().map(QueueDef::name).collect();
        assert_eq!(names, ["PAMS.10.5"]);
    }

    #[test]
    fn an_overlong_name_is_not_repeated_whole() {
        // docs/http-api.md "Errors": a value is quoted up to 64 characters.
        let long = "Q".repeat(1_000_000);
        let f = InitFile::parse(&format!("%QCT\n{long} 1 . . . . . . . Y G N\n%EOS\n")).unwrap();
        let g = GroupQueues::new(10, Some(&f));
        let e = g.queue_defs(Some(&f), "g.init", true).unwrap_err();
        assert_eq!(e.len(), 1);
        assert!(e[0].len() < 400, "{} bytes", e[0].len());
        assert!(
            e[0].starts_with(&format!(
                "g.init:2:1: %QCT queue \"{}\"… (1000000 bytes) cannot be an mqgate queue",
                "Q".repeat(64)
            )),
            "{}",
            e[0]
        );
    }
}

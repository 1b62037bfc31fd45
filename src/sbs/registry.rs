//! The SBS server's registration database (BEA MessageQ Programmer's Guide,
//! "Broadcasting Messages"): who registered for which MOT with which rules,
//! which queues a broadcast goes to (one copy per queue however many of its
//! registrations match), and the per-stream counters behind sequence-gap
//! notices and SBS_STATUS_RESP. Pure and synchronous; the server task only
//! moves messages (src/sbs/server.rs).
//!
//! Registrations are volatile, as MessageQ's: kept in memory, lost when the
//! gateway stops ("The registration information for each broadcast stream is
//! stored in memory by each SBS Server and is volatile").

use mqgate_codecs::pams::sbs::status_msg::StatusRespMot;
use mqgate_codecs::pams::{
    Broadcast, Conjunction, Endian, Mot, QAddress, SbsStatus, SelectionRule,
};
use std::collections::{BTreeMap, HashMap, HashSet};

/// The most registrations one server holds: registration ids are 16-bit in
/// the obsolete replies (SBS_REG_REPLY `uint16 reg_id`), so mqgate hands out
/// 1 to 65535 (docs/messageq.md "Choices mqgate made").
pub const MAX_REGISTRATIONS: usize = 65535;

/// Which sequence-gap notice a registration asked for.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum GapNotice {
    /// SBS_SEQUENCE_GAP (extended API, `seq_gap_notify`).
    SequenceGap,
    /// SBS_BS_SEQGAP (obsolete SBS_REG `req_seqgap`).
    BsSeqgap,
}

/// One registration.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Registration {
    /// Its id (1-65535), as SBS_REGISTER_RESP returned it.
    pub reg_id: u16,
    /// The MOT.
    pub mot: Mot,
    /// The queue that receives the copies (group 0 replaced by this group).
    pub queue: QAddress,
    /// The byte order the registration came in: how a PSEL_SOURCE operand
    /// reads, and the order of the gap notices sent for it.
    pub order: Endian,
    /// How the rules combine.
    pub conjunction: Conjunction,
    /// The rules; none = every message of the stream.
    pub rules: Vec<SelectionRule>,
    /// The gap notice asked for, if any.
    pub gap_notice: Option<GapNotice>,
    /// `auto_dereg`: the registration ends when its owner leaves the bus.
    pub auto_dereg: bool,
    /// The attachment that owns the registration (src/sbs/attach.rs): the
    /// queue's attachment when the registration was made with `auto_dereg`
    /// or for a temporary queue. It is removed when that attachment ends.
    pub owner: Option<u64>,
}

/// Counters of one MOT's stream at this server.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct StreamStats {
    /// Broadcasts received for the MOT.
    pub received: u32,
    /// Their bytes (message areas).
    pub bytes: u64,
    /// Copies lost (a target queue over quota or unreachable).
    pub copies_lost: u32,
}

/// A queue a broadcast goes to.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Target {
    /// The queue.
    pub queue: QAddress,
    /// The notice to send first, with the copies lost since the last one
    /// delivered and the registration's byte order, when it asked for
    /// notices and copies were lost.
    pub gap: Option<(GapNotice, u32, Endian)>,
}

/// The registration database of one SBS server.
#[derive(Debug, Default)]
pub struct Registry {
    regs: BTreeMap<u16, Registration>,
    /// MOT → its registrations' ids in registration order.
    by_mot: HashMap<u16, Vec<u16>>,
    /// The id handed out last.
    last_id: u16,
    streams: BTreeMap<u16, StreamStats>,
    /// (MOT, queue) → copies lost since the last one delivered.
    missing: HashMap<(u16, QAddress), u32>,
    /// Registrations added or removed so far.
    changes: u64,
    /// While a request is served: how to undo what it changed, so a request
    /// whose unit of work did not commit leaves the table as it was
    /// ([`Registry::begin_request`]).
    journal: Option<Journal>,
}

/// What one request changed, to undo it ([`Registry::roll_back`]).
#[derive(Debug)]
struct Journal {
    last_id: u16,
    changes: u64,
    undo: Vec<Undo>,
}

/// One change of the table, as it can be undone.
#[derive(Debug)]
enum Undo {
    /// Registration `id` was added (last in its MOT's list).
    Added(u16),
    /// A registration was removed from place `at` of its MOT's list.
    Removed { reg: Registration, at: usize },
    /// The lost-copy count of (MOT, queue) was `n` (`None`: there was none).
    Missing {
        key: (u16, QAddress),
        n: Option<u32>,
    },
    /// The counters of a MOT were these before a reset.
    Stream {
        mot: u16,
        stats: Option<StreamStats>,
    },
}

impl Registry {
    /// An empty database.
    pub fn new() -> Self {
        Registry::default()
    }

    /// Adds a registration (its `reg_id` is chosen here: the lowest free id
    /// after the one handed out last, starting at 1). Returns the id and the
    /// registrations for the MOT and queue afterwards (`number_reg`).
    ///
    /// Errors: PSYM_SBS_RESRCFAIL when 65535 registrations are held.
    pub fn register(&mut self, mut r: Registration) -> Result<(u16, i32), SbsStatus> {
        if self.regs.len() >= MAX_REGISTRATIONS {
            return Err(SbsStatus::RESRCFAIL);
        }
        let mut id = self.last_id;
        loop {
            id = if id == u16::MAX { 1 } else { id + 1 };
            if !self.regs.contains_key(&id) {
                break;
            }
        }
        self.last_id = id;
        self.changes += 1;
        r.reg_id = id;
        let (mot, queue) = (r.mot, r.queue);
        self.by_mot.entry(mot.number()).or_default().push(id);
        self.regs.insert(id, r);
        self.log(Undo::Added(id));
        Ok((id, self.number_reg(mot, queue)))
    }

    /// Registrations for `mot` and `queue` (the `number_reg` of the responses).
    pub fn number_reg(&self, mot: Mot, queue: QAddress) -> i32 {
        self.by_mot.get(&mot.number()).map_or(0, |ids| {
            ids.iter()
                .filter(|id| self.regs.get(id).is_some_and(|r| r.queue == queue))
                .count() as i32
        })
    }

    /// Removes the registrations of `queue` for `mot`: all of them when
    /// `reg_id` is `None`, else that one (which must be of `mot` and
    /// `queue`). Returns `number_reg` afterwards.
    ///
    /// Errors: PSYM_SBS_NOMATCH when nothing was removed.
    pub fn deregister(
        &mut self,
        mot: Mot,
        queue: QAddress,
        reg_id: Option<u16>,
    ) -> Result<i32, SbsStatus> {
        let doomed: Vec<u16> = self
            .by_mot
            .get(&mot.number())
            .into_iter()
            .flatten()
            .copied()
            .filter(|id| {
                reg_id.is_none_or(|want| want == *id)
                    && self.regs.get(id).is_some_and(|r| r.queue == queue)
            })
            .collect();
        if doomed.is_empty() {
            return Err(SbsStatus::NOMATCH);
        }
        for id in doomed {
            self.remove(id);
        }
        if self.number_reg(mot, queue) == 0 {
            let key = (mot.number(), queue);
            let n = self.missing.remove(&key);
            self.log(Undo::Missing { key, n });
        }
        Ok(self.number_reg(mot, queue))
    }

    /// Removes registration `reg_id` whatever its MOT and queue (obsolete
    /// SBS_DEREG_BY_ID). Returns `number_reg` of its MOT and queue afterwards.
    ///
    /// Errors: PSYM_SBS_NOMATCH when no registration has the id.
    pub fn deregister_id(&mut self, reg_id: u16) -> Result<i32, SbsStatus> {
        let r = self.remove(reg_id).ok_or(SbsStatus::NOMATCH)?;
        Ok(self.number_reg(r.mot, r.queue))
    }

    /// How many registrations were added or removed so far: a change in
    /// the count tells that the table changed.
    pub fn changes(&self) -> u64 {
        self.changes
    }

    fn remove(&mut self, id: u16) -> Option<Registration> {
        let r = self.regs.remove(&id)?;
        self.changes += 1;
        let mut at = 0;
        if let Some(ids) = self.by_mot.get_mut(&r.mot.number()) {
            if let Some(i) = ids.iter().position(|i| *i == id) {
                at = i;
                ids.remove(i);
            }
            if ids.is_empty() {
                self.by_mot.remove(&r.mot.number());
            }
        }
        if self.journal.is_some() {
            self.log(Undo::Removed { reg: r.clone(), at });
        }
        Some(r)
    }

    /// Starts serving one request: until [`Registry::keep`] or
    /// [`Registry::roll_back`], every change of the table (registrations
    /// added or removed, lost-copy counts dropped with them, counters
    /// reset) is noted so that it can be undone. The SBS server serves a
    /// request in a unit of work and undoes its changes when the unit does
    /// not commit (the request is back on queue 99 and is served again).
    pub fn begin_request(&mut self) {
        self.journal = Some(Journal {
            last_id: self.last_id,
            changes: self.changes,
            undo: Vec::new(),
        });
    }

    /// Keeps the changes of the request begun with
    /// [`Registry::begin_request`].
    pub fn keep(&mut self) {
        self.journal = None;
    }

    /// Undoes the changes of the request begun with
    /// [`Registry::begin_request`], newest first: the table, the ids handed
    /// out and the counters are as they were before it.
    pub fn roll_back(&mut self) {
        let Some(j) = self.journal.take() else { return };
        for u in j.undo.into_iter().rev() {
            match u {
                Undo::Added(id) => {
                    if let Some(r) = self.regs.remove(&id)
                        && let Some(ids) = self.by_mot.get_mut(&r.mot.number())
                    {
                        ids.retain(|i| *i != id);
                        if ids.is_empty() {
                            self.by_mot.remove(&r.mot.number());
                        }
                    }
                }
                Undo::Removed { reg, at } => {
                    let ids = self.by_mot.entry(reg.mot.number()).or_default();
                    ids.insert(at.min(ids.len()), reg.reg_id);
                    self.regs.insert(reg.reg_id, reg);
                }
                Undo::Missing { key, n } => match n {
                    Some(n) => {
                        self.missing.insert(key, n);
                    }
                    None => {
                        self.missing.remove(&key);
                    }
                },
                Undo::Stream { mot, stats } => match stats {
                    Some(s) => {
                        self.streams.insert(mot, s);
                    }
                    None => {
                        self.streams.remove(&mot);
                    }
                },
            }
        }
        self.last_id = j.last_id;
        self.changes = j.changes;
    }

    fn log(&mut self, u: Undo) {
        if let Some(j) = &mut self.journal {
            j.undo.push(u);
        }
    }

    /// Removes every registration owned by one of the attachments `owners`
    /// (they ended). Returns the registrations removed.
    pub fn remove_owned(&mut self, owners: &[u64]) -> Vec<Registration> {
        let doomed: Vec<u16> = self
            .regs
            .values()
            .filter(|r| r.owner.is_some_and(|o| owners.contains(&o)))
            .map(|r| r.reg_id)
            .collect();
        let mut out = Vec::with_capacity(doomed.len());
        for id in doomed {
            if let Some(r) = self.remove(id) {
                if self.number_reg(r.mot, r.queue) == 0 {
                    self.missing.remove(&(r.mot.number(), r.queue));
                }
                out.push(r);
            }
        }
        out
    }

    /// Every registration that no attachment owns, by id (what durable
    /// registrations keep).
    pub fn unowned(&self) -> impl Iterator<Item = &Registration> {
        self.regs.values().filter(|r| r.owner.is_none())
    }

    /// Adds `r` as it was registered before, with its own `reg_id` (durable
    /// registrations read back at start). Ids handed out later follow the
    /// highest restored one.
    ///
    /// Errors: PSYM_SBS_RESRCFAIL when the id is 0, taken, or the table full.
    pub fn restore(&mut self, r: Registration) -> Result<(), SbsStatus> {
        if r.reg_id == 0
            || self.regs.contains_key(&r.reg_id)
            || self.regs.len() >= MAX_REGISTRATIONS
        {
            return Err(SbsStatus::RESRCFAIL);
        }
        self.last_id = self.last_id.max(r.reg_id);
        self.by_mot
            .entry(r.mot.number())
            .or_default()
            .push(r.reg_id);
        self.regs.insert(r.reg_id, r);
        Ok(())
    }

    /// The registration with id `reg_id`.
    #[cfg(test)]
    pub fn get(&self, reg_id: u16) -> Option<&Registration> {
        self.regs.get(&reg_id)
    }

    /// Every registration, by id.
    #[cfg(test)]
    pub fn iter(&self) -> impl Iterator<Item = &Registration> {
        self.regs.values()
    }

    /// The queues broadcast `message` on `mot` goes to: each queue with a
    /// registration for `mot` whose rules match, once, in the order of its
    /// first matching registration; with the gap notice owed to it. Counts
    /// the broadcast in the stream's counters.
    pub fn select(&mut self, mot: Mot, message: &Broadcast<'_>) -> Vec<Target> {
        let stats = self.streams.entry(mot.number()).or_default();
        stats.received = stats.received.wrapping_add(1);
        stats.bytes = stats.bytes.wrapping_add(message.body.len() as u64);
        let mut out: Vec<Target> = Vec::new();
        let ids = self
            .by_mot
            .get(&mot.number())
            .map_or(&[][..], |v| v.as_slice());
        // One copy per queue: the queues chosen so far, for a constant-time
        // check with thousands of registrations.
        let mut chosen: HashSet<QAddress> = HashSet::with_capacity(ids.len());
        for id in ids {
            let Some(r) = self.regs.get(id) else { continue };
            if chosen.contains(&r.queue) {
                continue;
            }
            let set = mqgate_codecs::pams::RuleSet {
                conjunction: r.conjunction,
                rules: &r.rules,
                registration_order: r.order,
            };
            if set.matches(message) {
                chosen.insert(r.queue);
                out.push(Target {
                    queue: r.queue,
                    gap: None,
                });
            }
        }
        for t in &mut out {
            let lost = self
                .missing
                .get(&(mot.number(), t.queue))
                .copied()
                .unwrap_or(0);
            if lost > 0 {
                t.gap = self
                    .notice_for(mot, t.queue)
                    .map(|(kind, order)| (kind, lost, order));
            }
        }
        out
    }

    /// The queues with a registration for `mot`, once each, in registration
    /// order.
    pub fn registrants(&self, mot: Mot) -> Vec<QAddress> {
        let mut out: Vec<QAddress> = Vec::new();
        for id in self.by_mot.get(&mot.number()).into_iter().flatten() {
            if let Some(r) = self.regs.get(id)
                && !out.contains(&r.queue)
            {
                out.push(r.queue);
            }
        }
        out
    }

    /// Counts `n` copies of `mot` lost before they reached this server (a
    /// gap in another group's forwarded stream) in the stream's counters.
    pub fn count_lost(&mut self, mot: Mot, n: u32) {
        let stats = self.streams.entry(mot.number()).or_default();
        stats.copies_lost = stats.copies_lost.wrapping_add(n);
    }

    /// The gap notice the first registration of `queue` for `mot` that asked
    /// for one wants, with its byte order.
    pub fn notice_for(&self, mot: Mot, queue: QAddress) -> Option<(GapNotice, Endian)> {
        self.by_mot.get(&mot.number())?.iter().find_map(|id| {
            let r = self.regs.get(id)?;
            (r.queue == queue)
                .then_some(r.gap_notice.map(|k| (k, r.order)))
                .flatten()
        })
    }

    /// Records that the gap notice to `queue` for `mot` was delivered: the
    /// lost copies it reported are no longer owed.
    pub fn notice_delivered(&mut self, mot: Mot, queue: QAddress, reported: u32) {
        if let Some(n) = self.missing.get_mut(&(mot.number(), queue)) {
            *n = n.saturating_sub(reported);
        }
    }

    /// Records the fate of the copy of a broadcast on `mot` for `queue`.
    pub fn copy_result(&mut self, mot: Mot, queue: QAddress, delivered: bool) {
        if delivered {
            return;
        }
        let stats = self.streams.entry(mot.number()).or_default();
        stats.copies_lost = stats.copies_lost.wrapping_add(1);
        *self.missing.entry((mot.number(), queue)).or_default() += 1;
    }

    /// Copies lost for `queue` on `mot` not yet reported by a gap notice.
    #[cfg(test)]
    pub fn missing(&self, mot: Mot, queue: QAddress) -> u32 {
        self.missing
            .get(&(mot.number(), queue))
            .copied()
            .unwrap_or(0)
    }

    /// The counters of `mot`.
    #[cfg(test)]
    pub fn stats(&self, mot: Mot) -> StreamStats {
        self.streams.get(&mot.number()).copied().unwrap_or_default()
    }

    /// SBS_STATUS_RESP_MOT records for the MOTs from `start` to `end` that
    /// have registrations or counters, in MOT order; `reset` zeroes the
    /// counters of the MOTs reported.
    pub fn status(&mut self, start: i32, end: i32, reset: bool) -> Vec<StatusRespMot> {
        let mut mots: Vec<u16> = self
            .by_mot
            .keys()
            .chain(self.streams.keys())
            .copied()
            .filter(|m| (start..=end).contains(&i32::from(*m)))
            .collect();
        mots.sort_unstable();
        mots.dedup();
        mots.into_iter()
            .map(|m| {
                let before = self.streams.get(&m).copied();
                let s = before.unwrap_or_default();
                if reset {
                    self.streams.insert(m, StreamStats::default());
                    self.log(Undo::Stream {
                        mot: m,
                        stats: before,
                    });
                }
                StatusRespMot {
                    mot: i32::from(m),
                    num_reg: self.by_mot.get(&m).map_or(0, |v| v.len() as i32),
                    complete_rcvd: s.received as i32,
                    complete_bytes: i32::try_from(s.bytes).unwrap_or(i32::MAX),
                    seq_gaps: s.copies_lost as i32,
                    ..StatusRespMot::default()
                }
            })
            .collect()
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use mqgate_codecs::pams::{OperandLength, Operator, Selector};

    fn reg(mot: u16, queue: u16, rules: Vec<SelectionRule>, gap: bool) -> Registration {
        Registration {
            reg_id: 0,
            mot: Mot::new(i64::from(mot)).unwrap(),
            queue: QAddress::new(10, queue),
            order: Endian::Big,
            conjunction: Conjunction::All,
            rules,
            gap_notice: gap.then_some(GapNotice::SequenceGap),
            auto_dereg: false,
            owner: None,
        }
    }

    fn msg(msg_type: i16) -> Broadcast<'static> {
        Broadcast {
            class: 1,
            msg_type,
            original_source: QAddress::new(10, 5),
            body: b"",
            endian: Endian::Big,
        }
    }

    fn type_is(t: i32) -> SelectionRule {
        SelectionRule::new(Selector::Type, Operator::Eq, OperandLength::Four, t)
    }

    #[test]
    fn ids_number_reg_and_deregistration() {
        let mut r = Registry::new();
        let mot = Mot::new(4100).unwrap();
        let q = QAddress::new(10, 1);
        assert_eq!(r.register(reg(4100, 1, vec![], false)), Ok((1, 1)));
        assert_eq!(
            r.register(reg(4100, 1, vec![type_is(7)], false)),
            Ok((2, 2))
        );
        assert_eq!(r.register(reg(4100, 2, vec![], false)), Ok((3, 1)));
        assert_eq!(r.number_reg(mot, q), 2);
        // By id: that entry only.
        assert_eq!(r.deregister(mot, q, Some(2)), Ok(1));
        assert_eq!(
            r.deregister(mot, q, Some(3)),
            Err(SbsStatus::NOMATCH),
            "3 is queue 2's"
        );
        // Without an id: every entry of the MOT and queue.
        r.register(reg(4100, 1, vec![], false)).unwrap();
        assert_eq!(r.deregister(mot, q, None), Ok(0));
        assert_eq!(r.deregister(mot, q, None), Err(SbsStatus::NOMATCH));
        assert_eq!(r.deregister_id(3), Ok(0));
        assert_eq!(r.iter().count(), 0);
    }

    #[test]
    fn one_target_per_queue_and_gap_counts() {
        let mut r = Registry::new();
        let mot = Mot::new(4100).unwrap();
        r.register(reg(4100, 1, vec![type_is(7)], true)).unwrap();
        r.register(reg(4100, 1, vec![], true)).unwrap();
        r.register(reg(4100, 2, vec![type_is(8)], false)).unwrap();
        let t = r.select(mot, &msg(7));
        assert_eq!(t.len(), 1, "queue 1 once, queue 2 does not match");
        let q1 = QAddress::new(10, 1);
        r.copy_result(mot, q1, false);
        r.copy_result(mot, q1, false);
        let t = r.select(mot, &msg(7));
        assert_eq!(t[0].gap, Some((GapNotice::SequenceGap, 2, Endian::Big)));
        r.notice_delivered(mot, q1, 2);
        assert_eq!(r.missing(mot, q1), 0);
        let s = r.status(4000, 4999, true);
        assert_eq!(
            (s[0].mot, s[0].num_reg, s[0].complete_rcvd, s[0].seq_gaps),
            (4100, 3, 2, 2)
        );
        assert_eq!(r.stats(mot), StreamStats::default(), "reset");
    }

    #[test]
    fn a_request_rolled_back_leaves_the_table_as_it_was() {
        // The SBS server undoes a request whose unit of work did not commit
        // (src/sbs/server.rs): the same request served again must get the
        // same reg_id and leave one registration, not two.
        let mut r = Registry::new();
        let mot = Mot::new(4100).unwrap();
        let q1 = QAddress::new(10, 1);
        r.register(reg(4100, 1, vec![], true)).unwrap();
        r.register(reg(4100, 2, vec![], false)).unwrap();
        r.register(reg(4100, 1, vec![type_is(7)], true)).unwrap();
        r.copy_result(mot, q1, false);
        let _ = r.select(mot, &msg(7));
        let before_ids: Vec<u16> = r.iter().map(|x| x.reg_id).collect();
        let before_targets = r.select(mot, &msg(7));
        let before_status = r.status(4100, 4100, false);

        r.begin_request();
        assert_eq!(r.register(reg(4100, 3, vec![], false)), Ok((4, 1)));
        assert_eq!(r.deregister(mot, q1, None), Ok(0), "ids 1 and 3 go");
        let _ = r.status(4100, 4100, true);
        r.roll_back();

        assert_eq!(r.iter().map(|x| x.reg_id).collect::<Vec<_>>(), before_ids);
        assert_eq!(r.missing(mot, q1), 1, "the lost copy is owed again");
        assert_eq!(
            r.select(mot, &msg(7)),
            before_targets,
            "registration order kept"
        );
        let mut after = r.status(4100, 4100, false);
        // select above counted one more broadcast received.
        after[0].complete_rcvd -= 1;
        assert_eq!(after, before_status);
        // The next id is 4 again, as if the request had never been served.
        r.begin_request();
        assert_eq!(r.register(reg(4100, 3, vec![], false)), Ok((4, 1)));
        r.keep();
        r.roll_back();
        assert_eq!(r.iter().count(), 4, "kept: nothing to roll back");
    }
}

//! The ledger of a CM sender, as a state machine without I/O or clocks
//! (TIBCO Rendezvous Concepts, "Certified Message Delivery"; C Reference,
//! "tibrvcmTransport_Send()", "tibrvcmTransport_AddListener()",
//! "tibrvcmTransport_DisallowListener()"; docs/rendezvous.md "Certified
//! delivery").
//!
//! It numbers outbound labeled messages per subject, keeps each one until
//! every listener registered for its subject when it was sent confirmed it
//! (or its time limit passed, or the listener left), records registrations
//! and disallowed listeners, and says what to publish: protocol messages
//! to listeners ([`ToListener`]) and advisories. Times are milliseconds
//! since the Unix epoch, given by the caller, so that deadlines survive a
//! restart. Every change is marked for the durable ledger
//! ([`SenderLedger::take_dirty`]).

use std::collections::{BTreeMap, BTreeSet};

use mqgate_codecs::rv::Subject;
use mqgate_codecs::rv::msg::{CmLabels, Envelope};

use super::advisories;
use super::protocol::ToListener;
use crate::rv::advisory::Advisory;

/// What the sender's transport publishes after a ledger change.
#[derive(Clone, Debug, PartialEq)]
pub enum SenderOut {
    /// An advisory to present.
    Advisory(Advisory),
    /// A protocol message to `listener`.
    ToListener {
        /// The listener's correspondent name.
        listener: String,
        /// The message.
        msg: ToListener,
    },
}

/// A certified message kept in the ledger.
#[derive(Clone, Debug, PartialEq)]
pub struct Pending {
    /// The labeled message as sent.
    pub envelope: Envelope,
    /// When it was sent.
    pub sent_ms: u64,
    /// When its time limit passes; `None`: no time limit.
    pub deadline_ms: Option<u64>,
    /// The registered listeners that have not confirmed it yet.
    pub waiting: BTreeSet<String>,
    /// Its place in the durable ledger.
    pub slot: u32,
}

/// The durable part of the ledger besides its messages.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct SenderState {
    /// The next sequence number per subject (absent: 1).
    pub next: BTreeMap<String, u64>,
    /// Registrations: listener → subject → first certified sequence number.
    pub registrations: BTreeMap<String, BTreeMap<String, u64>>,
    /// Listeners refused certified delivery.
    pub disallowed: BTreeSet<String>,
    /// Slots the messages use, 0..slots.
    pub slots: u32,
}

/// A CM sender's ledger.
#[derive(Debug)]
pub struct SenderLedger {
    name: String,
    state: SenderState,
    pending: BTreeMap<(String, u64), Pending>,
    /// Which message each used slot holds.
    by_slot: BTreeMap<u32, (String, u64)>,
    free: BTreeSet<u32>,
    no_response_at: BTreeMap<String, u64>,
    dirty_state: bool,
    dirty_slots: BTreeSet<u32>,
}

/// AddListener of a disallowed listener (C Reference,
/// "tibrvcmTransport_AddListener()": TIBRV_NOT_PERMITTED).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Disallowed;

/// Milliseconds of a time limit in seconds (rounded up; 0 and anything not
/// a positive finite number: none).
pub fn time_limit_ms(time_limit_s: f64) -> Option<u64> {
    if time_limit_s.is_finite() && time_limit_s > 0.0 {
        Some((time_limit_s * 1000.0).ceil().min(u64::MAX as f64) as u64)
    } else {
        None
    }
}

impl SenderLedger {
    /// An empty ledger of sender `name`.
    pub fn new(name: &str) -> SenderLedger {
        SenderLedger::restore(name, SenderState::default(), Vec::new())
    }

    /// A ledger as it was stored: its state and its kept messages.
    pub fn restore(name: &str, mut state: SenderState, kept: Vec<Pending>) -> SenderLedger {
        let mut pending = BTreeMap::new();
        for p in kept {
            let seq = p.envelope.cm.as_ref().map_or(0, |c| c.sequence);
            state.slots = state.slots.max(p.slot.saturating_add(1));
            pending.insert((p.envelope.subject.clone(), seq), p);
        }
        let by_slot: BTreeMap<u32, (String, u64)> = pending
            .iter()
            .map(|(k, p): (&(String, u64), &Pending)| (p.slot, k.clone()))
            .collect();
        let free = (0..state.slots)
            .filter(|s| !by_slot.contains_key(s))
            .collect();
        SenderLedger {
            name: name.to_string(),
            state,
            pending,
            by_slot,
            free,
            no_response_at: BTreeMap::new(),
            dirty_state: false,
            dirty_slots: BTreeSet::new(),
        }
    }

    /// The sender's correspondent name.
    pub fn name(&self) -> &str {
        &self.name
    }

    /// Its durable state.
    pub fn state(&self) -> &SenderState {
        &self.state
    }

    /// The messages kept, by (subject, sequence number).
    pub fn pending(&self) -> impl Iterator<Item = &Pending> {
        self.pending.values()
    }

    /// The message in `slot`, if one is kept there.
    pub fn in_slot(&self, slot: u32) -> Option<&Pending> {
        self.by_slot.get(&slot).and_then(|k| self.pending.get(k))
    }

    /// What changed since the last call: whether the state did, and the
    /// slots whose message was written or removed.
    pub fn take_dirty(&mut self) -> (bool, Vec<u32>) {
        let state = std::mem::take(&mut self.dirty_state);
        let slots = std::mem::take(&mut self.dirty_slots).into_iter().collect();
        (state, slots)
    }

    fn next_of(&self, subject: &str) -> u64 {
        self.state.next.get(subject).copied().unwrap_or(1)
    }

    /// Labels `envelope` ("tibrvcmTransport_Send()"): the sender name, the
    /// subject's next sequence number (from 1) and `time_limit_s` (0 =
    /// none). When listeners are registered for the subject the message is
    /// kept for them. Returns the labeled message.
    pub fn send(&mut self, mut envelope: Envelope, time_limit_s: f64, now_ms: u64) -> Envelope {
        let seq = self.next_of(&envelope.subject);
        self.state
            .next
            .insert(envelope.subject.clone(), seq.saturating_add(1));
        self.dirty_state = true;
        envelope.cm = Some(CmLabels {
            sender: self.name.clone(),
            sequence: seq,
            time_limit: time_limit_s,
        });
        let waiting: BTreeSet<String> = self
            .state
            .registrations
            .iter()
            .filter(|(_, subjects)| subjects.contains_key(&envelope.subject))
            .map(|(l, _)| l.clone())
            .collect();
        if !waiting.is_empty() {
            let slot = match self.free.pop_first() {
                Some(s) => s,
                None => {
                    self.state.slots += 1;
                    self.state.slots - 1
                }
            };
            self.dirty_slots.insert(slot);
            self.by_slot.insert(slot, (envelope.subject.clone(), seq));
            self.pending.insert(
                (envelope.subject.clone(), seq),
                Pending {
                    envelope: envelope.clone(),
                    sent_ms: now_ms,
                    deadline_ms: time_limit_ms(time_limit_s).map(|t| now_ms.saturating_add(t)),
                    waiting,
                    slot,
                },
            );
        }
        envelope
    }

    fn remove(&mut self, key: &(String, u64)) -> Option<Pending> {
        let p = self.pending.remove(key)?;
        self.by_slot.remove(&p.slot);
        self.free.insert(p.slot);
        self.dirty_slots.insert(p.slot);
        Some(p)
    }

    /// A registration request from `listener` for `subject` ("Certified
    /// Message Delivery", discovery and registration): accepted unless the
    /// listener is disallowed; an accepted request is presented as
    /// REGISTRATION.REQUEST after the acceptance.
    pub fn register(&mut self, listener: &str, subject: &str) -> Vec<SenderOut> {
        if self.state.disallowed.contains(listener) {
            return vec![SenderOut::ToListener {
                listener: listener.to_string(),
                msg: ToListener::Refuse {
                    sender: self.name.clone(),
                    subject: subject.to_string(),
                },
            }];
        }
        let next = self.next_of(subject);
        let subjects = self
            .state
            .registrations
            .entry(listener.to_string())
            .or_default();
        let begin = *subjects.entry(subject.to_string()).or_insert_with(|| {
            self.dirty_state = true;
            next
        });
        vec![
            SenderOut::ToListener {
                listener: listener.to_string(),
                msg: ToListener::Accept {
                    sender: self.name.clone(),
                    subject: subject.to_string(),
                    seqno_begin: begin,
                },
            },
            SenderOut::Advisory(advisories::registration_request(
                &self.name, subject, listener,
            )),
        ]
    }

    /// Pre-registers `listener` for `subject`
    /// ("tibrvcmTransport_AddListener()"): messages sent from now on are
    /// kept for it until it confirms them. False when it was registered
    /// already (no effect).
    ///
    /// Errors: [`Disallowed`] when the listener is disallowed.
    pub fn add_listener(&mut self, listener: &str, subject: &str) -> Result<bool, Disallowed> {
        if self.state.disallowed.contains(listener) {
            return Err(Disallowed);
        }
        let next = self.next_of(subject);
        let subjects = self
            .state
            .registrations
            .entry(listener.to_string())
            .or_default();
        if subjects.contains_key(subject) {
            return Ok(false);
        }
        subjects.insert(subject.to_string(), next);
        self.dirty_state = true;
        Ok(true)
    }

    /// Disallows `listener` ("tibrvcmTransport_DisallowListener()"): its
    /// registrations end (REGISTRATION.CLOSED for each, and the listener is
    /// told, so that it presents REGISTRATION.NOT_CERTIFIED), the messages
    /// kept for it are no longer kept for it, and later requests are
    /// refused. False when it was disallowed already.
    pub fn disallow(&mut self, listener: &str) -> (bool, Vec<SenderOut>) {
        let newly = self.state.disallowed.insert(listener.to_string());
        self.dirty_state |= newly;
        let subjects: Vec<String> = self
            .state
            .registrations
            .get(listener)
            .map(|s| s.keys().cloned().collect())
            .unwrap_or_default();
        let mut out = Vec::new();
        for subject in subjects {
            out.extend(self.end_agreement(listener, &subject));
            out.push(SenderOut::ToListener {
                listener: listener.to_string(),
                msg: ToListener::Refuse {
                    sender: self.name.clone(),
                    subject,
                },
            });
        }
        (newly, out)
    }

    /// Allows a disallowed listener again ("tibrvcmTransport_AllowListener()");
    /// false when it was not disallowed.
    pub fn allow(&mut self, listener: &str) -> bool {
        let was = self.state.disallowed.remove(listener);
        self.dirty_state |= was;
        was
    }

    /// `listener` closed its agreement for `subject`.
    pub fn close(&mut self, listener: &str, subject: &str) -> Vec<SenderOut> {
        let registered = self
            .state
            .registrations
            .get(listener)
            .is_some_and(|s| s.contains_key(subject));
        if registered {
            self.end_agreement(listener, subject)
        } else {
            Vec::new()
        }
    }

    /// Removes the registration and the listener from the messages of
    /// `subject`; REGISTRATION.CLOSED.
    fn end_agreement(&mut self, listener: &str, subject: &str) -> Vec<SenderOut> {
        if let Some(subjects) = self.state.registrations.get_mut(listener) {
            subjects.remove(subject);
            if subjects.is_empty() {
                self.state.registrations.remove(listener);
            }
            self.dirty_state = true;
        }
        let keys: Vec<(String, u64)> = self
            .pending
            .range((subject.to_string(), 0)..=(subject.to_string(), u64::MAX))
            .filter(|(_, p)| p.waiting.contains(listener))
            .map(|(k, _)| k.clone())
            .collect();
        for key in keys {
            let done = match self.pending.get_mut(&key) {
                Some(p) => {
                    p.waiting.remove(listener);
                    self.dirty_slots.insert(p.slot);
                    p.waiting.is_empty()
                }
                None => false,
            };
            if done {
                self.remove(&key);
            }
        }
        self.no_response_at.remove(listener);
        vec![SenderOut::Advisory(advisories::registration_closed(
            &self.name, subject, listener,
        ))]
    }

    /// `listener` confirmed message `seqno` of `subject`: DELIVERY.CONFIRM,
    /// and when it was the last listener waiting, the message leaves the
    /// ledger and DELIVERY.COMPLETE follows. A confirmation of a message
    /// not kept for the listener (confirmed already, or failed) changes
    /// nothing.
    pub fn confirm(&mut self, listener: &str, subject: &str, seqno: u64) -> Vec<SenderOut> {
        let key = (subject.to_string(), seqno);
        let Some(p) = self.pending.get_mut(&key) else {
            return Vec::new();
        };
        if !p.waiting.remove(listener) {
            return Vec::new();
        }
        self.dirty_slots.insert(p.slot);
        self.no_response_at.remove(listener);
        let mut out = vec![SenderOut::Advisory(advisories::delivery_confirm(
            &self.name, subject, listener, seqno,
        ))];
        if p.waiting.is_empty() {
            self.remove(&key);
            out.push(SenderOut::Advisory(advisories::delivery_complete(
                &self.name, subject, seqno,
            )));
        }
        out
    }

    /// Removes every message whose time limit passed by `now_ms`, each
    /// with DELIVERY.FAILED naming the listeners that did not confirm it.
    pub fn expire(&mut self, now_ms: u64) -> Vec<SenderOut> {
        let due: Vec<(String, u64)> = self
            .pending
            .iter()
            .filter(|(_, p)| p.deadline_ms.is_some_and(|d| d <= now_ms))
            .map(|(k, _)| k.clone())
            .collect();
        let mut out = Vec::new();
        for key in due {
            if let Some(p) = self.remove(&key) {
                out.push(SenderOut::Advisory(advisories::delivery_failed(
                    &self.name,
                    &key.0,
                    key.1,
                    p.envelope.message,
                    p.waiting.iter().map(String::as_str),
                )));
            }
        }
        out
    }

    /// The earliest time limit of a kept message.
    pub fn next_deadline(&self) -> Option<u64> {
        self.pending.values().filter_map(|p| p.deadline_ms).min()
    }

    /// DELIVERY.NO_RESPONSE for each listener that has left a message
    /// unconfirmed for `interval_ms` or more, at most once per
    /// `interval_ms` per listener.
    pub fn no_response(&mut self, now_ms: u64, interval_ms: u64) -> Vec<SenderOut> {
        let mut late: BTreeSet<&String> = BTreeSet::new();
        for p in self.pending.values() {
            if now_ms.saturating_sub(p.sent_ms) >= interval_ms {
                late.extend(p.waiting.iter());
            }
        }
        let mut out = Vec::new();
        for l in late {
            let last = self.no_response_at.get(l).copied();
            if last.is_none_or(|t| now_ms.saturating_sub(t) >= interval_ms) {
                out.push(l.clone());
            }
        }
        out.into_iter()
            .map(|l| {
                self.no_response_at.insert(l.clone(), now_ms);
                SenderOut::Advisory(advisories::delivery_no_response(&self.name, &l))
            })
            .collect()
    }

    fn redeliveries<'a>(
        &'a self,
        listener: &'a str,
        subject: &str,
        range: std::ops::RangeInclusive<u64>,
    ) -> impl Iterator<Item = SenderOut> + 'a {
        self.pending
            .range((subject.to_string(), *range.start())..=(subject.to_string(), *range.end()))
            .filter(move |(_, p)| p.waiting.contains(listener))
            .map(move |(_, p)| SenderOut::ToListener {
                listener: listener.to_string(),
                msg: ToListener::Redeliver(p.envelope.clone()),
            })
    }

    /// `listener` missed `seqno_begin..=seqno_end` of `subject`: the ones
    /// still kept for it, again.
    pub fn resend(
        &self,
        listener: &str,
        subject: &str,
        seqno_begin: u64,
        seqno_end: u64,
    ) -> Vec<SenderOut> {
        if seqno_begin > seqno_end {
            return Vec::new();
        }
        self.redeliveries(listener, subject, seqno_begin..=seqno_end)
            .collect()
    }

    /// `listener` came back and asks for old messages (`requestOld`) on the
    /// subjects `patterns` match: for each of its registrations on such a
    /// subject, the acceptance again (so that a listener that lost its
    /// ledger, or was pre-registered with AddListener, knows the
    /// agreement), then every message kept for it, in sequence order.
    pub fn request_old(&self, listener: &str, patterns: &[Subject<'_>]) -> Vec<SenderOut> {
        let Some(subjects) = self.state.registrations.get(listener) else {
            return Vec::new();
        };
        let mut out = Vec::new();
        for (subject, begin) in subjects {
            let Ok(s) = Subject::parse_delivered(subject) else {
                continue;
            };
            if !patterns.iter().any(|p| p.matches(&s)) {
                continue;
            }
            out.push(SenderOut::ToListener {
                listener: listener.to_string(),
                msg: ToListener::Accept {
                    sender: self.name.clone(),
                    subject: subject.clone(),
                    seqno_begin: *begin,
                },
            });
            out.extend(self.redeliveries(listener, subject, 0..=u64::MAX));
        }
        out
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use mqgate_codecs::rv::Mode;
    use mqgate_codecs::rv::msg::{Field, Message, Value};

    fn msg(subject: &str) -> Envelope {
        Envelope {
            subject: subject.into(),
            reply_subject: None,
            cm: None,
            message: Message::new(vec![Field::new("n", Value::I32(1))]),
        }
    }

    fn seq(e: &Envelope) -> u64 {
        e.cm.as_ref().unwrap().sequence
    }

    fn advisory_subjects(out: &[SenderOut]) -> Vec<String> {
        out.iter()
            .filter_map(|o| match o {
                SenderOut::Advisory(a) => Some(a.subject()),
                _ => None,
            })
            .collect()
    }

    #[test]
    fn sequence_numbers_count_from_one_per_subject() {
        // Sequence numbers are positive ("tibrvMsg_GetCMSequence()":
        // "automatically generate positive sequence numbers"); mqgate
        // numbers each subject on its own (docs/rendezvous.md "Sequence
        // numbers").
        let mut l = SenderLedger::new("S");
        assert_eq!(seq(&l.send(msg("A"), 0.0, 0)), 1);
        assert_eq!(seq(&l.send(msg("A"), 0.0, 0)), 2);
        assert_eq!(seq(&l.send(msg("B"), 0.0, 0)), 1);
        let e = l.send(msg("A"), 2.5, 0);
        assert_eq!(
            e.cm,
            Some(CmLabels {
                sender: "S".into(),
                sequence: 3,
                time_limit: 2.5
            })
        );
        assert_eq!(
            l.pending().count(),
            0,
            "no listener registered: nothing kept"
        );
    }

    #[test]
    fn registration_is_accepted_then_presented_and_messages_are_kept() {
        let mut l = SenderLedger::new("S");
        l.send(msg("A"), 0.0, 0);
        let out = l.register("L", "A");
        // The sender accepts from its next sequence number (2: number 1 was
        // sent before the agreement, uncertified).
        assert_eq!(
            out[0],
            SenderOut::ToListener {
                listener: "L".into(),
                msg: ToListener::Accept {
                    sender: "S".into(),
                    subject: "A".into(),
                    seqno_begin: 2
                }
            }
        );
        assert_eq!(
            advisory_subjects(&out),
            ["_RV.INFO.RVCM.REGISTRATION.REQUEST.A"]
        );
        let e = l.send(msg("A"), 0.0, 10);
        assert_eq!(seq(&e), 2);
        let kept: Vec<_> = l.pending().collect();
        assert_eq!(kept.len(), 1);
        assert_eq!(kept[0].waiting, BTreeSet::from(["L".to_string()]));
        assert_eq!(l.take_dirty(), (true, vec![0]));
    }

    #[test]
    fn confirmation_completes_when_the_last_listener_confirms() {
        let mut l = SenderLedger::new("S");
        l.register("L1", "A");
        l.register("L2", "A");
        l.send(msg("A"), 0.0, 0);
        let out = l.confirm("L1", "A", 1);
        assert_eq!(
            advisory_subjects(&out),
            ["_RV.INFO.RVCM.DELIVERY.CONFIRM.A"]
        );
        assert_eq!(l.pending().count(), 1);
        let out = l.confirm("L2", "A", 1);
        assert_eq!(
            advisory_subjects(&out),
            [
                "_RV.INFO.RVCM.DELIVERY.CONFIRM.A",
                "_RV.INFO.RVCM.DELIVERY.COMPLETE.A"
            ]
        );
        assert_eq!(l.pending().count(), 0);
        assert!(
            l.confirm("L2", "A", 1).is_empty(),
            "a second confirm is a no-op"
        );
    }

    #[test]
    fn a_passed_time_limit_fails_the_message_and_removes_it() {
        // "DELIVERY.FAILED": presented after the message left the ledger,
        // naming the listeners that did not confirm.
        let mut l = SenderLedger::new("S");
        l.register("L", "A");
        l.send(msg("A"), 1.0, 5_000);
        assert_eq!(l.next_deadline(), Some(6_000));
        assert!(l.expire(5_999).is_empty());
        let out = l.expire(6_000);
        assert_eq!(
            advisory_subjects(&out),
            ["_RV.ERROR.RVCM.DELIVERY.FAILED.A"]
        );
        let SenderOut::Advisory(a) = &out[0] else {
            unreachable!()
        };
        let env = a.clone().into_envelope();
        assert_eq!(env.message.get("seqno").unwrap().value, Value::U64(1));
        assert_eq!(
            env.message.get("listener").unwrap().value,
            Value::String("L".into())
        );
        assert_eq!(l.pending().count(), 0);
        // The slot is free again and reused.
        l.take_dirty();
        l.send(msg("A"), 0.0, 7_000);
        assert_eq!(l.take_dirty().1, vec![0]);
    }

    #[test]
    fn disallowed_listeners_are_refused_and_their_items_leave() {
        let mut l = SenderLedger::new("S");
        l.register("L", "A");
        l.send(msg("A"), 0.0, 0);
        let (newly, out) = l.disallow("L");
        assert!(newly);
        assert_eq!(
            advisory_subjects(&out),
            ["_RV.INFO.RVCM.REGISTRATION.CLOSED.A"]
        );
        assert!(out.contains(&SenderOut::ToListener {
            listener: "L".into(),
            msg: ToListener::Refuse {
                sender: "S".into(),
                subject: "A".into()
            }
        }));
        assert_eq!(l.pending().count(), 0);
        let out = l.register("L", "A");
        assert!(matches!(
            out.as_slice(),
            [SenderOut::ToListener {
                msg: ToListener::Refuse { .. },
                ..
            }]
        ));
        assert_eq!(l.add_listener("L", "A"), Err(Disallowed));
        assert!(l.allow("L"));
        assert_eq!(l.add_listener("L", "A"), Ok(true));
        assert_eq!(l.add_listener("L", "A"), Ok(false));
    }

    #[test]
    fn add_listener_keeps_messages_for_a_listener_not_yet_there() {
        let mut l = SenderLedger::new("S");
        l.add_listener("L", "A.B").unwrap();
        l.send(msg("A.B"), 0.0, 0);
        l.send(msg("A.B"), 0.0, 0);
        l.send(msg("OTHER"), 0.0, 0);
        let patterns = [Subject::parse("A.>", Mode::Listen).unwrap()];
        let out = l.request_old("L", &patterns);
        let seqs: Vec<u64> = out
            .iter()
            .filter_map(|o| match o {
                SenderOut::ToListener {
                    msg: ToListener::Redeliver(e),
                    ..
                } => Some(seq(e)),
                _ => None,
            })
            .collect();
        assert!(matches!(
            &out[0],
            SenderOut::ToListener {
                msg: ToListener::Accept { seqno_begin: 1, .. },
                ..
            }
        ));
        assert_eq!(seqs, [1, 2]);
        let other = [Subject::parse("OTHER", Mode::Listen).unwrap()];
        assert!(l.request_old("L", &other).is_empty());
        assert!(l.request_old("NOBODY", &patterns).is_empty());
    }

    #[test]
    fn resend_gives_only_what_is_kept_for_the_listener() {
        let mut l = SenderLedger::new("S");
        l.register("L", "A");
        for _ in 0..4 {
            l.send(msg("A"), 0.0, 0);
        }
        l.confirm("L", "A", 2);
        let out = l.resend("L", "A", 1, 3);
        assert_eq!(out.len(), 2, "1 and 3; 2 was confirmed");
        assert!(l.resend("L", "A", 3, 1).is_empty());
    }

    #[test]
    fn no_response_repeats_once_per_interval() {
        let mut l = SenderLedger::new("S");
        l.register("L", "A");
        l.send(msg("A"), 0.0, 0);
        assert!(l.no_response(999, 1000).is_empty());
        assert_eq!(
            advisory_subjects(&l.no_response(1000, 1000)),
            ["_RV.WARN.RVCM.DELIVERY.NO_RESPONSE.L"]
        );
        assert!(l.no_response(1500, 1000).is_empty());
        assert_eq!(l.no_response(2000, 1000).len(), 1);
        l.confirm("L", "A", 1);
        assert!(l.no_response(5000, 1000).is_empty());
    }

    #[test]
    fn a_restored_ledger_continues_numbering_and_slots() {
        let mut l = SenderLedger::new("S");
        l.register("L", "A");
        l.send(msg("A"), 0.0, 0);
        l.send(msg("A"), 0.0, 0);
        l.confirm("L", "A", 1);
        let kept: Vec<Pending> = l.pending().cloned().collect();
        let mut r = SenderLedger::restore("S", l.state().clone(), kept);
        assert_eq!(seq(&r.send(msg("A"), 0.0, 0)), 3);
        // Slot 0 (message 1, confirmed) is free; message 2 holds slot 1.
        assert_eq!(r.take_dirty().1, vec![0]);
    }
}

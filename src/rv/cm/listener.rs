//! The ledger of a CM listener, as a state machine without I/O or clocks
//! (TIBCO Rendezvous Concepts, "Certified Message Delivery": discovery,
//! registration, confirmation; C Reference, "tibrvcmListener_Create()",
//! "tibrvcmEvent_ConfirmMsg()", "tibrvMsg_GetCMSequence()";
//! docs/rendezvous.md "Certified delivery").
//!
//! For each (sender, subject) it knows whether delivery is certified and
//! from which sequence number, which messages the program confirmed
//! (durable), and which it was given in this session (so that a message
//! is not handed over twice, and a confirmed one never again). It decides
//! what the program sees of each labeled message (its sequence number, or
//! 0 when not certified, or nothing for a duplicate) and what to publish:
//! protocol messages to senders and advisories.

use std::collections::BTreeMap;

use mqgate_codecs::rv::msg::CmLabels;

use super::advisories;
use super::protocol::ToSender;
use super::seqset::SeqSet;
use crate::rv::advisory::Advisory;

/// Time between registration requests that got no answer, ms
/// (**mqgate**; TIBCO documents that it retries, not how often).
pub const REGISTRATION_RETRY_MS: u64 = 2000;
/// Registration requests sent before REGISTRATION.NO_RESPONSE.
pub const REGISTRATION_ATTEMPTS: u8 = 3;

/// Where an agreement with one sender on one subject stands.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum AgreementState {
    /// Registration requested `attempts` times, the last at `at_ms`.
    Requested {
        /// When the last request went, ms since the Unix epoch.
        at_ms: u64,
        /// Requests sent.
        attempts: u8,
    },
    /// Certified from sequence number `begin` on.
    Certified {
        /// The first certified sequence number.
        begin: u64,
    },
    /// The sender refused (disallowed the listener).
    Refused,
    /// The sender never answered; delivery stays uncertified.
    NoResponse,
}

/// One agreement.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Agreement {
    /// Where it stands.
    pub state: AgreementState,
    /// Sequence numbers the program confirmed (numbers before the
    /// agreement's first count as confirmed).
    pub confirmed: SeqSet,
    /// Numbers handed to the program in this session, confirmed included.
    seen: SeqSet,
    /// The highest number received; `None` until the first after a
    /// restart (no gap is looked for then).
    high: Option<u64>,
}

impl Agreement {
    fn new(state: AgreementState) -> Agreement {
        Agreement {
            state,
            confirmed: SeqSet::default(),
            seen: SeqSet::default(),
            high: None,
        }
    }
}

/// What the listener's transport publishes after a ledger change.
#[derive(Clone, Debug, PartialEq)]
pub enum ListenerOut {
    /// An advisory to present.
    Advisory(Advisory),
    /// A protocol message to `sender`.
    ToSender {
        /// The sender's correspondent name.
        sender: String,
        /// The message.
        msg: ToSender,
    },
}

/// What becomes of an inbound labeled message.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Inbound {
    /// Hand it to the program with this sequence number (0: not
    /// certified, "tibrvMsg_GetCMSequence()").
    Deliver {
        /// The number the program sees.
        sequence: u64,
    },
    /// Not again: handed over already in this session, or confirmed.
    Duplicate,
}

/// Why a confirmation is refused.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum ConfirmError {
    /// No certified agreement covers the message
    /// ("tibrvcmEvent_ConfirmMsg()": TIBRV_NOT_PERMITTED).
    NotCertified,
    /// The message was never delivered to this listener.
    NotDelivered,
}

/// A durable agreement: certified ones are what a listener's ledger keeps.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct StoredAgreement {
    /// The sender's correspondent name.
    pub sender: String,
    /// The subject.
    pub subject: String,
    /// The first certified sequence number.
    pub begin: u64,
    /// The confirmed numbers.
    pub confirmed: SeqSet,
}

/// A CM listener's ledger.
#[derive(Debug)]
pub struct ListenerLedger {
    name: String,
    agreements: BTreeMap<(String, String), Agreement>,
    dirty: bool,
}

impl ListenerLedger {
    /// An empty ledger of listener `name`.
    pub fn new(name: &str) -> ListenerLedger {
        ListenerLedger {
            name: name.to_string(),
            agreements: BTreeMap::new(),
            dirty: false,
        }
    }

    /// A ledger as it was stored.
    pub fn restore(name: &str, stored: Vec<StoredAgreement>) -> ListenerLedger {
        let mut l = ListenerLedger::new(name);
        for a in stored {
            let mut ag = Agreement::new(AgreementState::Certified { begin: a.begin });
            ag.seen = a.confirmed.clone();
            ag.confirmed = a.confirmed;
            l.agreements.insert((a.sender, a.subject), ag);
        }
        l
    }

    /// The certified agreements, as the durable ledger keeps them.
    pub fn stored(&self) -> Vec<StoredAgreement> {
        self.agreements
            .iter()
            .filter_map(|((sender, subject), a)| match a.state {
                AgreementState::Certified { begin } => Some(StoredAgreement {
                    sender: sender.clone(),
                    subject: subject.clone(),
                    begin,
                    confirmed: a.confirmed.clone(),
                }),
                _ => None,
            })
            .collect()
    }

    /// Every agreement, by (sender, subject).
    pub fn agreements(&self) -> impl Iterator<Item = (&(String, String), &Agreement)> {
        self.agreements.iter()
    }

    /// True once since the durable part changed.
    pub fn take_dirty(&mut self) -> bool {
        std::mem::take(&mut self.dirty)
    }

    /// A new session (a listen stream opens): messages handed over before
    /// but not confirmed may be handed over again (a listener that comes
    /// back gets what it did not confirm).
    pub fn new_session(&mut self) {
        for a in self.agreements.values_mut() {
            a.seen = a.confirmed.clone();
        }
    }

    /// A labeled message on `subject` with `labels`; `redelivered` when
    /// the sender sent it again (requestOld, a gap) rather than on its
    /// subject. The first message of an unknown sender is delivered
    /// uncertified, with REGISTRATION.DISCOVERY and a registration request;
    /// a certified one that skips numbers asks the sender for the missing
    /// ones.
    pub fn labeled(
        &mut self,
        labels: &CmLabels,
        subject: &str,
        redelivered: bool,
        now_ms: u64,
    ) -> (Inbound, Vec<ListenerOut>) {
        let seq = labels.sequence;
        let key = (labels.sender.clone(), subject.to_string());
        let Some(a) = self.agreements.get_mut(&key) else {
            if redelivered {
                // The acceptance comes before redeliveries: without one
                // this is a stale redelivery.
                return (Inbound::Duplicate, Vec::new());
            }
            self.agreements.insert(
                key,
                Agreement::new(AgreementState::Requested {
                    at_ms: now_ms,
                    attempts: 1,
                }),
            );
            let out = vec![
                ListenerOut::Advisory(advisories::registration_discovery(
                    &self.name,
                    subject,
                    &labels.sender,
                )),
                ListenerOut::ToSender {
                    sender: labels.sender.clone(),
                    msg: ToSender::Register {
                        listener: self.name.clone(),
                        subject: subject.to_string(),
                    },
                },
            ];
            return (Inbound::Deliver { sequence: 0 }, out);
        };
        let AgreementState::Certified { begin } = a.state else {
            return if redelivered {
                (Inbound::Duplicate, Vec::new())
            } else {
                (Inbound::Deliver { sequence: 0 }, Vec::new())
            };
        };
        if seq < begin {
            return if redelivered {
                (Inbound::Duplicate, Vec::new())
            } else {
                (Inbound::Deliver { sequence: 0 }, Vec::new())
            };
        }
        if a.confirmed.contains(seq) {
            // The sender has not learnt of the confirmation (it restarted
            // before reading it): tell it again.
            let again = ListenerOut::ToSender {
                sender: labels.sender.clone(),
                msg: ToSender::Confirm {
                    listener: self.name.clone(),
                    subject: subject.to_string(),
                    seqno: seq,
                },
            };
            return (Inbound::Duplicate, vec![again]);
        }
        if a.seen.contains(seq) {
            return (Inbound::Duplicate, Vec::new());
        }
        let mut out = Vec::new();
        if !redelivered
            && let Some(high) = a.high
            && seq > high.saturating_add(1)
        {
            out.push(ListenerOut::ToSender {
                sender: labels.sender.clone(),
                msg: ToSender::Resend {
                    listener: self.name.clone(),
                    subject: subject.to_string(),
                    seqno_begin: high + 1,
                    seqno_end: seq - 1,
                },
            });
        }
        a.high = Some(a.high.unwrap_or(0).max(seq));
        a.seen.insert(seq);
        (Inbound::Deliver { sequence: seq }, out)
    }

    /// `sender` accepted the registration for `subject` from `begin` on:
    /// REGISTRATION.CERTIFIED when the agreement is new.
    pub fn accept(&mut self, sender: &str, subject: &str, begin: u64) -> Vec<ListenerOut> {
        let a = self
            .agreements
            .entry((sender.to_string(), subject.to_string()))
            .or_insert_with(|| Agreement::new(AgreementState::NoResponse));
        let before = begin.saturating_sub(1);
        let fresh = a.state != AgreementState::Certified { begin };
        a.state = AgreementState::Certified { begin };
        a.confirmed.raise_floor(before);
        a.seen.raise_floor(before);
        a.high = Some(a.high.unwrap_or(0).max(before));
        if !fresh {
            return Vec::new();
        }
        self.dirty = true;
        vec![ListenerOut::Advisory(advisories::registration_certified(
            &self.name, subject, sender, begin,
        ))]
    }

    /// `sender` refused certified delivery of `subject`:
    /// REGISTRATION.NOT_CERTIFIED (once).
    pub fn refuse(&mut self, sender: &str, subject: &str) -> Vec<ListenerOut> {
        let a = self
            .agreements
            .entry((sender.to_string(), subject.to_string()))
            .or_insert_with(|| Agreement::new(AgreementState::NoResponse));
        if a.state == AgreementState::Refused {
            return Vec::new();
        }
        self.dirty |= matches!(a.state, AgreementState::Certified { .. });
        a.state = AgreementState::Refused;
        vec![ListenerOut::Advisory(
            advisories::registration_not_certified(&self.name, subject, sender),
        )]
    }

    /// The program confirms message `seqno` of `subject` from `sender`
    /// ("tibrvcmEvent_ConfirmMsg()"): recorded (durably, by the caller,
    /// before the sender is told) and sent to the sender. Confirming
    /// twice sends the confirmation again.
    ///
    /// Errors: [`ConfirmError`].
    pub fn confirm(
        &mut self,
        sender: &str,
        subject: &str,
        seqno: u64,
    ) -> Result<Vec<ListenerOut>, ConfirmError> {
        let a = self
            .agreements
            .get_mut(&(sender.to_string(), subject.to_string()))
            .ok_or(ConfirmError::NotCertified)?;
        let AgreementState::Certified { begin } = a.state else {
            return Err(ConfirmError::NotCertified);
        };
        if seqno == 0 || seqno < begin {
            return Err(ConfirmError::NotCertified);
        }
        if !a.seen.contains(seqno) && !a.confirmed.contains(seqno) {
            return Err(ConfirmError::NotDelivered);
        }
        self.dirty |= a.confirmed.insert(seqno);
        Ok(vec![ListenerOut::ToSender {
            sender: sender.to_string(),
            msg: ToSender::Confirm {
                listener: self.name.clone(),
                subject: subject.to_string(),
                seqno,
            },
        }])
    }

    /// Registration requests not answered in [`REGISTRATION_RETRY_MS`]:
    /// sent again, up to [`REGISTRATION_ATTEMPTS`] in all, then
    /// REGISTRATION.NO_RESPONSE and no more requests.
    pub fn tick(&mut self, now_ms: u64) -> Vec<ListenerOut> {
        let mut out = Vec::new();
        for ((sender, subject), a) in &mut self.agreements {
            let AgreementState::Requested { at_ms, attempts } = a.state else {
                continue;
            };
            if now_ms.saturating_sub(at_ms) < REGISTRATION_RETRY_MS {
                continue;
            }
            if attempts < REGISTRATION_ATTEMPTS {
                a.state = AgreementState::Requested {
                    at_ms: now_ms,
                    attempts: attempts + 1,
                };
                out.push(ListenerOut::ToSender {
                    sender: sender.clone(),
                    msg: ToSender::Register {
                        listener: self.name.clone(),
                        subject: subject.clone(),
                    },
                });
            } else {
                a.state = AgreementState::NoResponse;
                out.push(ListenerOut::Advisory(advisories::registration_no_response(
                    &self.name, subject, sender,
                )));
            }
        }
        out
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn labels(sender: &str, sequence: u64) -> CmLabels {
        CmLabels {
            sender: sender.into(),
            sequence,
            time_limit: 0.0,
        }
    }

    fn subjects(out: &[ListenerOut]) -> Vec<String> {
        out.iter()
            .map(|o| match o {
                ListenerOut::Advisory(a) => a.subject(),
                ListenerOut::ToSender { sender, msg } => msg.to_envelope(sender).subject,
            })
            .collect()
    }

    #[test]
    fn discovery_delivers_the_first_message_uncertified_and_asks_to_register() {
        // "Certified Message Delivery" (discovery): the first labeled
        // message from an unknown sender is delivered with sequence 0, the
        // sender recorded and asked for registration.
        let mut l = ListenerLedger::new("L");
        let (inb, out) = l.labeled(&labels("S", 1), "A", false, 0);
        assert_eq!(inb, Inbound::Deliver { sequence: 0 });
        assert_eq!(
            subjects(&out),
            ["_RV.INFO.RVCM.REGISTRATION.DISCOVERY.A", "_RVCM.SENDER.S"]
        );
        // More messages before the answer: still uncertified, no new request.
        let (inb, out) = l.labeled(&labels("S", 2), "A", false, 10);
        assert_eq!(inb, Inbound::Deliver { sequence: 0 });
        assert!(out.is_empty());
        let out = l.accept("S", "A", 3);
        assert_eq!(subjects(&out), ["_RV.INFO.RVCM.REGISTRATION.CERTIFIED.A"]);
        assert!(l.take_dirty());
        let (inb, out) = l.labeled(&labels("S", 3), "A", false, 20);
        assert_eq!(inb, Inbound::Deliver { sequence: 3 });
        assert!(out.is_empty());
    }

    #[test]
    fn duplicates_are_dropped_and_confirmed_ones_reconfirmed() {
        let mut l = ListenerLedger::new("L");
        l.accept("S", "A", 1);
        assert_eq!(
            l.labeled(&labels("S", 1), "A", false, 0).0,
            Inbound::Deliver { sequence: 1 }
        );
        assert_eq!(
            l.labeled(&labels("S", 1), "A", true, 0).0,
            Inbound::Duplicate
        );
        l.confirm("S", "A", 1).unwrap();
        let (inb, out) = l.labeled(&labels("S", 1), "A", true, 0);
        assert_eq!(inb, Inbound::Duplicate);
        assert_eq!(subjects(&out), ["_RVCM.SENDER.S"]);
    }

    #[test]
    fn a_gap_asks_the_sender_for_the_missing_numbers() {
        let mut l = ListenerLedger::new("L");
        l.accept("S", "A", 1);
        l.labeled(&labels("S", 1), "A", false, 0);
        let (inb, out) = l.labeled(&labels("S", 4), "A", false, 0);
        assert_eq!(inb, Inbound::Deliver { sequence: 4 });
        let ListenerOut::ToSender { msg, .. } = &out[0] else {
            panic!("{out:?}")
        };
        assert_eq!(
            *msg,
            ToSender::Resend {
                listener: "L".into(),
                subject: "A".into(),
                seqno_begin: 2,
                seqno_end: 3
            }
        );
        // The redelivered ones come in without asking again.
        let (inb, out) = l.labeled(&labels("S", 2), "A", true, 0);
        assert_eq!((inb, out.len()), (Inbound::Deliver { sequence: 2 }, 0));
    }

    #[test]
    fn confirmation_needs_a_certified_delivered_message() {
        // "tibrvcmEvent_ConfirmMsg()": an unregistered listener cannot
        // confirm (TIBRV_NOT_PERMITTED).
        let mut l = ListenerLedger::new("L");
        l.labeled(&labels("S", 1), "A", false, 0);
        assert_eq!(l.confirm("S", "A", 1), Err(ConfirmError::NotCertified));
        assert_eq!(l.confirm("X", "A", 1), Err(ConfirmError::NotCertified));
        l.accept("S", "A", 2);
        assert_eq!(l.confirm("S", "A", 1), Err(ConfirmError::NotCertified));
        assert_eq!(l.confirm("S", "A", 2), Err(ConfirmError::NotDelivered));
        l.labeled(&labels("S", 2), "A", false, 0);
        assert_eq!(l.confirm("S", "A", 2).unwrap().len(), 1);
        assert!(l.take_dirty());
        assert_eq!(
            l.confirm("S", "A", 2).unwrap().len(),
            1,
            "again: sent again"
        );
        assert!(!l.take_dirty(), "nothing new to store");
    }

    #[test]
    fn a_new_session_hands_over_unconfirmed_messages_again() {
        let mut l = ListenerLedger::new("L");
        l.accept("S", "A", 1);
        for n in 1..=3 {
            l.labeled(&labels("S", n), "A", false, 0);
        }
        l.confirm("S", "A", 2).unwrap();
        l.new_session();
        let got: Vec<Inbound> = (1..=3)
            .map(|n| l.labeled(&labels("S", n), "A", true, 0).0)
            .collect();
        assert_eq!(
            got,
            [
                Inbound::Deliver { sequence: 1 },
                Inbound::Duplicate,
                Inbound::Deliver { sequence: 3 }
            ]
        );
    }

    #[test]
    fn the_stored_ledger_keeps_certified_agreements_and_confirmations() {
        let mut l = ListenerLedger::new("L");
        l.accept("S", "A", 5);
        l.labeled(&labels("S", 5), "A", false, 0);
        l.labeled(&labels("S", 6), "A", false, 0);
        l.confirm("S", "A", 6).unwrap();
        l.labeled(&labels("T", 1), "B", false, 0);
        let stored = l.stored();
        assert_eq!(stored.len(), 1, "only certified agreements");
        assert_eq!(stored[0].begin, 5);
        assert_eq!(stored[0].confirmed, SeqSet::new(4, [6]));
        let mut r = ListenerLedger::restore("L", stored);
        assert_eq!(
            r.labeled(&labels("S", 6), "A", true, 0).0,
            Inbound::Duplicate
        );
        assert_eq!(
            r.labeled(&labels("S", 5), "A", true, 0).0,
            Inbound::Deliver { sequence: 5 }
        );
    }

    #[test]
    fn refusal_and_silence_leave_delivery_uncertified() {
        let mut l = ListenerLedger::new("L");
        l.labeled(&labels("S", 1), "A", false, 0);
        let out = l.refuse("S", "A");
        assert_eq!(
            subjects(&out),
            ["_RV.WARN.RVCM.REGISTRATION.NOT_CERTIFIED.A"]
        );
        assert_eq!(
            l.labeled(&labels("S", 2), "A", false, 0).0,
            Inbound::Deliver { sequence: 0 }
        );
        // No answer: retried every REGISTRATION_RETRY_MS, then NO_RESPONSE.
        l.labeled(&labels("Q", 1), "B", false, 0);
        assert!(l.tick(REGISTRATION_RETRY_MS - 1).is_empty());
        assert_eq!(subjects(&l.tick(REGISTRATION_RETRY_MS)), ["_RVCM.SENDER.Q"]);
        assert_eq!(
            subjects(&l.tick(2 * REGISTRATION_RETRY_MS)),
            ["_RVCM.SENDER.Q"]
        );
        assert_eq!(
            subjects(&l.tick(3 * REGISTRATION_RETRY_MS)),
            ["_RV.WARN.RVCM.REGISTRATION.NO_RESPONSE.B"]
        );
        assert!(l.tick(10 * REGISTRATION_RETRY_MS).is_empty());
    }
}

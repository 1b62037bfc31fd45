//! The state of one MQTT session (MQTT 5.0 4.1 "Session State"; 3.1.1
//! 4.1): the device's subscriptions, and which messages were handed out
//! and not acknowledged when its last connection ended (to be sent again
//! with DUP and their original Packet Identifiers, 5.0 4.4). The messages
//! themselves are not session state here: they wait on the device's
//! queues whether a session exists or not (docs/mqtt.md "Sessions").

use super::names::{self, Refusal};
use crate::mqi::Position;
use mqgate_codecs::mqtt::{QoS, ReasonCode, SubscriptionOptions};
use std::collections::HashMap;

/// One subscription.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Subscription {
    /// The Topic Filter as the device sent it.
    pub filter: String,
    /// The filter over the device's queue names ([`names::subscription`]).
    pub local: String,
    /// The QoS granted (always 1: docs/mqtt.md "Quality of service").
    pub qos: QoS,
}

/// A session.
#[derive(Clone, Debug, Default)]
pub struct Session {
    pub subscriptions: Vec<Subscription>,
    /// (device queue, position of the message) -> the Packet Identifier
    /// it was last sent with, for messages sent and not acknowledged.
    pub resend: HashMap<(String, Position), u16>,
}

impl Session {
    /// SUBSCRIBE of one Topic Filter by device `device` (5.0 3.8.4): a
    /// filter subscribed again replaces its subscription; a new one past
    /// `max` subscriptions is refused with 0x97 Quota exceeded. QoS 1 and
    /// 2 are granted QoS 1; QoS 0 is refused with 0x83 Implementation
    /// specific error (docs/mqtt.md: at-most-once would remove a message
    /// from its store before the device has it). Returns the granted QoS.
    pub fn subscribe(
        &mut self,
        device: &str,
        filter: &str,
        opts: SubscriptionOptions,
        max: usize,
    ) -> Result<QoS, Refusal> {
        let local = names::subscription(filter, device)?;
        if opts.qos == QoS::AtMostOnce {
            return Err(Refusal {
                code: ReasonCode::IMPLEMENTATION_SPECIFIC_ERROR,
                message: format!(
                    "topic filter {filter:?}: QoS 0 is not offered; subscribe at QoS 1 (store-and-forward delivers each message until the device acknowledges it)"
                ),
            });
        }
        let sub = Subscription {
            filter: filter.to_string(),
            local,
            qos: QoS::AtLeastOnce,
        };
        if let Some(s) = self.subscriptions.iter_mut().find(|s| s.filter == filter) {
            *s = sub;
        } else if self.subscriptions.len() >= max {
            return Err(Refusal {
                code: ReasonCode::QUOTA_EXCEEDED,
                message: format!(
                    "topic filter {filter:?}: a session holds at most {max} subscriptions (mqtt.max_subscriptions)"
                ),
            });
        } else {
            self.subscriptions.push(sub);
        }
        Ok(QoS::AtLeastOnce)
    }

    /// UNSUBSCRIBE of one Topic Filter (5.0 3.10.4, 3.11.3): 0x00 Success,
    /// or 0x11 No subscription existed.
    pub fn unsubscribe(&mut self, filter: &str) -> ReasonCode {
        let before = self.subscriptions.len();
        self.subscriptions.retain(|s| s.filter != filter);
        if self.subscriptions.len() < before {
            ReasonCode::SUCCESS
        } else {
            ReasonCode::NO_SUBSCRIPTION_EXISTED
        }
    }

    /// True when a subscription covers device queue `queue`.
    pub fn covers(&self, queue: &str) -> bool {
        self.subscriptions
            .iter()
            .any(|s| names::covers(&s.local, queue))
    }

    /// The device queues the subscriptions name without wildcards.
    pub fn literal_queues(&self) -> impl Iterator<Item = &str> {
        self.subscriptions
            .iter()
            .filter(|s| !s.local.contains(['+', '#']))
            .map(|s| s.local.as_str())
    }

    /// True when a subscription has a wildcard (the device's new queues
    /// must be watched).
    pub fn has_wildcard(&self) -> bool {
        self.subscriptions
            .iter()
            .any(|s| s.local.contains(['+', '#']))
    }
}

/// The Packet Identifiers of a connection's QoS 1 messages awaiting their
/// PUBACK (5.0 2.2.1: unique among those in flight).
#[derive(Debug, Default)]
pub struct PacketIds {
    next: u16,
}

impl PacketIds {
    /// The next identifier (1-65535, in turn) that `in_use` does not
    /// hold; `None` when all 65,535 are in use.
    pub fn next(&mut self, in_use: impl Fn(u16) -> bool) -> Option<u16> {
        for _ in 0..u16::MAX {
            self.next = if self.next == u16::MAX {
                1
            } else {
                self.next + 1
            };
            if !in_use(self.next) {
                return Some(self.next);
            }
        }
        None
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn subscriptions_are_granted_qos_1_replaced_and_limited() {
        let mut s = Session::default();
        let q1 = SubscriptionOptions::qos(QoS::AtLeastOnce);
        assert_eq!(s.subscribe("DEV1", "INBOX", q1, 2), Ok(QoS::AtLeastOnce));
        // QoS 2 asked: QoS 1 granted (5.0 3.9.3: the server may grant less).
        let q2 = SubscriptionOptions::qos(QoS::ExactlyOnce);
        assert_eq!(s.subscribe("DEV1", "INBOX", q2, 2), Ok(QoS::AtLeastOnce));
        assert_eq!(
            s.subscriptions.len(),
            1,
            "the same filter replaces its subscription"
        );
        let q0 = SubscriptionOptions::qos(QoS::AtMostOnce);
        assert_eq!(
            s.subscribe("DEV1", "A", q0, 2).unwrap_err().code,
            ReasonCode::IMPLEMENTATION_SPECIFIC_ERROR
        );
        assert_eq!(s.subscribe("DEV1", "ORDERS/#", q1, 2), Ok(QoS::AtLeastOnce));
        assert_eq!(
            s.subscribe("DEV1", "B", q1, 2).unwrap_err().code,
            ReasonCode::QUOTA_EXCEEDED
        );
        assert!(s.covers("INBOX") && s.covers("ORDERS/EU") && !s.covers("B"));
        assert_eq!(s.literal_queues().collect::<Vec<_>>(), vec!["INBOX"]);
        assert!(s.has_wildcard());
        assert_eq!(s.unsubscribe("ORDERS/#"), ReasonCode::SUCCESS);
        assert_eq!(
            s.unsubscribe("ORDERS/#"),
            ReasonCode::NO_SUBSCRIPTION_EXISTED
        );
        assert!(!s.has_wildcard());
    }

    #[test]
    fn packet_ids_skip_those_in_use_and_wrap() {
        let mut ids = PacketIds::default();
        assert_eq!(ids.next(|_| false), Some(1));
        assert_eq!(ids.next(|id| id == 2), Some(3));
        ids.next = u16::MAX - 1;
        assert_eq!(ids.next(|_| false), Some(u16::MAX));
        assert_eq!(
            ids.next(|_| false),
            Some(1),
            "0 is never an identifier (2.2.1)"
        );
        assert_eq!(ids.next(|_| true), None);
    }
}

//! A passive monitor of a group (TIBCO Rendezvous C Reference,
//! "tibrvftMonitor_Create()", "tibrvftMonitorCallback"): it only listens,
//! counts the members whose heartbeats say they are active, and reports
//! the count each time it changes — a new active heartbeat, an active
//! member silent for the lost interval, one that deactivates or leaves.
//! Members do not know it is there. Synchronous, every call takes `now`.

use std::collections::BTreeMap;
use std::time::{Duration, Instant};

use super::heartbeat::{Heartbeat, Kind};
use super::member::MAX_PEERS;

/// An active member, as last heard.
#[derive(Clone, Copy, Debug)]
struct Seen {
    last_heard: Instant,
    /// Its own activation interval: the lost interval when none is given.
    activation: Duration,
}

/// A monitor's state.
#[derive(Debug)]
pub struct MonitorCore {
    lost: Option<Duration>,
    active: BTreeMap<String, Seen>,
    reported: usize,
}

impl MonitorCore {
    /// A monitor that takes an active member for lost when it has been
    /// silent for `lost` (positive; checked by the caller), or, with
    /// `None`, for the activation interval its heartbeats announce
    /// (**mqgate**). It starts at 0 active members, not reported.
    pub fn new(lost: Option<Duration>) -> MonitorCore {
        MonitorCore {
            lost,
            active: BTreeMap::new(),
            reported: 0,
        }
    }

    /// Active members now.
    pub fn active(&self) -> usize {
        self.active.len()
    }

    fn lost_after(&self, seen: &Seen) -> Duration {
        self.lost.unwrap_or(seen.activation)
    }

    /// A protocol message heard at `now`; the new active count when it
    /// changed.
    pub fn on_heartbeat(&mut self, hb: &Heartbeat, now: Instant) -> Option<usize> {
        if hb.kind == Kind::Heartbeat && hb.active {
            if self.active.contains_key(&hb.member) || self.active.len() < MAX_PEERS {
                self.active.insert(
                    hb.member.clone(),
                    Seen {
                        last_heard: now,
                        activation: hb.activation,
                    },
                );
            }
        } else {
            self.active.remove(&hb.member);
        }
        self.on_timer(now)
    }

    /// The clock reached `now`: active members silent for the lost
    /// interval go. The new active count when it changed.
    pub fn on_timer(&mut self, now: Instant) -> Option<usize> {
        let lost = self.lost;
        self.active
            .retain(|_, s| now < s.last_heard + lost.unwrap_or(s.activation));
        let n = self.active.len();
        (n != self.reported).then(|| {
            self.reported = n;
            n
        })
    }

    /// When [`MonitorCore::on_timer`] must be called next (after `now`):
    /// when the first active member would be lost; `None` with none
    /// active.
    pub fn next_deadline(&self, now: Instant) -> Option<Instant> {
        self.active
            .values()
            .map(|s| s.last_heard + self.lost_after(s))
            .filter(|t| *t > now)
            .min()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn hb(member: &str, active: bool, kind: Kind) -> Heartbeat {
        Heartbeat {
            kind,
            member: member.into(),
            weight: 10,
            active_goal: 2,
            heartbeat: Duration::from_millis(200),
            preparation: Duration::ZERO,
            activation: Duration::from_secs(1),
            joined: 1,
            active,
        }
    }

    #[test]
    fn counts_active_heartbeats_and_reports_changes_only() {
        // "tibrvftMonitor_Create()": a monitor event whenever the number of
        // active members changes: a new heartbeat, a heartbeat silent for
        // lostInterval, a deactivation or termination.
        let t0 = Instant::now();
        let ms = |n| t0 + Duration::from_millis(n);
        let mut m = MonitorCore::new(Some(Duration::from_millis(500)));
        assert_eq!(
            m.on_heartbeat(&hb("B", false, Kind::Heartbeat), ms(0)),
            None
        );
        assert_eq!(
            m.on_heartbeat(&hb("A", true, Kind::Heartbeat), ms(10)),
            Some(1)
        );
        assert_eq!(
            m.on_heartbeat(&hb("A", true, Kind::Heartbeat), ms(200)),
            None
        );
        assert_eq!(
            m.on_heartbeat(&hb("C", true, Kind::Heartbeat), ms(250)),
            Some(2)
        );
        // C deactivates: its heartbeat says inactive.
        assert_eq!(
            m.on_heartbeat(&hb("C", false, Kind::Heartbeat), ms(300)),
            Some(1)
        );
        // A silent from 200 ms: lost at 700 ms, not before.
        assert_eq!(m.next_deadline(ms(300)), Some(ms(700)));
        assert_eq!(m.on_timer(ms(699)), None);
        assert_eq!(m.on_timer(ms(700)), Some(0));
        assert_eq!(m.next_deadline(ms(700)), None);
        // A LEAVE of an active member counts at once.
        m.on_heartbeat(&hb("D", true, Kind::Heartbeat), ms(800));
        assert_eq!(
            m.on_heartbeat(&hb("D", false, Kind::Leave), ms(810)),
            Some(0)
        );
    }

    #[test]
    fn without_a_lost_interval_each_members_activation_interval_counts() {
        let t0 = Instant::now();
        let mut m = MonitorCore::new(None);
        assert_eq!(m.on_heartbeat(&hb("A", true, Kind::Heartbeat), t0), Some(1));
        assert_eq!(m.next_deadline(t0), Some(t0 + Duration::from_secs(1)));
        assert_eq!(m.on_timer(t0 + Duration::from_secs(1)), Some(0));
    }
}

//! One member's view of its group and the decisions it makes from it: a
//! synchronous state machine with no clock of its own (every call takes
//! `now`), unit-tested against a simulated clock (docs/rendezvous.md
//! "Fault tolerance", "Ranks and actions").
//!
//! As in Rendezvous there is no coordinator: each member ranks the members
//! it hears ("Rank and Weight": highest weight first; **mqgate**: equal
//! weights by seniority, the earlier join first, then the lower member id)
//! and acts on its own rank:
//!
//! - active, and at least active-goal active members outrank it:
//!   DEACTIVATE;
//! - inactive with a rank within the active goal, and joined at least an
//!   activation interval ago: ACTIVATE (before that, PREPARE_TO_ACTIVATE
//!   once the preparation interval since joining has passed);
//! - the ranking inactive member (rank active goal + 1): PREPARE_TO_ACTIVATE
//!   once a member ranked above it has been silent for the preparation
//!   interval;
//! - a member silent for the activation interval is lost (ranks are
//!   recomputed without it); a LEAVE removes it at once.

use std::cmp::Reverse;
use std::collections::BTreeMap;
use std::time::{Duration, Instant};

use super::action::Action;
use super::advisories::{self, Mismatch};
use super::error::FtError;
use super::heartbeat::{Heartbeat, Kind};
use super::params::FtParams;
use crate::rv::advisory::Advisory;

/// Most other members a view holds; heartbeats of further members are
/// ignored (a group that large is no fault tolerance group).
pub const MAX_PEERS: usize = 4096;

/// What the member must do after a call.
#[derive(Clone, Debug, PartialEq)]
pub enum Output {
    /// Publish this heartbeat (or LEAVE) on `_RVFT.<group>`.
    Publish(Heartbeat),
    /// Give the program this action.
    Action(Action),
    /// Present this advisory.
    Advisory(Advisory),
    /// The member's rank, the group's size or the active count changed.
    Status(Status),
}

/// Where the member stands in its view of the group.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Status {
    /// Its rank, from 1.
    pub rank: usize,
    /// Members in the view, this one included.
    pub members: usize,
    /// Whether it is active.
    pub active: bool,
    /// Active members in the view, this one included.
    pub active_members: usize,
    /// Its weight.
    pub weight: u16,
}

/// A member of the view, for status answers.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Ranked {
    /// Its rank, from 1.
    pub rank: usize,
    /// Its id.
    pub member: String,
    /// Its weight.
    pub weight: u16,
    /// When it joined, ms since 1970.
    pub joined: u64,
    /// Whether it says it is active.
    pub active: bool,
}

/// Another member, as last heard.
#[derive(Clone, Debug)]
struct Peer {
    weight: u16,
    joined: u64,
    active: bool,
    last_heard: Instant,
    /// Mismatches presented for it ([`Mismatch::bit`]).
    presented: u8,
}

/// The order of ranks: weight (highest first), then join time (earliest
/// first), then member id.
type RankKey<'a> = (Reverse<u16>, u64, &'a str);

/// One member's state.
#[derive(Debug)]
pub struct MemberCore {
    group: String,
    id: String,
    params: FtParams,
    joined: u64,
    /// When it joined (or was disabled): it activates no earlier than an
    /// activation interval after, having heard every member by then.
    started: Instant,
    active: bool,
    peers: BTreeMap<String, Peer>,
    next_heartbeat: Instant,
    /// A PREPARE_TO_ACTIVATE was given and no ACTIVATE followed yet, nor
    /// did the silence that caused it end.
    prepared: bool,
    /// Since when it has been inactive, outranked, with too few active.
    too_few_since: Option<Instant>,
    too_few_presented: bool,
    status: Option<Status>,
}

impl MemberCore {
    /// A member `id` of `group` with `params` (checked by the caller),
    /// which joined at `joined` (ms since 1970) and `now`. Inactive; its
    /// first heartbeat is due at once ([`MemberCore::on_timer`]).
    pub fn new(group: &str, id: &str, params: FtParams, joined: u64, now: Instant) -> MemberCore {
        MemberCore {
            group: group.to_string(),
            id: id.to_string(),
            params,
            joined,
            started: now,
            active: false,
            peers: BTreeMap::new(),
            next_heartbeat: now,
            prepared: false,
            too_few_since: None,
            too_few_presented: false,
            status: None,
        }
    }

    /// Its group.
    pub fn group(&self) -> &str {
        &self.group
    }

    /// Its id.
    pub fn id(&self) -> &str {
        &self.id
    }

    /// Its parameters (the weight as it is now).
    pub fn params(&self) -> &FtParams {
        &self.params
    }

    /// When it joined, ms since 1970.
    pub fn joined(&self) -> u64 {
        self.joined
    }

    /// Whether it is active.
    pub fn is_active(&self) -> bool {
        self.active
    }

    /// The last status computed.
    pub fn status(&self) -> Option<Status> {
        self.status
    }

    fn key(&self) -> RankKey<'_> {
        (Reverse(self.params.weight), self.joined, &self.id)
    }

    /// Every member of the view, by rank.
    pub fn ranked(&self) -> Vec<Ranked> {
        let mut all: Vec<Ranked> = self
            .peers
            .iter()
            .map(|(id, p)| Ranked {
                rank: 0,
                member: id.clone(),
                weight: p.weight,
                joined: p.joined,
                active: p.active,
            })
            .collect();
        all.push(Ranked {
            rank: 0,
            member: self.id.clone(),
            weight: self.params.weight,
            joined: self.joined,
            active: self.active,
        });
        all.sort_by(|a, b| {
            (Reverse(a.weight), a.joined, &a.member).cmp(&(Reverse(b.weight), b.joined, &b.member))
        });
        for (i, r) in all.iter_mut().enumerate() {
            r.rank = i + 1;
        }
        all
    }

    /// A protocol message of `kind` for this member.
    fn message(&self, kind: Kind) -> Heartbeat {
        Heartbeat {
            kind,
            member: self.id.clone(),
            weight: self.params.weight,
            active_goal: self.params.active_goal,
            heartbeat: self.params.heartbeat,
            preparation: self.params.preparation,
            activation: self.params.activation,
            joined: self.joined,
            active: self.active && kind == Kind::Heartbeat,
        }
    }

    /// The LEAVE to publish when the member leaves the group.
    pub fn leave(&self) -> Heartbeat {
        self.message(Kind::Leave)
    }

    /// A protocol message heard on `_RVFT.<group>` at `now` (its own are
    /// ignored): a heartbeat adds or refreshes a member and presents the
    /// mismatches of its parameters (once per member), a LEAVE removes
    /// one; then the member decides again.
    pub fn on_heartbeat(&mut self, hb: &Heartbeat, now: Instant) -> Vec<Output> {
        let mut out = Vec::new();
        if hb.member == self.id {
            return out;
        }
        let mut newly_active = false;
        match hb.kind {
            Kind::Leave => {
                self.peers.remove(&hb.member);
            }
            Kind::Heartbeat => {
                if !self.peers.contains_key(&hb.member) && self.peers.len() >= MAX_PEERS {
                    return out;
                }
                let peer = self.peers.entry(hb.member.clone()).or_insert(Peer {
                    weight: hb.weight,
                    joined: hb.joined,
                    active: false,
                    last_heard: now,
                    presented: 0,
                });
                newly_active = hb.active && !peer.active;
                peer.weight = hb.weight;
                peer.joined = hb.joined;
                peer.active = hb.active;
                peer.last_heard = now;
                for m in mismatches(&self.params, hb) {
                    if peer.presented & m.bit() == 0 {
                        peer.presented |= m.bit();
                        out.push(Output::Advisory(advisories::param_mismatch(
                            &self.group,
                            &self.id,
                            &hb.member,
                            m,
                        )));
                    }
                }
            }
        }
        self.evaluate(now, &mut out);
        let active = self.active_members();
        if newly_active && self.active && active > usize::from(self.params.active_goal) {
            out.push(Output::Advisory(advisories::too_many_active(
                &self.group,
                &self.id,
                active,
                self.params.active_goal,
            )));
        }
        out
    }

    /// The clock reached `now`: lost members go, timers that are due fire,
    /// the heartbeat goes out when due.
    pub fn on_timer(&mut self, now: Instant) -> Vec<Output> {
        let mut out = Vec::new();
        self.evaluate(now, &mut out);
        out
    }

    /// A new weight, announced at once ("Rank and Weight": weight may
    /// change at run time; ranks are recomputed).
    ///
    /// Errors: [`FtError::WeightZero`].
    pub fn set_weight(&mut self, weight: u16, now: Instant) -> Result<Vec<Output>, FtError> {
        if weight == 0 {
            return Err(FtError::WeightZero);
        }
        self.params.weight = weight;
        self.next_heartbeat = now;
        Ok(self.on_timer(now))
    }

    /// mqgate cannot keep the member working (its heartbeat could not be
    /// published): weight 0, DEACTIVATE if active, DISABLING_MEMBER
    /// ("Disabling a Member"). It may activate again as a last resort, no
    /// sooner than an activation interval later.
    pub fn disable(&mut self, now: Instant) -> Vec<Output> {
        let mut out = vec![Output::Advisory(advisories::disabling_member(
            &self.group,
            &self.id,
        ))];
        self.params.weight = 0;
        if self.active {
            self.active = false;
            out.push(Output::Action(Action::Deactivate));
        }
        self.started = now;
        self.prepared = false;
        self.next_heartbeat = now;
        self.evaluate(now, &mut out);
        out
    }

    /// Active members in the view, this one included.
    fn active_members(&self) -> usize {
        self.peers.values().filter(|p| p.active).count() + usize::from(self.active)
    }

    /// Removes lost members, decides, and heartbeats when due.
    fn evaluate(&mut self, now: Instant, out: &mut Vec<Output>) {
        let p = self.params;
        self.peers
            .retain(|_, peer| now < peer.last_heard + p.activation);
        let goal = usize::from(p.active_goal);
        let me = self.key();
        let above: Vec<&Peer> = self
            .peers
            .iter()
            .filter(|(id, peer)| (Reverse(peer.weight), peer.joined, id.as_str()) < me)
            .map(|(_, peer)| peer)
            .collect();
        let rank = above.len() + 1;
        let active_above = above.iter().filter(|peer| peer.active).count();
        let silent_above = !p.preparation.is_zero()
            && above
                .iter()
                .any(|peer| now >= peer.last_heard + p.preparation);
        let startup_over = now >= self.started + p.activation;
        let mut changed = false;
        if self.active {
            if active_above >= goal {
                self.active = false;
                changed = true;
                out.push(Output::Action(Action::Deactivate));
            }
        } else if rank <= goal {
            if startup_over {
                self.active = true;
                self.prepared = false;
                changed = true;
                out.push(Output::Action(Action::Activate));
            } else if !p.preparation.is_zero()
                && !self.prepared
                && now >= self.started + p.preparation
            {
                self.prepared = true;
                out.push(Output::Action(Action::PrepareToActivate));
            }
        } else if rank == goal + 1 && silent_above {
            if !self.prepared {
                self.prepared = true;
                out.push(Output::Action(Action::PrepareToActivate));
            }
        } else {
            self.prepared = false;
        }
        let active = self.active_members();
        if !self.active && rank > goal && startup_over && active < goal {
            let since = *self.too_few_since.get_or_insert(now);
            if now >= since + p.activation && !self.too_few_presented {
                self.too_few_presented = true;
                out.push(Output::Advisory(advisories::too_few_active(
                    &self.group,
                    &self.id,
                    active,
                    p.active_goal,
                )));
            }
        } else {
            self.too_few_since = None;
            self.too_few_presented = false;
        }
        let status = Status {
            rank,
            members: self.peers.len() + 1,
            active: self.active,
            active_members: active,
            weight: p.weight,
        };
        if self.status != Some(status) {
            self.status = Some(status);
            out.push(Output::Status(status));
        }
        if changed {
            self.next_heartbeat = now;
        }
        if now >= self.next_heartbeat {
            out.push(Output::Publish(self.message(Kind::Heartbeat)));
            self.next_heartbeat = now + p.heartbeat;
        }
    }

    /// When [`MemberCore::on_timer`] must be called next: the earliest of
    /// the next heartbeat, the member's own start timers, each member's
    /// preparation and activation deadlines and the TOO_FEW_ACTIVE delay,
    /// after `now`.
    pub fn next_deadline(&self, now: Instant) -> Instant {
        let p = &self.params;
        let mut times: Vec<Instant> = vec![self.next_heartbeat, self.started + p.activation];
        let prep = (!p.preparation.is_zero()).then_some(p.preparation);
        if let Some(prep) = prep {
            times.push(self.started + prep);
        }
        if let Some(since) = self.too_few_since {
            times.push(since + p.activation);
        }
        for peer in self.peers.values() {
            times.push(peer.last_heard + p.activation);
            if let Some(prep) = prep {
                times.push(peer.last_heard + prep);
            }
        }
        times
            .into_iter()
            .filter(|t| *t > now)
            .min()
            .unwrap_or(now + p.heartbeat.max(Duration::from_millis(1)))
    }
}

/// The parameters of `other` that differ from `mine` ("PARAM_MISMATCH").
fn mismatches(mine: &FtParams, other: &Heartbeat) -> Vec<Mismatch> {
    let mut m = Vec::new();
    if other.active_goal != mine.active_goal {
        m.push(Mismatch::ActiveGoal);
    }
    if other.activation != mine.activation {
        m.push(Mismatch::Activation);
    }
    if other.heartbeat != mine.heartbeat {
        m.push(Mismatch::Heartbeat);
    }
    if !other.preparation.is_zero() && other.preparation <= mine.heartbeat {
        m.push(Mismatch::PreparesBeforeHeartbeat);
    }
    m
}

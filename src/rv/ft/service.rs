//! The fault tolerance members and monitors of one gateway
//! (docs/rendezvous.md "Fault tolerance"): each member is a task that
//! listens on `_RVFT.<group>`, feeds what it hears and its timers to its
//! [`MemberCore`], publishes the heartbeats and advisories the core asks
//! for and queues the actions for its program. The task only moves
//! messages; every decision is the core's.
//!
//! A member lives while its program shows signs of life: an open actions
//! stream ([`Member::open_stream`]) counts as one all the time it is open,
//! an explicit heartbeat call ([`Member::heartbeat`]) for one activation
//! interval. A stream that closes, a [`Member::leave`], or an activation
//! interval without a sign of life makes it leave the group (a LEAVE is
//! published, so the others re-rank at once). When the gateway stops, its
//! members end with the bus, without a LEAVE (the others notice the
//! silence within their activation interval).

use std::collections::{HashMap, VecDeque};
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Arc, Mutex, MutexGuard, Weak};
use std::time::{Duration, Instant, SystemTime, UNIX_EPOCH};

use mqgate_codecs::rv::msg::Envelope;
use tokio::sync::{Notify, mpsc, oneshot};

use super::action::Action;
use super::error::FtError;
use super::heartbeat::{self, Heartbeat};
use super::member::{MemberCore, Output, Ranked, Status};
use super::monitor::MonitorCore;
use super::params::{FtParams, check_group};
use crate::rv::{Bus, BusError, Listener, ListenerOptions, Origin};
use crate::tasks::{TaskGroup, Tasks};

/// Most events waiting for a member's program; the oldest go first when
/// more come (statuses are coalesced, so this takes a program that reads
/// nothing for a long time).
pub const MAX_EVENTS: usize = 1024;

/// The fault tolerance part of one gateway; clones share it.
#[derive(Clone)]
pub struct FtService(Arc<Inner>);

struct Inner {
    bus: Bus,
    tasks: Tasks,
    /// The 16 hex digits of the bus's inboxes: the first part of member ids.
    gateway: String,
    next: AtomicU64,
    /// The last join time given, ms since 1970: join times on one gateway
    /// strictly increase, so seniority there never needs the id.
    last_joined: Mutex<u64>,
    members: Mutex<HashMap<String, Arc<Shared>>>,
}

/// Something for a member's program.
#[derive(Clone, Debug, PartialEq)]
pub enum MemberEvent {
    /// An action to carry out.
    Action(Action),
    /// Its rank, the group's size or the active count changed.
    Status(Status),
    /// An advisory the member presents (also published on the bus).
    Advisory(Envelope),
}

/// A member as it stands: its parameters and its view of the group.
#[derive(Clone, Debug, PartialEq)]
pub struct MemberInfo {
    /// Its id.
    pub member: String,
    /// Its group.
    pub group: String,
    /// Its parameters, the weight as it is now.
    pub params: FtParams,
    /// When it joined, ms since 1970.
    pub joined: u64,
    /// Its status (from the join on).
    pub status: Option<Status>,
    /// The members it hears, by rank, itself included.
    pub ranks: Vec<Ranked>,
}

enum Command {
    SetWeight(u16, oneshot::Sender<Result<(), FtError>>),
    /// A sign of life, or a change of the stream: look at the deadlines again.
    Wake,
    Leave(&'static str),
}

struct Shared {
    id: String,
    group: String,
    joined: u64,
    state: Mutex<State>,
    /// Wakes the actions stream (one reader at a time).
    wake: Notify,
    commands: mpsc::UnboundedSender<Command>,
}

struct State {
    params: FtParams,
    status: Option<Status>,
    ranks: Vec<Ranked>,
    events: VecDeque<MemberEvent>,
    stream_open: bool,
    last_sign: Instant,
    /// Why the member left, once it has.
    ended: Option<&'static str>,
}

impl Shared {
    fn lock(&self) -> MutexGuard<'_, State> {
        // Updates leave the state whole before anything that could panic.
        self.state.lock().unwrap_or_else(|p| p.into_inner())
    }

    fn info(&self) -> MemberInfo {
        let s = self.lock();
        MemberInfo {
            member: self.id.clone(),
            group: self.group.clone(),
            params: s.params,
            joined: self.joined,
            status: s.status,
            ranks: s.ranks.clone(),
        }
    }

    fn push(&self, event: MemberEvent) {
        let mut s = self.lock();
        if matches!(event, MemberEvent::Status(_)) {
            s.events.retain(|e| !matches!(e, MemberEvent::Status(_)));
        }
        if s.events.len() >= MAX_EVENTS {
            s.events.pop_front();
        }
        s.events.push_back(event);
        drop(s);
        self.wake.notify_one();
    }
}

fn lock<T>(m: &Mutex<T>) -> MutexGuard<'_, T> {
    m.lock().unwrap_or_else(|p| p.into_inner())
}

fn now_ms() -> u64 {
    SystemTime::now()
        .duration_since(UNIX_EPOCH)
        .map(|d| d.as_millis() as u64)
        .unwrap_or(0)
}

impl FtService {
    /// The fault tolerance part of the gateway whose bus is `bus`; member
    /// tasks run in `tasks`' request group.
    pub(crate) fn new(bus: &Bus, tasks: &Tasks) -> FtService {
        let gateway = bus
            .inbox_prefix()
            .trim_start_matches("_INBOX.")
            .trim_end_matches('.')
            .to_string();
        FtService(Arc::new(Inner {
            bus: bus.clone(),
            tasks: tasks.clone(),
            gateway,
            next: AtomicU64::new(1),
            last_joined: Mutex::new(0),
            members: Mutex::new(HashMap::new()),
        }))
    }

    /// Joins `group` with `params` (TIBCO Rendezvous C Reference,
    /// "tibrvftMember_Create()"): checks both, listens on `_RVFT.<group>`
    /// and starts the member's task, which heartbeats at once. The new
    /// member is inactive; it lives an activation interval unless its
    /// program shows a sign of life.
    ///
    /// Errors: [`FtError`] for the group name or a parameter;
    /// [`FtError::Closed`] when the gateway is stopping.
    pub fn join(&self, group: &str, params: FtParams) -> Result<Member, FtError> {
        check_group(group)?;
        params.check()?;
        let n = self.0.next.fetch_add(1, Ordering::Relaxed);
        let id = format!("{}-{n}", self.0.gateway);
        let listener = self
            .0
            .bus
            .listen(
                &[heartbeat::subject(group).as_str()],
                ListenerOptions {
                    name: format!("fault tolerance member {id} of {group}"),
                    ..ListenerOptions::default()
                },
            )
            .map_err(|e| match e {
                BusError::Subject { error, .. } => FtError::Group {
                    name: group.to_string(),
                    error,
                },
                _ => FtError::Closed,
            })?;
        let joined = {
            let mut last = lock(&self.0.last_joined);
            *last = now_ms().max(*last + 1);
            *last
        };
        let now = Instant::now();
        let mut core = MemberCore::new(group, &id, params, joined, now);
        // The first decision (a status, the first heartbeat) is made here,
        // so that the answer to the join shows the member's rank; the task
        // carries it out.
        let first = core.on_timer(now);
        let (tx, rx) = mpsc::unbounded_channel();
        let shared = Arc::new(Shared {
            id: id.clone(),
            group: group.to_string(),
            joined,
            state: Mutex::new(State {
                params,
                status: core.status(),
                ranks: core.ranked(),
                events: VecDeque::new(),
                stream_open: false,
                last_sign: now,
                ended: None,
            }),
            wake: Notify::new(),
            commands: tx,
        });
        lock(&self.0.members).insert(id.clone(), Arc::clone(&shared));
        tracing::info!(group, member = %id, weight = params.weight, active_goal = params.active_goal, "fault tolerance member joined");
        let task = MemberTask {
            shared: Arc::clone(&shared),
            core,
            listener,
            bus: self.0.bus.clone(),
            service: Arc::downgrade(&self.0),
        };
        self.0.tasks.spawn(TaskGroup::Requests, task.run(first, rx));
        Ok(Member(shared))
    }

    /// The member `id` of this gateway.
    ///
    /// Errors: [`FtError::UnknownMember`].
    pub fn member(&self, id: &str) -> Result<Member, FtError> {
        lock(&self.0.members)
            .get(id)
            .map(|s| Member(Arc::clone(s)))
            .ok_or_else(|| FtError::UnknownMember(id.to_string()))
    }

    /// Members of this gateway now.
    pub fn members(&self) -> usize {
        lock(&self.0.members).len()
    }

    /// A passive monitor of `group` ("tibrvftMonitor_Create()"): an active
    /// member is lost when silent for `lost`, or, with `None`, for the
    /// activation interval it announces.
    ///
    /// Errors: [`FtError`] for the group name; [`FtError::Closed`].
    pub fn monitor(&self, group: &str, lost: Option<Duration>) -> Result<Monitor, FtError> {
        check_group(group)?;
        let listener = self
            .0
            .bus
            .listen(
                &[heartbeat::subject(group).as_str()],
                ListenerOptions {
                    name: format!("fault tolerance monitor of {group}"),
                    ..ListenerOptions::default()
                },
            )
            .map_err(|_| FtError::Closed)?;
        Ok(Monitor {
            group: group.to_string(),
            listener,
            core: MonitorCore::new(lost),
        })
    }
}

/// A member of this gateway, as its program's calls reach it.
#[derive(Clone)]
pub struct Member(Arc<Shared>);

impl Member {
    /// Its id.
    pub fn id(&self) -> &str {
        &self.0.id
    }

    /// Its group.
    pub fn group(&self) -> &str {
        &self.0.group
    }

    /// Its parameters and view, now.
    pub fn info(&self) -> MemberInfo {
        self.0.info()
    }

    fn check_live(&self) -> Result<(), FtError> {
        if self.0.lock().ended.is_some() {
            return Err(FtError::UnknownMember(self.0.id.clone()));
        }
        Ok(())
    }

    /// A sign of life from its program ("heartbeats by explicit calls"):
    /// the member lives another activation interval. Returns its state and
    /// the events waiting for it (which are then gone).
    ///
    /// Errors: [`FtError::UnknownMember`] once it has left.
    pub fn heartbeat(&self) -> Result<(MemberInfo, Vec<MemberEvent>), FtError> {
        let events = {
            let mut s = self.0.lock();
            if s.ended.is_some() {
                return Err(FtError::UnknownMember(self.0.id.clone()));
            }
            s.last_sign = Instant::now();
            s.events.drain(..).collect()
        };
        let _ = self.0.commands.send(Command::Wake);
        Ok((self.0.info(), events))
    }

    /// A new weight, 1 to 65535 ("tibrvftMember_SetWeight()"), announced
    /// to the group at once.
    ///
    /// Errors: [`FtError::WeightZero`], [`FtError::UnknownMember`].
    pub async fn set_weight(&self, weight: u16) -> Result<MemberInfo, FtError> {
        self.check_live()?;
        let (tx, rx) = oneshot::channel();
        self.0
            .commands
            .send(Command::SetWeight(weight, tx))
            .map_err(|_| FtError::UnknownMember(self.0.id.clone()))?;
        rx.await
            .map_err(|_| FtError::UnknownMember(self.0.id.clone()))??;
        Ok(self.0.info())
    }

    /// Leaves the group ("tibrvftMember_Destroy()"): a LEAVE goes out and
    /// the member is gone.
    ///
    /// Errors: [`FtError::UnknownMember`] when it had left already.
    pub fn leave(&self) -> Result<(), FtError> {
        self.check_live()?;
        self.0
            .commands
            .send(Command::Leave("its program left the group"))
            .map_err(|_| FtError::UnknownMember(self.0.id.clone()))
    }

    /// Opens its actions stream: the member lives while the stream does,
    /// and leaves when it is dropped.
    ///
    /// Errors: [`FtError::StreamOpen`] when one is open already,
    /// [`FtError::UnknownMember`] once it has left.
    pub fn open_stream(&self) -> Result<ActionStream, FtError> {
        {
            let mut s = self.0.lock();
            if s.ended.is_some() {
                return Err(FtError::UnknownMember(self.0.id.clone()));
            }
            if s.stream_open {
                return Err(FtError::StreamOpen(self.0.id.clone()));
            }
            s.stream_open = true;
        }
        let _ = self.0.commands.send(Command::Wake);
        Ok(ActionStream {
            member: Arc::clone(&self.0),
        })
    }
}

/// A member's actions stream; dropping it makes the member leave.
pub struct ActionStream {
    member: Arc<Shared>,
}

impl ActionStream {
    /// The next event, waiting for one; `Err(why)` once the member has
    /// left and every event was taken.
    pub async fn next(&mut self) -> Result<MemberEvent, &'static str> {
        loop {
            {
                let mut s = self.member.lock();
                if let Some(e) = s.events.pop_front() {
                    return Ok(e);
                }
                if let Some(why) = s.ended {
                    return Err(why);
                }
            }
            self.member.wake.notified().await;
        }
    }
}

impl Drop for ActionStream {
    fn drop(&mut self) {
        self.member.lock().stream_open = false;
        let _ = self
            .member
            .commands
            .send(Command::Leave("its actions stream closed"));
    }
}

/// A passive monitor's listener and count.
pub struct Monitor {
    group: String,
    listener: Listener,
    core: MonitorCore,
}

impl Monitor {
    /// Its group.
    pub fn group(&self) -> &str {
        &self.group
    }

    /// The next change of the active count; `None` when the gateway stops.
    pub async fn next(&mut self) -> Option<usize> {
        loop {
            let deadline = self.core.next_deadline(Instant::now());
            let changed = tokio::select! {
                d = self.listener.recv() => {
                    let d = d?;
                    match Heartbeat::from_message(&d.envelope().message) {
                        Ok(hb) => self.core.on_heartbeat(&hb, Instant::now()),
                        Err(e) => {
                            tracing::debug!(group = %self.group, error = %e, "not a fault tolerance protocol message");
                            None
                        }
                    }
                }
                () = sleep_until(deadline) => self.core.on_timer(Instant::now()),
            };
            if changed.is_some() {
                return changed;
            }
        }
    }
}

/// Sleeps until `at`, or for ever with `None`.
async fn sleep_until(at: Option<Instant>) {
    match at {
        Some(at) => tokio::time::sleep_until(tokio::time::Instant::from_std(at)).await,
        None => std::future::pending().await,
    }
}

/// The task of one member.
struct MemberTask {
    shared: Arc<Shared>,
    core: MemberCore,
    listener: Listener,
    bus: Bus,
    service: Weak<Inner>,
}

impl MemberTask {
    async fn run(mut self, first: Vec<Output>, mut commands: mpsc::UnboundedReceiver<Command>) {
        let mut why = self.apply(first);
        let mut replied: Option<oneshot::Sender<Result<(), FtError>>> = None;
        while why.is_none() {
            let now = Instant::now();
            let activation = self.core.params().activation;
            let mut deadline = self.core.next_deadline(now);
            let life = {
                let s = self.shared.lock();
                (!s.stream_open).then_some(s.last_sign + activation)
            };
            if let Some(life) = life {
                if now >= life {
                    tracing::warn!(group = %self.core.group(), member = %self.core.id(), "fault tolerance member gave no sign of life for its activation interval; it leaves the group");
                    self.publish_leave();
                    why = Some("its program gave no sign of life for the activation interval");
                    break;
                }
                deadline = deadline.min(life);
            }
            let outputs = tokio::select! {
                d = self.listener.recv() => match d {
                    None => {
                        why = Some("the gateway is stopping");
                        break;
                    }
                    Some(d) => match Heartbeat::from_message(&d.envelope().message) {
                        Ok(hb) => self.core.on_heartbeat(&hb, Instant::now()),
                        Err(e) => {
                            tracing::debug!(group = %self.core.group(), error = %e, "not a fault tolerance protocol message");
                            Vec::new()
                        }
                    },
                },
                c = commands.recv() => match c {
                    Some(Command::SetWeight(w, reply)) => match self.core.set_weight(w, Instant::now()) {
                        Ok(out) => {
                            // Answered once the new weight and ranks are
                            // what the member's state shows.
                            replied = Some(reply);
                            out
                        }
                        Err(e) => {
                            let _ = reply.send(Err(e));
                            Vec::new()
                        }
                    },
                    Some(Command::Wake) => Vec::new(),
                    Some(Command::Leave(reason)) => {
                        self.publish_leave();
                        why = Some(reason);
                        break;
                    }
                    None => {
                        why = Some("the gateway is stopping");
                        break;
                    }
                },
                () = tokio::time::sleep_until(tokio::time::Instant::from_std(deadline)) => {
                    let now = Instant::now();
                    if life.is_some_and(|l| now >= l) {
                        // A member without a sign of life leaves before
                        // anything else is decided for it.
                        continue;
                    }
                    self.core.on_timer(now)
                }
            };
            why = self.apply(outputs);
            if let Some(reply) = replied.take() {
                let _ = reply.send(Ok(()));
            }
        }
        let why = why.unwrap_or("the gateway is stopping");
        tracing::info!(group = %self.core.group(), member = %self.core.id(), reason = why, "fault tolerance member left");
        if let Some(service) = self.service.upgrade() {
            lock(&service.members).remove(self.core.id());
        }
        self.shared.lock().ended = Some(why);
        self.shared.wake.notify_one();
    }

    fn publish_leave(&self) {
        let leave = self.core.leave().to_envelope(self.core.group());
        if let Err(e) = self.bus.publish(leave, Origin::Gateway) {
            tracing::debug!(error = %e, "LEAVE not published");
        }
    }

    /// Carries out what the core asked for; `Some(why)` when the member
    /// must end (the bus closed).
    fn apply(&mut self, outputs: Vec<Output>) -> Option<&'static str> {
        let mut queue: VecDeque<Output> = outputs.into();
        let mut disabled = false;
        while let Some(o) = queue.pop_front() {
            match o {
                Output::Publish(hb) => {
                    match self
                        .bus
                        .publish(hb.to_envelope(self.core.group()), Origin::Gateway)
                    {
                        Ok(_) => {}
                        Err(BusError::Closed) => return Some("the gateway is stopping"),
                        Err(e) => {
                            tracing::error!(group = %self.core.group(), member = %self.core.id(), error = %e, "fault tolerance heartbeat not published");
                            if !disabled {
                                disabled = true;
                                queue.extend(self.core.disable(Instant::now()));
                            }
                        }
                    }
                }
                Output::Action(a) => {
                    tracing::info!(group = %self.core.group(), member = %self.core.id(), action = %a, "fault tolerance action");
                    self.shared.push(MemberEvent::Action(a));
                }
                Output::Advisory(a) => {
                    tracing::warn!(group = %self.core.group(), member = %self.core.id(), advisory = %a.subject(), description = a.description.as_deref().unwrap_or(""), "fault tolerance advisory");
                    let env = a.clone().into_envelope();
                    if let Err(e) = self.bus.publish_advisory(a) {
                        tracing::debug!(error = %e, "advisory not published");
                    }
                    self.shared.push(MemberEvent::Advisory(env));
                }
                Output::Status(s) => {
                    self.shared.lock().status = Some(s);
                    self.shared.push(MemberEvent::Status(s));
                }
            }
        }
        let ranks = self.core.ranked();
        let mut s = self.shared.lock();
        s.ranks = ranks;
        s.params = *self.core.params();
        None
    }
}

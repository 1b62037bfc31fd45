//! One member of a distributed queue at run time (docs/rendezvous.md
//! "Distributed queues"): the task that moves its messages over the bus
//! (`protocol`), feeds the election (`election`) and, while it is the
//! scheduler, the assignment table (`schedule`), and hands the tasks
//! given to it to its program.
//!
//! The scheduler listens to the queue's subjects through the queue's CM
//! transport (its correspondent name is the queue's name, as a TIBCO
//! distributed queue member is a CM transport of that `cmName`), with
//! `requestOld` and explicit confirmation: a certified task is confirmed
//! to its sender only when a worker completed it, so a scheduler that
//! fails leaves every task it had not seen completed in the sender's
//! ledger, and its successor gets them again. Before it listens, a new
//! scheduler asks every member what it holds and what it completed
//! without acknowledgement: it confirms the completed ones and leaves the
//! held ones with their workers, so that nothing is lost or done twice.

use std::collections::{BTreeMap, BTreeSet, HashMap, HashSet, VecDeque};
use std::time::Duration;

use mqgate_codecs::rv::msg::Envelope;
use tokio::sync::{mpsc, oneshot};

use super::advisories;
use super::election::{Change, Election, Rank};
use super::error::DqError;
use super::params::DqParams;
use super::protocol::{
    Heartbeat, ToMembers, ToScheduler, ToWorker, member_subject, scheduler_subject, worker_subject,
};
use super::schedule::{Action, Schedule, TaskKey, WorkerInfo};
use crate::rv::cm::protocol::ToSender;
use crate::rv::cm::{
    CmListener, CmTransport, CmTransports, ConfirmMode, CreateOptions, LedgerKind,
};
use crate::rv::{Bus, Listener, ListenerOptions, Origin};

/// Length of a member's bus queue: large, so that bursts of completions
/// and assignments are never discarded ("Slow listeners").
const MEMBER_QUEUE: usize = 1 << 18;

/// A task given to this member's program.
#[derive(Clone, Debug)]
pub struct Task {
    /// Its number at this member, from 1: what completion and release name.
    pub id: u64,
    /// The task message, with its certified-delivery labels when labeled
    /// (sequence 0: not certified).
    pub envelope: Envelope,
    /// True for a certified task (reassigned when its worker fails).
    pub certified: bool,
}

/// What a member's program is told.
#[derive(Clone, Debug)]
pub enum MemberEvent {
    /// A task to do; complete it, or release it.
    Task(Task),
    /// The scheduler took task `id` back (its complete time passed, or
    /// another worker completed it); completing it now does nothing.
    Withdrawn(u64),
    /// The member became the scheduler (`true`) or stopped being it.
    Scheduler(bool),
}

pub(super) enum Command {
    Complete(u64, oneshot::Sender<Result<(), DqError>>),
    Release(u64, oneshot::Sender<Result<(), DqError>>),
    Leave,
}

/// Completes, releases and ends a member; clones control the same one.
#[derive(Clone, Debug)]
pub struct MemberControl {
    id: String,
    name: String,
    commands: mpsc::UnboundedSender<Command>,
}

impl std::fmt::Debug for Command {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            Command::Complete(n, _) => write!(f, "Complete({n})"),
            Command::Release(n, _) => write!(f, "Release({n})"),
            Command::Leave => f.write_str("Leave"),
        }
    }
}

impl MemberControl {
    pub(super) fn new(
        id: String,
        name: String,
        commands: mpsc::UnboundedSender<Command>,
    ) -> MemberControl {
        MemberControl { id, name, commands }
    }

    /// The member id.
    pub fn id(&self) -> &str {
        &self.id
    }

    /// The queue's name.
    pub fn queue(&self) -> &str {
        &self.name
    }

    /// True once the member has ended.
    pub fn is_closed(&self) -> bool {
        self.commands.is_closed()
    }

    async fn call(
        &self,
        make: impl FnOnce(oneshot::Sender<Result<(), DqError>>) -> Command,
    ) -> Result<(), DqError> {
        let (tx, rx) = oneshot::channel();
        let gone = || DqError::UnknownMember {
            member: self.id.clone(),
        };
        self.commands.send(make(tx)).map_err(|_| gone())?;
        rx.await.map_err(|_| gone())?
    }

    /// Reports task `task` complete (the callback's return, for a
    /// Rendezvous worker): a certified task is confirmed to its sender.
    ///
    /// Errors: [`DqError::UnknownTask`], [`DqError::UnknownMember`] (it
    /// ended).
    pub async fn complete(&self, task: u64) -> Result<(), DqError> {
        self.call(|tx| Command::Complete(task, tx)).await
    }

    /// Gives task `task` back undone (**mqgate**): the scheduler assigns it
    /// again, perhaps to this member.
    ///
    /// Errors: as [`MemberControl::complete`].
    pub async fn release(&self, task: u64) -> Result<(), DqError> {
        self.call(|tx| Command::Release(task, tx)).await
    }

    /// Leaves the queue: the scheduler reassigns the member's certified
    /// tasks at once.
    pub fn leave(&self) {
        let _ = self.commands.send(Command::Leave);
    }
}

/// A member of a distributed queue, from `DistributedQueues::join`.
/// Dropping it leaves the queue.
#[derive(Debug)]
pub struct DqMember {
    pub(super) control: MemberControl,
    pub(super) events: mpsc::UnboundedReceiver<MemberEvent>,
    pub(super) abort: tokio::task::AbortHandle,
    pub(super) leave_on_drop: bool,
}

impl DqMember {
    /// The member id.
    pub fn id(&self) -> &str {
        &self.control.id
    }

    /// What completes and releases its tasks.
    pub fn control(&self) -> &MemberControl {
        &self.control
    }

    /// The next event; `None` once the member ended (the gateway stops).
    pub async fn next(&mut self) -> Option<MemberEvent> {
        self.events.recv().await
    }

    /// See [`MemberControl::complete`].
    ///
    /// Errors: as there.
    pub async fn complete(&self, task: u64) -> Result<(), DqError> {
        self.control.complete(task).await
    }

    /// Ends the member without a word to the queue, as a process that
    /// dies: the others notice when its heartbeats stop (the activation
    /// interval). For failure drills and tests.
    pub fn kill(mut self) {
        // No goodbye from the drop either: a task still being polled could
        // read it before the abort takes effect.
        self.leave_on_drop = false;
        self.abort.abort();
    }

    /// Splits the member into its control and its events (the HTTP API
    /// keeps them apart).
    pub fn into_parts(mut self) -> (MemberControl, mpsc::UnboundedReceiver<MemberEvent>) {
        self.leave_on_drop = false;
        let (_, closed) = mpsc::unbounded_channel();
        let events = std::mem::replace(&mut self.events, closed);
        (self.control.clone(), events)
    }
}

impl Drop for DqMember {
    fn drop(&mut self) {
        if self.leave_on_drop {
            self.control.leave();
        }
    }
}

/// Milliseconds since the Unix epoch.
fn now_ms() -> u64 {
    crate::rv::cm::transport::now_ms()
}

/// Where a new scheduler stands.
enum Phase {
    /// Waiting for the members' reports (until `until_ms`, or all came).
    Gathering {
        until_ms: u64,
        waiting: HashSet<String>,
    },
    /// Listening to the queue's subjects.
    Running,
}

/// The scheduler's part, while this member is the scheduler.
struct Active {
    schedule: Schedule,
    phase: Phase,
    transport: Option<CmTransport>,
    tasks: Option<CmListener>,
    next_reliable: u64,
    cm_error_logged: bool,
}

/// What a member needs to run.
pub(super) struct Setup {
    pub(super) id: String,
    pub(super) name: String,
    pub(super) subjects: Vec<String>,
    pub(super) params: DqParams,
    pub(super) bus: Bus,
    pub(super) cm: CmTransports,
}

/// The member's task state.
struct Runner {
    s: Setup,
    joined_ms: u64,
    election: Election,
    peers: HashMap<String, Heartbeat>,
    warned: HashSet<String>,
    active: Option<Active>,
    next_local: u64,
    held: BTreeMap<u64, TaskKey>,
    by_key: HashMap<TaskKey, u64>,
    unacked: BTreeSet<TaskKey>,
    events: mpsc::UnboundedSender<MemberEvent>,
    last_heartbeat_ms: u64,
}

/// Registers the member's bus listener (before the join returns, so that
/// its first heartbeat is heard by members joining after it).
pub(super) fn listen(s: &Setup) -> Result<Listener, DqError> {
    let l = s.bus.listen(
        &[
            member_subject(&s.name).as_str(),
            worker_subject(&s.id, &s.name).as_str(),
        ],
        ListenerOptions {
            name: format!("distributed queue {} member {}", s.name, s.id),
            queue_len: Some(MEMBER_QUEUE),
            link: None,
        },
    )?;
    Ok(l)
}

/// Runs member `s` until it leaves or the bus closes.
pub(super) async fn run(
    s: Setup,
    mut listener: Listener,
    mut commands: mpsc::UnboundedReceiver<Command>,
    events: mpsc::UnboundedSender<MemberEvent>,
) {
    let joined_ms = now_ms();
    let rank = Rank {
        weight: s.params.scheduler_weight,
        joined_ms,
        member: s.id.clone(),
    };
    let election = Election::new(rank, s.params.activation_ms(), joined_ms);
    let tick_ms = (s.params.heartbeat_ms() / 4).clamp(5, 250);
    let mut r = Runner {
        s,
        joined_ms,
        election,
        peers: HashMap::new(),
        warned: HashSet::new(),
        active: None,
        next_local: 0,
        held: BTreeMap::new(),
        by_key: HashMap::new(),
        unacked: BTreeSet::new(),
        events,
        last_heartbeat_ms: 0,
    };
    r.heartbeat(joined_ms);
    let mut tick = tokio::time::interval(Duration::from_millis(tick_ms));
    tick.set_missed_tick_behavior(tokio::time::MissedTickBehavior::Delay);
    loop {
        tokio::select! {
            biased;
            c = commands.recv() => match c {
                Some(Command::Complete(n, reply)) => {
                    let _ = reply.send(r.complete(n));
                }
                Some(Command::Release(n, reply)) => {
                    let _ = reply.send(r.release(n));
                }
                Some(Command::Leave) | None => {
                    r.leave(&mut listener);
                    return;
                }
            },
            d = listener.recv() => match d {
                Some(d) => r.inbound(d.envelope(), &listener).await,
                None => return,
            },
            t = next_task(&mut r.active) => match t {
                Some(env) => r.on_task(env).await,
                None => {
                    // The transport closed under the scheduler: listen again.
                    if let Some(a) = r.active.as_mut() {
                        a.tasks = None;
                        a.transport = None;
                    }
                }
            },
            _ = tick.tick() => r.on_tick(&listener).await,
        }
    }
}

/// The next task of the scheduler's certified listener; never, when this
/// member does not listen to the queue's subjects.
async fn next_task(active: &mut Option<Active>) -> Option<Envelope> {
    match active.as_mut().and_then(|a| a.tasks.as_mut()) {
        Some(l) => l.recv().await.map(|d| d.envelope),
        None => std::future::pending().await,
    }
}

impl Runner {
    fn publish(&self, envelope: Envelope) -> usize {
        match self.s.bus.publish(envelope, Origin::Gateway) {
            Ok(n) => n,
            Err(e) => {
                tracing::debug!(dq = %self.s.name, member = %self.s.id, error = %e, "distributed queue: not published");
                0
            }
        }
    }

    fn advisory(&self, a: crate::rv::advisory::Advisory) {
        self.publish(a.into_envelope());
    }

    fn heartbeat(&mut self, now: u64) {
        self.last_heartbeat_ms = now;
        let hb = Heartbeat {
            member: self.s.id.clone(),
            worker_weight: self.s.params.worker_weight,
            worker_tasks: self.s.params.worker_tasks,
            scheduler_weight: self.s.params.scheduler_weight,
            joined_ms: self.joined_ms,
            heartbeat_ms: self.s.params.heartbeat_ms(),
            activation_ms: self.s.params.activation_ms(),
            active: self.election.is_active(),
            subjects: self.s.subjects.clone(),
        };
        self.publish(ToMembers::Heartbeat(hb).to_envelope(&self.s.name));
    }

    fn my_info(&self) -> WorkerInfo {
        WorkerInfo {
            weight: self.s.params.worker_weight,
            capacity: self.s.params.worker_tasks,
            joined_ms: self.joined_ms,
        }
    }

    fn leave(&mut self, listener: &mut Listener) {
        if self.active.take().is_some() {
            listener.remove(&scheduler_subject(&self.s.name));
            self.advisory(advisories::scheduler_inactive(&self.s.name, &self.s.id));
        }
        self.publish(
            ToMembers::Leave {
                member: self.s.id.clone(),
            }
            .to_envelope(&self.s.name),
        );
    }

    fn complete(&mut self, n: u64) -> Result<(), DqError> {
        let key = self.held.remove(&n).ok_or_else(|| DqError::UnknownTask {
            member: self.s.id.clone(),
            task: n,
        })?;
        self.by_key.remove(&key);
        self.unacked.insert(key.clone());
        self.publish(
            ToScheduler::Complete {
                member: self.s.id.clone(),
                key,
            }
            .to_envelope(&self.s.name),
        );
        Ok(())
    }

    fn release(&mut self, n: u64) -> Result<(), DqError> {
        let key = self.held.remove(&n).ok_or_else(|| DqError::UnknownTask {
            member: self.s.id.clone(),
            task: n,
        })?;
        self.by_key.remove(&key);
        self.publish(
            ToScheduler::Release {
                member: self.s.id.clone(),
                key,
            }
            .to_envelope(&self.s.name),
        );
        Ok(())
    }

    async fn inbound(&mut self, env: &Envelope, listener: &Listener) {
        let name = &self.s.name;
        if env.subject == member_subject(name) {
            match ToMembers::from_message(&env.message) {
                Ok(m) => self.on_members_message(m, listener).await,
                Err(e) => {
                    tracing::warn!(dq = %name, error = %e, "distributed queue: unreadable member message")
                }
            }
        } else if env.subject == scheduler_subject(name) {
            if self.active.is_none() {
                return;
            }
            match ToScheduler::from_message(&env.message) {
                Ok(m) => self.on_scheduler_message(m).await,
                Err(e) => {
                    tracing::warn!(dq = %name, error = %e, "distributed queue: unreadable scheduler message")
                }
            }
        } else {
            match ToWorker::from_message(&env.message) {
                Ok(m) => self.on_worker_message(m),
                Err(e) => {
                    tracing::warn!(dq = %name, error = %e, "distributed queue: unreadable worker message")
                }
            }
        }
    }

    async fn on_members_message(&mut self, m: ToMembers, listener: &Listener) {
        let now = now_ms();
        match m {
            ToMembers::Heartbeat(h) => {
                if h.member == self.s.id {
                    return;
                }
                self.check_peer(&h);
                let rank = Rank {
                    weight: h.scheduler_weight,
                    joined_ms: h.joined_ms,
                    member: h.member.clone(),
                };
                let change = self.election.heard(rank, h.active, now);
                let info = WorkerInfo {
                    weight: h.worker_weight,
                    capacity: h.worker_tasks,
                    joined_ms: h.joined_ms,
                };
                let member = h.member.clone();
                self.peers.insert(h.member.clone(), h);
                if let Some(a) = self.active.as_mut() {
                    let out = a.schedule.worker(&member, info, now);
                    self.apply(out).await;
                }
                self.role(change, listener).await;
            }
            ToMembers::Leave { member } => {
                self.peers.remove(&member);
                let change = self.election.left(&member, now);
                self.member_gone(&member, now).await;
                self.role(change, listener).await;
            }
            ToMembers::ReportRequest { .. } => {
                let report = ToScheduler::Report {
                    member: self.s.id.clone(),
                    pending: self.held.values().cloned().collect(),
                    completed: self.unacked.iter().cloned().collect(),
                };
                self.publish(report.to_envelope(&self.s.name));
            }
        }
    }

    /// Warns once per peer whose intervals or subjects differ from this
    /// member's ("tibrvcmTransport_CreateDistributedQueue()": all members
    /// must give the same scheduler heartbeat and activation intervals and
    /// listen to exactly the same subjects).
    fn check_peer(&mut self, h: &Heartbeat) {
        let differs = h.heartbeat_ms != self.s.params.heartbeat_ms()
            || h.activation_ms != self.s.params.activation_ms()
            || h.subjects != self.s.subjects;
        if differs && self.warned.insert(h.member.clone()) {
            tracing::warn!(
                dq = %self.s.name,
                member = %h.member,
                heartbeat_ms = h.heartbeat_ms,
                activation_ms = h.activation_ms,
                subjects = ?h.subjects,
                "distributed queue: a member's scheduler intervals or subjects differ from this member's"
            );
        }
    }

    async fn member_gone(&mut self, member: &str, now: u64) {
        let Some(a) = self.active.as_mut() else {
            return;
        };
        if let Phase::Gathering { waiting, .. } = &mut a.phase {
            waiting.remove(member);
        }
        let out = a.schedule.remove_worker(member, now);
        self.apply(out).await;
    }

    fn on_worker_message(&mut self, m: ToWorker) {
        match m {
            ToWorker::Task { key, task } => {
                if self.by_key.contains_key(&key) {
                    return;
                }
                self.next_local += 1;
                let id = self.next_local;
                self.held.insert(id, key.clone());
                let certified = key.certified();
                self.by_key.insert(key, id);
                let _ = self.events.send(MemberEvent::Task(Task {
                    id,
                    envelope: task,
                    certified,
                }));
            }
            ToWorker::Withdraw(key) => {
                if let Some(id) = self.by_key.remove(&key) {
                    self.held.remove(&id);
                    let _ = self.events.send(MemberEvent::Withdrawn(id));
                }
            }
            ToWorker::Ack(key) => {
                self.unacked.remove(&key);
            }
        }
    }

    async fn on_scheduler_message(&mut self, m: ToScheduler) {
        let now = now_ms();
        let Some(a) = self.active.as_mut() else {
            return;
        };
        let out = match m {
            ToScheduler::Complete { member, key } => a.schedule.complete(&member, key, now),
            ToScheduler::Release { member, key } => a.schedule.release(&member, key, now),
            ToScheduler::Report {
                member,
                pending,
                completed,
            } => {
                let out = a.schedule.reported(&member, pending, completed, now);
                if let Phase::Gathering { waiting, .. } = &mut a.phase {
                    waiting.remove(&member);
                }
                out
            }
        };
        self.apply(out).await;
        self.maybe_run(now).await;
    }

    async fn role(&mut self, change: Option<Change>, listener: &Listener) {
        match change {
            Some(Change::Activate) => self.activate(listener),
            Some(Change::Deactivate) => self.deactivate(listener),
            None => {}
        }
    }

    fn activate(&mut self, listener: &Listener) {
        let now = now_ms();
        if let Err(e) = listener.add(&scheduler_subject(&self.s.name)) {
            tracing::error!(dq = %self.s.name, error = %e, "distributed queue: cannot listen as the scheduler");
            return;
        }
        let p = &self.s.params;
        let mut schedule = Schedule::new(
            &self.s.id,
            p.complete_ms(),
            p.backlog_limit_msgs,
            p.backlog_limit_bytes,
        );
        schedule.worker(&self.s.id, self.my_info(), now);
        let mut waiting: HashSet<String> = HashSet::from([self.s.id.clone()]);
        for peer in self.election.peers() {
            if let Some(h) = self.peers.get(&peer.member) {
                let info = WorkerInfo {
                    weight: h.worker_weight,
                    capacity: h.worker_tasks,
                    joined_ms: h.joined_ms,
                };
                schedule.worker(&h.member, info, now);
            }
            waiting.insert(peer.member.clone());
        }
        self.active = Some(Active {
            schedule,
            phase: Phase::Gathering {
                until_ms: now + p.activation_ms(),
                waiting,
            },
            transport: None,
            tasks: None,
            next_reliable: 0,
            cm_error_logged: false,
        });
        tracing::info!(dq = %self.s.name, member = %self.s.id, "distributed queue: this member is the scheduler");
        self.advisory(advisories::scheduler_active(&self.s.name, &self.s.id));
        let _ = self.events.send(MemberEvent::Scheduler(true));
        self.heartbeat(now);
        self.publish(
            ToMembers::ReportRequest {
                scheduler: self.s.id.clone(),
            }
            .to_envelope(&self.s.name),
        );
    }

    fn deactivate(&mut self, listener: &Listener) {
        if self.active.take().is_none() {
            return;
        }
        listener.remove(&scheduler_subject(&self.s.name));
        tracing::info!(dq = %self.s.name, member = %self.s.id, "distributed queue: this member is no longer the scheduler");
        self.advisory(advisories::scheduler_inactive(&self.s.name, &self.s.id));
        let _ = self.events.send(MemberEvent::Scheduler(false));
        self.heartbeat(now_ms());
    }

    /// Once every report came (or the activation interval passed), listens
    /// to the queue's subjects.
    async fn maybe_run(&mut self, now: u64) {
        let Some(a) = self.active.as_mut() else {
            return;
        };
        if let Phase::Gathering { until_ms, waiting } = &a.phase {
            if !waiting.is_empty() && now < *until_ms {
                return;
            }
            a.phase = Phase::Running;
        }
        if a.tasks.is_some() {
            return;
        }
        let opened = self
            .s
            .cm
            .create(CreateOptions {
                name: Some(self.s.name.clone()),
                ledger: LedgerKind::Memory,
                request_old: true,
                ..CreateOptions::default()
            })
            .await;
        let result = match opened {
            Ok((t, _)) => match t.listen(&self.s.subjects, ConfirmMode::Explicit).await {
                Ok(l) => Ok((t, l)),
                Err(e) => Err(e),
            },
            Err(e) => Err(e),
        };
        let Some(a) = self.active.as_mut() else {
            return;
        };
        match result {
            Ok((t, l)) => {
                a.transport = Some(t);
                a.tasks = Some(l);
            }
            Err(e) => {
                if !a.cm_error_logged {
                    a.cm_error_logged = true;
                    tracing::error!(dq = %self.s.name, error = %e, "distributed queue: the scheduler cannot listen to the queue's subjects");
                }
            }
        }
    }

    async fn on_task(&mut self, env: Envelope) {
        let now = now_ms();
        let me = self.s.id.clone();
        let limits = *self.s.bus.limits();
        let Some(a) = self.active.as_mut() else {
            return;
        };
        let key = match &env.cm {
            Some(cm) if cm.sequence > 0 => TaskKey::Certified {
                sender: cm.sender.clone(),
                subject: env.subject.clone(),
                seqno: cm.sequence,
            },
            _ => {
                a.next_reliable += 1;
                TaskKey::Reliable {
                    scheduler: me,
                    n: a.next_reliable,
                }
            }
        };
        let bytes = if a.schedule.limits_bytes() {
            env.encode(&limits).map_or(0, |b| b.len() as u64)
        } else {
            0
        };
        let out = a.schedule.task(key, env, bytes, now);
        self.apply(out).await;
    }

    async fn on_tick(&mut self, listener: &Listener) {
        let now = now_ms();
        if now.saturating_sub(self.last_heartbeat_ms) >= self.s.params.heartbeat_ms() {
            self.heartbeat(now);
        }
        let tick = self.election.tick(now);
        for member in &tick.lost {
            self.peers.remove(member);
            tracing::info!(dq = %self.s.name, member = %member, "distributed queue: a member went silent");
            self.member_gone(member, now).await;
        }
        self.role(tick.change, listener).await;
        if let Some(a) = self.active.as_mut() {
            if let Some(t) = &a.transport {
                t.touch();
            }
            let out = a.schedule.tick(now);
            self.apply(out).await;
            self.maybe_run(now).await;
        }
    }

    /// Carries out what the schedule decided.
    async fn apply(&mut self, actions: Vec<Action>) {
        let mut queue: VecDeque<Action> = actions.into();
        while let Some(action) = queue.pop_front() {
            match action {
                Action::Assign { worker, key, task } => {
                    let to = ToWorker::Task { key, task }.to_envelope(&worker, &self.s.name);
                    if self.publish(to) == 0 {
                        // Nobody listens for that worker: it is gone.
                        let now = now_ms();
                        if let Some(a) = self.active.as_mut() {
                            queue.extend(a.schedule.remove_worker(&worker, now));
                        }
                    }
                }
                Action::Withdraw { worker, key } => {
                    self.publish(ToWorker::Withdraw(key).to_envelope(&worker, &self.s.name));
                }
                Action::Ack { worker, key } => {
                    self.publish(ToWorker::Ack(key).to_envelope(&worker, &self.s.name));
                }
                Action::Confirm(key) => self.confirm(key).await,
                Action::Overflow { key, task } => {
                    let labels = match &key {
                        TaskKey::Certified { sender, seqno, .. } => Some((sender.as_str(), *seqno)),
                        TaskKey::Reliable { .. } => None,
                    };
                    tracing::warn!(dq = %self.s.name, subject = %task.subject, "distributed queue: task backlog limit reached, task discarded");
                    self.advisory(advisories::scheduler_overflow(
                        &self.s.name,
                        &self.s.id,
                        &task.subject,
                        labels,
                    ));
                }
                Action::Lost(key) => {
                    tracing::warn!(dq = %self.s.name, task = ?key, "distributed queue: a reliable task of a worker that is gone is lost (only certified tasks are reassigned)");
                }
            }
        }
    }

    /// Confirms a certified task to its sender through the queue's CM
    /// transport; when that transport's listener was not given it (it came
    /// to an earlier scheduler), the confirmation goes to the sender
    /// directly, in the protocol of certified delivery.
    async fn confirm(&mut self, key: TaskKey) {
        let TaskKey::Certified {
            sender,
            subject,
            seqno,
        } = key
        else {
            return;
        };
        let transport = self.active.as_ref().and_then(|a| a.transport.clone());
        if let Some(t) = transport
            && t.confirm(&sender, &subject, seqno).await.is_ok()
        {
            return;
        }
        let msg = ToSender::Confirm {
            listener: self.s.name.clone(),
            subject,
            seqno,
        };
        self.publish(msg.to_envelope(&sender));
    }
}

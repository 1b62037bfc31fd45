//! The scheduler's assignment table as a state machine without I/O or
//! clocks (docs/rendezvous.md "Distributed queues", "Assignment"): the
//! workers with their weight, capacity and pending tasks, the tasks with
//! their worker and complete-time deadline, the backlog of tasks no
//! worker can take yet.
//!
//! From TIBCO Rendezvous Concepts, "Distributed Queue", "Complete Time",
//! "Reassigning Tasks in Exceptional Situations" and the C Reference,
//! "tibrvcmTransport_SetWorkerTasks()":
//! - each task goes to the available worker with the greatest worker
//!   weight; a worker is unavailable when its pending tasks reach its task
//!   capacity; the scheduler's own worker role takes tasks only when no
//!   other worker is available; capacity 0 never works;
//! - a certified task not completed within the complete time (when it is
//!   not 0) is reassigned; a worker that leaves or goes silent has its
//!   certified tasks reassigned; reliable tasks are never reassigned
//!   (rescheduling works only for certified tasks);
//! - with a backlog limit, a task that would exceed it while no worker is
//!   available is discarded (QUEUE.SCHEDULER.OVERFLOW).
//!
//! **mqgate**: among available workers of equal weight, the one with the
//! fewest pending tasks, then the senior one, then the smaller id.

use std::collections::{BTreeMap, BTreeSet, HashMap, HashSet, VecDeque};

use mqgate_codecs::rv::msg::Envelope;

/// Certified tasks remembered as completed, so that one delivered again
/// (the sender had not read the confirmation yet) is confirmed again and
/// never assigned twice.
pub const DONE_MEMORY: usize = 65_536;

/// What names a task across schedulers.
#[derive(Clone, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum TaskKey {
    /// A certified task: its sender's correspondent name, its subject and
    /// its sequence number — what the sender's ledger knows it by, so a
    /// new scheduler recognises it when the sender sends it again.
    Certified {
        /// The sender's correspondent name.
        sender: String,
        /// The subject.
        subject: String,
        /// The sequence number (> 0).
        seqno: u64,
    },
    /// A reliable task (or a labeled one delivered uncertified): the
    /// scheduler that received it and its number there.
    Reliable {
        /// The scheduler's member id.
        scheduler: String,
        /// Its number at that scheduler, from 1.
        n: u64,
    },
}

impl TaskKey {
    /// True for a certified task.
    pub fn certified(&self) -> bool {
        matches!(self, TaskKey::Certified { .. })
    }
}

/// What the scheduler must do.
#[derive(Clone, Debug, PartialEq)]
pub enum Action {
    /// Give `task` to `worker`.
    Assign {
        /// The worker's member id.
        worker: String,
        /// The task's key.
        key: TaskKey,
        /// The task.
        task: Envelope,
    },
    /// Tell `worker` the task is no longer its own (reassigned after the
    /// complete time, or completed by another worker).
    Withdraw {
        /// The worker.
        worker: String,
        /// The task.
        key: TaskKey,
    },
    /// Confirm the certified task to its sender.
    Confirm(TaskKey),
    /// Tell `worker` its completion is recorded (it may forget the task).
    Ack {
        /// The worker.
        worker: String,
        /// The task.
        key: TaskKey,
    },
    /// The backlog is full: the task is discarded.
    Overflow {
        /// The task.
        key: TaskKey,
        /// The task.
        task: Envelope,
    },
    /// A reliable task of a worker that is gone: it cannot be reassigned.
    Lost(TaskKey),
}

#[derive(Clone, Debug)]
struct Worker {
    weight: u32,
    capacity: u32,
    joined_ms: u64,
    pending: BTreeSet<TaskKey>,
}

#[derive(Clone, Debug)]
struct Task {
    worker: Option<String>,
    deadline_ms: Option<u64>,
    task: Option<Envelope>,
    bytes: u64,
}

/// A worker's parameters, as its heartbeats give them.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct WorkerInfo {
    /// Worker weight.
    pub weight: u32,
    /// Task capacity (0: never works).
    pub capacity: u32,
    /// When it joined, ms since the Unix epoch.
    pub joined_ms: u64,
}

/// The assignment table of the active scheduler.
#[derive(Debug)]
pub struct Schedule {
    me: String,
    complete_ms: u64,
    limit_msgs: u64,
    limit_bytes: u64,
    workers: BTreeMap<String, Worker>,
    tasks: HashMap<TaskKey, Task>,
    backlog: VecDeque<TaskKey>,
    backlog_bytes: u64,
    done: HashSet<TaskKey>,
    done_order: VecDeque<TaskKey>,
}

impl Schedule {
    /// The table of scheduler `me` (whose own worker role works only when
    /// no other worker can), with complete time `complete_ms` (0: never
    /// reassign) and backlog limits (0: none).
    pub fn new(me: &str, complete_ms: u64, limit_msgs: u64, limit_bytes: u64) -> Schedule {
        Schedule {
            me: me.to_string(),
            complete_ms,
            limit_msgs,
            limit_bytes,
            workers: BTreeMap::new(),
            tasks: HashMap::new(),
            backlog: VecDeque::new(),
            backlog_bytes: 0,
            done: HashSet::new(),
            done_order: VecDeque::new(),
        }
    }

    /// True when a backlog limit in bytes is set (tasks must be sized).
    pub fn limits_bytes(&self) -> bool {
        self.limit_bytes > 0
    }

    /// Tasks waiting for a worker ("tibrvcmTransport_GetUnassignedMessageCount()").
    pub fn unassigned(&self) -> usize {
        self.backlog.len()
    }

    /// Tasks known: assigned or waiting.
    pub fn tasks(&self) -> usize {
        self.tasks.len()
    }

    /// The pending tasks of `worker`.
    pub fn pending_of(&self, worker: &str) -> usize {
        self.workers.get(worker).map_or(0, |w| w.pending.len())
    }

    /// The worker that holds `key`, if any.
    pub fn holder(&self, key: &TaskKey) -> Option<&str> {
        self.tasks.get(key).and_then(|t| t.worker.as_deref())
    }

    /// Adds worker `id` or updates its parameters; tasks waiting may go to
    /// it.
    pub fn worker(&mut self, id: &str, info: WorkerInfo, now_ms: u64) -> Vec<Action> {
        let w = self
            .workers
            .entry(id.to_string())
            .or_insert_with(|| Worker {
                weight: info.weight,
                capacity: info.capacity,
                joined_ms: info.joined_ms,
                pending: BTreeSet::new(),
            });
        w.weight = info.weight;
        w.capacity = info.capacity;
        w.joined_ms = info.joined_ms;
        self.dispatch(now_ms)
    }

    /// Worker `id` is gone (left, or unheard for the activation interval):
    /// its certified tasks are withdrawn from it and go to other workers,
    /// its reliable ones are lost. The withdrawal reaches nobody when the
    /// worker is dead; one that was only silent for too long (a paused
    /// process) drops the tasks instead of completing them a second time.
    pub fn remove_worker(&mut self, id: &str, now_ms: u64) -> Vec<Action> {
        let Some(w) = self.workers.remove(id) else {
            return Vec::new();
        };
        let mut out = Vec::new();
        for key in w.pending.iter().filter(|k| k.certified()) {
            out.push(Action::Withdraw {
                worker: id.to_string(),
                key: key.clone(),
            });
        }
        // Back at the front of the backlog, in their order.
        for key in w.pending.into_iter().rev() {
            out.extend(self.unassign(key));
        }
        out.extend(self.dispatch(now_ms));
        out
    }

    /// A task of a worker that no longer holds it: certified tasks wait for
    /// the next worker (at the front); reliable ones are lost.
    fn unassign(&mut self, key: TaskKey) -> Option<Action> {
        let t = self.tasks.get_mut(&key)?;
        t.worker = None;
        t.deadline_ms = None;
        if !key.certified() {
            self.tasks.remove(&key);
            return Some(Action::Lost(key));
        }
        if t.task.is_some() {
            self.backlog_bytes += t.bytes;
            self.backlog.push_front(key);
        }
        None
    }

    /// What a worker reported to a new scheduler: the tasks it holds
    /// (`pending`) and those it completed without an acknowledgement
    /// (`completed`). Pending tasks stay with it (their complete time runs
    /// from now); completed ones are confirmed and acknowledged.
    pub fn reported(
        &mut self,
        worker: &str,
        pending: Vec<TaskKey>,
        completed: Vec<TaskKey>,
        now_ms: u64,
    ) -> Vec<Action> {
        let mut out = Vec::new();
        for key in completed {
            out.extend(self.complete(worker, key, now_ms));
        }
        let deadline = self.deadline(now_ms);
        for key in pending {
            if self.done.contains(&key) {
                continue;
            }
            let Some(w) = self.workers.get_mut(worker) else {
                continue;
            };
            let t = self.tasks.entry(key.clone()).or_insert(Task {
                worker: None,
                deadline_ms: None,
                task: None,
                bytes: 0,
            });
            if t.worker.is_some() {
                continue;
            }
            if t.task.is_some()
                && let Some(at) = self.backlog.iter().position(|k| *k == key)
            {
                self.backlog.remove(at);
                self.backlog_bytes -= t.bytes;
            }
            t.worker = Some(worker.to_string());
            t.deadline_ms = if key.certified() { deadline } else { None };
            w.pending.insert(key);
        }
        out
    }

    /// An inbound task of `bytes` bytes: assigned, or kept in the backlog,
    /// or discarded when the backlog is full. A certified task known
    /// already (a worker holds it, or it waits) is not assigned again; one
    /// completed already is confirmed again.
    pub fn task(&mut self, key: TaskKey, task: Envelope, bytes: u64, now_ms: u64) -> Vec<Action> {
        if self.done.contains(&key) {
            return vec![Action::Confirm(key)];
        }
        if let Some(t) = self.tasks.get_mut(&key) {
            if t.task.is_none() {
                t.task = Some(task);
                t.bytes = bytes;
                if t.worker.is_none() {
                    self.backlog_bytes += bytes;
                    self.backlog.push_front(key);
                    return self.dispatch(now_ms);
                }
            }
            return Vec::new();
        }
        let full = (self.limit_msgs > 0 && self.backlog.len() as u64 >= self.limit_msgs)
            || (self.limit_bytes > 0 && self.backlog_bytes + bytes > self.limit_bytes);
        if self.backlog.is_empty()
            && let Some(worker) = self.choose(None)
        {
            return vec![self.assign(worker, key, task, bytes, now_ms)];
        }
        if full {
            return vec![Action::Overflow { key, task }];
        }
        self.tasks.insert(
            key.clone(),
            Task {
                worker: None,
                deadline_ms: None,
                task: Some(task),
                bytes,
            },
        );
        self.backlog_bytes += bytes;
        self.backlog.push_back(key);
        self.dispatch(now_ms)
    }

    /// `worker` completed `key`: confirmed (certified) and acknowledged;
    /// another worker holding it is told to drop it; waiting tasks go to
    /// the freed worker.
    pub fn complete(&mut self, worker: &str, key: TaskKey, now_ms: u64) -> Vec<Action> {
        let mut out = Vec::new();
        if let Some(t) = self.tasks.remove(&key) {
            match &t.worker {
                Some(holder) => {
                    if let Some(w) = self.workers.get_mut(holder) {
                        w.pending.remove(&key);
                    }
                    if holder != worker {
                        out.push(Action::Withdraw {
                            worker: holder.clone(),
                            key: key.clone(),
                        });
                    }
                }
                None => {
                    if t.task.is_some()
                        && let Some(at) = self.backlog.iter().position(|k| *k == key)
                    {
                        self.backlog.remove(at);
                        self.backlog_bytes -= t.bytes;
                    }
                }
            }
        }
        if key.certified() {
            out.push(Action::Confirm(key.clone()));
            self.remember_done(key.clone());
        }
        out.push(Action::Ack {
            worker: worker.to_string(),
            key,
        });
        out.extend(self.dispatch(now_ms));
        out
    }

    /// `worker` gives `key` back undone: it goes to the next worker
    /// available (possibly the same one).
    pub fn release(&mut self, worker: &str, key: TaskKey, now_ms: u64) -> Vec<Action> {
        let holds = self.holder(&key) == Some(worker);
        if !holds {
            return Vec::new();
        }
        if let Some(w) = self.workers.get_mut(worker) {
            w.pending.remove(&key);
        }
        let mut out = Vec::new();
        if let Some(t) = self.tasks.get_mut(&key) {
            t.worker = None;
            t.deadline_ms = None;
            if t.task.is_some() {
                self.backlog_bytes += t.bytes;
                self.backlog.push_front(key.clone());
            } else if !key.certified() {
                self.tasks.remove(&key);
                out.push(Action::Lost(key));
            }
        }
        out.extend(self.dispatch(now_ms));
        out
    }

    /// Complete times that passed: the task is withdrawn from its worker
    /// and goes to the next available one.
    pub fn tick(&mut self, now_ms: u64) -> Vec<Action> {
        let late: Vec<(TaskKey, String)> = self
            .tasks
            .iter()
            .filter(|(_, t)| t.deadline_ms.is_some_and(|d| now_ms >= d))
            .filter_map(|(k, t)| t.worker.clone().map(|w| (k.clone(), w)))
            .collect();
        let mut out = Vec::new();
        for (key, worker) in late {
            if let Some(w) = self.workers.get_mut(&worker) {
                w.pending.remove(&key);
            }
            out.push(Action::Withdraw {
                worker: worker.clone(),
                key: key.clone(),
            });
            // "reassigns the task to another worker" ("Complete Time").
            let other = self.choose(Some(&worker));
            match (other, self.tasks.remove(&key)) {
                (
                    Some(next),
                    Some(Task {
                        task: Some(task),
                        bytes,
                        ..
                    }),
                ) => {
                    out.push(self.assign(next, key, task, bytes, now_ms));
                }
                (_, Some(t)) => {
                    self.tasks.insert(key.clone(), t);
                    out.extend(self.unassign(key));
                }
                (_, None) => {}
            }
        }
        out.extend(self.dispatch(now_ms));
        out
    }

    /// The earliest complete-time deadline, ms.
    pub fn next_deadline(&self) -> Option<u64> {
        self.tasks.values().filter_map(|t| t.deadline_ms).min()
    }

    fn deadline(&self, now_ms: u64) -> Option<u64> {
        (self.complete_ms > 0).then(|| now_ms.saturating_add(self.complete_ms))
    }

    fn remember_done(&mut self, key: TaskKey) {
        if self.done.insert(key.clone()) {
            self.done_order.push_back(key);
            if self.done_order.len() > DONE_MEMORY
                && let Some(old) = self.done_order.pop_front()
            {
                self.done.remove(&old);
            }
        }
    }

    /// The available worker with the greatest weight; this scheduler's own
    /// worker role only when no other is available.
    fn choose(&self, except: Option<&str>) -> Option<String> {
        let free = |w: &Worker| (w.pending.len() as u64) < u64::from(w.capacity);
        let best = self
            .workers
            .iter()
            .filter(|(id, w)| **id != self.me && Some(id.as_str()) != except && free(w))
            .max_by(|(ia, a), (ib, b)| {
                a.weight
                    .cmp(&b.weight)
                    .then(b.pending.len().cmp(&a.pending.len()))
                    .then(b.joined_ms.cmp(&a.joined_ms))
                    .then(ib.cmp(ia))
            })
            .map(|(id, _)| id.clone());
        best.or_else(|| {
            self.workers
                .get(&self.me)
                .filter(|w| free(w) && except != Some(self.me.as_str()))
                .map(|_| self.me.clone())
        })
    }

    fn assign(
        &mut self,
        worker: String,
        key: TaskKey,
        task: Envelope,
        bytes: u64,
        now_ms: u64,
    ) -> Action {
        let deadline = if key.certified() {
            self.deadline(now_ms)
        } else {
            None
        };
        if let Some(w) = self.workers.get_mut(&worker) {
            w.pending.insert(key.clone());
        }
        self.tasks.insert(
            key.clone(),
            Task {
                worker: Some(worker.clone()),
                deadline_ms: deadline,
                task: Some(task.clone()),
                bytes,
            },
        );
        Action::Assign { worker, key, task }
    }

    /// Waiting tasks to available workers, in order.
    fn dispatch(&mut self, now_ms: u64) -> Vec<Action> {
        let mut out = Vec::new();
        while !self.backlog.is_empty() {
            let Some(worker) = self.choose(None) else {
                break;
            };
            let Some(key) = self.backlog.pop_front() else {
                break;
            };
            let Some(t) = self.tasks.remove(&key) else {
                continue;
            };
            self.backlog_bytes -= t.bytes;
            let Some(task) = t.task else { continue };
            out.push(self.assign(worker, key, task, t.bytes, now_ms));
        }
        out
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use mqgate_codecs::rv::msg::Message;

    fn env() -> Envelope {
        Envelope {
            subject: "WORK".into(),
            reply_subject: None,
            cm: None,
            message: Message::default(),
        }
    }

    fn c(seqno: u64) -> TaskKey {
        TaskKey::Certified {
            sender: "S".into(),
            subject: "WORK".into(),
            seqno,
        }
    }

    fn rel(n: u64) -> TaskKey {
        TaskKey::Reliable {
            scheduler: "sched".into(),
            n,
        }
    }

    fn info(weight: u32, capacity: u32, joined_ms: u64) -> WorkerInfo {
        WorkerInfo {
            weight,
            capacity,
            joined_ms,
        }
    }

    /// The worker of each Assign in `out`.
    fn assigned(out: &[Action]) -> Vec<String> {
        out.iter()
            .filter_map(|a| match a {
                Action::Assign { worker, .. } => Some(worker.clone()),
                _ => None,
            })
            .collect()
    }

    /// Five workers of weights 5, 4, 3, 2, 1 and capacities 1, 2, 1, 3, 2
    /// with a dedicated scheduler (capacity 0).
    fn five() -> Schedule {
        let mut s = Schedule::new("sched", 0, 0, 0);
        s.worker("sched", info(100, 0, 0), 0);
        for (id, w, cap) in [
            ("w5", 5, 1),
            ("w4", 4, 2),
            ("w3", 3, 1),
            ("w2", 2, 3),
            ("w1", 1, 2),
        ] {
            s.worker(id, info(w, cap, 0), 0);
        }
        s
    }

    #[test]
    fn tasks_go_to_the_available_worker_with_the_greatest_weight() {
        // "tibrvcmTransport_SetWorkerTasks()": the greatest worker weight
        // unless its pending tasks reached its capacity; then the next.
        let mut s = five();
        let got: Vec<String> = (1..=9)
            .flat_map(|n| assigned(&s.task(c(n), env(), 10, 0)))
            .collect();
        assert_eq!(got, ["w5", "w4", "w4", "w3", "w2", "w2", "w2", "w1", "w1"]);
        // All busy: the tenth waits; the dedicated scheduler never works.
        assert!(s.task(c(10), env(), 10, 0).is_empty());
        assert_eq!(s.unassigned(), 1);
        // w3 completes: the waiting task goes to w3.
        let out = s.complete("w3", c(4), 0);
        assert_eq!(
            out,
            vec![
                Action::Confirm(c(4)),
                Action::Ack {
                    worker: "w3".into(),
                    key: c(4)
                },
                Action::Assign {
                    worker: "w3".into(),
                    key: c(10),
                    task: env()
                },
            ]
        );
    }

    #[test]
    fn the_scheduler_works_only_when_every_other_worker_is_busy() {
        // "Distributed Queue": the scheduler assigns to its own worker
        // role only when no other worker is available.
        let mut s = Schedule::new("sched", 0, 0, 0);
        s.worker("sched", info(9, 1, 0), 0);
        s.worker("w", info(1, 1, 0), 0);
        assert_eq!(assigned(&s.task(c(1), env(), 1, 0)), ["w"]);
        assert_eq!(assigned(&s.task(c(2), env(), 1, 0)), ["sched"]);
        assert!(assigned(&s.task(c(3), env(), 1, 0)).is_empty());
    }

    #[test]
    fn equal_weights_share_by_fewest_pending_then_seniority() {
        let mut s = Schedule::new("sched", 0, 0, 0);
        s.worker("b", info(1, 5, 10), 0);
        s.worker("a", info(1, 5, 20), 0);
        let got: Vec<String> = (1..=4)
            .flat_map(|n| assigned(&s.task(c(n), env(), 1, 0)))
            .collect();
        assert_eq!(got, ["b", "a", "b", "a"]);
    }

    #[test]
    fn a_certified_task_not_completed_in_time_is_reassigned() {
        // "Complete Time": complete time 2000 ms.
        let mut s = Schedule::new("sched", 2000, 0, 0);
        s.worker("w5", info(5, 1, 0), 0);
        s.worker("w1", info(1, 1, 0), 0);
        assert_eq!(assigned(&s.task(c(1), env(), 1, 100)), ["w5"]);
        assert_eq!(s.next_deadline(), Some(2100));
        assert!(s.tick(2099).is_empty());
        let out = s.tick(2100);
        assert_eq!(
            out,
            vec![
                Action::Withdraw {
                    worker: "w5".into(),
                    key: c(1)
                },
                Action::Assign {
                    worker: "w1".into(),
                    key: c(1),
                    task: env()
                },
            ],
            "to another worker, though w5 is heavier"
        );
        // A reliable task has no complete time ("Rescheduling ... only for
        // certified task messages").
        s.worker("w9", info(9, 1, 0), 0);
        assert_eq!(assigned(&s.task(rel(1), env(), 1, 3000)), ["w9"]);
        assert_eq!(s.next_deadline(), Some(4100));
        // The late worker completes after all: the holder is told to drop it.
        let out = s.complete("w5", c(1), 4050);
        assert!(out.contains(&Action::Withdraw {
            worker: "w1".into(),
            key: c(1)
        }));
        assert!(out.contains(&Action::Confirm(c(1))));
    }

    #[test]
    fn complete_time_zero_never_reassigns() {
        let mut s = Schedule::new("sched", 0, 0, 0);
        s.worker("w", info(1, 1, 0), 0);
        s.task(c(1), env(), 1, 0);
        assert_eq!(s.next_deadline(), None);
        assert!(s.tick(u64::MAX).is_empty());
    }

    #[test]
    fn a_lost_worker_has_its_certified_tasks_reassigned_and_reliable_ones_lost() {
        // "Reassigning Tasks in Exceptional Situations", "Worker Exit".
        let mut s = Schedule::new("sched", 0, 0, 0);
        s.worker("w2", info(2, 2, 0), 0);
        s.worker("w1", info(1, 2, 0), 0);
        s.task(c(1), env(), 1, 0);
        s.task(rel(1), env(), 1, 0);
        let out = s.remove_worker("w2", 0);
        assert_eq!(
            out,
            vec![
                Action::Withdraw {
                    worker: "w2".into(),
                    key: c(1)
                },
                Action::Lost(rel(1)),
                Action::Assign {
                    worker: "w1".into(),
                    key: c(1),
                    task: env()
                },
            ]
        );
        assert_eq!(s.holder(&c(1)), Some("w1"));
    }

    #[test]
    fn a_new_scheduler_keeps_what_workers_hold_and_confirms_what_they_completed() {
        let mut s = Schedule::new("new", 0, 0, 0);
        s.worker("w1", info(1, 2, 0), 0);
        s.worker("w2", info(2, 2, 0), 0);
        let out = s.reported("w1", vec![c(1), rel(7)], vec![c(2)], 0);
        assert_eq!(
            out,
            vec![
                Action::Confirm(c(2)),
                Action::Ack {
                    worker: "w1".into(),
                    key: c(2)
                }
            ]
        );
        assert_eq!(s.pending_of("w1"), 2);
        // The sender sends what it kept again (requestOld): 1 stays with
        // w1, 2 is confirmed again, 3 is new.
        assert!(s.task(c(1), env(), 1, 0).is_empty());
        assert_eq!(s.task(c(2), env(), 1, 0), vec![Action::Confirm(c(2))]);
        assert_eq!(assigned(&s.task(c(3), env(), 1, 0)), ["w2"]);
        // w1 goes: task 1 (its data now known) moves on; reliable 7 is lost.
        let out = s.remove_worker("w1", 0);
        assert!(out.contains(&Action::Lost(rel(7))));
        assert_eq!(assigned(&out), ["w2"]);
    }

    #[test]
    fn a_task_reported_by_a_worker_that_goes_before_its_data_comes_waits_for_it() {
        let mut s = Schedule::new("new", 0, 0, 0);
        s.worker("w1", info(1, 1, 0), 0);
        s.worker("w2", info(1, 1, 0), 0);
        s.reported("w1", vec![c(1)], vec![], 0);
        assert_eq!(
            s.remove_worker("w1", 0),
            vec![Action::Withdraw {
                worker: "w1".into(),
                key: c(1)
            }]
        );
        assert_eq!(assigned(&s.task(c(1), env(), 1, 0)), ["w2"]);
    }

    #[test]
    fn a_full_backlog_discards_the_task() {
        // QUEUE.SCHEDULER.OVERFLOW: two messages (TIBRVCMQ_LIMIT_MSGS).
        let mut s = Schedule::new("sched", 0, 2, 0);
        s.worker("w", info(1, 1, 0), 0);
        s.task(c(1), env(), 10, 0);
        s.task(c(2), env(), 10, 0);
        s.task(c(3), env(), 10, 0);
        assert_eq!(
            s.task(c(4), env(), 10, 0),
            vec![Action::Overflow {
                key: c(4),
                task: env()
            }]
        );
        // 25 bytes (TIBRVCMQ_LIMIT_BYTES): two 10-byte tasks fit, not three.
        let mut s = Schedule::new("sched", 0, 0, 25);
        s.worker("w", info(1, 1, 0), 0);
        s.task(c(1), env(), 10, 0);
        s.task(c(2), env(), 10, 0);
        s.task(c(3), env(), 10, 0);
        assert!(matches!(
            s.task(c(4), env(), 10, 0)[..],
            [Action::Overflow { .. }]
        ));
    }

    #[test]
    fn a_released_task_goes_to_the_next_available_worker() {
        let mut s = Schedule::new("sched", 0, 0, 0);
        s.worker("w2", info(2, 1, 0), 0);
        s.worker("w1", info(1, 1, 0), 0);
        s.task(c(1), env(), 1, 0);
        s.task(c(2), env(), 1, 0);
        s.task(c(3), env(), 1, 0);
        // w2 gives 1 back: it goes first, to w2 again (heaviest, free).
        assert_eq!(assigned(&s.release("w2", c(1), 0)), ["w2"]);
        assert!(s.release("w1", c(1), 0).is_empty(), "w1 does not hold it");
        assert_eq!(s.unassigned(), 1);
    }
}

//! The tasks of one gateway: every task it spawns is registered here, in one
//! of three groups, so that stopping the gateway can wait for each group in
//! turn, end what is still running when the drain bound is reached, and know
//! when the last task has ended (tokio-util `TaskTracker` and
//! `CancellationToken`, one of each per group).
//!
//! A task that is ended is dropped at its next `.await`, like a task aborted
//! with `JoinHandle::abort`: what it held (an open unit of work, a
//! connection) is released then, and open units of work are backed out by
//! `QueueManager::shutdown` afterwards.

use std::future::Future;
use std::sync::Arc;
use tokio::task::JoinHandle;
use tokio_util::sync::CancellationToken;
use tokio_util::task::TaskTracker;
use tokio_util::task::task_tracker::TaskTrackerToken;

/// What a task does, which decides when a stopping gateway waits for it.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum TaskGroup {
    /// Message channels: the channel listener, each receiver connection,
    /// each sender channel. Drained first, while the queue manager still
    /// accepts their puts, so a batch in flight can still be committed.
    Channels,
    /// Requests: the HTTP server and its connections, RPC calls. Drained
    /// after the queue manager quiesced (waiting gets end with 2161).
    Requests,
    /// Timers of units of work (lease and idle expiry). Never waited for;
    /// ended with the rest, after which `QueueManager::shutdown` backs out
    /// what they would have backed out.
    Timers,
}

impl TaskGroup {
    const ALL: [TaskGroup; 3] = [TaskGroup::Channels, TaskGroup::Requests, TaskGroup::Timers];

    fn index(self) -> usize {
        match self {
            TaskGroup::Channels => 0,
            TaskGroup::Requests => 1,
            TaskGroup::Timers => 2,
        }
    }
}

#[derive(Default)]
struct Group {
    tracker: TaskTracker,
    cancel: CancellationToken,
}

/// The task groups of one gateway; clones share them.
#[derive(Clone, Default)]
pub(crate) struct Tasks {
    groups: Arc<[Group; 3]>,
}

/// A task's registration in a group without a future of ours: the task
/// counts as running while this is alive, and should end once `cancel`
/// fires (used for connections that a library spawns itself).
pub(crate) struct Membership {
    pub(crate) token: TaskTrackerToken,
    pub(crate) cancel: CancellationToken,
}

impl Tasks {
    fn group(&self, group: TaskGroup) -> &Group {
        &self.groups[group.index()]
    }

    /// Spawns `future` in `group`. The handle yields `None` when the task was
    /// ended by [`Tasks::end`] before the future finished.
    pub(crate) fn spawn<F>(&self, group: TaskGroup, future: F) -> JoinHandle<Option<F::Output>>
    where
        F: Future + Send + 'static,
        F::Output: Send + 'static,
    {
        let g = self.group(group);
        g.tracker
            .spawn(g.cancel.clone().run_until_cancelled_owned(future))
    }

    /// [`Tasks::spawn`] in [`TaskGroup::Channels`].
    pub(crate) fn spawn_channel<F>(&self, future: F) -> JoinHandle<Option<F::Output>>
    where
        F: Future + Send + 'static,
        F::Output: Send + 'static,
    {
        self.spawn(TaskGroup::Channels, future)
    }

    /// [`Tasks::spawn`] in [`TaskGroup::Requests`].
    pub(crate) fn spawn_request<F>(&self, future: F) -> JoinHandle<Option<F::Output>>
    where
        F: Future + Send + 'static,
        F::Output: Send + 'static,
    {
        self.spawn(TaskGroup::Requests, future)
    }

    /// [`Tasks::spawn`] in [`TaskGroup::Timers`].
    pub(crate) fn spawn_timer<F>(&self, future: F) -> JoinHandle<Option<F::Output>>
    where
        F: Future + Send + 'static,
        F::Output: Send + 'static,
    {
        self.spawn(TaskGroup::Timers, future)
    }

    /// Registers a task that is not spawned through [`Tasks::spawn`].
    pub(crate) fn join(&self, group: TaskGroup) -> Membership {
        let g = self.group(group);
        Membership {
            token: g.tracker.token(),
            cancel: g.cancel.clone(),
        }
    }

    /// The token that ends the tasks of `group`.
    pub(crate) fn cancel_token(&self, group: TaskGroup) -> CancellationToken {
        self.group(group).cancel.clone()
    }

    /// Marks every group as closing: waits can now complete. Tasks spawned
    /// afterwards are still tracked.
    pub(crate) fn close(&self) {
        for g in self.groups.iter() {
            g.tracker.close();
        }
    }

    /// Resolves once every task of `groups` has ended (after [`Tasks::close`]).
    pub(crate) async fn wait(&self, groups: &[TaskGroup]) {
        for &g in groups {
            self.group(g).tracker.wait().await;
        }
    }

    /// Resolves once every task of every group has ended (after [`Tasks::close`]).
    pub(crate) async fn wait_all(&self) {
        self.wait(&TaskGroup::ALL).await;
    }

    /// Ends the tasks of every group: each is dropped at its next `.await`,
    /// and tasks spawned later end at once.
    pub(crate) fn end(&self) {
        for g in self.groups.iter() {
            g.cancel.cancel();
        }
    }

    /// Tasks running in `groups`.
    pub(crate) fn running_in(&self, groups: &[TaskGroup]) -> usize {
        groups.iter().map(|&g| self.group(g).tracker.len()).sum()
    }

    /// Tasks running in every group.
    pub(crate) fn running(&self) -> usize {
        self.running_in(&TaskGroup::ALL)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::time::Duration;

    #[tokio::test]
    async fn wait_ends_when_the_last_task_ends_and_end_drops_the_rest() {
        let tasks = Tasks::default();
        let quick = tasks.spawn(TaskGroup::Requests, async { 7 });
        let (tx, rx) = tokio::sync::oneshot::channel::<()>();
        // Never finishes on its own: holds `tx` until it is dropped.
        let stuck = tasks.spawn(TaskGroup::Channels, async move {
            std::future::pending::<()>().await;
            drop(tx);
        });
        assert_eq!(quick.await.unwrap(), Some(7));
        tasks.close();
        tasks.wait(&[TaskGroup::Requests]).await;
        assert_eq!(tasks.running_in(&[TaskGroup::Channels]), 1);
        let waited = tokio::time::timeout(Duration::from_millis(50), tasks.wait_all()).await;
        assert!(waited.is_err(), "the stuck task must hold wait_all");
        tasks.end();
        tasks.wait_all().await;
        assert_eq!(stuck.await.unwrap(), None);
        // The future was dropped, and with it the sender.
        assert!(rx.await.is_err());
        assert_eq!(tasks.running(), 0);
        // A task spawned after `end` does not run.
        let late = tasks.spawn(TaskGroup::Timers, async { 1 });
        assert_eq!(late.await.unwrap(), None);
    }

    #[tokio::test]
    async fn a_membership_counts_until_dropped() {
        let tasks = Tasks::default();
        let m = tasks.join(TaskGroup::Requests);
        assert_eq!(tasks.running(), 1);
        assert!(!m.cancel.is_cancelled());
        tasks.end();
        assert!(m.cancel.is_cancelled());
        tasks.close();
        drop(m);
        tasks.wait_all().await;
        assert_eq!(tasks.running(), 0);
    }
}

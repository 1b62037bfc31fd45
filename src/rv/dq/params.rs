//! The parameters of a distributed queue member and their defaults
//! (TIBCO Rendezvous C Reference, "tibrvcmTransport_CreateDistributedQueue()",
//! "tibrvcmTransport_SetCompleteTime()", "tibrvcmTransport_SetWorkerTasks()";
//! docs/rendezvous.md "Distributed queues").

use super::error::DqError;

/// Default worker weight (`workerWeight`).
pub const DEFAULT_WORKER_WEIGHT: u32 = 1;
/// Default task capacity (`workerTasks`); 0 makes a dedicated scheduler.
pub const DEFAULT_WORKER_TASKS: u32 = 1;
/// Default scheduler weight (`schedulerWeight`).
pub const DEFAULT_SCHEDULER_WEIGHT: u16 = 1;
/// Default scheduler heartbeat interval, seconds (`schedulerHeartbeat`).
pub const DEFAULT_HEARTBEAT_S: f64 = 1.0;
/// Default scheduler activation interval, seconds (`schedulerActivation`).
pub const DEFAULT_ACTIVATION_S: f64 = 3.5;
/// Default complete time, seconds: 0, never reassign
/// ("tibrvcmTransport_SetCompleteTime()").
pub const DEFAULT_COMPLETE_TIME_S: f64 = 0.0;
/// Shortest heartbeat interval mqgate takes, seconds (**mqgate**: the
/// member's timers tick at a quarter of it, at least every 5 ms).
pub const MIN_HEARTBEAT_S: f64 = 0.01;
/// Longest interval or complete time mqgate takes, seconds (one day).
pub const MAX_INTERVAL_S: f64 = 86_400.0;
/// Most tasks a worker may hold at once (**mqgate**: its task keys travel
/// in one report message).
pub const MAX_WORKER_TASKS: u32 = 65_536;

/// What a member brings to its distributed queue.
#[derive(Clone, Debug, PartialEq)]
pub struct DqParams {
    /// Worker weight: the scheduler gives each task to the available
    /// worker with the greatest weight.
    pub worker_weight: u32,
    /// Task capacity: the tasks the worker holds at once; 0 = a dedicated
    /// scheduler that never works.
    pub worker_tasks: u32,
    /// Scheduler weight: the member with the greatest weight is the
    /// scheduler.
    pub scheduler_weight: u16,
    /// Interval of the members' heartbeats, seconds (> 0).
    pub heartbeat_s: f64,
    /// Silence after which the scheduler (or a worker) counts as gone and
    /// the next member takes over, seconds (> heartbeat).
    pub activation_s: f64,
    /// Time a worker has to complete a certified task before the scheduler
    /// reassigns it, seconds; 0 = never reassign.
    pub complete_time_s: f64,
    /// Task backlog limit in messages while no worker is available
    /// (TIBRVCMQ_LIMIT_MSGS); 0 = none.
    pub backlog_limit_msgs: u64,
    /// Task backlog limit in bytes of the tasks' binary form
    /// (TIBRVCMQ_LIMIT_BYTES); 0 = none.
    pub backlog_limit_bytes: u64,
}

impl Default for DqParams {
    fn default() -> Self {
        DqParams {
            worker_weight: DEFAULT_WORKER_WEIGHT,
            worker_tasks: DEFAULT_WORKER_TASKS,
            scheduler_weight: DEFAULT_SCHEDULER_WEIGHT,
            heartbeat_s: DEFAULT_HEARTBEAT_S,
            activation_s: DEFAULT_ACTIVATION_S,
            complete_time_s: DEFAULT_COMPLETE_TIME_S,
            backlog_limit_msgs: 0,
            backlog_limit_bytes: 0,
        }
    }
}

fn setting(field: &'static str, message: String) -> DqError {
    DqError::Setting { field, message }
}

impl DqParams {
    /// Checks the parameters: intervals finite, heartbeat at least
    /// [`MIN_HEARTBEAT_S`], activation longer than heartbeat (a scheduler
    /// must be able to send a heartbeat before it counts as gone; the same
    /// rule as fault tolerance's "heartbeat < activation",
    /// "tibrvftMember_Create()"), all at most [`MAX_INTERVAL_S`]; complete
    /// time not negative; task capacity at most [`MAX_WORKER_TASKS`].
    ///
    /// Errors: [`DqError::Setting`] naming the parameter.
    pub fn check(&self) -> Result<(), DqError> {
        let h = self.heartbeat_s;
        if !(h.is_finite() && (MIN_HEARTBEAT_S..=MAX_INTERVAL_S).contains(&h)) {
            return Err(setting(
                "scheduler_heartbeat_s",
                format!("scheduler heartbeat {h} s is not {MIN_HEARTBEAT_S} to {MAX_INTERVAL_S} s"),
            ));
        }
        let a = self.activation_s;
        if !(a.is_finite() && a <= MAX_INTERVAL_S) {
            return Err(setting(
                "scheduler_activation_s",
                format!(
                    "scheduler activation {a} s is not a number of seconds up to {MAX_INTERVAL_S}"
                ),
            ));
        }
        if a <= h {
            return Err(setting(
                "scheduler_activation_s",
                format!(
                    "scheduler activation {a} s must be longer than the scheduler heartbeat {h} s"
                ),
            ));
        }
        let c = self.complete_time_s;
        if !(c.is_finite() && (0.0..=MAX_INTERVAL_S).contains(&c)) {
            return Err(setting(
                "complete_time_s",
                format!("complete time {c} s is not 0 to {MAX_INTERVAL_S} s"),
            ));
        }
        if self.worker_tasks > MAX_WORKER_TASKS {
            return Err(setting(
                "worker_tasks",
                format!(
                    "worker tasks {} is over the limit of {MAX_WORKER_TASKS}",
                    self.worker_tasks
                ),
            ));
        }
        Ok(())
    }

    /// The heartbeat interval in ms.
    pub fn heartbeat_ms(&self) -> u64 {
        secs_to_ms(self.heartbeat_s)
    }

    /// The activation interval in ms.
    pub fn activation_ms(&self) -> u64 {
        secs_to_ms(self.activation_s)
    }

    /// The complete time in ms; 0 = never reassign.
    pub fn complete_ms(&self) -> u64 {
        secs_to_ms(self.complete_time_s)
    }
}

/// Seconds as whole ms, rounded up (checked values only).
fn secs_to_ms(s: f64) -> u64 {
    (s * 1000.0).ceil().max(0.0) as u64
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn defaults_are_those_of_create_distributed_queue() {
        // "tibrvcmTransport_CreateDistributedQueue()" and
        // "tibrvcmTransport_SetCompleteTime()": 1, 1, 1, 1.0 s, 3.5 s, 0.
        let p = DqParams::default();
        assert_eq!(
            (p.worker_weight, p.worker_tasks, p.scheduler_weight),
            (1, 1, 1)
        );
        assert_eq!(
            (p.heartbeat_ms(), p.activation_ms(), p.complete_ms()),
            (1000, 3500, 0)
        );
        assert!(p.check().is_ok());
    }

    #[test]
    fn impossible_interval_combinations_are_refused() {
        let bad = |f: fn(&mut DqParams)| {
            let mut p = DqParams::default();
            f(&mut p);
            p.check().unwrap_err()
        };
        let e = bad(|p| p.activation_s = 1.0);
        assert_eq!(e.field(), Some("scheduler_activation_s"));
        assert_eq!(
            e.to_string(),
            "scheduler activation 1 s must be longer than the scheduler heartbeat 1 s"
        );
        assert_eq!(
            bad(|p| p.heartbeat_s = 0.0).field(),
            Some("scheduler_heartbeat_s")
        );
        assert_eq!(
            bad(|p| p.heartbeat_s = f64::NAN).field(),
            Some("scheduler_heartbeat_s")
        );
        assert_eq!(
            bad(|p| p.activation_s = f64::INFINITY).field(),
            Some("scheduler_activation_s")
        );
        assert_eq!(
            bad(|p| p.complete_time_s = -1.0).field(),
            Some("complete_time_s")
        );
        assert_eq!(
            bad(|p| p.worker_tasks = MAX_WORKER_TASKS + 1).field(),
            Some("worker_tasks")
        );
    }
}

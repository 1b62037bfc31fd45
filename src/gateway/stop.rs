//! Stopping a gateway (docs/config.md "Stopping"), in the order of an IBM MQ
//! controlled shutdown (`endmqm -c`): no new work, the work in flight
//! finishes, then the queue manager ends.
//!
//! 1. Stop accepting: the HTTP, channel and MQTT listeners close (MQTT
//!    connections too, their unacknowledged messages backed out); receiver
//!    connections stop reading new batches, sender channels stop after the
//!    batch they are sending; HTTP connections take no further requests;
//!    the Rendezvous subject bus closes (its listeners' event streams end,
//!    requests waiting for a reply answer 503).
//! 2. Channels drain: batches already received are committed and
//!    confirmed, while the queue manager still accepts their puts, until
//!    no channel shows `running` or `retrying` on the status board.
//! 3. The queue manager quiesces: waiting gets (device pulls, RPC calls,
//!    RTQ servers) return 2161 MQRC_Q_MGR_QUIESCING, new calls fail with it,
//!    and the requests in flight finish.
//! 4. At the drain bound, whatever still runs is ended: its task is dropped,
//!    an HTTP request still running is answered 2162 MQRC_Q_MGR_STOPPING,
//!    and the timers of units of work end.
//! 5. Once every task has ended: MQXR_TERM for the queue exits and the RPC
//!    exits, then `QueueManager::shutdown` backs out every open unit of work
//!    (leases, HTTP units of work, batches cut off in step 4).

use super::{Handle, Running};
use crate::channel::ChannelState;
use crate::tasks::TaskGroup;
use std::sync::Arc;
use std::time::Duration;
use tokio::time::{Instant, timeout_at};

/// How a [`Handle::stop`] went.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Stopped {
    /// True when every channel and request task finished within the drain bound.
    pub drained: bool,
    /// Channel and request tasks still running at the drain bound, which
    /// were ended then.
    pub ended: usize,
    /// How long the stop took.
    pub took: Duration,
}

impl Handle {
    /// Stops the gateway (module documentation: the order of the steps):
    /// channel batches and requests in flight get up to `drain` to finish,
    /// then what still runs is ended. Returns once every task of the gateway
    /// has ended, its exits are terminated and its units of work backed out;
    /// the listeners refuse connections from the start of the stop. A
    /// `drain` too long to add to the clock (e.g. `Duration::MAX`) is no
    /// bound: the stop waits for the work in flight however long it takes.
    pub async fn stop(mut self, drain: Duration) -> Stopped {
        let started = Instant::now();
        let Some(r) = self.running.take() else {
            return Stopped {
                drained: true,
                ended: 0,
                took: Duration::ZERO,
            };
        };
        tracing::info!(
            drain_ms = drain.as_millis() as u64,
            "stop requested; finishing requests in flight"
        );
        let deadline = drain_deadline(started, drain);
        // `GET /readyz` answers 503 from here on to the requests in flight.
        r.readiness.stopping();
        r.stop_http.cancel();
        // MQTT connections close at once (DISCONNECT 0x8B), backing out
        // the messages their devices did not acknowledge (docs/mqtt.md).
        r.stop_mqtt.cancel();
        // MQ client connections close, backing out their units of work
        // (docs/mq-client-protocol.md).
        r.stop_svrconn.cancel();
        // Listeners' event streams end and waiting requests answer 503:
        // an open stream would hold its connection to the drain bound.
        r.rv.close();
        r.stop_channels.send_replace(true);
        r.tasks.close();
        let channels = [TaskGroup::Channels];
        let work = [TaskGroup::Channels, TaskGroup::Requests];
        let _ = until(deadline, channels_idle(&r, &channels)).await;
        // Waiting getters return 2161 so the requests can drain promptly.
        r.qm.quiesce();
        let drained = until(deadline, r.tasks.wait(&work)).await.is_some();
        let ended = r.tasks.running_in(&work);
        if !drained {
            tracing::warn!(
                drain_ms = drain.as_millis() as u64,
                tasks = ended,
                "drain bound reached; ending the channels and requests still running"
            );
        }
        r.tasks.end();
        r.tasks.wait_all().await;
        finish(r).await;
        Stopped {
            drained,
            ended,
            took: started.elapsed(),
        }
    }
}

/// When a stop that started at `started` stops waiting: `drain` later, or
/// never (`None`) when that instant is past what the clock can hold
/// (`Instant + Duration` would panic).
fn drain_deadline(started: Instant, drain: Duration) -> Option<Instant> {
    started.checked_add(drain)
}

/// Runs `work` until `deadline` (`None`: no deadline): its output, or `None`
/// when the deadline came first.
async fn until<F: std::future::Future>(deadline: Option<Instant>, work: F) -> Option<F::Output> {
    match deadline {
        Some(at) => timeout_at(at, work).await.ok(),
        None => Some(work.await),
    }
}

/// Resolves once no channel moves messages any more: every channel task
/// has ended, or none shows `running` or `retrying` on the status board
/// (a connection still in its handshake holds no batch, so it does not
/// delay the quiesce; it is ended at the drain bound).
async fn channels_idle(r: &Running, channels: &[TaskGroup]) {
    let idle = async {
        loop {
            let busy = r
                .board
                .all()
                .iter()
                .any(|c| matches!(c.state, ChannelState::Running | ChannelState::Retrying));
            if !busy {
                return;
            }
            tokio::time::sleep(BOARD_POLL).await;
        }
    };
    tokio::select! {
        () = r.tasks.wait(channels) => {}
        () = idle => {}
    }
}

/// How often [`channels_idle`] looks at the status board.
const BOARD_POLL: Duration = Duration::from_millis(10);

/// MQXR_TERM and the queue manager's shutdown, on the blocking pool (exits
/// may be external code; backouts write to the store), once no task can
/// call an exit or the queue manager any more.
async fn finish(r: Running) {
    let Running {
        qm,
        store,
        exits,
        rpc,
        rv_cm,
        rv_dq,
        routing,
        live,
        ..
    } = r;
    // What holds the queue manager besides the tasks goes first: the
    // store below closes only when the last reference is gone.
    drop((rv_dq, rv_cm, routing, live));
    let terminated = tokio::task::spawn_blocking(move || {
        exits.terminate();
        // The last reference: the RPC exit chains end with it.
        drop(rpc);
    })
    .await;
    if let Err(e) = terminated {
        tracing::error!(error = %e, "MQXR_TERM of the exits failed");
    }
    let shut = Arc::clone(&qm);
    if let Err(e) = tokio::task::spawn_blocking(move || shut.shutdown()).await {
        tracing::error!(error = %e, "queue manager shutdown failed");
    }
    // Close the store before the stop returns: a gateway started next on
    // the same directory opens it (redb refuses a file already open).
    let deadline = Instant::now() + RELEASE_BOUND;
    if let Err(others) = release(qm, deadline).await {
        tracing::warn!(
            references = others,
            "the queue manager is still referenced after the stop; the store closes when the last reference goes"
        );
        return;
    }
    while store.strong_count() > 0 {
        if Instant::now() >= deadline {
            tracing::warn!("the store is still referenced after the stop");
            return;
        }
        tokio::time::sleep(RELEASE_POLL).await;
    }
}

/// How long a stop waits, after every task has ended, for the last other
/// reference to the queue manager to go (an ended task being dropped on
/// another worker thread, a store write on the blocking pool that an ended
/// task had started).
const RELEASE_BOUND: Duration = Duration::from_secs(10);

/// How often [`release`] looks whether it holds the last reference.
const RELEASE_POLL: Duration = Duration::from_millis(5);

/// Waits until `arc` is the only reference to its value, then drops the
/// value on the blocking pool (dropping a queue manager closes its store,
/// file I/O) and returns once it is dropped. At `deadline` it gives up and
/// returns how many other references remain (the value is then dropped by
/// whichever goes last).
async fn release<T: Send + 'static>(mut arc: Arc<T>, deadline: Instant) -> Result<(), usize> {
    loop {
        match Arc::try_unwrap(arc) {
            Ok(value) => {
                if let Err(e) = tokio::task::spawn_blocking(move || drop(value)).await {
                    tracing::error!(error = %e, "closing the queue manager failed");
                }
                return Ok(());
            }
            Err(back) => {
                if Instant::now() >= deadline {
                    return Err(Arc::strong_count(&back) - 1);
                }
                arc = back;
                tokio::time::sleep(RELEASE_POLL).await;
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_drain_bound_past_the_clock_is_no_deadline() {
        let now = Instant::now();
        // Instant + Duration::MAX panics ("overflow when adding duration to
        // instant", std::time::Instant's Add): no deadline instead.
        assert_eq!(drain_deadline(now, Duration::MAX), None);
        assert_eq!(
            drain_deadline(now, Duration::from_secs(5)),
            Some(now + Duration::from_secs(5))
        );
        assert_eq!(drain_deadline(now, Duration::ZERO), Some(now));
    }

    /// Sets its flag when dropped, after a pause (as closing a store takes
    /// a while).
    struct Closes(Arc<std::sync::atomic::AtomicBool>);

    impl Drop for Closes {
        fn drop(&mut self) {
            std::thread::sleep(std::time::Duration::from_millis(30));
            self.0.store(true, std::sync::atomic::Ordering::SeqCst);
        }
    }

    #[tokio::test(flavor = "multi_thread", worker_threads = 2)]
    async fn release_returns_once_the_last_other_reference_went_and_the_value_is_dropped() {
        use std::sync::atomic::{AtomicBool, Ordering};
        let closed = Arc::new(AtomicBool::new(false));
        let value = Arc::new(Closes(Arc::clone(&closed)));
        // Another holder, as an ended task still being dropped elsewhere.
        let other = Arc::clone(&value);
        let holder = tokio::spawn(async move {
            tokio::time::sleep(Duration::from_millis(100)).await;
            drop(other);
        });
        let begun = Instant::now();
        let r = release(value, Instant::now() + Duration::from_secs(5)).await;
        assert_eq!(r, Ok(()));
        assert!(begun.elapsed() >= Duration::from_millis(100));
        // Dropped, not only handed over: its drop ran to the end.
        assert!(closed.load(Ordering::SeqCst));
        holder.await.unwrap();
    }

    #[tokio::test]
    async fn release_gives_up_at_the_deadline_naming_the_other_references() {
        let value = Arc::new(7u8);
        let kept = (Arc::clone(&value), Arc::clone(&value));
        let at = Instant::now() + Duration::from_millis(20);
        assert_eq!(release(value, at).await, Err(2));
        assert_eq!(Arc::strong_count(&kept.0), 2);
    }

    #[tokio::test]
    async fn until_waits_without_a_deadline_and_ends_at_one() {
        let slow = tokio::time::sleep(Duration::from_millis(50));
        let begun = Instant::now();
        assert_eq!(
            until(None, async {
                slow.await;
                7
            })
            .await,
            Some(7)
        );
        assert!(begun.elapsed() >= Duration::from_millis(50));
        let at = Instant::now() + Duration::from_millis(10);
        let never = std::future::pending::<()>();
        assert_eq!(until(Some(at), never).await, None);
        assert_eq!(until(Some(at), async { 8 }).await, Some(8));
    }
}

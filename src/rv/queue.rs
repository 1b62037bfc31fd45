//! A listener's queue: bounded, filled by publishers without ever waiting,
//! emptied by the listener (docs/rendezvous.md "Slow listeners").
//!
//! When it is full the oldest message is discarded to make room, as rvd
//! does for a slow consumer (TIBCO Rendezvous Concepts,
//! "CLIENT.SLOWCONSUMER": "the Rendezvous daemon has discarded the oldest
//! inbound messages to make room for new ones"); the count and size of what
//! was discarded come out ahead of the next message, once, as a loss
//! report the listener turns into that advisory.

use std::collections::VecDeque;
use std::sync::Mutex;

use tokio::sync::Notify;

use super::delivery::Delivery;

/// What [`ListenerQueue::take`] found.
#[derive(Debug)]
pub(crate) enum Taken {
    /// The next message.
    Item(Delivery),
    /// Messages were discarded since the last report: how many are waiting,
    /// how many were discarded, their size in bytes.
    Loss {
        waiting: usize,
        dropped: u64,
        bytes_dropped: u64,
    },
    /// Nothing now.
    Empty,
    /// Closed and empty: nothing more will come.
    Closed,
}

#[derive(Debug, Default)]
struct State {
    items: VecDeque<Delivery>,
    dropped: u64,
    bytes_dropped: u64,
    closed: bool,
}

/// The queue; one consumer ([`ListenerQueue::take`] then wait on
/// [`ListenerQueue::wait`]), any number of producers.
#[derive(Debug)]
pub(crate) struct ListenerQueue {
    capacity: usize,
    state: Mutex<State>,
    notify: Notify,
}

impl ListenerQueue {
    /// An empty queue of `capacity` messages (at least 1).
    pub(crate) fn new(capacity: usize) -> ListenerQueue {
        ListenerQueue {
            capacity: capacity.max(1),
            state: Mutex::new(State::default()),
            notify: Notify::new(),
        }
    }

    fn state(&self) -> std::sync::MutexGuard<'_, State> {
        // A panic while holding the lock leaves only counters and a deque,
        // always consistent: keep using them.
        self.state.lock().unwrap_or_else(|p| p.into_inner())
    }

    /// Queues `d`, discarding the oldest message when full. Returns false
    /// (and queues nothing) once the queue is closed; true when it was
    /// queued, whether or not another was discarded for it.
    pub(crate) fn push(&self, d: &Delivery) -> bool {
        {
            let mut s = self.state();
            if s.closed {
                return false;
            }
            if s.items.len() >= self.capacity
                && let Some(old) = s.items.pop_front()
            {
                s.dropped += 1;
                s.bytes_dropped += old.encoded_len() as u64;
            }
            s.items.push_back(d.clone());
        }
        self.notify.notify_one();
        true
    }

    /// Takes what comes next: a loss report when messages were discarded
    /// since the last one (ahead of everything still queued), else the
    /// oldest message.
    pub(crate) fn take(&self) -> Taken {
        let mut s = self.state();
        if s.dropped > 0 {
            let report = Taken::Loss {
                waiting: s.items.len(),
                dropped: s.dropped,
                bytes_dropped: s.bytes_dropped,
            };
            s.dropped = 0;
            s.bytes_dropped = 0;
            return report;
        }
        match s.items.pop_front() {
            Some(d) => Taken::Item(d),
            None if s.closed => Taken::Closed,
            None => Taken::Empty,
        }
    }

    /// Resolves after a push or a close since the last [`take`] that found
    /// nothing (a push before this call is not lost: the wake-up is kept).
    ///
    /// [`take`]: ListenerQueue::take
    pub(crate) async fn wait(&self) {
        self.notify.notified().await;
    }

    /// Takes no more messages; those queued can still be taken.
    pub(crate) fn close(&self) {
        self.state().closed = true;
        self.notify.notify_one();
    }

    /// Messages waiting.
    pub(crate) fn len(&self) -> usize {
        self.state().items.len()
    }
}

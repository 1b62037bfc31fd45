//! Interest watches: being told when interest in a listen subject appears
//! (its first listener) and disappears (its last listener went), the way a
//! routing daemon passes its listeners' interest to its neighbors (TIBCO
//! Rendezvous Administration, "rvrd": "Each rvrd registers interest ... and
//! passes that information to neighbors"; docs/rendezvous.md "Interest").
//!
//! A watch keeps the number of listeners per subject as it stands and, per
//! subject that changed, whether it has reported it: changes are coalesced,
//! so a watcher that reads late reads the present state, and a subject that
//! came and went between two reads is not reported at all. What a watch
//! holds is bounded by the number of distinct listen subjects.

use std::collections::{HashMap, HashSet, VecDeque};
use std::sync::{Arc, Mutex, Weak};

use mqgate_codecs::rv::Subject;
use tokio::sync::Notify;

use super::bus::Inner;
use super::delivery::LinkId;

/// A change of interest in one listen subject.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct InterestChange {
    /// The listen subject, wildcards as the listeners gave them (`ORDERS.>`).
    pub subject: Subject<'static>,
    /// True: someone listens to it now (it had no listener when last
    /// reported); false: no one does any more.
    pub listening: bool,
}

#[derive(Debug, Default)]
struct State {
    /// Listeners per subject, now.
    counts: HashMap<Box<str>, usize>,
    /// Subjects reported as listened to.
    reported: HashSet<Box<str>>,
    /// Subjects whose count crossed zero since they were last looked at.
    dirty: VecDeque<Subject<'static>>,
    queued: HashSet<Box<str>>,
    closed: bool,
}

/// The shared part of a watch, which the bus updates.
#[derive(Debug)]
pub(crate) struct WatchShared {
    /// Listeners of this link are not counted.
    pub(crate) except: Option<LinkId>,
    state: Mutex<State>,
    notify: Notify,
}

impl WatchShared {
    pub(crate) fn new(except: Option<LinkId>) -> WatchShared {
        WatchShared {
            except,
            state: Mutex::new(State::default()),
            notify: Notify::new(),
        }
    }

    fn state(&self) -> std::sync::MutexGuard<'_, State> {
        self.state.lock().unwrap_or_else(|p| p.into_inner())
    }

    /// One listener more (`up`) or less on `subject`, if the listener is
    /// counted by this watch (`link` is its link).
    pub(crate) fn count(&self, subject: &Subject<'static>, link: Option<LinkId>, up: bool) {
        if link.is_some() && link == self.except {
            return;
        }
        let mut s = self.state();
        let key: &str = subject.as_str();
        let crossed = if up {
            let n = s.counts.entry(key.into()).or_insert(0);
            *n += 1;
            *n == 1
        } else {
            match s.counts.get_mut(key) {
                Some(n) if *n > 1 => {
                    *n -= 1;
                    false
                }
                Some(_) => {
                    s.counts.remove(key);
                    true
                }
                None => false,
            }
        };
        if crossed && s.queued.insert(key.into()) {
            s.dirty.push_back(subject.clone());
            drop(s);
            self.notify.notify_one();
        }
    }

    /// Ends the watch: [`InterestWatch::next`] returns `None` once the
    /// changes already made are read.
    pub(crate) fn close(&self) {
        self.state().closed = true;
        self.notify.notify_one();
    }

    /// The next change to report, if any; `Err(())` once closed and
    /// nothing is left.
    fn take(&self) -> Result<Option<InterestChange>, ()> {
        let mut s = self.state();
        while let Some(subject) = s.dirty.pop_front() {
            let key: &str = subject.as_str();
            s.queued.remove(key);
            let listening = s.counts.contains_key(key);
            let was = s.reported.contains(key);
            if listening == was {
                continue;
            }
            if listening {
                s.reported.insert(key.into());
            } else {
                s.reported.remove(key);
            }
            return Ok(Some(InterestChange { subject, listening }));
        }
        if s.closed { Err(()) } else { Ok(None) }
    }
}

/// A watch on the bus's interest, from
/// [`Bus::watch_interest`](super::bus::Bus::watch_interest). Its first
/// changes report every subject listened to when it was made; after that,
/// each subject whose first listener came or whose last went. Dropping it
/// ends the watch.
#[derive(Debug)]
pub struct InterestWatch {
    pub(crate) shared: Arc<WatchShared>,
    pub(crate) bus: Weak<Inner>,
}

impl InterestWatch {
    /// The next change, waiting for one; `None` once the bus is closed
    /// (the gateway is stopping) and the changes made before are read.
    pub async fn next(&mut self) -> Option<InterestChange> {
        loop {
            match self.shared.take() {
                Ok(Some(c)) => return Some(c),
                Ok(None) => self.shared.notify.notified().await,
                Err(()) => return None,
            }
        }
    }

    /// The next change if one is waiting, without waiting.
    pub fn try_next(&mut self) -> Option<InterestChange> {
        self.shared.take().ok().flatten()
    }
}

impl Drop for InterestWatch {
    fn drop(&mut self) {
        if let Some(bus) = self.bus.upgrade() {
            bus.unwatch(&self.shared);
        }
    }
}

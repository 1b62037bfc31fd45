//! The distributed queue members of one gateway (docs/rendezvous.md
//! "Distributed queues"): joining checks the name, the subjects and the
//! parameters and starts the member's task; members joined over HTTP are
//! kept by id, alive while their task stream is open.

use std::collections::HashMap;
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Arc, Mutex, MutexGuard};
use std::time::{Duration, Instant};

use mqgate_codecs::rv::{Mode, NameKind, Subject, check_reusable_name};
use tokio::sync::mpsc;

use super::error::DqError;
use super::member::{self, DqMember, MemberControl, MemberEvent, Setup};
use super::params::DqParams;
use crate::rv::Bus;
use crate::rv::cm::CmTransports;
use crate::tasks::Tasks;

/// A member joined over HTTP whose task stream was never opened leaves
/// after this long.
pub const UNCLAIMED_TIMEOUT: Duration = Duration::from_secs(60);
/// How often unclaimed and ended members are looked for.
const SWEEP: Duration = Duration::from_secs(1);

/// The distributed queue members of a gateway; clones share them.
#[derive(Clone)]
pub struct DistributedQueues(Arc<Inner>);

struct Inner {
    bus: Bus,
    cm: CmTransports,
    tasks: Tasks,
    /// `<16 hex digits>-`: member ids begin with the gateway's digits.
    prefix: String,
    next: AtomicU64,
    kept: Mutex<HashMap<String, Slot>>,
}

struct Slot {
    control: MemberControl,
    events: Option<mpsc::UnboundedReceiver<MemberEvent>>,
    joined: Instant,
}

/// Checks a join: the queue name ("Reusable Names"), its subjects (listen
/// subjects without a reserved first element: programs send tasks to
/// them) and the parameters.
///
/// Errors: [`DqError::Name`], [`DqError::NoSubjects`],
/// [`DqError::Subject`], [`DqError::Setting`].
pub fn check_join(name: &str, subjects: &[String], params: &DqParams) -> Result<(), DqError> {
    check_reusable_name(name, NameKind::DistributedQueue).map_err(|error| DqError::Name {
        name: name.to_string(),
        error,
    })?;
    if subjects.is_empty() {
        return Err(DqError::NoSubjects);
    }
    for s in subjects {
        let p = Subject::parse(s, Mode::Listen).map_err(|error| DqError::Subject {
            subject: s.clone(),
            error,
        })?;
        if p.class().is_reserved() {
            return Err(DqError::Setting {
                field: "subjects",
                message: format!(
                    "task subject {} begins with a reserved element: programs cannot send tasks to it",
                    crate::mqi::names::shown(s)
                ),
            });
        }
    }
    params.check()
}

impl DistributedQueues {
    /// The members of a gateway over `bus`, whose schedulers listen through
    /// the CM transports `cm`; member tasks run in `tasks`.
    pub(crate) fn start(bus: &Bus, cm: &CmTransports, tasks: &Tasks) -> DistributedQueues {
        let prefix = format!(
            "{}-",
            bus.inbox_prefix()["_INBOX.".len()..].trim_end_matches('.')
        );
        let q = DistributedQueues(Arc::new(Inner {
            bus: bus.clone(),
            cm: cm.clone(),
            tasks: tasks.clone(),
            prefix,
            next: AtomicU64::new(1),
            kept: Mutex::new(HashMap::new()),
        }));
        tasks.spawn_timer(q.clone().sweep());
        q
    }

    fn lock(&self) -> MutexGuard<'_, HashMap<String, Slot>> {
        self.0.kept.lock().unwrap_or_else(|p| p.into_inner())
    }

    /// Joins distributed queue `name` as a member listening to `subjects`
    /// ("tibrvcmTransport_CreateDistributedQueueEx()"): the member's
    /// heartbeats start, and it becomes the scheduler when it ranks first.
    ///
    /// Errors: those of [`check_join`]; [`DqError::Bus`] (the gateway is
    /// stopping).
    pub fn join(
        &self,
        name: &str,
        subjects: &[String],
        params: DqParams,
    ) -> Result<DqMember, DqError> {
        check_join(name, subjects, &params)?;
        let n = self.0.next.fetch_add(1, Ordering::Relaxed);
        let setup = Setup {
            id: format!("{}{n}", self.0.prefix),
            name: name.to_string(),
            subjects: subjects.to_vec(),
            params,
            bus: self.0.bus.clone(),
            cm: self.0.cm.clone(),
        };
        let listener = member::listen(&setup)?;
        let (commands, command_rx) = mpsc::unbounded_channel();
        let (events_tx, events) = mpsc::unbounded_channel();
        let control = MemberControl::new(setup.id.clone(), name.to_string(), commands);
        let handle = self
            .0
            .tasks
            .spawn_timer(member::run(setup, listener, command_rx, events_tx));
        Ok(DqMember {
            control,
            events,
            abort: handle.abort_handle(),
            leave_on_drop: true,
        })
    }

    /// Joins as [`DistributedQueues::join`] and keeps the member by id
    /// until its task stream ([`DistributedQueues::take_events`]) ends, or
    /// [`UNCLAIMED_TIMEOUT`] passes without one.
    ///
    /// Errors: as [`DistributedQueues::join`].
    pub fn join_kept(
        &self,
        name: &str,
        subjects: &[String],
        params: DqParams,
    ) -> Result<MemberControl, DqError> {
        let (control, events) = self.join(name, subjects, params)?.into_parts();
        self.lock().insert(
            control.id().to_string(),
            Slot {
                control: control.clone(),
                events: Some(events),
                joined: Instant::now(),
            },
        );
        Ok(control)
    }

    /// The control of kept member `id`.
    ///
    /// Errors: [`DqError::UnknownMember`].
    pub fn control(&self, id: &str) -> Result<MemberControl, DqError> {
        self.lock()
            .get(id)
            .filter(|s| !s.control.is_closed())
            .map(|s| s.control.clone())
            .ok_or_else(|| DqError::UnknownMember {
                member: id.to_string(),
            })
    }

    /// The events of kept member `id`, once: whoever reads them keeps the
    /// member, which leaves when the [`StreamGuard`] is dropped.
    ///
    /// Errors: [`DqError::UnknownMember`], [`DqError::StreamOpen`].
    pub fn take_events(
        &self,
        id: &str,
    ) -> Result<(mpsc::UnboundedReceiver<MemberEvent>, StreamGuard), DqError> {
        let mut map = self.lock();
        let slot = map
            .get_mut(id)
            .filter(|s| !s.control.is_closed())
            .ok_or_else(|| DqError::UnknownMember {
                member: id.to_string(),
            })?;
        let events = slot.events.take().ok_or_else(|| DqError::StreamOpen {
            member: id.to_string(),
        })?;
        Ok((
            events,
            StreamGuard {
                queues: self.clone(),
                id: id.to_string(),
            },
        ))
    }

    /// Makes kept member `id` leave.
    ///
    /// Errors: [`DqError::UnknownMember`].
    pub fn leave(&self, id: &str) -> Result<(), DqError> {
        let slot = self
            .lock()
            .remove(id)
            .ok_or_else(|| DqError::UnknownMember {
                member: id.to_string(),
            })?;
        slot.control.leave();
        Ok(())
    }

    async fn sweep(self) {
        let mut tick = tokio::time::interval(SWEEP);
        loop {
            tick.tick().await;
            if self.0.bus.is_closed() {
                return;
            }
            let gone: Vec<Slot> = {
                let mut map = self.lock();
                let ids: Vec<String> = map
                    .iter()
                    .filter(|(_, s)| {
                        s.control.is_closed()
                            || (s.events.is_some() && s.joined.elapsed() >= UNCLAIMED_TIMEOUT)
                    })
                    .map(|(id, _)| id.clone())
                    .collect();
                ids.iter().filter_map(|id| map.remove(id)).collect()
            };
            for s in gone {
                s.control.leave();
            }
        }
    }
}

/// Held by whoever reads a kept member's events; dropping it makes the
/// member leave (the HTTP task stream closed: its program is gone).
pub struct StreamGuard {
    queues: DistributedQueues,
    id: String,
}

impl Drop for StreamGuard {
    fn drop(&mut self) {
        let _ = self.queues.leave(&self.id);
    }
}

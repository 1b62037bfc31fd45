//! A CM transport at run time: the sender and listener ledgers of one
//! correspondent, the tasks that move its protocol messages over the
//! subject bus, and its certified listeners (docs/rendezvous.md
//! "Certified delivery"; C Reference, "tibrvcmTransport_Create()",
//! "tibrvcmTransport_Send()", "tibrvcmListener_Create()",
//! "tibrvcmEvent_ConfirmMsg()").
//!
//! The ledgers are the state machines of `sender.rs` and `listener.rs`;
//! this module only locks them, writes what changed to the store before
//! the call that changed it returns (a durable ledger), and publishes what
//! they say to publish. Two tasks run per transport: the sender's (its
//! `_RVCM.SENDER.<name>` subject and `_RVCM.REQUEST_OLD`; time limits and
//! DELIVERY.NO_RESPONSE every [`TICK`]) and the listener's (its
//! `_RVCM.LISTENER.<name>` subject and its listeners' subjects, in one bus
//! listener so that a sender's acceptance and its later messages arrive in
//! the order sent; registration retries).

use std::collections::HashMap;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Mutex, MutexGuard};
use std::time::{Duration, Instant};

use mqgate_codecs::rv::msg::{Envelope, Limits};
use mqgate_codecs::rv::{Mode, Subject, Validation};
use tokio::sync::{mpsc, oneshot};
use tokio_util::sync::CancellationToken;

use super::error::CmError;
use super::listener::{ConfirmError, Inbound, ListenerLedger, ListenerOut};
use super::protocol::{
    REQUEST_OLD_SUBJECT, RequestOld, ToListener, ToSender, listener_subject, sender_subject,
};
use super::record;
use super::sender::{SenderLedger, SenderOut};
use crate::mqi::{Mqi, QmError};
use crate::rv::bus_error::SubjectRole;
use crate::rv::config::LIMIT_MAX_MESSAGE_BYTES;
use crate::rv::{Bus, BusError, Listener, ListenerOptions, Origin};

/// How often the sender looks for passed time limits and unresponsive
/// listeners, and the listener for unanswered registration requests.
pub const TICK: Duration = Duration::from_millis(200);

/// Messages a certified listener's stream holds before the transport
/// waits for it (the bus queues behind it; "Slow listeners").
pub const STREAM_QUEUE: usize = 1024;

/// Length of the queue of the bus listener that carries protocol
/// messages to a sender: large, so that a burst of confirmations is not
/// discarded.
const PROTOCOL_QUEUE: usize = 1 << 16;

/// Where a transport keeps its ledger.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum LedgerKind {
    /// In memory: gone when the transport closes or the gateway stops
    /// ("tibrvcmTransport_Create()", `ledgerName` NULL).
    Memory,
    /// In the gateway's store, written before each send and confirmation
    /// returns (a file ledger with `syncLedger` TRUE).
    Store,
}

impl LedgerKind {
    /// `memory` or `store`.
    pub fn as_str(self) -> &'static str {
        match self {
            LedgerKind::Memory => "memory",
            LedgerKind::Store => "store",
        }
    }
}

/// How a certified listener confirms ("tibrvcmEvent_SetExplicitConfirm()").
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum ConfirmMode {
    /// Each certified message is confirmed when it is handed over.
    Auto,
    /// The program confirms each one ([`CmTransport::confirm`]).
    Explicit,
}

/// The settings of a transport.
#[derive(Clone, Debug, PartialEq)]
pub struct Settings {
    /// Where its ledger is.
    pub ledger: LedgerKind,
    /// Ask senders for unconfirmed messages when a listener starts
    /// (`requestOld`).
    pub request_old: bool,
    /// Time limit of a send that gives none, seconds; 0 = none
    /// ("tibrvcmTransport_SetDefaultCMTimeLimit()").
    pub default_time_limit_s: f64,
    /// Interval of DELIVERY.NO_RESPONSE, ms.
    pub no_response_ms: u64,
    /// A transport that is not persistent closes after this long without
    /// a call and without an open listener.
    pub idle_timeout: Duration,
}

/// A message handed to a certified listener: the envelope with its labels
/// as the program sees them (sequence 0: not certified).
#[derive(Clone, Debug)]
pub struct CmDelivery {
    /// The message.
    pub envelope: Envelope,
}

/// What a send did.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Sent {
    /// The sequence number the message got.
    pub sequence: u64,
    /// Bus listeners it was queued for.
    pub listeners: usize,
    /// Registered listeners the ledger keeps it for until they confirm it
    /// (0: kept for no one, delivered at most once).
    pub kept: usize,
}

/// State records of a ledger change (name, bytes), for a caller that
/// writes them in its own store transaction ([`CmTransport::send_with`],
/// [`CmTransport::confirm_with`]): a bridge commits them with the unit of
/// work of its get or put ([`crate::mqi::Mqi::commit_with_meta_now`]).
pub type Records = Vec<(String, Vec<u8>)>;

/// One open certified listener of the transport.
struct StreamEntry {
    patterns: Vec<Subject<'static>>,
    tx: mpsc::Sender<CmDelivery>,
}

#[derive(Default)]
struct Streams {
    next: u64,
    open: HashMap<u64, StreamEntry>,
}

enum Command {
    Add(Vec<String>, oneshot::Sender<Result<(), BusError>>),
    Remove(Vec<String>),
}

/// A CM transport; clones share it.
#[derive(Clone)]
pub struct CmTransport(pub(super) Arc<Inner>);

pub(super) struct Inner {
    name: String,
    reusable: bool,
    settings: Settings,
    bus: Bus,
    store: Option<Mqi>,
    sender: tokio::sync::Mutex<SenderLedger>,
    listener: tokio::sync::Mutex<ListenerLedger>,
    streams: Mutex<Streams>,
    commands: mpsc::UnboundedSender<Command>,
    cancel: CancellationToken,
    closed: AtomicBool,
    last_used: Mutex<Instant>,
}

/// Milliseconds since the Unix epoch: ledger times survive restarts.
pub fn now_ms() -> u64 {
    std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map_or(0, |d| d.as_millis() as u64)
}

fn lock<T>(m: &Mutex<T>) -> MutexGuard<'_, T> {
    m.lock().unwrap_or_else(|p| p.into_inner())
}

/// Limits for reading stored messages: the largest the bus can be set to,
/// so that a lowered `rv.max_message_bytes` does not make a ledger
/// unreadable.
fn stored_limits() -> Limits {
    Limits {
        max_bytes: LIMIT_MAX_MESSAGE_BYTES,
        ..Limits::default()
    }
}

/// True when listen subject `p` receives a message on `s` as the bus
/// delivers: a leading wildcard never reaches a reserved subject
/// (docs/rendezvous.md "Reserved subjects on the bus").
fn receives(p: &Subject<'_>, s: &Subject<'_>) -> bool {
    if s.class().is_reserved() && matches!(p.first_element(), "*" | ">") {
        return false;
    }
    p.matches(s)
}

impl CmTransport {
    /// Opens transport `name` over `bus`: reads its ledger from the store
    /// (through `mqi`) when it is a store ledger, registers its protocol
    /// subjects and starts its tasks.
    ///
    /// Errors: [`CmError::Store`], [`CmError::Record`] (the ledger cannot
    /// be read), [`CmError::Bus`] (the gateway is stopping).
    pub(super) async fn open(
        name: String,
        reusable: bool,
        settings: Settings,
        bus: &Bus,
        mqi: &Mqi,
    ) -> Result<CmTransport, CmError> {
        let store = (settings.ledger == LedgerKind::Store).then(|| mqi.clone());
        let (sender, listener) = match &store {
            Some(m) => load_ledgers(&name, m).await?,
            None => (SenderLedger::new(&name), ListenerLedger::new(&name)),
        };
        let sender_bus = bus.listen(
            &[sender_subject(&name).as_str(), REQUEST_OLD_SUBJECT],
            ListenerOptions {
                name: format!("CM sender {name}"),
                queue_len: Some(PROTOCOL_QUEUE),
                link: None,
            },
        )?;
        let listener_bus = bus.listen(
            &[listener_subject(&name).as_str()],
            ListenerOptions {
                name: format!("CM listener {name}"),
                queue_len: Some(PROTOCOL_QUEUE),
                link: None,
            },
        )?;
        let (commands, command_rx) = mpsc::unbounded_channel();
        let t = CmTransport(Arc::new(Inner {
            name,
            reusable,
            settings,
            bus: bus.clone(),
            store,
            sender: tokio::sync::Mutex::new(sender),
            listener: tokio::sync::Mutex::new(listener),
            streams: Mutex::new(Streams::default()),
            commands,
            cancel: CancellationToken::new(),
            closed: AtomicBool::new(false),
            last_used: Mutex::new(Instant::now()),
        }));
        let tasks = mqi.tasks();
        tasks.spawn_timer(t.clone().run_sender(sender_bus));
        tasks.spawn_timer(t.clone().run_listener(listener_bus, command_rx));
        Ok(t)
    }

    /// The correspondent name.
    pub fn name(&self) -> &str {
        &self.0.name
    }

    /// True for a reusable name, false for a generated one.
    pub fn reusable(&self) -> bool {
        self.0.reusable
    }

    /// A persistent correspondent: a reusable name with a store ledger,
    /// which outlives its clients and the gateway's restarts.
    pub fn persistent(&self) -> bool {
        self.0.reusable && self.0.settings.ledger == LedgerKind::Store
    }

    /// Its settings.
    pub fn settings(&self) -> &Settings {
        &self.0.settings
    }

    /// True once closed.
    pub fn is_closed(&self) -> bool {
        self.0.closed.load(Ordering::Acquire)
    }

    /// Marks the transport used now (a client keeps it).
    pub fn touch(&self) {
        *lock(&self.0.last_used) = Instant::now();
    }

    /// True when it is not persistent, has no open listener and was not
    /// used for its idle timeout.
    pub(super) fn idle(&self) -> bool {
        !self.persistent()
            && lock(&self.0.streams).open.is_empty()
            && lock(&self.0.last_used).elapsed() >= self.0.settings.idle_timeout
    }

    /// Open certified listeners.
    pub fn listeners_open(&self) -> usize {
        lock(&self.0.streams).open.len()
    }

    /// Sends `envelope` certified ("tibrvcmTransport_Send()"): labels it
    /// (sender name, the subject's next sequence number, `time_limit_s` or
    /// the default; "tibrvMsg_SetCMTimeLimit()"), keeps it in the ledger
    /// for the listeners registered for its subject (written to the store
    /// first for a store ledger) and publishes it.
    ///
    /// Errors: [`CmError::Bus`] (the subject in certified send mode, the
    /// reply subject as a program's, the message's size), [`CmError::Setting`]
    /// (a time limit that is negative or not finite), [`CmError::Store`].
    pub async fn send(
        &self,
        envelope: Envelope,
        time_limit_s: Option<f64>,
    ) -> Result<Sent, CmError> {
        let (envelope, time_limit) = self.checked_send(envelope, time_limit_s)?;
        let mut ledger = self.0.sender.lock().await;
        let labeled = ledger.send(envelope, time_limit, now_ms());
        let sequence = labeled.cm.as_ref().map_or(0, |c| c.sequence);
        let kept = ledger.kept_for(&labeled.subject, sequence);
        self.persist_sender(&mut ledger).await?;
        let listeners = self.0.bus.publish(labeled, Origin::Gateway)?;
        Ok(Sent {
            sequence,
            listeners,
            kept,
        })
    }

    /// [`CmTransport::send`] with the ledger's change written by `commit`
    /// (on the blocking pool) in the caller's own store transaction, so
    /// that the send and the caller's work are durable together or not at
    /// all: a bridge's get from a queue is committed with the records
    /// (docs/rendezvous.md "Bridge to MQ queues").
    ///
    /// - Kept for registered listeners: `commit(records)`, then the
    ///   message is published; when `commit` fails the send is undone (its
    ///   number is given again, nothing is kept or published).
    /// - Kept for no one: the message is published first; when no listener
    ///   received it the send is undone and `commit` is not called
    ///   (`listeners` and `kept` are 0: the caller still holds its work);
    ///   otherwise `commit(records)`.
    ///
    /// Errors: as [`CmTransport::send`], before `commit` is called;
    /// [`CmError::Store`] only when `commit` failed.
    pub async fn send_with<F>(
        &self,
        envelope: Envelope,
        time_limit_s: Option<f64>,
        commit: F,
    ) -> Result<Sent, CmError>
    where
        F: FnOnce(Records) -> Result<(), QmError> + Send + 'static,
    {
        let (envelope, time_limit) = self.checked_send(envelope, time_limit_s)?;
        let mut ledger = self.0.sender.lock().await;
        let labeled = ledger.send(envelope, time_limit, now_ms());
        let sequence = labeled.cm.as_ref().map_or(0, |c| c.sequence);
        let kept = ledger.kept_for(&labeled.subject, sequence);
        let records = match self.sender_records(&mut ledger) {
            Ok(r) => r,
            Err(e) => {
                ledger.undo_send(&labeled);
                return Err(e);
            }
        };
        if kept > 0 {
            if let Err(e) = Mqi::blocking(move || commit(records)).await {
                ledger.undo_send(&labeled);
                return Err(CmError::Store(e));
            }
            // Kept durably: a message the bus does not take now (it is
            // closing) is sent again when its listeners ask (requestOld).
            let listeners = self.0.bus.publish(labeled, Origin::Gateway).unwrap_or(0);
            return Ok(Sent {
                sequence,
                listeners,
                kept,
            });
        }
        let listeners = match self.0.bus.publish(labeled.clone(), Origin::Gateway) {
            Ok(n) => n,
            Err(e) => {
                ledger.undo_send(&labeled);
                return Err(e.into());
            }
        };
        if listeners == 0 {
            ledger.undo_send(&labeled);
            return Ok(Sent {
                sequence,
                listeners,
                kept,
            });
        }
        if let Err(e) = Mqi::blocking(move || commit(records)).await {
            // Listeners have it under this number: keep the number, and
            // write the state with the next change.
            ledger.state_unwritten();
            return Err(CmError::Store(e));
        }
        Ok(Sent {
            sequence,
            listeners,
            kept,
        })
    }

    /// The checks of a certified send; the envelope without labels and its
    /// time limit.
    fn checked_send(
        &self,
        mut envelope: Envelope,
        time_limit_s: Option<f64>,
    ) -> Result<(Envelope, f64), CmError> {
        self.touch();
        check_send_subject(&envelope.subject)?;
        self.0
            .bus
            .check_subject(&envelope.subject, Origin::Client)?;
        if let Some(reply) = &envelope.reply_subject {
            Subject::parse(reply, Validation::SEND).map_err(|error| BusError::Subject {
                role: SubjectRole::ReplySubject,
                text: reply.clone(),
                error,
            })?;
        }
        let time_limit = time_limit_s.unwrap_or(self.0.settings.default_time_limit_s);
        if !(time_limit.is_finite() && time_limit >= 0.0) {
            return Err(CmError::Setting {
                field: "time_limit_s",
                message: format!("time limit {time_limit} s is not a number of seconds >= 0"),
            });
        }
        envelope.cm = None;
        // The size as the bus will check it, before the ledger keeps it.
        let mut sized = envelope.clone();
        sized.cm = Some(mqgate_codecs::rv::msg::CmLabels {
            sender: self.0.name.clone(),
            sequence: u64::MAX,
            time_limit,
        });
        sized
            .encode(self.0.bus.limits())
            .map_err(|e| CmError::Bus(BusError::Message(e)))?;
        Ok((envelope, time_limit))
    }

    /// The number of listeners registered for `subject`, whom a message
    /// sent on it now would be kept for (AddListener or an accepted
    /// registration), whether they listen now or not.
    pub async fn registered_listeners(&self, subject: &str) -> usize {
        self.0.sender.lock().await.registered_for(subject)
    }

    /// Pre-registers `listener` for `subject`
    /// ("tibrvcmTransport_AddListener()"). False when it was registered
    /// already.
    ///
    /// Errors: [`CmError::Name`], [`CmError::Bus`] (the subject, in
    /// certified send mode), [`CmError::Disallowed`], [`CmError::Store`].
    pub async fn add_listener(&self, listener: &str, subject: &str) -> Result<bool, CmError> {
        self.touch();
        check_listener_name(listener)?;
        check_send_subject(subject)?;
        let mut ledger = self.0.sender.lock().await;
        let added = ledger
            .add_listener(listener, subject)
            .map_err(|_| CmError::Disallowed {
                listener: listener.to_string(),
            })?;
        self.persist_sender(&mut ledger).await?;
        Ok(added)
    }

    /// Disallows `listener` ("tibrvcmTransport_DisallowListener()"). False
    /// when it was disallowed already.
    ///
    /// Errors: [`CmError::Name`], [`CmError::Store`].
    pub async fn disallow_listener(&self, listener: &str) -> Result<bool, CmError> {
        self.touch();
        check_listener_name(listener)?;
        let mut ledger = self.0.sender.lock().await;
        let (newly, out) = ledger.disallow(listener);
        self.persist_sender(&mut ledger).await?;
        self.publish_sender_out(out);
        Ok(newly)
    }

    /// Allows a disallowed listener again
    /// ("tibrvcmTransport_AllowListener()"). False when it was not
    /// disallowed.
    ///
    /// Errors: [`CmError::Name`], [`CmError::Store`].
    pub async fn allow_listener(&self, listener: &str) -> Result<bool, CmError> {
        self.touch();
        check_listener_name(listener)?;
        let mut ledger = self.0.sender.lock().await;
        let was = ledger.allow(listener);
        self.persist_sender(&mut ledger).await?;
        Ok(was)
    }

    /// Confirms message `seqno` of `subject` from `sender`
    /// ("tibrvcmEvent_ConfirmMsg()"): recorded in the ledger (on disk for
    /// a store ledger) before the sender is told and this returns.
    ///
    /// Errors: [`CmError::NotCertified`], [`CmError::NotDelivered`],
    /// [`CmError::Store`].
    pub async fn confirm(&self, sender: &str, subject: &str, seqno: u64) -> Result<(), CmError> {
        self.touch();
        let mut ledger = self.0.listener.lock().await;
        let out = ledger
            .confirm(sender, subject, seqno)
            .map_err(|e| confirm_error(e, sender, subject, seqno))?;
        self.persist_listener(&mut ledger).await?;
        drop(ledger);
        self.publish_listener_out(out);
        Ok(())
    }

    /// [`CmTransport::confirm`] with the listener ledger's record written
    /// by `commit` (on the blocking pool) in the caller's own store
    /// transaction, so that the confirmation and the caller's work are
    /// durable together or not at all: a bridge commits its put to a queue
    /// with it (docs/rendezvous.md "Bridge to MQ queues"). The ledger
    /// changes, and the sender is told, only once `commit` succeeded;
    /// `commit` gets no record when the message was confirmed already or
    /// the ledger is in memory.
    ///
    /// Errors: [`CmError::NotCertified`], [`CmError::NotDelivered`] (before
    /// `commit` is called); [`CmError::Store`] when `commit` failed.
    pub async fn confirm_with<F>(
        &self,
        sender: &str,
        subject: &str,
        seqno: u64,
        commit: F,
    ) -> Result<(), CmError>
    where
        F: FnOnce(Records) -> Result<(), QmError> + Send + 'static,
    {
        self.touch();
        let mut ledger = self.0.listener.lock().await;
        let mut draft = ledger.clone();
        let out = draft
            .confirm(sender, subject, seqno)
            .map_err(|e| confirm_error(e, sender, subject, seqno))?;
        let mut records = Vec::new();
        if draft.take_dirty() && self.0.store.is_some() {
            records.push((
                record::listener_key(&self.0.name),
                record::encode_listener(&draft.stored()),
            ));
        }
        Mqi::blocking(move || commit(records)).await?;
        *ledger = draft;
        drop(ledger);
        self.publish_listener_out(out);
        Ok(())
    }

    /// A certified listener on `subjects` ("tibrvcmListener_Create()"):
    /// labeled messages come with their sequence number when delivery is
    /// certified and 0 when not; with `requestOld` every sender is asked
    /// for what this correspondent did not confirm on those subjects.
    ///
    /// Errors: [`CmError::Bus`] (no subject, an invalid one, an inbox,
    /// the gateway stopping), [`CmError::UnknownTransport`] (closed).
    pub async fn listen(
        &self,
        subjects: &[String],
        mode: ConfirmMode,
    ) -> Result<CmListener, CmError> {
        self.touch();
        if self.is_closed() {
            return Err(CmError::UnknownTransport {
                name: self.0.name.clone(),
            });
        }
        if subjects.is_empty() {
            return Err(BusError::NoSubjects.into());
        }
        let mut patterns = Vec::with_capacity(subjects.len());
        for s in subjects {
            let p = Subject::parse(s, Mode::Listen).map_err(|error| BusError::Subject {
                role: SubjectRole::Listen,
                text: s.clone(),
                error,
            })?;
            if p.class() == mqgate_codecs::rv::SubjectClass::Inbox {
                return Err(BusError::InboxByName { text: s.clone() }.into());
            }
            patterns.push(p.into_owned());
        }
        // The stream before the bus subjects: a message on them may come
        // as soon as the bus has them, and a publisher waiting for the
        // interest they make (a queue bridge) sends at once.
        let (tx, rx) = mpsc::channel(STREAM_QUEUE);
        let id = {
            // A new session: what was handed over but not confirmed may
            // come again (requestOld), what was confirmed never. It starts
            // with the stream, under the ledger's lock, so that no message
            // is marked handed over in the new session while no stream of
            // it can take it.
            let mut ledger = self.0.listener.lock().await;
            ledger.new_session();
            let mut streams = lock(&self.0.streams);
            streams.next += 1;
            let id = streams.next;
            streams.open.insert(id, StreamEntry { patterns, tx });
            id
        };
        let (reply, added) = oneshot::channel();
        let added = match self.0.commands.send(Command::Add(subjects.to_vec(), reply)) {
            Ok(()) => added.await.unwrap_or(Err(BusError::Closed)),
            Err(_) => Err(BusError::Closed),
        };
        if let Err(e) = added {
            lock(&self.0.streams).open.remove(&id);
            return Err(e.into());
        }
        if self.0.settings.request_old {
            let ask = RequestOld {
                listener: self.0.name.clone(),
                patterns: subjects.to_vec(),
            };
            self.publish(ask.to_envelope());
        }
        Ok(CmListener {
            transport: self.clone(),
            id,
            subjects: subjects.to_vec(),
            mode,
            rx,
        })
    }

    /// What the ledgers hold now: kept messages, registrations, disallowed
    /// listeners, agreements.
    pub async fn snapshot(&self) -> Snapshot {
        let s = self.0.sender.lock().await;
        let mut pending: Vec<(String, u64, Vec<String>)> = s
            .pending()
            .map(|p| {
                (
                    p.envelope.subject.clone(),
                    p.envelope.cm.as_ref().map_or(0, |c| c.sequence),
                    p.waiting.iter().cloned().collect(),
                )
            })
            .collect();
        pending.sort();
        let registrations = s
            .state()
            .registrations
            .iter()
            .flat_map(|(l, subjects)| {
                subjects
                    .iter()
                    .map(move |(subject, begin)| (l.clone(), subject.clone(), *begin))
            })
            .collect();
        let disallowed = s.state().disallowed.iter().cloned().collect();
        drop(s);
        let l = self.0.listener.lock().await;
        let agreements = l
            .agreements()
            .map(|((sender, subject), a)| AgreementView {
                sender: sender.clone(),
                subject: subject.clone(),
                state: a.state,
                confirmed_through: a.confirmed.floor(),
            })
            .collect();
        Snapshot {
            pending,
            registrations,
            disallowed,
            agreements,
        }
    }

    /// Closes the transport: its tasks end, its listeners end, and a
    /// transport with a generated name (which can never come back) closes
    /// its certified agreements with their senders. With `discard` a store
    /// ledger is emptied (the records are written empty).
    pub(super) async fn close(&self, discard: bool) -> Result<(), CmError> {
        if self.0.closed.swap(true, Ordering::AcqRel) {
            return Ok(());
        }
        self.0.cancel.cancel();
        lock(&self.0.streams).open.clear();
        if !self.0.reusable {
            let l = self.0.listener.lock().await;
            for a in l.stored() {
                let close = ToSender::Close {
                    listener: self.0.name.clone(),
                    subject: a.subject.clone(),
                };
                self.publish(close.to_envelope(&a.sender));
            }
        }
        if discard && let Some(mqi) = &self.0.store {
            let s = self.0.sender.lock().await;
            let name = &self.0.name;
            let mut records = vec![
                (record::transport_key(name), Vec::new()),
                (record::sender_key(name), Vec::new()),
                (record::listener_key(name), Vec::new()),
            ];
            for slot in 0..s.state().slots {
                records.push((record::slot_key(name, slot), Vec::new()));
            }
            mqi.put_meta(records).await?;
        }
        Ok(())
    }

    fn publish(&self, envelope: Envelope) {
        if let Err(e) = self.0.bus.publish(envelope, Origin::Gateway) {
            tracing::debug!(cm_name = %self.0.name, error = %e, "certified delivery: not published");
        }
    }

    fn publish_sender_out(&self, out: Vec<SenderOut>) {
        for o in out {
            match o {
                SenderOut::Advisory(a) => self.publish(a.into_envelope()),
                SenderOut::ToListener { listener, msg } => self.publish(msg.to_envelope(&listener)),
            }
        }
    }

    fn publish_listener_out(&self, out: Vec<ListenerOut>) {
        for o in out {
            match o {
                ListenerOut::Advisory(a) => self.publish(a.into_envelope()),
                ListenerOut::ToSender { sender, msg } => self.publish(msg.to_envelope(&sender)),
            }
        }
    }

    /// Writes what changed in the sender's ledger (a store ledger).
    async fn persist_sender(&self, ledger: &mut SenderLedger) -> Result<(), CmError> {
        let records = self.sender_records(ledger)?;
        if let Some(mqi) = &self.0.store
            && !records.is_empty()
        {
            mqi.put_meta(records).await?;
        }
        Ok(())
    }

    /// The records of what changed in the sender's ledger (none for a
    /// memory ledger).
    fn sender_records(&self, ledger: &mut SenderLedger) -> Result<Records, CmError> {
        let (state, slots) = ledger.take_dirty();
        if self.0.store.is_none() {
            return Ok(Vec::new());
        }
        let name = &self.0.name;
        let mut records = Vec::new();
        if state {
            records.push((
                record::sender_key(name),
                record::encode_sender_state(ledger.state()),
            ));
        }
        for slot in slots {
            let bytes =
                record::encode_slot(ledger.in_slot(slot), &stored_limits()).map_err(|problem| {
                    CmError::Record(record::RecordError {
                        key: record::slot_key(name, slot),
                        problem,
                    })
                })?;
            records.push((record::slot_key(name, slot), bytes));
        }
        Ok(records)
    }

    /// Writes the listener's ledger when it changed (a store ledger).
    async fn persist_listener(&self, ledger: &mut ListenerLedger) -> Result<(), CmError> {
        if !ledger.take_dirty() {
            return Ok(());
        }
        let Some(mqi) = &self.0.store else {
            return Ok(());
        };
        let bytes = record::encode_listener(&ledger.stored());
        mqi.put_meta(vec![(record::listener_key(&self.0.name), bytes)])
            .await?;
        Ok(())
    }

    /// The sender's task: protocol messages from listeners, time limits,
    /// DELIVERY.NO_RESPONSE.
    async fn run_sender(self, mut bus: Listener) {
        let mut tick = tokio::time::interval(TICK);
        tick.set_missed_tick_behavior(tokio::time::MissedTickBehavior::Delay);
        loop {
            tokio::select! {
                _ = self.0.cancel.cancelled() => break,
                d = bus.recv() => match d {
                    Some(d) => self.sender_inbound(d.envelope()).await,
                    None => break,
                },
                _ = tick.tick() => {
                    let mut ledger = self.0.sender.lock().await;
                    let now = now_ms();
                    let mut out = ledger.expire(now);
                    out.extend(ledger.no_response(now, self.0.settings.no_response_ms));
                    if let Err(e) = self.persist_sender(&mut ledger).await {
                        tracing::error!(cm_name = %self.0.name, error = %e, "certified delivery: ledger not written");
                    }
                    self.publish_sender_out(out);
                }
            }
        }
    }

    async fn sender_inbound(&self, env: &Envelope) {
        if env.subject == REQUEST_OLD_SUBJECT {
            match RequestOld::from_message(&env.message) {
                Ok(ask) => {
                    let patterns: Vec<Subject<'_>> = ask
                        .patterns
                        .iter()
                        .filter_map(|p| Subject::parse(p, Mode::Listen).ok())
                        .collect();
                    let ledger = self.0.sender.lock().await;
                    let out = ledger.request_old(&ask.listener, &patterns);
                    self.publish_sender_out(out);
                }
                Err(e) => {
                    tracing::warn!(cm_name = %self.0.name, error = %e, "certified delivery: unreadable request for old messages");
                }
            }
            return;
        }
        let msg = match ToSender::from_message(&env.message) {
            Ok(m) => m,
            Err(e) => {
                tracing::warn!(cm_name = %self.0.name, error = %e, "certified delivery: unreadable protocol message");
                return;
            }
        };
        let mut ledger = self.0.sender.lock().await;
        let out = match msg {
            ToSender::Register { listener, subject } => ledger.register(&listener, &subject),
            ToSender::Confirm {
                listener,
                subject,
                seqno,
            } => ledger.confirm(&listener, &subject, seqno),
            ToSender::Resend {
                listener,
                subject,
                seqno_begin,
                seqno_end,
            } => ledger.resend(&listener, &subject, seqno_begin, seqno_end),
            ToSender::Close { listener, subject } => ledger.close(&listener, &subject),
        };
        if let Err(e) = self.persist_sender(&mut ledger).await {
            tracing::error!(cm_name = %self.0.name, error = %e, "certified delivery: ledger not written");
        }
        self.publish_sender_out(out);
    }

    /// The listener's task: protocol messages from senders and the
    /// messages of its listeners' subjects.
    async fn run_listener(self, mut bus: Listener, mut commands: mpsc::UnboundedReceiver<Command>) {
        let mut counts: HashMap<String, usize> = HashMap::new();
        let mut tick = tokio::time::interval(TICK);
        tick.set_missed_tick_behavior(tokio::time::MissedTickBehavior::Delay);
        loop {
            tokio::select! {
                _ = self.0.cancel.cancelled() => break,
                c = commands.recv() => match c {
                    Some(Command::Add(subjects, reply)) => {
                        let mut result = Ok(());
                        let mut added: Vec<&String> = Vec::new();
                        for s in &subjects {
                            if counts.get(s).copied().unwrap_or(0) == 0
                                && let Err(e) = bus.add(s)
                            {
                                result = Err(e);
                                break;
                            }
                            *counts.entry(s.clone()).or_default() += 1;
                            added.push(s);
                        }
                        if result.is_err() {
                            // Undo this listener's part: it is not registered.
                            for s in added {
                                if let Some(n) = counts.get_mut(s) {
                                    *n -= 1;
                                    if *n == 0 {
                                        counts.remove(s);
                                        bus.remove(s);
                                    }
                                }
                            }
                        }
                        // Whoever asked may have gone meanwhile; its
                        // listener's drop removes its subjects then.
                        let _ = reply.send(result);
                    }
                    Some(Command::Remove(subjects)) => {
                        for s in subjects {
                            if let Some(n) = counts.get_mut(&s) {
                                *n -= 1;
                                if *n == 0 {
                                    counts.remove(&s);
                                    bus.remove(&s);
                                }
                            }
                        }
                    }
                    None => break,
                },
                d = bus.recv() => match d {
                    Some(d) => self.listener_inbound(d.envelope().clone()).await,
                    None => break,
                },
                _ = tick.tick() => {
                    let out = self.0.listener.lock().await.tick(now_ms());
                    self.publish_listener_out(out);
                }
            }
        }
        // The bus closed or the transport did: end the listeners' streams.
        lock(&self.0.streams).open.clear();
    }

    async fn listener_inbound(&self, env: Envelope) {
        if env.subject.starts_with(super::protocol::LISTENER_PREFIX) {
            match ToListener::from_message(&env.message) {
                Ok(ToListener::Accept {
                    sender,
                    subject,
                    seqno_begin,
                }) => {
                    let mut ledger = self.0.listener.lock().await;
                    let out = ledger.accept(&sender, &subject, seqno_begin);
                    if let Err(e) = self.persist_listener(&mut ledger).await {
                        tracing::error!(cm_name = %self.0.name, error = %e, "certified delivery: ledger not written");
                    }
                    self.publish_listener_out(out);
                }
                Ok(ToListener::Refuse { sender, subject }) => {
                    let mut ledger = self.0.listener.lock().await;
                    let out = ledger.refuse(&sender, &subject);
                    if let Err(e) = self.persist_listener(&mut ledger).await {
                        tracing::error!(cm_name = %self.0.name, error = %e, "certified delivery: ledger not written");
                    }
                    self.publish_listener_out(out);
                }
                Ok(ToListener::Redeliver(e)) => self.labeled(e, true).await,
                Err(e) => {
                    tracing::warn!(cm_name = %self.0.name, error = %e, "certified delivery: unreadable protocol message");
                }
            }
            return;
        }
        if env.cm.is_some() {
            self.labeled(env, false).await;
        } else {
            self.dispatch(env).await;
        }
    }

    async fn labeled(&self, mut env: Envelope, redelivered: bool) {
        let Some(labels) = env.cm.clone() else {
            return;
        };
        let (inbound, out) =
            self.0
                .listener
                .lock()
                .await
                .labeled(&labels, &env.subject, redelivered, now_ms());
        self.publish_listener_out(out);
        if let Inbound::Deliver { sequence } = inbound {
            if let Some(cm) = env.cm.as_mut() {
                cm.sequence = sequence;
            }
            self.dispatch(env).await;
        }
    }

    /// Hands `env` to every open listener whose subjects match it.
    async fn dispatch(&self, env: Envelope) {
        let Ok(subject) = Subject::parse_delivered(&env.subject) else {
            return;
        };
        let targets: Vec<mpsc::Sender<CmDelivery>> = lock(&self.0.streams)
            .open
            .values()
            .filter(|s| s.patterns.iter().any(|p| receives(p, &subject)))
            .map(|s| s.tx.clone())
            .collect();
        for tx in targets {
            // A listener that ended meanwhile simply misses it; certified
            // messages it did not confirm stay in the sender's ledger.
            let _ = tx
                .send(CmDelivery {
                    envelope: env.clone(),
                })
                .await;
        }
    }
}

/// The refusal of a confirmation, naming the message.
fn confirm_error(e: ConfirmError, sender: &str, subject: &str, seqno: u64) -> CmError {
    let (sender, subject) = (sender.to_string(), subject.to_string());
    match e {
        ConfirmError::NotCertified => CmError::NotCertified {
            sender,
            subject,
            seqno,
        },
        ConfirmError::NotDelivered => CmError::NotDelivered {
            sender,
            subject,
            seqno,
        },
    }
}

/// Checks the subject of a certified send: certified send mode ("Subject
/// Name Syntax": never a wildcard, no reserved first element but
/// `_LOCAL` and `_INBOX`).
///
/// Errors: [`BusError::Subject`] (role `Subject`).
pub fn check_send_subject(subject: &str) -> Result<(), BusError> {
    Subject::parse(subject, Mode::SendCertified)
        .map(|_| ())
        .map_err(|error| BusError::Subject {
            role: SubjectRole::Subject,
            text: subject.to_string(),
            error,
        })
}

/// Checks a listener's correspondent name: a reusable name or one mqgate
/// generated (both obey the subject syntax, without wildcards).
fn check_listener_name(name: &str) -> Result<(), CmError> {
    Subject::parse(name, Mode::SendCertified)
        .map(|_| ())
        .map_err(|error| CmError::Name {
            field: "listener",
            name: name.to_string(),
            error,
        })
}

/// Reads the ledgers of store transport `name`.
async fn load_ledgers(name: &str, mqi: &Mqi) -> Result<(SenderLedger, ListenerLedger), CmError> {
    let key = record::sender_key(name);
    let state = match mqi.meta(&key).await? {
        Some(b) => record::decode_sender_state(&key, &b).map_err(CmError::Record)?,
        None => Default::default(),
    };
    let mut kept = Vec::new();
    let prefix = record::slot_prefix(name);
    for (k, bytes) in mqi.meta_prefixed(&prefix).await? {
        let Ok(slot) = k[prefix.len()..].parse::<u32>() else {
            continue;
        };
        if let Some(p) =
            record::decode_slot(&k, slot, &bytes, &stored_limits()).map_err(CmError::Record)?
        {
            kept.push(p);
        }
    }
    let key = record::listener_key(name);
    let agreements = match mqi.meta(&key).await? {
        Some(b) => record::decode_listener(&key, &b).map_err(CmError::Record)?,
        None => Vec::new(),
    };
    Ok((
        SenderLedger::restore(name, state, kept),
        ListenerLedger::restore(name, agreements),
    ))
}

/// What [`CmTransport::snapshot`] gives.
#[derive(Clone, Debug)]
pub struct Snapshot {
    /// Kept messages: (subject, sequence number, listeners waiting).
    pub pending: Vec<(String, u64, Vec<String>)>,
    /// Registrations: (listener, subject, first certified number).
    pub registrations: Vec<(String, String, u64)>,
    /// Disallowed listeners.
    pub disallowed: Vec<String>,
    /// The listener's agreements.
    pub agreements: Vec<AgreementView>,
}

/// One agreement of the listener's ledger.
#[derive(Clone, Debug)]
pub struct AgreementView {
    /// The sender.
    pub sender: String,
    /// The subject.
    pub subject: String,
    /// Where it stands.
    pub state: super::listener::AgreementState,
    /// Every number up to this one is confirmed.
    pub confirmed_through: u64,
}

/// A certified listener ("tibrvcmListener_Create()"); dropping it ends it.
pub struct CmListener {
    transport: CmTransport,
    id: u64,
    subjects: Vec<String>,
    mode: ConfirmMode,
    rx: mpsc::Receiver<CmDelivery>,
}

impl CmListener {
    /// The next message; `None` once the transport closed or the gateway
    /// is stopping. With [`ConfirmMode::Auto`] a certified message is
    /// confirmed before it is returned (the callback's return, for a
    /// program that reads a stream).
    pub async fn recv(&mut self) -> Option<CmDelivery> {
        let d = self.rx.recv().await?;
        self.transport.touch();
        if self.mode == ConfirmMode::Auto
            && let Some(cm) = &d.envelope.cm
            && cm.sequence > 0
            && let Err(e) = self
                .transport
                .confirm(&cm.sender, &d.envelope.subject, cm.sequence)
                .await
        {
            tracing::warn!(cm_name = %self.transport.name(), error = %e, "certified delivery: automatic confirmation failed");
        }
        Some(d)
    }

    /// Its listen subjects.
    pub fn subjects(&self) -> &[String] {
        &self.subjects
    }

    /// Its confirmation mode.
    pub fn mode(&self) -> ConfirmMode {
        self.mode
    }

    /// Its transport.
    pub fn transport(&self) -> &CmTransport {
        &self.transport
    }
}

impl Drop for CmListener {
    fn drop(&mut self) {
        lock(&self.transport.0.streams).open.remove(&self.id);
        let _ = self
            .transport
            .0
            .commands
            .send(Command::Remove(std::mem::take(&mut self.subjects)));
        self.transport.touch();
    }
}

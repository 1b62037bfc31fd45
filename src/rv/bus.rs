//! The subject bus: Rendezvous-style publish/subscribe inside one gateway
//! (docs/rendezvous.md "Subject bus").
//!
//! Listeners hold listen subjects (checked in listen mode) and a bounded
//! queue each; [`Bus::publish`] checks the message and its subjects for who
//! publishes it ([`Origin`]), finds the listeners whose subjects match in
//! one [`InterestIndex`] and queues the message once for each, never
//! waiting: a full queue discards its oldest message for that listener
//! alone. Inboxes (`_INBOX.<gateway>.<n>`) are made for one listener;
//! `_LOCAL.` and `_RV.` subjects never reach a link's listener; a listen
//! subject whose first element is a wildcard never matches a subject whose
//! first element is reserved (`_RV.`, `_INBOX.`, `_LOCAL.`, ...).
//!
//! The bus is what certified delivery, routing links and the queue and
//! NATS bridges build on: [`Origin::Gateway`] publishes as mqgate itself,
//! [`Listener`] is a listener in Rust, [`Bus::has_interest`] asks whether
//! anyone listens, [`Bus::watch_interest`] tells when interest appears and
//! disappears, [`Bus::request`] sends a request and waits for its reply.

use std::collections::HashMap;
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::sync::{Arc, RwLock, RwLockReadGuard, RwLockWriteGuard};
use std::time::Duration;

use mqgate_codecs::rv::msg::{Envelope, Limits};
use mqgate_codecs::rv::{InterestIndex, Mode, Subject, SubjectClass, Validation, matches};

use super::advisory::Advisory;
use super::bus_error::{BusError, SubjectRole};
use super::config::{LIMIT_LISTENER_QUEUE, RvConfig};
use super::delivery::{Delivery, LinkId, Origin};
use super::listener::{Listener, ListenerId, ListenerOptions};
use super::queue::ListenerQueue;
use super::watch::{InterestWatch, WatchShared};

/// The subject bus of one gateway; clones share it.
#[derive(Clone, Debug)]
pub struct Bus(Arc<Inner>);

/// What the bus and its listeners and watches share.
#[derive(Debug)]
pub(crate) struct Inner {
    config: RvConfig,
    limits: Limits,
    /// `_INBOX.<16 hex digits>.`: this bus's inboxes begin with it.
    inbox_prefix: String,
    next_inbox: AtomicU64,
    next_id: AtomicU64,
    next_link: AtomicU64,
    closed: AtomicBool,
    state: RwLock<State>,
}

#[derive(Debug, Default)]
struct State {
    index: InterestIndex<ListenerId>,
    listeners: HashMap<ListenerId, Entry>,
    watchers: Vec<Arc<WatchShared>>,
}

#[derive(Debug)]
struct Entry {
    queue: Arc<ListenerQueue>,
    /// Listen subjects and inboxes, in the order added, each once.
    patterns: Vec<Subject<'static>>,
    link: Option<LinkId>,
}

/// True when the first element of `pattern` is `*` or `>`.
fn leading_wildcard(pattern: &Subject<'_>) -> bool {
    matches!(pattern.first_element(), "*" | ">")
}

/// Whether the listener of `entry` (found by the index for `subject`)
/// receives a message on `subject` from `origin`.
fn receives(entry: &Entry, subject: &Subject<'_>, origin: Origin) -> bool {
    let class = subject.class();
    if let Some(link) = entry.link {
        if matches!(class, SubjectClass::Local | SubjectClass::Advisory) {
            return false;
        }
        if origin == Origin::Link(link) {
            return false;
        }
    }
    if class.is_reserved() {
        // A leading wildcard does not reach reserved subjects: only a
        // listen subject that names the first element does.
        return entry
            .patterns
            .iter()
            .any(|p| !leading_wildcard(p) && matches(p, subject));
    }
    true
}

/// Sixteen hex digits that no other gateway (or run of this one) is
/// likely to use: the middle element of this bus's inbox names, and the
/// name of a gateway on the NATS bus between gateways (src/bus/).
pub(crate) fn gateway_unique() -> String {
    let mut b = [0u8; 8];
    if getrandom::fill(&mut b).is_err() {
        // No random source: the clock and the process id still differ
        // between runs and hosts' processes.
        let nanos = std::time::SystemTime::now()
            .duration_since(std::time::UNIX_EPOCH)
            .map(|d| d.as_nanos() as u64)
            .unwrap_or(0);
        b = (nanos ^ (u64::from(std::process::id()) << 32)).to_be_bytes();
    }
    hex::encode_upper(b)
}

impl Bus {
    /// A bus with `config`'s limits (`rv:`, docs/config.md), with no
    /// listener.
    pub fn new(config: &RvConfig) -> Bus {
        let limits = Limits {
            max_bytes: config.max_message_bytes,
            ..Limits::default()
        };
        Bus(Arc::new(Inner {
            config: config.clone(),
            limits,
            inbox_prefix: format!("_INBOX.{}.", gateway_unique()),
            next_inbox: AtomicU64::new(1),
            next_id: AtomicU64::new(1),
            next_link: AtomicU64::new(1),
            closed: AtomicBool::new(false),
            state: RwLock::new(State::default()),
        }))
    }

    /// Its settings.
    pub fn config(&self) -> &RvConfig {
        &self.0.config
    }

    /// The limits messages must keep: `rv.max_message_bytes`, and the
    /// default depth and field count of mqgate's binary form.
    pub fn limits(&self) -> &Limits {
        &self.0.limits
    }

    /// `_INBOX.<16 hex digits>.`: every inbox of this bus begins with it.
    pub fn inbox_prefix(&self) -> &str {
        &self.0.inbox_prefix
    }

    /// Publishes `envelope` for `origin`: checks its subject and reply
    /// subject for the origin ([`Origin`]) and the message against
    /// [`Bus::limits`], then queues it once for each listener that
    /// receives it. Returns how many that is (0 is no error: a message no
    /// one listens to is simply not delivered, as in Rendezvous).
    ///
    /// Errors: [`BusError::Subject`] (with the role `Subject` or
    /// `ReplySubject`), [`BusError::NotFromLink`], [`BusError::Message`]
    /// (too large: TIBRV_INVALID_SIZE), [`BusError::Closed`].
    pub fn publish(&self, envelope: Envelope, origin: Origin) -> Result<usize, BusError> {
        self.0.publish(envelope, origin)
    }

    /// Checks `subject` as the send subject of a message `origin` would
    /// publish, without publishing: the first check [`Bus::publish`] makes.
    ///
    /// Errors: [`BusError::Subject`] (role `Subject`),
    /// [`BusError::NotFromLink`].
    pub fn check_subject(&self, subject: &str, origin: Origin) -> Result<(), BusError> {
        self.0.check_send(subject, origin).map(|_| ())
    }

    /// Publishes an advisory as mqgate ([`Origin::Gateway`]). Returns how
    /// many listeners it was queued for.
    ///
    /// Errors: as [`Bus::publish`] (a name that makes no valid subject).
    pub fn publish_advisory(&self, advisory: Advisory) -> Result<usize, BusError> {
        self.0.publish(advisory.into_envelope(), Origin::Gateway)
    }

    /// A listener on `subjects` (at least one; each checked in listen mode;
    /// `_INBOX.` subjects only with [`ListenerOptions::link`]).
    ///
    /// Errors: [`BusError::NoSubjects`], [`BusError::Subject`] (role
    /// `Listen`, the first subject refused), [`BusError::InboxByName`],
    /// [`BusError::Closed`]. Nothing is registered on error.
    pub fn listen(
        &self,
        subjects: &[&str],
        options: ListenerOptions,
    ) -> Result<Listener, BusError> {
        if subjects.is_empty() {
            return Err(BusError::NoSubjects);
        }
        let mut patterns = Vec::with_capacity(subjects.len());
        for s in subjects {
            patterns.push(check_listen(s, options.link)?);
        }
        Inner::register(&self.0, patterns, options)
    }

    /// A listener with one new inbox (`_INBOX.<gateway>.<n>`, see
    /// [`Listener::inbox`]) and no other subject.
    ///
    /// Errors: [`BusError::Closed`].
    pub fn listen_inbox(&self, options: ListenerOptions) -> Result<Listener, BusError> {
        let mut l = Inner::register(&self.0, Vec::new(), options)?;
        l.new_inbox()?;
        Ok(l)
    }

    /// Request and reply (TIBCO Rendezvous Concepts, "Inbox Names"; C
    /// Reference, "tibrvTransport_SendRequest()"): makes an inbox, publishes
    /// `envelope` with it as reply subject, and waits up to `timeout` for
    /// the first message on it. `Ok(None)` when none came in time.
    ///
    /// Errors: as [`Bus::publish`]; [`BusError::Closed`] also when the bus
    /// closes while waiting.
    pub async fn request(
        &self,
        mut envelope: Envelope,
        origin: Origin,
        timeout: Duration,
    ) -> Result<Option<Delivery>, BusError> {
        let mut inbox = self.listen_inbox(ListenerOptions {
            name: format!("request on {}", envelope.subject),
            ..ListenerOptions::default()
        })?;
        envelope.reply_subject = inbox.inbox().map(str::to_string);
        self.publish(envelope, origin)?;
        match tokio::time::timeout(timeout, inbox.recv()).await {
            Ok(Some(reply)) => Ok(Some(reply)),
            Ok(None) => Err(BusError::Closed),
            Err(_) => Ok(None),
        }
    }

    /// True when a listener would receive a message published on
    /// `subject` by mqgate ([`Origin::Gateway`]): the routing daemon's "is
    /// there a listener" question, without publishing anything.
    pub fn has_interest(&self, subject: &Subject<'_>) -> bool {
        let state = self.0.read();
        if !subject.class().is_reserved() {
            return state.index.has_interest(subject);
        }
        let mut ids = Vec::new();
        state.index.lookup_into(subject, &mut ids);
        ids.iter().any(|id| {
            state
                .listeners
                .get(id)
                .is_some_and(|e| receives(e, subject, Origin::Gateway))
        })
    }

    /// A watch on interest ([`InterestWatch`]): every listen subject held
    /// now, then each one whose first listener comes or whose last goes.
    /// Listeners of link `except` are not counted, so a link does not
    /// hear back the interest it registered itself.
    pub fn watch_interest(&self, except: Option<LinkId>) -> InterestWatch {
        let shared = Arc::new(WatchShared::new(except));
        {
            let mut state = self.0.write();
            for entry in state.listeners.values() {
                for p in &entry.patterns {
                    shared.count(p, entry.link, true);
                }
            }
            if self.0.closed.load(Ordering::Acquire) {
                shared.close();
            }
            state.watchers.push(Arc::clone(&shared));
        }
        InterestWatch {
            shared,
            bus: Arc::downgrade(&self.0),
        }
    }

    /// A new link number, for [`Origin::Link`] and
    /// [`ListenerOptions::link`].
    pub fn new_link(&self) -> LinkId {
        LinkId(self.0.next_link.fetch_add(1, Ordering::Relaxed))
    }

    /// Listeners registered now.
    pub fn listeners(&self) -> usize {
        self.0.read().listeners.len()
    }

    /// Closes the bus (the gateway is stopping): publishes and new
    /// listeners are refused ([`BusError::Closed`]), each listener gets
    /// what is queued for it and then `None`, each interest watch ends.
    pub fn close(&self) {
        self.0.closed.store(true, Ordering::Release);
        let state = self.0.write();
        for entry in state.listeners.values() {
            entry.queue.close();
        }
        for w in &state.watchers {
            w.close();
        }
    }

    /// True once [`Bus::close`] was called.
    pub fn is_closed(&self) -> bool {
        self.0.closed.load(Ordering::Acquire)
    }
}

/// Checks a listen subject for a listener of `link` (or none).
fn check_listen(text: &str, link: Option<LinkId>) -> Result<Subject<'static>, BusError> {
    let s = Subject::parse(text, Mode::Listen).map_err(|error| BusError::Subject {
        role: SubjectRole::Listen,
        text: text.to_string(),
        error,
    })?;
    if s.class() == SubjectClass::Inbox && link.is_none() {
        return Err(BusError::InboxByName {
            text: text.to_string(),
        });
    }
    Ok(s.into_owned())
}

impl Inner {
    fn read(&self) -> RwLockReadGuard<'_, State> {
        // Every update leaves the state consistent before anything that
        // could panic: keep using it after a panic elsewhere.
        self.state.read().unwrap_or_else(|p| p.into_inner())
    }

    fn write(&self) -> RwLockWriteGuard<'_, State> {
        self.state.write().unwrap_or_else(|p| p.into_inner())
    }

    /// The send subject checked for `origin`.
    fn check_send<'s>(&self, text: &'s str, origin: Origin) -> Result<Subject<'s>, BusError> {
        let refused = |error| BusError::Subject {
            role: SubjectRole::Subject,
            text: text.to_string(),
            error,
        };
        match origin {
            Origin::Client => {
                let v = Validation::SEND.allow_wildcard_send(self.config.wildcard_publish);
                Subject::parse(text, v).map_err(refused)
            }
            Origin::Gateway => Subject::parse_internal(text).map_err(refused),
            Origin::Link(_) => {
                let s = Subject::parse(text, Mode::Listen).map_err(refused)?;
                match s.class() {
                    class @ (SubjectClass::Local | SubjectClass::Advisory) => {
                        Err(BusError::NotFromLink {
                            text: text.to_string(),
                            class,
                        })
                    }
                    _ => Ok(s),
                }
            }
        }
    }

    /// The reply subject checked for `origin`: a subject someone can send
    /// to, never with wildcards.
    fn check_reply(&self, text: &str, origin: Origin) -> Result<(), BusError> {
        let checked = match origin {
            Origin::Client => Subject::parse(text, Validation::SEND),
            Origin::Gateway | Origin::Link(_) => Subject::parse_internal(text),
        };
        checked.map(|_| ()).map_err(|error| BusError::Subject {
            role: SubjectRole::ReplySubject,
            text: text.to_string(),
            error,
        })
    }

    fn publish(&self, envelope: Envelope, origin: Origin) -> Result<usize, BusError> {
        if self.closed.load(Ordering::Acquire) {
            return Err(BusError::Closed);
        }
        let subject = self.check_send(&envelope.subject, origin)?.into_owned();
        if let Some(reply) = &envelope.reply_subject {
            self.check_reply(reply, origin)?;
        }
        let encoded = envelope.encode(&self.limits).map_err(BusError::Message)?;
        let delivery = Delivery::new(envelope, encoded, origin);
        let state = self.read();
        let mut ids = Vec::new();
        state.index.lookup_into(&subject, &mut ids);
        let mut delivered = 0;
        for id in ids {
            if let Some(entry) = state.listeners.get(&id)
                && receives(entry, &subject, origin)
                && entry.queue.push(&delivery)
            {
                delivered += 1;
            }
        }
        Ok(delivered)
    }

    /// Registers a listener with checked `patterns` (may be empty: an
    /// inbox follows).
    fn register(
        this: &Arc<Inner>,
        patterns: Vec<Subject<'static>>,
        options: ListenerOptions,
    ) -> Result<Listener, BusError> {
        let capacity = options
            .queue_len
            .unwrap_or(this.config.listener_queue)
            .clamp(1, LIMIT_LISTENER_QUEUE);
        let queue = Arc::new(ListenerQueue::new(capacity));
        let id = ListenerId(this.next_id.fetch_add(1, Ordering::Relaxed));
        {
            let mut state = this.write();
            // Checked under the lock: a close that took it first has closed
            // every queue, and would not close this one.
            if this.closed.load(Ordering::Acquire) {
                return Err(BusError::Closed);
            }
            let mut entry = Entry {
                queue: Arc::clone(&queue),
                patterns: Vec::with_capacity(patterns.len()),
                link: options.link,
            };
            for p in patterns {
                if !entry.patterns.contains(&p) {
                    state.index.insert(&p, id);
                    for w in &state.watchers {
                        w.count(&p, entry.link, true);
                    }
                    entry.patterns.push(p);
                }
            }
            state.listeners.insert(id, entry);
        }
        Ok(Listener {
            id,
            queue,
            bus: Arc::downgrade(this),
            name: options.name,
            inbox: None,
        })
    }

    /// Adds a checked `pattern` to listener `id`; false when it had it.
    fn add_checked(&self, id: ListenerId, pattern: Subject<'static>) -> Result<bool, BusError> {
        let mut state = self.write();
        if self.closed.load(Ordering::Acquire) {
            return Err(BusError::Closed);
        }
        let State {
            index,
            listeners,
            watchers,
        } = &mut *state;
        let Some(entry) = listeners.get_mut(&id) else {
            return Err(BusError::Closed);
        };
        if entry.patterns.contains(&pattern) {
            return Ok(false);
        }
        index.insert(&pattern, id);
        for w in watchers.iter() {
            w.count(&pattern, entry.link, true);
        }
        entry.patterns.push(pattern);
        Ok(true)
    }

    pub(crate) fn add_pattern(&self, id: ListenerId, text: &str) -> Result<bool, BusError> {
        let link = self.read().listeners.get(&id).and_then(|e| e.link);
        let pattern = check_listen(text, link)?;
        self.add_checked(id, pattern)
    }

    pub(crate) fn add_inbox(&self, id: ListenerId) -> Result<String, BusError> {
        let n = self.next_inbox.fetch_add(1, Ordering::Relaxed);
        let name = format!("{}{n}", self.inbox_prefix);
        let subject = Subject::parse_internal(&name)
            .map_err(|error| BusError::Subject {
                role: SubjectRole::Listen,
                text: name.clone(),
                error,
            })?
            .into_owned();
        self.add_checked(id, subject)?;
        Ok(name)
    }

    pub(crate) fn remove_pattern(&self, id: ListenerId, text: &str) -> bool {
        let Ok(pattern) = Subject::parse(text, Mode::Listen) else {
            return false;
        };
        let mut state = self.write();
        let State {
            index,
            listeners,
            watchers,
        } = &mut *state;
        let Some(entry) = listeners.get_mut(&id) else {
            return false;
        };
        let Some(at) = entry.patterns.iter().position(|p| *p == pattern) else {
            return false;
        };
        let p = entry.patterns.remove(at);
        index.remove(&p, id);
        for w in watchers.iter() {
            w.count(&p, entry.link, false);
        }
        true
    }

    pub(crate) fn remove_listener(&self, id: ListenerId) {
        let mut state = self.write();
        let Some(entry) = state.listeners.remove(&id) else {
            return;
        };
        entry.queue.close();
        for p in &entry.patterns {
            state.index.remove(p, id);
            for w in &state.watchers {
                w.count(p, entry.link, false);
            }
        }
    }

    pub(crate) fn patterns_of(&self, id: ListenerId) -> Vec<String> {
        self.read()
            .listeners
            .get(&id)
            .map(|e| e.patterns.iter().map(|p| p.as_str().to_string()).collect())
            .unwrap_or_default()
    }

    pub(crate) fn unwatch(&self, shared: &Arc<WatchShared>) {
        self.write().watchers.retain(|w| !Arc::ptr_eq(w, shared));
    }
}

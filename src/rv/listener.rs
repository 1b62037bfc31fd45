//! Listeners of the subject bus: one or more listen subjects and a bounded
//! queue of the messages that matched (docs/rendezvous.md "Subject bus").

use std::fmt;
use std::sync::{Arc, Weak};

use super::advisory::Advisory;
use super::bus::Inner;
use super::bus_error::BusError;
use super::delivery::{Delivery, LinkId, Origin};
use super::queue::{ListenerQueue, Taken};

/// A listener's number, unique in its bus for the gateway's lifetime.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct ListenerId(pub(crate) u64);

impl fmt::Display for ListenerId {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}", self.0)
    }
}

/// How a listener is made.
#[derive(Clone, Debug, Default)]
pub struct ListenerOptions {
    /// What the listener is, for logs (`HTTP 127.0.0.1:50312`, `link to
    /// GW2`).
    pub name: String,
    /// Its queue's length in messages; `None`: `rv.listener_queue`.
    pub queue_len: Option<usize>,
    /// The routing link or bridge the listener carries messages out of
    /// the gateway for. Such a listener never gets `_LOCAL.` or `_RV.`
    /// subjects, may listen to `_INBOX.` subjects by name (another
    /// gateway's inboxes), never gets messages that came in over its own
    /// link, and is not counted by that link's interest watch.
    pub link: Option<LinkId>,
}

/// A listener: it receives, once each, the messages published on a subject
/// one of its listen subjects matches, in the order they were published
/// (from one publisher). Dropping it ends its interest.
#[derive(Debug)]
pub struct Listener {
    pub(crate) id: ListenerId,
    pub(crate) queue: Arc<ListenerQueue>,
    pub(crate) bus: Weak<Inner>,
    pub(crate) name: String,
    pub(crate) inbox: Option<String>,
}

impl Listener {
    /// Its number.
    pub fn id(&self) -> ListenerId {
        self.id
    }

    /// The next message, waiting for one; `None` once the bus is closed
    /// (the gateway is stopping) and every queued message was taken.
    ///
    /// When messages were discarded because the queue was full, the next
    /// message is a `_RV.ERROR.SYSTEM.CLIENT.SLOWCONSUMER` advisory
    /// ([`Advisory::slow_consumer`]), whatever the listen subjects.
    pub async fn recv(&mut self) -> Option<Delivery> {
        loop {
            match self.try_take() {
                Ok(Some(d)) => return Some(d),
                Ok(None) => self.queue.wait().await,
                Err(()) => return None,
            }
        }
    }

    /// The next message if one is queued, without waiting.
    pub fn try_recv(&mut self) -> Option<Delivery> {
        self.try_take().ok().flatten()
    }

    fn try_take(&mut self) -> Result<Option<Delivery>, ()> {
        match self.queue.take() {
            Taken::Item(d) => Ok(Some(d)),
            Taken::Empty => Ok(None),
            Taken::Closed => Err(()),
            Taken::Loss {
                waiting,
                dropped,
                bytes_dropped,
            } => {
                tracing::warn!(
                    listener = %self.name,
                    dropped,
                    bytes_dropped,
                    waiting,
                    "slow listener: messages discarded (CLIENT.SLOWCONSUMER)"
                );
                let advisory = Advisory::slow_consumer(
                    u32::try_from(waiting).unwrap_or(u32::MAX),
                    u32::try_from(dropped).unwrap_or(u32::MAX),
                    bytes_dropped,
                )
                .into_envelope();
                // Made by mqgate from numbers: always within any limits.
                let encoded = advisory
                    .encode(&mqgate_codecs::rv::msg::Limits::default())
                    .unwrap_or_default();
                Ok(Some(Delivery::new(advisory, encoded, Origin::Gateway)))
            }
        }
    }

    /// Adds a listen subject (checked in listen mode; `_INBOX.` subjects
    /// only for a link's listener). Returns false when the listener had it
    /// already.
    ///
    /// Errors: [`BusError::Subject`], [`BusError::InboxByName`],
    /// [`BusError::Closed`].
    pub fn add(&self, subject: &str) -> Result<bool, BusError> {
        let bus = self.bus.upgrade().ok_or(BusError::Closed)?;
        bus.add_pattern(self.id, subject)
    }

    /// Removes a listen subject; false when the listener did not have it.
    pub fn remove(&self, subject: &str) -> bool {
        match self.bus.upgrade() {
            Some(bus) => bus.remove_pattern(self.id, subject),
            None => false,
        }
    }

    /// Makes a new inbox (`_INBOX.<gateway>.<n>`) that only this listener
    /// receives, and returns its subject. A listener may hold several.
    ///
    /// Errors: [`BusError::Closed`].
    pub fn new_inbox(&mut self) -> Result<String, BusError> {
        let bus = self.bus.upgrade().ok_or(BusError::Closed)?;
        let inbox = bus.add_inbox(self.id)?;
        if self.inbox.is_none() {
            self.inbox = Some(inbox.clone());
        }
        Ok(inbox)
    }

    /// The first inbox [`Listener::new_inbox`] made, if any.
    pub fn inbox(&self) -> Option<&str> {
        self.inbox.as_deref()
    }

    /// Its listen subjects (inboxes included), in the order added.
    pub fn subjects(&self) -> Vec<String> {
        match self.bus.upgrade() {
            Some(bus) => bus.patterns_of(self.id),
            None => Vec::new(),
        }
    }

    /// Messages waiting in its queue.
    pub fn queued(&self) -> usize {
        self.queue.len()
    }
}

impl Drop for Listener {
    fn drop(&mut self) {
        if let Some(bus) = self.bus.upgrade() {
            bus.remove_listener(self.id);
        }
    }
}

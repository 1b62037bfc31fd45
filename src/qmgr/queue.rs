//! A local queue's contents: messages in priority order, FIFO within a priority
//! (MQ MSGDLVSQ(PRIORITY)), each ready or held by a unit of work.

use super::index::MsgIndex;
use super::message::Message;
use super::slots::Slots;
use crate::config::LocalQueueDef;
use mqgate_codecs::mq::Mqmd;
use mqgate_codecs::mq::md::Id24;
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Arc, Mutex, MutexGuard};
use std::time::Duration;
use tokio::sync::Notify;

/// A message's place in its queue: (9 - priority, sequence number). Iterating the
/// map in key order gives the delivery order; the sequence number is also the
/// message's key in the durable store.
pub type Position = (u8, u64);

/// The key of a message with `priority` (clamped to 0-9) put as number `seq`.
pub fn position(priority: i32, seq: u64) -> Position {
    (9 - priority.clamp(0, 9) as u8, seq)
}

/// Who may see a message.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum EntryState {
    /// Committed and available to get and browse.
    Ready,
    /// Put in this unit of work, not yet committed: invisible.
    Putting(u64),
    /// Got in this unit of work, not yet committed: invisible.
    Getting(u64),
    /// Got by another gateway of a shared store (docs/cluster.md "Several
    /// gateways on one stream"), whose claim lasts until this time (ms
    /// since the epoch): invisible until then, available after it (the
    /// claim expired: that gateway is gone) with BackoutCount + 1.
    Elsewhere(u64),
}

/// One message with its state: its index entry and, while it is not in
/// the store, the message itself.
#[derive(Debug)]
pub struct Entry {
    pub index: MsgIndex,
    pub state: EntryState,
    /// The MQMD and data kept in memory: a non-persistent message (never
    /// stored, as in MQ), or a persistent one put under a unit of work that
    /// has not committed yet. `None`: in the store under the position's
    /// sequence number (src/qmgr/body_cache.rs keeps recent ones).
    pub resident: Option<Box<Message>>,
}

impl Entry {
    /// A message kept in memory.
    pub fn resident(msg: Message, state: EntryState) -> Entry {
        Entry {
            index: MsgIndex::of(&msg),
            state,
            resident: Some(Box::new(msg)),
        }
    }

    /// A message whose MQMD and data are in the store.
    pub fn stored(index: MsgIndex, state: EntryState) -> Entry {
        Entry {
            index,
            state,
            resident: None,
        }
    }
}

/// What a [`MessageFilter`] says about one message.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Match {
    /// The message is wanted now.
    Yes,
    /// The message is not wanted (now or later, unless something outside the
    /// queue changes: see [`MessageFilter::changes`]).
    No,
    /// The message is wanted, but not before this long from now (a
    /// scheduled request): the get skips it and a waiting get wakes when it
    /// falls due.
    NotBefore(Duration),
}

/// A condition on a message's MQMD and data beyond the MQMO match options,
/// as an MQ message selector (MQOD SelectionString) is, with a due time.
///
/// [`MessageFilter::check`] runs while the queue is locked, once per ready
/// message a get looks at: it must be quick and do no I/O.
pub trait MessageFilter: Send + Sync {
    /// Whether the message with `md` and `data` (as stored) is wanted.
    fn check(&self, md: &Mqmd, data: &[u8]) -> Match;

    /// Notified when the answers of [`MessageFilter::check`] may change
    /// other than by a put, commit or backout on the queue or by time
    /// passing (a clock that is set, not only running); a waiting get then
    /// looks again. `None` (the default): never.
    fn changes(&self) -> Option<Arc<Notify>> {
        None
    }
}

/// Which messages a get or browse wants (MQMO_MATCH_MSG_ID /
/// MATCH_CORREL_ID / MATCH_GROUP_ID: every id given must match; then the
/// filter, when there is one).
#[derive(Clone, Default)]
pub struct Selector {
    pub msg_id: Option<Id24>,
    pub correl_id: Option<Id24>,
    pub group_id: Option<Id24>,
    /// A condition on the whole message, with a due time.
    pub filter: Option<Arc<dyn MessageFilter>>,
    /// Only messages put before the put with this sequence number
    /// ([`crate::qmgr::QueueManager::next_put_sequence`] taken earlier): a
    /// queue unload sees what was there when it started, never what arrived
    /// since (docs/http-api.md `put_before`).
    pub put_before: Option<u64>,
}

impl std::fmt::Debug for Selector {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Selector")
            .field("msg_id", &self.msg_id.map(hex::encode_upper))
            .field("correl_id", &self.correl_id.map(hex::encode_upper))
            .field("group_id", &self.group_id.map(hex::encode_upper))
            .field("filter", &self.filter.as_ref().map(|_| "<filter>"))
            .field("put_before", &self.put_before)
            .finish()
    }
}

impl Selector {
    /// True when the message indexed by `index` matches every id given
    /// (the filter is not asked).
    pub fn matches(&self, index: &MsgIndex) -> bool {
        self.msg_id.is_none_or(|id| index.msg_id == id)
            && self.correl_id.is_none_or(|id| index.correl_id() == id)
            && self.group_id.is_none_or(|id| index.group_id() == id)
    }
}

/// Reads the MQMD and data of the message at a position for a
/// [`MessageFilter`]: `None` when they cannot be read (the message is then
/// not wanted).
pub type Load<'a> = dyn FnMut(Position, &Entry) -> Option<std::sync::Arc<Message>> + 'a;

/// What [`LocalQueue::find`] met besides the message it found.
#[derive(Debug, Default)]
pub struct FindNotes {
    /// Expired ready messages, to be discarded by the caller.
    pub expired: Vec<Position>,
    /// The soonest a skipped message falls due ([`Match::NotBefore`]),
    /// counted from the find.
    pub not_before: Option<Duration>,
}

/// A local queue: its definition, its messages behind a lock of its own
/// (so that gets, puts and acknowledgements on different queues run in
/// parallel, and none of them locks any other queue), and the notification
/// of waiting getters.
pub struct LocalQueue {
    /// The queue's name (shared with the object table's key).
    pub name: Arc<str>,
    /// Its attributes. Device queues share one definition, the devices'
    /// (docs/config.md `devices`), whose `name` is empty: use
    /// [`LocalQueue::name`].
    pub def: Arc<LocalQueueDef>,
    /// Its put and get counters, its own or its group's
    /// (src/qmgr/stats.rs).
    pub stats: Arc<super::stats::QueueStats>,
    /// For a device queue: the list of emptied device queues it joins
    /// whenever its lock is let go with no message on it
    /// (src/qmgr/idle.rs); `None` for every other queue.
    idle: Option<Arc<super::idle::IdleList>>,
    /// Shared with the queue's altered definitions ([`LocalQueue::altered`]),
    /// so a unit of work holding the queue from before an ALTER commits
    /// onto the same messages and wakes the same getters.
    shared: Arc<Shared>,
}

/// What a local queue and its altered definitions share.
#[derive(Default)]
struct Shared {
    /// Woken whenever a message becomes ready (commit, backout, put). A
    /// waiting getter holds the queue itself (its `Arc`) while it waits,
    /// which keeps a device queue from being retired under it.
    notify: Notify,
    contents: Mutex<Contents>,
}

impl std::fmt::Debug for LocalQueue {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("LocalQueue")
            .field("name", &self.name)
            .finish_non_exhaustive()
    }
}

impl LocalQueue {
    /// An empty queue with counters of its own.
    pub fn new(def: LocalQueueDef) -> Self {
        Self::with_stats(def, Arc::default())
    }

    /// An empty queue counting its puts and gets in `stats` (its group's,
    /// src/qmgr/stats.rs).
    pub fn with_stats(def: LocalQueueDef, stats: Arc<super::stats::QueueStats>) -> Self {
        LocalQueue {
            name: def.name.as_str().into(),
            def: Arc::new(def),
            stats,
            idle: None,
            shared: Arc::default(),
        }
    }

    /// Woken whenever a message becomes ready (commit, backout, put).
    pub fn notify(&self) -> &Notify {
        &self.shared.notify
    }

    /// The same queue (its messages, waiting getters and counters) with
    /// definition `def` (IBM MQ "ALTER QLOCAL": the new attributes apply to
    /// later calls; messages already on the queue stay, even above a lower
    /// MAXDEPTH or MAXMSGL).
    pub fn altered(&self, def: LocalQueueDef) -> Self {
        LocalQueue {
            name: self.name.clone(),
            def: Arc::new(def),
            stats: Arc::clone(&self.stats),
            idle: self.idle.clone(),
            shared: Arc::clone(&self.shared),
        }
    }

    /// An empty device queue `name` with the devices' shared definition
    /// `def`, which joins `idle` whenever it is left without a message
    /// (src/qmgr/idle.rs).
    pub fn device(
        name: Arc<str>,
        def: Arc<LocalQueueDef>,
        stats: Arc<super::stats::QueueStats>,
        idle: Arc<super::idle::IdleList>,
    ) -> Self {
        LocalQueue {
            name,
            def,
            stats,
            idle: Some(idle),
            shared: Arc::default(),
        }
    }

    /// Runs `f` on the messages of a queue a start is filling: without a
    /// lock while nothing shares them yet (no altered definition holds
    /// them), else under the lock.
    pub fn with_contents_mut<R>(&mut self, f: impl FnOnce(&mut Contents) -> R) -> R {
        match Arc::get_mut(&mut self.shared) {
            Some(shared) => f(shared.contents.get_mut().unwrap_or_else(|p| p.into_inner())),
            None => f(&mut self
                .shared
                .contents
                .lock()
                .unwrap_or_else(|p| p.into_inner())),
        }
    }

    /// True for a queue created as a device queue (retired once empty and
    /// unused, src/qmgr/idle.rs).
    pub fn is_device(&self) -> bool {
        self.idle.is_some()
    }

    /// Locks the queue's messages. A panic while holding the lock leaves
    /// them consistent enough (every change is a single map operation), so
    /// a poisoned lock is taken over rather than failing every later call.
    /// A device queue left without a message when the lock goes joins the
    /// idle list (src/qmgr/idle.rs), whatever call emptied it.
    pub fn lock(self: &Arc<Self>) -> Locked<'_> {
        super::probe::queue_locked();
        Locked {
            guard: self
                .shared
                .contents
                .lock()
                .unwrap_or_else(|p| p.into_inner()),
            queue: self,
        }
    }
}

/// A local queue's messages, locked ([`LocalQueue::lock`]).
pub struct Locked<'a> {
    guard: MutexGuard<'a, Contents>,
    queue: &'a Arc<LocalQueue>,
}

impl std::ops::Deref for Locked<'_> {
    type Target = Contents;
    fn deref(&self) -> &Contents {
        &self.guard
    }
}

impl std::ops::DerefMut for Locked<'_> {
    fn deref_mut(&mut self) -> &mut Contents {
        &mut self.guard
    }
}

impl Drop for Locked<'_> {
    fn drop(&mut self) {
        if let Some(idle) = &self.queue.idle
            && self.guard.depth() == 0
            && !self.guard.idle_listed
        {
            // Still under the queue's lock: the sweep, which clears the
            // mark under it too, never misses an emptied queue.
            self.guard.idle_listed = true;
            idle.push(Arc::downgrade(self.queue));
        }
    }
}

/// Messages taken off any queue of this process since it started (a move
/// between queues counts once): what decides when the gateway gives freed
/// memory back (src/gateway/trim.rs).
static REMOVED: AtomicU64 = AtomicU64::new(0);

/// [`REMOVED`]'s count.
pub fn removed_messages() -> u64 {
    REMOVED.load(Ordering::Relaxed)
}

/// A local queue's messages. In a queue of two or more each entry is
/// boxed, so the ordered map's nodes (11 slots each) hold a pointer per
/// message, not the message; a queue of one message holds it in place,
/// without a map node or a box, and an emptied queue holds no allocation
/// (src/qmgr/slots.rs).
#[derive(Debug, Default)]
pub struct Contents {
    entries: Slots,
    /// Persistent puts admitted against MAXDEPTH but still being written.
    pub reserved: usize,
    /// A device queue: true while it is on the idle list (src/qmgr/idle.rs).
    pub idle_listed: bool,
    /// The queue was deleted (a configuration reload took its definition
    /// away while it was empty): a put that found it before is refused
    /// with 2052 MQRC_Q_DELETED rather than left on a queue nobody reaches.
    pub deleted: bool,
}

impl Contents {
    /// CURDEPTH: every message on the queue, committed or not (as MQ counts).
    pub fn depth(&self) -> usize {
        self.entries.len() + self.reserved
    }

    /// Places `entry` at `pos`.
    pub fn insert(&mut self, pos: Position, entry: Entry) {
        self.entries.insert(pos, entry);
    }

    /// Takes the message at `pos` off the queue.
    pub fn remove(&mut self, pos: &Position) -> Option<Entry> {
        let entry = self.entries.remove(pos)?;
        REMOVED.fetch_add(1, Ordering::Relaxed);
        Some(entry)
    }

    /// Takes every message off the queue (a temporary dynamic queue's, all
    /// resident); how many there were.
    pub fn clear(&mut self) -> usize {
        let n = std::mem::take(&mut self.entries).len();
        REMOVED.fetch_add(n as u64, Ordering::Relaxed);
        n
    }

    /// The message at `pos`.
    pub fn get(&self, pos: &Position) -> Option<&Entry> {
        self.entries.get(pos)
    }

    /// The message at `pos`, to change its state or MD.
    pub fn get_mut(&mut self, pos: &Position) -> Option<&mut Entry> {
        self.entries.get_mut(pos)
    }

    /// The message put first (the lowest sequence number): the first of
    /// each priority's FIFO, at most ten lookups, whatever the depth.
    pub fn oldest(&self) -> Option<&Entry> {
        (0..=9u8)
            .filter_map(|band| {
                let after = band.checked_sub(1).map(|b| (b, u64::MAX));
                self.entries
                    .after(after)
                    .next()
                    .filter(|(pos, _)| pos.0 == band)
            })
            .min_by_key(|(pos, _)| pos.1)
            .map(|(_, e)| e)
    }

    /// Every message, in delivery order.
    pub fn entries(&self) -> impl Iterator<Item = &Entry> {
        self.entries.after(None).map(|(_, e)| e)
    }

    /// The first ready message after `after` (or from the start) that `sel`
    /// wants now and that has not expired at `now_ms`. Expired ready
    /// messages met on the way go to `notes.expired` so the caller can
    /// discard them; messages the filter wants later set
    /// `notes.not_before` to the soonest of their due times. The filter
    /// sees each message `load` reads (the ids are checked first, from the
    /// index).
    pub fn find(
        &self,
        sel: &Selector,
        after: Option<Position>,
        now_ms: u64,
        notes: &mut FindNotes,
        load: &mut Load<'_>,
    ) -> Option<Position> {
        for (pos, e) in self.entries.after(after) {
            match e.state {
                EntryState::Ready => {}
                EntryState::Elsewhere(until) if until <= now_ms => {}
                EntryState::Elsewhere(until) => {
                    let d = Duration::from_millis(until - now_ms);
                    notes.not_before = Some(notes.not_before.map_or(d, |n| n.min(d)));
                    continue;
                }
                EntryState::Putting(_) | EntryState::Getting(_) => continue,
            }
            if sel.put_before.is_some_and(|before| pos.1 >= before) {
                continue;
            }
            if e.index.is_expired(now_ms) {
                notes.expired.push(*pos);
                continue;
            }
            if !sel.matches(&e.index) {
                continue;
            }
            let wanted = match &sel.filter {
                None => Match::Yes,
                Some(f) => match load(*pos, e) {
                    Some(msg) => f.check(&msg.md, &msg.data),
                    None => Match::No,
                },
            };
            match wanted {
                Match::Yes => return Some(*pos),
                Match::No => {}
                Match::NotBefore(d) => {
                    notes.not_before = Some(notes.not_before.map_or(d, |n| n.min(d)));
                }
            }
        }
        None
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use bytes::Bytes;
    use mqgate_codecs::mq::{Charset, Mqmd};

    fn msg(priority: i32, correl: u8, expires_at_ms: Option<u64>) -> Message {
        let md = Mqmd {
            priority,
            correl_id: [correl; 24],
            ..Mqmd::default()
        };
        Message {
            md,
            charset: Charset::Ascii,
            data: Bytes::new(),
            expires_at_ms,
        }
    }

    /// The loader of a queue whose messages are all resident.
    fn resident(_: Position, e: &Entry) -> Option<Arc<Message>> {
        e.resident.as_deref().cloned().map(Arc::new)
    }

    fn queue(msgs: &[(u64, Message, EntryState)]) -> Contents {
        let mut q = Contents::default();
        for (seq, m, state) in msgs {
            q.insert(
                position(m.md.priority, *seq),
                Entry::resident(m.clone(), *state),
            );
        }
        q
    }

    #[test]
    fn priority_first_then_fifo() {
        // MQ docs: MSGDLVSQ(PRIORITY): highest priority first, FIFO within a priority.
        let q = queue(&[
            (1, msg(0, 1, None), EntryState::Ready),
            (2, msg(5, 2, None), EntryState::Ready),
            (3, msg(5, 3, None), EntryState::Ready),
            (4, msg(9, 4, None), EntryState::Putting(7)),
        ]);
        let mut notes = FindNotes::default();
        let first = q
            .find(&Selector::default(), None, 0, &mut notes, &mut resident)
            .unwrap();
        assert_eq!(first, (4, 2));
        let second = q
            .find(
                &Selector::default(),
                Some(first),
                0,
                &mut notes,
                &mut resident,
            )
            .unwrap();
        assert_eq!(second, (4, 3));
        let third = q
            .find(
                &Selector::default(),
                Some(second),
                0,
                &mut notes,
                &mut resident,
            )
            .unwrap();
        assert_eq!(third, (9, 1));
        assert_eq!(
            q.find(
                &Selector::default(),
                Some(third),
                0,
                &mut notes,
                &mut resident
            ),
            None
        );
        assert_eq!(q.depth(), 4);
        // Put first: sequence number 1 (priority 0), whatever its priority.
        assert_eq!(q.oldest().map(|e| e.index.correl_id()[0]), Some(1));
        assert!(Contents::default().oldest().is_none());
    }

    #[test]
    fn correl_id_match_skips_others_and_expired_are_reported() {
        let q = queue(&[
            (1, msg(0, 1, Some(100)), EntryState::Ready),
            (2, msg(0, 2, None), EntryState::Ready),
            (3, msg(0, 1, None), EntryState::Ready),
        ]);
        let sel = Selector {
            correl_id: Some([1; 24]),
            ..Selector::default()
        };
        let mut notes = FindNotes::default();
        assert_eq!(
            q.find(&sel, None, 100, &mut notes, &mut resident),
            Some((9, 3))
        );
        assert_eq!(notes.expired, vec![(9, 1)]);
        let mut notes = FindNotes::default();
        assert_eq!(
            q.find(&sel, None, 99, &mut notes, &mut resident),
            Some((9, 1))
        );
        assert!(notes.expired.is_empty());
    }

    #[test]
    fn a_message_another_gateway_holds_is_skipped_until_its_claim_ends() {
        // docs/cluster.md "Gets under a claim": held elsewhere until 1000
        // ms, then available; a getter is told when to look again.
        let q = queue(&[
            (1, msg(0, 1, None), EntryState::Elsewhere(1000)),
            (2, msg(0, 2, None), EntryState::Getting(3)),
        ]);
        let mut notes = FindNotes::default();
        assert_eq!(
            q.find(&Selector::default(), None, 400, &mut notes, &mut resident),
            None
        );
        assert_eq!(notes.not_before, Some(Duration::from_millis(600)));
        let mut notes = FindNotes::default();
        assert_eq!(
            q.find(&Selector::default(), None, 1000, &mut notes, &mut resident),
            Some((9, 1))
        );
        assert_eq!(notes.not_before, None);
    }

    /// A filter reading the data: `y` wanted, `n` not, `l<ms>` wanted in
    /// `<ms>` milliseconds; it counts the messages it was asked about.
    #[derive(Default)]
    struct DataFilter(std::sync::atomic::AtomicUsize);

    impl MessageFilter for DataFilter {
        fn check(&self, _md: &Mqmd, data: &[u8]) -> Match {
            self.0.fetch_add(1, std::sync::atomic::Ordering::SeqCst);
            match data.split_first() {
                Some((b'y', _)) => Match::Yes,
                Some((b'l', ms)) => Match::NotBefore(Duration::from_millis(
                    std::str::from_utf8(ms).unwrap().parse().unwrap(),
                )),
                _ => Match::No,
            }
        }
    }

    fn with_data(correl: u8, data: &'static [u8]) -> Message {
        Message {
            data: Bytes::from_static(data),
            ..msg(0, correl, None)
        }
    }

    #[test]
    fn a_filter_skips_unwanted_and_later_messages_and_reports_the_soonest_due() {
        let q = queue(&[
            (1, with_data(1, b"n"), EntryState::Ready),
            (2, with_data(1, b"l500"), EntryState::Ready),
            (3, with_data(1, b"y"), EntryState::Getting(4)),
            (4, with_data(2, b"y"), EntryState::Ready),
            (5, with_data(1, b"l200"), EntryState::Ready),
            (6, with_data(1, b"y"), EntryState::Ready),
        ]);
        let filter = Arc::new(DataFilter::default());
        let sel = Selector {
            correl_id: Some([1; 24]),
            filter: Some(filter.clone()),
            ..Selector::default()
        };
        let mut notes = FindNotes::default();
        assert_eq!(
            q.find(&sel, None, 0, &mut notes, &mut resident),
            Some((9, 6))
        );
        // The soonest of the two later messages (200 ms, not 500 ms).
        assert_eq!(notes.not_before, Some(Duration::from_millis(200)));
        // Asked about 1, 2, 5 and 6: not about 3 (held by a unit of work) nor
        // 4 (another CorrelId).
        assert_eq!(filter.0.load(std::sync::atomic::Ordering::SeqCst), 4);
        // After the wanted one nothing is left; the due time is not reported
        // again (the scan starts after message 6).
        let mut notes = FindNotes::default();
        assert_eq!(
            q.find(&sel, Some((9, 6)), 0, &mut notes, &mut resident),
            None
        );
        assert_eq!(notes.not_before, None);
        // Only later messages: none found, the soonest due reported.
        let later = queue(&[
            (1, with_data(0, b"l900"), EntryState::Ready),
            (2, with_data(0, b"l300"), EntryState::Ready),
        ]);
        let sel = Selector {
            filter: Some(filter),
            ..Selector::default()
        };
        let mut notes = FindNotes::default();
        assert_eq!(later.find(&sel, None, 0, &mut notes, &mut resident), None);
        assert_eq!(notes.not_before, Some(Duration::from_millis(300)));
    }

    #[test]
    fn expiry_counts_down_in_tenths() {
        let m = msg(0, 0, Some(10_000));
        assert_eq!(m.md_at(9_000).expiry, 10);
        assert_eq!(m.md_at(9_950).expiry, 1);
        assert_eq!(msg(0, 0, None).md_at(0).expiry, -1);
    }
}

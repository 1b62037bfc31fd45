//! Units of work: puts and gets under syncpoint, commit (one store transaction
//! for the whole unit) and backout (gets return to their place with
//! BackoutCount + 1). A unit of work may have an idle timeout, after which it
//! is backed out: this is how an HTTP lease expires.

use super::queue::{Contents, EntryState, LocalQueue, Locked, Position};
use super::{Message, QmError, QueueManager, Token, TokenKind, index};
use crate::log_limit::Repeats;
use crate::store::Batch;
use mqgate_codecs::mq::Mqrc;
use std::collections::hash_map::Entry;
use std::sync::Arc;
use std::time::{Duration, Instant};

/// A unit of work closed to further calls, its store changes encoded: the
/// first half of a commit ([`QueueManager::seal`]).
pub struct SealedUow {
    id: u64,
    uow: Uow,
    batch: Batch,
}

/// A message a unit of work holds: its queue (held directly, so that
/// nothing is looked up by name again) and its place there.
pub(super) type HeldMessage = (Arc<LocalQueue>, Position);

/// Why a unit of work holds a message.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(super) enum Held {
    /// Put under it: invisible until it commits.
    Put,
    /// Got under it: invisible, removed when it commits.
    Get,
}

/// An open unit of work.
pub(super) struct Uow {
    /// Each message put.
    pub puts: Vec<HeldMessage>,
    /// Each message got.
    pub gets: Vec<HeldMessage>,
    /// Idle timeout; `None` = never expires.
    timeout: Option<Duration>,
    deadline: Option<Instant>,
    /// The task that backs the unit out when its deadline passes, ended
    /// when the unit closes otherwise (so that a gateway acknowledging
    /// thousands of leases a second does not keep a sleeping task for each
    /// until its lease would have expired).
    pub timer: Option<tokio::task::AbortHandle>,
    /// The queue a lease was taken on (checked by acknowledge).
    pub lease_queue: Option<String>,
    /// The token a client names this unit by, when it was begun for one
    /// ([`QueueManager::begin_uow_token`]); registered in `State::tokens`.
    pub token: Option<Token>,
    /// What the token names ([`TokenKind::Lease`] for a lease).
    pub kind: TokenKind,
}

impl Uow {
    pub fn new(timeout: Option<Duration>, lease_queue: Option<String>) -> Self {
        Uow {
            puts: Vec::new(),
            gets: Vec::new(),
            timeout,
            deadline: timeout.map(|t| Instant::now() + t),
            kind: if lease_queue.is_some() {
                TokenKind::Lease
            } else {
                TokenKind::Uow
            },
            lease_queue,
            token: None,
            timer: None,
        }
    }

    /// Restarts the idle timeout.
    pub fn touch(&mut self) {
        if let Some(t) = self.timeout {
            self.deadline = Some(Instant::now() + t);
        }
    }
}

/// "unit of work timed out and was backed out" and "lease expired; its
/// message was backed out" (src/log_limit.rs).
static TIMED_OUT: Repeats = Repeats::per_minute();

fn not_open(id: u64) -> QmError {
    QmError::new(
        Mqrc::BACKED_OUT,
        format!("unit of work {id} is not open: it was committed, backed out or expired"),
    )
}

impl QueueManager {
    /// Opens a unit of work. With a `timeout`, it is backed out when idle that
    /// long (needs a tokio runtime); `lease_queue` marks it as a lease on that queue.
    pub fn begin_uow(
        self: &Arc<Self>,
        timeout: Option<Duration>,
        lease_queue: Option<String>,
    ) -> Result<u64, QmError> {
        self.check_running()?;
        let id = self
            .next_uow
            .fetch_add(1, std::sync::atomic::Ordering::SeqCst);
        self.uows().map.insert(id, Uow::new(None, lease_queue));
        if let Some(t) = timeout {
            self.set_timeout(id, t)?;
        }
        Ok(id)
    }

    /// Opens a unit of work as [`QueueManager::begin_uow`] does, for a
    /// client: also returns a new random [`Token`] naming it, known until the
    /// unit is committed, backed out or expires ([`QueueManager::token_uow`]).
    /// The id stays inside the gateway. Errors: 2161 while stopping; 2195
    /// when the random number generator failed (nothing was begun).
    pub fn begin_uow_token(
        self: &Arc<Self>,
        timeout: Option<Duration>,
        lease_queue: Option<String>,
    ) -> Result<(u64, Token), QmError> {
        self.begin_uow_token_as(timeout, lease_queue, None)
    }

    /// [`QueueManager::begin_uow_token`] for a unit that is no lease whose
    /// token is of kind `kind` when given ([`TokenKind::Conversation`]);
    /// otherwise the kind follows `lease_queue` (a lease, or a unit of work).
    pub fn begin_uow_token_as(
        self: &Arc<Self>,
        timeout: Option<Duration>,
        lease_queue: Option<String>,
        kind: Option<TokenKind>,
    ) -> Result<(u64, Token), QmError> {
        self.check_running()?;
        // Drawn outside the lock (a system call); a repeat of an open
        // token (probability 2^-128 per open unit) draws again.
        let mut token = Token::random()?;
        let id = self
            .next_uow
            .fetch_add(1, std::sync::atomic::Ordering::SeqCst);
        loop {
            let mut guard = self.uows();
            let uows = &mut *guard;
            if let Entry::Vacant(free) = uows.tokens.entry(token) {
                free.insert(id);
                let mut uow = Uow::new(None, lease_queue);
                uow.token = Some(token);
                if let Some(kind) = kind {
                    uow.kind = kind;
                }
                uows.map.insert(id, uow);
                break;
            }
            drop(guard);
            token = Token::random()?;
        }
        if let Some(t) = timeout {
            self.set_timeout(id, t)?;
        }
        Ok((id, token))
    }

    /// The open unit of work `token` names: its id and, for a lease, the
    /// queue the lease is on. `None` when the token is unknown — never
    /// issued by this run of the gateway (a token from before a restart, a
    /// guess), or its unit was committed, backed out or expired.
    pub fn token_uow(&self, token: &Token) -> Option<(u64, Option<String>)> {
        let uows = self.uows();
        let id = *uows.tokens.get(token)?;
        let uow = uows.map.get(&id)?;
        Some((id, uow.lease_queue.clone()))
    }

    /// The open unit of work `token` names when the token is of kind
    /// `kind`; `None` for an unknown token and for one of another kind
    /// alike, so a caller cannot tell them apart (docs/http-api.md
    /// "Tokens").
    pub fn token_uow_of(&self, token: &Token, kind: TokenKind) -> Option<u64> {
        let uows = self.uows();
        let id = *uows.tokens.get(token)?;
        let uow = uows.map.get(&id)?;
        (uow.kind == kind).then_some(id)
    }

    /// Starts (or restarts) the idle timeout of unit of work `id`: backed out
    /// when idle for `timeout` (needs a tokio runtime). A lease is armed this
    /// way once its message has been handed out, so time spent waiting for a
    /// message does not count. 2003 when `id` is not open.
    pub fn set_timeout(self: &Arc<Self>, id: u64, timeout: Duration) -> Result<(), QmError> {
        {
            let mut uows = self.uows();
            let uow = uows.map.get_mut(&id).ok_or_else(|| not_open(id))?;
            let first = uow.timeout.is_none();
            uow.timeout = Some(timeout);
            uow.touch();
            if !first {
                return Ok(());
            }
        }
        let qm = Arc::clone(self);
        let timer = self
            .tasks
            .spawn_timer(qm.expire_when_due(id))
            .abort_handle();
        match self.uows().map.get_mut(&id) {
            Some(uow) => uow.timer = Some(timer),
            // Closed meanwhile: nothing left to expire.
            None => timer.abort(),
        }
        Ok(())
    }

    async fn expire_when_due(self: Arc<Self>, id: u64) {
        loop {
            let (deadline, queue) = match self.uows().map.get(&id) {
                Some(u) => (u.deadline, u.lease_queue.clone()),
                None => return,
            };
            let Some(deadline) = deadline else { return };
            if Instant::now() >= deadline {
                // This task backs the unit out itself: closing it must not
                // end this task.
                if let Some(u) = self.uows().map.get_mut(&id) {
                    u.timer = None;
                }
                let qm = Arc::clone(&self);
                let done = tokio::task::spawn_blocking(move || qm.backout(id)).await;
                // Per message: one line a minute for the whole queue manager
                // (many devices going away at once), counting the rest.
                if let Ok(Ok(())) = done
                    && let Some(suppressed) = TIMED_OUT.admit("")
                {
                    // A unit of work with a lease queue is a get under a
                    // lease (docs/http-api.md "Tokens"): say so in the
                    // operator's terms.
                    match queue {
                        Some(queue) => {
                            tracing::warn!(uow = id, %queue, suppressed, "lease expired; its message was backed out")
                        }
                        None => tracing::warn!(
                            uow = id,
                            suppressed,
                            "unit of work timed out and was backed out"
                        ),
                    }
                }
                tracing::debug!(uow = id, "unit of work timed out");
                return;
            }
            tokio::time::sleep_until(deadline.into()).await;
        }
    }

    /// 2003 when unit of work `id` is not open.
    pub(super) fn check_uow(&self, id: u64) -> Result<(), QmError> {
        if self.uows().map.contains_key(&id) {
            Ok(())
        } else {
            Err(not_open(id))
        }
    }

    /// Records that unit of work `id` holds the message at `pos` of `lq`,
    /// which the caller has just marked as put or got under it (and
    /// unlocked). When the unit closed meanwhile (committed, backed out or
    /// expired by another thread), the message is let go again as if the
    /// call had not happened — a put removed, a get ready as it was — and
    /// the call fails with 2003.
    pub(super) fn join_uow(
        &self,
        id: u64,
        lq: &Arc<LocalQueue>,
        pos: Position,
        held: Held,
    ) -> Result<(), QmError> {
        {
            let mut uows = self.uows();
            if let Some(uow) = uows.map.get_mut(&id) {
                let list = match held {
                    Held::Put => &mut uow.puts,
                    Held::Get => &mut uow.gets,
                };
                list.push((Arc::clone(lq), pos));
                uow.touch();
                return Ok(());
            }
        }
        let mut contents = lq.lock();
        match held {
            Held::Put => {
                contents.remove(&pos);
            }
            Held::Get => {
                if let Some(e) = contents.get_mut(&pos) {
                    e.state = EntryState::Ready;
                }
                lq.notify().notify_waiters();
            }
        }
        Err(not_open(id))
    }

    /// The queue a lease was taken on, or `None` when `id` is not an open lease.
    pub fn lease_queue(&self, id: u64) -> Option<String> {
        self.uows().map.get(&id).and_then(|u| u.lease_queue.clone())
    }

    /// Commits: the unit's persistent puts and gets go to the store in one
    /// transaction, then its puts become visible (waking getters) and its gets
    /// are gone. If the store fails, the unit is backed out and the call fails
    /// with 2003 MQRC_BACKED_OUT; 2003 too when `id` is not open.
    pub fn commit(&self, id: u64) -> Result<(), QmError> {
        self.commit_with_meta(id, Vec::new())
    }

    /// Like [`QueueManager::commit`], also writing the named state records
    /// `meta` in the same store transaction (a receiver channel's last
    /// committed batch sequence number: the batch and its number are durable
    /// together or not at all; docs/channel-protocol.md "Resynchronisation").
    pub fn commit_with_meta(&self, id: u64, meta: Vec<(String, Vec<u8>)>) -> Result<(), QmError> {
        let sealed = self.seal(id, meta)?;
        self.commit_sealed(sealed)
    }

    /// The first half of a commit: closes unit of work `id` to further calls
    /// and encodes its store changes (with `meta`). Nothing is visible or
    /// durable yet; finish with [`QueueManager::commit_sealed`] or
    /// [`QueueManager::backout_sealed`]. Sealing one unit while another
    /// commits lets a receiver channel prepare its next group during the
    /// previous group's fsync. 2003 when `id` is not open.
    pub fn seal(&self, id: u64, meta: Vec<(String, Vec<u8>)>) -> Result<SealedUow, QmError> {
        let uow = self.uows().take(id).ok_or_else(|| not_open(id))?;
        let mut batch = Batch {
            meta,
            ..Batch::default()
        };
        each_locked(&uow.puts, |lq, contents, pos| {
            if let Some(e) = contents.get(pos)
                && e.index.is_persistent()
                && let Some(msg) = &e.resident
            {
                index::stage_put(&mut batch, *pos, &lq.name, msg);
            }
        });
        each_locked(&uow.gets, |_, contents, pos| {
            if let Some(e) = contents.get(pos)
                && e.index.is_persistent()
            {
                batch.deletes.push(pos.1);
            }
        });
        Ok(SealedUow { id, uow, batch })
    }

    /// The second half of a commit: the sealed unit's changes go to the store
    /// in one transaction, then its puts become visible (waking getters) and
    /// its gets are gone. If the store fails, the unit is backed out and the
    /// call fails with 2003 MQRC_BACKED_OUT.
    pub fn commit_sealed(&self, sealed: SealedUow) -> Result<(), QmError> {
        let SealedUow { id, uow, batch } = sealed;
        if !batch.is_empty()
            && let Err(e) = self.store.apply(&batch)
        {
            self.undo(uow);
            return Err(QmError::new(
                Mqrc::BACKED_OUT,
                format!("unit of work {id} was backed out: the store failed: {e}"),
            ));
        }
        let mut woken: Option<&Arc<LocalQueue>> = None;
        each_locked(&uow.puts, |lq, contents, pos| {
            if let Some(e) = contents.get_mut(pos) {
                e.state = EntryState::Ready;
                // Stored now: the message leaves memory for the cache.
                if e.index.is_persistent()
                    && let Some(msg) = e.resident.take()
                {
                    self.cache.insert(pos.1, Arc::new(*msg));
                }
            }
            // Once per run of messages on one queue.
            if !woken.is_some_and(|w| Arc::ptr_eq(w, lq)) {
                lq.notify().notify_waiters();
                woken = Some(lq);
            }
        });
        each_locked(&uow.gets, |_, contents, pos| {
            contents.remove(pos);
            self.cache.remove(pos.1);
        });
        tracing::debug!(uow = id, "committed");
        Ok(())
    }

    /// Commits the units of work `ids` together: their store changes go
    /// to the store in one transaction (a group commit: one write for many
    /// small units, such as many devices' acknowledgements), then each
    /// becomes visible as [`QueueManager::commit_sealed`] makes it. One
    /// result per id, in order: 2003 for an id that is not open (the
    /// others go on), and 2003 for every unit when the store fails (all are
    /// backed out).
    pub fn commit_group(&self, ids: &[u64]) -> Vec<Result<(), QmError>> {
        let mut results: Vec<Result<(), QmError>> = Vec::with_capacity(ids.len());
        let mut sealed = Vec::new();
        let mut batch = Batch::default();
        for &id in ids {
            match self.seal(id, Vec::new()) {
                Ok(mut s) => {
                    batch.puts.append(&mut s.batch.puts);
                    batch.deletes.append(&mut s.batch.deletes);
                    batch.meta.append(&mut s.batch.meta);
                    sealed.push((results.len(), s));
                    results.push(Ok(()));
                }
                Err(e) => results.push(Err(e)),
            }
        }
        if !batch.is_empty()
            && let Err(e) = self.store.apply(&batch)
        {
            for (i, s) in sealed {
                results[i] = Err(QmError::new(
                    Mqrc::BACKED_OUT,
                    format!(
                        "unit of work {} was backed out: the store failed: {e}",
                        s.id
                    ),
                ));
                self.undo(s.uow);
            }
            return results;
        }
        for (_, s) in sealed {
            // Nothing left to write: the finish cannot fail.
            let _ = self.commit_sealed(s);
        }
        results
    }

    /// Backs out a sealed unit of work (see [`QueueManager::backout`]).
    pub fn backout_sealed(&self, sealed: SealedUow) {
        self.undo(sealed.uow);
        tracing::debug!(uow = sealed.id, "backed out");
    }

    /// Backs out: the unit's puts are discarded and its gets return to their
    /// place with BackoutCount + 1 (kept in the store for persistent messages).
    /// 2003 when `id` is not open.
    pub fn backout(&self, id: u64) -> Result<(), QmError> {
        let uow = self.uows().take(id).ok_or_else(|| not_open(id))?;
        self.undo(uow);
        tracing::debug!(uow = id, "backed out");
        Ok(())
    }

    /// Undoes closed unit of work `uow`: its puts are removed; its gets
    /// get BackoutCount + 1 and, once that is written to the store (for
    /// persistent messages), become ready again, or move to the backout
    /// requeue queue when the count reached its threshold. Until then they
    /// stay invisible, so no other get can take and commit one before its
    /// new count is stored.
    fn undo(&self, uow: Uow) {
        each_locked(&uow.puts, |_, contents, pos| {
            contents.remove(pos);
        });
        let mut batch = Batch::default();
        // Per message got: (its queue, its place, the requeue it needs).
        let mut returns: Vec<(&Arc<LocalQueue>, Position, Option<Requeue>)> = Vec::new();
        // Per message got: whether it goes to the backout requeue queue, and
        // for a persistent one its new BackoutCount and its copy in memory,
        // if any (else its record is read back to be written again).
        let mut counted: Vec<(bool, Option<NewCount>)> = Vec::new();
        each_locked(&uow.gets, |lq, contents, pos| {
            let Some(e) = contents.get_mut(pos) else {
                return;
            };
            let count = e.index.backout_count.saturating_add(1);
            e.index.backout_count = count;
            if let Some(msg) = e.resident.as_mut() {
                msg.md.backout_count = count;
            }
            // On a shared store a message is written back only under this
            // gateway's claim: one lost meanwhile may have let another
            // gateway get it and remove it (src/qmgr/shared.rs).
            let persistent = e.index.is_persistent();
            let held = !persistent || self.store.shared().is_none_or(|sh| sh.holds(pos.1));
            let threshold = lq.def.backout_threshold;
            let requeue = held && threshold > 0 && count >= threshold;
            let stored = (persistent && held).then(|| (count, e.resident.as_deref().cloned()));
            counted.push((requeue, stored));
            returns.push((lq, *pos, None));
        });
        for (i, (requeue, stored)) in counted.into_iter().enumerate() {
            let (lq, pos, _) = returns[i];
            let reserved = if requeue {
                self.reserve_requeue(lq)
            } else {
                None
            };
            if let Some((count, resident)) = stored {
                // The record is written again with the new BackoutCount,
                // under its new key on the requeue queue when it moves.
                let msg = match resident {
                    Some(m) => Ok(m),
                    None => self.read_stored(pos.1, false).map(|m| (*m).clone()),
                };
                match msg {
                    Ok(mut msg) => {
                        msg.md.backout_count = count;
                        let to = match &reserved {
                            Some(r) => {
                                batch.deletes.push(pos.1);
                                let to = (pos.0, r.seq);
                                index::stage_put(&mut batch, to, &r.target.name, &msg);
                                to
                            }
                            None => {
                                index::stage_put(&mut batch, pos, &lq.name, &msg);
                                pos
                            }
                        };
                        // The cache holds what the store will: the new count.
                        self.cache.remove(pos.1);
                        self.cache.insert(to.1, Arc::new(msg));
                    }
                    Err(e) => {
                        tracing::error!(queue = %lq.name, error = %e, "could not read the message backed out; BackoutCount may be lower after a restart")
                    }
                }
            }
            returns[i].2 = reserved;
        }
        if !batch.is_empty()
            && let Err(e) = self.store.apply(&batch)
        {
            tracing::error!(error = %e, "could not store the backout; BackoutCount may be lower after a restart");
        }
        for (lq, pos, requeue) in returns {
            match requeue {
                None => {
                    if let Some(e) = lq.lock().get_mut(&pos) {
                        e.state = EntryState::Ready;
                    }
                    lq.notify().notify_waiters();
                }
                Some(r) => self.finish_requeue(lq, pos, r),
            }
        }
    }
}

/// A persistent message backed out: its new BackoutCount and its copy in
/// memory, if it has one (else its record is read back).
type NewCount = (i32, Option<Message>);

/// Runs `f` over each held message with its queue locked, keeping the lock
/// while consecutive messages are on the same queue (a batch of many
/// messages on one queue takes its lock once).
fn each_locked<'a>(
    held: &'a [HeldMessage],
    mut f: impl FnMut(&'a Arc<LocalQueue>, &mut Contents, &'a Position),
) {
    let mut current: Option<(&Arc<LocalQueue>, Locked<'_>)> = None;
    for (lq, pos) in held {
        if !current.as_ref().is_some_and(|(q, _)| Arc::ptr_eq(q, lq)) {
            // The previous queue's lock goes before the next is taken.
            drop(current.take());
            current = Some((lq, lq.lock()));
        }
        if let Some((_, contents)) = current.as_mut() {
            f(lq, contents, pos);
        }
    }
}

/// A backed-out message's move to its queue's backout requeue queue
/// (MQ's BOQNAME), with room reserved there.
struct Requeue {
    target: Arc<LocalQueue>,
    /// Its new number (and store key) on the target.
    seq: u64,
}

impl QueueManager {
    /// Reserves room for one message on the backout requeue queue of `lq`;
    /// `None` (the message stays where it is, with a warning) when that
    /// queue is missing or full.
    fn reserve_requeue(&self, lq: &Arc<LocalQueue>) -> Option<Requeue> {
        let name = &lq.def.backout_requeue_q;
        let target = self.table().local(name);
        let reserved = target.and_then(|t| {
            let mut contents = t.lock();
            if contents.depth() >= t.def.max_depth {
                return None;
            }
            contents.reserved += 1;
            drop(contents);
            Some(t)
        });
        let Some(target) = reserved else {
            tracing::warn!(queue = %lq.name, backout_queue = %name, "backout requeue queue missing or full; message left in place");
            return None;
        };
        let seq = self.next_key();
        Some(Requeue { target, seq })
    }

    /// Moves the message at `pos` of `lq` to the queue `r` reserved room
    /// on (MQ's backout requeue), ready there.
    fn finish_requeue(&self, lq: &Arc<LocalQueue>, pos: Position, r: Requeue) {
        let entry = lq.lock().remove(&pos);
        let mut target = r.target.lock();
        target.reserved -= 1;
        let Some(entry) = entry else {
            return;
        };
        tracing::warn!(
            queue = %lq.name,
            backout_queue = %r.target.name,
            msg_id = %hex::encode_upper(entry.index.msg_id),
            correl_id = %hex::encode_upper(entry.index.correl_id()),
            backout_count = entry.index.backout_count,
            "backout threshold reached; message requeued"
        );
        // The same priority, a new number (and store key).
        let new_pos = (pos.0, r.seq);
        target.insert(
            new_pos,
            super::queue::Entry {
                state: EntryState::Ready,
                ..entry
            },
        );
        drop(target);
        self.cache.remove(pos.1);
        r.target.notify().notify_waiters();
    }
}

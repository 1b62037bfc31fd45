//! The committer of one receiver connection (docs/channel-protocol.md
//! "Pipelining and group commit"): takes complete batches, fast-path
//! messages and heartbeats from the frame reader in order, applies them
//! through the [`Applier`] on the blocking pool, commits groups of batches in
//! sequence order and answers each commit with its cumulative CONFIRM; it
//! also applies the undelivered rule's retries.

use super::apply::{Applier, ApplyError, GroupCommit};
use super::instance::{Halt, Instance, halted};
use super::reader::{Conn, End, FrameReader, Work};
use super::{ChannelState, Frame, StatusBoard};
use crate::config::{ChannelLimits, ReceiverChannelDef, UndeliveredRule};
use crate::log_limit::Repeats;
use crate::mqi::SealedUow;
use bytes::Bytes;
use futures_util::stream::SplitSink;
use futures_util::{SinkExt, StreamExt};
use mqgate_codecs::mq::Mqrc;
use std::net::SocketAddr;
use std::sync::Arc;
use std::time::Duration;
use tokio::sync::{OwnedSemaphorePermit, mpsc, watch};

/// Work items queued between the frame reader and the committer.
const QUEUE_ITEMS: usize = 64;

/// One receiver connection after the handshake.
pub(super) struct Session<'a> {
    pub board: &'a StatusBoard,
    pub def: &'a ReceiverChannelDef,
    pub peer: SocketAddr,
    /// The agreed batch size, message length and heartbeat.
    pub limits: ChannelLimits,
    /// The channel's last committed batch sequence number.
    pub last: u64,
    pub applier: Option<Applier>,
    pub group_commit: GroupCommit,
    /// Ends an undelivered-rule retry wait when the gateway stops or the
    /// instance is adopted.
    pub halt: watch::Receiver<Halt>,
    /// The channel instance this session is; told when the session ends.
    pub instance: &'a Instance,
    /// Messages committed by this session (for its summary line).
    pub messages: u64,
}

/// Lines a receiver channel repeats at each connection of a sender that
/// keeps retrying (src/log_limit.rs), per channel and what went wrong: the
/// same trouble again is left out for a minute, different trouble is not.
static CLOSED: Repeats = Repeats::per_minute();
static LOST: Repeats = Repeats::per_minute();
static STOPPED: Repeats = Repeats::per_minute();
static RETRYING: Repeats = Repeats::per_minute();

impl Session<'_> {
    /// Runs the connection: a frame reader and a committer work side by side,
    /// so the next batches arrive while one is being committed, and batches
    /// that arrived meanwhile are committed together (one store transaction,
    /// one fsync) and confirmed with one cumulative CONFIRM
    /// (docs/channel-protocol.md "Pipelining and group commit").
    pub async fn run(mut self, conn: Conn, mut halt: watch::Receiver<Halt>) {
        let name = self.def.name.clone();
        let first = self.last;
        let (mut sink, mut stream) = conn.split();
        let (tx, rx) = mpsc::channel(QUEUE_ITEMS);
        // Turns true when the reader stops (the sender closed the channel,
        // went away or broke the protocol), ending an undelivered-rule retry
        // wait at once rather than after the queued work.
        let (reader_done, mut sender_gone) = watch::channel(false);
        let end = {
            let reader = FrameReader::new(&name, &self.limits, self.last);
            let reading = async move {
                let end = reader.read(&mut stream, &tx, &mut halt).await;
                let _ = reader_done.send(true);
                let _ = tx.send(Work::End(end)).await;
                // The committer ends the session once it reaches End.
                std::future::pending::<()>().await
            };
            tokio::select! {
                end = self.commit(&mut sink, rx, &mut sender_gone) => end,
                () = reading => End::Lost("internal: the frame reader stopped".into()),
            }
        };
        // Every commit of this session has returned: a new connection may
        // now adopt the channel (docs/channel-protocol.md "Adopting a
        // channel instance") rather than be refused while this one closes.
        self.instance.set_ending();
        // The session's summary: batches and messages it committed.
        let (batches, messages) = (self.last - first, self.messages);
        match end {
            End::Closed { reason, text } => {
                if reason == Mqrc::NONE {
                    tracing::info!(channel = %name, peer = %self.peer, %text, batches, messages,
                        last_committed_seq = self.last, "channel closed by the sender");
                    close(&mut sink, Mqrc::NONE, "closed".into()).await;
                } else {
                    if let Some(suppressed) = CLOSED.admit(&format!("{name} {} {text}", reason.0)) {
                        tracing::warn!(channel = %name, peer = %self.peer, reason = reason.0, %text,
                            batches, messages, last_committed_seq = self.last, suppressed,
                            "channel closed with a reason");
                    }
                    close(&mut sink, reason, text.clone()).await;
                    self.board.update(&name, |s| {
                        s.reason = reason.0;
                        s.message = text;
                    });
                }
            }
            End::Lost(text) => {
                if let Some(suppressed) = LOST.admit(&format!("{name} {text}")) {
                    tracing::warn!(channel = %name, peer = %self.peer, %text, batches, messages,
                        last_committed_seq = self.last, suppressed, "channel connection lost");
                }
                self.board.update(&name, |s| s.message = text);
            }
        }
        self.board.update(&name, |s| {
            if s.state != ChannelState::Stopped {
                s.state = ChannelState::Inactive;
            }
        });
        if let Some(mut a) = self.applier.take() {
            // MQXR_TERM may call into external exits: off the async threads.
            let _ = tokio::task::spawn_blocking(move || a.terminate()).await;
        }
    }

    /// The committer: takes the reader's work in order until its End. A
    /// group of batches is applied (in memory) while the previous group's
    /// store transaction runs on another thread; commits stay in sequence
    /// order, each answered by its cumulative CONFIRM.
    async fn commit(
        &mut self,
        sink: &mut Sink,
        mut rx: mpsc::Receiver<Work>,
        sender_gone: &mut watch::Receiver<bool>,
    ) -> End {
        let mut carry = None;
        let mut running: Option<Running> = None;
        loop {
            let work = match carry.take() {
                Some(w) => Some(w),
                None => match running.as_mut() {
                    Some(r) => tokio::select! {
                        done = &mut r.task => {
                            if let Some(r) = running.take()
                                && let Err(e) = self.finished(sink, r, done).await
                            {
                                return e;
                            }
                            continue;
                        }
                        w = rx.recv() => w,
                    },
                    None => rx.recv().await,
                },
            };
            let Some(work) = work else {
                return End::Lost("internal: the frame reader ended".into());
            };
            let Work::Batch { seq, msgs, budget } = work else {
                // Everything else waits for the running commit.
                if let Some(r) = running.take()
                    && let Err(e) = self.finish(sink, r).await
                {
                    return e;
                }
                let sent = match work {
                    Work::Reconfirm(seq) => {
                        tracing::info!(channel = %self.def.name, seq, "batch already committed; confirmed again");
                        sink.send(Frame::Confirm { seq }).await
                    }
                    Work::Fast(m, _budget) => {
                        if let Err(e) = self.apply(None, vec![m], sender_gone).await {
                            return e;
                        }
                        continue;
                    }
                    Work::Heartbeat => sink.send(Frame::Heartbeat).await,
                    Work::End(end) => return end,
                    Work::Batch { .. } => continue,
                };
                if let Err(e) = sent {
                    return End::Lost(format!("cannot answer the sender: {e}"));
                }
                continue;
            };
            // Every batch already queued joins this group; their read-ahead
            // budget is released once the group is committed.
            let mut group = vec![(seq, msgs)];
            let mut budgets = vec![budget];
            loop {
                match rx.try_recv() {
                    Ok(Work::Batch { seq, msgs, budget }) => {
                        group.push((seq, msgs));
                        budgets.push(budget);
                    }
                    Ok(other) => {
                        carry = Some(other);
                        break;
                    }
                    Err(_) => break,
                }
            }
            let (group, prepared) = match self.prepare(group).await {
                Ok(v) => v,
                Err(e) => {
                    if let Some(r) = running.take() {
                        let _ = self.finish(sink, r).await;
                    }
                    return e;
                }
            };
            if let Some(r) = running.take()
                && let Err(e) = self.finish(sink, r).await
            {
                if let Ok(sealed) = prepared {
                    self.group_commit.backout(sealed);
                }
                return e;
            }
            match prepared {
                Ok(sealed) => {
                    let commit = self.group_commit.clone();
                    let last = group.last().map_or(self.last, |(s, _)| *s);
                    let n = group.iter().map(|(_, m)| m.len() as u64).sum();
                    let bytes = group
                        .iter()
                        .flat_map(|(_, m)| m.iter().map(|b| b.len() as u64))
                        .sum();
                    running = Some(Running {
                        task: tokio::task::spawn_blocking(move || commit.commit(sealed)),
                        last,
                        n,
                        batches: group.len() as u64,
                        bytes,
                        budgets,
                    });
                }
                Err(()) => {
                    // A message has no destination: the batches one by one,
                    // each with the undelivered rule, each confirmed.
                    for (seq, msgs) in group {
                        if let Err(e) = self.apply(Some(seq), msgs, sender_gone).await {
                            return e;
                        }
                        if sink.send(Frame::Confirm { seq }).await.is_err() {
                            return End::Lost(format!("CONFIRM {seq} could not be sent"));
                        }
                    }
                }
            }
        }
    }

    /// Waits for a running commit and answers it.
    async fn finish(&mut self, sink: &mut Sink, r: Running) -> Result<(), End> {
        let mut r = r;
        let done = (&mut r.task).await;
        self.finished(sink, r, done).await
    }

    /// Answers a finished commit: CONFIRM on success, the channel closes
    /// with the reason otherwise.
    async fn finished(
        &mut self,
        sink: &mut Sink,
        r: Running,
        done: Result<Result<(), ApplyError>, tokio::task::JoinError>,
    ) -> Result<(), End> {
        match done {
            Ok(Ok(())) => {
                self.committed(r.last, r.n, r.batches, r.bytes);
                drop(r.budgets);
                sink.send(Frame::Confirm { seq: r.last })
                    .await
                    .map_err(|e| End::Lost(format!("CONFIRM {} could not be sent: {e}", r.last)))
            }
            Ok(Err(ApplyError::Close { reason, text }))
            | Ok(Err(ApplyError::Undelivered { reason, text, .. })) => {
                Err(End::Closed { reason, text })
            }
            Err(e) => Err(End::Lost(format!("commit task failed: {e}"))),
        }
    }

    /// Applies a group of batches in one unit of work, not yet committed.
    /// `Ok(Ok(sealed))`: prepared; `Ok(Err(()))`: a message has no destination
    /// and the rule is `retry` (nothing applied); `Err`: the channel closes.
    async fn prepare(
        &mut self,
        group: Vec<(u64, Vec<Bytes>)>,
    ) -> Result<(Vec<(u64, Vec<Bytes>)>, Result<SealedUow, ()>), End> {
        let Some(mut applier) = self.applier.take() else {
            return Err(End::Lost("internal: applier missing".into()));
        };
        let last = group.last().map_or(self.last, |(s, _)| *s);
        let joined = tokio::task::spawn_blocking(move || {
            let batches: Vec<&[Bytes]> = group.iter().map(|(_, m)| m.as_slice()).collect();
            let r = applier.prepare(&batches, last);
            (applier, group, r)
        })
        .await;
        let (applier, group, result) = match joined {
            Ok(v) => v,
            Err(e) => return Err(End::Lost(format!("apply task failed: {e}"))),
        };
        self.applier = Some(applier);
        match result {
            Ok((sealed, _dead)) => Ok((group, Ok(sealed))),
            Err(ApplyError::Undelivered { .. }) => Ok((group, Err(()))),
            Err(ApplyError::Close { reason, text }) => Err(End::Closed { reason, text }),
        }
    }

    /// Records that `batches` batches up to `last` (`n` messages of
    /// `bytes` bytes) are committed.
    fn committed(&mut self, last: u64, n: u64, batches: u64, bytes: u64) {
        self.last = last;
        self.messages += n;
        self.board.update(&self.def.name, |s| {
            s.state = ChannelState::Running;
            s.last_seq = last;
            s.moved(n, batches, bytes);
        });
    }

    /// Applies a batch (`seq` given) or one fast-path message, applying the
    /// undelivered rule's retries. A retry wait ends when `sender_gone`
    /// turns true: the sender closed the channel (or went away) while its
    /// batch was being retried, so the batch is not committed and the
    /// channel closes with the reason of the message that could not be
    /// placed (docs/channel-protocol.md "Close"); it is not stopped.
    async fn apply(
        &mut self,
        seq: Option<u64>,
        msgs: Vec<Bytes>,
        sender_gone: &mut watch::Receiver<bool>,
    ) -> Result<(), End> {
        let msgs: Arc<Vec<Bytes>> = Arc::new(msgs);
        let name = self.def.name.clone();
        let retry = self.def.retry.clone();
        let mut wait = Duration::from_millis(retry.first_interval_ms);
        let mut attempt = 0u32;
        loop {
            let Some(mut applier) = self.applier.take() else {
                return Err(End::Lost("internal: applier missing".into()));
            };
            let batch = Arc::clone(&msgs);
            let Some(seq) = seq else {
                // Fast path: a non-persistent put touches no store; skip the
                // hand-off to the blocking pool (exits keep their time budgets).
                let result = tokio::task::block_in_place(|| applier.apply_fast(&batch[0]));
                self.applier = Some(applier);
                return match result {
                    Ok(()) => {
                        let bytes = batch[0].len() as u64;
                        self.board.update(&name, |s| s.moved(1, 0, bytes));
                        Ok(())
                    }
                    Err(ApplyError::Close { reason, text })
                    | Err(ApplyError::Undelivered { reason, text, .. }) => {
                        Err(End::Closed { reason, text })
                    }
                };
            };
            let joined = tokio::task::spawn_blocking(move || {
                let r = applier.apply_batches(&[batch.as_slice()], seq);
                (applier, r)
            })
            .await;
            let (applier, result) = match joined {
                Ok(v) => v,
                Err(e) => return Err(End::Lost(format!("apply task failed: {e}"))),
            };
            self.applier = Some(applier);
            match result {
                Ok(_) => {
                    let bytes = msgs.iter().map(|b| b.len() as u64).sum();
                    self.committed(seq, msgs.len() as u64, 1, bytes);
                    if attempt > 0 {
                        tracing::info!(channel = %name, attempt, "batch delivered after retrying");
                    }
                    return Ok(());
                }
                Err(ApplyError::Close { reason, text }) => {
                    return Err(End::Closed { reason, text });
                }
                Err(ApplyError::Undelivered {
                    index,
                    reason,
                    text,
                }) => {
                    debug_assert_eq!(self.def.undelivered, UndeliveredRule::Retry);
                    if attempt >= retry.attempts {
                        let text = format!(
                            "message {} of batch {seq} undelivered after {attempt} retries: {text}; channel stopped, the message and those after it stay with the sender",
                            index + 1,
                        );
                        if let Some(suppressed) =
                            STOPPED.admit(&format!("{name} {} {text}", reason.0))
                        {
                            tracing::error!(channel = %name, reason = reason.0, %text, suppressed,
                                "channel stopped by the undelivered rule");
                        }
                        self.board.update(&name, |s| {
                            s.state = ChannelState::Stopped;
                            s.reason = reason.0;
                            s.message = text.clone();
                        });
                        return Err(End::Closed { reason, text });
                    }
                    attempt += 1;
                    if let Some(suppressed) = RETRYING.admit(&format!("{name} {} {text}", reason.0))
                    {
                        tracing::warn!(channel = %name, reason = reason.0, attempt,
                            wait_ms = wait.as_millis() as u64, %text, suppressed,
                            "undelivered; retrying the batch");
                    }
                    self.board.update(&name, |s| {
                        s.state = ChannelState::Retrying;
                        s.reason = reason.0;
                        s.message = text.clone();
                    });
                    // The gateway stopping or the instance being adopted
                    // is said first: it also ends the frame reader.
                    tokio::select! {
                        biased;
                        h = halted(&mut self.halt) => {
                            return Err(match h {
                                Halt::Adopted(adopted) => End::Closed {
                                    reason: Mqrc::CONNECTION_BROKEN,
                                    text: format!("{adopted}; {text}"),
                                },
                                _ => End::Closed {
                                    reason: Mqrc::CONNECTION_QUIESCING,
                                    text: format!("the gateway is stopping; {text}"),
                                },
                            });
                        }
                        Ok(_) = sender_gone.wait_for(|gone| *gone) => {
                            let text = format!(
                                "message {} of batch {seq} undelivered (waiting for retry {attempt} of {}): {text}; the sender closed the channel (or went away) meanwhile, so the batch was not committed and the channel was not stopped: the message and those after it stay with the sender",
                                index + 1,
                                retry.attempts,
                            );
                            tracing::warn!(channel = %name, reason = reason.0, %text,
                                "sender closed the channel during an undelivered-rule retry");
                            return Err(End::Closed { reason, text });
                        }
                        _ = tokio::time::sleep(wait) => {}
                    }
                    wait = (wait * 2).min(Duration::from_millis(retry.max_interval_ms));
                }
            }
        }
    }
}

type Sink = SplitSink<Conn, Frame>;

/// How long the last CLOSE may take to go out: a peer that stopped reading
/// (an adopted, silent sender) must not keep the channel.
const CLOSE_TIMEOUT: Duration = Duration::from_secs(2);

/// Sends CLOSE(`reason`, `text`) and closes the connection, giving up after
/// [`CLOSE_TIMEOUT`].
async fn close(sink: &mut Sink, reason: Mqrc, text: String) {
    let closing = async {
        let _ = sink
            .send(Frame::Close {
                reason: reason.0,
                text,
            })
            .await;
        let _ = sink.close().await;
    };
    let _ = tokio::time::timeout(CLOSE_TIMEOUT, closing).await;
}

/// A group's store transaction running on the blocking pool.
struct Running {
    task: tokio::task::JoinHandle<Result<(), ApplyError>>,
    /// The group's last (highest) sequence number and message count.
    last: u64,
    n: u64,
    /// Its batches and the bytes of their messages.
    batches: u64,
    bytes: u64,
    /// The group's read-ahead budget, released when it is committed.
    budgets: Vec<OwnedSemaphorePermit>,
}

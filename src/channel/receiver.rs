//! The receiver side: the channel listener of `mqgate run` and one task per
//! connection (docs/channel-protocol.md "Receiver").

use super::apply::{Applier, ApplyError, GroupCommit};
use super::frame::{FLAG_FAST, HANDSHAKE_MAX_FRAME, MESSAGE_OVERHEAD, reason};
use super::{ChannelState, Frame, FrameCodec, FrameError, HelloAck, PROTOCOL_VERSION, StatusBoard};
use crate::config::{ReceiverChannelDef, UndeliveredRule};
use crate::qmgr::{QueueManager, SealedUow};
use bytes::Bytes;
use futures_util::stream::{SplitSink, SplitStream};
use futures_util::{SinkExt, StreamExt};
use mqgate_codecs::mq::Mqrc;
use mqgate_exits::{ExitChain, ExitPoint, ExitRegistry, ExitsConfig};
use std::collections::HashMap;
use std::net::SocketAddr;
use std::sync::Arc;
use std::time::Duration;
use tokio::net::{TcpListener, TcpStream};
use tokio::sync::{OwnedSemaphorePermit, Semaphore, mpsc, watch};
use tokio_util::codec::Framed;

/// How long a new connection may take to send its HELLO.
const HANDSHAKE_TIMEOUT: Duration = Duration::from_secs(10);

type Conn = Framed<TcpStream, FrameCodec>;

struct Receiver {
    def: ReceiverChannelDef,
    /// Held while a sender is connected: one connection per channel at a time.
    busy: tokio::sync::Mutex<()>,
}

/// The receiver channels of a gateway.
pub struct Receivers {
    qm: Arc<QueueManager>,
    board: Arc<StatusBoard>,
    channels: HashMap<String, Arc<Receiver>>,
    /// The gateway's `exits:` section: its global and per-channel receive
    /// exits run before a channel's own `receive_exits`.
    exits: ExitsConfig,
}

impl Receivers {
    /// The receiver channels of `defs`, registered on `board`.
    pub fn new(
        qm: Arc<QueueManager>,
        board: Arc<StatusBoard>,
        defs: &[ReceiverChannelDef],
    ) -> Self {
        let mut channels = HashMap::new();
        for d in defs {
            board.add(&d.name, "receiver");
            channels.insert(
                d.name.clone(),
                Arc::new(Receiver {
                    def: d.clone(),
                    busy: tokio::sync::Mutex::new(()),
                }),
            );
        }
        Receivers {
            qm,
            board,
            channels,
            exits: ExitsConfig::default(),
        }
    }

    /// Adds the receive exits of the gateway's `exits:` section
    /// (`global.receive`, then `channels.NAME.receive`) in front of each
    /// channel's own `receive_exits` (docs/exits.md "Where each point runs").
    pub fn with_exits(mut self, exits: &ExitsConfig) -> Self {
        self.exits = exits.clone();
        self
    }

    /// Accepts connections on `listener` until `stop` turns true.
    pub async fn serve(self: Arc<Self>, listener: TcpListener, stop: watch::Receiver<bool>) {
        let mut stopping = stop.clone();
        loop {
            tokio::select! {
                accepted = listener.accept() => match accepted {
                    Ok((stream, peer)) => {
                        let me = Arc::clone(&self);
                        let stop = stop.clone();
                        me.qm.tasks().spawn_channel(async move { me.connection(stream, peer, stop).await });
                    }
                    Err(e) => {
                        tracing::warn!(error = %e, "channel listener: accept failed");
                        tokio::time::sleep(Duration::from_millis(100)).await;
                    }
                },
                _ = super::stopped(&mut stopping) => return,
            }
        }
    }

    async fn connection(&self, stream: TcpStream, peer: SocketAddr, stop: watch::Receiver<bool>) {
        let _ = stream.set_nodelay(true);
        let mut conn = Framed::new(stream, FrameCodec::default());
        let hello = match tokio::time::timeout(HANDSHAKE_TIMEOUT, conn.next()).await {
            Ok(Some(Ok(Frame::Hello(h)))) => h,
            Ok(Some(Ok(other))) => {
                let text = format!("expected a HELLO frame first, got {}", other.name());
                return refuse(&mut conn, peer, None, Mqrc::HEADER_ERROR, text).await;
            }
            Ok(Some(Err(e))) => {
                let text = format!("bad handshake: {e}");
                return refuse(&mut conn, peer, None, e.mqrc(), text).await;
            }
            Ok(None) => return,
            Err(_) => {
                let text = "no HELLO frame within 10 s".to_string();
                return refuse(&mut conn, peer, None, Mqrc::CONNECTION_BROKEN, text).await;
            }
        };
        let name = hello.channel.clone();
        let Some(rcv) = self.channels.get(&name).cloned() else {
            let text = format!("channel {name} is not defined as a receiver channel");
            return refuse(
                &mut conn,
                peer,
                Some(&name),
                reason::UNKNOWN_CHANNEL_NAME,
                text,
            )
            .await;
        };
        let def = &rcv.def;
        if !def.allowed_peers.is_empty() && !def.allowed_peers.contains(&peer.ip()) {
            let text = format!("peer {} is not allowed on channel {name}", peer.ip());
            return refuse(&mut conn, peer, Some(&name), reason::SECURITY_ERROR, text).await;
        }
        if hello.version == 0 {
            let text = "protocol version 0 is not valid".to_string();
            return refuse(
                &mut conn,
                peer,
                Some(&name),
                reason::CHANNEL_CONFIG_ERROR,
                text,
            )
            .await;
        }
        if !def.sending_q_mgr.is_empty() && hello.sending_q_mgr != def.sending_q_mgr {
            let text = format!(
                "channel {name} accepts sending queue manager {}, not {:?}",
                def.sending_q_mgr, hello.sending_q_mgr
            );
            return refuse(
                &mut conn,
                peer,
                Some(&name),
                reason::CHANNEL_CONFIG_ERROR,
                text,
            )
            .await;
        }
        if !hello.receiving_q_mgr.is_empty() && hello.receiving_q_mgr != self.qm.name() {
            let text = format!(
                "this is queue manager {}, not {}",
                self.qm.name(),
                hello.receiving_q_mgr
            );
            return refuse(&mut conn, peer, Some(&name), Mqrc::Q_MGR_NAME_ERROR, text).await;
        }
        if self.board.state(&name) == Some(ChannelState::Stopped) {
            let text = format!(
                "channel {name} is stopped (undelivered rule); restart the gateway to start it"
            );
            return refuse(&mut conn, peer, Some(&name), reason::CHANNEL_STOPPED, text).await;
        }
        let Ok(_busy) = rcv.busy.try_lock() else {
            let text = format!("channel {name} is already running with another sender");
            return refuse(
                &mut conn,
                peer,
                Some(&name),
                Mqrc::CHANNEL_NOT_AVAILABLE,
                text,
            )
            .await;
        };
        let last = match self.qm.meta(&super::seq_key(&name)) {
            Ok(v) => v
                .and_then(|b| <[u8; 8]>::try_from(b.as_slice()).ok())
                .map_or(0, u64::from_be_bytes),
            Err(e) => {
                return refuse(&mut conn, peer, Some(&name), e.mqrc, e.message).await;
            }
        };
        let chain = match self.start_chain(def) {
            Ok(c) => c,
            Err(text) => {
                return refuse(
                    &mut conn,
                    peer,
                    Some(&name),
                    reason::CHANNEL_CONFIG_ERROR,
                    text,
                )
                .await;
            }
        };
        let ack = HelloAck {
            version: hello.version.min(PROTOCOL_VERSION),
            receiving_q_mgr: self.qm.name().to_string(),
            batch_size: hello.batch_size.min(def.batch_size).max(1),
            max_msg_length: hello.max_msg_length.min(def.max_msg_length),
            heartbeat_ms: hello.heartbeat_ms.min(def.heartbeat_ms),
            last_committed_seq: last,
        };
        tracing::info!(channel = %name, peer = %peer, sending_q_mgr = %hello.sending_q_mgr,
            batch_size = ack.batch_size, max_msg_length = ack.max_msg_length,
            heartbeat_ms = ack.heartbeat_ms, last_committed_seq = last,
            sender_last_confirmed_seq = hello.last_confirmed_seq, "channel started");
        let limits = ack.clone();
        if conn.send(Frame::HelloAck(ack)).await.is_err() {
            return;
        }
        conn.codec_mut().set_max_frame(
            (limits.max_msg_length as usize + MESSAGE_OVERHEAD).max(HANDSHAKE_MAX_FRAME),
        );
        self.board.update(&name, |s| {
            s.state = ChannelState::Running;
            s.peer = Some(peer.to_string());
            s.last_seq = last;
        });
        let applier = Applier::new(Arc::clone(&self.qm), &name, def.undelivered, chain);
        let session = Session {
            board: &self.board,
            def,
            peer,
            limits,
            last,
            group_commit: applier.group_commit(),
            applier: Some(applier),
            stop: stop.clone(),
        };
        session.run(conn, stop).await;
    }

    fn start_chain(&self, def: &ReceiverChannelDef) -> Result<Option<ExitChain>, String> {
        let defs: Vec<_> = self
            .exits
            .chain_defs(ExitPoint::Receive, &def.name)
            .into_iter()
            .chain(def.receive_exits.iter())
            .collect();
        if defs.is_empty() {
            return Ok(None);
        }
        let registry = ExitRegistry::with_builtins();
        let entries = defs
            .into_iter()
            .map(|d| registry.entry(ExitPoint::Receive, d))
            .collect::<Result<Vec<_>, _>>()
            .map_err(|e| format!("receive exit of channel {}: {e}", def.name))?;
        ExitChain::start(ExitPoint::Receive, &def.name, self.qm.name(), entries)
            .map(Some)
            .map_err(|e| format!("receive exits of channel {}: {e}", def.name))
    }
}

/// Sends a CLOSE with `reason` and logs why the connection is refused or ended.
async fn refuse(
    conn: &mut Conn,
    peer: SocketAddr,
    channel: Option<&str>,
    reason: Mqrc,
    text: String,
) {
    tracing::warn!(channel = channel.unwrap_or(""), peer = %peer, reason = reason.0, %text,
        "channel closed with a reason");
    let _ = conn
        .send(Frame::Close {
            reason: reason.0,
            text,
        })
        .await;
    let _ = conn.close().await;
}

/// Bytes of received, not yet committed batches a connection may hold while
/// it reads ahead of the commits (pipelining); one whole batch always fits.
const READ_AHEAD_BYTES: usize = 32 * 1024 * 1024;
/// Read-ahead budget unit: permits count KiB so a u32 covers any batch.
const BUDGET_UNIT: usize = 1024;
/// Work items queued between the frame reader and the committer.
const QUEUE_ITEMS: usize = 64;

/// What the frame reader hands to the committer, in arrival order.
enum Work {
    /// A complete batch (END_BATCH seen, count checked), holding its share
    /// of the read-ahead budget until it is committed.
    Batch {
        seq: u64,
        msgs: Vec<Bytes>,
        budget: OwnedSemaphorePermit,
    },
    /// A batch committed before this connection (its CONFIRM was lost):
    /// confirm it again, apply nothing.
    Reconfirm(u64),
    /// A non-persistent message sent outside any batch, holding its share of
    /// the read-ahead budget until it is applied.
    Fast(Bytes, OwnedSemaphorePermit),
    /// Answer a HEARTBEAT.
    Heartbeat,
    /// The reader stopped; everything queued before this is done first.
    End(End),
}

struct Session<'a> {
    board: &'a StatusBoard,
    def: &'a ReceiverChannelDef,
    peer: SocketAddr,
    limits: HelloAck,
    last: u64,
    applier: Option<Applier>,
    group_commit: GroupCommit,
    /// Ends an undelivered-rule retry wait when the gateway stops.
    stop: watch::Receiver<bool>,
}

/// How a session ended.
enum End {
    Closed { reason: Mqrc, text: String },
    Lost(String),
}

impl Session<'_> {
    /// Runs the connection: a frame reader and a committer work side by side,
    /// so the next batches arrive while one is being committed, and batches
    /// that arrived meanwhile are committed together (one store transaction,
    /// one fsync) and confirmed with one cumulative CONFIRM
    /// (docs/channel-protocol.md "Pipelining and group commit").
    async fn run(mut self, conn: Conn, mut stop: watch::Receiver<bool>) {
        let name = self.def.name.clone();
        let (mut sink, mut stream) = conn.split();
        let (tx, rx) = mpsc::channel(QUEUE_ITEMS);
        let end = {
            let reader = FrameReader {
                channel: name.clone(),
                limits: self.limits.clone(),
                received: self.last,
                committed_at_connect: self.last,
                reconfirmed: 0,
                budget: Arc::new(Semaphore::new(READ_AHEAD_BYTES / BUDGET_UNIT)),
            };
            let reading = async move {
                let end = reader.read(&mut stream, &tx, &mut stop).await;
                let _ = tx.send(Work::End(end)).await;
                // The committer ends the session once it reaches End.
                std::future::pending::<()>().await
            };
            tokio::select! {
                end = self.commit(&mut sink, rx) => end,
                () = reading => End::Lost("internal: the frame reader stopped".into()),
            }
        };
        match end {
            End::Closed { reason, text } => {
                if reason == Mqrc::NONE {
                    tracing::info!(channel = %name, peer = %self.peer, %text, "channel closed by the sender");
                    let _ = sink
                        .send(Frame::Close {
                            reason: 0,
                            text: "closed".into(),
                        })
                        .await;
                    let _ = sink.close().await;
                } else {
                    tracing::warn!(channel = %name, peer = %self.peer, reason = reason.0, %text,
                        "channel closed with a reason");
                    let _ = sink
                        .send(Frame::Close {
                            reason: reason.0,
                            text: text.clone(),
                        })
                        .await;
                    let _ = sink.close().await;
                    self.board.update(&name, |s| {
                        s.reason = reason.0;
                        s.message = text;
                    });
                }
            }
            End::Lost(text) => {
                tracing::warn!(channel = %name, peer = %self.peer, %text, "channel connection lost");
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
    async fn commit(&mut self, sink: &mut Sink, mut rx: mpsc::Receiver<Work>) -> End {
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
                        if let Err(e) = self.apply(None, vec![m]).await {
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
                    running = Some(Running {
                        task: tokio::task::spawn_blocking(move || commit.commit(sealed)),
                        last,
                        n,
                        budgets,
                    });
                }
                Err(()) => {
                    // A message has no destination: the batches one by one,
                    // each with the undelivered rule, each confirmed.
                    for (seq, msgs) in group {
                        if let Err(e) = self.apply(Some(seq), msgs).await {
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
                self.committed(r.last, r.n);
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

    /// Records that batches up to `last` (`n` messages) are committed.
    fn committed(&mut self, last: u64, n: u64) {
        self.last = last;
        self.board.update(&self.def.name, |s| {
            s.state = ChannelState::Running;
            s.last_seq = last;
            s.messages += n;
        });
    }

    /// Applies a batch (`seq` given) or one fast-path message, applying the
    /// undelivered rule's retries.
    async fn apply(&mut self, seq: Option<u64>, msgs: Vec<Bytes>) -> Result<(), End> {
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
                        self.board.update(&name, |s| s.messages += 1);
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
                    self.committed(seq, msgs.len() as u64);
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
                        tracing::error!(channel = %name, reason = reason.0, %text, "channel stopped by the undelivered rule");
                        self.board.update(&name, |s| {
                            s.state = ChannelState::Stopped;
                            s.reason = reason.0;
                            s.message = text.clone();
                        });
                        return Err(End::Closed { reason, text });
                    }
                    attempt += 1;
                    tracing::warn!(channel = %name, reason = reason.0, attempt,
                        wait_ms = wait.as_millis() as u64, %text, "undelivered; retrying the batch");
                    self.board.update(&name, |s| {
                        s.state = ChannelState::Retrying;
                        s.reason = reason.0;
                        s.message = text.clone();
                    });
                    tokio::select! {
                        _ = tokio::time::sleep(wait) => {}
                        _ = super::stopped(&mut self.stop) => {
                            return Err(End::Closed {
                                reason: reason::CONNECTION_QUIESCING,
                                text: format!("the gateway is stopping; {text}"),
                            });
                        }
                    }
                    wait = (wait * 2).min(Duration::from_millis(retry.max_interval_ms));
                }
            }
        }
    }
}

type Sink = SplitSink<Conn, Frame>;

/// A group's store transaction running on the blocking pool.
struct Running {
    task: tokio::task::JoinHandle<Result<(), ApplyError>>,
    /// The group's last (highest) sequence number and message count.
    last: u64,
    n: u64,
    /// The group's read-ahead budget, released when it is committed.
    budgets: Vec<OwnedSemaphorePermit>,
}

/// The frame reader of one connection: checks each frame and hands complete
/// batches, fast-path messages and heartbeats to the committer in order.
struct FrameReader {
    channel: String,
    limits: HelloAck,
    /// Highest batch sequence number received complete (or committed before
    /// this connection).
    received: u64,
    /// The channel's last committed sequence number when this connection
    /// started: a batch up to it is a resend whose CONFIRM was lost.
    committed_at_connect: u64,
    /// Highest such resend confirmed again on this connection.
    reconfirmed: u64,
    /// Read-ahead budget in [`BUDGET_UNIT`]s ([`READ_AHEAD_BYTES`] in all).
    budget: Arc<Semaphore>,
}

impl FrameReader {
    /// Waits for `bytes` of read-ahead budget (one whole batch always fits);
    /// `None` if the budget was closed.
    async fn budget(&self, bytes: usize) -> Option<OwnedSemaphorePermit> {
        let units = bytes
            .div_ceil(BUDGET_UNIT)
            .clamp(1, READ_AHEAD_BYTES / BUDGET_UNIT);
        Arc::clone(&self.budget)
            .acquire_many_owned(units as u32)
            .await
            .ok()
    }

    async fn read(
        mut self,
        stream: &mut SplitStream<Conn>,
        tx: &mpsc::Sender<Work>,
        stop: &mut watch::Receiver<bool>,
    ) -> End {
        let mut pending: Vec<Bytes> = Vec::new();
        let mut pending_bytes = 0usize;
        let idle = match self.limits.heartbeat_ms {
            0 => None,
            hb => Some(Duration::from_millis(hb as u64 * 3)),
        };
        let uncommitted = |n: usize| {
            format!(
                "{n} uncommitted messages of the open batch discarded (the sender resends them)"
            )
        };
        loop {
            let next = async {
                match idle {
                    Some(d) => tokio::time::timeout(d, stream.next()).await.ok(),
                    None => Some(stream.next().await),
                }
            };
            let frame = tokio::select! {
                f = next => f,
                _ = super::stopped(stop) => {
                    return End::Closed { reason: reason::CONNECTION_QUIESCING, text: "the gateway is stopping".into() };
                }
            };
            let frame = match frame {
                None => {
                    return End::Closed {
                        reason: Mqrc::CONNECTION_BROKEN,
                        text: format!(
                            "no frame for {} ms (3 heartbeat intervals)",
                            self.limits.heartbeat_ms * 3
                        ),
                    };
                }
                Some(None) => {
                    return End::Lost(format!(
                        "the sender went away; {}",
                        uncommitted(pending.len())
                    ));
                }
                Some(Some(Err(FrameError::Io(e)))) => {
                    return End::Lost(format!("{e}; {}", uncommitted(pending.len())));
                }
                Some(Some(Err(e))) => {
                    return End::Closed {
                        reason: e.mqrc(),
                        text: format!(
                            "{e}; the open batch of {} messages is not committed",
                            pending.len()
                        ),
                    };
                }
                Some(Some(Ok(f))) => f,
            };
            let work = match frame {
                Frame::Message { flags, data } if flags & FLAG_FAST != 0 => {
                    let Some(budget) = self.budget(data.len()).await else {
                        return End::Lost("internal: read-ahead budget closed".into());
                    };
                    Work::Fast(data, budget)
                }
                Frame::Message { data, .. } => {
                    if pending.len() >= self.limits.batch_size as usize {
                        return End::Closed {
                            reason: Mqrc::HEADER_ERROR,
                            text: format!(
                                "more than the agreed batch size of {} messages without END_BATCH",
                                self.limits.batch_size
                            ),
                        };
                    }
                    pending_bytes += data.len();
                    pending.push(data);
                    continue;
                }
                Frame::EndBatch { seq, count } => {
                    if count as usize != pending.len() {
                        return End::Closed {
                            reason: Mqrc::HEADER_ERROR,
                            text: format!(
                                "END_BATCH {seq} counts {count} messages, {} were sent",
                                pending.len()
                            ),
                        };
                    }
                    if count == 0 || seq == 0 {
                        return End::Closed {
                            reason: Mqrc::HEADER_ERROR,
                            text: format!(
                                "END_BATCH {seq} with {count} messages: a batch has 1 to batch_size messages and a sequence number from 1"
                            ),
                        };
                    }
                    let msgs = std::mem::take(&mut pending);
                    let bytes = std::mem::take(&mut pending_bytes);
                    if seq <= self.committed_at_connect
                        && seq > self.reconfirmed
                        && self.received == self.committed_at_connect
                    {
                        // Committed before this connection; its CONFIRM was
                        // lost. Resends come first and in order, so CONFIRMs
                        // never go backwards.
                        self.reconfirmed = seq;
                        Work::Reconfirm(seq)
                    } else if seq <= self.received {
                        return End::Closed {
                            reason: Mqrc::HEADER_ERROR,
                            text: format!(
                                "END_BATCH {seq} was already received or confirmed on this connection (next expected: {})",
                                self.received + 1
                            ),
                        };
                    } else if seq != self.received + 1 {
                        return End::Closed {
                            reason: Mqrc::HEADER_ERROR,
                            text: format!(
                                "END_BATCH sequence number {seq}, expected {}",
                                self.received + 1
                            ),
                        };
                    } else {
                        self.received = seq;
                        let Some(budget) = self.budget(bytes).await else {
                            return End::Lost("internal: read-ahead budget closed".into());
                        };
                        Work::Batch { seq, msgs, budget }
                    }
                }
                Frame::Heartbeat if !pending.is_empty() => {
                    return End::Closed {
                        reason: Mqrc::HEADER_ERROR,
                        text: format!(
                            "HEARTBEAT inside an open batch of {} messages (valid between batches only)",
                            pending.len()
                        ),
                    };
                }
                Frame::Heartbeat => Work::Heartbeat,
                Frame::Close { reason, text } => {
                    if !pending.is_empty() {
                        tracing::warn!(channel = %self.channel, messages = pending.len(), "closed inside a batch; the batch is not committed");
                    }
                    return End::Closed {
                        reason: if reason == 0 {
                            Mqrc::NONE
                        } else {
                            Mqrc::CONNECTION_BROKEN
                        },
                        text: format!("sender closed with reason {reason}: {text}"),
                    };
                }
                other => {
                    return End::Closed {
                        reason: Mqrc::HEADER_ERROR,
                        text: format!("unexpected {} frame from the sender", other.name()),
                    };
                }
            };
            if tx.send(work).await.is_err() {
                return End::Lost("internal: the committer ended".into());
            }
        }
    }
}

//! A configured sender channel: serves a transmission queue and delivers its
//! messages to another mqgate's receiver channel, reconnecting with backoff
//! (docs/channel-protocol.md "Sender channels").
//!
//! Messages are taken from the transmission queue under a unit of work and
//! removed (committed) only after the receiver confirmed their batch. If the
//! connection breaks after END_BATCH, the unit stays open until the next
//! handshake tells whether the receiver committed the batch: committed → the
//! unit is committed, not resent; otherwise backed out and resent.
//!
//! So that this also holds when the sending gateway itself is killed, the
//! batch's sequence number and MsgIds are stored (state record
//! `sender/NAME/in_flight`) before END_BATCH, and cleared in the same
//! transaction that removes the messages. After a restart, a stored batch
//! the receiver reports committed is removed from the transmission queue
//! instead of being sent again.
//!
//! Each message taken from the transmission queue passes the channel's
//! message and send exits first ([`super::transmit`]); one they refuse, one
//! too long for the channel, or one that is no transmission message (no
//! valid MQXQH: the receiver could never deliver it) is dead-lettered in the
//! batch's unit of work (committed with it) and the rest are sent.

use super::sender::{Offer, SendError, SenderConn};
use super::transmit::{self, SenderExits, Transmit};
use super::{ChannelState, StatusBoard};
use crate::config::SenderChannelDef;
use crate::log_limit::Repeats;
use crate::mqi::{CallError, GetMode, GetRequest, Mqi, QmError, Selector};
use bytes::Bytes;
use mqgate_codecs::mq::Mqrc;
use mqgate_exits::ExitsConfig;
use std::sync::Arc;
use std::time::Duration;
use tokio::sync::watch;

/// "sender channel retrying", per channel and failure (src/log_limit.rs):
/// a channel that keeps failing the same way writes one line a minute.
static RETRYING: Repeats = Repeats::per_minute();

/// One configured sender channel.
pub struct SenderChannel {
    /// The queue interface: gets from the transmission queue, units of
    /// work, the in-flight record, dead-letters.
    mqi: Mqi,
    board: Arc<StatusBoard>,
    def: SenderChannelDef,
    /// The gateway's `exits:` section: the channel's message and send exits.
    exits: ExitsConfig,
    /// (sequence number, unit of work) of a batch sent but not seen confirmed.
    in_flight: Option<(u64, u64)>,
    last_confirmed: u64,
    /// The channel's TLS client when its `tls:` is set.
    tls: Option<Arc<crate::security::tls::TlsClient>>,
}

/// A message taken from the transmission queue for the next batch.
struct Taken {
    msg_id: [u8; 24],
    data: Bytes,
}

impl SenderChannel {
    /// A sender channel for `def`, registered on `board`, serving its
    /// transmission queue through `mqi`.
    pub fn new(mqi: Mqi, board: Arc<StatusBoard>, def: SenderChannelDef) -> Self {
        board.add(&def.name, "sender");
        SenderChannel {
            mqi,
            board,
            def,
            exits: ExitsConfig::default(),
            in_flight: None,
            last_confirmed: 0,
            tls: None,
        }
    }

    /// Connects over TLS with `tls` (made from the channel's `tls:`
    /// setting, src/security/tls/), checking the receiver's certificate
    /// against the channel's `sslpeer`; `None`: plain TCP.
    pub fn with_tls(mut self, tls: Option<Arc<crate::security::tls::TlsClient>>) -> Self {
        self.tls = tls;
        self
    }

    /// Runs the message exits (`exits.global.message`, then
    /// `exits.channels.NAME.message`) and the send exits (`global.send`, then
    /// `channels.NAME.send`) of the gateway's `exits:` section on each
    /// transmission message before it is sent; the chains start (MQXR_INIT)
    /// when a connection is made and end (MQXR_TERM) when it ends
    /// (docs/exits.md "Where each point runs").
    pub fn with_exits(mut self, exits: &ExitsConfig) -> Self {
        self.exits = exits.clone();
        self
    }

    fn offer(&self) -> Offer {
        Offer {
            channel: self.def.name.clone(),
            sending_q_mgr: self.mqi.q_mgr_name().to_string(),
            receiving_q_mgr: String::new(),
            limits: self.def.limits,
            last_confirmed_seq: self.last_confirmed,
        }
    }

    fn show(&self, state: ChannelState, reason: i32, message: String) {
        let depth = self.mqi.depth(&self.def.xmit_queue);
        let last = self.last_confirmed;
        let peer = self.def.connect.to_string();
        self.board.update(&self.def.name, |s| {
            s.state = state;
            s.peer = Some(peer);
            s.last_seq = last;
            s.xmit_queue_depth = depth;
            if reason != 0 || !message.is_empty() {
                s.reason = reason;
                s.message = message;
            }
        });
    }

    async fn finish(&mut self, commit: bool) {
        if let Some((_, uow)) = self.in_flight.take() {
            let done = if commit {
                self.mqi.commit(uow).await
            } else {
                self.mqi.backout(uow).await
            };
            if let Err(e) = done {
                tracing::error!(channel = %self.def.name, commit, error = %e,
                    "could not end the in-flight unit of work");
            }
        }
    }

    fn in_flight_key(&self) -> String {
        format!("sender/{}/in_flight", self.def.name)
    }

    /// After a restart: settles the batch recorded as in flight by the
    /// previous run, given the receiver's last committed sequence number.
    async fn settle_recorded(&mut self, last_committed: u64) -> Result<(), QmError> {
        let key = self.in_flight_key();
        let Some(rec) = self.mqi.meta(&key).await? else {
            return Ok(());
        };
        if rec.len() < 8 || (rec.len() - 8) % 24 != 0 {
            return Ok(());
        }
        let mut seq = [0u8; 8];
        seq.copy_from_slice(&rec[..8]);
        let seq = u64::from_be_bytes(seq);
        let mqi = self.mqi.clone();
        let xmitq = self.mqi.open_xmit_queue(&self.def.xmit_queue)?;
        let name = self.def.name.clone();
        Mqi::blocking(move || {
            let uow = mqi.begin(None)?;
            if last_committed >= seq {
                let mut removed = 0;
                for id in rec[8..].chunks_exact(24) {
                    let mut msg_id = [0u8; 24];
                    msg_id.copy_from_slice(id);
                    let sel = Selector {
                        msg_id: Some(msg_id),
                        correl_id: None,
                        group_id: None,
                        filter: None,
                        put_before: None,
                    };
                    if mqi.get_now_detailed(&xmitq, &sel, uow).is_ok() {
                        removed += 1;
                    }
                }
                tracing::info!(channel = %name, seq, removed,
                    "batch committed by the receiver before a restart; removed, not resent");
            }
            mqi.commit_with_meta_now(uow, vec![(key, Vec::new())])
        })
        .await?;
        if last_committed >= seq {
            self.last_confirmed = seq;
        }
        Ok(())
    }

    /// Runs until `stop` turns true.
    pub async fn run(mut self, mut stop: watch::Receiver<bool>) {
        let first = Duration::from_millis(self.def.reconnect.first_ms.max(1));
        let max = Duration::from_millis(self.def.reconnect.max_ms.max(1));
        let mut backoff = first;
        while !*stop.borrow() {
            let secure = self.tls.as_deref().map(|client| super::sender::Secure {
                client,
                sslpeer: self.def.sslpeer.as_ref(),
            });
            let connected =
                SenderConn::connect_secure(self.def.connect, &self.offer(), secure).await;
            let failure = match connected {
                Ok(mut conn) => {
                    backoff = first;
                    if self.in_flight.is_none()
                        && let Err(e) = self.settle_recorded(conn.agreed.last_committed_seq).await
                    {
                        tracing::error!(channel = %self.def.name, error = %e, "cannot settle the recorded in-flight batch");
                    }
                    if let Some((seq, _)) = self.in_flight {
                        let committed = conn.agreed.last_committed_seq >= seq;
                        tracing::info!(channel = %self.def.name, seq, committed, "resynchronised the in-flight batch");
                        self.finish(committed).await;
                        if committed {
                            self.last_confirmed = seq;
                        }
                    }
                    match self.start_exits(conn.agreed.limits.max_msg_length).await {
                        Err(e) => {
                            if let SendError::Closed { reason, text } = &e {
                                conn.abort(*reason, text).await;
                            }
                            e
                        }
                        Ok(mut exits) => {
                            tracing::info!(channel = %self.def.name, peer = %self.def.connect,
                                last_committed_seq = conn.agreed.last_committed_seq, "sender channel running");
                            self.show(ChannelState::Running, 0, String::new());
                            let pumped = self.pump(&mut conn, &mut exits, &mut stop).await;
                            // MQXR_TERM may call into external exits: off the async threads.
                            let _ = tokio::task::spawn_blocking(move || exits.terminate()).await;
                            match pumped {
                                Ok(()) => {
                                    let _ = conn.close("the gateway is stopping").await;
                                    break;
                                }
                                Err(e) => {
                                    if let SendError::Closed { reason, text } = &e {
                                        conn.abort(*reason, text).await;
                                    }
                                    e
                                }
                            }
                        }
                    }
                }
                Err(e) => e,
            };
            let reason = failure.mqrc().0;
            if let Some(suppressed) = RETRYING.admit(&format!("{} {failure}", self.def.name)) {
                tracing::warn!(channel = %self.def.name, error = %failure,
                    retry_in_ms = backoff.as_millis() as u64, suppressed, "sender channel retrying");
            }
            self.show(ChannelState::Retrying, reason, failure.to_string());
            tokio::select! {
                _ = tokio::time::sleep(backoff) => {}
                _ = super::stopped(&mut stop) => break,
            }
            backoff = (backoff * 2).min(max);
        }
        // Not confirmed: the messages go back to the transmission queue.
        self.finish(false).await;
        self.show(ChannelState::Inactive, 0, String::new());
    }

    /// Starts the channel's exit chains for a connection that agreed
    /// `max_msg_length`. Errors: a chain does not start, or its exit space
    /// leaves too little room (2539 MQRC_CHANNEL_CONFIG_ERROR).
    async fn start_exits(&self, max_msg_length: u32) -> Result<SenderExits, SendError> {
        let exits = self.exits.clone();
        let name = self.def.name.clone();
        let q_mgr = self.mqi.q_mgr_name().to_string();
        let started = tokio::task::spawn_blocking(move || {
            let e = SenderExits::start(&exits, &name, &q_mgr)?;
            e.check_room(max_msg_length).map(|()| e)
        })
        .await
        .map_err(|e| SendError::Protocol(format!("exit start task failed: {e}")))?;
        started.map_err(|text| SendError::Closed {
            reason: Mqrc::CHANNEL_CONFIG_ERROR,
            text,
        })
    }

    async fn pump(
        &mut self,
        conn: &mut SenderConn,
        exits: &mut SenderExits,
        stop: &mut watch::Receiver<bool>,
    ) -> Result<(), SendError> {
        let xmitq = self.def.xmit_queue.clone();
        let batch_size = conn.agreed.limits.batch_size.max(1) as usize;
        let wait = Duration::from_millis(match conn.agreed.limits.heartbeat_ms {
            0 => 1000,
            hb => hb as u64,
        });
        let internal = |e: QmError| SendError::Protocol(format!("transmission queue {xmitq}: {e}"));
        let obj = self.mqi.open_xmit_queue(&xmitq).map_err(internal)?;
        let any = Selector::default();
        loop {
            // The gateway is stopping: no new batch once the last one is
            // confirmed (a waiting get below ends with the stop too).
            if *stop.borrow() {
                return Ok(());
            }
            let uow = self.mqi.begin(None).map_err(internal)?;
            // A message ready now is taken at once; only an empty queue
            // waits (up to one heartbeat interval, without polling).
            let first = match self.mqi.get_now_detailed(&obj, &any, uow) {
                Err(CallError::Queue(e)) if e.mqrc == Mqrc::NO_MSG_AVAILABLE => {
                    let req = GetRequest {
                        selector: Selector::default(),
                        wait,
                        max_wait: wait,
                    };
                    let mode = GetMode::Destructive { uow: Some(uow) };
                    tokio::select! {
                        r = self.mqi.get_detailed(&obj, req, mode) => r.map(|g| g.message),
                        _ = super::stopped(stop) => {
                            let _ = self.mqi.backout_now(uow);
                            return Ok(());
                        }
                    }
                }
                other => other,
            };
            let mut taken = match first {
                Ok(m) => vec![Taken {
                    msg_id: m.md.msg_id,
                    data: m.data,
                }],
                Err(CallError::Queue(e)) if e.mqrc == Mqrc::NO_MSG_AVAILABLE => {
                    let _ = self.mqi.backout_now(uow);
                    self.show(ChannelState::Running, 0, String::new());
                    if conn.agreed.limits.heartbeat_ms > 0 {
                        conn.heartbeat().await?;
                    }
                    continue;
                }
                Err(e) => {
                    let _ = self.mqi.backout_now(uow);
                    return Err(internal(e.into()));
                }
            };
            while taken.len() < batch_size {
                match self.mqi.get_now_detailed(&obj, &any, uow) {
                    Ok(m) => taken.push(Taken {
                        msg_id: m.md.msg_id,
                        data: m.data,
                    }),
                    Err(_) => break,
                }
            }
            let max = conn.agreed.limits.max_msg_length as usize;
            let sendable = match self.through_exits(exits, taken, max, uow).await {
                Ok(s) => s,
                Err(e) => {
                    // Nothing sent: every message returns to the transmission queue.
                    let _ = self.mqi.backout_now(uow);
                    return Err(e);
                }
            };
            if sendable.is_empty() {
                // Every message was dead-lettered: commit that, send nothing.
                self.mqi.commit(uow).await.map_err(internal)?;
                self.show(ChannelState::Running, 0, String::new());
                continue;
            }
            let mut record = conn.next_seq().to_be_bytes().to_vec();
            let mut msgs = Vec::with_capacity(sendable.len());
            for t in sendable {
                record.extend_from_slice(&t.msg_id);
                msgs.push(t.data);
            }
            self.in_flight = Some((conn.next_seq(), uow));
            let meta = vec![(self.in_flight_key(), record)];
            self.mqi.put_meta(meta).await.map_err(internal)?;
            let seq = conn.send_batch(&msgs).await?;
            self.last_confirmed = seq;
            self.finish(true).await;
            let n = msgs.len() as u64;
            let bytes = msgs.iter().map(|b| b.len() as u64).sum();
            self.board.update(&self.def.name, |s| s.moved(n, 1, bytes));
            self.show(ChannelState::Running, 0, String::new());
        }
    }

    /// Runs the exits on the messages of one batch (on the blocking pool
    /// when there are exits) and dead-letters, under `uow`, those they
    /// refuse or that are too long for the channel; returns the messages to
    /// send, in order. Errors: an exit closed the channel, or a message could
    /// not be dead-lettered (then it stays on the transmission queue).
    async fn through_exits(
        &self,
        exits: &mut SenderExits,
        taken: Vec<Taken>,
        max_msg_length: usize,
        uow: u64,
    ) -> Result<Vec<Taken>, SendError> {
        let outcomes: Vec<(Taken, Transmit)> = if exits.is_empty() {
            taken
                .into_iter()
                .map(|t| {
                    let out = exits.transmit(t.data.clone(), max_msg_length);
                    (t, out)
                })
                .collect()
        } else {
            let mut owned =
                std::mem::replace(exits, SenderExits::from_chains(&self.def.name, None, None));
            let (back, outcomes) = tokio::task::spawn_blocking(move || {
                let outcomes = taken
                    .into_iter()
                    .map(|t| {
                        let out = owned.transmit(t.data.clone(), max_msg_length);
                        (t, out)
                    })
                    .collect::<Vec<_>>();
                (owned, outcomes)
            })
            .await
            .map_err(|e| SendError::Protocol(format!("exit task failed: {e}")))?;
            *exits = back;
            outcomes
        };
        let mut sendable = Vec::with_capacity(outcomes.len());
        for (t, out) in outcomes {
            match out {
                Transmit::Send(data) => sendable.push(Taken {
                    msg_id: t.msg_id,
                    data,
                }),
                Transmit::DeadLetter {
                    reason,
                    text,
                    buffer,
                } => {
                    tracing::warn!(channel = %self.def.name, reason = reason.0,
                        msg_id = %hex::encode_upper(t.msg_id), %text,
                        "message not sent; it goes to the dead-letter queue");
                    transmit::dead_letter(&self.mqi, &self.def.name, &buffer, reason, uow).map_err(
                        |e| SendError::Closed {
                            reason: e.mqrc,
                            text: format!(
                                "{text}; and it cannot be dead-lettered: {}; it stays on the transmission queue",
                                e.message
                            ),
                        },
                    )?;
                }
                Transmit::Close { reason, text } => {
                    return Err(SendError::Closed { reason, text });
                }
            }
        }
        Ok(sendable)
    }
}

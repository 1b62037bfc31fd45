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

use super::sender::{Offer, SendError, SenderConn};
use super::{ChannelState, StatusBoard};
use crate::config::SenderChannelDef;
use crate::qmgr::{GetMode, QueueManager, Selector};
use bytes::Bytes;
use mqgate_codecs::mq::Mqrc;
use std::sync::Arc;
use std::time::Duration;
use tokio::sync::watch;

/// One configured sender channel.
pub struct SenderChannel {
    qm: Arc<QueueManager>,
    board: Arc<StatusBoard>,
    def: SenderChannelDef,
    /// (sequence number, unit of work) of a batch sent but not seen confirmed.
    in_flight: Option<(u64, u64)>,
    last_confirmed: u64,
}

impl SenderChannel {
    /// A sender channel for `def`, registered on `board`.
    pub fn new(qm: Arc<QueueManager>, board: Arc<StatusBoard>, def: SenderChannelDef) -> Self {
        board.add(&def.name, "sender");
        SenderChannel {
            qm,
            board,
            def,
            in_flight: None,
            last_confirmed: 0,
        }
    }

    fn offer(&self) -> Offer {
        Offer {
            channel: self.def.name.clone(),
            sending_q_mgr: self.qm.name().to_string(),
            receiving_q_mgr: String::new(),
            batch_size: self.def.batch_size,
            max_msg_length: self.def.max_msg_length,
            heartbeat_ms: self.def.heartbeat_ms,
            last_confirmed_seq: self.last_confirmed,
        }
    }

    fn show(&self, state: ChannelState, reason: i32, message: String) {
        let depth = self.qm.depth(&self.def.xmit_queue);
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
            let qm = Arc::clone(&self.qm);
            let done = tokio::task::spawn_blocking(move || {
                if commit {
                    qm.commit(uow)
                } else {
                    qm.backout(uow)
                }
            })
            .await;
            if !matches!(done, Ok(Ok(()))) {
                tracing::error!(channel = %self.def.name, commit, "could not end the in-flight unit of work");
            }
        }
    }

    fn in_flight_key(&self) -> String {
        format!("sender/{}/in_flight", self.def.name)
    }

    /// After a restart: settles the batch recorded as in flight by the
    /// previous run, given the receiver's last committed sequence number.
    async fn settle_recorded(&mut self, last_committed: u64) -> Result<(), crate::qmgr::QmError> {
        let key = self.in_flight_key();
        let Some(rec) = self.qm.meta(&key)? else {
            return Ok(());
        };
        if rec.len() < 8 || (rec.len() - 8) % 24 != 0 {
            return Ok(());
        }
        let mut seq = [0u8; 8];
        seq.copy_from_slice(&rec[..8]);
        let seq = u64::from_be_bytes(seq);
        let qm = Arc::clone(&self.qm);
        let xmitq = self.def.xmit_queue.clone();
        let name = self.def.name.clone();
        tokio::task::spawn_blocking(move || {
            let uow = qm.begin_uow(None, None)?;
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
                    };
                    if qm
                        .get(&xmitq, &sel, GetMode::Destructive { uow: Some(uow) })
                        .is_ok()
                    {
                        removed += 1;
                    }
                }
                tracing::info!(channel = %name, seq, removed,
                    "batch committed by the receiver before a restart; removed, not resent");
            }
            qm.commit_with_meta(uow, vec![(key, Vec::new())])
        })
        .await
        .map_err(|e| crate::qmgr::QmError::new(Mqrc::UNEXPECTED_ERROR, e.to_string()))??;
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
            let failure = match SenderConn::connect(self.def.connect, &self.offer()).await {
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
                    tracing::info!(channel = %self.def.name, peer = %self.def.connect,
                        last_committed_seq = conn.agreed.last_committed_seq, "sender channel running");
                    self.show(ChannelState::Running, 0, String::new());
                    match self.pump(&mut conn, &mut stop).await {
                        Ok(()) => {
                            let _ = conn.close("the gateway is stopping").await;
                            break;
                        }
                        Err(e) => e,
                    }
                }
                Err(e) => e,
            };
            let reason = match &failure {
                SendError::Refused { reason, .. } => *reason,
                SendError::TooBig { .. } => 2218,
                _ => Mqrc::CONNECTION_BROKEN.0,
            };
            tracing::warn!(channel = %self.def.name, error = %failure,
                retry_in_ms = backoff.as_millis() as u64, "sender channel retrying");
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

    async fn pump(
        &mut self,
        conn: &mut SenderConn,
        stop: &mut watch::Receiver<bool>,
    ) -> Result<(), SendError> {
        let xmitq = self.def.xmit_queue.clone();
        let batch_size = conn.agreed.batch_size.max(1) as usize;
        let wait = Duration::from_millis(match conn.agreed.heartbeat_ms {
            0 => 1000,
            hb => hb as u64,
        });
        let internal = |e: crate::qmgr::QmError| {
            SendError::Protocol(format!("transmission queue {xmitq}: {e}"))
        };
        loop {
            let uow = self.qm.begin_uow(None, None).map_err(internal)?;
            let mode = GetMode::Destructive { uow: Some(uow) };
            let first = tokio::select! {
                r = self.qm.get_wait(&xmitq, Selector::default(), mode, wait) => r,
                _ = super::stopped(stop) => {
                    let _ = self.qm.backout(uow);
                    return Ok(());
                }
            };
            let (first_id, mut msgs): ([u8; 24], Vec<Bytes>) = match first {
                Ok(m) => (m.md.msg_id, vec![m.data]),
                Err(e) if e.mqrc == Mqrc::NO_MSG_AVAILABLE => {
                    let _ = self.qm.backout(uow);
                    self.show(ChannelState::Running, 0, String::new());
                    if conn.agreed.heartbeat_ms > 0 {
                        conn.heartbeat().await?;
                    }
                    continue;
                }
                Err(e) => {
                    let _ = self.qm.backout(uow);
                    return Err(internal(e));
                }
            };
            let mut record = conn.next_seq().to_be_bytes().to_vec();
            record.extend_from_slice(&first_id);
            while msgs.len() < batch_size {
                match self.qm.get(&xmitq, &Selector::default(), mode) {
                    Ok(m) => {
                        record.extend_from_slice(&m.md.msg_id);
                        msgs.push(m.data);
                    }
                    Err(_) => break,
                }
            }
            self.in_flight = Some((conn.next_seq(), uow));
            let qm = Arc::clone(&self.qm);
            let meta = vec![(self.in_flight_key(), record)];
            tokio::task::spawn_blocking(move || qm.put_meta(meta))
                .await
                .map_err(|e| SendError::Protocol(e.to_string()))?
                .map_err(internal)?;
            let seq = conn.send_batch(&msgs).await?;
            self.last_confirmed = seq;
            self.finish(true).await;
            let n = msgs.len() as u64;
            self.board.update(&self.def.name, |s| s.messages += n);
            self.show(ChannelState::Running, 0, String::new());
        }
    }
}

//! An mq-client channel (docs/mq-client-protocol.md "Client side"): mqgate
//! as an IBM MQ client of a queue manager's server-connection channel,
//! pulling a transmission queue. Each batch: MQGET under syncpoint (the
//! first with the configured wait), the receive exits, resolution and the
//! put through the queue interface ([`super::apply`]) committed in one store
//! transaction together with the batch's record (MsgId and data digest of
//! each message, [`super::in_doubt`]), then MQCMIT. A message leaves the
//! queue manager only once it is stored; a crash before the MQCMIT leaves
//! it there, backed out, and the record keeps it from being stored twice
//! when it comes again.

use super::apply::{Applier, ApplyError};
use super::in_doubt::{self, InDoubt};
use super::{ChannelState, StatusBoard};
use crate::config::{ExitBuffer, MqClientChannelDef, UndeliveredRule};
use crate::mqclient::{ClientError, ConnectOptions, Session, connect};
use crate::mqi::Mqi;
use bytes::Bytes;
use mqgate_codecs::fap::object::oo;
use mqgate_codecs::mq::Mqrc;
use mqgate_exits::{ExitChain, ExitPoint, ExitsConfig};
use std::sync::Arc;
use std::time::Duration;
use tokio::sync::watch;

/// Longest wait for a handshake reply or for a verb's reply beyond its
/// wait interval.
const REPLY_TIMEOUT: Duration = Duration::from_secs(30);

/// Name of the state record of the channel's last stored batch (its
/// messages' MsgIds and data digests, [`super::in_doubt`]).
pub fn batch_key(channel: &str) -> String {
    format!("mqclient/{channel}/last_batch")
}

/// Why a connection ended.
struct Failure {
    reason: Mqrc,
    text: String,
}

impl From<ClientError> for Failure {
    fn from(e: ClientError) -> Self {
        Failure {
            reason: e.mqrc(),
            text: e.to_string(),
        }
    }
}

/// How a connection ended without failing.
enum Ended {
    /// The gateway is stopping.
    Stopping,
    /// The undelivered rule's threshold was reached.
    ChannelStopped,
}

/// A configured mq-client channel.
pub struct MqClientChannel {
    mqi: Mqi,
    board: Arc<StatusBoard>,
    def: MqClientChannelDef,
    exits: ExitsConfig,
    /// The channel's TLS client when its `tls:` is set.
    tls: Option<Arc<crate::security::tls::TlsClient>>,
}

impl MqClientChannel {
    /// The channel `def`, shown on `board` (kind `mq-client`), storing through `mqi`.
    pub fn new(mqi: Mqi, board: Arc<StatusBoard>, def: MqClientChannelDef) -> Self {
        board.add(&def.name, "mq-client");
        MqClientChannel {
            mqi,
            board,
            def,
            exits: ExitsConfig::default(),
            tls: None,
        }
    }

    /// Connects over TLS with `tls` (made from the channel's `tls:`
    /// setting), checking the queue manager's certificate against the
    /// channel's `sslpeer`; `None`: plain TCP.
    pub fn with_tls(mut self, tls: Option<Arc<crate::security::tls::TlsClient>>) -> Self {
        self.tls = tls;
        self
    }

    /// Adds the `exits:` section's receive exits (global, then the
    /// channel's) in front of the channel's own, and its message exits.
    pub fn with_exits(mut self, exits: &ExitsConfig) -> Self {
        self.exits = exits.clone();
        self
    }

    fn show(&self, state: ChannelState, reason: i32, message: String) {
        self.board.update(&self.def.name, |s| {
            s.state = state;
            s.reason = reason;
            s.message = message;
        });
    }

    /// Runs until `stop` turns true, reconnecting after a failure with
    /// growing waits (`reconnect.first_ms` doubling to `max_ms`), each
    /// drawn between half and all of the interval (jitter, so that many
    /// gateways do not reconnect at once).
    pub async fn run(self, mut stop: watch::Receiver<bool>) {
        let first = self.def.reconnect.first_ms.max(1);
        let max = self.def.reconnect.max_ms.max(first);
        let mut backoff = first;
        while !*stop.borrow() {
            let (failure, worked) = match self.connection(&mut stop).await {
                Ok(Ended::Stopping) => break,
                Ok(Ended::ChannelStopped) => {
                    // Stopped until an administrator starts it again.
                    while self.board.state(&self.def.name) == Some(ChannelState::Stopped) {
                        tokio::select! {
                            _ = tokio::time::sleep(Duration::from_millis(500)) => {}
                            _ = super::stopped(&mut stop) => return,
                        }
                    }
                    continue;
                }
                Err((f, worked)) => (f, worked),
            };
            if worked {
                backoff = first;
            }
            let wait = jittered(backoff);
            tracing::warn!(channel = %self.def.name, reason = failure.reason.0, error = %failure.text,
                retry_in_ms = wait, "mq-client channel retrying");
            self.show(ChannelState::Retrying, failure.reason.0, failure.text);
            tokio::select! {
                _ = tokio::time::sleep(Duration::from_millis(wait)) => {}
                _ = super::stopped(&mut stop) => break,
            }
            backoff = (backoff * 2).min(max);
        }
        self.show(ChannelState::Inactive, 0, String::new());
    }

    fn options(&self) -> ConnectOptions {
        let d = &self.def;
        ConnectOptions {
            host: d.host.clone(),
            port: d.port,
            channel: d.channel.clone(),
            q_mgr_name: d.q_mgr_name.clone(),
            user: d.user.clone(),
            password: d.password.clone(),
            heartbeat_s: i32::try_from(d.limits.heartbeat_ms / 1000).unwrap_or(i32::MAX),
            max_msg_size: i32::try_from(d.limits.max_msg_length).unwrap_or(i32::MAX),
            timeout: REPLY_TIMEOUT,
            appl_name: format!("mqgate {}", d.name),
            tls: self
                .tls
                .clone()
                .map(|client| crate::security::tls::ClientTls {
                    client,
                    sslpeer: d.sslpeer.clone(),
                }),
        }
    }

    /// The receive chain (`exits.global.receive`, `exits.channels.NAME.receive`,
    /// then `receive_exits`) and the message chain, started.
    fn start_chains(&self) -> Result<(Option<ExitChain>, Option<ExitChain>), String> {
        let name = &self.def.name;
        let receive: Vec<_> = self
            .exits
            .chain_defs(ExitPoint::Receive, name)
            .into_iter()
            .chain(self.def.receive_exits.iter())
            .collect();
        let q_mgr = self.mqi.q_mgr_name();
        let receive = super::start_chain(ExitPoint::Receive, name, q_mgr, receive)?;
        let message = self.exits.chain_defs(ExitPoint::Message, name);
        let message = super::start_chain(ExitPoint::Message, name, q_mgr, message)?;
        Ok((receive, message))
    }

    /// One connection: connect, open the transmission queue, pull batches
    /// until stopped or a failure. The failure says whether any batch was
    /// committed first (the backoff starts again then).
    async fn connection(&self, stop: &mut watch::Receiver<bool>) -> Result<Ended, (Failure, bool)> {
        let d = &self.def;
        let mut s = connect(&self.options())
            .await
            .map_err(|e| (e.into(), false))?;
        let hobj = s
            .open(&d.xmit_queue, oo::INPUT_SHARED | oo::FAIL_IF_QUIESCING)
            .await
            .map_err(|e| (e.into(), false))?;
        let in_doubt = self.in_doubt().await.map_err(|f| (f, false))?;
        let (receive, message) = self.start_chains().map_err(|text| {
            let reason = Mqrc::API_EXIT_ERROR;
            (Failure { reason, text }, false)
        })?;
        // Its puts are checked as a receiver channel's are: no channel
        // authentication rule maps a connection the gateway makes itself,
        // so as `channel:NAME` (docs/security.md "Message channels").
        let applier = Applier::new(self.mqi.clone(), &d.name, d.undelivered, receive)
            .with_message_exits(message)
            .with_principal(crate::security::channel_principal(&d.name, None));
        tracing::info!(channel = %d.name, host = %d.host, port = d.port, svrconn = %d.channel,
            xmit_queue = %d.xmit_queue, in_doubt = in_doubt.len(), "mq-client channel running");
        self.show(ChannelState::Running, 0, String::new());
        self.board.update(&d.name, |st| {
            st.peer = Some(format!("{}:{}", d.host, d.port))
        });
        let mut pull = Pull {
            chan: self,
            session: s,
            hobj,
            in_doubt,
            applier: Some(applier),
            committed: false,
        };
        let r = pull.batches(stop).await;
        if let Some(mut a) = pull.applier.take() {
            let _ = tokio::task::spawn_blocking(move || a.terminate()).await;
        }
        if r.is_ok() {
            // Nothing is held under syncpoint between batches.
            let _ = pull.session.disconnect().await;
        }
        r.map_err(|f| (f, pull.committed))
    }

    /// The messages of the last stored batch (the state record of
    /// [`batch_key`]); a record that cannot be read fails the connection
    /// with 2195 MQRC_UNEXPECTED_ERROR rather than risk storing twice.
    async fn in_doubt(&self) -> Result<InDoubt, Failure> {
        let v = self
            .mqi
            .meta(&batch_key(&self.def.name))
            .await
            .map_err(|e| Failure {
                reason: e.mqrc,
                text: e.message,
            })?
            .unwrap_or_default();
        InDoubt::decode(&v).map_err(|text| Failure {
            reason: Mqrc::UNEXPECTED_ERROR,
            text,
        })
    }
}

/// The pulling state of one connection.
struct Pull<'a> {
    chan: &'a MqClientChannel,
    session: Session,
    hobj: i32,
    /// Messages stored by a batch whose MQCMIT may not have reached the
    /// queue manager: met again, they are committed there without being
    /// stored twice.
    in_doubt: InDoubt,
    applier: Option<Applier>,
    /// Whether a batch was committed on this connection.
    committed: bool,
}

impl Pull<'_> {
    async fn batches(&mut self, stop: &mut watch::Receiver<bool>) -> Result<Ended, Failure> {
        let d = &self.chan.def;
        let mut attempts = 0u32;
        let mut retry_ms = d.retry.first_interval_ms.max(1);
        loop {
            if *stop.borrow() {
                return Ok(Ended::Stopping);
            }
            // A stop while the MQGET waits does not drop it: its reply is
            // read and what it got under syncpoint backed out, since the
            // MQDISC that ends the connection would commit it (IBM MQ
            // "MQDISC") and the message would leave the queue manager
            // without being stored.
            let (first, stopping) = {
                let get = self
                    .session
                    .get(self.hobj, d.wait_ms, d.limits.max_msg_length);
                tokio::pin!(get);
                tokio::select! {
                    r = &mut get => (r?, false),
                    _ = super::stopped(stop) => (get.await?, true),
                }
            };
            if stopping {
                if first.is_some() {
                    self.session.backout().await?;
                }
                return Ok(Ended::Stopping);
            }
            let Some(first) = first else { continue };
            let mut batch = vec![first];
            while batch.len() < d.limits.batch_size as usize {
                match self
                    .session
                    .get(self.hobj, 0, d.limits.max_msg_length)
                    .await?
                {
                    Some(m) => batch.push(m),
                    None => break,
                }
            }
            let record = in_doubt::encode(batch.iter().map(|m| (m.md.msg_id, &m.data[..])));
            let mut msgs = Vec::with_capacity(batch.len());
            for m in batch {
                let id = m.md.msg_id;
                if self.in_doubt.take(id, &m.data) {
                    tracing::info!(channel = %d.name, msg_id = %hex::encode_upper(id),
                        "already stored before the last MQCMIT was lost; committed without storing it again");
                    continue;
                }
                msgs.push(match d.exit_buffer {
                    ExitBuffer::Transmission => (m.data, 0),
                    ExitBuffer::Agent => (Bytes::from(m.segment), m.data_offset),
                });
            }
            let count = msgs.len() as u64;
            let bytes: u64 = msgs
                .iter()
                .map(|(b, off)| b.len().saturating_sub(*off) as u64)
                .sum();
            let meta = vec![(batch_key(&d.name), record)];
            let Some(mut applier) = self.applier.take() else {
                return Err(Failure {
                    reason: Mqrc::UNEXPECTED_ERROR,
                    text: "the channel's applier is gone".into(),
                });
            };
            let joined = tokio::task::spawn_blocking(move || {
                let r = applier.apply_with_meta(&msgs, meta);
                (applier, r)
            })
            .await;
            let result = match joined {
                Ok((applier, r)) => {
                    self.applier = Some(applier);
                    r
                }
                Err(e) => Err(ApplyError::Close {
                    reason: Mqrc::UNEXPECTED_ERROR,
                    text: format!("applying the batch failed: {e}"),
                }),
            };
            match result {
                Ok(dead) => {
                    self.session.commit().await?;
                    self.committed = true;
                    attempts = 0;
                    retry_ms = d.retry.first_interval_ms.max(1);
                    self.chan
                        .board
                        .update(&d.name, |s| s.moved(count, 1, bytes));
                    tracing::debug!(channel = %d.name, messages = count, dead_lettered = dead, "batch committed");
                }
                Err(ApplyError::Undelivered {
                    index,
                    reason,
                    text,
                }) => {
                    self.session.backout().await?;
                    attempts += 1;
                    if d.undelivered == UndeliveredRule::Retry && attempts > d.retry.attempts {
                        let text = format!(
                            "message {index} of the batch: {text}; stopped after {} retries",
                            d.retry.attempts
                        );
                        tracing::error!(channel = %d.name, reason = reason.0, %text, "mq-client channel stopped");
                        self.chan.show(ChannelState::Stopped, reason.0, text);
                        let _ = self.session.disconnect().await;
                        return Ok(Ended::ChannelStopped);
                    }
                    self.chan.show(ChannelState::Retrying, reason.0, text);
                    tokio::select! {
                        _ = tokio::time::sleep(Duration::from_millis(retry_ms)) => {}
                        _ = super::stopped(stop) => return Ok(Ended::Stopping),
                    }
                    retry_ms = (retry_ms * 2).min(d.retry.max_interval_ms.max(1));
                    self.chan.show(ChannelState::Running, 0, String::new());
                }
                Err(ApplyError::Close { reason, text }) => {
                    let _ = self.session.backout().await;
                    return Err(Failure { reason, text });
                }
            }
        }
    }
}

/// A wait of between half and all of `ms` (equal jitter).
fn jittered(ms: u64) -> u64 {
    let mut b = [0u8; 8];
    let r = getrandom::fill(&mut b).map_or(0, |()| u64::from_le_bytes(b));
    let half = ms / 2;
    half + r % (ms - half + 1)
}

#[cfg(test)]
mod tests {
    use super::jittered;

    #[test]
    fn jitter_stays_between_half_and_all_of_the_interval() {
        for ms in [1u64, 2, 500, 30_000] {
            for _ in 0..200 {
                let w = jittered(ms);
                assert!((ms / 2..=ms).contains(&w), "{w} for {ms}");
            }
        }
    }
}

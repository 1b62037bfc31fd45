//! The receiver side: the channel listener of `mqgate run` and one task per
//! connection (docs/channel-protocol.md "Handshake"). The connection task
//! reads the HELLO, has it checked ([`super::handshake`]), acquires what the
//! channel needs and answers; then the frame reader ([`super::reader`]) and
//! the committer ([`super::session`]) take over.

use super::apply::Applier;
use super::frame::{HANDSHAKE_MAX_FRAME, MESSAGE_OVERHEAD};
use super::handshake::{Receiving, Refusal, check_hello};
use super::instance::{ADOPT_WAIT, Origin, Slot};
use super::reader::Conn;
use super::session::Session;
use super::{ChannelState, Frame, FrameCodec, StatusBoard};
use crate::config::ReceiverChannelDef;
use crate::log_limit::Repeats;
use crate::mqi::{Mqi, QmError};
use crate::security::chlauth::Attempt;
use crate::security::tls::{PeerIdentity, Stream, TlsServer};
use futures_util::{SinkExt, StreamExt};
use mqgate_codecs::mq::Mqrc;
use mqgate_exits::{ExitChain, ExitPoint, ExitsConfig};
use std::collections::HashMap;
use std::net::SocketAddr;
use std::sync::Arc;
use std::time::Duration;
use tokio::net::{TcpListener, TcpStream};
use tokio::sync::watch;
use tokio_util::codec::Framed;

/// How long a new connection may take to send its HELLO.
const HANDSHAKE_TIMEOUT: Duration = Duration::from_secs(10);

struct Receiver {
    def: ReceiverChannelDef,
    /// The channel's one running instance: a new connection adopts it or is
    /// refused ([`super::instance`]).
    slot: Arc<Slot>,
}

/// The receiver channels of a gateway.
pub struct Receivers {
    /// The queue interface every connection applies its messages through.
    mqi: Mqi,
    board: Arc<StatusBoard>,
    /// Replaced by [`Receivers::redefine`] (a configuration reload); a
    /// connection keeps the definition it started with.
    channels: std::sync::RwLock<HashMap<String, Arc<Receiver>>>,
    /// The gateway's `exits:` section: its global and per-channel receive
    /// exits run before a channel's own `receive_exits`; its message exits
    /// run after the MQXQH is parsed.
    exits: std::sync::RwLock<ExitsConfig>,
    /// `listener.tls`: connections start with a TLS handshake.
    tls: Option<Arc<TlsServer>>,
}

impl Receivers {
    /// The receiver channels of `defs`, registered on `board`, putting the
    /// messages they receive through `mqi` (so its queue exits run:
    /// before_put of each message's RemoteQName).
    pub fn new(mqi: Mqi, board: Arc<StatusBoard>, defs: &[ReceiverChannelDef]) -> Self {
        let mut channels = HashMap::new();
        for d in defs {
            board.add(&d.name, "receiver");
            channels.insert(
                d.name.clone(),
                Arc::new(Receiver {
                    def: d.clone(),
                    slot: Arc::default(),
                }),
            );
        }
        Receivers {
            mqi,
            board,
            channels: std::sync::RwLock::new(channels),
            exits: std::sync::RwLock::default(),
            tls: None,
        }
    }

    fn channels(&self) -> std::sync::RwLockReadGuard<'_, HashMap<String, Arc<Receiver>>> {
        self.channels.read().unwrap_or_else(|p| p.into_inner())
    }

    /// Puts `exits` in force for the connections that start from now on (a
    /// configuration reload); running ones keep the chains they started.
    pub fn replace_exits(&self, exits: &ExitsConfig) {
        *self.exits.write().unwrap_or_else(|p| p.into_inner()) = exits.clone();
    }

    /// Puts the receiver channels of `defs` in force (a configuration
    /// reload, docs/operations.md "Reloading the configuration"): a new
    /// channel accepts connections at once; the running instance of a
    /// removed or changed channel is asked to end after its current batch
    /// (its sender reconnects to the changed definition, or is refused with
    /// 2540 MQRC_UNKNOWN_CHANNEL_NAME for a removed one). Returns the names
    /// (added, removed, changed).
    pub fn redefine(&self, defs: &[ReceiverChannelDef]) -> (Vec<String>, Vec<String>, Vec<String>) {
        let (mut added, mut removed, mut changed) = (Vec::new(), Vec::new(), Vec::new());
        let mut channels = self.channels.write().unwrap_or_else(|p| p.into_inner());
        let names: Vec<String> = channels.keys().cloned().collect();
        for name in names {
            if !defs.iter().any(|d| d.name == name)
                && let Some(r) = channels.remove(&name)
            {
                r.slot.stop_holder();
                removed.push(name);
            }
        }
        for d in defs {
            let slot = match channels.get(&d.name) {
                Some(r) if format!("{:?}", r.def) == format!("{d:?}") => continue,
                Some(r) => {
                    r.slot.stop_holder();
                    changed.push(d.name.clone());
                    Arc::clone(&r.slot)
                }
                None => {
                    self.board.add(&d.name, "receiver");
                    added.push(d.name.clone());
                    Arc::default()
                }
            };
            channels.insert(
                d.name.clone(),
                Arc::new(Receiver {
                    def: d.clone(),
                    slot,
                }),
            );
        }
        (added, removed, changed)
    }

    /// Accepts connections over TLS with `tls` (`listener.tls`), which
    /// gives each connection's peer the subject DN of its certificate for
    /// the channels' SSLPEER filters; `None`: plain TCP.
    pub fn with_tls(mut self, tls: Option<Arc<TlsServer>>) -> Self {
        self.tls = tls;
        self
    }

    /// Adds the receive exits of the gateway's `exits:` section
    /// (`global.receive`, then `channels.NAME.receive`) in front of each
    /// channel's own `receive_exits`, and its message exits
    /// (`global.message`, then `channels.NAME.message`) (docs/exits.md
    /// "Where each point runs").
    pub fn with_exits(mut self, exits: &ExitsConfig) -> Self {
        self.exits = std::sync::RwLock::new(exits.clone());
        self
    }

    /// Channel `name`'s last committed batch sequence number from the store
    /// (0 = none). Errors: the store cannot be read (as [`Mqi::meta`]).
    async fn last_committed(&self, name: &str) -> Result<u64, QmError> {
        let v = self.mqi.meta(&super::seq_key(name)).await?;
        Ok(v.and_then(|b| <[u8; 8]>::try_from(b.as_slice()).ok())
            .map_or(0, u64::from_be_bytes))
    }

    /// Shows each channel's last committed batch sequence number, read from
    /// the store, as its `last_seq` on the status board, so that `GET
    /// /v1/status` shows it from the start and not only after the first
    /// handshake. Call it before serving. A record that cannot be read is
    /// logged and shows 0; the handshake reads it again (and refuses the
    /// sender with the store's reason if it still fails).
    pub async fn show_stored_seqs(&self) {
        let names: Vec<String> = self.channels().keys().cloned().collect();
        for name in &names {
            match self.last_committed(name).await {
                Ok(last) => self.board.update(name, |s| s.last_seq = last),
                Err(e) => tracing::warn!(channel = %name, reason = e.mqrc.0, error = %e.message,
                    "cannot read the channel's last committed sequence number"),
            }
        }
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
                        let permit = match me.mqi.limits().admit(crate::metrics::Listener::Channel, peer.ip()) {
                            Ok(p) => p,
                            Err(e) => {
                                me.mqi.tasks().spawn_channel(over_limit(stream, peer, e));
                                continue;
                            }
                        };
                        let open = crate::metrics::accepted(crate::metrics::Listener::Channel);
                        me.mqi.tasks().spawn_channel(async move {
                            let _open = open;
                            let _permit = permit;
                            me.connection(stream, peer, stop).await
                        });
                    }
                    Err(e) => {
                        if let Some(suppressed) = ACCEPT_FAILED.admit("") {
                            tracing::warn!(error = %e, suppressed, "channel listener: accept failed");
                        }
                        tokio::time::sleep(Duration::from_millis(100)).await;
                    }
                },
                _ = super::stopped(&mut stopping) => return,
            }
        }
    }

    async fn connection(&self, stream: TcpStream, peer: SocketAddr, stop: watch::Receiver<bool>) {
        let _ = stream.set_nodelay(true);
        let (stream, identity) = match &self.tls {
            None => (Stream::Plain(stream), PeerIdentity::plain(peer)),
            Some(tls) => match {
                // A stop does not wait for a handshake.
                let mut stopping = stop.clone();
                tokio::select! {
                    r = tls.accept(stream, peer) => r,
                    _ = super::stopped(&mut stopping) => return,
                }
            } {
                Ok(accepted) => accepted,
                Err(e) => {
                    // An untrusted, expired or missing certificate, an old
                    // TLS version: nothing can be sent back but the alert.
                    if let Some(suppressed) = TLS_FAILED.admit(&format!("{} {e}", peer.ip())) {
                        tracing::warn!(peer = %peer, error = %e,
                            detail = crate::security::tls::rustls_detail(&e), suppressed,
                            "channel listener: TLS handshake failed");
                    }
                    return;
                }
            },
        };
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
        // Channel authentication rules come first: a blocked peer learns
        // nothing about the channel (2035; docs/channel-protocol.md
        // "Handshake").
        let attempt = Attempt {
            channel: &name,
            addr: peer.ip(),
            dn: identity.dn.as_deref(),
            qmgr: (!hello.sending_q_mgr.is_empty()).then_some(hello.sending_q_mgr.as_str()),
            user: None,
        };
        let mcauser = match self.mqi.channel_access(&attempt) {
            Ok(m) => m,
            Err(e) => return refuse(&mut conn, peer, Some(&name), e.mqrc, e.message).await,
        };
        let rcv = self.channels().get(&name).cloned();
        let receiving = Receiving {
            q_mgr_name: self.mqi.q_mgr_name(),
            def: rcv.as_ref().map(|r| &r.def),
            peer: peer.ip(),
            peer_dn: identity.dn.as_deref(),
            stopped: self.board.state(&name) == Some(ChannelState::Stopped),
        };
        let terms = match check_hello(&hello, &receiving) {
            Ok(terms) => terms,
            Err(r) => {
                if r.reason == Mqrc::NOT_AUTHORIZED {
                    // A refused certificate shows in the channel's status.
                    self.board.update(&name, |s| {
                        s.reason = r.reason.0;
                        s.message = r.text.clone();
                    });
                }
                return refuse(&mut conn, peer, Some(&name), r.reason, r.text).await;
            }
        };
        // check_hello refuses a channel that is not defined (2540).
        let Some(rcv) = rcv else { return };
        let def = &rcv.def;
        // One instance per channel: an instance that is ending, or one of
        // the same sending queue manager and address, is adopted (IBM MQ
        // ADOPTMCA) — ended and waited for; any other refuses with 2537.
        let origin = Origin {
            sending_q_mgr: hello.sending_q_mgr.clone(),
            addr: peer.ip(),
        };
        let held = match rcv
            .slot
            .acquire(&name, &origin, &peer.to_string(), ADOPT_WAIT)
            .await
        {
            Ok(h) => h,
            Err(r) => return refuse(&mut conn, peer, Some(&name), r.reason, r.text).await,
        };
        // The instance it waited for may have stopped the channel.
        if self.board.state(&name) == Some(ChannelState::Stopped) {
            let r = Refusal::stopped(&name);
            return refuse(&mut conn, peer, Some(&name), r.reason, r.text).await;
        }
        let last = match self.last_committed(&name).await {
            Ok(last) => last,
            Err(e) => {
                return refuse(&mut conn, peer, Some(&name), e.mqrc, e.message).await;
            }
        };
        let chains = match self.start_chains(def) {
            Ok(c) => c,
            Err(text) => {
                let r = Refusal::exits(text);
                return refuse(&mut conn, peer, Some(&name), r.reason, r.text).await;
            }
        };
        let ack = terms.ack(last);
        let limits = ack.limits;
        tracing::info!(channel = %name, peer = %peer, sending_q_mgr = %hello.sending_q_mgr,
            batch_size = limits.batch_size, max_msg_length = limits.max_msg_length,
            heartbeat_ms = limits.heartbeat_ms, last_committed_seq = last,
            sender_last_confirmed_seq = hello.last_confirmed_seq, "channel started");
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
        let (receive, message) = chains;
        // The principal its puts are checked as: the one a channel
        // authentication rule maps (MCAUSER), else the channel's own.
        let principal = crate::security::channel_principal(&name, mcauser);
        let applier = Applier::new(self.mqi.clone(), &name, def.undelivered, receive)
            .with_message_exits(message)
            .with_principal(principal);
        let instance = held.instance();
        let session = Session {
            board: &self.board,
            def,
            peer,
            limits,
            last,
            group_commit: applier.group_commit(),
            applier: Some(applier),
            halt: instance.halt(),
            instance,
            messages: 0,
        };
        // The gateway's stop reaches the session through the instance's
        // halt, beside an adoption.
        let mut stop = stop;
        let forward_stop = async {
            super::stopped(&mut stop).await;
            instance.stop();
            std::future::pending::<()>().await
        };
        tokio::select! {
            () = session.run(conn, instance.halt()) => {}
            () = forward_stop => {}
        }
        // Only now, with every commit of the session returned and its exits
        // ended, does the channel become free (`held` dropped).
        drop(held);
    }

    /// Starts (MQXR_INIT) the channel's receive chain — `exits.global.receive`,
    /// `exits.channels.NAME.receive`, then the channel's own `receive_exits`
    /// — and its message chain (`exits.global.message`, then
    /// `exits.channels.NAME.message`); `None` for an empty chain.
    fn start_chains(
        &self,
        def: &ReceiverChannelDef,
    ) -> Result<(Option<ExitChain>, Option<ExitChain>), String> {
        let exits = self.exits.read().unwrap_or_else(|p| p.into_inner());
        let receive: Vec<_> = exits
            .chain_defs(ExitPoint::Receive, &def.name)
            .into_iter()
            .chain(def.receive_exits.iter())
            .collect();
        let q_mgr = self.mqi.q_mgr_name();
        let receive = super::start_chain(ExitPoint::Receive, &def.name, q_mgr, receive)?;
        let message = exits.chain_defs(ExitPoint::Message, &def.name);
        let message = super::start_chain(ExitPoint::Message, &def.name, q_mgr, message)?;
        Ok((receive, message))
    }
}

/// Connections refused at a limit, per limit (src/log_limit.rs).
static OVER_LIMIT: Repeats = Repeats::per_minute();

/// A connection over a limit (docs/security.md "Limits"): its HELLO is
/// answered with CLOSE 2537 MQRC_CHANNEL_NOT_AVAILABLE, as IBM MQ answers
/// a channel past its MAXINST, naming the limit; then it closes.
async fn over_limit(stream: TcpStream, peer: SocketAddr, e: crate::security::limits::Exceeded) {
    crate::metrics::listeners::refused(crate::metrics::listeners::Refusal::Limit);
    if let Some(suppressed) = OVER_LIMIT.admit(e.setting) {
        tracing::warn!(peer = %peer, limit = e.setting, value = e.limit, suppressed,
            "channel connection refused: {e}");
    }
    let mut conn = Framed::new(stream, FrameCodec::default());
    // The sender's HELLO first, so the CLOSE is its answer (bounded).
    let _ = tokio::time::timeout(HANDSHAKE_TIMEOUT, conn.next()).await;
    let _ = conn
        .send(Frame::Close {
            reason: Mqrc::CHANNEL_NOT_AVAILABLE.0,
            text: e.to_string(),
        })
        .await;
    let _ = conn.close().await;
}

/// Refusals of a connection, per channel and refusal (src/log_limit.rs).
static REFUSED: Repeats = Repeats::per_minute();
/// Failed accepts of the channel listener.
static ACCEPT_FAILED: Repeats = Repeats::per_minute();
/// Failed TLS handshakes, per peer address and error.
static TLS_FAILED: Repeats = Repeats::per_minute();

/// Sends a CLOSE with `reason` and logs why the connection is refused or ended.
async fn refuse(
    conn: &mut Conn,
    peer: SocketAddr,
    channel: Option<&str>,
    reason: Mqrc,
    text: String,
) {
    // A sender that keeps retrying is refused at each connection: one line
    // a minute for each channel and refusal, counting the rest.
    let channel = channel.unwrap_or("");
    if let Some(suppressed) = REFUSED.admit(&format!("{channel} {} {text}", reason.0)) {
        tracing::warn!(channel, peer = %peer, reason = reason.0, %text, suppressed,
            "channel closed with a reason");
    }
    let _ = conn
        .send(Frame::Close {
            reason: reason.0,
            text,
        })
        .await;
    let _ = conn.close().await;
}

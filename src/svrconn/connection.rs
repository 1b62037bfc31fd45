//! One client socket: the task that reads its segments, runs the handshake
//! (INITIAL_DATA, USERID_DATA), starts and ends its shared conversations
//! (SOCKET_ACTION), answers heartbeats, and hands every conversation's
//! CONAUTH_INFO and MQI verbs to that conversation's task. Anything the
//! protocol does not allow is answered with a STATUS_DATA naming what was
//! wrong, and the socket closes; the gateway keeps serving the others.

use super::conversation::{self, Request};
use super::frame::{FrameError, Segments};
use super::negotiate::{Agreed, Outcome, negotiate};
use super::out::{Out, own_header, reply_header, segments};
use super::{Service, config::SvrconnChannel};
use crate::mqi::ClientAccess;
use crate::security::Principal;
use crate::security::chlauth::Attempt;
use crate::security::limits::{Exceeded, Held, Permit};
use crate::security::tls::{PeerIdentity, Stream};
use bytes::Bytes;
use futures_util::StreamExt;
use mqgate_codecs::fap::id::{parse_id, write_id};
use mqgate_codecs::fap::socket::{
    CONVERSATION_ACCEPTED, END_CONVERSATION, START_CONVERSATION, SocketAction, parse_socket_action,
    write_socket_action,
};
use mqgate_codecs::fap::status::write_status;
use mqgate_codecs::fap::uid::parse_uid;
use mqgate_codecs::fap::{
    FapError, FapErrorKind, FapStructure, Reassembled, Reassembler, SegmentType, StatusCode,
    StatusData, Tsh, TshKind, parse_segment, tcf,
};
use mqgate_codecs::mq::ByteOrder;
use std::collections::HashMap;
use std::net::SocketAddr;
use std::sync::Arc;
use std::time::Duration;
use tokio::io::AsyncWriteExt;
use tokio::io::ReadHalf;

/// The reading half of a client's socket.
type Reader = ReadHalf<Stream>;
use tokio::sync::mpsc;
use tokio_util::codec::FramedRead;
use tokio_util::sync::CancellationToken;

/// Room for the structures around a message (MQOD, MQMD, MQPMO, ...) when
/// a reassembled verb is checked against the agreed maximum message size.
const STRUCTURES_ROOM: usize = 64 * 1024;
/// Sockets refused at a limit, per limit (src/log_limit.rs).
static OVER_LIMIT: crate::log_limit::Repeats = crate::log_limit::Repeats::per_minute();
/// INITIAL_DATA rounds a client may take before the socket is refused.
const MAX_ROUNDS: u32 = 4;
/// How long a socket may stay silent past its heartbeat interval before
/// mqgate asks for a heartbeat, then before it gives up.
const HEARTBEAT_GRACE: Duration = Duration::from_secs(60);

/// Whether the socket stays open.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(super) enum Flow {
    Continue,
    Close,
}

/// The negotiated state every conversation of a socket shares.
#[derive(Clone, Debug)]
pub(super) struct Shared {
    pub agreed: Agreed,
    pub channel: SvrconnChannel,
    /// USERID_DATA: (user id, password), as sent; set by the socket after
    /// the first conversation started.
    pub user: Arc<std::sync::Mutex<Option<(String, String)>>>,
    pub peer: SocketAddr,
    /// The principal a channel authentication rule maps the connection to
    /// (MCAUSER); it replaces the client's user id.
    pub mcauser: Option<Principal>,
    /// The channel authentication rules wait for the client's user id:
    /// MQCONN asks them again with it (a rule with `client_user` may
    /// decide, docs/security.md "Channel authentication rules").
    pub chlauth_at_connect: bool,
    /// The subject DN of the client's TLS certificate, for that check.
    pub peer_dn: Option<String>,
}

struct Socket {
    svc: Arc<Service>,
    /// The `svrconn:` settings in force when the socket was accepted: its
    /// channels, limits and timeouts for its whole life (a reload changes
    /// them for later sockets).
    config: Arc<super::config::SvrconnConfig>,
    out: Out,
    peer: SocketAddr,
    /// The subject DN of the client's TLS certificate, if it sent one.
    peer_dn: Option<String>,
    shared: Option<Shared>,
    rounds: u32,
    reasm: Reassembler,
    convs: HashMap<u32, mpsc::Sender<Request>>,
    /// Conversations started by SOCKET_ACTION so far.
    started: i32,
    /// What the channel authentication rules mapped at INITIAL_DATA.
    mcauser: Option<Principal>,
    /// The rules wait for the user id, at MQCONN.
    chlauth_at_connect: bool,
    /// The connection limit this socket is over: its INITIAL_DATA is
    /// refused (docs/security.md "Limits").
    over: Option<Exceeded>,
    /// Per conversation, the bytes held against `svrconn_held_bytes` for
    /// an MQI call whose segments are still arriving.
    held: HashMap<u32, Vec<Held>>,
    closed: CancellationToken,
}

/// Serves `stream` until the client closes it, breaks the protocol, or
/// the gateway stops.
pub(super) async fn run(
    svc: Arc<Service>,
    stream: Stream,
    identity: PeerIdentity,
    permit: Result<Permit, Exceeded>,
) {
    let peer = identity.addr;
    let (permit, over) = match permit {
        Ok(p) => (Some(p), None),
        Err(e) => (None, Some(e)),
    };
    let (rd, mut wr) = tokio::io::split(stream);
    let (tx, mut rx) = mpsc::channel::<Bytes>(64);
    let writer = tokio::spawn(async move {
        while let Some(b) = rx.recv().await {
            if wr.write_all(&b).await.is_err() {
                break;
            }
        }
        let _ = wr.shutdown().await;
    });
    let config = svc.config.get();
    let max = config.max_transmission_size as usize;
    let mut frames = FramedRead::new(rd, Segments { max });
    let closed = CancellationToken::new();
    let mut socket = Socket {
        svc: Arc::clone(&svc),
        config,
        out: Out::new(tx),
        peer,
        peer_dn: identity.dn,
        shared: None,
        rounds: 0,
        reasm: Reassembler::new(max),
        convs: HashMap::new(),
        started: 0,
        mcauser: None,
        chlauth_at_connect: false,
        over,
        held: HashMap::new(),
        closed: closed.clone(),
    };
    tracing::debug!(%peer, "MQ client connected");
    let _permit = permit;
    socket.serve(&mut frames).await;
    closed.cancel();
    drop(socket);
    let _ = tokio::time::timeout(Duration::from_secs(5), writer).await;
    tracing::debug!(%peer, "MQ client disconnected");
}

impl Socket {
    async fn serve(&mut self, frames: &mut FramedRead<Reader, Segments>) {
        let mut asked_heartbeat = false;
        loop {
            let wait = self.idle_limit(asked_heartbeat);
            let next = tokio::select! {
                () = self.svc.stop.cancelled() => return,
                () = self.closed.cancelled() => return,
                n = tokio::time::timeout(wait, frames.next()) => n,
            };
            let item = match next {
                Err(_) if self.shared.is_none() => {
                    tracing::info!(peer = %self.peer, "MQ client did not finish INITIAL_DATA in time");
                    return;
                }
                Err(_) if !asked_heartbeat => {
                    asked_heartbeat = true;
                    if !self.send_heartbeat(tcf::CONFIRM_REQUEST, 1, &[]).await {
                        return;
                    }
                    continue;
                }
                Err(_) => {
                    tracing::info!(peer = %self.peer, "MQ client silent past its heartbeat interval");
                    return;
                }
                Ok(None) => return,
                Ok(Some(Err(FrameError::Io(e)))) => {
                    tracing::debug!(peer = %self.peer, error = %e, "MQ client socket failed");
                    return;
                }
                Ok(Some(Err(FrameError::Segment(e)))) => {
                    self.refuse(&e, 1, ByteOrder::Little).await;
                    return;
                }
                Ok(Some(Ok(b))) => b,
            };
            asked_heartbeat = false;
            if self.segment(&item, frames).await == Flow::Close {
                return;
            }
        }
    }

    /// How long to wait for the next segment.
    fn idle_limit(&self, asked: bool) -> Duration {
        match &self.shared {
            None => Duration::from_millis(self.config.connect_timeout_ms),
            Some(s) if s.agreed.heartbeat_interval == 0 => Duration::from_secs(24 * 3600),
            Some(s) if asked => HEARTBEAT_GRACE,
            Some(s) => {
                Duration::from_secs(u64::from(s.agreed.heartbeat_interval)) + HEARTBEAT_GRACE
            }
        }
    }

    async fn segment(&mut self, bytes: &[u8], frames: &mut FramedRead<Reader, Segments>) -> Flow {
        let seg = match parse_segment(bytes) {
            Ok(s) => s,
            Err(e) => {
                self.refuse(&e, 1, ByteOrder::Little).await;
                return Flow::Close;
            }
        };
        let conv = conversation_of(seg.tsh.kind, seg.tsh.conversation_id);
        let order = seg.tsh.byte_order;
        // Verbs may come in several segments; nothing is kept before
        // agreement or for a conversation that was never started.
        if self.shared.is_none() && seg.tsh.segment_type != SegmentType::INITIAL_DATA {
            return self.unexpected(&seg.tsh, conv).await;
        }
        if seg.tsh.segment_type.0 >= 0x80 && !self.convs.contains_key(&conv) {
            self.status(conv, order, StatusCode::CONV_ID_ERROR, 2009)
                .await;
            return Flow::Close;
        }
        let m = match self.reasm.push(&seg) {
            Ok(Some(m)) => {
                self.held.remove(&conv);
                m
            }
            Ok(None) => return self.hold(conv, order, bytes.len()).await,
            Err(e) => {
                self.refuse(&e, conv, order).await;
                return Flow::Close;
            }
        };
        let t = m.tsh.segment_type;
        if t == SegmentType::INITIAL_DATA && self.shared.is_none() {
            return self.initial_data(m, frames).await;
        }
        if self.shared.is_none() {
            return self.unexpected(&m.tsh, conv).await;
        }
        match t {
            SegmentType::USERID_DATA => match parse_uid(&m.body, m.tsh.header_len()) {
                Ok(u) => {
                    let long = u.long.map(|(l, _)| super::trimmed(&l)).unwrap_or_default();
                    let user = if long.is_empty() {
                        super::trimmed(&u.user_id)
                    } else {
                        long
                    };
                    if let Some(s) = self.shared.as_ref()
                        && let Ok(mut slot) = s.user.lock()
                    {
                        *slot = Some((user, super::trimmed(&u.password)));
                    }
                    Flow::Continue
                }
                Err(e) => {
                    self.refuse(&e, conv, order).await;
                    Flow::Close
                }
            },
            SegmentType::HEARTBEAT => {
                if m.tsh.has(tcf::CONFIRM_REQUEST) {
                    let flags = m.tsh.control_flags1 & !tcf::CONFIRM_REQUEST;
                    let h = reply_header(&m.tsh, SegmentType::HEARTBEAT);
                    let mut h = h;
                    h.control_flags1 = flags;
                    if !self.out.send(segments(&h, &m.body, usize::MAX)).await {
                        return Flow::Close;
                    }
                }
                Flow::Continue
            }
            SegmentType::SOCKET_ACTION => self.socket_action(m).await,
            SegmentType::STATUS_DATA => {
                if m.tsh.has(tcf::CLOSE_CHANNEL) {
                    Flow::Close
                } else {
                    Flow::Continue
                }
            }
            t if t == SegmentType::CONAUTH_INFO
                || conversation::VERBS.contains(&t.0)
                || conversation::XA_CALLS.contains(&t.0) =>
            {
                self.forward(conv, m).await
            }
            _ => self.unexpected(&m.tsh, conv).await,
        }
    }

    async fn initial_data(
        &mut self,
        m: Reassembled,
        frames: &mut FramedRead<Reader, Segments>,
    ) -> Flow {
        let conv = conversation_of(m.tsh.kind, m.tsh.conversation_id);
        let id = match parse_id(&m.body, m.tsh.header_len(), m.tsh.byte_order) {
            Ok(id) => id,
            Err(e) => {
                self.refuse(&e, conv, m.tsh.byte_order).await;
                return Flow::Close;
            }
        };
        self.rounds += 1;
        if let Some(e) = self.over.take() {
            // IBM MQ answers a channel past its MAXINST with 2537
            // MQRC_CHANNEL_NOT_AVAILABLE; the FAP's status for it is
            // MQ_STATUS_ERR_CHANNEL_UNAVAILABLE (0x16).
            crate::metrics::listeners::refused(crate::metrics::listeners::Refusal::Limit);
            if let Some(suppressed) = OVER_LIMIT.admit(e.setting) {
                tracing::warn!(peer = %self.peer, limit = e.setting, value = e.limit, suppressed,
                    "MQ client connection refused: {e}");
            }
            self.status(
                conv,
                m.tsh.byte_order,
                StatusCode::CHANNEL_UNAVAILABLE,
                2537,
            )
            .await;
            return Flow::Close;
        }
        // Channel authentication rules before anything is agreed: a blocked
        // client is told 2035 MQRC_NOT_AUTHORIZED in a STATUS_DATA of
        // MQ_STATUS_ERR_SECURITY_FAILURE (0x14) and the socket closes
        // (docs/mq-client-protocol.md "Handshake").
        let channel = super::trimmed(&id.channel_name);
        let attempt = Attempt {
            channel: &channel,
            addr: self.peer.ip(),
            dn: self.peer_dn.as_deref(),
            qmgr: None,
            user: None,
        };
        match self.svc.mqi.client_channel_access(&attempt) {
            Ok(ClientAccess::Decided(m)) => self.mcauser = m,
            Ok(ClientAccess::AtConnect) => self.chlauth_at_connect = true,
            Err(e) => {
                self.status(
                    conv,
                    m.tsh.byte_order,
                    StatusCode::SECURITY_FAILURE,
                    e.mqrc.0,
                )
                .await;
                return Flow::Close;
            }
        }
        let (reply, outcome) = negotiate(&id, &self.config, &self.svc.identity);
        let name = super::trimmed(&id.channel_name);
        if !matches!(outcome, Outcome::Refused { .. })
            && let Some(filter) = self.config.channel(&name).and_then(|c| c.sslpeer.as_ref())
            && !self.peer_dn.as_deref().is_some_and(|dn| filter.matches(dn))
        {
            // IBM MQ "SSLPEER (SSL Peer)": the channel does not start.
            tracing::warn!(peer = %self.peer, channel = %name, dn = self.peer_dn.as_deref().unwrap_or(""),
                sslpeer = filter.as_str(), reason = 2035,
                "MQ client refused: its certificate does not match the channel's SSLPEER");
            self.status(conv, m.tsh.byte_order, StatusCode::SECURITY_FAILURE, 2035)
                .await;
            return Flow::Close;
        }
        match outcome {
            Outcome::Refused { code, reason } => {
                tracing::info!(peer = %self.peer, channel = %super::trimmed(&id.channel_name), reason, "MQ client refused at INITIAL_DATA");
                self.status(conv, m.tsh.byte_order, code, reason).await;
                Flow::Close
            }
            Outcome::Retry if self.rounds >= MAX_ROUNDS => {
                self.status(conv, m.tsh.byte_order, StatusCode::NEGOTIATION_FAILED, 2059)
                    .await;
                Flow::Close
            }
            outcome => {
                let mut h = reply_header(&m.tsh, SegmentType::INITIAL_DATA);
                h.control_flags1 = if outcome == Outcome::Retry {
                    tcf::ERROR
                } else {
                    0
                };
                h.byte_order = ByteOrder::Little;
                h.encoding = 546;
                let mut body = Vec::new();
                write_id(&reply, h.byte_order, &mut body);
                if !self.out.send(segments(&h, &body, usize::MAX)).await {
                    return Flow::Close;
                }
                if let Outcome::Agreed(agreed) = outcome {
                    let Some(channel) = self
                        .config
                        .channel(&super::trimmed(&id.channel_name))
                        .cloned()
                    else {
                        return Flow::Close;
                    };
                    frames.decoder_mut().max = agreed.max_transmission_size as usize;
                    self.reasm = Reassembler::new(agreed.max_msg_size as usize + STRUCTURES_ROOM);
                    tracing::info!(peer = %self.peer, channel = %channel.name, fap_level = agreed.fap_level, "MQ client channel agreed");
                    self.shared = Some(Shared {
                        agreed,
                        channel,
                        user: Arc::default(),
                        peer: self.peer,
                        mcauser: self.mcauser.clone(),
                        chlauth_at_connect: self.chlauth_at_connect,
                        peer_dn: self.peer_dn.clone(),
                    });
                    self.start_conversation(1);
                }
                Flow::Continue
            }
        }
    }

    fn start_conversation(&mut self, conv: u32) {
        let Some(shared) = self.shared.clone() else {
            return;
        };
        let (tx, rx) = mpsc::channel(16);
        self.convs.insert(conv, tx);
        let task = conversation::run(
            Arc::clone(&self.svc),
            shared,
            self.out.clone(),
            rx,
            self.closed.clone(),
        );
        self.svc.tasks.spawn_request(task);
    }

    async fn socket_action(&mut self, m: Reassembled) -> Flow {
        let order = m.tsh.byte_order;
        let conv = conversation_of(m.tsh.kind, m.tsh.conversation_id);
        let a = match parse_socket_action(&m.body, m.tsh.header_len(), order) {
            Ok(a) => a,
            Err(e) => {
                self.refuse(&e, conv, order).await;
                return Flow::Close;
            }
        };
        let id = a.conversation_id as u32;
        match a.action_type {
            START_CONVERSATION => {
                let limit = self.shared.as_ref().map_or(1, |s| s.agreed.conv_per_socket) as usize;
                if self.convs.contains_key(&id) || self.convs.len() >= limit {
                    self.status(id, order, StatusCode::CONV_ID_ERROR, 2009)
                        .await;
                    return Flow::Close;
                }
                self.started += 1;
                self.start_conversation(id);
                // The values a queue manager answered with in real JMS
                // client traffic: Type 8, Parm1 4, Parm2 2 + conversations
                // started on the socket (docs/mq-client-protocol.md).
                let reply = SocketAction {
                    conversation_id: a.conversation_id,
                    request_id: a.request_id,
                    action_type: CONVERSATION_ACCEPTED,
                    parm1: 4,
                    parm2: 2 + self.started,
                };
                let h = own_header(TshKind::Tshm, id, order, SegmentType::SOCKET_ACTION, 0);
                let mut body = Vec::new();
                write_socket_action(&reply, order, &mut body);
                if !self.out.send(segments(&h, &body, usize::MAX)).await {
                    return Flow::Close;
                }
                Flow::Continue
            }
            END_CONVERSATION => {
                // Dropping its queue ends the conversation's task, which
                // backs out what it left uncommitted. One never started is
                // refused like any unknown conversation id.
                self.reasm.discard(id);
                self.held.remove(&id);
                if self.convs.remove(&id).is_none() {
                    self.status(id, order, StatusCode::CONV_ID_ERROR, 2009)
                        .await;
                    return Flow::Close;
                }
                if m.tsh.has(tcf::CLOSE_CHANNEL) || self.convs.is_empty() {
                    Flow::Close
                } else {
                    Flow::Continue
                }
            }
            other => {
                let e = FapError::new(
                    FapStructure::SocketAction,
                    m.tsh.header_len() + 8,
                    "Type",
                    FapErrorKind::OutOfRange {
                        value: i64::from(other),
                        min: 1,
                        max: 2,
                    },
                );
                self.status(conv, order, StatusCode::SOCKET_ACTION_TYPE, e.mqrc().0)
                    .await;
                Flow::Close
            }
        }
    }

    /// Counts `bytes` more of conversation `conv`'s MQI call still arriving
    /// against `security.limits.svrconn_held_bytes`; past it the socket is
    /// refused with STATUS_DATA CHANNEL_UNAVAILABLE (0x16) and 2102
    /// MQRC_RESOURCE_PROBLEM, and closes (docs/security.md "Limits").
    async fn hold(&mut self, conv: u32, order: ByteOrder, bytes: usize) -> Flow {
        let more = match self.svc.mqi.limits().hold(bytes as u64) {
            Ok(h) => h,
            Err(e) => {
                crate::metrics::listeners::refused(crate::metrics::listeners::Refusal::Limit);
                if let Some(suppressed) = OVER_LIMIT.admit(e.setting) {
                    tracing::warn!(peer = %self.peer, limit = e.setting, value = e.limit, suppressed,
                        "MQ client socket closed: {e}");
                }
                self.status(conv, order, StatusCode::CHANNEL_UNAVAILABLE, 2102)
                    .await;
                return Flow::Close;
            }
        };
        self.held.entry(conv).or_default().push(more);
        Flow::Continue
    }

    async fn forward(&mut self, conv: u32, m: Reassembled) -> Flow {
        let Some(tx) = self.convs.get(&conv) else {
            self.status(conv, m.tsh.byte_order, StatusCode::CONV_ID_ERROR, 2009)
                .await;
            return Flow::Close;
        };
        if tx.send(Request { message: m }).await.is_err() {
            // The conversation ended itself after a protocol error.
            return Flow::Close;
        }
        Flow::Continue
    }

    async fn unexpected(&mut self, tsh: &Tsh, conv: u32) -> Flow {
        let e = FapError::new(
            FapStructure::Tsh,
            tsh.header_len() - 19,
            "SegmentType",
            FapErrorKind::UnexpectedSegmentType {
                segment_type: tsh.segment_type.0,
            },
        );
        self.refuse(&e, conv, tsh.byte_order).await;
        Flow::Close
    }

    /// Answers a protocol error with a STATUS_DATA naming it.
    async fn refuse(&self, e: &FapError, conv: u32, order: ByteOrder) {
        tracing::info!(peer = %self.peer, error = %e, "MQ client protocol error; closing");
        self.status(conv, order, e.status_code(), e.mqrc().0).await;
    }

    async fn status(&self, conv: u32, order: ByteOrder, code: StatusCode, value: i32) {
        let h = own_header(
            TshKind::Tshm,
            conv,
            order,
            SegmentType::STATUS_DATA,
            tcf::ERROR | tcf::CLOSE_CHANNEL,
        );
        let mut body = Vec::new();
        write_status(
            &StatusData::Status {
                code,
                value: Some(value),
            },
            order,
            &mut body,
        );
        self.out.send(segments(&h, &body, usize::MAX)).await;
    }

    async fn send_heartbeat(&self, flags: u8, conv: u32, body: &[u8]) -> bool {
        let h = own_header(
            TshKind::Tshm,
            conv,
            ByteOrder::Little,
            SegmentType::HEARTBEAT,
            flags,
        );
        self.out.send(segments(&h, body, usize::MAX)).await
    }
}

/// The conversation a segment belongs to: a TSH or TSHC carries none and
/// belongs to the first.
fn conversation_of(kind: TshKind, id: u32) -> u32 {
    match kind {
        TshKind::Tshm if id != 0 => id,
        _ => 1,
    }
}

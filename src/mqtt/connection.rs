//! One MQTT connection: the CONNECT handshake (a device's client
//! identifier, its password, its session), then the packets both ways
//! until it ends. The decisions on names, sessions and messages are in
//! the modules beside this one; this task moves packets and leases.

use super::Service;
use super::delivery::{HeldLease, Pulled, pull_queue};
use super::frame::{FrameError, Frames};
use super::names::Refusal;
use super::publish::{self, Outcome};
use super::session::{PacketIds, Session};
use super::sessions::Claim;
use crate::mqi::{DeadLetterPut, DeviceWatch, Outgoing, Position};
use crate::security::limits::{Exceeded, Permit};
use crate::security::tls::Stream;
use bytes::Bytes;
use futures_util::StreamExt;
use mqgate_codecs::mq::Mqrc;
use mqgate_codecs::mqtt::{
    Ack, Connack, Connect, Disconnect, ErrorKind, Level, MqttError, Packet, Properties, Property,
    Publish, QoS, ReasonCode, Suback, Will, decode, encode, encoded_len,
};
use std::collections::{HashMap, HashSet};
use std::net::SocketAddr;
use std::sync::Arc;
use std::sync::atomic::Ordering;
use std::time::Duration;
use tokio::io::AsyncWriteExt;
use tokio::io::{ReadHalf, WriteHalf};
use tokio::sync::mpsc;
use tokio::task::JoinHandle;
use tokio::time::Instant;
use tokio_util::codec::FramedRead;
use tokio_util::sync::CancellationToken;

type Reader = FramedRead<ReadHalf<Stream>, Frames>;

/// Bytes of queued packets after which they are written without waiting
/// for the end of the loop turn.
const FLUSH_AT: usize = 64 * 1024;
/// A write buffer larger than this is given back after a flush.
const KEEP_CAPACITY: usize = 4096;
/// The read buffer a connection starts with (grown as packets need).
const READ_CAPACITY: usize = 256;

/// The writing side: packets encoded at the connection's level into one
/// buffer, written out by [`Out::flush`] (an idle connection holds no
/// buffer: 10,000 idle devices cost little memory, docs/mqtt.md).
struct Out {
    w: WriteHalf<Stream>,
    level: Level,
    buf: Vec<u8>,
    /// The client's Maximum Packet Size (5.0 3.1.2.11.4); none in 3.1.1.
    client_max: usize,
    /// The client's Request Problem Information (5.0 3.1.2.11.7): when
    /// false, no Reason String or User Property on acknowledgements.
    problem_info: bool,
    /// The gateway's stop token: a write the device does not take is
    /// abandoned when it is cancelled.
    stop: CancellationToken,
    /// Cancelled when another connection takes the session over (5.0
    /// 3.1.4 [MQTT-3.1.4-3]: the old connection is closed); a write the
    /// device does not take is abandoned then.
    takeover: CancellationToken,
    /// Longest a write may wait with no byte taken by the device: 1.5
    /// times its Keep Alive (5.0 3.1.2.10 [MQTT-3.1.2-22]; while a write
    /// waits nothing the device sends is read); `None`: no Keep Alive.
    stall: Option<Duration>,
}

impl Out {
    /// Queues `p`; written out at once when the buffer grew large. A
    /// packet longer than the client's Maximum Packet Size is sent without
    /// its Reason String and User Properties, or not at all when even
    /// that is too long (5.0 3.1.2.11.4 [MQTT-3.1.2-24], [MQTT-3.1.2-25];
    /// 3.2.2.3.16 [MQTT-3.2.2-19], 3.4.2.2.2 [MQTT-3.4.2-2], 3.9.2.1.2
    /// [MQTT-3.9.2-1], 3.14.2.2.3 [MQTT-3.14.2-3]).
    async fn send(&mut self, p: &Packet) -> std::io::Result<()> {
        let start = self.buf.len();
        encode(p, self.level, &mut self.buf);
        if self.buf.len() - start > self.client_max {
            self.buf.truncate(start);
            let smaller = without_problem_info(p);
            if encoded_len(&smaller, self.level) <= self.client_max {
                encode(&smaller, self.level, &mut self.buf);
            } else {
                tracing::warn!(packet = %p.packet_type(), max_packet_size = self.client_max, "MQTT packet longer than the client's Maximum Packet Size; not sent");
            }
        }
        if self.buf.len() >= FLUSH_AT {
            self.flush().await?;
        }
        Ok(())
    }

    /// Writes the queued packets out. Errors: the connection failed; the
    /// device took no byte for [`Out::stall`] (`TimedOut`); the gateway
    /// stops or the session was taken over while the device took nothing
    /// (`ConnectionAborted`): a device that stops reading cannot hold its
    /// connection, its leases or its session.
    async fn flush(&mut self) -> std::io::Result<()> {
        let mut done = 0;
        while done < self.buf.len() {
            let n = tokio::select! {
                biased;
                r = self.w.write(&self.buf[done..]) => r?,
                () = self.stop.cancelled() => return Err(aborted("the gateway is stopping")),
                () = self.takeover.cancelled() => return Err(aborted("the session was taken over")),
                () = sleep_for(self.stall) => {
                    return Err(std::io::Error::new(
                        std::io::ErrorKind::TimedOut,
                        "the device took no bytes for 1.5 times its Keep Alive",
                    ));
                }
            };
            if n == 0 {
                return Err(std::io::ErrorKind::WriteZero.into());
            }
            done += n;
        }
        self.buf.clear();
        if self.buf.capacity() > KEEP_CAPACITY {
            self.buf = Vec::new();
        }
        Ok(())
    }

    /// A reason string property block for an acknowledgement, when the
    /// client wants them.
    fn problem(&self, text: &str) -> Properties {
        let mut p = Properties::new();
        if self.problem_info && self.level == Level::V5 {
            p.push(Property::ReasonString(text.chars().take(512).collect()));
        }
        p
    }

    /// Sends a DISCONNECT with `reason` (5.0 3.14; MQTT 3.1.1 has no
    /// server DISCONNECT: the connection is closed) and flushes.
    async fn disconnect(&mut self, reason: ReasonCode, text: &str) {
        if self.level == Level::V5 {
            let mut p = Properties::new();
            p.push(Property::ReasonString(text.chars().take(512).collect()));
            let _ = self
                .send(&Packet::Disconnect(Disconnect::new(reason, p)))
                .await;
        }
        let _ = self.flush().await;
        let _ = self.w.shutdown().await;
    }
}

/// Serves one connection until it ends; `dn` is the subject DN of the
/// client certificate the connection presented (`mqtt.tls` with
/// `client_auth`), if any.
pub async fn run(
    svc: Arc<Service>,
    stream: Stream,
    peer: SocketAddr,
    dn: Option<String>,
    permit: Result<Permit, Exceeded>,
) {
    let (rd, wr) = tokio::io::split(stream);
    let mut reader = FramedRead::with_capacity(
        rd,
        Frames::new(svc.config.max_packet_size as usize),
        READ_CAPACITY,
    );
    let mut out = Out {
        w: wr,
        level: Level::V311,
        buf: Vec::new(),
        client_max: usize::MAX,
        problem_info: true,
        stop: svc.stop.clone(),
        takeover: CancellationToken::new(),
        stall: None,
    };
    // The handshake, the packet handlers and the end are boxed: the
    // connection's future holds only what waits between packets (an idle
    // device's memory, docs/mqtt.md "Limits").
    let Some(connect) = Box::pin(first_packet(&svc, &mut reader, &mut out, peer)).await else {
        return;
    };
    let _permit = match permit {
        Ok(p) => p,
        Err(e) => {
            // 5.0 3.2.2.2: 0x89 Server busy, try again later; 3.1.1
            // 3.2.2.3: 0x03 Server unavailable (docs/security.md "Limits").
            crate::metrics::listeners::refused(crate::metrics::listeners::Refusal::Limit);
            if let Some(suppressed) = OVER_LIMIT.admit(e.setting) {
                tracing::warn!(%peer, limit = e.setting, value = e.limit, suppressed,
                    "MQTT connection refused: {e}");
            }
            out.level = connect.level;
            let text = e.to_string();
            refuse_quietly(&mut out, &text).await;
            return;
        }
    };
    let conn_id = svc.next_conn.fetch_add(1, Ordering::Relaxed);
    let Some(mut c) = Box::pin(accept(
        &svc,
        connect,
        &mut out,
        peer,
        dn.as_deref(),
        conn_id,
    ))
    .await
    else {
        return;
    };
    let end = c.serve(&svc, &mut reader, &mut out).await;
    Box::pin(c.finish(&svc, end)).await;
}

/// Reads the CONNECT within `mqtt.connect_timeout_ms`; answers a CONNECT
/// that cannot be read as MQTT allows and returns `None`.
async fn first_packet(
    svc: &Service,
    reader: &mut Reader,
    out: &mut Out,
    peer: SocketAddr,
) -> Option<Connect> {
    let wait = Duration::from_millis(svc.config.connect_timeout_ms);
    let frame = match tokio::time::timeout(wait, reader.next()).await {
        Err(_) => {
            tracing::warn!(%peer, "MQTT connection sent no CONNECT in time; closed");
            return None;
        }
        Ok(None) | Ok(Some(Err(FrameError::Io(_)))) => return None,
        Ok(Some(Err(FrameError::Packet(e)))) => {
            tracing::warn!(%peer, error = %e, reason = %e.reason_code(), "MQTT CONNECT refused");
            return None;
        }
        Ok(Some(Ok(f))) => f,
    };
    match decode(frame.clone(), None) {
        Ok(Packet::Connect(c)) => Some(c),
        Ok(_) => None,
        Err(e) => {
            tracing::warn!(%peer, error = %e, reason = %e.reason_code(), "MQTT CONNECT refused");
            refuse_unreadable(&frame, &e, out).await;
            None
        }
    }
}

/// The answer to a CONNECT that could not be read (5.0 4.13, 3.1.2.2;
/// 3.1.1 3.1.2.2 [MQTT-3.1.2-2], 4.8): an unsupported protocol level gets
/// CONNACK 0x84 in the 5.0 form when the level is above 5 and return code
/// 0x01 in the 3.1.1 form otherwise; another fault in a 5.0 CONNECT gets a
/// CONNACK with its reason code; in a 3.1.1 one the connection is closed.
async fn refuse_unreadable(frame: &Bytes, e: &MqttError, out: &mut Out) {
    let level = match &e.kind {
        ErrorKind::UnsupportedProtocol { level, .. } if *level > 5 => Level::V5,
        ErrorKind::UnsupportedProtocol { .. } => Level::V311,
        // The Protocol Level byte of a CONNECT of name "MQTT".
        _ if frame.len() > 9 && frame.get(4..8) == Some(b"MQTT") && frame[8] == 5 => Level::V5,
        _ if frame.len() > 9 && frame.get(5..9) == Some(b"MQTT") && frame[9] == 5 => Level::V5,
        _ => return,
    };
    out.level = level;
    let code = match level {
        Level::V5 => e.reason_code(),
        Level::V311 => ReasonCode(e.reason_code().connack_v3()),
    };
    let mut properties = Properties::new();
    if level == Level::V5 {
        properties.push(Property::ReasonString(e.to_string()));
    }
    let ack = Connack {
        session_present: false,
        code,
        properties,
    };
    let _ = out.send(&Packet::Connack(ack)).await;
    let _ = out.flush().await;
}

/// A refused CONNECT: CONNACK with `code` (its 3.1.1 return code at that
/// level, 3.2.2.3), logged.
async fn refuse(out: &mut Out, peer: SocketAddr, client_id: &str, code: ReasonCode, text: &str) {
    tracing::warn!(%peer, client_id, reason = %code, error = text, "MQTT CONNECT refused");
    let (code, properties) = match out.level {
        Level::V5 => {
            let mut p = Properties::new();
            p.push(Property::ReasonString(text.chars().take(512).collect()));
            (code, p)
        }
        Level::V311 => (ReasonCode(code.connack_v3()), Properties::new()),
    };
    let ack = Connack {
        session_present: false,
        code,
        properties,
    };
    let _ = out.send(&Packet::Connack(ack)).await;
    let _ = out.flush().await;
}

/// Connections refused at a limit, per limit (src/log_limit.rs).
static OVER_LIMIT: crate::log_limit::Repeats = crate::log_limit::Repeats::per_minute();

/// CONNACK 0x89 Server busy (3.1.1: 0x03) with `text` as Reason String,
/// logged by the caller.
async fn refuse_quietly(out: &mut Out, text: &str) {
    let (code, properties) = match out.level {
        Level::V5 => {
            let mut p = Properties::new();
            p.push(Property::ReasonString(text.chars().take(512).collect()));
            (ReasonCode::SERVER_BUSY, p)
        }
        Level::V311 => (
            ReasonCode(ReasonCode::SERVER_BUSY.connack_v3()),
            Properties::new(),
        ),
    };
    let ack = Connack {
        session_present: false,
        code,
        properties,
    };
    let _ = out.send(&Packet::Connack(ack)).await;
    let _ = out.flush().await;
}

/// A connection past its CONNACK.
struct Conn {
    peer: SocketAddr,
    id: u64,
    level: Level,
    client_id: String,
    claim: Claim,
    session: Session,
    /// Session Expiry Interval in force (`None`: never).
    expiry: Option<Duration>,
    keep_alive: Option<Duration>,
    will: Option<Will>,
    /// Messages to the device awaiting PUBACK, by Packet Identifier.
    inflight: HashMap<u16, Inflight>,
    ids: PacketIds,
    window: usize,
    /// One pulling task per device queue the subscriptions cover.
    pullers: HashMap<String, JoinHandle<Option<()>>>,
    /// Boxed: a channel's slots are allocated 32 at a time.
    tx: mpsc::Sender<Box<Pulled>>,
    rx: mpsc::Receiver<Box<Pulled>>,
    watch: Option<DeviceWatch>,
    /// QoS 2 PUBLISHes from the device put and awaiting PUBREL (3.1.1
    /// clients only: 5.0 clients are told Maximum QoS 1).
    qos2: HashSet<u16>,
}

struct Inflight {
    queue: String,
    position: Position,
    held: HeldLease,
}

/// How a connection ended.
enum End {
    /// DISCONNECT from the client: `will` when it asked for its Will
    /// Message (5.0 0x04).
    Disconnect { will: bool },
    /// Closed otherwise: the Will Message is published (5.0 3.1.2.5).
    Abnormal,
    /// The gateway is stopping: no Will Message (its queue manager
    /// takes no puts any more).
    Stopping,
}

/// Checks a CONNECT (client identifier, authentication by client
/// certificate `dn` or password, Will, properties), claims the session and
/// sends CONNACK; `None` when refused.
async fn accept(
    svc: &Service,
    c: Connect,
    out: &mut Out,
    peer: SocketAddr,
    dn: Option<&str>,
    conn_id: u64,
) -> Option<Conn> {
    out.level = c.level;
    let v5 = c.level == Level::V5;
    // Before any answer: a refused CONNACK must fit too (3.2.2.3.16).
    out.client_max = c
        .properties
        .find(|p| match p {
            Property::MaximumPacketSize(n) => Some(*n as usize),
            _ => None,
        })
        .unwrap_or(usize::MAX);
    out.problem_info = c
        .properties
        .find(|p| match p {
            Property::RequestProblemInformation(v) => Some(*v != 0),
            _ => None,
        })
        .unwrap_or(true);
    let client_id = c.client_id.clone();
    if client_id.is_empty() {
        // 5.0 3.1.3.1: a server may refuse a zero-length client identifier
        // (0x85); 3.1.1 [MQTT-3.1.3-8]: return code 0x02. A device is
        // named by its identifier, so none can be assigned.
        refuse(
            out,
            peer,
            "",
            ReasonCode::CLIENT_IDENTIFIER_NOT_VALID,
            "a device connects with its device queue manager name as client identifier",
        )
        .await;
        return None;
    }
    if let Err(e) = svc.devices.check(&client_id) {
        refuse(
            out,
            peer,
            &client_id,
            ReasonCode::CLIENT_IDENTIFIER_NOT_VALID,
            &format!("client identifier {client_id:?} is not a device: {e}"),
        )
        .await;
        return None;
    }
    if svc.stop.is_cancelled() {
        refuse(
            out,
            peer,
            &client_id,
            ReasonCode::SERVER_SHUTTING_DOWN,
            "the gateway is stopping",
        )
        .await;
        return None;
    }
    let props = &c.properties;
    if props
        .find(|p| matches!(p, Property::AuthenticationMethod(_)).then_some(()))
        .is_some()
    {
        // 4.12: enhanced authentication is not offered.
        refuse(
            out,
            peer,
            &client_id,
            ReasonCode::BAD_AUTHENTICATION_METHOD,
            "enhanced authentication (AUTH) is not offered; use User Name and Password",
        )
        .await;
        return None;
    }
    // A client certificate that `security.certificates` maps to
    // `device:CLIENTID` proves the client identifier, in place of a
    // password; one mapped to any other principal is refused: 5.0 3.2.2.2
    // 0x87 Not authorized, 3.1.1 3.2.2.3 return code 0x05
    // (docs/security.md "MQTT devices"). An unmapped certificate proves
    // nothing.
    let certified = match dn.and_then(|dn| svc.certificate_principal(dn)) {
        None => false,
        Some(p) if p.device() == Some(client_id.as_str()) => true,
        Some(p) => {
            let text = format!(
                "the client certificate (subject DN {}) maps to principal {:?}, not \"device:{client_id}\" (security.certificates)",
                crate::qmgr::names::shown(dn.unwrap_or_default()),
                p.name()
            );
            refuse(out, peer, &client_id, ReasonCode::NOT_AUTHORIZED, &text).await;
            return None;
        }
    };
    if !certified
        && let Some(pw) = &svc.passwords
        && let Err(text) = pw.check(&client_id, c.user_name.as_deref(), c.password.as_deref())
    {
        refuse(
            out,
            peer,
            &client_id,
            ReasonCode::BAD_USER_NAME_OR_PASSWORD,
            &text,
        )
        .await;
        return None;
    }
    if svc.devices.mqi().checks_authorities() && svc.passwords.is_none() && !certified {
        // Authorities are checked as `device:CLIENTID`, and nothing proves
        // the client identifier without a password file (docs/security.md
        // "MQTT devices"): 5.0 3.2.2.2 0x87 Not authorized, 3.1.1 3.2.2.3
        // return code 0x05.
        refuse(
            out,
            peer,
            &client_id,
            ReasonCode::NOT_AUTHORIZED,
            "authorities are checked (security section) and the device did not prove its client identifier: configure mqtt.password_file, or client certificates (mqtt.tls client_auth, security.certificates)",
        )
        .await;
        return None;
    }
    if let Some(w) = &c.will {
        if v5 && w.retain {
            // 5.0 3.2.2.3.5: Retain Available is 0.
            refuse(
                out,
                peer,
                &client_id,
                ReasonCode::RETAIN_NOT_SUPPORTED,
                "retained messages are not offered (Will Retain)",
            )
            .await;
            return None;
        }
        if svc.config.will_queue.is_empty()
            && let Err(r) = super::names::destination(&w.topic)
        {
            refuse(
                out,
                peer,
                &client_id,
                r.code,
                &format!("Will Topic: {}", r.message),
            )
            .await;
            return None;
        }
    }
    let max_expiry = svc.config.max_session_expiry_s;
    let (expiry_s, told_expiry) = if v5 {
        let asked = props
            .find(|p| match p {
                Property::SessionExpiryInterval(s) => Some(*s),
                _ => None,
            })
            .unwrap_or(0);
        (asked.min(max_expiry), asked > max_expiry)
    } else if c.clean_start {
        (0, false)
    } else {
        (max_expiry, false)
    };
    let receive_max = props
        .find(|p| match p {
            Property::ReceiveMaximum(n) => Some(usize::from(*n)),
            _ => None,
        })
        .unwrap_or(usize::from(u16::MAX));
    let max_ka = svc.config.max_keep_alive_s;
    let server_keep_alive =
        (v5 && max_ka > 0 && (c.keep_alive == 0 || c.keep_alive > max_ka)).then_some(max_ka);
    let keep_alive = server_keep_alive.unwrap_or(c.keep_alive);
    let claim = svc.sessions.claim(&client_id, conn_id, c.clean_start).await;
    let session_present = claim.session.is_some();
    out.takeover = claim.takeover.clone();
    out.stall = (keep_alive > 0).then(|| Duration::from_secs(u64::from(keep_alive)) * 3 / 2);
    let mut p = Properties::new();
    if v5 {
        if told_expiry {
            p.push(Property::SessionExpiryInterval(expiry_s));
        }
        p.push(Property::ReceiveMaximum(svc.config.inflight));
        p.push(Property::MaximumQos(1));
        p.push(Property::RetainAvailable(0));
        p.push(Property::MaximumPacketSize(svc.config.max_packet_size));
        p.push(Property::SubscriptionIdentifierAvailable(0));
        p.push(Property::SharedSubscriptionAvailable(0));
        if let Some(ka) = server_keep_alive {
            p.push(Property::ServerKeepAlive(ka));
        }
    }
    let ack = Connack {
        session_present,
        code: ReasonCode::SUCCESS,
        properties: p,
    };
    if out.send(&Packet::Connack(ack)).await.is_err() || out.flush().await.is_err() {
        svc.sessions.release(
            &client_id,
            conn_id,
            claim.session.clone(),
            Some(Duration::ZERO),
            None,
        );
        return None;
    }
    tracing::info!(%peer, client_id = %client_id, level = c.level.byte(), session_present, keep_alive, "MQTT device connected");
    let (tx, rx) = mpsc::channel(1);
    let mut conn = Conn {
        peer,
        id: conn_id,
        level: c.level,
        session: claim.session.clone().unwrap_or_default(),
        claim,
        client_id,
        expiry: (expiry_s != u32::MAX).then(|| Duration::from_secs(u64::from(expiry_s))),
        keep_alive: (keep_alive > 0).then(|| Duration::from_secs(u64::from(keep_alive))),
        will: c.will,
        inflight: HashMap::new(),
        ids: PacketIds::default(),
        window: usize::from(svc.config.inflight).min(receive_max).max(1),
        pullers: HashMap::new(),
        tx,
        rx,
        watch: None,
        qos2: HashSet::new(),
    };
    conn.reconcile(svc);
    Some(conn)
}

impl Conn {
    /// Starts a puller for every device queue the subscriptions cover that
    /// has none, and ends those no subscription covers any more.
    fn reconcile(&mut self, svc: &Service) {
        let mut wanted: HashSet<String> =
            self.session.literal_queues().map(str::to_string).collect();
        if self.session.has_wildcard() {
            if self.watch.is_none() {
                self.watch = svc.devices.watch(&self.client_id).ok();
            }
            if let Ok(queues) = svc.devices.queues(&self.client_id) {
                wanted.extend(queues.into_iter().filter(|q| self.session.covers(q)));
            }
        } else {
            self.watch = None;
        }
        self.pullers.retain(|q, h| {
            let keep = wanted.contains(q) && !h.is_finished();
            if !keep {
                h.abort();
            }
            keep
        });
        for q in wanted {
            if !self.pullers.contains_key(&q) {
                let task = pull_queue(
                    svc.devices.clone(),
                    svc.acks.clone(),
                    self.client_id.clone(),
                    q.clone(),
                    self.tx.clone(),
                );
                self.pullers.insert(q, svc.tasks.spawn_request(task));
            }
        }
    }

    /// The packet loop.
    async fn serve(&mut self, svc: &Service, reader: &mut Reader, out: &mut Out) -> End {
        let mut deadline = self.keep_alive.map(|k| Instant::now() + k + k / 2);
        loop {
            let room = self.inflight.len() < self.window;
            let end = tokio::select! {
                biased;
                () = svc.stop.cancelled() => {
                    Box::pin(out.disconnect(ReasonCode::SERVER_SHUTTING_DOWN, "the gateway is stopping")).await;
                    Some(End::Stopping)
                }
                () = self.claim.takeover.cancelled() => {
                    tracing::info!(peer = %self.peer, client_id = %self.client_id, "MQTT session taken over by a new connection");
                    Box::pin(out.disconnect(ReasonCode::SESSION_TAKEN_OVER, "another connection took the session over")).await;
                    Some(End::Abnormal)
                }
                frame = reader.next() => {
                    if let Some(k) = self.keep_alive {
                        deadline = Some(Instant::now() + k + k / 2);
                    }
                    match frame {
                        None => Some(End::Abnormal),
                        Some(Err(FrameError::Io(e))) => {
                            tracing::debug!(peer = %self.peer, client_id = %self.client_id, error = %e, "MQTT connection failed");
                            Some(End::Abnormal)
                        }
                        Some(Err(FrameError::Packet(e))) => Some(Box::pin(self.bad_packet(out, &e)).await),
                        Some(Ok(f)) => match decode(f, Some(self.level)) {
                            Err(e) => Some(Box::pin(self.bad_packet(out, &e)).await),
                            Ok(p) => Box::pin(self.packet(svc, out, p)).await,
                        },
                    }
                }
                Some(pulled) = self.rx.recv(), if room => Box::pin(self.deliver(svc, out, *pulled)).await,
                () = sleep_until(deadline) => {
                    tracing::warn!(peer = %self.peer, client_id = %self.client_id, "MQTT Keep Alive timeout: nothing received for 1.5 x Keep Alive; connection closed");
                    Box::pin(out.disconnect(ReasonCode::KEEP_ALIVE_TIMEOUT, "nothing received for 1.5 times the Keep Alive")).await;
                    Some(End::Abnormal)
                }
                () = changed(self.watch.as_mut()) => {
                    self.reconcile(svc);
                    None
                }
            };
            if let Some(end) = end {
                return end;
            }
            if let Err(e) = Box::pin(out.flush()).await {
                return self.write_failed(out, &e);
            }
        }
    }

    /// How the connection ends when writing to it failed (`e`, from
    /// [`Out::flush`]), logged: a device that took nothing for 1.5 times
    /// its Keep Alive is closed as a Keep Alive timeout (its Will Message
    /// is put); the gateway stopping ends it without one.
    fn write_failed(&self, out: &Out, e: &std::io::Error) -> End {
        match e.kind() {
            std::io::ErrorKind::TimedOut | std::io::ErrorKind::ConnectionAborted => {
                tracing::warn!(peer = %self.peer, client_id = %self.client_id, error = %e, "MQTT device does not read; connection closed");
            }
            _ => {
                tracing::debug!(peer = %self.peer, client_id = %self.client_id, error = %e, "MQTT connection failed");
            }
        }
        if out.stop.is_cancelled() {
            End::Stopping
        } else {
            End::Abnormal
        }
    }

    /// A packet that cannot be read: logged, DISCONNECT with its reason
    /// code (5.0 4.13; 3.1.1 4.8: closed).
    async fn bad_packet(&self, out: &mut Out, e: &MqttError) -> End {
        tracing::warn!(peer = %self.peer, client_id = %self.client_id, error = %e, reason = %e.reason_code(), "MQTT packet refused; connection closed");
        out.disconnect(e.reason_code(), &e.to_string()).await;
        End::Abnormal
    }

    /// A protocol error the codec cannot see (a packet a client must not
    /// send): DISCONNECT 0x82 (5.0 4.13.1).
    async fn protocol_error(&self, out: &mut Out, code: ReasonCode, text: &str) -> Option<End> {
        tracing::warn!(peer = %self.peer, client_id = %self.client_id, reason = %code, error = text, "MQTT protocol error; connection closed");
        out.disconnect(code, text).await;
        Some(End::Abnormal)
    }

    async fn packet(&mut self, svc: &Service, out: &mut Out, p: Packet) -> Option<End> {
        let sent = match p {
            Packet::Pingreq => out.send(&Packet::Pingresp).await,
            Packet::Puback(a) => {
                self.puback(a.packet_id).await;
                Ok(())
            }
            Packet::Publish(pb) => return self.publish(svc, out, pb).await,
            Packet::Pubrel(a) => {
                // 5.0 3.7.2.1: 0x92 for a Packet Identifier no QoS 2
                // PUBLISH holds (3.1.1 PUBCOMP has no reason code).
                let code = if self.qos2.remove(&a.packet_id) || self.level == Level::V311 {
                    ReasonCode::SUCCESS
                } else {
                    ReasonCode::PACKET_IDENTIFIER_NOT_FOUND
                };
                out.send(&Packet::Pubcomp(Ack::new(
                    a.packet_id,
                    code,
                    Properties::new(),
                )))
                .await
            }
            Packet::Subscribe(s) => {
                let has_id = s
                    .properties
                    .find(|p| matches!(p, Property::SubscriptionIdentifier(_)).then_some(()))
                    .is_some();
                let mut codes = Vec::new();
                let mut problems = Vec::new();
                for (filter, opts) in &s.filters {
                    let r = if has_id {
                        // 5.0 3.9.3: Subscription Identifiers Available is 0.
                        Err(Refusal {
                            code: ReasonCode::SUBSCRIPTION_IDENTIFIERS_NOT_SUPPORTED,
                            message: "subscription identifiers are not offered".into(),
                        })
                    } else {
                        self.session.subscribe(
                            &self.client_id,
                            filter,
                            *opts,
                            svc.config.max_subscriptions,
                        )
                    };
                    match r {
                        Ok(qos) => codes.push(ReasonCode(qos as u8)),
                        Err(r) => {
                            tracing::warn!(peer = %self.peer, client_id = %self.client_id, filter = ?filter, reason = %r.code, error = %r.message, "MQTT subscription refused");
                            codes.push(r.code);
                            problems.push(r.message);
                        }
                    }
                }
                self.reconcile(svc);
                let properties = if problems.is_empty() {
                    Properties::new()
                } else {
                    out.problem(&problems.join("; "))
                };
                out.send(&Packet::Suback(Suback {
                    packet_id: s.packet_id,
                    properties,
                    codes,
                }))
                .await
            }
            Packet::Unsubscribe(u) => {
                let codes = u
                    .filters
                    .iter()
                    .map(|f| self.session.unsubscribe(f))
                    .collect();
                self.reconcile(svc);
                out.send(&Packet::Unsuback(Suback {
                    packet_id: u.packet_id,
                    properties: Properties::new(),
                    codes,
                }))
                .await
            }
            Packet::Disconnect(d) => {
                if let Some(s) = d.properties.as_ref().and_then(|p| {
                    p.find(|x| match x {
                        Property::SessionExpiryInterval(s) => Some(*s),
                        _ => None,
                    })
                }) {
                    if self.expiry == Some(Duration::ZERO) && s != 0 {
                        // 5.0 3.14.2.2.2.
                        return self
                            .protocol_error(
                                out,
                                ReasonCode::PROTOCOL_ERROR,
                                "Session Expiry Interval set in DISCONNECT after 0 in CONNECT",
                            )
                            .await;
                    }
                    let s = s.min(svc.config.max_session_expiry_s);
                    self.expiry = (s != u32::MAX).then(|| Duration::from_secs(u64::from(s)));
                }
                let will = d.reason_code() == ReasonCode::DISCONNECT_WITH_WILL;
                return Some(End::Disconnect { will });
            }
            Packet::Auth(_) => {
                return self
                    .protocol_error(
                        out,
                        ReasonCode::PROTOCOL_ERROR,
                        "AUTH without an Authentication Method in CONNECT (4.12)",
                    )
                    .await;
            }
            other => {
                let t = other.packet_type();
                return self
                    .protocol_error(
                        out,
                        ReasonCode::PROTOCOL_ERROR,
                        &format!("a client does not send {t}"),
                    )
                    .await;
            }
        };
        sent.err().map(|e| self.write_failed(out, &e))
    }

    /// PUBACK from the device: the lease is acknowledged, the message gone.
    async fn puback(&mut self, id: u16) {
        let Some(f) = self.inflight.remove(&id) else {
            tracing::debug!(client_id = %self.client_id, packet_id = id, "MQTT PUBACK for no message in flight");
            return;
        };
        if let Err(e) = f.held.ack().await {
            tracing::warn!(client_id = %self.client_id, queue = %f.queue, error = %e, "MQTT PUBACK: the lease could not be acknowledged");
        }
    }

    /// A PUBLISH from the device.
    async fn publish(&mut self, svc: &Service, out: &mut Out, pb: Publish) -> Option<End> {
        let v5 = self.level == Level::V5;
        if v5 {
            if pb.qos == QoS::ExactlyOnce {
                return self
                    .protocol_error(
                        out,
                        ReasonCode::QOS_NOT_SUPPORTED,
                        "QoS 2 is above the Maximum QoS 1 (3.2.2.3.4)",
                    )
                    .await;
            }
            if pb.retain {
                return self
                    .protocol_error(
                        out,
                        ReasonCode::RETAIN_NOT_SUPPORTED,
                        "retained messages are not offered (3.2.2.3.5)",
                    )
                    .await;
            }
            if pb
                .properties
                .find(|p| matches!(p, Property::TopicAlias(_)).then_some(()))
                .is_some()
            {
                return self
                    .protocol_error(
                        out,
                        ReasonCode::TOPIC_ALIAS_INVALID,
                        "Topic Alias Maximum is 0 (3.3.2.3.4)",
                    )
                    .await;
            }
            if pb
                .properties
                .find(|p| matches!(p, Property::SubscriptionIdentifier(_)).then_some(()))
                .is_some()
            {
                return self
                    .protocol_error(
                        out,
                        ReasonCode::PROTOCOL_ERROR,
                        "a client's PUBLISH carries no Subscription Identifier (3.3.4)",
                    )
                    .await;
            }
        }
        if pb.qos == QoS::ExactlyOnce
            && let Some(id) = pb.packet_id
            && self.qos2.contains(&id)
        {
            // A resent QoS 2 PUBLISH already put: PUBREC again (4.3.3).
            let ack = Packet::Pubrec(Ack::new(id, ReasonCode::SUCCESS, Properties::new()));
            return out
                .send(&ack)
                .await
                .err()
                .map(|e| self.write_failed(out, &e));
        }
        let mqi = svc.devices.mqi();
        let outcome = publish::put(
            mqi,
            &self.client_id,
            &pb.topic,
            None,
            pb.qos,
            &pb.properties,
            pb.payload.clone(),
        )
        .await;
        let code = match outcome {
            Outcome::Put { queue } => {
                tracing::debug!(client_id = %self.client_id, topic = ?pb.topic, queue = %queue, "MQTT PUBLISH put");
                ReasonCode::SUCCESS
            }
            Outcome::Stopping(e) => {
                out.disconnect(ReasonCode::SERVER_SHUTTING_DOWN, &e.to_string())
                    .await;
                return Some(End::Stopping);
            }
            Outcome::Refused(r) => {
                tracing::warn!(peer = %self.peer, client_id = %self.client_id, topic = ?pb.topic, reason = %r.code, error = %r.message, "MQTT PUBLISH refused");
                if v5 && pb.qos == QoS::AtLeastOnce {
                    let props = out.problem(&r.message);
                    let ack = Packet::Puback(Ack::new(pb.packet_id.unwrap_or(1), r.code, props));
                    return out
                        .send(&ack)
                        .await
                        .err()
                        .map(|e| self.write_failed(out, &e));
                }
                // No way to tell the device: the message goes to the
                // dead-letter queue (docs/mqtt.md "Publishing into MQ").
                if let Err(e) = publish::dead_letter(
                    mqi,
                    &self.client_id,
                    &pb.topic,
                    pb.qos,
                    &pb.properties,
                    pb.payload,
                    &r,
                )
                .await
                {
                    tracing::error!(client_id = %self.client_id, topic = ?pb.topic, error = %e, "MQTT PUBLISH could not be dead-lettered");
                    if pb.qos != QoS::AtMostOnce {
                        out.disconnect(ReasonCode::UNSPECIFIED_ERROR, &e.to_string())
                            .await;
                        return Some(End::Abnormal);
                    }
                }
                ReasonCode::SUCCESS
            }
        };
        let ack = match (pb.qos, pb.packet_id) {
            (QoS::AtLeastOnce, Some(id)) => Packet::Puback(Ack::new(id, code, Properties::new())),
            (QoS::ExactlyOnce, Some(id)) => {
                self.qos2.insert(id);
                Packet::Pubrec(Ack::new(id, code, Properties::new()))
            }
            _ => return None,
        };
        out.send(&ack)
            .await
            .err()
            .map(|e| self.write_failed(out, &e))
    }

    /// Publishes a message a puller took (QoS 1, 5.0 3.3; DUP when it was
    /// handed out before, 3.3.1.1).
    async fn deliver(&mut self, svc: &Service, out: &mut Out, pulled: Pulled) -> Option<End> {
        let (queue, leased, held) = match pulled {
            Pulled::Message {
                queue,
                leased,
                held,
            } => (queue, leased, held),
            Pulled::Failed { queue, error } => {
                self.pullers.remove(&queue);
                if matches!(error.mqrc, Mqrc::Q_MGR_QUIESCING | Mqrc::Q_MGR_STOPPING) {
                    out.disconnect(ReasonCode::SERVER_SHUTTING_DOWN, "the gateway is stopping")
                        .await;
                    return Some(End::Stopping);
                }
                tracing::warn!(client_id = %self.client_id, queue = %queue, error = %error, "MQTT delivery from this device queue stopped");
                return None;
            }
        };
        let msg = &leased.got.message;
        let key = (queue.clone(), leased.got.stored.position);
        let resent = self.session.resend.remove(&key);
        let id = match resent.filter(|id| !self.inflight.contains_key(id)) {
            Some(id) => id,
            None => {
                let (inflight, resend) = (&self.inflight, &self.session.resend);
                let Some(id) = self
                    .ids
                    .next(|id| inflight.contains_key(&id) || resend.values().any(|v| *v == id))
                else {
                    let _ = held.backout().await;
                    return None;
                };
                id
            }
        };
        let properties = match self.level {
            Level::V5 => super::mapping::properties(&msg.md, msg.charset, &msg.data),
            Level::V311 => Properties::new(),
        };
        let mut packet = Packet::Publish(Publish {
            dup: resent.is_some() || msg.md.backout_count > 0,
            qos: QoS::AtLeastOnce,
            retain: false,
            topic: queue.clone(),
            packet_id: Some(id),
            properties,
            payload: msg.data.clone(),
        });
        if !fit_publish(&mut packet, self.level, out.client_max) {
            self.too_big(svc, &queue, &leased.got.stored, held, out.client_max)
                .await;
            return None;
        }
        self.inflight.insert(
            id,
            Inflight {
                queue,
                position: key.1,
                held,
            },
        );
        out.send(&packet)
            .await
            .err()
            .map(|e| self.write_failed(out, &e))
    }

    /// A message longer than the device's Maximum Packet Size: it cannot be
    /// sent (5.0 3.1.2.11.4), so it goes to the dead-letter queue with 2218
    /// MQRC_MSG_TOO_BIG_FOR_CHANNEL and leaves the device queue.
    async fn too_big(
        &self,
        svc: &Service,
        queue: &str,
        stored: &crate::mqi::GetResult,
        held: HeldLease,
        max: usize,
    ) {
        tracing::warn!(client_id = %self.client_id, queue = %queue, max_packet_size = max, "MQTT message longer than the device's Maximum Packet Size; dead-lettered");
        let dl = DeadLetterPut {
            message: Outgoing {
                md: stored.md.clone(),
                charset: stored.charset,
                data: stored.data.clone(),
            },
            reason: Mqrc::MSG_TOO_BIG_FOR_CHANNEL,
            dest_q: queue.chars().take(48).collect(),
            dest_q_mgr: self.client_id.clone(),
        };
        match svc.devices.mqi().dead_letter(dl).await {
            Ok(_) => {
                let _ = held.ack().await;
            }
            Err(e) => {
                tracing::error!(client_id = %self.client_id, queue = %queue, error = %e, "could not dead-letter the message; it stays on the device queue");
                let _ = held.backout().await;
            }
        }
    }

    /// Ends the connection: pullers stop, every message not acknowledged
    /// goes back to its queue (remembered for the session with its Packet
    /// Identifier), the Will Message is put when due, the session is kept
    /// or dropped.
    async fn finish(mut self, svc: &Service, end: End) {
        for (_, h) in self.pullers.drain() {
            h.abort();
        }
        self.rx.close();
        while let Some(p) = self.rx.recv().await {
            if let Pulled::Message { held, .. } = *p {
                let _ = held.backout().await;
            }
        }
        for (id, f) in self.inflight.drain() {
            self.session.resend.insert((f.queue, f.position), id);
            let _ = f.held.backout().await;
        }
        let will_due = match end {
            End::Disconnect { will } => will,
            End::Abnormal => true,
            End::Stopping => false,
        };
        let mut will_timer = None;
        if let Some(w) = self.will.take().filter(|_| will_due) {
            let delay = w
                .properties
                .find(|p| match p {
                    Property::WillDelayInterval(s) => Some(Duration::from_secs(u64::from(*s))),
                    _ => None,
                })
                .unwrap_or_default();
            // 5.0 3.1.3.2.2: the will is published after its delay or when
            // the session ends, whichever comes first.
            let delay = self.expiry.map_or(delay, |e| delay.min(e));
            if delay.is_zero() {
                put_will(svc, &self.client_id, w).await;
            } else {
                let token = CancellationToken::new();
                will_timer = Some(token.clone());
                let (mqi, client, queue) = (
                    svc.devices.mqi().clone(),
                    self.client_id.clone(),
                    svc.config.will_queue.clone(),
                );
                svc.tasks.spawn_timer(async move {
                    tokio::select! {
                        () = token.cancelled() => {}
                        () = tokio::time::sleep(delay) => put_will_with(&mqi, &client, &queue, w).await,
                    }
                });
            }
        }
        let kept = (self.expiry != Some(Duration::ZERO)).then_some(self.session);
        svc.sessions
            .release(&self.client_id, self.id, kept, self.expiry, will_timer);
        tracing::info!(peer = %self.peer, client_id = %self.client_id, "MQTT device disconnected");
        drop(self.claim.released);
    }
}

async fn put_will(svc: &Service, client: &str, w: Will) {
    put_will_with(svc.devices.mqi(), client, &svc.config.will_queue, w).await;
}

/// Puts Will Message `w` of device `client` (to `will_queue` when set).
async fn put_will_with(mqi: &crate::mqi::Mqi, client: &str, will_queue: &str, w: Will) {
    let fixed = (!will_queue.is_empty()).then_some(will_queue);
    match publish::put(
        mqi,
        client,
        &w.topic,
        fixed,
        w.qos,
        &w.properties,
        w.payload.clone(),
    )
    .await
    {
        Outcome::Put { queue } => {
            tracing::info!(client_id = %client, queue = %queue, "MQTT Will Message put");
        }
        Outcome::Refused(r) => {
            tracing::warn!(client_id = %client, topic = ?w.topic, reason = %r.code, error = %r.message, "MQTT Will Message refused; dead-lettered");
            if let Err(e) =
                publish::dead_letter(mqi, client, &w.topic, w.qos, &w.properties, w.payload, &r)
                    .await
            {
                tracing::error!(client_id = %client, error = %e, "MQTT Will Message could not be dead-lettered");
            }
        }
        Outcome::Stopping(e) => {
            tracing::warn!(client_id = %client, error = %e, "MQTT Will Message not put: the gateway is stopping");
        }
    }
}

/// Makes a PUBLISH to a device fit the device's Maximum Packet Size (5.0
/// 3.1.2.11.4) by leaving out what the gateway added to the data: first
/// the MQMD's User Properties but `MsgId` (by which a device recognises a
/// redelivery), then every property. False when even the data alone does
/// not fit (docs/mqtt.md "Message descriptor").
fn fit_publish(packet: &mut Packet, level: Level, max: usize) -> bool {
    let shrink: [fn(&Property) -> bool; 2] = [
        |p| !matches!(p, Property::UserProperty(k, _) if k != "MsgId"),
        |_| false,
    ];
    for keep in shrink {
        if encoded_len(packet, level) <= max {
            return true;
        }
        if let Packet::Publish(p) = packet {
            p.properties.0.retain(keep);
        }
    }
    encoded_len(packet, level) <= max
}

/// A write abandoned because the connection must end now.
fn aborted(why: &str) -> std::io::Error {
    std::io::Error::new(std::io::ErrorKind::ConnectionAborted, why.to_string())
}

/// Sleeps for `d`; never ends for `None`.
async fn sleep_for(d: Option<Duration>) {
    match d {
        Some(d) => tokio::time::sleep(d).await,
        None => std::future::pending().await,
    }
}

/// `p` without its Reason String and User Properties (what a server may
/// leave out of a packet that would otherwise exceed the client's Maximum
/// Packet Size, 5.0 3.1.2.11.4).
fn without_problem_info(p: &Packet) -> Packet {
    let mut p = p.clone();
    let props = match &mut p {
        Packet::Connack(c) => Some(&mut c.properties),
        Packet::Puback(a) | Packet::Pubrec(a) | Packet::Pubrel(a) | Packet::Pubcomp(a) => {
            a.properties.as_mut()
        }
        Packet::Suback(s) | Packet::Unsuback(s) => Some(&mut s.properties),
        Packet::Disconnect(d) | Packet::Auth(d) => d.properties.as_mut(),
        _ => None,
    };
    if let Some(props) = props {
        props
            .0
            .retain(|x| !matches!(x, Property::ReasonString(_) | Property::UserProperty(..)));
    }
    p
}

async fn sleep_until(deadline: Option<Instant>) {
    match deadline {
        Some(d) => tokio::time::sleep_until(d).await,
        None => std::future::pending().await,
    }
}

async fn changed(w: Option<&mut DeviceWatch>) {
    match w {
        Some(w) => w.changed().await,
        None => std::future::pending().await,
    }
}

//! The routing daemon's tasks (docs/rendezvous.md "Routing between
//! gateways"): one router task that owns the state machine
//! ([`RouterCore`]) with the gateway's bus listener and interest watch, and
//! one task per link that dials or accepts, does the handshake and then
//! only moves frames between the socket and the router task. Dialled links
//! are dialled again with a growing delay.

use std::net::SocketAddr;
use std::sync::Arc;
use std::sync::atomic::{AtomicU64, Ordering};
use std::time::{Duration, Instant, SystemTime, UNIX_EPOCH};

use crate::security::tls::{PeerIdentity, Stream, TlsServer};
use bytes::Bytes;
use futures_util::{SinkExt, StreamExt};
use serde_json::Value as Json;
use tokio::net::{TcpListener, TcpStream};
use tokio::sync::{mpsc, oneshot, watch};
use tokio_util::codec::Framed;

use super::config::RoutingConfig;
use super::core::{Action, Identity, LinkNo, Peer, RouterCore};
use super::frame::{HANDSHAKE_MAX_FRAME, LinkCodec, LinkFrame};
use crate::rv::advisory::Advisory;
use crate::rv::{Bus, InterestWatch, LinkId, Listener, ListenerOptions, Origin};
use crate::tasks::{TaskGroup, Tasks};

/// How long a handshake may take, each way.
const HANDSHAKE_TIMEOUT: Duration = Duration::from_secs(10);
/// Frames waiting to be written to one link.
const SEND_QUEUE: usize = 4096;
/// Messages the router's bus listener holds before the oldest is dropped.
const LISTENER_QUEUE: usize = 65_536;
/// How often the router does its periodic work.
const TICK: Duration = Duration::from_millis(500);
/// A dialled link that stayed up this long starts the next dial delay
/// from the shortest again.
const STABLE: Duration = Duration::from_secs(10);

/// A running routing daemon, from [`start`]; clones share it.
#[derive(Clone, Debug)]
pub struct Routing {
    router: String,
    listen: Option<SocketAddr>,
    commands: mpsc::Sender<oneshot::Sender<Json>>,
}

impl Routing {
    /// The router name.
    pub fn router(&self) -> &str {
        &self.router
    }

    /// Where neighbors connect (the port chosen for port 0), if it listens.
    pub fn listen_addr(&self) -> Option<SocketAddr> {
        self.listen
    }

    /// The routing status (docs/rendezvous.md "Routing status"); `None`
    /// once the router has stopped.
    pub async fn status(&self) -> Option<Json> {
        let (tx, rx) = oneshot::channel();
        self.commands.send(tx).await.ok()?;
        rx.await.ok()
    }
}

/// Resolves once `stop` is true (the gateway is stopping).
async fn stopped(stop: &mut watch::Receiver<bool>) {
    let _ = stop.wait_for(|s| *s).await;
}

/// Binds `rv.routing.listen`, if set.
///
/// Errors: the address and the operating system's error.
pub async fn bind(
    config: &RoutingConfig,
) -> Result<Option<TcpListener>, (SocketAddr, std::io::Error)> {
    match config.listen {
        Some(addr) => TcpListener::bind(addr)
            .await
            .map(Some)
            .map_err(|e| (addr, e)),
        None => Ok(None),
    }
}

/// What a link task tells the router task.
enum Event {
    Up {
        link: LinkNo,
        peer: Peer,
        writer: mpsc::Sender<LinkFrame>,
    },
    Frame {
        link: LinkNo,
        frame: LinkFrame,
    },
    Down {
        link: LinkNo,
        reason: String,
    },
}

/// What every link task shares.
struct Shared {
    identity: Identity,
    events: mpsc::Sender<Event>,
    next_link: AtomicU64,
    stop: watch::Receiver<bool>,
    /// `rv.routing.tls`: accepted links start with a TLS handshake.
    tls: Option<Arc<TlsServer>>,
    /// Each neighbor's SSLPEER filter, by router name.
    sslpeers: std::collections::HashMap<String, crate::security::tls::SslPeer>,
    /// `security.limits`: accepted links count against its connections per
    /// listener and per peer (docs/security.md "Limits").
    limits: Arc<crate::security::limits::Limits>,
}

/// The TLS of the routing daemon: its listener's, and each dialled
/// neighbor's client, by router name.
#[derive(Default)]
pub(crate) struct RoutingTls {
    /// `rv.routing.tls`.
    pub listener: Option<Arc<TlsServer>>,
    /// `rv.routing.neighbors[].tls`.
    pub neighbors: std::collections::HashMap<String, Arc<crate::security::tls::TlsClient>>,
}

/// The largest frame of the gateway's links: the largest message with room
/// for the hop list, and at least room for large announcements.
fn max_frame(bus: &Bus) -> usize {
    bus.config().max_message_bytes.max(4 << 20) + 64 * 1024
}

/// Starts the routing daemon of `config` on `bus`: the router task, the
/// accepting task on `listener` and a dialling task per neighbor with a
/// `connect` address, all in `tasks`' channel group, ending when `stop`
/// turns true or the bus closes. Accepted links count against `limits`.
pub(crate) fn start(
    config: &RoutingConfig,
    bus: &Bus,
    (listener, tls): (Option<TcpListener>, RoutingTls),
    limits: Arc<crate::security::limits::Limits>,
    tasks: &Tasks,
    stop: watch::Receiver<bool>,
) -> Result<Routing, crate::rv::BusError> {
    let link = bus.new_link();
    let own = format!("_RVRD.{}", config.router);
    // The listener always holds the router's own _RVRD. subject, on which
    // nothing is published: a listener needs one subject.
    let bus_listener = bus.listen(
        &[&own],
        ListenerOptions {
            name: format!("routing daemon {}", config.router),
            queue_len: Some(LISTENER_QUEUE),
            link: Some(link),
        },
    )?;
    let watch = bus.watch_interest(Some(link));
    let inbox_id = bus
        .inbox_prefix()
        .trim_start_matches("_INBOX.")
        .trim_end_matches('.')
        .to_string();
    let incarnation = SystemTime::now()
        .duration_since(UNIX_EPOCH)
        .map(|d| d.as_millis() as u64)
        .unwrap_or(1);
    let core = RouterCore::new(config, &inbox_id, incarnation, *bus.limits());
    let identity = Identity::of(config, max_frame(bus));
    let (events_tx, events_rx) = mpsc::channel(1024);
    let (commands_tx, commands_rx) = mpsc::channel(16);
    let shared = Arc::new(Shared {
        identity,
        events: events_tx,
        next_link: AtomicU64::new(1),
        stop: stop.clone(),
        tls: tls.listener,
        sslpeers: config
            .neighbors
            .iter()
            .filter_map(|n| n.sslpeer.clone().map(|s| (n.name.clone(), s)))
            .collect(),
        limits,
    });
    let listen = listener.as_ref().and_then(|l| l.local_addr().ok());
    let router = RouterTask {
        core,
        bus: bus.clone(),
        link,
        listener: bus_listener,
        watch,
        writers: std::collections::HashMap::new(),
        started: Instant::now(),
    };
    tasks.spawn(
        TaskGroup::Channels,
        router.run(events_rx, commands_rx, stop.clone()),
    );
    if let Some(l) = listener {
        tasks.spawn(
            TaskGroup::Channels,
            accept_loop(l, Arc::clone(&shared), tasks.clone()),
        );
    }
    for n in &config.neighbors {
        if let Some(addr) = &n.connect {
            tasks.spawn(
                TaskGroup::Channels,
                dial_loop(
                    n.name.clone(),
                    addr.clone(),
                    tls.neighbors
                        .get(&n.name)
                        .map(|client| crate::security::tls::ClientTls {
                            client: Arc::clone(client),
                            sslpeer: n.sslpeer.clone(),
                        }),
                    Duration::from_millis(config.reconnect_min_ms),
                    Duration::from_millis(config.reconnect_max_ms),
                    Arc::clone(&shared),
                ),
            );
        }
    }
    tracing::info!(router = %config.router, network = %config.network_name(), listen = ?listen, "routing daemon started");
    Ok(Routing {
        router: config.router.clone(),
        listen,
        commands: commands_tx,
    })
}

/// The router task's state.
struct RouterTask {
    core: RouterCore,
    bus: Bus,
    link: LinkId,
    listener: Listener,
    watch: InterestWatch,
    writers: std::collections::HashMap<LinkNo, mpsc::Sender<LinkFrame>>,
    started: Instant,
}

impl RouterTask {
    fn now(&self) -> u64 {
        self.started.elapsed().as_millis() as u64
    }

    async fn run(
        mut self,
        mut events: mpsc::Receiver<Event>,
        mut commands: mpsc::Receiver<oneshot::Sender<Json>>,
        mut stop: watch::Receiver<bool>,
    ) {
        let mut tick = tokio::time::interval(TICK);
        loop {
            let actions = tokio::select! {
                _ = stopped(&mut stop) => break,
                d = self.listener.recv() => match d {
                    Some(d) => self.local(d),
                    None => break,
                },
                c = self.watch.next() => match c {
                    Some(c) => {
                        self.core.local_interest(c.subject, c.listening);
                        // Take every change already waiting, then announce once.
                        while let Some(c) = self.watch.try_next() {
                            self.core.local_interest(c.subject, c.listening);
                        }
                        let now = self.now();
                        self.core.flush(now)
                    }
                    None => break,
                },
                e = events.recv() => match e {
                    Some(e) => self.event(e),
                    None => break,
                },
                c = commands.recv() => {
                    if let Some(reply) = c {
                        let now = self.now();
                        let _ = reply.send(self.core.status(now));
                    }
                    Vec::new()
                }
                _ = tick.tick() => {
                    let now = self.now();
                    self.core.tick(now)
                }
            };
            self.carry_out(actions);
        }
        for (_, w) in self.writers.drain() {
            let _ = w.try_send(LinkFrame::Close("the gateway is stopping".into()));
        }
    }

    fn local(&mut self, d: crate::rv::Delivery) -> Vec<Action> {
        if d.subject() == "_RV.ERROR.SYSTEM.CLIENT.SLOWCONSUMER" {
            let lost = d
                .envelope()
                .message
                .get("dropped")
                .and_then(|f| match f.value {
                    mqgate_codecs::rv::msg::Value::U32(n) => Some(n),
                    _ => None,
                })
                .unwrap_or(0);
            tracing::warn!(router = %self.core.router(), lost, "routing daemon fell behind: local messages not forwarded");
            let _ = self.bus.publish_advisory(Advisory::data_loss(
                false,
                false,
                std::net::Ipv4Addr::UNSPECIFIED,
                lost,
            ));
            return Vec::new();
        }
        let now = self.now();
        self.core
            .local_message(d.subject(), Bytes::copy_from_slice(d.encoded()), now)
    }

    fn event(&mut self, e: Event) -> Vec<Action> {
        let now = self.now();
        match e {
            Event::Up { link, peer, writer } => {
                self.writers.insert(link, writer);
                self.core.link_up(link, &peer, now)
            }
            Event::Frame { link, frame } => self.core.frame(link, frame, now),
            Event::Down { link, reason } => {
                self.writers.remove(&link);
                self.core.link_down(link, &reason, now)
            }
        }
    }

    fn carry_out(&mut self, actions: Vec<Action>) {
        for a in actions {
            match a {
                Action::Send { link, frame } => {
                    let Some(w) = self.writers.get(&link) else {
                        continue;
                    };
                    let is_message = matches!(frame, LinkFrame::Message(_));
                    match w.try_send(frame) {
                        Ok(()) => {}
                        Err(mpsc::error::TrySendError::Full(_)) if is_message => {
                            self.core.lost(link, 1);
                        }
                        Err(mpsc::error::TrySendError::Full(_)) => {
                            // An announcement cannot be dropped: start the
                            // link again, which sends the whole table.
                            tracing::warn!(router = %self.core.router(), link, "routing link send queue full: closing it");
                            self.writers.remove(&link);
                        }
                        Err(mpsc::error::TrySendError::Closed(_)) => {}
                    }
                }
                Action::Close { link, reason } => {
                    if let Some(w) = self.writers.remove(&link) {
                        let _ = w.try_send(LinkFrame::Close(reason));
                    }
                }
                Action::Publish(env) => {
                    if let Err(e) = self.bus.publish(env, Origin::Link(self.link)) {
                        tracing::warn!(router = %self.core.router(), error = %e, "routed message refused by the bus");
                    }
                }
                Action::Listen(s) => {
                    if let Err(e) = self.listener.add(&s) {
                        tracing::warn!(router = %self.core.router(), subject = %s, error = %e, "routing daemon cannot listen");
                    }
                }
                Action::Unlisten(s) => {
                    self.listener.remove(&s);
                }
                Action::Advisory(a) => {
                    let _ = self.bus.publish_advisory(a);
                }
            }
        }
    }
}

/// Accepts neighbors' connections until the gateway stops.
async fn accept_loop(listener: TcpListener, shared: Arc<Shared>, tasks: Tasks) {
    let mut stop = shared.stop.clone();
    loop {
        let accepted = tokio::select! {
            _ = stopped(&mut stop) => return,
            a = listener.accept() => a,
        };
        match accepted {
            Ok((stream, peer)) => {
                let permit = shared
                    .limits
                    .admit(crate::metrics::Listener::RvRouting, peer.ip());
                let open = crate::metrics::accepted(crate::metrics::Listener::RvRouting);
                let link = accepted_link(stream, peer, permit, Arc::clone(&shared));
                tasks.spawn(TaskGroup::Channels, async move {
                    let _open = open;
                    link.await
                });
            }
            Err(e) => {
                tracing::warn!(error = %e, "routing daemon: accept failed");
                tokio::time::sleep(Duration::from_millis(100)).await;
            }
        }
    }
}

type LinkFramed = Framed<Stream, LinkCodec>;

/// The first frame, within the handshake timeout.
async fn first_frame(framed: &mut LinkFramed) -> Result<LinkFrame, String> {
    match tokio::time::timeout(HANDSHAKE_TIMEOUT, framed.next()).await {
        Err(_) => Err("no handshake within 10 s".into()),
        Ok(None) => Err("the connection closed during the handshake".into()),
        Ok(Some(Err(e))) => Err(e.to_string()),
        Ok(Some(Ok(f))) => Ok(f),
    }
}

/// Routing links refused at a limit, per limit (src/log_limit.rs).
static OVER_LIMIT: crate::log_limit::Repeats = crate::log_limit::Repeats::per_minute();

/// A connection a neighbor dialled: its HELLO checked and answered, then
/// the link runs. Over a limit (`permit` an error), the HELLO is answered
/// with a CLOSE naming the limit, as a message channel's is
/// (docs/security.md "Limits").
async fn accepted_link(
    stream: TcpStream,
    peer: SocketAddr,
    permit: Result<crate::security::limits::Permit, crate::security::limits::Exceeded>,
    shared: Arc<Shared>,
) {
    let _ = stream.set_nodelay(true);
    let (stream, identity) = match &shared.tls {
        None => (Stream::Plain(stream), PeerIdentity::plain(peer)),
        Some(tls) => match {
            // A stop does not wait for a handshake.
            let mut stopping = shared.stop.clone();
            tokio::select! {
                r = tls.accept(stream, peer) => r,
                _ = stopped(&mut stopping) => return,
            }
        } {
            Ok(accepted) => accepted,
            Err(e) => {
                tracing::warn!(%peer, error = %e, "routing link TLS handshake failed");
                return;
            }
        },
    };
    let mut framed = Framed::new(stream, LinkCodec::default());
    let hello = match first_frame(&mut framed).await {
        Ok(LinkFrame::Hello(h)) => h,
        Ok(other) => {
            let _ = framed
                .send(LinkFrame::Close(format!(
                    "expected HELLO, got {}",
                    other.name()
                )))
                .await;
            return;
        }
        Err(e) => {
            tracing::debug!(%peer, error = %e, "routing link handshake failed");
            return;
        }
    };
    let _permit = match permit {
        Ok(p) => p,
        Err(e) => {
            crate::metrics::listeners::refused(crate::metrics::listeners::Refusal::Limit);
            if let Some(suppressed) = OVER_LIMIT.admit(e.setting) {
                tracing::warn!(%peer, router = %hello.router, limit = e.setting, value = e.limit,
                    suppressed, "routing link connection refused: {e}");
            }
            let reason = format!(
                "{e} ({} MQRC_CHANNEL_NOT_AVAILABLE)",
                mqgate_codecs::mq::Mqrc::CHANNEL_NOT_AVAILABLE.0
            );
            let _ = framed.send(LinkFrame::Close(reason)).await;
            return;
        }
    };
    if let Err(reason) = shared.identity.check_hello(&hello) {
        tracing::warn!(%peer, router = %hello.router, %reason, "routing link refused");
        let _ = framed.send(LinkFrame::Close(reason)).await;
        return;
    }
    if let Some(filter) = shared.sslpeers.get(&hello.router)
        && !identity.dn.as_deref().is_some_and(|dn| filter.matches(dn))
    {
        let reason = format!(
            "the certificate subject DN {:?} does not match SSLPEER {:?} of neighbor {} (2035 MQRC_NOT_AUTHORIZED)",
            identity.dn.as_deref().unwrap_or(""),
            filter.as_str(),
            hello.router
        );
        tracing::warn!(%peer, router = %hello.router, %reason, "routing link refused");
        let _ = framed.send(LinkFrame::Close(reason)).await;
        return;
    }
    if framed
        .send(LinkFrame::HelloAck(shared.identity.hello_ack()))
        .await
        .is_err()
    {
        return;
    }
    let heartbeat = shared
        .identity
        .heartbeat_ms
        .max(u64::from(hello.heartbeat_ms));
    let peer = Peer {
        neighbor: hello.router.clone(),
        network: hello.network,
        dialer: hello.router,
        address: Some(peer),
        max_frame: hello.max_frame as usize,
    };
    run_link(framed, peer, heartbeat, &shared).await;
}

/// Dials `neighbor` at `addr` again and again, with a delay from `min`
/// doubling up to `max` (from `min` again after a link that stayed up).
async fn dial_loop(
    neighbor: String,
    addr: String,
    tls: Option<crate::security::tls::ClientTls>,
    min: Duration,
    max: Duration,
    shared: Arc<Shared>,
) {
    let mut stop = shared.stop.clone();
    let mut delay = min;
    loop {
        if *stop.borrow() {
            return;
        }
        let started = Instant::now();
        match dial_once(&neighbor, &addr, tls.as_ref(), &shared).await {
            Ok(()) if started.elapsed() >= STABLE => delay = min,
            Ok(()) => {}
            Err(e) => tracing::debug!(neighbor, addr, error = %e, "routing link: dial failed"),
        }
        tokio::select! {
            _ = stopped(&mut stop) => return,
            _ = tokio::time::sleep(delay) => {}
        }
        delay = (delay * 2).min(max);
    }
}

/// One dial: connect (over TLS when `tls` is given, the neighbor's
/// certificate checked against its SSLPEER), handshake, run the link until
/// it goes down.
async fn dial_once(
    neighbor: &str,
    addr: &str,
    tls: Option<&crate::security::tls::ClientTls>,
    shared: &Arc<Shared>,
) -> Result<(), String> {
    let stream = tokio::time::timeout(HANDSHAKE_TIMEOUT, TcpStream::connect(addr))
        .await
        .map_err(|_| format!("connecting to {addr} took over 10 s"))?
        .map_err(|e| format!("connecting to {addr}: {e}"))?;
    let _ = stream.set_nodelay(true);
    let peer = stream.peer_addr().ok();
    let stream = match (tls, peer) {
        (None, _) => Stream::Plain(stream),
        (Some(tls), Some(at)) => {
            // The host part of `HOST:PORT` is the name the certificate must carry.
            let host = addr.rsplit_once(':').map_or(addr, |(h, _)| h);
            let host = host.trim_start_matches('[').trim_end_matches(']');
            match tls.connect(stream, host, at).await {
                Ok((s, _)) => s,
                Err(Ok(e)) => return Err(format!("TLS handshake with {addr} failed: {e}")),
                Err(Err(text)) => return Err(format!("{text} (2035 MQRC_NOT_AUTHORIZED)")),
            }
        }
        (Some(_), None) => return Err(format!("{addr}: the peer address is unknown")),
    };
    let mut framed = Framed::new(stream, LinkCodec::default());
    framed
        .send(LinkFrame::Hello(shared.identity.hello(neighbor)))
        .await
        .map_err(|e| e.to_string())?;
    let ack = match first_frame(&mut framed).await? {
        LinkFrame::HelloAck(a) => a,
        LinkFrame::Close(reason) => return Err(format!("{neighbor} refused the link: {reason}")),
        other => return Err(format!("expected HELLO_ACK, got {}", other.name())),
    };
    shared.identity.check_ack(neighbor, &ack)?;
    let heartbeat = shared
        .identity
        .heartbeat_ms
        .max(u64::from(ack.heartbeat_ms));
    let peer = Peer {
        neighbor: neighbor.to_string(),
        network: ack.network,
        dialer: shared.identity.router.clone(),
        address: peer,
        max_frame: ack.max_frame as usize,
    };
    run_link(framed, peer, heartbeat, shared).await;
    Ok(())
}

/// A link after its handshake: tells the router task it is up, then moves
/// frames both ways, sends heartbeats when idle, and ends (telling the
/// router task) when either side closes, the connection fails, nothing
/// came for three heartbeat intervals or a write stalls that long.
async fn run_link(mut framed: LinkFramed, mut peer: Peer, heartbeat_ms: u64, shared: &Arc<Shared>) {
    framed.codec_mut().set_max_frame(shared.identity.max_frame);
    let link = shared.next_link.fetch_add(1, Ordering::Relaxed);
    let (tx, mut rx) = mpsc::channel(SEND_QUEUE);
    peer.max_frame = peer.max_frame.max(HANDSHAKE_MAX_FRAME);
    let neighbor = peer.neighbor.clone();
    let up = Event::Up {
        link,
        peer,
        writer: tx,
    };
    if shared.events.send(up).await.is_err() {
        return;
    }
    let hb = Duration::from_millis(heartbeat_ms);
    let dead = hb * 3;
    let mut stop = shared.stop.clone();
    let (mut sink, mut stream) = framed.split();
    let mut last_in = Instant::now();
    let mut beat = tokio::time::interval(hb);
    let reason = loop {
        tokio::select! {
            _ = stopped(&mut stop) => {
                let _ = tokio::time::timeout(
                    Duration::from_millis(200),
                    sink.send(LinkFrame::Close("the gateway is stopping".into())),
                )
                .await;
                break "the gateway is stopping".to_string();
            }
            f = stream.next() => match f {
                Some(Ok(LinkFrame::Close(text))) => break format!("{neighbor} closed the link: {text}"),
                Some(Ok(frame)) => {
                    last_in = Instant::now();
                    if shared.events.send(Event::Frame { link, frame }).await.is_err() {
                        return;
                    }
                }
                Some(Err(e)) => break e.to_string(),
                None => break "the connection closed".to_string(),
            },
            out = rx.recv() => {
                let Some(frame) = out else {
                    break "closed by the router".to_string();
                };
                let closing = matches!(&frame, LinkFrame::Close(_));
                let text = if let LinkFrame::Close(t) = &frame { t.clone() } else { String::new() };
                match tokio::time::timeout(dead, sink.send(frame)).await {
                    Ok(Ok(())) => {}
                    Ok(Err(e)) => break e.to_string(),
                    Err(_) => break format!("writing stalled for {} ms", dead.as_millis()),
                }
                if closing {
                    break format!("closed: {text}");
                }
            }
            _ = beat.tick() => {
                if last_in.elapsed() >= dead {
                    break format!("nothing received for {} ms", dead.as_millis());
                }
                match tokio::time::timeout(dead, sink.send(LinkFrame::Heartbeat)).await {
                    Ok(Ok(())) => {}
                    Ok(Err(e)) => break e.to_string(),
                    Err(_) => break format!("writing stalled for {} ms", dead.as_millis()),
                }
            }
        }
    };
    let _ = shared.events.send(Event::Down { link, reason }).await;
}

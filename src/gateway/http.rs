//! The HTTP server ([`serve`]: hyper's HTTP/1 connections over the axum
//! router) and its share of a gateway's tasks. Each connection is a task of
//! its own, and joins the gateway's `Requests` group through its stream
//! ([`TrackedListener`]): the gateway
//! counts it as running until the connection is dropped, and once the group
//! is ended (the drain bound, docs/config.md "Stopping" step 4) the stream
//! fails every read, which ends a connection stalled on a client or reading
//! a request head. A request still running then is answered at once by
//! [`end_requests`] (503 / 2162 MQRC_Q_MGR_STOPPING): the stream still
//! writes for [`ANSWER_GRACE`], so that answer goes out, and when hyper
//! closes the connection after it, the stream sends its FIN and reads
//! what the client still sends until the client closes too (a lingering
//! close, RFC 9112 section 9.6: closing with unread data would reset the
//! connection, and the client could lose the answer), within the same
//! grace. Past it every write fails too. The stream also rewrites the answers hyper writes
//! itself for a request it cannot parse (an empty 400, 414 or 431) as the
//! JSON error of docs/http-api.md.
//!
//! Connection timeouts (docs/config.md `http`, against slow-header
//! "slowloris" clients that hold connections open with a request that never
//! ends): hyper's header read timeout, which runs from the moment a
//! connection waits for a request (accepted, or the previous answer sent)
//! until the request head is complete, is `http.idle_timeout_ms`; the
//! stream adds `http.header_read_timeout_ms` from the first byte of a
//! request head to its end ([`Phase`]), answered 408 Request Timeout as far
//! as the socket takes it before the close; the idle timeout closes
//! without an answer.

use crate::http::ApiError;
use crate::log_limit::Repeats;
use crate::security::limits::{Exceeded, Limits, Permit};
use crate::security::tls::{PeerIdentity, Stream, TlsServer};
use crate::tasks::{Membership, TaskGroup, Tasks};
use axum::Router;
use axum::extract::Request;
use axum::middleware::Next;
use axum::response::{IntoResponse, Response};
use mqgate_codecs::mq::Mqrc;
use std::future::Future;
use std::io;
use std::net::SocketAddr;
use std::pin::Pin;
use std::sync::Arc;
use std::sync::atomic::{AtomicU64, Ordering};
use std::task::{Context, Poll, ready};
use std::time::Duration;
use tokio::io::{AsyncRead, AsyncWrite, ReadBuf};
use tokio::net::{TcpListener, TcpStream};
use tokio_util::sync::{CancellationToken, WaitForCancellationFutureOwned};

/// The connection timeouts of `http` (docs/config.md).
#[derive(Clone, Copy, Debug)]
pub(super) struct Timeouts {
    /// From the first byte of a request head to its end.
    pub header_read: Duration,
    /// From waiting for a request to its head being complete.
    pub idle: Duration,
}

impl Timeouts {
    pub(super) fn of(http: &crate::config::HttpConfig) -> Timeouts {
        Timeouts {
            header_read: Duration::from_millis(http.header_read_timeout_ms),
            idle: Duration::from_millis(http.idle_timeout_ms),
        }
    }
}

/// Serves `app` on `listener` until `stop` fires, one task per connection
/// (HTTP/1.1 with keep-alive, as axum's own server), over TLS when `tls`
/// is given (the handshake in the connection's task; one that fails is
/// logged at WARN, once a minute per peer address and error, and closed). Once `stop` fires no
/// connection is accepted any more, and each open one finishes the request
/// it is handling and closes (hyper's graceful shutdown). Never fails: a
/// failed accept is retried by the listener.
pub(super) async fn serve(
    mut listener: TrackedListener,
    app: Router,
    timeouts: Timeouts,
    tls: Option<Arc<TlsServer>>,
    stop: CancellationToken,
) -> io::Result<()> {
    use axum::serve::Listener;
    loop {
        let (stream, peer) = tokio::select! {
            accepted = listener.accept() => accepted,
            () = stop.cancelled() => return Ok(()),
        };
        let app = app.clone();
        let tls = tls.clone();
        let stop = stop.clone();
        // The task, not only its stream, is a member of `Requests`: the
        // stream is dropped before the service (hyper drops a connection's
        // I/O first), and the service holds the router and through it the
        // queue manager and its store. Declared first in the task, so
        // dropped last: a stop that saw the group empty finds no
        // connection still holding the store.
        let held = listener.tasks.join(TaskGroup::Requests);
        tokio::spawn(async move {
            let _held = held;
            let (mut stream, client) = match tls {
                None => (stream, None),
                Some(tls) => {
                    // A stop does not wait for a handshake (at most
                    // HANDSHAKE_TIMEOUT otherwise).
                    let started = tokio::select! {
                        r = stream.start_tls(&tls, peer) => r,
                        () = stop.cancelled() => return,
                    };
                    match started {
                        Ok((s, identity)) => (s, identity.dn.map(Arc::<str>::from)),
                        Err(e) => {
                            // A client that keeps retrying with an untrusted
                            // certificate: one line a minute per address and error.
                            if let Some(suppressed) =
                                TLS_FAILED.admit(&format!("{} {e}", peer.ip()))
                            {
                                tracing::warn!(peer = %peer, error = %e,
                                    detail = crate::security::tls::rustls_detail(&e), suppressed,
                                    "HTTPS listener: TLS handshake failed");
                            }
                            return;
                        }
                    }
                }
            };
            let phase = Arc::new(Phase::default());
            stream.watch_heads(Arc::clone(&phase), timeouts.header_read);
            let service = Counted {
                inner: hyper_util::service::TowerToHyperService::new(app),
                phase,
                client,
            };
            let mut builder = hyper::server::conn::http1::Builder::new();
            builder
                .timer(hyper_util::rt::TokioTimer::new())
                .header_read_timeout(timeouts.idle);
            let conn = builder.serve_connection(hyper_util::rt::TokioIo::new(stream), service);
            tokio::pin!(conn);
            tokio::select! {
                r = conn.as_mut() => {
                    if let Err(e) = r {
                        tracing::debug!(error = %e, "HTTP connection ended");
                    }
                    return;
                }
                () = stop.cancelled() => conn.as_mut().graceful_shutdown(),
            }
            if let Err(e) = conn.await {
                tracing::debug!(error = %e, "HTTP connection ended");
            }
        });
    }
}

/// Where a connection is between requests, shared by its stream and its
/// service: the stream starts the header read clock at the first byte of a
/// request head and stops it once the service was called for it.
#[derive(Debug, Default)]
pub(super) struct Phase {
    /// Requests handed to the service so far.
    started: AtomicU64,
    /// Requests whose answer is not yet made.
    busy: AtomicU64,
}

/// The router as hyper's service, counting requests in its [`Phase`], and
/// giving each request the subject DN of the connection's client
/// certificate ([`crate::http::auth::ClientCertificate`]).
struct Counted<S> {
    inner: S,
    phase: Arc<Phase>,
    client: Option<Arc<str>>,
}

/// Marks a request's answer as made when dropped (done or abandoned).
struct Answered(Arc<Phase>);

impl Drop for Answered {
    fn drop(&mut self) {
        self.0.busy.fetch_sub(1, Ordering::SeqCst);
    }
}

impl<S, B> hyper::service::Service<hyper::Request<B>> for Counted<S>
where
    S: hyper::service::Service<hyper::Request<B>>,
    S::Future: Send + 'static,
{
    type Response = S::Response;
    type Error = S::Error;
    type Future = Pin<Box<dyn Future<Output = Result<S::Response, S::Error>> + Send>>;

    fn call(&self, mut req: hyper::Request<B>) -> Self::Future {
        if let Some(dn) = &self.client {
            req.extensions_mut()
                .insert(crate::http::auth::ClientCertificate(Arc::clone(dn)));
        }
        self.phase.busy.fetch_add(1, Ordering::SeqCst);
        self.phase.started.fetch_add(1, Ordering::SeqCst);
        let answered = Answered(Arc::clone(&self.phase));
        let fut = self.inner.call(req);
        Box::pin(async move {
            let r = fut.await;
            drop(answered);
            r
        })
    }
}

/// The most a connection reads at once while it reads a request head
/// ([`TrackedStream`]'s `poll_read`), in bytes.
/// Failed accepts of the HTTP listener (src/log_limit.rs).
static ACCEPT_FAILED: Repeats = Repeats::per_minute();

const HEAD_READ_CHUNK: usize = 16 * 1024;

/// The HTTP listener: accepts like a `TcpListener`, each connection a
/// member of the gateway's `Requests` group.
pub(super) struct TrackedListener {
    inner: TcpListener,
    tasks: Tasks,
    limits: Arc<Limits>,
}

impl TrackedListener {
    pub(super) fn new(inner: TcpListener, tasks: Tasks, limits: Arc<Limits>) -> Self {
        TrackedListener {
            inner,
            tasks,
            limits,
        }
    }
}

/// Failed TLS handshakes, per peer address and error (src/log_limit.rs).
static TLS_FAILED: Repeats = Repeats::per_minute();

/// Connections refused at a limit, per limit (src/log_limit.rs).
static OVER_LIMIT: Repeats = Repeats::per_minute();

/// The answer to a request head that took longer than
/// `http.header_read_timeout_ms`: 408 with the JSON error of
/// docs/http-api.md, 2009 MQRC_CONNECTION_BROKEN (the gateway ends the
/// connection), `text` and `"limit": "http.header_read_timeout_ms"`.
fn late_head_answer(text: &str) -> Vec<u8> {
    let mut body = crate::http::error_body(Mqrc::CONNECTION_BROKEN, text);
    body["limit"] = serde_json::Value::from("http.header_read_timeout_ms");
    let body = body.to_string();
    format!(
        "HTTP/1.1 408 Request Timeout\r\ncontent-type: application/json\r\ncontent-length: {}\r\nconnection: close\r\n\r\n{body}",
        body.len()
    )
    .into_bytes()
}

/// A connection over a limit (docs/security.md "Limits"): answered 429 Too
/// Many Requests (RFC 6585 §4) with the JSON error of docs/http-api.md,
/// 2537 MQRC_CHANNEL_NOT_AVAILABLE and the limit's setting, then closed
/// after reading what the client sent within a second (a close with unread
/// data would reset the connection and could lose the answer).
async fn over_limit(mut stream: TcpStream, peer: SocketAddr, e: Exceeded) {
    use tokio::io::{AsyncReadExt, AsyncWriteExt};
    crate::metrics::listeners::refused(crate::metrics::listeners::Refusal::Limit);
    if let Some(suppressed) = OVER_LIMIT.admit(e.setting) {
        tracing::warn!(%peer, limit = e.setting, value = e.limit, suppressed,
            "HTTP connection refused: {e}");
    }
    let mut body = crate::http::error_body(Mqrc::CHANNEL_NOT_AVAILABLE, &e.to_string());
    body["limit"] = serde_json::Value::from(e.setting);
    let body = body.to_string();
    let answer = format!(
        "HTTP/1.1 429 Too Many Requests\r\ncontent-type: application/json\r\ncontent-length: {}\r\nretry-after: 1\r\nconnection: close\r\n\r\n{body}",
        body.len()
    );
    let _ = tokio::time::timeout(Duration::from_secs(1), async {
        let _ = stream.write_all(answer.as_bytes()).await;
        let _ = stream.shutdown().await;
        let mut sink = [0u8; 4096];
        while let Ok(n) = stream.read(&mut sink).await {
            if n == 0 {
                break;
            }
        }
    })
    .await;
}

impl axum::serve::Listener for TrackedListener {
    type Io = TrackedStream;
    type Addr = SocketAddr;

    async fn accept(&mut self) -> (TrackedStream, SocketAddr) {
        loop {
            match self.inner.accept().await {
                Ok((stream, peer)) => {
                    let permit = match self.limits.admit(crate::metrics::Listener::Http, peer.ip())
                    {
                        Ok(p) => p,
                        Err(e) => {
                            let held = self.tasks.join(TaskGroup::Requests);
                            tokio::spawn(async move {
                                let _held = held;
                                over_limit(stream, peer, e).await
                            });
                            continue;
                        }
                    };
                    let member = self.tasks.join(TaskGroup::Requests);
                    let open = crate::metrics::accepted(crate::metrics::Listener::Http);
                    return (TrackedStream::new(stream, member, open, permit), peer);
                }
                Err(e) => {
                    // E.g. EMFILE: wait a little rather than spin.
                    if let Some(suppressed) = ACCEPT_FAILED.admit("") {
                        tracing::warn!(error = %e, suppressed, "HTTP listener: accept failed");
                    }
                    tokio::time::sleep(Duration::from_millis(100)).await;
                }
            }
        }
    }

    fn local_addr(&self) -> io::Result<SocketAddr> {
        self.inner.local_addr()
    }
}

/// An HTTP connection: a plain or TLS stream counted as a task of the
/// gateway.
pub(super) struct TrackedStream {
    inner: Stream,
    cancel: CancellationToken,
    ended: Pin<Box<WaitForCancellationFutureOwned>>,
    /// Held for the connection's lifetime: the gateway counts it until dropped.
    _member: tokio_util::task::task_tracker::TaskTrackerToken,
    /// Held for the connection's lifetime: counted open for `GET /metrics`.
    _open: crate::metrics::Connection,
    /// Held for the connection's lifetime: counted against the limits.
    _permit: Permit,
    /// An answer of hyper's own rewritten as JSON
    /// ([`crate::http::json_for_automatic_answer`]) and the bytes of it
    /// already sent: written before anything else.
    rewritten: Vec<u8>,
    sent: usize,
    /// The connection's [`Phase`] and header read timeout, once served.
    heads: Option<(Arc<Phase>, Duration)>,
    /// While a request head is being read: the `started` count it waits to
    /// pass, and when the head must be complete.
    head: Option<(u64, Pin<Box<tokio::time::Sleep>>)>,
    /// Once the gateway ended its requests: the end of [`ANSWER_GRACE`].
    grace: Option<Pin<Box<tokio::time::Sleep>>>,
}

/// How long a connection may still write, and wait for its client to
/// close, once the gateway ended its requests at the drain bound: time for
/// the 503 / 2162 answer of a request still running then (docs/config.md
/// "Stopping" step 4). A client that does not read its answer within it is
/// cut off.
pub(super) const ANSWER_GRACE: Duration = Duration::from_secs(1);

impl TrackedStream {
    fn new(
        inner: TcpStream,
        member: Membership,
        open: crate::metrics::Connection,
        permit: Permit,
    ) -> Self {
        TrackedStream {
            inner: Stream::Plain(inner),
            ended: Box::pin(member.cancel.clone().cancelled_owned()),
            cancel: member.cancel,
            _member: member.token,
            _open: open,
            _permit: permit,
            rewritten: Vec::new(),
            sent: 0,
            heads: None,
            head: None,
            grace: None,
        }
    }

    /// The same connection after the TLS handshake of `tls` with the client
    /// at `addr`, and the client with its certificate's subject DN.
    /// Errors: the handshake failed or timed out.
    async fn start_tls(
        mut self,
        tls: &TlsServer,
        addr: SocketAddr,
    ) -> io::Result<(TrackedStream, PeerIdentity)> {
        let plain = std::mem::replace(&mut self.inner, Stream::Closed);
        let Stream::Plain(tcp) = plain else {
            return Err(io::Error::other("the connection is already TLS"));
        };
        let (stream, peer) = tls.accept(tcp, addr).await?;
        self.inner = stream;
        Ok((self, peer))
    }

    /// Times request heads on this connection: one whose first byte came
    /// must end (the service be called for it) within `header_read`.
    fn watch_heads(&mut self, phase: Arc<Phase>, header_read: Duration) {
        self.heads = Some((phase, header_read));
    }

    /// After a read of `got` bytes (or none, `Pending`): starts the header
    /// read clock at the first byte read while no request is being handled,
    /// stops it once the service took the request, and fails the read with
    /// `TimedOut` when the head is late.
    fn time_head(&mut self, cx: &mut Context<'_>, got: Option<usize>) -> io::Result<()> {
        let Some((phase, header_read)) = &self.heads else {
            return Ok(());
        };
        let started = phase.started.load(Ordering::SeqCst);
        if self.head.as_ref().is_some_and(|(n, _)| *n != started) {
            self.head = None;
        }
        match got {
            Some(n) if n > 0 => {
                if self.head.is_none() && phase.busy.load(Ordering::SeqCst) == 0 {
                    let sleep = Box::pin(tokio::time::sleep(*header_read));
                    self.head = Some((started, sleep));
                }
                Ok(())
            }
            _ => {
                let late = self
                    .head
                    .as_mut()
                    .is_some_and(|(_, sleep)| sleep.as_mut().poll(cx).is_ready());
                if late {
                    let text = format!(
                        "the request head did not end within http.header_read_timeout_ms {}",
                        header_read.as_millis()
                    );
                    // 408 Request Timeout (RFC 9110 §15.5.9) before the
                    // close, as far as the socket takes it now: the client
                    // learns which limit ended its request.
                    // One write attempt, plain or TLS; what does not fit
                    // now is not waited for.
                    let answer = late_head_answer(&text);
                    let _ = Pin::new(&mut self.inner).poll_write(cx, &answer);
                    let _ = Pin::new(&mut self.inner).poll_flush(cx);
                    return Err(io::Error::new(io::ErrorKind::TimedOut, text));
                }
                Ok(())
            }
        }
    }

    /// Whether the connection is between requests (no request is with the
    /// service), so what it reads is a request head.
    fn reading_head(&self) -> bool {
        self.heads
            .as_ref()
            .is_some_and(|(phase, _)| phase.busy.load(Ordering::SeqCst) == 0)
    }

    /// Writes what is left of a rewritten answer; ready once all is sent.
    fn poll_rewritten(&mut self, cx: &mut Context<'_>) -> Poll<io::Result<()>> {
        while self.sent < self.rewritten.len() {
            let n = ready!(Pin::new(&mut self.inner).poll_write(cx, &self.rewritten[self.sent..]))?;
            if n == 0 {
                return Poll::Ready(Err(io::ErrorKind::WriteZero.into()));
            }
            self.sent += n;
        }
        Poll::Ready(Ok(()))
    }

    /// Takes `buf` as written when it is an answer hyper made itself for a
    /// request it could not parse (an empty 400, 414 or 431): the JSON form
    /// goes out instead (docs/http-api.md: every answer is JSON).
    fn rewrite(&mut self, cx: &mut Context<'_>, buf: &[u8]) -> Option<Poll<io::Result<usize>>> {
        let json = crate::http::json_for_automatic_answer(buf)?;
        self.rewritten = json;
        self.sent = 0;
        Some(match self.poll_rewritten(cx) {
            Poll::Ready(Err(e)) => Poll::Ready(Err(e)),
            // The rest goes out on the next write, flush or shutdown.
            _ => Poll::Ready(Ok(buf.len())),
        })
    }

    /// Whether the gateway ended its requests; otherwise registers the task
    /// to be woken when it does.
    fn ended(&mut self, cx: &mut Context<'_>) -> bool {
        self.cancel.is_cancelled() || self.ended.as_mut().poll(cx).is_ready()
    }

    /// Reads: an error once the gateway ended its requests.
    fn check_read(&mut self, cx: &mut Context<'_>) -> io::Result<()> {
        if self.ended(cx) {
            Err(stopped())
        } else {
            Ok(())
        }
    }

    /// Writes: an error once [`ANSWER_GRACE`] has passed since the gateway
    /// ended its requests (the task is woken when it passes).
    fn check_write(&mut self, cx: &mut Context<'_>) -> io::Result<()> {
        if !self.ended(cx) {
            return Ok(());
        }
        let grace = self
            .grace
            .get_or_insert_with(|| Box::pin(tokio::time::sleep(ANSWER_GRACE)));
        if grace.as_mut().poll(cx).is_ready() {
            Err(stopped())
        } else {
            Ok(())
        }
    }

    /// The lingering close of a connection the gateway ended: reads and
    /// drops what the client still sends until it closes (EOF or an error)
    /// or [`ANSWER_GRACE`] passes; ready then.
    fn poll_linger(&mut self, cx: &mut Context<'_>) -> Poll<()> {
        let mut scratch = [0u8; 4096];
        loop {
            let mut buf = ReadBuf::new(&mut scratch);
            match Pin::new(&mut self.inner).poll_read(cx, &mut buf) {
                Poll::Ready(Ok(())) if !buf.filled().is_empty() => continue,
                Poll::Ready(_) => return Poll::Ready(()),
                Poll::Pending => {
                    return match self.check_write(cx) {
                        Err(_) => Poll::Ready(()),
                        Ok(()) => Poll::Pending,
                    };
                }
            }
        }
    }
}

/// The error of a connection's reads and writes once the gateway stopped.
fn stopped() -> io::Error {
    io::Error::new(io::ErrorKind::ConnectionAborted, "the gateway stopped")
}

impl AsyncRead for TrackedStream {
    fn poll_read(
        self: Pin<&mut Self>,
        cx: &mut Context<'_>,
        buf: &mut ReadBuf<'_>,
    ) -> Poll<io::Result<()>> {
        let this = self.get_mut();
        if let Err(e) = this.check_read(cx) {
            return Poll::Ready(Err(e));
        }
        let before = buf.filled().len();
        let read = if this.reading_head() && buf.remaining() > HEAD_READ_CHUNK {
            // A request head is read in chunks: hyper refuses a head once
            // its buffer holds `max_buf_size` bytes without the head's end,
            // but checks only between reads, so a read that took a whole
            // oversized head at once (the client wrote it all while the
            // server was busy) let it through and the request was served.
            // With chunks, a head longer than the limit plus one chunk is
            // always refused (431).
            let mut chunk = [0u8; HEAD_READ_CHUNK];
            let mut small = ReadBuf::new(&mut chunk);
            let r = Pin::new(&mut this.inner).poll_read(cx, &mut small);
            if let Poll::Ready(Ok(())) = r {
                buf.put_slice(small.filled());
            }
            r
        } else {
            Pin::new(&mut this.inner).poll_read(cx, buf)
        };
        let got = match &read {
            Poll::Ready(Ok(())) => Some(buf.filled().len() - before),
            Poll::Ready(Err(_)) => return read,
            Poll::Pending => None,
        };
        if let Err(e) = this.time_head(cx, got) {
            return Poll::Ready(Err(e));
        }
        read
    }
}

impl AsyncWrite for TrackedStream {
    fn poll_write(
        self: Pin<&mut Self>,
        cx: &mut Context<'_>,
        buf: &[u8],
    ) -> Poll<io::Result<usize>> {
        let this = self.get_mut();
        if let Err(e) = this.check_write(cx) {
            return Poll::Ready(Err(e));
        }
        ready!(this.poll_rewritten(cx))?;
        if let Some(done) = this.rewrite(cx, buf) {
            return done;
        }
        Pin::new(&mut this.inner).poll_write(cx, buf)
    }

    fn poll_write_vectored(
        self: Pin<&mut Self>,
        cx: &mut Context<'_>,
        bufs: &[io::IoSlice<'_>],
    ) -> Poll<io::Result<usize>> {
        let this = self.get_mut();
        if let Err(e) = this.check_write(cx) {
            return Poll::Ready(Err(e));
        }
        ready!(this.poll_rewritten(cx))?;
        let mut nonempty = bufs.iter().filter(|b| !b.is_empty());
        if let (Some(only), None) = (nonempty.next(), nonempty.next())
            && let Some(done) = this.rewrite(cx, only)
        {
            return done;
        }
        Pin::new(&mut this.inner).poll_write_vectored(cx, bufs)
    }

    fn is_write_vectored(&self) -> bool {
        self.inner.is_write_vectored()
    }

    fn poll_flush(self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<io::Result<()>> {
        let this = self.get_mut();
        if let Err(e) = this.check_write(cx) {
            return Poll::Ready(Err(e));
        }
        ready!(this.poll_rewritten(cx))?;
        Pin::new(&mut this.inner).poll_flush(cx)
    }

    fn poll_shutdown(self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<io::Result<()>> {
        let this = self.get_mut();
        if !this.ended(cx) {
            ready!(this.poll_rewritten(cx))?;
            return Pin::new(&mut this.inner).poll_shutdown(cx);
        }
        if this.check_write(cx).is_ok() {
            // The FIN after the answer, then the lingering close.
            let _ = ready!(Pin::new(&mut this.inner).poll_shutdown(cx));
            ready!(this.poll_linger(cx));
        }
        Poll::Ready(Ok(()))
    }
}

/// Answers a request still running when `cancel` fires with 2162
/// MQRC_Q_MGR_STOPPING (HTTP 503, docs/http-api.md), dropping its handler:
/// the drain bound was reached.
pub(super) fn end_requests(app: Router, cancel: CancellationToken) -> Router {
    app.layer(axum::middleware::from_fn(
        move |req: Request, next: Next| -> Pin<Box<dyn Future<Output = Response> + Send>> {
            let cancel = cancel.clone();
            Box::pin(async move {
                // Biased to the end: once the drain bound is reached the
                // stream fails its reads, and a handler still reading its
                // body would otherwise answer that read error (400 / 2004)
                // instead of 2162.
                tokio::select! {
                    biased;
                    () = cancel.cancelled() => ApiError::new(
                        Mqrc::Q_MGR_STOPPING,
                        "the gateway stopped before the request finished (drain bound reached)",
                    )
                    .into_response(),
                    r = next.run(req) => r,
                }
            })
        },
    ))
}

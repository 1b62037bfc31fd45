//! The HTTP server's share of a gateway's tasks. axum spawns one task per
//! connection itself, so each accepted connection joins the gateway's
//! `Requests` group through its stream ([`TrackedListener`]): the gateway
//! counts it as running until the connection is dropped, and once the group
//! is ended the stream fails every read and write, which ends a connection
//! stalled on a client. A request still running then is answered at once by
//! [`end_requests`]. The stream also rewrites the answers hyper writes
//! itself for a request it cannot parse (an empty 400, 414 or 431) as the
//! JSON error of docs/http-api.md.

use crate::http::ApiError;
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
use std::task::{Context, Poll, ready};
use std::time::Duration;
use tokio::io::{AsyncRead, AsyncWrite, ReadBuf};
use tokio::net::{TcpListener, TcpStream};
use tokio_util::sync::{CancellationToken, WaitForCancellationFutureOwned};

/// The HTTP listener: accepts like a `TcpListener`, each connection a
/// member of the gateway's `Requests` group.
pub(super) struct TrackedListener {
    inner: TcpListener,
    tasks: Tasks,
}

impl TrackedListener {
    pub(super) fn new(inner: TcpListener, tasks: Tasks) -> Self {
        TrackedListener { inner, tasks }
    }
}

impl axum::serve::Listener for TrackedListener {
    type Io = TrackedStream;
    type Addr = SocketAddr;

    async fn accept(&mut self) -> (TrackedStream, SocketAddr) {
        loop {
            match self.inner.accept().await {
                Ok((stream, peer)) => {
                    let member = self.tasks.join(TaskGroup::Requests);
                    return (TrackedStream::new(stream, member), peer);
                }
                Err(e) => {
                    // E.g. EMFILE: wait a little rather than spin.
                    tracing::warn!(error = %e, "HTTP listener: accept failed");
                    tokio::time::sleep(Duration::from_millis(100)).await;
                }
            }
        }
    }

    fn local_addr(&self) -> io::Result<SocketAddr> {
        self.inner.local_addr()
    }
}

/// An HTTP connection: a `TcpStream` counted as a task of the gateway.
pub(super) struct TrackedStream {
    inner: TcpStream,
    cancel: CancellationToken,
    ended: Pin<Box<WaitForCancellationFutureOwned>>,
    /// Held for the connection's lifetime: the gateway counts it until dropped.
    _member: tokio_util::task::task_tracker::TaskTrackerToken,
    /// An answer of hyper's own rewritten as JSON
    /// ([`crate::http::json_for_automatic_answer`]) and the bytes of it
    /// already sent: written before anything else.
    rewritten: Vec<u8>,
    sent: usize,
}

impl TrackedStream {
    fn new(inner: TcpStream, member: Membership) -> Self {
        TrackedStream {
            inner,
            ended: Box::pin(member.cancel.clone().cancelled_owned()),
            cancel: member.cancel,
            _member: member.token,
            rewritten: Vec::new(),
            sent: 0,
        }
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

    /// An error once the gateway ended its requests; otherwise registers
    /// the task to be woken when it does.
    fn check(&mut self, cx: &mut Context<'_>) -> io::Result<()> {
        if self.cancel.is_cancelled() || self.ended.as_mut().poll(cx).is_ready() {
            Err(io::Error::new(
                io::ErrorKind::ConnectionAborted,
                "the gateway stopped",
            ))
        } else {
            Ok(())
        }
    }
}

impl AsyncRead for TrackedStream {
    fn poll_read(
        self: Pin<&mut Self>,
        cx: &mut Context<'_>,
        buf: &mut ReadBuf<'_>,
    ) -> Poll<io::Result<()>> {
        let this = self.get_mut();
        if let Err(e) = this.check(cx) {
            return Poll::Ready(Err(e));
        }
        Pin::new(&mut this.inner).poll_read(cx, buf)
    }
}

impl AsyncWrite for TrackedStream {
    fn poll_write(
        self: Pin<&mut Self>,
        cx: &mut Context<'_>,
        buf: &[u8],
    ) -> Poll<io::Result<usize>> {
        let this = self.get_mut();
        if let Err(e) = this.check(cx) {
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
        if let Err(e) = this.check(cx) {
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
        if let Err(e) = this.check(cx) {
            return Poll::Ready(Err(e));
        }
        ready!(this.poll_rewritten(cx))?;
        Pin::new(&mut this.inner).poll_flush(cx)
    }

    fn poll_shutdown(self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<io::Result<()>> {
        let this = self.get_mut();
        if this.check(cx).is_ok() {
            ready!(this.poll_rewritten(cx))?;
        }
        Pin::new(&mut this.inner).poll_shutdown(cx)
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
                match cancel.run_until_cancelled(next.run(req)).await {
                    Some(r) => r,
                    None => ApiError::new(
                        Mqrc::Q_MGR_STOPPING,
                        "the gateway stopped before the request finished (drain bound reached)",
                    )
                    .into_response(),
                }
            })
        },
    ))
}

//! The server-connection channel: IBM MQ client applications (IBM's C,
//! Java/JMS and .NET clients) connect to mqgate as to a queue manager, over
//! IBM MQ's own client protocol (docs/mq-client-protocol.md; the codec is
//! `mqgate_codecs::fap`). A thin translation onto [`crate::mqi`]: each MQI
//! verb a client sends is the matching call of the queue interface, with
//! MQ's CompCode and Reason in the reply.
//!
//! One task per socket reads segments, runs the handshake (INITIAL_DATA,
//! USERID_DATA, SOCKET_ACTION, HEARTBEAT) and hands each conversation's
//! requests to that conversation's task; one task per socket writes.

pub mod config;
mod connection;
mod conversation;
mod frame;
mod handles;
mod message;
mod negotiate;
mod object;
mod out;
mod spi;

use crate::mqi::Mqi;
use crate::tasks::Tasks;
use config::SvrconnConfig;
use std::sync::Arc;
use std::time::Duration;
use tokio::net::TcpListener;
use tokio_util::sync::CancellationToken;

/// What every connection of the listener shares.
pub(crate) struct Service {
    mqi: Mqi,
    /// Taken by each socket when it is accepted; replaced by a reload
    /// ([`Service::replace_config`]).
    config: crate::security::current::Current<SvrconnConfig>,
    identity: negotiate::ServerIdentity,
    tasks: Tasks,
    /// Cancelled when the gateway stops.
    stop: CancellationToken,
    /// Numbers the connections' ConnectionIds and dynamic queue names.
    next_conn: std::sync::atomic::AtomicU64,
}

impl Service {
    /// The service over `mqi` with `config`.
    pub(crate) fn new(
        mqi: &Mqi,
        config: &SvrconnConfig,
        tasks: Tasks,
        stop: CancellationToken,
    ) -> Arc<Service> {
        let name = mqi.q_mgr_name().to_string();
        Arc::new(Service {
            identity: negotiate::ServerIdentity {
                q_mgr_name: padded(&name),
                q_mgr_identifier: padded(&format!("{name}_mqgate")),
                process_id: std::process::id() as i32,
            },
            mqi: mqi.clone(),
            config: crate::security::current::Current::new(config.clone()),
            tasks,
            stop,
            next_conn: std::sync::atomic::AtomicU64::new(1),
        })
    }
}

impl Service {
    /// Puts `config` in force for the sockets accepted from now on (a
    /// configuration reload, docs/operations.md "Reloading the
    /// configuration"): its channels (names, MAXMSGL, HBINT, SHARECNV,
    /// users, SSLPEER), `max_transmission_size` and `connect_timeout_ms`.
    /// Sockets already open keep the settings they started with. The
    /// listen address and `tls` are the caller's to keep as they are.
    pub(crate) fn replace_config(&self, config: SvrconnConfig) {
        self.config.set(config);
    }
}

/// `s` blank padded (or cut) to `N` bytes.
pub(crate) fn padded<const N: usize>(s: &str) -> [u8; N] {
    let mut out = [b' '; N];
    let b = s.as_bytes();
    let n = b.len().min(N);
    out[..n].copy_from_slice(&b[..n]);
    out
}

/// `b` as text up to its first NUL, trailing blanks removed.
pub(crate) fn trimmed(b: &[u8]) -> String {
    let end = b.iter().position(|&c| c == 0).unwrap_or(b.len());
    String::from_utf8_lossy(&b[..end])
        .trim_end_matches(' ')
        .to_string()
}

/// Accepts connections on `listener` until the service's stop token is
/// cancelled; each connection is a task of the gateway's requests, over
/// TLS when `tls` (`svrconn.tls`) is given: a failed handshake is logged
/// and the connection closed.
pub(crate) async fn serve(
    listener: TcpListener,
    svc: Arc<Service>,
    tls: Option<Arc<crate::security::tls::TlsServer>>,
) {
    loop {
        let accepted = tokio::select! {
            () = svc.stop.cancelled() => return,
            a = listener.accept() => a,
        };
        match accepted {
            Ok((stream, peer)) => {
                let _ = stream.set_nodelay(true);
                let s = Arc::clone(&svc);
                // Over a limit the socket is still served up to its
                // INITIAL_DATA, which is refused (connection.rs).
                let permit = svc
                    .mqi
                    .limits()
                    .admit(crate::metrics::Listener::Svrconn, peer.ip());
                let open = crate::metrics::accepted(crate::metrics::Listener::Svrconn);
                let tls = tls.clone();
                svc.tasks.spawn_request(async move {
                    let _open = open;
                    let (stream, identity) = match tls {
                        None => (
                            crate::security::tls::Stream::Plain(stream),
                            crate::security::tls::PeerIdentity::plain(peer),
                        ),
                        Some(tls) => match tokio::select! {
                            r = tls.accept(stream, peer) => r,
                            () = s.stop.cancelled() => return,
                        } {
                            Ok(accepted) => accepted,
                            Err(e) => {
                                tracing::info!(%peer, error = %e,
                                    detail = crate::security::tls::rustls_detail(&e), "MQ client TLS handshake failed");
                                return;
                            }
                        },
                    };
                    connection::run(s, stream, identity, permit).await
                });
            }
            Err(e) => {
                tracing::warn!(error = %e, "SVRCONN listener could not accept a connection");
                tokio::time::sleep(Duration::from_millis(50)).await;
            }
        }
    }
}

//! The bus's NATS connection: made at start, where a server that cannot be
//! reached, refused credentials or failed TLS stop the gateway with a
//! message naming them (docs/cluster.md "The bus between gateways"); then
//! reconnected by the client without limit.

use super::config::BusConfig;
use super::status::BusStatus;
use async_nats::{Client, ConnectErrorKind, ConnectOptions, Event, ServerAddr};
use std::sync::Arc;
use std::sync::atomic::{AtomicU64, Ordering};
use std::time::Duration;
use tokio::sync::mpsc;

/// How long one connection attempt at start may take.
const CONNECT_TIMEOUT: Duration = Duration::from_secs(5);

/// The connection's events the bus acts on.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Link {
    /// Connected again after a disconnection: interest is announced again.
    Reconnected,
}

/// Connects to one of `c.servers`; `events` gets [`Link::Reconnected`]
/// after each reconnection.
///
/// Errors, one sentence each: `bus: cannot reach any NATS server of ...`,
/// `bus: the NATS server refused the credentials: ...`, `bus: TLS to the
/// NATS server failed: ...`, `bus: credentials file ...: ...`.
pub async fn connect(
    c: &BusConfig,
    events: mpsc::UnboundedSender<Link>,
    status: Arc<BusStatus>,
) -> Result<Client, String> {
    let servers = c.servers.join(", ");
    let unreachable =
        |detail: String| format!("bus: cannot reach any NATS server of {servers}: {detail}");
    let mut addrs = Vec::new();
    for s in &c.servers {
        let addr: ServerAddr = s.parse().map_err(|e| unreachable(format!("{s}: {e}")))?;
        addrs.push(addr);
    }
    let mut opts = ConnectOptions::new();
    if let (Some(u), Some(p)) = (&c.user, &c.password) {
        opts = opts.user_and_password(u.clone(), p.clone());
    } else if let Some(a) = addrs.iter().find(|a| a.has_user_pass()) {
        // As other NATS clients, a user and password in a URL.
        opts = opts.user_and_password(
            a.username().unwrap_or_default().to_string(),
            a.password().unwrap_or_default().to_string(),
        );
    }
    let opts = crate::store::jetstream::connect::credentials_and_tls(
        opts,
        c.credentials.as_deref(),
        c.tls.as_ref(),
    )
    .await
    .map_err(|e| format!("bus: {e}"))?;
    let seen = Arc::new(AtomicU64::new(0));
    let opts = opts
        .name("mqgate bus")
        // nats-server does not hand a connection its own publishes.
        .no_echo()
        .connection_timeout(CONNECT_TIMEOUT)
        .max_reconnects(None)
        .event_callback(move |event| {
            let (seen, events, status) = (Arc::clone(&seen), events.clone(), Arc::clone(&status));
            async move {
                match event {
                    Event::Connected if seen.fetch_add(1, Ordering::SeqCst) > 0 => {
                        status.set_connected(true);
                        tracing::info!("bus: reconnected to NATS");
                        let _ = events.send(Link::Reconnected);
                    }
                    Event::Connected => {}
                    Event::Closed => tracing::debug!("bus: NATS connection closed"),
                    Event::Disconnected => {
                        status.set_connected(false);
                        tracing::warn!(
                        "bus: disconnected from NATS; reconnecting (what other gateways publish meanwhile is not received)"
                        )
                    }
                    other => tracing::warn!(event = %other, "bus: NATS client event"),
                }
            }
        });
    opts.connect(addrs).await.map_err(|e| match e.kind() {
        ConnectErrorKind::Authentication | ConnectErrorKind::AuthorizationViolation => {
            format!("bus: the NATS server refused the credentials: {e}")
        }
        ConnectErrorKind::Tls => format!("bus: TLS to the NATS server failed: {e}"),
        _ => unreachable(e.to_string()),
    })
}

//! Connecting to NATS and the start-up checks of docs/cluster.md
//! "Start-up checks": a server of 2.12 or later, JetStream for the account,
//! and the servers' sync policy.

use super::error::OpenError;
use crate::store::nats_config::NatsStorage;
use async_nats::{Client, ConnectErrorKind, ConnectOptions, Event, ServerAddr};
use std::sync::Arc;
use std::sync::atomic::{AtomicU64, Ordering};
use std::time::Duration;

/// How long one connection attempt may take.
const CONNECT_TIMEOUT: Duration = Duration::from_secs(5);
/// How long a JetStream request may take (an atomic batch's commit waits
/// for the fsync of every replica).
pub const REQUEST_TIMEOUT: Duration = Duration::from_secs(10);

/// Connects to one of `o.servers`. Once connected the client reconnects by
/// itself without limit (docs/cluster.md "Reconnecting"); `reconnects`
/// counts the reconnections.
pub async fn connect(o: &NatsStorage, reconnects: Arc<AtomicU64>) -> Result<Client, OpenError> {
    let servers = o.servers.join(", ");
    let mut addrs = Vec::new();
    for s in &o.servers {
        let addr: ServerAddr = s.parse().map_err(|e| OpenError::Unreachable {
            servers: servers.clone(),
            detail: format!("{s}: {e}"),
        })?;
        addrs.push(addr);
    }
    let mut opts = ConnectOptions::new();
    // A user and password in a URL (`nats://user:password@host:4222`), as
    // other NATS clients take them; the client library reads them from the
    // options only.
    if let Some(a) = addrs.iter().find(|a| a.has_user_pass()) {
        opts = opts.user_and_password(
            a.username().unwrap_or_default().to_string(),
            a.password().unwrap_or_default().to_string(),
        );
    }
    let opts = credentials_and_tls(opts, o.credentials.as_deref(), o.tls.as_ref())
        .await
        .map_err(|detail| OpenError::Credentials { detail })?;
    let seen = Arc::new(AtomicU64::new(0));
    let opts = opts
        .name("mqgate")
        .connection_timeout(CONNECT_TIMEOUT)
        .request_timeout(Some(REQUEST_TIMEOUT))
        .max_reconnects(None)
        .event_callback(move |event| {
            let (seen, reconnects) = (Arc::clone(&seen), Arc::clone(&reconnects));
            async move {
                match event {
                    Event::Connected => {
                        if seen.fetch_add(1, Ordering::SeqCst) > 0 {
                            reconnects.fetch_add(1, Ordering::SeqCst);
                            tracing::info!("storage: reconnected to NATS");
                        }
                    }
                    Event::Disconnected => {
                        tracing::warn!("storage: disconnected from NATS; reconnecting")
                    }
                    other => tracing::warn!(event = %other, "storage: NATS client event"),
                }
            }
        });
    opts.connect(addrs).await.map_err(|e| match e.kind() {
        ConnectErrorKind::Authentication | ConnectErrorKind::AuthorizationViolation => {
            OpenError::Credentials {
                detail: e.to_string(),
            }
        }
        ConnectErrorKind::Tls => OpenError::Tls {
            detail: e.to_string(),
        },
        ConnectErrorKind::Io if tls_failure(&e) => OpenError::Tls {
            detail: e.to_string(),
        },
        _ => OpenError::Unreachable {
            servers,
            detail: e.to_string(),
        },
    })
}

/// True when an I/O error of a connection attempt is the TLS handshake's:
/// rustls reports a refused certificate or a failed handshake as an I/O
/// error of kind `InvalidData`.
fn tls_failure(e: &async_nats::ConnectError) -> bool {
    let mut source = std::error::Error::source(e);
    while let Some(s) = source {
        if let Some(io) = s.downcast_ref::<std::io::Error>()
            && io.kind() == std::io::ErrorKind::InvalidData
        {
            return true;
        }
        source = s.source();
    }
    false
}

/// (major, minor) of a server version such as `2.12.1` or `v2.15.1`.
pub fn version(v: &str) -> Option<(u32, u32)> {
    let mut parts = v.trim_start_matches('v').split(['.', '-']);
    Some((parts.next()?.parse().ok()?, parts.next()?.parse().ok()?))
}

/// `Ok` when the server is 2.12 or later and the account has JetStream
/// (`$JS.API.INFO`, "JetStream API Reference").
pub async fn check_server(client: &Client) -> Result<(), OpenError> {
    let v = client.server_info().version;
    if version(&v).is_none_or(|mm| mm < (2, 12)) {
        return Err(OpenError::ServerTooOld { version: v });
    }
    let reply = client
        .request("$JS.API.INFO", bytes::Bytes::new())
        .await
        .map_err(|e| OpenError::NoJetStream {
            detail: match e.kind() {
                async_nats::RequestErrorKind::NoResponders => {
                    "no responders to the JetStream API ($JS.API.INFO): JetStream is not enabled on the server or for this account".into()
                }
                _ => format!("$JS.API.INFO: {e}"),
            },
        })?;
    let v: serde_json::Value =
        serde_json::from_slice(&reply.payload).map_err(|e| OpenError::NoJetStream {
            detail: format!("$JS.API.INFO answered no JSON: {e}"),
        })?;
    if let Some(err) = v.get("error") {
        return Err(OpenError::NoJetStream {
            detail: format!("$JS.API.INFO: {}", api_error(err)),
        });
    }
    Ok(())
}

/// A JetStream API error object as "description (code N, err_code M)".
pub fn api_error(err: &serde_json::Value) -> String {
    format!(
        "{} (code {}, err_code {})",
        err.get("description")
            .and_then(|d| d.as_str())
            .unwrap_or("?"),
        err.get("code").and_then(|c| c.as_i64()).unwrap_or(0),
        err.get("err_code").and_then(|c| c.as_i64()).unwrap_or(0)
    )
}

/// What one server's monitoring endpoint says of its sync policy.
fn sync_of(url: &str) -> Result<(bool, u64), String> {
    let varz = format!("{}/varz", url.trim_end_matches('/'));
    let v: serde_json::Value = ureq::get(&varz)
        .timeout(CONNECT_TIMEOUT)
        .call()
        .map_err(|e| format!("{varz}: {e}"))?
        .into_json()
        .map_err(|e| format!("{varz}: {e}"))?;
    let config = v
        .pointer("/jetstream/config")
        .ok_or_else(|| format!("{varz} shows no JetStream configuration"))?;
    let always = config
        .get("sync_always")
        .and_then(|s| s.as_bool())
        .unwrap_or(false);
    let interval = config
        .get("sync_interval")
        .and_then(|s| s.as_u64())
        .unwrap_or(0);
    Ok((always, interval))
}

/// Checks the servers of `monitor_urls` for `sync_interval: always`
/// (nats-server monitoring, `/varz` `jetstream.config.sync_always`). A
/// server that syncs on an interval acknowledges writes before they reach
/// its disk, so a power failure can lose them (docs/cluster.md "Sync
/// policy"). With `require_sync_always` such a server, no `monitor_urls`,
/// or none of them readable refuses the start; a server that cannot be read
/// while others can (a cluster node that is down) is logged as a warning.
/// Without `require_sync_always` every problem is logged as an error and the
/// store opens. Blocking (HTTP).
pub fn check_sync(o: &NatsStorage) -> Result<(), OpenError> {
    let mut problems = Vec::new();
    let mut unreadable = Vec::new();
    if o.monitor_urls.is_empty() {
        problems.push(
            "the servers' sync policy cannot be seen: no monitor_urls (the servers' HTTP monitoring endpoints)".to_string(),
        );
    }
    for url in &o.monitor_urls {
        match sync_of(url) {
            Ok((true, _)) => {}
            Ok((false, ns)) => problems.push(format!(
                "{url}: the server syncs to disk every {} ms, not always: an acknowledged batch can be lost on a power failure (set jetstream {{ sync_interval: always }})",
                ns / 1_000_000
            )),
            Err(e) => unreadable.push(format!("cannot read the sync policy: {e}")),
        }
    }
    if !o.monitor_urls.is_empty() && unreadable.len() == o.monitor_urls.len() {
        problems.append(&mut unreadable);
    }
    for u in &unreadable {
        tracing::warn!("storage: {u}; the other servers sync always");
    }
    if problems.is_empty() {
        return Ok(());
    }
    let detail = problems.join("; ");
    if o.require_sync_always {
        return Err(OpenError::SyncPolicy {
            detail: format!("{detail} (require_sync_always is true)"),
        });
    }
    tracing::error!(
        "storage: DURABILITY AT RISK: {detail}; starting anyway because require_sync_always is false"
    );
    Ok(())
}

/// `opts` with a NATS credentials file (`credentials`, a `.creds` file) and
/// TLS (`tls`: the CA certificates the server's is checked against, a
/// client certificate and key, TLS required), as `storage` and `bus` both
/// configure them (docs/config.md). Errors: the credentials file cannot be
/// read, naming it.
pub(crate) async fn credentials_and_tls(
    mut opts: ConnectOptions,
    credentials: Option<&std::path::Path>,
    tls: Option<&crate::store::nats_config::NatsTls>,
) -> Result<ConnectOptions, String> {
    if let Some(path) = credentials {
        opts = opts
            .credentials_file(path)
            .await
            .map_err(|e| format!("credentials file {}: {e}", path.display()))?;
    }
    if let Some(tls) = tls {
        if let Some(ca) = &tls.ca {
            opts = opts.add_root_certificates(ca.clone());
        }
        if let (Some(cert), Some(key)) = (&tls.cert, &tls.key) {
            opts = opts.add_client_certificate(cert.clone(), key.clone());
        }
        opts = opts.require_tls(true);
    }
    Ok(opts)
}

#[cfg(test)]
mod tests {
    #[test]
    fn versions() {
        assert_eq!(super::version("2.9.10"), Some((2, 9)));
        assert_eq!(super::version("v2.15.1"), Some((2, 15)));
        assert_eq!(super::version("2.12.0-beta.1"), Some((2, 12)));
        assert_eq!(super::version("x"), None);
    }
}

//! The `storage:` settings of the NATS JetStream store (docs/config.md
//! "storage"), checked by `mqgate check-config` whether or not this build
//! has the `nats` feature.

use serde::Deserialize;
use std::path::PathBuf;

/// Which backend keeps the queues (`storage.type`).
#[derive(Clone, Copy, Debug, Default, Deserialize, PartialEq, Eq)]
#[serde(rename_all = "snake_case")]
pub enum StorageType {
    /// The embedded redb file in `data_dir` (the default).
    #[default]
    Redb,
    /// A NATS JetStream stream (docs/cluster.md).
    Nats,
}

/// TLS to the NATS servers (`storage.tls`): PEM files.
#[derive(Clone, Debug, Default, Deserialize, PartialEq, Eq)]
#[serde(deny_unknown_fields)]
pub struct NatsTls {
    /// CA certificates the servers' certificates must chain to (PEM).
    pub ca: Option<PathBuf>,
    /// The client certificate (PEM), with `key`.
    pub cert: Option<PathBuf>,
    /// The client certificate's private key (PEM), with `cert`.
    pub key: Option<PathBuf>,
}

/// The JetStream store's settings, defaults applied.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct NatsStorage {
    /// Server URLs (`nats://host:port`, `tls://host:port` or `host:port`).
    pub servers: Vec<String>,
    /// A NATS credentials file (JWT and NKey seed), if the account needs one.
    pub credentials: Option<PathBuf>,
    /// TLS settings; `None`: TLS only when a URL says `tls://` or the server
    /// requires it.
    pub tls: Option<NatsTls>,
    /// Names the stream (`<prefix>_STORE`) and its subjects
    /// (`<prefix>.store.>`); default `MQGATE`.
    pub stream_prefix: String,
    /// Stream replicas (1 to 5; default 1, 3 in a cluster).
    pub replicas: u8,
    /// Refuse to start unless every server in `monitor_urls` reports
    /// `sync_interval: always` (default true); when false, start with a
    /// warning.
    pub require_sync_always: bool,
    /// The servers' HTTP monitoring endpoints (`http://host:8222`), where
    /// the sync policy is read (`/varz`).
    pub monitor_urls: Vec<String>,
    /// Several gateways serve the stream's queues together (default
    /// false: one gateway holds the stream; docs/cluster.md "Several
    /// gateways on one stream").
    pub shared: bool,
    /// With `shared`: how long a gateway's claim on a message it got
    /// (its lease record) lasts without renewal, in ms (default 30000, at
    /// least 1000, whole seconds); a message got by a gateway that dies
    /// is available again on the others this long after its last renewal.
    pub claim_ttl_ms: u64,
}

/// The default `claim_ttl_ms`.
pub const DEFAULT_CLAIM_TTL_MS: u64 = 30_000;

/// The default `stream_prefix`.
pub const DEFAULT_PREFIX: &str = "MQGATE";

/// `stream_prefix` characters: a stream name and a subject token both.
pub fn check_prefix(p: &str) -> Result<(), String> {
    let ok = (1..=32).contains(&p.len())
        && p.bytes()
            .all(|b| b.is_ascii_alphanumeric() || b == b'_' || b == b'-');
    if ok {
        Ok(())
    } else {
        Err(format!(
            "{p:?} is not a stream prefix: 1 to 32 letters, digits, '_' or '-'"
        ))
    }
}

/// `Err` naming the problem unless `url` is a NATS server address:
/// `nats://`, `tls://`, `ws://`, `wss://` or no scheme, then `host[:port]`.
pub fn check_server(url: &str) -> Result<(), String> {
    let rest = match url.split_once("://") {
        Some((scheme, rest)) if ["nats", "tls", "ws", "wss"].contains(&scheme) => rest,
        Some((scheme, _)) => {
            return Err(format!(
                "{url:?}: scheme {scheme:?} is not nats, tls, ws or wss"
            ));
        }
        None => url,
    };
    let host_port = rest.rsplit_once('@').map_or(rest, |(_, h)| h);
    let host_port = host_port.split('/').next().unwrap_or_default();
    if host_port.is_empty() {
        return Err(format!("{url:?} names no host"));
    }
    if let Some((_, port)) = host_port.rsplit_once(':')
        && !host_port.ends_with(']')
        && port.parse::<u16>().is_err()
    {
        return Err(format!("{url:?}: {port:?} is not a port"));
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn prefixes_and_server_addresses() {
        assert!(check_prefix("MQGATE").is_ok());
        assert!(check_prefix("gw-1_a").is_ok());
        for bad in ["", "a.b", "a*", "a b", &"x".repeat(33)] {
            assert!(check_prefix(bad).is_err(), "{bad:?}");
        }
        for good in [
            "nats://127.0.0.1:4222",
            "tls://n1.example:4443",
            "n1:4222",
            "nats://u:p@h:1",
            "h",
        ] {
            assert_eq!(check_server(good), Ok(()), "{good}");
        }
        assert_eq!(
            check_server("http://h:8222"),
            Err("\"http://h:8222\": scheme \"http\" is not nats, tls, ws or wss".into())
        );
        assert!(check_server("nats://h:port").is_err());
        assert!(check_server("nats://").is_err());
    }
}

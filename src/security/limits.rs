//! Limits against abuse (docs/security.md "Limits"): open connections per
//! listener and per peer address on the HTTP, channel, SVRCONN, MQTT and
//! routing link listeners, and the memory SVRCONN sockets may hold in messages still
//! arriving in segments. A connection over a limit is refused with its
//! protocol's refusal where one exists; the counting is here, the refusals
//! in each listener.

use crate::metrics::Listener;
use serde::Deserialize;
use std::collections::HashMap;
use std::fmt;
use std::net::IpAddr;
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Arc, Mutex};

/// `security.limits`. The connection limits apply to the HTTP, channel,
/// SVRCONN, MQTT and routing link listeners.
#[derive(Clone, Debug, Deserialize, PartialEq, Eq)]
#[serde(default, deny_unknown_fields)]
pub struct LimitsConfig {
    /// Open connections per listener (each of `http`, `listener`,
    /// `svrconn`, `mqtt`, `rv.routing` counts its own). 0: no limit.
    pub connections: usize,
    /// Open connections per listener from one peer IP address. 0: no limit.
    pub connections_per_peer: usize,
    /// Bytes all SVRCONN sockets together may hold in MQI calls whose
    /// segments are still arriving (each is at most the channel's MAXMSGL
    /// plus its structures). 0: no limit.
    pub svrconn_held_bytes: u64,
}

impl Default for LimitsConfig {
    fn default() -> Self {
        LimitsConfig {
            connections: 100_000,
            connections_per_peer: 50_000,
            svrconn_held_bytes: 1 << 30,
        }
    }
}

#[derive(Debug, Default)]
struct Open {
    total: usize,
    per_peer: HashMap<IpAddr, usize>,
}

/// The limits of one gateway and what is counted against them.
#[derive(Debug, Default)]
pub struct Limits {
    /// Replaced whole by [`Limits::replace_config`] (a configuration
    /// reload); connections already counted stay counted.
    config: std::sync::RwLock<LimitsConfig>,
    /// Per listener, indexed by [`Listener`] (`as usize`).
    open: [Mutex<Open>; 5],
    held: AtomicU64,
}

/// Which limit a connection or a held message would pass.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Exceeded {
    /// The setting: `security.limits.connections`, ...
    pub setting: &'static str,
    /// Its value.
    pub limit: u64,
    /// What was refused, for messages and logs.
    pub what: String,
}

impl fmt::Display for Exceeded {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(
            f,
            "{}: the limit {} = {} is reached",
            self.what, self.setting, self.limit
        )
    }
}

/// An open connection, counted until dropped.
#[derive(Debug)]
pub struct Permit {
    limits: Arc<Limits>,
    listener: Listener,
    peer: IpAddr,
}

impl Drop for Permit {
    fn drop(&mut self) {
        let mut open = self.limits.slot(self.listener);
        open.total = open.total.saturating_sub(1);
        if let Some(n) = open.per_peer.get_mut(&self.peer) {
            *n -= 1;
            if *n == 0 {
                open.per_peer.remove(&self.peer);
            }
        }
    }
}

/// Bytes held against `svrconn_held_bytes`, given back when dropped.
#[derive(Debug)]
pub struct Held {
    limits: Arc<Limits>,
    bytes: u64,
}

impl Drop for Held {
    fn drop(&mut self) {
        self.limits.held.fetch_sub(self.bytes, Ordering::Relaxed);
    }
}

impl Limits {
    /// Limits of `config`.
    pub fn new(config: LimitsConfig) -> Limits {
        Limits {
            config: std::sync::RwLock::new(config),
            ..Limits::default()
        }
    }

    /// The configured values (a copy: a reload may replace them).
    pub fn config(&self) -> LimitsConfig {
        self.config
            .read()
            .unwrap_or_else(|p| p.into_inner())
            .clone()
    }

    /// Puts `config` in force for every later connection and held message
    /// (docs/operations.md "Reloading the configuration"); what is open or
    /// held already is not ended.
    pub fn replace_config(&self, config: LimitsConfig) {
        *self.config.write().unwrap_or_else(|p| p.into_inner()) = config;
    }

    fn slot(&self, l: Listener) -> std::sync::MutexGuard<'_, Open> {
        self.open[l as usize]
            .lock()
            .unwrap_or_else(|p| p.into_inner())
    }

    /// Counts a connection `listener` accepted from `peer`. Errors: the
    /// listener, or the peer on it, has as many connections open as its
    /// limit allows (the connection is not counted).
    pub fn admit(self: &Arc<Self>, listener: Listener, peer: IpAddr) -> Result<Permit, Exceeded> {
        let mut open = self.slot(listener);
        let c = self.config();
        if c.connections > 0 && open.total >= c.connections {
            return Err(Exceeded {
                setting: "security.limits.connections",
                limit: c.connections as u64,
                what: format!(
                    "the {} listener has {} connections open",
                    listener.label(),
                    open.total
                ),
            });
        }
        let from_peer = open.per_peer.get(&peer).copied().unwrap_or(0);
        if c.connections_per_peer > 0 && from_peer >= c.connections_per_peer {
            return Err(Exceeded {
                setting: "security.limits.connections_per_peer",
                limit: c.connections_per_peer as u64,
                what: format!(
                    "{peer} has {from_peer} connections open to the {} listener",
                    listener.label()
                ),
            });
        }
        open.total += 1;
        *open.per_peer.entry(peer).or_insert(0) += 1;
        Ok(Permit {
            limits: Arc::clone(self),
            listener,
            peer,
        })
    }

    /// Holds `bytes` of a message whose segments are still arriving on a
    /// SVRCONN socket. Errors: all sockets together would hold more than
    /// `svrconn_held_bytes` (nothing is held).
    pub fn hold(self: &Arc<Self>, bytes: u64) -> Result<Held, Exceeded> {
        let limit = self.config().svrconn_held_bytes;
        let before = self.held.fetch_add(bytes, Ordering::Relaxed);
        if limit > 0 && before.saturating_add(bytes) > limit {
            self.held.fetch_sub(bytes, Ordering::Relaxed);
            return Err(Exceeded {
                setting: "security.limits.svrconn_held_bytes",
                limit,
                what: format!(
                    "MQ client sockets hold {before} bytes of messages still arriving; {bytes} more"
                ),
            });
        }
        Ok(Held {
            limits: Arc::clone(self),
            bytes,
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn connections_are_counted_per_listener_and_peer_until_dropped() {
        let l = Arc::new(Limits::new(LimitsConfig {
            connections: 3,
            connections_per_peer: 2,
            svrconn_held_bytes: 100,
        }));
        let a: IpAddr = "192.0.2.1".parse().unwrap();
        let b: IpAddr = "192.0.2.2".parse().unwrap();
        let p1 = l.admit(Listener::Mqtt, a).unwrap();
        let _p2 = l.admit(Listener::Mqtt, a).unwrap();
        let e = l.admit(Listener::Mqtt, a).unwrap_err();
        assert_eq!(e.setting, "security.limits.connections_per_peer");
        assert_eq!(
            e.to_string(),
            "192.0.2.1 has 2 connections open to the mqtt listener: the limit security.limits.connections_per_peer = 2 is reached"
        );
        let _p3 = l.admit(Listener::Mqtt, b).unwrap();
        let e = l.admit(Listener::Mqtt, b).unwrap_err();
        assert_eq!(e.setting, "security.limits.connections");
        // Another listener counts apart.
        let _h = l.admit(Listener::Http, a).unwrap();
        drop(p1);
        assert!(l.admit(Listener::Mqtt, b).is_ok());
        // Held bytes: 60 + 40 fit, 1 more does not until some is given back.
        let h1 = l.hold(60).unwrap();
        let _h2 = l.hold(40).unwrap();
        assert_eq!(
            l.hold(1).unwrap_err().setting,
            "security.limits.svrconn_held_bytes"
        );
        drop(h1);
        assert!(l.hold(50).is_ok());
    }

    #[test]
    fn zero_is_no_limit() {
        let l = Arc::new(Limits::new(LimitsConfig {
            connections: 0,
            connections_per_peer: 0,
            svrconn_held_bytes: 0,
        }));
        let a: IpAddr = "::1".parse().unwrap();
        let held: Vec<_> = (0..1000)
            .map(|_| l.admit(Listener::Channel, a).unwrap())
            .collect();
        assert_eq!(held.len(), 1000);
        assert!(l.hold(u64::MAX / 2).is_ok());
    }
}

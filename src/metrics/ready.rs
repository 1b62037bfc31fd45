//! Whether the gateway is ready for work, for `GET /readyz`
//! (docs/operations.md "/readyz"): the store is open, every configured
//! listener is bound and serving, and the gateway is not stopping.

use super::listeners::Listener;
use crate::store::{StoreHealth, StoreState};
use serde::Serialize;
use std::net::SocketAddr;
use std::sync::atomic::{AtomicBool, Ordering};

/// The listeners a gateway bound and whether each still serves, and
/// whether a stop has begun. Shared by the gateway (which marks a
/// listener ended and the stop begun) and the HTTP API (which reads it).
#[derive(Debug)]
pub struct Readiness {
    listeners: Vec<(Listener, SocketAddr, AtomicBool)>,
    stopping: AtomicBool,
}

/// One listener in a readiness answer.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub struct ListenerState {
    pub listener: &'static str,
    pub address: String,
    /// False once its accept loop ended without being asked to.
    pub serving: bool,
}

/// The body of a `/readyz` answer.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub struct ReadyReport {
    /// `ready` or `not_ready`.
    pub status: &'static str,
    /// What is not ready, one short sentence each; empty when ready.
    pub not_ready: Vec<String>,
    /// `ok`, `full` or `failed` ([`crate::store::StoreState`]).
    pub store: StoreState,
    pub listeners: Vec<ListenerState>,
    /// True from the start of a stop (or once the queue manager quiesces).
    pub stopping: bool,
}

impl ReadyReport {
    /// True when nothing is missing.
    pub fn is_ready(&self) -> bool {
        self.not_ready.is_empty()
    }
}

impl Readiness {
    /// A gateway that bound `listeners` (each with its bound address),
    /// all serving, not stopping.
    pub fn new(listeners: &[(Listener, SocketAddr)]) -> Self {
        Readiness {
            listeners: listeners
                .iter()
                .map(|(l, a)| (*l, *a, AtomicBool::new(true)))
                .collect(),
            stopping: AtomicBool::new(false),
        }
    }

    /// The listeners the gateway bound.
    pub fn listeners(&self) -> impl Iterator<Item = Listener> + '_ {
        self.listeners.iter().map(|(l, _, _)| *l)
    }

    /// Marks `listener`'s accept loop ended.
    pub fn ended(&self, listener: Listener) {
        for (l, _, serving) in &self.listeners {
            if *l == listener {
                serving.store(false, Ordering::Relaxed);
            }
        }
    }

    /// Marks the start of a stop.
    pub fn stopping(&self) {
        self.stopping.store(true, Ordering::Relaxed);
    }

    /// Runs `serve` (a listener's accept loop) and marks the listener
    /// ended when it returns, for whatever reason.
    pub async fn watch<F: std::future::Future>(
        self: std::sync::Arc<Self>,
        listener: Listener,
        serve: F,
    ) -> F::Output {
        let out = serve.await;
        self.ended(listener);
        out
    }

    /// The readiness now, given the store's condition and whether the queue
    /// manager quiesces. A full store is ready (gets and acknowledgements go
    /// on; docs/http-api.md "Status"); a failed one is not.
    pub fn report(&self, store: &StoreHealth, quiescing: bool) -> ReadyReport {
        let mut not_ready = Vec::new();
        if store.state == StoreState::Failed {
            not_ready.push(format!("store: failed ({})", store.message));
        }
        let listeners: Vec<ListenerState> = self
            .listeners
            .iter()
            .map(|(l, a, s)| ListenerState {
                listener: l.label(),
                address: a.to_string(),
                serving: s.load(Ordering::Relaxed),
            })
            .collect();
        for l in listeners.iter().filter(|l| !l.serving) {
            not_ready.push(format!(
                "listener {} on {}: not serving",
                l.listener, l.address
            ));
        }
        let stopping = self.stopping.load(Ordering::Relaxed) || quiescing;
        if stopping {
            not_ready.push("gateway: stopping (quiescing)".into());
        }
        ReadyReport {
            status: if not_ready.is_empty() {
                "ready"
            } else {
                "not_ready"
            },
            not_ready,
            store: store.state,
            listeners,
            stopping,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn addr(port: u16) -> SocketAddr {
        SocketAddr::from(([127, 0, 0, 1], port))
    }

    #[test]
    fn ready_until_a_listener_ends_the_store_fails_or_a_stop_begins() {
        let r = Readiness::new(&[(Listener::Http, addr(8080)), (Listener::Mqtt, addr(1883))]);
        let ok = StoreHealth::default();
        let report = r.report(&ok, false);
        assert!(report.is_ready(), "{report:?}");
        assert_eq!(report.status, "ready");
        // A full store still serves gets and acknowledgements: ready.
        let full = StoreHealth {
            state: StoreState::Full,
            ..StoreHealth::default()
        };
        assert!(r.report(&full, false).is_ready());
        let failed = StoreHealth {
            state: StoreState::Failed,
            message: "cannot reopen".into(),
            ..StoreHealth::default()
        };
        assert_eq!(
            r.report(&failed, false).not_ready,
            vec!["store: failed (cannot reopen)".to_string()]
        );
        assert_eq!(
            r.report(&ok, true).not_ready,
            vec!["gateway: stopping (quiescing)".to_string()]
        );
        r.ended(Listener::Mqtt);
        let report = r.report(&ok, false);
        assert_eq!(report.status, "not_ready");
        assert_eq!(
            report.not_ready,
            vec!["listener mqtt on 127.0.0.1:1883: not serving".to_string()]
        );
        r.stopping();
        assert_eq!(r.report(&ok, false).not_ready.len(), 2);
    }
}

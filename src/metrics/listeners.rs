//! Connections per listener, for `GET /metrics` (docs/operations.md
//! "Listeners"): process-wide atomics (one gateway runs per `mqgate run`
//! process), two per accepted connection and one when it closes.

use std::sync::atomic::{AtomicU64, Ordering};

/// A listener of the gateway (docs/config.md names each one's section).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Listener {
    /// `http.listen`: the HTTP API.
    Http,
    /// `listener.listen`: mqgate message channels (receiver side).
    Channel,
    /// `mqtt.listen`: MQTT devices.
    Mqtt,
    /// `svrconn.listen`: IBM MQ client applications (server-connection
    /// channels).
    Svrconn,
    /// `rv.routing.listen`: routing links from neighbour gateways.
    RvRouting,
}

impl Listener {
    /// Every listener, in label order.
    pub const ALL: [Listener; 5] = [
        Listener::Http,
        Listener::Channel,
        Listener::Mqtt,
        Listener::Svrconn,
        Listener::RvRouting,
    ];

    /// The `listener` label value.
    pub fn label(self) -> &'static str {
        match self {
            Listener::Http => "http",
            Listener::Channel => "channel",
            Listener::Mqtt => "mqtt",
            Listener::Svrconn => "svrconn",
            Listener::RvRouting => "rv_routing",
        }
    }

    fn index(self) -> usize {
        self as usize
    }
}

static OPEN: [AtomicU64; 5] = [const { AtomicU64::new(0) }; 5];
static ACCEPTED: [AtomicU64; 5] = [const { AtomicU64::new(0) }; 5];

/// An accepted connection, counted open until dropped: the connection's
/// task holds it.
#[derive(Debug)]
pub struct Connection(Listener);

impl Drop for Connection {
    fn drop(&mut self) {
        OPEN[self.0.index()].fetch_sub(1, Ordering::Relaxed);
    }
}

/// Counts a connection `listener` accepted.
pub fn accepted(listener: Listener) -> Connection {
    ACCEPTED[listener.index()].fetch_add(1, Ordering::Relaxed);
    OPEN[listener.index()].fetch_add(1, Ordering::Relaxed);
    Connection(listener)
}

/// Why a connection was refused before it was served.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Refusal {
    /// A channel authentication rule blocked it (docs/security.md
    /// "Channel authentication rules").
    Chlauth,
    /// A connection or request limit was reached (docs/security.md
    /// "Limits").
    Limit,
}

impl Refusal {
    /// Every reason, in label order.
    pub const ALL: [Refusal; 2] = [Refusal::Chlauth, Refusal::Limit];

    /// The `reason` label value.
    pub fn label(self) -> &'static str {
        match self {
            Refusal::Chlauth => "chlauth",
            Refusal::Limit => "limit",
        }
    }
}

static REFUSED: [AtomicU64; 2] = [const { AtomicU64::new(0) }; 2];

/// Counts a refused connection.
pub fn refused(reason: Refusal) {
    REFUSED[reason as usize].fetch_add(1, Ordering::Relaxed);
}

/// `(reason, refused so far)` for each reason.
pub fn refusals() -> [(Refusal, u64); 2] {
    Refusal::ALL.map(|r| (r, REFUSED[r as usize].load(Ordering::Relaxed)))
}

/// `(listener, open now, accepted so far)` for each listener.
pub fn snapshot() -> [(Listener, u64, u64); 5] {
    Listener::ALL.map(|l| {
        (
            l,
            OPEN[l.index()].load(Ordering::Relaxed),
            ACCEPTED[l.index()].load(Ordering::Relaxed),
        )
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_connection_is_open_until_dropped_and_accepted_stays() {
        // The routing listener: no other unit test accepts there.
        let at = |s: [(Listener, u64, u64); 5]| s[4];
        let before = at(snapshot());
        let c = accepted(Listener::RvRouting);
        assert_eq!(
            at(snapshot()),
            (Listener::RvRouting, before.1 + 1, before.2 + 1)
        );
        drop(c);
        assert_eq!(
            at(snapshot()),
            (Listener::RvRouting, before.1, before.2 + 1)
        );
    }
}

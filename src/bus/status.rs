//! What the bus between gateways shows (`GET /v1/bus`, docs/cluster.md
//! "Bus status"): its connection, the other gateways it knows and its
//! counters, updated by its tasks.

use serde_json::{Value, json};
use std::sync::Mutex;
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};

/// The bus's state, shared by its tasks and the HTTP API.
#[derive(Debug, Default)]
pub struct BusStatus {
    servers: Vec<String>,
    subject_prefix: String,
    gateway: Mutex<String>,
    connected: AtomicBool,
    reconnects: AtomicU64,
    /// (gateway, listen subjects announced), in gateway order.
    peers: Mutex<Vec<(String, usize)>>,
    /// Rendezvous messages sent to other gateways (one per gateway).
    pub rv_out: AtomicU64,
    /// Rendezvous messages from other gateways published on the bus.
    pub rv_in: AtomicU64,
    /// Rendezvous messages not sent or not taken (logged).
    pub rv_refused: AtomicU64,
    /// Universal broadcasts published on the bus.
    pub universal_out: AtomicU64,
    /// Universal broadcasts from other gateways put on queue 99.
    pub universal_in: AtomicU64,
    /// Messages on the universal subject dropped (logged).
    pub universal_dropped: AtomicU64,
}

// Without the `nats` feature no bus is made and only `json` is called.
#[cfg_attr(not(feature = "nats"), allow(dead_code))]
impl BusStatus {
    /// A connected bus on `servers` under `subject_prefix`.
    pub fn new(servers: &[String], subject_prefix: &str) -> BusStatus {
        BusStatus {
            servers: servers.to_vec(),
            subject_prefix: subject_prefix.to_string(),
            connected: AtomicBool::new(true),
            ..BusStatus::default()
        }
    }

    /// The connection went down (`false`) or came back (`true`).
    pub fn set_connected(&self, up: bool) {
        if up && !self.connected.swap(true, Ordering::SeqCst) {
            self.reconnects.fetch_add(1, Ordering::SeqCst);
        } else if !up {
            self.connected.store(false, Ordering::SeqCst);
        }
    }

    /// This gateway's name on the bus (its inbox element).
    pub fn set_gateway(&self, g: &str) {
        *self.gateway.lock().unwrap_or_else(|p| p.into_inner()) = g.to_string();
    }

    /// The other gateways known now, with their subject counts.
    pub fn set_peers(&self, mut peers: Vec<(String, usize)>) {
        peers.sort();
        *self.peers.lock().unwrap_or_else(|p| p.into_inner()) = peers;
    }

    /// The status as `GET /v1/bus` answers it.
    pub fn json(&self) -> Value {
        let n = |a: &AtomicU64| a.load(Ordering::Relaxed);
        let peers: Vec<Value> = self
            .peers
            .lock()
            .unwrap_or_else(|p| p.into_inner())
            .iter()
            .map(|(g, s)| json!({"gateway": g, "subjects": s}))
            .collect();
        json!({
            "type": "nats",
            "servers": self.servers,
            "subject_prefix": self.subject_prefix,
            "gateway": *self.gateway.lock().unwrap_or_else(|p| p.into_inner()),
            "connected": self.connected.load(Ordering::SeqCst),
            "reconnects": n(&self.reconnects),
            "gateways": peers,
            "rv": {"out": n(&self.rv_out), "in": n(&self.rv_in), "refused": n(&self.rv_refused)},
            "universal": {
                "out": n(&self.universal_out),
                "in": n(&self.universal_in),
                "dropped": n(&self.universal_dropped),
            },
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn reconnections_are_counted_once_each() {
        let s = BusStatus::new(&["nats://h:4222".into()], "p");
        s.set_connected(true);
        assert_eq!(s.json()["reconnects"], 0, "connected at start");
        s.set_connected(false);
        s.set_connected(true);
        s.set_connected(true);
        s.set_peers(vec![("B".into(), 2), ("A".into(), 0)]);
        let j = s.json();
        assert_eq!(j["reconnects"], 1);
        assert_eq!(j["connected"], true);
        assert_eq!(j["gateways"][0]["gateway"], "A");
    }
}

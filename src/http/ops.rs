//! The operations endpoints (docs/operations.md): `GET /metrics`,
//! `GET /healthz` and `GET /readyz`. Handlers: src/http/metrics.rs,
//! src/http/health.rs.

use super::{health, metrics};
use crate::metrics::Readiness;
use crate::qmgr::QueueManager;
use axum::Router;
use axum::routing::get;
use prometheus_client::registry::Registry;
use std::sync::Arc;
use std::time::Instant;

/// What the operations endpoints read.
#[derive(Clone)]
pub struct OpsState {
    /// The gateway's metrics (src/metrics/).
    pub registry: Arc<Registry>,
    /// The listeners and whether a stop has begun.
    pub readiness: Arc<Readiness>,
    /// For the store's condition and whether it quiesces.
    pub qm: Arc<QueueManager>,
    pub started: Instant,
}

/// The routes of the operations endpoints over `state`.
pub fn routes(state: OpsState) -> Router {
    Router::new()
        .route("/metrics", get(metrics::metrics))
        .route("/healthz", get(health::healthz))
        .route("/readyz", get(health::readyz))
        .with_state(state)
}

//! `GET /healthz` (the process is alive and its HTTP server answers) and
//! `GET /readyz` (the gateway takes work: store open, listeners bound, not
//! stopping), with JSON bodies (docs/operations.md "/healthz", "/readyz").

use super::ops::OpsState;
use axum::Json;
use axum::extract::State;
use axum::http::StatusCode;
use serde_json::{Value, json};

/// 200 `{"status":"alive","version":…,"uptime_ms":…}` whenever the HTTP
/// server can answer.
pub async fn healthz(State(s): State<OpsState>) -> Json<Value> {
    Json(json!({
        "status": "alive",
        "version": env!("CARGO_PKG_VERSION"),
        "uptime_ms": s.started.elapsed().as_millis() as u64,
    }))
}

/// 200 with the readiness report when ready, 503 with it (its
/// `not_ready` naming what is missing) otherwise
/// ([`crate::metrics::ready::Readiness::report`]).
pub async fn readyz(State(s): State<OpsState>) -> (StatusCode, Json<Value>) {
    let report = s
        .readiness
        .report(&s.qm.store_health(), s.qm.is_quiescing());
    let status = if report.is_ready() {
        StatusCode::OK
    } else {
        StatusCode::SERVICE_UNAVAILABLE
    };
    (status, Json(json!(report)))
}

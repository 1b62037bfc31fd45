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

#[cfg(test)]
mod tests {
    use super::*;
    use crate::channel::StatusBoard;
    use crate::config::Config;
    use crate::metrics::{Listener, Readiness};
    use crate::qmgr::QueueManager;
    use crate::store::redb::RedbStore;
    use axum::body::Body;
    use axum::http::Request;
    use std::sync::Arc;
    use tower::ServiceExt;

    async fn call(app: &axum::Router, path: &str) -> (u16, Value) {
        let req = Request::builder().uri(path).body(Body::empty()).unwrap();
        let res = app.clone().oneshot(req).await.unwrap();
        let st = res.status().as_u16();
        let bytes = axum::body::to_bytes(res.into_body(), usize::MAX)
            .await
            .unwrap();
        (st, serde_json::from_slice(&bytes).unwrap())
    }

    #[tokio::test]
    async fn readyz_answers_503_naming_what_is_missing_and_healthz_stays_200() {
        let dir = tempfile::tempdir().unwrap();
        let config = Config::from_yaml("queue_manager:\n  name: QM1\n", "test").unwrap();
        let store = Arc::new(RedbStore::open(dir.path()).unwrap());
        let qm = Arc::new(QueueManager::open(&config, store).unwrap());
        let http = std::net::SocketAddr::from(([127, 0, 0, 1], 8080));
        let readiness = Arc::new(Readiness::new(&[(Listener::Http, http)]));
        let registry = crate::metrics::registry(
            Arc::clone(&qm),
            Arc::new(StatusBoard::default()),
            Arc::clone(&readiness),
            crate::metrics::store::commit_histogram(),
        );
        let app = crate::http::ops::routes(crate::http::ops::OpsState {
            registry: Arc::new(registry),
            readiness: Arc::clone(&readiness),
            qm: Arc::clone(&qm),
            started: std::time::Instant::now(),
        });
        let (st, v) = call(&app, "/readyz").await;
        assert_eq!((st, v["status"].as_str()), (200, Some("ready")), "{v}");
        // The queue manager quiesces (the third step of a stop, docs/config.md
        // "Stopping"): 503, and the body says why.
        qm.quiesce();
        let (st, v) = call(&app, "/readyz").await;
        assert_eq!(st, 503, "{v}");
        assert_eq!(v["status"], "not_ready");
        assert_eq!(v["stopping"], true);
        assert_eq!(
            v["not_ready"],
            serde_json::json!(["gateway: stopping (quiescing)"])
        );
        // The listener's accept loop ended too: both named.
        readiness.ended(Listener::Http);
        let (st, v) = call(&app, "/readyz").await;
        assert_eq!(st, 503);
        assert_eq!(
            v["not_ready"],
            serde_json::json!([
                "listener http on 127.0.0.1:8080: not serving",
                "gateway: stopping (quiescing)"
            ])
        );
        // Alive all the while.
        let (st, v) = call(&app, "/healthz").await;
        assert_eq!((st, v["status"].as_str()), (200, Some("alive")), "{v}");
    }
}

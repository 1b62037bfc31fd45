//! `GET /v1/rv/routing`: the routing daemon's status (docs/rendezvous.md
//! "Routing status"), thin over `crate::rv::route::service::Routing`.

use axum::Json;
use axum::Router;
use axum::extract::State;
use axum::http::StatusCode;
use axum::routing::get;
use mqgate_codecs::rv::status::TibrvStatus;
use serde_json::Value;

use super::rv::RvError;
use crate::rv::route::service::Routing;

/// The route over `routing` (`None`: the gateway is no routing daemon).
pub fn routes(routing: Option<Routing>) -> Router {
    Router::new()
        .route("/v1/rv/routing", get(status))
        .with_state(routing)
}

/// The status: 200 with it, 404 when `rv.routing` is not configured, 503
/// once the router has stopped.
async fn status(State(routing): State<Option<Routing>>) -> Result<Json<Value>, RvError> {
    let Some(r) = routing else {
        return Err(RvError {
            status: TibrvStatus::INVALID_ARG,
            http: StatusCode::NOT_FOUND,
            field: None,
            element: None,
            message:
                "this gateway is no routing daemon: its configuration has no rv.routing section"
                    .into(),
            mqrc: None,
        });
    };
    match r.status().await {
        Some(s) => Ok(Json(s)),
        None => Err(RvError {
            status: TibrvStatus::DAEMON_NOT_CONNECTED,
            http: StatusCode::SERVICE_UNAVAILABLE,
            field: None,
            element: None,
            message: "the routing daemon has stopped (the gateway is stopping)".into(),
            mqrc: None,
        }),
    }
}

//! `GET /v1/bus`: the bus between gateways (docs/cluster.md "Bus status"),
//! thin over `crate::bus::status::BusStatus`.

use axum::Json;
use axum::Router;
use axum::extract::State;
use axum::http::StatusCode;
use axum::response::{IntoResponse, Response};
use axum::routing::get;
use mqgate_codecs::mq::Mqrc;
use std::sync::Arc;

use super::error_body;
use crate::bus::status::BusStatus;

/// The route over `status` (`None`: the gateway has no `bus:`).
pub fn routes(status: Option<Arc<BusStatus>>) -> Router {
    Router::new().route("/v1/bus", get(show)).with_state(status)
}

/// 200 with the status; 404 with 2298 MQRC_FUNCTION_NOT_SUPPORTED without
/// `bus:`.
async fn show(State(status): State<Option<Arc<BusStatus>>>) -> Response {
    match status {
        Some(s) => Json(s.json()).into_response(),
        None => (
            StatusCode::NOT_FOUND,
            Json(error_body(
                Mqrc::FUNCTION_NOT_SUPPORTED,
                "this gateway has no bus between gateways: its configuration has no bus section",
            )),
        )
            .into_response(),
    }
}

//! `GET /v1/fault-tolerance`: the gateway's fault tolerance group and
//! roles (docs/http-api.md "Fault tolerance", docs/rendezvous.md "mqgate's
//! own roles"), thin over `crate::gateway::ft::FtRoles`.

use axum::Json;
use axum::Router;
use axum::extract::State;
use axum::routing::get;
use mqgate_codecs::mq::Mqrc;
use serde_json::Value;

use super::ApiError;
use crate::gateway::ft::FtRoles;

/// The route over `roles` (`None`: the configuration has no
/// `fault_tolerance` section).
pub fn routes(roles: Option<FtRoles>) -> Router {
    Router::new()
        .route("/v1/fault-tolerance", get(status))
        .with_state(roles)
}

/// 200 with the status; 404 with 2298 MQRC_FUNCTION_NOT_SUPPORTED when the
/// gateway is in no fault tolerance group.
async fn status(State(roles): State<Option<FtRoles>>) -> Result<Json<Value>, ApiError> {
    match roles {
        Some(r) => Ok(Json(r.status())),
        None => Err(ApiError::new(
            Mqrc::FUNCTION_NOT_SUPPORTED,
            "this gateway is in no fault tolerance group: its configuration has no fault_tolerance section",
        )),
    }
}

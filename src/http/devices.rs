//! Store-and-forward routes for device queue managers (seed 001; docs/http-api.md
//! "Devices"): a device pulls the messages waiting for it with a lease and
//! acknowledges each. The queue of a device is created on first use.

use super::messages::{self, NextQuery};
use super::{ApiError, AppState};
use axum::Json;
use axum::extract::rejection::QueryRejection;
use axum::extract::{Path, Query, State};
use axum::http::StatusCode;
use axum::response::{IntoResponse, Response};
use mqgate_codecs::mq::Mqrc;
use serde_json::Value;

/// `GET /v1/devices/{qmgr}/queues/{queue}/messages/next?wait_ms=N`: the next
/// message for the device with a lease, as `{"lease", "md", "data_base64"}`
/// (plus `queue` and `lease_expires_in_ms`); 204 when none arrived in the wait.
pub async fn next(
    State(s): State<AppState>,
    Path((q_mgr, queue)): Path<(String, String)>,
    query: Result<Query<NextQuery>, QueryRejection>,
) -> Response {
    let name = match s.qm.device_queue(&q_mgr, &queue) {
        Ok(n) => n,
        Err(e) => return ApiError::from(e).into_response(),
    };
    match messages::next(State(s), Path(name), query).await {
        Ok(json) => json.into_response(),
        Err(ApiError(e)) if e.mqrc == Mqrc::NO_MSG_AVAILABLE => {
            StatusCode::NO_CONTENT.into_response()
        }
        Err(e) => e.into_response(),
    }
}

/// `POST /v1/devices/{qmgr}/queues/{queue}/messages/ack/{lease}`: removes the
/// leased message (durable when it returns).
pub async fn ack(
    State(s): State<AppState>,
    Path((q_mgr, queue, lease)): Path<(String, String, String)>,
) -> Result<Json<Value>, ApiError> {
    let name = s.qm.device_queue(&q_mgr, &queue)?;
    messages::ack(State(s), Path((name, lease))).await
}

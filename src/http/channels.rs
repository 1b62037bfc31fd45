//! `POST /v1/channels/{name}/start` (docs/http-api.md "Channels"): thin over
//! the gateway's [`crate::channel::ChannelControl`].

use super::{ApiError, AppState};
use axum::Json;
use axum::extract::{Path, State};
use serde_json::{Value, json};

/// Starts a channel the undelivered rule stopped (IBM MQ "START CHANNEL"):
/// `200 {"started": true, "status": {...}}`; `"started": false` when it was
/// not stopped (nothing changed). Errors: 404 / 2540
/// MQRC_UNKNOWN_CHANNEL_NAME for a channel that is not defined.
pub async fn start(
    State(s): State<AppState>,
    Path(name): Path<String>,
) -> Result<Json<Value>, ApiError> {
    let started = s.control.start(&name)?;
    Ok(Json(json!(started)))
}

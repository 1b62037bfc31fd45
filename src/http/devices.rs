//! HTTP transport of the device protocol ([`crate::devices`]; the WebSphere MQ
//! Everyplace gateway article; docs/http-api.md "Devices"): a device pulls the
//! messages waiting for it with a lease and acknowledges each.

use super::messages::{
    convert_param, id_selector, leased_json, parse_lease, parse_wait_ms, query_error,
};
use super::{ApiError, AppState};
use axum::Json;
use axum::extract::rejection::QueryRejection;
use axum::extract::{Path, Query, State};
use axum::http::StatusCode;
use axum::response::{IntoResponse, Response};
use mqgate_codecs::mq::Mqrc;
use serde::Deserialize;
use serde_json::{Value, json};
use std::time::Duration;

/// Query parameters of a device pull.
#[derive(Debug, Default, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct PullQuery {
    /// Text, so a negative or non-numeric value gets 2090.
    wait_ms: Option<String>,
    correl_id: Option<String>,
    msg_id: Option<String>,
    /// MQGMO_CONVERT, as on the queue get (`convert_param`).
    convert: Option<bool>,
    ccsid: Option<i32>,
    encoding: Option<i32>,
}

/// `GET /v1/devices/{qmgr}/queues/{queue}/messages/next?wait_ms=N`: the next
/// message for the device with a lease, as `{"lease", "md", "data_base64"}`
/// (plus `queue`, `lease_expires_in_ms` and the completion, as the queue get;
/// `convert=true&ccsid=N&encoding=N` converts it); 204 when none arrived in the
/// wait, also for a device queue no message has reached yet (never created
/// by a get).
pub async fn next(
    State(s): State<AppState>,
    Path((q_mgr, queue)): Path<(String, String)>,
    query: Result<Query<PullQuery>, QueryRejection>,
) -> Response {
    match pull(&s, &q_mgr, &queue, query).await {
        Ok(Some(json)) => json.into_response(),
        Ok(None) => StatusCode::NO_CONTENT.into_response(),
        Err(e) => e.into_response(),
    }
}

async fn pull(
    s: &AppState,
    q_mgr: &str,
    queue: &str,
    query: Result<Query<PullQuery>, QueryRejection>,
) -> Result<Option<Json<Value>>, ApiError> {
    // Names first (2058, 2087, 2152), then the query; nothing is created.
    s.devices.find(q_mgr, queue).await?;
    let Query(p) = query.map_err(query_error)?;
    let max_wait = s.config.http.max_wait_ms;
    let wait_ms = parse_wait_ms(p.wait_ms.as_deref(), max_wait)?;
    if wait_ms > max_wait {
        return Err(ApiError::new(
            Mqrc::WAIT_INTERVAL_ERROR,
            format!("wait_ms {wait_ms} is above http.max_wait_ms {max_wait}"),
        ));
    }
    let selector = id_selector(p.msg_id.as_deref(), p.correl_id.as_deref())?;
    let convert = convert_param(p.convert, p.ccsid, p.encoding)?;
    let wait = Duration::from_millis(wait_ms);
    let Some(leased) = s
        .devices
        .pull(q_mgr, queue, selector, wait, convert)
        .await?
    else {
        return Ok(None);
    };
    Ok(Some(Json(leased_json(&leased))))
}

/// `POST /v1/devices/{qmgr}/queues/{queue}/messages/ack/{lease}`: removes the
/// leased message (durable when it returns).
pub async fn ack(
    State(s): State<AppState>,
    Path((q_mgr, queue, lease)): Path<(String, String, String)>,
) -> Result<Json<Value>, ApiError> {
    s.devices.find(&q_mgr, &queue).await?;
    let id = parse_lease(&lease)?;
    s.devices.ack(&q_mgr, &queue, id).await?;
    Ok(Json(json!({"lease": id, "acknowledged": true})))
}

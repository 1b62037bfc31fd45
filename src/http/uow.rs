//! `POST /v1/uow`, `/v1/uow/{id}/commit`, `/v1/uow/{id}/backout`.

use super::{ApiError, AppState};
use crate::mqi::names::shown;
use axum::Json;
use axum::extract::{Path, State};
use axum::http::StatusCode;
use mqgate_codecs::mq::Mqrc;
use serde_json::{Value, json};
use std::time::Duration;

fn parse_uow(id: &str) -> Result<u64, ApiError> {
    // Malformed: a bad request (400), not a unit that is no longer open (409).
    id.parse().map_err(|_| {
        ApiError::new(
            Mqrc::OPTIONS_ERROR,
            format!(
                "{} is not a unit of work id (the `uow` number of POST /v1/uow)",
                shown(id)
            ),
        )
    })
}

/// Opens a unit of work that is backed out after `http.uow_timeout_ms` idle.
pub async fn begin(State(s): State<AppState>) -> Result<(StatusCode, Json<Value>), ApiError> {
    let timeout = s.config.http.uow_timeout_ms;
    let id = s.mqi.begin(Some(Duration::from_millis(timeout)))?;
    Ok((
        StatusCode::CREATED,
        Json(json!({"uow": id, "timeout_ms": timeout})),
    ))
}

/// Commits: all the unit's persistent puts and gets in one store transaction.
pub async fn commit(
    State(s): State<AppState>,
    Path(id): Path<String>,
) -> Result<Json<Value>, ApiError> {
    let id = parse_uow(&id)?;
    s.mqi.commit(id).await?;
    Ok(Json(json!({"uow": id, "committed": true})))
}

/// Backs out: puts discarded, gets returned with BackoutCount + 1.
pub async fn backout(
    State(s): State<AppState>,
    Path(id): Path<String>,
) -> Result<Json<Value>, ApiError> {
    let id = parse_uow(&id)?;
    s.mqi.backout(id).await?;
    Ok(Json(json!({"uow": id, "backed_out": true})))
}

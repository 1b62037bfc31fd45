//! `POST /v1/uow`, `/v1/uow/{id}/commit`, `/v1/uow/{id}/backout`.
//!
//! A unit of work is named by a token of 128 random bits, 32 hex digits
//! (src/qmgr/token.rs; docs/http-api.md "Units of work"): known only while
//! the unit is open and only to the gateway run that began it.

use super::{ApiError, AppState};
use crate::mqi::Token;
use crate::mqi::names::shown;
use axum::Json;
use axum::extract::{Path, State};
use axum::http::StatusCode;
use mqgate_codecs::mq::Mqrc;
use serde_json::{Value, json};
use std::time::Duration;

/// The token written as `text` (a path segment or the `uow` query
/// parameter). Malformed — not 32 hex digits — is a bad request (400, 2046
/// MQRC_OPTIONS_ERROR), not a unit that is no longer open (409).
pub(super) fn parse_uow(text: &str) -> Result<Token, ApiError> {
    Token::parse(text).ok_or_else(|| {
        ApiError::new(
            Mqrc::OPTIONS_ERROR,
            format!(
                "{} is not a unit of work id (the 32 hex digits of `uow` in the answer of POST /v1/uow)",
                shown(text)
            ),
        )
    })
}

/// The open unit of work a request names with `uow=` (puts, gets, list
/// puts): 400 / 2046 when malformed ([`parse_uow`]); 409 / 2003
/// MQRC_BACKED_OUT when no open unit of work has that token (committed,
/// backed out, expired, begun before a restart, a lease's token, a guess) —
/// checked before anything else of the call, so nothing changes.
pub(super) fn uow_param(s: &AppState, text: Option<&str>) -> Result<Option<u64>, ApiError> {
    let Some(text) = text else { return Ok(None) };
    let token = parse_uow(text)?;
    Ok(Some(s.mqi.uow_for_token(token)?))
}

/// Opens a unit of work that is backed out after `http.uow_timeout_ms` idle:
/// `201 {"uow": "<32 hex digits>", "timeout_ms": N}`.
pub async fn begin(State(s): State<AppState>) -> Result<(StatusCode, Json<Value>), ApiError> {
    let timeout = s.config.http.uow_timeout_ms;
    let token = s.mqi.begin_token(Some(Duration::from_millis(timeout)))?;
    Ok((
        StatusCode::CREATED,
        Json(json!({"uow": token, "timeout_ms": timeout})),
    ))
}

/// Commits: all the unit's persistent puts and gets in one store transaction.
/// 409 / 2003 when the token names no open unit of work (nothing changes).
pub async fn commit(
    State(s): State<AppState>,
    Path(id): Path<String>,
) -> Result<Json<Value>, ApiError> {
    let token = parse_uow(&id)?;
    let uow = s.mqi.uow_for_token(token)?;
    s.mqi.commit(uow).await?;
    Ok(Json(json!({"uow": token, "committed": true})))
}

/// Backs out: puts discarded, gets returned with BackoutCount + 1.
/// 409 / 2003 when the token names no open unit of work (nothing changes).
pub async fn backout(
    State(s): State<AppState>,
    Path(id): Path<String>,
) -> Result<Json<Value>, ApiError> {
    let token = parse_uow(&id)?;
    let uow = s.mqi.uow_for_token(token)?;
    s.mqi.backout(uow).await?;
    Ok(Json(json!({"uow": token, "backed_out": true})))
}

//! The `/v1/rpc` routes (docs/rpc.md "HTTP"):
//! - `POST /v1/rpc/{library}/{program}[?conversation=ID]` with a JSON object
//!   of IN parameters → 200 and a JSON object of OUT parameters, or an error
//!   `{"error", "code", "mqrc", "reason"}` (every error has its MQRC);
//! - `POST /v1/rpc/conversations` → 201 `{"conversation": ID, "timeout_ms": N}`
//!   (ID: a token of 32 hex digits);
//! - `POST /v1/rpc/conversations/{id}/commit` and `.../backout`;
//! - `GET /v1/rpc/programs`: the callable programs and their operation.

use super::error::{RpcError, RpcErrorKind};
use super::json::{Params, params_from_json, record_to_json};
use super::service::RpcService;
use axum::Json;
use axum::Router;
use axum::body::Bytes;
use axum::extract::rejection::BytesRejection;
use axum::extract::{DefaultBodyLimit, Path, Query, State};
use axum::http::StatusCode;
use axum::response::{IntoResponse, Response};
use axum::routing::{get, post};
use mqgate_codecs::idl::CallKind;
use mqgate_codecs::mq::Mqrc;
use serde::Deserialize;
use serde_json::{Value, json};
use std::sync::Arc;

/// The HTTP status of an RPC error (docs/rpc.md "Errors").
pub fn status_for(e: &RpcError) -> StatusCode {
    match e.kind {
        RpcErrorKind::UnknownProgram | RpcErrorKind::NoMessage => StatusCode::NOT_FOUND,
        // 2003 MQRC_BACKED_OUT: 409, as the queue API answers it
        // (docs/http-api.md "Tokens").
        RpcErrorKind::ConversationEnded => StatusCode::CONFLICT,
        RpcErrorKind::BadParameters | RpcErrorKind::NotPossible => StatusCode::BAD_REQUEST,
        RpcErrorKind::NoReply => StatusCode::GATEWAY_TIMEOUT,
        RpcErrorKind::ExitRefused | RpcErrorKind::PayloadError => StatusCode::BAD_GATEWAY,
        RpcErrorKind::Mq => crate::http::status_for(e.mqrc),
    }
}

impl IntoResponse for RpcError {
    fn into_response(self) -> Response {
        (status_for(&self), Json(self.to_json())).into_response()
    }
}

/// The router for `svc`, to merge with the gateway's.
pub fn router(svc: Arc<RpcService>) -> Router {
    Router::new()
        .route("/v1/rpc/programs", get(programs))
        .route("/v1/rpc/conversations", post(open))
        .route("/v1/rpc/conversations/{id}/commit", post(commit))
        .route("/v1/rpc/conversations/{id}/backout", post(backout))
        .route("/v1/rpc/{library}/{program}", post(call))
        .layer(DefaultBodyLimit::max(BODY_LIMIT))
        .with_state(svc)
}

/// The largest request body of the RPC routes, in bytes (2 MiB); a larger
/// one is answered 413 with code BAD_PARAMETERS (docs/rpc.md "HTTP").
pub const BODY_LIMIT: usize = 2 * 1024 * 1024;

/// Query of a call.
#[derive(Debug, Default, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct CallQuery {
    /// The conversation the call belongs to (from `POST /v1/rpc/conversations`);
    /// text so that a non-number is answered like one in the path.
    conversation: Option<String>,
}

/// `POST /v1/rpc/{library}/{program}`. The body is JSON: one with another
/// Content-Type, or a body without one, is refused first with 415 / 2004
/// MQRC_BUFFER_ERROR naming the type ([`crate::http::require_json`], as
/// `POST /v1/messages`; docs/rpc.md "HTTP"); only an empty body may come
/// without a Content-Type (a program without IN parameters).
async fn call(
    State(svc): State<Arc<RpcService>>,
    principal: Option<axum::Extension<crate::security::Principal>>,
    Path((library, program)): Path<(String, String)>,
    query: Result<Query<CallQuery>, axum::extract::rejection::QueryRejection>,
    headers: axum::http::HeaderMap,
    body: Result<Bytes, BytesRejection>,
) -> Response {
    let untyped_and_empty = !headers.contains_key(axum::http::header::CONTENT_TYPE)
        && body.as_ref().is_ok_and(|b| b.is_empty());
    if !untyped_and_empty
        && let Err(refused) =
            crate::http::require_json(&headers, "POST /v1/rpc/{library}/{program}")
    {
        let err = RpcError::bad_with(Mqrc::BUFFER_ERROR, refused.0);
        // The RPC error shape plus the queue API's `message`, as for the
        // other gateway-level rejections below.
        let mut body = err.to_json();
        body["message"] = Value::String(err.message.clone());
        return (StatusCode::UNSUPPORTED_MEDIA_TYPE, Json(body)).into_response();
    }
    let body = match body {
        Ok(b) => b,
        Err(e) => {
            let status = e.status();
            let err = if status == StatusCode::PAYLOAD_TOO_LARGE {
                RpcError::with_mqrc(
                    RpcErrorKind::BadParameters,
                    Mqrc::MSG_TOO_BIG_FOR_Q_MGR,
                    format!("the body is over the limit of {BODY_LIMIT} bytes (2 MiB)"),
                )
            } else {
                RpcError::bad(format!("the body could not be read: {}", e.body_text()))
            };
            // The RPC error shape, plus the queue API's `message`, so a client
            // of either API reads this gateway-level rejection (docs/rpc.md "HTTP").
            let mut body = err.to_json();
            body["message"] = Value::String(err.message.clone());
            return (status, Json(body)).into_response();
        }
    };
    let principal = principal.map(|axum::Extension(p)| p);
    match run(svc, library, program, query, body, principal).await {
        Ok(j) => j.into_response(),
        Err(e) => e.into_response(),
    }
}

async fn run(
    svc: Arc<RpcService>,
    library: String,
    program: String,
    query: Result<Query<CallQuery>, axum::extract::rejection::QueryRejection>,
    body: Bytes,
    principal: Option<crate::security::Principal>,
) -> Result<Json<Value>, RpcError> {
    // 2046 MQRC_OPTIONS_ERROR, as the queue API answers a bad query
    // (docs/http-api.md "Errors").
    let Query(query) = query.map_err(|e| {
        RpcError::bad_with(Mqrc::OPTIONS_ERROR, format!("query: {}", e.body_text()))
    })?;
    let conversation = query
        .conversation
        .as_deref()
        .map(conversation_id)
        .transpose()?;
    let prog = svc.programs().find(&library, &program).ok_or_else(|| {
        RpcError::new(
            RpcErrorKind::UnknownProgram,
            format!("no program '{program}' in library '{library}' of the configured IDL files"),
        )
    })?;
    let params = if body.iter().all(u8::is_ascii_whitespace) {
        let takes_in = !prog.request.nodes.is_empty()
            || prog.dynamic.params.iter().any(|d| d.direction.is_in());
        if takes_in {
            return Err(RpcError::bad(format!(
                "empty body: {}/{} takes IN parameters; send a JSON object of them ({{}} for none)",
                prog.library, prog.program
            )));
        }
        serde_json::Map::new()
    } else {
        match serde_json::from_slice::<Params>(&body) {
            Ok(Params(m)) => m,
            Err(e) if e.is_data() => return Err(RpcError::bad(format!("the body: {e}"))),
            Err(e) => return Err(RpcError::bad(format!("the body is not JSON: {e}"))),
        }
    };
    let values = params_from_json(&prog, &params)?;
    let out = svc
        .call(
            &prog.library,
            &prog.program,
            values,
            conversation,
            principal,
        )
        .await?;
    Ok(Json(record_to_json(&out)))
}

async fn open(State(svc): State<Arc<RpcService>>) -> Result<(StatusCode, Json<Value>), RpcError> {
    let id = svc.open_conversation()?;
    Ok((
        StatusCode::CREATED,
        Json(json!({"conversation": id, "timeout_ms": svc.conversation_timeout_ms()})),
    ))
}

/// A conversation id from the path or the query: a token of 32 hex digits
/// (src/qmgr/token.rs), else BAD_PARAMETERS with 2046 MQRC_OPTIONS_ERROR, as
/// the queue API answers a unit-of-work id that is no token
/// (docs/http-api.md "Errors"); a token that is not open is
/// CONVERSATION_ENDED.
fn conversation_id(id: &str) -> Result<crate::mqi::Token, RpcError> {
    crate::mqi::Token::parse(id).ok_or_else(|| {
        RpcError::bad_with(Mqrc::OPTIONS_ERROR, format!(
            "conversation id {} is not 32 hex digits (ids come from POST /v1/rpc/conversations)",
            crate::mqi::names::shown(id)
        ))
    })
}

async fn commit(
    State(svc): State<Arc<RpcService>>,
    Path(id): Path<String>,
) -> Result<Json<Value>, RpcError> {
    let id = conversation_id(&id)?;
    svc.end_conversation(id, true).await?;
    Ok(Json(json!({"conversation": id, "committed": true})))
}

async fn backout(
    State(svc): State<Arc<RpcService>>,
    Path(id): Path<String>,
) -> Result<Json<Value>, RpcError> {
    let id = conversation_id(&id)?;
    svc.end_conversation(id, false).await?;
    Ok(Json(json!({"conversation": id, "backed_out": true})))
}

async fn programs(State(svc): State<Arc<RpcService>>) -> Json<Value> {
    let mut list: Vec<Value> = svc
        .programs()
        .iter()
        .map(|p| {
            let op = match p.call_kind {
                CallKind::Put => "put",
                CallKind::Get => "get",
                CallKind::RequestReply => "request_reply",
            };
            json!({"library": p.library, "program": p.program, "operation": op})
        })
        .collect();
    list.sort_by_key(|v| (v["library"].to_string(), v["program"].to_string()));
    Json(json!({ "programs": list }))
}

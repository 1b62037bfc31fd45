//! The gateway's HTTP routes (docs/tuxedo.md): `POST /v1/tux/tpenqueue`,
//! `GET /v1/rtq`, `GET /v1/rtq/{group}/{queue}/next`, `POST
//! /v1/rtq/{group}/{queue}/ack/{lease}` and `.../backout/{lease}`, `POST
//! /v1/rtq/{group}/{queue}/state`.

use super::config::RtqState;
use super::{ServiceFilter, Taken, Tedg, TpFailure, Tpenqueue, fmljson, qm_queue_name};
use crate::http::ApiError;
use crate::mqi::QmError;
use axum::Json;
use axum::Router;
use axum::body::Bytes;
use axum::extract::DefaultBodyLimit;
use axum::extract::rejection::{BytesRejection, JsonRejection, QueryRejection};
use axum::extract::{Path, Query, State};
use axum::http::StatusCode;
use axum::response::{IntoResponse, Response};
use axum::routing::{get, post};
use base64::Engine;
use base64::engine::general_purpose::STANDARD as BASE64;
use mqgate_codecs::mq::Mqrc;
use mqgate_codecs::tux::codes::{Qme, TpError, Tperrno};
use mqgate_codecs::tux::fml32::Fml32Buffer;
use serde::Deserialize;
use serde_json::{Map, Value, json};
use std::sync::Arc;
use std::time::Duration;

/// What the routes see.
#[derive(Clone)]
pub struct TedgState {
    /// The gateway.
    pub tedg: Arc<Tedg>,
    /// Largest `wait_ms`, in ms (http.max_wait_ms).
    pub max_wait_ms: u64,
}

/// The routes, ready to merge into the main router.
pub fn routes(state: TedgState) -> Router {
    Router::new()
        .route(
            "/v1/tux/tpenqueue",
            post(tpenqueue).layer(DefaultBodyLimit::max(TPENQUEUE_BODY_LIMIT)),
        )
        .route("/v1/rtq", get(list))
        .route("/v1/rtq/{group}/{queue}/next", get(next))
        .route("/v1/rtq/{group}/{queue}/ack/{lease}", post(ack))
        .route("/v1/rtq/{group}/{queue}/backout/{lease}", post(backout))
        .route("/v1/rtq/{group}/{queue}/state", post(set_state))
        .with_state(state)
}

/// Largest `POST /v1/tux/tpenqueue` body, in bytes (1 MiB). An RTQ buffer is at most 30,000 bytes
/// (BEA Tuxedo "Using the BEA Tuxedo TOP END Domain Gateway"), 40,000 as base64 and well below this
/// as FML32 JSON, so a longer body cannot carry an acceptable buffer: it is answered 400 with
/// TPEDIAGNOSTIC/QMEINVAL, that guide's diagnostic for a buffer above the RTQ limit
/// (docs/tuxedo.md).
pub const TPENQUEUE_BODY_LIMIT: usize = 1024 * 1024;

/// The JSON body of `POST /v1/tux/tpenqueue`.
#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
struct TpenqueueBody {
    qspace: String,
    qname: String,
    #[serde(default)]
    flags: Vec<String>,
    #[serde(default)]
    deq_time: i64,
    #[serde(default)]
    buftype: Option<String>,
    #[serde(default)]
    data_base64: Option<String>,
    #[serde(default)]
    fml32: Option<Map<String, Value>>,
    /// A unit-of-work token (32 hex digits from `POST /v1/uow`).
    #[serde(default)]
    uow: Option<String>,
    #[serde(default)]
    encrypted: bool,
    #[serde(default)]
    signed: bool,
}

/// The answer: `{"tperrno", "tperrno_value", "diagnostic", "diagnostic_value",
/// "msgid", "message"}`; tperrno null on success.
pub fn answer(outcome: &Result<super::Enqueued, TpFailure>) -> Value {
    match outcome {
        Ok(ok) => json!({
            "tperrno": null,
            "tperrno_value": 0,
            "diagnostic": null,
            "diagnostic_value": 0,
            "msgid": ok.return_request_id.then(|| hex::encode_upper(ok.request_id.to_msgid())),
            "request_id": ok.header.request_id,
            "schedule_time": ok.header.schedule_time,
            "due_at": ok.header.due_at,
        }),
        Err(f) => json!({
            "tperrno": f.error.tperrno.name(),
            "tperrno_value": f.error.tperrno.0,
            "diagnostic": f.error.diagnostic.and_then(Qme::name),
            "diagnostic_value": f.error.diagnostic.map_or(0, |d| d.0),
            "msgid": null,
            "message": f.message,
        }),
    }
}

fn invalid(message: String) -> TpFailure {
    TpFailure {
        error: TpError::tperrno(Tperrno::TPEINVAL),
        message,
    }
}

fn parse_body(t: &Tedg, body: &[u8]) -> Result<Tpenqueue, TpFailure> {
    let b: TpenqueueBody = serde_json::from_slice(body).map_err(|e| {
        invalid(format!(
            "the JSON body is not valid at {}",
            crate::http::json_error_text(&e)
        ))
    })?;
    let (buftype, data) = match (b.data_base64, b.fml32) {
        (Some(_), Some(_)) => return Err(invalid("give data_base64 or fml32, not both".into())),
        (Some(b64), None) => (
            b.buftype.unwrap_or_else(|| "CARRAY".into()),
            BASE64
                .decode(b64.as_bytes())
                .map_err(|e| invalid(format!("data_base64 is not base64: {e}")))?,
        ),
        (None, Some(_)) if b.buftype.as_deref().is_some_and(|t| t != "FML32") => {
            return Err(invalid(format!(
                "an fml32 buffer is buftype FML32, not {:?} (leave buftype out)",
                b.buftype.unwrap_or_default()
            )));
        }
        (None, Some(obj)) => {
            let table = t.field_table().ok_or_else(|| {
                invalid("an fml32 buffer needs tedg.field_tables in the configuration".into())
            })?;
            let buf = fmljson::from_json(table, &obj).map_err(invalid)?;
            let mut out = Vec::new();
            buf.encode(&mut out)
                .map_err(|e| invalid(format!("fml32: {e}")))?;
            (b.buftype.unwrap_or_else(|| "FML32".into()), out)
        }
        // tpenqueue(3c): TPEINVAL for invalid arguments, among them a data
        // buffer that was not allocated by tpalloc (a NULL buffer).
        (None, None) => {
            return Err(invalid(
                "no buffer: give data_base64 (CARRAY, X_OCTET) or fml32 (FML32); tpenqueue refuses a request without a data buffer".into(),
            ));
        }
    };
    Ok(Tpenqueue {
        qspace: b.qspace,
        qname: b.qname,
        flags: b.flags,
        deq_time: b.deq_time,
        buftype,
        data,
        uow: b.uow,
        encrypted: b.encrypted,
        signed: b.signed,
    })
}

/// The answer to a body that could not be read: above
/// [`TPENQUEUE_BODY_LIMIT`] → TPEDIAGNOSTIC/QMEINVAL (the TEDG guide: buffer above
/// the RTQ limit), otherwise TPEINVAL.
fn body_failure(e: &BytesRejection) -> TpFailure {
    if e.status() == StatusCode::PAYLOAD_TOO_LARGE {
        TpFailure {
            error: TpError::diagnostic(Qme::QMEINVAL),
            message: format!(
                "the request body is longer than {TPENQUEUE_BODY_LIMIT} bytes, so its buffer exceeds the RTQ limit of 30000 bytes"
            ),
        }
    } else {
        invalid(format!("cannot read the request body: {e}"))
    }
}

/// `POST /v1/tux/tpenqueue`. 200 with the answer on success and on a Tuxedo
/// error (the tperrno says which); 400 with tperrno TPEINVAL when the body
/// cannot be read or names no buffer, TPEDIAGNOSTIC/QMEINVAL when it is above
/// [`TPENQUEUE_BODY_LIMIT`].
async fn tpenqueue(
    State(s): State<TedgState>,
    principal: Option<axum::Extension<crate::security::Principal>>,
    headers: axum::http::HeaderMap,
    body: Result<Bytes, BytesRejection>,
) -> Response {
    // The body is JSON: any other Content-Type, or none, is 415 / 2004
    // MQRC_BUFFER_ERROR naming it, before the body is looked at
    // (crate::http::require_json, as `POST /v1/messages`; docs/tuxedo.md).
    if let Err(refused) = crate::http::require_json(&headers, "POST /v1/tux/tpenqueue") {
        return refused.into_response();
    }
    let principal = principal.map(|axum::Extension(p)| p);
    tpenqueue_json(s, body, principal).await.into_response()
}

/// [`tpenqueue`] once the body is known to be JSON.
async fn tpenqueue_json(
    s: TedgState,
    body: Result<Bytes, BytesRejection>,
    principal: Option<crate::security::Principal>,
) -> (StatusCode, Json<Value>) {
    let body = match body {
        Ok(b) => b,
        Err(e) => {
            return (
                StatusCode::BAD_REQUEST,
                Json(answer(&Err(body_failure(&e)))),
            );
        }
    };
    let req = match parse_body(&s.tedg, &body) {
        Ok(r) => r,
        Err(f) => return (StatusCode::BAD_REQUEST, Json(answer(&Err(f)))),
    };
    if let Err(e) = s.tedg.authorize_enqueue(principal.as_ref(), &req.qspace) {
        // 403 as the queue API answers 2035; TPEPERM, Tuxedo's "permission
        // denied", in the tpenqueue answer (docs/security.md).
        let mut body = answer(&Err(TpFailure {
            error: TpError::tperrno(Tperrno::TPEPERM),
            message: e.message,
        }));
        body["mqrc"] = json!(e.mqrc.0);
        return (StatusCode::FORBIDDEN, Json(body));
    }
    let outcome = s.tedg.tpenqueue(&req).await;
    (StatusCode::OK, Json(answer(&outcome)))
}

/// `GET /v1/rtq`: every RTQ queue with its state and depth.
async fn list(State(s): State<TedgState>) -> Json<Value> {
    let v: Vec<Value> = s
        .tedg
        .list()
        .into_iter()
        .map(|(g, n, st, depth)| {
            json!({"group": g, "queue": n, "state": st.name(), "depth": depth,
                   "qm_queue": qm_queue_name(&g, &n)})
        })
        .collect();
    Json(json!(v))
}

/// Query parameters of `next`.
#[derive(Debug, Default, Deserialize)]
#[serde(deny_unknown_fields)]
struct NextQuery {
    wait_ms: Option<u64>,
    product: Option<String>,
    function: Option<String>,
}

/// A taken request as JSON.
pub fn taken_json(t: &Tedg, group: &str, queue: &str, r: &Taken) -> Value {
    let mut v = json!({
        "group": group,
        "queue": queue,
        "request": r.header,
        "data_base64": BASE64.encode(&r.data),
        "backout_count": r.backout_count,
        "lease": r.lease,
        "lease_expires_in_ms": t.lease_ms(),
    });
    if r.header.buftype == "FML32"
        && let (Some(table), Ok((buf, _))) = (t.field_table(), Fml32Buffer::decode(&r.data))
    {
        v["fml32"] = fmljson::to_json(table, &buf);
    }
    v
}

/// Checks the group and queue of an RTQ route's path as MQ names (IBM MQ
/// "Rules for naming IBM MQ objects": 1 to 48 characters from `A-Z a-z 0-9
/// . / _ %`; the RTQ queue is the local queue `RTQ.<group>.<queue>`): 400 /
/// 2152 MQRC_OBJECT_NAME_ERROR naming the part, as the queue API answers a
/// malformed queue name (docs/http-api.md "Errors"), before any lookup (a
/// well-formed name no QSPACE has stays 404 / 2085).
fn check_names(group: &str, queue: &str) -> Result<(), ApiError> {
    use mqgate_codecs::mq::constants::len;
    for (what, name) in [("group", group), ("queue", queue)] {
        crate::mqi::names::check_object_name(name, len::Q_NAME)
            .map_err(|e| ApiError::new(Mqrc::OBJECT_NAME_ERROR, format!("RTQ {what}: {e}")))?;
    }
    Ok(())
}

/// `GET /v1/rtq/{group}/{queue}/next?wait_ms=&product=&function=`.
async fn next(
    State(s): State<TedgState>,
    Path((group, queue)): Path<(String, String)>,
    query: Result<Query<NextQuery>, QueryRejection>,
) -> Result<Json<Value>, ApiError> {
    check_names(&group, &queue)?;
    let Query(p) = query.map_err(|e| {
        ApiError::new(
            Mqrc::OPTIONS_ERROR,
            format!("bad query parameters: {}", e.body_text()),
        )
    })?;
    let wait_ms = p.wait_ms.unwrap_or(0);
    if wait_ms > s.max_wait_ms {
        return Err(ApiError::new(
            Mqrc::WAIT_INTERVAL_ERROR,
            format!(
                "wait_ms {wait_ms} is above http.max_wait_ms {}",
                s.max_wait_ms
            ),
        ));
    }
    let filter = ServiceFilter {
        product: p.product,
        function: p.function,
    };
    let r = s
        .tedg
        .next(
            &group,
            &queue,
            &filter,
            Duration::from_millis(wait_ms),
            Duration::from_millis(s.max_wait_ms),
        )
        .await?;
    Ok(Json(taken_json(&s.tedg, &group, &queue, &r)))
}

async fn finish(
    s: TedgState,
    group: String,
    queue: String,
    lease: String,
    ack: bool,
) -> Result<Json<Value>, ApiError> {
    check_names(&group, &queue)?;
    // Anything but a lease token this gateway issued — malformed included —
    // is a lease that is not open (docs/tuxedo.md).
    let id = crate::mqi::Token::parse(&lease)
        .ok_or_else(|| super::lease_not_open(&group, &queue, &lease))?;
    if ack {
        s.tedg.ack(&group, &queue, id).await?;
        Ok(Json(json!({"lease": id, "acknowledged": true})))
    } else {
        s.tedg.backout(&group, &queue, id).await?;
        Ok(Json(json!({"lease": id, "backed_out": true})))
    }
}

/// `POST /v1/rtq/{group}/{queue}/ack/{lease}`: the request is done and removed.
async fn ack(
    State(s): State<TedgState>,
    Path((group, queue, lease)): Path<(String, String, String)>,
) -> Result<Json<Value>, ApiError> {
    finish(s, group, queue, lease, true).await
}

/// `POST /v1/rtq/{group}/{queue}/backout/{lease}`: the request returns now.
async fn backout(
    State(s): State<TedgState>,
    Path((group, queue, lease)): Path<(String, String, String)>,
) -> Result<Json<Value>, ApiError> {
    finish(s, group, queue, lease, false).await
}

#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
struct StateBody {
    state: String,
}

/// `POST /v1/rtq/{group}/{queue}/state` with `{"state": "enabled"|"disabled"|"stopped"}`.
async fn set_state(
    State(s): State<TedgState>,
    Path((group, queue)): Path<(String, String)>,
    body: Result<Json<StateBody>, JsonRejection>,
) -> Result<Json<Value>, ApiError> {
    check_names(&group, &queue)?;
    // Bad JSON or a missing Content-Type answer in the API's JSON error
    // shape, not axum's plain text.
    let Json(b) = body.map_err(|e| {
        ApiError::new(
            Mqrc::BUFFER_ERROR,
            format!(
                "the body must be {{\"state\": \"enabled\"|\"disabled\"|\"stopped\"}} with Content-Type: application/json: {}",
                e.body_text()
            ),
        )
    })?;
    let st = RtqState::from_name(&b.state).ok_or_else(|| {
        ApiError(QmError::new(
            Mqrc::OPTIONS_ERROR,
            format!("state {:?} is not enabled, disabled or stopped", b.state),
        ))
    })?;
    if !s.tedg.set_state(&group, &queue, st) {
        return Err(ApiError::new(
            Mqrc::UNKNOWN_OBJECT_NAME,
            format!("no QSPACE names RTQ queue {group}/{queue}"),
        ));
    }
    Ok(Json(
        json!({"group": group, "queue": queue, "state": st.name()}),
    ))
}

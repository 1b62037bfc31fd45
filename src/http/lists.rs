//! `POST /v1/messages`: one message put to a list of destinations in one unit
//! of work, as an MQ distribution list put does (IBM MQ "Distribution
//! lists"): every copy is stored, or none is.

use super::md_json::apply_md_json;
use super::messages::{
    PutQuery, body_data, body_error, check_report, md_error, md_from_query, query_error,
};
use super::{ApiError, AppState};
use crate::mqi::Outgoing;
use crate::mqi::PutOptions;
use axum::Json;
use axum::body::Bytes;
use axum::extract::rejection::{BytesRejection, QueryRejection};
use axum::extract::{Query, State};
use axum::http::{HeaderMap, StatusCode};
use axum::response::{IntoResponse, Response};
use mqgate_codecs::mq::{Charset, Mqrc};
use serde::Deserialize;
use serde_json::{Map, Value, json};

/// The most destinations one list put may name.
pub const MAX_DESTINATIONS: usize = 10_000;

/// One destination: a queue, at a queue manager (empty = this one).
#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
struct Destination {
    queue: String,
    #[serde(default)]
    q_mgr: String,
}

/// The JSON body of a list put.
#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
struct ListBody {
    destinations: Vec<Destination>,
    #[serde(default)]
    md: Map<String, Value>,
    data_base64: Option<String>,
    data: Option<String>,
}

/// `POST /v1/messages` with `{"destinations": [{"queue", "q_mgr"}...], "md",
/// "data_base64"|"data"}` and the query parameters of a single put: `201
/// {"results": [{"queue", "msg_id", "correl_id", "persistent"}...]}` in the
/// order given. Errors: the first destination that fails, named one way in
/// every error (`destination 1 (INBOX%DEV0001)`,
/// [`crate::mqi::destination_label`]), with its MQRC, and nothing is stored; no destinations or more than
/// [`MAX_DESTINATIONS`] is 2154 MQRC_RECS_PRESENT_ERROR (IBM MQ
/// "RecsPresent (MQLONG)": a distribution list has at least one destination);
/// a Report with a bit no MQRO_* option has (`report` or `md.Report`) is
/// 2061 MQRC_REPORT_OPTIONS_ERROR, as for a single put; a body longer than
/// the body limit is 413 / 2031 MQRC_MSG_TOO_BIG_FOR_Q_MGR, as for a single
/// put. The body is JSON: a request without Content-Type
/// `application/json` (any case, parameters allowed) is refused first, 415
/// / 2004 naming the type it has ([`super::require_json`]; the single put
/// takes any other type as the message data, docs/http-api.md).
pub async fn put_list(
    State(s): State<AppState>,
    principal: Option<axum::Extension<crate::security::Principal>>,
    query: Result<Query<PutQuery>, QueryRejection>,
    headers: HeaderMap,
    body: Result<Bytes, BytesRejection>,
) -> Response {
    if let Err(refused) = super::require_json(&headers, "POST /v1/messages") {
        return refused.into_response();
    }
    let principal = principal.map(|axum::Extension(p)| p);
    match put_json_list(s, principal, query, body).await {
        Ok(created) => created.into_response(),
        Err(e) => e.into_response(),
    }
}

/// [`put_list`] once the body is known to be JSON.
async fn put_json_list(
    s: AppState,
    principal: Option<crate::security::Principal>,
    query: Result<Query<PutQuery>, QueryRejection>,
    body: Result<Bytes, BytesRejection>,
) -> Result<(StatusCode, Json<Value>), ApiError> {
    let Query(p) = query.map_err(query_error)?;
    // As for a single put, a unit of work that is not open comes first.
    let uow = super::uow::uow_param(&s, p.uow.as_deref())?;
    let body = body.map_err(|e| body_error(&e, s.mqi.max_msg_length()))?;
    let mut md = md_from_query(&p)?;
    let b: ListBody = serde_json::from_slice(&body).map_err(|e| {
        ApiError::new(
            Mqrc::BUFFER_ERROR,
            format!(
                "the JSON body is not valid at {}",
                super::json_error_text(&e)
            ),
        )
    })?;
    if b.destinations.is_empty() || b.destinations.len() > MAX_DESTINATIONS {
        return Err(ApiError::new(
            Mqrc::RECS_PRESENT_ERROR,
            format!(
                "a list put names 1 to {MAX_DESTINATIONS} destinations, not {}",
                b.destinations.len()
            ),
        ));
    }
    apply_md_json(&mut md, &b.md).map_err(md_error)?;
    check_report(md.report, "md.Report")?;
    let data = body_data(b.data_base64, b.data)?;
    let objs = b
        .destinations
        .iter()
        .enumerate()
        .map(|(i, d)| {
            // +put on each destination (docs/security.md "Authorities").
            super::auth::authorize_put(&s, principal.as_ref(), &d.queue, &d.q_mgr)
                .and_then(|()| s.mqi.open(&d.queue, &d.q_mgr))
                .map_err(|e| {
                    let at = crate::mqi::destination_label(i, &d.queue, &d.q_mgr);
                    ApiError::new(e.mqrc, format!("{at}: {}; nothing was put", e.message))
                })
        })
        .collect::<Result<Vec<_>, _>>()?;
    let opts = PutOptions {
        uow,
        new_msg_id: md.msg_id == mqgate_codecs::mq::md::ID_NONE,
        new_correl_id: p.new_correl_id.unwrap_or(false),
        ..PutOptions::default()
    };
    let msg = Outgoing {
        md,
        charset: Charset::Ascii,
        data,
    };
    let results = s.mqi.put_many(&objs, msg, opts).await?;
    let results: Vec<Value> = results
        .iter()
        .map(|r| {
            json!({
                "queue": r.queue,
                "msg_id": hex::encode_upper(r.msg_id),
                "correl_id": hex::encode_upper(r.correl_id),
                "persistent": r.persistent,
            })
        })
        .collect();
    Ok((StatusCode::CREATED, Json(json!({ "results": results }))))
}

//! The JSON object bodies of the Rendezvous routes (docs/rendezvous.md
//! "Errors"): at most 64 KiB, `Content-Type: application/json` when not
//! empty, an empty body read as `{}`, and every key one the route knows.

use axum::body::Body;
use axum::http::{HeaderMap, StatusCode, header};
use mqgate_codecs::rv::status::TibrvStatus;
use serde_json::{Map, Value};

use super::RvError;

/// Most bytes of a route's JSON body (a transport, confirm, listener, join
/// or weight call: a few names and numbers).
const SMALL_BODY: usize = 64 * 1024;

/// A 400 TIBRV_INVALID_ARG refusal naming `field`.
pub(crate) fn invalid(field: &'static str, message: impl Into<String>) -> RvError {
    RvError {
        status: TibrvStatus::INVALID_ARG,
        http: StatusCode::BAD_REQUEST,
        field: Some(field),
        element: None,
        message: message.into(),
        mqrc: None,
    }
}

/// The JSON object of a small body (an empty body is `{}`), its keys each
/// one of `known`.
pub(crate) async fn object_body(
    headers: &HeaderMap,
    body: Body,
    route: &str,
    known: &[&str],
) -> Result<Map<String, Value>, RvError> {
    let bytes = axum::body::to_bytes(body, SMALL_BODY)
        .await
        .map_err(|_| RvError {
            status: TibrvStatus::INVALID_SIZE,
            http: StatusCode::PAYLOAD_TOO_LARGE,
            field: Some("body"),
            element: None,
            message: format!("the request body is larger than {SMALL_BODY} bytes"),
            mqrc: None,
        })?;
    if bytes.is_empty() {
        return Ok(Map::new());
    }
    match headers.get(header::CONTENT_TYPE) {
        Some(v) if crate::http::is_json_media_type(v.as_bytes()) => {}
        _ => {
            return Err(RvError {
                status: TibrvStatus::INVALID_ARG,
                http: StatusCode::UNSUPPORTED_MEDIA_TYPE,
                field: Some("body"),
                element: None,
                message: format!("{route} takes a JSON body (Content-Type: application/json)"),
                mqrc: None,
            });
        }
    }
    let doc: Value = serde_json::from_slice(&bytes)
        .map_err(|e| invalid("body", format!("the body is not JSON: {e}")))?;
    let Value::Object(o) = doc else {
        return Err(invalid("body", "the body is not a JSON object"));
    };
    if let Some(k) = o.keys().find(|k| !known.contains(&k.as_str())) {
        return Err(invalid(
            "body",
            format!(
                "unknown key {} (keys: {})",
                crate::mqi::names::shown(k),
                known.join(", ")
            ),
        ));
    }
    Ok(o)
}

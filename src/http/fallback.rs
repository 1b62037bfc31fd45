//! Every answer of the HTTP API is JSON `{"mqrc", "reason", "message"}`, also
//! those axum makes itself: an unknown route (404), a wrong method (405), and
//! extractor rejections (bad JSON 400/422, missing Content-Type 415, body too
//! large 413), which axum writes as plain text or an empty body.

use super::ApiError;
use axum::Router;
use axum::extract::Request;
use axum::http::{StatusCode, header};
use axum::middleware::Next;
use axum::response::{IntoResponse, Response};
use mqgate_codecs::mq::Mqrc;

/// Most bytes of a plain-text error body kept as the message.
const MAX_TEXT: usize = 4096;

/// `app` with a JSON 404 for unknown routes and every non-JSON error answer
/// rewritten as JSON; applied to the whole router (queue manager, RPC and
/// Tuxedo routes alike).
pub fn with_json_errors(app: Router) -> Router {
    app.fallback(unknown_route)
        .layer(axum::middleware::from_fn(json_errors))
}

/// An unknown path: 404, 2298 MQRC_FUNCTION_NOT_SUPPORTED (no such function).
async fn unknown_route(req: Request) -> ApiError {
    ApiError::new(
        Mqrc::FUNCTION_NOT_SUPPORTED,
        format!(
            "no route {} {} (see docs/http-api.md)",
            req.method(),
            req.uri().path()
        ),
    )
}

/// The MQRC for an error status axum produced itself.
fn mqrc_for(status: StatusCode) -> Mqrc {
    match status {
        StatusCode::NOT_FOUND | StatusCode::METHOD_NOT_ALLOWED => Mqrc::FUNCTION_NOT_SUPPORTED,
        // The body limit is derived from the queue manager's MAXMSGL.
        StatusCode::PAYLOAD_TOO_LARGE => Mqrc::MSG_TOO_BIG_FOR_Q_MGR,
        // The request body (MQ's Buffer) could not be read.
        s if s.is_client_error() => Mqrc::BUFFER_ERROR,
        _ => Mqrc::UNEXPECTED_ERROR,
    }
}

/// Rewrites an error answer that is not JSON, keeping its status.
async fn json_errors(req: Request, next: Next) -> Response {
    let method = req.method().clone();
    let path = req.uri().path().to_string();
    let res = next.run(req).await;
    let status = res.status();
    let is_json = res
        .headers()
        .get(header::CONTENT_TYPE)
        .and_then(|v| v.to_str().ok())
        .is_some_and(|v| v.starts_with("application/json"));
    if !(status.is_client_error() || status.is_server_error()) || is_json {
        return res;
    }
    let allow = res.headers().get(header::ALLOW).cloned();
    let text = match axum::body::to_bytes(res.into_body(), MAX_TEXT).await {
        Ok(b) => String::from_utf8_lossy(&b).trim().to_string(),
        Err(_) => String::new(),
    };
    let message = match (status, text.is_empty()) {
        (StatusCode::METHOD_NOT_ALLOWED, _) => {
            format!("method {method} is not allowed on {path} (see docs/http-api.md)")
        }
        (StatusCode::NOT_FOUND, true) => format!("no route {method} {path}"),
        (_, true) => status
            .canonical_reason()
            .unwrap_or("request failed")
            .to_string(),
        (_, false) => text,
    };
    let mqrc = mqrc_for(status);
    let body = serde_json::json!({
        "mqrc": mqrc.0,
        "reason": mqrc.name(),
        "message": message,
    });
    let mut out = (status, axum::Json(body)).into_response();
    // A 405 keeps its Allow header (the methods the path has).
    if let Some(allow) = allow {
        out.headers_mut().insert(header::ALLOW, allow);
    }
    out
}

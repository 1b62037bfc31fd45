//! Every answer of the HTTP API is JSON `{"mqrc", "reason", "message"}`, also
//! those axum makes itself: an unknown route (404), a wrong method (405), and
//! extractor rejections (bad JSON 400/422, missing Content-Type 415, body too
//! large 413), which axum writes as plain text or an empty body.

use super::ApiError;
use crate::mqi::names::shown;
use axum::Router;
use axum::extract::Request;
use axum::http::{StatusCode, header};
use axum::middleware::Next;
use axum::response::{IntoResponse, Response};
use mqgate_codecs::mq::Mqrc;

/// Most bytes of a plain-text error body kept as the message.
const MAX_TEXT: usize = 4096;

/// `app` with a JSON 404 for unknown routes and every non-JSON error answer
/// rewritten as JSON; applied to the whole router (queue manager, RPC,
/// Tuxedo and PAMS routes alike). Path parameters that cannot be read (a
/// malformed percent-escape, escapes that are not UTF-8) are refused first
/// with the MQRC of what they name (src/http/names.rs), on every route.
pub fn with_json_errors(app: Router) -> Router {
    app.route_layer(axum::middleware::from_fn(super::names::check_path_params))
        .fallback(unknown_route)
        .layer(axum::middleware::from_fn(json_errors))
}

/// An unknown path: 404, 2298 MQRC_FUNCTION_NOT_SUPPORTED (no such function).
async fn unknown_route(req: Request) -> ApiError {
    ApiError::new(
        Mqrc::FUNCTION_NOT_SUPPORTED,
        format!(
            "no route {} {} (see docs/http-api.md)",
            req.method(),
            shown(req.uri().path())
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
    let path = shown(req.uri().path());
    let res = next.run(req).await;
    let status = res.status();
    let is_json = res
        .headers()
        .get(header::CONTENT_TYPE)
        .is_some_and(|v| super::is_json_media_type(v.as_bytes()));
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
    let body = super::error_body(mqrc, &message);
    let mut out = (status, axum::Json(body)).into_response();
    // A 405 keeps its Allow header (the methods the path has).
    if let Some(allow) = allow {
        out.headers_mut().insert(header::ALLOW, allow);
    }
    out
}

/// The JSON form of an answer hyper writes itself, before any handler runs,
/// for a request it cannot parse: `400 Bad Request` (a malformed request
/// line or header), `414 URI Too Long`, `431 Request Header Fields Too
/// Large` — a status line and headers with `content-length: 0` and no body.
/// Returns that answer with the JSON error body of docs/http-api.md
/// ("Errors": 2004 MQRC_BUFFER_ERROR, a request the server could not read)
/// and its headers otherwise kept, or `None` when `bytes` is not exactly
/// such an answer (every answer of the API's own has a Content-Type).
pub fn json_for_automatic_answer(bytes: &[u8]) -> Option<Vec<u8>> {
    let head = bytes.strip_suffix(b"\r\n\r\n")?;
    let text = std::str::from_utf8(head).ok()?;
    let mut lines = text.split("\r\n");
    let status_line = lines.next()?;
    let code = status_line.strip_prefix("HTTP/1.1 ")?.get(..3)?;
    let why = match code {
        "400" => "the request line or a header is malformed (RFC 9112 message syntax)",
        "414" => "the request target is longer than the server accepts",
        "431" => "the request head (request line and headers) is larger than the server accepts",
        _ => return None,
    };
    let mut kept = Vec::new();
    let mut empty = false;
    for line in lines {
        let (name, value) = line.split_once(':')?;
        if name.eq_ignore_ascii_case("content-type") {
            return None;
        }
        if name.eq_ignore_ascii_case("content-length") {
            empty = value.trim() == "0";
        } else {
            kept.push(line);
        }
    }
    if !empty {
        return None;
    }
    let body = super::error_body(
        Mqrc::BUFFER_ERROR,
        &format!("the request could not be read: {why}"),
    )
    .to_string();
    let mut out = format!(
        "{status_line}\r\ncontent-type: application/json\r\ncontent-length: {}\r\n",
        body.len()
    );
    for line in kept {
        out.push_str(line);
        out.push_str("\r\n");
    }
    out.push_str("\r\n");
    out.push_str(&body);
    Some(out.into_bytes())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn hyper_s_own_error_answers_become_json() {
        // What hyper 1.x writes for a request it cannot parse.
        let canned = b"HTTP/1.1 400 Bad Request\r\nconnection: close\r\ncontent-length: 0\r\ndate: Wed, 02 Dec 2026 01:19:27 GMT\r\n\r\n";
        let out = String::from_utf8(json_for_automatic_answer(canned).unwrap()).unwrap();
        let (head, body) = out.split_once("\r\n\r\n").unwrap();
        assert!(head.starts_with("HTTP/1.1 400 Bad Request\r\n"), "{head}");
        assert!(
            head.contains("\r\ncontent-type: application/json\r\n"),
            "{head}"
        );
        assert!(
            head.contains(&format!("\r\ncontent-length: {}\r\n", body.len())),
            "{head}"
        );
        assert!(head.contains("\r\nconnection: close"), "{head}");
        assert!(
            head.contains("\r\ndate: Wed, 02 Dec 2026 01:19:27 GMT"),
            "{head}"
        );
        let v: serde_json::Value = serde_json::from_str(body).unwrap();
        assert_eq!(v["mqrc"], 2004);
        assert_eq!(v["reason"], "MQRC_BUFFER_ERROR");
        let canned = b"HTTP/1.1 431 Request Header Fields Too Large\r\ncontent-length: 0\r\n\r\n";
        assert!(json_for_automatic_answer(canned).is_some());
        // Anything else passes unchanged: the API's own answers, bodies,
        // other statuses, a head with more after it.
        for other in [
            &b"HTTP/1.1 400 Bad Request\r\ncontent-type: application/json\r\ncontent-length: 0\r\n\r\n"[..],
            b"HTTP/1.1 204 No Content\r\ncontent-length: 0\r\n\r\n",
            b"HTTP/1.1 400 Bad Request\r\ncontent-length: 5\r\n\r\n",
            b"HTTP/1.1 400 Bad Request\r\ncontent-length: 0\r\n\r\nmore",
            b"{\"mqrc\": 2004}",
        ] {
            assert!(json_for_automatic_answer(other).is_none());
        }
    }
}

//! HTTP errors as JSON: `{"mqrc": 2085, "reason": "MQRC_UNKNOWN_OBJECT_NAME", "message": "..."}`.

use crate::mqi::QmError;
use axum::Json;
use axum::http::StatusCode;
use axum::response::{IntoResponse, Response};
use mqgate_codecs::mq::Mqrc;

/// An MQRC reason turned into an HTTP response.
#[derive(Debug)]
pub struct ApiError(pub QmError);

impl ApiError {
    /// An error with reason `mqrc`.
    pub fn new(mqrc: Mqrc, message: impl Into<String>) -> Self {
        ApiError(QmError::new(mqrc, message))
    }
}

impl From<QmError> for ApiError {
    fn from(e: QmError) -> Self {
        ApiError(e)
    }
}

/// The HTTP status for a reason (documented in docs/http-api.md).
pub fn status_for(mqrc: Mqrc) -> StatusCode {
    match mqrc {
        Mqrc::UNKNOWN_OBJECT_NAME
        | Mqrc::UNKNOWN_ALIAS_BASE_Q
        | Mqrc::UNKNOWN_REMOTE_Q_MGR
        | Mqrc::UNKNOWN_XMIT_Q
        | Mqrc::UNKNOWN_CHANNEL_NAME
        | Mqrc::NO_MSG_AVAILABLE => StatusCode::NOT_FOUND,
        Mqrc::MSG_TOO_BIG_FOR_Q | Mqrc::MSG_TOO_BIG_FOR_Q_MGR => StatusCode::PAYLOAD_TOO_LARGE,
        Mqrc::PUT_INHIBITED | Mqrc::GET_INHIBITED | Mqrc::NOT_AUTHORIZED => StatusCode::FORBIDDEN,
        Mqrc::Q_FULL | Mqrc::Q_MGR_QUIESCING | Mqrc::Q_MGR_STOPPING => {
            StatusCode::SERVICE_UNAVAILABLE
        }
        Mqrc::BACKED_OUT => StatusCode::CONFLICT,
        Mqrc::FUNCTION_NOT_SUPPORTED => StatusCode::NOT_FOUND,
        // The store's disk is full: RFC 4918 507 Insufficient Storage.
        Mqrc::Q_SPACE_NOT_AVAILABLE => StatusCode::INSUFFICIENT_STORAGE,
        Mqrc::RESOURCE_PROBLEM | Mqrc::UNEXPECTED_ERROR => StatusCode::INTERNAL_SERVER_ERROR,
        _ => StatusCode::BAD_REQUEST,
    }
}

/// Most bytes of an error's `message`; a longer one is cut (at a character
/// boundary) and ends with `… (N bytes)`, so no request is echoed whole.
pub const MAX_MESSAGE: usize = 1024;

/// The JSON error body `{"mqrc", "reason", "message"}` (docs/http-api.md
/// "Errors"), `message` cut to [`MAX_MESSAGE`] bytes.
pub fn error_body(mqrc: Mqrc, message: &str) -> serde_json::Value {
    let message = cut_message(message);
    serde_json::json!({
        "mqrc": mqrc.0,
        "reason": mqrc.name(),
        "message": message,
    })
}

/// What a JSON body's parse error says, with its place once: `line L,
/// column C: what` (serde_json's own text ends with ` at line L column C`,
/// which is dropped here so that a message does not state it twice).
pub fn json_error_text(e: &serde_json::Error) -> String {
    let text = e.to_string();
    let suffix = format!(" at line {} column {}", e.line(), e.column());
    let what = text.strip_suffix(&suffix).unwrap_or(&text);
    format!("line {}, column {}: {what}", e.line(), e.column())
}

/// `message` as an error body carries it: whole up to [`MAX_MESSAGE`]
/// bytes, else cut there (at a character boundary) and ending with
/// `… (N bytes)`.
pub fn cut_message(message: &str) -> String {
    if message.len() <= MAX_MESSAGE {
        return message.to_string();
    }
    let mut cut = MAX_MESSAGE;
    while !message.is_char_boundary(cut) {
        cut -= 1;
    }
    format!("{}… ({} bytes)", &message[..cut], message.len())
}

/// True when a Content-Type value names `application/json`: media types
/// compare case-insensitively and may carry parameters such as
/// `; charset=utf-8` (RFC 9110 §8.3.1 "Media Type").
pub fn is_json_media_type(value: &[u8]) -> bool {
    let essence = value.split(|&b| b == b';').next().unwrap_or_default();
    essence
        .trim_ascii()
        .eq_ignore_ascii_case(b"application/json")
}

/// A request body whose Content-Type (RFC 9110 §8.3 "Content-Type") is not
/// the one its route takes: answered 415 Unsupported Media Type (RFC 9110
/// §15.5.16) with 2004 MQRC_BUFFER_ERROR (a body the server cannot read,
/// docs/http-api.md "Errors") and a message naming the type found (quoted
/// and cut as every repeated value, [`shown`](crate::mqi::names::shown)) or
/// saying there was none.
#[derive(Debug)]
pub struct UnsupportedMediaType(pub String);

impl IntoResponse for UnsupportedMediaType {
    fn into_response(self) -> Response {
        (
            StatusCode::UNSUPPORTED_MEDIA_TYPE,
            Json(error_body(Mqrc::BUFFER_ERROR, &self.0)),
        )
            .into_response()
    }
}

/// Checks that a request to `route` (e.g. `POST /v1/messages`) whose body
/// is JSON says so: Content-Type `application/json` in any case, with or
/// without parameters ([`is_json_media_type`]). Errors: any other type, or
/// none (RFC 9110 §8.3: without it the body is not known to be JSON).
pub fn require_json(
    headers: &axum::http::HeaderMap,
    route: &str,
) -> Result<(), UnsupportedMediaType> {
    match headers.get(axum::http::header::CONTENT_TYPE) {
        Some(v) if is_json_media_type(v.as_bytes()) => Ok(()),
        Some(v) => Err(UnsupportedMediaType(format!(
            "Content-Type {} is not supported by {route}: its body is JSON; send Content-Type: application/json",
            crate::mqi::names::shown(&String::from_utf8_lossy(v.as_bytes()))
        ))),
        None => Err(UnsupportedMediaType(format!(
            "{route} needs Content-Type: application/json (its body is JSON); the request has no Content-Type"
        ))),
    }
}

impl IntoResponse for ApiError {
    fn into_response(self) -> Response {
        let e = self.0;
        (status_for(e.mqrc), Json(error_body(e.mqrc, &e.message))).into_response()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn json_media_types_compare_without_case_and_allow_parameters() {
        // RFC 9110 §8.3.1: type and subtype are case-insensitive; parameters
        // follow a `;`.
        for yes in [
            "application/json",
            "APPLICATION/JSON",
            "Application/Json; charset=utf-8",
            " application/json ;charset=UTF-8",
        ] {
            assert!(is_json_media_type(yes.as_bytes()), "{yes}");
        }
        for no in [
            "application/jsonx",
            "text/plain",
            "application/octet-stream",
            "",
        ] {
            assert!(!is_json_media_type(no.as_bytes()), "{no}");
        }
    }

    #[test]
    fn a_json_route_refuses_other_media_types_with_415_naming_them() {
        // RFC 9110 §15.5.16 "415 Unsupported Media Type"; docs/http-api.md
        // "Errors": 2004 MQRC_BUFFER_ERROR, the message names the type.
        let mut h = axum::http::HeaderMap::new();
        assert!(require_json(&h, "POST /v1/messages").unwrap_err().0.contains(
            "POST /v1/messages needs Content-Type: application/json (its body is JSON); the request has no Content-Type"
        ));
        h.insert(header_name(), "Text/Plain; charset=utf-8".parse().unwrap());
        let e = require_json(&h, "POST /v1/messages").unwrap_err();
        assert_eq!(
            e.0,
            "Content-Type \"Text/Plain; charset=utf-8\" is not supported by POST /v1/messages: its body is JSON; send Content-Type: application/json"
        );
        let res = e.into_response();
        assert_eq!(res.status(), StatusCode::UNSUPPORTED_MEDIA_TYPE);
        // RFC 9110 §8.3.1: the type is case-insensitive and takes parameters.
        h.insert(
            header_name(),
            "APPLICATION/Json;charset=UTF-8".parse().unwrap(),
        );
        assert!(require_json(&h, "POST /v1/messages").is_ok());
    }

    fn header_name() -> axum::http::HeaderName {
        axum::http::header::CONTENT_TYPE
    }

    #[test]
    fn a_json_error_states_its_place_once() {
        let e = serde_json::from_str::<serde_json::Value>("{\"a\": tru}").unwrap_err();
        // serde_json says "expected ident at line 1 column 10" (the column
        // after `tru`, where the ident ended early).
        assert_eq!(e.to_string(), "expected ident at line 1 column 10");
        assert_eq!(json_error_text(&e), "line 1, column 10: expected ident");
    }

    #[test]
    fn long_messages_are_cut() {
        let v = error_body(Mqrc::OPTIONS_ERROR, &"x".repeat(5000));
        let m = v["message"].as_str().unwrap();
        assert!(m.ends_with("… (5000 bytes)"), "{m}");
        assert!(m.len() < MAX_MESSAGE + 32, "{}", m.len());
        assert_eq!(v["mqrc"], 2046);
        assert_eq!(v["reason"], "MQRC_OPTIONS_ERROR");
    }
}

//! Names and tokens in request paths: one check for every route with path
//! parameters (queue API, device queues, RPC, Tuxedo RTQ, PAMS, channels,
//! units of work), before its handler runs ([`check_path_params`]).

use super::ApiError;
use crate::mqi::names::shown;
use axum::extract::{MatchedPath, Request};
use axum::middleware::Next;
use axum::response::{IntoResponse, Response};
use mqgate_codecs::mq::Mqrc;

/// The first `%` of `segment` not followed by two hex digits, as the escape
/// text.
fn bad_escape(segment: &str) -> Option<String> {
    let b = segment.as_bytes();
    let mut i = 0;
    while i < b.len() {
        if b[i] == b'%' {
            let ok =
                b.len() >= i + 3 && b[i + 1].is_ascii_hexdigit() && b[i + 2].is_ascii_hexdigit();
            if !ok {
                let end = (i + 3).min(b.len());
                return Some(String::from_utf8_lossy(&b[i..end]).into_owned());
            }
            i += 3;
        } else {
            i += 1;
        }
    }
    None
}

/// `segment` with its percent-escapes decoded (RFC 3986 §2.1), when the
/// bytes are UTF-8; escapes already checked by [`bad_escape`].
pub(crate) fn decodes_to_utf8(segment: &str) -> bool {
    let b = segment.as_bytes();
    let mut out = Vec::with_capacity(b.len());
    let mut i = 0;
    while i < b.len() {
        let hex = |c: u8| (c as char).to_digit(16);
        match (
            b[i],
            b.get(i + 1).copied().and_then(hex),
            b.get(i + 2).copied().and_then(hex),
        ) {
            (b'%', Some(h), Some(l)) => {
                out.push((h * 16 + l) as u8);
                i += 3;
            }
            (c, _, _) => {
                out.push(c);
                i += 1;
            }
        }
    }
    std::str::from_utf8(&out).is_ok()
}

/// What a path parameter is, by its name in the route: a token (`lease`,
/// `id`: 32 hex digits, 2046 MQRC_OPTIONS_ERROR when it cannot be one), a
/// device queue manager name (`qmgr`, 2058 MQRC_Q_MGR_NAME_ERROR) or another
/// object name (queue, group, library, program, channel, PAMS address; 2152
/// MQRC_OBJECT_NAME_ERROR).
fn param_error(key: &str, raw: &str, why: String) -> ApiError {
    let (mqrc, what) = match key {
        "lease" => (Mqrc::OPTIONS_ERROR, "lease id"),
        "id" => (Mqrc::OPTIONS_ERROR, "token"),
        "q" | "queue" => (Mqrc::OBJECT_NAME_ERROR, "queue name"),
        // As a malformed device queue manager name (src/route/devices.rs).
        "qmgr" => (Mqrc::Q_MGR_NAME_ERROR, "queue manager name"),
        "group" => (Mqrc::OBJECT_NAME_ERROR, "queue space (group) name"),
        "library" => (Mqrc::OBJECT_NAME_ERROR, "library name"),
        "program" => (Mqrc::OBJECT_NAME_ERROR, "program name"),
        "name" => (Mqrc::OBJECT_NAME_ERROR, "name"),
        "address" => (Mqrc::OBJECT_NAME_ERROR, "address"),
        "subject" => (Mqrc::OBJECT_NAME_ERROR, "subject"),
        _ => (Mqrc::OBJECT_NAME_ERROR, "name"),
    };
    ApiError::new(mqrc, format!("{what} {} in the path: {why}", shown(raw)))
}

/// The first path parameter of `matched` (the route, e.g.
/// `/v1/queues/{q}/messages`) that cannot be taken from `path` (the request
/// path, still percent-encoded), with the error for it: a malformed
/// percent-escape (axum would keep `%ZZ` literally, and `%` is an MQ name
/// character, so a put would reach another queue), or escapes that decode
/// to bytes that are not UTF-8 (`INBOX%DEV0001`: `%DE` is byte 0xDE).
/// Both hint that a literal `%` is written `%25` (RFC 3986 §2.4).
fn check(matched: &str, path: &str) -> Option<ApiError> {
    let raw: Vec<&str> = path.split('/').collect();
    for (i, part) in matched.split('/').enumerate() {
        let Some(key) = part.strip_prefix('{').and_then(|p| p.strip_suffix('}')) else {
            continue;
        };
        let (key, value) = match key.strip_prefix('*') {
            Some(rest) => (rest, raw.get(i..).map(|r| r.join("/")).unwrap_or_default()),
            None => (key, raw.get(i).copied().unwrap_or_default().to_string()),
        };
        if let Some(esc) = bad_escape(&value) {
            return Some(param_error(
                key,
                &value,
                format!("{esc:?} is not a percent-escape (write % as %25)"),
            ));
        }
        if !decodes_to_utf8(&value) {
            return Some(param_error(
                key,
                &value,
                "its percent-escapes decode to bytes that are not UTF-8 (write % as %25)".into(),
            ));
        }
    }
    None
}

/// Refuses a request whose path parameters cannot be read ([`check`]):
/// 400, 2152 MQRC_OBJECT_NAME_ERROR for a name, 2046 MQRC_OPTIONS_ERROR for
/// a lease or unit-of-work token (docs/http-api.md "Errors"), instead of
/// the extractor's own text. A route layer: runs for matched routes only.
pub async fn check_path_params(req: Request, next: Next) -> Response {
    if let Some(matched) = req.extensions().get::<MatchedPath>()
        && let Some(e) = check(matched.as_str(), req.uri().path())
    {
        return e.into_response();
    }
    next.run(req).await
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn names_and_tokens_that_cannot_be_read_are_named_with_their_reason() {
        // docs/http-api.md "Errors": 2152 MQRC_OBJECT_NAME_ERROR for a
        // name, 2046 MQRC_OPTIONS_ERROR for a token.
        let e = check(
            "/v1/queues/{q}/messages",
            "/v1/queues/INBOX%DEV0001/messages",
        )
        .unwrap();
        assert_eq!(e.0.mqrc, Mqrc::OBJECT_NAME_ERROR);
        assert_eq!(
            e.0.message,
            "queue name \"INBOX%DEV0001\" in the path: its percent-escapes decode to bytes that are not UTF-8 (write % as %25)"
        );
        let e = check("/v1/rpc/{library}/{program}", "/v1/rpc/LIB/P%ZZ").unwrap();
        assert_eq!(e.0.mqrc, Mqrc::OBJECT_NAME_ERROR);
        assert_eq!(
            e.0.message,
            "program name \"P%ZZ\" in the path: \"%ZZ\" is not a percent-escape (write % as %25)"
        );
        let e = check("/v1/uow/{id}/commit", "/v1/uow/%FF/commit").unwrap();
        assert_eq!(e.0.mqrc, Mqrc::OPTIONS_ERROR);
        // UTF-8 escapes and plain names pass.
        assert!(check("/v1/queues/{q}/messages", "/v1/queues/DEV.%C3%A9/messages").is_none());
        assert!(check("/v1/queues/{q}/messages", "/v1/queues/A%25B/messages").is_none());
        assert!(check("/v1/status", "/v1/status").is_none());
    }
}

//! Queue names in request paths.

use super::ApiError;
use axum::extract::Request;
use axum::middleware::Next;
use axum::response::{IntoResponse, Response};
use mqgate_codecs::mq::Mqrc;

/// The first `%` of `path` not followed by two hex digits, as the escape text.
fn bad_escape(path: &str) -> Option<String> {
    let b = path.as_bytes();
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

/// Rejects a path with a malformed percent-escape (e.g. `DEV.%ZZ`): 400,
/// 2152 MQRC_OBJECT_NAME_ERROR. axum would keep `%ZZ` literally, and `%` is
/// an MQ name character, so the put would reach another queue.
pub async fn reject_bad_escapes(req: Request, next: Next) -> Response {
    if let Some(esc) = bad_escape(req.uri().path()) {
        return ApiError::new(
            Mqrc::OBJECT_NAME_ERROR,
            format!("queue name: {esc:?} in the path is not a percent-escape (write % as %25)"),
        )
        .into_response();
    }
    next.run(req).await
}

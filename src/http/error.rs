//! HTTP errors as JSON: `{"mqrc": 2085, "reason": "MQRC_UNKNOWN_OBJECT_NAME", "message": "..."}`.

use crate::qmgr::QmError;
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
        | Mqrc::NO_MSG_AVAILABLE => StatusCode::NOT_FOUND,
        Mqrc::MSG_TOO_BIG_FOR_Q | Mqrc::MSG_TOO_BIG_FOR_Q_MGR => StatusCode::PAYLOAD_TOO_LARGE,
        Mqrc::PUT_INHIBITED | Mqrc::GET_INHIBITED => StatusCode::FORBIDDEN,
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

impl IntoResponse for ApiError {
    fn into_response(self) -> Response {
        let e = self.0;
        let body = serde_json::json!({
            "mqrc": e.mqrc.0,
            "reason": e.mqrc.name(),
            "message": e.message,
        });
        (status_for(e.mqrc), Json(body)).into_response()
    }
}

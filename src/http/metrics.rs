//! `GET /metrics` in the Prometheus text format, version 0.0.4
//! (docs/operations.md "Metrics"; Prometheus "Exposition formats").

use super::ApiError;
use super::ops::OpsState;
use axum::extract::State;
use axum::http::header;
use axum::response::{IntoResponse, Response};
use mqgate_codecs::mq::Mqrc;
use std::sync::Arc;

/// The metrics, encoded on the blocking pool: reading every queue's depth
/// walks the object table, which may hold a million device queues.
///
/// Errors: 500 with 2195 MQRC_UNEXPECTED_ERROR if encoding fails.
pub async fn metrics(State(s): State<OpsState>) -> Response {
    let registry = Arc::clone(&s.registry);
    let text = tokio::task::spawn_blocking(move || crate::metrics::encode(&registry)).await;
    match text {
        Ok(Ok(text)) => {
            ([(header::CONTENT_TYPE, crate::metrics::CONTENT_TYPE)], text).into_response()
        }
        Ok(Err(e)) => ApiError::new(
            Mqrc::UNEXPECTED_ERROR,
            format!("encoding the metrics failed: {e}"),
        )
        .into_response(),
        Err(e) => ApiError::new(
            Mqrc::UNEXPECTED_ERROR,
            format!("the metrics task failed: {e}"),
        )
        .into_response(),
    }
}

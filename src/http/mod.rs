//! The HTTP API (axum): put, get with lease and acknowledge, browse, units of
//! work, queue list and status. Routes and errors: docs/http-api.md.

mod devices;
mod error;
mod exits;
mod fallback;
pub mod md_json;
mod messages;
mod names;
mod uow;

pub use error::{ApiError, status_for};
pub use fallback::with_json_errors;

use crate::config::Config;
use crate::qmgr::QueueManager;
use axum::Router;
use axum::extract::DefaultBodyLimit;
use axum::routing::{get, post};
use std::sync::Arc;
use std::time::Instant;

/// What every handler sees.
#[derive(Clone)]
pub struct AppState {
    pub qm: Arc<QueueManager>,
    pub config: Arc<Config>,
    pub started: Instant,
    /// The queue-point exits of the top-level `exits:` section.
    pub exits: Arc<crate::exits::QueueExits>,
    /// Channel status (receiver and sender channels).
    pub channels: Arc<crate::channel::StatusBoard>,
}

/// The router for `state`. Request bodies are limited to the queue manager's
/// MAXMSGL with room for base64 in a JSON put.
pub fn router(state: AppState) -> Router {
    let limit = state.qm.max_msg_length() / 3 * 4 + 64 * 1024;
    Router::new()
        .route("/v1/status", get(messages::status))
        .route("/v1/queues", get(messages::list_queues))
        .route("/v1/queues/{q}/messages", post(messages::put))
        .route("/v1/queues/{q}/messages/next", get(messages::next))
        .route("/v1/queues/{q}/messages/ack/{lease}", post(messages::ack))
        .route(
            "/v1/queues/{q}/messages/backout/{lease}",
            post(messages::backout),
        )
        .route(
            "/v1/devices/{qmgr}/queues/{queue}/messages/next",
            get(devices::next),
        )
        .route(
            "/v1/devices/{qmgr}/queues/{queue}/messages/ack/{lease}",
            post(devices::ack),
        )
        // Queue names are path segments: a bad escape is a bad name, not a
        // literal `%` (which would name another, possibly dynamic, queue).
        .route_layer(axum::middleware::from_fn(names::reject_bad_escapes))
        .route("/v1/uow", post(uow::begin))
        .route("/v1/uow/{id}/commit", post(uow::commit))
        .route("/v1/uow/{id}/backout", post(uow::backout))
        .layer(DefaultBodyLimit::max(limit))
        .with_state(state)
}

/// Runs `f` (which may write to the store) on the blocking pool.
async fn blocking<T: Send + 'static>(
    f: impl FnOnce() -> Result<T, crate::qmgr::QmError> + Send + 'static,
) -> Result<T, ApiError> {
    tokio::task::spawn_blocking(f)
        .await
        .map_err(|e| {
            ApiError::new(
                mqgate_codecs::mq::Mqrc::UNEXPECTED_ERROR,
                format!("task failed: {e}"),
            )
        })?
        .map_err(ApiError::from)
}

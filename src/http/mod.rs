//! The HTTP API (axum): put, get with lease and acknowledge, browse, units of
//! work, queue list and status. Routes and errors: docs/http-api.md.

pub mod auth;
pub mod bus;
mod channels;
mod devices;
mod error;
mod fallback;
pub mod fault_tolerance;
pub mod guard;
mod health;
mod lists;
pub mod md_json;
mod messages;
mod metrics;
mod names;
pub mod ops;
pub mod pams;
pub mod rv;
pub mod rv_routing;
mod uow;

pub use error::{
    ApiError, cut_message, error_body, is_json_media_type, json_error_text, require_json,
    status_for,
};
pub use fallback::{json_for_automatic_answer, with_json_errors};

use crate::config::Config;
use crate::devices::Devices;
use crate::mqi::Mqi;
use axum::Router;
use axum::extract::DefaultBodyLimit;
use axum::routing::{get, post};
use std::sync::Arc;
use std::time::Instant;

/// What every handler sees.
#[derive(Clone)]
pub struct AppState {
    /// The queue interface (queue exits of the top-level `exits:` section).
    pub mqi: Mqi,
    /// The device protocol over the same queue interface.
    pub devices: Devices,
    pub config: Arc<Config>,
    pub started: Instant,
    /// Channel status (receiver and sender channels).
    pub channels: Arc<crate::channel::StatusBoard>,
    /// Starts stopped channels (`POST /v1/channels/{name}/start`).
    pub control: crate::channel::ChannelControl,
}

impl AppState {
    /// The state of a gateway's HTTP API over `mqi`: the device protocol
    /// takes its lease and longest wait from `config.http` (`lease_ms`,
    /// `max_wait_ms`).
    pub fn new(
        mqi: Mqi,
        config: Arc<Config>,
        channels: Arc<crate::channel::StatusBoard>,
    ) -> AppState {
        let devices = Devices::new(
            mqi.clone(),
            std::time::Duration::from_millis(config.http.lease_ms),
            std::time::Duration::from_millis(config.http.max_wait_ms),
        );
        AppState {
            mqi,
            devices,
            config,
            started: Instant::now(),
            control: crate::channel::ChannelControl::new(Arc::clone(&channels)),
            channels,
        }
    }
}

/// The router for `state`. Request bodies are limited to the queue manager's
/// MAXMSGL with room for base64 in a JSON put.
pub fn router(state: AppState) -> Router {
    let limit = state.mqi.max_msg_length() / 3 * 4 + 64 * 1024;
    Router::new()
        .route("/v1/status", get(messages::status))
        .route("/v1/queues", get(messages::list_queues))
        .route("/v1/messages", post(lists::put_list))
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
        .route("/v1/uow", post(uow::begin))
        .route("/v1/uow/{id}/commit", post(uow::commit))
        .route("/v1/uow/{id}/backout", post(uow::backout))
        .route("/v1/channels/{name}/start", post(channels::start))
        .route_layer(axum::middleware::from_fn_with_state(
            state.clone(),
            auth::authorize,
        ))
        .layer(DefaultBodyLimit::max(limit))
        .with_state(state)
}

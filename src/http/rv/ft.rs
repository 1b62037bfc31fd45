//! Fault tolerance groups over HTTP (docs/rendezvous.md "Fault tolerance
//! over HTTP"), thin over `crate::rv::ft::FtService`:
//!
//! - `POST /v1/rv/ft/groups/{group}/members`: join; the answer names the
//!   member id;
//! - `GET /v1/rv/ft/members/{id}/actions`: the member's events as
//!   Server-Sent Events (`ready`, `status`, `action`, `advisory`, `end`);
//!   while it is open the member lives, when it closes the member leaves;
//! - `POST /v1/rv/ft/members/{id}/heartbeat`: a sign of life for programs
//!   that poll, answering the events waiting;
//! - `GET /v1/rv/ft/members/{id}`, `POST /v1/rv/ft/members/{id}/weight`,
//!   `DELETE /v1/rv/ft/members/{id}`;
//! - `GET /v1/rv/ft/groups/{group}/monitor[?lost_interval=S]`: a passive
//!   monitor's active count as Server-Sent Events.
//!
//! Errors are those of the other Rendezvous routes (`tibrv_status`,
//! `field`, `element`, `message`).

use std::convert::Infallible;
use std::time::Duration;

use axum::Json;
use axum::Router;
use axum::body::Body;
use axum::extract::{Path, RawQuery, State};
use axum::http::{HeaderMap, StatusCode};
use axum::response::IntoResponse;
use axum::response::Response;
use axum::response::sse::{Event, KeepAlive, Sse};
use axum::routing::{get, post};
use futures_util::StreamExt;
use serde_json::{Map, Value, json};

use super::body::{invalid as bad, object_body};
use super::{KEEP_ALIVE, RvError};
use crate::mqi::names::shown;
use crate::rv::ft::error::IntervalName;
use crate::rv::ft::member::Status;
use crate::rv::ft::params::interval;
use crate::rv::ft::service::{MemberEvent, MemberInfo};
use crate::rv::ft::{FtError, FtParams, FtService};
use crate::rv::json::envelope_to_json;

/// The fault tolerance routes over `ft`.
pub fn routes(ft: FtService) -> Router {
    Router::new()
        .route("/v1/rv/ft/groups/{group}/members", post(join))
        .route("/v1/rv/ft/groups/{group}/monitor", get(monitor))
        .route("/v1/rv/ft/members/{id}", get(info).delete(leave))
        .route("/v1/rv/ft/members/{id}/actions", get(actions))
        .route("/v1/rv/ft/members/{id}/heartbeat", post(heartbeat))
        .route("/v1/rv/ft/members/{id}/weight", post(weight))
        .with_state(ft)
}

impl From<FtError> for RvError {
    fn from(e: FtError) -> RvError {
        let status = e.status();
        RvError {
            status,
            http: match e {
                FtError::UnknownMember(_) => StatusCode::NOT_FOUND,
                FtError::StreamOpen(_) => StatusCode::CONFLICT,
                FtError::Closed => StatusCode::SERVICE_UNAVAILABLE,
                _ => StatusCode::BAD_REQUEST,
            },
            field: e.field(),
            element: e.element(),
            message: e.to_string(),
            mqrc: None,
        }
    }
}

/// A route that takes no query parameters refuses any.
fn no_query(query: Option<&str>) -> Result<(), RvError> {
    match query.filter(|q| !q.is_empty()) {
        None => Ok(()),
        Some(q) => Err(bad(
            "query",
            format!(
                "unknown query parameters {}: this route takes none",
                shown(q)
            ),
        )),
    }
}

/// A required (or, with `default`, optional) integer of 1 to 65535.
fn u16_key(o: &Map<String, Value>, key: &'static str) -> Result<u16, RvError> {
    match o.get(key) {
        None => Err(bad(key, format!("'{key}' is missing"))),
        Some(v) => v
            .as_u64()
            .and_then(|n| u16::try_from(n).ok())
            .ok_or_else(|| bad(key, format!("{key} {v} is not an integer of 0 to 65535"))),
    }
}

/// An interval in seconds; `default` when absent (none: required).
fn seconds_key(
    o: &Map<String, Value>,
    key: &'static str,
    default: Option<f64>,
) -> Result<f64, RvError> {
    match (o.get(key), default) {
        (None, Some(d)) => Ok(d),
        (None, None) => Err(bad(key, format!("'{key}' is missing"))),
        (Some(v), _) => v
            .as_f64()
            .ok_or_else(|| bad(key, format!("{key} {v} is not a number of seconds"))),
    }
}

/// `{"member", "group", "weight", "active_goal", intervals (seconds),
/// "joined", "active", "rank", "members", "active_members", "ranks"}`.
fn info_json(i: &MemberInfo) -> Value {
    let mut v = json!({
        "member": i.member,
        "group": i.group,
        "weight": i.params.weight,
        "active_goal": i.params.active_goal,
        "heartbeat_interval": i.params.heartbeat.as_secs_f64(),
        "preparation_interval": i.params.preparation.as_secs_f64(),
        "activation_interval": i.params.activation.as_secs_f64(),
        "joined": i.joined,
    });
    if let Some(s) = i.status {
        v["active"] = json!(s.active);
        v["rank"] = json!(s.rank);
        v["members"] = json!(s.members);
        v["active_members"] = json!(s.active_members);
    }
    v["ranks"] = i
        .ranks
        .iter()
        .map(|r| {
            json!({"rank": r.rank, "member": r.member, "weight": r.weight,
                   "joined": r.joined, "active": r.active})
        })
        .collect();
    v
}

fn status_json(s: &Status) -> Value {
    json!({"rank": s.rank, "members": s.members, "active": s.active,
           "active_members": s.active_members, "weight": s.weight})
}

/// An event's name and data.
fn event_json(e: &MemberEvent) -> (&'static str, Value) {
    match e {
        MemberEvent::Action(a) => (
            "action",
            json!({"action": {"number": a.number(), "name": a.name()}}),
        ),
        MemberEvent::Status(s) => ("status", status_json(s)),
        MemberEvent::Advisory(env) => ("advisory", envelope_to_json(env)),
    }
}

/// `POST /v1/rv/ft/groups/{group}/members`: joins; 201 with the member.
async fn join(
    State(ft): State<FtService>,
    Path(group): Path<String>,
    RawQuery(query): RawQuery,
    headers: HeaderMap,
    body: Body,
) -> Result<(StatusCode, Json<Value>), RvError> {
    no_query(query.as_deref())?;
    crate::rv::ft::params::check_group(&group)?;
    let o = object_body(
        &headers,
        body,
        "POST /v1/rv/ft/groups/{group}/members",
        &[
            "weight",
            "active_goal",
            "heartbeat_interval",
            "preparation_interval",
            "activation_interval",
        ],
    )
    .await?;
    let params = FtParams::from_seconds(
        u16_key(&o, "weight")?,
        u16_key(&o, "active_goal")?,
        seconds_key(&o, "heartbeat_interval", None)?,
        seconds_key(&o, "preparation_interval", Some(0.0))?,
        seconds_key(&o, "activation_interval", None)?,
    )?;
    let member = ft.join(&group, params)?;
    Ok((StatusCode::CREATED, Json(info_json(&member.info()))))
}

/// `GET /v1/rv/ft/members/{id}`.
async fn info(
    State(ft): State<FtService>,
    Path(id): Path<String>,
    RawQuery(query): RawQuery,
) -> Result<Json<Value>, RvError> {
    no_query(query.as_deref())?;
    Ok(Json(info_json(&ft.member(&id)?.info())))
}

/// `DELETE /v1/rv/ft/members/{id}`: leaves.
async fn leave(
    State(ft): State<FtService>,
    Path(id): Path<String>,
    RawQuery(query): RawQuery,
) -> Result<Json<Value>, RvError> {
    no_query(query.as_deref())?;
    ft.member(&id)?.leave()?;
    Ok(Json(json!({"member": id, "left": true})))
}

/// `POST /v1/rv/ft/members/{id}/heartbeat`: the member and the events
/// that were waiting (`[{"event", "data"}]`).
async fn heartbeat(
    State(ft): State<FtService>,
    Path(id): Path<String>,
    RawQuery(query): RawQuery,
) -> Result<Json<Value>, RvError> {
    no_query(query.as_deref())?;
    let (info, events) = ft.member(&id)?.heartbeat()?;
    let mut v = info_json(&info);
    v["events"] = events
        .iter()
        .map(|e| {
            let (name, data) = event_json(e);
            json!({"event": name, "data": data})
        })
        .collect();
    Ok(Json(v))
}

/// `POST /v1/rv/ft/members/{id}/weight` with `{"weight": N}`.
async fn weight(
    State(ft): State<FtService>,
    Path(id): Path<String>,
    RawQuery(query): RawQuery,
    headers: HeaderMap,
    body: Body,
) -> Result<Json<Value>, RvError> {
    no_query(query.as_deref())?;
    let member = ft.member(&id)?;
    let o = object_body(
        &headers,
        body,
        "POST /v1/rv/ft/members/{id}/weight",
        &["weight"],
    )
    .await?;
    let w = u16_key(&o, "weight")?;
    Ok(Json(info_json(&member.set_weight(w).await?)))
}

/// `GET /v1/rv/ft/members/{id}/actions`: the event stream.
async fn actions(
    State(ft): State<FtService>,
    Path(id): Path<String>,
    RawQuery(query): RawQuery,
) -> Result<Response, RvError> {
    no_query(query.as_deref())?;
    let member = ft.member(&id)?;
    let stream = member.open_stream()?;
    let info = member.info();
    // A comment every heartbeat interval: a program that went away is
    // noticed (the write fails) within about two.
    let keep_alive = info.params.heartbeat.min(KEEP_ALIVE);
    let ready = Event::default()
        .event("ready")
        .data(info_json(&info).to_string());
    let events = futures_util::stream::unfold(Some(stream), |s| async move {
        let mut s = s?;
        match s.next().await {
            Ok(e) => {
                let (name, data) = event_json(&e);
                Some((Event::default().event(name).data(data.to_string()), Some(s)))
            }
            Err(why) => Some((
                Event::default()
                    .event("end")
                    .data(json!({"reason": why}).to_string()),
                None,
            )),
        }
    });
    let stream = futures_util::stream::iter([ready])
        .chain(events)
        .map(Ok::<Event, Infallible>);
    Ok(Sse::new(stream)
        .keep_alive(KeepAlive::new().interval(keep_alive))
        .into_response())
}

/// `GET /v1/rv/ft/groups/{group}/monitor[?lost_interval=S]`: `ready`,
/// then `active` with each change of the count, `end` when the gateway
/// stops.
async fn monitor(
    State(ft): State<FtService>,
    Path(group): Path<String>,
    RawQuery(query): RawQuery,
) -> Result<Response, RvError> {
    let mut lost = None;
    for (k, v) in form_urlencoded::parse(query.as_deref().unwrap_or("").as_bytes()) {
        if k != "lost_interval" {
            return Err(bad(
                "query",
                format!(
                    "unknown query parameter {} (parameters: lost_interval)",
                    shown(&k)
                ),
            ));
        }
        let s: f64 = v.parse().map_err(|_| {
            bad(
                "lost_interval",
                format!("lost_interval {} is not a number of seconds", shown(&v)),
            )
        })?;
        lost = Some(interval(IntervalName::Lost, s)?);
    }
    let monitor = ft.monitor(&group, lost)?;
    let ready = Event::default().event("ready").data(
        json!({"group": group, "lost_interval": lost.map(|d: Duration| d.as_secs_f64())})
            .to_string(),
    );
    let counts = futures_util::stream::unfold(Some(monitor), |m| async move {
        let mut m = m?;
        match m.next().await {
            Some(n) => {
                let data = json!({"group": m.group(), "active": n}).to_string();
                Some((Event::default().event("active").data(data), Some(m)))
            }
            None => Some((
                Event::default()
                    .event("end")
                    .data(json!({"reason": "the gateway is stopping"}).to_string()),
                None,
            )),
        }
    });
    let stream = futures_util::stream::iter([ready])
        .chain(counts)
        .map(Ok::<Event, Infallible>);
    Ok(Sse::new(stream)
        .keep_alive(KeepAlive::new().interval(KEEP_ALIVE))
        .into_response())
}

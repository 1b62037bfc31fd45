//! Distributed queues over HTTP (docs/rendezvous.md "Distributed queues",
//! "Distributed queues over HTTP"), thin over
//! `crate::rv::dq::DistributedQueues`:
//!
//! - `POST /v1/rv/dq/{name}/members`: join queue `name` as a member
//!   ("tibrvcmTransport_CreateDistributedQueueEx()") → its member id;
//! - `GET /v1/rv/dq/members/{id}/tasks`: the member's tasks as
//!   Server-Sent Events; the open stream keeps the member, which leaves
//!   when it closes;
//! - `POST /v1/rv/dq/members/{id}/tasks/{task}/complete`: the task is
//!   done; `.../release`: give it back undone;
//! - `DELETE /v1/rv/dq/members/{id}`: leave.
//!
//! Errors are those of the other Rendezvous routes (docs/rendezvous.md
//! "Errors").

use std::convert::Infallible;

use axum::Json;
use axum::Router;
use axum::body::Body;
use axum::extract::{Path, RawQuery, State};
use axum::http::{HeaderMap, StatusCode};
use axum::response::sse::{Event, KeepAlive, Sse};
use axum::response::{IntoResponse, Response};
use axum::routing::{delete, get, post};
use futures_util::StreamExt;
use serde_json::{Map, Value, json};

use super::body::{invalid, object_body};
use super::cm::{f64_of, u64_of};
use super::{KEEP_ALIVE, RvError, params};
use crate::rv::dq::{DistributedQueues, DqError, DqParams, MemberEvent};
use crate::rv::json::envelope_to_json;

/// The distributed queue routes over `dq`.
pub fn routes(dq: DistributedQueues) -> Router {
    Router::new()
        .route("/v1/rv/dq/{name}/members", post(join))
        .route("/v1/rv/dq/members/{id}", delete(leave))
        .route("/v1/rv/dq/members/{id}/tasks", get(tasks))
        .route(
            "/v1/rv/dq/members/{id}/tasks/{task}/complete",
            post(complete),
        )
        .route("/v1/rv/dq/members/{id}/tasks/{task}/release", post(release))
        .with_state(dq)
}

/// The HTTP status of a distributed queue refusal.
fn http_status(e: &DqError) -> StatusCode {
    match e {
        DqError::Bus(b) => RvError::from(b.clone()).http,
        DqError::Cm(c) => RvError::from(DqErrorCm(c)).http,
        DqError::UnknownMember { .. } | DqError::UnknownTask { .. } => StatusCode::NOT_FOUND,
        DqError::StreamOpen { .. } => StatusCode::CONFLICT,
        DqError::Name { .. }
        | DqError::Subject { .. }
        | DqError::NoSubjects
        | DqError::Setting { .. } => StatusCode::BAD_REQUEST,
    }
}

/// The HTTP status certified delivery gives a CM refusal.
struct DqErrorCm<'a>(&'a crate::rv::cm::CmError);

impl From<DqErrorCm<'_>> for RvError {
    fn from(e: DqErrorCm<'_>) -> RvError {
        let status = match e.0 {
            crate::rv::cm::CmError::NameInUse { .. } => StatusCode::CONFLICT,
            _ => StatusCode::INTERNAL_SERVER_ERROR,
        };
        RvError {
            status: e.0.status(),
            http: status,
            field: e.0.field(),
            element: e.0.element(),
            message: e.0.to_string(),
            mqrc: None,
        }
    }
}

impl From<DqError> for RvError {
    fn from(e: DqError) -> RvError {
        RvError {
            status: e.status(),
            http: http_status(&e),
            field: e.field(),
            element: e.element(),
            message: e.to_string(),
            mqrc: None,
        }
    }
}

const JOIN_KEYS: &[&str] = &[
    "subjects",
    "worker_weight",
    "worker_tasks",
    "scheduler_weight",
    "scheduler_heartbeat_s",
    "scheduler_activation_s",
    "complete_time_s",
    "backlog_limit_msgs",
    "backlog_limit_bytes",
];

/// A u64 of the body in `0..=max`.
fn bounded(o: &Map<String, Value>, key: &'static str, max: u64) -> Result<Option<u64>, RvError> {
    match u64_of(o, key)? {
        Some(v) if v > max => Err(invalid(key, format!("{key} {v} is over {max}"))),
        v => Ok(v),
    }
}

/// The subjects and parameters of a join body.
fn join_body(name: &str, o: &Map<String, Value>) -> Result<(Vec<String>, DqParams), RvError> {
    let subjects = match o.get("subjects") {
        None | Some(Value::Null) => vec![name.to_string()],
        Some(Value::Array(a)) => a
            .iter()
            .map(|v| {
                v.as_str()
                    .map(str::to_string)
                    .ok_or_else(|| invalid("subjects", format!("subject {v} is not a string")))
            })
            .collect::<Result<_, _>>()?,
        Some(other) => {
            return Err(invalid(
                "subjects",
                format!("subjects {other} is not an array of strings"),
            ));
        }
    };
    let d = DqParams::default();
    let p = DqParams {
        worker_weight: bounded(o, "worker_weight", u64::from(u32::MAX))?
            .map_or(d.worker_weight, |v| v as u32),
        worker_tasks: bounded(o, "worker_tasks", u64::from(u32::MAX))?
            .map_or(d.worker_tasks, |v| v as u32),
        scheduler_weight: bounded(o, "scheduler_weight", u64::from(u16::MAX))?
            .map_or(d.scheduler_weight, |v| v as u16),
        heartbeat_s: f64_of(o, "scheduler_heartbeat_s")?.unwrap_or(d.heartbeat_s),
        activation_s: f64_of(o, "scheduler_activation_s")?.unwrap_or(d.activation_s),
        complete_time_s: f64_of(o, "complete_time_s")?.unwrap_or(d.complete_time_s),
        backlog_limit_msgs: u64_of(o, "backlog_limit_msgs")?.unwrap_or(0),
        backlog_limit_bytes: u64_of(o, "backlog_limit_bytes")?.unwrap_or(0),
    };
    Ok((subjects, p))
}

/// `POST /v1/rv/dq/{name}/members`: 201 with the member id.
async fn join(
    State(dq): State<DistributedQueues>,
    gate: Option<axum::Extension<super::SubjectGate>>,
    Path(name): Path<String>,
    RawQuery(query): RawQuery,
    headers: HeaderMap,
    body: Body,
) -> Result<Response, RvError> {
    params(query.as_deref(), &[])?;
    let o = object_body(&headers, body, "POST /v1/rv/dq/{name}/members", JOIN_KEYS).await?;
    let (subjects, p) = join_body(&name, &o)?;
    // A member is given the tasks sent on these subjects: it listens.
    for subject in &subjects {
        super::authorize_subject(
            gate.as_deref(),
            "subjects",
            subject,
            crate::security::Authority::Sub,
        )?;
    }
    let control = dq.join_kept(&name, &subjects, p.clone())?;
    let answer = json!({
        "member": control.id(),
        "name": name,
        "subjects": subjects,
        "worker_weight": p.worker_weight,
        "worker_tasks": p.worker_tasks,
        "scheduler_weight": p.scheduler_weight,
        "scheduler_heartbeat_s": p.heartbeat_s,
        "scheduler_activation_s": p.activation_s,
        "complete_time_s": p.complete_time_s,
        "backlog_limit_msgs": p.backlog_limit_msgs,
        "backlog_limit_bytes": p.backlog_limit_bytes,
    });
    Ok((StatusCode::CREATED, Json(answer)).into_response())
}

/// `DELETE /v1/rv/dq/members/{id}`.
async fn leave(
    State(dq): State<DistributedQueues>,
    Path(id): Path<String>,
    RawQuery(query): RawQuery,
) -> Result<Json<Value>, RvError> {
    params(query.as_deref(), &[])?;
    dq.leave(&id)?;
    Ok(Json(json!({ "member": id, "left": true })))
}

/// The event of a member event.
fn event_of(e: MemberEvent) -> Event {
    match e {
        MemberEvent::Task(t) => Event::default().event("task").data(
            json!({
                "task": t.id,
                "certified": t.certified,
                "message": envelope_to_json(&t.envelope),
            })
            .to_string(),
        ),
        MemberEvent::Withdrawn(n) => Event::default()
            .event("withdrawn")
            .data(json!({ "task": n }).to_string()),
        MemberEvent::Scheduler(active) => Event::default()
            .event("scheduler")
            .data(json!({ "active": active }).to_string()),
    }
}

/// `GET /v1/rv/dq/members/{id}/tasks`.
async fn tasks(
    State(dq): State<DistributedQueues>,
    Path(id): Path<String>,
    RawQuery(query): RawQuery,
) -> Result<Response, RvError> {
    params(query.as_deref(), &[])?;
    let control = dq.control(&id)?;
    let (events, guard) = dq.take_events(&id)?;
    let ready = Event::default()
        .event("ready")
        .data(json!({ "member": control.id(), "name": control.queue() }).to_string());
    let stream = futures_util::stream::unfold(Some((events, guard)), |state| async move {
        let (mut events, guard) = state?;
        match events.recv().await {
            Some(e) => Some((event_of(e), Some((events, guard)))),
            None => {
                drop(guard);
                let end = Event::default()
                    .event("end")
                    .data(json!({ "reason": "the member ended" }).to_string());
                Some((end, None))
            }
        }
    });
    let stream = futures_util::stream::iter([ready])
        .chain(stream)
        .map(Ok::<Event, Infallible>);
    Ok(Sse::new(stream)
        .keep_alive(KeepAlive::new().interval(KEEP_ALIVE))
        .into_response())
}

fn task_number(text: &str) -> Result<u64, RvError> {
    text.parse().map_err(|_| {
        invalid(
            "task",
            format!("task {} is not a number", crate::mqi::names::shown(text)),
        )
    })
}

/// `POST /v1/rv/dq/members/{id}/tasks/{task}/complete`.
async fn complete(
    State(dq): State<DistributedQueues>,
    Path((id, task)): Path<(String, String)>,
    RawQuery(query): RawQuery,
) -> Result<Json<Value>, RvError> {
    params(query.as_deref(), &[])?;
    let n = task_number(&task)?;
    dq.control(&id)?.complete(n).await?;
    Ok(Json(json!({ "member": id, "task": n, "completed": true })))
}

/// `POST /v1/rv/dq/members/{id}/tasks/{task}/release`.
async fn release(
    State(dq): State<DistributedQueues>,
    Path((id, task)): Path<(String, String)>,
    RawQuery(query): RawQuery,
) -> Result<Json<Value>, RvError> {
    params(query.as_deref(), &[])?;
    let n = task_number(&task)?;
    dq.control(&id)?.release(n).await?;
    Ok(Json(json!({ "member": id, "task": n, "released": true })))
}

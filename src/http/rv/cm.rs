//! Certified delivery over HTTP (docs/rendezvous.md "Certified delivery",
//! "HTTP API"), thin over `crate::rv::cm::CmTransports`:
//!
//! - `POST /v1/rv/cm/transports`: open a CM transport
//!   ("tibrvcmTransport_Create()");
//! - `GET` / `DELETE /v1/rv/cm/transports/{name}`: its ledgers; close it;
//! - `POST /v1/rv/cm/transports/{name}/messages/{subject}?time_limit_s=S`:
//!   a certified send ("tibrvcmTransport_Send()");
//! - `GET /v1/rv/cm/transports/{name}/listen?subject=...&confirm=auto|explicit`:
//!   a certified listener as Server-Sent Events ("tibrvcmListener_Create()");
//! - `POST /v1/rv/cm/transports/{name}/confirm`: explicit confirmation
//!   ("tibrvcmEvent_ConfirmMsg()");
//! - `POST /v1/rv/cm/transports/{name}/listeners/{listener}`: AddListener,
//!   DisallowListener, AllowListener.
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
use axum::routing::{get, post};
use futures_util::StreamExt;
use serde_json::{Map, Value, json};

use super::body::{invalid, object_body};
use super::{KEEP_ALIVE, RvError, SubjectGate, authorize_subject, envelope_of, params};
use crate::rv::Bus;
use crate::rv::cm::listener::AgreementState;
use crate::rv::cm::{CmError, CmTransport, CmTransports, ConfirmMode, CreateOptions, LedgerKind};
use crate::rv::json::envelope_to_json;
use crate::security::Authority;
use axum::Extension;

#[derive(Clone)]
struct CmState {
    cm: CmTransports,
    bus: Bus,
}

/// The certified delivery routes over `cm`, whose transports publish on
/// `bus`.
pub fn routes(cm: CmTransports, bus: Bus) -> Router {
    Router::new()
        .route("/v1/rv/cm/transports", post(create))
        .route("/v1/rv/cm/transports/{name}", get(inspect).delete(close))
        .route("/v1/rv/cm/transports/{name}/messages/{subject}", post(send))
        .route("/v1/rv/cm/transports/{name}/listen", get(listen))
        .route("/v1/rv/cm/transports/{name}/confirm", post(confirm))
        .route(
            "/v1/rv/cm/transports/{name}/listeners/{listener}",
            post(listener_action),
        )
        .with_state(CmState { cm, bus })
}

/// The HTTP status of a certified delivery refusal.
fn http_status(e: &CmError) -> StatusCode {
    match e {
        CmError::Bus(b) => RvError::from(b.clone()).http,
        CmError::UnknownTransport { .. } => StatusCode::NOT_FOUND,
        CmError::NameInUse { .. } => StatusCode::CONFLICT,
        CmError::Disallowed { .. } | CmError::NotCertified { .. } => StatusCode::FORBIDDEN,
        CmError::Store(_) | CmError::Record(_) => StatusCode::INTERNAL_SERVER_ERROR,
        CmError::Name { .. }
        | CmError::StoreNeedsName
        | CmError::Setting { .. }
        | CmError::NotDelivered { .. } => StatusCode::BAD_REQUEST,
    }
}

impl From<CmError> for RvError {
    fn from(e: CmError) -> RvError {
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

pub(super) fn string_of(
    o: &Map<String, Value>,
    key: &'static str,
) -> Result<Option<String>, RvError> {
    match o.get(key) {
        None | Some(Value::Null) => Ok(None),
        Some(Value::String(s)) => Ok(Some(s.clone())),
        Some(other) => Err(invalid(key, format!("{key} {other} is not a string"))),
    }
}

pub(super) fn f64_of(o: &Map<String, Value>, key: &'static str) -> Result<Option<f64>, RvError> {
    match o.get(key) {
        None | Some(Value::Null) => Ok(None),
        Some(v) => v
            .as_f64()
            .map(Some)
            .ok_or_else(|| invalid(key, format!("{key} {v} is not a number"))),
    }
}

pub(super) fn u64_of(o: &Map<String, Value>, key: &'static str) -> Result<Option<u64>, RvError> {
    match o.get(key) {
        None | Some(Value::Null) => Ok(None),
        Some(Value::String(s)) => s
            .parse()
            .map(Some)
            .map_err(|_| invalid(key, format!("{key} {s:?} is not a u64"))),
        Some(v) => v
            .as_u64()
            .map(Some)
            .ok_or_else(|| invalid(key, format!("{key} {v} is not a u64"))),
    }
}

fn transport_json(t: &CmTransport, created: Option<bool>) -> Value {
    let s = t.settings();
    let mut v = json!({
        "name": t.name(),
        "ledger": s.ledger.as_str(),
        "reusable": t.reusable(),
        "persistent": t.persistent(),
        "request_old": s.request_old,
        "default_time_limit_s": s.default_time_limit_s,
    });
    if let Some(c) = created {
        v["created"] = json!(c);
    }
    v
}

/// `POST /v1/rv/cm/transports`: 201 with the new transport, 200 with an
/// open one of that name.
async fn create(
    State(s): State<CmState>,
    RawQuery(query): RawQuery,
    headers: HeaderMap,
    body: Body,
) -> Result<Response, RvError> {
    params(query.as_deref(), &[])?;
    let o = object_body(
        &headers,
        body,
        "POST /v1/rv/cm/transports",
        &[
            "name",
            "ledger",
            "request_old",
            "default_time_limit_s",
            "no_response_s",
            "idle_timeout_ms",
        ],
    )
    .await?;
    let mut opts = CreateOptions {
        name: string_of(&o, "name")?,
        ..CreateOptions::default()
    };
    if let Some(l) = string_of(&o, "ledger")? {
        opts.ledger = match l.as_str() {
            "memory" => LedgerKind::Memory,
            "store" => LedgerKind::Store,
            other => {
                return Err(invalid(
                    "ledger",
                    format!(
                        "ledger {} is not memory or store",
                        crate::mqi::names::shown(other)
                    ),
                ));
            }
        };
    }
    match o.get("request_old") {
        None | Some(Value::Null) => {}
        Some(Value::Bool(b)) => opts.request_old = *b,
        Some(v) => {
            return Err(invalid(
                "request_old",
                format!("request_old {v} is not true or false"),
            ));
        }
    }
    if let Some(t) = f64_of(&o, "default_time_limit_s")? {
        opts.default_time_limit_s = t;
    }
    if let Some(t) = f64_of(&o, "no_response_s")? {
        opts.no_response_s = t;
    }
    if let Some(t) = u64_of(&o, "idle_timeout_ms")? {
        opts.idle_timeout_ms = t;
    }
    let (t, created) = s.cm.create(opts).await?;
    let status = if created {
        StatusCode::CREATED
    } else {
        StatusCode::OK
    };
    Ok((status, Json(transport_json(&t, Some(created)))).into_response())
}

/// `GET /v1/rv/cm/transports/{name}`: the settings and what the ledgers
/// hold.
async fn inspect(
    State(s): State<CmState>,
    Path(name): Path<String>,
    RawQuery(query): RawQuery,
) -> Result<Json<Value>, RvError> {
    params(query.as_deref(), &[])?;
    let t = s.cm.get(&name)?;
    let snap = t.snapshot().await;
    let mut v = transport_json(&t, None);
    v["listeners_open"] = json!(t.listeners_open());
    v["sender"] = json!({
        "pending": snap.pending.iter().map(|(subject, seq, waiting)| json!({
            "subject": subject, "sequence": seq.to_string(), "waiting": waiting,
        })).collect::<Vec<_>>(),
        "registrations": snap.registrations.iter().map(|(l, subject, begin)| json!({
            "listener": l, "subject": subject, "seqno_begin": begin.to_string(),
        })).collect::<Vec<_>>(),
        "disallowed": snap.disallowed,
    });
    v["listener"] = json!({
        "agreements": snap.agreements.iter().map(|a| {
            let (state, begin) = match a.state {
                AgreementState::Requested { .. } => ("requested", None),
                AgreementState::Certified { begin } => ("certified", Some(begin.to_string())),
                AgreementState::Refused => ("refused", None),
                AgreementState::NoResponse => ("no_response", None),
            };
            json!({
                "sender": a.sender, "subject": a.subject, "state": state,
                "seqno_begin": begin, "confirmed_through": a.confirmed_through.to_string(),
            })
        }).collect::<Vec<_>>(),
    });
    Ok(Json(v))
}

/// `DELETE /v1/rv/cm/transports/{name}`.
async fn close(
    State(s): State<CmState>,
    Path(name): Path<String>,
    RawQuery(query): RawQuery,
) -> Result<Json<Value>, RvError> {
    params(query.as_deref(), &[])?;
    s.cm.close(&name).await?;
    Ok(Json(json!({"name": name, "closed": true})))
}

/// `POST /v1/rv/cm/transports/{name}/messages/{subject}?time_limit_s=S`:
/// `{"subject", "sender", "sequence", "listeners"}`.
async fn send(
    State(s): State<CmState>,
    gate: Option<Extension<SubjectGate>>,
    Path((name, subject)): Path<(String, String)>,
    RawQuery(query): RawQuery,
    headers: HeaderMap,
    body: Body,
) -> Result<Json<Value>, RvError> {
    authorize_subject(gate.as_deref(), "subject", &subject, Authority::Pub)?;
    let mut time_limit = None;
    for (_, v) in params(query.as_deref(), &["time_limit_s"])? {
        let t: f64 = v.parse().map_err(|_| {
            invalid(
                "time_limit_s",
                format!(
                    "time_limit_s {} is not a number of seconds",
                    crate::mqi::names::shown(&v)
                ),
            )
        })?;
        time_limit = Some(t);
    }
    let t = s.cm.get(&name)?;
    crate::rv::cm::transport::check_send_subject(&subject)?;
    let envelope = envelope_of(
        &s.bus,
        &subject,
        &headers,
        body,
        "POST /v1/rv/cm/transports/{name}/messages/{subject}",
    )
    .await?;
    let sent = t.send(envelope, time_limit).await?;
    Ok(Json(json!({
        "subject": subject,
        "sender": t.name(),
        "sequence": sent.sequence.to_string(),
        "listeners": sent.listeners,
    })))
}

/// `GET /v1/rv/cm/transports/{name}/listen?subject=...&confirm=auto|explicit`.
async fn listen(
    State(s): State<CmState>,
    gate: Option<Extension<SubjectGate>>,
    Path(name): Path<String>,
    RawQuery(query): RawQuery,
) -> Result<Response, RvError> {
    let mut subjects = Vec::new();
    let mut mode = ConfirmMode::Auto;
    for (k, v) in params(query.as_deref(), &["subject", "confirm"])? {
        if k == "subject" {
            subjects.push(v);
        } else {
            mode = match v.as_str() {
                "auto" => ConfirmMode::Auto,
                "explicit" => ConfirmMode::Explicit,
                other => {
                    return Err(invalid(
                        "confirm",
                        format!(
                            "confirm {} is not auto or explicit",
                            crate::mqi::names::shown(other)
                        ),
                    ));
                }
            };
        }
    }
    if subjects.is_empty() {
        return Err(invalid(
            "subject",
            "GET /v1/rv/cm/transports/{name}/listen needs subject=PATTERN (one or more)",
        ));
    }
    for subject in &subjects {
        authorize_subject(gate.as_deref(), "subject", subject, Authority::Sub)?;
    }
    let t = s.cm.get(&name)?;
    let listener = t.listen(&subjects, mode).await?;
    let ready = Event::default().event("ready").data(
        json!({
            "transport": t.name(),
            "subjects": subjects,
            "confirm": match mode { ConfirmMode::Auto => "auto", ConfirmMode::Explicit => "explicit" },
        })
        .to_string(),
    );
    let bus = s.bus.clone();
    let messages = futures_util::stream::unfold(Some(listener), |l| async move {
        let mut l = l?;
        match l.recv().await {
            Some(d) => {
                let e = Event::default()
                    .event("message")
                    .data(envelope_to_json(&d.envelope).to_string());
                Some((e, Some(l)))
            }
            None => None,
        }
    });
    let end = futures_util::stream::once(async move {
        let reason = if bus.is_closed() {
            "the gateway is stopping"
        } else {
            "the transport closed"
        };
        Event::default()
            .event("end")
            .data(json!({ "reason": reason }).to_string())
    });
    let stream = futures_util::stream::iter([ready])
        .chain(messages)
        .chain(end)
        .map(Ok::<Event, Infallible>);
    Ok(Sse::new(stream)
        .keep_alive(KeepAlive::new().interval(KEEP_ALIVE))
        .into_response())
}

/// `POST /v1/rv/cm/transports/{name}/confirm` `{"sender", "subject",
/// "sequence"}`.
async fn confirm(
    State(s): State<CmState>,
    Path(name): Path<String>,
    RawQuery(query): RawQuery,
    headers: HeaderMap,
    body: Body,
) -> Result<Json<Value>, RvError> {
    params(query.as_deref(), &[])?;
    let o = object_body(
        &headers,
        body,
        "POST /v1/rv/cm/transports/{name}/confirm",
        &["sender", "subject", "sequence"],
    )
    .await?;
    let sender = string_of(&o, "sender")?.ok_or_else(|| invalid("sender", "sender is missing"))?;
    let subject =
        string_of(&o, "subject")?.ok_or_else(|| invalid("subject", "subject is missing"))?;
    let sequence =
        u64_of(&o, "sequence")?.ok_or_else(|| invalid("sequence", "sequence is missing"))?;
    let t = s.cm.get(&name)?;
    t.confirm(&sender, &subject, sequence).await?;
    Ok(Json(json!({
        "sender": sender, "subject": subject, "sequence": sequence.to_string(), "confirmed": true,
    })))
}

/// `POST /v1/rv/cm/transports/{name}/listeners/{listener}` `{"action":
/// "add"|"disallow"|"allow", "subject"}` (`subject` for `add`).
async fn listener_action(
    State(s): State<CmState>,
    Path((name, listener)): Path<(String, String)>,
    RawQuery(query): RawQuery,
    headers: HeaderMap,
    body: Body,
) -> Result<Json<Value>, RvError> {
    params(query.as_deref(), &[])?;
    let o = object_body(
        &headers,
        body,
        "POST /v1/rv/cm/transports/{name}/listeners/{listener}",
        &["action", "subject"],
    )
    .await?;
    let action = string_of(&o, "action")?.ok_or_else(|| invalid("action", "action is missing"))?;
    let t = s.cm.get(&name)?;
    let changed = match action.as_str() {
        "add" => {
            let subject = string_of(&o, "subject")?
                .ok_or_else(|| invalid("subject", "action add needs a subject"))?;
            t.add_listener(&listener, &subject).await?
        }
        "disallow" => t.disallow_listener(&listener).await?,
        "allow" => t.allow_listener(&listener).await?,
        other => {
            return Err(invalid(
                "action",
                format!(
                    "action {} is not add, disallow or allow",
                    crate::mqi::names::shown(other)
                ),
            ));
        }
    };
    Ok(Json(
        json!({"listener": listener, "action": action, "changed": changed}),
    ))
}

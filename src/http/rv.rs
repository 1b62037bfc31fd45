//! The subject bus over HTTP (docs/rendezvous.md "HTTP API"), thin over
//! `crate::rv::Bus`:
//!
//! - `POST /v1/rv/messages/{subject}`: publish; the body is the JSON form
//!   of an envelope (docs/rendezvous.md "JSON form") without `subject`.
//! - `GET /v1/rv/listen?subject=PATTERN[&subject=...][&inbox=true]`: a
//!   listener as Server-Sent Events (WHATWG HTML, "Server-sent events"):
//!   `ready` first (listener, subjects, inbox), then one `message` per
//!   message, `end` when the gateway stops.
//! - `POST /v1/rv/requests/{subject}?timeout_ms=N`: publish with a new
//!   inbox as reply subject; the answer is the first reply.
//!
//! Errors are `{"tibrv_status": {"number", "name"}, "field", "element",
//! "message"}` with the HTTP status of docs/rendezvous.md "Errors".

mod body;
pub mod cm;
pub mod dq;
pub mod ft;

use std::convert::Infallible;
use std::time::Duration;

use axum::Json;
use axum::Router;
use axum::body::Body;
use axum::extract::{Path, RawQuery, State};
use axum::http::{HeaderMap, StatusCode, header};
use axum::response::sse::{Event, KeepAlive, Sse};
use axum::response::{IntoResponse, Response};
use axum::routing::{get, post};
use futures_util::StreamExt;
use mqgate_codecs::rv::msg::Envelope;
use mqgate_codecs::rv::status::TibrvStatus;
use serde_json::{Value, json};

use crate::mqi::Mqi;
use crate::rv::error::RvInputError;
use crate::rv::json::{envelope_from_json, envelope_to_json};
use crate::rv::{Bus, BusError, Delivery, Listener, ListenerOptions, Origin};
use crate::security::{Authority, ObjectType, Principal};
use axum::Extension;

/// How often an idle event stream sends a comment line, so that proxies
/// keep it open and a client that went away is noticed.
pub const KEEP_ALIVE: Duration = Duration::from_secs(15);

/// Default `timeout_ms` of a request, capped at `http.max_wait_ms`.
pub const DEFAULT_REQUEST_TIMEOUT_MS: u64 = 10_000;

/// What the Rendezvous routes see.
#[derive(Clone)]
struct RvState {
    bus: Bus,
    /// `http.max_wait_ms`: the longest `timeout_ms` of a request.
    max_wait_ms: u64,
}

/// The Rendezvous routes over `bus`; requests wait up to `max_wait_ms`.
pub fn routes(bus: Bus, max_wait_ms: u64) -> Router {
    Router::new()
        .route("/v1/rv/messages/{subject}", post(publish))
        .route("/v1/rv/requests/{subject}", post(request))
        .route("/v1/rv/listen", get(listen))
        .with_state(RvState { bus, max_wait_ms })
}

/// A refused Rendezvous call.
#[derive(Debug)]
pub struct RvError {
    /// The `tibrv_status`.
    pub status: TibrvStatus,
    /// The HTTP status.
    pub http: StatusCode,
    /// The request item at fault (`subject`, `reply_subject`, `fields`,
    /// `body`, `timeout_ms`, ...).
    pub field: Option<&'static str>,
    /// The element of the subject at fault, from 1.
    pub element: Option<usize>,
    /// What is wrong.
    pub message: String,
    /// The MQRC reason of a refusal the queue interface made (2035
    /// MQRC_NOT_AUTHORIZED for a subject authority), written as `mqrc`.
    pub mqrc: Option<i32>,
}

impl RvError {
    fn new(status: TibrvStatus, field: &'static str, message: impl Into<String>) -> RvError {
        RvError {
            status,
            http: http_status(status),
            field: Some(field),
            element: None,
            message: message.into(),
            mqrc: None,
        }
    }
}

/// The principal of a Rendezvous request and the queue interface that
/// checks its subject authorities (docs/security.md "Subject
/// authorities"), put on each request by [`with_subject_authorities`].
#[derive(Clone)]
pub struct SubjectGate {
    mqi: Mqi,
    principal: Option<Principal>,
}

/// `router` (Rendezvous routes) with a [`SubjectGate`] on every request, so
/// that its handlers check +pub and +sub; unchanged when authorities are
/// not checked.
pub fn with_subject_authorities(router: Router, mqi: &Mqi) -> Router {
    if !mqi.checks_authorities() {
        return router;
    }
    let mqi = mqi.clone();
    router.layer(axum::middleware::from_fn(
        move |mut req: axum::extract::Request, next: axum::middleware::Next| {
            let gate = SubjectGate {
                mqi: mqi.clone(),
                principal: req.extensions().get::<Principal>().cloned(),
            };
            req.extensions_mut().insert(gate);
            next.run(req)
        },
    ))
}

/// Whether the request's principal holds `authority` on `subject` (a
/// subject, or a listen pattern): allowed without a gate (no authorities
/// checked). Errors: 403, TIBRV_NOT_PERMITTED, `mqrc` 2035, `field`
/// `field`, the message naming principal, authority and subject.
pub(crate) fn authorize_subject(
    gate: Option<&SubjectGate>,
    field: &'static str,
    subject: &str,
    authority: Authority,
) -> Result<(), RvError> {
    let Some(g) = gate else {
        return Ok(());
    };
    g.mqi
        .authorize(
            g.principal.as_ref(),
            ObjectType::Subject,
            subject,
            authority,
        )
        .map_err(|e| RvError {
            status: TibrvStatus::NOT_PERMITTED,
            http: StatusCode::FORBIDDEN,
            field: Some(field),
            element: None,
            message: e.message,
            mqrc: Some(e.mqrc.0),
        })
}

/// The HTTP status of a `tibrv_status` (docs/rendezvous.md "Errors").
fn http_status(status: TibrvStatus) -> StatusCode {
    match status {
        TibrvStatus::NOT_PERMITTED => StatusCode::FORBIDDEN,
        TibrvStatus::DAEMON_NOT_CONNECTED => StatusCode::SERVICE_UNAVAILABLE,
        TibrvStatus::TIMEOUT => StatusCode::GATEWAY_TIMEOUT,
        _ => StatusCode::BAD_REQUEST,
    }
}

impl From<BusError> for RvError {
    fn from(e: BusError) -> RvError {
        let status = e.status();
        RvError {
            status,
            http: if e.is_too_large() {
                StatusCode::PAYLOAD_TOO_LARGE
            } else {
                http_status(status)
            },
            field: e.field(),
            element: e.element(),
            message: e.to_string(),
            mqrc: None,
        }
    }
}

impl From<RvInputError> for RvError {
    fn from(e: RvInputError) -> RvError {
        RvError::new(e.status(), e.key(), e.to_string())
    }
}

impl IntoResponse for RvError {
    fn into_response(self) -> Response {
        let mut body = json!({
            "tibrv_status": {"number": self.status.0, "name": self.status.name()},
            "message": crate::http::cut_message(&self.message),
        });
        if let Some(f) = self.field {
            body["field"] = json!(f);
        }
        if let Some(e) = self.element {
            body["element"] = json!(e);
        }
        if let Some(rc) = self.mqrc {
            body["mqrc"] = json!(rc);
        }
        (self.http, Json(body)).into_response()
    }
}

/// The query parameters of `query` (form encoding, `+` is a space), each
/// key one of `known`. Percent-escapes that decode to bytes that are not
/// UTF-8 are refused, as in a path (docs/rendezvous.md "HTTP API"), rather
/// than read as U+FFFD: `subject=%FF` would otherwise listen to "\u{FFFD}".
fn params(query: Option<&str>, known: &[&'static str]) -> Result<Vec<(String, String)>, RvError> {
    for piece in query.unwrap_or("").split('&') {
        let (k, v) = piece.split_once('=').unwrap_or((piece, ""));
        if crate::http::names::decodes_to_utf8(k) && crate::http::names::decodes_to_utf8(v) {
            continue;
        }
        let key = form_urlencoded::parse(k.as_bytes())
            .next()
            .map(|(k, _)| k.into_owned())
            .unwrap_or_default();
        let (status, field) = match known.iter().find(|&&n| n == key) {
            Some(&"subject") => (TibrvStatus::INVALID_SUBJECT, "subject"),
            Some(&n) => (TibrvStatus::INVALID_ARG, n),
            None => (TibrvStatus::INVALID_ARG, "query"),
        };
        return Err(RvError::new(
            status,
            field,
            format!(
                "query parameter {}: its percent-escapes decode to bytes that are not UTF-8 (write % as %25)",
                crate::mqi::names::shown(&key)
            ),
        ));
    }
    let pairs: Vec<(String, String)> = form_urlencoded::parse(query.unwrap_or("").as_bytes())
        .map(|(k, v)| (k.into_owned(), v.into_owned()))
        .collect();
    if let Some((k, _)) = pairs.iter().find(|(k, _)| !known.contains(&k.as_str())) {
        return Err(RvError::new(
            TibrvStatus::INVALID_ARG,
            "query",
            if known.is_empty() {
                format!(
                    "unknown query parameter {}: this route takes none",
                    crate::mqi::names::shown(k)
                )
            } else {
                format!(
                    "unknown query parameter {} (parameters: {})",
                    crate::mqi::names::shown(k),
                    known.join(", ")
                )
            },
        ));
    }
    Ok(pairs)
}

/// Most bytes of a request body: the JSON form of a message of
/// `rv.max_message_bytes` (base64 and decimal text make it larger than
/// the binary form).
fn body_limit(bus: &Bus) -> usize {
    bus.config()
        .max_message_bytes
        .saturating_mul(4)
        .saturating_add(64 * 1024)
}

/// The envelope a publish or request to `subject` sends: the body's JSON
/// form with the path's subject. An empty body is a message without fields.
async fn envelope_of(
    bus: &Bus,
    subject: &str,
    headers: &HeaderMap,
    body: Body,
    route: &str,
) -> Result<Envelope, RvError> {
    bus.check_subject(subject, Origin::Client)?;
    let limit = body_limit(bus);
    let bytes = axum::body::to_bytes(body, limit)
        .await
        .map_err(|_| RvError {
            status: TibrvStatus::INVALID_SIZE,
            http: StatusCode::PAYLOAD_TOO_LARGE,
            field: Some("body"),
            element: None,
            message: format!(
                "the request body is larger than {limit} bytes (4 × rv.max_message_bytes + 64 KiB)"
            ),
            mqrc: None,
        })?;
    let mut doc = if bytes.is_empty() {
        json!({})
    } else {
        match headers.get(header::CONTENT_TYPE) {
            Some(v) if crate::http::is_json_media_type(v.as_bytes()) => {}
            other => {
                let found = match other {
                    Some(v) => format!(
                        "Content-Type {}",
                        crate::mqi::names::shown(&String::from_utf8_lossy(v.as_bytes()))
                    ),
                    None => "no Content-Type".to_string(),
                };
                return Err(RvError {
                    status: TibrvStatus::INVALID_ARG,
                    http: StatusCode::UNSUPPORTED_MEDIA_TYPE,
                    field: Some("body"),
                    element: None,
                    message: format!(
                        "{route} takes a JSON body (Content-Type: application/json); the request has {found}"
                    ),
                    mqrc: None,
                });
            }
        }
        serde_json::from_slice::<Value>(&bytes).map_err(|e| {
            RvError::new(
                TibrvStatus::INVALID_ARG,
                "body",
                format!("the body is not JSON: {e}"),
            )
        })?
    };
    let Some(o) = doc.as_object_mut() else {
        return Err(RvError::new(
            TibrvStatus::INVALID_ARG,
            "body",
            "the body is not a JSON object (docs/rendezvous.md \"JSON form\")",
        ));
    };
    if let Some(given) = o.get("subject")
        && given.as_str() != Some(subject)
    {
        return Err(RvError::new(
            TibrvStatus::INVALID_ARG,
            "subject",
            format!(
                "the body's subject {} is not the path's {}",
                match given.as_str() {
                    Some(text) => crate::mqi::names::shown(text),
                    None => given.to_string(),
                },
                crate::mqi::names::shown(subject)
            ),
        ));
    }
    if o.get("cm").is_some_and(|c| !c.is_null()) {
        return Err(RvError::new(
            TibrvStatus::NOT_PERMITTED,
            "cm",
            "certified delivery labels are set by certified delivery, not by a publish",
        ));
    }
    o.insert("subject".into(), json!(subject));
    Ok(envelope_from_json(&doc)?)
}

/// `POST /v1/rv/messages/{subject}`: `{"subject", "listeners"}`, the
/// number of listeners the message was queued for.
async fn publish(
    State(s): State<RvState>,
    gate: Option<Extension<SubjectGate>>,
    Path(subject): Path<String>,
    RawQuery(query): RawQuery,
    headers: HeaderMap,
    body: Body,
) -> Result<Json<Value>, RvError> {
    authorize_subject(gate.as_deref(), "subject", &subject, Authority::Pub)?;
    params(query.as_deref(), &[])?;
    let envelope = envelope_of(
        &s.bus,
        &subject,
        &headers,
        body,
        "POST /v1/rv/messages/{subject}",
    )
    .await?;
    let listeners = s.bus.publish(envelope, Origin::Client)?;
    Ok(Json(json!({"subject": subject, "listeners": listeners})))
}

/// `POST /v1/rv/requests/{subject}?timeout_ms=N`: the first reply's JSON
/// form; 504 / TIBRV_TIMEOUT when none came in time.
async fn request(
    State(s): State<RvState>,
    gate: Option<Extension<SubjectGate>>,
    Path(subject): Path<String>,
    RawQuery(query): RawQuery,
    headers: HeaderMap,
    body: Body,
) -> Result<Json<Value>, RvError> {
    authorize_subject(gate.as_deref(), "subject", &subject, Authority::Pub)?;
    let mut timeout_ms = DEFAULT_REQUEST_TIMEOUT_MS.min(s.max_wait_ms);
    for (_, v) in params(query.as_deref(), &["timeout_ms"])? {
        timeout_ms = v
            .parse::<u64>()
            .ok()
            .filter(|t| (1..=s.max_wait_ms).contains(t))
            .ok_or_else(|| {
                RvError::new(
                    TibrvStatus::INVALID_ARG,
                    "timeout_ms",
                    format!(
                        "timeout_ms {} is not 1 to {} (http.max_wait_ms)",
                        crate::mqi::names::shown(&v),
                        s.max_wait_ms
                    ),
                )
            })?;
    }
    let envelope = envelope_of(
        &s.bus,
        &subject,
        &headers,
        body,
        "POST /v1/rv/requests/{subject}",
    )
    .await?;
    if envelope.reply_subject.is_some() {
        return Err(RvError::new(
            TibrvStatus::INVALID_ARG,
            "reply_subject",
            "a request's reply subject is the inbox the gateway makes for it",
        ));
    }
    let reply = s
        .bus
        .request(envelope, Origin::Client, Duration::from_millis(timeout_ms))
        .await?;
    match reply {
        Some(d) => Ok(Json(envelope_to_json(d.envelope()))),
        None => Err(RvError::new(
            TibrvStatus::TIMEOUT,
            "timeout_ms",
            format!(
                "no reply to {} within {timeout_ms} ms",
                crate::mqi::names::shown(&subject)
            ),
        )),
    }
}

/// `GET /v1/rv/listen`: the event stream of a new listener.
async fn listen(
    State(s): State<RvState>,
    gate: Option<Extension<SubjectGate>>,
    RawQuery(query): RawQuery,
) -> Result<Response, RvError> {
    let mut subjects = Vec::new();
    let mut inbox = false;
    for (k, v) in params(query.as_deref(), &["subject", "inbox"])? {
        if k == "subject" {
            subjects.push(v);
        } else {
            inbox = match v.as_str() {
                "true" => true,
                "false" => false,
                other => {
                    return Err(RvError::new(
                        TibrvStatus::INVALID_ARG,
                        "inbox",
                        format!(
                            "inbox {} is not true or false",
                            crate::mqi::names::shown(other)
                        ),
                    ));
                }
            };
        }
    }
    if subjects.is_empty() && !inbox {
        return Err(RvError::new(
            TibrvStatus::INVALID_ARG,
            "subject",
            "GET /v1/rv/listen needs subject=PATTERN (one or more) or inbox=true",
        ));
    }
    for subject in &subjects {
        authorize_subject(gate.as_deref(), "subject", subject, Authority::Sub)?;
    }
    let options = ListenerOptions {
        name: "GET /v1/rv/listen".into(),
        ..ListenerOptions::default()
    };
    let refs: Vec<&str> = subjects.iter().map(String::as_str).collect();
    let mut listener = if refs.is_empty() {
        s.bus.listen_inbox(options)?
    } else {
        let mut l = s.bus.listen(&refs, options)?;
        if inbox {
            l.new_inbox()?;
        }
        l
    };
    let ready = ready_event(&mut listener);
    let messages = futures_util::stream::unfold(listener, |mut l| async move {
        l.recv().await.map(|d| (message_event(&d), l))
    });
    let end = Event::default()
        .event("end")
        .data(json!({"reason": "the gateway is stopping"}).to_string());
    let stream = futures_util::stream::iter([ready])
        .chain(messages)
        .chain(futures_util::stream::iter([end]))
        .map(Ok::<Event, Infallible>);
    Ok(Sse::new(stream)
        .keep_alive(KeepAlive::new().interval(KEEP_ALIVE))
        .into_response())
}

/// The first event: `{"listener", "subjects", "inbox"}` (`inbox` only
/// with `inbox=true`).
fn ready_event(l: &mut Listener) -> Event {
    let mut data = json!({
        "listener": l.id().0,
        "subjects": l.subjects(),
    });
    if let Some(inbox) = l.inbox() {
        data["inbox"] = json!(inbox);
    }
    Event::default().event("ready").data(data.to_string())
}

/// One message: its JSON form on one line.
fn message_event(d: &Delivery) -> Event {
    Event::default().event("message").data(d.json())
}

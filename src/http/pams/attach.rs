//! Attachments over HTTP (docs/messageq.md "Attachments"): `pams_attach_q`
//! as `POST /v1/pams/attachments`, its keep-alive, and `pams_exit` as
//! `DELETE /v1/pams/attachments/{id}`. The decisions are
//! `crate::sbs::attach`'s; this module only translates, and checks the
//! caller's +get on the attached queue (docs/security.md "Authorities"):
//! attaching a queue is taking its messages.

use super::{PamsError, PamsState, status_json};
use crate::mqi::Token;
use crate::sbs::attach::{AttachError, AttachTarget, Attachment};
use crate::security::{Authority, ObjectType, Principal};
use axum::Extension;
use axum::Json;
use axum::body::Bytes;
use axum::extract::rejection::BytesRejection;
use axum::extract::{Path, State};
use axum::http::StatusCode;
use axum::response::{IntoResponse, Response};
use mqgate_codecs::pams::QAddress;
use mqgate_codecs::pams::status::PamsStatus;
use serde::Deserialize;
use serde_json::{Value, json};
use std::time::Instant;

/// The body limit of `POST /v1/pams/attachments`: axum's default of 2 MiB,
/// far above any attach request.
const ATTACH_BODY_LIMIT: usize = 2 * 1024 * 1024;

/// The JSON body of `POST /v1/pams/attachments`.
#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
struct AttachBody {
    /// `group.queue` of this group, or `"temporary"`.
    queue: String,
    /// Keep-alive timeout in ms; default `messageq.attachment_timeout_ms`.
    timeout_ms: Option<u64>,
}

impl From<AttachError> for PamsError {
    fn from(e: AttachError) -> Self {
        PamsError {
            status: e.status,
            field: None,
            message: e.message,
            mqrc: e.mqrc,
        }
    }
}

fn describe(a: &Attachment) -> Value {
    json!({
        "status": status_json(PamsStatus::SUCCESS),
        "attachment": a.token,
        "queue": a.queue.to_string(),
        "mq_queue": a.mq_queue,
        "temporary": a.temporary,
        "timeout_ms": a.timeout.as_millis() as u64,
        "expires_in_ms": a.expires_in(Instant::now()).as_millis() as u64,
    })
}

/// An attachment id from the path: anything but 32 hex digits is an
/// attachment nobody made (PAMS__NOTDCL), as for an id that ended.
fn token(id: &str) -> Result<Token, PamsError> {
    Token::parse(id).ok_or_else(|| PamsError {
        status: PamsStatus::NOTDCL,
        field: None,
        message: format!(
            "no attachment {}: an attachment id is 32 hex digits",
            crate::mqi::names::shown(id)
        ),
        mqrc: None,
    })
}

/// `POST /v1/pams/attachments`: `pams_attach_q`. 201 with `{"status",
/// "attachment", "queue", "mq_queue", "temporary", "timeout_ms",
/// "expires_in_ms"}`; errors as `crate::sbs::attach::Attachments::attach`.
/// The body is a JSON object with Content-Type `application/json` (415
/// otherwise, as `POST /v1/pams/messages`).
pub(super) async fn attach(
    State(s): State<PamsState>,
    principal: Option<Extension<Principal>>,
    headers: axum::http::HeaderMap,
    body: Result<Bytes, BytesRejection>,
) -> Response {
    const ROUTE: &str = "POST /v1/pams/attachments";
    if let Err(refused) = crate::http::require_json(&headers, ROUTE) {
        return super::media_type_error(refused).into_response();
    }
    match attach_json(&s, body, principal.as_deref()) {
        Ok(a) => a.into_response(),
        Err(e) => e.into_response(),
    }
}

/// [`attach`] once the body is known to be JSON.
fn attach_json(
    s: &PamsState,
    body: Result<Bytes, BytesRejection>,
    principal: Option<&Principal>,
) -> Result<(StatusCode, Json<Value>), PamsError> {
    let body = super::body_bytes(
        body,
        "POST /v1/pams/attachments",
        ATTACH_BODY_LIMIT,
        "2 MiB, the HTTP API's default",
    )?;
    let b: AttachBody = super::json_object(&body, "POST /v1/pams/attachments")?;
    let target = if b.queue == "temporary" {
        AttachTarget::Temporary
    } else {
        AttachTarget::Queue(QAddress::parse(&b.queue).map_err(|e| {
            PamsError::field(
                PamsStatus::BADPARAM,
                "queue",
                format!("{e} (a group.queue address, or \"temporary\")"),
            )
        })?)
    };
    let timeout = s.attachments.timeout(b.timeout_ms)?;
    // A queue of the group: checked before it is attached. A temporary
    // queue gets its name when it is made: checked then, and ended again
    // when refused.
    if let AttachTarget::Queue(a) = target
        && let Some(name) = s.queues.queue_name(s.queues.normalize(a))
    {
        may_get(s, principal, &name)?;
    }
    let a = s.attachments.attach(target, timeout)?;
    if a.temporary
        && let Err(e) = may_get(s, principal, &a.mq_queue)
    {
        // The refused caller never saw the attachment: nothing was on it.
        let _ = s.attachments.exit(a.token);
        return Err(e);
    }
    Ok((StatusCode::CREATED, Json(describe(&a))))
}

/// +get on `queue` for `principal` (allowed when no authorities are
/// checked). Errors: 403, PAMS__FAILED with 2035 MQRC_NOT_AUTHORIZED, as
/// the other PAMS routes refuse.
fn may_get(s: &PamsState, principal: Option<&Principal>, queue: &str) -> Result<(), PamsError> {
    s.mqi
        .authorize(principal, ObjectType::Queue, queue, Authority::Get)
        .map_err(|e| PamsError::from_qm(e, None))
}

/// The attachment `id` names, once `principal` may get from its queue
/// (the authority its attach needed).
fn attachment_of(
    s: &PamsState,
    principal: Option<&Principal>,
    id: &str,
) -> Result<(Token, Attachment), PamsError> {
    let t = token(id)?;
    let a = s.attachments.get(t)?;
    may_get(s, principal, &a.mq_queue)?;
    Ok((t, a))
}

/// `GET /v1/pams/attachments/{id}`: the attachment, as the attach answered
/// it with the time left. 404 PAMS__NOTDCL when it ended.
pub(super) async fn show(
    State(s): State<PamsState>,
    principal: Option<Extension<Principal>>,
    Path(id): Path<String>,
) -> Result<Json<Value>, PamsError> {
    let (_, a) = attachment_of(&s, principal.as_deref(), &id)?;
    Ok(Json(describe(&a)))
}

/// `POST /v1/pams/attachments/{id}/keepalive`: keeps the attachment for
/// another timeout. 404 PAMS__NOTDCL when it ended.
pub(super) async fn keepalive(
    State(s): State<PamsState>,
    principal: Option<Extension<Principal>>,
    Path(id): Path<String>,
) -> Result<Json<Value>, PamsError> {
    let (t, _) = attachment_of(&s, principal.as_deref(), &id)?;
    let a = s.attachments.keepalive(t)?;
    Ok(Json(describe(&a)))
}

/// `DELETE /v1/pams/attachments/{id}`: `pams_exit`. 200 with `{"status",
/// "attachment", "queue", "temporary", "messages_discarded"}` (what was on
/// the deleted temporary queue). 404 PAMS__NOTDCL when it ended already.
pub(super) async fn exit(
    State(s): State<PamsState>,
    principal: Option<Extension<Principal>>,
    Path(id): Path<String>,
) -> Result<Json<Value>, PamsError> {
    let (t, _) = attachment_of(&s, principal.as_deref(), &id)?;
    let ended = s.attachments.exit(t)?;
    let a = &ended.attachment;
    Ok(Json(json!({
        "status": status_json(PamsStatus::SUCCESS),
        "attachment": a.token,
        "queue": a.queue.to_string(),
        "mq_queue": a.mq_queue,
        "temporary": a.temporary,
        "messages_discarded": ended.discarded,
    })))
}

//! The PAMS API over HTTP (docs/messageq.md "PAMS API"): `pams_put_msg` as
//! `POST /v1/pams/messages`, `pams_get_msg` as `GET
//! /v1/pams/queues/{address}/messages/next`, `pams_locate_q` as `GET
//! /v1/pams/locate/{name}`. A thin front end over src/mqi/: a PAMS message
//! is an mqgate message with MQMD Format `MQGPAMS` and the PAMS message
//! header of `mqgate_codecs::pams::envelope`; a put to a MOT is a message on
//! the SBS server's queue 99 whose `original_target` is the MOT (BEA
//! MessageQ 5.0 Programmer's Guide, "Broadcasting Messages": "Any message
//! directed to a MOT address is automatically redirected to the group's SBS
//! Server").
//!
//! Answers carry the PAMS return code a `pams_*` call would give
//! (`p_return.h` V4.0-09): `{"status": {"number": 1, "name":
//! "PAMS__SUCCESS"}, ...}`; errors add `field` (the request field at fault),
//! `message` and, when the queue interface refused, `mqrc` and `reason`.

mod attach;
mod delivery;

use crate::config::Config;
use crate::mqi::names::shown;
use crate::mqi::{GetRequest, Match, MessageFilter, Mqi, QmError, Selector};
use crate::sbs::Group;
use crate::sbs::attach::Attachments;
use crate::sbs::group::GroupQueues;
use crate::security::{Authority, ObjectType};
use axum::Json;
use axum::Router;
use axum::body::Bytes;
use axum::extract::DefaultBodyLimit;
use axum::extract::rejection::{BytesRejection, QueryRejection};
use axum::extract::{Path, Query, State};
use axum::http::StatusCode;
use axum::response::{IntoResponse, Response};
use axum::routing::{get, post};
use base64::Engine;
use base64::engine::general_purpose::STANDARD as BASE64;
use mqgate_codecs::mq::{Charset, Mqmd, Mqrc};
use mqgate_codecs::pams::envelope::FORMAT;
use mqgate_codecs::pams::init_file::{GntEntry, InitFile, Scope};
use mqgate_codecs::pams::status::PamsStatus;
use mqgate_codecs::pams::symbols::{self, MAX_PRIORITY};
use mqgate_codecs::pams::{Endian, PamsHeader, QAddress};
use serde::Deserialize;
use serde_json::{Value, json};
use std::sync::Arc;
use std::time::Duration;

/// What the PAMS routes see.
#[derive(Clone)]
pub struct PamsState {
    mqi: Mqi,
    queues: Arc<GroupQueues>,
    init: Option<Arc<InitFile>>,
    max_wait_ms: u64,
    lease_ms: u64,
    attachments: Arc<Attachments>,
}

/// The PAMS routes of `group`, ready to merge into the main router (waits
/// and leases as `http.max_wait_ms` and `http.lease_ms`).
pub fn routes(config: &Config, mqi: &Mqi, group: &Group) -> Router {
    let loaded = &group.loaded;
    let state = PamsState {
        mqi: mqi.clone(),
        queues: Arc::clone(&loaded.queues),
        init: loaded.init.clone(),
        max_wait_ms: config.http.max_wait_ms,
        lease_ms: config.http.lease_ms,
        attachments: Arc::clone(&group.attachments),
    };
    let limit = put_body_limit(mqi.max_msg_length());
    let router = Router::new()
        .route(
            "/v1/pams/messages",
            post(put).layer(DefaultBodyLimit::max(limit)),
        )
        .route("/v1/pams/queues/{address}/messages/next", get(next))
        .route("/v1/pams/locate/{name}", get(locate))
        .route("/v1/pams/attachments", post(attach::attach))
        .route(
            "/v1/pams/attachments/{id}",
            get(attach::show).delete(attach::exit),
        )
        .route(
            "/v1/pams/attachments/{id}/keepalive",
            post(attach::keepalive),
        )
        .with_state(state);
    let queues = Arc::clone(&loaded.queues);
    super::auth::with_route_authorities(
        router,
        mqi,
        Arc::new(move |route, p| {
            // +get on the queue an address names; an address that names
            // none is refused by the handler with its PAMS status.
            let queue = p
                .get("address")
                .and_then(|a| QAddress::parse(a).ok())
                .map(|a| queues.normalize(a))
                .and_then(|a| queues.queue_name(a));
            match (route, queue) {
                ("/v1/pams/queues/{address}/messages/next", Some(q)) => {
                    vec![(ObjectType::Queue, q, Authority::Get)]
                }
                _ => Vec::new(),
            }
        }),
    )
}

/// The most bytes of a `POST /v1/pams/messages` body: twice the base64 of a
/// MAXMSGL-byte message area, so that a JSON writer that escapes `/` as
/// `\/` still fits, plus 64 KiB for the other fields. The decoded area is
/// then checked against MAXMSGL less the 96-byte PAMS message header.
pub fn put_body_limit(max_msg_length: usize) -> usize {
    2 * max_msg_length.div_ceil(3) * 4 + 64 * 1024
}

/// A refused PAMS call: the PAMS status, the request field at fault, the
/// reason, and the MQRC when the queue interface refused.
#[derive(Debug)]
pub struct PamsError {
    /// The `pams_*` return code.
    pub status: PamsStatus,
    /// The request field at fault (`target`, `priority`, …), if one is.
    pub field: Option<&'static str>,
    /// What is wrong.
    pub message: String,
    /// The MQRC of the queue interface, when it refused.
    pub mqrc: Option<Mqrc>,
}

/// A PAMS error with an HTTP status other than [`PamsError`]'s own (415 for
/// a body that is not JSON).
struct WithStatus(StatusCode, PamsError);

impl IntoResponse for WithStatus {
    fn into_response(self) -> Response {
        let mut r = self.1.into_response();
        *r.status_mut() = self.0;
        r
    }
}

impl PamsError {
    fn field(status: PamsStatus, field: &'static str, message: impl Into<String>) -> Self {
        PamsError {
            status,
            field: Some(field),
            message: format!("{field}: {}", message.into()),
            mqrc: None,
        }
    }

    /// The PAMS status of a queue interface error (docs/messageq.md "PAMS
    /// API"): 2053 MQRC_Q_FULL → PAMS__EXCEEDQUOTA -56 (the %QCT quotas);
    /// 2030/2031 → PAMS__MSGTOBIG -22; 2085 MQRC_UNKNOWN_OBJECT_NAME →
    /// PAMS__NOOBJECT -166; 2087 (another group) → PAMS__NOLINK -76; 2161/2162
    /// (stopping) → PAMS__PAMSDOWN -138; 2051 → PAMS__NOTACTIVE -54; 2048
    /// MQRC_PERSISTENT_NOT_ALLOWED (a temporary queue) → PAMS__BADDELIVERY
    /// -60; anything else PAMS__FAILED -320.
    fn from_qm(e: QmError, field: Option<&'static str>) -> Self {
        let status = match e.mqrc {
            Mqrc::Q_FULL => PamsStatus::EXCEEDQUOTA,
            Mqrc::MSG_TOO_BIG_FOR_Q | Mqrc::MSG_TOO_BIG_FOR_Q_MGR => PamsStatus::MSGTOBIG,
            Mqrc::UNKNOWN_OBJECT_NAME => PamsStatus::NOOBJECT,
            Mqrc::UNKNOWN_REMOTE_Q_MGR => PamsStatus::NOLINK,
            Mqrc::Q_MGR_QUIESCING | Mqrc::Q_MGR_STOPPING => PamsStatus::PAMSDOWN,
            Mqrc::PUT_INHIBITED | Mqrc::GET_INHIBITED => PamsStatus::NOTACTIVE,
            // A recoverable (SAF, DQF) put to a temporary queue, which
            // holds non-persistent messages only.
            Mqrc::PERSISTENT_NOT_ALLOWED => PamsStatus::BADDELIVERY,
            _ => PamsStatus::FAILED,
        };
        PamsError {
            status,
            field,
            message: e.message,
            mqrc: Some(e.mqrc),
        }
    }

    /// The HTTP status: that of the MQRC when the queue interface refused
    /// (docs/http-api.md "Errors"), else 404 for PAMS__NOOBJECT and
    /// PAMS__NOTDCL (no such attachment), 409 for PAMS__DECLARED (attached
    /// already), 503 for PAMS__DCLTMPFAIL and PAMS__PAMSDOWN, 400 for the rest.
    fn http_status(&self) -> StatusCode {
        if let Some(m) = self.mqrc {
            return super::status_for(m);
        }
        match self.status {
            PamsStatus::NOOBJECT | PamsStatus::NOTDCL => StatusCode::NOT_FOUND,
            PamsStatus::DECLARED => StatusCode::CONFLICT,
            PamsStatus::DCLTMPFAIL | PamsStatus::PAMSDOWN => StatusCode::SERVICE_UNAVAILABLE,
            _ => StatusCode::BAD_REQUEST,
        }
    }
}

/// `{"number": n, "name": "PAMS__..."}`.
pub fn status_json(s: PamsStatus) -> Value {
    json!({"number": s.0, "name": s.name()})
}

impl IntoResponse for PamsError {
    fn into_response(self) -> Response {
        // Cut as every error message of the API is (docs/http-api.md "Errors").
        let mut body = json!({
            "status": status_json(self.status),
            "message": super::cut_message(&self.message),
        });
        if let Some(f) = self.field {
            body["field"] = json!(f);
        }
        if let Some(m) = self.mqrc {
            body["mqrc"] = json!(m.0);
            body["reason"] = json!(m.name());
        }
        (self.http_status(), Json(body)).into_response()
    }
}

/// The JSON body of `POST /v1/pams/messages` (docs/messageq.md "PAMS API").
#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
struct PutBody {
    target: String,
    #[serde(default)]
    class: i64,
    #[serde(default, rename = "type")]
    msg_type: i64,
    #[serde(default)]
    priority: i64,
    delivery: Option<String>,
    uma: Option<String>,
    resp_q: Option<String>,
    correlation_id: Option<String>,
    endian: Option<String>,
    #[serde(default)]
    data_base64: String,
}

/// Where a target text leads: an address when it starts with a digit or is
/// made of digits, dots, signs and blanks only (`10.5`, and the malformed
/// `10.x`, `-1.5`, ` 10.5`, `10.`, which are refused naming what is wrong
/// rather than looked up), else a `%GNT` name looked up in the group scope.
fn resolve_target(s: &PamsState, text: &str) -> Result<QAddress, PamsError> {
    let address_like = text.starts_with(|c: char| c.is_ascii_digit())
        || text
            .chars()
            .all(|c| c.is_ascii_digit() || matches!(c, '.' | '+' | '-' | ' ' | '\t'));
    if address_like {
        return QAddress::parse(text)
            .map_err(|e| PamsError::field(PamsStatus::BADPARAM, "target", e.to_string()));
    }
    lookup(s, text, LocateScope::Group)
        .map(|e| e.address)
        .map_err(|mut e| {
            e.field = Some("target");
            e.message = format!("target: {}", e.message);
            e
        })
}

/// The scope of a `pams_locate_q` search: PSEL_TBL_GRP (every %GNT name of
/// the group) or PSEL_TBL_BUS (the names of scope `G` only).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum LocateScope {
    Group,
    Bus,
}

fn lookup<'a>(s: &'a PamsState, name: &str, scope: LocateScope) -> Result<&'a GntEntry, PamsError> {
    let found = s
        .init
        .as_deref()
        .and_then(|f| f.gnt_entry(name))
        .filter(|e| scope == LocateScope::Group || e.scope == Scope::Global);
    found.ok_or_else(|| PamsError {
        status: PamsStatus::NOOBJECT,
        field: Some("name"),
        message: format!(
            "{} is no %GNT name of group {}{} (pams_locate_q: PAMS__NOOBJECT)",
            shown(name),
            s.queues.group(),
            if scope == LocateScope::Bus {
                " with bus scope G"
            } else {
                ""
            }
        ),
        mqrc: None,
    })
}

fn symbol(
    text: Option<&str>,
    field: &'static str,
    table: &[(&str, i32)],
    default: i32,
    status: PamsStatus,
) -> Result<i32, PamsError> {
    let Some(t) = text else { return Ok(default) };
    let upper = t.to_ascii_uppercase();
    table
        .iter()
        .find(|(n, _)| {
            *n == upper
                || n.strip_prefix("PDEL_MODE_")
                    .or_else(|| n.strip_prefix("PDEL_UMA_"))
                    == Some(upper.as_str())
        })
        .map(|&(_, v)| v)
        .ok_or_else(|| {
            let names: Vec<&str> = table.iter().map(|(n, _)| *n).collect();
            PamsError::field(
                status,
                field,
                format!("{} is none of {}", shown(t), names.join(", ")),
            )
        })
}

fn i16_field(v: i64, field: &'static str) -> Result<i16, PamsError> {
    i16::try_from(v).map_err(|_| {
        PamsError::field(
            PamsStatus::BADPARAM,
            field,
            format!("{v} is no short (-32768 to 32767, pams_put_msg)"),
        )
    })
}

/// `POST /v1/pams/messages`: `pams_put_msg`. 201 with `{"status",
/// "delivery_status", "target", "queue", "persistent", "message"}`, 200 when
/// the target could not take the message and the UMA ran ([`delivery`]);
/// errors as [`PamsError`]. The body is a JSON object with Content-Type
/// `application/json`: another type, or none, is 415 with -186
/// PAMS__BADPARAM and 2004 MQRC_BUFFER_ERROR ([`super::require_json`], as
/// the other JSON routes); a body over [`put_body_limit`] is 413 with -22
/// PAMS__MSGTOBIG and 2031 MQRC_MSG_TOO_BIG_FOR_Q_MGR.
async fn put(
    State(s): State<PamsState>,
    principal: Option<axum::Extension<crate::security::Principal>>,
    headers: axum::http::HeaderMap,
    body: Result<Bytes, BytesRejection>,
) -> Response {
    const ROUTE: &str = "POST /v1/pams/messages";
    if let Err(refused) = super::require_json(&headers, ROUTE) {
        return media_type_error(refused).into_response();
    }
    let limit = put_body_limit(s.mqi.max_msg_length());
    let what = "twice the base64 of the queue manager's MAXMSGL, plus 64 KiB";
    let answer = match body_bytes(body, ROUTE, limit, what) {
        Ok(body) => put_json(s, body, principal.map(|axum::Extension(p)| p)).await,
        Err(e) => Err(e),
    };
    match answer {
        Ok(a) => a.into_response(),
        Err(e) => e.into_response(),
    }
}

/// The answer to a request body whose Content-Type is not JSON: 415 with
/// -186 PAMS__BADPARAM and 2004 MQRC_BUFFER_ERROR, the message naming the
/// type found ([`super::require_json`]).
fn media_type_error(refused: super::error::UnsupportedMediaType) -> impl IntoResponse {
    WithStatus(
        StatusCode::UNSUPPORTED_MEDIA_TYPE,
        PamsError {
            status: PamsStatus::BADPARAM,
            field: None,
            message: refused.0,
            mqrc: Some(Mqrc::BUFFER_ERROR),
        },
    )
}

/// The body of `route`, or why it could not be read: over `limit` bytes
/// (`what`: how the limit is made), -22 PAMS__MSGTOBIG with 2031
/// MQRC_MSG_TOO_BIG_FOR_Q_MGR (413); else -186 PAMS__BADPARAM.
fn body_bytes(
    body: Result<Bytes, BytesRejection>,
    route: &str,
    limit: usize,
    what: &str,
) -> Result<Bytes, PamsError> {
    body.map_err(|e| {
        if e.status() == StatusCode::PAYLOAD_TOO_LARGE {
            PamsError {
                status: PamsStatus::MSGTOBIG,
                field: None,
                message: format!(
                    "the body of {route} is longer than its limit of {limit} bytes ({what})"
                ),
                mqrc: Some(Mqrc::MSG_TOO_BIG_FOR_Q_MGR),
            }
        } else {
            PamsError {
                status: PamsStatus::BADPARAM,
                field: None,
                message: format!("the body of {route} could not be read: {}", e.body_text()),
                mqrc: None,
            }
        }
    })
}

/// A JSON object body of `route` as `T`. Errors (-186 PAMS__BADPARAM): a
/// body that is not a JSON object (an array, a string, a number, nothing),
/// or one that does not parse as `T` — the message names the line and
/// column once ([`super::json_error_text`]).
pub(super) fn json_object<T: serde::de::DeserializeOwned>(
    body: &[u8],
    route: &str,
) -> Result<T, PamsError> {
    let bad = |message: String| PamsError {
        status: PamsStatus::BADPARAM,
        field: None,
        message,
        mqrc: None,
    };
    let what = match body.iter().find(|b| !b.is_ascii_whitespace()) {
        Some(b'{') => {
            return serde_json::from_slice(body).map_err(|e| {
                bad(format!(
                    "the JSON body is not valid at {}",
                    super::json_error_text(&e)
                ))
            });
        }
        None => "empty",
        Some(b'[') => "a JSON array",
        Some(b'"') => "a JSON string",
        Some(b't' | b'f') => "a JSON boolean",
        Some(b'n') => "JSON null",
        Some(b'-' | b'0'..=b'9') => "a JSON number",
        Some(_) => "not JSON",
    };
    Err(bad(format!(
        "the body is {what}: {route} takes a JSON object {{...}} (docs/messageq.md \"PAMS API\")"
    )))
}

/// [`put`] once the body is read.
async fn put_json(
    s: PamsState,
    body: Bytes,
    principal: Option<crate::security::Principal>,
) -> Result<(StatusCode, Json<Value>), PamsError> {
    let b: PutBody = json_object(&body, "POST /v1/pams/messages")?;
    let target = s.queues.normalize(resolve_target(&s, &b.target)?);
    if target.queue == 0 {
        return Err(PamsError::field(
            PamsStatus::BADPARAM,
            "target",
            format!("{target}: queue 0 is no queue"),
        ));
    }
    if let Some(mot) = target.mot()
        && mot.is_reserved()
    {
        return Err(PamsError::field(
            PamsStatus::BADPARAM,
            "target",
            format!(
                "{target}: MOT {} is in 4900-5100, \"Reserved for use by BEA MessageQ\" (Programmer's Guide, Table 3-1)",
                mot.number()
            ),
        ));
    }
    let class = i16_field(b.class, "class")?;
    let msg_type = i16_field(b.msg_type, "type")?;
    if !(0..=i64::from(MAX_PRIORITY)).contains(&b.priority) {
        return Err(PamsError::field(
            PamsStatus::BADPRIORITY,
            "priority",
            format!("{} is not 0 to {MAX_PRIORITY}", b.priority),
        ));
    }
    let delivery = symbol(
        b.delivery.as_deref(),
        "delivery",
        &symbols::PDEL_MODES,
        symbols::PDEL_MODE_NN_MEM,
        PamsStatus::BADDELIVERY,
    )?;
    let uma = symbol(
        b.uma.as_deref(),
        "uma",
        &symbols::PDEL_UMAS,
        symbols::PDEL_UMA_DISC,
        PamsStatus::BADUMA,
    )?;
    let resp_q = match b.resp_q.as_deref() {
        None => QAddress::default(),
        Some(t) => response_queue(&s, t)?,
    };
    let plan = crate::sbs::delivery::plan(
        delivery,
        uma,
        crate::sbs::delivery::PutTo {
            mot: target.mot().is_some(),
            resp_q: resp_q != QAddress::default(),
        },
    )
    .map_err(|r| PamsError::field(r.status, r.field, r.message))?;
    let endian = match b.endian.as_deref().map(str::to_ascii_lowercase).as_deref() {
        None | Some("big") => Endian::Big,
        Some("little") => Endian::Little,
        Some(other) => {
            return Err(PamsError::field(
                PamsStatus::BADPARAM,
                "endian",
                format!("{} is neither \"big\" nor \"little\"", shown(other)),
            ));
        }
    };
    let correlation_id = match &b.correlation_id {
        Some(t) => correlation_id(t, "correlation_id")?,
        None => [0u8; 32],
    };
    let area = BASE64.decode(b.data_base64.as_bytes()).map_err(|e| {
        PamsError::field(
            PamsStatus::BADPARAM,
            "data_base64",
            format!("not base64: {e}"),
        )
    })?;
    let max_area = s.mqi.max_msg_length().saturating_sub(PamsHeader::SIZE);
    if area.len() > max_area {
        return Err(PamsError {
            status: PamsStatus::MSGTOBIG,
            field: Some("data_base64"),
            message: format!(
                "data_base64: {} bytes; at most {max_area} fit (MAXMSGL {} less the {}-byte PAMS message header)",
                area.len(),
                s.mqi.max_msg_length(),
                PamsHeader::SIZE
            ),
            mqrc: Some(Mqrc::MSG_TOO_BIG_FOR_Q_MGR),
        });
    }
    // An HTTP client attaches no queue: the source is the response queue when
    // one is given, else queue 0 of the group (docs/messageq.md "PAMS API").
    let source = if resp_q == QAddress::default() {
        QAddress::new(s.queues.group(), 0)
    } else {
        resp_q
    };
    let mut header = PamsHeader::new(class, msg_type, source, target, endian);
    header.priority = b.priority as i32;
    header.delivery = delivery;
    header.uma = uma;
    header.resp_q = resp_q;
    header.correlation_id = correlation_id;
    // A MOT target: its group's SBS server, original_target the MOT. A
    // queue of another group of the bus: `PAMS.<group>.<queue>` at that
    // group's gateway (docs/messageq.md "Between groups").
    let on = if target.mot().is_some() {
        QAddress::sbs_server(target.group)
    } else {
        target
    };
    let dest = s.queues.destination(on).ok_or_else(|| PamsError {
        status: PamsStatus::NOLINK,
        field: Some("target"),
        message: format!(
            "target: {target} is a queue of group {}, which is not on the bus of this gateway (group {}; %XGROUP, messageq.groups)",
            target.group,
            s.queues.group()
        ),
        mqrc: Some(Mqrc::UNKNOWN_REMOTE_Q_MGR),
    })?;
    if s.mqi.checks_authorities() {
        // +put on the queue the target names, or on the queue manager of
        // another group's gateway (docs/security.md "Authorities"); refused:
        // 403, PAMS__FAILED with 2035.
        let p = principal.as_ref();
        let checked = if dest.q_mgr.is_empty() {
            s.mqi
                .authorize(p, ObjectType::Queue, &dest.queue, Authority::Put)
        } else {
            s.mqi
                .authorize(p, ObjectType::Rqmname, &dest.q_mgr, Authority::Put)
        };
        checked.map_err(|e| PamsError::from_qm(e, Some("target")))?;
    }
    delivery::deliver(&s, &plan, target, &dest, &header, &area).await
}

/// A `resp_q` text: a queue address (group 0 = this group). Errors (-224
/// PAMS__BADRESPQ): no address, queue 0, or a MOT — replies go to a queue,
/// never to a broadcast stream.
fn response_queue(s: &PamsState, text: &str) -> Result<QAddress, PamsError> {
    let bad = |m: String| PamsError::field(PamsStatus::BADRESPQ, "resp_q", m);
    let q = s
        .queues
        .normalize(QAddress::parse(text).map_err(|e| bad(e.to_string()))?);
    if q.queue == 0 {
        return Err(bad(format!("{q}: queue 0 is no queue")));
    }
    if q.mot().is_some() {
        return Err(bad(format!(
            "{q} is a MOT, a broadcast stream: replies go to a queue"
        )));
    }
    Ok(q)
}

/// Query parameters of `next`.
#[derive(Debug, Default, Deserialize)]
#[serde(deny_unknown_fields)]
struct NextQuery {
    wait_ms: Option<u64>,
    lease: Option<bool>,
    /// Selective receive on the PAMS correlation id (64 hex digits).
    correlation_id: Option<String>,
}

/// Selective receive by correlation id (`pams_get_msg` with a selection
/// on PSEL_CORRELATION_ID, BEA MessageQ 5.0 `p_symbol.h`): only PAMS
/// messages whose header `correlation_id` is the one given.
struct CorrelationFilter([u8; 32]);

impl MessageFilter for CorrelationFilter {
    fn check(&self, md: &Mqmd, data: &[u8]) -> Match {
        if md.format.text(Charset::Ascii) != FORMAT {
            return Match::No;
        }
        match PamsHeader::split(data) {
            Ok((h, _)) if h.correlation_id == self.0 => Match::Yes,
            _ => Match::No,
        }
    }
}

/// A 32-byte correlation id from 64 hex digits; errors name `field`
/// (PAMS__BADPARAM).
fn correlation_id(text: &str, field: &'static str) -> Result<[u8; 32], PamsError> {
    let bytes = hex::decode(text)
        .map_err(|e| PamsError::field(PamsStatus::BADPARAM, field, format!("not hex: {e}")))?;
    <[u8; 32]>::try_from(bytes.as_slice()).map_err(|_| {
        PamsError::field(
            PamsStatus::BADPARAM,
            field,
            format!(
                "{} bytes; a correlation id is 32 bytes (64 hex digits)",
                bytes.len()
            ),
        )
    })
}

/// `GET /v1/pams/queues/{address}/messages/next`: `pams_get_msg`. 200 with
/// the show buffer fields, `show_buffer_hex` and `data_base64`; with
/// `lease=true` also `queue` and `lease` to acknowledge or back out with the
/// queue API (`POST /v1/queues/{queue}/messages/ack/{lease}`); 204 when
/// nothing came within `wait_ms`.
async fn next(
    State(s): State<PamsState>,
    Path(address): Path<String>,
    query: Result<Query<NextQuery>, QueryRejection>,
) -> Result<Response, PamsError> {
    let Query(p) = query.map_err(|e| PamsError {
        status: PamsStatus::BADPARAM,
        field: None,
        message: format!("bad query parameters: {}", e.body_text()),
        mqrc: None,
    })?;
    let wait_ms = p.wait_ms.unwrap_or(0);
    if wait_ms > s.max_wait_ms {
        return Err(PamsError::field(
            PamsStatus::BADPARAM,
            "wait_ms",
            format!("{wait_ms} is above http.max_wait_ms {}", s.max_wait_ms),
        ));
    }
    let target = s.queues.normalize(
        QAddress::parse(&address)
            .map_err(|e| PamsError::field(PamsStatus::BADPARAM, "address", e.to_string()))?,
    );
    if target.queue == 0 {
        return Err(PamsError::field(
            PamsStatus::BADPARAM,
            "address",
            format!("{target}: queue 0 is no queue"),
        ));
    }
    if target.mot().is_some() {
        return Err(PamsError::field(
            PamsStatus::BADPARAM,
            "address",
            format!("{target} is a MOT, a broadcast stream: register a queue for it and read that"),
        ));
    }
    let name = s.queues.queue_name(target).ok_or_else(|| PamsError {
        status: PamsStatus::NOLINK,
        field: Some("address"),
        message: format!("address: {target} is a queue of another group"),
        mqrc: Some(Mqrc::UNKNOWN_REMOTE_Q_MGR),
    })?;
    let obj = s
        .mqi
        .open(&name, "")
        .map_err(|e| PamsError::from_qm(e, Some("address")))?;
    let filter = p
        .correlation_id
        .as_deref()
        .map(|t| correlation_id(t, "correlation_id"))
        .transpose()?
        .map(|id| Arc::new(CorrelationFilter(id)) as Arc<dyn MessageFilter>);
    let req = GetRequest {
        selector: Selector {
            filter,
            ..Selector::default()
        },
        wait: Duration::from_millis(wait_ms),
        max_wait: Duration::from_millis(s.max_wait_ms),
    };
    // Always under a lease first, so a message that is no PAMS message is
    // put back rather than lost.
    let leased = match s
        .mqi
        .get_leased(&obj, req, Duration::from_millis(s.lease_ms))
        .await
    {
        Ok(l) => l,
        Err(e) if e.mqrc == Mqrc::NO_MSG_AVAILABLE => {
            return Ok(StatusCode::NO_CONTENT.into_response());
        }
        Err(e) => return Err(PamsError::from_qm(e, Some("address"))),
    };
    let m = &leased.got.message;
    let format = m.md.format.text(m.charset);
    let split = if format == FORMAT {
        PamsHeader::split(&m.data).map_err(|e| (Mqrc::HEADER_ERROR, e.to_string()))
    } else {
        Err((
            Mqrc::FORMAT_ERROR,
            format!("MQMD Format {format:?}, not {FORMAT}: no PAMS message"),
        ))
    };
    let (header, area) = match split {
        Ok(x) => x,
        Err((mqrc, why)) => {
            let _ = s.mqi.backout_lease(&obj, leased.lease).await;
            return Err(PamsError {
                status: PamsStatus::FAILED,
                field: None,
                message: format!(
                    "the next message of {name} ({target}) is no PAMS message, left on the queue: {why}"
                ),
                mqrc: Some(mqrc),
            });
        }
    };
    let mut answer = get_json(&header, target, area);
    if p.lease.unwrap_or(false) {
        answer["queue"] = json!(name);
        answer["lease"] = json!(leased.lease);
        answer["lease_expires_in_ms"] = json!(leased.expires_in.as_millis() as u64);
    } else {
        s.mqi
            .ack(&obj, leased.lease)
            .await
            .map_err(|e| PamsError::from_qm(e, Some("address")))?;
    }
    Ok((StatusCode::OK, Json(answer)).into_response())
}

/// The answer of a get: the show buffer fields of `header` read from
/// `target`, the encoded 100-byte version 5.0 show buffer (in the message
/// area's byte order, big-endian when `endian` is neither 0 nor 1) and the
/// area.
pub fn get_json(header: &PamsHeader, target: QAddress, area: &[u8]) -> Value {
    let sb = header.show_buffer(target, area.len());
    let order = header.area_endian().unwrap_or(Endian::Big);
    json!({
        "status": status_json(PamsStatus::SUCCESS),
        "target": target.to_string(),
        "original_target": header.original_target.to_string(),
        "source": header.source.to_string(),
        "original_source": header.original_source.to_string(),
        "resp_q": header.resp_q.to_string(),
        "class": header.class,
        "type": header.msg_type,
        "priority": header.priority,
        "delivery": header.delivery,
        "uma": header.uma,
        "endian": header.endian,
        "correlation_id": hex::encode_upper(header.correlation_id),
        "size": area.len(),
        "show_buffer_hex": hex::encode_upper(sb.encode(order)),
        "data_base64": BASE64.encode(area),
    })
}

/// Query parameters of `locate`.
#[derive(Debug, Default, Deserialize)]
#[serde(deny_unknown_fields)]
struct LocateQuery {
    scope: Option<String>,
}

/// `GET /v1/pams/locate/{name}[?scope=group|bus]`: `pams_locate_q` on the
/// `%GNT` section. 200 `{"status", "name", "address", "scope", "mot"}`; 404
/// PAMS__NOOBJECT -166 when the name is not there.
async fn locate(
    State(s): State<PamsState>,
    Path(name): Path<String>,
    query: Result<Query<LocateQuery>, QueryRejection>,
) -> Result<Json<Value>, PamsError> {
    let Query(p) = query.map_err(|e| PamsError {
        status: PamsStatus::BADPARAM,
        field: None,
        message: format!("bad query parameters: {}", e.body_text()),
        mqrc: None,
    })?;
    let scope = match p.scope.as_deref() {
        None | Some("group") => LocateScope::Group,
        Some("bus") => LocateScope::Bus,
        Some(other) => {
            return Err(PamsError::field(
                PamsStatus::BADPARAM,
                "scope",
                format!("{} is neither \"group\" nor \"bus\"", shown(other)),
            ));
        }
    };
    let e = lookup(&s, &name, scope)?;
    let address = s.queues.normalize(e.address);
    Ok(Json(json!({
        "status": status_json(PamsStatus::SUCCESS),
        "name": e.name,
        "address": address.to_string(),
        "scope": if e.scope == Scope::Global { "G" } else { "L" },
        "mot": e.is_mot(),
    })))
}

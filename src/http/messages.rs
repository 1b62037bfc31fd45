//! Message routes: put, get/browse (`next`), lease acknowledge/backout, queue
//! list and status.

use super::md_json::{apply_md_json, md_to_json, parse_id};
use super::{ApiError, AppState};
use crate::mqi::names::shown;
use crate::mqi::{ConvertRequest, GetRequest, Leased, Object, Outgoing, Token};
use crate::mqi::{GetMode, GetResult, Position, PutOptions, Selector};
use crate::security::{Authority, ObjectType};
use axum::Json;
use axum::body::Bytes;
use axum::extract::rejection::{BytesRejection, QueryRejection};
use axum::extract::{Path, Query, State};
use axum::http::{HeaderMap, StatusCode, header};
use base64::Engine;
use base64::engine::general_purpose::STANDARD as BASE64;
use mqgate_codecs::mq::constants::per;
use mqgate_codecs::mq::{CharField, Charset, Mqmd, Mqrc};
use serde::Deserialize;
use serde_json::{Map, Value, json};
use std::time::Duration;

/// Query parameters of a put (docs/http-api.md).
#[derive(Debug, Default, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct PutQuery {
    pub(super) msg_id: Option<String>,
    pub(super) correl_id: Option<String>,
    pub(super) new_correl_id: Option<bool>,
    pub(super) persistent: Option<bool>,
    /// Text, read by [`md_from_query`]: a value that is no MQLONG is 2050
    /// MQRC_PRIORITY_ERROR, not a query syntax error.
    pub(super) priority: Option<String>,
    /// Text, read by [`md_from_query`]: a value that is no MQLONG is 2013
    /// MQRC_EXPIRY_ERROR.
    pub(super) expiry: Option<String>,
    pub(super) format: Option<String>,
    /// Text, read by [`md_from_query`]: a value that is no MQLONG is 2026
    /// MQRC_MD_ERROR (as an out-of-range CodedCharSetId).
    pub(super) ccsid: Option<String>,
    /// Text: a value that is no MQLONG is 2026 MQRC_MD_ERROR.
    pub(super) encoding: Option<String>,
    /// Text: a value that is no MQLONG is 2029 MQRC_MSG_TYPE_ERROR.
    pub(super) msg_type: Option<String>,
    /// Text: a value that is no MQLONG is 2061 MQRC_REPORT_OPTIONS_ERROR.
    pub(super) report: Option<String>,
    pub(super) reply_to_q: Option<String>,
    pub(super) reply_to_q_mgr: Option<String>,
    pub(super) q_mgr: Option<String>,
    /// A unit-of-work token (32 hex digits, `POST /v1/uow`).
    pub(super) uow: Option<String>,
}

/// A JSON put body.
#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
struct PutBody {
    #[serde(default)]
    md: Map<String, Value>,
    /// The whole MQMD structure instead of `md` (see [`mqmd_from_base64`]).
    mqmd_base64: Option<String>,
    data_base64: Option<String>,
    data: Option<String>,
}

/// The byte order of `mqmd_base64` integers: little-endian
/// (MQENC_INTEGER_REVERSED), as a queue manager on x86 or ARM Linux holds
/// its MQMDs (IBM MQ "Encoding": MQENC_NATIVE).
const MQMD_ORDER: mqgate_codecs::mq::ByteOrder = mqgate_codecs::mq::ByteOrder::Little;

/// The MQMD of a put's `mqmd_base64`: the base64 of an MQMD structure, version
/// 1 (324 bytes) or 2 (364 bytes), integers little-endian, character fields
/// in ASCII or EBCDIC as its StrucId `MD  ` shows (IBM MQ "MQMD - Message
/// descriptor"), and nothing after it. Errors: 2004 MQRC_BUFFER_ERROR for
/// text that is not base64, 2026 MQRC_MD_ERROR for bytes that are no MQMD or
/// a length other than the MD's own.
fn mqmd_from_base64(text: &str) -> Result<(Mqmd, Charset), ApiError> {
    let bytes = BASE64.decode(text.as_bytes()).map_err(|e| {
        ApiError::new(
            Mqrc::BUFFER_ERROR,
            format!("mqmd_base64 is not base64: {e}"),
        )
    })?;
    let (md, cs) = mqgate_codecs::mq::md::parse_md(&bytes, MQMD_ORDER)
        .map_err(|e| md_error(format!("mqmd_base64: {e}")))?;
    if bytes.len() != md.wire_len() {
        return Err(md_error(format!(
            "mqmd_base64 has {} bytes; an MQMD version {} has {}",
            bytes.len(),
            md.version,
            md.wire_len()
        )));
    }
    Ok((md, cs))
}

/// The put query parameters that set MQMD fields, by name, when given: with
/// `mqmd_base64` the MD is complete and none of them may be given.
fn md_params_given(p: &PutQuery) -> Vec<&'static str> {
    [
        ("msg_id", p.msg_id.is_some()),
        ("correl_id", p.correl_id.is_some()),
        ("new_correl_id", p.new_correl_id.is_some()),
        ("persistent", p.persistent.is_some()),
        ("priority", p.priority.is_some()),
        ("expiry", p.expiry.is_some()),
        ("format", p.format.is_some()),
        ("ccsid", p.ccsid.is_some()),
        ("encoding", p.encoding.is_some()),
        ("msg_type", p.msg_type.is_some()),
        ("report", p.report.is_some()),
        ("reply_to_q", p.reply_to_q.is_some()),
        ("reply_to_q_mgr", p.reply_to_q_mgr.is_some()),
    ]
    .into_iter()
    .filter_map(|(name, given)| given.then_some(name))
    .collect()
}

/// The answer's `mqmd_base64` for a get or browse with `mqmd=true`: the
/// message's MQMD as the structure [`mqmd_from_base64`] takes back (its
/// version, integers little-endian, character fields in the message's own
/// charset, byte for byte as stored), so a put of it keeps every field.
fn mqmd_base64(md: &Mqmd, cs: Charset) -> String {
    let mut out = Vec::with_capacity(md.wire_len());
    mqgate_codecs::mq::md::write_md(md, MQMD_ORDER, cs, &mut out);
    BASE64.encode(out)
}

pub(super) fn query_error(e: QueryRejection) -> ApiError {
    ApiError::new(
        Mqrc::OPTIONS_ERROR,
        format!("bad query parameters: {}", e.body_text()),
    )
}

pub(super) fn id_param(text: &str, which: &str, mqrc: Mqrc) -> Result<[u8; 24], ApiError> {
    parse_id(text).map_err(|e| ApiError::new(mqrc, format!("{which}: {e}")))
}

/// The [`Selector`] of a get's `msg_id` and `correl_id` query parameters
/// (48 hex digits each, docs/http-api.md; MQMO_MATCH_MSG_ID /
/// MQMO_MATCH_CORREL_ID), for the queue get and the device pull alike.
/// `msg_id` is checked first: a bad one is 2206 MQRC_MSG_ID_ERROR, then a bad
/// `correl_id` 2207 MQRC_CORREL_ID_ERROR, each message naming the parameter.
pub(super) fn id_selector(
    msg_id: Option<&str>,
    correl_id: Option<&str>,
) -> Result<Selector, ApiError> {
    Ok(Selector {
        msg_id: msg_id
            .map(|t| id_param(t, "msg_id", Mqrc::MSG_ID_ERROR))
            .transpose()?,
        correl_id: correl_id
            .map(|t| id_param(t, "correl_id", Mqrc::CORREL_ID_ERROR))
            .transpose()?,
        group_id: None,
        filter: None,
        put_before: None,
    })
}

pub(super) fn md_error(msg: String) -> ApiError {
    ApiError::new(Mqrc::MD_ERROR, msg)
}

/// Builds the MD from the query parameters.
pub(super) fn md_from_query(p: &PutQuery) -> Result<Mqmd, ApiError> {
    let mut md = Mqmd::default();
    if let Some(id) = &p.msg_id {
        md.msg_id = id_param(id, "msg_id", Mqrc::MSG_ID_ERROR)?;
    }
    if let Some(id) = &p.correl_id {
        md.correl_id = id_param(id, "correl_id", Mqrc::CORREL_ID_ERROR)?;
    }
    if let Some(persistent) = p.persistent {
        md.persistence = if persistent {
            per::PERSISTENT
        } else {
            per::NOT_PERSISTENT
        };
    }
    let chars = |name: &str, s: &str| -> Result<CharField<48>, ApiError> {
        CharField::new(s, Charset::Ascii).map_err(|e| md_error(format!("{name}: {e}")))
    };
    if let Some(f) = &p.format {
        md.format = CharField::new(f, Charset::Ascii)
            .map_err(|e| ApiError::new(Mqrc::FORMAT_ERROR, format!("format: {e}")))?;
    }
    if let Some(q) = &p.reply_to_q {
        md.reply_to_q = chars("reply_to_q", q)?;
    }
    if let Some(q) = &p.reply_to_q_mgr {
        md.reply_to_q_mgr = chars("reply_to_q_mgr", q)?;
    }
    let field = |text: &Option<String>, name: &str, rc: Mqrc, what: &str| match text {
        None => Ok(None),
        Some(t) => mqlong(t).map(Some).ok_or_else(|| {
            ApiError::new(
                rc,
                format!(
                    "{name} {}: not {what}; MQMD {} is an MQLONG (-2147483648 to 2147483647)",
                    shown(t),
                    md_field_name(name)
                ),
            )
        }),
    };
    if let Some(v) = field(
        &p.priority,
        "priority",
        Mqrc::PRIORITY_ERROR,
        "0-9, or -1 (MQPRI_PRIORITY_AS_Q_DEF)",
    )? {
        md.priority = v;
    }
    if let Some(v) = field(
        &p.expiry,
        "expiry",
        Mqrc::EXPIRY_ERROR,
        "tenths of a second from 1 to 2147483647, or -1 (MQEI_UNLIMITED)",
    )? {
        md.expiry = v;
    }
    if let Some(v) = field(&p.ccsid, "ccsid", Mqrc::MD_ERROR, "a CCSID")? {
        md.coded_char_set_id = v;
    }
    if let Some(v) = field(
        &p.encoding,
        "encoding",
        Mqrc::MD_ERROR,
        "an MQENC_* encoding",
    )? {
        md.encoding = v;
    }
    if let Some(v) = field(
        &p.msg_type,
        "msg_type",
        Mqrc::MSG_TYPE_ERROR,
        "an MQMT_* message type",
    )? {
        md.msg_type = v;
    }
    if let Some(v) = field(
        &p.report,
        "report",
        Mqrc::REPORT_OPTIONS_ERROR,
        "MQRO_* report options",
    )? {
        md.report = v;
    }
    check_report(md.report, "report")?;
    Ok(md)
}

/// The MQMD field a put query parameter sets (IBM MQ "MQMD - Message
/// descriptor" names).
fn md_field_name(param: &str) -> &'static str {
    match param {
        "priority" => "Priority",
        "expiry" => "Expiry",
        "ccsid" => "CodedCharSetId",
        "encoding" => "Encoding",
        "msg_type" => "MsgType",
        _ => "Report",
    }
}

/// A query parameter that is an MQLONG field of the MQMD (IBM MQ "MQMD -
/// Message descriptor": 32-bit signed integers): `None` when `text` is no
/// decimal integer from -2147483648 to 2147483647.
fn mqlong(text: &str) -> Option<i32> {
    text.parse().ok()
}

/// Every MQRO_* report option bit IBM MQ defines (IBM MQ "MQMD - Report";
/// IBM MQ "Constants" MQRO): PAN 0x1, NAN 0x2, ACTIVITY 0x4,
/// PASS_CORREL_ID 0x40, PASS_MSG_ID 0x80, COA(_WITH_(FULL_)DATA) 0x700,
/// COD(...) 0x3800, PASS_DISCARD_AND_EXPIRY 0x4000, EXPIRATION(...)
/// 0x00E00000, EXCEPTION(...) 0x07000000, DISCARD_MSG 0x08000000.
const KNOWN_REPORT_BITS: u32 = 0x0FE0_7FC7;

/// Refuses an MQMD Report with bits no MQRO_* option has (a negative value
/// always has one, bit 31): 2061 MQRC_REPORT_OPTIONS_ERROR, as MQPUT does
/// for options the queue manager does not recognise (IBM MQ "MQMD - Report",
/// "Structure of the report field"); mqgate generates no report for them,
/// so it accepts none. `field` names where the value came from: the query
/// parameter `report`, or `md.Report` of a JSON body (its path in the JSON).
pub(super) fn check_report(report: i32, field: &str) -> Result<(), ApiError> {
    let unknown = (report as u32) & !KNOWN_REPORT_BITS;
    if unknown == 0 {
        return Ok(());
    }
    Err(ApiError::new(
        Mqrc::REPORT_OPTIONS_ERROR,
        format!("{field} {report}: bits 0x{unknown:08X} are no MQRO_* report option"),
    ))
}

/// The data of a JSON put body: `data_base64` or `data` (text), not both;
/// neither = empty.
pub(super) fn body_data(
    data_base64: Option<String>,
    data: Option<String>,
) -> Result<Bytes, ApiError> {
    match (data_base64, data) {
        (Some(_), Some(_)) => Err(ApiError::new(
            Mqrc::BUFFER_ERROR,
            "give data_base64 or data, not both",
        )),
        (Some(b64), None) => Ok(Bytes::from(BASE64.decode(b64.as_bytes()).map_err(|e| {
            ApiError::new(
                Mqrc::BUFFER_ERROR,
                format!("data_base64 is not base64: {e}"),
            )
        })?)),
        (None, Some(text)) => Ok(Bytes::from(text)),
        (None, None) => Ok(Bytes::new()),
    }
}

/// The error for a request body that could not be read: one longer than the
/// body limit (the queue manager's MAXMSGL with room for base64 in JSON) is
/// 413 / 2031 MQRC_MSG_TOO_BIG_FOR_Q_MGR, anything else 400 / 2004
/// MQRC_BUFFER_ERROR (docs/http-api.md "Errors"); the single put and the
/// list put answer alike.
pub(super) fn body_error(e: &BytesRejection, max_msg_length: usize) -> ApiError {
    if e.status() == StatusCode::PAYLOAD_TOO_LARGE {
        ApiError::new(
            Mqrc::MSG_TOO_BIG_FOR_Q_MGR,
            format!("the request body is longer than the queue manager's MAXMSGL {max_msg_length}"),
        )
    } else {
        ApiError::new(Mqrc::BUFFER_ERROR, format!("cannot read the body: {e}"))
    }
}

/// `POST /v1/queues/{q}/messages`: the body is the message data, or with
/// `Content-Type: application/json` `{"md": {...}, "data_base64"|"data": ...}`.
pub async fn put(
    State(s): State<AppState>,
    principal: Option<axum::Extension<crate::security::Principal>>,
    Path(q): Path<String>,
    query: Result<Query<PutQuery>, QueryRejection>,
    headers: HeaderMap,
    body: Result<Bytes, BytesRejection>,
) -> Result<(StatusCode, Json<Value>), ApiError> {
    let Query(p) = query.map_err(query_error)?;
    // The unit of work first: one that is not open is 409 whatever else
    // is wrong with the put (docs/http-api.md "Errors").
    let uow = super::uow::uow_param(&s, p.uow.as_deref())?;
    let body = body.map_err(|e| body_error(&e, s.mqi.max_msg_length()))?;
    let mut md = md_from_query(&p)?;
    let mut charset = Charset::Ascii;
    let mut set_all_context = false;
    let is_json = headers
        .get(header::CONTENT_TYPE)
        .is_some_and(|v| super::is_json_media_type(v.as_bytes()));
    let data = if is_json {
        let b: PutBody = serde_json::from_slice(&body).map_err(|e| {
            ApiError::new(
                Mqrc::BUFFER_ERROR,
                format!(
                    "the JSON body is not valid at {}",
                    super::json_error_text(&e)
                ),
            )
        })?;
        if let Some(raw) = &b.mqmd_base64 {
            let given = md_params_given(&p);
            if !b.md.is_empty() || !given.is_empty() {
                let what = if b.md.is_empty() {
                    given.join(", ")
                } else {
                    "md".to_string()
                };
                return Err(ApiError::new(
                    Mqrc::OPTIONS_ERROR,
                    format!("mqmd_base64 is the whole MQMD: {what} cannot be given with it"),
                ));
            }
            // The whole MQMD, context included, comes from the caller:
            // +setall (IBM MQ MQPMO_SET_ALL_CONTEXT; docs/security.md).
            let p = principal.as_ref().map(|axum::Extension(p)| p);
            s.mqi
                .authorize(p, ObjectType::Queue, &q, Authority::SetAll)?;
            (md, charset) = mqmd_from_base64(raw)?;
            set_all_context = true;
            check_report(md.report, "mqmd_base64 Report")?;
        } else {
            apply_md_json(&mut md, &b.md).map_err(md_error)?;
            check_report(md.report, "md.Report")?;
        }
        body_data(b.data_base64, b.data)?
    } else {
        body
    };
    if p.new_correl_id == Some(true) && p.correl_id.is_some() {
        return Err(ApiError::new(
            Mqrc::OPTIONS_ERROR,
            "new_correl_id=true and correl_id contradict each other: give one",
        ));
    }
    let opts = PutOptions {
        uow,
        new_msg_id: md.msg_id == mqgate_codecs::mq::md::ID_NONE,
        new_correl_id: p.new_correl_id.unwrap_or(false),
        // mqmd_base64: MQPMO_SET_ALL_CONTEXT, the context is taken as given.
        pass_all_context: set_all_context,
        ..PutOptions::default()
    };
    let obj = s.mqi.open(&q, p.q_mgr.as_deref().unwrap_or(""))?;
    let msg = Outgoing { md, charset, data };
    let r = s.mqi.put(&obj, msg, opts).await?;
    let mut answer = json!({
        "queue": r.queue,
        "msg_id": hex::encode_upper(r.msg_id),
        "correl_id": hex::encode_upper(r.correl_id),
        "persistent": r.persistent,
    });
    if let Some(w) = &r.warning {
        answer["warning"] = json!({
            "mqrc": w.mqrc.0,
            "reason": w.mqrc.name(),
            "message": w.message,
        });
    }
    Ok((StatusCode::CREATED, Json(answer)))
}

/// Query parameters of `next`.
#[derive(Debug, Default, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct NextQuery {
    /// Text, so a negative or non-numeric value gets 2090, not a generic
    /// query error.
    wait_ms: Option<String>,
    correl_id: Option<String>,
    msg_id: Option<String>,
    browse: Option<bool>,
    cursor: Option<String>,
    /// A unit-of-work token (32 hex digits, `POST /v1/uow`).
    uow: Option<String>,
    /// MQGMO_CONVERT: convert the message handed back to `ccsid` / `encoding`.
    convert: Option<bool>,
    /// The CodedCharSetId to convert to (default 0, MQCCSI_Q_MGR: 1208).
    ccsid: Option<i32>,
    /// The Encoding to convert to (default 546, MQENC_REVERSED).
    encoding: Option<i32>,
    /// Only messages put before the put with this sequence number
    /// (`next_put_sequence` of `GET /v1/status`).
    put_before: Option<u64>,
    /// Add `mqmd_base64`, the MQMD structure byte for byte.
    mqmd: Option<bool>,
}

/// The MQGMO_CONVERT request of a get's `convert`, `ccsid` and `encoding`
/// query parameters (docs/http-api.md), for the queue get and the device
/// pull alike: `convert=true` asks for it, with `ccsid` (default 0,
/// MQCCSI_Q_MGR, the gateway's 1208) and `encoding` (default 546,
/// MQENC_REVERSED) as the CodedCharSetId and Encoding an MQ application sets
/// in the MQMD before MQGET (IBM MQ "MQGMO_CONVERT"). A target mqgate cannot
/// convert to is no request error: as in MQ, the message comes back
/// unconverted with the warning (2115, 2116 ...). `ccsid` or `encoding`
/// without `convert=true` is 400 / 2046 MQRC_OPTIONS_ERROR, since MQ ignores
/// them then and a silent ignore would hand back data the caller did not ask for.
pub(super) fn convert_param(
    convert: Option<bool>,
    ccsid: Option<i32>,
    encoding: Option<i32>,
) -> Result<Option<ConvertRequest>, ApiError> {
    if convert == Some(true) {
        return Ok(Some(ConvertRequest::new(ccsid, encoding)));
    }
    if ccsid.is_some() || encoding.is_some() {
        return Err(ApiError::new(
            Mqrc::OPTIONS_ERROR,
            "ccsid and encoding name what convert=true converts to (MQGMO_CONVERT); add convert=true, or leave them out",
        ));
    }
    Ok(None)
}

/// `wait_ms`: 0 to `max_wait` ms (IBM MQ "WaitInterval (MQLONG)": negatives
/// other than MQWI_UNLIMITED → 2090; an unlimited wait is not offered over
/// HTTP).
pub(super) fn parse_wait_ms(text: Option<&str>, max_wait: u64) -> Result<u64, ApiError> {
    let Some(t) = text else { return Ok(0) };
    let err = |why: String| {
        ApiError::new(
            Mqrc::WAIT_INTERVAL_ERROR,
            format!("wait_ms {}: {why}", shown(t)),
        )
    };
    match t.parse::<i64>() {
        Ok(-1) => Err(err(format!(
            "an unlimited wait (MQWI_UNLIMITED) is not offered over HTTP; give 0 to {max_wait} ms"
        ))),
        Ok(n) if n < 0 => Err(err(format!("must be 0 to {max_wait} ms"))),
        Ok(n) => Ok(n as u64),
        Err(_) => Err(err(format!("not a whole number of ms (0 to {max_wait})"))),
    }
}

fn cursor_text(p: Position) -> String {
    format!("{}-{}", p.0, p.1)
}

fn parse_cursor(c: &str) -> Result<Position, ApiError> {
    c.split_once('-')
        .and_then(|(a, b)| Some((a.parse().ok()?, b.parse().ok()?)))
        .ok_or_else(|| {
            ApiError::new(
                Mqrc::OPTIONS_ERROR,
                format!("cursor {} is not one returned by a browse", shown(c)),
            )
        })
}

/// The answer of a get (docs/http-api.md): `queue`, `md` (the MQMD as the
/// data now is: after a conversion its Encoding and CodedCharSetId are the
/// converted data's), `data_base64`, and MQGET's completion: `comp_code`
/// (MQCC_OK 0 or MQCC_WARNING 1) and `reason_code` (the MQRC; 0 with
/// MQCC_OK), with `warning: {"mqrc", "reason", "message"}` when it is a
/// warning (a conversion that did not fully succeed, or one an after_get exit
/// reported), as a put answers its warnings.
pub(super) fn message_json(r: &GetResult) -> Map<String, Value> {
    let mut m = Map::new();
    m.insert("queue".into(), json!(r.queue));
    m.insert("md".into(), md_to_json(&r.md, r.charset));
    m.insert("data_base64".into(), json!(BASE64.encode(&r.data)));
    match &r.warning {
        None => {
            m.insert("comp_code".into(), json!(0));
            m.insert("reason_code".into(), json!(0));
        }
        Some(w) => {
            // MQCC_WARNING: the message was got, with this reason.
            m.insert("comp_code".into(), json!(1));
            m.insert("reason_code".into(), json!(w.mqrc.0));
            m.insert(
                "warning".into(),
                super::error::error_body(w.mqrc, &w.message),
            );
        }
    }
    m
}

/// The answer of a get under a lease (docs/http-api.md): [`message_json`]
/// plus `lease` (the token to acknowledge or back out with: 32 hex digits)
/// and `lease_expires_in_ms`
/// (how long the lease lasts while its holder is silent, in ms); the queue get
/// and the device pull answer alike.
pub(super) fn leased_json(leased: &Leased) -> Value {
    let mut m = message_json(&leased.got.message);
    m.insert("lease".into(), json!(leased.lease));
    m.insert(
        "lease_expires_in_ms".into(),
        json!(leased.expires_in.as_millis() as u64),
    );
    Value::Object(m)
}

/// `GET /v1/queues/{q}/messages/next`: the next matching message. Destructive
/// gets return a lease to acknowledge; browse returns a cursor for the next one.
pub async fn next(
    State(s): State<AppState>,
    Path(q): Path<String>,
    query: Result<Query<NextQuery>, QueryRejection>,
) -> Result<Json<Value>, ApiError> {
    let Query(p) = query.map_err(query_error)?;
    let obj = s.mqi.open(&q, "")?;
    next_on(&s, &obj, p).await
}

/// A get from `obj` as `next` and the device pull answer it.
pub async fn next_on(s: &AppState, obj: &Object, p: NextQuery) -> Result<Json<Value>, ApiError> {
    let max_wait = s.config.http.max_wait_ms;
    let wait_ms = parse_wait_ms(p.wait_ms.as_deref(), max_wait)?;
    if p.cursor.is_some() && !p.browse.unwrap_or(false) {
        // MQ: MQGMO_BROWSE_NEXT without browsing is an options error; never
        // turn it into a destructive get.
        return Err(ApiError::new(
            Mqrc::OPTIONS_ERROR,
            "cursor is only valid with browse=true (it continues a browse)",
        ));
    }
    if let (Some(uow), true) = (p.uow.as_deref(), p.browse.unwrap_or(false)) {
        // MQ: MQGMO_BROWSE_* with MQGMO_SYNCPOINT is an options error (IBM MQ
        // "MQGMO - Options", 2046 MQRC_OPTIONS_ERROR); a browse takes
        // nothing, so no unit of work could hold it. A malformed token is
        // named as such first (2046 as well).
        super::uow::parse_uow(uow)?;
        return Err(ApiError::new(
            Mqrc::OPTIONS_ERROR,
            "uow is not valid with browse=true (a browse takes nothing under a unit of work: MQGMO_BROWSE_* with MQGMO_SYNCPOINT is an options error)",
        ));
    }
    if wait_ms > max_wait {
        return Err(ApiError::new(
            Mqrc::WAIT_INTERVAL_ERROR,
            format!("wait_ms {wait_ms} is above http.max_wait_ms {max_wait}"),
        ));
    }
    let mut selector = id_selector(p.msg_id.as_deref(), p.correl_id.as_deref())?;
    selector.put_before = p.put_before;
    let with_mqmd = p.mqmd.unwrap_or(false);
    let add_mqmd = |m: &mut Map<String, Value>, r: &GetResult| {
        if with_mqmd {
            m.insert("mqmd_base64".into(), json!(mqmd_base64(&r.md, r.charset)));
        }
    };
    let convert = convert_param(p.convert, p.ccsid, p.encoding)?;
    let req = GetRequest {
        selector,
        wait: Duration::from_millis(wait_ms),
        max_wait: Duration::from_millis(max_wait),
    };
    let after = p.cursor.as_deref().map(parse_cursor).transpose()?;
    if p.browse.unwrap_or(false) {
        let mode = GetMode::Browse { after };
        let got = s.mqi.get_with_convert(obj, req, mode, convert).await?;
        let mut m = message_json(&got.message);
        add_mqmd(&mut m, &got.message);
        m.insert("cursor".into(), json!(cursor_text(got.stored.position)));
        return Ok(Json(Value::Object(m)));
    }
    if let Some(uow) = super::uow::uow_param(s, p.uow.as_deref())? {
        let mode = GetMode::Destructive { uow: Some(uow) };
        let got = s.mqi.get_with_convert(obj, req, mode, convert).await?;
        let mut m = message_json(&got.message);
        add_mqmd(&mut m, &got.message);
        return Ok(Json(Value::Object(m)));
    }
    let lease = Duration::from_millis(s.config.http.lease_ms);
    let leased = s
        .mqi
        .get_leased_with_convert(obj, req, lease, convert)
        .await?;
    let mut answer = leased_json(&leased);
    if let Value::Object(m) = &mut answer {
        add_mqmd(m, &leased.got.message);
    }
    Ok(Json(answer))
}

/// A lease token from a path: the 32 hex digits of a get's `lease`
/// (src/qmgr/token.rs); anything else is a bad request (400, 2046
/// MQRC_OPTIONS_ERROR), not a lease that expired (409).
pub fn parse_lease(lease: &str) -> Result<Token, ApiError> {
    Token::parse(lease).ok_or_else(|| {
        ApiError::new(
            Mqrc::OPTIONS_ERROR,
            format!(
                "lease {} is not a lease id (the 32 hex digits of `lease` in a get's answer)",
                shown(lease)
            ),
        )
    })
}

/// `POST /v1/queues/{q}/messages/ack/{lease}`: removes the leased message
/// (commits the lease's unit of work; durable when it returns). 409 / 2003,
/// with nothing changed, when `lease` is no open lease of queue `q`.
pub async fn ack(
    State(s): State<AppState>,
    Path((q, lease)): Path<(String, String)>,
) -> Result<Json<Value>, ApiError> {
    let obj = s.mqi.open(&q, "")?;
    let id = parse_lease(&lease)?;
    s.mqi.ack(&obj, id).await?;
    Ok(Json(json!({"lease": id, "acknowledged": true})))
}

/// `POST /v1/queues/{q}/messages/backout/{lease}`: returns the leased message
/// now, with BackoutCount + 1.
pub async fn backout(
    State(s): State<AppState>,
    Path((q, lease)): Path<(String, String)>,
) -> Result<Json<Value>, ApiError> {
    let obj = s.mqi.open(&q, "")?;
    let id = parse_lease(&lease)?;
    s.mqi.backout_lease(&obj, id).await?;
    Ok(Json(json!({"lease": id, "backed_out": true})))
}

/// `GET /v1/queues`: every queue object with type and, for local queues, depth.
pub async fn list_queues(State(s): State<AppState>) -> Json<Value> {
    Json(json!(s.mqi.queues()))
}

/// `GET /v1/status`: the queue manager and its settings.
pub async fn status(State(s): State<AppState>) -> Json<Value> {
    let queues = s.mqi.queues();
    let messages: usize = queues.iter().filter_map(|q| q.depth).sum();
    let store = s.mqi.store_health();
    // `degraded` while the store is full or failed: the `store` object says how.
    let status = match store.state {
        crate::store::StoreState::Ok => "running",
        _ => "degraded",
    };
    Json(json!({
        "status": status,
        "version": env!("CARGO_PKG_VERSION"),
        "queue_manager": s.mqi.q_mgr_name(),
        "dead_letter_queue": s.mqi.dead_letter_queue(),
        "default_xmit_queue": s.mqi.default_xmit_queue(),
        "http": s.config.http.listen.to_string(),
        "listener": s.config.listener.listen.to_string(),
        "mqtt": s.config.mqtt.listen.to_string(),
        "data_dir": s.config.storage.data_dir.display().to_string(),
        "queues": queues.len(),
        "messages": messages,
        "next_put_sequence": s.mqi.next_put_sequence(),
        "uptime_ms": s.started.elapsed().as_millis() as u64,
        "channels": s.channels.all(),
        "store": store,
    }))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn id_selector_checks_msg_id_then_correl_id() {
        // 48 hex digits are 24 bytes (docs/http-api.md "MsgId (48 hex)").
        let id = "414D5120".to_string() + &"00".repeat(20);
        let s = id_selector(Some(&id), None).unwrap();
        assert_eq!(s.msg_id.map(|m| m[..4].to_vec()), Some(b"AMQ ".to_vec()));
        assert_eq!((s.correl_id, s.group_id), (None, None));
        assert!(s.filter.is_none());
        // Both bad: the msg_id is named, 2206 MQRC_MSG_ID_ERROR.
        let e = id_selector(Some("zz"), Some("zz")).unwrap_err().0;
        assert_eq!(e.mqrc, Mqrc::MSG_ID_ERROR);
        assert!(e.message.starts_with("msg_id: "), "{}", e.message);
        // A good msg_id and a bad correl_id: 2207 MQRC_CORREL_ID_ERROR.
        let e = id_selector(Some(&id), Some("zz")).unwrap_err().0;
        assert_eq!(e.mqrc, Mqrc::CORREL_ID_ERROR);
        assert!(e.message.starts_with("correl_id: "), "{}", e.message);
    }
}

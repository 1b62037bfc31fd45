//! The put of `POST /v1/pams/messages` as its delivery mode and UMA say
//! (the decisions are `crate::sbs::delivery`'s; docs/messageq.md "Delivery
//! modes and UMAs"): the message goes onto the target's mqgate queue,
//! persistent for SAF and DQF; when that queue cannot take it (over its
//! quota, not defined, put-inhibited) the UMA runs — discard, discard and
//! log, the dead-letter queue, or back to the sender's response queue — and
//! the answer says which, with the delivery status.

use super::{PamsError, PamsState, status_json};
use crate::mqi::{DeadLetterPut, Outgoing, PutOptions, PutResult, QmError};
use crate::sbs::delivery::{Plan, Uma, runs_uma};
use crate::sbs::group::Destination;
use axum::Json;
use axum::body::Bytes;
use axum::http::StatusCode;
use mqgate_codecs::mq::constants::per;
use mqgate_codecs::mq::{Charset, Mqmd};
use mqgate_codecs::pams::{PamsHeader, QAddress};
use serde_json::{Value, json};

/// The answer of a put: 201 when the message is on the target queue, 200
/// when the UMA ran; `{"status", "delivery_status", "target", "queue",
/// "persistent", "message"}` and, after a UMA, `uma_status`, `mqrc` and
/// `reason` (why the target could not take the message); `queue` and
/// `persistent` name where the message now is (none after a discard).
pub(super) type Answer = (StatusCode, Json<Value>);

/// The MQMD of the message: the PAMS message's (Format MQGPAMS, priority in
/// tens) with MQPER_PERSISTENT for a recoverable mode and
/// MQPER_NOT_PERSISTENT otherwise, whatever the queue's default.
fn md_for(header: &PamsHeader, plan: &Plan) -> Mqmd {
    Mqmd {
        persistence: if plan.persistent {
            per::PERSISTENT
        } else {
            per::NOT_PERSISTENT
        },
        ..crate::sbs::server::pams_md(header)
    }
}

async fn put_on(
    s: &PamsState,
    queue: &str,
    q_mgr: &str,
    msg: Outgoing,
) -> Result<PutResult, QmError> {
    let obj = s.mqi.open(queue, q_mgr)?;
    s.mqi.put(&obj, msg, PutOptions::default()).await
}

/// Puts `header` and `area` for `target` on mqgate queue `dest` (at the
/// queue manager of another group's gateway when `dest.q_mgr` names one) as
/// `plan` says. Errors: the put's failure as [`PamsError::from_qm`] maps it when
/// no UMA runs for it or the UMA itself failed (its failure added to the
/// message).
pub(super) async fn deliver(
    s: &PamsState,
    plan: &Plan,
    target: QAddress,
    dest: &Destination,
    header: &PamsHeader,
    area: &[u8],
) -> Result<Answer, PamsError> {
    let queue = dest.queue.as_str();
    let msg = Outgoing {
        md: md_for(header, plan),
        charset: Charset::Ascii,
        data: Bytes::from(header.with_area(area)),
    };
    let failed = match put_on(s, queue, &dest.q_mgr, msg.clone()).await {
        Ok(r) => {
            return Ok((
                StatusCode::CREATED,
                Json(json!({
                    "status": status_json(mqgate_codecs::pams::PamsStatus::SUCCESS),
                    "delivery_status": status_json(plan.stored),
                    "target": target.to_string(),
                    "queue": r.queue,
                    "persistent": r.persistent,
                    "message": format!(
                        "{} bytes put to {target} ({}: {})",
                        area.len(),
                        plan.mode.name,
                        plan.stored.name()
                    ),
                })),
            ));
        }
        Err(e) if runs_uma(e.mqrc) => e,
        Err(e) => return Err(PamsError::from_qm(e, Some("target"))),
    };
    let undelivered = PamsError::from_qm(failed.clone(), Some("target"));
    let why = format!(
        "{} ({} {})",
        failed.message,
        failed.mqrc.0,
        failed.mqrc.name()
    );
    let uma_failed = |what: String| PamsError {
        message: format!(
            "target: {}; {} could not run: {what}",
            undelivered.message,
            plan.uma.name()
        ),
        ..PamsError::from_qm(failed.clone(), Some("target"))
    };
    let to_queue: Option<(String, bool)> = match plan.uma {
        Uma::Disc => {
            tracing::info!(target = %target, queue, class = header.class, msg_type = header.msg_type, source = %header.source, mqrc = failed.mqrc.0, error = %failed.message, "PDEL_UMA_DISC: undeliverable PAMS message discarded");
            None
        }
        Uma::Discl => {
            tracing::warn!(target = %target, queue, class = header.class, msg_type = header.msg_type, source = %header.source, size = area.len(), correlation_id = %hex::encode_upper(header.correlation_id), mqrc = failed.mqrc.0, error = %failed.message, "PDEL_UMA_DISCL: undeliverable PAMS message discarded and logged");
            None
        }
        Uma::Dlq => {
            let put = DeadLetterPut {
                message: msg,
                reason: failed.mqrc,
                dest_q: queue.to_string(),
                dest_q_mgr: dest.q_mgr.clone(),
            };
            match s.mqi.dead_letter(put).await {
                Ok(r) => {
                    tracing::warn!(target = %target, queue, dead_letter_queue = %r.queue, mqrc = failed.mqrc.0, error = %failed.message, "PDEL_UMA_DLQ: undeliverable PAMS message dead-lettered");
                    Some((r.queue, r.persistent))
                }
                Err(d) => return Err(uma_failed(format!("{} ({})", d.message, d.mqrc.0))),
            }
        }
        Uma::Rts => {
            let resp_q = header.resp_q;
            let Some(back) = s.queues.destination(resp_q) else {
                return Err(uma_failed(format!(
                    "resp_q {resp_q} is a queue of a group that is not on the bus"
                )));
            };
            let name = back.queue.clone();
            match put_on(s, &name, &back.q_mgr, msg).await {
                Ok(r) => {
                    tracing::info!(target = %target, queue, resp_q = %resp_q, mqrc = failed.mqrc.0, error = %failed.message, "PDEL_UMA_RTS: undeliverable PAMS message returned to the sender");
                    Some((r.queue, r.persistent))
                }
                Err(e) => {
                    return Err(uma_failed(format!(
                        "resp_q {resp_q} ({name}): {} ({})",
                        e.message, e.mqrc.0
                    )));
                }
            }
        }
        // crate::sbs::delivery::plan refuses these before any put.
        Uma::Saf | Uma::Dlj => return Err(uma_failed("not supported".into())),
    };
    let done = plan.uma.success();
    let mut answer = json!({
        "status": status_json(done),
        "delivery_status": status_json(undelivered.status),
        "uma_status": status_json(done),
        "target": target.to_string(),
        "mqrc": failed.mqrc.0,
        "reason": failed.mqrc.name(),
        "message": format!(
            "{target} cannot take the message: {why}; {}: {}",
            plan.uma.name(),
            match &to_queue {
                Some((q, _)) if plan.uma == Uma::Rts => format!("returned to {} on {q}", header.resp_q),
                Some((q, _)) => format!("put on the dead-letter queue {q}"),
                None => "discarded".to_string(),
            }
        ),
    });
    if let Some((q, persistent)) = to_queue {
        answer["queue"] = json!(q);
        answer["persistent"] = json!(persistent);
    }
    Ok((StatusCode::OK, Json(answer)))
}

//! A device's PUBLISH into the MQ network (docs/mqtt.md "Publishing into
//! MQ"): the topic names the destination (`QUEUE@QMGR` or `QUEUE`), the
//! put resolves it as any put does (a local queue, a transmission queue
//! for a remote queue manager, another device's queue), QoS 0 puts a
//! non-persistent message and QoS 1 and 2 a persistent one, with the
//! device as UserIdentifier and PutApplName. Will Messages are put the
//! same way.

use super::mapping;
use super::names::{self, Refusal};
use crate::mqi::{DeadLetterPut, Mqi, Outgoing, PutOptions, QmError, set_origin_context};
use crate::security::{Authority, DEVICE_PREFIX, ObjectType, Principal};
use bytes::Bytes;
use mqgate_codecs::mq::Mqrc;
use mqgate_codecs::mq::md::ID_NONE;
use mqgate_codecs::mqtt::{Properties, QoS, ReasonCode};

/// How a put went, as the connection answers it.
#[derive(Debug)]
pub enum Outcome {
    /// Put (to `queue`, the local queue it went to).
    Put { queue: String },
    /// Refused with this reason code (5.0 3.4.2.1) and Reason String; the
    /// message was not put.
    Refused(Refusal),
    /// The queue manager is stopping (2161/2162): nothing was put; the
    /// connection ends without acknowledging, so the device sends again.
    Stopping(QmError),
}

/// The PUBACK reason code for a put refused with `mqrc` (docs/mqtt.md
/// "Publishing into MQ"): 0x97 Quota exceeded for a full queue or store
/// (2053, 2056), 0x87 Not authorized (2035, 2051 put inhibited), 0x90
/// Topic Name invalid for a destination that does not resolve (2085,
/// 2087, 2152, 2058), 0x83 Implementation specific error for the rest
/// of what the message itself is refused for, 0x80 Unspecified error
/// otherwise (5.0 3.4.2.1 lists which codes a PUBACK may carry).
pub fn puback_code(mqrc: Mqrc) -> ReasonCode {
    match mqrc {
        Mqrc::Q_FULL | Mqrc::Q_SPACE_NOT_AVAILABLE => ReasonCode::QUOTA_EXCEEDED,
        Mqrc::NOT_AUTHORIZED | Mqrc::PUT_INHIBITED => ReasonCode::NOT_AUTHORIZED,
        Mqrc::UNKNOWN_OBJECT_NAME
        | Mqrc::UNKNOWN_REMOTE_Q_MGR
        | Mqrc::OBJECT_NAME_ERROR
        | Mqrc::Q_MGR_NAME_ERROR => ReasonCode::TOPIC_NAME_INVALID,
        Mqrc::RESOURCE_PROBLEM | Mqrc::UNEXPECTED_ERROR => ReasonCode::UNSPECIFIED_ERROR,
        _ => ReasonCode::IMPLEMENTATION_SPECIFIC_ERROR,
    }
}

/// Puts the Application Message of a PUBLISH of device `device` to the
/// destination `topic` names (or to `fixed_queue` when given: a Will
/// Message with `mqtt.will_queue` set).
pub async fn put(
    mqi: &Mqi,
    device: &str,
    topic: &str,
    fixed_queue: Option<&str>,
    qos: QoS,
    props: &Properties,
    payload: Bytes,
) -> Outcome {
    let (queue, q_mgr) = match fixed_queue {
        Some(q) => (q.to_string(), String::new()),
        None => match names::destination(topic) {
            Ok(d) => d,
            Err(r) => return Outcome::Refused(r),
        },
    };
    let mut msg: Outgoing = match mapping::outgoing(qos, props, payload, device) {
        Ok(m) => m,
        Err(e) => {
            return Outcome::Refused(Refusal {
                code: ReasonCode::IMPLEMENTATION_SPECIFIC_ERROR,
                message: e.0,
            });
        }
    };
    set_origin_context(&mut msg.md, msg.charset, device);
    if fixed_queue.is_none()
        && let Err(e) = authorize(mqi, device, &queue, &q_mgr)
    {
        return refused(e);
    }
    let obj = match mqi.open(&queue, &q_mgr) {
        Ok(o) => o,
        Err(e) => return refused(e),
    };
    let opts = PutOptions {
        new_msg_id: msg.md.msg_id == ID_NONE,
        pass_all_context: true,
        ..PutOptions::default()
    };
    match mqi.put(&obj, msg, opts).await {
        Ok(r) => Outcome::Put { queue: r.queue },
        Err(e) => refused(e),
    }
}

/// +put of principal `device:DEVICE` on `queue` of this queue manager, or
/// on queue manager `q_mgr` (`rqmname`) when it names another
/// (docs/security.md "MQTT devices"); allowed when authorities are not
/// checked. Errors: 2035 MQRC_NOT_AUTHORIZED (PUBACK 0x87).
fn authorize(mqi: &Mqi, device: &str, queue: &str, q_mgr: &str) -> Result<(), QmError> {
    if !mqi.checks_authorities() {
        return Ok(());
    }
    let p = Principal::new(&format!("{DEVICE_PREFIX}{device}")).ok();
    if q_mgr.is_empty() || q_mgr == mqi.q_mgr_name() {
        mqi.authorize(p.as_ref(), ObjectType::Queue, queue, Authority::Put)
    } else {
        mqi.authorize(p.as_ref(), ObjectType::Rqmname, q_mgr, Authority::Put)
    }
}

fn refused(e: QmError) -> Outcome {
    if matches!(e.mqrc, Mqrc::Q_MGR_QUIESCING | Mqrc::Q_MGR_STOPPING) {
        return Outcome::Stopping(e);
    }
    Outcome::Refused(Refusal {
        code: puback_code(e.mqrc),
        message: format!("{} {}: {}", e.mqrc.0, e.mqrc.name(), e.message),
    })
}

/// The MQRC a refusal of a put is dead-lettered with: the put's own
/// (carried in the Reason String), else 2085 for a topic that names no
/// destination.
fn dead_letter_reason(r: &Refusal) -> Mqrc {
    r.message
        .split_whitespace()
        .next()
        .and_then(|n| n.parse::<i32>().ok())
        .map(Mqrc)
        .unwrap_or(Mqrc::UNKNOWN_OBJECT_NAME)
}

/// Puts a message a device sent and could not be told was refused (MQTT
/// 3.1.1 has no negative PUBACK; QoS 0 has no PUBACK) on the dead-letter
/// queue, with an MQDLH naming the reason and the destination (its first
/// 48 characters). Errors: the dead-letter put failed (the message is
/// then not acknowledged at QoS 1, so the device sends it again).
pub async fn dead_letter(
    mqi: &Mqi,
    device: &str,
    topic: &str,
    qos: QoS,
    props: &Properties,
    payload: Bytes,
    refusal: &Refusal,
) -> Result<(), QmError> {
    let mut msg = match mapping::outgoing(qos, props, payload.clone(), device) {
        Ok(m) => m,
        Err(_) => mapping::outgoing(qos, &Properties::new(), payload, device)
            .map_err(|e| QmError::new(Mqrc::MD_ERROR, e.0))?,
    };
    set_origin_context(&mut msg.md, msg.charset, device);
    let (q, m) = topic.split_once('@').unwrap_or((topic, ""));
    let fit = |s: &str| -> String {
        s.chars()
            .filter(|c| c.is_ascii_graphic())
            .take(48)
            .collect()
    };
    mqi.dead_letter(DeadLetterPut {
        message: msg,
        reason: dead_letter_reason(refusal),
        dest_q: fit(q),
        dest_q_mgr: fit(m),
    })
    .await
    .map(|_| ())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn put_failures_map_to_puback_codes() {
        // docs/mqtt.md "Publishing into MQ"; MQTT 5.0 3.4.2.1 Table 3-4.
        assert_eq!(puback_code(Mqrc::Q_FULL), ReasonCode::QUOTA_EXCEEDED);
        assert_eq!(
            puback_code(Mqrc::UNKNOWN_OBJECT_NAME),
            ReasonCode::TOPIC_NAME_INVALID
        );
        assert_eq!(puback_code(Mqrc::PUT_INHIBITED), ReasonCode::NOT_AUTHORIZED);
        assert_eq!(
            puback_code(Mqrc::MSG_TOO_BIG_FOR_Q),
            ReasonCode::IMPLEMENTATION_SPECIFIC_ERROR
        );
        let r = Refusal {
            code: ReasonCode::TOPIC_NAME_INVALID,
            message: "2085 MQRC_UNKNOWN_OBJECT_NAME: queue NOPE is not defined".into(),
        };
        assert_eq!(dead_letter_reason(&r), Mqrc::UNKNOWN_OBJECT_NAME);
        let r = Refusal {
            code: ReasonCode::TOPIC_NAME_INVALID,
            message: "topic \"a b\": bad".into(),
        };
        assert_eq!(dead_letter_reason(&r), Mqrc::UNKNOWN_OBJECT_NAME);
        let r = Refusal {
            code: ReasonCode::QUOTA_EXCEEDED,
            message: "2053 MQRC_Q_FULL: full".into(),
        };
        assert_eq!(dead_letter_reason(&r), Mqrc::Q_FULL);
    }
}

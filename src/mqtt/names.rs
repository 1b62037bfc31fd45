//! MQTT topics as the gateway's names (docs/mqtt.md "Topics"): a device's
//! subscription names its own device queues (`INBOX` is device queue
//! `INBOX` of the device whose client identifier is the device queue
//! manager; `QUEUE@DEVICE` with its own name is the same), a PUBLISH topic
//! names a destination as `QUEUE@QMGR` or `QUEUE` (this gateway's queue
//! manager, resolved as any put is).

use crate::mqi::names::{check_q_mgr_name, check_q_name};
use mqgate_codecs::mqtt::ReasonCode;
use mqgate_codecs::mqtt::topic;

/// Why a Topic Name or Topic Filter is refused: the reason code (MQTT 5.0
/// Table 2-6) and the words of the Reason String.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Refusal {
    pub code: ReasonCode,
    pub message: String,
}

impl Refusal {
    fn new(code: ReasonCode, message: impl Into<String>) -> Refusal {
        Refusal {
            code,
            message: message.into(),
        }
    }
}

/// The separator between a queue and a queue manager in a topic: `@` is
/// no MQ name character (IBM MQ "Rules for naming IBM MQ objects"), so it
/// cannot be part of either name.
const AT: char = '@';

/// The destination a device's PUBLISH (or Will) topic names: (queue,
/// queue manager; empty = this gateway's). Refusals: 0x90 Topic Name
/// invalid for a name with a wildcard or that is no `QUEUE[@QMGR]` of MQ
/// names (5.0 3.3.2.1, 4.7; 3.4.2.1 gives 0x90 for a PUBACK too).
pub fn destination(topic: &str) -> Result<(String, String), Refusal> {
    topic::check_name(topic).map_err(|e| {
        Refusal::new(
            ReasonCode::TOPIC_NAME_INVALID,
            format!("topic {topic:?}: {e}"),
        )
    })?;
    let (queue, q_mgr) = match topic.split_once(AT) {
        Some((q, m)) if !m.is_empty() => (q, m),
        Some(_) => {
            return Err(Refusal::new(
                ReasonCode::TOPIC_NAME_INVALID,
                format!("topic {topic:?}: no queue manager after @"),
            ));
        }
        None => (topic, ""),
    };
    check_q_name(queue).map_err(|e| {
        Refusal::new(
            ReasonCode::TOPIC_NAME_INVALID,
            format!("topic {topic:?}: {}", e.message),
        )
    })?;
    check_q_mgr_name(q_mgr).map_err(|e| {
        Refusal::new(
            ReasonCode::TOPIC_NAME_INVALID,
            format!("topic {topic:?}: {}", e.message),
        )
    })?;
    Ok((queue.to_string(), q_mgr.to_string()))
}

/// The filter over device `device`'s queue names that Topic Filter
/// `filter` of that device subscribes to. Refusals (SUBACK codes, 5.0
/// 3.9.3): 0x8F Topic Filter invalid for a malformed filter or one that
/// can match no device queue name (MQ name characters, `/` and the
/// wildcards only), or whose `@` is followed by no queue manager name;
/// 0x87 Not authorized for another device's queues (`QUEUE@OTHER`); 0x9E
/// Shared Subscriptions not supported for `$share/...` (4.8.2).
pub fn subscription(filter: &str, device: &str) -> Result<String, Refusal> {
    if filter.starts_with("$share/") {
        return Err(Refusal::new(
            ReasonCode::SHARED_SUBSCRIPTIONS_NOT_SUPPORTED,
            "shared subscriptions are not offered: a device's queues are its own",
        ));
    }
    topic::check_filter(filter).map_err(|e| {
        Refusal::new(
            ReasonCode::TOPIC_FILTER_INVALID,
            format!("topic filter {filter:?}: {e}"),
        )
    })?;
    let local = match filter.split_once(AT) {
        Some((f, owner)) if owner == device => f,
        // After `@` comes a queue manager name, or the filter names no
        // queue at all (`INBOX@`, `INBOX@DEV0001/#`).
        Some((_, owner)) if owner.is_empty() || check_q_mgr_name(owner).is_err() => {
            return Err(Refusal::new(
                ReasonCode::TOPIC_FILTER_INVALID,
                format!("topic filter {filter:?}: {owner:?} after @ is no queue manager name"),
            ));
        }
        Some((_, owner)) => {
            return Err(Refusal::new(
                ReasonCode::NOT_AUTHORIZED,
                format!(
                    "topic filter {filter:?} names the queues of {owner:?}: a device subscribes to its own queues only ({device})"
                ),
            ));
        }
        None => filter,
    };
    let ok = !local.is_empty()
        && local
            .chars()
            .all(|c| c.is_ascii_alphanumeric() || matches!(c, '.' | '/' | '_' | '%' | '+' | '#'));
    if !ok {
        return Err(Refusal::new(
            ReasonCode::TOPIC_FILTER_INVALID,
            format!(
                "topic filter {filter:?} can match no device queue: queue names hold A-Z a-z 0-9 . / _ % only"
            ),
        ));
    }
    if !local.contains(['+', '#']) {
        check_q_name(local).map_err(|e| {
            Refusal::new(
                ReasonCode::TOPIC_FILTER_INVALID,
                format!("topic filter {filter:?}: {}", e.message),
            )
        })?;
    }
    Ok(local.to_string())
}

/// True when the device-local filter `local` ([`subscription`]) covers
/// device queue `queue`.
pub fn covers(local: &str, queue: &str) -> bool {
    topic::matches(local, queue)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn publish_topics_name_queue_at_queue_manager() {
        // docs/mqtt.md "Topics": QUEUE@QMGR, or QUEUE for this gateway.
        assert_eq!(
            destination("APP.IN").unwrap(),
            ("APP.IN".into(), String::new())
        );
        assert_eq!(
            destination("PAYMENTS@QM2").unwrap(),
            ("PAYMENTS".into(), "QM2".into())
        );
        assert_eq!(
            destination("A/B@DEV2").unwrap(),
            ("A/B".into(), "DEV2".into())
        );
        for bad in [
            "",
            "A/+",
            "Q@",
            "bad name",
            "Q@bad name",
            "Q@A@B",
            &"Q".repeat(49),
        ] {
            assert_eq!(
                destination(bad).unwrap_err().code,
                ReasonCode::TOPIC_NAME_INVALID,
                "{bad:?}"
            );
        }
    }

    #[test]
    fn subscriptions_name_the_devices_own_queues() {
        assert_eq!(subscription("INBOX", "DEV0001").unwrap(), "INBOX");
        assert_eq!(subscription("INBOX@DEV0001", "DEV0001").unwrap(), "INBOX");
        assert_eq!(subscription("#", "DEV0001").unwrap(), "#");
        assert_eq!(subscription("ORDERS/+", "DEV0001").unwrap(), "ORDERS/+");
        // Another device's queue: 0x87 Not authorized (5.0 3.9.3).
        assert_eq!(
            subscription("INBOX@DEV0002", "DEV0001").unwrap_err().code,
            ReasonCode::NOT_AUTHORIZED
        );
        // 0x9E for shared subscriptions (4.8.2), 0x8F for malformed filters
        // and filters no queue name can match.
        assert_eq!(
            subscription("$share/g/INBOX", "DEV0001").unwrap_err().code,
            ReasonCode::SHARED_SUBSCRIPTIONS_NOT_SUPPORTED
        );
        for bad in [
            "IN#",
            "$SYS/#",
            "in box",
            "",
            &"Q".repeat(49),
            // Nothing, or no queue manager name, after @.
            "INBOX@",
            "INBOX@DEV0001/#",
            "INBOX@DEV 2",
        ] {
            assert_eq!(
                subscription(bad, "DEV0001").unwrap_err().code,
                ReasonCode::TOPIC_FILTER_INVALID,
                "{bad:?}"
            );
        }
        assert!(covers("#", "INBOX"));
        assert!(covers("ORDERS/+", "ORDERS/EU"));
        assert!(!covers("ORDERS/+", "INBOX"));
        assert!(covers("INBOX", "INBOX"));
    }
}

//! The distributed queue advisories (TIBCO Rendezvous Concepts, "RVCM
//! Advisory Subject Names": `_RV.<class>.RVCM.QUEUE.<role>.<condition>.<name>`;
//! "QUEUE.SCHEDULER.ACTIVE", "QUEUE.SCHEDULER.OVERFLOW"). Each carries the
//! string field `name` (the queue) and **mqgate**'s `member` (the member
//! id that presents it: every member of a gateway shares its bus).

use mqgate_codecs::rv::msg::Value;

use crate::rv::advisory::{Advisory, AdvisoryClass, SOURCE_RVCM};

/// The text of QUEUE.SCHEDULER.OVERFLOW ("QUEUE.SCHEDULER.OVERFLOW").
pub const OVERFLOW_REASON: &str = "Task backlog limit reached.";

fn s(v: &str) -> Value {
    Value::String(v.to_string())
}

/// `_RV.INFO.RVCM.QUEUE.SCHEDULER.ACTIVE.<name>`: `member` became the
/// active scheduler of `name`.
pub fn scheduler_active(name: &str, member: &str) -> Advisory {
    Advisory::new(
        AdvisoryClass::Info,
        SOURCE_RVCM,
        format!("QUEUE.SCHEDULER.ACTIVE.{name}"),
    )
    .with_field("name", s(name))
    .with_field("member", s(member))
}

/// `_RV.INFO.RVCM.QUEUE.SCHEDULER.INACTIVE.<name>`: `member` gave up the
/// scheduler role and is a worker again.
pub fn scheduler_inactive(name: &str, member: &str) -> Advisory {
    Advisory::new(
        AdvisoryClass::Info,
        SOURCE_RVCM,
        format!("QUEUE.SCHEDULER.INACTIVE.{name}"),
    )
    .with_field("name", s(name))
    .with_field("member", s(member))
}

/// `_RV.WARN.RVCM.QUEUE.SCHEDULER.OVERFLOW.<name>`: the scheduler
/// discarded a task because its backlog reached its limit. Fields `name`,
/// `subject`, then `sender` and `seqno` (u64) for a labeled task, `reason`
/// ([`OVERFLOW_REASON`]), `member`.
pub fn scheduler_overflow(
    name: &str,
    member: &str,
    subject: &str,
    labels: Option<(&str, u64)>,
) -> Advisory {
    let mut a = Advisory::new(
        AdvisoryClass::Warn,
        SOURCE_RVCM,
        format!("QUEUE.SCHEDULER.OVERFLOW.{name}"),
    )
    .with_field("name", s(name))
    .with_field("subject", s(subject));
    if let Some((sender, seqno)) = labels {
        a = a
            .with_field("sender", s(sender))
            .with_field("seqno", Value::U64(seqno));
    }
    a.with_field("reason", s(OVERFLOW_REASON))
        .with_field("member", s(member))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn subjects_are_those_of_the_advisory_pages() {
        // "QUEUE.SCHEDULER.ACTIVE", "QUEUE.SCHEDULER.OVERFLOW".
        assert_eq!(
            scheduler_active("Q.ONE", "m").subject(),
            "_RV.INFO.RVCM.QUEUE.SCHEDULER.ACTIVE.Q.ONE"
        );
        assert_eq!(
            scheduler_inactive("Q", "m").subject(),
            "_RV.INFO.RVCM.QUEUE.SCHEDULER.INACTIVE.Q"
        );
        assert_eq!(
            scheduler_overflow("Q", "m", "WORK", Some(("S", 55))).subject(),
            "_RV.WARN.RVCM.QUEUE.SCHEDULER.OVERFLOW.Q"
        );
    }
}

//! The certified delivery advisories (TIBCO Rendezvous Concepts, "Advisory
//! Messages" → "RVCM", one page per advisory; docs/rendezvous.md
//! "Certified delivery advisories"): `_RV.<class>.RVCM.<category>.<condition>.<subject or name>`
//! with the fields those pages list, in their order and types, then
//! **mqgate**'s `cm_name`: the correspondent name of the CM transport that
//! presents the advisory (a gateway's bus is shared by all its transports,
//! where a Rendezvous program sees only its own transport's advisories).

use mqgate_codecs::rv::msg::{Message, Value};

use crate::rv::advisory::{Advisory, AdvisoryClass, SOURCE_RVCM};

fn rvcm(class: AdvisoryClass, condition: &str, tail: &str) -> Advisory {
    Advisory::new(class, SOURCE_RVCM, format!("{condition}.{tail}"))
}

fn s(v: &str) -> Value {
    Value::String(v.to_string())
}

/// `_RV.INFO.RVCM.DELIVERY.CONFIRM.<subject>` ("DELIVERY.CONFIRM"), from a
/// sender: `listener` confirmed message `seqno` of `subject`. Fields
/// `subject`, `listener` (strings), `seqno` (u64).
pub fn delivery_confirm(cm_name: &str, subject: &str, listener: &str, seqno: u64) -> Advisory {
    rvcm(AdvisoryClass::Info, "DELIVERY.CONFIRM", subject)
        .with_field("subject", s(subject))
        .with_field("listener", s(listener))
        .with_field("seqno", Value::U64(seqno))
        .with_field("cm_name", s(cm_name))
}

/// `_RV.INFO.RVCM.DELIVERY.COMPLETE.<subject>` ("DELIVERY.COMPLETE"), from
/// a sender: every registered listener confirmed message `seqno`. Fields
/// `subject` (string), `seqno` (u64).
pub fn delivery_complete(cm_name: &str, subject: &str, seqno: u64) -> Advisory {
    rvcm(AdvisoryClass::Info, "DELIVERY.COMPLETE", subject)
        .with_field("subject", s(subject))
        .with_field("seqno", Value::U64(seqno))
        .with_field("cm_name", s(cm_name))
}

/// `_RV.WARN.RVCM.DELIVERY.NO_RESPONSE.<listener>`
/// ("DELIVERY.NO_RESPONSE"), from a sender: `listener` has not confirmed
/// messages; repeats while it does not. Field `listener` (string).
pub fn delivery_no_response(cm_name: &str, listener: &str) -> Advisory {
    rvcm(AdvisoryClass::Warn, "DELIVERY.NO_RESPONSE", listener)
        .with_field("listener", s(listener))
        .with_field("cm_name", s(cm_name))
}

/// `_RV.ERROR.RVCM.DELIVERY.FAILED.<subject>` ("DELIVERY.FAILED"), from a
/// sender, after it removed the message from its ledger: the time limit of
/// message `seqno` passed before every registered listener confirmed it.
/// Fields `subject` (string), `seqno` (u64), `data` (the message's fields,
/// a nested message), one `listener` (string) per listener that did not
/// confirm.
pub fn delivery_failed<'a>(
    cm_name: &str,
    subject: &str,
    seqno: u64,
    data: Message,
    listeners: impl IntoIterator<Item = &'a str>,
) -> Advisory {
    let mut a = rvcm(AdvisoryClass::Error, "DELIVERY.FAILED", subject)
        .with_field("subject", s(subject))
        .with_field("seqno", Value::U64(seqno))
        .with_field("data", Value::Msg(data));
    for l in listeners {
        a = a.with_field("listener", s(l));
    }
    a.with_field("cm_name", s(cm_name))
}

/// `_RV.INFO.RVCM.REGISTRATION.REQUEST.<subject>`
/// ("REGISTRATION.REQUEST"), from a sender, after it accepted `listener`'s
/// registration for `subject`. Fields `subject`, `listener` (strings).
pub fn registration_request(cm_name: &str, subject: &str, listener: &str) -> Advisory {
    rvcm(AdvisoryClass::Info, "REGISTRATION.REQUEST", subject)
        .with_field("subject", s(subject))
        .with_field("listener", s(listener))
        .with_field("cm_name", s(cm_name))
}

/// `_RV.INFO.RVCM.REGISTRATION.CERTIFIED.<subject>`
/// ("REGISTRATION.CERTIFIED"), from a listener: `sender` accepted its
/// registration. Fields `subject`, `sender` (strings), `seqno_begin` (u64,
/// the first certified sequence number).
pub fn registration_certified(
    cm_name: &str,
    subject: &str,
    sender: &str,
    seqno_begin: u64,
) -> Advisory {
    rvcm(AdvisoryClass::Info, "REGISTRATION.CERTIFIED", subject)
        .with_field("subject", s(subject))
        .with_field("sender", s(sender))
        .with_field("seqno_begin", Value::U64(seqno_begin))
        .with_field("cm_name", s(cm_name))
}

/// `_RV.WARN.RVCM.REGISTRATION.NO_RESPONSE.<subject>`
/// ("REGISTRATION.NO_RESPONSE"), from a listener: `sender` never answered
/// its registration requests; delivery stays uncertified. Fields
/// `subject`, `sender` (strings).
pub fn registration_no_response(cm_name: &str, subject: &str, sender: &str) -> Advisory {
    rvcm(AdvisoryClass::Warn, "REGISTRATION.NO_RESPONSE", subject)
        .with_field("subject", s(subject))
        .with_field("sender", s(sender))
        .with_field("cm_name", s(cm_name))
}

/// `_RV.INFO.RVCM.REGISTRATION.DISCOVERY.<subject>`
/// ("REGISTRATION.DISCOVERY"), from a listener: a labeled message came from
/// `sender`, unknown to its ledger. Fields `subject`, `sender` (strings).
pub fn registration_discovery(cm_name: &str, subject: &str, sender: &str) -> Advisory {
    rvcm(AdvisoryClass::Info, "REGISTRATION.DISCOVERY", subject)
        .with_field("subject", s(subject))
        .with_field("sender", s(sender))
        .with_field("cm_name", s(cm_name))
}

/// `_RV.WARN.RVCM.REGISTRATION.NOT_CERTIFIED.<subject>`
/// ("REGISTRATION.NOT_CERTIFIED"), from a listener: `sender` disallowed it;
/// messages still come, uncertified. Fields `subject`, `sender` (strings).
pub fn registration_not_certified(cm_name: &str, subject: &str, sender: &str) -> Advisory {
    rvcm(AdvisoryClass::Warn, "REGISTRATION.NOT_CERTIFIED", subject)
        .with_field("subject", s(subject))
        .with_field("sender", s(sender))
        .with_field("cm_name", s(cm_name))
}

/// `_RV.INFO.RVCM.REGISTRATION.CLOSED.<subject>` ("REGISTRATION.CLOSED"),
/// from a sender: the agreement with `listener` for `subject` ended (the
/// listener closed, or the sender disallowed it) and its items left the
/// ledger. Fields `subject`, `listener` (strings).
pub fn registration_closed(cm_name: &str, subject: &str, listener: &str) -> Advisory {
    rvcm(AdvisoryClass::Info, "REGISTRATION.CLOSED", subject)
        .with_field("subject", s(subject))
        .with_field("listener", s(listener))
        .with_field("cm_name", s(cm_name))
}

#[cfg(test)]
mod tests {
    use super::*;
    use mqgate_codecs::rv::msg::Field;

    fn names(a: &Advisory) -> Vec<String> {
        a.fields
            .iter()
            .map(|f| f.name.clone().unwrap_or_default())
            .collect()
    }

    #[test]
    fn subjects_and_fields_are_those_of_the_advisory_pages() {
        // Subject syntax and field lists: TIBCO Rendezvous Concepts, the
        // pages "DELIVERY.CONFIRM", "DELIVERY.COMPLETE",
        // "DELIVERY.NO_RESPONSE", "DELIVERY.FAILED", "REGISTRATION.REQUEST",
        // "REGISTRATION.CERTIFIED", "REGISTRATION.NO_RESPONSE",
        // "REGISTRATION.DISCOVERY", "REGISTRATION.NOT_CERTIFIED",
        // "REGISTRATION.CLOSED"; cm_name is mqgate's (module docs).
        let cases: Vec<(Advisory, &str, Vec<&str>)> = vec![
            (
                delivery_confirm("S", "A.B", "L", 3),
                "_RV.INFO.RVCM.DELIVERY.CONFIRM.A.B",
                vec!["subject", "listener", "seqno", "cm_name"],
            ),
            (
                delivery_complete("S", "A.B", 3),
                "_RV.INFO.RVCM.DELIVERY.COMPLETE.A.B",
                vec!["subject", "seqno", "cm_name"],
            ),
            (
                delivery_no_response("S", "L.ONE"),
                "_RV.WARN.RVCM.DELIVERY.NO_RESPONSE.L.ONE",
                vec!["listener", "cm_name"],
            ),
            (
                delivery_failed("S", "A.B", 3, Message::default(), ["L1", "L2"]),
                "_RV.ERROR.RVCM.DELIVERY.FAILED.A.B",
                vec![
                    "subject", "seqno", "data", "listener", "listener", "cm_name",
                ],
            ),
            (
                registration_request("S", "A.B", "L"),
                "_RV.INFO.RVCM.REGISTRATION.REQUEST.A.B",
                vec!["subject", "listener", "cm_name"],
            ),
            (
                registration_certified("L", "A.B", "S", 4),
                "_RV.INFO.RVCM.REGISTRATION.CERTIFIED.A.B",
                vec!["subject", "sender", "seqno_begin", "cm_name"],
            ),
            (
                registration_no_response("L", "A.B", "S"),
                "_RV.WARN.RVCM.REGISTRATION.NO_RESPONSE.A.B",
                vec!["subject", "sender", "cm_name"],
            ),
            (
                registration_discovery("L", "A.B", "S"),
                "_RV.INFO.RVCM.REGISTRATION.DISCOVERY.A.B",
                vec!["subject", "sender", "cm_name"],
            ),
            (
                registration_not_certified("L", "A.B", "S"),
                "_RV.WARN.RVCM.REGISTRATION.NOT_CERTIFIED.A.B",
                vec!["subject", "sender", "cm_name"],
            ),
            (
                registration_closed("S", "A.B", "L"),
                "_RV.INFO.RVCM.REGISTRATION.CLOSED.A.B",
                vec!["subject", "listener", "cm_name"],
            ),
        ];
        for (a, subject, fields) in cases {
            assert_eq!(a.subject(), subject);
            assert_eq!(names(&a), fields, "{subject}");
        }
    }

    #[test]
    fn failed_carries_the_data_and_the_types_of_the_page() {
        // "DELIVERY.FAILED": seqno TIBRVMSG_U64, data TIBRVMSG_MSG, listener
        // TIBRVMSG_STRING (one field per listener that did not confirm).
        let data = Message::new(vec![Field::new("px", Value::F64(1.5))]);
        let a = delivery_failed("S", "A", 9, data.clone(), ["L"]);
        let env = a.into_envelope();
        assert_eq!(env.message.get("seqno").unwrap().value, Value::U64(9));
        assert_eq!(env.message.get("data").unwrap().value, Value::Msg(data));
        assert_eq!(
            env.message.get("listener").unwrap().value,
            Value::String("L".into())
        );
    }
}

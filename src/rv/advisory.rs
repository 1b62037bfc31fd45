//! Advisory messages: what mqgate tells listeners about itself on `_RV.`
//! subjects (docs/rendezvous.md "Advisories").
//!
//! Subject names follow TIBCO Rendezvous Concepts, "System Advisory Subject
//! Names" (`_RV.<class>.SYSTEM.<name>`) and "RVCM Advisory Subject Names"
//! (`_RV.<class>.RVCM.<category>.<condition>.<subject or name>`): a class
//! (ERROR, WARN, INFO), a source, then a name of one or more elements. The
//! message carries the fields `ADV_CLASS`, `ADV_SOURCE` and `ADV_NAME`
//! (strings: the class, the source and the rest of the subject), the
//! optional `ADV_DESC`, then the advisory's own fields, in the form rvd's
//! advisories take.

use std::fmt;
use std::net::Ipv4Addr;

use mqgate_codecs::rv::msg::{Envelope, Field, Message, Value};

/// The severity element of an advisory subject ("System Advisory Subject
/// Names").
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum AdvisoryClass {
    /// A problem that needs action, or work that could not be done.
    Error,
    /// An anomaly that is not yet critical.
    Warn,
    /// An event of normal operation.
    Info,
}

impl AdvisoryClass {
    /// `ERROR`, `WARN` or `INFO`.
    pub fn as_str(self) -> &'static str {
        match self {
            AdvisoryClass::Error => "ERROR",
            AdvisoryClass::Warn => "WARN",
            AdvisoryClass::Info => "INFO",
        }
    }
}

impl fmt::Display for AdvisoryClass {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.as_str())
    }
}

/// Source element of the advisories of the daemon and communications
/// software ("System Advisory Subject Names").
pub const SOURCE_SYSTEM: &str = "SYSTEM";
/// Source element of certified delivery advisories ("RVCM Advisory Subject
/// Names").
pub const SOURCE_RVCM: &str = "RVCM";
/// Source element of fault tolerance advisories.
pub const SOURCE_RVFT: &str = "RVFT";

/// One advisory: `_RV.<class>.<source>.<name>` and its fields.
#[derive(Clone, Debug, PartialEq)]
pub struct Advisory {
    /// The severity.
    pub class: AdvisoryClass,
    /// The source element: [`SOURCE_SYSTEM`], [`SOURCE_RVCM`], ...
    pub source: String,
    /// The name: one or more elements (`CLIENT.SLOWCONSUMER`,
    /// `DELIVERY.COMPLETE.ORDERS.NEW`).
    pub name: String,
    /// `ADV_DESC`, a description for people, when there is one.
    pub description: Option<String>,
    /// The advisory's own fields, after the `ADV_*` ones.
    pub fields: Vec<Field>,
}

impl Advisory {
    /// An advisory without description or fields of its own.
    pub fn new(class: AdvisoryClass, source: &str, name: impl Into<String>) -> Advisory {
        Advisory {
            class,
            source: source.to_string(),
            name: name.into(),
            description: None,
            fields: Vec::new(),
        }
    }

    /// The same with `field` added after the others.
    pub fn with_field(mut self, name: &str, value: Value) -> Advisory {
        self.fields.push(Field::new(name, value));
        self
    }

    /// The same with `ADV_DESC`.
    pub fn with_description(mut self, description: impl Into<String>) -> Advisory {
        self.description = Some(description.into());
        self
    }

    /// `_RV.<class>.<source>.<name>`.
    pub fn subject(&self) -> String {
        format!("_RV.{}.{}.{}", self.class, self.source, self.name)
    }

    /// The advisory as a message envelope: its subject, no reply subject,
    /// `ADV_CLASS`, `ADV_SOURCE`, `ADV_NAME`, `ADV_DESC` (when given), then
    /// its own fields.
    pub fn into_envelope(self) -> Envelope {
        let subject = self.subject();
        let mut fields = vec![
            Field::new("ADV_CLASS", Value::String(self.class.as_str().into())),
            Field::new("ADV_SOURCE", Value::String(self.source)),
            Field::new("ADV_NAME", Value::String(self.name)),
        ];
        if let Some(d) = self.description {
            fields.push(Field::new("ADV_DESC", Value::String(d)));
        }
        fields.extend(self.fields);
        Envelope {
            subject,
            reply_subject: None,
            cm: None,
            message: Message::new(fields),
        }
    }

    /// `_RV.ERROR.SYSTEM.CLIENT.SLOWCONSUMER` (TIBCO Rendezvous Concepts,
    /// "CLIENT.SLOWCONSUMER"): messages were discarded for a listener that
    /// did not keep up; presented to that listener only, ahead of the
    /// messages still waiting. Fields: `waiting` (u32, messages still
    /// queued for it), `dropped` (u32, messages discarded since the last
    /// such advisory), `bytes_dropped` (u64, their size in mqgate's binary
    /// form) and `reason`: `size limit` (its queue of `rv.listener_queue`
    /// messages was full; mqgate discards by count only, never by age, so
    /// never `time limit`).
    pub fn slow_consumer(waiting: u32, dropped: u32, bytes_dropped: u64) -> Advisory {
        Advisory::new(AdvisoryClass::Error, SOURCE_SYSTEM, "CLIENT.SLOWCONSUMER")
            .with_field("waiting", Value::U32(waiting))
            .with_field("dropped", Value::U32(dropped))
            .with_field("bytes_dropped", Value::U64(bytes_dropped))
            .with_field("reason", Value::String("size limit".into()))
    }

    /// `_RV.ERROR.SYSTEM.DATALOSS.<INBOUND|OUTBOUND>.<PTP|BCAST>` (TIBCO
    /// Rendezvous Concepts, "DATALOSS"): messages between this gateway and
    /// another (`host`) were lost; `lost` counts them (Rendezvous counts
    /// packets; mqgate's links count messages). Presented to every
    /// listener of the subject, as the daemons cannot tell whom the loss
    /// affected.
    pub fn data_loss(inbound: bool, point_to_point: bool, host: Ipv4Addr, lost: u32) -> Advisory {
        let name = format!(
            "DATALOSS.{}.{}",
            if inbound { "INBOUND" } else { "OUTBOUND" },
            if point_to_point { "PTP" } else { "BCAST" }
        );
        Advisory::new(AdvisoryClass::Error, SOURCE_SYSTEM, name)
            .with_field("host", Value::IpAddr32(host))
            .with_field("lost", Value::U32(lost))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn slow_consumer_has_the_documented_subject_and_fields() {
        // TIBCO Rendezvous Concepts, "CLIENT.SLOWCONSUMER": subject
        // _RV.ERROR.SYSTEM.CLIENT.SLOWCONSUMER; fields waiting, dropped,
        // bytes_dropped, reason ("size limit" for an overflowed buffer).
        let env = Advisory::slow_consumer(3, 7, 700).into_envelope();
        assert_eq!(env.subject, "_RV.ERROR.SYSTEM.CLIENT.SLOWCONSUMER");
        assert_eq!(env.reply_subject, None);
        let names: Vec<_> = env
            .message
            .fields
            .iter()
            .map(|f| f.name.clone().unwrap_or_default())
            .collect();
        assert_eq!(
            names,
            [
                "ADV_CLASS",
                "ADV_SOURCE",
                "ADV_NAME",
                "waiting",
                "dropped",
                "bytes_dropped",
                "reason"
            ]
        );
        let m = &env.message;
        assert_eq!(
            m.get("ADV_CLASS").unwrap().value,
            Value::String("ERROR".into())
        );
        assert_eq!(
            m.get("ADV_SOURCE").unwrap().value,
            Value::String("SYSTEM".into())
        );
        assert_eq!(
            m.get("ADV_NAME").unwrap().value,
            Value::String("CLIENT.SLOWCONSUMER".into())
        );
        assert_eq!(m.get("waiting").unwrap().value, Value::U32(3));
        assert_eq!(m.get("dropped").unwrap().value, Value::U32(7));
        assert_eq!(m.get("bytes_dropped").unwrap().value, Value::U64(700));
        assert_eq!(
            m.get("reason").unwrap().value,
            Value::String("size limit".into())
        );
    }

    #[test]
    fn data_loss_subjects_name_direction_and_kind() {
        // TIBCO Rendezvous Concepts, "DATALOSS": the four subject names and
        // the fields host and lost.
        let host = Ipv4Addr::new(10, 0, 0, 7);
        for (inbound, ptp, subject) in [
            (true, false, "_RV.ERROR.SYSTEM.DATALOSS.INBOUND.BCAST"),
            (true, true, "_RV.ERROR.SYSTEM.DATALOSS.INBOUND.PTP"),
            (false, false, "_RV.ERROR.SYSTEM.DATALOSS.OUTBOUND.BCAST"),
            (false, true, "_RV.ERROR.SYSTEM.DATALOSS.OUTBOUND.PTP"),
        ] {
            let env = Advisory::data_loss(inbound, ptp, host, 4).into_envelope();
            assert_eq!(env.subject, subject);
            assert_eq!(
                env.message.get("host").unwrap().value,
                Value::IpAddr32(host)
            );
            assert_eq!(env.message.get("lost").unwrap().value, Value::U32(4));
        }
    }

    #[test]
    fn a_description_comes_after_the_name() {
        // "RVCM Advisory Subject Names": _RV.class.RVCM.category.condition.subject.
        let env = Advisory::new(AdvisoryClass::Info, SOURCE_RVCM, "DELIVERY.COMPLETE.A.B")
            .with_description("delivered")
            .into_envelope();
        assert_eq!(env.subject, "_RV.INFO.RVCM.DELIVERY.COMPLETE.A.B");
        assert_eq!(env.message.fields[3].name.as_deref(), Some("ADV_DESC"));
    }
}

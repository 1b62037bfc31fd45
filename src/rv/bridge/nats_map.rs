//! How messages cross between the subject bus and NATS (docs/rendezvous.md
//! "Bridge to NATS"): which subjects may cross and why not, and the NATS
//! message a bus message becomes and back. Pure: no connection here.
//!
//! - Subjects keep their text: `ORDERS.NEW` is `ORDERS.NEW` on both sides
//!   (the rules agree on elements, `*` and `>`; nats-server
//!   `server/sublist.go`). Where they differ (docs/rendezvous.md "Rendezvous
//!   and NATS") a message is refused with the reason: whitespace in an
//!   element and wildcard send subjects going to NATS
//!   ([`nats_refusal`]); going to the bus, what a Rendezvous subject cannot
//!   be (partial wildcards such as `foo*`, over 196 bytes, empty elements)
//!   and `_RV.` / `_LOCAL.` subjects, which never cross.
//! - The body on NATS is the JSON form of the envelope, marked with the
//!   header [`FORM_HEADER`]` = json`. A NATS message without that header
//!   is taken as opaque bytes: the bus gets a message with one opaque field
//!   `data`.
//! - The header [`ORIGIN_HEADER`] names the gateway that put the message
//!   on NATS (its inbox element); a message carrying this gateway's own
//!   name is never brought back.

use mqgate_codecs::rv::msg::{Envelope, Field, Message, Value as RvValue};
use mqgate_codecs::rv::{Mode, NatsUse, Subject, SubjectClass, nats_refusal};
use serde_json::Value;

/// The header saying which form the body is in (`json`).
pub const FORM_HEADER: &str = "Mqgate-Rv-Form";
/// The header naming the gateway that published the message to NATS.
pub const ORIGIN_HEADER: &str = "Mqgate-Origin";
/// The name of the field a NATS body without [`FORM_HEADER`] is carried in.
pub const DATA_FIELD: &str = "data";

/// Which way a message was going.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Direction {
    /// From the bus to NATS.
    ToNats,
    /// From NATS to the bus.
    FromNats,
}

impl Direction {
    /// `to NATS` / `from NATS`.
    pub fn as_str(self) -> &'static str {
        match self {
            Direction::ToNats => "to NATS",
            Direction::FromNats => "from NATS",
        }
    }
}

/// A message that could not cross, and why.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Refusal {
    /// The subject as it was (on the side it came from).
    pub subject: String,
    /// Which way it was going.
    pub direction: Direction,
    /// The reason, one sentence.
    pub reason: String,
}

impl std::fmt::Display for Refusal {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(
            f,
            "message on {:?} not bridged {}: {}",
            self.subject,
            self.direction.as_str(),
            self.reason
        )
    }
}

/// Why a subject of this class never crosses the bridge, if it does not:
/// advisories (`_RV.`) and `_LOCAL.` subjects stay on their gateway; inboxes
/// cross only as the reply subjects of requests, never by name.
pub fn never_crosses(subject: &Subject<'_>) -> Option<&'static str> {
    match subject.class() {
        SubjectClass::Advisory => Some(
            "'_RV.' advisories stay on the gateway that publishes them (NATS has its own, '$SYS.')",
        ),
        SubjectClass::Local => Some("'_LOCAL.' subjects never leave their gateway"),
        SubjectClass::Inbox => {
            Some("'_INBOX.' subjects cross as the reply subjects of requests, never by name")
        }
        _ => None,
    }
}

/// A message as it goes to NATS.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct NatsOut {
    /// The NATS subject.
    pub subject: String,
    /// The NATS reply subject.
    pub reply: Option<String>,
    /// The body: the JSON form of the envelope.
    pub payload: Vec<u8>,
}

/// The NATS message of a bus message (`json` is its JSON form).
///
/// Errors: a send or reply subject NATS would refuse ([`nats_refusal`]:
/// whitespace, a wildcard element), with the reason.
pub fn to_nats(env: &Envelope, json: &str) -> Result<NatsOut, Refusal> {
    let refuse = |reason: String| Refusal {
        subject: env.subject.clone(),
        direction: Direction::ToNats,
        reason,
    };
    let subject = Subject::parse(&env.subject, Mode::Listen).map_err(|e| refuse(e.to_string()))?;
    if let Some(r) = nats_refusal(&subject, NatsUse::Publish) {
        return Err(refuse(r.to_string()));
    }
    if let Some(reply) = &env.reply_subject {
        let r = Subject::parse(reply, Mode::Listen)
            .map_err(|e| refuse(format!("reply subject {reply:?}: {e}")))?;
        if let Some(why) = nats_refusal(&r, NatsUse::Publish) {
            return Err(refuse(format!("reply subject {reply:?}: {why}")));
        }
    }
    Ok(NatsOut {
        subject: env.subject.clone(),
        reply: env.reply_subject.clone(),
        payload: json.as_bytes().to_vec(),
    })
}

/// The bus message of a NATS message on `subject` with `reply`, whose body
/// is the JSON form when `json_form` ([`FORM_HEADER`] said `json`), else
/// opaque bytes carried in the field [`DATA_FIELD`].
///
/// Errors: a subject that is no Rendezvous subject of a message (the reason
/// of "Subject names"), one that never crosses ([`never_crosses`]; inboxes
/// are taken only when `inbox_ok`: replies to this gateway's requests), a
/// reply subject that is none, a body that is not the JSON form.
pub fn from_nats(
    subject: &str,
    reply: Option<&str>,
    json_form: bool,
    payload: &[u8],
    inbox_ok: bool,
) -> Result<Envelope, Refusal> {
    let refuse = |reason: String| Refusal {
        subject: subject.to_string(),
        direction: Direction::FromNats,
        reason,
    };
    let s = Subject::parse_delivered(subject).map_err(|e| refuse(e.to_string()))?;
    if let Some(why) = never_crosses(&s)
        && !(inbox_ok && s.class() == SubjectClass::Inbox)
    {
        return Err(refuse(why.to_string()));
    }
    let reply_subject = match reply {
        None => None,
        Some(r) => {
            let rs = Subject::parse_delivered(r)
                .map_err(|e| refuse(format!("reply subject {r:?}: {e}")))?;
            if matches!(rs.class(), SubjectClass::Advisory | SubjectClass::Local) {
                return Err(refuse(format!(
                    "reply subject {r:?}: replies cannot go to '_RV.' or '_LOCAL.' subjects"
                )));
            }
            Some(r.to_string())
        }
    };
    if !json_form {
        return Ok(Envelope {
            subject: subject.to_string(),
            reply_subject,
            cm: None,
            message: Message::new(vec![Field::new(
                DATA_FIELD,
                RvValue::Opaque(payload.to_vec()),
            )]),
        });
    }
    let mut v: Value = serde_json::from_slice(payload)
        .map_err(|e| refuse(format!("the body is not JSON ({FORM_HEADER}: json): {e}")))?;
    let Some(o) = v.as_object_mut() else {
        return Err(refuse(
            "the body is not the JSON form of a message (an object)".into(),
        ));
    };
    match o.get("subject") {
        None => {
            o.insert("subject".into(), Value::from(subject));
        }
        Some(Value::String(t)) if t == subject => {}
        Some(other) => {
            return Err(refuse(format!(
                "the body's subject {other} is not the NATS subject"
            )));
        }
    }
    if o.get("cm").is_some_and(|c| !c.is_null()) {
        return Err(refuse(
            "certified-delivery labels ('cm') do not cross the bridge".into(),
        ));
    }
    let mut env = crate::rv::json::envelope_from_json(&v).map_err(|e| refuse(e.to_string()))?;
    if reply_subject.is_some() {
        env.reply_subject = reply_subject;
    }
    Ok(env)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn env(subject: &str, reply: Option<&str>) -> Envelope {
        Envelope {
            subject: subject.into(),
            reply_subject: reply.map(str::to_string),
            cm: None,
            message: Message::default(),
        }
    }

    #[test]
    fn subjects_nats_would_refuse_are_refused_with_the_reason() {
        // docs/rendezvous.md "Rendezvous and NATS" rows 3 and 6.
        let r = to_nats(&env("A B.C", None), "{}").unwrap_err();
        assert_eq!(
            r.reason,
            "element 1 contains whitespace (' '): NATS subjects cannot contain whitespace"
        );
        let r = to_nats(&env("ORDERS.*", None), "{}").unwrap_err();
        assert_eq!(
            r.reason,
            "element 2 is a wildcard: NATS does not publish to wildcard subjects"
        );
        let r = to_nats(&env("A", Some("R\tS")), "{}").unwrap_err();
        assert_eq!(
            r.reason,
            "reply subject \"R\\tS\": element 1 contains whitespace ('\\t'): NATS subjects cannot contain whitespace"
        );
        let ok = to_nats(&env("A.B", Some("_INBOX.X.1")), "{\"x\":1}").unwrap();
        assert_eq!(ok.reply.as_deref(), Some("_INBOX.X.1"));
    }

    #[test]
    fn nats_subjects_rendezvous_cannot_hold_are_refused() {
        // Rows 1, 4 and 5: NATS takes `foo*` as literal text, and has no
        // `_RV.` rule or length limit.
        let r = from_nats("foo*.bar", None, false, b"", false).unwrap_err();
        assert_eq!(
            r.reason,
            "element 1 has '*' among other characters: '*' must be a whole element"
        );
        let r = from_nats("_RV.INFO.SYSTEM.X", None, false, b"", false).unwrap_err();
        assert!(r.reason.starts_with("'_RV.' advisories stay"), "{r}");
        let long = format!("{}.{}", "A".repeat(100), "B".repeat(96));
        let r = from_nats(&long, None, false, b"", false).unwrap_err();
        assert_eq!(
            r.reason,
            "the subject is 197 bytes long, over the 196 bytes programs can receive"
        );
    }

    #[test]
    fn a_body_without_the_form_header_is_one_opaque_field() {
        let e = from_nats("A.B", Some("_INBOX.n1"), false, b"\x00hi", false).unwrap();
        assert_eq!(e.reply_subject.as_deref(), Some("_INBOX.n1"));
        assert_eq!(
            e.message.fields,
            vec![Field::new("data", RvValue::Opaque(b"\x00hi".to_vec()))]
        );
        let e = from_nats(
            "A.B",
            None,
            true,
            br#"{"fields":[{"name":"n","type":"i32","value":7}]}"#,
            false,
        )
        .unwrap();
        assert_eq!(e.subject, "A.B");
        assert_eq!(e.message.fields, vec![Field::new("n", RvValue::I32(7))]);
        let r = from_nats("A.B", None, true, b"{\"subject\":\"C\"}", false).unwrap_err();
        assert_eq!(r.reason, "the body's subject \"C\" is not the NATS subject");
    }
}

//! The protocol between CM transports: messages on `_RVCM.` subjects over
//! the subject bus (docs/rendezvous.md "Certified delivery", "Protocol").
//!
//! TIBCO's own certified delivery protocol is not public; this layout is
//! mqgate's. It carries what TIBCO Rendezvous Concepts, "Certified Message
//! Delivery" says passes between a CM sender and a CM listener: the
//! listener's registration request, the sender's acceptance (or refusal,
//! "tibrvcmTransport_DisallowListener()"), delivery confirmations, the
//! request for old messages of a listener that comes back
//! ("tibrvcmTransport_Create()", `requestOld`), retransmission of missed
//! messages, and the cancellation of an agreement.
//!
//! | subject | to | `op` values |
//! |---|---|---|
//! | `_RVCM.SENDER.<sender name>` | one sender | `register`, `confirm`, `resend`, `close` |
//! | `_RVCM.LISTENER.<listener name>` | one listener | `accept`, `refuse`, `redeliver` |
//! | `_RVCM.REQUEST_OLD` | every sender | `request_old` |
//!
//! Every message has the string field `op`, then its own fields (strings
//! `listener`, `sender`, `subject`; u64 `seqno`, `seqno_begin`,
//! `seqno_end`; a redelivered message its `reply_subject` when it had one,
//! f64 `time_limit` and its fields as the nested message `data`). Messages
//! that cannot be read are logged and dropped by the transports; reading
//! never panics.

use mqgate_codecs::rv::msg::{CmLabels, Envelope, Field, Message, Value};

pub use crate::rv::control::ProtocolError;
use crate::rv::control::{Reader, envelope, string};

/// Subject prefix of the messages to one sender.
pub const SENDER_PREFIX: &str = "_RVCM.SENDER.";
/// Subject prefix of the messages to one listener.
pub const LISTENER_PREFIX: &str = "_RVCM.LISTENER.";
/// Subject of the request for old messages, which every sender reads.
pub const REQUEST_OLD_SUBJECT: &str = "_RVCM.REQUEST_OLD";

/// The subject of the messages to sender `name`.
pub fn sender_subject(name: &str) -> String {
    format!("{SENDER_PREFIX}{name}")
}

/// The subject of the messages to listener `name`.
pub fn listener_subject(name: &str) -> String {
    format!("{LISTENER_PREFIX}{name}")
}

/// A message from a listener to one sender.
#[derive(Clone, Debug, PartialEq)]
pub enum ToSender {
    /// Register `listener` for certified delivery of `subject`.
    Register {
        /// The listener's correspondent name.
        listener: String,
        /// The subject (no wildcards).
        subject: String,
    },
    /// `listener` confirms message `seqno` of `subject`.
    Confirm {
        /// The listener's correspondent name.
        listener: String,
        /// The subject (no wildcards).
        subject: String,
        /// The sequence number.
        seqno: u64,
    },
    /// `listener` missed `seqno_begin..=seqno_end` of `subject`: send
    /// again those still in the ledger for it.
    Resend {
        /// The listener's correspondent name.
        listener: String,
        /// The subject (no wildcards).
        subject: String,
        /// The first sequence number.
        seqno_begin: u64,
        /// The last sequence number.
        seqno_end: u64,
    },
    /// `listener` no longer listens to `subject` (its transport closed for
    /// good): cancel the agreement.
    Close {
        /// The listener's correspondent name.
        listener: String,
        /// The subject (no wildcards).
        subject: String,
    },
}

/// A message from a sender to one listener.
#[derive(Clone, Debug, PartialEq)]
pub enum ToListener {
    /// `sender` certifies delivery of `subject` from `seqno_begin` on.
    Accept {
        /// The sender's correspondent name.
        sender: String,
        /// The subject (no wildcards).
        subject: String,
        /// The first sequence number.
        seqno_begin: u64,
    },
    /// `sender` does not certify delivery of `subject` to this listener
    /// (it disallowed the listener).
    Refuse {
        /// The sender's correspondent name.
        sender: String,
        /// The subject (no wildcards).
        subject: String,
    },
    /// A certified message sent again (the envelope carries its labels).
    Redeliver(Envelope),
}

/// A listener that came back asks every sender for what it did not confirm
/// (`requestOld`): the messages kept for it on subjects its listen
/// subjects (`patterns`) match.
#[derive(Clone, Debug, PartialEq)]
pub struct RequestOld {
    /// The listener's correspondent name.
    pub listener: String,
    /// Its listen subjects (wildcards allowed).
    pub patterns: Vec<String>,
}

impl ToSender {
    /// The message to sender `sender`.
    pub fn to_envelope(&self, sender: &str) -> Envelope {
        let fields = match self {
            ToSender::Register { listener, subject } => vec![
                Field::new("op", string("register")),
                Field::new("listener", string(listener)),
                Field::new("subject", string(subject)),
            ],
            ToSender::Confirm {
                listener,
                subject,
                seqno,
            } => vec![
                Field::new("op", string("confirm")),
                Field::new("listener", string(listener)),
                Field::new("subject", string(subject)),
                Field::new("seqno", Value::U64(*seqno)),
            ],
            ToSender::Resend {
                listener,
                subject,
                seqno_begin,
                seqno_end,
            } => vec![
                Field::new("op", string("resend")),
                Field::new("listener", string(listener)),
                Field::new("subject", string(subject)),
                Field::new("seqno_begin", Value::U64(*seqno_begin)),
                Field::new("seqno_end", Value::U64(*seqno_end)),
            ],
            ToSender::Close { listener, subject } => vec![
                Field::new("op", string("close")),
                Field::new("listener", string(listener)),
                Field::new("subject", string(subject)),
            ],
        };
        envelope(sender_subject(sender), fields)
    }

    /// Reads a message to a sender.
    ///
    /// Errors: [`ProtocolError`] naming the field missing or of the wrong
    /// type, or an unknown `op`.
    pub fn from_message(m: &Message) -> Result<ToSender, ProtocolError> {
        let r = Reader::new(m)?;
        Ok(match r.op() {
            "register" => ToSender::Register {
                listener: r.name("listener")?,
                subject: r.name("subject")?,
            },
            "confirm" => ToSender::Confirm {
                listener: r.name("listener")?,
                subject: r.name("subject")?,
                seqno: r.u64("seqno")?,
            },
            "resend" => ToSender::Resend {
                listener: r.name("listener")?,
                subject: r.name("subject")?,
                seqno_begin: r.u64("seqno_begin")?,
                seqno_end: r.u64("seqno_end")?,
            },
            "close" => ToSender::Close {
                listener: r.name("listener")?,
                subject: r.name("subject")?,
            },
            _ => return Err(r.error("op", "is not an operation of a sender")),
        })
    }
}

impl ToListener {
    /// The message to listener `listener`.
    pub fn to_envelope(&self, listener: &str) -> Envelope {
        let fields = match self {
            ToListener::Accept {
                sender,
                subject,
                seqno_begin,
            } => vec![
                Field::new("op", string("accept")),
                Field::new("sender", string(sender)),
                Field::new("subject", string(subject)),
                Field::new("seqno_begin", Value::U64(*seqno_begin)),
            ],
            ToListener::Refuse { sender, subject } => vec![
                Field::new("op", string("refuse")),
                Field::new("sender", string(sender)),
                Field::new("subject", string(subject)),
            ],
            ToListener::Redeliver(env) => {
                let labels = env.cm.clone().unwrap_or(CmLabels {
                    sender: String::new(),
                    sequence: 0,
                    time_limit: 0.0,
                });
                let mut f = vec![
                    Field::new("op", string("redeliver")),
                    Field::new("sender", string(&labels.sender)),
                    Field::new("subject", string(&env.subject)),
                    Field::new("seqno", Value::U64(labels.sequence)),
                    Field::new("time_limit", Value::F64(labels.time_limit)),
                ];
                if let Some(reply) = &env.reply_subject {
                    f.push(Field::new("reply_subject", string(reply)));
                }
                f.push(Field::new("data", Value::Msg(env.message.clone())));
                f
            }
        };
        envelope(listener_subject(listener), fields)
    }

    /// Reads a message to a listener.
    ///
    /// Errors: [`ProtocolError`] naming the field missing or of the wrong
    /// type, or an unknown `op`.
    pub fn from_message(m: &Message) -> Result<ToListener, ProtocolError> {
        let r = Reader::new(m)?;
        Ok(match r.op() {
            "accept" => ToListener::Accept {
                sender: r.name("sender")?,
                subject: r.name("subject")?,
                seqno_begin: r.u64("seqno_begin")?,
            },
            "refuse" => ToListener::Refuse {
                sender: r.name("sender")?,
                subject: r.name("subject")?,
            },
            "redeliver" => {
                let time_limit = match r.get("time_limit")? {
                    Value::F64(t) if t.is_finite() && *t >= 0.0 => *t,
                    _ => return Err(r.error("time_limit", "is not a time limit (f64, >= 0)")),
                };
                let reply_subject = match m.get("reply_subject").map(|f| &f.value) {
                    None => None,
                    Some(Value::String(s)) => Some(s.clone()),
                    Some(_) => return Err(r.error("reply_subject", "is not a string")),
                };
                let message = match r.get("data")? {
                    Value::Msg(d) => d.clone(),
                    _ => return Err(r.error("data", "is not a message")),
                };
                ToListener::Redeliver(Envelope {
                    subject: r.name("subject")?,
                    reply_subject,
                    cm: Some(CmLabels {
                        sender: r.name("sender")?,
                        sequence: r.u64("seqno")?,
                        time_limit,
                    }),
                    message,
                })
            }
            _ => return Err(r.error("op", "is not an operation of a listener")),
        })
    }
}

impl RequestOld {
    /// The broadcast message.
    pub fn to_envelope(&self) -> Envelope {
        envelope(
            REQUEST_OLD_SUBJECT.to_string(),
            vec![
                Field::new("op", string("request_old")),
                Field::new("listener", string(&self.listener)),
                Field::new("subjects", Value::StringArray(self.patterns.clone())),
            ],
        )
    }

    /// Reads the broadcast message.
    ///
    /// Errors: [`ProtocolError`].
    pub fn from_message(m: &Message) -> Result<RequestOld, ProtocolError> {
        let r = Reader::new(m)?;
        if r.op() != "request_old" {
            return Err(r.error("op", "is not request_old"));
        }
        let patterns = match r.get("subjects")? {
            Value::StringArray(a) => a.clone(),
            _ => return Err(r.error("subjects", "is not a string array")),
        };
        Ok(RequestOld {
            listener: r.name("listener")?,
            patterns,
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_message_reads_back_as_written() {
        let to_sender = [
            ToSender::Register {
                listener: "L.ONE".into(),
                subject: "ORDERS.NEW".into(),
            },
            ToSender::Confirm {
                listener: "L".into(),
                subject: "ORDERS.NEW".into(),
                seqno: 7,
            },
            ToSender::Resend {
                listener: "L".into(),
                subject: "S".into(),
                seqno_begin: 3,
                seqno_end: 5,
            },
            ToSender::Close {
                listener: "L".into(),
                subject: "S".into(),
            },
        ];
        for m in to_sender {
            let env = m.to_envelope("PRICER");
            assert_eq!(env.subject, "_RVCM.SENDER.PRICER");
            assert_eq!(ToSender::from_message(&env.message), Ok(m));
        }
        let redelivered = Envelope {
            subject: "ORDERS.NEW".into(),
            reply_subject: Some("ANSWERS".into()),
            cm: Some(CmLabels {
                sender: "PRICER".into(),
                sequence: 9,
                time_limit: 30.0,
            }),
            message: Message::new(vec![Field::new("qty", Value::I32(5))]),
        };
        let to_listener = [
            ToListener::Accept {
                sender: "PRICER".into(),
                subject: "ORDERS.NEW".into(),
                seqno_begin: 4,
            },
            ToListener::Refuse {
                sender: "PRICER".into(),
                subject: "ORDERS.NEW".into(),
            },
            ToListener::Redeliver(redelivered),
        ];
        for m in to_listener {
            let env = m.to_envelope("L");
            assert_eq!(env.subject, "_RVCM.LISTENER.L");
            assert_eq!(ToListener::from_message(&env.message), Ok(m));
        }
        let old = RequestOld {
            listener: "L".into(),
            patterns: vec!["ORDERS.>".into()],
        };
        let env = old.to_envelope();
        assert_eq!(env.subject, "_RVCM.REQUEST_OLD");
        assert_eq!(RequestOld::from_message(&env.message), Ok(old));
    }

    #[test]
    fn unreadable_messages_name_the_field() {
        let m = Message::new(vec![Field::new("op", Value::String("confirm".into()))]);
        let e = ToSender::from_message(&m).unwrap_err();
        assert_eq!((e.field, e.problem), ("listener", "is missing"));
        assert_eq!(e.to_string(), "op \"confirm\": field 'listener' is missing");
        let m = Message::new(vec![
            Field::new("op", Value::String("confirm".into())),
            Field::new("listener", Value::String("L".into())),
            Field::new("subject", Value::String("S".into())),
            Field::new("seqno", Value::I32(1)),
        ]);
        assert_eq!(ToSender::from_message(&m).unwrap_err().field, "seqno");
        let m = Message::new(vec![Field::new("op", Value::String("dance".into()))]);
        assert_eq!(ToListener::from_message(&m).unwrap_err().field, "op");
        assert_eq!(
            ToSender::from_message(&Message::default())
                .unwrap_err()
                .problem,
            "is missing"
        );
    }
}

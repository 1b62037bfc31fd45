//! Numbered messages on a gateway's Rendezvous subject bus
//! (docs/rendezvous.md "Subject bus"): publish `{n: I32}` on a subject,
//! listen, read the number back.

use mqgate::gateway::Handle;
use mqgate::rv::{Delivery, Listener, ListenerOptions, Origin};
use mqgate_codecs::rv::msg::{Envelope, Field, Message, Value as RvValue};

/// A message on `subject` with one field `n` = `n` (I32), no reply subject.
pub fn message(subject: &str, n: i32) -> Envelope {
    Envelope {
        subject: subject.into(),
        reply_subject: None,
        cm: None,
        message: Message::new(vec![Field::new("n", RvValue::I32(n))]),
    }
}

/// Publishes [`message`] on `h`'s bus as a client.
pub fn publish(h: &Handle, subject: &str, n: i32) {
    h.rv_bus()
        .unwrap()
        .publish(message(subject, n), Origin::Client)
        .unwrap();
}

/// A listener on `h`'s bus for `subjects`.
pub fn listen(h: &Handle, subjects: &[&str]) -> Listener {
    h.rv_bus()
        .unwrap()
        .listen(subjects, ListenerOptions::default())
        .unwrap()
}

/// The field `n` of a delivered [`message`]; -1 when it has none.
pub fn number(d: &Delivery) -> i32 {
    match d.envelope().message.get("n").map(|f| &f.value) {
        Some(RvValue::I32(n)) => *n,
        _ => -1,
    }
}

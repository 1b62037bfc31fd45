//! A published message as listeners receive it: one shared copy for every
//! listener, with its binary form and, made once when first asked for, its
//! JSON text (docs/rendezvous.md "Subject bus").

use std::fmt;
use std::sync::{Arc, OnceLock};

use mqgate_codecs::rv::msg::Envelope;

/// A routing link or bridge of this gateway: what [`Origin::Link`] and
/// [`ListenerOptions::link`](super::listener::ListenerOptions::link) name,
/// from [`Bus::new_link`](super::bus::Bus::new_link).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct LinkId(pub(crate) u64);

impl fmt::Display for LinkId {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "link {}", self.0)
    }
}

/// Who published a message, which decides how its subjects are checked
/// (docs/rendezvous.md "Publishing").
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Origin {
    /// A program, through the HTTP API or the CLI: the send subject is
    /// checked in send mode (no reserved first element but `_LOCAL` and
    /// `_INBOX`, wildcards only with `rv.wildcard_publish`), the reply
    /// subject likewise without wildcards.
    Client,
    /// mqgate itself (advisories, certified delivery, bridges): any
    /// reserved first element, up to 255 bytes, no wildcards.
    Gateway,
    /// A message that came in over a routing link or bridge: checked as a
    /// listen subject (it was checked where it was published), never
    /// `_LOCAL.` or `_RV.`, and never delivered back to that link's own
    /// listeners.
    Link(LinkId),
}

/// One published message, shared by every listener it is delivered to.
#[derive(Clone)]
pub struct Delivery(Arc<Inner>);

struct Inner {
    envelope: Envelope,
    encoded: Vec<u8>,
    origin: Origin,
    json: OnceLock<String>,
}

impl Delivery {
    /// A delivery of `envelope`, whose binary form (already checked
    /// against the bus's limits) is `encoded`.
    pub(crate) fn new(envelope: Envelope, encoded: Vec<u8>, origin: Origin) -> Delivery {
        Delivery(Arc::new(Inner {
            envelope,
            encoded,
            origin,
            json: OnceLock::new(),
        }))
    }

    /// The message with its subjects.
    pub fn envelope(&self) -> &Envelope {
        &self.0.envelope
    }

    /// The send subject.
    pub fn subject(&self) -> &str {
        &self.0.envelope.subject
    }

    /// The reply subject, if the sender gave one.
    pub fn reply_subject(&self) -> Option<&str> {
        self.0.envelope.reply_subject.as_deref()
    }

    /// Who published it.
    pub fn origin(&self) -> Origin {
        self.0.origin
    }

    /// mqgate's binary form of the envelope (docs/rendezvous.md "Binary
    /// form"), as a routing link or a queue bridge sends or stores it.
    pub fn encoded(&self) -> &[u8] {
        &self.0.encoded
    }

    /// Size of [`Delivery::encoded`] in bytes.
    pub fn encoded_len(&self) -> usize {
        self.0.encoded.len()
    }

    /// The JSON form of the envelope (docs/rendezvous.md "JSON form") on
    /// one line, made the first time it is asked for and shared after.
    pub fn json(&self) -> &str {
        self.0
            .json
            .get_or_init(|| crate::rv::json::envelope_to_json(&self.0.envelope).to_string())
    }
}

impl fmt::Debug for Delivery {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("Delivery")
            .field("subject", &self.subject())
            .field("origin", &self.0.origin)
            .field("bytes", &self.encoded_len())
            .finish()
    }
}

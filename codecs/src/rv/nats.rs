//! Which Rendezvous subjects NATS would refuse, and why (docs/rendezvous.md
//! "Rendezvous and NATS"). NATS's rules are nats-server's
//! `server/sublist.go`: `IsValidSubject` refuses an element containing a
//! space, tab, line feed, form feed or carriage return, and
//! `IsValidPublishSubject` also refuses a subject with a wildcard element.
//!
//! Every other difference goes the other way (NATS accepts what Rendezvous
//! refuses: partial wildcards such as `foo*`, subjects of any length) or has
//! no NATS counterpart (the `_` prefixes), so a subject that passed the
//! Rendezvous checks needs only these two.

use std::fmt;

use super::subject::Subject;

/// What the subject is used for on the NATS side.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum NatsUse {
    /// A subscription (wildcards allowed).
    Subscribe,
    /// A publish (no wildcards).
    Publish,
}

/// Why NATS would refuse a subject.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum NatsRefusal {
    /// An element contains whitespace (legal, if discouraged, in Rendezvous).
    Whitespace {
        /// The element, from 1.
        element: usize,
        /// Byte offset of the character in the subject.
        offset: usize,
        /// The character: space, `\t`, `\n`, `\x0c` or `\r`.
        character: char,
    },
    /// A wildcard element in a subject to publish (legal on an ordinary
    /// Rendezvous transport when allowed).
    WildcardPublish {
        /// The element, from 1.
        element: usize,
    },
}

/// The characters nats-server's `IsValidSubject` refuses in an element.
const NATS_WHITESPACE: [char; 5] = [' ', '\t', '\n', '\x0c', '\r'];

/// The first reason NATS would refuse `subject` for `usage`, in text order;
/// `None` when NATS takes it as it is.
pub fn nats_refusal(subject: &Subject<'_>, usage: NatsUse) -> Option<NatsRefusal> {
    let mut offset = 0;
    for (i, el) in subject.elements().enumerate() {
        let element = i + 1;
        if let Some((pos, character)) = el.char_indices().find(|(_, c)| NATS_WHITESPACE.contains(c))
        {
            return Some(NatsRefusal::Whitespace {
                element,
                offset: offset + pos,
                character,
            });
        }
        if usage == NatsUse::Publish && (el == "*" || el == ">") {
            return Some(NatsRefusal::WildcardPublish { element });
        }
        offset += el.len() + 1;
    }
    None
}

impl fmt::Display for NatsRefusal {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match *self {
            NatsRefusal::Whitespace {
                element, character, ..
            } => write!(
                f,
                "element {element} contains whitespace ({:?}): NATS subjects cannot contain whitespace",
                character
            ),
            NatsRefusal::WildcardPublish { element } => write!(
                f,
                "element {element} is a wildcard: NATS does not publish to wildcard subjects"
            ),
        }
    }
}

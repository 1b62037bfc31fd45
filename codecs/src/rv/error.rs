//! Why a text is not a subject (or not one for the use it was checked for):
//! the rule broken, the element it was found in (counted from 1) and the byte
//! offset (docs/rendezvous.md "Refusals").

use std::fmt;

use super::class::SubjectClass;
use super::subject::{RECEIVE_MAX, REUSABLE_NAME_MAX, SEND_BASE, SUBJECT_MAX, SUBJECT_TOKEN_MAX};

/// `TIBRV_INVALID_SUBJECT` (20, Rendezvous `tibrv/status.h`): "the method
/// received a subject name with incorrect syntax" (TIBCO Rendezvous Java
/// Reference, "TibrvStatus"). Every refusal maps to it; reusable names too,
/// since they "must obey the syntax for Rendezvous subject names" (TIBCO
/// Rendezvous Concepts, "Reusable Names") and no other status is documented
/// for them.
pub const TIBRV_INVALID_SUBJECT: i32 = 20;

/// Why a wildcard element was refused where it stands.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum WildcardContext {
    /// An ordinary send, with wildcard sends not allowed (mqgate's default,
    /// docs/rendezvous.md "Modes").
    OrdinarySend,
    /// A send on a certified (CM) transport or to a distributed queue.
    CertifiedSend,
    /// A subject whose first element is `_INBOX`.
    Inbox,
    /// A reusable name.
    ReusableName,
    /// The subject of a message as a listener receives it.
    Delivered,
}

impl WildcardContext {
    fn reason(self) -> &'static str {
        match self {
            WildcardContext::OrdinarySend => {
                "sending to a wildcard subject is refused unless wildcard sends are allowed"
            }
            WildcardContext::CertifiedSend => {
                "certified delivery and distributed queues cannot send to wildcard subjects"
            }
            WildcardContext::Inbox => "'_INBOX.' subjects cannot be combined with wildcards",
            WildcardContext::ReusableName => "reusable names cannot contain wildcards",
            WildcardContext::Delivered => "the subject of a message has no wildcards",
        }
    }
}

/// The rule a subject breaks. Element numbers count from 1.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub enum SubjectErrorKind {
    /// The empty string ("Subject Name Syntax": not a legal subject name).
    Empty,
    /// Longer than [`SUBJECT_MAX`] (255) bytes, dots included.
    TooLong {
        /// Length of the text, bytes.
        len: usize,
    },
    /// An empty element: two dots in a row, or a dot at either end.
    EmptyElement {
        /// The element, from 1.
        element: usize,
    },
    /// An element longer than [`SUBJECT_TOKEN_MAX`] (127) bytes.
    ElementTooLong {
        /// The element, from 1.
        element: usize,
        /// Its length, bytes.
        len: usize,
    },
    /// A NUL character: Rendezvous subjects are C strings, which end at the
    /// first NUL (mqgate's rule, docs/rendezvous.md "Characters").
    Nul {
        /// The element, from 1.
        element: usize,
    },
    /// `*` or `>` inside an element with other characters (`abc*xyz`,
    /// `foo>`): a wildcard must be a whole element.
    PartialWildcard {
        /// The element, from 1.
        element: usize,
        /// `*` or `>`.
        wildcard: char,
    },
    /// `>` as an element that is not the last one (`Foo.>.baz`).
    FullWildcardNotLast {
        /// The element, from 1.
        element: usize,
    },
    /// A wildcard element where none may stand.
    WildcardRefused {
        /// The element, from 1.
        element: usize,
        /// `*` or `>`.
        wildcard: char,
        /// Why none may stand there.
        context: WildcardContext,
    },
    /// A send to a reserved first element other than `_LOCAL` and `_INBOX`.
    ReservedForSend {
        /// The class of the first element.
        class: SubjectClass,
    },
    /// A reusable name beginning with a reserved element (`_` first).
    ReservedName {
        /// The class of the first element.
        class: SubjectClass,
    },
    /// A listen pattern or delivered subject longer than [`RECEIVE_MAX`]
    /// (196) bytes, the longest subject programs can receive.
    ReceiveTooLong {
        /// Length of the text, bytes.
        len: usize,
    },
    /// A send subject longer than [`SEND_BASE`] (196) minus its number of
    /// elements.
    SendTooLong {
        /// Length of the text, bytes.
        len: usize,
        /// Number of elements.
        elements: usize,
    },
    /// A CM correspondent or distributed queue name longer than
    /// [`REUSABLE_NAME_MAX`] (50) bytes.
    NameTooLong {
        /// Length of the name, bytes.
        len: usize,
    },
}

/// A refused subject: the rule and where in the text.
#[derive(Clone, Debug, PartialEq, Eq, Hash, thiserror::Error)]
#[error("{kind}")]
pub struct SubjectError {
    /// The rule broken.
    pub kind: SubjectErrorKind,
    /// Byte offset of the fault in the text: the start of the element, the
    /// wildcard or NUL character inside it, or the end of the text (an empty
    /// last element); 0 for rules about the whole text.
    pub offset: usize,
}

impl SubjectError {
    /// The element the fault is in, counted from 1; `None` for rules about
    /// the whole text (empty, too long).
    pub fn element(&self) -> Option<usize> {
        match self.kind {
            SubjectErrorKind::EmptyElement { element }
            | SubjectErrorKind::ElementTooLong { element, .. }
            | SubjectErrorKind::Nul { element }
            | SubjectErrorKind::PartialWildcard { element, .. }
            | SubjectErrorKind::FullWildcardNotLast { element }
            | SubjectErrorKind::WildcardRefused { element, .. } => Some(element),
            SubjectErrorKind::ReservedForSend { .. } | SubjectErrorKind::ReservedName { .. } => {
                Some(1)
            }
            SubjectErrorKind::Empty
            | SubjectErrorKind::TooLong { .. }
            | SubjectErrorKind::ReceiveTooLong { .. }
            | SubjectErrorKind::SendTooLong { .. }
            | SubjectErrorKind::NameTooLong { .. } => None,
        }
    }

    /// The Rendezvous status a call refusing this subject gives:
    /// [`TIBRV_INVALID_SUBJECT`].
    pub fn status(&self) -> i32 {
        TIBRV_INVALID_SUBJECT
    }

    /// The TIBCO Rendezvous Concepts page that states the rule (docs mqgate
    /// points administrators to); "docs/rendezvous.md" for mqgate's own rules.
    pub fn reference(&self) -> &'static str {
        match self.kind {
            SubjectErrorKind::Empty
            | SubjectErrorKind::TooLong { .. }
            | SubjectErrorKind::EmptyElement { .. }
            | SubjectErrorKind::ElementTooLong { .. }
            | SubjectErrorKind::ReceiveTooLong { .. }
            | SubjectErrorKind::SendTooLong { .. } => "Subject Name Syntax",
            SubjectErrorKind::PartialWildcard { wildcard: '*', .. }
            | SubjectErrorKind::FullWildcardNotLast { .. } => {
                "Using Wildcards to Receive Related Subjects"
            }
            SubjectErrorKind::WildcardRefused { context, .. } => match context {
                WildcardContext::CertifiedSend => "Using Wildcards to Receive Related Subjects",
                WildcardContext::Inbox => "Distinguished Subject Names with Special Meaning",
                WildcardContext::ReusableName => "Reusable Names",
                WildcardContext::OrdinarySend | WildcardContext::Delivered => "docs/rendezvous.md",
            },
            SubjectErrorKind::ReservedForSend { .. } => {
                "Distinguished Subject Names with Special Meaning"
            }
            SubjectErrorKind::ReservedName { .. } | SubjectErrorKind::NameTooLong { .. } => {
                "Reusable Names"
            }
            SubjectErrorKind::Nul { .. } | SubjectErrorKind::PartialWildcard { .. } => {
                "docs/rendezvous.md"
            }
        }
    }
}

fn reserved(class: SubjectClass) -> String {
    match class.prefix() {
        Some(prefix) => format!("'{prefix}' is reserved for {}", class.meaning()),
        None => format!(
            "a first element beginning with '_' is reserved for {}",
            class.meaning()
        ),
    }
}

impl fmt::Display for SubjectErrorKind {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match *self {
            SubjectErrorKind::Empty => f.write_str("the subject is empty"),
            SubjectErrorKind::TooLong { len } => write!(
                f,
                "the subject is {len} bytes long, over the {SUBJECT_MAX}-byte limit (TIBRV_SUBJECT_MAX, dots included)"
            ),
            SubjectErrorKind::EmptyElement { element } => write!(f, "element {element} is empty"),
            SubjectErrorKind::ElementTooLong { element, len } => write!(
                f,
                "element {element} is {len} bytes long, over the {SUBJECT_TOKEN_MAX}-byte element limit"
            ),
            SubjectErrorKind::Nul { element } => write!(
                f,
                "element {element} contains NUL, which a Rendezvous subject (a C string) cannot hold"
            ),
            SubjectErrorKind::PartialWildcard { element, wildcard } => write!(
                f,
                "element {element} has '{wildcard}' among other characters: '{wildcard}' must be a whole element"
            ),
            SubjectErrorKind::FullWildcardNotLast { element } => {
                write!(f, "element {element} is '>': '>' must be the last element")
            }
            SubjectErrorKind::WildcardRefused {
                element,
                wildcard,
                context,
            } => write!(
                f,
                "element {element} is the wildcard '{wildcard}': {}",
                context.reason()
            ),
            SubjectErrorKind::ReservedForSend { class } => write!(
                f,
                "element 1: {}; programs must not send to it",
                reserved(class)
            ),
            SubjectErrorKind::ReservedName { class } => write!(
                f,
                "element 1: a reusable name may not begin with a reserved element ({})",
                reserved(class)
            ),
            SubjectErrorKind::ReceiveTooLong { len } => write!(
                f,
                "the subject is {len} bytes long, over the {RECEIVE_MAX} bytes programs can receive"
            ),
            SubjectErrorKind::SendTooLong { len, elements } => write!(
                f,
                "the subject is {len} bytes long with {elements} elements, over the {} bytes a program may send ({SEND_BASE} minus the number of elements)",
                SEND_BASE.saturating_sub(elements)
            ),
            SubjectErrorKind::NameTooLong { len } => write!(
                f,
                "the name is {len} bytes long, over the {REUSABLE_NAME_MAX}-character limit of reusable names"
            ),
        }
    }
}

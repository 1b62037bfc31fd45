//! Subject names: elements separated by dots, checked for the use they are
//! put to, and matched with the `*` and `>` wildcards (TIBCO Rendezvous
//! Concepts, "Subject Name Syntax", "Using Wildcards to Receive Related
//! Subjects", "Distinguished Subject Names with Special Meaning";
//! docs/rendezvous.md "Subject names").
//!
//! Lengths are bytes of the UTF-8 text: the Rendezvous limits are sizes of C
//! character buffers ("Establish Subject Naming Conventions": "artificially
//! limited to 255 bytes").

use std::borrow::Cow;
use std::fmt;

use nom::Parser;
use nom::bytes::complete::take_till1;
use nom::character::complete::char;

use super::class::SubjectClass;
use super::error::{SubjectError, SubjectErrorKind, WildcardContext};
use super::names::NameKind;

/// Longest subject, bytes, dots included (`TIBRV_SUBJECT_MAX`).
pub const SUBJECT_MAX: usize = 255;
/// Longest element, bytes (`TIBRV_SUBJECT_TOKEN_MAX`).
pub const SUBJECT_TOKEN_MAX: usize = 127;
/// Longest subject (most) programs can receive, bytes: the limit of listen
/// patterns (a pattern longer than this matches only subjects longer than
/// this) and of delivered subjects.
pub const RECEIVE_MAX: usize = 196;
/// A program may send subjects of at most this many bytes minus the number
/// of elements, dots included.
pub const SEND_BASE: usize = 196;
/// Longest CM correspondent (and distributed queue) name ("Reusable Names").
pub const REUSABLE_NAME_MAX: usize = 50;

/// What a subject is checked for.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Mode {
    /// A listener's subject: wildcards and every reserved prefix allowed;
    /// at most [`RECEIVE_MAX`] bytes.
    Listen,
    /// A send on an ordinary transport: no reserved first element but
    /// `_LOCAL` and `_INBOX`; no wildcards unless
    /// [`Validation::allow_wildcard_send`]; at most [`SEND_BASE`] minus the
    /// number of elements, bytes.
    Send,
    /// A send on a certified (CM) transport or to a distributed queue: as
    /// [`Mode::Send`], and wildcards are always refused.
    SendCertified,
}

impl Mode {
    /// `listen`, `send` or `cm`, as the command line spells the modes.
    pub fn name(self) -> &'static str {
        match self {
            Mode::Listen => "listen",
            Mode::Send => "send",
            Mode::SendCertified => "cm",
        }
    }
}

/// A [`Mode`] and its one option.
///
/// Sending to wildcard subjects on an ordinary transport is legal in
/// Rendezvous but discouraged ("Using Wildcards to Receive Related
/// Subjects", "Wildcard Sending"), and an rvd may refuse it
/// (`_RV.ERROR.SYSTEM.CLIENT.ILLEGAL_PUBLISH`); mqgate refuses it unless
/// this allows it (docs/rendezvous.md "Modes").
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct Validation {
    mode: Mode,
    wildcard_send: bool,
}

impl Validation {
    /// Listen mode.
    pub const LISTEN: Validation = Validation::new(Mode::Listen);
    /// Ordinary send, wildcards refused.
    pub const SEND: Validation = Validation::new(Mode::Send);
    /// Certified (CM) or distributed queue send.
    pub const SEND_CERTIFIED: Validation = Validation::new(Mode::SendCertified);

    /// `mode` with wildcard sends refused.
    pub const fn new(mode: Mode) -> Validation {
        Validation {
            mode,
            wildcard_send: false,
        }
    }

    /// The same, allowing (or not) wildcard elements in an ordinary send.
    /// No effect in [`Mode::Listen`] (always allowed) or
    /// [`Mode::SendCertified`] (never allowed).
    pub const fn allow_wildcard_send(self, allow: bool) -> Validation {
        Validation {
            mode: self.mode,
            wildcard_send: allow,
        }
    }

    /// The mode.
    pub const fn mode(self) -> Mode {
        self.mode
    }

    /// True when an ordinary send may have wildcard elements.
    pub const fn wildcard_send(self) -> bool {
        self.wildcard_send
    }
}

impl From<Mode> for Validation {
    fn from(mode: Mode) -> Validation {
        Validation::new(mode)
    }
}

/// The use a text is checked for (the modes, and the checks of
/// [`Subject::parse_delivered`] and reusable names).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Purpose {
    Check(Validation),
    Delivered,
    Internal,
    Name(NameKind),
}

/// A subject name that passed the checks of one use: its text (borrowed or
/// owned) and what was learnt while checking it.
///
/// Elements are the texts between dots; a wildcard element is exactly `*`
/// or `>`. Two subjects are equal when their texts are.
#[derive(Clone, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct Subject<'a> {
    text: Cow<'a, str>,
    elements: u8,
    wildcards: bool,
    class: SubjectClass,
}

/// One element: at least one character up to the next dot.
fn element(input: &str) -> nom::IResult<&str, &str> {
    take_till1(|c| c == '.').parse(input)
}

/// The dot between two elements.
fn separator(input: &str) -> nom::IResult<&str, char> {
    char('.').parse(input)
}

/// Checks `text` for `purpose`: the first rule broken, in text order (whole
/// text limits that need no element first, then element by element, then
/// the limits of the use).
pub(crate) fn check(text: &str, purpose: Purpose) -> Result<Subject<'_>, SubjectError> {
    let err = |kind, offset| Err(SubjectError { kind, offset });
    if text.is_empty() {
        return err(SubjectErrorKind::Empty, 0);
    }
    if text.len() > SUBJECT_MAX {
        return err(SubjectErrorKind::TooLong { len: text.len() }, 0);
    }
    let mut rest = text;
    let mut count = 0usize;
    let mut wildcards = false;
    let mut class = SubjectClass::Ordinary;
    loop {
        count += 1;
        let at = text.len() - rest.len();
        let Ok((after, el)) = element(rest) else {
            return err(SubjectErrorKind::EmptyElement { element: count }, at);
        };
        if el.len() > SUBJECT_TOKEN_MAX {
            let kind = SubjectErrorKind::ElementTooLong {
                element: count,
                len: el.len(),
            };
            return err(kind, at);
        }
        if let Some(pos) = el.find('\0') {
            return err(SubjectErrorKind::Nul { element: count }, at + pos);
        }
        let last = after.is_empty();
        let wildcard = match el {
            "*" => Some('*'),
            ">" => Some('>'),
            _ => {
                if let Some((pos, wildcard)) =
                    el.char_indices().find(|&(_, c)| c == '*' || c == '>')
                {
                    let kind = SubjectErrorKind::PartialWildcard {
                        element: count,
                        wildcard,
                    };
                    return err(kind, at + pos);
                }
                None
            }
        };
        if count == 1 {
            class = SubjectClass::of_first_element(el);
            if class.is_reserved() {
                match purpose {
                    Purpose::Check(v) if v.mode() != Mode::Listen && !class.may_send() => {
                        return err(SubjectErrorKind::ReservedForSend { class }, 0);
                    }
                    Purpose::Name(_) => {
                        return err(SubjectErrorKind::ReservedName { class }, 0);
                    }
                    _ => {}
                }
            }
        }
        if let Some(wildcard) = wildcard {
            if wildcard == '>' && !last {
                return err(SubjectErrorKind::FullWildcardNotLast { element: count }, at);
            }
            let refused = if class == SubjectClass::Inbox {
                Some(WildcardContext::Inbox)
            } else {
                match purpose {
                    Purpose::Check(v) => match v.mode() {
                        Mode::Listen => None,
                        Mode::Send if v.wildcard_send() => None,
                        Mode::Send => Some(WildcardContext::OrdinarySend),
                        Mode::SendCertified => Some(WildcardContext::CertifiedSend),
                    },
                    Purpose::Delivered | Purpose::Internal => Some(WildcardContext::Delivered),
                    Purpose::Name(_) => Some(WildcardContext::ReusableName),
                }
            };
            if let Some(context) = refused {
                let kind = SubjectErrorKind::WildcardRefused {
                    element: count,
                    wildcard,
                    context,
                };
                return err(kind, at);
            }
            wildcards = true;
        }
        match separator(after) {
            Ok((next, _)) => rest = next,
            // `after` is empty: `element` stops only at a dot or the end.
            Err(_) => break,
        }
    }
    let len = text.len();
    let limit = match purpose {
        Purpose::Check(v) if v.mode() == Mode::Listen => {
            (len > RECEIVE_MAX).then_some(SubjectErrorKind::ReceiveTooLong { len })
        }
        Purpose::Check(_) => {
            (len > SEND_BASE.saturating_sub(count)).then_some(SubjectErrorKind::SendTooLong {
                len,
                elements: count,
            })
        }
        Purpose::Delivered => {
            (len > RECEIVE_MAX).then_some(SubjectErrorKind::ReceiveTooLong { len })
        }
        Purpose::Internal => None,
        Purpose::Name(NameKind::CmName | NameKind::DistributedQueue) => {
            (len > REUSABLE_NAME_MAX).then_some(SubjectErrorKind::NameTooLong { len })
        }
        Purpose::Name(NameKind::FtGroup) => None,
    };
    if let Some(kind) = limit {
        return err(kind, 0);
    }
    Ok(Subject {
        text: Cow::Borrowed(text),
        // At most 128 elements fit in 255 bytes.
        elements: u8::try_from(count).unwrap_or(u8::MAX),
        wildcards,
        class,
    })
}

impl<'a> Subject<'a> {
    /// Checks `text` for `validation` (a [`Mode`] or a [`Validation`]) and
    /// borrows it.
    ///
    /// Errors: the first rule broken, as a [`SubjectError`] naming the
    /// element (from 1) and the byte offset.
    pub fn parse(
        text: &'a str,
        validation: impl Into<Validation>,
    ) -> Result<Subject<'a>, SubjectError> {
        check(text, Purpose::Check(validation.into()))
    }

    /// Checks the subject of a message as a listener receives it: the
    /// syntax, at most [`RECEIVE_MAX`] bytes, any reserved first element
    /// (advisories and inboxes are delivered), and no wildcard element
    /// (mqgate's rule: the subject a listener's pattern is matched against,
    /// docs/rendezvous.md "Matching").
    pub fn parse_delivered(text: &'a str) -> Result<Subject<'a>, SubjectError> {
        check(text, Purpose::Delivered)
    }

    /// Checks the subject of a message the gateway itself makes (an
    /// advisory, a certified delivery protocol message): the syntax and the
    /// 255-byte limit ([`SUBJECT_MAX`]), any reserved first element, no
    /// wildcard element. Unlike [`Subject::parse_delivered`] it takes
    /// subjects over the 196-byte receive limit: advisory subjects such as
    /// `_RV.INFO.RVCM.DELIVERY.COMPLETE.<subject>` end with a whole subject
    /// (TIBCO Rendezvous Concepts, "RVCM Advisory Subject Names").
    pub fn parse_internal(text: &'a str) -> Result<Subject<'a>, SubjectError> {
        check(text, Purpose::Internal)
    }

    /// The same subject owning its text.
    pub fn into_owned(self) -> Subject<'static> {
        Subject {
            text: Cow::Owned(self.text.into_owned()),
            elements: self.elements,
            wildcards: self.wildcards,
            class: self.class,
        }
    }

    /// The text.
    pub fn as_str(&self) -> &str {
        &self.text
    }

    /// Number of elements (1 to 128).
    pub fn element_count(&self) -> usize {
        usize::from(self.elements)
    }

    /// The elements, first to last.
    pub fn elements(&self) -> std::str::Split<'_, char> {
        self.text.split('.')
    }

    /// The element at `index`, counted from 0 (`element(0)` is the first);
    /// `None` past the last.
    pub fn element(&self, index: usize) -> Option<&str> {
        self.elements().nth(index)
    }

    /// The first element.
    pub fn first_element(&self) -> &str {
        self.text.split('.').next().unwrap_or_default()
    }

    /// The last element.
    pub fn last_element(&self) -> &str {
        self.text.rsplit('.').next().unwrap_or_default()
    }

    /// The class its first element gives it.
    pub fn class(&self) -> SubjectClass {
        self.class
    }

    /// True when an element is `*` or `>`.
    pub fn has_wildcards(&self) -> bool {
        self.wildcards
    }

    /// True when the last element is `>`.
    pub fn ends_with_full_wildcard(&self) -> bool {
        self.wildcards && self.last_element() == ">"
    }

    /// True when this subject, as a listener's pattern, matches `subject`:
    /// [`matches()`] with `self` as the pattern.
    pub fn matches(&self, subject: &Subject<'_>) -> bool {
        matches(self, subject)
    }
}

impl fmt::Display for Subject<'_> {
    /// The text.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.text)
    }
}

impl AsRef<str> for Subject<'_> {
    fn as_ref(&self) -> &str {
        &self.text
    }
}

/// True when a listener on `pattern` receives messages on `subject`.
///
/// Element by element: `*` matches any one element, `>` (last) matches one
/// or more remaining elements, any other element matches only the same text
/// (case-sensitive). So `RUN.>` does not match `RUN`, and `RUN.*` does not
/// match `RUN.Run.run` ("Using Wildcards to Receive Related Subjects"). The
/// subject's own elements are compared as text: a `*` in `subject` matches
/// only a `*` or a wildcard in `pattern`.
pub fn matches(pattern: &Subject<'_>, subject: &Subject<'_>) -> bool {
    let mut p = pattern.elements();
    let mut s = subject.elements();
    loop {
        match (p.next(), s.next()) {
            (None, None) => return true,
            // `>` is always the last element of a checked subject.
            (Some(">"), Some(_)) => return true,
            (Some(pe), Some(se)) if pe == "*" || pe == se => {}
            _ => return false,
        }
    }
}

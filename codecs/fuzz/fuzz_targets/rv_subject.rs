//! Fuzz the Rendezvous subject codec (`rv::Subject`, `rv::check_reusable_name`,
//! `rv::matches`, `rv::InterestIndex`, `rv::nats_refusal`; docs/rendezvous.md
//! "Subject names"). The first byte chooses the use the texts are checked
//! for (listen, send, send with wildcards, certified send, a message's
//! subject, the three reusable names); the rest, read as UTF-8 (invalid
//! sequences replaced), is a pattern and a subject split at the first NUL.
//!
//! No panic; a refusal names a byte offset inside the text (or its end) at
//! a character boundary and an element that exists; an accepted text's
//! elements join back to it, are 1 to 127 bytes, and a wildcard element is
//! exactly `*` or `>`; what is valid for a send, a message's subject or a
//! CM name is valid for listening; a subject as a pattern matches itself;
//! an index holding one pattern finds it for exactly the subjects
//! `matches` says; NATS's whitespace refusal names the first space, tab,
//! line feed, form feed or carriage return of the text.
#![no_main]

use libfuzzer_sys::fuzz_target;
use mqgate_codecs::rv::{
    InterestIndex, Mode, NameKind, NatsRefusal, NatsUse, Subject, SubjectError, Validation,
    check_reusable_name, matches, nats_refusal,
};

fn check(text: &str, selector: u8) -> Result<Subject<'_>, SubjectError> {
    match selector % 8 {
        0 => Subject::parse(text, Mode::Listen),
        1 => Subject::parse(text, Mode::Send),
        2 => Subject::parse(text, Validation::SEND.allow_wildcard_send(true)),
        3 => Subject::parse(text, Mode::SendCertified),
        4 => Subject::parse_delivered(text),
        5 => check_reusable_name(text, NameKind::CmName),
        6 => check_reusable_name(text, NameKind::FtGroup),
        _ => check_reusable_name(text, NameKind::DistributedQueue),
    }
}

fn invariants(text: &str, selector: u8) -> Option<Subject<'_>> {
    let count = text.split('.').count();
    match check(text, selector) {
        Err(e) => {
            assert!(
                e.offset <= text.len() && text.is_char_boundary(e.offset),
                "{e}: offset {} in {text:?}",
                e.offset
            );
            if let Some(n) = e.element() {
                assert!((1..=count).contains(&n), "{e}: {count} elements");
            }
            assert_eq!(e.status(), 20);
            let _ = (e.to_string(), e.reference());
            None
        }
        Ok(s) => {
            let elements: Vec<&str> = s.elements().collect();
            assert_eq!(elements.join("."), text);
            assert_eq!(s.element_count(), count);
            for el in &elements {
                assert!(!el.is_empty() && el.len() <= 127 && !el.contains('\0'));
                assert!(*el == "*" || *el == ">" || !el.contains(['*', '>']));
            }
            if let Some(i) = elements.iter().position(|e| *e == ">") {
                assert_eq!(i + 1, elements.len(), "'>' not last in {text:?}");
            }
            if matches!(selector % 8, 1..=5) {
                assert!(
                    Subject::parse(text, Mode::Listen).is_ok(),
                    "{text:?} valid for use {selector} but not for listening"
                );
            }
            assert!(matches(&s, &s), "{text:?} does not match itself");
            let first_space = text
                .char_indices()
                .find(|(_, c)| [' ', '\t', '\n', '\x0c', '\r'].contains(c));
            match (nats_refusal(&s, NatsUse::Subscribe), first_space) {
                (None, None) => {}
                (Some(NatsRefusal::Whitespace { offset, character, .. }), Some((at, c))) => {
                    assert_eq!((offset, character), (at, c));
                }
                (other, expected) => panic!("{text:?}: {other:?}, first whitespace {expected:?}"),
            }
            Some(s)
        }
    }
}

fuzz_target!(|data: &[u8]| {
    let Some((&selector, rest)) = data.split_first() else {
        return;
    };
    let text = String::from_utf8_lossy(rest);
    let (pattern_text, subject_text) = text.split_once('\0').unwrap_or((&text, ""));
    let pattern = invariants(pattern_text, selector);
    let subject = invariants(subject_text, selector.rotate_right(3));
    if let (Some(p), Some(s)) = (pattern, subject) {
        let mut index = InterestIndex::new();
        index.insert(&p, 1u8);
        let found = index.lookup(&s);
        assert_eq!(found == [1], matches(&p, &s), "{p} / {s}: {found:?}");
        assert_eq!(index.has_interest(&s), matches(&p, &s));
        assert!(index.remove(&p, 1));
        assert!(index.is_empty() && index.lookup(&s).is_empty());
    }
});

//! Subject profiles: the object names of `type: subject` grants
//! (docs/security.md "Subject authorities"), written as Rendezvous listen
//! subjects (TIBCO Rendezvous Concepts, "Subject Name Syntax", "Using
//! Wildcards to Receive Related Subjects"): elements separated by `.`,
//! `*` standing for any one element and a last `>` for one or more
//! remaining elements. `ORDERS.>` covers `ORDERS.NEW` and
//! `ORDERS.EU.NEW`, not `ORDERS`.
//!
//! A publish names one subject, a listener a pattern that may itself hold
//! wildcards, so a profile is compared with a pattern by what it
//! [`covers`]: every subject the pattern matches, the profile matches
//! too. The most specific covering profile decides ([`more_specific`]), as
//! IBM MQ "Profile priorities on UNIX, Linux, and Windows" orders generic
//! profiles; a listener's pattern is refused too when a more specific
//! profile that [`overlaps`] it withholds the authority, so `ORDERS.>`
//! never listens to what `ORDERS.SECRET.>` keeps from the principal.

use mqgate_codecs::rv::subject::{Mode, Subject};
use std::cmp::Ordering;

/// Checks a subject profile: a valid Rendezvous listen subject (at most
/// 196 bytes, `*` and `>` only as whole elements, `>` last). Errors say
/// which element is wrong.
pub fn check_profile(profile: &str) -> Result<(), String> {
    Subject::parse(profile, Mode::Listen)
        .map(|_| ())
        .map_err(|e| format!("not a Rendezvous subject profile: {e}"))
}

/// True when every subject `pattern` matches is matched by `profile`
/// (both as Rendezvous wildcard subjects; a subject without wildcards is a
/// pattern of one subject). Element by element: `>` in the profile covers
/// the one or more elements left; `*` covers any one element that is not
/// `>`; any other element covers only the same text.
pub fn covers(profile: &str, pattern: &str) -> bool {
    let mut p = profile.split('.');
    let mut n = pattern.split('.');
    loop {
        match (p.next(), n.next()) {
            (None, None) => return true,
            (Some(">"), Some(_)) => return true,
            (Some("*"), Some(e)) if e != ">" => {}
            (Some(pe), Some(ne)) if pe == ne && pe != ">" => {}
            _ => return false,
        }
    }
}

/// True when some subject is matched by both `a` and `b`.
pub fn overlaps(a: &str, b: &str) -> bool {
    let mut a = a.split('.');
    let mut b = b.split('.');
    loop {
        match (a.next(), b.next()) {
            (None, None) => return true,
            (Some(">"), Some(_)) | (Some(_), Some(">")) => return true,
            (Some(x), Some(y)) if x == "*" || y == "*" || x == y => {}
            _ => return false,
        }
    }
}

/// Orders two subject profiles by specificity: `Greater` when `a` is more
/// specific. Element by element, at the first difference a literal element
/// beats `*`, which beats `>`; two different literals, or a profile that
/// ends first, compare by length (the longer is more specific).
pub fn more_specific(a: &str, b: &str) -> Ordering {
    fn rank(e: &str) -> u8 {
        match e {
            ">" => 1,
            "*" => 2,
            _ => 3,
        }
    }
    let mut a_it = a.split('.');
    let mut b_it = b.split('.');
    loop {
        match (a_it.next(), b_it.next()) {
            (None, None) => return Ordering::Equal,
            (Some(_), None) => return Ordering::Greater,
            (None, Some(_)) => return Ordering::Less,
            (Some(x), Some(y)) if x == y => {}
            (Some(x), Some(y)) => match rank(x).cmp(&rank(y)) {
                Ordering::Equal => {
                    return a.split('.').count().cmp(&b.split('.').count());
                }
                o => return o,
            },
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn profiles_cover_as_rendezvous_wildcards_match() {
        // TIBCO Rendezvous Concepts, "Using Wildcards to Receive Related
        // Subjects": `RUN.>` does not match `RUN`; `RUN.*` does not match
        // `RUN.Run.run`.
        assert!(covers("RUN.>", "RUN.Run"));
        assert!(covers("RUN.>", "RUN.Run.run"));
        assert!(!covers("RUN.>", "RUN"));
        assert!(covers("RUN.*", "RUN.Run"));
        assert!(!covers("RUN.*", "RUN.Run.run"));
        assert!(covers("ORDERS.NEW", "ORDERS.NEW"));
        assert!(!covers("ORDERS.NEW", "orders.new"), "case-sensitive");
        // Patterns: a profile covers a pattern only when it matches every
        // subject the pattern does.
        assert!(covers("ORDERS.>", "ORDERS.*"));
        assert!(covers("ORDERS.>", "ORDERS.>"));
        assert!(covers("ORDERS.*", "ORDERS.*"));
        assert!(!covers("ORDERS.*", "ORDERS.>"), "`*` is one element");
        assert!(!covers("ORDERS.NEW", "ORDERS.*"));
        assert!(covers(">", "ANY.SUBJECT.AT.ALL"));
    }

    #[test]
    fn overlapping_patterns_share_a_subject() {
        assert!(overlaps("ORDERS.>", "ORDERS.SECRET.>"));
        assert!(overlaps("ORDERS.*", "*.NEW"));
        assert!(overlaps("A.>", "A.B.C"));
        assert!(!overlaps("ORDERS.*", "ORDERS.SECRET.X"));
        assert!(!overlaps("A.>", "A"));
        assert!(!overlaps("A.B", "A.C"));
    }

    #[test]
    fn the_more_specific_profile_wins() {
        assert_eq!(more_specific("ORDERS.NEW", "ORDERS.*"), Ordering::Greater);
        assert_eq!(more_specific("ORDERS.*", "ORDERS.>"), Ordering::Greater);
        assert_eq!(more_specific("ORDERS.>", "ORDERS.SECRET.>"), Ordering::Less);
        assert_eq!(more_specific(">", "A.>"), Ordering::Less);
        assert_eq!(more_specific("A.>", "A.>"), Ordering::Equal);
    }

    #[test]
    fn profile_syntax_is_a_listen_subject() {
        assert!(check_profile("ORDERS.>").is_ok());
        assert!(check_profile("*.NEW").is_ok());
        assert!(check_profile("ORDERS..NEW").is_err(), "empty element");
        assert!(check_profile("ORDERS.>.NEW").is_err(), "`>` not last");
        assert!(check_profile("").is_err());
    }
}

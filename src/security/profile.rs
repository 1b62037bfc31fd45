//! Generic profiles: object name patterns in the syntax of IBM MQ's object
//! authority manager (IBM MQ "Generic profiles", "Using OAM generic
//! profiles"), over names whose qualifiers are separated by `.`:
//!
//! - `?` matches any one character of a qualifier (`AB.?D`: `AB.CD`);
//! - `*` matches zero or more characters within a qualifier (`AB.*`,
//!   `AB.C*`, `*.CD`), never a `.`;
//! - `**` as a whole qualifier matches zero or more qualifiers (`APP.**`:
//!   `APP`, `APP.IN`, `APP.IN.X`; `**`: every name); at most once;
//! - every other character matches itself, case-sensitively (MQ names are).
//!
//! mqgate adds one rule: no wildcard matches `/`, the separator of a device
//! queue manager's local queues (`DEV0001/ORDERS`, docs/security.md
//! "Device principals"), so only a profile that writes the `/` itself can
//! reach a device's queues.
//!
//! When several profiles match a name, the most specific applies (IBM MQ
//! "Profile priorities on UNIX, Linux, and Windows"): compared left to
//! right, at the first difference a character that is not a wildcard is more
//! specific than a wildcard ([`more_specific`]).

use std::cmp::Ordering;

/// Checks a profile's syntax: 1 to 48 characters, `**` only as a whole
/// qualifier and at most once. Errors say what is wrong.
pub fn check_profile(profile: &str) -> Result<(), String> {
    if profile.is_empty() {
        return Err("the profile is empty".into());
    }
    if profile.len() > 48 {
        return Err(format!(
            "the profile has {} characters; at most 48 (a queue name's length)",
            profile.len()
        ));
    }
    let mut doubles = 0;
    for q in profile.split('.') {
        if q == "**" {
            doubles += 1;
        } else if q.contains("**") {
            return Err(format!(
                "`**` must be a whole qualifier (between dots), not part of {q:?}"
            ));
        }
    }
    if doubles > 1 {
        return Err("`**` may appear only once in a profile".into());
    }
    Ok(())
}

/// True when `profile` (checked with [`check_profile`]) matches object name
/// `name`, by the rules of this module.
pub fn matches(profile: &str, name: &str) -> bool {
    let p: Vec<&str> = profile.split('.').collect();
    let n: Vec<&str> = name.split('.').collect();
    qualifiers_match(&p, &n)
}

fn qualifiers_match(p: &[&str], n: &[&str]) -> bool {
    match p.split_first() {
        None => n.is_empty(),
        Some((&"**", rest)) => (0..=n.len())
            .take_while(|&skip| n[..skip].iter().all(|q| !q.contains('/')))
            .any(|skip| qualifiers_match(rest, &n[skip..])),
        Some((first, rest)) => match n.split_first() {
            Some((q, n_rest)) => qualifier_matches(first, q) && qualifiers_match(rest, n_rest),
            None => false,
        },
    }
}

/// One qualifier against one profile qualifier (`?` and `*`, never `/`).
fn qualifier_matches(p: &str, q: &str) -> bool {
    let p: Vec<char> = p.chars().collect();
    let q: Vec<char> = q.chars().collect();
    chars_match(&p, &q)
}

fn chars_match(p: &[char], q: &[char]) -> bool {
    match p.split_first() {
        None => q.is_empty(),
        Some(('*', rest)) => (0..=q.len())
            .take_while(|&k| q[..k].iter().all(|&c| c != '/'))
            .any(|k| chars_match(rest, &q[k..])),
        Some(('?', rest)) => match q.split_first() {
            Some((&c, q_rest)) => c != '/' && chars_match(rest, q_rest),
            None => false,
        },
        Some((&c, rest)) => match q.split_first() {
            Some((&d, q_rest)) => c == d && chars_match(rest, q_rest),
            None => false,
        },
    }
}

/// Orders two profiles by specificity: `Greater` when `a` is more specific
/// than `b` (IBM MQ "Profile priorities on UNIX, Linux, and Windows": left
/// to right, at the first difference a non-generic character beats a
/// generic one; between two generic characters `?` beats `*`, which beats
/// `**`; a profile that is a prefix of the other is less specific).
pub fn more_specific(a: &str, b: &str) -> Ordering {
    /// A profile's characters as tokens: `**` is one token.
    fn tokens(s: &str) -> Vec<(u8, char)> {
        let mut out = Vec::new();
        let mut it = s.chars().peekable();
        while let Some(c) = it.next() {
            out.push(match c {
                '*' if it.peek() == Some(&'*') => {
                    it.next();
                    (1, '*')
                }
                '*' => (2, '*'),
                '?' => (3, '?'),
                c => (4, c),
            });
        }
        out
    }
    let (a, b) = (tokens(a), tokens(b));
    for i in 0..a.len().max(b.len()) {
        match (a.get(i), b.get(i)) {
            (Some(x), Some(y)) if x == y => {}
            (Some(x), Some(y)) => return x.0.cmp(&y.0),
            (Some(_), None) => return Ordering::Greater,
            (None, _) => return Ordering::Less,
        }
    }
    Ordering::Equal
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn wildcards_match_as_mq_generic_profiles_do() {
        // IBM MQ "Using OAM generic profiles": `AB.?D` applies to AB.CD,
        // AB.ED and AB.FD; `*` within a qualifier; `**` zero or more
        // qualifiers.
        for n in ["AB.CD", "AB.ED", "AB.FD"] {
            assert!(matches("AB.?D", n), "{n}");
        }
        assert!(!matches("AB.?D", "AB.CDD"));
        assert!(matches("AB.*", "AB.CD"));
        assert!(!matches("AB.*", "AB.CD.EF"), "`*` stays in its qualifier");
        assert!(matches("AB.C*", "AB.C"));
        assert!(matches("*.CD", "XY.CD"));
        for n in ["APP", "APP.IN", "APP.IN.X.Y"] {
            assert!(matches("APP.**", n), "{n}");
        }
        assert!(!matches("APP.**", "APPX.IN"));
        assert!(matches("AB.**.CD", "AB.CD"));
        assert!(matches("AB.**.CD", "AB.X.Y.CD"));
        assert!(matches("**", "ANY.NAME"));
        assert!(!matches("APP.IN", "app.in"), "names are case-sensitive");
    }

    #[test]
    fn no_wildcard_reaches_a_device_queue() {
        // docs/security.md "Device principals": `/` separates a device
        // queue manager from its queue; only a written `/` matches it.
        assert!(!matches("**", "DEV0002/ORDERS"));
        assert!(!matches("DEV*", "DEV0002/ORDERS"));
        assert!(!matches("DEV0002?ORDERS", "DEV0002/ORDERS"));
        assert!(!matches("*.**", "A.DEV0002/ORDERS"));
        assert!(matches("DEV0002/*", "DEV0002/ORDERS"));
        // The profiles docs/security.md "Generic profiles" gives as
        // reaching device queues pass the syntax check and match.
        for p in ["DEV0002/*", "DEV*/*.**"] {
            assert!(check_profile(p).is_ok(), "{p}");
        }
        assert!(matches("DEV*/*.**", "DEV0002/ORDERS"));
        assert!(matches("DEV*/*.**", "DEV0002/ORDERS.EU"));
        assert!(!matches("DEV0002/*", "DEV0002/ORDERS.EU"));
    }

    #[test]
    fn profile_syntax_is_checked() {
        assert!(check_profile("APP.**").is_ok());
        assert!(check_profile("").is_err());
        assert!(
            check_profile("A**")
                .unwrap_err()
                .contains("whole qualifier")
        );
        assert!(check_profile("**.A.**").unwrap_err().contains("only once"));
        assert!(check_profile(&"A".repeat(49)).is_err());
    }

    #[test]
    fn the_more_specific_profile_wins() {
        // IBM MQ "Profile priorities": AB.C* is more specific than AB.*.
        assert_eq!(more_specific("AB.C*", "AB.*"), Ordering::Greater);
        assert_eq!(more_specific("AB.*", "AB.C*"), Ordering::Less);
        assert_eq!(more_specific("AB.?D", "AB.*"), Ordering::Greater);
        assert_eq!(more_specific("APP.*", "APP.**"), Ordering::Greater);
        assert_eq!(more_specific("APP.IN", "APP.IN"), Ordering::Equal);
    }
}

//! Subject gating of one router's local network (TIBCO Rendezvous
//! Administration, "Subject Gating", "Subject Filtering with Wildcards";
//! docs/rendezvous.md "Routing between gateways"): which messages may leave
//! it (export), which listeners' interest it announces and with which import
//! weight (import).
//!
//! Interest counts only when the listener's subject is a subset of an
//! import subject: behind import `FOO.>` a listener on `>` is not
//! announced, one on `FOO.BAR` is. Import and export subjects follow the
//! bus's rule for reserved subjects: one whose first element is a wildcard
//! never covers a subject whose first element is reserved (name `_RVCM.>`
//! to forward certified delivery).

use mqgate_codecs::rv::{Mode, Subject, SubjectClass, matches};

use super::config::RoutingConfig;

/// True when every subject `inner` matches is one `outer` matches (both
/// listen patterns): `FOO.*` is inside `FOO.>`, `FOO.>` is not inside
/// `FOO.*`, `FOO.BAR.>` is inside `FOO.*.>`.
pub fn covers(outer: &Subject<'_>, inner: &Subject<'_>) -> bool {
    if leading_wildcard(outer) && inner.class().is_reserved() {
        return false;
    }
    let mut o = outer.elements();
    let mut i = inner.elements();
    loop {
        match (o.next(), i.next()) {
            (None, None) => return true,
            // `>` takes the one or more elements left, whatever they are.
            (Some(">"), Some(_)) => return true,
            // `*` takes one element: any but `>`, which may stand for more.
            (Some("*"), Some(ie)) if ie != ">" => {}
            (Some(oe), Some(ie)) if oe != "*" && oe != ">" && oe == ie => {}
            _ => return false,
        }
    }
}

/// True when some subject matches both `a` and `b` (listen patterns).
pub fn overlaps(a: &Subject<'_>, b: &Subject<'_>) -> bool {
    if (leading_wildcard(a) && b.class().is_reserved())
        || (leading_wildcard(b) && a.class().is_reserved())
    {
        return false;
    }
    let mut x = a.elements();
    let mut y = b.elements();
    loop {
        match (x.next(), y.next()) {
            (None, None) => return true,
            (Some(">"), Some(_)) | (Some(_), Some(">")) => return true,
            (Some(xe), Some(ye)) if xe == "*" || ye == "*" || xe == ye => {}
            _ => return false,
        }
    }
}

fn leading_wildcard(s: &Subject<'_>) -> bool {
    matches!(s.first_element(), "*" | ">")
}

/// `pattern` matches the message subject `subject`, under the bus's rule
/// for reserved first elements.
fn gate_matches(pattern: &Subject<'_>, subject: &Subject<'_>) -> bool {
    if leading_wildcard(pattern) && subject.class().is_reserved() {
        return false;
    }
    matches(pattern, subject)
}

/// The export and import subjects of one local network.
#[derive(Clone, Debug, Default)]
pub struct Gates {
    export: Vec<Subject<'static>>,
    import: Vec<(Subject<'static>, u32)>,
}

impl Gates {
    /// The gates of `config`; subjects that do not parse are left out
    /// (`check-config` refuses them before a gateway starts).
    pub fn of(config: &RoutingConfig) -> Gates {
        let parse = |s: &str| {
            Subject::parse(s, Mode::Listen)
                .ok()
                .map(Subject::into_owned)
        };
        Gates {
            export: config.export.iter().filter_map(|s| parse(s)).collect(),
            import: config
                .import
                .iter()
                .filter_map(|i| parse(&i.subject).map(|s| (s, i.weight)))
                .collect(),
        }
    }

    /// Gates from subject texts (tests, tools).
    pub fn new(export: &[&str], import: &[(&str, u32)]) -> Gates {
        let parse = |s: &str| {
            Subject::parse(s, Mode::Listen)
                .ok()
                .map(Subject::into_owned)
        };
        Gates {
            export: export.iter().filter_map(|s| parse(s)).collect(),
            import: import
                .iter()
                .filter_map(|(s, w)| parse(s).map(|s| (s, *w)))
                .collect(),
        }
    }

    /// True when a message on `subject` may leave the local network.
    pub fn exports(&self, subject: &Subject<'_>) -> bool {
        forwardable(subject) && self.export.iter().any(|e| gate_matches(e, subject))
    }

    /// True when some exported subject could match `pattern` (a remote
    /// listener's subject): the router listens locally only to those.
    pub fn exports_some(&self, pattern: &Subject<'_>) -> bool {
        self.export.iter().any(|e| overlaps(e, pattern))
    }

    /// The import weight a message on `subject` enters with (the greatest
    /// of the import subjects that match it), or `None` when no import
    /// subject does.
    pub fn import_weight(&self, subject: &Subject<'_>) -> Option<u32> {
        if !forwardable(subject) {
            return None;
        }
        self.import
            .iter()
            .filter(|(i, _)| gate_matches(i, subject))
            .map(|(_, w)| *w)
            .max()
    }

    /// The interest a local listener's subject `pattern` gives the router
    /// to announce, with its weight: `None` for subjects that never cross
    /// a link, and for a pattern that is no subset of an import subject.
    pub fn interest(&self, pattern: &Subject<'_>) -> Option<u32> {
        if !forwardable(pattern) {
            return None;
        }
        self.import
            .iter()
            .filter(|(i, _)| covers(i, pattern))
            .map(|(_, w)| *w)
            .max()
    }
}

/// Subjects gating may let through: not `_LOCAL.`, `_RV.`, `_RVRD.` (never
/// forwarded) and not `_INBOX.` (routed without gating).
fn forwardable(s: &Subject<'_>) -> bool {
    !matches!(
        s.class(),
        SubjectClass::Local
            | SubjectClass::Advisory
            | SubjectClass::RoutingDaemon
            | SubjectClass::Inbox
    )
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    fn s(t: &str) -> Subject<'static> {
        Subject::parse(t, Mode::Listen).unwrap().into_owned()
    }

    #[test]
    fn covers_follows_the_wildcard_rules() {
        // "Using Wildcards to Receive Related Subjects": `*` one element,
        // `>` one or more trailing ones.
        assert!(covers(&s("FOO.>"), &s("FOO.BAR")));
        assert!(covers(&s("FOO.>"), &s("FOO.*")));
        assert!(covers(&s("FOO.>"), &s("FOO.>")));
        assert!(covers(&s("FOO.*.>"), &s("FOO.BAR.>")));
        assert!(covers(&s(">"), &s("A.B")));
        assert!(!covers(&s("FOO.>"), &s(">")));
        assert!(!covers(&s("FOO.*"), &s("FOO.>")));
        assert!(!covers(&s("FOO.>"), &s("FOO")));
        assert!(!covers(&s("FOO.BAR"), &s("FOO.*")));
        // The bus's rule: `>` does not reach reserved subjects.
        assert!(!covers(&s(">"), &s("_RVCM.X")));
        assert!(covers(&s("_RVCM.>"), &s("_RVCM.X")));
    }

    #[test]
    fn interest_is_a_subset_of_an_import_subject() {
        // The spec sheet's example ("Subject Gating"): behind import FOO.>,
        // a listener on > is not interest; one on FOO.BAR is.
        let g = Gates::new(&[], &[("FOO.>", 10)]);
        assert_eq!(g.interest(&s(">")), None);
        assert_eq!(g.interest(&s("FOO.BAR")), Some(10));
        // Weights: the greatest import subject covering the listener's.
        let g = Gates::new(&[], &[("foo.>", 1), ("foo.x.>", 7)]);
        assert_eq!(g.interest(&s("foo.x.y")), Some(7));
        assert_eq!(g.interest(&s("foo.y")), Some(1));
        assert_eq!(g.import_weight(&s("foo.x.y")), Some(7));
        assert_eq!(g.import_weight(&s("bar.x")), None);
    }

    #[test]
    fn reserved_classes_are_never_gated_through() {
        // "Subject Gating": routers ignore _RV.> and _RVRD.>; _LOCAL. never
        // leaves the daemon ("Distinguished Subject Names with Special
        // Meaning"); inboxes need no gating.
        let g = Gates::new(&["_RVCM.>", "A.>"], &[("_RVCM.>", 10)]);
        for t in ["_RV.INFO.X", "_RVRD.X", "_LOCAL.X"] {
            let p = Subject::parse(t, Mode::Listen).unwrap();
            assert!(!g.exports(&p), "{t}");
            assert_eq!(g.import_weight(&p), None, "{t}");
            assert_eq!(g.interest(&p), None, "{t}");
        }
        assert!(g.exports(&s("_RVCM.X")));
        assert_eq!(g.interest(&s("_RVCM.>")), Some(10));
        assert!(g.exports_some(&s("A.*")));
        assert!(!g.exports_some(&s("B.*")));
    }

    fn pattern() -> impl Strategy<Value = String> {
        prop::collection::vec(prop_oneof!["a", "b", Just("*".to_string())], 1..4).prop_flat_map(
            |els| {
                prop::bool::ANY.prop_map(move |tail| {
                    let mut v = els.clone();
                    if tail {
                        v.push(">".into());
                    }
                    v.join(".")
                })
            },
        )
    }

    fn subject() -> impl Strategy<Value = String> {
        prop::collection::vec(prop_oneof!["a", "b", "c"], 1..6).prop_map(|v| v.join("."))
    }

    proptest! {
        // covers(o, i) ⇒ every subject i matches, o matches; overlaps(a, b)
        // ⇐ some subject matches both (checked against `matches`, which is
        // tested against the documentation's tables).
        #[test]
        fn covers_and_overlaps_agree_with_matches(o in pattern(), i in pattern(), t in subject()) {
            let (o, i, t) = (s(&o), s(&i), Subject::parse_delivered(&t).unwrap());
            if covers(&o, &i) && matches(&i, &t) {
                prop_assert!(matches(&o, &t));
            }
            if matches(&o, &t) && matches(&i, &t) {
                prop_assert!(overlaps(&o, &i));
            }
        }
    }
}

//! Rendezvous subject names: every rule of docs/rendezvous.md "Subject
//! names" and every row of its "Rendezvous and NATS" table, each with the
//! public page it comes from.
//!
//! Sources (TIBCO Rendezvous Concepts 8.x unless named otherwise): "Subject
//! Name Syntax" (structure, the 255/196/127 limits, the empty string, the
//! valid and invalid examples), "Using Wildcards to Receive Related
//! Subjects" (the wildcard table, the invalid wildcards, "Wildcard
//! Sending"), "Distinguished Subject Names with Special Meaning", "Reusable
//! Names"; TIBCO Rendezvous Administration, "Subject Filtering with
//! Wildcards"; nats-server `server/sublist.go` (`IsValidSubject`,
//! `IsValidPublishSubject`) and the NATS C client's "Wildcards" page for the
//! NATS side. Rules marked "mqgate" are mqgate's choices, written in
//! docs/rendezvous.md.

use mqgate_codecs::rv::subject::{RECEIVE_MAX, REUSABLE_NAME_MAX, SEND_BASE, SUBJECT_MAX};
use mqgate_codecs::rv::{
    Mode, NameKind, NatsRefusal, NatsUse, Subject, SubjectClass, SubjectError, SubjectErrorKind,
    TIBRV_INVALID_SUBJECT, Validation, WildcardContext, check_reusable_name, matches, nats_refusal,
};

const ALL: [Validation; 4] = [
    Validation::LISTEN,
    Validation::SEND,
    Validation::SEND.allow_wildcard_send(true),
    Validation::SEND_CERTIFIED,
];

fn refused(text: &str, v: impl Into<Validation>) -> SubjectError {
    let v = v.into();
    match Subject::parse(text, v) {
        Ok(s) => panic!("{text:?} accepted in {v:?}: {s:?}"),
        Err(e) => e,
    }
}

fn accepted(text: &str, v: impl Into<Validation>) -> Subject<'_> {
    let v = v.into();
    match Subject::parse(text, v) {
        Ok(s) => s,
        Err(e) => panic!("{text:?} refused in {v:?}: {e}"),
    }
}

fn listen(text: &str) -> Subject<'_> {
    accepted(text, Mode::Listen)
}

fn delivered(text: &str) -> Subject<'_> {
    match Subject::parse_delivered(text) {
        Ok(s) => s,
        Err(e) => panic!("{text:?} refused as a delivered subject: {e}"),
    }
}

/// A subject of `len` bytes made of elements of `width` 'x's (the last one
/// shorter if need be).
fn of_len(len: usize, width: usize) -> String {
    let mut s = String::new();
    while s.len() < len {
        if !s.is_empty() {
            s.push('.');
        }
        let n = width.min(len - s.len()).max(1);
        s.push_str(&"x".repeat(n));
    }
    assert_eq!(s.len(), len);
    s
}

// ---- "Subject Name Syntax" ----

#[test]
fn valid_examples_of_subject_name_syntax() {
    // "Valid Subject Name Examples", checked in every mode.
    for text in [
        "NEWS.LOCAL.POLITICS.CITY_COUNCIL",
        "NEWS.NATIONAL.ARTS.MOVIES.REVIEWS",
        "CHAT.MRKTG.NEW_PRODUCTS",
        "CHAT.DEVELOPMENT.BIG_PROJECT.DESIGN",
        "News.Sports.Baseball",
        "finance",
        "This.long.subject_name.is.valid.even.though.quite.uninformative",
    ] {
        for v in ALL {
            let s = accepted(text, v);
            assert_eq!(s.as_str(), text);
            assert_eq!(s.element_count(), text.split('.').count());
        }
    }
}

#[test]
fn invalid_examples_of_subject_name_syntax() {
    // "Invalid Subject Name Examples": null elements; the first one is named,
    // counted from 1, at its byte offset.
    for (text, element, offset) in [
        ("News..Natural_Disasters.Flood", 2, 5),
        ("WRONG.", 2, 6),
        (".TRIPLE.WRONG..", 1, 0),
        ("A..B", 2, 2),
        ("A.", 2, 2),
        (".A", 1, 0),
        ("A.B..C", 3, 4),
    ] {
        for v in ALL {
            let e = refused(text, v);
            assert_eq!(e.kind, SubjectErrorKind::EmptyElement { element }, "{text}");
            assert_eq!((e.element(), e.offset), (Some(element), offset), "{text}");
            assert_eq!(e.to_string(), format!("element {element} is empty"));
            assert_eq!(e.status(), TIBRV_INVALID_SUBJECT);
            assert_eq!(e.reference(), "Subject Name Syntax");
        }
    }
    // The issue's wording, exactly.
    assert_eq!(
        refused("A.B..C", Mode::Listen).to_string(),
        "element 3 is empty"
    );
}

#[test]
fn the_empty_string_is_not_a_subject() {
    // "Empty String Illegal".
    for v in ALL {
        let e = refused("", v);
        assert_eq!((e.kind.clone(), e.offset), (SubjectErrorKind::Empty, 0));
        assert_eq!(e.to_string(), "the subject is empty");
    }
}

#[test]
fn a_dot_cannot_be_escaped() {
    // "It is illegal to incorporate the dot character into an element by
    // using an escape sequence": the backslash stays in the element and the
    // dot still separates.
    let s = listen(r"News.Tennis.Stats.Roger\.Federer");
    let elements: Vec<&str> = s.elements().collect();
    assert_eq!(elements, ["News", "Tennis", "Stats", r"Roger\", "Federer"]);
}

#[test]
fn total_length_limit_is_255_bytes_with_the_dots() {
    // TIBRV_SUBJECT_MAX 255: the limit no use can lift. A fault tolerance
    // group name has no smaller limit, so it shows the boundary itself.
    assert_eq!(SUBJECT_MAX, 255);
    let at = of_len(255, 100);
    check_reusable_name(&at, NameKind::FtGroup).expect("255 bytes is the limit");
    let over = of_len(256, 100);
    for v in ALL {
        let e = refused(&over, v);
        assert_eq!(e.kind, SubjectErrorKind::TooLong { len: 256 });
        assert_eq!(e.element(), None);
        assert!(e.to_string().contains("255-byte limit"), "{e}");
    }
    let e = check_reusable_name(&over, NameKind::FtGroup).unwrap_err();
    assert_eq!(e.kind, SubjectErrorKind::TooLong { len: 256 });
    // Checked before the elements: the length is what is wrong first.
    let over_and_empty = format!("A..{}", "x".repeat(300));
    assert_eq!(
        refused(&over_and_empty, Mode::Listen).kind,
        SubjectErrorKind::TooLong { len: 303 }
    );
}

#[test]
fn programs_receive_at_most_196_bytes() {
    // "The longest subject that (most) programs can receive is 196
    // characters": the limit of listen patterns and of delivered subjects.
    assert_eq!(RECEIVE_MAX, 196);
    let at = of_len(196, 100);
    assert_eq!(listen(&at).as_str().len(), 196);
    assert_eq!(delivered(&at).element_count(), 2);
    let over = of_len(197, 100);
    let e = refused(&over, Mode::Listen);
    assert_eq!(e.kind, SubjectErrorKind::ReceiveTooLong { len: 197 });
    assert_eq!(
        e.to_string(),
        "the subject is 197 bytes long, over the 196 bytes programs can receive"
    );
    assert_eq!(
        Subject::parse_delivered(&over).unwrap_err().kind,
        SubjectErrorKind::ReceiveTooLong { len: 197 }
    );
    // 255 bytes passes the hard limit but not this one.
    assert_eq!(
        refused(&of_len(255, 100), Mode::Listen).kind,
        SubjectErrorKind::ReceiveTooLong { len: 255 }
    );
}

/// `elements` elements totalling `len` bytes, dots included, of even widths.
fn with_elements(elements: usize, len: usize) -> String {
    let content = len - (elements - 1);
    let parts: Vec<String> = (0..elements)
        .map(|i| "z".repeat(content / elements + usize::from(i < content % elements)))
        .collect();
    let s = parts.join(".");
    assert_eq!((s.split('.').count(), s.len()), (elements, len));
    s
}

#[test]
fn programs_send_at_most_196_minus_the_number_of_elements() {
    // "The maximum total length (in characters) of subjects that your
    // programs may send is 196 minus the number of elements. Include dot
    // separators in this total."
    assert_eq!(SEND_BASE, 196);
    for elements in [2usize, 3, 10, 65] {
        let limit = 196 - elements;
        let at = with_elements(elements, limit);
        let over = with_elements(elements, limit + 1);
        for v in [Validation::SEND, Validation::SEND_CERTIFIED] {
            assert_eq!(accepted(&at, v).element_count(), elements);
            let e = refused(&over, v);
            assert_eq!(
                e.kind,
                SubjectErrorKind::SendTooLong {
                    len: limit + 1,
                    elements
                }
            );
            assert_eq!((e.element(), e.offset), (None, 0));
        }
        // A listener may still receive it.
        listen(&over);
    }
    // 65 elements is the most a send can have: 66 one-byte elements take
    // 131 bytes, one over 196 - 66.
    let e = refused(&with_elements(66, 131), Mode::Send);
    assert_eq!(
        e.kind,
        SubjectErrorKind::SendTooLong {
            len: 131,
            elements: 66
        }
    );
    // One element is bounded by the element limit first (127 < 195).
    accepted(&"x".repeat(127), Mode::Send);
    let e = refused(&of_len(195, 100), Mode::Send);
    assert_eq!(
        e.to_string(),
        "the subject is 195 bytes long with 2 elements, over the 194 bytes a program may send (196 minus the number of elements)"
    );
}

#[test]
fn elements_are_at_most_127_bytes() {
    // "The maximum element length is 127 characters (dot separators are not
    // included in element length)."
    let at = format!("A.{}.B", "e".repeat(127));
    for v in ALL {
        accepted(&at, v);
    }
    let over = format!("A.{}.B", "e".repeat(128));
    for v in ALL {
        let e = refused(&over, v);
        assert_eq!(
            e.kind,
            SubjectErrorKind::ElementTooLong {
                element: 2,
                len: 128
            }
        );
        assert_eq!(e.offset, 2);
        assert_eq!(
            e.to_string(),
            "element 2 is 128 bytes long, over the 127-byte element limit"
        );
    }
}

#[test]
fn any_character_but_the_dot_is_legal() {
    // "Subject Name Syntax" places no rule on characters; tab, space and
    // non-printable characters are discouraged ("Establish Subject Naming
    // Conventions") but legal. Lengths are UTF-8 bytes.
    for text in [
        "A B.C\tD",
        "bell\u{7}.del\u{7f}",
        "Zürich.Börse",
        "a-b_c.$x.#",
    ] {
        for v in ALL {
            accepted(text, v);
        }
    }
    let e = refused(&format!("A.{}", "ü".repeat(64)), Mode::Listen);
    assert_eq!(
        e.kind,
        SubjectErrorKind::ElementTooLong {
            element: 2,
            len: 128
        }
    );
}

#[test]
fn nul_cannot_be_in_a_subject() {
    // mqgate: Rendezvous subjects are C strings (`const char*` in every C
    // call), which end at the first NUL, so no subject holds one.
    let e = refused("A.b\0c", Mode::Listen);
    assert_eq!(e.kind, SubjectErrorKind::Nul { element: 2 });
    assert_eq!(e.offset, 3);
}

#[test]
fn subjects_are_case_sensitive() {
    // "Using Wildcards to Receive Related Subjects": RUN.* does not match
    // Run.away "(case)".
    assert!(!matches(&listen("RUN.*"), &delivered("Run.away")));
    assert!(!matches(&listen("Run.away"), &delivered("RUN.away")));
    assert_ne!(listen("Run.away"), listen("RUN.away"));
}

#[test]
fn no_cap_on_the_number_of_elements() {
    // The 100-element cap is TIBCO's adapters' ("Subject and Destination
    // Names" of the adapter guides), not Rendezvous': 101 elements pass
    // where the length allows them.
    let text = vec!["a"; 101].join(".");
    let s = check_reusable_name(&text, NameKind::FtGroup).expect("no element cap");
    assert_eq!(s.element_count(), 101);
}

// ---- "Using Wildcards to Receive Related Subjects" ----

#[test]
fn wildcard_table_of_the_documentation() {
    // "Semantics of Listening to Wildcard Subjects": (pattern, matches, does
    // not match).
    let table: [(&str, &[&str], &[&str]); 4] = [
        (
            "RUN.*",
            &["RUN.AWAY", "RUN.away"],
            &["RUN.Run.run", "Run.away", "RUN"],
        ),
        (
            "Yankees.vs.*",
            &["Yankees.vs.Red_Sox", "Yankees.vs.Orioles"],
            &["Giants.vs.Yankees", "Yankees.beat.Sox", "Yankees.vs"],
        ),
        (
            "*.your.*",
            &["Amaze.your.friends", "Raise.your.salary", "Darn.your.socks"],
            &["your", "Pick.up.your.foot"],
        ),
        (
            "RUN.>",
            &["RUN.DMC", "RUN.RUN.RUN", "RUN.SWIM.BIKE.SKATE"],
            &["HOME.RUN", "Run.away", "RUN"],
        ),
    ];
    for (pattern, yes, no) in table {
        let p = listen(pattern);
        for s in yes {
            assert!(matches(&p, &delivered(s)), "{pattern} should match {s}");
        }
        for s in no {
            assert!(!p.matches(&delivered(s)), "{pattern} should not match {s}");
        }
    }
}

#[test]
fn wildcard_filter_table_of_the_administration_guide() {
    // TIBCO Rendezvous Administration, "Subject Filtering with Wildcards":
    // import and export subjects follow the listening semantics.
    let table: [(&str, &[&str], &[&str]); 4] = [
        ("FOO.*", &["FOO.BAR"], &["FOO.BAR.BAZ"]),
        (
            "FOO.>",
            &["FOO.BAR", "FOO.BAR.BAZ", "FOO.BAR.BAZ.BOX"],
            &["FOO"],
        ),
        (
            "FOO.*.>",
            &["FOO.BAR.BAZ", "FOO.BAR.BAZ.BOX"],
            &["FOO.BAR", "FOO"],
        ),
        (
            "FOO.*.STOP",
            &["FOO.BAR.STOP", "FOO.FOZ.STOP"],
            &["FOO.STOP", "FOO.BAR.BAZ"],
        ),
    ];
    for (pattern, yes, no) in table {
        let p = listen(pattern);
        for s in yes {
            assert!(matches(&p, &delivered(s)), "{pattern} should match {s}");
        }
        for s in no {
            assert!(
                !matches(&p, &delivered(s)),
                "{pattern} should not match {s}"
            );
        }
    }
    // `>` alone matches every subject.
    assert!(matches(&listen(">"), &delivered("A")));
    assert!(matches(&listen(">"), &delivered("_RV.INFO.SYSTEM.X")));
}

#[test]
fn asterisk_must_be_a_whole_element() {
    // "Invalid Wildcard Subject Examples": abc*xyz, "Asterisk (*) must take
    // the place of one whole element". The same for `foo*` (mqgate: the
    // documentation does not say; refused in every mode).
    for (text, element, offset) in [("abc*xyz", 1, 3), ("A.foo*", 2, 5), ("*x", 1, 0)] {
        for v in ALL {
            let e = refused(text, v);
            assert_eq!(
                e.kind,
                SubjectErrorKind::PartialWildcard {
                    element,
                    wildcard: '*'
                },
                "{text}"
            );
            assert_eq!(e.offset, offset);
            assert_eq!(
                e.to_string(),
                format!(
                    "element {element} has '*' among other characters: '*' must be a whole element"
                )
            );
        }
    }
    assert_eq!(
        refused("abc*xyz", Mode::Listen).reference(),
        "Using Wildcards to Receive Related Subjects"
    );
}

#[test]
fn greater_than_must_be_the_last_element() {
    // "Invalid Wildcard Subject Examples": Foo.>.baz, "Greater-than (>) can
    // only appear as the right-most character".
    for v in ALL {
        let e = refused("Foo.>.baz", v);
        assert_eq!(e.kind, SubjectErrorKind::FullWildcardNotLast { element: 2 });
        assert_eq!(e.offset, 4);
        assert_eq!(
            e.to_string(),
            "element 2 is '>': '>' must be the last element"
        );
    }
    // `>` with other characters (mqgate: the documentation does not say).
    for (text, element) in [("foo>", 1), ("A.foo>bar", 2), ("A.>b", 2)] {
        for v in ALL {
            assert_eq!(
                refused(text, v).kind,
                SubjectErrorKind::PartialWildcard {
                    element,
                    wildcard: '>'
                },
                "{text}"
            );
        }
    }
    assert_eq!(
        refused("foo>", Mode::Listen).reference(),
        "docs/rendezvous.md"
    );
}

#[test]
fn greater_than_needs_at_least_one_element() {
    // "Subject Filtering with Wildcards": FOO.> does not match FOO
    // "(missing element)"; the documentation's `RUN.>` and `RUN` likewise.
    assert!(!matches(&listen("A.>"), &delivered("A")));
    assert!(matches(&listen("A.>"), &delivered("A.B")));
    assert!(matches(&listen("A.>"), &delivered("A.B.C")));
    assert!(listen("A.>").ends_with_full_wildcard());
    assert!(!listen("A.*").ends_with_full_wildcard());
}

#[test]
fn advisory_patterns_are_legal_listen_subjects() {
    // A listener on every system advisory: `_RV.*.SYSTEM.>` (TIBCO
    // Rendezvous Concepts, "Advisory Messages").
    let s = listen("_RV.*.SYSTEM.>");
    assert_eq!(s.class(), SubjectClass::Advisory);
    assert!(s.has_wildcards());
    assert!(matches(
        &s,
        &delivered("_RV.ERROR.SYSTEM.CLIENT.ILLEGAL_PUBLISH")
    ));
    assert!(!matches(
        &s,
        &delivered("_RV.INFO.RVCM.DELIVERY.COMPLETE.A")
    ));
}

// ---- Send versus listen ----

#[test]
fn ordinary_sends_refuse_wildcards_unless_allowed() {
    // "Wildcard Sending": legal but discouraged on ordinary transports;
    // mqgate refuses by default and allows it on request.
    for (text, element, wildcard) in [("A.*", 2, '*'), ("A.>", 2, '>'), ("*", 1, '*')] {
        let e = refused(text, Mode::Send);
        assert_eq!(
            e.kind,
            SubjectErrorKind::WildcardRefused {
                element,
                wildcard,
                context: WildcardContext::OrdinarySend
            }
        );
        assert_eq!(e.reference(), "docs/rendezvous.md");
        let s = accepted(text, Validation::SEND.allow_wildcard_send(true));
        assert!(s.has_wildcards());
    }
    assert_eq!(
        refused("A.*", Mode::Send).to_string(),
        "element 2 is the wildcard '*': sending to a wildcard subject is refused unless wildcard sends are allowed"
    );
}

#[test]
fn certified_sends_never_take_wildcards() {
    // "Wildcard Sending": "It is illegal for certified delivery transports
    // to send to wildcard subjects. It is illegal to send to distributed
    // queues using wildcard subjects."
    for v in [
        Validation::SEND_CERTIFIED,
        Validation::SEND_CERTIFIED.allow_wildcard_send(true),
    ] {
        let e = refused("ORDERS.*", v);
        assert_eq!(
            e.kind,
            SubjectErrorKind::WildcardRefused {
                element: 2,
                wildcard: '*',
                context: WildcardContext::CertifiedSend
            }
        );
        assert_eq!(e.reference(), "Using Wildcards to Receive Related Subjects");
    }
}

#[test]
fn sends_to_reserved_prefixes_are_refused() {
    // "Distinguished Subject Names with Special Meaning": programs must not
    // send to _RV. nor to any other name beginning with '_' (the CM, FT, DQ
    // and routing daemon prefixes are such names).
    for (text, class, says) in [
        (
            "_RV.INFO.X",
            SubjectClass::Advisory,
            "'_RV.' is reserved for advisories",
        ),
        (
            "_RVCM.X",
            SubjectClass::Certified,
            "'_RVCM.' is reserved for certified delivery",
        ),
        (
            "_RVFT.X",
            SubjectClass::FaultTolerance,
            "'_RVFT.' is reserved for fault tolerance",
        ),
        (
            "_RVCMQ.X",
            SubjectClass::DistributedQueue,
            "'_RVCMQ.' is reserved for distributed queues",
        ),
        (
            "_RVRD.X",
            SubjectClass::RoutingDaemon,
            "'_RVRD.' is reserved for routing daemons",
        ),
        (
            "_FOO.X",
            SubjectClass::Reserved,
            "a first element beginning with '_' is reserved for internal administrative messages",
        ),
        ("_RV", SubjectClass::Advisory, "'_RV.' is reserved"),
    ] {
        for v in [
            Validation::SEND,
            Validation::SEND.allow_wildcard_send(true),
            Validation::SEND_CERTIFIED,
        ] {
            let e = refused(text, v);
            assert_eq!(
                e.kind,
                SubjectErrorKind::ReservedForSend { class },
                "{text}"
            );
            assert_eq!((e.element(), e.offset), (Some(1), 0));
            assert!(e.to_string().contains(says), "{e}");
            assert!(
                e.to_string().ends_with("programs must not send to it"),
                "{e}"
            );
        }
        // Listeners may listen to them.
        assert_eq!(listen(text).class(), class);
    }
    // Reported before a later wildcard: text order.
    assert!(matches!(
        refused("_RV.*", Mode::Send).kind,
        SubjectErrorKind::ReservedForSend { .. }
    ));
}

#[test]
fn local_and_inbox_subjects_may_be_sent_to() {
    // _LOCAL. subjects stay in the daemon and are sent to by design; inbox
    // names are reply subjects (the name cannot tell who made it, so mqgate
    // accepts every _INBOX. subject in send mode).
    for (text, class) in [
        ("_LOCAL.A.B.C", SubjectClass::Local),
        ("_INBOX.C0A80001.5F1E.1", SubjectClass::Inbox),
    ] {
        for v in [Validation::SEND, Validation::SEND_CERTIFIED] {
            assert_eq!(accepted(text, v).class(), class);
        }
    }
}

#[test]
fn inboxes_are_never_combined_with_wildcards() {
    // "Distinguished Subject Names with Special Meaning": "Programs cannot
    // combine inbox names with wildcards" (listen mode too).
    for v in ALL {
        for (text, element, wildcard) in [("_INBOX.>", 2, '>'), ("_INBOX.A.*", 3, '*')] {
            let e = refused(text, v);
            assert_eq!(
                e.kind,
                SubjectErrorKind::WildcardRefused {
                    element,
                    wildcard,
                    context: WildcardContext::Inbox
                }
            );
            assert_eq!(
                e.reference(),
                "Distinguished Subject Names with Special Meaning"
            );
        }
    }
    assert_eq!(
        refused("_INBOX.>", Mode::Listen).to_string(),
        "element 2 is the wildcard '>': '_INBOX.' subjects cannot be combined with wildcards"
    );
}

#[test]
fn delivered_subjects_have_no_wildcards() {
    // mqgate: the subject a pattern is matched against (`mqgate rv match`).
    assert_eq!(
        delivered("_RV.WARN.SYSTEM.X").class(),
        SubjectClass::Advisory
    );
    let e = Subject::parse_delivered("A.*").unwrap_err();
    assert_eq!(
        e.kind,
        SubjectErrorKind::WildcardRefused {
            element: 2,
            wildcard: '*',
            context: WildcardContext::Delivered
        }
    );
}

#[test]
fn internal_subjects_reach_255_bytes_and_have_no_wildcards() {
    // "RVCM Advisory Subject Names": _RV.class.RVCM.category.condition.subject
    // ends with a whole subject, so the gateway's own subjects may pass the
    // 196-byte receive limit; "Subject Name Syntax": never 255.
    let advisory = format!("_RV.INFO.RVCM.DELIVERY.COMPLETE.{}", of_len(223, 100));
    assert_eq!(advisory.len(), SUBJECT_MAX);
    let s = Subject::parse_internal(&advisory).unwrap();
    assert_eq!(s.class(), SubjectClass::Advisory);
    assert_eq!(
        Subject::parse_internal(&format!("{advisory}x"))
            .unwrap_err()
            .kind,
        SubjectErrorKind::TooLong { len: 256 }
    );
    assert!(Subject::parse_internal("_RVCM.REG.X").is_ok());
    assert_eq!(
        Subject::parse_internal("_RV.INFO.>").unwrap_err().kind,
        SubjectErrorKind::WildcardRefused {
            element: 3,
            wildcard: '>',
            context: WildcardContext::Delivered
        }
    );
    assert_eq!(
        Subject::parse_internal("A..B").unwrap_err().kind,
        SubjectErrorKind::EmptyElement { element: 2 }
    );
}

// ---- "Reusable Names" ----

#[test]
fn reusable_names() {
    // "The maximum length of a reusable name is 50 total characters",
    // "must not contain wildcard characters", "may not begin with reserved
    // elements (such as _INBOX, _RV or _LOCAL)", "must obey the syntax for
    // Rendezvous subject names", "The empty string is not a legal
    // correspondent name". A distributed queue name is its members' cmName
    // ("tibrvcmTransport_CreateDistributedQueue()").
    assert_eq!(REUSABLE_NAME_MAX, 50);
    let fifty = of_len(50, 20);
    let fifty_one = of_len(51, 20);
    for kind in [NameKind::CmName, NameKind::DistributedQueue] {
        assert_eq!(
            check_reusable_name(&fifty, kind).map(|s| s.element_count()),
            Ok(3)
        );
        let e = check_reusable_name(&fifty_one, kind).unwrap_err();
        assert_eq!(e.kind, SubjectErrorKind::NameTooLong { len: 51 });
        assert_eq!(e.reference(), "Reusable Names");
    }
    check_reusable_name(&fifty_one, NameKind::FtGroup).expect("no 50-byte limit for FT groups");
    for kind in [
        NameKind::CmName,
        NameKind::FtGroup,
        NameKind::DistributedQueue,
    ] {
        for (text, class) in [
            ("_INBOX.A", SubjectClass::Inbox),
            ("_RV.A", SubjectClass::Advisory),
            ("_LOCAL.A", SubjectClass::Local),
            ("_X", SubjectClass::Reserved),
        ] {
            let e = check_reusable_name(text, kind).unwrap_err();
            assert_eq!(e.kind, SubjectErrorKind::ReservedName { class }, "{text}");
        }
        let e = check_reusable_name("ORDERS.*", kind).unwrap_err();
        assert_eq!(
            e.kind,
            SubjectErrorKind::WildcardRefused {
                element: 2,
                wildcard: '*',
                context: WildcardContext::ReusableName
            }
        );
        assert_eq!(
            e.to_string(),
            "element 2 is the wildcard '*': reusable names cannot contain wildcards"
        );
        for (text, kind_expected) in [
            ("", SubjectErrorKind::Empty),
            ("A..B", SubjectErrorKind::EmptyElement { element: 2 }),
        ] {
            assert_eq!(
                check_reusable_name(text, kind).unwrap_err().kind,
                kind_expected
            );
        }
        assert_eq!(
            check_reusable_name("Acme.FT.Group", kind).map(|s| s.class()),
            Ok(SubjectClass::Ordinary)
        );
    }
    assert_eq!(
        check_reusable_name("_RV.A", NameKind::CmName)
            .unwrap_err()
            .to_string(),
        "element 1: a reusable name may not begin with a reserved element ('_RV.' is reserved for advisories)"
    );
}

// ---- The Subject type ----

#[test]
fn element_access_and_ownership() {
    let text = String::from("NEWS.LOCAL.POLITICS");
    let s = accepted(&text, Mode::Send);
    assert_eq!(s.element_count(), 3);
    assert_eq!(s.element(0), Some("NEWS"));
    assert_eq!(s.element(2), Some("POLITICS"));
    assert_eq!(s.element(3), None);
    assert_eq!((s.first_element(), s.last_element()), ("NEWS", "POLITICS"));
    assert_eq!(s.to_string(), "NEWS.LOCAL.POLITICS");
    assert!(!s.has_wildcards());
    let owned: Subject<'static> = s.clone().into_owned();
    drop(text);
    assert_eq!(owned.as_str(), "NEWS.LOCAL.POLITICS");
    assert_eq!(owned.element_count(), 3);
}

// ---- "Rendezvous and NATS" (docs/rendezvous.md), row by row ----

#[test]
fn nats_row_1_partial_element_wildcards() {
    // Rendezvous: invalid wildcard (abc*xyz); NATS: literal characters. A
    // Rendezvous-valid subject never has one, so nothing reaches NATS.
    for text in ["abc*xyz", "foo*"] {
        assert!(matches!(
            refused(text, Mode::Listen).kind,
            SubjectErrorKind::PartialWildcard { wildcard: '*', .. }
        ));
    }
}

#[test]
fn nats_row_2_greater_than_not_alone() {
    // Rendezvous: `>` only right-most (mqgate refuses `foo>`); NATS: literal.
    for text in ["foo>bar", "foo>"] {
        assert!(matches!(
            refused(text, Mode::Listen).kind,
            SubjectErrorKind::PartialWildcard { wildcard: '>', .. }
        ));
    }
}

#[test]
fn nats_row_3_publishing_to_wildcards() {
    // Rendezvous: ordinary transports allow it, CM refuses; NATS
    // (`IsValidPublishSubject`) refuses it.
    let s = accepted("A.*.C", Validation::SEND.allow_wildcard_send(true));
    assert_eq!(
        nats_refusal(&s, NatsUse::Publish),
        Some(NatsRefusal::WildcardPublish { element: 2 })
    );
    assert_eq!(nats_refusal(&s, NatsUse::Subscribe), None);
    assert_eq!(
        nats_refusal(&s, NatsUse::Publish).map(|r| r.to_string()),
        Some("element 2 is a wildcard: NATS does not publish to wildcard subjects".into())
    );
    refused("A.*.C", Mode::SendCertified);
}

#[test]
fn nats_row_4_underscore_prefixes() {
    // Rendezvous forbids sends to `_RV`, `_RVCM`, `_RVFT`, other `_X` except
    // `_LOCAL` and inboxes; NATS has no such rule.
    refused("_RVCM.X", Mode::Send);
    for text in ["_RV.INFO.X", "_RVFT.X", "_LOCAL.X", "_INBOX.X"] {
        for usage in [NatsUse::Publish, NatsUse::Subscribe] {
            assert_eq!(nats_refusal(&listen(text), usage), None, "{text}");
        }
    }
}

#[test]
fn nats_row_5_lengths() {
    // Rendezvous: 255 / 196 / 127; NATS: no limit.
    let s = listen(&of_len(196, 127)).into_owned();
    assert_eq!(nats_refusal(&s, NatsUse::Publish), None);
    let name = of_len(255, 127);
    let ft = check_reusable_name(&name, NameKind::FtGroup).expect("255 bytes");
    assert_eq!(nats_refusal(&ft, NatsUse::Publish), None);
}

#[test]
fn nats_row_6_whitespace() {
    // Rendezvous: discouraged, legal; NATS (`IsValidSubject`): an element
    // with a space, \t, \n, \f or \r is invalid.
    for (text, element, offset, character) in [
        ("A B.C", 1, 1, ' '),
        ("A.B\tC", 2, 3, '\t'),
        ("A.B.\n", 3, 4, '\n'),
        ("A.\x0c", 2, 2, '\x0c'),
        ("\r", 1, 0, '\r'),
    ] {
        for v in ALL {
            let s = accepted(text, v);
            for usage in [NatsUse::Publish, NatsUse::Subscribe] {
                assert_eq!(
                    nats_refusal(&s, usage),
                    Some(NatsRefusal::Whitespace {
                        element,
                        offset,
                        character
                    }),
                    "{text:?}"
                );
            }
        }
    }
    // Vertical tab is not in nats-server's list.
    assert_eq!(nats_refusal(&listen("A\x0bB"), NatsUse::Publish), None);
    assert_eq!(
        nats_refusal(&listen("A B"), NatsUse::Publish).map(|r| r.to_string()),
        Some("element 1 contains whitespace (' '): NATS subjects cannot contain whitespace".into())
    );
}

#[test]
fn nats_row_7_the_same_in_both() {
    // Case sensitivity, `*` = one element, `>` = one or more trailing,
    // `A.>` does not match `A`, empty elements invalid. NATS C client,
    // "Wildcards": foo.* receives foo.bar and foo.baz, not foo.bar.baz; foo.>
    // receives foo.bar, foo.baz, foo.bar.baz, not foo; the Rendezvous tables
    // above say the same of RUN.* and RUN.>.
    let star = listen("foo.*");
    let fwc = listen("foo.>");
    for s in ["foo.bar", "foo.baz"] {
        assert!(matches(&star, &delivered(s)));
        assert!(matches(&fwc, &delivered(s)));
    }
    assert!(!matches(&star, &delivered("foo.bar.baz")));
    assert!(matches(&fwc, &delivered("foo.bar.baz")));
    assert!(!matches(&fwc, &delivered("foo")));
    assert!(!matches(&star, &delivered("bar.foo")));
    assert!(!matches(&listen("Foo.*"), &delivered("foo.bar")));
    refused("foo..bar", Mode::Listen);
    for s in ["foo.bar", "foo.*", "foo.>"] {
        assert_eq!(nats_refusal(&listen(s), NatsUse::Subscribe), None);
    }
}

// ---- Any text ----

mod any_text {
    use super::*;
    use proptest::prelude::*;

    fn text() -> impl Strategy<Value = String> {
        prop::collection::vec(
            prop::sample::select(vec![
                "a", "B", ".", "*", ">", "_", "_RV", " ", "\0", "ü", "_INBOX",
            ]),
            0..12,
        )
        .prop_map(|parts| parts.concat())
    }

    proptest! {
        #[test]
        fn checked_or_refused_with_a_place_in_the_text(t in text(), mode in 0usize..4) {
            let v = ALL[mode];
            let count = t.split('.').count();
            match Subject::parse(&t, v) {
                Ok(s) => {
                    let elements: Vec<&str> = s.elements().collect();
                    prop_assert_eq!(elements.join("."), t.clone());
                    prop_assert_eq!(s.element_count(), count);
                    for el in &elements {
                        prop_assert!(!el.is_empty() && el.len() <= 127);
                        prop_assert!(*el == "*" || *el == ">" || !el.contains(['*', '>', '\0']));
                    }
                    prop_assert_eq!(s.has_wildcards(), elements.iter().any(|e| *e == "*" || *e == ">"));
                    // A subject, as a pattern, matches itself.
                    prop_assert!(matches(&s, &s));
                }
                Err(e) => {
                    prop_assert!(e.offset <= t.len(), "{}: offset {}", e, e.offset);
                    prop_assert!(t.is_char_boundary(e.offset));
                    if let Some(n) = e.element() {
                        prop_assert!((1..=count).contains(&n), "{}", e);
                    }
                    prop_assert!(!e.to_string().is_empty());
                }
            }
        }
    }
}

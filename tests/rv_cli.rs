//! `mqgate rv check-subject` and `mqgate rv match`, run as built.
//!
//! Expected verdicts come from TIBCO Rendezvous Concepts: "Subject Name
//! Syntax" (examples, limits), "Using Wildcards to Receive Related Subjects"
//! (the wildcard table and invalid wildcards), "Distinguished Subject Names
//! with Special Meaning" (`_RV.` and the other reserved prefixes); the refusal
//! texts and exit statuses are mqgate's (docs/rendezvous.md "Command line",
//! each command's --help).

use std::process::Command;

/// Runs `mqgate ARGS`: (exit status, stdout, stderr).
fn mqgate(args: &[&str]) -> (i32, String, String) {
    let out = Command::new(env!("CARGO_BIN_EXE_mqgate"))
        .args(args)
        .output()
        .unwrap();
    (
        out.status.code().unwrap(),
        String::from_utf8_lossy(&out.stdout).into_owned(),
        String::from_utf8_lossy(&out.stderr).into_owned(),
    )
}

fn check(subject: &str, extra: &[&str]) -> (i32, String, String) {
    let mut args = vec!["rv", "check-subject", subject];
    args.extend_from_slice(extra);
    mqgate(&args)
}

#[test]
fn valid_subjects_exit_0_with_a_summary() {
    for (subject, extra, out) in [
        (
            "NEWS.LOCAL.POLITICS.CITY_COUNCIL",
            &[][..],
            "valid listen subject: 4 elements\n",
        ),
        (
            "finance",
            &["--mode", "send"][..],
            "valid send subject: 1 element\n",
        ),
        (
            "_RV.*.SYSTEM.>",
            &[][..],
            "valid listen subject: 4 elements, wildcards, advisory (advisories)\n",
        ),
        (
            "_INBOX.C0A80001.1",
            &["--mode", "cm"][..],
            "valid cm subject: 3 elements, inbox (point-to-point inboxes)\n",
        ),
        (
            "ORDERS.*",
            &["--mode", "send", "--allow-wildcards"][..],
            "valid send subject: 2 elements, wildcards\n",
        ),
    ] {
        let (rc, stdout, stderr) = check(subject, extra);
        assert_eq!(
            (rc, stdout.as_str(), stderr.as_str()),
            (0, out, ""),
            "{subject}"
        );
    }
}

#[test]
fn invalid_subjects_exit_2_with_the_rule_and_the_element() {
    for (subject, extra, says) in [
        ("A.B..C", &[][..], "element 3 is empty"),
        ("WRONG.", &[][..], "element 2 is empty"),
        ("", &[][..], "the subject is empty"),
        (
            "Foo.>.baz",
            &[][..],
            "element 2 is '>': '>' must be the last element",
        ),
        (
            "abc*xyz",
            &[][..],
            "element 1 has '*' among other characters: '*' must be a whole element",
        ),
        (
            "_RV.INFO.X",
            &["--mode", "send"][..],
            "element 1: '_RV.' is reserved for advisories; programs must not send to it",
        ),
        (
            "_RVFT.X",
            &["--mode", "cm"][..],
            "element 1: '_RVFT.' is reserved for fault tolerance; programs must not send to it",
        ),
        (
            "ORDERS.*",
            &["--mode", "send"][..],
            "element 2 is the wildcard '*': sending to a wildcard subject is refused unless wildcard sends are allowed",
        ),
        (
            "ORDERS.>",
            &["--mode", "cm", "--allow-wildcards"][..],
            "element 2 is the wildcard '>': certified delivery and distributed queues cannot send to wildcard subjects",
        ),
        (
            "_INBOX.>",
            &[][..],
            "element 2 is the wildcard '>': '_INBOX.' subjects cannot be combined with wildcards",
        ),
    ] {
        let (rc, stdout, stderr) = check(subject, extra);
        assert_eq!((rc, stdout.as_str()), (2, ""), "{subject}: {stderr}");
        assert!(
            stderr.starts_with(&format!(
                "mqgate rv check-subject: invalid subject {subject:?}: {says}"
            )),
            "{stderr}"
        );
        assert!(stderr.contains("TIBRV_INVALID_SUBJECT 20"), "{stderr}");
    }
    // The source of the rule is named: the 196-byte receive limit of
    // "Subject Name Syntax".
    let long = format!("{}.{}", "x".repeat(100), "y".repeat(96));
    let (rc, _, stderr) = check(&long, &[]);
    assert_eq!(rc, 2);
    assert!(
        stderr.contains("197 bytes long, over the 196 bytes programs can receive")
            && stderr.contains("see TIBCO Rendezvous Concepts, \"Subject Name Syntax\""),
        "{stderr}"
    );
    assert_eq!(check(&long[..196], &[]).0, 0);
}

#[test]
fn match_exit_statuses() {
    // "Semantics of Listening to Wildcard Subjects".
    for (pattern, subject, rc, out) in [
        ("RUN.*", "RUN.away", 0, "match\n"),
        ("RUN.>", "RUN.SWIM.BIKE.SKATE", 0, "match\n"),
        ("*.your.*", "Amaze.your.friends", 0, "match\n"),
        ("RUN.>", "RUN", 1, "no match\n"),
        ("RUN.*", "Run.away", 1, "no match\n"),
        ("Yankees.vs.*", "Giants.vs.Yankees", 1, "no match\n"),
        (
            "_RV.*.SYSTEM.>",
            "_RV.ERROR.SYSTEM.CLIENT.ILLEGAL_PUBLISH",
            0,
            "match\n",
        ),
    ] {
        let (code, stdout, stderr) = mqgate(&["rv", "match", pattern, subject]);
        assert_eq!(
            (code, stdout.as_str(), stderr.as_str()),
            (rc, out, ""),
            "{pattern} {subject}"
        );
    }
    for (pattern, subject, says) in [
        (
            "Foo.>.baz",
            "Foo.x.baz",
            "invalid pattern \"Foo.>.baz\": element 2 is '>': '>' must be the last element",
        ),
        (
            "RUN..*",
            "RUN.a",
            "invalid pattern \"RUN..*\": element 2 is empty",
        ),
        (
            "RUN.*",
            "RUN.*",
            "invalid subject \"RUN.*\": element 2 is the wildcard '*': the subject of a message has no wildcards",
        ),
        (
            "RUN.*",
            "RUN.",
            "invalid subject \"RUN.\": element 2 is empty",
        ),
    ] {
        let (code, stdout, stderr) = mqgate(&["rv", "match", pattern, subject]);
        assert_eq!((code, stdout.as_str()), (2, ""), "{stderr}");
        assert!(
            stderr.starts_with(&format!("mqgate rv match: {says}")),
            "{stderr}"
        );
    }
}

#[test]
fn help_lists_the_exit_statuses() {
    let (rc, out, _) = mqgate(&["rv", "check-subject", "--help"]);
    assert_eq!(rc, 0);
    assert!(out.contains("Exit status: 0 valid"), "{out}");
    assert!(out.contains("2 invalid"), "{out}");
    assert!(
        out.contains("listen") && out.contains("send") && out.contains("cm"),
        "{out}"
    );
    let (rc, out, _) = mqgate(&["rv", "match", "--help"]);
    assert_eq!(rc, 0);
    assert!(
        out.contains("Exit status: 0 the pattern matches; 1 it does not; 2 the pattern"),
        "{out}"
    );
    // An unknown mode is a usage error: 2, like an invalid subject.
    let (rc, _, err) = check("A", &["--mode", "publish"]);
    assert_eq!(rc, 2);
    assert!(err.contains("--mode"), "{err}");
}

//! The Rendezvous interest index (docs/rendezvous.md "Interest index"):
//! lookups on the documentation's wildcard table, several subscribers per
//! pattern and overlapping patterns per subscriber, and proptests that the
//! index returns exactly the subscribers whose patterns `matches` the
//! subject, one by one, through inserts and removals.
//!
//! Expected matches come from TIBCO Rendezvous Concepts, "Using Wildcards to
//! Receive Related Subjects" (`RUN.*`, `RUN.>`, `*.your.*` and their
//! examples).

use std::collections::BTreeSet;

use mqgate_codecs::rv::{InterestIndex, Mode, Subject, matches};
use proptest::prelude::*;

fn pattern(text: &str) -> Subject<'_> {
    Subject::parse(text, Mode::Listen).unwrap()
}

fn subject(text: &str) -> Subject<'_> {
    Subject::parse_delivered(text).unwrap()
}

fn sorted(mut ids: Vec<u32>) -> Vec<u32> {
    ids.sort_unstable();
    ids
}

#[test]
fn documentation_examples() {
    let mut index = InterestIndex::new();
    // Listener 1 on RUN.*, 2 on RUN.>, 3 on *.your.*, 4 on RUN.away.
    for (p, id) in [("RUN.*", 1), ("RUN.>", 2), ("*.your.*", 3), ("RUN.away", 4)] {
        assert!(index.insert(&pattern(p), id));
    }
    assert_eq!(index.len(), 4);
    for (s, ids) in [
        ("RUN.away", vec![1, 2, 4]),
        ("RUN.AWAY", vec![1, 2]),
        ("RUN.RUN.RUN", vec![2]),
        ("RUN.SWIM.BIKE.SKATE", vec![2]),
        ("RUN", vec![]),      // missing element
        ("Run.away", vec![]), // case
        ("Amaze.your.friends", vec![3]),
        ("Pick.up.your.foot", vec![]), // position
        ("RUN.your.feet", vec![2, 3]),
    ] {
        assert_eq!(sorted(index.lookup(&subject(s))), ids, "{s}");
        assert_eq!(index.has_interest(&subject(s)), !ids.is_empty(), "{s}");
    }
}

#[test]
fn each_subscriber_once() {
    let mut index = InterestIndex::new();
    // Subscriber 7 holds three overlapping patterns; 8 and 9 share one.
    for p in ["A.B", "A.*", ">"] {
        assert!(index.insert(&pattern(p), 7u32));
    }
    assert!(index.insert(&pattern("A.B"), 8));
    assert!(index.insert(&pattern("A.B"), 9));
    // The same pair again is not a new subscription.
    assert!(!index.insert(&pattern("A.*"), 7));
    assert_eq!(index.len(), 5);
    assert_eq!(sorted(index.lookup(&subject("A.B"))), [7, 8, 9]);
    assert_eq!(sorted(index.lookup(&subject("A.C"))), [7]);
    assert_eq!(sorted(index.lookup(&subject("Z"))), [7]);

    let mut out = vec![99];
    index.lookup_into(&subject("Q.R"), &mut out);
    assert_eq!(out, [7], "the buffer is cleared first");

    assert!(index.remove(&pattern(">"), 7));
    assert!(!index.remove(&pattern(">"), 7));
    assert!(!index.remove(&pattern("A.B.C"), 7));
    assert!(!index.remove(&pattern("A.B"), 1));
    assert_eq!(sorted(index.lookup(&subject("A.B"))), [7, 8, 9]);
    assert_eq!(index.lookup(&subject("Z")), Vec::<u32>::new());
    for (p, id) in [("A.B", 7), ("A.*", 7), ("A.B", 8), ("A.B", 9)] {
        assert!(index.remove(&pattern(p), id), "{p} {id}");
    }
    assert!(index.is_empty());
    assert!(!index.has_interest(&subject("A.B")));
}

/// Elements of generated patterns and subjects: few texts, so that patterns
/// and subjects meet often.
/// The first element has more texts than a node keeps in its vector
/// (`FEW_MAX`, 8), so nodes change to maps and back.
const FIRST: [&str; 13] = [
    "a", "b", "c", "d", "e", "f", "g", "h", "i", "j", "k", "l", "*",
];

fn pattern_text() -> impl Strategy<Value = String> {
    (
        prop::sample::select(FIRST.to_vec()),
        prop::collection::vec(prop::sample::select(vec!["a", "b", "c", "*"]), 0..3),
        prop::sample::select(vec!["a", "b", "*", ">"]),
    )
        .prop_map(|(first, middle, last)| {
            let mut els = vec![first];
            els.extend(middle);
            els.push(last);
            els.join(".")
        })
}

fn subject_text() -> impl Strategy<Value = String> {
    (
        prop::sample::select(FIRST[..12].to_vec()),
        prop::collection::vec(prop::sample::select(vec!["a", "b", "c", "d"]), 0..5),
    )
        .prop_map(|(first, rest)| {
            let mut els = vec![first];
            els.extend(rest);
            els.join(".")
        })
}

fn expected(subs: &BTreeSet<(String, u32)>, s: &Subject<'_>) -> Vec<u32> {
    let ids: BTreeSet<u32> = subs
        .iter()
        .filter(|(p, _)| matches(&pattern(p), s))
        .map(|(_, id)| *id)
        .collect();
    ids.into_iter().collect()
}

proptest! {
    #[test]
    fn index_agrees_with_matching_one_by_one(
        inserts in prop::collection::vec((pattern_text(), 0u32..6), 0..80),
        removals in prop::collection::vec(any::<prop::sample::Index>(), 0..60),
        subjects in prop::collection::vec(subject_text(), 1..30),
    ) {
        let mut index = InterestIndex::new();
        let mut held = BTreeSet::new();
        for (p, id) in &inserts {
            let new = held.insert((p.clone(), *id));
            prop_assert_eq!(index.insert(&pattern(p), *id), new);
        }
        prop_assert_eq!(index.len(), held.len());
        let check = |index: &InterestIndex<u32>, held: &BTreeSet<(String, u32)>| {
            for s in &subjects {
                let s = subject(s);
                let got = sorted(index.lookup(&s));
                let want = expected(held, &s);
                if got != want || index.has_interest(&s) == want.is_empty() {
                    return Err(format!("{s}: index {got:?}, one by one {want:?}"));
                }
            }
            Ok(())
        };
        check(&index, &held).map_err(TestCaseError::fail)?;
        for r in &removals {
            if inserts.is_empty() {
                break;
            }
            let (p, id) = r.get(&inserts);
            let was = held.remove(&(p.clone(), *id));
            prop_assert_eq!(index.remove(&pattern(p), *id), was);
        }
        prop_assert_eq!(index.len(), held.len());
        check(&index, &held).map_err(TestCaseError::fail)?;
    }
}

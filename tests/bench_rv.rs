//! `mqgate bench rv` runs end to end on a small workload: every listener
//! got every message of both scenarios (the run fails otherwise: it waits
//! for `messages × listeners` deliveries per scenario, and a listener that
//! lost one ends it), and the table has its rows. No timing is asserted;
//! the figures are for docs/performance.md, measured by hand.

mod common;

use common::BIN;
use std::process::Command;

#[test]
fn bench_rv_delivers_every_message_to_every_listener() {
    let dir = tempfile::tempdir().unwrap();
    let stdout = common::run_bench(
        &["bench", "rv", "--messages", "20", "--listeners", "5"],
        dir.path(),
    );
    assert!(
        stdout.contains("mqgate bench rv: 20 messages per scenario (a u32 field and a 256-byte opaque field; NATS: 256-byte payloads) to 5 listeners"),
        "{stdout}"
    );
    for scenario in ["one in flight", "back to back"] {
        let row = format!("| mqgate HTTP + SSE | {scenario}, 5 listeners |");
        assert!(stdout.contains(&row), "{row} missing:\n{stdout}");
    }
    if cfg!(feature = "nats") {
        for scenario in ["one in flight", "back to back"] {
            let row = format!("| nats-server core | {scenario}, 5 subscribers |");
            assert!(stdout.contains(&row), "{row} missing:\n{stdout}");
        }
    } else {
        assert!(
            stdout.contains("built without the `nats` feature"),
            "{stdout}"
        );
    }
    // The scratch directory is removed.
    assert_eq!(std::fs::read_dir(dir.path()).unwrap().count(), 0);
}

#[test]
fn bench_rv_certified_completes_every_round_trip() {
    // The run fails unless each certified message's DELIVERY.COMPLETE
    // arrives (it waits for each before the next send); no timing is
    // asserted.
    let dir = tempfile::tempdir().unwrap();
    let stdout = common::run_bench(
        &["bench", "rv", "--certified", "--messages", "20"],
        dir.path(),
    );
    assert!(
        stdout.contains("mqgate bench rv --certified: 20 certified messages per ledger"),
        "{stdout}"
    );
    for ledger in ["memory", "store (synchronous)"] {
        let row = format!("| mqgate RVCM over HTTP | {ledger} |");
        assert!(stdout.contains(&row), "{row} missing:\n{stdout}");
    }
    if cfg!(feature = "nats") {
        assert!(
            stdout.contains("| nats-server JetStream | file |"),
            "{stdout}"
        );
    } else {
        assert!(
            stdout.contains("built without the `nats` feature"),
            "{stdout}"
        );
    }
    assert_eq!(std::fs::read_dir(dir.path()).unwrap().count(), 0);
}

#[test]
fn bench_rv_matching_finds_what_brute_force_matching_finds() {
    // The subscribers found per lookup are checked against `matches` (the
    // element-by-element matcher of docs/rendezvous.md "Matching") over
    // the same fixed mix, drawn as the bench draws it: the patterns, then
    // the lookup subjects of the larger index, then those of the
    // reference's. With NATS, the run fails unless nats-server delivered
    // as many messages as the index found subscribers; no timing is
    // asserted.
    use mqgate_codecs::rv::{MarketDataMix, Mode, Subject, matches};
    let (n, r, l) = (3000, 1000, 2000);
    let mut mix = MarketDataMix::new();
    let patterns = mix.patterns(n);
    let found = |patterns: &[String], subjects: &[String]| -> usize {
        let patterns: Vec<Subject<'_>> = patterns
            .iter()
            .map(|p| Subject::parse(p, Mode::Listen).unwrap())
            .collect();
        subjects
            .iter()
            .map(|s| {
                let s = Subject::parse(s, Mode::Send).unwrap();
                patterns.iter().filter(|p| matches(p, &s)).count()
            })
            .sum()
    };
    let large = mix.lookup_subjects(&patterns, l);
    let large = found(&patterns, &large);
    let small = mix.lookup_subjects(&patterns[..r], l);
    let small = found(&patterns[..r], &small);

    let out = Command::new(BIN)
        .args(["bench", "rv", "--matching", "--subscriptions"])
        .arg(n.to_string())
        .arg("--reference-subscriptions")
        .arg(r.to_string())
        .arg("--lookups")
        .arg(l.to_string())
        .output()
        .unwrap();
    let stdout = String::from_utf8_lossy(&out.stdout);
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(out.status.success(), "{stdout}\n{stderr}");
    for (subscriptions, found) in [(n, large), (r, small)] {
        let row = format!("| mqgate InterestIndex (check + lookup) | {subscriptions} |");
        let line = stdout
            .lines()
            .find(|line| line.starts_with(&row))
            .unwrap_or_else(|| panic!("{row} missing:\n{stdout}"));
        // Columns: system, subscriptions, insert s, lookups/s, found per
        // lookup, ...
        let cells: Vec<&str> = line.split('|').map(str::trim).collect();
        assert_eq!(
            cells[5],
            format!("{:.2}", found as f64 / l as f64),
            "{line}"
        );
    }
    if cfg!(feature = "nats") {
        let row = format!("| nats-server core publish | {r} |");
        assert!(stdout.contains(&row), "{row} missing:\n{stdout}");
        assert!(stdout.contains("ratio mqgate / nats-server"), "{stdout}");
    } else {
        assert!(
            stdout.contains("built without the `nats` feature"),
            "{stdout}"
        );
    }
}

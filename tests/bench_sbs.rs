//! `mqgate bench sbs` runs end to end on a small workload: the copies it
//! counts on the registered queues are those its rules select (no timing
//! is asserted; the figures are for docs/performance.md, measured by hand).
//!
//! Expected copies, from the registrations src/cli/bench_sbs.rs describes:
//! queue `i` of 10 has no rules when `i % 3 == 0` (0, 3, 6, 9: every
//! broadcast), one rule PSEL_TYPE EQ 0 when `i % 3 == 1` (1, 4, 7: the 10
//! broadcasts of type 0 out of 20, types alternating 0 and 1) and ten rules
//! every broadcast meets when `i % 3 == 2` (2, 5, 8): 20 × 7 + 10 × 3 = 170
//! per scenario. "One copy per target queue" (BEA MessageQ Programmer's
//! Guide, "Reading Broadcast Messages") however many rules match.

mod common;

#[test]
fn bench_sbs_counts_the_copies_its_rules_select() {
    let dir = tempfile::tempdir().unwrap();
    let stdout = common::run_bench(
        &["bench", "sbs", "--messages", "20", "--queues", "10"],
        dir.path(),
    );
    assert!(
        stdout.contains("10 registered queues (4 without rules, 3 with 1 rule, 3 with 10 rules); 170 copies per scenario"),
        "{stdout}"
    );
    for scenario in ["non-persistent", "persistent"] {
        let row = format!("| mqgate | {scenario} target queues, 170 copies |");
        assert!(stdout.contains(&row), "{row} missing:\n{stdout}");
    }
    if cfg!(feature = "nats") {
        assert!(
            stdout.contains("| nats-server core | 10 subscribers to one subject, 200 deliveries |"),
            "{stdout}"
        );
    } else {
        assert!(
            stdout.contains("built without the `nats` feature"),
            "{stdout}"
        );
    }
    // The scratch directory is removed.
    assert_eq!(std::fs::read_dir(dir.path()).unwrap().count(), 0);
}

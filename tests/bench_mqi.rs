//! `mqgate bench mqi` runs end to end on a small workload: every scenario
//! checks each MQGET (the run fails on a failed verb or a short message)
//! and drains the channel's queue (the run fails when a message is
//! missing), and the table has its rows. No timing is asserted; the figures
//! are for docs/performance.md, measured by hand.

mod common;

#[test]
fn bench_mqi_runs_every_path() {
    let dir = tempfile::tempdir().unwrap();
    let stdout = common::run_bench(&["bench", "mqi", "--messages", "32"], dir.path());
    // The header names the count and the default size (1 KiB, the option's
    // default in src/cli/bench_mqi.rs).
    assert!(
        stdout.contains("mqgate bench mqi: 32 round trips of 1024 bytes per scenario"),
        "{stdout}"
    );
    for kind in ["persistent", "non-persistent"] {
        for conns in [1, 16] {
            for path in [
                "SVRCONN (MQPUT + MQGET, no syncpoint)",
                "HTTP API (POST put, GET next, POST ack)",
            ] {
                let row = format!("| {path} | {kind} | {conns} |");
                assert!(stdout.contains(&row), "{row} missing:\n{stdout}");
            }
        }
    }
    for how in [
        "batch of 1 to its CONFIRM, one-way) | persistent | 1 |",
        "fast message + heartbeat, one-way) | non-persistent | 1 |",
    ] {
        assert!(stdout.contains(how), "{how} missing:\n{stdout}");
    }
    // The scratch directory is removed.
    assert_eq!(std::fs::read_dir(dir.path()).unwrap().count(), 0);
}

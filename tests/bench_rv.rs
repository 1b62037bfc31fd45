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
    let out = Command::new(BIN)
        .args([
            "bench",
            "rv",
            "--messages",
            "20",
            "--listeners",
            "5",
            "--dir",
        ])
        .arg(dir.path())
        .output()
        .unwrap();
    let stdout = String::from_utf8_lossy(&out.stdout);
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(out.status.success(), "{stdout}\n{stderr}");
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

//! `mqgate bench devices` runs end to end on a small workload: the fill
//! is confirmed by the gateway's channel, the restarted gateway must hand
//! out every device's message (the run fails on a pull that finds none or
//! an acknowledgement that fails), and the table has its rows. No timing
//! is asserted; the figures are for docs/performance.md, measured by hand.

mod common;

#[test]
fn bench_devices_fills_restarts_and_drains_every_device() {
    let dir = tempfile::tempdir().unwrap();
    let stdout = common::run_bench(&["bench", "devices", "--devices", "50"], dir.path());
    // The header names the devices and the default size (256 bytes, the
    // option's default in src/cli/bench_devices.rs).
    assert!(
        stdout
            .contains("mqgate bench devices: 50 devices, one persistent message of 256 bytes each"),
        "{stdout}"
    );
    // 50 devices in three parts: 16, 16 and the 18 left over, each pulled
    // and acknowledged by 1, 4 and 16 clients.
    for (clients, devices) in [(1, 16), (4, 16), (16, 18)] {
        let row = format!("| pulls+acks/s, {clients} client(s), {devices} devices |");
        assert!(stdout.contains(&row), "{row} missing:\n{stdout}");
        let row = format!("| p99 ack latency ms, {clients} client(s) (p99 pull ms: ");
        assert!(stdout.contains(&row), "{row} missing:\n{stdout}");
    }
    for row in [
        "| startup with 50 queued messages, ms",
        "| RSS 1 s after 50 of 50 drained, MiB |",
        "| RSS 12 s after 50 of 50 drained, MiB |",
        "| bytes per idle (drained) device queue",
        "| data directory after the fill, bytes per message |",
    ] {
        assert!(stdout.contains(row), "{row} missing:\n{stdout}");
    }
    // Nothing per message at the default log level (docs/config.md
    // "Logging"): the fill logs its channel's start and end (a few hundred
    // bytes for the 50 messages); a line per put or per device queue
    // created would be 300 bytes or more per message.
    let log_row = "| gateway log written during the fill, bytes per message | ";
    let per_message: f64 = stdout
        .lines()
        .find_map(|l| l.strip_prefix(log_row))
        .and_then(|v| v.trim_end_matches(" |").parse().ok())
        .unwrap_or_else(|| panic!("{log_row} missing:\n{stdout}"));
    assert!(
        per_message < 100.0,
        "{per_message} bytes per message:\n{stdout}"
    );
    // The scratch directory is removed.
    assert_eq!(std::fs::read_dir(dir.path()).unwrap().count(), 0);
}

#[test]
fn bench_devices_per_device_gives_the_bytes_per_message_on_few_queues() {
    let dir = tempfile::tempdir().unwrap();
    let stdout = common::run_bench(
        &[
            "bench",
            "devices",
            "--devices",
            "48",
            "--per-device",
            "3",
            "--drain",
            "16",
        ],
        dir.path(),
    );
    assert!(
        stdout
            .contains("mqgate bench devices: 48 devices, 3 persistent messages of 256 bytes each"),
        "{stdout}"
    );
    // 48 devices x 3 messages, restarted with all 144 queued; the drain
    // takes one message from each of 16 devices per client count.
    for row in [
        "| startup with 144 queued messages, ms",
        "| pulls+acks/s, 16 client(s), 16 devices |",
        "| bytes per queued message on 48 queues, after the fill ((RSS after fill - fresh) / messages) |",
        "| bytes per queued message on 48 queues, after the restart |",
    ] {
        assert!(stdout.contains(row), "{row} missing:\n{stdout}");
    }
}

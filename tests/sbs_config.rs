//! `messageq:` in the YAML configuration and `mqgate check-config`: a good
//! group initialization file is accepted, a bad one is reported with its
//! file, line and column, and what mqgate does not implement (the OpenVMS
//! Ethernet multicast service of Listing 3-3, `%MRS`) is refused naming the
//! line — BEA MessageQ 5.0 Programmer's Guide, "Broadcasting Messages"
//! (Listings 3-1 to 3-3; ENABLE_SBS "default value ... is YES"); group
//! numbers 1 to 32000 and the refusals are mqgate's (docs/messageq.md).

use std::path::Path;
use std::process::Command;

const BIN: &str = env!("CARGO_BIN_EXE_mqgate");

/// Runs `mqgate check-config` on a config for group `group` with init file
/// `init`: (exit code, stdout, stderr, init file path).
fn check(dir: &Path, group: &str, init: &str) -> (i32, String, String, String) {
    check_bytes(dir, group, init.as_bytes())
}

/// [`check`] with the init file's bytes as given.
fn check_bytes(dir: &Path, group: &str, init: &[u8]) -> (i32, String, String, String) {
    let init_path = dir.join("group.init");
    std::fs::write(&init_path, init).unwrap();
    let cfg = dir.join("cfg.yaml");
    std::fs::write(
        &cfg,
        format!(
            "queue_manager:\n  name: QM1\nmessageq:\n  group: {group}\n  init_file: {}\n",
            init_path.display()
        ),
    )
    .unwrap();
    let out = Command::new(BIN)
        .arg("check-config")
        .arg(&cfg)
        .output()
        .unwrap();
    (
        out.status.code().unwrap_or(-1),
        String::from_utf8_lossy(&out.stdout).into_owned(),
        String::from_utf8_lossy(&out.stderr).into_owned(),
        init_path.display().to_string(),
    )
}

const GOOD: &str = "\
%PROFILE
ENABLE_SBS YES ! the default
%EOS
%QCT
!Name   Num Byte  Msg Enbl UCB Type Owner Conf Perm Scope Sec
FEED_IN  1  64000 100 ALL  .   .    0     .    Y    G     N
%EOS
%GNT
!
! Name Group.Queue Scope
------------------- ----------- -----
Alarm_events 0.5110 G
Operator_events 0.4810 L
!
%EOS
";

#[test]
fn a_good_group_initialization_file_is_accepted() {
    let dir = tempfile::tempdir().unwrap();
    let (code, out, err, _) = check(dir.path(), "10", GOOD);
    assert_eq!(code, 0, "{err}");
    // FEED_IN, its alias PAMS.10.1 (the name other groups send to,
    // docs/messageq.md "Between groups") and PAMS.10.99, besides the
    // dead-letter and transmission queues the queue manager adds itself.
    assert!(
        out.contains("3 queue definitions, MessageQ group 10, SBS server on"),
        "{out}"
    );
    let off = GOOD.replace("ENABLE_SBS YES", "ENABLE_SBS NO");
    let (code, out, _, _) = check(dir.path(), "10", &off);
    assert_eq!(code, 0);
    assert!(
        out.contains("2 queue definitions, MessageQ group 10, SBS server off"),
        "{out}"
    );
}

#[test]
fn init_file_errors_name_file_line_and_column() {
    let dir = tempfile::tempdir().unwrap();
    // Listing 3-3's Ethernet service: refused at its protocol column.
    let eth = "%SBS\nHEARTBEAT 1000\nCOMM_SERVICE 0 DG/ETH ! Ethernet\nEND_COMM_SERVICE\n%EOS\n";
    let (code, _, err, init) = check(dir.path(), "10", eth);
    assert_eq!(code, 1);
    assert!(
        err.contains(&format!(
            "{init}:3:16: COMM_SERVICE DG/ETH is not supported"
        )),
        "{err}"
    );
    assert!(err.contains("(-282 PAMS__BADINITFILE)"), "{err}");
    let (code, _, err, init) = check(dir.path(), "10", "%MRS\n%EOS\n");
    assert_eq!(code, 1);
    assert!(
        err.contains(&format!("{init}:1:1: section %MRS is not supported")),
        "{err}"
    );
    let (code, _, err, init) = check(dir.path(), "10", "%QCT\nQ1 x . . . . . . . Y G N\n%EOS\n");
    assert_eq!(code, 1);
    assert!(
        err.contains(&format!("{init}:2:4: queue number \"x\"")),
        "{err}"
    );
    // A %QCT name that is no MQ queue name, and a queue numbered like a MOT.
    let (code, _, err, init) = check(
        dir.path(),
        "10",
        "%QCT\nBAD*Q 1 . . . . . . . Y G N\nMOTQ 4100 . . . . . . . Y G N\n%EOS\n",
    );
    assert_eq!(code, 1);
    assert!(
        err.contains(&format!("{init}:2:1: %QCT queue \"BAD*Q\"")),
        "{err}"
    );
    assert!(
        err.contains(&format!("{init}:3:1: %QCT queue MOTQ has number 4100")),
        "{err}"
    );
    // An init file that does not exist.
    let cfg = dir.path().join("missing.yaml");
    std::fs::write(
        &cfg,
        "messageq:\n  group: 10\n  init_file: /nonexistent/group.init\n",
    )
    .unwrap();
    let out = Command::new(BIN)
        .arg("check-config")
        .arg(&cfg)
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(1));
    assert!(
        String::from_utf8_lossy(&out.stderr)
            .contains("/nonexistent/group.init: cannot read the group initialization file")
    );
}

#[test]
fn the_group_number_is_checked_with_its_position() {
    let dir = tempfile::tempdir().unwrap();
    for bad in ["0", "32001"] {
        let (code, _, err, _) = check(dir.path(), bad, GOOD);
        assert_eq!(code, 1, "group {bad}");
        assert!(
            err.contains(&format!(
                "cfg.yaml:4:10: messageq.group: {bad} is not a MessageQ group number: groups are 1 to 32000"
            )),
            "{err}"
        );
    }
    // An unknown key of the section is refused too.
    let cfg = dir.path().join("unknown.yaml");
    std::fs::write(&cfg, "messageq:\n  group: 10\n  grup: 3\n").unwrap();
    let out = Command::new(BIN)
        .arg("check-config")
        .arg(&cfg)
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(1));
    assert!(String::from_utf8_lossy(&out.stderr).contains("unknown field `grup`"));
}

#[test]
fn every_init_file_error_names_its_place_and_pams_badinitfile() {
    // PAMS__BADINITFILE -282 (p_return.h V4.0-09) ends every line about the
    // init file; FILE:LINE:COLUMN starts it (docs/messageq.md
    // "Configuration").
    let dir = tempfile::tempdir().unwrap();
    // Not UTF-8: the Latin-1 byte 0xE9 at line 2, column 6 ("DÉPÔT" saved
    // in ISO 8859-1: D, then 0xC9 — the first byte that is not UTF-8).
    let (code, _, err, init) = check_bytes(
        dir.path(),
        "10",
        b"%QCT\nFEED_IN 1 . . . . . . . Y G N\n%EOS\n%GNT\nD\xC9P\xD4T 0.1 G\n%EOS\n",
    );
    assert_eq!(code, 1);
    assert!(
        err.contains(&format!(
            "{init}:5:2: byte 0xC9 is not UTF-8: a group initialization file is UTF-8 text (ASCII is) (-282 PAMS__BADINITFILE)"
        )),
        "{err}"
    );
    // The %QCT checks of the service: a MOT number, a quota of 0, an
    // mqgate name of another queue, a name IBM MQ reserves, queue 0.
    let (code, _, err, init) = check(
        dir.path(),
        "10",
        "%QCT\nMOTQ 4100 . . . . . . . Y G N\nZERO 5 . 0 MSG . . . . Y G N\nPAMS.20.6 6 . . . . . . . Y G N\nSYSTEM.Q 7 . . . . . . . Y G N\nNOQ 0 . . . . . . . Y G N\n%EOS\n",
    );
    assert_eq!(code, 1);
    let lines: Vec<&str> = err.lines().filter(|l| l.starts_with(&init)).collect();
    assert_eq!(lines.len(), 5, "{err}");
    for (line, at) in lines.iter().zip(["2:1", "3:1", "4:1", "5:1", "6:1"]) {
        assert!(
            line.starts_with(&format!("{init}:{at}: %QCT queue ")),
            "{line}"
        );
        assert!(line.ends_with(" (-282 PAMS__BADINITFILE)"), "{line}");
    }
    // A 1 MB %QCT name is quoted as errors quote values: its first 64
    // characters, `…` and its length (docs/http-api.md "Errors").
    let long = "Q".repeat(1_000_000);
    let (code, _, err, init) = check(
        dir.path(),
        "10",
        &format!("%QCT\n{long} 1 . . . . . . . Y G N\n%EOS\n"),
    );
    assert_eq!(code, 1);
    assert!(err.len() < 2000, "{} bytes of errors", err.len());
    assert!(
        err.contains(&format!(
            "{init}:2:1: %QCT queue \"{}\"… (1000000 bytes) cannot be an mqgate queue",
            "Q".repeat(64)
        )),
        "{err}"
    );
}

//! packaging/: the systemd unit passes `systemd-analyze verify`, the
//! Containerfile is made of Dockerfile instructions, and `mqgate man` and
//! `mqgate completions` produce pages and scripts for the commands there are.

mod common;

use common::BIN;
use std::path::Path;
use std::process::Command;

/// A prerequisite is missing: outside CI the test says SKIP and passes; in
/// CI (`CI` set, as `.ci/run` runs) it fails, since CI must have everything.
fn missing(what: &str) {
    assert!(
        std::env::var_os("CI").is_none(),
        "{what}, and CI is set: .ci/run installs every tool"
    );
    println!("SKIP: {what}");
}

#[test]
fn the_systemd_unit_verifies() {
    if Command::new("systemd-analyze")
        .arg("--version")
        .output()
        .is_err()
    {
        return missing("systemd-analyze is not installed (Debian package systemd)");
    }
    let unit = std::fs::read_to_string("packaging/mqgate.service").unwrap();
    assert!(unit.contains("ExecStart=/usr/bin/mqgate run "), "{unit}");
    // verify checks that ExecStart's program exists: point it at the binary
    // under test, the rest of the unit as shipped.
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("mqgate.service");
    std::fs::write(&path, unit.replace("/usr/bin/mqgate", BIN)).unwrap();
    // --man=no: the page mqgate(1) that Documentation= names is installed
    // with the binary (`mqgate man --dir`), not on this machine.
    let out = Command::new("systemd-analyze")
        .args(["verify", "--man=no"])
        .arg(&path)
        .output()
        .unwrap();
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(out.status.success(), "{err}");
    // verify exits 0 on warnings too (an unknown key is only logged): none
    // may name the unit.
    assert!(!err.contains("mqgate.service"), "{err}");

    // A unit with a misspelt key is caught the same way, so the check can fail.
    std::fs::write(
        &path,
        unit.replace("/usr/bin/mqgate", BIN)
            .replace("Restart=", "Restrat="),
    )
    .unwrap();
    let out = Command::new("systemd-analyze")
        .args(["verify", "--man=no"])
        .arg(&path)
        .output()
        .unwrap();
    let err = String::from_utf8_lossy(&out.stderr);
    // systemd 252: "Unknown key 'Restrat' in section [Service], ignoring."
    assert!(
        err.contains("Unknown key") && err.contains("'Restrat'"),
        "{err}"
    );
}

#[test]
fn the_containerfile_uses_dockerfile_instructions_only() {
    // The instructions of the Dockerfile reference ("Dockerfile reference",
    // docs.docker.com), which podman and buildah read too.
    const INSTRUCTIONS: &[&str] = &[
        "ADD",
        "ARG",
        "CMD",
        "COPY",
        "ENTRYPOINT",
        "ENV",
        "EXPOSE",
        "FROM",
        "HEALTHCHECK",
        "LABEL",
        "MAINTAINER",
        "ONBUILD",
        "RUN",
        "SHELL",
        "STOPSIGNAL",
        "USER",
        "VOLUME",
        "WORKDIR",
    ];
    let text = std::fs::read_to_string("packaging/Containerfile").unwrap();
    let mut continued = false;
    let mut seen = Vec::new();
    for (n, line) in text.lines().enumerate() {
        let t = line.trim();
        if t.is_empty() || t.starts_with('#') {
            continue;
        }
        if !continued {
            let word = t.split_whitespace().next().unwrap_or("");
            assert!(
                INSTRUCTIONS.contains(&word),
                "line {}: {word:?} is no instruction",
                n + 1
            );
            seen.push(word.to_string());
        }
        continued = t.ends_with('\\');
    }
    assert!(!continued, "the last instruction ends with a continuation");
    assert_eq!(seen.first().map(String::as_str), Some("FROM"));
    // The binary built in the first stage is the one the image runs.
    assert!(text.contains("cargo build --release --locked --bin mqgate"));
    assert!(text.contains("COPY --from=build /src/target/release/mqgate /usr/bin/mqgate"));
    assert!(
        Path::new("packaging/Containerfile.dockerignore").exists(),
        "the build context would carry target/"
    );
    // Its HTTP API listens on every address, which needs bearer tokens
    // (docs/security.md): the image reads a mounted configuration.
    assert!(text.contains(r#""--http", "0.0.0.0:8080""#));
    assert!(text.contains(r#""--config", "/etc/mqgate/gateway.yaml""#));
}

#[test]
fn man_pages_and_completions_are_produced() {
    let out = Command::new(BIN).arg("man").output().unwrap();
    assert!(out.status.success());
    let page = String::from_utf8(out.stdout).unwrap();
    // roff: the title line and the sections clap_mangen writes.
    assert!(page.contains(".TH mqgate 1"), "{page}");
    assert!(page.contains(".SH SYNOPSIS") && page.contains(".SH SUBCOMMANDS"));
    assert!(page.contains("mqgate\\-unload(1)") && page.contains("mqgate\\-mqsc(1)"));

    let dir = tempfile::tempdir().unwrap();
    let st = Command::new(BIN)
        .args(["man", "--dir"])
        .arg(dir.path())
        .status()
        .unwrap();
    assert!(st.success());
    let unload = std::fs::read_to_string(dir.path().join("mqgate-unload.1")).unwrap();
    assert!(unload.contains("\\-\\-remove"), "{unload}");
    assert!(dir.path().join("mqgate-mqsc-import.1").exists());
    if Command::new("man").arg("--version").output().is_ok() {
        // man(1) renders the page without complaint.
        let out = Command::new("man")
            .arg("-l")
            .arg(dir.path().join("mqgate-unload.1"))
            .env("MANWIDTH", "80")
            .env("LC_ALL", "C")
            .output()
            .unwrap();
        assert!(
            out.status.success(),
            "{}",
            String::from_utf8_lossy(&out.stderr)
        );
        assert!(String::from_utf8_lossy(&out.stdout).contains("--remove"));
    }

    for (shell, marker) in [
        ("bash", "complete -F _mqgate"),
        ("zsh", "#compdef mqgate"),
        ("fish", "complete -c mqgate"),
    ] {
        let out = Command::new(BIN)
            .args(["completions", shell])
            .output()
            .unwrap();
        assert!(out.status.success(), "{shell}");
        let script = String::from_utf8(out.stdout).unwrap();
        assert!(script.contains(marker), "{shell}: {marker} missing");
        // The unload command and its --remove option (fish writes `-l remove`).
        assert!(
            script.contains("unload") && script.contains("remove"),
            "{shell}"
        );
    }
    // bash reads the script without a syntax error.
    if Command::new("bash").arg("--version").output().is_ok() {
        let out = Command::new(BIN)
            .args(["completions", "bash"])
            .output()
            .unwrap();
        let f = dir.path().join("mqgate.bash");
        std::fs::write(&f, out.stdout).unwrap();
        let st = Command::new("bash").arg("-n").arg(&f).status().unwrap();
        assert!(st.success());
    }
    let bad = Command::new(BIN)
        .args(["completions", "tcsh"])
        .output()
        .unwrap();
    assert_eq!(bad.status.code(), Some(2));
}

//! Listener clashes on the command line (docs/config.md "Listen
//! addresses"): two listeners on one address are refused before anything is
//! bound, naming both entries; `mqgate run` exits 2 as for any configuration
//! error, `mqgate check-config` exits 1. Lines and columns are counted in
//! each test's YAML text (`  listen: ` is 10 characters: values start at
//! column 11); the defaults are those of docs/config.md.

mod common;

use common::BIN;
use std::process::{Command, Output};

fn mqgate(args: &[&str]) -> Output {
    Command::new(BIN).args(args).output().unwrap()
}

fn stderr(o: &Output) -> String {
    String::from_utf8_lossy(&o.stderr).into_owned()
}

#[test]
fn a_flag_on_the_default_address_of_the_other_listener_exits_2() {
    let o = mqgate(&["run", "--http", "127.0.0.1:1414"]);
    assert_eq!(o.status.code(), Some(2), "{}", stderr(&o));
    assert_eq!(
        stderr(&o),
        "mqgate run: --http (http.listen) and listener.listen (default) are both 127.0.0.1:1414\n"
    );
    let o = mqgate(&["run", "--listen", "127.0.0.1:8080"]);
    assert_eq!(o.status.code(), Some(2), "{}", stderr(&o));
    assert_eq!(
        stderr(&o),
        "mqgate run: http.listen (default) and --listen (listener.listen) are both 127.0.0.1:8080\n"
    );
}

#[test]
fn a_clash_in_the_file_names_both_lines_and_columns() {
    let dir = tempfile::tempdir().unwrap();
    let f = dir.path().join("clash.yaml");
    std::fs::write(
        &f,
        "# two listeners, one port\nhttp:\n  listen: 127.0.0.1:1414\n  lease_ms: 1000\n  max_wait_ms: 2000\nlistener:\n  listen: 127.0.0.1:1414\n",
    )
    .unwrap();
    let name = f.display().to_string();
    let line = format!(
        "{name}:7:11: http.listen (line 3, column 11) and listener.listen (line 7, column 11) are both 127.0.0.1:1414"
    );
    let o = mqgate(&["run", "--config", &name]);
    assert_eq!(o.status.code(), Some(2), "{}", stderr(&o));
    assert_eq!(stderr(&o), format!("{line}\n"));
    let o = mqgate(&["check-config", &name]);
    assert_eq!(o.status.code(), Some(1), "{}", stderr(&o));
    assert_eq!(stderr(&o), format!("{line}\n{name}: 1 error(s)\n"));
}

#[test]
fn a_flag_on_the_address_of_a_file_entry_names_the_flag_and_the_place() {
    let dir = tempfile::tempdir().unwrap();
    let f = dir.path().join("gw.yaml");
    std::fs::write(&f, "listener:\n  listen: 127.0.0.1:9414\n").unwrap();
    let name = f.display().to_string();
    let o = mqgate(&["run", "--config", &name, "--http", "127.0.0.1:9414"]);
    assert_eq!(o.status.code(), Some(2), "{}", stderr(&o));
    assert_eq!(
        stderr(&o),
        format!(
            "{name}:2:11: --http (http.listen) and listener.listen (line 2, column 11) are both 127.0.0.1:9414\n"
        )
    );
    // The same address on the unspecified address (every interface) clashes too.
    let o = mqgate(&["run", "--config", &name, "--http", "0.0.0.0:9414"]);
    assert_eq!(o.status.code(), Some(2), "{}", stderr(&o));
    assert_eq!(
        stderr(&o),
        format!(
            "{name}:2:11: --http (http.listen) is 0.0.0.0:9414 and listener.listen (line 2, column 11) is 127.0.0.1:9414: both take port 9414 on the same addresses\n"
        )
    );
}

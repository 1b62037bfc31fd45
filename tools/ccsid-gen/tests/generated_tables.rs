//! docs/ccsid.md: the generated Rust (and the mixed EBCDIC blob) is checked in,
//! and a test regenerates and diffs it when the tool (ICU uconv) is present.

use mqgate_ccsid_gen::{dbcs, list, oracle::Tool, render};

#[test]
fn checked_in_tables_match_a_fresh_generation() {
    if !Tool::Uconv.available() {
        missing("uconv not installed (apt-get install icu-devtools)");
        return;
    }
    let path = concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/../../codecs/src/ccsid/tables.rs"
    );
    let checked_in = std::fs::read_to_string(path).unwrap();
    let fresh = render::generate(list::SBCS).unwrap();
    if fresh != checked_in {
        let line = fresh
            .lines()
            .zip(checked_in.lines())
            .position(|(a, b)| a != b)
            .map_or(fresh.lines().count().min(checked_in.lines().count()), |i| i);
        panic!(
            "codecs/src/ccsid/tables.rs differs from a fresh generation at line {}: \
             run `cargo run -p mqgate-ccsid-gen`",
            line + 1
        );
    }
}

#[test]
fn checked_in_mixed_ebcdic_tables_match_a_fresh_generation() {
    if !Tool::Uconv.available() {
        missing("uconv not installed (apt-get install icu-devtools)");
        return;
    }
    let dir = concat!(env!("CARGO_MANIFEST_DIR"), "/../../codecs/src/ccsid");
    let rust = std::fs::read_to_string(format!("{dir}/dbcs_tables.rs")).unwrap();
    let blob = std::fs::read(format!("{dir}/dbcs_tables.bin")).unwrap();
    let fresh = dbcs::render::generate(dbcs::list::DBCS).unwrap();
    if let Some(line) = fresh
        .rust
        .lines()
        .zip(rust.lines())
        .position(|(a, b)| a != b)
    {
        panic!(
            "codecs/src/ccsid/dbcs_tables.rs differs from a fresh generation at line {}: \
             run `cargo run -p mqgate-ccsid-gen`",
            line + 1
        );
    }
    assert_eq!(
        fresh.rust, rust,
        "dbcs_tables.rs: run `cargo run -p mqgate-ccsid-gen`"
    );
    assert!(
        fresh.blob == blob,
        "codecs/src/ccsid/dbcs_tables.bin ({} bytes) differs from a fresh generation ({} bytes): \
         run `cargo run -p mqgate-ccsid-gen`",
        blob.len(),
        fresh.blob.len()
    );
}

/// A prerequisite is missing: outside CI the test says SKIP and passes; in
/// CI (`CI` set, as `.ci/run` runs) it fails, since CI must have everything.
fn missing(what: &str) {
    assert!(
        std::env::var_os("CI").is_none(),
        "{what}, and CI is set: .ci/run installs every tool and clones ../shared beside the repository"
    );
    println!("SKIP: {what}");
}

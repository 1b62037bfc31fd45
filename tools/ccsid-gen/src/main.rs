//! Writes codecs/src/ccsid/tables.rs from ICU `uconv` (package icu-devtools).
//!
//! Usage: `cargo run -p mqgate-ccsid-gen [-- OUTPUT]`; OUTPUT defaults to the
//! checked-in file.

use mqgate_ccsid_gen::{list, oracle::Tool, render};
use std::process::ExitCode;

fn main() -> ExitCode {
    let path = std::env::args().nth(1).unwrap_or_else(|| {
        concat!(
            env!("CARGO_MANIFEST_DIR"),
            "/../../codecs/src/ccsid/tables.rs"
        )
        .to_string()
    });
    if !Tool::Uconv.available() {
        eprintln!("uconv not found: apt-get install icu-devtools");
        return ExitCode::FAILURE;
    }
    match render::generate(list::SBCS) {
        Ok(text) => match std::fs::write(&path, text) {
            Ok(()) => {
                eprintln!("wrote {path}");
                ExitCode::SUCCESS
            }
            Err(e) => {
                eprintln!("cannot write {path}: {e}");
                ExitCode::FAILURE
            }
        },
        Err(e) => {
            eprintln!("generation failed: {e}");
            ExitCode::FAILURE
        }
    }
}

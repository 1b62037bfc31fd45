//! Writes the generated CCSID tables from ICU `uconv` (package icu-devtools):
//! `tables.rs` (single-byte sets) and `dbcs_tables.rs` + `dbcs_tables.bin`
//! (mixed single/double-byte EBCDIC).
//!
//! Usage: `cargo run -p mqgate-ccsid-gen [-- DIR]`; DIR defaults to the
//! checked-in `codecs/src/ccsid`.

use mqgate_ccsid_gen::{dbcs, list, oracle::Tool, render};
use std::process::ExitCode;

fn write(path: &str, data: &[u8]) -> bool {
    match std::fs::write(path, data) {
        Ok(()) => {
            eprintln!("wrote {path} ({} bytes)", data.len());
            true
        }
        Err(e) => {
            eprintln!("cannot write {path}: {e}");
            false
        }
    }
}

fn main() -> ExitCode {
    let dir = std::env::args().nth(1).unwrap_or_else(|| {
        concat!(env!("CARGO_MANIFEST_DIR"), "/../../codecs/src/ccsid").to_string()
    });
    if !Tool::Uconv.available() {
        eprintln!("uconv not found: apt-get install icu-devtools");
        return ExitCode::FAILURE;
    }
    let sbcs = match render::generate(list::SBCS) {
        Ok(text) => text,
        Err(e) => {
            eprintln!("single-byte generation failed: {e}");
            return ExitCode::FAILURE;
        }
    };
    let mixed = match dbcs::render::generate(dbcs::list::DBCS) {
        Ok(g) => g,
        Err(e) => {
            eprintln!("mixed EBCDIC generation failed: {e}");
            return ExitCode::FAILURE;
        }
    };
    let ok = write(&format!("{dir}/tables.rs"), sbcs.as_bytes())
        && write(&format!("{dir}/dbcs_tables.rs"), mixed.rust.as_bytes())
        && write(&format!("{dir}/dbcs_tables.bin"), &mixed.blob);
    if ok {
        ExitCode::SUCCESS
    } else {
        ExitCode::FAILURE
    }
}

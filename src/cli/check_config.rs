//! `mqgate check-config FILE`: validates a configuration file.

use crate::config::Config;
use std::path::PathBuf;
use std::process::ExitCode;

/// Prints `FILE: OK`, or every error as `FILE:LINE:COLUMN: message` on stderr
/// and exits 1.
pub fn run(file: PathBuf) -> ExitCode {
    match Config::load(&file) {
        Ok(c) => {
            println!(
                "{}: OK (queue manager {}, {} queue definitions)",
                file.display(),
                c.queue_manager.name,
                c.queues.len()
            );
            ExitCode::SUCCESS
        }
        Err(e) => {
            eprintln!("{e}");
            eprintln!("{}: {} error(s)", file.display(), e.errors.len());
            ExitCode::FAILURE
        }
    }
}

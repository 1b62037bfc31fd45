//! `mqgate check-config FILE`: validates a configuration file.

use crate::config::Config;
use std::path::PathBuf;
use std::process::ExitCode;

/// Prints `FILE: OK`, or every error as `FILE:LINE:COLUMN: message` on stderr
/// and exits 1.
pub fn run(file: PathBuf) -> ExitCode {
    match Config::load(&file) {
        Ok(mut c) => {
            if let Err(errors) = crate::tedg::load_from_config(&mut c) {
                for e in &errors {
                    eprintln!("{e}");
                }
                eprintln!("{}: {} error(s)", file.display(), errors.len());
                return ExitCode::FAILURE;
            }
            let line = format!(
                "{}: OK (queue manager {}, {} queue definitions)",
                file.display(),
                c.queue_manager.name,
                c.queues.len()
            );
            super::out::line_or_exit("check-config", &line).unwrap_or(ExitCode::SUCCESS)
        }
        Err(e) => {
            eprintln!("{e}");
            eprintln!("{}: {} error(s)", file.display(), e.errors.len());
            ExitCode::FAILURE
        }
    }
}

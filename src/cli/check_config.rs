//! `mqgate check-config FILE`: validates a configuration file.

use crate::config::Config;
use std::path::PathBuf;
use std::process::ExitCode;

/// Prints `FILE: OK`, or every error as `FILE:LINE:COLUMN: message` on stderr
/// and exits 1. The Tuxedo DMCONFIG and the MessageQ group initialization
/// file the configuration names are read and checked too (their errors name
/// their own file, line and column).
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
            let messageq = match crate::sbs::load_from_config(&mut c) {
                Ok(m) => m,
                Err(errors) => {
                    for e in &errors {
                        eprintln!("{e}");
                    }
                    eprintln!("{}: {} error(s)", file.display(), errors.len());
                    return ExitCode::FAILURE;
                }
            };
            let mut line = format!(
                "{}: OK (queue manager {}, {} queue definitions",
                file.display(),
                c.queue_manager.name,
                c.queues.len()
            );
            if let Some(m) = &messageq {
                line.push_str(&format!(
                    ", MessageQ group {}, SBS server {}",
                    m.queues.group(),
                    if m.enable_sbs { "on" } else { "off" }
                ));
            }
            line.push(')');
            super::out::line_or_exit("check-config", &line).unwrap_or(ExitCode::SUCCESS)
        }
        Err(e) => {
            eprintln!("{e}");
            eprintln!("{}: {} error(s)", file.display(), e.errors.len());
            ExitCode::FAILURE
        }
    }
}

//! `mqgate check-config FILE`: validates a configuration file.

use crate::gateway::check::{Checked, check_file};
use std::path::PathBuf;
use std::process::ExitCode;

/// Prints `FILE: OK`, or every error as `FILE:LINE:COLUMN: message` on stderr
/// and exits 1. The Tuxedo DMCONFIG and the MessageQ group initialization
/// file the configuration names are read and checked too (their errors name
/// their own file, line and column), the `fault_tolerance` roles against
/// them (placed in the configuration file), `mqtt.password_file` as
/// `run` reads it (docs/mqtt.md "Authentication"), and
/// `security.tokens_file` (docs/security.md "Tokens"), and the PEM files of
/// every `tls:` setting: readable, PEM, the key the certificate's
/// (docs/security.md "TLS"). A configuration reload runs the same check
/// ([`crate::gateway::check`]).
pub fn run(file: PathBuf) -> ExitCode {
    let Checked {
        config: c,
        messageq,
        ..
    } = match check_file(&file) {
        Ok(checked) => checked,
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
    if let Some(ft) = &c.fault_tolerance {
        line.push_str(&format!(
            ", fault tolerance group {} weight {}",
            ft.group, ft.weight
        ));
    }
    line.push(')');
    super::out::line_or_exit("check-config", &line).unwrap_or(ExitCode::SUCCESS)
}

//! `mqgate check-config FILE`: validates a configuration file.

use crate::config::Config;
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
/// (docs/security.md "TLS").
pub fn run(file: PathBuf) -> ExitCode {
    match Config::load(&file) {
        Ok(mut c) => {
            let tedg = match crate::tedg::load_from_config(&mut c) {
                Ok(t) => t,
                Err(errors) => {
                    for e in &errors {
                        eprintln!("{e}");
                    }
                    eprintln!("{}: {} error(s)", file.display(), errors.len());
                    return ExitCode::FAILURE;
                }
            };
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
            if let Some(ft) = &c.fault_tolerance {
                let problems = crate::gateway::ft::config::loaded_problems(
                    ft,
                    messageq.as_ref(),
                    tedg.as_ref(),
                )
                .into_iter()
                .map(|(path, message)| (format!("fault_tolerance.{path}"), message))
                .collect::<Vec<_>>();
                if !problems.is_empty() {
                    let e = crate::config::ConfigErrors::placed(&file, problems);
                    eprintln!("{e}");
                    eprintln!("{}: {} error(s)", file.display(), e.errors.len());
                    return ExitCode::FAILURE;
                }
            }
            if let Some(p) = &c.mqtt.password_file
                && let Err(e) = crate::mqtt::auth::Passwords::load(p)
            {
                eprintln!("{e}");
                eprintln!("{}: 1 error(s)", file.display());
                return ExitCode::FAILURE;
            }
            let tls = c.tls_file_problems();
            if !tls.is_empty() {
                let e = crate::config::ConfigErrors::placed(&file, tls);
                eprintln!("{e}");
                eprintln!("{}: {} error(s)", file.display(), e.errors.len());
                return ExitCode::FAILURE;
            }
            if let Some(p) = &c.security.tokens_file
                && let Err(e) = crate::security::tokens::load_file(p)
            {
                eprintln!("{e}");
                eprintln!("{}: 1 error(s)", file.display());
                return ExitCode::FAILURE;
            }
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
        Err(e) => {
            eprintln!("{e}");
            eprintln!("{}: {} error(s)", file.display(), e.errors.len());
            ExitCode::FAILURE
        }
    }
}

//! The whole check of a configuration file, the one `mqgate check-config`
//! runs and a configuration reload runs before applying anything
//! (docs/operations.md "Reloading the configuration"): the YAML and its
//! validation ([`Config::load`]), then the files it names — the Tuxedo
//! DMCONFIG, the MessageQ group initialization file, the
//! `fault_tolerance` roles against them, `mqtt.password_file`, the PEM
//! files of every `tls:` setting and `security.tokens_file` — each error
//! with its file, line and column.

use crate::config::{Config, ConfigErrors};
use std::path::Path;

/// A configuration that passed [`check_file`], with what was loaded from
/// the files it names.
pub struct Checked {
    /// The configuration, the RTQ queues of the DMCONFIG and the queues of
    /// the group initialization file added to `queues`.
    pub config: Config,
    /// The Tuxedo DMCONFIG, when `dmconfig` is set.
    pub tedg: Option<crate::tedg::Loaded>,
    /// The MessageQ group, when `messageq` is set.
    pub messageq: Option<crate::sbs::Loaded>,
}

/// Reads and checks `file`. Errors: every problem found by the first step
/// that failed, one line each, `FILE:LINE:COLUMN: message` (a problem
/// without a place in the file: `FILE: message`).
pub fn check_file(file: &Path) -> Result<Checked, Vec<String>> {
    let config = Config::load(file).map_err(|e| lines(&e))?;
    check_loaded(file, config)
}

/// Checks the files `config` (read from `file`) names, as [`check_file`]
/// does after reading it.
pub fn check_loaded(file: &Path, mut config: Config) -> Result<Checked, Vec<String>> {
    let tedg = crate::tedg::load_from_config(&mut config)?;
    let messageq = crate::sbs::load_from_config(&mut config)?;
    if let Some(ft) = &config.fault_tolerance {
        let problems = super::ft::config::loaded_problems(ft, messageq.as_ref(), tedg.as_ref())
            .into_iter()
            .map(|(path, message)| (format!("fault_tolerance.{path}"), message))
            .collect::<Vec<_>>();
        if !problems.is_empty() {
            return Err(lines(&ConfigErrors::placed(file, problems)));
        }
    }
    if let Some(p) = &config.mqtt.password_file
        && let Err(e) = crate::mqtt::auth::Passwords::load(p)
    {
        return Err(vec![e]);
    }
    let tls = config.tls_file_problems();
    if !tls.is_empty() {
        return Err(lines(&ConfigErrors::placed(file, tls)));
    }
    if let Some(p) = &config.security.tokens_file
        && let Err(e) = crate::security::tokens::load_file(p)
    {
        return Err(vec![e]);
    }
    Ok(Checked {
        config,
        tedg,
        messageq,
    })
}

/// One line per error of `e`, as it prints.
fn lines(e: &ConfigErrors) -> Vec<String> {
    e.to_string().lines().map(str::to_string).collect()
}

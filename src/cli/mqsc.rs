//! `mqgate mqsc import` / `mqgate mqsc export`: MQSC definitions (runmqsc
//! scripts, dmpmqcfg output) to and from the YAML configuration
//! (docs/operations.md "mqgate mqsc").

use crate::config::Config;
use crate::mqsc::Note;
use clap::Subcommand;
use std::io::Read;
use std::path::PathBuf;
use std::process::ExitCode;

/// The `mqsc` subcommands.
#[derive(Subcommand, Debug)]
pub enum MqscCommand {
    /// Convert an MQSC script (runmqsc input, dmpmqcfg output) to YAML on stdout; what has no mqgate equivalent is listed on stderr with its line.
    #[command(
        after_help = "Exit status: 0 converted, 1 a syntax error, a value mqgate cannot take, YAML that check-config refuses, or (with --strict) anything not imported."
    )]
    Import {
        /// The MQSC file; `-` reads stdin.
        file: PathBuf,
        /// Exit 1 when any command or attribute was not imported.
        #[arg(long)]
        strict: bool,
        /// The PEM file of the queue manager's certificate chain, for the
        /// `tls` of channels with SSLCIPH (IBM MQ keeps it in the key
        /// repository, SSLKEYR, not in the script).
        #[arg(long, value_name = "FILE")]
        tls_cert: Option<PathBuf>,
        /// The PEM file of that certificate's private key.
        #[arg(long, value_name = "FILE")]
        tls_key: Option<PathBuf>,
        /// The PEM file of the CA certificates peers' certificates must
        /// chain to.
        #[arg(long, value_name = "FILE")]
        tls_ca: Option<PathBuf>,
    },
    /// Write the queues and channels of a configuration as MQSC DEFINE commands on stdout; settings with no MQSC counterpart are listed on stderr.
    #[command(after_help = "Exit status: 0 written, 1 a configuration with errors.")]
    Export {
        /// The YAML configuration; without it the embedded default.
        #[arg(long)]
        config: Option<PathBuf>,
    },
}

/// Runs an `mqsc` subcommand.
pub fn run(cmd: MqscCommand) -> ExitCode {
    match cmd {
        MqscCommand::Import {
            file,
            strict,
            tls_cert,
            tls_key,
            tls_ca,
        } => {
            let certs = crate::mqsc::tls::Certificates {
                cert: tls_cert,
                key: tls_key,
                ca: tls_ca,
            };
            import(&file, strict, &certs)
        }
        MqscCommand::Export { config } => export(config),
    }
}

fn import(
    file: &std::path::Path,
    strict: bool,
    certs: &crate::mqsc::tls::Certificates,
) -> ExitCode {
    let name = file.display().to_string();
    let bytes = if file.as_os_str() == "-" {
        let mut b = Vec::new();
        std::io::stdin().read_to_end(&mut b).map(|_| b)
    } else {
        std::fs::read(file)
    };
    let bytes = match bytes {
        Ok(b) => b,
        Err(e) => {
            eprintln!("mqgate mqsc import: cannot read {name}: {e}");
            return ExitCode::FAILURE;
        }
    };
    let text = match crate::mqsc::script_text(bytes) {
        Ok(t) => t,
        Err(e) => {
            eprintln!("mqgate mqsc import: {name}: {e}");
            return ExitCode::FAILURE;
        }
    };
    let imported = match crate::mqsc::import::import_with(&text, certs) {
        Ok(i) => i,
        Err(e) => {
            eprintln!("mqgate mqsc import: {name}: {e}");
            return ExitCode::FAILURE;
        }
    };
    report("import", &name, &imported.notes);
    let yaml = match serde_yaml::to_string(&imported.yaml) {
        Ok(y) => format!("# Converted from {name} by mqgate mqsc import.\n{y}"),
        Err(e) => {
            eprintln!("mqgate mqsc import: cannot write YAML: {e}");
            return ExitCode::FAILURE;
        }
    };
    let mut failed =
        imported.notes.iter().any(|n| n.invalid) || (strict && !imported.notes.is_empty());
    if let Err(errors) = Config::from_yaml(&yaml, "(converted YAML)") {
        eprintln!("mqgate mqsc import: the converted YAML does not pass check-config:\n{errors}");
        failed = true;
    }
    if let Some(exit) = super::out::write_or_exit("mqsc import", yaml.as_bytes()) {
        return exit;
    }
    if failed {
        ExitCode::FAILURE
    } else {
        ExitCode::SUCCESS
    }
}

fn export(config: Option<PathBuf>) -> ExitCode {
    let loaded = match &config {
        Some(p) => Config::load(p),
        None => Ok(Config::default()),
    };
    let c = match loaded {
        Ok(c) => c,
        Err(e) => {
            // One error a line, each led by the command as its other lines are.
            for line in e.to_string().lines() {
                eprintln!("mqgate mqsc export: {line}");
            }
            return ExitCode::FAILURE;
        }
    };
    let name = config.map_or("(default configuration)".to_string(), |p| {
        p.display().to_string()
    });
    let exported = crate::mqsc::export::export(&c);
    report("export", &name, &exported.notes);
    super::out::write_or_exit("mqsc export", exported.script.as_bytes())
        .unwrap_or(ExitCode::SUCCESS)
}

/// Each note on stderr: `mqgate mqsc import: FILE:LINE: subject: message`.
fn report(cmd: &str, file: &str, notes: &[Note]) {
    for n in notes {
        if n.line > 0 {
            eprintln!(
                "mqgate mqsc {cmd}: {file}:{}: {}: {}",
                n.line, n.subject, n.message
            );
        } else {
            eprintln!("mqgate mqsc {cmd}: {file}: {}: {}", n.subject, n.message);
        }
    }
}

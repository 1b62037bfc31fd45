//! `mqgate completions SHELL` and `mqgate man`: shell completion scripts and
//! manual pages generated from the command-line definitions themselves
//! (clap_complete, clap_mangen), so they always list the commands and
//! options this binary has (docs/operations.md).

use super::Cli;
use clap::{Args, CommandFactory};
use std::path::PathBuf;
use std::process::ExitCode;

/// Options of `mqgate completions`.
#[derive(Args, Debug)]
pub struct CompletionsArgs {
    /// The shell: bash, zsh, fish, elvish or powershell.
    pub shell: clap_complete::Shell,
}

/// Options of `mqgate man`.
#[derive(Args, Debug)]
pub struct ManArgs {
    /// Write mqgate.1 and a page per subcommand (mqgate-unload.1 ...) into
    /// this directory instead of mqgate.1 to stdout.
    #[arg(long)]
    pub dir: Option<PathBuf>,
}

/// Writes the completion script for `args.shell` to stdout.
pub fn completions(args: CompletionsArgs) -> ExitCode {
    let mut buf = Vec::new();
    clap_complete::generate(args.shell, &mut Cli::command(), "mqgate", &mut buf);
    super::out::write_or_exit("completions", &buf).unwrap_or(ExitCode::SUCCESS)
}

/// Writes the manual page mqgate(1) to stdout, or every page to `--dir`.
pub fn man(args: ManArgs) -> ExitCode {
    let cmd = Cli::command();
    match args.dir {
        Some(dir) => {
            let made =
                std::fs::create_dir_all(&dir).and_then(|()| clap_mangen::generate_to(cmd, &dir));
            match made {
                Ok(()) => ExitCode::SUCCESS,
                Err(e) => {
                    eprintln!("mqgate man: writing into {}: {e}", dir.display());
                    ExitCode::FAILURE
                }
            }
        }
        None => {
            let mut buf = Vec::new();
            if let Err(e) = clap_mangen::Man::new(cmd).render(&mut buf) {
                eprintln!("mqgate man: {e}");
                return ExitCode::FAILURE;
            }
            super::out::write_or_exit("man", &buf).unwrap_or(ExitCode::SUCCESS)
        }
    }
}

//! Command-line interface (clap). Each subcommand lives in its own module.

use clap::{Parser, Subcommand};
use std::process::ExitCode;

mod decode;

/// mqgate: a message gateway between IBM MQ, Tuxedo RTQ, RPC clients, MessageQ and Rendezvous.
#[derive(Parser, Debug)]
#[command(name = "mqgate", version, about)]
pub struct Cli {
    #[command(subcommand)]
    pub command: Command,
}

/// The subcommands.
#[derive(Subcommand, Debug)]
pub enum Command {
    /// Print the version and exit.
    Version,
    /// Print every MQ structure and field of a message, then its body (raw, hex or dmpmqmsg input).
    Decode(decode::DecodeArgs),
}

impl Cli {
    /// Runs the chosen subcommand; the exit code is the process status.
    pub fn run(self) -> ExitCode {
        match self.command {
            Command::Version => {
                println!("mqgate {}", env!("CARGO_PKG_VERSION"));
                ExitCode::SUCCESS
            }
            Command::Decode(args) => decode::run(args),
        }
    }
}

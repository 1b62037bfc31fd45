//! `mqgate`: the gateway service and its command-line tools.

use clap::Parser;

mod channel;
mod cli;
mod config;
mod http;
mod qmgr;
mod store;

fn main() -> std::process::ExitCode {
    cli::Cli::parse().run()
}

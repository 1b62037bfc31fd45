//! `mqgate`: the gateway service and its command-line tools.

use clap::Parser;

mod cli;
mod mqjson;

fn main() -> std::process::ExitCode {
    cli::Cli::parse().run()
}

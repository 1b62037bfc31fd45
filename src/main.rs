//! `mqgate`: the gateway service and its command-line tools.

use clap::Parser;

mod alloc_tuning;
mod channel;
mod cli;
mod config;
mod devices;
mod http;
mod mqi;
mod mqjson;
mod qmgr;
mod route;
mod rpc;
mod store;
mod tedg;

fn main() -> std::process::ExitCode {
    alloc_tuning::tune();
    cli::Cli::parse().run()
}

//! `mqgate`: the gateway service and its command-line tools (the library
//! `mqgate` does the work; this only tunes the allocator and parses the
//! command line).

use clap::Parser;

mod alloc_tuning;

fn main() -> std::process::ExitCode {
    alloc_tuning::tune();
    mqgate::cli::Cli::parse().run()
}

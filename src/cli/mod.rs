//! Command-line interface (clap). Each subcommand lives in its own module.

mod bench;
mod bench_channel;
#[cfg(feature = "nats")]
mod bench_nats;
mod browse;
mod check_config;
mod client;
mod get;
mod out;
mod put;
mod rtq;
mod run;
mod tpenqueue;

use clap::{Parser, Subcommand};
use std::process::ExitCode;

mod convert;
mod decode;
mod device_pull;
mod rpc;
mod send;

/// mqgate: a message gateway between IBM MQ, Tuxedo RTQ, RPC clients, MessageQ and Rendezvous.
#[derive(Parser, Debug)]
#[command(name = "mqgate", version, about)]
pub struct Cli {
    /// The subcommand to run.
    #[command(subcommand)]
    pub(crate) command: Command,
}

/// The subcommands.
#[derive(Subcommand, Debug)]
pub(crate) enum Command {
    /// Print the version and exit.
    Version,
    /// Print every MQ structure and field of a message, then its body (raw, hex or dmpmqmsg input).
    Decode(decode::DecodeArgs),
    /// Run the gateway (queue manager + HTTP API) until SIGINT/SIGTERM.
    Run(run::RunArgs),
    /// Check a configuration file; errors are shown with line and column.
    CheckConfig {
        /// The YAML file.
        file: std::path::PathBuf,
    },
    /// Put a message on a queue of a running gateway.
    Put(put::PutArgs),
    /// Get (and remove) a message from a running gateway; exit 3 when none came.
    Get(get::GetArgs),
    /// Browse a queue of a running gateway without removing messages.
    Browse(browse::BrowseArgs),
    /// Tuxedo tpenqueue through a running gateway; exit 1 on a Tuxedo error.
    Tpenqueue(tpenqueue::TpenqueueArgs),
    /// RTQ servers: take due requests from a running gateway.
    #[command(subcommand)]
    Rtq(rtq::RtqCommand),
    /// Benchmarks (results in docs/performance.md).
    #[command(subcommand)]
    Bench(bench::BenchKind),
    /// Convert stdin from one CCSID to another on stdout.
    Convert(convert::ConvertArgs),
    /// Call an IDL program through a running gateway's RPC bridge; prints the OUT parameters as JSON.
    Rpc(rpc::RpcArgs),
    /// Send transmission messages to a gateway's receiver channel.
    Send(send::SendArgs),
    /// Pull (and acknowledge) messages waiting for a device queue manager; exit 3 when none came.
    DevicePull(device_pull::DevicePullArgs),
}

impl Cli {
    /// Runs the chosen subcommand; the exit code is the process status.
    pub fn run(self) -> ExitCode {
        match self.command {
            Command::Version => {
                out::line_or_exit("version", concat!("mqgate ", env!("CARGO_PKG_VERSION")))
                    .unwrap_or(ExitCode::SUCCESS)
            }
            Command::Decode(args) => decode::run(args),
            Command::Run(args) => run::run(args),
            Command::CheckConfig { file } => check_config::run(file),
            Command::Put(args) => put::run(args),
            Command::Get(args) => get::run(args),
            Command::Browse(args) => browse::run(args),
            Command::Bench(kind) => bench::run(kind),
            Command::Convert(args) => convert::run(args),
            Command::Tpenqueue(args) => tpenqueue::run(args),
            Command::Rtq(cmd) => rtq::run(cmd),
            Command::Rpc(args) => rpc::run(args),
            Command::Send(args) => send::run(args),
            Command::DevicePull(args) => device_pull::run(args),
        }
    }
}

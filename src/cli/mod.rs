//! Command-line interface (clap). Each subcommand lives in its own module.

mod bench;
mod bench_channel;
mod bench_devices;
mod bench_dq;
mod bench_mqi;
mod bench_mqtt;
#[cfg(feature = "nats")]
mod bench_nats;
#[cfg(feature = "nats")]
mod bench_nats_match;
mod bench_rv;
mod bench_rv_cm;
mod bench_rv_match;
mod bench_sbs;
mod browse;
mod channel;
mod check_config;
mod client;
mod dq;
mod ft;
mod ft_child;
mod ft_run;
mod generated;
mod get;
mod load;
mod mqmd_wire;
mod mqsc;
mod out;
mod pams;
mod progress;
mod put;
mod rtq;
mod run;
mod rv;
mod rv_client;
mod rv_cm_client;
mod sbs;
mod sse;
mod tpenqueue;
mod unload;

use clap::{Parser, Subcommand};
use std::process::ExitCode;

/// The longest `--wait`, `--retry-ms` or `--drain-ms`, in ms: 2147483647, the
/// largest MQLONG (IBM MQ "WaitInterval (MQLONG)": a wait is a number of ms
/// in an MQLONG), about 24.8 days. A larger value is a usage error (exit 2)
/// rather than an overflow; the gateway refuses a `wait_ms` above its
/// `http.max_wait_ms` anyway (docs/http-api.md).
pub(crate) const MAX_MS: u64 = i32::MAX as u64;

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
    /// Write the messages of a queue of a running gateway to a dmpmqmsg file (optionally removing them).
    Unload(unload::UnloadArgs),
    /// Put the messages of a dmpmqmsg or qload file on a queue of a running gateway, all or none.
    Load(load::LoadArgs),
    /// MQSC definitions (runmqsc scripts, dmpmqcfg output) to and from the YAML configuration.
    #[command(subcommand)]
    Mqsc(mqsc::MqscCommand),
    /// Print a shell completion script (bash, zsh, fish, elvish, powershell).
    Completions(generated::CompletionsArgs),
    /// Print the manual page mqgate(1), or write every page into --dir.
    Man(generated::ManArgs),
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
    /// Channels of a running gateway: start a channel the undelivered rule stopped.
    #[command(subcommand)]
    Channel(channel::ChannelCommand),
    /// MessageQ PAMS calls through a running gateway (docs/messageq.md "PAMS API").
    #[command(subcommand)]
    Pams(pams::PamsCommand),
    /// MessageQ SBS requests to a running gateway's SBS server.
    #[command(subcommand)]
    Sbs(sbs::SbsCommand),
    /// Rendezvous: check subject names, publish, listen, request (docs/rendezvous.md).
    #[command(subcommand)]
    Rv(rv::RvCommand),
    /// Rendezvous fault tolerance groups: run a program as a member, monitor a group (docs/rendezvous.md).
    #[command(subcommand)]
    Ft(ft::FtCommand),
    /// Rendezvous distributed queues: run a worker or a scheduler (docs/rendezvous.md "Distributed queues").
    #[command(subcommand)]
    Dq(dq::DqCommand),
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
            Command::Unload(args) => unload::run(args),
            Command::Load(args) => load::run(args),
            Command::Mqsc(cmd) => mqsc::run(cmd),
            Command::Completions(args) => generated::completions(args),
            Command::Man(args) => generated::man(args),
            Command::Bench(kind) => bench::run(kind),
            Command::Convert(args) => convert::run(args),
            Command::Tpenqueue(args) => tpenqueue::run(args),
            Command::Rtq(cmd) => rtq::run(cmd),
            Command::Rpc(args) => rpc::run(args),
            Command::Send(args) => send::run(args),
            Command::DevicePull(args) => device_pull::run(args),
            Command::Channel(cmd) => channel::run(cmd),
            Command::Pams(cmd) => pams::run(cmd),
            Command::Sbs(cmd) => sbs::run(cmd),
            Command::Rv(cmd) => rv::run(cmd),
            Command::Ft(cmd) => ft::run(cmd),
            Command::Dq(cmd) => dq::run(cmd),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::Cli;
    use clap::Parser;

    /// `args` parsed: `Ok` or clap's error text (exit status 2 asserted).
    fn parse(args: &[&str]) -> Result<(), String> {
        let mut all = vec!["mqgate"];
        all.extend_from_slice(args);
        Cli::try_parse_from(all).map(|_| ()).map_err(|e| {
            assert_eq!(e.exit_code(), 2, "{e}");
            e.to_string()
        })
    }

    #[test]
    fn numeric_options_refuse_values_that_make_no_sense() {
        let send = ["send", "--to", "127.0.0.1:1414", "--channel", "C", "f"];
        let with = |base: &[&str], extra: &[&str]| -> Vec<String> {
            base.iter().chain(extra).map(|s| s.to_string()).collect()
        };
        let refused: Vec<(Vec<String>, &str)> = vec![
            // docs/channel-protocol.md "Batches": 1 to batch_size messages.
            (with(&send, &["--batch", "0"]), "--batch"),
            (with(&send, &["--batch", "-1"]), "--batch"),
            (with(&["get", "--queue", "Q"], &["--wait", "-1"]), "--wait"),
            // One past the HELLO batch_size field (u32).
            (with(&send, &["--batch", "4294967296"]), "--batch"),
            // One past the largest MQLONG 2147483647 (IBM MQ "WaitInterval").
            (with(&send, &["--retry-ms", "2147483648"]), "--retry-ms"),
            (
                with(&["run"], &["--drain-ms", "18446744073709551615"]),
                "--drain-ms",
            ),
            (
                with(&["get", "--queue", "Q"], &["--wait", "2147483648"]),
                "--wait",
            ),
            (
                with(&["bench", "queue"], &["--messages", "0"]),
                "--messages",
            ),
            // One past the default MAXMSGL 4194304 (docs/config.md).
            (with(&["bench", "queue"], &["--size", "4194305"]), "--size"),
            (with(&["bench", "channel"], &["--batch", "0"]), "--batch"),
            // IBM MQ "Batch size (BATCHSZ)": 1 through 9999.
            (
                with(&["bench", "channel"], &["--batch", "10000"]),
                "--batch",
            ),
            (
                with(&["bench", "channel"], &["--messages", "0"]),
                "--messages",
            ),
            // 4194304 - 428 (MQXQH) + 1.
            (
                with(&["bench", "channel"], &["--size", "4193877"]),
                "--size",
            ),
            // dmpmqmsg -dw: at least 10 bytes per X line (the qload source).
            (
                with(&["unload", "--queue", "Q"], &["--width", "9"]),
                "--width",
            ),
            // --remove needs a file to sync before the messages leave.
            (with(&["unload", "--queue", "Q"], &["--remove"]), "--file"),
            (with(&["completions"], &["tcsh"]), "tcsh"),
            (with(&["bench", "sbs"], &["--queues", "0"]), "--queues"),
            // Queue numbers 101-3100 stay below the MOTs (4000-6000).
            (with(&["bench", "sbs"], &["--queues", "3001"]), "--queues"),
            // The ten-rule registrations read 40 bytes; a static
            // pams_put_msg buffer holds at most 32767.
            (with(&["bench", "sbs"], &["--size", "39"]), "--size"),
            (with(&["bench", "sbs"], &["--size", "32768"]), "--size"),
            // bench rv --matching: its own limits (src/cli/bench_rv.rs).
            (
                with(&["bench", "rv", "--matching"], &["--subscriptions", "0"]),
                "--subscriptions",
            ),
            (
                with(
                    &["bench", "rv", "--matching"],
                    &["--reference-subscriptions", "1000001"],
                ),
                "--reference-subscriptions",
            ),
            (
                with(&["bench", "rv", "--matching"], &["--lookups", "10000001"]),
                "--lookups",
            ),
            (
                with(&["bench", "rv", "--matching"], &["--certified"]),
                "--certified",
            ),
        ];
        for (args, named) in refused {
            let args: Vec<&str> = args.iter().map(String::as_str).collect();
            let e = parse(&args).expect_err(&format!("{args:?} was accepted"));
            assert!(e.contains(named), "{args:?}: {e}");
        }
        // The limits themselves, and 0 where it means "none", are accepted.
        for args in [
            with(&send, &["--batch", "1", "--retry-ms", "0"]),
            with(
                &send,
                &["--batch", "4294967295", "--retry-ms", "2147483647"],
            ),
            with(&["run"], &["--drain-ms", "0"]),
            with(&["get", "--queue", "Q"], &["--wait", "0"]),
            with(&["get", "--queue", "Q"], &["--wait", "2147483647"]),
            with(&["bench", "queue"], &["--messages", "1", "--size", "0"]),
            with(&["bench", "queue"], &["--size", "4194304"]),
            with(
                &["bench", "channel"],
                &["--batch", "9999", "--size", "4193876"],
            ),
            with(&["bench", "sbs"], &["--queues", "3000", "--size", "40"]),
            with(&["bench", "sbs"], &["--queues", "1", "--size", "32767"]),
            with(
                &["bench", "rv", "--matching"],
                &[
                    "--subscriptions",
                    "10000000",
                    "--reference-subscriptions",
                    "1",
                    "--lookups",
                    "1",
                ],
            ),
        ] {
            let args: Vec<&str> = args.iter().map(String::as_str).collect();
            assert_eq!(parse(&args), Ok(()), "{args:?}");
        }
    }
}

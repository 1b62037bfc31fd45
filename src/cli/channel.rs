//! `mqgate channel start NAME`: starts a channel of a running gateway that
//! the undelivered rule stopped (`POST /v1/channels/{name}/start`,
//! docs/http-api.md "Channels"; IBM MQ "START CHANNEL").

use super::client::{DEFAULT_GATEWAY, Gateway, segment};
use super::out;
use clap::{Args, Subcommand};
use std::process::ExitCode;
use std::time::Duration;

/// `mqgate channel` subcommands.
#[derive(Subcommand, Debug)]
pub enum ChannelCommand {
    /// Start a receiver channel the undelivered rule stopped: it accepts senders again.
    Start(StartArgs),
}

/// Options of `mqgate channel start`.
#[derive(Args, Debug)]
#[command(
    after_help = "Exit status: 0 started, or not stopped (nothing changed); 1 MQ error from the gateway (2540: no channel of that name); 2 gateway unreachable."
)]
pub struct StartArgs {
    /// Channel name.
    pub name: String,
    /// Gateway base URL.
    #[arg(long, default_value = DEFAULT_GATEWAY)]
    pub gateway: String,
    /// Bearer token for a gateway that requires one (docs/security.md);
    /// default: the MQGATE_TOKEN environment variable.
    #[arg(long)]
    pub token: Option<String>,
}

/// Runs a `channel` subcommand.
pub fn run(cmd: ChannelCommand) -> ExitCode {
    match cmd {
        ChannelCommand::Start(args) => start(args),
    }
}

/// Starts the channel; prints what happened. Exit 0, 1 on an MQ error
/// (e.g. 2540 MQRC_UNKNOWN_CHANNEL_NAME), 2 when the gateway could not be reached.
fn start(args: StartArgs) -> ExitCode {
    let gw = Gateway::new(&args.gateway, Duration::from_secs(30)).with_token(args.token.as_deref());
    let req = gw
        .request(
            "POST",
            &format!("/v1/channels/{}/start", segment(&args.name)),
        )
        .set("Content-Type", "application/octet-stream");
    let v = match gw.call(req, Some(&b""[..])) {
        Ok(v) => v,
        Err(e) => {
            eprintln!("mqgate channel start: {e}");
            return e.exit_code();
        }
    };
    let state = v["status"]["state"].as_str().unwrap_or("unknown");
    let line = if v["started"] == true {
        format!(
            "channel {} started: state {state}, senders are accepted again",
            args.name
        )
    } else {
        format!(
            "channel {} was not stopped (state {state}); nothing changed",
            args.name
        )
    };
    out::line_or_exit("channel start", &line).unwrap_or(ExitCode::SUCCESS)
}

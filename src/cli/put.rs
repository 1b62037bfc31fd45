//! `mqgate put`: puts one message on a queue of a running gateway.

use super::client::{DEFAULT_GATEWAY, Gateway, segment};
use super::out;
use clap::Args;
use std::io::Read;
use std::path::PathBuf;
use std::process::ExitCode;
use std::time::Duration;

/// Options of `mqgate put`.
#[derive(Args, Debug)]
#[command(
    after_help = "Exit status: 0 put (or stdout closed), 1 MQ error from the gateway or unreadable input, 2 gateway unreachable."
)]
pub struct PutArgs {
    /// Queue name.
    #[arg(long)]
    pub queue: String,
    /// CorrelId, 48 hex characters.
    #[arg(long)]
    pub correl_id: Option<String>,
    /// Persistent message (default: the queue's DEFPSIST).
    #[arg(long)]
    pub persistent: bool,
    /// CodedCharSetId of the data (default: the queue manager's, 1208).
    #[arg(long)]
    pub ccsid: Option<i32>,
    /// Format name, e.g. MQSTR (default: blank, MQFMT_NONE).
    #[arg(long)]
    pub format: Option<String>,
    /// Priority 0-9 (default: the queue's DEFPRTY).
    #[arg(long)]
    pub priority: Option<i32>,
    /// Gateway base URL.
    #[arg(long, default_value = DEFAULT_GATEWAY)]
    pub gateway: String,
    /// Bearer token for a gateway that requires one (docs/security.md);
    /// default: the MQGATE_TOKEN environment variable.
    #[arg(long)]
    pub token: Option<String>,
    /// File with the message data; `-` or nothing reads stdin.
    pub file: Option<PathBuf>,
}

/// Puts the message and prints the gateway's answer (queue, MsgId, CorrelId).
pub fn run(args: PutArgs) -> ExitCode {
    let data = match &args.file {
        Some(p) if p.as_os_str() != "-" => {
            std::fs::read(p).map_err(|e| format!("cannot read {}: {e}", p.display()))
        }
        _ => {
            let mut buf = Vec::new();
            std::io::stdin()
                .read_to_end(&mut buf)
                .map(|_| buf)
                .map_err(|e| format!("cannot read stdin: {e}"))
        }
    };
    let data = match data {
        Ok(d) => d,
        Err(e) => {
            eprintln!("mqgate put: {e}");
            return ExitCode::FAILURE;
        }
    };
    let gw = Gateway::new(&args.gateway, Duration::from_secs(60)).with_token(args.token.as_deref());
    let path = format!("/v1/queues/{}/messages", segment(&args.queue));
    let mut req = gw
        .request("POST", &path)
        .set("Content-Type", "application/octet-stream");
    if let Some(c) = &args.correl_id {
        req = req.query("correl_id", c);
    }
    if args.persistent {
        req = req.query("persistent", "true");
    }
    if let Some(c) = args.ccsid {
        req = req.query("ccsid", &c.to_string());
    }
    if let Some(f) = &args.format {
        req = req.query("format", f);
    }
    if let Some(p) = args.priority {
        req = req.query("priority", &p.to_string());
    }
    match gw.call(req, Some(&data)) {
        Ok(v) => out::line_or_exit("put", &v.to_string()).unwrap_or(ExitCode::SUCCESS),
        Err(e) => {
            eprintln!("mqgate put: {e}");
            e.exit_code()
        }
    }
}

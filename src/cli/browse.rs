//! `mqgate browse`: lists the messages of a queue without removing them.

use super::client::{ClientError, DEFAULT_GATEWAY, Gateway, segment};
use super::out;
use base64::Engine;
use base64::engine::general_purpose::STANDARD as BASE64;
use clap::Args;
use serde_json::json;
use std::process::ExitCode;
use std::time::Duration;

/// Options of `mqgate browse`.
#[derive(Args, Debug)]
#[command(
    after_help = "Exit status: 0 done (or stdout closed), 1 MQ error from the gateway, 2 gateway unreachable."
)]
pub struct BrowseArgs {
    /// Queue name.
    #[arg(long)]
    pub queue: String,
    /// One `{"md": {...}, "data_base64": "..."}` per line instead of a summary.
    #[arg(long)]
    pub json: bool,
    /// Gateway base URL.
    #[arg(long, default_value = DEFAULT_GATEWAY)]
    pub gateway: String,
    /// Bearer token for a gateway that requires one (docs/security.md);
    /// default: the MQGATE_TOKEN environment variable.
    #[arg(long)]
    pub token: Option<String>,
}

/// Browses first, then next until the end (2033), one line per message.
/// Exit 0 (also when the reader of stdout closed the pipe), 1 on an MQ error,
/// 2 when the gateway could not be reached.
pub fn run(args: BrowseArgs) -> ExitCode {
    let gw = Gateway::new(&args.gateway, Duration::from_secs(30)).with_token(args.token.as_deref());
    let q = segment(&args.queue);
    let mut cursor: Option<String> = None;
    loop {
        let mut req = gw
            .request("GET", &format!("/v1/queues/{q}/messages/next"))
            .query("browse", "true");
        if let Some(c) = &cursor {
            req = req.query("cursor", c);
        }
        let msg = match gw.call(req, None) {
            Ok(v) => v,
            Err(ClientError::Mq { mqrc: 2033, .. }) => return ExitCode::SUCCESS,
            Err(e) => {
                eprintln!("mqgate browse: {e}");
                return e.exit_code();
            }
        };
        let md = &msg["md"];
        let line = if args.json {
            json!({"md": md, "data_base64": msg["data_base64"]}).to_string()
        } else {
            let len = BASE64
                .decode(msg["data_base64"].as_str().unwrap_or(""))
                .map_or(0, |d| d.len());
            format!(
                "MsgId={} CorrelId={} Priority={} Persistence={} BackoutCount={} Format={:?} Length={}",
                md["MsgId"].as_str().unwrap_or(""),
                md["CorrelId"].as_str().unwrap_or(""),
                md["Priority"],
                md["Persistence"],
                md["BackoutCount"],
                md["Format"].as_str().unwrap_or(""),
                len
            )
        };
        if let Some(exit) = out::line_or_exit("browse", &line) {
            return exit;
        }
        cursor = msg["cursor"].as_str().map(str::to_string);
        if cursor.is_none() {
            return ExitCode::SUCCESS;
        }
    }
}

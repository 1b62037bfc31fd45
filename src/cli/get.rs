//! `mqgate get`: gets one message (get + acknowledge) from a running gateway.

use super::client::{ClientError, DEFAULT_GATEWAY, Gateway, segment};
use super::out;
use base64::Engine;
use base64::engine::general_purpose::STANDARD as BASE64;
use clap::Args;
use serde_json::json;
use std::process::ExitCode;
use std::time::Duration;

/// Exit status when no message arrived within the wait (MQRC 2033).
pub const EXIT_NO_MESSAGE: u8 = 3;

/// Options of `mqgate get`.
#[derive(Args, Debug)]
#[command(
    after_help = "Exit status: 0 got a message (or stdout closed), 1 MQ error from the gateway, 2 gateway unreachable, 3 no message (2033)."
)]
pub struct GetArgs {
    /// Queue name.
    #[arg(long)]
    pub queue: String,
    /// How long to wait for a message, in ms (0 to 2147483647, the largest
    /// MQLONG; the gateway's http.max_wait_ms may be lower).
    #[arg(long, default_value_t = 0, allow_negative_numbers = true, value_parser = clap::value_parser!(u64).range(0..=super::MAX_MS))]
    pub wait: u64,
    /// Only a message with this CorrelId (48 hex characters).
    #[arg(long)]
    pub correl_id: Option<String>,
    /// Convert the message to this CodedCharSetId (MQGMO_CONVERT; 0 = the
    /// gateway's 1208). A message that cannot be converted comes back as it
    /// was, with its warning on stderr (docs/http-api.md).
    #[arg(long, allow_negative_numbers = true)]
    pub ccsid: Option<i32>,
    /// Convert the message to this Encoding (MQGMO_CONVERT; default 546,
    /// MQENC_REVERSED, when only --ccsid is given).
    #[arg(long, allow_negative_numbers = true)]
    pub encoding: Option<i32>,
    /// Print `{"md": {...}, "data_base64": "..."}` instead of the data, with
    /// `warning` (`{"mqrc", "reason", "message"}`) when the get completed with
    /// MQCC_WARNING.
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

/// Gets, acknowledges, then writes the data (or JSON) to stdout. The message
/// is printed only once the gateway has removed it. Exit 3 on 2033.
pub fn run(args: GetArgs) -> ExitCode {
    let gw = Gateway::new(&args.gateway, Duration::from_millis(args.wait + 30_000))
        .with_token(args.token.as_deref());
    let q = segment(&args.queue);
    let mut req = gw
        .request("GET", &format!("/v1/queues/{q}/messages/next"))
        .query("wait_ms", &args.wait.to_string());
    if let Some(c) = &args.correl_id {
        req = req.query("correl_id", c);
    }
    if args.ccsid.is_some() || args.encoding.is_some() {
        req = req.query("convert", "true");
        if let Some(c) = args.ccsid {
            req = req.query("ccsid", &c.to_string());
        }
        if let Some(e) = args.encoding {
            req = req.query("encoding", &e.to_string());
        }
    }
    let msg = match gw.call(req, None) {
        Ok(v) => v,
        Err(ClientError::Mq { mqrc: 2033, .. }) => {
            eprintln!(
                "mqgate get: no message on {} (2033 MQRC_NO_MSG_AVAILABLE)",
                args.queue
            );
            return ExitCode::from(EXIT_NO_MESSAGE);
        }
        Err(e) => {
            eprintln!("mqgate get: {e}");
            return e.exit_code();
        }
    };
    let Some(lease) = super::client::lease_of(&msg) else {
        eprintln!(
            "mqgate get: the gateway's answer has no lease to acknowledge; the message stays on the queue until its lease expires: {msg}"
        );
        return ExitCode::FAILURE;
    };
    let ack = gw.request(
        "POST",
        &format!("/v1/queues/{q}/messages/ack/{}", segment(lease)),
    );
    if let Err(e) = gw.call(ack, Some(b"")) {
        eprintln!("mqgate get: acknowledge failed, the message stays on the queue: {e}");
        return e.exit_code();
    }
    if let Some(w) = msg.get("warning") {
        // MQCC_WARNING: the message was got, e.g. unconverted (2110, 2119 ...).
        eprintln!(
            "mqgate get: warning {} {}: {}",
            w["mqrc"],
            w["reason"].as_str().unwrap_or(""),
            w["message"].as_str().unwrap_or("")
        );
    }
    let out = if args.json {
        let mut answer = json!({"md": msg["md"], "data_base64": msg["data_base64"]});
        if let Some(w) = msg.get("warning") {
            answer["warning"] = w.clone();
        }
        let mut s = answer.to_string();
        s.push('\n');
        s.into_bytes()
    } else {
        match BASE64.decode(msg["data_base64"].as_str().unwrap_or("")) {
            Ok(d) => d,
            Err(e) => {
                eprintln!("mqgate get: bad data from the gateway: {e}");
                return ExitCode::FAILURE;
            }
        }
    };
    out::write_or_exit("get", &out).unwrap_or(ExitCode::SUCCESS)
}

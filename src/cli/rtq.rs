//! `mqgate rtq get`: an RTQ server's take of the next due request
//! (`GET /v1/rtq/{group}/{queue}/next` + acknowledge; docs/tuxedo.md).

use super::client::{ClientError, DEFAULT_GATEWAY, Gateway, segment};
use base64::Engine;
use base64::engine::general_purpose::STANDARD as BASE64;
use clap::{Args, Subcommand};
use std::process::ExitCode;
use std::time::Duration;

/// `mqgate rtq` subcommands.
#[derive(Subcommand, Debug)]
pub enum RtqCommand {
    /// Take (and acknowledge) the next due request. Exit codes: 0 taken; 1
    /// the gateway answered with an error; 2 the gateway could not be
    /// reached; 3 no request is due.
    Get(RtqGetArgs),
}

/// Options of `mqgate rtq get`.
#[derive(Args, Debug)]
#[command(
    after_help = "Exit codes: 0 a request was taken; 1 the gateway answered with an error; 2 the gateway could not be reached; 3 no request is due."
)]
pub struct RtqGetArgs {
    /// Gateway base URL.
    #[arg(long, default_value = DEFAULT_GATEWAY)]
    pub gateway: String,
    /// TE_RTQGROUP.
    #[arg(long)]
    pub group: String,
    /// TE_RTQNAME.
    #[arg(long)]
    pub queue: String,
    /// How long to wait for a due request, in ms (0 to 2147483647, the
    /// largest MQLONG; the gateway's http.max_wait_ms may be lower).
    #[arg(long, default_value_t = 0, allow_negative_numbers = true, value_parser = clap::value_parser!(u64).range(0..=super::MAX_MS))]
    pub wait: u64,
    /// Only requests for this TE_PRODUCT.
    #[arg(long)]
    pub product: Option<String>,
    /// Only requests for this TE_FUNCTION.
    #[arg(long)]
    pub function: Option<String>,
    /// Print the request JSON (header, data_base64, fml32) instead of the buffer.
    #[arg(long)]
    pub json: bool,
}

/// Runs `mqgate rtq ...`.
pub fn run(cmd: RtqCommand) -> ExitCode {
    match cmd {
        RtqCommand::Get(a) => get(a),
    }
}

fn get(args: RtqGetArgs) -> ExitCode {
    let gw = Gateway::new(&args.gateway, Duration::from_millis(args.wait + 30_000));
    let base = format!("/v1/rtq/{}/{}", segment(&args.group), segment(&args.queue));
    let mut req = gw
        .request("GET", &format!("{base}/next"))
        .query("wait_ms", &args.wait.to_string());
    if let Some(p) = &args.product {
        req = req.query("product", p);
    }
    if let Some(f) = &args.function {
        req = req.query("function", f);
    }
    let mut v = match gw.call(req, None) {
        Ok(v) => v,
        Err(ClientError::Mq { mqrc: 2033, .. }) => {
            eprintln!(
                "mqgate rtq get: no due request on {}/{}",
                args.group, args.queue
            );
            return ExitCode::from(super::get::EXIT_NO_MESSAGE);
        }
        Err(e) => {
            eprintln!("mqgate rtq get: {e}");
            return e.exit_code();
        }
    };
    let Some(lease) = super::client::lease_of(&v) else {
        eprintln!(
            "mqgate rtq get: the gateway's answer has no lease to acknowledge; the request returns when its lease expires: {v}"
        );
        return ExitCode::FAILURE;
    };
    let ack = gw.request("POST", &format!("{base}/ack/{}", segment(lease)));
    if let Err(e) = gw.call(ack, Some(b"")) {
        eprintln!("mqgate rtq get: acknowledge failed, the request stays on the queue: {e}");
        return e.exit_code();
    }
    let out = if args.json {
        if let Some(m) = v.as_object_mut() {
            m.remove("lease");
            m.remove("lease_expires_in_ms");
        }
        format!("{v}\n").into_bytes()
    } else {
        match BASE64.decode(v["data_base64"].as_str().unwrap_or("")) {
            Ok(d) => d,
            Err(e) => {
                eprintln!("mqgate rtq get: bad data from the gateway: {e}");
                return ExitCode::FAILURE;
            }
        }
    };
    super::out::write_or_exit("rtq get", &out).unwrap_or(ExitCode::SUCCESS)
}

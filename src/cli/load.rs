//! `mqgate load`: the messages of a dmpmqmsg (or qload) file onto a queue of a
//! running gateway (IBM MQ "dmpmqmsg (queue load and unload)";
//! docs/operations.md).
//!
//! The whole file is read and checked first, so a bad file puts nothing and
//! its error names the line and column. The messages are then put in file
//! order under one unit of work, each with its whole MQMD as the file gives
//! it (`mqmd_base64`, MQPMO_SET_ALL_CONTEXT: the origin context is kept), and
//! committed together: a put that fails loads nothing.

use super::client::{ClientError, DEFAULT_GATEWAY, Gateway, segment};
use super::progress::Progress;
use base64::Engine;
use base64::engine::general_purpose::STANDARD as BASE64;
use clap::Args;
use mqgate_codecs::dump::{DumpMessage, parse_dump};
use serde_json::json;
use std::path::PathBuf;
use std::process::ExitCode;
use std::time::Duration;

/// Options of `mqgate load`.
#[derive(Args, Debug)]
#[command(
    after_help = "Exit status: 0 loaded, 1 a bad file or an MQ error from the gateway (nothing loaded), 2 gateway unreachable."
)]
pub struct LoadArgs {
    /// Queue name.
    #[arg(long)]
    pub queue: String,
    /// The dmpmqmsg or qload file; `-` reads stdin.
    #[arg(long)]
    pub file: PathBuf,
    /// Gateway base URL.
    #[arg(long, default_value = DEFAULT_GATEWAY)]
    pub gateway: String,
    /// Bearer token for a gateway that requires one (docs/security.md);
    /// default: the MQGATE_TOKEN environment variable.
    #[arg(long)]
    pub token: Option<String>,
}

/// Runs the load; see the module documentation.
pub fn run(args: LoadArgs) -> ExitCode {
    let name = args.file.display().to_string();
    let input = if args.file.as_os_str() == "-" {
        let mut buf = Vec::new();
        std::io::Read::read_to_end(&mut std::io::stdin(), &mut buf).map(|_| buf)
    } else {
        std::fs::read(&args.file)
    };
    let input = match input {
        Ok(b) => b,
        Err(e) => {
            eprintln!("mqgate load: cannot read {name}: {e}");
            return ExitCode::FAILURE;
        }
    };
    let file = match parse_dump(&input) {
        Ok(f) => f,
        Err(e) => {
            eprintln!("mqgate load: {name}: {e}; nothing was loaded");
            return ExitCode::FAILURE;
        }
    };
    let gw = Gateway::new(&args.gateway, Duration::from_secs(60)).with_token(args.token.as_deref());
    let uow = match gw.call(gw.request("POST", "/v1/uow"), Some(b"")) {
        Ok(v) => match v["uow"].as_str() {
            Some(u) => u.to_string(),
            None => {
                eprintln!("mqgate load: POST /v1/uow answered no uow: {v}");
                return ExitCode::FAILURE;
            }
        },
        Err(e) => {
            eprintln!("mqgate load: {e}; nothing was loaded");
            return e.exit_code();
        }
    };
    let path = format!("/v1/queues/{}/messages", segment(&args.queue));
    let mut progress = Progress::new("load", format!("onto {}", args.queue));
    for (k, m) in file.messages.iter().enumerate() {
        if let Err(e) = put(&gw, &path, &uow, m) {
            progress.finish();
            let back = gw.request("POST", &format!("/v1/uow/{}/backout", segment(&uow)));
            let note = match gw.call(back, Some(b"")) {
                Ok(_) => "nothing was loaded".to_string(),
                Err(b) => format!(
                    "backing out failed ({b}): the gateway backs the unit of work out after http.uow_timeout_ms, and nothing is loaded"
                ),
            };
            eprintln!(
                "mqgate load: {name} line {}: message {} of {}: {e}; {note}",
                m.line,
                k + 1,
                file.messages.len()
            );
            return e.exit_code();
        }
        progress.tick(k as u64 + 1);
    }
    progress.finish();
    let commit = gw.request("POST", &format!("/v1/uow/{}/commit", segment(&uow)));
    if let Err(e) = gw.call(commit, Some(b"")) {
        eprintln!("mqgate load: commit failed, nothing was loaded: {e}");
        return e.exit_code();
    }
    eprintln!(
        "mqgate load: {} messages from {name} onto {}",
        file.messages.len(),
        args.queue
    );
    ExitCode::SUCCESS
}

/// Puts one message of the file under `uow`: with its whole MQMD, or with
/// the default MQMD for an `N` (no MQMD) message, as dmpmqmsg loads it.
fn put(gw: &Gateway, path: &str, uow: &str, m: &DumpMessage) -> Result<(), ClientError> {
    let data = BASE64.encode(&m.data);
    let body = match &m.md {
        Some(md) => json!({"mqmd_base64": super::mqmd_wire::to_base64(md), "data_base64": data}),
        None => json!({"data_base64": data}),
    };
    let req = gw
        .request("POST", path)
        .query("uow", uow)
        .set("Content-Type", "application/json");
    gw.call(req, Some(body.to_string().as_bytes())).map(|_| ())
}

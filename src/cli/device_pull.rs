//! `mqgate device-pull`: what a device does when it comes online (the WebSphere MQ Everyplace gateway article
//! store-and-forward): pull the messages waiting for its queue, acknowledge
//! each once it is safely written.

mod out_dir;

use super::client::{ClientError, DEFAULT_GATEWAY, Gateway, segment};
use base64::Engine;
use base64::engine::general_purpose::STANDARD as BASE64;
use clap::Args;
use out_dir::OutDir;
use serde_json::{Value, json};
use std::io::Write;
use std::path::PathBuf;
use std::process::ExitCode;
use std::time::Duration;

/// Exit status when no message arrived within the wait.
pub const EXIT_NO_MESSAGE: u8 = 3;

/// Exit codes of `mqgate device-pull` (also in its --help and the README).
pub const EXIT_CODES_HELP: &str = "Exit codes: 0 at least one message was pulled, written and \
acknowledged; 1 the gateway answered an error, a message could not be written (it is not \
acknowledged and is given out again) or the acknowledge failed; 2 the gateway could not be \
reached or gave no JSON answer; 3 no message arrived within --wait.";

/// Options of `mqgate device-pull`.
#[derive(Args, Debug)]
#[command(after_help = EXIT_CODES_HELP)]
pub struct DevicePullArgs {
    /// Gateway base URL.
    #[arg(long, default_value = DEFAULT_GATEWAY)]
    pub gateway: String,
    /// Bearer token for a gateway that requires one (docs/security.md);
    /// default: the MQGATE_TOKEN environment variable.
    #[arg(long)]
    pub token: Option<String>,
    /// The device queue manager name (must match `devices.queue_managers`).
    #[arg(long)]
    pub qmgr: String,
    /// The device's queue name.
    #[arg(long)]
    pub queue: String,
    /// How long to wait for a message, in ms (0 to 2147483647, the largest
    /// MQLONG; the gateway's http.max_wait_ms may be lower).
    #[arg(long, default_value_t = 0, allow_negative_numbers = true, value_parser = clap::value_parser!(u64).range(0..=super::MAX_MS))]
    pub wait: u64,
    /// Print `{"lease", "md", "data_base64"}` instead of the data.
    #[arg(long, conflicts_with = "out")]
    pub json: bool,
    /// Pull every waiting message into DIR: `NNNNNN.dat` (data) and
    /// `NNNNNN.json` (MQMD as JSON) per message, numbered after the highest
    /// number already in DIR (from 1 when there is none). No file is ever
    /// overwritten; each message is acknowledged only after both of its
    /// files are fsynced.
    #[arg(long)]
    pub out: Option<PathBuf>,
}

/// Pulls one message (one per call) or, with `--out`, every waiting message.
/// Exit codes: [`EXIT_CODES_HELP`].
pub fn run(args: DevicePullArgs) -> ExitCode {
    let gw = Gateway::new(&args.gateway, Duration::from_millis(args.wait + 30_000))
        .with_token(args.token.as_deref());
    let base = format!(
        "/v1/devices/{}/queues/{}/messages",
        segment(&args.qmgr),
        segment(&args.queue)
    );
    // Opened before anything is taken, so that an unusable DIR leaves every
    // message on the gateway.
    let mut out = match args.out.as_deref().map(OutDir::open).transpose() {
        Ok(o) => o,
        Err(e) => {
            let dir = args.out.as_deref().unwrap_or(std::path::Path::new(""));
            eprintln!("mqgate device-pull: {}: {e}", dir.display());
            return ExitCode::FAILURE;
        }
    };
    let mut pulled = 0u64;
    let mut numbers = None::<(u64, u64)>;
    loop {
        let wait = if pulled == 0 { args.wait } else { 0 };
        let msg = match pull(&gw, &base, wait) {
            Ok(Some(m)) => m,
            Ok(None) => break,
            Err(e) => {
                eprintln!("mqgate device-pull: {e}");
                return e.exit_code();
            }
        };
        let Some(encoded) = msg["data_base64"].as_str() else {
            eprintln!("mqgate device-pull: the gateway's answer has no data_base64: {msg}");
            return ExitCode::FAILURE;
        };
        let data = match BASE64.decode(encoded) {
            Ok(d) => d,
            Err(e) => {
                eprintln!("mqgate device-pull: bad data from the gateway: {e}");
                return ExitCode::FAILURE;
            }
        };
        pulled += 1;
        // Written before the acknowledge: a crash in between gives the message again, never loses it.
        match &mut out {
            Some(dir) => {
                let md = serde_json::to_vec_pretty(&msg["md"]).unwrap_or_default();
                match dir.write(&data, &md) {
                    Ok(n) => numbers = Some((numbers.map_or(n, |(first, _)| first), n)),
                    Err(e) => {
                        eprintln!(
                            "mqgate device-pull: cannot write the message into {}, not acknowledged (it is given out again): {e}",
                            args.out
                                .as_deref()
                                .unwrap_or(std::path::Path::new(""))
                                .display()
                        );
                        return ExitCode::FAILURE;
                    }
                }
            }
            None => {
                let bytes = if args.json {
                    let mut s = json!({"lease": msg["lease"], "md": msg["md"], "data_base64": msg["data_base64"]}).to_string();
                    s.push('\n');
                    s.into_bytes()
                } else {
                    data
                };
                // A reader that went away has not taken the message: no
                // acknowledge, exit 1 (unlike commands that only print).
                let mut stdout = std::io::stdout().lock();
                if let Err(e) = stdout.write_all(&bytes).and_then(|()| stdout.flush()) {
                    eprintln!(
                        "mqgate device-pull: cannot write the message to stdout, not acknowledged (it is given out again): {e}"
                    );
                    return ExitCode::FAILURE;
                }
            }
        }
        let Some(lease) = super::client::lease_of(&msg) else {
            eprintln!(
                "mqgate device-pull: the gateway's answer has no lease to acknowledge; the message is given out again when its lease expires: {msg}"
            );
            return ExitCode::FAILURE;
        };
        if let Err(e) = gw.call(
            gw.request("POST", &format!("{base}/ack/{}", segment(lease))),
            Some(b""),
        ) {
            eprintln!(
                "mqgate device-pull: acknowledge failed, the message stays on the gateway: {e}"
            );
            return ExitCode::FAILURE;
        }
        if out.is_none() {
            return ExitCode::SUCCESS;
        }
    }
    if pulled == 0 {
        eprintln!(
            "mqgate device-pull: no message for queue {} of device {} within {} ms",
            args.queue, args.qmgr, args.wait
        );
        return ExitCode::from(EXIT_NO_MESSAGE);
    }
    if let (Some(dir), Some((first, last))) = (&args.out, numbers) {
        let line = format!(
            "{pulled} messages written to {}: {first:06}.dat to {last:06}.dat",
            dir.display()
        );
        if let Some(exit) = super::out::line_or_exit("device-pull", &line) {
            return exit;
        }
    }
    ExitCode::SUCCESS
}

/// One GET: `Some(message)`, or `None` on 204 (nothing within the wait).
fn pull(gw: &Gateway, base: &str, wait: u64) -> Result<Option<Value>, ClientError> {
    let req = gw
        .request("GET", &format!("{base}/next"))
        .query("wait_ms", &wait.to_string());
    match req.call() {
        Ok(r) if r.status() == 204 => Ok(None),
        res => Gateway::answer(res).map(Some),
    }
}

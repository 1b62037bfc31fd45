//! `mqgate device-pull`: what a device does when it comes online (seed 001
//! store-and-forward): pull the messages waiting for its queue, acknowledge
//! each once it is safely written.

use super::client::{ClientError, DEFAULT_GATEWAY, Gateway, segment};
use base64::Engine;
use base64::engine::general_purpose::STANDARD as BASE64;
use clap::Args;
use serde_json::{Value, json};
use std::io::Write;
use std::path::PathBuf;
use std::process::ExitCode;
use std::time::Duration;

/// Exit status when no message arrived within the wait.
pub const EXIT_NO_MESSAGE: u8 = 3;

/// Options of `mqgate device-pull`.
#[derive(Args, Debug)]
pub struct DevicePullArgs {
    /// Gateway base URL.
    #[arg(long, default_value = DEFAULT_GATEWAY)]
    pub gateway: String,
    /// The device queue manager name (must match `devices.queue_managers`).
    #[arg(long)]
    pub qmgr: String,
    /// The device's queue name.
    #[arg(long)]
    pub queue: String,
    /// How long to wait for a message, in ms.
    #[arg(long, default_value_t = 0)]
    pub wait: u64,
    /// Print `{"lease", "md", "data_base64"}` instead of the data.
    #[arg(long, conflicts_with = "out")]
    pub json: bool,
    /// Pull every waiting message into DIR: `NNNNNN.dat` (data) and
    /// `NNNNNN.json` (MQMD as JSON) per message, numbered from 1.
    #[arg(long)]
    pub out: Option<PathBuf>,
}

/// Pulls one message (one per call) or, with `--out`, every waiting message.
/// Exit 0 when at least one message was pulled, 3 when none arrived, 1 on errors.
pub fn run(args: DevicePullArgs) -> ExitCode {
    let gw = Gateway::new(&args.gateway, Duration::from_millis(args.wait + 30_000));
    let base = format!(
        "/v1/devices/{}/queues/{}/messages",
        segment(&args.qmgr),
        segment(&args.queue)
    );
    let mut pulled = 0u64;
    loop {
        let wait = if pulled == 0 { args.wait } else { 0 };
        let msg = match pull(&gw, &base, wait) {
            Ok(Some(m)) => m,
            Ok(None) => break,
            Err(e) => {
                eprintln!("mqgate device-pull: {e}");
                return ExitCode::FAILURE;
            }
        };
        let data = match BASE64.decode(msg["data_base64"].as_str().unwrap_or("")) {
            Ok(d) => d,
            Err(e) => {
                eprintln!("mqgate device-pull: bad data from the gateway: {e}");
                return ExitCode::FAILURE;
            }
        };
        pulled += 1;
        // Written before the acknowledge: a crash in between gives the message again, never loses it.
        let written = match &args.out {
            Some(dir) => std::fs::create_dir_all(dir)
                .and_then(|_| std::fs::write(dir.join(format!("{pulled:06}.dat")), &data))
                .and_then(|_| {
                    let md = serde_json::to_vec_pretty(&msg["md"]).unwrap_or_default();
                    std::fs::write(dir.join(format!("{pulled:06}.json")), md)
                }),
            None => {
                let out = if args.json {
                    let mut s = json!({"lease": msg["lease"], "md": msg["md"], "data_base64": msg["data_base64"]}).to_string();
                    s.push('\n');
                    s.into_bytes()
                } else {
                    data
                };
                let mut stdout = std::io::stdout().lock();
                stdout.write_all(&out).and_then(|_| stdout.flush())
            }
        };
        if let Err(e) = written {
            eprintln!(
                "mqgate device-pull: cannot write the message, not acknowledged (it is given out again): {e}"
            );
            return ExitCode::FAILURE;
        }
        let lease = msg["lease"].to_string();
        if let Err(e) = gw.call(
            gw.request("POST", &format!("{base}/ack/{lease}")),
            Some(b""),
        ) {
            eprintln!(
                "mqgate device-pull: acknowledge failed, the message stays on the gateway: {e}"
            );
            return ExitCode::FAILURE;
        }
        if args.out.is_none() {
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
    if let Some(dir) = &args.out {
        println!("{pulled} messages written to {}", dir.display());
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

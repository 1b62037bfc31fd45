//! `mqgate tpenqueue`: a Tuxedo tpenqueue through a running gateway's
//! `POST /v1/tux/tpenqueue` (docs/tuxedo.md).

use super::client::{DEFAULT_GATEWAY, Gateway};
use base64::Engine;
use base64::engine::general_purpose::STANDARD as BASE64;
use clap::Args;
use serde_json::{Value, json};
use std::io::Read;
use std::path::PathBuf;
use std::process::ExitCode;
use std::time::Duration;

/// Options of `mqgate tpenqueue`.
#[derive(Args, Debug)]
#[command(after_help = EXIT_CODES_HELP)]
pub struct TpenqueueArgs {
    /// Gateway base URL.
    #[arg(long, default_value = DEFAULT_GATEWAY)]
    pub gateway: String,
    /// The queue space (a QSPACE entry of DMCONFIG).
    #[arg(long)]
    pub qspace: String,
    /// The queue name (a QNAME entry of DMCONFIG).
    #[arg(long)]
    pub qname: String,
    /// TPQCTL flags and tpenqueue flags by name, comma separated
    /// (e.g. TPQTIME_REL,TPQMSGID,TPNOTRAN).
    #[arg(long, value_delimiter = ',')]
    pub flags: Vec<String>,
    /// TPQCTL deq_time in seconds (TPQTIME_REL) or UNIX time (TPQTIME_ABS).
    #[arg(long, default_value_t = 0, allow_negative_numbers = true)]
    pub deq_time: i64,
    /// Buffer type: CARRAY (the default), X_OCTET or FML32 (implied by
    /// --fml32-json).
    #[arg(long)]
    pub buftype: Option<String>,
    /// The input is a JSON object of FML32 fields (`{"NAME": ["x"]}`), built
    /// into an FML32 buffer by the gateway's field table. Implies --buftype
    /// FML32; any other --buftype is a usage error.
    #[arg(long)]
    pub fml32_json: bool,
    /// Enqueue inside this unit of work (an id from `POST /v1/uow`).
    #[arg(long)]
    pub uow: Option<u64>,
    /// The buffer: a file, or `-` (the default) for stdin.
    pub file: Option<PathBuf>,
}

fn read_input(file: Option<&PathBuf>) -> std::io::Result<Vec<u8>> {
    match file {
        Some(p) if p.as_os_str() != "-" => std::fs::read(p),
        _ => {
            let mut b = Vec::new();
            std::io::stdin().read_to_end(&mut b)?;
            Ok(b)
        }
    }
}

/// Exit codes of `mqgate tpenqueue` (also in its --help and docs/tuxedo.md).
pub const EXIT_CODES_HELP: &str = "Exit codes: 0 enqueued; 1 the gateway answered with a tperrno (the answer JSON is printed); 2 usage error, unreadable input, or the gateway could not be reached or gave no JSON answer.";

/// Prints the gateway's answer JSON; exit 0 on success, 1 on a Tuxedo error
/// (tperrno set), 2 on a usage error or when the gateway could not be asked.
pub fn run(args: TpenqueueArgs) -> ExitCode {
    let buftype = match (args.fml32_json, args.buftype.as_deref()) {
        (true, Some(t)) if t != "FML32" => {
            eprintln!(
                "mqgate tpenqueue: --fml32-json builds an FML32 buffer; --buftype {t} contradicts it (leave --buftype out)"
            );
            return ExitCode::from(2);
        }
        (true, _) => Some("FML32".to_string()),
        (false, t) => t.map(str::to_string),
    };
    let data = match read_input(args.file.as_ref()) {
        Ok(d) => d,
        Err(e) => {
            let from = match args.file.as_ref() {
                Some(p) if p.as_os_str() != "-" => p.display().to_string(),
                _ => "stdin".to_string(),
            };
            eprintln!("mqgate tpenqueue: cannot read the buffer from {from}: {e}");
            return ExitCode::from(2);
        }
    };
    let mut body = json!({
        "qspace": args.qspace,
        "qname": args.qname,
        "flags": args.flags,
        "deq_time": args.deq_time,
    });
    if let Some(t) = buftype {
        body["buftype"] = json!(t);
    }
    if args.fml32_json {
        match serde_json::from_slice::<Value>(&data) {
            Ok(v @ Value::Object(_)) => body["fml32"] = v,
            _ => {
                eprintln!("mqgate tpenqueue: --fml32-json input is not a JSON object");
                return ExitCode::from(2);
            }
        }
    } else {
        body["data_base64"] = json!(BASE64.encode(&data));
    }
    if let Some(u) = args.uow {
        body["uow"] = json!(u);
    }
    let gw = Gateway::new(&args.gateway, Duration::from_secs(60));
    let res = gw
        .request("POST", "/v1/tux/tpenqueue")
        .set("Content-Type", "application/json")
        .send_string(&body.to_string());
    let answer: Value = match res {
        Ok(r) => r.into_json(),
        // 400: the request could not be read; the body is still the answer.
        Err(ureq::Error::Status(_, r)) => r.into_json(),
        Err(e) => {
            eprintln!("mqgate tpenqueue: {e}");
            return ExitCode::from(2);
        }
    }
    .unwrap_or(Value::Null);
    if !answer.is_object() {
        eprintln!("mqgate tpenqueue: the gateway's answer is not JSON");
        return ExitCode::from(2);
    }
    if let Some(exit) = super::out::line_or_exit("tpenqueue", &answer.to_string()) {
        return exit;
    }
    if answer["tperrno"].is_null() {
        ExitCode::SUCCESS
    } else {
        ExitCode::FAILURE
    }
}

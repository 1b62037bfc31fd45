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
    /// Enqueue inside this unit of work (the token of 32 hex digits from
    /// `POST /v1/uow`).
    #[arg(long, value_parser = super::client::token_arg)]
    pub uow: Option<crate::mqi::Token>,
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
pub const EXIT_CODES_HELP: &str = "Exit codes: 0 enqueued (an HTTP 200 answer with tperrno null); 1 any other answer of the gateway: a tperrno, or an error without one such as 2298 MQRC_FUNCTION_NOT_SUPPORTED from a gateway without a DMCONFIG (the answer JSON is printed, the reason on stderr); 2 usage error, unreadable input, or the gateway could not be reached or gave no JSON answer.";

/// Prints the gateway's answer JSON; exit 0 only when the gateway answered
/// 200 with `"tperrno": null`, 1 on any other answer (a Tuxedo error, or an
/// MQRC error of the HTTP API without a tperrno), 2 on a usage error or when
/// the gateway could not be asked.
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
        body["uow"] = json!(u.to_string());
    }
    let gw = Gateway::new(&args.gateway, Duration::from_secs(60));
    let res = gw
        .request("POST", "/v1/tux/tpenqueue")
        .set("Content-Type", "application/json")
        .send_string(&body.to_string());
    let (status, answer): (u16, Value) = match res {
        Ok(r) => (r.status(), r.into_json().unwrap_or(Value::Null)),
        // 400: the request could not be read; 404: no Tuxedo gateway (no
        // DMCONFIG). The body is still the answer.
        Err(ureq::Error::Status(code, r)) => (code, r.into_json().unwrap_or(Value::Null)),
        Err(e) => {
            eprintln!("mqgate tpenqueue: {e}");
            return ExitCode::from(2);
        }
    };
    if !answer.is_object() {
        eprintln!("mqgate tpenqueue: the gateway's answer (HTTP {status}) is not JSON");
        return ExitCode::from(2);
    }
    if let Some(exit) = super::out::line_or_exit("tpenqueue", &answer.to_string()) {
        return exit;
    }
    match outcome(status, &answer) {
        Ok(()) => ExitCode::SUCCESS,
        Err(why) => {
            eprintln!("mqgate tpenqueue: {why}");
            ExitCode::FAILURE
        }
    }
}

/// Whether an answer (HTTP status and JSON body) is a successful tpenqueue;
/// otherwise what went wrong, for stderr. Success needs both a 2xx status and
/// a `tperrno` member that is null: an answer without one (the HTTP API's
/// `{"mqrc", "reason", "message"}`) is never success.
fn outcome(status: u16, answer: &Value) -> Result<(), String> {
    let message = answer["message"].as_str().unwrap_or("");
    match answer.get("tperrno") {
        Some(Value::Null) if (200..300).contains(&status) => Ok(()),
        Some(Value::Null) | None => {
            let reason = match (answer["mqrc"].as_i64(), answer["reason"].as_str()) {
                (Some(rc), Some(name)) => format!("{rc} {name}"),
                (Some(rc), None) => format!("MQRC {rc}"),
                _ => "no tperrno".to_string(),
            };
            let hint = if status == 404 && answer["mqrc"].as_i64() == Some(2298) {
                " (does the gateway have a DMCONFIG? docs/tuxedo.md)"
            } else {
                ""
            };
            Err(format!("HTTP {status}: {reason}: {message}{hint}"))
        }
        Some(t) => {
            let name = t.as_str().map_or_else(|| t.to_string(), str::to_string);
            match answer["diagnostic"].as_str() {
                Some(d) => Err(format!("{name} ({d}): {message}")),
                None => Err(format!("{name}: {message}")),
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::outcome;
    use serde_json::json;

    #[test]
    fn only_200_with_a_null_tperrno_is_success() {
        assert!(outcome(200, &json!({"tperrno": null, "msgid": null})).is_ok());
        // The HTTP API's answer for an unknown route (src/http/fallback.rs):
        // a gateway without a DMCONFIG has no /v1/tux/tpenqueue.
        let e = outcome(
            404,
            &json!({"mqrc": 2298, "reason": "MQRC_FUNCTION_NOT_SUPPORTED", "message": "no route POST /v1/tux/tpenqueue"}),
        )
        .unwrap_err();
        assert!(
            e.starts_with("HTTP 404: 2298 MQRC_FUNCTION_NOT_SUPPORTED: no route"),
            "{e}"
        );
        assert!(outcome(200, &json!({"mqrc": 2009})).is_err());
        assert!(outcome(500, &json!({"tperrno": null})).is_err());
        let e = outcome(
            400,
            &json!({"tperrno": "TPEINVAL", "message": "empty tpenqueue flag name"}),
        )
        .unwrap_err();
        assert_eq!(e, "TPEINVAL: empty tpenqueue flag name");
    }
}

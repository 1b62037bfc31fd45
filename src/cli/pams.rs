//! `mqgate pams put|get|locate`: `pams_put_msg`, `pams_get_msg` and
//! `pams_locate_q` through a running gateway's PAMS API (docs/messageq.md
//! "PAMS API"), and the calls `mqgate sbs` builds on.

use super::client::{DEFAULT_GATEWAY, EXIT_UNREACHABLE, Gateway, segment};
use super::out;
use base64::Engine;
use base64::engine::general_purpose::STANDARD as BASE64;
use clap::{Args, Subcommand, ValueEnum};
use mqgate_codecs::pams::QAddress;
use serde_json::{Value, json};
use std::io::Read;
use std::process::ExitCode;
use std::time::Duration;

/// Exit status when no message came within the wait (`pams get`, and
/// `sbs` when no response came).
pub const EXIT_NO_MESSAGE: u8 = 3;

/// `mqgate pams ...`.
#[derive(Subcommand, Debug)]
pub enum PamsCommand {
    /// Put a PAMS message (pams_put_msg); a MOT target is a broadcast.
    Put(PutArgs),
    /// Get the next PAMS message of a queue (pams_get_msg); exit 3 when none came.
    Get(GetArgs),
    /// Look a %GNT name up (pams_locate_q).
    Locate(LocateArgs),
}

/// A `group.queue` argument, checked before anything is sent (a usage
/// error, exit 2, when it is none).
pub fn addr_arg(s: &str) -> Result<QAddress, String> {
    QAddress::parse(s).map_err(|e| e.to_string())
}

/// Options of `mqgate pams put`.
#[derive(Args, Debug)]
#[command(
    after_help = "Exit status: 0 put (1 PAMS__SUCCESS, the delivery status in the message), or the target could not take it and the UMA ran (11 PAMS__DISC_SUCCESS, 13 PAMS__DISCL_SUCCESS, 17 PAMS__DLQ_SUCCESS, 19 PAMS__RTS_SUCCESS); 1 the gateway refused (the PAMS status is printed); 2 gateway unreachable, FILE unreadable, or a usage error (an argument that is not what it must be)."
)]
pub struct PutArgs {
    /// Target: `group.queue` (a MOT queue number is a broadcast) or a %GNT name.
    #[arg(long)]
    pub target: String,
    /// Message class (a short).
    #[arg(long, default_value_t = 0, allow_negative_numbers = true)]
    pub class: i16,
    /// Message type (a short).
    #[arg(long = "type", default_value_t = 0, allow_negative_numbers = true)]
    pub msg_type: i16,
    /// Priority 0-99 (the gateway refuses others with PAMS__BADPRIORITY).
    #[arg(long, default_value_t = 0, allow_negative_numbers = true)]
    pub priority: i64,
    /// Delivery mode, e.g. PDEL_MODE_NN_MEM or NN_MEM (the default): SAF and
    /// DQF modes store a persistent message, MEM and NET a non-persistent
    /// one; AK, DEQ, CONF, ACK and RCM modes are refused (PAMS__NOTSUPPORTED).
    #[arg(long)]
    pub delivery: Option<String>,
    /// Undeliverable-message action when the target cannot take the message,
    /// e.g. PDEL_UMA_DISC or DISC (the default), DISCL, DLQ, RTS (needs
    /// --resp-q); SAF and DLJ are refused (PAMS__BADUMA).
    #[arg(long)]
    pub uma: Option<String>,
    /// Response queue `group.queue` (also the message's source).
    #[arg(long, value_parser = addr_arg)]
    pub resp_q: Option<QAddress>,
    /// Correlation id, 64 hex digits (32 bytes).
    #[arg(long)]
    pub correlation_id: Option<String>,
    /// The message area: a file, or `-` for stdin.
    pub file: String,
    /// Gateway base URL.
    #[arg(long, default_value = DEFAULT_GATEWAY)]
    pub gateway: String,
}

/// Options of `mqgate pams get`.
#[derive(Args, Debug)]
#[command(
    after_help = "Exit status: 0 got a message (or stdout closed); 1 the gateway refused (the PAMS status is printed) or its answer cannot be read; 2 gateway unreachable, or a usage error (an argument that is not what it must be); 3 no message within --wait. Without --json the message area is written as it is, without a newline."
)]
pub struct GetArgs {
    /// The queue `group.queue`.
    #[arg(long, value_parser = addr_arg)]
    pub queue: QAddress,
    /// How long to wait, in ms (0 to 2147483647; the gateway's
    /// http.max_wait_ms may be lower).
    #[arg(long, default_value_t = 0, value_parser = clap::value_parser!(u64).range(0..=super::MAX_MS))]
    pub wait: u64,
    /// Print the whole answer (show buffer fields, show_buffer_hex, data_base64) as JSON.
    #[arg(long)]
    pub json: bool,
    /// Gateway base URL.
    #[arg(long, default_value = DEFAULT_GATEWAY)]
    pub gateway: String,
}

/// Options of `mqgate pams locate`.
#[derive(Args, Debug)]
#[command(
    after_help = "Exit status: 0 found (prints NAME ADDRESS SCOPE); 1 not found (-166 PAMS__NOOBJECT), refused, or an answer that cannot be read; 2 gateway unreachable, or a usage error (an argument that is not what it must be)."
)]
pub struct LocateArgs {
    /// The %GNT name.
    pub name: String,
    /// Which names to search.
    #[arg(long, value_enum, default_value_t = LocateScope::Group)]
    pub scope: LocateScope,
    /// Gateway base URL.
    #[arg(long, default_value = DEFAULT_GATEWAY)]
    pub gateway: String,
}

/// The scope of a `pams_locate_q` search.
#[derive(Clone, Copy, Debug, PartialEq, Eq, ValueEnum)]
pub enum LocateScope {
    /// Every %GNT name of the group (PSEL_TBL_GRP).
    Group,
    /// The names of scope G only (PSEL_TBL_BUS).
    Bus,
}

/// Runs one `pams` subcommand.
pub fn run(cmd: PamsCommand) -> ExitCode {
    match cmd {
        PamsCommand::Put(a) => put(a),
        PamsCommand::Get(a) => get(a),
        PamsCommand::Locate(a) => locate(a),
    }
}

/// A PAMS API call's failure: not reachable (exit 2) or refused (exit 1,
/// the gateway's `{"status", "message"}`).
#[derive(Debug)]
pub enum CallError {
    /// Connection or protocol failure.
    Transport(String),
    /// The gateway's error answer.
    Refused(Value),
}

impl CallError {
    /// The exit status: 2 unreachable, 1 refused.
    pub fn exit_code(&self) -> ExitCode {
        match self {
            CallError::Transport(_) => ExitCode::from(EXIT_UNREACHABLE),
            CallError::Refused(_) => ExitCode::FAILURE,
        }
    }
}

impl std::fmt::Display for CallError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            CallError::Transport(e) => write!(f, "{e}"),
            CallError::Refused(v) => {
                write!(
                    f,
                    "{} {}: {}",
                    v["status"]["number"],
                    v["status"]["name"].as_str().unwrap_or(""),
                    v["message"].as_str().unwrap_or("")
                )?;
                if let Some(m) = v["mqrc"].as_i64() {
                    write!(f, " ({m} {})", v["reason"].as_str().unwrap_or(""))?;
                }
                Ok(())
            }
        }
    }
}

/// A call: `Ok(None)` for 204 No Content, `Ok(Some(json))` for another
/// success.
pub fn call(req: ureq::Request, body: Option<&Value>) -> Result<Option<Value>, CallError> {
    let res = match body {
        Some(b) => req.send_json(b),
        None => req.call(),
    };
    match res {
        Ok(r) if r.status() == 204 => Ok(None),
        Ok(r) => r
            .into_json()
            .map(Some)
            .map_err(|e| CallError::Transport(format!("bad answer: {e}"))),
        Err(ureq::Error::Status(code, r)) => Err(match r.into_json::<Value>() {
            Ok(v) => CallError::Refused(v),
            Err(e) => CallError::Transport(format!("HTTP {code}: {e}")),
        }),
        Err(e) => Err(CallError::Transport(e.to_string())),
    }
}

/// `POST /v1/pams/messages` with `body`.
pub fn put_json(gw: &Gateway, body: &Value) -> Result<Value, CallError> {
    call(gw.request("POST", "/v1/pams/messages"), Some(body))?
        .ok_or_else(|| CallError::Transport("the put was answered without a body".into()))
}

/// `POST /v1/pams/attachments` for a temporary queue (`pams_attach_q`):
/// the attachment id and the queue's address.
pub fn attach_temporary(gw: &Gateway) -> Result<(String, QAddress), CallError> {
    let v = call(
        gw.request("POST", "/v1/pams/attachments"),
        Some(&serde_json::json!({"queue": "temporary"})),
    )?
    .ok_or_else(|| CallError::Transport("the attach was answered without a body".into()))?;
    let id = v["attachment"].as_str().unwrap_or_default().to_string();
    let queue = QAddress::parse(v["queue"].as_str().unwrap_or_default())
        .map_err(|e| CallError::Transport(format!("bad queue in the attach answer: {e}")))?;
    Ok((id, queue))
}

/// `DELETE /v1/pams/attachments/{id}` (`pams_exit`).
pub fn exit(gw: &Gateway, id: &str) -> Result<(), CallError> {
    call(
        gw.request("DELETE", &format!("/v1/pams/attachments/{}", segment(id))),
        None,
    )
    .map(|_| ())
}

/// `GET /v1/pams/queues/{queue}/messages/next`: `None` when nothing came
/// within `wait_ms`; only the message of `correlation_id` when given.
pub fn get_json(
    gw: &Gateway,
    queue: &str,
    wait_ms: u64,
    correlation_id: Option<&str>,
) -> Result<Option<Value>, CallError> {
    let mut req = gw
        .request(
            "GET",
            &format!("/v1/pams/queues/{}/messages/next", segment(queue)),
        )
        .query("wait_ms", &wait_ms.to_string());
    if let Some(c) = correlation_id {
        req = req.query("correlation_id", c);
    }
    call(req, None)
}

/// The message area of a get's answer.
pub fn area_of(answer: &Value) -> Result<Vec<u8>, String> {
    BASE64
        .decode(answer["data_base64"].as_str().unwrap_or(""))
        .map_err(|e| format!("bad data_base64 from the gateway: {e}"))
}

fn put(a: PutArgs) -> ExitCode {
    let mut area = Vec::new();
    let read = if a.file == "-" {
        std::io::stdin().read_to_end(&mut area).map(|_| ())
    } else {
        std::fs::read(&a.file).map(|d| area = d)
    };
    if let Err(e) = read {
        eprintln!("mqgate pams put: cannot read {}: {e}", a.file);
        return ExitCode::from(EXIT_UNREACHABLE);
    }
    let mut body = json!({
        "target": a.target,
        "class": a.class,
        "type": a.msg_type,
        "priority": a.priority,
        "data_base64": BASE64.encode(&area),
    });
    let resp_q = a.resp_q.map(|q| q.to_string());
    for (k, v) in [
        ("delivery", &a.delivery),
        ("uma", &a.uma),
        ("resp_q", &resp_q),
        ("correlation_id", &a.correlation_id),
    ] {
        if let Some(v) = v {
            body[k] = json!(v);
        }
    }
    let gw = Gateway::new(&a.gateway, Duration::from_secs(30));
    match put_json(&gw, &body) {
        Ok(v) => out::line_or_exit(
            "pams put",
            &format!(
                "{} {}: {}",
                v["status"]["number"],
                v["status"]["name"].as_str().unwrap_or(""),
                v["message"].as_str().unwrap_or("")
            ),
        )
        .unwrap_or(ExitCode::SUCCESS),
        Err(e) => {
            eprintln!("mqgate pams put: {e}");
            e.exit_code()
        }
    }
}

fn get(a: GetArgs) -> ExitCode {
    let gw = Gateway::new(&a.gateway, Duration::from_millis(a.wait + 30_000));
    let v = match get_json(&gw, &a.queue.to_string(), a.wait, None) {
        Ok(Some(v)) => v,
        Ok(None) => {
            eprintln!(
                "mqgate pams get: no message on {} within {} ms",
                a.queue, a.wait
            );
            return ExitCode::from(EXIT_NO_MESSAGE);
        }
        Err(e) => {
            eprintln!("mqgate pams get: {e}");
            return e.exit_code();
        }
    };
    if a.json {
        return out::line_or_exit("pams get", &v.to_string()).unwrap_or(ExitCode::SUCCESS);
    }
    match area_of(&v) {
        Ok(d) => out::write_or_exit("pams get", &d).unwrap_or(ExitCode::SUCCESS),
        Err(e) => {
            eprintln!("mqgate pams get: {e}");
            ExitCode::FAILURE
        }
    }
}

fn locate(a: LocateArgs) -> ExitCode {
    let gw = Gateway::new(&a.gateway, Duration::from_secs(30));
    let req = gw
        .request("GET", &format!("/v1/pams/locate/{}", segment(&a.name)))
        .query(
            "scope",
            match a.scope {
                LocateScope::Group => "group",
                LocateScope::Bus => "bus",
            },
        );
    match call(req, None) {
        Ok(Some(v)) => out::line_or_exit(
            "pams locate",
            &format!(
                "{} {} {}",
                v["name"].as_str().unwrap_or(""),
                v["address"].as_str().unwrap_or(""),
                v["scope"].as_str().unwrap_or("")
            ),
        )
        .unwrap_or(ExitCode::SUCCESS),
        Ok(None) => {
            eprintln!("mqgate pams locate: empty answer");
            ExitCode::FAILURE
        }
        Err(e) => {
            eprintln!("mqgate pams locate: {e}");
            e.exit_code()
        }
    }
}

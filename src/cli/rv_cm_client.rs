//! Certified delivery from the command line (docs/rendezvous.md
//! "Certified delivery", "Command line"): the CM transport of `mqgate rv
//! publish --cm-name` and `mqgate rv listen --cm-name`, and the commands
//! `mqgate rv confirm` and `mqgate rv cm-listener`, over the gateway's
//! HTTP API.

use std::process::ExitCode;
use std::time::Duration;

use clap::{Args, ValueEnum};
use serde_json::{Value, json};

use super::client::{DEFAULT_GATEWAY, Gateway, segment};
use super::out;

/// Where a CM transport made from the command line keeps its ledger.
#[derive(Clone, Copy, Debug, PartialEq, Eq, ValueEnum)]
pub enum LedgerArg {
    /// In memory: the transport closes a minute after its last use.
    Memory,
    /// In the gateway's store: a persistent correspondent, until closed.
    Store,
}

impl LedgerArg {
    fn as_str(self) -> &'static str {
        match self {
            LedgerArg::Memory => "memory",
            LedgerArg::Store => "store",
        }
    }
}

/// Opens (or finds open) CM transport `name` on `gw`
/// (`POST /v1/rv/cm/transports`). Errors: the exit of the failed call.
pub fn open_transport(
    cmd: &str,
    gw: &Gateway,
    name: &str,
    ledger: LedgerArg,
    request_old: bool,
) -> Result<(), ExitCode> {
    let body = json!({"name": name, "ledger": ledger.as_str(), "request_old": request_old});
    let req = gw
        .request("POST", "/v1/rv/cm/transports")
        .set("Content-Type", "application/json");
    super::rv_client::answer(cmd, req.send_string(&body.to_string())).map(|_| ())
}

/// `mqgate rv publish --cm-name NAME`: a certified send of `body` on
/// `subject`; prints `published SUBJECT as SENDER/SEQUENCE to N listeners`.
pub fn publish(
    gateway: &str,
    name: &str,
    ledger: LedgerArg,
    subject: &str,
    time_limit: Option<f64>,
    body: &Value,
) -> ExitCode {
    let gw = Gateway::new(gateway, Duration::from_secs(30));
    if let Err(exit) = open_transport("publish", &gw, name, ledger, false) {
        return exit;
    }
    let mut req = gw
        .request(
            "POST",
            &format!(
                "/v1/rv/cm/transports/{}/messages/{}",
                segment(name),
                segment(subject)
            ),
        )
        .set("Content-Type", "application/json");
    if let Some(t) = time_limit {
        req = req.query("time_limit_s", &t.to_string());
    }
    match super::rv_client::answer("publish", req.send_string(&body.to_string())) {
        Ok(v) => {
            let n = v["listeners"].as_u64().unwrap_or(0);
            let line = format!(
                "published {subject} as {name}/{} to {n} listener{}",
                v["sequence"].as_str().unwrap_or("0"),
                if n == 1 { "" } else { "s" }
            );
            out::line_or_exit("rv publish", &line).unwrap_or(ExitCode::SUCCESS)
        }
        Err(exit) => exit,
    }
}

/// Options of `mqgate rv confirm`.
#[derive(Args, Debug)]
#[command(
    after_help = "Confirms a certified message that `mqgate rv listen --cm-name NAME --explicit-confirm` printed (cm=SENDER/SEQUENCE).\n\nExit status: 0 confirmed; 1 refused by the gateway (no such transport, a message not certified for this listener or never delivered to it: the reason and its tibrv_status on stderr); 2 gateway unreachable, or a usage error."
)]
pub struct ConfirmArgs {
    /// The listening CM transport's correspondent name.
    #[arg(long, allow_hyphen_values = true)]
    pub cm_name: String,
    /// The sender's correspondent name (before the / of cm=SENDER/SEQUENCE).
    #[arg(long, allow_hyphen_values = true)]
    pub sender: String,
    /// The message's subject.
    #[arg(long, allow_hyphen_values = true)]
    pub subject: String,
    /// Its sequence number (after the / of cm=SENDER/SEQUENCE).
    #[arg(long)]
    pub sequence: u64,
    /// Gateway base URL.
    #[arg(long, default_value = DEFAULT_GATEWAY)]
    pub gateway: String,
}

/// `mqgate rv confirm`.
pub fn confirm(a: ConfirmArgs) -> ExitCode {
    let gw = Gateway::new(&a.gateway, Duration::from_secs(30));
    let req = gw
        .request(
            "POST",
            &format!("/v1/rv/cm/transports/{}/confirm", segment(&a.cm_name)),
        )
        .set("Content-Type", "application/json");
    let body = json!({"sender": a.sender, "subject": a.subject, "sequence": a.sequence});
    match super::rv_client::answer("confirm", req.send_string(&body.to_string())) {
        Ok(_) => {
            let line = format!("confirmed {} {}/{}", a.subject, a.sender, a.sequence);
            out::line_or_exit("rv confirm", &line).unwrap_or(ExitCode::SUCCESS)
        }
        Err(exit) => exit,
    }
}

/// Options of `mqgate rv cm-listener`.
#[derive(Args, Debug)]
#[command(
    after_help = "AddListener pre-registers LISTENER for SUBJECT, so that messages sent before it listens are kept for it (it gets them when it listens with --request-old); DisallowListener refuses it certified delivery; AllowListener undoes that.\n\nExit status: 0 done; 1 refused by the gateway (no such transport, adding a disallowed listener: the reason and its tibrv_status on stderr); 2 gateway unreachable, or a usage error."
)]
#[command(group(clap::ArgGroup::new("action").required(true).args(["add", "disallow", "allow"])))]
pub struct CmListenerArgs {
    /// The sending CM transport's correspondent name.
    #[arg(long, allow_hyphen_values = true)]
    pub cm_name: String,
    /// The listener's correspondent name.
    #[arg(long, allow_hyphen_values = true)]
    pub listener: String,
    /// Pre-register the listener for this subject (AddListener).
    #[arg(long, value_name = "SUBJECT", allow_hyphen_values = true)]
    pub add: Option<String>,
    /// Refuse the listener certified delivery (DisallowListener).
    #[arg(long)]
    pub disallow: bool,
    /// Allow a disallowed listener again (AllowListener).
    #[arg(long)]
    pub allow: bool,
    /// Gateway base URL.
    #[arg(long, default_value = DEFAULT_GATEWAY)]
    pub gateway: String,
}

/// `mqgate rv cm-listener`.
pub fn cm_listener(a: CmListenerArgs) -> ExitCode {
    let body = match (&a.add, a.disallow) {
        (Some(subject), _) => json!({"action": "add", "subject": subject}),
        (None, true) => json!({"action": "disallow"}),
        (None, false) => json!({"action": "allow"}),
    };
    let gw = Gateway::new(&a.gateway, Duration::from_secs(30));
    let req = gw
        .request(
            "POST",
            &format!(
                "/v1/rv/cm/transports/{}/listeners/{}",
                segment(&a.cm_name),
                segment(&a.listener)
            ),
        )
        .set("Content-Type", "application/json");
    match super::rv_client::answer("cm-listener", req.send_string(&body.to_string())) {
        Ok(v) => {
            let line = format!(
                "{} {} {}",
                body["action"].as_str().unwrap_or(""),
                a.listener,
                if v["changed"] == true {
                    "done"
                } else {
                    "(no change)"
                }
            );
            out::line_or_exit("rv cm-listener", &line).unwrap_or(ExitCode::SUCCESS)
        }
        Err(exit) => exit,
    }
}

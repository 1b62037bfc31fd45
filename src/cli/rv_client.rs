//! `mqgate rv publish|listen|request`: the subject bus of a running gateway
//! over its HTTP API (docs/rendezvous.md "Command line", "HTTP API").

use std::io::BufReader;
use std::process::ExitCode;
use std::sync::mpsc;
use std::time::{Duration, Instant};

use clap::Args;
use serde_json::{Value, json};

use super::client::{DEFAULT_GATEWAY, Gateway, segment};
use super::out;
use super::rv_cm_client::LedgerArg;
use super::sse::{EventReader, SseEvent};
use crate::rv::field_arg::parse_field_arg;
use crate::rv::json::message_to_json;
use mqgate_codecs::rv::msg::Message;

/// Exit status: the gateway refused (its reason on stderr).
const EXIT_REFUSED: u8 = 1;
/// Exit status: the gateway could not be reached or ended the stream, or
/// an argument is invalid.
const EXIT_UNREACHABLE: u8 = 2;
/// Exit status: the time limit passed first.
const EXIT_TIMEOUT: u8 = 3;

/// How long a listener's stream may stay silent before the gateway is
/// taken for gone: four keep-alive intervals (docs/rendezvous.md "HTTP
/// API": a comment every 15 s).
const SILENCE: Duration = Duration::from_secs(60);

/// Options of `mqgate rv publish`.
#[derive(Args, Debug)]
#[command(
    after_help = "Prints `published SUBJECT to N listeners` (0 is no error: no one listened).\n\nExit status: 0 published; 1 refused by the gateway (the reason and its tibrv_status on stderr); 2 gateway unreachable, or an invalid argument (a --field that is not NAME:TYPE=VALUE or whose value is not of its type)."
)]
pub struct PublishArgs {
    /// The send subject, e.g. QUOTE.IBM (no wildcards unless the gateway's rv.wildcard_publish allows them).
    #[arg(long, allow_hyphen_values = true)]
    pub subject: String,
    /// A field NAME:TYPE=VALUE, e.g. price:f64=101.25 or bids:f64array=[1.5,2] (repeatable; docs/rendezvous.md "Command-line fields").
    #[arg(
        long = "field",
        value_name = "NAME:TYPE=VALUE",
        allow_hyphen_values = true
    )]
    pub fields: Vec<String>,
    /// The reply subject listeners should answer to.
    #[arg(long = "reply", value_name = "SUBJECT", allow_hyphen_values = true)]
    pub reply: Option<String>,
    /// Send certified, from the CM transport of this correspondent name (opened when it is not; docs/rendezvous.md "Certified delivery"); prints the sequence number.
    #[arg(long, value_name = "NAME", allow_hyphen_values = true)]
    pub cm_name: Option<String>,
    /// With --cm-name: the message's time limit in seconds (0 = none; default: the transport's).
    #[arg(long, value_name = "S", requires = "cm_name")]
    pub time_limit: Option<f64>,
    /// With --cm-name: where a transport opened here keeps its ledger.
    #[arg(long, value_enum, default_value_t = LedgerArg::Memory, requires = "cm_name")]
    pub cm_ledger: LedgerArg,
    /// Gateway base URL.
    #[arg(long, default_value = DEFAULT_GATEWAY)]
    pub gateway: String,
}

/// Options of `mqgate rv listen`.
#[derive(Args, Debug)]
#[command(
    after_help = "Prints one line per message: SUBJECT [reply=SUBJECT] [cm=SENDER/SEQUENCE] NAME:TYPE=VALUE ..., each VALUE in its JSON form (\"IBM\", 101.25, \"18446744073709551615\"); a field without a name is :TYPE=VALUE. --json prints the JSON form of each message instead. Once the listener is ready stderr says `listening to ...` (and `inbox SUBJECT` with --inbox).\n\nExit status: 0 --count messages received (or, without --count, --timeout passed); 1 refused by the gateway (an invalid subject: the reason and its tibrv_status on stderr); 2 gateway unreachable, or it ended the stream (it is stopping); 3 --timeout passed with fewer than --count messages."
)]
pub struct ListenArgs {
    /// A listen subject, with * (one element) and > (one or more trailing elements); repeatable.
    #[arg(
        long = "subject",
        value_name = "PATTERN",
        required_unless_present = "inbox",
        allow_hyphen_values = true
    )]
    pub subjects: Vec<String>,
    /// Listen on a new inbox made by the gateway as well (its subject on stderr).
    #[arg(long, conflicts_with = "cm_name")]
    pub inbox: bool,
    /// Listen certified, as the CM transport of this correspondent name (opened when it is not); each line carries cm=SENDER/SEQUENCE (0: not certified).
    #[arg(long, value_name = "NAME", allow_hyphen_values = true)]
    pub cm_name: Option<String>,
    /// With --cm-name: do not confirm messages as they are printed; confirm with `mqgate rv confirm`.
    #[arg(long, requires = "cm_name")]
    pub explicit_confirm: bool,
    /// With --cm-name: ask senders for the messages this name did not confirm (requestOld).
    #[arg(long, requires = "cm_name")]
    pub request_old: bool,
    /// With --cm-name: where a transport opened here keeps its ledger.
    #[arg(long, value_enum, default_value_t = LedgerArg::Memory, requires = "cm_name")]
    pub cm_ledger: LedgerArg,
    /// Stop after this many messages (at least 1).
    #[arg(long, value_parser = clap::value_parser!(u64).range(1..))]
    pub count: Option<u64>,
    /// Stop this many ms after the command started (1 to 2147483647).
    #[arg(long, value_name = "MS", value_parser = clap::value_parser!(u64).range(1..=super::MAX_MS))]
    pub timeout: Option<u64>,
    /// Print each message in its JSON form, one per line.
    #[arg(long)]
    pub json: bool,
    /// Gateway base URL.
    #[arg(long, default_value = DEFAULT_GATEWAY)]
    pub gateway: String,
}

/// Options of `mqgate rv request`.
#[derive(Args, Debug)]
#[command(
    after_help = "Publishes with a new inbox as reply subject and prints the first reply, in the form of `mqgate rv listen` (--json: its JSON form).\n\nExit status: 0 a reply came; 1 refused by the gateway (the reason and its tibrv_status on stderr); 2 gateway unreachable, or an invalid argument; 3 no reply within --timeout."
)]
pub struct RequestArgs {
    /// The send subject of the request.
    #[arg(long, allow_hyphen_values = true)]
    pub subject: String,
    /// A field NAME:TYPE=VALUE (repeatable).
    #[arg(
        long = "field",
        value_name = "NAME:TYPE=VALUE",
        allow_hyphen_values = true
    )]
    pub fields: Vec<String>,
    /// How long to wait for the reply, in ms (1 to 2147483647; the gateway's http.max_wait_ms may be lower).
    #[arg(long, value_name = "MS", default_value_t = 10_000, value_parser = clap::value_parser!(u64).range(1..=super::MAX_MS))]
    pub timeout: u64,
    /// Print the reply in its JSON form.
    #[arg(long)]
    pub json: bool,
    /// Gateway base URL.
    #[arg(long, default_value = DEFAULT_GATEWAY)]
    pub gateway: String,
}

/// The JSON body of a publish or request: `fields` from the `--field`
/// arguments, `reply_subject` when given. Errors: the first bad argument.
fn body(cmd: &str, fields: &[String], reply: Option<&str>) -> Result<Value, ExitCode> {
    let mut parsed = Vec::with_capacity(fields.len());
    for f in fields {
        match parse_field_arg(f) {
            Ok(field) => parsed.push(field),
            Err(e) => {
                // The status the gateway would answer for the same field
                // (docs/rendezvous.md "Errors").
                let st = e.status();
                eprintln!(
                    "mqgate rv {cmd}: {e} ({} {})",
                    st.name().unwrap_or("status"),
                    st.0
                );
                return Err(ExitCode::from(EXIT_UNREACHABLE));
            }
        }
    }
    let mut b = json!({"fields": message_to_json(&Message::new(parsed))});
    if let Some(r) = reply {
        b["reply_subject"] = json!(r);
    }
    Ok(b)
}

/// A refusal's text: its message and its `tibrv_status` (or MQRC, for the
/// gateway's own checks of a request).
fn refusal(code: u16, answer: &Value) -> String {
    let message = answer["message"].as_str().unwrap_or("refused");
    if let Some(name) = answer["tibrv_status"]["name"].as_str() {
        format!("{message} ({name} {})", answer["tibrv_status"]["number"])
    } else if let Some(reason) = answer["reason"].as_str() {
        format!("{message} ({} {reason})", answer["mqrc"])
    } else {
        format!("{message} (HTTP {code})")
    }
}

/// The exit for a failed call (reported on stderr naming `cmd`): 1 for a
/// refusal, 3 for a 504 with TIBRV_TIMEOUT, 2 when the gateway could not
/// be asked.
fn failure(cmd: &str, e: ureq::Error) -> ExitCode {
    match e {
        ureq::Error::Status(code, r) => {
            let v: Value = r.into_json().unwrap_or(Value::Null);
            eprintln!("mqgate rv {cmd}: {}", refusal(code, &v));
            if v["tibrv_status"]["number"] == 50 {
                ExitCode::from(EXIT_TIMEOUT)
            } else {
                ExitCode::from(EXIT_REFUSED)
            }
        }
        e => {
            eprintln!("mqgate rv {cmd}: {e}");
            ExitCode::from(EXIT_UNREACHABLE)
        }
    }
}

/// The JSON answer of a call, or the exit for its failure ([`failure`]).
pub(super) fn answer(
    cmd: &str,
    res: Result<ureq::Response, ureq::Error>,
) -> Result<Value, ExitCode> {
    match res {
        Ok(r) => r.into_json().map_err(|e| {
            eprintln!("mqgate rv {cmd}: the gateway's answer is not JSON: {e}");
            ExitCode::from(EXIT_UNREACHABLE)
        }),
        Err(e) => Err(failure(cmd, e)),
    }
}

/// `mqgate rv publish`.
pub fn publish(a: PublishArgs) -> ExitCode {
    let body = match body("publish", &a.fields, a.reply.as_deref()) {
        Ok(b) => b,
        Err(exit) => return exit,
    };
    if let Some(name) = &a.cm_name {
        return super::rv_cm_client::publish(
            &a.gateway,
            name,
            a.cm_ledger,
            &a.subject,
            a.time_limit,
            &body,
        );
    }
    let gw = Gateway::new(&a.gateway, Duration::from_secs(30));
    let req = gw
        .request("POST", &format!("/v1/rv/messages/{}", segment(&a.subject)))
        .set("Content-Type", "application/json");
    match answer("publish", req.send_string(&body.to_string())) {
        Ok(v) => {
            let n = v["listeners"].as_u64().unwrap_or(0);
            let line = format!(
                "published {} to {n} listener{}",
                a.subject,
                if n == 1 { "" } else { "s" }
            );
            out::line_or_exit("rv publish", &line).unwrap_or(ExitCode::SUCCESS)
        }
        Err(exit) => exit,
    }
}

/// `mqgate rv request`.
pub fn request(a: RequestArgs) -> ExitCode {
    let body = match body("request", &a.fields, None) {
        Ok(b) => b,
        Err(exit) => return exit,
    };
    let gw = Gateway::new(
        &a.gateway,
        Duration::from_millis(a.timeout) + Duration::from_secs(30),
    );
    let req = gw
        .request("POST", &format!("/v1/rv/requests/{}", segment(&a.subject)))
        .query("timeout_ms", &a.timeout.to_string())
        .set("Content-Type", "application/json");
    match answer("request", req.send_string(&body.to_string())) {
        Ok(reply) => {
            let line = if a.json {
                reply.to_string()
            } else {
                message_line(&reply)
            };
            out::line_or_exit("rv request", &line).unwrap_or(ExitCode::SUCCESS)
        }
        Err(exit) => exit,
    }
}

/// A message's JSON form as one readable line: `SUBJECT [reply=R]
/// [cm=SENDER/SEQUENCE] NAME:TYPE=VALUE ...` with each VALUE in its JSON
/// form.
pub fn message_line(m: &Value) -> String {
    let mut line = m["subject"].as_str().unwrap_or("").to_string();
    if let Some(r) = m["reply_subject"].as_str() {
        line.push_str(&format!(" reply={r}"));
    }
    if let Some(cm) = m["cm"].as_object() {
        let seq = cm.get("sequence").and_then(Value::as_str).unwrap_or("0");
        let sender = cm.get("sender").and_then(Value::as_str).unwrap_or("");
        line.push_str(&format!(" cm={sender}/{seq}"));
    }
    for f in m["fields"].as_array().into_iter().flatten() {
        line.push_str(&format!(
            " {}:{}={}",
            f["name"].as_str().unwrap_or(""),
            f["type"].as_str().unwrap_or(""),
            f["value"]
        ));
    }
    line
}

/// What the reading thread hands over.
enum Incoming {
    Event(SseEvent),
    /// The stream ended or failed: why.
    Gone(String),
}

/// `mqgate rv listen`.
pub fn listen(a: ListenArgs) -> ExitCode {
    let started = Instant::now();
    let deadline = a.timeout.map(|t| started + Duration::from_millis(t));
    let gw = Gateway::new(&a.gateway, SILENCE);
    let mut req = match &a.cm_name {
        Some(name) => {
            if let Err(exit) =
                super::rv_cm_client::open_transport("listen", &gw, name, a.cm_ledger, a.request_old)
            {
                return exit;
            }
            let confirm = if a.explicit_confirm {
                "explicit"
            } else {
                "auto"
            };
            gw.request(
                "GET",
                &format!("/v1/rv/cm/transports/{}/listen", segment(name)),
            )
            .query("confirm", confirm)
        }
        None => gw.request("GET", "/v1/rv/listen"),
    };
    for s in &a.subjects {
        req = req.query("subject", s);
    }
    if a.inbox {
        req = req.query("inbox", "true");
    }
    let res = match req.call() {
        Ok(r) => r,
        Err(e) => return failure("listen", e),
    };
    let (tx, rx) = mpsc::channel();
    std::thread::spawn(move || {
        let mut events = EventReader::new(BufReader::new(res.into_reader()));
        loop {
            let next = match events.next_event() {
                Ok(Some(e)) => Incoming::Event(e),
                Ok(None) => Incoming::Gone("the gateway closed the stream".into()),
                Err(e) => Incoming::Gone(format!("reading the stream: {e}")),
            };
            let gone = matches!(next, Incoming::Gone(_));
            if tx.send(next).is_err() || gone {
                return;
            }
        }
    });
    let mut received = 0u64;
    loop {
        let next = match deadline {
            Some(d) => match rx.recv_timeout(d.saturating_duration_since(Instant::now())) {
                Ok(n) => n,
                Err(mpsc::RecvTimeoutError::Timeout) => return timed_out(&a, received),
                Err(mpsc::RecvTimeoutError::Disconnected) => {
                    Incoming::Gone("the stream reader ended".into())
                }
            },
            None => rx
                .recv()
                .unwrap_or_else(|_| Incoming::Gone("the stream reader ended".into())),
        };
        let e = match next {
            Incoming::Event(e) => e,
            Incoming::Gone(why) => {
                eprintln!("mqgate rv listen: {why} after {received} messages");
                return ExitCode::from(EXIT_UNREACHABLE);
            }
        };
        match e.event.as_str() {
            "ready" => {
                let v: Value = serde_json::from_str(&e.data).unwrap_or(Value::Null);
                let subjects: Vec<&str> = v["subjects"]
                    .as_array()
                    .into_iter()
                    .flatten()
                    .filter_map(Value::as_str)
                    .collect();
                eprintln!("mqgate rv listen: listening to {}", subjects.join(", "));
                if let Some(inbox) = v["inbox"].as_str() {
                    eprintln!("mqgate rv listen: inbox {inbox}");
                }
            }
            "message" => {
                let line = if a.json {
                    e.data
                } else {
                    match serde_json::from_str::<Value>(&e.data) {
                        Ok(v) => message_line(&v),
                        Err(_) => e.data,
                    }
                };
                if let Some(exit) = out::line_or_exit("rv listen", &line) {
                    return exit;
                }
                received += 1;
                if a.count == Some(received) {
                    return ExitCode::SUCCESS;
                }
            }
            "end" => {
                let v: Value = serde_json::from_str(&e.data).unwrap_or(Value::Null);
                eprintln!(
                    "mqgate rv listen: the gateway ended the stream ({}) after {received} messages",
                    match v["reason"].as_str() {
                        Some("the transport closed") => "its CM transport closed",
                        _ => "it is stopping",
                    }
                );
                return ExitCode::from(EXIT_UNREACHABLE);
            }
            _ => {}
        }
    }
}

/// The exit of a `--timeout` that passed after `received` messages.
fn timed_out(a: &ListenArgs, received: u64) -> ExitCode {
    match a.count {
        Some(n) if received < n => {
            eprintln!(
                "mqgate rv listen: {received} of {n} messages within {} ms",
                a.timeout.unwrap_or(0)
            );
            ExitCode::from(EXIT_TIMEOUT)
        }
        _ => ExitCode::SUCCESS,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_line_form_names_each_field_with_its_type() {
        // docs/rendezvous.md "Command line": SUBJECT [reply=R]
        // [cm=SENDER/SEQUENCE] NAME:TYPE=VALUE ..., values in JSON form.
        let m = json!({
            "subject": "QUOTE.IBM",
            "reply_subject": "_INBOX.A.1",
            "cm": {"sender": "PRICER", "sequence": "7", "time_limit_s": 0.0},
            "fields": [
                {"name": "price", "type": "f64", "value": 101.25},
                {"name": "name", "type": "string", "value": "IBM Corp"},
                {"type": "u64", "value": "18446744073709551615"},
                {"name": "q", "type": "msg", "value": [{"name": "firm", "type": "bool", "value": true}]}
            ]
        });
        assert_eq!(
            message_line(&m),
            r#"QUOTE.IBM reply=_INBOX.A.1 cm=PRICER/7 price:f64=101.25 name:string="IBM Corp" :u64="18446744073709551615" q:msg=[{"name":"firm","type":"bool","value":true}]"#
        );
        assert_eq!(message_line(&json!({"subject": "A", "fields": []})), "A");
    }

    #[test]
    fn refusals_name_their_status() {
        let v = json!({"tibrv_status": {"number": 20, "name": "TIBRV_INVALID_SUBJECT"}, "message": "invalid subject \"A..B\": element 2 is empty"});
        assert_eq!(
            refusal(400, &v),
            "invalid subject \"A..B\": element 2 is empty (TIBRV_INVALID_SUBJECT 20)"
        );
        let v = json!({"mqrc": 2152, "reason": "MQRC_OBJECT_NAME_ERROR", "message": "m"});
        assert_eq!(refusal(400, &v), "m (2152 MQRC_OBJECT_NAME_ERROR)");
        assert_eq!(refusal(502, &Value::Null), "refused (HTTP 502)");
    }
}

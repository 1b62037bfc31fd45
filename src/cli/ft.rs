//! `mqgate ft ...`: fault tolerance groups of a running gateway
//! (docs/rendezvous.md "Fault tolerance"): `run` makes any program a
//! member of a group (src/cli/ft_run.rs), `monitor` prints a group's
//! active count as it changes.

use std::io::BufReader;
use std::process::ExitCode;
use std::sync::mpsc;
use std::time::{Duration, Instant};

use clap::{Args, Subcommand};
use serde_json::Value;

use super::client::{DEFAULT_GATEWAY, Gateway, segment};
use super::out;
use super::sse::{EventReader, SseEvent};

/// Exit status: refused (by the gateway or by the same checks here).
pub(super) const EXIT_REFUSED: u8 = 1;
/// Exit status: the gateway cannot be reached, or a usage error.
pub(super) const EXIT_UNREACHABLE: u8 = 2;
/// Exit status: `ft run` lost the group connection; `ft monitor`'s
/// `--timeout` passed with fewer than `--count` changes.
pub(super) const EXIT_LOST: u8 = 3;

/// `mqgate ft ...`.
#[derive(Subcommand, Debug)]
pub enum FtCommand {
    /// Run COMMAND as a member of a fault tolerance group: started on ACTIVATE, stopped on DEACTIVATE.
    Run(super::ft_run::RunArgs),
    /// Print a fault tolerance group's active count each time it changes (a passive monitor).
    Monitor(MonitorArgs),
}

/// Options of `mqgate ft monitor`.
#[derive(Args, Debug)]
#[command(
    after_help = "Prints the number of active members on stdout, one line each time it changes (nothing until a member is heard). Once the monitor is ready stderr says `monitoring GROUP`.\n\nExit status: 0 --count changes printed (or, without --count, --timeout passed); 1 refused by the gateway (an invalid group name or lost interval: the reason and its tibrv_status on stderr); 2 gateway unreachable, or it ended the stream (it is stopping), or a usage error; 3 --timeout passed with fewer than --count changes."
)]
pub struct MonitorArgs {
    /// The group name, e.g. Acme.FT.Group.
    #[arg(long, allow_hyphen_values = true)]
    pub group: String,
    /// Seconds of silence after which an active member is lost (positive); default: the activation interval each member announces.
    #[arg(long, value_name = "S", allow_negative_numbers = true)]
    pub lost_interval: Option<f64>,
    /// Stop after this many changes (at least 1).
    #[arg(long, value_parser = clap::value_parser!(u64).range(1..))]
    pub count: Option<u64>,
    /// Stop this many ms after the command started (1 to 2147483647).
    #[arg(long, value_name = "MS", value_parser = clap::value_parser!(u64).range(1..=super::MAX_MS))]
    pub timeout: Option<u64>,
    /// Gateway base URL.
    #[arg(long, default_value = DEFAULT_GATEWAY)]
    pub gateway: String,
}

/// Runs one `ft` subcommand.
pub fn run(cmd: FtCommand) -> ExitCode {
    match cmd {
        FtCommand::Run(a) => super::ft_run::run(a),
        FtCommand::Monitor(a) => monitor(a),
    }
}

/// A refusal's text with its `tibrv_status` (or MQRC, for the gateway's
/// own checks of a request).
pub(super) fn refusal(code: u16, answer: &Value) -> String {
    let message = answer["message"].as_str().unwrap_or("refused");
    if let Some(name) = answer["tibrv_status"]["name"].as_str() {
        format!("{message} ({name} {})", answer["tibrv_status"]["number"])
    } else if let Some(reason) = answer["reason"].as_str() {
        format!("{message} ({} {reason})", answer["mqrc"])
    } else {
        format!("{message} (HTTP {code})")
    }
}

/// What a stream-reading thread hands over.
pub(super) enum Incoming {
    Event(SseEvent),
    /// The stream ended or failed: why.
    Gone(String),
}

/// Reads the events of `res` on a thread of its own, each sent to `tx`
/// (through `send`), then one [`Incoming::Gone`].
pub(super) fn read_events<F>(res: ureq::Response, send: F)
where
    F: Fn(Incoming) -> bool + Send + 'static,
{
    std::thread::spawn(move || {
        let mut events = EventReader::new(BufReader::new(res.into_reader()));
        loop {
            let next = match events.next_event() {
                Ok(Some(e)) => Incoming::Event(e),
                Ok(None) => Incoming::Gone("the gateway closed the stream".into()),
                Err(e) => Incoming::Gone(format!("reading the stream: {e}")),
            };
            let gone = matches!(next, Incoming::Gone(_));
            if !send(next) || gone {
                return;
            }
        }
    });
}

/// `mqgate ft monitor`.
fn monitor(a: MonitorArgs) -> ExitCode {
    let started = Instant::now();
    let deadline = a.timeout.map(|t| started + Duration::from_millis(t));
    // The gateway sends a comment every 15 s; four missed mean it is gone.
    let gw = Gateway::new(&a.gateway, Duration::from_secs(60));
    let mut req = gw.request(
        "GET",
        &format!("/v1/rv/ft/groups/{}/monitor", segment(&a.group)),
    );
    if let Some(l) = a.lost_interval {
        req = req.query("lost_interval", &l.to_string());
    }
    let res = match req.call() {
        Ok(r) => r,
        Err(ureq::Error::Status(code, r)) => {
            let v: Value = r.into_json().unwrap_or(Value::Null);
            eprintln!("mqgate ft monitor: {}", refusal(code, &v));
            return ExitCode::from(EXIT_REFUSED);
        }
        Err(e) => {
            eprintln!("mqgate ft monitor: {e}");
            return ExitCode::from(EXIT_UNREACHABLE);
        }
    };
    let (tx, rx) = mpsc::channel();
    read_events(res, move |i| tx.send(i).is_ok());
    let mut printed = 0u64;
    loop {
        let next = match deadline {
            Some(d) => match rx.recv_timeout(d.saturating_duration_since(Instant::now())) {
                Ok(n) => n,
                Err(mpsc::RecvTimeoutError::Timeout) => {
                    return match a.count {
                        Some(n) if printed < n => {
                            eprintln!(
                                "mqgate ft monitor: {printed} of {n} changes within {} ms",
                                a.timeout.unwrap_or(0)
                            );
                            ExitCode::from(EXIT_LOST)
                        }
                        _ => ExitCode::SUCCESS,
                    };
                }
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
                eprintln!("mqgate ft monitor: {why}");
                return ExitCode::from(EXIT_UNREACHABLE);
            }
        };
        match e.event.as_str() {
            "ready" => eprintln!("mqgate ft monitor: monitoring {}", a.group),
            "active" => {
                let v: Value = serde_json::from_str(&e.data).unwrap_or(Value::Null);
                let n = v["active"].as_u64().unwrap_or(0);
                if let Some(exit) = out::line_or_exit("ft monitor", &n.to_string()) {
                    return exit;
                }
                printed += 1;
                if a.count == Some(printed) {
                    return ExitCode::SUCCESS;
                }
            }
            "end" => {
                eprintln!("mqgate ft monitor: the gateway ended the stream (it is stopping)");
                return ExitCode::from(EXIT_UNREACHABLE);
            }
            _ => {}
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn refusals_name_their_status() {
        let v = json!({"tibrv_status": {"number": 3, "name": "TIBRV_INVALID_ARG"}, "message": "m"});
        assert_eq!(refusal(400, &v), "m (TIBRV_INVALID_ARG 3)");
        assert_eq!(refusal(502, &Value::Null), "refused (HTTP 502)");
    }
}

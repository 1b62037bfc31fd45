//! `mqgate ft run`: makes any program fault tolerant (docs/rendezvous.md
//! "mqgate ft run"). It joins a group on the gateway, holds the member's
//! actions stream (which keeps the member alive), starts COMMAND on
//! ACTIVATE, runs the prepare hook on PREPARE_TO_ACTIVATE, and stops
//! COMMAND (SIGTERM, then SIGKILL after `--grace`) on DEACTIVATE, when the
//! group connection is lost, or when it is itself asked to stop.

use std::io;
use std::process::{ExitCode, ExitStatus};
use std::time::Duration;

use clap::Args;
use serde_json::{Value, json};

use super::client::{DEFAULT_GATEWAY, Gateway, segment};
use super::ft::{EXIT_LOST, EXIT_REFUSED, EXIT_UNREACHABLE, Incoming, read_events, refusal};
use super::ft_child::{self, Running, describe};
use super::run::StopSignals;
use crate::rv::ft::params::check_group;
use crate::rv::ft::{Action, FtError, FtParams};

/// Exit status: COMMAND exited by itself with a failure or a signal.
const EXIT_COMMAND_FAILED: u8 = 4;
/// Exit status: COMMAND could not be started.
const EXIT_COMMAND_UNSTARTED: u8 = 5;

/// Options of `mqgate ft run`.
#[derive(Args, Debug)]
#[command(
    after_help = "COMMAND starts on TIBRVFT_ACTIVATE and is stopped on TIBRVFT_DEACTIVATE: SIGTERM to its process group, SIGKILL after --grace seconds. --prepare runs `sh -c CMD` on TIBRVFT_PREPARE_TO_ACTIVATE, in the background. Both get MQGATE_FT_GROUP and MQGATE_FT_MEMBER in their environment; on Linux they are killed if `mqgate ft run` itself dies. stderr tells what happens: `joined GROUP as member ID`, `rank R of N (...)`, each action, each advisory.\n\nExit status: 0 stopped by SIGINT or SIGTERM (COMMAND stopped, the member left), or COMMAND exited with status 0 (the member left); 1 refused: an invalid group name or parameter (checked here and by the gateway; the reason and its tibrv_status on stderr); 2 the gateway cannot be reached to join, or a usage error; 3 the group connection was lost (the gateway stopped or went silent for the activation interval; COMMAND stopped); 4 COMMAND exited by itself with a failure or a signal (the member left); 5 COMMAND could not be started (the member left)."
)]
pub struct RunArgs {
    /// The group name, e.g. Acme.FT.Group (a reusable name: subject syntax, no wildcards, no leading `_`).
    #[arg(long, allow_hyphen_values = true)]
    pub group: String,
    /// The member's weight, 1 to 65535: the highest ranks first.
    #[arg(long)]
    pub weight: u16,
    /// How many members of the group should be active (the same for every member).
    #[arg(long)]
    pub active_goal: u16,
    /// Heartbeat interval, seconds (at least 0.01, less than --activation).
    #[arg(long, value_name = "S", allow_negative_numbers = true)]
    pub heartbeat: f64,
    /// Activation interval, seconds: how long a member may be silent before another replaces it (the same for every member).
    #[arg(long, value_name = "S", allow_negative_numbers = true)]
    pub activation: f64,
    /// Preparation interval, seconds: 0 (no prepare hint) or between --heartbeat and --activation.
    #[arg(
        long,
        value_name = "S",
        default_value_t = 0.0,
        allow_negative_numbers = true
    )]
    pub preparation: f64,
    /// A shell command run on TIBRVFT_PREPARE_TO_ACTIVATE (`sh -c CMD`).
    #[arg(long, value_name = "CMD")]
    pub prepare: Option<String>,
    /// Seconds between SIGTERM and SIGKILL when COMMAND is stopped (0 to 86400).
    #[arg(
        long,
        value_name = "S",
        default_value_t = 10.0,
        allow_negative_numbers = true
    )]
    pub grace: f64,
    /// Gateway base URL.
    #[arg(long, default_value = DEFAULT_GATEWAY)]
    pub gateway: String,
    /// The program and its arguments, after `--`.
    #[arg(last = true, required = true, value_name = "COMMAND")]
    pub command: Vec<String>,
}

fn refused(e: &FtError) -> ExitCode {
    let s = e.status();
    eprintln!(
        "mqgate ft run: {e} ({} {})",
        s.name().unwrap_or("tibrv_status"),
        s.0
    );
    ExitCode::from(EXIT_REFUSED)
}

/// `mqgate ft run`.
pub fn run(a: RunArgs) -> ExitCode {
    if let Err(e) = check_group(&a.group) {
        return refused(&e);
    }
    let params = match FtParams::from_seconds(
        a.weight,
        a.active_goal,
        a.heartbeat,
        a.preparation,
        a.activation,
    ) {
        Ok(p) => p,
        Err(e) => return refused(&e),
    };
    let grace = match Duration::try_from_secs_f64(a.grace) {
        Ok(g) if g <= Duration::from_secs(86_400) => g,
        _ => {
            eprintln!(
                "mqgate ft run: --grace {} is not 0 to 86400 seconds",
                a.grace
            );
            return ExitCode::from(EXIT_UNREACHABLE);
        }
    };
    let runtime = match tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
    {
        Ok(r) => r,
        Err(e) => {
            eprintln!("mqgate ft run: cannot start the runtime: {e}");
            return ExitCode::FAILURE;
        }
    };
    runtime.block_on(member(a, params, grace))
}

/// Runs a blocking HTTP call off the runtime's thread.
async fn blocking<T: Send + 'static>(f: impl FnOnce() -> T + Send + 'static) -> T {
    match tokio::task::spawn_blocking(f).await {
        Ok(v) => v,
        Err(e) => std::panic::resume_unwind(e.into_panic()),
    }
}

/// Waits for `p` to end; never, without one.
async fn ended(p: &mut Option<Running>) -> io::Result<ExitStatus> {
    match p {
        Some(r) => r.wait().await,
        None => std::future::pending().await,
    }
}

/// What `ft run` holds while it is a member.
struct Run {
    a: RunArgs,
    grace: Duration,
    member: String,
    program: Option<Running>,
    hook: Option<Running>,
    /// Rank, members, active: the last status line printed.
    shown: Option<(u64, u64, bool)>,
}

async fn member(a: RunArgs, params: FtParams, grace: Duration) -> ExitCode {
    let mut signals = StopSignals::install();
    let body = json!({
        "weight": params.weight,
        "active_goal": params.active_goal,
        "heartbeat_interval": a.heartbeat,
        "preparation_interval": a.preparation,
        "activation_interval": a.activation,
    });
    let base = a.gateway.clone();
    let path = format!("/v1/rv/ft/groups/{}/members", segment(&a.group));
    let joined = blocking(move || {
        let res = Gateway::new(&base, Duration::from_secs(30))
            .request("POST", &path)
            .set("Content-Type", "application/json")
            .send_string(&body.to_string());
        match res {
            Ok(r) => match r.into_json::<Value>() {
                Ok(v) => match v["member"].as_str() {
                    Some(id) => Ok(id.to_string()),
                    None => Err((
                        EXIT_UNREACHABLE,
                        format!("the gateway's answer names no member: {v}"),
                    )),
                },
                Err(e) => Err((
                    EXIT_UNREACHABLE,
                    format!("the gateway's answer is not JSON: {e}"),
                )),
            },
            Err(ureq::Error::Status(code, r)) => {
                let v: Value = r.into_json().unwrap_or(Value::Null);
                Err((EXIT_REFUSED, refusal(code, &v)))
            }
            Err(e) => Err((EXIT_UNREACHABLE, e.to_string())),
        }
    })
    .await;
    let id = match joined {
        Ok(id) => id,
        Err((exit, why)) => {
            eprintln!("mqgate ft run: {why}");
            return ExitCode::from(exit);
        }
    };
    eprintln!(
        "mqgate ft run: joined {} as member {id} (weight {}, active goal {})",
        a.group, params.weight, params.active_goal
    );
    // The gateway writes at least every heartbeat interval; silence for
    // the activation interval (and one heartbeat) is a lost connection.
    let silence = params.activation + params.heartbeat;
    let base = a.gateway.clone();
    let path = format!("/v1/rv/ft/members/{}/actions", segment(&id));
    let stream = blocking(move || {
        Gateway::new(&base, silence)
            .request("GET", &path)
            .call()
            .map_err(|e| match e {
                ureq::Error::Status(code, r) => {
                    refusal(code, &r.into_json::<Value>().unwrap_or(Value::Null))
                }
                e => e.to_string(),
            })
    })
    .await;
    let mut run = Run {
        a,
        grace,
        member: id,
        program: None,
        hook: None,
        shown: None,
    };
    let res = match stream {
        Ok(r) => r,
        Err(why) => {
            eprintln!("mqgate ft run: the actions stream cannot be opened: {why}");
            run.leave().await;
            return ExitCode::from(EXIT_LOST);
        }
    };
    let (tx, mut rx) = tokio::sync::mpsc::unbounded_channel();
    read_events(res, move |i| tx.send(i).is_ok());
    loop {
        tokio::select! {
            i = rx.recv() => {
                let e = match i {
                    Some(Incoming::Event(e)) => e,
                    Some(Incoming::Gone(why)) => return run.lost(&why).await,
                    None => return run.lost("the stream reader ended").await,
                };
                if let Some(exit) = run.event(&e.event, &e.data).await {
                    return exit;
                }
            }
            status = ended(&mut run.program) => {
                return run.program_ended(status).await;
            }
            status = ended(&mut run.hook) => {
                eprintln!("mqgate ft run: the prepare hook ended: {}", describe(&status));
                run.hook = None;
            }
            () = signals.recv() => {
                eprintln!("mqgate ft run: asked to stop; leaving the group");
                run.stop_program().await;
                run.leave().await;
                return ExitCode::SUCCESS;
            }
        }
    }
}

impl Run {
    fn program_name(&self) -> &str {
        self.a.command.first().map_or("COMMAND", String::as_str)
    }

    /// Handles one event; `Some(exit)` to end.
    async fn event(&mut self, event: &str, data: &str) -> Option<ExitCode> {
        let v: Value = serde_json::from_str(data).unwrap_or(Value::Null);
        match event {
            "status" => {
                let now = (
                    v["rank"].as_u64().unwrap_or(0),
                    v["members"].as_u64().unwrap_or(0),
                    v["active"].as_bool().unwrap_or(false),
                );
                if self.shown != Some(now) {
                    self.shown = Some(now);
                    eprintln!(
                        "mqgate ft run: rank {} of {} ({}, {} active)",
                        now.0,
                        now.1,
                        if now.2 { "active" } else { "inactive" },
                        v["active_members"].as_u64().unwrap_or(0)
                    );
                }
                None
            }
            "action" => {
                let action = v["action"]["number"].as_u64().and_then(Action::from_number);
                match action {
                    Some(Action::PrepareToActivate) => {
                        self.prepare();
                        None
                    }
                    Some(Action::Activate) => self.activate().await,
                    Some(Action::Deactivate) => {
                        eprintln!("mqgate ft run: {}", Action::Deactivate);
                        self.stop_program().await;
                        None
                    }
                    None => {
                        eprintln!("mqgate ft run: an action this version does not know: {data}");
                        None
                    }
                }
            }
            "advisory" => {
                let desc = v["fields"]
                    .as_array()
                    .into_iter()
                    .flatten()
                    .find(|f| f["name"] == "ADV_DESC")
                    .and_then(|f| f["value"].as_str())
                    .unwrap_or("");
                eprintln!(
                    "mqgate ft run: advisory {}: {desc}",
                    v["subject"].as_str().unwrap_or("")
                );
                None
            }
            "end" => Some(
                self.lost(&format!(
                    "the gateway ended the member: {}",
                    v["reason"].as_str().unwrap_or("")
                ))
                .await,
            ),
            _ => None,
        }
    }

    fn prepare(&mut self) {
        let Some(cmd) = self.a.prepare.clone() else {
            eprintln!(
                "mqgate ft run: {} (no prepare hook)",
                Action::PrepareToActivate
            );
            return;
        };
        if let Some(h) = self.hook.as_mut()
            && matches!(h.try_wait(), Ok(None))
        {
            eprintln!(
                "mqgate ft run: {}: the prepare hook is still running (pid {})",
                Action::PrepareToActivate,
                h.pid
            );
            return;
        }
        let argv = ["sh".to_string(), "-c".to_string(), cmd];
        match ft_child::start("prepare hook", &argv, &self.a.group, &self.member) {
            Ok(h) => {
                eprintln!(
                    "mqgate ft run: {}: running the prepare hook (pid {})",
                    Action::PrepareToActivate,
                    h.pid
                );
                self.hook = Some(h);
            }
            Err(e) => eprintln!("mqgate ft run: the prepare hook cannot be started: {e}"),
        }
    }

    async fn activate(&mut self) -> Option<ExitCode> {
        if let Some(p) = &self.program {
            eprintln!(
                "mqgate ft run: {}: {} is running already (pid {})",
                Action::Activate,
                p.what,
                p.pid
            );
            return None;
        }
        let name = self.program_name().to_string();
        match ft_child::start(&name, &self.a.command, &self.a.group, &self.member) {
            Ok(p) => {
                eprintln!(
                    "mqgate ft run: {}: started {name} (pid {})",
                    Action::Activate,
                    p.pid
                );
                self.program = Some(p);
                None
            }
            Err(e) => {
                eprintln!("mqgate ft run: {name} cannot be started: {e}; leaving the group");
                self.leave().await;
                Some(ExitCode::from(EXIT_COMMAND_UNSTARTED))
            }
        }
    }

    async fn stop_program(&mut self) {
        let Some(mut p) = self.program.take() else {
            return;
        };
        eprintln!("mqgate ft run: stopping {} (pid {})", p.what, p.pid);
        let (status, killed) = p.stop(self.grace).await;
        eprintln!(
            "mqgate ft run: {} (pid {}) ended: {}{}",
            p.what,
            p.pid,
            describe(&status),
            if killed {
                " (SIGKILL after --grace)"
            } else {
                ""
            }
        );
    }

    async fn program_ended(&mut self, status: io::Result<ExitStatus>) -> ExitCode {
        let (what, pid) = self
            .program
            .take()
            .map_or((String::new(), 0), |p| (p.what, p.pid));
        eprintln!(
            "mqgate ft run: {what} (pid {pid}) exited by itself: {}; leaving the group",
            describe(&status)
        );
        self.leave().await;
        match status {
            Ok(s) if s.success() => ExitCode::SUCCESS,
            _ => ExitCode::from(EXIT_COMMAND_FAILED),
        }
    }

    async fn lost(&mut self, why: &str) -> ExitCode {
        eprintln!("mqgate ft run: the group connection was lost ({why})");
        self.stop_program().await;
        ExitCode::from(EXIT_LOST)
    }

    /// Leaves the group (`DELETE`); a gateway that cannot be asked any
    /// more drops the member anyway once the stream is gone.
    async fn leave(&self) {
        let base = self.a.gateway.clone();
        let path = format!("/v1/rv/ft/members/{}", segment(&self.member));
        let _ = blocking(move || {
            Gateway::new(&base, Duration::from_secs(5))
                .request("DELETE", &path)
                .call()
                .map(drop)
                .map_err(drop)
        })
        .await;
    }
}

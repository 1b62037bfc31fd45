//! `mqgate dq worker` and `mqgate dq scheduler`: members of a Rendezvous
//! distributed queue over a running gateway's HTTP API (docs/rendezvous.md
//! "Distributed queues", "Command line").
//!
//! A worker joins (`POST /v1/rv/dq/{name}/members`), reads its tasks
//! (`GET /v1/rv/dq/members/{id}/tasks`) and runs COMMAND once per task,
//! the task on its standard input; the exit status decides what is
//! reported (`.../complete` or `.../release`). The member lives while the
//! command does: when it ends, its stream closes and the scheduler gives
//! its certified tasks to others.

use std::collections::HashSet;
use std::io::{BufReader, Write};
use std::process::{Command, ExitCode, Stdio};
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::sync::{Arc, Mutex};
use std::time::Duration;

use base64::Engine;
use clap::builder::RangedU64ValueParser;
use clap::{Args, Subcommand, ValueEnum};
use serde_json::{Value, json};

use super::client::{DEFAULT_GATEWAY, EXIT_UNREACHABLE, Gateway, segment};
use super::sse::EventReader;

/// Exit status of COMMAND that gives the task back (EX_TEMPFAIL of
/// `sysexits.h`: a temporary failure, to be tried again).
pub const EXIT_RELEASE: i32 = 75;
/// Exit of `mqgate dq`: the gateway refused the join.
const EXIT_REFUSED: u8 = 1;
/// Exit of `mqgate dq worker`: COMMAND could not be started (as `mqgate ft
/// run`'s 5); the task was given back and the member left, so that the
/// scheduler gives it to another worker instead of to this one again.
pub const EXIT_NOT_STARTED: u8 = 5;

/// Distributed queue members.
#[derive(Subcommand, Debug)]
pub enum DqCommand {
    /// Join a distributed queue as a worker and run COMMAND once per task.
    ///
    /// Each task's message goes to COMMAND's standard input (--input json:
    /// its JSON form on one line; --input data: the bytes of its first
    /// field named DATA, Data or data). Environment: MQGATE_DQ_MEMBER,
    /// MQGATE_DQ_TASK (the task number), MQGATE_DQ_SUBJECT,
    /// MQGATE_DQ_CERTIFIED (1 or 0).
    ///
    /// COMMAND's exit status: 0 reports the task complete (a certified task
    /// is confirmed to its sender); 75 (EX_TEMPFAIL) gives it back, and the
    /// scheduler assigns it again; any other status (or a signal) is logged
    /// on stderr and the task is reported complete, so that a task that
    /// always fails is not retried for ever. When COMMAND cannot be started
    /// the task is given back and the worker leaves (exit 5).
    ///
    /// Exit statuses of mqgate dq worker: 0 when --count tasks were done;
    /// 1 when the gateway refused the join (an invalid name, subject or
    /// interval); 2 when the gateway is unreachable, ended the stream (it
    /// is stopping), or on a usage error; 5 when COMMAND could not be
    /// started (the task given back, the member left).
    Worker(WorkerArgs),
    /// Join a distributed queue as a dedicated scheduler (worker tasks 0)
    /// and stay until killed. Exit statuses: 1 refused; 2 unreachable, the
    /// stream ended, or a usage error.
    Scheduler(SchedulerArgs),
}

/// What the tasks' standard input is.
#[derive(Clone, Copy, Debug, PartialEq, Eq, ValueEnum)]
pub enum InputArg {
    /// The message's JSON form (docs/rendezvous.md "JSON form"), one line.
    Json,
    /// The bytes of the first field named DATA, Data or data (string,
    /// opaque or xml); nothing when there is none.
    Data,
}

/// What every member gives.
#[derive(Args, Debug)]
pub struct MemberArgs {
    /// The gateway's HTTP address.
    #[arg(long, default_value = DEFAULT_GATEWAY)]
    pub gateway: String,
    /// The distributed queue's name (a reusable name, at most 50 bytes).
    #[arg(long)]
    pub queue: String,
    /// A task subject (repeatable); default: the queue's name. Every member
    /// must give the same subjects.
    #[arg(long = "subject")]
    pub subjects: Vec<String>,
    /// Scheduler weight: the greatest schedules.
    #[arg(long, default_value_t = 1, value_parser = RangedU64ValueParser::<u16>::new())]
    pub scheduler_weight: u16,
    /// Scheduler heartbeat interval, seconds.
    #[arg(long, default_value_t = 1.0)]
    pub heartbeat: f64,
    /// Scheduler activation interval, seconds (longer than --heartbeat).
    #[arg(long, default_value_t = 3.5)]
    pub activation: f64,
    /// Complete time, seconds: a certified task not completed in time goes
    /// to another worker; 0 = never.
    #[arg(long, default_value_t = 0.0)]
    pub complete_time: f64,
}

/// `mqgate dq worker`.
#[derive(Args, Debug)]
pub struct WorkerArgs {
    #[command(flatten)]
    pub member: MemberArgs,
    /// Worker weight: the available worker of greatest weight gets each task.
    #[arg(long, default_value_t = 1, value_parser = RangedU64ValueParser::<u32>::new())]
    pub weight: u32,
    /// Task capacity: tasks run at once (at least 1).
    #[arg(long, default_value_t = 1, value_parser = RangedU64ValueParser::<u32>::new().range(1..=65_536))]
    pub tasks: u32,
    /// What COMMAND reads.
    #[arg(long, value_enum, default_value_t = InputArg::Json)]
    pub input: InputArg,
    /// Stop after this many tasks were reported complete.
    #[arg(long)]
    pub count: Option<u64>,
    /// The command and its arguments, after `--`.
    #[arg(required = true, last = true)]
    pub command: Vec<String>,
}

/// `mqgate dq scheduler`.
#[derive(Args, Debug)]
pub struct SchedulerArgs {
    #[command(flatten)]
    pub member: MemberArgs,
}

/// Runs a `mqgate dq` command.
pub fn run(cmd: DqCommand) -> ExitCode {
    match cmd {
        DqCommand::Worker(a) => {
            let (weight, tasks) = (a.weight, a.tasks);
            member("worker", &a.member, weight, tasks, Some(&a))
        }
        DqCommand::Scheduler(a) => member("scheduler", &a.member, 1, 0, None),
    }
}

/// The refusal in a gateway's error answer.
fn refusal(code: u16, v: &Value) -> String {
    let st = &v["tibrv_status"];
    match (
        v["message"].as_str(),
        st["name"].as_str(),
        st["number"].as_u64(),
    ) {
        (Some(m), Some(name), Some(n)) => format!("{m} ({name} {n})"),
        _ => format!("HTTP {code}"),
    }
}

fn post(gw: &Gateway, path: &str, body: Option<&Value>) -> Result<Value, (u8, String)> {
    let req = gw.request("POST", path);
    let res = match body {
        Some(b) => req
            .set("Content-Type", "application/json")
            .send_string(&b.to_string()),
        None => req.call(),
    };
    match res {
        Ok(r) => r.into_json().map_err(|e| {
            (
                EXIT_UNREACHABLE,
                format!("the gateway's answer is not JSON: {e}"),
            )
        }),
        Err(ureq::Error::Status(code, r)) => {
            let v: Value = r.into_json().unwrap_or(Value::Null);
            Err((EXIT_REFUSED, refusal(code, &v)))
        }
        Err(e) => Err((EXIT_UNREACHABLE, e.to_string())),
    }
}

/// Joins, reads the stream, and (for a worker) runs the tasks.
fn member(
    cmd: &str,
    m: &MemberArgs,
    weight: u32,
    tasks: u32,
    worker: Option<&WorkerArgs>,
) -> ExitCode {
    let fail = |code: u8, text: String| {
        eprintln!("mqgate dq {cmd}: {text}");
        ExitCode::from(code)
    };
    let gw = Gateway::new(&m.gateway, Duration::from_secs(60));
    let subjects = if m.subjects.is_empty() {
        vec![m.queue.clone()]
    } else {
        m.subjects.clone()
    };
    let body = json!({
        "subjects": subjects,
        "worker_weight": weight,
        "worker_tasks": tasks,
        "scheduler_weight": m.scheduler_weight,
        "scheduler_heartbeat_s": m.heartbeat,
        "scheduler_activation_s": m.activation,
        "complete_time_s": m.complete_time,
    });
    let joined = match post(
        &gw,
        &format!("/v1/rv/dq/{}/members", segment(&m.queue)),
        Some(&body),
    ) {
        Ok(v) => v,
        Err((code, text)) => return fail(code, text),
    };
    let Some(id) = joined["member"].as_str().map(str::to_string) else {
        return fail(
            EXIT_UNREACHABLE,
            "the gateway's answer has no member id".into(),
        );
    };
    let stream = match gw
        .request("GET", &format!("/v1/rv/dq/members/{}/tasks", segment(&id)))
        .call()
    {
        Ok(r) => r,
        Err(ureq::Error::Status(code, r)) => {
            let v: Value = r.into_json().unwrap_or(Value::Null);
            return fail(EXIT_REFUSED, refusal(code, &v));
        }
        Err(e) => return fail(EXIT_UNREACHABLE, e.to_string()),
    };
    eprintln!(
        "mqgate dq {cmd}: member {id} of {} listening to {}",
        m.queue,
        subjects.join(", ")
    );
    let shared = Arc::new(Shared {
        gw,
        id,
        queue: m.queue.clone(),
        done: AtomicU64::new(0),
        withdrawn: Mutex::new(HashSet::new()),
        leaving: AtomicBool::new(false),
    });
    let mut events = EventReader::new(BufReader::new(stream.into_reader()));
    loop {
        let e = match events.next_event() {
            Ok(Some(e)) => e,
            Ok(None) => return fail(EXIT_UNREACHABLE, "the gateway closed the stream".into()),
            Err(e) => return fail(EXIT_UNREACHABLE, format!("the stream failed: {e}")),
        };
        match e.event.as_str() {
            "task" => {
                if let Some(w) = worker {
                    let shared = Arc::clone(&shared);
                    let data = e.data.clone();
                    let (input, command) = (w.input, w.command.clone());
                    std::thread::spawn(move || shared.run_task(&data, input, &command));
                }
            }
            "withdrawn" => {
                if let Some(n) = serde_json::from_str::<Value>(&e.data)
                    .ok()
                    .and_then(|v| v["task"].as_u64())
                {
                    shared.lock_withdrawn().insert(n);
                }
            }
            "scheduler" => {
                let active = e.data.contains("true");
                eprintln!(
                    "mqgate dq {cmd}: {}",
                    if active {
                        "this member is the scheduler"
                    } else {
                        "this member is no longer the scheduler"
                    }
                );
            }
            "end" => {
                return fail(
                    EXIT_UNREACHABLE,
                    format!("the gateway ended the stream: {}", e.data),
                );
            }
            _ => {}
        }
        if let Some(n) = worker.and_then(|w| w.count)
            && shared.done.load(Ordering::Acquire) >= n
        {
            return ExitCode::SUCCESS;
        }
    }
}

/// What the task threads share.
struct Shared {
    gw: Gateway,
    id: String,
    queue: String,
    done: AtomicU64,
    withdrawn: Mutex<HashSet<u64>>,
    /// Set once COMMAND could not start: the worker is leaving, and a task
    /// that reaches it meanwhile is given back without being tried.
    leaving: AtomicBool,
}

impl Shared {
    fn lock_withdrawn(&self) -> std::sync::MutexGuard<'_, HashSet<u64>> {
        self.withdrawn.lock().unwrap_or_else(|p| p.into_inner())
    }

    /// Runs COMMAND for the task event `data` and reports the outcome.
    fn run_task(&self, data: &str, input: InputArg, command: &[String]) {
        let Ok(v) = serde_json::from_str::<Value>(data) else {
            eprintln!("mqgate dq worker: a task event that is not JSON");
            return;
        };
        let Some(n) = v["task"].as_u64() else {
            eprintln!("mqgate dq worker: a task event without a task number");
            return;
        };
        let msg = &v["message"];
        let stdin = match input {
            InputArg::Json => {
                let mut line = msg.to_string().into_bytes();
                line.push(b'\n');
                line
            }
            InputArg::Data => data_field(msg),
        };
        let Some((program, args)) = command.split_first() else {
            return;
        };
        if self.leaving.load(Ordering::Acquire) {
            let path = format!("/v1/rv/dq/members/{}/tasks/{n}/release", segment(&self.id));
            let _ = post(&self.gw, &path, None);
            return;
        }
        let mut cmd = Command::new(program);
        cmd.args(args)
            .env("MQGATE_DQ_MEMBER", &self.id)
            .env("MQGATE_DQ_TASK", n.to_string())
            .env("MQGATE_DQ_SUBJECT", msg["subject"].as_str().unwrap_or(""))
            .env(
                "MQGATE_DQ_CERTIFIED",
                if v["certified"] == true { "1" } else { "0" },
            )
            .stdin(Stdio::piped());
        die_with_parent(&mut cmd);
        let child = cmd.spawn();
        let status = match child {
            Ok(mut c) => {
                if let Some(mut s) = c.stdin.take() {
                    // A command that does not read its input is no error.
                    let _ = s.write_all(&stdin);
                }
                c.wait()
            }
            Err(e) => Err(e),
        };
        let release = match &status {
            Ok(s) if s.success() => false,
            Ok(s) if s.code() == Some(EXIT_RELEASE) => true,
            Ok(s) => {
                eprintln!(
                    "mqgate dq worker: task {n}: {program} ended with {s}; reported complete"
                );
                false
            }
            Err(e) => {
                // Before the release: the scheduler may give the task back
                // to this worker at once.
                self.leaving.store(true, Ordering::Release);
                eprintln!("mqgate dq worker: task {n}: cannot run {program}: {e}; given back");
                true
            }
        };
        let verb = if release { "release" } else { "complete" };
        let path = format!("/v1/rv/dq/members/{}/tasks/{n}/{verb}", segment(&self.id));
        match post(&self.gw, &path, None) {
            Ok(_) => {
                if !release {
                    self.done.fetch_add(1, Ordering::AcqRel);
                }
            }
            Err((_, text)) => {
                if !self.lock_withdrawn().remove(&n) {
                    eprintln!("mqgate dq worker: task {n}: {verb}: {text}");
                }
            }
        }
        // A command that cannot start now will not start for the next task
        // either, and as the available worker of greatest weight this one
        // would get the task back at once, for ever: leave instead. The
        // stream closes with the process, the member leaves, and its other
        // certified tasks go to other workers.
        if status.is_err() {
            eprintln!("mqgate dq worker: leaving {}", self.queue);
            std::process::exit(i32::from(EXIT_NOT_STARTED));
        }
    }
}

/// On Linux, COMMAND gets PR_SET_PDEATHSIG (SIGKILL): when `mqgate dq
/// worker` dies, its member leaves and the scheduler gives the task to
/// another worker, so the command must not run on beside it. (The signal
/// follows the thread that starts the command; that thread waits for it.)
fn die_with_parent(cmd: &mut Command) {
    #[cfg(target_os = "linux")]
    {
        use std::os::unix::process::CommandExt;
        // SAFETY: the closure runs in the child between fork and exec and
        // calls only prctl, which is async-signal-safe and touches no
        // memory of the parent.
        unsafe {
            cmd.pre_exec(|| {
                if libc::prctl(libc::PR_SET_PDEATHSIG, libc::SIGKILL, 0, 0, 0) == -1 {
                    return Err(std::io::Error::last_os_error());
                }
                Ok(())
            });
        }
    }
    #[cfg(not(target_os = "linux"))]
    let _ = cmd;
}

/// The bytes of the first field named DATA, Data or data of a message's
/// JSON form: a string's text, an opaque or xml value's bytes (base64 in
/// the JSON form); nothing otherwise.
fn data_field(msg: &Value) -> Vec<u8> {
    let Some(fields) = msg["fields"].as_array() else {
        return Vec::new();
    };
    let Some(f) = fields
        .iter()
        .find(|f| matches!(f["name"].as_str(), Some("DATA" | "Data" | "data")))
    else {
        return Vec::new();
    };
    match (f["type"].as_str(), f["value"].as_str()) {
        (Some("string"), Some(s)) => s.as_bytes().to_vec(),
        (Some("opaque" | "xml"), Some(b)) => base64::engine::general_purpose::STANDARD
            .decode(b)
            .unwrap_or_default(),
        _ => Vec::new(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn data_input_is_the_first_data_field() {
        // docs/rendezvous.md "JSON form": opaque values are base64.
        let m = json!({"subject": "Q", "fields": [
            {"name": "n", "type": "u32", "value": 1},
            {"name": "Data", "type": "opaque", "value": "aGk="},
            {"name": "DATA", "type": "string", "value": "second"}]});
        assert_eq!(data_field(&m), b"hi");
        let m =
            json!({"subject": "Q", "fields": [{"name": "DATA", "type": "string", "value": "x y"}]});
        assert_eq!(data_field(&m), b"x y");
        assert!(data_field(&json!({"subject": "Q"})).is_empty());
    }
}

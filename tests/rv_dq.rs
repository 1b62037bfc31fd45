//! Distributed queues (RVCMQ) through a gateway in this process: five
//! workers of different weights and capacities and one dedicated
//! scheduler doing 10,000 certified tasks exactly once while a worker dies
//! mid-task and the scheduler dies mid-stream; the order of assignment
//! (greatest weight among available workers, the scheduler last);
//! complete-time reassignment; refusals of bad names, subjects and
//! intervals (Rust and HTTP); tasks done by `mqgate dq worker` commands.
//!
//! Expected behaviour: TIBCO Rendezvous Concepts, "Distributed Queue"
//! (one scheduler, each task to one worker, the greatest worker weight
//! among available workers), "Complete Time", "Reassigning Tasks in
//! Exceptional Situations" (worker exit, slow worker, scheduler
//! replacement), "Reusable Names"; the C Reference,
//! "tibrvcmTransport_CreateDistributedQueue()" (defaults);
//! "QUEUE.SCHEDULER.ACTIVE"; mqgate's choices are docs/rendezvous.md
//! "Distributed queues"; status numbers are those of `tibrv/status.h`.

use std::sync::atomic::{AtomicU32, AtomicUsize, Ordering};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use mqgate::config::Config;
use mqgate::gateway::{Gateway, Handle};
use mqgate::rv::cm::{CmTransport, CreateOptions, LedgerKind};
use mqgate::rv::dq::{DqError, DqMember, DqParams, MemberEvent};
use mqgate::rv::{ListenerOptions, Origin};
use mqgate_codecs::rv::msg::{Envelope, Field, Message, Value};

/// Every wait for something that must come ends after this long with a
/// failure, never a hang; it is far longer than the wait needs on an idle
/// machine, so that a loaded one does not fail it.
const PATIENCE: Duration = Duration::from_secs(60);

async fn gateway(dir: &std::path::Path) -> Handle {
    let mut c = Config::from_yaml(
        "http:\n  listen: 127.0.0.1:0\nlistener:\n  listen: 127.0.0.1:0\nmqtt:\n  listen: 127.0.0.1:0\n",
        "test.yaml",
    )
    .unwrap();
    c.storage.data_dir = dir.join("data");
    Gateway::start(c).await.unwrap()
}

fn task(subject: &str, n: u32) -> Envelope {
    Envelope {
        subject: subject.into(),
        reply_subject: None,
        cm: None,
        message: Message::new(vec![Field::new("n", Value::U32(n))]),
    }
}

fn n_of(env: &Envelope) -> u32 {
    match env.message.get("n").map(|f| &f.value) {
        Some(Value::U32(n)) => *n,
        other => panic!("no n: {other:?}"),
    }
}

/// Test intervals: heartbeat 0.25 s and the default activation interval
/// of "tibrvcmTransport_CreateDistributedQueue()", 3.5 s. A member counts
/// as gone after 3.5 s without a heartbeat, so only a pause of over 3 s
/// on a loaded machine would make a live member look dead (and its tasks
/// be given twice).
fn params(worker_weight: u32, worker_tasks: u32, scheduler_weight: u16) -> DqParams {
    DqParams {
        worker_weight,
        worker_tasks,
        scheduler_weight,
        heartbeat_s: 0.25,
        activation_s: 3.5,
        ..DqParams::default()
    }
}

/// The next event of `m` that `pick` takes, within [`PATIENCE`].
async fn next_where<T>(m: &mut DqMember, what: &str, pick: impl Fn(MemberEvent) -> Option<T>) -> T {
    let until = tokio::time::Instant::now() + PATIENCE;
    loop {
        match tokio::time::timeout_at(until, m.next()).await {
            Ok(Some(e)) => {
                if let Some(t) = pick(e) {
                    return t;
                }
            }
            Ok(None) => panic!("member {} ended while waiting for {what}", m.id()),
            Err(_) => panic!("member {} got no {what} within {PATIENCE:?}", m.id()),
        }
    }
}

async fn next_task(m: &mut DqMember) -> mqgate::rv::dq::Task {
    next_where(m, "task", |e| match e {
        MemberEvent::Task(t) => Some(t),
        _ => None,
    })
    .await
}

async fn becomes_scheduler(m: &mut DqMember) {
    next_where(m, "scheduler role", |e| {
        matches!(e, MemberEvent::Scheduler(true)).then_some(())
    })
    .await
}

/// A certified sender that pre-registered the queue `queue` for
/// `subject` ("tibrvcmTransport_AddListener()"), so that every task is
/// certified from the first.
async fn sender(h: &Handle, name: &str, queue: &str, subject: &str) -> CmTransport {
    let cm = h.rv_cm().unwrap();
    let (s, _) = cm
        .create(CreateOptions {
            name: Some(name.into()),
            ledger: LedgerKind::Memory,
            ..CreateOptions::default()
        })
        .await
        .unwrap();
    s.add_listener(queue, subject).await.unwrap();
    s
}

/// Waits until `queue`'s CM transport holds a certified agreement with
/// `sender`: the scheduler listens, and tasks sent from now on are
/// certified.
async fn certified(h: &Handle, queue: &str, sender: &str) {
    let until = Instant::now() + PATIENCE;
    loop {
        if let Ok(t) = h.rv_cm().unwrap().get(queue) {
            let snap = t.snapshot().await;
            if snap.agreements.iter().any(|a| {
                a.sender == sender
                    && matches!(
                        a.state,
                        mqgate::rv::cm::listener::AgreementState::Certified { .. }
                    )
            }) {
                return;
            }
        }
        assert!(
            Instant::now() < until,
            "no certified agreement with {sender}"
        );
        tokio::time::sleep(Duration::from_millis(10)).await;
    }
}

/// Waits until `sender` keeps no message: every task was confirmed.
async fn ledger_empty(s: &CmTransport) {
    let until = Instant::now() + PATIENCE;
    loop {
        let pending = s.snapshot().await.pending;
        if pending.is_empty() {
            return;
        }
        assert!(
            Instant::now() < until,
            "{} tasks never confirmed, e.g. {:?}",
            pending.len(),
            pending.first()
        );
        tokio::time::sleep(Duration::from_millis(20)).await;
    }
}

/// What the workers of the big test saw.
struct Record {
    /// Completions per task number.
    done: Vec<AtomicU32>,
    /// Tasks given, per worker.
    got: Vec<AtomicUsize>,
    /// Scheduler role changes: (worker index, active).
    roles: Mutex<Vec<(usize, bool)>>,
    /// The task the dying worker held when it died.
    held_at_death: Mutex<Option<u32>>,
}

/// Runs worker `i`: completes every task at once, counting it; with
/// `die_at`, the member is killed (no goodbye, as a process that dies)
/// when its `die_at`-th task comes, before completing it.
fn worker(i: usize, mut m: DqMember, rec: Arc<Record>, die_at: Option<usize>) {
    tokio::spawn(async move {
        let mut received = 0;
        while let Some(e) = m.next().await {
            let t = match e {
                MemberEvent::Task(t) => t,
                MemberEvent::Scheduler(active) => {
                    rec.roles.lock().unwrap().push((i, active));
                    continue;
                }
                MemberEvent::Withdrawn(_) => continue,
            };
            received += 1;
            rec.got[i].fetch_add(1, Ordering::AcqRel);
            let n = n_of(&t.envelope);
            if Some(received) == die_at {
                *rec.held_at_death.lock().unwrap() = Some(n);
                m.kill();
                return;
            }
            if m.complete(t.id).await.is_ok() {
                rec.done[n as usize].fetch_add(1, Ordering::AcqRel);
            }
        }
    });
}

fn completions(rec: &Record) -> usize {
    rec.done
        .iter()
        .map(|c| c.load(Ordering::Acquire) as usize)
        .sum()
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn ten_thousand_tasks_are_done_once_each_through_a_worker_death_and_a_scheduler_death() {
    const N: usize = 10_000;
    let dir = tempfile::tempdir().unwrap();
    let h = gateway(dir.path()).await;
    let dq = h.rv_dq().unwrap();
    let subjects = vec!["WORK.TASKS".to_string()];
    let src = sender(&h, "TASKSRC", "WORKQ", "WORK.TASKS").await;
    // The dedicated scheduler (worker tasks 0) outranks every worker
    // (scheduler weight 100).
    let mut sched = dq.join("WORKQ", &subjects, params(1, 0, 100)).unwrap();
    let rec = Arc::new(Record {
        done: (0..N).map(|_| AtomicU32::new(0)).collect(),
        got: (0..5).map(|_| AtomicUsize::new(0)).collect(),
        roles: Mutex::new(Vec::new()),
        held_at_death: Mutex::new(None),
    });
    // Five workers: (worker weight, capacity, scheduler weight).
    for (i, (w, cap, sw)) in [(5, 1, 5), (4, 2, 4), (3, 1, 3), (2, 3, 2), (1, 2, 1)]
        .into_iter()
        .enumerate()
    {
        let m = dq.join("WORKQ", &subjects, params(w, cap, sw)).unwrap();
        // The weight-3 worker dies holding its 20th task.
        worker(i, m, Arc::clone(&rec), (i == 2).then_some(20));
    }
    // "QUEUE.SCHEDULER.ACTIVE": the dedicated scheduler takes the role.
    becomes_scheduler(&mut sched).await;
    certified(&h, "WORKQ", "TASKSRC").await;
    for n in 0..N {
        src.send(task("WORK.TASKS", n as u32), None).await.unwrap();
        if n % 500 == 0 {
            tokio::task::yield_now().await;
        }
    }
    // Mid-stream: once 3,000 tasks were done, the scheduler dies without a
    // word, with thousands still to assign.
    let until = Instant::now() + PATIENCE;
    while completions(&rec) < 3_000 {
        assert!(Instant::now() < until, "{} tasks done", completions(&rec));
        tokio::time::sleep(Duration::from_millis(5)).await;
    }
    sched.kill();
    let at_kill = completions(&rec);
    assert!(at_kill < N, "the scheduler was killed after the stream");
    // Every task confirmed to the sender means every one was completed.
    ledger_empty(&src).await;
    // Completions reach the counters before the confirmations reach the
    // sender; give stragglers a moment, then every task counts once.
    tokio::time::sleep(Duration::from_millis(300)).await;
    let counts: Vec<u32> = rec.done.iter().map(|c| c.load(Ordering::Acquire)).collect();
    let missing: Vec<usize> = (0..N).filter(|&n| counts[n] == 0).collect();
    let twice: Vec<usize> = (0..N).filter(|&n| counts[n] > 1).collect();
    let roles = rec.roles.lock().unwrap().clone();
    assert!(
        missing.is_empty(),
        "never done: {} e.g. {:?}; roles {roles:?}",
        missing.len(),
        &missing[..missing.len().min(5)]
    );
    assert!(
        twice.is_empty(),
        "done twice: {} e.g. {:?}; roles {roles:?}",
        twice.len(),
        &twice[..twice.len().min(5)]
    );
    // The dead worker got its 20 and died holding one, which another
    // worker did ("Worker Exit").
    let got: Vec<usize> = rec.got.iter().map(|g| g.load(Ordering::Acquire)).collect();
    assert_eq!(got[2], 20, "{got:?}");
    let held = rec.held_at_death.lock().unwrap().expect("the worker died");
    assert_eq!(counts[held as usize], 1, "task {held}");
    assert!(got.iter().all(|&g| g > 0), "{got:?}");
    // The scheduler's successor is the next-ranked member, the worker of
    // scheduler weight 5, and it alone ("Distributed Queue": one
    // scheduler at a time).
    assert_eq!(roles, [(0, true)]);
    h.stop(Duration::from_secs(5)).await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn each_task_goes_to_the_available_worker_of_greatest_weight_and_the_scheduler_works_last() {
    let dir = tempfile::tempdir().unwrap();
    let h = gateway(dir.path()).await;
    let dq = h.rv_dq().unwrap();
    let subjects = vec!["ORDER.TASKS".to_string()];
    let src = sender(&h, "ORDERSRC", "ORDERQ", "ORDER.TASKS").await;
    // The scheduler (scheduler weight 100) is also a worker, the heaviest
    // of all (worker weight 10, capacity 1); "Distributed Queue": it takes
    // a task only when every other worker is busy.
    let mut sched = dq.join("ORDERQ", &subjects, params(10, 1, 100)).unwrap();
    let mut workers = Vec::new();
    // (worker weight, capacity): as in the big test.
    for (w, cap) in [(5, 1), (4, 2), (3, 1), (2, 3), (1, 2)] {
        workers.push(dq.join("ORDERQ", &subjects, params(w, cap, 1)).unwrap());
    }
    becomes_scheduler(&mut sched).await;
    certified(&h, "ORDERQ", "ORDERSRC").await;
    for n in 1..=11 {
        src.send(task("ORDER.TASKS", n), None).await.unwrap();
    }
    // Nobody completes: each worker fills up to its capacity, heaviest
    // first (tasks 1..9), then the scheduler (10); 11 waits
    // ("tibrvcmTransport_SetWorkerTasks()": the greatest worker weight
    // unless its pending tasks reached its capacity, then the next).
    let mut held = Vec::new();
    for (m, cap) in workers.iter_mut().zip([1, 2, 1, 3, 2]) {
        let mut mine = Vec::new();
        for _ in 0..cap {
            mine.push(next_task(m).await);
        }
        held.push(mine);
    }
    let numbers: Vec<Vec<u32>> = held
        .iter()
        .map(|ts| ts.iter().map(|t| n_of(&t.envelope)).collect())
        .collect();
    assert_eq!(
        numbers,
        [vec![1], vec![2, 3], vec![4], vec![5, 6, 7], vec![8, 9]]
    );
    let own = next_task(&mut sched).await;
    assert_eq!(n_of(&own.envelope), 10);
    // The weight-3 worker completes: the waiting task 11 goes to it, the
    // one worker with room.
    workers[2].complete(held[2][0].id).await.unwrap();
    let t = next_task(&mut workers[2]).await;
    assert_eq!((n_of(&t.envelope), t.certified), (11, true));
    h.stop(Duration::from_secs(5)).await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_task_not_completed_within_the_complete_time_goes_to_another_worker() {
    let dir = tempfile::tempdir().unwrap();
    let h = gateway(dir.path()).await;
    let dq = h.rv_dq().unwrap();
    let subjects = vec!["SLOW.TASKS".to_string()];
    let src = sender(&h, "SLOWSRC", "SLOWQ", "SLOW.TASKS").await;
    // "Complete Time": 0.4 s; the scheduler's parameter counts.
    let timed = |w, cap, sw| DqParams {
        complete_time_s: 0.4,
        ..params(w, cap, sw)
    };
    let mut sched = dq.join("SLOWQ", &subjects, timed(1, 0, 100)).unwrap();
    let mut heavy = dq.join("SLOWQ", &subjects, timed(9, 1, 1)).unwrap();
    let mut light = dq.join("SLOWQ", &subjects, timed(1, 1, 1)).unwrap();
    becomes_scheduler(&mut sched).await;
    certified(&h, "SLOWQ", "SLOWSRC").await;
    let sent = Instant::now();
    src.send(task("SLOW.TASKS", 7), None).await.unwrap();
    // The heavier worker gets it and does not complete it.
    let first = next_task(&mut heavy).await;
    assert!(first.certified);
    assert_eq!(n_of(&first.envelope), 7);
    // After the complete time it is withdrawn and given to the other one.
    let withdrawn = next_where(&mut heavy, "withdrawal", |e| match e {
        MemberEvent::Withdrawn(id) => Some(id),
        _ => None,
    })
    .await;
    assert_eq!(withdrawn, first.id);
    let second = next_task(&mut light).await;
    // A lower bound only: a loaded machine makes it later, never sooner.
    let waited = sent.elapsed();
    assert!(
        waited >= Duration::from_millis(400),
        "reassigned after {waited:?}"
    );
    assert_eq!(n_of(&second.envelope), 7);
    light.complete(second.id).await.unwrap();
    // The slow worker's late completion names a task it no longer holds.
    let late = heavy.complete(first.id).await.unwrap_err();
    assert!(matches!(late, DqError::UnknownTask { .. }), "{late}");
    assert_eq!(late.status().0, 35, "TIBRV_NOT_FOUND");
    ledger_empty(&src).await;
    // A reliable task (no certified delivery) reaches a worker too, and
    // has no complete time ("Rescheduling ... only for certified tasks").
    h.rv_bus()
        .unwrap()
        .publish(task("SLOW.TASKS", 8), Origin::Client)
        .unwrap();
    let t = next_task(&mut heavy).await;
    assert_eq!((n_of(&t.envelope), t.certified), (8, false));
    heavy.complete(t.id).await.unwrap();
    h.stop(Duration::from_secs(5)).await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn bad_names_subjects_and_intervals_are_refused() {
    let dir = tempfile::tempdir().unwrap();
    let h = gateway(dir.path()).await;
    let dq = h.rv_dq().unwrap();
    let subjects = vec!["WORK".to_string()];
    let status = |e: DqError| (e.status().0, e.field(), e.to_string());
    // "Reusable Names": subject syntax, no wildcards, no reserved first
    // element, at most 50 bytes (TIBRV_INVALID_SUBJECT 20).
    let (st, field, text) = status(dq.join("A..B", &subjects, DqParams::default()).unwrap_err());
    assert_eq!((st, field), (20, Some("name")));
    assert_eq!(
        text,
        "invalid distributed queue name \"A..B\": element 2 is empty"
    );
    for bad in ["Q.*", "_RV.Q", "_RVCMQ.Q", "", &"Q".repeat(51)] {
        let e = dq.join(bad, &subjects, DqParams::default()).unwrap_err();
        assert_eq!(e.status().0, 20, "{bad:?}: {e}");
    }
    let e = dq.join("Q", &[], DqParams::default()).unwrap_err();
    assert_eq!((e.status().0, e.field()), (3, Some("subjects")));
    let e = dq
        .join("Q", &["A..B".into()], DqParams::default())
        .unwrap_err();
    assert_eq!((e.status().0, e.field()), (20, Some("subjects")));
    let e = dq
        .join("Q", &["_RVCM.X".into()], DqParams::default())
        .unwrap_err();
    assert_eq!((e.status().0, e.field()), (3, Some("subjects")));
    // Intervals that cannot work: activation not longer than heartbeat.
    let p = DqParams {
        heartbeat_s: 2.0,
        activation_s: 1.0,
        ..DqParams::default()
    };
    let (st, field, text) = status(dq.join("Q", &subjects, p).unwrap_err());
    assert_eq!((st, field), (3, Some("scheduler_activation_s")));
    assert_eq!(
        text,
        "scheduler activation 1 s must be longer than the scheduler heartbeat 2 s"
    );
    // The same over HTTP.
    let base = format!("http://{}", h.http_addr());
    let post = |path: &str, body: &str| {
        let url = format!("{base}{path}");
        let body = body.to_string();
        std::thread::spawn(move || {
            match ureq::post(&url)
                .set("Content-Type", "application/json")
                .send_string(&body)
            {
                Ok(r) => (r.status(), r.into_json::<serde_json::Value>().unwrap()),
                Err(ureq::Error::Status(c, r)) => (c, r.into_json::<serde_json::Value>().unwrap()),
                Err(e) => panic!("{e}"),
            }
        })
        .join()
        .unwrap()
    };
    let (code, v) = post("/v1/rv/dq/A..B/members", "{}");
    assert_eq!(
        (code, v["tibrv_status"]["number"].as_u64()),
        (400, Some(20))
    );
    assert_eq!(
        (v["field"].as_str(), v["element"].as_u64()),
        (Some("name"), Some(2))
    );
    let (code, v) = post(
        "/v1/rv/dq/Q/members",
        r#"{"scheduler_heartbeat_s": 1, "scheduler_activation_s": 0.5}"#,
    );
    assert_eq!(
        (code, v["field"].as_str()),
        (400, Some("scheduler_activation_s"))
    );
    let (code, v) = post("/v1/rv/dq/Q/members", r#"{"worker_weigth": 1}"#);
    assert_eq!((code, v["field"].as_str()), (400, Some("body")));
    // A member's defaults are the C Reference's.
    let (code, v) = post("/v1/rv/dq/Q/members", "");
    assert_eq!(code, 201);
    assert_eq!(
        (
            &v["subjects"],
            &v["worker_weight"],
            &v["worker_tasks"],
            &v["scheduler_weight"],
            &v["scheduler_heartbeat_s"],
            &v["scheduler_activation_s"],
            &v["complete_time_s"]
        ),
        (
            &serde_json::json!(["Q"]),
            &serde_json::json!(1),
            &serde_json::json!(1),
            &serde_json::json!(1),
            &serde_json::json!(1.0),
            &serde_json::json!(3.5),
            &serde_json::json!(0.0)
        )
    );
    let id = v["member"].as_str().unwrap().to_string();
    let (code, v) = post(&format!("/v1/rv/dq/members/{id}/tasks/9/complete"), "");
    assert_eq!(
        (code, v["tibrv_status"]["number"].as_u64()),
        (404, Some(35))
    );
    let (code, _) = post("/v1/rv/dq/members/nobody/tasks/1/complete", "");
    assert_eq!(code, 404);
    h.stop(Duration::from_secs(5)).await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn dq_worker_commands_do_the_tasks_and_the_scheduler_advisory_is_published() {
    let dir = tempfile::tempdir().unwrap();
    let h = gateway(dir.path()).await;
    let bus = h.rv_bus().unwrap();
    let mut advisories = bus
        .listen(
            &["_RV.INFO.RVCM.QUEUE.SCHEDULER.>"],
            ListenerOptions::default(),
        )
        .unwrap();
    let src = sender(&h, "CLISRC", "CLIQ", "CLIQ").await;
    let out = dir.path().join("done");
    std::fs::create_dir(&out).unwrap();
    let gateway_url = format!("http://{}", h.http_addr());
    let mut children = Vec::new();
    for weight in ["2", "1"] {
        let child = std::process::Command::new(env!("CARGO_BIN_EXE_mqgate"))
            .args([
                "dq",
                "worker",
                "--gateway",
                &gateway_url,
                "--queue",
                "CLIQ",
                "--weight",
                weight,
                "--tasks",
                "2",
                "--heartbeat",
                "0.25",
                "--activation",
                "3.5",
                "--input",
                "data",
                "--",
                "sh",
                "-c",
                &format!("cat > {}/$MQGATE_DQ_MEMBER-$MQGATE_DQ_TASK", out.display()),
            ])
            .stdout(std::process::Stdio::null())
            .stderr(std::process::Stdio::null())
            .spawn()
            .unwrap();
        children.push(child);
    }
    // "QUEUE.SCHEDULER.ACTIVE": one of the workers schedules.
    let adv = tokio::time::timeout(PATIENCE, advisories.recv())
        .await
        .unwrap()
        .unwrap();
    assert_eq!(adv.subject(), "_RV.INFO.RVCM.QUEUE.SCHEDULER.ACTIVE.CLIQ");
    certified(&h, "CLIQ", "CLISRC").await;
    for n in 0..20u32 {
        let env = Envelope {
            subject: "CLIQ".into(),
            reply_subject: None,
            cm: None,
            message: Message::new(vec![Field::new("DATA", Value::String(format!("task-{n}")))]),
        };
        src.send(env, None).await.unwrap();
    }
    ledger_empty(&src).await;
    // One file per (member, task number), holding the task's DATA field.
    let mut lines: Vec<String> = std::fs::read_dir(&out)
        .unwrap()
        .map(|e| std::fs::read_to_string(e.unwrap().path()).unwrap())
        .collect();
    lines.sort();
    let mut want: Vec<String> = (0..20).map(|n| format!("task-{n}")).collect();
    want.sort();
    assert_eq!(lines, want);
    for mut c in children {
        let _ = c.kill();
        let _ = c.wait();
    }
    h.stop(Duration::from_secs(5)).await;
}

/// A `mqgate dq worker` whose COMMAND cannot be started gives the task
/// back and leaves with exit 5 (docs/rendezvous.md "`mqgate dq worker` and
/// `mqgate dq scheduler`"): as the available worker of greatest weight it
/// would otherwise get the same task back at once, again and again, and no
/// other worker would ever do it.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_dq_worker_whose_command_cannot_start_gives_the_task_back_and_leaves() {
    let dir = tempfile::tempdir().unwrap();
    let h = gateway(dir.path()).await;
    let dq = h.rv_dq().unwrap();
    let subjects = vec!["NOCMD".to_string()];
    let src = sender(&h, "NOCMDSRC", "NOCMD", "NOCMD").await;
    // The scheduler, also a worker of weight 1: it works only when the
    // heavier worker below is busy ("Distributed Queue").
    let mut other = dq.join("NOCMD", &subjects, params(1, 1, 100)).unwrap();
    becomes_scheduler(&mut other).await;
    certified(&h, "NOCMD", "NOCMDSRC").await;
    let missing = dir.path().join("no-such-program");
    let mut child = std::process::Command::new(env!("CARGO_BIN_EXE_mqgate"))
        .args(["dq", "worker", "--gateway"])
        .arg(format!("http://{}", h.http_addr()))
        .args(["--queue", "NOCMD", "--weight", "9", "--tasks", "1"])
        .args(["--heartbeat", "0.25", "--activation", "3.5", "--"])
        .arg(&missing)
        .stdout(std::process::Stdio::null())
        .stderr(std::process::Stdio::piped())
        .spawn()
        .unwrap();
    let lines = Arc::new(Mutex::new(Vec::<String>::new()));
    let stderr = child.stderr.take().unwrap();
    let seen = Arc::clone(&lines);
    std::thread::spawn(move || {
        use std::io::BufRead;
        for line in std::io::BufReader::new(stderr)
            .lines()
            .map_while(Result::ok)
        {
            seen.lock().unwrap().push(line);
        }
    });
    let until = Instant::now() + PATIENCE;
    while !lines
        .lock()
        .unwrap()
        .iter()
        .any(|l| l.contains("listening to"))
    {
        assert!(Instant::now() < until, "the worker did not join");
        tokio::time::sleep(Duration::from_millis(20)).await;
    }
    src.send(task("NOCMD", 1), None).await.unwrap();
    let status = loop {
        if let Some(s) = child.try_wait().unwrap() {
            break s;
        }
        if Instant::now() >= until {
            let _ = child.kill();
            let _ = child.wait();
            let tried = lines
                .lock()
                .unwrap()
                .iter()
                .filter(|l| l.contains("cannot run"))
                .count();
            panic!("the worker did not leave; it tried the task {tried} times");
        }
        tokio::time::sleep(Duration::from_millis(20)).await;
    };
    assert_eq!(status.code(), Some(5));
    // The task went back to the scheduler, which gives it to the worker
    // that is left.
    let t = next_task(&mut other).await;
    assert_eq!((n_of(&t.envelope), t.certified), (1, true));
    other.complete(t.id).await.unwrap();
    ledger_empty(&src).await;
    let tried = lines
        .lock()
        .unwrap()
        .iter()
        .filter(|l| l.contains("cannot run"))
        .count();
    assert_eq!(tried, 1);
    h.stop(Duration::from_secs(5)).await;
}

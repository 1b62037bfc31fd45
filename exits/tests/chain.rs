//! Exit chains and isolation against docs/exits.md "Isolation: what is
//! guaranteed and what is not":
//! a chain of three exits (order, exit data, user area, INIT/TERM once each),
//! a panicking and a too-slow exit (caller survives, policy applied, message
//! neither lost nor duplicated).

use bytes::BytesMut;
use mqgate_codecs::mq::{Charset, Mqmd, Mqrc};
use mqgate_exits::{
    ChainEntry, Exit, ExitChain, ExitContext, ExitFailure, ExitPoint, ExitReason, ExitRegistry,
    ExitResponse, ExitsConfig, FailurePolicy, GetOptions, Isolation, Payload, PutOptions, Verdict,
};
use std::collections::VecDeque;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Mutex};
use std::time::Duration;

type Log = Arc<Mutex<Vec<String>>>;

/// Records every call as `name:REASON:data:area`, counts calls in user area
/// byte 0, and appends its exit data to buffers.
struct Recorder {
    name: &'static str,
    log: Log,
}

impl Exit for Recorder {
    fn call(&mut self, ctx: &mut ExitContext<'_>, payload: Payload<'_>) -> ExitResponse {
        ctx.exit_user_area[0] += 1;
        let reason = match ctx.exit_reason {
            ExitReason::Init => "INIT",
            ExitReason::Term => "TERM",
            ExitReason::Msg => "MSG",
            ExitReason::Xmit => "XMIT",
        };
        self.log.lock().unwrap().push(format!(
            "{}:{reason}:{}:{}",
            self.name, ctx.exit_data, ctx.exit_user_area[0]
        ));
        if let Payload::Buffer(b) = payload {
            b.extend_from_slice(ctx.exit_data.as_bytes());
        }
        ExitResponse::Ok
    }
}

fn recorder_registry(log: &Log) -> ExitRegistry {
    let mut reg = ExitRegistry::new();
    for name in ["first", "second", "third"] {
        let log = log.clone();
        reg.register(
            name,
            Arc::new(move |_, _| {
                Ok(Box::new(Recorder {
                    name,
                    log: log.clone(),
                }) as Box<dyn Exit>)
            }),
        );
    }
    reg
}

#[test]
fn chain_of_three_runs_in_order_with_user_area_and_init_term_once() {
    let log: Log = Arc::default();
    let cfg = ExitsConfig::from_yaml_str(
        r#"
global:
  receive:
    - exit: first
      data: "A"
channels:
  TO.GW:
    receive:
      - exit: second
        data: "B"
        isolation: thread
      - exit: third
        data: "C"
"#,
    )
    .unwrap();
    let mut chain = recorder_registry(&log)
        .build_chain(&cfg, ExitPoint::Receive, "TO.GW", "GW")
        .unwrap();
    assert_eq!(chain.len(), 3);
    for i in 0..3 {
        let mut buf = BytesMut::from(format!("m{i}:").as_bytes());
        assert_eq!(chain.run_buffer(&mut buf), Verdict::Continue);
        // Each exit saw the previous one's change: configured order.
        assert_eq!(&buf[..], format!("m{i}:ABC").as_bytes());
    }
    assert!(chain.terminate().is_empty());
    drop(chain); // TERM is not called a second time.
    let log = log.lock().unwrap().clone();
    // User area byte 0 counts calls: INIT = 1, three messages 2..4, TERM 5;
    // receive exits get MQXR_XMIT (IBM MQ "Constants" "Channel exits").
    let want: Vec<String> = [
        "first:INIT:A:1",
        "second:INIT:B:1",
        "third:INIT:C:1",
        "first:XMIT:A:2",
        "second:XMIT:B:2",
        "third:XMIT:C:2",
        "first:XMIT:A:3",
        "second:XMIT:B:3",
        "third:XMIT:C:3",
        "first:XMIT:A:4",
        "second:XMIT:B:4",
        "third:XMIT:C:4",
        "first:TERM:A:5",
        "second:TERM:B:5",
        "third:TERM:C:5",
    ]
    .iter()
    .map(|s| s.to_string())
    .collect();
    assert_eq!(log, want);
}

/// Changes the data, then panics (or sleeps `delay` first).
struct Misbehaving {
    panic: bool,
    delay: Duration,
    finished: Arc<AtomicBool>,
}

impl Exit for Misbehaving {
    fn call(&mut self, ctx: &mut ExitContext<'_>, payload: Payload<'_>) -> ExitResponse {
        if ctx.exit_reason == ExitReason::Init || ctx.exit_reason == ExitReason::Term {
            return ExitResponse::Ok;
        }
        if let Payload::Buffer(b) = payload {
            b[0] = b'X';
            b.extend_from_slice(b"-garbage");
        }
        std::thread::sleep(self.delay);
        self.finished.store(true, Ordering::SeqCst);
        if self.panic {
            panic!("exit bug: index out of range");
        }
        ExitResponse::Ok
    }
}

fn entry(
    name: &str,
    exit: Box<dyn Exit>,
    isolation: Isolation,
    policy: FailurePolicy,
    budget_ms: u64,
) -> ChainEntry {
    let mut e = ChainEntry::new(name, "", exit);
    e.isolation = isolation;
    e.on_failure = policy;
    e.time_budget = Duration::from_millis(budget_ms);
    e
}

fn bad_chain(
    point: ExitPoint,
    isolation: Isolation,
    policy: FailurePolicy,
    panic: bool,
    delay_ms: u64,
    budget_ms: u64,
    log: &Log,
) -> (ExitChain, Arc<AtomicBool>) {
    let finished = Arc::new(AtomicBool::new(false));
    let bad = Misbehaving {
        panic,
        delay: Duration::from_millis(delay_ms),
        finished: finished.clone(),
    };
    let after = Recorder {
        name: "after",
        log: log.clone(),
    };
    let chain = ExitChain::start(
        point,
        "TO.GW",
        "GW",
        vec![
            entry("bad", Box::new(bad), isolation, policy, budget_ms),
            entry("after", Box::new(after), Isolation::Inline, policy, 1000),
        ],
    )
    .unwrap();
    (chain, finished)
}

/// A receiving channel's batch: messages leave the sender's transmission
/// queue only when the chain lets them through (delivered) or suppresses
/// them (dead-letter queue); on CloseChannel the batch stops and the rest
/// stays on the sender's side.
fn receive_batch(
    chain: &mut ExitChain,
    xmitq: &mut VecDeque<Vec<u8>>,
    delivered: &mut Vec<Vec<u8>>,
    dead_letters: &mut Vec<(Mqrc, Vec<u8>)>,
) -> Vec<Verdict> {
    let mut verdicts = Vec::new();
    while let Some(front) = xmitq.front() {
        let mut buf = BytesMut::from(&front[..]);
        let v = chain.run_buffer(&mut buf);
        verdicts.push(v.clone());
        match v {
            Verdict::Continue => {
                delivered.push(buf.to_vec());
                xmitq.pop_front();
            }
            Verdict::Suppress { reason, .. } => {
                dead_letters.push((reason, buf.to_vec()));
                xmitq.pop_front();
            }
            Verdict::CloseChannel { .. } | Verdict::FailCall { .. } => break,
        }
    }
    verdicts
}

#[test]
fn panicking_inline_exit_closes_the_channel_and_keeps_the_message() {
    let log: Log = Arc::default();
    let (mut chain, _) = bad_chain(
        ExitPoint::Receive,
        Isolation::Inline,
        FailurePolicy::Close,
        true,
        0,
        1000,
        &log,
    );
    let mut xmitq: VecDeque<Vec<u8>> = [b"msg-1".to_vec(), b"msg-2".to_vec()].into();
    let (mut delivered, mut dlq) = (Vec::new(), Vec::new());
    let verdicts = receive_batch(&mut chain, &mut xmitq, &mut delivered, &mut dlq);
    // The caller survived the panic; default policy: close the channel.
    assert_eq!(verdicts.len(), 1);
    match &verdicts[0] {
        Verdict::CloseChannel {
            exit,
            failure: Some(ExitFailure::Panicked { message }),
        } => {
            assert_eq!(&**exit, "bad");
            assert_eq!(message, "exit bug: index out of range");
        }
        other => panic!("unexpected verdict {other:?}"),
    }
    // Neither lost nor duplicated: both messages still on the sender's side,
    // byte for byte; nothing delivered or dead-lettered; the next exit never ran.
    assert_eq!(xmitq, [b"msg-1".to_vec(), b"msg-2".to_vec()]);
    assert!(delivered.is_empty() && dlq.is_empty());
    assert!(!log.lock().unwrap().iter().any(|l| l.contains(":XMIT:")));
    // The failed instance is not called again until the chain is rebuilt.
    let mut buf = BytesMut::from(&b"msg-1"[..]);
    assert!(matches!(
        chain.run_buffer(&mut buf),
        Verdict::CloseChannel {
            failure: Some(ExitFailure::Disabled { .. }),
            ..
        }
    ));
    assert_eq!(&buf[..], b"msg-1");
}

#[test]
fn panicking_exit_at_a_queue_point_fails_the_put_with_2374() {
    let log: Log = Arc::default();
    let (mut chain, _) = bad_chain(
        ExitPoint::BeforePut,
        Isolation::Inline,
        FailurePolicy::Close,
        true,
        0,
        1000,
        &log,
    );
    let mut md = Mqmd::default();
    let mut data = BytesMut::from(&b"payload"[..]);
    let mut pmo = PutOptions { options: 0x2 };
    let v = chain.run_before_put(&mut md, Charset::Ascii, &mut data, &mut pmo);
    // IBM MQ "Constants" / docs/exits.md: 2374 MQRC_API_EXIT_ERROR.
    assert!(
        matches!(
            v,
            Verdict::FailCall {
                reason: Mqrc(2374),
                ..
            }
        ),
        "{v:?}"
    );
    assert_eq!(&data[..], b"payload");
    assert_eq!(md, Mqmd::default());
    assert_eq!(pmo, PutOptions { options: 0x2 });
}

#[test]
fn dead_letter_and_skip_policies() {
    let log: Log = Arc::default();
    // dead-letter: the message goes to the DLQ with 2374, as it was before the exit.
    let (mut chain, _) = bad_chain(
        ExitPoint::Receive,
        Isolation::Inline,
        FailurePolicy::DeadLetter,
        true,
        0,
        1000,
        &log,
    );
    let mut xmitq: VecDeque<Vec<u8>> = [b"msg-1".to_vec()].into();
    let (mut delivered, mut dlq) = (Vec::new(), Vec::new());
    receive_batch(&mut chain, &mut xmitq, &mut delivered, &mut dlq);
    assert!(xmitq.is_empty() && delivered.is_empty());
    assert_eq!(dlq, [(Mqrc(2374), b"msg-1".to_vec())]);

    // skip: the failed exit's change is undone and the next exit runs.
    let (mut chain, _) = bad_chain(
        ExitPoint::Receive,
        Isolation::Inline,
        FailurePolicy::Skip,
        true,
        0,
        1000,
        &log,
    );
    let mut xmitq: VecDeque<Vec<u8>> = [b"msg-1".to_vec(), b"msg-2".to_vec()].into();
    let (mut delivered, mut dlq) = (Vec::new(), Vec::new());
    receive_batch(&mut chain, &mut xmitq, &mut delivered, &mut dlq);
    assert!(xmitq.is_empty() && dlq.is_empty());
    // "after" appends its (empty) exit data: the messages are exactly as sent.
    assert_eq!(delivered, [b"msg-1".to_vec(), b"msg-2".to_vec()]);
    let after_calls = log
        .lock()
        .unwrap()
        .iter()
        .filter(|l| l.starts_with("after:XMIT"))
        .count();
    assert_eq!(after_calls, 2);
}

#[test]
fn too_slow_thread_exit_is_abandoned_and_its_late_result_dropped() {
    let log: Log = Arc::default();
    // Budget 50 ms, the exit takes 1000 ms.
    let (mut chain, finished) = bad_chain(
        ExitPoint::Receive,
        Isolation::Thread,
        FailurePolicy::Close,
        false,
        1000,
        50,
        &log,
    );
    let mut xmitq: VecDeque<Vec<u8>> = [b"msg-1".to_vec()].into();
    let (mut delivered, mut dlq) = (Vec::new(), Vec::new());
    let verdicts = receive_batch(&mut chain, &mut xmitq, &mut delivered, &mut dlq);
    assert!(
        matches!(
            &verdicts[..],
            [Verdict::CloseChannel {
                failure: Some(ExitFailure::TimedOut { budget_ms: 50, .. }),
                ..
            }]
        ),
        "{verdicts:?}"
    );
    // The caller got control back while the exit was still running.
    assert!(!finished.load(Ordering::SeqCst));
    assert_eq!(xmitq, [b"msg-1".to_vec()]);
    // Wait for the abandoned call to end: its change must not reach anyone.
    while !finished.load(Ordering::SeqCst) {
        std::thread::sleep(Duration::from_millis(20));
    }
    std::thread::sleep(Duration::from_millis(20));
    assert_eq!(xmitq, [b"msg-1".to_vec()]);
    assert!(delivered.is_empty() && dlq.is_empty());
    // The instance is not used again: the next call fails at once.
    let mut buf = BytesMut::from(&b"msg-1"[..]);
    assert!(matches!(
        chain.run_buffer(&mut buf),
        Verdict::CloseChannel {
            failure: Some(ExitFailure::Disabled { .. }),
            ..
        }
    ));
    assert_eq!(&buf[..], b"msg-1");
}

#[test]
fn too_slow_inline_exit_is_measured_and_undone() {
    let log: Log = Arc::default();
    let (mut chain, finished) = bad_chain(
        ExitPoint::Message,
        Isolation::Inline,
        FailurePolicy::DeadLetter,
        false,
        60,
        10,
        &log,
    );
    let mut buf = BytesMut::from(&b"msg-1"[..]);
    let v = chain.run_buffer(&mut buf);
    assert!(finished.load(Ordering::SeqCst));
    assert!(
        matches!(
            &v,
            Verdict::Suppress {
                reason: Mqrc(2374),
                failure: Some(ExitFailure::TimedOut { budget_ms: 10, .. }),
                ..
            }
        ),
        "{v:?}"
    );
    // The exit's change (first byte 'X', appended garbage) was undone.
    assert_eq!(&buf[..], b"msg-1");
}

/// Answers with a fixed response and tries to change the get options.
struct Answer(ExitResponse);

impl Exit for Answer {
    fn call(&mut self, ctx: &mut ExitContext<'_>, payload: Payload<'_>) -> ExitResponse {
        if let Payload::Get { gmo } = payload {
            gmo.wait_interval = 999;
        }
        if ctx.exit_reason == ExitReason::Init {
            ExitResponse::Ok
        } else {
            self.0
        }
    }
}

#[test]
fn exit_responses_map_to_verdicts() {
    for (isolation, resp, want) in [
        (Isolation::Inline, ExitResponse::Ok, "continue"),
        (Isolation::Thread, ExitResponse::Ok, "continue"),
        (
            Isolation::Inline,
            ExitResponse::SuppressFunction(Mqrc(2051)),
            "suppress 2051",
        ),
        (Isolation::Thread, ExitResponse::CloseChannel, "fail 2374"),
        (Isolation::Inline, ExitResponse::Failed, "fail 2374"),
    ] {
        let mut chain = ExitChain::start(
            ExitPoint::BeforeGet,
            "APP.IN",
            "GW",
            vec![entry(
                "answer",
                Box::new(Answer(resp)),
                isolation,
                FailurePolicy::Close,
                1000,
            )],
        )
        .unwrap();
        let mut gmo = GetOptions {
            options: 0x1,
            wait_interval: 5000,
            match_options: 0,
        };
        let v = chain.run_before_get(&mut gmo);
        let got = match &v {
            Verdict::Continue => "continue".to_string(),
            Verdict::Suppress { reason, .. } => format!("suppress {}", reason.0),
            Verdict::FailCall { reason, .. } => format!("fail {}", reason.0),
            Verdict::CloseChannel { .. } => "close".to_string(),
        };
        assert_eq!(got, want, "{isolation:?} {resp:?}");
        // Ok keeps the exit's change; any other answer undoes it.
        let want_wait = if resp == ExitResponse::Ok { 999 } else { 5000 };
        assert_eq!(gmo.wait_interval, want_wait, "{isolation:?} {resp:?}");
    }
}

#[test]
fn refused_init_stops_the_chain_and_terminates_the_started_exits() {
    let log: Log = Arc::default();
    struct RefuseInit;
    impl Exit for RefuseInit {
        fn call(&mut self, _: &mut ExitContext<'_>, _: Payload<'_>) -> ExitResponse {
            ExitResponse::CloseChannel
        }
    }
    let r = ExitChain::start(
        ExitPoint::Send,
        "GW.TO.X",
        "GW",
        vec![
            ChainEntry::new(
                "first",
                "A",
                Box::new(Recorder {
                    name: "first",
                    log: log.clone(),
                }),
            ),
            ChainEntry::new("refuser", "", Box::new(RefuseInit)),
        ],
    );
    let err = r.err().expect("INIT refused");
    assert!(err.to_string().contains("refuser"), "{err}");
    assert_eq!(
        *log.lock().unwrap(),
        ["first:INIT:A:1".to_string(), "first:TERM:A:2".to_string()]
    );
}

#[test]
fn wrong_payload_for_the_point_is_refused_without_calling_exits() {
    let log: Log = Arc::default();
    let mut chain = ExitChain::start(
        ExitPoint::BeforeGet,
        "APP.IN",
        "GW",
        vec![ChainEntry::new(
            "first",
            "",
            Box::new(Recorder {
                name: "first",
                log: log.clone(),
            }),
        )],
    )
    .unwrap();
    let mut buf = BytesMut::from(&b"x"[..]);
    assert!(matches!(
        chain.run_buffer(&mut buf),
        Verdict::FailCall {
            failure: Some(ExitFailure::WrongPayload { .. }),
            ..
        }
    ));
    assert_eq!(log.lock().unwrap().len(), 1); // INIT only
}

#[test]
fn chains_can_move_between_threads() {
    fn is_send<T: Send>() {}
    is_send::<ExitChain>();
}

/// A send exit that asks for `space` bytes of ExitSpace at MQXR_INIT (MQ:
/// MQCXP ExitSpace), records the ExitSpace and buffer capacity it sees on
/// each call, tries to change ExitSpace later (ignored) and appends `add`
/// bytes of its exit data.
struct Trailer {
    space: u32,
    seen: Arc<Mutex<Vec<(u32, usize, usize)>>>,
}

impl Exit for Trailer {
    fn call(&mut self, ctx: &mut ExitContext<'_>, payload: Payload<'_>) -> ExitResponse {
        match ctx.exit_reason {
            ExitReason::Init => {
                assert_eq!(ctx.exit_space, 0, "ExitSpace is 0 on input to MQXR_INIT");
                ctx.exit_space = self.space;
            }
            _ => {
                let (len, cap) = match &payload {
                    Payload::Buffer(b) => (b.len(), b.capacity()),
                    _ => (0, 0),
                };
                self.seen.lock().unwrap().push((ctx.exit_space, len, cap));
                ctx.exit_space = 9999;
                if let Payload::Buffer(b) = payload {
                    b.extend_from_slice(ctx.exit_data.as_bytes());
                }
            }
        }
        ExitResponse::Ok
    }
}

#[test]
fn send_exits_reserve_exit_space_at_init_and_get_that_room_after_the_data() {
    let seen: Arc<Mutex<Vec<(u32, usize, usize)>>> = Arc::default();
    for isolation in [Isolation::Inline, Isolation::Thread] {
        seen.lock().unwrap().clear();
        let entry = |space: u32, data: &str| ChainEntry {
            isolation,
            ..ChainEntry::new(
                format!("trailer-{space}"),
                data,
                Box::new(Trailer {
                    space,
                    seen: seen.clone(),
                }),
            )
        };
        let mut chain = ExitChain::start(
            ExitPoint::Send,
            "GW.TO.X",
            "GW",
            vec![entry(8, "12345678"), entry(4, "abcd")],
        )
        .unwrap();
        // MQ: the MCA reserves the ExitSpace of every send exit in the chain.
        assert_eq!(chain.exit_space(), 12, "{isolation:?}");
        let mut buf = BytesMut::from(&b"payload"[..]);
        assert_eq!(chain.run_buffer(&mut buf), Verdict::Continue);
        assert_eq!(&buf[..], b"payload12345678abcd");
        // A second buffer: ExitSpace is still what MQXR_INIT returned.
        let mut buf = BytesMut::from(&b"p2"[..]);
        assert_eq!(chain.run_buffer(&mut buf), Verdict::Continue);
        let seen = seen.lock().unwrap().clone();
        assert_eq!(
            seen.iter().map(|s| s.0).collect::<Vec<_>>(),
            [8, 4, 8, 4],
            "{isolation:?}"
        );
        if isolation == Isolation::Inline {
            // The room follows the data: the first exit sees 7 bytes and
            // capacity for at least 7 + 12 (no reallocation when it appends).
            assert_eq!(seen[0].1, 7);
            assert!(seen[0].2 >= 7 + 12, "{seen:?}");
        }
        assert_eq!(chain.exit_space(), 12);
    }
}

#[test]
fn exit_space_counts_only_for_send_exits_and_is_bounded() {
    let seen: Arc<Mutex<Vec<(u32, usize, usize)>>> = Arc::default();
    let trailer = |space: u32| {
        Box::new(Trailer {
            space,
            seen: seen.clone(),
        }) as Box<dyn Exit>
    };
    // A receive or message exit cannot reserve anything (MQ: ExitSpace is
    // relevant only for a send exit).
    for point in [ExitPoint::Receive, ExitPoint::Message] {
        let chain = ExitChain::start(
            point,
            "TO.GW",
            "GW",
            vec![ChainEntry::new("t", "", trailer(64))],
        )
        .unwrap();
        assert_eq!(chain.exit_space(), 0, "{point}");
    }
    // More than 16 MiB is refused at MQXR_INIT.
    let err = ExitChain::start(
        ExitPoint::Send,
        "GW.TO.X",
        "GW",
        vec![ChainEntry::new("t", "", trailer((16 << 20) + 1))],
    )
    .err()
    .expect("refused");
    assert!(
        err.to_string()
            .contains("asked for an ExitSpace of 16777217 bytes"),
        "{err}"
    );
}

/// Sets the call's warning to its reason (or clears it with 0), then answers
/// `answer`.
struct Warn {
    reason: i32,
    answer: ExitResponse,
    seen: Arc<Mutex<Vec<Option<i32>>>>,
}

impl Exit for Warn {
    fn call(&mut self, ctx: &mut ExitContext<'_>, _payload: Payload<'_>) -> ExitResponse {
        if ctx.exit_reason != ExitReason::Msg {
            return ExitResponse::Ok;
        }
        self.seen
            .lock()
            .unwrap()
            .push(ctx.warning.as_ref().map(|w| w.reason.0));
        ctx.warning = (self.reason != 0).then(|| mqgate_exits::ExitWarning {
            reason: Mqrc(self.reason),
            detail: format!("set by the exit with {}", self.reason),
        });
        self.answer
    }
}

#[test]
fn exits_see_and_change_the_calls_warning_and_a_refusals_change_is_dropped() {
    // IBM MQ "MQ_GET_EXIT - Get exit": an API exit sees the call's CompCode and
    // Reason and may change them. Each exit sees what the one before it left; the
    // warning set by an exit that fails (policy skip) does not count.
    for isolation in [Isolation::Inline, Isolation::Thread] {
        let seen = Arc::new(Mutex::new(Vec::new()));
        let warn = |reason, answer| {
            Box::new(Warn {
                reason,
                answer,
                seen: seen.clone(),
            }) as Box<dyn Exit>
        };
        let entries = vec![
            entry(
                "clear",
                warn(0, ExitResponse::Ok),
                isolation,
                FailurePolicy::Close,
                1000,
            ),
            entry(
                "set",
                warn(2119, ExitResponse::Ok),
                isolation,
                FailurePolicy::Close,
                1000,
            ),
            entry(
                "failing",
                warn(2085, ExitResponse::Failed),
                isolation,
                FailurePolicy::Skip,
                1000,
            ),
            entry(
                "last",
                warn(2119, ExitResponse::Ok),
                isolation,
                FailurePolicy::Close,
                1000,
            ),
        ];
        let mut chain = ExitChain::start(ExitPoint::AfterGet, "APP.OUT", "GW", entries).unwrap();
        let mut md = Mqmd::default();
        let mut data = BytesMut::from(&b"x"[..]);
        let start = Some(mqgate_exits::ExitWarning {
            reason: Mqrc::FORMAT_ERROR,
            detail: "the get's own".into(),
        });
        let (v, w) = chain.run_after_get_reporting(&mut md, Charset::Ascii, &mut data, start);
        assert_eq!(v, Verdict::Continue, "{isolation:?}");
        assert_eq!(w.map(|w| w.reason.0), Some(2119), "{isolation:?}");
        // clear saw the get's 2110; set saw none; failing saw set's 2119; last saw
        // 2119 again (failing's 2085 was dropped).
        assert_eq!(
            *seen.lock().unwrap(),
            vec![Some(2110), None, Some(2119), Some(2119)],
            "{isolation:?}"
        );
    }
}

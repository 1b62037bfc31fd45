//! External C exits: the examples under exits/examples/ are compiled here with
//! the system C compiler (`cc`; .ci/run installs gcc when it is missing),
//! loaded through the configuration as `library(function)`, and run.
#![cfg(unix)]

use bytes::BytesMut;
use mqgate_codecs::mq::xqh::{Mqxqh, parse_xqh, write_xqh};
use mqgate_codecs::mq::{ByteOrder, CharField, Charset, Mqmd, Mqrc};
use mqgate_exits::external::RawParms;
use mqgate_exits::{
    ExitFailure, ExitPoint, ExitRegistry, ExitsConfig, GetOptions, PutOptions, Verdict,
};
use std::mem::offset_of;
use std::path::{Path, PathBuf};
use std::process::Command;
use std::sync::OnceLock;

/// Compiles `source` (relative to the exits crate) into a shared library once
/// per test process and returns its path.
fn build(cell: &'static OnceLock<PathBuf>, name: &str, source: &str) -> &'static Path {
    cell.get_or_init(|| {
        let manifest = env!("CARGO_MANIFEST_DIR");
        let dir = Path::new(env!("CARGO_TARGET_TMPDIR")).join("c-exits");
        std::fs::create_dir_all(&dir).unwrap();
        let out = dir.join(format!(
            "{}{name}-{}{}",
            std::env::consts::DLL_PREFIX,
            std::process::id(),
            std::env::consts::DLL_SUFFIX
        ));
        let status = Command::new("cc")
            .args([
                "-shared", "-fPIC", "-O2", "-Wall", "-Wextra", "-Werror", "-I",
            ])
            .arg(format!("{manifest}/include"))
            .arg("-o")
            .arg(&out)
            .arg(format!("{manifest}/{source}"))
            .status()
            .expect("the system C compiler `cc` must be installed (.ci/run installs gcc)");
        assert!(status.success(), "cc failed for {source}");
        out
    })
}

fn rewrite_lib() -> &'static Path {
    static CELL: OnceLock<PathBuf> = OnceLock::new();
    build(&CELL, "rewrite_exit", "examples/rewrite_exit.c")
}

fn bad_lib() -> &'static Path {
    static CELL: OnceLock<PathBuf> = OnceLock::new();
    build(&CELL, "bad_exit", "examples/bad_exit.c")
}

fn xmit_message(q: &str, qm: &str) -> Vec<u8> {
    let x = Mqxqh {
        version: 1,
        remote_q_name: CharField::new(q, Charset::Ascii).unwrap(),
        remote_q_mgr_name: CharField::new(qm, Charset::Ascii).unwrap(),
        msg_desc: Mqmd {
            version: 1,
            format: CharField::new("MQSTR", Charset::Ascii).unwrap(),
            ..Mqmd::default()
        },
    };
    let mut v = Vec::new();
    write_xqh(&x, ByteOrder::Little, Charset::Ascii, &mut v);
    v.extend_from_slice(b"hello device");
    v
}

fn chain_for(
    lib: &Path,
    function: &str,
    point: ExitPoint,
    object: &str,
    extra: &str,
) -> mqgate_exits::ExitChain {
    let section = if point.is_channel_point() {
        "channels"
    } else {
        "queues"
    };
    let yaml = format!(
        "{section}:\n  {object}:\n    {point}:\n      - name: c-{function}\n        exit: \"{}({function})\"\n{extra}",
        lib.display()
    );
    let cfg = ExitsConfig::from_yaml_str(&yaml).unwrap();
    cfg.validate().unwrap();
    ExitRegistry::new()
        .build_chain(&cfg, point, object, "GW")
        .unwrap()
}

#[test]
fn header_layout_matches_the_rust_mirror() {
    static CELL: OnceLock<PathBuf> = OnceLock::new();
    let lib = build(&CELL, "layout", "tests/c/layout.c");
    // SAFETY: test library compiled above from tests/c/layout.c.
    let lib = unsafe { libloading::Library::new(lib) }.unwrap();
    let f: libloading::Symbol<unsafe extern "C" fn(i32) -> usize> =
        unsafe { lib.get(b"mqgate_parms_layout") }.unwrap();
    let rust = [
        size_of::<RawParms>(),
        offset_of!(RawParms, version),
        offset_of!(RawParms, exit_id),
        offset_of!(RawParms, exit_point),
        offset_of!(RawParms, exit_reason),
        offset_of!(RawParms, exit_response),
        offset_of!(RawParms, feedback),
        offset_of!(RawParms, options),
        offset_of!(RawParms, wait_interval),
        offset_of!(RawParms, match_options),
        offset_of!(RawParms, md_encoding),
        offset_of!(RawParms, md_length),
        offset_of!(RawParms, data_length),
        offset_of!(RawParms, buffer_length),
        offset_of!(RawParms, exit_space),
        offset_of!(RawParms, exit_user_area),
        offset_of!(RawParms, object_name),
        offset_of!(RawParms, q_mgr_name),
        offset_of!(RawParms, exit_data),
        offset_of!(RawParms, buffer),
    ];
    let c: Vec<usize> = (0..rust.len() as i32).map(|i| unsafe { f(i) }).collect();
    assert_eq!(c, rust);
}

#[test]
fn c_exit_rewrites_remote_q_mgr_name() {
    let mut chain = chain_for(
        rewrite_lib(),
        "RewriteExit",
        ExitPoint::Receive,
        "TO.GW",
        "        data: \"DEVICE01\"\n",
    );
    let before = xmit_message("INBOX", "GATEWAY");
    let mut buf = BytesMut::from(&before[..]);
    assert_eq!(chain.run_buffer(&mut buf), Verdict::Continue);
    // IBM MQ "MQXQH - Transmission-queue header": RemoteQMgrName is bytes 56..104, blank padded.
    let mut want = before.clone();
    want[56..104].fill(b' ');
    want[56..64].copy_from_slice(b"DEVICE01");
    assert_eq!(&buf[..], &want[..]);
    let (x, _) = parse_xqh(&buf, ByteOrder::Little).unwrap();
    assert_eq!(x.remote_q_mgr_name.text(Charset::Ascii), "DEVICE01");
    assert_eq!(x.remote_q_name.text(Charset::Ascii), "INBOX");
    assert!(chain.terminate().is_empty());
}

#[test]
fn c_exit_suppress_carries_its_reason() {
    // Exit data longer than 48: the example refuses with 2087 instead of truncating.
    let long = "D".repeat(49);
    let mut chain = chain_for(
        rewrite_lib(),
        "RewriteExit",
        ExitPoint::Message,
        "TO.GW",
        &format!("        data: \"{long}\"\n        isolation: inline\n"),
    );
    let before = xmit_message("INBOX", "GATEWAY");
    let mut buf = BytesMut::from(&before[..]);
    assert!(matches!(
        chain.run_buffer(&mut buf),
        Verdict::Suppress {
            reason: Mqrc(2087),
            failure: None,
            ..
        }
    ));
    assert_eq!(&buf[..], &before[..]);
}

#[test]
fn c_exit_changes_the_mqmd_before_put() {
    let mut chain = chain_for(
        rewrite_lib(),
        "PriorityExit",
        ExitPoint::BeforePut,
        "APP.IN",
        "",
    );
    let mut md = Mqmd {
        version: 1,
        priority: 2,
        msg_id: [7; 24],
        ..Mqmd::default()
    };
    let mut data = BytesMut::from(&b"body"[..]);
    let mut pmo = PutOptions { options: 0x44 };
    assert_eq!(
        chain.run_before_put(&mut md, Charset::Ascii, &mut data, &mut pmo),
        Verdict::Continue
    );
    let want = Mqmd {
        version: 1,
        priority: 9,
        msg_id: [7; 24],
        ..Mqmd::default()
    };
    assert_eq!(md, want);
    assert_eq!(&data[..], b"body");
    assert_eq!(pmo.options, 0x44);
}

#[test]
fn a_c_send_exit_gets_the_exit_space_it_reserved_at_init() {
    // MQ MQCXP ExitSpace: set by a send exit at MQXR_INIT; the room follows
    // the data of every transmission buffer. No buffer_headroom configured.
    let mut chain = chain_for(
        rewrite_lib(),
        "TrailerExit",
        ExitPoint::Send,
        "GW.TO.X",
        "        data: \"-trailer\"\n",
    );
    assert_eq!(chain.exit_space(), 8);
    let before = xmit_message("INBOX", "GATEWAY");
    for _ in 0..2 {
        let mut buf = BytesMut::from(&before[..]);
        assert_eq!(chain.run_buffer(&mut buf), Verdict::Continue);
        let mut want = before.clone();
        want.extend_from_slice(b"-trailer");
        assert_eq!(&buf[..], &want[..]);
    }
    // At a receive point ExitSpace is not honoured: no room, MQXCC_FAILED,
    // policy close, the data unchanged.
    let mut chain = chain_for(
        rewrite_lib(),
        "TrailerExit",
        ExitPoint::Receive,
        "TO.GW",
        "        data: \"-trailer\"\n",
    );
    assert_eq!(chain.exit_space(), 0);
    let mut buf = BytesMut::from(&before[..]);
    assert!(matches!(
        chain.run_buffer(&mut buf),
        Verdict::CloseChannel {
            failure: Some(ExitFailure::Reported { .. }),
            ..
        }
    ));
    assert_eq!(&buf[..], &before[..]);
}

#[test]
fn c_exit_lengthens_the_data_within_its_headroom() {
    // buffer_headroom 16: the exit may append up to 16 bytes.
    let mut chain = chain_for(
        rewrite_lib(),
        "AppendExit",
        ExitPoint::Receive,
        "TO.GW",
        "        data: \"-seen-by-gw\"\n        buffer_headroom: 16\n",
    );
    let before = xmit_message("INBOX", "GATEWAY");
    let mut buf = BytesMut::from(&before[..]);
    assert_eq!(chain.run_buffer(&mut buf), Verdict::Continue);
    let mut want = before.clone();
    want.extend_from_slice(b"-seen-by-gw");
    assert_eq!(&buf[..], &want[..]);

    // Also behind an MQMD (after_get): the data grows, the MD is unchanged.
    let mut chain = chain_for(
        rewrite_lib(),
        "AppendExit",
        ExitPoint::AfterGet,
        "APP.OUT",
        "        data: \"!\"\n        buffer_headroom: 1\n",
    );
    let mut md = Mqmd::default();
    let mut data = BytesMut::from(&b"body"[..]);
    assert_eq!(
        chain.run_after_get(&mut md, Charset::Ascii, &mut data),
        Verdict::Continue
    );
    assert_eq!(&data[..], b"body!");
    assert_eq!(md, Mqmd::default());

    // Without headroom the example refuses (MQXCC_FAILED): policy close, data unchanged.
    let mut chain = chain_for(
        rewrite_lib(),
        "AppendExit",
        ExitPoint::Receive,
        "TO.GW",
        "        data: \"-seen\"\n",
    );
    let mut buf = BytesMut::from(&before[..]);
    assert!(matches!(
        chain.run_buffer(&mut buf),
        Verdict::CloseChannel {
            failure: Some(ExitFailure::Reported { .. }),
            ..
        }
    ));
    assert_eq!(&buf[..], &before[..]);
}

#[test]
fn c_exit_changes_the_get_options() {
    let mut chain = chain_for(
        rewrite_lib(),
        "NoWaitExit",
        ExitPoint::BeforeGet,
        "APP.IN",
        "",
    );
    // IBM MQ "Constants" MQGMO: WAIT 0x1, FAIL_IF_QUIESCING 0x2000.
    let mut gmo = GetOptions {
        options: 0x2001,
        wait_interval: 30_000,
        match_options: 0x2,
    };
    assert_eq!(chain.run_before_get(&mut gmo), Verdict::Continue);
    assert_eq!(
        gmo,
        GetOptions {
            options: 0x2000,
            wait_interval: 0,
            match_options: 0x2
        }
    );
}

#[test]
fn looping_c_exit_is_abandoned_after_its_budget() {
    let mut chain = chain_for(
        bad_lib(),
        "LoopExit",
        ExitPoint::Receive,
        "TO.GW",
        "        time_budget_ms: 100\n",
    );
    let before = xmit_message("INBOX", "GATEWAY");
    let mut buf = BytesMut::from(&before[..]);
    let v = chain.run_buffer(&mut buf);
    // Default policy `close`: the channel closes, the message stays as it was.
    assert!(
        matches!(
            &v,
            Verdict::CloseChannel {
                failure: Some(ExitFailure::TimedOut { budget_ms: 100, .. }),
                ..
            }
        ),
        "{v:?}"
    );
    assert_eq!(&buf[..], &before[..]);
    // The same instance is not entered again.
    assert!(matches!(
        chain.run_buffer(&mut buf),
        Verdict::CloseChannel {
            failure: Some(ExitFailure::Disabled { .. }),
            ..
        }
    ));
}

#[test]
fn unknown_exit_response_counts_as_failure_and_undoes_the_change() {
    for isolation in ["inline", "thread"] {
        let mut chain = chain_for(
            bad_lib(),
            "BadResponseExit",
            ExitPoint::Receive,
            "TO.GW",
            &format!("        isolation: {isolation}\n        on_failure: dead-letter\n"),
        );
        let before = xmit_message("INBOX", "GATEWAY");
        let mut buf = BytesMut::from(&before[..]);
        let v = chain.run_buffer(&mut buf);
        assert!(
            matches!(
                &v,
                Verdict::Suppress {
                    reason: Mqrc(2374),
                    failure: Some(ExitFailure::Reported { .. }),
                    ..
                }
            ),
            "{isolation}: {v:?}"
        );
        assert_eq!(&buf[..], &before[..], "{isolation}");
    }
}

#[test]
fn missing_library_or_function_is_a_build_error() {
    let cfg = ExitsConfig::from_yaml_str(
        "global:\n  receive:\n    - exit: \"/nonexistent/libnothing.so(Exit)\"\n",
    )
    .unwrap();
    let errs = ExitRegistry::new().check(&cfg);
    assert!(
        errs[0].to_string().contains("cannot load library"),
        "{}",
        errs[0]
    );
    let yaml = format!(
        "global:\n  receive:\n    - exit: \"{}(NoSuchExit)\"\n",
        rewrite_lib().display()
    );
    let errs = ExitRegistry::new().check(&ExitsConfig::from_yaml_str(&yaml).unwrap());
    assert!(errs[0].to_string().contains("NoSuchExit"), "{}", errs[0]);
}

/// The documented limit: a C exit that segfaults kills the process. The test
/// runs itself again as a child with MQGATE_CRASH_CHILD set; the child runs
/// CrashExit; the parent checks the child died of SIGSEGV.
#[test]
fn crashing_c_exit_kills_the_process_it_runs_in() {
    use std::os::unix::process::ExitStatusExt;
    if let Ok(lib) = std::env::var("MQGATE_CRASH_CHILD") {
        let mut chain = chain_for(
            Path::new(&lib),
            "CrashExit",
            ExitPoint::Receive,
            "TO.GW",
            "",
        );
        let mut buf = BytesMut::from(&xmit_message("INBOX", "GATEWAY")[..]);
        let v = chain.run_buffer(&mut buf);
        // Only reached if the crash was somehow survived.
        println!("child survived: {v:?}");
        std::process::exit(0);
    }
    let out = Command::new(std::env::current_exe().unwrap())
        .args([
            "crashing_c_exit_kills_the_process_it_runs_in",
            "--exact",
            "--nocapture",
            "--test-threads=1",
        ])
        .env("MQGATE_CRASH_CHILD", bad_lib())
        .output()
        .unwrap();
    // SIGSEGV = 11 on Linux.
    assert_eq!(
        out.status.signal(),
        Some(11),
        "child status {:?}, stdout {}",
        out.status,
        String::from_utf8_lossy(&out.stdout)
    );
}

//! `mqgate mqsc import` / `export`: a dmpmqcfg-style script (fixtures/mqsc)
//! through YAML and back (docs/operations.md "mqgate mqsc").

mod common;

use common::BIN;
use std::process::{Command, Output};

const FIXTURE: &str = "fixtures/mqsc/qm1-dmpmqcfg.mqsc";

fn mqgate(args: &[&str]) -> Output {
    Command::new(BIN).args(args).output().unwrap()
}

/// The YAML of an import's stdout, without its first comment line (which
/// names the file).
fn yaml(out: &Output) -> serde_yaml::Value {
    serde_yaml::from_slice(&out.stdout).unwrap()
}

#[test]
fn a_dmpmqcfg_script_round_trips_through_yaml() {
    let dir = tempfile::tempdir().unwrap();
    let out = mqgate(&["mqsc", "import", FIXTURE]);
    let notes = String::from_utf8_lossy(&out.stderr).into_owned();
    assert!(out.status.success(), "{notes}");
    let y1 = yaml(&out);
    // Values as the fixture gives them (IBM MQ "DEFINE QLOCAL": BOQNAME,
    // BOTHRESH, DEFPSIST(YES), DEFPRTY, MAXDEPTH; "DEFINE CHANNEL": HBINT in
    // seconds, CONNAME host(port)).
    let q = &y1["queues"];
    let find = |name: &str| {
        q.as_sequence()
            .unwrap()
            .iter()
            .find(|e| e["name"].as_str() == Some(name))
            .unwrap_or_else(|| panic!("{name} missing"))
            .clone()
    };
    let app = find("APP.IN");
    assert_eq!(app["type"].as_str(), Some("local"));
    assert_eq!(app["backout_requeue_q"].as_str(), Some("APP.BACKOUT"));
    assert_eq!(app["backout_threshold"].as_u64(), Some(5));
    assert_eq!(app["default_persistence"].as_str(), Some("persistent"));
    assert_eq!(app["default_priority"].as_u64(), Some(4));
    assert_eq!(app["max_depth"].as_u64(), Some(20000));
    assert_eq!(find("QM2")["usage"].as_str(), Some("xmitq"));
    assert_eq!(find("QM2")["max_msg_length"].as_u64(), Some(10_485_760));
    let alias = find("QM3");
    assert_eq!(
        (alias["type"].as_str(), alias["remote_q_mgr_name"].as_str()),
        (Some("remote"), Some("QM2"))
    );
    assert!(alias.get("remote_q_name").is_none());
    assert_eq!(find("APP.REQUESTS")["target"].as_str(), Some("APP.IN"));
    assert_eq!(
        find("APP.REPLY.MODEL")["dynamic_q_name"].as_str(),
        Some("APP.REPLY.MODEL.*")
    );
    let sdr = &y1["channels"][0];
    assert_eq!(sdr["type"].as_str(), Some("sender"));
    assert_eq!(sdr["connect"].as_str(), Some("192.0.2.10:1414"));
    assert_eq!(sdr["batch_size"].as_u64(), Some(100));
    assert_eq!(sdr["heartbeat_ms"].as_u64(), Some(60_000));
    // No HBINT: MQ's default 300 seconds, not mqgate's 30 s.
    assert_eq!(y1["channels"][1]["heartbeat_ms"].as_u64(), Some(300_000));
    let svr = &y1["svrconn"]["channels"][0];
    assert_eq!(
        (
            svr["name"].as_str(),
            svr["sharecnv"].as_u64(),
            svr["heartbeat"].as_u64()
        ),
        (Some("APP.SVRCONN"), Some(1), Some(60))
    );
    assert_eq!(
        y1["queue_manager"]["default_xmit_queue"].as_str(),
        Some("QM2")
    );
    // SYSTEM.* objects other than the dead-letter queue are the queue manager's own.
    assert!(
        q.as_sequence()
            .unwrap()
            .iter()
            .all(|e| e["name"].as_str() != Some("SYSTEM.ADMIN.COMMAND.QUEUE"))
    );

    // SET CHLAUTH becomes security.chlauth (docs/security.md "Channel
    // authentication rules"): ADDRESSMAP USERSRC(NOACCESS) a blocking
    // rule, SSLPEERMAP USERSRC(CHANNEL) an allowing one with its DN.
    let rules = &y1["security"]["chlauth"];
    assert_eq!(rules[0]["channel"].as_str(), Some("SYSTEM.*"));
    assert_eq!(rules[0]["address"].as_str(), Some("*"));
    assert_eq!(rules[0]["action"].as_str(), Some("block"));
    assert_eq!(
        rules[0]["description"].as_str(),
        Some("Default rule to disable all SYSTEM channels")
    );
    assert_eq!(rules[1]["channel"].as_str(), Some("QM2.TO.QM1"));
    assert_eq!(rules[1]["dn"].as_str(), Some("CN=QM2,O=Example Bank,C=GB"));
    assert!(rules[1]["action"].is_null());
    assert_eq!(rules.as_sequence().map(Vec::len), Some(2));

    // Everything left out is named with its line in the fixture.
    for expected in [
        ":15: QMGR CHLAUTH(ENABLED): no mqgate equivalent",
        ":43: QLOCAL('APP.IN') DESCR('Payment requests from the branches'): no mqgate equivalent",
        ":58: QLOCAL('QM2') TRIGGER: no mqgate equivalent",
        ":100: CHANNEL('QM1.TO.QM2') SSLCIPH(TLS_AES_256_GCM_SHA384): TLS settings",
        ":101: CHANNEL('QM1.TO.QM2') SSLPEER('CN=QM2,O=Example Bank,C=GB'): TLS settings",
        ":122: CHANNEL('TO.QM1') CHLTYPE(CLUSRCVR): mqgate has sender",
        ":129: DEFINE LISTENER('TCP.LISTENER'): mqgate has no such object",
        ":135: SET CHLAUTH: IBM MQ applies the most specific record, mqgate the first matching rule",
        ":145: SET AUTHREC: mqgate has no such object",
        ":20: QLOCAL('SYSTEM.ADMIN.COMMAND.QUEUE'): SYSTEM.* objects",
    ] {
        assert!(
            notes.contains(&format!("{FIXTURE}{expected}")),
            "{expected} not in\n{notes}"
        );
    }

    // The YAML is a configuration check-config accepts.
    let f1 = dir.path().join("qm1.yaml");
    std::fs::write(&f1, &out.stdout).unwrap();
    let check = mqgate(&["check-config", f1.to_str().unwrap()]);
    assert!(
        check.status.success(),
        "{}",
        String::from_utf8_lossy(&check.stderr)
    );

    // export -> import gives the same YAML, and export is a fixed point.
    let e1 = mqgate(&["mqsc", "export", "--config", f1.to_str().unwrap()]);
    assert!(
        e1.status.success(),
        "{}",
        String::from_utf8_lossy(&e1.stderr)
    );
    let script = String::from_utf8(e1.stdout.clone()).unwrap();
    assert!(
        script.contains("DEFINE QLOCAL('APP.IN') +\n   MAXDEPTH(20000) +\n"),
        "{script}"
    );
    assert!(
        script.contains("   CONNAME('192.0.2.10(1414)') +\n"),
        "{script}"
    );
    let s2 = dir.path().join("export.mqsc");
    std::fs::write(&s2, &e1.stdout).unwrap();
    let out2 = mqgate(&["mqsc", "import", s2.to_str().unwrap()]);
    assert!(
        out2.status.success(),
        "{}",
        String::from_utf8_lossy(&out2.stderr)
    );
    assert_eq!(yaml(&out2), y1);
    let f2 = dir.path().join("again.yaml");
    std::fs::write(&f2, &out2.stdout).unwrap();
    let e2 = mqgate(&["mqsc", "export", "--config", f2.to_str().unwrap()]);
    assert_eq!(e2.stdout, e1.stdout);
    // What the YAML has and MQSC does not is named on export.
    assert!(
        String::from_utf8_lossy(&e1.stderr)
            .contains("queues[7].dynamic_q_name: \"APP.REPLY.MODEL.*\" has no MQSC attribute"),
        "{}",
        String::from_utf8_lossy(&e1.stderr)
    );
}

#[test]
fn abbreviations_bad_values_and_syntax_errors() {
    let dir = tempfile::tempdir().unwrap();
    let f = dir.path().join("s.mqsc");
    // `DEF QL`, `DEF QA`, TARGQ, bare names folded to uppercase (IBM MQ
    // "Rules for using MQSC commands"), `;` ending a command.
    std::fs::write(
        &f,
        "def ql(app.a) maxdepth(10);\nDEF QA('Mixed.Case') TARGQ(app.a)\n",
    )
    .unwrap();
    let out = mqgate(&["mqsc", "import", f.to_str().unwrap()]);
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let y = yaml(&out);
    assert_eq!(y["queues"][0]["name"].as_str(), Some("APP.A"));
    assert_eq!(y["queues"][0]["max_depth"].as_u64(), Some(10));
    assert_eq!(y["queues"][1]["name"].as_str(), Some("Mixed.Case"));
    assert_eq!(y["queues"][1]["target"].as_str(), Some("APP.A"));

    // A value mqgate cannot take: exit 1, named by its line.
    std::fs::write(&f, "DEFINE QLOCAL(A) +\n  MAXDEPTH(lots)\nDEFINE CHANNEL(S) CHLTYPE(SDR) XMITQ(A) CONNAME('qm2.example.com(1414)')\n").unwrap();
    let out = mqgate(&["mqsc", "import", f.to_str().unwrap()]);
    assert_eq!(out.status.code(), Some(1));
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(
        err.contains(":2: QLOCAL('A') MAXDEPTH(LOTS): not a whole number from 1 to 999999999"),
        "{err}"
    );
    assert!(err.contains(":3: CHANNEL('S') CONNAME('qm2.example.com(1414)'): a sender channel's connect needs an IP address"), "{err}");

    // A syntax error: line and column, nothing written.
    std::fs::write(&f, "DEFINE QLOCAL(A)\nDEFINE QLOCAL(B) DESCR('open\n").unwrap();
    let out = mqgate(&["mqsc", "import", f.to_str().unwrap()]);
    assert_eq!(out.status.code(), Some(1));
    assert!(out.stdout.is_empty());
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(
        err.contains("MQSC line 2, column 24: quoted string has no closing '"),
        "{err}"
    );

    // --strict: anything not imported fails the run.
    std::fs::write(&f, "DEFINE QLOCAL(A) DESCR('x')\n").unwrap();
    assert_eq!(
        mqgate(&["mqsc", "import", f.to_str().unwrap()])
            .status
            .code(),
        Some(0)
    );
    assert_eq!(
        mqgate(&["mqsc", "import", "--strict", f.to_str().unwrap()])
            .status
            .code(),
        Some(1)
    );
}

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
    // The queue manager's certificate, key and CA certificates, which IBM
    // MQ keeps in its key repository and the script does not carry.
    let pki = common::pki::Pki::new(dir.path());
    let (cert, key) = pki.leaf("qm1", "/O=Example Bank/CN=QM1", "ca", 100, 30);
    let ca = pki.path("ca.pem");
    let certs = [
        "--tls-cert",
        cert.as_str(),
        "--tls-key",
        key.as_str(),
        "--tls-ca",
        ca.as_str(),
    ];
    let import = |file: &str| {
        let mut args = vec!["mqsc", "import"];
        args.extend(certs);
        args.push(file);
        mqgate(&args)
    };
    let out = import(FIXTURE);
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

    // SSLCIPH and SSLPEER (IBM MQ "DEFINE CHANNEL"): the sender's own tls
    // with the certificate files given and its CipherSpec; the receiver's
    // SSLCIPH and SSLCAUTH(REQUIRED) on the listener all receivers share.
    assert_eq!(
        sdr["tls"]["ciphers"][0].as_str(),
        Some("TLS_AES_256_GCM_SHA384")
    );
    assert_eq!(sdr["tls"]["ca"].as_str(), Some(ca.as_str()));
    assert_eq!(sdr["tls"]["cert"].as_str(), Some(cert.as_str()));
    assert_eq!(sdr["sslpeer"].as_str(), Some("CN=QM2,O=Example Bank,C=GB"));
    let ltls = &y1["listener"]["tls"];
    assert_eq!(ltls["ciphers"][0].as_str(), Some("TLS_AES_256_GCM_SHA384"));
    assert_eq!(ltls["client_auth"].as_str(), Some("required"));
    assert_eq!(ltls["key"].as_str(), Some(key.as_str()));
    assert!(y1["svrconn"].get("tls").is_none());

    // Everything left out is named with its line in the fixture.
    for expected in [
        ":15: QMGR CHLAUTH(ENABLED): no mqgate equivalent",
        ":43: QLOCAL('APP.IN') DESCR('Payment requests from the branches'): no mqgate equivalent",
        ":58: QLOCAL('QM2') TRIGGER: no mqgate equivalent",
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
    assert!(
        script.contains(
            "   SSLCIPH('TLS_AES_256_GCM_SHA384') +\n   SSLPEER('CN=QM2,O=Example Bank,C=GB') +\n"
        ),
        "{script}"
    );
    let out2 = import(s2.to_str().unwrap());
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
    let e1_notes = String::from_utf8_lossy(&e1.stderr);
    for expected in [
        "queues[7].dynamic_q_name: \"APP.REPLY.MODEL.*\" has no MQSC attribute",
        "channels[0].tls: cert, key, ca: IBM MQ keeps certificates in the queue manager's key repository",
        "listener.tls: cert, key, ca: IBM MQ keeps certificates",
    ] {
        assert!(e1_notes.contains(expected), "{expected} not in\n{e1_notes}");
    }
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

    // A UTF-8 byte order mark (EF BB BF, The Unicode Standard 23.8
    // "Specials") at the start is no part of the first command.
    std::fs::write(&f, b"\xEF\xBB\xBFDEFINE QLOCAL(BOM.Q)\n").unwrap();
    let out = mqgate(&["mqsc", "import", f.to_str().unwrap()]);
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    assert_eq!(yaml(&out)["queues"][0]["name"].as_str(), Some("BOM.Q"));
    // Bytes that are not UTF-8: the first bad one by line, column and
    // offset. 0xFF never occurs in UTF-8 (RFC 3629 section 1); it is the
    // 6th byte of line 2, 22 bytes after the start.
    std::fs::write(&f, b"DEFINE QLOCAL(A)\nDEF Q\xFFL(B)\n").unwrap();
    let out = mqgate(&["mqsc", "import", f.to_str().unwrap()]);
    assert_eq!(out.status.code(), Some(1));
    assert!(out.stdout.is_empty());
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(
        err.contains("not UTF-8 text: line 2, column 6 (byte offset 22) holds the byte 0xFF"),
        "{err}"
    );

    // IBM MQ "DEFINE queues": NOREPLACE is the default, and a DEFINE of an
    // object that exists without REPLACE fails; the first definition stays.
    std::fs::write(
        &f,
        "DEF QL(A) MAXDEPTH(7)\nDEF QL(A) NOREPLACE\nDEF QA(A) TARGQ(B)\n",
    )
    .unwrap();
    let out = mqgate(&["mqsc", "import", f.to_str().unwrap()]);
    assert_eq!(out.status.code(), Some(1));
    let err = String::from_utf8_lossy(&out.stderr);
    for (line, object) in [(2, "QLOCAL"), (3, "QALIAS")] {
        let note = format!(
            ":{line}: {object}('A'): already defined at line 1, and this DEFINE has no REPLACE (IBM MQ refuses it); not imported"
        );
        assert!(err.contains(&note), "{err}");
    }
    let y = yaml(&out);
    assert_eq!(y["queues"].as_sequence().map(Vec::len), Some(1));
    assert_eq!(y["queues"][0]["max_depth"].as_u64(), Some(7));
    // With REPLACE the later DEFINE is the whole definition: the attributes
    // it gives, MQ's defaults for the rest (MAXDEPTH 5000, mqgate's default
    // too, so no max_depth in the YAML).
    std::fs::write(
        &f,
        "DEF QL(A) MAXDEPTH(7) DEFPRTY(3)\nDEF QL(A) DEFPRTY(4) REPLACE\n",
    )
    .unwrap();
    let out = mqgate(&["mqsc", "import", f.to_str().unwrap()]);
    assert_eq!(
        out.status.code(),
        Some(0),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let y = yaml(&out);
    assert_eq!(y["queues"].as_sequence().map(Vec::len), Some(1));
    assert_eq!(y["queues"][0]["default_priority"].as_u64(), Some(4));
    assert!(y["queues"][0]["max_depth"].is_null(), "{y:?}");

    // A value far longer than any MQ attribute (DESCR holds 64 characters,
    // IBM MQ "DEFINE queues"): its note shows the first 64 and the length,
    // not the whole value.
    std::fs::write(
        &f,
        format!("DEFINE QLOCAL(A) DESCR('{}')\n", "x".repeat(100_000)),
    )
    .unwrap();
    let out = mqgate(&["mqsc", "import", f.to_str().unwrap()]);
    assert_eq!(out.status.code(), Some(0));
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(
        err.contains(&format!(
            ":1: QLOCAL('A') DESCR('{}'… (100000 characters)): no mqgate equivalent",
            "x".repeat(64)
        )),
        "{err}"
    );
    assert!(err.len() < 400, "{} bytes of notes", err.len());

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

#[test]
fn tls_attributes_mqgate_cannot_take_are_named_with_their_line() {
    let dir = tempfile::tempdir().unwrap();
    let f = dir.path().join("tls.mqsc");
    // CipherSpecs from IBM MQ "Enabling CipherSpecs": TLS_RSA_WITH_* use
    // RSA key exchange, TLS_RSA_WITH_AES_128_CBC_SHA is TLS 1.0; ANY_TLS13
    // is an alias ("Alias CipherSpecs"). SSLCAUTH defaults to REQUIRED.
    std::fs::write(
        &f,
        "DEFINE CHANNEL(TO.A) CHLTYPE(SDR) CONNAME('192.0.2.1(1414)') XMITQ(A) +
  SSLCIPH(TLS_RSA_WITH_AES_256_GCM_SHA384)
DEFINE CHANNEL(TO.B) CHLTYPE(SDR) CONNAME('192.0.2.2') XMITQ(B) SSLPEER('CN=B')
DEFINE CHANNEL(FROM.A) CHLTYPE(RCVR) SSLCIPH(ECDHE_RSA_AES_256_GCM_SHA384) SSLCAUTH(OPTIONAL)
DEFINE CHANNEL(FROM.B) CHLTYPE(RCVR) SSLCIPH(ANY_TLS13) SSLPEER('CN=B,XX=1')
DEFINE CHANNEL(FROM.C) CHLTYPE(RCVR)
DEFINE CHANNEL(APP) CHLTYPE(SVRCONN) SSLCIPH(TLS_RSA_WITH_AES_128_CBC_SHA)
DEFINE CHANNEL(FROM.D) CHLTYPE(RCVR) SSLCIPH(ANY_TLS12,ANY_TLS13)
",
    )
    .unwrap();
    let out = mqgate(&["mqsc", "import", f.to_str().unwrap()]);
    // Unusable CipherSpecs and no certificate files: exit 1.
    assert_eq!(out.status.code(), Some(1));
    let err = String::from_utf8_lossy(&out.stderr);
    let file = f.display().to_string();
    for expected in [
        ":2: CHANNEL('TO.A') SSLCIPH(TLS_RSA_WITH_AES_256_GCM_SHA384): CipherSpec TLS_RSA_WITH_AES_256_GCM_SHA384 uses RSA key exchange (no forward secrecy), which rustls does not offer; expected one of TLS_AES_128_GCM_SHA256,",
        ":2: CHANNEL('TO.A') SSLCIPH: add channels[0].tls.ca, the PEM file of the CA certificates",
        ":3: CHANNEL('TO.B') SSLPEER('CN=B'): IBM MQ checks SSLPEER only on channels with SSLCIPH; not imported",
        ":4: listener.tls: receiver channels share one listener: its ciphers are the CipherSpecs of all of them (ECDHE_RSA_AES_256_GCM_SHA384, ANY_TLS13)",
        ":4: CHANNEL('FROM.A') SSLCAUTH(OPTIONAL): receiver channels share listener.tls, whose client_auth is required because CHANNEL('FROM.B') has SSLCAUTH(REQUIRED); not imported",
        ":4: CHANNEL('FROM.A') SSLCIPH: add listener.tls.cert and listener.tls.key",
        ":5: CHANNEL('FROM.B') SSLPEER('CN=B,XX=1'): SSLPEER \"CN=B,XX=1\": unknown attribute type \"XX\"",
        ":6: CHANNEL('FROM.C'): listener.tls applies to all receiver channels: this one, without SSLCIPH, needs TLS too",
        ":7: CHANNEL('APP') SSLCIPH(TLS_RSA_WITH_AES_128_CBC_SHA): CipherSpec TLS_RSA_WITH_AES_128_CBC_SHA uses TLS 1.0, which is never accepted (RFC 8996)",
        ":7: CHANNEL('APP') SSLCIPH: add svrconn.tls.cert",
        // IBM MQ's SSLCIPH holds one CipherSpec.
        ":8: CHANNEL('FROM.D') SSLCIPH: needs one value; not imported",
        "channels[0].tls.ca: an outbound connection needs the CA certificates",
    ] {
        let expected = if expected.starts_with(':') {
            format!("{file}{expected}")
        } else {
            expected.to_string()
        };
        assert!(err.contains(&expected), "{expected} not in\n{err}");
    }
    let y = yaml(&out);
    // TLS stays on where the CipherSpec cannot be used, with every suite.
    assert!(y["channels"][0]["tls"].is_mapping(), "{y:?}");
    assert!(y["channels"][0]["tls"].get("ciphers").is_none());
    assert!(y["channels"][1].get("tls").is_none());
    assert!(y["channels"][1].get("sslpeer").is_none());
    assert!(y["channels"][3].get("sslpeer").is_none());
    let ltls = &y["listener"]["tls"];
    assert_eq!(ltls["client_auth"].as_str(), Some("required"));
    assert_eq!(
        ltls["ciphers"].as_sequence().map(Vec::len),
        Some(2),
        "{ltls:?}"
    );
    assert_eq!(
        y["svrconn"]["tls"]["client_auth"].as_str(),
        Some("required")
    );
}

#[test]
fn export_writes_one_sslciph_per_channel_and_names_what_mqsc_cannot_carry() {
    // A configuration that cannot be read: the error line is led by the
    // command, as every other line of mqsc import and export
    // (docs/operations.md "mqgate mqsc"), and the path and the OS error
    // ("No such file or directory", errno ENOENT) follow.
    let out = mqgate(&["mqsc", "export", "--config", "/nonexistent/gateway.yaml"]);
    assert_eq!(out.status.code(), Some(1));
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(
        err.starts_with(
            "mqgate mqsc export: /nonexistent/gateway.yaml: cannot read: No such file or directory"
        ),
        "{err}"
    );

    let dir = tempfile::tempdir().unwrap();
    let f = dir.path().join("gw.yaml");
    std::fs::write(
        &f,
        "queue_manager: {name: QM1}
queues:
  - {type: local, name: QM2, usage: xmitq}
channels:
  - type: sender
    name: TO.QM2
    xmit_queue: QM2
    connect: 192.0.2.10:1414
    tls: {ca: /etc/ca.pem, min_version: '1.3', crl: /etc/ca.crl, server_name: qm2.example}
svrconn:
  tls: {cert: /etc/gw.pem, key: /etc/gw.key, ca: /etc/ca.pem, client_auth: optional, ciphers: [ecdhe_rsa_aes_128_gcm_sha256, TLS_AES_128_GCM_SHA256]}
  channels:
    - {name: APP.SVRCONN, sslpeer: 'CN=app*,O=Example'}
",
    )
    .unwrap();
    let out = mqgate(&["mqsc", "export", "--config", f.to_str().unwrap()]);
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let script = String::from_utf8_lossy(&out.stdout);
    // Without ciphers, the alias CipherSpec of min_version (IBM MQ "Alias
    // CipherSpecs"); SSLCAUTH(OPTIONAL) for client_auth optional (IBM MQ's
    // default is REQUIRED); the first CipherSpec in IBM MQ's spelling.
    assert!(
        script.contains("   SSLCIPH('ANY_TLS13_OR_HIGHER') +\n   REPLACE"),
        "{script}"
    );
    assert!(
        script.contains(
            "   SSLCAUTH(OPTIONAL) +\n   SSLCIPH('ECDHE_RSA_AES_128_GCM_SHA256') +\n   SSLPEER('CN=app*,O=Example') +\n"
        ),
        "{script}"
    );
    let notes = String::from_utf8_lossy(&out.stderr);
    for expected in [
        "channels[0].tls: ca: IBM MQ keeps certificates in the queue manager's key repository",
        "channels[0].tls.crl: IBM MQ reads revocation lists through AUTHINFO objects",
        "channels[0].tls.server_name: \"qm2.example\" has no MQSC attribute",
        "svrconn.tls.ciphers: IBM MQ takes one CipherSpec per channel: SSLCIPH(ECDHE_RSA_AES_128_GCM_SHA256) is written",
    ] {
        assert!(notes.contains(expected), "{expected} not in\n{notes}");
    }
}

use super::*;

const EXAMPLE: &str = include_str!("../../fixtures/gateway.yaml");

#[test]
fn no_file_gives_the_embedded_default() {
    // docs/config.md: MQGATE, HTTP 127.0.0.1:8080, listener 127.0.0.1:1414, ./mqgate-data,
    // SYSTEM.DEAD.LETTER.QUEUE, a default transmission queue.
    let c = Config::from_yaml("# nothing\n", "empty.yaml").unwrap();
    assert_eq!(c.queue_manager.name, "MQGATE");
    assert_eq!(c.http.listen.to_string(), "127.0.0.1:8080");
    assert_eq!(c.listener.listen.to_string(), "127.0.0.1:1414");
    assert_eq!(c.storage.data_dir, PathBuf::from("./mqgate-data"));
    let names: Vec<_> = c
        .effective_queues()
        .iter()
        .map(|q| q.name().to_string())
        .collect();
    assert_eq!(names, ["SYSTEM.DEAD.LETTER.QUEUE", "MQGATE.DEFAULT.XMITQ"]);
    assert!(matches!(&c.effective_queues()[1], QueueDef::Local(l) if l.usage == Usage::Xmitq));
}

#[test]
fn the_example_fixture_is_valid() {
    let c = Config::from_yaml(EXAMPLE, "fixtures/gateway.yaml").unwrap();
    assert_eq!(c.queue_manager.name, "GATEWAY1");
    assert_eq!(c.queues.len(), 7);
    match &c.queues[0] {
        QueueDef::Local(l) => {
            assert_eq!(l.max_depth, 10000);
            assert_eq!(l.default_persistence, DefaultPersistence::Persistent);
            // MQ's defaults for what the file leaves out: DEFPRTY 0, PUT/GET enabled.
            assert_eq!(l.default_priority, 0);
            assert!(!l.put_inhibited);
        }
        other => panic!("{other:?}"),
    }
}

#[test]
fn a_type_error_names_line_and_column() {
    let text = "queue_manager:\n  name: QM1\nhttp:\n  lease_ms: soon\n";
    let e = Config::from_yaml(text, "c.yaml").unwrap_err();
    assert_eq!(e.errors.len(), 1);
    assert_eq!((e.errors[0].line, e.errors[0].column), (4, 13));
    assert!(e.to_string().starts_with("c.yaml:4:13: "), "{e}");
}

#[test]
fn an_unknown_key_is_an_error() {
    let text = "queue_manager:\n  nmae: QM1\n";
    let e = Config::from_yaml(text, "c.yaml").unwrap_err();
    assert_eq!((e.errors[0].line, e.errors[0].column), (2, 3));
    assert!(e.errors[0].message.contains("unknown field `nmae`"), "{e}");
}

#[test]
fn every_reference_error_is_reported_with_its_place() {
    let text = "\
queues:
  - type: local
    name: A
    max_depth: 0
  - type: alias
    name: B
    target: NOPE
  - type: remote
    name: C
    remote_q_name: X
    remote_q_mgr_name: QM2
    xmit_q: A
  - type: local
    name: A
  - type: local
    name: BAD-NAME
";
    let e = Config::from_yaml(text, "c.yaml").unwrap_err();
    let got: Vec<_> = e
        .errors
        .iter()
        .map(|e| {
            (
                e.line,
                e.column,
                e.message.split(':').next().unwrap().to_string(),
            )
        })
        .collect();
    assert_eq!(
        got,
        [
            (14, 11, "queues[3].name".to_string()),
            (16, 11, "queues[4].name".to_string()),
            (4, 16, "queues[0].max_depth".to_string()),
            (7, 13, "queues[1].target".to_string()),
            (12, 13, "queues[2].xmit_q".to_string()),
        ]
    );
    // MQ reasons named where MQ has one: 2082 UNKNOWN_ALIAS_BASE_Q, 2092 XMIT_Q_USAGE_ERROR.
    assert!(e.errors[3].message.contains("2082"));
    assert!(e.errors[4].message.contains("2092"));
}

#[test]
fn the_default_xmitq_must_be_an_xmitq() {
    let text = "queue_manager:\n  default_xmit_queue: Q1\nqueues:\n  - type: local\n    name: Q1\n";
    let e = Config::from_yaml(text, "c.yaml").unwrap_err();
    assert_eq!((e.errors[0].line, e.errors[0].column), (2, 23));
    assert!(e.errors[0].message.contains("2199"));
}

/// The first error of `text`, as `check-config` prints it after `FILE:`.
fn first_error(text: &str) -> String {
    let e = Config::from_yaml(text, "f.yaml").unwrap_err();
    e.errors[0].to_string()
}

#[test]
fn a_bad_sslpeer_is_placed_at_its_value() {
    // docs/config.md: LINE:COLUMN is where the offending value starts, the
    // path names the key. `    sslpeer: 'CN'` on line 6: the value starts
    // at column 14; "CN" has no `=` (IBM MQ "SSLPEER": attribute=value pairs).
    let e = first_error(
        "channels:\n  - name: TO.B\n    type: sender\n    xmit_queue: Q\n    connect: 127.0.0.1:1414\n    sslpeer: 'CN'\n",
    );
    assert!(
        e.starts_with("6:14: channels[0].sslpeer: SSLPEER \"CN\": "),
        "{e}"
    );
}

#[test]
fn errors_inside_a_queue_entry_keep_their_line_and_column() {
    // Before the fix these were all reported at 2:3 ("queues: ..."): the
    // internally tagged entry lost serde_yaml's positions.
    let head = "queues:\n  - type: local\n    name: Q\n";
    // `    max_depth: -1` on line 4: the value starts at column 16.
    let e = first_error(&format!("{head}    max_depth: -1\n"));
    assert!(
        e.starts_with(
            "4:16: queues[0].max_depth: invalid type: integer `-1`, expected a whole number (0 or more)"
        ),
        "{e}"
    );
    // docs/config.md (check-config, at its start): Rust's type names in
    // plain words (a u64 field), the range of a small integer type given
    // (u16: 0 to 65535, the Rust reference's "Integer types").
    let e = first_error("http:\n  header_read_timeout_ms: soon\n");
    assert!(e.ends_with("expected a whole number (0 or more)"), "{e}");
    assert_eq!(
        super::plain_types("invalid value: integer `70000`, expected u16"),
        "invalid value: integer `70000`, expected a whole number from 0 to 65535"
    );
    assert_eq!(
        super::plain_types("expected u16s, expected usize"),
        "expected u16s, expected a whole number (0 or more)"
    );
    // serde_yaml's own " at line X column Y" is not repeated.
    assert!(!e.contains(" at line "), "{e}");
    // Wrong type.
    let e = first_error(&format!("{head}    put_inhibited: maybe\n"));
    assert!(e.starts_with("4:20: queues[0].put_inhibited: "), "{e}");
    // Unknown key: at the key.
    let e = first_error(&format!("{head}    bogus_key: 1\n"));
    assert!(
        e.starts_with("4:5: queues[0]: unknown field `bogus_key`"),
        "{e}"
    );
    // Bad enum value.
    let e = first_error(&format!("{head}    usage: sideways\n"));
    assert!(
        e.starts_with("4:12: queues[0].usage: unknown variant `sideways`"),
        "{e}"
    );
    // Duplicate key inside the entry: at the second one.
    let e = first_error(&format!("{head}    name: R\n"));
    assert!(e.starts_with("4:5: queues[0]"), "{e}");
    assert!(e.contains("duplicate"), "{e}");
    // A key of another queue type: at that key.
    let e = first_error(&format!("{head}    target: X\n"));
    assert!(e.starts_with("4:13: queues[0].target: "), "{e}");
    // An alias without target: at its `type: alias` (line 4, column 11).
    let e = first_error(&format!("{head}  - type: alias\n    name: A\n"));
    assert!(
        e.starts_with("4:11: queues[1]: missing field `target`"),
        "{e}"
    );
    // The second entry, too.
    let e = first_error(&format!(
        "{head}  - type: alias\n    name: A\n    max_depth: 3\n"
    ));
    assert!(e.starts_with("6:16: queues[1].max_depth: "), "{e}");
}

#[test]
fn a_repeated_top_level_key_is_reported_at_its_line() {
    let e = first_error("http:\n  lease_ms: 5\nqueues: []\nhttp:\n  lease_ms: 6\n");
    assert!(e.starts_with("4:1: "), "{e}");
    assert!(e.contains("duplicate"), "{e}");
}

#[test]
fn a_missing_file_has_no_fake_position() {
    let e = Config::load(Path::new("/nonexistent/mqgate.yaml")).unwrap_err();
    let text = e.to_string();
    assert!(
        text.starts_with("/nonexistent/mqgate.yaml: cannot read: "),
        "{text}"
    );
    assert!(!text.contains(":0:0"), "{text}");
}

#[test]
fn channels_and_devices_have_documented_defaults() {
    // docs/config.md `channels` / `devices` (after the WebSphere MQ Everyplace
    // gateway article): TO.MQGATE with destination-rewrite (separator %), DEV*
    // are devices.
    let c = Config::from_yaml("", "empty").unwrap();
    assert_eq!(c.devices.queue_managers, vec!["DEV*".to_string()]);
    assert_eq!(c.devices.max_depth, 5000);
    match &c.channels[..] {
        [ChannelDef::Receiver(r)] => {
            assert_eq!(r.name, "TO.MQGATE");
            assert_eq!(r.receive_exits[0].exit.to_string(), "destination-rewrite");
            assert_eq!(r.receive_exits[0].data, "separator=%");
            assert_eq!(r.undelivered, UndeliveredRule::Retry);
            // MQ's BATCHSZ 50 and MAXMSGL 4 MiB.
            assert_eq!(
                (r.limits.batch_size, r.limits.max_msg_length),
                (50, 4 * 1024 * 1024)
            );
        }
        other => panic!("{other:?}"),
    }
    let c = Config::from_yaml(EXAMPLE, "fixtures/gateway.yaml").unwrap();
    assert_eq!(c.channels.len(), 2);
    assert!(matches!(&c.channels[1], ChannelDef::Sender(s) if s.xmit_queue == "QM2"));
}

#[test]
fn channel_definitions_are_checked() {
    let bad = "channels:
  - type: sender
    name: A.NAME.LONGER.THAN.TWENTY
    xmit_queue: NOT.DEFINED
    connect: 127.0.0.1:1415
    batch_size: 0
  - type: receiver
    name: R
  - type: receiver
    name: R
    undelivered: dead-letter
devices:
  queue_managers: ['DEV*X']
";
    let e = Config::from_yaml(bad, "bad.yaml").unwrap_err();
    let text = e.to_string();
    for needle in [
        "channels[0].name",
        "channels[0].xmit_queue: \"NOT.DEFINED\" must be a local queue with usage xmitq",
        "channels[0].batch_size: must be at least 1",
        "channels[2].name: channel \"R\" is also defined at channels[1]",
        "devices.queue_managers[0]",
    ] {
        assert!(text.contains(needle), "{needle} not in:\n{text}");
    }
}

#[test]
fn channel_exit_points_that_cannot_run_are_refused_with_their_place() {
    // docs/exits.md "Where each point runs": a receiver channel sends no
    // transmission message (no send exits), a sender channel receives none
    // (no receive exits); message exits run on both. A name that is no
    // channel here is an error at its key (before the fix it was left alone,
    // and this test asserted that).
    let text = "queues:
  - type: local
    name: TO.GWB
    usage: xmitq
channels:
  - type: receiver
    name: TO.GW
  - type: sender
    name: A.TO.B
    xmit_queue: TO.GWB
    connect: 127.0.0.1:1415
exits:
  channels:
    TO.GW:
      message:
        - exit: destination-rewrite
      send:
        - exit: destination-rewrite
    A.TO.B:
      message:
        - exit: destination-rewrite
      send:
        - exit: destination-rewrite
      receive:
        - exit: destination-rewrite
    OTHER:
      send:
        - exit: destination-rewrite
";
    let e = Config::from_yaml(text, "gw.yaml").unwrap_err();
    let got: Vec<(usize, String)> = e
        .errors
        .iter()
        .map(|e| (e.line, e.message.clone()))
        .collect();
    assert_eq!(got.len(), 3, "{e}");
    assert_eq!(got[0].0, 25, "{e}");
    assert!(
        got[0]
            .1
            .starts_with("exits.channels.A.TO.B.receive[0]: A.TO.B is a sender channel"),
        "{e}"
    );
    assert_eq!(got[1].0, 18, "{e}");
    assert!(
        got[1]
            .1
            .starts_with("exits.channels.TO.GW.send[0]: TO.GW is a receiver channel"),
        "{e}"
    );
    // `    OTHER:` on line 26, the key at column 5.
    assert_eq!(got[2].0, 26, "{e}");
    assert_eq!(e.errors[2].column, 5, "{e}");
    assert!(
        got[2]
            .1
            .starts_with("exits.channels.OTHER: \"OTHER\" is not a channel of this configuration (defined: TO.GW, A.TO.B)"),
        "{e}"
    );
    // Without those three entries the same exits are accepted.
    let ok = text
        .replace(
            "      send:\n        - exit: destination-rewrite\n    A.TO.B:",
            "    A.TO.B:",
        )
        .replace("      receive:\n        - exit: destination-rewrite\n", "")
        .replace(
            "    OTHER:\n      send:\n        - exit: destination-rewrite\n",
            "",
        );
    Config::from_yaml(&ok, "gw.yaml").unwrap();
}

#[test]
fn errors_inside_a_channel_entry_keep_their_line_and_column() {
    // Before the fix a bad `connect` was reported at the list item
    // (`6:3: channels: invalid socket address syntax`): the internally
    // tagged entry lost serde_yaml's positions.
    let head = "queues:\n  - type: local\n    name: XQ\n    usage: xmitq\nchannels:\n  - type: sender\n    name: TO.B\n    xmit_queue: XQ\n";
    // `    connect: not-an-address` on line 9: the value starts at column 14.
    let e = first_error(&format!("{head}    connect: not-an-address\n"));
    assert_eq!(
        e,
        "9:14: channels[0].connect: invalid socket address syntax"
    );
    // A receiver key on a sender: at that key (line 10, column 20).
    let e = first_error(&format!(
        "{head}    connect: 127.0.0.1:1415\n    sending_q_mgr: QM1\n"
    ));
    assert!(
        e.starts_with("10:20: channels[0].sending_q_mgr: key not valid for this channel type"),
        "{e}"
    );
    // A sender without `connect`: at its `type: sender` (line 6, column 11).
    let e = first_error(head);
    assert!(
        e.starts_with("6:11: channels[0]: missing field `connect` (type sender)"),
        "{e}"
    );
    // Inside a receiver's receive_exits entry: at the unknown key.
    let e = first_error(
        "channels:\n  - type: receiver\n    name: R\n    receive_exits:\n      - exit: destination-rewrite\n        bogus: 1\n",
    );
    assert!(
        e.starts_with("6:9: channels[0].receive_exits[0]: unknown field `bogus`"),
        "{e}"
    );
    // A bad batch_size type on the second entry.
    let e = first_error(
        "channels:\n  - type: receiver\n    name: R\n  - type: receiver\n    name: S\n    batch_size: many\n",
    );
    assert!(e.starts_with("6:17: channels[1].batch_size: "), "{e}");
    // The entries still read as before.
    let c = Config::from_yaml(&format!("{head}    connect: 127.0.0.1:1415\n"), "f.yaml").unwrap();
    match &c.channels[..] {
        [ChannelDef::Sender(s)] => {
            assert_eq!(s.connect.to_string(), "127.0.0.1:1415");
            assert_eq!(s.limits, ChannelLimits::default());
            assert_eq!((s.reconnect.first_ms, s.reconnect.max_ms), (500, 30_000));
        }
        other => panic!("{other:?}"),
    }
}

#[test]
fn exits_for_objects_that_do_not_exist_are_refused_at_their_key() {
    // Names the gateway has or creates at run time are accepted: a defined
    // queue, the dead-letter and default transmission queues, a name a model
    // queue's DynamicQName matches, a device queue QMGR/QUEUE of a
    // `devices.queue_managers` pattern (default DEV*), an RTQ queue
    // RTQ.<group>.<name> (docs/tuxedo.md), and the default channel TO.MQGATE.
    let text = "\
queues:
  - type: local
    name: APP.IN
  - type: model
    name: TMP.MODEL
    dynamic_q_name: TMP.*
exits:
  channels:
    TO.MQGATE:
      message:
        - exit: destination-rewrite
    NOPE.CH:
      message:
        - exit: destination-rewrite
  queues:
    APP.IN: {}
    SYSTEM.DEAD.LETTER.QUEUE: {}
    MQGATE.DEFAULT.XMITQ: {}
    TMP.A1: {}
    DEV0001/INBOX: {}
    RTQ.BILLING_GROUP.BILLQ: {}
    NOPE: {}
    MQGATE/INBOX: {}
    OTHER/INBOX: {}
    DEV0002/: {}
";
    let e = Config::from_yaml(text, "gw.yaml").unwrap_err();
    let got: Vec<(usize, usize, String)> = e
        .errors
        .iter()
        .map(|e| {
            let path = e.message.split(": ").next().unwrap().to_string();
            (e.line, e.column, path)
        })
        .collect();
    // Each at its key's line, column 5. MQGATE is this queue manager, not a
    // device; OTHER matches no pattern; DEV0002/ names no queue.
    let mut want = vec![
        (12, 5, "exits.channels.NOPE.CH".to_string()),
        (22, 5, "exits.queues.NOPE".to_string()),
        (23, 5, "exits.queues.MQGATE/INBOX".to_string()),
        (24, 5, "exits.queues.OTHER/INBOX".to_string()),
        (25, 5, "exits.queues.DEV0002/".to_string()),
    ];
    let mut sorted = got.clone();
    sorted.sort();
    want.sort();
    assert_eq!(sorted, want, "{e}");
    let nope = e
        .errors
        .iter()
        .find(|e| e.message.starts_with("exits.queues.NOPE:"))
        .unwrap();
    // 2085 MQRC_UNKNOWN_OBJECT_NAME (IBM MQ "Constants").
    assert!(nope.message.contains("MQRC 2085"), "{}", nope.message);
    assert!(
        e.errors[0]
            .message
            .contains("\"NOPE.CH\" is not a channel of this configuration (defined: TO.MQGATE)"),
        "{e}"
    );
    // With `channels:` written the default TO.MQGATE is gone, and so is its entry's channel.
    let e = Config::from_yaml(
        "channels: []\nexits:\n  channels:\n    TO.MQGATE:\n      message:\n        - exit: destination-rewrite\n",
        "gw.yaml",
    )
    .unwrap_err();
    assert_eq!(e.errors.len(), 1, "{e}");
    assert!(
        e.errors[0].to_string().starts_with(
            "4:5: exits.channels.TO.MQGATE: \"TO.MQGATE\" is not a channel of this configuration (none are defined)"
        ),
        "{e}"
    );
}

#[test]
fn allowed_origins_and_hosts_are_checked_with_their_places() {
    // docs/config.md `http`: origins are `scheme://host[:port]` of http or
    // https (RFC 6454 §6.2), hosts `host` or `host:port`; both default to
    // none. Columns counted in the text below: `    - ` is 6 characters.
    let c = Config::from_yaml("", "c.yaml").unwrap();
    assert!(c.http.allowed_origins.is_empty() && c.http.allowed_hosts.is_empty());
    let ok = "http:\n  allowed_origins: [\"https://app.example\", \"http://[::1]:3000\"]\n  allowed_hosts: [gw.example, \"gw.example:8443\", \"192.0.2.1\"]\n";
    let c = Config::from_yaml(ok, "c.yaml").unwrap();
    assert_eq!(c.http.allowed_origins.len(), 2);
    assert_eq!(c.http.allowed_hosts.len(), 3);
    let text = "http:\n  allowed_origins:\n    - https://app.example\n    - https://app.example/path\n  allowed_hosts:\n    - \"gw example\"\n";
    let e = Config::from_yaml(text, "c.yaml").unwrap_err();
    assert_eq!(e.errors.len(), 2, "{e}");
    assert_eq!((e.errors[0].line, e.errors[0].column), (4, 7), "{e}");
    assert!(
        e.errors[0]
            .message
            .starts_with("http.allowed_origins[1]: \"https://app.example/path\" is not an origin"),
        "{e}"
    );
    assert_eq!((e.errors[1].line, e.errors[1].column), (6, 7), "{e}");
    assert!(
        e.errors[1]
            .message
            .starts_with("http.allowed_hosts[0]: \"gw example\" is not a host name"),
        "{e}"
    );
}

#[test]
fn http_connection_timeouts_have_defaults_and_must_be_positive() {
    // docs/config.md `http`: header_read_timeout_ms 10000, idle_timeout_ms
    // 60000, each at least 1.
    let c = Config::from_yaml("", "c.yaml").unwrap();
    assert_eq!(
        (c.http.header_read_timeout_ms, c.http.idle_timeout_ms),
        (10_000, 60_000)
    );
    let text = "http:\n  header_read_timeout_ms: 0\n  idle_timeout_ms: 0\n";
    let e = Config::from_yaml(text, "c.yaml").unwrap_err();
    assert_eq!(e.errors.len(), 2, "{e}");
    assert_eq!((e.errors[0].line, e.errors[0].column), (2, 27), "{e}");
    assert_eq!(
        e.errors[0].message,
        "http.header_read_timeout_ms: must be at least 1 ms"
    );
    assert_eq!((e.errors[1].line, e.errors[1].column), (3, 20), "{e}");
    assert_eq!(
        e.errors[1].message,
        "http.idle_timeout_ms: must be at least 1 ms"
    );
}

#[test]
fn the_rv_section_has_defaults_ranges_and_no_unknown_keys() {
    // docs/config.md `rv`: 4 MiB, 1024 messages, wildcard publishes refused.
    let c = Config::from_yaml("# nothing\n", "empty.yaml").unwrap();
    assert_eq!(c.rv, crate::rv::config::RvConfig::default());
    assert_eq!(c.rv.max_message_bytes, 4_194_304);
    assert_eq!(c.rv.listener_queue, 1024);
    assert!(!c.rv.wildcard_publish);
    let c = Config::from_yaml(
        "rv:\n  listener_queue: 8\n  wildcard_publish: true\n",
        "rv.yaml",
    )
    .unwrap();
    assert_eq!(c.rv.listener_queue, 8);
    assert_eq!(c.rv.max_message_bytes, 4_194_304);
    assert!(c.rv.wildcard_publish);
    let e = Config::from_yaml(
        "rv:\n  listener_queue: 0\n  max_message_bytes: 104857601\n",
        "rv.yaml",
    )
    .unwrap_err();
    let texts: Vec<String> = e.errors.iter().map(|e| e.to_string()).collect();
    assert_eq!(
        texts,
        [
            "3:22: rv.max_message_bytes: must be 1 to 104857600 bytes",
            "2:19: rv.listener_queue: must be 1 to 1048576 messages",
        ]
    );
    let e = Config::from_yaml("rv:\n  queue: 8\n", "rv.yaml").unwrap_err();
    assert!(
        e.errors[0]
            .to_string()
            .starts_with("2:3: rv: unknown field `queue`"),
        "{}",
        e.errors[0]
    );
}

#[test]
fn mq_client_channels_have_defaults_and_placed_errors() {
    // docs/config.md `mq-client` channels: port 1414 (IBM MQ's default
    // listener port), MQGET wait 5000 ms, the transmission buffer for exits,
    // BATCHSZ 50, backoff 500..30000 ms.
    let text = "channels:
  - type: mq-client
    name: FROM.QM1
    host: qm1.example.com
    channel: MQGATE.SVRCONN
    q_mgr_name: QM1
    user: app
    password: secret
    xmit_queue: MQGATE.XMITQ
    exit_buffer: agent
    receive_exits:
      - exit: destination-rewrite
        data: 'separator=% offset=492'
";
    let c = Config::from_yaml(text, "f.yaml").unwrap();
    match &c.channels[..] {
        [ChannelDef::MqClient(m)] => {
            assert_eq!((m.host.as_str(), m.port), ("qm1.example.com", 1414));
            assert_eq!(
                (m.channel.as_str(), m.q_mgr_name.as_str()),
                ("MQGATE.SVRCONN", "QM1")
            );
            assert_eq!(
                (m.user.as_str(), m.password.as_deref()),
                ("app", Some("secret"))
            );
            assert_eq!(m.xmit_queue, "MQGATE.XMITQ");
            assert_eq!(m.wait_ms, 5000);
            assert_eq!(m.exit_buffer, ExitBuffer::Agent);
            assert_eq!(m.limits.batch_size, 50);
            assert_eq!((m.reconnect.first_ms, m.reconnect.max_ms), (500, 30_000));
            assert_eq!(m.receive_exits[0].data, "separator=% offset=492");
        }
        other => panic!("{other:?}"),
    }
    // A key of another type, placed at its value (line 5, column 14).
    let e = first_error(
        "channels:\n  - type: mq-client\n    name: M\n    host: h\n    connect: 127.0.0.1:1\n    channel: C\n    xmit_queue: X\n",
    );
    assert!(
        e.starts_with("5:14: channels[0].connect: key not valid for this channel type"),
        "{e}"
    );
    // A required key missing, placed at the entry's `type:` value (line 2, column 11).
    let e =
        first_error("channels:\n  - type: mq-client\n    name: M\n    host: h\n    channel: C\n");
    assert!(
        e.starts_with("2:11: channels[0]: missing field `xmit_queue` (type mq-client)"),
        "{e}"
    );
    // Names and numbers, each at its key.
    let bad = "channels:
  - type: mq-client
    name: M
    host: ' '
    port: 0
    channel: A.CHANNEL.NAME.LONGER.THAN.20
    xmit_queue: 'BAD NAME'
    password: p
    batch_size: 0
    reconnect: { first_ms: 0 }
    max_msg_length: 0
exits:
  channels:
    M:
      send:
        - exit: destination-rewrite
";
    let text = Config::from_yaml(bad, "bad.yaml").unwrap_err().to_string();
    for needle in [
        "4:11: channels[0].host: must name the queue manager's host",
        "5:11: channels[0].port: must be a TCP port",
        "6:14: channels[0].channel",
        "7:17: channels[0].xmit_queue",
        "8:15: channels[0].password: a password needs a user",
        "9:17: channels[0].batch_size: must be at least 1",
        "channels[0].reconnect.first_ms: must be at least 1 ms",
        // The MQGET buffer: a message longer than it is never got (2080), so
        // 0 pulls nothing; IBM MQ "Maximum message length (MAXMSGL)": at
        // most 100 MB.
        "11:21: channels[0].max_msg_length: must be 1 to 104857600 bytes",
        "exits.channels.M.send[0]: M is a mq-client channel",
    ] {
        assert!(text.contains(needle), "{needle} not in:\n{text}");
    }
}

#[test]
fn the_nats_storage_has_defaults_and_placed_errors() {
    // docs/config.md `storage`: type redb by default; with type: nats,
    // stream_prefix MQGATE, replicas 1, require_sync_always true.
    let c = Config::from_yaml("", "c.yaml").unwrap();
    assert_eq!(c.storage.kind, StorageType::Redb);
    assert_eq!(c.storage.nats(), None);
    let ok = "storage:\n  type: nats\n  servers: [\"nats://n1:4222\", \"tls://n2:4443\"]\n  monitor_urls: [\"http://n1:8222\"]\n  tls:\n    ca: /etc/mqgate/nats-ca.pem\n";
    let n = Config::from_yaml(ok, "c.yaml")
        .unwrap()
        .storage
        .nats()
        .unwrap();
    assert_eq!(
        (n.stream_prefix.as_str(), n.replicas, n.require_sync_always),
        ("MQGATE", 1, true)
    );
    assert_eq!(n.servers, ["nats://n1:4222", "tls://n2:4443"]);
    assert_eq!(
        n.tls.and_then(|t| t.ca),
        Some(PathBuf::from("/etc/mqgate/nats-ca.pem"))
    );
    // Columns counted in the text: `  replicas: ` is 12 characters, `    - `
    // 6, `    cert: ` 10.
    let text = "storage:\n  type: nats\n  servers:\n    - nats://n1:4222\n    - http://n2:8222\n  stream_prefix: a.b\n  replicas: 7\n  tls:\n    cert: c.pem\n";
    let e = Config::from_yaml(text, "c.yaml").unwrap_err();
    let got: Vec<(usize, usize, &str)> = e
        .errors
        .iter()
        .map(|e| (e.line, e.column, e.message.as_str()))
        .collect();
    assert_eq!(
        got,
        vec![
            (
                5,
                7,
                "storage.servers[1]: \"http://n2:8222\": scheme \"http\" is not nats, tls, ws or wss"
            ),
            (
                6,
                18,
                "storage.stream_prefix: \"a.b\" is not a stream prefix: 1 to 32 letters, digits, '_' or '-'"
            ),
            (
                7,
                13,
                "storage.replicas: 7 replicas: JetStream streams have 1 to 5"
            ),
            (9, 11, "storage.tls.cert: needs tls.key beside it"),
            // A missing key is placed at its section, which yaml-rust2
            // marks at the section's first value (line 2, column 7).
            (
                2,
                7,
                "storage.monitor_urls: needed while require_sync_always is true: the servers' HTTP monitoring endpoints, where mqgate reads their sync policy (or set require_sync_always: false to start without checking it)"
            ),
        ],
        "{e}"
    );
    // NATS settings under the default type, and an unknown key.
    let e = Config::from_yaml("storage:\n  servers: [\"n1:4222\"]\n", "c.yaml").unwrap_err();
    assert_eq!(
        (
            e.errors[0].line,
            e.errors[0].column,
            e.errors[0].message.as_str()
        ),
        (2, 12, "storage.servers: is a setting of type: nats")
    );
    // shared and claim_ttl_ms (docs/config.md `storage`): false and 30000
    // by default; whole seconds of at least 1000 ms, with shared only.
    assert_eq!((n.shared, n.claim_ttl_ms), (false, 30_000));
    let shared = format!("{ok}  shared: true\n  claim_ttl_ms: 5000\n");
    let n = Config::from_yaml(&shared, "c.yaml")
        .unwrap()
        .storage
        .nats()
        .unwrap();
    assert_eq!((n.shared, n.claim_ttl_ms), (true, 5000));
    let e = Config::from_yaml(&format!("{ok}  claim_ttl_ms: 1500\n"), "c.yaml").unwrap_err();
    let got: Vec<(usize, usize, &str)> = e
        .errors
        .iter()
        .map(|e| (e.line, e.column, e.message.as_str()))
        .collect();
    assert_eq!(
        got,
        vec![
            (7, 17, "storage.claim_ttl_ms: is a setting of shared: true"),
            (
                7,
                17,
                "storage.claim_ttl_ms: 1500 ms: a claim lasts whole seconds, at least 1000 ms (NATS message TTLs are whole seconds)"
            ),
        ],
        "{e}"
    );
    let e = Config::from_yaml("storage:\n  shared: true\n", "c.yaml").unwrap_err();
    assert_eq!(
        e.errors[0].message, "storage.shared: is a setting of type: nats",
        "{e}"
    );
    let e = Config::from_yaml("storage:\n  type: nats\n  sever: x\n", "c.yaml").unwrap_err();
    assert_eq!((e.errors[0].line, e.errors[0].column), (3, 3), "{e}");
}

//! Checks that go beyond types: names, ranges, references between objects,
//! and listeners on one address (src/config/listeners.rs).

use super::locate::Places;
use super::{
    ChannelDef, Config, ConfigError, LIMIT_MAX_DEPTH, LIMIT_MAX_MSG_LENGTH, LocalQueueDef,
    MqClientChannelDef, QueueDef, Usage,
};
use crate::qmgr::names::{check_object_name, check_pattern};
use mqgate_codecs::mq::constants::len;
use mqgate_exits::{BuildError, ExitPoint, ExitRegistry, ExitsConfig};
use std::collections::HashMap;

/// Every error in `config`, each placed with `places`.
pub fn check(config: &Config, places: &Places) -> Vec<ConfigError> {
    let mut errors = Vec::new();
    let mut err = |path: &str, message: String| {
        let (line, column) = places.at(path);
        errors.push(ConfigError {
            line,
            column,
            message: format!("{path}: {message}"),
        });
    };

    let qm = &config.queue_manager;
    if let Err(e) = check_object_name(&qm.name, len::Q_MGR_NAME) {
        err("queue_manager.name", e);
    }
    if qm.max_msg_length == 0 || qm.max_msg_length > LIMIT_MAX_MSG_LENGTH {
        err(
            "queue_manager.max_msg_length",
            format!("must be 1 to {LIMIT_MAX_MSG_LENGTH} bytes"),
        );
    }
    for (path, message) in config.mqtt.problems() {
        err(&path, message);
    }
    if let Some(s) = &config.svrconn {
        for (path, message) in s.problems() {
            err(&path, message);
        }
    }
    for (path, message) in config.storage.problems() {
        err(&path, message);
    }
    for (path, message) in config.security.problems() {
        err(&path, message);
    }
    for (path, message) in config.tls_problems() {
        err(&path, message);
    }
    if config.http.lease_ms == 0 {
        err("http.lease_ms", "must be at least 1 ms".into());
    }
    if config.http.uow_timeout_ms == 0 {
        err("http.uow_timeout_ms", "must be at least 1 ms".into());
    }
    if config.http.header_read_timeout_ms == 0 {
        err(
            "http.header_read_timeout_ms",
            "must be at least 1 ms".into(),
        );
    }
    if config.http.idle_timeout_ms == 0 {
        err("http.idle_timeout_ms", "must be at least 1 ms".into());
    }
    for (i, o) in config.http.allowed_origins.iter().enumerate() {
        if let Err(e) = crate::http::guard::parse_origin(o) {
            err(&format!("http.allowed_origins[{i}]"), e);
        }
    }
    for (i, h) in config.http.allowed_hosts.iter().enumerate() {
        if let Err(e) = crate::http::guard::parse_allowed_host(h) {
            err(&format!("http.allowed_hosts[{i}]"), e);
        }
    }
    if let Some(m) = &config.messageq {
        use crate::sbs::config::{MAX_GROUP, MIN_GROUP};
        if !(MIN_GROUP..=MAX_GROUP).contains(&m.group) {
            err(
                "messageq.group",
                format!(
                    "{} is not a MessageQ group number: groups are {MIN_GROUP} to {MAX_GROUP}",
                    m.group
                ),
            );
        }
        for (n, link) in &m.groups {
            let path = format!("messageq.groups.{n}");
            if !(MIN_GROUP..=MAX_GROUP).contains(n) {
                err(
                    &path,
                    format!(
                        "{n} is not a MessageQ group number: groups are {MIN_GROUP} to {MAX_GROUP}"
                    ),
                );
            } else if *n == m.group {
                err(
                    &path,
                    format!("{n} is this gateway's own group (messageq.group)"),
                );
            }
            if let Some(q) = &link.queue_manager
                && let Err(e) = check_object_name(q, len::Q_MGR_NAME)
            {
                err(&format!("{path}.queue_manager"), e);
            }
            if let Some(x) = &link.xmit_queue
                && let Err(e) = check_object_name(x, len::Q_NAME)
            {
                err(&format!("{path}.xmit_queue"), e);
            }
        }
    }
    for (key, message) in config.rv.problems() {
        err(&format!("rv.{key}"), message);
    }
    if let Some(r) = &config.rv.routing {
        for (key, message) in r.problems() {
            err(&format!("rv.routing.{key}"), message);
        }
    }
    for (key, message) in config.rv.bridge_problems() {
        err(&format!("rv.{key}"), message);
    }
    if let Some(b) = &config.bus {
        for (key, message) in b.problems(config.rv.routing.is_some()) {
            err(&format!("bus.{key}"), message);
        }
    }
    if let Some(ft) = &config.fault_tolerance {
        for (key, message) in ft.problems(config) {
            err(&format!("fault_tolerance.{key}"), message);
        }
    }
    crate::rpc::check::check_config(&config.rpc, &mut err);
    check_exits(&config.exits, &mut err);

    // Names first, so references can be checked against the full set.
    let mut by_name: HashMap<&str, (usize, &QueueDef)> = HashMap::new();
    for (i, q) in config.queues.iter().enumerate() {
        let path = format!("queues[{i}].name");
        if let Err(e) = check_object_name(q.name(), len::Q_NAME) {
            err(&path, e);
        } else if let Some((first, _)) = by_name.insert(q.name(), (i, q)) {
            err(
                &path,
                format!("{:?} is already defined by queues[{first}]", q.name()),
            );
        }
    }

    for (i, q) in config.queues.iter().enumerate() {
        let at = |field: &str| format!("queues[{i}].{field}");
        match q {
            QueueDef::Local(d) | QueueDef::Model(d) => {
                let is_model = matches!(q, QueueDef::Model(_));
                check_local(d, is_model, &at, &mut err);
                if !d.backout_requeue_q.is_empty() {
                    match by_name.get(d.backout_requeue_q.as_str()) {
                        Some((_, QueueDef::Local(_))) => {}
                        Some(_) => err(&at("backout_requeue_q"), "must name a local queue".into()),
                        None if d.backout_requeue_q == qm.dead_letter_queue => {}
                        None => err(
                            &at("backout_requeue_q"),
                            format!("{:?} is not defined", d.backout_requeue_q),
                        ),
                    }
                }
            }
            QueueDef::Remote(d) => {
                if let Some(r) = &d.remote_q_name
                    && let Err(e) = check_object_name(r, len::Q_NAME)
                {
                    err(&at("remote_q_name"), e);
                }
                if let Some(r) = &d.remote_q_mgr_name
                    && let Err(e) = check_object_name(r, len::Q_MGR_NAME)
                {
                    err(&at("remote_q_mgr_name"), e);
                }
                if d.remote_q_name.is_some() && d.remote_q_mgr_name.is_none() {
                    // MQ: RQMNAME blank on a remote queue -> 2087 at open time.
                    err(
                        &at("remote_q_mgr_name"),
                        "a remote queue definition needs remote_q_mgr_name".into(),
                    );
                }
                if d.remote_q_name.is_none() && d.remote_q_mgr_name.is_none() && d.xmit_q.is_none()
                {
                    err(
                        &at("name"),
                        "a queue manager alias needs remote_q_mgr_name or xmit_q".into(),
                    );
                }
                if let Some(x) = &d.xmit_q {
                    let implicit_xmitq = x == &qm.default_xmit_queue;
                    match by_name.get(x.as_str()) {
                        Some((_, QueueDef::Local(l))) if l.usage == Usage::Xmitq => {}
                        Some(_) => err(
                            &at("xmit_q"),
                            format!("{x:?} is not a local queue with usage xmitq (MQRC 2092)"),
                        ),
                        None if implicit_xmitq => {}
                        None => err(&at("xmit_q"), format!("{x:?} is not defined (MQRC 2196)")),
                    }
                }
            }
            QueueDef::Alias(d) => match by_name.get(d.target.as_str()) {
                Some((_, QueueDef::Local(_) | QueueDef::Remote(_))) => {}
                Some((_, QueueDef::Alias(_) | QueueDef::Model(_))) => err(
                    &at("target"),
                    format!("{:?} is not a local or remote queue (MQRC 2001)", d.target),
                ),
                None if d.target == qm.dead_letter_queue || d.target == qm.default_xmit_queue => {}
                None => err(
                    &at("target"),
                    format!("{:?} is not defined (MQRC 2082)", d.target),
                ),
            },
        }
    }

    for (path, name, usage, code) in [
        (
            "queue_manager.dead_letter_queue",
            &qm.dead_letter_queue,
            Usage::Normal,
            "",
        ),
        (
            "queue_manager.default_xmit_queue",
            &qm.default_xmit_queue,
            Usage::Xmitq,
            " (MQRC 2199)",
        ),
    ] {
        if name.is_empty() {
            continue;
        }
        if let Err(e) = check_object_name(name, len::Q_NAME) {
            err(path, e);
            continue;
        }
        match by_name.get(name.as_str()) {
            None => {}
            Some((_, QueueDef::Local(l))) if l.usage == usage => {}
            Some((i, _)) => err(
                path,
                format!(
                    "{name:?} (queues[{i}]) must be a local queue with usage {}{code}",
                    if usage == Usage::Xmitq {
                        "xmitq"
                    } else {
                        "normal"
                    }
                ),
            ),
        }
    }
    check_channels(config, &by_name, &mut err);
    errors.extend(config.listener_clashes());
    // An object the exits name that does not exist: placed at the name's key.
    for (path, problem) in super::exit_names::check(config, &by_name) {
        let (line, column) = places.key_at(&path);
        errors.push(ConfigError {
            line,
            column,
            message: format!("{path}: {problem}"),
        });
    }
    errors
}

/// The `exits:` section: what mqgate-exits checks itself (points that fit
/// the object kind, budgets), queue names, then every exit made once without
/// being started: built-in names and their exit data, C libraries loaded
/// (docs/exits.md).
fn check_exits(exits: &ExitsConfig, err: &mut dyn FnMut(&str, String)) {
    if let Err(errors) = exits.validate() {
        for e in errors {
            err(&format!("exits.{}", e.path), e.problem);
        }
    }
    for name in exits.queues.keys() {
        if let Err(e) = check_object_name(name, len::Q_NAME) {
            err(&format!("exits.queues.{name}"), e);
        }
    }
    let registry = ExitRegistry::with_builtins();
    let sections = std::iter::once(("global".to_string(), &exits.global))
        .chain(
            exits
                .channels
                .iter()
                .map(|(n, c)| (format!("channels.{n}"), c)),
        )
        .chain(exits.queues.iter().map(|(n, c)| (format!("queues.{n}"), c)));
    for (section, chains) in sections {
        for point in ExitPoint::ALL {
            for (i, def) in chains.at(point).iter().enumerate() {
                if let Err(e) = registry.entry(point, def) {
                    // A built-in that refuses its exit data points at `data`.
                    let field = match e {
                        BuildError::Builtin { .. } if !def.data.is_empty() => "data",
                        _ => "exit",
                    };
                    err(
                        &format!("exits.{section}.{point}[{i}].{field}"),
                        e.to_string(),
                    );
                }
            }
        }
    }
}

/// Channel names (20 characters, unique), sender channels' transmission
/// queues, device patterns and undelivered-rule settings.
fn check_channels(
    config: &Config,
    by_name: &HashMap<&str, (usize, &QueueDef)>,
    err: &mut impl FnMut(&str, String),
) {
    let mut seen: HashMap<&str, usize> = HashMap::new();
    for (i, c) in config.channels.iter().enumerate() {
        let path = format!("channels[{i}].name");
        let name = c.name();
        if let Err(e) = check_object_name(name, 20) {
            err(&path, e);
        }
        if let Some(j) = seen.insert(name, i) {
            err(
                &path,
                format!("channel {name:?} is also defined at channels[{j}]"),
            );
        }
        match c {
            ChannelDef::Sender(s) => match by_name.get(s.xmit_queue.as_str()) {
                Some((_, QueueDef::Local(l))) if l.usage == Usage::Xmitq => {}
                _ => err(
                    &format!("channels[{i}].xmit_queue"),
                    format!(
                        "{:?} must be a local queue with usage xmitq defined in queues",
                        s.xmit_queue
                    ),
                ),
            },
            ChannelDef::Receiver(r) => {
                if r.retry.first_interval_ms == 0 {
                    err(
                        &format!("channels[{i}].retry.first_interval_ms"),
                        "must be at least 1 ms".into(),
                    );
                }
            }
            ChannelDef::MqClient(m) => check_mq_client(i, m, err),
        }
        if c.limits().batch_size == 0 {
            err(
                &format!("channels[{i}].batch_size"),
                "must be at least 1".into(),
            );
        }
    }
    check_channel_exit_points(config, err);
    for (i, p) in config.devices.queue_managers.iter().enumerate() {
        if let Err(e) = check_pattern(p, len::Q_MGR_NAME) {
            err(&format!("devices.queue_managers[{i}]"), e);
        }
    }
}

/// An mq-client channel's names and numbers (docs/config.md `mq-client`
/// channels): MQ's name lengths (IBM MQ "Rules for naming IBM MQ objects":
/// channel 20, queue manager 48, queue 48), a user id of at most 64
/// characters (the long user id of USERID_DATA), a host, a port, a
/// `max_msg_length` of 1 to 100 MB and intervals that are not 0.
fn check_mq_client(i: usize, m: &MqClientChannelDef, err: &mut impl FnMut(&str, String)) {
    let at = |key: &str| format!("channels[{i}].{key}");
    if m.host.trim().is_empty() {
        err(&at("host"), "must name the queue manager's host".into());
    }
    if m.port == 0 {
        err(&at("port"), "must be a TCP port from 1 to 65535".into());
    }
    if let Err(e) = check_object_name(&m.channel, 20) {
        err(&at("channel"), e);
    }
    if !m.q_mgr_name.is_empty()
        && let Err(e) = check_object_name(&m.q_mgr_name, len::Q_MGR_NAME)
    {
        err(&at("q_mgr_name"), e);
    }
    if let Err(e) = check_object_name(&m.xmit_queue, len::Q_NAME) {
        err(&at("xmit_queue"), e);
    }
    if m.user.len() > 64 {
        err(
            &at("user"),
            format!("{} characters; at most 64", m.user.len()),
        );
    }
    if m.password.is_some() && m.user.is_empty() {
        err(&at("password"), "a password needs a user".into());
    }
    // The MQGET buffer: a longer message is never got (2080), so 0 would
    // pull nothing; IBM MQ "Maximum message length (MAXMSGL)": 100 MB at most.
    let max = m.limits.max_msg_length as usize;
    if max == 0 || max > LIMIT_MAX_MSG_LENGTH {
        err(
            &at("max_msg_length"),
            format!("must be 1 to {LIMIT_MAX_MSG_LENGTH} bytes"),
        );
    }
    if m.retry.first_interval_ms == 0 {
        err(
            &at("retry.first_interval_ms"),
            "must be at least 1 ms".into(),
        );
    }
    if m.reconnect.first_ms == 0 || m.reconnect.max_ms < m.reconnect.first_ms {
        err(
            &at("reconnect.first_ms"),
            format!(
                "must be at least 1 ms and at most max_ms ({} ms)",
                m.reconnect.max_ms
            ),
        );
    }
}

/// Channel exit points that cannot run on the channel they name
/// (docs/exits.md "Where each point runs"): a receiver channel sends no
/// transmission message, so it has no send exits; a sender channel receives
/// none, so it has no receive exits. Each such entry is an error at its path
/// (`exits.channels.NAME.send[0]`); a name that is no channel of this
/// configuration is reported by `exit_names::check`.
fn check_channel_exit_points(config: &Config, err: &mut impl FnMut(&str, String)) {
    for (name, chains) in &config.exits.channels {
        let Some(def) = config.channels.iter().find(|c| c.name() == name) else {
            continue;
        };
        let (point, problem) = match def {
            ChannelDef::Receiver(_) => (
                ExitPoint::Send,
                "receiver channel: it sends no transmission messages (only HELLO_ACK, CONFIRM, HEARTBEAT and CLOSE frames), so a send exit would never run; send exits run on sender channels",
            ),
            ChannelDef::MqClient(_) => (
                ExitPoint::Send,
                "mq-client channel: it sends no transmission messages (only MQI verbs to the queue manager), so a send exit would never run; send exits run on sender channels",
            ),
            ChannelDef::Sender(_) => (
                ExitPoint::Receive,
                "sender channel: it receives no transmission messages (only HELLO_ACK, CONFIRM, HEARTBEAT and CLOSE frames), so a receive exit would never run; receive exits run on receiver channels",
            ),
        };
        for i in 0..chains.at(point).len() {
            err(
                &format!("exits.channels.{name}.{point}[{i}]"),
                format!("{name} is a {problem}"),
            );
        }
    }
}

fn check_local(
    d: &LocalQueueDef,
    is_model: bool,
    at: &dyn Fn(&str) -> String,
    err: &mut dyn FnMut(&str, String),
) {
    match (&d.dynamic_q_name, is_model) {
        (Some(p), true) => {
            if let Err(e) = check_pattern(p, len::Q_NAME) {
                err(&at("dynamic_q_name"), e);
            }
        }
        (None, true) => err(&at("name"), "a model queue needs dynamic_q_name".into()),
        (Some(_), false) => err(
            &at("dynamic_q_name"),
            "only a model queue has dynamic_q_name".into(),
        ),
        (None, false) => {}
    }
    if d.max_depth == 0 || d.max_depth > LIMIT_MAX_DEPTH {
        err(&at("max_depth"), format!("must be 1 to {LIMIT_MAX_DEPTH}"));
    }
    if d.max_msg_length == 0 || d.max_msg_length > LIMIT_MAX_MSG_LENGTH {
        err(
            &at("max_msg_length"),
            format!("must be 1 to {LIMIT_MAX_MSG_LENGTH} bytes"),
        );
    }
    if !(0..=9).contains(&d.default_priority) {
        err(&at("default_priority"), "must be 0 to 9".into());
    }
    if d.backout_threshold < 0 {
        err(&at("backout_threshold"), "must be 0 or more".into());
    }
    if d.backout_threshold > 0 && d.backout_requeue_q.is_empty() {
        err(
            &at("backout_threshold"),
            "needs backout_requeue_q, the queue backed-out messages move to".into(),
        );
    }
}

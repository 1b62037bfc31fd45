//! MQSC commands into mqgate's YAML configuration (docs/config.md shapes).

use super::tls::{Certificates, ChannelTls};
use super::{MQ_CHANNEL_HBINT_S, Note};
use crate::config::DEFAULT_MQ_PORT;
use mqgate_codecs::mqsc::{Command, MqscError, Param, parse_script, quote};
use serde_yaml::{Mapping, Value};

/// What an import made: the YAML document and the notes, in script order.
#[derive(Debug)]
pub struct Imported {
    /// `queue_manager`, `queues`, `channels` and `svrconn` as found; keys
    /// with mqgate's default value are left out.
    pub yaml: Value,
    /// Everything not carried over, by line.
    pub notes: Vec<Note>,
}

/// mqgate's (and MQ's) defaults, left out of the YAML.
const DEFAULT_MAX_DEPTH: u64 = 5000;
const DEFAULT_MAX_MSG_LENGTH: u64 = 4_194_304;
const DEFAULT_BATCH_SIZE: u64 = 50;
const DEFAULT_HEARTBEAT_MS: u64 = 30_000;
const DEFAULT_SHARECNV: u64 = 10;

/// Reads `script` and converts it (see the module documentation of
/// [`crate::mqsc`]). Errors: the script's syntax error, with its line.
pub fn import(script: &str) -> Result<Imported, MqscError> {
    import_with(script, &Certificates::default())
}

/// As [`import`], the TLS settings of channels with SSLCIPH naming the
/// certificate files `certs` ([`super::tls`]).
pub fn import_with(script: &str, certs: &Certificates) -> Result<Imported, MqscError> {
    let commands = parse_script(script)?;
    let mut im = Importer {
        certs: certs.clone(),
        ..Importer::default()
    };
    for c in &commands {
        im.command(c);
    }
    Ok(im.finish())
}

#[derive(Default)]
struct Importer {
    q_mgr: Mapping,
    queues: Vec<(String, Mapping)>,
    channels: Vec<(String, Mapping)>,
    svrconn: Vec<(String, Mapping)>,
    /// `security.chlauth`, by the key of [`super::chlauth::Imported`].
    chlauth: Vec<(String, crate::security::chlauth::RuleConfig)>,
    /// The TLS attributes of receiver and server-connection channels, for
    /// the listeners they share.
    receiver_tls: Vec<ChannelTls>,
    svrconn_tls: Vec<ChannelTls>,
    /// The certificate files of TLS settings.
    certs: Certificates,
    notes: Vec<Note>,
    /// The line of the DEFINE that created each object: queues and
    /// channels by (is a channel, name), queues sharing one name space.
    defined: std::collections::BTreeMap<(bool, String), usize>,
}

/// The object as MQSC names it: `QLOCAL('APP.IN')`.
fn subject(c: &Command) -> String {
    match (c.object_type(), c.name()) {
        (Some(t), Some(n)) => format!("{t}({})", quote(n)),
        (Some(t), None) => t.to_string(),
        _ => c.verb.clone(),
    }
}

/// The most characters of a value a note repeats: IBM MQ's longest
/// free-text attribute, DESCR, holds 64 ("DEFINE queues").
const SHOWN_VALUE_CHARS: usize = 64;

/// A value as MQSC would need it written: bare when it is uppercase letters,
/// digits and `.` `_` `/` `%` `*` only, otherwise quoted; a value longer
/// than [`SHOWN_VALUE_CHARS`] is cut there and its length given, so a
/// malformed script's huge value does not flood the notes.
fn shown(v: &str) -> String {
    if let Some((cut, _)) = v.char_indices().nth(SHOWN_VALUE_CHARS) {
        return format!("{}… ({} characters)", shown(&v[..cut]), v.chars().count());
    }
    let bare = !v.is_empty()
        && v.chars()
            .all(|c| c.is_ascii_uppercase() || c.is_ascii_digit() || "._/%*".contains(c));
    if bare { v.to_string() } else { quote(v) }
}

fn key(k: &str) -> Value {
    Value::String(k.into())
}

/// Puts `(name, entry)` into `list`, replacing an earlier definition of the
/// same name (MQSC REPLACE; the later command wins as runmqsc would apply it).
fn upsert(list: &mut Vec<(String, Mapping)>, name: &str, entry: Mapping) {
    match list.iter_mut().find(|(n, _)| n == name) {
        Some(slot) => slot.1 = entry,
        None => list.push((name.to_string(), entry)),
    }
}

impl Importer {
    fn note(&mut self, line: usize, subject: String, message: &str, invalid: bool) {
        self.notes.push(Note {
            line,
            subject,
            message: message.to_string(),
            invalid,
        });
    }

    fn unsupported(&mut self, c: &Command, p: &Param, why: &str) {
        let what = match &p.value {
            Some(v) => format!(
                "{} {}({})",
                subject(c),
                p.keyword,
                v.iter().map(|s| shown(s)).collect::<Vec<_>>().join(",")
            ),
            None => format!("{} {}", subject(c), p.keyword),
        };
        self.note(p.line, what, why, false);
    }

    fn command(&mut self, c: &Command) {
        let object = c.object_type().unwrap_or("");
        match (c.verb.as_str(), object) {
            ("DEFINE", "QLOCAL" | "QMODEL" | "QREMOTE" | "QALIAS" | "CHANNEL") => {}
            ("ALTER", "QMGR") => return self.alter_qmgr(c),
            ("SET", "CHLAUTH") => return self.chlauth(c),
            _ => {
                return self.note(
                    c.line,
                    format!("{} {}", c.verb, subject(c)),
                    "mqgate has no such object; not imported",
                    false,
                );
            }
        }
        let Some(name) = c.name() else {
            return self.note(c.line, subject(c), "no object name; not imported", true);
        };
        if name.starts_with("SYSTEM.") && name != "SYSTEM.DEAD.LETTER.QUEUE" {
            return self.note(
                c.line,
                subject(c),
                "SYSTEM.* objects are the queue manager's own; not imported",
                false,
            );
        }
        // IBM MQ "DEFINE queues" / "DEFINE CHANNEL": NOREPLACE is the
        // default, and a DEFINE of an object that exists without REPLACE
        // fails; the object keeps its first definition.
        let id = (object == "CHANNEL", name.to_string());
        let replace = c.params.iter().any(|p| p.keyword == "REPLACE");
        if let Some(&first) = self.defined.get(&id) {
            if !replace {
                return self.note(
                    c.line,
                    subject(c),
                    &format!(
                        "already defined at line {first}, and this DEFINE has no REPLACE \
                         (IBM MQ refuses it); not imported"
                    ),
                    true,
                );
            }
        } else {
            self.defined.insert(id, c.line);
        }
        match object {
            "QLOCAL" | "QMODEL" => self.local(c, name, object == "QMODEL"),
            "QREMOTE" => self.remote(c, name),
            "QALIAS" => self.alias(c, name),
            _ => self.channel(c, name),
        }
    }

    /// An attribute's single value, or a note and `None`.
    fn single<'c>(&mut self, c: &Command, p: &'c Param) -> Option<&'c str> {
        let v = p.single();
        if v.is_none() {
            self.note(
                p.line,
                format!("{} {}", subject(c), p.keyword),
                "needs one value; not imported",
                true,
            );
        }
        v
    }

    /// A whole-number attribute in `range`, or a note and `None`.
    fn number(
        &mut self,
        c: &Command,
        p: &Param,
        range: std::ops::RangeInclusive<u64>,
    ) -> Option<u64> {
        let text = self.single(c, p)?;
        match text.parse::<u64>() {
            Ok(n) if range.contains(&n) => Some(n),
            _ => {
                self.note(
                    p.line,
                    format!("{} {}({text})", subject(c), p.keyword),
                    &format!(
                        "not a whole number from {} to {}; not imported",
                        range.start(),
                        range.end()
                    ),
                    true,
                );
                None
            }
        }
    }

    /// ENABLED / DISABLED as `*_inhibited: true` when DISABLED.
    fn inhibit(&mut self, c: &Command, p: &Param, m: &mut Mapping, yaml_key: &str) {
        match self.single(c, p) {
            Some("DISABLED") => {
                m.insert(key(yaml_key), Value::Bool(true));
            }
            Some("ENABLED") => {}
            Some(other) => {
                let s = format!("{} {}({other})", subject(c), p.keyword);
                self.note(
                    p.line,
                    s,
                    "expected ENABLED or DISABLED; not imported",
                    true,
                );
            }
            None => {}
        }
    }

    /// REPLACE, NOREPLACE, FORCE and LIKE are options of the command, not
    /// attributes: the first three change nothing here.
    fn command_option(&mut self, c: &Command, p: &Param) -> bool {
        match p.keyword.as_str() {
            "REPLACE" | "NOREPLACE" | "FORCE" => true,
            "LIKE" => {
                self.unsupported(c, p, "mqgate has no default objects to copy; not imported");
                true
            }
            _ => false,
        }
    }

    fn local(&mut self, c: &Command, name: &str, model: bool) {
        let mut m = Mapping::new();
        m.insert(key("type"), key(if model { "model" } else { "local" }));
        m.insert(key("name"), key(name));
        if model {
            // mqgate creates a model's queues when a name matching a pattern is
            // first used; MQ when MQOPEN names the model (IBM MQ "Dynamic queues").
            let pattern = format!("{name}.*");
            self.note(
                c.line,
                subject(c),
                &format!("mqgate creates dynamic queues from names matching dynamic_q_name, which MQSC does not have: set to {pattern}"),
                false,
            );
            m.insert(key("dynamic_q_name"), key(&pattern));
        }
        for p in &c.params {
            if self.command_option(c, p) {
                continue;
            }
            match p.keyword.as_str() {
                "USAGE" => match self.single(c, p) {
                    Some("XMITQ") => {
                        m.insert(key("usage"), key("xmitq"));
                    }
                    Some("NORMAL") | None => {}
                    Some(_) => self.unsupported(c, p, "expected NORMAL or XMITQ; not imported"),
                },
                "MAXDEPTH" => {
                    if let Some(n) = self
                        .number(c, p, 1..=999_999_999)
                        .filter(|n| *n != DEFAULT_MAX_DEPTH)
                    {
                        m.insert(key("max_depth"), n.into());
                    }
                }
                "MAXMSGL" => {
                    if let Some(n) = self
                        .number(c, p, 1..=104_857_600)
                        .filter(|n| *n != DEFAULT_MAX_MSG_LENGTH)
                    {
                        m.insert(key("max_msg_length"), n.into());
                    }
                }
                "DEFPSIST" => match self.single(c, p) {
                    Some("YES") => {
                        m.insert(key("default_persistence"), key("persistent"));
                    }
                    Some("NO") | None => {}
                    Some(_) => self.unsupported(c, p, "expected YES or NO; not imported"),
                },
                "DEFPRTY" => {
                    if let Some(n) = self.number(c, p, 0..=9).filter(|n| *n != 0) {
                        m.insert(key("default_priority"), n.into());
                    }
                }
                "PUT" => self.inhibit(c, p, &mut m, "put_inhibited"),
                "GET" => self.inhibit(c, p, &mut m, "get_inhibited"),
                "BOTHRESH" => {
                    if let Some(n) = self.number(c, p, 0..=999_999_999).filter(|n| *n != 0) {
                        m.insert(key("backout_threshold"), n.into());
                    }
                }
                "BOQNAME" => {
                    if let Some(v) = self.single(c, p).filter(|v| !v.trim().is_empty()) {
                        m.insert(key("backout_requeue_q"), key(v.trim_end()));
                    }
                }
                "DEFTYPE" if model => match self.single(c, p) {
                    Some("PERMDYN") | None => {}
                    Some(_) => self.unsupported(
                        c,
                        p,
                        "mqgate's dynamic queues are permanent (PERMDYN); not imported",
                    ),
                },
                _ => self.unsupported(c, p, "no mqgate equivalent; not imported"),
            }
        }
        upsert(&mut self.queues, name, m);
    }

    fn remote(&mut self, c: &Command, name: &str) {
        let mut m = Mapping::new();
        m.insert(key("type"), key("remote"));
        m.insert(key("name"), key(name));
        for p in &c.params {
            if self.command_option(c, p) {
                continue;
            }
            let k = match p.keyword.as_str() {
                "RNAME" => "remote_q_name",
                "RQMNAME" => "remote_q_mgr_name",
                "XMITQ" => "xmit_q",
                "PUT" => {
                    self.inhibit(c, p, &mut m, "put_inhibited");
                    continue;
                }
                _ => {
                    self.unsupported(c, p, "no mqgate equivalent; not imported");
                    continue;
                }
            };
            if let Some(v) = self.single(c, p).filter(|v| !v.trim().is_empty()) {
                m.insert(key(k), key(v.trim_end()));
            }
        }
        upsert(&mut self.queues, name, m);
    }

    fn alias(&mut self, c: &Command, name: &str) {
        let mut m = Mapping::new();
        m.insert(key("type"), key("alias"));
        m.insert(key("name"), key(name));
        for p in &c.params {
            if self.command_option(c, p) {
                continue;
            }
            match p.keyword.as_str() {
                "TARGET" => {
                    if let Some(v) = self.single(c, p) {
                        m.insert(key("target"), key(v.trim_end()));
                    }
                }
                "TARGTYPE" => {
                    if self.single(c, p) != Some("QUEUE") {
                        self.unsupported(
                            c,
                            p,
                            "mqgate aliases name queues only (TARGTYPE(QUEUE)); not imported",
                        );
                    }
                }
                "PUT" => self.inhibit(c, p, &mut m, "put_inhibited"),
                "GET" => self.inhibit(c, p, &mut m, "get_inhibited"),
                _ => self.unsupported(c, p, "no mqgate equivalent; not imported"),
            }
        }
        upsert(&mut self.queues, name, m);
    }

    fn channel(&mut self, c: &Command, name: &str) {
        let kind = c.param("CHLTYPE").and_then(Param::single).unwrap_or("");
        let (list, ty) = match kind {
            "SDR" => (0, "sender"),
            "RCVR" => (0, "receiver"),
            "SVRCONN" => (1, ""),
            "" => return self.note(c.line, subject(c), "no CHLTYPE; not imported", true),
            other => {
                return self.note(
                    c.line,
                    format!("{} CHLTYPE({other})", subject(c)),
                    "mqgate has sender (SDR), receiver (RCVR) and server-connection (SVRCONN) channels only; not imported",
                    false,
                );
            }
        };
        let mut m = Mapping::new();
        if list == 0 {
            m.insert(key("type"), key(ty));
        }
        m.insert(key("name"), key(name));
        let tls = super::tls::read(c, name, &subject(c), kind, &mut self.notes);
        let mut hbint: Option<u64> = None;
        for p in &c.params {
            if self.command_option(c, p) {
                continue;
            }
            match (p.keyword.as_str(), kind) {
                ("CHLTYPE", _) => {}
                ("TRPTYPE", _) => {
                    if self.single(c, p) != Some("TCP") {
                        self.unsupported(c, p, "mqgate channels run over TCP only; not imported");
                    }
                }
                ("CONNAME", "SDR") => {
                    if let Some(addr) = self.conname(c, p) {
                        m.insert(key("connect"), key(&addr));
                    }
                }
                ("XMITQ", "SDR") => {
                    if let Some(v) = self.single(c, p) {
                        m.insert(key("xmit_queue"), key(v.trim_end()));
                    }
                }
                ("BATCHSZ", "SDR" | "RCVR") => {
                    if let Some(n) = self
                        .number(c, p, 1..=9999)
                        .filter(|n| *n != DEFAULT_BATCH_SIZE)
                    {
                        m.insert(key("batch_size"), n.into());
                    }
                }
                ("MAXMSGL", _) => {
                    let k = if list == 1 {
                        "maxmsgl"
                    } else {
                        "max_msg_length"
                    };
                    if let Some(n) = self
                        .number(c, p, 1..=104_857_600)
                        .filter(|n| *n != DEFAULT_MAX_MSG_LENGTH)
                    {
                        m.insert(key(k), n.into());
                    }
                }
                ("HBINT", _) => hbint = self.number(c, p, 0..=999_999).or(hbint),
                ("SHARECNV", "SVRCONN") => {
                    if let Some(n) = self
                        .number(c, p, 0..=999_999_999)
                        .filter(|n| *n != DEFAULT_SHARECNV)
                    {
                        m.insert(key("sharecnv"), n.into());
                    }
                }
                ("SSLCIPH" | "SSLPEER", _) | ("SSLCAUTH", "RCVR" | "SVRCONN") => {}
                _ => self.unsupported(c, p, "no mqgate equivalent; not imported"),
            }
        }
        let hbint = hbint.unwrap_or(u64::from(MQ_CHANNEL_HBINT_S));
        if kind == "SDR" {
            let index = self
                .channels
                .iter()
                .position(|(n, _)| n == name)
                .unwrap_or(self.channels.len());
            if let Some(t) = super::tls::sender(&tls, index, &self.certs, &mut self.notes) {
                m.insert(key("tls"), Value::Mapping(t));
            }
        }
        if let Some(p) = &tls.sslpeer {
            m.insert(key("sslpeer"), key(p));
        }
        match kind {
            "RCVR" => super::tls::upsert(&mut self.receiver_tls, tls),
            "SVRCONN" => super::tls::upsert(&mut self.svrconn_tls, tls),
            _ => {}
        }
        if list == 1 {
            if hbint != u64::from(MQ_CHANNEL_HBINT_S) {
                m.insert(key("heartbeat"), hbint.into());
            }
            upsert(&mut self.svrconn, name, m);
        } else {
            // HBINT is seconds in MQ, heartbeat_ms milliseconds here; an
            // absent HBINT is MQ's 300, not mqgate's 30 s default.
            if hbint * 1000 != DEFAULT_HEARTBEAT_MS {
                m.insert(key("heartbeat_ms"), (hbint * 1000).into());
            }
            upsert(&mut self.channels, name, m);
        }
    }

    /// CONNAME `addr(port)` or `addr` (port 1414) as `connect` `IP:PORT`;
    /// a host name or a list of addresses is a note (a sender connects to
    /// one IP address).
    fn conname(&mut self, c: &Command, p: &Param) -> Option<String> {
        let text = self.single(c, p)?.trim();
        let (host, port) = match text.strip_suffix(')').and_then(|t| t.rsplit_once('(')) {
            Some((h, port)) => (h.trim(), port.trim().parse::<u16>().ok()),
            None => (text, Some(DEFAULT_MQ_PORT)),
        };
        let bad = |why: &str| {
            (
                format!("{} CONNAME({})", subject(c), quote(text)),
                why.to_string(),
            )
        };
        let result = match (host.parse::<std::net::IpAddr>(), port) {
            (Ok(ip), Some(port)) => Ok(std::net::SocketAddr::new(ip, port).to_string()),
            (_, None) => Err(bad(
                "the port is not a number from 0 to 65535; not imported",
            )),
            (Err(_), _) if text.contains(',') => Err(bad(
                "a sender channel connects to one address; a list is not imported",
            )),
            (Err(_), _) => Err(bad(
                "a sender channel's connect needs an IP address, not a host name; not imported",
            )),
        };
        match result {
            Ok(a) => Some(a),
            Err((s, why)) => {
                self.note(p.line, s, &why, true);
                None
            }
        }
    }

    /// SET CHLAUTH ([`super::chlauth`]).
    fn chlauth(&mut self, c: &Command) {
        use super::chlauth::Change;
        if self.chlauth.is_empty() && !self.notes.iter().any(|n| n.subject == "SET CHLAUTH") {
            self.note(
                c.line,
                "SET CHLAUTH".into(),
                "IBM MQ applies the most specific record, mqgate the first matching rule: the rules are imported in script order, review it",
                false,
            );
        }
        match super::chlauth::import(c, &mut self.notes) {
            Change::Set(rules) => {
                for r in rules {
                    match self.chlauth.iter_mut().find(|(k, _)| *k == r.key) {
                        Some(slot) => slot.1 = r.rule,
                        None => self.chlauth.push((r.key, r.rule)),
                    }
                }
            }
            Change::Remove(keys) => self.chlauth.retain(|(k, _)| !keys.contains(k)),
            Change::RemoveAll(prefix) => self.chlauth.retain(|(k, _)| !k.starts_with(&prefix)),
            Change::Nothing => {}
        }
    }

    fn alter_qmgr(&mut self, c: &Command) {
        for p in &c.params {
            if self.command_option(c, p) {
                continue;
            }
            let k = match p.keyword.as_str() {
                "DEADQ" => "dead_letter_queue",
                "DEFXMITQ" => "default_xmit_queue",
                "MAXMSGL" => {
                    if let Some(n) = self
                        .number(c, p, 1..=104_857_600)
                        .filter(|n| *n != DEFAULT_MAX_MSG_LENGTH)
                    {
                        self.q_mgr.insert(key("max_msg_length"), n.into());
                    }
                    continue;
                }
                _ => {
                    self.unsupported(c, p, "no mqgate equivalent; not imported");
                    continue;
                }
            };
            if let Some(v) = self.single(c, p) {
                self.q_mgr.insert(key(k), key(v.trim_end()));
            }
        }
    }

    fn finish(mut self) -> Imported {
        let mut doc = Mapping::new();
        if !self.q_mgr.is_empty() {
            doc.insert(key("queue_manager"), Value::Mapping(self.q_mgr));
        }
        if let Some(t) = super::tls::shared(
            &self.receiver_tls,
            "listener.tls",
            "receiver channels",
            &self.certs,
            &mut self.notes,
        ) {
            let mut l = Mapping::new();
            l.insert(key("tls"), Value::Mapping(t));
            doc.insert(key("listener"), Value::Mapping(l));
        }
        let svrconn_tls = super::tls::shared(
            &self.svrconn_tls,
            "svrconn.tls",
            "server-connection channels",
            &self.certs,
            &mut self.notes,
        );
        let seq = |v: Vec<(String, Mapping)>| {
            Value::Sequence(v.into_iter().map(|(_, m)| Value::Mapping(m)).collect())
        };
        if !self.queues.is_empty() {
            doc.insert(key("queues"), seq(self.queues));
        }
        if !self.channels.is_empty() {
            doc.insert(key("channels"), seq(self.channels));
        }
        if !self.svrconn.is_empty() {
            let mut s = Mapping::new();
            if let Some(t) = svrconn_tls {
                s.insert(key("tls"), Value::Mapping(t));
            }
            s.insert(key("channels"), seq(self.svrconn));
            doc.insert(key("svrconn"), Value::Mapping(s));
        }
        if !self.chlauth.is_empty() {
            let rules: Vec<_> = self
                .chlauth
                .into_iter()
                .map(|(_, r)| rule_yaml(&r))
                .collect();
            let mut s = Mapping::new();
            s.insert(key("chlauth"), Value::Sequence(rules));
            doc.insert(key("security"), Value::Mapping(s));
        }
        // Notes of the listeners' TLS are made last; show all in script order.
        self.notes.sort_by_key(|n| n.line);
        Imported {
            yaml: Value::Mapping(doc),
            notes: self.notes,
        }
    }
}

/// A rule as YAML, keys at their defaults left out.
fn rule_yaml(r: &crate::security::chlauth::RuleConfig) -> Value {
    let mut m = Mapping::new();
    m.insert(key("channel"), key(&r.channel));
    for (k, v) in [
        ("address", &r.address),
        ("dn", &r.dn),
        ("qmgr", &r.qmgr),
        ("client_user", &r.client_user),
    ] {
        if let Some(v) = v {
            m.insert(key(k), key(v));
        }
    }
    if r.action == crate::security::chlauth::Action::Block {
        m.insert(key("action"), key("block"));
    }
    if let Some(u) = &r.mcauser {
        m.insert(key("mcauser"), key(u));
    }
    if r.warn {
        m.insert(key("warn"), Value::Bool(true));
    }
    if let Some(d) = &r.description {
        m.insert(key("description"), key(d));
    }
    Value::Mapping(m)
}

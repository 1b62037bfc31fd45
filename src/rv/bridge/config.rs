//! The `rv.bridges:` and `rv.nats:` settings (docs/config.md `rv`,
//! docs/rendezvous.md "Bridges") and their checks for `check-config`.

use mqgate_codecs::mq::constants::len;
use mqgate_codecs::rv::{
    Mode, NameKind, NatsUse, Subject, Validation, check_reusable_name, nats_refusal,
};
use serde::Deserialize;

use crate::qmgr::names::check_object_name;

/// `rv.bridges`: rules between subjects and queues.
#[derive(Clone, Debug, Default, Deserialize, PartialEq, Eq)]
#[serde(default, deny_unknown_fields)]
pub struct BridgesConfig {
    /// Subject to queue: each message on a subject the pattern matches is
    /// put to the queue.
    pub to_queues: Vec<ToQueueRule>,
    /// Queue to subject: each message got from the queue is published on
    /// the subject.
    pub from_queues: Vec<FromQueueRule>,
}

/// How a message is written to (or read from) a queue.
#[derive(Clone, Copy, Debug, Default, Deserialize, PartialEq, Eq)]
#[serde(rename_all = "lowercase")]
pub enum BodyForm {
    /// An MQRFH2 whose `<usr>` folder holds the fields as properties, then
    /// the `Data` field's bytes (docs/rendezvous.md "Bridges").
    #[default]
    Rfh2,
    /// The JSON form of the envelope as an MQSTR body in CCSID 1208.
    Json,
}

/// One `rv.bridges.to_queues` entry.
#[derive(Clone, Debug, Deserialize, PartialEq, Eq)]
#[serde(deny_unknown_fields)]
pub struct ToQueueRule {
    /// A listen subject (wildcards allowed).
    pub subject: String,
    /// The queue (any name a put resolves: local, alias, remote
    /// definition, or a queue of `q_mgr`).
    pub queue: String,
    /// ObjectQMgrName of the put; empty = name resolution from this queue
    /// manager (IBM MQ "Name resolution").
    #[serde(default)]
    pub q_mgr: String,
    /// The body written: `rfh2` (default) or `json`.
    #[serde(default)]
    pub body: BodyForm,
    /// MQMD Persistence of the puts: true = MQPER_PERSISTENT, false =
    /// MQPER_NOT_PERSISTENT, absent = MQPER_PERSISTENCE_AS_Q_DEF (with
    /// `certified`: always persistent, and false is refused).
    #[serde(default)]
    pub persistent: Option<bool>,
    /// A reusable correspondent name (at most 50 bytes, "Reusable
    /// Names"): the rule listens as a certified listener of this CM
    /// transport, a persistent correspondent, and confirms each certified
    /// message in the unit of work of its put (docs/rendezvous.md
    /// "Certified bridges").
    #[serde(default)]
    pub certified: Option<String>,
}

/// One `rv.bridges.from_queues` entry.
#[derive(Clone, Debug, Deserialize, PartialEq, Eq)]
#[serde(deny_unknown_fields)]
pub struct FromQueueRule {
    /// A local queue (or an alias of one) of this queue manager.
    pub queue: String,
    /// The send subject the messages are published on (no wildcards).
    pub subject: String,
    /// How the body is read: `rfh2` (default: an MQRFH2's `<usr>`
    /// properties become fields) or `json` (the body is the JSON form).
    #[serde(default)]
    pub body: BodyForm,
    /// A reusable correspondent name (at most 50 bytes, "Reusable
    /// Names"): the rule sends each message as a certified message of
    /// this CM transport, a persistent correspondent, and commits its get
    /// with the sender's ledger (docs/rendezvous.md "Certified bridges").
    #[serde(default)]
    pub certified: Option<String>,
}

/// `rv.nats`: the bridge to a nats-server.
#[derive(Clone, Debug, Deserialize, PartialEq, Eq)]
#[serde(deny_unknown_fields)]
pub struct NatsConfig {
    /// The server, `nats://HOST:PORT` (a list separated by commas is
    /// tried in turn).
    pub url: String,
    /// Listen subjects that cross both ways: the bus's messages on them go
    /// to NATS, NATS messages on them come to the bus.
    pub subjects: Vec<String>,
    /// The connection name the server shows (`CONNZ`). Default `mqgate`.
    #[serde(default = "default_nats_name")]
    pub name: String,
    /// How long a NATS request's reply inbox stays open on the bus, in ms
    /// (1 to 3600000). Default 60000.
    #[serde(default = "default_reply_ttl_ms")]
    pub reply_ttl_ms: u64,
    /// TLS to the server (docs/security.md "TLS"): `ca` the trust anchors
    /// of the server's certificate, `cert`/`key` a client certificate;
    /// with it the server must offer TLS. Default none. Read when the
    /// bridge starts (a reload on SIGHUP does not reach it).
    #[serde(default)]
    pub tls: Option<crate::security::tls::TlsConfig>,
}

fn default_nats_name() -> String {
    "mqgate".into()
}

/// Default [`NatsConfig::reply_ttl_ms`]: 60 s.
pub const DEFAULT_REPLY_TTL_MS: u64 = 60_000;
/// Largest [`NatsConfig::reply_ttl_ms`]: one hour.
pub const LIMIT_REPLY_TTL_MS: u64 = 3_600_000;

fn default_reply_ttl_ms() -> u64 {
    DEFAULT_REPLY_TTL_MS
}

/// Where a problem is and what it is, for `check-config` to place
/// (`bridges.to_queues[0].subject` under `rv.`).
pub type Problem = (String, String);

/// Checks `text` in `mode` and names the rule it breaks.
fn subject_problem(text: &str, v: Validation) -> Option<String> {
    Subject::parse(text, v).err().map(|e| {
        format!(
            "invalid subject {text:?}: {e} (TIBRV_INVALID_SUBJECT 20; docs/rendezvous.md \"Subject names\")"
        )
    })
}

/// Where each correspondent name was first used, to refuse it twice.
type Names<'a> = std::collections::HashMap<&'a str, String>;

/// The problem of `certified` at `at` (`bridges.to_queues[0].certified`):
/// a reusable name ("Reusable Names": subject syntax, no wildcard, no
/// reserved first element, at most 50 bytes), used by one rule only (one
/// correspondent confirms once for all its listeners, so two rules under
/// one name would confirm each other's messages).
fn certified_problem<'a>(name: &'a str, at: &str, names: &mut Names<'a>) -> Option<String> {
    if let Err(e) = check_reusable_name(name, NameKind::CmName) {
        return Some(format!(
            "invalid correspondent name {name:?}: {e} (TIBRV_INVALID_SUBJECT 20; docs/rendezvous.md \"Reusable names\")"
        ));
    }
    if let Some(first) = names.get(name) {
        return Some(format!(
            "correspondent name {name:?} is used by {first} already: each certified rule needs its own"
        ));
    }
    names.insert(name, at.to_string());
    None
}

/// True when listen subject `pattern` receives messages published on
/// send subject `subject`, as the bus delivers (a leading wildcard never
/// reaches a reserved subject; docs/rendezvous.md "Reserved subjects on
/// the bus").
fn receives(pattern: &str, subject: &str) -> bool {
    let (Ok(p), Ok(s)) = (
        Subject::parse(pattern, Validation::LISTEN),
        Subject::parse(subject, Validation::SEND),
    ) else {
        return false;
    };
    if s.class().is_reserved() && matches!(p.first_element(), "*" | ">") {
        return false;
    }
    p.matches(&s)
}

impl BridgesConfig {
    /// Every problem of the rules: subjects in listen mode (patterns) or
    /// send mode (targets), queue and queue manager names, `certified`.
    pub fn problems(&self) -> Vec<Problem> {
        let mut out = Vec::new();
        let mut names = Names::new();
        for (i, r) in self.to_queues.iter().enumerate() {
            let at = |k: &str| format!("bridges.to_queues[{i}].{k}");
            if let Some(p) = subject_problem(&r.subject, Validation::LISTEN) {
                out.push((at("subject"), p));
            } else if r.subject.starts_with("_INBOX.") || r.subject == "_INBOX" {
                out.push((
                    at("subject"),
                    format!(
                        "{:?}: inboxes are made for one listener and cannot be bridged by name",
                        r.subject
                    ),
                ));
            }
            if let Err(e) = check_object_name(&r.queue, len::Q_NAME) {
                out.push((at("queue"), e));
            }
            if !r.q_mgr.is_empty()
                && let Err(e) = check_object_name(&r.q_mgr, len::Q_MGR_NAME)
            {
                out.push((at("q_mgr"), e));
            }
            if let Some(c) = &r.certified {
                if let Some(p) = certified_problem(c, &at("certified"), &mut names) {
                    out.push((at("certified"), p));
                }
                if r.persistent == Some(false) {
                    out.push((
                        at("persistent"),
                        "a certified rule puts persistent messages: a confirmed message must survive a restart".into(),
                    ));
                }
            }
            // A certified rule's messages come through its CM transport,
            // which the bus's links cannot keep from a queue rule's
            // messages: refuse what would carry a message from a queue
            // back to a queue.
            for (j, f) in self.from_queues.iter().enumerate() {
                if (r.certified.is_some() || f.certified.is_some())
                    && receives(&r.subject, &f.subject)
                {
                    out.push((
                        at("subject"),
                        format!(
                            "{:?} receives {:?}, the subject of bridges.from_queues[{j}]: with certified delivery a message from a queue would go back to a queue",
                            r.subject, f.subject
                        ),
                    ));
                }
            }
        }
        for (i, r) in self.from_queues.iter().enumerate() {
            let at = |k: &str| format!("bridges.from_queues[{i}].{k}");
            if let Err(e) = check_object_name(&r.queue, len::Q_NAME) {
                out.push((at("queue"), e));
            }
            if let Some(p) = subject_problem(&r.subject, Validation::SEND) {
                out.push((at("subject"), p));
            } else if matches!(
                Subject::parse(&r.subject, Validation::SEND).map(|s| s.class()),
                Ok(mqgate_codecs::rv::SubjectClass::Local)
            ) {
                out.push((at("subject"), format!("{:?}: a bridge brings messages in from outside the bus, and _LOCAL. subjects never come from outside", r.subject)));
            }
            if let Some(c) = &r.certified
                && let Some(p) = certified_problem(c, &at("certified"), &mut names)
            {
                out.push((at("certified"), p));
            }
        }
        out
    }
}

impl NatsConfig {
    /// The servers of `url`, a list separated by commas (spaces around
    /// each ignored), in the order they are tried.
    pub fn servers(&self) -> Vec<&str> {
        self.url.split(',').map(str::trim).collect()
    }

    /// Why the NATS client would refuse `url` (an empty entry, a scheme
    /// other than `nats`, `tls`, `ws` or `wss`, a malformed URL), so that
    /// check-config says it rather than the bridge not starting at run time.
    #[cfg(feature = "nats")]
    fn url_problem(&self) -> Option<String> {
        self.servers().into_iter().find_map(|server| {
            if server.is_empty() {
                return Some(format!(
                    "{:?}: an empty server in the list (nats://HOST:PORT, separated by commas)",
                    self.url
                ));
            }
            server
                .parse::<async_nats::ServerAddr>()
                .err()
                .map(|e| format!("{server:?}: {e} (nats://HOST:PORT)"))
        })
    }

    #[cfg(not(feature = "nats"))]
    fn url_problem(&self) -> Option<String> {
        None
    }

    /// Every problem: the URL, each subject (listen mode, and what NATS
    /// would refuse: whitespace; `_RV.`, `_LOCAL.` and `_INBOX.` never
    /// cross), `reply_ttl_ms`.
    pub fn problems(&self) -> Vec<Problem> {
        let mut out = Vec::new();
        if self.url.trim().is_empty() {
            out.push((
                "nats.url".into(),
                "a nats-server URL is needed (nats://HOST:PORT)".into(),
            ));
        } else if let Some(problem) = self.url_problem() {
            out.push(("nats.url".into(), problem));
        }
        if self.subjects.is_empty() {
            out.push((
                "nats.subjects".into(),
                "at least one listen subject crosses the bridge".into(),
            ));
        }
        for (i, s) in self.subjects.iter().enumerate() {
            let at = format!("nats.subjects[{i}]");
            match Subject::parse(s, Mode::Listen) {
                Err(e) => out.push((
                    at,
                    format!("invalid subject {s:?}: {e} (TIBRV_INVALID_SUBJECT 20)"),
                )),
                Ok(subject) => {
                    if let Some(r) = nats_refusal(&subject, NatsUse::Subscribe) {
                        out.push((at, format!("subject {s:?}: {r}")));
                    } else if let Some(why) = super::nats_map::never_crosses(&subject) {
                        out.push((at, format!("subject {s:?}: {why}")));
                    }
                }
            }
        }
        if !(1..=LIMIT_REPLY_TTL_MS).contains(&self.reply_ttl_ms) {
            out.push((
                "nats.reply_ttl_ms".into(),
                format!("must be 1 to {LIMIT_REPLY_TTL_MS} ms"),
            ));
        }
        if !cfg!(feature = "nats") {
            out.push((
                "nats".into(),
                "this mqgate was built without the `nats` feature".into(),
            ));
        }
        out
    }
}

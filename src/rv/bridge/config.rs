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
    /// MQPER_NOT_PERSISTENT, absent = MQPER_PERSISTENCE_AS_Q_DEF.
    #[serde(default)]
    pub persistent: Option<bool>,
    /// The certified-delivery correspondent name the rule would listen as;
    /// refused until certified delivery is built (docs/rendezvous.md
    /// "Bridges").
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
    /// The certified-delivery correspondent name the rule would send as;
    /// refused until certified delivery is built.
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

fn certified_problem(name: &str) -> String {
    match check_reusable_name(name, NameKind::CmName) {
        Err(e) => format!("invalid correspondent name {name:?}: {e}"),
        Ok(_) => "certified delivery is not available yet: bridge rules carry ordinary subjects (docs/rendezvous.md \"Bridges\")".into(),
    }
}

impl BridgesConfig {
    /// Every problem of the rules: subjects in listen mode (patterns) or
    /// send mode (targets), queue and queue manager names, `certified`.
    pub fn problems(&self) -> Vec<Problem> {
        let mut out = Vec::new();
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
                out.push((at("certified"), certified_problem(c)));
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
            if let Some(c) = &r.certified {
                out.push((at("certified"), certified_problem(c)));
            }
        }
        out
    }
}

impl NatsConfig {
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

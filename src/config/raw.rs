//! A queue entry as written: every attribute of every queue type, so serde
//! reads it as a plain struct and keeps each error's line and column.

use super::{
    AliasQueueDef, DefaultPersistence, LocalQueueDef, QueueDef, RemoteQueueDef, Usage,
    default_max_depth, default_max_msg_length,
};
use serde::Deserialize;

/// The `type:` of a queue entry (MQ object types).
#[derive(Clone, Copy, Debug, Deserialize, PartialEq, Eq)]
#[serde(rename_all = "snake_case")]
pub enum QueueType {
    Local,
    Model,
    Remote,
    Alias,
}

impl QueueType {
    /// Whether `key` is an attribute of this type (`type`, `name` and
    /// `put_inhibited` are common to all).
    fn allows(self, key: &str) -> bool {
        let own: &[&str] = match self {
            QueueType::Local | QueueType::Model => &[
                "dynamic_q_name",
                "usage",
                "max_depth",
                "max_msg_length",
                "default_persistence",
                "default_priority",
                "get_inhibited",
                "backout_threshold",
                "backout_requeue_q",
            ],
            QueueType::Remote => &["remote_q_name", "remote_q_mgr_name", "xmit_q"],
            QueueType::Alias => &["target", "get_inhibited"],
        };
        matches!(key, "type" | "name" | "put_inhibited") || own.contains(&key)
    }

    fn name(self) -> &'static str {
        match self {
            QueueType::Local => "local",
            QueueType::Model => "model",
            QueueType::Remote => "remote",
            QueueType::Alias => "alias",
        }
    }
}

/// Every key a queue entry may have; which ones fit is checked per type.
#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct RawQueueDef {
    #[serde(rename = "type")]
    kind: QueueType,
    name: String,
    dynamic_q_name: Option<String>,
    usage: Option<Usage>,
    max_depth: Option<usize>,
    max_msg_length: Option<usize>,
    default_persistence: Option<DefaultPersistence>,
    default_priority: Option<i32>,
    put_inhibited: Option<bool>,
    get_inhibited: Option<bool>,
    backout_threshold: Option<i32>,
    backout_requeue_q: Option<String>,
    remote_q_name: Option<String>,
    remote_q_mgr_name: Option<String>,
    xmit_q: Option<String>,
    target: Option<String>,
}

/// Start of the message of a key that does not belong to the entry's type;
/// `Config::from_yaml` finds the key's position by it.
pub const MISPLACED: &str = "key not valid for this queue type: ";
/// The message of an alias entry without `target`.
pub const MISPLACED_TARGET: &str = "missing field `target` (type alias)";

impl TryFrom<RawQueueDef> for QueueDef {
    type Error = String;

    fn try_from(r: RawQueueDef) -> Result<Self, String> {
        let present = [
            ("dynamic_q_name", r.dynamic_q_name.is_some()),
            ("usage", r.usage.is_some()),
            ("max_depth", r.max_depth.is_some()),
            ("max_msg_length", r.max_msg_length.is_some()),
            ("default_persistence", r.default_persistence.is_some()),
            ("default_priority", r.default_priority.is_some()),
            ("get_inhibited", r.get_inhibited.is_some()),
            ("backout_threshold", r.backout_threshold.is_some()),
            ("backout_requeue_q", r.backout_requeue_q.is_some()),
            ("remote_q_name", r.remote_q_name.is_some()),
            ("remote_q_mgr_name", r.remote_q_mgr_name.is_some()),
            ("xmit_q", r.xmit_q.is_some()),
            ("target", r.target.is_some()),
        ];
        if let Some((key, _)) = present.iter().find(|(k, p)| *p && !r.kind.allows(k)) {
            return Err(format!(
                "{MISPLACED}{key} (type {}; see docs/config.md)",
                r.kind.name()
            ));
        }
        let put_inhibited = r.put_inhibited.unwrap_or(false);
        let get_inhibited = r.get_inhibited.unwrap_or(false);
        Ok(match r.kind {
            QueueType::Local | QueueType::Model => {
                let d = LocalQueueDef {
                    name: r.name,
                    dynamic_q_name: r.dynamic_q_name,
                    usage: r.usage.unwrap_or_default(),
                    max_depth: r.max_depth.unwrap_or_else(default_max_depth),
                    max_msg_length: r.max_msg_length.unwrap_or_else(default_max_msg_length),
                    max_queue_bytes: None,
                    default_persistence: r.default_persistence.unwrap_or_default(),
                    default_priority: r.default_priority.unwrap_or(0),
                    put_inhibited,
                    get_inhibited,
                    backout_threshold: r.backout_threshold.unwrap_or(0),
                    backout_requeue_q: r.backout_requeue_q.unwrap_or_default(),
                    temporary: false,
                };
                if r.kind == QueueType::Local {
                    QueueDef::Local(d)
                } else {
                    QueueDef::Model(d)
                }
            }
            QueueType::Remote => QueueDef::Remote(RemoteQueueDef {
                name: r.name,
                remote_q_name: r.remote_q_name,
                remote_q_mgr_name: r.remote_q_mgr_name,
                xmit_q: r.xmit_q,
                put_inhibited,
            }),
            QueueType::Alias => QueueDef::Alias(AliasQueueDef {
                name: r.name,
                target: r.target.ok_or_else(|| MISPLACED_TARGET.to_string())?,
                put_inhibited,
                get_inhibited,
            }),
        })
    }
}

/// The path (`queues[1].target`) of the first key of `text`'s queue entries
/// that its entry's type does not have, or of an alias entry without
/// `target`: where the [`MISPLACED`] / [`MISPLACED_TARGET`] error is (serde
/// places these errors at the `queues:` list only).
///
/// Returns (path for the message, path whose position to report): an entry
/// without `target` is placed at its `type:` value.
pub fn first_misplaced(text: &str) -> Option<(String, String)> {
    let doc: serde_yaml::Value = serde_yaml::from_str(text).ok()?;
    let queues = doc.get("queues")?.as_sequence()?;
    for (i, entry) in queues.iter().enumerate() {
        let kind: QueueType = match entry.get("type").cloned() {
            Some(t) => serde_yaml::from_value(t).ok()?,
            None => continue,
        };
        let map = entry.as_mapping()?;
        for key in map.keys().filter_map(|k| k.as_str()) {
            if !kind.allows(key) {
                let path = format!("queues[{i}].{key}");
                return Some((path.clone(), path));
            }
        }
        if kind == QueueType::Alias && entry.get("target").is_none() {
            return Some((format!("queues[{i}]"), format!("queues[{i}].type")));
        }
    }
    None
}

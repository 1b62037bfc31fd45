//! The YAML model for registering exits (embedded later by the gateway config).
//!
//! ```yaml
//! global:                      # run first, for every channel / queue
//!   receive:
//!     - exit: destination-rewrite
//!       data: "separator=/ prefix=DEV"
//! channels:
//!   GW.TO.DEVICES:             # channel name
//!     receive:
//!       - name: audit
//!         exit: "/opt/mqgate/exits/libaudit.so(AuditExit)"
//!         data: "level=2"
//!         time_budget_ms: 50
//!         on_failure: dead-letter
//! queues:
//!   APP.IN:                    # queue name
//!     before_put:
//!       - exit: rfh-properties
//!         data: "usr.Region=EU"
//! ```
//!
//! The chain at a point for an object is the `global` exits of that point
//! followed by the object's own, each list in the order written.
//! All defaults are documented on the fields and in docs/exits.md.

use crate::api::ExitPoint;
use serde::{Deserialize, Serialize};
use std::collections::BTreeMap;
use std::fmt;

/// Default time budget of one exit call in milliseconds.
pub const DEFAULT_TIME_BUDGET_MS: u64 = 1000;

/// The `exits:` section.
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct ExitsConfig {
    /// Exits for every channel and queue; they run before the object's own.
    #[serde(default)]
    pub global: PointChains,
    /// Per channel name: receive, send and message exits.
    #[serde(default)]
    pub channels: BTreeMap<String, PointChains>,
    /// Per queue name: before_put, before_get and after_get exits.
    #[serde(default)]
    pub queues: BTreeMap<String, PointChains>,
}

/// One ordered list of exits per exit point; absent keys mean no exits.
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct PointChains {
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub receive: Vec<ExitDef>,
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub send: Vec<ExitDef>,
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub message: Vec<ExitDef>,
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub before_put: Vec<ExitDef>,
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub before_get: Vec<ExitDef>,
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub after_get: Vec<ExitDef>,
}

impl PointChains {
    /// The exits configured at `point`, in order.
    pub fn at(&self, point: ExitPoint) -> &[ExitDef] {
        match point {
            ExitPoint::Receive => &self.receive,
            ExitPoint::Send => &self.send,
            ExitPoint::Message => &self.message,
            ExitPoint::BeforePut => &self.before_put,
            ExitPoint::BeforeGet => &self.before_get,
            ExitPoint::AfterGet => &self.after_get,
        }
    }
}

/// One registered exit.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct ExitDef {
    /// The name used in logs; default: the `exit` text.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub name: Option<String>,
    /// A built-in exit name (`destination-rewrite`, `rfh-properties`, `convert`) or an
    /// external C exit as `library(function)`, as MQ channel definitions name exits.
    pub exit: ExitRef,
    /// The exit user data string handed to every call (MQ: EXITDATA); default empty.
    #[serde(default)]
    pub data: String,
    /// Longest time one call may take, in milliseconds; default 1000.
    #[serde(default = "default_time_budget_ms")]
    pub time_budget_ms: u64,
    /// What happens when a call of the exit fails (panics, overruns its
    /// budget, answers MQXCC_FAILED); default `close`. An exit that cannot be
    /// loaded or refuses MQXR_INIT stops its chain from starting instead.
    #[serde(default)]
    pub on_failure: FailurePolicy,
    /// External exits only: bytes by which the exit may lengthen the data
    /// (the C `buffer_length` is `data_length` plus this); default 0, at most
    /// 16 MiB.
    #[serde(default, skip_serializing_if = "is_zero")]
    pub buffer_headroom: usize,
    /// How the exit is run; default `inline` for built-in exits and `thread`
    /// for external ones.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub isolation: Option<Isolation>,
}

fn default_time_budget_ms() -> u64 {
    DEFAULT_TIME_BUDGET_MS
}

fn is_zero(n: &usize) -> bool {
    *n == 0
}

/// Largest `buffer_headroom` accepted, in bytes (16 MiB).
pub const MAX_BUFFER_HEADROOM: usize = 16 << 20;

impl ExitDef {
    /// The name for logs: `name`, else the `exit` text.
    pub fn display_name(&self) -> String {
        match &self.name {
            Some(n) => n.clone(),
            None => self.exit.to_string(),
        }
    }

    /// The isolation in effect (explicit, else the default for the exit's kind).
    pub fn effective_isolation(&self) -> Isolation {
        self.isolation.unwrap_or(match self.exit {
            ExitRef::Builtin(_) => Isolation::Inline,
            ExitRef::External { .. } => Isolation::Thread,
        })
    }
}

/// The failure policy of one exit (docs/exits.md "Isolation").
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum FailurePolicy {
    /// Close the channel (channel points) or fail the call with 2374
    /// MQRC_API_EXIT_ERROR (queue points); the message stays where it was.
    #[default]
    Close,
    /// Suppress the message with 2374 MQRC_API_EXIT_ERROR: it goes to the
    /// dead-letter queue as it was before the failed exit.
    DeadLetter,
    /// Log, undo the failed exit's change and carry on with the next exit.
    Skip,
}

/// How an exit is run (docs/exits.md "Isolation").
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum Isolation {
    /// On the caller's thread: panics are caught; the time budget is checked
    /// when the call returns (a call that never returns cannot be stopped).
    Inline,
    /// On a dedicated worker thread with a copy of the data: the caller waits at
    /// most the time budget, then applies the failure policy and never uses
    /// that exit instance again.
    Thread,
}

/// How an exit is named in the config.
#[derive(Clone, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(try_from = "String", into = "String")]
pub enum ExitRef {
    /// A built-in exit by name.
    Builtin(String),
    /// A C exit: shared library path (or name) and exported function.
    External { library: String, function: String },
}

/// Why an `exit:` text was refused.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
pub enum ExitRefError {
    #[error("exit name is empty")]
    Empty,
    #[error("external exit {0:?} must be written library(function), as in MQ channel definitions")]
    BadExternal(String),
    #[error(
        "built-in exit name {0:?} may only contain a-z, 0-9 and '-' (an external exit is library(function))"
    )]
    BadBuiltin(String),
}

impl ExitRef {
    /// Parses `name` or `library(function)`.
    pub fn parse(s: &str) -> Result<ExitRef, ExitRefError> {
        let s = s.trim();
        if s.is_empty() {
            return Err(ExitRefError::Empty);
        }
        if let Some(open) = s.find('(') {
            let library = s[..open].trim();
            let rest = &s[open + 1..];
            let function = rest.strip_suffix(')').map(str::trim).unwrap_or("");
            let function_ok = !function.is_empty()
                && function
                    .chars()
                    .all(|c| c.is_ascii_alphanumeric() || c == '_');
            if library.is_empty() || !function_ok {
                return Err(ExitRefError::BadExternal(s.to_string()));
            }
            return Ok(ExitRef::External {
                library: library.to_string(),
                function: function.to_string(),
            });
        }
        if s.chars()
            .all(|c| c.is_ascii_lowercase() || c.is_ascii_digit() || c == '-')
        {
            Ok(ExitRef::Builtin(s.to_string()))
        } else {
            Err(ExitRefError::BadBuiltin(s.to_string()))
        }
    }
}

impl TryFrom<String> for ExitRef {
    type Error = ExitRefError;
    fn try_from(s: String) -> Result<Self, Self::Error> {
        ExitRef::parse(&s)
    }
}

impl From<ExitRef> for String {
    fn from(r: ExitRef) -> String {
        r.to_string()
    }
}

impl fmt::Display for ExitRef {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            ExitRef::Builtin(n) => f.write_str(n),
            ExitRef::External { library, function } => write!(f, "{library}({function})"),
        }
    }
}

/// A configuration mistake found by [`ExitsConfig::validate`], named by its path.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
#[error("exits.{path}: {problem}")]
pub struct ConfigError {
    /// e.g. `queues.APP.IN.receive[0]`.
    pub path: String,
    pub problem: String,
}

impl ExitsConfig {
    /// Parses the section from YAML text; errors carry serde_yaml's line and column.
    pub fn from_yaml_str(text: &str) -> Result<ExitsConfig, serde_yaml::Error> {
        serde_yaml::from_str(text)
    }

    /// The exits that run at `point` for `object_name` (a channel name for the
    /// channel points, a queue name for the queue points): global first, then
    /// the object's own, each in configured order.
    pub fn chain_defs(&self, point: ExitPoint, object_name: &str) -> Vec<&ExitDef> {
        let own = if point.is_channel_point() {
            self.channels.get(object_name)
        } else {
            self.queues.get(object_name)
        };
        self.global
            .at(point)
            .iter()
            .chain(own.map(|p| p.at(point)).unwrap_or(&[]).iter())
            .collect()
    }

    /// Checks what serde cannot: channel entries only use channel points,
    /// queue entries only queue points, budgets are above zero.
    pub fn validate(&self) -> Result<(), Vec<ConfigError>> {
        let mut errors = Vec::new();
        let sections = std::iter::once(("global".to_string(), &self.global, None))
            .chain(
                self.channels
                    .iter()
                    .map(|(n, p)| (format!("channels.{n}"), p, Some(true))),
            )
            .chain(
                self.queues
                    .iter()
                    .map(|(n, p)| (format!("queues.{n}"), p, Some(false))),
            );
        for (prefix, chains, channel_only) in sections {
            for point in ExitPoint::ALL {
                let defs = chains.at(point);
                if let Some(channel) = channel_only
                    && channel != point.is_channel_point()
                    && !defs.is_empty()
                {
                    let what = if channel {
                        "a channel has only receive, send and message exits"
                    } else {
                        "a queue has only before_put, before_get and after_get exits"
                    };
                    errors.push(ConfigError {
                        path: format!("{prefix}.{point}"),
                        problem: what.to_string(),
                    });
                }
                for (i, d) in defs.iter().enumerate() {
                    if d.time_budget_ms == 0 {
                        errors.push(ConfigError {
                            path: format!("{prefix}.{point}[{i}].time_budget_ms"),
                            problem: "must be at least 1 millisecond".to_string(),
                        });
                    }
                    let headroom_problem = match d.exit {
                        ExitRef::Builtin(_) if d.buffer_headroom > 0 => {
                            Some("only external exits take a buffer headroom".to_string())
                        }
                        _ if d.buffer_headroom > MAX_BUFFER_HEADROOM => {
                            Some(format!("must be at most {MAX_BUFFER_HEADROOM} bytes"))
                        }
                        _ => None,
                    };
                    if let Some(problem) = headroom_problem {
                        errors.push(ConfigError {
                            path: format!("{prefix}.{point}[{i}].buffer_headroom"),
                            problem,
                        });
                    }
                }
            }
        }
        if errors.is_empty() {
            Ok(())
        } else {
            Err(errors)
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const SAMPLE: &str = r#"
global:
  receive:
    - exit: destination-rewrite
      data: "separator=/ prefix=DEV"
channels:
  GW.TO.DEVICES:
    receive:
      - name: audit
        exit: "/opt/exits/libaudit.so(AuditExit)"
        data: "level=2"
        time_budget_ms: 50
        on_failure: dead-letter
queues:
  APP.IN:
    before_put:
      - exit: rfh-properties
        data: "usr.Region=EU"
        isolation: thread
        on_failure: skip
"#;

    #[test]
    fn yaml_deserialises_with_defaults() {
        let c = ExitsConfig::from_yaml_str(SAMPLE).unwrap();
        c.validate().unwrap();
        let g = &c.global.receive[0];
        assert_eq!(g.exit, ExitRef::Builtin("destination-rewrite".into()));
        assert_eq!(g.data, "separator=/ prefix=DEV");
        // Defaults documented on ExitDef: 1000 ms, close, inline for built-ins.
        assert_eq!(g.time_budget_ms, 1000);
        assert_eq!(g.on_failure, FailurePolicy::Close);
        assert_eq!(g.effective_isolation(), Isolation::Inline);
        let a = &c.channels["GW.TO.DEVICES"].receive[0];
        assert_eq!(
            a.exit,
            ExitRef::External {
                library: "/opt/exits/libaudit.so".into(),
                function: "AuditExit".into()
            }
        );
        assert_eq!(a.effective_isolation(), Isolation::Thread);
        assert_eq!(a.on_failure, FailurePolicy::DeadLetter);
        assert_eq!(a.time_budget_ms, 50);
        assert_eq!(a.display_name(), "audit");
        let q = &c.queues["APP.IN"].before_put[0];
        assert_eq!(q.on_failure, FailurePolicy::Skip);
        assert_eq!(q.effective_isolation(), Isolation::Thread);
        assert_eq!(q.display_name(), "rfh-properties");
    }

    #[test]
    fn chain_is_global_then_own_in_order() {
        let c = ExitsConfig::from_yaml_str(SAMPLE).unwrap();
        let names: Vec<String> = c
            .chain_defs(ExitPoint::Receive, "GW.TO.DEVICES")
            .iter()
            .map(|d| d.display_name())
            .collect();
        assert_eq!(names, ["destination-rewrite", "audit"]);
        // Another channel only gets the global exit; a queue point sees its queue.
        assert_eq!(c.chain_defs(ExitPoint::Receive, "OTHER").len(), 1);
        assert_eq!(c.chain_defs(ExitPoint::BeforePut, "APP.IN").len(), 1);
        assert!(c.chain_defs(ExitPoint::AfterGet, "APP.IN").is_empty());
    }

    #[test]
    fn bad_exit_names_report_line_and_column() {
        let err = ExitsConfig::from_yaml_str("global:\n  receive:\n    - exit: \"libx.so(\"\n")
            .unwrap_err();
        let loc = err.location().expect("serde_yaml gives a location");
        assert_eq!(loc.line(), 3);
        assert!(err.to_string().contains("library(function)"), "{err}");
        let err =
            ExitsConfig::from_yaml_str("global:\n  receive:\n    - exit: Bad_Name\n").unwrap_err();
        assert!(err.to_string().contains("Bad_Name"), "{err}");
        let err = ExitsConfig::from_yaml_str("global:\n  recieve: []\n").unwrap_err();
        assert!(err.to_string().contains("recieve"), "{err}");
    }

    #[test]
    fn points_must_fit_the_object_kind() {
        let c = ExitsConfig::from_yaml_str(
            "queues:\n  APP.IN:\n    receive:\n      - exit: x\n        time_budget_ms: 0\n",
        )
        .unwrap();
        let errs = c.validate().unwrap_err();
        assert_eq!(errs[0].path, "queues.APP.IN.receive");
        assert_eq!(errs[1].path, "queues.APP.IN.receive[0].time_budget_ms");
        assert_eq!(
            errs[0].to_string(),
            "exits.queues.APP.IN.receive: a queue has only before_put, before_get and after_get exits"
        );
    }

    #[test]
    fn buffer_headroom_is_for_external_exits_and_bounded() {
        let c = ExitsConfig::from_yaml_str(
            "global:\n  send:\n    - exit: destination-rewrite\n      buffer_headroom: 8\n    - exit: \"lib.so(F)\"\n      buffer_headroom: 16777217\n    - exit: \"lib.so(G)\"\n      buffer_headroom: 16777216\n",
        )
        .unwrap();
        let errs = c.validate().unwrap_err();
        let paths: Vec<&str> = errs.iter().map(|e| e.path.as_str()).collect();
        assert_eq!(
            paths,
            [
                "global.send[0].buffer_headroom",
                "global.send[1].buffer_headroom"
            ]
        );
        assert_eq!(c.global.send[2].buffer_headroom, 16 << 20);
    }

    #[test]
    fn exit_ref_round_trips() {
        for s in ["destination-rewrite", "libx.so(Fn_1)", "/a/b(c)"] {
            assert_eq!(ExitRef::parse(s).unwrap().to_string(), s);
        }
        assert_eq!(ExitRef::parse(""), Err(ExitRefError::Empty));
        assert!(matches!(
            ExitRef::parse("lib()"),
            Err(ExitRefError::BadExternal(_))
        ));
        assert!(matches!(
            ExitRef::parse("(f)"),
            Err(ExitRefError::BadExternal(_))
        ));
    }
}

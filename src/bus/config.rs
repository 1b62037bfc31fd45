//! The `bus:` section (docs/config.md "bus"; docs/cluster.md "The bus
//! between gateways"): the nats-server through which gateways exchange
//! Rendezvous subjects and universal MOT broadcasts. Checked by `mqgate
//! check-config` whether or not this build has the `nats` feature; the
//! server addresses and TLS files take the shapes of `storage:` with
//! `type: nats` (src/store/nats_config.rs).

use crate::store::nats_config::{NatsTls, check_server};
use serde::Deserialize;
use std::path::PathBuf;

/// The default `subject_prefix`.
pub const DEFAULT_PREFIX: &str = "mqgate.bus";
/// The default `interest_refresh_ms`.
pub const DEFAULT_REFRESH_MS: u64 = 5_000;
/// The least and greatest `interest_refresh_ms`.
pub const REFRESH_RANGE_MS: std::ops::RangeInclusive<u64> = 100..=600_000;

/// What carries the bus (`bus.type`).
#[derive(Clone, Copy, Debug, Deserialize, PartialEq, Eq)]
#[serde(rename_all = "snake_case")]
pub enum BusType {
    /// Core NATS subjects on a nats-server (or cluster).
    Nats,
}

/// The `bus:` section as written.
#[derive(Clone, Debug, Deserialize, PartialEq, Eq)]
#[serde(deny_unknown_fields)]
pub struct BusConfig {
    /// `type`: `nats`, required.
    #[serde(rename = "type")]
    pub kind: BusType,
    /// Server URLs (`nats://host:port`, `tls://host:port` or `host:port`;
    /// a user and password may stand in the URL); at least one.
    #[serde(default)]
    pub servers: Vec<String>,
    /// The user name, with `password`.
    #[serde(default)]
    pub user: Option<String>,
    /// The password of `user`.
    #[serde(default)]
    pub password: Option<String>,
    /// A NATS credentials file (JWT and NKey seed).
    #[serde(default)]
    pub credentials: Option<PathBuf>,
    /// TLS to the servers (PEM files), as `storage.tls`.
    #[serde(default)]
    pub tls: Option<NatsTls>,
    /// The first elements of every NATS subject the bus uses (default
    /// `mqgate.bus`): gateways with the same prefix on the same servers form
    /// one bus.
    #[serde(default = "default_prefix")]
    pub subject_prefix: String,
    /// How often each gateway announces its Rendezvous interest again, in
    /// ms (default 5000); another gateway forgets it after three intervals
    /// without an announcement.
    #[serde(default = "default_refresh")]
    pub interest_refresh_ms: u64,
}

fn default_prefix() -> String {
    DEFAULT_PREFIX.to_string()
}

fn default_refresh() -> u64 {
    DEFAULT_REFRESH_MS
}

/// `Err` naming the problem unless `p` is one or more NATS subject elements
/// of letters, digits, `_` and `-` separated by dots, at most 64 bytes.
pub fn check_subject_prefix(p: &str) -> Result<(), String> {
    if p.is_empty() || p.len() > 64 {
        return Err(format!("{p:?}: a subject prefix is 1 to 64 bytes"));
    }
    for (i, e) in p.split('.').enumerate() {
        if e.is_empty()
            || !e
                .bytes()
                .all(|b| b.is_ascii_alphanumeric() || b == b'_' || b == b'-')
        {
            return Err(format!(
                "{p:?}: element {} is {e:?}: subject prefix elements are letters, digits, '_' and '-'",
                i + 1
            ));
        }
    }
    Ok(())
}

impl BusConfig {
    /// (path under `bus.`, problem) for each wrong setting. `routing` says
    /// whether `rv.routing` is set: the bus and routing links are
    /// alternatives (docs/cluster.md "The bus between gateways").
    pub fn problems(&self, routing: bool) -> Vec<(String, String)> {
        let mut out = Vec::new();
        let mut err = |field: &str, m: String| out.push((field.to_string(), m));
        if !cfg!(feature = "nats") {
            err(
                "type",
                "this mqgate was built without the nats feature: bus type nats is not available"
                    .into(),
            );
        }
        if routing {
            err(
                "type",
                "a gateway joins other gateways either over the bus or over rv.routing links, \
                 not both: a message would reach a gateway both ways (docs/cluster.md \"The bus \
                 between gateways\")"
                    .into(),
            );
        }
        if self.servers.is_empty() {
            err("servers", "the bus needs at least one server URL".into());
        }
        for (i, s) in self.servers.iter().enumerate() {
            if let Err(e) = check_server(s) {
                err(&format!("servers[{i}]"), e);
            }
        }
        match (&self.user, &self.password) {
            (Some(_), None) => err("user", "needs password beside it".into()),
            (None, Some(_)) => err("password", "needs user beside it".into()),
            (Some(_), Some(_)) if self.credentials.is_some() => err(
                "credentials",
                "give either a credentials file or user and password, not both".into(),
            ),
            _ => {}
        }
        if let Some(t) = &self.tls {
            match (&t.cert, &t.key) {
                (Some(_), None) => err("tls.cert", "needs tls.key beside it".into()),
                (None, Some(_)) => err("tls.key", "needs tls.cert beside it".into()),
                _ => {}
            }
        }
        if let Err(e) = check_subject_prefix(&self.subject_prefix) {
            err("subject_prefix", e);
        }
        if !REFRESH_RANGE_MS.contains(&self.interest_refresh_ms) {
            err(
                "interest_refresh_ms",
                format!(
                    "{} ms is not {} to {} ms",
                    self.interest_refresh_ms,
                    REFRESH_RANGE_MS.start(),
                    REFRESH_RANGE_MS.end()
                ),
            );
        }
        out
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn parse(yaml: &str) -> BusConfig {
        serde_yaml::from_str(yaml).unwrap()
    }

    #[test]
    fn defaults_and_problems() {
        let c = parse("type: nats\nservers: [nats://127.0.0.1:4222]\n");
        assert_eq!(c.subject_prefix, "mqgate.bus");
        assert_eq!(c.interest_refresh_ms, 5000);
        assert_eq!(c.problems(false), vec![]);
        let c = parse(
            "type: nats\nuser: a\nsubject_prefix: 'a..b'\ninterest_refresh_ms: 10\n\
             tls: {cert: c.pem}\nservers: ['http://h:1']\n",
        );
        let got: Vec<String> = c.problems(true).into_iter().map(|(p, _)| p).collect();
        assert_eq!(
            got,
            [
                "type",
                "servers[0]",
                "user",
                "tls.cert",
                "subject_prefix",
                "interest_refresh_ms"
            ]
        );
        assert!(serde_yaml::from_str::<BusConfig>("type: kafka\n").is_err());
        assert!(serde_yaml::from_str::<BusConfig>("servers: [h]\n").is_err());
    }

    #[test]
    fn subject_prefixes() {
        assert_eq!(check_subject_prefix("mqgate.bus"), Ok(()));
        assert_eq!(check_subject_prefix("A-1_b"), Ok(()));
        assert_eq!(
            check_subject_prefix("a.*"),
            Err("\"a.*\": element 2 is \"*\": subject prefix elements are letters, digits, '_' and '-'".into())
        );
        assert!(check_subject_prefix("").is_err());
        assert!(check_subject_prefix(".a").is_err());
        assert!(check_subject_prefix(&"a".repeat(65)).is_err());
    }
}

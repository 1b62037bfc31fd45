//! The `rv.routing:` section: the gateway as a Rendezvous routing daemon
//! (docs/config.md `rv.routing`, docs/rendezvous.md "Routing between
//! gateways").
//!
//! Names follow TIBCO Rendezvous Administration, "Routing Table Entry"
//! (router names), "Neighbors" (neighbor links), "Subject Gating" (export
//! and import subjects) and "Load Balancing" (path costs, import weights).

use std::net::SocketAddr;

use mqgate_codecs::rv::{Mode, Subject, SubjectClass};
use serde::Deserialize;

/// Longest router or network name in bytes ("Routing Table Entry": "The
/// maximum total length of the string is 64 characters").
pub const NAME_MAX: usize = 64;
/// Default path cost of a neighbor link (mqgate's choice; TIBCO does not
/// publish the value of `NeighborInterface.DEFAULT_COST`).
pub const DEFAULT_COST: u32 = 1;
/// Largest path cost of a neighbor link.
pub const MAX_COST: u32 = 65_535;
/// Default import weight of an import subject (TIBCO Rendezvous
/// Configuration Tools, "LocalNetworkInterface.addImportSubject()": "the
/// default import weight (10)").
pub const DEFAULT_WEIGHT: u32 = 10;
/// Largest import weight.
pub const MAX_WEIGHT: u32 = 65_535;
/// Default heartbeat interval of a neighbor link, ms.
pub const DEFAULT_HEARTBEAT_MS: u64 = 2_000;
/// Default first reconnection delay, ms.
pub const DEFAULT_RECONNECT_MIN_MS: u64 = 200;
/// Default longest reconnection delay, ms.
pub const DEFAULT_RECONNECT_MAX_MS: u64 = 10_000;

/// The routing daemon of a gateway: its router name, the local network it
/// serves (the gateway's subject bus), its neighbor links, and the subjects
/// that may leave (export) and enter (import) its network.
#[derive(Clone, Debug, Deserialize, PartialEq, Eq)]
#[serde(deny_unknown_fields)]
pub struct RoutingConfig {
    /// The router name, unique among all routers that can reach each
    /// other: alphanumerics, `.` and `-`, at most 64 bytes.
    pub router: String,
    /// The name of the local network the router serves; routers that give
    /// the same name are redundant routers of one network ("Redundant
    /// Routing Daemons for Fault Tolerance"). Same rules as `router`.
    /// Default: the router name (a network of its own).
    #[serde(default)]
    pub network: Option<String>,
    /// Where neighbors connect to this router; absent: it accepts no
    /// connections (every neighbor must then have `connect`).
    #[serde(default)]
    pub listen: Option<SocketAddr>,
    /// The neighbor routers: both ends of a link name each other; one end
    /// (or both) gives `connect`.
    #[serde(default)]
    pub neighbors: Vec<NeighborConfig>,
    /// Subjects that may flow out of the local network (listen syntax,
    /// wildcards allowed). Default none.
    #[serde(default)]
    pub export: Vec<String>,
    /// Subjects that may flow into the local network, each with an import
    /// weight. Default none.
    #[serde(default)]
    pub import: Vec<ImportConfig>,
    /// Heartbeat interval of every link, ms (100 to 600000): a link that
    /// carried nothing for three intervals is down. Default 2000.
    #[serde(default = "default_heartbeat_ms")]
    pub heartbeat_ms: u64,
    /// First delay before dialling a neighbor again, ms (10 to 600000);
    /// doubled after each failure up to `reconnect_max_ms`. Default 200.
    #[serde(default = "default_reconnect_min_ms")]
    pub reconnect_min_ms: u64,
    /// Longest delay between two dials, ms (at least `reconnect_min_ms`,
    /// at most 600000). Default 10000.
    #[serde(default = "default_reconnect_max_ms")]
    pub reconnect_max_ms: u64,
    /// TLS on `listen` (docs/security.md "TLS"); default none. With
    /// `client_auth`, a neighbor's `sslpeer` is checked against the
    /// certificate of the router that connects.
    #[serde(default)]
    pub tls: Option<crate::security::tls::TlsConfig>,
}

fn default_heartbeat_ms() -> u64 {
    DEFAULT_HEARTBEAT_MS
}
fn default_reconnect_min_ms() -> u64 {
    DEFAULT_RECONNECT_MIN_MS
}
fn default_reconnect_max_ms() -> u64 {
    DEFAULT_RECONNECT_MAX_MS
}
fn default_cost() -> u32 {
    DEFAULT_COST
}
fn default_weight() -> u32 {
    DEFAULT_WEIGHT
}

/// One neighbor link ("Neighbors").
#[derive(Clone, Debug, Deserialize, PartialEq, Eq)]
#[serde(deny_unknown_fields)]
pub struct NeighborConfig {
    /// The neighbor's router name; a connection from a router not named
    /// here is refused.
    pub name: String,
    /// `HOST:PORT` to dial; absent: the neighbor dials this router
    /// (`listen` must be set).
    #[serde(default)]
    pub connect: Option<String>,
    /// Path cost of the link from this router to the neighbor, 1 to 65535
    /// ("Load Balancing"). Default 1.
    #[serde(default = "default_cost")]
    pub cost: u32,
    /// TLS when dialling `connect` (CA certificates, an optional client
    /// certificate); default none.
    #[serde(default)]
    pub tls: Option<crate::security::tls::TlsConfig>,
    /// The SSLPEER filter the neighbor's certificate subject DN must pass,
    /// on links it dials and links dialled to it; a link that fails it is
    /// refused. Default none.
    #[serde(default)]
    pub sslpeer: Option<crate::security::tls::SslPeer>,
}

/// One import subject with its weight ("Subject Gating", "Load Balancing").
#[derive(Clone, Debug, Deserialize, PartialEq, Eq)]
#[serde(deny_unknown_fields)]
pub struct ImportConfig {
    /// The subject, listen syntax (wildcards allowed).
    pub subject: String,
    /// Import weight, 1 to 65535: among routers of one network at equal
    /// path cost, the greatest weight imports. Default 10.
    #[serde(default = "default_weight")]
    pub weight: u32,
}

impl RoutingConfig {
    /// The network name: `network`, or the router name.
    pub fn network_name(&self) -> &str {
        self.network.as_deref().unwrap_or(&self.router)
    }

    /// Every setting that is wrong, as (key under `rv.routing.`, message),
    /// for `check-config` to place.
    pub fn problems(&self) -> Vec<(String, String)> {
        let mut out = Vec::new();
        let mut err = |key: String, message: String| out.push((key, message));
        if let Err(e) = check_name(&self.router) {
            err("router".into(), e);
        }
        if let Some(n) = &self.network
            && let Err(e) = check_name(n)
        {
            err("network".into(), e);
        }
        for (i, n) in self.neighbors.iter().enumerate() {
            let at = |k: &str| format!("neighbors[{i}].{k}");
            if let Err(e) = check_name(&n.name) {
                err(at("name"), e);
            } else if n.name == self.router {
                err(
                    at("name"),
                    format!("{:?} is this router's own name (rv.routing.router)", n.name),
                );
            } else if let Some(first) = self.neighbors[..i].iter().position(|m| m.name == n.name) {
                err(
                    at("name"),
                    format!("{:?} is already neighbors[{first}]", n.name),
                );
            }
            match &n.connect {
                Some(c) => {
                    if let Err(e) = check_host_port(c) {
                        err(at("connect"), e);
                    }
                }
                None if self.listen.is_none() => err(
                    at("connect"),
                    format!(
                        "neighbor {:?} has no connect address, so it must dial this router: set rv.routing.listen",
                        n.name
                    ),
                ),
                None => {}
            }
            if !(1..=MAX_COST).contains(&n.cost) {
                err(at("cost"), format!("must be 1 to {MAX_COST}"));
            }
        }
        for (i, s) in self.export.iter().enumerate() {
            if let Err(e) = check_gate_subject(s) {
                err(format!("export[{i}]"), e);
            }
        }
        for (i, s) in self.import.iter().enumerate() {
            if let Err(e) = check_gate_subject(&s.subject) {
                err(format!("import[{i}].subject"), e);
            }
            if !(1..=MAX_WEIGHT).contains(&s.weight) {
                err(
                    format!("import[{i}].weight"),
                    format!("must be 1 to {MAX_WEIGHT}"),
                );
            }
        }
        if !(100..=600_000).contains(&self.heartbeat_ms) {
            err("heartbeat_ms".into(), "must be 100 to 600000 ms".into());
        }
        if !(10..=600_000).contains(&self.reconnect_min_ms) {
            err("reconnect_min_ms".into(), "must be 10 to 600000 ms".into());
        }
        if !(self.reconnect_min_ms..=600_000).contains(&self.reconnect_max_ms) {
            err(
                "reconnect_max_ms".into(),
                format!(
                    "must be {} (reconnect_min_ms) to 600000 ms",
                    self.reconnect_min_ms
                ),
            );
        }
        out
    }
}

/// Checks a router or network name ("Routing Table Entry": "a string of
/// alphanumeric, dot, and dash characters", at most 64; mqgate: no empty
/// element between dots).
///
/// Errors: what is wrong, for a configuration error or a refused
/// handshake.
pub fn check_name(name: &str) -> Result<(), String> {
    if name.is_empty() {
        return Err("the name is empty".into());
    }
    if name.len() > NAME_MAX {
        return Err(format!(
            "the name is {} bytes long, over the {NAME_MAX}-character limit of router names",
            name.len()
        ));
    }
    if let Some((at, c)) = name
        .char_indices()
        .find(|(_, c)| !(c.is_ascii_alphanumeric() || *c == '.' || *c == '-'))
    {
        return Err(format!(
            "character {:?} at byte {at}: router names are alphanumerics, '.' and '-'",
            c
        ));
    }
    // mqgate: the name is also an element sequence of `_RVRD.<router>`.
    if name.split('.').any(str::is_empty) {
        return Err("the name has an empty element (a leading, trailing or double '.')".into());
    }
    Ok(())
}

/// Checks `HOST:PORT` (a host name or address, a port 1 to 65535; an IPv6
/// address in brackets).
fn check_host_port(text: &str) -> Result<(), String> {
    let bad = || format!("{text:?} is not HOST:PORT");
    let (host, port) = text.rsplit_once(':').ok_or_else(bad)?;
    if host.is_empty() || host.chars().any(char::is_whitespace) {
        return Err(bad());
    }
    match port.parse::<u16>() {
        Ok(p) if p != 0 => Ok(()),
        _ => Err(format!("{text:?}: the port must be 1 to 65535")),
    }
}

/// Checks an export or import subject: listen syntax, and not a class no
/// gating applies to.
fn check_gate_subject(text: &str) -> Result<(), String> {
    let s = Subject::parse(text, Mode::Listen).map_err(|e| format!("{text:?}: {e}"))?;
    let why = match s.class() {
        SubjectClass::Advisory | SubjectClass::RoutingDaemon => {
            "routing daemons never forward _RV. and _RVRD. subjects (\"Subject Gating\")"
        }
        SubjectClass::Local => "_LOCAL. subjects never leave the gateway",
        SubjectClass::Inbox => {
            "inboxes need no import or export: replies are routed to the gateway that made the inbox"
        }
        _ => return Ok(()),
    };
    Err(format!("{text:?}: {why}"))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn config(yaml: &str) -> RoutingConfig {
        serde_yaml::from_str(yaml).unwrap()
    }

    #[test]
    fn defaults_are_the_documented_ones() {
        // docs/config.md `rv.routing`; weight 10 is TIBCO's default
        // ("LocalNetworkInterface.addImportSubject()").
        let c = config(
            "router: E\nneighbors:\n  - {name: G, connect: 'localhost:7501'}\nimport:\n  - subject: foo.>\n",
        );
        assert_eq!(c.network_name(), "E");
        assert_eq!(c.neighbors[0].cost, 1);
        assert_eq!(c.import[0].weight, 10);
        assert_eq!(c.heartbeat_ms, 2000);
        assert_eq!((c.reconnect_min_ms, c.reconnect_max_ms), (200, 10_000));
        assert!(c.problems().is_empty(), "{:?}", c.problems());
    }

    #[test]
    fn check_config_places_each_error_at_its_line_and_column() {
        // docs/config.md: FILE:LINE:COLUMN: path: message; columns counted
        // in this text (`      - {name: G}` puts the mapping at column 9).
        let text = "rv:\n  routing:\n    router: E\n    neighbors:\n      - {name: G}\n    export: ['_LOCAL.>']\n";
        let e = crate::config::Config::from_yaml(text, "gw.yaml").unwrap_err();
        let lines: Vec<String> = e.to_string().lines().map(str::to_string).collect();
        assert_eq!(
            lines,
            [
                "gw.yaml:5:9: rv.routing.neighbors[0].connect: neighbor \"G\" has no connect address, so it must dial this router: set rv.routing.listen",
                "gw.yaml:6:14: rv.routing.export[0]: \"_LOCAL.>\": _LOCAL. subjects never leave the gateway",
            ]
        );
        let e = crate::config::Config::from_yaml(
            "rv:\n  routing:\n    router: E\n    cost: 3\n",
            "gw.yaml",
        )
        .unwrap_err()
        .to_string();
        assert!(
            e.starts_with("gw.yaml:4:5: rv.routing: unknown field `cost`"),
            "{e}"
        );
    }

    #[test]
    fn router_names_follow_the_routing_table_entry_rules() {
        // "Routing Table Entry": alphanumeric, dot and dash, at most 64.
        assert!(check_name("frobitz.yellowNet.baz.com").is_ok());
        assert!(check_name("1.frobitz.yellowNet.baz.com").is_ok());
        assert!(check_name(&"a".repeat(64)).is_ok());
        assert_eq!(
            check_name(&"a".repeat(65)).unwrap_err(),
            "the name is 65 bytes long, over the 64-character limit of router names"
        );
        assert_eq!(
            check_name("a_b").unwrap_err(),
            "character '_' at byte 1: router names are alphanumerics, '.' and '-'"
        );
        assert_eq!(check_name("").unwrap_err(), "the name is empty");
        assert_eq!(
            check_name("a..b").unwrap_err(),
            "the name has an empty element (a leading, trailing or double '.')"
        );
    }

    #[test]
    fn every_problem_is_named_by_its_key() {
        let c = config(
            "router: E
neighbors:
  - {name: E, connect: 'h:1'}
  - {name: G}
  - {name: H, connect: 'nohost', cost: 0}
  - {name: H, connect: 'h:0'}
export: ['_RV.>', 'a..b']
import:
  - {subject: '_INBOX.>', weight: 0}
heartbeat_ms: 50
",
        );
        let p = c.problems();
        let keys: Vec<&str> = p.iter().map(|(k, _)| k.as_str()).collect();
        assert_eq!(
            keys,
            [
                "neighbors[0].name",
                "neighbors[1].connect",
                "neighbors[2].connect",
                "neighbors[2].cost",
                "neighbors[3].name",
                "neighbors[3].connect",
                "export[0]",
                "export[1]",
                "import[0].subject",
                "import[0].weight",
                "heartbeat_ms"
            ]
        );
        assert_eq!(
            p[1].1,
            "neighbor \"G\" has no connect address, so it must dial this router: set rv.routing.listen"
        );
        assert_eq!(p[4].1, "\"H\" is already neighbors[2]");
        assert_eq!(
            p[6].1,
            "\"_RV.>\": routing daemons never forward _RV. and _RVRD. subjects (\"Subject Gating\")"
        );
    }
}

//! Listener clashes: two listeners of one gateway on one address and port
//! are refused when the configuration loads, naming both entries and where
//! each was set (docs/config.md "Listen addresses"). Binding the second one
//! would fail with EADDRINUSE only after the first was already serving.

use super::locate::Places;
use super::{Config, ConfigError, HttpConfig, ListenerConfig};
use std::collections::HashMap;
use std::net::{IpAddr, SocketAddr};

/// A listener whose address the configuration sets.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Listen {
    /// The HTTP API: `http.listen`, `mqgate run --http`.
    Http,
    /// The message channel listener: `listener.listen`, `mqgate run --listen`.
    Channel,
    /// The MQTT listener: `mqtt.listen`, `mqgate run --mqtt`.
    Mqtt,
    /// The IBM MQ client listener: `svrconn.listen`, `mqgate run --svrconn`
    /// (no section: none, which never clashes).
    Svrconn,
    /// The Rendezvous routing daemon's listener for neighbor links:
    /// `rv.routing.listen` (no command-line option; unset: none, which
    /// never clashes).
    RvRouting,
}

impl Listen {
    /// Every listener, in the order of the file's sections.
    pub const ALL: [Listen; 5] = [
        Listen::Http,
        Listen::Channel,
        Listen::Mqtt,
        Listen::Svrconn,
        Listen::RvRouting,
    ];

    /// The setting's path in the YAML file.
    pub fn path(self) -> &'static str {
        match self {
            Listen::Http => "http.listen",
            Listen::Channel => "listener.listen",
            Listen::Mqtt => "mqtt.listen",
            Listen::Svrconn => "svrconn.listen",
            Listen::RvRouting => "rv.routing.listen",
        }
    }

    /// The `mqgate run` option that overrides the setting (the setting's
    /// path when no option does).
    pub fn flag(self) -> &'static str {
        match self {
            Listen::Http => "--http",
            Listen::Channel => "--listen",
            Listen::Mqtt => "--mqtt",
            Listen::Svrconn => "--svrconn",
            Listen::RvRouting => "rv.routing.listen",
        }
    }

    fn default_addr(self) -> SocketAddr {
        match self {
            Listen::Http => HttpConfig::default().listen,
            Listen::Channel => ListenerConfig::default().listen,
            Listen::Mqtt => crate::mqtt::config::MqttConfig::default().listen,
            Listen::Svrconn => crate::svrconn::config::SvrconnConfig::default().listen,
            Listen::RvRouting => UNSET,
        }
    }
}

/// The address of a listener that is not configured: port 0 never clashes.
const UNSET: SocketAddr = SocketAddr::new(IpAddr::V4(std::net::Ipv4Addr::UNSPECIFIED), 0);

/// Where a listen address was set.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Origin {
    /// In the file: 1-based line and column of the value.
    File { line: usize, column: usize },
    /// By the listener's command-line option.
    Flag,
}

/// Where each listen address of a [`Config`] was set, with the address set
/// there: a later change by the program (e.g. to port 0 in a test) makes
/// the place stale, and it is then not cited.
#[derive(Clone, Debug, Default)]
pub(crate) struct Origins(HashMap<Listen, (SocketAddr, Origin)>);

/// Notes the place of every listen address written in the file of `places`.
pub(super) fn record_origins(config: &mut Config, places: &Places) {
    for l in Listen::ALL {
        if let Some((line, column)) = places.exact(l.path()) {
            let addr = config.listen_addr(l);
            config
                .origins
                .0
                .insert(l, (addr, Origin::File { line, column }));
        }
    }
}

impl Config {
    /// The address listener `l` binds.
    pub fn listen_addr(&self, l: Listen) -> SocketAddr {
        match l {
            Listen::Http => self.http.listen,
            Listen::Channel => self.listener.listen,
            Listen::Mqtt => self.mqtt.listen,
            Listen::Svrconn => self.svrconn.as_ref().map_or(UNSET, |s| s.listen),
            Listen::RvRouting => self
                .rv
                .routing
                .as_ref()
                .and_then(|r| r.listen)
                .unwrap_or(UNSET),
        }
    }

    /// Sets the address of listener `l` from its command-line option
    /// ([`Listen::flag`]); a clash is then reported naming the option.
    pub fn set_listen_from_flag(&mut self, l: Listen, addr: SocketAddr) {
        match l {
            Listen::Http => self.http.listen = addr,
            Listen::Channel => self.listener.listen = addr,
            Listen::Mqtt => self.mqtt.listen = addr,
            Listen::Svrconn => {
                if let Some(s) = self.svrconn.as_mut() {
                    s.listen = addr;
                }
            }
            Listen::RvRouting => {
                if let Some(r) = self.rv.routing.as_mut() {
                    r.listen = Some(addr);
                }
            }
        }
        self.origins.0.insert(l, (addr, Origin::Flag));
    }

    /// Every pair of listeners on one address and port, or on overlapping
    /// addresses (an unspecified address takes the port on every local
    /// address of its family; `[::]` on IPv4 too, Linux's dual-stack
    /// default). Port 0 never clashes: the system picks a free port for each.
    ///
    /// Each error names both entries and where they were set, e.g.
    /// `http.listen (line 3, column 11) and listener.listen (line 7, column 11)
    /// are both 127.0.0.1:1414`, and is placed at the later entry in the file
    /// (line 0 when neither is in the file).
    pub fn listener_clashes(&self) -> Vec<ConfigError> {
        let mut errors = Vec::new();
        for (i, &a) in Listen::ALL.iter().enumerate() {
            for &b in &Listen::ALL[i + 1..] {
                let (x, y) = (self.listen_addr(a), self.listen_addr(b));
                if !overlap(x, y) {
                    continue;
                }
                let message = if x == y {
                    format!("{} and {} are both {x}", self.entry(a), self.entry(b))
                } else {
                    format!(
                        "{} is {x} and {} is {y}: both take port {} on the same addresses",
                        self.entry(a),
                        self.entry(b),
                        x.port()
                    )
                };
                let (line, column) = [self.place(a), self.place(b)]
                    .into_iter()
                    .flatten()
                    .max()
                    .unwrap_or((0, 0));
                errors.push(ConfigError {
                    line,
                    column,
                    message,
                });
            }
        }
        errors
    }

    /// Where `l`'s address was set in the file, if it still is that one.
    fn place(&self, l: Listen) -> Option<(usize, usize)> {
        match self.origins.0.get(&l) {
            Some(&(addr, Origin::File { line, column })) if addr == self.listen_addr(l) => {
                Some((line, column))
            }
            _ => None,
        }
    }

    /// `l` as an error names it: with its place in the file, its option, or
    /// `(default)`.
    fn entry(&self, l: Listen) -> String {
        let addr = self.listen_addr(l);
        match self.origins.0.get(&l) {
            Some(&(set, Origin::File { line, column })) if set == addr => {
                format!("{} (line {line}, column {column})", l.path())
            }
            Some(&(set, Origin::Flag)) if set == addr => format!("{} ({})", l.flag(), l.path()),
            None if addr == l.default_addr() => format!("{} (default)", l.path()),
            _ => l.path().to_string(),
        }
    }
}

/// Whether listeners on `a` and `b` would take the same port.
fn overlap(a: SocketAddr, b: SocketAddr) -> bool {
    if a.port() == 0 || a.port() != b.port() {
        return false;
    }
    let (x, y) = (a.ip().to_canonical(), b.ip().to_canonical());
    x == y || covers(x, y) || covers(y, x)
}

/// Whether a listener on `wide` also takes its port on `other`.
fn covers(wide: IpAddr, other: IpAddr) -> bool {
    match wide {
        IpAddr::V4(w) => w.is_unspecified() && other.is_ipv4(),
        IpAddr::V6(w) => w.is_unspecified(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The lines and columns expected below are counted in each test's own
    /// YAML text: `  listen: ` is 10 characters, so a value starts at column 11.
    fn errors(text: &str) -> Vec<ConfigError> {
        match Config::from_yaml(text, "t.yaml") {
            Ok(_) => Vec::new(),
            Err(e) => e.errors,
        }
    }

    fn one(text: &str) -> (usize, usize, String) {
        let e = errors(text);
        assert_eq!(e.len(), 1, "{e:?}");
        (e[0].line, e[0].column, e[0].message.clone())
    }

    #[test]
    fn two_entries_on_one_address_name_both_places() {
        let text = "# gateway\nhttp:\n  listen: 127.0.0.1:1414\n  lease_ms: 1000\n  max_wait_ms: 2000\nlistener:\n  listen: 127.0.0.1:1414\n";
        assert_eq!(
            one(text),
            (
                7,
                11,
                "http.listen (line 3, column 11) and listener.listen (line 7, column 11) are both 127.0.0.1:1414".into()
            )
        );
        let shown = Config::from_yaml(text, "t.yaml").unwrap_err().to_string();
        assert_eq!(
            shown,
            "t.yaml:7:11: http.listen (line 3, column 11) and listener.listen (line 7, column 11) are both 127.0.0.1:1414"
        );
    }

    #[test]
    fn a_default_address_is_named_as_the_default() {
        // http.listen's default is 127.0.0.1:8080 (docs/config.md "http").
        let text = "listener:\n  listen: 127.0.0.1:8080\n";
        assert_eq!(
            one(text),
            (
                2,
                11,
                "http.listen (default) and listener.listen (line 2, column 11) are both 127.0.0.1:8080".into()
            )
        );
    }

    #[test]
    fn port_zero_never_clashes() {
        let text = "http:\n  listen: 127.0.0.1:0\nlistener:\n  listen: 127.0.0.1:0\n";
        assert!(errors(text).is_empty());
        let text = "http:\n  listen: 0.0.0.0:0\nlistener:\n  listen: '[::]:0'\n";
        assert!(errors(text).is_empty());
    }

    #[test]
    fn an_unspecified_address_clashes_with_every_address_it_covers() {
        let text = "http:\n  listen: 0.0.0.0:1414\n";
        assert_eq!(
            one(text),
            (
                2,
                11,
                "http.listen (line 2, column 11) is 0.0.0.0:1414 and listener.listen (default) is 127.0.0.1:1414: both take port 1414 on the same addresses".into()
            )
        );
        let at = |s: &str| s.parse::<SocketAddr>().unwrap();
        assert!(overlap(at("[::]:9000"), at("127.0.0.1:9000")));
        assert!(overlap(at("0.0.0.0:9000"), at("[::]:9000")));
        assert!(overlap(at("[::ffff:127.0.0.1]:9000"), at("127.0.0.1:9000")));
        assert!(!overlap(at("0.0.0.0:9000"), at("[::1]:9000")));
        assert!(!overlap(at("127.0.0.1:9000"), at("127.0.0.2:9000")));
        assert!(!overlap(at("127.0.0.1:9000"), at("127.0.0.1:9001")));
    }

    #[test]
    fn a_command_line_option_is_named_by_its_flag() {
        let mut c = Config::from_yaml("listener:\n  listen: 127.0.0.1:1414\n", "t.yaml").unwrap();
        assert!(c.listener_clashes().is_empty());
        c.set_listen_from_flag(Listen::Http, "127.0.0.1:1414".parse().unwrap());
        let e = c.listener_clashes();
        assert_eq!(e.len(), 1);
        assert_eq!((e[0].line, e[0].column), (2, 11));
        assert_eq!(
            e[0].message,
            "--http (http.listen) and listener.listen (line 2, column 11) are both 127.0.0.1:1414"
        );
        // Both from the command line: no place in the file.
        c.set_listen_from_flag(Listen::Channel, "127.0.0.1:1414".parse().unwrap());
        let e = c.listener_clashes();
        assert_eq!((e[0].line, e[0].column), (0, 0));
        assert_eq!(
            e[0].message,
            "--http (http.listen) and --listen (listener.listen) are both 127.0.0.1:1414"
        );
    }

    #[test]
    fn the_routing_listener_clashes_like_the_others() {
        // rv.routing.listen is a listener of the gateway (docs/config.md
        // "Listen addresses").
        let text = "listener:\n  listen: 127.0.0.1:7501\nrv:\n  routing:\n    router: E\n    listen: 127.0.0.1:7501\n";
        assert_eq!(
            one(text),
            (
                6,
                13,
                "listener.listen (line 2, column 11) and rv.routing.listen (line 6, column 13) are both 127.0.0.1:7501".into()
            )
        );
        // Unset: no listener, no clash.
        assert!(
            errors("rv:\n  routing:\n    router: E\n    neighbors: [{name: G, connect: 'h:1'}]\n")
                .is_empty()
        );
    }

    #[test]
    fn a_place_is_not_cited_once_the_program_changed_the_address() {
        let mut c = Config::from_yaml("http:\n  listen: 127.0.0.1:9001\n", "t.yaml").unwrap();
        c.http.listen = "127.0.0.1:1414".parse().unwrap();
        let e = c.listener_clashes();
        assert_eq!((e[0].line, e[0].column), (0, 0));
        assert_eq!(
            e[0].message,
            "http.listen and listener.listen (default) are both 127.0.0.1:1414"
        );
    }
}

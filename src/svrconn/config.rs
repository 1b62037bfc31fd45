//! The `svrconn:` section of the configuration (docs/config.md `svrconn`):
//! the listener for IBM MQ client applications and its server-connection
//! channels (docs/mq-client-protocol.md).

use serde::Deserialize;
use std::net::SocketAddr;

/// The SVRCONN listener's default port: the one after IBM MQ's registered
/// port 1414, which mqgate's own message channel listener takes by default
/// (`listener.listen`).
pub const DEFAULT_PORT: u16 = 1415;

/// The `svrconn:` section. Absent: no listener.
#[derive(Clone, Debug, Deserialize)]
#[serde(default, deny_unknown_fields)]
pub struct SvrconnConfig {
    /// Address and port the listener binds.
    pub listen: SocketAddr,
    /// The largest segment (MQ's maximum transmission size) the gateway
    /// takes or sends, bytes; a client asking for more is offered this, one
    /// asking for less than [`MIN_TRANSMISSION_SIZE`] is offered that.
    /// 4096 to 1048576 (IBM MQ clients ask for 32748 or 32768).
    pub max_transmission_size: u32,
    /// How long a new connection may take to finish its INITIAL_DATA
    /// exchange, ms (after it, the agreed heartbeat interval bounds
    /// silence). At least 1.
    pub connect_timeout_ms: u64,
    /// The server-connection channels clients may name in INITIAL_DATA.
    pub channels: Vec<SvrconnChannel>,
    /// TLS for MQ clients; default none (docs/security.md "TLS"). A
    /// channel's `sslpeer` needs it, with `client_auth`.
    pub tls: Option<crate::security::tls::TlsConfig>,
}

impl Default for SvrconnConfig {
    fn default() -> Self {
        SvrconnConfig {
            listen: SocketAddr::from(([127, 0, 0, 1], DEFAULT_PORT)),
            max_transmission_size: 32768,
            connect_timeout_ms: 30_000,
            channels: Vec::new(),
            tls: None,
        }
    }
}

/// One server-connection channel (MQSC `DEFINE CHANNEL(...) CHLTYPE(SVRCONN)`).
#[derive(Clone, Debug, Deserialize)]
#[serde(default, deny_unknown_fields)]
pub struct SvrconnChannel {
    /// The channel name clients give (MQ channel name rules: 1-20 of
    /// `A-Z a-z 0-9 . / _ %`).
    pub name: String,
    /// MAXMSGL: the largest message on the channel, bytes (a client asking
    /// for more is offered this). 1 to 104857600.
    pub maxmsgl: u32,
    /// HBINT: heartbeat interval, seconds; 0 = none. The larger of the
    /// client's and this one is used (IBM MQ "Heartbeat interval (HBINT)").
    pub heartbeat: u32,
    /// SHARECNV: conversations one socket may carry; the smaller of the
    /// client's and this one is used. 0 and 1 allow one.
    pub sharecnv: u32,
    /// Who may connect, with what password (CONAUTH_INFO, or the password
    /// of USERID_DATA). Empty: anyone, as a queue manager without
    /// connection authentication.
    pub users: Vec<SvrconnUser>,
    /// SSLPEER: the filter the client certificate's subject DN must pass
    /// (IBM MQ "SSLPEER (SSL Peer)"); a client that fails it is refused
    /// with 2035 MQRC_NOT_AUTHORIZED. Default none.
    pub sslpeer: Option<crate::security::tls::SslPeer>,
}

impl Default for SvrconnChannel {
    fn default() -> Self {
        SvrconnChannel {
            name: String::new(),
            maxmsgl: 4 * 1024 * 1024,
            heartbeat: 300,
            sharecnv: 10,
            users: Vec::new(),
            sslpeer: None,
        }
    }
}

/// A user of a channel.
#[derive(Clone, Debug, Default, Deserialize)]
#[serde(default, deny_unknown_fields)]
pub struct SvrconnUser {
    /// The user id the client gives, compared exactly.
    pub name: String,
    /// The password, compared exactly; empty (the default): the user id
    /// alone admits, as an IBM MQ channel authentication record that maps
    /// an asserted client user id does (use only where the network is
    /// trusted).
    pub password: String,
}

/// MQ's largest MAXMSGL, bytes.
pub const LIMIT_MAXMSGL: u32 = 100 * 1024 * 1024;
/// The smallest `max_transmission_size`, bytes.
pub const MIN_TRANSMISSION_SIZE: u32 = 4096;
/// The largest `max_transmission_size`, bytes.
pub const MAX_TRANSMISSION_SIZE: u32 = 1024 * 1024;
/// MQ's largest HBINT, seconds.
pub const LIMIT_HEARTBEAT: u32 = 999_999;
/// MQ's largest SHARECNV.
pub const LIMIT_SHARECNV: u32 = 999_999_999;

impl SvrconnConfig {
    /// The channel named `name` (trailing blanks of the wire form removed).
    pub fn channel(&self, name: &str) -> Option<&SvrconnChannel> {
        self.channels.iter().find(|c| c.name == name)
    }

    /// The problems of the section: (setting path, message).
    pub fn problems(&self) -> Vec<(String, String)> {
        let mut out = Vec::new();
        let mut bad = |path: String, m: String| out.push((format!("svrconn.{path}"), m));
        if !(MIN_TRANSMISSION_SIZE..=MAX_TRANSMISSION_SIZE).contains(&self.max_transmission_size) {
            bad(
                "max_transmission_size".into(),
                format!("must be {MIN_TRANSMISSION_SIZE} to {MAX_TRANSMISSION_SIZE} bytes"),
            );
        }
        if self.connect_timeout_ms == 0 {
            bad("connect_timeout_ms".into(), "must be at least 1 ms".into());
        }
        if self.channels.is_empty() {
            bad(
                "channels".into(),
                "at least one server-connection channel is needed".into(),
            );
        }
        let mut seen = std::collections::HashSet::new();
        for (i, c) in self.channels.iter().enumerate() {
            let p = |f: &str| format!("channels[{i}].{f}");
            if let Err(e) = crate::qmgr::names::check_object_name(
                &c.name,
                mqgate_codecs::mq::constants::len::CHANNEL_NAME,
            ) {
                bad(p("name"), e);
            } else if !seen.insert(c.name.as_str()) {
                bad(p("name"), format!("channel {} is defined twice", c.name));
            }
            if c.maxmsgl == 0 || c.maxmsgl > LIMIT_MAXMSGL {
                bad(p("maxmsgl"), format!("must be 1 to {LIMIT_MAXMSGL} bytes"));
            }
            if c.heartbeat > LIMIT_HEARTBEAT {
                bad(
                    p("heartbeat"),
                    format!("must be 0 to {LIMIT_HEARTBEAT} seconds"),
                );
            }
            if c.sharecnv > LIMIT_SHARECNV {
                bad(p("sharecnv"), format!("must be 0 to {LIMIT_SHARECNV}"));
            }
            let mut users = std::collections::HashSet::new();
            for (j, u) in c.users.iter().enumerate() {
                let up = |f: &str| format!("channels[{i}].users[{j}].{f}");
                if u.name.is_empty() || u.name.len() > 1024 {
                    bad(up("name"), "must be 1 to 1024 bytes".into());
                } else if !users.insert(u.name.as_str()) {
                    bad(up("name"), format!("user {} is listed twice", u.name));
                }
                if u.password.len() > 1024 {
                    bad(up("password"), "must be at most 1024 bytes".into());
                }
            }
        }
        out
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn section(yaml: &str) -> SvrconnConfig {
        serde_yaml::from_str(yaml).unwrap()
    }

    #[test]
    fn check_config_places_each_error() {
        // Line and column of each value (counted in the text below).
        let text = "svrconn:\n  listen: 127.0.0.1:1415\n  channels:\n    - name: 'NO GOOD'\n      maxmsgl: 0\n";
        let e = crate::config::Config::from_yaml(text, "t.yaml").unwrap_err();
        let got: Vec<(usize, usize, String)> = e
            .errors
            .iter()
            .map(|e| (e.line, e.column, e.message.clone()))
            .collect();
        assert_eq!(got.len(), 2, "{got:?}");
        assert_eq!((got[0].0, got[0].1), (4, 13));
        assert!(
            got[0].2.starts_with("svrconn.channels[0].name: "),
            "{got:?}"
        );
        assert_eq!((got[1].0, got[1].1), (5, 16));
        assert_eq!(
            got[1].2,
            "svrconn.channels[0].maxmsgl: must be 1 to 104857600 bytes"
        );
        // svrconn.listen clashes like every listener.
        let text = "listener:\n  listen: 127.0.0.1:1415\nsvrconn:\n  channels: [{name: A}]\n";
        let e = crate::config::Config::from_yaml(text, "t.yaml").unwrap_err();
        assert!(
            e.to_string().contains("listener.listen (line 2, column 11) and svrconn.listen (default) are both 127.0.0.1:1415"),
            "{e}"
        );
    }

    #[test]
    fn defaults_and_problems() {
        let s = section("channels: [{name: APP.SVRCONN}]");
        assert_eq!(s.listen.port(), 1415);
        assert_eq!(s.channels[0].maxmsgl, 4 * 1024 * 1024);
        // IBM MQ's SVRCONN defaults: HBINT 300 s, SHARECNV 10.
        assert_eq!((s.channels[0].heartbeat, s.channels[0].sharecnv), (300, 10));
        assert!(s.problems().is_empty());
        let s = section(
            "max_transmission_size: 10\nchannels: [{name: 'BAD NAME'}, {name: A, maxmsgl: 0}, {name: A}, {name: B, users: [{name: u}, {name: u}]}]",
        );
        let paths: Vec<String> = s.problems().into_iter().map(|(p, _)| p).collect();
        assert_eq!(
            paths,
            [
                "svrconn.max_transmission_size",
                "svrconn.channels[0].name",
                "svrconn.channels[1].maxmsgl",
                "svrconn.channels[2].name",
                "svrconn.channels[3].users[1].name",
            ]
        );
        assert_eq!(
            section("listen: 127.0.0.1:1")
                .problems()
                .into_iter()
                .map(|(p, _)| p)
                .collect::<Vec<_>>(),
            ["svrconn.channels"]
        );
    }
}

//! The receiver's handshake checks (docs/channel-protocol.md "Handshake"),
//! as pure functions: what the receiver knows when a HELLO arrives goes in,
//! the accepted terms or a refusal with its MQRC reason come out. The
//! connection task reads the HELLO, acquires what an accepted channel needs
//! (the channel's one connection, its last committed sequence number, its
//! exits), and writes the answer.

use super::frame::{Hello, HelloAck, PROTOCOL_VERSION};
use crate::config::{ChannelLimits, ReceiverChannelDef};
use mqgate_codecs::mq::Mqrc;
use std::fmt;
use std::net::IpAddr;

/// Why a connection is refused: the reason sent in the CLOSE frame and the
/// text that goes with it (also logged).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Refusal {
    pub reason: Mqrc,
    pub text: String,
}

impl Refusal {
    fn new(reason: Mqrc, text: String) -> Refusal {
        Refusal { reason, text }
    }

    /// The channel runs with another sender, from sending queue manager
    /// `q_mgr` at `addr`, that a new connection may not adopt (2537
    /// MQRC_CHANNEL_NOT_AVAILABLE; docs/channel-protocol.md "Adopting a
    /// channel instance").
    pub fn busy(channel: &str, q_mgr: &str, addr: IpAddr) -> Refusal {
        Refusal::new(
            Mqrc::CHANNEL_NOT_AVAILABLE,
            format!(
                "channel {channel} is already running with another sender (sending queue manager {q_mgr:?} from {addr}); only a connection of the same sending queue manager from the same address adopts it"
            ),
        )
    }

    /// The undelivered rule stopped the channel (2279
    /// MQRC_CHANNEL_STOPPED_BY_USER); an administrator starts it again
    /// (docs/channel-protocol.md "Starting a stopped channel").
    pub fn stopped(channel: &str) -> Refusal {
        Refusal::new(
            Mqrc::CHANNEL_STOPPED_BY_USER,
            format!(
                "channel {channel} is stopped (undelivered rule); start it with POST /v1/channels/{channel}/start or `mqgate channel start {channel}`"
            ),
        )
    }

    /// The channel's exits do not start (2539 MQRC_CHANNEL_CONFIG_ERROR).
    pub fn exits(text: String) -> Refusal {
        Refusal::new(Mqrc::CHANNEL_CONFIG_ERROR, text)
    }
}

impl fmt::Display for Refusal {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{} {}: {}", self.reason.0, self.reason.name(), self.text)
    }
}

/// What the receiver knows about the connection when its HELLO arrives.
#[derive(Clone, Copy, Debug)]
pub struct Receiving<'a> {
    /// This queue manager's name.
    pub q_mgr_name: &'a str,
    /// The receiver channel the HELLO names, if one is defined.
    pub def: Option<&'a ReceiverChannelDef>,
    /// The peer's address.
    pub peer: IpAddr,
    /// The subject DN of the peer's TLS certificate (src/security/tls/peer.rs
    /// `PeerIdentity`); `None` without TLS or without a certificate.
    pub peer_dn: Option<&'a str>,
    /// True when the undelivered rule stopped the channel.
    pub stopped: bool,
}

/// A HELLO that passed the checks: the values both sides use from now on.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Terms {
    /// The agreed protocol version (the lower of both sides').
    pub version: u16,
    /// The agreed batch size, message length and heartbeat.
    pub limits: ChannelLimits,
    /// This queue manager's name, sent back in HELLO_ACK.
    pub receiving_q_mgr: String,
}

impl Terms {
    /// The HELLO_ACK announcing these terms and the channel's last committed
    /// batch `last_committed_seq` (0 = none).
    pub fn ack(&self, last_committed_seq: u64) -> HelloAck {
        HelloAck {
            version: self.version,
            receiving_q_mgr: self.receiving_q_mgr.clone(),
            limits: self.limits,
            last_committed_seq,
        }
    }
}

/// Checks `hello` in the documented order — the channel is defined (2540),
/// the peer is allowed (2063), the peer's certificate passes the channel's
/// SSLPEER filter (2035), the version is at least 1 (2539), the sending
/// queue manager matches (2539), the receiving queue manager is this one
/// (2058), the channel is not stopped (2279) — and returns the agreed terms.
pub fn check_hello(hello: &Hello, at: &Receiving<'_>) -> Result<Terms, Refusal> {
    let name = &hello.channel;
    let Some(def) = at.def else {
        return Err(Refusal::new(
            Mqrc::UNKNOWN_CHANNEL_NAME,
            format!("channel {name} is not defined as a receiver channel"),
        ));
    };
    if !def.allowed_peers.is_empty() && !def.allowed_peers.contains(&at.peer) {
        return Err(Refusal::new(
            Mqrc::SECURITY_ERROR,
            format!("peer {} is not allowed on channel {name}", at.peer),
        ));
    }
    if let Some(filter) = &def.sslpeer
        && !at.peer_dn.is_some_and(|dn| filter.matches(dn))
    {
        let presented = match at.peer_dn {
            Some(dn) => format!("certificate subject DN {dn:?}"),
            None => "no certificate".to_string(),
        };
        return Err(Refusal::new(
            Mqrc::NOT_AUTHORIZED,
            format!(
                "peer {} presented {presented}, which does not match SSLPEER {:?} of channel {name}",
                at.peer,
                filter.as_str()
            ),
        ));
    }
    if hello.version == 0 {
        return Err(Refusal::new(
            Mqrc::CHANNEL_CONFIG_ERROR,
            "protocol version 0 is not valid".to_string(),
        ));
    }
    if !def.sending_q_mgr.is_empty() && hello.sending_q_mgr != def.sending_q_mgr {
        return Err(Refusal::new(
            Mqrc::CHANNEL_CONFIG_ERROR,
            format!(
                "channel {name} accepts sending queue manager {}, not {:?}",
                def.sending_q_mgr, hello.sending_q_mgr
            ),
        ));
    }
    if !hello.receiving_q_mgr.is_empty() && hello.receiving_q_mgr != at.q_mgr_name {
        return Err(Refusal::new(
            Mqrc::Q_MGR_NAME_ERROR,
            format!(
                "this is queue manager {}, not {}",
                at.q_mgr_name, hello.receiving_q_mgr
            ),
        ));
    }
    if at.stopped {
        return Err(Refusal::stopped(name));
    }
    Ok(Terms {
        version: hello.version.min(PROTOCOL_VERSION),
        limits: hello.limits.agree(&def.limits),
        receiving_q_mgr: at.q_mgr_name.to_string(),
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::config::{RetryConfig, UndeliveredRule};

    fn def() -> ReceiverChannelDef {
        ReceiverChannelDef {
            name: "TO.GW".into(),
            allowed_peers: vec!["10.0.0.1".parse().unwrap()],
            sending_q_mgr: "QM1".into(),
            receive_exits: Vec::new(),
            undelivered: UndeliveredRule::Retry,
            retry: RetryConfig::default(),
            limits: ChannelLimits {
                batch_size: 10,
                max_msg_length: 8192,
                heartbeat_ms: 1000,
            },
            sslpeer: None,
        }
    }

    fn hello() -> Hello {
        Hello {
            version: 1,
            channel: "TO.GW".into(),
            sending_q_mgr: "QM1".into(),
            receiving_q_mgr: "GW".into(),
            limits: ChannelLimits {
                batch_size: 50,
                max_msg_length: 4096,
                heartbeat_ms: 0,
            },
            last_confirmed_seq: 0,
        }
    }

    fn at(def: &ReceiverChannelDef) -> Receiving<'_> {
        Receiving {
            q_mgr_name: "GW",
            def: Some(def),
            peer: "10.0.0.1".parse().unwrap(),
            peer_dn: None,
            stopped: false,
        }
    }

    #[test]
    fn an_acceptable_hello_gets_the_lower_of_both_offers() {
        let d = def();
        let terms = check_hello(&hello(), &at(&d)).unwrap();
        // docs/channel-protocol.md "Handshake" step 3: the lower of the two
        // sides' values, batch size at least 1.
        assert_eq!(
            terms.limits,
            ChannelLimits {
                batch_size: 10,
                max_msg_length: 4096,
                heartbeat_ms: 0,
            }
        );
        assert_eq!(terms.version, 1);
        let ack = terms.ack(7);
        assert_eq!(ack.receiving_q_mgr, "GW");
        assert_eq!(ack.last_committed_seq, 7);
        assert_eq!(ack.limits, terms.limits);
        // A newer sender gets this side's version; a batch size of 0 becomes 1.
        let h = Hello {
            version: 9,
            limits: ChannelLimits {
                batch_size: 0,
                ..hello().limits
            },
            ..hello()
        };
        let terms = check_hello(&h, &at(&d)).unwrap();
        assert_eq!((terms.version, terms.limits.batch_size), (1, 1));
        // A certificate that passes the channel's SSLPEER is accepted.
        let filtered = ReceiverChannelDef {
            sslpeer: Some(crate::security::tls::SslPeer::parse("CN=gw2").unwrap()),
            ..def()
        };
        let passing = Receiving {
            def: Some(&filtered),
            peer_dn: Some("CN=GW2,O=Example"),
            ..at(&d)
        };
        assert!(check_hello(&hello(), &passing).is_ok());
    }

    #[test]
    fn each_check_refuses_with_its_documented_reason() {
        // docs/channel-protocol.md "Handshake": the table of checks and reasons.
        let d = def();
        let with_sslpeer = ReceiverChannelDef {
            sslpeer: Some(crate::security::tls::SslPeer::parse("CN=gw2,O=Example").unwrap()),
            ..def()
        };
        let cases: Vec<(Hello, Receiving<'_>, i32, &str)> = vec![
            (
                hello(),
                Receiving {
                    def: None,
                    ..at(&d)
                },
                2540,
                "channel TO.GW is not defined as a receiver channel",
            ),
            (
                hello(),
                Receiving {
                    peer: "10.0.0.2".parse().unwrap(),
                    ..at(&d)
                },
                2063,
                "peer 10.0.0.2 is not allowed on channel TO.GW",
            ),
            (
                hello(),
                Receiving {
                    def: Some(&with_sslpeer),
                    peer_dn: Some("CN=gw3,O=Example"),
                    ..at(&d)
                },
                2035,
                "peer 10.0.0.1 presented certificate subject DN \"CN=gw3,O=Example\", which does not match SSLPEER \"CN=gw2,O=Example\" of channel TO.GW",
            ),
            (
                hello(),
                Receiving {
                    def: Some(&with_sslpeer),
                    ..at(&d)
                },
                2035,
                "peer 10.0.0.1 presented no certificate, which does not match SSLPEER \"CN=gw2,O=Example\" of channel TO.GW",
            ),
            (
                Hello {
                    version: 0,
                    ..hello()
                },
                at(&d),
                2539,
                "protocol version 0 is not valid",
            ),
            (
                Hello {
                    sending_q_mgr: "QM9".into(),
                    ..hello()
                },
                at(&d),
                2539,
                "channel TO.GW accepts sending queue manager QM1, not \"QM9\"",
            ),
            (
                Hello {
                    receiving_q_mgr: "OTHER".into(),
                    ..hello()
                },
                at(&d),
                2058,
                "this is queue manager GW, not OTHER",
            ),
            (
                hello(),
                Receiving {
                    stopped: true,
                    ..at(&d)
                },
                2279,
                "channel TO.GW is stopped (undelivered rule); start it with POST /v1/channels/TO.GW/start or `mqgate channel start TO.GW`",
            ),
        ];
        for (h, r, reason, text) in cases {
            let refusal = check_hello(&h, &r).unwrap_err();
            assert_eq!(refusal.reason, Mqrc(reason), "{refusal}");
            assert_eq!(refusal.text, text);
        }
        let busy = Refusal::busy("TO.GW", "QM1", "10.0.0.1".parse().unwrap());
        assert_eq!(busy.reason, Mqrc(2537));
        assert_eq!(
            busy.text,
            "channel TO.GW is already running with another sender (sending queue manager \"QM1\" from 10.0.0.1); only a connection of the same sending queue manager from the same address adopts it"
        );
        assert_eq!(Refusal::exits("x".into()).reason, Mqrc(2539));
    }

    #[test]
    fn checks_come_in_the_documented_order() {
        // Every check fails: the first one in the table (2540) is reported;
        // with the channel defined, the peer (2063) comes before the version.
        let d = def();
        let h = Hello {
            version: 0,
            sending_q_mgr: "QM9".into(),
            receiving_q_mgr: "OTHER".into(),
            ..hello()
        };
        let all_wrong = Receiving {
            def: None,
            peer: "10.0.0.2".parse().unwrap(),
            stopped: true,
            ..at(&d)
        };
        assert_eq!(check_hello(&h, &all_wrong).unwrap_err().reason.0, 2540);
        let defined = Receiving {
            def: Some(&d),
            ..all_wrong
        };
        assert_eq!(check_hello(&h, &defined).unwrap_err().reason.0, 2063);
        let allowed = Receiving {
            peer: "10.0.0.1".parse().unwrap(),
            ..defined
        };
        assert_eq!(check_hello(&h, &allowed).unwrap_err().reason.0, 2539);
        // Open definitions (no peers, any sending queue manager) let anyone in.
        let open = ReceiverChannelDef {
            allowed_peers: Vec::new(),
            sending_q_mgr: String::new(),
            ..def()
        };
        let h = Hello {
            sending_q_mgr: String::new(),
            receiving_q_mgr: String::new(),
            ..hello()
        };
        let r = Receiving {
            def: Some(&open),
            peer: "192.0.2.7".parse().unwrap(),
            ..at(&open)
        };
        assert!(check_hello(&h, &r).is_ok());
    }
}

//! Where the configuration sets TLS (docs/security.md "TLS"): every `tls:`
//! setting with its path and side, and the checks across sections (an
//! SSLPEER filter needs TLS that carries the peer's certificate).

use super::{ChannelDef, Config};
use crate::security::tls::{ClientAuth, Side, TlsConfig};

impl Config {
    /// Every `tls:` setting: (setting path, setting, side).
    pub fn tls_settings(&self) -> Vec<(String, &TlsConfig, Side)> {
        let mut out = Vec::new();
        if let Some(t) = &self.http.tls {
            out.push(("http.tls".to_string(), t, Side::Listener));
        }
        if let Some(t) = &self.listener.tls {
            out.push(("listener.tls".to_string(), t, Side::Listener));
        }
        if let Some(t) = &self.mqtt.tls {
            out.push(("mqtt.tls".to_string(), t, Side::Listener));
        }
        if let Some(t) = self.svrconn.as_ref().and_then(|s| s.tls.as_ref()) {
            out.push(("svrconn.tls".to_string(), t, Side::Listener));
        }
        if let Some(t) = self.rv.nats.as_ref().and_then(|n| n.tls.as_ref()) {
            out.push(("rv.nats.tls".to_string(), t, Side::Outbound));
        }
        if let Some(r) = &self.rv.routing {
            if let Some(t) = &r.tls {
                out.push(("rv.routing.tls".to_string(), t, Side::Listener));
            }
            for (i, n) in r.neighbors.iter().enumerate() {
                if let Some(t) = &n.tls {
                    out.push((format!("rv.routing.neighbors[{i}].tls"), t, Side::Outbound));
                }
            }
        }
        for (i, c) in self.channels.iter().enumerate() {
            let tls = match c {
                ChannelDef::Sender(s) => s.tls.as_ref(),
                ChannelDef::MqClient(m) => m.tls.as_ref(),
                ChannelDef::Receiver(_) => None,
            };
            if let Some(t) = tls {
                out.push((format!("channels[{i}].tls"), t, Side::Outbound));
            }
        }
        out
    }

    /// The problems of the TLS settings that need no file: each setting's
    /// own ([`TlsConfig::problems`]), SSLPEER filters without the TLS that
    /// carries the peer's certificate, and client certificate mappings
    /// without an HTTP listener that asks for certificates.
    pub(super) fn tls_problems(&self) -> Vec<(String, String)> {
        let mut out = Vec::new();
        for (path, t, side) in self.tls_settings() {
            for (key, message) in t.problems(side) {
                out.push((format!("{path}.{key}"), message));
            }
        }
        let asks = |t: &Option<TlsConfig>| {
            t.as_ref()
                .is_some_and(|t| t.client_auth != ClientAuth::None)
        };
        for (i, c) in self.channels.iter().enumerate() {
            match c {
                ChannelDef::Receiver(r) if r.sslpeer.is_some() && !asks(&self.listener.tls) => {
                    out.push((
                        format!("channels[{i}].sslpeer"),
                        "needs listener.tls with client_auth optional or required: without it no sender presents a certificate".into(),
                    ));
                }
                ChannelDef::Sender(s) if s.sslpeer.is_some() && s.tls.is_none() => {
                    out.push((
                        format!("channels[{i}].sslpeer"),
                        "needs tls: without it the receiver presents no certificate".into(),
                    ));
                }
                ChannelDef::MqClient(m) if m.sslpeer.is_some() && m.tls.is_none() => {
                    out.push((
                        format!("channels[{i}].sslpeer"),
                        "needs tls: without it the queue manager presents no certificate".into(),
                    ));
                }
                _ => {}
            }
        }
        if let Some(r) = &self.rv.routing {
            for (i, n) in r.neighbors.iter().enumerate() {
                // A neighbor that dials is checked on its link's TLS; one
                // dialled to, on the listener's client certificates.
                let carried = if n.connect.is_some() {
                    n.tls.is_some()
                } else {
                    asks(&r.tls)
                };
                if n.sslpeer.is_some() && !carried {
                    out.push((
                        format!("rv.routing.neighbors[{i}].sslpeer"),
                        "needs tls on this neighbor (it is dialled) or rv.routing.tls with client_auth (it dials): without it the neighbor presents no certificate".into(),
                    ));
                }
            }
        }
        if let Some(s) = &self.svrconn {
            for (i, c) in s.channels.iter().enumerate() {
                if c.sslpeer.is_some() && !asks(&s.tls) {
                    out.push((
                        format!("svrconn.channels[{i}].sslpeer"),
                        "needs svrconn.tls with client_auth optional or required: without it no client presents a certificate".into(),
                    ));
                }
            }
        }
        if !self.security.certificates.is_empty() && !asks(&self.http.tls) && !asks(&self.mqtt.tls)
        {
            out.push((
                "security.certificates".into(),
                "needs http.tls or mqtt.tls with client_auth optional or required: without it no client presents a certificate".into(),
            ));
        }
        out
    }

    /// The problems of the files the TLS settings name (read, parsed as
    /// PEM, key against certificate): (setting path, message), for
    /// `mqgate check-config` to place in the file.
    pub fn tls_file_problems(&self) -> Vec<(String, String)> {
        let mut out = Vec::new();
        for (path, t, side) in self.tls_settings() {
            for (key, message) in t.file_problems(side) {
                out.push((format!("{path}.{key}"), message));
            }
        }
        out
    }
}

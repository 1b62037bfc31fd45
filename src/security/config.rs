//! The `security:` section of the configuration (docs/security.md).

use serde::Deserialize;
use std::path::PathBuf;

/// HTTP authentication and authorities. Absent or empty: no authentication,
/// and the HTTP API may listen on loopback addresses only (unless
/// `insecure: true`).
#[derive(Clone, Debug, Default, Deserialize)]
#[serde(default, deny_unknown_fields)]
pub struct SecurityConfig {
    /// Bearer tokens (RFC 6750), each stored as the SHA-256 of the token.
    pub tokens: Vec<TokenEntry>,
    /// A file of more tokens: one `SHA256HEX PRINCIPAL` a line, `#`
    /// comments and blank lines ignored (docs/security.md "Tokens").
    pub tokens_file: Option<PathBuf>,
    /// Client certificates (mutual TLS on `http.tls`) mapped to
    /// principals: the first entry whose `dn` filter the certificate's
    /// subject DN passes names the principal (docs/security.md "Client
    /// certificates").
    pub certificates: Vec<CertificateEntry>,
    /// Authorities granted to principals on object profiles.
    pub authorities: Vec<Grant>,
    /// `GET /metrics` without a token even when tokens are configured
    /// (a scraper on a trusted network). Default false.
    pub metrics_open: bool,
    /// Allows the HTTP API to listen on a non-loopback address without any
    /// token configured. Default false: such a gateway refuses to start.
    pub insecure: bool,
    /// Channel authentication rules for message channels and
    /// server-connection channels, first match wins
    /// (src/security/chlauth.rs, docs/security.md "Channel authentication
    /// rules"). Empty (the default): every connection goes on to the
    /// channel's own checks.
    pub chlauth: Vec<super::chlauth::RuleConfig>,
    /// Connection and memory limits (src/security/limits.rs,
    /// docs/security.md "Limits"); every listener has them by default.
    pub limits: super::limits::LimitsConfig,
}

/// One token: who presents it, and its SHA-256.
#[derive(Clone, Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct TokenEntry {
    /// The principal the token authenticates: a name, or `device:QMGR`
    /// for a device queue manager's own queues.
    pub principal: String,
    /// SHA-256 of the token's bytes, 64 hex digits (any case).
    pub sha256: String,
}

/// One client certificate mapping: an SSLPEER-style filter on the
/// certificate's subject DN, and the principal it authenticates.
#[derive(Clone, Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct CertificateEntry {
    /// The filter (IBM MQ "IBM MQ rules for SSLPEER values"), e.g.
    /// `CN=app1,O=Example`.
    pub dn: crate::security::tls::SslPeer,
    /// The principal, as a token would name it.
    pub principal: String,
}

/// `setmqaut -n PROFILE -t TYPE -p PRINCIPAL +AUTH...` as YAML.
#[derive(Clone, Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Grant {
    /// The principal (as a token names it).
    pub principal: String,
    /// A generic profile (src/security/profile.rs).
    pub profile: String,
    /// The object type; default `queue`.
    #[serde(default, rename = "type")]
    pub object_type: ObjectType,
    /// Authority names: put, get, browse, inq, set, dsp, chg, ctrl,
    /// setall, pub, sub, all.
    pub authorities: Vec<String>,
}

/// Object types of a grant, named as setmqaut's `-t` values.
#[derive(Clone, Copy, Debug, Default, Deserialize, PartialEq, Eq)]
#[serde(rename_all = "lowercase")]
pub enum ObjectType {
    /// Queues (`-t queue`), including a device's local queues `QMGR/QUEUE`.
    #[default]
    Queue,
    /// This queue manager (`-t qmgr`): queue list and status.
    Qmgr,
    /// Another queue manager a put addresses (`-t rqmname`).
    Rqmname,
    /// Channels (`-t channel`).
    Channel,
    /// Rendezvous subjects, profiles in subject wildcard syntax
    /// (src/security/subject_profile.rs); authorities `pub` and `sub`
    /// (docs/security.md "Subject authorities").
    Subject,
}

impl SecurityConfig {
    /// True when any token is configured (inline or in a file).
    pub fn has_tokens(&self) -> bool {
        !self.tokens.is_empty() || self.tokens_file.is_some()
    }

    /// True when HTTP requests must authenticate: a token or a client
    /// certificate mapping is configured.
    pub fn has_credentials(&self) -> bool {
        self.has_tokens() || !self.certificates.is_empty()
    }

    /// The problems of the section: (setting path, message).
    pub fn problems(&self) -> Vec<(String, String)> {
        let mut out = Vec::new();
        for (i, t) in self.tokens.iter().enumerate() {
            if let Err(e) = super::tokens::parse_digest(&t.sha256) {
                out.push((format!("security.tokens[{i}].sha256"), e));
            }
            if let Err(e) = super::check_principal(&t.principal) {
                out.push((format!("security.tokens[{i}].principal"), e));
            }
        }
        for (i, c) in self.certificates.iter().enumerate() {
            if let Err(e) = super::check_principal(&c.principal) {
                out.push((format!("security.certificates[{i}].principal"), e));
            }
        }
        if !self.authorities.is_empty() && !self.has_credentials() {
            out.push((
                "security.authorities".into(),
                "authorities need principals: configure security.tokens, security.tokens_file or security.certificates"
                    .into(),
            ));
        }
        for (i, g) in self.authorities.iter().enumerate() {
            let at = |k: &str| format!("security.authorities[{i}].{k}");
            if let Err(e) = super::check_principal(&g.principal) {
                out.push((at("principal"), e));
            }
            let profile_check = if g.object_type == ObjectType::Subject {
                super::subject_profile::check_profile(&g.profile)
            } else {
                super::profile::check_profile(&g.profile)
            };
            if let Err(e) = profile_check {
                out.push((at("profile"), e));
            } else if g.principal.starts_with(super::DEVICE_PREFIX) && g.profile.contains('/') {
                out.push((
                    at("profile"),
                    "a device principal reaches only its own device queues; its grants may not name device queues (`/`)".into(),
                ));
            }
            if g.authorities.is_empty() {
                out.push((at("authorities"), "names no authority".into()));
            }
            for (j, a) in g.authorities.iter().enumerate() {
                match super::Authority::parse_list_item(a) {
                    Err(e) => out.push((format!("security.authorities[{i}].authorities[{j}]"), e)),
                    Ok(list) => {
                        if let Some(e) = type_mismatch(g.object_type, a, &list) {
                            out.push((format!("security.authorities[{i}].authorities[{j}]"), e));
                        }
                    }
                }
            }
        }
        for (i, r) in self.chlauth.iter().enumerate() {
            for (k, e) in r.problems() {
                out.push((format!("security.chlauth[{i}].{k}"), e));
            }
        }
        out
    }
}

/// Why authority item `item` (expanded to `list`) does not fit a grant of
/// type `t`: `pub` and `sub` apply to subjects alone, and subjects take no
/// other authority (`all` fits every type).
fn type_mismatch(t: ObjectType, item: &str, list: &[super::Authority]) -> Option<String> {
    use super::Authority;
    if list.len() > 1 {
        return None;
    }
    let subject_kind = list
        .iter()
        .all(|a| matches!(a, Authority::Pub | Authority::Sub));
    match (t == ObjectType::Subject, subject_kind) {
        (true, false) => Some(format!(
            "authority {item:?} does not apply to type subject: expected pub, sub or all"
        )),
        (false, true) => Some(format!("authority {item:?} applies to type subject only")),
        _ => None,
    }
}

//! What `security:` starts with the gateway (docs/security.md): the tokens
//! and authorities, and the rule that an HTTP API without tokens listens on
//! loopback only.

use super::StartError;
use crate::config::Config;
use crate::http::auth::Authentication;
use crate::security::credentials::{Credentials, CurrentCredentials};
use std::sync::Arc;

/// The HTTP authentication of `config` (its tokens and authorities, one
/// value a reload replaces, src/security/credentials.rs), `None` when no
/// token is configured. Errors: a tokens file that cannot be read or has a
/// bad line ([`StartError::Security`], naming file and line); a
/// non-loopback `http.listen` without any token and without
/// `security.insecure: true`; another listener as [`open_listeners`] says.
pub(super) fn load(config: &Config) -> Result<Option<Authentication>, StartError> {
    let s = &config.security;
    open_listeners(config)?;
    if !s.has_credentials() {
        let addr = config.http.listen;
        if addr.ip().is_loopback() {
            tracing::info!(
                http = %addr,
                "no HTTP authentication configured (security.tokens): the HTTP API listens on loopback only"
            );
        } else if s.insecure {
            tracing::warn!(
                http = %addr,
                "no HTTP authentication configured and security.insecure is true: anyone who reaches {addr} can put to and get from every queue"
            );
        } else {
            return Err(StartError::Security(format!(
                "http.listen {addr} is not a loopback address and no HTTP authentication is configured: add security.tokens or security.tokens_file (docs/security.md), listen on 127.0.0.1, or set security.insecure: true to accept unauthenticated access"
            )));
        }
        return Ok(None);
    }
    let credentials = Credentials::from_config(s).map_err(StartError::Security)?;
    let mut certificates = Vec::new();
    for (i, c) in s.certificates.iter().enumerate() {
        let p = crate::security::Principal::new(&c.principal)
            .map_err(|e| StartError::Security(format!("security.certificates[{i}]: {e}")))?;
        certificates.push((c.dn.clone(), p));
    }
    tracing::info!(
        tokens = credentials.tokens.len(),
        certificates = s.certificates.len(),
        grants = s.authorities.len(),
        metrics_open = s.metrics_open,
        "HTTP authentication: a bearer token or a mapped client certificate required on every route but /healthz and /readyz"
    );
    Ok(Some(Authentication {
        credentials: Arc::new(CurrentCredentials::new(credentials)),
        certificates: Arc::new(certificates),
        metrics_open: s.metrics_open,
    }))
}

/// The channel authentication rules of `config` (`security.chlauth`),
/// none when there are none (every attempt let in; a reload may add some).
/// Errors: a rule that is not valid ([`StartError::Security`], naming the
/// rule and key).
pub(super) fn channel_rules(
    config: &Config,
) -> Result<Arc<crate::security::chlauth::ChannelRules>, StartError> {
    let rules = &config.security.chlauth;
    let r = crate::security::chlauth::ChannelRules::new(rules).map_err(StartError::Security)?;
    if !rules.is_empty() {
        tracing::info!(
            rules = rules.len(),
            "channel authentication rules: the first rule matching a connection decides"
        );
    }
    Ok(Arc::new(r))
}

/// The rule of docs/security.md "Defaults" for the listeners besides HTTP:
/// one on an address that is not loopback must authenticate whoever
/// connects, or `security.insecure: true` must say that nobody needs to.
/// A listener authenticates when:
///
/// - message channels (`listener.listen`) and MQ clients (`svrconn.listen`):
///   tokens or certificate mappings are configured (every put is then
///   checked against the authorities), or channel authentication rules
///   (`security.chlauth`), or its `tls` requires client certificates; MQ
///   clients also when every server-connection channel has `users`;
/// - MQTT (`mqtt.listen`): tokens or certificate mappings (a client then
///   proves its client identifier), `mqtt.password_file`, or `mqtt.tls`
///   requiring client certificates;
/// - routing links (`rv.routing.listen`): its `tls` requires client
///   certificates (a link carries no principal).
///
/// Errors: [`StartError::Security`] naming each such listener and what
/// would authenticate it; with `insecure: true`, a WARN line each instead.
fn open_listeners(config: &Config) -> Result<(), StartError> {
    use crate::security::tls::{ClientAuth, TlsConfig};
    let s = &config.security;
    let required = |t: &Option<TlsConfig>| {
        t.as_ref()
            .is_some_and(|t| t.client_auth == ClientAuth::Required)
    };
    let channel_auth = s.has_credentials() || !s.chlauth.is_empty();
    let mut open: Vec<String> = Vec::new();
    let mut note = |setting: &str, addr: std::net::SocketAddr, needs: &str| {
        if !addr.ip().is_loopback() {
            open.push(format!(
                "{setting} {addr} is not a loopback address and authenticates nobody: add {needs}"
            ));
        }
    };
    if !(channel_auth || required(&config.listener.tls)) {
        note(
            "listener.listen",
            config.listener.listen,
            "security.tokens (authorities), security.chlauth rules or listener.tls client_auth: required",
        );
    }
    // A server-connection channel with users takes only those (MQCSP).
    let all_have_users =
        |v: &crate::svrconn::config::SvrconnConfig| v.channels.iter().all(|c| !c.users.is_empty());
    if let Some(v) = &config.svrconn
        && !(channel_auth || required(&v.tls) || all_have_users(v))
    {
        note(
            "svrconn.listen",
            v.listen,
            "users to every svrconn channel, security.tokens (authorities), security.chlauth rules or svrconn.tls client_auth: required",
        );
    }
    let m = &config.mqtt;
    if !(s.has_credentials() || m.password_file.is_some() || required(&m.tls)) {
        note(
            "mqtt.listen",
            m.listen,
            "mqtt.password_file, security.tokens (authorities) or mqtt.tls client_auth: required",
        );
    }
    if let Some(r) = &config.rv.routing
        && let Some(addr) = r.listen
        && !required(&r.tls)
    {
        note(
            "rv.routing.listen",
            addr,
            "rv.routing.tls with client_auth: required",
        );
    }
    if open.is_empty() {
        return Ok(());
    }
    if s.insecure {
        for o in &open {
            tracing::warn!("{o}; security.insecure is true: starting anyway");
        }
        return Ok(());
    }
    Err(StartError::Security(format!(
        "{}; or set security.insecure: true to accept unauthenticated connections (docs/security.md \"Defaults\")",
        open.join("; ")
    )))
}

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
/// `security.insecure: true`.
pub(super) fn load(config: &Config) -> Result<Option<Authentication>, StartError> {
    let s = &config.security;
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

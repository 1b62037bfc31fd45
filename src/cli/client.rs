//! The HTTP client the CLI uses to talk to a running gateway.

use serde_json::Value;
use std::time::Duration;

/// Default `--gateway`.
pub const DEFAULT_GATEWAY: &str = "http://127.0.0.1:8080";

/// A failed call: the gateway's MQRC error, or a transport problem.
#[derive(Debug)]
pub enum ClientError {
    /// The gateway answered with `{"mqrc", "reason", "message"}`.
    Mq {
        mqrc: i32,
        reason: String,
        message: String,
    },
    /// Connection or protocol failure.
    Transport(String),
}

impl std::fmt::Display for ClientError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            ClientError::Mq {
                mqrc,
                reason,
                message,
            } => write!(f, "{mqrc} {reason}: {message}"),
            ClientError::Transport(e) => write!(f, "{e}"),
        }
    }
}

/// Exit status of put/get/browse/rtq/device-pull when the gateway could not be asked
/// (connection refused, timeout, an answer that is not JSON) — the same as
/// `tpenqueue`.
pub const EXIT_UNREACHABLE: u8 = 2;

impl ClientError {
    /// The exit status for this error: [`EXIT_UNREACHABLE`] for a transport
    /// problem, 1 for an MQ error answered by the gateway.
    pub fn exit_code(&self) -> std::process::ExitCode {
        match self {
            ClientError::Mq { .. } => std::process::ExitCode::FAILURE,
            ClientError::Transport(_) => std::process::ExitCode::from(EXIT_UNREACHABLE),
        }
    }
}

/// Percent-encodes one path segment (queue names may hold `/` and `%`).
pub fn segment(s: &str) -> String {
    s.bytes()
        .map(|b| {
            if b.is_ascii_alphanumeric() || matches!(b, b'.' | b'_' | b'-') {
                (b as char).to_string()
            } else {
                format!("%{b:02X}")
            }
        })
        .collect()
}

/// A `--uow` / `--conversation` argument: the token of 32 hex digits the
/// gateway handed out (docs/http-api.md "Units of work", docs/rpc.md); the
/// clap error names what is expected.
pub fn token_arg(s: &str) -> Result<crate::mqi::Token, String> {
    crate::mqi::Token::parse(s).ok_or_else(|| {
        format!(
            "{s:?} is not a token: expected the 32 hex digits the gateway answered (`uow` of POST /v1/uow, `conversation` of POST /v1/rpc/conversations)"
        )
    })
}

/// The `lease` of a get's answer as text for a path: the token string
/// (docs/http-api.md "Leases"). `None` when the answer has no string lease.
pub fn lease_of(answer: &Value) -> Option<&str> {
    answer["lease"].as_str()
}

/// A gateway at a base URL.
pub struct Gateway {
    base: String,
    agent: ureq::Agent,
    /// Sent as `Authorization: Bearer TOKEN` (RFC 6750 §2.1) on every
    /// request when set (docs/security.md "Command-line clients").
    token: Option<String>,
    /// Why the HTTPS settings of the environment ([`CACERT_ENV`], ...)
    /// cannot be used: every call fails with it.
    tls_error: Option<String>,
}

/// The environment variable naming the PEM file of the CA certificates an
/// `https://` gateway's certificate must chain to (default: the public CAs
/// of webpki-roots).
pub const CACERT_ENV: &str = "MQGATE_CACERT";
/// The environment variables naming the PEM files of a client certificate
/// and its key, for a gateway that asks for one (`http.tls.client_auth`).
pub const CERT_ENV: &str = "MQGATE_CERT";
/// See [`CERT_ENV`].
pub const KEY_ENV: &str = "MQGATE_KEY";

/// The rustls configuration of [`CACERT_ENV`], [`CERT_ENV`] and
/// [`KEY_ENV`], `None` when [`CACERT_ENV`] is not set. Errors name the
/// variable and the file.
fn tls_from_env() -> Result<Option<std::sync::Arc<rustls::ClientConfig>>, String> {
    let var = |name: &str| {
        std::env::var_os(name)
            .filter(|v| !v.is_empty())
            .map(std::path::PathBuf::from)
    };
    let Some(ca) = var(CACERT_ENV) else {
        return Ok(None);
    };
    let config = crate::security::tls::TlsConfig {
        ca: Some(ca),
        cert: var(CERT_ENV),
        key: var(KEY_ENV),
        ..Default::default()
    };
    if config.cert.is_some() != config.key.is_some() {
        return Err(format!("{CERT_ENV} and {KEY_ENV} go together"));
    }
    crate::security::tls::client_config(&config)
        .map(|c| Some(std::sync::Arc::new(c)))
        .map_err(|e| format!("{CACERT_ENV}/{CERT_ENV}/{KEY_ENV}: {e}"))
}

/// The environment variable a client command takes its bearer token from
/// when `--token` is not given.
pub const TOKEN_ENV: &str = "MQGATE_TOKEN";

impl Gateway {
    /// A client for `base` (e.g. `http://127.0.0.1:8080`); reads wait up to
    /// `read_timeout`. The bearer token is [`TOKEN_ENV`]'s value when it is
    /// set and not empty ([`Gateway::with_token`] overrides it).
    ///
    /// An `https://` base is checked against the CA certificates of
    /// [`CACERT_ENV`] (and presents the client certificate of [`CERT_ENV`]
    /// and [`KEY_ENV`]) when it is set (docs/security.md "Command-line
    /// clients"); files that cannot be used fail every call.
    pub fn new(base: &str, read_timeout: Duration) -> Self {
        let mut builder = ureq::AgentBuilder::new()
            .timeout_connect(Duration::from_secs(5))
            .timeout_read(read_timeout);
        let mut tls_error = None;
        match tls_from_env() {
            Ok(Some(c)) => builder = builder.tls_config(c),
            Ok(None) => {}
            Err(e) => tls_error = Some(e),
        }
        Gateway {
            base: base.trim_end_matches('/').to_string(),
            agent: builder.build(),
            token: std::env::var(TOKEN_ENV).ok().filter(|t| !t.is_empty()),
            tls_error,
        }
    }

    /// The same client sending bearer token `token` (`--token`) when it is
    /// `Some`; `None` keeps the one from [`TOKEN_ENV`].
    pub fn with_token(mut self, token: Option<&str>) -> Self {
        if let Some(t) = token {
            self.token = Some(t.to_string());
        }
        self
    }

    /// A request to `path` (already encoded).
    pub fn request(&self, method: &str, path: &str) -> ureq::Request {
        let req = self.agent.request(method, &format!("{}{path}", self.base));
        match &self.token {
            Some(t) => req.set("Authorization", &format!("Bearer {t}")),
            None => req,
        }
    }

    /// Sends `req` with `body` and returns the JSON answer.
    pub fn call(&self, req: ureq::Request, body: Option<&[u8]>) -> Result<Value, ClientError> {
        if let Some(e) = &self.tls_error {
            return Err(ClientError::Transport(e.clone()));
        }
        let res = match body {
            Some(b) => req.send_bytes(b),
            None => req.call(),
        };
        Self::answer(res)
    }

    /// The JSON answer of a sent request: an error status becomes
    /// [`ClientError::Mq`] with the gateway's MQRC, anything unreadable
    /// [`ClientError::Transport`].
    pub fn answer(res: Result<ureq::Response, ureq::Error>) -> Result<Value, ClientError> {
        match res {
            Ok(r) => r
                .into_json()
                .map_err(|e| ClientError::Transport(format!("bad answer: {e}"))),
            Err(ureq::Error::Status(code, r)) => {
                let v: Value = r
                    .into_json()
                    .map_err(|e| ClientError::Transport(format!("HTTP {code}: {e}")))?;
                Err(ClientError::Mq {
                    mqrc: v["mqrc"].as_i64().unwrap_or(0) as i32,
                    reason: v["reason"].as_str().unwrap_or("").to_string(),
                    message: v["message"].as_str().unwrap_or("").to_string(),
                })
            }
            Err(e) => Err(ClientError::Transport(e.to_string())),
        }
    }
}

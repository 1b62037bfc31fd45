//! Refusing browser requests the gateway did not invite (docs/http-api.md
//! "Origins and hosts"):
//!
//! - cross-origin requests: a request whose `Origin` header is present and
//!   not one of `http.allowed_origins` (none by default) is refused, so a web
//!   page on another site cannot put or get messages, not even with a
//!   "simple" `text/plain` POST that a browser sends without asking first.
//!   Origins compare as RFC 6454 §5 says: scheme, host and port (the
//!   scheme's default port when none is written).
//! - DNS rebinding: a request whose `Host` (RFC 9110 §7.2; the authority of
//!   an absolute-form target, RFC 9112 §3.2.2) is not a name of this gateway
//!   is refused: a page of `evil.example` whose name was made to resolve to
//!   127.0.0.1 sends `Host: evil.example:PORT`. Names of this gateway are
//!   the listen address as an IP literal with its port, `localhost` with
//!   the port when listening on loopback (or on every address), and the
//!   entries of `http.allowed_hosts`.
//!
//! Both answer 403 with 2035 MQRC_NOT_AUTHORIZED, naming what was refused.
//! An HTTP/1.1 request without Host, or with two, is 400 / 2004 (RFC 9112
//! §3.2). Allowed origins get the CORS answer headers of the WHATWG Fetch
//! Standard ("CORS protocol"): `Access-Control-Allow-Origin` and a preflight
//! (`OPTIONS`) answer for GET, POST and DELETE.
//!
//! The parsers here are pure and also check the configuration.

use super::ApiError;
use crate::config::HttpConfig;
use crate::mqi::names::shown;
use axum::Router;
use axum::extract::Request;
use axum::http::{HeaderMap, HeaderValue, Method, StatusCode, Version, header};
use axum::middleware::Next;
use axum::response::{IntoResponse, Response};
use mqgate_codecs::mq::Mqrc;
use std::net::{IpAddr, SocketAddr};
use std::sync::Arc;

/// A host as a Host header or an origin names it.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum HostName {
    /// An IPv4 or IPv6 literal (IPv6 in brackets in the text).
    Ip(IpAddr),
    /// A registered name, lowercase (host names compare without regard to
    /// case, RFC 9110 §4.2.3).
    Name(String),
}

/// An RFC 6454 origin of scheme `http` or `https`: (scheme, host, port).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Origin {
    /// `http` or `https`, lowercase.
    pub scheme: String,
    pub host: HostName,
    /// The port written, else the scheme's default (80, 443).
    pub port: u16,
}

/// An entry of `http.allowed_hosts`: a host, and the one port it is
/// allowed with (`None`: any port).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct AllowedHost {
    pub host: HostName,
    pub port: Option<u16>,
}

/// Parses `host [":" port]` (RFC 9110 §7.2 Host, RFC 3986 §3.2.2 host):
/// an IPv4 literal, an IPv6 literal in brackets, or a registered name of
/// letters, digits, `-`, `.` and `_`. Errors say what is wrong.
pub fn parse_host(text: &str) -> Result<(HostName, Option<u16>), String> {
    let (host, port) = if let Some(rest) = text.strip_prefix('[') {
        let (ip, after) = rest
            .split_once(']')
            .ok_or_else(|| format!("{} has no `]` after its IPv6 address", shown(text)))?;
        let ip: std::net::Ipv6Addr = ip
            .parse()
            .map_err(|_| format!("{} is not an IPv6 address in brackets", shown(text)))?;
        let port = match after {
            "" => None,
            p => Some(
                p.strip_prefix(':')
                    .ok_or_else(|| format!("{} has text after its IPv6 address", shown(text)))?,
            ),
        };
        (HostName::Ip(IpAddr::V6(ip)), port)
    } else {
        let (host, port) = match text.rsplit_once(':') {
            Some((h, p)) => (h, Some(p)),
            None => (text, None),
        };
        if host.is_empty() {
            return Err(format!("{} names no host", shown(text)));
        }
        if let Ok(ip) = host.parse::<std::net::Ipv4Addr>() {
            (HostName::Ip(IpAddr::V4(ip)), port)
        } else if host
            .bytes()
            .all(|b| b.is_ascii_alphanumeric() || matches!(b, b'-' | b'.' | b'_'))
        {
            (HostName::Name(host.to_ascii_lowercase()), port)
        } else {
            return Err(format!(
                "{} is not a host name (letters, digits, - . _), an IPv4 address or an IPv6 address in brackets",
                shown(text)
            ));
        }
    };
    let port = match port {
        None => None,
        Some(p) if !p.is_empty() && p.bytes().all(|b| b.is_ascii_digit()) => Some(
            p.parse::<u16>()
                .map_err(|_| format!("{}: port {p} is above 65535", shown(text)))?,
        ),
        Some(p) => {
            return Err(format!(
                "{}: port {} is not a number",
                shown(text),
                shown(p)
            ));
        }
    };
    Ok((host, port))
}

/// Parses an origin as a browser serialises it in `Origin` (RFC 6454 §6.2):
/// `scheme "://" host [":" port]`, scheme `http` or `https` (any case), no
/// path. `null` and other schemes are errors: no such origin is allowed.
pub fn parse_origin(text: &str) -> Result<Origin, String> {
    let (scheme, rest) = text
        .split_once("://")
        .ok_or_else(|| format!("{} is not an origin (scheme://host[:port])", shown(text)))?;
    let scheme = scheme.to_ascii_lowercase();
    let default_port = match scheme.as_str() {
        "http" => 80,
        "https" => 443,
        _ => {
            return Err(format!("{}: the scheme is not http or https", shown(text)));
        }
    };
    if rest.contains(['/', '?', '#', '@']) {
        return Err(format!(
            "{} is not an origin: an origin has no user, path, query or fragment",
            shown(text)
        ));
    }
    let (host, port) = parse_host(rest)?;
    Ok(Origin {
        scheme,
        host,
        port: port.unwrap_or(default_port),
    })
}

/// Parses an `http.allowed_hosts` entry: `host` (any port) or `host:port`.
pub fn parse_allowed_host(text: &str) -> Result<AllowedHost, String> {
    let (host, port) = parse_host(text)?;
    Ok(AllowedHost { host, port })
}

/// What [`with_origin_and_host_checks`] allows: from `http.listen` (the
/// bound address), `http.allowed_origins` and `http.allowed_hosts`.
#[derive(Clone, Debug)]
pub struct Guard {
    listen: SocketAddr,
    origins: Vec<(Origin, HeaderValue)>,
    hosts: Vec<AllowedHost>,
}

impl Guard {
    /// The checks for `http` (validated, so every entry parses; one that
    /// does not is left out).
    pub fn new(http: &HttpConfig) -> Guard {
        Guard {
            listen: http.listen,
            origins: http
                .allowed_origins
                .iter()
                .filter_map(|o| {
                    let value = HeaderValue::from_str(o).ok()?;
                    Some((parse_origin(o).ok()?, value))
                })
                .collect(),
            hosts: http
                .allowed_hosts
                .iter()
                .filter_map(|h| parse_allowed_host(h).ok())
                .collect(),
        }
    }

    /// True when `host` with `port` (80 when the Host names none, the http
    /// scheme's default) is a name of this gateway.
    pub fn host_allowed(&self, host: &HostName, port: Option<u16>) -> bool {
        let listening = self.listen.ip().to_canonical();
        let on_port = port.unwrap_or(80) == self.listen.port();
        let own = match host {
            HostName::Ip(ip) => {
                let ip = ip.to_canonical();
                ip == listening
                    || match listening {
                        // 0.0.0.0 takes every IPv4 address; [::] every one
                        // (Linux's dual-stack default).
                        IpAddr::V4(l) => l.is_unspecified() && ip.is_ipv4(),
                        IpAddr::V6(l) => l.is_unspecified(),
                    }
            }
            HostName::Name(n) => {
                n == "localhost" && (listening.is_loopback() || listening.is_unspecified())
            }
        };
        (own && on_port)
            || self
                .hosts
                .iter()
                .any(|a| &a.host == host && a.port.is_none_or(|p| Some(p) == port))
    }

    /// The allowed origin `text` names, as its header value.
    fn origin_allowed(&self, text: &str) -> Option<&HeaderValue> {
        let o = parse_origin(text).ok()?;
        self.origins.iter().find(|(a, _)| *a == o).map(|(_, v)| v)
    }

    /// Checks the target host of a request: `Ok` or the refusal.
    fn check_host(&self, req: &Request) -> Result<(), ApiError> {
        let hosts = req.headers().get_all(header::HOST);
        if hosts.iter().count() > 1 {
            return Err(ApiError::new(
                Mqrc::BUFFER_ERROR,
                "the request has more than one Host header (RFC 9112 §3.2)",
            ));
        }
        let text = match (req.uri().authority(), hosts.iter().next()) {
            (Some(a), _) => a.as_str().to_string(),
            (None, Some(h)) => String::from_utf8_lossy(h.as_bytes()).into_owned(),
            (None, None) if req.version() < Version::HTTP_11 => return Ok(()),
            (None, None) => {
                return Err(ApiError::new(
                    Mqrc::BUFFER_ERROR,
                    "an HTTP/1.1 request needs a Host header (RFC 9112 §3.2)",
                ));
            }
        };
        let refused = |why: String| {
            ApiError::new(
                Mqrc::NOT_AUTHORIZED,
                format!(
                    "Host {} refused: {why}; this gateway answers to {} (http.listen{}) and http.allowed_hosts (docs/http-api.md \"Origins and hosts\")",
                    shown(&text),
                    self.listen,
                    if self.listen.ip().is_loopback() || self.listen.ip().is_unspecified() {
                        ", also as localhost"
                    } else {
                        ""
                    }
                ),
            )
        };
        match parse_host(&text) {
            Ok((host, port)) if self.host_allowed(&host, port) => Ok(()),
            Ok(_) => Err(refused("not a name of this gateway".into())),
            Err(e) => Err(refused(e)),
        }
    }
}

/// `app` with the checks of [`Guard`] in front of every route (module
/// documentation): applied to the whole router, after its JSON error
/// answers.
pub fn with_origin_and_host_checks(app: Router, guard: Guard) -> Router {
    let guard = Arc::new(guard);
    app.layer(axum::middleware::from_fn(
        move |req: Request, next: Next| {
            let guard = Arc::clone(&guard);
            async move { check(&guard, req, next).await }
        },
    ))
}

async fn check(guard: &Guard, req: Request, next: Next) -> Response {
    if let Err(e) = guard.check_host(&req) {
        return e.into_response();
    }
    let Some(origin) = req.headers().get(header::ORIGIN).cloned() else {
        return next.run(req).await;
    };
    let text = String::from_utf8_lossy(origin.as_bytes()).into_owned();
    let Some(allowed) = guard.origin_allowed(&text).cloned() else {
        return ApiError::new(
            Mqrc::NOT_AUTHORIZED,
            format!(
                "Origin {} refused: cross-origin requests are accepted only from http.allowed_origins (docs/http-api.md \"Origins and hosts\")",
                shown(&text)
            ),
        )
        .into_response();
    };
    if req.method() == Method::OPTIONS
        && req
            .headers()
            .contains_key(header::ACCESS_CONTROL_REQUEST_METHOD)
    {
        return preflight(req.headers(), allowed);
    }
    let mut res = next.run(req).await;
    cors_headers(res.headers_mut(), allowed);
    res
}

/// The answer to a CORS preflight from an allowed origin (WHATWG Fetch
/// Standard, "CORS protocol"): 204 allowing GET, POST and DELETE (pams_exit) with a
/// Content-Type, for 10 minutes.
fn preflight(req: &HeaderMap, origin: HeaderValue) -> Response {
    let mut res = StatusCode::NO_CONTENT.into_response();
    let h = res.headers_mut();
    cors_headers(h, origin);
    h.insert(
        header::ACCESS_CONTROL_ALLOW_METHODS,
        HeaderValue::from_static("GET, POST, DELETE"),
    );
    if req.contains_key(header::ACCESS_CONTROL_REQUEST_HEADERS) {
        h.insert(
            header::ACCESS_CONTROL_ALLOW_HEADERS,
            HeaderValue::from_static("content-type"),
        );
    }
    h.insert(
        header::ACCESS_CONTROL_MAX_AGE,
        HeaderValue::from_static("600"),
    );
    res
}

fn cors_headers(h: &mut HeaderMap, origin: HeaderValue) {
    h.insert(header::ACCESS_CONTROL_ALLOW_ORIGIN, origin);
    h.append(header::VARY, HeaderValue::from_static("Origin"));
}

#[cfg(test)]
mod tests {
    use super::*;

    fn guard(listen: &str, origins: &[&str], hosts: &[&str]) -> Guard {
        Guard::new(&HttpConfig {
            listen: listen.parse().unwrap(),
            allowed_origins: origins.iter().map(|s| s.to_string()).collect(),
            allowed_hosts: hosts.iter().map(|s| s.to_string()).collect(),
            ..HttpConfig::default()
        })
    }

    fn allowed(g: &Guard, host: &str) -> bool {
        let (h, p) = parse_host(host).unwrap();
        g.host_allowed(&h, p)
    }

    #[test]
    fn origins_compare_by_scheme_host_and_port() {
        // RFC 6454 §5: same scheme, host and port; a missing port is the
        // scheme's default (§4 step 6).
        let a = parse_origin("HTTPS://App.Example").unwrap();
        assert_eq!(a, parse_origin("https://app.example:443").unwrap());
        assert_ne!(a, parse_origin("http://app.example").unwrap());
        assert_ne!(a, parse_origin("https://app.example:8443").unwrap());
        assert_eq!(parse_origin("http://[::1]:8080").unwrap().port, 8080);
        for bad in [
            "null",
            "app.example",
            "ftp://app.example",
            "https://app.example/",
            "https://user@app.example",
            "https://app.example:99999",
            "https://app exa",
        ] {
            assert!(parse_origin(bad).is_err(), "{bad}");
        }
    }

    #[test]
    fn hosts_are_the_listen_address_localhost_on_loopback_and_the_list() {
        let g = guard("127.0.0.1:8080", &[], &["gw.example", "proxy.example:443"]);
        assert!(allowed(&g, "127.0.0.1:8080"));
        assert!(allowed(&g, "localhost:8080"));
        assert!(allowed(&g, "LocalHost:8080"));
        assert!(!allowed(&g, "127.0.0.1:8081"));
        assert!(!allowed(&g, "127.0.0.1"), "no port is port 80");
        assert!(!allowed(&g, "127.0.0.2:8080"));
        assert!(!allowed(&g, "evil.example:8080"));
        assert!(allowed(&g, "gw.example"));
        assert!(allowed(&g, "GW.example:9999"));
        assert!(allowed(&g, "proxy.example:443"));
        assert!(!allowed(&g, "proxy.example"));
        // Not on loopback: no localhost.
        let g = guard("192.0.2.7:8080", &[], &[]);
        assert!(allowed(&g, "192.0.2.7:8080"));
        assert!(!allowed(&g, "localhost:8080"));
        // Every address: any IP literal with the port, and localhost.
        let g = guard("0.0.0.0:8080", &[], &[]);
        assert!(allowed(&g, "192.0.2.7:8080"));
        assert!(allowed(&g, "localhost:8080"));
        assert!(!allowed(&g, "[::1]:8080"));
        let g = guard("[::1]:8080", &[], &[]);
        assert!(allowed(&g, "[::1]:8080"));
        assert!(allowed(&g, "localhost:8080"));
        assert!(!allowed(&g, "127.0.0.1:8080"));
        for bad in ["", ":80", "a b", "[::1", "[::1]x", "h:x", "h:70000"] {
            assert!(parse_host(bad).is_err(), "{bad:?}");
        }
    }
}

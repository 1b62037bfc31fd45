//! HTTP authentication and authorities (docs/security.md).
//!
//! - [`with_authentication`]: every request except `GET /healthz`,
//!   `GET /readyz` (and `GET /metrics` with `security.metrics_open`) carries
//!   `Authorization: Bearer TOKEN` (RFC 6750 §2.1); a missing or unknown
//!   token is answered 401 with `WWW-Authenticate: Bearer realm="mqgate"`
//!   (RFC 6750 §3; `error="invalid_token"` for a token that is not known)
//!   and 2035 MQRC_NOT_AUTHORIZED in the JSON error body. The request then
//!   carries its [`Principal`] as an extension. Over HTTPS with client
//!   certificates (`http.tls.client_auth`), a request without
//!   `Authorization` whose connection presented a certificate mapped by
//!   `security.certificates` carries that mapping's principal instead
//!   (docs/security.md "Client certificates").
//! - [`authorize`]: for the queue routes, the object and authority each
//!   route needs, checked by the queue interface ([`crate::mqi::Mqi::authorize`]);
//!   refused: 403 with 2035. Names are taken as the handlers take them
//!   (axum's percent-decoded path parameters), so no encoding reaches an
//!   object the check did not see.

use super::{AppState, error_body};
use crate::mqi::QmError;
use crate::security::credentials::CurrentCredentials;
use crate::security::tls::SslPeer;
use crate::security::{Authority, ObjectType, Principal};
use axum::Json;
use axum::Router;
use axum::extract::{MatchedPath, Path, Request, State};
use axum::http::{HeaderValue, Method, StatusCode, header};
use axum::middleware::Next;
use axum::response::{IntoResponse, Response};
use mqgate_codecs::mq::Mqrc;
use std::collections::HashMap;
use std::sync::Arc;

/// The subject DN of the verified client certificate of the request's
/// connection (RFC 4514 string, src/security/tls/dn.rs), put on each
/// request by the HTTPS server.
#[derive(Clone, Debug)]
pub struct ClientCertificate(pub Arc<str>);

/// Who may call: the tokens, the client certificate mappings, and whether
/// `/metrics` is open.
#[derive(Clone)]
pub struct Authentication {
    /// The accepted tokens and their grants, replaced together by a reload.
    pub credentials: Arc<CurrentCredentials>,
    /// Client certificate filters and their principals, first match wins.
    pub certificates: Arc<Vec<(SslPeer, Principal)>>,
    /// `GET /metrics` without a token.
    pub metrics_open: bool,
}

/// `app` with every request authenticated by `auth` (see the module).
pub fn with_authentication(app: Router, auth: Authentication) -> Router {
    app.layer(axum::middleware::from_fn_with_state(
        Arc::new(auth),
        authenticate,
    ))
}

/// Paths answered without a token: liveness and readiness probes carry no
/// data, and an orchestrator must reach them (docs/security.md "Open
/// routes").
fn is_open(auth: &Authentication, method: &Method, path: &str) -> bool {
    let probe = matches!(path, "/healthz" | "/readyz") || (auth.metrics_open && path == "/metrics");
    probe && (method == Method::GET || method == Method::HEAD)
}

async fn authenticate(
    State(auth): State<Arc<Authentication>>,
    mut req: Request,
    next: Next,
) -> Response {
    if is_open(&auth, req.method(), req.uri().path()) {
        return next.run(req).await;
    }
    // One look at the credentials: the principal carries the grants that
    // went with the tokens it was authenticated against.
    let now = auth.credentials.get();
    let mut values = req.headers().get_all(header::AUTHORIZATION).iter();
    let (first, second) = (values.next(), values.next());
    let token = match (first, second) {
        (None, _) => {
            let dn = req
                .extensions()
                .get::<ClientCertificate>()
                .map(|c| c.0.clone());
            let mapped = dn
                .as_deref()
                .and_then(|dn| certificate_principal(&auth, dn))
                .map(|p| p.with_grants(Arc::clone(&now.authorities)));
            return match (mapped, dn) {
                (Some(p), _) => {
                    req.extensions_mut().insert(p);
                    next.run(req).await
                }
                // The operator's likely mistake is the mapping: name the DN.
                (None, Some(dn)) => unauthorized(
                    None,
                    &format!(
                        "the client certificate's subject DN {dn:?} maps to no principal \
                         (security.certificates) and the request has no Authorization: Bearer token"
                    ),
                ),
                (None, None) => {
                    unauthorized(None, "the request has no Authorization: Bearer token")
                }
            };
        }
        (Some(_), Some(_)) => {
            return unauthorized(
                Some("invalid_request"),
                "the request has more than one Authorization header",
            );
        }
        (Some(v), None) => match bearer_token(v.as_bytes()) {
            Some(t) => t,
            None => {
                return unauthorized(
                    Some("invalid_request"),
                    "the Authorization header is not `Bearer TOKEN`",
                );
            }
        },
    };
    match now.authenticate(token) {
        Some(p) => {
            req.extensions_mut().insert(p);
            next.run(req).await
        }
        None => unauthorized(Some("invalid_token"), "the bearer token is not known"),
    }
}

/// The principal of the first `security.certificates` entry whose filter
/// the client certificate's subject DN `dn` passes.
fn certificate_principal(auth: &Authentication, dn: &str) -> Option<Principal> {
    auth.certificates
        .iter()
        .find(|(filter, _)| filter.matches(dn))
        .map(|(_, p)| p.clone())
}

/// The token of an `Authorization` value `Bearer TOKEN`: the scheme in any
/// case (RFC 9110 §11.1), one or more spaces, then RFC 6750 §2.1's b64token
/// (letters, digits, `-._~+/`, then `=` padding).
pub fn bearer_token(value: &[u8]) -> Option<&str> {
    let text = std::str::from_utf8(value).ok()?;
    let (scheme, rest) = text.split_once(' ')?;
    if !scheme.eq_ignore_ascii_case("Bearer") {
        return None;
    }
    let token = rest.trim_start_matches(' ');
    let body = token.trim_end_matches('=');
    let ok = !body.is_empty()
        && body.bytes().all(|b| {
            b.is_ascii_alphanumeric() || matches!(b, b'-' | b'.' | b'_' | b'~' | b'+' | b'/')
        });
    ok.then_some(token)
}

/// 401 with `WWW-Authenticate: Bearer realm="mqgate"[, error="..."]`
/// (RFC 6750 §3) and 2035 in the body.
fn unauthorized(error: Option<&str>, message: &str) -> Response {
    let challenge = match error {
        Some(e) => format!("Bearer realm=\"mqgate\", error=\"{e}\""),
        None => "Bearer realm=\"mqgate\"".to_string(),
    };
    let mut res = (
        StatusCode::UNAUTHORIZED,
        Json(error_body(Mqrc::NOT_AUTHORIZED, message)),
    )
        .into_response();
    if let Ok(v) = HeaderValue::from_str(&challenge) {
        res.headers_mut().insert(header::WWW_AUTHENTICATE, v);
    }
    res
}

/// The route layer of the queue routes (src/http/mod.rs): checks the
/// authority each route needs before its handler runs.
pub async fn authorize(
    State(s): State<AppState>,
    matched: Option<MatchedPath>,
    params: Option<Path<HashMap<String, String>>>,
    req: Request,
    next: Next,
) -> Response {
    if !s.mqi.checks_authorities() {
        return next.run(req).await;
    }
    let principal = req.extensions().get::<Principal>().cloned();
    let params = params.map(|Path(p)| p).unwrap_or_default();
    let route = matched.as_ref().map(|m| m.as_str()).unwrap_or_default();
    let query: Vec<(String, String)> =
        form_urlencoded::parse(req.uri().query().unwrap_or_default().as_bytes())
            .into_owned()
            .collect();
    match check_route(&s, principal.as_ref(), route, &params, &query) {
        Ok(()) => next.run(req).await,
        Err(e) => super::ApiError(e).into_response(),
    }
}

fn param<'a>(params: &'a HashMap<String, String>, k: &str) -> &'a str {
    params.get(k).map(String::as_str).unwrap_or_default()
}

/// The object and authority of each queue route (docs/security.md
/// "Authorities": the table).
fn check_route(
    s: &AppState,
    p: Option<&Principal>,
    route: &str,
    params: &HashMap<String, String>,
    query: &[(String, String)],
) -> Result<(), QmError> {
    let mqi = &s.mqi;
    let q = param(params, "q");
    match route {
        "/v1/status" | "/v1/queues" => {
            mqi.authorize(p, ObjectType::Qmgr, mqi.q_mgr_name(), Authority::Inq)
        }
        "/v1/queues/{q}/messages" => {
            let q_mgrs: Vec<&str> = query
                .iter()
                .filter(|(k, _)| k == "q_mgr")
                .map(|(_, m)| m.as_str())
                .collect();
            if q_mgrs.is_empty() {
                return authorize_put(s, p, q, "");
            }
            for m in q_mgrs {
                authorize_put(s, p, q, m)?;
            }
            Ok(())
        }
        "/v1/queues/{q}/messages/next" => {
            let browse = query.iter().any(|(k, v)| k == "browse" && v == "true");
            let a = if browse {
                Authority::Browse
            } else {
                Authority::Get
            };
            mqi.authorize(p, ObjectType::Queue, q, a)
        }
        "/v1/queues/{q}/messages/ack/{lease}" | "/v1/queues/{q}/messages/backout/{lease}" => {
            mqi.authorize(p, ObjectType::Queue, q, Authority::Get)
        }
        "/v1/devices/{qmgr}/queues/{queue}/messages/next"
        | "/v1/devices/{qmgr}/queues/{queue}/messages/ack/{lease}" => mqi.authorize_device(
            p,
            param(params, "qmgr"),
            param(params, "queue"),
            Authority::Get,
        ),
        "/v1/channels/{name}/start" => mqi.authorize(
            p,
            ObjectType::Channel,
            param(params, "name"),
            Authority::Ctrl,
        ),
        // Units of work and list puts: the puts and gets they hold are
        // checked one by one (list puts in src/http/lists.rs).
        _ => Ok(()),
    }
}

/// An authority a route needs: object type, object name, authority.
pub type Need = (ObjectType, String, Authority);

/// The authorities each route of a router needs, from its route pattern
/// (`/v1/rtq/{group}/{queue}/next`) and its decoded path parameters; a
/// route not named needs none beyond its token.
pub type Needs = Arc<dyn Fn(&str, &HashMap<String, String>) -> Vec<Need> + Send + Sync>;

#[derive(Clone)]
struct RouteChecks {
    mqi: crate::mqi::Mqi,
    needs: Needs,
}

/// `router` with each route's [`Needs`] checked by the queue interface
/// ([`crate::mqi::Mqi::authorize`]) before its handler runs, for the
/// routes of the other front ends (Tuxedo, RPC, PAMS); refused: 403 with
/// 2035 in the JSON error body. Unchanged when authorities are not checked.
pub fn with_route_authorities(router: Router, mqi: &crate::mqi::Mqi, needs: Needs) -> Router {
    if !mqi.checks_authorities() {
        return router;
    }
    let checks = RouteChecks {
        mqi: mqi.clone(),
        needs,
    };
    router.route_layer(axum::middleware::from_fn_with_state(checks, check_needs))
}

async fn check_needs(
    State(c): State<RouteChecks>,
    matched: Option<MatchedPath>,
    params: Option<Path<HashMap<String, String>>>,
    req: Request,
    next: Next,
) -> Response {
    let principal = req.extensions().get::<Principal>().cloned();
    let params = params.map(|Path(p)| p).unwrap_or_default();
    let route = matched.as_ref().map(|m| m.as_str()).unwrap_or_default();
    for (t, name, a) in (c.needs)(route, &params) {
        if let Err(e) = c.mqi.authorize(principal.as_ref(), t, &name, a) {
            return super::ApiError(e).into_response();
        }
    }
    next.run(req).await
}

/// The authority a put to queue `q` of queue manager `q_mgr` needs: +put
/// on the queue when `q_mgr` is empty or names this queue manager; +put on
/// the other queue manager alone (setmqaut `-t rqmname`) when it names
/// another one (a device, or one reached by a transmission queue), as IBM
/// MQ "Authorizations for MQI calls" checks an MQOPEN of a remote queue by
/// its queue manager, not by the queue's name there.
pub fn authorize_put(
    s: &AppState,
    p: Option<&Principal>,
    q: &str,
    q_mgr: &str,
) -> Result<(), QmError> {
    if q_mgr.is_empty() || q_mgr == s.mqi.q_mgr_name() {
        return s.mqi.authorize(p, ObjectType::Queue, q, Authority::Put);
    }
    s.mqi
        .authorize(p, ObjectType::Rqmname, q_mgr, Authority::Put)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn bearer_values_are_read_as_rfc_6750_says() {
        // RFC 6750 §2.1: credentials = "Bearer" 1*SP b64token.
        assert_eq!(
            bearer_token(b"Bearer abc.DEF-_~+/=="),
            Some("abc.DEF-_~+/==")
        );
        assert_eq!(bearer_token(b"bearer  t0k"), Some("t0k"));
        assert_eq!(bearer_token(b"Basic dXNlcjpwdw=="), None);
        assert_eq!(bearer_token(b"Bearer"), None);
        assert_eq!(bearer_token(b"Bearer "), None);
        assert_eq!(bearer_token(b"Bearer a b"), None);
        assert_eq!(bearer_token(b"Bearer =="), None);
    }
}

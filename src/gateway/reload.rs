//! Reloading the configuration while the gateway runs (SIGHUP in `mqgate
//! run`, docs/operations.md "Reloading the configuration"): the new file
//! is checked exactly as `mqgate check-config` checks it
//! ([`super::check`]); with any error nothing changes and every error is
//! logged with its file, line and column. A valid file's queue definitions,
//! channels, exits, devices, server-connection channels and security
//! settings (tokens, authorities, channel authentication rules, limits)
//! are put in force at once; every other setting that
//! differs is reported as needing a restart and left as it is.

use super::Handle;
use crate::config::{ChannelDef, Config, QueueDef};
use crate::qmgr::{QueueManager, Redefined};
use crate::security::chlauth::ChannelRules;
use crate::security::credentials::{Credentials, CurrentCredentials};
use crate::security::limits::Limits;
use std::fmt;
use std::path::{Path, PathBuf};
use std::sync::{Arc, Mutex};

/// What a reload changed ([`Handle::reload`]).
#[derive(Debug, Default, Clone)]
pub struct ReloadReport {
    /// The queue definitions defined, altered, deleted and kept.
    pub queues: Redefined,
    /// Channels added (started; a receiver accepts its sender), removed
    /// (stopped after the current batch) and changed (restarted), by name.
    pub channels: ChannelChanges,
    /// The TLS settings whose certificate files could not be read again
    /// (they keep their old certificates), with the error; every other
    /// TLS listener and outbound connection has its files read again
    /// (docs/security.md "Reloading certificates").
    pub certificates_failed: Vec<String>,
    /// Whether any `tls:` setting is in force; without one the summary says
    /// `certificates none` (nothing was read again).
    pub certificates_in_use: bool,
    /// The `exits:` section changed: put in force for new work, every
    /// outbound channel restarted with it.
    pub exits: bool,
    /// The `devices:` section changed: its device queue manager patterns
    /// and MAXDEPTH are in force ([`QueueManager::redefine_devices`]).
    pub devices: bool,
    /// The `svrconn:` settings other than `listen` and `tls` changed: in
    /// force for MQ client sockets accepted from now on.
    pub svrconn: bool,
    /// The security settings put in force, e.g. `tokens 3`, `grants 5`,
    /// `chlauth rules 2`, `limits`; empty when none is configured.
    pub security: Vec<String>,
    /// The top-level settings (`http`, `channels`, `queue_manager`, ...)
    /// that differ from those in force but change only with a restart;
    /// the running gateway keeps its own.
    pub needs_restart: Vec<String>,
}

/// The channels a reload started, stopped and restarted.
#[derive(Debug, Default, Clone, PartialEq, Eq)]
pub struct ChannelChanges {
    /// New channels.
    pub started: Vec<String>,
    /// Channels gone from the file.
    pub stopped: Vec<String>,
    /// Channels whose definition changed.
    pub restarted: Vec<String>,
}

impl fmt::Display for ReloadReport {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let q = &self.queues;
        let list = |v: &[String]| {
            if v.is_empty() {
                "none".to_string()
            } else {
                v.join(",")
            }
        };
        let kept: Vec<String> = q.kept.iter().map(|(n, _)| n.clone()).collect();
        write!(
            f,
            "queues defined {}, altered {}, deleted {}, kept {}; channels started {}, stopped {}, restarted {}; exits {}; devices {}; svrconn {}; security {}; certificates {}; needs a restart {}",
            list(&q.defined),
            list(&q.altered),
            list(&q.deleted),
            list(&kept),
            list(&self.channels.started),
            list(&self.channels.stopped),
            list(&self.channels.restarted),
            if self.exits { "reloaded" } else { "unchanged" },
            if self.devices {
                "reloaded"
            } else {
                "unchanged"
            },
            if self.svrconn {
                "reloaded"
            } else {
                "unchanged"
            },
            // The security items are phrases (`tokens 2`, `grants 3`), so
            // they take the separator of docs/operations.md's example line.
            if self.security.is_empty() {
                "none".to_string()
            } else {
                self.security.join(", ")
            },
            if !self.certificates_in_use {
                "none".to_string()
            } else if self.certificates_failed.is_empty() {
                "reloaded".to_string()
            } else {
                format!("not reloaded for {}", self.certificates_failed.join(", "))
            },
            list(&self.needs_restart)
        )
    }
}

/// What a reload changes in a running gateway, and the configuration in
/// force (as read from its file and checked, before listen ports 0 were
/// replaced by the ports bound).
pub(super) struct Live {
    qm: Arc<QueueManager>,
    exits: Arc<crate::mqi::QueueExits>,
    /// Every TLS listener and outbound connection: their certificate files
    /// are read again by each valid reload.
    tls: crate::security::tls::TlsEndpoints,
    /// The tokens and authorities, one value replaced in one step; `None`
    /// when the gateway started without tokens (the HTTP API without
    /// authentication).
    credentials: Option<Arc<CurrentCredentials>>,
    channel_rules: Arc<ChannelRules>,
    limits: Arc<Limits>,
    /// Held for a whole reload, so two reloads never interleave.
    in_force: Mutex<InForce>,
    /// Set once the channels run ([`Live::set_channels`]).
    channels: std::sync::OnceLock<Channels>,
    /// The MQ client listener's service, once it runs
    /// ([`Live::set_svrconn`]).
    svrconn: std::sync::OnceLock<Arc<crate::svrconn::Service>>,
    /// The file `POST /v1/admin/reload` reads, with its adjustment
    /// ([`Handle::set_reload_file`]); `None`: the route answers 404.
    source: Mutex<Option<Source>>,
}

/// A configuration file and the change made to what is read from it.
type Source = (PathBuf, Arc<dyn Fn(&mut Config) + Send + Sync>);

/// The running channels.
struct Channels {
    receivers: Arc<crate::channel::receiver::Receivers>,
    outbound: Arc<super::outbound::Outbound>,
    /// Sender channels that are fault tolerance roles: they change with a
    /// restart only.
    roles: Vec<String>,
}

struct InForce {
    config: Config,
    /// The queue definitions in force: the configuration's, plus those a
    /// reload could not delete because their queue held messages.
    queues: Vec<QueueDef>,
}

impl Live {
    pub(super) fn new(
        config: Config,
        qm: &Arc<QueueManager>,
        exits: &Arc<crate::mqi::QueueExits>,
        tls: &crate::security::tls::TlsEndpoints,
        security: Option<&crate::http::auth::Authentication>,
        channel_rules: &Arc<ChannelRules>,
        limits: &Arc<Limits>,
    ) -> Live {
        let queues = config.effective_queues();
        Live {
            qm: Arc::clone(qm),
            exits: Arc::clone(exits),
            tls: tls.clone(),
            credentials: security.map(|a| Arc::clone(&a.credentials)),
            channel_rules: Arc::clone(channel_rules),
            limits: Arc::clone(limits),
            in_force: Mutex::new(InForce { config, queues }),
            channels: std::sync::OnceLock::new(),
            svrconn: std::sync::OnceLock::new(),
            source: Mutex::new(None),
        }
    }

    /// Records the running channels, which a reload changes.
    pub(super) fn set_channels(
        &self,
        receivers: Arc<crate::channel::receiver::Receivers>,
        outbound: Arc<super::outbound::Outbound>,
        roles: Vec<String>,
    ) {
        let _ = self.channels.set(Channels {
            receivers,
            outbound,
            roles,
        });
    }

    /// Records the MQ client listener's service, whose settings a reload
    /// changes.
    pub(super) fn set_svrconn(&self, svc: Arc<crate::svrconn::Service>) {
        let _ = self.svrconn.set(svc);
    }

    /// Puts the `svrconn:` settings of `new` but `listen` and `tls` in
    /// force for later sockets; true when they differ from `old`'s.
    fn apply_svrconn(&self, old: &Config, new: &Config) -> bool {
        let (Some(o), Some(n), Some(svc)) = (&old.svrconn, &new.svrconn, self.svrconn.get()) else {
            return false;
        };
        let mut n = n.clone();
        n.listen = o.listen;
        n.tls = o.tls.clone();
        if format!("{o:?}") == format!("{n:?}") {
            return false;
        }
        svc.replace_config(n);
        true
    }

    /// Puts the channels of `new` in force; a change to a fault tolerance
    /// role's channel is left for a restart (named in `needs_restart`).
    fn apply_channels(
        &self,
        old: &[ChannelDef],
        new: &[ChannelDef],
        exits: Option<&mqgate_exits::ExitsConfig>,
        needs_restart: &mut Vec<String>,
    ) -> ChannelChanges {
        let mut out = ChannelChanges::default();
        let Some(c) = self.channels.get() else {
            return out;
        };
        let mut wanted: Vec<ChannelDef> = new.to_vec();
        for role in &c.roles {
            let before = old.iter().find(|d| d.name() == role);
            let after = new.iter().find(|d| d.name() == role);
            if format!("{before:?}") != format!("{after:?}") {
                needs_restart.push(format!("channels ({role}: a fault tolerance role)"));
            }
            wanted.retain(|d| d.name() != role);
            wanted.extend(before.cloned());
        }
        let receivers: Vec<_> = wanted
            .iter()
            .filter_map(|d| match d {
                ChannelDef::Receiver(r) => Some(r.clone()),
                _ => None,
            })
            .collect();
        if let Some(e) = exits {
            c.receivers.replace_exits(e);
        }
        let (added, removed, changed) = c.receivers.redefine(&receivers);
        let outbound: Vec<ChannelDef> = wanted
            .iter()
            .filter(|d| {
                !matches!(d, ChannelDef::Receiver(_)) && !c.roles.iter().any(|r| r == d.name())
            })
            .cloned()
            .collect();
        let (started, stopped, restarted) = c.outbound.redefine(&outbound, exits);
        out.started = added.into_iter().chain(started).collect();
        out.stopped = removed.into_iter().chain(stopped).collect();
        out.restarted = changed.into_iter().chain(restarted).collect();
        out
    }

    /// See [`Handle::reload`].
    pub(super) fn reload(
        &self,
        file: &Path,
        adjust: impl FnOnce(&mut Config),
    ) -> Result<ReloadReport, Vec<String>> {
        let mut in_force = self.in_force.lock().unwrap_or_else(|p| p.into_inner());
        let result = Config::load(file)
            .map_err(|e| e.to_string().lines().map(str::to_string).collect())
            .and_then(|mut c| {
                adjust(&mut c);
                super::check::check_loaded(file, c)
            })
            .and_then(|checked| {
                let security = Security::of(&checked.config).map_err(|(path, message)| {
                    crate::config::ConfigErrors::placed(file, vec![(path, message)])
                        .to_string()
                        .lines()
                        .map(str::to_string)
                        .collect::<Vec<_>>()
                })?;
                Ok((checked.config, security))
            });
        let (config, security) = match result {
            Ok(v) => v,
            Err(errors) => {
                for e in &errors {
                    tracing::error!(file = %file.display(), "configuration not reloaded: {e}");
                }
                tracing::error!(
                    file = %file.display(),
                    errors = errors.len(),
                    "configuration not reloaded: the running configuration stays"
                );
                return Err(errors);
            }
        };
        let mut report = ReloadReport {
            needs_restart: needs_restart(&in_force.config, &config, self.credentials.is_some()),
            ..ReloadReport::default()
        };
        let new_queues = config.effective_queues();
        report.queues = self.qm.redefine(&in_force.queues, &new_queues);
        let mut queues = new_queues;
        for (name, _) in &report.queues.kept {
            if let Some(old) = in_force.queues.iter().find(|d| d.name() == name) {
                queues.retain(|d| d.name() != name);
                queues.push(old.clone());
            }
        }
        // After the queues: a new channel's transmission queue exists.
        // Exits: for new work (queues opened, channel connections started
        // from now on); the RPC bridge's and the Tuxedo gateway's chains
        // (`rpc.exits`, in their own sections) change with a restart.
        let exits_changed = format!("{:?}", in_force.config.exits) != format!("{:?}", config.exits);
        if exits_changed {
            self.exits.replace_config(&config.exits);
            report.exits = true;
        }
        report.devices = format!("{:?}", in_force.config.devices)
            != format!("{:?}", config.devices)
            && self.qm.redefine_devices(&config.devices);
        report.svrconn = self.apply_svrconn(&in_force.config, &config);
        report.channels = self.apply_channels(
            &in_force.config.channels,
            &config.channels,
            exits_changed.then_some(&config.exits),
            &mut report.needs_restart,
        );
        report.security = self.apply_security(security);
        report.certificates_in_use = !self.tls.is_empty();
        report.certificates_failed = crate::security::tls::reload_certificates(&self.tls)
            .into_iter()
            .map(|(setting, e)| format!("{setting}: {e}"))
            .collect();
        for (name, why) in &report.queues.kept {
            tracing::warn!(queue = %name, reason = why.mqrc.0, "queue kept: {why}");
        }
        for s in &report.needs_restart {
            tracing::warn!(setting = %s, "configuration reload: {s} changed; it takes effect at the next start");
        }
        tracing::info!(file = %file.display(), "configuration reloaded: {report}");
        *in_force = InForce { config, queues };
        Ok(report)
    }

    /// Puts `s` in force; what was replaced.
    fn apply_security(&self, s: Security) -> Vec<String> {
        let mut out = Vec::new();
        if let (Some(credentials), Some(new)) = (&self.credentials, s.credentials) {
            out.push(format!("tokens {}", new.tokens.len()));
            out.push(format!("grants {}", s.grants));
            credentials.set(new);
        }
        out.push(format!("chlauth rules {}", s.rules));
        self.channel_rules.replace(s.channel_rules);
        out.push("limits".into());
        self.limits.replace_config(s.limits);
        out
    }
}

/// The security settings of a new configuration, built (and so checked)
/// before any is put in force.
struct Security {
    credentials: Option<Credentials>,
    grants: usize,
    channel_rules: ChannelRules,
    rules: usize,
    limits: crate::security::limits::LimitsConfig,
}

impl Security {
    /// Errors: (setting path, message).
    fn of(c: &Config) -> Result<Security, (String, String)> {
        let s = &c.security;
        let split = |e: String| match e.split_once(": ") {
            Some((path, message)) if path.starts_with("security") => {
                (path.to_string(), message.to_string())
            }
            _ => ("security".to_string(), e),
        };
        let credentials = if s.has_credentials() {
            Some(Credentials::from_config(s).map_err(split)?)
        } else {
            None
        };
        Ok(Security {
            credentials,
            grants: s.authorities.len(),
            channel_rules: ChannelRules::new(&s.chlauth).map_err(split)?,
            rules: s.chlauth.len(),
            limits: s.limits.clone(),
        })
    }
}

/// The settings of `new` that differ from `old` and that a reload does not
/// put in force. Sections are compared by their `Debug` text: every
/// section derives `Debug`, not every one `PartialEq`.
fn needs_restart(old: &Config, new: &Config, authenticating: bool) -> Vec<String> {
    fn differs<T: fmt::Debug>(a: &T, b: &T) -> bool {
        format!("{a:?}") != format!("{b:?}")
    }
    let mut out = Vec::new();
    let mut check = |name: &str, changed: bool| {
        if changed {
            out.push(name.to_string());
        }
    };
    check(
        "queue_manager",
        differs(&old.queue_manager, &new.queue_manager),
    );
    check("storage", differs(&old.storage, &new.storage));
    check("http", differs(&old.http, &new.http));
    check("listener", differs(&old.listener, &new.listener));
    check("dmconfig", differs(&old.dmconfig, &new.dmconfig));
    check("tedg", differs(&old.tedg, &new.tedg));
    check("rpc", differs(&old.rpc, &new.rpc));
    check("messageq", differs(&old.messageq, &new.messageq));
    check("rv", differs(&old.rv, &new.rv));
    check("mqtt", differs(&old.mqtt, &new.mqtt));
    check(
        "fault_tolerance",
        differs(&old.fault_tolerance, &new.fault_tolerance),
    );
    match (&old.svrconn, &new.svrconn) {
        (Some(o), Some(n)) => {
            check("svrconn.listen", o.listen != n.listen);
            check("svrconn.tls", differs(&o.tls, &n.tls));
        }
        (o, n) => check("svrconn", o.is_some() != n.is_some()),
    }
    check("bus", differs(&old.bus, &new.bus));
    let (o, n) = (&old.security, &new.security);
    check(
        "security (HTTP authentication on or off)",
        authenticating != n.has_credentials(),
    );
    check(
        "security.certificates",
        differs(&o.certificates, &n.certificates),
    );
    check("security.metrics_open", o.metrics_open != n.metrics_open);
    check("security.insecure", o.insecure != n.insecure);
    out
}

impl Handle {
    /// Reloads the configuration from `file` (what SIGHUP does in `mqgate
    /// run`; docs/operations.md "Reloading the configuration"). `adjust`
    /// changes the configuration read before it is checked (the options of
    /// `mqgate run` that override settings of the file).
    ///
    /// The file is checked as `mqgate check-config` checks it; errors: each
    /// problem as `FILE:LINE:COLUMN: message`, also logged at ERROR, and
    /// nothing changed. A valid file's queue definitions are put in force
    /// ([`QueueManager::redefine`]: defined, altered, deleted when empty,
    /// else kept with 2055), its channels, exits, `devices` and `svrconn`
    /// settings (but its listen address and TLS) are put in force, its
    /// tokens (the tokens file read again) and authorities replace the
    /// running ones together in one step, its channel authentication rules
    /// and limits each in one step, the certificate files of every TLS setting are
    /// read again ([`Handle::reload_tls`]); settings that need a restart are listed in
    /// the report and logged at WARN, and one INFO line sums the reload
    /// up. After [`Handle::stop`]: `Err` naming that.
    pub fn reload(
        &self,
        file: &Path,
        adjust: impl FnOnce(&mut Config),
    ) -> Result<ReloadReport, Vec<String>> {
        match &self.running {
            Some(r) => r.live.reload(file, adjust),
            None => Err(vec!["the gateway is stopped".into()]),
        }
    }
}

impl Handle {
    /// Names the file `POST /v1/admin/reload` reloads and the change
    /// `adjust` makes to what is read from it (as [`Handle::reload`]).
    pub fn set_reload_file(
        &self,
        file: PathBuf,
        adjust: impl Fn(&mut Config) + Send + Sync + 'static,
    ) {
        if let Some(r) = &self.running {
            *r.live.source.lock().unwrap_or_else(|p| p.into_inner()) =
                Some((file, Arc::new(adjust)));
        }
    }
}

impl ReloadReport {
    /// The report as `POST /v1/admin/reload` answers it (docs/http-api.md
    /// "Reloading the configuration").
    pub fn to_json(&self) -> serde_json::Value {
        let q = &self.queues;
        serde_json::json!({
            "queues": {
                "defined": q.defined,
                "altered": q.altered,
                "deleted": q.deleted,
                "kept": q.kept.iter().map(|(name, e)| serde_json::json!({
                    "name": name,
                    "mqrc": e.mqrc.0,
                    "reason": e.mqrc.name(),
                    "message": e.message,
                })).collect::<Vec<_>>(),
            },
            "channels": {
                "started": self.channels.started,
                "stopped": self.channels.stopped,
                "restarted": self.channels.restarted,
            },
            "exits_reloaded": self.exits,
            "devices_reloaded": self.devices,
            "svrconn_reloaded": self.svrconn,
            "certificates_failed": self.certificates_failed,
            "security": self.security,
            "needs_restart": self.needs_restart,
        })
    }
}

/// `POST /v1/admin/reload`: reloads the file of [`Handle::set_reload_file`]
/// as SIGHUP does; 200 with the report's JSON, 400 with
/// `{"errors": ["FILE:LINE:COLUMN: message", ...]}` and nothing changed,
/// 404 when the gateway runs without a file. Needs +ctrl on the queue
/// manager when authorities are checked (docs/security.md "Authorities").
pub(super) fn routes(live: &Arc<Live>, mqi: &crate::mqi::Mqi) -> axum::Router {
    use crate::security::{Authority, ObjectType};
    use axum::http::StatusCode;
    use axum::response::IntoResponse;
    let state = Arc::clone(live);
    let router = axum::Router::new()
        .route(
            "/v1/admin/reload",
            axum::routing::post(
                |axum::extract::State(live): axum::extract::State<Arc<Live>>| async move {
                    let source = live.source.lock().unwrap_or_else(|p| p.into_inner()).clone();
                    let Some((file, adjust)) = source else {
                        return (
                            StatusCode::NOT_FOUND,
                            axum::Json(serde_json::json!({
                                "errors": ["mqgate runs without a configuration file: nothing to reload"]
                            })),
                        )
                            .into_response();
                    };
                    let done = tokio::task::spawn_blocking(move || {
                        live.reload(&file, |c| adjust(c))
                    })
                    .await;
                    match done {
                        Ok(Ok(report)) => axum::Json(report.to_json()).into_response(),
                        Ok(Err(errors)) => (
                            StatusCode::BAD_REQUEST,
                            axum::Json(serde_json::json!({ "errors": errors })),
                        )
                            .into_response(),
                        Err(e) => (
                            StatusCode::INTERNAL_SERVER_ERROR,
                            axum::Json(serde_json::json!({
                                "errors": [format!("the reload task failed: {e}")]
                            })),
                        )
                            .into_response(),
                    }
                },
            ),
        )
        .with_state(state);
    let q_mgr = mqi.q_mgr_name().to_string();
    crate::http::auth::with_route_authorities(
        router,
        mqi,
        Arc::new(move |route, _| match route {
            "/v1/admin/reload" => vec![(ObjectType::Qmgr, q_mgr.clone(), Authority::Ctrl)],
            _ => Vec::new(),
        }),
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The summary line's security part reads as the example line of
    /// docs/operations.md "Reloading the configuration":
    /// `security tokens 2, grants 3, chlauth rules 0, limits;`.
    #[test]
    fn report_security_items_are_separated_as_documented() {
        let report = ReloadReport {
            security: vec![
                "tokens 2".into(),
                "grants 3".into(),
                "chlauth rules 0".into(),
                "limits".into(),
            ],
            ..ReloadReport::default()
        };
        let line = report.to_string();
        assert!(
            line.contains("; security tokens 2, grants 3, chlauth rules 0, limits; "),
            "{line}"
        );
    }
}

//! The CM transports of one gateway, by correspondent name
//! (docs/rendezvous.md "Certified delivery", "Transports"): made and
//! closed by programs (the HTTP API), persistent ones reopened when the
//! gateway starts, idle ones closed.
//!
//! A persistent correspondent (a reusable name with a store ledger,
//! "tibrvcmTransport_Create()") lives until it is closed, across restarts;
//! any other transport lives while its client uses it: it closes after
//! its idle timeout without a call and without an open listener, as an
//! HTTP client has no process whose end the gateway could see.

use std::collections::HashMap;
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Arc, Mutex, MutexGuard};
use std::time::Duration;

use mqgate_codecs::rv::{NameKind, check_reusable_name};

use super::error::CmError;
use super::record::{self, TransportRecord};
use super::transport::{CmTransport, LedgerKind, Settings};
use crate::mqi::Mqi;
use crate::rv::Bus;

/// Default interval of DELIVERY.NO_RESPONSE, seconds.
pub const DEFAULT_NO_RESPONSE_S: f64 = 60.0;
/// Default idle timeout of a transport that is not persistent, ms.
pub const DEFAULT_IDLE_TIMEOUT_MS: u64 = 60_000;
/// Shortest and longest idle timeout a client may ask for, ms.
pub const IDLE_TIMEOUT_RANGE_MS: (u64, u64) = (1_000, 86_400_000);
/// How often idle transports are looked for.
const SWEEP: Duration = Duration::from_secs(1);

/// How to make a transport.
#[derive(Clone, Debug, PartialEq)]
pub struct CreateOptions {
    /// A reusable correspondent name; `None`: a generated, unique,
    /// non-reusable one.
    pub name: Option<String>,
    /// Where the ledger is.
    pub ledger: LedgerKind,
    /// `requestOld`.
    pub request_old: bool,
    /// Default time limit, seconds (0 = none).
    pub default_time_limit_s: f64,
    /// Interval of DELIVERY.NO_RESPONSE, seconds (> 0).
    pub no_response_s: f64,
    /// Idle timeout of a transport that is not persistent, ms.
    pub idle_timeout_ms: u64,
}

impl Default for CreateOptions {
    fn default() -> Self {
        CreateOptions {
            name: None,
            ledger: LedgerKind::Memory,
            request_old: false,
            default_time_limit_s: 0.0,
            no_response_s: DEFAULT_NO_RESPONSE_S,
            idle_timeout_ms: DEFAULT_IDLE_TIMEOUT_MS,
        }
    }
}

/// The CM transports of a gateway; clones share them.
#[derive(Clone)]
pub struct CmTransports(Arc<Inner>);

struct Inner {
    bus: Bus,
    mqi: Mqi,
    open: Mutex<HashMap<String, CmTransport>>,
    /// `cm.<16 hex digits>.`: generated names begin with it.
    generated_prefix: String,
    next_generated: AtomicU64,
}

fn problem(field: &'static str, message: String) -> CmError {
    CmError::Setting { field, message }
}

impl CmTransports {
    /// The transports of a gateway over `bus`, keeping durable ledgers in
    /// the store of `mqi`: reopens every persistent transport stored there
    /// (a ledger that cannot be read is logged and left as it is; opening
    /// that name again reports why) and starts closing idle ones.
    pub async fn start(bus: &Bus, mqi: &Mqi) -> CmTransports {
        let t = CmTransports(Arc::new(Inner {
            bus: bus.clone(),
            mqi: mqi.clone(),
            open: Mutex::new(HashMap::new()),
            generated_prefix: format!(
                "cm.{}.",
                &bus.inbox_prefix()["_INBOX.".len()..].trim_end_matches('.')
            ),
            next_generated: AtomicU64::new(1),
        }));
        match mqi.meta_prefixed(record::TRANSPORT_PREFIX).await {
            Ok(records) => {
                for (key, bytes) in records {
                    t.reopen(&key, &bytes).await;
                }
            }
            Err(e) => {
                tracing::error!(error = %e, "certified delivery: transports could not be read from the store");
            }
        }
        mqi.tasks().spawn_timer(t.clone().sweep());
        t
    }

    async fn reopen(&self, key: &str, bytes: &[u8]) {
        let Some(name) = record::name_of_transport_key(key) else {
            tracing::error!(
                record = key,
                "certified delivery: a transport record of no name"
            );
            return;
        };
        let settings = match TransportRecord::decode(key, bytes) {
            Ok(Some(r)) => Settings {
                ledger: LedgerKind::Store,
                request_old: r.request_old,
                default_time_limit_s: r.default_time_limit_s,
                no_response_ms: r.no_response_ms,
                idle_timeout: Duration::from_millis(DEFAULT_IDLE_TIMEOUT_MS),
            },
            Ok(None) => return,
            Err(e) => {
                tracing::error!(cm_name = %name, error = %e, "certified delivery: transport not reopened");
                return;
            }
        };
        match CmTransport::open(name.clone(), true, settings, &self.0.bus, &self.0.mqi).await {
            Ok(t) => {
                tracing::info!(cm_name = %name, "certified delivery: persistent transport reopened");
                self.lock().insert(name, t);
            }
            Err(e) => {
                tracing::error!(cm_name = %name, error = %e, "certified delivery: transport not reopened");
            }
        }
    }

    fn lock(&self) -> MutexGuard<'_, HashMap<String, CmTransport>> {
        self.0.open.lock().unwrap_or_else(|p| p.into_inner())
    }

    /// Opens a transport ("tibrvcmTransport_Create()"). A reusable name
    /// that is open already gives that transport when the ledger and
    /// `requestOld` are the same (a client that comes back, a persistent
    /// transport reopened at start), with `false`; a new one comes with
    /// `true`.
    ///
    /// Errors: [`CmError::Name`] (not a reusable name: "Reusable Names",
    /// 50 bytes at most), [`CmError::StoreNeedsName`],
    /// [`CmError::Setting`] (a time limit, interval or idle timeout out of
    /// range), [`CmError::NameInUse`] (open with other settings),
    /// [`CmError::Store`], [`CmError::Record`], [`CmError::Bus`] (the
    /// gateway is stopping).
    pub async fn create(&self, o: CreateOptions) -> Result<(CmTransport, bool), CmError> {
        if !(o.default_time_limit_s.is_finite() && o.default_time_limit_s >= 0.0) {
            return Err(problem(
                "default_time_limit_s",
                format!(
                    "default_time_limit_s {} is not a number of seconds >= 0",
                    o.default_time_limit_s
                ),
            ));
        }
        if !(o.no_response_s.is_finite() && o.no_response_s > 0.0 && o.no_response_s <= 86_400.0) {
            return Err(problem(
                "no_response_s",
                format!("no_response_s {} is not 0 < s <= 86400", o.no_response_s),
            ));
        }
        let (lo, hi) = IDLE_TIMEOUT_RANGE_MS;
        if !(lo..=hi).contains(&o.idle_timeout_ms) {
            return Err(problem(
                "idle_timeout_ms",
                format!("idle_timeout_ms {} is not {lo} to {hi}", o.idle_timeout_ms),
            ));
        }
        let settings = Settings {
            ledger: o.ledger,
            request_old: o.request_old,
            default_time_limit_s: o.default_time_limit_s,
            no_response_ms: (o.no_response_s * 1000.0).ceil() as u64,
            idle_timeout: Duration::from_millis(o.idle_timeout_ms),
        };
        let (name, reusable) = match o.name {
            Some(n) => {
                check_reusable_name(&n, NameKind::CmName).map_err(|error| CmError::Name {
                    field: "name",
                    name: n.clone(),
                    error,
                })?;
                (n, true)
            }
            None => {
                if o.ledger == LedgerKind::Store {
                    return Err(CmError::StoreNeedsName);
                }
                let n = self.0.next_generated.fetch_add(1, Ordering::Relaxed);
                (format!("{}{n}", self.0.generated_prefix), false)
            }
        };
        let open = self.lock().get(&name).cloned();
        if let Some(t) = open {
            let s = t.settings();
            let differs = if s.ledger != settings.ledger {
                Some("ledger")
            } else if s.request_old != settings.request_old {
                Some("request_old")
            } else {
                None
            };
            if let Some(setting) = differs {
                return Err(CmError::NameInUse { name, setting });
            }
            t.touch();
            return Ok((t, false));
        }
        let t = CmTransport::open(
            name.clone(),
            reusable,
            settings.clone(),
            &self.0.bus,
            &self.0.mqi,
        )
        .await?;
        if t.persistent() {
            let r = TransportRecord {
                request_old: settings.request_old,
                default_time_limit_s: settings.default_time_limit_s,
                no_response_ms: settings.no_response_ms,
            };
            if let Err(e) = self
                .0
                .mqi
                .put_meta(vec![(record::transport_key(&name), r.encode())])
                .await
            {
                t.close(false).await.ok();
                return Err(e.into());
            }
        }
        let existing = {
            let mut open = self.lock();
            match open.get(&name) {
                Some(other) => Some(other.clone()),
                None => {
                    open.insert(name, t.clone());
                    None
                }
            }
        };
        if let Some(other) = existing {
            // Made by a concurrent call meanwhile: keep that one.
            t.close(false).await.ok();
            return Ok((other, false));
        }
        Ok((t, true))
    }

    /// The open transport `name` (which counts as a use of it).
    ///
    /// Errors: [`CmError::UnknownTransport`].
    pub fn get(&self, name: &str) -> Result<CmTransport, CmError> {
        let t = self
            .lock()
            .get(name)
            .cloned()
            .ok_or_else(|| CmError::UnknownTransport {
                name: name.to_string(),
            })?;
        t.touch();
        Ok(t)
    }

    /// Closes transport `name` ("tibrvcmTransport_Destroy()") and discards
    /// a store ledger: a persistent correspondent ends here.
    ///
    /// Errors: [`CmError::UnknownTransport`], [`CmError::Store`].
    pub async fn close(&self, name: &str) -> Result<(), CmError> {
        let t = self
            .lock()
            .remove(name)
            .ok_or_else(|| CmError::UnknownTransport {
                name: name.to_string(),
            })?;
        t.close(true).await
    }

    /// The names of the open transports, sorted.
    pub fn names(&self) -> Vec<String> {
        let mut v: Vec<String> = self.lock().keys().cloned().collect();
        v.sort();
        v
    }

    /// Closes idle transports until the bus closes.
    async fn sweep(self) {
        let mut tick = tokio::time::interval(SWEEP);
        loop {
            tick.tick().await;
            if self.0.bus.is_closed() {
                return;
            }
            let idle: Vec<CmTransport> = {
                let mut open = self.lock();
                let names: Vec<String> = open
                    .iter()
                    .filter(|(_, t)| t.idle())
                    .map(|(n, _)| n.clone())
                    .collect();
                names.iter().filter_map(|n| open.remove(n)).collect()
            };
            for t in idle {
                tracing::info!(cm_name = %t.name(), "certified delivery: idle transport closed");
                t.close(false).await.ok();
            }
        }
    }
}

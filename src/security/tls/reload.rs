//! The registry of a gateway's TLS endpoints and the reload of their
//! certificates (docs/security.md "Reloading certificates").

use super::TlsError;
use std::fmt;
use std::sync::{Arc, Mutex, Weak};

/// Something whose certificates [`reload_certificates`] re-reads.
pub(super) trait Reload: Send + Sync {
    fn reload(&self) -> Result<(), TlsError>;
    fn setting(&self) -> &str;
}

/// Every TLS endpoint of a gateway, for [`reload_certificates`]. Endpoints
/// register themselves when made; one that is dropped drops out.
#[derive(Clone, Default)]
pub struct TlsEndpoints(Arc<Mutex<Vec<Weak<dyn Reload>>>>);

impl fmt::Debug for TlsEndpoints {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("TlsEndpoints").finish_non_exhaustive()
    }
}

impl TlsEndpoints {
    pub(super) fn add(&self, e: Weak<dyn Reload>) {
        if let Ok(mut v) = self.0.lock() {
            v.retain(|w| w.strong_count() > 0);
            v.push(e);
        }
    }

    /// Whether no TLS listener or outbound connection is registered (no
    /// `tls:` setting is in force).
    pub fn is_empty(&self) -> bool {
        self.live().is_empty()
    }

    fn live(&self) -> Vec<Arc<dyn Reload>> {
        self.0
            .lock()
            .map(|v| v.iter().filter_map(Weak::upgrade).collect())
            .unwrap_or_default()
    }
}

/// Re-reads the PEM files of every endpoint of `endpoints` and makes the
/// new certificates, keys and CA certificates those of new connections;
/// open connections keep theirs. An endpoint whose files cannot be used
/// keeps its old configuration; the error, naming the setting and the
/// file, is logged and returned. What SIGHUP runs (and what a reload of
/// the whole configuration is to call).
pub fn reload_certificates(endpoints: &TlsEndpoints) -> Vec<(String, TlsError)> {
    let mut failed = Vec::new();
    let live = endpoints.live();
    for e in &live {
        match e.reload() {
            Ok(()) => tracing::info!(setting = e.setting(), "TLS certificates reloaded"),
            Err(err) => {
                tracing::error!(setting = e.setting(), error = %err,
                    "TLS certificates not reloaded: the old ones stay in use");
                failed.push((e.setting().to_string(), err));
            }
        }
    }
    failed
}

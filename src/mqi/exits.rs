//! The queue-point exits of the gateway (before_put, before_get, after_get;
//! docs/exits.md): one set of running chains per object, run by the queue
//! interface for every front end (chains per queue name from the top-level
//! `exits:` section, or the RPC bridge's one set from `rpc.exits`).

use bytes::BytesMut;
use mqgate_codecs::mq::{Charset, Mqmd, Mqrc};
use mqgate_exits::{
    BuildError, ExitChain, ExitPoint, ExitRegistry, ExitWarning, ExitsConfig, GetOptions,
    PutOptions, Verdict,
};
use std::collections::HashMap;
use std::sync::{Arc, Mutex, MutexGuard};

/// A queue-point chain stopped the call: the put or get fails with `reason`
/// (the exit's own reason when it answered SuppressFunction; 2374
/// MQRC_API_EXIT_ERROR when it failed) and nothing is stored or taken.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ExitStop {
    /// Where the chain ran.
    pub point: ExitPoint,
    /// The name of the exit that stopped it (ExitDef `name`, else `exit`).
    pub exit: Arc<str>,
    /// The MQRC the call fails with.
    pub reason: Mqrc,
}

impl std::fmt::Display for ExitStop {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "{} exit '{}' stopped the call", self.point, self.exit)
    }
}

impl From<ExitStop> for crate::qmgr::QmError {
    fn from(stop: ExitStop) -> Self {
        crate::qmgr::QmError::new(stop.reason, stop.to_string())
    }
}

/// What a queue point's verdict means for the call: carry on, or stop with
/// the reason. A dead-letter verdict fails the call too: at a queue point the
/// message is still the caller's (docs/exits.md "Isolation").
fn outcome(v: Verdict, point: ExitPoint) -> Result<(), ExitStop> {
    let (reason, exit) = match v {
        Verdict::Continue => return Ok(()),
        Verdict::Suppress { reason, exit, .. } | Verdict::FailCall { reason, exit, .. } => {
            (reason, exit)
        }
        Verdict::CloseChannel { exit, .. } => (Mqrc::API_EXIT_ERROR, exit),
    };
    Err(ExitStop {
        point,
        exit,
        reason,
    })
}

fn lock(m: &Mutex<ExitChain>) -> MutexGuard<'_, ExitChain> {
    // A panicking exit is caught inside the chain; a poisoned lock only means
    // a caller panicked elsewhere, and the chain itself is still consistent.
    m.lock().unwrap_or_else(|p| p.into_inner())
}

/// The before_put, before_get and after_get chains of one object, started
/// (MQXR_INIT); each call holds its chain's lock while the exits run.
pub struct QueuePointChains {
    before_put: Mutex<ExitChain>,
    before_get: Mutex<ExitChain>,
    after_get: Mutex<ExitChain>,
}

impl QueuePointChains {
    /// Builds and starts the three chains of `object_name` from `config`
    /// (global exits first, then the object's own).
    ///
    /// Errors: an exit cannot be made (name, exit data, library) or refused
    /// MQXR_INIT; chains already started are terminated again.
    pub fn start(
        registry: &ExitRegistry,
        config: &ExitsConfig,
        object_name: &str,
        q_mgr_name: &str,
    ) -> Result<QueuePointChains, BuildError> {
        let build = |point| {
            registry
                .build_chain(config, point, object_name, q_mgr_name)
                .map(Mutex::new)
        };
        Ok(QueuePointChains {
            before_put: build(ExitPoint::BeforePut)?,
            before_get: build(ExitPoint::BeforeGet)?,
            after_get: build(ExitPoint::AfterGet)?,
        })
    }

    /// Runs before_put over the MQMD (character fields in `charset`), data
    /// and put options; the exits may change all three.
    pub fn before_put(
        &self,
        md: &mut Mqmd,
        charset: Charset,
        data: &mut BytesMut,
        pmo: &mut PutOptions,
    ) -> Result<(), ExitStop> {
        let mut chain = lock(&self.before_put);
        if chain.is_empty() {
            return Ok(());
        }
        outcome(
            chain.run_before_put(md, charset, data, pmo),
            ExitPoint::BeforePut,
        )
    }

    /// Runs before_get over the get options.
    pub fn before_get(&self, gmo: &mut GetOptions) -> Result<(), ExitStop> {
        let mut chain = lock(&self.before_get);
        if chain.is_empty() {
            return Ok(());
        }
        outcome(chain.run_before_get(gmo), ExitPoint::BeforeGet)
    }

    /// Runs after_get over the MQMD and data got (the copy handed to the
    /// caller), the exits seeing the get's `warning` (MQCC_WARNING and its
    /// reason, `None` for MQCC_OK) and changing it as an IBM MQ API exit
    /// changes CompCode and Reason ([`mqgate_exits::ExitContext::warning`]).
    /// Returns the warning the get completes with.
    pub fn after_get(
        &self,
        md: &mut Mqmd,
        charset: Charset,
        data: &mut BytesMut,
        warning: Option<ExitWarning>,
    ) -> Result<Option<ExitWarning>, ExitStop> {
        let mut chain = lock(&self.after_get);
        if chain.is_empty() {
            return Ok(warning);
        }
        let (verdict, warning) = chain.run_after_get_reporting(md, charset, data, warning);
        outcome(verdict, ExitPoint::AfterGet).map(|()| warning)
    }

    /// Ends the three chains (MQXR_TERM once per exit); later calls run nothing.
    pub fn terminate(&self) {
        for m in [&self.before_put, &self.before_get, &self.after_get] {
            lock(m).terminate();
        }
    }
}

/// The queue-point chains of the HTTP queue API, from the top-level `exits:`
/// section: built on a queue's first put or get (by the queue name the
/// application used) and kept until [`QueueExits::terminate`].
pub struct QueueExits {
    /// Replaced by [`QueueExits::replace_config`] (a configuration reload).
    config: std::sync::RwLock<ExitsConfig>,
    registry: ExitRegistry,
    q_mgr_name: String,
    chains: Mutex<HashMap<String, Arc<QueuePointChains>>>,
    terminated: std::sync::atomic::AtomicBool,
}

const QUEUE_POINTS: [ExitPoint; 3] = [
    ExitPoint::BeforePut,
    ExitPoint::BeforeGet,
    ExitPoint::AfterGet,
];

impl QueueExits {
    /// Prepares the chains of `config` with mqgate's built-in exits. Nothing
    /// is loaded or started until a queue is used; `mqgate run` validates the
    /// configuration first (`Config::load`), so building later fails only
    /// when an exit refuses MQXR_INIT.
    pub fn new(config: &ExitsConfig, q_mgr_name: &str) -> QueueExits {
        QueueExits::with_registry(config, ExitRegistry::with_builtins(), q_mgr_name)
    }

    /// Like [`QueueExits::new`], taking built-in exits by name from
    /// `registry` (an embedding application's own in-process exits, or a
    /// test's).
    pub fn with_registry(
        config: &ExitsConfig,
        registry: ExitRegistry,
        q_mgr_name: &str,
    ) -> QueueExits {
        QueueExits {
            config: std::sync::RwLock::new(config.clone()),
            registry,
            q_mgr_name: q_mgr_name.to_string(),
            chains: Mutex::new(HashMap::new()),
            terminated: std::sync::atomic::AtomicBool::new(false),
        }
    }

    /// The running chains of queue `q`, or `None` when no exit runs for it.
    ///
    /// Errors: the chains cannot start (an exit refused MQXR_INIT), or the
    /// gateway is stopping; the call then fails with 2374 MQRC_API_EXIT_ERROR.
    pub fn for_queue(&self, q: &str) -> Result<Option<Arc<QueuePointChains>>, ExitStartError> {
        let has = |c: &mqgate_exits::config::PointChains| {
            QUEUE_POINTS.iter().any(|p| !c.at(*p).is_empty())
        };
        let mut map = self.chains.lock().unwrap_or_else(|p| p.into_inner());
        let config = self.config.read().unwrap_or_else(|p| p.into_inner());
        if !has(&config.global) && !config.queues.get(q).is_some_and(has) {
            return Ok(None);
        }
        if self.terminated.load(std::sync::atomic::Ordering::SeqCst) {
            return Err(ExitStartError {
                queue: q.to_string(),
                detail: "the gateway is stopping; its exits were terminated".into(),
            });
        }
        if let Some(c) = map.get(q) {
            return Ok(Some(Arc::clone(c)));
        }
        let chains = QueuePointChains::start(&self.registry, &config, q, &self.q_mgr_name)
            .map_err(|e| ExitStartError {
                queue: q.to_string(),
                detail: e.to_string(),
            })?;
        let chains = Arc::new(chains);
        map.insert(q.to_string(), Arc::clone(&chains));
        Ok(Some(chains))
    }

    /// Puts `config` in force for new work (docs/operations.md "Reloading
    /// the configuration"): queues opened from now on start the new chains;
    /// an object opened before keeps the chains it holds, which end
    /// (MQXR_TERM) when the last holder lets them go.
    pub fn replace_config(&self, config: &ExitsConfig) {
        let mut map = self.chains.lock().unwrap_or_else(|p| p.into_inner());
        *self.config.write().unwrap_or_else(|p| p.into_inner()) = config.clone();
        map.clear();
    }

    /// Ends every started chain (MQXR_TERM); called once at shutdown, after
    /// the HTTP server stopped taking requests.
    pub fn terminate(&self) {
        let mut map = self.chains.lock().unwrap_or_else(|p| p.into_inner());
        self.terminated
            .store(true, std::sync::atomic::Ordering::SeqCst);
        for (_, c) in map.drain() {
            c.terminate();
        }
    }
}

/// The exit chains of a queue could not be started.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ExitStartError {
    pub queue: String,
    pub detail: String,
}

impl std::fmt::Display for ExitStartError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(
            f,
            "the exits of queue {:?} cannot start: {}",
            self.queue, self.detail
        )
    }
}

//! The before_put, before_get and after_get exit chains of the RPC bridge
//! (seed 004: beforePut / beforeGet / afterGet; built with mqgate-exits).

use super::error::{RpcError, RpcErrorKind};
use bytes::BytesMut;
use mqgate_codecs::mq::{Charset, Mqmd, Mqrc};
use mqgate_exits::config::PointChains;
use mqgate_exits::{
    BuildError, ExitChain, ExitPoint, ExitRegistry, ExitsConfig, GetOptions, PutOptions, Verdict,
};
use std::sync::{Mutex, MutexGuard};

/// Object name the RPC exit chains are started with (ExitContext.object_name).
pub const EXIT_OBJECT_NAME: &str = "RPC";

/// The three running chains; each call takes its chain's lock while the exits run.
pub struct RpcExits {
    before_put: Mutex<ExitChain>,
    before_get: Mutex<ExitChain>,
    after_get: Mutex<ExitChain>,
}

fn lock(m: &Mutex<ExitChain>) -> MutexGuard<'_, ExitChain> {
    // A panicking exit is caught inside the chain; a poisoned lock only means
    // a caller panicked elsewhere, and the chain itself is still consistent.
    m.lock().unwrap_or_else(|p| p.into_inner())
}

fn outcome(v: Verdict, point: ExitPoint) -> Result<(), RpcError> {
    let (reason, exit) = match v {
        Verdict::Continue => return Ok(()),
        Verdict::Suppress { reason, exit, .. } | Verdict::FailCall { reason, exit, .. } => {
            (reason, exit)
        }
        Verdict::CloseChannel { exit, .. } => (Mqrc::API_EXIT_ERROR, exit),
    };
    Err(RpcError::with_mqrc(
        RpcErrorKind::ExitRefused,
        reason,
        format!("{point} exit '{exit}' stopped the call"),
    ))
}

impl RpcExits {
    /// Builds and starts (MQXR_INIT) the chains configured in `rpc.exits`.
    pub fn start(chains: &PointChains, q_mgr_name: &str) -> Result<RpcExits, BuildError> {
        let config = ExitsConfig {
            global: chains.clone(),
            ..ExitsConfig::default()
        };
        let registry = ExitRegistry::with_builtins();
        let build = |point| {
            registry
                .build_chain(&config, point, EXIT_OBJECT_NAME, q_mgr_name)
                .map(Mutex::new)
        };
        Ok(RpcExits {
            before_put: build(ExitPoint::BeforePut)?,
            before_get: build(ExitPoint::BeforeGet)?,
            after_get: build(ExitPoint::AfterGet)?,
        })
    }

    /// Runs before_put over the message and put options.
    pub fn before_put(
        &self,
        md: &mut Mqmd,
        charset: Charset,
        data: &mut BytesMut,
        pmo: &mut PutOptions,
    ) -> Result<(), RpcError> {
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
    pub fn before_get(&self, gmo: &mut GetOptions) -> Result<(), RpcError> {
        let mut chain = lock(&self.before_get);
        if chain.is_empty() {
            return Ok(());
        }
        outcome(chain.run_before_get(gmo), ExitPoint::BeforeGet)
    }

    /// Runs after_get over the message got.
    pub fn after_get(
        &self,
        md: &mut Mqmd,
        charset: Charset,
        data: &mut BytesMut,
    ) -> Result<(), RpcError> {
        let mut chain = lock(&self.after_get);
        if chain.is_empty() {
            return Ok(());
        }
        outcome(chain.run_after_get(md, charset, data), ExitPoint::AfterGet)
    }
}

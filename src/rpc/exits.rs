//! The before_put, before_get and after_get exit chains of the RPC bridge
//! (seed 004: beforePut / beforeGet / afterGet; built with mqgate-exits and
//! run by the gateway's shared [`QueuePointChains`]).

use super::error::{RpcError, RpcErrorKind};
use crate::mqi::{ExitStop, QueuePointChains};
use bytes::BytesMut;
use mqgate_codecs::mq::{Charset, Mqmd};
use mqgate_exits::config::PointChains;
use mqgate_exits::{BuildError, ExitRegistry, ExitsConfig, GetOptions, PutOptions};

/// Object name the RPC exit chains are started with (ExitContext.object_name).
pub const EXIT_OBJECT_NAME: &str = "RPC";

/// The three running chains of `rpc.exits`.
pub struct RpcExits {
    chains: QueuePointChains,
}

fn refused(stop: ExitStop) -> RpcError {
    RpcError::with_mqrc(RpcErrorKind::ExitRefused, stop.reason, stop.to_string())
}

impl RpcExits {
    /// Builds and starts (MQXR_INIT) the chains configured in `rpc.exits`.
    pub fn start(chains: &PointChains, q_mgr_name: &str) -> Result<RpcExits, BuildError> {
        let config = ExitsConfig {
            global: chains.clone(),
            ..ExitsConfig::default()
        };
        let chains = QueuePointChains::start(
            &ExitRegistry::with_builtins(),
            &config,
            EXIT_OBJECT_NAME,
            q_mgr_name,
        )?;
        Ok(RpcExits { chains })
    }

    /// Runs before_put over the message and put options.
    pub fn before_put(
        &self,
        md: &mut Mqmd,
        charset: Charset,
        data: &mut BytesMut,
        pmo: &mut PutOptions,
    ) -> Result<(), RpcError> {
        self.chains
            .before_put(md, charset, data, pmo)
            .map_err(refused)
    }

    /// Runs before_get over the get options.
    pub fn before_get(&self, gmo: &mut GetOptions) -> Result<(), RpcError> {
        self.chains.before_get(gmo).map_err(refused)
    }

    /// Runs after_get over the message got.
    pub fn after_get(
        &self,
        md: &mut Mqmd,
        charset: Charset,
        data: &mut BytesMut,
    ) -> Result<(), RpcError> {
        self.chains.after_get(md, charset, data).map_err(refused)
    }
}

//! The before_put, before_get and after_get exit chains of the RPC bridge
//! (`rpc.exits`, docs/rpc.md "Exits"): one set for every queue the bridge
//! uses, started here and run by the queue interface ([`crate::mqi::Mqi::with_chains`]).

use crate::mqi::QueuePointChains;
use mqgate_exits::config::PointChains;
use mqgate_exits::{BuildError, ExitRegistry, ExitsConfig};

/// Object name the RPC exit chains are started with (ExitContext.object_name).
pub const EXIT_OBJECT_NAME: &str = "RPC";

/// Builds and starts (MQXR_INIT) the chains configured in `rpc.exits`, with
/// the exits of `registry`.
///
/// Errors: an exit cannot be made (name, exit data, library) or refused
/// MQXR_INIT.
pub fn start(
    registry: &ExitRegistry,
    chains: &PointChains,
    q_mgr_name: &str,
) -> Result<QueuePointChains, BuildError> {
    let config = ExitsConfig {
        global: chains.clone(),
        ..ExitsConfig::default()
    };
    QueuePointChains::start(registry, &config, EXIT_OBJECT_NAME, q_mgr_name)
}

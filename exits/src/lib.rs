//! mqgate user exits: the exit API, exit chains, built-in exits and the loader
//! for external C exits (docs/exits.md; IBM MQ "Constants" "Channel exits";
//! the WebSphere MQ Everyplace gateway article: the receive exit; the EntireX
//! WebSphere MQ RPC Server documentation: beforePut / beforeGet / afterGet).
//!
//! - [`api`]: exit points, context, payloads, responses, the [`Exit`] trait.
//! - [`config`]: the YAML model for registering exits.
//! - [`chain`]: ordered chains with INIT/TERM, failure policies, [`Verdict`].
//! - [`isolation`]: panics caught, time budgets, worker threads.
//! - [`registry`]: builds chains from the config (built-in and external exits).
//! - [`builtin`]: `destination-rewrite`, `rfh-properties`, `convert`.
//! - [`external`]: C exits (`exits/include/mqgate_exit.h`) loaded with libloading.

pub mod api;
pub mod builtin;
pub mod chain;
pub mod config;
pub mod exit_data;
pub mod external;
pub mod isolation;
pub mod registry;
pub mod stats;

pub use api::{
    EXIT_USER_AREA_LENGTH, Exit, ExitContext, ExitPoint, ExitReason, ExitResponse, ExitUserArea,
    ExitWarning, GetOptions, Payload, PutOptions, Q_MGR_CCSID,
};
pub use chain::{ChainEntry, ExitChain, StartError, Verdict};
pub use config::{ExitDef, ExitRef, ExitsConfig, FailurePolicy, Isolation};
pub use isolation::ExitFailure;
pub use registry::{BuildError, BuiltinFactory, ExitRegistry};

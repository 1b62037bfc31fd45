//! `mqgate`: a message gateway between IBM MQ, Tuxedo/TOP END RTQ, RPC
//! clients, MessageQ and Rendezvous, as a library. [`gateway::Gateway::start`]
//! runs one gateway inside the caller's tokio runtime (the `mqgate run`
//! command does nothing else); [`config::Config`] is its YAML model;
//! [`cli::Cli`] is the `mqgate` command line.

#![warn(missing_docs)]

pub mod cli;
pub mod config;
pub mod gateway;
pub mod rv;

pub(crate) mod bus;
pub(crate) mod channel;
pub(crate) mod devices;
pub(crate) mod framing;
pub(crate) mod http;
pub(crate) mod log_limit;
pub(crate) mod metrics;
pub mod mqclient;
pub(crate) mod mqi;
pub(crate) mod mqjson;
pub mod mqsc;
pub mod mqtt;
pub(crate) mod qmgr;
pub(crate) mod route;
pub(crate) mod rpc;
pub(crate) mod sbs;
pub mod security;
pub(crate) mod store;
pub mod svrconn;
pub(crate) mod tasks;
pub(crate) mod tedg;

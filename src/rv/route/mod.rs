//! Routing between gateways: each gateway may act as a Rendezvous routing
//! daemon (TIBCO Rendezvous Administration, "Routing Daemon (rvrd)";
//! docs/rendezvous.md "Routing between gateways").
//!
//! - [`config`]: the `rv.routing:` section.
//! - [`gate`]: export and import subjects, interest as a subset of an
//!   import subject.
//! - [`table`]: the global routing table and the forwarding decision.
//! - [`frame`]: frames of a routing link (mqgate's protocol over the
//!   message channels' framing).
//! - [`core`]: the routing daemon's state machine, synchronous.
//! - [`service`]: the async tasks: the router task, the links' dialling,
//!   accepting and byte moving; [`service::Routing`] is a running router.

pub mod config;
pub mod core;
pub mod frame;
pub mod gate;
pub mod service;
pub mod table;

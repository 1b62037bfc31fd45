//! TIBCO Rendezvous in the gateway (docs/rendezvous.md): the subject bus
//! and its listeners, advisories, the `rv:` settings, the JSON form of an
//! envelope and the `NAME:TYPE=VALUE` command-line fields. The message
//! model, its binary form and subject names are `mqgate_codecs::rv`.
//!
//! The bus's public API, for the parts built on it (certified delivery,
//! routing links, bridges): [`bus::Bus`] (publish, listen, inboxes,
//! request, interest), [`listener::Listener`] and
//! [`listener::ListenerOptions`], [`delivery::Delivery`],
//! [`delivery::Origin`] and [`delivery::LinkId`], [`watch::InterestWatch`],
//! [`advisory::Advisory`], [`bus_error::BusError`]. Certified delivery
//! (RVCM) is [`cm`]; fault tolerance groups (RVFT) are [`ft`].

pub mod advisory;
pub mod bridge;
pub mod bus;
pub mod bus_error;
pub mod cm;
pub mod config;
mod control;
pub mod delivery;
pub mod dq;
pub mod error;
pub mod field_arg;
pub mod ft;
pub mod json;
pub mod listener;
mod queue;
pub mod route;
mod text;
pub mod watch;

pub use bus::Bus;
pub use bus_error::BusError;
pub use delivery::{Delivery, LinkId, Origin};
pub use listener::{Listener, ListenerId, ListenerOptions};
pub use watch::{InterestChange, InterestWatch};

#[cfg(test)]
mod bus_tests;
#[cfg(test)]
mod tests;

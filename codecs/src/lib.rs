//! Pure codecs for mqgate: bytes and text in, typed values out.
//!
//! Nothing in this crate does I/O, spawns tasks or keeps global state, so every
//! entry point can be fuzzed. Layouts and constants follow the IBM MQ,
//! Oracle Tuxedo, Software AG, BEA MessageQ and TIBCO Rendezvous documentation
//! each module names.

mod calendar;
pub mod ccsid;
mod cpu;
pub mod dump;
pub mod fap;
pub mod idl;
pub mod mq;
pub mod mqsc;
pub mod mqtt;
pub mod pams;
pub mod rv;
pub mod tux;

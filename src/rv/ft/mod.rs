//! Fault tolerance groups (RVFT; docs/rendezvous.md "Fault tolerance"):
//! programs join a named group with a weight, an active goal and three
//! intervals, and mqgate tells each one when to activate, deactivate or
//! prepare to activate, so that the active goal is met by the
//! highest-ranked members; passive monitors count the active members.
//!
//! - [`member::MemberCore`]: one member's view of its group and its
//!   decisions, synchronous, against a clock it is given;
//! - [`monitor::MonitorCore`]: a passive monitor's count;
//! - [`heartbeat`]: mqgate's own protocol messages on `_RVFT.<group>`;
//! - [`service::FtService`]: the members and monitors of one gateway over
//!   its subject bus (the async part, which only moves messages).
//!
//! Sources: TIBCO Rendezvous Concepts, "Fault Tolerance Concepts", "Rank
//! and Weight", "Active Goal", "Activation Interval", "Fault Tolerance
//! Callback Actions", "Passive Monitor", "Disabling a Member", the RVFT
//! advisory pages; C Reference, "tibrvftMember_Create()",
//! "tibrvftMember_SetWeight()", "tibrvftMonitor_Create()".

pub mod action;
pub mod advisories;
pub mod error;
pub mod heartbeat;
pub mod member;
pub mod monitor;
pub mod params;
pub mod service;

pub use action::Action;
pub use error::FtError;
pub use params::FtParams;
pub use service::FtService;

#[cfg(test)]
mod member_tests;

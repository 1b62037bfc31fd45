//! Distributed queues (RVCMQ) over the subject bus (docs/rendezvous.md
//! "Distributed queues"; TIBCO Rendezvous Concepts, "Distributed Queue",
//! "Complete Time", "Reassigning Tasks in Exceptional Situations"; C
//! Reference, "tibrvcmTransport_CreateDistributedQueue()",
//! "tibrvcmTransport_SetCompleteTime()", "tibrvcmTransport_SetWorkerTasks()").
//!
//! - [`params`] — the member's parameters, their defaults and checks;
//! - [`election`] — who is the scheduler, a state machine without I/O;
//! - [`schedule`] — the scheduler's assignment table, a state machine
//!   without I/O;
//! - [`protocol`] — the messages between members on `_RVCMQ.` subjects
//!   (mqgate's layout: TIBCO's is not public);
//! - [`advisories`] — `_RV.<class>.RVCM.QUEUE.SCHEDULER.<condition>.<name>`;
//! - [`member`] — one member at run time;
//! - [`queues`] — a gateway's members, joined in Rust or over HTTP.

pub mod advisories;
pub mod election;
pub mod error;
pub mod member;
pub mod params;
pub mod protocol;
pub mod queues;
pub mod schedule;

pub use error::DqError;
pub use member::{DqMember, MemberControl, MemberEvent, Task};
pub use params::DqParams;
pub use queues::{DistributedQueues, StreamGuard};

//! Certified message delivery (RVCM) over the subject bus
//! (docs/rendezvous.md "Certified delivery"; TIBCO Rendezvous Concepts,
//! "Certified Message Delivery"; C Reference, "tibrvcmTransport_Create()",
//! "tibrvcmTransport_Send()", "tibrvcmListener_Create()",
//! "tibrvcmEvent_ConfirmMsg()", "tibrvcmTransport_AddListener()",
//! "tibrvcmTransport_DisallowListener()").
//!
//! - [`sender`] and [`listener`]: the two ledgers as state machines with
//!   unit tests, no I/O;
//! - [`protocol`]: the messages between CM transports on `_RVCM.`
//!   subjects (mqgate's layout: TIBCO's is not public);
//! - [`advisories`]: the RVCM advisories and their fields;
//! - [`record`]: the durable ledgers' records in the store;
//! - [`transport`]: one CM transport at run time (the tasks that move its
//!   messages, its certified listeners);
//! - [`transports`]: a gateway's transports by correspondent name.

pub mod advisories;
pub mod error;
pub mod listener;
pub mod protocol;
pub mod record;
pub mod sender;
pub mod seqset;
pub mod transport;
pub mod transports;

pub use error::CmError;
pub use transport::{CmDelivery, CmListener, CmTransport, ConfirmMode, LedgerKind, Sent};
pub use transports::{CmTransports, CreateOptions};

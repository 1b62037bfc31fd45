//! RPC calls mapped to queue operations: the service half of the MQ RPC bridge
//! (Software AG EntireX "EntireX WebSphere MQ RPC Server"; docs/rpc.md).
//!
//! A call names a program of a configured IDL file and passes its parameters
//! by IDL name. The program's parameter directions decide the MQ operation
//! (put, get, or request/reply correlated by CorrelId), its dynamic parameters
//! (MQ_QUEUE_NAME, MQ_CORREL_ID, MQ_REPLY_QUEUE, MQ_WAIT_INTERVAL, MQ_RFH_*)
//! steer the MQ calls, and the other parameters become the message body.
//!
//! - [`programs`]: loads and binds the IDL files of the `rpc:` section.
//! - [`check`]: validation of the `rpc:` section (config errors).
//! - [`service`]: [`RpcService`], which runs calls and conversations.
//! - [`payload`]: message bodies (text or XML, CCSID, MQRFH v1).
//! - [`xml`]: the XML payload form.
//! - [`json`]: JSON parameters ↔ IDL values.
//! - [`error`]: [`RpcError`], the documented RPC errors.
//! - [`http`]: the `/v1/rpc` routes.

pub mod check;
pub mod error;
mod exits;
pub mod http;
pub mod json;
pub mod payload;
pub mod programs;
pub mod service;
#[cfg(test)]
mod tests;
pub mod xml;

pub use service::RpcService;

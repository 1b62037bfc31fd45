/// mqgate's binary form of a Rendezvous message (queues, ledgers, links).
pub mod binary;
/// The Rendezvous datetime and its RFC 3339 text.
pub mod datetime;
/// Errors of the binary form: offset, field path, `tibrv_status`.
pub mod error;
/// Field types: the `TIBRVMSG_*` numbers and mqgate's names.
pub mod field;
/// The message model: fields, messages, the envelope, limits.
pub mod msg;
/// `tibrv_status` codes.
pub mod status;

//! TIBCO Rendezvous: subject names and messages (docs/rendezvous.md).
//!
//! Subject names — validation, classes, matching and an interest index
//! (TIBCO Rendezvous Concepts, "Subject Name Syntax", "Using Wildcards to
//! Receive Related Subjects", "Distinguished Subject Names with Special
//! Meaning", "Reusable Names"; docs/rendezvous.md "Subject names"):
//!
//! - [`subject`]: the validated [`Subject`] (borrowed or owned text, element
//!   access), the validation [`Mode`]s and [`matches()`].
//! - [`class`]: the reserved (distinguished) first elements, [`SubjectClass`].
//! - [`error`]: [`SubjectError`], the rule broken and the element it is in.
//! - [`names`]: reusable names (CM correspondent names, FT group names,
//!   distributed queue names).
//! - [`nats`]: which valid subjects NATS would refuse, and why.
//! - [`interest`]: [`InterestIndex`], subscriber lookup by subject.
//! - [`workload`]: [`MarketDataMix`], the fixed subject mix that
//!   subject matching is measured with.
//!
//! Messages — named, typed fields (docs/rendezvous.md "Messages"):
//!
//! - [`field`]: the `TIBRVMSG_*` field types.
//! - [`msg`]: the message model (fields, values, envelope with CM labels).
//! - [`binary`]: mqgate's binary form of an envelope.
//! - [`datetime`]: `tibrvMsgDateTime` and its RFC 3339 text.
//! - [`msg_error`]: why bytes are not a message, and where.
//! - [`status`]: `tibrv_status` codes.
//!
//! Everything is pure: bytes and text in, typed values out, no I/O, no panic
//! on any input. Elements are counted from 1 in every message and error, as
//! a reader counts them (`element 3 is empty` for `A.B..C`); methods that
//! take an index say so.

pub mod binary;
pub mod class;
pub mod datetime;
pub mod error;
pub mod field;
pub mod interest;
pub mod msg;
pub mod msg_error;
pub mod names;
pub mod nats;
pub mod status;
pub mod subject;
pub mod workload;

pub use class::SubjectClass;
pub use error::{SubjectError, SubjectErrorKind, TIBRV_INVALID_SUBJECT, WildcardContext};
pub use interest::InterestIndex;
pub use names::{NameKind, check_reusable_name};
pub use nats::{NatsRefusal, NatsUse, nats_refusal};
pub use subject::{Mode, Subject, Validation, matches};
pub use workload::MarketDataMix;

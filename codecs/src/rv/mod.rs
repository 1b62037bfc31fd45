//! TIBCO Rendezvous subject names: validation, classes, matching and an
//! interest index (TIBCO Rendezvous Concepts, "Subject Name Syntax", "Using
//! Wildcards to Receive Related Subjects", "Distinguished Subject Names with
//! Special Meaning", "Reusable Names"; docs/rendezvous.md "Subject names").
//!
//! - [`subject`]: the validated [`Subject`] (borrowed or owned text, element
//!   access), the validation [`Mode`]s and [`matches()`].
//! - [`class`]: the reserved (distinguished) first elements, [`SubjectClass`].
//! - [`error`]: [`SubjectError`], the rule broken and the element it is in.
//! - [`names`]: reusable names (CM correspondent names, FT group names,
//!   distributed queue names).
//! - [`nats`]: which valid subjects NATS would refuse, and why.
//! - [`interest`]: [`InterestIndex`], subscriber lookup by subject.
//!
//! Everything is pure: text in, typed values out, no I/O, no panic on any
//! input. Elements are counted from 1 in every message and error, as a reader
//! counts them (`element 3 is empty` for `A.B..C`); methods that take an
//! index say so.

pub mod class;
pub mod error;
pub mod interest;
pub mod names;
pub mod nats;
pub mod subject;

pub use class::SubjectClass;
pub use error::{SubjectError, SubjectErrorKind, TIBRV_INVALID_SUBJECT, WildcardContext};
pub use interest::InterestIndex;
pub use names::{NameKind, check_reusable_name};
pub use nats::{NatsRefusal, NatsUse, nats_refusal};
pub use subject::{Mode, Subject, Validation, matches};

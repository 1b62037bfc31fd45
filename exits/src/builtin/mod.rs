//! The built-in exits, registered by name in [`crate::registry::ExitRegistry::with_builtins`].
//!
//! - `destination-rewrite` ([`destination_rewrite`]): seed 001's receive exit.
//!
//! `convert` (CCSID/Encoding conversion) is not here yet: it needs the
//! `ccsid` module of the CCSID issue.

pub mod destination_rewrite;

pub use destination_rewrite::DestinationRewrite;

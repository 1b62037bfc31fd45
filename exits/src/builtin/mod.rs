//! The built-in exits, registered by name in [`crate::registry::ExitRegistry::with_builtins`].
//!
//! - `destination-rewrite` ([`destination_rewrite`]): seed 001's receive exit.
//! - `rfh-properties` ([`rfh_properties`]): MQRFH v1 pairs and MQRFH2 `<usr>` properties.
//!
//! `convert` (CCSID/Encoding conversion) is not here yet: it needs the
//! `ccsid` module of the CCSID issue.

pub mod destination_rewrite;
pub mod rfh_properties;

pub use destination_rewrite::DestinationRewrite;
pub use rfh_properties::RfhProperties;

//! The built-in exits, registered by name in [`crate::registry::ExitRegistry::with_builtins`].
//!
//! - `destination-rewrite` ([`destination_rewrite`]): the WebSphere MQ Everyplace gateway article's receive exit.
//! - `rfh-properties` ([`rfh_properties`]): MQRFH v1 pairs and MQRFH2 `<usr>` properties.
//! - `convert` ([`convert`]): MQ data conversion to a target CCSID/Encoding.

pub mod convert;
pub mod destination_rewrite;
pub mod rfh_properties;

pub use convert::Convert;
pub use destination_rewrite::DestinationRewrite;
pub use rfh_properties::RfhProperties;

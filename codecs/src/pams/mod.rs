//! BEA MessageQ (PAMS) formats for Selective Broadcast Services: addresses and
//! MOTs, return codes, the show buffer, SBS messages, selection rules and the
//! group initialization file (BEA MessageQ 5.0 Programmer's Guide,
//! "Broadcasting Messages"; the headers `p_msg.h` V4.0-08, `p_typecl.h`
//! V5.0-01, `p_symbol.h` 5.0, `p_entry.h` 5.0, `p_return.h` V4.0-09; the BEA
//! MessageQ Configuration Guide; docs/messageq.md).
//!
//! - [`address`]: `group.queue` addresses, MOT ranges, well-known queues.
//! - [`status`]: PAMS return codes (`PAMS__*`) and SBS status values.
//! - [`show_buffer`]: the 100-byte show buffer of `pams_get_msg`.
//! - [`sbs`]: SBS message types and every SBS message body, new and obsolete.
//! - [`rules`]: selection rules and their evaluation against a broadcast.
//! - [`symbols`]: delivery modes, UMAs, symbols that differ by header generation.
//! - [`envelope`]: the header mqgate stores before a PAMS message on its queues.
//! - [`init_file`]: the group initialization file (%PROFILE, %QCT, %GNT,
//!   %XGROUP, %SBS) as a typed model, with line and column errors.
//!
//! Everything is pure: bytes and text in, typed values out, no I/O, no panic on
//! any input. Binary structures take the byte order as a parameter
//! ([`Endian`]); lengths and counts are checked before anything is allocated.

pub mod address;
pub mod endian;
pub mod envelope;
pub mod error;
pub mod init_file;
pub mod rules;
pub mod sbs;
pub mod show_buffer;
pub mod status;
pub mod symbols;
mod wire;

pub use address::{AddressError, Mot, MotKind, QAddress};
pub use endian::Endian;
pub use envelope::PamsHeader;
pub use error::{Field, Structure, WireError, WireErrorKind};
pub use rules::{
    Broadcast, Conjunction, OperandLength, Operator, RuleSet, SelectionRule, Selector,
};
pub use sbs::{SbsMessage, SbsType};
pub use show_buffer::ShowBuffer;
pub use status::{PamsStatus, SbsStatus};
pub use symbols::HeaderGeneration;
pub use wire::WireField;

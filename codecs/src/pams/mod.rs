//! BEA MessageQ (PAMS) formats for Selective Broadcast Services (BEA MessageQ
//! 5.0 Programmer's Guide, "Broadcasting Messages"; the headers `p_entry.h`
//! 5.0, `p_symbol.h` 5.0, `p_return.h` V4.0-09; docs/messageq.md).
//!
//! - [`address`]: `group.queue` addresses, MOT ranges, well-known queues.
//! - [`status`]: PAMS return codes (`PAMS__*`) and SBS status values.
//!
//! Everything is pure: bytes and text in, typed values out, no I/O, no panic on
//! any input. Binary structures take the byte order as a parameter ([`Endian`]).

pub mod address;
pub mod endian;
pub mod status;

pub use address::{AddressError, Mot, MotKind, QAddress};
pub use endian::Endian;
pub use status::{PamsStatus, SbsStatus};

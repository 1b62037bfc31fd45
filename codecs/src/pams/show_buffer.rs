//! The `pams_get_msg` show buffer, version 5.0 layout: 100 bytes (BEA MessageQ
//! `p_entry.h` 5.0, `struct show_buffer`).
//!
//! | off | field | bytes |
//! |---:|---|---:|
//! | 0 | version | 4 |
//! | 4 | transfer_status | 4 |
//! | 8 | transfer_size | 4 |
//! | 12 | flags | 4 |
//! | 16 | urcode | 4 |
//! | 20 | reserved | 20 |
//! | 40 | target | 4 |
//! | 44 | original_target | 4 |
//! | 48 | source | 4 |
//! | 52 | original_source | 4 |
//! | 56 | delivery | 4 |
//! | 60 | priority | 4 |
//! | 64 | endian | 4 |
//! | 68 | correlation_id | 32 |
//!
//! The older DECmessageQ layout has `int32 reserved[7]` at 12..40 in place of
//! `flags`, `urcode` and `reserved`; `target` … `endian` keep their offsets, so
//! both layouts decode and encode byte for byte with this one type (in an old
//! buffer `flags` and `urcode` simply hold the first two reserved words).
//! Versions are 10, 20 and 50; a caller's buffer may be as short as 40 bytes,
//! in which case only its first bytes are filled ([`ShowBuffer::encode_prefix`]).
//!
//! For an SBS delivery mqgate fills `source` with the MOT address,
//! `original_source` with the publisher, `original_target` with the MOT and
//! `target` with the registered queue ([`ShowBuffer::sbs_delivery`];
//! Programmer's Guide, "Reading Broadcast Messages"; the `original_target`
//! value is mqgate's choice, docs/messageq.md).

use super::address::QAddress;
use super::endian::Endian;
use super::error::{Field, Structure, WireError, WireErrorKind};
use super::wire::{WireField, wire_struct};

/// Show buffer versions (`p_entry.h`): 10, 20 and 50.
pub const SHOW_BUFFER_VERSIONS: [i32; 3] = [10, 20, 50];
/// The version of the 5.0 layout.
pub const SHOW_BUFFER_V50: i32 = 50;
/// The smallest show buffer a caller may pass: 40 bytes.
pub const SHOW_BUFFER_MIN_LEN: usize = 40;

/// The PSYM_SHOW_* bits of the `flags` field: which fields hold data.
pub mod flags {
    /// PSYM_SHOW_VERSION (1 << 0).
    pub const VERSION: i32 = 1 << 0;
    /// PSYM_SHOW_STATUS (1 << 1).
    pub const STATUS: i32 = 1 << 1;
    /// PSYM_SHOW_SIZE (1 << 2).
    pub const SIZE: i32 = 1 << 2;
    /// PSYM_SHOW_FLAGS (1 << 3).
    pub const FLAGS: i32 = 1 << 3;
    /// PSYM_SHOW_URCODE (1 << 5).
    pub const URCODE: i32 = 1 << 5;
    /// PSYM_SHOW_TARGET (1 << 10).
    pub const TARGET: i32 = 1 << 10;
    /// PSYM_SHOW_ORIGINAL_TARGET (1 << 11).
    pub const ORIGINAL_TARGET: i32 = 1 << 11;
    /// PSYM_SHOW_SOURCE (1 << 12).
    pub const SOURCE: i32 = 1 << 12;
    /// PSYM_SHOW_ORIGINAL_SOURCE (1 << 13).
    pub const ORIGINAL_SOURCE: i32 = 1 << 13;
    /// PSYM_SHOW_DELIVERY (1 << 14).
    pub const DELIVERY: i32 = 1 << 14;
    /// PSYM_SHOW_PRIORITY (1 << 15).
    pub const PRIORITY: i32 = 1 << 15;
    /// PSYM_SHOW_ENDIAN (1 << 16).
    pub const ENDIAN: i32 = 1 << 16;
    /// PSYM_SHOW_CORRELATION_ID (1 << 17).
    pub const CORRELATION_ID: i32 = 1 << 17;
    /// Every bit above, with its symbol.
    pub const ALL: [(&str, i32); 13] = [
        ("PSYM_SHOW_VERSION", VERSION),
        ("PSYM_SHOW_STATUS", STATUS),
        ("PSYM_SHOW_SIZE", SIZE),
        ("PSYM_SHOW_FLAGS", FLAGS),
        ("PSYM_SHOW_URCODE", URCODE),
        ("PSYM_SHOW_TARGET", TARGET),
        ("PSYM_SHOW_ORIGINAL_TARGET", ORIGINAL_TARGET),
        ("PSYM_SHOW_SOURCE", SOURCE),
        ("PSYM_SHOW_ORIGINAL_SOURCE", ORIGINAL_SOURCE),
        ("PSYM_SHOW_DELIVERY", DELIVERY),
        ("PSYM_SHOW_PRIORITY", PRIORITY),
        ("PSYM_SHOW_ENDIAN", ENDIAN),
        ("PSYM_SHOW_CORRELATION_ID", CORRELATION_ID),
    ];
}

wire_struct! {
    /// `struct show_buffer` (100 bytes, layout in the module documentation).
    /// Decoding needs exactly 100 bytes; see [`ShowBuffer::decode_prefix`] for
    /// a shorter caller buffer.
    pub struct ShowBuffer: Structure::ShowBuffer, size 100 {
        /// Layout version: 10, 20 or 50.
        version: i32 = 0,
        /// Status of the transfer (a PAMS return code).
        transfer_status: i32 = 4,
        /// Size of the message transferred, in bytes.
        transfer_size: i32 = 8,
        /// PSYM_SHOW_* bits saying which fields hold data ([`flags`]).
        flags: i32 = 12,
        /// User return code.
        urcode: i32 = 16,
        /// Reserved bytes, kept as read.
        reserved: [u8; 20] = 20,
        /// The queue the message was delivered to.
        target: QAddress = 40,
        /// The queue the sender addressed (for an SBS delivery: the MOT).
        original_target: QAddress = 44,
        /// The source the receiver sees (for an SBS delivery: the MOT address).
        source: QAddress = 48,
        /// The original sender (for an SBS delivery: the publisher).
        original_source: QAddress = 52,
        /// Delivery mode (PDEL_MODE_*).
        delivery: i32 = 56,
        /// Priority.
        priority: i32 = 60,
        /// Byte order of the message: PSYM_LITTLE_ENDIAN 0 or PSYM_BIG_ENDIAN 1.
        endian: i32 = 64,
        /// Correlation identifier, 32 bytes.
        correlation_id: [u8; 32] = 68,
    }
}

impl ShowBuffer {
    /// The show buffer of a broadcast message delivered to `distribution_q`:
    /// source and original target the MOT address, original source the
    /// publisher, version 50, and the flags of the fields filled.
    pub fn sbs_delivery(
        mot_address: QAddress,
        publisher: QAddress,
        distribution_q: QAddress,
        message_endian: Endian,
    ) -> ShowBuffer {
        ShowBuffer {
            version: SHOW_BUFFER_V50,
            flags: flags::VERSION
                | flags::FLAGS
                | flags::TARGET
                | flags::ORIGINAL_TARGET
                | flags::SOURCE
                | flags::ORIGINAL_SOURCE
                | flags::ENDIAN,
            target: distribution_q,
            original_target: mot_address,
            source: mot_address,
            original_source: publisher,
            endian: message_endian.psym(),
            ..ShowBuffer::default()
        }
    }

    /// The byte order the `endian` field names, if 0 or 1.
    pub fn message_endian(&self) -> Option<Endian> {
        Endian::from_psym(self.endian)
    }

    /// The first `len` bytes of the encoding, for a caller buffer of `len`
    /// bytes (40..=100).
    ///
    /// Errors: `Truncated` (PAMS__AREATOSMALL) below 40, `TooLong` above 100.
    pub fn encode_prefix(&self, endian: Endian, len: usize) -> Result<Vec<u8>, WireError> {
        check_prefix_len(len)?;
        let full = self.encode(endian);
        Ok(full.get(..len).unwrap_or(&full).to_vec())
    }

    /// Reads a caller buffer of 40..=100 bytes; bytes past its end read as
    /// zero, so `encode_prefix(decode_prefix(b), b.len()) == b`.
    ///
    /// Errors: as [`ShowBuffer::encode_prefix`].
    pub fn decode_prefix(bytes: &[u8], endian: Endian) -> Result<ShowBuffer, WireError> {
        check_prefix_len(bytes.len())?;
        Ok(ShowBuffer::read(bytes, endian))
    }

    /// The byte order of a show buffer, from its `version` (10, 20 or 50 in
    /// exactly one order); `None` when the version decides nothing.
    pub fn detect_endian(bytes: &[u8]) -> Option<Endian> {
        let hits: Vec<Endian> = Endian::BOTH
            .into_iter()
            .filter(|e| {
                e.read_i32(bytes, 0)
                    .is_some_and(|v| SHOW_BUFFER_VERSIONS.contains(&v))
            })
            .collect();
        match hits.as_slice() {
            [one] => Some(*one),
            _ => None,
        }
    }
}

fn check_prefix_len(len: usize) -> Result<(), WireError> {
    if len < SHOW_BUFFER_MIN_LEN {
        // Named at the start of the buffer, as every structure cut short.
        return Err(WireError::new(
            Structure::ShowBuffer,
            Field::Whole,
            0,
            WireErrorKind::Truncated {
                needed: SHOW_BUFFER_MIN_LEN,
                available: len,
            },
        ));
    }
    if len > ShowBuffer::SIZE {
        return Err(WireError::new(
            Structure::ShowBuffer,
            Field::Whole,
            ShowBuffer::SIZE,
            WireErrorKind::TooLong {
                max: ShowBuffer::SIZE,
                available: len,
            },
        ));
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::pams::status::PamsStatus;
    use crate::pams::wire::assert_contiguous;

    #[test]
    fn layout_is_the_p_entry_h_table() {
        assert_contiguous(ShowBuffer::LAYOUT, 100);
        let offsets: Vec<(&str, usize)> =
            ShowBuffer::LAYOUT.iter().map(|&(n, o, _)| (n, o)).collect();
        assert_eq!(
            offsets,
            [
                ("version", 0),
                ("transfer_status", 4),
                ("transfer_size", 8),
                ("flags", 12),
                ("urcode", 16),
                ("reserved", 20),
                ("target", 40),
                ("original_target", 44),
                ("source", 48),
                ("original_source", 52),
                ("delivery", 56),
                ("priority", 60),
                ("endian", 64),
                ("correlation_id", 68),
            ]
        );
    }

    #[test]
    fn prefix_limits() {
        let sb = ShowBuffer::default();
        let e = sb.encode_prefix(Endian::Big, 39).unwrap_err();
        assert_eq!(e.pams_status(), PamsStatus::AREATOSMALL);
        assert!(sb.encode_prefix(Endian::Big, 101).is_err());
        assert_eq!(sb.encode_prefix(Endian::Big, 40).unwrap().len(), 40);
    }
}

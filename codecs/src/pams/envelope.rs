//! How mqgate keeps a MessageQ (PAMS) message on one of its queues: MQMD
//! Format `MQGPAMS`, data = the 96-byte PAMS message header below, then the
//! message area byte for byte (mqgate's own layout, docs/messageq.md "PAMS
//! messages on mqgate queues"; MessageQ's own wire form between groups is not
//! public).
//!
//! The header holds what `pams_put_msg` is given besides the message area and
//! what `pams_get_msg` hands back in its arguments and show buffer (BEA
//! MessageQ 5.0 `p_entry.h`: class, type, priority, delivery mode, UMA,
//! response queue, correlation id; show buffer `original_target`, `source`,
//! `original_source`, `endian`). The queue a message sits on is its target
//! (the show buffer `target`), so the header does not repeat it: one header
//! serves every copy of a broadcast (BEA MessageQ Programmer's Guide,
//! "Reading Broadcast Messages": source = the MOT, target = the registered
//! queue, original source = the publisher).
//!
//! | off | field | type |
//! |---:|---|---|
//! | 0 | struc_id `"PMH "` | 4 ASCII bytes |
//! | 4 | version (1) | int32 |
//! | 8 | class | int16 |
//! | 10 | msg_type | int16 |
//! | 12 | priority (0-99) | int32 |
//! | 16 | delivery (PDEL_MODE_*) | int32 |
//! | 20 | uma (PDEL_UMA_*) | int32 |
//! | 24 | endian of the message area (PSYM_LITTLE_ENDIAN 0 / PSYM_BIG_ENDIAN 1) | int32 |
//! | 28 | original_target | q_address |
//! | 32 | source | q_address |
//! | 36 | original_source | q_address |
//! | 40 | resp_q (0.0 = none) | q_address |
//! | 44 | correlation_id | 32 bytes |
//! | 76 | forwarded_by (0.0 = not forwarded) | q_address |
//! | 80 | forward_seq | uint32 |
//! | 84 | reserved (zeros) | 12 bytes |
//!
//! The header itself is always big-endian (MQMD Encoding 273,
//! MQENC_INTEGER_NORMAL); its `endian` field names the byte order of the
//! message area, the sender's. Addresses are written queue first, as
//! `q_address` is (`p_entry.h`).
//!
//! `forwarded_by` and `forward_seq` mark a broadcast to a universal MOT that
//! one SBS server sends to the SBS server of another group of the bus
//! (docs/messageq.md "Between groups"): `forwarded_by` is the sending
//! server's address (`<its group>.99`), `forward_seq` its sequence number for
//! that MOT and destination group, from 1. Every other message has 0.0 and 0
//! there.

use super::address::QAddress;
use super::endian::Endian;
use super::error::{Field, Structure, WireError, WireErrorKind};
use super::show_buffer::{SHOW_BUFFER_V50, ShowBuffer, flags};
use super::symbols::MAX_PRIORITY;
use super::wire::wire_struct;

/// MQMD Format of a PAMS message on an mqgate queue.
pub const FORMAT: &str = "MQGPAMS";
/// The header's StrucId.
pub const STRUC_ID: [u8; 4] = *b"PMH ";
/// The header's version.
pub const VERSION: i32 = 1;
/// The byte order of the header's own fields.
pub const HEADER_ENDIAN: Endian = Endian::Big;
/// MQMD Encoding of a PAMS message: 273 (integers big-endian), the header's order.
pub const MQ_ENCODING: i32 = 273;

wire_struct! {
    /// The PAMS message header (96 bytes; layout in the module documentation).
    /// Decoding checks `struc_id`, `version`, `priority` (0-99) and
    /// `endian` (0 or 1).
    pub struct PamsHeader: Structure::PamsHeader, size 96, check PamsHeader::check {
        /// `"PMH "`.
        struc_id: [u8; 4] = 0,
        /// 1.
        version: i32 = 4,
        /// Message class (`short` in `pams_put_msg`).
        class: i16 = 8,
        /// Message type.
        msg_type: i16 = 10,
        /// Priority, 0-99 (BEA MessageQ 5.0).
        priority: i32 = 12,
        /// Delivery mode (PDEL_MODE_*).
        delivery: i32 = 16,
        /// Undeliverable-message action (PDEL_UMA_*).
        uma: i32 = 20,
        /// Byte order of the message area: PSYM_LITTLE_ENDIAN 0 or PSYM_BIG_ENDIAN 1.
        endian: i32 = 24,
        /// The address the sender put to (a MOT for a broadcast).
        original_target: QAddress = 28,
        /// The source the receiver sees (for a broadcast copy: the MOT).
        source: QAddress = 32,
        /// The original sender (for a broadcast copy: the publisher).
        original_source: QAddress = 36,
        /// Where replies go; 0.0 = none given (replies go to `source`).
        resp_q: QAddress = 40,
        /// Correlation identifier, 32 bytes.
        correlation_id: [u8; 32] = 44,
        /// The SBS server that forwarded this broadcast from another group
        /// (`<group>.99`); 0.0 for any other message.
        forwarded_by: QAddress = 76,
        /// The forwarding server's sequence number for this MOT and the
        /// destination group, from 1; 0 when not forwarded.
        forward_seq: u32 = 80,
        /// Reserved, zeros.
        reserved: [u8; 12] = 84,
    }
}

impl PamsHeader {
    /// A header for a message of `class` and `msg_type` whose area is in
    /// `endian`, sent by `source` to `target`: priority 0, PDEL_MODE_NN_MEM,
    /// PDEL_UMA_DISC (what the BEA SBS samples send), no response queue.
    pub fn new(
        class: i16,
        msg_type: i16,
        source: QAddress,
        target: QAddress,
        endian: Endian,
    ) -> Self {
        PamsHeader {
            struc_id: STRUC_ID,
            version: VERSION,
            class,
            msg_type,
            delivery: super::symbols::PDEL_MODE_NN_MEM,
            uma: super::symbols::PDEL_UMA_DISC,
            endian: endian.psym(),
            original_target: target,
            source,
            original_source: source,
            ..PamsHeader::default()
        }
    }

    fn check(&self) -> Result<(), WireError> {
        if self.struc_id != STRUC_ID {
            return Err(WireError::new(
                Structure::PamsHeader,
                Field::Named("struc_id"),
                0,
                WireErrorKind::BadStrucId {
                    found: self.struc_id,
                    expected: STRUC_ID,
                },
            ));
        }
        if self.version != VERSION {
            return Err(WireError::new(
                Structure::PamsHeader,
                Field::Named("version"),
                4,
                WireErrorKind::BadVersion {
                    found: self.version,
                    expected: VERSION,
                },
            ));
        }
        if !(0..=i32::from(MAX_PRIORITY)).contains(&self.priority) {
            return Err(WireError::new(
                Structure::PamsHeader,
                Field::Named("priority"),
                12,
                WireErrorKind::BadPriority {
                    found: self.priority,
                },
            ));
        }
        if Endian::from_psym(self.endian).is_none() {
            return Err(WireError::new(
                Structure::PamsHeader,
                Field::Named("endian"),
                24,
                WireErrorKind::BadEndian { found: self.endian },
            ));
        }
        Ok(())
    }

    /// Splits message data into its header and message area.
    ///
    /// Errors: `Truncated` below 96 bytes; `BadStrucId`; `BadVersion`;
    /// `BadPriority` (priority outside 0-99, offset 12, PAMS__BADPRIORITY);
    /// `BadEndian` (endian neither 0 nor 1, offset 24). A server answers
    /// each with 2142 MQRC_HEADER_ERROR (docs/messageq.md "PAMS messages on
    /// mqgate queues").
    pub fn split(data: &[u8]) -> Result<(PamsHeader, &[u8]), WireError> {
        let head = data.get(..Self::SIZE).ok_or_else(|| {
            WireError::new(
                Structure::PamsHeader,
                Field::Whole,
                0,
                WireErrorKind::Truncated {
                    needed: Self::SIZE,
                    available: data.len(),
                },
            )
        })?;
        let header = PamsHeader::decode(head, HEADER_ENDIAN)?;
        Ok((header, data.get(Self::SIZE..).unwrap_or_default()))
    }

    /// The header followed by `area`: message data to store.
    pub fn with_area(&self, area: &[u8]) -> Vec<u8> {
        let mut out = Vec::with_capacity(Self::SIZE + area.len());
        out.extend_from_slice(&self.encode(HEADER_ENDIAN));
        out.extend_from_slice(area);
        out
    }

    /// `(forwarded_by, forward_seq)` of a broadcast another group's SBS
    /// server forwarded; `None` when `forwarded_by` is 0.0.
    pub fn forwarded(&self) -> Option<(QAddress, u32)> {
        (self.forwarded_by != QAddress::default()).then_some((self.forwarded_by, self.forward_seq))
    }

    /// The byte order of the message area, when `endian` is 0 or 1.
    pub fn area_endian(&self) -> Option<Endian> {
        Endian::from_psym(self.endian)
    }

    /// Where a reply goes: `resp_q`, or `source` when no response queue was
    /// given (0.0).
    pub fn reply_to(&self) -> QAddress {
        if self.resp_q == QAddress::default() {
            self.source
        } else {
            self.resp_q
        }
    }

    /// The version 5.0 show buffer of this message read from `target` (the
    /// queue holding it), with `transfer_size` the message area's length.
    pub fn show_buffer(&self, target: QAddress, area_len: usize) -> ShowBuffer {
        ShowBuffer {
            version: SHOW_BUFFER_V50,
            transfer_status: super::status::PamsStatus::SUCCESS.0,
            transfer_size: i32::try_from(area_len).unwrap_or(i32::MAX),
            flags: flags::VERSION
                | flags::STATUS
                | flags::SIZE
                | flags::FLAGS
                | flags::TARGET
                | flags::ORIGINAL_TARGET
                | flags::SOURCE
                | flags::ORIGINAL_SOURCE
                | flags::DELIVERY
                | flags::PRIORITY
                | flags::ENDIAN
                | flags::CORRELATION_ID,
            target,
            original_target: self.original_target,
            source: self.source,
            original_source: self.original_source,
            delivery: self.delivery,
            priority: self.priority,
            endian: self.endian,
            correlation_id: self.correlation_id,
            ..ShowBuffer::default()
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::pams::wire::assert_contiguous;

    #[test]
    fn layout_and_round_trip() {
        assert_contiguous(PamsHeader::LAYOUT, 96);
        let mut h = PamsHeader::new(
            29,
            -1196,
            QAddress::new(10, 5),
            QAddress::new(10, 99),
            Endian::Little,
        );
        h.correlation_id[0] = 0xAB;
        let data = h.with_area(b"area");
        assert_eq!(&data[..4], b"PMH ");
        // class 29 big-endian at 8, type -1196 at 10 (0xFB54).
        assert_eq!(&data[8..12], &[0, 29, 0xFB, 0x54]);
        // original_target 10.99: queue first.
        assert_eq!(&data[28..32], &[0, 99, 0, 10]);
        let (back, area) = PamsHeader::split(&data).unwrap();
        assert_eq!(back, h);
        assert_eq!(area, b"area");
        assert_eq!(back.area_endian(), Some(Endian::Little));
        assert_eq!(back.reply_to(), QAddress::new(10, 5));
    }

    #[test]
    fn forwarding_mark_sits_in_the_former_reserved_bytes() {
        let mut h = PamsHeader::new(
            1,
            2,
            QAddress::new(10, 5),
            QAddress::new(10, 5110),
            Endian::Big,
        );
        assert_eq!(h.forwarded(), None);
        h.forwarded_by = QAddress::sbs_server(10);
        h.forward_seq = 0x0102_0304;
        let data = h.with_area(b"");
        // 76: q_address 10.99, queue first; 80: the sequence number big-endian;
        // 84..96 zeros.
        assert_eq!(&data[76..84], &[0, 99, 0, 10, 1, 2, 3, 4]);
        assert_eq!(&data[84..96], &[0; 12]);
        let (back, _) = PamsHeader::split(&data).unwrap();
        assert_eq!(back.forwarded(), Some((QAddress::new(10, 99), 0x0102_0304)));
    }

    #[test]
    fn show_buffer_of_a_broadcast_copy() {
        // Programmer's Guide, "Reading Broadcast Messages": source = the MOT,
        // target = the registered queue, original source = the publisher;
        // offsets of p_entry.h 5.0 (target 40, original_target 44, source 48,
        // original_source 52, endian 64).
        let mot = QAddress::new(10, 5110);
        let mut h = PamsHeader::new(1, 2, QAddress::new(10, 30), mot, Endian::Little);
        h.source = mot;
        let sb = h.show_buffer(QAddress::new(10, 7), 256);
        let b = sb.encode(Endian::Big);
        assert_eq!(&b[40..44], &QAddress::new(10, 7).to_bytes(Endian::Big));
        assert_eq!(&b[44..48], &mot.to_bytes(Endian::Big));
        assert_eq!(&b[48..52], &mot.to_bytes(Endian::Big));
        assert_eq!(&b[52..56], &QAddress::new(10, 30).to_bytes(Endian::Big));
        assert_eq!(&b[64..68], &[0, 0, 0, 0], "PSYM_LITTLE_ENDIAN");
        assert_eq!((sb.version, sb.transfer_size), (50, 256));
    }

    #[test]
    fn bad_headers_are_named() {
        let e = PamsHeader::split(&[0; 10]).unwrap_err();
        assert!(matches!(
            e.kind,
            WireErrorKind::Truncated {
                needed: 96,
                available: 10
            }
        ));
        let mut data = PamsHeader::default().with_area(b"");
        let e = PamsHeader::split(&data).unwrap_err();
        assert_eq!(e.field, Field::Named("struc_id"));
        data[..4].copy_from_slice(b"PMH ");
        let e = PamsHeader::split(&data).unwrap_err();
        assert_eq!(e.field, Field::Named("version"));
    }

    #[test]
    fn priority_and_endian_out_of_range_are_refused() {
        // BEA MessageQ 5.0 priorities are 0 to 99; the byte order is
        // PSYM_LITTLE_ENDIAN 0 or PSYM_BIG_ENDIAN 1 (p_symbol.h 5.0).
        let h = PamsHeader::new(
            1,
            2,
            QAddress::new(10, 5),
            QAddress::new(10, 7),
            Endian::Big,
        );
        for (priority, ok) in [(0, true), (99, true), (100, false), (-1, false)] {
            let data = PamsHeader { priority, ..h }.with_area(b"x");
            match PamsHeader::split(&data) {
                Ok((back, _)) => {
                    assert!(ok, "{priority}");
                    assert_eq!(back.priority, priority);
                }
                Err(e) => {
                    assert!(!ok, "{priority}");
                    assert_eq!(
                        (e.field, e.offset, e.kind.clone()),
                        (
                            Field::Named("priority"),
                            12,
                            WireErrorKind::BadPriority { found: priority }
                        )
                    );
                    assert_eq!(e.pams_status().0, -58, "PAMS__BADPRIORITY");
                }
            }
        }
        let data = PamsHeader { endian: 2, ..h }.with_area(b"");
        let e = PamsHeader::split(&data).unwrap_err();
        assert_eq!(
            (e.field, e.offset, e.kind.clone()),
            (
                Field::Named("endian"),
                24,
                WireErrorKind::BadEndian { found: 2 }
            )
        );
        assert_eq!(
            e.to_string(),
            "PAMS message header endian at offset 24: endian 2 is neither PSYM_LITTLE_ENDIAN 0 nor PSYM_BIG_ENDIAN 1 (answer 20 PSYM_SBS_BADPARAM, -186 PAMS__BADPARAM)"
        );
    }
}

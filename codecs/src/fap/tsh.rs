//! The transmission segment header that starts every segment of the IBM MQ
//! client protocol: TSH (28 bytes), TSHM (36 bytes, with the conversation and
//! request ids of shared conversations) and TSHC (28 bytes, on SOCKET_ACTION
//! segments). IBM publishes no specification of this protocol; the layout is
//! the Wireshark MQ dissector's (packet-mq.c, "Transmission Segment Header",
//! "... Multiplexed", "... Common"), checked against real IBM MQ client
//! traffic. docs/mq-client-protocol.md describes it.
//!
//! | off | len | field |
//! |---:|---:|---|
//! | 0 | 4 | StrucId `TSH ` / `TSHM` / `TSHC` |
//! | 4 | 4 | SegmentLength, always big-endian, header included |
//! | 8 | 4+4 | ConversationId, RequestId (TSHM only, big-endian) |
//! | +8 | 1 | ByteOrder: 1 big-endian, 2 little-endian |
//! | +9 | 1 | SegmentType |
//! | +10 | 1 | ControlFlags1 |
//! | +11 | 1 | ControlFlags2 |
//! | +12 | 8 | LUWID |
//! | +20 | 4 | Encoding (in ByteOrder) |
//! | +24 | 2 | CCSID (in ByteOrder) |
//! | +26 | 2 | Reserved |

use std::fmt;

use crate::mq::ByteOrder;

use super::error::{FapError, FapErrorKind, FapStructure};
use super::read::{Reader, Writer};

/// A segment type (MQ_TST_* of the Wireshark MQ dissector, packet-mq.h), an
/// open set: unknown values survive a round trip. A reply is its request
/// type with bit 0x10 set (0x81 MQCONN, 0x91 its reply).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct SegmentType(pub u8);

macro_rules! segment_types {
    ($($name:ident = $value:expr),* $(,)?) => {
        impl SegmentType {
            $(#[doc = concat!("`", stringify!($name), "` (", stringify!($value), ").")]
            pub const $name: SegmentType = SegmentType($value);)*

            /// The type's name (`MQPUT_REPLY`), if it is known here.
            pub fn name(self) -> Option<&'static str> {
                match self.0 {
                    $($value => Some(stringify!($name)),)*
                    _ => None,
                }
            }
        }
    };
}

segment_types! {
    INITIAL_DATA = 0x01,
    RESYNC_DATA = 0x02,
    RESET_DATA = 0x03,
    MESSAGE_DATA = 0x04,
    STATUS_DATA = 0x05,
    SECURITY_DATA = 0x06,
    PING_DATA = 0x07,
    USERID_DATA = 0x08,
    HEARTBEAT = 0x09,
    CONAUTH_INFO = 0x0A,
    RENEGOTIATE_DATA = 0x0B,
    SOCKET_ACTION = 0x0C,
    ASYNC_MESSAGE = 0x0D,
    REQUEST_MSGS = 0x0E,
    NOTIFICATION = 0x0F,
    MQCONN = 0x81,
    MQDISC = 0x82,
    MQOPEN = 0x83,
    MQCLOSE = 0x84,
    MQGET = 0x85,
    MQPUT = 0x86,
    MQPUT1 = 0x87,
    MQSET = 0x88,
    MQINQ = 0x89,
    MQCMIT = 0x8A,
    MQBACK = 0x8B,
    SPI = 0x8C,
    MQSTAT = 0x8D,
    MQSUB = 0x8E,
    MQSUBRQ = 0x8F,
    MQCONN_REPLY = 0x91,
    MQDISC_REPLY = 0x92,
    MQOPEN_REPLY = 0x93,
    MQCLOSE_REPLY = 0x94,
    MQGET_REPLY = 0x95,
    MQPUT_REPLY = 0x96,
    MQPUT1_REPLY = 0x97,
    MQSET_REPLY = 0x98,
    MQINQ_REPLY = 0x99,
    MQCMIT_REPLY = 0x9A,
    MQBACK_REPLY = 0x9B,
    SPI_REPLY = 0x9C,
    MQSTAT_REPLY = 0x9D,
    MQSUB_REPLY = 0x9E,
    MQSUBRQ_REPLY = 0x9F,
}

impl SegmentType {
    /// True for the MQI verbs and their replies (0x80-0x9F): their body
    /// starts with the 16-byte API header.
    pub fn is_api(self) -> bool {
        (0x80..=0x9F).contains(&self.0)
    }

    /// The reply type of an MQI verb (`MQPUT` → `MQPUT_REPLY`).
    pub fn reply(self) -> SegmentType {
        SegmentType(self.0 | 0x10)
    }
}

impl fmt::Display for SegmentType {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self.name() {
            Some(n) => f.write_str(n),
            None => write!(f, "0x{:02X}", self.0),
        }
    }
}

/// ControlFlags1 (MQ_TCF_* of the Wireshark MQ dissector).
pub mod tcf {
    pub const CONFIRM_REQUEST: u8 = 0x01;
    pub const ERROR: u8 = 0x02;
    pub const REQUEST_CLOSE: u8 = 0x04;
    pub const CLOSE_CHANNEL: u8 = 0x08;
    /// First segment of a message.
    pub const FIRST: u8 = 0x10;
    /// Last segment of a message.
    pub const LAST: u8 = 0x20;
    pub const REQUEST_ACCEPTED: u8 = 0x40;
    pub const DLQ_USED: u8 = 0x80;
}

/// ControlFlags2 (MQ_TCF2_* of the Wireshark MQ dissector).
pub mod tcf2 {
    pub const HDRCOMP: u8 = 0x01;
    pub const MSGCOMP: u8 = 0x02;
    pub const CSH: u8 = 0x04;
    pub const CMIT_INTERVAL: u8 = 0x08;
}

/// Which of the three segment headers.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum TshKind {
    /// `TSH `, 28 bytes: the first INITIAL_DATA of a connection.
    Tsh,
    /// `TSHM`, 36 bytes: every segment of a conversation after it.
    Tshm,
    /// `TSHC`, 28 bytes: SOCKET_ACTION sent by a client.
    Tshc,
}

impl TshKind {
    /// The header's length in bytes: 28 or 36.
    pub fn header_len(self) -> usize {
        match self {
            TshKind::Tshm => TSHM_LEN,
            TshKind::Tsh | TshKind::Tshc => TSH_LEN,
        }
    }

    /// The ASCII StrucId.
    pub fn struc_id(self) -> &'static [u8; 4] {
        match self {
            TshKind::Tsh => b"TSH ",
            TshKind::Tshm => b"TSHM",
            TshKind::Tshc => b"TSHC",
        }
    }

    /// The EBCDIC StrucId (`TSH ` = E3 E2 C8 40).
    pub fn struc_id_ebcdic(self) -> [u8; 4] {
        match self {
            TshKind::Tsh => [0xE3, 0xE2, 0xC8, 0x40],
            TshKind::Tshm => [0xE3, 0xE2, 0xC8, 0xD4],
            TshKind::Tshc => [0xE3, 0xE2, 0xC8, 0xC3],
        }
    }

    /// The header kind and whether it is EBCDIC, from the first 4 bytes.
    pub fn from_struc_id(found: &[u8; 4]) -> Option<(TshKind, bool)> {
        [TshKind::Tsh, TshKind::Tshm, TshKind::Tshc]
            .into_iter()
            .find_map(|k| {
                if found == k.struc_id() {
                    Some((k, false))
                } else if *found == k.struc_id_ebcdic() {
                    Some((k, true))
                } else {
                    None
                }
            })
    }
}

/// Length of a TSH or TSHC, bytes.
pub const TSH_LEN: usize = 28;
/// Length of a TSHM, bytes.
pub const TSHM_LEN: usize = 36;

/// A segment header.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Tsh {
    pub kind: TshKind,
    /// StrucId in EBCDIC.
    pub ebcdic: bool,
    /// Bytes in the segment, this header included.
    pub segment_length: u32,
    /// TSHM only: the shared conversation (odd numbers from the client).
    pub conversation_id: u32,
    /// TSHM only.
    pub request_id: u32,
    /// The byte order of this header's Encoding and CCSID and of every
    /// integer in the segment's body.
    pub byte_order: ByteOrder,
    pub segment_type: SegmentType,
    /// [`tcf`] flags.
    pub control_flags1: u8,
    /// [`tcf2`] flags.
    pub control_flags2: u8,
    /// Logical unit of work id, 8 bytes.
    pub luwid: [u8; 8],
    /// MQENC_* of the sender (a value, not the byte order of this segment).
    pub encoding: i32,
    /// CCSID of the sender's character data.
    pub ccsid: u16,
    pub reserved: [u8; 2],
}

impl Tsh {
    /// A header of `kind` for a segment of `segment_type`, little-endian,
    /// Encoding 546 (MQENC_REVERSED) and CCSID 819, FIRST|LAST, length set
    /// by [`super::write_segment`].
    pub fn new(kind: TshKind, segment_type: SegmentType) -> Tsh {
        Tsh {
            kind,
            ebcdic: false,
            segment_length: kind.header_len() as u32,
            conversation_id: 0,
            request_id: 0,
            byte_order: ByteOrder::Little,
            segment_type,
            control_flags1: tcf::FIRST | tcf::LAST,
            control_flags2: 0,
            luwid: [0; 8],
            encoding: 546,
            ccsid: 819,
            reserved: [0; 2],
        }
    }

    /// The header's length: 28 or 36 bytes.
    pub fn header_len(&self) -> usize {
        self.kind.header_len()
    }

    /// Whether ControlFlags1 has all of `flags`.
    pub fn has(&self, flags: u8) -> bool {
        self.control_flags1 & flags == flags
    }
}

/// Reads the StrucId and SegmentLength (the first 8 bytes of every segment):
/// the header kind, whether it is EBCDIC and the length. Errors: fewer than 8
/// bytes, an unknown StrucId.
pub fn peek_header(input: &[u8]) -> Result<(TshKind, bool, u32), FapError> {
    let mut r = Reader::new(input, 0, FapStructure::Tsh, ByteOrder::Big);
    let found: [u8; 4] = r.array("StrucId")?;
    let (kind, ebcdic) = TshKind::from_struc_id(&found).ok_or_else(|| {
        FapError::new(
            FapStructure::Tsh,
            0,
            "StrucId",
            FapErrorKind::BadStrucId { found },
        )
    })?;
    let len = r.be_u32("SegmentLength")?;
    Ok((kind, ebcdic, len))
}

/// Parses the segment header at the start of `input` (the rest of the
/// segment need not be there). Errors: truncated, bad StrucId, ByteOrder
/// other than 1 or 2 (offset of the field, [`FapStructure::Tsh`]).
pub fn parse_tsh(input: &[u8]) -> Result<Tsh, FapError> {
    let (kind, ebcdic, segment_length) = peek_header(input)?;
    let mut r = Reader::new(input, 0, FapStructure::Tsh, ByteOrder::Big);
    r.need("StrucId", kind.header_len())?;
    r.bytes("StrucId", 8)?;
    let (conversation_id, request_id) = if kind == TshKind::Tshm {
        (r.be_u32("ConversationId")?, r.be_u32("RequestId")?)
    } else {
        (0, 0)
    };
    let at = r.pos();
    let byte_order = match r.u8("ByteOrder")? {
        1 => ByteOrder::Big,
        2 => ByteOrder::Little,
        value => {
            return Err(r.error_at(at, "ByteOrder", FapErrorKind::BadByteOrder { value }));
        }
    };
    let mut r2 = Reader::new(
        &input[at + 1..kind.header_len()],
        at + 1,
        FapStructure::Tsh,
        byte_order,
    );
    Ok(Tsh {
        kind,
        ebcdic,
        segment_length,
        conversation_id,
        request_id,
        byte_order,
        segment_type: SegmentType(r2.u8("SegmentType")?),
        control_flags1: r2.u8("ControlFlags1")?,
        control_flags2: r2.u8("ControlFlags2")?,
        luwid: r2.array("LUWID")?,
        encoding: r2.i32("Encoding")?,
        ccsid: r2.u16("CCSID")?,
        reserved: r2.array("Reserved")?,
    })
}

/// Appends `tsh` as it is (SegmentLength included) to `out`.
pub fn write_tsh(tsh: &Tsh, out: &mut Vec<u8>) {
    let id = if tsh.ebcdic {
        tsh.kind.struc_id_ebcdic()
    } else {
        *tsh.kind.struc_id()
    };
    out.extend_from_slice(&id);
    out.extend_from_slice(&tsh.segment_length.to_be_bytes());
    if tsh.kind == TshKind::Tshm {
        out.extend_from_slice(&tsh.conversation_id.to_be_bytes());
        out.extend_from_slice(&tsh.request_id.to_be_bytes());
    }
    out.push(match tsh.byte_order {
        ByteOrder::Big => 1,
        ByteOrder::Little => 2,
    });
    out.push(tsh.segment_type.0);
    out.push(tsh.control_flags1);
    out.push(tsh.control_flags2);
    out.extend_from_slice(&tsh.luwid);
    let mut w = Writer {
        out,
        order: tsh.byte_order,
    };
    w.i32(tsh.encoding);
    w.u16(tsh.ccsid);
    w.bytes(&tsh.reserved);
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_tshm_example_of_a_real_mqput() {
        // A real JMS client MQPUT header: TSHM, length 976, conversation 3,
        // little-endian, MQPUT, FIRST|LAST, Encoding 273, CCSID 819.
        let b = hex::decode(
            "5453484d000003d0000000030000000002863000000000000000000011010000 33030000"
                .replace(' ', ""),
        )
        .unwrap();
        let t = parse_tsh(&b).unwrap();
        assert_eq!(t.kind, TshKind::Tshm);
        assert_eq!(t.segment_length, 976);
        assert_eq!(t.conversation_id, 3);
        assert_eq!(t.byte_order, ByteOrder::Little);
        assert_eq!(t.segment_type, SegmentType::MQPUT);
        assert!(t.has(tcf::FIRST | tcf::LAST));
        assert_eq!((t.encoding, t.ccsid), (273, 819));
        let mut out = Vec::new();
        write_tsh(&t, &mut out);
        assert_eq!(out, b);
    }

    #[test]
    fn bad_struc_id_and_byte_order_name_their_offsets() {
        let e = parse_tsh(b"TSHX\0\0\0\x1c").unwrap_err();
        assert_eq!((e.offset, e.field), (0, "StrucId"));
        let mut t = Tsh::new(TshKind::Tsh, SegmentType::INITIAL_DATA);
        t.segment_length = 28;
        let mut b = Vec::new();
        write_tsh(&t, &mut b);
        b[8] = 3;
        let e = parse_tsh(&b).unwrap_err();
        assert_eq!(e.offset, 8);
        assert_eq!(e.kind, FapErrorKind::BadByteOrder { value: 3 });
        let e = parse_tsh(&b[..20]).unwrap_err();
        assert!(matches!(e.kind, FapErrorKind::Truncated { needed: 28, .. }));
    }

    #[test]
    fn segment_type_names_and_replies() {
        // MQ_TST_* values of the Wireshark MQ dissector: reply = request | 0x10.
        assert_eq!(SegmentType::MQGET.reply(), SegmentType::MQGET_REPLY);
        assert_eq!(SegmentType(0x9C).to_string(), "SPI_REPLY");
        assert_eq!(SegmentType(0x55).to_string(), "0x55");
        assert!(SegmentType::MQCMIT.is_api());
        assert!(!SegmentType::SOCKET_ACTION.is_api());
        // EBCDIC "TSH " = E3 E2 C8 40 (packet-mq.c).
        assert_eq!(
            TshKind::from_struc_id(&[0xE3, 0xE2, 0xC8, 0x40]),
            Some((TshKind::Tsh, true))
        );
    }
}

//! INITIAL_DATA (segment type 0x01), StrucId `ID  `: the negotiation that
//! opens every connection and each of its conversations (the Wireshark MQ
//! dissector's "Initial Data"). Its length grows with the FAP level: 44
//! bytes below level 4, 102 below 9, 208 below 11, 240 from 11 (IBM MQ 9.x
//! clients send level 17, 240 bytes). Integers are in the segment's
//! ByteOrder.
//!
//! | off | len | field | off | len | field |
//! |---:|---:|---|---:|---:|---|
//! | 0 | 4 | StrucId | 100 | 2 | EFLLength |
//! | 4 | 1 | FapLevel | 102 | 1 | IniErrorFlags2 |
//! | 5 | 1 | CapabilityFlags1 | 103 | 1 | Reserved1 |
//! | 6 | 1 | ECapabilityFlags1 | 104 | 2 | HdrCompList |
//! | 7 | 1 | IniErrorFlags1 | 106 | 16 | MsgCompList |
//! | 8 | 2 | Reserved | 122 | 2 | Reserved2 |
//! | 10 | 2 | MaxMsgBatch | 124 | 4 | SSLKeyResetCount |
//! | 12 | 4 | MaxTransmissionSize | 128 | 4 | ConvPerSocket (SHARECNV) |
//! | 16 | 4 | MaxMsgSize | 132 | 1 | CapabilityFlags3 |
//! | 20 | 4 | SeqWrapValue | 133 | 1 | ECapabilityFlags3 |
//! | 24 | 20 | ChannelName | 134 | 2 | Reserved3 |
//! | 44 | 1 | CapabilityFlags2 | 136 | 4 | ProcessId |
//! | 45 | 1 | ECapabilityFlags2 | 140 | 4 | ThreadId |
//! | 46 | 2 | CCSID | 144 | 4 | TraceId |
//! | 48 | 48 | QMgrName | 148 | 12 | ProductId |
//! | 96 | 4 | HeartbeatInterval (seconds) | 160 | 48 | QMgrIdentifier |
//! | | | | 208 | 20 | ProtectionAlgorithms |
//! | | | | 228 | 12 | Random |
//!
//! A queue manager that lowers or refuses a value answers with the value it
//! takes, the matching bit of IniErrorFlags1 (or the refused capability in
//! an ECapabilityFlags field) and ControlFlags1 ERROR; the client sends
//! INITIAL_DATA again with what it was offered.

use crate::mq::ByteOrder;

use super::error::{FapError, FapErrorKind, FapStructure};
use super::read::{Reader, Writer, struc_id_bytes};

const ASCII: &[u8; 4] = b"ID  ";
const EBCDIC: &[u8; 4] = &[0xC9, 0xC4, 0x40, 0x40];

/// The shortest INITIAL_DATA (FAP levels 1-3), bytes.
pub const ID_LEN_MIN: usize = 44;
/// The INITIAL_DATA of FAP level 11 and later, bytes.
pub const ID_LEN_FULL: usize = 240;

/// CapabilityFlags1 bits (MQ_ICF1_* of the Wireshark MQ dissector).
pub mod icf1 {
    pub const MSG_SEQ: u8 = 0x01;
    pub const CONVERSION_CAPABLE: u8 = 0x02;
    pub const SPLIT_MESSAGE: u8 = 0x04;
    pub const REQUEST_INITIATION: u8 = 0x08;
    pub const REQUEST_SECURITY: u8 = 0x10;
    pub const MQREQUEST: u8 = 0x20;
    pub const SVRCONN_SECURITY: u8 = 0x40;
    pub const RUNTIME: u8 = 0x80;
}

/// CapabilityFlags2 bits (MQ_ICF2_*).
pub mod icf2 {
    pub const DIST_LIST_CAPABLE: u8 = 0x01;
    pub const FAST_MESSAGES_REQUIRED: u8 = 0x02;
    pub const RESPONDER_CONVERSION: u8 = 0x04;
    pub const DUAL_UOW: u8 = 0x08;
    pub const XAREQUEST: u8 = 0x10;
    pub const XARUNTIME_APP: u8 = 0x20;
    pub const SPIREQUEST: u8 = 0x40;
    pub const TRACE_ROUTE_CAPABLE: u8 = 0x80;
}

/// CapabilityFlags3 bits (tshark 4.0 field names `mq.id.ief3.*`).
pub mod icf3 {
    pub const MSG_PROPERTY_CAPABLE: u8 = 0x01;
    pub const MULTICAST_CAPABLE: u8 = 0x02;
    pub const PROP_INT_SEPARATE: u8 = 0x04;
    pub const MULTIPLEX_SYNCH_GET: u8 = 0x08;
    pub const GEN_CONN_TAG_CAPABLE: u8 = 0x20;
}

/// IniErrorFlags1 bits (MQ_IEF1_*): the value the receiver changed.
pub mod ief1 {
    pub const CCSID: u8 = 0x01;
    pub const ENCODING: u8 = 0x02;
    pub const MAX_TRANSMISSION_SIZE: u8 = 0x04;
    pub const FAP_LEVEL: u8 = 0x08;
    pub const MAX_MSG_SIZE: u8 = 0x10;
    pub const MAX_MSG_PER_BATCH: u8 = 0x20;
    pub const SEQ_WRAP_VALUE: u8 = 0x40;
    pub const HEARTBEAT_INTERVAL: u8 = 0x80;
}

/// An INITIAL_DATA body. Fields past `length` read as zero and are not
/// written.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct InitialData {
    pub ebcdic: bool,
    /// Bytes in the body as received (44 ..= 240, or more with `extension`).
    pub length: usize,
    pub fap_level: u8,
    pub capability_flags1: u8,
    pub e_capability_flags1: u8,
    pub ini_error_flags1: u8,
    pub reserved: [u8; 2],
    pub max_msg_batch: u16,
    /// Bytes.
    pub max_transmission_size: i32,
    /// Bytes.
    pub max_msg_size: i32,
    pub seq_wrap_value: i32,
    pub channel_name: [u8; 20],
    pub capability_flags2: u8,
    pub e_capability_flags2: u8,
    pub ccsid: u16,
    pub q_mgr_name: [u8; 48],
    /// Seconds.
    pub heartbeat_interval: i32,
    pub efl_length: u16,
    pub ini_error_flags2: u8,
    pub reserved1: u8,
    pub hdr_comp_list: [u8; 2],
    pub msg_comp_list: [u8; 16],
    pub reserved2: [u8; 2],
    pub ssl_key_reset_count: i32,
    /// SHARECNV: conversations per socket.
    pub conv_per_socket: i32,
    pub capability_flags3: u8,
    pub e_capability_flags3: u8,
    pub reserved3: [u8; 2],
    pub process_id: i32,
    pub thread_id: i32,
    pub trace_id: i32,
    pub product_id: [u8; 12],
    pub q_mgr_identifier: [u8; 48],
    pub protection_algorithms: [u8; 20],
    pub random: [u8; 12],
    /// Bytes after the 240 this codec knows.
    pub extension: Vec<u8>,
}

impl Default for InitialData {
    fn default() -> Self {
        InitialData {
            ebcdic: false,
            length: ID_LEN_FULL,
            fap_level: 0,
            capability_flags1: 0,
            e_capability_flags1: 0,
            ini_error_flags1: 0,
            reserved: [0; 2],
            max_msg_batch: 0,
            max_transmission_size: 0,
            max_msg_size: 0,
            seq_wrap_value: 0,
            channel_name: [b' '; 20],
            capability_flags2: 0,
            e_capability_flags2: 0,
            ccsid: 0,
            q_mgr_name: [b' '; 48],
            heartbeat_interval: 0,
            efl_length: 0,
            ini_error_flags2: 0,
            reserved1: 0,
            hdr_comp_list: [0; 2],
            msg_comp_list: [0; 16],
            reserved2: [0; 2],
            ssl_key_reset_count: 0,
            conv_per_socket: 0,
            capability_flags3: 0,
            e_capability_flags3: 0,
            reserved3: [0; 2],
            process_id: 0,
            thread_id: 0,
            trace_id: 0,
            product_id: [b' '; 12],
            q_mgr_identifier: [b' '; 48],
            protection_algorithms: [0xFF; 20],
            random: [0; 12],
            extension: Vec::new(),
        }
    }
}

/// Parses an INITIAL_DATA body (`base` = its offset in the segment),
/// integers in `order`. Errors ([`FapStructure::InitialData`], 2009): fewer
/// than 44 bytes, bad StrucId.
pub fn parse_id(body: &[u8], base: usize, order: ByteOrder) -> Result<InitialData, FapError> {
    let mut r = Reader::new(body, base, FapStructure::InitialData, order);
    if body.len() < ID_LEN_MIN {
        return Err(r.error(
            "length",
            FapErrorKind::Truncated {
                needed: ID_LEN_MIN,
                available: body.len(),
            },
        ));
    }
    // Short forms are read as the full 240 bytes with zeros after the body.
    let mut full = [0u8; ID_LEN_FULL];
    let n = body.len().min(ID_LEN_FULL);
    full[..n].copy_from_slice(&body[..n]);
    let ebcdic = r.struc_id(ASCII, EBCDIC)?;
    let mut f = Reader::new(&full[4..], base + 4, FapStructure::InitialData, order);
    Ok(InitialData {
        ebcdic,
        length: body.len(),
        fap_level: f.u8("FapLevel")?,
        capability_flags1: f.u8("CapabilityFlags1")?,
        e_capability_flags1: f.u8("ECapabilityFlags1")?,
        ini_error_flags1: f.u8("IniErrorFlags1")?,
        reserved: f.array("Reserved")?,
        max_msg_batch: f.u16("MaxMsgBatch")?,
        max_transmission_size: f.i32("MaxTransmissionSize")?,
        max_msg_size: f.i32("MaxMsgSize")?,
        seq_wrap_value: f.i32("SeqWrapValue")?,
        channel_name: f.array("ChannelName")?,
        capability_flags2: f.u8("CapabilityFlags2")?,
        e_capability_flags2: f.u8("ECapabilityFlags2")?,
        ccsid: f.u16("CCSID")?,
        q_mgr_name: f.array("QMgrName")?,
        heartbeat_interval: f.i32("HeartbeatInterval")?,
        efl_length: f.u16("EFLLength")?,
        ini_error_flags2: f.u8("IniErrorFlags2")?,
        reserved1: f.u8("Reserved1")?,
        hdr_comp_list: f.array("HdrCompList")?,
        msg_comp_list: f.array("MsgCompList")?,
        reserved2: f.array("Reserved2")?,
        ssl_key_reset_count: f.i32("SSLKeyResetCount")?,
        conv_per_socket: f.i32("ConvPerSocket")?,
        capability_flags3: f.u8("CapabilityFlags3")?,
        e_capability_flags3: f.u8("ECapabilityFlags3")?,
        reserved3: f.array("Reserved3")?,
        process_id: f.i32("ProcessId")?,
        thread_id: f.i32("ThreadId")?,
        trace_id: f.i32("TraceId")?,
        product_id: f.array("ProductId")?,
        q_mgr_identifier: f.array("QMgrIdentifier")?,
        protection_algorithms: f.array("ProtectionAlgorithms")?,
        random: f.array("Random")?,
        extension: body.get(ID_LEN_FULL..).unwrap_or_default().to_vec(),
    })
}

/// Appends `id` to `out`: its first `length` bytes (the fields past it are
/// not written), integers in `order`.
pub fn write_id(id: &InitialData, order: ByteOrder, out: &mut Vec<u8>) {
    let mut full = Vec::with_capacity(ID_LEN_FULL + id.extension.len());
    let mut w = Writer {
        out: &mut full,
        order,
    };
    w.bytes(&struc_id_bytes(ASCII, EBCDIC, id.ebcdic));
    w.bytes(&[
        id.fap_level,
        id.capability_flags1,
        id.e_capability_flags1,
        id.ini_error_flags1,
    ]);
    w.bytes(&id.reserved);
    w.u16(id.max_msg_batch);
    w.i32(id.max_transmission_size);
    w.i32(id.max_msg_size);
    w.i32(id.seq_wrap_value);
    w.bytes(&id.channel_name);
    w.bytes(&[id.capability_flags2, id.e_capability_flags2]);
    w.u16(id.ccsid);
    w.bytes(&id.q_mgr_name);
    w.i32(id.heartbeat_interval);
    w.u16(id.efl_length);
    w.bytes(&[id.ini_error_flags2, id.reserved1]);
    w.bytes(&id.hdr_comp_list);
    w.bytes(&id.msg_comp_list);
    w.bytes(&id.reserved2);
    w.i32(id.ssl_key_reset_count);
    w.i32(id.conv_per_socket);
    w.bytes(&[id.capability_flags3, id.e_capability_flags3]);
    w.bytes(&id.reserved3);
    w.i32(id.process_id);
    w.i32(id.thread_id);
    w.i32(id.trace_id);
    w.bytes(&id.product_id);
    w.bytes(&id.q_mgr_identifier);
    w.bytes(&id.protection_algorithms);
    w.bytes(&id.random);
    w.bytes(&id.extension);
    full.truncate(id.length.max(ID_LEN_MIN));
    out.extend_from_slice(&full);
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn field_offsets_and_short_forms() {
        let id = InitialData {
            fap_level: 17,
            max_transmission_size: 32748,
            max_msg_size: 4_194_304,
            heartbeat_interval: 300,
            conv_per_socket: 10,
            ccsid: 819,
            ..InitialData::default()
        };
        let mut b = Vec::new();
        write_id(&id, ByteOrder::Big, &mut b);
        assert_eq!(b.len(), 240);
        // FAP level 17 at 4, MaxTransmissionSize 32748 (7F EC) at 12,
        // HeartbeatInterval 300 (01 2C) at 96, ConvPerSocket 10 at 128: the
        // offsets of the Wireshark MQ dissector, as in a real JMS client's
        // big-endian first INITIAL_DATA.
        assert_eq!(b[4], 17);
        assert_eq!(&b[12..16], &[0, 0, 0x7F, 0xEC]);
        assert_eq!(&b[96..100], &[0, 0, 1, 0x2C]);
        assert_eq!(&b[128..132], &[0, 0, 0, 10]);
        assert_eq!(parse_id(&b, 28, ByteOrder::Big).unwrap(), id);
        let short = parse_id(&b[..102], 28, ByteOrder::Big).unwrap();
        assert_eq!(short.length, 102);
        assert_eq!(short.conv_per_socket, 0);
        let mut out = Vec::new();
        write_id(&short, ByteOrder::Big, &mut out);
        assert_eq!(out, &b[..102]);
        let e = parse_id(&b[..40], 28, ByteOrder::Big).unwrap_err();
        assert_eq!(e.mqrc().0, 2009);
        assert_eq!(e.status_code().0, 0x0E);
    }
}

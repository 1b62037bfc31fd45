//! SPI (segment type 0x8C, reply 0x9C): the service provider interface IBM's
//! JMS client uses to ask which extra verbs a queue manager offers (QUERY,
//! verb 1) and to open queues with JMS defaults (OPEN, verb 12). Nothing of
//! it is published; the layout is the Wireshark MQ dissector's ("SPI",
//! "SPQU"/"SPQI"/"SPQO", "SPOU"/"SPOI"/"SPOO", "LPOO"), checked against
//! real JMS client traffic.
//!
//! After the API header: Verb, Version, ReplyLength (4 bytes each), then
//! structures of StrucId `SP..`, Version, Length (Length counts these 12
//! bytes): an in-out part (`SPQU`, `SPOU`) and an in part (`SPQI`, `SPOI`)
//! in a request, or an out part (`SPQO`, `SPOO`) in a reply.
//!
//! - SPQO: verb count, then per verb VerbId, MaxInOutVersion, MaxInVersion,
//!   MaxOutVersion, Flags (20 bytes each).
//! - SPOI: LPOO, MQOD. SPOO: LPOO, MQOD, then attribute data.
//! - LPOO: StrucId `LPOO`, Version, OpenOptions (MQOO_*), LpiOptions,
//!   DefPersistence, DefPutResponseType, DefReadAhead, PropertyControl
//!   (32 bytes); from Version 3 also a 48-byte queue name and two integers
//!   (88 bytes; the dissector calls them QProtect).

use crate::mq::ByteOrder;

use super::error::{FapError, FapErrorKind, FapStructure};
use super::od::{Mqod, parse_od, write_od};
use super::read::{Reader, Writer, struc_id_bytes};

/// SPI verbs (MQ_SPI_* of the Wireshark MQ dissector).
pub mod verb {
    pub const QUERY: i32 = 1;
    pub const PUT: i32 = 2;
    pub const GET: i32 = 3;
    pub const ACTIVATE: i32 = 4;
    pub const OPEN: i32 = 12;
}

const LPOO_ASCII: &[u8; 4] = b"LPOO";
const LPOO_EBCDIC: &[u8; 4] = &[0xD3, 0xD7, 0xD6, 0xD6];

/// The most parts an SPI segment may hold.
pub const MAX_PARTS: usize = 8;

/// One `SP..` structure: its StrucId, Version and contents.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct SpiPart<'a> {
    /// `SPQU`, `SPOI`, ... in ASCII or EBCDIC.
    pub struc_id: [u8; 4],
    pub version: i32,
    /// Length - 12 bytes.
    pub data: &'a [u8],
}

impl SpiPart<'_> {
    /// The StrucId in ASCII (EBCDIC ones converted for comparison).
    pub fn name(&self) -> [u8; 4] {
        self.struc_id.map(|b| match b {
            0xE2 => b'S',
            0xD7 => b'P',
            0xD8 => b'Q',
            0xD6 => b'O',
            0xC7 => b'G',
            0xC1 => b'A',
            0xE4 => b'U',
            0xC9 => b'I',
            other => other,
        })
    }
}

/// An SPI request or reply.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct SpiData<'a> {
    pub verb: i32,
    pub version: i32,
    /// Bytes.
    pub reply_length: i32,
    pub parts: Vec<SpiPart<'a>>,
}

/// Parses SPI parameters (`base` = the body's offset in the segment).
/// Errors ([`FapStructure::Spi`]): a StrucId not starting `SP`, a Length
/// below 12 or past the body, more than [`MAX_PARTS`] parts.
pub fn parse_spi(body: &[u8], base: usize, order: ByteOrder) -> Result<SpiData<'_>, FapError> {
    let mut r = Reader::new(body, base, FapStructure::Spi, order);
    let verb = r.i32("Verb")?;
    let version = r.i32("Version")?;
    let reply_length = r.i32("ReplyLength")?;
    let mut parts = Vec::new();
    while r.remaining() > 0 {
        if parts.len() == MAX_PARTS {
            return Err(r.error(
                "StrucId",
                FapErrorKind::TrailingBytes {
                    count: r.remaining(),
                },
            ));
        }
        let at = r.pos();
        let struc_id: [u8; 4] = r.array("StrucId")?;
        if struc_id[..2] != *b"SP" && struc_id[..2] != [0xE2, 0xD7] {
            return Err(r.error_at(at, "StrucId", FapErrorKind::BadStrucId { found: struc_id }));
        }
        let version = r.i32("Version")?;
        let len_at = r.pos();
        let len = r.count("Length", r.remaining() + 8)?;
        if len < 12 {
            return Err(r.error_at(
                len_at,
                "Length",
                FapErrorKind::OutOfRange {
                    value: len as i64,
                    min: 12,
                    max: (r.remaining() + 12) as i64,
                },
            ));
        }
        let data = r.bytes("Length", len - 12)?;
        parts.push(SpiPart {
            struc_id,
            version,
            data,
        });
    }
    Ok(SpiData {
        verb,
        version,
        reply_length,
        parts,
    })
}

/// Appends SPI parameters to `out`; each part's Length is its data plus 12.
pub fn write_spi(s: &SpiData<'_>, order: ByteOrder, out: &mut Vec<u8>) {
    let mut w = Writer { out, order };
    w.i32(s.verb);
    w.i32(s.version);
    w.i32(s.reply_length);
    for p in &s.parts {
        w.bytes(&p.struc_id);
        w.i32(p.version);
        w.i32(12 + p.data.len() as i32);
        w.bytes(p.data);
    }
}

/// One verb an SPQO offers.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct SpiVerb {
    pub verb: i32,
    pub max_inout_version: i32,
    pub max_in_version: i32,
    pub max_out_version: i32,
    pub flags: i32,
}

/// Reads the verbs of an SPQO part's data. Errors: a count past the data.
pub fn parse_spqo(data: &[u8], base: usize, order: ByteOrder) -> Result<Vec<SpiVerb>, FapError> {
    let mut r = Reader::new(data, base, FapStructure::Spi, order);
    let n = r.count("NumberOfVerbs", data.len().saturating_sub(4) / 20)?;
    let mut verbs = Vec::with_capacity(n);
    for _ in 0..n {
        verbs.push(SpiVerb {
            verb: r.i32("VerbId")?,
            max_inout_version: r.i32("MaxInOutVersion")?,
            max_in_version: r.i32("MaxInVersion")?,
            max_out_version: r.i32("MaxOutVersion")?,
            flags: r.i32("Flags")?,
        });
    }
    r.end()?;
    Ok(verbs)
}

/// Appends an SPQO part's data for `verbs`.
pub fn write_spqo(verbs: &[SpiVerb], order: ByteOrder, out: &mut Vec<u8>) {
    let mut w = Writer { out, order };
    w.i32(verbs.len() as i32);
    for v in verbs {
        for x in [
            v.verb,
            v.max_inout_version,
            v.max_in_version,
            v.max_out_version,
            v.flags,
        ] {
            w.i32(x);
        }
    }
}

/// The LPOO of an SPI open.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Lpoo {
    pub ebcdic: bool,
    pub version: i32,
    /// MQOO_*.
    pub options: i32,
    pub lpi_options: i32,
    pub def_persistence: i32,
    pub def_put_response_type: i32,
    pub def_read_ahead: i32,
    pub property_control: i32,
    /// Version 3: the queue name and two integers.
    pub v3: Option<([u8; 48], i32, i32)>,
}

impl Lpoo {
    /// Length on the wire: 32 bytes, 88 from Version 3.
    pub fn wire_len(&self) -> usize {
        if self.v3.is_some() { 88 } else { 32 }
    }
}

/// The contents of SPOI (request) or SPOO (reply): LPOO, MQOD and, in a
/// reply, attribute data.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct SpiOpen<'a> {
    pub lpoo: Lpoo,
    pub od: Mqod,
    pub extra: &'a [u8],
}

/// Reads the data of an SPOI or SPOO part (`base` = its offset in the
/// segment). Errors: bad LPOO StrucId ([`FapStructure::Lpoo`]), the MQOD's.
pub fn parse_spi_open(data: &[u8], base: usize, order: ByteOrder) -> Result<SpiOpen<'_>, FapError> {
    let mut r = Reader::new(data, base, FapStructure::Lpoo, order);
    let ebcdic = r.struc_id(LPOO_ASCII, LPOO_EBCDIC)?;
    let version = r.i32("Version")?;
    let mut lpoo = Lpoo {
        ebcdic,
        version,
        options: r.i32("OpenOptions")?,
        lpi_options: r.i32("LpiOptions")?,
        def_persistence: r.i32("DefPersistence")?,
        def_put_response_type: r.i32("DefPutResponseType")?,
        def_read_ahead: r.i32("DefReadAhead")?,
        property_control: r.i32("PropertyControl")?,
        v3: None,
    };
    if version >= 3 {
        lpoo.v3 = Some((
            r.array("QProtect")?,
            r.i32("QProtectValue1")?,
            r.i32("QProtectValue2")?,
        ));
    }
    let at = r.pos();
    let (od, n) = parse_od(&data[at..], base + at, order)?;
    Ok(SpiOpen {
        lpoo,
        od,
        extra: &data[at + n..],
    })
}

/// Appends the data of an SPOI or SPOO part.
pub fn write_spi_open(o: &SpiOpen<'_>, order: ByteOrder, out: &mut Vec<u8>) {
    let l = &o.lpoo;
    let mut w = Writer {
        out: &mut *out,
        order,
    };
    w.bytes(&struc_id_bytes(LPOO_ASCII, LPOO_EBCDIC, l.ebcdic));
    for v in [
        l.version,
        l.options,
        l.lpi_options,
        l.def_persistence,
        l.def_put_response_type,
        l.def_read_ahead,
        l.property_control,
    ] {
        w.i32(v);
    }
    if let Some((name, a, b)) = &l.v3 {
        w.bytes(name);
        w.i32(*a);
        w.i32(*b);
    }
    write_od(&o.od, order, out);
    out.extend_from_slice(o.extra);
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_real_spi_query() {
        // A JMS client's SPI QUERY: verb 1, version 1, reply length 256,
        // SPQU and SPQI of 12 bytes each.
        let b = hex::decode(
            "010000000100000000010000\
             53505155010000000c000000\
             53505149010000000c000000",
        )
        .unwrap();
        let s = parse_spi(&b, 52, ByteOrder::Little).unwrap();
        assert_eq!((s.verb, s.version, s.reply_length), (verb::QUERY, 1, 256));
        assert_eq!(s.parts.len(), 2);
        assert_eq!(&s.parts[0].name(), b"SPQU");
        assert_eq!(&s.parts[1].name(), b"SPQI");
        let mut out = Vec::new();
        write_spi(&s, ByteOrder::Little, &mut out);
        assert_eq!(out, b);
        let mut bad = b.clone();
        bad[20..24].copy_from_slice(&4i32.to_le_bytes());
        let e = parse_spi(&bad, 52, ByteOrder::Little).unwrap_err();
        assert_eq!((e.field, e.offset), ("Length", 72));
    }

    #[test]
    fn spqo_verbs_and_spi_open_round_trip() {
        let verbs = [SpiVerb {
            verb: verb::OPEN,
            max_inout_version: 1,
            max_in_version: 2,
            max_out_version: 2,
            flags: 1,
        }];
        let mut b = Vec::new();
        write_spqo(&verbs, ByteOrder::Little, &mut b);
        assert_eq!(parse_spqo(&b, 88, ByteOrder::Little).unwrap(), verbs);
        assert!(parse_spqo(&b[..20], 88, ByteOrder::Little).is_err());
        let o = SpiOpen {
            lpoo: Lpoo {
                ebcdic: false,
                version: 3,
                options: 0x2010,
                lpi_options: 0x20,
                def_persistence: -1,
                def_put_response_type: -1,
                def_read_ahead: -1,
                property_control: -1,
                v3: Some(([b' '; 48], 0, 10240)),
            },
            od: Mqod {
                version: 2,
                ..Mqod::default()
            },
            extra: &[],
        };
        let mut b = Vec::new();
        write_spi_open(&o, ByteOrder::Little, &mut b);
        // SPOI Length 300 in real traffic = 12 + 88 (LPOO v3) + 200 (MQOD v2).
        assert_eq!(12 + b.len(), 300);
        assert_eq!(parse_spi_open(&b, 88, ByteOrder::Little).unwrap(), o);
    }
}

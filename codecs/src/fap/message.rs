//! The message verbs' bodies (after the API header; the Wireshark MQ
//! dissector's "MQPUT/MQGET"):
//!
//! - MQPUT and its reply: MQMD, MQPMO, DataLength (4 bytes), then the
//!   message data (the reply carries none);
//! - MQPUT1 and its reply: MQOD first, then as MQPUT;
//! - MQGET: MQMD, MQGMO, BufferLength (4 bytes); its reply: MQMD, MQGMO,
//!   DataLength, then the data. With an MQMD v1 and an MQGMO v4 the data
//!   starts at 36 + 16 + 324 + 112 + 4 = 492 bytes into the segment, the
//!   offset IBM's sample receive exits know.
//!
//! The MQMD is the MQ header codec's ([`crate::mq::md`]), read in the
//! segment's byte order.

use crate::mq::md::{Mqmd, parse_md, write_md};
use crate::mq::{ByteOrder, Charset};

use super::error::{FapError, FapErrorKind, FapStructure};
use super::gmo::{Mqgmo, parse_gmo, write_gmo};
use super::od::{Mqod, parse_od, write_od};
use super::pmo::{Mqpmo, parse_pmo, write_pmo};
use super::read::{Reader, Writer};

/// MQPUT / MQPUT1 parameters (request or reply).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct PutData<'a> {
    /// MQPUT1 only.
    pub od: Option<Mqod>,
    pub md: Mqmd,
    /// The charset of the MQMD's character fields.
    pub md_charset: Charset,
    pub pmo: Mqpmo,
    /// The length of the message, bytes.
    pub data_length: i32,
    /// The message data that follows (none in a reply).
    pub data: &'a [u8],
}

/// MQGET parameters (request: `length` = BufferLength, no data; reply:
/// `length` = DataLength, the message's length, and the data returned).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct GetData<'a> {
    pub md: Mqmd,
    pub md_charset: Charset,
    pub gmo: Mqgmo,
    /// BufferLength (request) or DataLength (reply), bytes.
    pub length: i32,
    pub data: &'a [u8],
}

fn md_at(
    body: &[u8],
    at: usize,
    base: usize,
    order: ByteOrder,
) -> Result<(Mqmd, Charset, usize), FapError> {
    let (md, cs) = parse_md(&body[at..], order).map_err(|e| FapError::from_md(e, base + at))?;
    let len = md.wire_len();
    Ok((md, cs, len))
}

fn length_field<'a>(
    body: &'a [u8],
    at: usize,
    base: usize,
    order: ByteOrder,
    field: &'static str,
) -> Result<(i32, &'a [u8]), FapError> {
    let mut r = Reader::new(&body[at..], base + at, FapStructure::MessageData, order);
    let v = r.i32(field)?;
    if v < 0 {
        return Err(r.error_at(
            0,
            field,
            FapErrorKind::OutOfRange {
                value: i64::from(v),
                min: 0,
                max: i64::from(i32::MAX),
            },
        ));
    }
    Ok((v, r.rest()))
}

/// Parses MQPUT (`put1` false) or MQPUT1 (`put1` true) parameters, request
/// or reply (`base` = the body's offset in the segment). Errors: the MQOD's
/// (2044), MQMD's (2026), MQPMO's (2173); a missing or negative DataLength
/// (2010).
pub fn parse_put(
    body: &[u8],
    base: usize,
    order: ByteOrder,
    put1: bool,
) -> Result<PutData<'_>, FapError> {
    let (od, mut at) = if put1 {
        let (od, n) = parse_od(body, base, order)?;
        (Some(od), n)
    } else {
        (None, 0)
    };
    let (md, md_charset, n) = md_at(body, at, base, order)?;
    at += n;
    let (pmo, n) = parse_pmo(&body[at..], base + at, order)?;
    at += n;
    let (data_length, data) = length_field(body, at, base, order, "DataLength")?;
    Ok(PutData {
        od,
        md,
        md_charset,
        pmo,
        data_length,
        data,
    })
}

/// Appends MQPUT / MQPUT1 parameters and data to `out`.
pub fn write_put(p: &PutData<'_>, order: ByteOrder, out: &mut Vec<u8>) {
    if let Some(od) = &p.od {
        write_od(od, order, out);
    }
    write_md(&p.md, order, p.md_charset, out);
    write_pmo(&p.pmo, order, out);
    let mut w = Writer { out, order };
    w.i32(p.data_length);
    w.bytes(p.data);
}

/// Parses MQGET parameters, request or reply (`base` = the body's offset
/// in the segment). Errors: the MQMD's (2026), MQGMO's (2186); a missing or
/// negative BufferLength (2005 MQRC_BUFFER_LENGTH_ERROR) or DataLength (2010).
pub fn parse_get(body: &[u8], base: usize, order: ByteOrder) -> Result<GetData<'_>, FapError> {
    let (md, md_charset, mut at) = md_at(body, 0, base, order)?;
    let (gmo, n) = parse_gmo(&body[at..], base + at, order)?;
    at += n;
    let (length, data) = length_field(body, at, base, order, "BufferLength")?;
    Ok(GetData {
        md,
        md_charset,
        gmo,
        length,
        data,
    })
}

/// Appends MQGET parameters and data to `out`.
pub fn write_get(g: &GetData<'_>, order: ByteOrder, out: &mut Vec<u8>) {
    write_md(&g.md, order, g.md_charset, out);
    write_gmo(&g.gmo, order, out);
    let mut w = Writer { out, order };
    w.i32(g.length);
    w.bytes(g.data);
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn get_reply_data_starts_at_492_with_md_v1_and_gmo_v4() {
        let g = GetData {
            md: Mqmd {
                version: 1,
                ..Mqmd::default()
            },
            md_charset: Charset::Ascii,
            gmo: Mqgmo {
                version: 4,
                ..Mqgmo::default()
            },
            length: 3,
            data: b"XQH",
        };
        let mut b = Vec::new();
        write_get(&g, ByteOrder::Little, &mut b);
        // 36 (TSHM) + 16 (API header) + 440 = 492: the data offset of the
        // IBM developerWorks sample receive exit's agent buffer.
        assert_eq!(36 + 16 + b.len() - 3, 492);
        assert_eq!(parse_get(&b, 52, ByteOrder::Little).unwrap(), g);
        let mut bad = b.clone();
        bad[436..440].copy_from_slice(&(-5i32).to_le_bytes());
        let e = parse_get(&bad, 52, ByteOrder::Little).unwrap_err();
        // 2005 MQRC_BUFFER_LENGTH_ERROR (IBM MQ "2005 (07D5) (RC2005):
        // MQRC_BUFFER_LENGTH_ERROR": a BufferLength below zero).
        assert_eq!((e.offset, e.field, e.mqrc().0), (488, "BufferLength", 2005));
        let e = parse_get(&b[..300], 52, ByteOrder::Little).unwrap_err();
        assert_eq!((e.structure, e.mqrc().0), (FapStructure::Md, 2026));
    }

    #[test]
    fn put1_carries_an_od_first() {
        let p = PutData {
            od: Some(Mqod::default()),
            md: Mqmd::default(),
            md_charset: Charset::Ascii,
            pmo: Mqpmo::default(),
            data_length: 2,
            data: b"hi",
        };
        let mut b = Vec::new();
        write_put(&p, ByteOrder::Big, &mut b);
        assert_eq!(b.len(), 168 + 364 + 128 + 4 + 2);
        assert_eq!(parse_put(&b, 52, ByteOrder::Big, true).unwrap(), p);
        let e = parse_put(&b, 52, ByteOrder::Big, false).unwrap_err();
        assert_eq!(e.structure, FapStructure::Md);
    }
}

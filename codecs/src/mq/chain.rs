//! The header chain (IBM MQ "MQRFH2 - Rules and formatting header 2": each
//! header's Encoding, CodedCharSetId and Format describe the next item): from
//! an MQXQH, an MQMD or a bare first structure, follow the Format names
//! (`MQXMIT`, `MQHRF`, `MQHRF2`, `MQDEAD`, `MQHMDE`, `MQIMS`, `MQCICS`,
//! `MQHWIH`, `MQHREF`, `MQHDIST`) to the body. Each header is read with the
//! Encoding/CCSID of the structure before it; its StrucId must match the
//! Format that announced it; an unknown Format ends the chain. The
//! Encoding and CodedCharSetId of an MQIIH or MQCIH are reserved: what
//! follows them is in their own Encoding and CCSID (IBM MQ "Encoding
//! (MQLONG) for MQIIH", "MQCIH - CICS bridge header").
//!
//! [`parse_chain`] only validates and indexes (no copy, no allocation for up
//! to four headers); [`Chain::decode`] builds the typed headers, and
//! [`write_chain`] writes them back byte for byte.

use smallvec::SmallVec;

use super::constants::ccsi;
use super::dlh::{Mqdlh, parse_dlh, scan_dlh, write_dlh};
use super::enc::ByteOrder;
use super::error::{DecodeError, DecodeErrorKind};
use super::field::{CharField, Charset};
use super::md::{Mqmd, parse_md, scan_md, write_md};
use super::mde::{Mqmde, parse_mde, scan_mde, write_mde};
use super::opaque::{OpaqueHeader, parse_opaque, scan_opaque, write_opaque};
use super::quick;
use super::rfh::{Mqrfh, parse_rfh, scan_rfh, write_rfh};
use super::rfh2::{Mqrfh2, parse_rfh2, scan_rfh2, write_rfh2};
use super::strucid::{Structure, ascii_format};
use super::xqh::{Mqxqh, parse_xqh, scan_xqh, write_xqh};

/// What a structure says about the item after it: its Encoding,
/// CodedCharSetId and Format (the Format in `charset`, the charset of the
/// structure that holds the field).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Descriptor {
    /// MQENC_* of the next item.
    pub encoding: i32,
    /// CCSID of the next item (MQCCSI_INHERIT -2 = same as the structure holding it).
    pub coded_char_set_id: i32,
    /// MQFMT_* of the next item, raw bytes.
    pub format: CharField<8>,
    /// Charset of `format`.
    pub charset: Charset,
}

impl Descriptor {
    /// The Format as ASCII text, trailing blanks removed (`MQSTR`); a NUL
    /// ends it.
    pub fn format_name(&self) -> String {
        let a = ascii_format(&self.format, self.charset);
        String::from_utf8_lossy(&a).trim_end().to_owned()
    }
}

/// How the caller describes the start of the input. With everything `None` the
/// first structure is recognised by its StrucId (MQMD, MQXQH, or any chained
/// header, ASCII or EBCDIC) and its byte order by its Version field (mqgate's
/// rule for a binary MQMD of unknown origin: Version 1 or 2 read both ways
/// decides).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct ChainOptions {
    /// MQENC Encoding of the first structure; `None` = detect from Version.
    pub encoding: Option<i32>,
    /// CCSID of the first structure; `None` = 0 (unknown, queue manager's).
    pub ccsid: Option<i32>,
    /// Format of the input when it has no MQMD (ASCII, e.g. `MQHRF2  `); a
    /// Format that names no header makes the whole input the body. `None` =
    /// recognise the first structure by its StrucId.
    pub format: Option<CharField<8>>,
}

/// One structure of a chain.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Link {
    /// Which structure.
    pub structure: Structure,
    /// Offset from the start of the input, bytes.
    pub offset: usize,
    /// Length on the wire, bytes (fixed or StrucLength).
    pub length: usize,
    /// The Encoding it was read with (from the structure before it, or
    /// detected: 273 / 546).
    pub encoding: i32,
    /// The CCSID it is in (from the structure before it; 0 when unknown).
    pub coded_char_set_id: i32,
    /// The charset its StrucId is in.
    pub charset: Charset,
    /// What it says about the next item.
    pub next: Descriptor,
}

impl Link {
    /// The byte order of its integers.
    pub fn order(&self) -> ByteOrder {
        ByteOrder::from_encoding(self.encoding)
    }

    /// Its bytes within `input` (the input given to [`parse_chain`]).
    pub fn bytes<'a>(&self, input: &'a [u8]) -> &'a [u8] {
        input
            .get(self.offset..self.offset + self.length)
            .unwrap_or(&[])
    }

    /// The typed structure, borrowing from `input` (the input given to
    /// [`parse_chain`]). Offsets in errors count from the input's start.
    pub fn decode<'a>(&self, input: &'a [u8]) -> Result<Header<'a>, DecodeError> {
        let b = self.bytes(input);
        let order = self.order();
        let h = match self.structure {
            Structure::Md => parse_md(b, order).map(|(m, _)| Header::Md(Box::new(m))),
            Structure::Xqh => parse_xqh(b, order).map(|(x, _)| Header::Xqh(Box::new(x))),
            Structure::Mde => parse_mde(b, order).map(|(m, _)| Header::Mde(m)),
            Structure::Dlh => parse_dlh(b, order).map(|(d, _)| Header::Dlh(d)),
            Structure::Rfh => parse_rfh(b, order).map(|(r, _)| Header::Rfh(r)),
            Structure::Rfh2 => parse_rfh2(b, order).map(|(r, _)| Header::Rfh2(r)),
            s @ (Structure::Iih
            | Structure::Cih
            | Structure::Wih
            | Structure::Rmh
            | Structure::Dh) => parse_opaque(s, b, order).map(|(o, _)| Header::Opaque(o)),
        };
        h.map_err(|e| e.shifted(self.offset))
    }
}

/// A typed header of a chain.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Header<'a> {
    /// MQMD (v1 or v2).
    Md(Box<Mqmd>),
    /// MQXQH with its embedded MQMD v1.
    Xqh(Box<Mqxqh>),
    /// MQMDE.
    Mde(Mqmde),
    /// MQDLH.
    Dlh(Mqdlh),
    /// MQRFH version 1.
    Rfh(Mqrfh<'a>),
    /// MQRFH2.
    Rfh2(Mqrfh2<'a>),
    /// MQIIH, MQCIH, MQWIH, MQRMH or MQDH, prefix only (the rest as bytes; its
    /// fields in [`super::layout`]).
    Opaque(OpaqueHeader<'a>),
}

impl Header<'_> {
    /// Which structure.
    pub fn structure(&self) -> Structure {
        match self {
            Header::Md(_) => Structure::Md,
            Header::Xqh(_) => Structure::Xqh,
            Header::Mde(_) => Structure::Mde,
            Header::Dlh(_) => Structure::Dlh,
            Header::Rfh(_) => Structure::Rfh,
            Header::Rfh2(_) => Structure::Rfh2,
            Header::Opaque(o) => o.structure,
        }
    }

    /// Appends the header to `out`, integers in `order`, StrucId in `cs`.
    pub fn write(&self, order: ByteOrder, cs: Charset, out: &mut Vec<u8>) {
        match self {
            Header::Md(m) => write_md(m, order, cs, out),
            Header::Xqh(x) => write_xqh(x, order, cs, out),
            Header::Mde(m) => write_mde(m, order, cs, out),
            Header::Dlh(d) => write_dlh(d, order, cs, out),
            Header::Rfh(r) => write_rfh(r, order, cs, out),
            Header::Rfh2(r) => write_rfh2(r, order, cs, out),
            Header::Opaque(o) => write_opaque(o, order, cs, out),
        }
    }
}

/// The structures of a message and where its body starts.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Chain<'a> {
    /// The input given to [`parse_chain`].
    pub input: &'a [u8],
    /// The structures in order.
    pub links: SmallVec<[Link; 4]>,
    /// Offset of the body (after the last structure), bytes.
    pub body_offset: usize,
    /// Encoding, CCSID (MQCCSI_INHERIT resolved) and Format of the body.
    pub body_descriptor: Descriptor,
}

impl<'a> Chain<'a> {
    /// The body: everything after the last structure.
    pub fn body(&self) -> &'a [u8] {
        self.input.get(self.body_offset..).unwrap_or(&[])
    }

    /// The body as a zero-copy slice of `message`, the owned buffer whose bytes
    /// were given to [`parse_chain`] (mqgate keeps bodies as `Bytes` slices,
    /// docs/architecture.md). Empty when `message` is shorter than the headers.
    pub fn body_bytes(&self, message: &bytes::Bytes) -> bytes::Bytes {
        message.slice(self.body_offset.min(message.len())..)
    }

    /// Decodes every link into its typed header.
    pub fn decode(&self) -> Result<DecodedChain<'a>, DecodeError> {
        let mut headers = Vec::with_capacity(self.links.len());
        for l in &self.links {
            headers.push(DecodedHeader {
                link: *l,
                header: l.decode(self.input)?,
            });
        }
        Ok(DecodedChain {
            headers,
            body: self.body(),
        })
    }
}

/// A typed header with the link it came from (its byte order and charset).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct DecodedHeader<'a> {
    /// Where it was and how it was read.
    pub link: Link,
    /// The typed header; may be changed before [`write_chain`].
    pub header: Header<'a>,
}

/// Every header of a message, typed, and its body.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct DecodedChain<'a> {
    /// The headers in order.
    pub headers: Vec<DecodedHeader<'a>>,
    /// The body bytes.
    pub body: &'a [u8],
}

/// Writes `chain` back: every header in the byte order and charset it was
/// read with, then the body. Unchanged headers come out byte for byte.
pub fn write_chain(chain: &DecodedChain<'_>, out: &mut Vec<u8>) {
    for h in &chain.headers {
        h.header.write(h.link.order(), h.link.charset, out);
    }
    out.extend_from_slice(chain.body);
}

/// A chain that stopped at a bad structure: the part decoded before it
/// (its body is the rest of the input, from the bad structure on) and the error.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ChainError<'a> {
    /// The structures read before the error.
    pub partial: Chain<'a>,
    /// What was wrong, with its offset from the start of the input.
    pub error: DecodeError,
}

impl std::fmt::Display for ChainError<'_> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        self.error.fmt(f)
    }
}

impl std::error::Error for ChainError<'_> {}

/// The Versions each structure may have, to tell the byte order of a bare
/// first structure.
fn version_ok(s: Structure, v: i32) -> bool {
    match s {
        Structure::Md | Structure::Cih => v == 1 || v == 2,
        Structure::Xqh
        | Structure::Dlh
        | Structure::Iih
        | Structure::Rfh
        | Structure::Wih
        | Structure::Rmh
        | Structure::Dh => v == 1,
        Structure::Mde | Structure::Rfh2 => v == 2,
    }
}

#[inline]
fn scan(
    s: Structure,
    input: &[u8],
    order: ByteOrder,
) -> Result<(usize, Charset, Descriptor), DecodeError> {
    match s {
        Structure::Md => scan_md(input, order),
        Structure::Xqh => scan_xqh(input, order),
        Structure::Mde => scan_mde(input, order),
        Structure::Dlh => scan_dlh(input, order),
        Structure::Rfh => scan_rfh(input, order),
        Structure::Rfh2 => scan_rfh2(input, order),
        Structure::Iih | Structure::Cih | Structure::Wih | Structure::Rmh | Structure::Dh => {
            scan_opaque(s, input, order)
        }
    }
}

/// The byte order of a first structure whose encoding nobody told us: the
/// one in which its Version is valid (for `RFH `: 1 → MQRFH, 2 → MQRFH2).
fn detect_order(s: Structure, input: &[u8]) -> Result<(Structure, ByteOrder), DecodeError> {
    let Some(raw) = input.get(4..8) else {
        let kind = DecodeErrorKind::Truncated {
            needed: 8,
            available: input.len(),
        };
        return Err(DecodeError::new(s, 0, kind));
    };
    let raw: [u8; 4] = [raw[0], raw[1], raw[2], raw[3]];
    for order in [ByteOrder::Big, ByteOrder::Little] {
        let v = order.i32_from(raw);
        let s = match (s, v) {
            // Only a StrucId-detected `RFH ` is either; Format MQHRF2 asks for an MQRFH2.
            (Structure::Rfh, 1) => Structure::Rfh,
            (Structure::Rfh, 2) => Structure::Rfh2,
            _ => s,
        };
        if version_ok(s, v) {
            return Ok((s, order));
        }
    }
    let version = ByteOrder::Big.i32_from(raw);
    Err(DecodeError::new(
        s,
        4,
        DecodeErrorKind::UnsupportedVersion { version },
    ))
}

/// Walks the header chain of `input` (see the module docs and
/// [`ChainOptions`]). Nothing is copied: the result indexes `input`.
///
/// Errors: the first bad structure, with the chain read before it; the
/// error's offset counts from the start of `input`.
///
/// Reads only the headers' bytes (for an MQXQH + MQRFH2 chain, its 428 bytes,
/// the RFH2's 36-byte fixed part and each folder's NameValueLength).
#[inline(always)]
pub fn parse_chain<'a>(
    input: &'a [u8],
    opts: &ChainOptions,
) -> Result<Chain<'a>, Box<ChainError<'a>>> {
    parse_chain_with::<true>(input, opts)
}

/// [`parse_chain`], with (`QUICK`) or without the word-compare checks of
/// the ordinary structures (`quick`); the tests compare both.
#[inline(always)]
fn parse_chain_with<'a, const QUICK: bool>(
    input: &'a [u8],
    opts: &ChainOptions,
) -> Result<Chain<'a>, Box<ChainError<'a>>> {
    let mut chain = Chain {
        input,
        links: SmallVec::new(),
        body_offset: 0,
        body_descriptor: Descriptor {
            encoding: opts.encoding.unwrap_or(0),
            coded_char_set_id: opts.ccsid.unwrap_or(ccsi::Q_MGR),
            format: opts.format.unwrap_or(CharField::BLANK_ASCII),
            charset: Charset::Ascii,
        },
    };
    match walk::<QUICK>(&mut chain, opts) {
        Ok(()) => Ok(chain),
        Err(error) => Err(Box::new(ChainError {
            partial: chain,
            error,
        })),
    }
}

/// The first structure of `input` and its Encoding, as `opts` describe or
/// its StrucId and Version show; `None` when there is none (all body).
#[inline(never)]
fn first_structure(
    input: &[u8],
    opts: &ChainOptions,
) -> Result<Option<(Structure, i32)>, DecodeError> {
    let first = match &opts.format {
        Some(f) => Structure::from_format(f, Charset::Ascii),
        None => Structure::from_struc_id(input).map(|(s, _)| s),
    };
    let Some(first) = first else {
        return Ok(None);
    };
    Ok(Some(match opts.encoding {
        Some(e) if first == Structure::Rfh && opts.format.is_none() => {
            // A bare `RFH `: its Version tells MQRFH from MQRFH2.
            let v2 = ByteOrder::from_encoding(e).read_i32(input, 4) == Some(2);
            (if v2 { Structure::Rfh2 } else { Structure::Rfh }, e)
        }
        Some(e) => (first, e),
        None => {
            let (s, order) = detect_order(first, input)?;
            (s, order.encoding())
        }
    }))
}

/// [`scan`] out of line, for what [`quick::scan`] leaves: other structures
/// and every fault (`walk` is inlined into every caller of [`parse_chain`]).
#[inline(never)]
fn full_scan(
    s: Structure,
    input: &[u8],
    order: ByteOrder,
) -> Result<(usize, Charset, Descriptor), DecodeError> {
    scan(s, input, order)
}

/// The chain walk proper; fills `chain` as far as the input is good.
/// Inlined into [`parse_chain`]: as a call of its own, saving registers
/// and returning its result through memory cost a tenth of the walk.
#[inline(always)]
fn walk<const QUICK: bool>(chain: &mut Chain<'_>, opts: &ChainOptions) -> Result<(), DecodeError> {
    let input = chain.input;
    let first = if QUICK { quick::first(input) } else { None };
    let (mut current, encoding) = match first {
        // An ordinary MQXQH or MQMD first, nothing said about it: what
        // the StrucId and Version rule below would find.
        Some((s, order)) if opts.encoding.is_none() && opts.format.is_none() => {
            (s, order.encoding())
        }
        _ => match first_structure(input, opts)? {
            Some(first) => first,
            None => return Ok(()),
        },
    };
    let mut at = Position {
        offset: 0,
        encoding,
        ccsid: chain.body_descriptor.coded_char_set_id,
    };
    loop {
        let rest = &input[at.offset..];
        let order = ByteOrder::from_encoding(at.encoding);
        let found = if QUICK {
            quick::scan(current, rest, order)
        } else {
            None
        };
        let (length, charset, next) = match found {
            Some(f) => (f.length, f.charset, f.next()),
            None => full_scan(current, rest, order).map_err(|e| e.shifted(at.offset))?,
        };
        let following = at.record(chain, current, length, charset, next);
        match following {
            Some(s) => current = s,
            None => return Ok(()),
        }
    }
}

/// Where the walk is: the next structure's offset, and the Encoding and
/// CCSID it is in.
struct Position {
    offset: usize,
    encoding: i32,
    ccsid: i32,
}

impl Position {
    /// Records `structure` (found here, `length` bytes) in `chain`, moves
    /// past it and returns the structure its Format announces next.
    #[inline(always)]
    fn record(
        &mut self,
        chain: &mut Chain<'_>,
        structure: Structure,
        length: usize,
        charset: Charset,
        next: Descriptor,
    ) -> Option<Structure> {
        chain.links.push(Link {
            structure,
            offset: self.offset,
            length,
            encoding: self.encoding,
            coded_char_set_id: self.ccsid,
            charset,
            next,
        });
        self.offset += length;
        chain.body_offset = self.offset;
        if structure.inherits_descriptor() {
            // MQIIH / MQCIH: what follows is in their Encoding and CCSID.
        } else {
            if next.coded_char_set_id != ccsi::INHERIT {
                self.ccsid = next.coded_char_set_id;
            }
            self.encoding = next.encoding;
        }
        chain.body_descriptor = Descriptor {
            encoding: self.encoding,
            coded_char_set_id: self.ccsid,
            ..next
        };
        Structure::from_format(&next.format, next.charset)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn format_mqhrf2_with_a_version_1_is_read_as_an_mqrfh2() {
        // Format MQHRF2 names an MQRFH2 (IBM MQ "Format (MQCHAR8)"); a Version
        // 1 in the data must not turn it into an MQRFH: the error names MQRFH2,
        // 2334 MQRC_RFH_ERROR (IBM MQ "2334 (091E) (RC2334): MQRC_RFH_ERROR").
        let mut data = b"ZZZZ".to_vec();
        data.extend_from_slice(&1i32.to_le_bytes());
        data.extend_from_slice(&[b' '; 40]);
        let opts = ChainOptions {
            format: Some(CharField(*b"MQHRF2  ")),
            ..ChainOptions::default()
        };
        let e = parse_chain(&data, &opts).unwrap_err().error;
        assert_eq!(e.structure, Structure::Rfh2);
        assert_eq!(e.mqrc(), crate::mq::Mqrc::RFH_ERROR);
        // A bare `RFH ` (no Format) with Version 1 is still an MQRFH.
        let mut rfh = b"RFH ".to_vec();
        rfh.extend_from_slice(&1i32.to_le_bytes());
        assert_eq!(
            detect_order(Structure::Rfh, &rfh).unwrap(),
            (Structure::Rfh, ByteOrder::Little)
        );
    }

    /// A message of the shapes the quick checks serve: an MQXQH (or a bare
    /// MQMD v1/v2), optionally an MQMDE, then an MQRFH2 with `folders`
    /// folders, then a body; `next_order` is the Encoding the first
    /// structure gives the ones after it.
    fn message(
        first_md: Option<i32>,
        order: ByteOrder,
        next_order: ByteOrder,
        cs: Charset,
        mde: bool,
        folders: usize,
    ) -> Vec<u8> {
        use crate::mq::md::write_md;
        use crate::mq::mde::{Mqmde, write_mde};
        use crate::mq::rfh2::{Mqrfh2, write_rfh2};
        use crate::mq::xqh::{Mqxqh, write_xqh};
        use crate::mq::{Mqmd, constants::fmt};
        let f = |name: &[u8; 8]| CharField::new(std::str::from_utf8(name).unwrap(), cs).unwrap();
        let md = Mqmd {
            version: first_md.unwrap_or(1),
            encoding: next_order.encoding(),
            coded_char_set_id: 1208,
            format: f(if mde {
                fmt::MD_EXTENSION
            } else {
                fmt::RF_HEADER_2
            }),
            ..Mqmd::default()
        };
        let mut out = Vec::new();
        match first_md {
            Some(_) => write_md(&md, order, cs, &mut out),
            None => {
                let xqh = Mqxqh {
                    version: 1,
                    remote_q_name: CharField::new("Q.IN", cs).unwrap(),
                    remote_q_mgr_name: CharField::new("QM1", cs).unwrap(),
                    msg_desc: md,
                };
                write_xqh(&xqh, order, cs, &mut out);
            }
        }
        let str_next = Descriptor {
            encoding: next_order.encoding(),
            coded_char_set_id: 819,
            format: f(fmt::STRING),
            charset: cs,
        };
        if mde {
            let m = Mqmde {
                encoding: next_order.encoding(),
                coded_char_set_id: 1208,
                format: f(fmt::RF_HEADER_2),
                ..Mqmde::default()
            };
            write_mde(&m, next_order, cs, &mut out);
        }
        let mut rfh2 = Mqrfh2::new(&str_next, 1208);
        for k in 0..folders {
            rfh2.push_folder(&format!("<usr><k{k}>v</k{k}></usr>"), next_order)
                .unwrap();
        }
        write_rfh2(&rfh2, next_order, cs, &mut out);
        out.extend_from_slice(b"body");
        out
    }

    fn shapes() -> Vec<Vec<u8>> {
        let mut v = Vec::new();
        for first in [None, Some(1), Some(2)] {
            for order in [ByteOrder::Big, ByteOrder::Little] {
                for next_order in [ByteOrder::Big, ByteOrder::Little] {
                    for cs in [Charset::Ascii, Charset::Ebcdic] {
                        for mde in [false, true] {
                            for folders in [0, 1, 3] {
                                v.push(message(first, order, next_order, cs, mde, folders));
                            }
                        }
                    }
                }
            }
        }
        v
    }

    #[test]
    fn the_quick_checks_take_every_ordinary_structure() {
        // So the comparison below tests them: on unchanged messages every
        // link is found by the word compares, with the full scan's result.
        for m in shapes() {
            let chain = parse_chain_with::<false>(&m, &ChainOptions::default()).unwrap();
            let (s, order) = quick::first(&m).unwrap();
            assert_eq!(
                (s, order),
                (chain.links[0].structure, chain.links[0].order())
            );
            assert_eq!(chain.body(), b"body");
            for l in &chain.links {
                let f = quick::scan(l.structure, &m[l.offset..], l.order()).unwrap();
                assert_eq!(
                    (f.length, f.charset, f.next()),
                    (l.length, l.charset, l.next)
                );
            }
        }
    }

    /// Offsets of the bytes the checks read in `m` (a message of
    /// [`shapes`]): each structure's StrucId, Version, StrucLength and
    /// descriptor, the MQXQH's MQMD head, the MQRFH2's NameValueCCSID and
    /// NameValueLengths.
    fn checked_bytes(m: &[u8]) -> Vec<usize> {
        let chain = parse_chain_with::<false>(m, &ChainOptions::default()).unwrap();
        let mut v = Vec::new();
        for l in &chain.links {
            let fields: &[(usize, usize)] = match l.structure {
                Structure::Xqh => &[(0, 8), (104, 112), (128, 144)],
                Structure::Md => &[(0, 8), (24, 40)],
                _ => &[(0, 36)],
            };
            v.extend(fields.iter().flat_map(|&(a, b)| a..b).map(|i| l.offset + i));
            if l.structure == Structure::Rfh2 {
                let (r, _) = crate::mq::rfh2::parse_rfh2(l.bytes(m), l.order()).unwrap();
                for f in &r.folders {
                    v.extend((f.offset - 4..f.offset).map(|i| l.offset + i));
                }
            }
        }
        v
    }

    /// One change to a message: a byte anywhere or a checked byte set to a
    /// value, or a checked byte moved by a small amount.
    #[derive(Clone, Debug)]
    enum Edit {
        Anywhere(proptest::sample::Index, u8),
        Checked(proptest::sample::Index, u8),
        Nudge(proptest::sample::Index, i8),
    }

    fn edit() -> impl proptest::strategy::Strategy<Value = Edit> {
        use proptest::prelude::*;
        prop_oneof![
            (any::<proptest::sample::Index>(), any::<u8>()).prop_map(|(i, b)| Edit::Anywhere(i, b)),
            (any::<proptest::sample::Index>(), any::<u8>()).prop_map(|(i, b)| Edit::Checked(i, b)),
            (any::<proptest::sample::Index>(), -4i8..=4).prop_map(|(i, d)| Edit::Nudge(i, d)),
        ]
    }

    proptest::proptest! {
        #![proptest_config(proptest::prelude::ProptestConfig::with_cases(2048))]
        #[test]
        fn the_quick_checks_change_no_result(
            shape in proptest::prelude::any::<proptest::sample::Index>(),
            edits in proptest::collection::vec(edit(), 0..4),
            cut in proptest::prelude::any::<Option<proptest::sample::Index>>(),
            opts in proptest::prop_oneof![
                proptest::strategy::Just(ChainOptions::default()),
                proptest::strategy::Just(ChainOptions { encoding: Some(546), ..ChainOptions::default() }),
                proptest::strategy::Just(ChainOptions { encoding: Some(273), ccsid: Some(500), ..ChainOptions::default() }),
            ],
        ) {
            // Bytes of the headers changed (StrucIds, Versions,
            // StrucLengths, NameValueLengths, Encodings, Formats) and any
            // length: the chain, or the error and partial chain, are those
            // of the full checks alone.
            let all = shapes();
            let mut m = all[shape.index(all.len())].clone();
            let checked = checked_bytes(&m);
            for e in edits {
                match e {
                    Edit::Anywhere(i, b) => {
                        let i = i.index(m.len());
                        m[i] = b;
                    }
                    Edit::Checked(i, b) => m[checked[i.index(checked.len())]] = b,
                    Edit::Nudge(i, d) => {
                        let i = checked[i.index(checked.len())];
                        m[i] = m[i].wrapping_add_signed(d);
                    }
                }
            }
            if let Some(cut) = cut {
                m.truncate(cut.index(m.len() + 1));
            }
            proptest::prop_assert_eq!(
                parse_chain_with::<true>(&m, &opts),
                parse_chain_with::<false>(&m, &opts)
            );
        }
    }
}

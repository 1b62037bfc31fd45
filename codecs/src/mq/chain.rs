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
#[inline(always)]
pub fn parse_chain<'a>(
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
    match walk(&mut chain, opts) {
        Ok(()) => Ok(chain),
        Err(error) => Err(Box::new(ChainError {
            partial: chain,
            error,
        })),
    }
}

/// The chain walk proper; fills `chain` as far as the input is good.
fn walk(chain: &mut Chain<'_>, opts: &ChainOptions) -> Result<(), DecodeError> {
    let input = chain.input;
    let first = match &opts.format {
        Some(f) => Structure::from_format(f, Charset::Ascii),
        None => Structure::from_struc_id(input).map(|(s, _)| s),
    };
    let Some(first) = first else {
        return Ok(());
    };
    let (mut current, mut encoding) = match opts.encoding {
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
    };
    let mut ccsid = chain.body_descriptor.coded_char_set_id;
    let mut pos = 0usize;
    loop {
        let rest = &input[pos..];
        let order = ByteOrder::from_encoding(encoding);
        let (length, charset, next) = scan(current, rest, order).map_err(|e| e.shifted(pos))?;
        chain.links.push(Link {
            structure: current,
            offset: pos,
            length,
            encoding,
            coded_char_set_id: ccsid,
            charset,
            next,
        });
        pos += length;
        chain.body_offset = pos;
        if current.inherits_descriptor() {
            // MQIIH / MQCIH: what follows is in their Encoding and CCSID.
        } else {
            if next.coded_char_set_id != ccsi::INHERIT {
                ccsid = next.coded_char_set_id;
            }
            encoding = next.encoding;
        }
        chain.body_descriptor = Descriptor {
            encoding,
            coded_char_set_id: ccsid,
            ..next
        };
        match Structure::from_format(&next.format, next.charset) {
            Some(s) => current = s,
            None => return Ok(()),
        }
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
}

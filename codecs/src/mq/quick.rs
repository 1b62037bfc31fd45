//! The chain walk's ordinary case in a few word compares (docs/performance.md
//! "MQ header codecs"): a structure's StrucId and Version are its first 8
//! bytes, so one 8-byte compare against the expected word (in the byte
//! order and either charset) checks both; then the lengths, and the
//! Encoding, CodedCharSetId and Format of the next item read as one
//! 16-byte block. Only MQXQH, MQMD, MQMDE and MQRFH2 are handled here, and
//! anything these checks do not accept returns `None`: the walker then runs
//! the structure's full scan, which accepts exactly what these accept and
//! names what is wrong with the rest. Only the header bytes are read.

use super::chain::Descriptor;
use super::constants::md::{LENGTH_1 as MD_LENGTH_1, LENGTH_2 as MD_LENGTH_2};
use super::enc::ByteOrder;
use super::field::{CharField, Charset};
use super::mde::MDE_LENGTH;
use super::rfh2::{NAME_VALUE_CCSIDS, RFH2_STRUC_LENGTH_FIXED};
use super::strucid::{Structure, ebcdic_struc_id};
use super::xqh::{MSG_DESC_OFFSET, XQH_LENGTH};

/// StrucId and Version as the 8 bytes they are on the wire, read as a
/// little-endian word, for one structure in ASCII and in EBCDIC and in
/// each byte order: `[order][charset]`, big-endian first, ASCII first.
type Heads = [[u64; 2]; 2];

const fn head(id: &[u8; 4], version: i32, big: bool) -> u64 {
    let v = if big {
        version.to_be_bytes()
    } else {
        version.to_le_bytes()
    };
    u64::from_le_bytes([id[0], id[1], id[2], id[3], v[0], v[1], v[2], v[3]])
}

const fn heads(id: &[u8; 4], version: i32) -> Heads {
    let e = ebcdic_struc_id(id);
    [
        [head(id, version, true), head(&e, version, true)],
        [head(id, version, false), head(&e, version, false)],
    ]
}

const XQH_1: Heads = heads(b"XQH ", 1);
const MD_1: Heads = heads(b"MD  ", 1);
const MD_2: Heads = heads(b"MD  ", 2);
const MDE_2: Heads = heads(b"MDE ", 2);
const RFH_2: Heads = heads(b"RFH ", 2);

/// The 8 bytes at `at` as a little-endian word.
#[inline(always)]
fn word(b: &[u8], at: usize) -> Option<u64> {
    let w: [u8; 8] = b.get(at..at.checked_add(8)?)?.try_into().ok()?;
    Some(u64::from_le_bytes(w))
}

/// The charset in which `w` is the expected word, if it is.
#[inline(always)]
fn charset(w: u64, h: &[u64; 2]) -> Option<Charset> {
    if w == h[0] {
        Some(Charset::Ascii)
    } else if w == h[1] {
        Some(Charset::Ebcdic)
    } else {
        None
    }
}

#[inline(always)]
fn index(order: ByteOrder) -> usize {
    match order {
        ByteOrder::Big => 0,
        ByteOrder::Little => 1,
    }
}

#[inline(always)]
fn charset_index(cs: Charset) -> usize {
    match cs {
        Charset::Ascii => 0,
        Charset::Ebcdic => 1,
    }
}

/// A structure the quick checks accepted: its length, the charset of its
/// StrucId and what it says about the next item. Plain scalars, so the
/// walker keeps them in registers.
#[derive(Clone, Copy)]
pub(crate) struct Found {
    pub(crate) length: usize,
    pub(crate) charset: Charset,
    pub(crate) encoding: i32,
    pub(crate) coded_char_set_id: i32,
    /// The Format's 8 bytes as a little-endian word.
    pub(crate) format: u64,
}

impl Found {
    /// The descriptor of the next item.
    #[inline(always)]
    pub(crate) fn next(&self) -> Descriptor {
        Descriptor {
            encoding: self.encoding,
            coded_char_set_id: self.coded_char_set_id,
            format: CharField(self.format.to_le_bytes()),
            charset: self.charset,
        }
    }
}

/// A [`Found`] of `length` bytes whose Encoding, CodedCharSetId and Format
/// are at `b[at..at + 16]`.
#[inline(always)]
fn found(b: &[u8], length: usize, at: usize, order: ByteOrder, cs: Charset) -> Option<Found> {
    let d: &[u8; 16] = b.get(at..at + 16)?.try_into().ok()?;
    let [e0, e1, e2, e3, c0, c1, c2, c3, f @ ..] = *d;
    Some(Found {
        length,
        charset: cs,
        encoding: order.i32_from([e0, e1, e2, e3]),
        coded_char_set_id: order.i32_from([c0, c1, c2, c3]),
        format: u64::from_le_bytes(f),
    })
}

/// The first structure and its byte order when the input starts with an
/// ordinary MQXQH or MQMD (what `Structure::from_struc_id` and the Version
/// rule of the walker would find for it); `None` for anything else.
#[inline(always)]
pub(crate) fn first(input: &[u8]) -> Option<(Structure, ByteOrder)> {
    const XQH_BE_A: u64 = XQH_1[0][0];
    const XQH_BE_E: u64 = XQH_1[0][1];
    const XQH_LE_A: u64 = XQH_1[1][0];
    const XQH_LE_E: u64 = XQH_1[1][1];
    const MD1_BE_A: u64 = MD_1[0][0];
    const MD1_BE_E: u64 = MD_1[0][1];
    const MD1_LE_A: u64 = MD_1[1][0];
    const MD1_LE_E: u64 = MD_1[1][1];
    const MD2_BE_A: u64 = MD_2[0][0];
    const MD2_BE_E: u64 = MD_2[0][1];
    const MD2_LE_A: u64 = MD_2[1][0];
    const MD2_LE_E: u64 = MD_2[1][1];
    // No word is valid in both byte orders, so the order of the tests
    // (the walker tries big-endian first) does not matter.
    Some(match word(input, 0)? {
        XQH_LE_A | XQH_LE_E => (Structure::Xqh, ByteOrder::Little),
        XQH_BE_A | XQH_BE_E => (Structure::Xqh, ByteOrder::Big),
        MD1_LE_A | MD1_LE_E | MD2_LE_A | MD2_LE_E => (Structure::Md, ByteOrder::Little),
        MD1_BE_A | MD1_BE_E | MD2_BE_A | MD2_BE_E => (Structure::Md, ByteOrder::Big),
        _ => return None,
    })
}

/// What the walker's full scan of `s` at the start of `b` returns, for an
/// ordinary MQXQH, MQMD, MQMDE or MQRFH2: (length, charset of the StrucId,
/// descriptor of the next item), as a [`Found`]. `None` when it is not one.
#[inline(always)]
pub(crate) fn scan(s: Structure, b: &[u8], order: ByteOrder) -> Option<Found> {
    let o = index(order);
    match s {
        Structure::Xqh => {
            // The embedded MQMD v1 is in the XQH's charset (xqh.rs).
            let cs = charset(word(b, 0)?, &XQH_1[o])?;
            if b.len() < XQH_LENGTH || word(b, MSG_DESC_OFFSET)? != MD_1[o][charset_index(cs)] {
                return None;
            }
            found(b, XQH_LENGTH, MSG_DESC_OFFSET + 24, order, cs)
        }
        Structure::Md => {
            let w = word(b, 0)?;
            let (cs, len) = match charset(w, &MD_1[o]) {
                Some(cs) => (cs, MD_LENGTH_1),
                None => (charset(w, &MD_2[o])?, MD_LENGTH_2),
            };
            (b.len() >= len).then_some(())?;
            found(b, len, 24, order, cs)
        }
        Structure::Mde => {
            let cs = charset(word(b, 0)?, &MDE_2[o])?;
            let len = usize::try_from(order.read_i32(b, 8)?).ok()?;
            (len == MDE_LENGTH && b.len() >= len).then_some(())?;
            found(b, len, 12, order, cs)
        }
        Structure::Rfh2 => {
            let cs = charset(word(b, 0)?, &RFH_2[o])?;
            let len = usize::try_from(order.read_i32(b, 8)?).ok()?;
            let ok = len >= RFH2_STRUC_LENGTH_FIXED && len <= b.len() && len % 4 == 0;
            let ccsid = order.read_i32(b, 32)?;
            (ok && NAME_VALUE_CCSIDS.contains(&ccsid)).then_some(())?;
            // The folders: each NameValueLength a multiple of 4 that stays
            // inside StrucLength, the last ending exactly there.
            let mut folders = b.get(RFH2_STRUC_LENGTH_FIXED..len)?;
            while let Some((n, rest)) = folders.split_first_chunk::<4>() {
                let n = usize::try_from(order.i32_from(*n)).ok()?;
                if n % 4 != 0 {
                    return None;
                }
                folders = rest.get(n..)?;
            }
            folders.is_empty().then_some(())?;
            found(b, len, 12, order, cs)
        }
        _ => None,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn words_are_the_wire_bytes() {
        // IBM MQ "MQXQH - Transmission-queue header": StrucId `XQH `, Version 1
        // (MQXQH_VERSION_1) as an MQLONG; EBCDIC `XQH ` is E7 D8 C8 40.
        assert_eq!(XQH_1[0][0].to_le_bytes(), *b"XQH \0\0\0\x01");
        assert_eq!(XQH_1[1][0].to_le_bytes(), *b"XQH \x01\0\0\0");
        assert_eq!(
            XQH_1[0][1].to_le_bytes(),
            [0xE7, 0xD8, 0xC8, 0x40, 0, 0, 0, 1]
        );
        assert_eq!(RFH_2[1][0].to_le_bytes(), *b"RFH \x02\0\0\0");
    }
}

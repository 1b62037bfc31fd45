//! MQRFH2 (IBM MQ "MQRFH2 - Rules and formatting header 2"): StrucId `RFH `,
//! Version 2, Format `MQHRF2  `; the 32-byte prefix, NameValueCCSID at 32, then
//! folders `{ NameValueLength; NameValueData }` up to StrucLength.
//!
//! All integers (NameValueLength too) are 4-byte MQLONGs in the RFH2's own
//! encoding, inherited from the structure before it. Folder text is in
//! NameValueCCSID (1208 UTF-8; 1200, 13488, 17584 UTF-16 in the RFH2's byte
//! order; IBM docs NameValueCCSID). NameValueLength and StrucLength are
//! multiples of 4; writers pad folders with blanks (IBM docs MQRFH2).

use std::borrow::Cow;

use super::chain::Descriptor;
use super::enc::ByteOrder;
use super::error::{DecodeError, DecodeErrorKind};
use super::field::{CharField, Charset};
use super::prefix::{PrefixFields, scan_prefix, write_prefix};
use super::strucid::Structure;

/// MQRFH_STRUC_LENGTH_FIXED_2: the fixed part in bytes.
pub const RFH2_STRUC_LENGTH_FIXED: usize = 36;

/// The NameValueCCSIDs MQ allows: UTF-8 and the UTF-16/UCS-2 CCSIDs.
pub const NAME_VALUE_CCSIDS: [i32; 4] = [1208, 1200, 13488, 17584];

/// An MQRFH2.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Mqrfh2<'a> {
    /// Always 2.
    pub version: i32,
    /// MQENC_* of the next item.
    pub encoding: i32,
    /// CCSID of the next item.
    pub coded_char_set_id: i32,
    /// MQFMT_* of the next item.
    pub format: CharField<8>,
    /// MQRFH_* flags.
    pub flags: i32,
    /// CCSID of the folder data: 1208, 1200, 13488 or 17584.
    pub name_value_ccsid: i32,
    /// The folders in order.
    pub folders: Vec<Folder<'a>>,
}

/// One NameValueData, e.g. `<mcd>...</mcd>` plus its padding.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Folder<'a> {
    /// Offset of the NameValueData from the RFH2's start (0 for a built folder).
    pub offset: usize,
    /// The NameValueData bytes, padding included.
    pub data: Cow<'a, [u8]>,
}

fn is_utf16(ccsid: i32) -> bool {
    matches!(ccsid, 1200 | 13488 | 17584)
}

impl Folder<'_> {
    /// NameValueLength as the writer emits it: the data length rounded up to 4.
    pub fn name_value_length(&self) -> usize {
        self.data.len().next_multiple_of(4)
    }

    /// The folder's text decoded from `name_value_ccsid` (UTF-16 in `order`,
    /// the RFH2's byte order), trailing padding blanks and NULs removed.
    ///
    /// Errors: BadNameValueCcsid for a CCSID MQ does not allow here;
    /// BadFolderText (2335 MQRC_RFH_STRING_ERROR) for invalid UTF-8/UTF-16.
    pub fn text(&self, name_value_ccsid: i32, order: ByteOrder) -> Result<String, DecodeError> {
        let err = |kind| DecodeError::new(Structure::Rfh2, self.offset, kind);
        let bad = || {
            err(DecodeErrorKind::BadFolderText {
                ccsid: name_value_ccsid,
            })
        };
        let mut s = if name_value_ccsid == 1208 {
            std::str::from_utf8(&self.data)
                .map_err(|_| bad())?
                .to_owned()
        } else if is_utf16(name_value_ccsid) {
            if !self.data.len().is_multiple_of(2) {
                return Err(bad());
            }
            let units = self.data.chunks_exact(2).map(|c| match order {
                ByteOrder::Big => u16::from_be_bytes([c[0], c[1]]),
                ByteOrder::Little => u16::from_le_bytes([c[0], c[1]]),
            });
            char::decode_utf16(units)
                .collect::<Result<String, _>>()
                .map_err(|_| bad())?
        } else {
            return Err(err(DecodeErrorKind::BadNameValueCcsid {
                ccsid: name_value_ccsid,
            }));
        };
        let kept = s.trim_end_matches([' ', '\0']).len();
        s.truncate(kept);
        Ok(s)
    }
}

impl Mqrfh2<'_> {
    /// An RFH2 without folders whose Encoding/CodedCharSetId/Format are
    /// those of `next`, folder data in `name_value_ccsid`. The Format is
    /// rebuilt blank padded in `next.charset` (a NUL-padded one loses its
    /// NULs: [`CharField::normalized`]).
    pub fn new(next: &Descriptor, name_value_ccsid: i32) -> Mqrfh2<'static> {
        Mqrfh2 {
            version: 2,
            encoding: next.encoding,
            coded_char_set_id: next.coded_char_set_id,
            format: next.format.normalized(next.charset),
            flags: 0,
            name_value_ccsid,
            folders: Vec::new(),
        }
    }

    /// Appends a folder holding `text` encoded in NameValueCCSID (UTF-16 in
    /// `order`, the byte order the RFH2 will be written in) and blank padded
    /// to a multiple of 4. Errors: BadNameValueCcsid (2334 MQRC_RFH_ERROR).
    pub fn push_folder(&mut self, text: &str, order: ByteOrder) -> Result<(), DecodeError> {
        let mut data = Vec::with_capacity(text.len() * 2 + 4);
        if self.name_value_ccsid == 1208 {
            data.extend_from_slice(text.as_bytes());
        } else if is_utf16(self.name_value_ccsid) {
            for u in text.encode_utf16() {
                data.extend_from_slice(&utf16_unit(u, order));
            }
        } else {
            let kind = DecodeErrorKind::BadNameValueCcsid {
                ccsid: self.name_value_ccsid,
            };
            return Err(DecodeError::new(Structure::Rfh2, 32, kind));
        }
        pad_folder(&mut data, 0, self.name_value_ccsid, order);
        self.folders.push(Folder {
            offset: 0,
            data: Cow::Owned(data),
        });
        Ok(())
    }

    /// StrucLength as the writer emits it: 36 + Σ (4 + NameValueLength).
    pub fn struc_length(&self) -> usize {
        RFH2_STRUC_LENGTH_FIXED
            + self
                .folders
                .iter()
                .map(|f| 4 + f.name_value_length())
                .sum::<usize>()
    }
}

fn utf16_unit(u: u16, order: ByteOrder) -> [u8; 2] {
    match order {
        ByteOrder::Big => u.to_be_bytes(),
        ByteOrder::Little => u.to_le_bytes(),
    }
}

/// Pads the folder data `buf[start..]` to a multiple of 4 with blanks in its CCSID.
fn pad_folder(buf: &mut Vec<u8>, start: usize, name_value_ccsid: i32, order: ByteOrder) {
    let len = buf.len() - start;
    if is_utf16(name_value_ccsid) && len.is_multiple_of(2) {
        if !len.is_multiple_of(4) {
            buf.extend_from_slice(&utf16_unit(0x20, order));
        }
    } else {
        buf.resize(start + len.next_multiple_of(4), b' ');
    }
}

/// Walks the folders of the RFH2 `input[..struc_length]`, calling `each`
/// with the offset and length of every NameValueData.
#[inline]
fn walk_folders(
    input: &[u8],
    struc_length: usize,
    order: ByteOrder,
    mut each: impl FnMut(usize, usize),
) -> Result<(), DecodeError> {
    let mut pos = RFH2_STRUC_LENGTH_FIXED;
    while pos < struc_length {
        let room = struc_length - pos;
        let err = |kind| DecodeError::new(Structure::Rfh2, pos, kind);
        let Some(nvl) = order.read_i32(input, pos).filter(|_| room >= 4) else {
            return Err(err(DecodeErrorKind::TrailingBytes { count: room }));
        };
        let max = room - 4;
        let len = usize::try_from(nvl)
            .ok()
            .filter(|&l| l <= max)
            .ok_or_else(|| {
                err(DecodeErrorKind::NameValueLengthOutOfRange {
                    name_value_length: nvl,
                    max,
                })
            })?;
        if len % 4 != 0 {
            return Err(err(DecodeErrorKind::NameValueLengthNotMultipleOf4 {
                name_value_length: nvl,
            }));
        }
        each(pos + 4, len);
        pos += 4 + len;
    }
    Ok(())
}

#[inline]
pub(crate) fn scan_rfh2(
    input: &[u8],
    order: ByteOrder,
) -> Result<(usize, Charset, Descriptor), DecodeError> {
    let p = scan_prefix(
        Structure::Rfh2,
        input,
        order,
        |v| (v == 2).then_some(RFH2_STRUC_LENGTH_FIXED),
        false,
    )?;
    let ccsid = order.read_i32(input, 32).unwrap_or(0);
    if !NAME_VALUE_CCSIDS.contains(&ccsid) {
        let kind = DecodeErrorKind::BadNameValueCcsid { ccsid };
        return Err(DecodeError::new(Structure::Rfh2, 32, kind));
    }
    walk_folders(input, p.struc_length, order, |_, _| {})?;
    Ok((p.struc_length, p.charset, p.next))
}

/// Parses an MQRFH2 from the start of `input`, borrowing the folder data.
///
/// Errors (2334 MQRC_RFH_ERROR; offsets from the RFH2's start): truncated,
/// bad StrucId, Version not 2, StrucLength below 36 / past the input / not a
/// multiple of 4, NameValueCCSID not allowed, a NameValueLength negative,
/// past StrucLength or not a multiple of 4, 1-3 bytes left after the last
/// folder. Folder text is decoded on demand by [`Folder::text`].
pub fn parse_rfh2(input: &[u8], order: ByteOrder) -> Result<(Mqrfh2<'_>, Charset), DecodeError> {
    let (len, cs, next) = scan_rfh2(input, order)?;
    let mut folders = Vec::new();
    walk_folders(input, len, order, |off, n| {
        folders.push(Folder {
            offset: off,
            data: Cow::Borrowed(&input[off..off + n]),
        })
    })?;
    Ok((
        Mqrfh2 {
            version: 2,
            encoding: next.encoding,
            coded_char_set_id: next.coded_char_set_id,
            format: next.format,
            flags: order.read_i32(input, 28).unwrap_or(0),
            name_value_ccsid: order.read_i32(input, 32).unwrap_or(0),
            folders,
        },
        cs,
    ))
}

/// Appends `r` to `out`: StrucLength and every NameValueLength computed from
/// the folders, each folder blank padded to a multiple of 4.
pub fn write_rfh2(r: &Mqrfh2<'_>, order: ByteOrder, cs: Charset, out: &mut Vec<u8>) {
    let len = r.struc_length();
    out.reserve(len);
    write_prefix(
        out,
        &PrefixFields {
            structure: Structure::Rfh2,
            version: r.version,
            struc_length: len,
            encoding: r.encoding,
            coded_char_set_id: r.coded_char_set_id,
            format: &r.format,
            flags: r.flags,
        },
        cs,
        order,
    );
    order.put_i32(out, r.name_value_ccsid);
    for f in &r.folders {
        let nvl = f.name_value_length();
        order.put_i32(out, i32::try_from(nvl).unwrap_or(i32::MAX));
        let start = out.len();
        out.extend_from_slice(&f.data);
        pad_folder(out, start, r.name_value_ccsid, order);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn next_str() -> Descriptor {
        Descriptor {
            encoding: 546,
            coded_char_set_id: 1208,
            format: CharField(*b"MQSTR   "),
            charset: Charset::Ascii,
        }
    }

    #[test]
    fn utf16_folder_is_padded_with_utf16_blanks() {
        let mut r = Mqrfh2::new(&next_str(), 1200);
        r.push_folder("<a>", ByteOrder::Little).unwrap();
        // 3 UTF-16 units = 6 bytes, padded with one UTF-16 blank (20 00) to 8.
        assert_eq!(&*r.folders[0].data, b"<\0a\0>\0 \0");
        assert_eq!(r.folders[0].text(1200, ByteOrder::Little).unwrap(), "<a>");
        let mut bad = Mqrfh2::new(&next_str(), 819);
        let e = bad.push_folder("<a>", ByteOrder::Little).unwrap_err();
        assert_eq!((e.offset, e.mqrc().0), (32, 2334));
    }

    #[test]
    fn a_built_rfh2_takes_a_nul_padded_format_blank_padded() {
        // IBM MQ "Rules for naming IBM MQ objects" (a NUL ends the data, mqgate writers
        // pad with blanks); IBM MQ "MQRFH2 - Rules and formatting header 2": the
        // MQRFH2's Format at offset 20.
        let next = Descriptor {
            format: CharField(*b"MQSTR\0\0\0"),
            ..next_str()
        };
        let mut r = Mqrfh2::new(&next, 1208);
        r.push_folder("<usr></usr>", ByteOrder::Little).unwrap();
        let mut out = Vec::new();
        write_rfh2(&r, ByteOrder::Little, Charset::Ascii, &mut out);
        assert_eq!(&out[20..28], b"MQSTR   ");
        // A parsed RFH2 keeps its NUL padding byte for byte (byte fidelity).
        let mut raw = out.clone();
        raw[25..28].copy_from_slice(b"\0\0\0");
        let (back, cs) = parse_rfh2(&raw, ByteOrder::Little).unwrap();
        let mut again = Vec::new();
        write_rfh2(&back, ByteOrder::Little, cs, &mut again);
        assert_eq!(again, raw);
    }
}

//! Walks a message's header chain with the mqcodec parsers and collects a
//! [`MessageView`] (spec: mq-structures.md §2, the chaining rule).
//!
//! Each header is read with the Encoding of the structure before it; its own
//! Encoding/CodedCharSetId/Format describe the next item; a Format that names
//! no known header ends the chain and the rest is the body. The walk keeps what
//! it decoded before an error, so `mqgate decode` can print it.

use super::view::{BodyView, MessageView, StructView};
use crate::mqjson::{self, char_text};
use mqgate_codecs::mq::chain::Descriptor;
use mqgate_codecs::mq::{
    ByteOrder, CharField, Charset, DecodeError, Mqmd, Structure, dlh, md, mde, opaque, rfh, rfh2,
    xqh,
};

/// Values given on the command line for the first structure of the data.
#[derive(Debug, Default)]
pub struct Overrides {
    /// `--encoding`: MQENC of the first structure.
    pub encoding: Option<i32>,
    /// `--ccsid`: CodedCharSetId of the first structure.
    pub ccsid: Option<i32>,
    /// `--format`: Format naming the first structure (ASCII, blank padded).
    pub format: Option<CharField<8>>,
}

/// Where the description of the first structure comes from.
pub enum Start<'m> {
    /// Raw data: the first structure is detected by its StrucId, an MQMD included.
    Detect,
    /// Data after an MQMD that is not part of it (dmpmqmsg `A` lines).
    FromMd(&'m Mqmd),
}

/// Decodes `data`. `file_md` is the MQMD that came with it from a dmpmqmsg file.
pub fn decode<'a>(
    data: &'a [u8],
    file_md: Option<Mqmd>,
    start: Start<'_>,
    ov: &Overrides,
) -> MessageView<'a> {
    let mut view = MessageView {
        file_md,
        line: None,
        structures: Vec::new(),
        body: None,
        data,
        error: None,
    };
    let (mut desc, mut pending) = first_item(data, start, ov);
    let mut offset = 0usize;
    loop {
        let item = pending.take().or_else(|| {
            Structure::from_format(&desc.format, desc.charset)
                .map(|s| (s, ByteOrder::from_encoding(desc.encoding)))
        });
        let Some((structure, order)) = item else {
            break;
        };
        match structure_view(structure, &data[offset..], order) {
            Ok((mut sv, next)) => {
                sv.offset = offset;
                // Every structure is at least 8 bytes long (the parsers check it),
                // so the walk always moves on.
                offset += sv.length;
                view.structures.push(sv);
                desc = next;
            }
            Err(e) => {
                view.error = Some(e.shifted(offset));
                return view;
            }
        }
    }
    view.body = Some(BodyView {
        offset,
        format: char_text(&desc.format.0, desc.charset),
        ccsid: desc.coded_char_set_id,
        encoding: desc.encoding,
    });
    view
}

/// The descriptor of the data's first item and, when it was detected by its
/// StrucId, that structure with its byte order.
fn first_item(
    data: &[u8],
    start: Start<'_>,
    ov: &Overrides,
) -> (Descriptor, Option<(Structure, ByteOrder)>) {
    let given = |encoding: i32, ccsid: i32, format: CharField<8>, charset: Charset| {
        let (format, charset) = match ov.format {
            Some(f) => (f, Charset::Ascii),
            None => (format, charset),
        };
        Descriptor {
            encoding: ov.encoding.unwrap_or(encoding),
            coded_char_set_id: ov.ccsid.unwrap_or(ccsid),
            format,
            charset,
        }
    };
    match start {
        Start::FromMd(m) => (
            given(m.encoding, m.coded_char_set_id, m.format, Charset::Ascii),
            None,
        ),
        Start::Detect => {
            if ov.format.is_some() {
                // The caller names the first structure; its byte order is the
                // given Encoding, else the one its Version field shows.
                let mut d = given(0, 0, CharField::BLANK_ASCII, Charset::Ascii);
                if ov.encoding.is_none()
                    && let Some(s) = Structure::from_format(&d.format, d.charset)
                {
                    d.encoding = detect_order(data, s).encoding();
                }
                return (d, None);
            }
            match Structure::from_struc_id(data) {
                Some((s, _)) => {
                    let order = ov
                        .encoding
                        .map(ByteOrder::from_encoding)
                        .unwrap_or_else(|| detect_order(data, s));
                    let s = match s {
                        Structure::Rfh if order.read_i32(data, 4) == Some(2) => Structure::Rfh2,
                        other => other,
                    };
                    let d = given(order.encoding(), 0, CharField::BLANK_ASCII, Charset::Ascii);
                    (d, Some((s, order)))
                }
                None => (given(0, 0, CharField::BLANK_ASCII, Charset::Ascii), None),
            }
        }
    }
}

/// The byte order in which `s`'s Version (offset 4) is one that structure has;
/// big-endian when neither is (the parser then reports the bad Version).
fn detect_order(data: &[u8], s: Structure) -> ByteOrder {
    let valid = |v: Option<i32>| {
        matches!(
            (s, v),
            (
                Structure::Md | Structure::Rfh | Structure::Rfh2 | Structure::Cih,
                Some(1 | 2)
            ) | (Structure::Mde, Some(2))
                | (Structure::Xqh | Structure::Dlh | Structure::Iih, Some(1))
        )
    };
    if !valid(ByteOrder::Big.read_i32(data, 4)) && valid(ByteOrder::Little.read_i32(data, 4)) {
        ByteOrder::Little
    } else {
        ByteOrder::Big
    }
}

/// Parses one structure at the start of `input` and describes it; the offset
/// is filled in by the caller.
fn structure_view(
    s: Structure,
    input: &[u8],
    order: ByteOrder,
) -> Result<(StructView, Descriptor), DecodeError> {
    let next = |encoding, coded_char_set_id, format, charset| Descriptor {
        encoding,
        coded_char_set_id,
        format,
        charset,
    };
    // StrucLength as read (the parsers have checked it against the input).
    let struc_length = order.read_i32(input, 8).unwrap_or(0);
    let view = |length: usize, fields| StructView {
        name: s.name(),
        offset: 0,
        length,
        fields,
        folders: None,
        pairs: None,
    };
    match s {
        Structure::Md => {
            let (m, cs) = md::parse_md(input, order)?;
            let d = next(m.encoding, m.coded_char_set_id, m.format, cs);
            Ok((view(m.wire_len(), mqjson::md_fields(&m, cs)), d))
        }
        Structure::Xqh => {
            let (x, cs) = xqh::parse_xqh(input, order)?;
            let m = &x.msg_desc;
            let d = next(m.encoding, m.coded_char_set_id, m.format, cs);
            Ok((view(xqh::XQH_LENGTH, mqjson::xqh_fields(&x, cs)), d))
        }
        Structure::Dlh => {
            let (h, cs) = dlh::parse_dlh(input, order)?;
            let d = next(h.encoding, h.coded_char_set_id, h.format, cs);
            Ok((view(dlh::DLH_LENGTH, mqjson::dlh_fields(&h, cs)), d))
        }
        Structure::Mde => {
            let (h, cs) = mde::parse_mde(input, order)?;
            let d = next(h.encoding, h.coded_char_set_id, h.format, cs);
            let fields = mqjson::mde_fields(&h, cs, struc_length);
            Ok((view(struc_len(struc_length), fields), d))
        }
        Structure::Rfh => {
            let (h, cs) = rfh::parse_rfh(input, order)?;
            let pairs = h
                .pairs(cs)?
                .iter()
                .map(|(n, v)| (token_text(n, cs), token_text(v, cs)))
                .collect();
            let d = next(h.encoding, h.coded_char_set_id, h.format, cs);
            let mut sv = view(
                struc_len(struc_length),
                mqjson::rfh_fields(&h, cs, struc_length),
            );
            sv.pairs = Some(pairs);
            Ok((sv, d))
        }
        Structure::Rfh2 => {
            let (h, cs) = rfh2::parse_rfh2(input, order)?;
            let mut folders = Vec::with_capacity(h.folders.len());
            for f in &h.folders {
                let len = i32::try_from(f.data.len()).unwrap_or(i32::MAX);
                folders.push((len, f.text(h.name_value_ccsid, order)?));
            }
            let d = next(h.encoding, h.coded_char_set_id, h.format, cs);
            let mut sv = view(
                struc_len(struc_length),
                mqjson::rfh2_fields(&h, cs, struc_length),
            );
            sv.folders = Some(folders);
            Ok((sv, d))
        }
        Structure::Iih | Structure::Cih => {
            let (h, cs) = opaque::parse_opaque(s, input, order)?;
            let d = next(h.encoding, h.coded_char_set_id, h.format, cs);
            Ok((
                view(
                    h.struc_length(),
                    mqjson::opaque_fields(&h, cs, struc_length),
                ),
                d,
            ))
        }
    }
}

/// A StrucLength the parser accepted is positive and inside the input.
fn struc_len(v: i32) -> usize {
    usize::try_from(v).unwrap_or(0)
}

/// An MQRFH name or value token as text in `cs`.
fn token_text(t: &[u8], cs: Charset) -> String {
    t.iter().map(|&b| cs.decode_byte(b)).collect()
}

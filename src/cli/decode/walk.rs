//! Decodes a message's header chain with mqcodec's chain walker and collects a
//! [`MessageView`] (spec: mq-structures.md §2, the chaining rule).
//!
//! [`chain::parse_chain`] finds the structures (detecting a bare first one by
//! its StrucId and the byte order of its Version) and keeps the part read
//! before a bad structure; each link is then decoded into its fields. RFH2
//! folder text and MQRFH pairs are decoded here, so their errors (2335
//! MQRC_RFH_STRING_ERROR) also keep the structures before them.

use super::view::{BodyView, MessageView, StructView};
use crate::mqjson::{self, char_text};
use mqgate_codecs::mq::chain::{self, ChainOptions, Header, Link};
use mqgate_codecs::mq::{CharField, Charset, DecodeError, Mqmd};

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
    /// Data after an MQMD that is not part of it (dmpmqmsg `A` lines): the MD's
    /// Encoding, CodedCharSetId and Format describe the first structure.
    FromMd(&'m Mqmd),
}

/// Decodes `data`. `file_md` is the MQMD that came with it from a dmpmqmsg file.
pub fn decode<'a>(
    data: &'a [u8],
    file_md: Option<Mqmd>,
    start: Start<'_>,
    ov: &Overrides,
) -> MessageView<'a> {
    let opts = match start {
        Start::Detect => ChainOptions {
            encoding: ov.encoding,
            ccsid: ov.ccsid,
            format: ov.format,
        },
        Start::FromMd(m) => ChainOptions {
            encoding: Some(ov.encoding.unwrap_or(m.encoding)),
            ccsid: Some(ov.ccsid.unwrap_or(m.coded_char_set_id)),
            format: Some(ov.format.unwrap_or(m.format)),
        },
    };
    let mut view = MessageView {
        file_md,
        line: None,
        structures: Vec::new(),
        body: None,
        data,
        error: None,
    };
    let (found, mut error) = match chain::parse_chain(data, &opts) {
        Ok(c) => (c, None),
        Err(e) => (e.partial, Some(e.error)),
    };
    for link in &found.links {
        match structure_view(link, data) {
            Ok(sv) => view.structures.push(sv),
            Err(e) => {
                error = Some(e);
                break;
            }
        }
    }
    match error {
        Some(e) => view.error = Some(e),
        None => {
            let d = &found.body_descriptor;
            view.body = Some(BodyView {
                offset: found.body_offset,
                format: char_text(&d.format.0, d.charset),
                ccsid: d.coded_char_set_id,
                encoding: d.encoding,
            });
        }
    }
    view
}

/// Decodes one link of the chain into its fields.
fn structure_view(link: &Link, data: &[u8]) -> Result<StructView, DecodeError> {
    let cs = link.charset;
    let order = link.order();
    // StrucLength as read (parse_chain has checked it against the input).
    let struc_length = order.read_i32(link.bytes(data), 8).unwrap_or(0);
    let mut sv = StructView {
        name: link.structure.name(),
        offset: link.offset,
        length: link.length,
        fields: Vec::new(),
        folders: None,
        pairs: None,
    };
    sv.fields = match link.decode(data)? {
        Header::Md(m) => mqjson::md_fields(&m, cs),
        Header::Xqh(x) => mqjson::xqh_fields(&x, cs),
        Header::Dlh(d) => mqjson::dlh_fields(&d, cs),
        Header::Mde(m) => mqjson::mde_fields(&m, cs, struc_length),
        Header::Opaque(h) => mqjson::opaque_fields(&h, cs, struc_length),
        Header::Rfh(r) => {
            let pairs = r.pairs(cs).map_err(|e| e.shifted(link.offset))?;
            sv.pairs = Some(
                pairs
                    .iter()
                    .map(|(n, v)| (token_text(n, cs), token_text(v, cs)))
                    .collect(),
            );
            mqjson::rfh_fields(&r, cs, struc_length)
        }
        Header::Rfh2(r) => {
            let mut folders = Vec::with_capacity(r.folders.len());
            for f in &r.folders {
                let text = f
                    .text(r.name_value_ccsid, order)
                    .map_err(|e| e.shifted(link.offset))?;
                let len = i32::try_from(f.data.len()).unwrap_or(i32::MAX);
                folders.push((len, text));
            }
            sv.folders = Some(folders);
            mqjson::rfh2_fields(&r, cs, struc_length)
        }
    };
    Ok(sv)
}

/// An MQRFH name or value token as text in `cs`.
fn token_text(t: &[u8], cs: Charset) -> String {
    t.iter().map(|&b| cs.decode_byte(b)).collect()
}

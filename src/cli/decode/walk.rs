//! Decodes a message's header chain with mqcodec's chain walker and collects a
//! [`MessageView`] (IBM MQ "Format (MQCHAR8)", the chaining rule).
//!
//! [`chain::parse_chain`] finds the structures (detecting a bare first one by
//! its StrucId and the byte order of its Version) and keeps the part read
//! before a bad structure; each link is then decoded into its fields. RFH2
//! folder text and MQRFH pairs are decoded here, so their errors (2335
//! MQRC_RFH_STRING_ERROR) also keep the structures before them.

use super::view::{BodyView, MessageView, StructView};
use crate::mqjson::{self, char_text};
use mqgate_codecs::mq::chain::{self, ChainOptions, Header, Link};
use mqgate_codecs::mq::{
    ByteOrder, CharField, Charset, DecodeError, DecodeErrorKind, Mqmd, Structure, rfh2,
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
            Ok(sv) => {
                let incomplete = sv.error.clone();
                view.structures.push(sv);
                if incomplete.is_some() {
                    error = incomplete;
                    break;
                }
            }
            Err(e) => {
                error = Some(e);
                break;
            }
        }
    }
    if let Some(e) = &error
        && let Some(sv) = fixed_rfh2_before_length_error(e, data)
    {
        view.structures.push(sv);
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

/// Fixed part of an MQRFH2 (StrucId to NameValueCCSID), in bytes
/// (IBM MQ "MQRFH2 - Rules and formatting header 2").
const RFH2_FIXED: usize = 36;

/// For an MQRFH2 whose StrucLength runs past the data: its fixed fields, read
/// from the 36 bytes that are there, as a structure marked incomplete with
/// `e` (README: what was decoded before the fault is printed). None for any
/// other error.
fn fixed_rfh2_before_length_error(e: &DecodeError, data: &[u8]) -> Option<StructView> {
    let DecodeErrorKind::StrucLengthOutOfRange { struc_length, .. } = e.kind else {
        return None;
    };
    if e.structure != Structure::Rfh2 {
        return None;
    }
    // The error names the StrucLength field, 8 bytes into the structure.
    let start = e.offset.checked_sub(8)?;
    let fixed = data.get(start..start.checked_add(RFH2_FIXED)?)?;
    // Version 2 tells the byte order (IBM MQ "Encoding (MQLONG)"; "MQRFH2 -
    // Rules and formatting header 2": Version @4).
    let order = [ByteOrder::Little, ByteOrder::Big]
        .into_iter()
        .find(|o| o.read_i32(fixed, 4) == Some(2))?;
    // Parse a copy whose StrucLength covers the fixed part only (no folders).
    let mut copy = fixed.to_vec();
    let own = i32::try_from(RFH2_FIXED).ok()?;
    let own = match order {
        ByteOrder::Little => own.to_le_bytes(),
        ByteOrder::Big => own.to_be_bytes(),
    };
    copy[8..12].copy_from_slice(&own);
    let (r, cs) = rfh2::parse_rfh2(&copy, order).ok()?;
    Some(StructView {
        name: Structure::Rfh2.name(),
        offset: start,
        length: RFH2_FIXED,
        fields: mqjson::rfh2_fields(&r, cs, struc_length),
        folders: None,
        pairs: None,
        error: Some(e.clone()),
    })
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
        error: None,
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
                match f.text(r.name_value_ccsid, order) {
                    Ok(text) => {
                        let len = i32::try_from(f.data.len()).unwrap_or(i32::MAX);
                        folders.push((len, text));
                    }
                    Err(e) => {
                        // Keep the fixed fields and the folders before the bad one.
                        sv.error = Some(e.shifted(link.offset));
                        break;
                    }
                }
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

#[cfg(test)]
mod tests {
    use super::*;
    use crate::mqjson::FieldValue;
    use mqgate_codecs::mq::chain::Descriptor;
    use mqgate_codecs::mq::rfh2::Folder;
    use mqgate_codecs::mq::{
        ByteOrder, Mqdlh, Mqrc, Mqrfh, Mqrfh2, Mqxqh, dlh, md, rfh, rfh2, xqh,
    };
    use std::borrow::Cow;

    fn ascii<const N: usize>(s: &str) -> CharField<N> {
        CharField::new(s, Charset::Ascii).unwrap()
    }

    fn field<'v>(sv: &'v StructView, name: &str) -> &'v FieldValue {
        &sv.fields.iter().find(|(n, _)| *n == name).unwrap().1
    }

    fn md_for(format: &str, encoding: i32) -> Vec<u8> {
        let m = Mqmd {
            format: ascii(format),
            encoding,
            coded_char_set_id: 1208,
            ..Mqmd::default()
        };
        let mut out = Vec::new();
        md::write_md(
            &m,
            ByteOrder::from_encoding(encoding),
            Charset::Ascii,
            &mut out,
        );
        out
    }

    #[test]
    fn dead_letter_header_after_an_mqmd() {
        // IBM MQ "MQDLH - Dead-letter header": Reason 2051 (PUT_INHIBITED), DestQName "DLQ.TARGET",
        // little-endian (Encoding 546); DLH 172 bytes; its Encoding/CCSID/Format describe the body.
        let mut data = md_for("MQDEAD", 546);
        let d = Mqdlh {
            version: 1,
            reason: 2051,
            dest_q_name: ascii("DLQ.TARGET"),
            dest_q_mgr_name: ascii("QM1"),
            encoding: 546,
            coded_char_set_id: 819,
            format: ascii("MQSTR"),
            put_appl_type: 29,
            put_appl_name: ascii("runmqchl"),
            put_date: ascii("20201231"),
            put_time: ascii("01020344"),
        };
        dlh::write_dlh(&d, ByteOrder::Little, Charset::Ascii, &mut data);
        data.extend_from_slice(b"hello");
        let v = decode(&data, None, Start::Detect, &Overrides::default());
        assert!(v.error.is_none(), "{:?}", v.error);
        let names: Vec<_> = v
            .structures
            .iter()
            .map(|s| (s.name, s.offset, s.length))
            .collect();
        assert_eq!(names, [("MQMD", 0, 364), ("MQDLH", 364, 172)]);
        let dl = &v.structures[1];
        assert_eq!(field(dl, "Reason"), &FieldValue::Int(2051));
        assert_eq!(field(dl, "DestQName").to_json(), "DLQ.TARGET");
        assert_eq!(field(dl, "PutTime").to_json(), "01020344");
        let b = v.body.unwrap();
        assert_eq!(
            (b.offset, b.ccsid, b.encoding, b.format.as_str()),
            (536, 819, 546, "MQSTR   ")
        );
    }

    #[test]
    fn mqrfh_v1_pairs_with_quotes() {
        // IBM MQ "MQRFH2 - Rules and formatting header 2": a quoted token keeps its blanks, "" is one quote.
        let nvs = br#"OPT_LVL 1 greeting "say ""hi""""#;
        let r = Mqrfh {
            version: 1,
            encoding: 273,
            coded_char_set_id: 819,
            format: ascii("MQSTR"),
            flags: 0,
            name_value_string: Cow::Borrowed(nvs),
        };
        let mut data = Vec::new();
        rfh::write_rfh(&r, ByteOrder::Big, Charset::Ascii, &mut data);
        let v = decode(&data, None, Start::Detect, &Overrides::default());
        assert!(v.error.is_none(), "{:?}", v.error);
        let s = &v.structures[0];
        assert_eq!(s.name, "MQRFH");
        assert_eq!(
            s.pairs.as_deref().unwrap(),
            [
                ("OPT_LVL".to_owned(), "1".to_owned()),
                ("greeting".to_owned(), "say \"hi\"".to_owned())
            ]
        );
        assert_eq!(field(s, "StrucLength"), &FieldValue::Int(32 + 32));
    }

    #[test]
    fn ebcdic_transmission_header_is_detected_and_decoded() {
        // IBM MQ "StrucId (MQCHAR4)": EBCDIC "XQH " is E7 D8 C8 40; big-endian (z/OS, 785).
        let x = Mqxqh {
            version: 1,
            remote_q_name: CharField::new("QUEUE.A", Charset::Ebcdic).unwrap(),
            remote_q_mgr_name: CharField::new("QMZ1", Charset::Ebcdic).unwrap(),
            msg_desc: Mqmd {
                version: 1,
                format: CharField::new("MQSTR", Charset::Ebcdic).unwrap(),
                encoding: 785,
                coded_char_set_id: 500,
                ..Mqmd::default()
            },
        };
        let mut data = Vec::new();
        xqh::write_xqh(&x, ByteOrder::Big, Charset::Ebcdic, &mut data);
        data.extend_from_slice(&[0xC8, 0x85]); // "He" in EBCDIC
        assert_eq!(&data[..4], &[0xE7, 0xD8, 0xC8, 0x40]);
        let v = decode(&data, None, Start::Detect, &Overrides::default());
        let s = &v.structures[0];
        assert_eq!((s.name, s.length), ("MQXQH", 428));
        assert_eq!(field(s, "StrucId").to_json(), "XQH");
        assert_eq!(field(s, "RemoteQName").to_json(), "QUEUE.A");
        assert_eq!(field(s, "RemoteQMgrName").to_json(), "QMZ1");
        let b = v.body.unwrap();
        assert_eq!(
            (b.offset, b.ccsid, b.encoding, b.format.as_str()),
            (428, 500, 785, "MQSTR   ")
        );
    }

    #[test]
    fn bad_folder_text_keeps_the_structures_before_it_and_its_fixed_fields() {
        // NameValueCCSID 1208 with bytes that are not UTF-8: 2335 MQRC_RFH_STRING_ERROR
        // (IBM MQ "MQRFH2 - Rules and formatting header 2" error list), the MQMD before it still shown.
        let mut data = md_for("MQHRF2", 546);
        let next = Descriptor {
            encoding: 546,
            coded_char_set_id: 1208,
            format: ascii("MQSTR"),
            charset: Charset::Ascii,
        };
        let mut r = Mqrfh2::new(&next, 1208);
        r.folders.push(Folder {
            offset: 0,
            data: Cow::Owned(vec![b'<', 0xFF, 0xFE, b'>']),
        });
        rfh2::write_rfh2(&r, ByteOrder::Little, Charset::Ascii, &mut data);
        let v = decode(&data, None, Start::Detect, &Overrides::default());
        // The RFH2's fixed fields are kept too, marked incomplete (docs/decode-json.md:
        // a structure whose later part is bad "is still listed in `structures`").
        assert_eq!(v.structures.len(), 2);
        assert_eq!(v.structures[0].name, "MQMD");
        assert_eq!(v.structures[1].name, "MQRFH2");
        assert_eq!(v.structures[1].error, v.error);
        let e = v.error.unwrap();
        assert_eq!(e.structure.name(), "MQRFH2");
        assert_eq!(e.offset, 364 + 40);
        assert_eq!(e.mqrc(), Mqrc::RFH_STRING_ERROR);
        assert!(v.body.is_none());
    }

    #[test]
    fn file_md_describes_the_data_and_overrides_win() {
        // A dmpmqmsg MD with Format MQHRF2 leads into an RFH2 (the body is dumped as
        // is: the qload source, ibm-messaging/mq-q-qload `qloadfnc.c`);
        // --format MQSTR makes the same bytes a plain body.
        let next = Descriptor {
            encoding: 546,
            coded_char_set_id: 1208,
            format: ascii("MQSTR"),
            charset: Charset::Ascii,
        };
        let mut r = Mqrfh2::new(&next, 1208);
        r.push_folder("<mcd><Msd>jms_text</Msd></mcd>", ByteOrder::Little)
            .unwrap();
        let mut data = Vec::new();
        rfh2::write_rfh2(&r, ByteOrder::Little, Charset::Ascii, &mut data);
        let m = Mqmd {
            format: ascii("MQHRF2"),
            encoding: 546,
            ..Mqmd::default()
        };
        let v = decode(
            &data,
            Some(m.clone()),
            Start::FromMd(&m),
            &Overrides::default(),
        );
        assert_eq!(
            v.structures[0].folders.as_deref().unwrap()[0].1,
            "<mcd><Msd>jms_text</Msd></mcd>"
        );
        let ov = Overrides {
            format: Some(ascii("MQSTR")),
            ..Overrides::default()
        };
        let v = decode(&data, Some(m.clone()), Start::FromMd(&m), &ov);
        assert!(v.structures.is_empty());
        assert_eq!(v.body.unwrap().offset, 0);
    }

    #[test]
    fn every_truncation_and_byte_flip_decodes_without_panic() {
        // Bad input never panics (docs/architecture.md "Rules every part keeps"). An
        // MD + DLH + RFH2 message, cut at
        // every length and with every byte flipped, is decoded and rendered both ways.
        let mut data = md_for("MQDEAD", 546);
        let d = Mqdlh {
            version: 1,
            reason: 2051,
            dest_q_name: ascii("Q"),
            dest_q_mgr_name: ascii("QM"),
            encoding: 546,
            coded_char_set_id: 1208,
            format: ascii("MQHRF2"),
            put_appl_type: 29,
            put_appl_name: ascii("x"),
            put_date: ascii("20201231"),
            put_time: ascii("01020344"),
        };
        dlh::write_dlh(&d, ByteOrder::Little, Charset::Ascii, &mut data);
        let next = Descriptor {
            encoding: 546,
            coded_char_set_id: 1208,
            format: ascii("MQSTR"),
            charset: Charset::Ascii,
        };
        let mut r = Mqrfh2::new(&next, 1208);
        r.push_folder("<usr><a>1</a></usr>", ByteOrder::Little)
            .unwrap();
        rfh2::write_rfh2(&r, ByteOrder::Little, Charset::Ascii, &mut data);
        data.extend_from_slice(b"body");
        let check = |bytes: &[u8]| {
            let v = decode(bytes, None, Start::Detect, &Overrides::default());
            let _ = v.to_json();
            let mut out = String::new();
            v.write_text(&mut out);
            assert!(v.error.is_some() || v.body.as_ref().is_some_and(|b| b.offset <= bytes.len()));
        };
        let whole = decode(&data, None, Start::Detect, &Overrides::default());
        assert!(whole.error.is_none());
        assert_eq!(whole.structures.len(), 3);
        for n in 0..data.len() {
            check(&data[..n]);
            let mut flipped = data.clone();
            flipped[n] ^= 0xFF;
            check(&flipped);
        }
    }
}

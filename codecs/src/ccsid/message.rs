//! MQ message data conversion, what MQGMO_CONVERT does (docs/ccsid.md; IBM MQ
//! "Application data conversion"): every structure's character fields go to
//! the target CCSID, integers to the target Encoding, an MQSTR body is
//! converted, and binary fields (MsgId, CorrelId, GroupId, AccountingToken)
//! are never touched.
//!
//! - MQMD / MQXQH (with its MD) / MQDLH / MQMDE: character fields converted,
//!   integers re-encoded.
//! - MQRFH v1: fixed fields and the NameValueString converted.
//! - MQRFH2: fixed fields converted; NameValueData stays in NameValueCCSID
//!   (UTF-16 folders are byte-swapped when the byte order changes).
//! - Body: MQSTR converted; MQFMT_NONE after a header left as it is (the
//!   header keeps describing it); any other Format left as it is with
//!   warning 2110.
//! - MQIIH / MQCIH are not converted (mqgate knows only their prefix): 2110.
//!
//! When the message cannot be converted the data comes back exactly as it
//! was, with the reason: 2110 MQRC_FORMAT_ERROR when the data starts with
//! MQFMT_NONE or a Format that cannot be converted, or a structure is
//! invalid; 2119 MQRC_NOT_CONVERTED when a CCSID has no table or the data
//! has an unmappable character (under [`super::OnUnmappable::Fail`]).

use super::convert::Converter;
use super::error::ConvertError;
use super::options::Options;
use super::registry::{Ccsid, Family, Repr};
use crate::mq::Mqrc;
use crate::mq::chain::{ChainOptions, Header, parse_chain};
use crate::mq::constants::{ccsi, fmt};
use crate::mq::enc::ByteOrder;
use crate::mq::field::{CharField, Charset};
use crate::mq::md::Mqmd;
use crate::mq::strucid::{Structure, ascii_format};
use std::borrow::Cow;

/// The result of [`convert_message`].
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct MessageConversion {
    /// The message: converted, or exactly the input when `reason` is 2110
    /// for the whole message or 2119.
    pub data: Vec<u8>,
    /// `None` when everything was converted; otherwise the warning
    /// (MQRC_FORMAT_ERROR 2110 or MQRC_NOT_CONVERTED 2119).
    pub reason: Option<Mqrc>,
    /// What could not be converted and where (structure, offset), when `reason` is set.
    pub detail: Option<String>,
    /// Characters replaced by the substitution character (under
    /// [`super::OnUnmappable::Substitute`]).
    pub substitutions: usize,
}

impl MessageConversion {
    fn unconverted(input: &[u8], reason: Mqrc, detail: String) -> MessageConversion {
        MessageConversion {
            data: input.to_vec(),
            reason: Some(reason),
            detail: Some(detail),
            substitutions: 0,
        }
    }
}

/// Why a part of the message is not converted.
struct Refusal {
    reason: Mqrc,
    detail: String,
}

impl Refusal {
    fn format(detail: String) -> Refusal {
        Refusal {
            reason: Mqrc::FORMAT_ERROR,
            detail,
        }
    }

    fn not_converted(detail: String) -> Refusal {
        Refusal {
            reason: Mqrc::NOT_CONVERTED,
            detail,
        }
    }
}

/// The CCSID a structure's own character fields are in: the one the chain
/// says, or, when it is unknown (MQCCSI_Q_MGR 0), 819 / 500 by the charset
/// of its StrucId, since header fields hold MQ's invariant characters,
/// which are the same in every ASCII / EBCDIC CCSID.
fn own_ccsid(ccsid: i32, charset: Charset, at: &str) -> Result<Ccsid, Refusal> {
    let n = match ccsid {
        ccsi::Q_MGR | ccsi::INHERIT | ccsi::EMBEDDED => match charset {
            Charset::Ascii => 819,
            Charset::Ebcdic => 500,
        },
        n => n,
    };
    Ccsid::new(n).map_err(|e| Refusal::not_converted(format!("{at}: {e}")))
}

/// Converts the character fields of one structure to the target.
struct FieldConverter {
    conv: Converter,
    blank: u8,
    at: String,
    substitutions: usize,
}

impl FieldConverter {
    fn field<const N: usize>(&mut self, f: &mut CharField<N>) -> Result<(), Refusal> {
        let mut out = Vec::with_capacity(N);
        self.substitutions += self
            .conv
            .convert_into(&f.0, &mut out)
            .map_err(|e| self.refuse(&e))?;
        // A fixed field keeps its length: pad with blanks, or drop trailing
        // blanks that a multi-byte target made longer.
        while out.len() > N && out.last() == Some(&self.blank) {
            out.pop();
        }
        if out.len() > N {
            return Err(Refusal::not_converted(format!(
                "{}: a {N}-byte field needs {} bytes in the target CCSID",
                self.at,
                out.len()
            )));
        }
        out.resize(N, self.blank);
        f.0.copy_from_slice(&out);
        Ok(())
    }

    fn bytes(&mut self, b: &[u8]) -> Result<Vec<u8>, Refusal> {
        let mut out = Vec::with_capacity(b.len());
        self.substitutions += self
            .conv
            .convert_into(b, &mut out)
            .map_err(|e| self.refuse(&e))?;
        Ok(out)
    }

    fn refuse(&self, e: &ConvertError) -> Refusal {
        Refusal::not_converted(format!("{}: {e}", self.at))
    }

    fn md(&mut self, m: &mut Mqmd) -> Result<(), Refusal> {
        self.field(&mut m.format)?;
        self.field(&mut m.reply_to_q)?;
        self.field(&mut m.reply_to_q_mgr)?;
        self.field(&mut m.user_identifier)?;
        self.field(&mut m.appl_identity_data)?;
        self.field(&mut m.put_appl_name)?;
        self.field(&mut m.put_date)?;
        self.field(&mut m.put_time)?;
        self.field(&mut m.appl_origin_data)
    }
}

/// Swaps the bytes of each UTF-16 unit (an RFH2 folder whose RFH2 changes
/// byte order keeps its text).
fn swap_utf16(data: &[u8]) -> Vec<u8> {
    let mut out = data.to_vec();
    for pair in out.chunks_exact_mut(2) {
        pair.swap(0, 1);
    }
    out
}

/// Converts an MQ message to `target_ccsid` and `target_encoding`.
///
/// `input` starts with an MQMD or MQXQH, or with the structure
/// `chain_options.format` names; `chain_options.ccsid` is the CCSID of the
/// first structure (0 = unknown: its invariant fields are read by charset).
/// A target UTF-16 CCSID applies to an MQSTR body right after the MD/XQH,
/// whose own fields are then written in UTF-8 (1208), since a fixed field
/// cannot hold UTF-16; with other headers in the chain it is refused (2119).
///
/// Never fails: what cannot be converted comes back unconverted with the
/// reason (see the module docs).
pub fn convert_message(
    input: &[u8],
    chain_options: &ChainOptions,
    target_ccsid: i32,
    target_encoding: i32,
    options: &Options,
) -> MessageConversion {
    match convert_inner(input, chain_options, target_ccsid, target_encoding, options) {
        Ok(done) => done,
        Err(r) => MessageConversion::unconverted(input, r.reason, r.detail),
    }
}

fn convert_inner(
    input: &[u8],
    chain_options: &ChainOptions,
    target_ccsid: i32,
    target_encoding: i32,
    options: &Options,
) -> Result<MessageConversion, Refusal> {
    let target = Ccsid::with_encoding(target_ccsid, target_encoding)
        .map_err(|e| Refusal::not_converted(format!("target: {e}")))?;
    // Header fields: the target itself, or UTF-8 for a UTF-16 target.
    let field_target = match target.repr {
        Repr::Utf16 { .. } => {
            Ccsid::new(1208).map_err(|e| Refusal::not_converted(e.to_string()))?
        }
        _ => target,
    };
    let field_charset = if target.family() == Family::Ebcdic {
        Charset::Ebcdic
    } else {
        Charset::Ascii
    };
    let order = ByteOrder::from_encoding(target_encoding);
    let chain =
        parse_chain(input, chain_options).map_err(|e| Refusal::format(format!("{}", e.error)))?;
    // A structure after the MD would have to be in the CCSID the MD names,
    // and fixed header fields cannot be UTF-16.
    let chained = chain
        .links
        .iter()
        .enumerate()
        .any(|(i, l)| i > 0 || !matches!(l.structure, Structure::Md | Structure::Xqh));
    if chained && matches!(target.repr, Repr::Utf16 { .. }) {
        return Err(Refusal::not_converted(format!(
            "target CCSID {target_ccsid} is UTF-16, which MQ headers cannot be in"
        )));
    }
    let body_format = ascii_format(&chain.body_descriptor.format, chain.body_descriptor.charset);
    let body_is_string = &body_format == fmt::STRING;
    let body_is_none = &body_format == fmt::NONE;
    // The first item of the data: after an MD/XQH, the next structure or the body.
    let data_starts_with_body = match chain.links.first() {
        None => true,
        Some(l) => matches!(l.structure, Structure::Md | Structure::Xqh) && chain.links.len() == 1,
    };
    if data_starts_with_body && !body_is_string {
        let what = if body_is_none {
            "MQFMT_NONE"
        } else {
            "a Format mqgate cannot convert"
        };
        return Err(Refusal::format(format!(
            "the data at offset {} has {what} ({:?})",
            chain.body_offset,
            String::from_utf8_lossy(&body_format)
        )));
    }
    let mut decoded = chain.decode().map_err(|e| Refusal::format(e.to_string()))?;
    let last = decoded.headers.len().saturating_sub(1);
    let mut substitutions = 0;
    let mut out = Vec::with_capacity(input.len() + input.len() / 2);
    for (i, h) in decoded.headers.iter_mut().enumerate() {
        let link = h.link;
        let at = format!("{} at offset {}", link.structure.name(), link.offset);
        let from = own_ccsid(link.coded_char_set_id, link.charset, &at)?;
        let mut fc = FieldConverter {
            conv: Converter::new(from, field_target, options),
            blank: field_charset.blank(),
            at: at.clone(),
            substitutions: 0,
        };
        // What this structure says about the next item once converted: the
        // target, unless the next item is a body left as it is.
        let next_converted = i < last || body_is_string;
        let (next_enc, next_ccsid) = if next_converted {
            (target_encoding, target_ccsid)
        } else {
            (link.next.encoding, link.next.coded_char_set_id)
        };
        match &mut h.header {
            Header::Md(m) => {
                fc.md(m)?;
                m.encoding = next_enc;
                m.coded_char_set_id = next_ccsid;
            }
            Header::Xqh(x) => {
                fc.field(&mut x.remote_q_name)?;
                fc.field(&mut x.remote_q_mgr_name)?;
                fc.md(&mut x.msg_desc)?;
                x.msg_desc.encoding = next_enc;
                x.msg_desc.coded_char_set_id = next_ccsid;
            }
            Header::Dlh(d) => {
                fc.field(&mut d.dest_q_name)?;
                fc.field(&mut d.dest_q_mgr_name)?;
                fc.field(&mut d.format)?;
                fc.field(&mut d.put_appl_name)?;
                fc.field(&mut d.put_date)?;
                fc.field(&mut d.put_time)?;
                d.encoding = next_enc;
                d.coded_char_set_id = next_ccsid;
            }
            Header::Mde(m) => {
                fc.field(&mut m.format)?;
                m.encoding = next_enc;
                m.coded_char_set_id = next_ccsid;
            }
            Header::Rfh(r) => {
                fc.field(&mut r.format)?;
                r.name_value_string = Cow::Owned(fc.bytes(&r.name_value_string)?);
                r.encoding = next_enc;
                r.coded_char_set_id = next_ccsid;
            }
            Header::Rfh2(r) => {
                fc.field(&mut r.format)?;
                let utf16 = matches!(r.name_value_ccsid, 1200 | 13488 | 17584);
                if utf16 && link.order() != order {
                    for f in &mut r.folders {
                        f.data = Cow::Owned(swap_utf16(&f.data));
                    }
                }
                r.encoding = next_enc;
                r.coded_char_set_id = next_ccsid;
            }
            Header::Opaque(o) => {
                return Err(Refusal::format(format!(
                    "{at}: {} is not converted by mqgate",
                    o.structure.name()
                )));
            }
        }
        substitutions += fc.substitutions;
        h.header.write(order, field_charset, &mut out);
    }
    let mut reason = None;
    let mut detail = None;
    if body_is_string {
        let d = &chain.body_descriptor;
        let from = Ccsid::with_encoding(d.coded_char_set_id, d.encoding).map_err(|e| {
            Refusal::not_converted(format!("body at offset {}: {e}", chain.body_offset))
        })?;
        let conv = Converter::new(from, target, options);
        substitutions += conv.convert_into(decoded.body, &mut out).map_err(|e| {
            Refusal::not_converted(format!("body at offset {}: {e}", chain.body_offset))
        })?;
    } else {
        out.extend_from_slice(decoded.body);
        if !body_is_none {
            reason = Some(Mqrc::FORMAT_ERROR);
            detail = Some(format!(
                "body at offset {} has Format {:?}, left unconverted",
                chain.body_offset,
                String::from_utf8_lossy(&body_format)
            ));
        }
    }
    Ok(MessageConversion {
        data: out,
        reason,
        detail,
        substitutions,
    })
}

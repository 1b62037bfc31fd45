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
//! - MQIIH, MQCIH (v1, v2), MQWIH, MQRMH, MQDH: field by field after their
//!   layouts (`crate::mq::layout`): character fields converted, integers
//!   re-encoded, binary fields (TranInstanceId, Facility, MsgToken,
//!   ObjectInstanceId) untouched; the MQRMH's strings converted in place
//!   (refused, 2119, when one would change length). An MQIIH / MQCIH keeps
//!   its reserved Encoding and CodedCharSetId; what follows it is in its CCSID
//!   and Encoding, so it must be converted too (else the whole message is
//!   refused, 2110).
//! - Body MQTRIG: an MQTM (StrucId `TM  `, 684 bytes) or MQTMC2 (`TMC `, 732
//!   bytes) field by field.
//! - MQDH: its integers, and its MQOR records' ObjectName / ObjectQMgrName;
//!   its MQPMR records' Feedback re-encoded (the ids untouched).
//! - Not converted (2110): MQSAPH (Format MQHSAP; its layout is not in the IBM
//!   MQ reference), PCF formats (MQADMIN, MQEVENT, MQPCF, MQHEPCF), MQIMSVS
//!   and every user format.
//!
//! When the message cannot be converted the data comes back exactly as it
//! was, with the reason (IBM MQ "Reason codes", each code's page; all
//! complete with MQCC_WARNING):
//! - 2110 MQRC_FORMAT_ERROR: the data starts with MQFMT_NONE or a Format that
//!   cannot be converted, or a structure is invalid;
//! - 2111 MQRC_SOURCE_CCSID_ERROR: a structure's or the body's CCSID is not
//!   supported, or a structure is in UTF-16 (MQ headers need single-byte
//!   characters for the characters valid in queue names);
//! - 2112 / 2113 / 2114 MQRC_SOURCE_INTEGER / DECIMAL / FLOAT_ENC_ERROR: a
//!   structure's Encoding is not recognised;
//! - 2115 MQRC_TARGET_CCSID_ERROR: the target CCSID is not supported, or is
//!   UTF-16 while the message has headers after its MQMD;
//! - 2116 / 2117 / 2118 MQRC_TARGET_INTEGER / DECIMAL / FLOAT_ENC_ERROR: the
//!   target Encoding is not recognised;
//! - 2119 MQRC_NOT_CONVERTED: the data has a character the target lacks
//!   (under [`super::OnUnmappable::Fail`]) or bytes invalid in its CCSID;
//! - 2190 MQRC_CONVERTED_STRING_TOO_BIG: a fixed-length field does not fit
//!   after conversion, even without its trailing blanks.
//!
//! [`convert_message`] takes the whole message (MQMD or MQXQH first);
//! [`convert_for_get`] takes the data an MQMD describes and follows IBM MQ
//! "Conversion processing" for MQGET with MQGMO_CONVERT: no conversion when
//! the data is empty or already in the requested CCSID and Encoding, and the
//! Encoding and CodedCharSetId the MQMD must show afterwards.

use super::convert::Converter;
use super::error::ConvertError;
use super::options::Options;
use super::registry::{Ccsid, Family, Repr};
use crate::mq::Mqrc;
use crate::mq::chain::{ChainOptions, Descriptor, Header, parse_chain};
use crate::mq::constants::{ccsi, fmt};
use crate::mq::enc::ByteOrder;
use crate::mq::field::{CharField, Charset};
use crate::mq::layout::{self, FieldKind, FieldSpec, RMH_STRINGS};
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

    fn new(reason: Mqrc, detail: String) -> Refusal {
        Refusal { reason, detail }
    }
}

/// Checks an MQENC Encoding value (IBM MQ "MQENC_* (Encoding)"): integer part
/// 1 or 2 (for a source also 0, undefined, which mqgate reads as normal),
/// decimal part 0, 0x10 or 0x20, float part 0 or 0x100 to 0x400, and no
/// reserved bit (0xFFFFF000). `target` picks the reasons: 2116 / 2117 / 2118
/// for the target Encoding, 2112 / 2113 / 2114 for a source's; `at` names
/// where the value is.
fn check_encoding(encoding: i32, target: bool, at: &str) -> Result<(), Refusal> {
    let integer = encoding & crate::mq::constants::enc::INTEGER_MASK;
    let decimal = encoding & crate::mq::constants::enc::DECIMAL_MASK;
    let float = encoding & crate::mq::constants::enc::FLOAT_MASK;
    let reserved = encoding & crate::mq::constants::enc::RESERVED_MASK;
    let (int_rc, dec_rc, float_rc) = if target {
        (
            Mqrc::TARGET_INTEGER_ENC_ERROR,
            Mqrc::TARGET_DECIMAL_ENC_ERROR,
            Mqrc::TARGET_FLOAT_ENC_ERROR,
        )
    } else {
        (
            Mqrc::SOURCE_INTEGER_ENC_ERROR,
            Mqrc::SOURCE_DECIMAL_ENC_ERROR,
            Mqrc::SOURCE_FLOAT_ENC_ERROR,
        )
    };
    let integer_ok = matches!(integer, 1 | 2) || (!target && integer == 0);
    if !integer_ok || reserved != 0 {
        return Err(Refusal::new(
            int_rc,
            format!(
                "{at}: Encoding {encoding} (0x{encoding:08X}) has an integer encoding that is not recognised (expected 1 MQENC_INTEGER_NORMAL or 2 MQENC_INTEGER_REVERSED, and no bit of 0xFFFFF000)"
            ),
        ));
    }
    if !matches!(decimal, 0 | 0x10 | 0x20) {
        return Err(Refusal::new(
            dec_rc,
            format!(
                "{at}: Encoding {encoding} (0x{encoding:08X}) has a packed-decimal encoding that is not recognised"
            ),
        ));
    }
    if !matches!(float, 0 | 0x100 | 0x200 | 0x300 | 0x400) {
        return Err(Refusal::new(
            float_rc,
            format!(
                "{at}: Encoding {encoding} (0x{encoding:08X}) has a floating-point encoding that is not recognised"
            ),
        ));
    }
    Ok(())
}

/// The CCSID a structure's own character fields are in: the one the chain
/// says, or, when it is unknown (MQCCSI_Q_MGR 0), 819 / 500 by the charset
/// of its StrucId, since header fields hold MQ's invariant characters,
/// which are the same in every ASCII / EBCDIC CCSID.
///
/// Errors: 2111 MQRC_SOURCE_CCSID_ERROR for a CCSID mqgate does not support
/// or a UTF-16 one (IBM MQ "2111 (083F) (RC2111): MQRC_SOURCE_CCSID_ERROR":
/// MQ headers in a character set without single-byte characters for the
/// characters valid in queue names are not valid).
fn own_ccsid(ccsid: i32, charset: Charset, at: &str) -> Result<Ccsid, Refusal> {
    let n = match ccsid {
        ccsi::Q_MGR | ccsi::INHERIT | ccsi::EMBEDDED => match charset {
            Charset::Ascii => 819,
            Charset::Ebcdic => 500,
        },
        n => n,
    };
    let c =
        Ccsid::new(n).map_err(|e| Refusal::new(Mqrc::SOURCE_CCSID_ERROR, format!("{at}: {e}")))?;
    if matches!(c.repr, Repr::Utf16 { .. }) {
        return Err(Refusal::new(
            Mqrc::SOURCE_CCSID_ERROR,
            format!("{at}: the structure is in CCSID {n}, UTF-16, which MQ headers cannot be in"),
        ));
    }
    Ok(c)
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
        self.fixed(&mut f.0, "")
    }

    /// Converts the fixed-length character field `f` in place (`name` for
    /// errors; empty for the typed structures' fields).
    fn fixed(&mut self, f: &mut [u8], name: &str) -> Result<(), Refusal> {
        let n = f.len();
        let mut out = Vec::with_capacity(n);
        self.substitutions += self
            .conv
            .convert_into(f, &mut out)
            .map_err(|e| Refusal::not_converted(format!("{}{}{name}: {e}", self.at, sep(name))))?;
        // A fixed field keeps its length: pad with blanks, or drop trailing
        // blanks that a multi-byte target made longer.
        while out.len() > n && out.last() == Some(&self.blank) {
            out.pop();
        }
        if out.len() > n {
            return Err(Refusal::new(
                Mqrc::CONVERTED_STRING_TOO_BIG,
                format!(
                    "{}{}{name}: a {n}-byte field needs {} bytes in the target CCSID",
                    self.at,
                    sep(name),
                    out.len()
                ),
            ));
        }
        out.resize(n, self.blank);
        f.copy_from_slice(&out);
        Ok(())
    }

    /// Converts the fields `fields` of a structure whose bytes from offset
    /// `base` on are `bytes` (MQCHARn in place, MQLONG from `from` to `to`
    /// byte order, MQBYTEn untouched); `bytes` must hold every field.
    fn layout(
        &mut self,
        bytes: &mut [u8],
        base: usize,
        fields: &[FieldSpec],
        from: ByteOrder,
        to: ByteOrder,
    ) -> Result<(), Refusal> {
        for f in fields {
            let start = f.offset - base;
            let Some(slot) = bytes.get_mut(start..start + f.length) else {
                return Err(Refusal::format(format!(
                    "{}: {} at offset {} is past the end of the structure",
                    self.at, f.name, f.offset
                )));
            };
            match f.kind {
                FieldKind::Char => self.fixed(slot, f.name)?,
                FieldKind::Int => {
                    let v = from.read_i32(slot, 0).unwrap_or(0);
                    slot.copy_from_slice(&to.i32_to(v));
                }
                FieldKind::Bytes => {}
            }
        }
        Ok(())
    }

    /// The MQRMH strings (IBM MQ "MQRMH - Reference message header": each
    /// (length, offset) pair addresses character data within StrucLength, in
    /// the MQRMH's CCSID). `whole` is the MQRMH as read (integers in
    /// `order`); the strings are converted in `rest` (its bytes from 32 on) in
    /// place. A string whose length would change, strings that partly
    /// overlap, or one outside StrucLength is refused.
    fn rmh_strings(
        &mut self,
        whole: &[u8],
        rest: &mut [u8],
        order: ByteOrder,
    ) -> Result<(), Refusal> {
        let mut ranges: Vec<(usize, usize, &str)> = Vec::new();
        for (name, len_at, off_at) in RMH_STRINGS {
            let len = order.read_i32(whole, len_at).unwrap_or(0);
            let off = order.read_i32(whole, off_at).unwrap_or(0);
            if len == 0 {
                continue;
            }
            let range = usize::try_from(len)
                .ok()
                .zip(usize::try_from(off).ok())
                .filter(|&(l, o)| {
                    o >= RMH_FIXED && o.checked_add(l).is_some_and(|e| e <= whole.len())
                });
            let Some((l, o)) = range else {
                return Err(Refusal::format(format!(
                    "{}: {name}Length {len} at {name}Offset {off} is not inside the MQRMH (fixed part {RMH_FIXED} bytes, StrucLength {})",
                    self.at,
                    whole.len()
                )));
            };
            ranges.push((o, l, name));
        }
        ranges.sort_unstable();
        ranges.dedup_by(|a, b| a.0 == b.0 && a.1 == b.1);
        for w in ranges.windows(2) {
            if w[0].0 + w[0].1 > w[1].0 {
                return Err(Refusal::format(format!(
                    "{}: the {} and {} strings overlap",
                    self.at, w[0].2, w[1].2
                )));
            }
        }
        for (o, l, name) in ranges {
            let slot = &mut rest[o - PREFIX..o - PREFIX + l];
            let mut out = Vec::with_capacity(l);
            self.substitutions += self
                .conv
                .convert_into(slot, &mut out)
                .map_err(|e| Refusal::not_converted(format!("{}: {name}: {e}", self.at)))?;
            if out.len() != l {
                return Err(Refusal::not_converted(format!(
                    "{}: {name} is {l} bytes and {} in the target CCSID; mqgate converts MQRMH strings only where their length stays",
                    self.at,
                    out.len()
                )));
            }
            slot.copy_from_slice(&out);
        }
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

    /// The MQDH's records (IBM MQ "MQDH - Distribution header", "MQOR -
    /// Object record", "MQPMR - Put-message record"): RecsPresent MQOR
    /// records at ObjectRecOffset (ObjectName, ObjectQMgrName converted) and
    /// as many MQPMR records at PutMsgRecOffset, their fields as
    /// PutMsgRecFields says (Feedback re-encoded, the ids untouched). `whole`
    /// is the MQDH as read (integers in `from`); the records are converted in
    /// `rest` (its bytes from 32 on). Records outside StrucLength or over the
    /// fixed part, arrays that overlap, and PutMsgRecFields bits no MQPMRF_*
    /// flag has are refused (2110).
    fn dh_records(
        &mut self,
        whole: &[u8],
        rest: &mut [u8],
        from: ByteOrder,
        to: ByteOrder,
    ) -> Result<(), Refusal> {
        let pmr_fields = from.read_i32(whole, 32).unwrap_or(0);
        let recs = from.read_i32(whole, 36).unwrap_or(0);
        let or_at = from.read_i32(whole, 40).unwrap_or(0);
        let pmr_at = from.read_i32(whole, 44).unwrap_or(0);
        let Ok(n) = usize::try_from(recs) else {
            return Err(Refusal::format(format!(
                "{}: RecsPresent {recs} is negative",
                self.at
            )));
        };
        let Some((pmr, pmr_len)) = layout::pmr_layout(pmr_fields) else {
            return Err(Refusal::format(format!(
                "{}: PutMsgRecFields 0x{pmr_fields:08X} has bits no MQPMRF_* flag has",
                self.at
            )));
        };
        let mut arrays: Vec<(&str, i32, usize, &[FieldSpec])> = Vec::new();
        if or_at != 0 {
            arrays.push(("MQOR", or_at, layout::OR_LENGTH, layout::OR));
        }
        if pmr_at != 0 && pmr_len > 0 {
            arrays.push(("MQPMR", pmr_at, pmr_len, pmr.as_slice()));
        }
        let mut spans = Vec::with_capacity(2);
        for (name, at, len, fields) in arrays {
            let start = usize::try_from(at).ok().filter(|&s| s >= DH_FIXED);
            let end = start
                .and_then(|s| n.checked_mul(len).and_then(|t| s.checked_add(t)))
                .filter(|&e| e <= whole.len());
            let (Some(start), Some(end)) = (start, end) else {
                return Err(Refusal::format(format!(
                    "{}: {recs} {name} records of {len} bytes at offset {at} are not inside the MQDH (fixed part {DH_FIXED} bytes, StrucLength {})",
                    self.at,
                    whole.len()
                )));
            };
            spans.push((start, end, name, len, fields));
        }
        if let [a, b] = spans.as_slice()
            && a.0 < b.1
            && b.0 < a.1
            && n > 0
        {
            return Err(Refusal::format(format!(
                "{}: the {} and {} records overlap",
                self.at, a.2, b.2
            )));
        }
        for (start, _, _, len, fields) in spans {
            for k in 0..n {
                let at = start + k * len - PREFIX;
                self.layout(&mut rest[at..at + len], 0, fields, from, to)?;
            }
        }
        Ok(())
    }

    /// A structure's Format field (MQCHAR8).
    fn fmt_field(&mut self, f: &mut CharField<8>) -> Result<(), Refusal> {
        self.fixed(&mut f.0, "Format")
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

/// `": "` between a structure and a field name, nothing without a name.
fn sep(name: &str) -> &'static str {
    if name.is_empty() { "" } else { ": " }
}

/// Length of the common prefix of the MQIIH, MQCIH, MQWIH and MQRMH.
const PREFIX: usize = 32;
/// The fixed part of an MQRMH (MQRMH_LENGTH_1).
const RMH_FIXED: usize = layout::RMH_LENGTH_1;
/// The fixed part of an MQDH (version 1).
const DH_FIXED: usize = layout::DH_LENGTH_1;

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

/// The result of [`convert_for_get`]: the data and what the MQMD passed on
/// the MQGET now says about it.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct GetConversion<'a> {
    /// The data: converted, or borrowed unchanged (nothing to convert, or a
    /// refusal).
    pub data: Cow<'a, [u8]>,
    /// The MQMD's Encoding now: the target once the data was converted, else
    /// the message's (IBM MQ "Conversion processing").
    pub encoding: i32,
    /// The MQMD's CodedCharSetId now, likewise.
    pub coded_char_set_id: i32,
    /// `None` for MQCC_OK; otherwise the warning the MQGET completes with
    /// (MQCC_WARNING; see the module docs for each reason).
    pub reason: Option<Mqrc>,
    /// What could not be converted and where, when `reason` is set.
    pub detail: Option<String>,
    /// Characters replaced by the substitution character (under
    /// [`super::OnUnmappable::Substitute`]).
    pub substitutions: usize,
}

/// MQGET with MQGMO_CONVERT (IBM MQ "Conversion processing", "MQGMO_CONVERT"):
/// converts `data`, which `described` describes as the MQMD's Encoding,
/// CodedCharSetId and Format do (the Format in `described.charset`), to
/// `target_ccsid` and `target_encoding` (the CodedCharSetId and Encoding the
/// application set in the MQMD; the caller resolves MQCCSI_Q_MGR 0 to the
/// queue manager's CCSID first, on both sides).
///
/// - Empty data, or data already in the target CCSID and Encoding: returned
///   as it is, MQCC_OK, the message's Encoding and CCSID.
/// - Otherwise the chain of MQ headers the Format starts is converted as
///   [`convert_message`] does; on success the MQMD shows the target, with
///   a warning when a part behind the headers was left as it was (2110); on
///   a refusal the data comes back unchanged with the message's Encoding and
///   CCSID and the reason (the module docs list them).
///
/// Never fails and never panics.
pub fn convert_for_get<'a>(
    data: &'a [u8],
    described: &Descriptor,
    target_ccsid: i32,
    target_encoding: i32,
    options: &Options,
) -> GetConversion<'a> {
    let unchanged = |reason: Option<Mqrc>, detail: Option<String>| GetConversion {
        data: Cow::Borrowed(data),
        encoding: described.encoding,
        coded_char_set_id: described.coded_char_set_id,
        reason,
        detail,
        substitutions: 0,
    };
    if data.is_empty()
        || (described.coded_char_set_id == target_ccsid && described.encoding == target_encoding)
    {
        return unchanged(None, None);
    }
    let chain_options = ChainOptions {
        encoding: Some(described.encoding),
        ccsid: Some(described.coded_char_set_id),
        format: Some(CharField(ascii_format(
            &described.format,
            described.charset,
        ))),
    };
    match convert_inner(data, &chain_options, target_ccsid, target_encoding, options) {
        Ok(done) => GetConversion {
            data: Cow::Owned(done.data),
            encoding: target_encoding,
            coded_char_set_id: target_ccsid,
            reason: done.reason,
            detail: done.detail,
            substitutions: done.substitutions,
        },
        Err(r) => unchanged(Some(r.reason), Some(r.detail)),
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
        .map_err(|e| Refusal::new(Mqrc::TARGET_CCSID_ERROR, format!("target CCSID: {e}")))?;
    check_encoding(target_encoding, true, "target")?;
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
        return Err(Refusal::new(
            Mqrc::TARGET_CCSID_ERROR,
            format!("target CCSID {target_ccsid} is UTF-16, which MQ headers cannot be in"),
        ));
    }
    let body_format = ascii_format(&chain.body_descriptor.format, chain.body_descriptor.charset);
    let body_is_string = &body_format == fmt::STRING;
    let body_is_trigger = &body_format == fmt::TRIGGER;
    let body_is_none = &body_format == fmt::NONE;
    if body_is_trigger && matches!(target.repr, Repr::Utf16 { .. }) {
        return Err(Refusal::new(
            Mqrc::TARGET_CCSID_ERROR,
            format!(
                "target CCSID {target_ccsid} is UTF-16, which the fixed fields of an MQTM cannot be in"
            ),
        ));
    }
    // Bodies mqgate converts: MQSTR and the trigger messages (MQFMT_TRIGGER).
    let body_converted = body_is_string || body_is_trigger;
    // The first item of the data: after an MD/XQH, the next structure or the body.
    let data_starts_with_body = match chain.links.first() {
        None => true,
        Some(l) => matches!(l.structure, Structure::Md | Structure::Xqh) && chain.links.len() == 1,
    };
    if data_starts_with_body && !body_converted {
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
        check_encoding(link.encoding, false, &at)?;
        let from = own_ccsid(link.coded_char_set_id, link.charset, &at)?;
        let mut fc = FieldConverter {
            conv: Converter::new(from, field_target, options),
            blank: field_charset.blank(),
            at: at.clone(),
            substitutions: 0,
        };
        // What this structure says about the next item once converted: the
        // target, unless the next item is a body left as it is.
        let next_converted = i < last || body_converted;
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
                let Some((fields, fixed)) = layout::prefixed_layout(o.structure, o.version) else {
                    return Err(Refusal::format(format!(
                        "{at}: {} version {} has no layout mqgate knows",
                        o.structure.name(),
                        o.version
                    )));
                };
                // MQRMH and MQDH are longer than their fixed part (strings,
                // records); the others are exactly their version's length.
                let variable = matches!(o.structure, Structure::Rmh | Structure::Dh);
                if !variable && o.struc_length() != fixed {
                    return Err(Refusal::format(format!(
                        "{at}: StrucLength {} is not the {fixed} bytes of a version {} {}",
                        o.struc_length(),
                        o.version,
                        o.structure.name()
                    )));
                }
                let inherits = o.structure.inherits_descriptor();
                if inherits && !next_converted {
                    // What follows an MQIIH / MQCIH is in its CCSID and
                    // Encoding, which no field can say once it is converted.
                    return Err(Refusal::format(format!(
                        "{at}: the data after an {} is in its CCSID and Encoding, and the body's Format {:?} cannot be converted with it",
                        o.structure.name(),
                        String::from_utf8_lossy(&body_format)
                    )));
                }
                fc.fmt_field(&mut o.format)?;
                let mut rest = o.rest.to_vec();
                fc.layout(&mut rest, PREFIX, &fields, link.order(), order)?;
                match o.structure {
                    Structure::Rmh => fc.rmh_strings(link.bytes(input), &mut rest, link.order())?,
                    Structure::Dh => {
                        fc.dh_records(link.bytes(input), &mut rest, link.order(), order)?
                    }
                    _ => {}
                }
                o.rest = Cow::Owned(rest);
                if !inherits {
                    o.encoding = next_enc;
                    o.coded_char_set_id = next_ccsid;
                }
            }
        }
        substitutions += fc.substitutions;
        h.header.write(order, field_charset, &mut out);
    }
    let mut reason = None;
    let mut detail = None;
    if body_is_trigger {
        let d = &chain.body_descriptor;
        let at = format!("MQTM at offset {}", chain.body_offset);
        check_encoding(d.encoding, false, &at)?;
        let body = decoded.body;
        let (fields, length, name) = match body.get(..4) {
            Some(b"TM  ") | Some([0xE3, 0xD4, 0x40, 0x40]) => {
                (layout::TM_1, layout::TM_LENGTH, "MQTM")
            }
            Some(b"TMC ") | Some([0xE3, 0xD4, 0xC3, 0x40]) => {
                (layout::TMC2, layout::TMC2_LENGTH, "MQTMC2")
            }
            _ => {
                return Err(Refusal::format(format!(
                    "{at}: Format MQTRIG data does not start with StrucId 'TM  ' (MQTM) or 'TMC ' (MQTMC2)"
                )));
            }
        };
        if body.len() != length {
            return Err(Refusal::format(format!(
                "{at}: an {name} is {length} bytes, the data is {}",
                body.len()
            )));
        }
        let charset = if body[0] == b'T' {
            Charset::Ascii
        } else {
            Charset::Ebcdic
        };
        let from = own_ccsid(d.coded_char_set_id, charset, &at)?;
        let mut fc = FieldConverter {
            conv: Converter::new(from, target, options),
            blank: field_charset.blank(),
            at,
            substitutions: 0,
        };
        let mut tm = body.to_vec();
        fc.layout(
            &mut tm,
            0,
            fields,
            ByteOrder::from_encoding(d.encoding),
            order,
        )?;
        substitutions += fc.substitutions;
        out.extend_from_slice(&tm);
    } else if body_is_string {
        let d = &chain.body_descriptor;
        let from = Ccsid::with_encoding(d.coded_char_set_id, d.encoding).map_err(|e| {
            Refusal::new(
                Mqrc::SOURCE_CCSID_ERROR,
                format!("body at offset {}: {e}", chain.body_offset),
            )
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

//! MQ structures as named fields, for `mqgate decode` and the HTTP API.
//!
//! Field names are MQ's own (`StrucId`, `MsgId`, `CodedCharSetId`, …; MQ docs:
//! MQMD). In JSON, integers are numbers, byte fields (MsgId, CorrelId, GroupId,
//! AccountingToken, …) uppercase hex, and character fields their text up to the
//! first NUL with trailing blanks removed (docs/decode-json.md).

use mqgate_codecs::mq::{
    CharField, Charset, Mqdlh, Mqmd, Mqmde, Mqrfh, Mqrfh2, Mqxqh, OpaqueHeader, Structure,
};
use serde_json::{Map, Value};

/// One field's value.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum FieldValue {
    /// An MQLONG.
    Int(i32),
    /// Binary bytes, never converted (MQBYTE fields).
    Bytes(Vec<u8>),
    /// Character data decoded up to the first NUL, trailing blanks kept.
    Char(String),
    /// An embedded structure (the MQXQH's MsgDesc).
    Struct(Fields),
}

/// A structure's fields in layout order.
pub type Fields = Vec<(&'static str, FieldValue)>;

impl FieldValue {
    /// A character field of `N` bytes in `cs`.
    pub fn char<const N: usize>(f: &CharField<N>, cs: Charset) -> FieldValue {
        FieldValue::Char(char_text(&f.0, cs))
    }

    /// The JSON form (see the module documentation).
    pub fn to_json(&self) -> Value {
        match self {
            FieldValue::Int(v) => Value::from(*v),
            FieldValue::Bytes(b) => Value::from(hex::encode_upper(b)),
            FieldValue::Char(s) => Value::from(s.trim_end_matches(' ')),
            FieldValue::Struct(f) => fields_to_json(f),
        }
    }
}

/// Decodes character bytes in `cs` up to the first NUL (IBM MQ "ObjectName (MQCHAR48)": a
/// NUL ends the significant data).
pub fn char_text(bytes: &[u8], cs: Charset) -> String {
    bytes
        .iter()
        .take_while(|&&b| b != 0)
        .map(|&b| cs.decode_byte(b))
        .collect()
}

/// A JSON object of `fields`, in their order.
pub fn fields_to_json(fields: &Fields) -> Value {
    let mut m = Map::new();
    for (name, v) in fields {
        m.insert((*name).to_owned(), v.to_json());
    }
    Value::Object(m)
}

/// The MQMD's fields in layout order (IBM MQ "MQMD - Message descriptor"); the
/// version 2 fields only when `md.version` is 2 or more. `cs` is the charset of
/// its character fields (the StrucId's; ASCII for an MD read from a dmpmqmsg
/// file).
pub fn md_fields(md: &Mqmd, cs: Charset) -> Fields {
    use FieldValue::{Bytes, Int};
    let mut f: Fields = vec![
        ("StrucId", FieldValue::Char("MD  ".into())),
        ("Version", Int(md.version)),
        ("Report", Int(md.report)),
        ("MsgType", Int(md.msg_type)),
        ("Expiry", Int(md.expiry)),
        ("Feedback", Int(md.feedback)),
        ("Encoding", Int(md.encoding)),
        ("CodedCharSetId", Int(md.coded_char_set_id)),
        ("Format", FieldValue::char(&md.format, cs)),
        ("Priority", Int(md.priority)),
        ("Persistence", Int(md.persistence)),
        ("MsgId", Bytes(md.msg_id.to_vec())),
        ("CorrelId", Bytes(md.correl_id.to_vec())),
        ("BackoutCount", Int(md.backout_count)),
        ("ReplyToQ", FieldValue::char(&md.reply_to_q, cs)),
        ("ReplyToQMgr", FieldValue::char(&md.reply_to_q_mgr, cs)),
        ("UserIdentifier", FieldValue::char(&md.user_identifier, cs)),
        ("AccountingToken", Bytes(md.accounting_token.to_vec())),
        (
            "ApplIdentityData",
            FieldValue::char(&md.appl_identity_data, cs),
        ),
        ("PutApplType", Int(md.put_appl_type)),
        ("PutApplName", FieldValue::char(&md.put_appl_name, cs)),
        ("PutDate", FieldValue::char(&md.put_date, cs)),
        ("PutTime", FieldValue::char(&md.put_time, cs)),
        ("ApplOriginData", FieldValue::char(&md.appl_origin_data, cs)),
    ];
    if md.version >= 2 {
        f.extend([
            ("GroupId", Bytes(md.group_id.to_vec())),
            ("MsgSeqNumber", Int(md.msg_seq_number)),
            ("Offset", Int(md.offset)),
            ("MsgFlags", Int(md.msg_flags)),
            ("OriginalLength", Int(md.original_length)),
        ]);
    }
    f
}

/// The StrucId of `s` in `cs` as a character field value.
fn struc_id(s: Structure, cs: Charset) -> FieldValue {
    FieldValue::Char(char_text(&s.struc_id(cs), cs))
}

/// The common 32-byte prefix (as in IBM MQ "MQRFH2 - Rules and formatting
/// header 2"): StrucId, Version, StrucLength, Encoding, CodedCharSetId, Format,
/// Flags. `next` is the structure's (Encoding, CodedCharSetId, Format).
fn prefix_fields(
    s: Structure,
    cs: Charset,
    version: i32,
    struc_length: i32,
    next: (i32, i32, &CharField<8>),
    flags: i32,
) -> Fields {
    let (encoding, ccsid, format) = next;
    use FieldValue::Int;
    vec![
        ("StrucId", struc_id(s, cs)),
        ("Version", Int(version)),
        ("StrucLength", Int(struc_length)),
        ("Encoding", Int(encoding)),
        ("CodedCharSetId", Int(ccsid)),
        ("Format", FieldValue::char(format, cs)),
        ("Flags", Int(flags)),
    ]
}

/// MQXQH fields (IBM MQ "MQXQH - Transmission-queue header"); the embedded MQMD is
/// `MsgDesc`.
pub fn xqh_fields(x: &Mqxqh, cs: Charset) -> Fields {
    vec![
        ("StrucId", struc_id(Structure::Xqh, cs)),
        ("Version", FieldValue::Int(x.version)),
        ("RemoteQName", FieldValue::char(&x.remote_q_name, cs)),
        ("RemoteQMgrName", FieldValue::char(&x.remote_q_mgr_name, cs)),
        ("MsgDesc", FieldValue::Struct(md_fields(&x.msg_desc, cs))),
    ]
}

/// MQDLH fields (IBM MQ "MQDLH - Dead-letter header").
pub fn dlh_fields(d: &Mqdlh, cs: Charset) -> Fields {
    use FieldValue::Int;
    vec![
        ("StrucId", struc_id(Structure::Dlh, cs)),
        ("Version", Int(d.version)),
        ("Reason", Int(d.reason)),
        ("DestQName", FieldValue::char(&d.dest_q_name, cs)),
        ("DestQMgrName", FieldValue::char(&d.dest_q_mgr_name, cs)),
        ("Encoding", Int(d.encoding)),
        ("CodedCharSetId", Int(d.coded_char_set_id)),
        ("Format", FieldValue::char(&d.format, cs)),
        ("PutApplType", Int(d.put_appl_type)),
        ("PutApplName", FieldValue::char(&d.put_appl_name, cs)),
        ("PutDate", FieldValue::char(&d.put_date, cs)),
        ("PutTime", FieldValue::char(&d.put_time, cs)),
    ]
}

/// MQMDE fields (IBM MQ "MQMDE - Message descriptor extension").
pub fn mde_fields(m: &Mqmde, cs: Charset, struc_length: i32) -> Fields {
    use FieldValue::{Bytes, Int};
    let mut f = prefix_fields(
        Structure::Mde,
        cs,
        m.version,
        struc_length,
        (m.encoding, m.coded_char_set_id, &m.format),
        m.flags,
    );
    f.extend([
        ("GroupId", Bytes(m.group_id.to_vec())),
        ("MsgSeqNumber", Int(m.msg_seq_number)),
        ("Offset", Int(m.offset)),
        ("MsgFlags", Int(m.msg_flags)),
        ("OriginalLength", Int(m.original_length)),
    ]);
    f
}

/// MQRFH v1 fixed fields (IBM MQ "MQRFH - Rules and formatting header"); the pairs are
/// separate.
pub fn rfh_fields(r: &Mqrfh<'_>, cs: Charset, struc_length: i32) -> Fields {
    prefix_fields(
        Structure::Rfh,
        cs,
        r.version,
        struc_length,
        (r.encoding, r.coded_char_set_id, &r.format),
        r.flags,
    )
}

/// MQRFH2 fixed fields (IBM MQ "MQRFH2 - Rules and formatting header 2"); the folders are
/// separate.
pub fn rfh2_fields(r: &Mqrfh2<'_>, cs: Charset, struc_length: i32) -> Fields {
    let mut f = prefix_fields(
        Structure::Rfh2,
        cs,
        r.version,
        struc_length,
        (r.encoding, r.coded_char_set_id, &r.format),
        r.flags,
    );
    f.push(("NameValueCCSID", FieldValue::Int(r.name_value_ccsid)));
    f
}

/// MQIIH/MQCIH: the common prefix, the only part mqgate decodes (IBM MQ "MQIIH - IMS
/// information header", "MQCIH - CICS bridge header").
pub fn opaque_fields(h: &OpaqueHeader<'_>, cs: Charset, struc_length: i32) -> Fields {
    prefix_fields(
        h.structure,
        cs,
        h.version,
        struc_length,
        (h.encoding, h.coded_char_set_id, &h.format),
        h.flags,
    )
}

/// The MQMD as a JSON object keyed by MQ's field names (see [`md_fields`]).
pub fn md_to_json(md: &Mqmd, cs: Charset) -> Value {
    fields_to_json(&md_fields(md, cs))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn md_json_uses_mq_names_numbers_hex_and_trimmed_text() {
        // MsgId 414D5120514D544553543030312020205F5500962E17AF43 (has 0x00 bytes)
        // survives whole; field names of IBM MQ "MQMD - Message descriptor"; a NUL ends a
        // char field.
        let mut md = Mqmd::default();
        md.msg_id.copy_from_slice(
            &hex::decode("414D5120514D544553543030312020205F5500962E17AF43").unwrap(),
        );
        md.format = CharField(*b"MQHRF2\0\0");
        md.reply_to_q = CharField::new("REPLY.Q", Charset::Ascii).unwrap();
        md.encoding = 546;
        let j = md_to_json(&md, Charset::Ascii);
        assert_eq!(j["StrucId"], "MD");
        assert_eq!(j["Version"], 2);
        assert_eq!(j["Encoding"], 546);
        assert_eq!(j["Expiry"], -1);
        assert_eq!(
            j["MsgId"],
            "414D5120514D544553543030312020205F5500962E17AF43"
        );
        assert_eq!(j["CorrelId"], "0".repeat(48));
        assert_eq!(j["Format"], "MQHRF2");
        assert_eq!(j["ReplyToQ"], "REPLY.Q");
        assert_eq!(j["OriginalLength"], -1);
        let keys: Vec<&String> = j.as_object().unwrap().keys().collect();
        assert_eq!(keys.len(), 29);
        assert_eq!(
            (keys[0].as_str(), keys[28].as_str()),
            ("StrucId", "OriginalLength")
        );
    }

    #[test]
    fn md_v1_has_no_v2_fields_and_ebcdic_text_decodes() {
        // IBM MQ "MQMD - Message descriptor": v1 ends at 324 with ApplOriginData; EBCDIC
        // StrucIds as in the Wireshark MQ dissector.
        let md = Mqmd {
            version: 1,
            put_appl_name: CharField::new("CICS.APP", Charset::Ebcdic).unwrap(),
            ..Mqmd::default()
        };
        let j = md_to_json(&md, Charset::Ebcdic);
        assert_eq!(j.as_object().unwrap().len(), 24);
        assert!(j.get("GroupId").is_none());
        assert_eq!(j["PutApplName"], "CICS.APP");
    }
}

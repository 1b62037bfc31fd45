//! The MQMD as JSON, with MQ's own field names — the one mapping shared by the
//! HTTP API, `mqgate get --json` and `mqgate decode --json`.
//!
//! Integers are JSON numbers; byte fields (MsgId, CorrelId, AccountingToken,
//! GroupId) are uppercase hex; character fields are text with trailing blanks
//! (and anything after a NUL) removed (IBM MQ "MQMD - Message descriptor",
//! "ObjectName (MQCHAR48)": a NUL ends the significant data).

use crate::mqi::names::shown;
use mqgate_codecs::mq::md::Id24;
use mqgate_codecs::mq::{CharField, Charset, Mqmd};
use serde_json::{Map, Value};

/// Every MQMD field of `md` (the same mapping as `mqgate decode --json`).
pub use crate::mqjson::md_to_json;

/// Parses a 48-hex-character id (MsgId, CorrelId, GroupId). Errors say what is wrong.
pub fn parse_id(text: &str) -> Result<Id24, String> {
    if text.len() != 48 {
        return Err(format!(
            "{} has {} characters; an id is 48 hex characters (24 bytes)",
            shown(text),
            text.len()
        ));
    }
    let mut id = [0u8; 24];
    hex::decode_to_slice(text, &mut id).map_err(|e| format!("{} is not hex: {e}", shown(text)))?;
    Ok(id)
}

/// The MQMD fields a client may set on a put, by MQ name.
const SETTABLE: &[&str] = &[
    "Report",
    "MsgType",
    "Expiry",
    "Feedback",
    "Encoding",
    "CodedCharSetId",
    "Format",
    "Priority",
    "Persistence",
    "MsgId",
    "CorrelId",
    "ReplyToQ",
    "ReplyToQMgr",
    "ApplIdentityData",
];

/// Applies the MQMD fields of a put's JSON `md` object to `md` (fields named as
/// [`md_to_json`] names them). Errors name the field: an unknown or
/// context-only field, a wrong JSON type, bad hex, or text that is not MQ
/// invariant characters or too long.
pub fn apply_md_json(md: &mut Mqmd, fields: &Map<String, Value>) -> Result<(), String> {
    let cs = Charset::Ascii;
    for (name, value) in fields {
        let int = || -> Result<i32, String> {
            value
                .as_i64()
                .and_then(|v| i32::try_from(v).ok())
                .ok_or_else(|| format!("md.{name} must be a 32-bit integer, not {value}"))
        };
        let text = || -> Result<&str, String> {
            value
                .as_str()
                .ok_or_else(|| format!("md.{name} must be a string, not {value}"))
        };
        let id =
            || -> Result<Id24, String> { parse_id(text()?).map_err(|e| format!("md.{name}: {e}")) };
        fn chars<const N: usize>(name: &str, s: &str, cs: Charset) -> Result<CharField<N>, String> {
            CharField::new(s, cs).map_err(|e| format!("md.{name}: {e}"))
        }
        match name.as_str() {
            "Report" => md.report = int()?,
            "MsgType" => md.msg_type = int()?,
            "Expiry" => md.expiry = int()?,
            "Feedback" => md.feedback = int()?,
            "Encoding" => md.encoding = int()?,
            "CodedCharSetId" => md.coded_char_set_id = int()?,
            "Format" => md.format = chars(name, text()?, cs)?,
            "Priority" => md.priority = int()?,
            "Persistence" => md.persistence = int()?,
            "MsgId" => md.msg_id = id()?,
            "CorrelId" => md.correl_id = id()?,
            "ReplyToQ" => md.reply_to_q = chars(name, text()?, cs)?,
            "ReplyToQMgr" => md.reply_to_q_mgr = chars(name, text()?, cs)?,
            "ApplIdentityData" => md.appl_identity_data = chars(name, text()?, cs)?,
            _ => {
                return Err(format!(
                    "md.{name} cannot be set on a put; settable fields: {}",
                    SETTABLE.join(", ")
                ));
            }
        }
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn field_names_and_shapes_follow_mq() {
        let md = Mqmd {
            msg_id: [0xAB; 24],
            format: CharField(*b"MQSTR   "),
            put_appl_name: CharField(*b"app\0\0\0\0\0\0\0\0\0\0\0\0\0\0\0\0\0\0\0\0\0\0\0\0\0"),
            ..Mqmd::default()
        };
        let v = md_to_json(&md, Charset::Ascii);
        assert_eq!(v["MsgId"], "AB".repeat(24));
        assert_eq!(v["CorrelId"], "00".repeat(24));
        // Trailing blanks removed; a NUL ends the text (IBM MQ "ObjectName (MQCHAR48)").
        assert_eq!(v["Format"], "MQSTR");
        assert_eq!(v["PutApplName"], "app");
        // MQMD_DEFAULT: Encoding 546, Expiry -1, MsgType 8 (DATAGRAM), Version 2.
        assert_eq!(v["Encoding"], 546);
        assert_eq!(v["Expiry"], -1);
        assert_eq!(v["MsgType"], 8);
        assert_eq!(v["OriginalLength"], -1);
        let v1 = md_to_json(&Mqmd { version: 1, ..md }, Charset::Ascii);
        assert!(v1.get("GroupId").is_none());
    }

    #[test]
    fn put_fields_are_checked_by_name() {
        let mut md = Mqmd::default();
        let ok: Map<String, Value> = serde_json::from_str(
            r#"{"Priority": 4, "Format": "MQSTR", "CorrelId": "000102030405060708090A0B0C0D0E0F1011121314151617"}"#,
        )
        .unwrap();
        apply_md_json(&mut md, &ok).unwrap();
        assert_eq!(md.priority, 4);
        assert_eq!(md.format.0, *b"MQSTR   ");
        assert_eq!(md.correl_id[23], 0x17);
        let bad = |s: &str| {
            let m: Map<String, Value> = serde_json::from_str(s).unwrap();
            apply_md_json(&mut Mqmd::default(), &m).unwrap_err()
        };
        assert!(bad(r#"{"Priority": "high"}"#).contains("md.Priority must be a 32-bit integer"));
        assert!(bad(r#"{"CorrelId": "XYZ"}"#).contains("48 hex characters"));
        assert!(bad(r#"{"PutDate": "20240101"}"#).contains("cannot be set"));
        assert!(bad(r#"{"Format": "TOO.LONG.FMT"}"#).contains("md.Format"));
    }
}

//! What `mqgate decode` found in one message, ready to print as text or JSON.

use crate::mqjson::{FieldValue, Fields, fields_to_json, md_fields, md_to_json};
use mqgate_codecs::dump::hexdump;
use mqgate_codecs::mq::{Charset, DecodeError, Mqmd};
use serde_json::{Value, json};
use std::fmt::Write;

/// One decoded structure.
#[derive(Debug)]
pub struct StructView {
    /// MQ's name, e.g. `MQRFH2`.
    pub name: &'static str,
    /// Byte offset from the start of the message data.
    pub offset: usize,
    /// Length in bytes.
    pub length: usize,
    /// The fixed fields, in layout order.
    pub fields: Fields,
    /// MQRFH2 folders: NameValueLength and the NameValueData text (padding kept).
    pub folders: Option<Vec<(i32, String)>>,
    /// MQRFH v1 name/value pairs.
    pub pairs: Option<Vec<(String, String)>>,
    /// Set when the structure is incomplete: its fixed fields were read but a
    /// later part (e.g. an RFH2 folder) was bad; README: what was decoded
    /// before the fault is printed.
    pub error: Option<DecodeError>,
}

/// The message body: what follows the last header.
#[derive(Debug)]
pub struct BodyView {
    /// Byte offset of the body from the start of the message data.
    pub offset: usize,
    /// The Format the last structure gave the body (8 characters, blanks kept).
    pub format: String,
    /// The CodedCharSetId the last structure gave the body.
    pub ccsid: i32,
    /// The Encoding the last structure gave the body.
    pub encoding: i32,
}

/// One decoded message.
#[derive(Debug)]
pub struct MessageView<'a> {
    /// The MQMD from dmpmqmsg `A` lines (not part of `data`).
    pub file_md: Option<Mqmd>,
    /// 1-based line where a dmpmqmsg message starts.
    pub line: Option<usize>,
    /// The structures in `data`, in order.
    pub structures: Vec<StructView>,
    /// The body, when the chain was read to its end.
    pub body: Option<BodyView>,
    /// The message data the offsets refer to.
    pub data: &'a [u8],
    /// Why decoding stopped early.
    pub error: Option<DecodeError>,
}

fn error_json(e: &DecodeError) -> Value {
    json!({
        "structure": e.structure.name(),
        "offset": e.offset,
        "mqrc": e.mqrc().0,
        "reason": e.mqrc().name(),
        "message": e.to_string(),
    })
}

impl MessageView<'_> {
    /// The JSON document of this message (docs/decode-json.md).
    pub fn to_json(&self) -> Value {
        let mut doc = serde_json::Map::new();
        if let Some(md) = &self.file_md {
            doc.insert("md".into(), md_to_json(md, Charset::Ascii));
        }
        let structures: Vec<Value> = self
            .structures
            .iter()
            .map(|s| {
                let mut o = serde_json::Map::new();
                o.insert("type".into(), s.name.into());
                o.insert("offset".into(), s.offset.into());
                o.insert("length".into(), s.length.into());
                o.insert("fields".into(), fields_to_json(&s.fields));
                if let Some(f) = &s.folders {
                    let texts: Vec<Value> = f
                        .iter()
                        .map(|(_, t)| Value::from(t.trim_end_matches([' ', '\0'])))
                        .collect();
                    o.insert("folders".into(), texts.into());
                }
                if let Some(p) = &s.pairs {
                    let pairs: Vec<Value> = p.iter().map(|(n, v)| json!([n, v])).collect();
                    o.insert("pairs".into(), pairs.into());
                }
                if let Some(e) = &s.error {
                    o.insert("error".into(), error_json(e));
                }
                Value::Object(o)
            })
            .collect();
        doc.insert("structures".into(), structures.into());
        let body = match &self.body {
            Some(b) => {
                let bytes = &self.data[b.offset..];
                json!({
                    "offset": b.offset,
                    "length": bytes.len(),
                    "format": b.format.trim_end_matches(' '),
                    "ccsid": b.ccsid,
                    "encoding": b.encoding,
                    "hex": hex::encode_upper(bytes),
                })
            }
            None => Value::Null,
        };
        doc.insert("body".into(), body);
        if let Some(e) = &self.error {
            doc.insert("error".into(), error_json(e));
        }
        Value::Object(doc)
    }

    /// Appends the text form: every structure and field, then the body as an
    /// amqsbcg hex dump with ASCII and EBCDIC columns.
    pub fn write_text(&self, out: &mut String) {
        if let Some(md) = &self.file_md {
            out.push_str("**** MQMD (from the dmpmqmsg A lines) ****\n");
            write_fields(out, &md_fields(md, Charset::Ascii), "  ");
            out.push('\n');
        }
        for s in &self.structures {
            let _ = writeln!(
                out,
                "**** {} at offset {}, {} bytes ****",
                s.name, s.offset, s.length
            );
            write_fields(out, &s.fields, "  ");
            if let Some(folders) = &s.folders {
                for (len, text) in folders {
                    let _ = writeln!(out, "  {:<18}: {len}", "NameValueLength");
                    let _ = writeln!(out, "  {:<18}: '{}'", "NameValueData", printable(text));
                }
            }
            if let Some(pairs) = &s.pairs {
                for (n, v) in pairs {
                    let (n, v) = (printable(n), printable(v));
                    let _ = writeln!(out, "  {:<18}: '{n}' = '{v}'", "NameValue");
                }
            }
            if let Some(e) = &s.error {
                let _ = writeln!(out, "  (incomplete: {e})");
            }
            out.push('\n');
        }
        if let Some(b) = &self.body {
            let bytes = &self.data[b.offset..];
            let _ = writeln!(
                out,
                "**** Message data at offset {}, {} bytes, Format '{}', CodedCharSetId {}, Encoding {} ****",
                b.offset,
                bytes.len(),
                b.format,
                b.ccsid,
                b.encoding
            );
            let _ = writeln!(
                out,
                "\n length - {} of {} bytes\n",
                bytes.len(),
                bytes.len()
            );
            hexdump::write_hex_dump(out, bytes, b.offset);
        }
    }
}

/// `s` with control characters shown as `.`, so that text output cannot drive
/// the terminal (the JSON form escapes them instead).
fn printable(s: &str) -> String {
    s.chars()
        .map(|c| if c.is_control() { '.' } else { c })
        .collect()
}

fn write_fields(out: &mut String, fields: &Fields, indent: &str) {
    for (name, v) in fields {
        match v {
            FieldValue::Int(i) => {
                let _ = writeln!(out, "{indent}{name:<18}: {i}");
            }
            FieldValue::Bytes(b) => {
                let _ = writeln!(out, "{indent}{name:<18}: X'{}'", hex::encode_upper(b));
            }
            FieldValue::Char(s) => {
                let _ = writeln!(out, "{indent}{name:<18}: '{}'", printable(s));
            }
            FieldValue::Struct(f) => {
                let _ = writeln!(out, "{indent}{name}:");
                write_fields(out, f, &format!("{indent}    "));
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn text_output_shows_control_characters_as_dots() {
        // A PutApplName holding 0x01 and 0x1B (ESC) must not reach the terminal raw.
        let v = MessageView {
            file_md: None,
            line: None,
            structures: vec![StructView {
                name: "MQDLH",
                offset: 0,
                length: 172,
                fields: vec![("PutApplName", FieldValue::Char("a\u{1}b\u{1b}[2J".into()))],
                folders: None,
                pairs: None,
                error: None,
            }],
            body: None,
            data: &[],
            error: None,
        };
        let mut out = String::new();
        v.write_text(&mut out);
        assert!(out.contains("  PutApplName       : 'a.b.[2J'"), "{out}");
        // JSON keeps the text; serde_json escapes it.
        assert_eq!(
            v.to_json()["structures"][0]["fields"]["PutApplName"],
            "a\u{1}b\u{1b}[2J"
        );
    }
}

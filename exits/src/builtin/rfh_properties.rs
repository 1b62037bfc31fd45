//! `rfh-properties`: adds, overrides or removes MQRFH version 1 name/value
//! pairs and MQRFH2 `<usr>` folder properties (IBM MQ "MQRFH - Rules and formatting header";
//! the EntireX WebSphere MQ RPC Server documentation: the EntireX MQ RPC Server builds MQRFH name/value pairs from
//! `MQ_RFH_*` parameters).
//!
//! Exit data (`key=value` items, blank or comma separated; values cannot
//! hold blanks or commas):
//! - `rfh.NAME=VALUE`: set NAME in the first MQRFH v1 (override or add);
//! - `usr.NAME=VALUE`: set NAME in the first MQRFH2's `<usr>` folder;
//! - `remove=rfh.NAME` / `remove=usr.NAME`: remove it.
//!
//! A message without the header gets one when something is to be set: it is
//! inserted just before the body, takes over the Encoding/CodedCharSetId/
//! Format the structure before it had for the body (CodedCharSetId 0,
//! MQCCSI_Q_MGR, as the queue manager's [`crate::Q_MGR_CCSID`]), and that
//! structure's Format becomes `MQHRF   ` / `MQHRF2  `. Headers that are not changed are
//! written back byte for byte (mqcodec `write_chain`).
//!
//! Points: message, receive and send (the transmission message, MQXQH first)
//! and before_put / after_get (the MQMD describes the data). A message whose
//! headers cannot be read, or a `<usr>` folder this exit cannot edit (nested
//! elements), makes it answer MQXCC_FAILED (logged); the chain then applies
//! the exit's failure policy with the message unchanged.

use crate::api::{Exit, ExitContext, ExitPoint, ExitResponse, Payload, Q_MGR_CCSID};
use crate::exit_data;
use bytes::BytesMut;
use mqgate_codecs::ccsid::{Ccsid, Family};
use mqgate_codecs::mq::chain::{
    ChainOptions, DecodedChain, DecodedHeader, Descriptor, Header, Link, parse_chain, write_chain,
};
use mqgate_codecs::mq::constants::ccsi;
use mqgate_codecs::mq::rfh::{Mqrfh, name_value_string};
use mqgate_codecs::mq::rfh2::Mqrfh2;
use mqgate_codecs::mq::{ByteOrder, CharField, Charset, Mqmd, Structure};
use std::borrow::Cow;

/// Which header an operation edits.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Target {
    /// MQRFH version 1 NameValueString.
    Rfh,
    /// MQRFH2 `<usr>` folder.
    Usr,
}

/// One configured edit; `value: None` removes the property.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct PropertyOp {
    pub target: Target,
    pub name: String,
    pub value: Option<String>,
}

/// The configured edits, in order.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct RfhProperties {
    ops: Vec<PropertyOp>,
}

/// Why the exit data was refused.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
pub enum DataError {
    #[error(transparent)]
    Syntax(#[from] exit_data::ExitDataError),
    #[error("{0:?}: expected rfh.NAME=VALUE, usr.NAME=VALUE, remove=rfh.NAME or remove=usr.NAME")]
    Key(String),
    #[error("property name {0:?} is not valid here (usr: XML name; rfh: no blanks or quotes)")]
    Name(String),
    #[error("exit data names no property to set or remove")]
    Nothing,
}

fn target_and_name(s: &str) -> Result<(Target, &str), DataError> {
    let (t, name) = if let Some(n) = s.strip_prefix("rfh.") {
        (Target::Rfh, n)
    } else if let Some(n) = s.strip_prefix("usr.") {
        (Target::Usr, n)
    } else {
        return Err(DataError::Key(s.to_string()));
    };
    let ok = match t {
        Target::Usr => {
            name.chars()
                .next()
                .is_some_and(|c| c.is_ascii_alphabetic() || c == '_')
                && name
                    .chars()
                    .all(|c| c.is_ascii_alphanumeric() || matches!(c, '_' | '.' | '-'))
        }
        Target::Rfh => !name.is_empty() && !name.contains(['"', ' ']),
    };
    if ok {
        Ok((t, name))
    } else {
        Err(DataError::Name(name.to_string()))
    }
}

impl RfhProperties {
    /// Reads the edits from the exit data (see the module docs).
    pub fn from_exit_data(data: &str) -> Result<Self, DataError> {
        let mut ops = Vec::new();
        for item in exit_data::items(data) {
            let (k, v) = item?;
            let op = if k == "remove" {
                let (target, name) = target_and_name(v)?;
                PropertyOp {
                    target,
                    name: name.to_string(),
                    value: None,
                }
            } else {
                let (target, name) = target_and_name(k)?;
                PropertyOp {
                    target,
                    name: name.to_string(),
                    value: Some(v.to_string()),
                }
            };
            ops.push(op);
        }
        if ops.is_empty() {
            return Err(DataError::Nothing);
        }
        Ok(RfhProperties { ops })
    }

    /// The configured edits.
    pub fn ops(&self) -> &[PropertyOp] {
        &self.ops
    }

    fn sets(&self, t: Target) -> bool {
        self.ops.iter().any(|o| o.target == t && o.value.is_some())
    }

    fn touches(&self, t: Target) -> bool {
        self.ops.iter().any(|o| o.target == t)
    }

    /// Applies the edits to a transmission message (MQXQH first). Returns the
    /// new bytes, or what could not be done.
    pub fn edit_buffer(&self, buf: &[u8]) -> Result<Vec<u8>, String> {
        let chain = parse_chain(buf, &ChainOptions::default()).map_err(|e| e.to_string())?;
        let mut decoded = chain.decode().map_err(|e| e.to_string())?;
        self.edit_chain(&mut decoded, None)?;
        let mut out = Vec::with_capacity(buf.len() + 64);
        write_chain(&decoded, &mut out);
        Ok(out)
    }

    /// Applies the edits to a message with its MQMD (character fields in
    /// `charset`; before put / after get); the MQMD's Format changes when a
    /// header is inserted.
    pub fn edit_message(
        &self,
        md: &mut Mqmd,
        charset: Charset,
        data: &[u8],
    ) -> Result<Vec<u8>, String> {
        // ChainOptions takes the Format in ASCII.
        let format = CharField::new(&md.format.text(charset), Charset::Ascii)
            .map_err(|e| format!("MQMD Format: {e}"))?;
        let opts = ChainOptions {
            encoding: Some(md.encoding),
            ccsid: Some(md.coded_char_set_id),
            format: Some(format),
        };
        let chain = parse_chain(data, &opts).map_err(|e| e.to_string())?;
        let mut decoded = chain.decode().map_err(|e| e.to_string())?;
        self.edit_chain(&mut decoded, Some((md, charset)))?;
        let mut out = Vec::with_capacity(data.len() + 64);
        write_chain(&decoded, &mut out);
        Ok(out)
    }

    fn edit_chain(
        &self,
        c: &mut DecodedChain<'_>,
        md: Option<(&mut Mqmd, Charset)>,
    ) -> Result<(), String> {
        let mut md = md;
        for (target, structure) in [
            (Target::Rfh, Structure::Rfh),
            (Target::Usr, Structure::Rfh2),
        ] {
            if !self.touches(target) {
                continue;
            }
            let found = c
                .headers
                .iter()
                .position(|h| h.header.structure() == structure);
            let index = match found {
                Some(i) => i,
                None if self.sets(target) => {
                    insert_header(c, md.as_mut().map(|(m, cs)| (&mut **m, *cs)), structure)?
                }
                None => continue,
            };
            let h = &mut c.headers[index];
            let cs = h.link.charset;
            let order = h.link.order();
            match &mut h.header {
                Header::Rfh(r) => self.edit_rfh(r, cs)?,
                Header::Rfh2(r) => self.edit_usr(r, order)?,
                _ => {}
            }
        }
        Ok(())
    }

    fn edit_rfh(&self, r: &mut Mqrfh<'_>, cs: Charset) -> Result<(), String> {
        let decode = |t: &[u8]| t.iter().map(|&b| cs.decode_byte(b)).collect::<String>();
        let mut pairs: Vec<(String, String)> = r
            .pairs(cs)
            .map_err(|e| e.to_string())?
            .iter()
            .map(|(n, v)| (decode(n), decode(v)))
            .collect();
        for op in self.ops.iter().filter(|o| o.target == Target::Rfh) {
            match &op.value {
                Some(v) => match pairs.iter_mut().find(|(n, _)| *n == op.name) {
                    Some(p) => p.1 = v.clone(),
                    None => pairs.push((op.name.clone(), v.clone())),
                },
                None => pairs.retain(|(n, _)| *n != op.name),
            }
        }
        let refs: Vec<(&str, &str)> = pairs
            .iter()
            .map(|(n, v)| (n.as_str(), v.as_str()))
            .collect();
        let s = name_value_string(&refs, cs).map_err(|e| format!("MQRFH NameValueString: {e}"))?;
        r.name_value_string = Cow::Owned(s);
        Ok(())
    }

    fn edit_usr(&self, r: &mut Mqrfh2<'_>, order: ByteOrder) -> Result<(), String> {
        let ccsid = r.name_value_ccsid;
        let mut usr_index = None;
        for (i, f) in r.folders.iter().enumerate() {
            let text = f.text(ccsid, order).map_err(|e| e.to_string())?;
            if text.trim_start().starts_with("<usr>") {
                usr_index = Some((i, text));
                break;
            }
        }
        let (index, text) = match usr_index {
            Some((i, t)) => (Some(i), t),
            None => (None, "<usr></usr>".to_string()),
        };
        let mut props = parse_usr(&text)?;
        for op in self.ops.iter().filter(|o| o.target == Target::Usr) {
            match &op.value {
                Some(v) => match props.iter_mut().find(|p| p.name == op.name) {
                    Some(p) => p.value = escape(v),
                    None => props.push(UsrProperty {
                        name: op.name.clone(),
                        attributes: String::new(),
                        value: escape(v),
                    }),
                },
                None => props.retain(|p| p.name != op.name),
            }
        }
        let mut new_text = String::from("<usr>");
        for p in &props {
            new_text.push_str(&format!(
                "<{}{}>{}</{}>",
                p.name, p.attributes, p.value, p.name
            ));
        }
        new_text.push_str("</usr>");
        // Encode the folder through the codec (NameValueCCSID, padding).
        let mut tmp = Mqrfh2::new(
            &Descriptor {
                encoding: r.encoding,
                coded_char_set_id: r.coded_char_set_id,
                format: r.format,
                charset: Charset::Ascii,
            },
            ccsid,
        );
        tmp.push_folder(&new_text, order)
            .map_err(|e| e.to_string())?;
        let folder = tmp.folders.remove(0);
        match index {
            Some(i) => r.folders[i] = folder,
            None => r.folders.push(folder),
        }
        Ok(())
    }
}

/// One child element of `<usr>`: `<name attributes>value</name>`; the value
/// stays XML-escaped as written.
struct UsrProperty {
    name: String,
    attributes: String,
    value: String,
}

/// Reads `<usr><A>1</A><B dt='i4'>2</B><C/></usr>`. Nested elements are refused.
fn parse_usr(text: &str) -> Result<Vec<UsrProperty>, String> {
    let bad = |what: &str| format!("<usr> folder: {what}");
    let inner = text
        .trim()
        .strip_prefix("<usr>")
        .and_then(|t| t.strip_suffix("</usr>"))
        .ok_or_else(|| bad("expected <usr>...</usr>"))?;
    let mut props = Vec::new();
    let mut rest = inner.trim_start();
    while !rest.is_empty() {
        let open_end = rest
            .find('>')
            .ok_or_else(|| bad("unterminated start tag"))?;
        let open = rest
            .strip_prefix('<')
            .map(|_| &rest[1..open_end])
            .ok_or_else(|| bad("expected an element"))?;
        // `<Name/>`: an empty element.
        let (open, empty) = match open.strip_suffix('/') {
            Some(o) => (o.trim_end(), true),
            None => (open, false),
        };
        let (name, attributes) = match open.find(char::is_whitespace) {
            Some(i) => (&open[..i], &open[i..]),
            None => (open, ""),
        };
        if name.is_empty() || name.starts_with('/') {
            return Err(bad("malformed start tag"));
        }
        let after = &rest[open_end + 1..];
        if empty {
            props.push(UsrProperty {
                name: name.to_string(),
                attributes: attributes.to_string(),
                value: String::new(),
            });
            rest = after.trim_start();
            continue;
        }
        let close = format!("</{name}>");
        let end = after.find(&close).ok_or_else(|| bad("missing end tag"))?;
        let value = &after[..end];
        if value.contains('<') {
            return Err(bad("nested elements are not supported"));
        }
        props.push(UsrProperty {
            name: name.to_string(),
            attributes: attributes.to_string(),
            value: value.to_string(),
        });
        rest = after[end + close.len()..].trim_start();
    }
    Ok(props)
}

fn escape(v: &str) -> String {
    v.replace('&', "&amp;")
        .replace('<', "&lt;")
        .replace('>', "&gt;")
}

/// Inserts an empty MQRFH / MQRFH2 just before the body and links it in.
/// Returns its index.
fn insert_header(
    c: &mut DecodedChain<'_>,
    md: Option<(&mut Mqmd, Charset)>,
    structure: Structure,
) -> Result<usize, String> {
    let format_name = if structure == Structure::Rfh {
        "MQHRF"
    } else {
        "MQHRF2"
    };
    // What the structure before the body said about the body.
    let (next, charset) = match (c.headers.last_mut(), md) {
        (Some(last), _) => {
            // The Format field is in the charset of the structure holding it.
            let format =
                CharField::new(format_name, last.link.charset).map_err(|e| e.to_string())?;
            let next = last.link.next;
            match &mut last.header {
                Header::Md(m) => m.format = format,
                Header::Xqh(x) => x.msg_desc.format = format,
                Header::Mde(m) => m.format = format,
                Header::Dlh(d) => d.format = format,
                Header::Rfh(r) => r.format = format,
                Header::Rfh2(r) => r.format = format,
                Header::Opaque(o) => o.format = format,
            }
            let ccsid = resolved_ccsid(next.coded_char_set_id);
            (next, charset_of(ccsid, last.link.charset))
        }
        (None, Some((md, cs))) => {
            let next = Descriptor {
                encoding: md.encoding,
                coded_char_set_id: md.coded_char_set_id,
                format: md.format,
                charset: cs,
            };
            md.format = CharField::new(format_name, cs).map_err(|e| e.to_string())?;
            (next, charset_of(resolved_ccsid(next.coded_char_set_id), cs))
        }
        (None, None) => return Err("no structure to chain a new header to".to_string()),
    };
    // The new header holds the old body Format in its own charset.
    let next = Descriptor {
        format: CharField::new(&next.format.text(next.charset), charset)
            .map_err(|e| format!("body Format: {e}"))?,
        charset,
        coded_char_set_id: resolved_ccsid(next.coded_char_set_id),
        ..next
    };
    let header = if structure == Structure::Rfh {
        Header::Rfh(Mqrfh::from_pairs(&next, &[], charset).map_err(|e| e.to_string())?)
    } else {
        Header::Rfh2(Mqrfh2::new(&next, 1208))
    };
    c.headers.push(DecodedHeader {
        link: Link {
            structure,
            offset: 0,
            length: 0,
            encoding: next.encoding,
            coded_char_set_id: next.coded_char_set_id,
            charset,
            next,
        },
        header,
    });
    Ok(c.headers.len() - 1)
}

/// The CodedCharSetId a header this exit inserts takes over for what
/// follows it: the one the structure before declared, with MQCCSI_Q_MGR (0)
/// replaced by the queue manager's CCSID, as the queue manager replaces it
/// on a put (IBM MQ "MQMD - CodedCharSetId"). A header carrying 0 could
/// not be converted later: 0 names no character set once it has left the
/// structure the queue manager fills in.
fn resolved_ccsid(ccsid: i32) -> i32 {
    if ccsid == ccsi::Q_MGR {
        Q_MGR_CCSID
    } else {
        ccsid
    }
}

/// The charset a new header is written in: that of the CCSID the structure
/// before it declared for what follows (MQ's chaining rule, IBM MQ "MQRFH2 -
/// Rules and formatting header 2"), or `fallback` when the CCSID is unknown here
/// (-2 = inherit, or not in the ccsid registry; 0 is resolved before).
fn charset_of(ccsid: i32, fallback: Charset) -> Charset {
    match Ccsid::new(ccsid).map(|c| c.family()) {
        Ok(Family::Ebcdic) => Charset::Ebcdic,
        Ok(_) => Charset::Ascii,
        Err(_) => fallback,
    }
}

impl Exit for RfhProperties {
    fn call(&mut self, ctx: &mut ExitContext<'_>, payload: Payload<'_>) -> ExitResponse {
        let result = match payload {
            Payload::Buffer(buf) => self.edit_buffer(buf).map(|v| replace(buf, &v)),
            Payload::Put {
                md, charset, data, ..
            }
            | Payload::Got { md, charset, data } => {
                let mut new_md = md.clone();
                self.edit_message(&mut new_md, charset, data).map(|v| {
                    *md = new_md;
                    replace(data, &v)
                })
            }
            Payload::None | Payload::Get { .. } => Ok(()),
        };
        match result {
            Ok(()) => ExitResponse::Ok,
            Err(problem) => {
                tracing::error!(point = %ctx.exit_point, object = ctx.object_name, %problem,
                    "rfh-properties: cannot edit the message headers");
                ExitResponse::Failed
            }
        }
    }

    fn edits_atomically(&self) -> bool {
        // Every edit is built in a new buffer and swapped in at the end.
        true
    }
}

fn replace(target: &mut BytesMut, bytes: &[u8]) {
    target.clear();
    target.extend_from_slice(bytes);
}

/// The exit points where `rfh-properties` may be configured.
pub fn allowed_at(point: ExitPoint) -> bool {
    !matches!(point, ExitPoint::BeforeGet)
}

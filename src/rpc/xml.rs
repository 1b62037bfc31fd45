//! The XML payload form (docs/rpc.md "XML payload"): one element per
//! parameter, named as in the IDL, inside a root element named after the
//! program. Groups and structs hold their members' elements; an array is one
//! element holding an `<item>` per element (nested for 2 or 3 dimensions).
//! Leaf text is the value's text form (`-12.50`, `2026-11-29`, `true`).
//!
//! ```xml
//! <?xml version="1.0" encoding="UTF-8"?>
//! <CALC><OPERATOR>+</OPERATOR><LEFT>12</LEFT><RIGHT>30</RIGHT></CALC>
//! ```
//!
//! The reader accepts this form: a prolog, comments, attributes (ignored),
//! self-closing elements, and the five predefined and numeric character
//! references. Pure: no I/O.

use super::error::{RpcError, RpcErrorKind};
use mqgate_codecs::idl::layout::{Element, LayoutNode, Shape};
use mqgate_codecs::idl::{Record, TextLayout, Value};
use mqgate_codecs::mq::Mqrc;

/// Deepest element nesting the reader accepts (the deepest IDL payload is
/// far shallower: 99 levels are not reachable with 3-dimensional arrays).
pub const MAX_DEPTH: usize = 256;

/// Writes `values` of `layout` as the XML payload of `program`.
pub fn write(program: &str, layout: &TextLayout, values: &Record) -> String {
    let mut out = String::from("<?xml version=\"1.0\" encoding=\"UTF-8\"?>");
    open(&mut out, program);
    for node in &layout.nodes {
        if let Some(v) = values.get(&node.name) {
            write_value(&mut out, &node.name, v);
        }
    }
    close(&mut out, program);
    out
}

fn open(out: &mut String, name: &str) {
    out.push('<');
    out.push_str(name);
    out.push('>');
}

fn close(out: &mut String, name: &str) {
    out.push_str("</");
    out.push_str(name);
    out.push('>');
}

fn write_value(out: &mut String, name: &str, v: &Value) {
    open(out, name);
    match v {
        Value::Record(r) => {
            for (n, m) in &r.0 {
                write_value(out, n, m);
            }
        }
        Value::List(items) => {
            for item in items {
                write_value(out, "item", item);
            }
        }
        leaf => escape_into(out, &leaf_text(leaf)),
    }
    close(out, name);
}

fn leaf_text(v: &Value) -> String {
    match v {
        Value::Text(t) => t.clone(),
        Value::Integer(i) => i.to_string(),
        Value::Decimal(d) => d.to_string(),
        Value::Logical(b) => b.to_string(),
        Value::Date(d) => d.to_string(),
        Value::Time(t) => t.to_string(),
        Value::Record(_) | Value::List(_) => String::new(),
    }
}

fn escape_into(out: &mut String, text: &str) {
    for c in text.chars() {
        match c {
            '&' => out.push_str("&amp;"),
            '<' => out.push_str("&lt;"),
            '>' => out.push_str("&gt;"),
            c => out.push(c),
        }
    }
}

/// One parsed element.
#[derive(Debug, Default)]
struct Node {
    name: String,
    text: String,
    children: Vec<Node>,
}

fn format_error(offset: usize, what: impl std::fmt::Display) -> RpcError {
    RpcError::with_mqrc(
        RpcErrorKind::PayloadError,
        Mqrc::FORMAT_ERROR,
        format!("XML payload at offset {offset}: {what}"),
    )
}

/// Reads an XML payload into values of `layout`. Elements that are no
/// parameter of the layout are ignored; parameters without an element stay
/// absent.
///
/// Errors: PAYLOAD_ERROR with MQRC 2110 MQRC_FORMAT_ERROR for XML that is not
/// well formed (naming the offset) or a value that does not fit its format.
pub fn read(layout: &TextLayout, text: &str) -> Result<Record, RpcError> {
    let root = parse(text)?;
    record_of(&layout.nodes, &root, "")
}

fn record_of(nodes: &[LayoutNode], el: &Node, prefix: &str) -> Result<Record, RpcError> {
    let mut rec = Record::new();
    for node in nodes {
        let Some(child) = el
            .children
            .iter()
            .find(|c| c.name.eq_ignore_ascii_case(&node.name))
        else {
            continue;
        };
        let path = format!("{prefix}{}", node.name);
        let dims = match &node.shape {
            Shape::Scalar => 0,
            Shape::Tail { .. } => 1,
            Shape::Fixed(d) => d.len(),
        };
        rec.set(
            node.name.clone(),
            value_of(&node.element, dims, child, &path)?,
        );
    }
    Ok(rec)
}

fn value_of(element: &Element, dims: usize, el: &Node, path: &str) -> Result<Value, RpcError> {
    if dims > 0 {
        return el
            .children
            .iter()
            .filter(|c| c.name == "item")
            .enumerate()
            .map(|(i, c)| value_of(element, dims - 1, c, &format!("{path}[{i}]")))
            .collect::<Result<Vec<_>, _>>()
            .map(Value::List);
    }
    match element {
        Element::Field(format, _) => Value::from_text(format, &el.text).map_err(|e| {
            RpcError::with_mqrc(
                RpcErrorKind::PayloadError,
                Mqrc::FORMAT_ERROR,
                format!("XML payload, element {path}: {e}"),
            )
        }),
        Element::Record(members) => record_of(members, el, &format!("{path}.")).map(Value::Record),
    }
}

/// Parses a document into its root element.
fn parse(text: &str) -> Result<Node, RpcError> {
    let b = text.as_bytes();
    let mut i = 0;
    let mut stack: Vec<Node> = Vec::new();
    let mut root: Option<Node> = None;
    while i < b.len() {
        if b[i] != b'<' {
            let end = text[i..].find('<').map_or(b.len(), |n| i + n);
            let raw = &text[i..end];
            match stack.last_mut() {
                Some(top) => top.text.push_str(&unescape(raw, i)?),
                None if raw.trim().is_empty() => {}
                None => return Err(format_error(i, "text outside the root element")),
            }
            i = end;
            continue;
        }
        let rest = &text[i..];
        if rest.starts_with("<?") {
            i += rest
                .find("?>")
                .ok_or_else(|| format_error(i, "unterminated <?...?>"))?
                + 2;
            continue;
        }
        if rest.starts_with("<!--") {
            i += rest
                .find("-->")
                .ok_or_else(|| format_error(i, "unterminated comment"))?
                + 3;
            continue;
        }
        let close_at = rest
            .find('>')
            .ok_or_else(|| format_error(i, "unterminated tag"))?;
        let tag = &rest[1..close_at];
        let start = i;
        i += close_at + 1;
        if let Some(name) = tag.strip_prefix('/') {
            let name = name.trim();
            let node = stack
                .pop()
                .ok_or_else(|| format_error(start, format!("</{name}> without a start tag")))?;
            if node.name != name {
                return Err(format_error(
                    start,
                    format!("</{name}> closes <{}>", node.name),
                ));
            }
            attach(&mut stack, &mut root, node, start)?;
            continue;
        }
        let self_closing = tag.ends_with('/');
        let tag = tag.trim_end_matches('/');
        let name = tag.split_whitespace().next().unwrap_or("");
        if name.is_empty() || name.starts_with('!') {
            return Err(format_error(start, format!("unsupported markup <{tag}>")));
        }
        if stack.len() >= MAX_DEPTH {
            return Err(format_error(
                start,
                format!("nested deeper than {MAX_DEPTH}"),
            ));
        }
        let node = Node {
            name: name.to_string(),
            ..Node::default()
        };
        if self_closing {
            attach(&mut stack, &mut root, node, start)?;
        } else {
            stack.push(node);
        }
    }
    if let Some(open) = stack.last() {
        return Err(format_error(
            b.len(),
            format!("<{}> is not closed", open.name),
        ));
    }
    root.ok_or_else(|| format_error(0, "no root element"))
}

fn attach(
    stack: &mut [Node],
    root: &mut Option<Node>,
    node: Node,
    at: usize,
) -> Result<(), RpcError> {
    match stack.last_mut() {
        Some(parent) => parent.children.push(node),
        None if root.is_none() => *root = Some(node),
        None => return Err(format_error(at, "a second root element")),
    }
    Ok(())
}

fn unescape(raw: &str, at: usize) -> Result<String, RpcError> {
    let mut out = String::with_capacity(raw.len());
    let mut rest = raw;
    while let Some(amp) = rest.find('&') {
        out.push_str(&rest[..amp]);
        let after = &rest[amp..];
        let semi = after
            .find(';')
            .ok_or_else(|| format_error(at + amp, "'&' without ';'"))?;
        let entity = &after[1..semi];
        let c = match entity {
            "lt" => Some('<'),
            "gt" => Some('>'),
            "amp" => Some('&'),
            "quot" => Some('"'),
            "apos" => Some('\''),
            _ => entity
                .strip_prefix("#x")
                .map(|h| u32::from_str_radix(h, 16))
                .or_else(|| entity.strip_prefix('#').map(|d| d.parse::<u32>()))
                .and_then(|r| r.ok())
                .and_then(char::from_u32),
        };
        let c = c.ok_or_else(|| format_error(at + amp, format!("unknown reference &{entity};")))?;
        out.push(c);
        rest = &after[semi + 1..];
    }
    out.push_str(rest);
    Ok(out)
}

#[cfg(test)]
mod tests {
    use super::*;
    use mqgate_codecs::idl::{BridgeProgram, parse as parse_idl};

    const IDL: &str = "LIBRARY 'L' IS
PROGRAM 'P' IS
  DEFINE DATA PARAMETER
  1 NAME (A10) IN
  1 AMOUNT (N5.2) IN
  1 ADDR IN
    2 CITY (A8)
  1 CODES (I2/3) IN
  END-DEFINE
";

    fn program() -> BridgeProgram {
        let file = parse_idl(IDL).unwrap();
        BridgeProgram::bind(&file, "L", "P").unwrap()
    }

    #[test]
    fn round_trips_values_with_markup_characters() {
        let p = program();
        let mut addr = Record::new();
        addr.set("CITY", Value::Text("A<B&C".into()));
        let mut values = Record::new();
        values.set("NAME", Value::Text("x > y".into()));
        values.set("AMOUNT", Value::Decimal("-12.50".parse().unwrap()));
        values.set("ADDR", Value::Record(addr));
        values.set(
            "CODES",
            Value::List(vec![
                Value::Integer(1),
                Value::Integer(-2),
                Value::Integer(3),
            ]),
        );
        let xml = write("P", &p.request, &values);
        // docs/rpc.md "XML payload": element per parameter, arrays as <item>s.
        assert_eq!(
            xml,
            "<?xml version=\"1.0\" encoding=\"UTF-8\"?><P><NAME>x &gt; y</NAME>\
             <AMOUNT>-12.50</AMOUNT><ADDR><CITY>A&lt;B&amp;C</CITY></ADDR>\
             <CODES><item>1</item><item>-2</item><item>3</item></CODES></P>"
        );
        assert_eq!(read(&p.request, &xml).unwrap(), values);
    }

    #[test]
    fn malformed_xml_names_the_offset_and_2110() {
        let p = program();
        let e = read(&p.request, "<P><NAME>x</P>").unwrap_err();
        assert_eq!(e.mqrc, Mqrc::FORMAT_ERROR);
        assert!(e.message.contains("offset 10"), "{}", e.message);
        let e = read(&p.request, "<P><NAME>&bogus;</NAME></P>").unwrap_err();
        assert!(e.message.contains("&bogus;"), "{}", e.message);
        let e = read(&p.request, "<P><AMOUNT>abc</AMOUNT></P>").unwrap_err();
        assert!(e.message.contains("AMOUNT"), "{}", e.message);
    }
}

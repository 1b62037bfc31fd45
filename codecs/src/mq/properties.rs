//! Message properties in an MQRFH2 folder such as `<usr>` (IBM MQ
//! "NameValueData (MQCHARn)", "MQRFH2 folder restrictions"): a folder is
//! `<NAME>` followed by simple elements `<Prop dt='i4'>42</Prop>` and
//! `</NAME>`. Each element is one property; its `dt` attribute gives the data
//! type (default `string`), `xsi:nil='true'` makes it a null value.
//!
//! | `dt` | value | text |
//! |---|---|---|
//! | `string` (or none) | [`PropertyValue::String`] | the text, XML-escaped |
//! | `boolean` | [`PropertyValue::Boolean`] | `0` or `1` (`true`/`false` also read) |
//! | `bin.hex` | [`PropertyValue::BinHex`] | two hex digits per byte |
//! | `i1`, `i2`, `i4`, `i8` | 8-, 16-, 32-, 64-bit integers | decimal, optional sign |
//! | `int` | read as [`PropertyValue::I8`] | decimal |
//! | `r4`, `r8` | 32-, 64-bit floats | decimal with an optional exponent (`1.0125E2`); `NaN`, `Infinity`, `-Infinity` |
//!
//! A `dt` MQ does not define is read as a string, as the queue manager does
//! (MQIMPO "TypeString": the property's type is then the string in `dt`).
//! Nested elements (a folder inside a folder) are refused: `<usr>` holds
//! simple elements only. Reading is done with nom and never panics; the text
//! is bounded by the folder's NameValueLength.

use nom::branch::alt;
use nom::bytes::complete::{tag, take_till, take_while, take_while1};
use nom::character::complete::char as nchar;
use nom::sequence::delimited;
use nom::{IResult, Parser};
use std::fmt;

use super::rc::Mqrc;

/// A property's typed value.
#[derive(Clone, Debug, PartialEq)]
pub enum PropertyValue {
    /// `dt='string'` or no `dt`.
    String(String),
    /// `dt='boolean'`.
    Boolean(bool),
    /// `dt='bin.hex'`.
    BinHex(Vec<u8>),
    /// `dt='i1'`.
    I1(i8),
    /// `dt='i2'`.
    I2(i16),
    /// `dt='i4'`.
    I4(i32),
    /// `dt='i8'` (and `int`).
    I8(i64),
    /// `dt='r4'`.
    R4(f32),
    /// `dt='r8'`.
    R8(f64),
    /// `xsi:nil='true'`: a property with a null value (MQTYPE_NULL).
    Null,
}

/// One property: its element name and value.
#[derive(Clone, Debug, PartialEq)]
pub struct Property {
    /// The element name (`Region`).
    pub name: String,
    /// The value.
    pub value: PropertyValue,
}

impl Property {
    /// A property `name` of `value`.
    pub fn new(name: impl Into<String>, value: PropertyValue) -> Property {
        Property {
            name: name.into(),
            value,
        }
    }
}

/// What is wrong with a folder or a property.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum PropertyErrorKind {
    /// The folder text is not `<NAME> elements </NAME>`: what was expected.
    Syntax(&'static str),
    /// An element holds another element.
    Nested { element: String },
    /// An element's value does not read as its `dt` type.
    BadValue {
        element: String,
        dt: &'static str,
        text: String,
    },
    /// A property name MQ refuses ("MQRFH2 folder restrictions"): why.
    BadName { name: String, why: &'static str },
}

/// An error reading or writing a folder: byte offset in the folder text
/// (0 when writing) and what was wrong. [`PropertyError::mqrc`]: 2442
/// MQRC_PROPERTY_NAME_ERROR for a name, 2335 MQRC_RFH_STRING_ERROR for the
/// rest.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct PropertyError {
    /// Byte offset of the item at fault in the folder text.
    pub offset: usize,
    /// What was wrong.
    pub kind: PropertyErrorKind,
}

impl PropertyError {
    /// The MQRC that applies.
    pub fn mqrc(&self) -> Mqrc {
        match self.kind {
            PropertyErrorKind::BadName { .. } => Mqrc::PROPERTY_NAME_ERROR,
            _ => Mqrc::RFH_STRING_ERROR,
        }
    }
}

impl fmt::Display for PropertyError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match &self.kind {
            PropertyErrorKind::Syntax(what) => {
                write!(
                    f,
                    "MQRFH2 folder at offset {}: expected {what}",
                    self.offset
                )
            }
            PropertyErrorKind::Nested { element } => write!(
                f,
                "MQRFH2 folder at offset {}: element {element:?} holds another element; property folders hold simple elements only",
                self.offset
            ),
            PropertyErrorKind::BadValue { element, dt, text } => write!(
                f,
                "MQRFH2 folder at offset {}: property {element:?}: {text:?} is not a dt='{dt}' value",
                self.offset
            ),
            PropertyErrorKind::BadName { name, why } => {
                write!(f, "property name {name:?}: {why}")
            }
        }
    }
}

impl std::error::Error for PropertyError {}

/// The SQL keywords MQ refuses as `<usr>` element names, in any case
/// ("MQRFH2 folder restrictions").
const SQL_KEYWORDS: [&str; 11] = [
    "NULL", "TRUE", "FALSE", "NOT", "AND", "OR", "BETWEEN", "LIKE", "IN", "IS", "ESCAPE",
];

/// Checks `name` as a property element name ("MQRFH2 folder restrictions"):
/// an XML name (a letter or `_`, then letters, digits, `_`, `-`) without a
/// colon or a period, not beginning with `JMS`, not an SQL keyword.
///
/// Errors: [`PropertyErrorKind::BadName`] saying which rule.
pub fn check_property_name(name: &str) -> Result<(), PropertyError> {
    let bad = |why| PropertyError {
        offset: 0,
        kind: PropertyErrorKind::BadName {
            name: name.to_string(),
            why,
        },
    };
    let mut chars = name.chars();
    match chars.next() {
        None => return Err(bad("a property needs a name")),
        Some(c) if !(c.is_alphabetic() || c == '_') => {
            return Err(bad("an element name begins with a letter or '_'"));
        }
        Some(_) => {}
    }
    if name.contains('.') {
        return Err(bad(
            "a period separates folder and property in MQ property names",
        ));
    }
    if name.contains(':') {
        return Err(bad("a property name has no colon"));
    }
    if !chars.all(|c| c.is_alphanumeric() || c == '_' || c == '-') {
        return Err(bad(
            "an element name holds letters, digits, '_' and '-' only",
        ));
    }
    if name.starts_with("JMS") {
        return Err(bad("names beginning with JMS are reserved for JMS"));
    }
    if SQL_KEYWORDS.iter().any(|k| k.eq_ignore_ascii_case(name)) {
        return Err(bad("an SQL keyword cannot name a property"));
    }
    Ok(())
}

/// Escapes `&`, `<`, `>`, `"` and `'` for element text.
fn escape(text: &str, out: &mut String) {
    for c in text.chars() {
        match c {
            '&' => out.push_str("&amp;"),
            '<' => out.push_str("&lt;"),
            '>' => out.push_str("&gt;"),
            '"' => out.push_str("&quot;"),
            '\'' => out.push_str("&apos;"),
            _ => out.push(c),
        }
    }
}

/// A float in the text MQ reads: `1.0125E2`, `NaN`, `Infinity`,
/// `-Infinity`.
fn float_text(v: f64, shortest: String) -> String {
    if v.is_nan() {
        "NaN".into()
    } else if v.is_infinite() {
        if v > 0.0 { "Infinity" } else { "-Infinity" }.into()
    } else {
        shortest
    }
}

/// The folder `<folder>...</folder>` holding `props` in order, each as
/// `<name dt='...'>value</name>` (no `dt` for strings; `xsi:nil='true'`
/// for a null).
///
/// Errors: a name [`check_property_name`] refuses; `folder` itself must be
/// a valid name too.
pub fn write_folder(folder: &str, props: &[Property]) -> Result<String, PropertyError> {
    check_folder_name(folder)?;
    let mut out = format!("<{folder}>");
    for p in props {
        check_property_name(&p.name)?;
        let (dt, text) = match &p.value {
            PropertyValue::String(s) => (None, s.clone()),
            PropertyValue::Boolean(b) => (Some("boolean"), if *b { "1" } else { "0" }.into()),
            PropertyValue::BinHex(b) => (Some("bin.hex"), hex_upper(b)),
            PropertyValue::I1(v) => (Some("i1"), v.to_string()),
            PropertyValue::I2(v) => (Some("i2"), v.to_string()),
            PropertyValue::I4(v) => (Some("i4"), v.to_string()),
            PropertyValue::I8(v) => (Some("i8"), v.to_string()),
            PropertyValue::R4(v) => (Some("r4"), float_text(f64::from(*v), format!("{v:E}"))),
            PropertyValue::R8(v) => (Some("r8"), float_text(*v, format!("{v:E}"))),
            PropertyValue::Null => {
                out.push_str(&format!("<{} xsi:nil='true'></{}>", p.name, p.name));
                continue;
            }
        };
        out.push('<');
        out.push_str(&p.name);
        if let Some(dt) = dt {
            out.push_str(&format!(" dt='{dt}'"));
        }
        out.push('>');
        escape(&text, &mut out);
        out.push_str(&format!("</{}>", p.name));
    }
    out.push_str(&format!("</{folder}>"));
    Ok(out)
}

/// A folder name: an XML name without a colon (`usr`, `mcd`, `rv`).
fn check_folder_name(folder: &str) -> Result<(), PropertyError> {
    let ok = folder
        .chars()
        .next()
        .is_some_and(|c| c.is_alphabetic() || c == '_')
        && folder
            .chars()
            .all(|c| c.is_alphanumeric() || matches!(c, '_' | '-' | '.'));
    if ok {
        Ok(())
    } else {
        Err(PropertyError {
            offset: 0,
            kind: PropertyErrorKind::BadName {
                name: folder.to_string(),
                why: "a folder name is an XML name without a colon",
            },
        })
    }
}

fn hex_upper(b: &[u8]) -> String {
    const DIGITS: &[u8; 16] = b"0123456789ABCDEF";
    let mut s = String::with_capacity(b.len() * 2);
    for x in b {
        s.push(char::from(DIGITS[usize::from(x >> 4)]));
        s.push(char::from(DIGITS[usize::from(x & 0xF)]));
    }
    s
}

// ---------------------------------------------------------------- reading

fn is_name_char(c: char) -> bool {
    c.is_alphanumeric() || matches!(c, '_' | '-' | '.' | ':')
}

fn blanks(i: &str) -> IResult<&str, &str> {
    take_while(|c: char| c.is_whitespace()).parse(i)
}

fn name(i: &str) -> IResult<&str, &str> {
    take_while1(is_name_char).parse(i)
}

/// `NAME = 'value'` or `NAME = "value"` after at least one blank.
fn attribute(i: &str) -> IResult<&str, (&str, &str)> {
    let (i, _) = take_while1(|c: char| c.is_whitespace()).parse(i)?;
    let (i, n) = name(i)?;
    let (i, _) = (blanks, nchar('='), blanks).parse(i)?;
    let (i, v) = alt((
        delimited(nchar('\''), take_till(|c| c == '\''), nchar('\'')),
        delimited(nchar('"'), take_till(|c| c == '"'), nchar('"')),
    ))
    .parse(i)?;
    Ok((i, (n, v)))
}

/// A start tag: the element name and its attributes (name, value).
type StartTag<'a> = (&'a str, Vec<(&'a str, &'a str)>);

/// A start tag's name and attributes, up to (not including) `>` or `/>`.
fn start_tag(i: &str) -> IResult<&str, StartTag<'_>> {
    let (mut i, n) = nom::sequence::preceded(nchar('<'), name).parse(i)?;
    let mut attrs = Vec::new();
    while let Ok((rest, a)) = attribute(i) {
        attrs.push(a);
        i = rest;
    }
    let (i, _) = blanks(i)?;
    Ok((i, (n, attrs)))
}

/// Reads a folder `<NAME ...> elements </NAME>` (padding blanks around it
/// allowed): its name and properties in order.
///
/// Errors (offsets in `text`): [`PropertyErrorKind::Syntax`],
/// [`PropertyErrorKind::Nested`], [`PropertyErrorKind::BadValue`].
pub fn parse_folder(text: &str) -> Result<(String, Vec<Property>), PropertyError> {
    let at = |rest: &str| text.len() - rest.len();
    let syntax = |rest: &str, what| PropertyError {
        offset: at(rest),
        kind: PropertyErrorKind::Syntax(what),
    };
    let (rest, _) = blanks(text).map_err(|_| syntax(text, "a folder"))?;
    let (rest, (folder, _)) = start_tag(rest).map_err(|_| syntax(rest, "'<' and a folder name"))?;
    let mut rest = rest
        .strip_prefix('>')
        .ok_or_else(|| syntax(rest, "'>' ending the folder's start tag"))?;
    let mut props = Vec::new();
    loop {
        rest = blanks(rest).map_or(rest, |(r, _)| r);
        if let Some(after) = rest.strip_prefix("</") {
            let (after, end) = name(after).map_err(|_| syntax(after, "the folder's end tag"))?;
            if end != folder {
                return Err(syntax(after, "the end tag of the folder it closes"));
            }
            let (after, _) = (blanks, tag(">")).parse(after).map_err(
                |_: nom::Err<nom::error::Error<&str>>| syntax(after, "'>' ending the end tag"),
            )?;
            if !after.trim().is_empty() {
                return Err(syntax(after, "nothing after the folder's end tag"));
            }
            return Ok((folder.to_string(), props));
        }
        let start = at(rest);
        let (after, (element, attrs)) =
            start_tag(rest).map_err(|_| syntax(rest, "an element or the folder's end tag"))?;
        let (after, raw) =
            if let Some(a) = after.strip_prefix("/>") {
                (a, "")
            } else if let Some(a) = after.strip_prefix('>') {
                let (a, raw) = take_till::<_, _, nom::error::Error<&str>>(|c| c == '<')
                    .parse(a)
                    .map_err(|_| syntax(a, "element text"))?;
                let Some(a) = a.strip_prefix("</") else {
                    if a.starts_with('<') {
                        // `<a><b>`: an element inside an element.
                        return Err(PropertyError {
                            offset: start,
                            kind: PropertyErrorKind::Nested {
                                element: element.to_string(),
                            },
                        });
                    }
                    return Err(syntax(a, "the element's end tag"));
                };
                let (a, end) = name(a).map_err(|_| syntax(a, "the element's end tag"))?;
                if end != element {
                    return Err(syntax(a, "the end tag of the element it closes"));
                }
                let (a, _) = (blanks, tag(">")).parse(a).map_err(
                    |_: nom::Err<nom::error::Error<&str>>| syntax(a, "'>' ending the end tag"),
                )?;
                (a, raw)
            } else if after.starts_with('<') {
                return Err(PropertyError {
                    offset: start,
                    kind: PropertyErrorKind::Nested {
                        element: element.to_string(),
                    },
                });
            } else {
                return Err(syntax(after, "'>' or '/>' ending the start tag"));
            };
        if raw.contains('<') || after.len() == rest.len() {
            return Err(syntax(after, "element text"));
        }
        let text_value = unescape(raw).ok_or_else(|| syntax(rest, "a known XML entity"))?;
        let attr = |n: &str| attrs.iter().find(|(k, _)| *k == n).map(|(_, v)| *v);
        let value = if attr("xsi:nil") == Some("true") {
            PropertyValue::Null
        } else {
            typed(element, attr("dt"), &text_value).map_err(|kind| PropertyError {
                offset: start,
                kind,
            })?
        };
        props.push(Property::new(element, value));
        rest = after;
    }
}

/// The value of `text` for `dt`.
fn typed(element: &str, dt: Option<&str>, text: &str) -> Result<PropertyValue, PropertyErrorKind> {
    fn bad(element: &str, dt: &'static str, text: &str) -> PropertyErrorKind {
        PropertyErrorKind::BadValue {
            element: element.to_string(),
            dt,
            text: text.to_string(),
        }
    }
    let t = text.trim();
    let v = match dt {
        None | Some("string") => PropertyValue::String(text.to_string()),
        Some("boolean") => match t {
            "1" | "true" => PropertyValue::Boolean(true),
            "0" | "false" => PropertyValue::Boolean(false),
            _ => return Err(bad(element, "boolean", text)),
        },
        Some("bin.hex") => {
            PropertyValue::BinHex(hex_bytes(t).ok_or_else(|| bad(element, "bin.hex", text))?)
        }
        Some("i1") => PropertyValue::I1(t.parse().map_err(|_| bad(element, "i1", text))?),
        Some("i2") => PropertyValue::I2(t.parse().map_err(|_| bad(element, "i2", text))?),
        Some("i4") => PropertyValue::I4(t.parse().map_err(|_| bad(element, "i4", text))?),
        Some("i8") => PropertyValue::I8(t.parse().map_err(|_| bad(element, "i8", text))?),
        Some("int") => PropertyValue::I8(t.parse().map_err(|_| bad(element, "int", text))?),
        Some("r4") => PropertyValue::R4(float(t).ok_or_else(|| bad(element, "r4", text))? as f32),
        Some("r8") => PropertyValue::R8(float(t).ok_or_else(|| bad(element, "r8", text))?),
        Some(_) => PropertyValue::String(text.to_string()),
    };
    Ok(v)
}

/// A float in MQ's text (`1.0125E2`, `1.0125E+2`, `NaN`, `Infinity`).
fn float(t: &str) -> Option<f64> {
    match t {
        "NaN" => Some(f64::NAN),
        "Infinity" | "INF" => Some(f64::INFINITY),
        "-Infinity" | "-INF" => Some(f64::NEG_INFINITY),
        _ if t
            .chars()
            .all(|c| c.is_ascii_digit() || matches!(c, '+' | '-' | '.' | 'e' | 'E'))
            && !t.is_empty() =>
        {
            t.parse().ok()
        }
        _ => None,
    }
}

fn hex_bytes(t: &str) -> Option<Vec<u8>> {
    if !t.len().is_multiple_of(2) {
        return None;
    }
    let digit = |b: u8| char::from(b).to_digit(16);
    t.as_bytes()
        .chunks_exact(2)
        .map(|p| Some((digit(p[0])? * 16 + digit(p[1])?) as u8))
        .collect()
}

/// Element text with the five XML entities and character references
/// (`&#65;`, `&#x41;`) replaced; `None` for another `&...;`.
fn unescape(raw: &str) -> Option<String> {
    if !raw.contains('&') {
        return Some(raw.to_string());
    }
    let mut out = String::with_capacity(raw.len());
    let mut rest = raw;
    while let Some(at) = rest.find('&') {
        out.push_str(&rest[..at]);
        let after = &rest[at + 1..];
        let end = after.find(';')?;
        let entity = &after[..end];
        let c = match entity {
            "amp" => '&',
            "lt" => '<',
            "gt" => '>',
            "quot" => '"',
            "apos" => '\'',
            _ => {
                let n = if let Some(h) = entity.strip_prefix("#x") {
                    u32::from_str_radix(h, 16).ok()?
                } else {
                    entity.strip_prefix('#')?.parse().ok()?
                };
                char::from_u32(n)?
            }
        };
        out.push(c);
        rest = &after[end + 1..];
    }
    out.push_str(rest);
    Some(out)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_folder_reads_back_as_written() {
        // IBM MQ "NameValueData (MQCHARn)": dt names; strings carry no dt.
        let props = vec![
            Property::new("Region", PropertyValue::String("EU & <US>".into())),
            Property::new("Count", PropertyValue::I4(-42)),
            Property::new("Big", PropertyValue::I8(i64::MIN)),
            Property::new("Ok", PropertyValue::Boolean(true)),
            Property::new("Raw", PropertyValue::BinHex(vec![0x00, 0xAB])),
            Property::new("Px", PropertyValue::R8(101.25)),
            Property::new("Half", PropertyValue::R4(0.5)),
            Property::new("Gone", PropertyValue::Null),
        ];
        let text = write_folder("usr", &props).unwrap();
        assert_eq!(
            text,
            "<usr><Region>EU &amp; &lt;US&gt;</Region><Count dt='i4'>-42</Count>\
             <Big dt='i8'>-9223372036854775808</Big><Ok dt='boolean'>1</Ok>\
             <Raw dt='bin.hex'>00AB</Raw><Px dt='r8'>1.0125E2</Px><Half dt='r4'>5E-1</Half>\
             <Gone xsi:nil='true'></Gone></usr>"
        );
        let (folder, back) = parse_folder(&text).unwrap();
        assert_eq!(folder, "usr");
        assert_eq!(back, props);
    }

    #[test]
    fn reading_takes_double_quotes_padding_and_empty_elements() {
        let (f, p) =
            parse_folder("  <usr><a dt=\"i2\">7</a><b/><c dt='x.y'>t</c></usr>   ").unwrap();
        assert_eq!(f, "usr");
        assert_eq!(
            p,
            vec![
                Property::new("a", PropertyValue::I2(7)),
                Property::new("b", PropertyValue::String(String::new())),
                Property::new("c", PropertyValue::String("t".into())),
            ]
        );
    }

    #[test]
    fn nested_elements_and_bad_values_are_refused_with_their_offset() {
        let e = parse_folder("<usr><a><b>1</b></a></usr>").unwrap_err();
        assert_eq!(e.offset, 5);
        assert_eq!(e.mqrc(), Mqrc::RFH_STRING_ERROR);
        assert!(matches!(e.kind, PropertyErrorKind::Nested { .. }), "{e}");
        let e = parse_folder("<usr><n dt='i1'>200</n></usr>").unwrap_err();
        assert_eq!(
            e.to_string(),
            "MQRFH2 folder at offset 5: property \"n\": \"200\" is not a dt='i1' value"
        );
        let e = parse_folder("<usr><a>1</b></usr>").unwrap_err();
        assert!(matches!(e.kind, PropertyErrorKind::Syntax(_)), "{e}");
        assert!(parse_folder("<usr><a>1</a>").is_err());
    }

    #[test]
    fn names_follow_the_folder_restrictions() {
        // IBM MQ "MQRFH2 folder restrictions".
        for bad in ["JMSX", "null", "Escape", "a.b", "a:b", "1a", "", "a b"] {
            let e = check_property_name(bad).unwrap_err();
            assert_eq!(e.mqrc(), Mqrc::PROPERTY_NAME_ERROR, "{bad}");
        }
        for good in ["Region", "_x", "a-b", "Prix1", "Zoë"] {
            check_property_name(good).unwrap();
        }
    }
}

//! Distinguished names: the subject DN of a peer's certificate as a string
//! (RFC 4514 "LDAP: String Representation of Distinguished Names", with the
//! attribute names of IBM MQ "Distinguished Names"), and the parser of such
//! strings and of SSLPEER filters (docs/security.md "SSLPEER").

use nom::branch::alt;
use nom::bytes::complete::{take_while_m_n, take_while1};
use nom::character::complete::{anychar, char, one_of, satisfy, space0};
use nom::combinator::{all_consuming, map, map_res};
use nom::multi::{many0, separated_list1};
use nom::sequence::{delimited, preceded};
use nom::{IResult, Parser};
use x509_cert::der::{Decode, Tag, Tagged};

/// Attribute names of IBM MQ "Distinguished Names" by object identifier
/// (RFC 5280 appendix A, RFC 4519, PKCS #9); one name for each, the one a
/// DN string shows.
const NAMES: &[(&str, &str)] = &[
    ("2.5.4.3", "CN"),
    ("2.5.4.12", "T"),
    ("2.5.4.11", "OU"),
    ("0.9.2342.19200300.100.1.25", "DC"),
    ("2.5.4.10", "O"),
    ("2.5.4.9", "STREET"),
    ("2.5.4.7", "L"),
    ("2.5.4.8", "ST"),
    ("2.5.4.17", "PC"),
    ("2.5.4.6", "C"),
    ("2.5.4.5", "SERIALNUMBER"),
    ("1.2.840.113549.1.9.1", "MAIL"),
    ("0.9.2342.19200300.100.1.1", "UID"),
    ("1.2.840.113549.1.9.2", "UNSTRUCTUREDNAME"),
    ("1.2.840.113549.1.9.8", "UNSTRUCTUREDADDRESS"),
    ("2.5.4.46", "DNQ"),
];

/// The name an attribute written `name` (any case) stands for: the
/// synonyms of IBM MQ "IBM MQ rules for SSLPEER values" (`ST`, `SP`, `S`;
/// `MAIL`, `E`; `UID`, `USERID`) become one; `None` for a name that is not
/// in the table of IBM MQ "Distinguished Names".
pub fn canonical_attribute(name: &str) -> Option<&'static str> {
    let upper = name.to_ascii_uppercase();
    let n = match upper.as_str() {
        "SP" | "S" => "ST",
        "E" => "MAIL",
        "USERID" => "UID",
        other => other,
    };
    NAMES.iter().map(|(_, n)| *n).find(|known| *known == n)
}

/// The subject DN of the DER certificate `cert`, most specific attribute
/// first (RFC 4514 section 2.1 order, e.g. `CN=gw2,OU=Ops,O=Example,C=GB`),
/// multi-valued RDNs joined by `+`, values escaped as RFC 4514 section 2.4
/// says. An attribute outside the table is shown by its dotted OID with its
/// DER value in hex (`1.2.3.4=#0c0161`). Errors: the certificate cannot be
/// decoded.
pub fn subject_dn(cert: &[u8]) -> Result<String, String> {
    let cert = x509_cert::Certificate::from_der(cert)
        .map_err(|e| format!("the certificate cannot be decoded: {e}"))?;
    let rdns: Vec<String> = cert
        .tbs_certificate
        .subject
        .0
        .iter()
        .rev()
        .map(|rdn| {
            rdn.0
                .iter()
                .map(|ava| {
                    let oid = ava.oid.to_string();
                    let name = NAMES.iter().find(|(o, _)| *o == oid).map(|(_, n)| *n);
                    match (name, text_value(&ava.value)) {
                        (Some(n), Some(v)) => format!("{n}={}", escape(&v)),
                        _ => {
                            let der = x509_cert::der::Encode::to_der(&ava.value)
                                .map(hex::encode)
                                .unwrap_or_default();
                            format!("{oid}=#{der}")
                        }
                    }
                })
                .collect::<Vec<_>>()
                .join("+")
        })
        .collect();
    Ok(rdns.join(","))
}

/// The text of a directory string (RFC 5280 DirectoryString and the other
/// string types attributes use); `None` for any other type.
fn text_value(v: &x509_cert::der::Any) -> Option<String> {
    let bytes = v.value();
    match v.tag() {
        Tag::Utf8String | Tag::PrintableString | Tag::Ia5String | Tag::VisibleString => {
            Some(String::from_utf8_lossy(bytes).into_owned())
        }
        // T.61: its printable ASCII subset is what certificates use.
        Tag::TeletexString => Some(bytes.iter().map(|&b| char::from(b)).collect()),
        Tag::BmpString => {
            let units: Vec<u16> = bytes
                .chunks_exact(2)
                .map(|c| u16::from_be_bytes([c[0], c[1]]))
                .collect();
            Some(String::from_utf16_lossy(&units))
        }
        _ => None,
    }
}

/// `v` escaped for a DN string (RFC 4514 section 2.4).
fn escape(v: &str) -> String {
    let mut out = String::with_capacity(v.len());
    let last = v.chars().count().saturating_sub(1);
    for (i, c) in v.chars().enumerate() {
        let special = matches!(c, '"' | '+' | ',' | ';' | '<' | '>' | '\\')
            || (i == 0 && matches!(c, '#' | ' '))
            || (i == last && c == ' ');
        if c == '\0' {
            out.push_str("\\00");
        } else {
            if special {
                out.push('\\');
            }
            out.push(c);
        }
    }
    out
}

/// One `TYPE=value` of a DN string or an SSLPEER filter.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Ava {
    /// The attribute type as written.
    pub attr: String,
    /// The value: quotes and escapes removed, unescaped blanks at either end
    /// of an unquoted value dropped.
    pub value: String,
    /// The value began with an unquoted, unescaped `*`.
    pub star_start: bool,
    /// The value ended with an unquoted, unescaped `*`.
    pub star_end: bool,
    /// An unquoted, unescaped `*` stands elsewhere in the value.
    pub star_inside: bool,
}

#[derive(Clone, Copy)]
enum Piece {
    Plain(char),
    Literal(char),
    Byte(u8),
}

fn attr_type(i: &str) -> IResult<&str, &str> {
    take_while1(|c: char| c.is_ascii_alphanumeric() || c == '.').parse(i)
}

fn escaped(i: &str) -> IResult<&str, Piece> {
    let hex = map_res(
        take_while_m_n(2, 2, |c: char| c.is_ascii_hexdigit()),
        |h: &str| u8::from_str_radix(h, 16),
    );
    preceded(
        char('\\'),
        alt((map(hex, Piece::Byte), map(anychar, Piece::Literal))),
    )
    .parse(i)
}

fn unquoted(i: &str) -> IResult<&str, (Vec<Piece>, bool)> {
    let plain = map(
        satisfy(|c| !matches!(c, ',' | ';' | '+' | '"' | '\\')),
        Piece::Plain,
    );
    map(many0(alt((escaped, plain))), |p| (p, false)).parse(i)
}

fn quoted(i: &str) -> IResult<&str, (Vec<Piece>, bool)> {
    let literal = map(satisfy(|c| c != '"' && c != '\\'), Piece::Literal);
    map(
        delimited(char('"'), many0(alt((escaped, literal))), char('"')),
        |p| (p, true),
    )
    .parse(i)
}

fn ava(i: &str) -> IResult<&str, Ava> {
    map(
        (attr_type, char('='), alt((quoted, unquoted))),
        |(attr, _, (pieces, _quoted))| to_ava(attr, pieces),
    )
    .parse(i)
}

fn to_ava(attr: &str, mut pieces: Vec<Piece>) -> Ava {
    let blank = |p: &Piece| matches!(p, Piece::Plain(' ') | Piece::Plain('\t'));
    while pieces.last().is_some_and(blank) {
        pieces.pop();
    }
    let start = pieces.iter().take_while(|p| blank(p)).count();
    let pieces = &pieces[start..];
    let star = |p: Option<&Piece>| matches!(p, Some(Piece::Plain('*')));
    let star_start = star(pieces.first());
    let star_end = pieces.len() > 1 && star(pieces.last());
    let inner_end = pieces.len().saturating_sub(usize::from(star_end));
    let star_inside = pieces
        .get(usize::from(star_start)..inner_end)
        .is_some_and(|inner| inner.iter().any(|p| matches!(p, Piece::Plain('*'))));
    let mut bytes = Vec::new();
    for p in pieces {
        match *p {
            Piece::Plain(c) | Piece::Literal(c) => {
                let mut b = [0u8; 4];
                bytes.extend_from_slice(c.encode_utf8(&mut b).as_bytes());
            }
            Piece::Byte(b) => bytes.push(b),
        }
    }
    Ava {
        attr: attr.to_string(),
        value: String::from_utf8_lossy(&bytes).into_owned(),
        star_start,
        star_end,
        star_inside,
    }
}

/// Parses `TYPE=value` items separated by `,`, `;` or `+`, with blanks
/// around separators ignored and values optionally in double quotes (IBM
/// MQ "IBM MQ rules for SSLPEER values"; RFC 4514's escapes `\c` and `\XX`).
/// Errors: the offset of the first character that does not fit.
pub fn parse_avas(text: &str) -> Result<Vec<Ava>, usize> {
    let sep = delimited(space0, one_of(",;+"), space0);
    let mut list = all_consuming(delimited(space0, separated_list1(sep, ava), space0));
    match list.parse(text) {
        Ok((_, avas)) => Ok(avas),
        Err(nom::Err::Error(e) | nom::Err::Failure(e)) => Err(text.len() - e.input.len()),
        Err(nom::Err::Incomplete(_)) => Err(text.len()),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn escapes_follow_rfc_4514() {
        // RFC 4514 section 2.4: these characters anywhere, `#` or a space
        // first, a space last.
        assert_eq!(escape("a,b+c"), "a\\,b\\+c");
        assert_eq!(escape("#x "), "\\#x\\ ");
        assert_eq!(escape(" lead"), "\\ lead");
        let avas = parse_avas("CN=a\\,b\\+c,O=\\#x\\ ").unwrap();
        assert_eq!(avas[0].value, "a,b+c");
        assert_eq!(avas[1].value, "#x ");
    }

    #[test]
    fn quotes_blanks_and_asterisks() {
        // IBM MQ "IBM MQ rules for SSLPEER values": blanks around separators
        // ignored, quoted values literal.
        let avas = parse_avas(" CN=John Smith , O=\"IBM, Inc\" ;OU=*Test*").unwrap();
        assert_eq!(avas.len(), 3);
        assert_eq!(avas[0].value, "John Smith");
        assert_eq!(avas[1].value, "IBM, Inc");
        assert!(!avas[1].star_start);
        assert!(avas[2].star_start && avas[2].star_end && !avas[2].star_inside);
        assert_eq!(avas[2].value, "*Test*");
        let quoted = parse_avas("CN=\"*x\"").unwrap();
        assert!(!quoted[0].star_start);
        assert!(parse_avas("CN=a*b").unwrap()[0].star_inside);
        // A space before `=` is not allowed: the offset of the space (2).
        assert_eq!(parse_avas("CN =x"), Err(2));
        assert_eq!(parse_avas(""), Err(0));
    }

    #[test]
    fn attribute_synonyms() {
        assert_eq!(canonical_attribute("sp"), Some("ST"));
        assert_eq!(canonical_attribute("E"), Some("MAIL"));
        assert_eq!(canonical_attribute("userid"), Some("UID"));
        assert_eq!(canonical_attribute("cn"), Some("CN"));
        assert_eq!(canonical_attribute("XX"), None);
    }
}

//! MQRFH version 1 (IBM MQ "MQRFH - Rules and formatting header"): StrucId `RFH
//! `, Version 1, Format `MQHRF   `; the 32-byte prefix, then a NameValueString
//! up to StrucLength in the charset of the structure before it.
//!
//! NameValueString rules (IBM docs MQRFH and MQRC 2335): tokens `name value
//! name value ...` separated by one or more blanks; a token with blanks is
//! enclosed in double quotes, a quote inside quotes is written twice; a NUL
//! ends the string and the bytes after it up to StrucLength are ignored.

use std::borrow::Cow;

use super::chain::Descriptor;
use super::enc::ByteOrder;
use super::error::{DecodeError, DecodeErrorKind};
use super::field::{CharField, Charset, FieldError};
use super::prefix::{PREFIX_LENGTH, PrefixFields, scan_prefix, write_prefix};
use super::strucid::Structure;

/// MQRFH_STRUC_LENGTH_FIXED: the fixed part in bytes.
pub const RFH_STRUC_LENGTH_FIXED: usize = 32;

/// An MQRFH version 1.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Mqrfh<'a> {
    /// Always 1.
    pub version: i32,
    /// MQENC_* of the next item.
    pub encoding: i32,
    /// CCSID of the next item.
    pub coded_char_set_id: i32,
    /// MQFMT_* of the next item.
    pub format: CharField<8>,
    /// MQRFH_* flags.
    pub flags: i32,
    /// The NameValueString bytes from offset 32 to StrucLength, padding
    /// included. The writer pads it with blanks to a multiple of 4.
    pub name_value_string: Cow<'a, [u8]>,
}

/// One name or value of a NameValueString, quotes removed (`""` → `"`).
pub type Token<'a> = Cow<'a, [u8]>;

impl<'a> Mqrfh<'a> {
    /// StrucLength as the writer emits it: 32 + the NameValueString padded to 4.
    pub fn struc_length(&self) -> usize {
        RFH_STRUC_LENGTH_FIXED + self.name_value_string.len().next_multiple_of(4)
    }

    /// The name/value pairs, in `cs` (the charset of the RFH's StrucId).
    ///
    /// Errors: 2335 MQRC_RFH_STRING_ERROR for an unterminated quote, text
    /// right after a closing quote, a quote inside an unquoted token, or a
    /// name without a value; `offset` counts from the RFH's start.
    pub fn pairs(&self, cs: Charset) -> Result<Vec<(Token<'_>, Token<'_>)>, DecodeError> {
        let mut out = Vec::new();
        let mut name = None;
        for t in Tokens::new(&self.name_value_string, cs) {
            let t = t.map_err(|e| e.shifted(PREFIX_LENGTH))?;
            match name.take() {
                None => name = Some(t),
                Some(n) => out.push((n, t)),
            }
        }
        if name.is_some() {
            return Err(unpaired(PREFIX_LENGTH + self.name_value_string.len()));
        }
        Ok(out)
    }

    /// An MQRFH with the NameValueString for `pairs` (see [`name_value_string`])
    /// and the Encoding/CodedCharSetId/Format of `next`, the Format rebuilt
    /// blank padded in `next.charset` (a NUL-padded one loses its NULs:
    /// [`CharField::normalized`]).
    pub fn from_pairs(
        next: &Descriptor,
        pairs: &[(&str, &str)],
        cs: Charset,
    ) -> Result<Mqrfh<'static>, FieldError> {
        Ok(Mqrfh {
            version: 1,
            encoding: next.encoding,
            coded_char_set_id: next.coded_char_set_id,
            format: next.format.normalized(next.charset),
            flags: 0,
            name_value_string: Cow::Owned(name_value_string(pairs, cs)?),
        })
    }
}

fn unpaired(at: usize) -> DecodeError {
    DecodeError::new(
        Structure::Rfh,
        at,
        DecodeErrorKind::MalformedNameValueString {
            what: "a name without a value",
        },
    )
}

/// Builds a NameValueString: tokens separated by one blank, a token quoted
/// when it is empty or holds a blank or a quote (quotes doubled inside),
/// blank padded to a multiple of 4. Characters must be MQ invariant
/// characters or (in ASCII) any printable ASCII except NUL.
pub fn name_value_string(pairs: &[(&str, &str)], cs: Charset) -> Result<Vec<u8>, FieldError> {
    let mut out = Vec::new();
    let quote = quote_byte(cs);
    for (i, tok) in pairs.iter().flat_map(|(n, v)| [*n, *v]).enumerate() {
        if i > 0 {
            out.push(cs.blank());
        }
        let needs_quotes = tok.is_empty() || tok.contains([' ', '"']);
        if needs_quotes {
            out.push(quote);
        }
        for (position, c) in tok.chars().enumerate() {
            let b = encode_char(c, cs).ok_or(FieldError::BadCharacter { ch: c, position })?;
            out.push(b);
            if b == quote {
                out.push(quote);
            }
        }
        if needs_quotes {
            out.push(quote);
        }
    }
    while out.len() % 4 != 0 {
        out.push(cs.blank());
    }
    Ok(out)
}

fn quote_byte(cs: Charset) -> u8 {
    match cs {
        Charset::Ascii => b'"',
        // `"` is 0x7F in the EBCDIC code pages MQ uses (037, 500, 1047).
        Charset::Ebcdic => 0x7F,
    }
}

fn encode_char(c: char, cs: Charset) -> Option<u8> {
    match (cs, c) {
        (_, '"') => Some(quote_byte(cs)),
        (Charset::Ascii, ' '..='~') => Some(c as u8),
        _ => cs.encode_invariant(c),
    }
}

/// Iterator over the tokens of a NameValueString; offsets in errors count
/// from the start of the string.
pub struct Tokens<'a> {
    s: &'a [u8],
    pos: usize,
    blank: u8,
    quote: u8,
    done: bool,
}

impl<'a> Tokens<'a> {
    /// Tokens of `s`, a NameValueString in `cs`.
    pub fn new(s: &'a [u8], cs: Charset) -> Tokens<'a> {
        Tokens {
            s,
            pos: 0,
            blank: cs.blank(),
            quote: quote_byte(cs),
            done: false,
        }
    }

    fn fail(&mut self, at: usize, what: &'static str) -> Option<Result<Token<'a>, DecodeError>> {
        self.done = true;
        Some(Err(DecodeError::new(
            Structure::Rfh,
            at,
            DecodeErrorKind::MalformedNameValueString { what },
        )))
    }
}

impl<'a> Iterator for Tokens<'a> {
    type Item = Result<Token<'a>, DecodeError>;

    fn next(&mut self) -> Option<Self::Item> {
        if self.done {
            return None;
        }
        let s = self.s;
        while self.pos < s.len() && s[self.pos] == self.blank {
            self.pos += 1;
        }
        if self.pos >= s.len() || s[self.pos] == 0 {
            self.done = true;
            return None;
        }
        let start = self.pos;
        if s[start] != self.quote {
            let mut end = start;
            while end < s.len() && s[end] != self.blank && s[end] != 0 {
                if s[end] == self.quote {
                    return self.fail(end, "a quote inside an unquoted token");
                }
                end += 1;
            }
            self.pos = end;
            return Some(Ok(Cow::Borrowed(&s[start..end])));
        }
        // Quoted token: find the closing quote, `""` standing for one quote.
        let mut i = start + 1;
        let mut doubled = false;
        loop {
            match s.get(i) {
                None | Some(0) => return self.fail(start, "a quote that is never closed"),
                Some(&b) if b == self.quote => {
                    if s.get(i + 1) == Some(&self.quote) {
                        doubled = true;
                        i += 2;
                    } else {
                        break;
                    }
                }
                Some(_) => i += 1,
            }
        }
        let inner = &s[start + 1..i];
        self.pos = i + 1;
        if let Some(&b) = s.get(self.pos)
            && b != self.blank
            && b != 0
        {
            return self.fail(self.pos, "text right after a closing quote");
        }
        if !doubled {
            return Some(Ok(Cow::Borrowed(inner)));
        }
        let mut owned = Vec::with_capacity(inner.len());
        let mut j = 0;
        while j < inner.len() {
            owned.push(inner[j]);
            j += if inner[j] == self.quote { 2 } else { 1 };
        }
        Some(Ok(Cow::Owned(owned)))
    }
}

/// Checks the whole NameValueString without allocating: tokens well formed
/// and paired. Offsets count from the start of the string.
pub(crate) fn check_name_value_string(s: &[u8], cs: Charset) -> Result<(), DecodeError> {
    let mut count = 0usize;
    for t in Tokens::new(s, cs) {
        t?;
        count += 1;
    }
    if count % 2 == 1 {
        return Err(unpaired(s.len()));
    }
    Ok(())
}

#[inline]
pub(crate) fn scan_rfh(
    input: &[u8],
    order: ByteOrder,
) -> Result<(usize, Charset, Descriptor), DecodeError> {
    let p = scan_prefix(
        Structure::Rfh,
        input,
        order,
        |v| (v == 1).then_some(RFH_STRUC_LENGTH_FIXED),
        false,
    )?;
    check_name_value_string(&input[PREFIX_LENGTH..p.struc_length], p.charset)
        .map_err(|e| e.shifted(PREFIX_LENGTH))?;
    Ok((p.struc_length, p.charset, p.next))
}

/// Parses an MQRFH version 1 from the start of `input`, borrowing the
/// NameValueString. Errors: truncated, bad StrucId, Version not 1,
/// StrucLength below 32 / past the input / not a multiple of 4 (2334
/// MQRC_RFH_ERROR); a malformed NameValueString (2335 MQRC_RFH_STRING_ERROR).
pub fn parse_rfh(input: &[u8], order: ByteOrder) -> Result<(Mqrfh<'_>, Charset), DecodeError> {
    let (len, cs, next) = scan_rfh(input, order)?;
    let flags = order.read_i32(input, 28).unwrap_or(0);
    Ok((
        Mqrfh {
            version: 1,
            encoding: next.encoding,
            coded_char_set_id: next.coded_char_set_id,
            format: next.format,
            flags,
            name_value_string: Cow::Borrowed(&input[PREFIX_LENGTH..len]),
        },
        cs,
    ))
}

/// Appends `r` to `out`: StrucLength = 32 + NameValueString padded with
/// blanks (in `cs`) to a multiple of 4.
pub fn write_rfh(r: &Mqrfh<'_>, order: ByteOrder, cs: Charset, out: &mut Vec<u8>) {
    let len = r.struc_length();
    write_prefix(
        out,
        &PrefixFields {
            structure: Structure::Rfh,
            version: r.version,
            struc_length: len,
            encoding: r.encoding,
            coded_char_set_id: r.coded_char_set_id,
            format: &r.format,
            flags: r.flags,
        },
        cs,
        order,
    );
    out.extend_from_slice(&r.name_value_string);
    out.resize(
        out.len() + len - RFH_STRUC_LENGTH_FIXED - r.name_value_string.len(),
        cs.blank(),
    );
}

#[cfg(test)]
mod tests {
    use super::*;

    fn toks(s: &[u8]) -> Result<Vec<Vec<u8>>, DecodeError> {
        Tokens::new(s, Charset::Ascii)
            .map(|t| t.map(|c| c.into_owned()))
            .collect()
    }

    #[test]
    fn quoting_rules() {
        // IBM MQ "2335 (091F) (RC2335): MQRC_RFH_STRING_ERROR": blanks separate, quotes
        // around blanks, "" is a quote, NUL ends.
        assert_eq!(
            toks(b"  name   \"say \"\"hi\"\"\" x \"\"\0garbage\"").unwrap(),
            vec![
                b"name".to_vec(),
                b"say \"hi\"".to_vec(),
                b"x".to_vec(),
                b"".to_vec()
            ]
        );
        let e = toks(b"a \"open").unwrap_err();
        assert_eq!((e.offset, e.mqrc().0), (2, 2335));
        let e = toks(b"a \"b\"c").unwrap_err();
        assert_eq!(e.offset, 5);
        let e = toks(b"a b\"c").unwrap_err();
        assert_eq!(e.offset, 3);
        assert_eq!(
            check_name_value_string(b"one    ", Charset::Ascii)
                .unwrap_err()
                .kind,
            DecodeErrorKind::MalformedNameValueString {
                what: "a name without a value"
            }
        );
    }

    #[test]
    fn build_parse_write() {
        let next = Descriptor {
            encoding: 273,
            coded_char_set_id: 819,
            format: CharField(*b"MQSTR   "),
            charset: Charset::Ascii,
        };
        let r = Mqrfh::from_pairs(
            &next,
            &[("OPT", "a b"), ("Q", "say \"hi\"")],
            Charset::Ascii,
        )
        .unwrap();
        // 24 bytes, already a multiple of 4; `AB ""` (5 bytes) gets 3 blanks.
        assert_eq!(&*r.name_value_string, b"OPT \"a b\" Q \"say \"\"hi\"\"\"");
        let padded = name_value_string(&[("AB", "")], Charset::Ascii).unwrap();
        assert_eq!(padded, b"AB \"\"   ");
        let mut out = Vec::new();
        write_rfh(&r, ByteOrder::Big, Charset::Ascii, &mut out);
        // 32 + 24 = 56 = StrucLength, a multiple of 4.
        assert_eq!(out.len(), 56);
        assert_eq!(&out[0..12], b"RFH \0\0\0\x01\0\0\0\x38");
        let (back, cs) = parse_rfh(&out, ByteOrder::Big).unwrap();
        assert_eq!(cs, Charset::Ascii);
        let pairs = back.pairs(cs).unwrap();
        assert_eq!(pairs.len(), 2);
        assert_eq!(&*pairs[1].1, b"say \"hi\"");
        let mut again = Vec::new();
        write_rfh(&back, ByteOrder::Big, cs, &mut again);
        assert_eq!(again, out);
    }

    #[test]
    fn a_built_rfh_takes_a_nul_padded_format_blank_padded() {
        // IBM MQ "Rules for naming IBM MQ objects" (a NUL ends the data, mqgate writers
        // pad with blanks); IBM MQ "MQRFH - Rules and formatting header": the
        // MQRFH's Format at offset 20.
        let next = Descriptor {
            encoding: 546,
            coded_char_set_id: 1208,
            format: CharField(*b"MQSTR\0\0\0"),
            charset: Charset::Ascii,
        };
        let r = Mqrfh::from_pairs(&next, &[("Origin", "mqgate")], Charset::Ascii).unwrap();
        let mut out = Vec::new();
        write_rfh(&r, ByteOrder::Little, Charset::Ascii, &mut out);
        assert_eq!(&out[20..28], b"MQSTR   ");
        // A parsed RFH keeps its NUL padding byte for byte (byte fidelity).
        let mut raw = out.clone();
        raw[25..28].copy_from_slice(b"\0\0\0");
        let (back, cs) = parse_rfh(&raw, ByteOrder::Little).unwrap();
        let mut again = Vec::new();
        write_rfh(&back, ByteOrder::Little, cs, &mut again);
        assert_eq!(again, raw);
    }
}

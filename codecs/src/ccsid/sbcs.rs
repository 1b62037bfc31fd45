//! Single-byte sets: the generated table type and the table-driven codecs.

use super::error::ConvertError;
use super::options::OnUnmappable;
use super::registry::Family;

/// Marks a byte a set leaves undefined in [`SbcsTable::to_unicode`].
pub const UNDEFINED: u16 = 0xFFFF;

/// EBCDIC NL and LF, swapped by the NL_TO_LF policy (spec: ccsid.md §2).
const EBCDIC_NL: u8 = 0x15;
const EBCDIC_LF: u8 = 0x25;

/// A generated 256-entry table (tools/ccsid-gen, from ICU uconv).
#[derive(Debug, PartialEq, Eq)]
pub struct SbcsTable {
    /// IBM CCSID.
    pub ccsid: u16,
    /// Common name.
    pub name: &'static str,
    /// Family.
    pub family: Family,
    /// ICU converter the table was generated from.
    pub icu: &'static str,
    /// glibc iconv converter name (the second oracle).
    pub iconv: &'static str,
    /// The byte written for a character the set lacks.
    pub substitution: u8,
    /// Unicode scalar (all in the BMP) of each byte; [`UNDEFINED`] for none.
    pub to_unicode: [u16; 256],
    /// The reverse mappings of scalars above U+00FF, sorted by scalar. The
    /// reverse is the exact inverse of `to_unicode` (the generator checks).
    pub above_latin1: &'static [(u16, u8)],
}

/// A table ready for use, with the newline policy applied.
pub(crate) struct SbcsCodec {
    pub ccsid: u16,
    pub substitution: u8,
    /// Unicode per byte, [`UNDEFINED`] for none.
    pub to_unicode: [u16; 256],
    /// Byte for U+0000..U+00FF; values above 0xFF mean "not in the set".
    latin1: [u16; 256],
    above_latin1: &'static [(u16, u8)],
}

impl SbcsCodec {
    /// Prepares `t`; `swap_nl` applies NL_TO_LF when the table has the
    /// standard EBCDIC layout 0x15 = U+0085, 0x25 = U+000A.
    pub fn new(t: &'static SbcsTable, swap_nl: bool) -> SbcsCodec {
        let mut to_unicode = t.to_unicode;
        let swapped = swap_nl
            && to_unicode[usize::from(EBCDIC_NL)] == 0x85
            && to_unicode[usize::from(EBCDIC_LF)] == 0x0A;
        if swapped {
            to_unicode.swap(usize::from(EBCDIC_NL), usize::from(EBCDIC_LF));
        }
        let mut latin1 = [UNDEFINED; 256];
        for (b, &u) in to_unicode.iter().enumerate() {
            if u <= 0xFF {
                // b < 256 by construction of the table.
                latin1[usize::from(u)] = b as u16;
            }
        }
        SbcsCodec {
            ccsid: t.ccsid,
            substitution: t.substitution,
            to_unicode,
            latin1,
            above_latin1: t.above_latin1,
        }
    }

    /// The byte for `c`, or `None` when the set lacks it.
    #[inline]
    pub fn encode_char(&self, c: char) -> Option<u8> {
        let u = u32::from(c);
        if u <= 0xFF {
            let b = self.latin1[u as usize];
            return (b <= 0xFF).then_some(b as u8);
        }
        let u = u16::try_from(u).ok()?;
        let i = self
            .above_latin1
            .binary_search_by_key(&u, |&(c, _)| c)
            .ok()?;
        Some(self.above_latin1[i].1)
    }

    /// Decodes `input` to UTF-8 text; undefined bytes fail or become U+FFFD.
    pub fn decode(&self, input: &[u8], on: OnUnmappable) -> Result<(String, usize), ConvertError> {
        // Per-byte UTF-8 (up to 3 bytes, all scalars are in the BMP) so the
        // hot loop is a table copy; length computed first to allocate once.
        let mut utf8 = [[0u8; 4]; 256];
        let mut len = [0u8; 256];
        let mut undefined = false;
        for b in 0..256 {
            let u = self.to_unicode[b];
            let c = if u == UNDEFINED {
                undefined = true;
                char::REPLACEMENT_CHARACTER
            } else {
                char::from_u32(u32::from(u)).unwrap_or(char::REPLACEMENT_CHARACTER)
            };
            len[b] = c.encode_utf8(&mut utf8[b]).len() as u8;
        }
        let mut substitutions = 0;
        if undefined {
            let bad = |b: &u8| self.to_unicode[usize::from(*b)] == UNDEFINED;
            if let Some(offset) = input.iter().position(bad) {
                if on == OnUnmappable::Fail {
                    return Err(ConvertError::Invalid {
                        ccsid: self.ccsid,
                        offset,
                        byte: input[offset],
                    });
                }
                substitutions = input[offset..].iter().filter(|b| bad(b)).count();
            }
        }
        let total: usize = input
            .iter()
            .map(|&b| usize::from(len[usize::from(b)]))
            .sum();
        let mut out = vec![0u8; total + 4];
        let mut pos = 0;
        for &b in input {
            let i = usize::from(b);
            out[pos..pos + 4].copy_from_slice(&utf8[i]);
            pos += usize::from(len[i]);
        }
        out.truncate(total);
        // The bytes come from `char::encode_utf8`, so this cannot fail.
        let text = String::from_utf8(out).unwrap_or_default();
        Ok((text, substitutions))
    }

    /// Encodes `text`; error offsets are byte offsets in `text`.
    pub fn encode(&self, text: &str, on: OnUnmappable) -> Result<(Vec<u8>, usize), ConvertError> {
        let src = text.as_bytes();
        let mut out = Vec::with_capacity(src.len());
        let mut substitutions = 0;
        let mut i = 0;
        while i < src.len() {
            let b = src[i];
            // ASCII fast path; `latin1` covers it directly.
            if b < 0x80 {
                let e = self.latin1[usize::from(b)];
                if e <= 0xFF {
                    out.push(e as u8);
                    i += 1;
                    continue;
                }
            }
            let c = text[i..]
                .chars()
                .next()
                .unwrap_or(char::REPLACEMENT_CHARACTER);
            match self.encode_char(c) {
                Some(e) => out.push(e),
                None if on == OnUnmappable::Substitute => {
                    out.push(self.substitution);
                    substitutions += 1;
                }
                None => {
                    return Err(ConvertError::Unmappable {
                        ccsid: self.ccsid,
                        offset: i,
                        ch: c,
                    });
                }
            }
            i += c.len_utf8();
        }
        Ok((out, substitutions))
    }
}

/// Marks "no byte" in a [`Composed`] table.
const NO_BYTE: u16 = 0x100;

/// One 256-entry table from one single-byte set straight to another.
pub(crate) struct Composed {
    map: [u16; 256],
    complete: bool,
    from: SbcsCodec,
    to_ccsid: u16,
    to_substitution: u8,
}

impl Composed {
    /// Composes `from` → Unicode → `to` into one table.
    pub fn new(from: SbcsCodec, to: &SbcsCodec) -> Composed {
        let mut map = [NO_BYTE; 256];
        for (b, m) in map.iter_mut().enumerate() {
            let u = from.to_unicode[b];
            if u == UNDEFINED {
                continue;
            }
            if let Some(e) = char::from_u32(u32::from(u)).and_then(|c| to.encode_char(c)) {
                *m = u16::from(e);
            }
        }
        Composed {
            complete: map.iter().all(|&m| m != NO_BYTE),
            map,
            from,
            to_ccsid: to.ccsid,
            to_substitution: to.substitution,
        }
    }

    /// Converts `input` byte by byte; no intermediate text.
    pub fn convert(
        &self,
        input: &[u8],
        on: OnUnmappable,
    ) -> Result<(Vec<u8>, usize), ConvertError> {
        let mut substitutions = 0;
        if !self.complete {
            let bad = |b: &u8| self.map[usize::from(*b)] == NO_BYTE;
            if let Some(offset) = input.iter().position(bad) {
                if on == OnUnmappable::Fail {
                    return Err(self.error_at(input, offset));
                }
                substitutions = input[offset..].iter().filter(|b| bad(b)).count();
            }
        }
        let sub = u16::from(self.to_substitution);
        let out = input
            .iter()
            .map(|&b| {
                let m = self.map[usize::from(b)];
                (if m == NO_BYTE { sub } else { m }) as u8
            })
            .collect();
        Ok((out, substitutions))
    }

    fn error_at(&self, input: &[u8], offset: usize) -> ConvertError {
        let byte = input[offset];
        let u = self.from.to_unicode[usize::from(byte)];
        match char::from_u32(u32::from(u)) {
            Some(ch) if u != UNDEFINED => ConvertError::Unmappable {
                ccsid: self.to_ccsid,
                offset,
                ch,
            },
            _ => ConvertError::Invalid {
                ccsid: self.from.ccsid,
                offset,
                byte,
            },
        }
    }
}

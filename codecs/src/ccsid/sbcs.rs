//! Single-byte sets: the generated table type and the table-driven codecs.

use super::error::ConvertError;
use super::options::OnUnmappable;
use super::registry::Family;
use super::simd;
use super::unicode;

/// Marks a byte a set leaves undefined in [`SbcsTable::to_unicode`].
pub const UNDEFINED: u16 = 0xFFFF;

/// EBCDIC NL and LF, swapped by the NL_TO_LF policy (docs/ccsid.md).
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
    /// The Latin-1 character of each byte, when every byte has one (the
    /// EBCDIC Latin-1 sets such as 037, 500, 1047): the bulk UTF-8 path.
    pub(crate) byte_to_latin1: Option<[u8; 256]>,
    /// The byte of each Latin-1 character, when the set has all of them:
    /// the bulk path from UTF-8.
    pub(crate) latin1_to_byte: Option<[u8; 256]>,
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
        // Both fit in a byte where the check passes.
        let byte_to_latin1 = to_unicode
            .iter()
            .all(|&u| u <= 0xFF)
            .then(|| std::array::from_fn(|b| to_unicode[b] as u8));
        let latin1_to_byte = latin1
            .iter()
            .all(|&b| b <= 0xFF)
            .then(|| std::array::from_fn(|u| latin1[u] as u8));
        SbcsCodec {
            ccsid: t.ccsid,
            substitution: t.substitution,
            to_unicode,
            latin1,
            above_latin1: t.above_latin1,
            byte_to_latin1,
            latin1_to_byte,
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

    /// Appends the text of `input` to `out`; undefined bytes fail (nothing
    /// appended) or become U+FFFD. Returns the number of substitutions.
    pub fn decode_into(
        &self,
        input: &[u8],
        on: OnUnmappable,
        out: &mut String,
    ) -> Result<usize, ConvertError> {
        let mut buf = std::mem::take(out).into_bytes();
        let start = buf.len();
        let result = self.decode_utf8_into(input, on, &mut buf);
        if result.is_err() {
            buf.truncate(start);
        }
        // The bytes come from `char::encode_utf8`, so this always succeeds.
        *out = String::from_utf8(buf)
            .unwrap_or_else(|e| String::from_utf8_lossy(e.as_bytes()).into_owned());
        result
    }

    /// Appends the UTF-8 bytes of `input` to `buf` (as [`Self::decode_into`],
    /// without making a `String`: the bytes → bytes path to CCSID 1208).
    pub fn decode_utf8_into(
        &self,
        input: &[u8],
        on: OnUnmappable,
        buf: &mut Vec<u8>,
    ) -> Result<usize, ConvertError> {
        if let Some(to_latin1) = &self.byte_to_latin1 {
            // Every byte is defined, so nothing can fail or be substituted.
            simd::latin1_to_utf8(to_latin1, input, buf);
            return Ok(0);
        }
        // Per-byte UTF-8: up to 3 bytes (all scalars are in the BMP).
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
            let mut tmp = [0u8; 4];
            len[b] = c.encode_utf8(&mut tmp).len() as u8;
            utf8[b] = tmp;
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
        // Eight bytes at a time while they all map to ASCII (the common case
        // in text), byte by byte otherwise.
        let mut ascii = [0xFFu8; 256];
        for (a, &u) in ascii.iter_mut().zip(self.to_unicode.iter()) {
            if u < 0x80 {
                *a = u as u8;
            }
        }
        buf.reserve(input.len() + input.len() / 4);
        // Slow path for one byte: ASCII as one push, others from the table.
        let one = |buf: &mut Vec<u8>, b: u8| {
            let i = usize::from(b);
            match ascii[i] {
                a @ 0..=0x7F => buf.push(a),
                _ => buf.extend_from_slice(&utf8[i][..usize::from(len[i])]),
            }
        };
        let mut i = 0;
        while i < input.len() {
            while let Some(Ok(c)) = input.get(i..i + 8).map(<[u8; 8]>::try_from) {
                // The eight mapped bytes gathered in a register; bit 7 set
                // in one of them means "not ASCII". Copy the ASCII ones
                // before it (all 8 when there is none).
                let w = c.iter().enumerate().fold(0u64, |w, (k, &b)| {
                    w | u64::from(ascii[usize::from(b)]) << (8 * k)
                });
                let high = w & 0x8080_8080_8080_8080;
                if high == 0 {
                    buf.extend_from_slice(&w.to_le_bytes());
                    i += 8;
                } else {
                    let n = (high.trailing_zeros() / 8) as usize;
                    buf.extend_from_slice(&w.to_le_bytes()[..n]);
                    i += n;
                    break;
                }
            }
            let Some(&b) = input.get(i) else { break };
            one(buf, b);
            i += 1;
        }
        Ok(substitutions)
    }

    /// Appends the bytes of UTF-8 `input` to `out` (the bytes → bytes path
    /// from CCSID 1208); errors as [`Self::encode_into`], plus
    /// [`ConvertError::Invalid`] for malformed UTF-8 under
    /// [`OnUnmappable::Fail`] (on error `out` is unchanged).
    pub fn encode_utf8_into(
        &self,
        input: &[u8],
        utf8_ccsid: u16,
        on: OnUnmappable,
        out: &mut Vec<u8>,
    ) -> Result<usize, ConvertError> {
        let start = out.len();
        if let Some(from_latin1) = &self.latin1_to_byte {
            // Validating as it goes: runs of U+0000..U+00FF in bulk, other
            // characters one by one; anything unusual (malformed UTF-8, a
            // character the set lacks) goes to the general path below.
            let mut i = 0;
            loop {
                i += simd::utf8_latin1_prefix(from_latin1, &input[i..], out);
                let Some(rest) = input.get(i..) else { break };
                if rest.is_empty() {
                    return Ok(0);
                }
                let head = &rest[..rest.len().min(4)];
                let ch = match std::str::from_utf8(head) {
                    Ok(s) => s.chars().next(),
                    Err(e) => head
                        .get(..e.valid_up_to())
                        .and_then(|v| std::str::from_utf8(v).ok())
                        .and_then(|s| s.chars().next()),
                };
                match ch.and_then(|c| self.encode_char(c).map(|b| (c, b))) {
                    Some((c, b)) => {
                        out.push(b);
                        i += c.len_utf8();
                    }
                    None => break,
                }
            }
            out.truncate(start);
        }
        match std::str::from_utf8(input) {
            Ok(text) => self.encode_into(text, on, out),
            Err(e) if on == OnUnmappable::Fail => {
                // The first error in input order: a character before the
                // malformed sequence may have no mapping.
                let valid = e.valid_up_to();
                let head = std::str::from_utf8(&input[..valid]).unwrap_or_default();
                self.encode_into(head, on, out)?;
                out.truncate(start);
                Err(ConvertError::Invalid {
                    ccsid: utf8_ccsid,
                    offset: valid,
                    byte: input[valid],
                })
            }
            Err(_) => {
                // Fails under Fail at the first bad byte; under Substitute
                // the repaired text cannot fail to encode.
                let (text, subs) = unicode::decode_utf8(input, utf8_ccsid, on)?;
                let encoded = self.encode_into(&text, on, out)?;
                // Each repaired sequence became one U+FFFD; a set without
                // U+FFFD substitutes it again, and that place counts once.
                Ok(if self.encode_char('\u{FFFD}').is_none() {
                    encoded
                } else {
                    subs + encoded
                })
            }
        }
    }

    /// Appends the bytes of `text` to `out`; error offsets are byte offsets
    /// in `text` (on error `out` is unchanged). Returns the number of
    /// substitutions.
    pub fn encode_into(
        &self,
        text: &str,
        on: OnUnmappable,
        out: &mut Vec<u8>,
    ) -> Result<usize, ConvertError> {
        let src = text.as_bytes();
        let start = out.len();
        out.reserve(src.len());
        let at = |k: usize| u32::from(src.get(k).copied().unwrap_or(0) & 0x3F);
        // ASCII -> byte when every ASCII character maps (true for all the
        // tables here), for an 8-bytes-at-a-time path over ASCII runs.
        let ascii: Option<[u8; 128]> = self.latin1[..128]
            .iter()
            .all(|&b| b <= 0xFF)
            .then(|| std::array::from_fn(|a| self.latin1[a] as u8));
        let mut substitutions = 0;
        let mut i = 0;
        while i < src.len() {
            if let Some(from_latin1) = &self.latin1_to_byte {
                // Up to the next character above U+00FF, if any.
                i += simd::utf8_latin1_prefix(from_latin1, &src[i..], out);
                if i >= src.len() {
                    break;
                }
            } else if let Some(map) = &ascii {
                while let Some(Ok(w)) = src.get(i..i + 8).map(<[u8; 8]>::try_from) {
                    let high = u64::from_le_bytes(w) & 0x8080_8080_8080_8080;
                    // The ASCII bytes before the first non-ASCII one (all 8
                    // when there is none), mapped in a register.
                    let n = (high.trailing_zeros() / 8) as usize;
                    let m = w.iter().enumerate().fold(0u64, |m, (k, &b)| {
                        m | u64::from(map[usize::from(b & 0x7F)]) << (8 * k)
                    });
                    if n == 8 {
                        out.extend_from_slice(&m.to_le_bytes());
                        i += 8;
                    } else {
                        out.extend_from_slice(&m.to_le_bytes()[..n]);
                        i += n;
                        break;
                    }
                }
                if i >= src.len() {
                    break;
                }
            }
            let b0 = src[i];
            // `text` is valid UTF-8, so the sequence length follows from b0.
            let (u, n) = match b0 {
                0x00..=0x7F => (u32::from(b0), 1),
                0xC0..=0xDF => ((u32::from(b0 & 0x1F) << 6) | at(i + 1), 2),
                0xE0..=0xEF => (
                    (u32::from(b0 & 0x0F) << 12) | (at(i + 1) << 6) | at(i + 2),
                    3,
                ),
                _ => (0x1_0000, 4),
            };
            let mapped = if u <= 0xFF {
                let e = self.latin1[u as usize];
                (e <= 0xFF).then_some(e as u8)
            } else {
                char::from_u32(u).and_then(|c| self.encode_char(c))
            };
            match mapped {
                Some(e) => out.push(e),
                None if on == OnUnmappable::Substitute => {
                    substitutions += 1;
                    out.push(self.substitution);
                }
                None => {
                    out.truncate(start);
                    let ch = text.get(i..).and_then(|t| t.chars().next());
                    let ch = ch.unwrap_or(char::REPLACEMENT_CHARACTER);
                    return Err(ConvertError::Unmappable {
                        ccsid: self.ccsid,
                        offset: i,
                        ch,
                    });
                }
            }
            i += n;
        }
        Ok(substitutions)
    }
}

/// One 256-entry table from one single-byte set straight to another.
pub(crate) struct Composed {
    /// Target byte per source byte; the target's substitution byte where
    /// there is none (`bad` says which).
    pub(crate) map: [u8; 256],
    bad: [bool; 256],
    any_bad: bool,
    from: SbcsCodec,
    to_ccsid: u16,
}

impl Composed {
    /// Composes `from` → Unicode → `to` into one table.
    pub fn new(from: SbcsCodec, to: &SbcsCodec) -> Composed {
        let mut map = [to.substitution; 256];
        let mut bad = [true; 256];
        for b in 0..256 {
            let u = from.to_unicode[b];
            if u == UNDEFINED {
                continue;
            }
            if let Some(e) = char::from_u32(u32::from(u)).and_then(|c| to.encode_char(c)) {
                map[b] = e;
                bad[b] = false;
            }
        }
        Composed {
            any_bad: bad.contains(&true),
            map,
            bad,
            from,
            to_ccsid: to.ccsid,
        }
    }

    /// Appends the conversion of `input` to `out`, byte by byte through the
    /// table; no intermediate text. Returns the number of substitutions.
    pub fn convert_into(
        &self,
        input: &[u8],
        on: OnUnmappable,
        out: &mut Vec<u8>,
    ) -> Result<usize, ConvertError> {
        let mut substitutions = 0;
        if self.any_bad {
            let bad = |b: &u8| self.bad[usize::from(*b)];
            if let Some(offset) = input.iter().position(bad) {
                if on == OnUnmappable::Fail {
                    return Err(self.error_at(input, offset));
                }
                substitutions = input[offset..].iter().filter(|b| bad(b)).count();
            }
        }
        simd::map_bytes(&self.map, input, out);
        Ok(substitutions)
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

//! The conversion entry points: decode, encode, convert, [`Converter`].

use super::dbcs::DbcsCodec;
use super::error::ConvertError;
use super::mbcs;
use super::options::{NewlinePolicy, OnUnmappable, Options};
use super::registry::{Ccsid, Repr};
use super::sbcs::{Composed, SbcsCodec};
use super::unicode;
use super::via::Via;
use encoding_rs::Encoding;

/// Text decoded from bytes.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Decoded {
    /// The text.
    pub text: String,
    /// How many invalid bytes or sequences became U+FFFD (0 under
    /// [`OnUnmappable::Fail`]).
    pub substitutions: usize,
}

/// Bytes produced by encoding or converting.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Encoded {
    /// The bytes in the target CCSID.
    pub bytes: Vec<u8>,
    /// How many characters or bytes became the substitution character (0
    /// under [`OnUnmappable::Fail`]).
    pub substitutions: usize,
}

/// One side of a conversion, ready to use.
pub(crate) enum Side {
    Utf8,
    Utf16 { little: bool },
    Sbcs(Box<SbcsCodec>),
    Dbcs(DbcsCodec),
    Mbcs(&'static Encoding),
}

impl Side {
    /// Prepares `c`; `other` is the CCSID on the other side (None = Unicode
    /// text), which the ISO newline policy looks at.
    pub(crate) fn new(c: Ccsid, other: Option<Ccsid>, newline: NewlinePolicy) -> Side {
        match c.repr {
            Repr::Utf8 => Side::Utf8,
            Repr::Utf16 { little } => Side::Utf16 { little },
            Repr::Sbcs(t) => Side::Sbcs(Box::new(SbcsCodec::new(t, newline.swaps(c, other)))),
            Repr::Dbcs(t) => Side::Dbcs(DbcsCodec::new(t, newline.swaps(c, other))),
            Repr::Mbcs(e) => Side::Mbcs(e),
        }
    }

    pub(crate) fn decode_into(
        &self,
        input: &[u8],
        ccsid: u16,
        on: OnUnmappable,
        out: &mut String,
    ) -> Result<usize, ConvertError> {
        self.decode_from(input, ccsid, on, &mut false, out)
    }

    /// [`Side::decode_into`] from shift state `*shifted`, left as it is
    /// after `input` (only mixed EBCDIC has one; `DbcsCodec::decode_from`).
    pub(crate) fn decode_from(
        &self,
        input: &[u8],
        ccsid: u16,
        on: OnUnmappable,
        shifted: &mut bool,
        out: &mut String,
    ) -> Result<usize, ConvertError> {
        let (text, subs) = match self {
            Side::Sbcs(s) => return s.decode_into(input, on, out),
            Side::Dbcs(d) => return d.decode_from(input, shifted, on, out),
            Side::Utf8 => unicode::decode_utf8(input, ccsid, on)?,
            Side::Utf16 { little } => unicode::decode_utf16(input, *little, ccsid, on)?,
            Side::Mbcs(e) => mbcs::decode(input, e, ccsid, on)?,
        };
        if out.is_empty() {
            *out = text;
        } else {
            out.push_str(&text);
        }
        Ok(subs)
    }

    pub(crate) fn encode_into(
        &self,
        text: &str,
        ccsid: u16,
        on: OnUnmappable,
        out: &mut Vec<u8>,
    ) -> Result<usize, ConvertError> {
        match self {
            Side::Utf8 => {
                out.extend_from_slice(text.as_bytes());
                Ok(0)
            }
            Side::Utf16 { little } => {
                out.extend_from_slice(&unicode::encode_utf16(text, *little));
                Ok(0)
            }
            Side::Sbcs(s) => s.encode_into(text, on, out),
            Side::Dbcs(d) => d.encode_into(text, on, out),
            Side::Mbcs(e) => {
                let (bytes, subs) = mbcs::encode(text, e, ccsid, on)?;
                out.extend_from_slice(&bytes);
                Ok(subs)
            }
        }
    }

    /// [`Side::encode_into`] for one part of a stream of text, from output
    /// shift state `*shifted`, left as it is after the part; with `more`,
    /// text follows (only mixed EBCDIC keeps a state and may leave the end
    /// of `text` for the next part; `DbcsCodec::encode_from`). Returns the
    /// substitutions and how many bytes of `text` were encoded.
    pub(crate) fn encode_from(
        &self,
        text: &str,
        ccsid: u16,
        on: OnUnmappable,
        shifted: &mut bool,
        more: bool,
        out: &mut Vec<u8>,
    ) -> Result<(usize, usize), ConvertError> {
        match self {
            Side::Dbcs(d) => d.encode_from(text, shifted, more, on, out),
            _ => self
                .encode_into(text, ccsid, on, out)
                .map(|subs| (subs, text.len())),
        }
    }

    /// The shift state after `input` when it starts in state `shifted`
    /// (false for every set but mixed EBCDIC).
    pub(crate) fn shift_after(&self, input: &[u8], shifted: bool) -> bool {
        matches!(self, Side::Dbcs(_)) && DbcsCodec::shift_after(input, shifted)
    }

    /// Byte offset in `input` where its `n`th character (0-based) starts,
    /// `input` starting in shift state `shifted` (mixed EBCDIC only); used
    /// only to report an unmappable character at its input offset.
    pub(crate) fn char_offset(&self, input: &[u8], n: usize, shifted: bool) -> usize {
        match self {
            Side::Sbcs(_) => n,
            Side::Dbcs(d) => d.char_offset(input, n, shifted),
            Side::Utf8 => {
                // As `unicode::decode_utf8` counts: each maximal invalid
                // subpart is one U+FFFD.
                let (mut count, mut at) = (0, 0);
                for chunk in input.utf8_chunks() {
                    let valid = chunk.valid();
                    let k = valid.chars().count();
                    if count + k > n {
                        return at + valid.char_indices().nth(n - count).map_or(0, |(i, _)| i);
                    }
                    count += k;
                    at += valid.len();
                    if !chunk.invalid().is_empty() {
                        if count == n {
                            return at;
                        }
                        count += 1;
                        at += chunk.invalid().len();
                    }
                }
                input.len()
            }
            Side::Utf16 { little } => {
                // As `unicode::decode_utf16` counts: a surrogate pair is one
                // character, an unpaired surrogate or a lone final byte one
                // U+FFFD.
                let unit = |i: usize| {
                    let b = [input[i], input[i + 1]];
                    if *little {
                        u16::from_le_bytes(b)
                    } else {
                        u16::from_be_bytes(b)
                    }
                };
                let mut i = 0;
                for _ in 0..n {
                    if i + 1 >= input.len() {
                        return input.len();
                    }
                    let paired = (0xD800..=0xDBFF).contains(&unit(i))
                        && i + 3 < input.len()
                        && (0xDC00..=0xDFFF).contains(&unit(i + 2));
                    i += if paired { 4 } else { 2 };
                }
                i.min(input.len())
            }
            Side::Mbcs(e) => {
                // Feed byte by byte: the bytes after the last one that
                // yielded characters make the next character. One sequence
                // can yield two characters (Big5 0x88 0x62 is U+00CA
                // U+0304, WHATWG Encoding Standard "index Big5"): both start
                // at its first byte.
                let mut decoder = e.new_decoder_without_bom_handling();
                let mut scratch = String::new();
                let (mut count, mut start) = (0, 0);
                let bytes = input.iter().map(std::slice::from_ref);
                for (j, b) in bytes.chain([&[][..]]).enumerate() {
                    scratch.clear();
                    scratch.reserve(decoder.max_utf8_buffer_length(1).unwrap_or(32));
                    let last = b.is_empty();
                    let _ = decoder.decode_to_string(b, &mut scratch, last);
                    let k = scratch.chars().count();
                    if k > 0 {
                        if count + k > n {
                            return start;
                        }
                        count += k;
                        start = j + 1;
                    }
                }
                start.min(input.len().saturating_sub(1))
            }
        }
    }
}

/// A prepared conversion between two CCSIDs, for converting many buffers.
pub struct Converter {
    from_ccsid: u16,
    on: OnUnmappable,
    pub(crate) path: Path,
}

/// How a [`Converter`] goes from one CCSID to the other.
pub(crate) enum Path {
    /// Single-byte to single-byte: one composed 256-byte table.
    Direct(Box<Composed>),
    /// Single-byte to UTF-8: table lookups straight into the output bytes.
    SbcsToUtf8(Box<SbcsCodec>),
    /// UTF-8 to single-byte: the input is checked and encoded in place.
    Utf8ToSbcs(Box<SbcsCodec>),
    /// Everything else goes through text.
    Via(Box<Via>),
}

impl Converter {
    /// Prepares `from` → `to` with `options` (the newline policy is applied
    /// to each EBCDIC side, looking at the other side for ISO).
    pub fn new(from: Ccsid, to: Ccsid, options: &Options) -> Converter {
        let nl = options.newline;
        let from_side = Side::new(from, Some(to), nl);
        let to_side = Side::new(to, Some(from), nl);
        let path = match (from_side, to_side) {
            (Side::Sbcs(f), Side::Sbcs(t)) => Path::Direct(Box::new(Composed::new(*f, &t))),
            (Side::Sbcs(f), Side::Utf8) => Path::SbcsToUtf8(f),
            (Side::Utf8, Side::Sbcs(t)) => Path::Utf8ToSbcs(t),
            (from_side, to_side) => Path::Via(Box::new(Via::new(
                from_side,
                to_side,
                from.number(),
                to.number(),
                options.on_unmappable,
            ))),
        };
        Converter {
            from_ccsid: from.number(),
            on: options.on_unmappable,
            path,
        }
    }

    /// Converts `input`. Errors as [`convert`].
    pub fn convert(&self, input: &[u8]) -> Result<Encoded, ConvertError> {
        let mut bytes = Vec::with_capacity(input.len());
        let substitutions = self.convert_into(input, &mut bytes)?;
        Ok(Encoded {
            bytes,
            substitutions,
        })
    }

    /// Appends the conversion of `input` to `out` (reuse `out` to avoid an
    /// allocation per message); returns the number of substitutions. Errors
    /// as [`convert`]; on error `out` is unchanged.
    pub fn convert_into(&self, input: &[u8], out: &mut Vec<u8>) -> Result<usize, ConvertError> {
        match &self.path {
            Path::Direct(c) => c.convert_into(input, self.on, out),
            Path::SbcsToUtf8(f) => {
                let start = out.len();
                let r = f.decode_utf8_into(input, self.on, out);
                if r.is_err() {
                    out.truncate(start);
                }
                r
            }
            Path::Utf8ToSbcs(t) => t.encode_utf8_into(input, self.from_ccsid, self.on, out),
            Path::Via(via) => {
                let start = out.len();
                let r = via.convert(&mut via.state(), input, 0, true, out);
                if r.is_err() {
                    out.truncate(start);
                }
                r
            }
        }
    }
}

/// Decodes `input` in CCSID `from` to text.
///
/// Errors (under [`OnUnmappable::Fail`]): [`ConvertError::Invalid`] naming the
/// offset and byte of the first undefined byte or malformed sequence.
pub fn decode(input: &[u8], from: Ccsid, options: &Options) -> Result<Decoded, ConvertError> {
    let mut text = String::new();
    let substitutions = decode_into(input, from, options, &mut text)?;
    Ok(Decoded {
        text,
        substitutions,
    })
}

/// Appends the text of `input` (CCSID `from`) to `out` (reuse `out` to avoid
/// an allocation); returns the number of substitutions. Errors as [`decode`]
/// (then `out` is unchanged).
pub fn decode_into(
    input: &[u8],
    from: Ccsid,
    options: &Options,
    out: &mut String,
) -> Result<usize, ConvertError> {
    let side = Side::new(from, None, options.newline);
    side.decode_into(input, from.number(), options.on_unmappable, out)
}

/// Encodes `text` to CCSID `to`.
///
/// Errors (under [`OnUnmappable::Fail`]): [`ConvertError::Unmappable`] naming
/// the first character `to` lacks and its byte offset in `text`.
pub fn encode(text: &str, to: Ccsid, options: &Options) -> Result<Encoded, ConvertError> {
    let mut bytes = Vec::with_capacity(text.len());
    let substitutions = encode_into(text, to, options, &mut bytes)?;
    Ok(Encoded {
        bytes,
        substitutions,
    })
}

/// Appends the bytes of `text` in CCSID `to` to `out`; returns the number of
/// substitutions. Errors as [`encode`] (then `out` is unchanged).
pub fn encode_into(
    text: &str,
    to: Ccsid,
    options: &Options,
    out: &mut Vec<u8>,
) -> Result<usize, ConvertError> {
    let side = Side::new(to, None, options.newline);
    side.encode_into(text, to.number(), options.on_unmappable, out)
}

/// Converts `input` from CCSID `from` to CCSID `to` (bytes to bytes).
///
/// Errors (under [`OnUnmappable::Fail`]): [`ConvertError::Invalid`] for input
/// not valid in `from`, [`ConvertError::Unmappable`] for a character `to`
/// lacks; both name the byte offset in `input`.
pub fn convert(
    input: &[u8],
    from: Ccsid,
    to: Ccsid,
    options: &Options,
) -> Result<Encoded, ConvertError> {
    Converter::new(from, to, options).convert(input)
}

/// Text of `input` in CCSID `ccsid` for display (e.g. `mqgate decode`):
/// NL_TO_LF, invalid bytes shown as U+FFFD. `encoding` is the MQ Encoding of
/// the data (UTF-16 byte order).
///
/// Errors: [`ConvertError::UnknownCcsid`] when `ccsid` is not supported.
pub fn decode_lossy(input: &[u8], ccsid: i32, encoding: i32) -> Result<String, ConvertError> {
    let from = Ccsid::with_encoding(ccsid, encoding)?;
    let options = Options {
        newline: NewlinePolicy::NlToLf,
        on_unmappable: OnUnmappable::Substitute,
    };
    decode(input, from, &options).map(|d| d.text)
}

//! Conversion of a stream in blocks with bounded memory: [`StreamConverter`].
//!
//! A block may end anywhere, even inside a multi-byte sequence. Sources whose
//! characters can be found from the end of a block (single-byte sets, UTF-8,
//! UTF-16, and mixed EBCDIC given its shift state at the block's start) are
//! cut before an incomplete final sequence, which is held (at most 3 bytes)
//! and joined to the next block; the CJK sets keep their decoder (and the
//! bytes it holds) from block to block. Mixed EBCDIC keeps its SO/SI shift
//! state from block to block on both sides: a double-byte run open at the
//! end of a block goes on in the next (SI is written only where the whole
//! input has it, and at the end), and text that may begin a two-character
//! sequence written as one double byte waits for the next block. Each part
//! is then converted by the same code as [`super::Converter`], so the
//! output, the substitution count and the first error are those of
//! converting the whole input at once, with offsets counted from the start
//! of the stream.

use super::convert::{Converter, Path, Side};
use super::dbcs::DbcsCodec;
use super::error::ConvertError;
use super::options::Options;
use super::registry::Ccsid;
use super::via::ViaState;
use smallvec::SmallVec;

/// How many bytes of a block are joined to a held incomplete sequence to
/// finish it: more than any sequence needs (4 bytes).
const JOIN: usize = 8;

/// Converts a stream, block by block, from one CCSID to another. A pure
/// state machine: [`StreamConverter::feed`] each block as it comes, then
/// [`StreamConverter::finish`].
///
/// Memory: the converter holds at most 3 input bytes and a few characters
/// of text between blocks, plus the tables of its [`Converter`] and a text
/// buffer the size of the last block's text; the output of a block is
/// appended to the caller's buffer (at most 4 bytes per input byte, plus an
/// SO per double-byte run). Memory does not grow with the stream.
///
/// ```
/// use mqgate_codecs::ccsid::{Ccsid, Options, StreamConverter};
/// // "é" (C3 A9 in UTF-8) split between two blocks, to EBCDIC 037 (0x51).
/// let mut s = StreamConverter::new(Ccsid::new(1208)?, Ccsid::new(37)?, &Options::default());
/// let mut out = Vec::new();
/// s.feed(b"A\xC3", &mut out)?;
/// s.feed(b"\xA9", &mut out)?;
/// assert_eq!(s.finish(&mut out)?, 0);
/// assert_eq!(out, [0xC1, 0x51]);
/// # Ok::<(), mqgate_codecs::ccsid::ConvertError>(())
/// ```
pub struct StreamConverter {
    conv: Converter,
    source: Source,
    /// The bytes of an incomplete sequence at the end of the last block.
    held: SmallVec<[u8; 16]>,
    /// Stream offset of the first held byte: everything before is converted.
    consumed: usize,
    substitutions: usize,
    failed: Option<ConvertError>,
    /// The text path's state (CJK decoder, text buffer), when there is one.
    via: Option<ViaState>,
}

/// Where a block of the source may be cut.
enum Source {
    /// Any byte boundary (single-byte sets).
    Bytes,
    /// Before an incomplete UTF-8 sequence at the end.
    Utf8,
    /// Before a lone final byte or a final high surrogate.
    Utf16 { little: bool },
    /// Anywhere: the decoder keeps its state (CJK sets).
    Stateful,
    /// Mixed single/double-byte EBCDIC: before a lone first byte of a pair
    /// at the end, found from the shift state at the start.
    Dbcs,
}

impl Source {
    fn of(side: &Side) -> Source {
        match side {
            Side::Utf8 => Source::Utf8,
            Side::Utf16 { little } => Source::Utf16 { little: *little },
            Side::Sbcs(_) => Source::Bytes,
            Side::Mbcs(_) => Source::Stateful,
            Side::Dbcs(_) => Source::Dbcs,
        }
    }

    /// The length of the longest prefix of `b` that converts the same
    /// whatever follows it; `shifted` is the shift state at its start
    /// (mixed EBCDIC).
    fn cut(&self, b: &[u8], shifted: bool) -> usize {
        match self {
            Source::Bytes | Source::Stateful => b.len(),
            Source::Dbcs => DbcsCodec::complete_len(b, shifted),
            Source::Utf8 => utf8_cut(b),
            Source::Utf16 { little } => utf16_cut(b, *little),
        }
    }
}

/// Cut before a final UTF-8 sequence that is a valid but incomplete prefix
/// (lead byte in the last three bytes, too few continuation bytes); a
/// sequence that is already malformed stays in the block.
fn utf8_cut(b: &[u8]) -> usize {
    let n = b.len();
    for k in 1..=n.min(3) {
        let i = n - k;
        if b[i] & 0xC0 != 0x80 {
            let incomplete = std::str::from_utf8(&b[i..])
                .err()
                .is_some_and(|e| e.valid_up_to() == 0 && e.error_len().is_none());
            return if incomplete { i } else { n };
        }
    }
    n
}

/// Cut before a lone final byte and before a final high surrogate, which
/// the next code unit may pair with.
fn utf16_cut(b: &[u8], little: bool) -> usize {
    let even = b.len() & !1;
    if even >= 2 {
        let pair = [b[even - 2], b[even - 1]];
        let unit = if little {
            u16::from_le_bytes(pair)
        } else {
            u16::from_be_bytes(pair)
        };
        if (0xD800..=0xDBFF).contains(&unit) {
            return even - 2;
        }
    }
    even
}

impl StreamConverter {
    /// Prepares a stream conversion `from` → `to` with `options`, as
    /// [`Converter::new`].
    pub fn new(from: Ccsid, to: Ccsid, options: &Options) -> StreamConverter {
        let conv = Converter::new(from, to, options);
        let (source, via) = match &conv.path {
            Path::Direct(_) | Path::SbcsToUtf8(_) => (Source::Bytes, None),
            Path::Utf8ToSbcs(_) => (Source::Utf8, None),
            Path::Via(via) => (Source::of(&via.from), Some(via.state())),
        };
        StreamConverter {
            conv,
            source,
            held: SmallVec::new(),
            consumed: 0,
            substitutions: 0,
            failed: None,
            via,
        }
    }

    /// Converts the next block of the stream, appending to `out` the
    /// conversion of every character it completes.
    ///
    /// Errors (offsets from the start of the stream), as
    /// [`super::convert`]: [`ConvertError::Invalid`],
    /// [`ConvertError::UnpairedSurrogate`] or [`ConvertError::Unmappable`]
    /// under [`super::OnUnmappable::Fail`]. Then `out` ends with the
    /// conversion of every character before the error (what iconv writes
    /// before it stops), and every later call returns the same error.
    pub fn feed(&mut self, block: &[u8], out: &mut Vec<u8>) -> Result<(), ConvertError> {
        if let Some(e) = &self.failed {
            return Err(e.clone());
        }
        let r = self.feed_block(block, out);
        if let Err(e) = &r {
            self.failed = Some(e.clone());
        }
        r
    }

    /// Ends the stream: converts what is held (an incomplete sequence at
    /// the end is malformed: [`ConvertError::Invalid`] or
    /// [`ConvertError::Truncated`], or one substitution) and returns the
    /// number of substitutions in the whole stream. Errors as
    /// [`StreamConverter::feed`].
    pub fn finish(mut self, out: &mut Vec<u8>) -> Result<usize, ConvertError> {
        if let Some(e) = self.failed {
            return Err(e);
        }
        let held = std::mem::take(&mut self.held);
        self.part(&held, true, out)?;
        Ok(self.substitutions)
    }

    /// Substitutions made so far.
    pub fn substitutions(&self) -> usize {
        self.substitutions
    }

    /// How many bytes have been fed so far.
    pub fn position(&self) -> usize {
        self.consumed + self.held.len()
    }

    fn feed_block(&mut self, block: &[u8], out: &mut Vec<u8>) -> Result<(), ConvertError> {
        if matches!(self.source, Source::Stateful) {
            return self.part(block, false, out);
        }
        let mut rest = block;
        // Finish the held sequence with the first bytes of this block.
        while !self.held.is_empty() && !rest.is_empty() {
            let k = rest.len().min(JOIN);
            let had = self.held.len();
            let mut small = std::mem::take(&mut self.held);
            small.extend_from_slice(&rest[..k]);
            let c = self.cut(&small);
            self.part(&small[..c], false, out)?;
            if c >= had && k < rest.len() {
                rest = &rest[c - had..];
            } else {
                self.held = SmallVec::from_slice(&small[c..]);
                rest = &rest[k..];
            }
        }
        if !rest.is_empty() {
            let c = self.cut(rest);
            self.part(&rest[..c], false, out)?;
            self.held = SmallVec::from_slice(&rest[c..]);
        }
        Ok(())
    }

    /// [`Source::cut`] in the current shift state.
    fn cut(&self, b: &[u8]) -> usize {
        let shifted = self.via.as_ref().is_some_and(ViaState::shifted_in);
        self.source.cut(b, shifted)
    }

    /// Converts `part`, the bytes at `self.consumed`, and moves past them;
    /// `last` when nothing follows. On error `out` ends with the conversion
    /// of everything before it.
    fn part(&mut self, part: &[u8], last: bool, out: &mut Vec<u8>) -> Result<(), ConvertError> {
        if part.is_empty() && !last {
            return Ok(());
        }
        let base = self.consumed;
        let r = match (&self.conv.path, &mut self.via) {
            (Path::Via(via), Some(state)) => via.convert(state, part, base, last, out),
            _ => {
                let r = self
                    .conv
                    .convert_into(part, out)
                    .map_err(|e| e.shifted(base));
                if let Some(at) = r.as_ref().err().and_then(ConvertError::offset) {
                    // Everything before the first error converts.
                    let _ = self.conv.convert_into(&part[..at - base], out);
                }
                r
            }
        };
        self.substitutions += r?;
        self.consumed += part.len();
        Ok(())
    }
}

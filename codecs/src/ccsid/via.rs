//! The text path of a conversion, decode to text and then encode, shared by
//! [`super::Converter`] (one buffer) and [`super::StreamConverter`] (block
//! by block): the first error in input order wins, whichever side finds it,
//! and an unmappable character is named at the input offset where its
//! bytes start. Between blocks it keeps what a stream needs to convert as
//! the whole input would: the CJK decoder, the SO/SI shift state of a mixed
//! EBCDIC source and target, and text the target's encoder left for the
//! next block (a possible start of a multi-character sequence).

use super::convert::Side;
use super::error::ConvertError;
use super::mbcs::MbcsStream;
use super::options::OnUnmappable;
use smallvec::SmallVec;
use std::borrow::Cow;

/// A prepared decode → encode pair.
pub(crate) struct Via {
    pub from: Side,
    pub to: Side,
    from_ccsid: u16,
    to_ccsid: u16,
    on: OnUnmappable,
    /// The target lacks U+FFFD, so each decode substitution is substituted
    /// again by the encoder and already counted there: one place counts once.
    fffd_unmappable: bool,
}

/// What a conversion through text keeps between blocks: the CJK decoder's
/// held bytes (other sources are cut at character boundaries by the
/// caller), the shift states of mixed EBCDIC on either side, text not yet
/// encoded, and a reused text buffer.
pub(crate) struct ViaState {
    mbcs: Option<MbcsStream>,
    text: String,
    /// Mixed EBCDIC source: the next block starts inside an SO ... SI run.
    shift_in: bool,
    /// Mixed EBCDIC target: an SO was written and its SI not yet.
    shift_out: bool,
    carry: Carry,
}

/// Decoded text the target's encoder left for the next block, because the
/// text after it decides how it is written (mixed EBCDIC 1390/1399 write
/// some two-character texts as one double byte, longest match as ICU), and
/// the input bytes it came from (to name an error's offset).
#[derive(Default)]
struct Carry {
    /// Stream offset of `bytes`.
    start: usize,
    /// Input bytes from a character boundary to the end of what was decoded.
    bytes: SmallVec<[u8; 16]>,
    /// The source shift state at `start`.
    shifted: bool,
    /// The text of `bytes`.
    text: String,
    /// How many bytes at the start of `text` were already encoded: a
    /// character of the same source character as earlier text (none with
    /// the current tables; kept so that offsets stay right).
    done: usize,
}

impl Carry {
    fn clear(&mut self) {
        self.bytes.clear();
        self.text.clear();
        self.done = 0;
    }
}

impl ViaState {
    /// True when the next block of a mixed EBCDIC source starts inside a
    /// double-byte run.
    pub fn shifted_in(&self) -> bool {
        self.shift_in
    }
}

impl Via {
    /// Prepares `from` (CCSID `from_ccsid`) → `to` (CCSID `to_ccsid`).
    pub fn new(from: Side, to: Side, from_ccsid: u16, to_ccsid: u16, on: OnUnmappable) -> Via {
        let fffd_unmappable = to
            .encode_into("\u{FFFD}", to_ccsid, OnUnmappable::Fail, &mut Vec::new())
            .is_err();
        Via {
            from,
            to,
            from_ccsid,
            to_ccsid,
            on,
            fffd_unmappable,
        }
    }

    /// A fresh state for one stream (or one buffer).
    pub fn state(&self) -> ViaState {
        let mbcs = match &self.from {
            Side::Mbcs(e) => Some(MbcsStream::new(e, self.from_ccsid, self.on)),
            _ => None,
        };
        ViaState {
            mbcs,
            text: String::new(),
            shift_in: false,
            shift_out: false,
            carry: Carry::default(),
        }
    }

    /// Converts `block`, the input at stream offset `base`, appending to
    /// `out`; `last` when no input follows. Unless the source is a CJK set
    /// (whose decoder keeps its state), `block` must be whole: it ends at a
    /// character boundary (for mixed EBCDIC: not after the first byte of a
    /// pair) or at the end of the input. Returns the substitutions. On
    /// error (offset in the stream) `out` holds the conversion of every
    /// character before it, as converting the input up to there at once
    /// writes it (a double-byte run closed with SI).
    pub fn convert(
        &self,
        state: &mut ViaState,
        block: &[u8],
        base: usize,
        last: bool,
        out: &mut Vec<u8>,
    ) -> Result<usize, ConvertError> {
        let ViaState {
            mbcs,
            text,
            shift_in,
            shift_out,
            carry,
        } = state;
        text.clear();
        text.push_str(carry.text.get(carry.done..).unwrap_or_default());
        let carried = text.len();
        // Characters of the window (below) before `text`.
        let skip = carry
            .text
            .get(..carry.done)
            .unwrap_or_default()
            .chars()
            .count();
        let shift0 = *shift_in;
        // The bytes the decoded characters came from, and where they start
        // in the stream: the CJK decoder's held bytes are the start of the
        // first character of this block.
        let mut held: SmallVec<[u8; 4]> = SmallVec::new();
        let (decoded, valid) = match mbcs {
            Some(m) => {
                held.extend_from_slice(m.pending());
                (m.decode(block, base, last, text), block.len())
            }
            None => {
                let mut s = shift0;
                let r = self
                    .from
                    .decode_from(block, self.from_ccsid, self.on, &mut s, text)
                    .map_err(|e| e.shifted(base));
                // The characters before a decode error still go to the
                // encoder: one of them may be unmappable, and comes first.
                let valid = match r.as_ref().err().and_then(ConvertError::offset) {
                    Some(at) => {
                        let valid = at - base;
                        text.truncate(carried);
                        let _ = self.from.decode_from(
                            &block[..valid],
                            self.from_ccsid,
                            self.on,
                            &mut { shift0 },
                            text,
                        );
                        valid
                    }
                    None => {
                        *shift_in = s;
                        block.len()
                    }
                };
                (r, valid)
            }
        };
        let block = &block[..valid];
        let more = !last && decoded.is_ok();
        let mut so = *shift_out;
        match self
            .to
            .encode_from(text, self.to_ccsid, self.on, &mut so, more, out)
        {
            Ok((encoded, used)) => {
                *shift_out = so;
                let r = decoded.map(|d| {
                    if self.fffd_unmappable {
                        encoded
                    } else {
                        d + encoded
                    }
                });
                if used < text.len() {
                    // Keep the rest, with the bytes it came from.
                    let (window, start, wshift) = window(carry, &held, block, base, shift0);
                    let n = skip + text.get(..used).unwrap_or_default().chars().count();
                    let at = self.from.char_offset(&window, n, wshift);
                    let end = window.len() - mbcs.as_ref().map_or(0, |m| m.pending().len());
                    let shifted = self.from.shift_after(&window[..at], wshift);
                    let bytes = window.get(at..end).unwrap_or_default();
                    let mut t = String::new();
                    let _ = self.from.decode_from(
                        bytes,
                        self.from_ccsid,
                        self.on,
                        &mut { shifted },
                        &mut t,
                    );
                    let rest = text.get(used..).unwrap_or_default();
                    debug_assert!(t.ends_with(rest), "{t:?} does not end with {rest:?}");
                    *carry = if t.ends_with(rest) {
                        Carry {
                            start: start + at,
                            bytes: SmallVec::from_slice(bytes),
                            shifted,
                            done: t.len() - rest.len(),
                            text: t,
                        }
                    } else {
                        // Not expected: the text stays exact, an error
                        // right after it may be named a little off.
                        Carry {
                            text: rest.to_owned(),
                            ..Carry::default()
                        }
                    };
                } else {
                    carry.clear();
                }
                r
            }
            Err(ConvertError::Unmappable { ccsid, offset, ch }) => {
                // Where the character's bytes start.
                let (window, start, wshift) = window(carry, &held, block, base, shift0);
                let n = skip + text.get(..offset).unwrap_or_default().chars().count();
                let at = self.from.char_offset(&window, n, wshift);
                // Output up to the character's first byte (one sequence can
                // make two characters: both are left out), the run closed.
                text.clear();
                if self
                    .from
                    .decode_from(
                        &window[..at],
                        self.from_ccsid,
                        self.on,
                        &mut { wshift },
                        text,
                    )
                    .is_ok()
                {
                    let from = text.char_indices().nth(skip).map_or(text.len(), |(i, _)| i);
                    let mut so = *shift_out;
                    let _ = self.to.encode_from(
                        text.get(from..).unwrap_or_default(),
                        self.to_ccsid,
                        self.on,
                        &mut so,
                        false,
                        out,
                    );
                }
                Err(ConvertError::Unmappable {
                    ccsid,
                    offset: start + at,
                    ch,
                })
            }
            Err(e) => Err(e),
        }
    }
}

/// The input the text of one call came from, its stream offset and the
/// source shift state there: the carried bytes, the CJK decoder's held
/// bytes, then `block` (at stream offset `base`, in shift state `shift0`).
fn window<'a>(
    carry: &Carry,
    held: &[u8],
    block: &'a [u8],
    base: usize,
    shift0: bool,
) -> (Cow<'a, [u8]>, usize, bool) {
    if !carry.bytes.is_empty() {
        let w = [&carry.bytes[..], held, block].concat();
        (Cow::Owned(w), carry.start, carry.shifted)
    } else if !held.is_empty() {
        (
            Cow::Owned([held, block].concat()),
            base - held.len(),
            shift0,
        )
    } else {
        (Cow::Borrowed(block), base, shift0)
    }
}

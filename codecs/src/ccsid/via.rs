//! The text path of a conversion, decode to text and then encode, shared by
//! [`super::Converter`] (one buffer) and [`super::StreamConverter`] (block
//! by block): the first error in input order wins, whichever side finds it,
//! and an unmappable character is named at the input offset where its
//! bytes start.

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
/// held bytes (other sources are cut at character boundaries by the caller)
/// and a reused text buffer.
pub(crate) struct ViaState {
    mbcs: Option<MbcsStream>,
    text: String,
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
        }
    }

    /// Converts `block`, the input at stream offset `base`, appending to
    /// `out`; `last` when no input follows. Unless the source is a CJK set
    /// (whose decoder keeps its state), `block` must be whole: it ends at a
    /// character boundary or at the end of the input. Returns the
    /// substitutions. On error (offset in the stream) `out` holds the
    /// conversion of every character before it.
    pub fn convert(
        &self,
        state: &mut ViaState,
        block: &[u8],
        base: usize,
        last: bool,
        out: &mut Vec<u8>,
    ) -> Result<usize, ConvertError> {
        let ViaState { mbcs, text } = state;
        text.clear();
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
                let r = self
                    .from
                    .decode_into(block, self.from_ccsid, self.on, text)
                    .map_err(|e| e.shifted(base));
                // The characters before a decode error still go to the
                // encoder: one of them may be unmappable, and comes first.
                let valid = match r.as_ref().err().and_then(ConvertError::offset) {
                    Some(at) => {
                        let valid = at - base;
                        text.clear();
                        let _ =
                            self.from
                                .decode_into(&block[..valid], self.from_ccsid, self.on, text);
                        valid
                    }
                    None => block.len(),
                };
                (r, valid)
            }
        };
        match self.to.encode_into(text, self.to_ccsid, self.on, out) {
            Ok(encoded) => decoded.map(|d| {
                if self.fffd_unmappable {
                    encoded
                } else {
                    d + encoded
                }
            }),
            Err(ConvertError::Unmappable { ccsid, offset, ch }) => {
                // Where the character's bytes start: held bytes are the
                // start of this block's first character.
                let n = text.get(..offset).unwrap_or_default().chars().count();
                let (window, start) = if held.is_empty() {
                    (Cow::Borrowed(&block[..valid]), base)
                } else {
                    (Cow::Owned([&held[..], block].concat()), base - held.len())
                };
                let at = self.from.char_offset(&window, n);
                // Output up to the character's first byte (one sequence can
                // make two characters: both are left out).
                text.clear();
                if self
                    .from
                    .decode_into(&window[..at], self.from_ccsid, self.on, text)
                    .is_ok()
                {
                    let _ = self.to.encode_into(text, self.to_ccsid, self.on, out);
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

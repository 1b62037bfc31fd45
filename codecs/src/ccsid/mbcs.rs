//! ASCII-based CJK multi-byte sets through `encoding_rs` (docs/ccsid.md).

use super::error::ConvertError;
use super::options::OnUnmappable;
use encoding_rs::{DecoderResult, EncoderResult, Encoding};
use smallvec::SmallVec;

/// What mqgate writes for a character a CJK set lacks (encoding_rs has no
/// IBM substitution character; documented in docs/ccsid.md).
pub(crate) const SUBSTITUTION: u8 = b'?';

/// Decodes without BOM sniffing; malformed sequences fail or become U+FFFD.
pub(crate) fn decode(
    input: &[u8],
    enc: &'static Encoding,
    ccsid: u16,
    on: OnUnmappable,
) -> Result<(String, usize), ConvertError> {
    let mut decoder = enc.new_decoder_without_bom_handling();
    let cap = decoder
        .max_utf8_buffer_length_without_replacement(input.len())
        .unwrap_or(input.len() * 3);
    let mut text = String::with_capacity(cap);
    let mut substitutions = 0;
    let mut pos = 0;
    loop {
        let (result, read) =
            decoder.decode_to_string_without_replacement(&input[pos..], &mut text, true);
        pos += read;
        match result {
            DecoderResult::InputEmpty => return Ok((text, substitutions)),
            DecoderResult::OutputFull => {
                text.reserve(input.len() - pos + 16);
            }
            DecoderResult::Malformed(bad, extra) => {
                let offset = pos - usize::from(extra) - usize::from(bad);
                if on == OnUnmappable::Fail {
                    return Err(ConvertError::Invalid {
                        ccsid,
                        offset,
                        byte: input[offset],
                    });
                }
                text.push(char::REPLACEMENT_CHARACTER);
                substitutions += 1;
            }
        }
    }
}

/// Encodes `text`; error offsets are byte offsets in `text`.
pub(crate) fn encode(
    text: &str,
    enc: &'static Encoding,
    ccsid: u16,
    on: OnUnmappable,
) -> Result<(Vec<u8>, usize), ConvertError> {
    let mut encoder = enc.new_encoder();
    let mut out = Vec::with_capacity(text.len() + 16);
    let mut substitutions = 0;
    let mut pos = 0;
    loop {
        let need = encoder
            .max_buffer_length_from_utf8_without_replacement(text.len() - pos)
            .unwrap_or(text.len() * 4);
        out.reserve(need);
        let (result, read) =
            encoder.encode_from_utf8_to_vec_without_replacement(&text[pos..], &mut out, true);
        pos += read;
        match result {
            EncoderResult::InputEmpty => return Ok((out, substitutions)),
            EncoderResult::OutputFull => {}
            EncoderResult::Unmappable(ch) => {
                if on == OnUnmappable::Fail {
                    return Err(ConvertError::Unmappable {
                        ccsid,
                        offset: pos - ch.len_utf8(),
                        ch,
                    });
                }
                out.push(SUBSTITUTION);
                substitutions += 1;
            }
        }
    }
}

/// The longest incomplete sequence a CJK decoder can hold between two
/// blocks: GB18030's four-byte form leaves three (WHATWG Encoding Standard,
/// "gb18030 decoder"); the other sets leave at most two.
const MAX_PENDING: usize = 3;

/// A CJK decoder over a stream of blocks: a double-byte (or GB18030
/// four-byte) character split between two blocks decodes as if the input
/// were whole, and errors name offsets in the whole stream.
pub(crate) struct MbcsStream {
    decoder: encoding_rs::Decoder,
    ccsid: u16,
    on: OnUnmappable,
    /// The bytes the decoder holds: an incomplete sequence at the end of the
    /// input so far (at most [`MAX_PENDING`]), starting at a character
    /// boundary. Kept to name an error's byte and to find where a character
    /// starts when it has no mapping in the target.
    pending: SmallVec<[u8; 4]>,
}

/// The bytes around one decoder call: the pending bytes, then the block.
struct Window<'a> {
    start: usize,
    pending: &'a [u8],
    block: &'a [u8],
}

impl Window<'_> {
    /// The byte at stream offset `offset` (0 if it is outside the window,
    /// which a correct decoder never reports).
    fn byte_at(&self, offset: usize) -> u8 {
        let i = offset.saturating_sub(self.start);
        match i.checked_sub(self.pending.len()) {
            None => self.pending[i],
            Some(j) => self.block.get(j).copied().unwrap_or(0),
        }
    }
}

impl MbcsStream {
    /// A decoder for `enc` (no BOM sniffing, like [`decode`]); `ccsid` is
    /// named in errors.
    pub fn new(enc: &'static Encoding, ccsid: u16, on: OnUnmappable) -> MbcsStream {
        MbcsStream {
            decoder: enc.new_decoder_without_bom_handling(),
            ccsid,
            on,
            pending: SmallVec::new(),
        }
    }

    /// The bytes of the incomplete sequence held from earlier blocks; they
    /// end where the next block starts.
    pub fn pending(&self) -> &[u8] {
        &self.pending
    }

    /// Decodes `block`, the bytes at stream offset `base`, appending to
    /// `text`; `last` when no input follows (an incomplete sequence at the
    /// end is then malformed). Returns the substitutions; on
    /// [`ConvertError::Invalid`] (offset in the stream) `text` holds the
    /// characters before the malformed sequence.
    pub fn decode(
        &mut self,
        block: &[u8],
        base: usize,
        last: bool,
        text: &mut String,
    ) -> Result<usize, ConvertError> {
        let before = self.pending.clone();
        let window = Window {
            start: base.saturating_sub(before.len()),
            pending: &before,
            block,
        };
        // The bulk of the block in one call; its last bytes one at a time so
        // that the bytes left pending are known (a byte that yields no
        // character joins the pending sequence, one that yields some ends it).
        let split = if last {
            block.len()
        } else {
            block.len().saturating_sub(MAX_PENDING + 1)
        };
        let mut subs = self.run(&block[..split], base, last, &window, text)?;
        if split > 0 {
            self.pending.clear();
        }
        for (k, b) in block.iter().enumerate().skip(split) {
            let len = text.len();
            subs += self.run(std::slice::from_ref(b), base + k, false, &window, text)?;
            if text.len() > len {
                self.pending.clear();
            } else {
                self.pending.push(*b);
            }
        }
        if last {
            self.pending.clear();
        }
        Ok(subs)
    }

    /// One decoder call over `input` (at stream offset `base`).
    fn run(
        &mut self,
        input: &[u8],
        base: usize,
        last: bool,
        window: &Window<'_>,
        text: &mut String,
    ) -> Result<usize, ConvertError> {
        // encoding_rs 0.8 drops a held lead byte when it is given empty
        // input that is not the last (seen with Shift_JIS).
        if input.is_empty() && !last {
            return Ok(0);
        }
        let mut subs = 0;
        let mut pos = 0;
        loop {
            let need = self
                .decoder
                .max_utf8_buffer_length_without_replacement(input.len() - pos)
                .unwrap_or(input.len() * 3 + 16);
            text.reserve(need);
            let (result, read) =
                self.decoder
                    .decode_to_string_without_replacement(&input[pos..], text, last);
            pos += read;
            match result {
                DecoderResult::InputEmpty => return Ok(subs),
                DecoderResult::OutputFull => {}
                DecoderResult::Malformed(bad, extra) => {
                    // The malformed bytes may have come in an earlier block.
                    let offset = (base + pos).saturating_sub(usize::from(extra) + usize::from(bad));
                    if self.on == OnUnmappable::Fail {
                        return Err(ConvertError::Invalid {
                            ccsid: self.ccsid,
                            offset,
                            byte: window.byte_at(offset),
                        });
                    }
                    text.push(char::REPLACEMENT_CHARACTER);
                    subs += 1;
                }
            }
        }
    }
}

//! ASCII-based CJK multi-byte sets through `encoding_rs` (spec: ccsid.md §1).

use super::error::ConvertError;
use super::options::OnUnmappable;
use encoding_rs::{DecoderResult, EncoderResult, Encoding};

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

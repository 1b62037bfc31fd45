//! UTF-8 (CCSID 1208) and UTF-16 (1200, 13488, 17584) in either byte order.

use super::error::ConvertError;
use super::options::OnUnmappable;

/// Checks UTF-8 input; malformed sequences fail or become U+FFFD.
pub(crate) fn decode_utf8(
    input: &[u8],
    ccsid: u16,
    on: OnUnmappable,
) -> Result<(String, usize), ConvertError> {
    match std::str::from_utf8(input) {
        Ok(s) => Ok((s.to_owned(), 0)),
        Err(e) if on == OnUnmappable::Fail => {
            let offset = e.valid_up_to();
            Err(ConvertError::Invalid {
                ccsid,
                offset,
                byte: input[offset],
            })
        }
        Err(_) => {
            let mut text = String::with_capacity(input.len());
            let mut substitutions = 0;
            for chunk in input.utf8_chunks() {
                text.push_str(chunk.valid());
                if !chunk.invalid().is_empty() {
                    text.push(char::REPLACEMENT_CHARACTER);
                    substitutions += 1;
                }
            }
            Ok((text, substitutions))
        }
    }
}

/// Decodes UTF-16; unpaired surrogates and an odd final byte fail or become U+FFFD.
pub(crate) fn decode_utf16(
    input: &[u8],
    little: bool,
    ccsid: u16,
    on: OnUnmappable,
) -> Result<(String, usize), ConvertError> {
    let unit = |i: usize| {
        let b = [input[i], input[i + 1]];
        if little {
            u16::from_le_bytes(b)
        } else {
            u16::from_be_bytes(b)
        }
    };
    let mut text = String::with_capacity(input.len());
    let mut substitutions = 0;
    let mut i = 0;
    while i < input.len() {
        let bad = |i: usize, substitutions: &mut usize, text: &mut String| {
            if on == OnUnmappable::Fail {
                Err(if i + 1 >= input.len() {
                    ConvertError::Truncated { ccsid, offset: i }
                } else {
                    ConvertError::UnpairedSurrogate {
                        ccsid,
                        offset: i,
                        unit: unit(i),
                    }
                })
            } else {
                *substitutions += 1;
                text.push(char::REPLACEMENT_CHARACTER);
                Ok(())
            }
        };
        if i + 1 >= input.len() {
            bad(i, &mut substitutions, &mut text)?;
            break;
        }
        let u = unit(i);
        match u {
            0xD800..=0xDBFF if i + 3 < input.len() && (0xDC00..=0xDFFF).contains(&unit(i + 2)) => {
                let lo = unit(i + 2);
                let c = 0x10000 + ((u32::from(u) - 0xD800) << 10) + (u32::from(lo) - 0xDC00);
                text.push(char::from_u32(c).unwrap_or(char::REPLACEMENT_CHARACTER));
                i += 4;
            }
            0xD800..=0xDFFF => {
                bad(i, &mut substitutions, &mut text)?;
                i += 2;
            }
            _ => {
                text.push(char::from_u32(u32::from(u)).unwrap_or(char::REPLACEMENT_CHARACTER));
                i += 2;
            }
        }
    }
    Ok((text, substitutions))
}

/// Encodes `text` as UTF-16 in the given byte order (every scalar maps).
pub(crate) fn encode_utf16(text: &str, little: bool) -> Vec<u8> {
    let mut out = Vec::with_capacity(text.len() * 2);
    for u in text.encode_utf16() {
        out.extend_from_slice(&if little {
            u.to_le_bytes()
        } else {
            u.to_be_bytes()
        });
    }
    out
}

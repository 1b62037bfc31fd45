//! Whole segments: the framing check a reader runs on the first 8 bytes
//! before it buffers a segment ([`segment_len`]), a parsed segment that
//! borrows its body ([`Segment`], [`parse_segment`]) and writing one with
//! its SegmentLength filled in ([`write_segment`]).

use super::error::{FapError, FapErrorKind, FapStructure};
use super::tsh::{Tsh, parse_tsh, peek_header, write_tsh};

/// The length of the segment that starts `buf`, once its first 8 bytes are
/// there: `Ok(None)` while fewer than 8 bytes are buffered, else
/// `Ok(Some(n))` with `header <= n <= max` (bytes). A reader calls this
/// before buffering the rest, so no allocation follows an unchecked length.
///
/// Errors: an unknown StrucId; a SegmentLength shorter than its header or
/// longer than `max` (the negotiated maximum transmission size),
/// [`FapErrorKind::SegmentLength`] at offset 4.
pub fn segment_len(buf: &[u8], max: usize) -> Result<Option<usize>, FapError> {
    if buf.len() < 8 {
        return Ok(None);
    }
    let (kind, _, length) = peek_header(buf)?;
    let n = length as usize;
    if n < kind.header_len() || n > max {
        return Err(FapError::new(
            FapStructure::Tsh,
            4,
            "SegmentLength",
            FapErrorKind::SegmentLength {
                length,
                min: kind.header_len(),
                max,
            },
        ));
    }
    Ok(Some(n))
}

/// One segment: its header and the bytes after it, borrowed.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Segment<'a> {
    pub tsh: Tsh,
    /// SegmentLength minus the header.
    pub body: &'a [u8],
}

/// Parses the segment at the start of `input`; `input` may hold more (the
/// next segments). Errors: as [`super::parse_tsh`]; a SegmentLength shorter
/// than the header or longer than `input` (truncated segment).
pub fn parse_segment(input: &[u8]) -> Result<Segment<'_>, FapError> {
    let tsh = parse_tsh(input)?;
    let n = tsh.segment_length as usize;
    if n < tsh.header_len() {
        return Err(FapError::new(
            FapStructure::Tsh,
            4,
            "SegmentLength",
            FapErrorKind::SegmentLength {
                length: tsh.segment_length,
                min: tsh.header_len(),
                max: usize::MAX,
            },
        ));
    }
    if n > input.len() {
        return Err(FapError::new(
            FapStructure::Segment,
            input.len(),
            "body",
            FapErrorKind::Truncated {
                needed: n,
                available: input.len(),
            },
        ));
    }
    Ok(Segment {
        body: &input[tsh.header_len()..n],
        tsh,
    })
}

/// Appends a segment of header `tsh` and `body` to `out`, SegmentLength set
/// to the header's length plus `body.len()` (bytes).
///
/// # Panics
/// Never for bodies a segment can carry; a body over 4 GiB - 36 cannot be
/// described by SegmentLength and is cut to what it can describe.
pub fn write_segment(tsh: &Tsh, body: &[u8], out: &mut Vec<u8>) {
    let mut t = tsh.clone();
    let max_body = u32::MAX as usize - t.header_len();
    let body = &body[..body.len().min(max_body)];
    t.segment_length = (t.header_len() + body.len()) as u32;
    write_tsh(&t, out);
    out.extend_from_slice(body);
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::fap::tsh::{SegmentType, TshKind};

    #[test]
    fn length_is_checked_from_eight_bytes() {
        let mut t = Tsh::new(TshKind::Tshm, SegmentType::MQDISC);
        t.conversation_id = 1;
        let mut b = Vec::new();
        write_segment(&t, &[0u8; 16], &mut b);
        assert_eq!(b.len(), 52);
        assert_eq!(segment_len(&b[..7], 100).unwrap(), None);
        assert_eq!(segment_len(&b[..8], 100).unwrap(), Some(52));
        let e = segment_len(&b, 40).unwrap_err();
        assert_eq!(
            e.kind,
            FapErrorKind::SegmentLength {
                length: 52,
                min: 36,
                max: 40
            }
        );
        let s = parse_segment(&b).unwrap();
        assert_eq!(
            (s.tsh.segment_type, s.body.len()),
            (SegmentType::MQDISC, 16)
        );
        let e = parse_segment(&b[..50]).unwrap_err();
        assert_eq!(e.structure, FapStructure::Segment);
        b[4..8].copy_from_slice(&20u32.to_be_bytes());
        assert!(matches!(
            segment_len(&b, 100).unwrap_err().kind,
            FapErrorKind::SegmentLength { length: 20, .. }
        ));
        assert!(parse_segment(&b).is_err());
    }
}

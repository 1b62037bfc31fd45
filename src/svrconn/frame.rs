//! Cutting a socket's byte stream into segments (a tokio-util decoder): the
//! SegmentLength of each segment is read from its first 8 bytes and checked
//! against the maximum transmission size before the rest is buffered.

use bytes::{Bytes, BytesMut};
use mqgate_codecs::fap::{FapError, segment_len};
use tokio_util::codec::Decoder;

/// Segments of at most `max` bytes.
pub struct Segments {
    /// Bytes; the negotiated maximum transmission size once agreed.
    pub max: usize,
}

/// Why the stream of segments ended.
#[derive(Debug)]
pub enum FrameError {
    /// The connection failed.
    Io(std::io::Error),
    /// A header that cannot be read, or a segment over the maximum.
    Segment(FapError),
}

impl From<std::io::Error> for FrameError {
    fn from(e: std::io::Error) -> Self {
        FrameError::Io(e)
    }
}

impl Decoder for Segments {
    type Item = Bytes;
    type Error = FrameError;

    fn decode(&mut self, src: &mut BytesMut) -> Result<Option<Bytes>, FrameError> {
        match segment_len(src, self.max) {
            Ok(Some(n)) if src.len() >= n => Ok(Some(src.split_to(n).freeze())),
            Ok(Some(n)) => {
                src.reserve(n - src.len());
                Ok(None)
            }
            Ok(None) => Ok(None),
            Err(e) => Err(FrameError::Segment(e)),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use mqgate_codecs::fap::{FapErrorKind, SegmentType, Tsh, TshKind, write_segment};

    #[test]
    fn segments_are_cut_and_oversize_ones_refused_from_the_header() {
        let mut b = Vec::new();
        write_segment(
            &Tsh::new(TshKind::Tshm, SegmentType::MQDISC),
            &[0; 16],
            &mut b,
        );
        let mut buf = BytesMut::from(&b[..30]);
        let mut d = Segments { max: 100 };
        assert!(d.decode(&mut buf).unwrap().is_none());
        buf.extend_from_slice(&b[30..]);
        assert_eq!(d.decode(&mut buf).unwrap().unwrap().len(), 52);
        let mut d = Segments { max: 40 };
        let mut buf = BytesMut::from(&b[..8]);
        match d.decode(&mut buf) {
            Err(FrameError::Segment(e)) => assert!(matches!(
                e.kind,
                FapErrorKind::SegmentLength { length: 52, .. }
            )),
            other => panic!("{other:?}"),
        }
    }
}

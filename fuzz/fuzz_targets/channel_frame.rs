//! Fuzz the channel frame codec (src/channel/frame.rs; docs/channel-protocol.md
//! "Frames"): the bytes a sender channel sends to the listener.
//!
//! The service keeps `channel` private, so the codec's source file is
//! compiled into this target as it stands (`#[path]`); its one reference into
//! the service, `crate::config::ChannelLimits`, is the service's own type
//! re-exported below.
//!
//! The first byte picks the codec's maximum frame length (the handshake's
//! 4096 bytes, or an agreed message length up to 64 KiB), the second how the
//! stream is cut into reads. A finding is a panic or a broken invariant:
//!
//! - the stream read in pieces gives the frames and the error of the stream
//!   read at once;
//! - each frame encodes back to exactly the bytes it was read from;
//! - an oversize length is refused with that length and the maximum; a
//!   malformed frame names an offset inside its payload (or its end, for a
//!   payload that ends early); each maps to its MQRC reason (2218, 2142;
//!   2009 for a stream that ends inside a frame).
#![no_main]

use bytes::BytesMut;
use libfuzzer_sys::fuzz_target;
use tokio_util::codec::{Decoder, Encoder};

#[allow(dead_code)]
#[path = "../../src/channel/frame.rs"]
mod frame;

mod config {
    pub use mqgate::config::ChannelLimits;
}

use frame::{Frame, FrameCodec, FrameError, HANDSHAKE_MAX_FRAME};

/// Frames read and the error that ended the stream, if any.
type Outcome = (Vec<Frame>, Option<String>);

fn codec(max: usize) -> FrameCodec {
    let mut c = FrameCodec::default();
    c.set_max_frame(max);
    c
}

/// Checks an error against the frame whose header starts `at` in `stream`.
fn check_error(e: &FrameError, stream: &[u8], at: usize, max: usize) {
    let header = stream
        .get(at..at + 4)
        .map(|h| u32::from_be_bytes([h[0], h[1], h[2], h[3]]));
    match e {
        FrameError::Oversize { length, max: m } => {
            assert_eq!((Some(*length as u32), *m), (header, max), "{e}");
            assert!(*length > max);
            assert_eq!(e.mqrc().0, 2218);
        }
        FrameError::Malformed { offset, .. } => {
            let payload = header.map_or(0, |l| (l as usize).saturating_sub(1));
            assert!(*offset <= payload, "{e}: payload of {payload} bytes");
            assert_eq!(e.mqrc().0, 2142);
        }
        FrameError::Io(_) => {
            assert!(stream.len() - at < 4 + header.map_or(0, |l| l as usize));
            assert_eq!(e.mqrc().0, 2009);
        }
    }
}

/// Reads `stream` in pieces of `piece` bytes (all at once for 0), checking
/// each frame's re-encoding and each error.
fn read(stream: &[u8], piece: usize, max: usize) -> Outcome {
    let mut c = codec(max);
    let mut buf = BytesMut::new();
    let mut frames = Vec::new();
    // Stream offset of buf[0].
    let mut at = 0;
    let pieces: Vec<&[u8]> = if piece == 0 {
        vec![stream]
    } else {
        stream.chunks(piece).collect()
    };
    let n = pieces.len();
    for (i, p) in pieces.into_iter().enumerate() {
        buf.extend_from_slice(p);
        loop {
            let before = buf.len();
            let r = if i + 1 == n {
                c.decode_eof(&mut buf)
            } else {
                c.decode(&mut buf)
            };
            match r {
                Ok(Some(f)) => {
                    let used = before - buf.len();
                    let mut out = BytesMut::new();
                    codec(max)
                        .encode(f.clone(), &mut out)
                        .expect("a frame read encodes");
                    assert!(
                        out[..] == stream[at..at + used],
                        "{} frame does not encode to the bytes it was read from",
                        f.name()
                    );
                    at += used;
                    frames.push(f);
                }
                Ok(None) => break,
                Err(e) => {
                    check_error(&e, stream, at, max);
                    return (frames, Some(e.to_string()));
                }
            }
        }
    }
    if n == 0 {
        assert!(
            c.decode_eof(&mut buf)
                .expect("no bytes, no error")
                .is_none()
        );
    }
    assert!(buf.is_empty(), "bytes left after the end of the stream");
    (frames, None)
}

fuzz_target!(|data: &[u8]| {
    let [m, p, stream @ ..] = data else {
        return;
    };
    let max = match m % 4 {
        0 => HANDSHAKE_MAX_FRAME,
        1 => 64,
        2 => usize::from(*m) * 256,
        _ => 1 << 16,
    };
    let whole = read(stream, 0, max);
    let piece = usize::from(*p % 64) + 1;
    let pieces = read(stream, piece, max);
    assert_eq!(whole, pieces, "reads of {piece} bytes differ from one read");
});

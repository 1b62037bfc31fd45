//! Length-prefixed frames, as message channels (src/channel/frame.rs,
//! docs/channel-protocol.md "Frames") and Rendezvous routing links
//! (src/rv/route/frame.rs) send them: a 4-byte big-endian length `L`, then
//! `L` bytes: one type byte and the payload. `L` is checked against the
//! maximum before anything is buffered for it, so an oversize length closes
//! the connection without allocating. Integers in payloads are big-endian;
//! strings are a 2-byte length and UTF-8 text.

use bytes::{Buf, BufMut, Bytes, BytesMut};
use mqgate_codecs::mq::Mqrc;
use std::fmt;

/// Why a byte stream is not a valid frame sequence, or the connection failed.
#[derive(Debug)]
pub enum FrameError {
    /// The length field exceeds the agreed maximum (2218 MQRC_MSG_TOO_BIG_FOR_CHANNEL).
    Oversize { length: usize, max: usize },
    /// A frame's content is malformed: which frame, at which byte offset of
    /// its payload, and what (2142 MQRC_HEADER_ERROR).
    Malformed {
        frame: &'static str,
        offset: usize,
        what: String,
    },
    /// The connection failed or ended inside a frame (2009 MQRC_CONNECTION_BROKEN).
    Io(std::io::Error),
}

impl FrameError {
    /// The MQRC reason sent in the CLOSE frame.
    pub fn mqrc(&self) -> Mqrc {
        match self {
            FrameError::Oversize { .. } => Mqrc::MSG_TOO_BIG_FOR_CHANNEL,
            FrameError::Malformed { .. } => Mqrc::HEADER_ERROR,
            FrameError::Io(_) => Mqrc::CONNECTION_BROKEN,
        }
    }
}

impl fmt::Display for FrameError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            FrameError::Oversize { length, max } => write!(
                f,
                "frame length {length} exceeds the maximum of {max} bytes (length field at offset 0)"
            ),
            FrameError::Malformed {
                frame,
                offset,
                what,
            } => write!(f, "{frame} frame, payload offset {offset}: {what}"),
            FrameError::Io(e) => write!(f, "connection: {e}"),
        }
    }
}

impl std::error::Error for FrameError {}

impl From<std::io::Error> for FrameError {
    fn from(e: std::io::Error) -> Self {
        FrameError::Io(e)
    }
}

/// Reads a frame's payload field by field; its errors name the frame and
/// the payload offset of the field at fault (routing links reuse it for
/// their own frames, src/rv/route/frame.rs).
pub(crate) struct Reader<'a> {
    pub(crate) frame: &'static str,
    pub(crate) buf: &'a [u8],
    pub(crate) pos: usize,
}

impl<'a> Reader<'a> {
    /// A reader of `buf`, the payload of a frame named `frame`.
    pub(crate) fn new(frame: &'static str, buf: &'a [u8]) -> Reader<'a> {
        Reader { frame, buf, pos: 0 }
    }
    pub(crate) fn bad(&self, what: impl Into<String>) -> FrameError {
        FrameError::Malformed {
            frame: self.frame,
            offset: self.pos,
            what: what.into(),
        }
    }
    pub(crate) fn take(&mut self, n: usize, what: &str) -> Result<&'a [u8], FrameError> {
        if self.buf.len() - self.pos < n {
            return Err(self.bad(format!(
                "{what} needs {n} bytes, {} left",
                self.buf.len() - self.pos
            )));
        }
        let s = &self.buf[self.pos..self.pos + n];
        self.pos += n;
        Ok(s)
    }
    pub(crate) fn u16(&mut self, what: &str) -> Result<u16, FrameError> {
        let b = self.take(2, what)?;
        Ok(u16::from_be_bytes([b[0], b[1]]))
    }
    pub(crate) fn u32(&mut self, what: &str) -> Result<u32, FrameError> {
        let b = self.take(4, what)?;
        Ok(u32::from_be_bytes([b[0], b[1], b[2], b[3]]))
    }
    pub(crate) fn u64(&mut self, what: &str) -> Result<u64, FrameError> {
        let mut a = [0u8; 8];
        a.copy_from_slice(self.take(8, what)?);
        Ok(u64::from_be_bytes(a))
    }
    pub(crate) fn string(&mut self, what: &str, max: usize) -> Result<String, FrameError> {
        let at = self.pos;
        let n = self.u16(what)? as usize;
        if n > max {
            self.pos = at;
            return Err(self.bad(format!("{what} is {n} bytes long, at most {max} allowed")));
        }
        let b = self.take(n, what)?;
        String::from_utf8(b.to_vec()).map_err(|_| {
            let e = self.bad(format!("{what} is not UTF-8"));
            self.pos = at;
            e
        })
    }
    pub(crate) fn end(&self) -> Result<(), FrameError> {
        if self.pos != self.buf.len() {
            return Err(self.bad(format!(
                "{} unexpected bytes after the payload",
                self.buf.len() - self.pos
            )));
        }
        Ok(())
    }
}

/// Takes the next whole frame off `src`: its type byte and payload, or
/// `None` until all of it has arrived. The length is checked against
/// `max_frame` before anything is buffered for it (the framing routing
/// links share, src/rv/route/frame.rs).
///
/// Errors: [`FrameError::Oversize`], [`FrameError::Malformed`] for a
/// length of 0.
pub(crate) fn split_frame(
    src: &mut BytesMut,
    max_frame: usize,
) -> Result<Option<(u8, Bytes)>, FrameError> {
    if src.len() < 4 {
        return Ok(None);
    }
    let length = u32::from_be_bytes([src[0], src[1], src[2], src[3]]) as usize;
    if length > max_frame {
        return Err(FrameError::Oversize {
            length,
            max: max_frame,
        });
    }
    if length == 0 {
        return Err(FrameError::Malformed {
            frame: "empty",
            offset: 0,
            what: "frame length 0 (no type byte)".into(),
        });
    }
    if src.len() < 4 + length {
        src.reserve(4 + length - src.len());
        return Ok(None);
    }
    src.advance(4);
    let kind_byte = src.get_u8();
    Ok(Some((kind_byte, src.split_to(length - 1).freeze())))
}

/// At the end of the stream: `Ok` when nothing is left in `src`, else the
/// error of a connection that ended inside a frame.
pub(crate) fn end_of_stream(src: &BytesMut) -> Result<(), FrameError> {
    if src.is_empty() {
        return Ok(());
    }
    Err(FrameError::Io(std::io::Error::new(
        std::io::ErrorKind::UnexpectedEof,
        format!(
            "the connection ended inside a frame ({} bytes of it received)",
            src.len()
        ),
    )))
}

/// Starts a frame in `dst`: its length placeholder and type byte; returns
/// where it starts, for [`finish_frame`].
pub(crate) fn start_frame(dst: &mut BytesMut, kind_byte: u8) -> usize {
    let start = dst.len();
    dst.put_u32(0);
    dst.put_u8(kind_byte);
    start
}

/// Ends the frame that [`start_frame`] began at `start`: writes its length.
pub(crate) fn finish_frame(dst: &mut BytesMut, start: usize) {
    let len = (dst.len() - start - 4) as u32;
    dst[start..start + 4].copy_from_slice(&len.to_be_bytes());
}

/// Writes `s` as a frame string: a 2-byte length and the UTF-8 bytes (cut
/// at 65535 bytes; callers keep their strings within their own limits).
pub(crate) fn put_string(out: &mut BytesMut, s: &str) {
    let b = s.as_bytes();
    let n = b.len().min(u16::MAX as usize);
    out.put_u16(n as u16);
    out.put_slice(&b[..n]);
}

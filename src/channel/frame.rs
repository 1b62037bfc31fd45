//! Channel frames and their codec (docs/channel-protocol.md "Frames").
//!
//! A frame is a 4-byte big-endian length `L`, then `L` bytes: one type byte
//! and the payload. `L` is checked against the codec's maximum before anything
//! is buffered for it, so an oversize length closes the channel without
//! allocating. Integers in payloads are big-endian; strings are a 2-byte length
//! and UTF-8 text.

use crate::config::ChannelLimits;
use bytes::{Buf, BufMut, Bytes, BytesMut};
use mqgate_codecs::mq::Mqrc;
use std::fmt;
use tokio_util::codec::{Decoder, Encoder};

/// Protocol version this implementation speaks (docs/channel-protocol.md).
pub const PROTOCOL_VERSION: u16 = 1;
/// Largest frame accepted before the handshake agreed a message length, in bytes.
pub const HANDSHAKE_MAX_FRAME: usize = 4096;
/// Bytes of a MESSAGE frame besides the transmission message (type + flags).
pub const MESSAGE_OVERHEAD: usize = 2;
/// MESSAGE flag: sent outside any batch (non-persistent fast path).
pub const FLAG_FAST: u8 = 0x01;

/// Frame type bytes.
pub mod kind {
    pub const HELLO: u8 = 0x01;
    pub const HELLO_ACK: u8 = 0x02;
    pub const MESSAGE: u8 = 0x03;
    pub const END_BATCH: u8 = 0x04;
    pub const CONFIRM: u8 = 0x05;
    pub const HEARTBEAT: u8 = 0x06;
    pub const CLOSE: u8 = 0x07;
}

/// The sender's opening frame.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Hello {
    /// Highest protocol version the sender speaks.
    pub version: u16,
    /// Channel name (MQ CHANNEL, 20 characters at most).
    pub channel: String,
    /// The sending queue manager's name (may be empty for a command-line sender).
    pub sending_q_mgr: String,
    /// The queue manager the sender expects to reach; empty = any.
    pub receiving_q_mgr: String,
    /// Offered batch size, message length (bytes) and heartbeat (ms).
    pub limits: ChannelLimits,
    /// The last batch sequence number the sender saw confirmed (0 = none).
    pub last_confirmed_seq: u64,
}

/// The receiver's answer: the agreed values and its last committed batch.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct HelloAck {
    /// The agreed protocol version (the lower of both sides').
    pub version: u16,
    /// The receiving queue manager's name.
    pub receiving_q_mgr: String,
    /// The agreed batch size, message length (bytes) and heartbeat (ms).
    pub limits: ChannelLimits,
    /// Sequence number of the last batch the receiver committed on this
    /// channel (0 = none); the next batch must carry this + 1.
    pub last_committed_seq: u64,
}

/// One frame.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Frame {
    Hello(Hello),
    HelloAck(HelloAck),
    /// One transmission message (MQXQH + data), byte for byte.
    Message {
        flags: u8,
        data: Bytes,
    },
    /// The batch of the preceding MESSAGE frames ends; `count` messages.
    EndBatch {
        seq: u64,
        count: u32,
    },
    /// The receiver committed batch `seq`.
    Confirm {
        seq: u64,
    },
    Heartbeat,
    /// Orderly or error close: an MQRC reason (0 = normal) and text.
    Close {
        reason: i32,
        text: String,
    },
}

impl Frame {
    /// A short name for logs and errors.
    pub fn name(&self) -> &'static str {
        match self {
            Frame::Hello(_) => "HELLO",
            Frame::HelloAck(_) => "HELLO_ACK",
            Frame::Message { .. } => "MESSAGE",
            Frame::EndBatch { .. } => "END_BATCH",
            Frame::Confirm { .. } => "CONFIRM",
            Frame::Heartbeat => "HEARTBEAT",
            Frame::Close { .. } => "CLOSE",
        }
    }
}

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

/// The frame codec. The maximum frame length starts at
/// [`HANDSHAKE_MAX_FRAME`] and is raised to the agreed message length after
/// the handshake.
#[derive(Clone, Debug)]
pub struct FrameCodec {
    max_frame: usize,
}

impl Default for FrameCodec {
    fn default() -> Self {
        FrameCodec {
            max_frame: HANDSHAKE_MAX_FRAME,
        }
    }
}

impl FrameCodec {
    /// Sets the largest frame length accepted, in bytes (type byte included).
    pub fn set_max_frame(&mut self, max: usize) {
        self.max_frame = max;
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
    /// Batch size, max message length and heartbeat interval, in that order
    /// (HELLO and HELLO_ACK).
    fn limits(&mut self) -> Result<ChannelLimits, FrameError> {
        Ok(ChannelLimits {
            batch_size: self.u32("batch size")?,
            max_msg_length: self.u32("max message length")?,
            heartbeat_ms: self.u32("heartbeat interval")?,
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

/// Longest text in a CLOSE frame, in bytes.
pub const MAX_TEXT: usize = 1024;

fn parse_payload(kind_byte: u8, payload: Bytes) -> Result<Frame, FrameError> {
    let name = match kind_byte {
        kind::HELLO => "HELLO",
        kind::HELLO_ACK => "HELLO_ACK",
        kind::MESSAGE => "MESSAGE",
        kind::END_BATCH => "END_BATCH",
        kind::CONFIRM => "CONFIRM",
        kind::HEARTBEAT => "HEARTBEAT",
        kind::CLOSE => "CLOSE",
        other => {
            return Err(FrameError::Malformed {
                frame: "unknown",
                offset: 0,
                what: format!("unknown frame type 0x{other:02X}"),
            });
        }
    };
    let mut r = Reader::new(name, &payload);
    let frame = match kind_byte {
        kind::HELLO => {
            let version = r.u16("version")?;
            let limits = r.limits()?;
            let last_confirmed_seq = r.u64("last confirmed sequence number")?;
            let channel = r.string("channel name", 20)?;
            let sending_q_mgr = r.string("sending queue manager name", 48)?;
            let receiving_q_mgr = r.string("receiving queue manager name", 48)?;
            Frame::Hello(Hello {
                version,
                channel,
                sending_q_mgr,
                receiving_q_mgr,
                limits,
                last_confirmed_seq,
            })
        }
        kind::HELLO_ACK => {
            let version = r.u16("version")?;
            let limits = r.limits()?;
            let last_committed_seq = r.u64("last committed sequence number")?;
            let receiving_q_mgr = r.string("receiving queue manager name", 48)?;
            Frame::HelloAck(HelloAck {
                version,
                receiving_q_mgr,
                limits,
                last_committed_seq,
            })
        }
        kind::MESSAGE => {
            let flags = r.take(1, "flags")?[0];
            if flags & !FLAG_FAST != 0 {
                return Err(r.bad(format!("unknown flags 0x{flags:02X}")));
            }
            return Ok(Frame::Message {
                flags,
                data: payload.slice(1..),
            });
        }
        kind::END_BATCH => Frame::EndBatch {
            seq: r.u64("sequence number")?,
            count: r.u32("message count")?,
        },
        kind::CONFIRM => Frame::Confirm {
            seq: r.u64("sequence number")?,
        },
        kind::HEARTBEAT => Frame::Heartbeat,
        _ => Frame::Close {
            reason: r.u32("reason")? as i32,
            text: r.string("text", MAX_TEXT)?,
        },
    };
    r.end()?;
    Ok(frame)
}

impl Decoder for FrameCodec {
    type Item = Frame;
    type Error = FrameError;

    fn decode(&mut self, src: &mut BytesMut) -> Result<Option<Frame>, FrameError> {
        match split_frame(src, self.max_frame)? {
            Some((kind_byte, payload)) => parse_payload(kind_byte, payload).map(Some),
            None => Ok(None),
        }
    }

    fn decode_eof(&mut self, src: &mut BytesMut) -> Result<Option<Frame>, FrameError> {
        match self.decode(src)? {
            Some(f) => Ok(Some(f)),
            None => end_of_stream(src).map(|()| None),
        }
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

fn put_limits(out: &mut BytesMut, l: &ChannelLimits) {
    out.put_u32(l.batch_size);
    out.put_u32(l.max_msg_length);
    out.put_u32(l.heartbeat_ms);
}

impl Encoder<Frame> for FrameCodec {
    type Error = FrameError;

    fn encode(&mut self, frame: Frame, dst: &mut BytesMut) -> Result<(), FrameError> {
        let start = dst.len();
        dst.put_u32(0);
        match frame {
            Frame::Hello(h) => {
                dst.put_u8(kind::HELLO);
                dst.put_u16(h.version);
                put_limits(dst, &h.limits);
                dst.put_u64(h.last_confirmed_seq);
                put_string(dst, &h.channel);
                put_string(dst, &h.sending_q_mgr);
                put_string(dst, &h.receiving_q_mgr);
            }
            Frame::HelloAck(h) => {
                dst.put_u8(kind::HELLO_ACK);
                dst.put_u16(h.version);
                put_limits(dst, &h.limits);
                dst.put_u64(h.last_committed_seq);
                put_string(dst, &h.receiving_q_mgr);
            }
            Frame::Message { flags, data } => {
                dst.reserve(data.len() + 2);
                dst.put_u8(kind::MESSAGE);
                dst.put_u8(flags);
                dst.put_slice(&data);
            }
            Frame::EndBatch { seq, count } => {
                dst.put_u8(kind::END_BATCH);
                dst.put_u64(seq);
                dst.put_u32(count);
            }
            Frame::Confirm { seq } => {
                dst.put_u8(kind::CONFIRM);
                dst.put_u64(seq);
            }
            Frame::Heartbeat => dst.put_u8(kind::HEARTBEAT),
            Frame::Close { reason, text } => {
                dst.put_u8(kind::CLOSE);
                dst.put_u32(reason as u32);
                let t = if text.len() > MAX_TEXT {
                    let mut end = MAX_TEXT;
                    while !text.is_char_boundary(end) {
                        end -= 1;
                    }
                    &text[..end]
                } else {
                    &text[..]
                };
                put_string(dst, t);
            }
        }
        let len = (dst.len() - start - 4) as u32;
        dst[start..start + 4].copy_from_slice(&len.to_be_bytes());
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn round_trip(f: Frame) {
        let mut codec = FrameCodec::default();
        let mut buf = BytesMut::new();
        codec.encode(f.clone(), &mut buf).unwrap();
        assert_eq!(codec.decode(&mut buf).unwrap(), Some(f));
        assert!(buf.is_empty());
    }

    #[test]
    fn every_frame_round_trips() {
        round_trip(Frame::Hello(Hello {
            version: 1,
            channel: "TO.MQGATE".into(),
            sending_q_mgr: "QM1".into(),
            receiving_q_mgr: "MQGATE".into(),
            limits: ChannelLimits {
                batch_size: 50,
                max_msg_length: 4 * 1024 * 1024,
                heartbeat_ms: 30_000,
            },
            last_confirmed_seq: 7,
        }));
        round_trip(Frame::HelloAck(HelloAck {
            version: 1,
            receiving_q_mgr: "MQGATE".into(),
            limits: ChannelLimits {
                batch_size: 10,
                max_msg_length: 1000,
                heartbeat_ms: 0,
            },
            last_committed_seq: 8,
        }));
        round_trip(Frame::Message {
            flags: FLAG_FAST,
            data: Bytes::from_static(b"XQH \x00\x00\x00\x01"),
        });
        round_trip(Frame::EndBatch { seq: 9, count: 50 });
        round_trip(Frame::Confirm { seq: 9 });
        round_trip(Frame::Heartbeat);
        round_trip(Frame::Close {
            reason: Mqrc::UNKNOWN_CHANNEL_NAME.0,
            text: "unknown channel".into(),
        });
    }

    #[test]
    fn the_wire_layout_is_as_documented() {
        // docs/channel-protocol.md: u32 BE length, type byte, payload.
        let mut buf = BytesMut::new();
        FrameCodec::default()
            .encode(Frame::Confirm { seq: 0x0102 }, &mut buf)
            .unwrap();
        assert_eq!(&buf[..], &[0, 0, 0, 9, 0x05, 0, 0, 0, 0, 0, 0, 1, 2]);
    }

    #[test]
    fn an_oversize_length_is_refused_before_buffering() {
        let mut codec = FrameCodec::default();
        let mut buf = BytesMut::from(&[0x7F, 0xFF, 0xFF, 0xFF, 0x03][..]);
        let e = codec.decode(&mut buf).unwrap_err();
        // docs/channel-protocol.md "Frames": 2218 MQRC_MSG_TOO_BIG_FOR_CHANNEL.
        assert_eq!(e.mqrc(), Mqrc(2218));
        assert!(e.to_string().contains("2147483647"), "{e}");
    }

    #[test]
    fn malformed_payloads_name_the_frame_and_offset() {
        let mut codec = FrameCodec::default();
        // A CONFIRM with 3 bytes instead of 8.
        let mut buf = BytesMut::from(&[0, 0, 0, 4, 0x05, 1, 2, 3][..]);
        let e = codec.decode(&mut buf).unwrap_err();
        assert_eq!(e.mqrc(), Mqrc::HEADER_ERROR);
        assert_eq!(
            e.to_string(),
            "CONFIRM frame, payload offset 0: sequence number needs 8 bytes, 3 left"
        );
        let mut buf = BytesMut::from(&[0, 0, 0, 1, 0x7A][..]);
        let e = codec.decode(&mut buf).unwrap_err();
        assert!(e.to_string().contains("unknown frame type 0x7A"), "{e}");
        // A truncated frame at end of stream.
        let mut buf = BytesMut::from(&[0, 0, 0, 9, 0x05, 1][..]);
        let e = codec.decode_eof(&mut buf).unwrap_err();
        assert_eq!(e.mqrc(), Mqrc::CONNECTION_BROKEN);
    }
}

//! Channel frames and their codec (docs/channel-protocol.md "Frames").
//!
//! A frame is a 4-byte big-endian length `L`, then `L` bytes: one type byte
//! and the payload. `L` is checked against the codec's maximum before anything
//! is buffered for it, so an oversize length closes the channel without
//! allocating. Integers in payloads are big-endian; strings are a 2-byte length
//! and UTF-8 text. The framing itself is src/framing.rs, which Rendezvous
//! routing links share.

use crate::config::ChannelLimits;
pub use crate::framing::FrameError;
use crate::framing::{Reader, end_of_stream, put_string, split_frame};
use bytes::{BufMut, Bytes, BytesMut};
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

/// Batch size, max message length and heartbeat interval, in that order
/// (HELLO and HELLO_ACK).
fn read_limits(r: &mut Reader<'_>) -> Result<ChannelLimits, FrameError> {
    Ok(ChannelLimits {
        batch_size: r.u32("batch size")?,
        max_msg_length: r.u32("max message length")?,
        heartbeat_ms: r.u32("heartbeat interval")?,
    })
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
            let limits = read_limits(&mut r)?;
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
            let limits = read_limits(&mut r)?;
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
    use mqgate_codecs::mq::Mqrc;

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

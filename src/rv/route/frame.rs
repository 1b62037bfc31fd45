//! Frames of a routing link between two gateways (docs/rendezvous.md
//! "Routing links"): mqgate's own protocol — TIBCO does not publish the
//! protocol between its routing daemons. The framing is the message
//! channels' (src/framing.rs: a 4-byte big-endian length, checked
//! against the maximum before anything is buffered, a type byte, the
//! payload; strings are a 2-byte length and UTF-8), with these frame types:
//!
//! | type | frame | payload |
//! |---:|---|---|
//! | 0x21 | HELLO | version u16, router, network, expected peer, max frame u32, heartbeat ms u32 |
//! | 0x22 | HELLO_ACK | version u16, router, network, max frame u32, heartbeat ms u32 |
//! | 0x23 | ROUTER | router, network, inbox id, incarnation u64, seq u64, neighbors (u16 count; name, cost u32), interest (u32 count; subject, weight u32) |
//! | 0x24 | MESSAGE | origin router, origin incarnation u64, seq u64, hops (u8 count; router names), then mqgate's binary form of the envelope |
//! | 0x25 | HEARTBEAT | none |
//! | 0x26 | CLOSE | text |

use bytes::{BufMut, Bytes, BytesMut};
use mqgate_codecs::rv::{Mode, Subject};
use tokio_util::codec::{Decoder, Encoder};

use super::config::NAME_MAX;
use super::table::Announcement;
use crate::framing::{
    FrameError, Reader, end_of_stream, finish_frame, put_string, split_frame, start_frame,
};

/// Protocol version of routing links.
pub const LINK_VERSION: u16 = 1;
/// Largest frame before the handshake agreed a size, bytes.
pub const HANDSHAKE_MAX_FRAME: usize = 4096;
/// Most routers a message may pass (its hop list).
pub const MAX_HOPS: usize = 64;
/// Most neighbors in one announcement.
pub const MAX_NEIGHBORS: usize = 1024;
/// Most interest subjects in one announcement.
pub const MAX_INTEREST: usize = 100_000;
/// Longest CLOSE text, bytes.
pub const MAX_TEXT: usize = 1024;
/// Longest subject in an announcement, bytes (TIBRV_SUBJECT_MAX).
const SUBJECT_MAX: usize = 255;

/// Frame type bytes (distinct from the message channels' 0x01-0x07).
pub mod kind {
    /// HELLO: the dialling router introduces itself.
    pub const HELLO: u8 = 0x21;
    /// HELLO_ACK: the accepting router's answer.
    pub const HELLO_ACK: u8 = 0x22;
    /// ROUTER: a router's announcement.
    pub const ROUTER: u8 = 0x23;
    /// MESSAGE: a routed message.
    pub const MESSAGE: u8 = 0x24;
    /// HEARTBEAT: nothing else to send.
    pub const HEARTBEAT: u8 = 0x25;
    /// CLOSE: the sender closes the link.
    pub const CLOSE: u8 = 0x26;
}

/// The dialling router's first frame.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Hello {
    /// Highest link version it speaks.
    pub version: u16,
    /// Its router name.
    pub router: String,
    /// Its local network.
    pub network: String,
    /// The router name it expects to reach.
    pub expected: String,
    /// Largest frame it accepts, bytes.
    pub max_frame: u32,
    /// Its heartbeat interval, ms.
    pub heartbeat_ms: u32,
}

/// The accepting router's answer.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct HelloAck {
    /// The agreed version (the lower of both).
    pub version: u16,
    /// Its router name.
    pub router: String,
    /// Its local network.
    pub network: String,
    /// Largest frame it accepts, bytes.
    pub max_frame: u32,
    /// Its heartbeat interval, ms.
    pub heartbeat_ms: u32,
}

/// A message carried between routers.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Forward {
    /// The router where it entered the routing system.
    pub origin: String,
    /// That router's incarnation.
    pub incarnation: u64,
    /// Its number at that router, from 1: with the origin, what tells a
    /// copy already seen.
    pub seq: u64,
    /// The routers it passed, the origin first (never sent to one of them).
    pub hops: Vec<String>,
    /// mqgate's binary form of the envelope (docs/rendezvous.md "Binary
    /// form").
    pub envelope: Bytes,
}

/// One frame of a routing link.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum LinkFrame {
    /// The dialling router's first frame.
    Hello(Hello),
    /// The accepting router's answer.
    HelloAck(HelloAck),
    /// A router's announcement, flooded to every router.
    Router(Announcement),
    /// A routed message.
    Message(Forward),
    /// Sent when nothing else was, so the neighbor knows the link lives.
    Heartbeat,
    /// The sender closes the link, saying why.
    Close(String),
}

impl LinkFrame {
    /// The frame's name, for logs and errors.
    pub fn name(&self) -> &'static str {
        match self {
            LinkFrame::Hello(_) => "HELLO",
            LinkFrame::HelloAck(_) => "HELLO_ACK",
            LinkFrame::Router(_) => "ROUTER",
            LinkFrame::Message(_) => "MESSAGE",
            LinkFrame::Heartbeat => "HEARTBEAT",
            LinkFrame::Close(_) => "CLOSE",
        }
    }
}

/// The codec of routing link frames; the maximum frame starts at
/// [`HANDSHAKE_MAX_FRAME`].
#[derive(Clone, Debug)]
pub struct LinkCodec {
    max_frame: usize,
}

impl Default for LinkCodec {
    fn default() -> Self {
        LinkCodec {
            max_frame: HANDSHAKE_MAX_FRAME,
        }
    }
}

impl LinkCodec {
    /// Sets the largest frame accepted, bytes (type byte included).
    pub fn set_max_frame(&mut self, max: usize) {
        self.max_frame = max;
    }
}

fn name(r: &mut Reader<'_>, what: &str) -> Result<String, FrameError> {
    let at = r.pos;
    let n = r.string(what, NAME_MAX)?;
    if let Err(e) = super::config::check_name(&n) {
        r.pos = at;
        return Err(r.bad(format!("{what}: {e}")));
    }
    Ok(n)
}

/// A count whose items take at least `min_item` bytes each: checked
/// against `max` and the bytes left before anything is allocated for it.
fn count(
    r: &mut Reader<'_>,
    n: usize,
    max: usize,
    min_item: usize,
    what: &str,
) -> Result<usize, FrameError> {
    let left = r.buf.len() - r.pos;
    if n > max || n.saturating_mul(min_item) > left {
        return Err(r.bad(format!(
            "{n} {what}: more than {} fit ({max} at most)",
            (left / min_item.max(1)).min(max)
        )));
    }
    Ok(n)
}

fn parse(kind_byte: u8, payload: Bytes) -> Result<LinkFrame, FrameError> {
    let frame_name = match kind_byte {
        kind::HELLO => "HELLO",
        kind::HELLO_ACK => "HELLO_ACK",
        kind::ROUTER => "ROUTER",
        kind::MESSAGE => "MESSAGE",
        kind::HEARTBEAT => "HEARTBEAT",
        kind::CLOSE => "CLOSE",
        other => {
            return Err(FrameError::Malformed {
                frame: "unknown",
                offset: 0,
                what: format!("unknown routing link frame type 0x{other:02X}"),
            });
        }
    };
    let mut r = Reader::new(frame_name, &payload);
    let frame = match kind_byte {
        kind::HELLO => LinkFrame::Hello(Hello {
            version: r.u16("version")?,
            router: name(&mut r, "router name")?,
            network: name(&mut r, "network name")?,
            expected: name(&mut r, "expected router name")?,
            max_frame: r.u32("max frame")?,
            heartbeat_ms: r.u32("heartbeat interval")?,
        }),
        kind::HELLO_ACK => LinkFrame::HelloAck(HelloAck {
            version: r.u16("version")?,
            router: name(&mut r, "router name")?,
            network: name(&mut r, "network name")?,
            max_frame: r.u32("max frame")?,
            heartbeat_ms: r.u32("heartbeat interval")?,
        }),
        kind::ROUTER => {
            let router = name(&mut r, "router name")?;
            let network = name(&mut r, "network name")?;
            let inbox_id = name(&mut r, "inbox id")?;
            let incarnation = r.u64("incarnation")?;
            let seq = r.u64("sequence number")?;
            let n = r.u16("neighbor count")? as usize;
            let n = count(&mut r, n, MAX_NEIGHBORS, 7, "neighbors")?;
            let mut neighbors = Vec::with_capacity(n);
            for _ in 0..n {
                let nb = name(&mut r, "neighbor name")?;
                neighbors.push((nb, r.u32("path cost")?));
            }
            let n = r.u32("interest count")? as usize;
            let n = count(&mut r, n, MAX_INTEREST, 7, "interest subjects")?;
            let mut interest = Vec::with_capacity(n);
            for _ in 0..n {
                let at = r.pos;
                let text = r.string("interest subject", SUBJECT_MAX)?;
                let subject = match Subject::parse(&text, Mode::Listen) {
                    Ok(s) => s.into_owned(),
                    Err(e) => {
                        r.pos = at;
                        return Err(r.bad(format!("interest subject {text:?}: {e}")));
                    }
                };
                interest.push((subject, r.u32("import weight")?));
            }
            LinkFrame::Router(Announcement {
                router,
                network,
                inbox_id,
                incarnation,
                seq,
                neighbors,
                interest,
            })
        }
        kind::MESSAGE => {
            let origin = name(&mut r, "origin router")?;
            let incarnation = r.u64("origin incarnation")?;
            let seq = r.u64("sequence number")?;
            let n = r.take(1, "hop count")?[0] as usize;
            let n = count(&mut r, n, MAX_HOPS, 3, "hops")?;
            let mut hops = Vec::with_capacity(n);
            for _ in 0..n {
                hops.push(name(&mut r, "hop")?);
            }
            let envelope = payload.slice(r.pos..);
            return Ok(LinkFrame::Message(Forward {
                origin,
                incarnation,
                seq,
                hops,
                envelope,
            }));
        }
        kind::HEARTBEAT => LinkFrame::Heartbeat,
        _ => LinkFrame::Close(r.string("text", MAX_TEXT)?),
    };
    r.end()?;
    Ok(frame)
}

impl Decoder for LinkCodec {
    type Item = LinkFrame;
    type Error = FrameError;

    fn decode(&mut self, src: &mut BytesMut) -> Result<Option<LinkFrame>, FrameError> {
        match split_frame(src, self.max_frame)? {
            Some((k, payload)) => parse(k, payload).map(Some),
            None => Ok(None),
        }
    }

    fn decode_eof(&mut self, src: &mut BytesMut) -> Result<Option<LinkFrame>, FrameError> {
        match self.decode(src)? {
            Some(f) => Ok(Some(f)),
            None => end_of_stream(src).map(|()| None),
        }
    }
}

/// Writes `s` cut to `max` bytes at a character boundary.
fn put_text(dst: &mut BytesMut, s: &str, max: usize) {
    let mut end = s.len().min(max);
    while !s.is_char_boundary(end) {
        end -= 1;
    }
    put_string(dst, &s[..end]);
}

impl Encoder<LinkFrame> for LinkCodec {
    type Error = FrameError;

    fn encode(&mut self, frame: LinkFrame, dst: &mut BytesMut) -> Result<(), FrameError> {
        let start;
        match frame {
            LinkFrame::Hello(h) => {
                start = start_frame(dst, kind::HELLO);
                dst.put_u16(h.version);
                put_string(dst, &h.router);
                put_string(dst, &h.network);
                put_string(dst, &h.expected);
                dst.put_u32(h.max_frame);
                dst.put_u32(h.heartbeat_ms);
            }
            LinkFrame::HelloAck(h) => {
                start = start_frame(dst, kind::HELLO_ACK);
                dst.put_u16(h.version);
                put_string(dst, &h.router);
                put_string(dst, &h.network);
                dst.put_u32(h.max_frame);
                dst.put_u32(h.heartbeat_ms);
            }
            LinkFrame::Router(a) => {
                start = start_frame(dst, kind::ROUTER);
                put_string(dst, &a.router);
                put_string(dst, &a.network);
                put_string(dst, &a.inbox_id);
                dst.put_u64(a.incarnation);
                dst.put_u64(a.seq);
                let nb = &a.neighbors[..a.neighbors.len().min(MAX_NEIGHBORS)];
                dst.put_u16(nb.len() as u16);
                for (n, c) in nb {
                    put_string(dst, n);
                    dst.put_u32(*c);
                }
                let it = &a.interest[..a.interest.len().min(MAX_INTEREST)];
                dst.put_u32(it.len() as u32);
                for (s, w) in it {
                    put_string(dst, s.as_str());
                    dst.put_u32(*w);
                }
            }
            LinkFrame::Message(m) => {
                start = start_frame(dst, kind::MESSAGE);
                put_string(dst, &m.origin);
                dst.put_u64(m.incarnation);
                dst.put_u64(m.seq);
                let hops = &m.hops[..m.hops.len().min(MAX_HOPS)];
                dst.put_u8(hops.len() as u8);
                for h in hops {
                    put_string(dst, h);
                }
                dst.reserve(m.envelope.len());
                dst.put_slice(&m.envelope);
            }
            LinkFrame::Heartbeat => start = start_frame(dst, kind::HEARTBEAT),
            LinkFrame::Close(text) => {
                start = start_frame(dst, kind::CLOSE);
                put_text(dst, &text, MAX_TEXT);
            }
        }
        finish_frame(dst, start);
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn round_trip(f: LinkFrame) {
        let mut codec = LinkCodec::default();
        codec.set_max_frame(1 << 20);
        let mut buf = BytesMut::new();
        codec.encode(f.clone(), &mut buf).unwrap();
        assert_eq!(codec.decode(&mut buf).unwrap(), Some(f));
        assert!(buf.is_empty());
    }

    #[test]
    fn every_frame_round_trips() {
        round_trip(LinkFrame::Hello(Hello {
            version: 1,
            router: "E".into(),
            network: "Anet.moo.com".into(),
            expected: "G".into(),
            max_frame: 4_259_840,
            heartbeat_ms: 2000,
        }));
        round_trip(LinkFrame::HelloAck(HelloAck {
            version: 1,
            router: "G".into(),
            network: "Bnet.moo.com".into(),
            max_frame: 4096,
            heartbeat_ms: 2000,
        }));
        round_trip(LinkFrame::Router(Announcement {
            router: "G".into(),
            network: "Bnet".into(),
            inbox_id: "5F0C27A1D3B9E684".into(),
            incarnation: 1_700_000_000_000,
            seq: 3,
            neighbors: vec![("E".into(), 1), ("F".into(), 5)],
            interest: vec![(
                Subject::parse("foo.>", Mode::Listen).unwrap().into_owned(),
                1,
            )],
        }));
        round_trip(LinkFrame::Message(Forward {
            origin: "F".into(),
            incarnation: 7,
            seq: 9,
            hops: vec!["F".into(), "H".into()],
            envelope: Bytes::from_static(b"RVM \x01\x00\x00\x00\x00\x0d\x01x"),
        }));
        round_trip(LinkFrame::Heartbeat);
        round_trip(LinkFrame::Close("not a neighbor".into()));
    }

    #[test]
    fn the_wire_layout_is_the_channel_framing() {
        // src/framing.rs (the message channels' framing): u32 BE length,
        // type byte, payload.
        let mut buf = BytesMut::new();
        LinkCodec::default()
            .encode(LinkFrame::Close("x".into()), &mut buf)
            .unwrap();
        assert_eq!(&buf[..], &[0, 0, 0, 4, 0x26, 0, 1, b'x']);
        let mut buf = BytesMut::new();
        LinkCodec::default()
            .encode(LinkFrame::Heartbeat, &mut buf)
            .unwrap();
        assert_eq!(&buf[..], &[0, 0, 0, 1, 0x25]);
    }

    #[test]
    fn bad_input_is_a_typed_error_never_a_panic() {
        let mut c = LinkCodec::default();
        // Oversize before the handshake: refused before buffering.
        let mut buf = BytesMut::from(&[0, 0, 0x10, 0x01, 0x21][..]);
        assert!(matches!(
            c.decode(&mut buf),
            Err(FrameError::Oversize {
                length: 4097,
                max: 4096
            })
        ));
        // A router name with a character router names cannot have.
        let mut buf = BytesMut::new();
        c.encode(
            LinkFrame::HelloAck(HelloAck {
                version: 1,
                router: "a_b".into(),
                network: "n".into(),
                max_frame: 1,
                heartbeat_ms: 1,
            }),
            &mut buf,
        )
        .unwrap();
        let e = c.decode(&mut buf).unwrap_err().to_string();
        assert_eq!(
            e,
            "HELLO_ACK frame, payload offset 2: router name: character '_' at byte 1: router names are alphanumerics, '.' and '-'"
        );
        // An interest count larger than the bytes left.
        let mut p = BytesMut::new();
        for s in ["G", "B", "ID"] {
            put_string(&mut p, s);
        }
        p.put_u64(1);
        p.put_u64(1);
        p.put_u16(0);
        p.put_u32(1_000_000);
        let mut buf = BytesMut::new();
        buf.put_u32(p.len() as u32 + 1);
        buf.put_u8(kind::ROUTER);
        buf.put_slice(&p);
        let e = c.decode(&mut buf).unwrap_err().to_string();
        assert!(e.contains("1000000 interest subjects"), "{e}");
        // An unknown type.
        let mut buf = BytesMut::from(&[0, 0, 0, 1, 0x01][..]);
        let e = c.decode(&mut buf).unwrap_err().to_string();
        assert!(e.contains("unknown routing link frame type 0x01"), "{e}");
    }
}

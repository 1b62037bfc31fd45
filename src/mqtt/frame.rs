//! Cutting a connection's byte stream into packets (a tokio-util
//! decoder): a packet's length is read from its fixed header and checked
//! against `mqtt.max_packet_size` before any of its body is buffered
//! (MQTT 5.0 3.2.2.3.6, 4.13: 0x95 Packet too large).

use bytes::{Bytes, BytesMut};
use mqgate_codecs::mqtt::{MqttError, frame_len};
use tokio_util::codec::Decoder;

/// Packets of at most `max` bytes.
pub struct Frames {
    max: usize,
}

impl Frames {
    pub fn new(max: usize) -> Frames {
        Frames { max }
    }
}

/// Why the stream of packets ended.
#[derive(Debug)]
pub enum FrameError {
    /// The connection failed.
    Io(std::io::Error),
    /// A fixed header that cannot be read, or a packet over the limit.
    Packet(MqttError),
}

impl From<std::io::Error> for FrameError {
    fn from(e: std::io::Error) -> Self {
        FrameError::Io(e)
    }
}

impl Decoder for Frames {
    type Item = Bytes;
    type Error = FrameError;

    fn decode(&mut self, src: &mut BytesMut) -> Result<Option<Bytes>, FrameError> {
        match frame_len(src, self.max) {
            Ok(Some(n)) => Ok(Some(src.split_to(n).freeze())),
            Ok(None) => Ok(None),
            Err(e) => Err(FrameError::Packet(e)),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use mqgate_codecs::mqtt::{ErrorKind, ReasonCode};

    #[test]
    fn packets_are_cut_and_oversize_ones_refused_from_the_header() {
        let mut f = Frames::new(16);
        // PINGREQ (0xC0 0x00) twice, then half a PUBLISH.
        let mut b = BytesMut::from(&[0xC0, 0x00, 0xC0, 0x00, 0x30, 0x05, 0x00][..]);
        assert_eq!(
            f.decode(&mut b).unwrap().unwrap(),
            Bytes::from_static(&[0xC0, 0x00])
        );
        assert_eq!(
            f.decode(&mut b).unwrap().unwrap(),
            Bytes::from_static(&[0xC0, 0x00])
        );
        assert!(f.decode(&mut b).unwrap().is_none());
        // A PUBLISH of 2 + 20 bytes: over 16 before its body is there.
        let mut b = BytesMut::from(&[0x30, 20][..]);
        let Err(FrameError::Packet(e)) = f.decode(&mut b) else {
            panic!()
        };
        assert_eq!(e.kind, ErrorKind::TooLarge { size: 22, max: 16 });
        assert_eq!(e.reason_code(), ReasonCode::PACKET_TOO_LARGE);
    }
}

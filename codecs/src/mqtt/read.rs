//! Reading the data representations of MQTT (5.0 1.5; 3.1.1 1.5): bytes,
//! Two and Four Byte Integers, Variable Byte Integers, UTF-8 Encoded
//! Strings and Binary Data, from a packet held in one [`Bytes`] (binary
//! fields are slices of it, never copies).

use super::error::{ErrorKind, MqttError};
use super::packet::PacketType;
use bytes::Bytes;
use nom::Parser;
use nom::bytes::complete::take;
use nom::number::complete::{be_u8, be_u16, be_u32};

type NomResult<'a, T> = nom::IResult<&'a [u8], T, nom::error::Error<&'a [u8]>>;

/// The largest value of a Variable Byte Integer (5.0 1.5.5: 268,435,455).
pub const VARINT_MAX: u32 = 268_435_455;

/// Reads a Variable Byte Integer from the start of `b` (5.0 1.5.5; 3.1.1
/// 2.2.3 Remaining Length): `Ok(None)` when `b` ends before its last byte,
/// else the value and its length in bytes. Errors: more than 4 bytes
/// ([`ErrorKind::VarintTooLong`]); a value written in more bytes than it
/// needs ([`ErrorKind::VarintNotMinimal`], [MQTT-1.5.5-1]).
pub fn varint(b: &[u8]) -> Result<Option<(u32, usize)>, ErrorKind> {
    let mut value: u32 = 0;
    for i in 0..4 {
        let Some(&byte) = b.get(i) else {
            return Ok(None);
        };
        value |= u32::from(byte & 0x7F) << (7 * i);
        if byte & 0x80 == 0 {
            if i > 0 && byte == 0 {
                return Err(ErrorKind::VarintNotMinimal);
            }
            return Ok(Some((value, i + 1)));
        }
    }
    Err(ErrorKind::VarintTooLong)
}

/// A reader over one packet: `pos` is the offset of the next byte from the
/// start of the packet (its fixed header), which errors name.
pub(crate) struct Reader {
    data: Bytes,
    pos: usize,
    end: usize,
    packet: PacketType,
}

impl Reader {
    /// A reader of `data` (a whole packet) from `pos` to the end.
    pub fn new(data: Bytes, pos: usize, packet: PacketType) -> Reader {
        let end = data.len();
        Reader {
            data,
            pos,
            end,
            packet,
        }
    }

    pub fn error(&self, kind: ErrorKind) -> MqttError {
        self.error_at(self.pos, kind)
    }

    pub fn error_at(&self, offset: usize, kind: ErrorKind) -> MqttError {
        MqttError {
            packet: self.packet,
            offset,
            kind,
        }
    }

    pub fn pos(&self) -> usize {
        self.pos
    }

    pub fn remaining(&self) -> usize {
        self.end - self.pos
    }

    pub fn is_empty(&self) -> bool {
        self.pos >= self.end
    }

    /// Limits reading to the next `len` bytes (a property block) and
    /// returns the previous end, for [`Reader::restore_end`].
    pub fn limit(&mut self, len: usize) -> Result<usize, MqttError> {
        self.need(len)?;
        let old = self.end;
        self.end = self.pos + len;
        Ok(old)
    }

    pub fn restore_end(&mut self, end: usize) {
        self.end = end;
    }

    /// Errors unless nothing is left.
    pub fn finish(&self) -> Result<(), MqttError> {
        if self.is_empty() {
            Ok(())
        } else {
            Err(self.error(ErrorKind::TrailingBytes {
                count: self.remaining(),
            }))
        }
    }

    fn need(&self, n: usize) -> Result<(), MqttError> {
        if self.remaining() < n {
            Err(self.error(ErrorKind::Truncated {
                needed: n,
                available: self.remaining(),
            }))
        } else {
            Ok(())
        }
    }

    fn input(&self) -> &[u8] {
        &self.data[self.pos..self.end]
    }

    /// The result of a nom number parser run on the rest: the value, and
    /// how many bytes it took.
    fn took<T>(&mut self, n: usize, r: Result<T, ()>) -> Result<T, MqttError> {
        match r {
            Ok(v) => {
                self.pos += n;
                Ok(v)
            }
            Err(_) => Err(self.error(ErrorKind::Truncated {
                needed: n,
                available: self.remaining(),
            })),
        }
    }

    pub fn u8(&mut self) -> Result<u8, MqttError> {
        self.need(1)?;
        let r = be_u8::<_, nom::error::Error<&[u8]>>(self.input())
            .map(|(_, v)| v)
            .map_err(|_| ());
        self.took(1, r)
    }

    pub fn u16(&mut self) -> Result<u16, MqttError> {
        self.need(2)?;
        let r = be_u16::<_, nom::error::Error<&[u8]>>(self.input())
            .map(|(_, v)| v)
            .map_err(|_| ());
        self.took(2, r)
    }

    pub fn u32(&mut self) -> Result<u32, MqttError> {
        self.need(4)?;
        let r = be_u32::<_, nom::error::Error<&[u8]>>(self.input())
            .map(|(_, v)| v)
            .map_err(|_| ());
        self.took(4, r)
    }

    /// A Variable Byte Integer (5.0 1.5.5).
    pub fn varint(&mut self) -> Result<u32, MqttError> {
        match varint(self.input()) {
            Ok(Some((v, n))) => {
                self.pos += n;
                Ok(v)
            }
            Ok(None) => Err(self.error(ErrorKind::Truncated {
                needed: self.remaining() + 1,
                available: self.remaining(),
            })),
            Err(kind) => Err(self.error(kind)),
        }
    }

    /// `n` bytes as a slice of the packet.
    pub fn bytes(&mut self, n: usize) -> Result<Bytes, MqttError> {
        self.need(n)?;
        let input = self.input();
        let taken: NomResult<'_, &[u8]> = take(n).parse(input);
        if taken.is_err() {
            return Err(self.error(ErrorKind::Truncated {
                needed: n,
                available: self.remaining(),
            }));
        }
        let start = self.pos;
        self.pos += n;
        Ok(self.data.slice(start..start + n))
    }

    /// The rest of the packet (a PUBLISH payload, 3.3.3).
    pub fn rest(&mut self) -> Bytes {
        let start = self.pos;
        self.pos = self.end;
        self.data.slice(start..self.end)
    }

    /// Binary Data: a Two Byte Integer length, then that many bytes (5.0 1.5.6).
    /// A length that overruns the packet is named at the field's start.
    pub fn binary(&mut self) -> Result<Bytes, MqttError> {
        let at = self.pos;
        let n = self.u16()? as usize;
        self.bytes(n).map_err(|e| MqttError { offset: at, ..e })
    }

    /// A UTF-8 Encoded String (5.0 1.5.4; 3.1.1 1.5.3): well-formed UTF-8
    /// without U+0000. (U+D800-U+DFFF cannot occur in well-formed UTF-8.)
    pub fn string(&mut self) -> Result<String, MqttError> {
        let at = self.pos;
        let raw = self.binary()?;
        let text =
            std::str::from_utf8(&raw).map_err(|_| self.error_at(at, ErrorKind::InvalidUtf8))?;
        if text.contains('\0') {
            return Err(self.error_at(at, ErrorKind::NullCharacter));
        }
        Ok(text.to_string())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn variable_byte_integers_of_the_specification_table() {
        // MQTT 5.0 1.5.5 Table 1-1 (3.1.1 2.2.3 Table 2.4): the edges of
        // each length.
        let cases: [(&[u8], u32); 8] = [
            (&[0x00], 0),
            (&[0x7F], 127),
            (&[0x80, 0x01], 128),
            (&[0xFF, 0x7F], 16_383),
            (&[0x80, 0x80, 0x01], 16_384),
            (&[0xFF, 0xFF, 0x7F], 2_097_151),
            (&[0x80, 0x80, 0x80, 0x01], 2_097_152),
            (&[0xFF, 0xFF, 0xFF, 0x7F], 268_435_455),
        ];
        for (bytes, value) in cases {
            assert_eq!(varint(bytes), Ok(Some((value, bytes.len()))), "{bytes:?}");
        }
        assert_eq!(varint(&[0x80]), Ok(None));
        assert_eq!(varint(&[]), Ok(None));
        assert_eq!(
            varint(&[0xFF, 0xFF, 0xFF, 0xFF, 0x01]),
            Err(ErrorKind::VarintTooLong)
        );
        // 0 written in two bytes: [MQTT-1.5.5-1].
        assert_eq!(varint(&[0x80, 0x00]), Err(ErrorKind::VarintNotMinimal));
    }

    #[test]
    fn strings_must_be_utf8_without_nul() {
        let r = |b: &'static [u8]| Reader::new(Bytes::from_static(b), 0, PacketType::CONNECT);
        assert_eq!(r(b"\x00\x04MQTT").string().unwrap(), "MQTT");
        // The example of MQTT 5.0 1.5.4 Figure 1-1: U+2A6D4 then "A".
        assert_eq!(
            r(b"\x00\x05\x41\xF0\xAA\x9B\x94").string().unwrap(),
            "A\u{2A6D4}"
        );
        assert_eq!(
            r(b"\x00\x01\xFF").string().unwrap_err().kind,
            ErrorKind::InvalidUtf8
        );
        // An encoded surrogate (U+D800) is ill-formed UTF-8.
        assert_eq!(
            r(b"\x00\x03\xED\xA0\x80").string().unwrap_err().kind,
            ErrorKind::InvalidUtf8
        );
        assert_eq!(
            r(b"\x00\x02a\x00").string().unwrap_err().kind,
            ErrorKind::NullCharacter
        );
        let e = r(b"\x00\x05abc").string().unwrap_err();
        assert_eq!(
            (e.offset, e.kind),
            (
                0,
                ErrorKind::Truncated {
                    needed: 5,
                    available: 3
                }
            )
        );
    }
}

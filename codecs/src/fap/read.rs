//! Reading the fields of a client-protocol structure: integers in the
//! segment's byte order (its TSH ByteOrder), fixed character and byte
//! arrays, and length-prefixed parts, each checked against the bytes left
//! before it is read. Built on nom's number and byte parsers; every failure
//! becomes a [`FapError`] naming the structure, the field and its offset.

use nom::Parser;
use nom::bytes::complete::take;
use nom::number::Endianness;
use nom::number::complete::{i32 as nom_i32, u8 as nom_u8, u16 as nom_u16, u32 as nom_u32};

use crate::mq::ByteOrder;

use super::error::{FapError, FapErrorKind, FapStructure};

type NomError<'a> = nom::error::Error<&'a [u8]>;

fn endianness(order: ByteOrder) -> Endianness {
    match order {
        ByteOrder::Big => Endianness::Big,
        ByteOrder::Little => Endianness::Little,
    }
}

/// A reader over one structure: `pos` is the offset of the next field from
/// the start of `input`; errors report `base + pos`.
pub(crate) struct Reader<'a> {
    input: &'a [u8],
    pos: usize,
    base: usize,
    structure: FapStructure,
    order: ByteOrder,
}

impl<'a> Reader<'a> {
    /// A reader of `input` (which starts `base` bytes into the segment),
    /// integers in `order`.
    pub(crate) fn new(
        input: &'a [u8],
        base: usize,
        structure: FapStructure,
        order: ByteOrder,
    ) -> Reader<'a> {
        Reader {
            input,
            pos: 0,
            base,
            structure,
            order,
        }
    }

    /// Offset of the next field from the start of the input.
    pub(crate) fn pos(&self) -> usize {
        self.pos
    }

    /// Offset of the next field from the start of the segment.
    pub(crate) fn abs(&self) -> usize {
        self.base + self.pos
    }

    /// Bytes not read yet.
    pub(crate) fn remaining(&self) -> usize {
        self.input.len() - self.pos
    }

    /// Reports the following fields as parts of `structure`.
    pub(crate) fn set_structure(&mut self, structure: FapStructure) {
        self.structure = structure;
    }

    /// An error of kind `kind` at the next field.
    pub(crate) fn error(&self, field: &'static str, kind: FapErrorKind) -> FapError {
        FapError::new(self.structure, self.abs(), field, kind)
    }

    /// An error at `offset` from the start of the input.
    pub(crate) fn error_at(
        &self,
        offset: usize,
        field: &'static str,
        kind: FapErrorKind,
    ) -> FapError {
        FapError::new(self.structure, self.base + offset, field, kind)
    }

    fn truncated(&self, field: &'static str, len: usize) -> FapError {
        self.error(
            field,
            FapErrorKind::Truncated {
                needed: self.pos.saturating_add(len),
                available: self.input.len(),
            },
        )
    }

    /// Fails unless `len` more bytes are present.
    pub(crate) fn need(&self, field: &'static str, len: usize) -> Result<(), FapError> {
        if self.remaining() < len {
            Err(self.truncated(field, len))
        } else {
            Ok(())
        }
    }

    fn run<T>(
        &mut self,
        field: &'static str,
        len: usize,
        mut p: impl Parser<&'a [u8], Output = T, Error = NomError<'a>>,
    ) -> Result<T, FapError> {
        match p.parse(&self.input[self.pos..]) {
            Ok((_, v)) => {
                self.pos += len;
                Ok(v)
            }
            Err(_) => Err(self.truncated(field, len)),
        }
    }

    /// One byte.
    pub(crate) fn u8(&mut self, field: &'static str) -> Result<u8, FapError> {
        self.run(field, 1, nom_u8)
    }

    /// A 2-byte integer in the byte order.
    pub(crate) fn u16(&mut self, field: &'static str) -> Result<u16, FapError> {
        let e = endianness(self.order);
        self.run(field, 2, nom_u16(e))
    }

    /// A 4-byte MQLONG in the byte order.
    pub(crate) fn i32(&mut self, field: &'static str) -> Result<i32, FapError> {
        let e = endianness(self.order);
        self.run(field, 4, nom_i32(e))
    }

    /// A 4-byte unsigned integer, always big-endian (SegmentLength,
    /// ConversationId, RequestId, ReplyLength).
    pub(crate) fn be_u32(&mut self, field: &'static str) -> Result<u32, FapError> {
        self.run(field, 4, nom_u32(Endianness::Big))
    }

    /// `len` bytes, borrowed.
    pub(crate) fn bytes(&mut self, field: &'static str, len: usize) -> Result<&'a [u8], FapError> {
        self.run(field, len, take(len))
    }

    /// A fixed array of `N` bytes.
    pub(crate) fn array<const N: usize>(
        &mut self,
        field: &'static str,
    ) -> Result<[u8; N], FapError> {
        let b = self.bytes(field, N)?;
        let mut a = [0u8; N];
        a.copy_from_slice(b);
        Ok(a)
    }

    /// The 4-byte StrucId, checked against `ascii` and its EBCDIC form
    /// `ebcdic`; returns whether it was EBCDIC.
    pub(crate) fn struc_id(&mut self, ascii: &[u8; 4], ebcdic: &[u8; 4]) -> Result<bool, FapError> {
        let at = self.pos;
        let found: [u8; 4] = self.array("StrucId")?;
        if &found == ascii {
            Ok(false)
        } else if &found == ebcdic {
            Ok(true)
        } else {
            Err(self.error_at(at, "StrucId", FapErrorKind::BadStrucId { found }))
        }
    }

    /// Everything not read yet, borrowed.
    pub(crate) fn rest(&mut self) -> &'a [u8] {
        let r = &self.input[self.pos..];
        self.pos = self.input.len();
        r
    }

    /// Fails when bytes are left after the last field.
    pub(crate) fn end(&self) -> Result<(), FapError> {
        match self.remaining() {
            0 => Ok(()),
            count => Err(self.error("end", FapErrorKind::TrailingBytes { count })),
        }
    }

    /// A count or length field read as an MQLONG, checked to lie in
    /// `0..=max` before anything is allocated from it.
    pub(crate) fn count(&mut self, field: &'static str, max: usize) -> Result<usize, FapError> {
        let at = self.pos;
        let v = self.i32(field)?;
        match usize::try_from(v) {
            Ok(n) if n <= max => Ok(n),
            _ => Err(self.error_at(
                at,
                field,
                FapErrorKind::OutOfRange {
                    value: i64::from(v),
                    min: 0,
                    max: max as i64,
                },
            )),
        }
    }
}

/// Appends MQ integers and arrays in one byte order.
pub(crate) struct Writer<'o> {
    pub(crate) out: &'o mut Vec<u8>,
    pub(crate) order: ByteOrder,
}

impl Writer<'_> {
    pub(crate) fn i32(&mut self, v: i32) {
        self.order.put_i32(self.out, v);
    }

    pub(crate) fn u16(&mut self, v: u16) {
        match self.order {
            ByteOrder::Big => self.out.extend_from_slice(&v.to_be_bytes()),
            ByteOrder::Little => self.out.extend_from_slice(&v.to_le_bytes()),
        }
    }

    pub(crate) fn bytes(&mut self, b: &[u8]) {
        self.out.extend_from_slice(b);
    }
}

/// The ASCII StrucId, or its EBCDIC form when `ebcdic`.
pub(crate) fn struc_id_bytes(ascii: &[u8; 4], ebcdic_form: &[u8; 4], ebcdic: bool) -> [u8; 4] {
    if ebcdic { *ebcdic_form } else { *ascii }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn fields_in_byte_order_and_truncation_offsets() {
        // 0x0111 = 273 (MQENC_NORMAL) in both orders.
        let b = [0x11, 0x01, 0, 0, 0, 0, 1, 0x11, 7];
        let mut r = Reader::new(&b, 100, FapStructure::Api, ByteOrder::Little);
        assert_eq!(r.i32("a").unwrap(), 273);
        r.order = ByteOrder::Big;
        assert_eq!(r.i32("b").unwrap(), 273);
        let e = r.i32("c").unwrap_err();
        assert_eq!(e.offset, 108);
        assert_eq!(e.field, "c");
        assert_eq!(
            e.kind,
            FapErrorKind::Truncated {
                needed: 12,
                available: 9
            }
        );
        assert_eq!(r.u8("d").unwrap(), 7);
        assert!(r.end().is_ok());
    }

    #[test]
    fn counts_are_checked_before_use() {
        let b = (-1i32).to_le_bytes();
        let mut r = Reader::new(&b, 0, FapStructure::Inq, ByteOrder::Little);
        let e = r.count("SelectorCount", 256).unwrap_err();
        assert_eq!(
            e.kind,
            FapErrorKind::OutOfRange {
                value: -1,
                min: 0,
                max: 256
            }
        );
        assert_eq!(e.offset, 0);
    }
}

//! Integer byte order of MQ structures, decided by the MQENC Encoding value
//! (IBM MQ "Encoding (MQLONG)", "MQENC_* (Encoding)"), never by the platform.

use super::constants::enc;

/// The byte order of 4-byte MQLONG integers in a structure.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum ByteOrder {
    /// MQENC_INTEGER_NORMAL (also 0, undefined, treated as normal).
    Big,
    /// MQENC_INTEGER_REVERSED.
    Little,
}

impl ByteOrder {
    /// The byte order an MQENC Encoding value selects: `enc & 0xF == 2` is
    /// little-endian, anything else big-endian (IBM MQ "MQENC_* (Encoding)").
    pub fn from_encoding(encoding: i32) -> ByteOrder {
        if encoding & enc::INTEGER_MASK == enc::INTEGER_REVERSED {
            ByteOrder::Little
        } else {
            ByteOrder::Big
        }
    }

    /// The usual full Encoding for this byte order: 273 (MQENC_NORMAL) or
    /// 546 (MQENC_REVERSED). Used when a structure's encoding had to be
    /// detected rather than read from the structure before it.
    pub fn encoding(self) -> i32 {
        match self {
            ByteOrder::Big => enc::NORMAL,
            ByteOrder::Little => enc::REVERSED,
        }
    }

    /// Decodes a 4-byte MQLONG.
    #[inline]
    pub fn i32_from(self, b: [u8; 4]) -> i32 {
        match self {
            ByteOrder::Big => i32::from_be_bytes(b),
            ByteOrder::Little => i32::from_le_bytes(b),
        }
    }

    /// Encodes a 4-byte MQLONG.
    #[inline]
    pub fn i32_to(self, v: i32) -> [u8; 4] {
        match self {
            ByteOrder::Big => v.to_be_bytes(),
            ByteOrder::Little => v.to_le_bytes(),
        }
    }

    /// Reads the MQLONG at `offset`; `None` when fewer than 4 bytes remain.
    #[inline]
    pub fn read_i32(self, input: &[u8], offset: usize) -> Option<i32> {
        let end = offset.checked_add(4)?;
        let b: [u8; 4] = input.get(offset..end)?.try_into().ok()?;
        Some(self.i32_from(b))
    }

    /// Writes `v` at `offset`; `false` (and nothing written) when the buffer is too short.
    #[inline]
    pub fn write_i32(self, buf: &mut [u8], offset: usize, v: i32) -> bool {
        match offset
            .checked_add(4)
            .and_then(|end| buf.get_mut(offset..end))
        {
            Some(dst) => {
                dst.copy_from_slice(&self.i32_to(v));
                true
            }
            None => false,
        }
    }

    /// Appends `v` to `out`.
    #[inline]
    pub fn put_i32(self, out: &mut Vec<u8>, v: i32) {
        out.extend_from_slice(&self.i32_to(v));
    }
}

/// Reads fields at fixed offsets of a structure whose length was checked first.
///
/// Every structure parser checks the input length once, then reads at the
/// offsets of IBM's structure layouts (e.g. "MQMD - Message descriptor");
/// offsets past the checked length are a programming error caught by the tests
/// and fuzzers.
#[derive(Clone, Copy)]
pub(crate) struct Fixed<'a> {
    pub(crate) b: &'a [u8],
    pub(crate) order: ByteOrder,
}

impl<'a> Fixed<'a> {
    #[inline]
    pub(crate) fn i32(&self, off: usize) -> i32 {
        let mut a = [0u8; 4];
        a.copy_from_slice(&self.b[off..off + 4]);
        self.order.i32_from(a)
    }

    #[inline]
    pub(crate) fn array<const N: usize>(&self, off: usize) -> [u8; N] {
        let mut a = [0u8; N];
        a.copy_from_slice(&self.b[off..off + N]);
        a
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn encoding_values_select_byte_order() {
        // IBM MQ "MQENC_* (Encoding)": 546 reversed, 273 / 785 / 1041 normal; 0 is
        // treated as normal (mqgate's rule).
        assert_eq!(ByteOrder::from_encoding(546), ByteOrder::Little);
        assert_eq!(ByteOrder::from_encoding(273), ByteOrder::Big);
        assert_eq!(ByteOrder::from_encoding(785), ByteOrder::Big);
        assert_eq!(ByteOrder::from_encoding(1041), ByteOrder::Big);
        assert_eq!(ByteOrder::from_encoding(0), ByteOrder::Big);
        assert_eq!(ByteOrder::from_encoding(2), ByteOrder::Little);
    }

    #[test]
    fn mqlong_is_four_bytes_in_the_chosen_order() {
        // pymqi's test message single_rfh2.dat: `00 00 01 1C` big-endian is 284.
        assert_eq!(ByteOrder::Big.read_i32(&[0, 0, 1, 0x1C], 0), Some(284));
        // `20 00 00 00` little-endian is 32.
        assert_eq!(ByteOrder::Little.read_i32(&[0x20, 0, 0, 0], 0), Some(32));
        assert_eq!(ByteOrder::Little.read_i32(&[0x20, 0, 0], 0), None);
        assert_eq!(ByteOrder::Big.read_i32(&[0; 8], usize::MAX), None);
        let mut buf = [0u8; 6];
        assert!(ByteOrder::Little.write_i32(&mut buf, 2, 546));
        assert_eq!(buf, [0, 0, 0x22, 0x02, 0, 0]);
        assert!(!ByteOrder::Little.write_i32(&mut buf, 3, 1));
        assert_eq!(buf, [0, 0, 0x22, 0x02, 0, 0]);
    }
}

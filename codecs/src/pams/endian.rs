//! The byte order of a PAMS structure.
//!
//! MessageQ structures travel in the sender's native byte order; the show buffer
//! names it in its `endian` field with PSYM_LITTLE_ENDIAN 0 / PSYM_BIG_ENDIAN 1
//! (BEA MessageQ `p_symbol.h` 5.0, "Define Data Representation symbols"). Every
//! codec in [`crate::pams`] takes the order as an explicit parameter; nothing
//! here looks at the platform.

/// The byte order of the integers of a PAMS structure.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Endian {
    /// Least significant byte first (PSYM_LITTLE_ENDIAN 0, also PSYM_VAX_BYTE_ORDER).
    Little,
    /// Most significant byte first (PSYM_BIG_ENDIAN 1, also PSYM_NETWORK_BYTE_ORDER).
    Big,
}

/// PSYM_LITTLE_ENDIAN (`p_symbol.h` 5.0): the show buffer `endian` value of a
/// little-endian sender.
pub const PSYM_LITTLE_ENDIAN: i32 = 0;
/// PSYM_BIG_ENDIAN (`p_symbol.h` 5.0): the show buffer `endian` value of a
/// big-endian sender.
pub const PSYM_BIG_ENDIAN: i32 = 1;

impl Endian {
    /// Both orders, little first (for tests and detection loops).
    pub const BOTH: [Endian; 2] = [Endian::Little, Endian::Big];

    /// The show buffer `endian` value for this order: 0 or 1.
    pub fn psym(self) -> i32 {
        match self {
            Endian::Little => PSYM_LITTLE_ENDIAN,
            Endian::Big => PSYM_BIG_ENDIAN,
        }
    }

    /// The order a show buffer `endian` value names; `None` for any other value
    /// (PSYM_ASN1 2, PSYM_UNKNOWN 3, PSYM_FML 4 name no byte order).
    pub fn from_psym(value: i32) -> Option<Endian> {
        match value {
            PSYM_LITTLE_ENDIAN => Some(Endian::Little),
            PSYM_BIG_ENDIAN => Some(Endian::Big),
            _ => None,
        }
    }

    /// The other order.
    pub fn swapped(self) -> Endian {
        match self {
            Endian::Little => Endian::Big,
            Endian::Big => Endian::Little,
        }
    }

    /// A 16-bit value from 2 bytes.
    #[inline]
    pub fn u16_from(self, b: [u8; 2]) -> u16 {
        match self {
            Endian::Little => u16::from_le_bytes(b),
            Endian::Big => u16::from_be_bytes(b),
        }
    }

    /// A 16-bit value as 2 bytes.
    #[inline]
    pub fn u16_to(self, v: u16) -> [u8; 2] {
        match self {
            Endian::Little => v.to_le_bytes(),
            Endian::Big => v.to_be_bytes(),
        }
    }

    /// A 32-bit value from 4 bytes.
    #[inline]
    pub fn u32_from(self, b: [u8; 4]) -> u32 {
        match self {
            Endian::Little => u32::from_le_bytes(b),
            Endian::Big => u32::from_be_bytes(b),
        }
    }

    /// A 32-bit value as 4 bytes.
    #[inline]
    pub fn u32_to(self, v: u32) -> [u8; 4] {
        match self {
            Endian::Little => v.to_le_bytes(),
            Endian::Big => v.to_be_bytes(),
        }
    }

    /// A signed 32-bit value from 4 bytes.
    #[inline]
    pub fn i32_from(self, b: [u8; 4]) -> i32 {
        self.u32_from(b) as i32
    }

    /// A signed 32-bit value as 4 bytes.
    #[inline]
    pub fn i32_to(self, v: i32) -> [u8; 4] {
        self.u32_to(v as u32)
    }

    /// The signed 32-bit value at `offset`; `None` when fewer than 4 bytes remain.
    #[inline]
    pub fn read_i32(self, input: &[u8], offset: usize) -> Option<i32> {
        let end = offset.checked_add(4)?;
        let b: [u8; 4] = input.get(offset..end)?.try_into().ok()?;
        Some(self.i32_from(b))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn psym_values_of_p_symbol_h() {
        // p_symbol.h 5.0: PSYM_LITTLE_ENDIAN 0, PSYM_BIG_ENDIAN 1.
        assert_eq!(Endian::Little.psym(), 0);
        assert_eq!(Endian::Big.psym(), 1);
        assert_eq!(Endian::from_psym(0), Some(Endian::Little));
        assert_eq!(Endian::from_psym(1), Some(Endian::Big));
        // PSYM_ASN1 2 names an encoding, not a byte order.
        assert_eq!(Endian::from_psym(2), None);
    }

    #[test]
    fn integers_in_both_orders() {
        assert_eq!(Endian::Little.i32_to(40), [0x28, 0, 0, 0]);
        assert_eq!(Endian::Big.i32_to(40), [0, 0, 0, 0x28]);
        assert_eq!(Endian::Big.i32_from([0xFF, 0xFF, 0xFB, 0x54]), -1196);
        assert_eq!(Endian::Little.u16_from([0x63, 0x00]), 99);
        assert_eq!(
            Endian::Big.read_i32(&[0, 0, 0, 1, 0, 0], 2),
            Some(0x0001_0000)
        );
        assert_eq!(Endian::Big.read_i32(&[0, 0, 0], 0), None);
        assert_eq!(Endian::Big.read_i32(&[0; 4], usize::MAX), None);
    }
}

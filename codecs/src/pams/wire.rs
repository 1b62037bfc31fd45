//! Fixed-layout PAMS structures: a field trait and the macro that declares a
//! structure from its layout table (name, type, byte offset), so that each
//! structure's code reads like the header it follows.
//!
//! Every structure declared here decodes exactly its size (shorter is
//! `Truncated`, longer is `TooLong`) and encodes to exactly its size; the
//! macro checks at compile time that every field lies inside the structure,
//! and the unit tests check that the fields cover it without gap or overlap,
//! so `encode(decode(b)) == b` for every accepted `b`.

use super::address::QAddress;
use super::endian::Endian;
use super::error::{Field, Structure, WireError, WireErrorKind};
use super::status::SbsStatus;

/// A value with a fixed size on the wire in a given byte order.
pub trait WireField: Sized {
    /// Size in bytes.
    const SIZE: usize;
    /// Reads the value from the first [`Self::SIZE`] bytes of `b` (the callers
    /// have checked the length; missing bytes read as zero).
    fn read(b: &[u8], endian: Endian) -> Self;
    /// Writes the value to the first [`Self::SIZE`] bytes of `b` (as many as fit).
    fn write(&self, b: &mut [u8], endian: Endian);
}

/// The first `N` bytes of `b`, zero-filled when `b` is shorter.
pub(crate) fn array<const N: usize>(b: &[u8]) -> [u8; N] {
    let mut out = [0u8; N];
    for (o, i) in out.iter_mut().zip(b) {
        *o = *i;
    }
    out
}

/// Copies `src` to the start of `dst`, as many bytes as fit.
pub(crate) fn put(dst: &mut [u8], src: &[u8]) {
    for (o, i) in dst.iter_mut().zip(src) {
        *o = *i;
    }
}

impl WireField for u8 {
    const SIZE: usize = 1;
    fn read(b: &[u8], _: Endian) -> Self {
        array::<1>(b)[0]
    }
    fn write(&self, b: &mut [u8], _: Endian) {
        put(b, &[*self]);
    }
}

impl WireField for i8 {
    const SIZE: usize = 1;
    fn read(b: &[u8], _: Endian) -> Self {
        array::<1>(b)[0] as i8
    }
    fn write(&self, b: &mut [u8], _: Endian) {
        put(b, &[*self as u8]);
    }
}

impl WireField for u16 {
    const SIZE: usize = 2;
    fn read(b: &[u8], e: Endian) -> Self {
        e.u16_from(array(b))
    }
    fn write(&self, b: &mut [u8], e: Endian) {
        put(b, &e.u16_to(*self));
    }
}

impl WireField for i16 {
    const SIZE: usize = 2;
    fn read(b: &[u8], e: Endian) -> Self {
        e.u16_from(array(b)) as i16
    }
    fn write(&self, b: &mut [u8], e: Endian) {
        put(b, &e.u16_to(*self as u16));
    }
}

impl WireField for u32 {
    const SIZE: usize = 4;
    fn read(b: &[u8], e: Endian) -> Self {
        e.u32_from(array(b))
    }
    fn write(&self, b: &mut [u8], e: Endian) {
        put(b, &e.u32_to(*self));
    }
}

impl WireField for i32 {
    const SIZE: usize = 4;
    fn read(b: &[u8], e: Endian) -> Self {
        e.i32_from(array(b))
    }
    fn write(&self, b: &mut [u8], e: Endian) {
        put(b, &e.i32_to(*self));
    }
}

impl<const N: usize> WireField for [u8; N] {
    const SIZE: usize = N;
    fn read(b: &[u8], _: Endian) -> Self {
        array(b)
    }
    fn write(&self, b: &mut [u8], _: Endian) {
        put(b, self);
    }
}

impl WireField for SbsStatus {
    const SIZE: usize = 4;
    fn read(b: &[u8], e: Endian) -> Self {
        SbsStatus(e.i32_from(array(b)))
    }
    fn write(&self, b: &mut [u8], e: Endian) {
        put(b, &e.i32_to(self.0));
    }
}

impl WireField for QAddress {
    const SIZE: usize = QAddress::SIZE;
    fn read(b: &[u8], e: Endian) -> Self {
        QAddress::from_bytes(array(b), e)
    }
    fn write(&self, b: &mut [u8], e: Endian) {
        put(b, &self.to_bytes(e));
    }
}

/// `Truncated` unless `body` has at least `needed` bytes. The error names
/// offset 0, where the structure starts (an offset inside the body, 0 for an
/// empty one), with the bytes needed and given from there.
pub(crate) fn at_least(
    structure: Structure,
    body: &[u8],
    needed: usize,
    endian: Endian,
) -> Result<(), WireError> {
    if body.len() < needed {
        return Err(WireError::new(
            structure,
            Field::Whole,
            0,
            WireErrorKind::Truncated {
                needed,
                available: body.len(),
            },
        )
        .with_user_tag_from(body, endian));
    }
    Ok(())
}

/// `Truncated` or `TooLong` unless `body` is exactly `size` bytes.
pub(crate) fn exact_size(
    structure: Structure,
    body: &[u8],
    size: usize,
    endian: Endian,
) -> Result<(), WireError> {
    at_least(structure, body, size, endian)?;
    if body.len() > size {
        return Err(WireError::new(
            structure,
            Field::Whole,
            size,
            WireErrorKind::TooLong {
                max: size,
                available: body.len(),
            },
        )
        .with_user_tag_from(body, endian));
    }
    Ok(())
}

/// The check of a structure without rules beyond its size.
pub(crate) fn no_check<T>(_: &T) -> Result<(), WireError> {
    Ok(())
}

/// Declares a fixed-layout structure: fields with their types and byte
/// offsets, `SIZE`, `LAYOUT`, `decode` (exact size, then the optional check)
/// and `encode`.
macro_rules! wire_struct {
    (
        $(#[$meta:meta])*
        pub struct $name:ident : $structure:expr, size $size:literal $(, check $check:path)? {
            $( $(#[$fmeta:meta])* $field:ident : $ty:ty = $off:literal, )*
        }
    ) => {
        $(#[$meta])*
        #[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash)]
        pub struct $name {
            $( $(#[$fmeta])* pub $field: $ty, )*
        }

        const _: () = {
            $( assert!($off + <$ty as $crate::pams::wire::WireField>::SIZE <= $size); )*
        };

        impl $name {
            /// Size of the structure on the wire, in bytes.
            pub const SIZE: usize = $size;

            /// The structure this type is, for errors.
            pub const STRUCTURE: $crate::pams::error::Structure = $structure;

            /// Name, byte offset and size in bytes of every field, in layout order.
            pub const LAYOUT: &'static [(&'static str, usize, usize)] = &[
                $( (stringify!($field), $off, <$ty as $crate::pams::wire::WireField>::SIZE), )*
            ];

            /// Decodes exactly [`Self::SIZE`] bytes in `endian`.
            ///
            /// Errors: [`WireError`](crate::pams::WireError) `Truncated` when
            /// `body` is shorter, `TooLong` when it is longer, and the
            /// structure's own checks (see the type's documentation).
            pub fn decode(
                body: &[u8],
                endian: $crate::pams::Endian,
            ) -> Result<Self, $crate::pams::WireError> {
                $crate::pams::wire::exact_size($structure, body, $size, endian)?;
                let value = Self::read_fields(body, endian);
                $crate::pams::wire::wire_struct!(@check value $($check)?);
                Ok(value)
            }

            /// Reads the fields from the first [`Self::SIZE`] bytes of `body`
            /// without any check (missing bytes read as zero).
            pub(crate) fn read_fields(body: &[u8], endian: $crate::pams::Endian) -> Self {
                $name {
                    $( $field: <$ty as $crate::pams::wire::WireField>::read(
                        body.get($off..).unwrap_or_default(),
                        endian,
                    ), )*
                }
            }

            /// Encodes to exactly [`Self::SIZE`] bytes in `endian`.
            pub fn encode(&self, endian: $crate::pams::Endian) -> [u8; $size] {
                let mut out = [0u8; $size];
                $( $crate::pams::wire::WireField::write(
                    &self.$field,
                    out.get_mut($off..).unwrap_or_default(),
                    endian,
                ); )*
                out
            }
        }

        impl $crate::pams::wire::WireField for $name {
            const SIZE: usize = $size;
            fn read(b: &[u8], endian: $crate::pams::Endian) -> Self {
                Self::read_fields(b, endian)
            }
            fn write(&self, b: &mut [u8], endian: $crate::pams::Endian) {
                $crate::pams::wire::put(b, &self.encode(endian));
            }
        }
    };
    (@check $value:ident) => {
        $crate::pams::wire::no_check(&$value)?
    };
    (@check $value:ident $check:path) => {
        $check(&$value)?
    };
}

pub(crate) use wire_struct;

/// Test helper: the fields of a layout cover `0..size` without gap or overlap.
#[cfg(test)]
pub(crate) fn assert_contiguous(layout: &[(&str, usize, usize)], size: usize) {
    let mut at = 0;
    for &(name, off, len) in layout {
        assert_eq!(off, at, "field {name} starts at {off}, expected {at}");
        at += len;
    }
    assert_eq!(at, size, "fields end at {at}, structure size {size}");
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn short_input_reads_zeros_and_writes_what_fits() {
        assert_eq!(i32::read(&[1, 2], Endian::Big), 0x0102_0000);
        let mut b = [0u8; 3];
        0x0A0B_0C0Di32.write(&mut b, Endian::Big);
        assert_eq!(b, [0x0A, 0x0B, 0x0C]);
        assert_eq!(i8::read(&[], Endian::Big), 0);
        assert_eq!(<[u8; 3]>::read(&[9], Endian::Little), [9, 0, 0]);
    }
}

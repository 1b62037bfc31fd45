//! In-place edits of fixed character fields in a message buffer (`&mut [u8]`,
//! so also `bytes::BytesMut`): no allocation, no reallocation, every other byte
//! left as it was (mqgate's byte-fidelity rule: an edit touches only its
//! field).

use super::error::{DecodeError, DecodeErrorKind};
use super::field::{Charset, FieldError};
use super::strucid::Structure;
use super::xqh::{REMOTE_Q_MGR_NAME_OFFSET, REMOTE_Q_NAME_OFFSET, XQH_LENGTH};

/// Sets the `len`-byte character field at `buf[offset..]` to `value` in `cs`,
/// blank padded. The value is checked completely before the first byte is
/// written, so on error the buffer is unchanged.
///
/// Errors: [`FieldError::OutOfBounds`] when the field is not inside `buf`,
/// [`FieldError::TooLong`] when `value` has more than `len` characters,
/// [`FieldError::BadCharacter`] for a character outside MQ's invariant set.
pub fn set_char_field(
    buf: &mut [u8],
    offset: usize,
    len: usize,
    value: &str,
    cs: Charset,
) -> Result<(), FieldError> {
    let buf_len = buf.len();
    let field = offset
        .checked_add(len)
        .and_then(|end| buf.get_mut(offset..end))
        .ok_or(FieldError::OutOfBounds {
            offset,
            len,
            buf_len,
        })?;
    check_value(value, len, cs)?;
    fill_field(field, value, cs);
    Ok(())
}

/// Writes a value [`check_value`] accepted: invariant characters are ASCII,
/// so bytes and characters coincide.
#[inline]
fn fill_field(field: &mut [u8], value: &str, cs: Charset) {
    let v = value.as_bytes();
    let (head, tail) = field.split_at_mut(v.len().min(field.len()));
    match cs {
        Charset::Ascii => head.copy_from_slice(&v[..head.len()]),
        Charset::Ebcdic => {
            for (d, &b) in head.iter_mut().zip(v) {
                *d = cs.encode_invariant_byte(b).unwrap_or(0x40);
            }
        }
    }
    tail.fill(cs.blank());
}

/// Checks that `value` fits a `len`-byte field of invariant characters.
#[inline]
fn check_value(value: &str, len: usize, cs: Charset) -> Result<(), FieldError> {
    let v = value.as_bytes();
    if v.len() <= len && v.iter().all(|&b| cs.encode_invariant_byte(b).is_some()) {
        return Ok(());
    }
    value_error(value, len, cs)
}

/// The precise error for a value [`check_value`] refused.
#[cold]
fn value_error(value: &str, len: usize, cs: Charset) -> Result<(), FieldError> {
    let mut count = 0;
    for (i, c) in value.chars().enumerate() {
        if cs.encode_invariant(c).is_none() {
            return Err(FieldError::BadCharacter { ch: c, position: i });
        }
        count += 1;
    }
    if count > len {
        return Err(FieldError::TooLong {
            len: count,
            max: len,
        });
    }
    Ok(())
}

/// Why an in-place edit of a structure was refused.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
pub enum EditError {
    /// The bytes at the given offset are not the expected structure.
    #[error(transparent)]
    Structure(#[from] DecodeError),
    /// The new value does not fit the field.
    #[error(transparent)]
    Field(#[from] FieldError),
}

/// Sets RemoteQName and RemoteQMgrName of the MQXQH at `buf[xqh_offset..]`
/// in place, in the charset its StrucId (`XQH ` ASCII or EBCDIC) shows.
/// Both values are checked before either is written. Returns that charset.
///
/// Errors: [`EditError::Structure`] when no whole MQXQH StrucId is there
/// (2142 MQRC_HEADER_ERROR); [`EditError::Field`] as [`set_char_field`].
pub fn set_remote_names(
    buf: &mut [u8],
    xqh_offset: usize,
    remote_q_name: &str,
    remote_q_mgr_name: &str,
) -> Result<Charset, EditError> {
    let end = xqh_offset.saturating_add(XQH_LENGTH);
    let available = buf.len().saturating_sub(xqh_offset);
    let xqh = buf.get_mut(xqh_offset..end).ok_or_else(|| {
        DecodeError::new(
            Structure::Xqh,
            xqh_offset,
            DecodeErrorKind::Truncated {
                needed: XQH_LENGTH,
                available,
            },
        )
    })?;
    let cs = Structure::Xqh.match_struc_id(xqh).ok_or_else(|| {
        let mut found = [0u8; 4];
        found.copy_from_slice(&xqh[..4]);
        DecodeError::new(
            Structure::Xqh,
            xqh_offset,
            DecodeErrorKind::BadStrucId { found },
        )
    })?;
    check_value(remote_q_name, 48, cs)?;
    check_value(remote_q_mgr_name, 48, cs)?;
    fill_field(
        &mut xqh[REMOTE_Q_NAME_OFFSET..REMOTE_Q_NAME_OFFSET + 48],
        remote_q_name,
        cs,
    );
    fill_field(
        &mut xqh[REMOTE_Q_MGR_NAME_OFFSET..REMOTE_Q_MGR_NAME_OFFSET + 48],
        remote_q_mgr_name,
        cs,
    );
    Ok(cs)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn set_char_field_pads_with_blanks_and_keeps_other_bytes() {
        let mut buf = [0xAAu8; 12];
        set_char_field(&mut buf, 2, 8, "Q.1", Charset::Ascii).unwrap();
        assert_eq!(buf, *b"\xAA\xAAQ.1     \xAA\xAA");
        // EBCDIC (field.rs): blank 0x40, 'Q' 0xD8.
        set_char_field(&mut buf, 2, 8, "Q", Charset::Ebcdic).unwrap();
        assert_eq!(
            &buf[2..10],
            &[0xD8, 0x40, 0x40, 0x40, 0x40, 0x40, 0x40, 0x40]
        );
    }

    #[test]
    fn set_char_field_refuses_without_touching_the_buffer() {
        let mut buf = [0u8; 10];
        assert_eq!(
            set_char_field(&mut buf, 4, 8, "A", Charset::Ascii),
            Err(FieldError::OutOfBounds {
                offset: 4,
                len: 8,
                buf_len: 10
            })
        );
        assert_eq!(
            set_char_field(&mut buf, 0, 4, "ABCDE", Charset::Ascii),
            Err(FieldError::TooLong { len: 5, max: 4 })
        );
        assert!(matches!(
            set_char_field(&mut buf, 0, 8, "AB-C", Charset::Ascii),
            Err(FieldError::BadCharacter {
                ch: '-',
                position: 2
            })
        ));
        assert!(matches!(
            set_char_field(&mut buf, usize::MAX, 2, "A", Charset::Ascii),
            Err(FieldError::OutOfBounds { .. })
        ));
        assert_eq!(buf, [0u8; 10]);
    }

    #[test]
    fn set_remote_names_in_place_on_bytes_mut() {
        use crate::mq::md::Mqmd;
        use crate::mq::xqh::{Mqxqh, write_xqh};
        use crate::mq::{ByteOrder, CharField};
        let x = Mqxqh {
            version: 1,
            remote_q_name: CharField::new("DEV1%Q.IN", Charset::Ascii).unwrap(),
            remote_q_mgr_name: CharField::new("GW", Charset::Ascii).unwrap(),
            msg_desc: Mqmd {
                version: 1,
                ..Mqmd::default()
            },
        };
        let mut v = b"prefix".to_vec();
        write_xqh(&x, ByteOrder::Little, Charset::Ascii, &mut v);
        let mut buf = bytes::BytesMut::from(&v[..]);
        let ptr = buf.as_ptr();
        assert_eq!(
            set_remote_names(&mut buf, 6, "Q.IN", "DEV1"),
            Ok(Charset::Ascii)
        );
        assert_eq!(buf.as_ptr(), ptr);
        // IBM MQ "MQXQH - Transmission-queue header": RemoteQName @8, RemoteQMgrName @56,
        // blank padded to 48.
        let mut want = v.clone();
        want[6 + 8..6 + 56].copy_from_slice(&[b' '; 48]);
        want[6 + 8..6 + 12].copy_from_slice(b"Q.IN");
        want[6 + 56..6 + 104].copy_from_slice(&[b' '; 48]);
        want[6 + 56..6 + 60].copy_from_slice(b"DEV1");
        assert_eq!(&buf[..], &want[..]);
        // Not an XQH at offset 0: refused, nothing written.
        let e = set_remote_names(&mut buf, 0, "A", "B").unwrap_err();
        assert!(matches!(e, EditError::Structure(ref d) if d.offset == 0 && d.mqrc().0 == 2142));
        // The second name is too long: neither is written.
        let long = "Q".repeat(49);
        assert!(set_remote_names(&mut buf, 6, "OTHER", &long).is_err());
        assert_eq!(&buf[..], &want[..]);
    }
}

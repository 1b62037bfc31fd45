//! USERID_DATA (segment type 0x08), StrucId `UID `: the user the client
//! runs as (the Wireshark MQ dissector's "User Id Data"). 28 bytes at low
//! FAP levels, 132 from level 5 on (real JMS clients send 132):
//!
//! | off | len | field |
//! |---:|---:|---|
//! | 0 | 4 | StrucId `UID ` |
//! | 4 | 12 | UserIdentifier |
//! | 16 | 12 | Password |
//! | 28 | 64 | LongUserId (132-byte form) |
//! | 92 | 40 | SecurityId: length byte, type byte, id (132-byte form) |

use crate::mq::ByteOrder;

use super::error::{FapError, FapErrorKind, FapStructure};
use super::read::{Reader, struc_id_bytes};

const ASCII: &[u8; 4] = b"UID ";
const EBCDIC: &[u8; 4] = &[0xE4, 0xC9, 0xC4, 0x40];

/// The short USERID_DATA length, bytes.
pub const UID_LEN_SHORT: usize = 28;
/// The long USERID_DATA length, bytes.
pub const UID_LEN_LONG: usize = 132;

/// A USERID_DATA body; character fields as sent (blank padded).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct UserIdData {
    pub ebcdic: bool,
    pub user_id: [u8; 12],
    pub password: [u8; 12],
    /// The 132-byte form's LongUserId and SecurityId.
    pub long: Option<([u8; 64], [u8; 40])>,
}

/// Parses a USERID_DATA body of 28 or 132 bytes (`base` = its offset in
/// the segment). Errors: another length (2063), bad StrucId.
pub fn parse_uid(body: &[u8], base: usize) -> Result<UserIdData, FapError> {
    let mut r = Reader::new(body, base, FapStructure::UserIdData, ByteOrder::Big);
    if body.len() != UID_LEN_SHORT && body.len() != UID_LEN_LONG {
        return Err(r.error(
            "length",
            FapErrorKind::OutOfRange {
                value: body.len() as i64,
                min: UID_LEN_SHORT as i64,
                max: UID_LEN_LONG as i64,
            },
        ));
    }
    let ebcdic = r.struc_id(ASCII, EBCDIC)?;
    let user_id = r.array("UserIdentifier")?;
    let password = r.array("Password")?;
    let long = if body.len() == UID_LEN_LONG {
        Some((r.array("LongUserId")?, r.array("SecurityId")?))
    } else {
        None
    };
    Ok(UserIdData {
        ebcdic,
        user_id,
        password,
        long,
    })
}

/// Appends `u` to `out`: 28 or 132 bytes.
pub fn write_uid(u: &UserIdData, out: &mut Vec<u8>) {
    out.extend_from_slice(&struc_id_bytes(ASCII, EBCDIC, u.ebcdic));
    out.extend_from_slice(&u.user_id);
    out.extend_from_slice(&u.password);
    if let Some((l, s)) = &u.long {
        out.extend_from_slice(l);
        out.extend_from_slice(s);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn long_form_round_trips() {
        let mut u = UserIdData {
            ebcdic: false,
            user_id: *b"ROOT        ",
            password: [b' '; 12],
            long: Some(([b' '; 64], [0; 40])),
        };
        if let Some((l, _)) = u.long.as_mut() {
            l[..4].copy_from_slice(b"root");
        }
        let mut b = Vec::new();
        write_uid(&u, &mut b);
        assert_eq!(b.len(), 132);
        assert_eq!(parse_uid(&b, 36).unwrap(), u);
        let e = parse_uid(&b[..100], 36).unwrap_err();
        assert_eq!(e.mqrc().0, 2063);
        b[0] = b'X';
        assert_eq!(parse_uid(&b, 36).unwrap_err().field, "StrucId");
    }
}

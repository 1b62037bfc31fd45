//! CONAUTH_INFO (segment type 0x0A), StrucId `CAUT`: the user id and
//! password of MQCSP-style connection authentication (the Wireshark MQ
//! dissector's "Connection Authority"; real JMS client traffic shows 8
//! bytes between the lengths and the strings):
//!
//! | off | len | field |
//! |---:|---:|---|
//! | 0 | 4 | StrucId `CAUT` |
//! | 4 | 4 | AuthenticationType (1 = user id and password) |
//! | 8 | 4 | UserIdMaxLength |
//! | 12 | 4 | PasswordMaxLength |
//! | 16 | 4 | UserIdLength |
//! | 20 | 4 | PasswordLength |
//! | 24 | 8 | Reserved |
//! | 32 | UserIdLength | user id |
//! | … | PasswordLength | password (protected by the client unless the queue manager offered no protection algorithm) |
//! | … | … | padding to a multiple of 4 |

use crate::mq::ByteOrder;

use super::error::{FapError, FapStructure};
use super::read::{Reader, Writer, struc_id_bytes};

const ASCII: &[u8; 4] = b"CAUT";
const EBCDIC: &[u8; 4] = &[0xC3, 0xC1, 0xE4, 0xE3];

/// The largest user id or password length accepted, bytes (MQCSP allows
/// 1024-character passwords).
pub const CAUT_MAX_STRING: usize = 1024;

/// A CONAUTH_INFO body.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ConAuthInfo<'a> {
    pub ebcdic: bool,
    /// MQCSP_AUTH_*: 1 = user id and password.
    pub authentication_type: i32,
    pub user_id_max_length: i32,
    pub password_max_length: i32,
    pub reserved: [u8; 8],
    pub user_id: &'a [u8],
    pub password: &'a [u8],
    /// Bytes after the password (alignment).
    pub padding: &'a [u8],
}

/// Parses a CONAUTH_INFO body (`base` = its offset in the segment),
/// integers in `order`. Errors (2063): bad StrucId, a length over
/// [`CAUT_MAX_STRING`] or past the body.
pub fn parse_caut(body: &[u8], base: usize, order: ByteOrder) -> Result<ConAuthInfo<'_>, FapError> {
    let mut r = Reader::new(body, base, FapStructure::ConAuthInfo, order);
    let ebcdic = r.struc_id(ASCII, EBCDIC)?;
    let authentication_type = r.i32("AuthenticationType")?;
    let user_id_max_length = r.i32("UserIdMaxLength")?;
    let password_max_length = r.i32("PasswordMaxLength")?;
    let ulen = r.count("UserIdLength", CAUT_MAX_STRING)?;
    let plen = r.count("PasswordLength", CAUT_MAX_STRING)?;
    let reserved = r.array("Reserved")?;
    let user_id = r.bytes("UserId", ulen)?;
    let password = r.bytes("Password", plen)?;
    Ok(ConAuthInfo {
        ebcdic,
        authentication_type,
        user_id_max_length,
        password_max_length,
        reserved,
        user_id,
        password,
        padding: r.rest(),
    })
}

/// Appends `c` to `out`, integers in `order`.
pub fn write_caut(c: &ConAuthInfo<'_>, order: ByteOrder, out: &mut Vec<u8>) {
    let mut w = Writer { out, order };
    w.bytes(&struc_id_bytes(ASCII, EBCDIC, c.ebcdic));
    w.i32(c.authentication_type);
    w.i32(c.user_id_max_length);
    w.i32(c.password_max_length);
    w.i32(c.user_id.len() as i32);
    w.i32(c.password.len() as i32);
    w.bytes(&c.reserved);
    w.bytes(c.user_id);
    w.bytes(c.password);
    w.bytes(c.padding);
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_real_layout_round_trips() {
        // A real JMS client's CONAUTH_INFO (user "app", 8 protected password
        // bytes, 1 byte of padding), little-endian.
        let b = hex::decode(
            "43415554010000000300000008000000030000000800000000000000000000006170\
             7001f4baf42aeca0e100",
        )
        .unwrap();
        let c = parse_caut(&b, 36, ByteOrder::Little).unwrap();
        assert_eq!(c.authentication_type, 1);
        assert_eq!(c.user_id, b"app");
        assert_eq!(c.password.len(), 8);
        assert_eq!(c.padding, &[0]);
        let mut out = Vec::new();
        write_caut(&c, ByteOrder::Little, &mut out);
        assert_eq!(out, b);
        let mut bad = b.clone();
        bad[19] = 0x7F;
        let e = parse_caut(&bad, 36, ByteOrder::Little).unwrap_err();
        assert_eq!((e.offset, e.field), (52, "UserIdLength"));
        assert_eq!(e.mqrc().0, 2063);
    }
}

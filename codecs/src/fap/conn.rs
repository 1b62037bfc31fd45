//! The parameters of MQCONN / MQCONNX and their reply (segment types 0x81,
//! 0x91), after the API header: 120 fixed bytes (the Wireshark MQ
//! dissector's "MQCONN"), then, from FAP level 8 on, an FCNO structure
//! (the dissector's "F Connect Option") carrying MQCNO data. The reply
//! repeats the request's layout with the queue manager's values.
//!
//! | off | len | field |
//! |---:|---:|---|
//! | 0 | 48 | QMgrName (`*` or blank: any) |
//! | 48 | 28 | ApplName |
//! | 76 | 4 | ApplType (MQAT_*; 28 = Java) |
//! | 80 | 32 | AccountingToken |
//! | 112 | 4 | Options |
//! | 116 | 4 | XOptions |
//! | 120 | 4 | FCNO StrucId `FCNO` |
//! | 124 | 4 | FCNO Version |
//! | 128 | 4 | FCNO Options |
//! | 132 | 128 | ConnTag (Version ≥ 1; the reply's ConnectionId in its first 24 bytes) |
//! | 260 | 128 | second tag (Version ≥ 3; the reply's connection tag text) |
//! | 388 | … | rest (kept as bytes) |

use crate::mq::ByteOrder;

use super::error::{FapError, FapStructure};
use super::read::{Reader, Writer, struc_id_bytes};

const FCNO_ASCII: &[u8; 4] = b"FCNO";
const FCNO_EBCDIC: &[u8; 4] = &[0xC6, 0xC3, 0xD5, 0xD6];

/// Length of the fixed MQCONN parameters, bytes.
pub const CONN_FIXED_LEN: usize = 120;

/// The FCNO structure.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Fcno<'a> {
    pub ebcdic: bool,
    pub version: i32,
    pub options: i32,
    /// Version ≥ 1.
    pub conn_tag: Option<[u8; 128]>,
    /// Version ≥ 3.
    pub conn_tag2: Option<[u8; 128]>,
    /// Bytes after the fields above, up to the end of the body.
    pub rest: &'a [u8],
}

/// MQCONN parameters (request or reply).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ConnData<'a> {
    pub q_mgr_name: [u8; 48],
    pub appl_name: [u8; 28],
    pub appl_type: i32,
    pub accounting_token: [u8; 32],
    pub options: i32,
    pub x_options: i32,
    /// `None` when the body ends after the fixed part.
    pub fcno: Option<Fcno<'a>>,
    /// Bytes after the fixed part that are no FCNO.
    pub rest: &'a [u8],
}

/// Parses MQCONN parameters (the body after the API header; `base` = its
/// offset in the segment), integers in `order`. Errors (2009): fewer than
/// 120 bytes, an FCNO cut short.
pub fn parse_conn(body: &[u8], base: usize, order: ByteOrder) -> Result<ConnData<'_>, FapError> {
    let mut r = Reader::new(body, base, FapStructure::Conn, order);
    r.need("QMgrName", CONN_FIXED_LEN)?;
    let q_mgr_name = r.array("QMgrName")?;
    let appl_name = r.array("ApplName")?;
    let appl_type = r.i32("ApplType")?;
    let accounting_token = r.array("AccountingToken")?;
    let options = r.i32("Options")?;
    let x_options = r.i32("XOptions")?;
    let is_fcno = matches!(body.get(CONN_FIXED_LEN..CONN_FIXED_LEN + 4),
        Some(id) if id == FCNO_ASCII || id == FCNO_EBCDIC);
    let (fcno, rest) = if is_fcno {
        r.set_structure(FapStructure::Fcno);
        let ebcdic = r.struc_id(FCNO_ASCII, FCNO_EBCDIC)?;
        let version = r.i32("Version")?;
        let options = r.i32("Options")?;
        let conn_tag = if version >= 1 {
            Some(r.array("ConnTag")?)
        } else {
            None
        };
        let conn_tag2 = if version >= 3 {
            Some(r.array("ConnTag2")?)
        } else {
            None
        };
        let f = Fcno {
            ebcdic,
            version,
            options,
            conn_tag,
            conn_tag2,
            rest: r.rest(),
        };
        (Some(f), &[][..])
    } else {
        (None, r.rest())
    };
    Ok(ConnData {
        q_mgr_name,
        appl_name,
        appl_type,
        accounting_token,
        options,
        x_options,
        fcno,
        rest,
    })
}

/// Appends `c` to `out`, integers in `order`.
pub fn write_conn(c: &ConnData<'_>, order: ByteOrder, out: &mut Vec<u8>) {
    let mut w = Writer { out, order };
    w.bytes(&c.q_mgr_name);
    w.bytes(&c.appl_name);
    w.i32(c.appl_type);
    w.bytes(&c.accounting_token);
    w.i32(c.options);
    w.i32(c.x_options);
    if let Some(f) = &c.fcno {
        w.bytes(&struc_id_bytes(FCNO_ASCII, FCNO_EBCDIC, f.ebcdic));
        w.i32(f.version);
        w.i32(f.options);
        if let Some(t) = &f.conn_tag {
            w.bytes(t);
        }
        if let Some(t) = &f.conn_tag2 {
            w.bytes(t);
        }
        w.bytes(f.rest);
    }
    w.bytes(c.rest);
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn fixed_part_and_fcno() {
        let mut q = [b' '; 48];
        q[0] = b'*';
        let c = ConnData {
            q_mgr_name: q,
            appl_name: [b' '; 28],
            appl_type: 28,
            accounting_token: [0; 32],
            options: 7,
            x_options: 0,
            fcno: Some(Fcno {
                ebcdic: false,
                version: 4,
                options: 4,
                conn_tag: Some([0; 128]),
                conn_tag2: Some([0; 128]),
                rest: &[0xFF; 84],
            }),
            rest: &[],
        };
        let mut b = Vec::new();
        write_conn(&c, ByteOrder::Little, &mut b);
        // 472 bytes after the API header in a real JMS client's MQCONN.
        assert_eq!(b.len(), 472);
        assert_eq!(&b[120..124], b"FCNO");
        assert_eq!(parse_conn(&b, 52, ByteOrder::Little).unwrap(), c);
        let e = parse_conn(&b[..200], 52, ByteOrder::Little).unwrap_err();
        assert_eq!(
            (e.structure, e.field, e.offset),
            (FapStructure::Fcno, "ConnTag", 184)
        );
        let plain = parse_conn(&b[..120], 52, ByteOrder::Little).unwrap();
        assert!(plain.fcno.is_none());
    }
}

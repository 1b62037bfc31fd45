//! MQOPEN and MQCLOSE bodies (after the API header; the Wireshark MQ
//! dissector's "MQOPEN/MQCLOSE"). MQOPEN and its reply: MQOD, Options
//! (MQOO_*), then from FAP level 10 a FOPA structure and sometimes an FCMI;
//! the reply repeats the request with the queue manager's values (and the
//! handle in the API header). MQCLOSE: Options (MQCO_*); its reply has no
//! body.
//!
//! FOPA (undocumented; the dissector's field names): StrucId `FOPA`,
//! Version, Length, DefPersistence, DefPutResponseType, DefReadAhead,
//! PropertyControl, then Length - 28 bytes kept as they are.

use crate::mq::ByteOrder;

use super::error::{FapError, FapErrorKind, FapStructure};
use super::od::{Mqod, parse_od, write_od};
use super::read::{Reader, Writer, struc_id_bytes};

const FOPA_ASCII: &[u8; 4] = b"FOPA";
const FOPA_EBCDIC: &[u8; 4] = &[0xC6, 0xD6, 0xD7, 0xC1];
const FCMI_ASCII: &[u8; 4] = b"FCMI";
const FCMI_EBCDIC: &[u8; 4] = &[0xC6, 0xC3, 0xD4, 0xC9];

/// MQOO_* open options.
pub mod oo {
    pub const INPUT_AS_Q_DEF: i32 = 0x1;
    pub const INPUT_SHARED: i32 = 0x2;
    pub const INPUT_EXCLUSIVE: i32 = 0x4;
    pub const BROWSE: i32 = 0x8;
    pub const OUTPUT: i32 = 0x10;
    pub const INQUIRE: i32 = 0x20;
    pub const SET: i32 = 0x40;
    pub const SAVE_ALL_CONTEXT: i32 = 0x80;
    pub const PASS_IDENTITY_CONTEXT: i32 = 0x100;
    pub const PASS_ALL_CONTEXT: i32 = 0x200;
    pub const SET_IDENTITY_CONTEXT: i32 = 0x400;
    pub const SET_ALL_CONTEXT: i32 = 0x800;
    pub const ALTERNATE_USER_AUTHORITY: i32 = 0x1000;
    pub const FAIL_IF_QUIESCING: i32 = 0x2000;
    /// Any input option.
    pub const INPUT_MASK: i32 = INPUT_AS_Q_DEF | INPUT_SHARED | INPUT_EXCLUSIVE;
}

/// The FOPA structure of MQOPEN.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Fopa<'a> {
    pub ebcdic: bool,
    pub version: i32,
    pub def_persistence: i32,
    pub def_put_response_type: i32,
    pub def_read_ahead: i32,
    pub property_control: i32,
    /// Length - 28 bytes after the fields above.
    pub rest: &'a [u8],
}

/// MQOPEN request or reply parameters.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct OpenData<'a> {
    pub od: Mqod,
    /// MQOO_*.
    pub options: i32,
    pub fopa: Option<Fopa<'a>>,
    /// The 8-byte FCMI when present.
    pub fcmi: Option<[u8; 8]>,
    /// Bytes after all that.
    pub rest: &'a [u8],
}

/// Parses MQOPEN parameters (`base` = the body's offset in the segment).
/// Errors: the MQOD's (2044); a missing Options field or a FOPA Length
/// below 28 or past the body (2046 MQRC_OPTIONS_ERROR).
pub fn parse_open(body: &[u8], base: usize, order: ByteOrder) -> Result<OpenData<'_>, FapError> {
    let (od, od_len) = parse_od(body, base, order)?;
    let mut r = Reader::new(&body[od_len..], base + od_len, FapStructure::Open, order);
    let options = r.i32("Options")?;
    let fopa = if starts_with(&body[od_len + 4..], FOPA_ASCII, FOPA_EBCDIC) {
        let ebcdic = r.struc_id(FOPA_ASCII, FOPA_EBCDIC)?;
        let version = r.i32("Version")?;
        let at = r.pos();
        let len = r.count("Length", r.remaining() + 8)?;
        if len < 28 {
            return Err(r.error_at(
                at,
                "Length",
                FapErrorKind::OutOfRange {
                    value: len as i64,
                    min: 28,
                    max: (r.remaining() + 4 + 8) as i64,
                },
            ));
        }
        Some(Fopa {
            ebcdic,
            version,
            def_persistence: r.i32("DefPersistence")?,
            def_put_response_type: r.i32("DefPutResponseType")?,
            def_read_ahead: r.i32("DefReadAhead")?,
            property_control: r.i32("PropertyControl")?,
            rest: r.bytes("FOPA", len - 28)?,
        })
    } else {
        None
    };
    let at = r.pos();
    let fcmi = if starts_with(&body[od_len + at..], FCMI_ASCII, FCMI_EBCDIC) {
        Some(r.array("FCMI")?)
    } else {
        None
    };
    Ok(OpenData {
        od,
        options,
        fopa,
        fcmi,
        rest: r.rest(),
    })
}

fn starts_with(b: &[u8], ascii: &[u8; 4], ebcdic: &[u8; 4]) -> bool {
    matches!(b.get(..4), Some(id) if id == ascii || id == ebcdic)
}

/// Appends MQOPEN parameters to `out`, integers in `order`.
pub fn write_open(o: &OpenData<'_>, order: ByteOrder, out: &mut Vec<u8>) {
    write_od(&o.od, order, out);
    let mut w = Writer { out, order };
    w.i32(o.options);
    if let Some(f) = &o.fopa {
        w.bytes(&struc_id_bytes(FOPA_ASCII, FOPA_EBCDIC, f.ebcdic));
        w.i32(f.version);
        w.i32(28 + f.rest.len() as i32);
        w.i32(f.def_persistence);
        w.i32(f.def_put_response_type);
        w.i32(f.def_read_ahead);
        w.i32(f.property_control);
        w.bytes(f.rest);
    }
    if let Some(f) = &o.fcmi {
        w.bytes(f);
    }
    w.bytes(o.rest);
}

/// Parses MQCLOSE parameters: Options (MQCO_*). Errors: fewer than 4
/// bytes, or more.
pub fn parse_close(body: &[u8], base: usize, order: ByteOrder) -> Result<i32, FapError> {
    let mut r = Reader::new(body, base, FapStructure::Open, order);
    let options = r.i32("Options")?;
    r.end()?;
    Ok(options)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn open_with_fopa_round_trips() {
        let od = Mqod {
            version: 2,
            object_type: super::super::od::ot::Q_MGR,
            ..Mqod::default()
        };
        let rest = [b' '; 56];
        let o = OpenData {
            od,
            options: oo::INQUIRE | oo::FAIL_IF_QUIESCING,
            fopa: Some(Fopa {
                ebcdic: false,
                version: 2,
                def_persistence: -1,
                def_put_response_type: -1,
                def_read_ahead: 0,
                property_control: 0,
                rest: &rest,
            }),
            fcmi: None,
            rest: &[],
        };
        let mut b = Vec::new();
        write_open(&o, ByteOrder::Little, &mut b);
        // 288 bytes after the API header in a real MQOPEN of the queue
        // manager object: MQOD v2 (200), Options 0x2020 (4), FOPA (84).
        assert_eq!(b.len(), 288);
        assert_eq!(&b[204..208], b"FOPA");
        assert_eq!(parse_open(&b, 52, ByteOrder::Little).unwrap(), o);
        let mut bad = b.clone();
        bad[212..216].copy_from_slice(&200i32.to_le_bytes());
        let e = parse_open(&bad, 52, ByteOrder::Little).unwrap_err();
        assert_eq!((e.field, e.offset, e.mqrc().0), ("Length", 264, 2046));
        assert_eq!(parse_close(&[0; 4], 52, ByteOrder::Little).unwrap(), 0);
        assert!(parse_close(&[0; 5], 52, ByteOrder::Little).is_err());
    }
}

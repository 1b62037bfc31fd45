//! Which MQ structure a StrucId or a Format name announces (ASCII and EBCDIC
//! StrucIds: the Wireshark MQ dissector, packet-mq.c; format names: IBM MQ
//! "Format (MQCHAR8)").

use std::fmt;

use super::constants::fmt as mqfmt;
use super::field::{CharField, Charset};

/// The MQ structures mqgate reads. Names are MQ's (`MQMD`, `MQRFH2`, ...).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Structure {
    /// Message descriptor, StrucId `MD  `.
    Md,
    /// Message descriptor extension, StrucId `MDE `, Format `MQHMDE  `.
    Mde,
    /// Transmission queue header, StrucId `XQH `, Format `MQXMIT  `.
    Xqh,
    /// Dead-letter header, StrucId `DLH `, Format `MQDEAD  `.
    Dlh,
    /// Rules and formatting header version 1, StrucId `RFH `, Format `MQHRF   `.
    Rfh,
    /// Rules and formatting header version 2, StrucId `RFH `, Format `MQHRF2  `.
    Rfh2,
    /// IMS bridge header, StrucId `IIH `, Format `MQIMS   `.
    Iih,
    /// CICS bridge header, StrucId `CIH `, Format `MQCICS  `.
    Cih,
    /// Work information header, StrucId `WIH `, Format `MQHWIH  ` (IBM MQ
    /// "MQWIH - Work information header").
    Wih,
    /// Reference message header, StrucId `RMH `, Format `MQHREF  ` (IBM MQ
    /// "MQRMH - Reference message header").
    Rmh,
    /// Distribution header, StrucId `DH  `, Format `MQHDIST ` (IBM MQ "MQDH -
    /// Distribution header").
    Dh,
}

impl Structure {
    /// MQ's name of the structure, e.g. `MQRFH2`.
    pub fn name(self) -> &'static str {
        match self {
            Structure::Md => "MQMD",
            Structure::Mde => "MQMDE",
            Structure::Xqh => "MQXQH",
            Structure::Dlh => "MQDLH",
            Structure::Rfh => "MQRFH",
            Structure::Rfh2 => "MQRFH2",
            Structure::Iih => "MQIIH",
            Structure::Cih => "MQCIH",
            Structure::Wih => "MQWIH",
            Structure::Rmh => "MQRMH",
            Structure::Dh => "MQDH",
        }
    }

    /// The StrucId in ASCII (IBM's MQ*_STRUC_ID constants).
    pub fn struc_id_ascii(self) -> &'static [u8; 4] {
        match self {
            Structure::Md => b"MD  ",
            Structure::Mde => b"MDE ",
            Structure::Xqh => b"XQH ",
            Structure::Dlh => b"DLH ",
            Structure::Rfh | Structure::Rfh2 => b"RFH ",
            Structure::Iih => b"IIH ",
            Structure::Cih => b"CIH ",
            Structure::Wih => b"WIH ",
            Structure::Rmh => b"RMH ",
            Structure::Dh => b"DH  ",
        }
    }

    /// The StrucId in EBCDIC (`MD  ` = `D4 C4 40 40`).
    #[inline]
    pub fn struc_id_ebcdic(self) -> [u8; 4] {
        match self {
            Structure::Md => EBCDIC_MD,
            Structure::Mde => EBCDIC_MDE,
            Structure::Xqh => EBCDIC_XQH,
            Structure::Dlh => EBCDIC_DLH,
            Structure::Rfh | Structure::Rfh2 => EBCDIC_RFH,
            Structure::Iih => EBCDIC_IIH,
            Structure::Cih => EBCDIC_CIH,
            Structure::Wih => EBCDIC_WIH,
            Structure::Rmh => EBCDIC_RMH,
            Structure::Dh => EBCDIC_DH,
        }
    }

    /// The StrucId in `cs`: ASCII, or EBCDIC (`MD  ` = `D4 C4 40 40`).
    #[inline]
    pub fn struc_id(self, cs: Charset) -> [u8; 4] {
        match cs {
            Charset::Ascii => *self.struc_id_ascii(),
            Charset::Ebcdic => self.struc_id_ebcdic(),
        }
    }

    /// The charset in which `found` is this structure's StrucId, if it is.
    #[inline]
    pub fn match_struc_id(self, found: &[u8]) -> Option<Charset> {
        let found: [u8; 4] = found.get(..4)?.try_into().ok()?;
        if found == *self.struc_id_ascii() {
            Some(Charset::Ascii)
        } else if found == self.struc_id_ebcdic() {
            Some(Charset::Ebcdic)
        } else {
            None
        }
    }

    /// The structure a StrucId names (RFH is reported as [`Structure::Rfh`];
    /// its Version tells v1 from v2) and the charset it is written in.
    pub fn from_struc_id(found: &[u8]) -> Option<(Structure, Charset)> {
        let found: [u8; 4] = found.get(..4)?.try_into().ok()?;
        const fn id(b: &[u8; 4]) -> u32 {
            u32::from_be_bytes(*b)
        }
        const MD: u32 = id(b"MD  ");
        const XQH: u32 = id(b"XQH ");
        const RFH: u32 = id(b"RFH ");
        const MDE: u32 = id(b"MDE ");
        const DLH: u32 = id(b"DLH ");
        const CIH: u32 = id(b"CIH ");
        const IIH: u32 = id(b"IIH ");
        const WIH: u32 = id(b"WIH ");
        const RMH: u32 = id(b"RMH ");
        const DH: u32 = id(b"DH  ");
        const E_MD: u32 = id(&EBCDIC_MD);
        const E_XQH: u32 = id(&EBCDIC_XQH);
        const E_RFH: u32 = id(&EBCDIC_RFH);
        const E_MDE: u32 = id(&EBCDIC_MDE);
        const E_DLH: u32 = id(&EBCDIC_DLH);
        const E_CIH: u32 = id(&EBCDIC_CIH);
        const E_IIH: u32 = id(&EBCDIC_IIH);
        const E_WIH: u32 = id(&EBCDIC_WIH);
        const E_RMH: u32 = id(&EBCDIC_RMH);
        const E_DH: u32 = id(&EBCDIC_DH);
        let a = Charset::Ascii;
        let e = Charset::Ebcdic;
        Some(match id(&found) {
            MD => (Structure::Md, a),
            XQH => (Structure::Xqh, a),
            RFH => (Structure::Rfh, a),
            MDE => (Structure::Mde, a),
            DLH => (Structure::Dlh, a),
            CIH => (Structure::Cih, a),
            IIH => (Structure::Iih, a),
            WIH => (Structure::Wih, a),
            RMH => (Structure::Rmh, a),
            DH => (Structure::Dh, a),
            E_MD => (Structure::Md, e),
            E_XQH => (Structure::Xqh, e),
            E_RFH => (Structure::Rfh, e),
            E_MDE => (Structure::Mde, e),
            E_DLH => (Structure::Dlh, e),
            E_CIH => (Structure::Cih, e),
            E_IIH => (Structure::Iih, e),
            E_WIH => (Structure::Wih, e),
            E_RMH => (Structure::Rmh, e),
            E_DH => (Structure::Dh, e),
            _ => return None,
        })
    }

    /// True for the structures whose Encoding and CodedCharSetId are reserved,
    /// the data after them being in their own CCSID and Encoding: MQIIH and
    /// MQCIH (IBM MQ "Encoding (MQLONG) for MQIIH", "MQCIH - CICS bridge
    /// header": do not use their CodedCharSetId and Encoding fields for the
    /// data that follows).
    pub fn inherits_descriptor(self) -> bool {
        matches!(self, Structure::Iih | Structure::Cih)
    }

    /// The MQFMT name that announces this structure (the MQMD has none).
    pub fn format(self) -> Option<&'static [u8; 8]> {
        match self {
            Structure::Md => None,
            Structure::Mde => Some(mqfmt::MD_EXTENSION),
            Structure::Xqh => Some(mqfmt::XMIT_Q_HEADER),
            Structure::Dlh => Some(mqfmt::DEAD_LETTER_HEADER),
            Structure::Rfh => Some(mqfmt::RF_HEADER_1),
            Structure::Rfh2 => Some(mqfmt::RF_HEADER_2),
            Structure::Iih => Some(mqfmt::IMS),
            Structure::Cih => Some(mqfmt::CICS),
            Structure::Wih => Some(mqfmt::WORK_INFO_HEADER),
            Structure::Rmh => Some(mqfmt::REF_MSG_HEADER),
            Structure::Dh => Some(mqfmt::DIST_HEADER),
        }
    }

    /// The structure a Format field (in `cs`) announces, compared on the 8-byte
    /// blank-padded form with a NUL ending the name (IBM MQ "Format (MQCHAR8)",
    /// "ObjectName (MQCHAR48)"), so `MQHRF2\0\0` names the MQRFH2.
    #[inline]
    pub fn from_format(format: &CharField<8>, cs: Charset) -> Option<Structure> {
        // Fast path: the blank-padded ASCII names as they almost always come.
        const fn word(name: &[u8; 8]) -> u64 {
            u64::from_ne_bytes(*name)
        }
        if cs == Charset::Ascii {
            let w = word(&format.0);
            if w == word(mqfmt::RF_HEADER_2) {
                return Some(Structure::Rfh2);
            } else if w == word(mqfmt::STRING) || w == word(mqfmt::NONE) {
                return None;
            } else if w == word(mqfmt::XMIT_Q_HEADER) {
                return Some(Structure::Xqh);
            } else if w == word(mqfmt::MD_EXTENSION) {
                return Some(Structure::Mde);
            }
        }
        // By value: a reference escaping into the out-of-line path would
        // keep the caller's descriptor in memory.
        Self::from_format_slow(*format, cs)
    }

    #[cold]
    #[inline(never)]
    fn from_format_slow(format: CharField<8>, cs: Charset) -> Option<Structure> {
        let name = ascii_format(&format, cs);
        match &name {
            b"MQHMDE  " => Some(Structure::Mde),
            b"MQXMIT  " => Some(Structure::Xqh),
            b"MQDEAD  " => Some(Structure::Dlh),
            b"MQHRF   " => Some(Structure::Rfh),
            b"MQHRF2  " => Some(Structure::Rfh2),
            b"MQIMS   " => Some(Structure::Iih),
            b"MQCICS  " => Some(Structure::Cih),
            b"MQHWIH  " => Some(Structure::Wih),
            b"MQHREF  " => Some(Structure::Rmh),
            b"MQHDIST " => Some(Structure::Dh),
            _ => None,
        }
    }
}

impl fmt::Display for Structure {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name())
    }
}

/// A Format field as 8 ASCII bytes: NUL ends the name, the rest is blanks;
/// EBCDIC invariant characters are mapped to ASCII, others to `?`.
pub fn ascii_format(format: &CharField<8>, cs: Charset) -> [u8; 8] {
    let mut out = [b' '; 8];
    for (o, &b) in out.iter_mut().zip(format.0.iter()) {
        if b == 0 {
            break;
        }
        *o = match cs {
            Charset::Ascii => b,
            Charset::Ebcdic => {
                let c = cs.decode_byte(b);
                if c.is_ascii() { c as u8 } else { b'?' }
            }
        };
    }
    out
}

const EBCDIC_MD: [u8; 4] = ebcdic_struc_id(b"MD  ");
const EBCDIC_MDE: [u8; 4] = ebcdic_struc_id(b"MDE ");
const EBCDIC_XQH: [u8; 4] = ebcdic_struc_id(b"XQH ");
const EBCDIC_DLH: [u8; 4] = ebcdic_struc_id(b"DLH ");
const EBCDIC_RFH: [u8; 4] = ebcdic_struc_id(b"RFH ");
const EBCDIC_IIH: [u8; 4] = ebcdic_struc_id(b"IIH ");
const EBCDIC_CIH: [u8; 4] = ebcdic_struc_id(b"CIH ");
const EBCDIC_WIH: [u8; 4] = ebcdic_struc_id(b"WIH ");
const EBCDIC_RMH: [u8; 4] = ebcdic_struc_id(b"RMH ");
const EBCDIC_DH: [u8; 4] = ebcdic_struc_id(b"DH  ");

/// The EBCDIC form of an ASCII StrucId (capitals and blanks).
pub(crate) const fn ebcdic_struc_id(a: &[u8; 4]) -> [u8; 4] {
    [
        ascii_to_ebcdic_upper(a[0]),
        ascii_to_ebcdic_upper(a[1]),
        ascii_to_ebcdic_upper(a[2]),
        ascii_to_ebcdic_upper(a[3]),
    ]
}

/// EBCDIC for the characters that occur in StrucIds (capitals and blank).
const fn ascii_to_ebcdic_upper(a: u8) -> u8 {
    match a {
        b'A'..=b'I' => 0xC1 + (a - b'A'),
        b'J'..=b'R' => 0xD1 + (a - b'J'),
        b'S'..=b'Z' => 0xE2 + (a - b'S'),
        _ => 0x40,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn struc_ids_in_both_charsets() {
        // StrucIds as in the Wireshark MQ dissector (packet-mq.c).
        assert_eq!(
            Structure::Md.struc_id(Charset::Ebcdic),
            [0xD4, 0xC4, 0x40, 0x40]
        );
        assert_eq!(
            Structure::Mde.struc_id(Charset::Ebcdic),
            [0xD4, 0xC4, 0xC5, 0x40]
        );
        assert_eq!(
            Structure::Xqh.struc_id(Charset::Ebcdic),
            [0xE7, 0xD8, 0xC8, 0x40]
        );
        assert_eq!(
            Structure::Dlh.struc_id(Charset::Ebcdic),
            [0xC4, 0xD3, 0xC8, 0x40]
        );
        assert_eq!(
            Structure::Rfh2.struc_id(Charset::Ebcdic),
            [0xD9, 0xC6, 0xC8, 0x40]
        );
        assert_eq!(
            Structure::Cih.struc_id(Charset::Ebcdic),
            [0xC3, 0xC9, 0xC8, 0x40]
        );
        assert_eq!(
            Structure::Iih.struc_id(Charset::Ebcdic),
            [0xC9, 0xC9, 0xC8, 0x40]
        );
        assert_eq!(
            Structure::Rfh2.struc_id(Charset::Ascii),
            [0x52, 0x46, 0x48, 0x20]
        );
        assert_eq!(
            Structure::from_struc_id(&[0xE7, 0xD8, 0xC8, 0x40]),
            Some((Structure::Xqh, Charset::Ebcdic))
        );
        assert_eq!(Structure::from_struc_id(b"MD\0\0"), None);
        // IBM MQ "MQWIH - Work information header" / "MQRMH - Reference message
        // header": StrucIds 'WIH ' and 'RMH ' (EBCDIC 500: W=E6 I=C9 H=C8 R=D9 M=D4).
        assert_eq!(
            Structure::Wih.struc_id(Charset::Ebcdic),
            [0xE6, 0xC9, 0xC8, 0x40]
        );
        assert_eq!(
            Structure::from_struc_id(&[0xD9, 0xD4, 0xC8, 0x40]),
            Some((Structure::Rmh, Charset::Ebcdic))
        );
        assert_eq!(
            Structure::from_format(&CharField(*b"MQHWIH  "), Charset::Ascii),
            Some(Structure::Wih)
        );
        assert_eq!(
            Structure::from_format(&CharField(*b"MQHREF  "), Charset::Ascii),
            Some(Structure::Rmh)
        );
        // IBM MQ "MQDH - Distribution header": StrucId 'DH  ' (EBCDIC C4 C8 40 40).
        assert_eq!(
            Structure::Dh.struc_id(Charset::Ebcdic),
            [0xC4, 0xC8, 0x40, 0x40]
        );
    }

    #[test]
    fn format_names_with_nul_padding_match() {
        // Format bytes 4D 51 48 52 46 32 00 00 are read as `MQHRF2  ` (a NUL ends the
        // name).
        let f = CharField([0x4D, 0x51, 0x48, 0x52, 0x46, 0x32, 0x00, 0x00]);
        assert_eq!(
            Structure::from_format(&f, Charset::Ascii),
            Some(Structure::Rfh2)
        );
        // `MQHRF   ` (v1) is a different format from `MQHRF2  `.
        assert_eq!(
            Structure::from_format(&CharField(*b"MQHRF   "), Charset::Ascii),
            Some(Structure::Rfh)
        );
        assert_eq!(
            Structure::from_format(&CharField(*b"MQSTR   "), Charset::Ascii),
            None
        );
        // EBCDIC `MQXMIT  `.
        let e = CharField::<8>::new("MQXMIT", Charset::Ebcdic).unwrap();
        assert_eq!(
            Structure::from_format(&e, Charset::Ebcdic),
            Some(Structure::Xqh)
        );
    }
}

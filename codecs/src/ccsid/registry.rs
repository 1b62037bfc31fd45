//! The CCSID registry: which numbers mqgate converts and how (docs/ccsid.md).

use super::dbcs::DbcsTable;
use super::dbcs_tables;
use super::error::ConvertError;
use super::sbcs::SbcsTable;
use super::tables;
use encoding_rs::Encoding;

/// The family of a CCSID.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Family {
    /// UTF-8 and UTF-16.
    Unicode,
    /// ISO-8859-x.
    Iso8859,
    /// Windows 125x.
    Windows,
    /// PC (OEM) code pages.
    Pc,
    /// EBCDIC code pages: single-byte, and mixed single/double-byte
    /// (930, 939, 1390, 1399, 935, 1388, 937, 933, 1364), whose single-byte
    /// half has the invariant characters where every EBCDIC page has them.
    Ebcdic,
    /// ASCII-based CJK multi-byte sets.
    Cjk,
}

/// How the bytes of a CCSID are converted.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Repr {
    Utf8,
    /// UTF-16; `little` is the byte order taken from the Encoding.
    Utf16 {
        little: bool,
    },
    Sbcs(&'static SbcsTable),
    /// Mixed single/double-byte EBCDIC (SO/SI).
    Dbcs(&'static DbcsTable),
    Mbcs(&'static Encoding),
}

/// A supported CCSID. Construct with [`Ccsid::new`].
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Ccsid {
    number: u16,
    pub(crate) repr: Repr,
}

/// CJK CCSIDs served by `encoding_rs` (docs/ccsid.md, CJK table).
const CJK: &[(u16, &Encoding)] = &[
    (932, encoding_rs::SHIFT_JIS),
    (943, encoding_rs::SHIFT_JIS),
    (954, encoding_rs::EUC_JP),
    (5050, encoding_rs::EUC_JP),
    (33722, encoding_rs::EUC_JP),
    (1381, encoding_rs::GBK),
    (1386, encoding_rs::GBK),
    (1392, encoding_rs::GB18030),
    (5488, encoding_rs::GB18030),
    (950, encoding_rs::BIG5),
    (949, encoding_rs::EUC_KR),
    (970, encoding_rs::EUC_KR),
];

/// Windows CCSIDs 5346-5354 are 1250-1258 with the euro; ICU's tables for
/// them are the ones generated under 1250-1258 (docs/ccsid.md, Windows).
const WINDOWS_EURO_ALIAS: core::ops::RangeInclusive<u16> = 5346..=5354;

impl Ccsid {
    /// Looks a CCSID up. UTF-16 CCSIDs (1200, 13488, 17584) default to
    /// big-endian; use [`Ccsid::with_encoding`] when the Encoding is known.
    ///
    /// Errors: [`ConvertError::UnknownCcsid`] naming `ccsid` when it is not
    /// supported (including MQ's special values 0, -1, -2).
    pub fn new(ccsid: i32) -> Result<Ccsid, ConvertError> {
        let unknown = ConvertError::UnknownCcsid { ccsid };
        let number = u16::try_from(ccsid).map_err(|_| unknown.clone())?;
        let repr = match number {
            1208 => Repr::Utf8,
            1200 | 13488 | 17584 => Repr::Utf16 { little: false },
            n => {
                let table_ccsid = if WINDOWS_EURO_ALIAS.contains(&n) {
                    n - 4096
                } else {
                    n
                };
                if let Some(t) = tables::ALL.iter().find(|t| t.ccsid == table_ccsid) {
                    Repr::Sbcs(t)
                } else if let Some(t) = dbcs_tables::ALL.iter().find(|t| t.ccsid == n) {
                    Repr::Dbcs(t)
                } else if let Some((_, e)) = CJK.iter().find(|(c, _)| *c == n) {
                    Repr::Mbcs(e)
                } else {
                    return Err(unknown);
                }
            }
        };
        Ok(Ccsid { number, repr })
    }

    /// Looks a CCSID up with the MQ Encoding of the data: for UTF-16 the byte
    /// order is little-endian when `encoding & 0xF == 2` (MQENC_INTEGER_REVERSED,
    /// IBM MQ "Encoding (MQLONG)"), big-endian otherwise. Other CCSIDs ignore it.
    pub fn with_encoding(ccsid: i32, encoding: i32) -> Result<Ccsid, ConvertError> {
        let mut c = Ccsid::new(ccsid)?;
        if let Repr::Utf16 { little } = &mut c.repr {
            *little = encoding & 0xF == 2;
        }
        Ok(c)
    }

    /// The CCSID number.
    pub fn number(self) -> u16 {
        self.number
    }

    /// The family.
    pub fn family(self) -> Family {
        match self.repr {
            Repr::Utf8 | Repr::Utf16 { .. } => Family::Unicode,
            Repr::Sbcs(t) => t.family,
            Repr::Dbcs(_) => Family::Ebcdic,
            Repr::Mbcs(_) => Family::Cjk,
        }
    }

    /// A short name: "UTF-8", "UTF-16BE", "EBCDIC US/Canada", "Shift_JIS", ...
    pub fn name(self) -> &'static str {
        match self.repr {
            Repr::Utf8 => "UTF-8",
            Repr::Utf16 { little: false } => "UTF-16BE",
            Repr::Utf16 { little: true } => "UTF-16LE",
            Repr::Sbcs(t) => t.name,
            Repr::Dbcs(t) => t.name,
            Repr::Mbcs(e) => e.name(),
        }
    }

    /// The generated table of a single-byte CCSID.
    pub fn sbcs_table(self) -> Option<&'static SbcsTable> {
        match self.repr {
            Repr::Sbcs(t) => Some(t),
            _ => None,
        }
    }

    /// The generated table of a mixed single/double-byte EBCDIC CCSID.
    pub fn dbcs_table(self) -> Option<&'static DbcsTable> {
        match self.repr {
            Repr::Dbcs(t) => Some(t),
            _ => None,
        }
    }
}

/// Every supported CCSID number, ascending (aliases included).
pub fn supported() -> Vec<u16> {
    let mut v: Vec<u16> = vec![1200, 1208, 13488, 17584];
    v.extend(tables::ALL.iter().map(|t| t.ccsid));
    v.extend(WINDOWS_EURO_ALIAS);
    v.extend(dbcs_tables::ALL.iter().map(|t| t.ccsid));
    v.extend(CJK.iter().map(|(c, _)| *c));
    v.sort_unstable();
    v
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_ccsid_of_issue_3_is_known() {
        // docs/ccsid.md scope list.
        let listed = [
            1208, 1200, 13488, 17584, 819, 912, 913, 914, 915, 1089, 813, 916, 920, 923, 1250,
            1251, 1252, 1253, 1254, 1255, 1256, 1257, 1258, 437, 850, 852, 858, 37, 273, 277, 278,
            280, 284, 285, 297, 500, 871, 875, 1026, 1047, 1140, 1141, 1142, 1143, 1144, 1145,
            1146, 1147, 1148, 1149, 943, 932, 954, 5050, 1386, 1381, 5488, 1392, 950, 970, 949,
        ];
        for n in listed {
            let c = Ccsid::new(n).unwrap_or_else(|e| panic!("{n}: {e}"));
            assert_eq!(i32::from(c.number()), n);
            assert!(supported().contains(&c.number()));
        }
    }

    #[test]
    fn unknown_ccsid_is_an_error_naming_it() {
        // docs/ccsid.md "Supported CCSIDs": any other number is
        // ConvertError::UnknownCcsid naming it.
        for n in [0, -1, -2, 1025, 70000, 300] {
            let e = Ccsid::new(n).unwrap_err();
            assert_eq!(e, ConvertError::UnknownCcsid { ccsid: n });
            assert!(e.to_string().contains(&n.to_string()));
        }
    }

    #[test]
    fn families_and_utf16_byte_order() {
        assert_eq!(Ccsid::new(37).unwrap().family(), Family::Ebcdic);
        assert_eq!(Ccsid::new(819).unwrap().family(), Family::Iso8859);
        assert_eq!(Ccsid::new(5348).unwrap().sbcs_table().unwrap().ccsid, 1252);
        assert_eq!(Ccsid::new(943).unwrap().family(), Family::Cjk);
        // IBM MQ "Encoding (MQLONG)": Encoding 546 has integer field 2 (reversed).
        assert_eq!(Ccsid::with_encoding(1200, 546).unwrap().name(), "UTF-16LE");
        assert_eq!(Ccsid::with_encoding(1200, 273).unwrap().name(), "UTF-16BE");
    }
}

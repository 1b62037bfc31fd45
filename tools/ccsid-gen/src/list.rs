//! The single-byte CCSIDs mqgate supports, with the converter name each
//! oracle knows them by (docs/ccsid.md, names checked with `iconv -l` and
//! `uconv -l` on Debian 12).

/// The family of a single-byte set; EBCDIC sets get the newline policy.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Family {
    /// ISO-8859-x (IBM CCSID = ICU ibm-NNN).
    Iso8859,
    /// Windows 125x.
    Windows,
    /// PC (OEM) code pages.
    Pc,
    /// EBCDIC single-byte code pages.
    Ebcdic,
}

impl Family {
    /// The Rust path of the matching `mqgate_codecs::ccsid::Family` variant.
    pub fn rust_name(self) -> &'static str {
        match self {
            Family::Iso8859 => "Family::Iso8859",
            Family::Windows => "Family::Windows",
            Family::Pc => "Family::Pc",
            Family::Ebcdic => "Family::Ebcdic",
        }
    }
}

/// One single-byte CCSID and its oracle converter names.
#[derive(Clone, Copy, Debug)]
pub struct SbcsSpec {
    /// IBM CCSID.
    pub ccsid: u16,
    /// Common name.
    pub name: &'static str,
    /// Family.
    pub family: Family,
    /// glibc iconv converter name.
    pub iconv: &'static str,
    /// ICU uconv converter name (the generator's source).
    pub icu: &'static str,
}

const fn s(
    ccsid: u16,
    name: &'static str,
    family: Family,
    iconv: &'static str,
    icu: &'static str,
) -> SbcsSpec {
    SbcsSpec {
        ccsid,
        name,
        family,
        iconv,
        icu,
    }
}

use Family::{Ebcdic, Iso8859, Pc, Windows};

/// Every single-byte CCSID of docs/ccsid.md, in CCSID order within each family.
pub const SBCS: &[SbcsSpec] = &[
    s(819, "ISO-8859-1", Iso8859, "ISO-8859-1", "ISO-8859-1"),
    s(
        912,
        "ISO-8859-2",
        Iso8859,
        "ISO-8859-2",
        "ibm-912_P100-1995",
    ),
    s(
        913,
        "ISO-8859-3",
        Iso8859,
        "ISO-8859-3",
        "ibm-913_P100-2000",
    ),
    s(
        914,
        "ISO-8859-4",
        Iso8859,
        "ISO-8859-4",
        "ibm-914_P100-1995",
    ),
    s(
        915,
        "ISO-8859-5",
        Iso8859,
        "ISO-8859-5",
        "ibm-915_P100-1995",
    ),
    s(
        1089,
        "ISO-8859-6",
        Iso8859,
        "ISO-8859-6",
        "ibm-1089_P100-1995",
    ),
    s(
        813,
        "ISO-8859-7",
        Iso8859,
        "ISO-8859-7",
        "ibm-813_P100-1995",
    ),
    s(
        916,
        "ISO-8859-8",
        Iso8859,
        "ISO-8859-8",
        "ibm-916_P100-1995",
    ),
    s(
        920,
        "ISO-8859-9",
        Iso8859,
        "ISO-8859-9",
        "ibm-920_P100-1995",
    ),
    s(
        923,
        "ISO-8859-15",
        Iso8859,
        "ISO-8859-15",
        "ibm-923_P100-1998",
    ),
    s(
        1250,
        "windows-1250",
        Windows,
        "CP1250",
        "ibm-5346_P100-1998",
    ),
    s(
        1251,
        "windows-1251",
        Windows,
        "CP1251",
        "ibm-5347_P100-1998",
    ),
    s(
        1252,
        "windows-1252",
        Windows,
        "CP1252",
        "ibm-5348_P100-1997",
    ),
    s(
        1253,
        "windows-1253",
        Windows,
        "CP1253",
        "ibm-5349_P100-1998",
    ),
    s(
        1254,
        "windows-1254",
        Windows,
        "CP1254",
        "ibm-5350_P100-1998",
    ),
    s(
        1255,
        "windows-1255",
        Windows,
        "CP1255",
        "ibm-5351_P100-1998",
    ),
    s(
        1256,
        "windows-1256",
        Windows,
        "CP1256",
        "ibm-5352_P100-1998",
    ),
    s(
        1257,
        "windows-1257",
        Windows,
        "CP1257",
        "ibm-5353_P100-1998",
    ),
    s(
        1258,
        "windows-1258",
        Windows,
        "CP1258",
        "ibm-5354_P100-1998",
    ),
    s(437, "PC US", Pc, "IBM437", "ibm-437_P100-1995"),
    s(850, "PC Latin-1", Pc, "IBM850", "ibm-850_P100-1995"),
    s(852, "PC Latin-2", Pc, "IBM852", "ibm-852_P100-1995"),
    s(858, "PC Latin-1 + euro", Pc, "IBM858", "ibm-858_P100-1997"),
    s(37, "EBCDIC US/Canada", Ebcdic, "IBM037", "ibm-37_P100-1995"),
    s(
        273,
        "EBCDIC Germany/Austria",
        Ebcdic,
        "IBM273",
        "ibm-273_P100-1995",
    ),
    s(
        277,
        "EBCDIC Denmark/Norway",
        Ebcdic,
        "IBM277",
        "ibm-277_P100-1995",
    ),
    s(
        278,
        "EBCDIC Finland/Sweden",
        Ebcdic,
        "IBM278",
        "ibm-278_P100-1995",
    ),
    s(280, "EBCDIC Italy", Ebcdic, "IBM280", "ibm-280_P100-1995"),
    s(
        284,
        "EBCDIC Spain/Latin America",
        Ebcdic,
        "IBM284",
        "ibm-284_P100-1995",
    ),
    s(285, "EBCDIC UK", Ebcdic, "IBM285", "ibm-285_P100-1995"),
    s(297, "EBCDIC France", Ebcdic, "IBM297", "ibm-297_P100-1995"),
    s(
        500,
        "EBCDIC International",
        Ebcdic,
        "IBM500",
        "ibm-500_P100-1995",
    ),
    s(871, "EBCDIC Iceland", Ebcdic, "IBM871", "ibm-871_P100-1995"),
    s(875, "EBCDIC Greek", Ebcdic, "IBM875", "ibm-875_P100-1995"),
    s(
        1026,
        "EBCDIC Turkey",
        Ebcdic,
        "IBM1026",
        "ibm-1026_P100-1995",
    ),
    s(
        1047,
        "EBCDIC Latin-1 open systems",
        Ebcdic,
        "IBM1047",
        "ibm-1047_P100-1995",
    ),
    s(
        1140,
        "EBCDIC US/Canada + euro",
        Ebcdic,
        "IBM1140",
        "ibm-1140_P100-1997",
    ),
    s(
        1141,
        "EBCDIC Germany/Austria + euro",
        Ebcdic,
        "IBM1141",
        "ibm-1141_P100-1997",
    ),
    s(
        1142,
        "EBCDIC Denmark/Norway + euro",
        Ebcdic,
        "IBM1142",
        "ibm-1142_P100-1997",
    ),
    s(
        1143,
        "EBCDIC Finland/Sweden + euro",
        Ebcdic,
        "IBM1143",
        "ibm-1143_P100-1997",
    ),
    s(
        1144,
        "EBCDIC Italy + euro",
        Ebcdic,
        "IBM1144",
        "ibm-1144_P100-1997",
    ),
    s(
        1145,
        "EBCDIC Spain/Latin America + euro",
        Ebcdic,
        "IBM1145",
        "ibm-1145_P100-1997",
    ),
    s(
        1146,
        "EBCDIC UK + euro",
        Ebcdic,
        "IBM1146",
        "ibm-1146_P100-1997",
    ),
    s(
        1147,
        "EBCDIC France + euro",
        Ebcdic,
        "IBM1147",
        "ibm-1147_P100-1997",
    ),
    s(
        1148,
        "EBCDIC International + euro",
        Ebcdic,
        "IBM1148",
        "ibm-1148_P100-1997",
    ),
    s(
        1149,
        "EBCDIC Iceland + euro",
        Ebcdic,
        "IBM1149",
        "ibm-1149_P100-1997",
    ),
];

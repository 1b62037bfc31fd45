//! The mixed EBCDIC CCSIDs mqgate supports and the converter name each oracle
//! knows them by (ICU names checked with `uconv -l`, glibc names with
//! `iconv -l`, on Debian 12 with ICU 72 and glibc 2.36).

/// One mixed single/double-byte EBCDIC CCSID.
#[derive(Clone, Copy, Debug)]
pub struct DbcsSpec {
    /// IBM CCSID.
    pub ccsid: u16,
    /// Common name.
    pub name: &'static str,
    /// ICU uconv converter name (the generator's source).
    pub icu: &'static str,
    /// glibc iconv converter name.
    pub iconv: &'static str,
    /// The language group: CCSIDs of one group share the invariant
    /// characters and most of their double-byte repertoire.
    pub group: &'static str,
}

const fn d(
    ccsid: u16,
    name: &'static str,
    icu: &'static str,
    iconv: &'static str,
    group: &'static str,
) -> DbcsSpec {
    DbcsSpec {
        ccsid,
        name,
        icu,
        iconv,
        group,
    }
}

/// Every mixed EBCDIC CCSID, grouped by language.
pub const DBCS: &[DbcsSpec] = &[
    d(
        930,
        "EBCDIC Japanese Katakana-Kanji",
        "ibm-930_P120-1999",
        "IBM930",
        "Japanese",
    ),
    d(
        939,
        "EBCDIC Japanese Latin-Kanji",
        "ibm-939_P120-1999",
        "IBM939",
        "Japanese",
    ),
    d(
        1390,
        "EBCDIC Japanese Katakana-Kanji + euro",
        "ibm-1390_P110-2003",
        "IBM1390",
        "Japanese",
    ),
    d(
        1399,
        "EBCDIC Japanese Latin-Kanji + euro",
        "ibm-1399_P110-2003",
        "IBM1399",
        "Japanese",
    ),
    d(
        935,
        "EBCDIC Simplified Chinese",
        "ibm-935_P110-1999",
        "IBM935",
        "Simplified Chinese",
    ),
    d(
        1388,
        "EBCDIC Simplified Chinese GBK",
        "ibm-1388_P103-2001",
        "IBM1388",
        "Simplified Chinese",
    ),
    d(
        937,
        "EBCDIC Traditional Chinese",
        "ibm-937_P110-1999",
        "IBM937",
        "Traditional Chinese",
    ),
    d(
        933,
        "EBCDIC Korean",
        "ibm-933_P110-1995",
        "IBM933",
        "Korean",
    ),
    d(
        1364,
        "EBCDIC Korean extended",
        "ibm-1364_P110-2007",
        "IBM1364",
        "Korean",
    ),
];

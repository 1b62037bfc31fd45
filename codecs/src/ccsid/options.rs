//! Conversion options: EBCDIC newline policy and unmappable-input policy.

use super::registry::{Ccsid, Family};

/// How EBCDIC NL (0x15) and LF (0x25) map to Unicode, like IBM MQ's
/// ConvEBCDICNewline (docs/ccsid.md; MQ docs "AllQueueManagers stanza").
///
/// The generated tables (ICU and glibc alike) map 0x15 ↔ U+0085 (NEL) and
/// 0x25 ↔ U+000A (LF). When the policy applies, mqgate swaps the two, exactly
/// like ICU's `,swaplfnl` converters: 0x15 ↔ U+000A and 0x25 ↔ U+0085, so
/// ASCII → EBCDIC → ASCII stays the identity.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash)]
pub enum NewlinePolicy {
    /// EBCDIC NL 0x15 is LF (and LF becomes 0x15) in every conversion. IBM
    /// MQ's default, and mqgate's.
    #[default]
    NlToLf,
    /// The tables unchanged: 0x15 ↔ U+0085, 0x25 ↔ U+000A.
    Table,
    /// TABLE when the other side is an ISO-8859 CCSID (which has NEL at 0x85),
    /// NL_TO_LF otherwise (Unicode, Windows, PC, CJK, EBCDIC).
    Iso,
}

impl NewlinePolicy {
    /// True when the EBCDIC side `ebcdic` of a conversion with `other` swaps
    /// NL and LF. Always false for a non-EBCDIC `ebcdic`.
    pub fn swaps(self, ebcdic: Ccsid, other: Option<Ccsid>) -> bool {
        if ebcdic.family() != Family::Ebcdic {
            return false;
        }
        match self {
            NewlinePolicy::NlToLf => true,
            NewlinePolicy::Table => false,
            NewlinePolicy::Iso => other.is_none_or(|o| o.family() != Family::Iso8859),
        }
    }
}

/// What to do with input that has no mapping in the target (or is not valid
/// in the source).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash)]
pub enum OnUnmappable {
    /// Stop with [`super::ConvertError`] naming the offset and the byte or
    /// character.
    #[default]
    Fail,
    /// Replace it: with U+FFFD in text, with the target set's substitution
    /// byte in bytes (ICU's subchar: 0x3F in EBCDIC, 0x1A in ISO-8859 and
    /// Windows, 0x7F in PC code pages; `?` in the CJK sets), and count the
    /// replacements.
    Substitute,
}

/// Options of one conversion.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash)]
pub struct Options {
    /// EBCDIC newline handling; default NL_TO_LF.
    pub newline: NewlinePolicy,
    /// Unmappable input; default fail.
    pub on_unmappable: OnUnmappable,
}

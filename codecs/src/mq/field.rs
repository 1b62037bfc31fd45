//! Fixed-length MQ character fields (names, Format, dates) in ASCII or EBCDIC.
//!
//! A field keeps its raw bytes so that a parse/write round trip is byte-exact, NUL
//! padding included (IBM MQ "ObjectName (MQCHAR48)": a NUL ends the significant
//! data and everything after it counts as blanks; mqgate writers pad with blanks).

use std::fmt;

/// The character set family of a header's character fields.
///
/// Header fields only need MQ's invariant name characters (`A-Z a-z 0-9 . / _ %`
/// and blank), which have the same code points in every ASCII-based CCSID and in
/// every EBCDIC CCSID (037, 500, 1047, ...). Full conversion lives in `ccsid`.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Default)]
pub enum Charset {
    /// ASCII-based CCSIDs (819, 1208, 437, 1252, ...).
    #[default]
    Ascii,
    /// EBCDIC CCSIDs (037, 500, 1047, 1140, ...).
    Ebcdic,
}

/// EBCDIC code point of each invariant ASCII character, 0 where there is none.
const ASCII_TO_EBCDIC: [u8; 128] = {
    let mut t = [0u8; 128];
    t[b' ' as usize] = 0x40;
    t[b'.' as usize] = 0x4B;
    t[b'/' as usize] = 0x61;
    t[b'_' as usize] = 0x6D;
    t[b'%' as usize] = 0x6C;
    let mut i = 0;
    while i < 10 {
        t[b'0' as usize + i] = 0xF0 + i as u8;
        i += 1;
    }
    let mut c = 0;
    while c < 26 {
        let (hi, lo) = match c {
            0..=8 => (0xC1 + c as u8, 0x81 + c as u8),
            9..=17 => (0xD1 + (c - 9) as u8, 0x91 + (c - 9) as u8),
            _ => (0xE2 + (c - 18) as u8, 0xA2 + (c - 18) as u8),
        };
        t[b'A' as usize + c] = hi;
        t[b'a' as usize + c] = lo;
        c += 1;
    }
    t
};

/// ASCII for each EBCDIC invariant code point, 0 where there is none.
pub(crate) const EBCDIC_TO_ASCII: [u8; 256] = {
    let mut t = [0u8; 256];
    let mut a = 0;
    while a < 128 {
        let e = ASCII_TO_EBCDIC[a];
        if e != 0 {
            t[e as usize] = a as u8;
        }
        a += 1;
    }
    t
};

impl Charset {
    /// The charset a StrucId's first byte reveals: ASCII letters are 0x41-0x5A,
    /// EBCDIC capitals 0xC1-0xE9. `None` for anything else.
    pub fn from_struc_id_byte(b: u8) -> Option<Charset> {
        match b {
            b'A'..=b'Z' => Some(Charset::Ascii),
            0xC1..=0xE9 => Some(Charset::Ebcdic),
            _ => None,
        }
    }

    /// Encodes one invariant character; `None` if it is not invariant.
    pub fn encode_invariant(self, c: char) -> Option<u8> {
        let a = u32::from(c);
        if a >= 128 {
            return None;
        }
        let e = ASCII_TO_EBCDIC[a as usize];
        if e == 0 {
            return None;
        }
        Some(match self {
            Charset::Ascii => a as u8,
            Charset::Ebcdic => e,
        })
    }

    /// Encodes one ASCII byte if it is an invariant character; `None` otherwise.
    #[inline]
    pub fn encode_invariant_byte(self, b: u8) -> Option<u8> {
        let e = *ASCII_TO_EBCDIC.get(usize::from(b))?;
        match (e, self) {
            (0, _) => None,
            (_, Charset::Ascii) => Some(b),
            (e, Charset::Ebcdic) => Some(e),
        }
    }

    /// Decodes one byte. Invariant characters decode exactly; in ASCII other
    /// bytes decode as Latin-1; in EBCDIC non-invariant bytes decode as U+FFFD
    /// (the `ccsid` module converts those properly).
    pub fn decode_byte(self, b: u8) -> char {
        match self {
            Charset::Ascii => char::from(b),
            Charset::Ebcdic => match EBCDIC_TO_ASCII[b as usize] {
                0 => '\u{FFFD}',
                a => char::from(a),
            },
        }
    }

    /// The blank (space) byte: 0x20 in ASCII, 0x40 in EBCDIC.
    pub fn blank(self) -> u8 {
        match self {
            Charset::Ascii => 0x20,
            Charset::Ebcdic => 0x40,
        }
    }

    /// Encodes `s` as a fixed field of `N` bytes, blank padded.
    ///
    /// Errors: [`FieldError::TooLong`] when `s` has more than `N` characters,
    /// [`FieldError::BadCharacter`] for a character outside the invariant set.
    pub fn encode_field<const N: usize>(self, s: &str) -> Result<[u8; N], FieldError> {
        let mut out = [self.blank(); N];
        let count = s.chars().count();
        if count > N {
            return Err(FieldError::TooLong { len: count, max: N });
        }
        for (i, c) in s.chars().enumerate() {
            out[i] = self
                .encode_invariant(c)
                .ok_or(FieldError::BadCharacter { ch: c, position: i })?;
        }
        Ok(out)
    }
}

/// Why a string cannot be stored in a fixed character field.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
pub enum FieldError {
    /// The value has `len` characters; the field holds `max`.
    #[error("value of {len} characters is longer than the field's {max}")]
    TooLong { len: usize, max: usize },
    /// `ch` at character `position` is not one of MQ's invariant characters.
    #[error(
        "character {ch:?} at position {position} is not an MQ invariant character (A-Z a-z 0-9 . / _ % blank)"
    )]
    BadCharacter { ch: char, position: usize },
    /// The field `offset..offset + len` does not lie inside the buffer of `buf_len` bytes.
    #[error("field at offset {offset} of {len} bytes is outside the buffer of {buf_len} bytes")]
    OutOfBounds {
        offset: usize,
        len: usize,
        buf_len: usize,
    },
}

/// A fixed-length character field of `N` bytes, kept exactly as read.
#[derive(Clone, Copy, PartialEq, Eq, Hash)]
pub struct CharField<const N: usize>(pub [u8; N]);

impl<const N: usize> CharField<N> {
    /// All ASCII blanks.
    pub const BLANK_ASCII: Self = CharField([b' '; N]);

    /// A blank field in `cs`.
    pub fn blank(cs: Charset) -> Self {
        CharField([cs.blank(); N])
    }

    /// A field holding `s` in `cs`, blank padded. Errors as [`Charset::encode_field`].
    pub fn new(s: &str, cs: Charset) -> Result<Self, FieldError> {
        cs.encode_field::<N>(s).map(CharField)
    }

    /// A name field for a structure mqgate builds: `s` up to its first NUL
    /// (a NUL ends a name in MQ, IBM MQ "Rules for naming IBM MQ objects") without
    /// trailing blanks, written in `cs` and blank padded, so no NUL is ever
    /// copied into the new structure. Errors as [`Charset::encode_field`]
    /// for the part kept.
    pub fn name(s: &str, cs: Charset) -> Result<Self, FieldError> {
        let end = s.find('\0').unwrap_or(s.len());
        Self::new(s[..end].trim_end_matches(' '), cs)
    }

    /// The raw bytes.
    pub fn as_bytes(&self) -> &[u8; N] {
        &self.0
    }

    /// The significant bytes: up to the first NUL, trailing blanks of `cs` removed.
    pub fn significant(&self, cs: Charset) -> &[u8] {
        let end = self.0.iter().position(|&b| b == 0).unwrap_or(N);
        let mut s = &self.0[..end];
        while let [rest @ .., last] = s {
            if *last == cs.blank() {
                s = rest;
            } else {
                break;
            }
        }
        s
    }

    /// The text, decoded from `cs`, NUL-terminated and with trailing blanks removed.
    pub fn text(&self, cs: Charset) -> String {
        self.significant(cs)
            .iter()
            .map(|&b| cs.decode_byte(b))
            .collect()
    }

    /// True when the field has no significant characters.
    pub fn is_blank(&self, cs: Charset) -> bool {
        self.significant(cs).is_empty()
    }

    /// The same text blank padded to `N` in `cs`, i.e. how an mqgate writer
    /// emits it when the field is rebuilt (NULs become blanks).
    pub fn normalized(&self, cs: Charset) -> Self {
        let mut out = [cs.blank(); N];
        let sig = self.significant(cs);
        out[..sig.len()].copy_from_slice(sig);
        CharField(out)
    }
}

impl<const N: usize> Default for CharField<N> {
    fn default() -> Self {
        Self::BLANK_ASCII
    }
}

impl<const N: usize> fmt::Debug for CharField<N> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        // Debug cannot know the charset; show what ASCII would read and the raw hex.
        write!(
            f,
            "{:?}/{}",
            self.text(Charset::Ascii),
            hex::encode_upper(self.0)
        )
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn invariant_characters_map_to_their_ebcdic_code_points() {
        // EBCDIC StrucIds (the Wireshark MQ dissector, packet-mq.c): "MD  " is D4 C4 40
        // 40; "XQH " is E7 D8 C8 40.
        assert_eq!(
            Charset::Ebcdic.encode_field::<4>("MD").unwrap(),
            [0xD4, 0xC4, 0x40, 0x40]
        );
        assert_eq!(
            Charset::Ebcdic.encode_field::<4>("XQH").unwrap(),
            [0xE7, 0xD8, 0xC8, 0x40]
        );
        assert_eq!(Charset::Ebcdic.encode_invariant('%'), Some(0x6C));
        assert_eq!(Charset::Ebcdic.encode_invariant('z'), Some(0xA9));
        assert_eq!(Charset::Ebcdic.encode_invariant('9'), Some(0xF9));
        assert_eq!(Charset::Ascii.encode_invariant('@'), None);
    }

    #[test]
    fn nul_ends_significant_data() {
        // IBM MQ "ObjectName (MQCHAR48)": the NUL and what follows count as blanks.
        let f = CharField::<8>(*b"MQHRF2\0\0");
        assert_eq!(f.text(Charset::Ascii), "MQHRF2");
        assert_eq!(f.normalized(Charset::Ascii).0, *b"MQHRF2  ");
        assert_eq!(f.0, *b"MQHRF2\0\0");
    }

    #[test]
    fn a_built_name_ends_at_the_first_nul_and_is_blank_padded() {
        // IBM MQ "Rules for naming IBM MQ objects": a NUL ends the significant data;
        // mqgate writers pad with blanks (0x20 ASCII, 0x40 EBCDIC).
        let f = CharField::<8>::name("APP.IN\0\0", Charset::Ascii).unwrap();
        assert_eq!(f.0, *b"APP.IN  ");
        let f = CharField::<8>::name("Q1\0junk", Charset::Ebcdic).unwrap();
        assert_eq!(f.0, [0xD8, 0xF1, 0x40, 0x40, 0x40, 0x40, 0x40, 0x40]);
        let f = CharField::<4>::name("AB  ", Charset::Ascii).unwrap();
        assert_eq!(f.0, *b"AB  ");
        // Only what is kept must fit and be invariant.
        assert!(CharField::<4>::name("ABCD\0-longer", Charset::Ascii).is_ok());
        assert_eq!(
            CharField::<4>::name("ABCDE\0", Charset::Ascii),
            Err(FieldError::TooLong { len: 5, max: 4 })
        );
        // text() of a NUL-padded field, rebuilt: blank padded, no NUL.
        let mut raw = [0u8; 48];
        raw[..6].copy_from_slice(b"APP.IN");
        let read = CharField::<48>(raw);
        let built = CharField::<48>::name(&read.text(Charset::Ascii), Charset::Ascii).unwrap();
        assert_eq!(&built.0[..6], b"APP.IN");
        assert!(built.0[6..].iter().all(|&b| b == b' '));
    }

    #[test]
    fn too_long_and_bad_characters_are_refused() {
        assert_eq!(
            CharField::<4>::new("ABCDE", Charset::Ascii),
            Err(FieldError::TooLong { len: 5, max: 4 })
        );
        assert!(matches!(
            CharField::<8>::new("A B-", Charset::Ascii),
            Err(FieldError::BadCharacter {
                ch: '-',
                position: 3
            })
        ));
    }
}

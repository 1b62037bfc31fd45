//! Mixed single/double-byte EBCDIC (930, 939, 1390, 1399, 935, 1388, 937,
//! 933, 1364): stateful code pages where shift-out (SO, 0x0E) starts a run
//! of double-byte characters and shift-in (SI, 0x0F) returns to single bytes
//! (IBM CDRA, "Character Data Representation Architecture Reference";
//! ICU's `EBCDIC_STATEFUL` converters, which the tables come from).
//!
//! Decoding follows ICU byte for byte on valid input. In the double-byte
//! state every byte other than SO and SI starts a pair; a pair that is not a
//! character is one error at its first byte (both bytes are consumed, as ICU
//! does), except that SO or SI as the second byte is never swallowed: the
//! lone first byte is the error and the shift takes effect. A redundant SO
//! (in a run) or SI (outside one) is accepted, and input may end inside a
//! run, both as in ICU.
//!
//! Encoding opens a run with SO only when a double-byte character follows a
//! single byte (or the start), closes it with SI before any single-byte
//! character (newlines and other controls included) and at the end of the
//! output, exactly as ICU writes it.

use super::error::ConvertError;
use super::options::OnUnmappable;
use super::sbcs::UNDEFINED;

/// Shift-out: a double-byte run follows.
pub const SO: u8 = 0x0E;
/// Shift-in: back to single bytes.
pub const SI: u8 = 0x0F;

/// EBCDIC NL and LF, swapped by the NL_TO_LF policy (docs/ccsid.md).
const EBCDIC_NL: u8 = 0x15;
const EBCDIC_LF: u8 = 0x25;
/// Decode page values from here up stand for `specials[value - SPECIAL]`.
const SPECIAL: u16 = 0xD800;
const SPECIAL_END: u16 = 0xDFFF;
/// "Nothing" in an encode page.
const NONE: u16 = 0xFFFF;
/// Bytes of one page descriptor in [`DbcsTable::data`].
const DESCRIPTOR: usize = 6;

/// A generated mixed EBCDIC table (tools/ccsid-gen, from ICU uconv).
///
/// The single-byte half is a 256-entry array; the double-byte half and the
/// Unicode → EBCDIC direction are two-level pages in `data` (layout in
/// tools/ccsid-gen/src/dbcs/render.rs): one page per lead byte, one page per
/// 256 BMP scalars, each kept only from its first to its last entry.
#[derive(Debug)]
pub struct DbcsTable {
    /// IBM CCSID.
    pub ccsid: u16,
    /// Common name.
    pub name: &'static str,
    /// ICU converter the table was generated from.
    pub icu: &'static str,
    /// glibc iconv converter name.
    pub iconv: &'static str,
    /// ICU's single-byte substitution character (subchar1).
    pub sbcs_substitution: u8,
    /// ICU's double-byte substitution character (subchar), written in SO/SI.
    pub dbcs_substitution: u16,
    /// Unmappable scalars whose ICU substitution is not the default one
    /// (single byte for U+0000-U+00FF, double byte above), sorted.
    pub substitution_exceptions: &'static [u32],
    /// Unicode scalar of each single byte; [`UNDEFINED`] for none and for
    /// SO/SI.
    pub sbcs_to_unicode: [u16; 256],
    /// Byte offset in `data` of the 256 double-byte page descriptors.
    pub dbcs_pages: usize,
    /// Byte offset in `data` of the 256 BMP page descriptors.
    pub bmp_pages: usize,
    /// Texts of double bytes that are not one BMP scalar (a scalar above
    /// U+FFFF, or a sequence such as a kana with U+309A).
    pub specials: &'static [&'static str],
    /// Scalars above U+FFFF the set can write, sorted: (scalar, code).
    pub supplementary: &'static [(u32, u16)],
    /// Multi-scalar texts written as one double byte, sorted.
    pub sequences: &'static [(&'static str, u16)],
    /// The page data (shared by all tables).
    pub data: &'static [u8],
}

/// Tables are generated statics, one per CCSID: equal when they are for
/// the same CCSID from the same ICU converter (without comparing the pages).
impl PartialEq for DbcsTable {
    fn eq(&self, other: &DbcsTable) -> bool {
        self.ccsid == other.ccsid && self.icu == other.icu
    }
}

impl Eq for DbcsTable {}

/// One page descriptor: entries `lo..=hi` start at byte `start` of `data`.
#[derive(Clone, Copy)]
struct Page {
    start: usize,
    lo: u8,
    hi: u8,
}

/// Where a character goes: one byte, or a double byte inside SO ... SI.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum DbcsCode {
    /// A single byte (no shift state).
    Single(u8),
    /// A double byte, lead byte first.
    Double([u8; 2]),
}

impl DbcsCode {
    fn from_value(v: u16) -> Option<DbcsCode> {
        match v {
            NONE => None,
            0..=0xFF => Some(DbcsCode::Single(v as u8)),
            _ => Some(DbcsCode::Double(v.to_be_bytes())),
        }
    }
}

/// What a double byte decodes to.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum DbcsText {
    /// One BMP scalar.
    Char(char),
    /// A scalar above U+FFFF or a sequence.
    Str(&'static str),
}

impl DbcsTable {
    fn u16_at(&self, at: usize) -> Option<u16> {
        match self.data.get(at..at + 2) {
            Some(&[a, b]) => Some(u16::from_le_bytes([a, b])),
            _ => None,
        }
    }

    fn page(&self, base: usize, i: u8) -> Page {
        let at = base + usize::from(i) * DESCRIPTOR;
        match self.data.get(at..at + DESCRIPTOR) {
            Some(&[a, b, c, d, lo, hi]) => Page {
                start: u32::from_le_bytes([a, b, c, d]) as usize,
                lo,
                hi,
            },
            _ => Page {
                start: 0,
                lo: 1,
                hi: 0,
            },
        }
    }

    #[inline]
    fn entry(&self, page: Page, i: u8) -> u16 {
        if i < page.lo || i > page.hi {
            return NONE;
        }
        self.u16_at(page.start + 2 * usize::from(i - page.lo))
            .unwrap_or(NONE)
    }

    /// The text of double byte `lead`, `trail`, or `None` when it is not a
    /// character of the set.
    pub fn decode_double(&self, lead: u8, trail: u8) -> Option<DbcsText> {
        let v = self.entry(self.page(self.dbcs_pages, lead), trail);
        match v {
            NONE => None,
            SPECIAL..=SPECIAL_END => self
                .specials
                .get(usize::from(v - SPECIAL))
                .copied()
                .map(DbcsText::Str),
            _ => char::from_u32(u32::from(v)).map(DbcsText::Char),
        }
    }

    /// Where `c` goes in the set (one-way ICU fallbacks included), or `None`
    /// when the set cannot write it. Sequences ([`DbcsTable::sequences`])
    /// and the newline policy are not applied here.
    pub fn encode_char(&self, c: char) -> Option<DbcsCode> {
        let u = u32::from(c);
        if u > 0xFFFF {
            let i = self.supplementary.binary_search_by_key(&u, |e| e.0).ok()?;
            return DbcsCode::from_value(self.supplementary[i].1);
        }
        let [hi, lo] = (u as u16).to_be_bytes();
        DbcsCode::from_value(self.entry(self.page(self.bmp_pages, hi), lo))
    }

    /// The substitution ICU writes for unmappable `c`.
    fn substitution(&self, c: char) -> DbcsCode {
        let u = u32::from(c);
        let single = (u <= 0xFF) != self.substitution_exceptions.binary_search(&u).is_ok();
        if single {
            DbcsCode::Single(self.sbcs_substitution)
        } else {
            DbcsCode::Double(self.dbcs_substitution.to_be_bytes())
        }
    }
}

/// One step of the decoder.
enum Step {
    /// A shift byte (or a redundant one): nothing to write.
    Shift,
    /// A character.
    Text(DbcsText),
    /// Bytes that are not a character (the error is at the step's offset).
    Bad,
}

/// A table ready for use, with the newline policy applied.
pub(crate) struct DbcsCodec {
    t: &'static DbcsTable,
    /// NL_TO_LF: 0x15 ↔ U+000A and 0x25 ↔ U+0085 in the single-byte half.
    swap: bool,
}

impl DbcsCodec {
    /// Prepares `t`; `swap_nl` applies NL_TO_LF when the single-byte half
    /// has the standard EBCDIC layout 0x15 = U+0085, 0x25 = U+000A (all
    /// nine do).
    pub fn new(t: &'static DbcsTable, swap_nl: bool) -> DbcsCodec {
        let swap = swap_nl
            && t.sbcs_to_unicode[usize::from(EBCDIC_NL)] == 0x85
            && t.sbcs_to_unicode[usize::from(EBCDIC_LF)] == 0x0A;
        DbcsCodec { t, swap }
    }

    #[inline]
    fn sbcs(&self, b: u8) -> u16 {
        let b = match b {
            EBCDIC_NL if self.swap => EBCDIC_LF,
            EBCDIC_LF if self.swap => EBCDIC_NL,
            _ => b,
        };
        self.t.sbcs_to_unicode[usize::from(b)]
    }

    /// Decodes the item at `input[i]` in state `dbcs`; returns the step and
    /// its length in bytes.
    #[inline]
    fn step(&self, input: &[u8], i: usize, dbcs: &mut bool, dpages: usize) -> (Step, usize) {
        let b = input[i];
        match b {
            SO => {
                *dbcs = true;
                return (Step::Shift, 1);
            }
            SI => {
                *dbcs = false;
                return (Step::Shift, 1);
            }
            _ => {}
        }
        if !*dbcs {
            let u = self.sbcs(b);
            return match char::from_u32(u32::from(u)) {
                Some(c) if u != UNDEFINED => (Step::Text(DbcsText::Char(c)), 1),
                _ => (Step::Bad, 1),
            };
        }
        match input.get(i + 1) {
            // Truncated pair, or a shift as second byte: the lone first
            // byte is the error and the shift is read next.
            None | Some(&SO) | Some(&SI) => (Step::Bad, 1),
            Some(&trail) => {
                let v = self.t.entry(self.t.page(dpages, b), trail);
                let text = match v {
                    NONE => None,
                    SPECIAL..=SPECIAL_END => self
                        .t
                        .specials
                        .get(usize::from(v - SPECIAL))
                        .copied()
                        .map(DbcsText::Str),
                    _ => char::from_u32(u32::from(v)).map(DbcsText::Char),
                };
                match text {
                    Some(t) => (Step::Text(t), 2),
                    None => (Step::Bad, 2),
                }
            }
        }
    }

    /// Appends the text of `input` to `out`; invalid bytes fail (nothing
    /// appended) naming the offset of the first byte of the bad single byte
    /// or pair, or become U+FFFD. Returns the number of substitutions.
    ///
    /// Decoding starts in the shift state `*shifted` (true: inside an SO
    /// ... SI run; false for a whole input), which is left as it is after
    /// `input`: the next part of a stream continues from there. `input` must start at a
    /// character boundary (not between the two bytes of a pair); a lone
    /// first byte at its end is an error, so a stream holds it back
    /// ([`Self::complete_len`]).
    pub fn decode_from(
        &self,
        input: &[u8],
        shifted: &mut bool,
        on: OnUnmappable,
        out: &mut String,
    ) -> Result<usize, ConvertError> {
        let start = out.len();
        out.reserve(input.len() + input.len() / 2);
        let mut dbcs = *shifted;
        let mut substitutions = 0;
        let mut i = 0;
        let dpages = self.t.dbcs_pages;
        let mut cached = (SO, self.t.page(dpages, SO));
        while i < input.len() {
            if !dbcs {
                // Single-byte ASCII-range characters, the bulk of most records.
                let b = input[i];
                let u = self.sbcs(b);
                if u < 0x80 && b != SO && b != SI {
                    out.push(u as u8 as char);
                    i += 1;
                    continue;
                }
            } else if let Some(&[lead, trail]) = input.get(i..i + 2)
                && lead != SO
                && lead != SI
                && trail != SO
                && trail != SI
            {
                // A double byte that is one BMP character, with the page of
                // the previous lead byte kept (kanji cluster by lead byte).
                if lead != cached.0 {
                    cached = (lead, self.t.page(dpages, lead));
                }
                let v = self.t.entry(cached.1, trail);
                if !(SPECIAL..=SPECIAL_END).contains(&v)
                    && v != NONE
                    && let Some(c) = char::from_u32(u32::from(v))
                {
                    out.push(c);
                    i += 2;
                    continue;
                }
            }
            let (step, len) = self.step(input, i, &mut dbcs, dpages);
            match step {
                Step::Shift => {}
                Step::Text(DbcsText::Char(c)) => out.push(c),
                Step::Text(DbcsText::Str(s)) => out.push_str(s),
                Step::Bad if on == OnUnmappable::Substitute => {
                    out.push(char::REPLACEMENT_CHARACTER);
                    substitutions += 1;
                }
                Step::Bad => {
                    out.truncate(start);
                    return Err(ConvertError::Invalid {
                        ccsid: self.t.ccsid,
                        offset: i,
                        byte: input[i],
                    });
                }
            }
            i += len;
        }
        *shifted = dbcs;
        Ok(substitutions)
    }

    /// Byte offset in `input` where its `n`th character (0-based, counted
    /// as [`Self::decode_from`] with substitution writes them) starts, when
    /// `input` starts in shift state `shifted`.
    pub fn char_offset(&self, input: &[u8], n: usize, shifted: bool) -> usize {
        let mut dbcs = shifted;
        let mut count = 0;
        let mut i = 0;
        while i < input.len() {
            let (step, len) = self.step(input, i, &mut dbcs, self.t.dbcs_pages);
            let chars = match step {
                Step::Shift => 0,
                Step::Text(DbcsText::Str(s)) => s.chars().count(),
                Step::Text(DbcsText::Char(_)) | Step::Bad => 1,
            };
            if chars > 0 && count + chars > n {
                return i;
            }
            count += chars;
            i += len;
        }
        input.len()
    }

    /// The shift state after `input` when it starts in state `shifted`: the
    /// last SO or SI in it decides (every other byte leaves the state as it
    /// is, IBM CDRA), and without one the state is unchanged.
    pub fn shift_after(input: &[u8], shifted: bool) -> bool {
        match input.iter().rposition(|&b| b == SO || b == SI) {
            Some(p) => input[p] == SO,
            None => shifted,
        }
    }

    /// How many bytes of `input` (starting in state `shifted`, at a
    /// character boundary) decode the same whatever follows: all of them,
    /// except a final lone first byte of a pair inside a double-byte run,
    /// which the next byte completes (or, if that is SO/SI or nothing,
    /// makes an error). After the last SO/SI (or from the start, in a run
    /// without one) every byte of a run starts or ends a pair, so the
    /// parity of the bytes after it tells.
    pub fn complete_len(input: &[u8], shifted: bool) -> usize {
        let (dbcs, run) = match input.iter().rposition(|&b| b == SO || b == SI) {
            Some(p) => (input[p] == SO, input.len() - p - 1),
            None => (shifted, input.len()),
        };
        if dbcs && run % 2 == 1 {
            input.len() - 1
        } else {
            input.len()
        }
    }

    /// The longest sequence of the set that `rest` (starting with `c`)
    /// begins with: its length in bytes of `rest` and its code.
    fn sequence(&self, c: char, rest: &str) -> Option<(usize, u16)> {
        let seqs = self.t.sequences;
        let first = seqs.partition_point(|(s, _)| s.chars().next().is_some_and(|f| f < c));
        seqs[first..]
            .iter()
            .take_while(|(s, _)| s.starts_with(c))
            .filter(|(s, _)| rest.starts_with(s))
            .max_by_key(|(s, _)| s.len())
            .map(|(s, code)| (s.len(), *code))
    }

    /// Where `c` goes under the newline policy.
    #[inline]
    fn encode_char(&self, c: char) -> Option<DbcsCode> {
        let c = match c {
            '\n' if self.swap => '\u{85}',
            '\u{85}' if self.swap => '\n',
            _ => c,
        };
        self.t.encode_char(c)
    }

    /// Appends the bytes of `text` to `out` with SO/SI as ICU writes them
    /// (module doc); error offsets are byte offsets in `text` (on error
    /// `out` is unchanged). Returns the number of substitutions.
    pub fn encode_into(
        &self,
        text: &str,
        on: OnUnmappable,
        out: &mut Vec<u8>,
    ) -> Result<usize, ConvertError> {
        self.encode_from(text, &mut false, false, on, out)
            .map(|(subs, _)| subs)
    }

    /// [`Self::encode_into`] for one part of a stream of text: the output
    /// continues in shift state `*shifted` (true: an SO was written and its
    /// SI not yet), which is left as it is at the end. With `more` (text
    /// follows), the run is left open and encoding stops before a final
    /// piece of text that may be the start of a longer multi-character
    /// sequence ([`DbcsTable::sequences`], longest match as ICU), which
    /// the caller passes again in front of the next part; without it the
    /// run is closed with SI and all of `text` is encoded. Returns the
    /// substitutions and how many bytes of `text` were encoded.
    pub fn encode_from(
        &self,
        text: &str,
        shifted: &mut bool,
        more: bool,
        on: OnUnmappable,
        out: &mut Vec<u8>,
    ) -> Result<(usize, usize), ConvertError> {
        let start = out.len();
        out.reserve(text.len() + 2);
        let src = text.as_bytes();
        // The ASCII page, read once: ASCII is the bulk of most text.
        let page0 = self.t.page(self.t.bmp_pages, 0);
        let mut cached = (0u8, page0);
        let min_seq = self
            .t
            .sequences
            .first()
            .and_then(|(s, _)| s.chars().next())
            .unwrap_or(char::MAX);
        // Only text shorter than the longest sequence can be a proper prefix.
        let longest_seq = self.t.sequences.iter().map(|(s, _)| s.len()).max();
        let longest_seq = longest_seq.unwrap_or(0);
        let mut dbcs = *shifted;
        let mut substitutions = 0;
        let mut i = 0;
        while i < src.len() {
            let b = src[i];
            let ascii = b < 0x80 && char::from(b) < min_seq && !(self.swap && b == b'\n');
            let (code, len) = if ascii {
                (DbcsCode::from_value(self.t.entry(page0, b)), 1)
            } else {
                let rest = text.get(i..).unwrap_or("");
                let Some(c) = rest.chars().next() else { break };
                if more && rest.len() < longest_seq && self.may_continue(c, rest) {
                    break;
                }
                let seq = if c >= min_seq {
                    self.sequence(c, rest)
                } else {
                    None
                };
                match seq {
                    Some((n, code)) => (DbcsCode::from_value(code), n),
                    None if c > '\u{85}' && c <= '\u{FFFF}' => {
                        // BMP, not a swapped newline: the page of the
                        // previous character's high byte is kept.
                        let [hi, lo] = (u32::from(c) as u16).to_be_bytes();
                        if hi != cached.0 {
                            cached = (hi, self.t.page(self.t.bmp_pages, hi));
                        }
                        (
                            DbcsCode::from_value(self.t.entry(cached.1, lo)),
                            c.len_utf8(),
                        )
                    }
                    None => (self.encode_char(c), c.len_utf8()),
                }
            };
            let code = match code {
                Some(code) => code,
                None => {
                    let ch = text
                        .get(i..)
                        .and_then(|t| t.chars().next())
                        .unwrap_or(char::REPLACEMENT_CHARACTER);
                    if on == OnUnmappable::Fail {
                        out.truncate(start);
                        return Err(ConvertError::Unmappable {
                            ccsid: self.t.ccsid,
                            offset: i,
                            ch,
                        });
                    }
                    substitutions += 1;
                    self.t.substitution(ch)
                }
            };
            match code {
                DbcsCode::Single(e) => {
                    if dbcs {
                        out.push(SI);
                        dbcs = false;
                    }
                    out.push(e);
                }
                DbcsCode::Double(pair) => {
                    if !dbcs {
                        out.push(SO);
                        dbcs = true;
                    }
                    out.extend_from_slice(&pair);
                }
            }
            i += len;
        }
        if dbcs && !more {
            out.push(SI);
            dbcs = false;
        }
        *shifted = dbcs;
        Ok((substitutions, i))
    }

    /// True when `rest` (starting with `c`) is a proper prefix of one of
    /// the set's sequences: the text after it decides what is written.
    fn may_continue(&self, c: char, rest: &str) -> bool {
        let seqs = self.t.sequences;
        let first = seqs.partition_point(|(s, _)| s.chars().next().is_some_and(|f| f < c));
        seqs[first..]
            .iter()
            .take_while(|(s, _)| s.starts_with(c))
            .any(|(s, _)| s.len() > rest.len() && s.starts_with(rest))
    }
}

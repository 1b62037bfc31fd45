//! RemoteQName `QUEUE<separator>QMGR` split in place into RemoteQName
//! `QUEUE` and RemoteQMgrName prefix + `QMGR`, each blank padded to 48: the
//! receive exit of the WebSphere MQ Everyplace gateway article (IBM
//! developerWorks, "Configuring WebSphere MQ for large-scale deployment of
//! WebSphere MQ Everyplace devices", 2006), which mqgate runs as its
//! `destination-rewrite` exit (docs/exits.md).
//!
//! The MQXQH is at the start of the buffer, its charset the one its StrucId
//! shows (`XQH ` in ASCII or EBCDIC); Version 1 is accepted in either byte
//! order. The rewrite reads and writes only bytes 0..104 (StrucId, Version
//! and the two names), allocates nothing, and changes nothing unless it
//! returns [`RewriteOutcome::Rewritten`].
//!
//! With AVX-512 (checked at run time, `crate::cpu`) the 48-byte RemoteQName
//! is one register: compares and one table lookup give 64-bit masks of
//! separators, NULs, blanks and name characters, every check is arithmetic
//! on those masks, and RemoteQMgrName is built with one byte permutation
//! and written with a masked store. Other CPUs run the scalar form, which
//! the tests hold the vector form to.

use std::fmt;

use super::enc::ByteOrder;
use super::field::{Charset, EBCDIC_TO_ASCII};
use super::rc::Mqrc;
use super::strucid::Structure;
use super::xqh::{REMOTE_Q_MGR_NAME_OFFSET, REMOTE_Q_NAME_OFFSET, XQH_LENGTH};
use crate::cpu::{Kernels, Level};

/// Length of RemoteQName and RemoteQMgrName in bytes (MQ_Q_NAME_LENGTH,
/// MQ_Q_MGR_NAME_LENGTH; IBM MQ "Constants").
pub const NAME_LENGTH: usize = 48;

/// MQ object name characters: `A-Z a-z 0-9 . / _ %` (IBM MQ "Rules for
/// naming IBM MQ objects"), as ASCII bytes.
pub fn is_name_char(c: u8) -> bool {
    NAME_BYTES[0][usize::from(c)] != 0
}

/// Per charset (ASCII, EBCDIC), 0x80 for the bytes that are name
/// characters and 0 for the others: a lookup table whose bit 7 is the answer.
const NAME_BYTES: [[u8; 256]; 2] = {
    let mut t = [[0u8; 256]; 2];
    let mut c = 0;
    while c < 256 {
        let a = c as u8;
        if a.is_ascii_alphanumeric() || matches!(a, b'.' | b'/' | b'_' | b'%') {
            t[0][c] = 0x80;
        }
        let e = EBCDIC_TO_ASCII[c];
        if e.is_ascii_alphanumeric() || matches!(e, b'.' | b'/' | b'_' | b'%') {
            t[1][c] = 0x80;
        }
        c += 1;
    }
    t
};

fn charset_index(cs: Charset) -> usize {
    match cs {
        Charset::Ascii => 0,
        Charset::Ebcdic => 1,
    }
}

/// Which of the two names is wrong.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum NamePart {
    /// The part before the separator (becomes RemoteQName): reason 2152.
    Queue,
    /// Prefix + the part after the separator (becomes RemoteQMgrName): reason 2058.
    QueueManager,
}

impl NamePart {
    /// 2152 MQRC_OBJECT_NAME_ERROR (IBM MQ "API reason codes": the object
    /// name is not valid) or 2058 MQRC_Q_MGR_NAME_ERROR (the queue manager
    /// name is not valid), the reasons MQOPEN and the HTTP API give for
    /// such names.
    pub fn mqrc(self) -> Mqrc {
        match self {
            NamePart::Queue => Mqrc::OBJECT_NAME_ERROR,
            NamePart::QueueManager => Mqrc::Q_MGR_NAME_ERROR,
        }
    }
}

/// Why a resulting name breaks MQ's naming rules (IBM MQ "Rules for naming
/// IBM MQ objects").
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum NameProblem {
    /// The name would have no character.
    Empty,
    /// The name would have `len` characters; the field holds 48.
    TooLong {
        /// Characters the name would have.
        len: usize,
    },
    /// The byte at `offset` of the buffer is not a name character.
    BadCharacter {
        /// Offset in the buffer, bytes.
        offset: usize,
        /// The byte found there.
        byte: u8,
    },
}

impl fmt::Display for NameProblem {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            NameProblem::Empty => f.write_str("empty name"),
            NameProblem::TooLong { len } => {
                write!(f, "{len} characters, more than the field's {NAME_LENGTH}")
            }
            NameProblem::BadCharacter { offset, byte } => write!(
                f,
                "byte 0x{byte:02X} at offset {offset} is not an MQ name character (A-Z a-z 0-9 . / _ %)"
            ),
        }
    }
}

/// The result of [`DestinationSplit::apply`].
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum RewriteOutcome {
    /// Both fields were rewritten.
    Rewritten,
    /// RemoteQName has no separator: nothing changed.
    NoSeparator,
    /// The buffer does not start with an MQXQH (too short, other StrucId, or
    /// Version not 1 in either byte order): nothing changed.
    NotXqh,
    /// A resulting name breaks MQ's rules: nothing changed.
    Invalid {
        /// Which name.
        part: NamePart,
        /// What is wrong with it.
        problem: NameProblem,
    },
}

/// Why a separator or prefix was refused.
#[derive(Clone, Copy, Debug, PartialEq, Eq, thiserror::Error)]
pub enum SplitError {
    /// The separator is not an MQ name character.
    #[error("separator 0x{0:02X} is not an MQ name character (A-Z a-z 0-9 . / _ %)")]
    Separator(u8),
    /// The prefix has `len` characters; a queue manager part needs at least
    /// one of the 48.
    #[error("prefix of {len} characters: at most 47")]
    PrefixTooLong {
        /// Characters in the prefix.
        len: usize,
    },
    /// The prefix byte at `position` is not an MQ name character.
    #[error(
        "prefix byte 0x{byte:02X} at position {position} is not an MQ name character (A-Z a-z 0-9 . / _ %)"
    )]
    PrefixCharacter {
        /// Position in the prefix, bytes.
        position: usize,
        /// The byte.
        byte: u8,
    },
}

/// A separator and a queue manager prefix, ready to apply to messages.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct DestinationSplit {
    /// The separator in ASCII and in EBCDIC.
    separator: [u8; 2],
    prefix_len: usize,
    /// The prefix in ASCII and in EBCDIC, blank padded to a register's 64
    /// bytes.
    prefix: [[u8; 64]; 2],
    /// The kernels to run, found once here rather than on every message.
    kernels: Kernels,
}

impl Default for DestinationSplit {
    /// Separator `%` (the article's), no prefix.
    fn default() -> Self {
        let e = Charset::Ebcdic;
        DestinationSplit {
            separator: [b'%', 0x6C],
            prefix_len: 0,
            prefix: [[b' '; 64], [e.blank(); 64]],
            kernels: Kernels::detect(),
        }
    }
}

impl DestinationSplit {
    /// `separator` and `prefix` in ASCII.
    ///
    /// Errors: [`SplitError`] when the separator is not one MQ name
    /// character, or the prefix has more than 47 or a non-name character.
    pub fn new(separator: u8, prefix: &[u8]) -> Result<DestinationSplit, SplitError> {
        let encode = |b: u8| {
            is_name_char(b)
                .then(|| Charset::Ebcdic.encode_invariant_byte(b))
                .flatten()
        };
        let separator_ebcdic = encode(separator).ok_or(SplitError::Separator(separator))?;
        if prefix.len() >= NAME_LENGTH {
            return Err(SplitError::PrefixTooLong { len: prefix.len() });
        }
        let mut p = [[b' '; 64], [Charset::Ebcdic.blank(); 64]];
        for (i, &b) in prefix.iter().enumerate() {
            let e = encode(b).ok_or(SplitError::PrefixCharacter {
                position: i,
                byte: b,
            })?;
            (p[0][i], p[1][i]) = (b, e);
        }
        Ok(DestinationSplit {
            separator: [separator, separator_ebcdic],
            prefix_len: prefix.len(),
            prefix: p,
            kernels: Kernels::detect(),
        })
    }

    /// The separator (ASCII).
    pub fn separator(&self) -> u8 {
        self.separator[0]
    }

    /// The prefix (ASCII name characters).
    pub fn prefix(&self) -> &[u8] {
        &self.prefix[0][..self.prefix_len]
    }

    /// Rewrites the MQXQH at the start of `buf` in place (see the module
    /// docs). Changes only RemoteQName and RemoteQMgrName, and only on
    /// [`RewriteOutcome::Rewritten`].
    pub fn apply(&self, buf: &mut [u8]) -> RewriteOutcome {
        self.apply_with(self.kernels, buf)
    }

    /// [`Self::apply`] with the given kernels.
    fn apply_with(&self, k: Kernels, buf: &mut [u8]) -> RewriteOutcome {
        let Some(cs) = xqh_charset(buf) else {
            return RewriteOutcome::NotXqh;
        };
        match k.level() {
            // SAFETY: a Kernels at this level exists only where the CPU has
            // its features (crate::cpu checked them); xqh_charset saw at
            // least XQH_LENGTH bytes.
            #[cfg(target_arch = "x86_64")]
            Level::Avx512 => unsafe { avx512::apply(self, cs, buf) },
            _ => self.apply_scalar(cs, buf),
        }
    }

    /// The scalar form: scans RemoteQName from its start, stopping where the
    /// answer is known.
    fn apply_scalar(&self, cs: Charset, buf: &mut [u8]) -> RewriteOutcome {
        let ci = charset_index(cs);
        let sep = self.separator[ci];
        let base = REMOTE_Q_NAME_OFFSET;
        let field = &buf[base..base + NAME_LENGTH];
        let blank = cs.blank();
        let name_char = |b: u8| NAME_BYTES[ci][usize::from(b)] != 0;
        // The name ends at the first NUL and trailing blanks do not count
        // (IBM MQ "Rules for naming IBM MQ objects"); the first separator
        // before that splits it.
        let Some(at) = field.iter().position(|&b| b == sep || b == 0) else {
            return RewriteOutcome::NoSeparator;
        };
        if field[at] == 0 {
            return RewriteOutcome::NoSeparator;
        }
        let invalid = |part, problem| RewriteOutcome::Invalid { part, problem };
        // The queue name is already in place: RemoteQName = QUEUE only
        // needs the separator and what follows blanked (the article:
        // "deleting the characters following the first occurrence of %").
        if at == 0 {
            return invalid(NamePart::Queue, NameProblem::Empty);
        }
        if let Some(i) = field[..at].iter().position(|&b| !name_char(b)) {
            let (offset, byte) = (base + i, field[i]);
            return invalid(NamePart::Queue, NameProblem::BadCharacter { offset, byte });
        }
        // The queue manager part runs to the first blank or NUL; after it
        // only blanks may follow (up to a NUL), else a blank is embedded.
        let rest = &field[at + 1..];
        let part_len = rest
            .iter()
            .position(|&b| b == blank || b == 0)
            .unwrap_or(rest.len());
        let tail = &rest[part_len..];
        if tail.first() == Some(&blank)
            && let Some(i) = tail.iter().position(|&b| b != blank)
            && tail[i] != 0
        {
            let (offset, byte) = (base + at + 1 + part_len, blank);
            return invalid(
                NamePart::QueueManager,
                NameProblem::BadCharacter { offset, byte },
            );
        }
        let part = &rest[..part_len];
        let q_mgr_len = self.prefix_len + part_len;
        if part.is_empty() {
            return invalid(NamePart::QueueManager, NameProblem::Empty);
        }
        if q_mgr_len > NAME_LENGTH {
            return invalid(
                NamePart::QueueManager,
                NameProblem::TooLong { len: q_mgr_len },
            );
        }
        if let Some(i) = part.iter().position(|&b| !name_char(b)) {
            let (offset, byte) = (base + at + 1 + i, part[i]);
            return invalid(
                NamePart::QueueManager,
                NameProblem::BadCharacter { offset, byte },
            );
        }
        // Name characters are the same bytes in the header's charset as
        // the part read from it, so the part is copied as it is.
        let mut q_mgr = [blank; NAME_LENGTH];
        q_mgr[..self.prefix_len].copy_from_slice(&self.prefix[ci][..self.prefix_len]);
        q_mgr[self.prefix_len..q_mgr_len].copy_from_slice(part);
        let q_mgr_field = REMOTE_Q_MGR_NAME_OFFSET;
        buf[q_mgr_field..q_mgr_field + NAME_LENGTH].copy_from_slice(&q_mgr);
        buf[base + at..base + NAME_LENGTH].fill(blank);
        RewriteOutcome::Rewritten
    }
}

/// The charset of the MQXQH at the start of `buf`, if one is there: a whole
/// 428-byte header, StrucId `XQH ` in ASCII or EBCDIC, Version 1 read in
/// either byte order (the XQH's encoding is not inside the buffer).
#[inline]
fn xqh_charset(buf: &[u8]) -> Option<Charset> {
    if buf.len() < XQH_LENGTH {
        return None;
    }
    let cs = Structure::Xqh.match_struc_id(buf)?;
    let v1 = |order: ByteOrder| order.read_i32(buf, 4) == Some(1);
    (v1(ByteOrder::Big) || v1(ByteOrder::Little)).then_some(cs)
}

#[cfg(target_arch = "x86_64")]
mod avx512 {
    use std::arch::x86_64::*;

    use super::*;

    /// 0, 1, ... 63: each lane's own number.
    const LANES: [u8; 64] = {
        let mut l = [0u8; 64];
        let mut j = 0;
        while j < 64 {
            l[j] = j as u8;
            j += 1;
        }
        l
    };

    /// Lanes `0..n` of a 64-lane mask (n ≤ 64).
    #[inline(always)]
    fn below(n: usize) -> u64 {
        if n >= 64 { u64::MAX } else { (1u64 << n) - 1 }
    }

    /// [`DestinationSplit::apply_scalar`] on masks of the 48-byte
    /// RemoteQName: lane `i` of each mask is byte `i` of the field.
    ///
    /// # Safety
    /// The CPU must have the features `crate::cpu::has_avx512` checks, and
    /// `buf` at least [`XQH_LENGTH`] bytes.
    #[target_feature(enable = "avx512f,avx512bw,avx512vbmi,avx512vbmi2,bmi2,popcnt")]
    pub(super) unsafe fn apply(
        split: &DestinationSplit,
        cs: Charset,
        buf: &mut [u8],
    ) -> RewriteOutcome {
        let ci = charset_index(cs);
        let base = REMOTE_Q_NAME_OFFSET;
        let field = below(NAME_LENGTH);
        let blank = cs.blank();
        // SAFETY: bytes 8..72 are inside the XQH_LENGTH (428) bytes of
        // `buf`; the names table rows are 64-byte parts of 256 bytes.
        let (name, t) = unsafe {
            (
                _mm512_loadu_si512(buf.as_ptr().add(base).cast()),
                std::array::from_fn::<__m512i, 4, _>(|k| {
                    _mm512_loadu_si512(NAME_BYTES[ci].as_ptr().add(64 * k).cast())
                }),
            )
        };
        let eq = |b: u8| _mm512_cmpeq_epi8_mask(name, _mm512_set1_epi8(b as i8)) & field;
        let (seps, nuls, blanks) = (eq(split.separator[ci]), eq(0), eq(blank));
        // The name-character table: its bit 7 per byte, as in the CCSID
        // kernels' 256-entry lookup.
        let looked_up = _mm512_mask_blend_epi8(
            _mm512_movepi8_mask(name),
            _mm512_permutex2var_epi8(t[0], name, t[1]),
            _mm512_permutex2var_epi8(t[2], name, t[3]),
        );
        let bad = !_mm512_movepi8_mask(looked_up) & field;
        let invalid = |part, problem| RewriteOutcome::Invalid { part, problem };
        let bad_at = |i: u32| NameProblem::BadCharacter {
            offset: base + i as usize,
            byte: buf[base + i as usize],
        };
        let stop = seps | nuls;
        if stop == 0 || nuls & stop & stop.wrapping_neg() != 0 {
            return RewriteOutcome::NoSeparator;
        }
        let at = stop.trailing_zeros() as usize;
        if at == 0 {
            return invalid(NamePart::Queue, NameProblem::Empty);
        }
        if bad & below(at) != 0 {
            return invalid(NamePart::Queue, bad_at((bad & below(at)).trailing_zeros()));
        }
        let after = field & !below(at + 1);
        let ends = (blanks | nuls) & after;
        let end = if ends == 0 {
            NAME_LENGTH
        } else {
            ends.trailing_zeros() as usize
        };
        // After the part: nothing, a NUL, or blanks up to the end or a NUL.
        let rest = field & !below(end);
        if blanks & rest & rest.wrapping_neg() != 0 {
            let non_blank = rest & !blanks;
            if non_blank != 0 && nuls & non_blank & non_blank.wrapping_neg() == 0 {
                let (offset, byte) = (base + end, blank);
                return invalid(
                    NamePart::QueueManager,
                    NameProblem::BadCharacter { offset, byte },
                );
            }
        }
        let part_len = end - at - 1;
        let q_mgr_len = split.prefix_len + part_len;
        if part_len == 0 {
            return invalid(NamePart::QueueManager, NameProblem::Empty);
        }
        if q_mgr_len > NAME_LENGTH {
            return invalid(
                NamePart::QueueManager,
                NameProblem::TooLong { len: q_mgr_len },
            );
        }
        let part = after & below(end);
        if bad & part != 0 {
            return invalid(
                NamePart::QueueManager,
                bad_at((bad & part).trailing_zeros()),
            );
        }
        // RemoteQMgrName: lane j takes the prefix below prefix_len, then
        // field byte j + at + 1 - prefix_len (one vpermb; indices wrap
        // mod 64, and only the lanes of the part are taken), then blanks.
        let shift = (at + 1).wrapping_sub(split.prefix_len) as u8;
        // SAFETY: LANES and the prefix row are 64 bytes, the size of the loads.
        let (lanes, prefix) = unsafe {
            (
                _mm512_loadu_si512(LANES.as_ptr().cast()),
                _mm512_loadu_si512(split.prefix[ci].as_ptr().cast()),
            )
        };
        let idx = _mm512_add_epi8(lanes, _mm512_set1_epi8(shift as i8));
        let from_part = below(q_mgr_len) & !below(split.prefix_len);
        let q_mgr = _mm512_mask_blend_epi8(from_part, prefix, _mm512_permutexvar_epi8(idx, name));
        let p = buf.as_mut_ptr();
        // SAFETY: the masked stores write lanes below 48 at offsets 56 and
        // 8 (at..48 there): bytes 8..104, inside the 428-byte header.
        unsafe {
            _mm512_mask_storeu_epi8(p.add(REMOTE_Q_MGR_NAME_OFFSET).cast(), field, q_mgr);
            _mm512_mask_storeu_epi8(
                p.add(base).cast(),
                field & !below(at),
                _mm512_set1_epi8(blank as i8),
            );
        }
        RewriteOutcome::Rewritten
    }
}

#[cfg(test)]
mod tests;

//! The column sections: %PROFILE, %QCT, %GNT and %XGROUP, and the column
//! readers they share (numbers, choices, `.` defaults), nom-parsed.

use nom::Parser;
use nom::character::complete::digit1;
use nom::combinator::all_consuming;

use super::error::{InitFileError, InitFileErrorKind, Pos};
use super::lex::Word;
use super::{
    Column, GntEntry, Profile, ProfileEntry, ProfileKey, QueueEntry, QuotaEnable, Scope,
    XGroupEntry, clip,
};
use crate::pams::address::QAddress;

type Lines<'a> = [Vec<Word<'a>>];

fn err(pos: Pos, kind: InitFileErrorKind) -> InitFileError {
    InitFileError::new(pos, kind)
}

/// `name` (at `pos`) must not be one of the `earlier` names of its section
/// (each with its position): a repeat is DuplicateName naming the first line.
fn unique_name<'e>(
    mut earlier: impl Iterator<Item = (&'e str, Pos)>,
    name: &str,
    pos: Pos,
) -> Result<(), InitFileError> {
    match earlier.find(|(n, _)| *n == name) {
        Some((_, first)) => Err(err(
            pos,
            InitFileErrorKind::DuplicateName {
                name: clip(name),
                first_line: first.line,
            },
        )),
        None => Ok(()),
    }
}

/// The columns of one line, read left to right; the position of the line end
/// for a missing column.
pub(crate) struct Columns<'w, 'a> {
    words: &'w [Word<'a>],
    next: usize,
}

impl<'w, 'a> Columns<'w, 'a> {
    pub(crate) fn new(words: &'w [Word<'a>]) -> Self {
        Columns { words, next: 0 }
    }

    /// Where the line starts.
    pub(crate) fn start(&self) -> Pos {
        self.words
            .first()
            .map_or(Pos { line: 1, column: 1 }, |w| w.pos)
    }

    fn end(&self) -> Pos {
        match self.words.last() {
            Some(w) => Pos {
                line: w.pos.line,
                column: w.pos.column + w.text.chars().count(),
            },
            None => self.start(),
        }
    }

    /// The next word; `MissingColumn` when the line ends.
    pub(crate) fn word(&mut self, column: &'static str) -> Result<&'w Word<'a>, InitFileError> {
        let w = self
            .words
            .get(self.next)
            .ok_or_else(|| err(self.end(), InitFileErrorKind::MissingColumn { column }))?;
        self.next += 1;
        Ok(w)
    }

    /// The next word, `None` for `.`.
    pub(crate) fn optional(
        &mut self,
        column: &'static str,
    ) -> Result<Option<&'w Word<'a>>, InitFileError> {
        let w = self.word(column)?;
        Ok((w.text != ".").then_some(w))
    }

    /// The next word, which must not be `.`.
    pub(crate) fn required(&mut self, column: &'static str) -> Result<&'w Word<'a>, InitFileError> {
        let w = self.word(column)?;
        if w.text == "." {
            return Err(err(w.pos, InitFileErrorKind::DefaultNotAllowed { column }));
        }
        Ok(w)
    }

    /// `ExtraColumn` if words are left.
    pub(crate) fn finish(&self) -> Result<(), InitFileError> {
        match self.words.get(self.next) {
            Some(w) => Err(err(
                w.pos,
                InitFileErrorKind::ExtraColumn {
                    found: clip(w.text),
                },
            )),
            None => Ok(()),
        }
    }

    /// The words not read yet.
    pub(crate) fn rest(&self) -> &'w [Word<'a>] {
        self.words.get(self.next..).unwrap_or_default()
    }
}

/// A decimal number of at most `max`.
pub(crate) fn number(w: &Word<'_>, column: &'static str, max: u64) -> Result<u64, InitFileError> {
    let parsed: nom::IResult<&str, &str> = all_consuming(digit1).parse(w.text);
    parsed
        .ok()
        .and_then(|(_, d)| d.parse::<u64>().ok())
        .filter(|&n| n <= max)
        .ok_or_else(|| {
            err(
                w.pos,
                InitFileErrorKind::BadNumber {
                    column,
                    found: clip(w.text),
                    max,
                },
            )
        })
}

fn u16_col(w: &Word<'_>, column: &'static str) -> Result<u16, InitFileError> {
    number(w, column, u64::from(u16::MAX)).map(|n| n as u16)
}

fn u32_col(w: &Word<'_>, column: &'static str) -> Result<u32, InitFileError> {
    number(w, column, u64::from(u32::MAX)).map(|n| n as u32)
}

/// One of `choices` (compared without case).
pub(crate) fn choice<T: Copy>(
    w: &Word<'_>,
    column: &'static str,
    choices: &[(&str, T)],
    allowed: &'static str,
) -> Result<T, InitFileError> {
    choices
        .iter()
        .find(|(c, _)| c.eq_ignore_ascii_case(w.text))
        .map(|&(_, v)| v)
        .ok_or_else(|| {
            err(
                w.pos,
                InitFileErrorKind::BadChoice {
                    column,
                    found: clip(w.text),
                    allowed,
                },
            )
        })
}

const YES_NO: [(&str, bool); 2] = [("YES", true), ("NO", false)];
const Y_N: [(&str, bool); 2] = [("Y", true), ("N", false)];
const SCOPES: [(&str, Scope); 2] = [("G", Scope::Global), ("L", Scope::Local)];
const QUOTAS: [(&str, QuotaEnable); 4] = [
    ("ALL", QuotaEnable::All),
    ("MSG", QuotaEnable::Msg),
    ("BYTE", QuotaEnable::Byte),
    ("NONE", QuotaEnable::None),
];

/// `%PROFILE`: `KEY VALUE` lines.
pub(crate) fn profile(pos: Pos, lines: &Lines<'_>) -> Result<Profile, InitFileError> {
    let mut entries: Vec<ProfileEntry> = Vec::new();
    for words in lines {
        let mut cols = Columns::new(words);
        let key_word = cols.required("a %PROFILE keyword")?;
        let key = match key_word.text.to_ascii_uppercase().as_str() {
            "ENABLE_SBS" => ProfileKey::EnableSbs,
            "ENABLE_MRS" => ProfileKey::EnableMrs,
            "ENABLE_JRN" => ProfileKey::EnableJrn,
            _ => {
                return Err(err(
                    key_word.pos,
                    InitFileErrorKind::UnknownKeyword {
                        section: "PROFILE",
                        keyword: clip(key_word.text),
                    },
                ));
            }
        };
        let value_word = cols.required("YES or NO")?;
        let value = choice(value_word, key.name(), &YES_NO, "YES or NO")?;
        cols.finish()?;
        let reason = match key {
            ProfileKey::EnableMrs => {
                Some("mqgate does not implement the message recovery server (MRS)")
            }
            ProfileKey::EnableJrn => Some("mqgate does not implement the journal server"),
            ProfileKey::EnableSbs => None,
        };
        if let (true, Some(reason)) = (value, reason) {
            return Err(err(
                value_word.pos,
                InitFileErrorKind::UnsupportedValue {
                    keyword: key.name().to_owned(),
                    value: clip(value_word.text),
                    reason,
                },
            ));
        }
        if let Some(first) = entries.iter().find(|e| e.key == key) {
            return Err(err(
                key_word.pos,
                InitFileErrorKind::DuplicateKeyword {
                    keyword: key.name().to_owned(),
                    first_line: first.pos.line,
                },
            ));
        }
        entries.push(ProfileEntry {
            key,
            value,
            pos: key_word.pos,
        });
    }
    Ok(Profile { pos, entries })
}

/// `%QCT`: twelve columns per queue.
pub(crate) fn qct(lines: &Lines<'_>) -> Result<Vec<QueueEntry>, InitFileError> {
    let mut out: Vec<QueueEntry> = Vec::new();
    for words in lines {
        let mut c = Columns::new(words);
        let name_word = c.required("queue name")?;
        let number_word = c.required("queue number")?;
        let number = u16_col(number_word, "queue number")?;
        let text = |w: Option<&Word<'_>>| w.map(|w| w.text.to_owned());
        let entry = QueueEntry {
            pos: c.start(),
            name: name_word.text.to_owned(),
            number,
            byte_quota: c
                .optional("byte quota")?
                .map(|w| u32_col(w, "byte quota"))
                .transpose()?,
            msg_quota: c
                .optional("message quota")?
                .map(|w| u32_col(w, "message quota"))
                .transpose()?,
            quota_enable: c
                .optional("quota enable")?
                .map(|w| choice(w, "quota enable", &QUOTAS, "ALL, MSG, BYTE or NONE"))
                .transpose()?,
            ucb_send: text(c.optional("UCB send")?),
            queue_type: text(c.optional("queue type")?),
            owner_queue: c
                .optional("owner queue")?
                .map(|w| u16_col(w, "owner queue"))
                .transpose()?,
            confirm_style: text(c.optional("confirm style")?),
            perm_active: c
                .optional("perm active")?
                .map(|w| choice(w, "perm active", &Y_N, "Y or N"))
                .transpose()?,
            scope: c
                .optional("name scope")?
                .map(|w| choice(w, "name scope", &SCOPES, "G or L"))
                .transpose()?,
            security: c
                .optional("security")?
                .map(|w| choice(w, "security", &Y_N, "Y or N"))
                .transpose()?,
        };
        c.finish()?;
        unique_name(
            out.iter().map(|e| (e.name.as_str(), e.pos)),
            &entry.name,
            name_word.pos,
        )?;
        if let Some(first) = out.iter().find(|e| e.number == number) {
            return Err(err(
                number_word.pos,
                InitFileErrorKind::DuplicateQueueNumber {
                    number,
                    first_line: first.pos.line,
                },
            ));
        }
        out.push(entry);
    }
    Ok(out)
}

/// `%GNT`: `Name Group.Queue Scope`.
pub(crate) fn gnt(lines: &Lines<'_>) -> Result<Vec<GntEntry>, InitFileError> {
    let mut out: Vec<GntEntry> = Vec::new();
    for words in lines {
        let mut c = Columns::new(words);
        let name = c.required("name")?;
        let addr = c.required("group.queue")?;
        let address = QAddress::parse(addr.text).map_err(|e| {
            err(
                Pos {
                    line: addr.pos.line,
                    column: addr.pos.column + e.column - 1,
                },
                InitFileErrorKind::BadAddress {
                    reason: e.to_string(),
                },
            )
        })?;
        let scope = choice(c.required("scope")?, "scope", &SCOPES, "G or L")?;
        c.finish()?;
        unique_name(
            out.iter().map(|e| (e.name.as_str(), e.pos)),
            name.text,
            name.pos,
        )?;
        out.push(GntEntry {
            pos: name.pos,
            name: name.text.to_owned(),
            address,
            scope,
        });
    }
    Ok(out)
}

/// `%XGROUP`: the group name, then the columns as written.
pub(crate) fn xgroup(lines: &Lines<'_>) -> Result<Vec<XGroupEntry>, InitFileError> {
    let mut out: Vec<XGroupEntry> = Vec::new();
    for words in lines {
        let mut c = Columns::new(words);
        let name = c.required("group name")?;
        unique_name(
            out.iter().map(|e| (e.name.as_str(), e.pos)),
            name.text,
            name.pos,
        )?;
        out.push(XGroupEntry {
            pos: name.pos,
            name: name.text.to_owned(),
            columns: c
                .rest()
                .iter()
                .map(|w| Column {
                    value: (w.text != ".").then(|| w.text.to_owned()),
                    pos: w.pos,
                })
                .collect(),
        });
    }
    Ok(out)
}

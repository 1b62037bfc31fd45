//! Errors of the group initialization file reader: where (1-based line and
//! column, columns counted in characters) and what, with the PAMS return code
//! MessageQ gives for a bad file (PAMS__BADINITFILE, `p_return.h`).

use std::fmt;

use crate::pams::status::PamsStatus;

/// A position in the file: 1-based line and column (in characters).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct Pos {
    /// 1-based line.
    pub line: usize,
    /// 1-based column, counted in characters.
    pub column: usize,
}

impl fmt::Display for Pos {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "line {}, column {}", self.line, self.column)
    }
}

/// What was wrong in the file.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum InitFileErrorKind {
    /// The file is not UTF-8 text: the first byte that is not.
    NotUtf8 {
        /// The byte, as found.
        byte: u8,
    },
    /// Text outside any `%SECTION` … `%EOS` block.
    OutsideSection {
        /// The first word found.
        found: String,
    },
    /// `%` not followed by a section name (letters, digits, `_`).
    BadSectionName {
        /// The word as written.
        found: String,
    },
    /// A section MessageQ does not have, as far as mqgate knows.
    UnknownSection {
        /// The name without `%`.
        name: String,
    },
    /// A MessageQ section mqgate does not implement (e.g. `%MRS`).
    UnsupportedSection {
        /// The name without `%`.
        name: String,
        /// What mqgate lacks.
        reason: &'static str,
    },
    /// The same section twice.
    DuplicateSection {
        /// The name.
        name: String,
        /// Line of the first one.
        first_line: usize,
    },
    /// A `%SECTION` line while another section is open.
    NestedSection {
        /// The new section's name.
        name: String,
        /// The open section's name.
        open: String,
        /// Line where the open section started.
        open_line: usize,
    },
    /// The file ends inside a section.
    MissingEos {
        /// The open section's name.
        name: String,
        /// Line where it started.
        open_line: usize,
    },
    /// `%EOS` with no open section.
    EosOutsideSection,
    /// Text after `%NAME` or `%EOS` that is not a `*` banner or `!` comment.
    TextAfterHeader {
        /// The first word found.
        found: String,
    },
    /// A keyword the section does not have.
    UnknownKeyword {
        /// The section.
        section: &'static str,
        /// The keyword as written.
        keyword: String,
    },
    /// A keyword of MessageQ that mqgate does not implement.
    UnsupportedKeyword {
        /// The keyword as written.
        keyword: String,
        /// What mqgate lacks.
        reason: &'static str,
    },
    /// A value mqgate does not implement (e.g. `ENABLE_MRS YES`, `DG/ETH`).
    UnsupportedValue {
        /// The keyword or column.
        keyword: String,
        /// The value as written.
        value: String,
        /// What mqgate lacks.
        reason: &'static str,
    },
    /// A keyword given twice.
    DuplicateKeyword {
        /// The keyword.
        keyword: String,
        /// Line of the first one.
        first_line: usize,
    },
    /// A column is missing at the end of the line.
    MissingColumn {
        /// The column's name.
        column: &'static str,
    },
    /// More columns than the line has.
    ExtraColumn {
        /// The first extra word.
        found: String,
    },
    /// `.` (default) in a column that needs a value.
    DefaultNotAllowed {
        /// The column's name.
        column: &'static str,
    },
    /// A column that must be a decimal number in a range.
    BadNumber {
        /// The column's name.
        column: &'static str,
        /// The text as written.
        found: String,
        /// The largest value.
        max: u64,
    },
    /// A column that must be one of a few words.
    BadChoice {
        /// The column's name.
        column: &'static str,
        /// The text as written.
        found: String,
        /// The words allowed, e.g. `G or L`.
        allowed: &'static str,
    },
    /// A `group.queue` column that is not an address.
    BadAddress {
        /// What was wrong (from [`crate::pams::address::AddressErrorKind`]).
        reason: String,
    },
    /// A name defined twice in the same section.
    DuplicateName {
        /// The name.
        name: String,
        /// Line of the first definition.
        first_line: usize,
    },
    /// A queue number defined twice in %QCT.
    DuplicateQueueNumber {
        /// The number.
        number: u16,
        /// Line of the first definition.
        first_line: usize,
    },
    /// A `COMM_SERVICE` block not closed by `END_COMM_SERVICE` before `%EOS`.
    UnterminatedService {
        /// Line of the `COMM_SERVICE`.
        open_line: usize,
    },
    /// A keyword that belongs inside (or outside) a `COMM_SERVICE` block found elsewhere.
    MisplacedKeyword {
        /// The keyword.
        keyword: String,
        /// Where it belongs.
        belongs: &'static str,
    },
}

impl fmt::Display for InitFileErrorKind {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        use InitFileErrorKind as K;
        match self {
            K::NotUtf8 { byte } => write!(
                f,
                "byte 0x{byte:02X} is not UTF-8: a group initialization file is UTF-8 text (ASCII is)"
            ),
            K::OutsideSection { found } => write!(
                f,
                "{found:?} outside a section: expected %SECTION, a '!' comment or a '*' comment line"
            ),
            K::BadSectionName { found } => write!(
                f,
                "bad section name {found:?}: expected % and letters, digits or '_'"
            ),
            K::UnknownSection { name } => write!(f, "unknown section %{name}"),
            K::UnsupportedSection { name, reason } => {
                write!(f, "section %{name} is not supported: {reason}")
            }
            K::DuplicateSection { name, first_line } => {
                write!(
                    f,
                    "section %{name} appears twice (first at line {first_line})"
                )
            }
            K::NestedSection {
                name,
                open,
                open_line,
            } => write!(
                f,
                "%{name} inside %{open} (opened at line {open_line}): expected %EOS first"
            ),
            K::MissingEos { name, open_line } => write!(
                f,
                "expected %EOS, found end of file (section %{name} opened at line {open_line})"
            ),
            K::EosOutsideSection => f.write_str("%EOS without an open section"),
            K::TextAfterHeader { found } => write!(
                f,
                "unexpected {found:?} after the section line (only a '*' banner or a '!' comment may follow)"
            ),
            K::UnknownKeyword { section, keyword } => {
                write!(f, "unknown %{section} keyword {keyword:?}")
            }
            K::UnsupportedKeyword { keyword, reason } => {
                write!(f, "{keyword} is not supported: {reason}")
            }
            K::UnsupportedValue {
                keyword,
                value,
                reason,
            } => write!(f, "{keyword} {value} is not supported: {reason}"),
            K::DuplicateKeyword {
                keyword,
                first_line,
            } => write!(f, "{keyword} is given twice (first at line {first_line})"),
            K::MissingColumn { column } => write!(f, "missing column: expected {column}"),
            K::ExtraColumn { found } => write!(f, "unexpected extra column {found:?}"),
            K::DefaultNotAllowed { column } => {
                write!(
                    f,
                    "{column} needs a value: '.' (default) is not allowed here"
                )
            }
            K::BadNumber { column, found, max } => write!(
                f,
                "{column} {found:?} is not a decimal number from 0 to {max}"
            ),
            K::BadChoice {
                column,
                found,
                allowed,
            } => write!(f, "{column} {found:?}: expected {allowed}"),
            K::BadAddress { reason } => write!(f, "bad queue address: {reason}"),
            K::DuplicateName { name, first_line } => {
                write!(
                    f,
                    "name {name:?} is defined twice (first at line {first_line})"
                )
            }
            K::DuplicateQueueNumber { number, first_line } => write!(
                f,
                "queue number {number} is defined twice (first at line {first_line})"
            ),
            K::UnterminatedService { open_line } => write!(
                f,
                "expected END_COMM_SERVICE before %EOS (COMM_SERVICE at line {open_line})"
            ),
            K::MisplacedKeyword { keyword, belongs } => {
                write!(f, "{keyword} belongs {belongs}")
            }
        }
    }
}

/// A group initialization file mqgate cannot read, with where and what.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
#[error("group initialization file {pos}: {kind} ({status})", status = self.pams_status())]
pub struct InitFileError {
    /// Where: the line and the column of the word at fault.
    pub pos: Pos,
    /// What was wrong.
    pub kind: InitFileErrorKind,
}

impl InitFileError {
    /// An error at `pos`.
    pub fn new(pos: Pos, kind: InitFileErrorKind) -> Self {
        InitFileError { pos, kind }
    }

    /// PAMS__BADINITFILE (-282), the return code of a bad initialization file.
    pub fn pams_status(&self) -> PamsStatus {
        PamsStatus::BADINITFILE
    }
}

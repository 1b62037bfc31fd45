//! Errors found while reading an IDL file, each with line and column.
//!
//! Where the EntireX IDL parser has a message of class 2001 for the same fault,
//! [`IdlErrorKind::message_number`] gives it (EntireX "Message Class 2001";
//! docs/rpc.md "Reading an IDL file").

use std::fmt;

use super::ast::Position;

/// One fault in an IDL file: where it is and what was wrong.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct IdlError {
    /// Line and column of the token at fault.
    pub position: Position,
    /// What was wrong.
    pub kind: IdlErrorKind,
}

impl IdlError {
    pub(crate) fn new(position: Position, kind: IdlErrorKind) -> Self {
        IdlError { position, kind }
    }
}

impl fmt::Display for IdlError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(
            f,
            "line {}, column {}: {}",
            self.position.line, self.position.column, self.kind
        )?;
        if let Some(n) = self.kind.message_number() {
            write!(f, " (EntireX {n})")?;
        }
        Ok(())
    }
}

impl std::error::Error for IdlError {}

/// Every fault found in one IDL file, in text order (never empty).
///
/// A syntax error stops the parse; rule violations on well-formed lines
/// (lengths, levels, names, dynamic parameters) are collected so a user sees them
/// all at once.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct IdlErrors(pub Vec<IdlError>);

impl IdlErrors {
    /// The first fault in text order.
    pub fn first(&self) -> Option<&IdlError> {
        self.0.first()
    }
}

impl fmt::Display for IdlErrors {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        for (i, e) in self.0.iter().enumerate() {
            if i > 0 {
                f.write_str("\n")?;
            }
            write!(f, "{e}")?;
        }
        Ok(())
    }
}

impl std::error::Error for IdlErrors {}

/// What was wrong in an IDL file.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum IdlErrorKind {
    /// A token other than the one the grammar needs here.
    Expected {
        /// What the grammar allows at this place, e.g. "IS" or "a level number".
        expected: String,
        /// What stands there instead (`end of file` at the end).
        found: String,
    },
    /// `DEFINE DATA PARAMETER` not closed by `END-DEFINE` before the end of file.
    MissingEndDefine {
        /// Line of the `DEFINE` keyword that opened the block.
        opened_at_line: u32,
    },
    /// A character that starts no IDL token.
    UnexpectedCharacter(char),
    /// 20010003: a struct refers to itself, directly or through other structs.
    SelfReferencingStruct {
        /// The struct names along the cycle, starting and ending with the same one.
        cycle: Vec<String>,
    },
    /// 20010004: the format takes no length here (e.g. `D8`, `I4.2`).
    LengthNotAllowed {
        /// The format as written.
        format: String,
    },
    /// 20010005: the format needs a length (e.g. `A`, `N`).
    LengthRequired {
        /// The format as written.
        format: String,
    },
    /// 20010006: a name in apostrophes was expected.
    ExpectedString {
        /// What stands there instead.
        found: String,
    },
    /// 20010007: a string has no closing apostrophe on its line.
    ExpectedApostrophe,
    /// 20010020: the file holds no library (it does not start with `LIBRARY`).
    NoLibrary {
        /// What stands where `LIBRARY` was expected.
        found: String,
    },
    /// 20010021: the program has IMS parameters only.
    OnlyImsParameters {
        /// Program name.
        program: String,
    },
    /// 20010022: the library holds no program and no struct.
    EmptyLibrary {
        /// Library name.
        library: String,
    },
    /// 20010023: a library name or alias is used twice in the file.
    LibraryNameClash {
        /// The name or alias used twice.
        name: String,
    },
    /// 20010024: the parameter block has no parameter.
    EmptyProgram {
        /// Program or struct name.
        name: String,
    },
    /// 20010025: a program name or alias is used twice in the library.
    ProgramNameClash {
        /// The name or alias used twice.
        name: String,
    },
    /// 20010026: a struct reference names no struct of the library.
    UndefinedStruct {
        /// The referenced name.
        name: String,
    },
    /// A format letter the grammar does not know, or a length out of its rules
    /// (n + m ≤ 29, m ≤ 7, I1/I2/I4, F4/F8, lengths ≥ 1).
    InvalidFormat {
        /// The format as written.
        format: String,
        /// Which rule it breaks.
        reason: String,
    },
    /// A level number outside 1-99 or not 1-2 digits.
    InvalidLevel {
        /// The level as written.
        level: String,
    },
    /// A level skips one (1 → 3) or the block does not start at level 1.
    SkippedLevel {
        /// Level found.
        found: u8,
        /// Highest level allowed here.
        max_allowed: u8,
    },
    /// A field or struct reference is followed by a deeper level.
    NotAGroup {
        /// The parameter that would be the parent.
        parent: String,
    },
    /// A group has no members.
    EmptyGroup {
        /// Group name.
        group: String,
    },
    /// More than 3 dimensions, fixed and unbounded mixed, upper < lower, or a
    /// lower bound other than 1 on an unbounded dimension.
    InvalidArray {
        /// Which rule it breaks.
        reason: String,
    },
    /// Two directions on one line, or `IMS` below level 1.
    InvalidAttribute {
        /// Which rule it breaks.
        reason: String,
    },
    /// Two siblings, structs, or programs with the same name after case folding.
    DuplicateName {
        /// The repeated name.
        name: String,
    },
    /// A name longer than its limit (struct 31, library/program/alias 128).
    NameTooLong {
        /// The name.
        name: String,
        /// The limit in characters.
        max: usize,
    },
    /// Library, program, alias or struct names must not start with `SAG`.
    ReservedName {
        /// The name.
        name: String,
    },
    /// A dynamic parameter (MQ_QUEUE_NAME, MQ_CORREL_ID, ...) breaks its rules
    /// (docs/rpc.md).
    DynamicParameter {
        /// Parameter name.
        name: String,
        /// Which rule it breaks.
        reason: String,
    },
}

impl IdlErrorKind {
    /// The EntireX message number of class 2001 for this fault, where one exists
    /// (docs/rpc.md).
    pub fn message_number(&self) -> Option<u32> {
        Some(match self {
            IdlErrorKind::SelfReferencingStruct { .. } => 20010003,
            IdlErrorKind::LengthNotAllowed { .. } => 20010004,
            IdlErrorKind::LengthRequired { .. } => 20010005,
            IdlErrorKind::ExpectedString { .. } => 20010006,
            IdlErrorKind::ExpectedApostrophe => 20010007,
            IdlErrorKind::NoLibrary { .. } => 20010020,
            IdlErrorKind::OnlyImsParameters { .. } => 20010021,
            IdlErrorKind::EmptyLibrary { .. } => 20010022,
            IdlErrorKind::LibraryNameClash { .. } => 20010023,
            IdlErrorKind::EmptyProgram { .. } => 20010024,
            IdlErrorKind::ProgramNameClash { .. } => 20010025,
            IdlErrorKind::UndefinedStruct { .. } => 20010026,
            _ => return None,
        })
    }
}

impl fmt::Display for IdlErrorKind {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            IdlErrorKind::Expected { expected, found } => {
                write!(f, "expected {expected}, found {found}")
            }
            IdlErrorKind::MissingEndDefine { opened_at_line } => write!(
                f,
                "expected END-DEFINE, found end of file (DEFINE DATA PARAMETER opened at line {opened_at_line})"
            ),
            IdlErrorKind::UnexpectedCharacter(c) => write!(f, "unexpected character {c:?}"),
            IdlErrorKind::SelfReferencingStruct { cycle } => {
                write!(f, "self-referencing struct: {}", cycle.join(" -> "))
            }
            IdlErrorKind::LengthNotAllowed { format } => {
                write!(f, "length not allowed for format {format}")
            }
            IdlErrorKind::LengthRequired { format } => {
                write!(f, "length required for format {format}")
            }
            IdlErrorKind::ExpectedString { found } => {
                write!(f, "expected a name in apostrophes, found {found}")
            }
            IdlErrorKind::ExpectedApostrophe => {
                f.write_str("expected a closing apostrophe before the end of the line")
            }
            IdlErrorKind::NoLibrary { found } => {
                write!(f, "no library: expected LIBRARY, found {found}")
            }
            IdlErrorKind::OnlyImsParameters { program } => {
                write!(f, "program '{program}' has only IMS parameters")
            }
            IdlErrorKind::EmptyLibrary { library } => {
                write!(f, "library '{library}' holds no program and no struct")
            }
            IdlErrorKind::LibraryNameClash { name } => {
                write!(f, "library name or alias '{name}' is used twice")
            }
            IdlErrorKind::EmptyProgram { name } => {
                write!(f, "'{name}' has no parameter: expected a level-1 parameter")
            }
            IdlErrorKind::ProgramNameClash { name } => {
                write!(
                    f,
                    "program name or alias '{name}' is used twice in the library"
                )
            }
            IdlErrorKind::UndefinedStruct { name } => {
                write!(f, "undefined struct '{name}'")
            }
            IdlErrorKind::InvalidFormat { format, reason } => {
                write!(f, "invalid format {format}: {reason}")
            }
            IdlErrorKind::InvalidLevel { level } => {
                write!(f, "invalid level {level}: expected 1 to 99")
            }
            IdlErrorKind::SkippedLevel { found, max_allowed } => write!(
                f,
                "level {found} skips a level: expected a level from 1 to {max_allowed}"
            ),
            IdlErrorKind::NotAGroup { parent } => write!(
                f,
                "'{parent}' has a format or struct, so it cannot have members: expected a level not deeper than it"
            ),
            IdlErrorKind::EmptyGroup { group } => {
                write!(
                    f,
                    "group '{group}' has no members: expected a deeper level on the next line"
                )
            }
            IdlErrorKind::InvalidArray { reason } => write!(f, "invalid array: {reason}"),
            IdlErrorKind::InvalidAttribute { reason } => write!(f, "invalid attribute: {reason}"),
            IdlErrorKind::DuplicateName { name } => {
                write!(
                    f,
                    "name '{name}' is used twice (names are compared without case)"
                )
            }
            IdlErrorKind::NameTooLong { name, max } => {
                write!(f, "name '{name}' is longer than {max} characters")
            }
            IdlErrorKind::ReservedName { name } => {
                write!(f, "name '{name}' must not start with SAG")
            }
            IdlErrorKind::DynamicParameter { name, reason } => {
                write!(f, "dynamic parameter {name}: {reason}")
            }
        }
    }
}

//! The text syntax shared by DMCONFIG and UBBCONFIG: a lexer and a parser to
//! sections, entries and `KEYWORD=value` parameters (Oracle Tuxedo
//! "UBBCONFIG(5)", "DMCONFIG(5)"; mqgate's reading: docs/tuxedo.md "DMCONFIG
//! and UBBCONFIG text").
//!
//! Rules (with mqgate's choices where the sources differ):
//! - `*NAME` as the first non-blank text of a line starts a section; NAME is
//!   letters, digits and `_`.
//! - `#` outside quotes starts a comment to the end of the line.
//! - Newlines carry no meaning (continuation lines may be indented or not):
//!   a word followed by `=` is a keyword, a word not followed by `=` starts a
//!   new entry. Whitespace is allowed around `=`.
//! - In the UBBCONFIG `*RESOURCES` section, items are `KEYWORD value` pairs
//!   (an `=` between them is accepted too); a keyword is a bare word, as
//!   before `=` anywhere.
//! - `DEFAULT:` is a pseudo-entry: its parameters apply to the following
//!   entries of the section (later `DEFAULT:` values override earlier ones;
//!   an entry's own value overrides a default).
//! - Values are double-quoted or bare. A bare word is any run of characters
//!   other than whitespace, `=`, `"` and `#` (more lenient than Tuxedo's
//!   letters/digits/`_`, so real files with `$VAR` or `a,b` lists read as
//!   written). Inside quotes `\"` and `\\` are escapes and a newline may
//!   appear (Enduro/X); an unterminated quote is an error.
//!
//! Both steps are nom parsers: [`tokenize`] lexes the text (a position is the
//! byte offset of the remaining input, counted into line and column), and the
//! grammar reads the tokens into sections, entries and parameters.

use std::fmt;

use grammar::Item;

mod grammar;
mod lex;

/// A position in the text: 1-based line and column (in characters).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct Pos {
    /// 1-based line.
    pub line: usize,
    /// 1-based column, counted in characters.
    pub column: usize,
}

impl fmt::Display for Pos {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}:{}", self.line, self.column)
    }
}

/// A lexical token.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Token {
    /// `*NAME` at the start of a line; the name without `*`.
    Section(String),
    /// A bare or quoted word; `quoted` tells which (escapes already resolved).
    Word {
        /// The text.
        text: String,
        /// True when it was written in double quotes.
        quoted: bool,
    },
    /// `=`
    Equals,
}

/// What was wrong in the text.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum ConfigTextErrorKind {
    /// A `"` with no closing `"`.
    UnterminatedQuote,
    /// `*` followed by something other than letters, digits and `_`.
    BadSectionName(String),
    /// Text before the first `*SECTION` line.
    OutsideSection,
    /// A keyword followed by `=` and then no value.
    MissingValue(String),
    /// `=` with no keyword before it, or a quoted word used as a keyword.
    UnexpectedEquals,
    /// A `*RESOURCES` keyword with no value after it.
    MissingResourceValue(String),
    /// A double-quoted word where a `*RESOURCES` keyword belongs (keywords
    /// are words, UBBCONFIG(5)).
    QuotedKeyword(String),
}

/// A syntax error, with the position where it was found.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
#[error("line {}, column {}: {}", .pos.line, .pos.column, describe(.kind))]
pub struct ConfigTextError {
    /// Where the error was found.
    pub pos: Pos,
    /// What was wrong.
    pub kind: ConfigTextErrorKind,
}

impl ConfigTextError {
    /// What was wrong, without the position.
    pub fn description(&self) -> String {
        describe(&self.kind)
    }
}

fn describe(k: &ConfigTextErrorKind) -> String {
    match k {
        ConfigTextErrorKind::UnterminatedQuote => "unterminated double-quoted string".into(),
        ConfigTextErrorKind::BadSectionName(s) => {
            format!("bad section name {s:?} (letters, digits and '_' only)")
        }
        ConfigTextErrorKind::OutsideSection => "text before the first *SECTION line".into(),
        ConfigTextErrorKind::MissingValue(k) => format!("{k}= has no value"),
        ConfigTextErrorKind::UnexpectedEquals => "'=' without a keyword before it".into(),
        ConfigTextErrorKind::MissingResourceValue(k) => {
            format!("*RESOURCES keyword {k} has no value")
        }
        ConfigTextErrorKind::QuotedKeyword(k) => {
            format!("*RESOURCES keyword \"{k}\" is quoted (a keyword is a bare word)")
        }
    }
}

/// Splits text into tokens with their positions (1-based line, column in
/// characters). Errors: [`ConfigTextErrorKind::UnterminatedQuote`] at the
/// opening quote, [`ConfigTextErrorKind::BadSectionName`] at the `*`; the first
/// one in text order is returned.
pub fn tokenize(text: &str) -> Result<Vec<(Pos, Token)>, ConfigTextError> {
    lex::tokenize(text)
}

/// A `KEYWORD=value` parameter.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Param {
    /// The keyword as written.
    pub key: String,
    /// The value (quotes removed, escapes resolved).
    pub value: String,
    /// True when the value was double-quoted.
    pub quoted: bool,
    /// Where the keyword was.
    pub pos: Pos,
}

/// An entry: a name and its parameters.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Entry {
    /// The entry name (quotes removed).
    pub name: String,
    /// True when the name was double-quoted.
    pub quoted: bool,
    /// Where the name was.
    pub pos: Pos,
    /// The entry's own parameters, in order.
    pub params: Vec<Param>,
    /// `DEFAULT:` parameters in effect for this entry and not set by it.
    pub inherited: Vec<Param>,
}

impl Entry {
    /// The value for a keyword: the entry's own (last one wins), else the
    /// inherited `DEFAULT:` value.
    pub fn get(&self, key: &str) -> Option<&Param> {
        self.params
            .iter()
            .rev()
            .find(|p| p.key == key)
            .or_else(|| self.inherited.iter().rev().find(|p| p.key == key))
    }
}

/// A section: its name, section-level parameters (the `*RESOURCES` pairs, or
/// `KEY=VALUE` before any entry, as in `*DM_RESOURCES VERSION=...`) and entries.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Section {
    /// The name without `*`.
    pub name: String,
    /// Where the `*NAME` was.
    pub pos: Pos,
    /// Section-level parameters.
    pub params: Vec<Param>,
    /// Entries in order (`DEFAULT:` pseudo-entries are folded into `inherited`).
    pub entries: Vec<Entry>,
}

/// A parsed DMCONFIG or UBBCONFIG text.
#[derive(Clone, Debug, PartialEq, Eq, Default)]
pub struct ConfigText {
    /// Sections in file order.
    pub sections: Vec<Section>,
}

/// The `DEFAULT:` pseudo-entry name.
pub const DEFAULT_ENTRY: &str = "DEFAULT:";

impl ConfigText {
    /// Lexes and parses text into sections and entries. A lexical error
    /// anywhere in the text comes before a grammar error (the text is lexed
    /// first); within each, the first in text order is returned.
    pub fn parse(text: &str) -> Result<Self, ConfigTextError> {
        let tokens = tokenize(text)?;
        let sections = grammar::sections(&tokens)?;
        Ok(ConfigText {
            sections: sections.into_iter().map(apply_defaults).collect(),
        })
    }

    /// The first section with this name.
    pub fn section(&self, name: &str) -> Option<&Section> {
        self.sections.iter().find(|s| s.name == name)
    }
}

/// Folds a section's items into entries: `DEFAULT:` parameters go to the
/// entries after them (a later `DEFAULT:` value replaces an earlier one, an
/// entry's own value replaces the default), parameters before any entry belong
/// to the section.
fn apply_defaults(raw: grammar::RawSection) -> Section {
    let mut section = Section {
        name: raw.name,
        pos: raw.pos,
        params: Vec::new(),
        entries: Vec::new(),
    };
    let mut defaults: Vec<Param> = Vec::new();
    let mut in_default = false;
    for item in raw.items {
        match item {
            Item::Entry { name, quoted, .. } if !quoted && name == DEFAULT_ENTRY => {
                in_default = true;
            }
            Item::Entry { name, quoted, pos } => {
                in_default = false;
                section.entries.push(Entry {
                    name,
                    quoted,
                    pos,
                    params: Vec::new(),
                    inherited: defaults.clone(),
                });
            }
            Item::Param(param) if in_default => {
                defaults.retain(|p| p.key != param.key);
                defaults.push(param);
            }
            Item::Param(param) => match section.entries.last_mut() {
                Some(entry) => {
                    entry.inherited.retain(|p| p.key != param.key);
                    entry.params.push(param);
                }
                None => section.params.push(param),
            },
        }
    }
    section
}

#[cfg(test)]
mod tests;

//! MQSC command scripts, as runmqsc reads them and dmpmqcfg writes them (IBM
//! MQ "MQSC input file syntax", "Rules for using MQSC commands", "Generic
//! values and characters with special meanings", "dmpmqcfg (dump queue
//! manager configuration)").
//!
//! [`parse_script`] reads a whole script into [`Command`]s: physical lines
//! are joined into commands first ([`join`]: `+` continues from the first
//! non-blank character of the next line, `-` from its start; lines with `*`
//! in the first position are comments and, like blank lines, are dropped,
//! also between the lines of one command; `;` ends a command), then each
//! command is read by a nom grammar ([`grammar`]): a verb, then parameters
//! `KEYWORD` or `KEYWORD(value)` separated by blanks or commas. A value is a
//! list of items; an item is a quoted string (`'it''s'` is `it's`, case kept)
//! or a bare word, folded to uppercase. The first parameter after the verb is
//! the object type with the object's name as its value
//! (`DEFINE QLOCAL('A.B')`). Verb and object type abbreviations (`DEF QL`)
//! are written out ([`canonical_verb`], [`canonical_object`]). Every
//! parameter keeps the line it was written on, so a caller can name it.
//!
//! What the commands mean is not decided here: that is the caller's.

mod error;
mod grammar;
mod join;
#[cfg(test)]
mod tests;

pub use error::{MqscError, MqscErrorKind};
pub use join::{Logical, join};

/// One parameter: `KEYWORD` or `KEYWORD(value)`.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Param {
    /// The keyword in uppercase, abbreviations written out (`TARGQ` is `TARGET`).
    pub keyword: String,
    /// The value's items, `None` for a keyword without parentheses. `()` is
    /// `Some` of no item; `DESCR(' ')` one item `" "`.
    pub value: Option<Vec<String>>,
    /// 1-based line of the keyword in the script.
    pub line: usize,
}

impl Param {
    /// The value when it is exactly one item.
    pub fn single(&self) -> Option<&str> {
        match self.value.as_deref() {
            Some([one]) => Some(one),
            _ => None,
        }
    }
}

/// One command of a script.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Command {
    /// 1-based line where the command starts.
    pub line: usize,
    /// The verb in uppercase, written out (`DEF` is `DEFINE`).
    pub verb: String,
    /// The object type and the object's name (`QLOCAL`, `['A.B']`), written
    /// out (`QL` is `QLOCAL`); `None` for a verb alone (`END`).
    pub object: Option<Param>,
    /// The other parameters in script order.
    pub params: Vec<Param>,
}

impl Command {
    /// The object's name: the single item of the object type's value.
    pub fn name(&self) -> Option<&str> {
        self.object.as_ref().and_then(Param::single)
    }

    /// The object type (`QLOCAL`, `CHANNEL`, `QMGR` ...).
    pub fn object_type(&self) -> Option<&str> {
        self.object.as_ref().map(|p| p.keyword.as_str())
    }

    /// The last parameter named `keyword` (MQSC takes the last of repeats).
    pub fn param(&self, keyword: &str) -> Option<&Param> {
        self.params.iter().rev().find(|p| p.keyword == keyword)
    }
}

/// Reads a whole script. Errors name the line and column of the first
/// problem; nothing is returned then.
pub fn parse_script(text: &str) -> Result<Vec<Command>, MqscError> {
    join(text)?.iter().map(grammar::command).collect()
}

/// The full verb of an abbreviation (IBM MQ "MQSC commands": `DEF` DEFINE,
/// `ALT` ALTER, `DIS` DISPLAY), otherwise `word` itself, uppercased.
pub fn canonical_verb(word: &str) -> String {
    let w = word.to_ascii_uppercase();
    match w.as_str() {
        "DEF" => "DEFINE".into(),
        "ALT" => "ALTER".into(),
        "DIS" => "DISPLAY".into(),
        _ => w,
    }
}

/// The full object type of a synonym (IBM MQ "DEFINE queues", "DEFINE
/// CHANNEL", "DEFINE LISTENER", "DEFINE NAMELIST", "DEFINE PROCESS": QL,
/// QR, QA, QM, CHL, LSTR, NL, PRO), otherwise `word` itself, uppercased.
pub fn canonical_object(word: &str) -> String {
    let w = word.to_ascii_uppercase();
    match w.as_str() {
        "QL" => "QLOCAL".into(),
        "QR" => "QREMOTE".into(),
        "QA" => "QALIAS".into(),
        "QM" => "QMODEL".into(),
        "CHL" => "CHANNEL".into(),
        "LSTR" => "LISTENER".into(),
        "NL" => "NAMELIST".into(),
        "PRO" => "PROCESS".into(),
        _ => w,
    }
}

/// The full keyword of a parameter synonym (IBM MQ "DEFINE QALIAS": TARGQ
/// is the older name of TARGET), otherwise `word` itself, uppercased.
pub fn canonical_keyword(word: &str) -> String {
    let w = word.to_ascii_uppercase();
    match w.as_str() {
        "TARGQ" => "TARGET".into(),
        _ => w,
    }
}

/// `s` as an MQSC quoted string: in `'`, each `'` doubled.
pub fn quote(s: &str) -> String {
    format!("'{}'", s.replace('\'', "''"))
}

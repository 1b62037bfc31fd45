//! FML32 field tables in the Tuxedo text format (Oracle Tuxedo "field_tables(5)").
//!
//! Lines: `#` comment; empty; `$text` (copied, minus `$`, into the mkfldhdr C
//! header); `*base N` (N is added to following relative numbers until the
//! next `*base`); otherwise `name rel-number type [flag [comment...]]`,
//! whitespace separated.

use std::collections::HashMap;
use std::fmt;

use super::fml32::{FieldId, FieldType, MAX_FIELD_NUMBER};

/// Longest field name Tuxedo accepts (Oracle Tuxedo "field_tables(5)"; one source, not
/// cross-checked).
pub const MAX_FIELD_NAME: usize = 30;

/// One field definition.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct FieldDef {
    /// The field name.
    pub name: String,
    /// The absolute field number (base + relative number).
    pub number: u32,
    /// The field type.
    pub field_type: FieldType,
    /// `(type << 25) | number`.
    pub id: FieldId,
    /// The flag column (`-` reserved), if present.
    pub flag: Option<String>,
    /// The rest of the line after the flag, if any.
    pub comment: Option<String>,
    /// 1-based line number in the table text.
    pub line: usize,
}

/// A parsed field table: definitions in file order, the `$` lines, and
/// lookups by name and by id.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct FieldTable {
    fields: Vec<FieldDef>,
    header_lines: Vec<String>,
    by_name: HashMap<String, usize>,
    by_id: HashMap<FieldId, usize>,
}

/// What was wrong with a field table line.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum FieldTableErrorKind {
    /// `*base` without a valid non-negative decimal number.
    BadBase(String),
    /// A `*` line other than `*base N`.
    UnknownDirective(String),
    /// Fewer than three columns (name, number, type).
    MissingColumn(&'static str),
    /// The relative number is not a non-negative decimal number.
    BadNumber(String),
    /// base + number is 0 or above 33,554,431.
    NumberOutOfRange(u64),
    /// The type column is not a known type name.
    UnknownType(String),
    /// A name longer than 30 characters or with characters other than
    /// letters, digits and `_`, or not starting with a letter or `_`.
    BadName(String),
    /// The name was already defined on an earlier line.
    DuplicateName {
        /// The name.
        name: String,
        /// The earlier line.
        first_line: usize,
    },
    /// The field id was already defined on an earlier line.
    DuplicateId {
        /// The id.
        id: u32,
        /// The earlier line.
        first_line: usize,
    },
}

/// A field table error with its 1-based line number; `ferror()` is FFTSYNTAX.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
#[error("field table line {line}: {}", describe(.kind))]
pub struct FieldTableError {
    /// 1-based line number.
    pub line: usize,
    /// What was wrong.
    pub kind: FieldTableErrorKind,
}

impl FieldTableError {
    /// FFTSYNTAX (12): syntax error in field table (Tuxedo `fml32.h` Ferror32 values).
    pub fn ferror(&self) -> super::fml32::Ferror32 {
        super::fml32::Ferror32::FFTSYNTAX
    }
}

fn describe(k: &FieldTableErrorKind) -> String {
    match k {
        FieldTableErrorKind::BadBase(s) => format!("*base needs a decimal number, got {s:?}"),
        FieldTableErrorKind::UnknownDirective(s) => {
            format!("unknown directive {s:?} (only *base N)")
        }
        FieldTableErrorKind::MissingColumn(c) => format!("missing the {c} column"),
        FieldTableErrorKind::BadNumber(s) => format!("field number {s:?} is not a decimal number"),
        FieldTableErrorKind::NumberOutOfRange(n) => {
            format!("field number {n} is outside 1..={MAX_FIELD_NUMBER}")
        }
        FieldTableErrorKind::UnknownType(s) => format!("unknown field type {s:?}"),
        FieldTableErrorKind::BadName(s) => format!(
            "field name {s:?} must be 1..={MAX_FIELD_NAME} letters, digits or '_', not starting with a digit"
        ),
        FieldTableErrorKind::DuplicateName { name, first_line } => {
            format!("field name {name:?} already defined on line {first_line}")
        }
        FieldTableErrorKind::DuplicateId { id, first_line } => {
            format!("field id {id} already defined on line {first_line}")
        }
    }
}

/// The type for a field-table type name ("field_tables(5)"): the Tuxedo names
/// short, long, char, float, double, string, carray, ptr, fml32, view32,
/// mbstring, fml, and the Enduro/X aliases ubf (= fml32) and view (= view32).
/// `int` and `decimal` are VIEW-only and refused.
pub fn type_from_table_name(name: &str) -> Option<FieldType> {
    Some(match name {
        "short" => FieldType::Short,
        "long" => FieldType::Long,
        "char" => FieldType::Char,
        "float" => FieldType::Float,
        "double" => FieldType::Double,
        "string" => FieldType::String,
        "carray" => FieldType::Carray,
        "ptr" => FieldType::Ptr,
        "fml32" | "ubf" => FieldType::Fml32,
        "view32" | "view" => FieldType::View32,
        "mbstring" => FieldType::Mbstring,
        "fml" => FieldType::Fml,
        _ => return None,
    })
}

fn valid_name(name: &str) -> bool {
    let mut chars = name.chars();
    let first_ok = chars
        .next()
        .is_some_and(|c| c.is_ascii_alphabetic() || c == '_');
    first_ok
        && name.len() <= MAX_FIELD_NAME
        && name.chars().all(|c| c.is_ascii_alphanumeric() || c == '_')
}

fn parse_decimal(s: &str) -> Option<u64> {
    (!s.is_empty() && s.len() <= 12 && s.bytes().all(|b| b.is_ascii_digit()))
        .then(|| s.parse().ok())
        .flatten()
}

impl FieldTable {
    /// Parses a field table. Stops at the first error, naming its line.
    pub fn parse(text: &str) -> Result<Self, FieldTableError> {
        let mut table = FieldTable::default();
        let mut base: u64 = 0;
        for (i, raw) in text.lines().enumerate() {
            let line = i + 1;
            let fail = |kind| FieldTableError { line, kind };
            if let Some(rest) = raw.strip_prefix('$') {
                table.header_lines.push(rest.to_owned());
                continue;
            }
            let trimmed = raw.trim();
            if trimmed.is_empty() || trimmed.starts_with('#') {
                continue;
            }
            if let Some(directive) = trimmed.strip_prefix('*') {
                let mut words = directive.split_whitespace();
                match (words.next(), words.next(), words.next()) {
                    (Some("base"), Some(n), None) => {
                        base = parse_decimal(n)
                            .ok_or_else(|| fail(FieldTableErrorKind::BadBase(n.to_owned())))?;
                    }
                    (Some("base"), n, _) => {
                        return Err(fail(FieldTableErrorKind::BadBase(
                            n.unwrap_or("").to_owned(),
                        )));
                    }
                    _ => {
                        return Err(fail(FieldTableErrorKind::UnknownDirective(
                            trimmed.chars().take(40).collect(),
                        )));
                    }
                }
                continue;
            }
            let mut words = trimmed.split_whitespace();
            let name = words.next().unwrap_or("");
            if !valid_name(name) {
                return Err(fail(FieldTableErrorKind::BadName(
                    name.chars().take(40).collect(),
                )));
            }
            let rel = words
                .next()
                .ok_or_else(|| fail(FieldTableErrorKind::MissingColumn("number")))?;
            let rel = parse_decimal(rel).ok_or_else(|| {
                fail(FieldTableErrorKind::BadNumber(
                    rel.chars().take(40).collect(),
                ))
            })?;
            let tname = words
                .next()
                .ok_or_else(|| fail(FieldTableErrorKind::MissingColumn("type")))?;
            let field_type = type_from_table_name(tname).ok_or_else(|| {
                fail(FieldTableErrorKind::UnknownType(
                    tname.chars().take(40).collect(),
                ))
            })?;
            let number = base.saturating_add(rel);
            let id = u32::try_from(number)
                .ok()
                .and_then(|n| FieldId::new(field_type, n))
                .ok_or_else(|| fail(FieldTableErrorKind::NumberOutOfRange(number)))?;
            let flag = words.next().map(str::to_owned);
            let comment = words.collect::<Vec<_>>().join(" ");
            let comment = (!comment.is_empty()).then_some(comment);
            if let Some(&j) = table.by_name.get(name) {
                return Err(fail(FieldTableErrorKind::DuplicateName {
                    name: name.to_owned(),
                    first_line: table.fields[j].line,
                }));
            }
            if let Some(&j) = table.by_id.get(&id) {
                return Err(fail(FieldTableErrorKind::DuplicateId {
                    id: id.0,
                    first_line: table.fields[j].line,
                }));
            }
            let idx = table.fields.len();
            table.by_name.insert(name.to_owned(), idx);
            table.by_id.insert(id, idx);
            table.fields.push(FieldDef {
                name: name.to_owned(),
                number: id.number(),
                field_type,
                id,
                flag,
                comment,
                line,
            });
        }
        Ok(table)
    }

    /// The definitions in file order.
    pub fn fields(&self) -> &[FieldDef] {
        &self.fields
    }

    /// The `$` lines without their `$`, in order.
    pub fn header_lines(&self) -> &[String] {
        &self.header_lines
    }

    /// The definition for a name.
    pub fn by_name(&self, name: &str) -> Option<&FieldDef> {
        self.by_name.get(name).map(|&i| &self.fields[i])
    }

    /// The definition for a field id.
    pub fn by_id(&self, id: FieldId) -> Option<&FieldDef> {
        self.by_id.get(&id).map(|&i| &self.fields[i])
    }
}

impl fmt::Display for FieldDef {
    /// `name number type` as mkfldhdr would list it.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(
            f,
            "{} {} {} ({})",
            self.name,
            self.number,
            self.field_type.table_name(),
            self.id
        )
    }
}

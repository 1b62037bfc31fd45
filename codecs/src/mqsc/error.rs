//! Errors of the MQSC reader, with line and column.

/// What was wrong with an MQSC script, and where (1-based line and column,
/// the column counted in characters). runmqsc answers such a command with
/// AMQ8405 "Syntax error detected at or near end of command segment"; no
/// MQRC applies, as no MQI call is made.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
#[error("MQSC line {line}, column {column}: {kind}")]
pub struct MqscError {
    /// 1-based line number.
    pub line: usize,
    /// 1-based column.
    pub column: usize,
    /// What was wrong.
    pub kind: MqscErrorKind,
}

/// The kinds of [`MqscError`].
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
pub enum MqscErrorKind {
    /// A quoted string without its closing `'`.
    #[error("quoted string has no closing '")]
    UnterminatedString,
    /// A `(` without its `)`.
    #[error("( has no closing )")]
    UnclosedParenthesis,
    /// A character that cannot start a keyword here (e.g. a `)` with no `(`).
    #[error("unexpected {0:?}: expected a keyword")]
    Unexpected(char),
    /// The script ends on a continuation character (`+` or `-`).
    #[error("the script ends inside a command continued with {0:?}")]
    ContinuedAtEnd(char),
}

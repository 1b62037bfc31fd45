//! Tokens of Software AG IDL with their line and column (spec: rpc-bridge.md §1.1).
//!
//! The grammar reads differently inside a parameter's parentheses: `A20/V` is a
//! format, a slash and a dimension there, while outside `/` may be part of a
//! name. The parser therefore asks for each token in a [`Mode`].

use super::ast::Position;
use super::error::{IdlError, IdlErrorKind};

/// How to read the next token.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Mode {
    /// Keywords, names, level numbers, strings and punctuation.
    Normal,
    /// Inside `( ... )`: format words such as `N8.3`, dimension words, punctuation.
    Type,
}

/// One token.
#[derive(Clone, Debug, PartialEq, Eq)]
pub(crate) enum TokenKind {
    /// Keyword, name, or (in [`Mode::Type`]) a format or dimension word.
    Word(String),
    /// Decimal digits (only in [`Mode::Normal`]).
    Number(String),
    /// Text between apostrophes, without them.
    Str(String),
    /// One of `( ) : , / .`.
    Punct(char),
    /// End of the text.
    Eof,
}

impl TokenKind {
    /// How the token is named in "expected ..., found ..." messages.
    pub(crate) fn describe(&self) -> String {
        match self {
            TokenKind::Word(w) => format!("'{w}'"),
            TokenKind::Number(n) => format!("number {n}"),
            TokenKind::Str(s) => format!("string '{s}'"),
            TokenKind::Punct(c) => format!("'{c}'"),
            TokenKind::Eof => "end of file".to_string(),
        }
    }
}

/// A token and where it starts.
#[derive(Clone, Debug, PartialEq, Eq)]
pub(crate) struct Token {
    pub kind: TokenKind,
    pub position: Position,
}

/// Cursor over the IDL text. Cloning it is cheap, which gives look-ahead.
#[derive(Clone, Debug)]
pub(crate) struct Lexer<'a> {
    src: &'a str,
    offset: usize,
    line: u32,
    column: u32,
    /// Only blanks seen so far on the current line (a `*` here opens a comment).
    line_start: bool,
}

/// Characters allowed in names besides letters and digits (spec: rpc-bridge.md §1.1).
fn is_name_char(c: char) -> bool {
    c.is_alphanumeric() || matches!(c, '-' | '_' | '$' | '#' | '&' | '@' | '+' | '/' | '£')
}

fn is_name_start(c: char) -> bool {
    c.is_alphabetic() || matches!(c, '_' | '$' | '#' | '&' | '@' | '+' | '£')
}

impl<'a> Lexer<'a> {
    pub(crate) fn new(src: &'a str) -> Self {
        Lexer {
            src,
            // A UTF-8 byte order mark is no token.
            offset: if src.starts_with('\u{feff}') { 3 } else { 0 },
            line: 1,
            column: 1,
            line_start: true,
        }
    }

    /// Where the cursor stands now.
    pub(crate) fn position(&self) -> Position {
        Position {
            line: self.line,
            column: self.column,
        }
    }

    fn rest(&self) -> &'a str {
        &self.src[self.offset..]
    }

    fn peek_char(&self) -> Option<char> {
        self.rest().chars().next()
    }

    fn bump(&mut self) -> Option<char> {
        let c = self.peek_char()?;
        self.offset += c.len_utf8();
        if c == '\n' {
            self.line = self.line.saturating_add(1);
            self.column = 1;
            self.line_start = true;
        } else {
            self.column = self.column.saturating_add(1);
            if !c.is_whitespace() {
                self.line_start = false;
            }
        }
        Some(c)
    }

    fn skip_to_line_end(&mut self) {
        while let Some(c) = self.peek_char() {
            if c == '\n' {
                break;
            }
            self.bump();
        }
    }

    /// Skips blanks, line ends and comments: `/*` to the end of the line, and a
    /// line whose first non-blank character is `*` (spec: rpc-bridge.md §1.1, §9 #2).
    fn skip_trivia(&mut self) {
        loop {
            match self.peek_char() {
                Some(c) if c.is_whitespace() => {
                    self.bump();
                }
                Some('/') if self.rest().starts_with("/*") => self.skip_to_line_end(),
                Some('*') if self.line_start => self.skip_to_line_end(),
                _ => return,
            }
        }
    }

    /// Reads the next token in `mode`.
    pub(crate) fn next_token(&mut self, mode: Mode) -> Result<Token, IdlError> {
        self.skip_trivia();
        let position = self.position();
        let Some(c) = self.peek_char() else {
            return Ok(Token {
                kind: TokenKind::Eof,
                position,
            });
        };
        let kind = if c == '\'' {
            self.bump();
            let start = self.offset;
            loop {
                match self.peek_char() {
                    Some('\'') => break,
                    Some('\n') | Some('\r') | None => {
                        return Err(IdlError::new(
                            self.position(),
                            IdlErrorKind::ExpectedApostrophe,
                        ));
                    }
                    Some(_) => {
                        self.bump();
                    }
                }
            }
            let text = self.src[start..self.offset].to_string();
            self.bump();
            TokenKind::Str(text)
        } else if matches!(c, '(' | ')' | ':' | ',' | '/' | '.') {
            self.bump();
            TokenKind::Punct(c)
        } else if mode == Mode::Type && (c.is_ascii_alphanumeric()) {
            TokenKind::Word(self.take_while(|c| c.is_ascii_alphanumeric() || c == '.'))
        } else if c.is_ascii_digit() {
            TokenKind::Number(self.take_while(|c| c.is_ascii_digit()))
        } else if is_name_start(c) {
            TokenKind::Word(self.take_name())
        } else {
            return Err(IdlError::new(
                position,
                IdlErrorKind::UnexpectedCharacter(c),
            ));
        };
        Ok(Token { kind, position })
    }

    /// Reads the next token without moving.
    pub(crate) fn peek_token(&self, mode: Mode) -> Result<Token, IdlError> {
        self.clone().next_token(mode)
    }

    fn take_while(&mut self, keep: impl Fn(char) -> bool) -> String {
        let start = self.offset;
        while let Some(c) = self.peek_char() {
            if !keep(c) {
                break;
            }
            self.bump();
        }
        self.src[start..self.offset].to_string()
    }

    /// A name: stops before `/*` so a comment may follow a name without a blank.
    fn take_name(&mut self) -> String {
        let start = self.offset;
        while let Some(c) = self.peek_char() {
            if !is_name_char(c) || self.rest().starts_with("/*") {
                break;
            }
            self.bump();
        }
        self.src[start..self.offset].to_string()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn words(src: &str, mode: Mode) -> Vec<TokenKind> {
        let mut lx = Lexer::new(src);
        let mut out = Vec::new();
        loop {
            let t = lx.next_token(mode).unwrap();
            if t.kind == TokenKind::Eof {
                return out;
            }
            out.push(t.kind);
        }
    }

    #[test]
    fn comments_run_to_end_of_line() {
        // spec: rpc-bridge.md §1.1 — `/*` to end of line, closing `*/` optional;
        // a line starting with `*` is a comment.
        let toks = words(
            "/* head\r\nlibrary 'X' is /*trail */ program\n  ** End of file\nend-define",
            Mode::Normal,
        );
        assert_eq!(
            toks,
            vec![
                TokenKind::Word("library".into()),
                TokenKind::Str("X".into()),
                TokenKind::Word("is".into()),
                // `*/ program` is still comment: it runs to the end of the line.
                TokenKind::Word("end-define".into()),
            ]
        );
    }

    #[test]
    fn type_mode_splits_format_and_array() {
        // spec: rpc-bridge.md §1.2 `simple := level name '(' type-length ['/' array] ')'`
        let toks = words("A20/1:4,V10)", Mode::Type);
        assert_eq!(
            toks,
            vec![
                TokenKind::Word("A20".into()),
                TokenKind::Punct('/'),
                TokenKind::Word("1".into()),
                TokenKind::Punct(':'),
                TokenKind::Word("4".into()),
                TokenKind::Punct(','),
                TokenKind::Word("V10".into()),
                TokenKind::Punct(')'),
            ]
        );
    }

    #[test]
    fn positions_are_line_and_column() {
        let mut lx = Lexer::new("  x\n   'abc'");
        let a = lx.next_token(Mode::Normal).unwrap();
        let b = lx.next_token(Mode::Normal).unwrap();
        assert_eq!(a.position, Position { line: 1, column: 3 });
        assert_eq!(b.position, Position { line: 2, column: 4 });
    }

    #[test]
    fn byte_order_mark_is_skipped() {
        let mut lx = Lexer::new("\u{feff}library");
        let t = lx.next_token(Mode::Normal).unwrap();
        assert_eq!(t.kind, TokenKind::Word("library".into()));
        assert_eq!(t.position, Position { line: 1, column: 1 });
    }

    #[test]
    fn unclosed_string_is_expected_apostrophe() {
        // spec: rpc-bridge.md §1.3 message 20010007 "expected apostrophe"
        let err = Lexer::new("'abc\n'").next_token(Mode::Normal).unwrap_err();
        assert_eq!(err.kind, IdlErrorKind::ExpectedApostrophe);
        assert_eq!(err.position, Position { line: 1, column: 5 });
    }
}

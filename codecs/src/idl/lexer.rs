//! Tokens of Software AG IDL as nom parsers (docs/rpc.md).
//!
//! The grammar reads differently inside a parameter's parentheses: `A20/V` is a
//! format, a slash and a dimension there, while outside `/` may be part of a
//! name. The parser therefore asks for each token in a [`Mode`].
//!
//! Every parser takes the rest of the text and returns what is left after it.
//! A token keeps the rest of the text where it starts (`at`), from which
//! [`super::position::Positions`] gives its line and column.

use nom::branch::alt;
use nom::bytes::complete::{tag, take_till, take_while, take_while1};
use nom::character::complete::{anychar, char, digit1, one_of, satisfy};
use nom::combinator::{cond, eof, map, not, opt, recognize, value};
use nom::error::{ErrorKind, ParseError};
use nom::multi::many0_count;
use nom::sequence::{delimited, pair, preceded, terminated};
use nom::{Err, IResult, Parser};

use super::error::IdlErrorKind;

/// Why a nom parser stopped: where, and (for a fault of the IDL rather than a
/// branch that simply did not match) what was wrong.
#[derive(Clone, Debug, PartialEq, Eq)]
pub(crate) struct Fault<'a> {
    /// The rest of the text at the fault.
    pub at: &'a str,
    /// What was wrong; `None` for nom's own "did not match".
    pub kind: Option<IdlErrorKind>,
}

impl<'a> Fault<'a> {
    /// Stops the parse with `kind` at `at` (nom's `Failure`: no other branch is tried).
    pub(crate) fn fail<O>(at: &'a str, kind: IdlErrorKind) -> PResult<'a, O> {
        Err(Err::Failure(Fault {
            at,
            kind: Some(kind),
        }))
    }
}

impl<'a> ParseError<&'a str> for Fault<'a> {
    fn from_error_kind(at: &'a str, _: ErrorKind) -> Self {
        Fault { at, kind: None }
    }

    fn append(_: &'a str, _: ErrorKind, other: Self) -> Self {
        other
    }

    /// Of two branches that failed, keep the one that says what was wrong.
    fn or(self, other: Self) -> Self {
        if self.kind.is_some() && other.kind.is_none() {
            self
        } else {
            other
        }
    }
}

/// What every parser of the IDL returns.
pub(crate) type PResult<'a, O> = IResult<&'a str, O, Fault<'a>>;

/// How to read the next token.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Mode {
    /// Keywords, names, level numbers, strings and punctuation.
    Normal,
    /// Inside `( ... )`: format words such as `N8.3`, dimension words, punctuation.
    Type,
}

/// One token; the text is borrowed from the IDL text.
#[derive(Clone, Debug, PartialEq, Eq)]
pub(crate) enum TokenKind<'a> {
    /// Keyword, name, or (in [`Mode::Type`]) a format or dimension word.
    Word(&'a str),
    /// Decimal digits (only in [`Mode::Normal`]).
    Number(&'a str),
    /// Text between apostrophes, without them.
    Str(&'a str),
    /// One of `( ) : , / .`.
    Punct(char),
    /// End of the text.
    Eof,
}

impl<'a> TokenKind<'a> {
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

    pub(crate) fn word(&self) -> Option<&'a str> {
        match self {
            TokenKind::Word(w) => Some(w),
            _ => None,
        }
    }

    pub(crate) fn number(&self) -> Option<&'a str> {
        match self {
            TokenKind::Number(n) => Some(n),
            _ => None,
        }
    }

    pub(crate) fn string(&self) -> Option<&'a str> {
        match self {
            TokenKind::Str(s) => Some(s),
            _ => None,
        }
    }

    pub(crate) fn eof(&self) -> Option<()> {
        (*self == TokenKind::Eof).then_some(())
    }

    /// Keywords are words compared without ASCII case (docs/rpc.md).
    pub(crate) fn is_keyword(&self, keyword: &str) -> bool {
        matches!(self, TokenKind::Word(w) if w.eq_ignore_ascii_case(keyword))
    }
}

/// A token and the rest of the text where it starts.
#[derive(Clone, Debug, PartialEq, Eq)]
pub(crate) struct Token<'a> {
    pub kind: TokenKind<'a>,
    pub at: &'a str,
}

/// Characters allowed in names besides letters and digits (docs/rpc.md).
fn is_name_char(c: char) -> bool {
    c.is_alphanumeric() || matches!(c, '-' | '_' | '$' | '#' | '&' | '@' | '+' | '/' | '£')
}

fn is_name_start(c: char) -> bool {
    c.is_alphabetic() || matches!(c, '_' | '$' | '#' | '&' | '@' | '+' | '£')
}

/// `/*` to the end of the line; the closing `*/` is optional (docs/rpc.md).
fn slash_comment(i: &str) -> PResult<'_, &str> {
    recognize(pair(tag("/*"), take_till(|c| c == '\n'))).parse(i)
}

/// A line whose first non-blank character is `*` (docs/rpc.md "Reading an IDL
/// file"; an mqgate choice, the IDL grammar does not define it).
fn star_comment(i: &str) -> PResult<'_, &str> {
    recognize(pair(char('*'), take_till(|c| c == '\n'))).parse(i)
}

fn blanks(i: &str) -> PResult<'_, &str> {
    take_while1(char::is_whitespace).parse(i)
}

/// Blanks, and a `*` comment after them if they end a line.
fn blank_run(i: &str) -> PResult<'_, ()> {
    value(
        (),
        blanks.flat_map(|b: &str| cond(b.contains('\n'), opt(star_comment))),
    )
    .parse(i)
}

/// Blanks, line ends and comments after a token. A token is never blank, so a
/// `*` opens a comment here only after a line end.
pub(crate) fn trivia(i: &str) -> PResult<'_, ()> {
    value((), many0_count(alt((blank_run, value((), slash_comment))))).parse(i)
}

/// Blanks, line ends and comments at the start of the text, where a `*` opens
/// a comment before any line end too.
pub(crate) fn leading_trivia(i: &str) -> PResult<'_, ()> {
    value(
        (),
        (take_while(char::is_whitespace), opt(star_comment), trivia),
    )
    .parse(i)
}

/// `'text'` on one line; 20010007 where the line or the text ends first.
fn string(i: &str) -> PResult<'_, &str> {
    delimited(
        char('\''),
        take_till(|c| matches!(c, '\'' | '\n' | '\r')),
        closing_apostrophe,
    )
    .parse(i)
}

fn closing_apostrophe(i: &str) -> PResult<'_, char> {
    match char('\'').parse(i) {
        Err(Err::Error(_)) => Fault::fail(i, IdlErrorKind::ExpectedApostrophe),
        other => other,
    }
}

/// Letters, digits and `.` from a letter or digit: `N8.3`, `AV`, `1`, `V10`.
fn type_word(i: &str) -> PResult<'_, &str> {
    recognize(pair(
        satisfy(|c| c.is_ascii_alphanumeric()),
        take_while(|c: char| c.is_ascii_alphanumeric() || c == '.'),
    ))
    .parse(i)
}

/// A name; it stops before `/*`, so a comment may follow it without a blank.
fn name(i: &str) -> PResult<'_, &str> {
    recognize(pair(
        satisfy(is_name_start),
        many0_count(alt((
            take_while1(|c| c != '/' && is_name_char(c)),
            terminated(tag("/"), not(char('*'))),
        ))),
    ))
    .parse(i)
}

/// The character that starts no token: always a fault.
fn unexpected<'a>(i: &'a str) -> PResult<'a, TokenKind<'a>> {
    let (_, c) = anychar(i)?;
    Fault::fail(i, IdlErrorKind::UnexpectedCharacter(c))
}

fn token_kind<'a>(mode: Mode) -> impl Parser<&'a str, Output = TokenKind<'a>, Error = Fault<'a>> {
    let format_or_number = move |i: &'a str| match mode {
        Mode::Type => map(type_word, TokenKind::Word).parse(i),
        Mode::Normal => map(digit1, TokenKind::Number).parse(i),
    };
    alt((
        value(TokenKind::Eof, eof),
        map(string, TokenKind::Str),
        map(one_of("():,/."), TokenKind::Punct),
        format_or_number,
        map(name, TokenKind::Word),
        unexpected,
    ))
}

/// The next token in `mode`, after any trivia. A character that starts no
/// token and an unclosed string stop the parse.
pub(crate) fn token<'a>(mode: Mode) -> impl Parser<&'a str, Output = Token<'a>, Error = Fault<'a>> {
    preceded(trivia, move |at: &'a str| {
        token_kind(mode).map(|kind| Token { kind, at }).parse(at)
    })
}

/// The next token in `mode` read by `read`, with the rest of the text where it
/// starts; a recoverable error where `read` gives `None` (for `opt`, `alt`,
/// `many0`).
pub(crate) fn take_if<'a, O>(
    mode: Mode,
    read: impl Fn(&TokenKind<'a>) -> Option<O>,
) -> impl Parser<&'a str, Output = (&'a str, O), Error = Fault<'a>> {
    token(mode).map_opt(move |t| read(&t.kind).map(|o| (t.at, o)))
}

/// Like [`take_if`], but where `read` gives `None` the parse stops with
/// `fault(found)` at the token found.
pub(crate) fn expect<'a, O>(
    mode: Mode,
    read: impl Fn(&TokenKind<'a>) -> Option<O>,
    fault: impl Fn(&TokenKind<'a>) -> IdlErrorKind,
) -> impl FnMut(&'a str) -> PResult<'a, (&'a str, O)> {
    let mut next = token(mode);
    move |i| {
        let (rest, t) = next.parse(i)?;
        match read(&t.kind) {
            Some(o) => Ok((rest, (t.at, o))),
            None => Fault::fail(t.at, fault(&t.kind)),
        }
    }
}

/// "expected `what`, found ..." for [`expect`].
pub(crate) fn expected<'a>(what: &'static str) -> impl Fn(&TokenKind<'a>) -> IdlErrorKind {
    move |found| IdlErrorKind::Expected {
        expected: what.to_string(),
        found: found.describe(),
    }
}

/// Reads the keyword `keyword` (any ASCII case).
pub(crate) fn keyword<'a>(keyword: &'static str) -> impl Fn(&TokenKind<'a>) -> Option<()> {
    move |k| k.is_keyword(keyword).then_some(())
}

/// Reads the punctuation `c`.
pub(crate) fn punct<'a>(c: char) -> impl Fn(&TokenKind<'a>) -> Option<()> {
    move |k| (*k == TokenKind::Punct(c)).then_some(())
}

/// The keyword `word`, else the parse stops: "expected `word`, found ...".
pub(crate) fn expect_keyword<'a>(
    word: &'static str,
) -> impl FnMut(&'a str) -> PResult<'a, (&'a str, ())> {
    expect(Mode::Normal, keyword(word), expected(word))
}

#[cfg(test)]
mod tests {
    use super::super::ast::Position;
    use super::super::error::IdlError;
    use super::super::position::Positions;
    use super::*;

    /// A token and its line and column, as the tests below check them.
    #[derive(Debug)]
    struct Placed<'a> {
        kind: TokenKind<'a>,
        position: Position,
    }

    /// Reads one token after another from the start of a text.
    struct Lexer<'a> {
        rest: &'a str,
        positions: Positions<'a>,
    }

    impl<'a> Lexer<'a> {
        fn new(src: &'a str) -> Self {
            let text = src.strip_prefix('\u{feff}').unwrap_or(src);
            let rest = leading_trivia(text).map_or(text, |(rest, ())| rest);
            Lexer {
                rest,
                positions: Positions::new(text),
            }
        }

        fn next_token(&mut self, mode: Mode) -> Result<Placed<'a>, IdlError> {
            match token(mode).parse(self.rest) {
                Ok((rest, t)) => {
                    self.rest = rest;
                    Ok(Placed {
                        kind: t.kind,
                        position: self.positions.of(t.at),
                    })
                }
                Err(Err::Error(f) | Err::Failure(f)) => Err(IdlError::new(
                    self.positions.of(f.at),
                    f.kind.expect("a token fault says what was wrong"),
                )),
                Err(Err::Incomplete(_)) => unreachable!("complete parsers only"),
            }
        }
    }

    fn words(src: &str, mode: Mode) -> Vec<TokenKind<'_>> {
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
        // docs/rpc.md — `/*` to end of line, closing `*/` optional;
        // a line starting with `*` is a comment.
        let toks = words(
            "/* head\r\nlibrary 'X' is /*trail */ program\n  ** End of file\nend-define",
            Mode::Normal,
        );
        assert_eq!(
            toks,
            vec![
                TokenKind::Word("library"),
                TokenKind::Str("X"),
                TokenKind::Word("is"),
                // `*/ program` is still comment: it runs to the end of the line.
                TokenKind::Word("end-define"),
            ]
        );
    }

    #[test]
    fn type_mode_splits_format_and_array() {
        // Software AG "Software AG IDL Grammar": a simple parameter is
        // `level name '(' type-length ['/' array] ')'`
        let toks = words("A20/1:4,V10)", Mode::Type);
        assert_eq!(
            toks,
            vec![
                TokenKind::Word("A20"),
                TokenKind::Punct('/'),
                TokenKind::Word("1"),
                TokenKind::Punct(':'),
                TokenKind::Word("4"),
                TokenKind::Punct(','),
                TokenKind::Word("V10"),
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
        assert_eq!(t.kind, TokenKind::Word("library"));
        assert_eq!(t.position, Position { line: 1, column: 1 });
    }

    #[test]
    fn unclosed_string_is_expected_apostrophe() {
        // EntireX "Message Class 2001": 20010007 "expected apostrophe"
        let err = Lexer::new("'abc\n'").next_token(Mode::Normal).unwrap_err();
        assert_eq!(err.kind, IdlErrorKind::ExpectedApostrophe);
        assert_eq!(err.position, Position { line: 1, column: 5 });
    }
}

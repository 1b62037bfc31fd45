//! The lexer of [`super`]: nom parsers over the text. A position is found from
//! the byte offset of the remaining input where a token (or an error) starts.

use nom::branch::alt;
use nom::bytes::complete::{tag, take_till, take_till1, take_while1};
use nom::character::complete::{char, one_of};
use nom::combinator::{iterator, map, peek, recognize, rest, value};
use nom::error::{Error, ErrorKind};
use nom::multi::fold_many0;
use nom::sequence::preceded;
use nom::{IResult, Parser};

use super::{ConfigTextError, ConfigTextErrorKind, Pos, Token};

/// The lexer's one failure is an unterminated quote, so its errors need no reason.
type Lexed<'a, O> = IResult<&'a str, O>;

/// Turns remaining inputs into line:column, walking forward from the last
/// position asked for (so a whole text costs one pass).
pub(super) struct Locator<'a> {
    text: &'a str,
    offset: usize,
    pos: Pos,
}

impl<'a> Locator<'a> {
    pub(super) fn new(text: &'a str) -> Self {
        Locator {
            text,
            offset: 0,
            pos: Pos { line: 1, column: 1 },
        }
    }

    /// The position where `rest`, a remaining input of the text, starts:
    /// 1-based line, and column counted in characters from the last `\n`.
    pub(super) fn pos(&mut self, rest: &str) -> Pos {
        let offset = self.text.len().saturating_sub(rest.len());
        if offset < self.offset {
            *self = Locator::new(self.text);
        }
        for c in self
            .text
            .get(self.offset..offset)
            .unwrap_or_default()
            .chars()
        {
            if c == '\n' {
                self.pos.line += 1;
                self.pos.column = 1;
            } else {
                self.pos.column += 1;
            }
        }
        self.offset = offset;
        self.pos
    }
}

/// A token before `*NAME` is told from a word (that depends on the line start).
#[derive(Clone, Debug)]
enum Lexeme<'a> {
    Equals,
    Quoted(String),
    Bare(&'a str),
}

/// Blanks, newlines and `#` comments (to the end of the line); true when a
/// newline was among them, so that the next token starts a line.
fn trivia(i: &str) -> Lexed<'_, bool> {
    fold_many0(
        alt((
            value(true, char('\n')),
            value(false, take_while1(|c: char| c.is_whitespace() && c != '\n')),
            value(false, preceded(char('#'), take_till(|c| c == '\n'))),
        )),
        || false,
        |seen, newline| seen || newline,
    )
    .parse(i)
}

/// A bare word: any run of characters other than whitespace, `=`, `"` and `#`.
fn bare(i: &str) -> Lexed<'_, &str> {
    take_till1(|c: char| c.is_whitespace() || matches!(c, '=' | '"' | '#')).parse(i)
}

/// `"…"` with the escapes `\"` and `\\` (any other `\` is itself); newlines
/// may appear inside. With no closing quote the lexing stops at the opening one.
fn quoted(i: &str) -> Lexed<'_, String> {
    let (body, _) = char('"').parse(i)?;
    let (after, text) = fold_many0(
        alt((
            take_till1(|c| c == '"' || c == '\\'),
            preceded(char('\\'), recognize(one_of("\"\\"))),
            tag("\\"),
        )),
        String::new,
        |mut text, piece| {
            text.push_str(piece);
            text
        },
    )
    .parse(body)?;
    match char::<_, Error<&str>>('"').parse(after) {
        Ok((rest, _)) => Ok((rest, text)),
        Err(_) => Err(nom::Err::Failure(Error::new(i, ErrorKind::Char))),
    }
}

/// One token; fails (as a mismatch) only at the end of the input, since
/// trivia took every blank and comment before it.
fn lexeme(i: &str) -> Lexed<'_, Lexeme<'_>> {
    alt((
        value(Lexeme::Equals, char('=')),
        map(quoted, Lexeme::Quoted),
        map(bare, Lexeme::Bare),
    ))
    .parse(i)
}

/// The token for a lexeme at `pos`: a bare `*NAME` that starts a line is a
/// section, its name letters, digits and `_` only.
fn token(lexeme: Lexeme<'_>, line_start: bool, pos: Pos) -> Result<Token, ConfigTextError> {
    Ok(match lexeme {
        Lexeme::Equals => Token::Equals,
        Lexeme::Quoted(text) => Token::Word { text, quoted: true },
        Lexeme::Bare(word) if line_start && word.starts_with('*') => {
            let name = word.get(1..).unwrap_or_default();
            let named =
                !name.is_empty() && name.chars().all(|c| c.is_ascii_alphanumeric() || c == '_');
            if !named {
                return Err(ConfigTextError {
                    pos,
                    kind: ConfigTextErrorKind::BadSectionName(word.chars().take(40).collect()),
                });
            }
            Token::Section(name.to_owned())
        }
        Lexeme::Bare(word) => Token::Word {
            text: word.to_owned(),
            quoted: false,
        },
    })
}

/// Splits `text` into tokens with their positions; the first error in text
/// order ends it.
pub(super) fn tokenize(text: &str) -> Result<Vec<(Pos, Token)>, ConfigTextError> {
    let mut locator = Locator::new(text);
    let mut tokens = Vec::new();
    let mut line_start = true;
    let mut lexemes = iterator(text, (trivia, peek(rest), lexeme));
    for (newline, start, lexeme) in &mut lexemes {
        line_start |= newline;
        let pos = locator.pos(start);
        tokens.push((pos, token(lexeme, line_start, pos)?));
        line_start = false;
    }
    // The one failure: `quoted` found no closing quote and stopped at the opening
    // one. (A mismatch only ends the iterator, and complete parsers are never
    // incomplete: that would mean the end of the text.)
    let at = match lexemes.finish() {
        Ok(_) => return Ok(tokens),
        Err(nom::Err::Error(e) | nom::Err::Failure(e)) => e.input,
        Err(nom::Err::Incomplete(_)) => "",
    };
    Err(ConfigTextError {
        pos: locator.pos(at),
        kind: ConfigTextErrorKind::UnterminatedQuote,
    })
}

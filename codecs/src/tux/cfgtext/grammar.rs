//! The grammar of [`super`] over the lexer's tokens, with nom combinators:
//!
//! ```text
//! file      = section*            (a word or `=` before the first section is an error)
//! section   = SECTION item*       (`*RESOURCES`: resource*)
//! item      = WORD "=" WORD       a parameter (the keyword unquoted)
//!           | WORD                an entry name, or `DEFAULT:`
//! resource  = WORD ["="] WORD   (the keyword unquoted)
//! ```

use std::iter::Enumerate;
use std::slice::Iter;

use nom::branch::alt;
use nom::combinator::{map, not, opt};
use nom::error::{ErrorKind, ParseError};
use nom::multi::many0;
use nom::sequence::terminated;
use nom::{IResult, Input, Needed, Parser};

use super::{ConfigTextError, ConfigTextErrorKind, Param, Pos, Token};

/// The token stream as nom input.
#[derive(Clone, Copy, Debug)]
pub(super) struct Tokens<'a>(pub(super) &'a [(Pos, Token)]);

impl<'a> Input for Tokens<'a> {
    type Item = &'a (Pos, Token);
    type Iter = Iter<'a, (Pos, Token)>;
    type IterIndices = Enumerate<Self::Iter>;

    fn input_len(&self) -> usize {
        self.0.len()
    }

    fn take(&self, index: usize) -> Self {
        Tokens(self.0.get(..index).unwrap_or(self.0))
    }

    fn take_from(&self, index: usize) -> Self {
        Tokens(self.0.get(index..).unwrap_or_default())
    }

    fn take_split(&self, index: usize) -> (Self, Self) {
        (self.take_from(index), self.take(index))
    }

    fn position<P>(&self, predicate: P) -> Option<usize>
    where
        P: Fn(Self::Item) -> bool,
    {
        self.0.iter().position(predicate)
    }

    fn iter_elements(&self) -> Self::Iter {
        self.0.iter()
    }

    fn iter_indices(&self) -> Self::IterIndices {
        self.0.iter().enumerate()
    }

    fn slice_index(&self, count: usize) -> Result<usize, Needed> {
        if self.0.len() >= count {
            Ok(count)
        } else {
            Err(Needed::new(count - self.0.len()))
        }
    }
}

/// Where a rule stopped (the token there, if any) and why, when the parse
/// cannot go on; nom's own mismatches between alternatives carry no reason.
#[derive(Debug)]
pub(super) struct Stop {
    at: Option<Pos>,
    why: Option<ConfigTextErrorKind>,
}

impl ParseError<Tokens<'_>> for Stop {
    fn from_error_kind(i: Tokens<'_>, _: ErrorKind) -> Self {
        Stop {
            at: i.0.first().map(|(pos, _)| *pos),
            why: None,
        }
    }

    fn append(_: Tokens<'_>, _: ErrorKind, other: Self) -> Self {
        other
    }
}

type Parsed<'a, O> = IResult<Tokens<'a>, O, Stop>;

fn fail<O>(pos: Pos, kind: ConfigTextErrorKind) -> Result<O, nom::Err<Stop>> {
    Err(nom::Err::Failure(Stop {
        at: Some(pos),
        why: Some(kind),
    }))
}

/// One token that `f` accepts, as `f` maps it.
fn one<'a, O>(f: impl Fn(Pos, &'a Token) -> Option<O>) -> impl Fn(Tokens<'a>) -> Parsed<'a, O> {
    move |i: Tokens<'a>| {
        let found =
            i.0.split_first()
                .and_then(|((pos, t), rest)| Some((rest, f(*pos, t)?)));
        match found {
            Some((rest, o)) => Ok((Tokens(rest), o)),
            None => Err(nom::Err::Error(Stop::from_error_kind(i, ErrorKind::Verify))),
        }
    }
}

/// A word: (position, text, quoted).
fn word(i: Tokens<'_>) -> Parsed<'_, (Pos, String, bool)> {
    one(|pos, t| match t {
        Token::Word { text, quoted } => Some((pos, text.clone(), *quoted)),
        _ => None,
    })(i)
}

/// `=`, at its position.
fn equals(i: Tokens<'_>) -> Parsed<'_, Pos> {
    one(|pos, t| matches!(t, Token::Equals).then_some(pos))(i)
}

/// `*NAME`: (position, name).
fn section_name(i: Tokens<'_>) -> Parsed<'_, (Pos, String)> {
    one(|pos, t| match t {
        Token::Section(name) => Some((pos, name.clone())),
        _ => None,
    })(i)
}

/// What a section holds, in order, before `DEFAULT:` is applied.
#[derive(Debug)]
pub(super) enum Item {
    /// `KEYWORD=value` (or a `*RESOURCES` pair).
    Param(Param),
    /// A word with no `=` after it: an entry name, or `DEFAULT:`.
    Entry {
        name: String,
        quoted: bool,
        pos: Pos,
    },
}

/// A section as written.
#[derive(Debug)]
pub(super) struct RawSection {
    pub(super) name: String,
    pub(super) pos: Pos,
    pub(super) items: Vec<Item>,
}

/// A word followed by `=`, then the value; a quoted keyword or a missing value
/// is an error at the keyword.
fn param(i: Tokens<'_>) -> Parsed<'_, Item> {
    let (i, (pos, key, quoted)) = terminated(word, equals).parse(i)?;
    if quoted {
        return fail(pos, ConfigTextErrorKind::UnexpectedEquals);
    }
    match word(i) {
        Ok((i, (_, value, quoted))) => Ok((
            i,
            Item::Param(Param {
                key,
                value,
                quoted,
                pos,
            }),
        )),
        Err(_) => fail(pos, ConfigTextErrorKind::MissingValue(key)),
    }
}

/// A word with no `=` after it.
fn entry(i: Tokens<'_>) -> Parsed<'_, Item> {
    map(terminated(word, not(equals)), |(pos, name, quoted)| {
        Item::Entry { name, quoted, pos }
    })
    .parse(i)
}

/// `=` where no keyword comes before it.
fn stray_equals(i: Tokens<'_>) -> Parsed<'_, Item> {
    let (_, pos) = equals(i)?;
    fail(pos, ConfigTextErrorKind::UnexpectedEquals)
}

/// `KEYWORD value` (or `KEYWORD=value`) in `*RESOURCES`; a quoted keyword or
/// no value is an error at the keyword.
fn resource(i: Tokens<'_>) -> Parsed<'_, Item> {
    let (i, (pos, key, quoted)) = terminated(word, opt(equals)).parse(i)?;
    if quoted {
        return fail(pos, ConfigTextErrorKind::QuotedKeyword(key));
    }
    match word(i) {
        Ok((i, (_, value, quoted))) => Ok((
            i,
            Item::Param(Param {
                key,
                value,
                quoted,
                pos,
            }),
        )),
        Err(_) => fail(pos, ConfigTextErrorKind::MissingResourceValue(key)),
    }
}

fn section(i: Tokens<'_>) -> Parsed<'_, RawSection> {
    let (i, (pos, name)) = section_name(i)?;
    let (i, items) = if name == "RESOURCES" {
        many0(alt((resource, stray_equals))).parse(i)?
    } else {
        many0(alt((param, entry, stray_equals))).parse(i)?
    };
    Ok((i, RawSection { name, pos, items }))
}

/// The sections of a token stream; the first error in token order ends it.
pub(super) fn sections(tokens: &[(Pos, Token)]) -> Result<Vec<RawSection>, ConfigTextError> {
    let (rest, sections) = many0(section)
        .parse(Tokens(tokens))
        .map_err(|e| stopped(e, tokens))?;
    // What no section took: a word or `=` before the first `*SECTION` line.
    match rest.0.first() {
        None => Ok(sections),
        Some((pos, Token::Equals)) => Err(ConfigTextError {
            pos: *pos,
            kind: ConfigTextErrorKind::UnexpectedEquals,
        }),
        Some((pos, _)) => Err(ConfigTextError {
            pos: *pos,
            kind: ConfigTextErrorKind::OutsideSection,
        }),
    }
}

/// The error a stopped parse names. The rules' own failures carry their
/// reason; a bare mismatch cannot get out of `many0` (the sections take every
/// token), and were one to, it is named as text outside the grammar, at its token.
fn stopped(e: nom::Err<Stop>, tokens: &[(Pos, Token)]) -> ConfigTextError {
    let (at, why) = match e {
        nom::Err::Error(stop) | nom::Err::Failure(stop) => (stop.at, stop.why),
        nom::Err::Incomplete(_) => (None, None),
    };
    ConfigTextError {
        pos: at
            .or_else(|| tokens.last().map(|(pos, _)| *pos))
            .unwrap_or(Pos { line: 1, column: 1 }),
        kind: why.unwrap_or(ConfigTextErrorKind::OutsideSection),
    }
}

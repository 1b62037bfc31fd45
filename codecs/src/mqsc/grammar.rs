//! The nom grammar of one joined command (IBM MQ "Rules for using MQSC
//! commands": blanks and commas separate, values follow their keyword in
//! parentheses; "Generic values and characters with special meanings":
//! `'` quotes, `''` inside quotes is one `'`).

use super::join::Logical;
use super::{
    Command, MqscError, MqscErrorKind, Param, canonical_keyword, canonical_object, canonical_verb,
};
use nom::branch::alt;
use nom::bytes::complete::{is_not, tag, take_while, take_while1};
use nom::combinator::{map, value};
use nom::error::{ErrorKind, ParseError};
use nom::multi::fold_many0;
use nom::sequence::{delimited, preceded};
use nom::{IResult, Offset, Parser};

/// Where a rule stopped and, when the reading cannot go on, why.
#[derive(Debug)]
struct Stop<'a> {
    at: &'a str,
    why: Option<MqscErrorKind>,
}

impl<'a> ParseError<&'a str> for Stop<'a> {
    fn from_error_kind(at: &'a str, _: ErrorKind) -> Self {
        Stop { at, why: None }
    }

    fn append(_: &'a str, _: ErrorKind, other: Self) -> Self {
        other
    }
}

type Parsed<'a, O> = IResult<&'a str, O, Stop<'a>>;

fn fail(at: &str, why: MqscErrorKind) -> nom::Err<Stop<'_>> {
    nom::Err::Failure(Stop { at, why: Some(why) })
}

/// Blanks and commas, which MQSC treats alike between parameters and items.
fn sep(i: &str) -> Parsed<'_, &str> {
    take_while(|c: char| c == ' ' || c == ',' || c == '\t').parse(i)
}

/// A keyword: letters, digits and `_`.
fn word(i: &str) -> Parsed<'_, &str> {
    take_while1(|c: char| c.is_ascii_alphanumeric() || c == '_').parse(i)
}

/// A quoted string, `''` standing for `'`, case kept.
fn quoted(i: &str) -> Parsed<'_, String> {
    let (rest, _) = tag("'").parse(i)?;
    let (rest, text) = fold_many0(
        alt((is_not("'"), value("'", tag("''")))),
        String::new,
        |mut s, part| {
            s.push_str(part);
            s
        },
    )
    .parse(rest)?;
    match tag::<_, _, Stop<'_>>("'").parse(rest) {
        Ok((rest, _)) => Ok((rest, text)),
        Err(_) => Err(fail(i, MqscErrorKind::UnterminatedString)),
    }
}

/// A bare item up to a blank, comma, parenthesis or quote, folded to uppercase.
fn bare(i: &str) -> Parsed<'_, String> {
    map(
        take_while1(|c: char| !matches!(c, ' ' | ',' | '\t' | '(' | ')' | '\'')),
        str::to_ascii_uppercase,
    )
    .parse(i)
}

/// `( item item ... )`. An item may itself hold parentheses when bare
/// (`CONNAME(host(1414))`): they are kept as text.
fn paren_value(i: &str) -> Parsed<'_, Vec<String>> {
    let (mut rest, _) = tag("(").parse(i)?;
    let mut items = Vec::new();
    loop {
        rest = sep(rest)?.0;
        if let Ok((r, _)) = tag::<_, _, Stop<'_>>(")").parse(rest) {
            return Ok((r, items));
        }
        if rest.is_empty() {
            return Err(fail(i, MqscErrorKind::UnclosedParenthesis));
        }
        let (r, item) = alt((quoted, nested)).parse(rest)?;
        items.push(item);
        rest = r;
    }
}

/// A bare item, with balanced parentheses inside kept (`HOST(1414)`).
fn nested(i: &str) -> Parsed<'_, String> {
    let (mut rest, mut text) = bare(i)?;
    while let Ok((r, inner)) =
        delimited(tag::<_, _, Stop<'_>>("("), is_not(")"), tag(")")).parse(rest)
    {
        text.push('(');
        text.push_str(&inner.to_ascii_uppercase());
        text.push(')');
        rest = r;
    }
    Ok((rest, text))
}

/// One parameter at char `i`: keyword and optional value (blanks allowed
/// between them, as `QLOCAL ('A')`).
fn param(i: &str) -> Parsed<'_, (&str, &str, Option<Vec<String>>)> {
    let (rest, kw) = word(i)?;
    match preceded(sep_blanks, paren_value).parse(rest) {
        Ok((r, v)) => Ok((r, (i, kw, Some(v)))),
        Err(nom::Err::Error(_)) => Ok((rest, (i, kw, None))),
        Err(e) => Err(e),
    }
}

/// Blanks only (a comma after a keyword separates parameters).
fn sep_blanks(i: &str) -> Parsed<'_, &str> {
    take_while(|c: char| c == ' ' || c == '\t').parse(i)
}

/// Reads one joined command.
pub(super) fn command(l: &Logical) -> Result<Command, MqscError> {
    let text = l.text.as_str();
    let place = |at: &str| {
        let byte = text.offset(at);
        l.place(text[..byte].chars().count())
    };
    let error = |at: &str, kind| {
        let (line, column) = place(at);
        MqscError { line, column, kind }
    };
    let mut rest = sep(text).map_or(text, |(r, _)| r);
    let mut params = Vec::new();
    while !rest.is_empty() {
        match param(rest) {
            Ok((r, (at, kw, v))) => {
                params.push((at, kw, v));
                rest = sep(r).map_or(r, |(r, _)| r);
            }
            Err(nom::Err::Failure(Stop { at, why: Some(why) })) => return Err(error(at, why)),
            Err(_) => {
                let c = rest.chars().next().unwrap_or(' ');
                return Err(error(rest, MqscErrorKind::Unexpected(c)));
            }
        }
    }
    let mut it = params.into_iter();
    let Some((at, verb, _)) = it.next() else {
        return Err(error(text, MqscErrorKind::Unexpected(' ')));
    };
    let (line, _) = place(at);
    let to_param = |(at, kw, value): (&str, &str, Option<Vec<String>>), object: bool| Param {
        keyword: if object {
            canonical_object(kw)
        } else {
            canonical_keyword(kw)
        },
        value,
        line: place(at).0,
    };
    let object = it.next().map(|p| to_param(p, true));
    let params = it.map(|p| to_param(p, false)).collect();
    Ok(Command {
        line,
        verb: canonical_verb(verb),
        object,
        params,
    })
}

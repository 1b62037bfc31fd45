//! nom parser for one parameter line of Software AG IDL (Software AG
//! "Software AG IDL Grammar"; docs/rpc.md):
//! `level name ['(' type ['/' array] ')'] attribute*`.

use nom::Parser;
use nom::character::complete::{one_of, u32 as decimal};
use nom::combinator::{all_consuming, cut, opt};
use nom::multi::{fold_many0, separated_list1};
use nom::sequence::preceded;

use super::ast::{ArraySpec, Dimension, Direction, Format, Length, ParamKind, Parameter, Position};
use super::error::IdlErrorKind;
use super::format::parse_format;
use super::lexer::{
    Fault, Mode, PResult, TokenKind, expect, expected, keyword, punct, take_if, token,
};
use super::parser::Reader;

/// An attribute after the name and type of a parameter.
#[derive(Clone, Copy)]
enum Attribute {
    Direction(Direction),
    Aligned,
    Ims,
}

/// One word of an array dimension, as written.
#[derive(Clone, Copy)]
enum DimensionWord {
    /// `5`: a bound.
    Bound(u32),
    /// `V`, `V10` or `Vx`: unbounded.
    Unbounded(Maximum),
}

/// The maximum of an unbounded dimension, as written.
#[derive(Clone, Copy)]
enum Maximum {
    /// `V`
    Unlimited,
    /// `V10`
    Of(u32),
    /// `Vx`: no number.
    NotANumber,
}

/// Decimal digits and nothing else, as a u32.
fn bound(word: &str) -> Option<u32> {
    all_consuming(decimal::<_, Fault<'_>>)
        .parse(word)
        .ok()
        .map(|(_, n)| n)
}

/// Reads a dimension word: `V`/`V10`/`Vx` (any case of `V`) or a bound.
fn dimension_word(word: &str) -> Option<DimensionWord> {
    match one_of::<_, _, Fault<'_>>("Vv").parse(word) {
        Ok(("", _)) => Some(DimensionWord::Unbounded(Maximum::Unlimited)),
        Ok((max, _)) => Some(DimensionWord::Unbounded(
            bound(max).map_or(Maximum::NotANumber, Maximum::Of),
        )),
        Err(_) => bound(word).map(DimensionWord::Bound),
    }
}

/// A level number: one or two digits, 1 to 99.
fn level_number(digits: &str) -> Option<u8> {
    if digits.len() > 2 {
        return None;
    }
    digits.parse::<u8>().ok().filter(|n| (1..=99).contains(n))
}

/// Reads an attribute keyword; `IN` stands for itself until an `OUT` follows.
fn attribute_word(k: &TokenKind<'_>) -> Option<Attribute> {
    let word = k.word()?;
    [
        ("IN", Attribute::Direction(Direction::In)),
        ("OUT", Attribute::Direction(Direction::Out)),
        ("INOUT", Attribute::Direction(Direction::InOut)),
        ("ALIGNED", Attribute::Aligned),
        ("IMS", Attribute::Ims),
    ]
    .into_iter()
    .find_map(|(keyword, attribute)| word.eq_ignore_ascii_case(keyword).then_some(attribute))
}

/// `IN [OUT] | OUT | INOUT | ALIGNED | IMS`, with the rest of the text where it starts.
fn attribute(i: &str) -> PResult<'_, (&str, Attribute)> {
    let (i, (at, attribute)) = take_if(Mode::Normal, attribute_word).parse(i)?;
    if !matches!(attribute, Attribute::Direction(Direction::In)) {
        return Ok((i, (at, attribute)));
    }
    opt(take_if(Mode::Normal, keyword("OUT")))
        .map(|out| {
            let direction = if out.is_some() {
                Direction::InOut
            } else {
                Direction::In
            };
            (at, Attribute::Direction(direction))
        })
        .parse(i)
}

/// The attributes of one parameter line so far.
#[derive(Default)]
struct Attributes {
    direction: Option<Direction>,
    aligned: bool,
    ims: bool,
}

impl<'a> Reader<'a> {
    /// Adds the attribute `found` to those `seen` on a line of `level`; records
    /// IMS below level 1 and a second direction.
    fn add_attribute(
        &self,
        level: u8,
        mut seen: Attributes,
        (at, found): (&'a str, Attribute),
    ) -> Attributes {
        let fault = |reason: &str| {
            self.fault(
                self.position(at),
                IdlErrorKind::InvalidAttribute {
                    reason: reason.into(),
                },
            )
        };
        match found {
            Attribute::Aligned => seen.aligned = true,
            Attribute::Ims => {
                if level != 1 {
                    fault("IMS is allowed on level 1 only");
                }
                seen.ims = true;
            }
            Attribute::Direction(d) => {
                if seen.direction.replace(d).is_some() {
                    fault("a second direction on one parameter");
                }
            }
        }
        seen
    }

    /// A parameter line; a recoverable error unless it starts with a level number.
    pub(super) fn param_line(&self, i: &'a str) -> PResult<'a, Parameter> {
        let (i, (at, digits)) = take_if(Mode::Normal, TokenKind::number).parse(i)?;
        let position = self.position(at);
        let Some(level) = level_number(digits) else {
            return Fault::fail(
                at,
                IdlErrorKind::InvalidLevel {
                    level: digits.to_string(),
                },
            );
        };
        cut(move |i| {
            let (i, (_, name)) =
                expect(Mode::Normal, TokenKind::word, expected("a parameter name"))(i)?;
            let (i, spec) = opt(preceded(
                take_if(Mode::Normal, punct('(')),
                cut(|i| self.type_spec(i)),
            ))
            .parse(i)?;
            let (kind, array) = spec.unwrap_or((ParamKind::Group, None));
            // Each attribute is checked as it is read, so its fault stands even
            // when a later token stops the parse.
            let (i, attributes) = fold_many0(attribute, Attributes::default, |seen, found| {
                self.add_attribute(level, seen, found)
            })
            .parse(i)?;
            let Attributes {
                direction: declared_direction,
                aligned,
                ims,
            } = attributes;
            Ok((
                i,
                Parameter {
                    level,
                    name: name.to_string(),
                    kind,
                    array,
                    declared_direction,
                    direction: declared_direction.unwrap_or(Direction::InOut),
                    aligned,
                    ims,
                    members: Vec::new(),
                    position,
                },
            ))
        })
        .parse(i)
    }

    /// After `(`: `/ array`, `'struct' [/ array]` or `format [/ array]`, then `)`.
    fn type_spec(&self, i: &'a str) -> PResult<'a, (ParamKind, Option<ArraySpec>)> {
        let (i, first) = token(Mode::Type).parse(i)?;
        let (i, spec) = match first.kind {
            TokenKind::Punct('/') => {
                let (i, array) = cut(|i| self.array(i)).parse(i)?;
                (i, (ParamKind::Group, Some(array)))
            }
            TokenKind::Str(name) => {
                let (i, array) = self.optional_array(i)?;
                (i, (ParamKind::StructRef(name.to_string()), array))
            }
            TokenKind::Word(word) => {
                let kind = self.format(first.at, word);
                let (i, array) = self.optional_array(i)?;
                (i, (kind, array))
            }
            found => {
                return Fault::fail(
                    first.at,
                    expected("a format, a struct name in apostrophes, or '/' and an array")(&found),
                );
            }
        };
        let (i, _) = expect(Mode::Type, punct(')'), expected("')'"))(i)?;
        Ok((i, spec))
    }

    /// A format word; a bad one is recorded and stands in as `A1`, so the rest
    /// of the block is still checked.
    fn format(&self, at: &'a str, word: &str) -> ParamKind {
        match parse_format(word, self.options.extended_formats) {
            Ok(f) => ParamKind::Field(f),
            Err(e) => {
                self.fault(self.position(at), e);
                ParamKind::Field(Format::Alpha(Length::Fixed(1)))
            }
        }
    }

    fn optional_array(&self, i: &'a str) -> PResult<'a, Option<ArraySpec>> {
        opt(preceded(
            take_if(Mode::Type, punct('/')),
            cut(|i| self.array(i)),
        ))
        .parse(i)
    }

    /// `dim (',' dim)*`: at most 3, all fixed or all unbounded; faults of the
    /// whole array are placed right after its `/`.
    fn array(&self, i: &'a str) -> PResult<'a, ArraySpec> {
        let start = self.position(i);
        let (i, dims) =
            separated_list1(take_if(Mode::Type, punct(',')), |i| self.dimension(i)).parse(i)?;
        let fault = |reason: &str| {
            self.fault(
                start,
                IdlErrorKind::InvalidArray {
                    reason: reason.into(),
                },
            )
        };
        if dims.len() > 3 {
            fault("more than 3 dimensions");
        }
        let unbounded = dims
            .iter()
            .filter(|d| matches!(d, Dimension::Unbounded { .. }))
            .count();
        if unbounded != 0 && unbounded != dims.len() {
            fault("fixed and unbounded dimensions mixed in one array");
        }
        Ok((i, ArraySpec { dims }))
    }

    /// `upper`, `lower:upper`, `V`, `Vmax` or `1:V[max]`.
    fn dimension(&self, i: &'a str) -> PResult<'a, Dimension> {
        let read = |k: &TokenKind<'a>| k.word().and_then(dimension_word);
        let what = expected("an array dimension (upper, lower:upper, V or Vmax)");
        let (i, (at, first)) = expect(Mode::Type, read, what)(i)?;
        let position = self.position(at);
        let fault = |reason: &str| {
            self.fault(
                position,
                IdlErrorKind::InvalidArray {
                    reason: reason.into(),
                },
            )
        };
        let lower = match first {
            DimensionWord::Bound(n) => n,
            DimensionWord::Unbounded(max) => return Ok((i, self.unbounded(max, position))),
        };
        let (i, colon) = opt(take_if(Mode::Type, punct(':'))).parse(i)?;
        if colon.is_none() {
            if lower == 0 {
                fault("upper bound 0 is below the lower bound 1");
            }
            return Ok((
                i,
                Dimension::Fixed {
                    lower: 1,
                    upper: lower,
                },
            ));
        }
        let (i, (at, second)) = expect(Mode::Type, read, expected("an upper bound or V"))(i)?;
        let upper = match second {
            DimensionWord::Bound(n) => n,
            DimensionWord::Unbounded(max) => {
                if lower != 1 {
                    fault("the lower bound of an unbounded dimension must be 1");
                }
                return Ok((i, self.unbounded(max, self.position(at))));
            }
        };
        if upper < lower {
            fault("upper bound below the lower bound");
        }
        Ok((i, Dimension::Fixed { lower, upper }))
    }

    /// An unbounded dimension; a maximum of 0 or no number is recorded and read as none.
    fn unbounded(&self, max: Maximum, at: Position) -> Dimension {
        match max {
            Maximum::Unlimited => Dimension::Unbounded { max: None },
            Maximum::Of(n) if n > 0 => Dimension::Unbounded { max: Some(n) },
            Maximum::Of(_) | Maximum::NotANumber => {
                self.fault(
                    at,
                    IdlErrorKind::InvalidArray {
                        reason: "the maximum of an unbounded dimension must be 1 or more".into(),
                    },
                );
                Dimension::Unbounded { max: None }
            }
        }
    }
}

//! nom parser for Software AG IDL (docs/rpc.md): file, library,
//! program, struct and parameter block; the parameter lines are in `param.rs`.
//!
//! A syntax error stops the parse (nom's `Failure`); rule violations on
//! well-formed lines are collected and reported together, sorted by position.

use std::cell::RefCell;

use nom::branch::alt;
use nom::combinator::{cut, map, opt, peek};
use nom::multi::{many0, many1};
use nom::sequence::{delimited, preceded};
use nom::{Err, Parser};

use super::ast::{IdlFile, Library, Parameter, Position, Program, StructDef};
use super::error::{IdlError, IdlErrorKind, IdlErrors};
use super::levels::build_tree;
use super::lexer::{
    Fault, Mode, PResult, TokenKind, expect, expect_keyword, expected, keyword, leading_trivia,
    punct, take_if, token,
};
use super::names;
use super::position::Positions;

/// Choices for [`parse_with`].
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct ParseOptions {
    /// Accept the UNCONFIRMED formats `U`, `UV`, `I8` (docs/rpc.md).
    /// Default false.
    pub extended_formats: bool,
    /// Check the dynamic-parameter rules of the MQ RPC bridge (docs/rpc.md
    /// "Dynamic parameters") on every program. Default true.
    pub dynamic_parameters: bool,
}

impl Default for ParseOptions {
    fn default() -> Self {
        ParseOptions {
            extended_formats: false,
            dynamic_parameters: true,
        }
    }
}

/// Parses an IDL file with the default [`ParseOptions`].
///
/// Errors: every fault found, with line and column (see [`IdlErrorKind`]).
pub fn parse(src: &str) -> Result<IdlFile, IdlErrors> {
    parse_with(src, &ParseOptions::default())
}

/// Parses an IDL file: grammar, level rules, format length rules, names, struct
/// references and (if asked) the dynamic-parameter rules.
///
/// Errors: every fault found, sorted by line and column (see [`IdlErrorKind`]).
pub fn parse_with(src: &str, options: &ParseOptions) -> Result<IdlFile, IdlErrors> {
    // A UTF-8 byte order mark is no token; line 1, column 1 is after it.
    let text = src.strip_prefix('\u{feff}').unwrap_or(src);
    let reader = Reader {
        positions: Positions::new(text),
        options: *options,
        faults: RefCell::new(Vec::new()),
    };
    let result = reader.file(text);
    let stop = result.map_err(|e| reader.error(e));
    let mut errors = reader.faults.into_inner();
    match stop {
        Ok((_, file)) => {
            if errors.is_empty() {
                names::check_file(&file, &mut errors);
                if options.dynamic_parameters {
                    for library in &file.libraries {
                        for program in &library.programs {
                            if let Err(e) =
                                super::dynamic::DynamicParams::of_program(program, library)
                            {
                                errors.extend(e.0);
                            }
                        }
                    }
                }
            }
            if errors.is_empty() {
                return Ok(file);
            }
        }
        Err(e) => errors.push(e),
    }
    errors.sort_by_key(|e| e.position);
    Err(IdlErrors(errors))
}

/// The state of one parse: where places are, the options, and the rule
/// violations found so far (pushed only once a line is committed to, so no
/// backtracking ever drops or repeats one).
pub(super) struct Reader<'a> {
    positions: Positions<'a>,
    pub(super) options: ParseOptions,
    faults: RefCell<Vec<IdlError>>,
}

/// What a library holds, in text order.
enum Member {
    Program(Program),
    Struct(StructDef),
}

/// `'name' [':' 'alias'] IS`; the alias only where `alias_allowed`.
fn name_alias_is<'a>(
    alias_allowed: bool,
) -> impl FnMut(&'a str) -> PResult<'a, (String, Option<String>)> {
    move |i| {
        let (i, name) = quoted_name(i)?;
        let (i, alias) = opt(preceded(
            take_if(Mode::Normal, |k| punct(':')(k).filter(|()| alias_allowed)),
            quoted_name,
        ))
        .parse(i)?;
        let what = if alias_allowed && alias.is_none() {
            "':' and an alias, or IS"
        } else {
            "IS"
        };
        let (i, _) = expect(Mode::Normal, keyword("IS"), expected(what)).parse(i)?;
        Ok((i, (name, alias)))
    }
}

/// A name in apostrophes (20010006 otherwise).
fn quoted_name(i: &str) -> PResult<'_, String> {
    expect(Mode::Normal, TokenKind::string, |found| {
        IdlErrorKind::ExpectedString {
            found: found.describe(),
        }
    })
    .map(|(_, s)| s.to_string())
    .parse(i)
}

impl<'a> Reader<'a> {
    /// Line and column where `rest`, a suffix of the text, starts.
    pub(super) fn position(&self, rest: &str) -> Position {
        self.positions.of(rest)
    }

    /// Records a rule violation; the parse goes on.
    pub(super) fn fault(&self, position: Position, kind: IdlErrorKind) {
        self.faults.borrow_mut().push(IdlError::new(position, kind));
    }

    /// The error that stopped the parse, with its line and column.
    fn error(&self, e: Err<Fault<'a>>) -> IdlError {
        let (at, kind) = match e {
            Err::Error(f) | Err::Failure(f) => (f.at, f.kind),
            Err::Incomplete(_) => ("", None),
        };
        // Every fault that reaches here says what was wrong; a bare nom error
        // would mean a branch of the grammar lacks its message, and is still
        // reported as a fault at its place rather than a panic.
        let kind = kind.unwrap_or_else(|| match token(Mode::Normal).parse(at) {
            Ok((_, t)) => expected("IDL text")(&t.kind),
            Err(Err::Error(f) | Err::Failure(f)) => f
                .kind
                .unwrap_or_else(|| expected("IDL text")(&TokenKind::Eof)),
            Err(Err::Incomplete(_)) => expected("IDL text")(&TokenKind::Eof),
        });
        IdlError::new(self.position(at), kind)
    }

    /// `library+` (20010020 when the text does not start with LIBRARY).
    fn file(&self, i: &'a str) -> PResult<'a, IdlFile> {
        let starts_with_library = peek(expect(
            Mode::Normal,
            keyword("LIBRARY"),
            |found: &TokenKind<'a>| IdlErrorKind::NoLibrary {
                found: found.describe(),
            },
        ));
        delimited(
            (leading_trivia, starts_with_library),
            many1(|i| self.library(i)),
            expect(
                Mode::Normal,
                TokenKind::eof,
                expected("PROGRAM, STRUCT, LIBRARY or end of file"),
            ),
        )
        .map(|libraries| IdlFile { libraries })
        .parse(i)
    }

    /// `LIBRARY 'name' [':' 'alias'] IS (program | struct)*` (20010022 when empty).
    fn library(&self, i: &'a str) -> PResult<'a, Library> {
        let (i, (at, ())) = take_if(Mode::Normal, keyword("LIBRARY")).parse(i)?;
        let position = self.position(at);
        cut(move |i| {
            let (i, (name, alias)) = name_alias_is(true).parse(i)?;
            let (i, members) = many0(alt((
                map(|i| self.program(i), Member::Program),
                map(|i| self.struct_def(i), Member::Struct),
            )))
            .parse(i)?;
            if members.is_empty() {
                peek(expect(
                    Mode::Normal,
                    |k: &TokenKind<'a>| {
                        (k.is_keyword("LIBRARY") || *k == TokenKind::Eof).then_some(())
                    },
                    expected("PROGRAM or STRUCT"),
                ))
                .parse(i)?;
                self.fault(
                    position,
                    IdlErrorKind::EmptyLibrary {
                        library: name.clone(),
                    },
                );
            }
            let mut programs = Vec::new();
            let mut structs = Vec::new();
            for member in members {
                match member {
                    Member::Program(p) => programs.push(p),
                    Member::Struct(s) => structs.push(s),
                }
            }
            Ok((
                i,
                Library {
                    name,
                    alias,
                    programs,
                    structs,
                    position,
                },
            ))
        })
        .parse(i)
    }

    /// `PROGRAM 'name' [':' 'alias'] IS param-block`
    fn program(&self, i: &'a str) -> PResult<'a, Program> {
        let (i, (at, ())) = take_if(Mode::Normal, keyword("PROGRAM")).parse(i)?;
        let position = self.position(at);
        cut(move |i| {
            let (i, (name, alias)) = name_alias_is(true).parse(i)?;
            let (i, params) = self.param_block(i, &name, true)?;
            Ok((
                i,
                Program {
                    name,
                    alias,
                    params,
                    position,
                },
            ))
        })
        .parse(i)
    }

    /// `STRUCT 'name' IS param-block`
    fn struct_def(&self, i: &'a str) -> PResult<'a, StructDef> {
        let (i, (at, ())) = take_if(Mode::Normal, keyword("STRUCT")).parse(i)?;
        let position = self.position(at);
        cut(move |i| {
            let (i, (name, _)) = name_alias_is(false).parse(i)?;
            let (i, params) = self.param_block(i, &name, false)?;
            Ok((
                i,
                StructDef {
                    name,
                    params,
                    position,
                },
            ))
        })
        .parse(i)
    }

    /// `DEFINE DATA PARAMETER param-line* END-DEFINE` (20010024 when no line,
    /// 20010021 when a program has IMS parameters only).
    fn param_block(
        &self,
        i: &'a str,
        owner: &str,
        is_program: bool,
    ) -> PResult<'a, Vec<Parameter>> {
        let (i, (define_at, ())) = expect_keyword("DEFINE")(i)?;
        let define = self.position(define_at);
        let (i, _) = expect_keyword("DATA")(i)?;
        let (i, _) = expect_keyword("PARAMETER")(i)?;
        let (i, flat) = many0(|i| self.param_line(i)).parse(i)?;
        let (i, (end_at, ())) = expect(Mode::Normal, keyword("END-DEFINE"), |found| {
            block_end_fault(found, define.line, flat.is_empty())
        })(i)?;
        if flat.is_empty() {
            self.fault(
                self.position(end_at),
                IdlErrorKind::EmptyProgram {
                    name: owner.to_string(),
                },
            );
        }
        let params = build_tree(flat, &mut self.faults.borrow_mut());
        if is_program && !params.is_empty() && params.iter().all(|p| p.ims) {
            self.fault(
                define,
                IdlErrorKind::OnlyImsParameters {
                    program: owner.to_string(),
                },
            );
        }
        Ok((i, params))
    }
}

/// What stands where a parameter block should go on or end.
fn block_end_fault(found: &TokenKind<'_>, opened_at_line: u32, no_line_yet: bool) -> IdlErrorKind {
    if *found == TokenKind::Eof {
        return IdlErrorKind::MissingEndDefine { opened_at_line };
    }
    let what = if no_line_yet {
        "a level number"
    } else {
        "an attribute (IN, OUT, IN OUT, INOUT, ALIGNED, IMS), a level number or END-DEFINE"
    };
    expected(what)(found)
}

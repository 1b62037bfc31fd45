//! Recursive-descent parser for Software AG IDL (spec: rpc-bridge.md §1.2).
//!
//! A syntax error stops the parse; rule violations on well-formed lines are
//! collected and reported together, sorted by position.

use super::ast::{
    ArraySpec, Dimension, Direction, Format, IdlFile, Length, Library, ParamKind, Parameter,
    Position, Program, StructDef,
};
use super::error::{IdlError, IdlErrorKind, IdlErrors};
use super::format::parse_format;
use super::levels::build_tree;
use super::lexer::{Lexer, Mode, Token, TokenKind};
use super::names;

/// Choices for [`parse_with`].
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct ParseOptions {
    /// Accept the UNCONFIRMED formats `U`, `UV`, `I8` (spec: rpc-bridge.md §9 #8).
    /// Default false.
    pub extended_formats: bool,
    /// Check the dynamic-parameter rules of the MQ RPC bridge (spec:
    /// rpc-bridge.md §3) on every program. Default true.
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
    let mut parser = Parser {
        lx: Lexer::new(src),
        options: *options,
        errors: Vec::new(),
    };
    let result = parser.file();
    let mut errors = parser.errors;
    match result {
        Ok(file) => {
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

struct Parser<'a> {
    lx: Lexer<'a>,
    options: ParseOptions,
    errors: Vec<IdlError>,
}

fn is_keyword(token: &Token, keyword: &str) -> bool {
    matches!(&token.kind, TokenKind::Word(w) if w.eq_ignore_ascii_case(keyword))
}

fn expected(token: &Token, what: &str) -> IdlError {
    IdlError::new(
        token.position,
        IdlErrorKind::Expected {
            expected: what.to_string(),
            found: token.kind.describe(),
        },
    )
}

impl Parser<'_> {
    fn next(&mut self, mode: Mode) -> Result<Token, IdlError> {
        self.lx.next_token(mode)
    }

    fn peek(&self, mode: Mode) -> Result<Token, IdlError> {
        self.lx.peek_token(mode)
    }

    fn expect_keyword(&mut self, keyword: &str) -> Result<Token, IdlError> {
        let token = self.next(Mode::Normal)?;
        if is_keyword(&token, keyword) {
            Ok(token)
        } else {
            Err(expected(&token, keyword))
        }
    }

    fn expect_punct(&mut self, mode: Mode, c: char) -> Result<Token, IdlError> {
        let token = self.next(mode)?;
        if token.kind == TokenKind::Punct(c) {
            Ok(token)
        } else {
            Err(expected(&token, &format!("'{c}'")))
        }
    }

    /// A name in apostrophes (20010006 otherwise).
    fn expect_string(&mut self) -> Result<(String, Position), IdlError> {
        let token = self.next(Mode::Normal)?;
        match token.kind {
            TokenKind::Str(s) => Ok((s, token.position)),
            other => Err(IdlError::new(
                token.position,
                IdlErrorKind::ExpectedString {
                    found: other.describe(),
                },
            )),
        }
    }

    /// `'name' [':' 'alias'] IS`
    fn name_alias_is(&mut self, alias_allowed: bool) -> Result<(String, Option<String>), IdlError> {
        let (name, _) = self.expect_string()?;
        let mut alias = None;
        if alias_allowed && self.peek(Mode::Normal)?.kind == TokenKind::Punct(':') {
            self.next(Mode::Normal)?;
            alias = Some(self.expect_string()?.0);
        }
        let token = self.next(Mode::Normal)?;
        if !is_keyword(&token, "IS") {
            let what = if alias_allowed && alias.is_none() {
                "':' and an alias, or IS"
            } else {
                "IS"
            };
            return Err(expected(&token, what));
        }
        Ok((name, alias))
    }

    fn file(&mut self) -> Result<IdlFile, IdlError> {
        let first = self.peek(Mode::Normal)?;
        if !is_keyword(&first, "LIBRARY") {
            return Err(IdlError::new(
                first.position,
                IdlErrorKind::NoLibrary {
                    found: first.kind.describe(),
                },
            ));
        }
        let mut libraries = Vec::new();
        loop {
            let token = self.peek(Mode::Normal)?;
            if token.kind == TokenKind::Eof {
                break;
            }
            if !is_keyword(&token, "LIBRARY") {
                return Err(expected(&token, "PROGRAM, STRUCT, LIBRARY or end of file"));
            }
            libraries.push(self.library()?);
        }
        Ok(IdlFile { libraries })
    }

    fn library(&mut self) -> Result<Library, IdlError> {
        let position = self.expect_keyword("LIBRARY")?.position;
        let (name, alias) = self.name_alias_is(true)?;
        let mut programs = Vec::new();
        let mut structs = Vec::new();
        loop {
            let token = self.peek(Mode::Normal)?;
            if is_keyword(&token, "PROGRAM") {
                programs.push(self.program()?);
            } else if is_keyword(&token, "STRUCT") {
                structs.push(self.struct_def()?);
            } else {
                if programs.is_empty() && structs.is_empty() {
                    if !is_keyword(&token, "LIBRARY") && token.kind != TokenKind::Eof {
                        return Err(expected(&token, "PROGRAM or STRUCT"));
                    }
                    self.errors.push(IdlError::new(
                        position,
                        IdlErrorKind::EmptyLibrary {
                            library: name.clone(),
                        },
                    ));
                }
                break;
            }
        }
        Ok(Library {
            name,
            alias,
            programs,
            structs,
            position,
        })
    }

    fn program(&mut self) -> Result<Program, IdlError> {
        let position = self.expect_keyword("PROGRAM")?.position;
        let (name, alias) = self.name_alias_is(true)?;
        let params = self.param_block(&name, true)?;
        Ok(Program {
            name,
            alias,
            params,
            position,
        })
    }

    fn struct_def(&mut self) -> Result<StructDef, IdlError> {
        let position = self.expect_keyword("STRUCT")?.position;
        let (name, _) = self.name_alias_is(false)?;
        let params = self.param_block(&name, false)?;
        Ok(StructDef {
            name,
            params,
            position,
        })
    }

    /// `DEFINE DATA PARAMETER param-line+ END-DEFINE`
    fn param_block(&mut self, owner: &str, is_program: bool) -> Result<Vec<Parameter>, IdlError> {
        let define = self.expect_keyword("DEFINE")?;
        self.expect_keyword("DATA")?;
        self.expect_keyword("PARAMETER")?;
        let mut flat = Vec::new();
        loop {
            let token = self.peek(Mode::Normal)?;
            match &token.kind {
                TokenKind::Number(_) => flat.push(self.param_line()?),
                TokenKind::Eof => {
                    return Err(IdlError::new(
                        token.position,
                        IdlErrorKind::MissingEndDefine {
                            opened_at_line: define.position.line,
                        },
                    ));
                }
                _ if is_keyword(&token, "END-DEFINE") => {
                    self.next(Mode::Normal)?;
                    if flat.is_empty() {
                        self.errors.push(IdlError::new(
                            token.position,
                            IdlErrorKind::EmptyProgram {
                                name: owner.to_string(),
                            },
                        ));
                    }
                    break;
                }
                _ => {
                    let what = if flat.is_empty() {
                        "a level number"
                    } else {
                        "an attribute (IN, OUT, IN OUT, INOUT, ALIGNED, IMS), a level number or END-DEFINE"
                    };
                    return Err(expected(&token, what));
                }
            }
        }
        let params = build_tree(flat, &mut self.errors);
        if is_program && !params.is_empty() && params.iter().all(|p| p.ims) {
            self.errors.push(IdlError::new(
                define.position,
                IdlErrorKind::OnlyImsParameters {
                    program: owner.to_string(),
                },
            ));
        }
        Ok(params)
    }

    /// `level name ['(' ... ')'] attr*`
    fn param_line(&mut self) -> Result<Parameter, IdlError> {
        let level_token = self.next(Mode::Normal)?;
        let TokenKind::Number(digits) = &level_token.kind else {
            return Err(expected(&level_token, "a level number"));
        };
        let level = match digits.parse::<u8>() {
            Ok(n) if digits.len() <= 2 && (1..=99).contains(&n) => n,
            _ => {
                return Err(IdlError::new(
                    level_token.position,
                    IdlErrorKind::InvalidLevel {
                        level: digits.clone(),
                    },
                ));
            }
        };
        let name_token = self.next(Mode::Normal)?;
        let TokenKind::Word(name) = name_token.kind.clone() else {
            return Err(expected(&name_token, "a parameter name"));
        };
        let mut kind = ParamKind::Group;
        let mut array = None;
        if self.peek(Mode::Normal)?.kind == TokenKind::Punct('(') {
            self.next(Mode::Normal)?;
            let token = self.next(Mode::Type)?;
            match token.kind {
                TokenKind::Punct('/') => array = Some(self.array()?),
                TokenKind::Str(s) => {
                    kind = ParamKind::StructRef(s);
                    array = self.optional_array()?;
                }
                TokenKind::Word(w) => {
                    kind = match parse_format(&w, self.options.extended_formats) {
                        Ok(f) => ParamKind::Field(f),
                        Err(e) => {
                            self.errors.push(IdlError::new(token.position, e));
                            // Placeholder so the rest of the block is still checked.
                            ParamKind::Field(Format::Alpha(Length::Fixed(1)))
                        }
                    };
                    array = self.optional_array()?;
                }
                _ => {
                    return Err(expected(
                        &token,
                        "a format, a struct name in apostrophes, or '/' and an array",
                    ));
                }
            }
            self.expect_punct(Mode::Type, ')')?;
        }
        let mut declared_direction = None;
        let mut aligned = false;
        let mut ims = false;
        loop {
            let token = self.peek(Mode::Normal)?;
            let direction = if is_keyword(&token, "IN") {
                self.next(Mode::Normal)?;
                if is_keyword(&self.peek(Mode::Normal)?, "OUT") {
                    self.next(Mode::Normal)?;
                    Direction::InOut
                } else {
                    Direction::In
                }
            } else if is_keyword(&token, "OUT") {
                self.next(Mode::Normal)?;
                Direction::Out
            } else if is_keyword(&token, "INOUT") {
                self.next(Mode::Normal)?;
                Direction::InOut
            } else if is_keyword(&token, "ALIGNED") {
                self.next(Mode::Normal)?;
                aligned = true;
                continue;
            } else if is_keyword(&token, "IMS") {
                self.next(Mode::Normal)?;
                if level != 1 {
                    self.errors.push(IdlError::new(
                        token.position,
                        IdlErrorKind::InvalidAttribute {
                            reason: "IMS is allowed on level 1 only".into(),
                        },
                    ));
                }
                ims = true;
                continue;
            } else {
                break;
            };
            if declared_direction.replace(direction).is_some() {
                self.errors.push(IdlError::new(
                    token.position,
                    IdlErrorKind::InvalidAttribute {
                        reason: "a second direction on one parameter".into(),
                    },
                ));
            }
        }
        Ok(Parameter {
            level,
            name,
            kind,
            array,
            declared_direction,
            direction: declared_direction.unwrap_or(Direction::InOut),
            aligned,
            ims,
            members: Vec::new(),
            position: level_token.position,
        })
    }

    fn optional_array(&mut self) -> Result<Option<ArraySpec>, IdlError> {
        if self.peek(Mode::Type)?.kind == TokenKind::Punct('/') {
            self.next(Mode::Type)?;
            Ok(Some(self.array()?))
        } else {
            Ok(None)
        }
    }

    /// `dim (',' dim){0,2}`, all fixed or all unbounded.
    fn array(&mut self) -> Result<ArraySpec, IdlError> {
        let start = self.lx.position();
        let mut dims = Vec::new();
        loop {
            dims.push(self.dimension()?);
            if self.peek(Mode::Type)?.kind == TokenKind::Punct(',') {
                self.next(Mode::Type)?;
            } else {
                break;
            }
        }
        let fault = |reason: &str| {
            IdlError::new(
                start,
                IdlErrorKind::InvalidArray {
                    reason: reason.into(),
                },
            )
        };
        if dims.len() > 3 {
            self.errors.push(fault("more than 3 dimensions"));
        }
        let unbounded = dims
            .iter()
            .filter(|d| matches!(d, Dimension::Unbounded { .. }))
            .count();
        if unbounded != 0 && unbounded != dims.len() {
            self.errors
                .push(fault("fixed and unbounded dimensions mixed in one array"));
        }
        Ok(ArraySpec { dims })
    }

    fn dimension(&mut self) -> Result<Dimension, IdlError> {
        let token = self.next(Mode::Type)?;
        let what = "an array dimension (upper, lower:upper, V or Vmax)";
        let TokenKind::Word(first) = &token.kind else {
            return Err(expected(&token, what));
        };
        let fault = |reason: &str| {
            IdlError::new(
                token.position,
                IdlErrorKind::InvalidArray {
                    reason: reason.into(),
                },
            )
        };
        if let Some(max) = unbounded_word(first) {
            return self.unbounded(max, &token);
        }
        let Some(n) = bound(first) else {
            return Err(expected(&token, what));
        };
        if self.peek(Mode::Type)?.kind != TokenKind::Punct(':') {
            if n == 0 {
                self.errors
                    .push(fault("upper bound 0 is below the lower bound 1"));
            }
            return Ok(Dimension::Fixed { lower: 1, upper: n });
        }
        self.next(Mode::Type)?;
        let second = self.next(Mode::Type)?;
        let TokenKind::Word(w) = &second.kind else {
            return Err(expected(&second, "an upper bound or V"));
        };
        if let Some(max) = unbounded_word(w) {
            if n != 1 {
                self.errors
                    .push(fault("the lower bound of an unbounded dimension must be 1"));
            }
            return self.unbounded(max, &second);
        }
        let Some(upper) = bound(w) else {
            return Err(expected(&second, "an upper bound or V"));
        };
        if upper < n {
            self.errors.push(fault("upper bound below the lower bound"));
        }
        Ok(Dimension::Fixed { lower: n, upper })
    }

    fn unbounded(
        &mut self,
        max: Result<Option<u32>, ()>,
        token: &Token,
    ) -> Result<Dimension, IdlError> {
        match max {
            Ok(Some(0)) | Err(()) => {
                self.errors.push(IdlError::new(
                    token.position,
                    IdlErrorKind::InvalidArray {
                        reason: "the maximum of an unbounded dimension must be 1 or more".into(),
                    },
                ));
                Ok(Dimension::Unbounded { max: None })
            }
            Ok(max) => Ok(Dimension::Unbounded { max }),
        }
    }
}

/// `V` → `Some(Ok(None))`, `V10` → `Some(Ok(Some(10)))`, `Vx` → `Some(Err)`, other → None.
fn unbounded_word(w: &str) -> Option<Result<Option<u32>, ()>> {
    let rest = w.strip_prefix(['V', 'v'])?;
    if rest.is_empty() {
        return Some(Ok(None));
    }
    Some(bound(rest).map(Some).ok_or(()))
}

fn bound(w: &str) -> Option<u32> {
    if w.is_empty() || !w.bytes().all(|b| b.is_ascii_digit()) {
        return None;
    }
    w.parse().ok()
}

//! Reading dmpmqmsg/qload files (the qload source, ibm-messaging/mq-q-qload
//! `qloadfnc.c`).
//!
//! Follows qload's loader (`ReadFileMessage` in `qloadfnc.c`): blank lines and
//! comments are skipped, a message is its `A`/`N` lines followed by consecutive
//! data lines, and the first line that is not a data line ends the message.
//! Stricter than the loader where it would silently drop data: unknown text
//! after hex or after a closing quote, over-long values and bad integers are
//! errors here. A trailing `\r` (CRLF files) is removed from every line.
//!
//! The lines are read with the nom parsers of `lines.rs`; an error's
//! line and column come from the byte offset of the input where it was found.

use std::iter::once;

use super::lines::{
    Stop, attribute, blank_line, comment_line, comment_value, content_line, filler, hex_line,
    index_comment, index_line, line, line_of, string_line, text_line,
};
use super::{DumpError, DumpErrorKind, DumpFile, DumpHeader, DumpMessage, DumpTool};
use crate::mq::Mqmd;
use bytes::Bytes;
use nom::branch::alt;
use nom::bytes::complete::tag;
use nom::combinator::{map, value};
use nom::multi::{fold_many0, many0};
use nom::sequence::preceded;
use nom::{Offset, Parser};

/// Reads the messages of a dump file one at a time.
///
/// Each item is one message or the error that stopped the reading; after an
/// error the iterator ends, so the messages before it stay usable.
pub struct DumpReader<'a> {
    /// What is left to read.
    rest: &'a [u8],
    locator: Locator<'a>,
    header: DumpHeader,
    failed: bool,
}

/// Reads a whole dump file; the first error ends it.
pub fn parse_dump(input: &[u8]) -> Result<DumpFile, DumpError> {
    let mut reader = DumpReader::new(input)?;
    let mut messages = Vec::new();
    for m in reader.by_ref() {
        messages.push(m?);
    }
    Ok(DumpFile {
        header: reader.header,
        messages,
    })
}

/// The number of lines of `input` (a final `\n` ends the last line).
fn line_count(input: &[u8]) -> usize {
    fold_many0(line, || 0usize, |n, _| n + 1)
        .parse(input)
        .map_or(0, |(_, n)| n)
}

/// What a data line cannot be: the line at `at`, by its first character.
fn not_data(at: &[u8]) -> DumpErrorKind {
    match at.first() {
        None => DumpErrorKind::ExpectedData("the end of the file".into()),
        Some(&c) => DumpErrorKind::ExpectedData(format!("a line starting {:?}", char::from(c))),
    }
}

/// What an `A`/`N` line cannot be: the line at `at`, by its first character.
fn not_attribute(at: &[u8]) -> DumpErrorKind {
    DumpErrorKind::ExpectedAttribute(char::from(at.first().copied().unwrap_or(b' ')))
}

/// Line and column (1-based, the column in bytes) of places in the input,
/// walking forward from the last place asked for.
struct Locator<'a> {
    input: &'a [u8],
    offset: usize,
    line: usize,
    line_start: usize,
}

impl<'a> Locator<'a> {
    fn new(input: &'a [u8]) -> Self {
        Locator {
            input,
            offset: 0,
            line: 1,
            line_start: 0,
        }
    }

    /// Where `at`, a part of the input, starts.
    fn locate(&mut self, at: &[u8]) -> (usize, usize) {
        let offset = self.input.offset(at).min(self.input.len());
        if offset < self.offset {
            *self = Locator::new(self.input);
        }
        let walked = self.input.get(self.offset..offset).unwrap_or_default();
        for (k, _) in walked.iter().enumerate().filter(|(_, b)| **b == b'\n') {
            self.line += 1;
            self.line_start = self.offset + k + 1;
        }
        self.offset = offset;
        (self.line, offset - self.line_start + 1)
    }

    fn at(&mut self, at: &[u8], kind: DumpErrorKind) -> DumpError {
        let (line, column) = self.locate(at);
        DumpError { line, column, kind }
    }

    /// The error of a stopped parse. A stop that carries no reason of its own
    /// (a line that fit none of the rules tried) is named by `otherwise`.
    fn stopped(
        &mut self,
        e: nom::Err<Stop<'_>>,
        otherwise: impl FnOnce(&[u8]) -> DumpErrorKind,
    ) -> DumpError {
        let (at, why) = match e {
            nom::Err::Error(stop) | nom::Err::Failure(stop) => (stop.at, stop.why),
            nom::Err::Incomplete(_) => {
                (self.input.get(self.input.len()..).unwrap_or_default(), None)
            }
        };
        let kind = why.unwrap_or_else(|| otherwise(at));
        self.at(at, kind)
    }
}

impl<'a> DumpReader<'a> {
    /// Reads the header. Errors: [`DumpErrorKind::Empty`], [`DumpErrorKind::NotADumpFile`],
    /// [`DumpErrorKind::AmqsbcgNotSupported`] at the first non-blank line.
    pub fn new(input: &'a [u8]) -> Result<Self, DumpError> {
        let mut locator = Locator::new(input);
        let Ok((i, first)) = preceded(many0(blank_line), line).parse(input) else {
            // Blank lines only: the error is on the last of them.
            return Err(err(line_count(input).max(1), 1, DumpErrorKind::Empty));
        };
        let tool = alt((
            value(DumpTool::Qload, tag("* QLOAD")),
            value(DumpTool::Dmpmqmsg, tag("* DMPMQMSG")),
        ))
        .parse(first)
        .map_err(|_: nom::Err<Stop<'_>>| {
            let kind = if first.starts_with(b"AMQSBCG0") {
                DumpErrorKind::AmqsbcgNotSupported
            } else {
                DumpErrorKind::NotADumpFile
            };
            locator.at(first, kind)
        })?
        .1;
        let mut header = DumpHeader {
            tool,
            first_line: String::from_utf8_lossy(first).into_owned(),
            q_mgr_name: None,
            q_name: None,
        };
        // The header's own comments: consecutive `*` lines after the first one.
        let (rest, ()) = fold_many0(
            comment_line,
            || (),
            |(), l| {
                if let Some(v) = comment_value(l, "* Qmgr") {
                    header.q_mgr_name = Some(v);
                } else if let Some(v) = comment_value(l, "* Queue") {
                    header.q_name = Some(v);
                }
            },
        )
        .parse(i)
        .map_err(|e| locator.stopped(e, |_| DumpErrorKind::NotADumpFile))?;
        Ok(DumpReader {
            rest,
            locator,
            header,
            failed: false,
        })
    }

    /// The file header.
    pub fn header(&self) -> &DumpHeader {
        &self.header
    }

    /// The next message, `None` at the end of the input.
    fn read_message(&mut self) -> Result<Option<DumpMessage>, DumpError> {
        // Blank lines and comments before the message, keeping the last `* Index n`.
        let (i, index) = fold_many0(
            alt((
                map(blank_line, |_| None),
                map(index_line, Some),
                map(comment_line, |_| None),
            )),
            || None,
            |index, found| found.or(index),
        )
        .parse(self.rest)
        .map_err(|e| self.locator.stopped(e, not_attribute))?;
        self.rest = i;
        let Ok((i, first)) = content_line(i) else {
            return Ok(None);
        };
        let start = self.locator.locate(first).0;
        let (i, md) = match first.first() {
            Some(b'N') => (i, None),
            Some(b'A') => {
                let (i, more) = many0(preceded(filler, line_of(b"A")))
                    .parse(i)
                    .map_err(|e| self.locator.stopped(e, not_attribute))?;
                let mut md = Mqmd::default();
                for l in once(first).chain(more) {
                    attribute(&mut md, l).map_err(|e| {
                        self.locator.stopped(e, |_| DumpErrorKind::BadAttributeLine)
                    })?;
                }
                (i, Some(md))
            }
            _ => return Err(self.locator.at(first, not_attribute(first))),
        };
        let (i, lines) = self.data_lines(i, md.is_none())?;
        let mut data = Vec::new();
        for l in lines {
            match l.first() {
                Some(b'X') => hex_line(l, &mut data),
                Some(b'S') => string_line(l, &mut data),
                _ => text_line(l, &mut data),
            }
            .map_err(|e| self.locator.stopped(e, |_| not_data(l)))?;
        }
        self.rest = i;
        Ok(Some(DumpMessage {
            line: start,
            index,
            md,
            data: Bytes::from(data),
        }))
    }

    /// The `X`/`S`/`T` lines of a message (at least one; blank and comment
    /// lines between them are skipped) and the input after them.
    fn data_lines(
        &mut self,
        i: &'a [u8],
        no_md: bool,
    ) -> Result<(&'a [u8], Vec<&'a [u8]>), DumpError> {
        const DATA: &[u8] = b"XST";
        let found = many0(preceded(filler, line_of(DATA)))
            .parse(i)
            .map_err(|e| self.locator.stopped(e, not_data))?;
        if !found.1.is_empty() {
            return Ok(found);
        }
        // No data line: name what stands where the first one should be.
        let (at, ()) = filler(i).map_err(|e| self.locator.stopped(e, not_data))?;
        Err(match line(at) {
            // The end of the file is on the line after the last one.
            Err(_) => err(line_count(self.locator.input) + 1, 1, not_data(at)),
            Ok((_, l)) if index_comment(l).is_some() => self.locator.at(
                l,
                DumpErrorKind::ExpectedData(format!("{:?}", String::from_utf8_lossy(l))),
            ),
            Ok((_, l)) if no_md && l.starts_with(b"A") => {
                self.locator.at(l, DumpErrorKind::AttributeAfterNoMd)
            }
            Ok((_, l)) => self.locator.at(l, not_data(l)),
        })
    }
}

impl Iterator for DumpReader<'_> {
    type Item = Result<DumpMessage, DumpError>;

    fn next(&mut self) -> Option<Self::Item> {
        if self.failed {
            return None;
        }
        let item = self.read_message().transpose();
        if matches!(item, Some(Err(_))) {
            self.failed = true;
        }
        item
    }
}

fn err(line: usize, column: usize, kind: DumpErrorKind) -> DumpError {
    DumpError { line, column, kind }
}

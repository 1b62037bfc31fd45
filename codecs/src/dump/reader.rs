//! Reading dmpmqmsg/qload files (spec: mq-wire.md §B.1-B.3).
//!
//! Follows qload's loader (`ReadFileMessage` in `qloadfnc.c`): blank lines and
//! comments are skipped, a message is its `A`/`N` lines followed by consecutive
//! data lines, and the first line that is not a data line ends the message.
//! Stricter than the loader where it would silently drop data: unknown text
//! after hex or after a closing quote, over-long values and bad integers are
//! errors here. A trailing `\r` (CRLF files) is removed from every line.

use super::codes::{self, Slot};
use super::{DumpError, DumpErrorKind, DumpFile, DumpHeader, DumpMessage, DumpTool};
use crate::mq::Mqmd;
use bytes::Bytes;

/// Reads the messages of a dump file one at a time.
///
/// Each item is one message or the error that stopped the reading; after an
/// error the iterator ends, so the messages before it stay usable.
pub struct DumpReader<'a> {
    lines: Lines<'a>,
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

impl<'a> DumpReader<'a> {
    /// Reads the header. Errors: [`DumpErrorKind::Empty`], [`DumpErrorKind::NotADumpFile`],
    /// [`DumpErrorKind::AmqsbcgNotSupported`] at the first non-blank line.
    pub fn new(input: &'a [u8]) -> Result<Self, DumpError> {
        let mut lines = Lines::new(input);
        let (no, first) = loop {
            match lines.next() {
                None => return Err(err(lines.line_no.max(1), 1, DumpErrorKind::Empty)),
                Some((_, l)) if is_blank(l) => continue,
                Some(found) => break found,
            }
        };
        let tool = if first.starts_with(b"* QLOAD") {
            DumpTool::Qload
        } else if first.starts_with(b"* DMPMQMSG") {
            DumpTool::Dmpmqmsg
        } else if first.starts_with(b"AMQSBCG0") {
            return Err(err(no, 1, DumpErrorKind::AmqsbcgNotSupported));
        } else {
            return Err(err(no, 1, DumpErrorKind::NotADumpFile));
        };
        let mut header = DumpHeader {
            tool,
            first_line: String::from_utf8_lossy(first).into_owned(),
            q_mgr_name: None,
            q_name: None,
        };
        // The header's own comments: consecutive `*` lines after the first one.
        while let Some((_, l)) = lines.peek() {
            if !l.starts_with(b"*") || index_comment(l).is_some() {
                break;
            }
            if let Some(v) = comment_value(l, b"* Qmgr") {
                header.q_mgr_name = Some(v);
            } else if let Some(v) = comment_value(l, b"* Queue") {
                header.q_name = Some(v);
            }
            lines.next();
        }
        Ok(DumpReader {
            lines,
            header,
            failed: false,
        })
    }

    /// The file header.
    pub fn header(&self) -> &DumpHeader {
        &self.header
    }

    fn read_message(&mut self) -> Option<Result<DumpMessage, DumpError>> {
        let mut index = None;
        // Skip blank lines and comments, keeping a `* Index n`.
        let (start, first) = loop {
            let (no, l) = self.lines.next()?;
            if is_blank(l) {
                continue;
            }
            if l[0] == b'*' {
                if let Some(n) = index_comment(l) {
                    index = Some(n);
                }
                continue;
            }
            break (no, l);
        };
        let md = match first[0] {
            b'N' => None,
            b'A' => {
                let mut md = Mqmd::default();
                if let Err(e) = set_attribute(&mut md, start, first) {
                    return Some(Err(e));
                }
                while let Some((no, l)) = self.lines.peek_content() {
                    if l[0] != b'A' {
                        break;
                    }
                    if let Err(e) = set_attribute(&mut md, no, l) {
                        return Some(Err(e));
                    }
                    self.lines.next();
                }
                Some(md)
            }
            c => {
                return Some(Err(err(
                    start,
                    1,
                    DumpErrorKind::ExpectedAttribute(char::from(c)),
                )));
            }
        };
        let mut data = Vec::new();
        let mut lines_read = 0usize;
        while let Some((no, l)) = self.lines.peek_content() {
            let line = match l[0] {
                b'X' => hex_line(no, l, &mut data),
                b'S' => string_line(no, l, &mut data),
                b'T' => {
                    // `T <text>`: the text after one blank, plus the line end the
                    // file format dropped (spec: mq-wire.md §B.3).
                    data.extend_from_slice(l.get(2..).unwrap_or_default());
                    data.push(b'\n');
                    Ok(())
                }
                b'A' if md.is_none() && lines_read == 0 => {
                    Err(err(no, 1, DumpErrorKind::AttributeAfterNoMd))
                }
                c if lines_read == 0 => Err(err(
                    no,
                    1,
                    DumpErrorKind::ExpectedData(format!("a line starting {:?}", char::from(c))),
                )),
                _ => break,
            };
            if let Err(e) = line {
                return Some(Err(e));
            }
            self.lines.next();
            lines_read += 1;
        }
        if lines_read == 0 {
            let e = match self.lines.peek() {
                Some((no, l)) => err(
                    no,
                    1,
                    DumpErrorKind::ExpectedData(format!("{:?}", String::from_utf8_lossy(l))),
                ),
                None => err(
                    self.lines.line_no + 1,
                    1,
                    DumpErrorKind::ExpectedData("the end of the file".into()),
                ),
            };
            return Some(Err(e));
        }
        Some(Ok(DumpMessage {
            line: start,
            index,
            md,
            data: Bytes::from(data),
        }))
    }
}

impl Iterator for DumpReader<'_> {
    type Item = Result<DumpMessage, DumpError>;

    fn next(&mut self) -> Option<Self::Item> {
        if self.failed {
            return None;
        }
        let item = self.read_message();
        if matches!(item, Some(Err(_))) {
            self.failed = true;
        }
        item
    }
}

fn err(line: usize, column: usize, kind: DumpErrorKind) -> DumpError {
    DumpError { line, column, kind }
}

fn is_blank(l: &[u8]) -> bool {
    l.iter().all(|b| b.is_ascii_whitespace())
}

/// `n` of a `* Index n` line.
fn index_comment(l: &[u8]) -> Option<u64> {
    let rest = l.strip_prefix(b"* Index")?;
    std::str::from_utf8(rest).ok()?.trim().parse().ok()
}

/// The text after `=` of a header comment such as `* Qmgr  = QM1`.
fn comment_value(l: &[u8], prefix: &[u8]) -> Option<String> {
    let rest = l.strip_prefix(prefix)?;
    let eq = rest.iter().position(|&b| b == b'=')?;
    if !rest[..eq].iter().all(|&b| b == b' ') {
        return None;
    }
    Some(String::from_utf8_lossy(&rest[eq + 1..]).trim().to_owned())
}

/// The allowed values of `code` when `v` is not one of them: MQMD Version is
/// 1 or 2 (spec: mq-structures.md §4), CodedCharSetId is a CCSID or an MQCCSI
/// special value, none below -4 MQCCSI_AS_PUBLISHED (MQ docs: MQCCSI_*).
fn int_out_of_range(code: &str, v: i32) -> Option<&'static str> {
    match code {
        "VER" if !(1..=2).contains(&v) => Some("1 or 2"),
        "CCS" if v < -4 => Some("a CCSID or an MQCCSI special value (0, -1 to -4)"),
        _ => None,
    }
}

/// Applies one `A <CODE> <value>` line to `md` (spec: mq-wire.md §B.2).
fn set_attribute(md: &mut Mqmd, no: usize, l: &[u8]) -> Result<(), DumpError> {
    if l.len() < 5 || l[1] != b' ' {
        return Err(err(no, 1, DumpErrorKind::BadAttributeLine));
    }
    let code = String::from_utf8_lossy(&l[2..5]).into_owned();
    let Some((c, slot)) = codes::slot_mut(md, &code) else {
        return Err(err(no, 3, DumpErrorKind::UnknownCode(code)));
    };
    // An int field needs a number: an empty value would silently keep the default
    // (e.g. Encoding 546), hiding a damaged file (issue 2 fix list).
    if matches!(slot, Slot::Int(_)) && l.get(6..).is_none_or(|v| v.trim_ascii().is_empty()) {
        return Err(err(
            no,
            l.len().min(6) + 1,
            DumpErrorKind::BadInteger {
                code: c.code,
                field: c.field,
                value: String::new(),
            },
        ));
    }
    // No value (line ends after the code): the field keeps its default, as in qload.
    if l.len() <= 6 {
        if l.len() == 6 && l[5] != b' ' {
            return Err(err(no, 6, DumpErrorKind::BadAttributeLine));
        }
        return Ok(());
    }
    if l[5] != b' ' {
        return Err(err(no, 6, DumpErrorKind::BadAttributeLine));
    }
    let value = &l[6..];
    const VALUE_COLUMN: usize = 7;
    match slot {
        Slot::Int(target) => {
            let text = String::from_utf8_lossy(value);
            let v = text.trim().parse::<i32>().map_err(|_| {
                err(
                    no,
                    VALUE_COLUMN,
                    DumpErrorKind::BadInteger {
                        code: c.code,
                        field: c.field,
                        value: text.trim().to_owned(),
                    },
                )
            })?;
            if let Some(allowed) = int_out_of_range(c.code, v) {
                return Err(err(
                    no,
                    VALUE_COLUMN,
                    DumpErrorKind::OutOfRange {
                        code: c.code,
                        field: c.field,
                        value: v,
                        allowed,
                    },
                ));
            }
            *target = v;
        }
        Slot::Hex(target) => {
            let trimmed = trim_end_blanks(value);
            if !trimmed.len().is_multiple_of(2) {
                return Err(err(no, VALUE_COLUMN, DumpErrorKind::OddHex));
            }
            if trimmed.len() / 2 > target.len() {
                return Err(err(
                    no,
                    VALUE_COLUMN,
                    DumpErrorKind::ValueTooLong {
                        code: c.code,
                        field: c.field,
                        len: trimmed.len() / 2,
                        max: target.len(),
                    },
                ));
            }
            // A shorter value sets the leading bytes only, as qload's loader does.
            for (i, pair) in trimmed.chunks_exact(2).enumerate() {
                let col = VALUE_COLUMN + 2 * i;
                target[i] = hex_digit(pair[0], no, col)? << 4 | hex_digit(pair[1], no, col + 1)?;
            }
        }
        Slot::Char(target) => {
            // Longer than the field is fine only when the extra bytes are blanks.
            let n = target.len();
            if value.len() > n && !value[n..].iter().all(|&b| b == b' ') {
                return Err(err(
                    no,
                    VALUE_COLUMN,
                    DumpErrorKind::ValueTooLong {
                        code: c.code,
                        field: c.field,
                        len: trim_end_blanks(value).len(),
                        max: n,
                    },
                ));
            }
            let take = value.len().min(n);
            target[..take].copy_from_slice(&value[..take]);
            target[take..].fill(b' ');
        }
    }
    Ok(())
}

fn trim_end_blanks(v: &[u8]) -> &[u8] {
    let end = v.iter().rposition(|&b| b != b' ').map_or(0, |p| p + 1);
    &v[..end]
}

fn hex_value(b: u8) -> Option<u8> {
    match b {
        b'0'..=b'9' => Some(b - b'0'),
        b'A'..=b'F' => Some(b - b'A' + 10),
        b'a'..=b'f' => Some(b - b'a' + 10),
        _ => None,
    }
}

fn hex_digit(b: u8, no: usize, col: usize) -> Result<u8, DumpError> {
    hex_value(b).ok_or_else(|| err(no, col, DumpErrorKind::BadHex(char::from(b))))
}

/// `X <hex>[ <ascii column>]`: hex pairs up to the first blank (spec: mq-wire.md §B.3).
fn hex_line(no: usize, l: &[u8], out: &mut Vec<u8>) -> Result<(), DumpError> {
    let mut i = 1;
    while l.get(i) == Some(&b' ') {
        i += 1;
    }
    while i < l.len() {
        let Some(hi) = hex_value(l[i]) else { break };
        let Some(&b2) = l.get(i + 1) else {
            return Err(err(no, i + 1, DumpErrorKind::OddHex));
        };
        let lo = hex_digit(b2, no, i + 2)?;
        out.push(hi << 4 | lo);
        i += 2;
    }
    // What may follow: blanks, then dmpmqmsg's `-da` ASCII column `<…>`.
    let hex_end = i;
    while l.get(i) == Some(&b' ') {
        i += 1;
    }
    match l.get(i) {
        None => Ok(()),
        Some(b'<') if i > hex_end => Ok(()),
        Some(&c) => Err(err(no, i + 1, DumpErrorKind::TextAfterHex(char::from(c)))),
    }
}

/// `S "<text>"` with `~` escaping `"` and `~`; an unquoted value is taken up to
/// its trailing blanks (qload's loader accepts that form too).
fn string_line(no: usize, l: &[u8], out: &mut Vec<u8>) -> Result<(), DumpError> {
    let mut i = 1;
    while l.get(i) == Some(&b' ') {
        i += 1;
    }
    if l.get(i) != Some(&b'"') {
        out.extend_from_slice(trim_end_blanks(&l[i..]));
        return Ok(());
    }
    i += 1;
    loop {
        match l.get(i) {
            None => return Err(err(no, i + 1, DumpErrorKind::UnterminatedString)),
            Some(b'"') => break,
            Some(b'~') => match l.get(i + 1) {
                Some(&c @ (b'"' | b'~')) => {
                    out.push(c);
                    i += 2;
                }
                Some(&c) => return Err(err(no, i + 1, DumpErrorKind::BadEscape(char::from(c)))),
                None => return Err(err(no, i + 1, DumpErrorKind::UnterminatedString)),
            },
            Some(&c) => {
                out.push(c);
                i += 1;
            }
        }
    }
    i += 1;
    match l[i..].iter().position(|&b| b != b' ') {
        None => Ok(()),
        Some(p) => Err(err(
            no,
            i + p + 1,
            DumpErrorKind::TextAfterString(char::from(l[i + p])),
        )),
    }
}

/// Lines of the input with 1-based numbers, `\n` and a trailing `\r` removed.
struct Lines<'a> {
    rest: Option<&'a [u8]>,
    line_no: usize,
}

impl<'a> Lines<'a> {
    fn new(input: &'a [u8]) -> Self {
        Lines {
            rest: Some(input),
            line_no: 0,
        }
    }

    fn split(rest: &'a [u8]) -> (&'a [u8], Option<&'a [u8]>) {
        match rest.iter().position(|&b| b == b'\n') {
            Some(p) => (&rest[..p], Some(&rest[p + 1..])),
            None => (rest, None),
        }
    }

    fn strip_cr(l: &[u8]) -> &[u8] {
        l.strip_suffix(b"\r").unwrap_or(l)
    }

    fn peek(&self) -> Option<(usize, &'a [u8])> {
        let rest = self.rest?;
        if rest.is_empty() {
            return None;
        }
        Some((self.line_no + 1, Self::strip_cr(Self::split(rest).0)))
    }

    /// Skips blank lines and comments other than `* Index`, then peeks.
    fn peek_content(&mut self) -> Option<(usize, &'a [u8])> {
        loop {
            let (no, l) = self.peek()?;
            if is_blank(l) || (l[0] == b'*' && index_comment(l).is_none()) {
                self.next();
                continue;
            }
            if l[0] == b'*' {
                return None;
            }
            return Some((no, l));
        }
    }
}

impl<'a> Iterator for Lines<'a> {
    type Item = (usize, &'a [u8]);

    fn next(&mut self) -> Option<Self::Item> {
        let rest = self.rest?;
        if rest.is_empty() {
            self.rest = None;
            return None;
        }
        let (line, rest) = Self::split(rest);
        self.rest = rest;
        self.line_no += 1;
        Some((self.line_no, Self::strip_cr(line)))
    }
}

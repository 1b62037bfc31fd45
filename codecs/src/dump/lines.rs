//! nom parsers for the lines of a dmpmqmsg/qload file (the line forms of
//! `WriteFile*`/`ReadFileMessage` in the qload source, ibm-messaging/mq-q-qload
//! `qloadfnc.c`), each over one line without its line end. An error holds the remaining
//! input where it was found; the reader turns that into line and column.

use nom::branch::alt;
use nom::bytes::complete::{tag, take, take_till, take_till1, take_while};
use nom::character::complete::anychar;
use nom::combinator::{eof, map, map_opt, not, opt, rest, verify};
use nom::error::{ErrorKind, ParseError};
use nom::multi::{count, fold_many0};
use nom::sequence::{preceded, terminated};
use nom::{IResult, Parser};

use super::DumpErrorKind;
use super::codes::{self, Slot};
use crate::mq::Mqmd;

/// Where a rule stopped, and why when the reading cannot go on (nom's own
/// mismatches between alternatives carry no reason).
#[derive(Debug)]
pub(super) struct Stop<'a> {
    /// The input from where the problem is: its offset gives line and column.
    pub(super) at: &'a [u8],
    pub(super) why: Option<DumpErrorKind>,
}

impl<'a> ParseError<&'a [u8]> for Stop<'a> {
    fn from_error_kind(at: &'a [u8], _: ErrorKind) -> Self {
        Stop { at, why: None }
    }

    fn append(_: &'a [u8], _: ErrorKind, other: Self) -> Self {
        other
    }
}

pub(super) type Parsed<'a, O> = IResult<&'a [u8], O, Stop<'a>>;

/// The outcome of decoding one line.
pub(super) type Decoded<'a> = Result<(), nom::Err<Stop<'a>>>;

/// A stop that ends the reading: `why` found at `at`.
pub(super) fn fail<'a>(at: &'a [u8], why: DumpErrorKind) -> nom::Err<Stop<'a>> {
    nom::Err::Failure(Stop { at, why: Some(why) })
}

// ---- lines ----

/// One line: the bytes before `\n`, without a trailing `\r` (CRLF files).
/// Fails at the end of the input, so a final `\n` ends the last line rather
/// than starting an empty one.
pub(super) fn line(i: &[u8]) -> Parsed<'_, &[u8]> {
    map(
        terminated(
            preceded(not(eof), take_till(|b| b == b'\n')),
            opt(tag("\n")),
        ),
        |l: &[u8]| l.strip_suffix(b"\r").unwrap_or(l),
    )
    .parse(i)
}

/// A line of blanks only (ASCII whitespace).
pub(super) fn blank_line(i: &[u8]) -> Parsed<'_, &[u8]> {
    verify(line, |l: &[u8]| l.trim_ascii().is_empty()).parse(i)
}

/// `n` of a `* Index n` line (dmpmqmsg `-di`).
pub(super) fn index_comment(l: &[u8]) -> Option<u64> {
    let (n, _) = tag::<_, _, Stop<'_>>("* Index").parse(l).ok()?;
    std::str::from_utf8(n).ok()?.trim().parse().ok()
}

/// A `* Index n` line: `n`.
pub(super) fn index_line(i: &[u8]) -> Parsed<'_, u64> {
    map_opt(line, index_comment).parse(i)
}

/// A `*` comment line other than `* Index n`.
pub(super) fn comment_line(i: &[u8]) -> Parsed<'_, &[u8]> {
    verify(line, |l: &[u8]| {
        l.starts_with(b"*") && index_comment(l).is_none()
    })
    .parse(i)
}

/// Blank and comment lines (not `* Index`), which may stand anywhere in a message.
pub(super) fn filler(i: &[u8]) -> Parsed<'_, ()> {
    fold_many0(alt((blank_line, comment_line)), || (), |(), _| ()).parse(i)
}

/// A line that is neither blank nor a comment.
pub(super) fn content_line(i: &[u8]) -> Parsed<'_, &[u8]> {
    verify(line, |l: &[u8]| {
        !l.trim_ascii().is_empty() && !l.starts_with(b"*")
    })
    .parse(i)
}

/// A content line whose first character is one of `first`.
pub(super) fn line_of<'a>(
    first: &'static [u8],
) -> impl Parser<&'a [u8], Output = &'a [u8], Error = Stop<'a>> {
    verify(content_line, move |l: &[u8]| {
        l.first().is_some_and(|b| first.contains(b))
    })
}

/// The value after `=` of a header comment such as `* Qmgr  = QM1` (only
/// blanks between the name and `=`), trimmed.
pub(super) fn comment_value(l: &[u8], name: &str) -> Option<String> {
    let (value, _) = (
        tag::<_, _, Stop<'_>>(name),
        take_while(|b| b == b' '),
        tag("="),
    )
        .parse(l)
        .ok()?;
    Some(String::from_utf8_lossy(value).trim().to_owned())
}

// ---- hex ----

/// One hex digit (either case).
fn nibble(i: &[u8]) -> Parsed<'_, u8> {
    map_opt(anychar, |c| {
        c.to_digit(16).and_then(|d| u8::try_from(d).ok())
    })
    .parse(i)
}

/// A digit of an `A` hex value: anything else is an error at it.
fn strict_nibble(i: &[u8]) -> Parsed<'_, u8> {
    nibble(i).map_err(|_| match i.first() {
        Some(&b) => fail(i, DumpErrorKind::BadHex(char::from(b))),
        None => fail(i, DumpErrorKind::OddHex),
    })
}

/// A byte of an `A` hex value: two digits.
fn strict_hex_byte(i: &[u8]) -> Parsed<'_, u8> {
    map((strict_nibble, strict_nibble), |(hi, lo)| hi << 4 | lo).parse(i)
}

/// A byte of an `X` line: a non-hex first digit ends the hex (a mismatch);
/// a first digit with nothing after it is odd hex at that digit, a non-hex
/// second digit is bad hex at it.
fn hex_byte(i: &[u8]) -> Parsed<'_, u8> {
    let (after_hi, hi) = nibble(i)?;
    let (r, lo) = nibble(after_hi).map_err(|_| match after_hi.first() {
        Some(&b) => fail(after_hi, DumpErrorKind::BadHex(char::from(b))),
        None => fail(i, DumpErrorKind::OddHex),
    })?;
    Ok((r, hi << 4 | lo))
}

/// Blanks (`' '` only, as the loader skips them).
fn blanks(i: &[u8]) -> Parsed<'_, &[u8]> {
    take_while(|b| b == b' ').parse(i)
}

fn trim_end_blanks(v: &[u8]) -> &[u8] {
    let end = v.iter().rposition(|&b| b != b' ').map_or(0, |p| p + 1);
    v.get(..end).unwrap_or_default()
}

// ---- data lines ----

/// `X <hex>[ <ascii column>]`: hex pairs after the blanks up to the first
/// non-hex character, then only blanks, or blanks and dmpmqmsg's `-da` ASCII
/// column `<…>` (qload's loader stops at the first non-hex character).
pub(super) fn hex_line<'a>(l: &'a [u8], out: &mut Vec<u8>) -> Decoded<'a> {
    let (i, _) = (tag("X"), blanks).parse(l)?;
    let (i, ()) = fold_many0(hex_byte, || (), |(), b| out.push(b)).parse(i)?;
    let (after, gap) = blanks(i)?;
    match after.first() {
        None => Ok(()),
        Some(b'<') if !gap.is_empty() => Ok(()),
        Some(&c) => Err(fail(after, DumpErrorKind::TextAfterHex(char::from(c)))),
    }
}

/// `S "<text>"` with `~` escaping `"` and `~`; an unquoted value is taken up
/// to its trailing blanks (qload's loader accepts that form too).
pub(super) fn string_line<'a>(l: &'a [u8], out: &mut Vec<u8>) -> Decoded<'a> {
    let (i, _) = (tag("S"), blanks).parse(l)?;
    let Ok((body, _)) = tag::<_, _, Stop<'_>>("\"").parse(i) else {
        out.extend_from_slice(trim_end_blanks(i));
        return Ok(());
    };
    let (end, ()) = fold_many0(
        alt((
            take_till1(|b| b == b'"' || b == b'~'),
            preceded(tag("~"), alt((tag("\""), tag("~")))),
        )),
        || (),
        |(), piece| out.extend_from_slice(piece),
    )
    .parse(body)?;
    // What stopped the text: the closing quote, a bad escape, or the line end.
    let (after, _) = tag("\"")
        .parse(end)
        .map_err(|_: nom::Err<Stop<'_>>| match end {
            [b'~', c, ..] => fail(end, DumpErrorKind::BadEscape(char::from(*c))),
            _ => fail(end, DumpErrorKind::UnterminatedString),
        })?;
    let (after, _) = blanks(after)?;
    match after.first() {
        None => Ok(()),
        Some(&c) => Err(fail(after, DumpErrorKind::TextAfterString(char::from(c)))),
    }
}

/// `T <text>`: the text after the character following `T`, plus the line end
/// the file format dropped (qload's `ReadFileMessage` appends `\n` to each `T`
/// line).
pub(super) fn text_line<'a>(l: &'a [u8], out: &mut Vec<u8>) -> Decoded<'a> {
    let (_, text) = preceded((tag("T"), opt(take(1usize))), rest).parse(l)?;
    out.extend_from_slice(text);
    out.push(b'\n');
    Ok(())
}

// ---- A lines ----

/// The allowed values of `code` when `v` is not one of them: MQMD Version is 1
/// or 2 (IBM MQ "MQMD - Message descriptor"), CodedCharSetId is a CCSID or an
/// MQCCSI special value, none below -4 MQCCSI_AS_PUBLISHED (MQ docs: MQCCSI_*).
fn int_out_of_range(code: &str, v: i32) -> Option<&'static str> {
    match code {
        "VER" if !(1..=2).contains(&v) => Some("1 or 2"),
        "CCS" if v < -4 => Some("a CCSID or an MQCCSI special value (0, -1 to -4)"),
        _ => None,
    }
}

/// Applies one `A <CODE> <value>` line to `md` (qload's `WriteFileMQMD` form):
/// the code in columns 3-5, the value from column 7.
pub(super) fn attribute<'a>(md: &mut Mqmd, l: &'a [u8]) -> Decoded<'a> {
    let (after_code, code) = preceded(tag("A "), take(3usize))
        .parse(l)
        .map_err(|_: nom::Err<Stop<'_>>| fail(l, DumpErrorKind::BadAttributeLine))?;
    let name = String::from_utf8_lossy(code).into_owned();
    let Some((c, slot)) = codes::slot_mut(md, &name) else {
        return Err(fail(code, DumpErrorKind::UnknownCode(name)));
    };
    // The byte after the code (a blank when well formed), then the value.
    let (value, separator) = opt(take(1usize)).parse(after_code)?;
    // An int field needs a number: an empty value would silently keep the
    // default (e.g. Encoding 546), hiding a damaged file.
    if matches!(slot, Slot::Int(_)) && value.trim_ascii().is_empty() {
        return Err(fail(
            value,
            DumpErrorKind::BadInteger {
                code: c.code,
                field: c.field,
                value: String::new(),
            },
        ));
    }
    match separator {
        None | Some(b" ") => {}
        Some(_) => return Err(fail(after_code, DumpErrorKind::BadAttributeLine)),
    }
    // No value (the line ends after the code): the field keeps its default, as in qload.
    if value.is_empty() {
        return Ok(());
    }
    match slot {
        Slot::Int(target) => {
            let text = String::from_utf8_lossy(value);
            let v = text.trim().parse::<i32>().map_err(|_| {
                fail(
                    value,
                    DumpErrorKind::BadInteger {
                        code: c.code,
                        field: c.field,
                        value: text.trim().to_owned(),
                    },
                )
            })?;
            if let Some(allowed) = int_out_of_range(c.code, v) {
                return Err(fail(
                    value,
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
            let digits = trim_end_blanks(value);
            if !digits.len().is_multiple_of(2) {
                return Err(fail(value, DumpErrorKind::OddHex));
            }
            let n = digits.len() / 2;
            if n > target.len() {
                return Err(fail(
                    value,
                    DumpErrorKind::ValueTooLong {
                        code: c.code,
                        field: c.field,
                        len: n,
                        max: target.len(),
                    },
                ));
            }
            let (_, bytes) = count(strict_hex_byte, n).parse(digits)?;
            // A shorter value sets the leading bytes only, as qload's loader does.
            for (t, b) in target.iter_mut().zip(bytes) {
                *t = b;
            }
        }
        Slot::Char(target) => {
            // Longer than the field is fine only when the extra bytes are blanks.
            let n = target.len();
            let (extra, text) = take(n.min(value.len())).parse(value)?;
            if !extra.iter().all(|&b| b == b' ') {
                return Err(fail(
                    value,
                    DumpErrorKind::ValueTooLong {
                        code: c.code,
                        field: c.field,
                        len: trim_end_blanks(value).len(),
                        max: n,
                    },
                ));
            }
            let (head, tail) = target.split_at_mut(text.len());
            head.copy_from_slice(text);
            tail.fill(b' ');
        }
    }
    Ok(())
}

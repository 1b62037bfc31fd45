//! The lines of a group initialization file, read with nom: blank and comment
//! lines dropped, `%SECTION` / `%EOS` lines told apart, every other line split
//! into whitespace-separated words with their positions.
//!
//! Comments: `!` to the end of any line; a line whose first non-blank
//! character is `*`; a line of `-` and blanks only (the rulers under the
//! column titles of the Programmer's Guide's Listing 3-1). After `%NAME` a
//! banner starting with `*` (`%SBS ***** SBS Server Initialization *****`).

use nom::bytes::complete::{take_till1, take_while};
use nom::{IResult, Parser};

use super::error::{InitFileError, InitFileErrorKind, Pos};

/// One word of a line and where it starts.
#[derive(Clone, Debug, PartialEq, Eq)]
pub(crate) struct Word<'a> {
    /// The text.
    pub text: &'a str,
    /// Its position.
    pub pos: Pos,
}

/// A line that carries something.
#[derive(Clone, Debug, PartialEq, Eq)]
pub(crate) enum Line<'a> {
    /// `%NAME` (the name without `%`, as written).
    Section { name: &'a str, pos: Pos },
    /// `%EOS`.
    Eos { pos: Pos },
    /// The words of an entry line (never empty).
    Words(Vec<Word<'a>>),
}

fn blanks(i: &str) -> IResult<&str, &str> {
    take_while(|c: char| c.is_whitespace()).parse(i)
}

fn word(i: &str) -> IResult<&str, &str> {
    take_till1(|c: char| c.is_whitespace() || c == '!').parse(i)
}

/// The words of one line (without its line end), each with its byte offset
/// (`line.len() - rest.len()` where the word starts); what is left after the
/// last word is empty or a `!` comment.
fn words(line: &str) -> Vec<(usize, &str)> {
    let mut out = Vec::new();
    let mut rest = line;
    loop {
        let at = blanks(rest).map_or(rest, |(r, _)| r);
        match word(at) {
            Ok((after, w)) => {
                out.push((line.len() - at.len(), w));
                rest = after;
            }
            Err(_) => return out,
        }
    }
}

fn column(line: &str, offset: usize) -> usize {
    line.get(..offset).map_or(0, |s| s.chars().count()) + 1
}

fn is_ruler(line: &str) -> bool {
    line.contains('-') && line.chars().all(|c| c == '-' || c.is_whitespace())
}

/// The meaningful lines of `text`, with 1-based positions.
///
/// Errors: `BadSectionName` for `%` without a name, `TextAfterHeader` for a
/// word after `%NAME` / `%EOS` that is no `*` banner.
pub(crate) fn lines(text: &str) -> Result<Vec<Line<'_>>, InitFileError> {
    let text = text.strip_prefix('\u{FEFF}').unwrap_or(text);
    let mut out = Vec::new();
    for (index, raw) in text.split('\n').enumerate() {
        let number = index + 1;
        let line = raw.strip_suffix('\r').unwrap_or(raw);
        if line.trim_start().starts_with('*') || is_ruler(line) {
            continue;
        }
        let ws = words(line);
        let Some(&(first_off, first)) = ws.first() else {
            continue;
        };
        let pos_of = |off: usize| Pos {
            line: number,
            column: column(line, off),
        };
        let Some(name) = first.strip_prefix('%') else {
            out.push(Line::Words(
                ws.iter()
                    .map(|&(off, text)| Word {
                        text,
                        pos: pos_of(off),
                    })
                    .collect(),
            ));
            continue;
        };
        let pos = pos_of(first_off);
        if name.is_empty() || !name.chars().all(|c| c.is_ascii_alphanumeric() || c == '_') {
            return Err(InitFileError::new(
                pos,
                InitFileErrorKind::BadSectionName {
                    found: first.chars().take(40).collect(),
                },
            ));
        }
        if let Some(&(off, next)) = ws.get(1)
            && !next.starts_with('*')
        {
            return Err(InitFileError::new(
                pos_of(off),
                InitFileErrorKind::TextAfterHeader {
                    found: next.chars().take(40).collect(),
                },
            ));
        }
        out.push(if name.eq_ignore_ascii_case("EOS") {
            Line::Eos { pos }
        } else {
            Line::Section { name, pos }
        });
    }
    Ok(out)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn p(line: usize, column: usize) -> Pos {
        Pos { line, column }
    }

    #[test]
    fn comments_banners_and_columns() {
        let text = "! head\n%GNT  ***** Group Name Table *****\r\n* comment\n--- ----\n  Alarm_events\t0.5110 G ! bus-wide\n%eos\n";
        let l = lines(text).unwrap();
        assert_eq!(
            l,
            [
                Line::Section {
                    name: "GNT",
                    pos: p(2, 1)
                },
                Line::Words(vec![
                    Word {
                        text: "Alarm_events",
                        pos: p(5, 3)
                    },
                    Word {
                        text: "0.5110",
                        pos: p(5, 16)
                    },
                    Word {
                        text: "G",
                        pos: p(5, 23)
                    },
                ]),
                Line::Eos { pos: p(6, 1) },
            ]
        );
    }

    #[test]
    fn header_faults() {
        assert_eq!(lines("%\n").unwrap_err().pos, p(1, 1));
        let e = lines("%QCT extra\n").unwrap_err();
        assert_eq!(e.pos, p(1, 6));
        assert!(matches!(e.kind, InitFileErrorKind::TextAfterHeader { .. }));
        assert_eq!(lines("\u{FEFF}%Q-X\n").unwrap_err().pos, p(1, 1));
    }

    #[test]
    fn columns_count_characters() {
        let l = lines("Ä é x").unwrap();
        let Line::Words(w) = &l[0] else { panic!() };
        assert_eq!(w[2].pos, p(1, 5));
    }
}

//! Line and column of a place in the IDL text, from its byte offset.
//!
//! The nom parsers pass the rest of the text along; a place is that rest, so
//! its byte offset is `text.len() - rest.len()`. Lines end at `\n` (a `\r`
//! counts as a column); columns count characters, not bytes; both start at 1.

use std::cell::Cell;

use super::ast::Position;

/// Turns places in one text into [`Position`]s.
///
/// The parser asks for places in text order, so each answer continues counting
/// from the one before; a place before the last one asked counts from the
/// start again. The whole parse is thereby linear in the text length.
#[derive(Debug)]
pub(crate) struct Positions<'a> {
    text: &'a str,
    /// The last place asked: byte offset, lines and columns before it (0-based).
    last: Cell<(usize, usize, usize)>,
}

fn one_based(n: usize) -> u32 {
    u32::try_from(n.saturating_add(1)).unwrap_or(u32::MAX)
}

impl<'a> Positions<'a> {
    /// Positions in `text` (a byte order mark already removed).
    pub(crate) fn new(text: &'a str) -> Self {
        Positions {
            text,
            last: Cell::new((0, 0, 0)),
        }
    }

    /// The position where `rest`, a suffix of the text, starts.
    pub(crate) fn of(&self, rest: &str) -> Position {
        let offset = self.text.len().saturating_sub(rest.len());
        let (mut from, mut line, mut column) = self.last.get();
        if offset < from {
            (from, line, column) = (0, 0, 0);
        }
        let passed = self.text.get(from..offset).unwrap_or("");
        match passed.rfind('\n') {
            Some(last_newline) => {
                line += passed.bytes().filter(|&b| b == b'\n').count();
                column = passed
                    .get(last_newline + 1..)
                    .map_or(0, |s| s.chars().count());
            }
            None => column += passed.chars().count(),
        }
        self.last.set((offset, line, column));
        Position {
            line: one_based(line),
            column: one_based(column),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn at(line: u32, column: u32) -> Position {
        Position { line, column }
    }

    #[test]
    fn columns_count_characters_and_lines_end_at_line_feed() {
        // "ü" is two bytes but one column; "\r" is a column of its own.
        let text = "aü b\r\n  c\nd";
        let p = Positions::new(text);
        assert_eq!(p.of(text), at(1, 1));
        assert_eq!(p.of(&text[4..]), at(1, 4)); // 'b'
        assert_eq!(p.of(&text[5..]), at(1, 5)); // '\r'
        assert_eq!(p.of(&text[9..]), at(2, 3)); // 'c'
        assert_eq!(p.of(&text[11..]), at(3, 1)); // 'd'
        assert_eq!(p.of(""), at(3, 2)); // end of text
    }

    #[test]
    fn an_earlier_place_after_a_later_one_is_still_right() {
        let text = "ab\ncd\nef";
        let p = Positions::new(text);
        assert_eq!(p.of(&text[7..]), at(3, 2));
        assert_eq!(p.of(&text[1..]), at(1, 2));
        assert_eq!(p.of(&text[4..]), at(2, 2));
        assert_eq!(p.of(&text[4..]), at(2, 2));
    }
}

//! Shared by the text-parser fuzz targets: where a 1-based line and
//! character column falls in a text (lines end at `\n`).

/// A text with the byte offset of each line's start.
pub struct Lines<'a> {
    text: &'a str,
    starts: Vec<usize>,
}

impl<'a> Lines<'a> {
    pub fn new(text: &'a str) -> Self {
        let mut starts = vec![0];
        starts.extend(text.match_indices('\n').map(|(i, _)| i + 1));
        Lines { text, starts }
    }

    /// The rest of the text from `line`:`column`, or `None` when that place
    /// is not in the text. The column just after a line's last character is
    /// in the text (an error at the end of a line or of the input names it).
    pub fn at(&self, line: usize, column: usize) -> Option<&'a str> {
        let start = *self.starts.get(line.checked_sub(1)?)?;
        let this = &self.text[start..];
        let this_line = this.split('\n').next().unwrap_or("");
        let skip = column.checked_sub(1)?;
        match this_line.char_indices().nth(skip) {
            Some((i, _)) => Some(&this[i..]),
            None if skip == this_line.chars().count() => Some(&this[this_line.len()..]),
            None => None,
        }
    }
}

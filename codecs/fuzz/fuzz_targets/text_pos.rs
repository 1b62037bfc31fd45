//! Shared by the text-parser fuzz targets: where a 1-based line and
//! character column falls in a text (lines end at `\n`).

/// The rest of `text` from `line`:`column`, or `None` when that place is
/// not in the text. The column just after a line's last character is in
/// the text (an error at the end of a line or of the input names it).
pub fn at(text: &str, line: usize, column: usize) -> Option<&str> {
    if line == 0 || column == 0 {
        return None;
    }
    let mut start = 0;
    for _ in 1..line {
        start += text[start..].find('\n')? + 1;
    }
    let this = &text[start..];
    let this_line = this.split('\n').next().unwrap_or("");
    let skip = column - 1;
    if skip > this_line.chars().count() {
        return None;
    }
    let off = this.char_indices().nth(skip).map_or(this.len(), |(i, _)| i);
    Some(&this[off..])
}

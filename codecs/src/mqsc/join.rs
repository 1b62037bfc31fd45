//! Physical lines into commands (IBM MQ "MQSC input file syntax").

use super::{MqscError, MqscErrorKind};

/// One command as a single string, with where each of its characters was.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Logical {
    /// The command text, continuation characters removed.
    pub text: String,
    /// For each character of `text`, its 1-based (line, column) in the script.
    pub places: Vec<(usize, usize)>,
}

impl Logical {
    /// The (line, column) of the character at char index `index`; the end
    /// of the command for an index past it.
    pub fn place(&self, index: usize) -> (usize, usize) {
        match self.places.get(index) {
            Some(p) => *p,
            None => self
                .places
                .last()
                .map_or((1, 1), |&(line, column)| (line, column + 1)),
        }
    }
}

/// Joins the lines of `text` into commands: comments (`*` in the first
/// position) and blank lines are dropped, also inside a continued command;
/// a last non-blank `+` continues with the next line's first non-blank
/// character, a `-` with the next line's first character; `;` ends a
/// command (a trailing one is dropped). A `\r` before a line end is ignored.
///
/// Errors: [`MqscErrorKind::ContinuedAtEnd`] when the script ends on a
/// continuation character.
pub fn join(text: &str) -> Result<Vec<Logical>, MqscError> {
    let mut out = Vec::new();
    let mut cur = Logical {
        text: String::new(),
        places: Vec::new(),
    };
    // The continuation the previous line ended with, and where.
    let mut pending: Option<(char, usize, usize)> = None;
    for (n, raw) in text.split('\n').enumerate() {
        let line_no = n + 1;
        let line = raw.strip_suffix('\r').unwrap_or(raw);
        if line.starts_with('*') || line.trim().is_empty() {
            continue;
        }
        let body = line.trim_end();
        let (body, cont) = match body.chars().last() {
            Some(c @ ('+' | '-')) => (&body[..body.len() - 1], Some(c)),
            _ => (body, None),
        };
        let skip = match pending {
            Some(('+', _, _)) => body.len() - body.trim_start().len(),
            _ => 0,
        };
        for (col, ch) in body.char_indices().filter(|(i, _)| *i >= skip) {
            let column = body[..col].chars().count() + 1;
            cur.text.push(ch);
            cur.places.push((line_no, column));
        }
        match cont {
            Some(c) => pending = Some((c, line_no, body.chars().count() + 1)),
            None => {
                pending = None;
                let t = cur.text.trim_end_matches([' ', ';']);
                if !t.trim().is_empty() {
                    let keep = t.chars().count();
                    cur.text = t.to_string();
                    cur.places.truncate(keep);
                    out.push(std::mem::replace(
                        &mut cur,
                        Logical {
                            text: String::new(),
                            places: Vec::new(),
                        },
                    ));
                } else {
                    cur.text.clear();
                    cur.places.clear();
                }
            }
        }
    }
    if let Some((c, line, column)) = pending {
        return Err(MqscError {
            line,
            column,
            kind: MqscErrorKind::ContinuedAtEnd(c),
        });
    }
    Ok(out)
}

//! Parameters → fixed-position text (docs/rpc.md); the way back is
//! in [`super::unmarshal`].
//!
//! Widths count characters; the service converts the text to the payload's
//! CCSID afterwards (so `An` is n bytes in a single-byte CCSID).

use std::fmt;

use super::ast::{Format, NumericSpec};
use super::layout::{Element, LayoutNode, Shape, TextLayout, Width};
use super::value::{Date, Decimal, Record, Timestamp, Value};

/// Why values cannot become text, or text cannot become values.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct MarshalError {
    /// Path of the value, e.g. `PERSON.PHONES[2]`.
    pub path: String,
    /// Character offset in the payload where the field starts.
    pub offset: usize,
    /// What was wrong.
    pub kind: MarshalErrorKind,
}

/// What was wrong with a value or a piece of payload.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum MarshalErrorKind {
    /// The value has another type than the format needs.
    WrongType {
        /// The value type the format needs.
        expected: &'static str,
    },
    /// Text longer than the field.
    TooLong {
        /// Characters allowed.
        max: usize,
        /// Characters given.
        found: usize,
    },
    /// A number, date or time that does not fit the format.
    OutOfRange {
        /// The value as text.
        value: String,
        /// The format.
        format: String,
    },
    /// More array elements than the array holds.
    TooManyElements {
        /// Elements allowed.
        max: usize,
        /// Elements given.
        found: usize,
    },
    /// The payload ends inside this field.
    ShortPayload {
        /// Characters the field needs.
        needed: usize,
        /// Characters left.
        left: usize,
    },
    /// Characters that are not valid for the format (e.g. a letter in I4).
    BadText {
        /// The field's text.
        text: String,
        /// The format.
        format: String,
    },
    /// Characters left after the last fixed-length value.
    TrailingData {
        /// Characters left.
        left: usize,
    },
    /// The rest of an unbounded array is not a whole number of elements.
    PartialElement {
        /// Characters per element.
        element_length: usize,
        /// Characters left.
        left: usize,
    },
}

impl fmt::Display for MarshalError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{} at offset {}: ", self.path, self.offset)?;
        match &self.kind {
            MarshalErrorKind::WrongType { expected } => write!(f, "expected {expected}"),
            MarshalErrorKind::TooLong { max, found } => {
                write!(f, "{found} characters, at most {max} allowed")
            }
            MarshalErrorKind::OutOfRange { value, format } => {
                write!(f, "{value} does not fit format {format}")
            }
            MarshalErrorKind::TooManyElements { max, found } => {
                write!(f, "{found} elements, at most {max} allowed")
            }
            MarshalErrorKind::ShortPayload { needed, left } => write!(
                f,
                "payload ends: the field needs {needed} characters, {left} left"
            ),
            MarshalErrorKind::BadText { text, format } => {
                write!(f, "{text:?} is not valid text for format {format}")
            }
            MarshalErrorKind::TrailingData { left } => {
                write!(f, "{left} characters after the last value")
            }
            MarshalErrorKind::PartialElement {
                element_length,
                left,
            } => write!(
                f,
                "{left} characters left is not a whole number of {element_length}-character elements"
            ),
        }
    }
}

impl std::error::Error for MarshalError {}

impl TextLayout {
    /// Writes `values` (the call's parameters by IDL name) as fixed-position
    /// text. A value that is absent is written as its empty form: blanks for A,
    /// zeros for numbers, dates and times, a blank for L; missing array elements
    /// likewise.
    ///
    /// Errors: a value of the wrong type, text longer than its field, a number
    /// outside its format, an invalid date/time, too many array elements.
    pub fn marshal(&self, values: &Record) -> Result<String, MarshalError> {
        let mut out = Writer {
            // The layout's own length, not the values', sizes the first allocation.
            text: String::with_capacity(self.fixed_length.min(1 << 16)),
            chars: 0,
        };
        for node in &self.nodes {
            out.node(node, values.get(&node.name), &node.name)?;
        }
        Ok(out.text)
    }
}

struct Writer {
    text: String,
    /// Characters written so far.
    chars: usize,
}

pub(crate) fn error(path: &str, offset: usize, kind: MarshalErrorKind) -> MarshalError {
    MarshalError {
        path: path.to_string(),
        offset,
        kind,
    }
}

impl Writer {
    fn push(&mut self, s: &str, chars: usize) {
        self.text.push_str(s);
        self.chars += chars;
    }

    fn node(
        &mut self,
        node: &LayoutNode,
        value: Option<&Value>,
        path: &str,
    ) -> Result<(), MarshalError> {
        match &node.shape {
            Shape::Scalar => self.element(&node.element, value, path),
            Shape::Fixed(counts) => self.fixed_array(&node.element, counts, value, path),
            Shape::Tail { max } => {
                let items = match value {
                    None => &[][..],
                    Some(Value::List(items)) => items.as_slice(),
                    Some(_) => {
                        return Err(error(
                            path,
                            self.chars,
                            MarshalErrorKind::WrongType { expected: "a list" },
                        ));
                    }
                };
                if let Some(max) = max
                    && items.len() > *max
                {
                    return Err(error(
                        path,
                        self.chars,
                        MarshalErrorKind::TooManyElements {
                            max: *max,
                            found: items.len(),
                        },
                    ));
                }
                for (i, item) in items.iter().enumerate() {
                    self.element(&node.element, Some(item), &format!("{path}[{}]", i + 1))?;
                }
                Ok(())
            }
        }
    }

    /// Row-major: the first dimension varies slowest.
    fn fixed_array(
        &mut self,
        element: &Element,
        counts: &[usize],
        value: Option<&Value>,
        path: &str,
    ) -> Result<(), MarshalError> {
        let Some((&count, inner)) = counts.split_first() else {
            return self.element(element, value, path);
        };
        let items = match value {
            None => &[][..],
            Some(Value::List(items)) => items.as_slice(),
            Some(_) => {
                return Err(error(
                    path,
                    self.chars,
                    MarshalErrorKind::WrongType { expected: "a list" },
                ));
            }
        };
        if items.len() > count {
            return Err(error(
                path,
                self.chars,
                MarshalErrorKind::TooManyElements {
                    max: count,
                    found: items.len(),
                },
            ));
        }
        for i in 0..count {
            self.fixed_array(element, inner, items.get(i), &format!("{path}[{}]", i + 1))?;
        }
        Ok(())
    }

    fn element(
        &mut self,
        element: &Element,
        value: Option<&Value>,
        path: &str,
    ) -> Result<(), MarshalError> {
        match element {
            Element::Record(members) => {
                let record = match value {
                    None => None,
                    Some(Value::Record(r)) => Some(r),
                    Some(_) => {
                        return Err(error(
                            path,
                            self.chars,
                            MarshalErrorKind::WrongType {
                                expected: "a record",
                            },
                        ));
                    }
                };
                for m in members {
                    let v = record.and_then(|r| r.get(&m.name));
                    self.node(m, v, &format!("{path}.{}", m.name))?;
                }
                Ok(())
            }
            Element::Field(format, width) => self.field(format, *width, value, path),
        }
    }

    fn field(
        &mut self,
        format: &Format,
        width: Width,
        value: Option<&Value>,
        path: &str,
    ) -> Result<(), MarshalError> {
        let at = self.chars;
        let wrong =
            |expected: &'static str| error(path, at, MarshalErrorKind::WrongType { expected });
        let range = |value: String| {
            error(
                path,
                at,
                MarshalErrorKind::OutOfRange {
                    value,
                    format: format.to_string(),
                },
            )
        };
        match format {
            Format::Alpha(_) | Format::Kanji(_) => {
                let text = match value {
                    None => "",
                    Some(Value::Text(t)) => t.as_str(),
                    Some(_) => return Err(wrong("text")),
                };
                let n = text.chars().count();
                let max = match width {
                    Width::Fixed(w) => Some(w),
                    Width::Rest { max } => max,
                };
                if let Some(max) = max
                    && n > max
                {
                    return Err(error(path, at, MarshalErrorKind::TooLong { max, found: n }));
                }
                self.push(text, n);
                if let Width::Fixed(w) = width {
                    let pad = " ".repeat(w - n);
                    self.push(&pad, w - n);
                }
                Ok(())
            }
            Format::Integer(size) => {
                let v = match value {
                    None => 0,
                    Some(Value::Integer(i)) => *i,
                    Some(_) => return Err(wrong("an integer")),
                };
                let (digits, ok) = match size {
                    1 => (3, i8::try_from(v).is_ok()),
                    2 => (5, i16::try_from(v).is_ok()),
                    4 => (10, i32::try_from(v).is_ok()),
                    _ => (19, true),
                };
                if !ok {
                    return Err(range(v.to_string()));
                }
                let s = format!("{}{:0>digits$}", sign(v < 0), v.unsigned_abs());
                self.push(&s, digits + 1);
                Ok(())
            }
            Format::Unpacked(spec) | Format::Packed(spec) => {
                let d = match value {
                    None => Decimal {
                        unscaled: 0,
                        scale: spec.decimals,
                    },
                    Some(Value::Decimal(d)) => *d,
                    Some(Value::Integer(i)) => Decimal {
                        unscaled: i128::from(*i),
                        scale: 0,
                    },
                    Some(_) => return Err(wrong("a decimal number")),
                };
                let digits = decimal_digits(d, spec).ok_or_else(|| range(d.to_string()))?;
                let s = if spec.signed {
                    format!("{}{digits}", sign(d.unscaled < 0))
                } else {
                    digits
                };
                let n = s.len();
                self.push(&s, n);
                Ok(())
            }
            Format::Logical => {
                let b = match value {
                    None => false,
                    Some(Value::Logical(b)) => *b,
                    Some(_) => return Err(wrong("true or false")),
                };
                self.push(if b { "X" } else { " " }, 1);
                Ok(())
            }
            Format::Date => {
                let d = match value {
                    None => Date {
                        year: 0,
                        month: 0,
                        day: 0,
                    },
                    Some(Value::Date(d)) => *d,
                    Some(_) => return Err(wrong("a date")),
                };
                if !d.is_valid() {
                    return Err(range(format!("{d:?}")));
                }
                let s = format!("{:04}{:02}{:02}", d.year, d.month, d.day);
                self.push(&s, 8);
                Ok(())
            }
            Format::Time => {
                let t = match value {
                    None => Timestamp {
                        date: Date {
                            year: 0,
                            month: 1,
                            day: 1,
                        },
                        hour: 0,
                        minute: 0,
                        second: 0,
                        tenths: 0,
                    },
                    Some(Value::Time(t)) => *t,
                    Some(_) => return Err(wrong("a timestamp")),
                };
                if !t.is_valid() {
                    return Err(range(format!("{t:?}")));
                }
                let s = format!(
                    "{:04}{:02}{:02}{:02}{:02}{:02}{}",
                    t.date.year, t.date.month, t.date.day, t.hour, t.minute, t.second, t.tenths
                );
                self.push(&s, 15);
                Ok(())
            }
            // The layout refuses these formats; nothing to write.
            Format::Binary(_) | Format::Unicode(_) | Format::Float(_) => {
                Err(wrong("a format with a text layout"))
            }
        }
    }
}

fn sign(negative: bool) -> char {
    if negative { '-' } else { '+' }
}

/// The n + m digits of `d` for `spec`, without sign; `None` when it does not
/// fit (too many integer digits, non-zero digits beyond m decimals, or
/// negative for NU/PU).
fn decimal_digits(d: Decimal, spec: &NumericSpec) -> Option<String> {
    if !spec.signed && d.unscaled < 0 {
        return None;
    }
    let target = u32::from(spec.decimals);
    let scale = u32::from(d.scale);
    let mut magnitude = d.unscaled.unsigned_abs();
    if scale > target {
        let div = 10u128.checked_pow(scale - target)?;
        if !magnitude.is_multiple_of(div) {
            return None;
        }
        magnitude /= div;
    } else {
        magnitude = magnitude.checked_mul(10u128.checked_pow(target - scale)?)?;
    }
    let width = usize::from(spec.digits) + usize::from(spec.decimals);
    let s = format!("{magnitude:0>width$}");
    (s.len() == width).then_some(s)
}
